/*
 * setop_kernels.cuh
 *		Multiset operations on the device with Balanced Path, in one pass.
 *
 * Merge Path alone cannot cut a set operation into tiles: a tile boundary
 * may fall between the k-th copy of a key in A and the k-th copy in B, and
 * then neither tile knows that the two make a pair.  Balanced Path orders
 * the copies of a key alternately, A's first (a1 b1 a2 b2 ..., the excess
 * of either side after), and cuts that order: the copies in front of a
 * split pair up, k copies of A with k of B, or k + 1 of A with k of B and a
 * "star" when B's next element is the last A copy's partner.
 *
 * 1. setop_partition: each tile boundary's Merge Path split (searched as the
 *    merge's partition does), then balanced; stored as 2 * a_split + star.
 *    It also sets up the look-back's tile states.
 * 2. setop_tile, started while the partition runs (programmatic dependent
 *    launch): the block copies its A and B windows into shared memory, on
 *    sm_90 in bulk through the tensor memory accelerator, so that no thread
 *    spends instructions on the loads; each thread finds its start with the
 *    same balanced search over the windows, then takes its VT elements in
 *    the balanced order, one a step, keeping or dropping each, which leaves
 *    VT values in registers and a bitmask of the kept ones.  A pair is
 *    decided at its A copy, from B's next element, which may be the next
 *    thread's (or tile's) first: that one then starts with its B copy
 *    pending.  A block scan of the counts, chained to the tiles before by
 *    decoupled look-back (CUB's ScanTileState and TilePrefixCallbackOp),
 *    gives every result its place in the dense output; the block writes
 *    them through shared memory, coalesced.  The last tile records the
 *    length.
 *
 * The output's order comes from the scan, never from atomics.  The check for
 * unsorted input rides on the serial steps (see there).  On unsorted input
 * (check off) every tile still joins the look-back, so nothing waits for
 * ever, and every write stays within the output's capacity.
 */
#ifndef SETOP_KERNELS_CUH
#define SETOP_KERNELS_CUH

#include <cub/block/block_scan.cuh>
#include <cuda/atomic>
#include <cuda/ptx>
#include <cuda/std/bit>
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
	static constexpr int MINB = 0;	/* blocks per SM the registers must allow; 0: no
									 * bound */
};

/*
 * The chain of tiles for the decoupled look-back: one 8-byte word a tile,
 * its count of results in the low half and in the high half what the count
 * covers: nothing yet, the tile alone, or every tile up to it.  Counts are
 * ints: the output of one call stays below 2^31 elements (setop_on_device
 * refuses more).
 */
struct setop_chain
{
	enum
	{
		EMPTY = 0, AGGREGATE = 1, INCLUSIVE = 2
	};

	unsigned long long *words;

	__device__ __forceinline__ void publish(int tile, unsigned what, int count) const
	{
		cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);

		w.store((unsigned long long) what << 32 | (unsigned) count, cuda::std::memory_order_relaxed);
	}

	__device__ __forceinline__ unsigned long long peek(int tile) const
	{
		cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);

		return w.load(cuda::std::memory_order_relaxed);
	}

	/*
	 * Called by one whole warp: the sum of the counts of the tiles before
	 * tile.  Lane k looks at tile - 1 - k, 32 tiles a round, back to the
	 * nearest inclusive count, waiting only for the tiles up to it.
	 */
	__device__ __forceinline__ int prefix(int tile) const
	{
		const int	lane = threadIdx.x % 32;
		int			sum = 0;

		for (int last = tile - 1;; last -= 32)
		{
			const int	t = last - lane;
			unsigned long long word;
			unsigned	inclusive,
						upto;

			for (;;)
			{
				word = t >= 0 ? peek(t) : (unsigned long long) INCLUSIVE << 32;
				inclusive = __ballot_sync(~0u, word >> 32 == INCLUSIVE);
				upto = inclusive ? (inclusive & (0u - inclusive)) * 2 - 1 : ~0u;
				if (!(__ballot_sync(~0u, word >> 32 == EMPTY) & upto))
					break;
			}
			sum += __reduce_add_sync(~0u, upto >> lane & 1 ? (int) (unsigned) word : 0);
			if (inclusive)
				return sum;
		}
	}
};

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
 * Tile boundaries: 2 * (A's balanced split) + star.  The same threads clear
 * the tiles' chain words.
 */
template <typename T, int NT, int VT>
__global__ void __launch_bounds__(128)
setop_partition(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
				int64_t nb, int64_t *__restrict__ parts, int64_t num_parts, bool bracketed,
				setop_chain chain)
{
	constexpr int NV = NT * VT;
	int64_t		p,
				split;
	bool		star;

	const int64_t g = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	grid_dependents_launch();
	if (g < num_parts - 1)
		chain.words[g] = 0;
	if (!merge_partition_split<T, NV>(a, na, b, nb, num_parts, bracketed, &p, &split))
		return;

	int64_t		diag = p * NV < na + nb ? p * NV : na + nb;

	split = balanced_path<T>(a, b, nb, diag, split, &star);
	parts[p] = 2 * split + star;
}

/* A shared memory load from a 32-bit shared address. */
template <typename T>
__device__ __forceinline__ T
load_shared(uint32_t addr)
{
	if constexpr (sizeof(T) == 4)
	{
		uint32_t	v;

		asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr));
		return cuda::std::bit_cast<T>(v);
	}
	else
	{
		uint64_t	v;

		asm volatile("ld.shared.b64 %0, [%1];" : "=l"(v) : "r"(addr));
		return cuda::std::bit_cast<T>(v);
	}
}

/*
 * What a thread's serial steps leave: its VT values (the elements in the
 * balanced order), the bitmask of the kept ones, whether the keys went down,
 * and where in A and B it stopped.
 */
template <typename T, int VT>
struct setop_steps_out
{
	typedef typename std::conditional<(VT > 32), unsigned long long, unsigned>::type mask_t;

	T			r[VT];
	mask_t		kept;
	bool		descents;
	int			a_end,
				b_end;
};

/*
 * A thread's VT serial steps over its share of the tile, from a_start and
 * b_start, in the balanced order: the merged order with the copies of a key
 * alternating, A's first (a1 b1 a2 b2 ...), so that a pair's B copy comes
 * right after its A copy.  Each step takes one element.  An A copy is paired
 * when B's next element equals it, which may lie past the share (it is the
 * next thread's first, which then starts pending); a B copy taken while
 * pending is the partner of the A copy before it.  Pairs yield A's copy
 * once.
 *
 * In a full tile both windows are followed by real elements (the next
 * tile's), and on sorted input the steps need no bounds: past A's share its
 * next element is above every key left in B's (or equal with the B copy
 * pending), and past B's share its next element is not below A's keys left
 * (or equal, then A's key is paired, correctly).  B's place follows from
 * A's, as the steps taken make up the diagonal.  (On unsorted input a thread
 * may step up to VT past its share: the windows have room for it.)
 *
 * The check for unsorted input rides on the steps: the keys a thread takes
 * must not go down, starting from the elements in front of its start, and
 * it must end where the next thread starts (see setop_tile).
 */
template <typename T, int VT, mp_setop OP>
__device__ __forceinline__ void
setop_steps_full(const T *sa, const T *sb, int a_start, int b_start, bool pending,
				 setop_steps_out<T, VT> &o)
{
	typedef setop_keeps<OP> keeps;
	typedef typename setop_steps_out<T, VT>::mask_t mask_t;
	const uint32_t a_base = (uint32_t) __cvta_generic_to_shared(sa);
	uint32_t	pa = a_base + a_start * (uint32_t) sizeof(T);

	/* B's element at step i is at b_at - pa + i * sizeof(T) */
	const uint32_t b_at = (uint32_t) __cvta_generic_to_shared(sb + b_start) + pa;
	T			prev = order<T>::lt(sa[a_start - 1], sb[b_start - 1]) ?
		sb[b_start - 1] : sa[a_start - 1];
	bool		descents = false;
	mask_t		kept = 0;

#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		const T		x = load_shared<T>(pa),
					y = load_shared<T>(b_at - pa + i * (uint32_t) sizeof(T));
		const bool	take_a = !pending && !order<T>::lt(y, x);
		const bool	paired = take_a && !order<T>::lt(x, y);
		const T		v = take_a ? x : y;

		descents |= order<T>::lt(v, prev);
		prev = v;
		o.r[i] = v;
		kept |= (mask_t) (take_a ? (paired ? keeps::PAIR : keeps::A) : !pending && keeps::B) << i;
		pending = paired;
		pa += take_a ? (uint32_t) sizeof(T) : 0;
	}
	o.kept = kept;
	o.descents = descents;
	o.a_end = (int) ((pa - a_base) / sizeof(T));
	o.b_end = a_start + b_start + VT - o.a_end;
}

/*
 * The same in the tiles where a window ends at its input's end (there the
 * slot after it holds no real element) or that are not full: A's and B's
 * window ends bound the steps (b_lim is one longer when the element after
 * B's window is real), and only n steps count.
 */
template <typename T, int VT, mp_setop OP>
__device__ __forceinline__ void
setop_steps_bounded(const T *sa, const T *sb, int a_start, int b_start, bool pending, int n,
					int acount, int b_lim, setop_steps_out<T, VT> &o)
{
	typedef setop_keeps<OP> keeps;
	typedef typename setop_steps_out<T, VT>::mask_t mask_t;
	int			ia = a_start,
				ib = b_start;
	T			prev = order<T>::lt(sa[ia - 1], sb[ib - 1]) ? sb[ib - 1] : sa[ia - 1];
	bool		descents = false;
	mask_t		kept = 0;

#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		const T		x = sa[ia],
					y = sb[ib];
		const bool	valid = i < n,
					has_a = ia < acount,
					has_b = ib < b_lim;
		const bool	take_a = valid && has_a && !pending && (!has_b || !order<T>::lt(y, x));
		const bool	take_b = valid && !take_a;
		const bool	paired = take_a && has_b && !order<T>::lt(x, y);
		const T		v = take_a ? x : y;

		descents |= valid && order<T>::lt(v, prev);
		prev = valid ? v : prev;
		o.r[i] = v;
		kept |= (mask_t) (take_a ? (paired ? keeps::PAIR : keeps::A) :
						  take_b && !pending && keeps::B) << i;
		pending = paired;
		ia += take_a;
		ib += take_b;
	}
	o.kept = kept;
	o.descents = descents;
	o.a_end = ia;
	o.b_end = ib;
}

/*
 * One tile: inputs [d0, d1) of the balanced order, A elements [a0, a1), B
 * elements [b0, b1), where b0 = d0 - a0; a star at the tile's start means
 * its first B element is the partner of the tile before's last A copy (and
 * that tile has already yielded the pair).
 */
template <typename T, int NT, int VT, int MINB, mp_setop OP>
__global__ void __launch_bounds__(NT, MINB)
setop_tile(const T *__restrict__ a, int64_t na, const T *__restrict__ b, int64_t nb,
		   const int64_t *__restrict__ parts, T *__restrict__ out, int64_t capacity,
		   setop_chain chain, int64_t *__restrict__ length, int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;
	typedef cub::BlockScan<int, NT> block_scan;
	typedef typename setop_steps_out<T, VT>::mask_t mask_t;

	/* the windows (with room for steps past them on unsorted input), later
	 * the tile's results */
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE + VT];
	__shared__ int starts[NT + 1][2];
	__shared__ uint64_t bar;
	__shared__ typename block_scan::TempStorage scan_storage;
	__shared__ int tile_start_shared;

	const int	tid = threadIdx.x;
	const int	tile = blockIdx.x;

	grid_dependency_wait();

	const int64_t d0 = (int64_t) tile * NV;
	const int64_t d1 = d0 + NV < na + nb ? d0 + NV : na + nb;
	const int64_t a0 = parts[tile] >> 1;
	const int64_t a1 = parts[tile + 1] >> 1;
	const int64_t b0 = d0 - a0;
	const int64_t b1 = d1 - a1;

	/* splits that go backwards or out of the inputs: unsorted input */
	const bool	broken = a1 < a0 || b1 < b0 || a1 > na || b1 > nb || b0 < 0 ||
		((parts[tile] & 1) && b1 == b0);
	const int	acount = broken ? 0 : (int) (a1 - a0);
	const int	bcount = broken ? 0 : (int) (b1 - b0);
	const int	star0 = broken ? 0 : (int) (parts[tile] & 1);
	const tile_windows<T, NV> w =
		load_tile_windows<T, NT, NV>(s, &bar, a, na, a0, acount, b, nb, b0, bcount);
	const T    *const sa = w.a;
	const T    *const sb = w.b;

	/*
	 * Each thread's start: thread 0's is the tile's; the others search the
	 * windows past the tile's star as the partition searched the inputs,
	 * balanced, and start pending when they get a star.  A thread's share
	 * ends where the next one starts.
	 */
	const int	count = acount + bcount;
	int			a_start = 0,
				b_start = 0;
	bool		pending = star0;

	if (tid > 0)
	{
		const int	diag = (tid * VT < count ? tid * VT : count) - star0;
		const int	mp = merge_path_search<T>(sa, acount, sb + star0, bcount - star0, diag);

		a_start = balanced_path<T>(sa, sb + star0, bcount - star0, diag, mp, &pending);
		b_start = diag - a_start + star0;
	}
	starts[tid][0] = a_start;
	starts[tid][1] = b_start;
	if (tid == 0)
	{
		starts[NT][0] = acount;
		starts[NT][1] = bcount;
	}

	setop_steps_out<T, VT> o;

	if (count == NV && a1 < na && b1 < nb)
		setop_steps_full<T, VT, OP>(sa, sb, a_start, b_start, pending, o);
	else
	{
		const int	n = count - tid * VT;

		setop_steps_bounded<T, VT, OP>(sa, sb, a_start, b_start, pending, n < VT ? n : VT,
									   acount, bcount + (b1 < nb), o);
	}

	/* the tile's count and each thread's place in it; the count goes on the
	 * chain at once */
	const int	nkept = sizeof(mask_t) == 8 ? __popcll(o.kept) : __popc((unsigned) o.kept);
	int			rank,
				tile_count;

	block_scan(scan_storage).ExclusiveSum(nkept, rank, tile_count);
	if (tid == 0)
		chain.publish(tile, tile == 0 ? setop_chain::INCLUSIVE : setop_chain::AGGREGATE,
					  tile_count);

	/* the check: every thread is past its steps and its start is written
	 * (the scan waited for all) */
	if ((broken || o.descents || o.a_end != starts[tid + 1][0] || o.b_end != starts[tid + 1][1]) &&
		unsorted != nullptr)
		*unsorted = 1;

	/* the results together in order where the windows were, while the
	 * tiles before publish their counts; then warp 0 looks back */
#pragma unroll
	for (int i = 0; i < VT; i++)
		if (o.kept & ((mask_t) 1 << i))
			s[rank++] = o.r[i];
	if (tid < 32)
	{
		const int	before = tile == 0 ? 0 : chain.prefix(tile);

		if (tid == 0)
		{
			if (tile > 0)
				chain.publish(tile, setop_chain::INCLUSIVE, before + tile_count);
			tile_start_shared = before;
		}
	}
	__syncthreads();

	const int64_t tile_start = tile_start_shared;

	for (int i = tid; i < tile_count; i += NT)
		if (tile_start + i < capacity)
			out[tile_start + i] = s[i];
	if (tile == (int) gridDim.x - 1 && tid == 0)
		*length = tile_start + tile_count < capacity ? tile_start + tile_count : capacity;
}

template <typename T, int NT = setop_shape<T>::NT, int VT = setop_shape<T>::VT>
inline int64_t
setop_num_tiles(int64_t na, int64_t nb)
{
	return (na + nb + NT * VT - 1) / (NT * VT);
}

/* Device scratch the operation needs: partition array and tile chain. */
template <typename T, int NT = setop_shape<T>::NT, int VT = setop_shape<T>::VT>
inline void
setop_scratch_bytes(int64_t na, int64_t nb, size_t *parts_bytes, size_t *chain_bytes)
{
	int64_t		tiles = setop_num_tiles<T, NT, VT>(na, nb);

	*parts_bytes = (size_t) (tiles + 1) * sizeof(int64_t);
	*chain_bytes = (size_t) tiles * sizeof(unsigned long long);
}

/*
 * out[0..*length) = op(a, b), *length on the device.  out has room for
 * capacity elements; unsorted as for merge_on_device.  Stream-ordered.
 */
template <mp_setop OP, typename T, int NT = setop_shape<T>::NT, int VT = setop_shape<T>::VT,
		  int MINB = setop_shape<T>::MINB>
inline cudaError_t
setop_on_device(const T *a, int64_t na, const T *b, int64_t nb, T *out, int64_t capacity,
				int64_t *length, int64_t *parts, void *chain_storage, size_t chain_bytes,
				int *unsorted, cudaStream_t stream)
{
	int64_t		tiles = setop_num_tiles<T, NT, VT>(na, nb);
	int64_t		num_parts = tiles + 1;
	setop_chain chain = {(unsigned long long *) chain_storage};
	cudaError_t err;

	if (tiles == 0)
		return cudaMemsetAsync(length, 0, sizeof(int64_t), stream);
	if (na + nb > INT32_MAX || chain_bytes < (size_t) tiles * sizeof(unsigned long long))
		return cudaErrorInvalidValue;
	setop_partition<T, NT, VT><<<(unsigned) ((num_parts + 127) / 128), 128, 0, stream>>>
		(a, na, b, nb, parts, num_parts, num_parts > MERGE_BRACKET_FROM, chain);
	if ((err = cudaGetLastError()) != cudaSuccess)
		return err;
	return launch_after_partition(setop_tile<T, NT, VT, MINB, OP>, tiles, NT, stream, a, na, b, nb,
								  (const int64_t *) parts, out, capacity, chain, length, unsorted);
}

}								/* namespace mp */

#endif							/* SETOP_KERNELS_CUH */
