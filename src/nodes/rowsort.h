/*
 * rowsort.h
 *		The executor nodes' row sort (rowsort.c): rows put in, taken back in
 *		key order, in memory or through runs on disk, as PostgreSQL's
 *		tuplesort does for its Sort node.
 */
#ifndef MP_ROWSORT_H
#define MP_ROWSORT_H

#include "postgres.h"

#include "access/attnum.h"
#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "storage/sharedfileset.h"

#include "../run/mp_run.h"

typedef struct mp_rowsort mp_rowsort;

/* One sort key: a column of a type mp_key_kind_of folds. */
typedef struct mp_rowsort_key
{
	AttrNumber	attno;
	bool		desc;
	bool		nulls_first;
} mp_rowsort_key;

/* How the sort went, for EXPLAIN ANALYZE. */
typedef enum mp_rowsort_method
{
	MP_ROWSORT_NONE,			/* not sorted yet */
	MP_ROWSORT_MEMORY,			/* one sort of all rows in memory */
	MP_ROWSORT_EXTERNAL,		/* sorted runs on disk, merged */
	MP_ROWSORT_DEVICE,			/* the rows beyond memory kept on the GPU, sorted there */
	MP_ROWSORT_HANDED			/* a worker's rows handed to the leader's GPU store */
} mp_rowsort_method;

typedef struct mp_rowsort_stats
{
	mp_rowsort_method method;
	int64		space_kb;		/* peak memory, disk for an external merge, device
								 * memory for an external sort on the GPU */
	int64		memory_kb;		/* peak memory (both methods) */
	int			runs;			/* runs written to disk, or batches shipped to the GPU */
	int			passes;			/* merge passes, the final one included */
	bool		used_gpu;		/* some sort or merge ran on the GPU */
	bool		used_cpu;		/* some ran on the CPU */
	bool		key_rows;		/* the rows were held as their keys alone */
	int			handed_runs;	/* a worker's: runs handed to the leader to merge */
	int			taken_runs;		/* the leader's: runs the workers handed in (or the
								 * spills of the rows they handed in) */
	int64		taken_rows;		/* the leader's: rows the workers handed in */
	char		note[320];		/* why the last one did not use the GPU */
	mp_gpu_timing gpu;			/* summed over the GPU's runs */
	double		keys_ms;		/* folding keys */
	double		sort_ms;		/* sorting rows (every run) */
	double		write_ms;		/* writing runs */
	double		merge_ms;		/* merging runs (passes, and the final merge so far) */
	double		spill_ms;		/* of the above, while rows were put in (runs made as
								 * the input is read) */
} mp_rowsort_stats;

/*
 * A sort of rows of desc by keys in the memory limit (bytes), beyond which
 * it writes runs to temporary files.  random_access: rescans, backward
 * fetches, mark and restore.  est_rows and est_width: the planner's
 * estimates of the rows (the first arrays' size).  Its memory is a child of
 * the current context.
 */
extern mp_rowsort *mp_rowsort_begin(const char *fname, TupleDesc desc, int nkeys,
									const mp_rowsort_key *keys, Size limit,
									bool random_access, double est_rows, int est_width);
extern void mp_rowsort_put(mp_rowsort *rs, TupleTableSlot *slot);
extern void mp_rowsort_perform(mp_rowsort *rs);

/*
 * A parallel sort whose leader merges all runs: a worker (participant >= 0)
 * writes its runs to files of the shared set and, its input read, merges
 * them into one and hands it in (the runs handed, or -1 where it kept its
 * rows in memory: then it performs and returns its rows itself); the
 * leader (-1) merges its own into one the same way (mp_rowsort_hand_in)
 * and takes each worker's run before it performs.  to_store (the same in
 * every participant, as mp_rowsort_store_chosen told the leader): the
 * leader sorts all rows in its GPU store instead; a worker writes its rows
 * unsorted to a shared file and hands them all in (1, or 0 where it had
 * none), and the leader appends them to its store.
 */
extern void mp_rowsort_share(mp_rowsort *rs, SharedFileSet *fileset, int participant,
							 bool to_store);
extern bool mp_rowsort_store_chosen(double rows);
extern int	mp_rowsort_hand_in(mp_rowsort *rs);
extern void mp_rowsort_take_runs(mp_rowsort *rs, int participant);

/* The next row in key order into slot (which is cleared at either end). */
extern bool mp_rowsort_get(mp_rowsort *rs, bool forward, TupleTableSlot *slot);
extern void mp_rowsort_rescan(mp_rowsort *rs);
extern void mp_rowsort_mark(mp_rowsort *rs);
extern void mp_rowsort_restore(mp_rowsort *rs);
extern void mp_rowsort_get_stats(mp_rowsort *rs, mp_rowsort_stats *stats);

/* Frees it all, temporary files included. */
extern void mp_rowsort_end(mp_rowsort *rs);

extern const char *mp_rowsort_method_name(mp_rowsort_method method);

#endif							/* MP_ROWSORT_H */
