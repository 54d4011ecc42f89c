/*
 * join_node.c
 *		MergepathJoin: an equi-join whose sorting and matching run on the
 *		backends.
 *
 * The node reads both inputs once, keeping each row as its column values
 * (and, when some column is passed by reference, the row as a minimal
 * tuple in large blocks that those values point into) with its key folded
 * into an order-preserving unsigned key (mp_order.h: -0 equals +0, NaN
 * equals NaN).  Rows whose key is NULL never match; they are kept only
 * when the join returns them (the outer side of LEFT, FULL and ANTI, the
 * inner side of RIGHT and FULL).  The backend that the settings choose
 * then sorts each side's keys (a side that arrived in key order, as from
 * an index scan, is not sorted again) and finds, with the vectorized
 * sorted search, each outer key's range of equal inner keys.  The rows are
 * put in key order in one pass, and the pairs are formed from the ranges
 * one at a time as rows are asked for: never all at once.
 *
 * The other join clauses are checked on each pair with equal keys; the
 * join type decides what becomes of rows without a passing pair, exactly
 * as in a Merge Join: a LEFT or FULL join returns its outer row with
 * NULLs, an ANTI join returns only such rows, a SEMI join returns an outer
 * row at its first passing pair, and a RIGHT or FULL join returns each
 * inner row that no outer row matched with NULLs, in key order, once the
 * outer keys have passed it.  Rows come out in key order (NULL keys last).
 *
 * Memory: both sides are held, within hash_mem_multiplier x work_mem (the
 * memory a Hash Join may use), counted as the tuples and the arrays.  When
 * an input outgrows it, both inputs go to the row sort that MergepathSort
 * drives (rowsort.c: runs on disk, merged back in key order), and the node
 * joins them a key range at a time: each range takes
 * the next outer rows that fill half the memory (all rows of the last key
 * with them) and the inner rows up to that key; sorted inputs make the
 * ranges exact.  Only a single key with more rows than the memory holds
 * goes beyond it.
 *
 * It rescans as a join does (rereading its inputs only when their
 * parameters changed); it has no mark/restore or backward fetch, as
 * PostgreSQL's hash and merge joins have none.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "../run/mp_run.h"
#include "mp_nodes.h"
#include "../api/mp_order.h"
#include "rowsort.h"
#include "join_shared.h"

/* Pairs rejected by the join clauses between interrupt checks. */
#define REJECT_CHUNK 8192

/* Rows put in key order between two interrupt checks (on the threads). */
#define GATHER_CHUNK ((int64) 1 << 22)

/* One input, as the node holds it. */
typedef struct join_side
{
	PlanState  *ps;
	TupleDesc	desc;
	int			natts;
	int			off;			/* its first column in the scan tuple */
	AttrNumber	key_col;
	bool		byval;			/* every column passed by value: no tuples kept */
	bool		keep_nulls;		/* its rows with a NULL key are returned */

	/* the rows: natts values each, in input order, then in key order */
	Datum	   *values;
	bool	   *isnull;
	int64		nrows;
	int64		room;
	mp_tuple_blocks blocks;

	/*
	 * The keys of the rows whose key is not NULL, and which rows they are
	 * (keyed; NULL while every row kept has a key: row k is key k); in key
	 * order those rows come first (nkeyed of them), then the rest.
	 */
	void	   *keys;			/* uint32 or uint64 each */
	uint32	   *keyed;
	int64		nkeyed;
	bool		in_order;		/* the keys arrived ascending */
	uint32	   *perm;			/* the order of the keys, once sorted */
	void	   *sorted_keys;	/* the keys in order, signed: the search's input */

	/* when the inputs outgrew the memory: the rows in key order, on disk */
	mp_rowsort *spill;
	TupleTableSlot *spill_slot;
	bool		ahead;			/* spill_slot holds a row not taken yet */
	bool		spill_done;
} join_side;

typedef enum join_phase
{
	PHASE_PAIRS,				/* the outer rows with keys, and their pairs */
	PHASE_INNER_REST,			/* inner rows no outer row matched (RIGHT, FULL) */
	PHASE_OUTER_NULLS,			/* outer rows with a NULL key (LEFT, FULL, ANTI) */
	PHASE_END
} join_phase;

typedef struct MergepathJoinState
{
	CustomScanState css;
	JoinType	jointype;
	mp_key_kind kind;
	int			key_bytes;		/* 4 or 8 */
	ExprState  *join_qual;		/* the other join clauses */

	join_side	outer;
	join_side	inner;
	MemoryContext rows_cxt;		/* the rows and arrays; reset between batches */
	mp_big_set	big;
	Size		limit;			/* bytes the node may hold */

	bool		ready;			/* the inputs are read and matched */
	bool		spilled;		/* joining in key ranges, from row sorts */
	int			batches;

	/* each outer row's range of inner partners [lower, upper) */
	int32	   *lower;
	int32	   *upper;
	bool	   *matched;		/* inner rows matched so far (RIGHT, FULL) */

	/* where the output is */
	join_phase	phase;
	int64		oi;				/* the outer row being paired */
	bool		o_started;		/* its range is set up */
	bool		o_matched;		/* it had a passing pair */
	int64		ij;				/* its next partner */
	int64		ihi;
	int64		iflush;			/* inner rows before it are done (RIGHT, FULL) */
	int64		onull;			/* the next outer row with a NULL key */
	TupleTableSlot *scan;
	int64		scan_outer;		/* the rows in the scan tuple now: -1 NULLs */
	int64		scan_inner;
	int64		cur_outer;		/* the rows next_row found: -1 NULLs */
	int64		cur_inner;

	/*
	 * When the output is only columns of the two rows and no filter is
	 * left, each output column's side and column: the result is formed
	 * from the rows' values with no scan tuple and no projection.
	 */
	bool		direct;
	int			nout;
	join_side **out_side;
	int		   *out_col;

	/*
	 * A parallel join (the plan is parallel-aware and runs under a Gather
	 * that set up its shared memory): the inner side is shared and sorted
	 * once; each participant joins its own outer rows with it, in batches
	 * that fit its memory.
	 */
	mp_join_shared *shared;
	dsa_area   *area;
	mp_join_inner sinner;
	bool		outer_done;		/* the outer input is read to its end */
	bool		range_rest;		/* returning a key range's unmatched inner rows */
	Datum	   *inner_vals;		/* the shared inner row last deformed */
	bool	   *inner_nulls;
	int64		deformed;
	mp_join_part_report *report;	/* this participant's, in the shared memory */
	mp_join_part_report *reports;	/* every participant's, copied out at shutdown */
	int			nreports;
	double		outer_ms;		/* a parallel join's reading of its outer rows */

	/* for EXPLAIN ANALYZE */
	mp_run_report run;
	double		read_ms;
	double		match_ms;
	double		order_ms;
	bool		any_gpu;
	Size		peak_bytes;
	int64		rejected;
} MergepathJoinState;

static Node *join_create_state(CustomScan *cscan);
static void join_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *join_exec(CustomScanState *node);
static void join_end(CustomScanState *node);
static void join_rescan(CustomScanState *node);
static void join_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static Size join_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void join_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void join_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void join_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate);
static void join_shutdown(CustomScanState *node);

const CustomScanMethods mp_join_scan_methods = {
	.CustomName = "MergepathJoin",
	.CreateCustomScanState = join_create_state,
};

static const CustomExecMethods join_exec_methods = {
	.CustomName = "MergepathJoin",
	.BeginCustomScan = join_begin,
	.ExecCustomScan = join_exec,
	.EndCustomScan = join_end,
	.ReScanCustomScan = join_rescan,
	.ExplainCustomScan = join_explain,
	.EstimateDSMCustomScan = join_estimate_dsm,
	.InitializeDSMCustomScan = join_init_dsm,
	.ReInitializeDSMCustomScan = join_reinit_dsm,
	.InitializeWorkerCustomScan = join_init_worker,
	.ShutdownCustomScan = join_shutdown,
};

static Node *
join_create_state(CustomScan *cscan)
{
	MergepathJoinState *state = palloc0(sizeof(MergepathJoinState));

	NodeSetTag(state, T_CustomScanState);
	state->css.flags = cscan->flags;
	state->css.methods = &join_exec_methods;
	return (Node *) state;
}

static void
begin_side(MergepathJoinState *state, join_side *side, Plan *plan, EState *estate, int eflags,
		   AttrNumber key_col, int off, bool keep_nulls)
{
	side->ps = ExecInitNode(plan, estate, eflags & ~(EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD |
													 EXEC_FLAG_MARK));
	side->desc = ExecGetResultType(side->ps);
	side->natts = side->desc->natts;
	side->off = off;
	side->key_col = key_col;
	side->keep_nulls = keep_nulls;
	side->byval = true;
	for (int i = 0; i < side->natts; i++)
		side->byval &= TupleDescAttr(side->desc, i)->attbyval;
	side->spill_slot = ExecInitExtraTupleSlot(estate, side->desc, &TTSOpsMinimalTuple);
	state->css.custom_ps = lappend(state->css.custom_ps, side->ps);
}

/*
 * Whether the output can be formed straight from the rows' values: a
 * projection of scan columns alone, and no filter above the join clauses.
 */
static void
plan_direct(MergepathJoinState *state)
{
	PlanState  *ps = &state->css.ss.ps;
	List	   *tlist = ps->plan->targetlist;
	int			c = 0;
	ListCell   *lc;

	if (ps->ps_ProjInfo == NULL || ps->qual != NULL)
		return;
	foreach(lc, tlist)
	{
		Var		   *var = (Var *) ((TargetEntry *) lfirst(lc))->expr;

		if (!IsA(var, Var) || var->varno != INDEX_VAR || var->varattno <= 0)
			return;
	}
	state->nout = list_length(tlist);
	state->out_side = palloc(Max(state->nout, 1) * sizeof(join_side *));
	state->out_col = palloc(Max(state->nout, 1) * sizeof(int));
	foreach(lc, tlist)
	{
		int			a = ((Var *) ((TargetEntry *) lfirst(lc))->expr)->varattno - 1;
		join_side  *side = a < state->outer.natts ? &state->outer : &state->inner;

		state->out_side[c] = side;
		state->out_col[c++] = a - side->off;
	}
	state->direct = true;
}

static void
join_begin(CustomScanState *node, EState *estate, int eflags)
{
	MergepathJoinState *state = (MergepathJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *info = linitial(cscan->custom_private);
	int			outer_col = lthird_int(info),
				inner_col = lfourth_int(info),
				outer_natts = list_nth_int(info, 4);

	state->jointype = linitial_int(info);
	state->kind = lsecond_int(info);
	state->key_bytes = mp_key_kind_bits(state->kind) <= 32 ? 4 : 8;
	state->join_qual = ExecInitQual(list_copy_tail(cscan->custom_exprs, 1), &node->ss.ps);

	begin_side(state, &state->outer, linitial(cscan->custom_plans), estate, eflags, outer_col, 0,
			   state->jointype == JOIN_LEFT || state->jointype == JOIN_FULL ||
			   state->jointype == JOIN_ANTI);
	begin_side(state, &state->inner, lsecond(cscan->custom_plans), estate, eflags, inner_col,
			   outer_natts,
			   state->jointype == JOIN_RIGHT || state->jointype == JOIN_FULL);
	Assert(outer_natts + state->inner.natts == node->ss.ss_ScanTupleSlot->tts_tupleDescriptor->natts);

	state->scan = node->ss.ss_ScanTupleSlot;
	state->limit = get_hash_memory_limit();
	state->rows_cxt = AllocSetContextCreate(estate->es_query_cxt, "MergepathJoin rows",
											ALLOCSET_DEFAULT_SIZES);
	mp_big_init(&state->big, state->rows_cxt);
	state->inner_vals = palloc(Max(state->inner.natts, 1) * sizeof(Datum));
	state->inner_nulls = palloc(Max(state->inner.natts, 1) * sizeof(bool));
	state->deformed = -1;
	plan_direct(state);
}

/* Row r of the side (r >= 0): its values and NULL flags. */
static inline void
row_of(MergepathJoinState *state, join_side *side, int64 r, Datum **values, bool **isnull)
{
	if (side == &state->inner && state->sinner.built)
	{
		if (r != state->deformed)
		{
			HeapTupleData tuple;

			mp_row_as_heap(mp_join_inner_row(&state->sinner, r), &tuple);
			heap_deform_tuple(&tuple, side->desc, state->inner_vals, state->inner_nulls);
			state->deformed = r;
		}
		*values = state->inner_vals;
		*isnull = state->inner_nulls;
		return;
	}
	*values = side->values + r * side->natts;
	*isnull = side->isnull + r * side->natts;
}

/* Memory held now, if more than before: for EXPLAIN ANALYZE. */
static void
note_peak(MergepathJoinState *state)
{
	Size		held = MemoryContextMemAllocated(state->rows_cxt, true) + state->big.mapped;

	state->peak_bytes = Max(state->peak_bytes, held);
}

static Size
held_bytes(MergepathJoinState *state)
{
	return state->outer.blocks.held + state->outer.nrows * mp_join_row_overhead(state->outer.natts) +
		state->inner.blocks.held + state->inner.nrows * mp_join_row_overhead(state->inner.natts);
}

static void *
grow(MergepathJoinState *state, void *array, int64 old, int64 room, Size elsize)
{
	return mp_big_realloc(&state->big, array, old * elsize, room * elsize);
}

/* The row of the side's key k. */
#define ROW_OF(side, k) ((side)->keyed ? (side)->keyed[k] : (k))

/* Room for twice as many rows, or for the first ones. */
static void
grow_side(MergepathJoinState *state, join_side *side)
{
	int64		old = side->room;
	double		estimate = Min(side->ps->plan->plan_rows * 1.2,
							   (double) state->limit / mp_join_row_overhead(side->natts));

	side->room = old == 0 ? Max((int64) Min(estimate, (double) (1 << 26)), 1024) : old * 2;
	side->values = grow(state, side->values, old * side->natts, side->room * side->natts,
						sizeof(Datum));
	side->isnull = grow(state, side->isnull, old * side->natts, side->room * side->natts,
						sizeof(bool));
	side->keys = grow(state, side->keys, old, side->room, state->key_bytes);
	if (side->keyed)
		side->keyed = grow(state, side->keyed, old, side->room, sizeof(uint32));
}

/*
 * The slot's row kept, with its key; false when a NULL key drops it.  Rows
 * of values passed by value are deformed once, in the slot; others are
 * copied as a tuple first, and deformed from the copy that their values
 * point into.
 */
static bool
keep_row(MergepathJoinState *state, join_side *side, TupleTableSlot *slot)
{
	Size		at = (Size) side->nrows * side->natts;
	int			kc = side->key_col - 1;
	uint64		key;

	if (side->byval)
		slot_getallattrs(slot);
	else
		slot_getsomeattrs(slot, side->key_col);
	if (slot->tts_isnull[kc] && !side->keep_nulls)
		return false;
	if (side->nrows == side->room)
		grow_side(state, side);
	if (side->byval)
	{
		memcpy(side->values + at, slot->tts_values, side->natts * sizeof(Datum));
		memcpy(side->isnull + at, slot->tts_isnull, side->natts * sizeof(bool));
	}
	else
	{
		MinimalTuple row = mp_keep_tuple(&state->big, &side->blocks, slot);
		HeapTupleData tuple;

		mp_row_as_heap(row, &tuple);
		heap_deform_tuple(&tuple, side->desc, side->values + at, side->isnull + at);
	}
	if (side->isnull[at + kc])
	{
		if (side->keyed == NULL)
		{
			/* the first row without a key: the rows with one are no longer all */
			side->keyed = grow(state, NULL, 0, side->room, sizeof(uint32));
			for (int64 k = 0; k < side->nkeyed; k++)
				side->keyed[k] = (uint32) k;
		}
		side->nrows++;
		return true;
	}
	key = mp_fold_key(state->kind, side->values[at + kc]);
	if (state->key_bytes == 4)
	{
		uint32	   *keys = side->keys;

		if (side->nkeyed > 0 && key < keys[side->nkeyed - 1])
			side->in_order = false;
		keys[side->nkeyed] = (uint32) key;
	}
	else
	{
		uint64	   *keys = side->keys;

		if (side->nkeyed > 0 && key < keys[side->nkeyed - 1])
			side->in_order = false;
		keys[side->nkeyed] = key;
	}
	if (side->keyed)
		side->keyed[side->nkeyed] = (uint32) side->nrows;
	side->nkeyed++;
	side->nrows++;
	return true;
}

static bool
over_limit(MergepathJoinState *state, join_side *side)
{
	return held_bytes(state) > state->limit || side->nrows >= (int64) PG_INT32_MAX;
}

/* Forgets the rows of both sides and all that was made of them. */
static void
forget_rows(MergepathJoinState *state)
{
	join_side  *sides[2] = {&state->outer, &state->inner};

	note_peak(state);
	MemoryContextReset(state->rows_cxt);
	for (int s = 0; s < 2; s++)
	{
		join_side  *side = sides[s];

		side->values = NULL;
		side->isnull = NULL;
		side->keys = NULL;
		side->keyed = NULL;
		side->perm = NULL;
		side->sorted_keys = NULL;
		side->nrows = side->room = side->nkeyed = 0;
		side->in_order = true;
		memset(&side->blocks, 0, sizeof(side->blocks));
	}
	state->lower = state->upper = NULL;
	state->matched = NULL;
	if (state->sinner.built)
	{
		/* the inner rows stay, in the shared memory */
		state->inner.sorted_keys = (void *) state->sinner.sorted_keys;
		state->inner.nkeyed = state->sinner.nkeyed;
	}
}

/* Row i of the side as a virtual tuple in the slot. */
static void
store_row(join_side *side, int64 i, TupleTableSlot *slot)
{
	ExecClearTuple(slot);
	memcpy(slot->tts_values, side->values + i * side->natts, side->natts * sizeof(Datum));
	memcpy(slot->tts_isnull, side->isnull + i * side->natts, side->natts * sizeof(bool));
	ExecStoreVirtualTuple(slot);
}

/*
 * The side's rows so far go to a row sort by the key (NULLs last), which
 * takes the rest: work_mem of memory, as a Sort's.
 */
static void
spill_side(MergepathJoinState *state, join_side *side)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(side->desc, &TTSOpsVirtual);
	mp_rowsort_key key = {side->key_col, false, false};

	side->spill = mp_rowsort_begin("MergepathJoin", side->desc, 1, &key, (Size) work_mem * 1024,
								   false, side->ps->plan->plan_rows,
								   side->ps->plan->plan_width);
	for (int64 i = 0; i < side->nrows; i++)
	{
		store_row(side, i, slot);
		mp_rowsort_put(side->spill, slot);
	}
	ExecDropSingleTupleTableSlot(slot);
}

/* Reads one input into memory, or into its row sort once it outgrows it. */
static void
read_side(MergepathJoinState *state, join_side *side)
{
	if (state->spilled)
		spill_side(state, side);	/* the outer input went to a row sort */
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(side->ps);

		if (TupIsNull(slot))
			break;
		if (side->spill)
		{
			slot_getsomeattrs(slot, side->key_col);
			if (!slot->tts_isnull[side->key_col - 1] || side->keep_nulls)
				mp_rowsort_put(side->spill, slot);
		}
		else if (keep_row(state, side, slot) && over_limit(state, side))
		{
			spill_side(state, side);
			if (side == &state->outer)
				forget_rows(state);
			state->spilled = true;
		}
	}
}

/* The backends' part: each side's keys sorted, each outer key's partners found. */
typedef struct match_run
{
	MergepathJoinState *state;
	mp_row_keys keys[2];
	int			bits;
} match_run;

/*
 * A side's keys in key order, signed (the search's order), after its sort:
 * gathered by the permutation on the CPU backend's threads, then their sign
 * bits flipped.
 */
static void
order_keys(MergepathJoinState *state, join_side *side)
{
	int64		n = side->nkeyed;

	if (side->perm)
		mp_cpu_gather(side->sorted_keys, side->keys, state->key_bytes, side->perm, n,
					  mp_cpu_threads_now());
	else
		memcpy(side->sorted_keys, side->keys, n * state->key_bytes);
	if (state->key_bytes == 4)
	{
		uint32	   *out = side->sorted_keys;

		for (int64 k = 0; k < n; k++)
			out[k] ^= UINT32_C(0x80000000);
	}
	else
	{
		uint64	   *out = side->sorted_keys;

		for (int64 k = 0; k < n; k++)
			out[k] ^= UINT64_C(0x8000000000000000);
	}
}

/* Every outer key's range is empty: there are no inner keys. */
static mp_status
no_partners(MergepathJoinState *state)
{
	memset(state->lower, 0, state->outer.nkeyed * sizeof(int32));
	memset(state->upper, 0, state->outer.nkeyed * sizeof(int32));
	return MP_OK;
}

static void
add_timing(mp_gpu_timing *sum, const mp_gpu_timing *t)
{
	sum->h2d_ms += t->h2d_ms;
	sum->kernel_ms += t->kernel_ms;
	sum->d2h_ms += t->d2h_ms;
	sum->bytes_h2d += t->bytes_h2d;
	sum->bytes_d2h += t->bytes_d2h;
	sum->chunks += t->chunks;
}

/* A side's sort on the backend: on the GPU, its timings added to *timing. */
static mp_status
sort_side(match_run *run, int s, join_side *side, bool gpu, mp_poll_fn poll,
		  mp_gpu_timing *timing)
{
	MergepathJoinState *state = run->state;
	mp_gpu_timing t = {0};
	void	   *scratch;
	mp_status	st;

	if (gpu)
	{
		st = mp_gpu_sort_rows(&run->keys[s], side->nkeyed, side->perm, poll, &t);
		add_timing(timing, &t);
		return st;
	}
	scratch = mp_big_alloc(&state->big, mp_cpu_sort_rows_scratch(side->nkeyed));
	st = mp_cpu_sort_rows(&run->keys[s], side->nkeyed, side->perm, scratch, poll);
	note_peak(state);
	mp_big_free(&state->big, scratch);
	return st;
}

/* The outer keys' lower or upper bounds among the inner keys, on the backend. */
static mp_status
search_keys(MergepathJoinState *state, mp_search kind, int32 *out, bool gpu,
			mp_poll_fn poll, mp_gpu_timing *timing)
{
	mp_type		type = state->key_bytes == 4 ? MP_INT4 : MP_INT8;
	mp_gpu_timing t = {0};
	mp_status	st;

	if (!gpu)
		return mp_cpu_search(kind, type, state->inner.sorted_keys, state->inner.nkeyed,
							 state->outer.sorted_keys, state->outer.nkeyed, out, false, poll);
	st = mp_gpu_search(kind, type, state->inner.sorted_keys, state->inner.nkeyed,
					   state->outer.sorted_keys, state->outer.nkeyed, out, false, poll, &t);
	add_timing(timing, &t);
	return st;
}

/* Both sides sorted and matched on one backend; the GPU's timings in *timing. */
static mp_status
match_keys(void *ctx, bool gpu, mp_poll_fn poll, mp_gpu_timing *timing)
{
	match_run  *run = ctx;
	MergepathJoinState *state = run->state;
	join_side  *sides[2] = {&state->outer, &state->inner};
	mp_status	st;

	memset(timing, 0, sizeof(*timing));
	for (int s = 0; s < (state->sinner.built ? 1 : 2); s++)
	{
		if (sides[s]->perm && sides[s]->nkeyed > 0 &&
			(st = sort_side(run, s, sides[s], gpu, poll, timing)) != MP_OK)
			return st;
		order_keys(state, sides[s]);
	}
	if (state->outer.nkeyed == 0)
		return MP_OK;
	if (state->inner.nkeyed == 0)
		return no_partners(state);
	st = search_keys(state, MP_LOWER_BOUND, state->lower, gpu, poll, timing);
	if (st == MP_OK)
		st = search_keys(state, MP_UPPER_BOUND, state->upper, gpu, poll, timing);
	return st;
}

/*
 * The side's rows rearranged into key order (rows with a key by their
 * permutation, gathered on mergepath.cpu_threads threads, then those
 * without), so that the pairs are formed from two sequential reads.
 */
static void
put_in_order(MergepathJoinState *state, join_side *side)
{
	int			natts = side->natts;
	int64		n = side->nrows,
				k = side->nkeyed;
	Datum	   *values;
	bool	   *isnull;
	const uint32 *rows;

	if (side->perm == NULL && side->nkeyed == n)
		return;					/* in order already, no NULL keys */
	values = mp_big_alloc(&state->big, Max(n, 1) * natts * sizeof(Datum));
	isnull = mp_big_alloc(&state->big, Max(n, 1) * natts * sizeof(bool));

	/* the rows with a key, in key order: perm's entries made rows */
	if (side->perm && side->keyed)
		for (int64 i = 0; i < side->nkeyed; i++)
			side->perm[i] = side->keyed[side->perm[i]];
	rows = side->perm ? side->perm : side->keyed;
	Assert(rows != NULL || side->nkeyed == 0);
	for (int64 lo = 0; lo < side->nkeyed; lo += GATHER_CHUNK)
	{
		int64		count = Min(GATHER_CHUNK, side->nkeyed - lo);

		CHECK_FOR_INTERRUPTS();
		mp_cpu_gather(values + lo * natts, side->values, natts * sizeof(Datum), rows + lo, count,
					  mp_cpu_threads_now());
		mp_cpu_gather(isnull + lo * natts, side->isnull, natts * sizeof(bool), rows + lo, count,
					  mp_cpu_threads_now());
	}
	for (int64 i = 0; side->keyed && i < n; i++)
		if (side->isnull[i * natts + side->key_col - 1])
		{
			memcpy(values + k * natts, side->values + i * natts, natts * sizeof(Datum));
			memcpy(isnull + k * natts, side->isnull + i * natts, natts * sizeof(bool));
			k++;
		}
	Assert(k == n);
	note_peak(state);
	mp_big_free(&state->big, side->values);
	mp_big_free(&state->big, side->isnull);
	side->values = values;
	side->isnull = isnull;
}

/* Restarts the output at the first outer row. */
static void
restart_output(MergepathJoinState *state)
{
	state->phase = PHASE_PAIRS;
	state->oi = 0;
	state->o_started = false;
	state->iflush = 0;
	state->onull = state->outer.nkeyed;
	state->scan_outer = state->scan_inner = -2;
	if (state->matched && !state->sinner.built)
		memset(state->matched, 0, Max(state->inner.nkeyed, 1));
}

/* Sorts and matches the rows in memory, and puts them in key order. */
static void
match_rows(MergepathJoinState *state)
{
	match_run	run = {state};
	join_side  *sides[2] = {&state->outer, &state->inner};
	int			bits = mp_key_kind_bits(state->kind);
	int			nlocal = state->sinner.built ? 1 : 2;	/* a shared inner side is sorted */
	double		t0 = mp_now_ms();

	for (int s = 0; s < nlocal; s++)
	{
		join_side  *side = sides[s];

		side->perm = side->in_order ? NULL :
			mp_big_alloc(&state->big, Max(side->nkeyed, 1) * sizeof(uint32));
		side->sorted_keys = mp_big_alloc(&state->big, Max(side->nkeyed, 1) * state->key_bytes);
		run.keys[s].nwords = 1;
		run.keys[s].word_bytes = state->key_bytes;
		run.keys[s].bits = &run.bits;
		run.keys[s].words = side->keys;
	}
	run.bits = bits;
	state->lower = mp_big_alloc(&state->big, Max(state->outer.nkeyed, 1) * sizeof(int32));
	state->upper = mp_big_alloc(&state->big, Max(state->outer.nkeyed, 1) * sizeof(int32));
	note_peak(state);
	if (state->sinner.built && state->outer.nkeyed > 0)
	{
		/* this participant's batch: its sort and search */
		(void) mp_run("MergepathJoin", MP_OP_JOIN_PART, state->outer.nkeyed, &run, match_keys,
					  &state->run);
		state->any_gpu |= state->run.used_gpu;
	}
	else if (!state->sinner.built && state->outer.nkeyed + state->inner.nkeyed > 0)
	{
		(void) mp_run("MergepathJoin", MP_OP_NODES, state->outer.nkeyed + state->inner.nkeyed, &run,
					  match_keys, &state->run);
		state->any_gpu |= state->run.used_gpu;
	}
	state->match_ms += mp_now_ms() - t0;

	t0 = mp_now_ms();
	for (int s = 0; s < nlocal; s++)
	{
		put_in_order(state, sides[s]);
		mp_big_free(&state->big, sides[s]->keys);
		mp_big_free(&state->big, sides[s]->keyed);
		mp_big_free(&state->big, sides[s]->perm);
		mp_big_free(&state->big, sides[s]->sorted_keys);
		sides[s]->keys = sides[s]->sorted_keys = NULL;
		sides[s]->keyed = sides[s]->perm = NULL;
	}
	if (state->sinner.built)
		state->matched = state->sinner.matched;
	else if (state->inner.keep_nulls)
		state->matched = mp_big_alloc(&state->big, Max(state->inner.nkeyed, 1));
	note_peak(state);
	mp_big_trim(&state->big);
	state->order_ms += mp_now_ms() - t0;
	restart_output(state);
}

/* The key of the row in the side's spill slot; false for a NULL. */
static bool
spill_key(MergepathJoinState *state, join_side *side, uint64 *key)
{
	bool		isnull;
	Datum		d = slot_getattr(side->spill_slot, side->key_col, &isnull);

	if (!isnull)
		*key = mp_fold_key(state->kind, d);
	return !isnull;
}

/* The side's next row from its row sort into spill_slot, unless one is there. */
static bool
spill_next(join_side *side)
{
	if (side->ahead)
		return true;
	if (side->spill_done)
		return false;
	side->ahead = mp_rowsort_get(side->spill, true, side->spill_slot);
	side->spill_done = !side->ahead;
	return side->ahead;
}

/*
 * The next key range from the row sorts: outer rows until half the memory
 * is used and the key changes, then the inner rows up to the last outer
 * key (all that are left once the outer rows with keys are done).  False
 * when both inputs are used up.
 */
static bool
load_batch(MergepathJoinState *state)
{
	join_side  *outer = &state->outer,
			   *inner = &state->inner;
	bool		has_last = false,
				more_keys;
	uint64		last = 0,
				key;

	forget_rows(state);
	while (spill_next(outer))
	{
		bool		has_key = spill_key(state, outer, &key);

		if (held_bytes(state) > state->limit / 2 && !(has_key && has_last && key == last))
			break;
		keep_row(state, outer, outer->spill_slot);
		outer->ahead = false;
		if (has_key)
		{
			has_last = true;
			last = key;
		}
		if (outer->nrows % REJECT_CHUNK == 0)
			CHECK_FOR_INTERRUPTS();
	}
	/* outer rows with keys left for later ranges (NULL keys come last) */
	more_keys = spill_next(outer) && spill_key(state, outer, &key);

	while (spill_next(inner))
	{
		/*
		 * The inner rows up to the last outer key; beyond it, once no outer
		 * key is left, the rows no outer row can match, for joins that
		 * return them, as many as the memory takes.
		 */
		if (!(has_last && spill_key(state, inner, &key) && key <= last) &&
			(more_keys || !inner->keep_nulls ||
			 (inner->nrows > 0 && held_bytes(state) > state->limit / 2)))
			break;
		keep_row(state, inner, inner->spill_slot);
		inner->ahead = false;
		if (inner->nrows % REJECT_CHUNK == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (outer->nrows == 0 && inner->nrows == 0)
		return false;
	state->batches++;
	match_rows(state);
	return true;
}

/*
 * This participant's figures in the shared memory, as they are now: after
 * each batch, so that a participant stopped early (under a LIMIT) reports
 * what it did.
 */
static void
update_report(MergepathJoinState *state)
{
	mp_join_part_report *r = state->report;

	if (r == NULL)
		return;
	note_peak(state);
	r->batches = state->batches;
	r->any_gpu |= state->any_gpu;
	r->outer_ms = state->outer_ms;
	r->match_ms = state->match_ms;
	r->order_ms = state->order_ms;
	r->peak_bytes = state->peak_bytes;
	r->rejected = state->rejected;
}

/*
 * A parallel join's next batch: this participant's next outer rows (from
 * its outer input, or from the key range's outer rows), as many as its
 * memory holds, sorted and searched for in the shared inner side.  False
 * when its outer rows are done.
 */
static bool
load_outer_batch(MergepathJoinState *state)
{
	join_side  *outer = &state->outer;
	double		t0 = mp_now_ms();

	if (state->outer_done)
		return false;
	forget_rows(state);
	for (;;)
	{
		TupleTableSlot *slot;

		if (state->sinner.ranged)
		{
			MinimalTuple row = mp_join_range_outer_row(&state->sinner);

			slot = row ? ExecStoreMinimalTuple(row, outer->spill_slot, false) : NULL;
		}
		else
			slot = ExecProcNode(outer->ps);
		if (TupIsNull(slot))
		{
			state->outer_done = true;
			break;
		}
		if (keep_row(state, outer, slot) && over_limit(state, outer))
			break;
	}
	state->outer_ms += mp_now_ms() - t0;
	if (outer->nrows == 0)
		return false;
	state->batches++;
	if (state->report)
		state->report->outer_rows += outer->nrows;
	match_rows(state);
	update_report(state);
	return true;
}

/*
 * A parallel RIGHT or FULL join's last pass over the shared inner side (or
 * a key range's), in the last participant to finish its outer rows: the
 * inner rows that no participant matched.
 */
static void
unmatched_pass(MergepathJoinState *state)
{
	forget_rows(state);
	state->inner.nrows = state->sinner.nrows;
	state->matched = state->sinner.matched;
	state->phase = PHASE_INNER_REST;
	state->iflush = 0;
	state->scan_outer = state->scan_inner = -2;
}

/*
 * The next key range built with the others (or found built); false when
 * none is left.  Reading its inner rows and the waits count as reading the
 * inner side, its sort and merge as theirs.
 */
static bool
next_range(MergepathJoinState *state)
{
	mp_join_part_report *r = state->report;
	double		t0 = mp_now_ms(),
				built0 = r ? r->sort_ms + r->merge_ms : 0;
	bool		found = mp_join_next_range(&state->sinner, r);

	if (r)
		r->inner_ms += mp_now_ms() - t0 - (r->sort_ms + r->merge_ms - built0);
	return found;
}

/*
 * A parallel join's next rows once a batch is done: its next batch of
 * outer rows; or the unmatched inner rows, where it is the last to finish;
 * or, in key ranges, the next range's.  False when it is done.
 */
static bool
next_shared(MergepathJoinState *state)
{
	mp_join_inner *in = &state->sinner;

	for (;;)
	{
		if (!in->built)
			return false;
		if (load_outer_batch(state))
			return true;
		if (!in->ranged)
		{
			if (!state->inner.keep_nulls || !mp_join_inner_probe_done(in))
				return false;
			unmatched_pass(state);
			return true;
		}
		if (state->range_rest)
		{
			/* the range's unmatched inner rows are returned: it is freed */
			state->range_rest = false;
			mp_join_range_free(in);
		}
		else if (mp_join_range_done(in))
		{
			state->range_rest = true;
			unmatched_pass(state);
			return true;
		}
		if (!next_range(state))
			return false;
		state->outer_done = false;
		state->deformed = -1;
	}
}

/*
 * A parallel join's start: the shared inner side built with the others
 * (or found built), then the first batch of outer rows.
 */
static void
start_shared(MergepathJoinState *state)
{
	double		t0 = mp_now_ms();

	state->report = mp_join_report_slot(state->shared);
	if (state->report)
		state->report->ran = true;
	mp_join_inner_attach(&state->sinner, state->shared, state->area, state->kind,
						 state->inner.key_col, state->inner.keep_nulls, state->outer.key_col,
						 state->outer.keep_nulls);
	mp_join_inner_build(&state->sinner, state->inner.ps, state->outer.ps, state->report);
	if (state->sinner.late)
	{
		/* the others have read every outer row and returned what is unmatched */
		state->ready = true;
		state->phase = PHASE_END;
		return;
	}
	state->read_ms = mp_now_ms() - t0;
	state->outer_ms = 0;
	if (state->report)
		state->report->inner_ms = state->read_ms - state->report->sort_ms -
			state->report->merge_ms - state->report->split_ms;
	state->inner.nrows = 0;
	state->outer_done = state->sinner.ranged;	/* its outer rows are in the ranges */
	state->range_rest = false;
	state->deformed = -1;
	state->ready = true;
	if (!next_shared(state))
		state->phase = PHASE_END;
}

/* Reads both inputs and matches them, or sets up the key ranges. */
static void
start_join(MergepathJoinState *state)
{
	double		t0 = mp_now_ms();

	if (state->shared)
	{
		start_shared(state);
		return;
	}
	read_side(state, &state->outer);
	read_side(state, &state->inner);
	if (state->spilled)
	{
		join_side  *sides[2] = {&state->outer, &state->inner};

		for (int s = 0; s < 2; s++)
		{
			if (sides[s]->spill == NULL)
				spill_side(state, sides[s]);
			mp_rowsort_perform(sides[s]->spill);
			sides[s]->ahead = sides[s]->spill_done = false;
		}
		state->read_ms = mp_now_ms() - t0;
		if (!load_batch(state))
			state->phase = PHASE_END;
	}
	else
	{
		state->read_ms = mp_now_ms() - t0;
		match_rows(state);
	}
	state->ready = true;
}

/* The scan tuple: outer row i and inner row j (-1: NULLs). */
static TupleTableSlot *
fill(MergepathJoinState *state, int64 i, int64 j)
{
	TupleTableSlot *scan = state->scan;
	join_side  *outer = &state->outer,
			   *inner = &state->inner;

	ExecClearTuple(scan);
	if (i != state->scan_outer)
	{
		if (i < 0)
			memset(scan->tts_isnull, true, outer->natts);
		else
		{
			memcpy(scan->tts_values, outer->values + i * outer->natts,
				   outer->natts * sizeof(Datum));
			memcpy(scan->tts_isnull, outer->isnull + i * outer->natts, outer->natts);
		}
		state->scan_outer = i;
	}
	if (j != state->scan_inner)
	{
		if (j < 0)
			memset(scan->tts_isnull + inner->off, true, inner->natts);
		else
		{
			Datum	   *values;
			bool	   *isnull;

			row_of(state, inner, j, &values, &isnull);
			memcpy(scan->tts_values + inner->off, values, inner->natts * sizeof(Datum));
			memcpy(scan->tts_isnull + inner->off, isnull, inner->natts);
		}
		state->scan_inner = j;
	}
	return ExecStoreVirtualTuple(scan);
}

/* next_row's answer: outer row i and inner row j (-1: NULLs). */
static inline bool
found(MergepathJoinState *state, int64 i, int64 j)
{
	state->cur_outer = i;
	state->cur_inner = j;
	return true;
}

/*
 * A shared inner side's tuples lie in the order the participants read them,
 * not in key order: each outer row's first partner is a cache miss.  Its
 * tuple is fetched this many outer rows ahead (the outer rows and their
 * ranges are in key order and at hand).
 */
#define INNER_PREFETCH 16

static inline void
prefetch_inner(MergepathJoinState *state, int64 oi)
{
	if (oi < state->outer.nkeyed && state->lower[oi] < state->upper[oi])
		__builtin_prefetch(mp_join_inner_row(&state->sinner, state->lower[oi]));
}

/*
 * The next row the join type returns, before the filters, into cur_outer
 * and cur_inner: a pair that passes the join clauses, or a row with NULLs
 * for the other side.  False when this batch's rows are done.
 */
static bool
next_row(MergepathJoinState *state)
{
	join_side  *outer = &state->outer,
			   *inner = &state->inner;
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	for (;;)
	{
		switch (state->phase)
		{
			case PHASE_PAIRS:
				if (state->oi >= outer->nkeyed)
				{
					state->phase = PHASE_INNER_REST;
					continue;
				}
				if (!state->o_started)
				{
					int64		lo = state->lower[state->oi];

					/*
					 * inner rows below this key are done: the unmatched ones
					 * first (a parallel join's wait for every participant)
					 */
					if (inner->keep_nulls && !state->sinner.built && state->iflush < lo)
					{
						int64		r = state->iflush++;

						if (!state->matched[r])
							return found(state, -1, r);
						continue;
					}
					state->ij = lo;
					state->ihi = state->upper[state->oi];
					state->o_matched = false;
					state->o_started = true;
					if (state->sinner.built)
						prefetch_inner(state, state->oi + INNER_PREFETCH);
				}
				while (state->ij < state->ihi)
				{
					int64		j = state->ij++;

					if (state->join_qual)
					{
						ResetExprContext(econtext);
						econtext->ecxt_scantuple = fill(state, state->oi, j);
						if (!ExecQual(state->join_qual, econtext))
						{
							if (++state->rejected % REJECT_CHUNK == 0)
								CHECK_FOR_INTERRUPTS();
							continue;
						}
					}
					state->o_matched = true;
					if (inner->keep_nulls)
						state->matched[j] = true;
					if (state->jointype == JOIN_SEMI || state->jointype == JOIN_ANTI)
					{
						state->ij = state->ihi;
						if (state->jointype == JOIN_SEMI)
							return found(state, state->oi, j);
						break;
					}
					return found(state, state->oi, j);
				}
				state->o_started = false;
				if (!state->o_matched && outer->keep_nulls)
					return found(state, state->oi++, -1);
				state->oi++;
				continue;
			case PHASE_INNER_REST:
				if (inner->keep_nulls && state->iflush < inner->nrows)
				{
					int64		r = state->iflush++;

					if (r >= inner->nkeyed || !state->matched[r])
						return found(state, -1, r);
					continue;
				}
				state->phase = PHASE_OUTER_NULLS;
				continue;
			case PHASE_OUTER_NULLS:
				if (outer->keep_nulls && state->onull < outer->nrows)
					return found(state, state->onull++, -1);
				state->phase = PHASE_END;
				continue;
			case PHASE_END:
				return false;
		}
	}
}

/* The result row of cur_outer and cur_inner, from their values (direct). */
static TupleTableSlot *
project_row(MergepathJoinState *state)
{
	TupleTableSlot *out = state->css.ss.ps.ps_ResultTupleSlot;

	ExecClearTuple(out);
	for (int c = 0; c < state->nout; c++)
	{
		join_side  *side = state->out_side[c];
		int64		r = side == &state->outer ? state->cur_outer : state->cur_inner;

		if (r < 0)
		{
			out->tts_values[c] = (Datum) 0;
			out->tts_isnull[c] = true;
		}
		else
		{
			Datum	   *values;
			bool	   *isnull;

			row_of(state, side, r, &values, &isnull);
			out->tts_values[c] = values[state->out_col[c]];
			out->tts_isnull[c] = isnull[state->out_col[c]];
		}
	}
	return ExecStoreVirtualTuple(out);
}

static TupleTableSlot *
join_exec(CustomScanState *node)
{
	MergepathJoinState *state = (MergepathJoinState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState  *filter = node->ss.ps.qual;
	ProjectionInfo *proj = node->ss.ps.ps_ProjInfo;

	if (!state->ready)
		start_join(state);
	for (;;)
	{
		TupleTableSlot *scan;

		CHECK_FOR_INTERRUPTS();
		if (!next_row(state))
		{
			if (state->spilled && load_batch(state))
				continue;
			if (state->shared && next_shared(state))
				continue;
			state->phase = PHASE_END;
			update_report(state);
			return ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
		}
		if (state->direct)
			return project_row(state);
		scan = fill(state, state->cur_outer, state->cur_inner);
		ResetExprContext(econtext);
		econtext->ecxt_scantuple = scan;
		if (filter && !ExecQual(filter, econtext))
		{
			InstrCountFiltered1(node, 1);
			continue;
		}
		return proj ? ExecProject(proj) : scan;
	}
}

/* Forgets both inputs, so that the next fetch reads them again. */
static void
forget_inputs(MergepathJoinState *state)
{
	join_side  *sides[2] = {&state->outer, &state->inner};

	for (int s = 0; s < 2; s++)
	{
		if (sides[s]->spill)
			mp_rowsort_end(sides[s]->spill);
		sides[s]->spill = NULL;
		sides[s]->ahead = sides[s]->spill_done = false;
		ExecClearTuple(sides[s]->spill_slot);
	}
	mp_join_inner_forget(&state->sinner);
	forget_rows(state);
	state->ready = false;
	state->spilled = false;
	state->outer_done = false;
	state->deformed = -1;
	state->batches = 0;
}

static void
join_end(CustomScanState *node)
{
	MergepathJoinState *state = (MergepathJoinState *) node;

	ExecClearTuple(state->scan);
	forget_inputs(state);
	MemoryContextDelete(state->rows_cxt);
	ExecEndNode(state->outer.ps);
	ExecEndNode(state->inner.ps);
}

/*
 * A rescan returns the same rows again from memory, unless the inputs'
 * parameters changed or they were joined from row sorts: then both are
 * read again.
 */
static void
join_rescan(CustomScanState *node)
{
	MergepathJoinState *state = (MergepathJoinState *) node;
	PlanState  *inputs[2] = {state->outer.ps, state->inner.ps};
	bool		reread = state->spilled;

	ExecClearTuple(state->scan);
	for (int s = 0; s < 2; s++)
	{
		if (node->ss.ps.chgParam != NULL)
			UpdateChangedParamSet(inputs[s], node->ss.ps.chgParam);
		reread |= inputs[s]->chgParam != NULL;
	}
	/* a parallel join's shared side is built again (join_reinit_dsm) */
	if (!state->ready || state->shared)
		reread = true;
	if (!reread)
	{
		restart_output(state);
		return;
	}
	forget_inputs(state);
	for (int s = 0; s < 2; s++)
		if (inputs[s]->chgParam == NULL)
			ExecReScan(inputs[s]);
}

/* What Parallel Hash Join's table may hold: hash_mem x the participants. */
static Size
shared_budget(ParallelContext *pcxt)
{
	int			participants = pcxt->nworkers + (parallel_leader_participation ? 1 : 0);

	return get_hash_memory_limit() * Max(participants, 1);
}

/*
 * The spool's key buckets, from the planner's estimate of the inner side:
 * a partial plan's rows are a participant's, and the participants read
 * about as many each.
 */
static int
spool_buckets(MergepathJoinState *state, ParallelContext *pcxt)
{
	Plan	   *plan = state->inner.ps->plan;

	return mp_join_spool_buckets(plan->plan_rows * (pcxt->nworkers + 1), plan->plan_width,
								 shared_budget(pcxt));
}

static Size
join_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return mp_join_shared_size(pcxt->nworkers, spool_buckets((MergepathJoinState *) node, pcxt));
}

static void
join_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	MergepathJoinState *state = (MergepathJoinState *) node;

	/*
	 * No dynamic shared memory segment could be made (the query runs in the
	 * leader alone, with no DSA): the node joins as the serial one does, as
	 * Parallel Hash Join falls back to a private table.
	 */
	if (pcxt->seg == NULL)
		return;
	mp_join_shared_init(coordinate, pcxt->nworkers, shared_budget(pcxt),
						spool_buckets(state, pcxt), pcxt->seg);
	state->shared = coordinate;
	state->area = node->ss.ps.state->es_query_dsa;
}

/* Before a rescan of the Gather above: the last build's memory freed. */
static void
join_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	MergepathJoinState *state = (MergepathJoinState *) node;

	if (state->shared == NULL)
		return;
	mp_join_inner_forget(&state->sinner);
	mp_join_shared_reset(coordinate, state->area);
}

static void
join_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	MergepathJoinState *state = (MergepathJoinState *) node;

	mp_join_shared_attach_worker(coordinate);
	state->shared = coordinate;
	state->area = node->ss.ps.state->es_query_dsa;
}

/*
 * Every participant's report is in the shared memory (each writes its own
 * as its rows end); the leader, whose shutdown comes after every worker has
 * sent its last row, copies them out before the shared memory goes.
 */
static void
join_shutdown(CustomScanState *node)
{
	MergepathJoinState *state = (MergepathJoinState *) node;
	MemoryContext old;

	if (state->shared == NULL || IsParallelWorker())
		return;
	old = MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);
	if (state->reports)
		pfree(state->reports);
	state->reports = mp_join_copy_reports(state->shared, &state->nreports);
	MemoryContextSwitchTo(old);
	mp_join_inner_forget(&state->sinner);
	state->shared = NULL;
	state->area = NULL;
}

static const char *
join_type_name(JoinType jointype)
{
	switch (jointype)
	{
		case JOIN_INNER:
			return "Inner";
		case JOIN_LEFT:
			return "Left";
		case JOIN_RIGHT:
			return "Right";
		case JOIN_FULL:
			return "Full";
		case JOIN_SEMI:
			return "Semi";
		case JOIN_ANTI:
			return "Anti";
		default:
			return "?";
	}
}

/* A parallel join in key ranges, as EXPLAIN ANALYZE shows it. */
static void
explain_ranges(MergepathJoinState *state, ExplainState *es)
{
	int			nranges = 0,
				buckets = 0;
	int64		rows = 0;
	Size		peak = 0,
				budget = 0,
				disk = 0;
	bool		gpu = false,
				respilled = false;

	for (int i = 0; i < state->nreports; i++)
	{
		const mp_join_part_report *r = &state->reports[i];

		nranges = Max(nranges, r->nranges);
		rows = Max(rows, r->shared_rows);
		peak = Max(peak, r->shared_peak);
		budget = Max(budget, r->budget);
		disk += r->disk_bytes;
		gpu |= r->sort_gpu;
		buckets = Max(buckets, r->buckets);
		respilled |= r->respilled;
	}
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		char		buf[200];

		snprintf(buf, sizeof(buf), INT64_FORMAT " rows in %d key ranges (the inner side outgrew "
				 INT64_FORMAT "kB; spooled in %d key buckets%s), merged on %s", rows, nranges,
				 (int64) (budget + 1023) / 1024, buckets,
				 respilled ? ", split again" : "", gpu ? "gpu" : "cpu");
		ExplainPropertyText("Shared Inner Rows", buf, es);
		snprintf(buf, sizeof(buf), "at most " INT64_FORMAT "kB", (int64) (peak + 1023) / 1024);
		ExplainPropertyText("Shared Inner Memory", buf, es);
		snprintf(buf, sizeof(buf), INT64_FORMAT "kB written", (int64) (disk + 1023) / 1024);
		ExplainPropertyText("Disk", buf, es);
	}
	else
	{
		ExplainPropertyInteger("Shared Inner Rows", NULL, rows, es);
		ExplainPropertyInteger("Key Ranges", NULL, nranges, es);
		ExplainPropertyInteger("Spool Key Buckets", NULL, buckets, es);
		ExplainPropertyBool("Spool Split Again", respilled, es);
		ExplainPropertyInteger("Shared Inner Memory Budget", "kB", (int64) (budget + 1023) / 1024,
							   es);
		ExplainPropertyInteger("Shared Inner Peak Memory", "kB", (int64) (peak + 1023) / 1024, es);
		ExplainPropertyText("Shared Inner Merge Backend", gpu ? "gpu" : "cpu", es);
		ExplainPropertyInteger("Disk Written", "kB", (int64) (disk + 1023) / 1024, es);
	}
}

/*
 * A participant's time in the node less its phases: forming and returning
 * its rows.  From the node's instrumentation (InstrEndLoop has run, and the
 * workers' times are added to the leader's); -1 where there is none.
 */
static double
emit_ms(MergepathJoinState *state, int i, const mp_join_part_report *r)
{
	Instrumentation *instr = state->css.ss.ps.instrument;
	WorkerInstrumentation *wi = state->css.ss.ps.worker_instrument;
	double		total;

	if (instr == NULL || !instr->need_timer)
		return -1;
	if (i > 0)
	{
		if (wi == NULL || i - 1 >= wi->num_workers)
			return -1;
		total = wi->instrument[i - 1].total;
	}
	else
	{
		total = instr->total;
		if (wi != NULL)
			for (int n = 0; n < wi->num_workers; n++)
				total -= wi->instrument[n].total;
	}
	return Max(total * 1000.0 - r->inner_ms - r->split_ms - r->sort_ms - r->merge_ms -
			   r->outer_ms - r->match_ms - r->order_ms, 0);
}

/* The participants of a parallel join, as EXPLAIN ANALYZE shows them. */
static void
explain_parallel(MergepathJoinState *state, ExplainState *es)
{
	const mp_join_part_report *sorter = NULL;
	bool		ranged = false;
	int			mergers = 0;	/* participants that merged slices on the CPU */
	double		merge_ms = 0;	/* the longest part in the merge */
	char		by[32];

	for (int i = 0; i < state->nreports; i++)
	{
		if (state->reports[i].sorted_here)
			sorter = &state->reports[i];
		ranged |= state->reports[i].nranges > 0;
		mergers += state->reports[i].merged_slices > 0;
		merge_ms = Max(merge_ms, state->reports[i].merge_ms);
	}
	if (mergers > 0)
		snprintf(by, sizeof(by), "%d participant%s", mergers, mergers > 1 ? "s" : "");
	else
		strlcpy(by, sorter == state->reports ? "the leader" : "a worker", sizeof(by));
	if (ranged)
		explain_ranges(state, es);
	else if (sorter)
	{
		if (es->format == EXPLAIN_FORMAT_TEXT)
		{
			char		buf[160];

			snprintf(buf, sizeof(buf), INT64_FORMAT " rows, " INT64_FORMAT
					 " sorted parts merged on %s by %s", sorter->shared_rows, sorter->shared_parts,
					 sorter->sort_gpu ? "gpu" : "cpu", by);
			ExplainPropertyText("Shared Inner Rows", buf, es);
			snprintf(buf, sizeof(buf), INT64_FORMAT "kB (at most " INT64_FORMAT "kB)",
					 (int64) (sorter->shared_bytes + 1023) / 1024,
					 (int64) (sorter->shared_peak + 1023) / 1024);
			ExplainPropertyText("Shared Inner Memory", buf, es);
			if (es->timing)
				ExplainPropertyFloat("Shared Inner Merge Time", "ms", merge_ms, 3, es);
		}
		else
		{
			ExplainPropertyInteger("Shared Inner Rows", NULL, sorter->shared_rows, es);
			ExplainPropertyInteger("Shared Inner Parts", NULL, sorter->shared_parts, es);
			ExplainPropertyInteger("Shared Inner Memory", "kB",
								   (int64) (sorter->shared_bytes + 1023) / 1024, es);
			ExplainPropertyInteger("Shared Inner Peak Memory", "kB",
								   (int64) (sorter->shared_peak + 1023) / 1024, es);
			ExplainPropertyText("Shared Inner Merge Backend", sorter->sort_gpu ? "gpu" : "cpu",
								es);
			ExplainPropertyInteger("Shared Inner Mergers", NULL, Max(mergers, 1), es);
			ExplainPropertyFloat("Shared Inner Merge Time", "ms", merge_ms, 3, es);
		}
	}
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainOpenGroup("Participants", "Participants", false, es);
	for (int i = 0; i < state->nreports; i++)
	{
		const mp_join_part_report *r = &state->reports[i];
		double		emit;

		if (!r->ran)
			continue;
		emit = es->timing ? emit_ms(state, i, r) : -1;
		if (es->format == EXPLAIN_FORMAT_TEXT)
		{
			char		who[32];

			if (i == 0)
				strlcpy(who, "Leader", sizeof(who));
			else
				snprintf(who, sizeof(who), "Worker %d", i - 1);
			appendStringInfoSpaces(es->str, es->indent * 2);
			appendStringInfo(es->str, "%s:  ", who);
			appendStringInfo(es->str, "Inner Rows Read: " INT64_FORMAT "  Outer Rows: " INT64_FORMAT
							 "  Batches: %d  Backend: %s  Memory: " INT64_FORMAT "kB",
							 r->inner_rows, r->outer_rows, r->batches, r->any_gpu ? "gpu" : "cpu",
							 (int64) (r->peak_bytes + 1023) / 1024);
			if (ranged)
				appendStringInfo(es->str, "  Key Ranges: %d  Disk: " INT64_FORMAT "kB", r->ranges,
								 (int64) (r->disk_bytes + 1023) / 1024);
			appendStringInfoChar(es->str, '\n');
			if (es->timing)
			{
				appendStringInfoSpaces(es->str, es->indent * 2);
				appendStringInfo(es->str, "%s:  Phases: read inner %.3f ms, ", who, r->inner_ms);
				if (ranged)
					appendStringInfo(es->str, "split into ranges %.3f ms, ", r->split_ms);
				appendStringInfo(es->str, "sort its part %.3f ms, merge %.3f ms, read outer %.3f ms, "
								 "sort and search %.3f ms, order %.3f ms",
								 r->sort_ms, r->merge_ms, r->outer_ms, r->match_ms, r->order_ms);
				if (emit >= 0)
					appendStringInfo(es->str, ", emit %.3f ms", emit);
				appendStringInfoChar(es->str, '\n');
			}
		}
		else
		{
			ExplainOpenGroup("Participant", NULL, true, es);
			ExplainPropertyText("Participant", i == 0 ? "leader" : "worker", es);
			if (i > 0)
				ExplainPropertyInteger("Worker Number", NULL, i - 1, es);
			ExplainPropertyInteger("Inner Rows Read", NULL, r->inner_rows, es);
			ExplainPropertyInteger("Outer Rows", NULL, r->outer_rows, es);
			ExplainPropertyInteger("Batches", NULL, r->batches, es);
			ExplainPropertyText("Backend", r->any_gpu ? "gpu" : "cpu", es);
			ExplainPropertyInteger("Peak Memory Usage", "kB",
								   (int64) (r->peak_bytes + 1023) / 1024, es);
			if (ranged)
			{
				ExplainPropertyInteger("Key Ranges", NULL, r->ranges, es);
				ExplainPropertyInteger("Disk Written", "kB", (int64) (r->disk_bytes + 1023) / 1024,
									   es);
				ExplainPropertyFloat("Split Time", "ms", r->split_ms, 3, es);
			}
			ExplainPropertyFloat("Read Inner Time", "ms", r->inner_ms, 3, es);
			ExplainPropertyFloat("Sort Part Time", "ms", r->sort_ms, 3, es);
			ExplainPropertyFloat("Merge Parts Time", "ms", r->merge_ms, 3, es);
			ExplainPropertyFloat("Read Outer Time", "ms", r->outer_ms, 3, es);
			ExplainPropertyFloat("Match Time", "ms", r->match_ms, 3, es);
			ExplainPropertyFloat("Order Time", "ms", r->order_ms, 3, es);
			if (emit >= 0)
				ExplainPropertyFloat("Emit Time", "ms", emit, 3, es);
			ExplainCloseGroup("Participant", NULL, true, es);
		}
	}
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainCloseGroup("Participants", "Participants", false, es);
}

static void
join_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	MergepathJoinState *state = (MergepathJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
	bool		useprefix = mp_explain_rtable_size(es) > 1 || es->verbose;
	List	   *others = list_copy_tail(cscan->custom_exprs, 1);

	ExplainPropertyText("Join Type", join_type_name(state->jointype), es);
	ExplainPropertyText("Join Key",
						deparse_expression(linitial(cscan->custom_exprs), context, useprefix,
										   false), es);
	if (others != NIL)
		ExplainPropertyText("Join Filter",
							deparse_expression((Node *) make_ands_explicit(others), context,
											   useprefix, false), es);
	if (((Plan *) cscan)->parallel_aware)
		ExplainPropertyText("Inner Side", "shared by the participants, sorted once", es);
	if (es->analyze && state->reports)
	{
		/* every participant's figures; the serial node's lines would be the leader's alone */
		int64		rejected = 0;

		explain_parallel(state, es);
		for (int i = 0; i < state->nreports; i++)
			rejected += state->reports[i].rejected;
		if (others != NIL)
			ExplainPropertyInteger("Rows Removed by Join Filter", NULL, rejected, es);
		return;
	}
	if (!es->analyze || !state->ready)
		return;
	if (others != NIL)
		ExplainPropertyInteger("Rows Removed by Join Filter", NULL, state->rejected, es);
	note_peak(state);
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		StringInfoData buf;

		initStringInfo(&buf);
		appendStringInfo(&buf, "%s", state->any_gpu ? "gpu" : "cpu");
		if (state->run.note[0])
			appendStringInfo(&buf, " (%s)", state->run.note);
		ExplainPropertyText("Join Backend", buf.data, es);
		resetStringInfo(&buf);
		appendStringInfo(&buf, INT64_FORMAT "kB", (int64) (state->peak_bytes + 1023) / 1024);
		if (state->spilled)
			appendStringInfo(&buf, " (the largest key range), %d key ranges from row sorts",
							 state->batches);
		ExplainPropertyText("Join Memory", buf.data, es);
		if (es->timing)
		{
			resetStringInfo(&buf);
			appendStringInfo(&buf, "read %.3f ms, sort and match %.3f ms", state->read_ms,
							 state->match_ms);
			if (state->run.used_gpu)
				appendStringInfo(&buf, " (in %.3f, kernels %.3f, out %.3f)",
								 state->run.gpu.h2d_ms, state->run.gpu.kernel_ms,
								 state->run.gpu.d2h_ms);
			appendStringInfo(&buf, ", order %.3f ms", state->order_ms);
			ExplainPropertyText("Join Phases", buf.data, es);
		}
	}
	else
	{
		ExplainPropertyText("Join Backend", state->any_gpu ? "gpu" : "cpu", es);
		ExplainPropertyInteger("Key Ranges", NULL, state->spilled ? state->batches : 1, es);
		ExplainPropertyInteger("Peak Memory Usage", "kB",
							   (int64) (state->peak_bytes + 1023) / 1024, es);
		ExplainPropertyFloat("Read Time", "ms", state->read_ms, 3, es);
		ExplainPropertyFloat("Match Time", "ms", state->match_ms, 3, es);
		ExplainPropertyFloat("Order Time", "ms", state->order_ms, 3, es);
	}
}
