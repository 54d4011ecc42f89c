/*
 * batch_plan.c
 *		Where MergepathBatch stands: over each node of the finished plan
 *		whose target list or filter calls mergepath's array functions on
 *		values its rows supply.
 *
 * The node in question (a scan, a join, a projecting Result) keeps its
 * input, and the filter conditions before the first one with such a call;
 * it now returns only the columns that its expressions read.  The batch
 * node above it takes over the rest: it reads a batch of rows, makes one
 * batched call a function (mp_batch_call), and then evaluates the node's
 * target list and remaining filter for each row with the calls' results in
 * place of the calls.  Its output is exactly the node's, so the plan above
 * is unchanged.
 *
 * A call is batched when every argument is a column, a constant or a
 * parameter (nothing that can fail) and at least one is a column.  A row
 * whose arguments the function would refuse (a NULL element, more than one
 * dimension, an unsorted array) is evaluated by the original expressions,
 * call included: the batch computes for every row what the expressions
 * may ask, and only what cannot fail, so a call under a CASE or after
 * another filter condition changes nothing that a user can see.
 *
 * An aggregate's arguments are evaluated by the Agg node, from its input's
 * rows: a call there is moved into the input's target list (as a hidden
 * column the aggregate then reads), where the walk finds it.  Not for
 * aggregates with a FILTER (their arguments are evaluated only for the rows
 * it keeps, which is cheaper than a batch of them all), nor where the input
 * does not project (a Sort under a sorted aggregate).
 *
 * The node is not placed where it could not stand in for the node below:
 * under a Merge Join's inner side (mark and restore), in scrollable
 * cursors (backward fetches), in plans that lock or modify rows, and over
 * expressions with subplans.  Nor where it would not pay: on the CPU
 * backend a batch's calls run on a thread beside the reading, and run in
 * turn with it they took 4-9% longer than the calls row by row
 * (test/bench/NOTES.md, "Where no thread can run the calls"), so without
 * a processor to spare for that thread (the processes of the Gather above
 * take them all, or mergepath.cpu_threads is 1) the node goes only where
 * the plan may count on the GPU (mergepath.device = gpu), or everywhere
 * with mergepath.batch_min_rows = 0.
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "mp_nodes.h"
#include "../api/mp_measured.h"
#include "../functions/mp_batchable.h"
#include "../run/mp_run.h"

bool		mp_enable_batch = true;
int			mp_batch_min_rows = MP_BATCH_MIN_ROWS;

/* The walk over the finished plan: the next plan_node_id, and how many
 * processes run the part being walked (a Gather's participants, or 1). */
typedef struct place_walk
{
	int			next_id;
	int			processes;
} place_walk;

/*
 * Whether a batch pays in the part of the plan being walked: its calls can
 * go to the GPU, or there is a processor to spare for the thread that runs
 * them on the CPU beside the reading (see the top).
 */
static bool
batch_pays(const place_walk *walk)
{
	if (mp_batch_min_rows == 0 || mp_gpu_plannable())
		return true;
	return Min(mp_cpu_threads, mp_cpu_processors() / walk->processes) > 1;
}

/* An argument that cannot fail: a column, a constant or a parameter. */
static bool
simple_arg(Node *arg, bool *is_column)
{
	while (IsA(arg, RelabelType))
		arg = (Node *) ((RelabelType *) arg)->arg;
	if (IsA(arg, Var))
		*is_column = true;
	return IsA(arg, Var) || IsA(arg, Const) || IsA(arg, Param);
}

/* Whether node is a call that a batch can run. */
static bool
batchable_call(Node *node)
{
	FuncExpr   *call;
	const mp_batch_fn *fn;
	bool		column = false;
	ListCell   *lc;

	if (!IsA(node, FuncExpr))
		return false;
	call = (FuncExpr *) node;
	if (call->funcretset || (fn = mp_batch_fn_of(call->funcid)) == NULL ||
		list_length(call->args) != fn->nargs)
		return false;
	foreach(lc, call->args)
		if (!simple_arg(lfirst(lc), &column))
			return false;
	return column;
}

typedef struct found_calls
{
	List	   *calls;			/* distinct, in order of appearance */
	bool		unsafe;			/* a subplan: the expressions stay where they are */
} found_calls;

static bool
find_calls(Node *node, found_calls *found)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan))
	{
		found->unsafe = true;
		return true;
	}
	if (batchable_call(node))
	{
		if (!list_member(found->calls, node))
			found->calls = lappend(found->calls, node);
		return false;
	}
	return expression_tree_walker(node, find_calls, found);
}

static bool
collect_vars(Node *node, List **vars)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		if (!list_member(*vars, node))
			*vars = lappend(*vars, node);
		return false;
	}
	return expression_tree_walker(node, collect_vars, vars);
}

/* Each column the expressions read, as the batch node's input column. */
static Node *
vars_to_outer(Node *node, List *vars)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;
		int			i = 1;
		ListCell   *lc;

		foreach(lc, vars)
		{
			if (equal(lfirst(lc), node))
				return (Node *) makeVar(OUTER_VAR, i, var->vartype, var->vartypmod,
										var->varcollid, 0);
			i++;
		}
		elog(ERROR, "MergepathBatch: a column was not collected");
	}
	return expression_tree_mutator(node, vars_to_outer, vars);
}

/* Each batched call as the column of its results. */
static Node *
calls_to_results(Node *node, List *calls)
{
	int			i = 1;
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	foreach(lc, calls)
	{
		if (equal(lfirst(lc), node))
			return (Node *) makeVar(INDEX_VAR, i, exprType(node), exprTypmod(node),
									exprCollation(node), 0);
		i++;
	}
	return expression_tree_mutator(node, calls_to_results, calls);
}

/* Nodes that evaluate their own target list and filter over their rows. */
static bool
projecting_node(Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_SubqueryScan:
		case T_FunctionScan:
		case T_ValuesScan:
		case T_CteScan:
		case T_WorkTableScan:
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
			return true;
		case T_Result:
			return plan->lefttree != NULL;
		default:
			return false;
	}
}

/*
 * The batch node over plan, or plan itself when nothing of its target list
 * or filter is to be batched.
 */
static Plan *
place_batch(Plan *plan, place_walk *walk)
{
	List	   *keep = NIL,
			   *move = NIL,
			   *vars = NIL,
			   *input = NIL,
			   *tlist,
			   *qual,
			   *scan_tlist = NIL;
	found_calls found = {NIL, false};
	bool		moving = false;
	ListCell   *lc;
	CustomScan *cscan;
	int			i;

	if (!projecting_node(plan) || plan->plan_rows < mp_batch_min_rows || !batch_pays(walk))
		return plan;

	/* the filter: what comes before the first condition with a call stays */
	foreach(lc, plan->qual)
	{
		if (!moving)
		{
			found_calls here = {NIL, false};

			(void) find_calls(lfirst(lc), &here);
			moving = here.calls != NIL || here.unsafe;
		}
		if (moving)
			move = lappend(move, lfirst(lc));
		else
			keep = lappend(keep, lfirst(lc));
	}
	(void) find_calls((Node *) plan->targetlist, &found);
	(void) find_calls((Node *) move, &found);
	if (found.unsafe || found.calls == NIL)
		return plan;

	/* the node below returns the columns the expressions read */
	(void) collect_vars((Node *) plan->targetlist, &vars);
	(void) collect_vars((Node *) move, &vars);
	i = 1;
	foreach(lc, vars)
		input = lappend(input, makeTargetEntry(copyObject(lfirst(lc)), i++, NULL, false));
	tlist = (List *) vars_to_outer((Node *) plan->targetlist, vars);
	qual = (List *) vars_to_outer((Node *) move, vars);

	/* the calls again, now over those columns */
	found.calls = NIL;
	(void) find_calls((Node *) tlist, &found);
	(void) find_calls((Node *) qual, &found);
	i = 1;
	foreach(lc, found.calls)
		scan_tlist = lappend(scan_tlist, makeTargetEntry(lfirst(lc), i++, NULL, false));

	cscan = makeNode(CustomScan);
	cscan->scan.plan.startup_cost = plan->startup_cost;
	cscan->scan.plan.total_cost = plan->total_cost;
	cscan->scan.plan.plan_rows = plan->plan_rows;
	cscan->scan.plan.plan_width = plan->plan_width;
	cscan->scan.plan.parallel_aware = false;
	cscan->scan.plan.parallel_safe = plan->parallel_safe;
	cscan->scan.plan.plan_node_id = walk->next_id++;
	cscan->scan.plan.targetlist = (List *) calls_to_results((Node *) tlist, found.calls);
	cscan->scan.plan.qual = (List *) calls_to_results((Node *) qual, found.calls);
	cscan->scan.plan.lefttree = plan;
	cscan->scan.plan.extParam = bms_copy(plan->extParam);
	cscan->scan.plan.allParam = bms_copy(plan->allParam);
	cscan->scan.scanrelid = 0;
	cscan->flags = 0;
	cscan->custom_scan_tlist = scan_tlist;
	/* the expressions as they were, for the rows run one by one */
	cscan->custom_exprs = list_make2(tlist, qual);
	cscan->methods = &mp_batch_scan_methods;

	plan->targetlist = input;
	plan->qual = keep;
	return &cscan->scan.plan;
}

/*
 * The calls in an aggregate's arguments moved into the target list of the
 * Agg's input, which must project; the argument then reads that column.
 */
typedef struct agg_move
{
	Plan	   *input;
} agg_move;

/* The input's column computing expr (a new hidden one if need be). */
static AttrNumber
input_column(Plan *input, Expr *expr)
{
	ListCell   *lc;
	TargetEntry *tle;

	foreach(lc, input->targetlist)
	{
		tle = lfirst(lc);
		if (equal(tle->expr, expr))
			return tle->resno;
	}
	tle = makeTargetEntry(expr, list_length(input->targetlist) + 1, NULL, true);
	input->targetlist = lappend(input->targetlist, tle);
	return tle->resno;
}

/* An argument expression with its input columns replaced by what computes
 * them below; NULL where that is not a plain argument. */
static Node *
outer_to_input(Node *node, Plan *input)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == OUTER_VAR)
	{
		TargetEntry *tle = get_tle_by_resno(input->targetlist, ((Var *) node)->varattno);

		return tle ? copyObject((Node *) tle->expr) : NULL;
	}
	return expression_tree_mutator(node, outer_to_input, input);
}

static Node *
move_arg_calls(Node *node, agg_move *move)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, FuncExpr) && batchable_call(node))
	{
		Node	   *below = outer_to_input(node, move->input);

		if (below != NULL && batchable_call(below))
			return (Node *) makeVar(OUTER_VAR, input_column(move->input, (Expr *) below),
									exprType(node), exprTypmod(node), exprCollation(node), 0);
		return node;
	}
	return expression_tree_mutator(node, move_arg_calls, move);
}

static Node *
move_agg_calls(Node *node, agg_move *move)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		Aggref	   *aggref = (Aggref *) node;

		if (aggref->aggfilter == NULL)
			aggref->args = (List *) move_arg_calls((Node *) aggref->args, move);
		return node;
	}
	if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan))
		return node;
	return expression_tree_mutator(node, move_agg_calls, move);
}

static bool
input_columns_used(Node *node, Bitmapset **used)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == OUTER_VAR)
	{
		*used = bms_add_member(*used, ((Var *) node)->varattno);
		return false;
	}
	return expression_tree_walker(node, input_columns_used, used);
}

static Node *
renumber_input_columns(Node *node, AttrNumber *map)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == OUTER_VAR)
	{
		Var		   *var = (Var *) copyObject(node);

		var->varattno = map[var->varattno];
		return (Node *) var;
	}
	return expression_tree_mutator(node, renumber_input_columns, map);
}

/*
 * The input's target list cut down to the columns the Agg reads (its
 * expressions and grouping columns), the Agg's references renumbered: a
 * scan's full row, kept for the arguments of the calls now computed below,
 * would otherwise pass through the batch node.
 */
static void
prune_input(Agg *agg, Plan *input)
{
	Bitmapset  *used = NULL;
	AttrNumber *map = palloc0((list_length(input->targetlist) + 1) * sizeof(AttrNumber));
	List	   *kept = NIL;
	ListCell   *lc;

	(void) input_columns_used((Node *) agg->plan.targetlist, &used);
	(void) input_columns_used((Node *) agg->plan.qual, &used);
	for (int i = 0; i < agg->numCols; i++)
		used = bms_add_member(used, agg->grpColIdx[i]);
	if (bms_num_members(used) == list_length(input->targetlist))
		return;
	foreach(lc, input->targetlist)
	{
		TargetEntry *tle = lfirst(lc);

		if (!bms_is_member(tle->resno, used))
			continue;
		tle = flatCopyTargetEntry(tle);
		map[tle->resno] = list_length(kept) + 1;
		tle->resno = map[tle->resno];
		kept = lappend(kept, tle);
	}
	input->targetlist = kept;
	agg->plan.targetlist = (List *) renumber_input_columns((Node *) agg->plan.targetlist, map);
	agg->plan.qual = (List *) renumber_input_columns((Node *) agg->plan.qual, map);
	for (int i = 0; i < agg->numCols; i++)
		agg->grpColIdx[i] = map[agg->grpColIdx[i]];
}

static void
move_into_input(Agg *agg, const place_walk *walk)
{
	agg_move	move = {agg->plan.lefttree};
	int			before;

	if (move.input == NULL || !projecting_node(move.input) ||
		move.input->plan_rows < mp_batch_min_rows || !batch_pays(walk) ||
		DO_AGGSPLIT_COMBINE(agg->aggsplit) || agg->groupingSets != NIL)
		return;
	before = list_length(move.input->targetlist);
	agg->plan.targetlist = (List *) move_agg_calls((Node *) agg->plan.targetlist, &move);
	agg->plan.qual = (List *) move_agg_calls((Node *) agg->plan.qual, &move);
	if (list_length(move.input->targetlist) > before)
		prune_input(agg, move.input);
}

/* The largest plan_node_id in plan's tree. */
static int
largest_id(Plan *plan)
{
	int			most;
	ListCell   *lc;
	List	   *more = NIL;

	if (plan == NULL)
		return -1;
	most = plan->plan_node_id;
	most = Max(most, largest_id(plan->lefttree));
	most = Max(most, largest_id(plan->righttree));
	switch (nodeTag(plan))
	{
		case T_SubqueryScan:
			most = Max(most, largest_id(((SubqueryScan *) plan)->subplan));
			break;
		case T_Append:
			more = ((Append *) plan)->appendplans;
			break;
		case T_MergeAppend:
			more = ((MergeAppend *) plan)->mergeplans;
			break;
		case T_BitmapAnd:
			more = ((BitmapAnd *) plan)->bitmapplans;
			break;
		case T_BitmapOr:
			more = ((BitmapOr *) plan)->bitmapplans;
			break;
		case T_CustomScan:
			more = ((CustomScan *) plan)->custom_plans;
			break;
		default:
			break;
	}
	foreach(lc, more)
		most = Max(most, largest_id(lfirst(lc)));
	return most;
}

static Plan *place_in(Plan *plan, place_walk *walk, bool under_merge_inner);

static void
place_in_list(List *plans, place_walk *walk)
{
	ListCell   *lc;

	foreach(lc, plans)
		lfirst(lc) = place_in(lfirst(lc), walk, false);
}

/* The processes that run a Gather's (or Gather Merge's) subplan. */
static int
gather_processes(Plan *plan)
{
	if (IsA(plan, Gather))
	{
		Gather	   *gather = (Gather *) plan;

		return gather->single_copy ? 1 :
			gather->num_workers + (parallel_leader_participation ? 1 : 0);
	}
	return ((GatherMerge *) plan)->num_workers + (parallel_leader_participation ? 1 : 0);
}

static Plan *
place_in(Plan *plan, place_walk *walk, bool merge_inner)
{
	int			processes = walk->processes;

	if (plan == NULL)
		return NULL;
	if (IsA(plan, Agg))
		move_into_input((Agg *) plan, walk);
	switch (nodeTag(plan))
	{
		case T_SubqueryScan:
			((SubqueryScan *) plan)->subplan =
				place_in(((SubqueryScan *) plan)->subplan, walk, false);
			break;
		case T_Append:
			place_in_list(((Append *) plan)->appendplans, walk);
			break;
		case T_MergeAppend:
			place_in_list(((MergeAppend *) plan)->mergeplans, walk);
			break;
		case T_CustomScan:
			place_in_list(((CustomScan *) plan)->custom_plans, walk);
			break;
		case T_Gather:
		case T_GatherMerge:
			walk->processes = Max(gather_processes(plan), 1);
			break;
		default:
			break;
	}
	plan->lefttree = place_in(plan->lefttree, walk, false);
	plan->righttree = place_in(plan->righttree, walk, IsA(plan, MergeJoin));
	walk->processes = processes;
	return merge_inner ? plan : place_batch(plan, walk);
}

/* The finished plan with MergepathBatch over the nodes whose calls it takes. */
void
mp_batch_finish_plan(PlannedStmt *stmt, int cursor_options)
{
	place_walk	walk = {0, 1};
	ListCell   *lc;

	if (!mp_enable_batch || stmt->commandType != CMD_SELECT || stmt->rowMarks != NIL ||
		(cursor_options & CURSOR_OPT_SCROLL))
		return;
	walk.next_id = largest_id(stmt->planTree);
	foreach(lc, stmt->subplans)
		walk.next_id = Max(walk.next_id, largest_id(lfirst(lc)));
	walk.next_id++;
	stmt->planTree = place_in(stmt->planTree, &walk, false);
	foreach(lc, stmt->subplans)
		lfirst(lc) = place_in(lfirst(lc), &walk, false);
}
