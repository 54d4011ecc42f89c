/*
 * gpu_runs.cu
 *		mp_gpu_merge_runs and mp_gpu_merge_key_runs: sorted runs in, their
 *		k-way merge (or its permutation) out.
 */
#include <cstdlib>
#include <cstring>

#include "gpu_context.cuh"
#include "../kernels/kway_kernels.cuh"

using namespace mp;

namespace
{

template <typename T>
mp_status
merge_runs_as(const T *in, const int64_t *bounds, int64_t k, T *out, uint32_t *perm,
			  mp_poll_fn poll, mp_gpu_timing *timing)
{
	int64_t		n = k > 0 ? bounds[k] : 0;

	if (n > INT32_MAX)
		return gpu_cannot("the GPU merges at most 2^31 - 1 elements of runs");
	if (k <= 1 || n == 0)
	{
		/* one run (or nothing): already merged */
		if (out && n > 0)
			memcpy(out, in, n * sizeof(T));
		if (perm)
			for (int64_t j = 0; j < n; j++)
				perm[j] = (uint32_t) j;
		return MP_OK;
	}

	/* each round's first-tile table, planned on the host */
	int64_t		ntables = 0;
	int64_t		max_tiles;

	for (int64_t width = 1; width < k; width *= 2)
		ntables += (k + 2 * width - 1) / (2 * width) + 1;

	int64_t    *tables = (int64_t *) malloc(ntables * sizeof(int64_t));

	if (tables == nullptr)
		return gpu_cannot("out of host memory for the k-way merge's plan");

	int			rounds = kway_plan<T>(bounds, k, tables, &max_tiles);

	bool		idx = perm != nullptr;
	pool_carver carve;
	size_t		at_buf = carve.take<T>(n);
	size_t		at_alt = carve.take<T>(n);
	size_t		at_idx = carve.take<uint32_t>(idx ? n : 0);
	size_t		at_idx_alt = carve.take<uint32_t>(idx ? n : 0);
	size_t		at_bounds = carve.take<int64_t>(k + 1);
	size_t		at_tables = carve.take<int64_t>(ntables);
	size_t		at_parts = carve.take<int64_t>(max_tiles);
	size_t		at_status = carve.take<int>(1);
	char	   *pool;
	mp_status	st = gpu_pool(carve.offset, (void **) &pool);

	if (st == MP_OK)
	{
		host_to_device copies[3] = {
			{pool + at_buf, in, n * sizeof(T)},
			{pool + at_bounds, bounds, (k + 1) * sizeof(int64_t)},
			{pool + at_tables, tables, ntables * sizeof(int64_t)},
		};

		st = stage_in(copies, 3, poll, timing);
	}
	if (st != MP_OK)
	{
		free(tables);
		return st;
	}

	T		   *merged = nullptr;
	uint32_t   *merged_idx = nullptr;
	cudaError_t err = run_kernels([&] {
		auto		go = idx ? kway_merge_on_device<T, true> : kway_merge_on_device<T, false>;

		return go((T *) (pool + at_buf), (T *) (pool + at_alt), (uint32_t *) (pool + at_idx),
				  (uint32_t *) (pool + at_idx_alt), (const int64_t *) (pool + at_bounds), k,
				  tables, (const int64_t *) (pool + at_tables), rounds,
				  (int64_t *) (pool + at_parts), &merged, &merged_idx, gpu_stream());
	}, pool + at_status, sizeof(int), timing);

	free(tables);
	if (err)
		return cuda_failure(err, "k-way merge kernels");
	if (out)
		st = stage_out(out, merged, n * sizeof(T), poll, timing);
	if (st == MP_OK && perm)
		st = stage_out(perm, merged_idx, n * sizeof(uint32_t), poll, timing);
	return st;
}

template <typename T>
mp_status
merge_values(const void *in, const int64_t *bounds, int64_t k, void *out, mp_poll_fn poll,
			 mp_gpu_timing *timing)
{
	return merge_runs_as<T>((const T *) in, bounds, k, (T *) out, nullptr, poll, timing);
}

}								/* namespace */

extern "C" mp_status
mp_gpu_merge_runs(mp_type type, const void *in, const int64_t *bounds, int64_t k, void *out,
				  mp_poll_fn poll, mp_gpu_timing *timing)
{
	*timing = mp_gpu_timing();
	if (mp_status st = mp_gpu_init())
		return st;
	MP_BY_TYPE(merge_values, type, in, bounds, k, out, poll, timing);
	return MP_DEVICE_ERROR;
}

extern "C" mp_status
mp_gpu_merge_key_runs(int word_bytes, const void *keys, const int64_t *bounds, int64_t k,
					  uint32_t *perm, mp_poll_fn poll, mp_gpu_timing *timing)
{
	*timing = mp_gpu_timing();
	if (mp_status st = mp_gpu_init())
		return st;
	if (word_bytes == 4)
		return merge_runs_as<uint32_t>((const uint32_t *) keys, bounds, k, nullptr, perm, poll,
									   timing);
	return merge_runs_as<uint64_t>((const uint64_t *) keys, bounds, k, nullptr, perm, poll,
								   timing);
}
