/*
 * bench_cpu.c
 *		The CPU backend's merge beside a textbook two-pointer merge and a
 *		memcpy of the same bytes, its set operations beside a textbook
 *		intersection and its sorted search beside a textbook lower bound,
 *		one thread, sorted random keys, median of 5.
 *		--sort: where the CPU sort's radix sort overtakes its merge sort.
 *		--threads: the CPU sort of random keys on 1 to 16 threads
 *		(mergepath.cpu_threads), and qsort on one, median of 5.
 *		--rows: the same for the row sort (the sort node's).
 *		--runs: the k-way merge of 32 sorted runs of random keys (the
 *		aggregates' final merge) on 1 to 16 threads, beside qsort of their
 *		concatenation on one.
 *
 *	bench_cpu [millions per side ...]    (default: 1 10)
 *	bench_cpu --sort
 *	bench_cpu --threads [millions]       (default: 10)
 *	bench_cpu --rows [millions]          (default: 10)
 *	bench_cpu --runs [millions]          (default: 20)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/mp_api.h"
#include "api/mp_order.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *p, const void *q)
{
	double		x = *(const double *) p,
				y = *(const double *) q;

	return (x > y) - (x < y);
}

/*
 * n sorted random values of the type, drawn as doubles in [-2e9, 2e9) (or
 * [0, range) when range > 0) and converted
 */
static void *
sorted_values(mp_type type, int64_t n, unsigned seed, double range)
{
	double	   *d = malloc(n * sizeof(double));
	char	   *out = malloc(n * mp_type_size(type));

	srand(seed);
	for (int64_t i = 0; i < n; i++)
		d[i] = range > 0 ? floor((double) rand() / RAND_MAX * range) * 2
			: ((double) rand() / RAND_MAX) * 4e9 - 2e9;
	qsort(d, n, sizeof(double), cmp_double);
	for (int64_t i = 0; i < n; i++)
		switch (type)
		{
			case MP_INT4:
				((int32_t *) out)[i] = (int32_t) (d[i] / 2);
				break;
			case MP_INT8:
				((int64_t *) out)[i] = (int64_t) d[i];
				break;
			case MP_FLOAT4:
				((float *) out)[i] = (float) d[i];
				break;
			case MP_FLOAT8:
				((double *) out)[i] = d[i];
				break;
		}
	free(d);
	return out;
}

/* the textbook loop, for int4 only: what a first attempt looks like */
static void
plain_merge_int4(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int32_t *out)
{
	int64_t		i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
		out[k++] = b[j] < a[i] ? b[j++] : a[i++];
	while (i < na)
		out[k++] = a[i++];
	while (j < nb)
		out[k++] = b[j++];
}

/* the textbook intersection, branchy, as std::set_intersection */
static int64_t
plain_intersect_int4(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int32_t *out)
{
	int64_t		i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
	{
		if (a[i] < b[j])
			i++;
		else if (b[j] < a[i])
			j++;
		else
		{
			out[k++] = a[i];
			i++;
			j++;
		}
	}
	return k;
}

/* The textbook two-pointer lower bounds of sorted needles in a sorted haystack. */
static void
plain_lower_bound_int4(const int32_t *hay, int64_t nh, const int32_t *needles, int64_t nn,
					   int32_t *out)
{
	int64_t		k = 0;

	for (int64_t j = 0; j < nn; j++)
	{
		while (k < nh && hay[k] < needles[j])
			k++;
		out[j] = (int32_t) k;
	}
}

static int
cmp_ms(const void *p, const void *q)
{
	return cmp_double(p, q);
}

#define MEDIAN_OF_5(ms, stmt) \
	do { \
		double t_[5]; \
		for (int r_ = 0; r_ < 5; r_++) { double t0_ = now_ms(); stmt; t_[r_] = now_ms() - t0_; } \
		qsort(t_, 5, sizeof(double), cmp_ms); \
		ms = t_[2]; \
	} while (0)

static const char *const names[] = {"int4", "int8", "float4", "float8"};

/*
 * The sort of random keys by the merge sort alone, the byte-digit radix
 * sort alone and the 11-bit one alone, per size: the crossovers are where
 * mp_cpu_sort_small and mp_cpu_sort_bytes belong.
 * Microseconds per sort, the best of many runs of a batch.
 */
static void
sort_crossover(void)
{
	static const int64_t sizes[] = {32, 64, 128, 192, 256, 384, 512, 1024, 2048, 4096, 8192, 16384};
	int64_t		saved = mp_cpu_sort_small,
				saved_bytes = mp_cpu_sort_bytes;

	printf("| type   | n     | merge sort us | byte radix us | radix sort us | byte / merge | radix / byte |\n");
	printf("|--------|-------|---------------|---------------|---------------|--------------|--------------|\n");
	for (int t = 0; t < 4; t++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			mp_type		type = (mp_type) t;
			int64_t		n = sizes[s];
			int			batch = (int) (200000 / n);
			char	   *in = sorted_values(type, n * batch, 3, 0),
					   *out = malloc(n * 8),
					   *scratch = malloc(n * 8);
			double		best[3] = {1e30, 1e30, 1e30};

			/* shuffle each batch member, so that it is not sorted */
			for (int64_t i = n * batch - 1; i > 0; i--)
			{
				int64_t		j = rand() % (i + 1);
				char		tmp[8];
				size_t		sz = mp_type_size(type);

				memcpy(tmp, in + i * sz, sz);
				memcpy(in + i * sz, in + j * sz, sz);
				memcpy(in + j * sz, tmp, sz);
			}
			for (int way = 0; way < 3; way++)
			{
				mp_cpu_sort_small = way == 0 ? INT64_MAX : 0;
				mp_cpu_sort_bytes = way == 1 ? INT64_MAX : 0;
				for (int r = 0; r < 7; r++)
				{
					double		t0 = now_ms(),
								us;

					for (int k = 0; k < batch; k++)
						mp_cpu_sort(type, in + k * n * mp_type_size(type), n, out, scratch, NULL);
					us = (now_ms() - t0) * 1e3 / batch;
					if (us < best[way])
						best[way] = us;
				}
			}
			printf("| %-6s | %5lld | %13.2f | %13.2f | %13.2f | %12.2f | %12.2f |\n", names[t],
				   (long long) n, best[0], best[1], best[2], best[1] / best[0], best[2] / best[1]);
			free(in);
			free(out);
			free(scratch);
		}
	mp_cpu_sort_small = saved;
	mp_cpu_sort_bytes = saved_bytes;
}

static int
cmp_int4(const void *p, const void *q)
{
	int32_t		x = *(const int32_t *) p,
				y = *(const int32_t *) q;

	return (x > y) - (x < y);
}

/* The thread counts of --threads, --rows and --runs, and their table's lines. */
static const int threads[] = {1, 2, 4, 8, 16};

#define NTHREADS (sizeof(threads) / sizeof(threads[0]))

static void
threads_header(const char *first)
{
	printf("| %s | n    | qsort ms |", first);
	for (size_t t = 0; t < NTHREADS; t++)
		printf(" %2d thr ms |", threads[t]);
	printf(" 4 thr / 1 |\n|--------|------|----------|");
	for (size_t t = 0; t < NTHREADS; t++)
		printf("-----------|");
	printf("-----------|\n");
}

static void
threads_row(const char *name, int64_t millions, double t_q, const double *ms)
{
	printf("| %-6s | %3lldM | %8.1f |", name, (long long) millions, t_q);
	for (size_t t = 0; t < NTHREADS; t++)
		printf(" %9.1f |", ms[t]);
	printf(" %9.2f |\n", ms[2] / ms[0]);
}

/* The sort of n random keys of each type on 1..16 threads; qsort beside int4. */
static void
sort_threads(int64_t millions)
{
	int64_t		n = millions * 1000000;
	int			saved = mp_cpu_threads;

	threads_header("type  ");
	for (int ty = 0; ty < 4; ty++)
	{
		mp_type		type = (mp_type) ty;
		size_t		sz = mp_type_size(type);
		char	   *in = sorted_values(type, n, 5, 0),
				   *out = malloc(n * sz),
				   *scratch = malloc(n * sz);
		double		ms[5],
					t_q = -1;

		for (int64_t i = n - 1; i > 0; i--)
		{
			int64_t		j = ((int64_t) rand() << 16 ^ rand()) % (i + 1);
			char		tmp[8];

			memcpy(tmp, in + i * sz, sz);
			memcpy(in + i * sz, in + j * sz, sz);
			memcpy(in + j * sz, tmp, sz);
		}
		memset(out, 1, n * sz);
		memset(scratch, 1, n * sz);
		if (type == MP_INT4)
			MEDIAN_OF_5(t_q, (memcpy(out, in, n * sz), qsort(out, n, sz, cmp_int4)));
		for (size_t t = 0; t < NTHREADS; t++)
		{
			mp_cpu_threads = threads[t];
			MEDIAN_OF_5(ms[t], mp_cpu_sort(type, in, n, out, scratch, NULL));
		}
		threads_row(names[ty], millions, t_q, ms);
		free(in);
		free(out);
		free(scratch);
	}
	mp_cpu_threads = saved;
}

/* row numbers by key words, most significant first (the rows benchmark's qsort) */
static const mp_row_keys *qsort_keys;
static int64_t qsort_n;

static int
cmp_rows(const void *p, const void *q)
{
	uint32_t	i = *(const uint32_t *) p,
				j = *(const uint32_t *) q;

	for (int w = qsort_keys->nwords - 1; w >= 0; w--)
	{
		uint64_t	x,
					y;

		if (qsort_keys->word_bytes == 4)
		{
			x = ((const uint32_t *) qsort_keys->words)[(size_t) w * qsort_n + i];
			y = ((const uint32_t *) qsort_keys->words)[(size_t) w * qsort_n + j];
		}
		else
		{
			x = ((const uint64_t *) qsort_keys->words)[(size_t) w * qsort_n + i];
			y = ((const uint64_t *) qsort_keys->words)[(size_t) w * qsort_n + j];
		}
		if (x != y)
			return x < y ? -1 : 1;
	}
	return (i > j) - (i < j);
}

static void
qsort_rows(uint32_t *perm, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		perm[i] = (uint32_t) i;
	qsort(perm, n, sizeof(uint32_t), cmp_rows);
}

/*
 * The row sort (the sort node's, mp_cpu_sort_rows) of n rows with random
 * keys: one int4 column (a 4-byte word), one int8 (an 8-byte word), three
 * int4 columns (three 4-byte words); on 1..16 threads, and qsort of the row
 * numbers by the same words on one.
 */
static void
rows_threads(int64_t millions)
{
	static const struct
	{
		const char *name;
		int			nwords;
		int			word_bytes;
	}			cases[] = {{"int4", 1, 4}, {"int8", 1, 8}, {"int4x3", 3, 4}};
	int64_t		n = millions * 1000000;
	int			saved = mp_cpu_threads;
	int			bits[3];

	threads_header("keys  ");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		size_t		bytes = (size_t) n * cases[c].nwords * cases[c].word_bytes;
		unsigned char *words = malloc(bytes);
		uint32_t   *perm = malloc(n * sizeof(uint32_t));
		void	   *scratch = malloc(mp_cpu_sort_rows_scratch(n));
		mp_row_keys keys = {cases[c].nwords, cases[c].word_bytes, bits, words};
		double		ms[5],
					t_q;

		for (int w = 0; w < 3; w++)
			bits[w] = cases[c].word_bytes * 8;
		srand(7);
		for (size_t i = 0; i < bytes; i++)
			words[i] = (unsigned char) rand();
		memset(scratch, 1, mp_cpu_sort_rows_scratch(n));
		qsort_keys = &keys;
		qsort_n = n;
		MEDIAN_OF_5(t_q, qsort_rows(perm, n));
		for (size_t t = 0; t < NTHREADS; t++)
		{
			mp_cpu_threads = threads[t];
			MEDIAN_OF_5(ms[t], mp_cpu_sort_rows(&keys, n, perm, scratch, NULL));
		}
		threads_row(cases[c].name, millions, t_q, ms);
		free(words);
		free(perm);
		free(scratch);
	}
	mp_cpu_threads = saved;
}

/*
 * The k-way merge (mp_cpu_merge_runs) of 32 sorted runs of random keys of
 * each type, n elements in all, on 1..16 threads; qsort of the int4
 * concatenation on one beside it.
 */
static void
runs_threads(int64_t millions)
{
	const int64_t k = 32;
	int64_t		n = millions * 1000000;
	int64_t		bounds[33];
	int			saved = mp_cpu_threads;

	for (int64_t r = 0; r <= k; r++)
		bounds[r] = n * r / k;
	threads_header("type  ");
	for (int ty = 0; ty < 4; ty++)
	{
		mp_type		type = (mp_type) ty;
		size_t		sz = mp_type_size(type);
		char	   *in = malloc(n * sz),
				   *out = malloc(n * sz);
		double		ms[5],
					t_q = -1;

		for (int64_t r = 0; r < k; r++)
		{
			char	   *run = sorted_values(type, bounds[r + 1] - bounds[r], (unsigned) r + 1, 0);

			memcpy(in + bounds[r] * sz, run, (bounds[r + 1] - bounds[r]) * sz);
			free(run);
		}
		memset(out, 1, n * sz);
		if (type == MP_INT4)
			MEDIAN_OF_5(t_q, (memcpy(out, in, n * sz), qsort(out, n, sz, cmp_int4)));
		for (size_t t = 0; t < NTHREADS; t++)
		{
			mp_cpu_threads = threads[t];
			MEDIAN_OF_5(ms[t], mp_cpu_merge_runs(type, in, bounds, k, out, NULL));
		}
		threads_row(names[ty], millions, t_q, ms);
		free(in);
		free(out);
	}
	mp_cpu_threads = saved;
}

int
main(int argc, char **argv)
{
	int64_t		sizes[16] = {1, 10};
	int			nsizes = 2;

	if (argc > 1 && strcmp(argv[1], "--sort") == 0)
	{
		sort_crossover();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--threads") == 0)
	{
		sort_threads(argc > 2 ? atoll(argv[2]) : 10);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--runs") == 0)
	{
		runs_threads(argc > 2 ? atoll(argv[2]) : 20);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--rows") == 0)
	{
		rows_threads(argc > 2 ? atoll(argv[2]) : 10);
		return 0;
	}
	if (argc > 1)
		for (nsizes = 0; nsizes < argc - 1 && nsizes < 16; nsizes++)
			sizes[nsizes] = atoll(argv[nsizes + 1]);

	printf("| type   | n/side | memcpy ms | plain ms | mp cpu ms | mp nochk | mp / memcpy | Melem/s |\n");
	printf("|--------|--------|-----------|----------|-----------|----------|-------------|---------|\n");
	for (int s = 0; s < nsizes; s++)
		for (int t = 0; t < 4; t++)
		{
			mp_type		type = (mp_type) t;
			int64_t		m = sizes[s] * 1000000;
			size_t		bytes = 2 * m * mp_type_size(type);
			char	   *a = sorted_values(type, m, 1, 0),
					   *b = sorted_values(type, m, 2, 0),
					   *out = malloc(bytes),
					   *out2 = malloc(bytes);
			double		t_copy,
						t_plain = -1,
						t_mp,
						t_nc;

			memset(out, 1, bytes);
			memset(out2, 1, bytes);
			MEDIAN_OF_5(t_copy, (memcpy(out2, a, bytes / 2), memcpy(out2 + bytes / 2, b, bytes / 2)));
			if (type == MP_INT4)
				MEDIAN_OF_5(t_plain, plain_merge_int4((int32_t *) a, m, (int32_t *) b, m, (int32_t *) out2));
			MEDIAN_OF_5(t_mp, mp_cpu_merge(type, a, m, b, m, out, true, NULL));
			MEDIAN_OF_5(t_nc, mp_cpu_merge(type, a, m, b, m, out, false, NULL));
			printf("| %-6s | %5lldM | %9.2f | %8.2f | %9.2f | %8.2f | %11.2f | %7.0f |\n",
				   names[t], (long long) sizes[s], t_copy, t_plain, t_mp, t_nc, t_mp / t_copy,
				   2.0 * m / t_mp / 1e3);
			free(a);
			free(b);
			free(out);
			free(out2);
		}

	/* int4 keys in [0, 4n), even: values a side repeat little, and about a
	 * quarter of them meet the other side */
	printf("\n| op        | n/side | result | plain intersect ms | mp cpu ms | mp nochk | Melem/s |\n");
	printf("|-----------|--------|--------|--------------------|-----------|----------|---------|\n");
	for (int s = 0; s < nsizes; s++)
		for (int op = 0; op < 4; op++)
		{
			static const char *const ops[] = {"intersect", "union", "except", "symdiff"};
			int64_t		m = sizes[s] * 1000000;
			int32_t    *a = sorted_values(MP_INT4, m, 1, 2.0 * m),
					   *b = sorted_values(MP_INT4, m, 2, 2.0 * m),
					   *out = malloc(2 * m * sizeof(int32_t));
			int64_t		nout = 0;
			double		t_plain = -1,
						t_mp,
						t_nc;

			memset(out, 1, 2 * m * sizeof(int32_t));
			if (op == MP_INTERSECT)
				MEDIAN_OF_5(t_plain, plain_intersect_int4(a, m, b, m, out));
			MEDIAN_OF_5(t_mp, mp_cpu_setop((mp_setop) op, MP_INT4, a, m, b, m, out, &nout, true, NULL));
			MEDIAN_OF_5(t_nc, mp_cpu_setop((mp_setop) op, MP_INT4, a, m, b, m, out, &nout, false, NULL));
			printf("| %-9s | %5lldM | %5.2fM | %18.2f | %9.2f | %8.2f | %7.0f |\n", ops[op],
				   (long long) sizes[s], nout / 1e6, t_plain, t_mp, t_nc, 2.0 * m / t_mp / 1e3);
			free(a);
			free(b);
			free(out);
		}

	/* sorted search of as many needles as haystack elements, same keys */
	printf("\n| search      | n/side | plain lower bound ms | mp cpu ms | mp nochk | Melem/s |\n");
	printf("|-------------|--------|----------------------|-----------|----------|---------|\n");
	for (int s = 0; s < nsizes; s++)
		for (int kind = 0; kind < 3; kind++)
		{
			static const char *const kinds[] = {"lower_bound", "upper_bound", "count"};
			int64_t		m = sizes[s] * 1000000;
			int32_t    *hay = sorted_values(MP_INT4, m, 1, 2.0 * m),
					   *needles = sorted_values(MP_INT4, m, 2, 2.0 * m),
					   *out = malloc(m * sizeof(int32_t));
			double		t_plain = -1,
						t_mp,
						t_nc;

			if (kind == MP_LOWER_BOUND)
				MEDIAN_OF_5(t_plain, plain_lower_bound_int4(hay, m, needles, m, out));
			MEDIAN_OF_5(t_mp, mp_cpu_search((mp_search) kind, MP_INT4, hay, m, needles, m, out, true,
											NULL));
			MEDIAN_OF_5(t_nc, mp_cpu_search((mp_search) kind, MP_INT4, hay, m, needles, m, out, false,
											NULL));
			printf("| %-11s | %5lldM | %20.2f | %9.2f | %8.2f | %7.0f |\n", kinds[kind],
				   (long long) sizes[s], t_plain, t_mp, t_nc, 2.0 * m / t_mp / 1e3);
			free(hay);
			free(needles);
			free(out);
		}
	return 0;
}
