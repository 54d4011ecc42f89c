/*
 * sort_plan.c
 *		Where MergepathSort stands: a planner hook that puts the node in the
 *		place of each Sort of the finished plan that it can take.
 *
 * Why the finished plan rather than paths offered to the planner: Sorts come
 * into a plan from many places, and not all of them are paths.  The Sorts
 * under a Merge Join are made while the plan is created from the chosen
 * path (createplan.c), and the Sorts of ORDER BY, GROUP BY, DISTINCT,
 * window functions, set operations and Gather Merge come from code with no
 * hook to offer an alternative.  A walk over the finished plan sees every
 * Sort, in the main plan and in every subplan, CTE and init plan, and its
 * input, output and place are exactly the Sort's.  What it cannot do is
 * change the planner's choices above the Sort (a sorted aggregate instead
 * of a hashed one, say), which were made with the Sort's cost.
 *
 * A Sort is taken when every key is a column of a type that folds into an
 * order-preserving unsigned key (mp_order.h) sorted by its type's default
 * btree order, ASC or DESC, NULLS FIRST or LAST; when its estimated input
 * has at least mergepath.sort_min_rows rows; and when it has no bound, that
 * is no Limit above it that would make it a top-N heap sort, which reads
 * its input once and keeps only the first rows: faster than any full sort.
 * Its size does not matter: the node sorts in work_mem as the Sort does,
 * and beyond it through runs on disk.  Below a Gather or Gather Merge, each
 * participant runs its own node, which is marked parallel-aware so that
 * the workers' figures reach EXPLAIN ANALYZE through shared memory; the
 * node directly under a Gather Merge is marked so, and there the leader
 * merges the runs of every participant (sort_node.c).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "mp_nodes.h"
#include "../api/mp_measured.h"

bool		mp_enable_sort = true;
int			mp_sort_min_rows = MP_SORT_MIN_ROWS;

/*
 * The bits of the Sort's composite key, NULL bits included, or 0 when a key
 * is not one the node sorts.
 */
static int
sort_key_bits(Sort *sort)
{
	int			bits = 0;

	for (int i = 0; i < sort->numCols; i++)
	{
		TargetEntry *tle = get_tle_by_resno(sort->plan.targetlist, sort->sortColIdx[i]);
		Oid			type;
		mp_key_kind kind;
		TypeCacheEntry *tc;

		if (tle == NULL)
			return 0;
		type = exprType((Node *) tle->expr);
		kind = mp_key_kind_of(type);
		if (kind == MP_KEY_NONE)
			return 0;
		tc = lookup_type_cache(getBaseType(type), TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		if (sort->sortOperators[i] != tc->lt_opr && sort->sortOperators[i] != tc->gt_opr)
			return 0;
		bits += mp_key_kind_bits(kind) + 1;
	}
	return bits;
}

static bool
sort_qualifies(Sort *sort, bool bounded)
{
	return !bounded && sort->plan.plan_rows >= mp_sort_min_rows &&
		sort->plan.lefttree != NULL && sort_key_bits(sort) > 0;
}

/*
 * The node in the Sort's place: the same input (its lefttree), output,
 * estimates and parameters.  Its scan tuple is the Sort's input row
 * (custom_scan_tlist is the Sort's target list), which it returns as is.
 */
static Plan *
make_sort_node(Sort *sort, bool in_parallel, bool gathered)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *tlist = NIL,
			   *cols = NIL,
			   *ops = NIL,
			   *colls = NIL,
			   *nulls = NIL;
	ListCell   *lc;
	double		rows = sort->plan.plan_rows;
	Cost		input = sort->plan.lefttree->total_cost;

	cscan->scan.plan = sort->plan;
	cscan->scan.plan.type = T_CustomScan;
	cscan->scan.scanrelid = 0;
	foreach(lc, sort->plan.targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		TargetEntry *out = flatCopyTargetEntry(tle);

		out->expr = (Expr *) makeVar(INDEX_VAR, tle->resno, exprType((Node *) tle->expr),
									 exprTypmod((Node *) tle->expr),
									 exprCollation((Node *) tle->expr), 0);
		tlist = lappend(tlist, out);
	}
	cscan->scan.plan.targetlist = tlist;
	cscan->custom_scan_tlist = sort->plan.targetlist;
	cscan->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN | CUSTOMPATH_SUPPORT_MARK_RESTORE;
	cscan->scan.plan.parallel_aware = in_parallel;
	for (int i = 0; i < sort->numCols; i++)
	{
		cols = lappend_int(cols, sort->sortColIdx[i]);
		ops = lappend_oid(ops, sort->sortOperators[i]);
		colls = lappend_oid(colls, sort->collations[i]);
		nulls = lappend_int(nulls, sort->nullsFirst[i]);
	}
	cscan->custom_private = list_make5(cols, ops, colls, nulls, makeInteger(gathered));
	cscan->methods = &mp_sort_scan_methods;
	cscan->scan.plan.startup_cost = input + MP_SORT_ROW_COST * cpu_operator_cost * rows;
	cscan->scan.plan.total_cost = cscan->scan.plan.startup_cost + cpu_operator_cost * rows;
	return &cscan->scan.plan;
}

static Plan *replace_sorts(Plan *plan, bool bounded, bool in_parallel, bool gathered);

static void
replace_in_list(List *plans, bool bounded, bool in_parallel)
{
	ListCell   *lc;

	foreach(lc, plans)
		lfirst(lc) = replace_sorts(lfirst(lc), bounded, in_parallel, false);
}

/*
 * The plan with its qualifying Sorts replaced.  bounded: a Limit above will
 * tell a Sort here how many rows it needs (as ExecSetTupleBound passes a
 * bound down: through Result, unfiltered SubqueryScan, Gather, Gather Merge
 * and Merge Append).  in_parallel: below a Gather or Gather Merge;
 * gathered: its outer child.
 */
static Plan *
replace_sorts(Plan *plan, bool bounded, bool in_parallel, bool gathered)
{
	bool		child_bounded = false;
	bool		child_parallel = in_parallel;

	if (plan == NULL)
		return NULL;
	switch (nodeTag(plan))
	{
		case T_Limit:
			{
				Limit	   *limit = (Limit *) plan;

				child_bounded = limit->limitCount != NULL &&
					limit->limitOption == LIMIT_OPTION_COUNT;
			}
			break;
		case T_Gather:
		case T_GatherMerge:
			child_parallel = true;
			child_bounded = bounded;
			break;
		case T_Result:
			child_bounded = bounded;
			break;
		case T_SubqueryScan:
			child_bounded = bounded && plan->qual == NIL;
			break;
		case T_MergeAppend:
			replace_in_list(((MergeAppend *) plan)->mergeplans, bounded, in_parallel);
			break;
		case T_Append:
			replace_in_list(((Append *) plan)->appendplans, false, in_parallel);
			break;
		case T_CustomScan:
			replace_in_list(((CustomScan *) plan)->custom_plans, false, in_parallel);
			break;
		default:
			break;
	}
	if (IsA(plan, SubqueryScan))
		((SubqueryScan *) plan)->subplan =
			replace_sorts(((SubqueryScan *) plan)->subplan, child_bounded, in_parallel, false);
	plan->lefttree = replace_sorts(plan->lefttree, child_bounded, child_parallel,
								   IsA(plan, GatherMerge));
	plan->righttree = replace_sorts(plan->righttree, false, in_parallel, false);

	if (IsA(plan, Sort) && sort_qualifies((Sort *) plan, bounded))
		return make_sort_node((Sort *) plan, in_parallel, gathered);
	return plan;
}

/* The finished plan's Sorts that the node can take, replaced by it. */
void
mp_sort_finish_plan(PlannedStmt *stmt)
{
	stmt->planTree = replace_sorts(stmt->planTree, false, false, false);
	replace_in_list(stmt->subplans, false, false);
}

/* Registers the node: parallel workers read it back by name. */
void
mp_sort_node_init(void)
{
	RegisterCustomScanMethods(&mp_sort_scan_methods);
}
