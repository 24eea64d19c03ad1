/*-------------------------------------------------------------------------
 *
 * pbt_scankey.c
 *	  Index scan keys: classifying them, = ANY arrays, the boundary keys a
 *	  scan starts and ends at, and evaluating the keys on a leaf item.
 *
 * Each key is put in index order (a DESC column reverses inequalities) and
 * is required in a direction when every earlier column has an equality
 * key, so that failing it ends the scan that way.  An = ANY(array) key
 * becomes its sorted, distinct elements; the scan runs once per
 * combination of them.  In normalized mode a key's argument is encoded
 * (again for each array element), so that items compare with it as bytes.
 *
 *-------------------------------------------------------------------------
 */
#include "pbt_group.h"
#include "pbt_scan.h"

#include "access/nbtree.h"
#include "executor/instrument.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

static void encode_elements(PbtScanOpaque so, ScanKeyInfo *k,
							ArrayKeyInfo *ak);
static void plan_inline_check(PbtState *st, ScanKeyInfo *k);
static bool filter_has(PbtScanOpaque so, ScanKeyInfo *k, ArrayKeyInfo *ak,
					   const char *item, int start, int span, Datum datum);

/* strategy in index order: a DESC column reverses inequalities */
static StrategyNumber
index_order_strategy(StrategyNumber strategy, bool desc)
{
	if (!desc)
		return strategy;
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return BTGreaterStrategyNumber;
		case BTLessEqualStrategyNumber:
			return BTGreaterEqualStrategyNumber;
		case BTGreaterEqualStrategyNumber:
			return BTLessEqualStrategyNumber;
		case BTGreaterStrategyNumber:
			return BTLessStrategyNumber;
		default:
			return strategy;
	}
}

/* comparator for sorting array elements */
typedef struct ArraySortCxt
{
	FmgrInfo	proc;
	Oid			collation;
} ArraySortCxt;

static int
compare_array_elems(const void *a, const void *b, void *arg)
{
	ArraySortCxt *cxt = (ArraySortCxt *) arg;

	return DatumGetInt32(FunctionCall2Coll(&cxt->proc, cxt->collation,
										   *(const Datum *) a, *(const Datum *) b));
}

/*
 * Expand a = ANY(array) key into its sorted, distinct, non-null elements;
 * an inequality against ANY reduces to its loosest element.  Returns false
 * if no element can match.
 */
static bool
prepare_array(IndexScanDesc scan, ScanKey sk, int keyidx, ArrayKeyInfo *ak)
{
	Relation	index = scan->indexRelation;
	ArrayType  *arr = DatumGetArrayTypeP(sk->sk_argument);
	Oid			elemtype = ARR_ELEMTYPE(arr);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				kept = 0;
	ArraySortCxt cxt;
	Oid			proc_type;
	Oid			proc;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(arr, elemtype, typlen, typbyval, typalign,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			elems[kept++] = elems[i];
	if (kept == 0)
		return false;

	/*
	 * The family's function for the operator's right type, as nbtree looks it
	 * up: a polymorphic class (enums, arrays, ranges) registers it for the
	 * pseudo-type, not for the elements' own type.
	 */
	proc_type = OidIsValid(sk->sk_subtype) ? sk->sk_subtype :
		index->rd_opcintype[sk->sk_attno - 1];
	proc = get_opfamily_proc(index->rd_opfamily[sk->sk_attno - 1],
							 proc_type, proc_type, 1);
	if (!OidIsValid(proc))
		elog(ERROR, "missing support function 1(%u,%u) in opfamily %u",
			 proc_type, proc_type, index->rd_opfamily[sk->sk_attno - 1]);
	fmgr_info(proc, &cxt.proc);
	cxt.collation = sk->sk_collation;
	qsort_arg(elems, kept, sizeof(Datum), compare_array_elems, &cxt);

	switch (sk->sk_strategy)
	{
		case BTLessStrategyNumber:
		case BTLessEqualStrategyNumber:
			elems[0] = elems[kept - 1];
			kept = 1;
			break;
		case BTGreaterStrategyNumber:
		case BTGreaterEqualStrategyNumber:
			kept = 1;
			break;
		default:
			{
				int			uniq = 1;

				for (int i = 1; i < kept; i++)
					if (compare_array_elems(&elems[uniq - 1], &elems[i], &cxt) != 0)
						elems[uniq++] = elems[i];
				kept = uniq;
			}
	}
	ak->keyidx = keyidx;
	ak->array = sk->sk_argument;
	ak->elems = elems;
	ak->nelems = kept;
	ak->cur = 0;
	ak->encoff = NULL;
	ak->enc_tried = false;
	return true;
}

/* (re)encode a key's argument after it changed */
void
pbt_encode_key(PbtScanOpaque so, ScanKeyInfo *k)
{
	resetStringInfo(&k->enc);
	if (k->strategy == 0 || !so->st->normalized)
		return;
	k->encodable = pbt_encode_column(so->st, k->col, k->sk->sk_argument, false,
									 k->sk->sk_subtype, &k->enc);
}

/*
 * Set array keys to their first elements for a scan in direction dir:
 * ascending in index order for forward scans (a skip key's is found).
 */
void
pbt_start_arrays(PbtScanOpaque so, ScanDirection dir)
{
	for (int i = 0; i < so->narrays; i++)
	{
		ArrayKeyInfo *ak = &so->arrays[i];
		ScanKeyInfo *k = &so->keys[ak->keyidx];
		bool		reverse = (so->st->cols[k->col].desc != ScanDirectionIsBackward(dir));

		ak->cur = reverse ? ak->nelems - 1 : 0;
		pbt_set_array_element(so, ak, ak->cur);
	}
	if (so->skip)
		pbt_skip_value_known(so, false);	/* found anew */
	so->pass_key = NULL;
	so->pass_gave_up = NoMovementScanDirection;
	so->pass_trial = PBT_RANGE_TRIAL;
	pbt_range_steps_reset(&so->elem_steps);
	so->pf_array_on = false;
	so->pf_array_reads = pgBufferUsage.shared_blks_read +
		pgBufferUsage.local_blks_read;
}

/*
 * The search key a scan positions at for element elem of its one array,
 * in the source's buffer (normalized keys: bytes only).  The array's
 * current element is left as it was.
 */
static void
array_element_key(PbtScanOpaque so, int elem, PbtSearchKey *key)
{
	ArrayKeyInfo *ak = &so->arrays[0];
	StringInfo	buf = &so->pf_array_source.keybuf;
	bool		strict;
	ScanKeyInfo *bound;

	Assert(so->st->normalized && so->narrays == 1);
	pbt_set_array_element(so, ak, elem);
	(void) pbt_build_boundary(so, true, key, buf, &strict, &bound);
	key->nextkey = strict;
	pbt_set_array_element(so, ak, ak->cur);
}

/*
 * The next leaf a forward scan of one = ANY array will read for its later
 * elements, as far as the level above knows (a PbtNextBlock; arg is the
 * scan).  One descent to level 1 locates the elements that page covers.
 */
BlockNumber
pbt_array_source_next(void *arg)
{
	IndexScanDesc scan = (IndexScanDesc) arg;
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtArraySource *src = &so->pf_array_source;
	ArrayKeyInfo *ak = &so->arrays[0];
	int			step = so->st->cols[so->keys[ak->keyidx].col].desc ? -1 : 1;

	while (src->next == src->nleaves &&
		   src->next_elem >= 0 && src->next_elem < ak->nelems)
	{
		PbtSearchKey key;
		Buffer		buf;
		Page		page;

		src->nleaves = src->next = 0;
		array_element_key(so, src->next_elem, &key);
		pbt_free_stack(pbt_search(scan->indexRelation, so->st, &key, &buf,
								  BUFFER_LOCK_SHARE, 1));
		page = BufferGetPage(buf);
		/* (started only for a tree with more than one level, which stays) */
		Assert(PbtPageGetOpaque(page)->level == 1);
		do
		{
			int			pos = pbt_binsearch(so->st, page, &key);
			BlockNumber child = pbt_page_child(page, pos);

			/* in a leaf group, the subnode the descent will guess */
			if (so->st->group_size > 0)
				child = pbt_group_block(so->st->delta_group, child,
										pbt_group_guess(so->st, page, pos, &key));

			if (child != src->last)
				src->leaves[src->nleaves++] = src->last = child;
			src->next_elem += step;
			if (src->next_elem < 0 || src->next_elem >= ak->nelems)
				break;
			array_element_key(so, src->next_elem, &key);
		} while (src->nleaves < PBT_LEAF_SOURCE_BATCH &&
				 !pbt_beyond_hikey(so->st, page, &key));
		UnlockReleaseBuffer(buf);
	}
	return src->next < src->nleaves ? src->leaves[src->next++] : InvalidBlockNumber;
}

/* Advance to the next combination of array elements; false when done. */
bool
pbt_advance_arrays(PbtScanOpaque so, ScanDirection dir)
{
	for (int i = so->narrays - 1; i >= 0; i--)
	{
		ArrayKeyInfo *ak = &so->arrays[i];
		ScanKeyInfo *k = &so->keys[ak->keyidx];
		bool		reverse = (so->st->cols[k->col].desc != ScanDirectionIsBackward(dir));
		bool		wrapped = false;

		if (reverse)
		{
			if (--ak->cur < 0)
			{
				ak->cur = ak->nelems - 1;
				wrapped = true;
			}
		}
		else if (++ak->cur >= ak->nelems)
		{
			ak->cur = 0;
			wrapped = true;
		}
		pbt_set_array_element(so, ak, ak->cur);
		if (!wrapped)
			return true;
	}
	return false;
}

/* The key of array ak to its element elem (ak->cur is left as it was) */
void
pbt_set_array_element(PbtScanOpaque so, ArrayKeyInfo *ak, int elem)
{
	ScanKeyInfo *k = &so->keys[ak->keyidx];

	Assert(elem >= 0 && elem < ak->nelems);
	k->sk->sk_argument = ak->elems[elem];
	pbt_encode_key(so, k);
}

/*
 * Can the scan's = ANY array be read in one pass (pbt_scan.c,
 * start_array_pass)?  One array, an equality required both ways, on
 * normalized keys whose elements all have exact encodings (encoded here,
 * once), and no key on a later column: the pass's range holds every value
 * of those columns, which per element were bounds.  Not in a skip scan.
 */
bool
pbt_array_pass_ok(PbtScanOpaque so)
{
	ArrayKeyInfo *ak = &so->arrays[0];
	ScanKeyInfo *k;

	if (so->narrays != 1 || so->skip || !so->st->normalized)
		return false;
	k = &so->keys[ak->keyidx];
	if (!k->required_fwd || !k->required_bwd ||
		k->strategy != BTEqualStrategyNumber)
		return false;
	for (int i = 0; i < so->nkeys; i++)
		if (so->keys[i].col > k->col)
			return false;
	if (!ak->enc_tried)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(so->keycxt);

		encode_elements(so, k, ak);
		ak->enc_tried = true;
		MemoryContextSwitchTo(oldcxt);
	}
	return ak->encoff != NULL;
}

/* element elem of array ak against column bytes of an item, in value order */
static inline int
element_cmp(PbtScanOpaque so, ScanKeyInfo *k, ArrayKeyInfo *ak, int elem,
			const char *col, int span)
{
	return pbt_cmp_encoded(so->st, k->col, col, span,
						   ak->enc.data + ak->encoff[elem],
						   ak->encoff[elem + 1] - ak->encoff[elem]);
}

/*
 * An array's pass reads every item between its elements, which pays while
 * they lie close together: up to about PASS_MATCH_CREDIT items per element
 * (an item checked costs a fifteenth to a twentieth of what a descent and
 * a range per element cost: docs/decisions.md, session 97).  Each element
 * found earns that many items, up to PASS_MAX_CREDIT ahead (what a pass
 * reading into a sparse stretch wastes before it gives up); a pass starts
 * with PASS_START_CREDIT.
 */
#define PASS_START_CREDIT 16
#define PASS_MATCH_CREDIT 16
#define PASS_MAX_CREDIT 64

/*
 * Is the column of an item (col, span bytes) an element of the array read
 * in one pass, the items coming in direction forward?  Items read in order
 * move the array's cur on to the first element not behind them, so that
 * each costs a comparison or two, and an item behind cur matches none.
 * Past the last element nothing can, and a pass whose credit runs out
 * gives up (pass_gave_up).  Run entries merged into a batch, and the items
 * of a leaf a bitmap scan reads as stored, come out of order
 * (pass_unordered): they are looked up among all the elements, and move
 * nothing.
 */
static bool
array_pass_has(PbtScanOpaque so, ScanKeyInfo *k, const char *col, int span,
			   bool forward, bool *continuescan)
{
	ArrayKeyInfo *ak = &so->arrays[0];
	int			step = so->st->cols[k->col].desc == forward ? -1 : 1;
	int			c;

	if (so->pass_unordered)
		return filter_has(so, k, ak, col, 0, span, (Datum) 0);
	/* (a scrollable cursor that turned after the pass gave up reads on) */
	if (so->pass_gave_up != NoMovementScanDirection &&
		ScanDirectionIsForward(so->pass_gave_up) != forward)
		so->pass_gave_up = NoMovementScanDirection;
	/* c: the item against cur's element in the scan's order */
	while ((c = step * element_cmp(so, k, ak, ak->cur, col, span)) > 0)
	{
		if (ak->cur + step < 0 || ak->cur + step >= ak->nelems)
		{
			*continuescan = false;
			return false;
		}
		ak->cur += step;
	}
	if (c == 0)
	{
		so->pass_credit = Min(so->pass_credit + PASS_MATCH_CREDIT,
							  PASS_MAX_CREDIT);
		return true;
	}
	if (--so->pass_credit < 0)
	{
		so->pass_gave_up = forward ? ForwardScanDirection :
			BackwardScanDirection;
		*continuescan = false;
	}
	return false;
}

/* An array's pass starts (pbt_scan.c, start_array_pass) */
void
pbt_start_array_pass(PbtScanOpaque so, ScanDirection dir)
{
	so->pass_key = &so->keys[so->arrays[0].keyidx];
	so->pass_dir = dir;
	so->pass_from = so->arrays[0].cur;
	so->pass_credit = PASS_START_CREDIT;
	Assert(so->pass_gave_up == NoMovementScanDirection);
}

/*
 * Can the key delimit the scan's range?  A value with no exact encoding in
 * the column's domain (say, a timestamp against a date column) is only
 * evaluated per item, so it must not end the scan either.  IS NOT NULL
 * only ever fails at the NULLs, which sort at one end.
 */
static inline bool
key_positions(PbtScanOpaque so, ScanKeyInfo *k)
{
	if (k->strategy == 0)
		return true;
	return so->st->normalized ? k->encodable : k->has_cmpproc;
}

/*
 * Is the scan a point lookup: equality (or IS NULL) on every key column, so
 * that its start key is a whole key?  Then a layout's equality probe can
 * find its entries (normalized keys without INCLUDE columns: the key is the
 * item without its heap TID).
 */
bool
pbt_point_lookup(PbtScanOpaque so)
{
	if (!so->st->normalized || so->st->has_include)
		return false;
	for (int col = 0; col < so->st->nkeyatts; col++)
	{
		bool		eq = false;

		for (int i = 0; i < so->nkeys && !eq; i++)
		{
			ScanKeyInfo *k = &so->keys[i];

			eq = k->col == col && key_positions(so, k) &&
				(k->strategy == BTEqualStrategyNumber ||
				 (k->strategy == 0 && (k->sk->sk_flags & SK_SEARCHNULL)));
		}
		if (!eq)
			return false;
	}
	return true;
}

/*
 * A skip scan, as btree's since PostgreSQL 18 (whose cost estimate, which
 * pagebtree uses, counts on it): keys on a later column, none of them "="
 * on the first.  Such a scan reads, for each value v of the columns before
 * the first later one with keys (skip_cols of them) in turn, the range its
 * keys give with "= v" added, and finds the next value in the index
 * (pbt_scan.c, skip_to_next_value) instead of reading every entry of v
 * outside the range.  The "= v" is a key of its own at the end of the keys,
 * on the first column but spanning skip_cols, which makes the next column's
 * keys required; = ANY arrays among them go through their elements within
 * each value (pbt_scan.c, next_range).  In a parallel scan one participant
 * does the whole skip scan where skipping pays (pbt_scan.c,
 * start_parallel_skip).
 */
static void
plan_skip(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	int			skip_cols = 0;
	ScanKeyInfo *k;

	so->skip = false;
	if (so->st->nkeyatts < 2 || !so->qual_ok || so->skip_off)
		return;
	for (int i = 0; i < so->nkeys; i++)
	{
		k = &so->keys[i];
		if (k->col == 0 && (k->strategy == BTEqualStrategyNumber ||
							(k->strategy == 0 &&
							 (k->sk->sk_flags & SK_SEARCHNULL))))
			return;
		if (k->col > 0 && key_positions(so, k) &&
			(k->strategy != 0 || (k->sk->sk_flags & SK_SEARCHNULL)) &&
			(skip_cols == 0 || k->col < skip_cols))
			skip_cols = k->col;
	}
	if (skip_cols == 0)
		return;
	so->skip_cols = skip_cols;

	k = &so->keys[so->nkeys++];
	memset(&so->skip_sk, 0, sizeof(ScanKeyData));
	so->skip_sk.sk_attno = 1;
	so->skip_sk.sk_strategy = BTEqualStrategyNumber;
	k->sk = &so->skip_sk;
	k->col = 0;
	k->strategy = BTEqualStrategyNumber;
	k->covered = false;
	k->filter = NULL;
	resetStringInfo(&k->enc);
	so->skip = true;
	pbt_skip_value_known(so, false);
	pbt_range_steps_reset(&so->skip_steps);
}

static void
pad_to_maxalign(StringInfo buf)
{
	while (buf->len % MAXIMUM_ALIGNOF != 0)
		appendStringInfoCharMacro(buf, '\0');
}

/*
 * The skip key's value is known, in the key's enc, or is being looked for
 * past the one enc holds.  Normalized keys: enc holds the skipped columns'
 * bytes as the items have them.  Comparator mode: for each skipped column,
 * a size (-1 for NULL) and its Datum's bytes, each MAXALIGNed, decoded into
 * skip_datums and skip_nulls, which point into enc: called after every
 * change of enc.  The key positions the scan while its value is known
 * (key_positions).
 */
void
pbt_skip_value_known(PbtScanOpaque so, bool known)
{
	ScanKeyInfo *k = &so->keys[so->nkeys - 1];
	int			off = 0;

	Assert(so->skip && k->sk == &so->skip_sk);
	so->skip_known = known;
	if (so->st->normalized)
	{
		k->encodable = known;
		return;
	}
	k->has_cmpproc = known;
	for (int col = 0; col < so->skip_cols && off < k->enc.len; col++)
	{
		int32		size;

		memcpy(&size, k->enc.data + off, sizeof(size));
		off = MAXALIGN(off + sizeof(size));
		so->skip_nulls[col] = size < 0;
		so->skip_datums[col] = (Datum) 0;
		if (size < 0)
			continue;
		if (TupleDescAttr(so->st->tupdesc, col)->attbyval)
			memcpy(&so->skip_datums[col], k->enc.data + off, sizeof(Datum));
		else
			so->skip_datums[col] = PointerGetDatum(k->enc.data + off);
		off = MAXALIGN(off + size);
	}
}

/* Comparator mode: a search key's first columns, the skip key's value */
void
pbt_skip_value_columns(PbtScanOpaque so, PbtSearchKey *key)
{
	for (int col = 0; col < so->skip_cols; col++)
	{
		key->values[col] = so->skip_datums[col];
		key->isnull[col] = so->skip_nulls[col];
		key->procs[col] = &so->st->cols[col].cmp;
	}
	key->nattrs = so->skip_cols;
}

/* The skip key's value: the skipped columns of a leaf item of len bytes */
void
pbt_set_skip_value(PbtScanOpaque so, const char *item, int len)
{
	StringInfo	value = &so->keys[so->nkeys - 1].enc;

	resetStringInfo(value);
	if (so->st->normalized)
	{
		int			start;
		int			last;
		int			span = pbt_column_span(so->st, item, len,
										   so->skip_cols - 1, &last);

		(void) pbt_column_span(so->st, item, len, 0, &start);
		appendBinaryStringInfo(value, item + start, last + span - start);
	}
	else
	{
		for (int col = 0; col < so->skip_cols; col++)
		{
			Form_pg_attribute att = TupleDescAttr(so->st->tupdesc, col);
			bool		isnull;
			Datum		d = pbt_tuple_attr(so->st, item, len, col, &isnull);
			int32		size = isnull ? -1 : att->attbyval ? sizeof(Datum) :
				datumGetSize(d, false, att->attlen);

			appendBinaryStringInfo(value, (char *) &size, sizeof(size));
			pad_to_maxalign(value);
			if (size < 0)
				continue;
			appendBinaryStringInfo(value, att->attbyval ? (char *) &d :
								   DatumGetPointer(d), size);
			pad_to_maxalign(value);
		}
	}
	pbt_skip_value_known(so, true);
}

/*
 * A row comparison (a, b) > (x, y), an index clause only in the paths that
 * pbt_rowcompare.c adds on 18, where it is exact: checked whole on every
 * item (row_holds).  Its bound on the range: the members from its first
 * on that follow one another in the index, in one direction, with exact
 * encodings (normalized keys).  A member after them, which the bound
 * leaves out, makes a strict comparison non-strict (a row equal to the
 * bound's members may pass); a NULL member makes it strict (such a row
 * fails); a NULL first member matches no row.
 */
static void
prepare_row(PbtScanOpaque so, ScanKey header)
{
	PbtState   *st = so->st;
	ScanKey		members = (ScanKey) DatumGetPointer(header->sk_argument);
	int			first = header->sk_attno - 1;
	bool		less = header->sk_strategy <= BTLessEqualStrategyNumber;
	StrategyNumber strategy = header->sk_strategy;
	int			n = 0;

	Assert(members[0].sk_flags & SK_ROW_MEMBER);
	Assert(header->sk_strategy != BTEqualStrategyNumber);
	if (so->row_nmembers > 0)
		elog(ERROR, "pagebtree: a scan has more than one row comparison");
	so->row_members = members;
	resetStringInfo(&so->row_enc);
	for (ScanKey m = members;; m++)
	{
		int			j = so->row_nmembers++;

		if (j >= INDEX_MAX_KEYS)
			elog(ERROR, "pagebtree: a row comparison has more members than an index has columns");
		so->row_encoff[j] = so->row_enc.len;
		so->row_enclen[j] = -1;
		if (!(m->sk_flags & SK_ISNULL) && st->normalized &&
			pbt_encode_column(st, m->sk_attno - 1, m->sk_argument, false,
							  m->sk_subtype, &so->row_enc))
			so->row_enclen[j] = so->row_enc.len - so->row_encoff[j];
		if (m->sk_flags & SK_ROW_END)
			break;
	}
	if (members[0].sk_flags & SK_ISNULL)
		so->qual_ok = false;
	for (ScanKey m = members; n < so->row_nmembers; m++)
	{
		int			col = m->sk_attno - 1;

		if (m->sk_flags & SK_ISNULL)
		{
			strategy = less ? BTLessStrategyNumber : BTGreaterStrategyNumber;
			break;
		}
		if (col != first + n || st->cols[col].desc != st->cols[first].desc ||
			(st->normalized && so->row_enclen[n] < 0))
		{
			strategy = less ? BTLessEqualStrategyNumber :
				BTGreaterEqualStrategyNumber;
			break;
		}
		n++;
	}
	so->row_col = first;
	so->row_ncols = n;
	so->row_strategy = index_order_strategy(strategy, st->cols[first].desc);
}

/*
 * Does the item satisfy the scan's row comparison?  As the executor
 * evaluates one: member by member until a column differs (the comparison's
 * answer) or either side is NULL (no).
 */
static bool
row_holds(PbtScanOpaque so, const char *item, int len)
{
	PbtState   *st = so->st;
	StrategyNumber strategy = so->row_members[0].sk_strategy;

	for (int j = 0; j < so->row_nmembers; j++)
	{
		ScanKey		m = &so->row_members[j];
		int			col = m->sk_attno - 1;
		bool		isnull;
		int			c;

		if (m->sk_flags & SK_ISNULL)
			return false;
		if (so->row_enclen[j] >= 0)
		{
			int			start = 0;
			int			span = pbt_column_span(st, item, len, col, &start);

			if (col == 0 ? (unsigned char) item[0] != PBT_MARK_VALUE : span == 1)
				return false;
			c = pbt_cmp_encoded(st, col, item + start, span,
								so->row_enc.data + so->row_encoff[j],
								so->row_enclen[j]);
		}
		else
		{
			Datum		datum = st->normalized ?
				pbt_item_column(st, item, len, col, &isnull) :
				pbt_tuple_attr(st, item, len, col, &isnull);

			if (isnull)
				return false;
			c = DatumGetInt32(FunctionCall2Coll(&m->sk_func, m->sk_collation,
												datum, m->sk_argument));
			if (st->normalized)
				pbt_free_column(st, col, datum);
		}
		if (c != 0)
			return strategy <= BTLessEqualStrategyNumber ? c < 0 : c > 0;
	}
	return strategy == BTLessEqualStrategyNumber ||
		strategy == BTGreaterEqualStrategyNumber;
}

/*
 * Classify the scan keys: which column, which strategy in index order, and
 * which keys are required (all earlier columns have equality keys), so that
 * failing them ends the scan in one direction.
 */
void
pbt_preprocess_keys(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtState   *st = so->st;
	Relation	index = scan->indexRelation;
	int			eqcols = 0;		/* leading columns with an equality key */
	MemoryContext oldcxt;

	/* nested-loop rescans must not accumulate array keys */
	MemoryContextReset(so->keycxt);
	oldcxt = MemoryContextSwitchTo(so->keycxt);
	so->qual_ok = true;
	so->empty_array = false;
	so->nkeys = 0;
	so->row_nmembers = so->row_ncols = 0;
	so->narrays = 0;
	for (int i = 0; i < scan->numberOfKeys; i++)
		if (scan->keyData[i].sk_flags & SK_SEARCHARRAY)
			so->narrays++;
	so->arrays = so->narrays > 0 ? palloc(sizeof(ArrayKeyInfo) * so->narrays) : NULL;
	so->narrays = 0;

	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];
		ScanKeyInfo *k;
		PbtColumn  *col = &st->cols[sk->sk_attno - 1];

		if (sk->sk_flags & SK_ROW_HEADER)
		{
			prepare_row(so, sk);
			continue;
		}
		k = &so->keys[so->nkeys++];
		k->sk = sk;
		k->col = sk->sk_attno - 1;
		k->covered = false;
		k->encodable = false;
		k->has_cmpproc = false;
		k->filter = NULL;
		if (sk->sk_flags & SK_ISNULL)
		{
			if (!(sk->sk_flags & (SK_SEARCHNULL | SK_SEARCHNOTNULL)))
				so->qual_ok = false;	/* "x op NULL" never matches */
			k->strategy = 0;
		}
		else
		{
			k->strategy = index_order_strategy(sk->sk_strategy, col->desc);
			if (sk->sk_flags & SK_SEARCHARRAY)
			{
				if (!prepare_array(scan, sk, so->nkeys - 1,
								   &so->arrays[so->narrays]))
				{
					so->qual_ok = false;
					so->empty_array = true;
				}
				else
				{
					sk->sk_argument = so->arrays[so->narrays].elems[0];
					so->narrays++;
				}
			}
			if (!st->normalized)
			{
				Oid			subtype = OidIsValid(sk->sk_subtype) ? sk->sk_subtype : col->typid;
				Oid			proc = get_opfamily_proc(index->rd_opfamily[k->col],
													 col->typid, subtype, 1);

				if (OidIsValid(proc))
				{
					fmgr_info(proc, &k->cmpproc);
					k->has_cmpproc = true;
				}
			}
			pbt_encode_key(so, k);
		}
	}
	MemoryContextSwitchTo(oldcxt);
	plan_skip(scan);

	/* required keys: those on columns whose predecessors all have "=" */
	for (int col = 0; col < st->nkeyatts; col++)
	{
		bool		has_eq = false;

		if (col > eqcols)
			break;
		for (int i = 0; i < so->nkeys; i++)
		{
			ScanKeyInfo *k = &so->keys[i];
			PbtColumn  *c = &st->cols[col];

			/* a skip key positions each value's range once it is known */
			if (k->col != col ||
				!(key_positions(so, k) || (so->skip && i == so->nkeys - 1)))
				continue;
			if (k->strategy == 0)
			{
				bool		isnull_test = (k->sk->sk_flags & SK_SEARCHNULL) != 0;

				if (isnull_test)
				{
					k->required_fwd = k->required_bwd = true;
					has_eq = true;
				}
				else
				{
					/* nulls are grouped at one end of each equal prefix */
					k->required_fwd = !c->nulls_first;
					k->required_bwd = c->nulls_first;
				}
				continue;
			}
			switch (k->strategy)
			{
				case BTEqualStrategyNumber:
					k->required_fwd = k->required_bwd = true;
					has_eq = true;
					break;
				case BTLessStrategyNumber:
				case BTLessEqualStrategyNumber:
					k->required_fwd = true;
					break;
				default:
					k->required_bwd = true;
					break;
			}
		}
		if (has_eq)
			eqcols = col == 0 && so->skip ? so->skip_cols : col + 1;
	}

	/*
	 * An = ANY key that does not position the scan (a column before its own
	 * has no equality) is checked on each item against all its elements, in
	 * one pass over the range: a pass per element would return the rows
	 * grouped by element, not in index order, which the planner counts on
	 * since PostgreSQL 17 (btree advances such arrays within one pass).
	 */
	for (int a = 0; a < so->narrays;)
	{
		ArrayKeyInfo *ak = &so->arrays[a];
		ScanKeyInfo *k = &so->keys[ak->keyidx];

		if (k->required_fwd || k->required_bwd ||
			k->strategy != BTEqualStrategyNumber)
		{
			a++;
			continue;
		}
		oldcxt = MemoryContextSwitchTo(so->keycxt);
		k->filter = palloc(sizeof(ArrayKeyInfo));
		*k->filter = *ak;
		encode_elements(so, k, k->filter);
		MemoryContextSwitchTo(oldcxt);
		memmove(ak, ak + 1, sizeof(ArrayKeyInfo) * (so->narrays - a - 1));
		so->narrays--;
	}

	for (int i = 0; i < so->nkeys; i++)
		plan_inline_check(st, &so->keys[i]);
}

/*
 * Can check_item compare key k's bytes at an offset that the fixed widths of
 * the columns before it give (check_keys_inline)?  Per-entry checks on a
 * later column (a skip scan that reads on, a range on the first column with
 * a filter on the second) are most of such a scan's time otherwise.
 */
static void
plan_inline_check(PbtState *st, ScanKeyInfo *k)
{
	static const uint8 masks[] = {
		[BTLessStrategyNumber] = 0x1,
		[BTLessEqualStrategyNumber] = 0x3,
		[BTEqualStrategyNumber] = 0x2,
		[BTGreaterEqualStrategyNumber] = 0x6,
		[BTGreaterStrategyNumber] = 0x4,
	};

	k->inline_check = false;
	if (!st->normalized || k->strategy == 0 || k->filter != NULL)
		return;
	for (int col = 0; col < k->col; col++)
		if (st->cols[col].width <= 0)
			return;
	k->inline_check = true;
	/* k->strategy is in index order, as the bytes are */
	k->pass_mask = masks[k->strategy];
}

/*
 * so->entry_filter, for layouts that pass over failing entries without
 * building their items (PbtLayout.iter_filter): the first key that
 * check_keys_inline compares at fixed offsets, if its argument has at most
 * eight bytes after its marker.  A string column's bytes are compared over
 * the argument's length, as check_keys_inline compares them: the encodings
 * are prefix-free, so that decides, and an entry too short for it stops
 * the filter.  Only where every key is covered or inline and
 * none that is not covered is required (its failing would end the scan,
 * which passing over an entry would not notice), but for bounds that fail
 * on NULLs only.
 */
void
pbt_plan_entry_filter(PbtScanOpaque so)
{
	PbtState   *st = so->st;
	PbtEntryFilter *f = &so->entry_filter;
	ScanKeyInfo *filter_key = NULL;

	so->has_entry_filter = false;
	if (!so->inline_keys || so->keys_hold)
		return;
	for (int i = 0; i < so->nkeys; i++)
	{
		ScanKeyInfo *k = &so->keys[i];
		int			width = st->cols[k->col].width;

		if (k->covered || k->nonnull_only)
			continue;
		if (k->required_fwd || k->required_bwd)
			return;
		if (filter_key == NULL && k->encodable && k->enc.len > 1 &&
			k->enc.len <= 1 + (int) sizeof(uint64) &&
			(width <= 0 || k->enc.len == width))
			filter_key = k;
	}
	if (filter_key == NULL)
		return;
	/* a bound's key fails on NULLs only, whose markers stop the filter */
	for (int i = 0; i < so->nkeys; i++)
		if (!so->keys[i].covered && so->keys[i].nonnull_only &&
			so->keys[i].col > filter_key->col)
			return;
	/* the markers up to the key's own, where every column before has a value */
	f->nmarkers = 0;
	f->off = 0;
	for (int col = 0; col <= filter_key->col; col++)
	{
		f->markers[f->nmarkers++] = f->off;
		f->off += st->cols[col].width;
	}
	f->off -= st->cols[filter_key->col].width - 1;
	f->len = filter_key->enc.len - 1;
	f->pass_mask = filter_key->pass_mask;
	f->value = 0;
	for (int i = 0; i < f->len; i++)
		f->value |= (uint64) (unsigned char) filter_key->enc.data[1 + i] <<
			(8 * (sizeof(uint64) - 1 - i));
	so->has_entry_filter = true;
}

/*
 * Does the column at item[start .. start + span) (normalized) or datum
 * (comparator mode; normalized keys whose elements have no exact encoding)
 * equal an element of array ak of key k?  Its elements are sorted.
 */
static bool
filter_has(PbtScanOpaque so, ScanKeyInfo *k, ArrayKeyInfo *ak,
		   const char *item, int start, int span, Datum datum)
{
	if (ak->encoff)
	{
		int			lo = 0;
		int			hi = ak->nelems - 1;

		while (lo <= hi)
		{
			int			mid = (lo + hi) / 2;
			int			c = pbt_cmp_encoded(so->st, k->col, item + start, span,
											ak->enc.data + ak->encoff[mid],
											ak->encoff[mid + 1] - ak->encoff[mid]);

			if (c == 0)
				return true;
			if (c < 0)
				hi = mid - 1;
			else
				lo = mid + 1;
		}
		return false;
	}
	for (int i = 0; i < ak->nelems; i++)
		if (DatumGetBool(FunctionCall2Coll(&k->sk->sk_func, k->sk->sk_collation,
										   datum, ak->elems[i])))
			return true;
	return false;
}

/*
 * Encode the elements of array ak of key k (normalized keys), if every one
 * has an exact encoding; else filter_has calls the operator per element.
 */
static void
encode_elements(PbtScanOpaque so, ScanKeyInfo *k, ArrayKeyInfo *ak)
{
	ak->encoff = NULL;
	if (!so->st->normalized)
		return;
	initStringInfo(&ak->enc);
	ak->encoff = palloc(sizeof(int) * (ak->nelems + 1));
	for (int i = 0; i < ak->nelems; i++)
	{
		ak->encoff[i] = ak->enc.len;
		if (!pbt_encode_column(so->st, k->col, ak->elems[i], false,
							   k->sk->sk_subtype, &ak->enc))
		{
			ak->encoff = NULL;
			return;
		}
	}
	ak->encoff[ak->nelems] = ak->enc.len;
}

/* the columns of the scan's row comparison, from row_col on, in key */
static void
row_boundary(PbtScanOpaque so, PbtSearchKey *key, StringInfo buf)
{
	if (so->st->normalized)
	{
		/* (the bound's members are encoded one after another from 0) */
		int			len = so->row_encoff[so->row_ncols - 1] +
			so->row_enclen[so->row_ncols - 1];

		memcpy(pbt_reserve_bytes(buf, len), so->row_enc.data, len);
		return;
	}
	for (int j = 0; j < so->row_ncols; j++)
	{
		int			col = so->row_col + j;

		key->values[col] = so->row_members[j].sk_argument;
		key->isnull[col] = false;
		key->procs[col] = &so->row_members[j].sk_func;
	}
	key->nattrs = so->row_col + so->row_ncols;
}

/*
 * Build a boundary search key for the scan keys: equalities on leading
 * columns, then one bound on the next column.  lower: a bound below the
 * range in index order (forward start, backward end), else above it.
 * Returns false if there is none.  *strict tells whether the last column's
 * bound excludes equal values; *bound returns that inequality key, if any.
 * Equality keys used are marked covered: every item between the start and
 * the end key satisfies them.
 */
bool
pbt_build_boundary(PbtScanOpaque so, bool lower, PbtSearchKey *key,
				   StringInfo buf, bool *strict, ScanKeyInfo **bound)
{
	PbtState   *st = so->st;
	int			ncols = 0;

	buf->len = 0;
	buf->data[0] = '\0';
	key->nattrs = 0;
	key->has_tid = false;
	*strict = false;
	*bound = NULL;

	for (int col = 0; col < st->nkeyatts; col++)
	{
		ScanKeyInfo *eq = NULL;
		ScanKeyInfo *ineq = NULL;

		for (int i = 0; i < so->nkeys; i++)
		{
			ScanKeyInfo *k = &so->keys[i];

			if (k->col != col)
				continue;
			if (!key_positions(so, k) ||
				(k->strategy == 0 && !(k->sk->sk_flags & SK_SEARCHNULL)))
				continue;
			if (k->strategy == 0 || k->strategy == BTEqualStrategyNumber)
			{
				eq = k;
				break;
			}
			if (lower ? (k->strategy == BTGreaterStrategyNumber ||
						 k->strategy == BTGreaterEqualStrategyNumber)
				: (k->strategy == BTLessStrategyNumber ||
				   k->strategy == BTLessEqualStrategyNumber))
				ineq = k;
		}
		if (eq == NULL)
			eq = ineq;
		if (eq == NULL)
		{
			if (so->row_ncols > 0 && so->row_col == col &&
				(lower ? so->row_strategy >= BTGreaterEqualStrategyNumber :
				 so->row_strategy <= BTLessEqualStrategyNumber))
			{
				row_boundary(so, key, buf);
				*strict = (so->row_strategy == BTLessStrategyNumber ||
						   so->row_strategy == BTGreaterStrategyNumber);
				ncols++;
			}
			break;
		}

		if (st->normalized)
		{
			if (eq->strategy == 0)
				(void) pbt_encode_column(st, col, (Datum) 0, true, InvalidOid, buf);
			else
				memcpy(pbt_reserve_bytes(buf, eq->enc.len), eq->enc.data,
					   eq->enc.len);
		}
		else if (eq->sk == &so->skip_sk)
			pbt_skip_value_columns(so, key);
		else
		{
			key->values[col] = eq->sk->sk_argument;
			key->isnull[col] = (eq->strategy == 0);
			key->procs[col] = &eq->cmpproc;
			key->nattrs = col + 1;
		}
		/* a skip key's value spans the columns it skips */
		if (eq->sk == &so->skip_sk)
			col += so->skip_cols - 1;
		ncols++;
		if (eq == ineq)
		{
			*strict = (eq->strategy == BTLessStrategyNumber ||
					   eq->strategy == BTGreaterStrategyNumber);
			*bound = eq;
			break;
		}
		eq->covered = true;
	}
	key->bytes = buf->data;
	key->len = buf->len;
	return ncols > 0;
}

/*
 * Evaluate the scan keys on a leaf item.  Sets *continuescan to false when
 * a required key fails, so that no later item in this direction can match.
 */
bool
pbt_check_item_keys(PbtScanOpaque so, const char *item, int len,
					ScanDirection dir, bool *continuescan)
{
	PbtState   *st = so->st;
	bool		forward = ScanDirectionIsForward(dir);

	*continuescan = true;
	if (!so->batch_within_end && (forward ? so->has_upper : so->has_lower))
	{
		int			c = pbt_compare(st, forward ? &so->upperkey : &so->lowerkey,
									item, len);

		if (forward ? c <= 0 : c > 0)
		{
			*continuescan = false;
			return false;
		}
	}

	for (int i = 0; i < so->nkeys; i++)
	{
		ScanKeyInfo *k = &so->keys[i];
		PbtColumn  *col = &st->cols[k->col];
		bool		required = forward ? k->required_fwd : k->required_bwd;
		bool		isnull;
		bool		pass;
		int			start = 0;
		int			span = 0;
		Datum		datum = (Datum) 0;

		if (k->covered)
			continue;

		if (st->normalized)
		{
			if (k->col == 0)
				isnull = (unsigned char) item[0] != PBT_MARK_VALUE;
			else
			{
				span = pbt_column_span(st, item, len, k->col, &start);
				isnull = (span == 1);
			}
		}
		else
			datum = pbt_tuple_attr(st, item, len, k->col, &isnull);

		if (k->nonnull_only && !isnull)
			continue;
		if (k->strategy == 0)
		{
			pass = (k->sk->sk_flags & SK_SEARCHNULL) ? isnull : !isnull;
		}
		else if (k->filter)
		{
			if (st->normalized && k->filter->encoff && k->col == 0)
				span = pbt_column_span(st, item, len, 0, &start);
			else if (st->normalized && !k->filter->encoff)
				datum = pbt_item_column(st, item, len, k->col, &isnull);
			pass = !isnull && filter_has(so, k, k->filter, item, start, span,
										 datum);
			/* (per entry: a scan may check millions) */
			if (st->normalized && !k->filter->encoff && !isnull)
				pbt_free_column(st, k->col, datum);
		}
		else if (isnull)
		{
			pass = false;
			/* nulls sort at one end: past them, only nulls remain */
			if ((k->required_fwd || k->required_bwd) &&
				(col->nulls_first ? !forward : forward))
				required = true;
			else
				required = false;
		}
		else if (k == so->pass_key)
		{
			if (k->col == 0)
				span = pbt_column_span(st, item, len, 0, &start);
			pass = array_pass_has(so, k, item + start, span, forward,
								  continuescan);
			required = false;	/* array_pass_has ends the scan */
		}
		else if (st->normalized && k->encodable)
		{
			int			c;

			if (k->col == 0)
				span = pbt_column_span(st, item, len, 0, &start);
			c = pbt_cmp_encoded(st, k->col, item + start, span,
								k->enc.data, k->enc.len);

			switch (k->sk->sk_strategy)
			{
				case BTLessStrategyNumber:
					pass = c < 0;
					break;
				case BTLessEqualStrategyNumber:
					pass = c <= 0;
					break;
				case BTEqualStrategyNumber:
					pass = c == 0;
					break;
				case BTGreaterEqualStrategyNumber:
					pass = c >= 0;
					break;
				default:
					pass = c > 0;
					break;
			}
		}
		else
		{
			if (st->normalized)
				datum = pbt_item_column(st, item, len, k->col, &isnull);
			pass = DatumGetBool(FunctionCall2Coll(&k->sk->sk_func,
												  k->sk->sk_collation,
												  datum, k->sk->sk_argument));
			if (st->normalized)
				pbt_free_column(st, k->col, datum);
		}

		if (!pass)
		{
			if (required)
				*continuescan = false;
			return false;
		}
	}
	/* (the range's bounds end the scan; items failing within it have NULLs) */
	return so->row_nmembers == 0 || row_holds(so, item, len);
}

