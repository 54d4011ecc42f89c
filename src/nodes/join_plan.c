/*
 * join_plan.c
 *		Where MergepathJoin stands: a join path offered to the planner, with
 *		its cost, beside PostgreSQL's hash, merge and nested-loop joins.
 *
 * Unlike the sort node, the join is a path (set_join_pathlist_hook): which
 * join method a plan uses is the planner's choice by cost, and it changes
 * the plan above and below (which input is sorted, what order comes out).
 * The hook runs for every pair of inputs the planner considers; the node
 * is offered when the join is INNER, LEFT, RIGHT, FULL, SEMI or ANTI and
 * has an equality clause between expressions of one of the types the
 * nodes fold into order-preserving keys (mp_order.h) by that type's
 * default btree equality.  That clause is the join's key; every other join
 * clause is checked on each pair with an equal key.
 *
 * Each input is its cheapest path, or its cheapest path already ordered by
 * the key (an index scan, say) when that and no sort cost less.  The output
 * comes in key order, NULLs last, as a Merge Join's does, and the path says
 * so, which can save a Sort above it.  A partial path (a portion of the
 * outer input in each parallel worker, all of the inner one) is offered
 * for the join types that need no knowledge of the other workers' matches.
 *
 * The cost (cpu_operator_cost units a row; MP_JOIN_* in api/mp_measured.h)
 * is calibrated against the Hash Join's: keeping a row with its key,
 * sorting the keys (radix passes: no log n), finding each key's partners,
 * and forming each pair.  The sort is costed as the CPU backend's unless
 * mergepath.device is gpu.  The node holds both inputs within the memory a
 * Hash Join may use (hash_mem_multiplier x work_mem); beyond it both go
 * through the row sort's runs on disk and it joins in key ranges that fit
 * (join_node.c), which the cost adds as each input's pages written and
 * read once.  The partial path of a portion of the outer input a
 * worker is offered only where both fit.
 */
#include "postgres.h"

#include <math.h>

#include "access/stratnum.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "../run/mp_run.h"
#include "mp_nodes.h"
#include "../api/mp_measured.h"

/*
 * The node's costs, in cpu_operator_cost units (MP_JOIN_*, measured against
 * the Hash Join's: api/mp_measured.h): a row kept, a key sorted on each
 * backend, a step of the sorted search, a pair formed, and a start-up.
 */

bool		mp_enable_join = true;

static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

static Plan *join_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							List *tlist, List *clauses, List *custom_plans);

static const CustomPathMethods join_path_methods = {
	.CustomName = "MergepathJoin",
	.PlanCustomPath = join_plan_path,
};

/* The equality clause the join runs on. */
typedef struct join_key
{
	RestrictInfo *rinfo;
	bool		outer_is_left;	/* the clause's left side is the outer input's */
	mp_key_kind kind;
	List	   *outer_pathkeys; /* the key ascending, NULLs last, on each side */
	List	   *inner_pathkeys;
} join_key;

/* The pathkey of one side of the key clause, or NIL. */
static List *
side_pathkeys(PlannerInfo *root, EquivalenceClass *ec, Oid opfamily)
{
	if (ec == NULL || ec->ec_has_volatile)
		return NIL;
	return list_make1(make_canonical_pathkey(root, ec, opfamily, BTLessStrategyNumber, false));
}

/* The first join clause the node can run on, if any. */
static bool
find_key(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel, RelOptInfo *innerrel,
		 JoinType jointype, List *restrictlist, join_key *key)
{
	ListCell   *lc;

	foreach(lc, restrictlist)
	{
		RestrictInfo *rinfo = lfirst(lc);
		OpExpr	   *op;
		Oid			type;
		TypeCacheEntry *tc;

		/* an outer join's WHERE clauses filter its result, they do not join */
		if (IS_OUTER_JOIN(jointype) && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids))
			continue;
		if (!rinfo->can_join || rinfo->mergeopfamilies == NIL || !is_opclause(rinfo->clause))
			continue;
		op = (OpExpr *) rinfo->clause;
		if (list_length(op->args) != 2)
			continue;
		type = exprType(linitial(op->args));
		if (type != exprType(lsecond(op->args)))
			continue;
		key->kind = mp_key_kind_of(type);
		if (key->kind == MP_KEY_NONE)
			continue;
		tc = lookup_type_cache(getBaseType(type), TYPECACHE_EQ_OPR | TYPECACHE_BTREE_OPFAMILY);
		if (op->opno != tc->eq_opr || !list_member_oid(rinfo->mergeopfamilies, tc->btree_opf))
			continue;
		if (bms_is_subset(rinfo->left_relids, outerrel->relids) &&
			bms_is_subset(rinfo->right_relids, innerrel->relids))
			key->outer_is_left = true;
		else if (bms_is_subset(rinfo->left_relids, innerrel->relids) &&
				 bms_is_subset(rinfo->right_relids, outerrel->relids))
			key->outer_is_left = false;
		else
			continue;
		key->rinfo = rinfo;
		update_mergeclause_eclasses(root, rinfo);
		key->outer_pathkeys = side_pathkeys(root, key->outer_is_left ? rinfo->left_ec :
											rinfo->right_ec, tc->btree_opf);
		key->inner_pathkeys = side_pathkeys(root, key->outer_is_left ? rinfo->right_ec :
											rinfo->left_ec, tc->btree_opf);
		return true;
	}
	return false;
}

/*
 * The cheaper way to have one side in key order: its cheapest path sorted
 * by the node, or a path already in key order (which the node finds in
 * order as it reads it, and does not sort).  *cost includes the sort.
 */
static Path *
pick_input(List *pathkeys, List *paths, Path *cheapest, Cost *cost)
{
	double		rows = cheapest->rows;
	/* the GPU's cost where the plan may count on it (mp_gpu_plannable);
	 * the CPU's is the higher, so a join the node wins on the CPU it wins
	 * on the GPU */
	Cost		sort = cpu_operator_cost * rows *
		(mp_gpu_plannable() ? MP_JOIN_SORT_GPU_COST : MP_JOIN_SORT_CPU_COST);
	Path	   *in_order = NULL;

	if (pathkeys != NIL)
		in_order = get_cheapest_path_for_pathkeys(paths, pathkeys, NULL, TOTAL_COST, false);
	if (pathkeys != NIL && pathkeys_contained_in(pathkeys, cheapest->pathkeys))
		in_order = cheapest;
	if (in_order && in_order->param_info == NULL &&
		in_order->total_cost <= cheapest->total_cost + sort)
	{
		*cost = in_order->total_cost;
		return in_order;
	}
	*cost = cheapest->total_cost + sort;
	return cheapest;
}

/* Pages of rows rows of width bytes, as costsize.c's page_size counts them. */
static double
pages_of(double rows, int width)
{
	return ceil(rows * (MAXALIGN(width) + MAXALIGN(SizeofHeapTupleHeader)) / BLCKSZ);
}

/*
 * An input that outgrows the memory goes through the row sort's runs on
 * disk: its pages written once and read once (a single merge pass, which
 * work_mem's merge order gives up to hundreds of runs), as Hash Join costs
 * its batches.  cost_sort's own formula (a quarter of the pages at
 * random_page_cost) put 1M x 1M rows at work_mem 4MB above the Hash Join,
 * 82232 against 77558, where the node took 802-890 ms against the Hash
 * Join's 1170-1234 (development machine, CPU backend; test/bench/NOTES.md,
 * "MergepathJoin beyond memory").
 */
static Cost
spill_cost(double rows, int width)
{
	return seq_page_cost * 2 * pages_of(rows, width);
}

/* Bytes the node holds for rows rows of width bytes, tuples and arrays. */
static double
held_bytes(double rows, int width, int natts)
{
	return rows * (MAXALIGN(width) + MAXALIGN(SizeofMinimalTupleHeader) +
				   mp_join_row_overhead(natts));
}

/*
 * The path's rows and cost, from its inputs' (costs of reaching key order
 * included) and the estimated candidate pairs (equal keys, before the other
 * join clauses).
 */
static void
cost_join(PlannerInfo *root, CustomPath *cpath, JoinPathExtraData *extra, join_key *key,
		  Path *outer, Cost outer_cost, Path *inner, Cost inner_cost, double inner_all,
		  List *other_clauses, double rows)
{
	double		candidates;
	QualCost	quals;
	Cost		startup;

	candidates = clamp_row_est(outer->rows * inner_all *
							   clause_selectivity(root, (Node *) key->rinfo, 0, JOIN_INNER,
												  extra->sjinfo));
	cost_qual_eval(&quals, other_clauses, root);
	startup = outer_cost + inner_cost + quals.startup +
		cpu_operator_cost * (MP_JOIN_STARTUP_COST + (outer->rows + inner->rows) *
							 (MP_JOIN_ROW_COST + MP_JOIN_SEARCH_COST));
	cpath->path.rows = rows;
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = startup +
		candidates * (cpu_operator_cost * MP_JOIN_PAIR_COST + quals.per_tuple) +
		rows * (cpu_operator_cost + cpath->path.pathtarget->cost.per_tuple);
}

/* The join clauses besides the key, as the node checks them. */
static List *
other_join_clauses(JoinType jointype, Relids relids, List *restrictlist, join_key *key,
				   List **filters)
{
	List	   *clauses;

	if (IS_OUTER_JOIN(jointype))
		extract_actual_join_clauses(restrictlist, relids, &clauses, filters);
	else
	{
		clauses = extract_actual_clauses(restrictlist, false);
		*filters = NIL;
	}
	return list_delete_ptr(clauses, key->rinfo->clause);
}

/*
 * The path.  shared: a parallel join whose inner input is partial too, read
 * by all participants into shared memory and sorted once (inner_all rows in
 * all); its output is in key order only batch by batch, so it has no
 * pathkeys.
 */
static CustomPath *
make_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype, JoinPathExtraData *extra,
		  join_key *key, Path *outer, Cost outer_cost, Path *inner, Cost inner_cost,
		  bool shared, double inner_all, double rows)
{
	CustomPath *cpath = makeNode(CustomPath);
	List	   *filters;
	List	   *clauses = other_join_clauses(jointype, joinrel->relids, extra->restrictlist,
											 key, &filters);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = joinrel;
	cpath->path.pathtarget = joinrel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = shared;
	cpath->path.parallel_safe = joinrel->consider_parallel && outer->parallel_safe &&
		inner->parallel_safe;
	cpath->path.parallel_workers = outer->parallel_workers;
	cpath->path.pathkeys = shared ? NIL :
		build_join_pathkeys(root, joinrel, jointype, key->outer_pathkeys);
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_paths = list_make2(outer, inner);
	cpath->custom_private = list_make3(extra->restrictlist, key->rinfo,
									   list_make3_int(jointype, key->outer_is_left, key->kind));
	cpath->methods = &join_path_methods;
	cost_join(root, cpath, extra, key, outer, outer_cost, inner, inner_cost, inner_all,
			  list_concat(clauses, filters), rows);
	return cpath;
}

/* What costsize.c divides a partial path's rows by: the participants' share. */
static double
parallel_divisor(int workers)
{
	double		divisor = workers;

	if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
		divisor += 1.0 - 0.3 * workers;
	return divisor;
}

/* Rows a parallel worker's share of a partial path has, as costsize.c counts. */
static double
worker_share(double rows, int workers)
{
	return clamp_row_est(rows / parallel_divisor(workers));
}


/*
 * The parallel join over a shared inner side: both inputs partial, for every
 * join type (a RIGHT or FULL join's unmatched inner rows come from the last
 * participant to finish, which PostgreSQL 15's Parallel Hash Join cannot
 * do).  Costed per participant: its shares of both inputs kept, sorted
 * and searched.  Each participant sorts its own part of the inner side and
 * merges its share of the parts' merge (join_shared.c), so the inner sort
 * is a participant's share as the outer's is; charged whole, as when one
 * participant merged while the others waited, it kept Parallel Hash Join
 * at 3 workers where the node ran 2.3x faster (3M x 3M rows, work_mem
 * 1GB, development machine; test/bench/NOTES.md, "The sorted parts merged
 * by every participant").  Where the inner side fits in memory, the
 * node's own cost is scaled by MP_JOIN_SHARED_FACTOR (mp_measured.h): with
 * 4 workers the node took half to four fifths of Parallel Hash Join's
 * time, while the whole constants put its cost above the hash join's,
 * whose cost falls faster with the workers than its time.  Where the
 * inner rows outgrow the memory
 * Parallel Hash Join counts for its table (hash_mem x participants), both
 * sides go into key ranges on temporary files; that is costed exactly as
 * Parallel Hash Join costs its batches: the participant's share of the
 * inner pages written and read, and of the outer pages written and read.
 * The spool's second pass over the inner rows is left out: with it,
 * 1M x 1M rows at the default work_mem and 2 workers took 410-480 ms
 * against Parallel Hash Join's 510-590 (development machine, CPU backend;
 * test/bench/NOTES.md, "In parallel, beyond memory"), while counting it
 * put the node's cost 20% above the hash join's.
 */
static void
add_shared_path(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra,
				join_key *key)
{
	Path	   *outer = linitial(outerrel->partial_pathlist),
			   *inner = linitial(innerrel->partial_pathlist);
	int			workers = outer->parallel_workers;
	double		inner_all,
				need,
				budget,
				sort_cost = mp_gpu_plannable() ? MP_JOIN_SORT_GPU_COST : MP_JOIN_SORT_CPU_COST;
	Cost		inner_cost,
				outer_cost;
	CustomPath *path;

	if (outer->param_info != NULL || inner->param_info != NULL)
		return;
	inner_all = inner->rows * parallel_divisor(inner->parallel_workers);
	need = held_bytes(inner_all, innerrel->reltarget->width, 0) + inner_all * 4 * sizeof(uint64);
	budget = (double) get_hash_memory_limit() *
		Max(workers + (parallel_leader_participation ? 1 : 0), 1);
	inner_cost = inner->total_cost + cpu_operator_cost * inner->rows * sort_cost;
	outer_cost = outer->total_cost + cpu_operator_cost * outer->rows * sort_cost;
	path = make_path(root, joinrel, jointype, extra, key, outer, outer_cost, inner, inner_cost,
					 true, inner_all, worker_share(joinrel->rows, workers));
	if (need > budget)
	{
		double		inner_pages = pages_of(inner->rows, innerrel->reltarget->width),
					outer_pages = pages_of(outer->rows, outerrel->reltarget->width);

		path->path.startup_cost += seq_page_cost * inner_pages;
		path->path.total_cost += seq_page_cost * (2 * inner_pages + 2 * outer_pages);
	}
	else
	{
		/* in memory: the node's own cost scaled, its inputs' not */
		Cost		inputs = outer->total_cost + inner->total_cost;

		path->path.startup_cost = inputs + (path->path.startup_cost - inputs) *
			MP_JOIN_SHARED_FACTOR;
		path->path.total_cost = inputs + (path->path.total_cost - inputs) *
			MP_JOIN_SHARED_FACTOR;
	}
	add_partial_path(joinrel, (Path *) path);
}

static void
join_pathlist(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
			  RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	join_key	key;
	ListCell   *lc;
	Path	   *outer,
			   *inner;
	Cost		outer_cost,
				inner_cost;

	if (prev_join_pathlist_hook)
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	if (!mp_enable_join)
		return;
	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_LEFT:
		case JOIN_RIGHT:
		case JOIN_FULL:
		case JOIN_SEMI:
		case JOIN_ANTI:
			break;
		default:
			return;				/* the unique-ified forms of a semi join */
	}
	/* constant clauses would need a gating node above, which a custom join
	 * does not get */
	foreach(lc, extra->restrictlist)
		if (((RestrictInfo *) lfirst(lc))->pseudoconstant)
			return;
	if (outerrel->cheapest_total_path == NULL || innerrel->cheapest_total_path == NULL ||
		outerrel->cheapest_total_path->param_info != NULL ||
		innerrel->cheapest_total_path->param_info != NULL)
		return;
	if (!find_key(root, joinrel, outerrel, innerrel, jointype, extra->restrictlist, &key))
		return;
	if (joinrel->consider_parallel && outerrel->partial_pathlist != NIL &&
		innerrel->partial_pathlist != NIL)
		add_shared_path(root, joinrel, outerrel, innerrel, jointype, extra, &key);
	outer = pick_input(key.outer_pathkeys, outerrel->pathlist, outerrel->cheapest_total_path,
					   &outer_cost);
	inner = pick_input(key.inner_pathkeys, innerrel->pathlist, innerrel->cheapest_total_path,
					   &inner_cost);
	if (held_bytes(outerrel->rows, outerrel->reltarget->width,
				   list_length(outerrel->reltarget->exprs) + 1) +
		held_bytes(innerrel->rows, innerrel->reltarget->width,
				   list_length(innerrel->reltarget->exprs) + 1) > (double) get_hash_memory_limit())
	{
		/* in key ranges from the row sorts of both inputs */
		outer_cost += spill_cost(outerrel->rows, outerrel->reltarget->width);
		inner_cost += spill_cost(innerrel->rows, innerrel->reltarget->width);
		add_path(joinrel, (Path *) make_path(root, joinrel, jointype, extra, &key, outer,
											 outer_cost, inner, inner_cost, false, inner->rows,
											 joinrel->rows));
		return;
	}
	add_path(joinrel, (Path *) make_path(root, joinrel, jointype, extra, &key, outer, outer_cost,
										 inner, inner_cost, false, inner->rows, joinrel->rows));

	/*
	 * Each worker joins its portion of the outer input with all of the inner
	 * one: not for joins that return inner rows that no worker matched.
	 */
	if (joinrel->consider_parallel && outerrel->partial_pathlist != NIL &&
		inner->parallel_safe &&
		(jointype == JOIN_INNER || jointype == JOIN_LEFT || jointype == JOIN_SEMI ||
		 jointype == JOIN_ANTI))
	{
		Path	   *part = linitial(outerrel->partial_pathlist);

		if (part->param_info == NULL)
		{
			outer = pick_input(key.outer_pathkeys, outerrel->partial_pathlist, part,
							   &outer_cost);
			add_partial_path(joinrel, (Path *) make_path(root, joinrel, jointype, extra, &key,
														 outer, outer_cost, inner, inner_cost,
														 false, inner->rows,
														 worker_share(joinrel->rows,
																	  outer->parallel_workers)));
		}
	}
}

/*
 * The expression's column in the plan's output, added (and the plan given a
 * projection if it cannot project) when it is not there.
 */
static Plan *
with_column(Plan *plan, Expr *expr, AttrNumber *attno)
{
	TargetEntry *tle = tlist_member(expr, plan->targetlist);
	List	   *tlist;

	if (tle)
	{
		*attno = tle->resno;
		return plan;
	}
	tlist = list_copy(plan->targetlist);
	tle = makeTargetEntry(copyObject(expr), list_length(tlist) + 1, NULL, true);
	*attno = tle->resno;
	return change_plan_targetlist(plan, lappend(tlist, tle), plan->parallel_safe);
}

/*
 * The scan tuple's column for an input's output column.  Above an outer
 * join, an expression computed in the nullable input must be computed
 * again from the NULL-extended row, not taken from the input (where it was
 * computed from the row before it was extended): coalesce(y, 0) of a
 * missing row is 0, not NULL.  PostgreSQL's own joins see to this in
 * set_join_references by matching only Vars and PlaceHolderVars of a
 * nullable side; set_customscan_references matches whatever the scan tuple
 * holds, so a nullable side's other expressions (the key, when the key is
 * an expression) stand there as a NULL constant of their type, which
 * nothing above can match.  The node reads its key from the input's own
 * column, and copies the value into the column as it copies every other.
 */
static TargetEntry *
scan_column(TargetEntry *input, AttrNumber resno, bool nullable)
{
	Node	   *expr = (Node *) input->expr;

	if (nullable && !IsA(expr, Var) && !IsA(expr, PlaceHolderVar))
		return makeTargetEntry((Expr *) makeNullConst(exprType(expr), exprTypmod(expr),
													  exprCollation(expr)),
							   resno, NULL, false);
	return makeTargetEntry(copyObject(input->expr), resno, NULL, false);
}

/* Whether two Vars, or two PlaceHolderVars, are the same column. */
static bool
same_column(Node *a, Node *b)
{
	if (IsA(a, Var) && IsA(b, Var))
		return ((Var *) a)->varno == ((Var *) b)->varno &&
			((Var *) a)->varattno == ((Var *) b)->varattno &&
			((Var *) a)->varlevelsup == 0 && ((Var *) b)->varlevelsup == 0;
	if (IsA(a, PlaceHolderVar) && IsA(b, PlaceHolderVar))
		return ((PlaceHolderVar *) a)->phid == ((PlaceHolderVar *) b)->phid;
	return false;
}

static Node *
scan_marks_mutator(Node *node, List *scan_tlist)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var) || IsA(node, PlaceHolderVar))
	{
		foreach(lc, scan_tlist)
		{
			Node	   *col = (Node *) ((TargetEntry *) lfirst(lc))->expr;

			if (same_column(col, node))
			{
				node = copyObject(node);
				mp_set_nullingrels(node, mp_nullingrels(col));
				return node;
			}
		}
		return copyObject(node);
	}
	return expression_tree_mutator(node, scan_marks_mutator, scan_tlist);
}

/*
 * The outer-join marks of the scan tuple's columns (PostgreSQL 16 on; see
 * pg_compat.h).  The node's target list and filters stand above the join,
 * its join clauses at it, and setrefs.c matches each to the scan tuple only
 * where the marks agree.  So a scan tuple column takes the marks it has
 * above the join where the target list or a filter uses it, and the join
 * clauses take the scan tuple's: the marks change no value, and the node
 * evaluates its join clauses on rows that are not NULL-extended.
 */
static List *
match_join_marks(List *scan_tlist, List *above, List *join_exprs)
{
	List	   *vars = pull_var_clause((Node *) above, PVC_RECURSE_AGGREGATES |
									   PVC_RECURSE_WINDOWFUNCS | PVC_INCLUDE_PLACEHOLDERS);
	ListCell   *lc,
			   *lv;

	foreach(lc, scan_tlist)
	{
		Node	   *col = (Node *) ((TargetEntry *) lfirst(lc))->expr;

		foreach(lv, vars)
		{
			if (same_column(col, lfirst(lv)))
			{
				mp_set_nullingrels(col, mp_nullingrels(lfirst(lv)));
				break;
			}
		}
	}
	return (List *) scan_marks_mutator((Node *) join_exprs, scan_tlist);
}

/*
 * The plan: a CustomScan with the two inputs as custom_plans.  Its scan
 * tuple is the outer row's columns followed by the inner row's (the
 * custom_scan_tlist), which its target list, the other join clauses
 * (custom_exprs) and the filters (qual) reference once setrefs.c has made
 * them point there; the key clause leads custom_exprs, for EXPLAIN.
 * custom_private: the join type, the key's kind, its column in each input,
 * and the outer input's number of columns.
 */
static Plan *
join_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
			   List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *restrictlist = linitial(best_path->custom_private);
	RestrictInfo *rinfo = lsecond(best_path->custom_private);
	List	   *flags = lthird(best_path->custom_private);
	JoinType	jointype = linitial_int(flags);
	bool		outer_is_left = lsecond_int(flags);
	OpExpr	   *op = (OpExpr *) rinfo->clause;
	Plan	   *outer = linitial(custom_plans),
			   *inner = lsecond(custom_plans);
	AttrNumber	outer_col,
				inner_col;
	List	   *filters;
	List	   *join_clauses;
	join_key	key = {rinfo};
	ListCell   *lc;
	int			resno = 1;

	outer = with_column(outer, outer_is_left ? linitial(op->args) : lsecond(op->args),
						&outer_col);
	inner = with_column(inner, outer_is_left ? lsecond(op->args) : linitial(op->args),
						&inner_col);
	join_clauses = other_join_clauses(jointype, rel->relids, restrictlist, &key, &filters);

	foreach(lc, outer->targetlist)
		cscan->custom_scan_tlist = lappend(cscan->custom_scan_tlist,
										   scan_column(lfirst(lc), resno++,
													   jointype == JOIN_RIGHT ||
													   jointype == JOIN_FULL));
	foreach(lc, inner->targetlist)
		cscan->custom_scan_tlist = lappend(cscan->custom_scan_tlist,
										   scan_column(lfirst(lc), resno++,
													   jointype != JOIN_INNER &&
													   jointype != JOIN_RIGHT));

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = filters;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = list_make2(outer, inner);
	/* the join's output columns: tlist may be empty when a projection above
	 * will replace it */
	cscan->custom_exprs = match_join_marks(cscan->custom_scan_tlist,
										   list_concat(list_copy(best_path->path.pathtarget->exprs),
													   filters),
										   lcons(rinfo->clause, join_clauses));
	cscan->custom_private = list_make1(list_make5_int(jointype, lthird_int(flags), outer_col,
													  inner_col, list_length(outer->targetlist)));
	cscan->custom_relids = rel->relids;
	cscan->methods = &mp_join_scan_methods;
	return &cscan->scan.plan;
}

/*
 * What an output column of a finished plan is, followed down through the
 * nodes that pass their input's columns on (as EXPLAIN follows them), or
 * NULL when that leads to no expression of the plan's range table.
 */
static Expr *
source_expr(Plan *plan, AttrNumber attno)
{
	List	   *tlist = plan->targetlist;

	for (;;)
	{
		TargetEntry *tle = get_tle_by_resno(tlist, attno);
		Var		   *var;

		if (tle == NULL)
			return NULL;
		if (!IsA(tle->expr, Var) || !IS_SPECIAL_VARNO(((Var *) tle->expr)->varno))
			return tle->expr;
		var = (Var *) tle->expr;
		attno = var->varattno;
		if (var->varno == INDEX_VAR && IsA(plan, CustomScan) &&
			tlist != ((CustomScan *) plan)->custom_scan_tlist)
		{
			tlist = ((CustomScan *) plan)->custom_scan_tlist;
			continue;
		}
		if (var->varno == OUTER_VAR)
			plan = IsA(plan, Append) ? linitial(((Append *) plan)->appendplans) :
				IsA(plan, MergeAppend) ? linitial(((MergeAppend *) plan)->mergeplans) :
				outerPlan(plan);
		else if (var->varno == INNER_VAR)
			plan = innerPlan(plan);
		else
			return NULL;
		if (plan == NULL)
			return NULL;
		tlist = plan->targetlist;
	}
}

static bool
has_special_var(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return IS_SPECIAL_VARNO(((Var *) node)->varno);
	return expression_tree_walker(node, has_special_var, context);
}

/*
 * The row-identity columns of an inherited UPDATE, DELETE or MERGE target
 * (ROWID_VAR Vars: ctid, tableoid, the whole row of whichever partition a
 * row comes from) pass through the node in the scan tuple, where they must
 * stay such Vars while setrefs.c matches the node's target list to it.
 * Nothing evaluates the scan tuple's list afterwards, but EXPLAIN prints
 * from it, and a ROWID_VAR there is no column of any relation.  Once the
 * plan is finished, each takes the expression the input it comes from
 * provides (what EXPLAIN shows for PostgreSQL's own joins), or a NULL of
 * its type where there is none (as setrefs.c does for a Result).
 */
static void
fix_row_identity(CustomScan *cscan)
{
	List	   *info = linitial(cscan->custom_private);
	int			outer_natts = list_nth_int(info, 4);
	ListCell   *lc;

	foreach(lc, cscan->custom_scan_tlist)
	{
		TargetEntry *tle = lfirst(lc);
		Var		   *var = (Var *) tle->expr;
		Expr	   *source;

		if (!IsA(var, Var) || var->varno != ROWID_VAR)
			continue;
		source = tle->resno <= outer_natts ?
			source_expr(linitial(cscan->custom_plans), tle->resno) :
			source_expr(lsecond(cscan->custom_plans), tle->resno - outer_natts);
		if (source && exprType((Node *) source) == var->vartype &&
			!has_special_var((Node *) source, NULL))
			tle->expr = copyObject(source);
		else
			tle->expr = (Expr *) makeNullConst(var->vartype, var->vartypmod, var->varcollid);
	}
}

static void
finish_plans(List *plans)
{
	ListCell   *lc;

	foreach(lc, plans)
		mp_join_finish_plan(lfirst(lc));
}

/* The finished plan's MergepathJoins, from the bottom up. */
void
mp_join_finish_plan(Plan *plan)
{
	if (plan == NULL)
		return;
	mp_join_finish_plan(plan->lefttree);
	mp_join_finish_plan(plan->righttree);
	switch (nodeTag(plan))
	{
		case T_Append:
			finish_plans(((Append *) plan)->appendplans);
			break;
		case T_MergeAppend:
			finish_plans(((MergeAppend *) plan)->mergeplans);
			break;
		case T_BitmapAnd:
			finish_plans(((BitmapAnd *) plan)->bitmapplans);
			break;
		case T_BitmapOr:
			finish_plans(((BitmapOr *) plan)->bitmapplans);
			break;
		case T_SubqueryScan:
			mp_join_finish_plan(((SubqueryScan *) plan)->subplan);
			break;
		case T_CustomScan:
			finish_plans(((CustomScan *) plan)->custom_plans);
			if (((CustomScan *) plan)->methods == &mp_join_scan_methods)
				fix_row_identity((CustomScan *) plan);
			break;
		default:
			break;
	}
}

void
mp_join_node_init(void)
{
	RegisterCustomScanMethods(&mp_join_scan_methods);
	prev_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = join_pathlist;
}
