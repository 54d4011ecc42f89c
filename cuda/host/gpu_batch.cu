/*
 * gpu_batch.cu
 *		mp_gpu_batch: a batch's pairs up, one launch sequence for all of
 *		them (kernels/batch), the results and their offsets down.
 *
 * Offsets known before the run (a merge's, a search's, a sort's) are
 * computed here; a filter's come from the device with its results.  On a
 * failed check the first unsorted pair is found here, in the host's copy.
 */
#include <cstdlib>
#include <cstring>

#include "gpu_job.cuh"
#include "../kernels/batch/launch.cuh"

using namespace mp;

namespace
{

/* What comes back besides the results. */
struct batch_status
{
	int64_t		kept[2];		/* each filter's kept elements */
	int			unsorted;
};

/* Offsets from 0 of a side that starts at off[0]: off itself when it does. */
struct rebased
{
	const int64_t *off;
	int64_t    *own = nullptr;

	rebased(const int64_t *from, int64_t npairs) : off(from)
	{
		if (from != nullptr && from[0] != 0)
		{
			own = (int64_t *) malloc((npairs + 1) * sizeof(int64_t));
			if (own != nullptr)
				for (int64_t p = 0; p <= npairs; p++)
					own[p] = from[p] - from[0];
			off = own;
		}
	}
	~rebased() { free(own); }
};

/* A filter's scratch, carved once for up to two filters over n elements. */
template <typename T>
struct filter_scratch
{
	piece<int64_t> counts,
				bases;
	piece<char> scan;
	size_t		scan_bytes = 0;
	int64_t		ntiles = 0;

	mp_status carve(gpu_job<batch_status> &job, int64_t n)
	{
		MP_CUDA(batch_filter_scratch<T>(n, &scan_bytes, &ntiles));
		counts = job.room<int64_t>(ntiles + 1);
		bases = job.room<int64_t>(ntiles + 1);
		scan = job.room<char>(scan_bytes);
		return MP_OK;
	}
};

template <typename T, batch_filter F>
cudaError_t
run_filter(gpu_job<batch_status> &job, filter_scratch<T> &fs, const T *x, const int64_t *x_off,
		   const T *y, const int64_t *y_off, int64_t npairs, int64_t n, T *out,
		   int64_t *out_off, int side)
{
	return batch_filter_on_device<T, F>(x, x_off, y, y_off, npairs, n, out, out_off,
										&job.device_status()->kept[side], job[fs.counts],
										job[fs.bases], job[fs.scan], fs.scan_bytes,
										gpu_stream());
}

/* The set operation op of every pair (batch_setop_on_device). */
template <typename T>
cudaError_t
run_setop(mp_setop op, const T *a, const int64_t *a_off, const T *b, const int64_t *b_off,
		  int64_t npairs, int64_t total, T *out, int64_t capacity, int64_t *out_off,
		  int64_t *length, int64_t *parts, unsigned long long *chain, int *unsorted)
{
	switch (op)
	{
		case MP_INTERSECT:
			return batch_setop_on_device<T, MP_INTERSECT>(a, a_off, b, b_off, npairs, total, out,
														  capacity, out_off, length, parts,
														  chain, unsorted, gpu_stream());
		case MP_UNION:
			return batch_setop_on_device<T, MP_UNION>(a, a_off, b, b_off, npairs, total, out,
													  capacity, out_off, length, parts, chain,
													  unsorted, gpu_stream());
		case MP_EXCEPT:
			return batch_setop_on_device<T, MP_EXCEPT>(a, a_off, b, b_off, npairs, total, out,
													   capacity, out_off, length, parts, chain,
													   unsorted, gpu_stream());
		case MP_SYMDIFF:
			return batch_setop_on_device<T, MP_SYMDIFF>(a, a_off, b, b_off, npairs, total, out,
														capacity, out_off, length, parts, chain,
														unsorted, gpu_stream());
	}
	return cudaErrorInvalidValue;
}

template <typename T>
mp_status
batch_as(mp_batch_call *call, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	const int64_t np = call->npairs;
	const bool	two = mp_batch_has_b(call);
	rebased		a_off(call->a_off, np),
				b_off(two ? call->b_off : nullptr, np);
	const int64_t na = call->a_off[np] - call->a_off[0];
	const int64_t nb = two ? call->b_off[np] - call->b_off[0] : 0;
	const T    *a = (const T *) call->a + call->a_off[0];
	const T    *b = two ? (const T *) call->b + call->b_off[0] : nullptr;
	const mp_array_kind kind = call->kind;
	const mp_setop op = (mp_setop) call->variant;
	/* a pass over the pairs on the host: once, and not between the
	 * kernels' events */
	const int64_t room = kind == MP_ARRAY_SEARCH ? 0 : mp_batch_room(call);
	/* the sort's launches follow its pairs' lengths */
	int64_t		min_len = INT64_MAX,
				max_len = 0;

	for (int64_t p = 0; kind == MP_ARRAY_SORT && p < np; p++)
	{
		const int64_t len = call->a_off[p + 1] - call->a_off[p];

		if (len > 0 && len < min_len)
			min_len = len;
		if (len > max_len)
			max_len = len;
	}

	if (a_off.off == nullptr || (two && b_off.off == nullptr))
		return MP_OUT_OF_MEMORY;
	if (np == 0)
	{
		call->out_off[0] = 0;
		return MP_OK;
	}

	gpu_job<batch_status> job(poll, timing);
	piece<T>	d_a = job.input(a, na);
	piece<T>	d_b = job.input(b, nb);
	piece<int64_t> d_aoff = job.input(a_off.off, np + 1);
	piece<int64_t> d_boff = job.input(two ? b_off.off : a_off.off, np + 1);
	piece<T>	d_out = job.room<T>(room);
	piece<int32_t> d_ranks = job.room<int32_t>(kind == MP_ARRAY_SEARCH ? nb : 0);
	piece<int64_t> d_out_off = job.room<int64_t>(np + 1);
	const bool	setop = kind == MP_ARRAY_SETOP;
	piece<int64_t> d_parts = job.room<int64_t>(kind == MP_ARRAY_MERGE ? batch_merge_parts<T>(na + nb)
											   : setop ? batch_setop_parts<T>(na + nb) : 0);
	piece<unsigned long long> d_chain =
		job.room<unsigned long long>(setop ? batch_setop_chain_words<T>(na + nb) : 0);
	filter_scratch<T> fs;
	piece<typename order<T>::key_type> d_keys =
		job.room<typename order<T>::key_type>(kind == MP_ARRAY_SORT &&
											   std::is_floating_point<T>::value &&
											   batch_sort_needs_cub<T>(min_len, max_len) ?
											   2 * na : 0);
	size_t		sort_bytes = 0;
	piece<char> d_sort;

	if (setop && na + nb > INT32_MAX)
		return gpu_cannot("the GPU set operations take at most 2^31 - 1 elements in all");
	if (kind == MP_ARRAY_SEMIJOIN || kind == MP_ARRAY_UNIQUE)
		if (mp_status st = fs.carve(job, na))
			return st;
	if (kind == MP_ARRAY_SORT)
	{
		MP_CUDA(batch_sort_on_device<T>(nullptr, nullptr, np, na, min_len, max_len, nullptr,
										nullptr, nullptr, nullptr, &sort_bytes, gpu_stream()));
		d_sort = job.room<char>(sort_bytes);
	}
	if (mp_status st = job.open())
		return st;

	int		   *flag = check_sorted ? &job.device_status()->unsorted : nullptr;
	const T    *da = job[d_a],
			   *db = job[d_b];
	const int64_t *daoff = job[d_aoff],
			   *dboff = job[d_boff];

	if (mp_status st = job.run("batch kernels", [&]() -> cudaError_t {
		cudaError_t err = cudaSuccess;

		/* the merge's and the set operations' checks ride on their steps */
		if (flag != nullptr && kind != MP_ARRAY_MERGE && kind != MP_ARRAY_SORT && !setop)
		{
			if ((err = batch_check_on_device(da, daoff, np, na, flag, gpu_stream())))
				return err;
			if (two && (err = batch_check_on_device(db, dboff, np, nb, flag, gpu_stream())))
				return err;
		}
		switch (kind)
		{
			case MP_ARRAY_MERGE:
				return batch_merge_on_device(da, daoff, db, dboff, np, na + nb, job[d_out],
											 job[d_parts], flag, gpu_stream());
			case MP_ARRAY_SEARCH:
				return batch_search_on_device(da, daoff, db, dboff, np, nb,
											  (mp_search) call->variant, job[d_ranks],
											  gpu_stream());
			case MP_ARRAY_SORT:
				return batch_sort_on_device<T>(da, daoff, np, na, min_len, max_len, job[d_out],
											   job[d_keys],
											   job[d_keys] + na, job[d_sort], &sort_bytes,
											   gpu_stream());
			case MP_ARRAY_UNIQUE:
				return run_filter<T, KEEP_FIRST>(job, fs, da, daoff, nullptr, nullptr, np, na,
												 job[d_out], job[d_out_off], 0);
			case MP_ARRAY_SEMIJOIN:
				if (call->variant)
					return run_filter<T, KEEP_MISSING>(job, fs, da, daoff, db, dboff, np, na,
													   job[d_out], job[d_out_off], 0);
				return run_filter<T, KEEP_FOUND>(job, fs, da, daoff, db, dboff, np, na,
												 job[d_out], job[d_out_off], 0);
			case MP_ARRAY_SETOP:
				return run_setop(op, da, daoff, db, dboff, np, na + nb, job[d_out],
								 room, job[d_out_off],
								 &job.device_status()->kept[0], job[d_parts], job[d_chain],
								 flag);
			case MP_ARRAY_JOIN_COUNT:
				break;
		}
		return cudaErrorInvalidValue;
	}))
		return st;
	if (flag != nullptr && job.status().unsorted)
	{
		call->bad_pair = mp_batch_first_unsorted(call);
		return call->bad_pair >= 0 ? MP_UNSORTED
			: gpu_cannot("the batch's check and the host's disagree");
	}

	/* the results' offsets, and the results */
	int64_t		nout;

	switch (kind)
	{
		case MP_ARRAY_MERGE:
		case MP_ARRAY_SORT:
		case MP_ARRAY_SEARCH:
			for (int64_t p = 0; p <= np; p++)
				call->out_off[p] = kind == MP_ARRAY_SEARCH ? b_off.off[p]
					: a_off.off[p] + (kind == MP_ARRAY_MERGE ? b_off.off[p] : 0);
			nout = call->out_off[np];
			if (kind == MP_ARRAY_SEARCH)
				return job.stage_out((int32_t *) call->out, job[d_ranks], nout);
			return job.stage_out((T *) call->out, job[d_out], nout);
		default:
			nout = job.status().kept[0];
			if (mp_status st = job.stage_out(call->out_off, job[d_out_off], np + 1))
				return st;
			return job.stage_out((T *) call->out, job[d_out], nout);
	}
}

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
