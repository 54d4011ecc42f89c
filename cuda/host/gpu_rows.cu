/*
 * gpu_rows.cu
 *		mp_gpu_sort_rows: the executor's sort node's keys in, the permutation
 *		out.
 */
#include "gpu_context.cuh"
#include "../kernels/sort_kernels.cuh"

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

	pool_carver carve;
	size_t		at_words = carve.take<K>((size_t) n * keys->nwords);
	size_t		at_gathered = carve.take<K>(keys->nwords > 1 ? n : 0);
	size_t		at_alt = carve.take<K>(n);
	size_t		at_rows = carve.take<uint32_t>(n);
	size_t		at_rows_alt = carve.take<uint32_t>(n);
	size_t		at_temp = carve.take<char>(temp_bytes);
	size_t		at_status = carve.take<int>(1);
	char	   *pool;

	if (mp_status st = gpu_pool(carve.offset, (void **) &pool))
		return st;
	host_to_device copy = {pool + at_words, keys->words, (size_t) n * keys->nwords * sizeof(K)};

	if (mp_status st = stage_in(&copy, 1, poll, timing))
		return st;

	uint32_t   *sorted = nullptr;
	cudaError_t err = run_kernels([&] {
		return sort_rows_on_device<K>((K *) (pool + at_words), keys->nwords, keys->bits, (int) n,
									  (K *) (pool + at_gathered), (K *) (pool + at_alt),
									  (uint32_t *) (pool + at_rows),
									  (uint32_t *) (pool + at_rows_alt), &sorted,
									  pool + at_temp, temp_bytes, gpu_stream());
	}, pool + at_status, sizeof(int), timing);

	if (err)
		return cuda_failure(err, "row sort kernels");
	return stage_out(perm, sorted, n * sizeof(uint32_t), poll, timing);
}

}								/* namespace */

extern "C" mp_status
mp_gpu_sort_rows(const mp_row_keys *keys, int64_t n, uint32_t *perm, mp_poll_fn poll,
				 mp_gpu_timing *timing)
{
	*timing = mp_gpu_timing();
	if (mp_status st = mp_gpu_init())
		return st;
	if (keys->word_bytes == 4)
		return sort_rows_as<uint32_t>(keys, n, perm, poll, timing);
	return sort_rows_as<uint64_t>(keys, n, perm, poll, timing);
}
