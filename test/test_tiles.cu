/*
 * test_tiles.cu
 *		The batch kernels' threads (cuda/kernels/batch: the merge's and the
 *		set operations' tiles, the filters, the searches and the check) run
 *		on the host, one after another, against reference.h pair by pair:
 *		no GPU needed, so that every machine that builds the CUDA code
 *		checks the kernels' own logic.
 *
 * What runs here is the device's code itself: each boundary's split
 * (batch_merge_split; for the set operations batch_setop_boundary, at
 * each tile's first slot, with the pair of the slot before), a set
 * operation tile's span (batch_setop_span) and pairs (batch_tile_pair),
 * each thread's pair, start search and steps (batch_merge_thread;
 * batch_setop_start, then the slots dealt out again as the tile does,
 * batch_setop_steps without bounds for the warps of slots inside their
 * pairs and with bounds for the others), the set operations' pairs' first
 * places in their tiles (the thread of the pair's first slot) and after
 * the tiles before
 * (batch_setop_first_place), and each filter's, search's
 * and check's thread (thread_elements, thread_kept, filter_walk,
 * search_thread, check_thread), over windows laid out as
 * load_tile_windows lays them out (the element before each window, or the
 * lowest key, and the one after, or the highest), with the pairs' starts
 * where the kernels keep them (beside the windows, or read from the
 * offsets).  What stays the kernels' alone is memory: the loads into
 * shared memory, the blocks' scans, the look-back chain, the stores, and
 * CUB's scan of the filters' tile counts, which the GPU's C tests and
 * compute-sanitizer cover.  Here a tile's results follow the tile
 * before's, and every scan is a running sum.
 *
 * Shapes: pair sizes around a tile's places, pairs of about whole slots
 * (a set operation's thread's VT places), random pairs from empty to
 * three tiles, runs of empty pairs (tiles of more pairs than the shared
 * memory holds starts of), one giant pair among tiny ones, keys from a
 * small range (long runs of copies) and from a wide one, floats with
 * NaNs, infinities and both zeros; the merge, every set operation, the
 * semi and anti joins, unique and the three searches, every element
 * type.  Sorted input must give the reference's results and offsets and
 * raise no flag; a batch with one pair made unsorted must raise it (but
 * for unique, which reads one side, where that side is the other).
 *
 * test/test_tiles [--seed N]
 */
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "../cuda/kernels/batch/setops.cuh"
#include "reference.h"

using namespace mp;

namespace
{

int			checks = 0,
			failures = 0;

void
check(bool ok, const char *what, const char *op, const char *type, const char *shape)
{
	checks++;
	if (!ok && failures++ < 20)
		printf("FAILED: %s, %s %s, %s\n", what, type, op, shape);
}

template <typename T>
struct type_of;

template <> struct type_of<int32_t> { static constexpr mp_type t = MP_INT4; static constexpr const char *name = "int4"; };
template <> struct type_of<int64_t> { static constexpr mp_type t = MP_INT8; static constexpr const char *name = "int8"; };
template <> struct type_of<float> { static constexpr mp_type t = MP_FLOAT4; static constexpr const char *name = "float4"; };
template <> struct type_of<double> { static constexpr mp_type t = MP_FLOAT8; static constexpr const char *name = "float8"; };

/* A batch: both sides' pairs back to back, with their offsets. */
template <typename T>
struct batch
{
	std::vector<T> a,
				b;
	std::vector<int64_t> a_off{0},
				b_off{0};

	void add(const std::vector<T> &x, const std::vector<T> &y)
	{
		a.insert(a.end(), x.begin(), x.end());
		b.insert(b.end(), y.begin(), y.end());
		a_off.push_back((int64_t) a.size());
		b_off.push_back((int64_t) b.size());
	}
	int64_t pairs() const { return (int64_t) a_off.size() - 1; }
};

/* What a run of the tiles gives. */
template <typename T>
struct result
{
	std::vector<T> out;
	std::vector<int64_t> out_off;
	bool		unsorted = false;
};

/* A batch as the kernels see it. */
template <typename T>
struct view
{
	const T    *a,
			   *b;
	const int64_t *a_off,
			   *b_off;
	int64_t		npairs,
				na,
				nb,
				total;
	merged_start o;

	explicit view(const batch<T> &in)
		: a(in.a.data()), b(in.b.data()), a_off(in.a_off.data()), b_off(in.b_off.data()),
		npairs(in.pairs()), na(a_off[npairs]), nb(b_off[npairs]), total(na + nb),
		o{a_off, b_off}
	{
	}
};

/* Every tile boundary's split, as the merge's partition writes them
 * (split: batch_merge_split), tiles of nv places. */
template <typename T, typename Split>
std::vector<int64_t>
splits_of(const view<T> &v, int64_t nv, Split split)
{
	const int64_t tiles = (v.total + nv - 1) / nv;
	std::vector<int64_t> parts(2 * (tiles + 1));

	for (int64_t t = 0; t <= tiles && v.total > 0; t++)
		split(v.a, v.a_off, v.b, v.b_off, v.npairs, t * nv < v.total ? t * nv : v.total,
			  &parts[2 * t], &parts[2 * t + 1]);
	return parts;
}

/*
 * x[x0 .. x0 + n) as load_tile_windows puts it in shared memory: after the
 * element before it (or the lowest key) and before the one after it (or
 * the highest); the window starts at element 1.
 */
template <typename T>
std::vector<T>
window_of(const T *x, int64_t nx, int64_t x0, int n)
{
	std::vector<T> w(n + 2);

	w[0] = x0 > 0 && x0 <= nx ? x[x0 - 1] : order<T>::lowest();
	for (int k = 0; k < n; k++)
		w[k + 1] = x[x0 + k];
	w[n + 1] = x0 + n < nx ? x[x0 + n] : order<T>::highest();
	return w;
}

/* The pairs' starts in the windows, where the kernels keep them beside
 * the windows (fewer pairs than BATCH_TILE_PAIRS), else none. */
std::vector<int2>
starts_beside(const window_bounds_global &g, int64_t npt)
{
	std::vector<int2> s(npt < BATCH_TILE_PAIRS ? npt + 1 : 0);

	for (size_t q = 0; q < s.size(); q++)
		s[q] = g((int64_t) q);
	return s;
}

/*
 * The set operation OP of every pair, tile after tile, as the device runs
 * them: batch_setop_partition's splits, then each tile's threads.
 */
template <typename T, mp_setop OP>
result<T>
run_setop_tiles(const batch<T> &in)
{
	constexpr int NT = batch_setop_shape<T>::NT,
				VT = batch_setop_shape<T>::VT;
	const view<T> v(in);
	const batch_slot slot = {v.a_off, v.b_off, VT};
	const int64_t tiles = batch_setop_tiles(v.npairs, v.total, NT, VT);
	std::vector<int64_t> parts(BATCH_SETOP_PART * (tiles + 1)),
				before(tiles, 0);
	result<T>	res;

	/* batch_setop_partition */
	for (int64_t t = 0; t <= tiles; t++)
		batch_setop_boundary<T, VT>(v.a, v.a_off, v.b, v.b_off, v.npairs, t * NT,
									&parts[BATCH_SETOP_PART * t]);
	/* every pair's first place is put by a tile, or by the tail: a place
	 * no one puts stays out of range */
	res.out_off.assign(v.npairs + 1, -1);

	for (int64_t tile = 0; tile < tiles; tile++)
	{
		const batch_span sp = batch_setop_span(parts.data(), tile, v.na, v.nb);
		std::vector<T> wa_buf = window_of(v.a, v.na, sp.a0, sp.acount),
					wb_buf = window_of(v.b, v.nb, sp.b0, sp.bcount);

		/* the kernels' room for steps past the windows on unsorted input */
		wa_buf.resize(wa_buf.size() + VT, order<T>::highest());
		wb_buf.resize(wb_buf.size() + VT, order<T>::highest());

		const T    *wa = wa_buf.data() + 1,
				   *wb = wb_buf.data() + 1;
		batch_tile_pairs tp;
		std::vector<batch_start> bs(NT);
		std::vector<batch_steps_out<T, VT>> st(NT);
		std::vector<int> rank(NT + 1, 0),
					starts(2 * (NT + 1));
		std::vector<bool> inside(NT);
		int			bounded_all = 0;

		if (sp.npt < 1 || sp.npt > NT)
		{
			fprintf(stderr, "tile %" PRId64 " holds %d pairs\n", tile, sp.npt);
			res.unsorted = true;
			continue;
		}
		for (int q = 0; q <= sp.npt; q++)
			batch_tile_pair<VT>(v.a_off, v.b_off, sp, tile * NT, q, tp);
		for (int tid = 0; tid < NT; tid++)
			bs[tid] = batch_setop_start<T, VT>(wa, wb, sp.acount, sp.bcount, sp.star0, tp, sp.npt,
											   tid, &starts[2 * tid]);
		starts[2 * NT] = sp.acount;
		starts[2 * NT + 1] = sp.bcount;

		/* the slots dealt out again as batch_setop_tile_steps deals them:
		 * those inside their pair to the first threads, whose whole warps
		 * take the steps without bounds */
		for (int tid = 0; tid < NT; tid++)
		{
			inside[tid] = batch_setop_inside(bs[tid], tp, &starts[2 * tid + 2], VT);
			bounded_all += !inside[tid];
		}
		for (int tid = 0, k = 0; tid < NT; tid++)
		{
			int			slot;
			const batch_start s = batch_start_unpack(batch_start_pack(bs[tid], tid), &slot);
			const int	thread = inside[tid] ? k++ : NT - bounded_all + (tid - k);

			if (slot != tid || s.i != bs[tid].i || s.j != bs[tid].j || s.q != bs[tid].q ||
				s.mine != bs[tid].mine || s.pending != bs[tid].pending ||
				s.first != bs[tid].first)
			{
				fprintf(stderr, "slot %d's start packed wrong\n", tid);
				res.unsorted = true;
			}
			if ((thread / 32 + 1) * 32 <= NT - bounded_all)
				batch_setop_steps<T, VT, OP, false>(wa, wb, tp, s, st[tid]);
			else
				batch_setop_steps<T, VT, OP, true>(wa, wb, tp, s, st[tid]);
			rank[tid + 1] = rank[tid] + popc(st[tid].kept);
		}

		before[tile] = (int64_t) res.out.size();
		res.unsorted |= sp.broken;
		for (int tid = 0; tid < NT; tid++)
		{
			res.unsorted |= st[tid].bad || (bs[tid].mine > 0 &&
											(st[tid].a_end != starts[2 * tid + 2] ||
											 st[tid].b_end != starts[2 * tid + 3]));
			for (int k = 0; k < VT; k++)
				if (st[tid].kept >> k & 1)
					res.out.push_back(st[tid].r[k]);
			if (bs[tid].first)
				res.out_off[sp.p0 + bs[tid].q] = rank[tid];
		}
	}
	/* batch_setop_tail: the tiles before each pair's added */
	for (int64_t q = 0; q <= v.npairs; q++)
	{
		const int64_t start = v.o(q);

		res.out_off[q] = batch_setop_first_place(start, v.total,
												 start == v.total ? 0 : res.out_off[q],
												 start == v.total ? 0 : before[slot(q) / NT],
												 (int64_t) res.out.size(), INT64_MAX);
	}
	return res;
}

/*
 * The merge of every pair, tile after tile, as batch_merge_tile runs them:
 * its splits (batch_merge_split), each tile's threads (batch_merge_thread),
 * each thread's outputs at its places.
 */
template <typename T>
result<T>
run_merge_tiles(const batch<T> &in)
{
	constexpr int NT = batch_shape<T>::NT,
				VT = batch_shape<T>::VT,
				NV = NT * VT;
	const view<T> v(in);
	const std::vector<int64_t> parts = splits_of(v, NV, batch_merge_split<T>);
	const int64_t tiles = (int64_t) parts.size() / 2 - 1;
	result<T>	res;

	res.out.assign(v.total, T());
	for (int64_t p = 0; p <= v.npairs; p++)
		res.out_off.push_back(v.o(p));

	for (int64_t tile = 0; tile < tiles; tile++)
	{
		const int64_t *my = &parts[2 * tile];
		const int64_t d0 = tile * NV,
					d1 = d0 + NV < v.total ? d0 + NV : v.total;
		const int64_t a0 = my[0],
					a1 = my[2],
					b0 = d0 - a0,
					b1 = d1 - a1;
		const int64_t p0 = my[1],
					npt = pair_of(v.o, d1 - 1, my[1], my[3]) - p0 + 1;

		if (a1 < a0 || b1 < b0)
		{
			res.unsorted = true;
			continue;
		}

		const int	acount = (int) (a1 - a0),
					count = (int) (d1 - d0),
					bcount = count - acount;
		std::vector<T> wa_buf = window_of(v.a, v.na, a0, acount),
					wb_buf = window_of(v.b, v.nb, b0, bcount);
		const T    *wa = wa_buf.data() + 1,
				   *wb = wb_buf.data() + 1;
		const window_bounds_global g = {v.a_off, v.b_off, p0, a0, b0, acount, bcount};
		std::vector<int2> sbounds = starts_beside(g, npt);

		std::vector<batch_merge_out<T, VT>> st(NT);
		std::vector<int> starts(2 * (NT + 1));

		for (int tid = 0; tid < NT; tid++)
		{
			if (npt < BATCH_TILE_PAIRS)
				batch_merge_thread<T, VT>(wa, wb, acount, count, npt,
										  window_bounds_shared{sbounds.data()}, tid,
										  &starts[2 * tid], st[tid]);
			else
				batch_merge_thread<T, VT>(wa, wb, acount, count, npt, g, tid, &starts[2 * tid],
										  st[tid]);
		}
		starts[2 * NT] = acount;
		starts[2 * NT + 1] = bcount;
		for (int tid = 0; tid < NT; tid++)
		{
			const int	diag = tid * VT < count ? tid * VT : count;
			const int	mine = count - diag < VT ? count - diag : VT;

			res.unsorted |= st[tid].bad ||
				(mine > 0 && (st[tid].a_end != starts[2 * tid + 2] ||
							  st[tid].b_end != starts[2 * tid + 3]));
			for (int k = 0; k < mine; k++)
				res.out[d0 + diag + k] = st[tid].r[k];
		}
	}
	return res;
}

/* What batch_filter_write does with a kept element, and with a pair that
 * starts among a thread's elements. */
template <typename T>
struct keep_into
{
	const T    *x;
	T		   *out;
	int64_t    *at;

	MP_HOST_DEVICE void operator()(int64_t e, bool keep) const
	{
		if (keep)
			out[(*at)++] = x[e];
	}
};

struct start_into
{
	int64_t    *out_off;
	const int64_t *at;

	MP_HOST_DEVICE void operator()(int64_t q, int64_t) const { out_off[q] = *at; }
};

/* A filter's side x (a) against y (b; none for unique), every thread's
 * elements as batch_filter_count and batch_filter_write take them. */
template <typename T, batch_filter F>
result<T>
run_filter(const batch<T> &in)
{
	constexpr int NT = batch_shape<T>::NT,
				VT = batch_shape<T>::VT;
	const view<T> v(in);
	const T    *y = F == KEEP_FIRST ? nullptr : v.b;
	const int64_t threads = (v.na + VT - 1) / VT;
	std::vector<int64_t> base(threads + 1, 0);
	result<T>	res;

	/* the counts, and their scan (in the kernels: the tiles' counts, their
	 * scan, then each block's own) */
	for (int64_t g = 0; g < threads; g++)
	{
		int64_t		e0;
		const int	n = thread_elements<NT, VT>(g / NT, (int) (g % NT), v.na, &e0);

		base[g + 1] = base[g] + thread_kept<T, F>(v.a, v.a_off, y, v.b_off, v.npairs, e0, n);
	}
	res.out.assign(base[threads], T());
	res.out_off.assign(v.npairs + 1, -1);
	for (int64_t g = 0; g < threads; g++)
	{
		int64_t		e0,
					at = base[g];
		const int	n = thread_elements<NT, VT>(g / NT, (int) (g % NT), v.na, &e0);

		filter_walk<T, F>(v.a, v.a_off, y, v.b_off, v.npairs, e0, n,
						  keep_into<T>{v.a, res.out.data(), &at},
						  start_into{res.out_off.data(), &at});
	}
	/* batch_filter_tail */
	for (int64_t q = 0; q <= v.npairs; q++)
		if (v.a_off[q] == v.na)
			res.out_off[q] = base[threads];
	/* batch_check over both sides, as the filters' check runs */
	for (int64_t g = 0; g < threads; g++)
	{
		int64_t		e0;
		const int	n = thread_elements<NT, VT>(g / NT, (int) (g % NT), v.na, &e0);

		res.unsorted |= check_thread<T>(v.a, v.a_off, v.npairs, e0, n);
	}
	for (int64_t g = 0; y != nullptr && g < (v.nb + VT - 1) / VT; g++)
	{
		int64_t		e0;
		const int	n = thread_elements<NT, VT>(g / NT, (int) (g % NT), v.nb, &e0);

		res.unsorted |= check_thread<T>(v.b, v.b_off, v.npairs, e0, n);
	}
	return res;
}

/* The searches of b's needles in a's haystacks, as batch_search_tile's
 * threads run them. */
template <typename T>
std::vector<int32_t>
run_search(const batch<T> &in, mp_search kind)
{
	constexpr int NT = batch_shape<T>::NT,
				VT = batch_shape<T>::VT;
	const view<T> v(in);
	std::vector<int32_t> out(v.nb, -1);

	for (int64_t g = 0; g < (v.nb + VT - 1) / VT; g++)
	{
		int64_t		e0;
		const int	n = thread_elements<NT, VT>(g / NT, (int) (g % NT), v.nb, &e0);

		search_thread<T>(v.a, v.a_off, v.b, v.b_off, v.npairs, kind, out.data(), e0, n);
	}
	return out;
}

/* The reference, pair by pair. */
template <typename T>
result<T>
reference(bool merge, mp_setop op, const batch<T> &in)
{
	result<T>	res;

	res.out_off.push_back(0);
	for (int64_t p = 0; p < in.pairs(); p++)
	{
		const int64_t na = in.a_off[p + 1] - in.a_off[p],
					nb = in.b_off[p + 1] - in.b_off[p];
		std::vector<T> got(na + nb + 1);
		int64_t		n = na + nb;

		if (merge)
			ref_merge(type_of<T>::t, in.a.data() + in.a_off[p], na, in.b.data() + in.b_off[p], nb,
					  got.data());
		else
			n = ref_setop(op, type_of<T>::t, in.a.data() + in.a_off[p], na,
						  in.b.data() + in.b_off[p], nb, got.data());

		res.out.insert(res.out.end(), got.begin(), got.begin() + n);
		res.out_off.push_back((int64_t) res.out.size());
	}
	return res;
}

const char *const op_names[] = {"intersect", "union", "except", "symdiff"};

template <typename T, mp_setop OP>
void
check_op(const batch<T> &in, const char *shape, bool sorted)
{
	const result<T> got = run_setop_tiles<T, OP>(in);
	const char *op = op_names[OP];

	if (!sorted)
	{
		check(got.unsorted, "an unsorted pair not flagged", op, type_of<T>::name, shape);
		return;
	}

	const result<T> want = reference<T>(false, OP, in);

	check(!got.unsorted, "sorted input flagged as unsorted", op, type_of<T>::name, shape);
	check(got.out.size() == want.out.size() &&
		  memcmp(got.out.data(), want.out.data(), want.out.size() * sizeof(T)) == 0,
		  "results differ from the reference", op, type_of<T>::name, shape);
	check(got.out_off == want.out_off, "pairs' offsets differ from the reference", op,
		  type_of<T>::name, shape);
}

template <typename T>
void
check_merge(const batch<T> &in, const char *shape, bool sorted)
{
	const result<T> got = run_merge_tiles<T>(in);

	if (!sorted)
	{
		check(got.unsorted, "an unsorted pair not flagged", "merge", type_of<T>::name, shape);
		return;
	}

	const result<T> want = reference<T>(true, MP_INTERSECT, in);

	check(!got.unsorted, "sorted input flagged as unsorted", "merge", type_of<T>::name, shape);
	check(got.out.size() == want.out.size() &&
		  memcmp(got.out.data(), want.out.data(), want.out.size() * sizeof(T)) == 0,
		  "results differ from the reference", "merge", type_of<T>::name, shape);
}

/* The filters and the searches against reference.h. */
template <typename T>
void
check_filters(const batch<T> &in, const char *shape, int bad_side)
{
	const view<T> v(in);
	const result<T> got[3] = {run_filter<T, KEEP_FOUND>(in), run_filter<T, KEEP_MISSING>(in),
		run_filter<T, KEEP_FIRST>(in)};
	const char *const names[3] = {"semijoin", "antijoin", "unique"};

	for (int f = 0; f < 3; f++)
	{
		if (bad_side >= 0)
		{
			/* unique reads a alone: an unsorted b is nothing to it */
			if (f < 2 || bad_side == 0)
				check(got[f].unsorted, "an unsorted pair not flagged", names[f],
					  type_of<T>::name, shape);
			else
				check(!got[f].unsorted, "a sorted side flagged as unsorted", names[f],
					  type_of<T>::name, shape);
			continue;
		}

		std::vector<T> want;
		std::vector<int64_t> want_off{0};

		for (int64_t p = 0; p < v.npairs; p++)
		{
			const int64_t na = v.a_off[p + 1] - v.a_off[p],
						nb = v.b_off[p + 1] - v.b_off[p];
			std::vector<T> one(na + 1);
			const int64_t n = f == 2 ? ref_unique(type_of<T>::t, v.a + v.a_off[p], na, one.data())
				: ref_semijoin(f == 1, type_of<T>::t, v.a + v.a_off[p], na, v.b + v.b_off[p], nb,
							   one.data());

			want.insert(want.end(), one.begin(), one.begin() + n);
			want_off.push_back((int64_t) want.size());
		}
		check(!got[f].unsorted, "sorted input flagged as unsorted", names[f], type_of<T>::name,
			  shape);
		check(got[f].out.size() == want.size() &&
			  memcmp(got[f].out.data(), want.data(), want.size() * sizeof(T)) == 0,
			  "results differ from the reference", names[f], type_of<T>::name, shape);
		check(got[f].out_off == want_off, "pairs' offsets differ from the reference", names[f],
			  type_of<T>::name, shape);
	}
	if (bad_side >= 0)
		return;

	const mp_search kinds[3] = {MP_LOWER_BOUND, MP_UPPER_BOUND, MP_COUNT};
	const char *const knames[3] = {"lower_bound", "upper_bound", "count"};

	for (int k = 0; k < 3; k++)
	{
		const std::vector<int32_t> out = run_search<T>(in, kinds[k]);
		std::vector<int32_t> want(v.nb);

		for (int64_t p = 0; p < v.npairs; p++)
			ref_search(kinds[k], type_of<T>::t, v.a + v.a_off[p], v.a_off[p + 1] - v.a_off[p],
					   v.b + v.b_off[p], v.b_off[p + 1] - v.b_off[p], want.data() + v.b_off[p]);
		check(out == want, "search results differ from the reference", knames[k],
			  type_of<T>::name, shape);
	}
}

template <typename T>
void
check_all(const batch<T> &in, const char *shape, int bad_side = -1)
{
	const bool	sorted = bad_side < 0;

	check_merge<T>(in, shape, sorted);
	check_filters<T>(in, shape, bad_side);
	check_op<T, MP_INTERSECT>(in, shape, sorted);
	check_op<T, MP_UNION>(in, shape, sorted);
	check_op<T, MP_EXCEPT>(in, shape, sorted);
	check_op<T, MP_SYMDIFF>(in, shape, sorted);
}

/* Keys of a pair's side: n of them from [0, range), sorted in reference.h's order. */
template <typename T>
std::vector<T>
keys(std::mt19937_64 &rng, int64_t n, int64_t range, bool special)
{
	std::vector<T> x(n);

	for (auto &v : x)
	{
		v = (T) (int64_t) (rng() % (uint64_t) range);
		if constexpr (std::is_floating_point<T>::value)
		{
			const T		odd[] = {(T) NAN, (T) -NAN, (T) INFINITY, (T) -INFINITY, (T) 0.0,
				(T) -0.0};

			if (special && rng() % 4 == 0)
				v = odd[rng() % 6];
		}
	}
	std::stable_sort(x.begin(), x.end(), [](T p, T q) {
		return ref_cmp(type_of<T>::t, &p, &q) < 0;
	});
	return x;
}

template <typename T>
void
shapes(uint64_t seed)
{
	constexpr int NV = batch_setop_shape<T>::NV;
	std::mt19937_64 rng(seed);
	const int64_t ranges[] = {8, 1000, (int64_t) 1 << 40};

	for (int64_t range : ranges)
	{
		if (sizeof(T) == 4 && range > ((int64_t) 1 << 24))
			range = (int64_t) 1 << 24;

		char		shape[96];
		const bool	special = range == 1000;

		/* pairs whose places come to a tile's, one short and one over */
		for (int edge = -1; edge <= 1; edge++)
		{
			batch<T>	in;

			for (int p = 0; p < 7; p++)
			{
				const int64_t n = NV + edge,
							na = (int64_t) (rng() % (uint64_t) (n + 1));

				in.add(keys<T>(rng, na, range, special), keys<T>(rng, n - na, range, special));
			}
			snprintf(shape, sizeof(shape), "7 pairs of %d places, keys in [0, %" PRId64 ")",
					 NV + edge, range);
			check_all(in, shape);
		}

		/* pairs of places around whole slots: a thread's places end where
		 * its pair's do, one short of it, one over */
		{
			constexpr int VT = batch_setop_shape<T>::VT;
			batch<T>	in;

			for (int p = 0; p < 500; p++)
			{
				const int64_t n = (int64_t) (rng() % 4) * VT + (int64_t) (rng() % 3) - 1,
							m = n < 0 ? 0 : n,
							na = (int64_t) (rng() % (uint64_t) (m + 1));

				in.add(keys<T>(rng, na, range, special), keys<T>(rng, m - na, range, special));
			}
			snprintf(shape, sizeof(shape), "500 pairs of about whole slots, keys in [0, %" PRId64 ")",
					 range);
			check_all(in, shape);
		}

		/* random pairs from empty to three tiles */
		{
			batch<T>	in;

			for (int p = 0; p < 60; p++)
				in.add(keys<T>(rng, (int64_t) (rng() % (3 * NV / 2)), range, special),
					   keys<T>(rng, (int64_t) (rng() % (3 * NV / 2)), range, special));
			snprintf(shape, sizeof(shape), "60 random pairs, keys in [0, %" PRId64 ")", range);
			check_all(in, shape);
		}

		/* many small pairs, a third of them empty in runs */
		{
			batch<T>	in;

			for (int p = 0; p < 6000; p++)
			{
				const bool	empty = (p / 700) % 3 == 1;

				in.add(keys<T>(rng, empty ? 0 : (int64_t) (rng() % 7), range, special),
					   keys<T>(rng, empty ? 0 : (int64_t) (rng() % 5), range, special));
			}
			snprintf(shape, sizeof(shape), "6000 pairs of 0-6 + 0-4 in runs of empty ones, "
					 "keys in [0, %" PRId64 ")", range);
			check_all(in, shape);
		}

		/* one giant pair among tiny ones */
		{
			batch<T>	in;

			for (int p = 0; p < 300; p++)
			{
				if (p == 150)
					in.add(keys<T>(rng, 20 * NV, range, special),
						   keys<T>(rng, 9 * NV, range, special));
				else
					in.add(keys<T>(rng, (int64_t) (rng() % 3), range, special),
						   keys<T>(rng, (int64_t) (rng() % 4), range, special));
			}
			snprintf(shape, sizeof(shape), "a pair of %d + %d among 300 tiny ones, "
					 "keys in [0, %" PRId64 ")", 20 * NV, 9 * NV, range);
			check_all(in, shape);
		}

		/* one side empty in every pair, then the other */
		for (int side = 0; side < 2; side++)
		{
			batch<T>	in;

			for (int p = 0; p < 40; p++)
			{
				std::vector<T> x = keys<T>(rng, (int64_t) (rng() % NV), range, special);

				if (side == 0)
					in.add(x, {});
				else
					in.add({}, x);
			}
			snprintf(shape, sizeof(shape), "40 pairs with %s side empty, keys in [0, %" PRId64 ")",
					 side == 0 ? "b's" : "a's", range);
			check_all(in, shape);
		}

		/* one pair made unsorted, in a or in b, among sorted ones */
		for (int side = 0; side < 2; side++)
			for (int trial = 0; trial < 6; trial++)
			{
				batch<T>	in;
				const int	bad = (int) (rng() % 20);

				for (int p = 0; p < 20; p++)
				{
					std::vector<T> x = keys<T>(rng, 2 + (int64_t) (rng() % NV), range, false),
								y = keys<T>(rng, 2 + (int64_t) (rng() % NV), range, false);
					std::vector<T> &z = side == 0 ? x : y;

					if (p == bad)
					{
						/* a key above the next one: its last copy moved up */
						size_t		k = (size_t) (rng() % (z.size() - 1));

						while (k + 1 < z.size() && !(ref_cmp(type_of<T>::t, &z[k], &z[k + 1]) < 0))
							k++;
						if (k + 1 == z.size())
						{
							z[0] = (T) 1;
							z[1] = (T) 0;
						}
						else
							std::swap(z[k], z[k + 1]);
					}
					in.add(x, y);
				}
				snprintf(shape, sizeof(shape), "pair %d of 20 unsorted in %s, keys in [0, %" PRId64 ")",
						 bad, side == 0 ? "a" : "b", range);
				check_all(in, shape, side);
			}
	}
}

}								/* namespace */

int
main(int argc, char **argv)
{
	uint64_t	seed = 20261207;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], nullptr, 10);
		else
		{
			fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
			return 2;
		}
	}
	shapes<int32_t>(seed);
	shapes<int64_t>(seed + 1);
	shapes<float>(seed + 2);
	shapes<double>(seed + 3);
	printf("batch kernels' threads on the host: %d checks, %s (seed %" PRIu64 ")\n",
		   checks, failures ? "FAILED" : "passed", seed);
	return failures ? 1 : 0;
}
