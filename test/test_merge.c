/*
 * test_merge.c
 *		The backends' merge against reference.h, on random and adversarial
 *		inputs, with the output poisoned before every run.
 *
 *	test_merge [--gpu | --cpu] [--quick] [--seed N]
 *
 * Without --gpu or --cpu: the CPU backend, and the GPU backend too when a
 * GPU is usable; where none is, checks that the GPU backend says so cleanly.
 * --gpu: the GPU backend alone, and it must be usable.  --quick: smaller
 * sizes, for runs under compute-sanitizer.
 */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "mergepath.h"
#include "mp_order.h"
#include "reference.h"

typedef mp_status (*merge_fn) (mp_type type, const void *a, int64_t na,
							   const void *b, int64_t nb, void *out,
							   bool check_sorted, mp_poll_fn poll);

typedef struct backend
{
	const char *name;
	merge_fn	merge;
} backend;

static mp_status
gpu_merge(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
		  void *out, bool check_sorted, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_merge(type, a, na, b, nb, out, check_sorted, poll, &timing);
}

static const backend cpu_backend = {"cpu", mp_cpu_merge};
static const backend gpu_backend = {"gpu", gpu_merge};

static const char *const type_names[] = {"int4", "int8", "float4", "float8"};

static int	passed,
			failed;
static bool quick;
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int64_t
rnd_below(int64_t n)
{
	return n <= 0 ? 0 : (int64_t) (rnd() % (uint64_t) n);
}

static void
check(bool ok, const char *fmt, const char *what, const backend *be, mp_type type,
	  int64_t na, int64_t nb)
{
	if (ok)
	{
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s: %s on %s, %s, na=%" PRId64 " nb=%" PRId64 "\n",
		   what, fmt, be->name, type_names[type], na, nb);
}

/* Input shapes.  Each fills n sorted elements. */
typedef enum gen_kind
{
	GEN_WIDE,					/* uniform over the whole type */
	GEN_TINY,					/* keys 0..7: long runs crossing tiles */
	GEN_EQUAL,					/* one key; -0 and +0 mixed for floats */
	GEN_SPECIAL,				/* extremes, NaNs, infinities, zeros, subnormals */
	GEN_LOW,					/* keys in [0, 1000) */
	GEN_HIGH,					/* keys in [1000, 2000): disjoint from GEN_LOW */
	GEN_WALK,					/* sorted by construction, O(n), for big sizes */
	NUM_GENS
} gen_kind;

static const char *const gen_names[] = {"wide", "tiny", "equal", "special", "low", "high", "walk"};

static mp_type sort_type;

static int
qsort_cmp(const void *p, const void *q)
{
	return ref_cmp(sort_type, p, q);
}

static void
put(mp_type type, void *out, int64_t i, int64_t iv, double fv)
{
	switch (type)
	{
		case MP_INT4:
			((int32_t *) out)[i] = (int32_t) iv;
			break;
		case MP_INT8:
			((int64_t *) out)[i] = iv;
			break;
		case MP_FLOAT4:
			((float *) out)[i] = (float) fv;
			break;
		case MP_FLOAT8:
			((double *) out)[i] = fv;
			break;
	}
}

static double
nan_with(uint64_t payload, bool negative)
{
	uint64_t	bits = 0x7FF8000000000000ull | (payload & 0xFFFFFull) | (negative ? 1ull << 63 : 0);
	double		d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static void
gen_special(mp_type type, void *out, int64_t i)
{
	bool		is_float = type == MP_FLOAT4 || type == MP_FLOAT8;

	if (!is_float)
	{
		int64_t		lo = type == MP_INT4 ? INT32_MIN : INT64_MIN;
		int64_t		hi = type == MP_INT4 ? INT32_MAX : INT64_MAX;
		int64_t		pool[] = {lo, lo + 1, -1, 0, 1, hi - 1, hi};

		put(type, out, i, pool[rnd_below(7)], 0);
		return;
	}
	else
	{
		double		tiny = type == MP_FLOAT4 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
		double		big = type == MP_FLOAT4 ? FLT_MAX : DBL_MAX;
		double		pool[] = {nan_with(0, false), nan_with(rnd(), false), nan_with(rnd(), true),
			-INFINITY, INFINITY, -0.0, 0.0, tiny, -tiny, big, -big, 1.5, -1.5};
		int			k = (int) rnd_below(13);

		if (type == MP_FLOAT4 && k <= 2)
		{
			/* keep the NaN's sign and payload in float4 too */
			uint32_t	bits = 0x7FC00000u | (uint32_t) (rnd() & 0x3FFFFF) | (k == 2 ? 0x80000000u : 0);

			memcpy((float *) out + i, &bits, sizeof(bits));
			return;
		}
		put(type, out, i, 0, pool[k]);
	}
}

static void
gen_sorted(mp_type type, gen_kind kind, int64_t n, void *out)
{
	bool		is_float = type == MP_FLOAT4 || type == MP_FLOAT8;
	int64_t		walk = 0;

	for (int64_t i = 0; i < n; i++)
	{
		int64_t		iv = 0;
		double		fv = 0;

		switch (kind)
		{
			case GEN_WIDE:
				iv = type == MP_INT4 ? (int64_t) (int32_t) rnd() : (int64_t) rnd();
				fv = ((double) (int64_t) rnd()) * (type == MP_FLOAT4 ? 1e-10 : 1e-5);
				break;
			case GEN_TINY:
				iv = rnd_below(8);
				fv = (double) iv - 3.5;
				break;
			case GEN_EQUAL:
				iv = 42;
				fv = (rnd() & 1) ? 0.0 : -0.0;
				break;
			case GEN_SPECIAL:
				gen_special(type, out, i);
				continue;
			case GEN_LOW:
				iv = rnd_below(1000);
				fv = (double) iv / 8;
				break;
			case GEN_HIGH:
				iv = 1000 + rnd_below(1000);
				fv = (double) iv / 8;
				break;
			case GEN_WALK:
				walk += rnd_below(3);
				iv = walk - 1000000;
				fv = (double) iv / 4;
				break;
			case NUM_GENS:
				break;
		}
		put(type, out, i, iv, is_float ? fv : 0);
	}
	if (kind != GEN_WALK && kind != GEN_EQUAL)
	{
		sort_type = type;
		qsort(out, (size_t) n, mp_type_size(type), qsort_cmp);
	}
}

static void *
xmalloc(size_t bytes)
{
	void	   *p = malloc(bytes ? bytes : 1);

	if (!p)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

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
 * One element made smaller than its predecessor, in a or in b: the backend
 * must say MP_UNSORTED, and mp_first_unsorted must find the same element as
 * the reference.  With the check off it must still return cleanly.
 */
static void
run_unsorted(const backend *be, mp_type type, int64_t na, int64_t nb, bool in_a)
{
	size_t		sz = mp_type_size(type);
	char	   *a = xmalloc(na * sz),
			   *b = xmalloc(nb * sz),
			   *out = xmalloc((na + nb) * sz);
	char	   *x = in_a ? a : b;
	int64_t		n = in_a ? na : nb;
	int64_t		at = 1 + rnd_below(n - 1);
	mp_status	st;

	gen_sorted(type, GEN_LOW, na, a);
	gen_sorted(type, GEN_LOW, nb, b);
	/* x[at] := x[at - 1] - 1 or less: below its predecessor in any type */
	put(type, x, at, -5000, -5000.0);
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

static int	polls_left;

static bool
poll_countdown(void)
{
	return --polls_left < 0;
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

static void
run_backend(const backend *be)
{
	int			before = failed;
	int64_t		big = quick ? 300000 : 10000000;

	for (int t = 0; t < 4; t++)
	{
		mp_type		type = (mp_type) t;

		/* every split of tiny sizes */
		for (int64_t n = 0; n <= 12; n++)
			for (int64_t na = 0; na <= n; na++)
				run_case(be, type, GEN_TINY, GEN_TINY, na, n - na);

		/* totals at every multiple of 128 up to 80 * 128 and one either side:
		 * every tile NT * VT with NT a multiple of 128 has its edges here,
		 * the tiles in use their first two */
		for (int64_t k = 1; k <= 80; k++)
			for (int64_t d = -1; d <= 1; d++)
			{
				int64_t		n = k * 128 + d;
				int64_t		na = rnd_below(n + 1);

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
						run_case(be, type, (gen_kind) ga, (gen_kind) gb, sizes[s][0], sizes[s][1]);
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

			run_unsorted(be, type, na, nb, i % 2 == 0);
		}
		run_unsorted(be, type, 2, 2, true);
		run_unsorted(be, type, 2, 2, false);
		run_unsorted(be, type, quick ? 10000 : 3000000, 5, true);

		run_cancel(be, type, quick ? 2500000 : 6000000);
	}
	printf("%s backend: %s\n", be->name, failed == before ? "all checks passed" : "FAILED");
}

/*
 * mp_order.h defines the order twice, as keys and as native comparisons:
 * both must agree with the reference on every pair of special values.
 */
static void
run_order_agreement(void)
{
	const backend none = {"order", NULL};

	for (int t = 0; t < 4; t++)
	{
		mp_type		type = (mp_type) t;
		size_t		sz = mp_type_size(type);
		char		pool[64 * 8];
		int			bad = 0;

		for (int i = 0; i < 64; i++)
			gen_special(type, pool, i);
		for (int i = 0; i < 64; i++)
			for (int j = 0; j < 64; j++)
			{
				const char *x = pool + i * sz,
						   *y = pool + j * sz;
				bool		want = ref_cmp(type, x, y) < 0,
							by_key = false,
							by_lt = false;

				switch (type)
				{
					case MP_INT4:
						by_key = mp_key_int4(*(int32_t *) x) < mp_key_int4(*(int32_t *) y);
						by_lt = mp_lt_int4(*(int32_t *) x, *(int32_t *) y);
						break;
					case MP_INT8:
						by_key = mp_key_int8(*(int64_t *) x) < mp_key_int8(*(int64_t *) y);
						by_lt = mp_lt_int8(*(int64_t *) x, *(int64_t *) y);
						break;
					case MP_FLOAT4:
						by_key = mp_key_float4(*(float *) x) < mp_key_float4(*(float *) y);
						by_lt = mp_lt_float4(*(float *) x, *(float *) y);
						break;
					case MP_FLOAT8:
						by_key = mp_key_float8(*(double *) x) < mp_key_float8(*(double *) y);
						by_lt = mp_lt_float8(*(double *) x, *(double *) y);
						break;
				}
				bad += by_key != want || by_lt != want;
			}
		check(bad == 0, "keys or comparisons disagree with the reference", "order", &none,
			  type, 64, 64);
	}
}

int
main(int argc, char **argv)
{
	bool		want_gpu = false,
				want_cpu = false;
	mp_status	st;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--gpu") == 0)
			want_gpu = true;
		else if (strcmp(argv[i], "--cpu") == 0)
			want_cpu = true;
		else if (strcmp(argv[i], "--quick") == 0)
			quick = true;
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			rng_state = strtoull(argv[++i], NULL, 0) | 1;
		else
		{
			fprintf(stderr, "usage: %s [--gpu | --cpu] [--quick] [--seed N]\n", argv[0]);
			return 2;
		}
	}
	printf("seed 0x%" PRIx64 "\n", rng_state);
	run_order_agreement();

	if (!want_gpu)
		run_backend(&cpu_backend);
	if (!want_cpu)
	{
		st = mp_gpu_init();
		if (st == MP_OK)
			run_backend(&gpu_backend);
		else if (want_gpu)
		{
			printf("FAIL gpu backend unusable: %s\n", mp_gpu_last_error());
			failed++;
		}
		else
		{
			/* no GPU here: the backend must say so, and keep saying so */
			check(st == MP_NO_DEVICE && mp_gpu_init() == MP_NO_DEVICE && mp_gpu_last_error()[0],
				  "no clean MP_NO_DEVICE", "gpu absent", &gpu_backend, MP_INT4, 0, 0);
			printf("gpu backend: no GPU here (%s); checked that it says so\n", mp_gpu_last_error());
		}
		mp_gpu_shutdown();
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
