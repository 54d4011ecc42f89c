/*
 * sort_node.c
 *		MergepathSort: a Sort whose sorting runs on the backends.
 *
 * A driver over the row sort (rowsort.c), as nodeSort.c is over tuplesort:
 * it reads its input once into the row sort, which sorts it in work_mem
 * or, beyond it, through runs on disk, and returns the rows in key order.
 * It behaves as a Sort: it supports rescans (a rewind, unless parameters of
 * its input changed or the sort was not asked for random access), mark and
 * restore under a Merge Join, and backward fetches.  EXPLAIN ANALYZE shows
 * the sort's method, memory or disk, the backend that ran it and the time
 * of each phase; in a parallel plan, each worker's too, which the workers
 * leave in the query's shared memory, as a Sort keeps its workers' figures.
 *
 * Directly under a Gather Merge whose leader takes part, the participants'
 * sorts are one sort: each participant that writes runs merges them into
 * one, all at the same time; a worker then hands its run to the leader (a
 * file of the query's shared file set) and returns nothing, and the leader
 * merges those runs with its own and returns every row.  The Gather Merge
 * then takes the rows from the leader's node alone, where it would read
 * two thirds of them from the workers' queues and order them by its heap,
 * one at a time in the leader.  Any split of the rows among
 * the participants gives the Gather Merge the same rows in the same order:
 * each participant's rows are a part of the input, and their union is
 * all of it.  The leader waits for the workers that started before its
 * input ended (a barrier that counts the leader from the start); a worker
 * that starts later sorts on its own, as a worker whose rows stay in
 * memory does.  The leader waits there as a Gather Merge waits for each
 * worker's first row, which comes after that worker's input was read.
 * Where each participant's rows are expected to outgrow work_mem and the
 * GPU is chosen for them all (decided by the leader before the workers
 * start), the workers do not sort at all: they hand their rows in unsorted
 * and the leader sorts every row in its GPU store (rowsort.c).
 */
#include "postgres.h"

#include "access/parallel.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "storage/barrier.h"
#include "storage/sharedfileset.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/typcache.h"
#include "utils/wait_event.h"

#include "../run/mp_run.h"
#include "mp_nodes.h"
#include "rowsort.h"

/* What a participant's sort did, for EXPLAIN ANALYZE. */
typedef struct sort_report
{
	bool		sorted;
	double		read_ms;
	double		wait_ms;		/* the leader's wait for the workers' runs */
	mp_rowsort_stats stats;
} sort_report;

/*
 * The query's shared memory: the workers' reports, and where the leader
 * merges all runs (gather), the shared files and the barrier of the runs
 * handed in (phase 0 while they may be; each worker's count, or -1).
 */
typedef struct sort_shared
{
	int			nworkers;
	bool		gather;
	bool		to_store;		/* the leader sorts every row in its GPU store */
	dsm_handle	seg;
	SharedFileSet fileset;
	Barrier		handing;
	sort_report reports[FLEXIBLE_ARRAY_MEMBER];	/* then the counts of runs handed in */
} sort_shared;

typedef struct MergepathSortState
{
	CustomScanState css;

	int			nkeys;
	AttrNumber *sort_cols;
	mp_rowsort_key *keys;

	bool		random_access;	/* asked for rescans, backward fetches or marks */
	bool		gather;			/* directly under a Gather Merge */
	TupleDesc	tupdesc;
	mp_rowsort *sort;
	bool		sorted;
	sort_report report;			/* of the last sort, kept after it ends */

	sort_shared *shared;		/* in a parallel plan: the workers' reports */
	sort_shared *worker_reports;	/* the leader's copy, taken at shutdown */
} MergepathSortState;

static Node *sort_create_state(CustomScan *cscan);
static void sort_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *sort_exec(CustomScanState *node);
static void sort_end(CustomScanState *node);
static void sort_rescan(CustomScanState *node);
static void sort_mark(CustomScanState *node);
static void sort_restore(CustomScanState *node);
static void sort_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static Size sort_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void sort_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void sort_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void sort_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate);
static void sort_shutdown(CustomScanState *node);

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
	.EstimateDSMCustomScan = sort_estimate_dsm,
	.InitializeDSMCustomScan = sort_init_dsm,
	.ReInitializeDSMCustomScan = sort_reinit_dsm,
	.InitializeWorkerCustomScan = sort_init_worker,
	.ShutdownCustomScan = sort_shutdown,
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
			   *nulls = lfourth(cscan->custom_private);

	state->gather = intVal(list_nth(cscan->custom_private, 4)) != 0;

	state->random_access =
		(eflags & (EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK)) != 0;
	outerPlanState(state) = ExecInitNode(outerPlan(cscan), estate,
										 eflags & ~(EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD |
													EXEC_FLAG_MARK));
	state->tupdesc = ExecGetResultType(outerPlanState(state));

	/* rows leave as minimal tuples, as a Sort's do */
	node->ss.ps.ps_ResultTupleSlot =
		ExecInitExtraTupleSlot(estate, node->ss.ps.ps_ResultTupleDesc, &TTSOpsMinimalTuple);
	node->ss.ps.resultops = &TTSOpsMinimalTuple;
	node->ss.ps.resultopsfixed = true;
	node->ss.ps.resultopsset = true;

	state->nkeys = list_length(cols);
	state->sort_cols = palloc(state->nkeys * sizeof(AttrNumber));
	state->keys = palloc(state->nkeys * sizeof(mp_rowsort_key));
	for (int i = 0; i < state->nkeys; i++)
	{
		Form_pg_attribute att;
		TypeCacheEntry *tc;

		state->sort_cols[i] = (AttrNumber) list_nth_int(cols, i);
		att = TupleDescAttr(state->tupdesc, state->sort_cols[i] - 1);
		if (mp_key_kind_of(att->atttypid) == MP_KEY_NONE)
			elog(ERROR, "MergepathSort: column %d of type %s cannot be a key",
				 state->sort_cols[i], format_type_be(att->atttypid));
		tc = lookup_type_cache(getBaseType(att->atttypid), TYPECACHE_GT_OPR);
		state->keys[i].attno = state->sort_cols[i];
		state->keys[i].desc = list_nth_oid(ops, i) == tc->gt_opr;
		state->keys[i].nulls_first = list_nth_int(nulls, i) != 0;
	}
}

static inline int *
handed_counts(sort_shared *sh)
{
	return (int *) ((char *) sh + MAXALIGN(offsetof(sort_shared, reports) +
										   sh->nworkers * sizeof(sort_report)));
}

/*
 * Whether this participant's sort is part of the one the leader merges:
 * the leader's always; a worker's if it starts while the runs are still
 * handed in.
 */
static bool
join_gather(MergepathSortState *state)
{
	sort_shared *sh = state->shared;

	if (sh == NULL || !sh->gather)
		return false;
	if (!IsParallelWorker())
		return true;
	if (ParallelWorkerNumber < 0 || ParallelWorkerNumber >= sh->nworkers)
		return false;
	if (BarrierAttach(&sh->handing) == 0)
		return true;
	BarrierDetach(&sh->handing);
	return false;
}

/*
 * The input read, in a sort the leader merges: a worker hands its runs in
 * (or, its rows in memory, sorts them itself); the leader waits for the
 * workers that take part and takes their runs.
 */
static void
gather_runs(MergepathSortState *state)
{
	sort_shared *sh = state->shared;

	if (IsParallelWorker())
	{
		int			n = mp_rowsort_hand_in(state->sort);

		handed_counts(sh)[ParallelWorkerNumber] = n;
		BarrierArriveAndDetach(&sh->handing);
		if (n < 0)
			mp_rowsort_perform(state->sort);
	}
	else
	{
		double		t0;

		(void) mp_rowsort_hand_in(state->sort);
		t0 = mp_now_ms();
		BarrierArriveAndWait(&sh->handing, PG_WAIT_EXTENSION);
		BarrierDetach(&sh->handing);
		state->report.wait_ms = mp_now_ms() - t0;
		for (int w = 0; w < sh->nworkers; w++)
			if (handed_counts(sh)[w] > 0)
				mp_rowsort_take_runs(state->sort, w);
		mp_rowsort_perform(state->sort);
	}
}

/* Reads the whole input into a new row sort and sorts it. */
static void
sort_input(MergepathSortState *state)
{
	PlanState  *outer = outerPlanState(state);
	double		t0 = mp_now_ms();
	bool		joined = join_gather(state);

	state->sort = mp_rowsort_begin("MergepathSort", state->tupdesc, state->nkeys, state->keys,
								   (Size) work_mem * 1024, state->random_access,
								   state->css.ss.ps.plan->plan_rows,
								   state->css.ss.ps.plan->plan_width);
	if (joined)
		mp_rowsort_share(state->sort, &state->shared->fileset,
						 IsParallelWorker() ? ParallelWorkerNumber : -1,
						 state->shared->to_store);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(outer);

		if (TupIsNull(slot))
			break;
		mp_rowsort_put(state->sort, slot);
	}
	/* the runs made while reading are the row sort's own phases */
	mp_rowsort_get_stats(state->sort, &state->report.stats);
	state->report.read_ms = mp_now_ms() - t0 - state->report.stats.spill_ms;
	if (joined)
		gather_runs(state);
	else
		mp_rowsort_perform(state->sort);
	state->sorted = true;
}

static TupleTableSlot *
sort_exec(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;
	TupleTableSlot *slot = node->ss.ps.ps_ResultTupleSlot;

	if (!state->sorted)
		sort_input(state);
	(void) mp_rowsort_get(state->sort, ScanDirectionIsForward(node->ss.ps.state->es_direction),
						  slot);
	return slot;
}

/* Keeps the sort's figures for EXPLAIN, then forgets it. */
static void
forget_input(MergepathSortState *state)
{
	if (state->sort)
	{
		mp_rowsort_get_stats(state->sort, &state->report.stats);
		state->report.sorted = true;
		mp_rowsort_end(state->sort);
	}
	state->sort = NULL;
	state->sorted = false;
}

static void
sort_end(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;

	ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
	forget_input(state);
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
	if (outer->chgParam != NULL || !state->random_access)
	{
		forget_input(state);
		if (outer->chgParam == NULL)
			ExecReScan(outer);
	}
	else
		mp_rowsort_rescan(state->sort);
}

static void
sort_mark(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;

	if (state->sorted)
		mp_rowsort_mark(state->sort);
}

static void
sort_restore(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;

	if (state->sorted)
		mp_rowsort_restore(state->sort);
}

/* This participant's report, the sort's figures as they are now. */
static sort_report *
own_report(MergepathSortState *state)
{
	if (state->sort)
	{
		mp_rowsort_get_stats(state->sort, &state->report.stats);
		state->report.sorted = true;
	}
	return &state->report;
}

static Size
shared_size(int nworkers)
{
	Size		reports = add_size(offsetof(sort_shared, reports),
								   mul_size(nworkers, sizeof(sort_report)));

	return add_size(MAXALIGN(reports), mul_size(nworkers, sizeof(int)));
}

/* The runs handed in: none yet, and the leader counted at the barrier. */
static void
reset_handing(sort_shared *sh)
{
	BarrierInit(&sh->handing, 1);
	for (int w = 0; w < sh->nworkers; w++)
		handed_counts(sh)[w] = -1;
}

static Size
sort_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return shared_size(pcxt->nworkers);
}

/*
 * The leader merges all runs where it takes part in the Gather Merge's
 * scan (parallel_leader_participation, as the Gather Merge reads it).
 */
static void
sort_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	MergepathSortState *state = (MergepathSortState *) node;
	sort_shared *sh = coordinate;
	Plan	   *plan = node->ss.ps.plan;

	state->shared = sh;
	memset(sh, 0, shared_size(pcxt->nworkers));
	sh->nworkers = pcxt->nworkers;
	sh->gather = state->gather && parallel_leader_participation && pcxt->nworkers > 0;
	/*
	 * The leader sorts every participant's rows in its GPU store where each
	 * participant's rows are expected to outgrow work_mem (rows whose sorts
	 * stay in memory are sorted where they are) and the GPU is chosen for
	 * them all.
	 */
	sh->to_store = sh->gather &&
		plan->plan_rows * (plan->plan_width + MAXALIGN(SizeofMinimalTupleHeader)) >
		(double) work_mem * 1024 &&
		mp_rowsort_store_chosen(plan->plan_rows * (pcxt->nworkers + 1));
	if (sh->gather)
	{
		SharedFileSetInit(&sh->fileset, pcxt->seg);
		sh->seg = dsm_segment_handle(pcxt->seg);
	}
	reset_handing(sh);
}

/* Before a rescan's workers start: the last scan's reports and files go. */
static void
sort_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	sort_shared *sh = coordinate;

	((MergepathSortState *) node)->shared = sh;
	memset(sh->reports, 0, sh->nworkers * sizeof(sort_report));
	if (sh->gather)
		SharedFileSetDeleteAll(&sh->fileset);
	reset_handing(sh);
}

static void
sort_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	sort_shared *sh = coordinate;

	((MergepathSortState *) node)->shared = sh;
	if (sh->gather)
	{
		dsm_segment *seg = dsm_find_mapping(sh->seg);

		if (seg == NULL)
			elog(ERROR, "MergepathSort: the parallel query's segment is not mapped");
		SharedFileSetAttach(&sh->fileset, seg);
	}
}

/*
 * A worker leaves its report in the shared memory; the leader, whose
 * shutdown comes after every worker has sent its last row (a worker shuts
 * its nodes down before it closes its queue), copies the reports out
 * before the shared memory goes.
 */
static void
sort_shutdown(CustomScanState *node)
{
	MergepathSortState *state = (MergepathSortState *) node;

	if (state->shared == NULL)
		return;
	if (IsParallelWorker())
	{
		if (ParallelWorkerNumber >= 0 && ParallelWorkerNumber < state->shared->nworkers)
			state->shared->reports[ParallelWorkerNumber] = *own_report(state);
		return;
	}
	if (state->worker_reports == NULL)
		state->worker_reports =
			MemoryContextAlloc(node->ss.ps.state->es_query_cxt,
							   shared_size(state->shared->nworkers));
	memcpy(state->worker_reports, state->shared, shared_size(state->shared->nworkers));
	state->shared = NULL;
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
		if (state->keys[i].nulls_first != state->keys[i].desc)
			appendStringInfoString(&buf, state->keys[i].nulls_first ? " NULLS FIRST"
								   : " NULLS LAST");
		items = lappend(items, buf.data);
	}
	ExplainPropertyList("Sort Key", items, es);
}

static char *
backend_text(const mp_rowsort_stats *st)
{
	const char *used = st->used_gpu && st->used_cpu ? "gpu and cpu"
		: st->used_gpu ? "gpu" : "cpu";

	return st->used_cpu && st->note[0] ? psprintf("%s (%s)", used, st->note) : pstrdup(used);
}

static const char *
space_type(const mp_rowsort_stats *st)
{
	return st->method == MP_ROWSORT_EXTERNAL || st->method == MP_ROWSORT_HANDED ? "Disk"
		: st->method == MP_ROWSORT_DEVICE ? "Device" : "Memory";
}

/* Whether the sort went beyond its memory: runs, the GPU's store, or its
 * rows handed to the leader's store. */
static bool
on_disk_or_device(const mp_rowsort_stats *st)
{
	return st->method == MP_ROWSORT_EXTERNAL || st->method == MP_ROWSORT_DEVICE ||
		st->method == MP_ROWSORT_HANDED;
}

/* A worker's sort, on a line of its own (text) or as a group. */
static void
explain_worker(int n, const sort_report *r, ExplainState *es)
{
	const mp_rowsort_stats *st = &r->stats;

	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		appendStringInfoSpaces(es->str, es->indent * 2);
		appendStringInfo(es->str, "Worker %d:  Sort Method: %s  %s: " INT64_FORMAT "kB",
						 n, mp_rowsort_method_name(st->method), space_type(st), st->space_kb);
		if (on_disk_or_device(st))
		{
			appendStringInfo(es->str, "  Runs: %d", st->runs);
			if (st->handed_runs > 0)
				appendStringInfo(es->str, " (%d %s by the leader)", st->handed_runs,
								 st->method == MP_ROWSORT_HANDED ? "sorted" : "merged");
			appendStringInfo(es->str, "  Memory: " INT64_FORMAT "kB", st->memory_kb);
		}
		appendStringInfo(es->str, "  Backend: %s\n",
						 st->used_gpu && st->used_cpu ? "gpu and cpu"
						 : st->used_gpu ? "gpu" : "cpu");
		return;
	}
	ExplainOpenGroup("Worker", NULL, true, es);
	ExplainPropertyInteger("Worker Number", NULL, n, es);
	ExplainPropertyText("Sort Method", mp_rowsort_method_name(st->method), es);
	ExplainPropertyInteger("Sort Space Used", "kB", st->space_kb, es);
	ExplainPropertyText("Sort Space Type", space_type(st), es);
	if (on_disk_or_device(st))
	{
		ExplainPropertyInteger("Sort Runs", NULL, st->runs, es);
		ExplainPropertyInteger("Sort Runs Handed to the Leader", NULL, st->handed_runs, es);
		ExplainPropertyInteger("Sort Merge Passes", NULL, st->passes, es);
		ExplainPropertyInteger("Sort Memory Used", "kB", st->memory_kb, es);
	}
	ExplainPropertyText("Sort Backend", backend_text(st), es);
	ExplainCloseGroup("Worker", NULL, true, es);
}

static void
sort_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	MergepathSortState *state = (MergepathSortState *) node;
	sort_report *r;
	mp_rowsort_stats *st;
	double		return_ms;
	bool		external;

	explain_keys(state, ancestors, es);
	if (!es->analyze)
		return;
	r = own_report(state);
	st = &r->stats;
	external = st->method == MP_ROWSORT_EXTERNAL || st->method == MP_ROWSORT_DEVICE;
	if (r->sorted)
	{
		if (es->format == EXPLAIN_FORMAT_TEXT)
			ExplainPropertyText("Sort Method",
								psprintf("%s  %s: " INT64_FORMAT "kB",
										 mp_rowsort_method_name(st->method), space_type(st),
										 st->space_kb),
								es);
		else
		{
			ExplainPropertyText("Sort Method", mp_rowsort_method_name(st->method), es);
			ExplainPropertyInteger("Sort Space Used", "kB", st->space_kb, es);
			ExplainPropertyText("Sort Space Type", space_type(st), es);
		}
		if (external)
		{
			if (es->format == EXPLAIN_FORMAT_TEXT)
				ExplainPropertyText("Sort Runs",
									st->method == MP_ROWSORT_DEVICE
									? psprintf("%d%s, sorted on the device, Memory: " INT64_FORMAT "kB",
											   st->runs,
											   st->taken_runs > 0
											   ? psprintf(" and %d of the workers' (" INT64_FORMAT
														  " rows)", st->taken_runs,
														  st->taken_rows)
											   : "",
											   st->memory_kb)
									: psprintf("%d%s, merged in %d pass%s, Memory: " INT64_FORMAT "kB",
											   st->runs,
											   st->taken_rows > 0
											   ? psprintf(" (" INT64_FORMAT " rows of the workers' among them)",
														  st->taken_rows)
											   : st->taken_runs > 0
											   ? psprintf(" and %d of the workers'", st->taken_runs)
											   : "",
											   st->passes, st->passes == 1 ? "" : "es",
											   st->memory_kb),
									es);
			else
			{
				ExplainPropertyInteger("Sort Runs", NULL, st->runs, es);
				ExplainPropertyInteger("Sort Runs of the Workers", NULL, st->taken_runs, es);
				ExplainPropertyInteger("Sort Rows of the Workers", NULL, st->taken_rows, es);
				ExplainPropertyInteger("Sort Merge Passes", NULL, st->passes, es);
				ExplainPropertyInteger("Sort Memory Used", "kB", st->memory_kb, es);
			}
		}
		if (st->key_rows)
			ExplainPropertyText("Rows Kept", "as their keys", es);
		ExplainPropertyText("Sort Backend", backend_text(st), es);
	}
	if (r->sorted && es->timing && node->ss.ps.instrument != NULL)
	{
		/*
		 * The rest of the leader's time in the node (InstrEndLoop has run,
		 * and the workers' times are added to its own): returning rows.
		 */
		double		total = node->ss.ps.instrument->total;
		WorkerInstrumentation *wi = node->ss.ps.worker_instrument;

		if (wi != NULL)
			for (int n = 0; n < wi->num_workers; n++)
				total -= wi->instrument[n].total;
		return_ms = Max(total * 1000.0 - r->read_ms - r->wait_ms - st->keys_ms -
						st->sort_ms - st->write_ms - st->merge_ms, 0);
		if (es->format == EXPLAIN_FORMAT_TEXT)
		{
			StringInfoData buf;

			initStringInfo(&buf);
			appendStringInfo(&buf, "read %.3f ms, keys %.3f ms, sort %.3f ms", r->read_ms,
							 st->keys_ms, st->sort_ms);
			if (state->gather && !IsParallelWorker())
				appendStringInfo(&buf, ", wait for the workers %.3f ms", r->wait_ms);
			if (st->used_gpu)
				appendStringInfo(&buf, " (in %.3f, kernels %.3f, out %.3f)", st->gpu.h2d_ms,
								 st->gpu.kernel_ms, st->gpu.d2h_ms);
			if (st->method == MP_ROWSORT_DEVICE)
				appendStringInfo(&buf, ", ship %.3f ms, fetch %.3f ms", st->write_ms,
								 st->merge_ms);
			else if (external)
				appendStringInfo(&buf, ", write %.3f ms, merge %.3f ms", st->write_ms,
								 st->merge_ms);
			appendStringInfo(&buf, ", return %.3f ms", return_ms);
			ExplainPropertyText("Sort Phases", buf.data, es);
		}
		else
		{
			ExplainPropertyFloat("Read Time", "ms", r->read_ms, 3, es);
			ExplainPropertyFloat("Keys Time", "ms", st->keys_ms, 3, es);
			ExplainPropertyFloat("Sort Time", "ms", st->sort_ms, 3, es);
			if (state->gather)
				ExplainPropertyFloat("Wait Time", "ms", r->wait_ms, 3, es);
			if (external)
			{
				ExplainPropertyFloat("Write Time", "ms", st->write_ms, 3, es);
				ExplainPropertyFloat("Merge Time", "ms", st->merge_ms, 3, es);
			}
			ExplainPropertyFloat("Return Time", "ms", return_ms, 3, es);
		}
	}
	if (state->worker_reports != NULL)
	{
		bool		opened = false;

		for (int n = 0; n < state->worker_reports->nworkers; n++)
		{
			if (!state->worker_reports->reports[n].sorted)
				continue;
			if (!opened && es->format != EXPLAIN_FORMAT_TEXT)
				ExplainOpenGroup("Workers", "Workers", false, es);
			opened = true;
			explain_worker(n, &state->worker_reports->reports[n], es);
		}
		if (opened && es->format != EXPLAIN_FORMAT_TEXT)
			ExplainCloseGroup("Workers", "Workers", false, es);
	}
}
