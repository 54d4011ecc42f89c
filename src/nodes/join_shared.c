/*
 * join_shared.c
 *		The inner side of a parallel MergepathJoin, held once in the query's
 *		shared memory and sorted once, for every participant to search.
 *
 * Every participant that starts while the inner side is being read reads
 * its portion of the partial inner input: each row goes as a minimal tuple
 * into chunks of the query's dynamic shared memory area (DSA), and its
 * folded key and the tuple's place into the participant's own arrays,
 * sorted by key and published to the others when its portion ends (the
 * participants sort side by side).  A row with a NULL key never matches:
 * it is kept only for a RIGHT or FULL join, which returns it.  A barrier
 * then elects one participant, which merges the sorted parts (a k-way
 * merge, split by Merge Path over the CPU backend's threads, or on the GPU)
 * on the backend the settings choose and writes the keys and the rows'
 * places out in key order, keys signed (the sorted search's order); the
 * others wait at the
 * barrier for it, as Parallel Hash Join's participants wait for its
 * build.  A participant that starts later finds the inner side built and
 * goes straight to its outer rows.  Nothing waits after that, so a worker
 * that fills its queue to the leader never holds the others up.
 *
 * A RIGHT or FULL join returns the inner rows that no participant matched.
 * Each participant marks the inner rows its pairs match in a flag array in
 * the shared memory, and the last participant to finish its outer rows
 * (a second barrier, which each attaches to before it reads and leaves
 * without waiting) returns the unmatched ones: a participant that comes
 * after that finds the outer input used up and returns nothing.
 *
 * The chunks and arrays live until the query ends, or until a rescan of
 * the Gather above starts the build again (mp_join_shared_reset).
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/barrier.h"
#include "storage/spin.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "join_shared.h"

/* The build's phases. */
#define BUILD_READ	0				/* participants read the inner side */
#define BUILD_SORT	1				/* one sorts it, the others wait */
#define BUILD_DONE	2

/* The probe's phases (RIGHT and FULL joins). */
#define PROBE_RUNNING 0
#define PROBE_DONE	1

/* Tuples go into chunks of the DSA of this size (a larger row gets its own). */
#define CHUNK_BYTES ((Size) 4 << 20)

/* Every allocation of the build starts with a link to the next of its list. */
typedef struct shared_link
{
	dsa_pointer next;
	int64		n;				/* a part's rows: n keys (uint64), then n places, */
	int64		nnull;			/* then the places of nnull rows with a NULL key */
} shared_link;

#define LINK_BYTES MAXALIGN(sizeof(shared_link))

struct mp_join_shared
{
	Barrier		build;
	Barrier		probe;
	slock_t		mutex;
	dsa_pointer chunks;			/* the tuples' chunks */
	dsa_pointer parts;			/* the participants' keys and places, until sorted */
	int64		nkeyed;
	int64		nnull;
	dsa_pointer sorted_keys;
	dsa_pointer sorted_rows;	/* nkeyed in key order, then the nnull others */
	dsa_pointer matched;		/* a flag for each of the nkeyed (RIGHT, FULL) */
	bool		sorted_on_gpu;
	int64		nparts;
	Size		bytes;			/* held in the DSA now, and at most */
	Size		peak;
	int			nworkers;
	mp_join_part_report reports[FLEXIBLE_ARRAY_MEMBER];	/* the leader's, then the workers' */
};

Size
mp_join_shared_size(int nworkers)
{
	return add_size(offsetof(mp_join_shared, reports),
					mul_size(nworkers + 1, sizeof(mp_join_part_report)));
}

void
mp_join_shared_init(mp_join_shared *sh, int nworkers)
{
	memset(sh, 0, mp_join_shared_size(nworkers));
	BarrierInit(&sh->build, 0);
	BarrierInit(&sh->probe, 0);
	SpinLockInit(&sh->mutex);
	sh->chunks = sh->parts = sh->sorted_keys = sh->sorted_rows = sh->matched =
		InvalidDsaPointer;
	sh->nworkers = nworkers;
}

static void
free_list(dsa_area *area, dsa_pointer dp)
{
	while (DsaPointerIsValid(dp))
	{
		dsa_pointer next = ((shared_link *) dsa_get_address(area, dp))->next;

		dsa_free(area, dp);
		dp = next;
	}
}

/* Before a rescan builds it again: what the last build held is freed. */
void
mp_join_shared_reset(mp_join_shared *sh, dsa_area *area)
{
	if (area)
	{
		free_list(area, sh->chunks);
		free_list(area, sh->parts);
		if (DsaPointerIsValid(sh->sorted_keys))
			dsa_free(area, sh->sorted_keys);
		if (DsaPointerIsValid(sh->sorted_rows))
			dsa_free(area, sh->sorted_rows);
		if (DsaPointerIsValid(sh->matched))
			dsa_free(area, sh->matched);
	}
	mp_join_shared_init(sh, sh->nworkers);
}

mp_join_part_report *
mp_join_report_slot(mp_join_shared *sh)
{
	int			slot = IsParallelWorker() ? ParallelWorkerNumber + 1 : 0;

	return slot >= 0 && slot <= sh->nworkers ? &sh->reports[slot] : NULL;
}

mp_join_part_report *
mp_join_copy_reports(const mp_join_shared *sh, int *n)
{
	mp_join_part_report *copy = palloc((sh->nworkers + 1) * sizeof(mp_join_part_report));

	memcpy(copy, sh->reports, (sh->nworkers + 1) * sizeof(mp_join_part_report));
	*n = sh->nworkers + 1;
	return copy;
}

void
mp_join_inner_attach(mp_join_inner *in, mp_join_shared *sh, dsa_area *area, mp_key_kind kind,
					 AttrNumber key_col, bool keep_nulls)
{
	memset(in, 0, sizeof(*in));
	in->sh = sh;
	in->area = area;
	in->kind = kind;
	in->key_bytes = mp_key_kind_bits(kind) <= 32 ? 4 : 8;
	in->key_col = key_col;
	in->keep_nulls = keep_nulls;
}

/* A new allocation of the DSA, put on the list at *head. */
static void *
shared_alloc(mp_join_inner *in, dsa_pointer *head, Size bytes, int64 n, int64 nnull,
			 dsa_pointer *dp)
{
	shared_link *link;

	*dp = dsa_allocate_extended(in->area, bytes, DSA_ALLOC_HUGE);
	link = dsa_get_address(in->area, *dp);
	link->n = n;
	link->nnull = nnull;
	SpinLockAcquire(&in->sh->mutex);
	link->next = *head;
	*head = *dp;
	in->sh->bytes += bytes;
	in->sh->peak = Max(in->sh->peak, in->sh->bytes);
	SpinLockRelease(&in->sh->mutex);
	return link;
}

/* Room for a tuple of len bytes in the chunk, or in a new one. */
static void *
room_in_chunk(void *arg, Size len)
{
	mp_join_inner *in = arg;
	char	   *at;

	len = MAXALIGN(len);
	if (in->chunk == NULL || len > in->size - in->used)
	{
		in->size = Max(CHUNK_BYTES, LINK_BYTES + len);
		in->chunk = shared_alloc(in, &in->sh->chunks, in->size, 0, 0, &in->chunk_dp);
		in->used = LINK_BYTES;
	}
	at = in->chunk + in->used;
	in->used += len;
	return at;
}

/* This participant's portion of the inner rows, into the shared memory. */
static void
read_rows(mp_join_inner *in, PlanState *input, mp_join_part_report *report)
{
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(input);
		bool		isnull;
		Datum		d;
		MinimalTuple row;

		if (TupIsNull(slot))
			break;
		d = slot_getattr(slot, in->key_col, &isnull);
		if (isnull)
		{
			if (!in->keep_nulls)
				continue;
			if (in->nnull == in->null_room)
			{
				in->null_room = in->null_room == 0 ? 1024 : in->null_room * 2;
				in->null_rows = in->null_rows ?
					repalloc_huge(in->null_rows, in->null_room * sizeof(dsa_pointer)) :
					palloc_extended(in->null_room * sizeof(dsa_pointer), MCXT_ALLOC_HUGE);
			}
			row = mp_form_tuple(slot, room_in_chunk, in);
			in->null_rows[in->nnull++] = in->chunk_dp + ((char *) row - in->chunk);
			continue;
		}
		if (in->n == in->room)
		{
			in->room = in->room == 0 ? 65536 : in->room * 2;
			in->keys = in->keys ? repalloc_huge(in->keys, in->room * sizeof(uint64)) :
				palloc_extended(in->room * sizeof(uint64), MCXT_ALLOC_HUGE);
			in->rows = in->rows ? repalloc_huge(in->rows, in->room * sizeof(dsa_pointer)) :
				palloc_extended(in->room * sizeof(dsa_pointer), MCXT_ALLOC_HUGE);
		}
		in->keys[in->n] = mp_fold_key(in->kind, d);
		row = mp_form_tuple(slot, room_in_chunk, in);
		in->rows[in->n] = in->chunk_dp + ((char *) row - in->chunk);
		in->n++;
	}
	if (report)
		report->inner_rows = in->n + in->nnull;
}

/* A part's keys take key_bytes each, padded to a whole number of words. */
#define PART_KEY_BYTES(n, key_bytes) MAXALIGN((Size) (n) * (key_bytes))

/* Sorts n keys of key_bytes (perm out), or merges k sorted runs of them. */
typedef struct sort_work
{
	mp_row_keys keys;
	int			bits;
	int64		n;
	uint32	   *perm;
	const int64 *bounds;		/* the runs, for a merge; NULL for a sort */
	int64		k;
} sort_work;

static mp_status
sort_keys(void *ctx, bool gpu, mp_poll_fn poll, mp_gpu_timing *timing)
{
	sort_work  *w = ctx;
	void	   *scratch;
	mp_status	st;

	memset(timing, 0, sizeof(*timing));
	if (w->bounds)
		return gpu ?
			mp_gpu_merge_key_runs(w->keys.word_bytes, w->keys.words, w->bounds, w->k, w->perm,
								  poll, timing) :
			mp_cpu_merge_key_runs(w->keys.word_bytes, w->keys.words, w->bounds, w->k, w->perm,
								  poll);
	if (gpu)
		return mp_gpu_sort_rows(&w->keys, w->n, w->perm, poll, timing);
	scratch = palloc_extended(Max(mp_cpu_sort_rows_scratch(w->n), 1), MCXT_ALLOC_HUGE);
	st = mp_cpu_sort_rows(&w->keys, w->n, w->perm, scratch, poll);
	pfree(scratch);
	return st;
}

/* The keys (key_bytes each) sorted or merged on the backend the settings choose. */
static bool
order_keys(mp_join_inner *in, const void *keys, int64 n, const int64 *bounds, int64 k,
		   uint32 *perm)
{
	sort_work	w = {{0}};
	mp_run_report run;

	w.bits = mp_key_kind_bits(in->kind);
	w.keys.nwords = 1;
	w.keys.word_bytes = in->key_bytes;
	w.keys.bits = &w.bits;
	w.keys.words = keys;
	w.n = n;
	w.perm = perm;
	w.bounds = bounds;
	w.k = k;
	(void) mp_run("MergepathJoin", MP_OP_JOIN_PART, n, &w, sort_keys, &run);
	return run.used_gpu;
}

/*
 * The participant's part, sorted by key on its own (the participants sort
 * their parts side by side), published for the one who merges them: its
 * keys (key_bytes each) and their rows' places in key order, then the
 * places of its rows with a NULL key.
 */
static void
publish(mp_join_inner *in, mp_join_part_report *report)
{
	double		t0 = mp_now_ms();
	dsa_pointer dp;
	char	   *part;
	Size		key_part = PART_KEY_BYTES(in->n, in->key_bytes);

	if (in->n + in->nnull > 0)
	{
		part = shared_alloc(in, &in->sh->parts,
							LINK_BYTES + key_part + (in->n + in->nnull) * sizeof(dsa_pointer),
							in->n, in->nnull, &dp);
		part += LINK_BYTES;
		if (in->n > 0)
		{
			char	   *keys = palloc_extended(in->n * in->key_bytes, MCXT_ALLOC_HUGE);
			uint32	   *perm = palloc_extended(in->n * sizeof(uint32), MCXT_ALLOC_HUGE);

			if (in->key_bytes == 4)
				for (int64 i = 0; i < in->n; i++)
					((uint32 *) keys)[i] = (uint32) in->keys[i];
			else
				memcpy(keys, in->keys, in->n * sizeof(uint64));
			if (order_keys(in, keys, in->n, NULL, 0, perm) && report)
				report->any_gpu = true;
			mp_cpu_gather(part, keys, in->key_bytes, perm, in->n, mp_cpu_threads);
			mp_cpu_gather(part + key_part, in->rows, sizeof(dsa_pointer), perm, in->n,
						  mp_cpu_threads);
			pfree(keys);
			pfree(perm);
		}
		memcpy(part + key_part + in->n * sizeof(dsa_pointer), in->null_rows,
			   in->nnull * sizeof(dsa_pointer));
	}
	mp_join_inner_forget(in);
	if (report)
		report->sort_ms = mp_now_ms() - t0;
}

/*
 * The elected participant's part: the participants' sorted parts merged
 * (a k-way merge, cut by Merge Path's split across the CPU backend's
 * threads, or on the GPU), the keys and the rows' places written out in
 * key order.
 */
static void
merge_parts(mp_join_inner *in, mp_join_part_report *report)
{
	mp_join_shared *sh = in->sh;
	double		t0 = mp_now_ms();
	int64		n = 0,
				nnull = 0,
				k = 0,
				null_at = 0;
	Size		parts_bytes = 0;
	dsa_pointer dp;
	char	   *keys;
	dsa_pointer *rows,
			   *sorted_rows;
	int64	   *bounds;
	uint32	   *perm;
	bool		gpu = false;

	for (dp = sh->parts; DsaPointerIsValid(dp);)
	{
		shared_link *link = dsa_get_address(in->area, dp);

		n += link->n;
		nnull += link->nnull;
		k += link->n > 0;
		dp = link->next;
	}
	if (n >= (int64) PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("MergepathJoin cannot hold " INT64_FORMAT " inner rows in parallel", n),
				 errhint("Set max_parallel_workers_per_gather to 0 for this query.")));
	sh->nkeyed = n;
	sh->nnull = nnull;
	if (n + nnull == 0)
		return;

	/*
	 * The parts' keys and places one after the other (the runs), and the
	 * places of the rows with a NULL key after all the others
	 */
	keys = palloc_extended(Max(n, 1) * in->key_bytes, MCXT_ALLOC_HUGE);
	rows = palloc_extended(Max(n, 1) * sizeof(dsa_pointer), MCXT_ALLOC_HUGE);
	bounds = palloc((k + 1) * sizeof(int64));
	sh->sorted_rows = dsa_allocate_extended(in->area, (n + nnull) * sizeof(dsa_pointer),
											DSA_ALLOC_HUGE);
	sorted_rows = dsa_get_address(in->area, sh->sorted_rows);
	k = 0;
	bounds[0] = 0;
	for (dp = sh->parts; DsaPointerIsValid(dp);)
	{
		shared_link *link = dsa_get_address(in->area, dp);
		const char *pk = (const char *) link + LINK_BYTES;
		const dsa_pointer *places = (const dsa_pointer *)
			(pk + PART_KEY_BYTES(link->n, in->key_bytes));
		int64		at = bounds[k];

		memcpy(keys + at * in->key_bytes, pk, link->n * in->key_bytes);
		memcpy(rows + at, places, link->n * sizeof(dsa_pointer));
		memcpy(sorted_rows + n + null_at, places + link->n, link->nnull * sizeof(dsa_pointer));
		null_at += link->nnull;
		parts_bytes += LINK_BYTES + PART_KEY_BYTES(link->n, in->key_bytes) +
			(link->n + link->nnull) * sizeof(dsa_pointer);
		if (link->n > 0)
			bounds[++k] = at + link->n;
		dp = link->next;
	}
	/* the others wait at the barrier: the counts are this participant's alone */
	sh->bytes += (n + nnull) * sizeof(dsa_pointer);
	sh->peak = Max(sh->peak, sh->bytes);
	free_list(in->area, sh->parts);
	sh->parts = InvalidDsaPointer;
	sh->bytes -= parts_bytes;
	if (in->keep_nulls && n > 0)
	{
		sh->matched = dsa_allocate_extended(in->area, n, DSA_ALLOC_HUGE | DSA_ALLOC_ZERO);
		sh->bytes += n;
	}

	if (n > 0)
	{
		perm = palloc_extended(n * sizeof(uint32), MCXT_ALLOC_HUGE);
		gpu = order_keys(in, keys, n, bounds, k, perm);
		sh->sorted_on_gpu = gpu;

		/* in key order: the keys signed, and the places */
		sh->sorted_keys = dsa_allocate_extended(in->area, n * in->key_bytes, DSA_ALLOC_HUGE);
		sh->bytes += n * in->key_bytes;
		sh->peak = Max(sh->peak, sh->bytes);
		mp_cpu_gather(dsa_get_address(in->area, sh->sorted_keys), keys, in->key_bytes, perm,
					  n, mp_cpu_threads);
		mp_cpu_gather(sorted_rows, rows, sizeof(dsa_pointer), perm, n, mp_cpu_threads);
		if (in->key_bytes == 4)
		{
			uint32	   *out = dsa_get_address(in->area, sh->sorted_keys);

			for (int64 i = 0; i < n; i++)
				out[i] ^= UINT32_C(0x80000000);
		}
		else
		{
			uint64	   *out = dsa_get_address(in->area, sh->sorted_keys);

			for (int64 i = 0; i < n; i++)
				out[i] ^= UINT64_C(0x8000000000000000);
		}
		pfree(perm);
	}
	pfree(keys);
	pfree(rows);
	pfree(bounds);
	sh->nparts = k;
	if (report)
	{
		report->merge_ms = mp_now_ms() - t0;
		report->sorted_here = true;
		report->sort_gpu = gpu;
	}
}

/*
 * The shared inner side, built with the others (or found built): on return
 * the sorted keys and rows are there to search.
 */
void
mp_join_inner_build(mp_join_inner *in, PlanState *input, mp_join_part_report *report)
{
	mp_join_shared *sh = in->sh;
	int			phase;

	/* a RIGHT or FULL join: one of those who probe, unless probing is over */
	if (in->keep_nulls)
	{
		if (BarrierAttach(&sh->probe) != PROBE_RUNNING)
		{
			BarrierDetach(&sh->probe);
			in->late = true;
			return;
		}
		in->probing = true;
	}

	phase = BarrierAttach(&sh->build);
	if (phase == BUILD_READ)
	{
		read_rows(in, input, report);
		publish(in, report);
		if (BarrierArriveAndWait(&sh->build, PG_WAIT_EXTENSION))
			merge_parts(in, report);
		phase = BUILD_SORT;
	}
	if (phase == BUILD_SORT)
		BarrierArriveAndWait(&sh->build, PG_WAIT_EXTENSION);
	BarrierDetach(&sh->build);

	in->nkeyed = sh->nkeyed;
	in->nrows = sh->nkeyed + sh->nnull;
	if (report)
	{
		report->shared_rows = in->nrows;
		report->shared_parts = sh->nparts;
		report->shared_bytes = sh->bytes;
		report->shared_peak = sh->peak;
	}
	in->sorted_on_gpu = sh->sorted_on_gpu;
	if (in->nkeyed > 0)
		in->sorted_keys = dsa_get_address(in->area, sh->sorted_keys);
	if (in->nrows > 0)
		in->sorted_rows = dsa_get_address(in->area, sh->sorted_rows);
	if (DsaPointerIsValid(sh->matched))
		in->matched = dsa_get_address(in->area, sh->matched);
	in->built = true;
}

/*
 * A RIGHT or FULL join's participant is done with its outer rows: true for
 * the last of them, which is to return the inner rows nobody matched.
 */
bool
mp_join_inner_probe_done(mp_join_inner *in)
{
	if (!in->probing)
		return false;
	in->probing = false;
	return BarrierArriveAndDetach(&in->sh->probe);
}

/* Forgets the pointers into the shared memory (before a rescan). */
void
mp_join_inner_forget(mp_join_inner *in)
{
	if (in->keys)
		pfree(in->keys);
	if (in->rows)
		pfree(in->rows);
	if (in->null_rows)
		pfree(in->null_rows);
	in->keys = NULL;
	in->rows = NULL;
	in->null_rows = NULL;
	in->n = in->room = in->nnull = in->null_room = 0;
	in->chunk = NULL;
	in->sorted_keys = NULL;
	in->sorted_rows = NULL;
	in->matched = NULL;
	in->nkeyed = in->nrows = 0;
	in->built = false;
}
