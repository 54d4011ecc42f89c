/*
 * test_merge.c
 *		The backends' merge against reference.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

/* One merge on one backend, output poisoned first, compared byte for byte. */
static void
run_case(const backend *be, mp_type type, gen_kind ga, gen_kind gb, int64_t na, int64_t nb)
{
	size_t		sz = mp_type_size(type);
	char	   *a = xmalloc(na * sz),
			   *b = xmalloc(nb * sz),
			   *out = xmalloc((na + nb) * sz),
			   *want = xmalloc((na + nb) * sz);
	mp_status	st;
	char		what[64];

	gen_sorted(type, ga, na, a);
	gen_sorted(type, gb, nb, b);
	ref_merge(type, a, na, b, nb, want);
	memset(out, 0xA5, (na + nb) * sz);
	st = be->merge(type, a, na, b, nb, out, true, NULL);
	snprintf(what, sizeof(what), "merge %s+%s", gen_names[ga], gen_names[gb]);
	check(st == MP_OK && memcmp(out, want, (na + nb) * sz) == 0,
		  st == MP_OK ? "wrong output" : "bad status", what, be, type, na, nb);

	/* the unchecked path merges the same way */
	memset(out, 0xA5, (na + nb) * sz);
	st = be->merge(type, a, na, b, nb, out, false, NULL);
	check(st == MP_OK && memcmp(out, want, (na + nb) * sz) == 0,
		  "wrong output, check off", what, be, type, na, nb);
	free(a);
	free(b);
	free(out);
	free(want);
}

/*
 * One element made smaller than its predecessor, in a or in b, or
 * (descending) the whole side in descending order, so that the splits and
 * every thread's share come out of garbage: the backend must say
 * MP_UNSORTED, and mp_first_unsorted must find the same element as the
 * reference.  With the check off it must still return cleanly.
 */
static void
run_unsorted(const backend *be, mp_type type, gen_kind gen, int64_t na, int64_t nb, bool in_a,
			 bool descending)
{
	size_t		sz = mp_type_size(type);
	char	   *a = xmalloc(na * sz),
			   *b = xmalloc(nb * sz),
			   *out = xmalloc((na + nb) * sz);
	char	   *x = in_a ? a : b;
	int64_t		n = in_a ? na : nb;
	int64_t		at = descending ? 1 : 1 + rnd_below(n - 1);
	mp_status	st;

	gen_sorted(type, gen, na, a);
	gen_sorted(type, gen, nb, b);
	/* x[at] := x[at - 1] - 1 or less: below its predecessor in any type */
	put(type, x, at, -5000, -5000.0);
	for (int64_t i = 0; descending && i < n; i++)
		put(type, x, i, 3 * (n - i), (double) (3 * (n - i)));
	st = be->merge(type, a, na, b, nb, out, true, NULL);
	check(st == MP_UNSORTED, in_a ? "unsorted a not reported" : "unsorted b not reported",
		  "unsorted", be, type, na, nb);
	check(mp_first_unsorted(type, x, n) == ref_first_unsorted(type, x, n) &&
		  ref_first_unsorted(type, x, n) == at,
		  "wrong first offending position", "unsorted", be, type, na, nb);
	st = be->merge(type, a, na, b, nb, out, false, NULL);
	check(st == MP_OK, "check off must not fail", "unsorted", be, type, na, nb);
	free(a);
	free(b);
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
	mp_status	st;

	gen_sorted(type, GEN_WALK, n, a);
	gen_sorted(type, GEN_WALK, n, b);
	ref_merge(type, a, n, b, n, want);
	for (int after = 0; after < 3; after++)
	{
		polls_left = after;
		st = be->merge(type, a, n, b, n, out, true, poll_countdown);
		check(st == MP_CANCELLED, "no cancel", "cancel", be, type, n, n);
		memset(out, 0xA5, 2 * n * sz);
		st = be->merge(type, a, n, b, n, out, true, NULL);
		check(st == MP_OK && memcmp(out, want, 2 * n * sz) == 0, "wrong output after a cancel",
			  "cancel", be, type, n, n);
	}
	free(a);
	free(b);
	free(out);
	free(want);
}

void
run_merge_tests(const backend *be)
{
	int64_t		big = quick ? 300000 : 10000000;

	for (int t = 0; t < 4; t++)
	{
		mp_type		type = (mp_type) t;

		if (!shard_takes(t))
			continue;

		/* every split of tiny sizes */
		for (int64_t n = 0; n <= 12; n++)
			for (int64_t na = 0; na <= n; na++)
				if (sweep_takes())
					run_case(be, type, GEN_TINY, GEN_TINY, na, n - na);

		/* totals at every multiple of 128 up to 80 * 128 and one either side:
		 * every tile NT * VT with NT a multiple of 128 has its edges here,
		 * the tiles in use their first two */
		for (int64_t k = 1; k <= 80; k++)
			for (int64_t d = -1; d <= 1; d++)
			{
				int64_t		n = k * 128 + d;
				int64_t		na = rnd_below(n + 1);

				if (!sweep_takes())
					continue;
				run_case(be, type, (gen_kind) rnd_below(GEN_WALK), (gen_kind) rnd_below(GEN_WALK),
						 na, n - na);
				if (quick)
					continue;
				run_case(be, type, GEN_TINY, GEN_TINY, n, 0);
				run_case(be, type, GEN_EQUAL, GEN_EQUAL, 1, n - 1);
			}

		/* every pair of shapes at a few sizes */
		{
			const int64_t sizes[][2] = {{1, 1}, {1, 5000}, {5000, 1}, {1920, 1920},
			{1407, 1409}, {4099, 3}, {3, 40000}, {33333, 22222}};

			for (int ga = 0; ga < GEN_WALK; ga++)
				for (int gb = 0; gb < GEN_WALK; gb++)
					for (size_t s = 0; s < (quick ? 4 : sizeof(sizes) / sizeof(sizes[0])); s++)
						if (sweep_takes())
							run_case(be, type, (gen_kind) ga, (gen_kind) gb, sizes[s][0],
									 sizes[s][1]);
		}

		/* around the CPU poll chunk and the GPU staging chunk (4 MB) */
		if (!quick)
		{
			int64_t		chunk = ((int64_t) 4 << 20) / (int64_t) mp_type_size(type);

			run_case(be, type, GEN_WALK, GEN_WALK, (1 << 20) - 1, (1 << 20) + 1);
			run_case(be, type, GEN_WALK, GEN_WALK, chunk, chunk + 1);
			run_case(be, type, GEN_WALK, GEN_WALK, 3 * chunk - 1, 0);
		}

		/* big, and very unequal */
		run_case(be, type, GEN_WALK, GEN_WALK, big, big);
		run_case(be, type, GEN_WALK, GEN_TINY, big, 3);
		run_case(be, type, GEN_TINY, GEN_WALK, 2, big);

		for (int i = 0; i < 20; i++)
		{
			int64_t		na = 2 + rnd_below(quick ? 5000 : 300000);
			int64_t		nb = 2 + rnd_below(quick ? 5000 : 300000);

			run_unsorted(be, type, GEN_LOW, na, nb, i % 2 == 0, false);
		}
		run_unsorted(be, type, GEN_LOW, 2, 2, true, false);
		run_unsorted(be, type, GEN_LOW, 2, 2, false, false);
		run_unsorted(be, type, GEN_LOW, quick ? 10000 : 3000000, 5, true, false);
		run_unsorted(be, type, GEN_EQUAL, 50000, 50000, true, false);
		run_unsorted(be, type, GEN_TINY, 50000, 50000, false, false);
		run_unsorted(be, type, GEN_LOW, 2, 1, true, true);
		run_unsorted(be, type, GEN_LOW, 70000, 30000, true, true);
		run_unsorted(be, type, GEN_LOW, 30000, 70000, false, true);
		run_unsorted(be, type, GEN_LOW, 5000, 0, true, true);

		run_cancel(be, type, quick ? 2500000 : 6000000);
	}
}

