/*
 * gpu_runs.cu
 *		mp_gpu_merge_runs and mp_gpu_merge_key_runs: sorted runs in, their
 *		k-way merge (or its permutation) out.
 */
#include <cstdlib>
#include <cstring>

#include "gpu_job.cuh"
#include "../kernels/kway/launch.cuh"

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
	gpu_job<int> job(poll, timing);
	piece<T>	buf = job.input(in, n);
	piece<T>	alt = job.room<T>(n);
	piece<uint32_t> ids = job.room<uint32_t>(idx ? n : 0);
	piece<uint32_t> ids_alt = job.room<uint32_t>(idx ? n : 0);
	piece<int64_t> d_bounds = job.input(bounds, k + 1);
	piece<int64_t> d_tables = job.input(tables, ntables);
	piece<int64_t> parts = job.room<int64_t>(max_tiles);
	mp_status	st = job.open();

	T		   *merged = nullptr;
	uint32_t   *merged_idx = nullptr;

	if (st == MP_OK)
		st = job.run("k-way merge kernels", [&] {
			auto		go = idx ? kway_merge_on_device<T, true> : kway_merge_on_device<T, false>;

			return go(job[buf], job[alt], job[ids], job[ids_alt], job[d_bounds], k, tables,
					  job[d_tables], rounds, job[parts], &merged, &merged_idx, gpu_stream());
		});
	free(tables);
	if (st == MP_OK && out)
		st = job.stage_out((T *) out, merged, n);
	if (st == MP_OK && perm)
		st = job.stage_out(perm, merged_idx, n);
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
	if (mp_status st = gpu_call_begin(timing))
		return st;
	MP_BY_TYPE(merge_values, type, in, bounds, k, out, poll, timing);
	return MP_DEVICE_ERROR;
}

extern "C" mp_status
mp_gpu_merge_key_runs(int word_bytes, const void *keys, const int64_t *bounds, int64_t k,
					  uint32_t *perm, mp_poll_fn poll, mp_gpu_timing *timing)
{
	if (mp_status st = gpu_call_begin(timing))
		return st;
	if (word_bytes == 4)
		return merge_runs_as<uint32_t>((const uint32_t *) keys, bounds, k, nullptr, perm, poll,
									   timing);
	return merge_runs_as<uint64_t>((const uint64_t *) keys, bounds, k, nullptr, perm, poll,
								   timing);
}
