/*-------------------------------------------------------------------------
 *
 * pbt_scan.c
 *	  Index scans: amgettuple in both directions, amgetbitmap, = ANY
 *	  arrays, IS [NOT] NULL, mark/restore and index-only scans.
 *
 * A scan positions itself with a search key built from the scan keys on a
 * prefix of the columns (equalities, then one inequality), reads matching
 * items of a leaf page into backend-local memory under a share lock, and
 * returns them with at most a pin on the page (see done_with_page).  It
 * stops at the first item beyond an end key built the same way, or when a
 * "required" key fails.
 *
 * Unlike nbtree, a scan returning tuples reads a page in batches: first 32
 * positions, then twice as many each time.  Compact layouts put a thousand
 * or more entries on a leaf, and a short scan (LIMIT, a merge join's inner
 * side) should not decode them all.  The next batch continues at the next
 * position if the page LSN is unchanged, else from a new descent to the
 * item where the batch stopped (entries are unique, heap TID included, so
 * that is an exact place; a split may have moved what follows to the
 * right, where the scan then goes as usual).  Bitmap scans and indexes
 * without WAL (whose LSN does not move) read whole pages.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "access/nbtree.h"
#include "access/relscan.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

typedef struct ScanKeyInfo
{
	ScanKey		sk;
	int			col;
	StrategyNumber strategy;	/* in index order (DESC undone); 0 = null test */
	bool		required_fwd;	/* failing stops a forward scan */
	bool		required_bwd;
	bool		covered;		/* guaranteed by the start and end keys */
	bool		nonnull_only;	/* guaranteed for non-NULL values */
	bool		encodable;		/* normalized mode: enc holds the argument */
	StringInfoData enc;
	FmgrInfo	cmpproc;		/* comparator mode: column vs argument */
	bool		has_cmpproc;
} ScanKeyInfo;

typedef struct ArrayKeyInfo
{
	int			keyidx;
	Datum	   *elems;
	int			nelems;
	int			cur;
	int			mark;
} ArrayKeyInfo;

typedef struct ScanPosItem
{
	ItemPointerData tid;
	uint16		pos;			/* its position on the page when read */
	uint16		tuplen;
	uint32		tupoff;			/* in currTuples, which can outgrow 64 kB
								 * when a layout factors out a long prefix */
} ScanPosItem;

typedef struct ScanPos
{
	bool		valid;			/* positioned on a page */
	/* the page positions the batch examined, and whether more follow */
	int			lowPos;
	int			highPos;
	bool		restLeft;
	bool		restRight;
	/* copies of the items at lowPos and highPos in the tuple buffer */
	uint32		boundOff[2];
	int			boundLen[2];
	Buffer		buf;			/* pinned (not locked), or InvalidBuffer */
	XLogRecPtr	lsn;			/* page LSN when read */
	BlockNumber blkno;
	BlockNumber next;
	BlockNumber prev;
	bool		moreLeft;
	bool		moreRight;
	int			firstItem;
	int			lastItem;
	int			itemIndex;
	ScanPosItem items[PBT_MAX_ITEMS_PER_PAGE];
} ScanPos;

#define ScanPosIsValid(pos) ((pos).valid)

/*
 * Copies of the batch's items for index-only scans, and of its bounds.  It
 * grows as needed: layouts that factor out a prefix hold more item bytes
 * than a page.
 */
typedef struct TupleBuf
{
	char	   *data;
	int			size;
	int			used;
} TupleBuf;

static void
tuplebuf_reserve(TupleBuf *tb, int size)
{
	if (size > tb->size)
	{
		tb->size = Max(size, 2 * tb->size);
		tb->data = repalloc(tb->data, tb->size);
	}
}

static void
tuplebuf_copy(TupleBuf *dst, const TupleBuf *src)
{
	tuplebuf_reserve(dst, src->used);
	memcpy(dst->data, src->data, src->used);
	dst->used = src->used;
}

typedef struct PbtScanOpaqueData
{
	PbtState   *st;
	MemoryContext tupcxt;		/* per returned index tuple */
	MemoryContext keycxt;		/* per rescan: array keys */
	bool		qual_ok;
	bool		empty_array;	/* qual_ok is false for an empty = ANY */
	int			nkeys;
	ScanKeyInfo *keys;
	int			narrays;
	ArrayKeyInfo *arrays;
	/* where a forward scan ends (upper) and a backward scan ends (lower) */
	PbtSearchKey upperkey;
	PbtSearchKey lowerkey;
	bool		has_upper;
	bool		has_lower;
	StringInfoData upperbuf;
	StringInfoData lowerbuf;
	ScanPos		curr;
	ScanPos		mark;
	int			markItemIndex;
	int			nkilled;		/* items of curr whose heap tuples are dead */
	int			killed[PBT_MAX_ITEMS_PER_PAGE];
	/* item bytes for index-only scans, and the batch's bounds */
	TupleBuf	currTuples;
	TupleBuf	markTuples;
	int			batch;			/* positions the next batch reads; 0 = all */
	bool		bitmap;			/* amgetbitmap: pages read in any order */
	bool		probing;		/* a forward point lookup, read by the
								 * layout's probe or by read_page_point */
	bool		batch_within_end;	/* the end key holds for the whole batch */
	bool		keys_hold;		/* every key holds for the range's items
								 * whose first column is not NULL */
	StringInfoData resumebuf;	/* where the batch stopped, as a key */
} PbtScanOpaqueData;

#define SCAN_FIRST_BATCH 32

typedef PbtScanOpaqueData *PbtScanOpaque;

static void kill_items_now(IndexScanDesc scan);

/* kill_items_now, without a call when there is nothing to hint */
static inline void
kill_items(IndexScanDesc scan)
{
	if (((PbtScanOpaque) scan->opaque)->nkilled > 0)
		kill_items_now(scan);
}

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

IndexScanDesc
pbtbeginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	PbtScanOpaque so = palloc0(sizeof(PbtScanOpaqueData));

	/*
	 * A private copy of the cached key state: rd_amcache may be freed by a
	 * relcache invalidation between calls, but what it points to lives in
	 * rd_indexcxt as long as the index is open.
	 */
	so->st = palloc(sizeof(PbtState));
	memcpy(so->st, pbt_get_state(index), sizeof(PbtState));
	so->tupcxt = AllocSetContextCreate(CurrentMemoryContext, "pagebtree scan tuple",
									   ALLOCSET_SMALL_SIZES);
	so->keycxt = AllocSetContextCreate(CurrentMemoryContext, "pagebtree scan keys",
									   ALLOCSET_SMALL_SIZES);
	so->curr.buf = InvalidBuffer;
	so->mark.buf = InvalidBuffer;
	so->markItemIndex = -1;
	initStringInfo(&so->upperbuf);
	initStringInfo(&so->lowerbuf);
	initStringInfo(&so->resumebuf);
	so->currTuples.size = so->markTuples.size = 1024;
	so->currTuples.data = palloc(so->currTuples.size);
	so->markTuples.data = palloc(so->markTuples.size);
	if (nkeys > 0)
		so->keys = palloc0(sizeof(ScanKeyInfo) * nkeys);
	for (int i = 0; i < nkeys; i++)
		initStringInfo(&so->keys[i].enc);
	scan->opaque = so;
	scan->xs_itupdesc = RelationGetDescr(index);
	return scan;
}

static void
release_pos(ScanPos *pos)
{
	if (BufferIsValid(pos->buf))
		ReleaseBuffer(pos->buf);
	pos->buf = InvalidBuffer;
	pos->valid = false;
}

/*
 * Done reading the page in so->curr.buf: unlock it, and unpin it too when
 * that is safe, so that VACUUM never waits for an idle cursor (as nbtree
 * does since PostgreSQL 9.5).  An MVCC snapshot cannot see a heap tuple
 * that reuses a TID VACUUM freed meanwhile; kill_items then checks the
 * page LSN before trusting positions.  Index-only scans, other snapshots
 * and unlogged indexes (no LSN) keep the pin as the interlock.
 */
static void
done_with_page(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	so->curr.valid = true;
	so->curr.lsn = BufferGetLSNAtomic(so->curr.buf);
	if (IsMVCCSnapshot(scan->xs_snapshot) &&
		RelationNeedsWAL(scan->indexRelation) && !scan->xs_want_itup)
	{
		UnlockReleaseBuffer(so->curr.buf);
		so->curr.buf = InvalidBuffer;
	}
	else
		LockBuffer(so->curr.buf, BUFFER_LOCK_UNLOCK);
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
prepare_array(IndexScanDesc scan, int keyidx, ArrayKeyInfo *ak)
{
	ScanKey		sk = &scan->keyData[keyidx];
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
	Oid			proc;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(arr, elemtype, typlen, typbyval, typalign,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			elems[kept++] = elems[i];
	if (kept == 0)
		return false;

	proc = get_opfamily_proc(index->rd_opfamily[sk->sk_attno - 1],
							 elemtype, elemtype, 1);
	if (!OidIsValid(proc))
		elog(ERROR, "missing support function 1(%u,%u) in opfamily %u",
			 elemtype, elemtype, index->rd_opfamily[sk->sk_attno - 1]);
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
	ak->elems = elems;
	ak->nelems = kept;
	ak->cur = 0;
	return true;
}

/* (re)encode a key's argument after it changed */
static void
encode_key(PbtScanOpaque so, ScanKeyInfo *k)
{
	resetStringInfo(&k->enc);
	if (k->strategy == 0 || !so->st->normalized)
		return;
	k->encodable = pbt_encode_column(so->st, k->col, k->sk->sk_argument, false,
									 k->sk->sk_subtype, &k->enc);
}

/*
 * Set array keys to their first elements for a scan in direction dir:
 * ascending in index order for forward scans.
 */
static void
start_arrays(PbtScanOpaque so, ScanDirection dir)
{
	for (int i = 0; i < so->narrays; i++)
	{
		ArrayKeyInfo *ak = &so->arrays[i];
		ScanKeyInfo *k = &so->keys[ak->keyidx];
		bool		reverse = (so->st->cols[k->col].desc != ScanDirectionIsBackward(dir));

		ak->cur = reverse ? ak->nelems - 1 : 0;
		k->sk->sk_argument = ak->elems[ak->cur];
		encode_key(so, k);
	}
}

/* Advance to the next combination of array elements; false when done. */
static bool
advance_arrays(PbtScanOpaque so, ScanDirection dir)
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
		k->sk->sk_argument = ak->elems[ak->cur];
		encode_key(so, k);
		if (!wrapped)
			return true;
	}
	return false;
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
static bool
point_lookup(PbtScanOpaque so)
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
 * Classify the scan keys: which column, which strategy in index order, and
 * which keys are required (all earlier columns have equality keys), so that
 * failing them ends the scan in one direction.
 */
static void
preprocess_keys(IndexScanDesc scan)
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
	so->nkeys = scan->numberOfKeys;
	so->narrays = 0;
	for (int i = 0; i < scan->numberOfKeys; i++)
		if (scan->keyData[i].sk_flags & SK_SEARCHARRAY)
			so->narrays++;
	so->arrays = so->narrays > 0 ? palloc(sizeof(ArrayKeyInfo) * so->narrays) : NULL;
	so->narrays = 0;

	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];
		ScanKeyInfo *k = &so->keys[i];
		PbtColumn  *col = &st->cols[sk->sk_attno - 1];

		k->sk = sk;
		k->col = sk->sk_attno - 1;
		k->covered = false;
		k->encodable = false;
		k->has_cmpproc = false;
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
				if (!prepare_array(scan, i, &so->arrays[so->narrays]))
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
			encode_key(so, k);
		}
	}
	MemoryContextSwitchTo(oldcxt);

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

			if (k->col != col || !key_positions(so, k))
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
			eqcols = col + 1;
	}
}

void
pbtrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
		  ScanKey orderbys, int norderbys)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	kill_items(scan);
	release_pos(&so->curr);
	release_pos(&so->mark);
	so->markItemIndex = -1;
	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
	for (int i = 0; i < so->nkeys; i++)
		so->keys[i].required_fwd = so->keys[i].required_bwd = false;
	preprocess_keys(scan);
	so->batch = RelationNeedsWAL(scan->indexRelation) ? SCAN_FIRST_BATCH : 0;
}

void
pbtendscan(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	kill_items(scan);
	release_pos(&so->curr);
	release_pos(&so->mark);
	MemoryContextDelete(so->tupcxt);
	MemoryContextDelete(so->keycxt);
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
static bool
build_boundary(PbtScanOpaque so, bool lower, PbtSearchKey *key,
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
			break;

		if (st->normalized)
		{
			if (eq->strategy == 0)
				(void) pbt_encode_column(st, col, (Datum) 0, true, InvalidOid, buf);
			else
				memcpy(pbt_reserve_bytes(buf, eq->enc.len), eq->enc.data,
					   eq->enc.len);
		}
		else
		{
			key->values[col] = eq->sk->sk_argument;
			key->isnull[col] = (eq->strategy == 0);
			key->procs[col] = &eq->cmpproc;
			key->nattrs = col + 1;
		}
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
static bool
check_item_keys(PbtScanOpaque so, const char *item, int len, ScanDirection dir,
				bool *continuescan)
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
			datum = index_getattr((IndexTuple) item, k->col + 1, st->tupdesc, &isnull);

		if (k->nonnull_only && !isnull)
			continue;
		if (k->strategy == 0)
		{
			pass = (k->sk->sk_flags & SK_SEARCHNULL) ? isnull : !isnull;
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
		}

		if (!pass)
		{
			if (required)
				*continuescan = false;
			return false;
		}
	}
	return true;
}

/* check_item_keys, without a call in the common case of a range scan */
static inline bool
check_item(PbtScanOpaque so, const char *item, int len, ScanDirection dir,
		   bool *continuescan)
{
	if (so->batch_within_end && so->keys_hold &&
		(unsigned char) item[0] == PBT_MARK_VALUE)
	{
		*continuescan = true;
		return true;
	}
	return check_item_keys(so, item, len, dir, continuescan);
}

static inline void
save_item(IndexScanDesc scan, int slot, int pos, const char *item, int len)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	ScanPosItem *pi = &so->curr.items[slot];

	pbt_item_get_tid(so->st, item, len, &pi->tid);
	pi->pos = pos;
	if (scan->xs_want_itup)
	{
		/* comparator-mode items are IndexTuples returned in place */
		TupleBuf   *tb = &so->currTuples;
		int			off = so->st->normalized ? tb->used : MAXALIGN(tb->used);

		tuplebuf_reserve(tb, off + len);
		memcpy(tb->data + off, item, len);
		pi->tupoff = off;
		pi->tuplen = len;
		tb->used = off + len;
	}
}

/* copy the item examined at pos as the batch's low (0) or high (1) bound */
static void
save_bound(PbtScanOpaque so, int which, int pos, const PbtItem *item)
{
	TupleBuf   *tb = &so->currTuples;

	tuplebuf_reserve(tb, tb->used + item->len);
	memcpy(tb->data + tb->used, item->data, item->len);
	so->curr.boundOff[which] = tb->used;
	so->curr.boundLen[which] = item->len;
	tb->used += item->len;
	if (which == 0)
		so->curr.lowPos = pos;
	else
		so->curr.highPos = pos;
}

/*
 * Whether the last item a batch can examine is still within the end key:
 * then so are all before it (they are sorted), and check_item need not
 * compare each with the end key.  One get per batch instead of a key
 * compare per item, which dominates long scans.
 */
static bool
batch_within_end(PbtScanOpaque so, Page page, const PbtIter *it, int limit)
{
	bool		forward = it->step > 0;
	int			last;
	PbtItem		item;
	PbtItemBuf	itembuf;
	int			c;

	if (!(forward ? so->has_upper : so->has_lower))
		return true;
	/* a first batch is mostly a lookup's, which ends inside it anyway */
	if (limit <= SCAN_FIRST_BATCH)
		return false;
	/* it->pos is one step before the first position */
	last = forward ? Min(it->pos + limit, it->stop - 1) :
		Max(it->pos - limit, 0);
	if (forward ? last <= it->pos : last >= it->pos)
		return false;
	it->layout->get(page, last, &item, &itembuf);
	c = pbt_compare(so->st, forward ? &so->upperkey : &so->lowerkey,
					item.data, item.len);
	return forward ? c > 0 : c <= 0;
}

/* Start reading the share-locked leaf in buf into so->curr. */
static void
begin_page(IndexScanDesc scan, Buffer buf)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtPageOpaque opaque = PbtPageGetOpaque(BufferGetPage(buf));

	if (!PbtIsLeaf(opaque))
		pbt_page_error(scan->indexRelation, BufferGetBlockNumber(buf),
					   "scan reached a non-leaf page");
	so->curr.buf = buf;
	so->currTuples.used = 0;
	so->curr.blkno = BufferGetBlockNumber(buf);
	so->curr.next = opaque->next;
	so->curr.prev = opaque->prev;
	so->curr.moreRight = !PbtIsRightmost(opaque);
	so->curr.moreLeft = !PbtIsLeftmost(opaque);
	so->curr.restLeft = so->curr.restRight = false;
}

/* The page read into so->curr.items[0, k): done with it; any found? */
static bool
end_forward_page(IndexScanDesc scan, int k)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	so->curr.firstItem = 0;
	so->curr.lastItem = k - 1;
	so->curr.itemIndex = 0;
	done_with_page(scan);
	return k > 0;
}

/*
 * A bitmap scan's read of the share-locked leaf in buf: every item, in the
 * order the layout stores them (BPA leaves are not sorted), each checked
 * against both bounds.  An item past the upper bound means that no page to
 * the right can match, as in an ordered read.
 */
static bool
read_page_unordered(IndexScanDesc scan, Buffer buf)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	Page		page = BufferGetPage(buf);
	bool		beyond = false;
	int			k = 0;
	PbtItem		item;
	PbtIter		it;

	begin_page(scan, buf);
	so->batch_within_end = false;
	pbt_iter_start_unordered(&it, page);
	while (pbt_iter_next(&it, &item))
	{
		bool		continuescan;

		if ((scan->ignore_killed_tuples && it.dead) ||
			(so->has_lower &&
			 pbt_compare(so->st, &so->lowerkey, item.data, item.len) > 0))
			continue;
		if (check_item(so, item.data, item.len, ForwardScanDirection, &continuescan))
			save_item(scan, k++, it.pos, item.data, item.len);
		beyond |= !continuescan;
	}
	if (beyond)
		so->curr.moreRight = false;
	return end_forward_page(scan, k);
}

/*
 * A point lookup's read of the share-locked leaf in buf, through the
 * layout's equality probe (fingerprint leaves): the entries with the key,
 * all at once.  Equal keys continue on the right page only if the high key
 * does not exceed the key.  Positions are not known (kill_items then finds
 * entries by heap TID), so the page is not read in batches.
 */
static bool
read_page_probe(IndexScanDesc scan, Buffer buf)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	Page		page = BufferGetPage(buf);
	const char *tids[PBT_MAX_ITEMS_PER_PAGE];
	bool		dead[PBT_MAX_ITEMS_PER_PAGE];
	PbtItemBuf	match;
	int			keylen = so->lowerkey.len;
	int			n;
	int			k = 0;
	PbtItem		hikey;

	begin_page(scan, buf);
	so->batch_within_end = true;	/* the probe matched the bounds */
	n = pbt_layout(page)->probe(page, so->lowerkey.bytes, keylen, tids, dead);
	/* every match is the key and a heap TID (so the key fits in match) */
	if (n > 0)
		memcpy(match.data, so->lowerkey.bytes, keylen);
	for (int i = 0; i < n; i++)
	{
		bool		continuescan;

		memcpy(match.data + keylen, tids[i], PBT_TID_BYTES);
		if ((scan->ignore_killed_tuples && dead[i]) ||
			!check_item(so, match.data, keylen + PBT_TID_BYTES,
						ForwardScanDirection, &continuescan))
			continue;
		save_item(scan, k++, PG_UINT16_MAX, match.data, keylen + PBT_TID_BYTES);
	}
	if (so->curr.moreRight && pbt_page_get_hikey(page, &hikey) &&
		pbt_compare(so->st, &so->upperkey, hikey.data, hikey.len) <= 0)
		so->curr.moreRight = false;
	return end_forward_page(scan, k);
}

/*
 * A point lookup's read of the share-locked leaf in buf from pos, the first
 * item not below the key, on a layout without a probe: the items that are
 * the key and a heap TID, up to the first one that is not, which ends the
 * scan.  No end-key comparison per item and no copies of the batch's
 * bounds: a lookup usually returns an entry or two, and nothing before pos
 * can match (so restLeft stays false, as after a probe).  Only a batch that
 * fills up with equal keys (a low-cardinality column) may have more on this
 * page; it then keeps the bound continue_page resumes from, and the rest
 * of the page is read in order.
 */
static bool
read_page_point(IndexScanDesc scan, Buffer buf, int pos)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	Page		page = BufferGetPage(buf);
	const char *key = so->lowerkey.bytes;
	int			keylen = so->lowerkey.len;
	int			limit = so->batch > 0 ? so->batch : PBT_MAX_ITEMS_PER_PAGE;
	int			examined = 0;
	int			k = 0;
	bool		ended = false;
	PbtItem		item;
	PbtIter		it;

	begin_page(scan, buf);
	so->batch_within_end = true;	/* the equality test below is the end key */
	pbt_iter_start(&it, page, pos, true);
	while (examined < limit && pbt_iter_next(&it, &item))
	{
		bool		continuescan = true;

		examined++;
		if (item.len != keylen + PBT_TID_BYTES ||
			memcmp(item.data, key, keylen) != 0)
		{
			ended = true;
			break;
		}
		if (!(scan->ignore_killed_tuples && it.dead) &&
			check_item(so, item.data, item.len, ForwardScanDirection,
					   &continuescan))
			save_item(scan, k++, it.pos, item.data, item.len);
		if (!continuescan)
		{
			ended = true;
			break;
		}
	}

	if (ended)
		so->curr.moreRight = false;
	else if (examined == limit && it.pos < it.layout->count(page) - 1)
	{
		/* a full batch of equal keys: continue_page reads on from here */
		save_bound(so, 1, it.pos, &item);
		so->curr.restRight = true;
	}
	else if (so->curr.moreRight && pbt_page_get_hikey(page, &item) &&
			 pbt_compare(so->st, &so->upperkey, item.data, item.len) <= 0)
		so->curr.moreRight = false; /* all to the right is >= the high key */
	if (so->batch > 0)
		so->batch = Min(2 * so->batch, PBT_MAX_ITEMS_PER_PAGE);
	return end_forward_page(scan, k);
}

/*
 * Read a batch of the share-locked leaf in buf, from pos on in direction
 * dir, into so->curr.  Returns true if any item matched.  The lock is
 * released (see done_with_page for the pin).
 */
static bool
read_page_ordered(IndexScanDesc scan, Buffer buf, int pos, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtState   *st = so->st;
	Page		page = BufferGetPage(buf);
	bool		forward = ScanDirectionIsForward(dir);
	bool		continuescan = true;
	int			limit = so->batch > 0 ? so->batch : PBT_MAX_ITEMS_PER_PAGE;
	int			examined = 0;
	int			k = forward ? 0 : PBT_MAX_ITEMS_PER_PAGE;
	PbtItem		item;
	PbtIter		it;

	begin_page(scan, buf);
	pbt_iter_start(&it, page, pos, forward);
	so->batch_within_end = batch_within_end(so, page, &it, limit);
	while (examined < limit && pbt_iter_next(&it, &item))
	{
		if (examined++ == 0)
			save_bound(so, forward ? 0 : 1, it.pos, &item);
		if (scan->ignore_killed_tuples && it.dead)
			continue;
		if (check_item(so, item.data, item.len, dir, &continuescan))
		{
			if (forward)
				save_item(scan, k++, it.pos, item.data, item.len);
			else
				save_item(scan, --k, it.pos, item.data, item.len);
		}
		if (!continuescan)
			break;
	}

	if (examined > 0)
	{
		int			n = it.layout->count(page);

		save_bound(so, forward ? 1 : 0, it.pos, &item);
		/* a reversing cursor re-reads what lies behind the batch */
		so->curr.restLeft = so->curr.lowPos > 0;
		so->curr.restRight = so->curr.highPos < n - 1;
	}
	if (!continuescan)
	{
		/* no later item in this direction can match, on any page */
		if (forward)
			so->curr.moreRight = so->curr.restRight = false;
		else
			so->curr.moreLeft = so->curr.restLeft = false;
	}
	else if (forward && !so->curr.restRight && so->has_upper &&
			 so->curr.moreRight && pbt_page_get_hikey(page, &item) &&
			 pbt_compare(st, &so->upperkey, item.data, item.len) <= 0)
		so->curr.moreRight = false; /* all to the right is >= the high key */
	if (so->batch > 0)
		so->batch = Min(2 * so->batch, PBT_MAX_ITEMS_PER_PAGE);

	if (forward)
	{
		so->curr.firstItem = 0;
		so->curr.lastItem = k - 1;
		so->curr.itemIndex = 0;
	}
	else
	{
		so->curr.firstItem = k;
		so->curr.lastItem = PBT_MAX_ITEMS_PER_PAGE - 1;
		so->curr.itemIndex = PBT_MAX_ITEMS_PER_PAGE - 1;
	}
	done_with_page(scan);
	return so->curr.firstItem <= so->curr.lastItem;
}

/*
 * Read the share-locked leaf in buf from pos on in direction dir: a batch,
 * or the whole page for a point lookup or a bitmap scan (see above).  In
 * an adaptive index, a point lookup or an ordered scan counts towards the
 * leaf's layout, and converts it once the page is released if the count
 * says so (pbt_adapt.c).
 */
static bool
read_page(IndexScanDesc scan, Buffer buf, int pos, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	bool		point = so->probing && ScanDirectionIsForward(dir);
	BlockNumber blkno = BufferGetBlockNumber(buf);
	uint8		convert = 0;
	bool		found;

	if (so->st->adaptive && (point || !so->bitmap))
		convert = pbt_adapt_on_read(buf, point);
	if (point && pbt_layout(BufferGetPage(buf))->probe)
		found = read_page_probe(scan, buf);
	else if (point && !so->bitmap)
		found = read_page_point(scan, buf, pos);
	else if (so->bitmap)
		found = read_page_unordered(scan, buf);
	else
		found = read_page_ordered(scan, buf, pos, dir);
	if (convert)
		pbt_adapt_convert(scan->indexRelation, so->st, blkno, convert);
	return found;
}

/*
 * Hint the entries whose heap tuples the executor found dead to everyone
 * (kill_prior_tuple), so later scans skip them and an insert can remove
 * them before splitting.  Only a share lock: writers hold an exclusive one,
 * and a concurrent reader sees the hint or not, both correct.  Entries may
 * have moved since we read the page, so they are matched by heap TID.
 */
static void
kill_items_now(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	Page		page;
	const PbtLayout *layout;
	int			n;
	bool		marked = false;

	Buffer		buf = so->curr.buf;

	if (so->nkilled == 0 || !ScanPosIsValid(so->curr))
	{
		so->nkilled = 0;
		return;
	}
	if (!BufferIsValid(buf))
	{
		/* without our pin, VACUUM may have recycled TIDs: page unchanged? */
		buf = ReadBuffer(scan->indexRelation, so->curr.blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (BufferGetLSNAtomic(buf) != so->curr.lsn)
		{
			UnlockReleaseBuffer(buf);
			so->nkilled = 0;
			return;
		}
	}
	else
		LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	layout = pbt_layout(page);
	n = layout->count(page);
	for (int k = 0; k < so->nkilled; k++)
	{
		ScanPosItem *pi = &so->curr.items[so->killed[k]];
		PbtIter		it;
		PbtItem		item;
		ItemPointerData tid;

		/* the remembered position first, then the whole page */
		if (pi->pos < n)
		{
			PbtItemBuf	itembuf;

			layout->get(page, pi->pos, &item, &itembuf);
			pbt_item_get_tid(so->st, item.data, item.len, &tid);
			if (ItemPointerEquals(&tid, &pi->tid))
			{
				layout->set_dead(page, pi->pos);
				marked = true;
				continue;
			}
		}
		pbt_iter_start(&it, page, 0, true);
		while (pbt_iter_next(&it, &item))
		{
			pbt_item_get_tid(so->st, item.data, item.len, &tid);
			if (ItemPointerEquals(&tid, &pi->tid))
			{
				layout->set_dead(page, it.pos);
				marked = true;
				break;
			}
		}
	}
	if (marked)
	{
		PbtPageGetOpaque(page)->flags |= PBT_HAS_DEAD;
		MarkBufferDirtyHint(buf, true);
	}
	if (buf != so->curr.buf)
		UnlockReleaseBuffer(buf);
	else
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	so->nkilled = 0;
}

/* Remember the marked position before leaving the current page. */
static void
save_mark_before_leaving(PbtScanOpaque so)
{
	if (so->markItemIndex < 0)
		return;
	release_pos(&so->mark);
	memcpy(&so->mark, &so->curr, offsetof(ScanPos, items) +
		   sizeof(ScanPosItem) * (so->curr.lastItem + 1));
	if (BufferIsValid(so->mark.buf))
		IncrBufferRefCount(so->mark.buf);
	so->mark.itemIndex = so->markItemIndex;
	tuplebuf_copy(&so->markTuples, &so->currTuples);
	so->markItemIndex = -1;
}

static bool
links_to(Buffer buf, BlockNumber target)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(BufferGetPage(buf));

	return opaque->next == target && !PbtIsDeleted(opaque);
}

static Buffer
lock_page(Relation index, BlockNumber blkno)
{
	Buffer		buf = ReadBuffer(index, blkno);

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	return buf;
}

/*
 * Share-lock the live page whose right-link is target, the page a backward
 * scan reads after target; InvalidBuffer if target is leftmost.  prev is
 * target's left-link when we read it.  That page may have split since
 * (move right from it) or been deleted, and target may have been deleted
 * too (its key space went right, so continue from its live right
 * sibling); then ask target for its current left-link and retry.
 */
static Buffer
walk_left(Relation index, BlockNumber target, BlockNumber prev)
{
	Buffer		buf;

	if (prev != InvalidBlockNumber)
	{
		buf = lock_page(index, prev);
		if (links_to(buf, target))
			return buf;
		UnlockReleaseBuffer(buf);
	}
	for (;;)
	{
		PbtPageOpaque opaque;

		CHECK_FOR_INTERRUPTS();
		buf = lock_page(index, target);
		opaque = PbtPageGetOpaque(BufferGetPage(buf));
		while (PbtIsDeleted(opaque))
		{
			target = opaque->next;
			UnlockReleaseBuffer(buf);
			buf = lock_page(index, target);
			opaque = PbtPageGetOpaque(BufferGetPage(buf));
		}
		prev = opaque->prev;
		UnlockReleaseBuffer(buf);
		if (prev == InvalidBlockNumber)
			return InvalidBuffer;

		buf = lock_page(index, prev);
		for (;;)
		{
			opaque = PbtPageGetOpaque(BufferGetPage(buf));
			if (links_to(buf, target))
				return buf;
			if (PbtIsRightmost(opaque) || opaque->next == target)
				break;			/* links changed under us: ask target again */
			prev = opaque->next;
			UnlockReleaseBuffer(buf);
			buf = lock_page(index, prev);
		}
		UnlockReleaseBuffer(buf);
	}
}

/*
 * Read the first batch of the next page in direction dir.  Returns false
 * if it has no match, with so->curr invalid if the scan has ended.
 */
static bool
step_page(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	Buffer		buf;

	if (ScanDirectionIsForward(dir))
	{
		BlockNumber next = so->curr.next;
		bool		more = so->curr.moreRight;

		release_pos(&so->curr);
		if (!more)
			return false;
		buf = ReadBuffer(index, next);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		return read_page(scan, buf, 0, dir);
	}
	else
	{
		BlockNumber target = so->curr.blkno;
		BlockNumber blkno = so->curr.prev;
		bool		more = so->curr.moreLeft;

		release_pos(&so->curr);
		if (!more)
			return false;
		buf = walk_left(index, target, blkno);
		if (!BufferIsValid(buf))
			return false;
		return read_page(scan, buf, PBT_MAX_ITEMS_PER_PAGE, dir);
	}
}

/*
 * Read from the leaf where key belongs, in direction dir: forward from the
 * first item the key does not exceed (nextkey: the first it precedes),
 * backward from the item before that.
 */
static bool
read_from_key(IndexScanDesc scan, PbtSearchKey *key, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtStack	stack;
	Buffer		buf;
	int			pos;

	stack = pbt_search(scan->indexRelation, so->st, key, &buf,
					   BUFFER_LOCK_SHARE, 0);
	pbt_free_stack(stack);
	/* a probing read finds its entries without a position */
	pos = so->probing && pbt_layout(BufferGetPage(buf))->probe ? 0 :
		pbt_binsearch(so->st, BufferGetPage(buf), key);
	if (ScanDirectionIsForward(dir) || pos > 0)
		return read_page(scan, buf, ScanDirectionIsForward(dir) ? pos : pos - 1,
						 dir);

	/* nothing before the key on this page: go on from its left neighbour */
	so->curr.buf = buf;
	so->curr.blkno = BufferGetBlockNumber(buf);
	so->curr.prev = PbtPageGetOpaque(BufferGetPage(buf))->prev;
	so->curr.moreLeft = !PbtIsLeftmost(PbtPageGetOpaque(BufferGetPage(buf)));
	so->curr.restLeft = so->curr.restRight = false;
	so->curr.firstItem = 0;
	so->curr.lastItem = -1;
	done_with_page(scan);
	return false;
}

/*
 * Read the current page's next batch in direction dir.  If the page has
 * changed since the last batch, positions may have moved: find the item
 * where that batch stopped again from the root.
 */
static bool
continue_page(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	bool		forward = ScanDirectionIsForward(dir);
	int			bound = forward ? 1 : 0;
	Buffer		buf = so->curr.buf;
	PbtSearchKey key;

	/* a batch ended inside this page: read on in order, by position */
	so->probing = false;
	if (!BufferIsValid(buf))
		buf = ReadBuffer(scan->indexRelation, so->curr.blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	if (BufferGetLSNAtomic(buf) == so->curr.lsn)
		return read_page(scan, buf, forward ? so->curr.highPos + 1 :
						 so->curr.lowPos - 1, dir);

	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (buf != so->curr.buf)
		ReleaseBuffer(buf);
	resetStringInfo(&so->resumebuf);
	appendBinaryStringInfo(&so->resumebuf,
						   so->currTuples.data + so->curr.boundOff[bound],
						   so->curr.boundLen[bound]);
	release_pos(&so->curr);
	pbt_key_from_item(so->st, so->resumebuf.data, so->resumebuf.len, &key);
	key.nextkey = forward;
	return read_from_key(scan, &key, dir);
}

/*
 * Read batches in direction dir, the rest of the current page first, until
 * one has a match (true) or the scan ends (false).
 */
static bool
read_on(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	for (;;)
	{
		bool		found;

		CHECK_FOR_INTERRUPTS();
		kill_items(scan);
		save_mark_before_leaving(so);
		if (ScanDirectionIsForward(dir) ? so->curr.restRight : so->curr.restLeft)
			found = continue_page(scan, dir);
		else
			found = step_page(scan, dir);
		if (found)
			return true;
		if (!ScanPosIsValid(so->curr))
			return false;
	}
}

/* Position the scan at its first match in direction dir. */
/*
 * Count an index scan for pg_stat_*_indexes where btree's _bt_first does:
 * once per positioning (every array-key combination), and for keys that
 * never match, except an empty = ANY array, which btree turns away before.
 */
static inline void
count_index_scan(IndexScanDesc scan)
{
	pgstat_count_index_scan(scan->indexRelation);
}

static bool
scan_first(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	bool		forward = ScanDirectionIsForward(dir);
	bool		strict;
	ScanKeyInfo *lowerbound;
	ScanKeyInfo *upperbound;
	bool		point = point_lookup(so);	/* after encode_key: per element */
	bool		found;

	count_index_scan(scan);
	for (int i = 0; i < so->nkeys; i++)
		so->keys[i].covered = so->keys[i].nonnull_only = false;
	if (so->batch > 0)
		so->batch = SCAN_FIRST_BATCH;

	/*
	 * The range's bounds in index order.  A forward scan starts at the first
	 * item not below the lower key and stops at the first item not below the
	 * upper key; a backward scan the other way round.  Both are kept, since
	 * a scrollable cursor may change direction.
	 */
	so->has_lower = build_boundary(so, true, &so->lowerkey, &so->lowerbuf,
								   &strict, &lowerbound);
	so->lowerkey.nextkey = strict;	/* "> v" excludes every item with prefix v */
	if (point)
	{
		/*
		 * Equalities on every column, so both boundaries are the same whole
		 * key (normalized: bytes only), the upper one with nextkey.
		 */
		so->upperkey.bytes = so->lowerkey.bytes;
		so->upperkey.len = so->lowerkey.len;
		so->upperkey.nattrs = 0;
		so->upperkey.has_tid = false;
		so->has_upper = so->has_lower;
		upperbound = NULL;
		strict = false;
	}
	else
		so->has_upper = build_boundary(so, false, &so->upperkey, &so->upperbuf,
									   &strict, &upperbound);
	so->upperkey.nextkey = !strict; /* "<= v" includes them */

	/*
	 * Inequalities used as boundaries hold for every non-NULL value in the
	 * range; a range open at one end can still reach the NULLs sorted there.
	 */
	if (lowerbound && upperbound && lowerbound->col == upperbound->col)
		lowerbound->covered = upperbound->covered = true;
	else
	{
		if (lowerbound)
			lowerbound->nonnull_only = true;
		if (upperbound)
			upperbound->nonnull_only = true;
	}
	so->keys_hold = so->st->normalized;
	for (int i = 0; i < so->nkeys; i++)
		so->keys_hold &= so->keys[i].covered ||
			(so->keys[i].nonnull_only && so->keys[i].col == 0);
	so->probing = forward && point;

	if (forward ? so->has_lower : so->has_upper)
		found = read_from_key(scan, forward ? &so->lowerkey : &so->upperkey, dir);
	else
		found = read_page(scan,
						  pbt_get_endpoint(scan->indexRelation, so->st, 0, !forward),
						  forward ? 0 : PBT_MAX_ITEMS_PER_PAGE, dir);
	return found || read_on(scan, dir);
}

/*
 * Form the current item's index tuple for an index-only scan.  Not inlined:
 * its arrays would give pbtgettuple, called for every row, a large frame.
 */
static pg_noinline void
return_itup(IndexScanDesc scan, ScanPosItem *pi)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	char	   *data = so->currTuples.data + pi->tupoff;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	MemoryContext oldcxt;

	if (!so->st->normalized)
	{
		scan->xs_itup = (IndexTuple) data;
		return;
	}
	MemoryContextReset(so->tupcxt);
	oldcxt = MemoryContextSwitchTo(so->tupcxt);
	pbt_decode_item(so->st, data, pi->tuplen, values, isnull);
	scan->xs_itup = index_form_tuple(so->st->tupdesc, values, isnull);
	MemoryContextSwitchTo(oldcxt);
}

/* Hand the current item to the executor. */
static inline void
return_item(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	ScanPosItem *pi = &so->curr.items[so->curr.itemIndex];

	scan->xs_heaptid = pi->tid;
	if (scan->xs_want_itup)
		return_itup(scan, pi);
}

/* first or next match, moving on through array key combinations */
static bool
scan_advance(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	if (!so->qual_ok)
	{
		if (!so->empty_array)
			count_index_scan(scan);
		return false;
	}
	for (;;)
	{
		bool		found;

		/* a valid position's batch is used up: pbtgettuple steps within it */
		if (!ScanPosIsValid(so->curr))
			found = scan_first(scan, dir);
		else
			found = read_on(scan, dir);
		if (found)
			return true;
		if (so->narrays == 0 || !advance_arrays(so, dir))
			return false;
	}
}

/*
 * pbtgettuple beyond the batch in hand: (re)positioning, reading on.  Not
 * inlined, so that the per-row path below keeps a small frame.
 */
static pg_noinline bool
gettuple_slow(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	/* (re)start array keys when (re)positioning, now that dir is known */
	if (!ScanPosIsValid(so->curr) && so->qual_ok)
		start_arrays(so, dir);
	if (!scan_advance(scan, dir))
		return false;
	return_item(scan);
	return true;
}

bool
pbtgettuple(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	ScanPos    *pos = &so->curr;

	/* pagebtree is never lossy */
	scan->xs_recheck = false;

	/* the executor found the previously returned entry's tuple dead */
	if (scan->kill_prior_tuple && ScanPosIsValid(*pos) &&
		so->nkilled < PBT_MAX_ITEMS_PER_PAGE)
		so->killed[so->nkilled++] = pos->itemIndex;

	/* most calls: the next item of the batch in hand */
	if (ScanPosIsValid(*pos) &&
		(ScanDirectionIsForward(dir) ? pos->itemIndex < pos->lastItem :
		 pos->itemIndex > pos->firstItem))
	{
		pos->itemIndex += ScanDirectionIsForward(dir) ? 1 : -1;
		return_item(scan);
		return true;
	}
	return gettuple_slow(scan, dir);
}

int64
pbtgetbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	int64		ntids = 0;

	if (!so->qual_ok)
	{
		if (!so->empty_array)
			count_index_scan(scan);
		return 0;
	}
	so->batch = 0;				/* whole pages */
	so->bitmap = true;
	start_arrays(so, ForwardScanDirection);
	for (;;)
	{
		bool		found = scan_first(scan, ForwardScanDirection);

		while (found)
		{
			for (int i = so->curr.firstItem; i <= so->curr.lastItem; i++)
				tbm_add_tuples(tbm, &so->curr.items[i].tid, 1, false);
			ntids += so->curr.lastItem - so->curr.firstItem + 1;
			found = read_on(scan, ForwardScanDirection);
		}
		if (so->narrays == 0 || !advance_arrays(so, ForwardScanDirection))
			break;
	}
	return ntids;
}

void
pbtmarkpos(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	release_pos(&so->mark);
	so->markItemIndex = ScanPosIsValid(so->curr) ? so->curr.itemIndex : -1;
	for (int i = 0; i < so->narrays; i++)
		so->arrays[i].mark = so->arrays[i].cur;
}

void
pbtrestrpos(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	for (int i = 0; i < so->narrays; i++)
	{
		ArrayKeyInfo *ak = &so->arrays[i];

		ak->cur = ak->mark;
		so->keys[ak->keyidx].sk->sk_argument = ak->elems[ak->cur];
		encode_key(so, &so->keys[ak->keyidx]);
	}
	if (so->markItemIndex >= 0)
	{
		/* the mark is on the current page */
		so->curr.itemIndex = so->markItemIndex;
	}
	else if (ScanPosIsValid(so->mark))
	{
		kill_items(scan);
		release_pos(&so->curr);
		memcpy(&so->curr, &so->mark, offsetof(ScanPos, items) +
			   sizeof(ScanPosItem) * (so->mark.lastItem + 1));
		if (BufferIsValid(so->curr.buf))
			IncrBufferRefCount(so->curr.buf);
		tuplebuf_copy(&so->currTuples, &so->markTuples);
	}
	else
	{
		kill_items(scan);
		release_pos(&so->curr);
	}
}
