/*
 * join_shared.c
 *		The inner side of a parallel MergepathJoin, held once in the query's
 *		shared memory and sorted once, for every participant to search; or,
 *		when it outgrows that memory, both sides split into key ranges on
 *		temporary files and joined a range at a time.
 *
 * Every participant that starts while the inner side is being read reads
 * its portion of the partial inner input: each row goes as a minimal tuple
 * into chunks of the query's dynamic shared memory area (DSA), and its
 * folded key and the tuple's place into the participant's own arrays,
 * sorted by key and published to the others when its portion ends (the
 * participants sort side by side).  A row with a NULL key never matches:
 * it is kept only for a RIGHT or FULL join, which returns it.  A barrier
 * then elects one participant, which counts the sorted parts and allocates
 * the arrays in key order.  On the CPU backend the participants then merge
 * the parts together: the k-way merge is cut into slices that each takes
 * from a counter, and each slice finds its own cuts of the parts (Merge
 * Path's split for k runs, a search for the merge's first key of the
 * slice) and is merged straight from the parts into the keys (signed: the
 * sorted search's order) and the rows' places in key order.  Where the
 * settings choose the GPU for the merge, the elected participant merges
 * all of it there while the others wait, as Parallel Hash Join's
 * participants wait for its build.  A participant that starts later finds
 * the inner side built, or joins the merge, and goes on to its outer
 * rows.  Nothing waits after that, so a worker that fills its queue to the
 * leader never holds the others up.
 *
 * A RIGHT or FULL join returns the inner rows that no participant matched.
 * Each participant marks the inner rows its pairs match in a flag array in
 * the shared memory, and the last participant to finish its outer rows
 * (a second barrier, which each attaches to before it reads and leaves
 * without waiting) returns the unmatched ones: a participant that comes
 * after that finds the outer input used up and returns nothing.
 *
 * Beyond the memory.  The inner side may hold what Parallel Hash Join's
 * table may: hash_mem x the participants.  Once the chunks and the arrays
 * they need outgrow it, the first participant to see it splits the keys
 * into buckets at quantiles of the keys it has sampled so far (as many
 * buckets as make each about a third of the memory for the inner side the
 * planner expects), and the participants write the rows they read next to
 * the buckets' shared tuplestores (the spool); each keeps a reservoir
 * sample of all the keys it read.  The elected participant then counts
 * each bucket's rows, those in memory among them.  Where no bucket needs
 * more than half the memory, runs of whole buckets make key ranges of
 * about half the memory each (two ranges may be in memory at once, one
 * built while the last participants finish the one before), the rows in
 * memory are written to their buckets too, and each spooled row is
 * written once.  Otherwise (keys read in the order the table holds them
 * give a sample of one end of them) the split points come from all the
 * samples (weighted by the rows each participant read), so that each key
 * range's inner rows take about half the memory, and the rows in memory
 * and the spooled ones are written to the ranges' tuplestores.  The
 * participants then read their outer input into the same ranges; rows
 * with a NULL key that the join returns go to the first range.  Then each
 * range in turn is built as the whole inner side is, by whichever
 * participants come to it, and its outer rows are read by the
 * participants from its tuplestore, in batches of their memory.  The last
 * participant to leave a range frees it, after returning its unmatched
 * inner rows for a RIGHT or FULL join.  A key that has more rows than a
 * range holds makes its range larger than the memory, as a Hash Join's
 * batch of one hash value is.  The temporary files belong to a shared file
 * set of the query's segment: under temp_tablespaces, counted against
 * temp_file_limit.  A tuplestore's files are removed as soon as every
 * participant is done with them (a range's inner rows once they are all
 * read, its outer rows by the last to leave it, the spool once split again
 * into the ranges), the rest when the query ends or fails.
 *
 * The chunks and arrays live until the query ends, or until a rescan of
 * the Gather above starts the build again (mp_join_shared_reset).
 */
#include "postgres.h"

#include <math.h>

#include "access/parallel.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/buffile.h"
#include "storage/sharedfileset.h"
#include "storage/spin.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "join_shared.h"

/* The build's phases (a parallel join's main barrier). */
#define BUILD_READ	0				/* participants read the inner side */
#define BUILD_DECIDE 1				/* one sets up the merge, or splits it into ranges */
#define BUILD_MERGE	2				/* in memory: participants merge the sorted parts */
#define BUILD_DONE	3				/* in memory: built */
#define BUILD_SPLIT_INNER 2			/* in ranges: the inner rows in memory written out */
#define BUILD_RESPILL 3				/* the spool split into the ranges, where its buckets are not */
#define BUILD_SPLIT_OUTER 4			/* the outer rows written out */
#define BUILD_RANGES 5				/* each range joined in turn */

/* The probe's phases (RIGHT and FULL joins). */
#define PROBE_RUNNING 0
#define PROBE_DONE	1

/* A key range's phases. */
#define RANGE_LOAD	0				/* participants read its inner rows */
#define RANGE_MERGE 1				/* one sets up the merge of their sorted parts */
#define RANGE_SLICES 2				/* participants merge them */
#define RANGE_PROBE 3				/* participants join its outer rows */
#define RANGE_DONE	4

/* Tuples go into chunks of the DSA of at most this size (a larger row gets its own). */
#define CHUNK_BYTES ((Size) 4 << 20)

/*
 * Memory a row needs besides its tuple, once built: its key and place in a
 * part, then in key order, and a matched flag.
 */
#define ROW_BYTES	32

/*
 * Keys of the sorted parts' merge a participant takes at a time: about an
 * eighth of each participant's share, so that one that comes late or runs
 * slow leaves little to wait for, and no fewer than this (a slice finds its
 * own cuts of the parts: some thousand comparisons).
 */
#define MERGE_SLICE_MIN ((int64) 4096)

/* Inner keys each participant samples for the split points. */
#define SAMPLE_KEYS 8192

/* At most this many key ranges: each takes a write buffer per participant. */
#define MAX_RANGES	1024

/* Rows written out between interrupt checks. */
#define WRITE_CHUNK 8192

/*
 * At most this many key buckets for the rows spooled beyond the memory (a
 * tuplestore each, with a write buffer per participant).
 */
#define MAX_BUCKETS 128

/* Every allocation of the build starts with a link to the next of its list. */
typedef struct shared_link
{
	dsa_pointer next;
	Size		bytes;			/* the allocation's size */
	int64		n;				/* a part's rows: n keys (key_bytes), then n places, */
	int64		nnull;			/* then the places of nnull rows with a NULL key; */
								/* a sample: n keys (uint64) of nnull rows read */
} shared_link;

#define LINK_BYTES MAXALIGN(sizeof(shared_link))

/* What a row written to a range's or the spool's tuplestore carries. */
typedef struct row_meta
{
	uint64		key;			/* folded */
	uint64		isnull;			/* a word, so that no padding goes to disk */
} row_meta;

struct mp_shared_side
{
	Barrier		barrier;		/* a key range's phases */
	dsa_pointer chunks;			/* the tuples' chunks */
	dsa_pointer parts;			/* the participants' keys and places, until sorted */
	int64		nkeyed;
	int64		nnull;
	dsa_pointer sorted_keys;
	dsa_pointer sorted_rows;	/* nkeyed in key order, then the nnull others */
	dsa_pointer matched;		/* a flag for each of the nkeyed (RIGHT, FULL) */
	bool		sorted_on_gpu;
	int64		nparts;			/* the sorted parts with keys */
	int64		nslices;		/* slices of their merge on the CPU, or 0 */
	int64		slice_rows;		/* keys a slice */
	pg_atomic_uint64 next_slice;	/* the next slice to take */
};

struct mp_join_shared
{
	Barrier		build;
	Barrier		probe;
	slock_t		mutex;
	mp_shared_side whole;		/* the inner side, when it fits */
	Size		budget;			/* what it may hold: hash_mem x participants */
	Size		chunk_bytes;
	Size		bytes;			/* held in the DSA now, and at most */
	Size		peak;
	int64		mem_rows;		/* rows read into the chunks */
	bool		spilling;		/* the inner side outgrew the budget */
	int64		spooled;		/* rows written to the spool */
	Size		spooled_bytes;
	dsa_pointer samples;		/* the participants' samples of the inner keys */
	dsa_pointer claim;			/* the next part to write out to the ranges */
	int			nranges;
	dsa_pointer splitters;
	dsa_pointer ranges;			/* each: a side, then its inner and outer tuplestores */
	int			nworkers;
	dsm_handle	seg;
	SharedFileSet fileset;

	/*
	 * The spool in key buckets: their split points (nsplit of them, set by
	 * the first participant to outgrow the memory, from its sample), each
	 * bucket's spooled rows and bytes, and where the buckets make the key
	 * ranges (range r's spooled rows are buckets first_bucket[r] up to
	 * first_bucket[r + 1]), unless a bucket outgrew a range (respill): then
	 * the spool is split into the ranges again.
	 */
	int			nbuckets;		/* the buckets' tuplestores, after the reports */
	int			nsplit;
	bool		respill;
	uint64		bucket_split[MAX_BUCKETS - 1];
	int64		bucket_rows[MAX_BUCKETS];
	Size		bucket_bytes[MAX_BUCKETS];
	int16		first_bucket[MAX_BUCKETS + 1];
	Size		spool_off;		/* the buckets' tuplestores, after the reports */
	mp_join_part_report reports[FLEXIBLE_ARRAY_MEMBER];	/* the leader's, then the workers' */
};

static inline int
participants(const mp_join_shared *sh)
{
	return sh->nworkers + 1;
}

static inline SharedTuplestore *
spool_store(mp_join_shared *sh, int b)
{
	return (SharedTuplestore *) ((char *) sh + sh->spool_off +
								 (Size) b * MAXALIGN(sts_estimate(participants(sh))));
}

/* A key range's entry: its side, then its inner and outer tuplestores. */
static inline Size
range_bytes(const mp_join_shared *sh)
{
	return MAXALIGN(sizeof(mp_shared_side)) + 2 * MAXALIGN(sts_estimate(participants(sh)));
}

static inline mp_shared_side *
range_side(mp_join_shared *sh, dsa_area *area, int r)
{
	return (mp_shared_side *) ((char *) dsa_get_address(area, sh->ranges) +
							   (Size) r * range_bytes(sh));
}

static inline SharedTuplestore *
range_store(mp_join_shared *sh, dsa_area *area, int r, bool outer)
{
	return (SharedTuplestore *) ((char *) range_side(sh, area, r) +
								 MAXALIGN(sizeof(mp_shared_side)) +
								 (outer ? MAXALIGN(sts_estimate(participants(sh))) : 0));
}

Size
mp_join_shared_size(int nworkers, int nbuckets)
{
	Size		reports = add_size(offsetof(mp_join_shared, reports),
								   mul_size(nworkers + 1, sizeof(mp_join_part_report)));

	Assert(nbuckets >= 1 && nbuckets <= MAX_BUCKETS);
	return add_size(MAXALIGN(reports), mul_size(nbuckets, MAXALIGN(sts_estimate(nworkers + 1))));
}

/*
 * Key buckets for the spool: each about a third of the memory, for the
 * inner side the planner expects (rows of width bytes, as the shared memory
 * holds them), so that whole buckets make ranges of at most half the
 * memory with room for the estimate to be short by half.
 */
int
mp_join_spool_buckets(double rows, int width, Size budget)
{
	double		bytes = rows * (MAXALIGN(SizeofMinimalTupleHeader + width) + ROW_BYTES);
	double		want = ceil(3.0 * bytes / Max(budget, 1));

	return (int) Max(4.0, Min(want, (double) MAX_BUCKETS));
}

static void
init_side(mp_shared_side *side)
{
	memset(side, 0, sizeof(*side));
	BarrierInit(&side->barrier, 0);
	side->chunks = side->parts = side->sorted_keys = side->sorted_rows = side->matched =
		InvalidDsaPointer;
	pg_atomic_init_u64(&side->next_slice, 0);
}

/* The state of a build not started, the file set and the segment aside. */
static void
init_state(mp_join_shared *sh, int nworkers, Size budget, int nbuckets)
{
	Size		reports = offsetof(mp_join_shared, reports) +
		(nworkers + 1) * sizeof(mp_join_part_report);

	memset(sh->reports, 0, (nworkers + 1) * sizeof(mp_join_part_report));
	BarrierInit(&sh->build, 0);
	BarrierInit(&sh->probe, 0);
	SpinLockInit(&sh->mutex);
	init_side(&sh->whole);
	sh->budget = Max(budget, 1);
	/* a participant's chunk at most an eighth of its share of the memory */
	sh->chunk_bytes = Min(CHUNK_BYTES, Max((Size) 8192, sh->budget / (8 * (nworkers + 1))));
	sh->bytes = sh->peak = 0;
	sh->mem_rows = sh->spooled = 0;
	sh->spooled_bytes = 0;
	sh->spilling = false;
	sh->samples = sh->claim = sh->splitters = sh->ranges = InvalidDsaPointer;
	sh->nranges = 0;
	sh->nworkers = nworkers;
	sh->nbuckets = nbuckets;
	sh->nsplit = -1;
	sh->respill = false;
	memset(sh->bucket_rows, 0, sizeof(sh->bucket_rows));
	memset(sh->bucket_bytes, 0, sizeof(sh->bucket_bytes));
	sh->spool_off = MAXALIGN(reports);
	for (int b = 0; b < nbuckets; b++)
	{
		char		name[32];

		snprintf(name, sizeof(name), "mpjoin.spool.%d", b);
		/* each participant attaches on its own */
		pfree(sts_initialize(spool_store(sh, b), nworkers + 1, 0, sizeof(row_meta),
							 SHARED_TUPLESTORE_SINGLE_PASS, &sh->fileset, name));
	}
}

/* In the leader, as the Gather sets up the query's segment. */
void
mp_join_shared_init(mp_join_shared *sh, int nworkers, Size budget, int nbuckets,
					dsm_segment *seg)
{
	memset(sh, 0, mp_join_shared_size(nworkers, nbuckets));
	SharedFileSetInit(&sh->fileset, seg);
	sh->seg = dsm_segment_handle(seg);
	init_state(sh, nworkers, budget, nbuckets);
}

/* In a worker: the temporary files shared, while it is attached. */
void
mp_join_shared_attach_worker(mp_join_shared *sh)
{
	dsm_segment *seg = dsm_find_mapping(sh->seg);

	if (seg == NULL)
		elog(ERROR, "MergepathJoin: the parallel query's segment is not mapped");
	SharedFileSetAttach(&sh->fileset, seg);
}

/*
 * A tuplestore's files removed as soon as every participant is done with
 * them, rather than with the rest of the file set when the query ends: the
 * unlinking (the page cache's pages of the files dropped, proportional to
 * their size) then falls on the participants as they go, beside the others'
 * work, and not on the leader after the last row.  sharedtuplestore.c names
 * a participant's file of the store NAME.pN.
 */
static void
remove_store_files(mp_join_shared *sh, const char *name)
{
	char		file[MAXPGPATH];

	for (int p = 0; p < participants(sh); p++)
	{
		snprintf(file, sizeof(file), "%s.p%d", name, p);
		BufFileDeleteFileSet(&sh->fileset.fs, file, true);
	}
}

static void
remove_spool_files(mp_join_shared *sh, int from, int to)
{
	char		name[32];

	for (int b = from; b < to; b++)
	{
		snprintf(name, sizeof(name), "mpjoin.spool.%d", b);
		remove_store_files(sh, name);
	}
}

static void
remove_range_files(mp_join_shared *sh, int r, bool outer)
{
	char		name[32];

	snprintf(name, sizeof(name), "mpjoin.%d.%c", r, outer ? 'o' : 'i');
	remove_store_files(sh, name);
}

/* Frees a list of allocations; their bytes no longer counted. */
static void
free_list(mp_join_shared *sh, dsa_area *area, dsa_pointer *head)
{
	dsa_pointer dp = *head;

	while (DsaPointerIsValid(dp))
	{
		shared_link *link = dsa_get_address(area, dp);
		dsa_pointer next = link->next;

		SpinLockAcquire(&sh->mutex);
		sh->bytes -= link->bytes;
		SpinLockRelease(&sh->mutex);
		dsa_free(area, dp);
		dp = next;
	}
	*head = InvalidDsaPointer;
}

static void
count_bytes(mp_join_shared *sh, Size more, Size less)
{
	SpinLockAcquire(&sh->mutex);
	sh->bytes += more;
	sh->peak = Max(sh->peak, sh->bytes);
	sh->bytes -= less;
	SpinLockRelease(&sh->mutex);
}

static void
free_pointer(dsa_area *area, dsa_pointer *dp)
{
	if (DsaPointerIsValid(*dp))
		dsa_free(area, *dp);
	*dp = InvalidDsaPointer;
}

/* A side's memory freed: its chunks, parts and sorted arrays. */
static void
free_side(mp_join_shared *sh, dsa_area *area, mp_shared_side *side, int key_bytes)
{
	free_list(sh, area, &side->chunks);
	free_list(sh, area, &side->parts);
	if (DsaPointerIsValid(side->sorted_rows))
		count_bytes(sh, 0, (side->nkeyed + side->nnull) * sizeof(dsa_pointer) +
					(DsaPointerIsValid(side->sorted_keys) ? side->nkeyed * key_bytes : 0) +
					(DsaPointerIsValid(side->matched) ? side->nkeyed : 0));
	free_pointer(area, &side->sorted_keys);
	free_pointer(area, &side->sorted_rows);
	free_pointer(area, &side->matched);
}

/* Before a rescan builds it again: what the last build held is freed. */
void
mp_join_shared_reset(mp_join_shared *sh, dsa_area *area)
{
	if (area)
	{
		/* the key size does not matter: the counts start again */
		free_side(sh, area, &sh->whole, 8);
		free_list(sh, area, &sh->samples);
		for (int r = 0; r < sh->nranges; r++)
			free_side(sh, area, range_side(sh, area, r), 8);
		free_pointer(area, &sh->ranges);
		free_pointer(area, &sh->splitters);
	}
	SharedFileSetDeleteAll(&sh->fileset);
	init_state(sh, sh->nworkers, sh->budget, sh->nbuckets);
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
					 AttrNumber key_col, bool keep_nulls, AttrNumber outer_key_col,
					 bool outer_keep_nulls)
{
	memset(in, 0, sizeof(*in));
	in->sh = sh;
	in->area = area;
	in->kind = kind;
	in->key_bytes = mp_key_kind_bits(kind) <= 32 ? 4 : 8;
	in->key_col = key_col;
	in->keep_nulls = keep_nulls;
	in->outer_key_col = outer_key_col;
	in->outer_keep_nulls = outer_keep_nulls;
	in->participant = IsParallelWorker() ? ParallelWorkerNumber + 1 : 0;
	in->cur = -1;
	in->skip = -1;
}

/*
 * The number of the n split points at or below key: a key's range or
 * bucket.  A search without branches on the keys (a conditional move a
 * step), as every row of both sides takes one: the branches of a plain
 * binary search went wrong half the time.
 */
static inline int
count_at_or_below(const uint64 *split, int n, uint64 key)
{
	const uint64 *base = split;

	if (n <= 0)
		return 0;
	while (n > 1)
	{
		int			half = n / 2;

		base = base[half] <= key ? base + half : base;
		n -= half;
	}
	return (int) (base - split) + (base[0] <= key);
}

static int
cmp_key(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a,
				y = *(const uint64 *) b;

	return x < y ? -1 : x > y;
}

/*
 * The inner side outgrew the memory while this participant read it: the
 * spool's key buckets, split at quantiles of the keys it has sampled (the
 * first to get here sets them; the others use them), and from now on every
 * participant spools.  Keys in the order the table holds them make a
 * sample of one end of them, and a bucket that outgrows a range then has
 * the spool split again (split()).
 */
static void
start_spill(mp_join_inner *in)
{
	mp_join_shared *sh = in->sh;
	int			nb = sh->nbuckets,
				nsplit = 0;
	uint64	   *split = palloc(MAX_BUCKETS * sizeof(uint64));

	if (in->nsample > 0)
	{
		uint64	   *keys = palloc(in->nsample * sizeof(uint64));

		memcpy(keys, in->sample, in->nsample * sizeof(uint64));
		qsort(keys, in->nsample, sizeof(uint64), cmp_key);
		for (int b = 1; b < nb; b++)
		{
			uint64		k = keys[(int64) b * in->nsample / nb];

			if (nsplit == 0 || k > split[nsplit - 1])
				split[nsplit++] = k;
		}
		pfree(keys);
	}
	SpinLockAcquire(&sh->mutex);
	if (!sh->spilling)
	{
		memcpy(sh->bucket_split, split, nsplit * sizeof(uint64));
		sh->nsplit = nsplit;
		sh->spilling = true;
	}
	SpinLockRelease(&sh->mutex);
	pfree(split);
}

/* A new allocation of the DSA, put on the list at *head. */
static void *
shared_alloc(mp_join_inner *in, dsa_pointer *head, Size bytes, int64 n, int64 nnull,
			 dsa_pointer *dp)
{
	mp_join_shared *sh = in->sh;
	shared_link *link;
	bool		over = false;

	*dp = dsa_allocate_extended(in->area, bytes, DSA_ALLOC_HUGE);
	link = dsa_get_address(in->area, *dp);
	link->bytes = bytes;
	link->n = n;
	link->nnull = nnull;
	SpinLockAcquire(&sh->mutex);
	link->next = *head;
	*head = *dp;
	sh->bytes += bytes;
	sh->peak = Max(sh->peak, sh->bytes);
	if (in->reading_input)
	{
		/* the rows read so far counted; beyond the budget, the rest is spooled */
		sh->mem_rows += in->n + in->nnull - in->counted;
		in->counted = in->n + in->nnull;
		over = !sh->spilling && sh->bytes + (Size) sh->mem_rows * ROW_BYTES > sh->budget;
	}
	SpinLockRelease(&sh->mutex);
	if (over)
		start_spill(in);
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
		in->size = Max(in->sh->chunk_bytes, LINK_BYTES + len);
		in->chunk = shared_alloc(in, &in->side->chunks, in->size, 0, 0, &in->chunk_dp);
		in->used = LINK_BYTES;
	}
	at = in->chunk + in->used;
	in->used += len;
	return at;
}

/* The row at place, with its key (or a NULL key), in this participant's arrays. */
static void
add_row(mp_join_inner *in, uint64 key, bool isnull, dsa_pointer place)
{
	if (isnull)
	{
		if (in->nnull == in->null_room)
		{
			in->null_room = in->null_room == 0 ? 1024 : in->null_room * 2;
			in->null_rows = in->null_rows ?
				repalloc_huge(in->null_rows, in->null_room * sizeof(dsa_pointer)) :
				palloc_extended(in->null_room * sizeof(dsa_pointer), MCXT_ALLOC_HUGE);
		}
		in->null_rows[in->nnull++] = place;
		return;
	}
	if (in->n == in->room)
	{
		in->room = in->room == 0 ? 65536 : in->room * 2;
		in->keys = in->keys ? repalloc_huge(in->keys, in->room * sizeof(uint64)) :
			palloc_extended(in->room * sizeof(uint64), MCXT_ALLOC_HUGE);
		in->rows = in->rows ? repalloc_huge(in->rows, in->room * sizeof(dsa_pointer)) :
			palloc_extended(in->room * sizeof(dsa_pointer), MCXT_ALLOC_HUGE);
	}
	in->keys[in->n] = key;
	in->rows[in->n] = place;
	in->n++;
}

/* The key into this participant's reservoir sample of the inner keys. */
static void
sample_key(mp_join_inner *in, uint64 key)
{
	if (in->sample == NULL)
	{
		in->sample = palloc(SAMPLE_KEYS * sizeof(uint64));
		reservoir_init_selection_state(&in->reservoir, SAMPLE_KEYS);
	}
	if (in->nsample < SAMPLE_KEYS)
		in->sample[in->nsample++] = key;
	else
	{
		if (in->skip < 0)
			in->skip = reservoir_get_next_S(&in->reservoir, in->seen, SAMPLE_KEYS);
		if (in->skip <= 0)
			in->sample[(int) (SAMPLE_KEYS * sampler_random_fract(&in->reservoir.randstate))] = key;
		in->skip -= 1;
	}
	in->seen += 1;
}

/* This participant's view of the spool's buckets, once they are set (at its first call). */
static void
attach_spool(mp_join_inner *in)
{
	mp_join_shared *sh = in->sh;

	if (in->bucket_rows)
		return;
	/* the lock orders the reads of the split points after their writes */
	SpinLockAcquire(&sh->mutex);
	in->nsplit = sh->nsplit;
	SpinLockRelease(&sh->mutex);
	Assert(in->nsplit >= 0);
	in->bucket_split = sh->bucket_split;
	in->spool = palloc0(sh->nbuckets * sizeof(SharedTuplestoreAccessor *));
	in->bucket_rows = palloc0(sh->nbuckets * sizeof(int64));
	in->bucket_bytes = palloc0(sh->nbuckets * sizeof(Size));
}

/* Bucket b's tuplestore, attached at its first use. */
static SharedTuplestoreAccessor *
spool_accessor(mp_join_inner *in, int b)
{
	if (in->spool[b] == NULL)
		in->spool[b] = sts_attach(spool_store(in->sh, b), in->participant, &in->sh->fileset);
	return in->spool[b];
}

/*
 * A row into a tuplestore, its bytes counted as written to disk; meta NULL
 * for an outer range's, which carries none.
 */
static void
write_row(mp_join_inner *in, SharedTuplestoreAccessor *acc, const row_meta *meta, MinimalTuple t)
{
	static row_meta none;

	sts_puttuple(acc, (void *) (meta ? meta : &none), t);
	in->disk_bytes += t->t_len + (meta ? sizeof(row_meta) : 0);
}

/*
 * This participant's portion of the inner rows: into the shared memory
 * while it holds them, then to the spool.
 */
static void
read_rows(mp_join_inner *in, PlanState *input, mp_join_part_report *report)
{
	volatile bool *spilling = &in->sh->spilling;

	in->reading_input = true;
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(input);
		bool		isnull;
		Datum		d;
		MinimalTuple row;
		row_meta	meta;

		if (TupIsNull(slot))
			break;
		d = slot_getattr(slot, in->key_col, &isnull);
		if (isnull && !in->keep_nulls)
			continue;
		meta.isnull = isnull;
		meta.key = isnull ? 0 : mp_fold_key(in->kind, d);
		if (!isnull)
			sample_key(in, meta.key);
		if (*spilling)
		{
			bool		should_free;
			int			b;

			attach_spool(in);
			b = isnull ? 0 : count_at_or_below(in->bucket_split, in->nsplit, meta.key);
			row = ExecFetchSlotMinimalTuple(slot, &should_free);
			write_row(in, spool_accessor(in, b), &meta, row);
			in->bucket_rows[b]++;
			in->bucket_bytes[b] += row->t_len + sizeof(row_meta);
			in->spooled++;
			if (should_free)
				heap_free_minimal_tuple(row);
			continue;
		}
		row = mp_form_tuple(slot, room_in_chunk, in);
		add_row(in, meta.key, isnull, in->chunk_dp + ((char *) row - in->chunk));
	}
	in->reading_input = false;
	SpinLockAcquire(&in->sh->mutex);
	in->sh->mem_rows += in->n + in->nnull - in->counted;
	SpinLockRelease(&in->sh->mutex);
	in->counted = in->n + in->nnull;
	if (in->bucket_rows)
	{
		mp_join_shared *sh = in->sh;

		SpinLockAcquire(&sh->mutex);
		sh->spooled += in->spooled;
		sh->spooled_bytes += in->disk_bytes;
		for (int b = 0; b <= in->nsplit; b++)
		{
			sh->bucket_rows[b] += in->bucket_rows[b];
			sh->bucket_bytes[b] += in->bucket_bytes[b];
		}
		SpinLockRelease(&sh->mutex);
	}
	if (report)
	{
		report->inner_rows = in->n + in->nnull + in->spooled;
		report->spooled_rows = in->spooled;
		report->disk_bytes = in->disk_bytes;
	}
}

/* This participant's part of a key range's inner rows, from its tuplestore. */
static void
read_stored_rows(mp_join_inner *in, SharedTuplestoreAccessor *acc)
{
	MinimalTuple t;
	row_meta	meta;
	int64		count = 0;

	sts_begin_parallel_scan(acc);
	while ((t = sts_parallel_scan_next(acc, &meta)) != NULL)
	{
		char	   *row = room_in_chunk(in, t->t_len);

		memcpy(row, t, t->t_len);
		add_row(in, meta.key, meta.isnull, in->chunk_dp + (row - in->chunk));
		if (++count % WRITE_CHUNK == 0)
			CHECK_FOR_INTERRUPTS();
	}
	sts_end_parallel_scan(acc);
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

/* Forgets this participant's part: its arrays and its chunk. */
static void
forget_part(mp_join_inner *in)
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
	in->n = in->room = in->nnull = in->null_room = in->counted = 0;
	in->chunk = NULL;
}

/*
 * The participant's part, published for the one who merges them: its keys
 * (key_bytes each) and their rows' places, then the places of its rows with
 * a NULL key.  Sorted by key on its own (the participants sort their parts
 * side by side), unless sort is false: the whole inner side is going into
 * key ranges.
 */
static void
publish(mp_join_inner *in, bool sort, mp_join_part_report *report)
{
	double		t0 = mp_now_ms();
	dsa_pointer dp;
	char	   *part;
	Size		key_part = PART_KEY_BYTES(in->n, in->key_bytes);

	if (in->n + in->nnull > 0)
	{
		char	   *keys = palloc_extended(Max(in->n, 1) * in->key_bytes, MCXT_ALLOC_HUGE);

		part = shared_alloc(in, &in->side->parts,
							LINK_BYTES + key_part + (in->n + in->nnull) * sizeof(dsa_pointer),
							in->n, in->nnull, &dp);
		part += LINK_BYTES;
		if (in->key_bytes == 4)
			for (int64 i = 0; i < in->n; i++)
				((uint32 *) keys)[i] = (uint32) in->keys[i];
		else
			memcpy(keys, in->keys, in->n * sizeof(uint64));
		if (sort && in->n > 0)
		{
			uint32	   *perm = palloc_extended(in->n * sizeof(uint32), MCXT_ALLOC_HUGE);

			if (order_keys(in, keys, in->n, NULL, 0, perm) && report)
				report->any_gpu = true;
			mp_cpu_gather(part, keys, in->key_bytes, perm, in->n, mp_cpu_threads_now());
			mp_cpu_gather(part + key_part, in->rows, sizeof(dsa_pointer), perm, in->n,
						  mp_cpu_threads_now());
			pfree(perm);
		}
		else
		{
			memcpy(part, keys, in->n * in->key_bytes);
			memcpy(part + key_part, in->rows, in->n * sizeof(dsa_pointer));
		}
		pfree(keys);
		memcpy(part + key_part + in->n * sizeof(dsa_pointer), in->null_rows,
			   in->nnull * sizeof(dsa_pointer));
	}
	forget_part(in);
	if (report)
		report->sort_ms += mp_now_ms() - t0;
}

/* This participant's sample of the inner keys, for the one who splits. */
static void
publish_sample(mp_join_inner *in)
{
	dsa_pointer dp;
	char	   *at;

	if (in->nsample > 0)
	{
		at = shared_alloc(in, &in->sh->samples, LINK_BYTES + in->nsample * sizeof(uint64),
						  in->nsample, (int64) in->seen, &dp);
		memcpy(at + LINK_BYTES, in->sample, in->nsample * sizeof(uint64));
	}
	if (in->sample)
		pfree(in->sample);
	in->sample = NULL;
}

/* The sign bit of a key_bytes-wide key: the sorted search's keys are signed. */
static inline uint64
sign_bit(int key_bytes)
{
	return key_bytes == 4 ? UINT64CONST(0x80000000) : UINT64CONST(0x8000000000000000);
}

/*
 * The elected participant's part of the merge of the participants' sorted
 * parts: the rows counted, the arrays in key order allocated, the places of
 * the rows with a NULL key put after the others.  Where the settings choose
 * the GPU for this many keys, it merges them all here (a k-way merge on the
 * device, then the keys and places gathered into key order); else the merge
 * is cut into slices that every participant takes from a counter
 * (merge_slices), each merged straight from the parts into the shared
 * arrays.
 */
static void
merge_prepare(mp_join_inner *in, mp_join_part_report *report)
{
	mp_join_shared *sh = in->sh;
	mp_shared_side *side = in->side;
	double		t0 = mp_now_ms();
	int64		n = 0,
				nnull = 0,
				k = 0,
				null_at = 0;
	dsa_pointer dp;
	dsa_pointer *sorted_rows;
	bool		gpu = false;

	for (dp = side->parts; DsaPointerIsValid(dp);)
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
				 errmsg("MergepathJoin cannot hold " INT64_FORMAT " inner rows of one key range in parallel", n),
				 errhint("Set max_parallel_workers_per_gather to 0 for this query.")));
	side->nkeyed = n;
	side->nnull = nnull;
	side->nparts = k;
	side->nslices = 0;
	if (n + nnull == 0)
		return;

	side->sorted_rows = dsa_allocate_extended(in->area, (n + nnull) * sizeof(dsa_pointer),
											  DSA_ALLOC_HUGE);
	count_bytes(sh, (n + nnull) * sizeof(dsa_pointer), 0);
	sorted_rows = dsa_get_address(in->area, side->sorted_rows);
	for (dp = side->parts; DsaPointerIsValid(dp);)
	{
		shared_link *link = dsa_get_address(in->area, dp);
		const char *pk = (const char *) link + LINK_BYTES;
		const dsa_pointer *places = (const dsa_pointer *)
			(pk + PART_KEY_BYTES(link->n, in->key_bytes));

		memcpy(sorted_rows + n + null_at, places + link->n, link->nnull * sizeof(dsa_pointer));
		null_at += link->nnull;
		dp = link->next;
	}
	if (in->keep_nulls && n > 0)
	{
		side->matched = dsa_allocate_extended(in->area, n, DSA_ALLOC_HUGE | DSA_ALLOC_ZERO);
		count_bytes(sh, n, 0);
	}
	if (n > 0)
	{
		side->sorted_keys = dsa_allocate_extended(in->area, n * in->key_bytes, DSA_ALLOC_HUGE);
		count_bytes(sh, n * in->key_bytes, 0);
		gpu = mp_gpu_chosen(MP_OP_JOIN_PART, n, NULL, 0);
	}
	if (gpu)
	{
		/* the parts' keys and places one after the other (the runs) */
		char	   *keys = palloc_extended(n * in->key_bytes, MCXT_ALLOC_HUGE);
		dsa_pointer *rows = palloc_extended(n * sizeof(dsa_pointer), MCXT_ALLOC_HUGE);
		int64	   *bounds = palloc((k + 1) * sizeof(int64));
		uint32	   *perm = palloc_extended(n * sizeof(uint32), MCXT_ALLOC_HUGE);
		int64		r = 0;

		bounds[0] = 0;
		for (dp = side->parts; DsaPointerIsValid(dp);)
		{
			shared_link *link = dsa_get_address(in->area, dp);
			const char *pk = (const char *) link + LINK_BYTES;

			if (link->n > 0)
			{
				memcpy(keys + bounds[r] * in->key_bytes, pk, link->n * in->key_bytes);
				memcpy(rows + bounds[r], pk + PART_KEY_BYTES(link->n, in->key_bytes),
					   link->n * sizeof(dsa_pointer));
				bounds[r + 1] = bounds[r] + link->n;
				r++;
			}
			dp = link->next;
		}
		free_list(sh, in->area, &side->parts);
		gpu = side->sorted_on_gpu = order_keys(in, keys, n, bounds, k, perm);

		/* in key order: the keys signed, and the places */
		mp_cpu_gather(dsa_get_address(in->area, side->sorted_keys), keys, in->key_bytes, perm,
					  n, mp_cpu_threads_now());
		mp_cpu_gather(sorted_rows, rows, sizeof(dsa_pointer), perm, n, mp_cpu_threads_now());
		if (in->key_bytes == 4)
		{
			uint32	   *out = dsa_get_address(in->area, side->sorted_keys);

			for (int64 i = 0; i < n; i++)
				out[i] ^= (uint32) sign_bit(4);
		}
		else
		{
			uint64	   *out = dsa_get_address(in->area, side->sorted_keys);

			for (int64 i = 0; i < n; i++)
				out[i] ^= sign_bit(8);
		}
		pfree(perm);
		pfree(bounds);
		pfree(keys);
		pfree(rows);
	}
	else if (n > 0)
	{
		side->sorted_on_gpu = false;
		side->slice_rows = Max(MERGE_SLICE_MIN, n / (8 * (sh->nworkers + 1)));
		side->nslices = (n + side->slice_rows - 1) / side->slice_rows;
		pg_atomic_write_u64(&side->next_slice, 0);
	}
	if (report)
	{
		report->merge_ms += mp_now_ms() - t0;
		report->sorted_here = true;
		report->sort_gpu |= gpu;
	}
}

/*
 * This participant's share of the merge of the sorted parts on the CPU:
 * slices of the merge taken from the side's counter until none is left,
 * each merged from the parts (each finding its own cuts of them) into its
 * places of the keys (signed) and rows in key order, on this participant's
 * share of the CPU backend's threads.
 */
static void
merge_slices(mp_join_inner *in, mp_join_part_report *report)
{
	mp_shared_side *side = in->side;
	double		t0 = mp_now_ms();
	int64		k = side->nparts,
				n = side->nkeyed,
				r = 0,
				done = 0;
	const void **keys;
	const uint64 **places;
	int64	   *len;
	char	   *out_keys;
	uint64	   *out_rows;

	StaticAssertStmt(sizeof(dsa_pointer) == sizeof(uint64),
					 "the rows' places travel as 64-bit payloads");
	if (side->nslices == 0)
		return;
	keys = palloc(k * sizeof(void *));
	places = palloc(k * sizeof(uint64 *));
	len = palloc(k * sizeof(int64));
	for (dsa_pointer dp = side->parts; DsaPointerIsValid(dp);)
	{
		shared_link *link = dsa_get_address(in->area, dp);
		const char *pk = (const char *) link + LINK_BYTES;

		if (link->n > 0)
		{
			keys[r] = pk;
			places[r] = (const uint64 *) (pk + PART_KEY_BYTES(link->n, in->key_bytes));
			len[r] = link->n;
			r++;
		}
		dp = link->next;
	}
	Assert(r == k);
	out_keys = dsa_get_address(in->area, side->sorted_keys);
	out_rows = dsa_get_address(in->area, side->sorted_rows);
	for (;;)
	{
		uint64		s = pg_atomic_fetch_add_u64(&side->next_slice, 1);
		int64		lo,
					hi;

		if (s >= (uint64) side->nslices)
			break;
		CHECK_FOR_INTERRUPTS();
		lo = (int64) s * side->slice_rows;
		hi = Min(lo + side->slice_rows, n);
		if (mp_cpu_merge_keyed_part(in->key_bytes, k, keys, places, len, lo, hi,
									sign_bit(in->key_bytes), out_keys + lo * in->key_bytes,
									out_rows + lo) != MP_OK)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory"),
					 errdetail("MergepathJoin: the merge of the inner side's sorted parts could not allocate its working memory.")));
		done++;
	}
	pfree(keys);
	pfree(places);
	pfree(len);
	if (report)
	{
		report->merge_ms += mp_now_ms() - t0;
		report->merged_slices += done;
	}
}

/* A sample's key and the rows it stands for. */
typedef struct weighted_key
{
	uint64		key;
	double		weight;
} weighted_key;

static int
cmp_weighted(const void *a, const void *b)
{
	return cmp_key(&((const weighted_key *) a)->key, &((const weighted_key *) b)->key);
}

/*
 * The key ranges from the spool's buckets: consecutive buckets, each
 * range's inner rows (those in memory and the spooled ones) about half the
 * memory at most.  False if a bucket alone is more than that: its range
 * would outgrow the memory.  Fills splitters (nranges - 1 of them).
 */
static bool
ranges_of_buckets(mp_join_inner *in, uint64 *splitters, int *nranges)
{
	mp_join_shared *sh = in->sh;
	int			nb = sh->nsplit + 1,
				r = 0;
	int64	   *mem_rows = palloc0(nb * sizeof(int64));
	double		per_row = sh->mem_rows > 0 ? (double) sh->bytes / sh->mem_rows : 0,
				half = sh->budget / 2.0,
				acc = 0;
	bool		fits = true;

	/* the rows in memory counted by bucket */
	for (dsa_pointer dp = sh->whole.parts; DsaPointerIsValid(dp);)
	{
		shared_link *link = dsa_get_address(in->area, dp);
		const char *keys = (const char *) link + LINK_BYTES;

		for (int64 k = 0; k < link->n; k++)
			mem_rows[count_at_or_below(sh->bucket_split, sh->nsplit,
									   in->key_bytes == 4 ? ((const uint32 *) keys)[k] :
									   ((const uint64 *) keys)[k])]++;
		mem_rows[0] += link->nnull;
		dp = link->next;
	}
	for (int b = 0; b < nb && fits; b++)
	{
		double		need = sh->bucket_bytes[b] + (double) sh->bucket_rows[b] * ROW_BYTES +
			mem_rows[b] * (per_row + ROW_BYTES);

		fits = need <= half;
		if (b > 0 && acc + need > half)
		{
			splitters[r++] = sh->bucket_split[b - 1];
			sh->first_bucket[r] = b;
			acc = 0;
		}
		acc += need;
	}
	pfree(mem_rows);
	sh->first_bucket[0] = 0;
	sh->first_bucket[r + 1] = nb;
	*nranges = r + 1;
	return fits;
}

/*
 * The key ranges' split points from quantiles of the participants' samples
 * weighted by the rows each read, so that each range's inner rows take
 * about half the memory.  Fills splitters (at most MAX_RANGES - 1).
 */
static void
ranges_of_samples(mp_join_inner *in, uint64 *splitters, int *nranges)
{
	mp_join_shared *sh = in->sh;
	int64		total = 0;
	weighted_key *all;
	double		weight = 0,
				need,
				step,
				cum = 0;
	int			want,
				nsplit = 0;
	dsa_pointer dp;

	for (dp = sh->samples; DsaPointerIsValid(dp);)
	{
		shared_link *link = dsa_get_address(in->area, dp);

		total += link->n;
		dp = link->next;
	}
	all = palloc(Max(total, 1) * sizeof(weighted_key));
	total = 0;
	for (dp = sh->samples; DsaPointerIsValid(dp);)
	{
		shared_link *link = dsa_get_address(in->area, dp);
		const uint64 *keys = (const uint64 *) ((char *) link + LINK_BYTES);

		for (int64 i = 0; i < link->n; i++)
		{
			all[total].key = keys[i];
			all[total].weight = (double) link->nnull / link->n;
			weight += all[total].weight;
			total++;
		}
		dp = link->next;
	}

	/* the whole inner side's need: the chunks' tuples and the spooled ones */
	need = (double) sh->bytes + sh->spooled_bytes +
		(double) (sh->mem_rows + sh->spooled) * ROW_BYTES;
	want = (int) Min(Max(ceil(need / (sh->budget / 2.0)), 2.0), (double) MAX_RANGES);
	qsort(all, total, sizeof(weighted_key), cmp_weighted);
	step = weight / want;
	for (int64 i = 0; i < total && nsplit < want - 1; i++)
	{
		/* a split point where the weight crosses the next multiple of step */
		if (cum >= step * (nsplit + 1) && (nsplit == 0 || all[i].key > splitters[nsplit - 1]))
			splitters[nsplit++] = all[i].key;
		cum += all[i].weight;
	}
	pfree(all);
	*nranges = nsplit + 1;
}

/*
 * The elected participant's part when the inner side outgrew the memory:
 * the key ranges, as whole buckets of the spool where they fit (the spooled
 * rows stay where they are), else from the samples (the spool is split into
 * them again); then the ranges' tuplestores.
 */
static void
split(mp_join_inner *in)
{
	mp_join_shared *sh = in->sh;
	uint64	   *splitters = palloc(Max(MAX_RANGES, MAX_BUCKETS) * sizeof(uint64));
	int			nranges;

	if (sh->nsplit < 0 || !ranges_of_buckets(in, splitters, &nranges))
	{
		ranges_of_samples(in, splitters, &nranges);
		sh->respill = true;
	}
	free_list(sh, in->area, &sh->samples);

	sh->nranges = nranges;
	sh->splitters = dsa_allocate(in->area, Max(nranges - 1, 1) * sizeof(uint64));
	memcpy(dsa_get_address(in->area, sh->splitters), splitters, (nranges - 1) * sizeof(uint64));
	pfree(splitters);
	sh->ranges = dsa_allocate_extended(in->area, sh->nranges * range_bytes(sh), DSA_ALLOC_HUGE);
	in->range_inner = palloc(sh->nranges * sizeof(SharedTuplestoreAccessor *));
	in->range_outer = palloc(sh->nranges * sizeof(SharedTuplestoreAccessor *));
	for (int r = 0; r < sh->nranges; r++)
	{
		char		name[32];

		init_side(range_side(sh, in->area, r));
		snprintf(name, sizeof(name), "mpjoin.%d.i", r);
		in->range_inner[r] = sts_initialize(range_store(sh, in->area, r, false), participants(sh),
											in->participant, sizeof(row_meta),
											SHARED_TUPLESTORE_SINGLE_PASS, &sh->fileset, name);
		snprintf(name, sizeof(name), "mpjoin.%d.o", r);
		in->range_outer[r] = sts_initialize(range_store(sh, in->area, r, true), participants(sh),
											in->participant, 0,
											SHARED_TUPLESTORE_SINGLE_PASS, &sh->fileset, name);
	}
	/* the parts in memory, to be written out by whoever claims each */
	sh->claim = sh->whole.parts;
}

/* This participant's view of the key ranges, once they are set up. */
static void
attach_ranges(mp_join_inner *in)
{
	mp_join_shared *sh = in->sh;

	in->nranges = sh->nranges;
	in->splitters = dsa_get_address(in->area, sh->splitters);
	in->range_done = palloc0(in->nranges * sizeof(bool));
	if (in->range_inner)
		return;					/* it set them up */
	in->range_inner = palloc(in->nranges * sizeof(SharedTuplestoreAccessor *));
	in->range_outer = palloc(in->nranges * sizeof(SharedTuplestoreAccessor *));
	for (int r = 0; r < in->nranges; r++)
	{
		in->range_inner[r] = sts_attach(range_store(sh, in->area, r, false), in->participant,
										&sh->fileset);
		in->range_outer[r] = sts_attach(range_store(sh, in->area, r, true), in->participant,
										&sh->fileset);
	}
}

/* The key range of a key. */
static inline int
range_of(const mp_join_inner *in, uint64 key)
{
	return count_at_or_below(in->splitters, in->nranges - 1, key);
}

/*
 * This participant's part of writing the inner rows in memory out: the
 * parts it claims, to the spool's buckets where they make the ranges, else
 * to the ranges; then its writes to the spool are done.
 */
static void
split_inner(mp_join_inner *in)
{
	mp_join_shared *sh = in->sh;
	row_meta	meta;
	int64		count = 0;

	attach_spool(in);
	for (;;)
	{
		dsa_pointer dp;
		shared_link *link;
		const char *keys;
		const dsa_pointer *places;

		SpinLockAcquire(&sh->mutex);
		dp = sh->claim;
		if (DsaPointerIsValid(dp))
			sh->claim = ((shared_link *) dsa_get_address(in->area, dp))->next;
		SpinLockRelease(&sh->mutex);
		if (!DsaPointerIsValid(dp))
			break;
		link = dsa_get_address(in->area, dp);
		keys = (const char *) link + LINK_BYTES;
		places = (const dsa_pointer *) (keys + PART_KEY_BYTES(link->n, in->key_bytes));
		for (int64 i = 0; i < link->n + link->nnull; i++)
		{
			SharedTuplestoreAccessor *to;

			meta.isnull = i >= link->n;
			meta.key = meta.isnull ? 0 : in->key_bytes == 4 ? ((const uint32 *) keys)[i] :
				((const uint64 *) keys)[i];
			if (sh->respill)
				to = in->range_inner[meta.isnull ? 0 : range_of(in, meta.key)];
			else
				to = spool_accessor(in, meta.isnull ? 0 :
									count_at_or_below(in->bucket_split, in->nsplit, meta.key));
			write_row(in, to, &meta, dsa_get_address(in->area, places[i]));
			if (++count % WRITE_CHUNK == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	for (int b = 0; b <= in->nsplit; b++)
		if (in->spool[b])
			sts_end_write(in->spool[b]);
}

/*
 * Where a bucket of the spool outgrew a range: this participant's share of
 * the spool split into the ranges.  Then its writes to the ranges' inner
 * rows are done.
 */
static void
respill(mp_join_inner *in)
{
	MinimalTuple t;
	row_meta	meta;
	int64		count = 0;

	if (in->sh->respill)
		for (int b = 0; b <= in->nsplit; b++)
		{
			SharedTuplestoreAccessor *acc = spool_accessor(in, b);

			sts_begin_parallel_scan(acc);
			while ((t = sts_parallel_scan_next(acc, &meta)) != NULL)
			{
				write_row(in, in->range_inner[meta.isnull ? 0 : range_of(in, meta.key)], &meta, t);
				if (++count % WRITE_CHUNK == 0)
					CHECK_FOR_INTERRUPTS();
			}
			sts_end_parallel_scan(acc);
		}
	for (int r = 0; r < in->nranges; r++)
		sts_end_write(in->range_inner[r]);
}

/* This participant's outer rows written out to the ranges. */
static void
split_outer(mp_join_inner *in, PlanState *outer)
{
	int64		count = 0;

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(outer);
		bool		isnull,
					should_free;
		Datum		d;
		MinimalTuple row;

		if (TupIsNull(slot))
			break;
		d = slot_getattr(slot, in->outer_key_col, &isnull);
		if (isnull && !in->outer_keep_nulls)
			continue;
		row = ExecFetchSlotMinimalTuple(slot, &should_free);
		write_row(in, in->range_outer[isnull ? 0 : range_of(in, mp_fold_key(in->kind, d))],
				  NULL, row);
		if (should_free)
			heap_free_minimal_tuple(row);
		if (++count % WRITE_CHUNK == 0)
			CHECK_FOR_INTERRUPTS();
	}
	for (int r = 0; r < in->nranges; r++)
		sts_end_write(in->range_outer[r]);
}

/* The side's sorted keys and rows, to search and probe. */
static void
use_side(mp_join_inner *in, mp_join_part_report *report)
{
	mp_shared_side *side = in->side;

	in->nkeyed = side->nkeyed;
	in->nrows = side->nkeyed + side->nnull;
	in->sorted_on_gpu = side->sorted_on_gpu;
	in->sorted_keys = in->nkeyed > 0 ? dsa_get_address(in->area, side->sorted_keys) : NULL;
	in->sorted_rows = in->nrows > 0 ? dsa_get_address(in->area, side->sorted_rows) : NULL;
	in->matched = DsaPointerIsValid(side->matched) ?
		dsa_get_address(in->area, side->matched) : NULL;
	if (report)
	{
		report->shared_parts = Max(report->shared_parts, side->nparts);
		report->shared_peak = in->sh->peak;
		report->shared_bytes = in->sh->bytes;
	}
}

/*
 * The shared inner side, built with the others (or found built): on return
 * the sorted keys and rows are there to search, or (in->ranged) both sides
 * are written out in key ranges, to be joined with mp_join_next_range.
 */
void
mp_join_inner_build(mp_join_inner *in, PlanState *inner, PlanState *outer,
					mp_join_part_report *report)
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

	in->side = &sh->whole;
	phase = BarrierAttach(&sh->build);
	if (phase == BUILD_READ)
	{
		read_rows(in, inner, report);
		publish(in, !sh->spilling, report);
		publish_sample(in);
		if (BarrierArriveAndWait(&sh->build, PG_WAIT_EXTENSION))
		{
			if (sh->spilling)
				split(in);
			else
			{
				free_list(sh, in->area, &sh->samples);
				merge_prepare(in, report);
			}
		}
		phase = BUILD_DECIDE;
	}
	if (phase == BUILD_DECIDE)
	{
		BarrierArriveAndWait(&sh->build, PG_WAIT_EXTENSION);
		phase = BUILD_DECIDE + 1;	/* BUILD_MERGE, or BUILD_SPLIT_INNER */
	}
	if (in->sample)
		pfree(in->sample);
	in->sample = NULL;

	if (sh->nranges > 0)
	{
		double		t0 = mp_now_ms();

		attach_ranges(in);
		if (phase == BUILD_SPLIT_INNER)
		{
			split_inner(in);
			if (BarrierArriveAndWait(&sh->build, PG_WAIT_EXTENSION))
				free_side(sh, in->area, &sh->whole, in->key_bytes);
			phase = BUILD_RESPILL;
		}
		if (phase == BUILD_RESPILL)
		{
			attach_spool(in);
			respill(in);
			/* the spool, split into the ranges, read by everyone */
			if (BarrierArriveAndWait(&sh->build, PG_WAIT_EXTENSION) && sh->respill)
				remove_spool_files(sh, 0, sh->nsplit + 1);
			phase = BUILD_SPLIT_OUTER;
		}
		if (phase == BUILD_SPLIT_OUTER)
		{
			split_outer(in, outer);
			BarrierArriveAndWait(&sh->build, PG_WAIT_EXTENSION);
		}
		BarrierDetach(&sh->build);
		in->ranged = true;
		in->built = true;
		in->side = NULL;
		if (report)
		{
			report->nranges = in->nranges;
			report->budget = sh->budget;
			report->buckets = sh->nsplit + 1;
			report->respilled = sh->respill;
			report->shared_rows = sh->mem_rows + sh->spooled;
			report->disk_bytes = in->disk_bytes;
			report->split_ms = mp_now_ms() - t0;
		}
		return;
	}

	if (phase == BUILD_MERGE)
	{
		merge_slices(in, report);
		if (BarrierArriveAndWait(&sh->build, PG_WAIT_EXTENSION))
			free_list(sh, in->area, &sh->whole.parts);
		phase = BUILD_DONE;
	}
	BarrierDetach(&sh->build);
	use_side(in, report);
	if (report)
		report->shared_rows = in->nrows;
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

/*
 * The next key range not yet joined: built with the other participants
 * that come to it (or found built), its outer rows' scan begun.  False
 * when every range is done.
 */
bool
mp_join_next_range(mp_join_inner *in, mp_join_part_report *report)
{
	mp_join_shared *sh = in->sh;

	for (int r = 0; r < in->nranges; r++)
	{
		mp_shared_side *side;
		int			phase;

		if (in->range_done[r])
			continue;
		side = range_side(sh, in->area, r);
		phase = BarrierAttach(&side->barrier);
		if (phase >= RANGE_DONE)
		{
			BarrierDetach(&side->barrier);
			in->range_done[r] = true;
			continue;
		}
		in->side = side;
		in->cur = r;
		if (phase == RANGE_LOAD)
		{
			if (sh->respill)
				read_stored_rows(in, in->range_inner[r]);
			else
			{
				/* the range's buckets of the spool */
				attach_spool(in);
				for (int b = sh->first_bucket[r]; b < sh->first_bucket[r + 1]; b++)
					read_stored_rows(in, spool_accessor(in, b));
			}
			publish(in, true, report);
			if (BarrierArriveAndWait(&side->barrier, PG_WAIT_EXTENSION))
			{
				/* the range's inner rows, read by everyone who takes part */
				if (sh->respill)
					remove_range_files(sh, r, false);
				else
					remove_spool_files(sh, sh->first_bucket[r], sh->first_bucket[r + 1]);
				merge_prepare(in, report);
			}
			phase = RANGE_MERGE;
		}
		if (phase == RANGE_MERGE)
		{
			BarrierArriveAndWait(&side->barrier, PG_WAIT_EXTENSION);
			phase = RANGE_SLICES;
		}
		if (phase == RANGE_SLICES)
		{
			merge_slices(in, report);
			if (BarrierArriveAndWait(&side->barrier, PG_WAIT_EXTENSION))
				free_list(sh, in->area, &side->parts);
		}
		use_side(in, report);
		sts_begin_parallel_scan(in->range_outer[r]);
		if (report)
			report->ranges++;
		return true;
	}
	/* every range joined: a RIGHT or FULL join's participant leaves the probe */
	(void) mp_join_inner_probe_done(in);
	return false;
}

/* The range's next outer row, or NULL when they are all read. */
MinimalTuple
mp_join_range_outer_row(mp_join_inner *in)
{
	if (in->cur < 0)
		return NULL;
	return sts_parallel_scan_next(in->range_outer[in->cur], NULL);
}

/*
 * This participant is done with the range's outer rows and leaves it: true
 * for the last to leave a RIGHT or FULL join's range, which is to return
 * its unmatched inner rows and then free it (mp_join_range_free); the last
 * to leave another range frees it.
 */
bool
mp_join_range_done(mp_join_inner *in)
{
	int			r = in->cur;

	if (r < 0)
		return false;
	sts_end_parallel_scan(in->range_outer[r]);
	in->range_done[r] = true;
	in->cur = -1;
	if (!BarrierArriveAndDetach(&in->side->barrier))
	{
		in->side = NULL;
		return false;
	}
	remove_range_files(in->sh, r, true);
	if (in->keep_nulls && in->nrows > 0)
		return true;
	mp_join_range_free(in);
	return false;
}

void
mp_join_range_free(mp_join_inner *in)
{
	if (in->side)
		free_side(in->sh, in->area, in->side, in->key_bytes);
	in->side = NULL;
	in->sorted_keys = NULL;
	in->sorted_rows = NULL;
	in->matched = NULL;
	in->nkeyed = in->nrows = 0;
}

/* Forgets the pointers into the shared memory and the files (before a rescan). */
void
mp_join_inner_forget(mp_join_inner *in)
{
	forget_part(in);
	if (in->cur >= 0 && in->range_outer)
		sts_end_parallel_scan(in->range_outer[in->cur]);
	if (in->bucket_rows)
		for (int b = 0; b <= in->nsplit; b++)
			if (in->spool[b])
				sts_end_parallel_scan(in->spool[b]);
	if (in->sample)
		pfree(in->sample);
	in->sample = NULL;
	in->spool = NULL;
	in->bucket_rows = NULL;
	in->bucket_bytes = NULL;
	in->bucket_split = NULL;
	in->nsplit = 0;
	in->range_inner = in->range_outer = NULL;
	in->range_done = NULL;
	in->ranged = false;
	in->nranges = 0;
	in->cur = -1;
	in->side = NULL;
	in->sorted_keys = NULL;
	in->sorted_rows = NULL;
	in->matched = NULL;
	in->nkeyed = in->nrows = 0;
	in->built = false;
}
