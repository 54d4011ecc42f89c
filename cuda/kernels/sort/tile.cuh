/*
 * tile.cuh (sort)
 *		Sorting and unique on the device.
 *
 * The sort is CUB's DeviceRadixSort over the values themselves.  Its own
 * bit twiddling is mp_order.h's key for integers (the sign bit flipped) and
 * for floats but two cases: it sorts -0 and +0 as equal already (and is
 * stable), but it puts NaNs with the sign bit set first and orders NaNs by
 * their payload bits, where PostgreSQL has every NaN equal and last.  Those
 * NaNs sort below -Infinity and the others above +Infinity, so an input
 * holds a NaN exactly when the sorted values start or end with one: two
 * elements read after the sort tell.  Only then is the sort done again
 * another way: the non-NaN values selected (stably) into one buffer and
 * sorted, and the NaNs selected after them in their input order.  Sorting
 * the values themselves rather than keys carried with them keeps the sort
 * to the bytes of one array.
 *
 * Unique flags each element that is greater than its predecessor (the
 * first of each run), checking the order on the way, and compacts with
 * CUB's DeviceSelect::Flagged.
 *
 * The row sort (the executor's sort node) sorts row numbers by composite
 * keys that the host has already folded into unsigned words (mp_order.h):
 * CUB's radix sort of (key word, row number) pairs, one word after another
 * from the least significant, each sort stable and limited to the word's
 * bits in use; a word after the first is gathered in the order the words
 * before have put the rows.
 */
#ifndef MP_SORT_TILE_CUH
#define MP_SORT_TILE_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "../primitives/order.cuh"

namespace mp
{

template <typename T>
struct is_float_type
{
	static constexpr bool value = (T) 0.5 != (T) 0;
};

template <typename T>
struct not_nan
{
	__host__ __device__ __forceinline__ bool operator()(T x) const { return x == x; }
};

template <typename T>
struct is_nan
{
	__host__ __device__ __forceinline__ bool operator()(T x) const { return x != x; }
};

constexpr int SCAN_THREADS = 256;

/* Grid for a grid-stride pass over n elements. */
inline int
pass_blocks(int64_t n)
{
	int64_t		blocks = (n + SCAN_THREADS * 8 - 1) / (SCAN_THREADS * 8);

	return (int) (blocks < 1 ? 1 : blocks > 8192 ? 8192 : blocks);
}

/* *found = whether CUB's sort of n floats left a NaN at either end, that
 * is, whether its input holds one. */
template <typename T>
__global__ void
nan_at_ends(const T *__restrict__ sorted, int n, int *found)
{
	const T		first = sorted[0],
				last = sorted[n - 1];

	*found = first != first || last != last;
}

/* flags[i] = x[i] starts a run of equal keys; *unsorted = 1 on a descent. */
template <typename T>
__global__ void __launch_bounds__(SCAN_THREADS)
unique_flags(const T *__restrict__ x, int64_t n, uint8_t *__restrict__ flags, int *unsorted)
{
	bool		bad = false;

	for (int64_t i = blockIdx.x * (int64_t) SCAN_THREADS + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * SCAN_THREADS)
	{
		T			cur = x[i];
		bool		first = true;

		if (i > 0)
		{
			T			prev = x[i - 1];

			first = order<T>::lt(prev, cur);
			bad |= order<T>::lt(cur, prev);
		}
		flags[i] = first;
	}
	if (unsorted && __syncthreads_or(bad) && threadIdx.x == 0)
		*unsorted = 1;
}

/* x[i] = i */
template <typename R>
__global__ void __launch_bounds__(SCAN_THREADS)
row_numbers(R *x, int64_t n)
{
	for (int64_t i = blockIdx.x * (int64_t) SCAN_THREADS + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * SCAN_THREADS)
		x[i] = (R) i;
}

/* out[i] = word[rows[i]] */
template <typename K>
__global__ void __launch_bounds__(SCAN_THREADS)
gather_keys(const K *__restrict__ word, const uint32_t *__restrict__ rows, K *__restrict__ out,
			int64_t n)
{
	for (int64_t i = blockIdx.x * (int64_t) SCAN_THREADS + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * SCAN_THREADS)
		out[i] = word[rows[i]];
}

}								/* namespace mp */

#endif							/* MP_SORT_TILE_CUH */
