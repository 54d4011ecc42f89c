/*
 * test_search.c
 *		The backends' sorted search, semi and anti joins and inner join
 *		against reference.h's binary searches: needles absent from the
 *		haystack and beyond both its ends, all needles equal, a haystack of
 *		one key, NaN and -0/+0 runs, empty sides, tile edges, sizes far apart
 *		(the CPU's galloping and the GPU's sparse path), keys with very many
 *		partners, unsorted input in either argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

static const char *const kind_names[] = {"lower_bound", "upper_bound", "count"};

/* Every search kind and both semi joins on one input pair. */
static void
run_case(const backend *be, mp_type type, gen_kind gh, gen_kind gn, int64_t nh, int64_t nn)
{
	size_t		sz = mp_type_size(type);
	char	   *hay = xmalloc(nh * sz),
			   *needles = xmalloc(nn * sz),
			   *rows = xmalloc(nn * sz),
			   *want_rows = xmalloc(nn * sz);
	int32_t    *out = xmalloc(nn * sizeof(int32_t)),
			   *want = xmalloc(nn * sizeof(int32_t));
	char		what[64];

	gen_sorted(type, gh, nh, hay);
	gen_sorted(type, gn, nn, needles);
	for (int k = 0; k < 3; k++)
	{
		mp_search	kind = (mp_search) k;

		ref_search(kind, type, hay, nh, needles, nn, want);
		snprintf(what, sizeof(what), "%s %s in %s", kind_names[k], gen_names[gn], gen_names[gh]);
		for (int checked = 1; checked >= 0; checked--)
		{
			mp_status	st;

			memset(out, 0xA5, nn * sizeof(int32_t));
			st = be->search(kind, type, hay, nh, needles, nn, out, checked, NULL);
			check(st == MP_OK && memcmp(out, want, nn * sizeof(int32_t)) == 0,
				  st != MP_OK ? "bad status" : checked ? "wrong output" : "wrong output, check off",
				  what, be, type, nh, nn);
		}
	}
	for (int anti = 0; anti <= 1; anti++)
	{
		/* the needles play a, the haystack b */
		int64_t		nwant = ref_semijoin(anti, type, needles, nn, hay, nh, want_rows),
					nout = -1;
		mp_status	st;

		snprintf(what, sizeof(what), "%s %s by %s", anti ? "antijoin" : "semijoin",
				 gen_names[gn], gen_names[gh]);
		for (int checked = 1; checked >= 0; checked--)
		{
			memset(rows, 0xA5, nn * sz);
			st = be->semijoin(anti, type, needles, nn, hay, nh, rows, &nout, checked, NULL);
			check(st == MP_OK && nout == nwant && memcmp(rows, want_rows, nwant * sz) == 0,
				  st != MP_OK ? "bad status" : nout != nwant ? "wrong length" :
				  checked ? "wrong output" : "wrong output, check off", what, be, type, nn, nh);
		}
	}
	free(hay);
	free(needles);
	free(rows);
	free(want_rows);
	free(out);
	free(want);
}

/*
 * The join of a and b, fetched in pieces of `piece`; also refused (the
 * count alone) with max_pairs one below the count.
 */
static void
run_join(const backend *be, mp_type type, gen_kind ga, gen_kind gb, int64_t na, int64_t nb,
		 int64_t piece)
{
	size_t		sz = mp_type_size(type);
	char	   *a = xmalloc(na * sz),
			   *b = xmalloc(nb * sz);
	int64_t		nwant,
				npairs = -1;
	int32_t    *want_a,
			   *want_b,
			   *a_pos,
			   *b_pos;
	mp_status	st;
	char		what[64];

	gen_sorted(type, ga, na, a);
	gen_sorted(type, gb, nb, b);
	nwant = ref_join(type, a, na, b, nb, NULL, NULL);
	want_a = xmalloc(nwant * sizeof(int32_t));
	want_b = xmalloc(nwant * sizeof(int32_t));
	ref_join(type, a, na, b, nb, want_a, want_b);
	snprintf(what, sizeof(what), "join %s x %s", gen_names[ga], gen_names[gb]);

	for (int checked = 1; checked >= 0; checked--)
	{
		npairs = -1;
		st = be->join(type, a, na, b, nb, INT64_MAX, piece, &npairs, &a_pos, &b_pos, checked,
					  NULL);
		check(st == MP_OK && npairs == nwant &&
			  (nwant == 0 || (memcmp(a_pos, want_a, nwant * sizeof(int32_t)) == 0 &&
							  memcmp(b_pos, want_b, nwant * sizeof(int32_t)) == 0)),
			  st != MP_OK ? "bad status" : npairs != nwant ? "wrong pair count" :
			  checked ? "wrong pairs" : "wrong pairs, check off", what, be, type, na, nb);
		free(a_pos);
		free(b_pos);
	}
	if (nwant > 0)
	{
		npairs = -1;
		st = be->join(type, a, na, b, nb, nwant - 1, piece, &npairs, &a_pos, &b_pos, true, NULL);
		check(st == MP_OK && npairs == nwant && a_pos == NULL,
			  "over max_pairs: count only expected", what, be, type, na, nb);
	}
	free(a);
	free(b);
	free(want_a);
	free(want_b);
}

/*
 * With the check off, unsorted input still gives a result of the documented
 * shape: ranks within [0, n1], counts never negative, semi and anti joins
 * no longer than a, and exactly the pairs counted, each within both arrays.
 */
static void
check_off_shape(const backend *be, mp_type type, const char *x, int64_t n1, const char *y,
				int64_t n2, int32_t *out, char *rows)
{
	int64_t		nout,
				npairs = -1;
	int32_t    *a_pos = NULL,
			   *b_pos = NULL;
	bool		ok;

	for (int k = 0; k < 3; k++)
	{
		ok = be->search((mp_search) k, type, x, n1, y, n2, out, false, NULL) == MP_OK;
		for (int64_t j = 0; ok && j < n2; j++)
			ok = out[j] >= 0 && out[j] <= n1;
		check(ok, "check off: a rank or count out of [0, n]", kind_names[k], be, type, n1, n2);
	}
	for (int anti = 0; anti <= 1; anti++)
	{
		nout = -1;
		check(be->semijoin(anti, type, y, n2, x, n1, rows, &nout, false, NULL) == MP_OK &&
			  nout >= 0 && nout <= n2,
			  "check off must return cleanly", anti ? "antijoin" : "semijoin", be, type, n2, n1);
	}
	/* y plays a, x plays b */
	/* (beyond 4M pairs, the count alone) */
	ok = be->join(type, y, n2, x, n1, (int64_t) 1 << 22, 1000, &npairs, &a_pos, &b_pos, false,
				  NULL) == MP_OK && npairs >= 0;
	for (int64_t p = 0; ok && a_pos != NULL && p < npairs; p++)
		ok = a_pos[p] >= 0 && a_pos[p] < n2 && b_pos[p] >= 0 && b_pos[p] < n1;
	check(ok, "check off: the join's pairs out of shape", "join", be, type, n2, n1);
	free(a_pos);
	free(b_pos);
}

/* One element out of order in either argument of each function. */
/* n keys of 0..7 in random order */
static void
gen_shuffled(mp_type type, int64_t n, char *out)
{
	for (int64_t i = 0; i < n; i++)
		put(type, out, i, rnd_below(8), (double) rnd_below(8) - 0.5);
}

static void
run_unsorted(const backend *be, mp_type type, int64_t n1, int64_t n2, bool in_first)
{
	size_t		sz = mp_type_size(type);
	char	   *x = xmalloc(n1 * sz),
			   *y = xmalloc(n2 * sz),
			   *rows = xmalloc(n2 * sz);
	int32_t    *out = xmalloc(n2 * sizeof(int32_t)),
			   *a_pos,
			   *b_pos;
	char	   *bad = in_first ? x : y;
	int64_t		at = 1 + rnd_below((in_first ? n1 : n2) - 1),
				nout,
				npairs;

	gen_sorted(type, GEN_LOW, n1, x);
	gen_sorted(type, GEN_LOW, n2, y);
	put(type, bad, at, -5000, -5000.0);
	for (int k = 0; k < 3; k++)
	{
		check(be->search((mp_search) k, type, x, n1, y, n2, out, true, NULL) == MP_UNSORTED,
			  "unsorted input not reported", kind_names[k], be, type, n1, n2);
		check(be->search((mp_search) k, type, x, n1, y, n2, out, false, NULL) == MP_OK,
			  "check off must return cleanly", kind_names[k], be, type, n1, n2);
	}
	/* y plays a, x plays b */
	for (int anti = 0; anti <= 1; anti++)
	{
		check(be->semijoin(anti, type, y, n2, x, n1, rows, &nout, true, NULL) == MP_UNSORTED,
			  "unsorted input not reported", anti ? "antijoin" : "semijoin", be, type, n2, n1);
		nout = -1;
		check(be->semijoin(anti, type, y, n2, x, n1, rows, &nout, false, NULL) == MP_OK &&
			  nout >= 0 && nout <= n2,
			  "check off must return cleanly", anti ? "antijoin" : "semijoin", be, type, n2, n1);
	}
	check(be->join(type, y, n2, x, n1, INT64_MAX, 1 << 20, &npairs, &a_pos, &b_pos, true,
				   NULL) == MP_UNSORTED,
		  "unsorted input not reported", "join", be, type, n2, n1);
	check_off_shape(be, type, x, n1, y, n2, out, rows);

	/* nothing sorted at all: keys 0..7 in random order, duplicates galore */
	gen_shuffled(type, n1, x);
	gen_shuffled(type, n2, y);
	check_off_shape(be, type, x, n1, y, n2, out, rows);
	free(x);
	free(y);
	free(rows);
	free(out);
}

/* A cancel between chunks returns MP_CANCELLED, and the next call works. */
static void
run_cancel(const backend *be, mp_type type, int64_t n)
{
	size_t		sz = mp_type_size(type);
	char	   *hay = xmalloc(n * sz),
			   *needles = xmalloc(n * sz);
	int32_t    *out = xmalloc(n * sizeof(int32_t)),
			   *want = xmalloc(n * sizeof(int32_t));

	gen_sorted(type, GEN_WALK, n, hay);
	gen_sorted(type, GEN_WALK, n, needles);
	ref_search(MP_UPPER_BOUND, type, hay, n, needles, n, want);
	for (int after = 0; after < 3; after++)
	{
		polls_left = after;
		check(be->search(MP_UPPER_BOUND, type, hay, n, needles, n, out, true,
						 poll_countdown) == MP_CANCELLED,
			  "no cancel", "cancel upper_bound", be, type, n, n);
		memset(out, 0xA5, n * sizeof(int32_t));
		check(be->search(MP_UPPER_BOUND, type, hay, n, needles, n, out, true, NULL) == MP_OK &&
			  memcmp(out, want, n * sizeof(int32_t)) == 0,
			  "wrong output after a cancel", "cancel upper_bound", be, type, n, n);
	}
	free(hay);
	free(needles);
	free(out);
	free(want);
}

void
run_search_tests(const backend *be)
{
	int64_t		big = quick ? 300000 : 10000000;

	for (int t = 0; t < 4; t++)
	{
		mp_type		type = (mp_type) t;

		if (!shard_takes(t))
			continue;

		/* every split of tiny sizes */
		for (int64_t n = 0; n <= (quick ? 6 : 10); n++)
			for (int64_t nh = 0; nh <= n; nh++)
				if (sweep_takes())
					run_case(be, type, GEN_TINY, GEN_TINY, nh, n - nh);

		/* every pair of shapes: absent needles, beyond either end (LOW in
		 * HIGH and back), one key, NaN and -0/+0 runs, empty sides */
		{
			const int64_t sizes[][2] = {{0, 7}, {7, 0}, {1, 1}, {1920, 1920}, {4097, 4095},
			{33333, 22222}};

			for (int gh = 0; gh < GEN_WALK; gh++)
				for (int gn = 0; gn < GEN_WALK; gn++)
					for (size_t s = 0; s < (quick ? 3 : sizeof(sizes) / sizeof(sizes[0])); s++)
						if (sweep_takes())
							run_case(be, type, (gen_kind) gh, (gen_kind) gn, sizes[s][0],
									 sizes[s][1]);
		}

		/* sizes far apart: galloping on the CPU, the sparse path on the GPU */
		run_case(be, type, GEN_LOW, GEN_LOW, 40000, 3);
		run_case(be, type, GEN_LOW, GEN_LOW, 3, 40000);
		run_case(be, type, GEN_TINY, GEN_TINY, 5000, 5);
		run_case(be, type, GEN_EQUAL, GEN_EQUAL, 3000, 20);
		run_case(be, type, GEN_SPECIAL, GEN_SPECIAL, 3000, 20);
		run_case(be, type, GEN_LOW, GEN_HIGH, 100000, 10);
		run_case(be, type, GEN_HIGH, GEN_LOW, 100000, 10);
		run_case(be, type, GEN_WALK, GEN_WIDE, big, quick ? 3000 : 30000);
		run_case(be, type, GEN_WALK, GEN_WALK, big, big / 16);
		run_case(be, type, GEN_WALK, GEN_WALK, big, big / 16 + 1);

		/* many tiles of one key, and big inputs */
		run_case(be, type, GEN_TINY, GEN_TINY, big / 10, big / 10 + 1);
		run_case(be, type, GEN_EQUAL, GEN_EQUAL, big / 20, big / 30);
		run_case(be, type, GEN_WALK, GEN_WALK, big, big);

		/* totals at every multiple of 128 up to 80 * 128 and one either side
		 * (every ninth multiple when quick) */
		for (int64_t k = 1; k <= 80; k += quick ? 9 : 1)
			for (int64_t d = -1; d <= 1; d++)
			{
				int64_t		n = k * 128 + d;
				int64_t		nh = rnd_below(n + 1);

				if (!sweep_takes())
					continue;
				run_case(be, type, (gen_kind) rnd_below(GEN_WALK), (gen_kind) rnd_below(GEN_WALK),
						 nh, n - nh);
				if (!quick)
					run_case(be, type, GEN_TINY, GEN_TINY, n / 2, n - n / 2);
			}

		/* joins: every shape pair at sizes whose pairs stay few enough */
		for (int ga = 0; ga < GEN_WALK; ga++)
			for (int gb = 0; gb < GEN_WALK; gb++)
			{
				if (!sweep_takes())
					continue;
				if (!quick)
				{
					run_join(be, type, (gen_kind) ga, (gen_kind) gb, 0, 5, 7);
					run_join(be, type, (gen_kind) ga, (gen_kind) gb, 5, 0, 7);
				}
				run_join(be, type, (gen_kind) ga, (gen_kind) gb, 37, 45, 7);
				run_join(be, type, (gen_kind) ga, (gen_kind) gb, 700, 300, 1000);
			}
		run_join(be, type, GEN_WALK, GEN_WALK, big / 4, big / 4, 65536);
		run_join(be, type, GEN_LOW, GEN_WALK, 1000, big / 10, 65536);
		run_join(be, type, GEN_WALK, GEN_LOW, big / 10, 1000, 65536);
		/* a key with a million partners, and every element paired */
		run_join(be, type, GEN_EQUAL, GEN_EQUAL, 3, quick ? 100000 : 1000000, 65536);
		run_join(be, type, GEN_EQUAL, GEN_EQUAL, 2000, 1500, 65536);
		run_join(be, type, GEN_TINY, GEN_TINY, 3000, 2500, 100000);

		/* unsorted, in either argument, both paths */
		for (int i = 0; i < 4; i++)
			run_unsorted(be, type, 2 + rnd_below(quick ? 5000 : 300000),
						 2 + rnd_below(quick ? 5000 : 300000), i % 2 == 0);
		run_unsorted(be, type, 100000, 20, true);
		run_unsorted(be, type, 100000, 20, false);
		run_unsorted(be, type, 20, 100000, true);
		run_unsorted(be, type, 2, 2, false);
		run_unsorted(be, type, 32 * 64, 2, true);	/* galloping / sparse, 32x and more */
		run_unsorted(be, type, 64 * 1000, 30, false);

		run_cancel(be, type, quick ? 2500000 : 6000000);
	}
}
