/*-------------------------------------------------------------------------
 *
 * pbt_readpage.c
 *	  Index scans: reading a leaf page's matching items into the scan,
 *	  moving on to the next batch or page, and hinting dead entries.
 *
 * A leaf is read under a share lock into backend-local memory (so->curr),
 * a batch at a time or whole (see pbt_scan.c); then the lock goes, and the
 * pin too when that is safe (done_with_page).  A forward point lookup reads
 * through the layout's equality probe, or by comparing bytes with its key;
 * a bitmap scan reads a leaf whose layout keeps its items unsorted in the
 * order they are stored; other reads go in key order in either direction.
 *
 *-------------------------------------------------------------------------
 */
#include "pbt_scan.h"
#include "pbt_group.h"

#include "miscadmin.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/rel.h"

static inline void save_item(IndexScanDesc scan, int slot, int pos,
							 const char *item, int len);
static inline uint32 copy_to_tuplebuf(PbtScanOpaque so, const char *item,
									   int len);

/* a run entry the batch covers, and the page position it sorts at */
typedef struct RunMatch
{
	const PbtItem *item;
	int			pos;
} RunMatch;

/*
 * Could the read of a page return a run entry: is it on the far side of
 * so->run_from (the key the read starts at; NULL: the page's edge) and
 * within the scan's bounds?  (pbt_run_read_filtered's filter: most of a
 * run fails it, and is neither kept nor merged.)
 */
static inline int
run_entry_cmp(PbtState *st, PbtSearchKey *key, const char *head, int headlen,
			  const char *tail, int len)
{
	return st->normalized ?
		pbt_compare_parts(st, key, head, headlen, tail, len) :
		pbt_compare(st, key, tail, len);
}

static bool
run_entry_in_range(void *arg, const char *head, int headlen,
				   const char *tail, int len)
{
	PbtScanOpaque so = (PbtScanOpaque) arg;
	PbtState   *st = so->st;
	PbtSearchKey *from = so->run_from;
	int			c;

	/* (the upper bound first: a forward point lookup's entries fail early) */
	if (so->has_upper &&
		run_entry_cmp(st, &so->upperkey, head, headlen, tail, len) <= 0)
		return false;
	if (from)
	{
		c = run_entry_cmp(st, from, head, headlen, tail, len);
		if (ScanDirectionIsForward(so->run_dir) ? c > 0 : c <= 0)
		{
			/* a cursor that turns comes back to it (read_page_ordered) */
			so->run_behind = true;
			return false;
		}
	}
	return !(so->has_lower &&
			 run_entry_cmp(st, &so->lowerkey, head, headlen, tail, len) > 0);
}

/*
 * run_entry_in_range for a forward point lookup of normalized keys, read
 * from its key or a page's edge: both bounds are the key's bytes, so an
 * entry is in range when it starts with them (one comparison, not three).
 */
static bool
run_entry_is_point_match(void *arg, const char *head, int headlen,
						 const char *tail, int len)
{
	PbtSearchKey *key = &((PbtScanOpaque) arg)->lowerkey;
	int			h = Min(headlen, key->len);

	Assert(!key->nextkey);
	return len >= key->len && memcmp(key->bytes, head, h) == 0 &&
		memcmp(key->bytes + h, tail, key->len - h) == 0;
}

/*
 * Is a run entry in range (run_entry_in_range, checked as the run was read)
 * in the key range the batch just read covers?  That range runs from
 * so->run_from to the last item the batch examined if more follow on the
 * page, else to the page's edge.  A continuation starts from that item, so
 * no entry is returned twice.
 */
static bool
run_entry_in_batch(PbtScanOpaque so, const PbtItem *r)
{
	PbtState   *st = so->st;
	bool		forward = ScanDirectionIsForward(so->run_dir);
	bool		continuescan;

	/* (an array's pass that gave up reads on from where it did) */
	if ((forward ? so->curr.restRight : so->curr.restLeft) ||
		so->pass_gave_up == so->run_dir)
	{
		int			b = forward ? 1 : 0;
		PbtItem		limit = {so->currTuples.data + so->curr.boundOff[b],
		so->curr.boundLen[b]};
		int			c = pbt_item_cmp(st, r, &limit);

		if (forward ? c > 0 : c < 0)
			return false;
	}
	return pbt_check_item_keys(so, r->data, r->len, so->run_dir, &continuescan);
}

/*
 * A batch's bound on the side it started from must cover the run entries
 * merged there (edge: the lowest forward, the highest backward): a cursor
 * that turns reads on from that bound, and would return them again.  A
 * batch that examined no item has no bound there yet (length -1).
 */
static void
cover_merged(PbtScanOpaque so, const PbtItem *edge)
{
	bool		forward = ScanDirectionIsForward(so->run_dir);
	int			b = forward ? 0 : 1;
	PbtItem		bound;

	if (!(forward ? so->curr.restLeft : so->curr.restRight))
		return;
	bound.data = so->currTuples.data + so->curr.boundOff[b];
	bound.len = so->curr.boundLen[b];
	if (bound.len >= 0)
	{
		int			c = pbt_item_cmp(so->st, edge, &bound);

		if (forward ? c >= 0 : c <= 0)
			return;
	}
	so->curr.boundOff[b] = copy_to_tuplebuf(so, edge->data, edge->len);
	so->curr.boundLen[b] = edge->len;
}

/*
 * Merge the entries of the page's run (so->run) that the batch covers into
 * it, where they sort among the page's items (by their positions; the
 * share-locked page is at hand).  A bitmap scan takes them in any order.
 * Returns the lowest entry merged (valid until the next page's run is
 * read), or NULL.
 */
static const PbtItem *
merge_run(IndexScanDesc scan, Page page)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtState   *st = so->st;
	bool		within_end = so->batch_within_end;
	RunMatch   *match = palloc(sizeof(RunMatch) * so->run.n);
	int			nmatch = 0;
	const PbtItem *lowest = NULL;

	/*
	 * The end key is checked for each entry: they are not in the batch; nor
	 * in order with its items, which an array's pass must know
	 */
	so->batch_within_end = false;
	so->pass_unordered = true;
	for (int j = 0; j < so->run.n; j++)
	{
		PbtItem    *r = &so->run.items[j];
		PbtSearchKey key;
		int			m;

		if (!run_entry_in_batch(so, r))
			continue;
		pbt_key_from_item(st, r->data, r->len, &key);
		m = nmatch++;
		match[m].item = r;
		match[m].pos = so->bitmap ? 0 : pbt_binsearch(st, page, &key);
		/* in order: by position, then key (few entries, mostly in order) */
		for (; m > 0 && (match[m - 1].pos > match[m].pos ||
						 (match[m - 1].pos == match[m].pos &&
						  pbt_item_cmp(st, match[m - 1].item, match[m].item) > 0)); m--)
		{
			RunMatch	t = match[m];

			match[m] = match[m - 1];
			match[m - 1] = t;
		}
	}
	so->batch_within_end = within_end;
	so->pass_unordered = false;
	if (nmatch > 0)
	{
		ScanPosItem *items = so->curr.items;
		int			n = so->curr.lastItem - so->curr.firstItem + 1;
		int			i = n - 1;
		int			w = n + nmatch - 1;

		/* merged in place from the end: the batch's items move once */
		Assert(w < PBT_MAX_BATCH_ITEMS - 1);
		if (so->curr.firstItem > 0)
			memmove(items, items + so->curr.firstItem, sizeof(ScanPosItem) * n);
		for (int j = nmatch - 1; j >= 0; j--)
		{
			ScanPosItem *entry = &items[PBT_MAX_BATCH_ITEMS - 1];

			save_item(scan, PBT_MAX_BATCH_ITEMS - 1, PG_UINT16_MAX,
					  match[j].item->data, match[j].item->len);
			/*
			 * the batch's items after it (a probe's have no position: all
			 * are the key, in heap TID order)
			 */
			while (i >= 0 && (items[i].pos == PG_UINT16_MAX ?
							  ItemPointerCompare(&items[i].tid, &entry->tid) > 0 :
							  items[i].pos >= match[j].pos))
				items[w--] = items[i--];
			items[w--] = *entry;
		}
		Assert(w == i);
		so->curr.firstItem = 0;
		so->curr.lastItem = n + nmatch - 1;
		so->curr.itemIndex = ScanDirectionIsForward(so->run_dir) ?
			0 : so->curr.lastItem;
		if (!so->bitmap)
		{
			lowest = match[0].item;
			cover_merged(so, ScanDirectionIsForward(so->run_dir) ?
						 lowest : match[nmatch - 1].item);
		}
	}
	pfree(match);
	so->run.n = 0;				/* (its memory serves the next page) */
	return lowest;
}

/*
 * Whether a scan keeps the pin on the leaf whose batch it returns, as
 * btree's do: what an index-only or a non-MVCC scan reads must not be
 * removed by VACUUM (whose cleanup lock waits for the pin) before the scan
 * has used it.  A plain MVCC scan need not: a TID that VACUUM frees and an
 * insert reuses leads to a tuple its snapshot cannot see.
 */
static inline bool
scan_keeps_pin(IndexScanDesc scan)
{
	return !IsMVCCSnapshot(scan->xs_snapshot) ||
		!RelationNeedsWAL(scan->indexRelation) || scan->xs_want_itup;
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
	const PbtItem *run_lowest = NULL;

	if (so->run.n > 0)
		run_lowest = merge_run(scan, BufferGetPage(so->curr.buf));
	/*
	 * Where a long scan goes on, for prefetching (step_page): forward, the
	 * high key; backward, any item of the page (it leads to the page's
	 * downlink)
	 */
	if (so->pf_distance != 0 && !so->probing &&
		(ScanDirectionIsForward(so->run_dir) ? so->curr.moreRight :
		 so->curr.moreLeft))
	{
		Page		page = BufferGetPage(so->curr.buf);
		PbtItem		key;
		PbtItemBuf	keybuf;
		bool		have;

		if (ScanDirectionIsForward(so->run_dir))
			have = pbt_page_get_hikey(page, &key);
		else if ((have = pbt_layout(page)->count(page) > 0))
			pbt_layout(page)->get(page, 0, &key, &keybuf);
		resetStringInfo(&so->pf_key);
		if (have)
			appendBinaryStringInfo(&so->pf_key, key.data, key.len);
	}
	/*
	 * A subnode: where to read on if its group is rebalanced meanwhile.
	 * Backward, below the lowest entry read: the page's first, or a run
	 * entry merged below it (the rebalance puts those into pages).
	 */
	if (so->curr.gstart != InvalidBlockNumber)
	{
		Page		page = BufferGetPage(so->curr.buf);
		PbtItem		hikey;
		PbtItem		first;
		PbtItemBuf	firstbuf;
		bool		have_first = pbt_layout(page)->count(page) > 0;

		so->curr.fwdLen = so->curr.bwdLen = 0;
		if (pbt_page_get_hikey(page, &hikey))
		{
			so->curr.fwdOff = so->curr.bwdOff =
				copy_to_tuplebuf(so, hikey.data, hikey.len);
			so->curr.fwdLen = so->curr.bwdLen = hikey.len;
		}
		if (have_first)
			pbt_layout(page)->get(page, 0, &first, &firstbuf);
		if (run_lowest &&
			(!have_first || pbt_item_cmp(so->st, run_lowest, &first) < 0))
		{
			first = *run_lowest;
			have_first = true;
		}
		if (have_first)
		{
			so->curr.bwdOff = copy_to_tuplebuf(so, first.data, first.len);
			so->curr.bwdLen = first.len;
		}
		if (so->par_release_due)
		{
			so->par_release_due = false;
			pbt_parallel_release(scan, so->curr.blkno, so->curr.prev,
								 so->curr.moreLeft,
								 so->currTuples.data + so->curr.bwdOff,
								 so->curr.bwdLen);
		}
	}
	Assert(!so->par_release_due);
	so->curr.valid = true;
	so->curr.lsn = BufferGetLSNAtomic(so->curr.buf);
	if (!scan_keeps_pin(scan))
	{
		UnlockReleaseBuffer(so->curr.buf);
		so->curr.buf = InvalidBuffer;
	}
	else
		LockBuffer(so->curr.buf, BUFFER_LOCK_UNLOCK);
}

/*
 * Append an item to the scan's tuple buffer; its offset.  Comparator-mode
 * items are IndexTuples, read in place (returned, compared as bounds and
 * resume keys), so they start MAXALIGNed as on a page.
 */
static inline uint32
copy_to_tuplebuf(PbtScanOpaque so, const char *item, int len)
{
	TupleBuf   *tb = &so->currTuples;
	uint32		off = so->st->normalized ? tb->used : MAXALIGN(tb->used);

	tuplebuf_reserve(tb, off + len);
	memcpy(tb->data + off, item, len);
	tb->used = off + len;
	return off;
}

static inline void
save_item(IndexScanDesc scan, int slot, int pos, const char *item, int len)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	ScanPosItem *pi = &so->curr.items[slot];

	pbt_item_get_tid(so->st, item, len, &pi->tid);
	pi->pos = pos;
	if (so->copy_items)
	{
		pi->tupoff = copy_to_tuplebuf(so, item, len);
		pi->tuplen = len;
	}
}

/*
 * Save the entry at pos of a page whose entries are all of one key, like
 * the batch's entry in slot checked (which passed the scan keys, as every
 * entry of the key does): its TID, and the same bytes to return.
 */
static inline void
save_same_key(IndexScanDesc scan, int slot, int pos, const PbtItem *item,
			  int checked)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	ScanPosItem *pi = &so->curr.items[slot];

	pbt_item_get_tid(so->st, item->data, item->len, &pi->tid);
	pi->pos = pos;
	pi->tupoff = so->curr.items[checked].tupoff;
	pi->tuplen = so->curr.items[checked].tuplen;
}

/*
 * Save the TIDs of the iterator's next n entries, whose layout reads them
 * in one call, like the entry in slot checked (see save_same_key; -1: no
 * tuple to return), from slot k on; returns the batch's next slot (k, as in
 * read_page_ordered).
 */
static int
save_tids(IndexScanDesc scan, PbtIter *it, int n, int k, int checked)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	ItemPointerData tids[PBT_MAX_ITEMS_PER_PAGE];
	bool		dead[PBT_MAX_ITEMS_PER_PAGE];
	int			step = it->step;
	int			pos = it->pos;
	bool		skip_dead = scan->ignore_killed_tuples;
	uint32		tupoff = checked >= 0 ? so->curr.items[checked].tupoff : 0;
	uint16		tuplen = checked >= 0 ? so->curr.items[checked].tuplen : 0;
	ScanPosItem *pi;

	it->layout->iter_tids(it, n, tids, dead);

	/*
	 * Each entry is written to the next slot, which advances only if the
	 * entry is kept: no branch per entry (a dropped entry's slot is unused
	 * or overwritten by the next).
	 */
	pi = &so->curr.items[step > 0 ? k : k - 1];
	for (int i = 0; i < n; i++)
	{
		pi->tid = tids[i];
		pi->pos = (pos += step);
		pi->tupoff = tupoff;
		pi->tuplen = tuplen;
		pi += step * !(skip_dead && dead[i]);
	}
	return (pi - so->curr.items) + (step > 0 ? 0 : 1);
}

/*
 * Save the rest of a one-key page's entries in the iteration, n of them,
 * once the entry in slot checked passed the scan keys (so every one does);
 * returns the batch's next slot, it->pos at the last entry.  The batch
 * covers them all, as if read whole.  Decoding each costs little, but
 * whole leaves of one key hold a few thousand TIDs of which a LIMIT or a
 * merge join may want a few: a forward batch decodes now only as many as
 * its limit, copies the leaf and leaves the rest to pbt_decode_more, which
 * pbtgettuple calls as it reaches them; unless the rest is short (copying
 * the page costs about as much as decoding a chunk), or entries of a run
 * are to be merged, which may sort among them.
 */
static int
save_same_key_rest(IndexScanDesc scan, PbtIter *it, int n, int limit,
				   int k, int checked)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	if (n <= limit + PBT_DEFER_CHUNK || it->step < 0 || so->run.n > 0)
		return save_tids(scan, it, n, k, checked);

	k = save_tids(scan, it, limit, k, checked);
	if (so->defer == NULL)
		so->defer = MemoryContextAlloc(GetMemoryChunkContext(so),
									   sizeof(DeferredLeaf));
	memcpy(so->defer->page.data, it->page, BLCKSZ);
	so->defer->it = *it;
	so->defer->it.page = (Page) so->defer->page.data;
	so->defer_left = n - limit;
	it->pos += n - limit;
	return k;
}

/*
 * Decode the next entries that save_same_key_rest left to the current
 * batch, after its last item.  Returns false if none was left, or all
 * those decoded were dead.
 */
bool
pbt_decode_more(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	int			n = Min(so->defer_left, PBT_DEFER_CHUNK);
	int			last = so->curr.lastItem;

	if (n == 0)
		return false;
	Assert(ScanPosIsValid(so->curr) && last >= so->curr.firstItem);
	so->curr.lastItem = save_tids(scan, &so->defer->it, n, last + 1, last) - 1;
	so->defer_left -= n;
	return so->curr.lastItem > last;
}

/*
 * Are the entries of the leaf all of one key (a posting leaf's, or a run
 * of duplicates)?  Then they all pass or fail the scan keys together.
 * Normalized keys without INCLUDE columns only: there, entries of one key
 * differ only in their TIDs.
 */
static bool
page_is_one_key(PbtScanOpaque so, Page page, const PbtLayout *layout)
{
	int			n = layout->count(page);
	PbtItem		first;
	PbtItem		last;
	PbtItemBuf	firstbuf;
	PbtItemBuf	lastbuf;

	if (!so->st->normalized || so->st->has_include || n < 2)
		return false;
	layout->get(page, 0, &first, &firstbuf);
	layout->get(page, n - 1, &last, &lastbuf);
	return pbt_items_same_key(first.data, first.len, last.data, last.len);
}

/* copy the item examined at pos as the batch's low (0) or high (1) bound */
static void
save_bound(PbtScanOpaque so, int which, int pos, const PbtItem *item)
{
	so->curr.boundOff[which] = copy_to_tuplebuf(so, item->data, item->len);
	so->curr.boundLen[which] = item->len;
	if (which == 0)
		so->curr.lowPos = pos;
	else
		so->curr.highPos = pos;
}

/*
 * The position of the last item a batch of at most limit items can examine
 * from it->pos on (one step before its first), or -1 if that is a first
 * batch, which is mostly a lookup's and ends inside it anyway.
 */
static int
batch_last_pos(const PbtIter *it, int limit)
{
	bool		forward = it->step > 0;
	int			last;

	if (limit <= SCAN_FIRST_BATCH)
		return -1;
	last = forward ? Min(it->pos + limit, it->stop - 1) :
		Max(it->pos - limit, 0);
	if (forward ? last <= it->pos : last >= it->pos)
		return -1;
	return last;
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
	last = batch_last_pos(it, limit);
	if (last < 0)
		return false;
	it->layout->get(page, last, &item, &itembuf);
	c = pbt_compare(so->st, forward ? &so->upperkey : &so->lowerkey,
					item.data, item.len);
	return forward ? c > 0 : c <= 0;
}

/*
 * Is item before where a bitmap scan reads: below its lower bound, or below
 * the key it reads on from (a resume after a rebalance, whose entries
 * below that key it has already read)?
 */
static inline bool
before_start(PbtScanOpaque so, const PbtItem *item)
{
	return (so->has_lower &&
			pbt_compare(so->st, &so->lowerkey, item->data, item->len) > 0) ||
		(so->run_from && so->run_from != &so->lowerkey &&
		 pbt_compare(so->st, so->run_from, item->data, item->len) > 0);
}

/*
 * Whether the entries at positions first and last both pass the scan keys
 * (first also before_start, if check_lower), which tells it of every
 * entry between them when every key that the start and end keys do not
 * cover is required (so->keys_batchable: on a column after equalities
 * only).  The entries between share their leading columns, and the key's
 * column lies between theirs, NULLs being at one end.  Saves a column walk
 * per entry on composite keys (a = x AND b >= y).
 */
static bool
ends_pass_keys(PbtScanOpaque so, Page page, const PbtLayout *layout,
			   int first, int last, ScanDirection dir, bool check_lower)
{
	PbtItem		item;
	PbtItemBuf	itembuf;
	bool		continuescan;

	Assert(so->keys_batchable);
	layout->get(page, first, &item, &itembuf);
	if ((check_lower && before_start(so, &item)) ||
		!pbt_check_item_keys(so, item.data, item.len, dir, &continuescan))
		return false;
	layout->get(page, last, &item, &itembuf);
	return pbt_check_item_keys(so, item.data, item.len, dir, &continuescan);
}

/* Whether every item of a batch within the end key passes the scan keys. */
static bool
batch_keys_hold(PbtScanOpaque so, Page page, const PbtIter *it, int limit)
{
	int			last = batch_last_pos(it, limit);

	if (!so->keys_batchable || last < 0)
		return false;
	return ends_pass_keys(so, page, it->layout, it->pos + it->step, last,
						  it->step > 0 ? ForwardScanDirection :
						  BackwardScanDirection, false);
}

/* Note the group of the leaf so->curr.blkno (opaque), if it is a subnode. */
static void
note_group(PbtScanOpaque so, PbtPageOpaque opaque)
{
	if (!pbt_is_subnode(opaque))
	{
		so->curr.gstart = InvalidBlockNumber;
		return;
	}
	so->curr.gstart = pbt_group_start(so->st->delta_group, opaque,
									  so->curr.blkno);
	so->curr.gsize = opaque->group_size;
	so->curr.epoch = pbt_group_epoch(opaque);
}

/*
 * Has the group of the page the scan has just left been rebalanced since
 * it was read, with buf (locked) another subnode of it?
 */
static bool
group_moved(PbtScanOpaque so, Buffer buf)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(BufferGetPage(buf));
	uint32		g = so->st->delta_group;
	BlockNumber ordinal;
	BlockNumber first;

	if (so->curr.gstart == InvalidBlockNumber || !pbt_is_subnode(opaque))
		return false;
	ordinal = pbt_block_ordinal(g, BufferGetBlockNumber(buf));
	first = pbt_block_ordinal(g, so->curr.gstart);
	return ordinal >= first && ordinal < first + so->curr.gsize &&
		pbt_group_epoch(opaque) != so->curr.epoch;
}

/*
 * A rebalance moved entries between the subnode the scan read last and the
 * one it stepped to (buf, locked): release it and read on from the resume
 * key of the page it left, which is exact since entries are unique with
 * their heap TIDs: forward, from its high key; backward, before its first
 * entry, or if it was empty, its high key; from the end of the index if it
 * was the last page.
 */
static bool
resume_group_scan(IndexScanDesc scan, ScanDirection dir, Buffer buf)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	bool		forward = ScanDirectionIsForward(dir);
	PbtSearchKey key;

	pbt_note_epoch_step(scan->indexRelation, &so->resumed, so->curr.blkno,
						so->curr.epoch, buf);
	elog(DEBUG2, "pagebtree: scan of \"%s\" reads on from its resume key after a rebalance of the group at block %u",
		 RelationGetRelationName(scan->indexRelation), so->curr.gstart);
	/* read on by position: a probe returns the key's entries before it too */
	so->probing = false;
	if ((forward ? so->curr.fwdLen : so->curr.bwdLen) == 0)
	{
		if (forward)
			pbt_page_error(scan->indexRelation, so->curr.blkno,
						   "a leaf with a right sibling has no high key");
		return pbt_read_page(scan,
							 pbt_get_endpoint(scan->indexRelation, so->st, 0, true),
							 PBT_MAX_ITEMS_PER_PAGE, dir, NULL);
	}
	resetStringInfo(&so->resumebuf);
	appendBinaryStringInfo(&so->resumebuf, so->currTuples.data +
						   (forward ? so->curr.fwdOff : so->curr.bwdOff),
						   forward ? so->curr.fwdLen : so->curr.bwdLen);
	memset(&key, 0, sizeof(key));
	key.bytes = so->resumebuf.data;
	key.len = so->resumebuf.len;
	key.nextkey = false;
	return pbt_read_from_key(scan, &key, dir);
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
	(void) pbt_layout_checked(BufferGetPage(buf));
	so->curr.buf = buf;
	so->batch_keys_hold = false;
	so->defer_left = 0;
	so->currTuples.used = 0;
	so->itup_tupoff = PBT_NO_TUPOFF;
	so->curr.blkno = BufferGetBlockNumber(buf);
	note_group(so, opaque);
	so->curr.next = opaque->next;
	so->curr.prev = opaque->prev;
	so->curr.moreRight = !PbtIsRightmost(opaque);
	so->curr.moreLeft = !PbtIsLeftmost(opaque);
	so->curr.restLeft = so->curr.restRight = false;

	/*
	 * A parallel scan we hold: the leaf is ours (locked; a parallel scan
	 * reads it whole), so let the next participant go on past it now, while
	 * we decode it.  Whether its items end the scan is not known yet; if
	 * they do, the next participant reads one leaf in vain.  A subnode's
	 * resume key backward is its lowest entry, pending ones included,
	 * known once they are merged: done_with_page publishes it.
	 */
	Assert(!so->par_release_due);
	if (so->par_seized)
	{
		if (ScanDirectionIsForward(so->run_dir))
		{
			PbtItem		hikey;
			bool		have = so->curr.gstart != InvalidBlockNumber &&
				pbt_page_get_hikey(BufferGetPage(buf), &hikey);

			pbt_parallel_release(scan, opaque->next, InvalidBlockNumber,
								 so->curr.moreRight, have ? hikey.data : NULL,
								 have ? hikey.len : 0);
		}
		else if (so->curr.gstart != InvalidBlockNumber)
			so->par_release_due = true;
		else
			pbt_parallel_release(scan, so->curr.blkno, opaque->prev,
								 so->curr.moreLeft, NULL, 0);
	}
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
 * Whether every entry of a leaf is within a bitmap scan's bounds and passes
 * its keys, told by the leaf's first and last entries, on a layout that
 * reads entries' TIDs in one call.
 */
static bool
page_passes_whole(PbtScanOpaque so, Page page, const PbtLayout *layout)
{
	int			n = layout->count(page);

	Assert(!so->batch_within_end);	/* the keys' check compares the end key */
	if (!so->keys_batchable || !layout->iter_tids || !so->st->normalized ||
		so->st->has_include || n < 2)
		return false;
	return ends_pass_keys(so, page, layout, 0, n - 1, ForwardScanDirection,
						  true);
}

/*
 * A bitmap scan's read of a range on the share-locked leaf in buf, whose
 * layout keeps its items unsorted (BPA, fingerprint): every item, in the
 * order they are stored, which spares sorting them, each checked against
 * both bounds and the key the read starts from (before_start), unless all
 * of them pass (their TIDs alone, then).  An item past the upper bound
 * means that no page to the right can match, as in an ordered read.  An
 * array's pass looks each item up among all the elements, as it does run
 * entries (pass_unordered).  On other leaves a range is read in order from
 * its start (and a point lookup as a scan's is: read_page_point, or the
 * layout's probe).
 */
static bool
read_page_unordered(IndexScanDesc scan, Buffer buf)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	Page		page = BufferGetPage(buf);
	bool		beyond = false;
	bool		filter;
	int			k = 0;
	PbtItem		item;
	PbtIter		it;

	begin_page(scan, buf);
	so->batch_within_end = false;
	if (page_passes_whole(so, page, pbt_layout(page)))
	{
		pbt_iter_start(&it, page, 0, true);
		k = save_tids(scan, &it, it.layout->count(page), 0, -1);
		return end_forward_page(scan, k);
	}
	pbt_iter_start_unordered(&it, page);
	/* without an upper bound, no entry passed over could end the scan */
	filter = so->has_entry_filter && it.layout->iter_filter && !so->has_upper;
	so->pass_unordered = so->pass_key != NULL;
	for (;;)
	{
		bool		continuescan;

		if (filter)
			it.layout->iter_filter(&it, &so->entry_filter, PG_INT32_MAX);
		if (!pbt_iter_next(&it, &item))
			break;
		if ((scan->ignore_killed_tuples && it.dead) || before_start(so, &item))
			continue;
		if (check_item(so, item.data, item.len, ForwardScanDirection, &continuescan))
			save_item(scan, k++, it.pos, item.data, item.len);
		beyond |= !continuescan;
	}
	so->pass_unordered = false;
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
	bool		one_key = false;
	bool		one_key_known = false;
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
		{
			save_item(scan, k++, it.pos, item.data, item.len);
			/* asked once a second entry has the key: most lookups find one */
			if (!one_key_known && examined >= 2)
			{
				one_key = it.layout->iter_tids &&
					page_is_one_key(so, page, it.layout);
				one_key_known = true;
			}
			if (one_key && continuescan)
			{
				/* so is every entry after it (see read_page_ordered) */
				int			n = it.stop - it.pos - 1;

				k = save_same_key_rest(scan, &it, n, limit - examined, k,
									   k - 1);
				examined += n;
				if (n > 0)
					it.layout->get(page, it.pos, &item, &it.buf);
				break;
			}
		}
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
	bool		one_key;
	int			checked = -1;	/* on a one-key page, a slot that passed */
	bool		filter;			/* the layout passes over failing entries */
	bool		item_stale = false;	/* item is not the entry at it.pos */
	bool		key_runs;
	int			nitems;
	PbtItem		item;
	PbtIter		it;

	begin_page(scan, buf);
	pbt_iter_start(&it, page, pos, forward);
	so->batch_within_end = batch_within_end(so, page, &it, limit);
	so->batch_keys_hold = so->batch_within_end &&
		batch_keys_hold(so, page, &it, limit);
	if (so->batch_keys_hold && !so->copy_items && it.layout->iter_tids &&
		so->st->normalized && !so->st->has_include)
	{
		/*
		 * Every entry of the batch is returned, and nothing but its TID.  The
		 * batch ends at its limit or at the page's end: the loop below has
		 * nothing left.
		 */
		examined = (batch_last_pos(&it, limit) - it.pos) * it.step;
		it.layout->get(page, it.pos + it.step, &item, &it.buf);
		save_bound(so, forward ? 0 : 1, it.pos + it.step, &item);
		k = save_tids(scan, &it, examined, k, -1);
		it.layout->get(page, it.pos, &item, &it.buf);
		Assert(examined == limit || it.pos + it.step == it.stop);
	}
	one_key = examined == 0 && page_is_one_key(so, page, it.layout);
	key_runs = it.layout->iter_key_run && st->normalized && !st->has_include;
	filter = so->has_entry_filter && it.layout->iter_filter &&
		!so->batch_keys_hold &&
		(so->batch_within_end || !(forward ? so->has_upper : so->has_lower));
	while (examined < limit)
	{
		if (filter && checked < 0)
		{
			int			first = it.pos + it.step;
			int			n = it.layout->iter_filter(&it, &so->entry_filter,
												   limit - examined);

			if (n > 0)
			{
				if (examined == 0)
				{
					PbtItemBuf	boundbuf;

					it.layout->get(page, first, &item, &boundbuf);
					save_bound(so, forward ? 0 : 1, first, &item);
				}
				examined += n;
				item_stale = true;
				if (examined == limit)
					break;
			}
		}
		if (!pbt_iter_next(&it, &item))
			break;
		item_stale = false;
		if (examined++ == 0)
			save_bound(so, forward ? 0 : 1, it.pos, &item);
		if (scan->ignore_killed_tuples && it.dead)
			continue;
		if (checked >= 0)
		{
			save_same_key(scan, forward ? k++ : --k, it.pos, &item, checked);
			continue;
		}
		if (check_item(so, item.data, item.len, dir, &continuescan))
		{
			if (forward)
				save_item(scan, k++, it.pos, item.data, item.len);
			else
				save_item(scan, --k, it.pos, item.data, item.len);
			if (one_key && continuescan)
			{
				int			n = (it.stop - it.pos) * it.step - 1;

				checked = forward ? k - 1 : k;
				if (it.layout->iter_tids && n > 0)
				{
					/* the rest of the leaf; item = its last */
					k = save_same_key_rest(scan, &it, n, limit - examined, k,
										   checked);
					examined += n;
					it.layout->get(page, it.pos, &item, &it.buf);
					break;
				}
			}
			else if (key_runs && continuescan)
			{
				/* the entries of this key pass as this one did */
				int			n = Min(it.layout->iter_key_run(&it),
									limit - examined);

				if (n > 0)
				{
					k = save_tids(scan, &it, n, k, forward ? k - 1 : k);
					examined += n;
					item_stale = true;
				}
			}
		}
		if (!continuescan)
			break;
	}

	if (item_stale)
		it.layout->get(page, it.pos, &item, &it.buf);
	/* a reversing cursor re-reads what lies behind the batch */
	nitems = it.layout->count(page);
	if (examined > 0)
		save_bound(so, forward ? 1 : 0, it.pos, &item);
	else
	{
		/*
		 * No item from pos on: the batch is the run entries merged there,
		 * which give its bound behind (cover_merged), and the page's items
		 * lie behind it
		 */
		so->curr.lowPos = so->curr.highPos = forward ?
			Min(Max(pos, 0), nitems) : Max(Min(pos, nitems - 1), -1);
		so->curr.boundLen[forward ? 0 : 1] = -1;
	}
	so->curr.restLeft = so->curr.lowPos > 0;
	so->curr.restRight = so->curr.highPos < nitems - 1;
	/* and the run entries behind the key it was read from */
	if (so->run_behind)
	{
		if (forward)
			so->curr.restLeft = true;
		else
			so->curr.restRight = true;
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
bool
pbt_read_page(IndexScanDesc scan, Buffer buf, int pos, ScanDirection dir,
			  const PbtSearchKey *from)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	bool		point = so->probing && ScanDirectionIsForward(dir);
	BlockNumber blkno = BufferGetBlockNumber(buf);
	uint8		convert = 0;
	bool		found;

	/* a share-locked live leaf; the readers below release the lock */
	Assert(pbt_buffer_locked(buf, LW_SHARED));
	if (unlikely(!PbtIsTreePage(BufferGetPage(buf)) ||
				 !PbtIsLeaf(PbtPageGetOpaque(BufferGetPage(buf)))))
		pbt_page_error(scan->indexRelation, blkno, "a scan reached a page that is not a leaf");
	Assert(!point || !ScanDirectionIsBackward(dir));
	/*
	 * A serializable transaction has read the leaf's key space, its pending
	 * entries included: an insert there (pbt_insert.c) is a rw-conflict.
	 */
	PredicateLockPage(scan->indexRelation, blkno, scan->xs_snapshot);
	/* pending entries of the leaf, read while it is locked (done_with_page) */
	so->run_dir = dir;
	so->run_from = (PbtSearchKey *) from;
	so->run_behind = false;
	pbt_run_read_filtered(scan->indexRelation, so->st, buf, &so->run,
						  &so->sidebuf,
						  point && so->st->normalized &&
						  (from == NULL || from == &so->lowerkey) ?
						  run_entry_is_point_match : run_entry_in_range, so);
	if (so->st->adaptive && (point || !so->bitmap))
		convert = pbt_adapt_on_read(buf, point);
	if (point && pbt_layout(BufferGetPage(buf))->probe)
		found = read_page_probe(scan, buf);
	else if (point)
		found = read_page_point(scan, buf, pos);
	else if (so->bitmap && pbt_layout(BufferGetPage(buf))->insert_anywhere)
		found = read_page_unordered(scan, buf);
	else
		found = read_page_ordered(scan, buf, pos, dir);
	/* (entries of the run may have been all the page had) */
	found = so->curr.firstItem <= so->curr.lastItem;
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
void
pbt_kill_items_now(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	Page		page;
	const PbtLayout *layout;
	int			n;
	bool		marked = false;

	Buffer		buf = so->curr.buf;

	if (so->nkilled == 0 || !ScanPosIsValid(so->curr) ||
		!pbt_unlogged_hints_allowed())
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
	Assert(PbtIsTreePage(page) && PbtIsLeaf(PbtPageGetOpaque(page)));
	layout = pbt_layout(page);
	n = layout->count(page);
	for (int k = 0; k < so->nkilled; k++)
	{
		ScanPosItem *pi = &so->curr.items[so->killed[k]];
		PbtIter		it;
		PbtItem		item;
		ItemPointerData tid;

		Assert(so->killed[k] >= so->curr.firstItem &&
			   so->killed[k] <= so->curr.lastItem);

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
		pbt_note_unlogged_hint(PbtPageGetOpaque(page), PBT_HAS_DEAD);
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

/*
 * Share-lock a page a backward scan steps to.  Every link it follows joins
 * leaves (deleted ones keep PBT_LEAF), so anything else is corruption: a
 * zeroed leaf's left-link would lead to the metapage, and round forever.
 */
static Buffer
lock_page(Relation index, BlockNumber blkno)
{
	Buffer		buf;

	CHECK_FOR_INTERRUPTS();
	buf = ReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	if (PageIsNew(BufferGetPage(buf)) ||
		!PbtIsLeaf(PbtPageGetOpaque(BufferGetPage(buf))))
		pbt_page_error(index, blkno, "a leaf's sibling link leads to a page that is not a leaf");
	return buf;
}

/*
 * Start so->pf_source at the leaves after next (backward: before it), in
 * the level-1 page where the key done_with_page kept leads.
 */
static void
start_leaf_source(IndexScanDesc scan, BlockNumber next, bool backward)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtSearchKey key;

	Assert(so->pf_key.len > 0);
	if (so->st->normalized && !backward)
	{
		/* a separator, not an item: its bytes are the key */
		key.bytes = so->pf_key.data;
		key.len = so->pf_key.len;
		key.nextkey = false;
	}
	else
		pbt_key_from_item(so->st, so->pf_key.data, so->pf_key.len, &key);
	pbt_leaf_source_init(&so->pf_source, scan->indexRelation, so->st, &key,
						 next, backward);
}

/*
 * A scan steps to the leaf next (backward: the leaf before): from its third
 * page on (a long scan), keep the leaves beyond it requested from the
 * kernel ahead of the reads (from 17 on, with effective_io_concurrency
 * above 1, loaded into shared buffers through a read stream in stretches,
 * which keeps no pin: pbt_prefetch.c), as listed in the level above, where
 * the key done_with_page kept leads.
 */
static void
prefetch_ahead(IndexScanDesc scan, BlockNumber next, bool backward)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	/* a cursor that turns starts a new stretch */
	if (so->pf_steps >= 2 && so->pf_source.backward != backward)
		so->pf_steps = 0;
	if (++so->pf_steps < 2 || so->pf_key.len == 0)
		return;
	if (so->pf_steps == 2)
	{
		start_leaf_source(scan, next, backward);
		pbt_prefetch_init(&so->pf, scan->indexRelation, so->st,
						  so->pf_distance, pbt_leaf_source_next, &so->pf_source);
#ifdef PBT_HAVE_READ_STREAM

		/*
		 * A stretch of one leaf would be read while the scan waits, which is
		 * no look-ahead at all; the window overlaps that read with the
		 * scan's work (effective_io_concurrency 1, 17's default)
		 */
		so->pf.load = so->pf_distance > 1;
#endif
	}
	so->pf_loaded += pbt_prefetch_advance(&so->pf);
}

/*
 * A scan steps to the leaf blkno (backward: the leaf it expects to the
 * left): read it, pinned, not locked, through the look-ahead of
 * pbt_readahead_read (a read stream on 17 and later, the PrefetchBuffer
 * window on 15 and 16), fed by the leaf source from its third page on.
 * The reader still follows the sibling links and asks for each leaf by
 * number, so a concurrent split only makes the look-ahead miss a leaf,
 * which is then read directly.
 *
 * A read stream pins leaves ahead of the reader, and VACUUM's cleanup lock
 * on a leaf waits for every pin.  So it serves only scans whose pins hold
 * VACUUM up anyway (use_read_ahead): a bitmap scan, which reads all its
 * leaves in one amgetbitmap call and stops its stream before the call
 * returns, and on 17 and later a scan that keeps its leaf pinned while it
 * returns the leaf's tuples (index-only and non-MVCC scans, as btree's do),
 * where a cursor paused on a leaf stalls VACUUM whether or not leaves ahead
 * are pinned too; the stream stops when the scan ends or turns.  A plain
 * MVCC scan holds no pin between batches, so it prefetches without pins
 * left behind (prefetch_ahead).
 */
static Buffer
read_leaf_ahead(IndexScanDesc scan, BlockNumber blkno, bool backward)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	Assert(!so->par && !(so->bitmap && backward));
	/* a cursor that turns starts a new stretch */
	if (so->ra_on && so->pf_source.backward != backward)
		pbt_readahead_stop(scan);
	if (!so->ra_on && ++so->pf_steps >= 2 && so->pf_key.len > 0 &&
		pbt_scan_pf_distance(scan) > 0)
	{
		if (so->ra == NULL)
			so->ra = MemoryContextAlloc(GetMemoryChunkContext(so),
										sizeof(PbtReadAhead));
		start_leaf_source(scan, blkno, backward);
		pbt_readahead_begin(so->ra, scan->indexRelation, so->st,
							so->pf_distance, false, NULL,
							pbt_leaf_source_next, &so->pf_source);
		so->ra_on = true;
	}
	if (so->ra_on)
		return pbt_readahead_read(so->ra, blkno);
	return ReadBuffer(scan->indexRelation, blkno);
}

/* Whether a scan reads its leaves through read_leaf_ahead. */
static inline bool
use_read_ahead(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	if (so->bitmap)
		return true;
#ifdef PBT_HAVE_READ_STREAM
	return !so->par && scan_keeps_pin(scan);
#else
	return false;
#endif
}

/*
 * The scan's stretch of leaves read ahead has ended (the scan is done or
 * turns, descends again, is rescanned or restored to a mark): release the
 * leaves read ahead.  A bitmap scan does so before amgetbitmap returns.
 */
void
pbt_readahead_stop(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	if (so->pf_loaded > 0)
	{
		elog(DEBUG3, "pagebtree: index scan of \"%s\" loaded " UINT64_FORMAT " leaves ahead into shared buffers",
			 RelationGetRelationName(scan->indexRelation), so->pf_loaded);
		so->pf_loaded = 0;
	}
	if (!so->ra_on)
		return;
	pbt_readahead_end(so->ra);
	so->ra_on = false;
	so->pf_steps = 0;			/* a stream starts again two leaves on */
	elog(DEBUG2, "pagebtree: %s scan of \"%s\" read " UINT64_FORMAT " leaves from its read stream, " UINT64_FORMAT " directly",
		 so->bitmap ? "bitmap" : "index",
		 RelationGetRelationName(scan->indexRelation),
		 so->ra->from_stream, so->ra->direct);
}

/*
 * The leaf blkno that a scan steps to (backward: the leaf it expects to the
 * left), pinned, not locked, with the look-ahead of its kind.
 */
static Buffer
read_next_leaf(IndexScanDesc scan, BlockNumber blkno, bool backward)
{
	if (use_read_ahead(scan))
		return read_leaf_ahead(scan, blkno, backward);
	if (pbt_scan_pf_distance(scan) > 0)
		prefetch_ahead(scan, blkno, backward);
	return ReadBuffer(scan->indexRelation, blkno);
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
walk_left(IndexScanDesc scan, BlockNumber target, BlockNumber prev)
{
	Relation	index = scan->indexRelation;
	Buffer		buf;
	PbtLinkWalk walk = {0};
	BlockNumber failed_target = InvalidBlockNumber;
	BlockNumber failed_left = InvalidBlockNumber;

	if (prev != InvalidBlockNumber)
	{
		buf = read_next_leaf(scan, prev, true);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (links_to(buf, target))
			return buf;
		UnlockReleaseBuffer(buf);
	}
	for (;;)
	{
		PbtPageOpaque opaque;
		BlockNumber left;

		buf = lock_page(index, target);
		opaque = PbtPageGetOpaque(BufferGetPage(buf));
		while (PbtIsDeleted(opaque))
		{
			target = opaque->next;
			pbt_walk_step(index, &walk, target);
			UnlockReleaseBuffer(buf);
			buf = lock_page(index, target);
			opaque = PbtPageGetOpaque(BufferGetPage(buf));
		}
		left = opaque->prev;
		UnlockReleaseBuffer(buf);
		if (left == InvalidBlockNumber)
			return InvalidBuffer;

		/*
		 * The page deletion that makes target's left sibling stop linking
		 * to it changes target's left-link in the same atomic step: a
		 * left-link that led to a page not linking back last time and is
		 * still there is damage, and asking again would loop forever
		 * (nbtree's check in _bt_walk_left).
		 */
		if (target == failed_target && left == failed_left)
			pbt_page_error(index, target, "the leaf's left-link leads to a page that does not link back");
		buf = lock_page(index, left);
		for (;;)
		{
			opaque = PbtPageGetOpaque(BufferGetPage(buf));
			if (links_to(buf, target))
				return buf;
			if (PbtIsRightmost(opaque) || opaque->next == target)
				break;			/* links changed under us: ask target again */
			prev = opaque->next;
			pbt_walk_step(index, &walk, prev);
			UnlockReleaseBuffer(buf);
			buf = lock_page(index, prev);
		}
		/* a page stepped to right of left may have changed since: no verdict */
		failed_target = BufferGetBlockNumber(buf) == left ? target : InvalidBlockNumber;
		failed_left = left;
		UnlockReleaseBuffer(buf);
	}
}

/*
 * step_page found no leaf left in its direction: so has a parallel scan,
 * for every participant.
 */
static bool
scan_ended(IndexScanDesc scan)
{
	if (((PbtScanOpaque) scan->opaque)->par)
		pbt_parallel_done(scan);
	return false;
}

/*
 * One more leaf of the scan's walk (PbtScanOpaqueData.walk): one that
 * turns meets the pages it has read again, so it counts anew.
 */
static void
scan_walk_step(PbtScanOpaque so, Relation index, ScanDirection dir,
			   BlockNumber blkno)
{
	if (so->walk_dir != dir)
	{
		memset(&so->walk, 0, sizeof(so->walk));
		so->walk_dir = dir;
	}
	pbt_walk_step(index, &so->walk, blkno);
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

	/*
	 * A parallel scan goes on where the shared state says, not from its own
	 * page, unless it still holds the scan (a backward scan's first leaf had
	 * nothing before its key, and the scan steps left from it).
	 */
	if (so->par && !so->par_seized)
	{
		bool		more = ScanDirectionIsForward(dir) ? so->curr.moreRight :
			so->curr.moreLeft;
		BlockNumber blkno;
		BlockNumber prev;

		release_pos(&so->curr);
		if (!more)
			return scan_ended(scan);
		if (pbt_parallel_seize(scan, &blkno, &prev) != PBT_PAR_IDLE)
			return false;		/* done (a rescan cannot happen meanwhile) */
		return pbt_read_shared(scan, dir, blkno, prev);
	}

	if (ScanDirectionIsForward(dir))
	{
		BlockNumber next = so->curr.next;
		bool		more = so->curr.moreRight;

		release_pos(&so->curr);
		if (!more)
			return scan_ended(scan);
		scan_walk_step(so, index, dir, next);
		pbt_run_prefetch(index, so->st, next);
		buf = read_next_leaf(scan, next, false);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (group_moved(so, buf))
			return resume_group_scan(scan, dir, buf);
		return pbt_read_page(scan, buf, 0, dir, NULL);
	}
	else
	{
		BlockNumber target = so->curr.blkno;
		BlockNumber blkno = so->curr.prev;
		bool		more = so->curr.moreLeft;

		release_pos(&so->curr);
		if (!more)
			return scan_ended(scan);
		scan_walk_step(so, index, dir, target);
		buf = walk_left(scan, target, blkno);
		if (!BufferIsValid(buf))
			return scan_ended(scan);
		if (group_moved(so, buf))
			return resume_group_scan(scan, dir, buf);
		return pbt_read_page(scan, buf, PBT_MAX_ITEMS_PER_PAGE, dir, NULL);
	}
}

/*
 * A parallel scan seized at blkno (see PbtParallelScanData): read the leaf
 * there, or, backward, the one to the left of it, as step_page would from
 * a page of our own.  Returns false if it has no match, with so->curr
 * invalid if the scan has ended.
 */
bool
pbt_read_shared(IndexScanDesc scan, ScanDirection dir, BlockNumber blkno,
				BlockNumber prev)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	PbtParallelScan ps = PbtParallelScanAmState(scan->parallel_scan);

	Assert(so->par && so->par_seized && !ScanPosIsValid(so->curr));
	Assert(!BufferIsValid(so->curr.buf));
	/* the group of the leaf read last, for group_moved, and its resume key */
	so->curr.gstart = ps->gstart;
	if (ps->gstart != InvalidBlockNumber)
	{
		PbtItem		resume = {ps->resume, ps->resume_len};

		so->curr.gsize = ps->gsize;
		so->curr.epoch = ps->epoch;
		so->currTuples.used = 0;
		so->curr.fwdOff = so->curr.bwdOff =
			copy_to_tuplebuf(so, resume.data, resume.len);
		so->curr.fwdLen = so->curr.bwdLen = resume.len;
	}
	if (ScanDirectionIsForward(dir))
	{
		so->curr.next = blkno;
		so->curr.moreRight = true;
	}
	else
	{
		so->curr.blkno = blkno;
		so->curr.prev = prev;
		so->curr.moreLeft = true;
	}
	return step_page(scan, dir);
}

/*
 * Read from the leaf where key belongs, in direction dir: forward from the
 * first item the key does not exceed (nextkey: the first it precedes),
 * backward from the item before that.
 */
bool
pbt_read_from_key(IndexScanDesc scan, PbtSearchKey *key, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;
	Buffer		buf;
	int			pos;

	so->pf_steps = 0;			/* a new stretch of pages */
	memset(&so->walk, 0, sizeof(so->walk));
	pbt_readahead_stop(scan);
	pbt_search_leaf(scan->indexRelation, so->st, key, &buf, BUFFER_LOCK_SHARE);
	/* a probing read finds its entries without a position */
	pos = so->probing && pbt_layout(BufferGetPage(buf))->probe ? 0 :
		pbt_binsearch(so->st, BufferGetPage(buf), key);
	/* (the run of a leaf may hold entries before its first item) */
	if (ScanDirectionIsForward(dir) || pos > 0 ||
		pbt_delta_group(scan->indexRelation, so->st) > 0)
		return pbt_read_page(scan, buf, ScanDirectionIsForward(dir) ? pos : pos - 1,
							 dir, key);

	/*
	 * Nothing before the key on this page: go on from its left neighbour.
	 * The key's range begins here, so an insert here below the key must
	 * meet a serializable reader (pbt_read_page's lock).
	 */
	PredicateLockPage(scan->indexRelation, BufferGetBlockNumber(buf),
					  scan->xs_snapshot);
	so->curr.buf = buf;
	so->curr.blkno = BufferGetBlockNumber(buf);
	note_group(so, PbtPageGetOpaque(BufferGetPage(buf)));
	so->curr.prev = PbtPageGetOpaque(BufferGetPage(buf))->prev;
	so->curr.moreLeft = !PbtIsLeftmost(PbtPageGetOpaque(BufferGetPage(buf)));
	so->curr.restLeft = so->curr.restRight = false;
	so->curr.firstItem = 0;
	so->curr.lastItem = -1;
	so->run_dir = dir;
	/* the buffer holds only the page's resume keys (done_with_page) */
	so->currTuples.used = 0;
	so->itup_tupoff = PBT_NO_TUPOFF;
	done_with_page(scan);
	return false;
}

/*
 * Read the current page's next batch in direction dir.  If the page may
 * have changed since the last batch, positions may have moved: find the
 * item where that batch stopped again from the root.
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
	/* where it stopped, as a key: for the run's entries, or a re-descent */
	Assert(so->curr.boundLen[bound] >= 0);
	resetStringInfo(&so->resumebuf);
	appendBinaryStringInfo(&so->resumebuf,
						   so->currTuples.data + so->curr.boundOff[bound],
						   so->curr.boundLen[bound]);
	pbt_key_from_item(so->st, so->resumebuf.data, so->resumebuf.len, &key);
	key.nextkey = forward;
	if (!BufferIsValid(buf))
		buf = ReadBuffer(scan->indexRelation, so->curr.blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);

	/*
	 * An unchanged LSN says the positions hold.  Indexes without WAL set
	 * none, and an insert may have shifted the entries under our pin; they
	 * read whole pages, so only a scan that turns comes here: from the key.
	 */
	if (RelationNeedsWAL(scan->indexRelation) &&
		BufferGetLSNAtomic(buf) == so->curr.lsn)
		return pbt_read_page(scan, buf, forward ? so->curr.highPos + 1 :
							 so->curr.lowPos - 1, dir, &key);

	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (buf != so->curr.buf)
		ReleaseBuffer(buf);
	release_pos(&so->curr);
	return pbt_read_from_key(scan, &key, dir);
}

/*
 * Read batches in direction dir, the rest of the current page first, until
 * one has a match (true) or the scan ends (false).
 */
bool
pbt_read_on(IndexScanDesc scan, ScanDirection dir)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	for (;;)
	{
		bool		found;

		CHECK_FOR_INTERRUPTS();
		kill_items(scan);
		/* a mark keeps the whole batch */
		while (so->markItemIndex >= 0 && so->defer_left > 0)
			pbt_decode_more(scan);
		save_mark_before_leaving(so);
		if (ScanDirectionIsForward(dir) ? so->curr.restRight : so->curr.restLeft)
			found = continue_page(scan, dir);
		else
			found = step_page(scan, dir);
		/* no leaf stays pinned ahead of a scan that will not read it */
		if (so->ra_on &&
			!(ScanPosIsValid(so->curr) &&
			  (ScanDirectionIsForward(dir) ? so->curr.moreRight :
			   so->curr.moreLeft)))
			pbt_readahead_stop(scan);
		if (found)
			return true;
		if (!ScanPosIsValid(so->curr))
			return false;
	}
}

