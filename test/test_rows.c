/*
 * test_rows.c
 *		The backends' row sort (the executor's sort node) against a
 *		reference written here: a qsort of row numbers by the key words,
 *		most significant first, ties broken by row number.
 *
 * Two kinds of input.  Raw words: one to three words of 4 or 8 bytes with
 * every width of bits in use from 1 to 64, random, with few distinct
 * values, all equal, already in order, reversed and nearly in order, at
 * sizes around the radix sort's digits and up to 10^7 rows.  Typed rows:
 * two key columns of any element type (extremes, NaNs, -0 and +0) with
 * NULLs, each ASC or DESC and NULLS FIRST or LAST, folded into words with
 * mp_order.h's fields as the sort node folds them, and the permutation
 * checked against PostgreSQL's order written out by hand.  Every output is
 * poisoned first.  On the CPU, one 8-byte word is also sorted as itself
 * (mp_cpu_sort_keys, the sort of key rows) against qsort of the words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "api/mp_order.h"
#include "reference.h"

/* The words as the reference reads them. */
static const mp_row_keys *ref_keys;
static int64_t ref_n;

static uint64_t
word_of(const mp_row_keys *keys, int64_t n, int w, int64_t row)
{
	if (keys->word_bytes == 4)
		return ((const uint32_t *) keys->words)[(size_t) w * n + row];
	return ((const uint64_t *) keys->words)[(size_t) w * n + row];
}

static int
ref_row_cmp(const void *p, const void *q)
{
	uint32_t	i = *(const uint32_t *) p,
				j = *(const uint32_t *) q;

	for (int w = ref_keys->nwords - 1; w >= 0; w--)
	{
		uint64_t	x = word_of(ref_keys, ref_n, w, i),
					y = word_of(ref_keys, ref_n, w, j);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return (i > j) - (i < j);
}

/* Sorts with the backend and checks the permutation against the reference. */
static void
check_rows(const backend *be, const mp_row_keys *keys, int64_t n, const char *what)
{
	uint32_t   *want = xmalloc(n * sizeof(uint32_t)),
			   *got = xmalloc(n * sizeof(uint32_t));
	size_t		bytes = (size_t) n * keys->nwords * keys->word_bytes;
	void	   *copy = xmalloc(bytes);
	mp_status	st;

	for (int64_t i = 0; i < n; i++)
		want[i] = (uint32_t) i;
	ref_keys = keys;
	ref_n = n;
	qsort(want, (size_t) n, sizeof(uint32_t), ref_row_cmp);
	memcpy(copy, keys->words, bytes);
	memset(got, 0xA5, n * sizeof(uint32_t));
	st = be->sort_rows(keys, n, got, NULL);
	check(st == MP_OK && memcmp(got, want, n * sizeof(uint32_t)) == 0 &&
		  memcmp(copy, keys->words, bytes) == 0,
		  st != MP_OK ? "bad status" : memcmp(copy, keys->words, bytes) ? "keys changed"
		  : "wrong permutation", what, be, MP_INT4, n, keys->nwords);
	free(want);
	free(got);
	free(copy);
}

static int
ref_u64_cmp(const void *p, const void *q)
{
	uint64_t	x = *(const uint64_t *) p,
				y = *(const uint64_t *) q;

	return (x > y) - (x < y);
}

/*
 * The CPU's sort of 64-bit keys as themselves (key rows) against qsort of
 * the same words: the result in the keys' array or in the second one, the
 * other poisoned before.
 */
static void
check_keys(const backend *be, const uint64_t *words, int64_t n, int bits, const char *what)
{
	uint64_t   *want = xmalloc(n * sizeof(uint64_t)),
			   *keys = xmalloc(n * sizeof(uint64_t)),
			   *tmp = xmalloc(n * sizeof(uint64_t)),
			   *sorted = NULL;
	mp_status	st;

	memcpy(want, words, n * sizeof(uint64_t));
	qsort(want, (size_t) n, sizeof(uint64_t), ref_u64_cmp);
	memcpy(keys, words, n * sizeof(uint64_t));
	memset(tmp, 0xA5, n * sizeof(uint64_t));
	st = mp_cpu_sort_keys(keys, tmp, n, bits, &sorted, NULL);
	check(st == MP_OK && (sorted == keys || sorted == tmp) &&
		  memcmp(sorted, want, n * sizeof(uint64_t)) == 0,
		  st != MP_OK ? "bad status" : sorted != keys && sorted != tmp ? "result in neither array"
		  : "keys out of order", what, be, MP_INT8, n, 1);
	free(want);
	free(keys);
	free(tmp);
}

typedef enum word_shape
{
	SHAPE_RANDOM,
	SHAPE_FEW,					/* four distinct values a word */
	SHAPE_EQUAL,
	SHAPE_ASCENDING,			/* the rows already in key order */
	SHAPE_DESCENDING,
	SHAPE_NEARLY,				/* in order, with one row in 64 anywhere */
	SHAPE_SEAM,					/* in order but for two rows either side of
								 * the seam of the CPU sort's first two parts */
	NUM_SHAPES
} word_shape;

static const char *const shape_names[] = {"random", "few", "equal", "ascending",
"descending", "nearly", "seam"};

/* Where the CPU row sort's first part ends (the middle when it has one). */
static int64_t
first_seam(int64_t n)
{
	int64_t		parts = n >= 2 * MP_SORT_THREAD_MIN ? n / MP_SORT_THREAD_MIN : 1;

	if (parts > mp_cpu_threads)
		parts = mp_cpu_threads;
	return parts > 1 ? n / parts : n / 2;
}

static uint64_t
low_bits(uint64_t x, int bits)
{
	return bits >= 64 ? x : x & ((UINT64_C(1) << bits) - 1);
}

static void
run_words_case(const backend *be, int nwords, int word_bytes, const int *bits,
			   word_shape shape, int64_t n)
{
	void	   *words = xmalloc((size_t) n * nwords * word_bytes);
	mp_row_keys keys = {nwords, word_bytes, bits, words};
	char		what[96];

	for (int w = 0; w < nwords; w++)
		for (int64_t i = 0; i < n; i++)
		{
			uint64_t	v;

			switch (shape)
			{
				case SHAPE_FEW:
					v = (uint64_t) rnd_below(4) << (bits[w] > 2 ? bits[w] - 2 : 0);
					break;
				case SHAPE_EQUAL:
					v = 0x5555555555555555ull;
					break;
				case SHAPE_ASCENDING:
				case SHAPE_NEARLY:
					/* the top word climbs, the others repeat under it */
					v = w == nwords - 1 ? (uint64_t) i * 3 : (uint64_t) (i % 5);
					if (shape == SHAPE_NEARLY && rnd_below(64) == 0)
						v = rnd();
					break;
				case SHAPE_DESCENDING:
					v = w == nwords - 1 ? (uint64_t) (n - i) * 3 : (uint64_t) (i % 5);
					break;
				case SHAPE_SEAM:
					{
						int64_t		seam = first_seam(n),
									j = i == seam ? i - 1 : i == seam - 1 ? i + 1 : i;

						v = w == nwords - 1 ? (uint64_t) j * 3 : (uint64_t) (i % 5);
						break;
					}
				default:
					v = rnd();
					break;
			}
			v = low_bits(v, bits[w]);
			if (word_bytes == 4)
				((uint32_t *) words)[(size_t) w * n + i] = (uint32_t) v;
			else
				((uint64_t *) words)[(size_t) w * n + i] = v;
		}
	snprintf(what, sizeof(what), "rows %d x %d-byte words, top bits %d, %s", nwords, word_bytes,
			 bits[nwords - 1], shape_names[shape]);
	check_rows(be, &keys, n, what);
	if (nwords == 1 && word_bytes == 8 && strcmp(be->name, "cpu") == 0)
	{
		snprintf(what, sizeof(what), "keys of %d bits, %s", bits[0], shape_names[shape]);
		check_keys(be, words, n, bits[0], what);
	}
	free(words);
}

/* One key column of typed rows: its element type, order and NULLs. */
typedef struct key_column
{
	mp_type		type;
	bool		desc;
	bool		nulls_first;
	char	   *values;
	bool	   *isnull;
} key_column;

static key_column *ref_cols;
static int	ref_ncols;

/* PostgreSQL's order of rows i and j, written out: NULLs, then ref_cmp. */
static int
ref_typed_cmp(const void *p, const void *q)
{
	uint32_t	i = *(const uint32_t *) p,
				j = *(const uint32_t *) q;

	for (int c = 0; c < ref_ncols; c++)
	{
		const key_column *col = &ref_cols[c];
		size_t		sz = mp_type_size(col->type);
		int			r;

		if (col->isnull[i] || col->isnull[j])
		{
			if (col->isnull[i] && col->isnull[j])
				continue;
			r = col->isnull[i] ? 1 : -1;	/* NULLs last ... */
			return col->nulls_first ? -r : r;	/* ... unless first */
		}
		r = ref_cmp(col->type, col->values + i * sz, col->values + j * sz);
		if (r != 0)
			return col->desc ? -r : r;
	}
	return (i > j) - (i < j);
}

static uint64_t
key_of(mp_type type, const char *value)
{
	switch (type)
	{
		case MP_INT4:
			return mp_key_int4(*(const int32_t *) value);
		case MP_INT8:
			return mp_key_int8(*(const int64_t *) value);
		case MP_FLOAT4:
			return mp_key_float4(*(const float *) value);
		case MP_FLOAT8:
			return mp_key_float8(*(const double *) value);
	}
	return 0;
}

/*
 * Rows with ncols typed key columns, folded into 8-byte words the way the
 * sort node folds them: the last column in the lowest bits, each nullable
 * column's null bit above its value.
 */
static void
run_typed_case(const backend *be, key_column *cols, int ncols, int64_t n)
{
	int			total = 0,
				nwords;
	int			bits[4];
	uint64_t   *words;
	mp_row_keys keys;
	uint32_t   *want = xmalloc(n * sizeof(uint32_t)),
			   *got = xmalloc(n * sizeof(uint32_t));
	char		what[96];
	mp_status	st;

	for (int c = 0; c < ncols; c++)
		total += (int) mp_type_size(cols[c].type) * 8 + 1;
	nwords = (total + 63) / 64;
	words = xmalloc((size_t) n * nwords * sizeof(uint64_t));
	for (int w = 0; w < nwords; w++)
		bits[w] = w < nwords - 1 ? 64 : total - 64 * (nwords - 1);
	for (int64_t i = 0; i < n; i++)
	{
		uint64_t	acc[4] = {0, 0, 0, 0};
		int			lo = 0;

		for (int c = ncols - 1; c >= 0; c--)
		{
			key_column *col = &cols[c];
			int			width = (int) mp_type_size(col->type) * 8;
			uint64_t	key = col->isnull[i] ? 0
				: key_of(col->type, col->values + i * mp_type_size(col->type));

			mp_key_put(acc, lo, width, mp_key_value(key, width, col->desc, col->isnull[i]));
			mp_key_put(acc, lo + width, 1, mp_key_null_bit(col->isnull[i], col->nulls_first));
			lo += width + 1;
		}
		for (int w = 0; w < nwords; w++)
			words[(size_t) w * n + i] = acc[w];
	}

	keys.nwords = nwords;
	keys.word_bytes = 8;
	keys.bits = bits;
	keys.words = words;
	for (int64_t i = 0; i < n; i++)
		want[i] = (uint32_t) i;
	ref_cols = cols;
	ref_ncols = ncols;
	qsort(want, (size_t) n, sizeof(uint32_t), ref_typed_cmp);
	memset(got, 0xA5, n * sizeof(uint32_t));
	st = be->sort_rows(&keys, n, got, NULL);
	snprintf(what, sizeof(what), "typed rows %s%s%s, %s%s%s", type_names[cols[0].type],
			 cols[0].desc ? " desc" : "", cols[0].nulls_first ? " nulls first" : "",
			 type_names[cols[1].type], cols[1].desc ? " desc" : "",
			 cols[1].nulls_first ? " nulls first" : "");
	check(st == MP_OK && memcmp(got, want, n * sizeof(uint32_t)) == 0,
		  st != MP_OK ? "bad status" : "wrong order", what, be, cols[0].type, n, ncols);
	free(words);
	free(want);
	free(got);
}

static void
fill_column(key_column *col, int64_t n)
{
	size_t		sz = mp_type_size(col->type);

	col->values = xmalloc(n * sz);
	col->isnull = xmalloc(n);
	for (int64_t i = 0; i < n; i++)
	{
		/* special values, or few distinct ones so that the next key decides */
		if (rnd_below(2))
			gen_special(col->type, col->values, i);
		else
			put(col->type, col->values, i, rnd_below(3), (double) rnd_below(3) - 1);
		col->isnull[i] = rnd_below(8) == 0;
	}
}

/*
 * The CPU backend's gather on its threads against a plain loop: records of
 * odd and even sizes, sizes around a thread's least share, more threads
 * than parts.
 */
static void
run_gather_tests(const backend *be)
{
	static const size_t recs[] = {1, 2, 4, 8, 9, 16, 18, 24, 32, 36};
	static const int64_t sizes[] = {0, 1, 100, 65535, 131071, 131072, 131073, 1000003};
	static const int threads[] = {1, 2, 3, 4, 64};

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		int64_t		n = sizes[s];
		uint32_t   *perm = xmalloc((n + 1) * sizeof(uint32_t));

		/* a random permutation, some rows twice (the gather allows it) */
		for (int64_t i = 0; i < n; i++)
			perm[i] = (uint32_t) i;
		for (int64_t i = n - 1; i > 0; i--)
		{
			int64_t		j = rnd_below(i + 1);
			uint32_t	t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		for (int64_t i = 0; i < n / 10; i++)
			perm[rnd_below(n)] = (uint32_t) rnd_below(n);

		for (size_t r = 0; r < sizeof(recs) / sizeof(recs[0]); r++)
		{
			size_t		rec = recs[r];
			unsigned char *src = xmalloc(n * rec + 1),
					   *want = xmalloc(n * rec + 1),
					   *got = xmalloc(n * rec + 1);

			for (int64_t i = 0; i < (int64_t) (n * rec); i++)
				src[i] = (unsigned char) rnd();
			for (int64_t i = 0; i < n; i++)
				memcpy(want + i * rec, src + (size_t) perm[i] * rec, rec);
			for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
			{
				char		what[64];

				memset(got, 0xA5, n * rec + 1);
				mp_cpu_gather(got, src, rec, perm, n, threads[t]);
				snprintf(what, sizeof(what), "gather, %zu-byte records, %d threads", rec,
						 threads[t]);
				check(memcmp(got, want, n * rec) == 0 && got[n * rec] == 0xA5,
					  "wrong records", what, be, MP_INT4, n, (int64_t) rec);
			}
			free(src);
			free(want);
			free(got);
		}
		free(perm);
	}
}

/*
 * The CPU row sort on several threads: sizes either side of where it
 * starts using them, thread counts that do not divide them, disorder only
 * at the seam of two parts.
 */
static void
run_rows_thread_tests(const backend *be)
{
	static const int threads[] = {2, 3, 7};
	static const int64_t sizes[] = {2 * MP_SORT_THREAD_MIN - 1, 2 * MP_SORT_THREAD_MIN, 1000003};
	int			saved = mp_cpu_threads;

	for (size_t t = quick ? 1 : 0; t < (quick ? 2 : sizeof(threads) / sizeof(threads[0])); t++)
	{
		mp_cpu_threads = threads[t];
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			int			one[1] = {32},
						three[3] = {32, 32, 5};

			run_words_case(be, 1, 4, one, SHAPE_RANDOM, sizes[s]);
			run_words_case(be, 1, 4, one, SHAPE_SEAM, sizes[s]);
			run_words_case(be, 1, 4, one, SHAPE_NEARLY, sizes[s]);
			run_words_case(be, 3, 4, three, SHAPE_FEW, sizes[s]);
			one[0] = 64;
			run_words_case(be, 1, 8, one, SHAPE_RANDOM, sizes[s]);
		}
	}
	mp_cpu_threads = saved;
}

/*
 * The GPU's row store (mp_gpu_store_*, the sort node's rows beyond its
 * memory): rows of random lengths (multiples of 8, their number in them)
 * appended in batches of random sizes with keys of few distinct values,
 * sorted, and fetched back in chunks of random byte limits, from the start
 * and from random places; against the reference's stable order.  A store
 * whose limit an append passes answers MP_OUT_OF_MEMORY and keeps what it
 * had; a cancelled append leaves nothing half appended.
 */
static void
store_row(char *to, uint64_t len, uint64_t row)
{
	uint32_t	t_len = (uint32_t) len - (uint32_t) rnd_below(8);

	memcpy(to, &t_len, sizeof(t_len));
	for (uint64_t at = 8; at < len; at += 8)
	{
		uint64_t	v = row * 1000003 + at;

		memcpy(to + at, &v, sizeof(v));
	}
	memcpy(to + 4, &row, sizeof(uint32_t));
}

static void
run_store_case(const backend *be, int nwords, int word_bytes, int64_t n, int64_t max_batch,
			   const char *what)
{
	int			bits[2] = {word_bytes * 8, 5};
	void	   *words = xmalloc((size_t) (n > 0 ? n : 1) * nwords * word_bytes);
	mp_row_keys keys = {nwords, word_bytes, bits, words};
	uint64_t   *off = xmalloc((size_t) (n + 1) * sizeof(uint64_t));
	uint32_t   *want = xmalloc((size_t) (n > 0 ? n : 1) * sizeof(uint32_t));
	char	   *tuples,
			   *buf;
	mp_gpu_store *store = NULL;
	mp_gpu_timing timing = {0};
	mp_status	st;
	size_t		bufsize = (size_t) 1 << 20;
	bool		ok = true;

	if (nwords == 1)
		bits[0] = word_bytes * 8;
	off[0] = 0;
	for (int64_t i = 0; i < n; i++)
	{
		for (int w = 0; w < nwords; w++)
		{
			uint64_t	v = rnd_below(w == nwords - 1 ? 16 : 1 << 20) << (w == 0 ? 3 : 0);

			if (word_bytes == 4)
				((uint32_t *) words)[(size_t) w * n + i] = (uint32_t) v;
			else
				((uint64_t *) words)[(size_t) w * n + i] = w == 1 ? v & 31 : v;
		}
		off[i + 1] = off[i] + 8 * (2 + rnd_below(i % 97 == 0 ? 64 : 6));
	}
	tuples = xmalloc(off[n] > 8 ? off[n] : 8);
	for (int64_t i = 0; i < n; i++)
		store_row(tuples + off[i], off[i + 1] - off[i], (uint64_t) i);
	for (int64_t i = 0; i < n; i++)
		want[i] = (uint32_t) i;
	ref_keys = &keys;
	ref_n = n;
	qsort(want, (size_t) n, sizeof(uint32_t), ref_row_cmp);

	st = mp_gpu_store_create(nwords, word_bytes, bits, (size_t) 1 << 34, &store);
	check(st == MP_OK, "create (nb: the status)", what, be, MP_INT4, n, st);
	for (int64_t j = 0; st == MP_OK && j < n;)
	{
		int64_t		m = 1 + rnd_below(max_batch);

		if (m > n - j)
			m = n - j;

		st = mp_gpu_store_append(store, tuples + off[j], off[j + m] - off[j], off + j,
								 (char *) words + (size_t) j * word_bytes, n, m, NULL,
								 &timing);
		j += m;
	}
	check(st == MP_OK && mp_gpu_store_rows(store) == n, "append (nb: the status)", what, NULL,
		  MP_INT4, n, st);
	if (st == MP_OK)
		st = mp_gpu_store_sort(store, NULL, &timing);
	check(st == MP_OK, "sort (nb: the status)", what, be, MP_INT4, n, st);
	buf = xmalloc(bufsize);
	for (int pass = 0; st == MP_OK && pass < 2; pass++)
	{
		/* pass 0: all of it from the start; pass 1: from random places */
		int64_t		pos = pass == 0 ? 0 : (n > 0 ? rnd_below(n) : 0);

		for (int round = 0; pos < n && (pass == 0 || round < 20); round++)
		{
			size_t		limit = 64 + rnd_below(round % 3 == 0 ? 4096 : bufsize - 64);
			int64_t		rows;
			size_t		bytes,
						at = 0;

			st = mp_gpu_store_fetch(store, pos, 1 + rnd_below(4096), limit, buf, &rows, &bytes,
									NULL, &timing);
			if (st != MP_OK || (rows == 0 && bytes <= limit) || (rows > 0 && bytes > limit))
			{
				ok = false;
				break;
			}
			if (rows == 0)
			{
				/* the row is longer than the limit: ask again with room */
				ok &= bytes == off[want[pos] + 1] - off[want[pos]];
				st = mp_gpu_store_fetch(store, pos, 1, bytes, buf, &rows, &bytes, NULL,
										&timing);
				ok &= st == MP_OK && rows == 1;
			}
			for (int64_t r = 0; ok && r < rows; r++)
			{
				uint32_t	row = want[pos + r];
				uint64_t	len = off[row + 1] - off[row];

				ok &= at + len <= bytes && memcmp(buf + at, tuples + off[row], len) == 0;
				at += len;
			}
			ok &= at == bytes;
			if (!ok)
				break;
			pos = pass == 0 ? pos + rows : rnd_below(n);
		}
	}
	check(st == MP_OK && ok, "fetch (nb: the status)", what, be, MP_INT4, n, st);
	mp_gpu_store_free(store);
	free(buf);
	free(tuples);
	free(words);
	free(off);
	free(want);
}

static void
run_store_limits(const backend *be)
{
	int			bits[1] = {32};
	int64_t		n = 200000;
	uint32_t   *keys = xmalloc(n * sizeof(uint32_t));
	uint64_t   *off = xmalloc((n + 1) * sizeof(uint64_t));
	char	   *tuples = xmalloc(n * 64);
	char	   *buf = xmalloc((size_t) 64 << 20);
	mp_gpu_store *store = NULL;
	mp_gpu_timing timing = {0};
	mp_status	st,
				over,
				cancelled;
	int64_t		rows;
	size_t		bytes;
	bool		ok = true;

	for (int64_t i = 0; i <= n; i++)
		off[i] = (uint64_t) i * 64;
	for (int64_t i = 0; i < n; i++)
	{
		keys[i] = (uint32_t) (n - i);
		store_row(tuples + off[i], 64, (uint64_t) i);
	}
	/* a limit of 12 MB: the first half fits, the rest does not */
	st = mp_gpu_store_create(1, 4, bits, (size_t) 12 << 20, &store);
	if (st == MP_OK)
		st = mp_gpu_store_append(store, tuples, n / 2 * 64, off, keys, n, n / 2, NULL, &timing);
	over = st == MP_OK ? mp_gpu_store_append(store, tuples + off[n / 2], n / 2 * 64, off + n / 2,
											keys + n / 2, n, n / 2, NULL, &timing) : st;
	check(st == MP_OK && over == MP_OUT_OF_MEMORY && mp_gpu_store_rows(store) == n / 2,
		  "an append past the limit (nb: the status)", "store limit", be, MP_INT4, n, over);
	/* a cancel in the middle of an append of 6.4 MB (two staging chunks) */
	mp_gpu_store_free(store);
	st = mp_gpu_store_create(1, 4, bits, (size_t) 1 << 30, &store);
	polls_left = 1;
	cancelled = st == MP_OK ? mp_gpu_store_append(store, tuples, (size_t) n / 2 * 64, off, keys,
												  n, n / 2, poll_countdown, &timing) : st;
	check(cancelled == MP_CANCELLED && mp_gpu_store_rows(store) == 0,
		  "a cancelled append (nb: the status)", "store cancel", be, MP_INT4, n, cancelled);
	if (st == MP_OK)
		st = mp_gpu_store_append(store, tuples, (size_t) n * 64, off, keys, n, n, NULL, &timing);
	if (st == MP_OK)
		st = mp_gpu_store_sort(store, NULL, &timing);
	if (st == MP_OK)
		st = mp_gpu_store_fetch(store, 0, n, (size_t) 64 << 20, buf, &rows, &bytes, NULL,
								&timing);
	/* keys n - i: the rows come back reversed */
	for (int64_t r = 0; st == MP_OK && ok && r < n; r++)
		ok &= memcmp(buf + r * 64, tuples + off[n - 1 - r], 64) == 0;
	check(st == MP_OK && rows == n && bytes == (size_t) n * 64 && ok,
		  "after the cancel, append, sort and fetch (nb: the status)", "store cancel", be, MP_INT4,
		  n, st);
	mp_gpu_store_free(store);
	free(keys);
	free(off);
	free(tuples);
	free(buf);
}

static void
run_store_tests(const backend *be)
{
	static const int64_t sizes[] = {0, 1, 2, 1000, 65537, 1 << 20};
	int			nsizes = quick ? 5 : (int) (sizeof(sizes) / sizeof(sizes[0]));

	for (int s = 0; s < nsizes; s++)
	{
		run_store_case(be, 1, 4, sizes[s], 5000, "store, one 4-byte word");
		run_store_case(be, 1, 8, sizes[s], 50000, "store, one 8-byte word");
		run_store_case(be, 2, 8, sizes[s], 300000, "store, two 8-byte words");
	}
	run_store_limits(be);
}

void
run_rows_tests(const backend *be)
{
	static const int widths4[] = {1, 7, 8, 9, 16, 24, 31, 32};
	static const int widths8[] = {1, 33, 40, 48, 63, 64};
	static const int64_t sizes[] = {0, 1, 2, 3, 17, 255, 256, 257, 4097, 65539, 1 << 20};
	int			nsizes = quick ? 8 : (int) (sizeof(sizes) / sizeof(sizes[0]));

	/* the units of --shard: these two, each size, each typed round, the big
	 * sorts, the cancels */
	if (strcmp(be->name, "cpu") == 0 && shard_takes(0))
	{
		run_gather_tests(be);
		run_rows_thread_tests(be);
	}
	else if (strcmp(be->name, "cpu") != 0 && shard_takes(1))
		run_store_tests(be);

	for (int s = 0; s < nsizes; s++)
		for (int shape = 0; shape < NUM_SHAPES && shard_takes(s); shape++)
		{
			int64_t		n = sizes[s];
			int			one[1],
						three[3];

			if (!sweep_takes())
				continue;

			/* one word, each width of 4 and of 8 bytes */
			for (size_t k = 0; k < sizeof(widths4) / sizeof(int); k++)
			{
				one[0] = widths4[k];
				run_words_case(be, 1, 4, one, shape, n);
			}
			for (size_t k = 0; k < sizeof(widths8) / sizeof(int); k++)
			{
				one[0] = widths8[k];
				run_words_case(be, 1, 8, one, shape, n);
			}
			/* several words: the lower ones full, the top one partly used */
			three[0] = 32;
			three[1] = 32;
			three[2] = 1 + (int) rnd_below(32);
			run_words_case(be, 2, 4, three + 1, shape, n);
			run_words_case(be, 3, 4, three, shape, n);
			three[0] = 64;
			three[1] = 64;
			three[2] = 1 + (int) rnd_below(64);
			run_words_case(be, 2, 8, three + 1, shape, n);
			run_words_case(be, 3, 8, three, shape, n);
		}

	for (int round = 0; round < (quick ? 16 : 64); round++)
	{
		key_column cols[2];
		int64_t		n = round % 4 == 3 ? 1 + rnd_below(100000) : 1 + rnd_below(3000);

		if (!shard_takes(round))
			continue;
		for (int c = 0; c < 2; c++)
		{
			cols[c].type = (mp_type) rnd_below(4);
			cols[c].desc = rnd_below(2);
			cols[c].nulls_first = rnd_below(2);
			fill_column(&cols[c], n);
		}
		run_typed_case(be, cols, 2, n);
		for (int c = 0; c < 2; c++)
		{
			free(cols[c].values);
			free(cols[c].isnull);
		}
	}

	if (!quick && shard_takes(2))
	{
		int			one[1] = {32};

		run_words_case(be, 1, 4, one, SHAPE_RANDOM, 10000000);
		one[0] = 64;
		run_words_case(be, 1, 8, one, SHAPE_FEW, 10000000);
	}

	/* a cancel between chunks stops the sort */
	if (shard_takes(3))
	{
		int64_t		n = 3 << 20;
		int			one[1] = {32};
		uint32_t   *words = xmalloc(n * sizeof(uint32_t)),
				   *perm = xmalloc(n * sizeof(uint32_t));
		mp_row_keys keys = {1, 4, one, words};
		mp_status	st;

		for (int64_t i = 0; i < n; i++)
			words[i] = (uint32_t) rnd();
		polls_left = 2;
		st = be->sort_rows(&keys, n, perm, poll_countdown);
		check(st == MP_CANCELLED, "a cancel was not honoured", "rows cancel", be, MP_INT4, n, 1);
		free(words);
		free(perm);
	}
	if (strcmp(be->name, "cpu") == 0 && shard_takes(3))
	{
		int64_t		n = 3 << 20;
		uint64_t   *keys = xmalloc(n * sizeof(uint64_t)),
				   *tmp = xmalloc(n * sizeof(uint64_t)),
				   *sorted;
		mp_status	st;

		for (int64_t i = 0; i < n; i++)
			keys[i] = rnd();
		polls_left = 2;
		st = mp_cpu_sort_keys(keys, tmp, n, 64, &sorted, poll_countdown);
		check(st == MP_CANCELLED, "a cancel was not honoured", "keys cancel", be, MP_INT8, n, 1);
		free(keys);
		free(tmp);
	}
}
