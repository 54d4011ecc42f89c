/*
 * gpu_batch.cu
 *		mp_gpu_batch: a batch on the device.  Pairs that lie back to back go
 *		to the run of their element type (batch_as, gpu_batch_as.cuh); pairs
 *		that lie apart are gathered first and their results scattered after.
 */
#include <cstdlib>
#include <cstring>

#include "gpu_batch.cuh"
#include "gpu_job.cuh"

using namespace mp;

namespace
{

mp_status
batch_flat(mp_batch_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	MP_BY_TYPE(batch_as, call->type, call, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}

/* One side's pairs gathered back to back into *buf (offsets from 0). */
bool
gather_side(const mp_batch_call *call, bool b_side, char **buf)
{
	const size_t sz = mp_type_size(call->type);
	const int64_t *off = b_side ? call->b_off : call->a_off;
	char	   *at;

	*buf = at = (char *) malloc((size_t) (off[call->npairs] - off[0]) * sz + 1);
	if (at == nullptr)
		return false;
	for (int64_t p = 0; p < call->npairs; p++)
	{
		int64_t		n;
		const char *x = b_side ? mp_batch_pair_b(call, p, &n) : mp_batch_pair_a(call, p, &n);

		memcpy(at, x, (size_t) n * sz);
		at += (size_t) n * sz;
	}
	return true;
}

/*
 * A batch whose pairs lie apart (a_at, b_at, out_at) as one whose pairs
 * lie back to back: the inputs gathered on the host, the kernels run as
 * for any batch, the results scattered into their rooms.
 */
mp_status
batch_apart(mp_batch_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	const int64_t np = call->npairs;
	const bool	two = mp_batch_has_b(call);
	const size_t osz = mp_batch_out_size(call);
	mp_batch_call flat = *call;
	rebased		a_off(call->a_off, np),
				b_off(two ? call->b_off : nullptr, np);
	char	   *a = nullptr,
			   *b = nullptr,
			   *out = nullptr;
	mp_status	st = MP_OUT_OF_MEMORY;

	flat.a_at = flat.b_at = nullptr;
	flat.out_at = nullptr;
	flat.a_off = a_off.off;
	flat.b_off = two ? b_off.off : nullptr;
	if (a_off.off != nullptr && (!two || b_off.off != nullptr) &&
		(call->a_at == nullptr || gather_side(call, false, &a)) &&
		(!two || call->b_at == nullptr || gather_side(call, true, &b)) &&
		(call->out_at == nullptr ||
		 (out = (char *) malloc((size_t) mp_batch_room(call) * osz + 1)) != nullptr))
	{
		const size_t sz = mp_type_size(call->type);

		flat.a = a != nullptr ? a : (const char *) call->a + call->a_off[0] * sz;
		if (two)
			flat.b = b != nullptr ? b : (const char *) call->b + call->b_off[0] * sz;
		if (out != nullptr)
			flat.out = out;
		st = batch_flat(&flat, check_sorted, poll, timing);
		call->bad_pair = flat.bad_pair;
		for (int64_t p = 0; st == MP_OK && out != nullptr && p < np; p++)
			memcpy(call->out_at[p], out + call->out_off[p] * osz,
				   (size_t) (call->out_off[p + 1] - call->out_off[p]) * osz);
	}
	free(a);
	free(b);
	free(out);
	return st;
}

}								/* namespace */

extern "C" mp_status
mp_gpu_batch(mp_batch_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	call->bad_pair = -1;
	if (mp_status st = gpu_call_begin(timing))
		return st;
	if (call->a_at != nullptr || call->b_at != nullptr || call->out_at != nullptr)
		return batch_apart(call, check_sorted, poll, timing);
	return batch_flat(call, check_sorted, poll, timing);
}
