/*
 * cpu_backend.c
 *		The CPU backend: plain C, no PostgreSQL headers.
 *
 * The fallback where there is no GPU or the input is small, and the fast twin
 * of the tests' reference.  Each operation is written once, in
 * cpu_merge_impl.h, cpu_setop_impl.h, cpu_search_impl.h, cpu_sort_impl.h and
 * cpu_kway_impl.h, and instantiated per element type here.
 */
#include "../api/mp_api.h"
#include "../api/mp_order.h"
#include "../api/mp_measured.h"

#include <stdlib.h>
#include <string.h>

/* Outputs between two interrupt polls, and merges interleaved in a chunk. */
#define MP_CPU_CHUNK ((int64_t) 1 << 20)
#ifndef MP_CPU_LANES
#define MP_CPU_LANES 3
#endif
/* Size ratio from which a set operation gallops over the larger side. */
#define MP_CPU_GALLOP 32
/* Bounds a count or a semijoin keeps on the stack (more are allocated). */
#define MP_CPU_SMALL_BOUNDS 1024
/* Elements of both sides from which a set operation runs in lanes. */
#ifndef MP_CPU_SETOP_LANES_MIN
#define MP_CPU_SETOP_LANES_MIN 64
#endif

/*
 * The k-way merges cut into parts merged side by side (kway_parallel, below):
 * how a merge compares two of its elements (by their places in the runs laid
 * end to end) and merges one part (runs [starts[r], ends[r]) into its output
 * from place `at` on).
 */
typedef int (*kway_cmp_fn) (const void *ctx, int64_t a, int64_t b);
typedef mp_status (*kway_part_fn) (const void *ctx, const int64_t *starts, const int64_t *ends,
								   int64_t k, int64_t at, mp_poll_fn poll);

static mp_status kway_parallel(const int64_t *bounds, int64_t k, kway_cmp_fn cmp,
							   kway_part_fn part, const void *ctx, mp_poll_fn poll);

/* A merge of elements: its runs, and its output and permutation (either NULL) */
typedef struct kway_values
{
	const void *in;
	void	   *out;
	uint32_t   *perm;
} kway_values;

#define MP_T int32_t
#define MP_U uint32_t
#define MP_LT mp_lt_int4
#define MP_KEY mp_key_int4
#define MP_C uint64_t
#define MP_NAME(x) x##_int4
#include "cpu_impl.h"

#define MP_T int64_t
#define MP_U uint64_t
#define MP_LT mp_lt_int8
#define MP_KEY mp_key_int8
#define MP_C unsigned __int128
#define MP_NAME(x) x##_int8
#include "cpu_impl.h"

#define MP_T float
#define MP_U uint32_t
#define MP_LT mp_lt_float4
#define MP_KEY mp_key_float4
#define MP_C uint64_t
#define MP_NAME(x) x##_float4
#include "cpu_impl.h"

#define MP_T double
#define MP_U uint64_t
#define MP_LT mp_lt_float8
#define MP_KEY mp_key_float8
#define MP_C unsigned __int128
#define MP_NAME(x) x##_float8
#include "cpu_impl.h"

/* Unsigned keys (the aggregates' folded sort keys), for the k-way merge */
#define MP_IDENTITY(x) (x)
#define MP_T uint32_t
#define MP_KEY MP_IDENTITY
#define MP_C uint64_t
#define MP_NAME(x) x##_u32
#include "cpu_kway_impl.h"
#include "cpu_keyed_impl.h"
#undef MP_T
#undef MP_KEY
#undef MP_C
#undef MP_NAME

#define MP_T uint64_t
#define MP_KEY MP_IDENTITY
#define MP_C unsigned __int128
#define MP_NAME(x) x##_u64
#include "cpu_kway_impl.h"
#include "cpu_keyed_impl.h"
#undef MP_T
#undef MP_KEY
#undef MP_C
#undef MP_NAME

/* Below this many 4-byte elements (twice as many 8-byte ones) the sort
 * merges instead (api/mp_measured.h); bench_cpu --sort sets it to find the
 * crossover. */
int64_t		mp_cpu_sort_small = MP_CPU_SORT_SMALL;
int64_t		mp_cpu_sort_bytes = MP_CPU_SORT_BYTES;

/* One function per element type, picked by type; the rest of the call as is. */
#define MP_BY_TYPE(fn, type, ...) \
	switch (type) \
	{ \
		case MP_INT4: \
			return fn##_int4(__VA_ARGS__); \
		case MP_INT8: \
			return fn##_int8(__VA_ARGS__); \
		case MP_FLOAT4: \
			return fn##_float4(__VA_ARGS__); \
		case MP_FLOAT8: \
			return fn##_float8(__VA_ARGS__); \
	}

mp_status
mp_cpu_merge(mp_type type, const void *a, int64_t na, const void *b,
			 int64_t nb, void *out, bool check_sorted, mp_poll_fn poll)
{
	switch (type)
	{
		case MP_INT4:
			return check_sorted ? merge_int4(a, na, b, nb, out, true, poll)
				: merge_int4(a, na, b, nb, out, false, poll);
		case MP_INT8:
			return check_sorted ? merge_int8(a, na, b, nb, out, true, poll)
				: merge_int8(a, na, b, nb, out, false, poll);
		case MP_FLOAT4:
			return check_sorted ? merge_float4(a, na, b, nb, out, true, poll)
				: merge_float4(a, na, b, nb, out, false, poll);
		case MP_FLOAT8:
			return check_sorted ? merge_float8(a, na, b, nb, out, true, poll)
				: merge_float8(a, na, b, nb, out, false, poll);
	}
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_setop(mp_setop op, mp_type type, const void *a, int64_t na, const void *b,
			 int64_t nb, void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll)
{
	*nout = 0;
	MP_BY_TYPE(setop, type, op, a, na, b, nb, out, nout, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_search(mp_search kind, mp_type type, const void *hay, int64_t nh, const void *needles,
			  int64_t nn, int32_t *out, bool check_sorted, mp_poll_fn poll)
{
	MP_BY_TYPE(search, type, kind, hay, nh, needles, nn, out, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_semijoin(bool anti, mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
				void *out, int64_t *nout, bool check_sorted, mp_poll_fn poll)
{
	*nout = 0;
	MP_BY_TYPE(semijoin, type, anti, a, na, b, nb, out, nout, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_join_count(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
				  int64_t *npairs, bool check_sorted, mp_poll_fn poll)
{
	*npairs = 0;
	MP_BY_TYPE(join_count, type, a, na, b, nb, npairs, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

int64_t
mp_cpu_join_next(mp_type type, const void *a, int64_t na, const void *b, int64_t nb,
				 mp_join_cursor *cursor, int32_t *a_pos, int32_t *b_pos, int64_t cap)
{
	MP_BY_TYPE(join_next, type, a, na, b, nb, cursor, a_pos, b_pos, cap);
	return 0;
}

int64_t
mp_first_unsorted(mp_type type, const void *x, int64_t n)
{
	MP_BY_TYPE(first_unsorted, type, x, n);
	return -1;
}

mp_status
mp_cpu_sort(mp_type type, const void *in, int64_t n, void *out, void *scratch, mp_poll_fn poll)
{
	MP_BY_TYPE(sort, type, in, n, out, scratch, poll);
	return MP_DEVICE_ERROR;
}

mp_status
mp_cpu_unique(mp_type type, const void *x, int64_t n, void *out, int64_t *nout,
			  bool check_sorted, mp_poll_fn poll)
{
	MP_BY_TYPE(unique, type, x, n, out, nout, check_sorted, poll);
	return MP_DEVICE_ERROR;
}

int64_t
mp_copy_checked(mp_type type, const void *x, int64_t n, void *out)
{
	MP_BY_TYPE(copy_checked, type, x, n, out);
	return -1;
}

mp_status
mp_cpu_merge_runs(mp_type type, const void *in, const int64_t *bounds, int64_t k, void *out,
				  mp_poll_fn poll)
{
	if (k == 0)
		return MP_OK;
	MP_BY_TYPE(kway_merge_runs, type, in, bounds, k, out, NULL, poll);
	return MP_DEVICE_ERROR;
}

/* Word w of row i's key (word-major keys of n rows). */
static inline uint64_t
row_word(const mp_row_keys *keys, int64_t n, int w, int64_t i)
{
	if (keys->word_bytes == 4)
		return ((const uint32_t *) keys->words)[(size_t) w * n + i];
	return ((const uint64_t *) keys->words)[(size_t) w * n + i];
}

/* Row a's key against row b's: <0, 0, >0 (the last word is the most significant). */
static inline int
row_cmp(const mp_row_keys *keys, int64_t n, int64_t a, int64_t b)
{
	for (int w = keys->nwords - 1; w >= 0; w--)
	{
		uint64_t	x = row_word(keys, n, w, a),
					y = row_word(keys, n, w, b);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/*
 * The k-way merge of keys of several words, a tournament (loser) tree of run
 * numbers as in cpu_kway_impl.h: run r is rows [starts[r], ends[r]), its
 * head's key copied to head[r] (most significant word first, so that a
 * match reads two short rows side by side), equal keys going to the run
 * that came first and an exhausted run losing to every head.
 */
static inline bool
head_before(const uint64_t *head, int nw, const bool *done, int64_t k, int64_t a, int64_t b)
{
	if (a >= k || done[a])
		return false;
	if (b >= k || done[b])
		return true;
	for (int w = 0; w < nw; w++)
	{
		uint64_t	x = head[a * nw + w],
					y = head[b * nw + w];

		if (x != y)
			return x < y;
	}
	return a < b;
}

static inline void
load_head(const mp_row_keys *keys, int64_t n, uint64_t *head, int64_t row)
{
	for (int w = 0; w < keys->nwords; w++)
		head[w] = row_word(keys, n, keys->nwords - 1 - w, row);
}

static mp_status
merge_rows_tree(const mp_row_keys *keys, int64_t n, const int64_t *starts, const int64_t *ends,
				int64_t k, uint32_t *perm, mp_poll_fn poll)
{
	int			nw = keys->nwords;
	int64_t		leaves = 1;
	int64_t		total = 0;
	int64_t    *next,
			   *tree,
			   *win;
	uint64_t   *head;
	bool	   *done;
	int64_t		winner;
	mp_status	st = MP_OK;

	for (int64_t r = 0; r < k; r++)
		total += ends[r] - starts[r];
	while (leaves < k)
		leaves *= 2;
	/* one allocation: next (k), tree and win (2 leaves each), head, done */
	next = malloc((k + 4 * leaves + k * nw) * sizeof(int64_t) + k * sizeof(bool));
	if (next == NULL)
		return MP_OUT_OF_MEMORY;
	tree = next + k;
	win = tree + 2 * leaves;
	head = (uint64_t *) (win + 2 * leaves);
	done = (bool *) (head + k * nw);
	for (int64_t r = 0; r < k; r++)
	{
		next[r] = starts[r];
		done[r] = starts[r] == ends[r];
		if (!done[r])
			load_head(keys, n, head + r * nw, starts[r]);
	}
	/* the matches bottom-up: win[leaves + r] is leaf r, tree[i] a loser */
	for (int64_t r = 0; r < leaves; r++)
		win[leaves + r] = r;
	for (int64_t i = leaves - 1; i >= 1; i--)
	{
		int64_t		x = win[2 * i],
					y = win[2 * i + 1];
		bool		y_wins = head_before(head, nw, done, k, y, x);

		win[i] = y_wins ? y : x;
		tree[i] = y_wins ? x : y;
	}
	winner = win[1];
	for (int64_t lo = 0; lo < total && st == MP_OK; lo += MP_CPU_CHUNK)
	{
		int64_t		hi = lo + MP_CPU_CHUNK < total ? lo + MP_CPU_CHUNK : total;

		if (poll && poll())
		{
			st = MP_CANCELLED;
			break;
		}
		for (int64_t o = lo; o < hi; o++)
		{
			int64_t		c = winner;

			perm[o] = (uint32_t) next[c]++;
			if (next[c] < ends[c])
				load_head(keys, n, head + c * nw, next[c]);
			else
				done[c] = true;
			for (int64_t node = (leaves + winner) / 2; node >= 1; node /= 2)
			{
				int64_t		t = tree[node];

				if (head_before(head, nw, done, k, t, c))
				{
					tree[node] = c;
					c = t;
				}
			}
			winner = c;
		}
	}
	free(next);
	return st;
}

/* A merge of composite row keys: the keys, their rows, the permutation. */
typedef struct kway_rows
{
	const mp_row_keys *keys;
	int64_t		n;
	uint32_t   *perm;
} kway_rows;

static int
rows_cmp(const void *ctx, int64_t a, int64_t b)
{
	const kway_rows *m = ctx;

	return row_cmp(m->keys, m->n, a, b);
}

/* One part of a row merge: runs [starts[r], ends[r]) into perm from `at` on. */
static mp_status
rows_part(const void *ctx, const int64_t *starts, const int64_t *ends, int64_t k, int64_t at,
		  mp_poll_fn poll)
{
	const kway_rows *m = ctx;
	const mp_row_keys *keys = m->keys;

	if (keys->nwords > 1)
		return merge_rows_tree(keys, m->n, starts, ends, k, m->perm + at, poll);
	if (keys->word_bytes == 4)
		return kway_merge_u32(keys->words, starts, ends, k, NULL, m->perm + at, poll);
	return kway_merge_u64(keys->words, starts, ends, k, NULL, m->perm + at, poll);
}

/* Elements a part of a parallel merge merges at least, and at most between polls. */
#define KWAY_PART_MIN ((int64_t) 1 << 16)
#define KWAY_PART_MAX ((int64_t) 1 << 21)
/* Elements sampled for each part's splitter. */
#define KWAY_SAMPLES 32

/*
 * A merge cut into parts: part p takes elements [cuts[p * k + r], cuts[(p +
 * 1) * k + r]) of each run r and writes them merged from place at[p] on.
 */
typedef struct kway_job
{
	kway_part_fn part;
	const void *ctx;
	int64_t		k;
	const int64_t *cuts;
	const int64_t *at;
	int64_t		first;			/* the round's first part */
	mp_status  *status;
	mp_poll_fn	poll;			/* for the parts on the calling thread */
} kway_job;

static void
kway_parts(void *ctx, int64_t lo, int64_t hi)
{
	kway_job   *job = ctx;

	/* mp_cpu_parallel runs the parts from 0 on the calling thread */
	for (int64_t i = lo; i < hi; i++)
	{
		int64_t		p = job->first + i;

		job->status[p] = job->part(job->ctx, job->cuts + p * job->k,
								   job->cuts + (p + 1) * job->k, job->k, job->at[p],
								   lo == 0 ? job->poll : NULL);
	}
}

/* The sample's order: by key, then by place (run, then element: the merge's order). */
static void
sort_samples(kway_cmp_fn cmp, const void *ctx, int64_t *s, int64_t *tmp, int64_t m)
{
	for (int64_t width = 1; width < m; width *= 2)
	{
		for (int64_t lo = 0; lo < m; lo += 2 * width)
		{
			int64_t		mid = lo + width < m ? lo + width : m,
						hi = lo + 2 * width < m ? lo + 2 * width : m,
						i = lo,
						j = mid,
						o = lo;

			while (i < mid && j < hi)
			{
				int			c = cmp(ctx, s[j], s[i]);

				tmp[o++] = c < 0 || (c == 0 && s[j] < s[i]) ? s[j++] : s[i++];
			}
			while (i < mid)
				tmp[o++] = s[i++];
			while (j < hi)
				tmp[o++] = s[j++];
		}
		memcpy(s, tmp, m * sizeof(int64_t));
	}
}

/*
 * The elements of run [lo, hi) that the merge puts before element g (of run
 * rg): keys below g's, and equal keys too in a run before rg's.
 */
static int64_t
run_cut(kway_cmp_fn cmp, const void *ctx, int64_t lo, int64_t hi, int64_t g, bool take_equal)
{
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;
		int			c = cmp(ctx, mid, g);

		if (c < 0 || (c == 0 && take_equal))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A stable k-way merge of runs laid end to end (run r [bounds[r], bounds[r +
 * 1])), from a few hundred thousand elements on cut into parts of equal
 * shares merged on up to mergepath.cpu_threads threads; part() merges each
 * part, or the whole where it is not cut.
 */
static mp_status
kway_parallel(const int64_t *bounds, int64_t k, kway_cmp_fn cmp, kway_part_fn part,
			  const void *ctx, mp_poll_fn poll)
{
	int64_t		n = k > 0 ? bounds[k] : 0;
	int64_t		threads = mp_cpu_threads_now();
	int64_t		parts,
				m;
	int64_t    *cuts,
			   *at,
			   *samples,
			   *tmp;
	mp_status  *status;
	mp_status	st = MP_OK;
	kway_job	job;

	if (k == 0)
		return MP_OK;
	if (threads > n / KWAY_PART_MIN)
		threads = n / KWAY_PART_MIN;
	if (threads <= 1 || k == 1)
		return part(ctx, bounds, bounds + 1, k, 0, poll);

	/*
	 * Merge Path's split for k runs: parts of about equal shares, each
	 * ending at a splitter taken from a sample of every run (elements evenly
	 * spaced, as many from a run as its share), each run cut where the merge
	 * puts the splitter, by binary search.
	 */
	parts = (n + KWAY_PART_MAX - 1) / KWAY_PART_MAX;
	parts = (parts + threads - 1) / threads * threads;
	m = parts * KWAY_SAMPLES;
	cuts = malloc((parts + 1) * k * sizeof(int64_t));
	at = malloc((parts + 1) * sizeof(int64_t));
	samples = malloc((m + k) * sizeof(int64_t));
	tmp = malloc((m + k) * sizeof(int64_t));
	status = malloc(parts * sizeof(mp_status));
	if (!cuts || !at || !samples || !tmp || !status)
	{
		free(cuts);
		free(at);
		free(samples);
		free(tmp);
		free(status);
		return MP_OUT_OF_MEMORY;
	}
	{
		int64_t		ns = 0;

		for (int64_t r = 0; r < k; r++)
		{
			int64_t		len = bounds[r + 1] - bounds[r];
			int64_t		take = (m * len + n - 1) / n;

			if (take > len)
				take = len;
			for (int64_t j = 0; j < take; j++)
				samples[ns++] = bounds[r] + (int64_t) ((j + 0.5) * len / take);
		}
		m = ns;
	}
	sort_samples(cmp, ctx, samples, tmp, m);
	for (int64_t r = 0; r < k; r++)
	{
		cuts[r] = bounds[r];
		cuts[parts * k + r] = bounds[r + 1];
	}
	for (int64_t p = 1; p < parts; p++)
	{
		int64_t		g = samples[p * m / parts];
		int64_t		rg = 0;

		while (bounds[rg + 1] <= g)
			rg++;
		for (int64_t r = 0; r < k; r++)
			cuts[p * k + r] = r == rg ? g
				: run_cut(cmp, ctx, bounds[r], bounds[r + 1], g, r < rg);
	}
	at[0] = 0;
	for (int64_t p = 0; p < parts; p++)
	{
		at[p + 1] = at[p];
		for (int64_t r = 0; r < k; r++)
			at[p + 1] += cuts[(p + 1) * k + r] - cuts[p * k + r];
	}

	job.part = part;
	job.ctx = ctx;
	job.k = k;
	job.cuts = cuts;
	job.at = at;
	job.status = status;
	job.poll = poll;
	for (job.first = 0; job.first < parts && st == MP_OK; job.first += threads)
	{
		if (poll && poll())
		{
			st = MP_CANCELLED;
			break;
		}
		mp_cpu_parallel((int) threads, threads, 1, kway_parts, &job);
		for (int64_t p = job.first; p < job.first + threads; p++)
			if (status[p] != MP_OK)
				st = status[p];
	}
	free(cuts);
	free(at);
	free(samples);
	free(tmp);
	free(status);
	return st;
}

mp_status
mp_cpu_merge_row_runs(const mp_row_keys *keys, const int64_t *bounds, int64_t k, uint32_t *perm,
					  mp_poll_fn poll)
{
	kway_rows	m = {keys, k > 0 ? bounds[k] : 0, perm};

	return kway_parallel(bounds, k, rows_cmp, rows_part, &m, poll);
}

mp_status
mp_cpu_merge_key_runs(int word_bytes, const void *keys, const int64_t *bounds, int64_t k,
					  uint32_t *perm, mp_poll_fn poll)
{
	if (word_bytes == 4)
		return kway_merge_runs_u32(keys, bounds, k, NULL, perm, poll);
	return kway_merge_runs_u64(keys, bounds, k, NULL, perm, poll);
}

/* Elements a thread's share of a keyed merge's part takes at least. */
#define KEYED_THREAD_MIN ((int64_t) 1 << 16)

/* A keyed merge's part, cut again across threads (mp_cpu_merge_keyed_part). */
typedef struct keyed_job
{
	int			word_bytes;
	int64_t		k;
	const void *const *keys;
	const uint64_t *const *payload;
	const int64_t *len;
	int64_t		lo;
	uint64_t	flip;
	void	   *out_keys;
	uint64_t   *out_payload;
	volatile bool failed;
} keyed_job;

static void
keyed_thread(void *ctx, int64_t lo, int64_t hi)
{
	keyed_job  *job = ctx;
	int64_t		d0 = job->lo + lo,
				d1 = job->lo + hi;
	bool		ok;

	if (job->word_bytes == 4)
		ok = keyed_part_u32((const uint32_t *const *) job->keys, job->payload, job->len, job->k,
							d0, d1, (uint32_t) job->flip, (uint32_t *) job->out_keys + lo,
							job->out_payload + lo);
	else
		ok = keyed_part_u64((const uint64_t *const *) job->keys, job->payload, job->len, job->k,
							d0, d1, job->flip, (uint64_t *) job->out_keys + lo,
							job->out_payload + lo);
	if (!ok)
		job->failed = true;
}

mp_status
mp_cpu_merge_keyed_part(int word_bytes, int64_t k, const void *const *keys,
						const uint64_t *const *payload, const int64_t *len, int64_t lo,
						int64_t hi, uint64_t flip, void *out_keys, uint64_t *out_payload)
{
	keyed_job	job = {word_bytes, k, keys, payload, len, lo, flip, out_keys, out_payload, false};

	if (hi <= lo || k == 0)
		return MP_OK;
	mp_cpu_parallel(mp_cpu_threads_now(), hi - lo, KEYED_THREAD_MIN, keyed_thread, &job);
	return job.failed ? MP_OUT_OF_MEMORY : MP_OK;
}
