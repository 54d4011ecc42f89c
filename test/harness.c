/*
 * harness.c
 *		The C tests' shared parts and their entry point: each backend's
 *		operations against reference.h, on random and adversarial inputs, with
 *		the output poisoned before every run.
 *
 *	test_backends [--gpu | --cpu] [--quick] [--seed N] [--suite merge,setops,search,sort,rows,runs,batch]
 *		[--shard K/N] [--thin N]
 *
 * Without --gpu or --cpu: the CPU backend, and the GPU backend too when a
 * GPU is usable; where none is, checks that the GPU backend says so cleanly.
 * --gpu: the GPU backend alone, and it must be usable.  --quick: smaller
 * sizes, for runs under compute-sanitizer.  --suite: only the named suites
 * (default all), so that sanitizer runs can go side by side.  --shard K/N:
 * of each suite, only units K, K + N, K + 2N, ... (0 <= K < N; the units
 * are the element types, or the batch suite's operations: shard_takes), so
 * that a slow tool can run a suite as N processes side by side.  --thin N:
 * of the sweeps, one case in N (sweep_takes), for the sanitizers.
 */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"
#include "api/mp_order.h"
#include "reference.h"

static mp_status
gpu_merge(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
		  void *out, bool check_sorted, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_merge(type, a, na, b, nb, out, check_sorted, poll, &timing);
}

static mp_status
gpu_setop(mp_setop op, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
		  void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_setop(op, type, a, na, b, nb, out, nout, check_sorted, poll, &timing);
}

static mp_status
gpu_search(mp_search kind, mp_type type, const void *hay, int64_t nh, const void *needles,
		   int64_t nn, int32_t *out, bool check_sorted, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_search(kind, type, hay, nh, needles, nn, out, check_sorted, poll, &timing);
}

static mp_status
gpu_semijoin(bool anti, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
			 void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_semijoin(anti, type, a, na, b, nb, out, nout, check_sorted, poll, &timing);
}

/* Room for the pairs, or NULL when there are none. */
static void
alloc_pairs(int64_t npairs, int32_t **a_pos, int32_t **b_pos)
{
	*a_pos = npairs > 0 ? xmalloc(npairs * sizeof(int32_t)) : NULL;
	*b_pos = npairs > 0 ? xmalloc(npairs * sizeof(int32_t)) : NULL;
	if (npairs > 0)
	{
		memset(*a_pos, 0xA5, npairs * sizeof(int32_t));
		memset(*b_pos, 0xA5, npairs * sizeof(int32_t));
	}
}

static mp_status
cpu_join(mp_type type, const void *a, int64_t na, const void *b, int64_t nb, int64_t max_pairs,
		 int64_t piece, int64_t *npairs, int32_t **a_pos, int32_t **b_pos, bool check_sorted,
		 mp_poll_fn poll)
{
	mp_join_cursor cursor = {0};
	mp_status	st = mp_cpu_join_count(type, a, na, b, nb, npairs, check_sorted, poll);

	*a_pos = *b_pos = NULL;
	if (st != MP_OK || *npairs > max_pairs)
		return st;
	alloc_pairs(*npairs, a_pos, b_pos);
	for (int64_t first = 0; first < *npairs;)
	{
		int64_t		want = *npairs - first < piece ? *npairs - first : piece;
		int64_t		n = mp_cpu_join_next(type, a, na, b, nb, &cursor, *a_pos + first,
										 *b_pos + first, want);

		if (n != want)
			return MP_DEVICE_ERROR;
		first += n;
	}
	/* and nothing after the last pair */
	return mp_cpu_join_next(type, a, na, b, nb, &cursor, NULL, NULL, 1) == 0 ? MP_OK
		: MP_DEVICE_ERROR;
}

static mp_status
gpu_join(mp_type type, const void *a, int64_t na, const void *b, int64_t nb, int64_t max_pairs,
		 int64_t piece, int64_t *npairs, int32_t **a_pos, int32_t **b_pos, bool check_sorted,
		 mp_poll_fn poll)
{
	mp_gpu_timing timing;
	mp_status	st = mp_gpu_join(type, a, na, b, nb, max_pairs, npairs, check_sorted, poll,
								 &timing);

	*a_pos = *b_pos = NULL;
	if (st != MP_OK || *npairs > max_pairs)
		return st;
	alloc_pairs(*npairs, a_pos, b_pos);
	for (int64_t first = 0; first < *npairs; first += piece)
	{
		int64_t		n = *npairs - first < piece ? *npairs - first : piece;

		st = mp_gpu_join_fetch(first, n, *a_pos + first, *b_pos + first, poll, &timing);
		if (st != MP_OK)
			return st;
	}
	/* past the end is refused */
	return mp_gpu_join_fetch(*npairs, 1, NULL, NULL, NULL, &timing) == MP_DEVICE_ERROR ? MP_OK
		: MP_DEVICE_ERROR;
}

/* The CPU sort with scratch of its own, as the glue gives it. */
static mp_status
cpu_sort(mp_type type, const void *in, int64_t n, void *out, mp_poll_fn poll)
{
	void	   *scratch = xmalloc(n * mp_type_size(type));
	mp_status	st;

	memset(scratch, 0x5A, n * mp_type_size(type));
	st = mp_cpu_sort(type, in, n, out, scratch, poll);
	free(scratch);
	return st;
}

static mp_status
gpu_sort(mp_type type, const void *in, int64_t n, void *out, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_sort(type, in, n, out, poll, &timing);
}

static mp_status
gpu_unique(mp_type type, const void *x, int64_t n, void *out, int64_t *nout,
		   bool check_sorted, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_unique(type, x, n, out, nout, check_sorted, poll, &timing);
}

static mp_status
cpu_sort_rows(const mp_row_keys *keys, int64_t n, uint32_t *perm, mp_poll_fn poll)
{
	void	   *scratch = xmalloc(mp_cpu_sort_rows_scratch(n));
	mp_status	st;

	memset(scratch, 0x5A, mp_cpu_sort_rows_scratch(n));
	st = mp_cpu_sort_rows(keys, n, perm, scratch, poll);
	free(scratch);
	return st;
}

static mp_status
gpu_sort_rows(const mp_row_keys *keys, int64_t n, uint32_t *perm, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_sort_rows(keys, n, perm, poll, &timing);
}

static mp_status
gpu_merge_runs(mp_type type, const void *in, const int64_t *bounds, int64_t k, void *out,
			   mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_merge_runs(type, in, bounds, k, out, poll, &timing);
}

static mp_status
gpu_merge_key_runs(int word_bytes, const void *keys, const int64_t *bounds, int64_t k,
				   uint32_t *perm, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_merge_key_runs(word_bytes, keys, bounds, k, perm, poll, &timing);
}

static mp_status
gpu_batch(mp_batch_call *call, bool check_sorted, mp_poll_fn poll)
{
	mp_gpu_timing timing;

	return mp_gpu_batch(call, check_sorted, poll, &timing);
}

static const backend cpu_backend = {"cpu", mp_cpu_merge, mp_cpu_setop, mp_cpu_search,
mp_cpu_semijoin, cpu_join, cpu_sort, mp_cpu_unique, cpu_sort_rows, mp_cpu_merge_runs,
mp_cpu_merge_key_runs, mp_cpu_batch};
static const backend gpu_backend = {"gpu", gpu_merge, gpu_setop, gpu_search, gpu_semijoin,
gpu_join, gpu_sort, gpu_unique, gpu_sort_rows, gpu_merge_runs, gpu_merge_key_runs, gpu_batch};

const char *const type_names[] = {"int4", "int8", "float4", "float8"};
const char *const gen_names[] = {"wide", "tiny", "equal", "special", "low", "high", "walk"};
bool		quick;
int			shard = 0,
			shards = 1,
			thin = 1;

/*
 * A case in thin of them, picked by a hash of its number in the sweeps, not
 * by a stride: a stride would alias with the sweeps' own loops (every
 * fourth case of a loop over four sizes is always the same size).
 */
bool
sweep_takes(void)
{
	static uint64_t seen;
	uint64_t	h = ++seen * 0x9E3779B97F4A7C15ull;

	h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
	h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
	return (h ^ (h >> 31)) % (uint64_t) thin == 0;
}

static int	passed,
			failed;
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

uint64_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

int64_t
rnd_below(int64_t n)
{
	return n <= 0 ? 0 : (int64_t) (rnd() % (uint64_t) n);
}

void
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

static mp_type sort_type;

static int
qsort_cmp(const void *p, const void *q)
{
	return ref_cmp(sort_type, p, q);
}

void
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

void
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

void
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

void *
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

int			polls_left;

bool
poll_countdown(void)
{
	return --polls_left < 0;
}

static const char *suites = "merge,setops,search,sort,rows,runs,batch";

static bool
suite_selected(const char *name)
{
	size_t		len = strlen(name);

	for (const char *p = suites; (p = strstr(p, name)) != NULL; p += len)
		if ((p == suites || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

static double
seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Each selected suite on the backend, a line each as it ends. */
static void
run_backend(const backend *be)
{
	static const struct
	{
		const char *name;
		void		(*run) (const backend *be);
	}			all[] = {
		{"merge", run_merge_tests},
		{"setops", run_setop_tests},
		{"search", run_search_tests},
		{"sort", run_sort_tests},
		{"rows", run_rows_tests},
		{"runs", run_runs_tests},
		{"batch", run_batch_tests},
	};
	int			before = failed;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
	{
		int			checks = passed + failed,
					fails = failed;
		double		t0 = seconds_now();

		if (!suite_selected(all[i].name))
			continue;
		all[i].run(be);
		printf("  %s backend, %-6s %8d checks, %s (%.0f s)\n", be->name, all[i].name,
			   passed + failed - checks, failed == fails ? "passed" : "FAILED",
			   seconds_now() - t0);
		fflush(stdout);
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

/* mp_key_int2 against the native order of every pair of a sample of int2 values. */
static void
run_int2_agreement(void)
{
	const backend none = {"order", NULL};
	int16_t		pool[] = {INT16_MIN, INT16_MIN + 1, -256, -255, -1, 0, 1, 255, 256,
		INT16_MAX - 1, INT16_MAX};
	int			npool = (int) (sizeof(pool) / sizeof(pool[0])),
				bad = 0;

	for (int i = 0; i < npool; i++)
		for (int j = 0; j < npool; j++)
			bad += (mp_key_int2(pool[i]) < mp_key_int2(pool[j])) != (pool[i] < pool[j]);
	check(bad == 0, "int2 keys disagree with the native order", "order", &none, MP_INT4,
		  npool, npool);
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
		else if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
			suites = argv[++i];
		else if (strcmp(argv[i], "--shard") == 0 && i + 1 < argc &&
				 sscanf(argv[i + 1], "%d/%d", &shard, &shards) == 2 && shards >= 1 &&
				 shard >= 0 && shard < shards)
			i++;
		else if (strcmp(argv[i], "--thin") == 0 && i + 1 < argc &&
				 (thin = atoi(argv[i + 1])) >= 1)
			i++;
		else
		{
			fprintf(stderr, "usage: %s [--gpu | --cpu] [--quick] [--seed N] [--suite merge,setops,search,sort,rows,runs,batch] [--shard K/N] [--thin N]\n",
					argv[0]);
			return 2;
		}
	}
	printf("seed 0x%" PRIx64 "\n", rng_state);
	run_order_agreement();
	run_int2_agreement();

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
