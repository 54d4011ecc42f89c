/*
 * tile.cuh (k-way merge)
 *		The k-way merge of sorted runs on the device: a tree of pairwise
 *		Merge Path merges, one level a round.
 *
 * The runs lie end to end in one buffer, so merging each run with its
 * right-hand neighbour leaves every result where its two runs were: after
 * round r the runs are those of 2^(r+1) original runs, and their bounds are
 * every 2^(r+1)-th of the original bounds.  Each round is two launches over
 * all of its pairs at once, however many there are: the host cuts every
 * pair's output into tiles of NV elements and numbers the tiles of all
 * pairs one after another (a table of each pair's first tile); a partition
 * kernel finds each tile's Merge Path split in its pair, and a tile kernel
 * loads the tile's windows of both runs into shared memory, merges them
 * there (each thread its own VT outputs, found by its own Merge Path
 * search) and stores the tile with coalesced writes.  The searches are
 * primitives/merge_path.cuh's, in primitives/order.cuh's order (plain for unsigned keys).
 * Equal elements take the left run's first, so each round, and the whole
 * merge, is stable.
 *
 * With IDX, every element carries the index it had in the input (from the
 * position itself in the first round), so the result can be a permutation.
 * ceil(log2 k) rounds each read and write the data once: the benchmark
 * (bench_runs) sets this beside a radix sort of the concatenation, whose
 * passes are one a byte of the key.
 */
#ifndef MP_KWAY_TILE_CUH
#define MP_KWAY_TILE_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "../merge/tile.cuh"

namespace mp
{

/* One round of the tree, as its kernels see it. */
struct kway_round
{
	const int64_t *bounds;		/* the original runs' bounds, k + 1 of them */
	int64_t		k;
	int64_t		width;			/* original runs a side of each pair */
	const int64_t *tile_first;	/* each pair's first tile; npairs + 1 */
	int64_t		npairs;
	int64_t		ntiles;
};

struct kway_pair
{
	int64_t		p;				/* the pair */
	int64_t		a0;				/* its left run's first element */
	int64_t		na;
	int64_t		nb;
};

/* The pair that tile g belongs to: the last whose first tile is at or
 * before g (pairs without tiles, being empty, are passed over). */
__device__ __forceinline__ kway_pair
kway_pair_of(const kway_round &r, int64_t g)
{
	int64_t		lo = 0,
				hi = r.npairs - 1;
	kway_pair	q;

	while (lo < hi)
	{
		int64_t		mid = (lo + hi + 1) >> 1;

		if (r.tile_first[mid] <= g)
			lo = mid;
		else
			hi = mid - 1;
	}
	q.p = lo;

	int64_t		left = 2 * lo * r.width,
				right = left + r.width,
				end = right + r.width;
	int64_t		x0 = r.bounds[left < r.k ? left : r.k],
				x1 = r.bounds[right < r.k ? right : r.k],
				x2 = r.bounds[end < r.k ? end : r.k];

	q.a0 = x0;
	q.na = x1 - x0;
	q.nb = x2 - x1;
	return q;
}

/* Every tile's split: parts[g] = a's elements before tile g's first output. */
template <typename T>
__global__ void
kway_partition(const T *__restrict__ src, kway_round r, int64_t *__restrict__ parts)
{
	int64_t		g = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (g >= r.ntiles)
		return;

	kway_pair	q = kway_pair_of(r, g);
	int64_t		diag = (g - r.tile_first[q.p]) * kway_shape<T>::NV;

	parts[g] = merge_path_search<T>(src + q.a0, q.na, src + q.a0 + q.na, q.nb, diag);
}

template <typename T, bool IDX>
struct kway_smem
{
	T			keys[kway_shape<T>::NV];
	uint32_t	idx[IDX ? kway_shape<T>::NV : 1];
};

/* One tile of one pair: its windows merged in shared memory. */
template <typename T, bool IDX>
__global__ void __launch_bounds__(kway_shape<T>::NT)
kway_merge_tile(const T *__restrict__ src, const uint32_t *__restrict__ src_idx,
				T *__restrict__ dst, uint32_t *__restrict__ dst_idx, kway_round r,
				const int64_t *__restrict__ parts)
{
	constexpr int NT = kway_shape<T>::NT;
	constexpr int VT = kway_shape<T>::VT;
	constexpr int NV = kway_shape<T>::NV;
	__shared__ kway_smem<T, IDX> s;

	const int64_t g = blockIdx.x;
	const kway_pair q = kway_pair_of(r, g);
	const int64_t first = r.tile_first[q.p];
	const int64_t d0 = (g - first) * NV;
	const int64_t d1 = d0 + NV < q.na + q.nb ? d0 + NV : q.na + q.nb;
	const int64_t i0 = parts[g];
	const int64_t i1 = g + 1 < r.tile_first[q.p + 1] ? parts[g + 1] : q.na;
	const int64_t j0 = d0 - i0;
	const int	la = (int) (i1 - i0);
	const int	count = (int) (d1 - d0);
	const T    *a = src + q.a0 + i0;
	const T    *b = src + q.a0 + q.na + j0;

	for (int e = threadIdx.x; e < count; e += NT)
		s.keys[e] = e < la ? a[e] : b[e - la];
	__syncthreads();

	/* this thread's VT outputs: its split of the tile, then a serial merge */
	const int	lb = count - la;
	int			diag = threadIdx.x * VT < count ? threadIdx.x * VT : count;
	int			ia = merge_path_search<T>(s.keys, la, s.keys + la, lb, diag);
	int			ib = diag - ia;
	T			v[VT];
	int			from[VT];

#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		bool		take_b = ib < lb && (ia >= la || order<T>::lt(s.keys[la + ib], s.keys[ia]));

		from[i] = take_b ? la + ib : ia;
		v[i] = s.keys[from[i] < count ? from[i] : 0];
		ia += !take_b;
		ib += take_b;
	}
	__syncthreads();

	const int	mine = count - diag < VT ? count - diag : VT;

#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		if (i < mine)
		{
			s.keys[diag + i] = v[i];
			if constexpr (IDX)
			{
				int64_t		at = from[i] < la ? q.a0 + i0 + from[i]
					: q.a0 + q.na + j0 + (from[i] - la);

				s.idx[diag + i] = src_idx ? src_idx[at] : (uint32_t) at;
			}
		}
	}
	__syncthreads();

	T		   *out = dst + q.a0 + d0;

	for (int e = threadIdx.x; e < count; e += NT)
		out[e] = s.keys[e];
	if constexpr (IDX)
	{
		uint32_t   *out_idx = dst_idx + q.a0 + d0;

		for (int e = threadIdx.x; e < count; e += NT)
			out_idx[e] = s.idx[e];
	}
}

}								/* namespace mp */

#endif							/* MP_KWAY_TILE_CUH */
