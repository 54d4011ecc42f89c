/*
 * tile.cuh (batch)
 *		Many small problems in one launch: pair p of a batch reads
 *		a[a_off[p] .. a_off[p + 1]) and b[b_off[p] .. b_off[p + 1]), all
 *		pairs back to back (CSR), offsets from 0.
 *
 * The merge is Merge Path over the concatenated outputs of all pairs: the
 * outputs of pair p are out[a_off[p] + b_off[p] ..), so a tile of NV
 * outputs holds a contiguous window of a and one of b, whatever pairs it
 * spans; a tile boundary finds its pair by a binary search of the pairs'
 * output offsets, then its split by Merge Path inside the pair.  One huge
 * pair among tiny ones is cut into tiles like any merge, and a tile of
 * tiny pairs merges them all.  Inside a tile it is the single merge with
 * the pairs' starts beside the windows: 32-bit indices into shared memory
 * throughout, the windows loaded as the single merge loads its own.
 *
 * The filters (the semi and anti joins, unique) keep or drop each element
 * of a side by whether its key is on the other side, or by the key before
 * it.  Each thread takes VT consecutive elements; the first one's place in
 * the other side is a binary search, the next ones' a gallop from there,
 * since a pair's keys ascend.  A count pass, a scan of the tiles' counts
 * and a write pass put the kept elements straight into their final places,
 * and each pair's first output offset is written by the thread whose
 * elements hold the pair's start.  The set operations are Balanced Path
 * tiles of their own (setops.cuh).
 *
 * The searches take a thread for VT consecutive needles, galloping the same
 * way.  The sortedness check of the filters and searches is a pass of its
 * own (batch_check); the merge's and the set operations' ride on their
 * serial steps, as the single calls' do.
 */
#ifndef MP_BATCH_TILE_CUH
#define MP_BATCH_TILE_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "../../../src/api/mp_api.h"
#include "../shapes.cuh"
#include "../primitives/merge_path.cuh"
#include "../primitives/order.cuh"
#include "../primitives/windows.cuh"

namespace mp
{

/* The bits set in x, on the device and on the host. */
MP_HOST_DEVICE int
popc(unsigned x)
{
#ifdef __CUDA_ARCH__
	return __popc(x);
#else
	return __builtin_popcount(x);
#endif
}

MP_HOST_DEVICE int
popc(unsigned long long x)
{
#ifdef __CUDA_ARCH__
	return __popcll(x);
#else
	return __builtin_popcountll(x);
#endif
}

/*
 * The pair that holds position x, among pairs [lo, hi] whose starts are
 * start(p): the last p with start(p) <= x (empty pairs share their start
 * with the next one, which holds x).  start(lo) <= x.
 */
template <typename Start>
MP_HOST_DEVICE int64_t
pair_of(Start start, int64_t x, int64_t lo, int64_t hi)
{
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo + 1) / 2;

		if (start(mid) <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The first p in [lo, hi] with start(p) >= x, or hi + 1. */
template <typename Start>
MP_HOST_DEVICE int64_t
first_pair_from(Start start, int64_t x, int64_t lo, int64_t hi)
{
	hi++;
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (start(mid) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct csr_start
{
	const int64_t *off;

	MP_HOST_DEVICE int64_t operator()(int64_t p) const { return off[p]; }
};

/* Where pair p's merged outputs start. */
struct merged_start
{
	const int64_t *a_off;
	const int64_t *b_off;

	MP_HOST_DEVICE int64_t operator()(int64_t p) const
	{
		return a_off[p] + b_off[p];
	}
};

/*
 * Merge Path in one pair: how many of the first k merged outputs come from
 * a[0 .. na), i restricted to [lo, hi] (where the split must lie).
 */
template <typename T, typename A, typename B>
MP_HOST_DEVICE int64_t
pair_merge_path(A a, B b, int64_t k, int64_t lo, int64_t hi)
{
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (!order<T>::lt(b(k - 1 - mid), a(mid)))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Boundary d of the merged outputs (a tile's start, or the end): the pair
 * p that holds it, and a's split there (Merge Path in the pair), an index
 * into a.
 */
template <typename T>
MP_HOST_DEVICE void
batch_merge_split(const T *a, const int64_t *a_off, const T *b, const int64_t *b_off,
				  int64_t npairs, int64_t d, int64_t *split, int64_t *pair)
{
	const merged_start o = {a_off, b_off};
	const int64_t total = a_off[npairs] + b_off[npairs];
	const int64_t p = pair_of(o, d < total ? d : total - 1, 0, npairs - 1);
	const int64_t na = a_off[p + 1] - a_off[p],
				nb = b_off[p + 1] - b_off[p];
	const int64_t k = d - o(p);
	const T    *pa = a + a_off[p],
			   *pb = b + b_off[p];
	const int64_t i = pair_merge_path<T>([pa](int64_t x) { return pa[x]; },
										 [pb](int64_t x) { return pb[x]; }, k,
										 k > nb ? k - nb : 0, k < na ? k : na);

	*split = a_off[p] + i;
	*pair = p;
}

/*
 * The batched merge's partition: for each tile boundary d (t * NV, the last
 * at the end of the outputs), parts[2t] and parts[2t + 1] as
 * batch_merge_split gives them (the pair, then Merge Path in it, over
 * global memory).  A thread a boundary, all of them at once: a tile that
 * searched its own boundaries would wait some 27 dependent reads of
 * global memory before its first load.
 */
template <typename T, int NT, int VT>
__global__ void __launch_bounds__(128)
batch_merge_partition(const T *__restrict__ a, const int64_t *__restrict__ a_off,
					  const T *__restrict__ b, const int64_t *__restrict__ b_off,
					  int64_t npairs, int64_t *__restrict__ parts, int64_t nparts)
{
	constexpr int64_t NV = (int64_t) NT * VT;
	const int64_t t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (t >= nparts)
		return;

	const int64_t total = a_off[npairs] + b_off[npairs];

	batch_merge_split<T>(a, a_off, b, b_off, npairs, t * NV < total ? t * NV : total,
						 &parts[2 * t], &parts[2 * t + 1]);
}

/*
 * Where the parts of the tile's pairs start in its windows: entry q for
 * pair p0 + q, as (index in the A window, index in the B window).  The
 * first pair's is -1 where it starts before the windows, and the entry
 * after the last pair's holds the windows' ends.  From shared memory where
 * the tile's pairs fit there (window_bounds_shared), else from the
 * offsets (window_bounds_global), for tiles that span many empty pairs.
 */
struct window_bounds_global
{
	const int64_t *a_off;
	const int64_t *b_off;
	int64_t		p0,
				a0,
				b0;
	int			a_max,			/* the largest index in each window an */
				b_max;			/* entry may take */

	MP_HOST_DEVICE int2 operator()(int64_t q) const
	{
		const int64_t x = a_off[p0 + q] - a0,
					y = b_off[p0 + q] - b0;

		return make_int2(x < -1 ? -1 : x > a_max ? a_max : (int) x,
						 y < -1 ? -1 : y > b_max ? b_max : (int) y);
	}
};

struct window_bounds_shared
{
	const int2 *s;

	MP_HOST_DEVICE int2 operator()(int64_t q) const { return s[q]; }
};

/* Either, as the tile found its pairs to fit in shared memory or not. */
struct window_bounds
{
	const int2 *s;
	bool		shared;
	window_bounds_global g;

	MP_HOST_DEVICE int2 operator()(int64_t q) const
	{
		return shared ? s[q] : g(q);
	}
};

/*
 * The last of the tile's pairs [0, npt) whose part starts at or before
 * window place x (the first pair's always does).
 */
template <typename Bounds>
MP_HOST_DEVICE int64_t
window_pair_of(Bounds bd, int64_t npt, int x)
{
	int64_t		lo = 0,
				hi = npt - 1;

	while (lo < hi)
	{
		const int64_t mid = lo + (hi - lo + 1) / 2;
		const int2	m = bd(mid);

		if (m.x + m.y <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * What a thread of a merge's tile leaves: its VT outputs, whether its
 * steps saw unsorted input, and where it ended.
 */
template <typename T, int VT>
struct batch_merge_out
{
	T			r[VT];
	bool		bad;
	int			a_end,
				b_end;
};

/*
 * Thread tid of a merge's tile whose windows wa and wb hold acount and
 * count - acount elements, its npt pairs' parts starting where bd says:
 * it finds the pair its first output lies in (a search of the pairs'
 * starts) and its split there (Merge Path over the pair's parts of the
 * windows: the tile's splits are Merge Path splits of their pairs, so
 * what of a pair lies in the tile is itself a merge), writes it to start
 * (a's and b's indices; for a thread without outputs, the tile's ends),
 * then takes up to VT outputs, moving to the next pair where one ends.
 * All indices are the windows', in 32 bits.
 *
 * The check: each element a thread takes is compared with the one before
 * it unless it starts its pair, and each thread must end where the next
 * one starts (the caller's check, with a_end and b_end).
 */
template <typename T, int VT, typename Bounds>
MP_HOST_DEVICE void
batch_merge_thread(const T *wa, const T *wb, int acount, int count, int64_t npt, Bounds bd,
				   int tid, int *start, batch_merge_out<T, VT> &o)
{
	const int	bcount = count - acount;
	const int	diag = tid * VT < count ? tid * VT : count;
	const int	mine = count - diag < VT ? count - diag : VT;
	int64_t		q;
	int2		s0,
				s1;
	int			i = acount,
				j = bcount;

	q = window_pair_of(bd, npt, diag);
	s0 = bd(q);
	s1 = bd(q + 1);
	if (mine > 0)
	{
		const int	as = s0.x > 0 ? s0.x : 0,
					bs = s0.y > 0 ? s0.y : 0;
		const int	mp = merge_path_search<T>(wa + as, s1.x - as, wb + bs, s1.y - bs,
											  diag - as - bs);

		i = as + mp;
		j = diag - i;
	}
	start[0] = i;
	start[1] = j;

	bool		bad = false;

	MP_UNROLL
	for (int v = 0; v < VT; v++)
	{
		if (v >= mine)
			continue;
		while (i >= s1.x && j >= s1.y && q < npt - 1)
		{
			q++;
			s0 = s1;
			s1 = bd(q + 1);
		}

		const T		av = wa[i],
					bv = wb[j];
		const bool	take_a = i < s1.x && (j >= s1.y || !order<T>::lt(bv, av));

		if (take_a)
		{
			bad |= i > s0.x && order<T>::lt(av, wa[i - 1]);
			o.r[v] = av;
			i++;
		}
		else if (j < s1.y)
		{
			bad |= j > s0.y && order<T>::lt(bv, wb[j - 1]);
			o.r[v] = bv;
			j++;
		}
		else
		{
			bad = true;			/* nothing left where outputs remain: unsorted */
			o.r[v] = T();
		}
	}
	o.bad = bad;
	o.a_end = i;
	o.b_end = j;
}

/*
 * One tile's merge in its windows w (acount + bcount = count outputs), its
 * npt pairs' parts starting where bd says: each thread's start and steps
 * (batch_merge_thread), the check, and the outputs out.
 */
template <typename T, int NT, int VT, typename Bounds>
__device__ __forceinline__ void
batch_merge_windows(const T *wa, const T *wb, int acount, int count, int64_t npt, Bounds bd,
					T *__restrict__ out, int64_t d0, int *__restrict__ unsorted, T *s,
					int (*starts)[2])
{
	const int	tid = threadIdx.x;
	const int	bcount = count - acount;
	const int	diag = tid * VT < count ? tid * VT : count;
	const int	mine = count - diag < VT ? count - diag : VT;
	batch_merge_out<T, VT> o;

	batch_merge_thread<T, VT>(wa, wb, acount, count, npt, bd, tid, starts[tid], o);
	if (tid == 0)
	{
		starts[NT][0] = acount;
		starts[NT][1] = bcount;
	}

	__syncthreads();
	if (unsorted != nullptr &&
		(o.bad || (mine > 0 && (o.a_end != starts[tid + 1][0] || o.b_end != starts[tid + 1][1]))))
		*unsorted = 1;

	/* each warp transposes its outputs through its own part of shared
	 * memory, so that its stores are coalesced */
	const int	lane = tid % 32;
	const int	warp_base = (tid / 32) * 32 * VT;
	T		   *ws = s + warp_base;

#pragma unroll
	for (int v = 0; v < VT; v++)
		if (v < mine)
			ws[lane * VT + v] = o.r[v];
	__syncwarp();
#pragma unroll
	for (int v = 0; v < VT; v++)
	{
		const int	x = warp_base + v * 32 + lane;

		if (x < count)
			out[d0 + x] = ws[v * 32 + lane];
	}
}

/*
 * The batched merge, one tile of NV outputs a block.  The tile's two
 * splits and first pair come from the partition (its last pair is searched
 * among the few pairs between the two boundaries'); the windows of a and b
 * come to shared memory as the single merge's do (in bulk on sm_90), with
 * the starts of the tile's pairs in them where they fit
 * (BATCH_TILE_PAIRS); the tile is then merged as batch_merge_windows
 * says.  A tile whose splits go backwards raises the flag and zeroes its
 * outputs.
 */
#define BATCH_TILE_PAIRS 256

template <typename T, int NT, int VT>
__global__ void __launch_bounds__(NT)
batch_merge_tile(const T *__restrict__ a, const int64_t *__restrict__ a_off,
				 const T *__restrict__ b, const int64_t *__restrict__ b_off, int64_t npairs,
				 const int64_t *__restrict__ parts, T *__restrict__ out,
				 int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE];
	__shared__ int2 sbounds[BATCH_TILE_PAIRS + 1];
	__shared__ int starts[NT + 1][2];
	__shared__ int64_t split[2];
	__shared__ int64_t tile_pair[2];
	__shared__ uint64_t bar;
	const merged_start o = {a_off, b_off};
	const int64_t na = a_off[npairs],
				nb = b_off[npairs];
	const int64_t d0 = (int64_t) blockIdx.x * NV;
	const int64_t d1 = d0 + NV < na + nb ? d0 + NV : na + nb;
	const int	tid = threadIdx.x;

	if (tid < 2)
	{
		const int64_t *my = parts + 2 * (int64_t) blockIdx.x;

		split[tid] = my[2 * tid];
		/* the pair of d1 - 1: from d0's pair up to d1's */
		tile_pair[tid] = tid ? pair_of(o, d1 - 1, my[1], my[3]) : my[1];
	}
	__syncthreads();

	const int64_t a0 = split[0],
				a1 = split[1],
				b0 = d0 - a0,
				b1 = d1 - a1;
	const int64_t p0 = tile_pair[0],
				npt = tile_pair[1] - p0 + 1;

	if (a1 < a0 || b1 < b0)
	{
		if (unsorted != nullptr && tid == 0)
			*unsorted = 1;
		for (int64_t x = d0 + tid; x < d1; x += NT)
			out[x] = T();
		return;
	}

	const int	acount = (int) (a1 - a0),
				count = (int) (d1 - d0);
	const window_bounds_global gb = {a_off, b_off, p0, a0, b0, acount, (int) (b1 - b0)};

	if (npt < BATCH_TILE_PAIRS)
		for (int q = tid; q <= npt; q += NT)
			sbounds[q] = gb(q);

	const tile_windows<T, NV> w =
		load_tile_windows<T, NT, NV>(s, &bar, a, na, a0, acount, b, nb, b0, count - acount);

	if (npt < BATCH_TILE_PAIRS)
		batch_merge_windows<T, NT, VT>(w.a, w.b, acount, count, npt,
									   window_bounds_shared{sbounds}, out, d0, unsorted, s,
									   starts);
	else
		batch_merge_windows<T, NT, VT>(w.a, w.b, acount, count, npt, gb, out, d0, unsorted, s,
									   starts);
}

/*
 * Bounds of a key on a pair's side, for the filters and searches: how many
 * of y[0 .. n) are below x (lower) or not above it (upper), found from a
 * place at or below the answer by galloping.
 */
template <typename T, bool UPPER>
MP_HOST_DEVICE int64_t
gallop(const T *y, int64_t from, int64_t n, T x)
{
	auto		before = [x](T v) { return UPPER ? !order<T>::lt(x, v) : order<T>::lt(v, x); };
	int64_t		step = 1,
				lo = from,
				hi;

	while (lo + step <= n && before(y[lo + step - 1]))
	{
		lo += step;
		step *= 2;
	}
	hi = lo + step <= n ? lo + step : n;
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (before(y[mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

template <typename T>
MP_HOST_DEVICE int64_t
gallop_lower(const T *y, int64_t from, int64_t n, T x)
{
	return gallop<T, false>(y, from, n, x);
}

template <typename T>
MP_HOST_DEVICE int64_t
gallop_upper(const T *y, int64_t from, int64_t n, T x)
{
	return gallop<T, true>(y, from, n, x);
}

/* What a filter keeps of side x, given the other side y. */
enum batch_filter
{
	KEEP_FOUND,					/* the key is on the other side: semijoin */
	KEEP_MISSING,				/* it is not: antijoin */
	KEEP_FIRST					/* the first of its run of equal keys: unique */
};

/*
 * Walks elements [e0, e0 + n) of side x, pair by pair, calling
 * visit(e, keep) for each (keep: whether the filter keeps it) and
 * at_start(q, e) for each pair q whose side starts at e in the range
 * (empty pairs included).
 */
template <typename T, batch_filter F, typename Visit, typename AtStart>
MP_HOST_DEVICE void
filter_walk(const T *__restrict__ x, const int64_t *__restrict__ x_off,
			const T *__restrict__ y, const int64_t *__restrict__ y_off, int64_t npairs,
			int64_t e0, int n, Visit visit, AtStart at_start)
{
	const csr_start start = {x_off};
	int64_t		p = pair_of(start, e0, 0, npairs - 1);
	int64_t		q = first_pair_from(start, e0, 0, npairs);
	int64_t		x_lo = x_off[p],
				x_hi = x_off[p + 1];
	const T    *py = y ? y + y_off[p] : nullptr;
	int64_t		ny = y ? y_off[p + 1] - y_off[p] : 0;
	int64_t		lower = 0,
				upper = 0;
	bool		fresh = true;	/* no key of this pair seen yet */
	T			prev = T();

	for (int v = 0; v < n; v++)
	{
		const int64_t e = e0 + v;

		while (q <= npairs && x_off[q] == e)
			at_start(q++, e);
		while (e >= x_hi)
		{
			p++;
			x_lo = x_off[p];
			x_hi = x_off[p + 1];
			if (y)
			{
				py = y + y_off[p];
				ny = y_off[p + 1] - y_off[p];
			}
			fresh = true;
		}

		const T		key = x[e];
		bool		keep;

		if (F == KEEP_FIRST)
			keep = e == x_lo || order<T>::lt(x[e - 1], key);
		else
		{
			if (fresh || order<T>::lt(prev, key) || order<T>::lt(key, prev))
			{
				/* a new key: its range on the other side, galloped to from
				 * the last key's unless this is the pair's first (or the
				 * input is unsorted) */
				lower = gallop_lower(py, fresh || order<T>::lt(key, prev) ? 0 : upper, ny, key);
				upper = gallop_upper(py, lower, ny, key);
				fresh = false;
			}
			prev = key;
			keep = F == KEEP_FOUND ? upper > lower : upper == lower;
		}
		visit(e, keep);
	}
	/* pairs that start where the range ends belong to the next range, or
	 * (at the end of the side) to the caller */
}

/*
 * Thread tid of block's elements of a filter's, a search's or the check's
 * tile: [*e0, *e0 + n), n returned (0 past the end of the total).
 */
template <int NT, int VT>
MP_HOST_DEVICE int
thread_elements(int64_t block, int tid, int64_t total, int64_t *e0)
{
	*e0 = block * NT * VT + (int64_t) tid * VT;
	return *e0 < total ? (total - *e0 < VT ? (int) (total - *e0) : VT) : 0;
}

/* How many of elements [e0, e0 + n) of side x the filter keeps. */
template <typename T, batch_filter F>
MP_HOST_DEVICE int
thread_kept(const T *__restrict__ x, const int64_t *__restrict__ x_off,
			const T *__restrict__ y, const int64_t *__restrict__ y_off, int64_t npairs,
			int64_t e0, int n)
{
	int			kept = 0;

	if (n > 0)
		filter_walk<T, F>(x, x_off, y, y_off, npairs, e0, n,
						  [&](int64_t, bool keep) { kept += keep; }, [](int64_t, int64_t) {});
	return kept;
}

/* Pass 1: each tile's count of kept elements. */
template <typename T, batch_filter F, int NT, int VT>
__global__ void __launch_bounds__(NT)
batch_filter_count(const T *__restrict__ x, const int64_t *__restrict__ x_off,
				   const T *__restrict__ y, const int64_t *__restrict__ y_off, int64_t npairs,
				   int64_t *__restrict__ tile_counts)
{
	__shared__ int warp_sums[NT / 32];
	int64_t		e0;
	const int	n = thread_elements<NT, VT>(blockIdx.x, threadIdx.x, x_off[npairs], &e0);
	int			kept = thread_kept<T, F>(x, x_off, y, y_off, npairs, e0, n);

	for (int d = 16; d > 0; d /= 2)
		kept += __shfl_down_sync(0xffffffff, kept, d);
	if (threadIdx.x % 32 == 0)
		warp_sums[threadIdx.x / 32] = kept;
	__syncthreads();
	if (threadIdx.x == 0)
	{
		int			sum = 0;

		for (int w = 0; w < NT / 32; w++)
			sum += warp_sums[w];
		tile_counts[blockIdx.x] = sum;
	}
}

/*
 * Pass 3: the kept elements into out from tile_base[tile] on (the
 * exclusive scan of the counts), and out_off[q] for each pair q whose side
 * starts in the tile.
 */
template <typename T, batch_filter F, int NT, int VT>
__global__ void __launch_bounds__(NT)
batch_filter_write(const T *__restrict__ x, const int64_t *__restrict__ x_off,
				   const T *__restrict__ y, const int64_t *__restrict__ y_off, int64_t npairs,
				   const int64_t *__restrict__ tile_base, T *__restrict__ out,
				   int64_t *__restrict__ out_off)
{
	__shared__ int scan[NT];
	int64_t		e0;
	const int	n = thread_elements<NT, VT>(blockIdx.x, threadIdx.x, x_off[npairs], &e0);
	const int	kept = thread_kept<T, F>(x, x_off, y, y_off, npairs, e0, n);

	/* the block's exclusive scan of the threads' counts */
	scan[threadIdx.x] = kept;
	__syncthreads();
	for (int d = 1; d < NT; d *= 2)
	{
		int			v = threadIdx.x >= d ? scan[threadIdx.x - d] : 0;

		__syncthreads();
		scan[threadIdx.x] += v;
		__syncthreads();
	}

	int64_t		at = tile_base[blockIdx.x] + scan[threadIdx.x] - kept;

	if (n > 0)
		filter_walk<T, F>(x, x_off, y, y_off, npairs, e0, n,
						  [&](int64_t e, bool keep) {
							  if (keep)
								  out[at++] = x[e];
						  },
						  [&](int64_t q, int64_t) { out_off[q] = at; });
}

/*
 * The searches: for each needle of pair p (b), its lower bound, upper
 * bound or count in the pair's haystack (a), into out at the needle's own
 * place: needles [e0, e0 + n), one thread's.
 */
template <typename T>
MP_HOST_DEVICE void
search_thread(const T *__restrict__ hay, const int64_t *__restrict__ hay_off,
			  const T *__restrict__ needles, const int64_t *__restrict__ needle_off,
			  int64_t npairs, mp_search kind, int32_t *__restrict__ out, int64_t e0, int n)
{
	if (n <= 0)
		return;

	const csr_start start = {needle_off};
	int64_t		p = pair_of(start, e0, 0, npairs - 1);
	int64_t		n_hi = needle_off[p + 1];
	const T    *h = hay + hay_off[p];
	int64_t		nh = hay_off[p + 1] - hay_off[p];
	int64_t		lower = 0,
				upper = 0;
	bool		fresh = true;
	T			prev = T();

	for (int64_t e = e0; e < e0 + n; e++)
	{
		while (e >= n_hi)
		{
			p++;
			n_hi = needle_off[p + 1];
			h = hay + hay_off[p];
			nh = hay_off[p + 1] - hay_off[p];
			fresh = true;
		}

		const T		key = needles[e];

		if (fresh || order<T>::lt(prev, key) || order<T>::lt(key, prev))
		{
			lower = gallop_lower(h, fresh || order<T>::lt(key, prev) ? 0 : upper, nh, key);
			upper = gallop_upper(h, lower, nh, key);
			fresh = false;
		}
		prev = key;
		out[e] = (int32_t) (kind == MP_LOWER_BOUND ? lower
							: kind == MP_UPPER_BOUND ? upper : upper - lower);
	}
}

template <typename T, int NT, int VT>
__global__ void __launch_bounds__(NT)
batch_search_tile(const T *__restrict__ hay, const int64_t *__restrict__ hay_off,
				  const T *__restrict__ needles, const int64_t *__restrict__ needle_off,
				  int64_t npairs, mp_search kind, int32_t *__restrict__ out)
{
	int64_t		e0;
	const int	n = thread_elements<NT, VT>(blockIdx.x, threadIdx.x, needle_off[npairs], &e0);

	search_thread<T>(hay, hay_off, needles, needle_off, npairs, kind, out, e0, n);
}

/*
 * Whether an element of x among [e0, e0 + n) is below the one before it in
 * its pair.
 */
template <typename T>
MP_HOST_DEVICE bool
check_thread(const T *__restrict__ x, const int64_t *__restrict__ x_off, int64_t npairs,
			 int64_t e0, int n)
{
	if (n <= 0)
		return false;

	const csr_start start = {x_off};
	int64_t		p = pair_of(start, e0, 0, npairs - 1);
	int64_t		lo = x_off[p],
				hi = x_off[p + 1];
	bool		bad = false;

	for (int64_t e = e0; e < e0 + n; e++)
	{
		while (e >= hi)
		{
			p++;
			lo = x_off[p];
			hi = x_off[p + 1];
		}
		bad |= e > lo && order<T>::lt(x[e], x[e - 1]);
	}
	return bad;
}

/* Raises *unsorted when check_thread finds a thread's elements unsorted:
 * a thread for VT consecutive elements. */
template <typename T, int NT, int VT>
__global__ void __launch_bounds__(NT)
batch_check(const T *__restrict__ x, const int64_t *__restrict__ x_off, int64_t npairs,
			int *__restrict__ unsorted)
{
	int64_t		e0;
	const int	n = thread_elements<NT, VT>(blockIdx.x, threadIdx.x, x_off[npairs], &e0);

	if (check_thread<T>(x, x_off, npairs, e0, n))
		*unsorted = 1;
}

/* Folds floats into their order's unsigned keys, for the segmented sort. */
template <typename T>
__global__ void
batch_fold_keys(const T *__restrict__ x, int64_t n,
				typename order<T>::key_type *__restrict__ keys)
{
	for (int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; e < n;
		 e += (int64_t) gridDim.x * blockDim.x)
		keys[e] = order<T>::key(x[e]);
}

/* Pairs whose side starts at its end (empty ones there): their outputs
 * start where the filter's end, *kept. */
static __global__ void
batch_filter_tail(const int64_t *__restrict__ x_off, int64_t npairs,
				  const int64_t *__restrict__ kept, int64_t *__restrict__ out_off)
{
	const int64_t total = x_off[npairs];

	for (int64_t q = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; q <= npairs;
		 q += (int64_t) gridDim.x * blockDim.x)
		if (x_off[q] == total)
			out_off[q] = *kept;
}

}								/* namespace mp */

#endif							/* MP_BATCH_TILE_CUH */
