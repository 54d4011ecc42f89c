/*
 * test_setops.c
 *		The backends' multiset operations against reference.h's, on inputs
 *		that stress Balanced Path: runs of equal keys across many tiles,
 *		sides of one key, -0 and +0 and NaN runs whose copies must come from
 *		the right side, tile edges, and sides of very different sizes (the
 *		CPU's galloping path).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

static const char *const op_names[] = {"intersect", "union", "except", "symdiff"};

/* One operation on one backend, output poisoned, compared byte for byte. */
static void
run_case(const backend *be, mp_setop op, mp_type type, gen_kind ga, gen_kind gb,
		 int64_t na, int64_t nb)
{
	size_t		sz = mp_type_size(type);
	int64_t		cap = mp_setop_capacity(op, na, nb);
	char	   *a = xmalloc(na * sz),
			   *b = xmalloc(nb * sz),
			   *out = xmalloc(cap * sz),
			   *want = xmalloc((na + nb) * sz);
	int64_t		nwant,
				nout = -1;
	mp_status	st;
	char		what[64];

	gen_sorted(type, ga, na, a);
	gen_sorted(type, gb, nb, b);
	nwant = ref_setop(op, type, a, na, b, nb, want);
	snprintf(what, sizeof(what), "%s %s+%s", op_names[op], gen_names[ga], gen_names[gb]);
	for (int checked = 1; checked >= 0; checked--)
	{
		memset(out, 0xA5, cap * sz);
		st = be->setop(op, type, a, na, b, nb, out, &nout, checked, NULL);
		check(st == MP_OK && nout == nwant && memcmp(out, want, nwant * sz) == 0,
			  st != MP_OK ? "bad status" : nout != nwant ? "wrong length" :
			  checked ? "wrong output" : "wrong output, check off", what, be, type, na, nb);
	}
	check(nwant <= cap && nwant >= mp_setop_minimum(op, na, nb),
		  "reference outside the capacity bounds", what, be, type, na, nb);
	free(a);
	free(b);
	free(out);
	free(want);
}

/*
 * One element of a or b made smaller than its predecessor, or (descending)
 * the whole side in descending order, so that the splits and every thread's
 * share come out of garbage: MP_UNSORTED with the check on, a clean return
 * with it off.
 */
static void
run_unsorted(const backend *be, mp_setop op, mp_type type, gen_kind ga, gen_kind gb,
			 int64_t na, int64_t nb, bool in_a, bool descending)
{
	size_t		sz = mp_type_size(type);
	char	   *a = xmalloc(na * sz),
			   *b = xmalloc(nb * sz),
			   *out = xmalloc(mp_setop_capacity(op, na, nb) * sz);
	char	   *x = in_a ? a : b;
	int64_t		at = 1 + rnd_below((in_a ? na : nb) - 1);
	int64_t		nout;
	mp_status	st;
	char		what[64];

	gen_sorted(type, ga, na, a);
	gen_sorted(type, gb, nb, b);
	put(type, x, at, -5000, -5000.0);
	for (int64_t i = 0, n = in_a ? na : nb; descending && i < n; i++)
		put(type, x, i, 3 * (n - i), (double) (3 * (n - i)));
	snprintf(what, sizeof(what), "%s %s %s+%s", descending ? "descending" : "unsorted",
			 op_names[op], gen_names[ga], gen_names[gb]);
	st = be->setop(op, type, a, na, b, nb, out, &nout, true, NULL);
	check(st == MP_UNSORTED, in_a ? "unsorted a not reported" : "unsorted b not reported",
		  what, be, type, na, nb);
	nout = -1;
	st = be->setop(op, type, a, na, b, nb, out, &nout, false, NULL);
	check(st == MP_OK && nout >= 0 && nout <= mp_setop_capacity(op, na, nb),
		  "check off must return cleanly", what, be, type, na, nb);
	free(a);
	free(b);
	free(out);
}

/*
 * A NaN inside one side of sorted floats, with numbers after it: unsorted
 * (NaN sorts last), though the side still ends in a number, as the tiles'
 * fast steps look at.
 */
static void
run_nan_inside(const backend *be, mp_setop op, mp_type type, int64_t na, int64_t nb, bool in_a)
{
	size_t		sz = mp_type_size(type);
	char	   *a = xmalloc(na * sz),
			   *b = xmalloc(nb * sz),
			   *out = xmalloc(mp_setop_capacity(op, na, nb) * sz);
	int64_t		n = in_a ? na : nb;
	int64_t		nout;

	gen_sorted(type, GEN_LOW, na, a);
	gen_sorted(type, GEN_LOW, nb, b);
	put(type, in_a ? a : b, rnd_below(n - 1), 0, NAN);
	check(be->setop(op, type, a, na, b, nb, out, &nout, true, NULL) == MP_UNSORTED,
		  in_a ? "NaN inside a not reported" : "NaN inside b not reported",
		  "NaN inside", be, type, na, nb);
	nout = -1;
	check(be->setop(op, type, a, na, b, nb, out, &nout, false, NULL) == MP_OK &&
		  nout >= 0 && nout <= mp_setop_capacity(op, na, nb),
		  "check off must return cleanly", "NaN inside", be, type, na, nb);
	free(a);
	free(b);
	free(out);
}

/*
 * a ascends in runs of `period` elements, each run starting below the last
 * one's end, and b is empty: with a period that is a tile's length, every
 * descent falls where a tile's window starts, and only the comparison with
 * the element in front of the window finds it.
 */
static void
run_sawtooth(const backend *be, mp_setop op, mp_type type, int64_t period)
{
	size_t		sz = mp_type_size(type);
	int64_t		n = 2 * period + 5;
	char	   *a = xmalloc(n * sz),
			   *out = xmalloc(n * sz);
	int64_t		nout;

	for (int64_t i = 0; i < n; i++)
		put(type, a, i, i % period - i / period, (double) (i % period - i / period));
	check(be->setop(op, type, a, n, a, 0, out, &nout, true, NULL) == MP_UNSORTED,
		  "descent at a run start not reported", "unsorted sawtooth", be, type, n, period);
	free(a);
	free(out);
}

/* A cancel between chunks returns MP_CANCELLED, and the next call works. */
static void
run_cancel(const backend *be, mp_type type, int64_t n)
{
	size_t		sz = mp_type_size(type);
	char	   *a = xmalloc(n * sz),
			   *b = xmalloc(n * sz),
			   *out = xmalloc(2 * n * sz),
			   *want = xmalloc(2 * n * sz);
	int64_t		nwant,
				nout;
	mp_status	st;

	gen_sorted(type, GEN_WALK, n, a);
	gen_sorted(type, GEN_WALK, n, b);
	nwant = ref_setop(MP_UNION, type, a, n, b, n, want);
	for (int after = 0; after < 3; after++)
	{
		polls_left = after;
		st = be->setop(MP_UNION, type, a, n, b, n, out, &nout, true, poll_countdown);
		check(st == MP_CANCELLED, "no cancel", "cancel union", be, type, n, n);
		memset(out, 0xA5, 2 * n * sz);
		st = be->setop(MP_UNION, type, a, n, b, n, out, &nout, true, NULL);
		check(st == MP_OK && nout == nwant && memcmp(out, want, nwant * sz) == 0,
			  "wrong output after a cancel", "cancel union", be, type, n, n);
	}
	free(a);
	free(b);
	free(out);
	free(want);
}

void
run_setop_tests(const backend *be)
{
	int64_t		big = quick ? 300000 : 10000000;

	for (int t = 0; t < 4; t++)
	{
		mp_type		type = (mp_type) t;

		if (!shard_takes(t))
			continue;

		for (int o = 0; o < 4; o++)
		{
			mp_setop	op = (mp_setop) o;

			/* every split of tiny sizes */
			for (int64_t n = 0; n <= 10; n++)
				for (int64_t na = 0; na <= n; na++)
					if (sweep_takes())
						run_case(be, op, type, GEN_TINY, GEN_TINY, na, n - na);

			/* every pair of shapes at a few sizes, one side empty included */
			{
				const int64_t sizes[][2] = {{0, 7}, {7, 0}, {1, 1}, {1920, 1920}, {4097, 4095},
				{33333, 22222}};

				for (int ga = 0; ga < GEN_WALK; ga++)
					for (int gb = 0; gb < GEN_WALK; gb++)
						for (size_t s = 0; s < (quick ? 4 : sizeof(sizes) / sizeof(sizes[0])); s++)
							if (sweep_takes())
								run_case(be, op, type, (gen_kind) ga, (gen_kind) gb,
										 sizes[s][0], sizes[s][1]);
			}

			/* very different sizes: the CPU gallops over the large side */
			run_case(be, op, type, GEN_LOW, GEN_LOW, 3, 40000);
			run_case(be, op, type, GEN_LOW, GEN_LOW, 40000, 3);
			run_case(be, op, type, GEN_TINY, GEN_TINY, 5, 5000);
			run_case(be, op, type, GEN_TINY, GEN_TINY, 5000, 5);
			run_case(be, op, type, GEN_EQUAL, GEN_EQUAL, 20, 3000);
			run_case(be, op, type, GEN_SPECIAL, GEN_SPECIAL, 3000, 20);
			run_case(be, op, type, GEN_HIGH, GEN_LOW, 10, 100000);
			run_case(be, op, type, GEN_WALK, GEN_WALK, quick ? 3000 : 30000, big);

			/* runs of one key across many tiles, and big inputs */
			run_case(be, op, type, GEN_TINY, GEN_TINY, big / 10, big / 10 + 1);
			run_case(be, op, type, GEN_EQUAL, GEN_EQUAL, big / 20, big / 30);
			run_case(be, op, type, GEN_WALK, GEN_WALK, big, big);

			/* unsorted, in either side, in each path, also where the other
			 * side runs out first (the rest is only checked) */
			for (int i = 0; i < 6; i++)
			{
				int64_t		na = 2 + rnd_below(quick ? 5000 : 300000);
				int64_t		nb = 2 + rnd_below(quick ? 5000 : 300000);

				run_unsorted(be, op, type, GEN_LOW, GEN_LOW, na, nb, i % 2 == 0, false);
			}
			run_unsorted(be, op, type, GEN_LOW, GEN_HIGH, 1000, 20000, false, false);
			run_unsorted(be, op, type, GEN_HIGH, GEN_LOW, 20000, 1000, true, false);
			run_unsorted(be, op, type, GEN_LOW, GEN_LOW, 20, 100000, false, false);
			run_unsorted(be, op, type, GEN_LOW, GEN_LOW, 100000, 20, true, false);
			run_unsorted(be, op, type, GEN_LOW, GEN_LOW, 100000, 20, false, false);
			run_unsorted(be, op, type, GEN_LOW, GEN_LOW, 2, 2, true, false);
			run_unsorted(be, op, type, GEN_EQUAL, GEN_EQUAL, 50000, 50000, true, false);
			run_unsorted(be, op, type, GEN_TINY, GEN_TINY, 50000, 50000, false, false);
			run_unsorted(be, op, type, GEN_LOW, GEN_LOW, 2, 1, true, true);
			run_unsorted(be, op, type, GEN_LOW, GEN_LOW, 70000, 30000, true, true);
			run_unsorted(be, op, type, GEN_LOW, GEN_LOW, 30000, 70000, false, true);
			run_unsorted(be, op, type, GEN_LOW, GEN_LOW, 5000, 0, true, true);
			for (int i = 0; type >= MP_FLOAT4 && i < 6; i++)
				run_nan_inside(be, op, type, 2 + rnd_below(quick ? 20000 : 300000),
							   2 + rnd_below(quick ? 20000 : 300000), i % 2 == 0);
		}

		/* totals at every multiple of 128 up to 80 * 128 and one either side,
		 * the operation taking turns */
		for (int64_t k = 1; k <= 80; k++)
			for (int64_t d = -1; d <= 1; d++)
			{
				int64_t		n = k * 128 + d;
				int64_t		na = rnd_below(n + 1);
				mp_setop	op = (mp_setop) ((k * 3 + d + 1) % 4);

				if (!sweep_takes())
					continue;
				run_case(be, op, type, (gen_kind) rnd_below(GEN_WALK),
						 (gen_kind) rnd_below(GEN_WALK), na, n - na);
				if (quick)
					continue;
				run_case(be, op, type, GEN_TINY, GEN_TINY, n / 2, n - n / 2);
				run_case(be, op, type, GEN_EQUAL, GEN_EQUAL, na, n - na);
			}

		for (int64_t k = 1; k <= 40; k++)
			if (sweep_takes())
				run_sawtooth(be, (mp_setop) (k % 4), type, k * 128);

		run_cancel(be, type, quick ? 2500000 : 6000000);
	}
}
