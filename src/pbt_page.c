/*-------------------------------------------------------------------------
 *
 * pbt_page.c
 *	  Page-level operations shared by all layouts: allocation of new pages,
 *	  initialization, the high key, item space allocation and page rebuilds.
 *
 * Every page keeps a valid standard header: the layout's slot array grows
 * up from pd_lower and item bytes grow down from pd_upper, so full-page
 * images omit the hole and checksums work.  The high key lives in the item
 * area and is referenced from the special space, so it is independent of
 * the layout.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_delta.h"
#include "pbt_group.h"

#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/*
 * Iterate over the items at positions pos, pos + 1, ... (forward) or pos,
 * pos - 1, ... (backward); pos may be out of range, then nothing is
 * returned.
 */
static void
iter_begin(PbtIter *it, Page page, int pos, bool forward, bool unordered)
{
	int			n;

	it->page = page;
	it->unordered = unordered;
	it->layout = pbt_layout(page);
	n = it->layout->count(page);
	it->step = forward ? 1 : -1;
	it->stop = forward ? n : -1;
	it->primed = false;
	it->dead = false;
	if (forward ? pos >= n : pos < 0)
		pos = it->stop;
	else if (forward ? pos < 0 : pos >= n)
		pos = forward ? 0 : n - 1;
	it->pos = pos - it->step;
	if (pos != it->stop && it->layout->iter_start)
		it->layout->iter_start(it);
}

/*
 * Damage in a tree page's special space that the engine would act on (its
 * level, its high key's bounds, and whether and where it is a subnode), or
 * NULL: the checks that need no index state, for pbt_layout_checked and
 * the verifier.
 */
const char *
pbt_special_problem(Page page)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	bool		leaf = PbtIsLeaf(opaque);
	uint16		group_flags = opaque->flags & (PBT_HOLE | PBT_KEY_START);

	/* (the layouts bound their items by it) */
	if (((PageHeader) page)->pd_special != PBT_SPECIAL_OFFSET)
		return "pd_special is not where the special space is";
	if (opaque->hikey_len > 0 &&
		!pbt_in_item_space(page, opaque->hikey_off, opaque->hikey_len))
		return "high key out of bounds";
	if (opaque->flags & (PBT_META | PBT_SIDE | PBT_FRONT_CODED))
		return "a tree page has the flags of a metapage or side page";
	if (leaf != (opaque->level == 0))
		return "leaf flag disagrees with level";
	if (!(opaque->flags & PBT_GROUP))
		return group_flags == 0 ? NULL :
			"hole or key-start flag on a page that is not in a group";
	if (!leaf)
		return "group flag on an inner page";
	if (PbtIsRoot(opaque))
		return "a subnode of a leaf group is the root";
	if (opaque->group_size < 2 || opaque->group_size > PBT_MAX_GROUP_SIZE ||
		opaque->group_pos >= opaque->group_size)
		return "invalid leaf group position or size";
	if ((opaque->flags & PBT_KEY_START) &&
		(opaque->group_pos == 0 || (opaque->flags & PBT_HOLE)))
		return "key-start flag on a page that is not a later subnode in use";
	return NULL;
}

void
pbt_iter_start(PbtIter *it, Page page, int pos, bool forward)
{
	iter_begin(it, page, pos, forward, false);
}

/* all the page's items, in whatever order the layout keeps them */
void
pbt_iter_start_unordered(PbtIter *it, Page page)
{
	iter_begin(it, page, 0, true, true);
}

/*
 * Has the page room for need more bytes of items, compacting if need be?
 * The hole (with room for alignment) mostly answers; the layout's free
 * space, the hole and garbage, costs a pass over the page.
 */
bool
pbt_page_has_room(Page page, int need)
{
	PageHeader	hdr = (PageHeader) page;

	if (hdr->pd_upper - hdr->pd_lower >= need + MAXIMUM_ALIGNOF)
		return true;
	return pbt_layout(page)->free_space(page) >= need;
}

void
pbt_page_init(Page page, uint16 level, uint16 flags, uint8 layout,
			  PbtState *st)
{
	PbtPageOpaque opaque;

	/* leaves are level 0, and a layout is used only where it may be */
	Assert((flags & (PBT_META | PBT_SIDE)) || ((flags & PBT_LEAF) != 0) == (level == 0));
	Assert((flags & (PBT_META | PBT_SIDE)) ||
		   (pbt_layout_by_tag(layout)->flags &
			((flags & PBT_LEAF) ? PBT_LF_LEAF : PBT_LF_INNER)));
	PageInit(page, BLCKSZ, sizeof(PbtPageOpaqueData));
	opaque = PbtPageGetOpaque(page);
	opaque->prev = InvalidBlockNumber;
	opaque->next = InvalidBlockNumber;
	opaque->safexid = InvalidFullTransactionId;
	opaque->level = level;
	opaque->flags = flags;
	opaque->hikey_off = 0;
	opaque->hikey_len = 0;
	opaque->page_id = PBT_PAGE_ID;
	opaque->op_counter = PBT_OPS_OFF;
	if (level > 0 && st->normalized)
		opaque->downlink_extra = PBT_DOWNLINK_SIZE(st) - sizeof(BlockNumber);
	pbt_page_set_layout(page, layout, st);
	pbt_layout(page)->init(page);
}

void
pbt_meta_init(Page page, uint32 key_mode, uint32 version)
{
	PbtMetaPageData *meta;

	pbt_page_init(page, 0, PBT_META, PBT_META_LAYOUT, NULL);
	meta = PbtPageGetMeta(page);
	meta->magic = PBT_MAGIC;
	meta->version = version;
	meta->root = InvalidBlockNumber;
	meta->level = 0;
	meta->key_mode = key_mode;
	meta->vacuum_generic = !pbt_rmgr_registered;
	/* keep the metadata out of the hole that full-page images skip */
	((PageHeader) page)->pd_lower =
		((char *) meta + sizeof(PbtMetaPageData)) - (char *) page;
}

/*
 * Cache in st what the metapage fixes at build: the delta area's and leaf
 * groups' geometry.  Checks the format version.
 */
void
pbt_meta_settings(Relation index, PbtState *st, const PbtMetaPageData *meta)
{
	if (meta->magic != PBT_MAGIC)
		pbt_page_error(index, PBT_METAPAGE_BLKNO, "not a pagebtree metapage");
	if (!pbt_version_known(meta->version))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has pagebtree version %u, expected %u, %u, %u or %u",
						RelationGetRelationName(index), meta->version,
						PBT_VERSION, PBT_GROUP_VERSION,
						PBT_SHORT_PAYLOAD_VERSION,
						PBT_GROUP_SHORT_PAYLOAD_VERSION),
				 errhint("REINDEX the index.")));
	st->delta_group = meta->delta_group;
	st->group_size = pbt_version_has_groups(meta->version) ? meta->group_size : 0;
	st->short_payloads = pbt_version_has_short_payloads(meta->version);
	st->group_hint_bits = st->group_size > 0 ? meta->group_hint_bits : 0;
	/* a build makes delta_group a power of two (pbt_delta_group_for_build) */
	if ((st->delta_group != 0 &&
		 (st->delta_group < PBT_MIN_DELTA_GROUP ||
		  st->delta_group > PBT_MAX_DELTA_GROUP ||
		  (st->delta_group & (st->delta_group - 1)) != 0)) ||
		st->group_size == 1 || st->group_size > PBT_MAX_GROUP_SIZE ||
		st->group_hint_bits > 32)
		pbt_page_error(index, PBT_METAPAGE_BLKNO, "bad delta area or leaf group settings");
	st->delta_known = true;
}

/*
 * Mark in the metapage whether a VACUUM is reading the leaves in block
 * order, so that splits take no page from the free space map meanwhile
 * (pbt_new_page).  Logged, so that a standby's metapage stays the same.
 */
void
pbt_set_vacuum_scan(Relation index, bool on)
{
	Buffer		metabuf = ReadBuffer(index, PBT_METAPAGE_BLKNO);
	GenericXLogState *xlog;
	Page		meta;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	xlog = GenericXLogStart(index);
	meta = pbt_generic_register(xlog, metabuf, 0);
	PbtPageGetMeta(meta)->vacuum_scan = on;
	/* logged before any removal of this VACUUM: see pbtcanreturn */
	if (on)
		PbtPageGetMeta(meta)->vacuum_generic = !pbt_rmgr_registered;
	/* an older index's metapage ends before the fields: not in the hole */
	((PageHeader) meta)->pd_lower =
		Max(((PageHeader) meta)->pd_lower,
			(char *) (PbtPageGetMeta(meta) + 1) - (char *) meta);
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(metabuf);
}

/*
 * Is a VACUUM reading the index in block order (vacuum_blocks)?  Then no
 * free page may be reused: ask with the pages to reuse locked, so that a
 * VACUUM that starts later reads them after the caller's change.
 *
 * A pass that ended in an error, or a crash or a recovery that ended
 * during one, leaves the flag set with no pass running.  Every pass runs
 * under its VACUUM's ShareUpdateExclusiveLock on the table, and VACUUM
 * takes no page itself: a caller that gets that lock without waiting, and
 * did not hold it already (as its own VACUUM would), knows that no pass
 * runs, and clears the flag.  (LockAcquire, not ConditionalLockRelationOid:
 * the caller is inside a split, and must not process invalidations that
 * would free the index's cached state.)
 */
bool
pbt_vacuum_scanning(Relation index)
{
	Buffer		metabuf = ReadBuffer(index, PBT_METAPAGE_BLKNO);
	LOCKTAG		table;
	bool		on;

	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	on = PbtPageGetMeta(BufferGetPage(metabuf))->vacuum_scan != 0;
	UnlockReleaseBuffer(metabuf);
	if (!on)
		return false;
	SET_LOCKTAG_RELATION(table, MyDatabaseId, index->rd_index->indrelid);
	switch (LockAcquire(&table, ShareUpdateExclusiveLock, false, true))
	{
		case LOCKACQUIRE_NOT_AVAIL:
			return true;
		case LOCKACQUIRE_OK:
			pbt_set_vacuum_scan(index, false);
			on = false;
			break;
		default:
			/* held already: this backend cannot tell */
			break;
	}
	LockRelease(&table, ShareUpdateExclusiveLock, false);
	return on;
}

/*
 * Put back into the free space map the blocks that searches of it took and
 * did not use.  RecordFreeIndexPage updates the map's bottom page only; if
 * a search found the map empty (dry), it has marked its upper levels so,
 * and the blocks would stay hidden from searches until VACUUM's
 * IndexFreeSpaceMapVacuum unless those levels are updated too.
 */
void
pbt_return_free_pages(Relation index, const BlockNumber *blocks, int n,
					  bool dry)
{
	BlockNumber first = InvalidBlockNumber;
	BlockNumber last = 0;

	for (int i = 0; i < n; i++)
	{
		RecordFreeIndexPage(index, blocks[i]);
		first = Min(first, blocks[i]);
		last = Max(last, blocks[i]);
	}
	if (dry && n > 0)
		FreeSpaceMapVacuumRange(index, first, last + 1);
}

/*
 * An exclusively locked page for the caller to initialize: a page from the
 * free space map, deleted once no scan can still reach it or all zero (see
 * recycle_page), else a new one at the end of the index.
 */
Buffer
pbt_new_page(Relation index)
{
	Buffer		buf = InvalidBuffer;

	/* 16's ExtendBufferedRel takes the extension lock itself */
	bool		needlock = PBT_EXTEND_NEEDS_LOCK && !RELATION_IS_LOCAL(index);
	PbtState   *st = pbt_get_state(index);
	uint32		group = pbt_delta_group(index, st);
	BlockNumber skipped[PBT_FREE_PAGE_TRIES];
	int			nskipped = 0;
	BlockNumber deleted_group = InvalidBlockNumber;
	BlockNumber blkno;

	while ((blkno = GetFreeIndexPage(index)) != InvalidBlockNumber)
	{
		buf = ReadBuffer(index, blkno);
		if (ConditionalLockBuffer(buf))
		{
			Page		page = BufferGetPage(buf);
			PbtPageOpaque opaque = PbtPageGetOpaque(page);

			/* (no scan can reach a zero page: no conflict to log) */
			bool		reusable = PageIsNew(page) ?
				!pbt_is_side_block(group, blkno) :
				PbtIsDeleted(opaque) &&
				GlobalVisCheckRemovableFullXid(NULL, opaque->safexid);

			/*
			 * Not while VACUUM reads the index in block order: it may have
			 * gone by this block (see vacuum_blocks).  Checked with the page
			 * locked, so a VACUUM that starts later reads it after us.
			 */
			if (reusable && pbt_vacuum_scanning(index))
			{
				RecordFreeIndexPage(index, blkno);
				UnlockReleaseBuffer(buf);
				buf = InvalidBuffer;
				break;
			}

			/* a deleted group's blocks are left to a new group */
			if (reusable && st->group_size > 0 && !PageIsNew(page) &&
				nskipped < lengthof(skipped) &&
				pbt_in_deleted_group(index, st, blkno, page, &deleted_group))
				skipped[nskipped++] = blkno;
			else if (reusable)
			{
				if (!PageIsNew(page))
					pbt_log_reuse_page(index, blkno, opaque->safexid);
				break;
			}
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buf);
		buf = InvalidBuffer;
	}
	pbt_return_free_pages(index, skipped, nskipped, blkno == InvalidBlockNumber);
	if (BufferIsValid(buf))
		return buf;

	if (needlock)
		LockRelationForExtension(index, ExclusiveLock);
	buf = pbt_extend_relation(index);
	/* side pages of the delta area stay zero until their first run */
	while (pbt_is_side_block(group, BufferGetBlockNumber(buf)))
	{
		UnlockReleaseBuffer(buf);
		buf = pbt_extend_relation(index);
	}
	if (needlock)
		UnlockRelationForExtension(index, ExclusiveLock);
	return buf;
}

/*
 * Order a probe's matches (see PbtLayout.probe) by heap TID, with their dead
 * hints: an insertion sort, since they are few and mostly in order already.
 */
void
pbt_probe_sort(const char **tids, bool *dead, int n)
{
	for (int i = 1; i < n; i++)
	{
		const char *t = tids[i];
		bool		d = dead[i];
		int			j = i;

		while (j > 0 && memcmp(tids[j - 1], t, PBT_TID_BYTES) > 0)
		{
			tids[j] = tids[j - 1];
			dead[j] = dead[j - 1];
			j--;
		}
		tids[j] = t;
		dead[j] = d;
	}
}

/*
 * Set the layout tag of a page about to be (re)built, with the layout's
 * parameter from the index's options (st may be NULL: defaults).  The
 * caller then initializes or rebuilds the item area.
 */
void
pbt_page_set_layout(Page page, uint8 layout, PbtState *st)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);

	Assert(layout < PBT_MAX_LAYOUTS && pbt_layout_by_tag(layout) != NULL);
	Assert(!(pbt_layout_by_tag(layout)->flags & PBT_LF_RETIRED));
	opaque->layout = layout;
	opaque->layout_param = st ? st->layout_param[layout] : 0;
}

/*
 * The page's high key, if it has one.  A page has one exactly when it is not
 * the rightmost of its level; the length tells, not the right-link, because
 * a split or bulk build rebuilds a page with its new high key before it
 * links the page to its new right sibling, and the layout's load must plan
 * with that high key (the verifier checks that the two agree).
 */
bool
pbt_page_get_hikey(Page page, PbtItem *hikey)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);

	if (opaque->hikey_len == 0)
		return false;
	hikey->data = (char *) page + opaque->hikey_off;
	hikey->len = opaque->hikey_len;
	return true;
}

/* bytes the high key takes in the item area (0 on a rightmost page) */
int
pbt_page_hikey_bytes(Page page)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);

	return opaque->hikey_len;
}

/*
 * Reserve len bytes of item space below pd_upper, keeping room for one more
 * slot.  Returns the offset, or -1 if there is no room without compaction.
 */
int
pbt_page_alloc(Page page, int len)
{
	PageHeader	hdr = (PageHeader) page;
	const PbtLayout *layout = pbt_layout(page);
	int			lower = layout->low_end ? layout->low_end(page) : hdr->pd_lower;
	int			upper = hdr->pd_upper - len;

	Assert(lower >= hdr->pd_lower);
	if (PbtPageGetOpaque(page)->flags & PBT_ALIGNED_ITEMS)
		upper = TYPEALIGN_DOWN(MAXIMUM_ALIGNOF, upper);
	if (upper < (int) (lower + sizeof(PbtSlot)))
		return -1;
	hdr->pd_upper = upper;
	return upper;
}

/* Store a new high key; the old one's bytes become garbage. */
bool
pbt_page_set_hikey(Page page, const char *data, int len)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	int			off = pbt_page_alloc(page, len);

	if (off < 0)
		return false;
	memcpy((char *) page + off, data, len);
	opaque->hikey_off = off;
	opaque->hikey_len = len;
	return true;
}

/*
 * Lay out in tmp an empty copy of page: its header fields other than
 * pd_lower/pd_upper, its special space and layout tag, the layout's empty
 * item area and the high key (which may point into page).
 */
void
pbt_page_start_rebuild(Page tmp, Page page, PbtItem *hikey)
{
	char	   *base = (char *) page;

	/* the whole block goes back to shared buffers: no undefined hole */
	memset(tmp, 0, BLCKSZ);
	memcpy(tmp, page, SizeOfPageHeaderData);
	memcpy(tmp + ((PageHeader) page)->pd_special,
		   base + ((PageHeader) page)->pd_special,
		   BLCKSZ - ((PageHeader) page)->pd_special);
	((PageHeader) tmp)->pd_lower = SizeOfPageHeaderData;
	((PageHeader) tmp)->pd_upper = ((PageHeader) tmp)->pd_special;
	PbtPageGetOpaque(tmp)->hikey_off = PbtPageGetOpaque(tmp)->hikey_len = 0;
	pbt_layout(tmp)->init(tmp);

	if (hikey && !pbt_page_set_hikey(tmp, hikey->data, hikey->len))
		elog(ERROR, "pagebtree page rebuild: high key does not fit");
}

/*
 * Rewrite the item area of page to hold exactly the given items (in order)
 * and high key, squeezing out garbage.  The inputs may point into the page
 * itself.  Header fields other than pd_lower/pd_upper, the special space and
 * the layout tag are kept.
 */
void
pbt_page_rebuild(Page page, PbtItem *items, int nitems, PbtItem *hikey)
{
	PGAlignedBlock copy;

	pbt_page_start_rebuild(copy.data, page, hikey);
	pbt_layout(copy.data)->load(copy.data, items, nitems);
	memcpy(page, copy.data, BLCKSZ);
}

/*
 * Delete the items at ordered positions (ascending) from a leaf, on the
 * primary and in redo.  Layouts leave deleted items' bytes below pd_upper
 * until they need the room, and a full-page image carries them: btree's
 * VACUUM compacts as it deletes, so after a checkpoint its images of
 * thinned leaves are smaller than ours were.  So a leaf left empty keeps
 * only its high key (which was on the page, so it fits: no error inside
 * the caller's critical section), and with compact, a leaf left with
 * PBT_COMPACT_GARBAGE bytes of garbage or more is compacted.  The caller
 * passes compact where the compaction costs no WAL: redo of our record
 * repeats it, and a generic record that logs the page whole anyway does
 * not care what moved.
 */
void
pbt_page_delete(Page page, const int *positions, int n, bool compact)
{
	const PbtLayout *layout = pbt_layout(page);

	Assert(PbtIsLeaf(PbtPageGetOpaque(page)));
	layout->delete(page, positions, n);
	if (layout->count(page) == 0)
	{
		PGAlignedBlock copy;
		PbtItem		hikey;

		pbt_page_start_rebuild(copy.data, page,
							   pbt_page_hikey_or_null(page, &hikey));
		memcpy(page, copy.data, BLCKSZ);
	}
	else if (compact && layout->compact &&
			 layout->garbage(page) >= PBT_COMPACT_GARBAGE)
		layout->compact(page);
}

/*
 * Rebuild page as a page of layout tag holding exactly the given items and
 * high key (see pbt_page_rebuild): a split's half, a leaf converted, a
 * bulk-built leaf.  The caller chose the layout (pbt_policy.c) and logs
 * the page.
 */
void
pbt_page_rebuild_as(Page page, uint8 tag, PbtState *st, PbtItem *items,
					int nitems, PbtItem *hikey)
{
	pbt_page_set_layout(page, tag, st);
	pbt_page_rebuild(page, items, nitems, hikey);
}

/*
 * Rebuild page in place as a page of layout tag with parameter param,
 * holding the same items and high key, if they fit that layout (else leave
 * it as it is and return false): a reader's conversion of a leaf
 * (pbt_adapt.c) and its redo, which must give the same bytes from the same
 * items (entries come out without their dead-entry hints).
 */
bool
pbt_page_convert_to(Page page, uint8 tag, uint8 param)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	const PbtLayout *layout = pbt_layout_by_tag(tag);
	int			n = pbt_layout(page)->count(page);
	PbtItem    *items = pbt_page_copy_items(page, n);
	PbtItem		hikey;
	bool		has_hikey = pbt_page_get_hikey(page, &hikey);
	bool		fits;

	Assert(layout != NULL);
	fits = layout->fits(items, n, has_hikey ? &hikey : NULL, NULL);
	if (fits)
	{
		opaque->layout = tag;
		opaque->layout_param = param;
		pbt_page_rebuild(page, items, n, has_hikey ? &hikey : NULL);
	}
	pbt_free_items(items, n);
	return fits;
}

/*
 * Rewrite page, of a layout that turns into its convert_to when an insert
 * breaks its pattern (PBT_LF_REBUILT: dense, semidense), as a page of that
 * layout holding its items and the new one (data, len) at pos, keeping the
 * header, special space and high key.  Called by the layout's insert, which
 * has checked that they fit (see the conversion target's prefix_bytes and
 * suffix_bytes).  The first and last items are loaded first, which fixes
 * what a target that stores a prefix once per page (heads) keeps, then the
 * others are inserted in order, so no array of all items is needed (this
 * runs inside a critical section: no palloc).  Deterministic, for WAL
 * redo; the new page gets the target's default parameter, as redo could
 * not know the index's.
 */
void
pbt_page_convert(Page page, int pos, const char *data, int len)
{
	PageHeader	phdr = (PageHeader) page;
	const PbtLayout *from = pbt_layout(page);
	const PbtLayout *to = pbt_layout_by_tag(from->convert_to);
	int			total = from->count(page) + 1;
	PGAlignedBlock copy;
	Page		tmp = copy.data;
	PbtPageOpaque opaque;
	PbtItemBuf	buf0,
				buf1;
	PbtIter		it;
	PbtItem		ends[2];
	PbtItem		hikey;

	Assert(from->flags & PBT_LF_REBUILT);
	Assert(to != NULL && !(to->flags & PBT_LF_REBUILT));
	Assert(pos >= 0 && pos < total);

	/* the whole block goes back to shared buffers: no undefined hole */
	memset(tmp, 0, BLCKSZ);
	memcpy(tmp, page, SizeOfPageHeaderData);
	memcpy((char *) tmp + phdr->pd_special, (char *) page + phdr->pd_special,
		   BLCKSZ - phdr->pd_special);
	((PageHeader) tmp)->pd_lower = SizeOfPageHeaderData;
	((PageHeader) tmp)->pd_upper = phdr->pd_special;
	opaque = PbtPageGetOpaque(tmp);
	pbt_page_set_layout(tmp, to->tag, NULL);
	opaque->hikey_off = opaque->hikey_len = 0;
	to->init(tmp);
	if (pbt_page_get_hikey(page, &hikey) &&
		!pbt_page_set_hikey(tmp, hikey.data, hikey.len))
		elog(ERROR, "pagebtree: high key does not fit after conversion to %s",
			 to->name);

	/* the merged sequence: the page's items with (data, len) at pos */
	ends[0].data = data;
	ends[0].len = len;
	if (pos > 0)
		from->get(page, 0, &ends[0], &buf0);
	if (total > 1)
	{
		ends[1].data = data;
		ends[1].len = len;
		if (pos < total - 1)
			from->get(page, total - 2, &ends[1], &buf1);
	}
	to->load(tmp, ends, Min(total, 2));
	pbt_iter_start(&it, page, pos == 0 ? 0 : 1, true);
	for (int k = 1; k < total - 1; k++)
	{
		PbtItem		item = {data, len};

		if (k != pos && !pbt_iter_next(&it, &item))
			pbt_page_damaged("has fewer items than its count");
		if (!to->insert(tmp, k, item.data, item.len))
			elog(ERROR, "pagebtree: items do not fit after conversion to %s",
				 to->name);
	}
	memcpy(page, tmp, BLCKSZ);
}

/*
 * Insert an item at its ordered position, compacting the page first if the
 * item only fits without garbage.  Deterministic, so WAL redo repeats it.
 */
bool
pbt_page_insert(Page page, int pos, const char *data, int len)
{
	return pbt_layout(page)->insert(page, pos, data, len);
}

/* Copies of a page's first n items, in key order, plus room for one more. */
PbtItem *
pbt_page_copy_items(Page page, int n)
{
	PbtItem    *items = palloc(sizeof(PbtItem) * (n + 1));
	PbtIter		it;
	PbtItem		item;

	pbt_iter_start(&it, page, 0, true);
	for (int i = 0; i < n && pbt_iter_next(&it, &item); i++)
	{
		items[i].data = memcpy(palloc(item.len), item.data, item.len);
		items[i].len = item.len;
	}
	return items;
}

void
pbt_free_items(PbtItem *items, int n)
{
	for (int i = 0; i < n; i++)
		pfree((char *) items[i].data);
	pfree(items);
}
