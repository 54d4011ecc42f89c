/*
 * mp_api.h
 *		The backend API: what the PostgreSQL glue asks of the CPU and CUDA
 *		backends.
 *
 * Shared by src/ (C) and cuda/ (CUDA C++), so it includes no PostgreSQL
 * header.  Backends never raise errors: every entry point returns an
 * mp_status, and the glue alone turns it into an ereport.  Counts are 64-bit
 * throughout.
 */
#ifndef MP_API_H
#define MP_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Element types, one per SQL array type. */
typedef enum mp_type
{
	MP_INT4,
	MP_INT8,
	MP_FLOAT4,
	MP_FLOAT8
} mp_type;

static inline size_t
mp_type_size(mp_type type)
{
	return (type == MP_INT4 || type == MP_FLOAT4) ? 4 : 8;
}

/*
 * Multiset operations.  For a key that occurs m times in a and n times in b,
 * the k-th copy in a is paired with the k-th copy in b; the result keeps, in
 * ascending order, min(m, n) copies (intersect), max(m, n) (union),
 * max(m - n, 0) (except) or |m - n| (symdiff).  Paired copies come from a;
 * unpaired ones from the side that has them.
 */
typedef enum mp_setop
{
	MP_INTERSECT,
	MP_UNION,
	MP_EXCEPT,
	MP_SYMDIFF
} mp_setop;

/* The most elements a set operation can return: the size of its output. */
static inline int64_t
mp_setop_capacity(mp_setop op, int64_t na, int64_t nb)
{
	switch (op)
	{
		case MP_INTERSECT:
			return na < nb ? na : nb;
		case MP_EXCEPT:
			return na;
		default:
			return na + nb;
	}
}

/* The fewest elements a set operation can return. */
static inline int64_t
mp_setop_minimum(mp_setop op, int64_t na, int64_t nb)
{
	switch (op)
	{
		case MP_UNION:
			return na > nb ? na : nb;
		case MP_EXCEPT:
			return na > nb ? na - nb : 0;
		case MP_SYMDIFF:
			return na > nb ? na - nb : nb - na;
		default:
			return 0;
	}
}

/*
 * Sorted search: for each needle, how many haystack elements are below it
 * (lower bound), not above it (upper bound), or equal to it (count).
 */
typedef enum mp_search
{
	MP_LOWER_BOUND,
	MP_UPPER_BOUND,
	MP_COUNT
} mp_search;

typedef enum mp_status
{
	MP_OK = 0,
	MP_UNSORTED,				/* an input is not ascending: bad input */
	MP_CANCELLED,				/* the interrupt poll asked to stop */
	MP_NO_DEVICE,				/* no usable GPU (no driver, no device, no CUDA build) */
	MP_OUT_OF_MEMORY,			/* device or pinned host memory exhausted */
	MP_DEVICE_ERROR				/* any other CUDA failure */
} mp_status;

/*
 * Polled between chunks of work.  Returns true when the caller wants the
 * backend to stop; the backend then returns MP_CANCELLED with nothing left
 * running, and the caller raises the error itself, so that no longjmp ever
 * crosses backend code.
 */
typedef bool (*mp_poll_fn) (void);

/*
 * One operation on one or two arrays, described once for both backends:
 * what it reads, what it writes.  mp_cpu_array and mp_gpu_array run it by
 * the entry points below that its kind names, under their contracts.
 */
typedef enum mp_array_kind
{
	MP_ARRAY_MERGE,				/* mp_cpu_merge */
	MP_ARRAY_SETOP,				/* mp_cpu_setop; variant: the mp_setop */
	MP_ARRAY_SEARCH,			/* mp_cpu_search, a the haystack and b the
								 * needles; variant: the mp_search */
	MP_ARRAY_SEMIJOIN,			/* mp_cpu_semijoin; variant: 1 for the anti join */
	MP_ARRAY_JOIN_COUNT,		/* mp_cpu_join_count, or mp_gpu_join (pairs
								 * built on the device, up to max_pairs) */
	MP_ARRAY_SORT,				/* mp_cpu_sort of a alone */
	MP_ARRAY_UNIQUE				/* mp_cpu_unique of a alone */
} mp_array_kind;

typedef struct mp_array_call
{
	mp_array_kind kind;
	int			variant;
	mp_type		type;
	const void *a;
	int64_t		na;
	const void *b;				/* NULL and 0 for an operation on one array */
	int64_t		nb;
	void	   *out;			/* room for the largest result; NULL for the
								 * join's count or an empty result */
	int64_t		max_pairs;		/* MP_ARRAY_JOIN_COUNT */
	int64_t		nout;			/* set by the backend: the result's length, or
								 * the join's pairs */
} mp_array_call;

/*
 * Many independent operations of one kind at once (a batch): pair p reads
 * a[a_off[p] .. a_off[p + 1]) and b[b_off[p] .. b_off[p + 1]) (b and b_off
 * NULL for sort and unique), all values back to back (CSR), and its result
 * goes to out[out_off[p] .. out_off[p + 1]), results back to back in pair
 * order.  out has room for mp_batch_room() elements (int32 for the
 * searches); out_off (npairs + 1 entries) is set by the backend.  Kinds:
 * every mp_array_kind but MP_ARRAY_JOIN_COUNT, each pair under the
 * contract of the single call.  With check_sorted, an unsorted input makes
 * the call return MP_UNSORTED and bad_pair the first pair that has one;
 * out is then unspecified.
 *
 * Where the pairs' values lie apart (each in its own row, say), a_at and
 * b_at give where pair p's start instead, a and b being NULL: a_off and
 * b_off then only count the elements.  out_at likewise gives each pair a
 * room of its own (mp_batch_pair_room elements), out being NULL: pair p's
 * result is written at out_at[p], its length out_off[p + 1] - out_off[p].
 */
typedef struct mp_batch_call
{
	mp_array_kind kind;
	int			variant;
	mp_type		type;
	int64_t		npairs;
	const void *a;
	const int64_t *a_off;
	const void *b;
	const int64_t *b_off;
	void	   *out;
	int64_t    *out_off;
	int64_t		bad_pair;		/* set by the backend on MP_UNSORTED */
	const void *const *a_at;	/* or each pair's a where it lies */
	const void *const *b_at;	/* and b */
	void	   *const *out_at;	/* or each pair's room for its result */
} mp_batch_call;

/* Whether the batch's pairs have a second input. */
static inline bool
mp_batch_has_b(const mp_batch_call *call)
{
	return call->b_off != NULL;
}

/* Where pair p's a starts, and its elements in *n. */
static inline const char *
mp_batch_pair_a(const mp_batch_call *call, int64_t p, int64_t *n)
{
	*n = call->a_off[p + 1] - call->a_off[p];
	if (call->a_at != NULL)
		return (const char *) call->a_at[p];
	return (const char *) call->a + call->a_off[p] * mp_type_size(call->type);
}

/* Where pair p's b starts (NULL without one), and its elements in *n. */
static inline const char *
mp_batch_pair_b(const mp_batch_call *call, int64_t p, int64_t *n)
{
	if (!mp_batch_has_b(call))
	{
		*n = 0;
		return NULL;
	}
	*n = call->b_off[p + 1] - call->b_off[p];
	if (call->b_at != NULL)
		return (const char *) call->b_at[p];
	return (const char *) call->b + call->b_off[p] * mp_type_size(call->type);
}

/* The most elements pair p's result can have. */
static inline int64_t
mp_batch_pair_room(const mp_batch_call *call, int64_t p)
{
	int64_t		na = call->a_off[p + 1] - call->a_off[p];
	int64_t		nb = call->b_off ? call->b_off[p + 1] - call->b_off[p] : 0;

	switch (call->kind)
	{
		case MP_ARRAY_MERGE:
			return na + nb;
		case MP_ARRAY_SETOP:
			return mp_setop_capacity((mp_setop) call->variant, na, nb);
		case MP_ARRAY_SEARCH:
			return nb;
		default:
			return na;
	}
}

/* Room for the whole batch's results: the pairs' rooms added up. */
static inline int64_t
mp_batch_room(const mp_batch_call *call)
{
	int64_t		room = 0;

	for (int64_t p = 0; p < call->npairs; p++)
		room += mp_batch_pair_room(call, p);
	return room;
}

/* The size of one element of the batch's results. */
static inline size_t
mp_batch_out_size(const mp_batch_call *call)
{
	return call->kind == MP_ARRAY_SEARCH ? sizeof(int32_t) : mp_type_size(call->type);
}

/* The inputs of a batch that must be ascending: 1 a, 2 b, 3 both. */
static inline int
mp_batch_checked_inputs(mp_array_kind kind)
{
	switch (kind)
	{
		case MP_ARRAY_SORT:
			return 0;
		case MP_ARRAY_UNIQUE:
			return 1;
		default:
			return 3;
	}
}

/* A batch on the CPU backend, pairs spread over mergepath.cpu_threads
 * threads (src/cpu/cpu_batch.c). */
extern mp_status mp_cpu_batch(mp_batch_call *call, bool check_sorted, mp_poll_fn poll);

/* The first pair of a batch with an unsorted input, or -1. */
extern int64_t mp_batch_first_unsorted(const mp_batch_call *call);

/* An mp_array_call on the CPU backend (src/cpu/cpu_array.c). */
extern mp_status mp_cpu_array(mp_array_call *call, bool check_sorted, mp_poll_fn poll);

/* Faults the pages of a fresh large allocation in ahead of writing it. */
extern void mp_prefault(void *p, size_t nbytes);

/* CPU backend (src/cpu/cpu_backend.c) */

/*
 * Merges a[0..na) and b[0..nb) into out[0..na+nb), stable (a first on ties).
 * With check_sorted, returns MP_UNSORTED when an input is not ascending; the
 * check rides on the merge itself.
 */
extern mp_status mp_cpu_merge(mp_type type, const void *a, int64_t na,
							  const void *b, int64_t nb, void *out,
							  bool check_sorted, mp_poll_fn poll);

/*
 * The set operation op of a[0..na) and b[0..nb) into out, which has room for
 * mp_setop_capacity(op, na, nb) elements; *nout gets the result's length.
 * Checks as mp_cpu_merge does.
 */
extern mp_status mp_cpu_setop(mp_setop op, mp_type type, const void *a, int64_t na,
							  const void *b, int64_t nb, void *out, int64_t *nout,
							  bool check_sorted, mp_poll_fn poll);

/*
 * For each needles[j], out[j] = the kind of rank of it in hay[0..nh).  Both
 * inputs ascending; nh below 2^31.  Checks both as mp_cpu_merge does.
 */
extern mp_status mp_cpu_search(mp_search kind, mp_type type, const void *hay, int64_t nh,
							   const void *needles, int64_t nn, int32_t *out,
							   bool check_sorted, mp_poll_fn poll);

/*
 * The elements of a that occur in b (semi join), or that do not (anti join),
 * in a's order and multiplicity, into out (room for na); *nout gets how many.
 */
extern mp_status mp_cpu_semijoin(bool anti, mp_type type, const void *a, int64_t na,
								 const void *b, int64_t nb, void *out, int64_t *nout,
								 bool check_sorted, mp_poll_fn poll);

/*
 * Inner equi-join of two sorted arrays: every pair (i, j), 0-based, with
 * a[i] = b[j], ordered by i then j.  mp_cpu_join_count counts the pairs (and
 * checks the inputs); a cursor then hands them out in pieces, so that the
 * caller never holds more than one piece besides what it builds.
 */
typedef struct mp_join_cursor
{
	int64_t		i;				/* the a element being paired */
	int64_t		j;				/* its next partner in b */
	int64_t		lo;				/* b[lo..hi): the elements equal to a[i] */
	int64_t		hi;
	bool		started;		/* i is valid (zero the cursor to begin) */
} mp_join_cursor;

extern mp_status mp_cpu_join_count(mp_type type, const void *a, int64_t na, const void *b,
								   int64_t nb, int64_t *npairs, bool check_sorted,
								   mp_poll_fn poll);

/* Up to cap next pairs into a_pos/b_pos; returns how many (0 at the end). */
extern int64_t mp_cpu_join_next(mp_type type, const void *a, int64_t na, const void *b,
								int64_t nb, mp_join_cursor *cursor, int32_t *a_pos,
								int32_t *b_pos, int64_t cap);

/*
 * Sorts in[0..n) into out[0..n), stable (equal keys keep their input order;
 * -0 and +0 are equal, as are all NaNs, which go last).  scratch has room
 * for n elements; in is only read.  The order is mp_order.h's keys: a radix
 * sort over them, or a merge sort below mp_cpu_sort_small elements (twice
 * as many of 8 bytes), byte digits below mp_cpu_sort_bytes (tuning knobs,
 * set from bench_cpu --sort's crossovers).
 */
extern int64_t mp_cpu_sort_small;
extern int64_t mp_cpu_sort_bytes;

/*
 * Threads the CPU backend may use (mergepath.cpu_threads; src/cpu/cpu_threads.c):
 * the sort and the row sort run on up to mp_cpu_threads_now() from 2 *
 * MP_SORT_THREAD_MIN elements (rows) on, no thread getting fewer than
 * MP_SORT_THREAD_MIN.  mp_cpu_sharers, when set, says how many processes
 * share the machine's processors for the work at hand (a parallel query's
 * participants): each then uses no more than its share of them.
 */
extern int	mp_cpu_threads;
extern int	(*mp_cpu_sharers) (void);
extern int	mp_cpu_threads_now(void);
/* The processors this process may run on (its affinity mask), shared or not. */
extern int	mp_cpu_processors(void);

#define MP_SORT_THREAD_MIN ((int64_t) 1 << 18)

extern mp_status mp_cpu_sort(mp_type type, const void *in, int64_t n, void *out,
							 void *scratch, mp_poll_fn poll);

/*
 * k-way merge: k ascending runs laid end to end, run r in[bounds[r] ..
 * bounds[r + 1]) with bounds[0] = 0, merged stably (equal elements in run
 * order) into out[0 .. bounds[k]).  The runs are not checked: callers check
 * them as they collect them.
 */
extern mp_status mp_cpu_merge_runs(mp_type type, const void *in, const int64_t *bounds,
								   int64_t k, void *out, mp_poll_fn poll);

/*
 * The same over runs of unsigned keys of word_bytes (4 or 8) bytes, giving
 * the permutation: perm[j] is the index in keys of the j-th key merged
 * (bounds[k] below 2^32).
 */
extern mp_status mp_cpu_merge_key_runs(int word_bytes, const void *keys,
									   const int64_t *bounds, int64_t k, uint32_t *perm,
									   mp_poll_fn poll);

/*
 * Places [lo, hi) of the stable k-way merge of k ascending runs of unsigned
 * keys of word_bytes (4 or 8) bytes that lie apart, run r keys[r][0 ..
 * len[r]), each key with a 64-bit payload payload[r][i]: the keys, each
 * XORed with flip, into out_keys[0 .. hi - lo) and their payloads into
 * out_payload, on up to mp_cpu_threads_now() threads.  Each part finds its
 * own cuts of the runs (a search for the merge's lo-th key), so that
 * processes that share the runs merge the parts of one merge side by side.
 */
extern mp_status mp_cpu_merge_keyed_part(int word_bytes, int64_t k, const void *const *keys,
										 const uint64_t *const *payload, const int64_t *len,
										 int64_t lo, int64_t hi, uint64_t flip,
										 void *out_keys, uint64_t *out_payload);

/*
 * Row sorts, for the executor's sort node: the stable permutation that
 * orders n rows (n below 2^32) by a composite unsigned key of nwords words,
 * word 0 the least significant.  words holds word 0 of every row, then word
 * 1 of every row, and so on, each word_bytes (4 or 8) wide with only its low
 * bits[w] bits in use.  perm[k] gets the row that goes k-th; rows with equal
 * keys keep their input order.
 */
typedef struct mp_row_keys
{
	int			nwords;
	int			word_bytes;
	const int  *bits;
	const void *words;
} mp_row_keys;

/* Bytes of scratch mp_cpu_sort_rows needs for n rows. */
static inline size_t
mp_cpu_sort_rows_scratch(int64_t n)
{
	return (size_t) n * 2 * sizeof(uint64_t);
}

extern mp_status mp_cpu_sort_rows(const mp_row_keys *keys, int64_t n, uint32_t *perm,
								  void *scratch, mp_poll_fn poll);

/*
 * n 64-bit keys, of which only the low `bits` may be nonzero, in order as
 * themselves (no permutation: keys that are their rows), by the row sort's
 * passes on as many threads; keys and tmp (room for n) take turns, and
 * *sorted is the one that holds them in order at the end.
 */
extern mp_status mp_cpu_sort_keys(uint64_t *keys, uint64_t *tmp, int64_t n, int bits,
								  uint64_t **sorted, mp_poll_fn poll);

/*
 * The k-way merge of sorted runs of composite keys (laid out as for
 * mp_cpu_sort_rows, n = bounds[k] rows, run r the rows [bounds[r],
 * bounds[r + 1])), stable: perm[j] is the row merged j-th.  From a few
 * hundred thousand rows on it is cut into parts of equal shares merged on
 * up to mergepath.cpu_threads threads.  mp_cpu_merge_key_runs is its
 * one-word case.
 */
extern mp_status mp_cpu_merge_row_runs(const mp_row_keys *keys, const int64_t *bounds,
									   int64_t k, uint32_t *perm, mp_poll_fn poll);

/*
 * dst[i] = src[perm[i]] for i in [0, n), records of rec_bytes bytes, on up
 * to `threads` threads (mp_cpu_parallel): a gather whose random reads are
 * many in flight at once.
 */
extern void mp_cpu_gather(void *dst, const void *src, size_t rec_bytes, const uint32_t *perm,
						  int64_t n, int threads);

/*
 * Threads of the CPU backend (src/cpu/cpu_threads.c).  fn runs over [0, n) cut
 * into up to `threads` contiguous parts of at least min_part each (never
 * more parts than mp_cpu_threads_now() allows), one on the calling thread,
 * the others on threads started for the call and joined before it returns.
 * They run with every signal blocked, so the server's handlers stay on its
 * own thread, and fn must not call PostgreSQL or allocate from it.  When a
 * thread cannot be started, its part runs on the calling thread.
 */
typedef void (*mp_part_fn) (void *ctx, int64_t lo, int64_t hi);

extern void mp_cpu_parallel(int threads, int64_t n, int64_t min_part, mp_part_fn fn, void *ctx);

/*
 * fn(ctx) on a thread of its own, beside the caller, under the same rules
 * (every signal blocked, nothing of PostgreSQL), until mp_cpu_wait joins
 * it.  NULL when no thread could be started: the caller then runs fn(ctx)
 * itself.
 */
typedef struct mp_cpu_job mp_cpu_job;

extern mp_cpu_job *mp_cpu_start(void (*fn) (void *ctx), void *ctx);
extern void mp_cpu_wait(mp_cpu_job *job);

/*
 * The first element of each run of equal keys of the ascending x[0..n) into
 * out (room for n); *nout gets how many.  Checks as mp_cpu_merge does.
 */
extern mp_status mp_cpu_unique(mp_type type, const void *x, int64_t n, void *out,
							   int64_t *nout, bool check_sorted, mp_poll_fn poll);

/*
 * Copies x[0..n) to out and returns the index of the first element that is
 * less than its predecessor, or -1: a copy that checks on the way.
 */
extern int64_t mp_copy_checked(mp_type type, const void *x, int64_t n, void *out);

/* Index of the first element that is less than its predecessor, or -1. */
extern int64_t mp_first_unsorted(mp_type type, const void *x, int64_t n);

/* CUDA backend (cuda/, or cuda/absent.c in a build without nvcc) */

typedef struct mp_gpu_device
{
	char		name[256];
	int			ordinal;
	int			compute_major;
	int			compute_minor;
	int			multiprocessors;
	int64_t		memory_total;
	int64_t		memory_free;
	int64_t		pool_bytes;		/* device memory this process keeps */
	int64_t		pinned_bytes;	/* pinned host staging this process keeps */
	int			runtime_version;
	int			driver_version;
} mp_gpu_device;

/* Per-phase timings of the last GPU call, in milliseconds. */
typedef struct mp_gpu_timing
{
	double		h2d_ms;			/* host arrays to the device, staged */
	double		kernel_ms;		/* partition and tile kernels */
	double		d2h_ms;			/* result back into the caller's buffer */
	int64_t		bytes_h2d;
	int64_t		bytes_d2h;
	int			chunks;			/* staging-ring chunks moved */
} mp_gpu_timing;

/*
 * Creates the CUDA context and the reusable buffers, once per process.  Must
 * not be called before fork.  MP_NO_DEVICE when there is no usable GPU.
 */
extern mp_status mp_gpu_init(void);

/* Frees every device and pinned buffer, at process exit (the context goes
 * with the process). */
extern void mp_gpu_shutdown(void);

extern mp_status mp_gpu_describe(mp_gpu_device *dev);

/* The same without setting anything up (no context, no memory): free
 * memory is -1 unless this process holds the GPU. */
extern mp_status mp_gpu_probe(mp_gpu_device *dev);

/* Frees the device pool when it holds more than keep_bytes (the next call
 * allocates what it needs again); a no-op when the GPU is not set up. */
extern void mp_gpu_trim(size_t keep_bytes);

/* Gives back everything the process holds of the GPU, the CUDA context
 * included; the next mp_gpu_init sets it up again. */
extern void mp_gpu_release(void);

/* The GPU (its CUDA ordinal, default 0) that the next mp_gpu_init and
 * mp_gpu_probe use; a process already set up keeps its own until
 * mp_gpu_release.  An ordinal that no visible device has makes them answer
 * MP_NO_DEVICE, saying so in mp_gpu_last_error. */
extern void mp_gpu_set_device(int ordinal);

/* An mp_array_call on the device (cuda/host/gpu_array.cu). */
extern mp_status mp_gpu_array(mp_array_call *call, bool check_sorted, mp_poll_fn poll,
							  mp_gpu_timing *timing);

/* A batch on the device: one launch sequence for all its pairs, under
 * mp_cpu_batch's contract (cuda/host/gpu_batch.cu). */
extern mp_status mp_gpu_batch(mp_batch_call *call, bool check_sorted, mp_poll_fn poll,
							  mp_gpu_timing *timing);

/* Same contract as mp_cpu_merge; out is ordinary (pageable) host memory. */
extern mp_status mp_gpu_merge(mp_type type, const void *a, int64_t na,
							  const void *b, int64_t nb, void *out,
							  bool check_sorted, mp_poll_fn poll,
							  mp_gpu_timing *timing);

/* Same contract as mp_cpu_setop. */
extern mp_status mp_gpu_setop(mp_setop op, mp_type type, const void *a, int64_t na,
							  const void *b, int64_t nb, void *out, int64_t *nout,
							  bool check_sorted, mp_poll_fn poll,
							  mp_gpu_timing *timing);

/* Same contract as mp_cpu_search. */
extern mp_status mp_gpu_search(mp_search kind, mp_type type, const void *hay, int64_t nh,
							   const void *needles, int64_t nn, int32_t *out,
							   bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing);

/* Same contract as mp_cpu_semijoin. */
extern mp_status mp_gpu_semijoin(bool anti, mp_type type, const void *a, int64_t na,
								 const void *b, int64_t nb, void *out, int64_t *nout,
								 bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing);

/*
 * The join on the device: counts the pairs into *npairs and, when there are
 * at most max_pairs, builds them all in device memory, where
 * mp_gpu_join_fetch reads them until the next GPU call.
 */
extern mp_status mp_gpu_join(mp_type type, const void *a, int64_t na, const void *b,
							 int64_t nb, int64_t max_pairs, int64_t *npairs,
							 bool check_sorted, mp_poll_fn poll, mp_gpu_timing *timing);

/* Pairs [first, first + count) of the last mp_gpu_join, 0-based. */
extern mp_status mp_gpu_join_fetch(int64_t first, int64_t count, int32_t *a_pos,
								   int32_t *b_pos, mp_poll_fn poll, mp_gpu_timing *timing);

/* Same contract as mp_cpu_sort, without the scratch: the device has its own. */
extern mp_status mp_gpu_sort(mp_type type, const void *in, int64_t n, void *out,
							 mp_poll_fn poll, mp_gpu_timing *timing);

/* Same contract as mp_cpu_unique. */
extern mp_status mp_gpu_unique(mp_type type, const void *x, int64_t n, void *out,
							   int64_t *nout, bool check_sorted, mp_poll_fn poll,
							   mp_gpu_timing *timing);

/* Same contracts as mp_cpu_merge_runs and mp_cpu_merge_key_runs. */
extern mp_status mp_gpu_merge_runs(mp_type type, const void *in, const int64_t *bounds,
								   int64_t k, void *out, mp_poll_fn poll,
								   mp_gpu_timing *timing);
extern mp_status mp_gpu_merge_key_runs(int word_bytes, const void *keys,
									   const int64_t *bounds, int64_t k, uint32_t *perm,
									   mp_poll_fn poll, mp_gpu_timing *timing);

/* Same contract as mp_cpu_sort_rows, without the scratch. */
extern mp_status mp_gpu_sort_rows(const mp_row_keys *keys, int64_t n, uint32_t *perm,
								  mp_poll_fn poll, mp_gpu_timing *timing);

/*
 * Rows kept in device memory across calls (cuda/host/gpu_store.cu): the
 * executor's sort keeps there the rows that outgrow its memory, instead of
 * runs in temporary files.  Rows are appended in batches: their minimal
 * tuples back to back (each at an 8-byte boundary, its length in its first
 * four bytes), each row's byte offset in the store, and its composite key
 * (mp_row_keys' layout, nwords words of word_bytes, word w of batch row i at
 * keys[w * key_stride + i]).  One stable sort by the keys (equal keys in
 * append order), then the rows come back in that order a chunk at a time.
 * The store holds at most max_bytes of device memory; an append beyond it,
 * or beyond what the device has, returns MP_OUT_OF_MEMORY and leaves the
 * store as it was.  After the GPU's context was lost (a failed call of any
 * kind) a store answers MP_DEVICE_ERROR; mp_gpu_store_free frees it in
 * every state.
 */
typedef struct mp_gpu_store mp_gpu_store;

extern mp_status mp_gpu_store_create(int nwords, int word_bytes, const int *bits,
									 size_t max_bytes, mp_gpu_store **store);

/* Room for rows more rows of bytes more bytes, so that appending them
 * cannot run out of memory. */
extern mp_status mp_gpu_store_reserve(mp_gpu_store *store, int64_t rows, size_t bytes);
extern mp_status mp_gpu_store_append(mp_gpu_store *store, const void *tuples, size_t bytes,
									 const uint64_t *offsets, const void *keys,
									 int64_t key_stride, int64_t rows, mp_poll_fn poll,
									 mp_gpu_timing *timing);
extern mp_status mp_gpu_store_sort(mp_gpu_store *store, mp_poll_fn poll,
								   mp_gpu_timing *timing);

/*
 * Rows first, first + 1, ... in key order, as many as fit max_bytes (at
 * most max_rows), their tuples back to back into host; *rows and *bytes
 * get how many and how long.  *rows is 0 when the first row alone is
 * longer than max_bytes: *bytes then says how long it is.
 */
extern mp_status mp_gpu_store_fetch(mp_gpu_store *store, int64_t first, int64_t max_rows,
									size_t max_bytes, void *host, int64_t *rows,
									size_t *bytes, mp_poll_fn poll, mp_gpu_timing *timing);

/* Rows and bytes of device memory the store holds. */
extern int64_t mp_gpu_store_rows(const mp_gpu_store *store);
extern size_t mp_gpu_store_device_bytes(const mp_gpu_store *store);
extern void mp_gpu_store_free(mp_gpu_store *store);

/* What went wrong in the last call that did not return MP_OK/MP_UNSORTED. */
extern const char *mp_gpu_last_error(void);

#ifdef __cplusplus
}
#endif

#endif							/* MP_API_H */
