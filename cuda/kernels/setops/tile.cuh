/*
 * tile.cuh (set operations)
 *		Multiset operations on the device with Balanced Path, in one pass:
 *		the partition, the tile, and the look-back chain between tiles.
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
 * 2. The tile kernel, started while the partition runs (programmatic
 *    dependent launch): a tile's A and B windows are copied into shared
 *    memory, on sm_90 in bulk through the tensor memory accelerator, so
 *    that no computing thread spends instructions on the loads; each thread
 *    finds its start with the same balanced search over the windows (the
 *    Merge Path search narrowed by a guess from the tile's share of A),
 *    then takes its VT elements in the balanced order, one a step, keeping
 *    or dropping each, which leaves VT values in registers and a bitmask of
 *    the kept ones.  A pair is decided at its A copy, from B's next
 *    element, which may be the next thread's (or tile's) first: that one
 *    then starts with its B copy pending.  A block scan of the counts,
 *    chained to the tiles before by decoupled look-back (setop_chain),
 *    gives every result its place in the dense output; the results go out
 *    through shared memory, coalesced.  The last tile records the length.
 *    On sm_90 setop_pipelined keeps blocks resident, with a warp that feeds
 *    the others tiles and writes their results; elsewhere setop_tile takes
 *    one tile a block.
 *
 * The output's order comes from the scan, never from atomics.  The check for
 * unsorted input rides on the serial steps (see there).  On unsorted input
 * (check off) every tile still joins the look-back, so nothing waits for
 * ever, and every write stays within the output's capacity.
 */
#ifndef MP_SETOPS_TILE_CUH
#define MP_SETOPS_TILE_CUH

#include <cuda/atomic>
#include <cuda/ptx>
#include <cuda/std/bit>
#include <type_traits>

#include "../../../src/api/mp_api.h"
#include "../merge/tile.cuh"
#include "../primitives/balanced_path.cuh"

namespace mp
{

/*
 * The chain of tiles for the decoupled look-back: one 8-byte word a tile,
 * its count of results in the low half and in the high half what the count
 * covers: nothing yet, the tile alone, or every tile up to it.  Counts are
 * ints: the output of one call stays below 2^31 elements (setop_on_device
 * refuses more).  Each word has a 32-byte sector to itself (STRIDE words):
 * packed, the words of neighbouring tiles, written by different SMs, share
 * sectors that every look-back reads, and that cost intersect 5% on an H100
 * (test/bench/NOTES.md, "v10: chain words a sector apart").
 */
struct setop_chain
{
	enum
	{
		EMPTY = 0, AGGREGATE = 1, INCLUSIVE = 2
	};
	static constexpr int STRIDE = 4;

	unsigned long long *words;

	__device__ __forceinline__ void clear(int64_t tile) const
	{
		words[tile * STRIDE] = 0;
	}

	__device__ __forceinline__ void publish(int tile, unsigned what, int count) const
	{
		cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[(int64_t) tile * STRIDE]);

		w.store((unsigned long long) what << 32 | (unsigned) count, cuda::std::memory_order_relaxed);
	}

	__device__ __forceinline__ unsigned long long peek(int tile) const
	{
		cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[(int64_t) tile * STRIDE]);

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
	if (g < num_parts)
		chain.clear(g);
	if (!merge_partition_split<T, NV, true>(a, na, b, nb, num_parts, bracketed, &p, &split))
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
 * With 4-byte keys, the mask settled in its register at each step.  Left
 * alone, the compiler keeps each step's bit apart and combines them after
 * the loop, which for int32 intersect needs more registers than a thread
 * has at 4 blocks an SM, and spills.  (8-byte keys are slower settled.)
 */
template <typename T, typename M>
__device__ __forceinline__ void
setop_settle(M &mask)
{
	if constexpr (sizeof(T) == 4 && sizeof(M) == 8)
		asm volatile("" : "+l"(mask));
	else if constexpr (sizeof(T) == 4)
		asm volatile("" : "+r"(mask));
}

/*
 * The order the fast steps take and pair by, and their check.  For floats
 * it is IEEE's plain comparison, which agrees with the total order (-0
 * equal to 0, NaN equal to NaN and above everything) wherever no NaN is
 * involved: the total order costs floats two comparisons where integers
 * need one, and in the unrolled steps its predicates do not fit the
 * predicate registers.  The fast steps run only on tiles whose elements
 * after both windows are not NaN (holds), so on sorted input the tile holds
 * none; the check that v, taken after prev, does not go down (descends)
 * counts any comparison with a NaN as going down, since there a NaN means
 * unsorted input.
 */
template <typename T, bool FLOAT = std::is_floating_point<T>::value>
struct setop_fast_order
{
	static __device__ __forceinline__ bool lt(T x, T y) { return order<T>::lt(x, y); }
	static __device__ __forceinline__ bool descends(T v, T prev) { return order<T>::lt(v, prev); }
	static __device__ __forceinline__ bool holds(T, T) { return true; }
};

template <typename T>
struct setop_fast_order<T, true>
{
	static __device__ __forceinline__ bool lt(T x, T y) { return x < y; }
	static __device__ __forceinline__ bool descends(T v, T prev) { return !(prev <= v); }
	static __device__ __forceinline__ bool holds(T after_a, T after_b)
	{
		return after_a == after_a && after_b == after_b;
	}
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
 * (or equal, then A's key is paired, correctly).  Each step loads only the
 * next element of the side it took; the other side's stays in its register.
 * (On unsorted input a thread may step up to VT past its share: the windows
 * have room for it.)
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
	uint32_t	pa = a_base + a_start * (uint32_t) sizeof(T),
				pb = (uint32_t) __cvta_generic_to_shared(sb + b_start);
	T			x = load_shared<T>(pa),
				y = load_shared<T>(pb);
	T			prev = order<T>::lt(sa[a_start - 1], sb[b_start - 1]) ?
		sb[b_start - 1] : sa[a_start - 1];
	bool		descents = false;
	mask_t		kept = 0;

#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		const bool	take_a = !pending && !setop_fast_order<T>::lt(y, x);
		const bool	paired = take_a && !setop_fast_order<T>::lt(x, y);
		const T		v = take_a ? x : y;

		descents |= setop_fast_order<T>::descends(v, prev);
		prev = v;
		o.r[i] = v;
		kept |= (mask_t) (take_a ? (paired ? keeps::PAIR : keeps::A) : !pending && keeps::B) << i;
		setop_settle<T>(kept);
		pending = paired;
		pa += take_a ? (uint32_t) sizeof(T) : 0;
		pb += take_a ? 0 : (uint32_t) sizeof(T);
		/* the next element of the side just taken; the other stays */
		if (i + 1 < VT)
		{
			const T		z = load_shared<T>(take_a ? pa : pb);

			x = take_a ? z : x;
			y = take_a ? y : z;
		}
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

/* A barrier for the block (id 0), or for the NT threads of named barrier id. */
template <int NT, int ID>
__device__ __forceinline__ void
setop_sync()
{
	if constexpr (ID == 0)
		__syncthreads();
	else
		asm volatile("bar.sync %0, %1;" :: "n"(ID), "n"(NT) : "memory");
}

/*
 * The exclusive sum of x over threads 0 .. NT - 1 and, in *total, the sum
 * of all; sums[] holds NT / 32 ints in shared memory.
 */
template <int NT, int ID>
__device__ __forceinline__ int
setop_scan(int x, int *total, int *sums)
{
	const int	lane = threadIdx.x % 32,
				warp = threadIdx.x / 32;
	int			inclusive = x;

#pragma unroll
	for (int d = 1; d < 32; d *= 2)
	{
		const int	y = __shfl_up_sync(~0u, inclusive, d);

		inclusive += lane >= d ? y : 0;
	}
	if (lane == 31)
		sums[warp] = inclusive;
	setop_sync<NT, ID>();

	int			before = 0,
				all = 0;

#pragma unroll
	for (int w = 0; w < NT / 32; w++)
	{
		const int	v = sums[w];

		before += w < warp ? v : 0;
		all += v;
	}
	*total = all;
	return before + inclusive - x;
}

/*
 * A tile in shared memory, its A window at sa, B's at sb: acount and
 * bcount elements, star0 when its first B element is the partner of the
 * tile before's last A copy (which that tile has already yielded).  fast
 * when the tile is full and both windows are followed by real elements;
 * b_lim is bcount, or bcount + 1 when the element after B's window is real.
 */
template <typename T>
struct setop_view
{
	const T    *sa;
	const T    *sb;
	int			acount,
				bcount,
				star0,
				b_lim;
	float		share;			/* of A in the tile past the star */
	bool		fast;
};

/* What share of the tile past its star comes from A. */
__device__ __forceinline__ float
setop_share(int acount, int bcount, int star0)
{
	return acount + bcount - star0 > 0 ? (float) acount / (float) (acount + bcount - star0) : 0.0f;
}

/*
 * Thread tid's start, and its steps.  Thread 0 starts where the tile does;
 * the others search the windows past the tile's star as the partition
 * searched the inputs, balanced, and start pending when they get a star.
 * A thread's share ends where the next one starts: starts[tid + 1] once
 * every thread has written its own.
 */
template <typename T, int NT, int VT, mp_setop OP>
__device__ __forceinline__ void
setop_tile_steps(const setop_view<T> &v, int tid, int (*starts)[2], setop_steps_out<T, VT> &o)
{
	const int	count = v.acount + v.bcount;
	int			a_start = 0,
				b_start = 0;
	bool		pending = v.star0;

	if (tid > 0)
	{
		const int	diag = (tid * VT < count ? tid * VT : count) - v.star0;
		const int	nb = v.bcount - v.star0;

		/* a guess from A's share, usually within 32 on random keys */
		const int	mp = merge_path_near<T>(v.sa, v.sb + v.star0, diag, diag > nb ? diag - nb : 0,
											diag < v.acount ? diag : v.acount,
											__float2int_rn((float) diag * v.share), 32);

		a_start = balanced_path<T>(v.sa, v.sb + v.star0, v.bcount - v.star0, diag, mp, &pending);
		b_start = diag - a_start + v.star0;
	}
	starts[tid][0] = a_start;
	starts[tid][1] = b_start;
	if (tid == 0)
	{
		starts[NT][0] = v.acount;
		starts[NT][1] = v.bcount;
	}
	if (v.fast && setop_fast_order<T>::holds(v.sa[v.acount], v.sb[v.bcount]))
		setop_steps_full<T, VT, OP>(v.sa, v.sb, a_start, b_start, pending, o);
	else
	{
		const int	n = count - tid * VT;

		setop_steps_bounded<T, VT, OP>(v.sa, v.sb, a_start, b_start, pending, n < VT ? n : VT,
									   v.acount, v.b_lim, o);
	}
}

/* Whether thread tid's steps show unsorted input (after the barrier that
 * follows every thread's setop_tile_steps). */
template <typename T, int VT>
__device__ __forceinline__ bool
setop_descends(const setop_steps_out<T, VT> &o, int tid, const int (*starts)[2])
{
	return o.descents || o.a_end != starts[tid + 1][0] || o.b_end != starts[tid + 1][1];
}

/* The kept results into res[rank...], in order. */
template <typename T, int VT>
__device__ __forceinline__ void
setop_compact(const setop_steps_out<T, VT> &o, int rank, T *res)
{
	typedef typename setop_steps_out<T, VT>::mask_t mask_t;

#pragma unroll
	for (int i = 0; i < VT; i++)
		if (o.kept & ((mask_t) 1 << i))
			res[rank++] = o.r[i];
}

/* The number of kept results. */
template <typename T, int VT>
__device__ __forceinline__ int
setop_nkept(const setop_steps_out<T, VT> &o)
{
	return sizeof(o.kept) == 8 ? __popcll(o.kept) : __popc((unsigned) o.kept);
}

/*
 * A tile's span: inputs [d0, d1) of the balanced order, A elements [a0,
 * a1), B elements [b0, b1), where b0 = d0 - a0.  Splits that go backwards
 * or out of the inputs mean unsorted input: the tile is then empty.
 */
struct setop_span
{
	int64_t		a0,
				b0;
	int			acount,
				bcount,
				star0;
	bool		broken,
				fast,
				b_real_after;
};

template <int NV>
__device__ __forceinline__ setop_span
setop_span_at(int64_t p0, int64_t p1, int tile, int64_t na, int64_t nb)
{
	const int64_t d0 = (int64_t) tile * NV;
	const int64_t d1 = d0 + NV < na + nb ? d0 + NV : na + nb;
	const int64_t a1 = p1 >> 1;
	const int64_t b1 = d1 - a1;
	setop_span	sp;

	sp.a0 = p0 >> 1;
	sp.b0 = d0 - sp.a0;
	sp.broken = a1 < sp.a0 || b1 < sp.b0 || a1 > na || b1 > nb || sp.b0 < 0 ||
		((p0 & 1) && b1 == sp.b0);
	sp.acount = sp.broken ? 0 : (int) (a1 - sp.a0);
	sp.bcount = sp.broken ? 0 : (int) (b1 - sp.b0);
	sp.star0 = sp.broken ? 0 : (int) (p0 & 1);
	sp.fast = sp.acount + sp.bcount == NV && a1 < na && b1 < nb;
	sp.b_real_after = b1 < nb;
	return sp;
}

/* The same from the partition array (setop_span_at takes the tile's two
 * entries, p0 and p1). */
template <int NV>
__device__ __forceinline__ setop_span
setop_span_of(const int64_t *__restrict__ parts, int tile, int64_t na, int64_t nb)
{
	return setop_span_at<NV>(parts[tile], parts[tile + 1], tile, na, nb);
}

/*
 * One tile a block (used where there are no bulk copies): windows, steps,
 * the block's scan; the count goes on the chain at once, the results are
 * compacted while the tiles before publish theirs, then warp 0 looks back
 * and the block writes them out.
 */
template <typename T, int NT, int VT, int MINB, mp_setop OP>
__global__ void __launch_bounds__(NT, MINB)
setop_tile(const T *__restrict__ a, int64_t na, const T *__restrict__ b, int64_t nb,
		   const int64_t *__restrict__ parts, T *__restrict__ out, int64_t capacity,
		   setop_chain chain, int64_t *__restrict__ length, int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;

	/* the windows (with room for steps past them on unsorted input), later
	 * the tile's results */
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE + VT];
	__shared__ int starts[NT + 1][2];
	__shared__ uint64_t bar;
	__shared__ int sums[NT / 32];
	__shared__ int tile_start_shared;

	const int	tid = threadIdx.x;
	const int	tile = blockIdx.x;

	grid_dependency_wait();

	const setop_span sp = setop_span_of<NV>(parts, tile, na, nb);
	const tile_windows<T, NV> w = load_tile_windows<T, NT, NV>(s, &bar, a, na, sp.a0, sp.acount,
															   b, nb, sp.b0, sp.bcount);
	const setop_view<T> v = {w.a, w.b, sp.acount, sp.bcount, sp.star0,
		sp.bcount + sp.b_real_after, setop_share(sp.acount, sp.bcount, sp.star0), sp.fast};
	setop_steps_out<T, VT> o;
	int			tile_count;

	setop_tile_steps<T, NT, VT, OP>(v, tid, starts, o);

	const int	rank = setop_scan<NT, 0>(setop_nkept(o), &tile_count, sums);

	if (tid == 0)
		chain.publish(tile, tile == 0 ? setop_chain::INCLUSIVE : setop_chain::AGGREGATE,
					  tile_count);
	if ((sp.broken || setop_descends(o, tid, starts)) && unsorted != nullptr)
		*unsorted = 1;
	setop_compact(o, rank, s);
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

/*
 * res[0..n) into out[start..), as far as the output's capacity goes, by
 * the 32 lanes of a warp: four loads under way before their stores.
 */
template <typename T>
__device__ __forceinline__ void
setop_write_out(const T *res, int n, T *__restrict__ out, int64_t start, int64_t capacity,
				int lane)
{
	const int	lim = start + n <= capacity ? n : start < capacity ? (int) (capacity - start) : 0;
	T		   *const to = out + start;
	int			i = lane;

	for (; i + 96 < lim; i += 128)
	{
		const T		v0 = res[i],
					v1 = res[i + 32],
					v2 = res[i + 64],
					v3 = res[i + 96];

		to[i] = v0;
		to[i + 32] = v1;
		to[i + 64] = v2;
		to[i + 96] = v3;
	}
	for (; i < lim; i += 32)
		to[i] = res[i];
}

/*
 * The pipelined form, on sm_90: a resident set of blocks, each with NT
 * threads that compute tiles and one warp that feeds them.  A block's j-th
 * tile is tile j * gridDim.x + blockIdx.x (round-robin: tiles are taken in
 * order, with no counter to claim them from, and a tile's splits can be
 * read before its stage is free).  The feeding warp copies tiles' windows in
 * bulk into STAGES stages, ahead of the others.  When the others have
 * compacted the oldest tile's results in its stage and put its count on the
 * chain, the feeding warp looks back at the tiles before the oldest, writes
 * its results out and refills the stage with the block's next tile.  So
 * neither the copies nor the look-back hold up the steps, unless the tiles
 * before take longer to publish than computing STAGES - 1 tiles does.
 */
struct setop_stage
{
	int			tile;			/* -1: no more */
	int			a_off,
				b_off;
	int			acount,
				bcount,
				star0,
				b_lim;
	float		share;
	int			tile_count;		/* from the computing threads */
	bool		fast;
};

/*
 * Elements of one stage's buffer, a multiple of 16 bytes: both windows with
 * the 16-byte chunks around them (see start_window_whole), E apart, and VT
 * more (see setop_steps_full).
 */
template <typename T, int NT, int VT>
__host__ __device__ constexpr int
setop_stage_elems()
{
	constexpr int E = tile_windows<T, NT * VT>::E;

	return (NT * VT + 6 * E + VT + E - 1) / E * E;
}

/* Dynamic shared memory of the pipelined kernel. */
template <typename T, int NT, int VT, int STAGES>
__host__ __device__ constexpr size_t
setop_pipelined_smem()
{
	return (size_t) STAGES * setop_stage_elems<T, NT, VT>() * sizeof(T);
}

/*
 * By the feeding warp, once tile's *count results are compacted at res
 * and its count is on the chain: the look-back, the tile's inclusive count
 * on the chain, its results out after the tiles before's, and from the
 * last tile the output's length.
 */
template <typename T>
__device__ __forceinline__ void
stage_finish_tile(setop_chain chain, int tile, int tiles, const int *count, const T *res,
				  T *__restrict__ out, int64_t capacity, int64_t *__restrict__ length, int lane)
{
	const int	before = tile == 0 ? 0 : chain.prefix(tile);
	const int	tile_count = *count;
	const int64_t tile_start = before;

	if (lane == 0 && tile > 0)
		chain.publish(tile, setop_chain::INCLUSIVE, before + tile_count);
	setop_write_out<T>(res, tile_count, out, tile_start, capacity, lane);
	if (tile == tiles - 1 && lane == 0)
		*length = tile_start + tile_count < capacity ? tile_start + tile_count : capacity;
}

/*
 * Where a thread is in a pipelined kernel's ring of STAGES stages: stage k,
 * and the phase of its barriers, which flips at each turn of the ring.
 */
template <int STAGES>
struct stage_ring
{
	int			k = 0,
				phase = 0;

	/* until stage k's barrier bars[k] completes its phase */
	__device__ __forceinline__ void wait(uint64_t *bars) const
	{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
		while (!cuda::ptx::mbarrier_try_wait_parity(&bars[k], phase))
			;
#else
		(void) bars;
#endif
	}

	__device__ __forceinline__ void next()
	{
		if (++k == STAGES)
		{
			k = 0;
			phase ^= 1;
		}
	}
};

/*
 * The stages' barriers of a pipelined kernel, by one thread before the
 * block's barrier: full[k] for the feeding warp's 32 lanes (and the bulk
 * copies' bytes), done[k] for the NT computing threads.
 */
template <int STAGES, int NT>
__device__ __forceinline__ void
stage_barriers_init(uint64_t *full, uint64_t *done)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	for (int i = 0; i < STAGES; i++)
	{
		cuda::ptx::mbarrier_init(&full[i], 32);
		cuda::ptx::mbarrier_init(&done[i], NT);
	}
	cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
#endif
}

/*
 * By the feeding warp: a tile's windows into its stage's buffer,
 * a[a0..a0+acount) at buf + a_at and b[b0..b0+bcount) at buf + b_at, in
 * bulk as far as they allow (start_window_whole), the rest by the lanes;
 * every lane then arrives on full, lane 0 with the bulk copies' bytes.
 */
template <typename T, int NV>
__device__ __forceinline__ void
stage_fill_windows(T *buf, const T *__restrict__ a, int64_t na, int64_t a0, int acount, int a_at,
				   const T *__restrict__ b, int64_t nb, int64_t b0, int bcount, int b_at, int lane,
				   uint64_t *full)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	uint32_t	bytes = 0;

	/* both windows' loads under way before either is put */
	const window_edge<T> ea = start_window_whole<T, NV>(a, na, a0, acount, buf + a_at, lane == 0,
														lane, full, &bytes);
	const window_edge<T> eb = start_window_whole<T, NV>(b, nb, b0, bcount, buf + b_at, lane == 0,
														lane - 16, full, &bytes);

	ea.put(buf + a_at);
	eb.put(buf + b_at);
	/* every lane arrives after its stores, the one that started the bulk
	 * copies with their size */
	if (lane == 0)
		cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
											 cuda::ptx::space_shared, full, bytes);
	else
		cuda::ptx::mbarrier_arrive(full);
#else
	(void) buf, (void) a, (void) na, (void) a0, (void) acount, (void) a_at, (void) b, (void) nb,
		(void) b0, (void) bcount, (void) b_at, (void) lane, (void) full;
#endif
}

template <typename T, int NT, int VT, int STAGES, int BLOCKS, mp_setop OP>
__global__ void __launch_bounds__(NT + 32, BLOCKS)
setop_pipelined(const T *__restrict__ a, int64_t na, const T *__restrict__ b, int64_t nb,
				const int64_t *__restrict__ parts, T *__restrict__ out, int64_t capacity,
				setop_chain chain, int tiles, int64_t *__restrict__ length,
				int *__restrict__ unsorted)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	constexpr int NV = NT * VT;
	constexpr int BUF = setop_stage_elems<T, NT, VT>();
	typedef tile_windows<T, NV> windows;

	extern __shared__ __align__(16) unsigned char dynamic_shared[];
	T		   *const s = (T *) dynamic_shared;
	__shared__ int starts[STAGES][NT + 1][2];
	__shared__ int sums[STAGES][NT / 32];
	__shared__ setop_stage stage[STAGES];
	__shared__ uint64_t full[STAGES],
				done[STAGES];

	const int	tid = threadIdx.x;
	const int	lane = tid % 32;

	if (tid == 0)
		stage_barriers_init<STAGES, NT>(full, done);
	__syncthreads();
	grid_dependency_wait();

	if (tid >= NT)
	{
		/*
		 * The feeding warp.  tile_of: the block's j-th tile, or -1 past the
		 * last.  splits: its two partition entries.  fill: its windows
		 * copied into stage k (with tile -1, the stage says there are no
		 * more).
		 */
		auto		tile_of = [&](int j) -> int {
			const int64_t t = (int64_t) j * gridDim.x + blockIdx.x;

			return t < tiles ? (int) t : -1;
		};
		auto		splits = [&](int tile, int64_t &p0, int64_t &p1) {
			if (tile >= 0)
			{
				p0 = parts[tile];
				p1 = parts[tile + 1];
			}
		};
		auto		fill = [&](int k, int tile, int64_t p0, int64_t p1) {
			if (tile < 0)
			{
				if (lane == 0)
					stage[k].tile = -1;
				cuda::ptx::mbarrier_arrive(&full[k]);
				return;
			}

			const setop_span sp = setop_span_at<NV>(p0, p1, tile, na, nb);
			const int	a_off = windows::place(windows::E, a, sp.a0);
			const int	b_off = windows::place(a_off + sp.acount + 2 * windows::E, b, sp.b0);

			if (sp.broken && lane == 0 && unsorted != nullptr)
				*unsorted = 1;
			__syncwarp();
			if (lane == 0)
			{
				stage[k].tile = tile;
				stage[k].a_off = a_off;
				stage[k].b_off = b_off;
				stage[k].acount = sp.acount;
				stage[k].bcount = sp.bcount;
				stage[k].star0 = sp.star0;
				stage[k].b_lim = sp.bcount + sp.b_real_after;
				stage[k].share = setop_share(sp.acount, sp.bcount, sp.star0);
				stage[k].fast = sp.fast;
				cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
			}
			stage_fill_windows<T, NV>(s + k * BUF, a, na, sp.a0, sp.acount, a_off, b, nb, sp.b0,
									  sp.bcount, b_off, lane, &full[k]);
		};

#pragma unroll
		for (int j = 0; j < STAGES; j++)
		{
			int64_t		p0 = 0,
						p1 = 0;

			splits(tile_of(j), p0, p1);
			fill(j, tile_of(j), p0, p1);
		}
		stage_ring<STAGES> r;

		for (int j = 0;; j++, r.next())
		{
			const int	k = r.k;
			const int	tile = tile_of(j);
			const int	next = tile_of(j + STAGES);
			int64_t		p0 = 0,
						p1 = 0;

			if (tile < 0)
				break;
			/* the next tile's splits arrive while this one is finished */
			splits(next, p0, p1);
			r.wait(done);
			stage_finish_tile<T>(chain, tile, tiles, &stage[k].tile_count, s + k * BUF, out,
								 capacity, length, lane);
			__syncwarp();
			fill(k, next, p0, p1);
		}
	}
	else
	{
		for (stage_ring<STAGES> r;; r.next())
		{
			const int	k = r.k;

			r.wait(full);

			const int	tile = stage[k].tile;

			if (tile < 0)
				break;

			T		   *const buf = s + k * BUF;
			const setop_view<T> v = {buf + stage[k].a_off, buf + stage[k].b_off, stage[k].acount,
				stage[k].bcount, stage[k].star0, stage[k].b_lim, stage[k].share, stage[k].fast};
			setop_steps_out<T, VT> o;
			int			tile_count;

			setop_tile_steps<T, NT, VT, OP>(v, tid, starts[k], o);

			const int	rank = setop_scan<NT, 1>(setop_nkept(o), &tile_count, sums[k]);

			if (tid == 0)
			{
				chain.publish(tile, tile == 0 ? setop_chain::INCLUSIVE : setop_chain::AGGREGATE,
							  tile_count);
				stage[k].tile_count = tile_count;
			}
			if (setop_descends(o, tid, starts[k]) && unsorted != nullptr)
				*unsorted = 1;
			setop_compact(o, rank, buf);
			cuda::ptx::mbarrier_arrive(&done[k]);
		}
	}
#endif
}

}								/* namespace mp */

#endif							/* MP_SETOPS_TILE_CUH */
