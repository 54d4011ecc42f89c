/*
 * tile.cuh (merge)
 *		Merge Path on the device, in two phases (one for small merges):
 *		the partition and tile kernels.
 *
 * 1. merge_partition: one thread per tile boundary binary-searches the
 *    cross-diagonal diag = tile * NV of the (A, B) grid and records how many A
 *    elements precede it in the merged order (in two levels, see there).  The
 *    splits are exact, so every tile merges exactly NV outputs and no atomics
 *    are needed.
 * 2. merge_tile: each block copies its A and B windows into shared memory
 *    (on sm_90 in bulk, see load_tile_windows), each thread finds its own
 *    start with the same search over the shared windows (diagonal
 *    tid * VT), merges VT items serially into registers, and each warp
 *    writes its items back through shared memory so that the stores are
 *    coalesced.  VT is odd so that the transposition has no bank
 *    conflicts.
 *
 * Small merges skip phase 1: each tile searches its own two boundaries
 * (merge_tile_self).
 *
 * The sortedness check rides on the serial merge (see merge_one_tile), and
 * compares the first element of each window with the one before it in
 * global memory.  On sorted input the splits never decrease; a tile whose
 * splits do signals unsorted input too.  The kernels only raise a flag:
 * where the first offending element is, the host finds out on the error
 * path.
 *
 * Ties go to A (stable).  Device-level, stream-ordered, no allocation: the
 * caller provides the partition array and the flag.  Header-only so that the
 * benchmarks can call it beside CUB on device-resident data.
 */
#ifndef MP_MERGE_TILE_CUH
#define MP_MERGE_TILE_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "../shapes.cuh"
#include "../primitives/launch.cuh"
#include "../primitives/merge_path.cuh"
#include "../primitives/windows.cuh"

namespace mp
{

template <typename T, int NT, int VT>
__global__ void __launch_bounds__(128)
merge_partition(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
				int64_t nb, int64_t *__restrict__ parts, int64_t num_parts, bool bracketed)
{
	int64_t		p,
				split;

	grid_dependents_launch();
	if (merge_partition_split<T, NT * VT>(a, na, b, nb, num_parts, bracketed, &p, &split))
		parts[p] = split;
}

/*
 * Few boundaries (up to MERGE_WIDE_UPTO): a warp a boundary, its 32 lanes
 * probing together (merge_path_group), so that each split takes about
 * log33(na + nb) rounds of dependent loads instead of log2(na + nb).  At 1M
 * a side that is 5 rounds instead of 21, and the chain of loads is what the
 * merge of a few million elements waits on.
 */
template <typename T, int NT, int VT>
__global__ void __launch_bounds__(128)
merge_partition_wide(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
					 int64_t nb, int64_t *__restrict__ parts, int64_t num_parts)
{
	constexpr int64_t NV = NT * VT;
	const int64_t p = ((int64_t) blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const int64_t total = na + nb;

	grid_dependents_launch();
	if (p >= num_parts)
		return;					/* the whole warp: p is the warp's */

	const int64_t diag = p * NV < total ? p * NV : total;
	const int64_t split = merge_path_group<T, 32>(a, b, diag, diag > nb ? diag - nb : 0,
												  diag < na ? diag : na);

	if (threadIdx.x % 32 == 0)
		parts[p] = split;
}

/*
 * One tile.  FULL tiles (all but the last) hold exactly NV outputs and need
 * no bounds checks.
 *
 * With unsorted non-null, the check rides on the serial steps of a full
 * tile: the keys a thread takes must not go down, starting from the
 * elements in front of its start (the last ones of the thread before, or of
 * the tile before), and each thread must end where the next one starts.
 * Together the threads' shares then cover both windows, so every element is
 * compared with its predecessor.  (Each thread takes VT elements from a
 * start whose diagonal leaves at least VT in the tile, so its steps stay in
 * the windows whatever the input.)  The one partial tile compares each
 * window element with the one before it instead.
 */
template <typename T, int NT, int VT, bool FULL>
__device__ __forceinline__ void
merge_one_tile(const T *__restrict__ a, int64_t na, const T *__restrict__ b, int64_t nb,
			   int64_t a0, int64_t b0, int64_t d0, int acount, int count,
			   T *__restrict__ out, int *__restrict__ unsorted, T *s, uint64_t *bar,
			   int (*starts)[2])
{
	constexpr int NV = NT * VT;
	const int	tid = threadIdx.x;
	const int	bcount = count - acount;
	const tile_windows<T, NV> w =
		load_tile_windows<T, NT, NV>(s, bar, a, na, a0, acount, b, nb, b0, bcount);
	bool		bad = false;

	if (!FULL && unsorted != nullptr)
	{
		for (int i = tid; i < acount; i += NT)
			bad |= order<T>::lt(w.a[i], w.a[i - 1]);
		for (int i = tid; i < bcount; i += NT)
			bad |= order<T>::lt(w.b[i], w.b[i - 1]);
	}

	/* each thread's start, then VT serial merge steps in registers */
	const int	diag = FULL || tid * VT < count ? tid * VT : count;
	const int	mp = merge_path_search<T>(w.a, acount, w.b, bcount, diag);
	const T    *pa = w.a + mp,
			   *pb = w.b + (diag - mp);
	const T    *const a_end = w.a + acount,
			   *const b_end = w.b + bcount;
	T			ak = *pa,
				bk = *pb;
	T			r[VT];

	if (FULL && unsorted != nullptr)
	{
		T			prev = order<T>::lt(pa[-1], pb[-1]) ? pb[-1] : pa[-1];

		starts[tid][0] = mp;
		starts[tid][1] = diag - mp;
		if (tid == 0)
		{
			starts[NT][0] = acount;
			starts[NT][1] = bcount;
		}
#pragma unroll
		for (int i = 0; i < VT; i++)
		{
			bool		take_a = pb >= b_end || (pa < a_end && !order<T>::lt(bk, ak));
			T			v = *(take_a ? ++pa : ++pb);

			r[i] = take_a ? ak : bk;
			bad |= order<T>::lt(r[i], prev);
			prev = r[i];
			if (take_a)
				ak = v;
			else
				bk = v;
		}
	}
	else
	{
#pragma unroll
		for (int i = 0; i < VT; i++)
		{
			bool		take_a = pb >= b_end || (pa < a_end && !order<T>::lt(bk, ak));
			const T    *next = take_a ? ++pa : ++pb;
			const T    *last = take_a ? a_end : b_end;

			/* a partial tile's last threads step past its end: stay in
			 * the windows */
			T			v = FULL || next < last ? *next : *last;

			r[i] = take_a ? ak : bk;
			if (take_a)
				ak = v;
			else
				bk = v;
		}
	}
	__syncthreads();
	if (FULL && unsorted != nullptr)
		bad |= pa - w.a != starts[tid + 1][0] || pb - w.b != starts[tid + 1][1];
	if (bad && unsorted != nullptr)
		*unsorted = 1;

	/* each warp transposes its own outputs through its own part of shared
	 * memory, so that its stores are coalesced; no block-wide barrier */
	const int	lane = tid % 32;
	const int	warp_base = (tid / 32) * 32 * VT;
	T		   *ws = s + warp_base;

#pragma unroll
	for (int i = 0; i < VT; i++)
		ws[lane * VT + i] = r[i];
	__syncwarp();
#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		int			idx = warp_base + i * 32 + lane;

		if (FULL || idx < count)
			out[d0 + idx] = ws[i * 32 + lane];
	}
}

/*
 * A tile's share of a merge: outputs [d0, d1), A elements [a0, a1), B
 * elements [b0, b1), read from the partition once it is written (see
 * launch_after_partition).  Splits go backwards only on unsorted input, and
 * then the windows do not fit the tile.
 */
struct tile_span
{
	int64_t		d0,
				d1,
				a0,
				a1,
				b0,
				b1;

	__device__ bool backwards() const { return a1 < a0 || b1 < b0; }
};

template <int NV>
__device__ __forceinline__ tile_span
tile_span_after_partition(const int64_t *__restrict__ parts, int64_t total)
{
	const int64_t tile = blockIdx.x;
	tile_span	t;

	grid_dependency_wait();
	t.d0 = tile * NV;
	t.d1 = t.d0 + NV < total ? t.d0 + NV : total;
	t.a0 = parts[tile];
	t.a1 = parts[tile + 1];
	t.b0 = t.d0 - t.a0;
	t.b1 = t.d1 - t.a1;
	return t;
}

/*
 * The tile's span t merged into out, or on unsorted input (splits going
 * backwards) the flag raised and the tile's outputs zeroed, so that nothing
 * is left unwritten where checking is off and the result is unspecified.
 */
template <typename T, int NT, int VT>
__device__ __forceinline__ void
merge_span(const T *__restrict__ a, int64_t na, const T *__restrict__ b, int64_t nb,
		   const tile_span &t, T *__restrict__ out, int *__restrict__ unsorted, T *s,
		   uint64_t *bar, int (*starts)[2])
{
	constexpr int NV = NT * VT;

	if (t.backwards())
	{
		if (unsorted != nullptr && threadIdx.x == 0)
			*unsorted = 1;
		for (int64_t i = t.d0 + threadIdx.x; i < t.d1; i += NT)
			out[i] = T();
		return;
	}
	if (t.d1 - t.d0 == NV)
		merge_one_tile<T, NT, VT, true>(a, na, b, nb, t.a0, t.b0, t.d0, (int) (t.a1 - t.a0), NV,
										out, unsorted, s, bar, starts);
	else
		merge_one_tile<T, NT, VT, false>(a, na, b, nb, t.a0, t.b0, t.d0, (int) (t.a1 - t.a0),
										 (int) (t.d1 - t.d0), out, unsorted, s, bar, starts);
}

template <typename T, int NT, int VT, int MINB>
__global__ void __launch_bounds__(NT, MINB)
merge_tile(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
		   int64_t nb, const int64_t *__restrict__ parts, T *__restrict__ out,
		   int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;
	static_assert(NT % 32 == 0 && VT % 2 == 1, "whole warps; VT is odd");
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE];
	__shared__ int starts[NT + 1][2];
	__shared__ uint64_t bar;

	merge_span<T, NT, VT>(a, na, b, nb, tile_span_after_partition<NV>(parts, na + nb), out,
						  unsorted, s, &bar, starts);
}

/*
 * The same without a partition kernel, for merges of few tiles: warp 0
 * searches the tile's two boundaries first, 16 lanes each
 * (merge_path_group), about log17(na + nb) rounds of dependent loads.  Each
 * boundary is searched twice, by the tiles on either side, with the same
 * arguments, so they agree on it whatever the input.  At 1M a side this
 * takes 3 us off the merge: the second launch, the wait for the partition
 * grid to end and the round trip of its splits through memory
 * (test/bench/NOTES.md, "Merge at 1M a side").
 */
template <typename T, int NT, int VT, int MINB>
__global__ void __launch_bounds__(NT, MINB)
merge_tile_self(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
				int64_t nb, T *__restrict__ out, int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;
	static_assert(NT % 32 == 0 && VT % 2 == 1, "whole warps; VT is odd");
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE];
	__shared__ int starts[NT + 1][2];
	__shared__ uint64_t bar;
	__shared__ int64_t splits[2];
	const int64_t total = na + nb;
	tile_span	t;

	t.d0 = (int64_t) blockIdx.x * NV;
	t.d1 = t.d0 + NV < total ? t.d0 + NV : total;
	if (threadIdx.x < 32)
	{
		const int	end = threadIdx.x / 16;
		const int64_t diag = end ? t.d1 : t.d0;
		const int64_t split = merge_path_group<T, 16>(a, b, diag, diag > nb ? diag - nb : 0,
													  diag < na ? diag : na);

		if (threadIdx.x % 16 == 0)
			splits[end] = split;
	}
	__syncthreads();
	t.a0 = splits[0];
	t.a1 = splits[1];
	t.b0 = t.d0 - t.a0;
	t.b1 = t.d1 - t.a1;
	merge_span<T, NT, VT>(a, na, b, nb, t, out, unsorted, s, &bar, starts);
}

}								/* namespace mp */

#endif							/* MP_MERGE_TILE_CUH */
