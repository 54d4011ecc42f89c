/*
 * setop_kernels.cuh
 *		Multiset operations on the device with Balanced Path, in one pass.
 *
 * Merge Path alone cannot cut a set operation into tiles: a tile boundary
 * may fall between the k-th copy of a key in A and the k-th copy in B, and
 * then neither tile knows that the two make a pair.  Balanced Path moves
 * each split inside the run of equal keys it falls in, so that the copies in
 * front of it pair up: k copies of A with k of B, or k + 1 of A with k of B
 * and a "star" that hands the next B copy (the last A copy's partner) to the
 * tile in front too.
 *
 * 1. setop_partition: each tile boundary's Merge Path split (searched as the
 *    merge's partition does), then balanced; stored as 2 * a_split + star.
 *    It also sets up the look-back's tile states.
 * 2. setop_tile, started while the partition runs (programmatic dependent
 *    launch): the block copies its A and B windows (B's one longer with a
 *    star at its end, one shorter with a star at its start) into shared
 *    memory, on sm_90 in bulk through the tensor memory accelerator, so
 *    that no thread spends instructions on the loads; each thread finds its
 *    start with the same balanced search over the windows, then runs VT
 *    steps of the serial operation, each step consuming one element or one
 *    pair and keeping or dropping it, which leaves up to VT results in
 *    registers and a bitmask of the kept ones.  A block scan of the counts,
 *    chained to the tiles before by decoupled look-back (CUB's ScanTileState
 *    and TilePrefixCallbackOp), gives every result its place in the dense
 *    output; the block writes them through shared memory, coalesced.  The
 *    last tile records the length.
 *
 * The output's order comes from the scan, never from atomics.  The check for
 * unsorted input rides on the serial steps (see there).  On unsorted input
 * (check off) every tile still joins the look-back, so nothing waits for
 * ever, and every write stays within the output's capacity.
 */
#ifndef SETOP_KERNELS_CUH
#define SETOP_KERNELS_CUH

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/ptx>
#include <type_traits>

#include "../src/mergepath.h"
#include "merge_kernels.cuh"

namespace mp
{

/* Block shape per element size, tuned on an H100 (see test/bench/NOTES.md). */
template <typename T>
struct setop_shape
{
	static constexpr int NT = 128;
	static constexpr int VT = sizeof(T) == 4 ? 31 : 23;
	static constexpr int MINB = sizeof(T) == 4 ? 7 : 6;	/* blocks per SM the registers
														 * must allow; 0: no bound */
};

/* Results are counted in int: the output of one call stays below 2^31
 * elements (setop_on_device refuses more), and a 4-byte count packs with its
 * status into one 8-byte word for the look-back. */
typedef cub::ScanTileState<int> setop_tile_state;

/* How a tile waits for the tiles before it: CUB's choice for 4-byte select
 * on sm_90.  A build may define another to compare (NOTES.md, v2 and v3). */
#ifndef SETOP_LOOKBACK_DELAY
#define SETOP_LOOKBACK_DELAY cub::detail::no_delay_constructor_t<1130>
#endif

/* Which elements op keeps: A's unpaired, B's unpaired, pairs (from A). */
template <mp_setop OP>
struct setop_keeps
{
	static constexpr bool A = OP != MP_INTERSECT;
	static constexpr bool B = OP == MP_UNION || OP == MP_SYMDIFF;
	static constexpr bool PAIR = OP == MP_INTERSECT || OP == MP_UNION;
};

/* The first k in [0, end) from which x[k..end) is not below key, searched
 * back from end: runs of equal keys are usually short. */
template <typename T, typename IndexT, typename Ptr>
__device__ __forceinline__ IndexT
run_start(Ptr x, IndexT end, T key)
{
	IndexT		hi = end,
				lo = 0,
				step = 1;

	while (hi > step)
	{
		IndexT		probe = hi - step;

		if (order<T>::lt(x[probe], key))
		{
			lo = probe + 1;
			break;
		}
		hi = probe;
		step <<= 1;
	}
	while (lo < hi)
	{
		IndexT		mid = (lo + hi) >> 1;

		if (order<T>::lt(x[mid], key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The balanced split on diagonal diag, given its Merge Path split ai (A
 * first on ties): returns the A split and sets *star.  B's split is diag -
 * result, and with a star B's element there goes in front of the split too.
 */
template <typename T, typename IndexT, typename PtrA, typename PtrB>
__device__ __forceinline__ IndexT
balanced_path(PtrA a, PtrB b, IndexT nb, IndexT diag, IndexT ai, bool *star)
{
	IndexT		bi = diag - ai;

	*star = false;
	if (bi >= nb)
		return ai;

	/* the run of B's next key in front of the split, in A and in B (when
	 * any B copy is in front, so is every A copy: ties go to A first) */
	const T		x = b[bi];
	const IndexT a_start = run_start<T>(a, ai, x);
	const IndexT b_start = run_start<T>(b, bi, x);
	const IndexT count = (ai - a_start) + (bi - b_start);

	/* give B half of the run's copies in front (or all it has there, if
	 * more), as far as B has them */
	IndexT		b_adv = count >> 1 > bi - b_start ? count >> 1 : bi - b_start;
	IndexT		b_end = b_start + b_adv + 1 < nb ? b_start + b_adv + 1 : nb;
	IndexT		lo = bi,
				hi = b_end;

	while (lo < hi)
	{
		IndexT		mid = (lo + hi) >> 1;

		if (!order<T>::lt(x, b[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}

	const IndexT b_run = lo - b_start;	/* B's copies of x, up to b_adv + 1 */

	b_adv = b_adv < b_run ? b_adv : b_run;

	const IndexT a_adv = count - b_adv;

	/* one A copy more than B's, and B has its partner: the star */
	*star = a_adv == b_adv + 1 && b_adv < b_run;
	return a_start + a_adv;
}

/*
 * Tile boundaries: 2 * (A's balanced split) + star.  The same threads set
 * the look-back's tile states up.
 */
template <typename T, int NT, int VT>
__global__ void __launch_bounds__(128)
setop_partition(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
				int64_t nb, int64_t *__restrict__ parts, int64_t num_parts, bool bracketed,
				setop_tile_state state)
{
	constexpr int NV = NT * VT;
	int64_t		p,
				split;
	bool		star;

	grid_dependents_launch();
	state.InitializeStatus((int) (num_parts - 1));
	if (!merge_partition_split<T, NV>(a, na, b, nb, num_parts, bracketed, &p, &split))
		return;

	int64_t		diag = p * NV < na + nb ? p * NV : na + nb;

	split = balanced_path<T>(a, b, nb, diag, split, &star);
	parts[p] = 2 * split + star;
}

template <typename T, int NT, int VT, int MINB, mp_setop OP>
__global__ void __launch_bounds__(NT, MINB)
setop_tile(const T *__restrict__ a, int64_t na, const T *__restrict__ b, int64_t nb,
		   const int64_t *__restrict__ parts, T *__restrict__ out, int64_t capacity,
		   setop_tile_state state, int64_t *__restrict__ length, int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;
	typedef cub::BlockScan<int, NT> block_scan;
	typedef cub::TilePrefixCallbackOp<int, cuda::std::plus<>, setop_tile_state,
									  SETOP_LOOKBACK_DELAY> look_back;
	typedef setop_keeps<OP> keeps;
	typedef typename std::conditional<(VT > 32), unsigned long long, unsigned>::type mask_t;

	/* the windows, then the tile's results */
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE];
	__shared__ int starts[NT + 1][2];
	__shared__ uint64_t bar;
	__shared__ typename block_scan::TempStorage scan_storage;
	__shared__ typename look_back::TempStorage look_back_storage;

	const int	tid = threadIdx.x;
	const int	tile = blockIdx.x;

	grid_dependency_wait();

	const int64_t total_in = na + nb;
	const int64_t d0 = (int64_t) tile * NV;
	const int64_t d1 = d0 + NV < total_in ? d0 + NV : total_in;
	const int64_t a0 = parts[tile] >> 1;
	const int64_t a1 = parts[tile + 1] >> 1;
	const int64_t b0 = d0 - a0 + (parts[tile] & 1);
	const int64_t b1 = d1 - a1 + (parts[tile + 1] & 1);

	/* splits that go backwards or overflow the tile: unsorted input */
	const bool	broken = a1 < a0 || b1 < b0 || a1 > na || b1 > nb || b0 < 0 ||
		(a1 - a0) + (b1 - b0) > NV + 1;
	const int	acount = broken ? 0 : (int) (a1 - a0);
	const int	bcount = broken ? 0 : (int) (b1 - b0);
	bool		bad = broken;
	const tile_windows<T, NV> w =
		load_tile_windows<T, NT, NV>(s, &bar, a, na, a0, acount, b, nb, b0, bcount);
	const T    *const sa = w.a;
	const T    *const sb = w.b;

	/* each thread's start, balanced like the tile's; its end is the next
	 * thread's start */
	{
		const int	count = acount + bcount;
		const int	diag = tid * VT < count ? tid * VT : count;
		const int	mp = merge_path_search<T>(sa, acount, sb, bcount, diag);
		bool		star;
		const int	ai = balanced_path<T>(sa, sb, bcount, diag, mp, &star);

		starts[tid][0] = ai;
		starts[tid][1] = diag - ai + star;
		if (tid == 0)
		{
			starts[NT][0] = acount;
			starts[NT][1] = bcount;
		}
	}
	__syncthreads();

	/*
	 * VT serial steps; a step takes one element, or a pair.  The check for
	 * unsorted input rides on them: the keys a thread takes must not go
	 * down, starting from the elements in front of its start (the last
	 * ones of the thread before, or of the tile before), and each thread
	 * must use up exactly its share.  Together the shares cover both
	 * windows, so every element is compared with its predecessor.  A step
	 * after the share is used up yields B's next element (the next
	 * thread's, or the one after the window), which on sorted input is not
	 * below the keys taken, so those steps need no exception.
	 */
	T			r[VT];
	mask_t		kept = 0;

	{
		const int	a_start = min(starts[tid][0], acount),
					b_start = min(starts[tid][1], bcount);
		const T    *pa = sa + a_start,
				   *pb = sb + b_start;
		const T    *const a_end = sa + min(max(starts[tid + 1][0], a_start), acount);
		const T    *const b_end = sb + min(max(starts[tid + 1][1], b_start), bcount);
		T			prev = order<T>::lt(pa[-1], pb[-1]) ? pb[-1] : pa[-1];
		bool		descents = starts[tid + 1][0] < a_start || starts[tid + 1][1] < b_start;

#pragma unroll
		for (int i = 0; i < VT; i++)
		{
			const T		x = *pa,
						y = *pb;
			const bool	has_a = pa < a_end,
						has_b = pb < b_end;
			const bool	take_a = has_a && !(has_b && order<T>::lt(y, x)),
						take_b = has_b && !(has_a && order<T>::lt(x, y));
			const T		v = take_a ? x : y;

			descents |= order<T>::lt(v, prev);
			prev = v;
			r[i] = v;
			kept |= (mask_t) (take_a && take_b ? keeps::PAIR : take_a ? keeps::A :
							  take_b && keeps::B) << i;
			pa += take_a;
			pb += take_b;
		}
		bad |= descents || pa != a_end || pb != b_end;
	}
	if (bad && unsorted != nullptr)
		*unsorted = 1;

	/* places: a block scan chained to the tiles before */
	const int	nkept = sizeof(mask_t) == 8 ? __popcll(kept) : __popc((unsigned) kept);
	int			rank;
	int			tile_count;
	int			tile_start;

	if (tile == 0)
	{
		block_scan(scan_storage).ExclusiveSum(nkept, rank, tile_count);
		if (tid == 0)
			state.SetInclusive(0, tile_count);
		tile_start = 0;
	}
	else
	{
		look_back	prefix(state, look_back_storage, cuda::std::plus<>{}, tile);

		block_scan(scan_storage).ExclusiveSum(nkept, rank, prefix);
		__syncthreads();
		tile_start = prefix.GetExclusivePrefix();
		tile_count = prefix.GetBlockAggregate();
		rank -= tile_start;
	}

	/* results into shared memory in order (every thread is past its serial
	 * steps: the scan waited for all), then out, coalesced */
#pragma unroll
	for (int i = 0; i < VT; i++)
		if (kept & ((mask_t) 1 << i))
			s[rank++] = r[i];
	__syncthreads();
	for (int i = tid; i < tile_count; i += NT)
		if ((int64_t) tile_start + i < capacity)
			out[tile_start + i] = s[i];
	if (tile == (int) gridDim.x - 1 && tid == 0)
		*length = (int64_t) tile_start + tile_count < capacity ? tile_start + tile_count : capacity;
}

template <typename T, int NT = setop_shape<T>::NT, int VT = setop_shape<T>::VT>
inline int64_t
setop_num_tiles(int64_t na, int64_t nb)
{
	return (na + nb + NT * VT - 1) / (NT * VT);
}

/* Device scratch the operation needs: partition array and tile states. */
template <typename T, int NT = setop_shape<T>::NT, int VT = setop_shape<T>::VT>
inline void
setop_scratch_bytes(int64_t na, int64_t nb, size_t *parts_bytes, size_t *state_bytes)
{
	int64_t		tiles = setop_num_tiles<T, NT, VT>(na, nb);

	*parts_bytes = (size_t) (tiles + 1) * sizeof(int64_t);
	setop_tile_state::AllocationSize((int) tiles, *state_bytes);
}

/*
 * out[0..*length) = op(a, b), *length on the device.  out has room for
 * capacity elements; unsorted as for merge_on_device.  Stream-ordered.
 */
template <mp_setop OP, typename T, int NT = setop_shape<T>::NT, int VT = setop_shape<T>::VT,
		  int MINB = setop_shape<T>::MINB>
inline cudaError_t
setop_on_device(const T *a, int64_t na, const T *b, int64_t nb, T *out, int64_t capacity,
				int64_t *length, int64_t *parts, void *state_storage, size_t state_bytes,
				int *unsorted, cudaStream_t stream)
{
	int64_t		tiles = setop_num_tiles<T, NT, VT>(na, nb);
	int64_t		num_parts = tiles + 1;
	setop_tile_state state;
	cudaError_t err;

	if (tiles == 0)
		return cudaMemsetAsync(length, 0, sizeof(int64_t), stream);
	if (na + nb > INT32_MAX)
		return cudaErrorInvalidValue;
	if ((err = state.Init((int) tiles, state_storage, state_bytes)) != cudaSuccess)
		return err;
	setop_partition<T, NT, VT><<<(unsigned) ((num_parts + 127) / 128), 128, 0, stream>>>
		(a, na, b, nb, parts, num_parts, num_parts > MERGE_BRACKET_FROM, state);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	return launch_after_partition(setop_tile<T, NT, VT, MINB, OP>, tiles, NT, stream, a, na, b, nb,
								  (const int64_t *) parts, out, capacity, state, length, unsorted);
}

}								/* namespace mp */

#endif							/* SETOP_KERNELS_CUH */
