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
 * Before 18, where two or more of its members are index columns one after
 * another, the paths read the comparison's ranges (a > x, a = x AND b > y)
 * one after another (row_pieces); else their index clause is the
 * comparison loosened to its first column: a >= x (a <= x for < and <=),
 * which bounds the range as btree's would except for the rows whose a is
 * x.  Either way the executor checks the row comparison itself on every
 * row the index returns.  The paths compete on cost with the planner's
 * own.
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

/* >= for > and >=, <= for < and <= */
static int
non_strict(int strategy)
{
	return strategy < BTEqualStrategyNumber ? BTLessEqualStrategyNumber :
		BTGreaterEqualStrategyNumber;
}

/*
 * Is member key op value of a row comparison of the given strategy a
 * comparison of column c of index, by an operator of the column's family?
 * Its operator's types in *lefttype and *righttype.
 */
static bool
member_fits(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index, int c,
			Node *key, Node *value, Oid opno, Oid coll, int strategy,
			Oid *lefttype, Oid *righttype)
{
	int			member_strategy;

	if (c >= index->nkeycolumns ||
		!compares_column(root, rel, index, c, key, value, coll) ||
		!op_in_opfamily(opno, index->opfamily[c]))
		return false;
	get_op_opfamily_properties(opno, index->opfamily[c], false,
							   &member_strategy, lefttype, righttype);
	return member_strategy == strategy;
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
		Oid			lefttype;
		Oid			righttype;

		if (!member_fits(root, rel, index, c, lfirst(ll), lfirst(lr),
						 lfirst_oid(lo), lfirst_oid(lc), strategy,
						 &lefttype, &righttype))
			return;
		cols = lappend_int(cols, c);
	}
	clause->indexquals = list_make1(clause->rinfo);
	clause->lossy = false;
	clause->indexcols = cols;
}
#endif

/*
 * An index clause "key op value" on column col of index, op being the
 * member of the column's family for the types and strategy (NULL if the
 * family has none)
 */
static IndexClause *
column_clause(PlannerInfo *root, IndexOptInfo *index, int col,
			  Oid lefttype, Oid righttype, int strategy,
			  Node *key, Node *value, Oid coll)
{
	Oid			opno = get_opfamily_member(index->opfamily[col], lefttype,
										   righttype, strategy);
	IndexClause *clause;

	if (!OidIsValid(opno))
		return NULL;
	clause = makeNode(IndexClause);
	clause->rinfo =
		make_simple_restrictinfo(root,
								 make_opclause(opno, BOOLOID, false,
											   (Expr *) copyObject(key),
											   (Expr *) copyObject(value),
											   InvalidOid, coll));
	clause->indexquals = list_make1(clause->rinfo);
	clause->lossy = false;
	clause->indexcol = col;
	clause->indexcols = NIL;
	return clause;
}

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
	IndexClause *clause;

	if (!usable_restriction(rinfo, rel) ||
		!compares_column(root, rel, index, col, key, value, coll) ||
		!op_in_opfamily(linitial_oid(rc->opnos), opfamily))
		return NULL;
	get_op_opfamily_properties(linitial_oid(rc->opnos), opfamily, false,
							   &strategy, &lefttype, &righttype);
	if (strategy == BTEqualStrategyNumber)
		return NULL;
	clause = column_clause(root, index, col, lefttype, righttype,
						   non_strict(strategy), key, value, coll);
	if (clause == NULL)
		return NULL;
	clause->rinfo = rinfo;
	clause->lossy = true;
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

#ifndef PBT_HAVE_ROW_SCAN_KEYS
/* > for > and >=, < for < and <= */
static int
strict(int strategy)
{
	return strategy < BTEqualStrategyNumber ? BTLessStrategyNumber :
		BTGreaterStrategyNumber;
}

/*
 * Before 18 the executor gives pagebtree no row comparison (above), and the
 * comparison loosened to its first column, a >= x, reads every row whose a
 * is x: most of the index where a has few values.  A comparison of index
 * columns that follow one another is also a disjunction of exact ranges,
 *
 *	 (a, b, c) > (x, y, z)	=	a > x  OR  a = x AND b > y
 *							   OR  a = x AND b = y AND c > z,
 *
 * which lie one after another in index order, so that an Append of index
 * scans of them returns the rows in that order and a BitmapOr finds them.
 * The comparison stays their filter.  Members past the columns that follow
 * one another loosen the last range (a = x AND b >= y).
 *
 * The ranges' clauses in index order, each the equalities prefix on the
 * columns before col, then equalities on members before some member k, then
 * member k's bound.  NIL where fewer than two members are such columns.
 */
static List *
row_pieces(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
		   List *prefix, int col, RowCompareExpr *rc)
{
	int			strategy = get_op_opfamily_strategy(linitial_oid(rc->opnos),
													index->opfamily[col]);
	int			nmembers = list_length(rc->opnos);
	int			nfit = 0;
	Oid		   *lefttypes = palloc(nmembers * sizeof(Oid));
	Oid		   *righttypes = palloc(nmembers * sizeof(Oid));
	List	  **piece = palloc(nmembers * sizeof(List *));
	List	   *pieces;
	List	   *equal = prefix;
	ListCell   *ll,
			   *lr,
			   *lo,
			   *lc;

	forfour(ll, rc->largs, lr, rc->rargs, lo, rc->opnos, lc, rc->inputcollids)
	{
		if (!member_fits(root, rel, index, col + nfit, lfirst(ll), lfirst(lr),
						 lfirst_oid(lo), lfirst_oid(lc), strategy,
						 &lefttypes[nfit], &righttypes[nfit]))
			break;
		nfit++;
	}
	if (nfit < 2)
		return NIL;
	forthree(ll, rc->largs, lr, rc->rargs, lc, rc->inputcollids)
	{
		int			k = foreach_current_index(ll);
		int			bound_strategy = strategy;
		IndexClause *bound;
		IndexClause *eq;

		if (k < nmembers - 1)
			bound_strategy = k < nfit - 1 ? strict(strategy) :
				non_strict(strategy);
		bound = column_clause(root, index, col + k, lefttypes[k],
							  righttypes[k], bound_strategy, lfirst(ll),
							  lfirst(lr), lfirst_oid(lc));
		if (bound == NULL)
			return NIL;
		piece[k] = lappend(list_copy(equal), bound);
		if (k == nfit - 1)
			break;
		eq = column_clause(root, index, col + k, lefttypes[k], righttypes[k],
						   BTEqualStrategyNumber, lfirst(ll), lfirst(lr),
						   lfirst_oid(lc));
		if (eq == NULL)
			return NIL;
		equal = lappend(list_copy(equal), eq);
	}

	/*
	 * In index order: piece k's range lies after those of the pieces after
	 * it (whose member k equals its bound) where its bound is > in an
	 * ascending column or < in a descending one, else before them
	 */
	pieces = list_make1(piece[nfit - 1]);
	for (int k = nfit - 2; k >= 0; k--)
		pieces = (strategy > BTEqualStrategyNumber) != index->reverse_sort[col + k] ?
			lappend(pieces, piece[k]) : lcons(piece[k], pieces);
	return pieces;
}

/*
 * The pieces' paths, costed as the exact seek over them (costed) is, for
 * row_compare_path's reason: an Append of index scans of them in the
 * direction's order, and a BitmapOr of them
 */
static Path *
pieces_append(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
			  List *pieces, List *pathkeys, ScanDirection dir,
			  bool index_only, IndexPath *costed)
{
	List	   *subpaths = NIL;
	AppendPath *append;
	ListCell   *lc;

	foreach(lc, pieces)
	{
		Path	   *piece = (Path *) create_index_path(root, index, lfirst(lc),
													   NIL, NIL, pathkeys, dir,
													   index_only, NULL, 1.0,
													   false);

		subpaths = ScanDirectionIsForward(dir) ? lappend(subpaths, piece) :
			lcons(piece, subpaths);
	}
	append = create_append_path(root, rel, subpaths, NIL, pathkeys, NULL, 0,
								false, rel->rows);
	append->path.startup_cost = costed->path.startup_cost;
	append->path.total_cost = costed->path.total_cost;
	return (Path *) append;
}

static Path *
pieces_bitmap(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
			  List *pieces, IndexPath *costed)
{
	List	   *bitmaps = NIL;
	BitmapOrPath *or;
	ListCell   *lc;

	foreach(lc, pieces)
		bitmaps = lappend(bitmaps,
						  create_index_path(root, index, lfirst(lc), NIL, NIL,
											NIL, ForwardScanDirection, false,
											NULL, 1.0, false));
	or = create_bitmap_or_path(root, rel, bitmaps);
	or->path.startup_cost = or->path.total_cost = costed->indextotalcost;
	or->bitmapselectivity = costed->indexselectivity;
	return (Path *) or;
}
#endif

/*
 * The paths of btree's for the index clauses (the row comparison's last):
 * in index order either way where that order is of use, and a bitmap scan.
 * Over the pieces of row_pieces where there are any, the clauses' own
 * path only costing them.
 */
static void
add_row_compare_paths(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *index,
					  List *clauses, List *pieces)
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
	if (pieces != NIL)
		clauses = exact;
	for (int dir = 0; dir < 2; dir++)
	{
		ScanDirection scandir = dir == 0 ? ForwardScanDirection :
			BackwardScanDirection;
		List	   *pathkeys =
			truncate_useless_pathkeys(root, rel,
									  build_index_pathkeys(root, index, scandir));
		Path	   *path;

		/* (unordered, forward) */
		if (dir == 1 && pathkeys == NIL)
			continue;
		path = (Path *) row_compare_path(root, rel, index, clauses, exact,
										 pathkeys, scandir, index_only);
#ifndef PBT_HAVE_ROW_SCAN_KEYS
		if (pieces != NIL)
			path = pieces_append(root, rel, index, pieces, pathkeys, scandir,
								 index_only, (IndexPath *) path);
#endif
		add_path(rel, path);
	}
	if (enable_bitmapscan)
	{
		Path	   *path = (Path *) row_compare_path(root, rel, index, clauses,
													 exact, NIL,
													 ForwardScanDirection,
													 false);

#ifndef PBT_HAVE_ROW_SCAN_KEYS
		if (pieces != NIL)
			path = pieces_bitmap(root, rel, index, pieces, (IndexPath *) path);
#endif
		add_path(rel, (Path *) create_bitmap_heap_path(root, rel, path,
													   rel->lateral_relids,
													   1.0, 0));
	}
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
					List	   *pieces = NIL;

#ifndef PBT_HAVE_ROW_SCAN_KEYS
					/*
					 * (not parameterized; nor under a partitioned table's
					 * Append, which takes in the Appends of its children)
					 */
					if (rel->reloptkind == RELOPT_BASEREL &&
						rel->lateral_relids == NULL)
						pieces = row_pieces(root, rel, index, clauses, col,
											(RowCompareExpr *) rinfo->clause);
#endif
					add_row_compare_paths(root, rel, index,
										  lappend(clauses, clause), pieces);
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
