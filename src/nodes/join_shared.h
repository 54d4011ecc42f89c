/*
 * join_shared.h
 *		The inner side of a parallel MergepathJoin, read by every participant
 *		into the query's shared memory and sorted once, or, when it outgrows
 *		the memory, both sides split into key ranges on temporary files and
 *		joined a range at a time (join_shared.c).
 */
#ifndef JOIN_SHARED_H
#define JOIN_SHARED_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "storage/dsm.h"
#include "utils/dsa.h"
#include "utils/sampling.h"
#include "utils/sharedtuplestore.h"

#include "../run/mp_run.h"
#include "mp_nodes.h"

/* What a participant did, for EXPLAIN ANALYZE's per-worker lines. */
typedef struct mp_join_part_report
{
	bool		ran;
	bool		sorted_here;	/* it was the one to set up the merge of the sorted parts */
	bool		sort_gpu;		/* ... on the GPU */
	bool		any_gpu;		/* its batches ran on the GPU, some of them */
	int64		inner_rows;		/* inner rows it read into shared memory */
	int64		shared_rows;	/* inner rows with a key, all participants' */
	int64		outer_rows;		/* outer rows it joined */
	int			batches;
	int64		rejected;		/* pairs the other join clauses rejected */
	double		inner_ms;		/* reading the inner side, waiting for the others */
	int64		shared_parts;	/* the sorted parts merged into it */
	Size		shared_bytes;	/* the shared side's memory once built, and at most */
	Size		shared_peak;
	double		sort_ms;		/* the sort of its own part of the inner side */
	double		merge_ms;		/* its part in the merge of the sorted parts */
	int64		merged_slices;	/* slices of that merge it took (on the CPU) */
	double		outer_ms;		/* reading its outer rows */
	double		match_ms;		/* its batches' sorts and searches */
	double		order_ms;		/* putting its batches' rows in key order */
	Size		peak_bytes;

	/* when the inner side outgrew the memory: key ranges */
	int			nranges;		/* key ranges in all */
	int			ranges;			/* those it joined */
	int64		spooled_rows;	/* inner rows it wrote out beyond the memory */
	Size		disk_bytes;		/* bytes it wrote to temporary files */
	Size		budget;			/* the memory the inner side outgrew */
	int			buckets;		/* the spool's key buckets */
	bool		respilled;		/* ... split into the ranges again (a bucket outgrew one) */
	double		split_ms;		/* its part of splitting both sides into ranges */
} mp_join_part_report;

/* In the DSM segment, with a report for the leader and each worker. */
typedef struct mp_join_shared mp_join_shared;

extern Size mp_join_shared_size(int nworkers, int nbuckets);
extern int	mp_join_spool_buckets(double rows, int width, Size budget);
extern void mp_join_shared_init(mp_join_shared *sh, int nworkers, Size budget, int nbuckets,
								dsm_segment *seg);
extern void mp_join_shared_attach_worker(mp_join_shared *sh);
extern void mp_join_shared_reset(mp_join_shared *sh, dsa_area *area);

/* One sorted inner side: the whole inner side, or a key range's rows. */
typedef struct mp_shared_side mp_shared_side;

/* A participant's view of it. */
typedef struct mp_join_inner
{
	mp_join_shared *sh;
	dsa_area   *area;
	mp_key_kind kind;
	int			key_bytes;
	AttrNumber	key_col;
	bool		keep_nulls;		/* RIGHT, FULL: unmatched inner rows are returned */
	AttrNumber	outer_key_col;	/* the outer input's key, to split it into ranges */
	bool		outer_keep_nulls;	/* LEFT, FULL, ANTI: outer rows without a key */
	int			participant;	/* 0 the leader, then the workers */
	mp_shared_side *side;		/* the side being read, built or probed */

	/* while reading: the rows' tuples go into chunks, keys and places here */
	char	   *chunk;
	dsa_pointer chunk_dp;
	Size		used;
	Size		size;
	uint64	   *keys;
	dsa_pointer *rows;
	int64		n;
	int64		room;
	dsa_pointer *null_rows;		/* the places of rows with a NULL key */
	int64		nnull;
	int64		null_room;
	int64		counted;		/* rows counted against the memory so far */
	bool		reading_input;	/* reading the inner input: it may outgrow the memory */

	/* a reservoir sample of the inner keys read, for the ranges' split points */
	uint64	   *sample;
	int			nsample;
	double		seen;
	double		skip;
	ReservoirStateData reservoir;

	/* beyond the memory: rows spooled in key buckets, then both sides in key ranges */
	SharedTuplestoreAccessor **spool;	/* a bucket's, once attached */
	const uint64 *bucket_split;	/* nsplit of them: bucket b's keys are below the b-th */
	int			nsplit;
	int64	   *bucket_rows;	/* rows and bytes this participant spooled to each */
	Size	   *bucket_bytes;
	int64		spooled;
	Size		disk_bytes;
	bool		ranged;
	int			nranges;
	const uint64 *splitters;	/* nranges - 1 of them: range r's keys are below the r-th */
	SharedTuplestoreAccessor **range_inner;
	SharedTuplestoreAccessor **range_outer;
	bool	   *range_done;
	int			cur;			/* the range being probed, or -1 */

	/*
	 * Once built: the keys in order, signed (the search's input), the rows
	 * in key order followed by those with a NULL key (nrows in all), and for
	 * RIGHT and FULL joins the flags of the rows matched so far.
	 */
	const void *sorted_keys;
	const dsa_pointer *sorted_rows;
	bool	   *matched;
	int64		nkeyed;
	int64		nrows;
	bool		built;
	bool		probing;		/* counted among the participants that probe */
	bool		late;			/* came after the probe was over: returns nothing */
	bool		sorted_on_gpu;
} mp_join_inner;

extern void mp_join_inner_attach(mp_join_inner *in, mp_join_shared *sh, dsa_area *area,
								 mp_key_kind kind, AttrNumber key_col, bool keep_nulls,
								 AttrNumber outer_key_col, bool outer_keep_nulls);
extern void mp_join_inner_build(mp_join_inner *in, PlanState *inner, PlanState *outer,
								mp_join_part_report *report);
extern bool mp_join_inner_probe_done(mp_join_inner *in);
extern void mp_join_inner_forget(mp_join_inner *in);

/*
 * In key ranges (in->ranged): the next range not yet joined, built with the
 * others or found built, its outer rows to be read with
 * mp_join_range_outer_row; false when every range is done.  Once its outer
 * rows are read, mp_join_range_done is true for the last participant out of
 * a RIGHT or FULL join's range, which returns the range's unmatched inner
 * rows and then calls mp_join_range_free.
 */
extern bool mp_join_next_range(mp_join_inner *in, mp_join_part_report *report);
extern MinimalTuple mp_join_range_outer_row(mp_join_inner *in);
extern bool mp_join_range_done(mp_join_inner *in);
extern void mp_join_range_free(mp_join_inner *in);

/* The inner row k: in key order, then those with a NULL key. */
static inline MinimalTuple
mp_join_inner_row(const mp_join_inner *in, int64 k)
{
	return (MinimalTuple) dsa_get_address(in->area, in->sorted_rows[k]);
}

/* This participant's report in the shared memory, or NULL. */
extern mp_join_part_report *mp_join_report_slot(mp_join_shared *sh);

/* The reports of all participants copied out (the leader's first). */
extern mp_join_part_report *mp_join_copy_reports(const mp_join_shared *sh, int *n);

#endif							/* JOIN_SHARED_H */
