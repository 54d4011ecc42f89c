/*
 * test_runs.c
 *		The backends' k-way merge of sorted runs against a reference written
 *		here: a qsort of positions by reference.h's comparison, ties broken
 *		by position.  Runs lie end to end, so that is the stable merge by
 *		construction.  Inputs: 1 to 10^4 runs, of even, random, skewed and
 *		tile-sized lengths, empty runs among them, every input shape (equal
 *		keys, -0 and +0, NaNs, extremes); the permutation form over unsigned
 *		keys of both widths; cancels.  Every output is poisoned first.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

static mp_type ref_type;
static int ref_word;			/* 0: ref_type's elements; 4 or 8: unsigned keys */
static const char *ref_base;

static int
ref_position_cmp(const void *p, const void *q)
{
	int64_t		i = *(const int64_t *) p,
				j = *(const int64_t *) q;
	int			c;

	if (ref_word == 4)
	{
		uint32_t	x = ((const uint32_t *) ref_base)[i],
					y = ((const uint32_t *) ref_base)[j];

		c = (x > y) - (x < y);
	}
	else if (ref_word == 8)
	{
		uint64_t	x = ((const uint64_t *) ref_base)[i],
					y = ((const uint64_t *) ref_base)[j];

		c = (x > y) - (x < y);
	}
	else
	{
		size_t		sz = mp_type_size(ref_type);

		c = ref_cmp(ref_type, ref_base + i * sz, ref_base + j * sz);
	}
	return c ? c : (i > j) - (i < j);
}

/* The positions of x[0..n) in stable order. */
static int64_t *
ref_order(mp_type type, int word, const void *x, int64_t n)
{
	int64_t    *pos = xmalloc((n ? n : 1) * sizeof(int64_t));

	for (int64_t i = 0; i < n; i++)
		pos[i] = i;
	ref_type = type;
	ref_word = word;
	ref_base = x;
	qsort(pos, (size_t) n, sizeof(int64_t), ref_position_cmp);
	return pos;
}

/* How the elements are shared among the runs. */
typedef enum lengths
{
	LEN_EVEN,					/* n / k each */
	LEN_RANDOM,					/* uniform in [0, 2n / k] */
	LEN_SKEWED,					/* one run holds most, many are empty */
	LEN_TILES,					/* around the GPU's tile sizes */
	NUM_LENGTHS
} lengths;

static const char *const length_names[] = {"even", "random", "skewed", "tile-sized"};

/* bounds[0..k] for about n elements; returns the total. */
static int64_t
make_bounds(lengths how, int64_t k, int64_t n, int64_t *bounds)
{
	static const int64_t tiles[] = {1279, 1280, 1281, 1791, 1792, 1793, 3584, 1};
	int64_t		big = rnd_below(k);

	bounds[0] = 0;
	for (int64_t r = 0; r < k; r++)
	{
		int64_t		len = 0;

		switch (how)
		{
			case LEN_EVEN:
				len = n / k;
				break;
			case LEN_RANDOM:
				len = rnd_below(2 * n / k + 1);
				break;
			case LEN_SKEWED:
				len = r == big ? n / 2 : rnd_below(3) == 0 ? rnd_below(n / k + 1) : 0;
				break;
			case LEN_TILES:
				len = tiles[rnd_below(sizeof(tiles) / sizeof(tiles[0]))];
				break;
			default:
				break;
		}
		bounds[r + 1] = bounds[r] + len;
	}
	return bounds[k];
}

static void
run_values_case(const backend *be, mp_type type, gen_kind gen, lengths how, int64_t k, int64_t n)
{
	size_t		sz = mp_type_size(type);
	int64_t    *bounds = xmalloc((k + 1) * sizeof(int64_t));
	int64_t		total = make_bounds(how, k, n, bounds);
	char	   *x = xmalloc((total ? total : 1) * sz),
			   *copy = xmalloc((total ? total : 1) * sz),
			   *out = xmalloc((total ? total : 1) * sz),
			   *want = xmalloc((total ? total : 1) * sz);
	int64_t    *pos;
	char		what[96];
	mp_status	st;

	for (int64_t r = 0; r < k; r++)
		gen_sorted(type, gen, bounds[r + 1] - bounds[r], x + bounds[r] * sz);
	memcpy(copy, x, total * sz);
	pos = ref_order(type, 0, x, total);
	for (int64_t j = 0; j < total; j++)
		memcpy(want + j * sz, x + pos[j] * sz, sz);
	memset(out, 0xA5, total * sz);
	st = be->merge_runs(type, x, bounds, k, out, NULL);
	snprintf(what, sizeof(what), "merge runs: %" PRId64 " %s runs of %s", k, length_names[how],
			 gen_names[gen]);
	check(st == MP_OK && memcmp(out, want, total * sz) == 0 && memcmp(x, copy, total * sz) == 0,
		  st != MP_OK ? "bad status" : memcmp(x, copy, total * sz) ? "input changed" : "wrong output",
		  what, be, type, total, k);
	free(pos);
	free(bounds);
	free(x);
	free(copy);
	free(out);
	free(want);
}

/* Runs of unsigned keys with `bits` low bits in use: the permutation. */
/* Each run of keys[bounds[r] .. bounds[r + 1]) an ascending draw of `bits`-bit keys. */
static void
sorted_key_runs(int word, int bits, const int64_t *bounds, int64_t k, char *keys)
{
	uint64_t	mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;

	for (int64_t r = 0; r < k; r++)
	{
		int64_t		lo = bounds[r],
					len = bounds[r + 1] - lo;
		uint64_t   *draw = xmalloc((len ? len : 1) * sizeof(uint64_t));
		int64_t    *order;

		/* random keys, then in the reference's order */
		for (int64_t i = 0; i < len; i++)
			draw[i] = rnd() & mask;
		ref_type = MP_INT8;
		ref_word = 8;
		ref_base = (const char *) draw;
		order = xmalloc((len ? len : 1) * sizeof(int64_t));
		for (int64_t i = 0; i < len; i++)
			order[i] = i;
		qsort(order, (size_t) len, sizeof(int64_t), ref_position_cmp);
		for (int64_t i = 0; i < len; i++)
		{
			if (word == 4)
				((uint32_t *) keys)[lo + i] = (uint32_t) draw[order[i]];
			else
				((uint64_t *) keys)[lo + i] = draw[order[i]];
		}
		free(order);
		free(draw);
	}
}

static void
run_keys_case(const backend *be, int word, int bits, lengths how, int64_t k, int64_t n)
{
	int64_t    *bounds = xmalloc((k + 1) * sizeof(int64_t));
	int64_t		total = make_bounds(how, k, n, bounds);
	char	   *keys = xmalloc((total ? total : 1) * word);
	uint32_t   *perm = xmalloc((total ? total : 1) * sizeof(uint32_t));
	int64_t    *pos;
	bool		same = true;
	char		what[96];
	mp_status	st;

	sorted_key_runs(word, bits, bounds, k, keys);
	pos = ref_order(MP_INT8, word, keys, total);
	memset(perm, 0xA5, (total ? total : 1) * sizeof(uint32_t));
	st = be->merge_key_runs(word, keys, bounds, k, perm, NULL);
	for (int64_t j = 0; j < total && st == MP_OK; j++)
		same &= perm[j] == (uint32_t) pos[j];
	snprintf(what, sizeof(what), "merge key runs: %" PRId64 " %s runs, %d-byte keys of %d bits",
			 k, length_names[how], word, bits);
	check(st == MP_OK && same, st != MP_OK ? "bad status" : "wrong permutation", what, be,
		  MP_INT8, total, k);
	free(pos);
	free(bounds);
	free(keys);
	free(perm);
}

/*
 * The keyed merge of runs that lie apart (mp_cpu_merge_keyed_part), the
 * merge cut into random parts merged one after the other, as the
 * participants of a parallel join merge theirs: keys (XORed with flip) and
 * payloads (each key's place in the runs laid end to end) against the
 * stable order.
 */
static void
run_keyed_case(const backend *be, int word, int bits, lengths how, int64_t k, int64_t n)
{
	int64_t    *bounds = xmalloc((k + 1) * sizeof(int64_t));
	int64_t		total = make_bounds(how, k, n, bounds);
	char	   *keys = xmalloc((total ? total : 1) * word);
	const void **runs = xmalloc((k ? k : 1) * sizeof(void *));
	const uint64_t **payload = xmalloc((k ? k : 1) * sizeof(uint64_t *));
	int64_t    *len = xmalloc((k ? k : 1) * sizeof(int64_t));
	char	   *out = xmalloc((total ? total : 1) * word);
	uint64_t   *out_payload = xmalloc((total ? total : 1) * sizeof(uint64_t));
	uint64_t	flip = rnd_below(2) ? (word == 4 ? UINT64_C(0x80000000) : UINT64_C(1) << 63) : 0;
	int64_t		parts = 1 + rnd_below(8);
	int64_t    *pos;
	int64_t		lo = 0;
	bool		same = true;
	char		what[112];
	mp_status	st = MP_OK;

	sorted_key_runs(word, bits, bounds, k, keys);
	for (int64_t r = 0; r < k; r++)
	{
		char	   *run;
		uint64_t   *pl;

		len[r] = bounds[r + 1] - bounds[r];
		run = xmalloc((len[r] ? len[r] : 1) * word);
		pl = xmalloc((len[r] ? len[r] : 1) * sizeof(uint64_t));
		memcpy(run, keys + bounds[r] * word, len[r] * word);
		for (int64_t i = 0; i < len[r]; i++)
			pl[i] = (uint64_t) (bounds[r] + i);
		runs[r] = run;
		payload[r] = pl;
	}
	memset(out, 0xA5, (total ? total : 1) * word);
	memset(out_payload, 0xA5, (total ? total : 1) * sizeof(uint64_t));
	for (int64_t p = 0; p < parts && st == MP_OK; p++)
	{
		int64_t		hi = p == parts - 1 ? total : lo + rnd_below(total - lo + 1);

		st = mp_cpu_merge_keyed_part(word, k, runs, payload, len, lo, hi, flip,
									 out + lo * word, out_payload + lo);
		lo = hi;
	}
	pos = ref_order(MP_INT8, word, keys, total);
	for (int64_t j = 0; j < total && st == MP_OK && same; j++)
	{
		same &= out_payload[j] == (uint64_t) pos[j];
		if (word == 4)
			same &= ((uint32_t *) out)[j] == (((uint32_t *) keys)[pos[j]] ^ (uint32_t) flip);
		else
			same &= ((uint64_t *) out)[j] == (((uint64_t *) keys)[pos[j]] ^ flip);
	}
	snprintf(what, sizeof(what), "keyed merge: %" PRId64 " %s runs apart, %d-byte keys of %d bits, %"
			 PRId64 " parts", k, length_names[how], word, bits, parts);
	check(st == MP_OK && same, st != MP_OK ? "bad status" : "wrong keys or payloads", what, be,
		  MP_INT8, total, k);
	for (int64_t r = 0; r < k; r++)
	{
		free((void *) runs[r]);
		free((void *) payload[r]);
	}
	free(pos);
	free(runs);
	free(payload);
	free(len);
	free(out);
	free(out_payload);
	free(bounds);
	free(keys);
}

/* Composite keys of nwords words, word-major: the reference's order. */
static const uint64_t *ref_words;
static int	ref_nwords;
static int64_t ref_n;

static int
ref_words_cmp(const void *p, const void *q)
{
	int64_t		i = *(const int64_t *) p,
				j = *(const int64_t *) q;

	for (int w = ref_nwords - 1; w >= 0; w--)
	{
		uint64_t	x = ref_words[w * ref_n + i],
					y = ref_words[w * ref_n + j];

		if (x != y)
			return x < y ? -1 : 1;
	}
	return (i > j) - (i < j);
}

/*
 * Runs of composite keys of nwords 8-byte words, `bits` low bits of each in
 * use (few bits: many equal keys), through mp_cpu_merge_row_runs.
 */
static void
run_row_keys_case(const backend *be, int nwords, int bits, lengths how, int64_t k, int64_t n)
{
	int64_t    *bounds = xmalloc((k + 1) * sizeof(int64_t));
	int64_t		total = make_bounds(how, k, n, bounds);
	int64_t		rows = total ? total : 1;
	uint64_t   *draw = xmalloc(rows * nwords * sizeof(uint64_t));
	uint64_t   *keys = xmalloc(rows * nwords * sizeof(uint64_t));
	int64_t    *order = xmalloc(rows * sizeof(int64_t));
	uint32_t   *perm = xmalloc(rows * sizeof(uint32_t));
	int			wbits[3] = {bits, bits, bits};
	mp_row_keys rk = {nwords, 8, wbits, keys};
	uint64_t	mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	bool		same = true;
	char		what[96];
	mp_status	st;

	for (int64_t i = 0; i < total * nwords; i++)
		draw[i] = rnd() & mask;
	/* each run sorted: its draws in the reference's order */
	ref_words = draw;
	ref_nwords = nwords;
	ref_n = total;
	for (int64_t r = 0; r < k; r++)
	{
		int64_t		lo = bounds[r],
					len = bounds[r + 1] - lo;

		for (int64_t i = 0; i < len; i++)
			order[lo + i] = lo + i;
		qsort(order + lo, (size_t) len, sizeof(int64_t), ref_words_cmp);
	}
	for (int64_t i = 0; i < total; i++)
		for (int w = 0; w < nwords; w++)
			keys[w * total + i] = draw[w * total + order[i]];
	ref_words = keys;
	for (int64_t i = 0; i < total; i++)
		order[i] = i;
	qsort(order, (size_t) total, sizeof(int64_t), ref_words_cmp);
	memset(perm, 0xA5, rows * sizeof(uint32_t));
	st = mp_cpu_merge_row_runs(&rk, bounds, k, perm, NULL);
	for (int64_t j = 0; j < total && st == MP_OK; j++)
		same &= perm[j] == (uint32_t) order[j];
	snprintf(what, sizeof(what), "merge row runs: %" PRId64 " %s runs, %d words of %d bits",
			 k, length_names[how], nwords, bits);
	check(st == MP_OK && same, st != MP_OK ? "bad status" : "wrong permutation", what, be,
		  MP_INT8, total, k);
	free(bounds);
	free(draw);
	free(keys);
	free(order);
	free(perm);
}

/* A cancel between chunks returns MP_CANCELLED, and the next call works. */
static void
run_runs_cancel(const backend *be, mp_type type, int64_t k, int64_t n)
{
	size_t		sz = mp_type_size(type);
	int64_t    *bounds = xmalloc((k + 1) * sizeof(int64_t));
	int64_t		total = make_bounds(LEN_EVEN, k, n, bounds);
	char	   *x = xmalloc(total * sz),
			   *out = xmalloc(total * sz),
			   *want = xmalloc(total * sz);
	int64_t    *pos;

	for (int64_t r = 0; r < k; r++)
		gen_sorted(type, GEN_WIDE, bounds[r + 1] - bounds[r], x + bounds[r] * sz);
	pos = ref_order(type, 0, x, total);
	for (int64_t j = 0; j < total; j++)
		memcpy(want + j * sz, x + pos[j] * sz, sz);
	for (int after = 0; after < 2; after++)
	{
		polls_left = after;
		check(be->merge_runs(type, x, bounds, k, out, poll_countdown) == MP_CANCELLED,
			  "no cancel", "cancel merge runs", be, type, total, k);
		memset(out, 0xA5, total * sz);
		check(be->merge_runs(type, x, bounds, k, out, NULL) == MP_OK &&
			  memcmp(out, want, total * sz) == 0,
			  "wrong output after a cancel", "cancel merge runs", be, type, total, k);
	}
	free(pos);
	free(bounds);
	free(x);
	free(out);
	free(want);
}

void
run_runs_tests(const backend *be)
{
	const int64_t ks[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 33, 100, 1000, 10000};
	const int64_t quick_ks[] = {1, 2, 3, 5, 8, 33, 1000, 10000};
	const int64_t *kk = quick ? quick_ks : ks;
	int			nk = quick ? (int) (sizeof(quick_ks) / sizeof(quick_ks[0]))
		: (int) (sizeof(ks) / sizeof(ks[0]));

	for (int t = 0; t < 4; t++)
	{
		mp_type		type = (mp_type) t;

		if (!shard_takes(t))
			continue;

		for (int i = 0; i < nk; i++)
			for (int how = 0; how < NUM_LENGTHS; how++)
			{
				int64_t		n = kk[i] * (quick ? 40 : 200) + rnd_below(1000);

				if (sweep_takes())
					run_values_case(be, type, (gen_kind) rnd_below(GEN_WALK), (lengths) how, kk[i], n);
			}
		for (int g = 0; g < GEN_WALK; g++)
		{
			run_values_case(be, type, (gen_kind) g, LEN_RANDOM, 2, 5000);
			run_values_case(be, type, (gen_kind) g, LEN_RANDOM, 37, 50000);
		}
		/* no runs at all, and runs that are all empty */
		run_values_case(be, type, GEN_WIDE, LEN_EVEN, 0, 0);
		run_values_case(be, type, GEN_WIDE, LEN_EVEN, 5, 0);
		run_values_case(be, type, GEN_WIDE, LEN_EVEN, 1000, quick ? 300000 : 3000000);
		if (!quick)
			run_values_case(be, type, GEN_WALK, LEN_RANDOM, 4, 4000000);
		run_runs_cancel(be, type, 64, quick ? 2500000 : 4000000);
	}
	/* units 4 and 5: the key runs of 4- and 8-byte words */
	for (int word = 4; word <= 8; word += 4)
	{
		const int	bits[] = {1, 12, 31, 32, 63, 64};

		if (!shard_takes(word == 4 ? 4 : 5))
			continue;
		for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
		{
			if (bits[b] > word * 8)
				continue;
			for (int how = 0; how < NUM_LENGTHS; how++)
				for (int i = 0; i < nk; i++)
					if ((kk[i] <= 1000 || how == LEN_EVEN) && sweep_takes())
						run_keys_case(be, word, bits[b], (lengths) how, kk[i],
									  kk[i] * (quick ? 20 : 60) + rnd_below(500));
		}
		run_keys_case(be, word, word * 8, LEN_RANDOM, 4, quick ? 200000 : 2000000);
	}
	if (be->merge_key_runs == mp_cpu_merge_key_runs && shard_takes(6))
		for (int word = 4; word <= 8; word += 4)
		{
			const int	bits[] = {1, 12, 32, 64};
			const int64_t keyed_ks[] = {1, 2, 3, 9, 17, 100};

			for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
			{
				if (bits[b] > word * 8)
					continue;
				for (int how = 0; how < NUM_LENGTHS; how++)
					for (size_t i = 0; i < sizeof(keyed_ks) / sizeof(keyed_ks[0]); i++)
						run_keyed_case(be, word, bits[b], (lengths) how, keyed_ks[i],
									   keyed_ks[i] * 40 + rnd_below(500));
			}
			/* parts cut again across threads */
			run_keyed_case(be, word, word * 8, LEN_RANDOM, 9, quick ? 400000 : 2000000);
			run_keyed_case(be, word, 3, LEN_SKEWED, 5, quick ? 400000 : 2000000);
			run_keyed_case(be, word, 16, LEN_EVEN, 0, 0);
		}
	if (be->merge_key_runs == mp_cpu_merge_key_runs && shard_takes(7))
		for (int nwords = 2; nwords <= 3; nwords++)
			for (int how = 0; how < NUM_LENGTHS; how++)
			{
				const int64_t row_ks[] = {1, 2, 3, 9, 100, 1000};

				for (size_t i = 0; i < sizeof(row_ks) / sizeof(row_ks[0]); i++)
				{
					run_row_keys_case(be, nwords, 1, (lengths) how, row_ks[i],
									  row_ks[i] * 50 + rnd_below(500));
					run_row_keys_case(be, nwords, 64, (lengths) how, row_ks[i],
									  row_ks[i] * 50 + rnd_below(500));
				}
				/* cut into parts on threads */
				run_row_keys_case(be, nwords, 2, (lengths) how, 37, quick ? 300000 : 1500000);
				run_row_keys_case(be, nwords, 64, (lengths) how, 200, quick ? 300000 : 1500000);
			}
}
