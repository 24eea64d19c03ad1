/*-------------------------------------------------------------------------
 *
 * pbt_rowcompare.c
 *	  Index paths for row comparisons: WHERE (a, b) > (x, y), keyset
 *	  pagination's seek, on a pagebtree index whose column a is.
 *
 * The planner turns a row comparison into an index condition on btree
 * indexes only (indxpath.c, match_rowcompare_to_indexcol), and the executor
 * of PostgreSQL 15 to 17 builds a row comparison's scan keys for btree
 * indexes only (ExecIndexBuildScanKeys), so on a pagebtree index such a
 * query read the whole index, filtering each row.  A set_rel_pathlist hook
 * adds the paths btree would have.  On 18 their index clause is the row
 * comparison itself, which the scan uses as btree's does (pbt_scankey.c).
 * Before 18 it is the comparison loosened to its first column: a >= x
 * (a <= x for < and <=), which bounds the range as btree's would except
 * for the rows whose a is x, and the row comparison itself is checked on
 * every row the index returns (a lossy index clause).  The paths compete
 * on cost with the planner's own.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "access/stratnum.h"
#include "nodes/makefuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/lsyscache.h"

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

/*
 * May the clause be an index condition at all?  As the planner's own
 * matching: not a pseudoconstant, and not a clause that must wait for a
 * security barrier's quals (row-level security).
 */
static bool
usable_restriction(RestrictInfo *rinfo, RelOptInfo *rel)
{
	return !rinfo->pseudoconstant &&
		restriction_is_securely_promotable(rinfo, rel);
}

/*
 * Is "key op value" under collation coll a comparison of column col of
 * index with a value known before the scan starts, as the planner matches
 * index clauses?  (The operator is the caller's to check.)
 */
static bool
compares_column(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
				int col, Node *key, Node *value, Oid coll)
{
	return match_index_to_operand(key, col, index) &&
		!bms_is_member(rel->relid, pull_varnos(root, value)) &&
		!contain_volatile_functions(value) &&
		(index->indexcollations[col] == InvalidOid ||
		 index->indexcollations[col] == coll);
}

#ifdef PBT_HAVE_ROW_SCAN_KEYS
/*
 * Make clause the row comparison itself, an exact index clause, where its
 * members are the index's columns from col on, one after another, each
 * compared with a value known before the scan by an operator of the
 * column's family with the first's strategy: the scan bounds its range by
 * them and checks the comparison on each entry (pbt_scankey.c).
 */
static void
whole_row_clause(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
				 int col, int strategy, IndexClause *clause)
{
	RowCompareExpr *rc = (RowCompareExpr *) clause->rinfo->clause;
	List	   *cols = NIL;
	ListCell   *ll,
			   *lr,
			   *lo,
			   *lc;

	forfour(ll, rc->largs, lr, rc->rargs, lo, rc->opnos, lc, rc->inputcollids)
	{
		int			c = col + list_length(cols);

		if (c >= index->nkeycolumns ||
			!compares_column(root, rel, index, c, lfirst(ll), lfirst(lr),
							 lfirst_oid(lc)) ||
			get_op_opfamily_strategy(lfirst_oid(lo), index->opfamily[c]) != strategy)
			return;
		cols = lappend_int(cols, c);
	}
	clause->indexquals = list_make1(clause->rinfo);
	clause->lossy = false;
	clause->indexcols = cols;
}
#endif

/*
 * The index clause that the row comparison in rinfo makes for column col of
 * index: rows from the first whose column is not below the first member's
 * value (for > and >=) or up to the last not above it (< and <=), or NULL
 * if the comparison does not start with that column compared with a value
 * known before the scan, by an operator of the column's family.
 */
static IndexClause *
row_compare_clause(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
				   int col, RestrictInfo *rinfo)
{
	RowCompareExpr *rc = (RowCompareExpr *) rinfo->clause;
	Node	   *key = linitial(rc->largs);
	Node	   *value = linitial(rc->rargs);
	Oid			opfamily = index->opfamily[col];
	Oid			coll = linitial_oid(rc->inputcollids);
	int			strategy;
	Oid			lefttype;
	Oid			righttype;
	Oid			opno;
	IndexClause *clause;

	if (!usable_restriction(rinfo, rel) ||
		!compares_column(root, rel, index, col, key, value, coll) ||
		!op_in_opfamily(linitial_oid(rc->opnos), opfamily))
		return NULL;
	get_op_opfamily_properties(linitial_oid(rc->opnos), opfamily, false,
							   &strategy, &lefttype, &righttype);
	opno = get_opfamily_member(opfamily, lefttype, righttype,
							   strategy < BTEqualStrategyNumber ?
							   BTLessEqualStrategyNumber :
							   BTGreaterEqualStrategyNumber);
	if (strategy == BTEqualStrategyNumber || !OidIsValid(opno))
		return NULL;

	clause = makeNode(IndexClause);
	clause->rinfo = rinfo;
	clause->indexquals =
		list_make1(make_simple_restrictinfo(root,
											make_opclause(opno, BOOLOID, false,
														  (Expr *) copyObject(key),
														  (Expr *) copyObject(value),
														  InvalidOid, coll)));
	clause->lossy = true;
	clause->indexcol = col;
	clause->indexcols = NIL;
#ifdef PBT_HAVE_ROW_SCAN_KEYS
	whole_row_clause(root, rel, index, col, strategy, clause);
#endif
	return clause;
}

/*
 * Can the index return every column the query needs of rel, the row
 * comparison's included (its recheck reads them from the index tuple)?  As
 * check_index_only in indxpath.c, which is not exported.
 */
static bool
index_covers(RelOptInfo *rel, IndexOptInfo *index)
{
	Bitmapset  *needed = NULL;
	Bitmapset  *returned = NULL;
	ListCell   *lc;

	if (!enable_indexonlyscan)
		return false;
	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &needed);
	foreach(lc, index->indrestrictinfo)
		pull_varattnos((Node *) lfirst_node(RestrictInfo, lc)->clause,
					   rel->relid, &needed);
	for (int i = 0; i < index->ncolumns; i++)
		if (index->indexkeys[i] != 0 && index->canreturn[i])
			returned = bms_add_member(returned, index->indexkeys[i] -
									  FirstLowInvalidHeapAttributeNumber);
	return bms_is_subset(needed, returned);
}

/*
 * The equality clause on column col of index among rel's, as the planner
 * would match it (column = value, the operator of the column's family), or
 * NULL
 */
static IndexClause *
equality_clause(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
				int col)
{
	ListCell   *lc;

	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		OpExpr	   *op = (OpExpr *) rinfo->clause;
		IndexClause *clause;

		if (!usable_restriction(rinfo, rel) ||
			!IsA(op, OpExpr) || list_length(op->args) != 2 ||
			!compares_column(root, rel, index, col, linitial(op->args),
							 lsecond(op->args), op->inputcollid) ||
			get_op_opfamily_strategy(op->opno, index->opfamily[col]) !=
			BTEqualStrategyNumber)
			continue;
		clause = makeNode(IndexClause);
		clause->rinfo = rinfo;
		clause->indexquals = list_make1(rinfo);
		clause->lossy = false;
		clause->indexcol = col;
		clause->indexcols = NIL;
		return clause;
	}
	return NULL;
}

/*
 * An index path for the clauses, costed as btree's exact seek would be
 * (exact: the clauses with the row comparison itself as its index clause;
 * clauses itself where it already is).
 * Charged for the recheck, it would cost more than the whole index read
 * with the comparison as a filter, the planner's own path, since the
 * planner takes the rows that pass a filter to be spread over the index,
 * not to start where the seek starts.  So the planner chooses it where it
 * would choose btree's.
 */
static IndexPath *
row_compare_path(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
				 List *clauses, List *exact, List *pathkeys,
				 ScanDirection dir, bool index_only)
{
	IndexPath  *path = create_index_path(root, index, clauses, NIL, NIL,
										 pathkeys, dir, index_only,
										 rel->lateral_relids, 1.0, false);
	IndexPath  *costed;

	if (exact == clauses)
		return path;			/* (the row comparison is the index clause) */
	costed = create_index_path(root, index, exact, NIL, NIL, pathkeys, dir,
							   index_only, rel->lateral_relids, 1.0, false);
	path->path.startup_cost = costed->path.startup_cost;
	path->path.total_cost = costed->path.total_cost;
	path->indextotalcost = costed->indextotalcost;
	path->indexselectivity = costed->indexselectivity;
	return path;
}

/*
 * The paths of btree's for the index clauses (the row comparison's last):
 * in index order either way where that order is of use, and a bitmap scan
 */
static void
add_row_compare_paths(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
					  List *clauses)
{
	bool		index_only = index_covers(rel, index);
	IndexClause *row = llast(clauses);
	List	   *exact = clauses;

	if (row->lossy)
	{
		IndexClause *exact_row = makeNode(IndexClause);

		*exact_row = *row;
		exact_row->indexquals = list_make1(row->rinfo);
		exact_row->lossy = false;
		exact = list_copy(clauses);
		llast(exact) = exact_row;
	}
	for (int dir = 0; dir < 2; dir++)
	{
		ScanDirection scandir = dir == 0 ? ForwardScanDirection :
			BackwardScanDirection;
		List	   *pathkeys =
			truncate_useless_pathkeys(root, rel,
									  build_index_pathkeys(root, index, scandir));

		/* (unordered, forward) */
		if (dir == 0 || pathkeys != NIL)
			add_path(rel, (Path *) row_compare_path(root, rel, index, clauses,
													exact, pathkeys, scandir,
													index_only));
	}
	if (enable_bitmapscan)
		add_path(rel, (Path *)
				 create_bitmap_heap_path(root, rel, (Path *)
										 row_compare_path(root, rel, index,
														  clauses, exact, NIL,
														  ForwardScanDirection,
														  false),
										 rel->lateral_relids, 1.0, 0));
}

static void
pbt_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					 RangeTblEntry *rte)
{
	ListCell   *li;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);
	/* (a relation proven empty keeps its one dummy path) */
	if (rte->rtekind != RTE_RELATION || !IS_SIMPLE_REL(rel) || IS_DUMMY_REL(rel))
		return;
	foreach(li, rel->indexlist)
	{
		IndexOptInfo *index = lfirst_node(IndexOptInfo, li);
		ListCell   *lr;

		/* (a partial index serves only queries that imply its predicate) */
		if (!pbt_index_is_ours(index) || (index->indpred != NIL && !index->predOK))
			continue;
		foreach(lr, rel->baserestrictinfo)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lr);
			List	   *clauses = NIL;

			if (!IsA(rinfo->clause, RowCompareExpr))
				continue;
			/* after equalities on the columns before it, as btree's bound */
			for (int col = 0; col < index->nkeycolumns; col++)
			{
				IndexClause *clause = row_compare_clause(root, rel, index,
														 col, rinfo);

				if (clause)
				{
					add_row_compare_paths(root, rel, index,
										  lappend(clauses, clause));
					break;
				}
				clause = equality_clause(root, rel, index, col);
				if (clause == NULL)
					break;
				clauses = lappend(clauses, clause);
			}
		}
	}
}

void
pbt_install_planner_hook(void)
{
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = pbt_set_rel_pathlist;
}
