/*
 * tile.cuh (search)
 *		Vectorized sorted search on the device, and the join's expansion.
 *
 * Sorted needles searched in a sorted haystack are a merge: a needle's
 * lower bound is the number of haystack elements in front of it in the
 * merge where needles win ties, its upper bound the same where the haystack
 * wins them.  The stable merge (merge/tile.cuh) gives A the ties, so a lower
 * bound merges (A = needles, B = haystack), an upper bound (A = haystack,
 * B = needles).  Two paths:
 *
 * - search_tile, for comparable sizes: the merge's partition and
 *   window loads (and so its fused check), VT serial merge steps per thread,
 *   each needle step keeping the needle's rank (or whether the haystack
 *   holds it) in registers; then the tile's needle results go back through
 *   shared memory to coalesced stores.  Every element is read once.
 * - search_sparse, for a haystack many times larger than the needles, where
 *   a merge would read the whole haystack to place few needles: one thread
 *   a needle, its search narrowed by its block first (a warp brackets the
 *   bounds of the block's first and last needles together, 16 probes a
 *   step for each, then a probe a thread splits that range), so that few
 *   memory sectors and dependent loads are left to each thread.  Only with
 *   the check off: checking reads the whole haystack, and then the merge is
 *   faster.  (The kernel can check, coalesced, for the benchmarks'
 *   comparison.)
 *
 * What a needle's result is (search_out): its rank; its rank less a base
 * value (an upper bound less the lower bound gives a count); or a flag for
 * whether the haystack holds it or not (semi and anti joins).
 *
 * join_expand writes the join's pairs from each a element's lower bound and
 * the exclusive scan of the counts: one thread per pair, each finding its a
 * element by a binary search of the scan bracketed per block, so that a key
 * with a million partners is spread over the whole grid.
 *
 * On unsorted input with the check off, every access stays in bounds; the
 * results are unspecified.
 */
#ifndef MP_SEARCH_TILE_CUH
#define MP_SEARCH_TILE_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "../merge/tile.cuh"

namespace mp
{

enum search_out
{
	OUT_RANK,					/* int32: the needle's rank */
	OUT_RANK_MINUS,				/* int32: the rank less base[j], 0 below it (unsorted) */
	OUT_FOUND,					/* uint8: 1 when the haystack holds the needle */
	OUT_MISSING					/* uint8: 1 when it does not */
};

template <int OUT>
struct search_out_type
{
	typedef int32_t type;
};
template <>
struct search_out_type<OUT_FOUND>
{
	typedef uint8_t type;
};
template <>
struct search_out_type<OUT_MISSING>
{
	typedef uint8_t type;
};

/* From this many haystack elements a needle, search_sparse takes over. */
#ifndef SEARCH_SPARSE_RATIO
#define SEARCH_SPARSE_RATIO 16
#endif

/*
 * One tile of a search merge.  NEEDLES_A: A is the needles (lower bound) or
 * the haystack (upper bound).  For OUT_FOUND and OUT_MISSING (lower bounds
 * only), next_hay is the haystack element after the tile's window, when
 * there is one: the needles at the window's end are compared with it.
 */
template <typename T, int NT, int VT, bool NEEDLES_A, int OUT, bool FULL>
__device__ __forceinline__ void
search_one_tile(const T *__restrict__ a, const T *__restrict__ b, int64_t a0, int64_t b0,
				int acount, int count, bool has_next, T next_hay,
				typename search_out_type<OUT>::type *__restrict__ out,
				const int32_t *base, int *__restrict__ unsorted, T *s, int64_t nhay)
{
	typedef typename search_out_type<OUT>::type O;
	constexpr int NV = NT * VT;
	static_assert(VT <= 64, "one mask bit per step");
	const int	tid = threadIdx.x;
	T			r[VT];

	load_windows<T, NT, VT, FULL>(a, b, a0, b0, acount, count, unsorted, s, r);
	if (OUT == OUT_FOUND || OUT == OUT_MISSING)
	{
		if (tid == 0 && has_next)
			s[count] = next_hay;
		__syncthreads();
	}

	const int	diag = FULL || tid * VT < count ? tid * VT : count;
	const int	mp = merge_path_search<T>(s, acount, s + acount, count - acount, diag);
	int			ai = mp;
	int			bi = acount + diag - mp;
	T			ak = s[ai];
	T			bk = s[FULL || bi < NV ? bi : NV];
	int32_t		res[VT];
	uint64_t	mask = 0;

#pragma unroll
	for (int i = 0; i < VT; i++)
	{
		const bool	valid = FULL || diag + i < count;
		bool		take_a = bi >= count || (ai < acount && !order<T>::lt(bk, ak));
		bool		needle = valid && (take_a == NEEDLES_A);

		if (NEEDLES_A)
		{
			/* a needle's lower bound: the haystack elements taken so far */
			if (OUT == OUT_FOUND || OUT == OUT_MISSING)
			{
				bool		found = (bi < count || has_next) && !order<T>::lt(ak, bk);

				res[i] = found == (OUT == OUT_FOUND);
			}
			else
				res[i] = (int32_t) (b0 + bi - acount);
		}
		else
			res[i] = (int32_t) (a0 + ai);
		mask |= (uint64_t) needle << i;

		int			next = take_a ? ++ai : ++bi;
		T			v = s[FULL || next < NV ? next : NV];

		if (take_a)
			ak = v;
		else
			bk = v;
	}
	/*
	 * Where each thread's results go: after the needle results of the
	 * threads before it, by a scan of the counts.  On sorted input that is
	 * first_needle; on unsorted input it still gives every thread a range
	 * of its own.
	 */
	__shared__ int warp_total[NT / 32];
	const int	lane = tid % 32;
	const int	mine = __popcll(mask);
	int			incl = mine;

#pragma unroll
	for (int o = 1; o < 32; o <<= 1)
	{
		int			y = __shfl_up_sync(0xFFFFFFFFu, incl, o);

		if (lane >= o)
			incl += y;
	}
	if (lane == 31)
		warp_total[tid / 32] = incl;
	__syncthreads();

	int			k = incl - mine,
				total = 0;

#pragma unroll
	for (int w = 0; w < NT / 32; w++)
	{
		k += w < tid / 32 ? warp_total[w] : 0;
		total += warp_total[w];
	}

	/* the tile's needle results in order, then stored coalesced */
	O		   *so = reinterpret_cast<O *>(s);

#pragma unroll
	for (int i = 0; i < VT; i++)
		if (mask >> i & 1)
			so[k++] = (O) res[i];
	__syncthreads();

	const int	nneedles = NEEDLES_A ? acount : count - acount;
	const int64_t n0 = NEEDLES_A ? a0 : b0;

	for (int j = tid; j < nneedles; j += NT)
	{
		/* (total differs from nneedles only on unsorted input) */
		O			v = j < total ? so[j] : O();

		/* on unsorted input (the check off) a rank is still within [0, nhay]
		 * and a count never negative */
		if constexpr (OUT == OUT_RANK || OUT == OUT_RANK_MINUS)
			v = v < 0 ? 0 : (int64_t) v > nhay ? (O) nhay : v;
		if constexpr (OUT == OUT_RANK_MINUS)
			v = v > base[n0 + j] ? v - base[n0 + j] : 0;
		out[n0 + j] = v;
	}
}

template <typename T, int NT, int VT, int MINB, bool NEEDLES_A, int OUT>
__global__ void __launch_bounds__(NT, MINB)
search_tile(const T *__restrict__ a, int64_t na, const T *__restrict__ b, int64_t nb,
			const int64_t *__restrict__ parts, typename search_out_type<OUT>::type *out,
			const int32_t *base, int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;
	static_assert(NT % 32 == 0 && VT % 2 == 1, "whole warps; VT is odd");
	static_assert(sizeof(typename search_out_type<OUT>::type) <= sizeof(T),
				  "results fit where the keys were");
	__shared__ T s[NV + 1];

	const tile_span t = tile_span_after_partition<NV>(parts, na + nb);

	if (t.backwards())
	{
		/* only on unsorted input (see merge_tile) */
		if (unsorted != nullptr)
		{
			if (threadIdx.x == 0)
				*unsorted = 1;
			return;
		}

		/*
		 * The check off: the tile's needles still get a result in range, a
		 * zero rank (count).  Each needle lies in some tile's forward range,
		 * so none is left unwritten.
		 */
		const int64_t n0 = NEEDLES_A ? t.a0 : t.b0;
		const int64_t n1 = NEEDLES_A ? t.a1 : t.b1;

		for (int64_t j = n0 + threadIdx.x; j < n1; j += NT)
			out[j] = typename search_out_type<OUT>::type();
		return;
	}

	/* membership takes lower bounds: the haystack is b */
	constexpr bool MEMBERSHIP = OUT == OUT_FOUND || OUT == OUT_MISSING;
	const bool	has_next = MEMBERSHIP && t.b1 < nb;
	const T		next_hay = has_next ? b[t.b1] : T();

	if (t.d1 - t.d0 == NV)
		search_one_tile<T, NT, VT, NEEDLES_A, OUT, true>(a, b, t.a0, t.b0, (int) (t.a1 - t.a0),
														 NV, has_next, next_hay, out, base,
														 unsorted, s, NEEDLES_A ? nb : na);
	else
		search_one_tile<T, NT, VT, NEEDLES_A, OUT, false>(a, b, t.a0, t.b0, (int) (t.a1 - t.a0),
														  (int) (t.d1 - t.d0), has_next,
														  next_hay, out, base, unsorted, s,
														  NEEDLES_A ? nb : na);
}

/*
 * The sparse path's shape: SPARSE_NT needles a block; a search ends by
 * comparing sparse_scan<T> elements (64 bytes) at once, independent loads in
 * one memory round trip, instead of the last levels of a binary search; the
 * block's bracket stops at SPARSE_BRACKET elements a key.
 */
constexpr int SPARSE_NT = 256;
constexpr int SPARSE_BRACKET = 512;

template <typename T>
__host__ __device__ constexpr int
sparse_scan()
{
	return 64 / (int) sizeof(T);
}

/* Whether haystack element h comes before key in a lower (upper) bound. */
template <typename T, bool UPPER>
__device__ __forceinline__ bool
hay_before(T h, T key)
{
	return UPPER ? !order<T>::lt(key, h) : order<T>::lt(h, key);
}

/*
 * Number of hay[lo..hi) elements before key: binary steps down to
 * sparse_scan<T>() elements, then those compared together.  On unsorted
 * input the result is still in [lo, hi].
 */
template <typename T, bool UPPER>
__device__ __forceinline__ int64_t
bound_between(const T *__restrict__ hay, T key, int64_t lo, int64_t hi)
{
	constexpr int SCAN = sparse_scan<T>();

	while (hi - lo > SCAN)
	{
		int64_t		mid = (lo + hi) >> 1;

		if (hay_before<T, UPPER>(hay[mid], key))
			lo = mid + 1;
		else
			hi = mid;
	}

	int			c = 0;

#pragma unroll
	for (int i = 0; i < SCAN; i++)
		c += lo + i < hi && hay_before<T, UPPER>(hay[lo + i], key);
	return lo + c;
}

/*
 * Brackets of two keys' bounds, by one warp: lanes 0-15 work on key0,
 * lanes 16-31 on key1, each half cutting its interval into 17 with 16
 * probes a step (log17(n) dependent loads instead of log2(n)) until it is
 * at most SPARSE_BRACKET long.  Lane 0 gets [lo, hi] holding key0's bound,
 * lane 16 key1's.
 */
template <typename T, bool UPPER>
__device__ __forceinline__ void
warp_bracket_pair(const T *__restrict__ hay, int64_t nh, T key0, T key1,
				  int64_t &lo, int64_t &hi)
{
	const int	lane = threadIdx.x % 32;
	const int	half = lane / 16;
	const int	l = lane % 16;
	const T		key = half ? key1 : key0;

	lo = 0;
	hi = nh;
	for (;;)
	{
		const bool	active = hi - lo > SPARSE_BRACKET;

		if (!__ballot_sync(0xFFFFFFFFu, active))
			break;

		int64_t		p = lo + (hi - lo) * (l + 1) / 17;
		unsigned	b = __ballot_sync(0xFFFFFFFFu, active && hay_before<T, UPPER>(hay[p], key));
		int			c = __popc((b >> (half * 16)) & 0xFFFFu);
		int64_t		p_below = __shfl_sync(0xFFFFFFFFu, p, half * 16 + (c > 0 ? c - 1 : 0));
		int64_t		p_above = __shfl_sync(0xFFFFFFFFu, p, half * 16 + (c < 16 ? c : 15));

		if (active)
		{
			lo = c > 0 ? p_below + 1 : lo;
			hi = c < 16 ? p_above : hi;
		}
	}
}

/*
 * One thread a needle, SPARSE_NT needles a block.  What a search costs here
 * is the number of distinct 32-byte sectors it fetches, so the work is
 * shared where it can be: warp 0 brackets the bounds of the block's first
 * and last needles; one probe per thread across that range, into shared
 * memory, gives every thread the (SPARSE_NT + 1)th of it that holds its
 * needle's bound (a search in shared memory); the thread finishes alone.
 * At 1M needles in 100M that is about six sectors a needle.
 */
template <typename T, bool UPPER, int OUT>
__global__ void __launch_bounds__(SPARSE_NT)
search_sparse(const T *__restrict__ hay, int64_t nh, const T *__restrict__ needles, int64_t nn,
			  typename search_out_type<OUT>::type *out, const int32_t *base,
			  int *__restrict__ unsorted)
{
	__shared__ T probes[SPARSE_NT];
	__shared__ int64_t range[2];
	const int	tid = threadIdx.x;
	const int64_t first = (int64_t) blockIdx.x * SPARSE_NT;
	const int64_t j = first + tid;

	if (unsorted != nullptr)
	{
		/* the check reads every element once, grid-strided and coalesced */
		const int64_t stride = (int64_t) gridDim.x * SPARSE_NT;
		bool		bad = j < nn && j > 0 && order<T>::lt(needles[j], needles[j - 1]);

		for (int64_t k = j + 1; k < nh; k += stride)
			bad |= order<T>::lt(hay[k], hay[k - 1]);
		if (bad)
			*unsorted = 1;
	}
	if (first >= nn)
		return;

	/* the block's range: from its first needle's bracket to its last one's */
	const int64_t last = first + SPARSE_NT - 1 < nn ? first + SPARSE_NT - 1 : nn - 1;
	const T		key = needles[j < nn ? j : last];

	if (tid < 32)
	{
		int64_t		lo,
					hi;

		warp_bracket_pair<T, UPPER>(hay, nh, needles[first], needles[last], lo, hi);
		if (tid == 0)
			range[0] = lo;
		if (tid == 16)
			range[1] = hi;
	}
	__syncthreads();

	int64_t		lo = range[0],
				hi = range[1];

	if (hi < lo)
	{
		/* unsorted input: search everything */
		lo = 0;
		hi = nh;
	}

	/* a probe a thread cuts the range into SPARSE_NT + 1 pieces */
	if (hi - lo > SPARSE_BRACKET)
	{
		const int64_t span = hi - lo;

		probes[tid] = hay[lo + span * (tid + 1) / (SPARSE_NT + 1)];
		__syncthreads();

		/* probes[0..c) come before the key */
		int			c = 0;

#pragma unroll
		for (int step = SPARSE_NT; step > 0; step /= 2)
			if (c + step <= SPARSE_NT && hay_before<T, UPPER>(probes[c + step - 1], key))
				c += step;

		const int64_t base_lo = lo;

		lo = c > 0 ? base_lo + span * c / (SPARSE_NT + 1) + 1 : base_lo;
		hi = c < SPARSE_NT ? base_lo + span * (c + 1) / (SPARSE_NT + 1) : hi;
	}
	if (j >= nn)
		return;

	int64_t		k = bound_between<T, UPPER>(hay, key, lo, hi);

	if (OUT == OUT_FOUND || OUT == OUT_MISSING)
		out[j] = (k < nh && !order<T>::lt(key, hay[k])) == (OUT == OUT_FOUND);
	else if (OUT == OUT_RANK_MINUS)
		out[j] = (int32_t) k > base[j] ? (int32_t) k - base[j] : 0;
	else
		out[j] = (int32_t) k;
}

/*
 * Pairs [first, first + count) of the join whose a element i has lb[i] as
 * its lower bound in b and off[i] pairs in front of it (the exclusive scan
 * of the counts): pair p is (i, lb[i] + p - off[i]) for the last i with
 * off[i] <= p.
 */
template <int NT, int VT>
__global__ void __launch_bounds__(NT)
join_expand(const int64_t *__restrict__ off, const int32_t *__restrict__ lb, int64_t na,
			int64_t first, int64_t count, int32_t *__restrict__ a_pos,
			int32_t *__restrict__ b_pos)
{
	__shared__ int64_t bracket[2];
	const int64_t p0 = first + (int64_t) blockIdx.x * NT * VT;
	const int64_t p_last = p0 + NT * VT - 1 < first + count ? p0 + NT * VT - 1 : first + count - 1;

	if (threadIdx.x < 2)
	{
		/* the last i with off[i] <= p, for the block's first and last pair */
		int64_t		p = threadIdx.x == 0 ? p0 : p_last;
		int64_t		lo = 0,
					hi = na;

		while (lo < hi)
		{
			int64_t		mid = (lo + hi) >> 1;

			if (off[mid] <= p)
				lo = mid + 1;
			else
				hi = mid;
		}
		bracket[threadIdx.x] = lo - 1;
	}
	__syncthreads();

	const int64_t seg_lo = bracket[0];
	const int64_t seg_hi = bracket[1] + 1;

#pragma unroll 4
	for (int v = 0; v < VT; v++)
	{
		int64_t		p = p0 + v * NT + threadIdx.x;
		int64_t		lo = seg_lo,
					hi = seg_hi;

		if (p > p_last)
			break;
		while (lo < hi)
		{
			int64_t		mid = (lo + hi) >> 1;

			if (off[mid] <= p)
				lo = mid + 1;
			else
				hi = mid;
		}
		int64_t		i = lo - 1;

		a_pos[p - first] = (int32_t) i;
		b_pos[p - first] = (int32_t) (lb[i] + (p - off[i]));
	}
}

/* Total pairs: off[na - 1] + cnt[na - 1], into *total. */
__global__ void
join_total(const int64_t *off, const int32_t *cnt, int64_t na, int64_t *total)
{
	*total = na > 0 ? off[na - 1] + cnt[na - 1] : 0;
}

}								/* namespace mp */

#endif							/* MP_SEARCH_TILE_CUH */
