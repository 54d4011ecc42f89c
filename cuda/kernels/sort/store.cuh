/*
 * store.cuh (sort)
 *		Kernels of the row store (host/gpu_store.cu): the lengths of a chunk
 *		of rows in key order, how many fit, and their tuples copied back to
 *		back.
 */
#ifndef MP_SORT_STORE_CUH
#define MP_SORT_STORE_CUH

#include <cstdint>

#include "tile.cuh"

namespace mp
{

/* What a fetch found: the rows that fit, and their bytes. */
struct store_fetch_status
{
	int64_t		rows;
	uint64_t	bytes;
};

/* lens[j] = the bytes of row perm[first + j], for j < m. */
__global__ void __launch_bounds__(SCAN_THREADS)
store_lengths(const uint32_t *__restrict__ perm, const uint64_t *__restrict__ offsets,
			  int64_t first, int64_t m, uint64_t *__restrict__ lens)
{
	for (int64_t j = blockIdx.x * (int64_t) SCAN_THREADS + threadIdx.x; j < m;
		 j += (int64_t) gridDim.x * SCAN_THREADS)
	{
		uint32_t	r = perm[first + j];

		lens[j] = offsets[r + 1] - offsets[r];
	}
}

/*
 * The rows whose running total of bytes (ends, inclusive) stays within
 * max_bytes: a binary search by one thread.  With none, the first row's
 * length goes into bytes.
 */
__global__ void
store_fitting(const uint64_t *__restrict__ ends, int64_t m, uint64_t max_bytes,
			  store_fetch_status *status)
{
	int64_t		lo = 0,
				hi = m;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (ends[mid] <= max_bytes)
			lo = mid + 1;
		else
			hi = mid;
	}
	status->rows = lo;
	status->bytes = lo > 0 ? ends[lo - 1] : (m > 0 ? ends[0] : 0);
}

/*
 * The fitting rows' tuples to out, back to back: a warp a row, 8 bytes a
 * lane a step (the tuples' lengths and offsets are multiples of 8).
 */
__global__ void __launch_bounds__(SCAN_THREADS)
store_copy(const uint32_t *__restrict__ perm, const uint64_t *__restrict__ offsets,
		   const char *__restrict__ tuples, int64_t first, const uint64_t *__restrict__ ends,
		   const store_fetch_status *status, char *__restrict__ out)
{
	const int64_t m = status->rows;
	const int	lane = threadIdx.x % 32;
	const int64_t warps = (int64_t) gridDim.x * (SCAN_THREADS / 32);

	for (int64_t j = blockIdx.x * (int64_t) (SCAN_THREADS / 32) + threadIdx.x / 32; j < m;
		 j += warps)
	{
		uint32_t	r = perm[first + j];
		const uint64_t *src = (const uint64_t *) (tuples + offsets[r]);
		uint64_t	at = j > 0 ? ends[j - 1] : 0;
		uint64_t   *dst = (uint64_t *) (out + at);
		uint64_t	words = (ends[j] - at) / 8;

		for (uint64_t w = lane; w < words; w += 32)
			dst[w] = src[w];
	}
}

}								/* namespace mp */

#endif							/* MP_SORT_STORE_CUH */
