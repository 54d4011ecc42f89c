/*
 * test_sort.c
 *		The backends' sort and unique against a reference written here: a
 *		qsort of positions by reference.h's comparison, ties broken by
 *		position (so stable by construction, and independent of the keys
 *		both backends sort by), and a loop that keeps the first of each run.
 *		Inputs: shuffled, already sorted, reverse sorted, all equal (-0 and
 *		+0 mixed), NaNs of both signs and many payloads, extremes, narrow
 *		and wide keys, sizes at the merge sort's runs and the radix sort's
 *		threshold, and 10^7 elements; every output poisoned first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

/* How an input is laid out from a sorted draw. */
typedef enum layout
{
	LAY_SHUFFLED,
	LAY_SORTED,
	LAY_REVERSED,
	LAY_NEARLY,					/* sorted, with a few elements swapped */
	NUM_LAYOUTS,
	LAY_SEAM = NUM_LAYOUTS		/* sorted but for one swap where the first
								 * thread's part of the sort ends */
} layout;

static const char *const layout_names[] = {"shuffled", "sorted", "reversed", "nearly sorted",
"swapped at a thread's seam"};

static void
lay_out(mp_type type, gen_kind gen, layout lay, int64_t n, void *x)
{
	size_t		sz = mp_type_size(type);
	char		t[8];

	gen_sorted(type, gen, n, x);
	for (int64_t i = 0; i < n; i++)
	{
		int64_t		j = -1;

		switch (lay)
		{
			case LAY_SHUFFLED:
				j = i + rnd_below(n - i);
				break;
			case LAY_REVERSED:
				j = i < n / 2 ? n - 1 - i : -1;
				break;
			case LAY_NEARLY:
				j = rnd_below(64) == 0 ? rnd_below(n) : -1;
				break;
			case LAY_SEAM:
				j = i == n / mp_cpu_threads - 1 ? i + 1 : -1;
				break;
			default:
				break;
		}
		if (j >= 0)
		{
			memcpy(t, (char *) x + i * sz, sz);
			memcpy((char *) x + i * sz, (char *) x + j * sz, sz);
			memcpy((char *) x + j * sz, t, sz);
		}
	}
}

/* The backend's sort of x[0..n) against the reference; x is kept. */
static void
check_sort(const backend *be, mp_type type, const char *x, int64_t n, const char *what)
{
	size_t		sz = mp_type_size(type);
	char	   *copy = xmalloc(n * sz),
			   *out = xmalloc(n * sz),
			   *want = xmalloc(n * sz);
	mp_status	st;

	memcpy(copy, x, n * sz);
	ref_sort(type, x, n, want);
	memset(out, 0xA5, n * sz);
	st = be->sort(type, x, n, out, NULL);
	check(st == MP_OK && memcmp(out, want, n * sz) == 0 && memcmp(x, copy, n * sz) == 0,
		  st != MP_OK ? "bad status" : memcmp(x, copy, n * sz) ? "input changed" : "wrong output",
		  what, be, type, n, 0);
	free(copy);
	free(out);
	free(want);
}

static void
run_sort_case(const backend *be, mp_type type, gen_kind gen, layout lay, int64_t n)
{
	char	   *x = xmalloc(n * mp_type_size(type));
	char		what[64];

	lay_out(type, gen, lay, n, x);
	snprintf(what, sizeof(what), "sort %s %s", layout_names[lay], gen_names[gen]);
	check_sort(be, type, x, n, what);
	free(x);
}

/*
 * Numbers with a single NaN among them, its sign bit set or clear.  CUB's
 * radix sort puts the one kind first and the other last, and the GPU
 * backend learns that the input holds NaNs from the sorted values' two
 * ends, so each end is tried alone.
 */
static void
run_sort_one_nan(const backend *be, mp_type type, int64_t n, bool negative)
{
	size_t		sz = mp_type_size(type);
	char	   *x = xmalloc(n * sz);
	int64_t		at = rnd_below(n);

	lay_out(type, GEN_WIDE, LAY_SHUFFLED, n, x);
	if (type == MP_FLOAT4)
	{
		uint32_t	bits = 0x7FC00000u | (uint32_t) (rnd() & 0x3FFFFF) |
			(negative ? 0x80000000u : 0);

		memcpy(x + at * sz, &bits, sz);
	}
	else
	{
		uint64_t	bits = 0x7FF8000000000000u | (rnd() & 0x7FFFFFFFFFFFFu) |
			(negative ? 0x8000000000000000u : 0);

		memcpy(x + at * sz, &bits, sz);
	}
	check_sort(be, type, x, n, negative ? "sort, one NaN with the sign bit" :
			   "sort, one NaN without the sign bit");
	free(x);
}

static void
run_unique_case(const backend *be, mp_type type, gen_kind gen, int64_t n)
{
	size_t		sz = mp_type_size(type);
	char	   *x = xmalloc(n * sz),
			   *out = xmalloc(n * sz),
			   *want = xmalloc(n * sz);
	int64_t		nwant,
				nout;
	char		what[64];

	gen_sorted(type, gen, n, x);
	nwant = ref_unique(type, x, n, want);
	snprintf(what, sizeof(what), "unique %s", gen_names[gen]);
	for (int checked = 1; checked >= 0; checked--)
	{
		mp_status	st;

		memset(out, 0xA5, n * sz);
		nout = -1;
		st = be->unique(type, x, n, out, &nout, checked, NULL);
		check(st == MP_OK && nout == nwant && memcmp(out, want, nwant * sz) == 0,
			  st != MP_OK ? "bad status" : nout != nwant ? "wrong length" : "wrong output",
			  what, be, type, n, 0);
	}

	/* a descent anywhere is refused with the check on; without, no crash */
	if (n >= 2 && ref_cmp(type, x, x + (n - 1) * sz) < 0)
	{
		int64_t		i = 1 + rnd_below(n - 1);
		char		t[8];

		/* swap an element with one that is greater, so the order breaks */
		int64_t		j = n - 1;

		if (ref_cmp(type, x + (i - 1) * sz, x + j * sz) < 0)
		{
			memcpy(t, x + (i - 1) * sz, sz);
			memcpy(x + (i - 1) * sz, x + j * sz, sz);
			memcpy(x + j * sz, t, sz);
			check(be->unique(type, x, n, out, &nout, true, NULL) == MP_UNSORTED,
				  "unsorted input accepted", what, be, type, n, 0);
			check(be->unique(type, x, n, out, &nout, false, NULL) == MP_OK,
				  "unchecked unsorted input failed", what, be, type, n, 0);
		}
	}
	free(x);
	free(out);
	free(want);
}

/* mp_copy_checked copies all and finds the first descent (CPU only). */
static void
run_copy_checked(mp_type type, gen_kind gen, int64_t n)
{
	const backend none = {"cpu", NULL};
	size_t		sz = mp_type_size(type);
	char	   *x = xmalloc(n * sz),
			   *out = xmalloc(n * sz);

	for (int round = 0; round < 2; round++)
	{
		int64_t		want = -1,
					got;

		gen_sorted(type, gen, n, x);
		if (round == 1 && n >= 2)
			lay_out(type, gen, LAY_NEARLY, n, x);
		for (int64_t i = 1; i < n && want < 0; i++)
			if (ref_cmp(type, x + i * sz, x + (i - 1) * sz) < 0)
				want = i;
		memset(out, 0xA5, n * sz);
		got = mp_copy_checked(type, x, n, out);
		check(got == want && memcmp(out, x, n * sz) == 0, "wrong copy or position",
			  "copy_checked", &none, type, n, 0);
	}
	free(x);
	free(out);
}

/* A cancel between chunks returns MP_CANCELLED, and the next call works. */
static void
run_sort_cancel(const backend *be, mp_type type, int64_t n)
{
	size_t		sz = mp_type_size(type);
	char	   *x = xmalloc(n * sz),
			   *out = xmalloc(n * sz),
			   *want = xmalloc(n * sz);

	lay_out(type, GEN_WIDE, LAY_SHUFFLED, n, x);
	ref_sort(type, x, n, want);
	for (int after = quick ? 1 : 0; after < (quick ? 2 : 3); after++)
	{
		polls_left = after;
		check(be->sort(type, x, n, out, poll_countdown) == MP_CANCELLED,
			  "no cancel", "cancel sort", be, type, n, 0);
		memset(out, 0xA5, n * sz);
		check(be->sort(type, x, n, out, NULL) == MP_OK && memcmp(out, want, n * sz) == 0,
			  "wrong output after a cancel", "cancel sort", be, type, n, 0);
	}
	free(x);
	free(out);
	free(want);
}

/*
 * The CPU sort on several threads: sizes either side of where it starts
 * using them, thread counts that do not divide them, an input whose only
 * disorder is at the seam of two threads' parts.
 */
static void
run_sort_thread_tests(const backend *be)
{
	static const int threads[] = {2, 3, 7};
	int			saved = mp_cpu_threads;

	for (size_t t = quick ? 1 : 0; t < (quick ? 2 : sizeof(threads) / sizeof(threads[0])); t++)
	{
		mp_cpu_threads = threads[t];
		for (int ty = 0; ty < 4; ty++)
		{
			const int64_t sizes[] = {2 * MP_SORT_THREAD_MIN - 1, 2 * MP_SORT_THREAD_MIN, 1000003};

			for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			{
				run_sort_case(be, (mp_type) ty, GEN_WIDE, LAY_SHUFFLED, sizes[s]);
				run_sort_case(be, (mp_type) ty, GEN_SPECIAL, LAY_NEARLY, sizes[s]);
				run_sort_case(be, (mp_type) ty, GEN_WIDE, LAY_SEAM, sizes[s]);
			}
		}
	}
	mp_cpu_threads = saved;
}

void
run_sort_tests(const backend *be)
{
	int64_t		big = quick ? 300000 : 10000000;

	if (strcmp(be->name, "cpu") == 0 && shard_takes(0))
		run_sort_thread_tests(be);

	for (int t = 0; t < 4; t++)
	{
		mp_type		type = (mp_type) t;

		if (!shard_takes(t))
			continue;

		/* every size up to 1600 (the merge sort's runs, the CPU's
		 * thresholds of 4-byte and 8-byte elements: merge sort, byte digits,
		 * 11-bit digits) */
		for (int64_t n = 0; n <= 1600; n += quick ? (n > 20 ? 23 : 1) : (n > 400 ? 7 : 1))
			if (sweep_takes())
				run_sort_case(be, type, (gen_kind) rnd_below(GEN_WALK), LAY_SHUFFLED, n);

		/* every shape and layout at sizes on both sides of the thresholds
		 * and around the GPU's tiles and staging chunks */
		{
			const int64_t sizes[] = {17, 63, 64, 65, 127, 128, 129, 159, 160, 161, 319, 320, 321,
				767, 768, 769, 1000, 1535, 1536, 1537, 2049, 4097, 65537, 300001};
			const int64_t quick_sizes[] = {17, 64, 161, 321, 769, 1537, 4097, 65537};
			const int64_t *sz = quick ? quick_sizes : sizes;
			const size_t nsz = quick ? sizeof(quick_sizes) / sizeof(quick_sizes[0])
				: sizeof(sizes) / sizeof(sizes[0]);

			for (int g = 0; g < GEN_WALK; g++)
				for (int lay = 0; lay < NUM_LAYOUTS; lay++)
					for (size_t s = 0; s < nsz; s++)
						if (sweep_takes())
							run_sort_case(be, type, (gen_kind) g, (layout) lay, sz[s]);
		}
		if (type == MP_FLOAT4 || type == MP_FLOAT8)
		{
			const int64_t sizes[] = {1, 2, 3, 400, 4097, 300001};

			for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			{
				run_sort_one_nan(be, type, sizes[s], false);
				run_sort_one_nan(be, type, sizes[s], true);
			}
		}
		run_sort_case(be, type, GEN_WIDE, LAY_SHUFFLED, big);
		run_sort_case(be, type, GEN_SPECIAL, LAY_SHUFFLED, big / 4);
		run_sort_case(be, type, GEN_EQUAL, LAY_SHUFFLED, big / 4);
		if (!quick)
			run_sort_case(be, type, GEN_WALK, LAY_NEARLY, big);
		run_sort_cancel(be, type, quick ? 2500000 : 6000000);

		for (int g = 0; g < GEN_WALK; g++)
		{
			const int64_t sizes[] = {0, 1, 2, 3, 1023, 1024, 1025, 100000};

			for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
				if (sweep_takes())
					run_unique_case(be, type, (gen_kind) g, sizes[s]);
		}
		run_unique_case(be, type, GEN_WALK, big);
		run_unique_case(be, type, GEN_TINY, big / 10);

		if (strcmp(be->name, "cpu") == 0)
			for (int g = 0; g < GEN_WALK; g++)
			{
				run_copy_checked(type, (gen_kind) g, 0);
				run_copy_checked(type, (gen_kind) g, 1);
				run_copy_checked(type, (gen_kind) g, 5000);
			}
	}
}
