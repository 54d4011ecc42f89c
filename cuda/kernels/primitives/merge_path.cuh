/*
 * merge_path.cuh
 *		The Merge Path search (Green, McColl & Bader): how many of A's
 *		elements come first among the first diag outputs of the stable merge
 *		of A and B, searched alone, from a guess, by a group of lanes, or as
 *		a tile boundary's split; shared by every operation built on merging.
 */
#ifndef MP_PRIMITIVES_MERGE_PATH_CUH
#define MP_PRIMITIVES_MERGE_PATH_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "order.cuh"

namespace mp
{

/*
 * Number of A elements among the first diag outputs of the stable merge,
 * known to lie in [lo, hi].
 */
template <typename T, typename IndexT, typename PtrA, typename PtrB>
MP_HOST_DEVICE IndexT
merge_path_between(PtrA a, PtrB b, IndexT diag, IndexT lo, IndexT hi)
{
	while (lo < hi)
	{
		IndexT		mid = (lo + hi) >> 1;

		if (!order<T>::lt(b[diag - 1 - mid], a[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The same, with a guess: first the two probes that bound the answer to
 * [guess - r, guess + r], side by side, then the search in what is left,
 * which is that window when the guess was good.  A good guess takes the
 * chain of dependent loads from log2(hi - lo) to 1 + log2(2r).
 */
template <typename T, typename IndexT, typename PtrA, typename PtrB>
MP_HOST_DEVICE IndexT
merge_path_near(PtrA a, PtrB b, IndexT diag, IndexT lo, IndexT hi, IndexT guess, IndexT r)
{
	guess = guess < lo ? lo : guess > hi ? hi : guess;

	const IndexT below = guess - r,
				above = guess + r;
	const bool	probe_below = below > lo,
				probe_above = above < hi;
	bool		past_below = false,
				past_above = false;

	if (probe_below)
		past_below = !order<T>::lt(b[diag - below], a[below - 1]);
	if (probe_above)
		past_above = !order<T>::lt(b[diag - 1 - above], a[above]);
	if (probe_below)
	{
		if (past_below)
			lo = below;
		else
			hi = below - 1;
	}
	if (probe_above)
	{
		if (past_above)
			lo = lo > above + 1 ? lo : above + 1;
		else
			hi = hi < above ? hi : above;
	}
	return merge_path_between<T>(a, b, diag, lo, hi);
}

/* Number of A elements among the first diag outputs of the stable merge. */
template <typename T, typename IndexT, typename PtrA, typename PtrB>
MP_HOST_DEVICE IndexT
merge_path_search(PtrA a, IndexT na, PtrB b, IndexT nb, IndexT diag)
{
	return merge_path_between<T>(a, b, diag, diag > nb ? diag - nb : 0, diag < na ? diag : na);
}

/*
 * merge_path_between by G lanes together (aligned groups of G lanes of a
 * warp, G a power of two, all with the same arguments): lane j of the group
 * probes at lo + (hi - lo) (j + 1) / G, so each round of dependent loads
 * cuts the range to a G-th instead of a half.  On sorted input the probes
 * that find A's element first are a prefix; the answer lies after the last
 * of them and at or before the next.
 */
template <typename T, int G, typename IndexT, typename PtrA, typename PtrB>
__device__ __forceinline__ IndexT
merge_path_group(PtrA a, PtrB b, IndexT diag, IndexT lo, IndexT hi)
{
	static_assert(G >= 2 && G <= 32 && (G & (G - 1)) == 0, "G is a power of two up to 32");
	constexpr int LOG_G = G == 2 ? 1 : G == 4 ? 2 : G == 8 ? 3 : G == 16 ? 4 : 5;
	const int	lane = threadIdx.x % 32;
	const int	j = lane % G;
	const int	base = lane - j;
	const unsigned group = (G == 32 ? ~0u : (1u << G) - 1) << base;

	while (lo < hi)
	{
		const IndexT n = hi - lo;
		const IndexT m = lo + ((n * (j + 1)) >> LOG_G);
		const bool	before = j < G - 1 && !order<T>::lt(b[diag - 1 - m], a[m]);
		const unsigned ahead = (__ballot_sync(group, before) & group) >> base;
		const int	c = __ffs(~ahead) - 1;	/* probes before the first that fails */

		hi = lo + ((n * (c + 1)) >> LOG_G);
		lo = c > 0 ? lo + ((n * c) >> LOG_G) + 1 : lo;
	}
	return lo;
}

/*
 * The split of tile boundary *p (diagonal *p * NV), for the calling thread;
 * false for threads past the last boundary.  Boundaries go 32 to a warp.
 * When bracketed, the warp first finds the splits at its first boundary and
 * 32 boundaries on, then every lane searches only between those two.  On
 * sorted input the splits never decrease, so each boundary's split lies in
 * that bracket; the narrow search takes about log2(32 * NV) steps instead of
 * log2(na + nb), over memory its neighbours touch too.  (On unsorted input a
 * bracket may be wrong; the tile kernel's check does not depend on where
 * the splits fall.)  With few boundaries the searches are bound by their
 * chain of dependent loads rather than by random fetches, and one full
 * search each is the shorter chain.
 *
 * NARROW (used by the set operations): the bracket's two splits are searched
 * by 8 lanes each, 7 probes a round, and each lane's search starts from a
 * guess, its diagonal's place between the bracket's ends, checked 128 places
 * either side (see merge_path_near): on keys that are spread alike in A and
 * B the split is seldom further off, and the search then fetches about half
 * as many sectors of the inputs.
 */
template <typename T, int NV, bool NARROW = false>
__device__ __forceinline__ bool
merge_partition_split(const T *__restrict__ a, int64_t na, const T *__restrict__ b,
					  int64_t nb, int64_t num_parts, bool bracketed, int64_t *p, int64_t *split)
{
	const int	lane = threadIdx.x % 32;
	const int64_t first = ((int64_t) blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 32;
	const int64_t last = first + 32 < num_parts ? first + 32 : num_parts - 1;
	const int64_t total = na + nb;
	const int64_t d0 = first * NV < total ? first * NV : total;
	const int64_t d1 = last * NV < total ? last * NV : total;

	if (first >= num_parts)
		return false;

	int64_t		lo_a = 0,
				hi_a = na;

	if (bracketed && NARROW)
	{
		const int64_t diag = lane / 8 % 2 == 0 ? d0 : d1;
		const int64_t bracket = merge_path_group<T, 8>(a, b, diag, diag > nb ? diag - nb : 0,
													   diag < na ? diag : na);

		lo_a = __shfl_sync(0xFFFFFFFFu, bracket, 0);
		hi_a = __shfl_sync(0xFFFFFFFFu, bracket, 8);
	}
	else if (bracketed)
	{
		int64_t		bracket = 0;

		if (lane < 2)
			bracket = merge_path_search<T>(a, na, b, nb, lane == 0 ? d0 : d1);
		lo_a = __shfl_sync(0xFFFFFFFFu, bracket, 0);
		hi_a = __shfl_sync(0xFFFFFFFFu, bracket, 1);
	}

	*p = first + lane;
	if (*p >= num_parts)
		return false;

	int64_t		diag = *p * NV < total ? *p * NV : total;
	int64_t		lo = diag > nb ? diag - nb : 0;
	int64_t		hi = diag < na ? diag : na;

	lo = lo_a > lo && lo_a <= hi ? lo_a : lo;
	hi = hi_a < hi && hi_a >= lo ? hi_a : hi;
	if (bracketed && NARROW)
	{
		const int64_t guess = lo_a + (d1 > d0 ? (int64_t) ((double) (hi_a - lo_a) *
															(double) (diag - d0) / (double) (d1 - d0)) : 0);

		*split = merge_path_near<T>(a, b, diag, lo, hi, guess, (int64_t) 128);
	}
	else
		*split = merge_path_between<T>(a, b, diag, lo, hi);
	return true;
}

}								/* namespace mp */

#endif							/* MP_PRIMITIVES_MERGE_PATH_CUH */
