/*
 * gpu_search.cu
 *		mp_gpu_search, mp_gpu_semijoin, mp_gpu_join: sorted search and the
 *		joins built on it, host arrays in, results out.
 */
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "gpu_context.cuh"
#include "../kernels/search_kernels.cuh"

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
	cudaStream_t stream = gpu_stream();
	search_status *status_host = (search_status *) gpu_pinned_scratch();
	pool_carver carve;
	size_t		at_h = carve.take<T>(nh);
	size_t		at_n = carve.take<T>(nn);
	size_t		at_out = carve.take<int32_t>(nn);
	size_t		at_parts = carve.take<char>(search_parts_bytes<T>(nh, nn));
	size_t		at_status = carve.take<search_status>(1);
	char	   *pool;

	if (mp_status st = refuse_large(nh, nn))
		return st;
	if (mp_status st = gpu_pool(carve.offset, (void **) &pool))
		return st;
	if (mp_status st = upload_pair(pool, at_h, hay, nh, at_n, needles, nn, poll, timing))
		return st;

	const T    *d_h = (const T *) (pool + at_h);
	const T    *d_n = (const T *) (pool + at_n);
	int32_t    *d_out = (int32_t *) (pool + at_out);
	int64_t    *d_parts = (int64_t *) (pool + at_parts);
	search_status *d_status = (search_status *) (pool + at_status);
	int		   *d_unsorted = check_sorted ? &d_status->unsorted : nullptr;

	cudaError_t err = run_kernels([&] {
		switch (kind)
		{
			case MP_LOWER_BOUND:
				return search_on_device<T, false, OUT_RANK>(d_h, nh, d_n, nn, d_out, nullptr,
															d_parts, d_unsorted, stream);
			case MP_UPPER_BOUND:
				return search_on_device<T, true, OUT_RANK>(d_h, nh, d_n, nn, d_out, nullptr,
														   d_parts, d_unsorted, stream);
			case MP_COUNT:
				/* the upper bound less the lower bound, in place */
				if (cudaError_t e = search_on_device<T, false, OUT_RANK>(d_h, nh, d_n, nn, d_out,
																		nullptr, d_parts,
																		d_unsorted, stream))
					return e;
				return search_on_device<T, true, OUT_RANK_MINUS>(d_h, nh, d_n, nn, d_out, d_out,
																 d_parts, nullptr, stream);
		}
		return cudaErrorInvalidValue;
	}, d_status, sizeof(search_status), timing);

	if (err)
		return cuda_failure(err, "search kernels");
	if (check_sorted && status_host->unsorted)
		return MP_UNSORTED;
	return stage_out(out, d_out, nn * sizeof(int32_t), poll, timing);
}

template <typename T>
mp_status
semijoin_typed(bool anti, const T *a, int64_t na, const T *b, int64_t nb, T *out,
			   int64_t *nout, bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing)
{
	cudaStream_t stream = gpu_stream();
	search_status *status_host = (search_status *) gpu_pinned_scratch();
	size_t		select_bytes = 0;

	if (mp_status st = refuse_large(na, nb))
		return st;
	MP_CUDA(cub::DeviceSelect::Flagged(nullptr, select_bytes, (const T *) nullptr,
									   (const uint8_t *) nullptr, (T *) nullptr,
									   (int64_t *) nullptr, na, stream));

	pool_carver carve;
	size_t		at_a = carve.take<T>(na);
	size_t		at_b = carve.take<T>(nb);
	size_t		at_flags = carve.take<uint8_t>(na);
	size_t		at_out = carve.take<T>(na);
	size_t		at_parts = carve.take<char>(search_parts_bytes<T>(nb, na));
	size_t		at_select = carve.take<char>(select_bytes);
	size_t		at_status = carve.take<search_status>(1);
	char	   *pool;

	if (mp_status st = gpu_pool(carve.offset, (void **) &pool))
		return st;
	if (mp_status st = upload_pair(pool, at_a, a, na, at_b, b, nb, poll, timing))
		return st;

	const T    *d_a = (const T *) (pool + at_a);
	const T    *d_b = (const T *) (pool + at_b);
	uint8_t    *d_flags = (uint8_t *) (pool + at_flags);
	T		   *d_out = (T *) (pool + at_out);
	int64_t    *d_parts = (int64_t *) (pool + at_parts);
	search_status *d_status = (search_status *) (pool + at_status);
	int		   *d_unsorted = check_sorted ? &d_status->unsorted : nullptr;

	cudaError_t err = run_kernels([&] {
		cudaError_t e = anti
			? search_on_device<T, false, OUT_MISSING>(d_b, nb, d_a, na, d_flags, nullptr, d_parts,
													  d_unsorted, stream)
			: search_on_device<T, false, OUT_FOUND>(d_b, nb, d_a, na, d_flags, nullptr, d_parts,
													d_unsorted, stream);

		if (e || na == 0)
			return e;
		return cub::DeviceSelect::Flagged(pool + at_select, select_bytes, d_a, d_flags, d_out,
										  &d_status->count, na, stream);
	}, d_status, sizeof(search_status), timing);

	if (err)
		return cuda_failure(err, "semi join kernels");
	if (check_sorted && status_host->unsorted)
		return MP_UNSORTED;
	*nout = status_host->count;
	return stage_out(out, d_out, *nout * sizeof(T), poll, timing);
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
	search_status *status_host = (search_status *) gpu_pinned_scratch();
	size_t		scan_bytes = 0;

	if (mp_status st = refuse_large(na, nb))
		return st;
	MP_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, (const int32_t *) nullptr,
										   (int64_t *) nullptr, cuda::std::plus<int64_t>(),
										   (int64_t) 0, na, stream));

	pool_carver carve;
	size_t		at_a = carve.take<T>(na);
	size_t		at_b = carve.take<T>(nb);
	size_t		at_lb = carve.take<int32_t>(na);
	size_t		at_cnt = carve.take<int32_t>(na);
	size_t		at_off = carve.take<int64_t>(na);
	size_t		at_parts = carve.take<char>(search_parts_bytes<T>(nb, na));
	size_t		at_scan = carve.take<char>(scan_bytes);
	size_t		at_status = carve.take<search_status>(1);
	size_t		counted = carve.offset;
	char	   *pool;

	if (mp_status st = gpu_pool(counted, (void **) &pool))
		return st;
	if (mp_status st = upload_pair(pool, at_a, a, na, at_b, b, nb, poll, timing))
		return st;

	/* 1. each a element's lower bound and count in b, their scan, the total */
	{
		const T    *d_a = (const T *) (pool + at_a);
		const T    *d_b = (const T *) (pool + at_b);
		int32_t    *d_lb = (int32_t *) (pool + at_lb);
		int32_t    *d_cnt = (int32_t *) (pool + at_cnt);
		int64_t    *d_off = (int64_t *) (pool + at_off);
		int64_t    *d_parts = (int64_t *) (pool + at_parts);
		search_status *d_status = (search_status *) (pool + at_status);

		cudaError_t err = run_kernels([&] {
			cudaError_t e = search_on_device<T, false, OUT_RANK>(
				d_b, nb, d_a, na, d_lb, nullptr, d_parts,
				check_sorted ? &d_status->unsorted : nullptr, stream);

			if (!e)
				e = search_on_device<T, true, OUT_RANK_MINUS>(d_b, nb, d_a, na, d_cnt, d_lb,
															  d_parts, nullptr, stream);
			if (!e && na > 0)
				e = cub::DeviceScan::ExclusiveScan(pool + at_scan, scan_bytes, d_cnt, d_off,
												   cuda::std::plus<int64_t>(), (int64_t) 0, na,
												   stream);
			if (!e)
			{
				join_total<<<1, 1, 0, stream>>>(d_off, d_cnt, na, &d_status->count);
				e = cudaGetLastError();
			}
			return e;
		}, d_status, sizeof(search_status), timing);

		if (err)
			return cuda_failure(err, "join count kernels");
	}
	if (check_sorted && status_host->unsorted)
		return MP_UNSORTED;
	*npairs = status_host->count;
	if (*npairs > max_pairs)
		return MP_OK;

	/* 2. the pairs themselves, in room added after what step 1 left */
	size_t		at_a_pos = carve.take<int32_t>(*npairs);
	size_t		at_b_pos = carve.take<int32_t>(*npairs);

	if (mp_status st = gpu_pool(carve.offset, (void **) &pool, counted))
		return st;

	cudaError_t err = run_kernels([&] {
		return join_expand_on_device((const int64_t *) (pool + at_off),
									 (const int32_t *) (pool + at_lb), na, 0, *npairs,
									 (int32_t *) (pool + at_a_pos), (int32_t *) (pool + at_b_pos),
									 stream);
	}, pool + at_status, sizeof(search_status), timing);

	if (err)
		return cuda_failure(err, "join expansion kernel");
	last_join = {gpu_pool_generation(), (const int32_t *) (pool + at_a_pos),
				 (const int32_t *) (pool + at_b_pos), *npairs, true};
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
	*timing = mp_gpu_timing();
	if (mp_status st = mp_gpu_init())
		return st;
	MP_BY_TYPE(search_as, type, kind, hay, nh, needles, nn, out, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}

extern "C" mp_status
mp_gpu_semijoin(bool anti, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
				void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll,
				mp_gpu_timing *timing)
{
	*timing = mp_gpu_timing();
	*nout = 0;
	if (mp_status st = mp_gpu_init())
		return st;
	MP_BY_TYPE(semijoin_as, type, anti, a, na, b, nb, out, nout, check_sorted, poll, timing);
	return MP_DEVICE_ERROR;
}

extern "C" mp_status
mp_gpu_join(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			int64_t max_pairs, int64_t *npairs, bool check_sorted, mp_poll_fn poll,
			mp_gpu_timing *timing)
{
	*timing = mp_gpu_timing();
	*npairs = 0;
	last_join.valid = false;
	if (mp_status st = mp_gpu_init())
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
