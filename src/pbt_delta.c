/*-------------------------------------------------------------------------
 *
 * pbt_delta.c
 *	  The delta area: leaf entries kept pending in side pages of the index,
 *	  so that an insert need not dirty a clean leaf (the write-amplification
 *	  thesis; Bf-Tree's mini-pages, direct-mapped).
 *
 * An index built with a delta area reserves one side page per group of G
 * blocks (pbt_delta.h).  Each block of the group has a fixed slot there:
 * the run of its leaf, unsorted entries that belong to the leaf's key range
 * but are not on the leaf.  An insert whose leaf is clean (writing it would
 * cost a page write and a full-page image) appends its entry to the run
 * instead.  A run is folded into its leaf when it would pass the threshold,
 * when the leaf is written anyway, when it splits, and at VACUUM.
 *
 * Locking.  A leaf's run is protected by the leaf's buffer lock: appends and
 * folds hold it exclusively, readers share-lock it.  Writers lock the side
 * page (exclusively) only while they hold the leaf's lock, always as the
 * last lock taken and never held while waiting for another buffer, so the
 * side page cannot take part in a deadlock.  Readers only pin it: the slot
 * they read cannot change under their leaf lock (pbt_run_read).
 *
 * WAL.  An append changes only the bytes it adds to the side page, a fold
 * the leaf and the run's slot, in one record: XLOG_PBT_RUN_APPEND and
 * XLOG_PBT_FOLD when preloaded, generic WAL otherwise (both small: the side
 * page's bytes do not shift).  A split that folds logs the slot with the
 * split (pbt_log_split).
 *
 *-------------------------------------------------------------------------
 */
#include "pbt_delta.h"
#include "pbt_group.h"
#include "pbt_xlog.h"

#include "access/generic_xlog.h"
#include "access/rmgr.h"
#include "access/xloginsert.h"
#include "access/xlogutils.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/rel.h"

/* an item packed as WAL data: uint16 length, then its bytes (pack_items) */
#define PACKED_ITEM_COST(len) ((int) sizeof(uint16) + (len))

/*
 * Does the delta area pay for an index built now, with delta = auto?  It
 * spares leaf writes that are costly: without the resource manager every
 * leaf insert logs its page's shifted bytes, and an index larger than
 * shared buffers has its leaves evicted, and so written, between changes.
 * Otherwise its cost (a side page read with every leaf) buys nothing.
 * estimated_leaves is the build's estimate of its leaf pages.
 */
static bool
delta_pays(Relation index, double estimated_leaves)
{
	if (index->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		return false;			/* local buffers: appends never pay */
	if (!pbt_rmgr_registered && RelationNeedsWAL(index))
		return true;
	return estimated_leaves >= NBuffers;
}

/*
 * The fold threshold in % of a page, which sizes the slots of a new build.
 * By default 5% with the resource manager, and 10% without it, where a
 * fold logs about a full page of generic WAL and so pays for twice the
 * entries (docs/decisions.md; and PbtState.delta_fill_slot).
 */
double
pbt_delta_threshold_pct(Relation index)
{
	PbtOptions *opts = (PbtOptions *) index->rd_options;
	double		pct = opts ? opts->delta_threshold : PBT_DEFAULT_DELTA_THRESHOLD;

	if (pct == 0)
		pct = pbt_rmgr_registered ? PBT_RMGR_DELTA_THRESHOLD : PBT_GENERIC_DELTA_THRESHOLD;
	return pct;
}

/* Leaves per side page for a new build of the index, 0 = no delta area. */
uint32
pbt_delta_group_for_build(Relation index, double estimated_leaves)
{
	PbtOptions *opts = (PbtOptions *) index->rd_options;
	int			option = opts ? opts->delta : PBT_DEFAULT_DELTA;
	int			want = (int) (PBT_USABLE_SPACE * pbt_delta_threshold_pct(index) / 100);
	uint32		group = PBT_MAX_DELTA_GROUP;

	if (option == PBT_DELTA_OFF ||
		(option == PBT_DELTA_AUTO && !delta_pays(index, estimated_leaves)))
		return 0;
	/* the most leaves per side page whose slots hold the threshold */
	while (group > PBT_MIN_DELTA_GROUP &&
		   pbt_side_slot_size(group) - (int) sizeof(PbtRunHeader) < want)
		group /= 2;
	return group;
}

/* The index's delta area geometry, from the metapage on first use. */
uint32
pbt_delta_group(Relation index, PbtState *st)
{
	if (!st->delta_known)
	{
		Buffer		buf = ReadBuffer(index, PBT_METAPAGE_BLKNO);

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		pbt_meta_settings(index, st, PbtPageGetMeta(BufferGetPage(buf)));
		UnlockReleaseBuffer(buf);
	}
	return st->delta_group;
}

/*
 * Would inserting item, whose key is key, into the locked leaf in buf cost
 * a page write, a full-page image or more WAL than appending it to the
 * leaf's run?  Read without the buffer header lock: a hint, and a wrong
 * answer costs only speed.  Without the resource manager a leaf insert
 * logs the bytes it changes, so appending is cheaper unless the layout
 * changes a few bytes in place (insert_ranges: a dense leaf sets a bit
 * and a TID, a posting leaf adds a TID at its end), which logs less than
 * an append and its fold.  Asked only of layouts made for their items
 * (PBT_LF_REBUILT), whose inserts are in place by design: a heads leaf
 * shifts its slots but at its end, and the search for the position would
 * cost every random insert.
 */
bool
pbt_leaf_write_costly(Relation index, PbtState *st, Buffer buf,
					  PbtSearchKey *key, const char *item, int len)
{
	Page		page = BufferGetPage(buf);
	const PbtLayout *layout;
	PbtByteRange ranges[PBT_MAX_INSERT_RANGES];
	int			n;
	int			changed = 0;

	if (pbt_delta_append_always)
		return true;
	if (BufferIsLocal(buf))
		return false;
	if (!pbt_buffer_is_dirty(buf) ||
		(RelationNeedsWAL(index) && XLogCheckBufferNeedsBackup(buf)))
		return true;
	if (pbt_rmgr_registered || !RelationNeedsWAL(index))
		return false;
	layout = pbt_layout(page);
	if (!(layout->flags & PBT_LF_REBUILT) || layout->insert_ranges == NULL ||
		(n = layout->insert_ranges(page, pbt_binsearch(st, page, key), item,
								   len, ranges)) < 0)
		return true;
	for (int i = 0; i < n; i++)
		changed += ranges[i].len;
	return changed > PBT_IN_PLACE_BYTES;
}

/* Key order of two leaf items (heap TID last, so never equal). */
int
pbt_item_cmp(PbtState *st, const PbtItem *a, const PbtItem *b)
{
	PbtSearchKey key;

	if (st->normalized)
		return pbt_bytes_cmp(a->data, a->len, b->data, b->len);
	pbt_key_from_item(st, a->data, a->len, &key);
	return pbt_compare(st, &key, b->data, b->len);
}

static int
run_item_cmp(const void *a, const void *b, void *arg)
{
	return pbt_item_cmp((PbtState *) arg, (const PbtItem *) a,
						(const PbtItem *) b);
}

/* ----------------------------------------------------------------
 * Page changes (the primary and redo)
 * ----------------------------------------------------------------
 */
void
pbt_side_page_init(Page page, uint32 group)
{
	pbt_page_init(page, 0, PBT_SIDE | PBT_FRONT_CODED, PBT_META_LAYOUT, NULL);
	PbtPageGetOpaque(page)->layout_param = group;
	/* every slot is data: full-page images must not skip them as a hole */
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) +
		group * pbt_side_slot_size(group);
}

static inline uint32
side_group(Page page)
{
	return PbtPageGetOpaque(page)->layout_param;
}

/*
 * Slot's run header on spage, the side page in block side, or NULL if the
 * page is not (yet) a side page.  Callers size entries by the metapage's
 * group and the page's changes by its own (side_group), so a page of
 * another group, or a run past its slot, is reported here, before a
 * change could overflow the slot inside its critical section (and before
 * the inspection functions walk a run past the page).
 */
PbtRunHeader *
pbt_side_run_checked(Relation index, Page spage, BlockNumber side,
					 uint32 group, int slot)
{
	PbtRunHeader *hdr;

	if (!PbtIsSidePage(spage))
		return NULL;
	if (side_group(spage) != group)
		pbt_page_error(index, side,
					   "side page's slots differ from the metapage's delta area");
	hdr = pbt_side_run(spage, group, slot);
	if (sizeof(PbtRunHeader) + hdr->used > pbt_side_slot_size(group))
		pbt_page_error(index, side, "run entries are corrupt");
	return hdr;
}

/*
 * Make a slot the run of a leaf whose run tag is tag (pbt_run_tag): a stale
 * run there (another epoch's) is emptied first.  True if the header changed.
 */
bool
pbt_side_run_claim(Page page, int slot, uint32 tag)
{
	PbtRunHeader *run = pbt_side_run(page, side_group(page), slot);

	if (tag == 0 || pbt_run_header_tag(run) == tag)
		return false;
	run->used = 0;
	run->tag_lo = tag & 0xFFFF;
	run->tag_hi = tag >> 16;
	return true;
}

/*
 * How many leading bytes of an item the run in slot would share with its
 * first entry (pbt_delta.h); at most all but one, so that every entry
 * keeps a byte of its own.
 */
static int
run_entry_shared(Page page, int slot, const char *data, int len)
{
	PbtRunHeader *run = pbt_side_run(page, side_group(page), slot);
	PbtRunEntry first;
	int			max;
	int			shared = 0;

	if (!pbt_side_front_coded(page) || run->used == 0)
		return 0;
	pbt_run_entry_next((const char *) (run + 1), &first);
	max = Min(Min(first.len, len - 1), PG_UINT8_MAX);
	while (shared < max && first.rest[shared] == data[shared])
		shared++;
	return shared >= PBT_RUN_MIN_SHARED ? shared : 0;
}

/* the bytes an entry takes that shares shared bytes with its run's first */
static inline int
entry_cost(int len, int shared)
{
	return PBT_RUN_WHOLE_COST(len) - shared + (shared > 0 ? 1 : 0);
}

void
pbt_side_run_append(Page page, int slot, const char *data, int len)
{
	PbtRunHeader *run = pbt_side_run(page, side_group(page), slot);
	char	   *end = (char *) (run + 1) + run->used;
	int			shared = run_entry_shared(page, slot, data, len);
	uint16		word = len | (shared > 0 ? PBT_RUN_SHARED : 0);
	int			header = entry_cost(len, shared) - (len - shared);

	StaticAssertStmt(PBT_MAX_ITEM_SIZE <= PBT_RUN_LEN_MASK,
					 "run entry lengths need their two high bits");
	Assert(len > 0 && len <= PBT_MAX_ITEM_SIZE);
	/* (callers make sure of it, redo included: a run never leaves its slot) */
	if (sizeof(PbtRunHeader) + run->used + entry_cost(len, shared) >
		pbt_side_slot_size(side_group(page)))
		elog(PANIC, "pagebtree: a run would overflow its slot");
	memcpy(end, &word, sizeof(uint16));
	if (shared > 0)
		end[sizeof(uint16)] = (char) shared;
	memcpy(end + header, data + shared, len - shared);
	run->used += entry_cost(len, shared);
}

/*
 * Make a run hold items[0..n) (n = 0: empty), a subset of the entries it
 * holds, in any order; folded counts a fold.  Its entries are front-coded
 * against its first entry, and would be against another one if that went:
 * so the first stays first if kept, else it stays as the reference
 * (pbt_delta.h), and no entry takes more bytes than before.
 */
void
pbt_side_run_set(Page page, int slot, const PbtItem *items, int n, bool folded)
{
	PbtRunHeader *run = pbt_side_run(page, side_group(page), slot);
	PbtItemBuf	ref;
	int			reflen = 0;
	int			kept_ref = -1;

	if (n > 0 && run->used > 0 && pbt_side_front_coded(page))
	{
		PbtRunEntry first;

		pbt_run_entry_next((const char *) (run + 1), &first);
		reflen = first.len;
		memcpy(ref.data, first.rest, reflen);
		for (int i = 0; i < n && kept_ref < 0; i++)
			if (items[i].len == reflen && memcmp(items[i].data, ref.data, reflen) == 0)
				kept_ref = i;
	}
	run->used = 0;
	if (folded)
		run->folds++;
	if (kept_ref >= 0)
		pbt_side_run_append(page, slot, items[kept_ref].data, items[kept_ref].len);
	else if (reflen > 0)
	{
		uint16		word = reflen | PBT_RUN_REFERENCE;

		pbt_side_run_append(page, slot, ref.data, reflen);
		memcpy(run + 1, &word, sizeof(uint16));
	}
	for (int i = 0; i < n; i++)
		if (i != kept_ref)
			pbt_side_run_append(page, slot, items[i].data, items[i].len);
}

/*
 * Make a run hold the entries packed in data[0..len) (pbt_run_pack), counting
 * a fold: the redo of a split that kept them pending (pbt_side_run_set, as
 * the primary did).
 */
void
pbt_side_run_set_packed(Page page, int slot, const char *data, int len)
{
	PbtItem    *items = palloc(sizeof(PbtItem) * (len / PACKED_ITEM_COST(1) + 1));
	int			n = 0;

	for (const char *p = data; p < data + len; n++)
	{
		uint16		len16;

		memcpy(&len16, p, sizeof(uint16));
		items[n].data = p + sizeof(uint16);
		items[n].len = len16;
		p += PACKED_ITEM_COST(len16);
	}
	pbt_side_run_set(page, slot, items, n, true);
	pfree(items);
}

/* wal_consistency_checking: bytes past each run's end are left over */
void
pbt_side_mask(Page page)
{
	uint32		group = side_group(page);
	int			size = pbt_side_slot_size(group);

	for (int i = 0; i < (int) group; i++)
	{
		PbtRunHeader *run = pbt_side_run(page, group, i);
		int			used = sizeof(PbtRunHeader) + run->used;

		if (used < size)
			memset((char *) run + used, 0, size - used);
	}
}

/* ----------------------------------------------------------------
 * Reading runs
 * ----------------------------------------------------------------
 */

/*
 * Copy the run of the locked leaf into *run, in no order, if it has one.
 * On a primary the side page is only pinned, not locked: its slot for the
 * leaf changes only under the leaf's exclusive lock, which the caller's
 * lock excludes, and changes to other slots do not touch the slot's bytes
 * (generic WAL copies the whole page back, but with the same bytes there).
 * A reader of many leaves passes *keep, a pin it holds on to between them
 * (InvalidBuffer at first; the caller releases it), which saves looking
 * the side page up again for the next leaf of its group, and lets the
 * memory of *run serve again.
 */
bool
pbt_run_read(Relation index, PbtState *st, Buffer leafbuf, PbtRun *run,
			 Buffer *keep)
{
	return pbt_run_read_filtered(index, st, leafbuf, run, keep, NULL, NULL);
}

/* The tag of the runs of a leaf: its group's epoch, never 0; else 0. */
uint32
pbt_run_tag(Page leaf)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(leaf);
	uint32		tag;

	if (!pbt_is_subnode(opaque))
		return 0;
	tag = (uint32) pbt_group_epoch(opaque);
	return tag != 0 ? tag : 1;
}

/*
 * Start fetching a leaf's run into the CPU cache, if its side page is in a
 * shared buffer this backend used lately: a descent calls it before it
 * reads the leaf, so that the misses overlap the leaf's search.
 */
void
pbt_run_prefetch(Relation index, PbtState *st, BlockNumber leaf)
{
	uint32		group = pbt_delta_group(index, st);

	if (group == 0 || pbt_is_side_block(group, leaf))
		return;
	pbt_prefetch_recent_leaf(index, pbt_side_block(group, leaf),
							 pbt_side_slot_offset(group, pbt_side_slot(group, leaf)),
							 Min(pbt_side_slot_size(group), 4 * PG_CACHE_LINE_SIZE));
}

/*
 * pbt_run_read, keeping only the entries that filter accepts (a scan's key
 * range): run->n counts those, run->used is still the slot's.  Returns
 * whether any was kept.
 */
bool
pbt_run_read_filtered(Relation index, PbtState *st, Buffer leafbuf,
					  PbtRun *run, Buffer *keep,
					  PbtRunFilter filter, void *filter_arg)
{
	BlockNumber leaf = BufferGetBlockNumber(leafbuf);
	uint32		group = pbt_delta_group(index, st);
	Buffer		sbuf;
	Page		spage;
	PbtRunHeader *hdr;
	const char *p;
	char	   *copy;
	const char *end;
	const char *first;
	int			need;
	int			maxentries;
	int			first_len;
	PbtRunEntry e;
	BlockNumber side;
	bool		in_recovery = RecoveryInProgress();

	run->n = 0;
	run->used = 0;
	run->stale = false;
	run->slot = -1;
	if (!keep)
	{
		run->items = NULL;
		run->cap = 0;
	}
	if (group == 0)
		return false;
	side = pbt_leaf_side_block(index, group, leaf);
	run->slot = pbt_side_slot(group, leaf);
	if (keep && BufferIsValid(*keep) && BufferGetBlockNumber(*keep) == side)
		sbuf = *keep;
	else
	{
		if (keep && BufferIsValid(*keep))
			ReleaseBuffer(*keep);
		sbuf = pbt_read_leaf(index, side);
		if (keep)
			*keep = sbuf;
	}
	spage = BufferGetPage(sbuf);

	/*
	 * Redo changes runs without the leaf's lock (appends) and restores
	 * whole side pages from images, so in recovery the slot is read under
	 * the side page's share lock; redo of a fold or split keeps the leaf
	 * locked until the slot is updated, so leaf and run agree.
	 */
	if (in_recovery)
		LockBuffer(sbuf, BUFFER_LOCK_SHARE);
	/* (a new side page may be initialized meanwhile: its slots stay 0) */
	hdr = pbt_side_run_checked(index, spage, side, group, run->slot);
	if (hdr == NULL || !pbt_run_live(hdr, pbt_run_tag(BufferGetPage(leafbuf))))
	{
		run->stale = hdr != NULL && hdr->used > 0;
		if (in_recovery)
			LockBuffer(sbuf, BUFFER_LOCK_UNLOCK);
		if (!keep)
			ReleaseBuffer(sbuf);
		return false;
	}
	/*
	 * At most this many entries, of at most these bytes decoded (each
	 * shares at most the first entry's bytes)
	 */
	maxentries = hdr->used / PBT_RUN_ENTRY_MIN_COST;
	run->used = hdr->used;
	p = (const char *) (hdr + 1);
	end = p + run->used;
	pbt_run_entry_next(p, &e);
	first = e.rest;
	first_len = Min(e.len, PBT_MAX_ITEM_SIZE);
	need = sizeof(PbtItem) * maxentries + run->used +
		maxentries * (Min(first_len, PG_UINT8_MAX) + MAXIMUM_ALIGNOF);
	/* a reader of many leaves reuses the memory (and its context) */
	if (need > run->cap)
	{
		run->items = run->items ? repalloc(run->items, need) : palloc(need);
		run->cap = need;
	}
	copy = (char *) (run->items + maxentries);
	while (p < end)
	{
		bool		is_first = p == (const char *) (hdr + 1);

		p = pbt_run_entry_next(p, &e);
		/* damaged bytes must not lead the copies astray */
		if (e.len == 0 || e.len > PBT_MAX_ITEM_SIZE || p > end ||
			(is_first ? e.shared != 0 :
			 e.reference || !pbt_run_shared_valid(&e, first_len)))
			pbt_page_error(index, side, "run entries are corrupt");
		if (e.reference)
			continue;
		/* normalized keys compare in place; index tuples need alignment */
		if (filter && st->normalized &&
			!filter(filter_arg, first, e.shared, e.rest, e.len))
			continue;
		copy = (char *) MAXALIGN(copy);
		memcpy(copy, first, e.shared);
		memcpy(copy + e.shared, e.rest, e.len - e.shared);
		if (filter && !st->normalized && !filter(filter_arg, NULL, 0, copy, e.len))
			continue;
		run->items[run->n].data = copy;
		run->items[run->n].len = e.len;
		run->n++;
		copy += e.len;
	}
	if (in_recovery)
		LockBuffer(sbuf, BUFFER_LOCK_UNLOCK);
	if (!keep)
		ReleaseBuffer(sbuf);
	return run->n > 0;
}

/*
 * Merge a run (sorted) into items[0..n), sorted, which has room for it;
 * pending[k] (if pending) says whether items[k] came from the run.  Returns
 * the new count.
 */
int
pbt_run_merge(PbtState *st, PbtItem *items, int n, const PbtRun *run,
			  bool *pending)
{
	int			i = n - 1;
	int			j = run->n - 1;

	for (int k = n + run->n - 1; k >= 0; k--)
	{
		bool		from_run = j >= 0 &&
			(i < 0 || pbt_item_cmp(st, &items[i], &run->items[j]) <= 0);

		if (pending)
			pending[k] = from_run;
		items[k] = from_run ? run->items[j--] : items[i--];
	}
	return n + run->n;
}

/*
 * Does the locked leaf in buf have a run, live or stale?  A leaf with one
 * is not deleted: a live run's entries are pending, and a stale run could
 * become live for a later group on the same block (pbt_delta.h).
 */
bool
pbt_run_exists(Relation index, PbtState *st, Buffer leafbuf)
{
	PbtRun		run;

	if (pbt_run_read(index, st, leafbuf, &run, NULL))
	{
		pbt_run_free(&run);
		return true;
	}
	return run.stale;
}

/* Put a run's entries in key order. */
void
pbt_run_sort(PbtState *st, PbtRun *run)
{
	qsort_arg(run->items, run->n, sizeof(PbtItem), run_item_cmp, st);
}

void
pbt_run_free(PbtRun *run)
{
	if (run->items)
		pfree(run->items);
	run->items = NULL;
	run->n = 0;
}

/* ----------------------------------------------------------------
 * Appends
 * ----------------------------------------------------------------
 */

/*
 * Append to a run without the resource manager: a generic WAL record
 * written directly, in generic_xlog.c's delta format (fragments of offset,
 * length and bytes, which generic redo copies into the page), holding just
 * the bytes the append changes: the run's length and the new entry.
 * GenericXLogFinish would copy the page twice and compare all of it to
 * find them, which costs more than the rest of the insert.
 */
static void
log_generic_append(Buffer sbuf, int slot, uint32 tag, const char *item, int len)
{
	Page		page = BufferGetPage(sbuf);
	PbtRunHeader *run = pbt_side_run(page, side_group(page), slot);
	bool		claimed;
	char		delta[2 * GENERIC_FRAGMENT_HEADER + sizeof(PbtRunHeader) +
					  PBT_RUN_ENTRY_MAX_COST(PBT_MAX_ITEM_SIZE)];
	char	   *d;
	char	   *entry;

	START_CRIT_SECTION();
	claimed = pbt_side_run_claim(page, slot, tag);
	entry = (char *) (run + 1) + run->used;
	pbt_side_run_append(page, slot, item, len);
	MarkBufferDirty(sbuf);

	/* the run's length, or its whole header if it was stale */
	if (claimed)
		d = pbt_generic_fragment(delta, (char *) run - (char *) page,
								 (char *) run, sizeof(PbtRunHeader));
	else
		d = pbt_generic_fragment(delta, (char *) &run->used - (char *) page,
								 (char *) &run->used, sizeof(run->used));
	d = pbt_generic_fragment(d, entry - (char *) page, entry,
							 (char *) (run + 1) + run->used - entry);

	PBT_CHECK_DEFINED(delta, d - delta);
	pbt_log_generic_delta(sbuf, delta, d - delta);
	END_CRIT_SECTION();
}

/*
 * Should a live run of n entries, with item, be folded into leaf now, as
 * the last fold that fits it?  Entries may take fewer bytes in a run than
 * on the leaf (uuid: 24 against about 30; front-coded URLs: 42 against
 * more), so a run at the threshold may no longer fit the leaf's free space
 * (a bulk-built leaf keeps about 10% of a page), and its fold would split
 * a leaf that could have taken most of it.  Estimated with item's cost for every entry.  A
 * leaf that cannot take even the run and item is left to the threshold
 * (its fold splits it whenever it comes), and so is a leaf group's
 * subnode, which rebalances its group instead of splitting.
 */
static bool
fold_while_it_fits(int64 n, Page leaf, const char *item, int len)
{
	const PbtLayout *layout = pbt_layout(leaf);
	PageHeader	hdr = (PageHeader) leaf;
	int64		cost;
	int			free_bytes;

	if (pbt_is_subnode(PbtPageGetOpaque(leaf)))
		return false;
	cost = layout->item_cost(leaf, item, len);
	/* room for one more in the gap, as pbt_page_has_room: no need to count */
	if ((n + 2) * cost + MAXIMUM_ALIGNOF <= hdr->pd_upper - hdr->pd_lower)
		return false;
	free_bytes = layout->free_space(leaf);
	return (n + 1) * cost <= free_bytes && (n + 2) * cost > free_bytes;
}

/*
 * Add item to the run of the exclusively locked leaf in leafbuf instead of
 * the leaf.  False if the run would pass the threshold: then the caller
 * folds it.
 */
bool
pbt_run_append(Relation index, PbtState *st, Buffer leafbuf, const char *item,
			   int len)
{
	BlockNumber leaf = BufferGetBlockNumber(leafbuf);
	uint32		group = pbt_delta_group(index, st);
	int			slot = pbt_side_slot(group, leaf);
	Page		leaf_page = BufferGetPage(leafbuf);
	uint32		tag = pbt_run_tag(leaf_page);
	Buffer		sbuf;
	Page		spage;
	PbtRunHeader *hdr;
	bool		init;
	int			room;
	int			limit;
	int			need;
	int			n = 0;			/* entries in the live run */

	Assert(pbt_buffer_locked(leafbuf, LW_EXCLUSIVE));
	Assert(group > 0 && PbtIsLeaf(PbtPageGetOpaque(leaf_page)));
	/* the threshold can change (ALTER INDEX SET); the slots cannot */
	room = pbt_side_slot_size(group) - (int) sizeof(PbtRunHeader);
	limit = Min(st->delta_threshold, room);
	if (PBT_RUN_WHOLE_COST(len) > limit)
		return false;
	sbuf = ReadBuffer(index, pbt_leaf_side_block(index, group, leaf));
	LockBuffer(sbuf, BUFFER_LOCK_EXCLUSIVE);
	spage = BufferGetPage(sbuf);
	init = PageIsNew(spage);
	hdr = pbt_side_run_checked(index, spage, BufferGetBlockNumber(sbuf), group, slot);
	if (!init && hdr == NULL)
		pbt_page_error(index, BufferGetBlockNumber(sbuf),
					   "delta area block is not a side page");
	if (init || !pbt_run_live(hdr, tag))
		need = PBT_RUN_WHOLE_COST(len); /* a new run's first entry, whole */
	else
	{
		n = pbt_run_count(hdr);
		need = hdr->used + entry_cost(len, run_entry_shared(spage, slot, item, len));
		if (fold_while_it_fits(n, leaf_page, item, len))
		{
			UnlockReleaseBuffer(sbuf);
			return false;
		}
	}

	/*
	 * Past the threshold, without the resource manager, a subnode's run
	 * fills its slot: every fold logs the leaf's shifted bytes there, so
	 * fewer folds pay, and the room is in the slot anyway.  A subnode that
	 * cannot take its run rebalances its group.  Other leaves keep the
	 * threshold: a bulk-built leaf has about 10% of a page free (fillfactor
	 * 90), and a larger run would split it early.
	 */
	if ((need > limit || n + 1 > limit / PBT_RUN_ENTRY_BUDGET) &&
		!(st->delta_fill_slot && need <= room &&
		  pbt_is_subnode(PbtPageGetOpaque(leaf_page))))
	{
		UnlockReleaseBuffer(sbuf);
		return false;
	}

	if (pbt_rmgr_registered && RelationNeedsWAL(index))
	{
		xl_pbt_run_append xlrec;
		XLogRecPtr	recptr;

		xlrec.slot = slot;
		xlrec.group = group;
		xlrec.init = init;
		START_CRIT_SECTION();
		if (init)
			pbt_side_page_init(spage, group);
		pbt_side_run_claim(spage, slot, tag);
		pbt_side_run_append(spage, slot, item, len);
		MarkBufferDirty(sbuf);
		PBT_CHECK_DEFINED(item, len);
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, sizeof(xlrec));
		if (tag != 0)
			XLogRegisterData((char *) &tag, sizeof(tag));
		XLogRegisterBuffer(0, sbuf, REGBUF_STANDARD |
						   (init ? REGBUF_WILL_INIT : 0));
		XLogRegisterBufData(0, (char *) item, len);
		recptr = XLogInsert(PBT_RMGR_ID, XLOG_PBT_RUN_APPEND);
		PageSetLSN(spage, recptr);
		END_CRIT_SECTION();
	}
	else if (!init && RelationNeedsWAL(index))
		log_generic_append(sbuf, slot, tag, item, len);
	else
	{
		GenericXLogState *xlog = GenericXLogStart(index);
		Page		p = pbt_generic_register(xlog, sbuf,
											 init ? GENERIC_XLOG_FULL_IMAGE : 0);

		if (init)
			pbt_side_page_init(p, group);
		pbt_side_run_claim(p, slot, tag);
		pbt_side_run_append(p, slot, item, len);
		GenericXLogFinish(xlog);
	}
	UnlockReleaseBuffer(sbuf);
	return true;
}

/* ----------------------------------------------------------------
 * Folds
 * ----------------------------------------------------------------
 */

/*
 * Insert items[0..n) into page, a copy of a leaf, each where it belongs;
 * the positions go to pos[].  False if one does not fit.
 */
static bool
insert_all(PbtState *st, Page page, const PbtItem *items, int n, uint16 *pos)
{
	for (int i = 0; i < n; i++)
	{
		PbtSearchKey key;
		int			p = 0;

		if (!pbt_layout(page)->insert_anywhere)
		{
			pbt_key_from_item(st, items[i].data, items[i].len, &key);
			p = pbt_binsearch(st, page, &key);
		}
		if (!pbt_page_insert(page, p, items[i].data, items[i].len))
			return false;
		pos[i] = p;
	}
	return true;
}

static void
apply_inserts(Page page, const PbtItem *items, int n, const uint16 *pos)
{
	for (int i = 0; i < n; i++)
		if (!pbt_page_insert(page, pos[i], items[i].data, items[i].len))
			elog(PANIC, "pagebtree: a folded entry does not fit after all");
}

/* items as WAL data: [uint16 pos (if pos)][uint16 len][bytes] each */
static char *
pack_items(const PbtItem *items, int n, const uint16 *pos, int *size)
{
	int			total = 0;
	char	   *buf;
	char	   *p;

	for (int i = 0; i < n; i++)
		total += (pos ? sizeof(uint16) : 0) + PACKED_ITEM_COST(items[i].len);
	p = buf = palloc(Max(total, 1));
	for (int i = 0; i < n; i++)
	{
		uint16		len16 = items[i].len;

		if (pos)
		{
			memcpy(p, &pos[i], sizeof(uint16));
			p += sizeof(uint16);
		}
		memcpy(p, &len16, sizeof(uint16));
		memcpy(p + sizeof(uint16), items[i].data, len16);
		p += PACKED_ITEM_COST(len16);
	}
	*size = total;
	return buf;
}

/* entries as a run stores them, for WAL data */
char *
pbt_run_pack(const PbtItem *items, int n, int *size)
{
	return pack_items(items, n, NULL, size);
}

/* the inverse of pack_items; items point into data */
static void
unpack_items(char *data, int n, PbtItem *items, uint16 *pos)
{
	for (int i = 0; i < n; i++)
	{
		uint16		len16;

		if (pos)
		{
			memcpy(&pos[i], data, sizeof(uint16));
			data += sizeof(uint16);
		}
		memcpy(&len16, data, sizeof(uint16));
		items[i].data = data + sizeof(uint16);
		items[i].len = len16;
		data += PACKED_ITEM_COST(len16);
	}
}

/* log_fold's change to the pages, for pbt_generic_change */
typedef struct FoldChange
{
	Page		leaf;
	const PbtItem *ins;
	int			nins;
	const uint16 *pos;
	const char *result;			/* the leaf with them, if made already */
	Page		spage;
	int			slot;
	const PbtItem *keep;
	int			nkeep;
} FoldChange;

static void
apply_fold(void *arg)
{
	FoldChange *c = (FoldChange *) arg;

	/* (inserts are deterministic: the result is what they would make) */
	if (c->result)
		memcpy(c->leaf, c->result, BLCKSZ);
	else if (c->nins > 0)
		apply_inserts(c->leaf, c->ins, c->nins, c->pos);
	pbt_side_run_set(c->spage, c->slot, c->keep, c->nkeep, c->nins > 0);
}

/*
 * Log and make one change: the leaf in leafbuf gets ins[0..nins) at
 * positions pos (nins may be 0: the leaf stays as it is), and its run's
 * slot on the side page holds keep[0..nkeep) afterwards.  Both locked
 * exclusively, the side page last.  Items inserted into a page are
 * MAXALIGNed copies (comparator mode: index tuples).  result, if not NULL:
 * a copy of the leaf with the inserts made, which saves making them again.
 * vacuum: VACUUM dropped entries, under the leaf's cleanup lock, which redo
 * takes too.
 */
static void
log_fold(Relation index, Buffer leafbuf, const PbtItem *ins, int nins,
		 const uint16 *pos, const char *result, Buffer sbuf, int slot,
		 const PbtItem *keep, int nkeep, bool vacuum)
{
	Page		leaf = BufferGetPage(leafbuf);
	Page		spage = BufferGetPage(sbuf);
	bool		folded = nins > 0;
	FoldChange	change = {leaf, ins, nins, pos, result, spage, slot,
						  keep, nkeep};

	Assert(pbt_buffer_locked(leafbuf, LW_EXCLUSIVE) &&
		   pbt_buffer_locked(sbuf, LW_EXCLUSIVE));
	if (pbt_rmgr_registered && RelationNeedsWAL(index))
	{
		xl_pbt_fold xlrec;
		XLogRecPtr	recptr;
		int			inslen = 0;
		int			keeplen = 0;
		char	   *insdata = folded ? pack_items(ins, nins, pos, &inslen) : NULL;
		char	   *keepdata = pack_items(keep, nkeep, NULL, &keeplen);

		xlrec.slot = slot;
		xlrec.ninserted = nins;
		xlrec.nkept = nkeep;
		START_CRIT_SECTION();
		apply_fold(&change);
		if (folded)
			MarkBufferDirty(leafbuf);
		MarkBufferDirty(sbuf);
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, sizeof(xlrec));
		if (folded)
		{
			XLogRegisterBuffer(0, leafbuf, REGBUF_STANDARD);
			XLogRegisterBufData(0, insdata, inslen);
		}
		else if (vacuum)
			XLogRegisterBuffer(0, leafbuf, REGBUF_STANDARD | REGBUF_NO_IMAGE |
							   REGBUF_NO_CHANGE);
		XLogRegisterBuffer(1, sbuf, REGBUF_STANDARD);
		if (keeplen > 0)
			XLogRegisterBufData(1, keepdata, keeplen);
		recptr = XLogInsert(PBT_RMGR_ID,
							vacuum ? XLOG_PBT_VACUUM_FOLD : XLOG_PBT_FOLD);
		if (folded)
			PageSetLSN(leaf, recptr);
		PageSetLSN(spage, recptr);
		END_CRIT_SECTION();
		if (insdata)
			pfree(insdata);
		pfree(keepdata);
	}
	else
	{
		Buffer		bufs[2] = {leafbuf, sbuf};

		pbt_generic_change(index, folded ? 2 : 1, folded ? bufs : &bufs[1],
						   apply_fold, &change);
	}
}

static Buffer
lock_side_page(Relation index, PbtState *st, BlockNumber leaf)
{
	Buffer		sbuf = ReadBuffer(index,
								  pbt_leaf_side_block(index, st->delta_group, leaf));

	LockBuffer(sbuf, BUFFER_LOCK_EXCLUSIVE);
	Assert(PbtIsSidePage(BufferGetPage(sbuf)));
	return sbuf;
}

/*
 * Fold run (read from the exclusively locked leaf in leafbuf) and item, if
 * given, into the leaf, if they all fit.  False if they do not: the leaf
 * must split, which folds the run too (pbt_insert.c).
 */
bool
pbt_run_fold(Relation index, PbtState *st, Buffer leafbuf, PbtRun *run,
			 const char *item, int len)
{
	BlockNumber leaf = BufferGetBlockNumber(leafbuf);
	int			n = run->n + (item ? 1 : 0);
	PbtItem    *ins = palloc(sizeof(PbtItem) * n);
	uint16	   *pos = palloc(sizeof(uint16) * n);
	PGAlignedBlock copy;
	Buffer		sbuf;

	Assert(pbt_buffer_locked(leafbuf, LW_EXCLUSIVE) && run->n > 0);
	memcpy(ins, run->items, sizeof(PbtItem) * run->n);
	if (item)
	{
		ins[run->n].data = item;
		ins[run->n].len = len;
	}
	memcpy(copy.data, BufferGetPage(leafbuf), BLCKSZ);
	if (!insert_all(st, copy.data, ins, n, pos))
	{
		pfree(ins);
		pfree(pos);
		return false;
	}
	sbuf = lock_side_page(index, st, leaf);
	log_fold(index, leafbuf, ins, n, pos, copy.data, sbuf, run->slot, NULL, 0,
			 false);
	PBT_CHECK_PAGE(index, BufferGetPage(leafbuf), leaf);
	UnlockReleaseBuffer(sbuf);
	pfree(ins);
	pfree(pos);
	return true;
}

/*
 * Replace the exclusively locked leaf in leafbuf by newpage, a rebuild of it
 * that holds items[0..nitems), its run's entries too (run: NULL if it has
 * none), and empty the run, in one WAL record: a leaf converted instead of
 * split (pbt_insert.c).  The record is XLOG_PBT_REBUILD (pbt_log_rebuild)
 * where it can be, else generic WAL with the leaf whole.
 */
void
pbt_leaf_replace(Relation index, PbtState *st, Buffer leafbuf,
				 const PbtRun *run, Page newpage, const PbtItem *items,
				 int nitems)
{
	Buffer		sbuf = InvalidBuffer;

	Assert(pbt_buffer_locked(leafbuf, LW_EXCLUSIVE));
	if (run)
		sbuf = lock_side_page(index, st, BufferGetBlockNumber(leafbuf));
	if (!pbt_log_rebuild(index, st, leafbuf, newpage, items, nitems, sbuf,
						 run ? run->slot : -1))
	{
		GenericXLogState *xlog = GenericXLogStart(index);

		memcpy(pbt_generic_register(xlog, leafbuf, GENERIC_XLOG_FULL_IMAGE),
			   newpage, BLCKSZ);
		if (run)
			pbt_side_run_set(pbt_generic_register(xlog, sbuf, 0),
							 run->slot, NULL, 0, true);
		GenericXLogFinish(xlog);
	}
	if (run)
		UnlockReleaseBuffer(sbuf);
}

/*
 * VACUUM of the run of the exclusively locked leaf in leafbuf: entries
 * whose heap tuples are gone (callback; none without one) are dropped, the
 * others folded into the leaf as far as they fit (in key order); what does
 * not fit stays in the run.  Counts the entries removed and live, and
 * returns how many stay pending.
 */
int
pbt_run_vacuum(Relation index, PbtState *st, Buffer leafbuf,
			   IndexBulkDeleteCallback callback, void *callback_state,
			   double *removed, double *live)
{
	BlockNumber leaf = BufferGetBlockNumber(leafbuf);
	PbtRun		run;
	PbtItem    *ins;
	uint16	   *pos;
	int			nlive = 0;
	int			nins = 0;
	PGAlignedBlock copy;
	Buffer		sbuf;

	if (!pbt_run_read(index, st, leafbuf, &run, NULL))
	{
		/* a stale run's bytes go, so that its group can be deleted */
		if (run.stale)
		{
			/* (no reader takes a stale run's entries: no pin interlock) */
			sbuf = lock_side_page(index, st, leaf);
			log_fold(index, leafbuf, NULL, 0, NULL, NULL, sbuf, run.slot,
					 NULL, 0, false);
			UnlockReleaseBuffer(sbuf);
		}
		return 0;
	}
	pbt_run_sort(st, &run);
	ins = palloc(sizeof(PbtItem) * run.n);
	pos = palloc(sizeof(uint16) * run.n);
	for (int i = 0; i < run.n; i++)
	{
		ItemPointerData tid;

		pbt_item_get_tid(st, run.items[i].data, run.items[i].len, &tid);
		pbt_check_heap_tid(index, leaf, &tid, MaxOffsetNumber);
		if (callback && callback(&tid, callback_state))
			continue;
		run.items[nlive++] = run.items[i];
	}
	*removed += run.n - nlive;
	*live += nlive;
	memcpy(copy.data, BufferGetPage(leafbuf), BLCKSZ);
	while (nins < nlive && insert_all(st, copy.data, &run.items[nins], 1, &pos[nins]))
	{
		ins[nins] = run.items[nins];
		nins++;
	}
	if (nins > 0 || nlive < run.n)
	{
		/*
		 * Only dropped entries need redo to take the cleanup lock (a
		 * cleanup-only VACUUM, without a callback, holds none): a fold
		 * alone is an insert's change
		 */
		sbuf = lock_side_page(index, st, leaf);
		log_fold(index, leafbuf, ins, nins, pos, NULL, sbuf, run.slot,
				 run.items + nins, nlive - nins, nlive < run.n);
		PBT_CHECK_PAGE(index, BufferGetPage(leafbuf), leaf);
		UnlockReleaseBuffer(sbuf);
	}
	pfree(ins);
	pfree(pos);
	pbt_run_free(&run);
	return nlive - nins;
}

/* ----------------------------------------------------------------
 * Redo
 * ----------------------------------------------------------------
 */
void
pbt_redo_run_append(XLogReaderState *record)
{
	xl_pbt_run_append *xlrec = (xl_pbt_run_append *) XLogRecGetData(record);
	Buffer		buf;
	XLogRedoAction action;

	if (xlrec->init)
	{
		buf = XLogInitBufferForRedo(record, 0);
		pbt_side_page_init(BufferGetPage(buf), xlrec->group);
		action = BLK_NEEDS_REDO;
	}
	else
		action = XLogReadBufferForRedo(record, 0, &buf);
	if (action == BLK_NEEDS_REDO)
	{
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		Page		page = BufferGetPage(buf);
		uint32		tag = 0;

		if (XLogRecGetDataLen(record) >= sizeof(*xlrec) + sizeof(tag))
			memcpy(&tag, XLogRecGetData(record) + sizeof(*xlrec), sizeof(tag));
		pbt_side_run_claim(page, xlrec->slot, tag);
		pbt_side_run_append(page, xlrec->slot, data, len);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

void
pbt_redo_fold(XLogReaderState *record, bool cleanup)
{
	xl_pbt_fold *xlrec = (xl_pbt_fold *) XLogRecGetData(record);
	Buffer		buf = InvalidBuffer;
	Buffer		sbuf;

	/* (VACUUM's record may name the leaf only to take its cleanup lock) */
	if (XLogRecHasBlockRef(record, 0) &&
		XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, cleanup,
									  &buf) == BLK_NEEDS_REDO &&
		xlrec->ninserted > 0)
	{
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		PbtItem    *items = palloc(sizeof(PbtItem) * xlrec->ninserted);
		uint16	   *pos = palloc(sizeof(uint16) * xlrec->ninserted);
		Page		page = BufferGetPage(buf);
		PGAlignedBlock aligned;

		/* page items need aligned copies (comparator mode) */
		unpack_items(data, xlrec->ninserted, items, pos);
		for (int i = 0; i < xlrec->ninserted; i++)
		{
			memcpy(aligned.data, items[i].data, items[i].len);
			if (!pbt_page_insert(page, pos[i], aligned.data, items[i].len))
				elog(PANIC, "pagebtree redo: a folded entry does not fit");
		}
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
		pfree(items);
		pfree(pos);
	}

	/* the leaf stays locked until its run agrees with it (pbt_run_read) */
	if (XLogReadBufferForRedo(record, 1, &sbuf) == BLK_NEEDS_REDO)
	{
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 1, &len);
		PbtItem    *items = palloc(sizeof(PbtItem) * Max(xlrec->nkept, 1));
		Page		page = BufferGetPage(sbuf);

		unpack_items(data, xlrec->nkept, items, NULL);
		pbt_side_run_set(page, xlrec->slot, items, xlrec->nkept,
						 xlrec->ninserted > 0);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(sbuf);
		pfree(items);
	}
	if (BufferIsValid(sbuf))
		UnlockReleaseBuffer(sbuf);
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}
