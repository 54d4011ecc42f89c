/*
 * cpu_rows.c
 *		The CPU backend's row sort: the stable permutation that orders rows
 *		by composite keys (the executor's sort node).
 *
 * A least-significant-digit radix sort over the 32-bit halves of the key
 * words, the least significant half first.  Each half is sorted as 64-bit
 * pairs, the half's key above the row number, 11 bits of the key a pass: a
 * pair moves as one word, so a pass streams one array in and one out.  The
 * read that makes the pairs counts every digit's histogram and notices
 * pairs already in order (a half that is sorted costs that read alone) and
 * digits that never vary (their pass is skipped).  The rows are read in the
 * order the halves sorted so far have put them, which is what makes the
 * whole sort stable.  From 2 * MP_SORT_THREAD_MIN rows on, every step runs on
 * up to mergepath.cpu_threads threads, as the array sort does (see
 * sort_half).  Keys that are their rows (mp_cpu_sort_keys) are sorted as
 * themselves by the same passes, 64-bit words with no row number beside
 * them.  Plain C, no PostgreSQL headers.
 */
#include <stdlib.h>
#include <string.h>

#include "../api/mp_api.h"

/* Rows of a part between two interrupt polls. */
#define ROWS_CHUNK ((int64_t) 1 << 20)

/* Rows the fill gathers before it counts them. */
#define FILL_BLOCK 4096

/*
 * 11-bit digits of a half's 32 bits: three passes instead of four a byte at
 * a time (the array sort's choice, see cpu_sort_impl.h).
 */
#define ROW_RADIX_BITS 11
#define ROW_RADIX (1 << ROW_RADIX_BITS)
#define ROW_PASSES ((32 + ROW_RADIX_BITS - 1) / ROW_RADIX_BITS)
/* and of a 64-bit key sorted as itself (mp_cpu_sort_keys) */
#define KEY_PASSES ((64 + ROW_RADIX_BITS - 1) / ROW_RADIX_BITS)
/* Digit d of a word whose digits start at bit base (a pair's: 32). */
#define ROW_DIGIT(x, base, d) ((int) ((x) >> ((base) + ROW_RADIX_BITS * (d))) & (ROW_RADIX - 1))

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

/* Half h of row's key. */
static inline uint32_t
half_of(const mp_row_keys *keys, int64_t n, int h, uint32_t row)
{
	if (keys->word_bytes == 4)
		return ((const uint32_t *) keys->words)[(size_t) h * n + row];
	return (uint32_t) (((const uint64_t *) keys->words)[(size_t) (h / 2) * n + row] >> (h % 2) * 32);
}

/*
 * One half's sort, cut into nparts contiguous parts of the rows, each on a
 * thread of its own (mp_cpu_parallel), in rounds of ROWS_CHUNK rows a part
 * with a poll between rounds on the calling thread (the threads never
 * poll).  A step is one of:
 * - FILL: pairs[i] = half h of row perm[i]'s key above perm[i], counting
 *   every digit's values and noticing pairs out of order;
 * - KEYS: the same count and notice over 64-bit keys sorted as themselves
 *   (no rows: mp_cpu_sort_keys);
 * - COUNT: the digit's values in src (passes after the first);
 * - SCATTER: src into dst by the digit, each part's pairs of a value into a
 *   slot range of their own, after every lower part's pairs of that value,
 *   so that the order is one thread's, and the sort stable;
 * - PERM: perm[i] = the row of src[i].
 */
typedef enum rows_step
{
	STEP_FILL, STEP_KEYS, STEP_COUNT, STEP_SCATTER, STEP_PERM
} rows_step;

typedef struct rows_job
{
	const mp_row_keys *keys;
	int64_t		n;
	int			h;
	uint32_t   *perm;
	const uint64_t *src;
	uint64_t   *dst;
	int			nparts;
	int64_t		round;
	rows_step	step;
	int			digit;
	int64_t    *counts;			/* a part's passes x ROW_RADIX counts, then slots */
	bool	   *unsorted;		/* a part's: some pair below the one before */
	int			passes;			/* ROW_PASSES, or KEY_PASSES for keys */
	int			base;			/* the digits' first bit: 32 in a pair, 0 in a key */
	int			ndigits;		/* of keys: the digits counted */
} rows_job;

static void
rows_part(void *ctx, int64_t first, int64_t last)
{
	const rows_job *job = ctx;

	for (int t = (int) first; t < (int) last; t++)
	{
		int64_t    *counts = job->counts + (size_t) t * job->passes * ROW_RADIX;
		int64_t		start = job->n * t / job->nparts,
					end = job->n * (t + 1) / job->nparts;
		int64_t		lo = start + job->round * ROWS_CHUNK;
		int64_t		hi = lo + ROWS_CHUNK < end ? lo + ROWS_CHUNK : end;

		switch (job->step)
		{
			case STEP_FILL:
				{
					uint64_t   *restrict pairs = job->dst;
					const uint32_t *perm = job->perm;
					/* the row before, read from the keys: another part
					 * writes its pair */
					uint32_t	prev = lo > 0 && lo < hi ?
						half_of(job->keys, job->n, job->h, perm[lo - 1]) : 0;
					bool		unsorted = false;

					/*
					 * A block's gather, then its counts from the pairs while
					 * they are in the cache: the gather's random reads go
					 * out many at a time only in a loop of their own.
					 */
					for (int64_t b0 = lo; b0 < hi; b0 += FILL_BLOCK)
					{
						int64_t		b1 = b0 + FILL_BLOCK < hi ? b0 + FILL_BLOCK : hi;

						if (job->keys->word_bytes == 4)
						{
							const uint32_t *word = (const uint32_t *) job->keys->words +
								(size_t) job->h * job->n;

							for (int64_t i = b0; i < b1; i++)
								pairs[i] = (uint64_t) word[perm[i]] << 32 | perm[i];
						}
						else
						{
							const uint64_t *word = (const uint64_t *) job->keys->words +
								(size_t) (job->h / 2) * job->n;
							int			shift = (job->h % 2) * 32;

							for (int64_t i = b0; i < b1; i++)
								pairs[i] = (word[perm[i]] >> shift) << 32 | perm[i];
						}
						for (int64_t i = b0; i < b1; i++)
						{
							uint64_t	x = pairs[i];
							uint32_t	k = (uint32_t) (x >> 32);

							unsorted |= k < prev;
							prev = k;
							for (int d = 0; d < ROW_PASSES; d++)
								counts[d * ROW_RADIX + ROW_DIGIT(x, 32, d)]++;
						}
					}
					job->unsorted[t] |= unsorted;
					break;
				}
			case STEP_KEYS:
				{
					const uint64_t *src = job->src;
					uint64_t	prev = lo > 0 && lo < hi ? src[lo - 1] : 0;
					bool		unsorted = false;

					for (int64_t i = lo; i < hi; i++)
					{
						uint64_t	x = src[i];

						unsorted |= x < prev;
						prev = x;
						for (int d = 0; d < job->ndigits; d++)
							counts[d * ROW_RADIX + ROW_DIGIT(x, 0, d)]++;
					}
					job->unsorted[t] |= unsorted;
					break;
				}
			case STEP_COUNT:
				{
					const int	d = job->digit;
					const uint64_t *src = job->src;
					const int	base = job->base;
					int64_t    *c = counts + d * ROW_RADIX;

					for (int64_t i = lo; i < hi; i++)
						c[ROW_DIGIT(src[i], base, d)]++;
					break;
				}
			case STEP_SCATTER:
				{
					const int	d = job->digit;
					const int	base = job->base;
					int64_t    *next = counts + d * ROW_RADIX;
					const uint64_t *src = job->src;
					uint64_t   *restrict dst = job->dst;

					for (int64_t i = lo; i < hi; i++)
					{
						uint64_t	x = src[i];

						dst[next[ROW_DIGIT(x, base, d)]++] = x;
					}
					break;
				}
			case STEP_PERM:
				{
					const uint64_t *src = job->src;
					uint32_t   *restrict perm = job->perm;

					for (int64_t i = lo; i < hi; i++)
						perm[i] = (uint32_t) src[i];
					break;
				}
		}
	}
}

/* Every part's rounds of the job's step; false when a poll says stop. */
static bool
rows_rounds(rows_job *job, mp_poll_fn poll)
{
	int64_t		rounds = (job->n / job->nparts + 1 + ROWS_CHUNK - 1) / ROWS_CHUNK;

	for (job->round = 0; job->round < rounds; job->round++)
	{
		mp_cpu_parallel(job->nparts, job->nparts, 1, rows_part, job);
		if (poll && poll())
			return false;
	}
	return true;
}

/*
 * Sorts the rows in perm stably by half h of their keys, of which only the
 * low `bits` may be nonzero, in pairs and tmp (room for n each).  Of keys
 * sorted as themselves (job->keys NULL): the keys in pairs, of which only
 * the low `bits` may be nonzero, in order in pairs or tmp, *sorted the
 * one.
 */
static mp_status
sort_half(rows_job *job, int bits, uint64_t *pairs, uint64_t *tmp, uint64_t **sorted,
		  mp_poll_fn poll)
{
	const int64_t n = job->n;
	int			ndigits = (bits + ROW_RADIX_BITS - 1) / ROW_RADIX_BITS;
	bool		unsorted = false;
	bool		first = true;
	const uint64_t *src = pairs;
	uint64_t   *dst = tmp;

	memset(job->counts, 0, (size_t) job->nparts * job->passes * ROW_RADIX * sizeof(int64_t));
	memset(job->unsorted, 0, job->nparts * sizeof(bool));
	job->step = job->keys ? STEP_FILL : STEP_KEYS;
	job->dst = pairs;
	job->src = pairs;
	job->ndigits = ndigits;
	if (sorted)
		*sorted = pairs;
	if (!rows_rounds(job, poll))
		return MP_CANCELLED;
	for (int t = 0; t < job->nparts; t++)
		unsorted |= job->unsorted[t];
	if (!unsorted)
		return MP_OK;			/* in this half's order already */

	for (int d = 0; d < ndigits; d++)
	{
		int64_t		all = 0,
					sum = 0;

		for (int t = 0; t < job->nparts; t++)
			all += job->counts[((size_t) t * job->passes + d) * ROW_RADIX +
							   ROW_DIGIT(pairs[0], job->base, d)];
		if (all == n)
			continue;			/* this digit is the same in every key */
		job->digit = d;
		job->src = src;
		if (!first && job->nparts > 1)
		{
			/*
			 * the parts' counts of this digit, over this pass's input (one
			 * part's are the first read's: a histogram does not depend on
			 * the order)
			 */
			for (int t = 0; t < job->nparts; t++)
				memset(job->counts + ((size_t) t * job->passes + d) * ROW_RADIX, 0,
					   ROW_RADIX * sizeof(int64_t));
			job->step = STEP_COUNT;
			if (!rows_rounds(job, poll))
				return MP_CANCELLED;
		}
		first = false;
		/* counts into slots: value by value, part by part */
		for (int v = 0; v < ROW_RADIX; v++)
			for (int t = 0; t < job->nparts; t++)
			{
				int64_t    *c = &job->counts[((size_t) t * job->passes + d) * ROW_RADIX + v];
				int64_t		count = *c;

				*c = sum;
				sum += count;
			}
		job->step = STEP_SCATTER;
		job->dst = dst;
		if (!rows_rounds(job, poll))
			return MP_CANCELLED;
		src = dst;
		dst = dst == tmp ? pairs : tmp;
	}
	if (sorted)
	{
		*sorted = (uint64_t *) src;
		return MP_OK;
	}
	job->step = STEP_PERM;
	job->src = src;
	return rows_rounds(job, poll) ? MP_OK : MP_CANCELLED;
}

/*
 * The job's parts: one, or, from 2 * MP_SORT_THREAD_MIN words on, one a
 * thread with counts of their own (one part where there is no room for
 * them); job->counts and job->unsorted point at room for one part.
 */
static void
split_job(rows_job *job)
{
	int64_t		n = job->n;
	int			threads;

	if (n >= 2 * MP_SORT_THREAD_MIN && (threads = mp_cpu_threads_now()) > 1)
	{
		int			nparts = threads < n / MP_SORT_THREAD_MIN ? threads
			: (int) (n / MP_SORT_THREAD_MIN);
		int64_t    *counts = malloc((size_t) nparts * job->passes * ROW_RADIX * sizeof(int64_t));
		bool	   *unsorted = malloc(nparts * sizeof(bool));

		if (counts != NULL && unsorted != NULL)
		{
			job->nparts = nparts;
			job->counts = counts;
			job->unsorted = unsorted;
		}
		else
		{
			free(counts);
			free(unsorted);
		}
	}
}

static void
end_job(rows_job *job)
{
	if (job->nparts > 1)
	{
		free(job->counts);
		free(job->unsorted);
	}
}

mp_status
mp_cpu_sort_rows(const mp_row_keys *keys, int64_t n, uint32_t *perm, void *scratch,
				 mp_poll_fn poll)
{
	uint64_t   *pairs = scratch,
			   *tmp = pairs + n;
	int			nhalves = keys->nwords * (keys->word_bytes / 4);
	int64_t		one_counts[ROW_PASSES * ROW_RADIX];
	bool		one_unsorted;
	rows_job	job = {keys, n, 0, perm, NULL, NULL, 1, 0, STEP_FILL, 0, one_counts,
	&one_unsorted, ROW_PASSES, 32, 0};
	mp_status	st = MP_OK;

	for (int64_t i = 0; i < n; i++)
		perm[i] = (uint32_t) i;
	if (n < 2)
		return MP_OK;
	split_job(&job);
	for (int h = 0; h < nhalves && st == MP_OK; h++)
	{
		int			bits = half_bits(keys, h);

		job.h = h;
		if (bits > 0)
			st = sort_half(&job, bits, pairs, tmp, NULL, poll);
	}
	end_job(&job);
	return st;
}

mp_status
mp_cpu_sort_keys(uint64_t *keys, uint64_t *tmp, int64_t n, int bits, uint64_t **sorted,
				 mp_poll_fn poll)
{
	int64_t		one_counts[KEY_PASSES * ROW_RADIX];
	bool		one_unsorted;
	rows_job	job = {NULL, n, 0, NULL, keys, NULL, 1, 0, STEP_KEYS, 0, one_counts,
	&one_unsorted, KEY_PASSES, 0, 0};
	mp_status	st;

	*sorted = keys;
	if (n < 2 || bits <= 0)
		return MP_OK;
	split_job(&job);
	st = sort_half(&job, bits > 64 ? 64 : bits, keys, tmp, sorted, poll);
	end_job(&job);
	return st;
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
