/*
 * cpu_rows.c
 *		The CPU backend's row sort: the stable permutation that orders rows
 *		by composite keys (the executor's sort node).
 *
 * A least-significant-digit radix sort over the 32-bit halves of the key
 * words, the least significant half first.  Each half is sorted as 64-bit
 * pairs, the half's key above the row number, one byte of the key a pass: a
 * pair moves as one word, so a pass streams one array in and one out.  One
 * read of the pairs counts every byte's histogram and notices pairs already
 * in order (a half that is sorted costs that read alone) and bytes that
 * never vary (their pass is skipped).  The rows are read in the order the
 * halves sorted so far have put them, which is what makes the whole sort
 * stable.  Plain C, no PostgreSQL headers.
 */
#include <string.h>

#include "mergepath.h"

/* Rows between two interrupt polls. */
#define ROWS_CHUNK ((int64_t) 1 << 20)

/* Significant bits of half h of the key (0 when it is unused). */
static int
half_bits(const mp_row_keys *keys, int h)
{
	int			bits;

	if (keys->word_bytes == 4)
		return keys->bits[h];
	bits = keys->bits[h / 2] - (h % 2) * 32;
	return bits < 0 ? 0 : bits > 32 ? 32 : bits;
}

/* pairs[i] = half h of row perm[i]'s key, above perm[i]. */
static mp_status
fill_pairs(const mp_row_keys *keys, int64_t n, int h, const uint32_t *perm,
		   uint64_t *restrict pairs, mp_poll_fn poll)
{
	for (int64_t lo = 0; lo < n; lo += ROWS_CHUNK)
	{
		int64_t		hi = lo + ROWS_CHUNK < n ? lo + ROWS_CHUNK : n;

		if (poll && poll())
			return MP_CANCELLED;
		if (keys->word_bytes == 4)
		{
			const uint32_t *word = (const uint32_t *) keys->words + (size_t) h * n;

			for (int64_t i = lo; i < hi; i++)
				pairs[i] = (uint64_t) word[perm[i]] << 32 | perm[i];
		}
		else
		{
			const uint64_t *word = (const uint64_t *) keys->words + (size_t) (h / 2) * n;
			int			shift = (h % 2) * 32;

			for (int64_t i = lo; i < hi; i++)
				pairs[i] = (word[perm[i]] >> shift) << 32 | perm[i];
		}
	}
	return MP_OK;
}

/*
 * Sorts pairs[0..n) stably by their high 32 bits, of which only the low
 * `bits` may be nonzero, using tmp (room for n); *sorted gets whichever of
 * the two holds the result.
 */
static mp_status
sort_pairs(uint64_t *pairs, uint64_t *tmp, int64_t n, int bits, uint64_t **sorted,
		   mp_poll_fn poll)
{
	int64_t		hist[4][256];
	int			ndigits = (bits + 7) / 8;
	bool		in_order = true;
	uint32_t	prev = 0;
	uint64_t   *src = pairs,
			   *dst = tmp;

	*sorted = pairs;
	memset(hist, 0, sizeof(hist));
	for (int64_t lo = 0; lo < n; lo += ROWS_CHUNK)
	{
		int64_t		hi = lo + ROWS_CHUNK < n ? lo + ROWS_CHUNK : n;

		if (poll && poll())
			return MP_CANCELLED;
		for (int64_t i = lo; i < hi; i++)
		{
			uint32_t	k = (uint32_t) (pairs[i] >> 32);

			in_order &= k >= prev;
			prev = k;
			hist[0][k & 255]++;
			hist[1][(k >> 8) & 255]++;
			hist[2][(k >> 16) & 255]++;
			hist[3][k >> 24]++;
		}
	}
	if (in_order)
		return MP_OK;

	for (int d = 0; d < ndigits; d++)
	{
		int			shift = 32 + 8 * d;
		int64_t		next[256];
		int64_t		sum = 0;

		if (hist[d][(pairs[0] >> shift) & 255] == n)
			continue;			/* this byte is the same in every key */
		for (int v = 0; v < 256; v++)
		{
			next[v] = sum;
			sum += hist[d][v];
		}
		for (int64_t lo = 0; lo < n; lo += ROWS_CHUNK)
		{
			int64_t		hi = lo + ROWS_CHUNK < n ? lo + ROWS_CHUNK : n;

			if (poll && poll())
				return MP_CANCELLED;
			for (int64_t i = lo; i < hi; i++)
			{
				uint64_t	x = src[i];

				dst[next[(x >> shift) & 255]++] = x;
			}
		}
		*sorted = dst;
		dst = src;
		src = *sorted;
	}
	return MP_OK;
}

mp_status
mp_cpu_sort_rows(const mp_row_keys *keys, int64_t n, uint32_t *perm, void *scratch,
				 mp_poll_fn poll)
{
	uint64_t   *pairs = scratch,
			   *tmp = pairs + n;
	int			nhalves = keys->nwords * (keys->word_bytes / 4);

	for (int64_t i = 0; i < n; i++)
		perm[i] = (uint32_t) i;
	if (n < 2)
		return MP_OK;
	for (int h = 0; h < nhalves; h++)
	{
		int			bits = half_bits(keys, h);
		uint64_t   *sorted;
		mp_status	st;

		if (bits == 0)
			continue;
		if ((st = fill_pairs(keys, n, h, perm, pairs, poll)) != MP_OK ||
			(st = sort_pairs(pairs, tmp, n, bits, &sorted, poll)) != MP_OK)
			return st;
		for (int64_t i = 0; i < n; i++)
			perm[i] = (uint32_t) sorted[i];
	}
	return MP_OK;
}

/* How far ahead of the record it copies the gather asks for one. */
#define GATHER_AHEAD 16

/* Records between two gathers' threads: below it, one thread. */
#define GATHER_MIN_PART ((int64_t) 1 << 16)

typedef struct gather_job
{
	char	   *dst;
	const char *src;
	size_t		rec_bytes;
	const uint32_t *perm;
	int64_t		n;
} gather_job;

/*
 * The gather's loop, with the record's size a constant where the compiler
 * can make the copy a few moves.
 */
#define GATHER_LOOP(bytes) \
	for (int64_t i = lo; i < hi; i++) \
	{ \
		if (i + GATHER_AHEAD < job->n) \
			__builtin_prefetch(src + (size_t) perm[i + GATHER_AHEAD] * (bytes)); \
		memcpy(dst + (size_t) i * (bytes), src + (size_t) perm[i] * (bytes), (bytes)); \
	}

static void
gather_part(void *ctx, int64_t lo, int64_t hi)
{
	const gather_job *job = ctx;
	char	   *restrict dst = job->dst;
	const char *restrict src = job->src;
	const uint32_t *perm = job->perm;
	size_t		rec = job->rec_bytes;

	switch (rec)
	{
		case 1:
			GATHER_LOOP(1);
			break;
		case 2:
			GATHER_LOOP(2);
			break;
		case 4:
			GATHER_LOOP(4);
			break;
		case 8:
			GATHER_LOOP(8);
			break;
		case 16:
			GATHER_LOOP(16);
			break;
		case 24:
			GATHER_LOOP(24);
			break;
		case 32:
			GATHER_LOOP(32);
			break;
		default:
			GATHER_LOOP(rec);
			break;
	}
}

void
mp_cpu_gather(void *dst, const void *src, size_t rec_bytes, const uint32_t *perm, int64_t n,
			  int threads)
{
	gather_job	job = {dst, src, rec_bytes, perm, n};

	mp_cpu_parallel(threads, n, GATHER_MIN_PART, gather_part, &job);
}
