/*
 * gpu_batch_as.cuh
 *		batch_as<T> (gpu_batch.cuh): a batch's pairs up, one launch sequence
 *		for all of them (kernels/batch), the results and their offsets down.
 *		Included by one translation unit an element type.
 *
 * Offsets known before the run (a merge's, a search's, a sort's) are
 * computed here; a filter's come from the device with its results.  On a
 * failed check the first unsorted pair is found here, in the host's copy.
 */
#ifndef GPU_BATCH_AS_CUH
#define GPU_BATCH_AS_CUH

#include "gpu_batch.cuh"
#include "gpu_job.cuh"
#include "../kernels/batch/launch.cuh"

namespace mp
{

/* What comes back besides the results. */
struct batch_status
{
	int64_t		kept[2];		/* each filter's kept elements */
	int			unsorted;
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
											   : setop ? batch_setop_parts<T>(np, na + nb) : 0);
	piece<unsigned long long> d_chain =
		job.room<unsigned long long>(setop ? batch_setop_chain_words<T>(np, na + nb) : 0);
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

#define MP_BATCH_AS(T) \
	template mp_status batch_as<T>(mp_batch_call *call, bool check_sorted, mp_poll_fn poll, \
								   mp_gpu_timing *timing)

}								/* namespace mp */

#endif							/* GPU_BATCH_AS_CUH */
