/*
 * gpu_rows.cu
 *		mp_gpu_sort_rows: the executor's sort node's keys in, the permutation
 *		out.
 */
#include "gpu_job.cuh"
#include "../kernels/sort/launch.cuh"

using namespace mp;

namespace
{

template <typename K>
mp_status
sort_rows_as(const mp_row_keys *keys, int64_t n, uint32_t *perm, mp_poll_fn poll,
			 mp_gpu_timing *timing)
{
	size_t		temp_bytes = 0;

	if (n > INT32_MAX)
		return gpu_cannot("the GPU sorts at most 2^31 - 1 rows");
	if (n < 2)
	{
		if (n == 1)
			perm[0] = 0;
		return MP_OK;
	}
	MP_CUDA(sort_rows_temp_bytes<K>((int) n, &temp_bytes));

	gpu_job<int> job(poll, timing);
	piece<K>	words = job.input((const K *) keys->words, (size_t) n * keys->nwords);
	piece<K>	gathered = job.room<K>(keys->nwords > 1 ? n : 0);
	piece<K>	alt = job.room<K>(n);
	piece<uint32_t> rows = job.room<uint32_t>(n);
	piece<uint32_t> rows_alt = job.room<uint32_t>(n);
	piece<char> temp = job.room<char>(temp_bytes);

	if (mp_status st = job.open())
		return st;

	uint32_t   *sorted = nullptr;

	if (mp_status st = job.run("row sort kernels", [&] {
		return sort_rows_on_device<K>(job[words], keys->nwords, keys->bits, (int) n,
									  job[gathered], job[alt], job[rows], job[rows_alt], &sorted,
									  job[temp], temp_bytes, gpu_stream());
	}))
		return st;
	return job.stage_out(perm, sorted, n);
}

}								/* namespace */

extern "C" mp_status
mp_gpu_sort_rows(const mp_row_keys *keys, int64_t n, uint32_t *perm, mp_poll_fn poll,
				 mp_gpu_timing *timing)
{
	if (mp_status st = gpu_call_begin(timing))
		return st;
	if (keys->word_bytes == 4)
		return sort_rows_as<uint32_t>(keys, n, perm, poll, timing);
	return sort_rows_as<uint64_t>(keys, n, perm, poll, timing);
}
