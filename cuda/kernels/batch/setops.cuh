/*
 * setops.cuh (batch)
 *		The set operations of many pairs in one pass: Balanced Path over
 *		the concatenated inputs of all pairs, tiles chained by decoupled
 *		look-back, as the single set operation (setops/tile.cuh) runs them.
 *
 * Pair p's inputs take places a_off[p] + b_off[p] .. a_off[p + 1] +
 * b_off[p + 1] of the pairs' concatenated balanced orders, so a tile of NV
 * places holds one window of a and one of b, whatever pairs it spans.  A
 * pair's start is a split of the balanced order that no copy straddles; the
 * partition finds each tile boundary's pair (a binary search of the pairs'
 * starts), then its Merge Path split in the pair, balanced (with a star
 * when B's next element is the partner of A's last copy in front), and the
 * pair of the place before the boundary (the tile before's last).
 *
 * In the tile, each thread finds its pair and start as the partition did,
 * over the windows in shared memory (the pair's part of them: a pair that
 * starts in the tile starts there balanced, and the tile's first pair
 * starts balanced at the tile's split), then takes VT elements in the
 * balanced order, moving to the next pair when one is done, keeping or
 * dropping each as the single set operation's steps do.  A block scan of
 * the kept counts, chained to the tiles before, places every result in
 * the dense output.  Each pair's first output place is written by the
 * thread whose places hold the pair's start, counted from the tile's
 * first result (the results its steps kept in front of it, after its own
 * first); a pass over the pairs after the tiles (batch_setop_tail) adds
 * the results of the tiles before, which the chain then holds, and gives
 * pairs that start at the very end the output's length.
 *
 * On sm_90 the tiles run pipelined, as the single set operation's do
 * (batch_setop_pipelined): resident blocks whose feeding warp copies each
 * tile's windows in bulk and puts its pairs' starts beside them, stages
 * ahead, then looks back and writes the results out, so that the
 * computing threads wait on neither.
 *
 * The check for unsorted input rides on the steps: each element taken is
 * compared with the one before it on its side unless it starts its pair,
 * and each thread must end where the next one starts (the last where the
 * tile ends), so that every element is taken once and compared once.
 * Splits that go backwards make the tile empty and raise the flag.  On
 * unsorted input every tile still joins the chain and every write stays
 * within the output's capacity.
 */
#ifndef MP_BATCH_SETOPS_CUH
#define MP_BATCH_SETOPS_CUH

#include <cstdint>
#include <cuda_runtime.h>

#include "tile.cuh"
#include "../primitives/balanced_path.cuh"
#include "../setops/tile.cuh"

namespace mp
{

/*
 * Boundary d of the places (a tile's start, or the end): the pair p that
 * holds it, and 2 * (a's balanced split there, an index into a) + star:
 * the merge's split (batch_merge_split), balanced.
 */
template <typename T>
MP_HOST_DEVICE void
batch_setop_split(const T *a, const int64_t *a_off, const T *b, const int64_t *b_off,
				  int64_t npairs, int64_t d, int64_t *split, int64_t *pair)
{
	int64_t		i,
				p;
	bool		star;

	batch_merge_split<T>(a, a_off, b, b_off, npairs, d, &i, &p);

	const int64_t nb = b_off[p + 1] - b_off[p];

	i = balanced_path<T>(a + a_off[p], b + b_off[p], nb, d - a_off[p] - b_off[p], i - a_off[p],
						 &star);
	*split = 2 * (a_off[p] + i) + star;
	*pair = p;
}

/*
 * Boundary d of the places, as the tiles read it (BATCH_SETOP_PART words
 * at w): the split and the pair there (batch_setop_split), and the pair
 * that holds place d - 1 (0 for d = 0): the pair of d itself, unless that
 * pair starts at d, when it is the last pair that starts before d.
 */
#define BATCH_SETOP_PART 3

template <typename T>
MP_HOST_DEVICE void
batch_setop_boundary(const T *a, const int64_t *a_off, const T *b, const int64_t *b_off,
					 int64_t npairs, int64_t d, int64_t *w)
{
	const merged_start o = {a_off, b_off};

	batch_setop_split<T>(a, a_off, b, b_off, npairs, d, &w[0], &w[1]);
	w[2] = d == 0 || o(w[1]) < d ? w[1] : pair_of(o, d - 1, 0, w[1] - 1);
}

/*
 * Tile boundaries: parts[BATCH_SETOP_PART * t ..] for the place t * NV
 * (the last at the end of the places), as batch_setop_boundary gives
 * them.  The same threads clear the tiles' chain words and the tiles'
 * counter.
 */
template <typename T, int NT, int VT>
__global__ void __launch_bounds__(128)
batch_setop_partition(const T *__restrict__ a, const int64_t *__restrict__ a_off,
					  const T *__restrict__ b, const int64_t *__restrict__ b_off,
					  int64_t npairs, int64_t *__restrict__ parts, int64_t nparts,
					  setop_chain chain, int *__restrict__ next_tile)
{
	constexpr int64_t NV = (int64_t) NT * VT;
	const int64_t t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	grid_dependents_launch();
	if (t >= nparts)
		return;
	if (t < nparts - 1)
		chain.clear(t);
	if (t == 0 && next_tile != nullptr)
		*next_tile = 0;

	const int64_t total = a_off[npairs] + b_off[npairs];

	batch_setop_boundary<T>(a, a_off, b, b_off, npairs, t * NV < total ? t * NV : total,
							&parts[BATCH_SETOP_PART * t]);
}

/*
 * A tile's span: places [d0, d1) of the balanced order, a's [a0, a0 +
 * acount), b's [b0, b0 + bcount), pairs p0 .. p0 + npt - 1, star0 when
 * b's first is the partner of the tile before's last a copy.  Splits that
 * go backwards or out of the inputs (unsorted input) make it empty and
 * broken.  split0 and split1: the partition's splits at d0 and d1; p_last:
 * the pair of d1 - 1.
 */
struct batch_span
{
	int64_t		a0,
				b0,
				p0,
				npt;
	int			acount,
				bcount,
				star0;
	bool		broken;
};

MP_HOST_DEVICE batch_span
batch_span_of(int64_t split0, int64_t split1, int64_t d0, int64_t d1, int64_t p0,
			  int64_t p_last, int64_t na_all, int64_t nb_all)
{
	const int64_t a1 = split1 >> 1,
				b1 = d1 - a1;
	batch_span	sp;

	sp.a0 = split0 >> 1;
	sp.b0 = d0 - sp.a0;
	sp.p0 = p0;
	sp.npt = p_last - p0 + 1;
	sp.star0 = (int) (split0 & 1);
	sp.broken = a1 < sp.a0 || b1 < sp.b0 || a1 > na_all || b1 > nb_all || sp.b0 < 0 ||
		(sp.star0 && b1 == sp.b0);
	sp.acount = sp.broken ? 0 : (int) (a1 - sp.a0);
	sp.bcount = sp.broken ? 0 : (int) (b1 - sp.b0);
	return sp;
}

/*
 * What a thread of the tile leaves: its VT values in the balanced order
 * and the bitmask of the kept ones, whether its steps saw unsorted input,
 * where it ended, and the tile's pair of its first place.
 */
template <typename T, int VT>
struct batch_steps_out
{
	typedef typename setop_steps_out<T, VT>::mask_t mask_t;

	T			r[VT];
	mask_t		kept;
	bool		bad;
	int			a_end,
				b_end;
	int64_t		q_first;
};

/*
 * Thread tid of a tile whose windows wa and wb hold acount and bcount
 * elements (each with the element before it and the one after), its npt
 * pairs' parts starting where bd says.  Its start: thread 0 starts where
 * the tile does; the others find their pair (a search of the pairs'
 * starts) and their split in it (Merge Path, then balanced, over the
 * pair's part of the windows: a pair that starts in the tile starts there
 * balanced, and the tile's first pair starts balanced at the tile's
 * split), which it writes to start (a and b's indices; for a thread
 * without places, the tile's ends, where the one before ends).  Then up
 * to VT steps in the balanced order, one element a step, moving to the
 * next pair where both sides of one are done, keeping or dropping each
 * element as the single set operation's steps do.  The next element of
 * each side waits in a register, and each step loads only the one of the
 * side it took (the element after a window is there, and on unsorted
 * input the index stops at it).
 *
 * The check rides on the steps: within a pair the elements taken must
 * not go down, starting from the larger of the elements in front of the
 * start that belong to its pair; and each thread must end where the next
 * one starts (the caller's check, with a_end and b_end).
 */
template <typename T, int VT, mp_setop OP, typename Bounds>
MP_HOST_DEVICE void
batch_setop_thread(const T *wa, const T *wb, int acount, int bcount, int star0, Bounds bd,
				   int64_t npt, int tid, int *start, batch_steps_out<T, VT> &o)
{
	typedef setop_keeps<OP> keeps;
	typedef typename batch_steps_out<T, VT>::mask_t mask_t;
	const int	count = acount + bcount;
	const int	dt = tid * VT;
	const int	mine = dt < count ? (count - dt < VT ? count - dt : VT) : 0;
	int64_t		q = 0;
	int			i = 0,
				j = 0;
	bool		pending = star0;

	if (mine > 0 && tid > 0)
	{
		q = window_pair_of(bd, npt, dt);

		const int2	c0 = bd(q),
					c1 = bd(q + 1);
		const int	wa0 = c0.x > 0 ? c0.x : 0,
					wb0 = c0.y > star0 ? c0.y : star0,
					wa1 = c1.x < acount ? c1.x : acount,
					wb1 = c1.y < bcount ? c1.y : bcount;
		const int	acn = wa1 > wa0 ? wa1 - wa0 : 0,
					bcn = wb1 > wb0 ? wb1 - wb0 : 0;
		int			diag = dt - wa0 - wb0;

		diag = diag < 0 ? 0 : diag > acn + bcn ? acn + bcn : diag;

		const int	mp = merge_path_between<T>(wa + wa0, wb + wb0, diag,
											   diag > bcn ? diag - bcn : 0,
											   diag < acn ? diag : acn);
		const int	split = balanced_path<T>(wa + wa0, wb + wb0, bcn, diag, mp, &pending);

		i = wa0 + split;
		j = wb0 + diag - split;
	}
	start[0] = mine > 0 ? i : acount;
	start[1] = mine > 0 ? j : bcount;
	o.q_first = q;

	int2		c0 = bd(q),
				c1 = bd(q + 1);
	T			x = wa[i < acount ? i : acount],
				y = wb[j < bcount ? j : bcount],
				prev = T();
	bool		started = false,
				bad = false;
	mask_t		kept = 0;

	if (mine > 0 && i > c0.x)
	{
		prev = wa[i - 1];
		started = true;
	}
	if (mine > 0 && j > c0.y)
	{
		const T		before = wb[j - 1];

		prev = !started || order<T>::lt(prev, before) ? before : prev;
		started = true;
	}

	MP_UNROLL
	for (int v = 0; v < VT; v++)
	{
		if (v >= mine)
			continue;
		while (i >= c1.x && j >= c1.y && q < npt - 1)
		{
			q++;
			c1 = bd(q + 1);
			started = false;
		}

		const bool	has_a = i < c1.x,
					has_b = j < c1.y;
		const bool	take_a = has_a && !pending && (!has_b || !order<T>::lt(y, x));
		const bool	take_b = !take_a && has_b;
		const bool	paired = take_a && has_b && !order<T>::lt(x, y);
		const T		val = take_a ? x : y;

		/* places left and nothing to take, or a key below the one before:
		 * unsorted */
		bad |= !take_b && !take_a;
		bad |= started && order<T>::lt(val, prev);
		prev = val;
		started = true;
		o.r[v] = val;
		kept |= (mask_t) (take_a ? (paired ? keeps::PAIR : keeps::A) :
						  take_b && !pending && keeps::B) << v;
		pending = paired;
		i += take_a;
		j += take_b;

		const T		z = take_a ? wa[i < acount ? i : acount] : wb[j < bcount ? j : bcount];

		x = take_a ? z : x;
		y = take_a ? y : z;
	}
	o.kept = kept;
	o.bad = bad;
	o.a_end = i;
	o.b_end = j;
}

/*
 * The first output places of the pairs whose first place is among thread
 * tid's (pair p0 + k starts at the tile's place c.x + c.y of bd(k), for
 * k >= 1; p0 and the empty pairs before it that start with it, at their
 * offsets; pairs after the tile's last start after the tile): put(pair,
 * place), where place counts from the tile's first result (its rank: the
 * kept results of the threads before it).
 */
template <typename T, int VT, typename Bounds, typename Put>
MP_HOST_DEVICE void
batch_setop_first_places(const batch_steps_out<T, VT> &o, int tid, int count, int64_t d0,
						 int64_t p0, int64_t npt, int64_t npairs, merged_start off, Bounds bd,
						 int rank, Put put)
{
	typedef typename batch_steps_out<T, VT>::mask_t mask_t;
	const int	dt = tid * VT;
	const int	mine = dt < count ? (count - dt < VT ? count - dt : VT) : 0;

	if (mine <= 0)
		return;

	auto		start_at = [&](int64_t pq) -> int64_t {
		const int64_t k = pq - p0;

		if (k <= 0)
			return off(pq) - d0;
		if (k >= npt)
			return INT64_MAX;

		const int2	c = bd(k);

		return c.x + c.y;
	};
	const int64_t p_first = p0 + o.q_first;
	int64_t		pq = p_first + 1;

	/* empty pairs that start where p_first does come before it: found by
	 * galloping back from it (one read where there are none) */
	if (start_at(p_first) == dt)
	{
		int64_t		hi = p_first,
					step = 1;

		while (hi - step >= 0 && start_at(hi - step) == dt)
		{
			hi -= step;
			step *= 2;
		}
		pq = first_pair_from(start_at, (int64_t) dt, hi - step < 0 ? 0 : hi - step, hi);
	}

	for (; pq < npairs; pq++)
	{
		const int64_t at = start_at(pq) - dt;

		if (at >= mine)
			break;

		const mask_t below = o.kept & (((mask_t) 1 << at) - 1);

		put(pq, rank + popc(below));
	}
}

/*
 * Tile tile's span (batch_span_of), from the partition's words at its two
 * boundaries: the splits, the pair of its first place and the pair of its
 * last (the pair of place d1 - 1, from the boundary at d1).
 */
MP_HOST_DEVICE batch_span
batch_setop_span(const int64_t *parts, int64_t tile, int64_t nv, int64_t na_all,
				 int64_t nb_all)
{
	const int64_t *my = parts + BATCH_SETOP_PART * tile;
	const int64_t d0 = tile * nv;
	const int64_t d1 = d0 + nv < na_all + nb_all ? d0 + nv : na_all + nb_all;

	return batch_span_of(my[0], my[BATCH_SETOP_PART], d0, d1, my[1], my[BATCH_SETOP_PART + 2],
						 na_all, nb_all);
}

/*
 * The tile's pairs' first places go out counted from the tile's first
 * result (batch_setop_first_places); batch_setop_tail adds the results of
 * the tiles before, once the chain holds them all.
 */
struct batch_put_in_tile
{
	int64_t    *out_off;

	MP_HOST_DEVICE void operator()(int64_t pq, int64_t at) const { out_off[pq] = at; }
};

/*
 * Pair q's first output place, from what its tile put (at, counted from
 * the tile's first result) and the results of the tiles before (before):
 * a pair that starts at the end of the places starts at the output's
 * length; no place goes past the output's capacity.
 */
MP_HOST_DEVICE int64_t
batch_setop_first_place(int64_t start, int64_t total, int64_t at, int64_t before,
						int64_t length, int64_t capacity)
{
	const int64_t place = start == total ? length : before + at;

	return place < capacity ? place : capacity;
}

/*
 * The steps of one tile in shared memory by its NT computing threads:
 * windows wa and wb of span sp with the pairs' starts in sbounds (where
 * they fit), each thread's start and steps (batch_setop_thread), the
 * block's scan (named barrier ID, 0 for the whole block), the count on the
 * chain, the check, the kept results compacted into res (which may be the
 * windows: the scan's barrier comes after every thread's steps) and the
 * pairs' first places, counted from the tile's first result.  Returns the
 * tile's count of results.
 */
template <typename T, int NT, int VT, int ID, mp_setop OP>
__device__ __forceinline__ int
batch_setop_tile_steps(const T *wa, const T *wb, const batch_span &sp, const int2 *sbounds,
					   int tile, int64_t d0, const int64_t *__restrict__ a_off,
					   const int64_t *__restrict__ b_off, int64_t npairs, int (*starts)[2],
					   int *sums, setop_chain chain, T *res, int64_t *__restrict__ out_off,
					   int *__restrict__ unsorted)
{
	const int	tid = threadIdx.x;
	const window_bounds bd = {sbounds, sp.npt < BATCH_TILE_PAIRS,
							  {a_off, b_off, sp.p0, sp.a0, sp.b0, sp.acount, sp.bcount + 1}};
	const int	count = sp.acount + sp.bcount;
	batch_steps_out<T, VT> st;
	int			tile_count;

	batch_setop_thread<T, VT, OP>(wa, wb, sp.acount, sp.bcount, sp.star0, bd, sp.npt, tid,
								  starts[tid], st);
	if (tid == 0)
	{
		starts[NT][0] = sp.acount;
		starts[NT][1] = sp.bcount;
	}

	const int	rank = setop_scan<NT, ID>(popc(st.kept), &tile_count, sums);

	if (tid == 0)
		chain.publish(tile, tile == 0 ? setop_chain::INCLUSIVE : setop_chain::AGGREGATE,
					  tile_count);
	if ((sp.broken || st.bad ||
		 (tid * VT < count && (st.a_end != starts[tid + 1][0] || st.b_end != starts[tid + 1][1]))) &&
		unsorted != nullptr)
		*unsorted = 1;
	{
		int			at = rank;

#pragma unroll
		for (int v = 0; v < VT; v++)
			if (st.kept & ((decltype(st.kept)) 1 << v))
				res[at++] = st.r[v];
	}
	batch_setop_first_places<T, VT>(st, tid, count, d0, sp.p0, sp.npt, npairs,
									merged_start{a_off, b_off}, bd, rank,
									batch_put_in_tile{out_off});
	return tile_count;
}

/*
 * One tile a block (where there are no bulk copies): windows, steps
 * (batch_setop_tile_steps), then warp 0 looks back and the block writes
 * the results out.  A block takes the next tile from a counter, so that
 * every tile it looks back at belongs to a block that has started: the
 * chain never waits on a block that is not running.  The windows come in
 * as the single merge's do, and where the tile's pairs fit
 * (BATCH_TILE_PAIRS) their starts in the windows go to shared memory
 * beside them; from there on, indices are the windows', in 32 bits.
 */
template <typename T, int NT, int VT, mp_setop OP>
__global__ void __launch_bounds__(NT, batch_setop_shape<T>::MIN_BLOCKS)
batch_setop_tile(const T *__restrict__ a, const int64_t *__restrict__ a_off,
				 const T *__restrict__ b, const int64_t *__restrict__ b_off, int64_t npairs,
				 const int64_t *__restrict__ parts, T *__restrict__ out, int64_t capacity,
				 int64_t *__restrict__ out_off, setop_chain chain, int *__restrict__ next_tile,
				 int64_t *__restrict__ length, int *__restrict__ unsorted)
{
	constexpr int NV = NT * VT;

	/* the windows, each with the element before it and the one after;
	 * later the tile's results */
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE];
	__shared__ int2 sbounds[BATCH_TILE_PAIRS + 1];
	__shared__ int starts[NT + 1][2];
	__shared__ int sums[NT / 32];
	__shared__ int64_t tile_start_shared;
	__shared__ int tile_shared;
	__shared__ uint64_t bar;

	if (threadIdx.x == 0)
		tile_shared = atomicAdd(next_tile, 1);
	__syncthreads();

	const int64_t na_all = a_off[npairs],
				nb_all = b_off[npairs];
	const int	tile = tile_shared;
	const int64_t d0 = (int64_t) tile * NV;
	const int	tid = threadIdx.x;
	const batch_span sp = batch_setop_span(parts, tile, NV, na_all, nb_all);

	/*
	 * The pairs' parts in the windows: b's may reach the element after its
	 * window, which may be the partner of a's last copy in it.
	 */
	if (sp.npt < BATCH_TILE_PAIRS)
	{
		const window_bounds_global g = {a_off, b_off, sp.p0, sp.a0, sp.b0, sp.acount,
										sp.bcount + 1};

		for (int q = tid; q <= sp.npt; q += NT)
			sbounds[q] = g(q);
	}

	const tile_windows<T, NV> w = load_tile_windows<T, NT, NV>(s, &bar, a, na_all, sp.a0,
															   sp.acount, b, nb_all, sp.b0,
															   sp.bcount);
	const int	tile_count = batch_setop_tile_steps<T, NT, VT, 0, OP>(w.a, w.b, sp, sbounds,
																	  tile, d0, a_off, b_off,
																	  npairs, starts, sums, chain,
																	  s, out_off, unsorted);

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

	for (int x = tid; x < tile_count; x += NT)
		if (tile_start + x < capacity)
			out[tile_start + x] = s[x];
	if (tile == (int) gridDim.x - 1 && tid == 0)
		*length = tile_start + tile_count < capacity ? tile_start + tile_count : capacity;
}

/*
 * The pipelined form, on sm_90, as setop_pipelined (setops/tile.cuh) runs
 * the single set operation: resident blocks of NT computing threads and a
 * warp that feeds them, a block's j-th tile tile j * gridDim.x +
 * blockIdx.x.  The feeding warp puts each tile's span and its pairs'
 * starts in a stage and copies its windows there in bulk, ahead of the
 * others; once they have compacted the oldest tile's results in its stage
 * (batch_setop_tile_steps), it looks back at the tiles before, writes the
 * results out and refills the stage.
 */
struct batch_setop_stage
{
	batch_span	sp;
	int			tile;			/* -1: no more */
	int			a_at,			/* the windows in the stage's buffer */
				b_at;
	int			tile_count;		/* from the computing threads */
};

template <typename T, int NT, int VT, int STAGES, int BLOCKS, mp_setop OP>
__global__ void __launch_bounds__(NT + 32, BLOCKS)
batch_setop_pipelined(const T *__restrict__ a, const int64_t *__restrict__ a_off,
					  const T *__restrict__ b, const int64_t *__restrict__ b_off, int64_t npairs,
					  const int64_t *__restrict__ parts, T *__restrict__ out, int64_t capacity,
					  int64_t *__restrict__ out_off, setop_chain chain, int tiles,
					  int64_t *__restrict__ length, int *__restrict__ unsorted)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	constexpr int NV = NT * VT;
	constexpr int BUF = setop_stage_elems<T, NT, VT>();
	typedef tile_windows<T, NV> windows;

	extern __shared__ __align__(16) unsigned char dynamic_shared[];
	T		   *const s = (T *) dynamic_shared;
	__shared__ int2 sbounds[STAGES][BATCH_TILE_PAIRS + 1];
	__shared__ int starts[STAGES][NT + 1][2];
	__shared__ int sums[STAGES][NT / 32];
	__shared__ batch_setop_stage stage[STAGES];
	__shared__ uint64_t full[STAGES],
				done[STAGES];

	const int	tid = threadIdx.x;
	const int	lane = tid % 32;

	if (tid == 0)
		stage_barriers_init<STAGES, NT>(full, done);
	__syncthreads();
	grid_dependency_wait();

	const int64_t na_all = a_off[npairs],
				nb_all = b_off[npairs];

	if (tid >= NT)
	{
		/*
		 * The feeding warp.  tile_of: the block's j-th tile, or -1 past the
		 * last.  fill: tile's span, its pairs' starts and its windows into
		 * stage k (with tile -1, the stage says there are no more).
		 */
		auto		tile_of = [&](int j) -> int {
			const int64_t t = (int64_t) j * gridDim.x + blockIdx.x;

			return t < tiles ? (int) t : -1;
		};
		auto		fill = [&](int k, int tile) {
			if (tile < 0)
			{
				if (lane == 0)
					stage[k].tile = -1;
				cuda::ptx::mbarrier_arrive(&full[k]);
				return;
			}

			const batch_span sp = batch_setop_span(parts, tile, NV, na_all, nb_all);
			const int	a_at = windows::place(windows::E, a, sp.a0);
			const int	b_at = windows::place(a_at + sp.acount + 2 * windows::E, b, sp.b0);

			if (sp.npt < BATCH_TILE_PAIRS)
			{
				const window_bounds_global g = {a_off, b_off, sp.p0, sp.a0, sp.b0, sp.acount,
												sp.bcount + 1};

				for (int q = lane; q <= sp.npt; q += 32)
					sbounds[k][q] = g(q);
			}
			if (sp.broken && lane == 0 && unsorted != nullptr)
				*unsorted = 1;
			__syncwarp();
			if (lane == 0)
			{
				stage[k].sp = sp;
				stage[k].tile = tile;
				stage[k].a_at = a_at;
				stage[k].b_at = b_at;
				cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
			}
			stage_fill_windows<T, NV>(s + k * BUF, a, na_all, sp.a0, sp.acount, a_at, b, nb_all,
									  sp.b0, sp.bcount, b_at, lane, &full[k]);
		};

#pragma unroll
		for (int j = 0; j < STAGES; j++)
			fill(j, tile_of(j));
		stage_ring<STAGES> r;

		for (int j = 0;; j++, r.next())
		{
			const int	tile = tile_of(j);

			if (tile < 0)
				break;
			r.wait(done);
			stage_finish_tile<T>(chain, tile, tiles, &stage[r.k].tile_count, s + r.k * BUF, out,
								 capacity, length, lane);
			__syncwarp();
			fill(r.k, tile_of(j + STAGES));
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
			const batch_span sp = stage[k].sp;
			const int	tile_count =
				batch_setop_tile_steps<T, NT, VT, 1, OP>(buf + stage[k].a_at, buf + stage[k].b_at,
														 sp, sbounds[k], tile,
														 (int64_t) tile * NV, a_off, b_off,
														 npairs, starts[k], sums[k], chain, buf,
														 out_off, unsorted);

			if (tid == 0)
				stage[k].tile_count = tile_count;
			cuda::ptx::mbarrier_arrive(&done[k]);
		}
	}
#endif
}

/*
 * Every pair's first output place (batch_setop_first_place): the tiles put
 * them counted from their first result, and the chain now holds every
 * tile's inclusive count.  Pairs that start at the end of the places (empty
 * ones there, and the end itself) start at the output's length.
 */
static __global__ void
batch_setop_tail(const int64_t *__restrict__ a_off, const int64_t *__restrict__ b_off,
				 int64_t npairs, int64_t nv, setop_chain chain, const int64_t *__restrict__ length,
				 int64_t capacity, int64_t *__restrict__ out_off)
{
	const int64_t total = a_off[npairs] + b_off[npairs];

	for (int64_t q = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; q <= npairs;
		 q += (int64_t) gridDim.x * blockDim.x)
	{
		const int64_t start = a_off[q] + b_off[q];
		const int64_t tile = start / nv;
		const int64_t before = start == total || tile == 0 ? 0 :
			(int64_t) (unsigned) chain.peek((int) tile - 1);

		out_off[q] = batch_setop_first_place(start, total, start == total ? 0 : out_off[q], before,
											 *length, capacity);
	}
}

}								/* namespace mp */

#endif							/* MP_BATCH_SETOPS_CUH */
