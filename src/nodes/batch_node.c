/*
 * batch_node.c
 *		MergepathBatch: the per-row calls of mergepath's array functions
 *		in a node's target list and filter, run a batch of rows at a time.
 *
 * The node reads up to a batch of its input's rows (BATCH_ROWS, or
 * BATCH_BYTES of rows and arguments), keeping each as its values, those
 * passed by reference copied into blocks of memory that every batch reuses
 * (the arena).  For every batched
 * call it evaluates the arguments of each row, and the batch reads their
 * elements where they lie, in the kept rows (or in the plan, for a
 * constant): a row's arrays are copied once, with the row.  Each call then
 * runs once for the whole batch on the backend that mp_run chooses for the
 * batch's elements, writing each row's result straight into the array the
 * row returns (its room in the arena).  The rows are then returned one by
 * one: the calls' results are the scan tuple, and the target list and
 * filter that batch_plan.c rewrote read them from there.
 *
 * A row is run by the original expressions instead (calls included, so
 * that the function itself raises whatever error it raises) when an
 * argument is one the function refuses (NULL elements, several
 * dimensions), when the batch finds one of its arrays unsorted (the
 * batch is then run again without it), or when a result would be too
 * large for an array.  A NULL argument gives a NULL result, as the strict
 * function does.
 *
 * Under mergepath.device = auto, batches are for the GPU (batch_plan.c
 * places the node only where the process may have one; the first batch is
 * short, FIRST_BATCH_ROWS, to find out at little cost): once one runs on
 * the CPU backend (below the GPU's threshold, or no GPU to be had), or
 * from the start where this process knows it has no usable GPU, the node
 * returns the rest of its input's rows row by row, through the original
 * expressions, as the node below would have (test/bench/NOTES.md,
 * "Batches of per-row calls": the CPU backend's batches were slower than
 * the calls row by row on the development machine at every size).
 * mergepath.device = cpu batches on the CPU.
 *
 * EXPLAIN shows the calls; EXPLAIN ANALYZE the batches, the backend that
 * ran them, the rows run one by one and the time of each phase (in a
 * parallel plan, the leader's own).
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/expandeddatum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "../functions/mp_batchable.h"
#include "mp_nodes.h"

/* A batch: at most this many rows, or this many bytes of rows and
 * argument elements (test/bench/NOTES.md, "Batches of per-row calls"). */
#define BATCH_ROWS 16384

/* Under mergepath.device = auto, the first batch: enough rows to learn
 * whether the GPU takes the batches, few enough to cost little when the
 * CPU would run them and the node goes row by row. */
#define FIRST_BATCH_ROWS 1024
#define BATCH_BYTES ((Size) 16 << 20)

/* The arena's blocks; a larger piece has memory of its own for the batch. */
#define ARENA_BLOCK ((Size) 1 << 20)
#define ARENA_OWN (ARENA_BLOCK / 4)

/* One batched call: its arguments of each row, and its results. */
typedef struct batch_call
{
	const mp_batch_fn *fn;
	ExprState  *args[2];
	bool		stable[2];		/* a column or a constant: its arrays stay
								 * where the evaluation finds them */
	mp_type		type;
	Oid			result_elemtype;
	size_t		elsize;
	const void **at[2];			/* where row r's elements of each argument lie */
	int64	   *off[2];			/* row r's: off[r + 1] - off[r] elements */
	ArrayType **result;			/* each row's result, or */
	bool	   *isnull;			/* NULL (a NULL argument) */
} batch_call;

/* Blocks of memory reused by every batch. */
typedef struct batch_arena
{
	char	  **blocks;
	int			nblocks;
	int			room;			/* entries of blocks */
	int			cur;			/* the block being filled */
	Size		used;			/* of it */
} batch_arena;

typedef struct MergepathBatchState
{
	CustomScanState css;

	int			ncalls;
	batch_call *calls;
	ExprState  *row_qual;		/* the original expressions, for rows run */
	ProjectionInfo *row_proj;	/* one by one */
	ExprState  *pass_qual;		/* the same over the input's own rows, once */
	ProjectionInfo *pass_proj;	/* the node runs row by row */
	bool		row_by_row;		/* mergepath.device = auto and the CPU would
								 * run the batches */
	bool		reads_row;		/* the target list or filter reads the input
								 * row besides the calls' results */
	int			batch_rows;		/* rows the next batch takes at most */

	TupleTableSlot *row_slot;	/* a kept row, as the expressions read it */
	MemoryContext node_cxt;		/* what lasts as long as the node */
	MemoryContext batch_cxt;	/* the batch's pieces too large for the arena */
	batch_arena arena;			/* the batch's rows, copies and results */
	Datum	  **rows;			/* each row's values, then its NULL flags */
	bool	   *one_by_one;		/* the row is run by the original expressions */
	int			nrows;
	int			next;
	bool		input_done;
	void	  **out_at;			/* each row's room for a call's result */
	int64	   *out_off;

	/* for EXPLAIN ANALYZE */
	int64		batches;
	int64		rows_in;
	int64		rows_one_by_one;
	int64		rows_not_batched;
	int64		gpu_runs;
	int64		cpu_runs;
	char		cpu_note[320];
	double		read_ms;
	double		call_ms;
} MergepathBatchState;

static Node *batch_create_state(CustomScan *cscan);
static void batch_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *batch_exec(CustomScanState *node);
static void batch_end(CustomScanState *node);
static void batch_rescan(CustomScanState *node);
static void batch_explain(CustomScanState *node, List *ancestors, ExplainState *es);

const CustomScanMethods mp_batch_scan_methods = {
	.CustomName = "MergepathBatch",
	.CreateCustomScanState = batch_create_state,
};

static const CustomExecMethods batch_exec_methods = {
	.CustomName = "MergepathBatch",
	.BeginCustomScan = batch_begin,
	.ExecCustomScan = batch_exec,
	.EndCustomScan = batch_end,
	.ReScanCustomScan = batch_rescan,
	.ExplainCustomScan = batch_explain,
};

/* Where an argument of no elements lies. */
static const int64 no_elements[1];

/* Whether an expression reads a column of the input's row. */
static bool
reads_outer(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varno == OUTER_VAR;
	return expression_tree_walker(node, reads_outer, context);
}

/* len bytes, MAXALIGNed, that last until the next batch. */
static void *
arena_alloc(MergepathBatchState *state, Size len)
{
	batch_arena *arena = &state->arena;
	char	   *at;

	len = MAXALIGN(len);
	if (len > ARENA_OWN)
		return MemoryContextAllocHuge(state->batch_cxt, len);
	if (arena->nblocks == 0 || arena->used + len > ARENA_BLOCK)
	{
		if (arena->nblocks > 0)
			arena->cur++;
		if (arena->cur == arena->nblocks)
		{
			if (arena->nblocks == arena->room)
			{
				arena->room = Max(16, arena->room * 2);
				arena->blocks = arena->blocks == NULL
					? MemoryContextAlloc(state->node_cxt, arena->room * sizeof(char *))
					: repalloc(arena->blocks, arena->room * sizeof(char *));
			}
			arena->blocks[arena->nblocks++] = MemoryContextAlloc(state->node_cxt,
																  ARENA_BLOCK);
		}
		arena->used = 0;
	}
	at = arena->blocks[arena->cur] + arena->used;
	arena->used += len;
	return at;
}

/* The next batch reuses the arena from its start. */
static void
arena_reset(MergepathBatchState *state)
{
	state->arena.cur = 0;
	state->arena.used = 0;
	MemoryContextReset(state->batch_cxt);
}

/*
 * The slot's row kept as its values, the by-reference ones copied into the
 * arena as tts_virtual_materialize copies them, but for two things: an
 * expanded value is flattened, and a short varlena gets a 4-byte header,
 * so that an array is read where it lies.  Returns the bytes copied.
 */
static Size
keep_row(MergepathBatchState *state, TupleTableSlot *slot, int r)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			natts = desc->natts;
	Datum	   *values = arena_alloc(state, natts * (sizeof(Datum) + sizeof(bool)));
	bool	   *isnull = (bool *) (values + natts);
	Size		bytes = natts * (sizeof(Datum) + sizeof(bool));

	slot_getallattrs(slot);
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Pointer		from = DatumGetPointer(slot->tts_values[i]);
		Size		len;
		char	   *to;

		values[i] = slot->tts_values[i];
		isnull[i] = slot->tts_isnull[i];
		if (isnull[i] || att->attbyval)
			continue;
		if (att->attlen == -1 && VARATT_IS_EXTERNAL_EXPANDED(from))
		{
			ExpandedObjectHeader *eoh = DatumGetEOHP(values[i]);

			len = EOH_get_flat_size(eoh);
			to = arena_alloc(state, len);
			EOH_flatten_into(eoh, to, len);
		}
		else if (att->attlen == -1 && VARATT_IS_SHORT(from) && !VARATT_IS_EXTERNAL(from))
		{
			Size		data_len = VARSIZE_SHORT(from) - VARHDRSZ_SHORT;

			len = data_len + VARHDRSZ;
			to = arena_alloc(state, len);
			SET_VARSIZE(to, len);
			memcpy(VARDATA(to), VARDATA_SHORT(from), data_len);
		}
		else
		{
			len = att_addlength_datum(0, att->attlen, values[i]);
			to = arena_alloc(state, len);
			memcpy(to, from, len);
		}
		values[i] = PointerGetDatum(to);
		bytes += len;
	}
	state->rows[r] = values;
	return bytes;
}

/* Kept row r into the slot the expressions read it from. */
static void
put_row(MergepathBatchState *state, int r)
{
	TupleTableSlot *slot = state->row_slot;
	int			natts = slot->tts_tupleDescriptor->natts;

	ExecClearTuple(slot);
	memcpy(slot->tts_values, state->rows[r], natts * sizeof(Datum));
	memcpy(slot->tts_isnull, state->rows[r] + natts, natts * sizeof(bool));
	ExecStoreVirtualTuple(slot);
}

static Node *
batch_create_state(CustomScan *cscan)
{
	MergepathBatchState *state = palloc0(sizeof(MergepathBatchState));

	NodeSetTag(state, T_CustomScanState);
	state->css.flags = cscan->flags;
	state->css.methods = &batch_exec_methods;
	return (Node *) state;
}

static void
batch_begin(CustomScanState *node, EState *estate, int eflags)
{
	MergepathBatchState *state = (MergepathBatchState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *row_tlist = linitial(cscan->custom_exprs),
			   *row_qual = lsecond(cscan->custom_exprs);
	ListCell   *lc;
	int			k = 0;

	outerPlanState(state) = ExecInitNode(outerPlan(cscan), estate, eflags);
	state->pass_qual = ExecInitQual(row_qual, &node->ss.ps);
	state->pass_proj = ExecBuildProjectionInfo(row_tlist, node->ss.ps.ps_ExprContext,
											   node->ss.ps.ps_ResultTupleSlot, &node->ss.ps,
											   NULL);
	state->row_by_row = mp_device == MP_DEVICE_AUTO && mp_gpu_known_unusable();
	state->batch_rows = mp_device == MP_DEVICE_AUTO ? FIRST_BATCH_ROWS : BATCH_ROWS;
	state->row_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(outerPlanState(state)),
											 &TTSOpsVirtual);
	/* the expressions read the input's rows from the kept copies */
	node->ss.ps.outerops = &TTSOpsVirtual;
	node->ss.ps.outeropsfixed = true;
	node->ss.ps.outeropsset = true;
	state->row_qual = ExecInitQual(row_qual, &node->ss.ps);
	state->row_proj = ExecBuildProjectionInfo(row_tlist, node->ss.ps.ps_ExprContext,
											  node->ss.ps.ps_ResultTupleSlot, &node->ss.ps,
											  NULL);
	state->node_cxt = CurrentMemoryContext;
	state->batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "MergepathBatch rows",
											 ALLOCSET_DEFAULT_SIZES);
	state->rows = palloc(BATCH_ROWS * sizeof(Datum *));
	state->one_by_one = palloc(BATCH_ROWS * sizeof(bool));
	state->out_at = palloc(BATCH_ROWS * sizeof(void *));
	state->out_off = palloc((BATCH_ROWS + 1) * sizeof(int64));

	state->ncalls = list_length(cscan->custom_scan_tlist);
	state->calls = palloc0(state->ncalls * sizeof(batch_call));
	foreach(lc, cscan->custom_scan_tlist)
	{
		FuncExpr   *expr = (FuncExpr *) lfirst_node(TargetEntry, lc)->expr;
		batch_call *call = &state->calls[k++];
		Oid			elemtype = get_element_type(getBaseType(exprType(linitial(expr->args))));
		int			j = 0;
		ListCell   *la;

		call->fn = mp_batch_fn_of(expr->funcid);
		if (call->fn == NULL || !OidIsValid(elemtype))
			elog(ERROR, "MergepathBatch: function %u cannot be batched", expr->funcid);
		call->type = mp_type_of(elemtype);
		call->elsize = mp_type_size(call->type);
		call->result_elemtype = call->fn->kind == MP_ARRAY_SEARCH ? INT4OID : elemtype;
		foreach(la, expr->args)
		{
			Node	   *arg = lfirst(la);

			call->args[j] = ExecInitExpr((Expr *) arg, &node->ss.ps);
			while (IsA(arg, RelabelType))
				arg = (Node *) ((RelabelType *) arg)->arg;
			call->stable[j] = IsA(arg, Var) || IsA(arg, Const);
			call->at[j] = palloc(BATCH_ROWS * sizeof(void *));
			call->off[j] = palloc((BATCH_ROWS + 1) * sizeof(int64));
			j++;
		}
		call->result = palloc(BATCH_ROWS * sizeof(ArrayType *));
		call->isnull = palloc(BATCH_ROWS * sizeof(bool));
	}
	state->reads_row = reads_outer((Node *) cscan->scan.plan.targetlist, NULL) ||
		reads_outer((Node *) cscan->scan.plan.qual, NULL);
}

/*
 * The arguments of row r into each call's lists.  Returns the bytes of
 * elements taken.
 */
static Size
take_arguments(MergepathBatchState *state, int r, ExprContext *econtext)
{
	Size		bytes = 0;

	for (int k = 0; k < state->ncalls; k++)
	{
		batch_call *call = &state->calls[k];
		int			nargs = call->fn->nargs;
		bool		isnull = false;
		bool		refused = false;

		for (int j = 0; j < nargs; j++)
		{
			int64		used = call->off[j][r];
			Datum		d = ExecEvalExpr(call->args[j], econtext, &isnull);
			ArrayType  *array;
			int64		n;

			call->off[j][r + 1] = used;
			call->at[j][r] = no_elements;
			if (isnull)
				break;
			array = DatumGetArrayTypeP(d);
			if (!mp_batch_arg_ok(array))
			{
				refused = true;
				break;
			}
			n = mp_batch_arg_length(array);
			call->off[j][r + 1] = used + n;
			if (call->stable[j] && (Pointer) array == DatumGetPointer(d))
				call->at[j][r] = ARR_DATA_PTR(array);
			else
			{
				/* detoasted, or a parameter's: copied for the batch */
				void	   *copy = arena_alloc(state, Max((Size) n * call->elsize, 1));

				memcpy(copy, ARR_DATA_PTR(array), (Size) n * call->elsize);
				call->at[j][r] = copy;
				bytes += (Size) n * call->elsize;
			}
		}
		if (!isnull && !refused)
		{
			/* a result that might be too large for an array is the
			 * function's to refuse */
			mp_batch_call one = {call->fn->kind, call->fn->variant, call->type, 1,
				NULL, call->off[0] + r, NULL, nargs > 1 ? call->off[1] + r : NULL};

			refused = !mp_result_fits(call->fn->kind == MP_ARRAY_SEARCH ? sizeof(int32) :
									  call->elsize, mp_batch_pair_room(&one, 0));
		}
		/* a row left out of the batch has empty arrays there */
		for (int j = 0; j < nargs && (isnull || refused); j++)
			call->off[j][r + 1] = call->off[j][r];
		call->isnull[r] = isnull;
		call->result[r] = NULL;
		if (refused)
			state->one_by_one[r] = true;
	}
	return bytes;
}

/*
 * Runs rows [lo, hi) of a call's batch, their results written into rooms
 * in the arena (call->result); MP_OK or MP_UNSORTED (the row in *bad).
 */
static mp_status
run_rows(MergepathBatchState *state, batch_call *call, int lo, int hi, int *bad)
{
	bool		two = call->fn->nargs > 1;
	mp_batch_call bc = {call->fn->kind, call->fn->variant, call->type, hi - lo,
		NULL, call->off[0] + lo, NULL, two ? call->off[1] + lo : NULL,
		NULL, state->out_off, -1,
		call->at[0] + lo, two ? call->at[1] + lo : NULL, state->out_at};
	size_t		osize = mp_batch_out_size(&bc);
	int64		elements = call->off[0][hi] - call->off[0][lo];
	mp_run_report report;
	mp_status	st;

	if (two)
		elements += call->off[1][hi] - call->off[1][lo];
	for (int r = lo; r < hi; r++)
	{
		int64		room = mp_batch_pair_room(&bc, r - lo);

		if (call->isnull[r] || state->one_by_one[r])
			room = 0;
		if (call->result[r] == NULL)
			call->result[r] = arena_alloc(state, mp_batch_result_size(osize, room));
		state->out_at[r - lo] = mp_batch_result_data(call->result[r]);
	}
	st = mp_run_batch(call->fn->fname, call->fn->op, &bc, elements, &report);
	if (report.used_gpu)
		state->gpu_runs++;
	else
	{
		state->cpu_runs++;
		strlcpy(state->cpu_note, report.note, sizeof(state->cpu_note));
	}
	if (st == MP_UNSORTED)
		*bad = lo + (int) bc.bad_pair;
	return st;
}

/* The results of rows [lo, hi), from the last run_rows. */
static void
keep_results(MergepathBatchState *state, batch_call *call, int lo, int hi)
{
	size_t		osize = call->fn->kind == MP_ARRAY_SEARCH ? sizeof(int32) : call->elsize;

	for (int r = lo; r < hi; r++)
	{
		if (call->isnull[r] || state->one_by_one[r])
			continue;
		if (!mp_batch_result_finish(call->result[r], call->result_elemtype, osize,
									state->out_off[r - lo + 1] - state->out_off[r - lo]))
			state->one_by_one[r] = true;
	}
}

/*
 * One call over the batch.  A row with an unsorted array is left to the
 * original expressions, and the rows after it run again.
 */
static void
run_call(MergepathBatchState *state, batch_call *call)
{
	int			lo = 0;

	while (lo < state->nrows)
	{
		int			bad;

		if (run_rows(state, call, lo, state->nrows, &bad) == MP_OK)
		{
			keep_results(state, call, lo, state->nrows);
			break;
		}
		if (bad > lo)
		{
			int			again;

			if (run_rows(state, call, lo, bad, &again) != MP_OK)
				elog(ERROR, "MergepathBatch: rows before an unsorted one were refused");
			keep_results(state, call, lo, bad);
		}
		state->one_by_one[bad] = true;
		lo = bad + 1;
	}
}

/* Reads the next batch of rows and runs its calls. */
static void
next_batch(MergepathBatchState *state)
{
	PlanState  *outer = outerPlanState(state);
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	Size		bytes = 0;
	double		t0 = mp_now_ms(),
				t1,
				t2;

	arena_reset(state);
	state->nrows = 0;
	state->next = 0;
	for (int k = 0; k < state->ncalls; k++)
		for (int j = 0; j < state->calls[k].fn->nargs; j++)
			state->calls[k].off[j][0] = 0;

	while (state->nrows < state->batch_rows && bytes < BATCH_BYTES)
	{
		TupleTableSlot *slot = ExecProcNode(outer);
		int			r = state->nrows;
		MemoryContext old;

		if (TupIsNull(slot))
		{
			state->input_done = true;
			break;
		}
		bytes += keep_row(state, slot, r);
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		state->one_by_one[r] = false;
		put_row(state, r);
		econtext->ecxt_outertuple = state->row_slot;
		bytes += take_arguments(state, r, econtext);
		MemoryContextSwitchTo(old);
		ResetExprContext(econtext);
		state->nrows++;
	}
	t1 = mp_now_ms();
	for (int k = 0; k < state->ncalls && state->nrows > 0; k++)
		run_call(state, &state->calls[k]);
	t2 = mp_now_ms();
	if (state->nrows > 0)
		state->batches++;
	/* under auto, what the CPU would run goes row by row from now on */
	if (mp_device == MP_DEVICE_AUTO && state->cpu_runs > 0)
		state->row_by_row = true;
	state->batch_rows = BATCH_ROWS;
	state->rows_in += state->nrows;
	state->read_ms += t1 - t0;
	state->call_ms += t2 - t1;
}

static TupleTableSlot *
batch_exec(CustomScanState *node)
{
	MergepathBatchState *state = (MergepathBatchState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *scan = node->ss.ss_ScanTupleSlot;

	for (;;)
	{
		int			r;

		CHECK_FOR_INTERRUPTS();
		if (state->next >= state->nrows && state->row_by_row && !state->input_done)
		{
			/* the input's rows as the node below would have returned them */
			TupleTableSlot *slot = ExecProcNode(outerPlanState(state));

			if (TupIsNull(slot))
			{
				state->input_done = true;
				continue;
			}
			ResetExprContext(econtext);
			econtext->ecxt_outertuple = slot;
			state->rows_not_batched++;
			if (state->pass_qual && !ExecQual(state->pass_qual, econtext))
			{
				InstrCountFiltered1(node, 1);
				continue;
			}
			return ExecProject(state->pass_proj);
		}
		if (state->next >= state->nrows)
		{
			if (state->input_done)
				return ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
			next_batch(state);
			continue;
		}
		r = state->next++;
		ResetExprContext(econtext);
		if (state->reads_row || state->one_by_one[r])
		{
			put_row(state, r);
			econtext->ecxt_outertuple = state->row_slot;
		}
		if (state->one_by_one[r])
		{
			state->rows_one_by_one++;
			if (state->row_qual && !ExecQual(state->row_qual, econtext))
			{
				InstrCountFiltered1(node, 1);
				continue;
			}
			return ExecProject(state->row_proj);
		}
		ExecClearTuple(scan);
		for (int k = 0; k < state->ncalls; k++)
		{
			scan->tts_values[k] = PointerGetDatum(state->calls[k].result[r]);
			scan->tts_isnull[k] = state->calls[k].isnull[r];
		}
		ExecStoreVirtualTuple(scan);
		econtext->ecxt_scantuple = scan;
		if (node->ss.ps.qual && !ExecQual(node->ss.ps.qual, econtext))
		{
			InstrCountFiltered1(node, 1);
			continue;
		}
		if (node->ss.ps.ps_ProjInfo)
			return ExecProject(node->ss.ps.ps_ProjInfo);
		return scan;
	}
}

static void
batch_end(CustomScanState *node)
{
	MergepathBatchState *state = (MergepathBatchState *) node;

	MemoryContextDelete(state->batch_cxt);
	ExecEndNode(outerPlanState(node));
}

static void
batch_rescan(CustomScanState *node)
{
	MergepathBatchState *state = (MergepathBatchState *) node;
	PlanState  *outer = outerPlanState(node);

	arena_reset(state);
	state->nrows = 0;
	state->next = 0;
	state->input_done = false;
	if (outer->chgParam == NULL)
		ExecReScan(outer);
}

static void
batch_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	MergepathBatchState *state = (MergepathBatchState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan,
												   ancestors);
	bool		useprefix = mp_explain_rtable_size(es) > 1 || es->verbose;
	List	   *items = NIL;
	ListCell   *lc;

	foreach(lc, cscan->custom_scan_tlist)
		items = lappend(items, deparse_expression((Node *) lfirst_node(TargetEntry, lc)->expr,
												  context, useprefix, false));
	ExplainPropertyList("Batched Calls", items, es);
	if (!es->analyze)
		return;
	if (state->rows_not_batched > 0)
		ExplainPropertyInteger("Rows Not Batched", NULL, state->rows_not_batched, es);
	if (state->batches == 0)
	{
		if (state->rows_not_batched > 0)
			ExplainPropertyText("Batch Backend",
								"none (mergepath.device is auto and the batches would run on "
								"the CPU, which runs the rows faster one by one)", es);
		return;
	}
	ExplainPropertyInteger("Batches", NULL, state->batches, es);
	ExplainPropertyInteger("Rows per Batch", NULL, state->rows_in / state->batches, es);
	ExplainPropertyInteger("Rows Run One by One", NULL, state->rows_one_by_one, es);
	if (state->gpu_runs > 0 && state->cpu_runs > 0)
		ExplainPropertyText("Batch Backend",
							psprintf("gpu (%lld calls), cpu (%lld: %s)",
									 (long long) state->gpu_runs, (long long) state->cpu_runs,
									 state->cpu_note), es);
	else if (state->gpu_runs > 0)
		ExplainPropertyText("Batch Backend", "gpu", es);
	else
		ExplainPropertyText("Batch Backend", psprintf("cpu (%s)", state->cpu_note), es);
	if (es->timing)
	{
		ExplainPropertyFloat("Batch Read Time", "ms", state->read_ms, 3, es);
		ExplainPropertyFloat("Batch Call Time", "ms", state->call_ms, 3, es);
	}
}

/* Registers the node: parallel workers read it back by name. */
void
mp_batch_node_init(void)
{
	RegisterCustomScanMethods(&mp_batch_scan_methods);
}
