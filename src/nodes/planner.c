/*
 * planner.c
 *		The nodes' place in the planner: MergepathJoin is offered as a path
 *		(join_plan.c's hook); once the plan is finished, a walk puts
 *		MergepathSort in the place of the Sorts it can take (sort_plan.c),
 *		completes the MergepathJoins' scan lists (join_plan.c) and puts
 *		MergepathBatch over the nodes whose array calls it batches
 *		(batch_plan.c).
 */
#include "postgres.h"

#include "optimizer/planner.h"

#include "mp_nodes.h"

static planner_hook_type prev_planner_hook = NULL;

static PlannedStmt *
mergepath_planner(Query *parse, const char *query_string, int cursorOptions,
				  ParamListInfo boundParams)
{
	PlannedStmt *stmt;
	ListCell   *lc;

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams);
	if (mp_enable_sort)
		mp_sort_finish_plan(stmt);
	mp_join_finish_plan(stmt->planTree);
	foreach(lc, stmt->subplans)
		mp_join_finish_plan(lfirst(lc));
	mp_batch_finish_plan(stmt, cursorOptions);
	return stmt;
}

/* Registers the nodes and the planner's hooks; from _PG_init. */
void
mp_nodes_init(void)
{
	mp_sort_node_init();
	mp_join_node_init();
	mp_batch_node_init();
	prev_planner_hook = planner_hook;
	planner_hook = mergepath_planner;
}
