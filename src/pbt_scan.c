/*-------------------------------------------------------------------------
 *
 * pbt_scan.c
 *	  Index scans: the access method's entry points (amgettuple in both
 *	  directions, amgetbitmap, mark/restore, index-only scans) and
 *	  positioning a scan at its first match.
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
 * A parallel scan (Parallel Index [Only] Scan) shares its leaves among the
 * participants, one whole leaf at a time, through the state at the end of
 * this file; see pbt_parallel_seize.
 *
 * Scan keys, = ANY arrays and IS [NOT] NULL are prepared and evaluated in
 * pbt_scankey.c, leaf pages are read in pbt_readpage.c; pbt_scan.h holds
 * the scan state the three files share.
 *
 *-------------------------------------------------------------------------
 */
#include "pbt_scan.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "executor/instrument.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/*
 * A zeroed scan state but for its item arrays, which are written before
 * they are read: zeroing them too (some 80 kB) cost point lookups a few
 * percent of their time.
 */
static PbtScanOpaque
alloc_scan_opaque(void)
{
	PbtScanOpaque so = palloc(sizeof(PbtScanOpaqueData));
	char	   *base = (char *) so;

	StaticAssertStmt(offsetof(ScanPos, items) + sizeof(so->curr.items) +
					 MAXIMUM_ALIGNOF > sizeof(ScanPos),
					 "items must be ScanPos's last field");
	memset(base, 0, offsetof(PbtScanOpaqueData, curr.items));
	memset(base + offsetof(PbtScanOpaqueData, mark), 0,
		   offsetof(ScanPos, items));
	memset(base + offsetof(PbtScanOpaqueData, markItemIndex), 0,
		   offsetof(PbtScanOpaqueData, killed) -
		   offsetof(PbtScanOpaqueData, markItemIndex));
	memset(base + offsetof(PbtScanOpaqueData, currTuples), 0,
		   sizeof(PbtScanOpaqueData) - offsetof(PbtScanOpaqueData, currTuples));
	return so;
}

/*
 * The layout of index tuples whose columns all have fixed-width normalized
 * keys (int8, int4, date, timestamp, uuid, ...), without INCLUDE columns:
 * every such tuple without nulls has the same size and offsets, so
 * return_itup stores the values into the reused tuple straight from the
 * item's bytes (pbt_item_fixed).  With C-collated texts among them, or
 * INCLUDE columns, it lays out each tuple (pbt_item_tuple_data).
 */
static void
plan_itup_forming(PbtScanOpaque so)
{
	TupleDesc	desc = so->st->tupdesc;
	Size		off = 0;

	so->itup_fixed_size = 0;
	so->itup_varying = false;
	so->itup_varwidth = false;
	if (!pbt_keys_fixed_width(so->st))
	{
		/* (texts or INCLUDE values among them: the layout varies) */
		so->itup_varying = pbt_keys_formable(so->st);
		for (int i = 0; i < desc->natts; i++)
			if (TupleDescAttr(desc, i)->attlen == -1)
				so->itup_varwidth = true;
		return;
	}
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		Assert(att->attlen > 0);
		off = att_align_nominal(off, att->attalign);
		so->itup_fixed_off[i] = IndexInfoFindDataOffset(0) + off;
		off += att->attlen;
	}
	so->itup_fixed_size = MAXALIGN(IndexInfoFindDataOffset(0) + off);
}

IndexScanDesc
pbtbeginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	PbtScanOpaque so = alloc_scan_opaque();

	/*
	 * A private copy of the cached key state: rd_amcache may be freed by a
	 * relcache invalidation between calls, but what it points to lives in
	 * rd_indexcxt as long as the index is open.  Its columns only: the
	 * whole array (INDEX_MAX_KEYS) would cost a point lookup 2 kB to copy.
	 */
	so->st = pbt_copy_state(pbt_get_state(index));
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
	so->itup_tupoff = PBT_NO_TUPOFF;
	so->currTuples.size = so->markTuples.size = 1024;
	so->currTuples.data = palloc(so->currTuples.size);
	so->pf_distance = -1;
	initStringInfo(&so->pf_key);
	initStringInfo(&so->pf_array_source.keybuf);
	initStringInfo(&so->row_enc);
	/* the runs of the leaves read, in the scan's memory (pbt_run_read) */
	so->run.cap = 1024;
	so->run.items = palloc(so->run.cap);
	so->markTuples.data = palloc(so->markTuples.size);
	/* (and a skip scan's key: plan_skip) */
	if (nkeys > 0)
		so->keys = palloc0(sizeof(ScanKeyInfo) * (nkeys + 1));
	for (int i = 0; i < nkeys + (nkeys > 0); i++)
		initStringInfo(&so->keys[i].enc);
	scan->opaque = so;
	scan->xs_itupdesc = RelationGetDescr(index);
	plan_itup_forming(so);
	return scan;
}

void
pbtrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
		  ScanKey orderbys, int norderbys)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	pbt_readahead_stop(scan);
	kill_items(scan);
	release_pos(&so->curr);
	release_pos(&so->mark);
	so->markItemIndex = -1;
	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
	for (int i = 0; i < so->nkeys; i++)
		so->keys[i].required_fwd = so->keys[i].required_bwd = false;
	so->skip_off = so->skip_resume = false;
	memset(&so->walk, 0, sizeof(so->walk));
	pbt_preprocess_keys(scan);
	so->pass_key = so->mark_pass_key = NULL;
	so->pass_gave_up = NoMovementScanDirection;
	so->copy_items = scan->xs_want_itup;
	so->itup_tupoff = PBT_NO_TUPOFF;
	so->batch = RelationNeedsWAL(scan->indexRelation) ? SCAN_FIRST_BATCH : 0;

	/*
	 * A parallel scan hands out whole leaves: a participant that read part
	 * of one would have to come back to it while others read on.  It does
	 * not prefetch: its next leaf is whichever the shared state names when
	 * it gets there, and the participants together read ahead anyway.
	 * (parallel_scan is set only after ambeginscan, so decide here.)
	 */
	so->par = scan->parallel_scan != NULL;
	Assert(!so->par_seized && !so->par_release_due);
	so->par_seized = false;
	if (so->par)
	{
		so->batch = 0;
		so->pf_distance = 0;
	}
}

void
pbtendscan(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	pbt_readahead_stop(scan);
	kill_items(scan);
	release_pos(&so->curr);
	release_pos(&so->mark);
	if (BufferIsValid(so->sidebuf))
		ReleaseBuffer(so->sidebuf);
	pbt_run_free(&so->run);
	MemoryContextDelete(so->tupcxt);
	MemoryContextDelete(so->keycxt);
}

/*
 * Count an index scan for pg_stat_*_indexes (and, on 18, EXPLAIN ANALYZE's
 * "Index Searches") where btree's _bt_first does: once per positioning
 * (every array-key combination), and for keys that never match, except an
 * empty = ANY array, which btree turns away before.
 */
static inline void
count_index_scan(IndexScanDesc scan)
{
	pbt_count_index_search(scan);
}

/* the one array's last element in direction dir */
static inline int
pass_last_element(PbtScanOpaque so, ScanDirection dir)
{
	bool		desc = so->st->cols[so->keys[so->arrays[0].keyidx].col].desc;

	return desc == ScanDirectionIsForward(dir) ? 0 : so->arrays[0].nelems - 1;
}

/*
 * The range's bounds for the keys as encoded (with arrays: their current
 * elements), and what they make of the other keys.  Returns whether the
 * keys are a point lookup.
 */
static bool
set_bounds(PbtScanOpaque so)
{
	bool		strict;
	ScanKeyInfo *lowerbound;
	ScanKeyInfo *upperbound;
	/* after pbt_encode_key: per element */
	bool		point = so->pass_key == NULL && pbt_point_lookup(so);
	bool		pass_forward = ScanDirectionIsForward(so->pass_dir);

	for (int i = 0; i < so->nkeys; i++)
	{
		ScanKeyInfo *k = &so->keys[i];

		k->covered = k->nonnull_only = false;
		/* looking for a skip scan's next value: the skipped columns' keys */
		if (so->skip && !so->skip_known &&
			(k->col >= so->skip_cols || i == so->nkeys - 1))
			k->covered = true;
	}

	/*
	 * The range's bounds in index order.  A forward scan starts at the first
	 * item not below the lower key and stops at the first item not below the
	 * upper key; a backward scan the other way round.  Both are kept, since
	 * a scrollable cursor may change direction.  An array's pass spans its
	 * elements from pass_from to the last in its direction.
	 */
	if (so->pass_key)
		pbt_set_array_element(so, &so->arrays[0],
							  pass_forward ? so->pass_from :
							  pass_last_element(so, so->pass_dir));
	so->has_lower = pbt_build_boundary(so, true, &so->lowerkey, &so->lowerbuf,
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
	{
		if (so->pass_key)
			pbt_set_array_element(so, &so->arrays[0], pass_forward ?
								  pass_last_element(so, so->pass_dir) :
								  so->pass_from);
		so->has_upper = pbt_build_boundary(so, false, &so->upperkey, &so->upperbuf,
										   &strict, &upperbound);
	}
	so->upperkey.nextkey = !strict; /* "<= v" includes them */
	if (so->pass_key)
	{
		pbt_set_array_element(so, &so->arrays[0], so->arrays[0].cur);
		so->pass_key->covered = false;
	}

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
	/* (a row comparison is checked by pbt_check_item_keys, on each item) */
	so->keys_hold = so->inline_keys = so->st->normalized &&
		so->row_nmembers == 0;
	so->keys_batchable = so->narrays == 0 && so->row_nmembers == 0;
	for (int i = 0; i < so->nkeys; i++)
	{
		ScanKeyInfo *k = &so->keys[i];

		so->keys_hold &= k->covered || (k->nonnull_only && k->col == 0);
		so->keys_batchable &= k->covered || k->required_fwd || k->required_bwd;
		so->inline_keys &= k->covered || k->inline_check;
	}
	/* (check_keys_inline would compare the pass's key with one element) */
	so->inline_keys &= so->pass_key == NULL;
	pbt_plan_entry_filter(so);
	return point;
}

/* Position the scan at its first match in direction dir. */
static bool
scan_first(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	bool		forward = ScanDirectionIsForward(dir);
	bool		found;

	count_index_scan(scan);
	if (so->batch > 0)
		so->batch = SCAN_FIRST_BATCH;
	so->probing = set_bounds(so) && forward;

	if (so->par)
	{
		BlockNumber blkno;
		BlockNumber prev;

		switch (pbt_parallel_seize(scan, &blkno, &prev))
		{
			case PBT_PAR_DONE:
				return false;
			case PBT_PAR_IDLE:
				/* another participant positioned the scan: go on from there */
				found = pbt_read_shared(scan, dir, blkno, prev);
				/* (no position: the scan had ended there) */
				return found ||
					(ScanPosIsValid(so->curr) && pbt_read_on(scan, dir));
			case PBT_PAR_NOT_STARTED:
				break;			/* we position it, as a serial scan */
			case PBT_PAR_ADVANCING:
				Assert(false);	/* pbt_parallel_seize waits it out */
				break;
		}
	}

	if (so->skip_resume)
	{
		/* a skip scan that gave up reads on from the value it had found */
		so->skip_resume = false;
		found = pbt_read_from_key(scan, &so->resume_key, dir);
	}
	else if (forward ? so->has_lower : so->has_upper)
		found = pbt_read_from_key(scan, forward ? &so->lowerkey : &so->upperkey, dir);
	else
	{
		memset(&so->walk, 0, sizeof(so->walk));
		found = pbt_read_page(scan,
							  pbt_get_endpoint(scan->indexRelation, so->st, 0, !forward),
							  forward ? 0 : PBT_MAX_ITEMS_PER_PAGE, dir, NULL);
	}
	found = found || pbt_read_on(scan, dir);
	/*
	 * The leaf where a skip scan's value's range (its first element's)
	 * began, and an array element's
	 */
	if (so->skip && so->skip_known &&
		so->skip_steps.start_leaf == InvalidBlockNumber)
		so->skip_steps.start_leaf = so->curr.blkno;
	if (so->narrays > 0 && so->elem_steps.start_leaf == InvalidBlockNumber)
		so->elem_steps.start_leaf = so->curr.blkno;
	return found;
}

/* room for an index tuple of size bytes in the scan's buffer */
static void
reserve_itup(PbtScanOpaque so, Size size)
{
	if (size <= so->itup_cap)
		return;
	if (so->itup_buf)
		pfree(so->itup_buf);
	so->itup_cap = Max(size, 64);
	so->itup_buf = MemoryContextAlloc(GetMemoryChunkContext(so), so->itup_cap);
}

/*
 * index_form_tuple() into the scan's buffer: an index-only scan returns a
 * tuple per row, and a palloc and context reset for each cost a tenth of
 * its time.  Values it would detoast or compress (none that decoding
 * makes, short of very long strings; short-header values it copies as
 * they are, as heap_fill_tuple() does) take index_form_tuple() itself.
 */
static IndexTuple
form_itup_reusing(IndexScanDesc scan, Datum *values, bool *isnull)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	TupleDesc	desc = so->st->tupdesc;
	bool		hasnull = false;
	Size		hoff;
	Size		data_size;
	Size		size;
	uint16		tupmask = 0;
	IndexTuple	itup;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (isnull[i])
			hasnull = true;
		else if (att->attlen == -1 &&
				 (VARATT_IS_EXTERNAL(DatumGetPointer(values[i])) ||
				  (!VARATT_IS_EXTENDED(DatumGetPointer(values[i])) &&
				   VARSIZE(DatumGetPointer(values[i])) > TOAST_INDEX_TARGET)))
			return index_form_tuple(desc, values, isnull);
	}
	hoff = IndexInfoFindDataOffset(hasnull ? INDEX_NULL_MASK : 0);
	data_size = heap_compute_data_size(desc, values, isnull);
	size = MAXALIGN(hoff + data_size);
	if (size > INDEX_SIZE_MASK)
		return index_form_tuple(desc, values, isnull);
	reserve_itup(so, size);
	memset(so->itup_buf, 0, size);
	so->itup_fixed = false;
	itup = (IndexTuple) so->itup_buf;
	heap_fill_tuple(desc, values, isnull, so->itup_buf + hoff, data_size,
					&tupmask,
					hasnull ? (bits8 *) so->itup_buf + sizeof(IndexTupleData) : NULL);
	itup->t_info = size;
	if (hasnull)
		itup->t_info |= INDEX_NULL_MASK;
	if (tupmask & HEAP_HASVARWIDTH)
		itup->t_info |= INDEX_VAR_MASK;
	return itup;
}

/* equality of short byte strings, inline (memcmp is a call per row here) */
static inline bool
bytes_equal(const char *a, const char *b, int len)
{
	for (; len >= (int) sizeof(uint64); a += 8, b += 8, len -= 8)
	{
		uint64		x;
		uint64		y;

		memcpy(&x, a, sizeof(uint64));
		memcpy(&y, b, sizeof(uint64));
		if (x != y)
			return false;
	}
	while (len-- > 0)
		if (*a++ != *b++)
			return false;
	return true;
}

/*
 * The tuple of the item whose columns plan_itup_forming found a fixed layout
 * for, into the scan's buffer: header and padding once, then the values.
 * NULL if a column is NULL.
 */
static IndexTuple
form_fixed_itup(PbtScanOpaque so, const char *data, int len)
{
	if (!so->itup_fixed)
	{
		reserve_itup(so, so->itup_fixed_size);
		memset(so->itup_buf, 0, so->itup_fixed_size);
		((IndexTuple) so->itup_buf)->t_info = so->itup_fixed_size;
		so->itup_fixed = true;
	}
	if (!pbt_item_fixed(so->st, data, len, so->itup_buf, so->itup_fixed_off))
		return NULL;
	return (IndexTuple) so->itup_buf;
}

/*
 * The index tuple of an item whose layout varies (itup_varying), into the
 * scan's buffer; NULL if pbt_item_tuple_data cannot lay it out.
 */
static IndexTuple
form_varying_itup(PbtScanOpaque so, const char *data, int len)
{
	Size		hoff = IndexInfoFindDataOffset(0);
	IndexTuple	itup;
	int			dlen;
	Size		size;

	reserve_itup(so, MAXALIGN(hoff + len + 8 * so->st->natts));
	dlen = pbt_item_tuple_data(so->st, data, len, so->itup_buf + hoff);
	if (dlen < 0)
		return NULL;
	itup = (IndexTuple) so->itup_buf;
	size = MAXALIGN(hoff + dlen);
	for (Size i = hoff + dlen; i < size; i++)
		so->itup_buf[i] = 0;	/* (fewer than 8: no memset call) */
	ItemPointerSetInvalid(&itup->t_tid);
	itup->t_info = size;
	if (so->itup_varwidth)
		itup->t_info |= INDEX_VAR_MASK;
	return itup;
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
		/* the executor trusts its lengths, which come from the page */
		pbt_decode_item(so->st, data, pi->tuplen, values, isnull);
		scan->xs_itup = (IndexTuple) data;
		return;
	}

	/*
	 * The entries of one key (a posting or lists leaf's, or any run of
	 * duplicates) differ only in the heap TID, which the executor takes from
	 * xs_heaptid: the tuple formed for the first serves them all.
	 */
	if (!so->st->has_include)
	{
		int			keylen = pi->tuplen - PBT_TID_BYTES;
		bool		same;

		/* the last row's bytes stay in currTuples for the whole batch */
		same = so->itup_tupoff != PBT_NO_TUPOFF &&
			keylen == so->itup_keylen &&
			bytes_equal(data, so->currTuples.data + so->itup_tupoff, keylen);
		so->itup_tupoff = pi->tupoff;
		so->itup_keylen = keylen;
		if (same)
			return;
	}

	/* tuples formed in place; rows with NULLs take the general path */
	if (so->itup_fixed_size > 0 || so->itup_varying)
	{
		IndexTuple	itup;

		if (so->itup_varying)
			itup = form_varying_itup(so, data, pi->tuplen);
		else
			itup = form_fixed_itup(so, data, pi->tuplen);
		if (itup != NULL)
		{
			so->itup_tupoff = pi->tupoff;
			scan->xs_itup = itup;
			return;
		}
	}
	/* (nothing to free when the last row's decoding allocated nothing) */
	if (!so->tupcxt->isReset)
		MemoryContextReset(so->tupcxt);
	oldcxt = MemoryContextSwitchTo(so->tupcxt);
	pbt_decode_item(so->st, data, pi->tuplen, values, isnull);
	scan->xs_itup = form_itup_reusing(scan, values, isnull);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * A TID of the current page whose offset is past max_offset is damage: the
 * heap would skip it as a dead row (a row missing from the result), and a
 * bitmap would fail without naming the index.  Table access methods other
 * than heap may use offsets up to MaxOffsetNumber; bitmaps hold at most
 * MaxHeapTuplesPerPage.
 */
static inline void
check_heap_tid(IndexScanDesc scan, ItemPointer tid, OffsetNumber max_offset)
{
	pbt_check_heap_tid(scan->indexRelation,
					   ((PbtScanOpaque) scan->opaque)->curr.blkno, tid, max_offset);
}

/* Hand the batch's item at index to the executor. */
static inline void
return_item(IndexScanDesc scan, PbtScanOpaque so, int index)
{
	ScanPosItem *pi = &so->curr.items[index];

	check_heap_tid(scan, &pi->tid, MaxOffsetNumber);
	scan->xs_heaptid = pi->tid;
	/* the entries of a one-key page share their bytes (read_page_ordered) */
	if (scan->xs_want_itup && pi->tupoff != so->itup_tupoff)
		return_itup(scan, pi);
}

/*
 * A forward scan of one = ANY array moved to its next element: keep the
 * leaves of the elements after it requested ahead, once the scan has read
 * blocks from disk (with every leaf in shared buffers, locating them would
 * only cost time).
 */
static void
prefetch_array_leaves(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	if (so->narrays != 1 || !so->st->normalized || so->skip ||
		!ScanDirectionIsForward(dir) || pbt_scan_pf_distance(scan) == 0)
		return;
	if (!so->pf_array_on)
	{
		PbtArraySource *src = &so->pf_array_source;
		ArrayKeyInfo *ak = &so->arrays[0];
		Buffer		root;
		int			levels;

		if (pgBufferUsage.shared_blks_read + pgBufferUsage.local_blks_read ==
			so->pf_array_reads && !pbt_prefetch_arrays_always)
			return;
		root = pbt_get_root(scan->indexRelation, so->st, BUFFER_LOCK_SHARE);
		levels = PbtPageGetOpaque(BufferGetPage(root))->level;
		UnlockReleaseBuffer(root);
		if (levels == 0)
			return;
		so->pf_array_on = true;
		src->next_elem = ak->cur +
			(so->st->cols[so->keys[ak->keyidx].col].desc ? -1 : 1);
		src->last = InvalidBlockNumber;
		src->nleaves = src->next = 0;
		pbt_prefetch_init(&so->pf_array, scan->indexRelation, so->st,
						  so->pf_distance, pbt_array_source_next, scan);
	}
	pbt_prefetch_advance(&so->pf_array);
}

/*
 * Ranges read one after another that lie on the same leaves (a skip scan's
 * values with few entries each, an array's elements close together) cost
 * a descent or two each where reading on would cost nothing.  After a
 * trial of PBT_RANGE_TRIAL ranges, if more than half began on the leaf
 * where the range before ended (no leaf skipped), the scan reads on: a
 * skip scan gives up (give_up_skipping) and an array reads its remaining
 * elements in one pass (start_array_pass).
 *
 * A range was read from leaf start to leaf end: count the step to it.
 */
static void
count_range_step(PbtRangeSteps *steps, BlockNumber start, BlockNumber end)
{
	if (steps->end_leaf != InvalidBlockNumber)
	{
		steps->ranges++;
		steps->dense += start == steps->end_leaf;
	}
	steps->end_leaf = end;
	steps->start_leaf = InvalidBlockNumber;
}

static bool
ranges_dense(const PbtRangeSteps *steps, int trial)
{
	return steps->ranges >= trial && 2 * steps->dense > steps->ranges;
}

/*
 * A mark holds (a merge join's inner scan): restoring it must find the keys
 * and bounds it was set under
 */
static inline bool
mark_held(PbtScanOpaque so)
{
	return ScanPosIsValid(so->mark) || so->markItemIndex >= 0;
}

/* a search key of a skip key's value: the skipped columns alone */
static void
value_key(PbtScanOpaque so, ScanKeyInfo *skip, bool nextkey, PbtSearchKey *key)
{
	key->bytes = skip->enc.data;
	key->len = skip->enc.len;
	key->nattrs = 0;
	if (!so->st->normalized)
		pbt_skip_value_columns(so, key);
	key->has_tid = false;
	key->nextkey = nextkey;
}

/* The keys classified again without the skip key, for the rest of the scan */
static void
stop_skipping(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	for (int i = 0; i < so->nkeys; i++)
		so->keys[i].required_fwd = so->keys[i].required_bwd = false;
	/* the keys' arguments as given, which arrays' elements replaced */
	for (int i = 0; i < so->narrays; i++)
		so->keys[so->arrays[i].keyidx].sk->sk_argument = so->arrays[i].array;
	for (int i = 0; i < so->nkeys; i++)
		if (so->keys[i].filter)
			so->keys[i].sk->sk_argument = so->keys[i].filter->array;
	so->skip_off = true;
	pbt_preprocess_keys(scan);
	Assert(!so->skip);
}

/*
 * A skip scan gives up: it reads on from the value just found (the next
 * scan_first), with the keys as they were (plan_skip declines for the rest
 * of the scan).
 */
static void
give_up_skipping(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	ScanKeyInfo *skip = &so->keys[so->nkeys - 1];

	elog(DEBUG2, "pagebtree: skip scan of \"%s\" found the ranges of %d of %d values beginning on the leaf where the one before ended, and reads on without skipping",
		 RelationGetRelationName(scan->indexRelation), so->skip_steps.dense,
		 so->skip_steps.ranges);
	stop_skipping(scan);
	/*
	 * Forward from the value's first entry, backward from its last (skip:
	 * the skip key's slot, past the keys now, keeps its value)
	 */
	value_key(so, skip, ScanDirectionIsBackward(dir), &so->resume_key);
	so->skip_resume = true;
}

/*
 * A skip scan (plan_skip in pbt_scankey.c) moves on to the next value of
 * the first column in direction dir, or to its first (first): the first
 * entry that a scan with the first column's keys alone finds from past the
 * current value (in index order: not a bitmap scan's page order).  Its
 * value becomes the skip key's.  False if there is none.  Leaves no
 * position.
 */
static bool
skip_to_next_value(IndexScanDesc scan, ScanDirection dir, bool first)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	ScanKeyInfo *skip = &so->keys[so->nkeys - 1];
	bool		bitmap = so->bitmap;
	bool		found;

	Assert(so->skip && !ScanPosIsValid(so->curr));
	/* (the range just read ended where the position was) */
	if (first)
		so->skip_steps.end_leaf = InvalidBlockNumber;
	else if (so->skip_steps.start_leaf != InvalidBlockNumber)
		count_range_step(&so->skip_steps, so->skip_steps.start_leaf,
						 so->curr.blkno);
	so->skip_steps.start_leaf = InvalidBlockNumber;
	pbt_skip_value_known(so, false);
	so->copy_items = true;
	so->bitmap = false;
	/* one entry is all it needs (batches double from there if it is dead) */
	if (so->batch > 0)
		so->batch = 1;
	if (first)
		found = scan_first(scan, dir);
	else
	{
		PbtSearchKey key;

		/* forward, past the value's entries; backward, before them */
		value_key(so, skip, ScanDirectionIsForward(dir), &key);
		count_index_scan(scan);
		(void) set_bounds(so);
		so->probing = false;
		found = pbt_read_from_key(scan, &key, dir) ||
			(ScanPosIsValid(so->curr) && pbt_read_on(scan, dir));
	}
	so->copy_items = scan->xs_want_itup;
	so->bitmap = bitmap;
	if (found)
	{
		ScanPosItem *pi = &so->curr.items[so->curr.itemIndex];

		pbt_set_skip_value(so, so->currTuples.data + pi->tupoff, pi->tuplen);
	}
	/* nothing of that read was returned: nothing to kill */
	Assert(so->nkilled == 0);
	pbt_readahead_stop(scan);
	release_pos(&so->curr);
	so->defer_left = 0;
	/*
	 * Not while a mark holds (a merge join's inner scan): restoring it must
	 * find the skip key and the bounds it was set under, whose batch ended
	 * with the value's range
	 */
	if (found && ranges_dense(&so->skip_steps, PBT_RANGE_TRIAL) &&
		!mark_held(so))
		give_up_skipping(scan, dir);
	return found;
}

/*
 * The one array's elements from cur on come close together: read them in
 * one range (set_bounds), checking each item against them (array_pass_has
 * in pbt_scankey.c), instead of a descent and a range per element.  Not
 * while a mark holds.
 */
static bool
start_array_pass(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	if (!ranges_dense(&so->elem_steps, so->pass_trial) ||
		so->par || mark_held(so) || !pbt_array_pass_ok(so))
		return false;
	elog(DEBUG2, "pagebtree: scan of \"%s\" found the ranges of %d of %d array elements beginning on the leaf where the one before ended, and reads the other %d in one pass",
		 RelationGetRelationName(scan->indexRelation), so->elem_steps.dense,
		 so->elem_steps.ranges,
		 abs(pass_last_element(so, dir) - so->arrays[0].cur) + 1);
	pbt_start_array_pass(so, dir);
	return true;
}

/*
 * An array's pass has read its range in direction dir.  True if it gave up
 * that way (pass_gave_up): the elements from cur on are read one by one
 * again.  Else the elements it covered that way are done: cur goes to the
 * last of them for pbt_advance_arrays to move on from (a scrollable cursor
 * that turned ends the range at pass_from).
 */
static bool
end_array_pass(PbtScanOpaque so, ScanDirection dir)
{
	ArrayKeyInfo *ak = &so->arrays[0];
	bool		aborted = so->pass_gave_up == dir;

	if (aborted)
		so->pass_trial = Min(so->pass_trial, PG_INT32_MAX / 2) * 2;
	else
		ak->cur = dir == so->pass_dir ? pass_last_element(so, dir) :
			so->pass_from;
	so->pass_key = NULL;
	so->pass_gave_up = NoMovementScanDirection;
	pbt_range_steps_reset(&so->elem_steps);
	pbt_set_array_element(so, ak, ak->cur);
	return aborted;
}

/*
 * The next range a scan reads once one is done: the arrays' next element
 * combination, else (the arrays back at their first) a skip scan's next
 * value.  False at the end.
 */
static bool
next_range(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	if (so->pass_key)
	{
		if (end_array_pass(so, dir))
			return true;
	}
	else if (so->elem_steps.start_leaf != InvalidBlockNumber)
		count_range_step(&so->elem_steps, so->elem_steps.start_leaf,
						 so->curr.blkno);
	if (so->narrays > 0 && pbt_advance_arrays(so, dir))
	{
		if (!start_array_pass(scan, dir))
			prefetch_array_leaves(scan, dir);
		return true;
	}
	return so->skip && skip_to_next_value(scan, dir, false);
}

/*
 * First or next match, moving on through array key combinations and a skip
 * scan's values
 */
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
		{
			if (so->skip && !so->skip_known &&
				!skip_to_next_value(scan, dir, true))
				return false;
			found = scan_first(scan, dir);
		}
		else
			found = pbt_read_on(scan, dir);
		if (found)
			return true;
		if (!next_range(scan, dir))
			return false;
	}
}

/*
 * Take a parallel scan not yet started for ourselves alone, leaving the
 * others a finished one.  False if another participant started it.
 */
static bool
claim_whole_scan(IndexScanDesc scan)
{
	PbtParallelScan ps = PbtParallelScanAmState(scan->parallel_scan);
	bool		claimed;

	SpinLockAcquire(&ps->mutex);
	claimed = ps->status == PBT_PAR_NOT_STARTED;
	if (claimed)
		ps->status = PBT_PAR_DONE;
	SpinLockRelease(&ps->mutex);
	return claimed;
}

/* the leaf where a descent to a bound of the current range ends */
static BlockNumber
bound_leaf(IndexScanDesc scan, PbtSearchKey *key)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	Buffer		buf;
	BlockNumber blkno;

	pbt_free_stack(pbt_search_leaf(scan->indexRelation, so->st, key, &buf,
								   BUFFER_LOCK_SHARE));
	blkno = BufferGetBlockNumber(buf);
	UnlockReleaseBuffer(buf);
	return blkno;
}

/*
 * A parallel skip scan, before it reads anything.  Each participant runs
 * the trial of giving up over the first values on its own, as a serial
 * scan that reads no range: the leaves where each value's range would
 * begin and end are those its bounds descend to.  Where skipping pays, the
 * first participant does the whole skip scan as a serial scan and the
 * others find it done, as with arrays.  Otherwise, or if the others have
 * begun to share the leaves, it reads every entry with them, which a skip
 * scan that gives up would read alone.
 */
static void
start_parallel_skip(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	bool		forward = ScanDirectionIsForward(dir);
	bool		found;

	so->par = false;
	pbt_start_arrays(so, dir);
	found = skip_to_next_value(scan, dir, true);
	while (found && !so->skip_off && so->skip_steps.ranges < PBT_RANGE_TRIAL)
	{
		BlockNumber start;

		(void) set_bounds(so);
		Assert(so->has_lower && so->has_upper);	/* the skip key positions */
		start = bound_leaf(scan, forward ? &so->lowerkey : &so->upperkey);
		count_range_step(&so->skip_steps, start,
						 bound_leaf(scan, forward ? &so->upperkey : &so->lowerkey));
		if (so->skip_steps.ranges < PBT_RANGE_TRIAL)
			found = skip_to_next_value(scan, dir, false);
	}
	if (!so->skip_off && !ranges_dense(&so->skip_steps, PBT_RANGE_TRIAL))
	{
		pbt_skip_value_known(so, false);
		pbt_range_steps_reset(&so->skip_steps);
		if (claim_whole_scan(scan))
			return;
	}
	if (!so->skip_off)
		stop_skipping(scan);
	/* from the first leaf, with the others */
	so->skip_resume = false;
	so->par = true;
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
	{
		if (so->par && so->skip)
			start_parallel_skip(scan, dir);

		/*
		 * A parallel scan with = ANY arrays: the first participant does the
		 * whole scan, every element, as a serial scan; the others find it
		 * done.  Sharing each element's leaves would need the participants
		 * to agree on the element too (nbtree keeps a shared array-key
		 * counter for that); see docs/decisions.md.
		 */
		if (so->par && so->narrays > 0)
		{
			if (!claim_whole_scan(scan))
				return false;
			so->par = false;
		}
		pbt_start_arrays(so, dir);
	}
	/* the rest of a one-key leaf that the batch left to decode */
	if (ScanDirectionIsForward(dir) && so->defer_left > 0 &&
		ScanPosIsValid(so->curr))
	{
		Assert(so->curr.itemIndex == so->curr.lastItem);
		while (so->defer_left > 0)
			if (pbt_decode_more(scan))
			{
				return_item(scan, so, ++so->curr.itemIndex);
				return true;
			}
	}
	if (!scan_advance(scan, dir))
		return false;
	/* a participant never keeps the shared scan while returning tuples */
	Assert(!so->par_seized);
	return_item(scan, so, so->curr.itemIndex);
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
		/* (the index from a register: the store does not alias the item) */
		int			index = pos->itemIndex + (ScanDirectionIsForward(dir) ? 1 : -1);

		pos->itemIndex = index;
		return_item(scan, so, index);
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
	pbt_start_arrays(so, ForwardScanDirection);
	if (so->skip && !skip_to_next_value(scan, ForwardScanDirection, true))
		return 0;
	for (;;)
	{
		bool		found = scan_first(scan, ForwardScanDirection);

		while (found)
		{
			for (int i = so->curr.firstItem; i <= so->curr.lastItem; i++)
			{
				check_heap_tid(scan, &so->curr.items[i].tid, MaxHeapTuplesPerPage);
				tbm_add_tuples(tbm, &so->curr.items[i].tid, 1, false);
			}
			ntids += so->curr.lastItem - so->curr.firstItem + 1;
			found = pbt_read_on(scan, ForwardScanDirection);
		}
		if (!next_range(scan, ForwardScanDirection))
			break;
	}
	/* no leaf stays pinned ahead once the executor has the bitmap */
	pbt_readahead_stop(scan);
	Assert(!so->ra_on);
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
	/* (a pass's cur is where its batch's checks left it, as they left it) */
	so->mark_pass_key = so->pass_key;
	so->mark_pass_dir = so->pass_dir;
	so->mark_pass_from = so->pass_from;
	if (so->skip)
	{
		StringInfo	value = &so->keys[so->nkeys - 1].enc;

		if (so->skip_mark.data == NULL)
			initStringInfo(&so->skip_mark);
		resetStringInfo(&so->skip_mark);
		appendBinaryStringInfo(&so->skip_mark, value->data, value->len);
		so->skip_mark_known = so->skip_known;
	}
}

void
pbtrestrpos(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	bool		elements_moved = false;

	for (int i = 0; i < so->narrays; i++)
	{
		ArrayKeyInfo *ak = &so->arrays[i];

		elements_moved |= ak->cur != ak->mark;
		ak->cur = ak->mark;
		pbt_set_array_element(so, ak, ak->cur);
	}
	elements_moved |= so->pass_key != so->mark_pass_key ||
		(so->pass_key && so->pass_from != so->mark_pass_from);
	so->pass_key = so->mark_pass_key;
	so->pass_dir = so->mark_pass_dir;
	so->pass_from = so->mark_pass_from;
	so->pass_gave_up = NoMovementScanDirection;
	if (so->skip && so->skip_mark.data != NULL)
	{
		ScanKeyInfo *skip = &so->keys[so->nkeys - 1];

		elements_moved |= so->skip_known != so->skip_mark_known ||
			skip->enc.len != so->skip_mark.len ||
			memcmp(skip->enc.data, so->skip_mark.data, skip->enc.len) != 0;
		resetStringInfo(&skip->enc);
		appendBinaryStringInfo(&skip->enc, so->skip_mark.data,
							   so->skip_mark.len);
		pbt_skip_value_known(so, so->skip_mark_known);
	}

	/*
	 * The marked position reads on within its elements' bounds, not those
	 * of the elements the scan had reached (a merge join's inner scan,
	 * restored to a mark from an earlier element)
	 */
	if (elements_moved)
	{
		set_bounds(so);
		so->probing = false;
	}
	if (so->markItemIndex >= 0)
	{
		/* the mark is on the current page */
		so->curr.itemIndex = so->markItemIndex;
	}
	else
	{
		/* the scan reads on from the mark's leaf, or from nowhere */
		pbt_readahead_stop(scan);
		kill_items(scan);
		release_pos(&so->curr);
		/* (and meets the leaves after it again: a new walk) */
		memset(&so->walk, 0, sizeof(so->walk));
		if (ScanPosIsValid(so->mark))
		{
			memcpy(&so->curr, &so->mark, offsetof(ScanPos, items) +
				   sizeof(ScanPosItem) * (so->mark.lastItem + 1));
			so->defer_left = 0; /* (the mark was saved whole) */
			if (BufferIsValid(so->curr.buf))
				IncrBufferRefCount(so->curr.buf);
			tuplebuf_copy(&so->currTuples, &so->markTuples);
			so->itup_tupoff = PBT_NO_TUPOFF;
		}
	}
}

/*
 * Parallel scans.
 *
 * The participants (the leader and the workers of a Gather or Gather
 * Merge) share one PbtParallelScanData in the DSM, as nbtree shares its
 * BTParallelScanDescData: a spinlock over a status and the next leaf, and
 * a condition variable to wait on while one of them advances.  Every
 * participant positions itself (scan_first computes the keys and bounds,
 * which are per backend); the first to seize the scan while it has not
 * started descends to the first leaf, as a serial scan does, and the
 * others go on from where the shared state says.  Reading a leaf
 * publishes its right-link (forward) or itself and its left-link
 * (backward) as soon as the leaf is share-locked (begin_page in
 * pbt_readpage.c), so the next participant reads on while this one
 * decodes and returns its leaf's items.  A participant that finds the
 * scan's end (no more leaves, or an item past the end key) marks it done.
 */

Size
pbtestimateparallelscan(PBT_ESTIMATE_PARALLEL_ARGS)
{
	return add_size(offsetof(PbtParallelScanData, resume), PBT_MAX_ITEM_SIZE);
}

void
pbtinitparallelscan(void *target)
{
	PbtParallelScan ps = (PbtParallelScan) target;

	SpinLockInit(&ps->mutex);
	ps->status = PBT_PAR_NOT_STARTED;
	ps->blkno = InvalidBlockNumber;
	ps->prev = InvalidBlockNumber;
	ConditionVariableInit(&ps->cv);
	ps->gstart = InvalidBlockNumber;
}

/*
 * Reset the shared state for a rescan.  The executor calls this with no
 * participant scanning (workers are started afresh for the rescan).
 */
void
pbtparallelrescan(IndexScanDesc scan)
{
	PbtParallelScan ps = PbtParallelScanAmState(scan->parallel_scan);

	SpinLockAcquire(&ps->mutex);
	ps->status = PBT_PAR_NOT_STARTED;
	ps->blkno = InvalidBlockNumber;
	ps->prev = InvalidBlockNumber;
	ps->gstart = InvalidBlockNumber;
	SpinLockRelease(&ps->mutex);
}

/*
 * Seize the parallel scan to read its next leaf, waiting while another
 * participant advances it.  NOT_STARTED: the caller positions the scan
 * (descends); IDLE: it reads from *blkno (and *prev, backward); both leave
 * the scan ADVANCING and the caller holding it until pbt_parallel_release
 * or pbt_parallel_done.  DONE: nothing is left to read.
 */
PbtParallelStatus
pbt_parallel_seize(IndexScanDesc scan, BlockNumber *blkno, BlockNumber *prev)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtParallelScan ps = PbtParallelScanAmState(scan->parallel_scan);
	PbtParallelStatus status;

	Assert(so->par && !so->par_seized);
	for (;;)
	{
		SpinLockAcquire(&ps->mutex);
		status = ps->status;
		if (status == PBT_PAR_NOT_STARTED || status == PBT_PAR_IDLE)
		{
			*blkno = ps->blkno;
			*prev = ps->prev;
			ps->status = PBT_PAR_ADVANCING;
		}
		SpinLockRelease(&ps->mutex);
		if (status != PBT_PAR_ADVANCING)
			break;
		/* (nbtree's wait event: extensions on 15 cannot name their own) */
		ConditionVariableSleep(&ps->cv, WAIT_EVENT_BTREE_PAGE);
	}
	ConditionVariableCancelSleep();
	so->par_seized = status != PBT_PAR_DONE;
	Assert(status != PBT_PAR_IDLE || BlockNumberIsValid(*blkno));
	return status;
}

/*
 * The seizing participant has the next leaf locked: publish where the scan
 * goes on after it (see PbtParallelScanData), with the leaf's group and
 * resume key (so->curr) if it is a subnode, or that it ends there (!more:
 * the leaf is the last in the scan's direction), and let the next
 * participant in.
 */
void
pbt_parallel_release(IndexScanDesc scan, BlockNumber blkno, BlockNumber prev,
					 bool more, const char *resume, int resume_len)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtParallelScan ps = PbtParallelScanAmState(scan->parallel_scan);
	bool		done;

	Assert(so->par_seized);
	Assert(!more || BlockNumberIsValid(blkno));
	Assert(resume_len >= 0 && resume_len <= PBT_MAX_ITEM_SIZE);
	ps->gstart = so->curr.gstart;
	ps->gsize = so->curr.gsize;
	ps->epoch = so->curr.epoch;
	ps->resume_len = resume_len;
	if (resume_len > 0)
		memcpy(ps->resume, resume, resume_len);
	SpinLockAcquire(&ps->mutex);
	/* (a participant that found the end may have marked it done already) */
	if (ps->status != PBT_PAR_DONE)
	{
		Assert(ps->status == PBT_PAR_ADVANCING);
		ps->status = more ? PBT_PAR_IDLE : PBT_PAR_DONE;
		ps->blkno = blkno;
		ps->prev = prev;
	}
	done = ps->status == PBT_PAR_DONE;
	SpinLockRelease(&ps->mutex);
	so->par_seized = false;
	if (done)
		ConditionVariableBroadcast(&ps->cv);
	else
		ConditionVariableSignal(&ps->cv);
}

/*
 * The scan has ended for every participant: nothing in its direction past
 * what this one read can match.  The caller need not hold it.
 */
void
pbt_parallel_done(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtParallelScan ps = PbtParallelScanAmState(scan->parallel_scan);
	bool		changed;

	SpinLockAcquire(&ps->mutex);
	changed = ps->status != PBT_PAR_DONE;
	ps->status = PBT_PAR_DONE;
	SpinLockRelease(&ps->mutex);
	so->par_seized = false;
	if (changed)
		ConditionVariableBroadcast(&ps->cv);
}
