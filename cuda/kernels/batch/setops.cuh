/*
 * setops.cuh (batch)
 *		The set operations of many pairs in one pass: Balanced Path over
 *		the concatenated inputs of all pairs, tiles chained by decoupled
 *		look-back, as the single set operation (setops/tile.cuh) runs them.
 *
 * Every pair starts a thread of its own.  The places of the pairs' balanced
 * orders are dealt out in slots of VT, a slot a thread: pair p takes slots
 * batch_slot(p) .. batch_slot(p + 1) - 1, at least one, and the last ones
 * may be left over (a thread with fewer places than VT, or none).  So no
 * thread's places cross from a pair into the next: its steps need no pair
 * switch, and the thread of a pair's first slot is the one that knows
 * where the pair's results start.  A tile is NT slots; what of the pairs'
 * inputs they hold is one window of a and one of b, whatever pairs they
 * span, at most NV elements.  The partition finds each tile boundary's pair
 * (a binary search of the pairs' first slots, which depend on the offsets
 * alone), then its Merge Path split in the pair, balanced (with a star when
 * B's next element is the partner of A's last copy in front).
 *
 * In the tile, each thread finds its pair among the tile's (a table of
 * their first slots and their starts in the windows, beside the windows in
 * shared memory), its split in it (Merge Path, then balanced, over the
 * pair's part of the windows), and takes up to VT elements in the balanced
 * order, keeping or dropping each as the single set operation's steps do.
 * A block scan of the kept counts, chained to the tiles before, places
 * every result in the dense output.  The thread of a pair's first slot
 * writes the pair's first output place, counted from the tile's first
 * result; a pass over the pairs after the tiles (batch_setop_tail) adds the
 * results of the tiles before, which the chain then holds, and gives pairs
 * that start at the very end the output's length.
 *
 * On sm_90 the tiles run pipelined, as the single set operation's do
 * (batch_setop_pipelined): resident blocks whose feeding warp copies each
 * tile's windows in bulk and puts its pairs' table beside them, stages
 * ahead, then looks back and writes the results out, so that the computing
 * threads wait on neither.
 *
 * The check for unsorted input rides on the steps: each element taken is
 * compared with the one before it in its pair, and each thread with places
 * must end where the next one starts (the last where the tile ends), so
 * that every element is taken once and compared once.  Splits that go
 * backwards make the tile empty and raise the flag.  On unsorted input
 * every tile still joins the chain and every write stays within the
 * output's capacity.
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
 * Pair p's first slot: p, plus the slots of VT places that the pairs
 * before it fill (every pair has at least one slot, and at least as many
 * as its places fill).  batch_slot(npairs) is the number of slots.
 */
struct batch_slot
{
	const int64_t *a_off;
	const int64_t *b_off;
	int			vt;

	MP_HOST_DEVICE int64_t operator()(int64_t p) const
	{
		return p + (a_off[p] + b_off[p] + vt - 1) / vt;
	}
};

/* The tiles of NT slots of VT places over npairs pairs of total places. */
MP_HOST_DEVICE int64_t
batch_setop_tiles(int64_t npairs, int64_t total, int nt, int vt)
{
	return total == 0 ? 0 : (npairs + (total + vt - 1) / vt + nt - 1) / nt;
}

/*
 * Tile boundary at slot s (a tile's first, or the number of slots), as
 * BATCH_SETOP_PART words at w: 2 * (a's balanced split there, an index
 * into a) + star, b's split, the pair p that holds slot s, and the pair
 * that holds slot s - 1 (0 for s = 0).  Slot s takes the places of pair p
 * from (s - batch_slot(p)) * VT on, or none where p has fewer.
 */
#define BATCH_SETOP_PART 4

template <typename T, int VT>
MP_HOST_DEVICE void
batch_setop_boundary(const T *a, const int64_t *a_off, const T *b, const int64_t *b_off,
					 int64_t npairs, int64_t s, int64_t *w)
{
	const batch_slot slot = {a_off, b_off, VT};

	if (s >= slot(npairs))
	{
		w[0] = 2 * a_off[npairs];
		w[1] = b_off[npairs];
		w[2] = npairs;
		w[3] = npairs - 1;
		return;
	}

	const int64_t p = pair_of(slot, s, 0, npairs - 1);
	const int64_t na = a_off[p + 1] - a_off[p],
				nb = b_off[p + 1] - b_off[p];
	const int64_t from = (s - slot(p)) * VT;
	const int64_t diag = from < na + nb ? from : na + nb;
	const T    *pa = a + a_off[p],
			   *pb = b + b_off[p];
	bool		star;
	int64_t		i = pair_merge_path<T>([pa](int64_t x) { return pa[x]; },
									   [pb](int64_t x) { return pb[x]; }, diag,
									   diag > nb ? diag - nb : 0, diag < na ? diag : na);

	i = balanced_path<T>(pa, pb, nb, diag, i, &star);
	w[0] = 2 * (a_off[p] + i) + star;
	w[1] = b_off[p] + diag - i;
	w[2] = p;
	w[3] = s == 0 || slot(p) < s ? p : p - 1;
}

/*
 * Tile boundaries: parts[BATCH_SETOP_PART * t ..] for slot t * NT (the
 * last at the number of slots), as batch_setop_boundary gives them.  The
 * same threads clear the tiles' chain words and the tiles' counter.
 */
template <typename T, int NT, int VT>
__global__ void __launch_bounds__(128)
batch_setop_partition(const T *__restrict__ a, const int64_t *__restrict__ a_off,
					  const T *__restrict__ b, const int64_t *__restrict__ b_off,
					  int64_t npairs, int64_t *__restrict__ parts, int64_t nparts,
					  setop_chain chain, int *__restrict__ next_tile)
{
	const int64_t t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

	grid_dependents_launch();
	if (t >= nparts)
		return;
	if (t < nparts - 1)
		chain.clear(t);
	if (t == 0 && next_tile != nullptr)
		*next_tile = 0;
	batch_setop_boundary<T, VT>(a, a_off, b, b_off, npairs, t * NT, &parts[BATCH_SETOP_PART * t]);
}

/*
 * A tile's span: a's [a0, a0 + acount), b's [b0, b0 + bcount), pairs p0 ..
 * p0 + npt - 1, star0 when b's first is the partner of the tile before's
 * last a copy.  Splits that go backwards or out of the inputs (unsorted
 * input) make it empty and broken; its pairs, which come from the offsets
 * alone, stay.
 */
struct batch_span
{
	int64_t		a0,
				b0,
				p0;
	int			npt,
				acount,
				bcount,
				star0;
	bool		broken;
};

/*
 * Tile tile's span, from the partition's words at its two boundaries: the
 * splits, the pair of its first slot and the pair of its last (the pair of
 * slot s1 - 1, from the boundary at s1).
 */
MP_HOST_DEVICE batch_span
batch_setop_span(const int64_t *parts, int64_t tile, int64_t na_all, int64_t nb_all)
{
	const int64_t *my = parts + BATCH_SETOP_PART * tile,
			   *next = my + BATCH_SETOP_PART;
	const int64_t a1 = next[0] >> 1,
				b1 = next[1];
	batch_span	sp;

	sp.a0 = my[0] >> 1;
	sp.b0 = my[1];
	sp.p0 = my[2];
	sp.npt = (int) (next[3] - my[2] + 1);
	sp.star0 = (int) (my[0] & 1);
	sp.broken = a1 < sp.a0 || b1 < sp.b0 || a1 > na_all || b1 > nb_all || sp.b0 < 0 ||
		(sp.star0 && b1 == sp.b0);
	sp.acount = sp.broken ? 0 : (int) (a1 - sp.a0);
	sp.bcount = sp.broken ? 0 : (int) (b1 - sp.b0);
	return sp;
}

/*
 * The tile's pairs, entry q for pair p0 + q (q up to npt: the entry after
 * the last holds where that one ends): where its part starts in each
 * window (-1 where it starts before it; b's may reach the element after
 * its window, which may be the partner of a's last copy in it), and its
 * first slot counted from the tile's (-1 for the first pair where it
 * starts in a tile before).  A tile has at most NT pairs.
 */
#define BATCH_SETOP_PAIRS_MAX 128

struct batch_tile_pairs
{
	int2		at[BATCH_SETOP_PAIRS_MAX + 1];
	int			slot[BATCH_SETOP_PAIRS_MAX + 1];
};

template <int VT>
MP_HOST_DEVICE void
batch_tile_pair_at(int64_t a_at, int64_t b_at, const batch_span &sp, int64_t s0, int q,
				   batch_tile_pairs &tp)
{
	const int64_t p = sp.p0 + q;
	const int64_t x = a_at - sp.a0,
				y = b_at - sp.b0,
				sl = p + (a_at + b_at + VT - 1) / VT - s0;

	tp.at[q] = make_int2(x < -1 ? -1 : x > sp.acount ? sp.acount : (int) x,
						 y < -1 ? -1 : y > sp.bcount + 1 ? sp.bcount + 1 : (int) y);
	tp.slot[q] = sl < 0 ? -1 : sl > BATCH_SETOP_PAIRS_MAX ? BATCH_SETOP_PAIRS_MAX : (int) sl;
}

/* The same from the offsets (pair p0 + q's start in a and b). */
template <int VT>
MP_HOST_DEVICE void
batch_tile_pair(const int64_t *a_off, const int64_t *b_off, const batch_span &sp, int64_t s0,
				int q, batch_tile_pairs &tp)
{
	batch_tile_pair_at<VT>(a_off[sp.p0 + q], b_off[sp.p0 + q], sp, s0, q, tp);
}

/*
 * What a thread of the tile leaves: its VT values in the balanced order
 * and the bitmask of the kept ones, whether its steps saw unsorted input,
 * and where it ended.
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
};

/*
 * Where a slot's places start: its pair q (of the tile's), a's and b's
 * indices in the windows, whether b's first is the partner of the a copy
 * in front (pending), its places (mine) and whether the slot is its pair's
 * first.
 */
struct batch_start
{
	int			q,
				i,
				j,
				mine;
	bool		pending,
				first;
};

/*
 * Slot tid of a tile whose windows wa and wb hold acount and bcount
 * elements (each with the element before it and the one after), its npt
 * pairs in tp.  Its pair: the last whose first slot is at or before its
 * own.  Its places: VT from where its slot starts in the pair's part of
 * the windows (the tile's first place for the first pair, whose part
 * starts balanced at the tile's split, with b's partner first where star0
 * says; a pair that starts in the tile starts there balanced), up to the
 * part's end.  Its start: slot 0 starts where the tile does; the others
 * with places search their split in the pair's part (Merge Path from a
 * guess at the pair's share of a, then balanced), which they write to
 * start (a and b's indices; for a slot without places, where its pair's
 * part ends).
 */
template <typename T, int VT>
MP_HOST_DEVICE batch_start
batch_setop_start(const T *wa, const T *wb, int acount, int bcount, int star0,
				  const batch_tile_pairs &tp, int npt, int tid, int *start)
{
	int			q = 0;

	for (int hi = npt - 1; q < hi;)
	{
		const int	mid = q + (hi - q + 1) / 2;

		if (tp.slot[mid] <= tid)
			q = mid;
		else
			hi = mid - 1;
	}

	const int2	c0 = tp.at[q],
				c1 = tp.at[q + 1];
	const int	wa0 = c0.x > 0 ? c0.x : 0,
				wb0 = c0.y > star0 ? c0.y : star0,
				wa1 = c1.x < acount ? c1.x : acount,
				wb1 = c1.y < bcount ? c1.y : bcount;
	const int	dt = q == 0 ? tid * VT : wa0 + (c0.y > 0 ? c0.y : 0) + (tid - tp.slot[q]) * VT;
	const int	left = wa1 + wb1 - dt;
	batch_start s;

	s.q = q;
	s.first = tp.slot[q] == tid;
	s.mine = left <= 0 ? 0 : left < VT ? left : VT;
	s.i = wa1;
	s.j = wb1;
	s.pending = star0;
	if (s.mine > 0)
	{
		s.i = 0;
		s.j = 0;
	}
	if (s.mine > 0 && tid > 0)
	{
		const int	acn = wa1 > wa0 ? wa1 - wa0 : 0,
					bcn = wb1 > wb0 ? wb1 - wb0 : 0;
		int			diag = dt - wa0 - wb0;

		diag = diag < 0 ? 0 : diag > acn + bcn ? acn + bcn : diag;

		/* a guess from the pair's share of a, within 32 on random keys */
		const int	mp = merge_path_near<T>(wa + wa0, wb + wb0, diag, diag > bcn ? diag - bcn : 0,
											diag < acn ? diag : acn,
											acn + bcn > 0 ? diag * acn / (acn + bcn) : 0, 32);
		const int	split = balanced_path<T>(wa + wa0, wb + wb0, bcn, diag, mp, &s.pending);

		s.i = wa0 + split;
		s.j = wb0 + diag - split;
	}
	start[0] = s.i;
	start[1] = s.j;
	return s;
}

/*
 * Whether a slot's steps stay inside its pair on both sides, so that they
 * need no bounds: VT places, and the next slot's start (next), where they
 * end on sorted input, before the pair's end in both windows.  Then every
 * element the steps look at, the one after each side's share too, is the
 * pair's, and the steps are the single set operation's.
 */
MP_HOST_DEVICE bool
batch_setop_inside(const batch_start &s, const batch_tile_pairs &tp, const int *next, int vt)
{
	const int2	c1 = tp.at[s.q + 1];

	return s.mine == vt && next[0] < c1.x && next[1] < c1.y;
}

/*
 * The largest of the elements in front of a slot's start that belong to
 * its pair, where the check of its steps starts (order<T>::lowest() where
 * none do, or where the slot has no places).
 */
template <typename T>
MP_HOST_DEVICE T
batch_setop_prev(const T *wa, const T *wb, const batch_tile_pairs &tp, const batch_start &s)
{
	const int2	c0 = tp.at[s.q];
	T			prev = order<T>::lowest();

	if (s.mine > 0 && s.i > c0.x)
		prev = wa[s.i - 1];
	if (s.mine > 0 && s.j > c0.y && order<T>::lt(prev, wb[s.j - 1]))
		prev = wb[s.j - 1];
	return prev;
}

/*
 * A slot's steps, up to VT in the balanced order from its start, one
 * element a step, keeping or dropping each element as the single set
 * operation's steps do.  BOUNDED: the pair's ends in the windows bound
 * them and only the slot's places count, every step predicated (no branch
 * a step); neither index passes its pair's end (a's is at most acount, the
 * element after the window; b's at most bcount + 1, which the windows have
 * room for), so the loads need no clamp.  Else the slot is inside its pair
 * (batch_setop_inside): VT steps and no bounds, as the single set
 * operation's full tiles take them (setop_steps_full); on unsorted input
 * they may go up to VT past the pair's end, which the windows have room
 * for.  The next element of each side waits in a register, and each step
 * loads only the one of the side it took.
 *
 * The check rides on the steps: the elements taken must not go down,
 * starting from batch_setop_prev; and each slot with places must end where
 * the next one starts (the caller's check, with a_end and b_end).
 */
template <typename T, int VT, mp_setop OP, bool BOUNDED>
MP_HOST_DEVICE void
batch_setop_steps(const T *wa, const T *wb, const batch_tile_pairs &tp, const batch_start &s,
				  batch_steps_out<T, VT> &o)
{
	typedef setop_keeps<OP> keeps;
	typedef typename batch_steps_out<T, VT>::mask_t mask_t;
	const int2	c1 = tp.at[s.q + 1];
	int			i = s.i,
				j = s.j;
	bool		pending = s.pending,
				bad = false;
	T			x = wa[i],
				y = wb[j],
				prev = batch_setop_prev<T>(wa, wb, tp, s);
	mask_t		kept = 0;

	MP_UNROLL
	for (int v = 0; v < VT; v++)
	{
		const bool	valid = !BOUNDED || v < s.mine,
					has_a = !BOUNDED || i < c1.x,
					has_b = !BOUNDED || j < c1.y;
		const bool	take_a = valid && has_a && !pending && (!has_b || !order<T>::lt(y, x));
		const bool	take_b = valid && !take_a && has_b;
		const bool	paired = take_a && has_b && !order<T>::lt(x, y);
		const T		val = take_a ? x : y;

		/* places left and nothing to take, or a key below the one before:
		 * unsorted */
		bad |= valid && !take_b && !take_a;
		bad |= valid && order<T>::lt(val, prev);
		prev = valid ? val : prev;
		o.r[v] = val;
		kept |= (mask_t) (take_a ? (paired ? keeps::PAIR : keeps::A) :
						  take_b && !pending && keeps::B) << v;
#ifdef __CUDA_ARCH__
		setop_settle<T>(kept);
#endif
		pending = paired;
		i += take_a;
		j += take_b;
		if (v + 1 < VT)
		{
			const T		z = take_a ? wa[i] : wb[j];

			x = take_a ? z : x;
			y = take_a ? y : z;
		}
	}
	o.kept = kept;
	o.bad = bad;
	o.a_end = i;
	o.b_end = j;
}

/*
 * The pairs' first places go out counted from their tile's first result
 * (batch_setop_tile_steps); batch_setop_tail adds the results of the tiles
 * before, once the chain holds them all.  Pair q's first output place,
 * from what its tile put (at) and the results of the tiles before
 * (before): a pair that starts at the end of the places starts at the
 * output's length; no place goes past the output's capacity.
 */
MP_HOST_DEVICE int64_t
batch_setop_first_place(int64_t start, int64_t total, int64_t at, int64_t before,
						int64_t length, int64_t capacity)
{
	const int64_t place = start == total ? length : before + at;

	return place < capacity ? place : capacity;
}

/*
 * A slot's start as the threads pass it on (batch_setop_tile_steps): the
 * windows' indices in x, the rest and the slot in y.
 */
MP_HOST_DEVICE int2
batch_start_pack(const batch_start &s, int slot)
{
	return make_int2(s.i | s.j << 16, slot | s.q << 8 | s.mine << 16 | (int) s.pending << 24 |
					 (int) s.first << 25);
}

MP_HOST_DEVICE batch_start
batch_start_unpack(int2 w, int *slot)
{
	batch_start s;

	s.i = w.x & 0xffff;
	s.j = (unsigned) w.x >> 16;
	*slot = w.y & 0xff;
	s.q = w.y >> 8 & 0xff;
	s.mine = w.y >> 16 & 0xff;
	s.pending = w.y >> 24 & 1;
	s.first = w.y >> 25 & 1;
	return s;
}

/*
 * The steps of one tile in shared memory by its NT computing threads:
 * windows wa and wb of span sp with its pairs in tp.  Thread tid finds
 * slot tid's start (batch_setop_start).  The slots inside their pair
 * (batch_setop_inside: most of a long pair's) need no bounds, the others
 * do, and a warp runs one kind of steps or the other: so the slots are
 * dealt out again, those inside their pair to the first threads and the
 * others to the last, in slot order (through plan), and each warp of the
 * first threads takes its steps without bounds.  Then the kept counts go
 * back to their slots (counts) for the block's scan in slot order (named
 * barrier ID, 0 for the whole block), the ranks to the threads that took
 * the steps; the count on the chain, the check, the kept results compacted
 * into res (which may be the windows: the barriers after the steps come
 * before it) and the pairs' first places, counted from the tile's first
 * result.  Returns the tile's count of results.
 */
template <typename T, int NT, int VT, int ID, mp_setop OP>
__device__ __forceinline__ int
batch_setop_tile_steps(const T *wa, const T *wb, const batch_span &sp,
					   const batch_tile_pairs &tp, int tile, int (*starts)[2], int *sums,
					   int2 *plan, int *counts, setop_chain chain, T *res,
					   int64_t *__restrict__ out_off, int *__restrict__ unsorted)
{
	const int	tid = threadIdx.x,
				lane = tid % 32,
				warp = tid / 32;
	const batch_start mine = batch_setop_start<T, VT>(wa, wb, sp.acount, sp.bcount, sp.star0, tp,
													  sp.npt, tid, starts[tid]);

	if (tid == 0)
	{
		starts[NT][0] = sp.acount;
		starts[NT][1] = sp.bcount;
	}
	setop_sync<NT, ID>();

	/* the slots that need bounds to the last threads */
	const bool	inside = batch_setop_inside(mine, tp, starts[tid + 1], VT);
	const unsigned bounded = __ballot_sync(~0u, !inside);

	if (lane == 0)
		sums[warp] = __popc(bounded);
	setop_sync<NT, ID>();

	int			bounded_before = 0,
				bounded_all = 0;

#pragma unroll
	for (int w = 0; w < NT / 32; w++)
	{
		const int	v = sums[w];

		bounded_before += w < warp ? v : 0;
		bounded_all += v;
	}
	bounded_before += __popc(bounded & ((1u << lane) - 1));
	plan[inside ? tid - bounded_before : NT - bounded_all + bounded_before] =
		batch_start_pack(mine, tid);
	setop_sync<NT, ID>();

	int			slot;
	const batch_start s = batch_start_unpack(plan[tid], &slot);
	batch_steps_out<T, VT> st;
	int			tile_count;

	if ((warp + 1) * 32 <= NT - bounded_all)
		batch_setop_steps<T, VT, OP, false>(wa, wb, tp, s, st);
	else
		batch_setop_steps<T, VT, OP, true>(wa, wb, tp, s, st);
	counts[slot] = popc(st.kept);
	setop_sync<NT, ID>();

	/* the scan in slot order; each slot's rank back to its thread */
	counts[tid] = setop_scan<NT, ID>(counts[tid], &tile_count, sums);
	setop_sync<NT, ID>();

	const int	rank = counts[slot];

	if (tid == 0)
		chain.publish(tile, tile == 0 ? setop_chain::INCLUSIVE : setop_chain::AGGREGATE,
					  tile_count);
	if ((sp.broken || st.bad ||
		 (s.mine > 0 && (st.a_end != starts[slot + 1][0] || st.b_end != starts[slot + 1][1]))) &&
		unsorted != nullptr)
		*unsorted = 1;
	{
		int			at = rank;

#pragma unroll
		for (int v = 0; v < VT; v++)
			if (st.kept & ((decltype(st.kept)) 1 << v))
				res[at++] = st.r[v];
	}
	if (s.first)
		out_off[sp.p0 + s.q] = rank;
	return tile_count;
}

/*
 * One tile a block (where there are no bulk copies): windows and the
 * tile's pairs, steps (batch_setop_tile_steps), then warp 0 looks back and
 * the block writes the results out.  A block takes the next tile from a
 * counter, so that every tile it looks back at belongs to a block that has
 * started: the chain never waits on a block that is not running.  The
 * windows come in as the single merge's do; from there on, indices are the
 * windows', in 32 bits.
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

	static_assert(NT <= BATCH_SETOP_PAIRS_MAX, "a tile has at most NT pairs");

	/* the windows, each with the element before it and the one after;
	 * later the tile's results */
	__shared__ __align__(16) T s[tile_windows<T, NV>::SIZE + VT];
	__shared__ batch_tile_pairs tp;
	__shared__ int starts[NT + 1][2];
	__shared__ int sums[NT / 32];
	__shared__ int2 plan[NT];
	__shared__ int counts[NT];
	__shared__ int64_t tile_start_shared;
	__shared__ int tile_shared;
	__shared__ uint64_t bar;

	if (threadIdx.x == 0)
		tile_shared = atomicAdd(next_tile, 1);
	__syncthreads();

	const int64_t na_all = a_off[npairs],
				nb_all = b_off[npairs];
	const int	tile = tile_shared;
	const int	tid = threadIdx.x;
	const batch_span sp = batch_setop_span(parts, tile, na_all, nb_all);

	for (int q = tid; q <= sp.npt; q += NT)
		batch_tile_pair<VT>(a_off, b_off, sp, (int64_t) tile * NT, q, tp);

	const tile_windows<T, NV> w = load_tile_windows<T, NT, NV>(s, &bar, a, na_all, sp.a0,
															   sp.acount, b, nb_all, sp.b0,
															   sp.bcount);
	const int	tile_count = batch_setop_tile_steps<T, NT, VT, 0, OP>(w.a, w.b, sp, tp, tile,
																	  starts, sums, plan, counts,
																	  chain, s, out_off, unsorted);

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
 * blockIdx.x.  The feeding warp puts each tile's span and its pairs in a
 * stage and copies its windows there in bulk, ahead of the others; once
 * they have compacted the oldest tile's results in its stage
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

	static_assert(NT <= BATCH_SETOP_PAIRS_MAX, "a tile has at most NT pairs");

	extern __shared__ __align__(16) unsigned char dynamic_shared[];
	T		   *const s = (T *) dynamic_shared;
	__shared__ batch_tile_pairs tp[STAGES];
	__shared__ int starts[STAGES][NT + 1][2];
	__shared__ int sums[STAGES][NT / 32];
	__shared__ int2 plan[NT];
	__shared__ int counts[NT];
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
		 * last.  fill: tile's span, its pairs and its windows into stage k
		 * (with tile -1, the stage says there are no more), from what ahead
		 * read of it before.
		 */
		auto		tile_of = [&](int j) -> int {
			const int64_t t = (int64_t) j * gridDim.x + blockIdx.x;

			return t < tiles ? (int) t : -1;
		};
		/* a tile's span and, for lane q's pair of it, the starts in a and b:
		 * read before the stage is free, while the tile before is finished */
		struct ahead_t
		{
			batch_span	sp;
			int64_t		a_at,
						b_at;
		};
		auto		ahead = [&](int tile) {
			ahead_t		f = {};

			if (tile >= 0)
			{
				f.sp = batch_setop_span(parts, tile, na_all, nb_all);

				const int64_t p = f.sp.p0 + (lane <= f.sp.npt ? lane : 0);

				f.a_at = a_off[p];
				f.b_at = b_off[p];
			}
			return f;
		};
		auto		fill = [&](int k, int tile, const ahead_t &f) {
			if (tile < 0)
			{
				if (lane == 0)
					stage[k].tile = -1;
				cuda::ptx::mbarrier_arrive(&full[k]);
				return;
			}

			const batch_span &sp = f.sp;
			const int	a_at = windows::place(windows::E, a, sp.a0);
			const int	b_at = windows::place(a_at + sp.acount + 2 * windows::E, b, sp.b0);

			if (lane <= sp.npt)
				batch_tile_pair_at<VT>(f.a_at, f.b_at, sp, (int64_t) tile * NT, lane, tp[k]);
			for (int q = lane + 32; q <= sp.npt; q += 32)
				batch_tile_pair<VT>(a_off, b_off, sp, (int64_t) tile * NT, q, tp[k]);
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
			fill(j, tile_of(j), ahead(tile_of(j)));
		stage_ring<STAGES> r;

		for (int j = 0;; j++, r.next())
		{
			const int	tile = tile_of(j);

			if (tile < 0)
				break;

			const ahead_t f = ahead(tile_of(j + STAGES));

			r.wait(done);
			stage_finish_tile<T>(chain, tile, tiles, &stage[r.k].tile_count, s + r.k * BUF, out,
								 capacity, length, lane);
			__syncwarp();
			fill(r.k, tile_of(j + STAGES), f);
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
														 sp, tp[k], tile, starts[k], sums[k],
														 plan, counts, chain, buf, out_off,
														 unsorted);

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
template <int NT, int VT>
__global__ void
batch_setop_tail(const int64_t *__restrict__ a_off, const int64_t *__restrict__ b_off,
				 int64_t npairs, setop_chain chain, const int64_t *__restrict__ length,
				 int64_t capacity, int64_t *__restrict__ out_off)
{
	const batch_slot slot = {a_off, b_off, VT};
	const int64_t total = a_off[npairs] + b_off[npairs];

	for (int64_t q = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; q <= npairs;
		 q += (int64_t) gridDim.x * blockDim.x)
	{
		const int64_t start = a_off[q] + b_off[q];
		const int64_t tile = slot(q) / NT;
		const int64_t before = start == total || tile == 0 ? 0 :
			(int64_t) (unsigned) chain.peek((int) tile - 1);

		out_off[q] = batch_setop_first_place(start, total, start == total ? 0 : out_off[q], before,
											 *length, capacity);
	}
}

}								/* namespace mp */

#endif							/* MP_BATCH_SETOPS_CUH */
