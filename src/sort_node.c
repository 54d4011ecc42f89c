/*
 * sort_node.c
 *		MergepathSort: a Sort whose sorting runs on the backends.
 *
 * The node reads its input once, keeping each row as a minimal tuple in
 * large blocks of its own memory (no allocation per row).  It folds each
 * row's sort keys into one composite order-preserving unsigned key
 * (mp_order.h: DESC inverts a key's bits, a NULL bit above a nullable key
 * puts NULLs first or last, floats order NaNs last and -0 with +0): as the
 * row is read where the keys fit one word, else in a pass after.  Then it
 * has the backend the settings choose compute the stable permutation of the
 * rows by those keys, puts the rows in that order in one gather on the CPU
 * backend's threads (the random reads overlap there, as they would not
 * while returning rows one at a time; large arrays are on huge pages,
 * node_memory.c), and returns them.  Rows
 * with equal keys come out in their input order.
 *
 * An input whose columns are all passed by value (numbers, dates,
 * timestamps: a window's or a DISTINCT's keys, say) is kept as its values,
 * not as tuples, and returned as such: nothing to form while reading and
 * nothing to deform above, as a Sort of one column sorts Datums.
 *
 * It behaves as a Sort: it supports rescans (a rewind, unless parameters of
 * its input changed), mark and restore under a Merge Join, and backward
 * fetches.  Its memory is work_mem, counted as the rows, their keys and the
 * sort's scratch: an input that outgrows it is handed, rows read so far
 * first, to PostgreSQL's own tuplesort, which sorts it in work_mem as the
 * Sort would have, spilling to disk.  EXPLAIN ANALYZE shows which way the
 * sort went, the backend that ran it and the time of each phase.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/tuplesort.h"
#include "utils/typcache.h"

#include "mp_glue.h"
#include "mp_nodes.h"
#include "mp_order.h"

/* Rows between interrupt checks while folding keys. */
#define KEY_CHUNK 65536

/* Rows put in key order between two interrupt checks. */
#define GATHER_CHUNK ((int64) 1 << 22)

/* One sort key: its column and type, and its place in the composite key. */
typedef struct sort_key
{
	AttrNumber	attno;
	mp_key_kind kind;
	int			bits;			/* of the key's value */
	bool		desc;
	bool		nulls_first;
	bool		has_nulls;		/* some row has a NULL here: the key gets a NULL bit */
	int			lo;				/* the value's lowest bit in the composite key */
} sort_key;

typedef struct MergepathSortState
{
	CustomScanState css;

	/* the Sort's keys, for the tuplesort when the node hands its rows on */
	int			nkeys;
	AttrNumber *sort_cols;
	Oid		   *sort_ops;
	Oid		   *collations;
	bool	   *nulls_first;
	sort_key   *keys;
	int			key_bits_max;	/* every key with its NULL bit */
	AttrNumber	last_key_att;	/* the highest key column */

	/*
	 * Where the keys without NULL bits fit one word, they are folded as the
	 * rows are read, while their values are at hand; the word is the
	 * composite key unless some key has NULLs.
	 */
	bool		fold_early;
	int			early_bits;
	void	   *early_keys;		/* 4 or 8 bytes a row */

	bool		random_access;	/* asked for rescans, backward fetches or marks */
	TupleDesc	tupdesc;
	MemoryContext rows_cxt;		/* the rows, their permutation; reset on re-sort */
	mp_big_set	big;			/* the large arrays among them */
	Size		limit;			/* bytes the node may hold: work_mem */

	/* the rows, in input order: tuples, or natts values a row */
	bool		value_rows;
	int			natts;
	MinimalTuple *rows;
	Datum	   *datums;
	bool	   *isnull;			/* of values: NULL while no value is NULL */
	int64		nrows;
	int64		room;
	mp_tuple_blocks blocks;		/* the tuples */
	bool		any_nulls;		/* some row has a NULL in some column */

	/* once sorted, rows (or datums and isnull) are in key order */
	bool		sorted;
	uint32	   *perm;
	int64		cur;			/* the row last returned: -1 before the first, nrows after the
								 * last */
	int64		mark;

	/* set when the input outgrew the limit */
	Tuplesortstate *tuplesort;

	/* for EXPLAIN ANALYZE */
	mp_run_report run;
	double		read_ms;
	double		keys_ms;
	double		sort_ms;
	Size		peak_bytes;
	TuplesortInstrumentation tuplesort_stats;
	bool		handed_on;
} MergepathSortState;

static Node *sort_create_state(CustomScan *cscan);
static void sort_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *sort_exec(CustomScanState *node);
static void sort_end(CustomScanState *node);
static void sort_rescan(CustomScanState *node);
static void sort_mark(CustomScanState *node);
static void sort_restore(CustomScanState *node);
static void sort_explain(CustomScanState *node, List *ancestors, ExplainState *es);

const CustomScanMethods mp_sort_scan_methods = {
	.CustomName = "MergepathSort",
	.CreateCustomScanState = sort_create_state,
};

static const CustomExecMethods sort_exec_methods = {
	.CustomName = "MergepathSort",
	.BeginCustomScan = sort_begin,
	.ExecCustomScan = sort_exec,
	.EndCustomScan = sort_end,
	.ReScanCustomScan = sort_rescan,
	.MarkPosCustomScan = sort_mark,
	.RestrPosCustomScan = sort_restore,
	.ExplainCustomScan = sort_explain,
};

static Node *
sort_create_state(CustomScan *cscan)
{
	MergepathSortState *state = palloc0(sizeof(MergepathSortState));

	NodeSetTag(state, T_CustomScanState);
	state->css.flags = cscan->flags;
	state->css.methods = &sort_exec_methods;
	return (Node *) state;
}

static void
sort_begin(CustomScanState *node, EState *estate, int eflags)
{
	MergepathSortState *state = (MergepathSortState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *cols = linitial(cscan->custom_private),
			   *ops = lsecond(cscan->custom_private),
			   *colls = lthird(cscan->custom_private),
			   *nulls = lfourth(cscan->custom_private);

	state->random_access =
		(eflags & (EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK)) != 0;
	outerPlanState(state) = ExecInitNode(outerPlan(cscan), estate,
										 eflags & ~(EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD |
													EXEC_FLAG_MARK));
	state->tupdesc = ExecGetResultType(outerPlanState(state));
	state->natts = state->tupdesc->natts;
	state->value_rows = true;
	for (int i = 0; i < state->natts; i++)
		state->value_rows &= TupleDescAttr(state->tupdesc, i)->attbyval;

	/* rows leave as minimal tuples, as a Sort's do */
	node->ss.ps.ps_ResultTupleSlot =
		ExecInitExtraTupleSlot(estate, node->ss.ps.ps_ResultTupleDesc, &TTSOpsMinimalTuple);
	node->ss.ps.resultops = &TTSOpsMinimalTuple;
	node->ss.ps.resultopsfixed = true;
	node->ss.ps.resultopsset = true;

	state->nkeys = list_length(cols);
	state->sort_cols = palloc(state->nkeys * sizeof(AttrNumber));
	state->sort_ops = palloc(state->nkeys * sizeof(Oid));
	state->collations = palloc(state->nkeys * sizeof(Oid));
	state->nulls_first = palloc(state->nkeys * sizeof(bool));
	state->keys = palloc0(state->nkeys * sizeof(sort_key));
	for (int i = 0; i < state->nkeys; i++)
	{
		sort_key   *key = &state->keys[i];
		Form_pg_attribute att;
		TypeCacheEntry *tc;

		state->sort_cols[i] = (AttrNumber) list_nth_int(cols, i);
		state->sort_ops[i] = list_nth_oid(ops, i);
		state->collations[i] = list_nth_oid(colls, i);
		state->nulls_first[i] = list_nth_int(nulls, i) != 0;

		att = TupleDescAttr(state->tupdesc, state->sort_cols[i] - 1);
		tc = lookup_type_cache(getBaseType(att->atttypid), TYPECACHE_GT_OPR);
		key->attno = state->sort_cols[i];
		key->kind = mp_key_kind_of(att->atttypid);
		key->bits = mp_key_kind_bits(key->kind);
		key->desc = state->sort_ops[i] == tc->gt_opr;
		key->nulls_first = state->nulls_first[i];
		if (key->kind == MP_KEY_NONE)
			elog(ERROR, "MergepathSort: column %d of type %s cannot be a key", key->attno,
				 format_type_be(att->atttypid));
		state->key_bits_max += key->bits + 1;
		state->last_key_att = Max(state->last_key_att, key->attno);
	}
	for (int i = state->nkeys - 1; i >= 0; i--)
	{
		state->keys[i].lo = state->early_bits;
		state->early_bits += state->keys[i].bits;
	}
	state->fold_early = state->early_bits <= 64;
	state->limit = (Size) work_mem * 1024;
	state->rows_cxt = AllocSetContextCreate(estate->es_query_cxt, "MergepathSort rows",
											ALLOCSET_DEFAULT_SIZES);
	mp_big_init(&state->big, state->rows_cxt);
}

/* Bytes a row costs besides its tuple (a row of values: with them). */
static Size
row_bytes(MergepathSortState *state)
{
	/* values are held twice while put_in_order rearranges them */
	return mp_sort_row_overhead(state->key_bits_max) +
		(state->value_rows ? 2 * state->natts * (sizeof(Datum) + sizeof(bool)) : 0);
}

static void *
grow_array(MergepathSortState *state, void *array, Size old_room, Size room, Size elsize)
{
	return mp_big_realloc(&state->big, array, old_room * elsize, room * elsize);
}

static inline Size
early_bytes(MergepathSortState *state)
{
	return state->early_bits <= 32 ? 4 : 8;
}

/*
 * The slot's keys folded into one word, laid out as if no key had NULLs
 * (lay_out_keys then agrees unless one has); notes the keys that have.
 */
static inline void
fold_early(MergepathSortState *state, TupleTableSlot *slot)
{
	uint64		acc = 0;

	slot_getsomeattrs(slot, state->last_key_att);
	for (int k = 0; k < state->nkeys; k++)
	{
		sort_key   *key = &state->keys[k];
		bool		isnull = slot->tts_isnull[key->attno - 1];
		uint64		v = isnull ? 0 : mp_fold_key(key->kind, slot->tts_values[key->attno - 1]);

		acc |= mp_key_value(v, key->bits, key->desc, isnull) << key->lo;
		key->has_nulls |= isnull;
	}
	if (early_bytes(state) == 4)
		((uint32 *) state->early_keys)[state->nrows] = (uint32) acc;
	else
		((uint64 *) state->early_keys)[state->nrows] = acc;
}

/* Keeps the slot's row, copied once into the blocks (or its values). */
static void
keep_row(MergepathSortState *state, TupleTableSlot *slot)
{
	MinimalTuple row;

	if (state->nrows == state->room)
	{
		/*
		 * Counted with the rows (mp_sort_row_overhead).  The first room is
		 * the planner's estimate: large arrays are mapped, so room that
		 * stays unused costs no memory.
		 */
		Size		old = state->room;
		double		estimate = Min(state->css.ss.ps.plan->plan_rows * 1.2,
								   (double) state->limit / row_bytes(state));

		state->room = old == 0 ? Max((Size) Min(estimate, (double) (1 << 26)), 1024) : old * 2;
		if (state->value_rows)
			state->datums = grow_array(state, state->datums, old * state->natts,
									   state->room * state->natts, sizeof(Datum));
		else
			state->rows = grow_array(state, state->rows, old, state->room,
									 sizeof(MinimalTuple));
		if (state->value_rows && state->isnull)
			state->isnull = grow_array(state, state->isnull, old * state->natts,
									   state->room * state->natts, sizeof(bool));
		if (state->fold_early)
			state->early_keys = grow_array(state, state->early_keys, old, state->room,
										   early_bytes(state));
	}
	if (state->fold_early)
		fold_early(state, slot);
	if (state->value_rows)
	{
		Size		at = (Size) state->nrows * state->natts;

		slot_getallattrs(slot);
		memcpy(state->datums + at, slot->tts_values, state->natts * sizeof(Datum));
		if (state->isnull == NULL &&
			memchr(slot->tts_isnull, true, state->natts * sizeof(bool)) != NULL)
		{
			/* the first NULL: the rows before it had none */
			state->isnull = mp_big_alloc(&state->big, state->room * state->natts * sizeof(bool));
			memset(state->isnull, 0, at * sizeof(bool));
		}
		if (state->isnull)
			memcpy(state->isnull + at, slot->tts_isnull, state->natts * sizeof(bool));
		for (int k = 0; k < state->nkeys && !state->fold_early; k++)
			state->keys[k].has_nulls |= slot->tts_isnull[state->keys[k].attno - 1];
		state->nrows++;
		return;
	}
	row = mp_keep_tuple(&state->big, &state->blocks, slot);
	state->any_nulls |= (row->t_infomask & HEAP_HASNULL) != 0;
	state->rows[state->nrows++] = row;
}

static bool
over_limit(MergepathSortState *state)
{
	return state->blocks.held + state->nrows * row_bytes(state) > state->limit ||
		state->nrows >= (int64) UINT32_MAX;
}

/* Row i into the slot, which returns it. */
static inline TupleTableSlot *
store_row(MergepathSortState *state, int64 i, TupleTableSlot *slot)
{
	if (!state->value_rows)
		return ExecStoreMinimalTuple(state->rows[i], slot, false);
	ExecClearTuple(slot);
	memcpy(slot->tts_values, state->datums + i * state->natts, state->natts * sizeof(Datum));
	if (state->isnull)
		memcpy(slot->tts_isnull, state->isnull + i * state->natts, state->natts * sizeof(bool));
	else
		memset(slot->tts_isnull, 0, state->natts * sizeof(bool));
	return ExecStoreVirtualTuple(slot);
}

/* Frees the rows and all that was made of them. */
static void
forget_rows(MergepathSortState *state)
{
	MemoryContextReset(state->rows_cxt);
	state->rows = NULL;
	state->datums = NULL;
	state->isnull = NULL;
	state->perm = NULL;
	state->early_keys = NULL;
	state->nrows = state->room = 0;
	memset(&state->blocks, 0, sizeof(state->blocks));
	state->any_nulls = false;
	for (int k = 0; k < state->nkeys; k++)
		state->keys[k].has_nulls = false;
}

/* The rows so far go to a tuplesort, which takes the rest of the input. */
static void
hand_on(MergepathSortState *state)
{
	TupleTableSlot *slot = state->css.ss.ps.ps_ResultTupleSlot;

	state->tuplesort = tuplesort_begin_heap(state->tupdesc, state->nkeys, state->sort_cols,
											state->sort_ops, state->collations,
											state->nulls_first, work_mem, NULL,
											state->random_access ? TUPLESORT_RANDOMACCESS
											: TUPLESORT_NONE);
	for (int64 i = 0; i < state->nrows; i++)
	{
		store_row(state, i, slot);
		tuplesort_puttupleslot(state->tuplesort, slot);
	}
	ExecClearTuple(slot);
	forget_rows(state);
	state->handed_on = true;
}

/*
 * Lays the keys out in the composite key, the last key in the lowest bits,
 * a NULL bit above each key that has NULLs; returns the bits in all.
 */
static int
lay_out_keys(MergepathSortState *state)
{
	int			lo = 0;

	if (!state->value_rows && state->any_nulls && !state->fold_early)
	{
		for (int64 i = 0; i < state->nrows; i++)
		{
			MinimalTuple row = state->rows[i];

			if (!(row->t_infomask & HEAP_HASNULL))
				continue;
			for (int k = 0; k < state->nkeys; k++)
				state->keys[k].has_nulls |= att_isnull(state->keys[k].attno - 1, row->t_bits);
		}
	}
	for (int k = state->nkeys - 1; k >= 0; k--)
	{
		state->keys[k].lo = lo;
		lo += state->keys[k].bits + state->keys[k].has_nulls;
	}
	return lo;
}

/* The rows' composite keys, as mp_row_keys words. */
static void *
fold_keys(MergepathSortState *state, int total_bits, int *nwords, int *word_bytes)
{
	int64		n = state->nrows;
	void	   *words;
	uint64	   *acc;
	HeapTupleData tuple;

	*word_bytes = total_bits <= 32 ? 4 : 8;
	*nwords = total_bits <= 32 ? 1 : (total_bits + 63) / 64;
	words = mp_big_alloc(&state->big, (Size) n * *nwords * *word_bytes);
	acc = palloc((*nwords + 1) * sizeof(uint64));
	for (int64 lo = 0; lo < n; lo += KEY_CHUNK)
	{
		int64		hi = Min(lo + KEY_CHUNK, n);

		CHECK_FOR_INTERRUPTS();
		for (int64 i = lo; i < hi; i++)
		{
			memset(acc, 0, *nwords * sizeof(uint64));
			if (!state->value_rows)
				mp_row_as_heap(state->rows[i], &tuple);
			for (int k = 0; k < state->nkeys; k++)
			{
				sort_key   *key = &state->keys[k];
				bool		isnull;
				Datum		d;
				uint64		v;

				if (state->value_rows)
				{
					d = state->datums[i * state->natts + key->attno - 1];
					isnull = state->isnull &&
						state->isnull[i * state->natts + key->attno - 1];
				}
				else
					d = heap_getattr(&tuple, key->attno, state->tupdesc, &isnull);
				v = isnull ? 0 : mp_fold_key(key->kind, d);

				mp_key_put(acc, key->lo, key->bits, mp_key_value(v, key->bits, key->desc, isnull));
				if (key->has_nulls)
					mp_key_put(acc, key->lo + key->bits, 1,
							   mp_key_null_bit(isnull, key->nulls_first));
			}
			if (*word_bytes == 4)
				((uint32 *) words)[i] = (uint32) acc[0];
			else
				for (int w = 0; w < *nwords; w++)
					((uint64 *) words)[(Size) w * n + i] = acc[w];
		}
	}
	pfree(acc);
	return words;
}

/* Memory held now, if more than before: for EXPLAIN ANALYZE. */
static void
note_peak(MergepathSortState *state)
{
	Size		held = MemoryContextMemAllocated(state->rows_cxt, true) + state->big.mapped;

	state->peak_bytes = Max(state->peak_bytes, held);
}

/* The sort as mp_run's work. */
typedef struct rows_run
{
	MergepathSortState *state;
	mp_row_keys keys;
} rows_run;

static mp_status
rows_on_cpu(void *ctx, mp_poll_fn poll)
{
	rows_run   *run = ctx;
	MergepathSortState *state = run->state;
	void	   *scratch = mp_big_alloc(&state->big, mp_cpu_sort_rows_scratch(state->nrows));
	mp_status	st = mp_cpu_sort_rows(&run->keys, state->nrows, state->perm, scratch, poll);

	note_peak(state);
	mp_big_free(&state->big, scratch);
	return st;
}

static mp_status
rows_on_gpu(void *ctx, mp_poll_fn poll, mp_gpu_timing *timing)
{
	rows_run   *run = ctx;

	return mp_gpu_sort_rows(&run->keys, run->state->nrows, run->state->perm, poll, timing);
}

/*
 * dst[i] = src[perm[i]], records of rec_bytes: a gather on the CPU backend's
 * threads, where the random reads are many in flight (rather than one a
 * returned row), in chunks with an interrupt check between them.
 */
static void *
gather(MergepathSortState *state, void *src, Size rec_bytes)
{
	int64		n = state->nrows;
	char	   *dst = mp_big_alloc(&state->big, n * rec_bytes);

	for (int64 lo = 0; lo < n; lo += GATHER_CHUNK)
	{
		CHECK_FOR_INTERRUPTS();
		mp_cpu_gather(dst + lo * rec_bytes, src, rec_bytes, state->perm + lo,
					  Min(GATHER_CHUNK, n - lo), mp_cpu_threads);
	}
	note_peak(state);
	mp_big_free(&state->big, src);
	return dst;
}

/*
 * The rows (or values) rearranged by the permutation, so that they are
 * returned by one sequential read.
 */
static void
put_in_order(MergepathSortState *state)
{
	if (state->nrows > 0 && state->value_rows)
	{
		state->datums = gather(state, state->datums, state->natts * sizeof(Datum));
		if (state->isnull)
			state->isnull = gather(state, state->isnull, state->natts * sizeof(bool));
	}
	else if (state->nrows > 0)
		state->rows = gather(state, state->rows, sizeof(MinimalTuple));
	note_peak(state);
	mp_big_free(&state->big, state->perm);
	state->perm = NULL;
	mp_big_trim(&state->big);
}

/* Reads the whole input and puts it in key order. */
static void
sort_input(MergepathSortState *state)
{
	PlanState  *outer = outerPlanState(state);
	double		t0 = mp_now_ms(),
				t1;

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(outer);

		if (TupIsNull(slot))
			break;
		if (state->tuplesort)
			tuplesort_puttupleslot(state->tuplesort, slot);
		else
		{
			keep_row(state, slot);
			if (over_limit(state))
				hand_on(state);
		}
	}
	t1 = mp_now_ms();
	state->read_ms = t1 - t0;

	if (state->tuplesort)
	{
		tuplesort_performsort(state->tuplesort);
		tuplesort_get_stats(state->tuplesort, &state->tuplesort_stats);
		state->sort_ms = mp_now_ms() - t1;
	}
	else
	{
		rows_run	run = {state};
		int			total = lay_out_keys(state);
		int		   *bits;

		if (state->fold_early && total == state->early_bits)
		{
			/* no key has NULLs: the keys folded while reading are the keys */
			run.keys.words = state->early_keys;
			run.keys.nwords = 1;
			run.keys.word_bytes = early_bytes(state);
		}
		else
		{
			mp_big_free(&state->big, state->early_keys);
			run.keys.words = fold_keys(state, total, &run.keys.nwords, &run.keys.word_bytes);
		}
		state->early_keys = NULL;
		bits = palloc(run.keys.nwords * sizeof(int));
		for (int w = 0; w < run.keys.nwords; w++)
			bits[w] = Min(total - 64 * w, run.keys.word_bytes * 8);
		run.keys.bits = bits;
		state->perm = mp_big_alloc(&state->big, Max(state->nrows, 1) * sizeof(uint32));
		state->keys_ms = mp_now_ms() - t1;
		state->peak_bytes = 0;
		note_peak(state);

		(void) mp_run("MergepathSort", MP_OP_NODES, state->nrows, &run, rows_on_cpu, rows_on_gpu, &state->run);
		mp_big_free(&state->big, (void *) run.keys.words);
		pfree(bits);
		put_in_order(state);
		state->sort_ms = mp_now_ms() - t1 - state->keys_ms;
	}
	state->sorted = true;
	state->cur = -1;
}

static TupleTableSlot *
sort_exec(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;
	TupleTableSlot *slot = node->ss.ps.ps_ResultTupleSlot;
	bool		forward = ScanDirectionIsForward(node->ss.ps.state->es_direction);

	if (!state->sorted)
		sort_input(state);
	if (state->tuplesort)
	{
		(void) tuplesort_gettupleslot(state->tuplesort, forward, false, slot, NULL);
		return slot;
	}
	if (forward)
		state->cur += state->cur < state->nrows;
	else
		state->cur -= state->cur >= 0;
	if (state->cur < 0 || state->cur >= state->nrows)
		ExecClearTuple(slot);
	else
	{
		/* the rows are scattered over the blocks: ask for one a few ahead */
		if (state->cur + 8 < state->nrows && !state->value_rows)
			__builtin_prefetch(state->rows[state->cur + 8]);
		store_row(state, state->cur, slot);
	}
	return slot;
}

/* Forgets the input, so that the next fetch reads and sorts it again. */
static void
forget_input(MergepathSortState *state)
{
	if (state->tuplesort)
		tuplesort_end(state->tuplesort);
	state->tuplesort = NULL;
	forget_rows(state);
	state->sorted = false;
	state->handed_on = false;
}

static void
sort_end(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;

	ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
	forget_input(state);
	MemoryContextDelete(state->rows_cxt);
	ExecEndNode(outerPlanState(node));
}

/* As a Sort: rewind, unless the input must be read again. */
static void
sort_rescan(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;
	PlanState  *outer = outerPlanState(node);

	if (!state->sorted)
		return;
	ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
	if (outer->chgParam != NULL || (state->tuplesort && !state->random_access))
	{
		forget_input(state);
		if (outer->chgParam == NULL)
			ExecReScan(outer);
	}
	else if (state->tuplesort)
		tuplesort_rescan(state->tuplesort);
	else
		state->cur = -1;
}

static void
sort_mark(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;

	if (!state->sorted)
		return;
	if (state->tuplesort)
		tuplesort_markpos(state->tuplesort);
	else
		state->mark = state->cur;
}

static void
sort_restore(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;

	if (state->tuplesort)
		tuplesort_restorepos(state->tuplesort);
	else
		state->cur = state->mark;
}

/* "Sort Key: a, b DESC" as EXPLAIN shows a Sort's. */
static void
explain_keys(MergepathSortState *state, List *ancestors, ExplainState *es)
{
	Plan	   *plan = state->css.ss.ps.plan;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, plan, ancestors);
	bool		useprefix = mp_explain_rtable_size(es) > 1 || es->verbose;
	List	   *items = NIL;

	for (int i = 0; i < state->nkeys; i++)
	{
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, state->sort_cols[i]);
		StringInfoData buf;

		initStringInfo(&buf);
		appendStringInfoString(&buf, deparse_expression((Node *) tle->expr, context,
														useprefix, true));
		if (state->keys[i].desc)
			appendStringInfoString(&buf, " DESC");
		if (state->nulls_first[i] != state->keys[i].desc)
			appendStringInfoString(&buf, state->nulls_first[i] ? " NULLS FIRST" : " NULLS LAST");
		items = lappend(items, buf.data);
	}
	ExplainPropertyList("Sort Key", items, es);
}

static void
sort_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	MergepathSortState *state = (MergepathSortState *) node;
	const char *method;
	const char *space_type;
	int64		space_kb;
	char	   *backend;
	double		return_ms;

	explain_keys(state, ancestors, es);
	if (!es->analyze || !state->sorted)
		return;

	if (state->handed_on)
	{
		method = tuplesort_method_name(state->tuplesort_stats.sortMethod);
		space_type = tuplesort_space_type_name(state->tuplesort_stats.spaceType);
		space_kb = state->tuplesort_stats.spaceUsed;
		backend = psprintf("PostgreSQL tuplesort (the input outgrew work_mem)");
	}
	else
	{
		method = "radix";
		space_type = "Memory";
		space_kb = (int64) (state->peak_bytes + 1023) / 1024;
		backend = state->run.note[0]
			? psprintf("%s (%s)", state->run.used_gpu ? "gpu" : "cpu", state->run.note)
			: pstrdup(state->run.used_gpu ? "gpu" : "cpu");
	}
	if (es->format == EXPLAIN_FORMAT_TEXT)
		ExplainPropertyText("Sort Method",
							psprintf("%s  %s: " INT64_FORMAT "kB", method, space_type, space_kb),
							es);
	else
	{
		ExplainPropertyText("Sort Method", method, es);
		ExplainPropertyInteger("Sort Space Used", "kB", space_kb, es);
		ExplainPropertyText("Sort Space Type", space_type, es);
	}
	ExplainPropertyText("Sort Backend", backend, es);
	if (!es->timing || node->ss.ps.instrument == NULL)
		return;

	/* the rest of the node's time (InstrEndLoop has run): returning rows */
	return_ms = Max(node->ss.ps.instrument->total * 1000.0 - state->read_ms - state->keys_ms -
					state->sort_ms, 0);
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		StringInfoData buf;

		initStringInfo(&buf);
		appendStringInfo(&buf, "read %.3f ms", state->read_ms);
		if (!state->handed_on)
			appendStringInfo(&buf, ", keys %.3f ms", state->keys_ms);
		appendStringInfo(&buf, ", sort %.3f ms", state->sort_ms);
		if (state->run.used_gpu)
			appendStringInfo(&buf, " (in %.3f, kernels %.3f, out %.3f)", state->run.gpu.h2d_ms,
							 state->run.gpu.kernel_ms, state->run.gpu.d2h_ms);
		if (!state->handed_on)
			appendStringInfo(&buf, ", return %.3f ms", return_ms);
		ExplainPropertyText("Sort Phases", buf.data, es);
	}
	else
	{
		ExplainPropertyFloat("Read Time", "ms", state->read_ms, 3, es);
		ExplainPropertyFloat("Keys Time", "ms", state->keys_ms, 3, es);
		ExplainPropertyFloat("Sort Time", "ms", state->sort_ms, 3, es);
		ExplainPropertyFloat("Return Time", "ms", return_ms, 3, es);
	}
}
