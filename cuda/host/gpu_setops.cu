/*
 * gpu_setops.cu
 *		mp_gpu_setop: host arrays in, the result of a multiset operation out.
 *
 * The result's length is found on the device, in the same pass that writes
 * it; only that many elements come back.
 */
#include "gpu_context.cuh"
#include "../kernels/setop_kernels.cuh"

using namespace mp;

namespace
{

/* What comes back besides the result: the flag and the length. */
struct setop_status
{
	int64_t		length;
	int			unsorted;
};

template <mp_setop OP, typename T>
mp_status
setop_typed(const T *a, int64_t na, const T *b, int64_t nb, T *out, int64_t *nout,
			bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	cudaStream_t stream = gpu_stream();
	setop_status *status_host = (setop_status *) gpu_pinned_scratch();
	int64_t		capacity = mp_setop_capacity(OP, na, nb);
	size_t		parts_bytes,
				state_bytes;

	if (na + nb > INT32_MAX)
		return gpu_cannot("the GPU set operations take at most 2^31 - 1 elements in all");
	setop_scratch_bytes<T>(na, nb, &parts_bytes, &state_bytes);

	pool_carver carve;
	size_t		at_a = carve.take<T>(na);
	size_t		at_b = carve.take<T>(nb);
	size_t		at_out = carve.take<T>(capacity);
	size_t		at_parts = carve.take<char>(parts_bytes);
	size_t		at_state = carve.take<char>(state_bytes);
	size_t		at_status = carve.take<setop_status>(1);
	char	   *pool;

	if (mp_status st = gpu_pool(carve.offset, (void **) &pool))
		return st;

	T		   *d_a = (T *) (pool + at_a);
	T		   *d_b = (T *) (pool + at_b);
	T		   *d_out = (T *) (pool + at_out);
	setop_status *d_status = (setop_status *) (pool + at_status);

	if (mp_status st = upload_pair(pool, at_a, a, na, at_b, b, nb, poll, timing))
		return st;

	cudaError_t err = run_kernels([&] {
		return setop_on_device<OP>(d_a, na, d_b, nb, d_out, capacity, &d_status->length,
								   (int64_t *) (pool + at_parts), pool + at_state, state_bytes,
								   check_sorted ? &d_status->unsorted : nullptr, stream);
	}, d_status, sizeof(setop_status), timing);

	if (err)
		return cuda_failure(err, "set operation kernels");
	if (check_sorted && status_host->unsorted)
		return MP_UNSORTED;

	*nout = status_host->length;
	return stage_out(out, d_out, *nout * sizeof(T), poll, timing);
}

template <typename T>
mp_status
setop_as(mp_setop op, const void *a, int64_t na, const void *b, int64_t nb, void *out,
		 int64_t *nout, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	const T    *ta = (const T *) a;
	const T    *tb = (const T *) b;
	T		   *tout = (T *) out;

	switch (op)
	{
		case MP_INTERSECT:
			return setop_typed<MP_INTERSECT>(ta, na, tb, nb, tout, nout, check_sorted, poll, timing);
		case MP_UNION:
			return setop_typed<MP_UNION>(ta, na, tb, nb, tout, nout, check_sorted, poll, timing);
		case MP_EXCEPT:
			return setop_typed<MP_EXCEPT>(ta, na, tb, nb, tout, nout, check_sorted, poll, timing);
		case MP_SYMDIFF:
			return setop_typed<MP_SYMDIFF>(ta, na, tb, nb, tout, nout, check_sorted, poll, timing);
	}
	return MP_DEVICE_ERROR;
}

}								/* namespace */

extern "C" mp_status
mp_gpu_setop(mp_setop op, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			 void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll,
			 mp_gpu_timing *timing)
{
	*timing = mp_gpu_timing();
	*nout = 0;
	if (mp_status st = mp_gpu_init())
		return st;
	MP_BY_TYPE(setop_as, type, op, a, na, b, nb, out, nout, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}
