/*
 * gpu_search.cu
 *		mp_gpu_search, mp_gpu_semijoin, mp_gpu_join: sorted search and the
 *		joins built on it, host arrays in, results out.
 */
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "gpu_job.cuh"
#include "../kernels/search/launch.cuh"

using namespace mp;

namespace
{

/* What comes back besides the results: a count and the check's flag. */
struct search_status
{
	int64_t		count;
	int			unsorted;
};

/* Ranks are int32: SQL arrays stay far below this, the kernels must too. */
mp_status
refuse_large(int64_t n1, int64_t n2)
{
	if (n1 > INT32_MAX || n2 > INT32_MAX)
		return gpu_cannot("the GPU search takes arrays of at most 2^31 - 1 elements");
	return MP_OK;
}

template <typename T>
mp_status
search_typed(mp_search kind, const T *hay, int64_t nh, const T *needles, int64_t nn,
			 int32_t *out, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	if (mp_status st = refuse_large(nh, nn))
		return st;

	gpu_job<search_status> job(poll, timing);
	piece<T>	h = job.input(hay, nh);
	piece<T>	nd = job.input(needles, nn);
	piece<int32_t> d_out = job.room<int32_t>(nn);
	piece<char> parts = job.room<char>(search_parts_bytes<T>(nh, nn));

	if (mp_status st = job.open())
		return st;

	const T    *d_h = job[h];
	const T    *d_n = job[nd];
	int32_t    *o = job[d_out];
	int64_t    *d_parts = (int64_t *) job[parts];
	int		   *d_unsorted = check_sorted ? &job.device_status()->unsorted : nullptr;
	cudaStream_t stream = gpu_stream();

	if (mp_status st = job.run("search kernels", [&] {
		switch (kind)
		{
			case MP_LOWER_BOUND:
				return search_on_device<T, false, OUT_RANK>(d_h, nh, d_n, nn, o, nullptr,
															d_parts, d_unsorted, stream);
			case MP_UPPER_BOUND:
				return search_on_device<T, true, OUT_RANK>(d_h, nh, d_n, nn, o, nullptr,
														   d_parts, d_unsorted, stream);
			case MP_COUNT:
				/* the upper bound less the lower bound, in place */
				if (cudaError_t e = search_on_device<T, false, OUT_RANK>(d_h, nh, d_n, nn, o,
																		nullptr, d_parts,
																		d_unsorted, stream))
					return e;
				return search_on_device<T, true, OUT_RANK_MINUS>(d_h, nh, d_n, nn, o, o,
																 d_parts, nullptr, stream);
		}
		return cudaErrorInvalidValue;
	}))
		return st;
	if (check_sorted && job.status().unsorted)
		return MP_UNSORTED;
	return job.stage_out(out, o, nn);
}

template <typename T>
mp_status
semijoin_typed(bool anti, const T *a, int64_t na, const T *b, int64_t nb, T *out,
			   int64_t *nout, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	cudaStream_t stream = gpu_stream();
	size_t		select_bytes = 0;

	if (mp_status st = refuse_large(na, nb))
		return st;
	MP_CUDA(cub::DeviceSelect::Flagged(nullptr, select_bytes, (const T *) nullptr,
									   (const uint8_t *) nullptr, (T *) nullptr,
									   (int64_t *) nullptr, na, stream));

	gpu_job<search_status> job(poll, timing);
	piece<T>	pa = job.input(a, na);
	piece<T>	pb = job.input(b, nb);
	piece<uint8_t> flags = job.room<uint8_t>(na);
	piece<T>	d_out = job.room<T>(na);
	piece<char> parts = job.room<char>(search_parts_bytes<T>(nb, na));
	piece<char> select = job.room<char>(select_bytes);

	if (mp_status st = job.open())
		return st;

	const T    *d_a = job[pa];
	const T    *d_b = job[pb];
	uint8_t    *d_flags = job[flags];
	int64_t    *d_parts = (int64_t *) job[parts];
	search_status *d_status = job.device_status();
	int		   *d_unsorted = check_sorted ? &d_status->unsorted : nullptr;

	if (mp_status st = job.run("semi join kernels", [&] {
		cudaError_t e = anti
			? search_on_device<T, false, OUT_MISSING>(d_b, nb, d_a, na, d_flags, nullptr, d_parts,
													  d_unsorted, stream)
			: search_on_device<T, false, OUT_FOUND>(d_b, nb, d_a, na, d_flags, nullptr, d_parts,
													d_unsorted, stream);

		if (e || na == 0)
			return e;
		return cub::DeviceSelect::Flagged(job[select], select_bytes, d_a, d_flags, job[d_out],
										  &d_status->count, na, stream);
	}))
		return st;
	if (check_sorted && job.status().unsorted)
		return MP_UNSORTED;
	*nout = job.status().count;
	return job.stage_out(out, job[d_out], *nout);
}

/* The pairs the last join left in the pool. */
struct join_result
{
	uint64_t	generation;		/* gpu_pool_generation() when they were built */
	const int32_t *a_pos;
	const int32_t *b_pos;
	int64_t		npairs;
	bool		valid;
};

join_result last_join;

template <typename T>
mp_status
join_typed(const T *a, int64_t na, const T *b, int64_t nb, int64_t max_pairs, int64_t *npairs,
		   bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	cudaStream_t stream = gpu_stream();
	size_t		scan_bytes = 0;

	if (mp_status st = refuse_large(na, nb))
		return st;
	MP_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, (const int32_t *) nullptr,
										   (int64_t *) nullptr, cuda::std::plus<int64_t>(),
										   (int64_t) 0, na, stream));

	gpu_job<search_status> job(poll, timing);
	piece<T>	pa = job.input(a, na);
	piece<T>	pb = job.input(b, nb);
	piece<int32_t> lb = job.room<int32_t>(na);
	piece<int32_t> cnt = job.room<int32_t>(na);
	piece<int64_t> off = job.room<int64_t>(na);
	piece<char> parts = job.room<char>(search_parts_bytes<T>(nb, na));
	piece<char> scan = job.room<char>(scan_bytes);

	if (mp_status st = job.open())
		return st;

	/* 1. each a element's lower bound and count in b, their scan, the total */
	search_status *d_status = job.device_status();

	if (mp_status st = job.run("join count kernels", [&] {
		int64_t    *d_parts = (int64_t *) job[parts];
		cudaError_t e = search_on_device<T, false, OUT_RANK>(
			job[pb], nb, job[pa], na, job[lb], nullptr, d_parts,
			check_sorted ? &d_status->unsorted : nullptr, stream);

		if (!e)
			e = search_on_device<T, true, OUT_RANK_MINUS>(job[pb], nb, job[pa], na, job[cnt],
														  job[lb], d_parts, nullptr, stream);
		if (!e && na > 0)
			e = cub::DeviceScan::ExclusiveScan(job[scan], scan_bytes, job[cnt], job[off],
											   cuda::std::plus<int64_t>(), (int64_t) 0, na,
											   stream);
		if (!e)
		{
			join_total<<<1, 1, 0, stream>>>(job[off], job[cnt], na, &d_status->count);
			e = cudaGetLastError();
		}
		return e;
	}))
		return st;
	if (check_sorted && job.status().unsorted)
		return MP_UNSORTED;
	*npairs = job.status().count;
	if (*npairs > max_pairs)
		return MP_OK;

	/* 2. the pairs themselves, in room added after what step 1 left */
	piece<int32_t> a_pos = job.room<int32_t>(*npairs);
	piece<int32_t> b_pos = job.room<int32_t>(*npairs);

	if (mp_status st = job.grow())
		return st;
	if (mp_status st = job.run("join expansion kernel", [&] {
		return join_expand_on_device(job[off], job[lb], na, 0, *npairs, job[a_pos], job[b_pos],
									 stream);
	}))
		return st;
	last_join = {gpu_pool_generation(), job[a_pos], job[b_pos], *npairs, true};
	return MP_OK;
}

template <typename T>
mp_status
search_as(mp_search kind, const void *hay, int64_t nh, const void *needles, int64_t nn,
		  int32_t *out, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	return search_typed(kind, (const T *) hay, nh, (const T *) needles, nn, out, check_sorted,
						poll, timing);
}

template <typename T>
mp_status
semijoin_as(bool anti, const void *a, int64_t na, const void *b, int64_t nb, void *out,
			int64_t *nout, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	return semijoin_typed(anti, (const T *) a, na, (const T *) b, nb, (T *) out, nout,
						  check_sorted, poll, timing);
}

template <typename T>
mp_status
join_as(const void *a, int64_t na, const void *b, int64_t nb, int64_t max_pairs,
		int64_t *npairs, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	return join_typed((const T *) a, na, (const T *) b, nb, max_pairs, npairs, check_sorted,
					  poll, timing);
}

}								/* namespace */

extern "C" mp_status
mp_gpu_search(mp_search kind, mp_type type, const void *hay, int64_t nh, const void *needles,
			  int64_t nn, int32_t *out, bool check_sorted, mp_poll_fn poll,
			  mp_gpu_timing *timing)
{
	if (mp_status st = gpu_call_begin(timing))
		return st;
	MP_BY_TYPE(search_as, type, kind, hay, nh, needles, nn, out, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}

extern "C" mp_status
mp_gpu_semijoin(bool anti, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
				void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll,
				mp_gpu_timing *timing)
{
	*nout = 0;
	if (mp_status st = gpu_call_begin(timing))
		return st;
	MP_BY_TYPE(semijoin_as, type, anti, a, na, b, nb, out, nout, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}

extern "C" mp_status
mp_gpu_join(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			int64_t max_pairs, int64_t *npairs, bool check_sorted, mp_poll_fn poll,
			mp_gpu_timing *timing)
{
	*npairs = 0;
	last_join.valid = false;
	if (mp_status st = gpu_call_begin(timing))
		return st;
	MP_BY_TYPE(join_as, type, a, na, b, nb, max_pairs, npairs, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}

extern "C" mp_status
mp_gpu_join_fetch(int64_t first, int64_t count, int32_t *a_pos, int32_t *b_pos,
				  mp_poll_fn poll, mp_gpu_timing *timing)
{
	if (!last_join.valid || last_join.generation != gpu_pool_generation() ||
		first < 0 || count < 0 || first + count > last_join.npairs)
		return gpu_cannot("the join's pairs are no longer on the device");
	if (count == 0)
		return MP_OK;
	if (mp_status st = stage_out(a_pos, last_join.a_pos + first, count * sizeof(int32_t), poll,
								 timing))
		return st;
	return stage_out(b_pos, last_join.b_pos + first, count * sizeof(int32_t), poll, timing);
}
