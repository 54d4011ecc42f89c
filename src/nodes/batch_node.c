/*
 * batch_node.c
 *		MergepathBatch: the per-row calls of mergepath's array functions
 *		in a node's target list and filter, run a batch of rows at a time.
 *
 * The node reads up to a batch of its input's rows (BATCH_ROWS, or so many
 * bytes of rows and arguments), keeping each as its values, those passed
 * by reference copied into blocks of memory that every batch reuses (the
 * arena).  For every batched call it evaluates the arguments of each row, and the batch reads their
 * elements where they lie, in the kept rows (or in the node's copy of a
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
 * Where the settings put a batch's calls on the CPU backend, the node
 * reads batches of BATCH_BESIDE_BYTES and runs each one's calls on a
 * thread while it reads the next (two halves, each with its own memory):
 * reading the rows and running the calls then take the time of the longer
 * of the two, where row by row they add up.  Where they put it on the GPU
 * (mergepath.device = gpu, or under auto a batch whose calls average above
 * their operation's threshold), batches of BATCH_BYTES, run in turn.
 * test/bench/NOTES.md, "Batches of per-row calls", has the sizes measured.
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

/*
 * A batch: at most this many rows, and this many bytes of rows and
 * argument elements for the GPU, or for the CPU backend on a thread
 * (test/bench/NOTES.md, "Batches of per-row calls": on 2 cores, batches of
 * 1 MB ran 1.04-1.66x faster than row by row from 1000 rows, 16 MB ones
 * 0.55-1.28x, before a plain call got cheaper).
 */
#define BATCH_ROWS 16384
#define BATCH_BYTES ((Size) 16 << 20)
#define BATCH_BESIDE_BYTES ((Size) 1 << 20)

/* Rows of room a half starts with, when the plan expects fewer. */
#define HALF_MIN_ROWS 64

/* The arena's blocks; a larger piece has memory of its own for the batch. */
#define ARENA_BLOCK ((Size) 1 << 20)
#define ARENA_OWN (ARENA_BLOCK / 4)

/* The most elements a call may have to run on a thread beside the node
 * (a run there is not cancellable): one large row, say, runs here. */
#define BATCH_BESIDE_MAX ((int64) (BATCH_BESIDE_BYTES * 4))

/* One batched call: the function, and how its arguments are evaluated. */
typedef struct batch_call
{
	const mp_batch_fn *fn;
	ExprState  *args[2];
	bool		stable[2];		/* a column: its arrays stay where the
								 * evaluation finds them, in the kept row */
	ArrayType  *constant[2];	/* a constant's array, the node's own copy
								 * (the plan's may go first on an error) */
	mp_type		type;
	Oid			result_elemtype;
	size_t		elsize;			/* an argument's element */
	size_t		osize;			/* a result's element */
} batch_call;

/* A call over one batch's rows. */
typedef struct call_rows
{
	const void **at[2];			/* where row r's elements of each argument lie */
	int64	   *off[2];			/* row r's: off[r + 1] - off[r] elements */
	ArrayType **result;			/* each row's result, or */
	bool	   *isnull;			/* NULL (a NULL argument) */
	void	  **out_at;			/* the rows' rooms, for the run */
	int64	   *out_off;		/* and their results' lengths */
	mp_batch_call bc;			/* the run */
	int64		elements;		/* its elements in all */
	mp_status	st;				/* a run on a thread: how it ended */
	double		ms;				/* and its time */
} call_rows;

/* Blocks of memory that every batch of a half reuses. */
typedef struct batch_arena
{
	char	  **blocks;
	int			nblocks;
	int			room;			/* entries of blocks */
	int			cur;			/* the block being filled */
	Size		used;			/* of it */
} batch_arena;

struct MergepathBatchState;

/*
 * A batch: its rows, and the calls over them.  The node has two, so that
 * it reads one while a thread runs the calls of the other.
 */
typedef struct batch_half
{
	struct MergepathBatchState *state;
	batch_arena arena;			/* the rows, copies and results */
	MemoryContext pieces;		/* what is too large for the arena */
	MemoryContextCallback guard;	/* on pieces: waits for the thread, so
									 * that no memory it writes is freed under
									 * it (an error, a cancel) */
	Datum	  **rows;			/* each row's values, then its NULL flags */
	bool	   *one_by_one;		/* the row is run by the original expressions */
	int			nrows;
	int			room;			/* rows the arrays have room for */
	call_rows  *calls;
	mp_cpu_job *job;			/* the thread running the calls, or NULL */
	bool		check_sorted;
} batch_half;

typedef struct MergepathBatchState
{
	CustomScanState css;

	int			ncalls;
	batch_call *calls;
	ExprState  *row_qual;		/* the original expressions, for rows run */
	ProjectionInfo *row_proj;	/* one by one */
	bool		reads_row;		/* the target list or filter reads the input
								 * row besides the calls' results */

	TupleTableSlot *row_slot;	/* a kept row, as the expressions read it */
	MemoryContext node_cxt;		/* what lasts as long as the node */
	batch_half	halves[2];
	int			ret;			/* the half whose rows are being returned, or -1 */
	int			other;			/* the half read after it, or -1 */
	int			next;			/* the next row of ret's to return */
	bool		input_done;
	bool		gpu_batches;	/* every call of the last batch was for the GPU */

	/* for EXPLAIN ANALYZE */
	int64		batches;
	int64		beside;			/* batches whose calls ran on a thread */
	int64		rows_in;
	int64		rows_one_by_one;
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

/* len bytes of the half's, MAXALIGNed, that last until its next batch. */
static void *
arena_alloc(batch_half *h, Size len)
{
	batch_arena *arena = &h->arena;
	char	   *at;

	len = MAXALIGN(len);
	if (len > ARENA_OWN)
		return MemoryContextAllocHuge(h->pieces, len);
	if (arena->nblocks == 0 || arena->used + len > ARENA_BLOCK)
	{
		if (arena->nblocks > 0)
			arena->cur++;
		if (arena->cur == arena->nblocks)
		{
			MemoryContext cxt = h->state->node_cxt;

			if (arena->nblocks == arena->room)
			{
				arena->room = Max(16, arena->room * 2);
				arena->blocks = arena->blocks == NULL
					? MemoryContextAlloc(cxt, arena->room * sizeof(char *))
					: repalloc(arena->blocks, arena->room * sizeof(char *));
			}
			arena->blocks[arena->nblocks++] = MemoryContextAlloc(cxt, ARENA_BLOCK);
		}
		arena->used = 0;
	}
	at = arena->blocks[arena->cur] + arena->used;
	arena->used += len;
	return at;
}

/* A thread still running the half's calls, waited for. */
static void
wait_job(void *arg)
{
	batch_half *h = arg;

	if (h->job != NULL)
	{
		mp_cpu_wait(h->job);
		h->job = NULL;
	}
}

/* The half's next batch reuses its memory from the start. */
static void
arena_reset(batch_half *h)
{
	Assert(h->job == NULL);
	h->arena.cur = 0;
	h->arena.used = 0;
	MemoryContextReset(h->pieces);
	MemoryContextRegisterResetCallback(h->pieces, &h->guard);
}

/*
 * The slot's row kept as its values, the by-reference ones copied into the
 * arena as tts_virtual_materialize copies them, but for two things: an
 * expanded value is flattened, and a short varlena gets a 4-byte header,
 * so that an array is read where it lies.  Returns the bytes copied.
 */
static Size
keep_row(batch_half *h, TupleTableSlot *slot, int r)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			natts = desc->natts;
	Datum	   *values = arena_alloc(h, natts * (sizeof(Datum) + sizeof(bool)));
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
			to = arena_alloc(h, len);
			EOH_flatten_into(eoh, to, len);
		}
		else if (att->attlen == -1 && VARATT_IS_SHORT(from) && !VARATT_IS_EXTERNAL(from))
		{
			Size		data_len = VARSIZE_SHORT(from) - VARHDRSZ_SHORT;

			len = data_len + VARHDRSZ;
			to = arena_alloc(h, len);
			SET_VARSIZE(to, len);
			memcpy(VARDATA(to), VARDATA_SHORT(from), data_len);
		}
		else
		{
			len = att_addlength_datum(0, att->attlen, values[i]);
			to = arena_alloc(h, len);
			memcpy(to, from, len);
		}
		values[i] = PointerGetDatum(to);
		bytes += len;
	}
	h->rows[r] = values;
	return bytes;
}

/* A half's kept row r into the slot the expressions read it from. */
static void
put_row(MergepathBatchState *state, batch_half *h, int r)
{
	TupleTableSlot *slot = state->row_slot;
	int			natts = slot->tts_tupleDescriptor->natts;

	ExecClearTuple(slot);
	memcpy(slot->tts_values, h->rows[r], natts * sizeof(Datum));
	memcpy(slot->tts_isnull, h->rows[r] + natts, natts * sizeof(bool));
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

/* Room for rows rows in the half's arrays (their contents kept). */
static void
grow_half(MergepathBatchState *state, batch_half *h, int rows)
{
	MemoryContext old = MemoryContextSwitchTo(state->node_cxt);

#define GROW(p, n) ((p) = (p) == NULL ? palloc((n) * sizeof(*(p))) : repalloc((p), (n) * sizeof(*(p))))
	GROW(h->rows, rows);
	GROW(h->one_by_one, rows);
	for (int k = 0; k < state->ncalls; k++)
	{
		call_rows  *cr = &h->calls[k];

		for (int j = 0; j < state->calls[k].fn->nargs; j++)
		{
			GROW(cr->at[j], rows);
			GROW(cr->off[j], rows + 1);
		}
		GROW(cr->result, rows);
		GROW(cr->isnull, rows);
		GROW(cr->out_at, rows);
		GROW(cr->out_off, rows + 1);
	}
#undef GROW
	h->room = rows;
	MemoryContextSwitchTo(old);
}

/* A half's memory, with room for the rows the plan expects (at most a
 * batch's); it grows as batches need. */
static void
init_half(MergepathBatchState *state, batch_half *h, double plan_rows)
{
	h->state = state;
	h->pieces = AllocSetContextCreate(state->node_cxt, "MergepathBatch pieces",
									  ALLOCSET_DEFAULT_SIZES);
	h->guard.func = wait_job;
	h->guard.arg = h;
	MemoryContextRegisterResetCallback(h->pieces, &h->guard);
	h->calls = palloc0(state->ncalls * sizeof(call_rows));
	grow_half(state, h, (int) Max(HALF_MIN_ROWS, Min(plan_rows + 1, BATCH_ROWS)));
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
		call->osize = call->fn->kind == MP_ARRAY_SEARCH ? sizeof(int32) : call->elsize;
		call->result_elemtype = call->fn->kind == MP_ARRAY_SEARCH ? INT4OID : elemtype;
		foreach(la, expr->args)
		{
			Node	   *arg = lfirst(la);

			call->args[j] = ExecInitExpr((Expr *) arg, &node->ss.ps);
			while (IsA(arg, RelabelType))
				arg = (Node *) ((RelabelType *) arg)->arg;
			call->stable[j] = IsA(arg, Var);
			if (IsA(arg, Const) && !((Const *) arg)->constisnull)
				call->constant[j] = DatumGetArrayTypePCopy(((Const *) arg)->constvalue);
			j++;
		}
	}
	init_half(state, &state->halves[0], cscan->scan.plan.plan_rows);
	init_half(state, &state->halves[1], cscan->scan.plan.plan_rows);
	state->ret = state->other = -1;
	state->reads_row = reads_outer((Node *) cscan->scan.plan.targetlist, NULL) ||
		reads_outer((Node *) cscan->scan.plan.qual, NULL);
}

/*
 * The arguments of the half's row r into each call's lists.  Returns the
 * bytes of elements copied.
 */
static Size
take_arguments(MergepathBatchState *state, batch_half *h, int r, ExprContext *econtext)
{
	Size		bytes = 0;

	for (int k = 0; k < state->ncalls; k++)
	{
		batch_call *call = &state->calls[k];
		call_rows  *cr = &h->calls[k];
		int			nargs = call->fn->nargs;
		bool		isnull = false;
		bool		refused = false;

		for (int j = 0; j < nargs; j++)
		{
			int64		used = cr->off[j][r];
			Datum		d = ExecEvalExpr(call->args[j], econtext, &isnull);
			ArrayType  *array;
			int64		n;

			cr->off[j][r + 1] = used;
			cr->at[j][r] = no_elements;
			if (isnull)
				break;
			array = DatumGetArrayTypeP(d);
			if (!mp_batch_arg_ok(array))
			{
				refused = true;
				break;
			}
			n = mp_batch_arg_length(array);
			cr->off[j][r + 1] = used + n;
			if (call->constant[j] != NULL)
				cr->at[j][r] = ARR_DATA_PTR(call->constant[j]);
			else if (call->stable[j] && (Pointer) array == DatumGetPointer(d))
				cr->at[j][r] = ARR_DATA_PTR(array);
			else
			{
				/* detoasted, or a parameter's: copied for the batch */
				void	   *copy = arena_alloc(h, Max((Size) n * call->elsize, 1));

				memcpy(copy, ARR_DATA_PTR(array), (Size) n * call->elsize);
				cr->at[j][r] = copy;
				bytes += (Size) n * call->elsize;
			}
		}
		if (!isnull && !refused)
		{
			/* a result that might be too large for an array is the
			 * function's to refuse */
			mp_batch_call one = {call->fn->kind, call->fn->variant, call->type, 1,
				NULL, cr->off[0] + r, NULL, nargs > 1 ? cr->off[1] + r : NULL};

			refused = !mp_result_fits(call->osize, mp_batch_pair_room(&one, 0));
		}
		/* a row left out of the batch has empty arrays there */
		for (int j = 0; j < nargs && (isnull || refused); j++)
			cr->off[j][r + 1] = cr->off[j][r];
		cr->isnull[r] = isnull;
		cr->result[r] = NULL;
		if (refused)
			h->one_by_one[r] = true;
	}
	return bytes;
}

/*
 * Call k's run over the half's rows [lo, hi): its mp_batch_call, with each
 * row's room for its result in the arena (call_rows.result).
 */
static void
prepare_rows(MergepathBatchState *state, batch_half *h, int k, int lo, int hi)
{
	batch_call *call = &state->calls[k];
	call_rows  *cr = &h->calls[k];
	bool		two = call->fn->nargs > 1;
	mp_batch_call bc = {call->fn->kind, call->fn->variant, call->type, hi - lo,
		NULL, cr->off[0] + lo, NULL, two ? cr->off[1] + lo : NULL,
		NULL, cr->out_off, -1,
		cr->at[0] + lo, two ? cr->at[1] + lo : NULL, cr->out_at};

	cr->bc = bc;
	cr->elements = cr->off[0][hi] - cr->off[0][lo];
	if (two)
		cr->elements += cr->off[1][hi] - cr->off[1][lo];
	for (int r = lo; r < hi; r++)
	{
		int64		room = mp_batch_pair_room(&cr->bc, r - lo);

		if (cr->isnull[r] || h->one_by_one[r])
			room = 0;
		if (cr->result[r] == NULL)
			cr->result[r] = arena_alloc(h, mp_batch_result_size(call->osize, room));
		cr->out_at[r - lo] = mp_batch_result_data(cr->result[r]);
	}
}

static void
count_run(MergepathBatchState *state, const mp_run_report *report)
{
	if (report->used_gpu)
		state->gpu_runs++;
	else
	{
		state->cpu_runs++;
		strlcpy(state->cpu_note, report->note, sizeof(state->cpu_note));
	}
}

/*
 * Runs call k over the half's rows [lo, hi) where the settings choose;
 * MP_OK or MP_UNSORTED (the row in *bad).
 */
static mp_status
run_rows(MergepathBatchState *state, batch_half *h, int k, int lo, int hi, int *bad)
{
	call_rows  *cr = &h->calls[k];
	mp_run_report report;
	mp_status	st;

	prepare_rows(state, h, k, lo, hi);
	st = mp_run_batch(state->calls[k].fn->fname, state->calls[k].fn->op, &cr->bc,
					  cr->elements, &report);
	count_run(state, &report);
	if (st == MP_UNSORTED)
		*bad = lo + (int) cr->bc.bad_pair;
	return st;
}

/* The results of call k's rows [lo, hi), from its last run. */
static void
keep_results(MergepathBatchState *state, batch_half *h, int k, int lo, int hi)
{
	batch_call *call = &state->calls[k];
	call_rows  *cr = &h->calls[k];

	for (int r = lo; r < hi; r++)
	{
		if (cr->isnull[r] || h->one_by_one[r])
			continue;
		if (!mp_batch_result_finish(cr->result[r], call->result_elemtype, call->osize,
									cr->out_off[r - lo + 1] - cr->out_off[r - lo]))
			h->one_by_one[r] = true;
	}
}

/*
 * Call k over the half's rows from lo on, where a run over them found row
 * bad unsorted (or, bad < 0, none has run yet).  A row with an unsorted
 * array is left to the original expressions; the rows before it run again,
 * and the rows after it.
 */
static void
run_call_from(MergepathBatchState *state, batch_half *h, int k, int lo, int bad)
{
	while (lo < h->nrows)
	{
		if (bad < 0)
		{
			if (run_rows(state, h, k, lo, h->nrows, &bad) == MP_OK)
			{
				keep_results(state, h, k, lo, h->nrows);
				break;
			}
		}
		if (bad > lo)
		{
			int			again;

			if (run_rows(state, h, k, lo, bad, &again) != MP_OK)
				elog(ERROR, "MergepathBatch: rows before an unsorted one were refused");
			keep_results(state, h, k, lo, bad);
		}
		h->one_by_one[bad] = true;
		lo = bad + 1;
		bad = -1;
	}
}

/* On a thread: the half's calls on the CPU backend, one after another. */
static void
run_calls_beside(void *arg)
{
	batch_half *h = arg;

	for (int k = 0; k < h->state->ncalls; k++)
	{
		call_rows  *cr = &h->calls[k];
		double		t0 = mp_now_ms();

		cr->st = mp_cpu_batch(&cr->bc, h->check_sorted, NULL);
		cr->ms = mp_now_ms() - t0;
	}
}

/*
 * The results of the half's calls run beside the node: the thread waited
 * for, each run recorded as mp_run records one, and a row found unsorted
 * left to the original expressions.
 */
static void
finish_calls(MergepathBatchState *state, batch_half *h)
{
	double		t0 = mp_now_ms();

	wait_job(h);
	for (int k = 0; k < state->ncalls; k++)
	{
		call_rows  *cr = &h->calls[k];
		mp_run_report report;
		mp_status	st;

		st = mp_ran_batch_on_cpu(state->calls[k].fn->fname, state->calls[k].fn->op, &cr->bc,
								 cr->elements, cr->st, cr->ms, &report);
		count_run(state, &report);
		if (st == MP_OK)
			keep_results(state, h, k, 0, h->nrows);
		else
			run_call_from(state, h, k, 0, (int) cr->bc.bad_pair);
	}
	state->call_ms += mp_now_ms() - t0;
}

/*
 * Runs the half's calls: on a thread beside the node, when the settings
 * put every call on the CPU backend, the node then reading the next batch
 * meanwhile (finish_calls takes the results); else here, where mp_run
 * chooses.
 */
static void
launch(MergepathBatchState *state, batch_half *h)
{
	bool		beside = true,
				all_gpu = true;
	double		t0 = mp_now_ms();

	for (int k = 0; k < state->ncalls; k++)
	{
		call_rows  *cr = &h->calls[k];
		int64		elements = cr->off[0][h->nrows];
		bool		gpu;

		if (state->calls[k].fn->nargs > 1)
			elements += cr->off[1][h->nrows];
		/*
		 * For the GPU unless on the CPU for certain: the settings say so, or
		 * there is no GPU here and they allow the CPU (mergepath.device = gpu
		 * raises its error through mp_run instead).
		 */
		gpu = mp_device == MP_DEVICE_GPU ||
			(mp_batch_gpu_chosen(state->calls[k].fn->op, elements, h->nrows) &&
			 mp_gpu_may_be_present());
		all_gpu &= gpu;
		if (gpu || elements > BATCH_BESIDE_MAX)
			beside = false;
	}
	state->gpu_batches = all_gpu;
	/*
	 * the last batch: nothing to read beside it; nor where this process has
	 * one processor to itself (mergepath.cpu_threads = 1, or its share in a
	 * parallel query), where a thread beside it would only take turns with it
	 */
	if (state->input_done || mp_cpu_threads_now() <= 1)
		beside = false;
	state->batches++;
	if (beside)
	{
		for (int k = 0; k < state->ncalls; k++)
			prepare_rows(state, h, k, 0, h->nrows);
		h->check_sorted = mp_check_sorted;
		h->job = mp_cpu_start(run_calls_beside, h);
		if (h->job == NULL)
			run_calls_beside(h);
		state->beside++;
		if (h->job != NULL)
			return;
	}
	else
	{
		for (int k = 0; k < state->ncalls; k++)
			run_call_from(state, h, k, 0, -1);
	}
	state->call_ms += mp_now_ms() - t0;
	if (beside)
		finish_calls(state, h);
}

/*
 * Whether the next batch is for the GPU: mergepath.device says so, or every
 * call of the last batch went there (a batch's calls go to the GPU by their
 * average size, known once it is read: the first batch is read as the CPU's).
 */
static bool
batches_for_gpu(MergepathBatchState *state)
{
	return mp_device == MP_DEVICE_GPU || state->gpu_batches;
}

/* Reads the next batch of rows into the half. */
static void
read_batch(MergepathBatchState *state, batch_half *h)
{
	PlanState  *outer = outerPlanState(state);
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	Size		bytes = 0,
				limit = batches_for_gpu(state) ? BATCH_BYTES : BATCH_BESIDE_BYTES;
	double		t0 = mp_now_ms();

	arena_reset(h);
	h->nrows = 0;
	for (int k = 0; k < state->ncalls; k++)
		for (int j = 0; j < state->calls[k].fn->nargs; j++)
			h->calls[k].off[j][0] = 0;

	while (h->nrows < BATCH_ROWS && bytes < limit)
	{
		TupleTableSlot *slot = ExecProcNode(outer);
		int			r = h->nrows;
		MemoryContext old;

		if (TupIsNull(slot))
		{
			state->input_done = true;
			break;
		}
		if (r == h->room)
			grow_half(state, h, Min(2 * h->room, BATCH_ROWS));
		bytes += keep_row(h, slot, r);
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		h->one_by_one[r] = false;
		put_row(state, h, r);
		econtext->ecxt_outertuple = state->row_slot;
		bytes += take_arguments(state, h, r, econtext);
		MemoryContextSwitchTo(old);
		ResetExprContext(econtext);
		h->nrows++;
	}
	state->rows_in += h->nrows;
	state->read_ms += mp_now_ms() - t0;
}

/*
 * The next batch whose rows to return, into state->ret: false when there
 * is none.
 * With the calls on a thread, the node reads a batch while the thread
 * runs the calls of the one before it.
 */
static bool
advance(MergepathBatchState *state)
{
	int			free_half = state->ret >= 0 ? state->ret :
		state->other >= 0 ? 1 - state->other : 0;

	state->ret = -1;
	state->next = 0;
	for (;;)
	{
		bool		more = !state->input_done;
		batch_half *h = &state->halves[free_half];

		if (state->other >= 0)
		{
			int			o = state->other;

			h->nrows = 0;
			if (more)
				read_batch(state, h);
			if (state->halves[o].job != NULL)
				finish_calls(state, &state->halves[o]);
			state->ret = o;
			state->other = -1;
			if (h->nrows > 0)
			{
				launch(state, h);
				state->other = free_half;
			}
			return true;
		}
		if (!more)
			return false;
		read_batch(state, h);
		if (h->nrows == 0)
			continue;
		launch(state, h);
		state->other = free_half;
		free_half = 1 - free_half;
	}
}

static TupleTableSlot *
batch_exec(CustomScanState *node)
{
	MergepathBatchState *state = (MergepathBatchState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *scan = node->ss.ss_ScanTupleSlot;

	for (;;)
	{
		batch_half *h;
		int			r;

		CHECK_FOR_INTERRUPTS();
		if (state->ret < 0 || state->next >= state->halves[state->ret].nrows)
		{
			if (advance(state))
				continue;
			return ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
		}
		h = &state->halves[state->ret];
		r = state->next++;
		ResetExprContext(econtext);
		if (state->reads_row || h->one_by_one[r])
		{
			put_row(state, h, r);
			econtext->ecxt_outertuple = state->row_slot;
		}
		if (h->one_by_one[r])
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
			scan->tts_values[k] = PointerGetDatum(h->calls[k].result[r]);
			scan->tts_isnull[k] = h->calls[k].isnull[r];
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

	for (int i = 0; i < 2; i++)
	{
		wait_job(&state->halves[i]);
		MemoryContextDelete(state->halves[i].pieces);
	}
	ExecEndNode(outerPlanState(node));
}

static void
batch_rescan(CustomScanState *node)
{
	MergepathBatchState *state = (MergepathBatchState *) node;
	PlanState  *outer = outerPlanState(node);

	for (int i = 0; i < 2; i++)
	{
		wait_job(&state->halves[i]);
		state->halves[i].nrows = 0;
	}
	state->ret = state->other = -1;
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
	if (state->batches == 0)
		return;
	ExplainPropertyInteger("Batches", NULL, state->batches, es);
	ExplainPropertyInteger("Rows per Batch", NULL, state->rows_in / state->batches, es);
	ExplainPropertyInteger("Rows Run One by One", NULL, state->rows_one_by_one, es);
	if (state->beside > 0)
		ExplainPropertyInteger("Batches Run While Reading", NULL, state->beside, es);
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
