/*-------------------------------------------------------------------------
 *
 * pbt_wal.c
 *	  WAL for pagebtree.
 *
 * Rare structural changes (new roots, page deletion, builds) use generic
 * WAL: each touches at most four pages.  The frequent ones have records
 * of their own when the library is preloaded and can register its custom
 * resource manager: adding an item to a page (position + item bytes, as in
 * nbtree; for a downlink, with the child whose split it completes), and
 * splitting a page (the new right page whole, the left page as a
 * truncation, and the new item when it went left, when it kept its items
 * in place), and rewriting a leaf group (each subnode as the entries it
 * gained and the stretch of its own that it kept).
 * Without preloading it falls back to generic WAL, whose byte-range diff
 * also covers the shifted slot array and is therefore larger.  Redo repeats the insert through the layout, which is
 * deterministic (including any compaction), so replayed pages are
 * byte-identical to the primary's.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_delta.h"

#include "access/bufmask.h"
#include "access/generic_xlog.h"
#include "access/nbtxlog.h"
#include "access/relation.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlog_internal.h"
#include "access/xlogutils.h"
#include "catalog/pg_control.h"
#include "miscadmin.h"
#include "storage/standby.h"
#include "utils/rel.h"

bool		pbt_rmgr_registered = false;

static void
pbt_redo_delete(XLogReaderState *record)
{
	xl_pbt_delete *xlrec = (xl_pbt_delete *) XLogRecGetData(record);
	bool		vacuum = XLogRecGetDataLen(record) >= SizeOfPbtDelete ?
		xlrec->vacuum : !TransactionIdIsValid(xlrec->snapshotConflictHorizon);
	Buffer		buf;

	/* standby queries that may still see the heap tuples must end first */
	if (InHotStandby)
	{
		RelFileLocator rlocator;

		XLogRecGetBlockTag(record, 0, &rlocator, NULL, NULL);
		PbtResolveConflictWithSnapshot(xlrec->snapshotConflictHorizon,
									   xlrec->isCatalogRel, rlocator);
	}
	/* VACUUM's waits for standby scans' pins, as on the primary */
	if (XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, vacuum,
									  &buf) == BLK_NEEDS_REDO)
	{
		Size		len;
		uint16	   *pos16 = (uint16 *) XLogRecGetBlockData(record, 0, &len);
		int			positions[PBT_MAX_ITEMS_PER_PAGE];
		Page		page = BufferGetPage(buf);

		for (int i = 0; i < xlrec->ndeleted; i++)
			positions[i] = pos16[i];
		pbt_page_delete(page, positions, xlrec->ndeleted, true);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

static void redo_described_page(Page page, const char *data, Size len);

/*
 * Where a split record's left page takes the new entry, or -1 (none, or a
 * record of the format before the field: shorter).
 */
static int
split_added_pos(XLogReaderState *record)
{
	xl_pbt_split *xlrec = (xl_pbt_split *) XLogRecGetData(record);

	if (xlrec->keep < 0 || XLogRecGetDataLen(record) < SizeOfPbtSplitAdded)
		return -1;
	return xlrec->added_pos;
}

/*
 * Redo a split.  Every page stays locked until all are done, as on the
 * primary, so that a standby reader never follows the left page's new
 * right-link to a page not yet restored.
 */
static void
pbt_redo_split(XLogReaderState *record)
{
	xl_pbt_split *xlrec = (xl_pbt_split *) XLogRecGetData(record);
	Buffer		bufs[4] = {InvalidBuffer, InvalidBuffer, InvalidBuffer, InvalidBuffer};
	BlockNumber rblkno;

	XLogRecGetBlockTag(record, 1, NULL, NULL, &rblkno);

	/* the right page: built from its items, or restored from its image */
	if (XLogRecGetBlock(record, 1)->flags & BKPBLOCK_WILL_INIT)
	{
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 1, &len);

		bufs[1] = XLogInitBufferForRedo(record, 1);
		redo_described_page(BufferGetPage(bufs[1]), data, len);
		PageSetLSN(BufferGetPage(bufs[1]), record->EndRecPtr);
		MarkBufferDirty(bufs[1]);
	}
	else if (XLogReadBufferForRedo(record, 1, &bufs[1]) == BLK_NEEDS_REDO)
		elog(PANIC, "pagebtree redo: split without the right page's image");

	if (XLogReadBufferForRedo(record, 0, &bufs[0]) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(bufs[0]);
		PbtPageOpaque opaque = PbtPageGetOpaque(page);
		Size		len;
		char	   *hikey = XLogRecGetBlockData(record, 0, &len);
		int			added_pos = split_added_pos(record);
		Size		hikey_len = added_pos >= 0 ? xlrec->hikey_len : len;

		if (xlrec->keep < 0)
			elog(PANIC, "pagebtree redo: split without the left page's image");
		pbt_layout(page)->truncate(page, xlrec->keep);
		if (!pbt_page_set_hikey(page, hikey, hikey_len))
			elog(PANIC, "pagebtree redo: high key does not fit");
		if (added_pos >= 0 && !pbt_page_insert(page, added_pos, hikey + hikey_len,
											   len - hikey_len))
			elog(PANIC, "pagebtree redo: the added item does not fit");
		opaque->next = rblkno;
		opaque->flags |= PBT_INCOMPLETE_SPLIT;
		if (XLogRecGetDataLen(record) >= SizeOfPbtSplit)
			opaque->op_counter = xlrec->left_counter;
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(bufs[0]);
	}

	if (XLogRecHasBlockRef(record, 2) &&
		XLogReadBufferForRedo(record, 2, &bufs[2]) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(bufs[2]);

		PbtPageGetOpaque(page)->prev = rblkno;
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(bufs[2]);
	}

	if (XLogRecHasBlockRef(record, 3) &&
		XLogReadBufferForRedo(record, 3, &bufs[3]) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(bufs[3]);

		pbt_clear_incomplete_split(page);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(bufs[3]);
	}

	/*
	 * The left page's run went into the halves, but for the entries that
	 * stay pending.  The halves stay locked until the run is set, so that a
	 * hot-standby reader never sees an entry in both (pbt_run_read).
	 */
	if (xlrec->run_slot >= 0)
	{
		Buffer		rbuf;

		if (XLogReadBufferForRedo(record, 4, &rbuf) == BLK_NEEDS_REDO)
		{
			Page		page = BufferGetPage(rbuf);
			Size		len;
			char	   *kept = XLogRecGetBlockData(record, 4, &len);

			pbt_side_run_set_packed(page, xlrec->run_slot, kept, len);
			PageSetLSN(page, record->EndRecPtr);
			MarkBufferDirty(rbuf);
		}
		if (BufferIsValid(rbuf))
			UnlockReleaseBuffer(rbuf);
	}

	for (int i = 0; i < 4; i++)
		if (BufferIsValid(bufs[i]))
			UnlockReleaseBuffer(bufs[i]);
}

/*
 * Write items[0, nitems) front-coded (PBT_DESC_FRONT_CODED) to out, each as
 * a byte with the number of leading bytes it shares with the item before
 * it, the length of the rest (one byte below 128, else two with the high
 * bit set) and the rest; false, with out's length unset, as soon as out
 * reaches limit bytes.
 */
static bool
append_front_coded(StringInfo out, const PbtItem *items, int nitems, int limit)
{
	char	   *p;
	char	   *end;

	if (out->len >= limit)
		return false;
	/* room for the limit and one more entry, so that no write checks */
	enlargeStringInfo(out, limit - out->len + 3 + PBT_MAX_ITEM_SIZE);
	p = out->data + out->len;
	end = out->data + limit;
	for (int t = 0; t < nitems; t++)
	{
		int			shared = t == 0 ? 0 :
			Min(pbt_common_prefix(items[t - 1].data, items[t - 1].len,
								  items[t].data, items[t].len), PG_UINT8_MAX);
		int			suffix = items[t].len - shared;

		if (p >= end)
			return false;
		Assert(suffix < 0x8000);
		*p++ = (char) shared;
		if (suffix >= 0x80)
			*p++ = (char) (0x80 | (suffix >> 8));
		*p++ = (char) (suffix & 0xFF);
		memcpy(p, items[t].data + shared, suffix);
		p += suffix;
	}
	if (p >= end)
		return false;
	out->len = p - out->data;
	return true;
}

/*
 * The n front-coded entries in [p, end), which must be all of it, decoded
 * into one palloc'd buffer that items[0].data points at.
 */
static PbtItem *
decode_front_coded(const char *p, const char *end, int n)
{
	PbtItem    *items = palloc(sizeof(PbtItem) * (n + 1));
	const char *q = p;
	Size		total = 0;
	char	   *buf = NULL;

	/* first the decoded lengths, so that the items can share one buffer */
	for (int pass = 0; pass < 2; pass++)
	{
		int			prevlen = 0;

		/* (none for no items: the caller frees it through items[0]) */
		if (pass == 1 && n > 0)
			buf = palloc(total);
		q = p;
		total = 0;
		for (int t = 0; t < n; t++)
		{
			int			shared;
			int			suffix;

			if (end - q < 2)
				elog(PANIC, "pagebtree redo: a front-coded page description ends early");
			shared = (uint8) q[0];
			suffix = (uint8) q[1];
			q += 2;
			if (suffix & 0x80)
			{
				if (q >= end)
					elog(PANIC, "pagebtree redo: a front-coded page description ends early");
				suffix = ((suffix & 0x7F) << 8) | (uint8) *q++;
			}
			if (shared > prevlen || end - q < suffix)
				elog(PANIC, "pagebtree redo: a front-coded page description is damaged");
			if (pass == 1)
			{
				char	   *dst = buf + total;

				if (shared > 0)
					memcpy(dst, items[t - 1].data, shared);
				memcpy(dst + shared, q, suffix);
				items[t].data = dst;
				items[t].len = shared + suffix;
			}
			q += suffix;
			total += shared + suffix;
			prevlen = shared + suffix;
		}
	}
	if (q != end)
		elog(PANIC, "pagebtree redo: a front-coded page description is damaged");
	return items;
}

/*
 * Rebuild page as an xl_pbt_group_page in data describes it (from nothing
 * when it keeps no items: a split's right page).
 */
static void
redo_described_page(Page page, const char *data, Size len)
{
	xl_pbt_group_page hdr;
	const char *p = data + sizeof(hdr);
	PbtItem		hikey;
	PbtItem    *old = NULL;
	PbtItem    *items;
	int			nitems;
	bool		front_coded;

	memcpy(&hdr, data, sizeof(hdr));
	hikey.data = p;
	hikey.len = hdr.hikey_len;
	p += hdr.hikey_len;
	front_coded = hdr.keep_first == PBT_DESC_FRONT_CODED;
	if (front_coded)
	{
		nitems = hdr.nlogged;
		items = decode_front_coded(p, data + len, nitems);
	}
	else
	{
		int			kept = 0;

		nitems = hdr.keep_count + hdr.nlogged;
		if (hdr.keep_count > 0)
			old = pbt_page_copy_items(page, hdr.keep_first + hdr.keep_count);
		items = palloc(sizeof(PbtItem) * (nitems + 1));
		for (int t = 0; t < nitems; t++)
		{
			uint16		pos16 = nitems;
			uint16		len16;

			if (p < data + len)
				memcpy(&pos16, p, sizeof(pos16));
			if (pos16 == t)
			{
				memcpy(&len16, p + sizeof(pos16), sizeof(len16));
				items[t].data = p + 2 * sizeof(uint16);
				items[t].len = len16;
				p += 2 * sizeof(uint16) + len16;
			}
			else if (kept < hdr.keep_count)
				items[t] = old[hdr.keep_first + kept++];
			else
				break;
		}
		if (kept != hdr.keep_count || p != data + len)
			elog(PANIC, "pagebtree redo: a leaf group's page is described wrongly");
	}
	PageInit(page, BLCKSZ, sizeof(PbtPageOpaqueData));
	memcpy(PbtPageGetOpaque(page), &hdr.opaque, sizeof(PbtPageOpaqueData));
	pbt_page_rebuild(page, items, nitems, hdr.hikey_len > 0 ? &hikey : NULL);
	if (front_coded && nitems > 0)
		pfree(unconstify(char *, items[0].data));
	if (old)
		pbt_free_items(old, hdr.keep_first + hdr.keep_count);
	pfree(items);
}

/* Redo XLOG_PBT_REBUILD: the leaf, then its emptied run, under its lock. */
static void
pbt_redo_rebuild(XLogReaderState *record)
{
	xl_pbt_rebuild *xlrec = (xl_pbt_rebuild *) XLogRecGetData(record);
	Buffer		buf;

	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);

		redo_described_page(BufferGetPage(buf), data, len);
		PageSetLSN(BufferGetPage(buf), record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (xlrec->run_slot >= 0)
	{
		Buffer		sbuf;

		if (XLogReadBufferForRedo(record, 1, &sbuf) == BLK_NEEDS_REDO)
		{
			pbt_side_run_set(BufferGetPage(sbuf), xlrec->run_slot, NULL, 0,
							 true);
			PageSetLSN(BufferGetPage(sbuf), record->EndRecPtr);
			MarkBufferDirty(sbuf);
		}
		if (BufferIsValid(sbuf))
			UnlockReleaseBuffer(sbuf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/*
 * The parent's part of a page deletion: the downlink before rpos, to the
 * top page deleted, takes the one at rpos, to its right sibling (with its
 * group's hints), which goes.
 */
void
pbt_unlink_parent(Page parent, int rpos)
{
	const PbtLayout *layout = pbt_layout(parent);

	Assert(rpos > 0);
	memcpy(layout->downlink(parent, rpos - 1), layout->downlink(parent, rpos),
		   pbt_page_downlink_size(parent));
	layout->delete(parent, &rpos, 1);
}

/*
 * Fill roles[0 .. nlevels) with the positions of each level's blocks in the
 * record; returns the number of blocks (the parent is the last).
 */
int
pbt_unlink_roles(const xl_pbt_unlink *xlrec, PbtUnlinkRoles *roles)
{
	int			b = 0;

	for (int i = 0; i < xlrec->nlevels; i++)
	{
		bool		has_left = (xlrec->has_left & (1 << i)) != 0;

		roles[i].left = has_left ? b : -1;
		roles[i].first = b + (has_left ? 1 : 0);
		roles[i].right = roles[i].first +
			(i == 0 && xlrec->group_size > 0 ? xlrec->group_size : 1);
		b = roles[i].right + 1;
	}
	return b + 1;
}

/*
 * Make the change of XLOG_PBT_UNLINK on pages[], the pages of the record's
 * blocks blknos[] in its order; a NULL page is left alone (redo found it
 * done, or the caller changes the parent itself).
 */
void
pbt_unlink_apply(const xl_pbt_unlink *xlrec, Page *pages,
				 const BlockNumber *blknos)
{
	PbtUnlinkRoles roles[PBT_MAX_UNLINK_LEVELS];
	int			nblocks = pbt_unlink_roles(xlrec, roles);

	for (int i = 0; i < xlrec->nlevels; i++)
	{
		PbtUnlinkRoles *r = &roles[i];
		BlockNumber left = r->left >= 0 ? blknos[r->left] : InvalidBlockNumber;
		BlockNumber right = blknos[r->right];

		if (r->left >= 0 && pages[r->left])
			PbtPageGetOpaque(pages[r->left])->next = right;
		for (int b = r->first; b < r->right; b++)
		{
			PbtPageOpaque o;

			if (pages[b] == NULL)
				continue;
			/* links kept to both sides, so that readers holding them move on */
			o = PbtPageGetOpaque(pages[b]);
			o->flags = (o->flags & ~PBT_SUBNODE_FLAGS) | PBT_DELETED;
			o->safexid = xlrec->safexid;
			o->prev = left;
			o->next = right;
		}
		if (pages[r->right])
			PbtPageGetOpaque(pages[r->right])->prev = left;
	}
	if (pages[nblocks - 1])
		pbt_unlink_parent(pages[nblocks - 1], xlrec->rpos);
}

/* The record's main data; records of session 86 end before group_size */
static xl_pbt_unlink
unlink_record(XLogReaderState *record)
{
	xl_pbt_unlink xlrec = {0};

	memcpy(&xlrec, XLogRecGetData(record),
		   Min(XLogRecGetDataLen(record), SizeOfPbtUnlink));
	return xlrec;
}

/*
 * All the record's pages are locked before any is changed and released
 * after, as on the primary, so that a standby scan sees all or none of it.
 */
static void
pbt_redo_unlink(XLogReaderState *record)
{
	xl_pbt_unlink rec = unlink_record(record);
	xl_pbt_unlink *xlrec = &rec;
	int			n = XLogRecMaxBlockId(record) + 1;
	Buffer		bufs[PBT_MAX_UNLINK_BLOCKS];
	Page		pages[PBT_MAX_UNLINK_BLOCKS];
	BlockNumber blknos[PBT_MAX_UNLINK_BLOCKS] = {0};
	PbtUnlinkRoles roles[PBT_MAX_UNLINK_LEVELS];

	if (xlrec->nlevels < 1 || xlrec->nlevels > PBT_MAX_UNLINK_LEVELS ||
		n != pbt_unlink_roles(xlrec, roles))
		elog(PANIC, "pagebtree redo: a page deletion of %d levels with %d blocks",
			 xlrec->nlevels, n);
	for (int i = 0; i < n; i++)
	{
		XLogRecGetBlockTag(record, i, NULL, NULL, &blknos[i]);
		pages[i] = XLogReadBufferForRedo(record, i, &bufs[i]) == BLK_NEEDS_REDO ?
			BufferGetPage(bufs[i]) : NULL;
	}
	pbt_unlink_apply(xlrec, pages, blknos);
	for (int i = 0; i < n; i++)
	{
		if (pages[i])
		{
			PageSetLSN(pages[i], record->EndRecPtr);
			MarkBufferDirty(bufs[i]);
		}
		if (BufferIsValid(bufs[i]))
			UnlockReleaseBuffer(bufs[i]);
	}
}

/* Redo XLOG_PBT_GROUP_REWRITE: its blocks one at a time, in order. */
static void
pbt_redo_group_rewrite(XLogReaderState *record)
{
	for (int block_id = 0; block_id <= XLogRecMaxBlockId(record); block_id++)
	{
		Buffer		buf;

		if (XLogReadBufferForRedo(record, block_id, &buf) == BLK_NEEDS_REDO)
		{
			Page		page = BufferGetPage(buf);
			Size		len;
			char	   *data = XLogRecGetBlockData(record, block_id, &len);

			if (len == sizeof(BlockNumber))
				memcpy(&PbtPageGetOpaque(page)->prev, data, len);
			else if (len >= sizeof(xl_pbt_group_page))
				redo_described_page(page, data, len);
			else
				elog(PANIC, "pagebtree redo: a leaf group's page without its image");
			PageSetLSN(page, record->EndRecPtr);
			MarkBufferDirty(buf);
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);
	}
}

static void
pbt_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	Buffer		buf;

	if (info == XLOG_PBT_DELETE)
	{
		pbt_redo_delete(record);
		return;
	}
	if (info == XLOG_PBT_SPLIT)
	{
		pbt_redo_split(record);
		return;
	}
	if (info == XLOG_PBT_GROUP_REWRITE)
	{
		pbt_redo_group_rewrite(record);
		return;
	}
	if (info == XLOG_PBT_REBUILD)
	{
		pbt_redo_rebuild(record);
		return;
	}
	if (info == XLOG_PBT_UNLINK)
	{
		pbt_redo_unlink(record);
		return;
	}
	if (info == XLOG_PBT_RUN_APPEND)
	{
		pbt_redo_run_append(record);
		return;
	}
	if (info == XLOG_PBT_FOLD || info == XLOG_PBT_VACUUM_FOLD)
	{
		pbt_redo_fold(record, info == XLOG_PBT_VACUUM_FOLD);
		return;
	}
	if (info == XLOG_PBT_CONVERT)
	{
		if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
		{
			xl_pbt_convert *xlrec = (xl_pbt_convert *) XLogRecGetData(record);
			Page		page = BufferGetPage(buf);

			/* the items fitted on the primary, and redo has the same */
			if (!pbt_page_convert_to(page, xlrec->layout, xlrec->layout_param))
				elog(PANIC, "pagebtree: redo of a conversion: items do not fit layout %u",
					 xlrec->layout);
			PageSetLSN(page, record->EndRecPtr);
			MarkBufferDirty(buf);
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);
		return;
	}
	if (info == XLOG_PBT_REUSE_PAGE)
	{
		/* a standby query may still be on its way to the recycled page */
		if (InHotStandby)
		{
			xl_pbt_reuse_page *xlrec = (xl_pbt_reuse_page *) XLogRecGetData(record);

			PbtResolveConflictWithSnapshotFullXid(xlrec->safexid,
												  xlrec->isCatalogRel,
												  xlrec->node);
		}
		return;
	}
	if (info != XLOG_PBT_INSERT)
		elog(PANIC, "pagebtree redo: unknown op code %u", info);

	/* a downlink: the child's split is complete (child first, as in nbtree) */
	if (XLogRecHasBlockRef(record, 1))
	{
		if (XLogReadBufferForRedo(record, 1, &buf) == BLK_NEEDS_REDO)
		{
			Page		cpage = BufferGetPage(buf);

			pbt_clear_incomplete_split(cpage);
			PageSetLSN(cpage, record->EndRecPtr);
			MarkBufferDirty(buf);
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);
	}
	if (XLogReadBufferForRedo(record, 0, &buf) == BLK_NEEDS_REDO)
	{
		xl_pbt_insert *xlrec = (xl_pbt_insert *) XLogRecGetData(record);
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		Page		page = BufferGetPage(buf);

		if (!pbt_page_insert(page, xlrec->pos, data, len))
			elog(PANIC, "pagebtree redo: item does not fit");
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

static void
pbt_desc(StringInfo buf, XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if (info == XLOG_PBT_INSERT)
	{
		xl_pbt_insert *xlrec = (xl_pbt_insert *) XLogRecGetData(record);

		appendStringInfo(buf, "pos %u", xlrec->pos);
		if (XLogRecHasBlockRef(record, 1))
			appendStringInfoString(buf, ", completes the split of block 1");
	}
	else if (info == XLOG_PBT_DELETE)
	{
		xl_pbt_delete *xlrec = (xl_pbt_delete *) XLogRecGetData(record);

		appendStringInfo(buf, "ndeleted %u, snapshotConflictHorizon %u%s",
						 xlrec->ndeleted, xlrec->snapshotConflictHorizon,
						 XLogRecGetDataLen(record) >= SizeOfPbtDelete &&
						 xlrec->vacuum ? ", vacuum" : "");
	}
	else if (info == XLOG_PBT_SPLIT)
	{
		xl_pbt_split *xlrec = (xl_pbt_split *) XLogRecGetData(record);

		if (xlrec->keep < 0)
			appendStringInfoString(buf, "left page rebuilt");
		else
			appendStringInfo(buf, "left page keeps %d items", xlrec->keep);
		if (split_added_pos(record) >= 0)
			appendStringInfo(buf, ", adds one at %d", split_added_pos(record));
		if (XLogRecGetBlock(record, 1)->flags & BKPBLOCK_WILL_INIT)
		{
			xl_pbt_group_page right;

			memcpy(&right, XLogRecGetBlockData(record, 1, NULL), sizeof(right));
			appendStringInfo(buf, ", right page logged as items: %u",
							 right.nlogged);
		}
		if (XLogRecHasBlockRef(record, 3))
			appendStringInfoString(buf, ", completes the split of block 3");
		if (xlrec->run_slot >= 0)
			appendStringInfo(buf, ", folds run %d", xlrec->run_slot);
	}
	else if (info == XLOG_PBT_CONVERT)
	{
		xl_pbt_convert *xlrec = (xl_pbt_convert *) XLogRecGetData(record);

		appendStringInfo(buf, "layout %u, parameter %u", xlrec->layout,
						 xlrec->layout_param);
	}
	else if (info == XLOG_PBT_REBUILD)
	{
		xl_pbt_rebuild *xlrec = (xl_pbt_rebuild *) XLogRecGetData(record);
		char	   *data = XLogRecGetBlockData(record, 0, NULL);
		xl_pbt_group_page leaf;

		/* no description where the leaf's full-page image replaced it */
		if (data == NULL)
			appendStringInfoString(buf, "leaf logged whole");
		else
		{
			memcpy(&leaf, data, sizeof(leaf));
			appendStringInfo(buf, "layout %u, keeps %u items, adds %u",
							 leaf.opaque.layout, leaf.keep_count, leaf.nlogged);
		}
		if (xlrec->run_slot >= 0)
			appendStringInfo(buf, ", empties run %d", xlrec->run_slot);
	}
	else if (info == XLOG_PBT_GROUP_REWRITE)
	{
		int			described = 0;

		for (int block_id = 0; block_id <= XLogRecMaxBlockId(record); block_id++)
		{
			Size		len;

			if (XLogRecGetBlockData(record, block_id, &len) != NULL)
				described++;
		}
		appendStringInfo(buf, "%d pages, %d of them described",
						 XLogRecMaxBlockId(record) + 1, described);
	}
	else if (info == XLOG_PBT_UNLINK)
	{
		xl_pbt_unlink rec = unlink_record(record);
		xl_pbt_unlink *xlrec = &rec;

		appendStringInfo(buf, "levels %u, group size %u, parent pos %u, safexid %u:%u",
						 xlrec->nlevels, xlrec->group_size, xlrec->rpos,
						 EpochFromFullTransactionId(xlrec->safexid),
						 XidFromFullTransactionId(xlrec->safexid));
	}
	else if (info == XLOG_PBT_RUN_APPEND)
	{
		xl_pbt_run_append *xlrec = (xl_pbt_run_append *) XLogRecGetData(record);

		appendStringInfo(buf, "slot %u%s", xlrec->slot,
						 xlrec->init ? ", init" : "");
	}
	else if (info == XLOG_PBT_FOLD || info == XLOG_PBT_VACUUM_FOLD)
	{
		xl_pbt_fold *xlrec = (xl_pbt_fold *) XLogRecGetData(record);

		appendStringInfo(buf, "slot %u, ninserted %u, nkept %u", xlrec->slot,
						 xlrec->ninserted, xlrec->nkept);
	}
}

static const char *
pbt_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_PBT_INSERT:
			return "INSERT";
		case XLOG_PBT_DELETE:
			return "DELETE";
		case XLOG_PBT_REUSE_PAGE:
			return "REUSE_PAGE";
		case XLOG_PBT_SPLIT:
			return "SPLIT";
		case XLOG_PBT_RUN_APPEND:
			return "RUN_APPEND";
		case XLOG_PBT_FOLD:
			return "FOLD";
		case XLOG_PBT_VACUUM_FOLD:
			return "VACUUM_FOLD";
		case XLOG_PBT_CONVERT:
			return "CONVERT";
		case XLOG_PBT_GROUP_REWRITE:
			return "GROUP_REWRITE";
		case XLOG_PBT_REBUILD:
			return "REBUILD";
		case XLOG_PBT_UNLINK:
			return "UNLINK";
	}
	return NULL;
}

static void
pbt_mask(char *pagedata, BlockNumber blkno)
{
	PbtPageOpaque opaque = PbtPageGetOpaque((Page) pagedata);

	mask_page_lsn_and_checksum(pagedata);
	mask_unused_space(pagedata);
	if (opaque->flags & PBT_SIDE)
	{
		pbt_side_mask((Page) pagedata);
		return;
	}
	/* hints are not WAL-logged: the adaption counter, dead entries */
	opaque->op_counter = 0;
	opaque->flags &= ~(PBT_HAS_DEAD | PBT_UNLOGGED_HINTS);
	if (!(opaque->flags & PBT_META) && pbt_layout_by_tag(opaque->layout))
		pbt_layout_by_tag(opaque->layout)->mask((Page) pagedata);
}

static const RmgrData pbt_rmgr = {
	.rm_name = "pagebtree",
	.rm_redo = pbt_redo,
	.rm_desc = pbt_desc,
	.rm_identify = pbt_identify,
	.rm_mask = pbt_mask,
};

void
pbt_register_rmgr(void)
{
	RegisterCustomRmgr(PBT_RMGR_ID, (RmgrData *) &pbt_rmgr);
	pbt_rmgr_registered = true;
}

#ifdef PBT_HAVE_CATALOG_REL
/*
 * Does logical decoding read the index's table as a catalog (a system
 * catalog, or a table with user_catalog_table)?  Then a recovery conflict
 * that this change causes on a standby must also invalidate the logical
 * slots there that still need the removed rows.  The caller is changing
 * the index, so the table is locked and its relcache entry is open.
 */
static bool
index_is_catalog(Relation index)
{
	Relation	heap;
	bool		result;

	if (!XLogLogicalInfoActive())
		return false;
	heap = relation_open(index->rd_index->indrelid, NoLock);
	result = RelationIsAccessibleInLogicalDecoding(heap);
	relation_close(heap, NoLock);
	return result;
}
#endif

/* xid, of a transaction that has begun, as a full transaction id */
static FullTransactionId
full_xid(TransactionId xid)
{
	FullTransactionId next = ReadNextFullTransactionId();
	uint32		epoch = EpochFromFullTransactionId(next);

	Assert(TransactionIdIsNormal(xid));
	if (xid >= XidFromFullTransactionId(next))
		epoch--;
	return FullTransactionIdFromEpochAndXid(epoch, xid);
}

StaticAssertDecl(sizeof(xl_pbt_reuse_page) == sizeof(xl_btree_reuse_page) &&
				 offsetof(xl_pbt_reuse_page, safexid) ==
				 offsetof(xl_btree_reuse_page, PBT_BTREE_REUSE_HORIZON),
				 "xl_pbt_reuse_page must have the layout of xl_btree_reuse_page");

/*
 * Cancel the standby queries whose snapshots could still see heap tuples
 * that removed entries pointed to, up to horizon, or follow a link to the
 * deleted page blkno about to be reused (safexid).  Only a record that a
 * resource manager replays can do it: ours, or without it nbtree's
 * REUSE_PAGE, whose redo does nothing else and whose layout ours copies
 * (every server replays it, and it names no block).
 */
static void
log_conflict(Relation index, BlockNumber blkno, FullTransactionId horizon)
{
	xl_pbt_reuse_page xlrec;

	Assert(RelationNeedsWAL(index) && XLogStandbyInfoActive());
	xlrec.node = PbtRelationGetLocator(index);
	xlrec.block = blkno;
	xlrec.safexid = horizon;
#ifdef PBT_HAVE_CATALOG_REL
	xlrec.isCatalogRel = index_is_catalog(index);
#endif
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfPbtReusePage);
	if (pbt_rmgr_registered)
		XLogInsert(PBT_RMGR_ID, XLOG_PBT_REUSE_PAGE);
	else
		XLogInsert(RM_BTREE_ID, XLOG_BTREE_REUSE_PAGE);
}

/* Before a deleted page is reused, as above. */
void
pbt_log_reuse_page(Relation index, BlockNumber blkno, FullTransactionId safexid)
{
	if (RelationNeedsWAL(index) && XLogStandbyInfoActive())
		log_conflict(index, blkno, safexid);
}

/*
 * Insert a pagebtree record of xlrec, block 0 buf with bdata (if any) and,
 * if valid, block 1 buf1 without data, and set both pages' LSNs; in the
 * caller's critical section.
 */
static void
insert_page_record(uint8 info, void *xlrec, int xlreclen, Buffer buf,
				   void *bdata, int blen, Buffer buf1)
{
	XLogRecPtr	recptr;

	XLogBeginInsert();
	XLogRegisterData(xlrec, xlreclen);
	XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
	if (blen > 0)
		XLogRegisterBufData(0, bdata, blen);
	if (BufferIsValid(buf1))
		XLogRegisterBuffer(1, buf1, REGBUF_STANDARD);
	recptr = XLogInsert(PBT_RMGR_ID, info);
	PageSetLSN(BufferGetPage(buf), recptr);
	if (BufferIsValid(buf1))
		PageSetLSN(BufferGetPage(buf1), recptr);
}

/*
 * Write newpage, the exclusively locked leaf in buf rebuilt in another
 * layout (pbt_page_convert_to), to buf and log it: with the resource
 * manager its layout and parameter, from which redo rebuilds the same page;
 * else the whole page, which the rebuild moves.
 */
void
pbt_log_convert(Relation index, Buffer buf, Page newpage)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(newpage);
	xl_pbt_convert xlrec = {opaque->layout, opaque->layout_param};

	if (!pbt_rmgr_registered && RelationNeedsWAL(index))
	{
		GenericXLogState *xlog = GenericXLogStart(index);

		memcpy(pbt_generic_register(xlog, buf, GENERIC_XLOG_FULL_IMAGE),
			   newpage, BLCKSZ);
		GenericXLogFinish(xlog);
		return;
	}
	START_CRIT_SECTION();
	memcpy(BufferGetPage(buf), newpage, BLCKSZ);
	MarkBufferDirty(buf);
	if (RelationNeedsWAL(index))
		insert_page_record(XLOG_PBT_CONVERT, &xlrec, sizeof(xlrec), buf,
						   NULL, 0, InvalidBuffer);
	END_CRIT_SECTION();
}

/*
 * Describe as an xl_pbt_group_page the rewrite of page before into after,
 * which holds items[0, nitems), sorted, into out (reset first): a
 * subnode of a group rewrite, or (before NULL) a split's new right page.
 * Where before has no items, every item is logged front-coded.  Returns
 * false where a full-page image of after is no more bytes (or its kept
 * items are not one stretch of before's, which a rewrite within a group
 * never does): the caller logs the image.
 */
static bool
describe_page(PbtState *st, Page before, Page after,
			  const PbtItem *items, int nitems, StringInfo out)
{
	PageHeader	phdr = (PageHeader) after;
	int			image_bytes = BLCKSZ - (phdr->pd_upper - phdr->pd_lower);
	int			nbefore = before ? pbt_layout(before)->count(before) : 0;
	PbtItem    *old = nbefore > 0 ? pbt_page_copy_items(before, nbefore) : NULL;
	xl_pbt_group_page hdr = {0};
	PbtItem		hikey = {NULL, 0};
	int			i = 0;
	bool		kept_stretch = true;

	resetStringInfo(out);
	memcpy(&hdr.opaque, PbtPageGetOpaque(after), sizeof(PbtPageOpaqueData));
	appendBinaryStringInfo(out, (char *) &hdr, sizeof(hdr));
	if (pbt_page_get_hikey(after, &hikey))
		appendBinaryStringInfo(out, hikey.data, hikey.len);
	hdr.hikey_len = hikey.len;

	/*
	 * With nothing to keep (a new page, or a group's hole), every entry is
	 * logged front-coded against the one before it: a page's sorted entries
	 * share their leading bytes.
	 */
	if (nbefore == 0)
	{
		if (!append_front_coded(out, items, nitems, image_bytes))
			return false;
		hdr.keep_first = PBT_DESC_FRONT_CODED;
		hdr.nlogged = nitems;
		memcpy(out->data, &hdr, sizeof(hdr));
		return true;
	}
	for (int t = 0; t < nitems && out->len < image_bytes; t++)
	{
		int			cmp = -1;

		/* before's items that left the page */
		while (i < nbefore && (cmp = pbt_item_cmp(st, &old[i], &items[t])) < 0)
			i++;
		if (cmp == 0 && old[i].len == items[t].len &&
			memcmp(old[i].data, items[t].data, items[t].len) == 0)
		{
			if (hdr.keep_count == 0)
				hdr.keep_first = i;
			else if (hdr.keep_first + hdr.keep_count != i)
				kept_stretch = false;
			hdr.keep_count++;
			i++;
		}
		else
		{
			uint16		pos16 = t;
			uint16		len16 = items[t].len;

			appendBinaryStringInfo(out, (char *) &pos16, sizeof(pos16));
			appendBinaryStringInfo(out, (char *) &len16, sizeof(len16));
			appendBinaryStringInfo(out, items[t].data, items[t].len);
			hdr.nlogged++;
		}
	}
	memcpy(out->data, &hdr, sizeof(hdr));
	if (old)
		pbt_free_items(old, nbefore);
	Assert(!kept_stretch || hdr.keep_count + hdr.nlogged == nitems ||
		   out->len >= image_bytes);
	return kept_stretch && out->len < image_bytes;
}

#ifdef PBT_CHECKS
/*
 * Redo of desc, a description of page after, applied to before (NULL: a
 * page of zeros) gives after's bytes, but for the LSN and checksum.
 */
static void
check_description(Page before, StringInfo desc, Page after)
{
	PGAlignedBlock rebuilt;
	Size		from = offsetof(PageHeaderData, pd_flags);

	if (before)
		memcpy(rebuilt.data, before, BLCKSZ);
	else
		memset(rebuilt.data, 0, BLCKSZ);
	redo_described_page(rebuilt.data, desc->data, desc->len);
	Assert(memcmp(rebuilt.data + from, (char *) after + from,
				  BLCKSZ - from) == 0);
}
#endif

/* describe_page, checked in PBT_CHECKS builds by rebuilding the page */
bool
pbt_describe_page(PbtState *st, Page before, Page after,
				  const PbtItem *items, int nitems, StringInfo out)
{
	if (!describe_page(st, before, after, items, nitems, out))
		return false;
#ifdef PBT_CHECKS
	check_description(before, out, after);
#endif
	return true;
}

/*
 * With the resource manager, replace the exclusively locked leaf in leafbuf
 * by newpage, which holds items[0..nitems), and empty its run's slot
 * run_slot on the side page in sbuf (if valid), logged as XLOG_PBT_REBUILD:
 * the entries the leaf gained among those it keeps.  Returns false,
 * changing nothing, without the resource manager or where that is as many
 * bytes as the leaf's image: the caller then logs the leaf whole.
 */
bool
pbt_log_rebuild(Relation index, PbtState *st, Buffer leafbuf, Page newpage,
				const PbtItem *items, int nitems, Buffer sbuf, int run_slot)
{
	Page		leaf = BufferGetPage(leafbuf);
	StringInfoData desc;
	xl_pbt_rebuild xlrec;

	Assert(pbt_buffer_locked(leafbuf, LW_EXCLUSIVE));
	Assert(!BufferIsValid(sbuf) || pbt_buffer_locked(sbuf, LW_EXCLUSIVE));
	if (!pbt_rmgr_registered || !RelationNeedsWAL(index))
		return false;
	initStringInfo(&desc);
	if (!pbt_describe_page(st, leaf, newpage, items, nitems, &desc))
	{
		pfree(desc.data);
		return false;
	}
	xlrec.run_slot = BufferIsValid(sbuf) ? run_slot : -1;

	START_CRIT_SECTION();
	memcpy(leaf, newpage, BLCKSZ);
	MarkBufferDirty(leafbuf);
	if (BufferIsValid(sbuf))
	{
		pbt_side_run_set(BufferGetPage(sbuf), run_slot, NULL, 0, true);
		MarkBufferDirty(sbuf);
	}
	insert_page_record(XLOG_PBT_REBUILD, &xlrec, sizeof(xlrec), leafbuf,
					   desc.data, desc.len, sbuf);
	END_CRIT_SECTION();
	pfree(desc.data);
	return true;
}

/*
 * Log the changed pages of a leaf group operation or of the deletion of a
 * leaf with its ancestors, exclusively locked in bufs[0, n), in one record,
 * in block id order; inside the caller's critical section, which
 * XLogEnsureRecordSpace(n - 1, ...) preceded (a record takes five blocks
 * without it).  Without descs, every page whole in a core XLOG_FPI record
 * (new groups, deletions, and any operation without the resource
 * manager).  With them (pbt_group_overflow, preloaded) as
 * XLOG_PBT_GROUP_REWRITE: a page whose descs[i] is NULL whole, the others
 * with descs[i] as block data (pbt_describe_page, or the new left-link),
 * reserved as XLogEnsureRecordSpace(n - 1, n).  Not inlined, so that a
 * debugger's breakpoint on it (test/t/015_group_orphan.pl) is hit once per
 * record.
 */
pg_noinline void
pbt_log_group_pages(Relation index, const Buffer *bufs, StringInfo *descs, int n)
{
	XLogRecPtr	recptr;

	Assert(n > 0 && n <= XLR_MAX_BLOCK_ID + 1);
	Assert(descs == NULL || pbt_rmgr_registered);
	for (int i = 0; i < n; i++)
		MarkBufferDirty(bufs[i]);
	if (!RelationNeedsWAL(index))
		return;
	XLogBeginInsert();
	for (int i = 0; i < n; i++)
	{
		if (descs == NULL || descs[i] == NULL)
			XLogRegisterBuffer(i, bufs[i], REGBUF_FORCE_IMAGE | REGBUF_STANDARD);
		else
		{
			XLogRegisterBuffer(i, bufs[i], REGBUF_STANDARD);
			XLogRegisterBufData(i, descs[i]->data, descs[i]->len);
		}
	}
	if (descs)
		recptr = XLogInsert(PBT_RMGR_ID, XLOG_PBT_GROUP_REWRITE);
	else
		recptr = XLogInsert(RM_XLOG_ID, XLOG_FPI);
	for (int i = 0; i < n; i++)
		PageSetLSN(BufferGetPage(bufs[i]), recptr);
}

/*
 * Make a page deletion (pbt_vacuum.c, delete_subtree) on bufs, exclusively
 * locked in XLOG_PBT_UNLINK's block order, and log it: as that record when
 * the resource manager is registered; without it, a leaf alone as a
 * generic record of its four pages, and anything more (more pages than a
 * generic record takes) as whole pages in one XLOG_FPI record.  newparent
 * is the parent's new contents, built before, where an error is no PANIC.
 */
void
pbt_log_unlink(Relation index, const xl_pbt_unlink *xlrec, const Buffer *bufs,
			   int nbufs, const char *newparent)
{
	Page		pages[PBT_MAX_UNLINK_BLOCKS];
	BlockNumber blknos[PBT_MAX_UNLINK_BLOCKS];
	Page		parent = BufferGetPage(bufs[nbufs - 1]);
	PbtUnlinkRoles roles[PBT_MAX_UNLINK_LEVELS];
	int			nroles PG_USED_FOR_ASSERTS_ONLY = pbt_unlink_roles(xlrec, roles);

	Assert(nbufs == nroles);
	for (int i = 0; i < nbufs; i++)
		blknos[i] = BufferGetBlockNumber(bufs[i]);
	if (!pbt_rmgr_registered && nbufs <= MAX_GENERIC_XLOG_PAGES)
	{
		GenericXLogState *xlog = GenericXLogStart(index);

		for (int i = 0; i < nbufs; i++)
			pages[i] = pbt_generic_register(xlog, bufs[i], 0);
		memcpy(pages[nbufs - 1], newparent, BLCKSZ);
		pages[nbufs - 1] = NULL;
		pbt_unlink_apply(xlrec, pages, blknos);
		GenericXLogFinish(xlog);
		return;
	}

	if (RelationNeedsWAL(index))
		XLogEnsureRecordSpace(nbufs - 1, 0);
	for (int i = 0; i < nbufs - 1; i++)
		pages[i] = BufferGetPage(bufs[i]);
	pages[nbufs - 1] = NULL;
	START_CRIT_SECTION();
	memcpy(parent, newparent, BLCKSZ);
	pbt_unlink_apply(xlrec, pages, blknos);
	if (!pbt_rmgr_registered)
	{
		/*
		 * XLOG_FPI's redo restores and releases its pages one at a time, in
		 * block order: on each level the right sibling goes first, so that
		 * no standby scan meets a page deleted while its right sibling
		 * still links back to it (walk_left would take that for damage).
		 */
		Buffer		ordered[PBT_MAX_UNLINK_BLOCKS];
		int			k = 0;

		for (int i = 0; i < xlrec->nlevels; i++)
		{
			ordered[k++] = bufs[roles[i].right];
			if (roles[i].left >= 0)
				ordered[k++] = bufs[roles[i].left];
			for (int b = roles[i].first; b < roles[i].right; b++)
				ordered[k++] = bufs[b];
		}
		ordered[k++] = bufs[nbufs - 1];
		Assert(k == nbufs);
		pbt_log_group_pages(index, ordered, NULL, nbufs);
	}
	else
	{
		for (int i = 0; i < nbufs; i++)
			MarkBufferDirty(bufs[i]);
		if (RelationNeedsWAL(index))
		{
			XLogRecPtr	recptr;

			XLogBeginInsert();
			XLogRegisterData((char *) xlrec, SizeOfPbtUnlink);
			for (int i = 0; i < nbufs; i++)
				XLogRegisterBuffer(i, bufs[i], REGBUF_STANDARD);
			recptr = XLogInsert(PBT_RMGR_ID, XLOG_PBT_UNLINK);
			for (int i = 0; i < nbufs; i++)
				PageSetLSN(BufferGetPage(bufs[i]), recptr);
		}
	}
	END_CRIT_SECTION();
}

/*
 * Apply a change to the exclusively locked page in buf and log it: with the
 * compact record of type info (main data xlrec, block data bdata) when the
 * custom resource manager is registered, else as generic WAL.  apply must
 * be what redo does for that record.  A valid cbuf is the exclusively
 * locked left child of a split that the change completes: its
 * PBT_INCOMPLETE_SPLIT flag is cleared in the same record.
 */
typedef void (*PageChange) (Page page, void *arg);

/*
 * The bytes of page that the PageChange made with the same arg changes in
 * place, or -1 if it may change any (see PbtLayout.insert_ranges).
 */
typedef int (*PageRanges) (Page page, void *arg, PbtByteRange *ranges);

/*
 * Write to d one fragment of generic_xlog.c's delta format (offset, length,
 * bytes) that sets len bytes at offset of a page; returns its end.
 */
char *
pbt_generic_fragment(char *d, int offset, const char *bytes, int len)
{
	OffsetNumber frag[2] = {offset, len};

	memcpy(d, frag, sizeof(frag));
	memcpy(d + sizeof(frag), bytes, len);
	return d + sizeof(frag) + len;
}

/*
 * Log delta[0..len), fragments in generic_xlog.c's format that changed the
 * exclusively locked page in buf, as a generic WAL record, in the caller's
 * critical section.
 */
void
pbt_log_generic_delta(Buffer buf, const char *delta, int len)
{
	XLogRecPtr	recptr;

	XLogBeginInsert();
	XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
	XLogRegisterBufData(0, (char *) delta, len);
	recptr = XLogInsert(RM_GENERIC_ID, 0);
	PageSetLSN(BufferGetPage(buf), recptr);
}

/*
 * GenericXLogRegisterBuffer, but a page that pbt_generic_needs_image is
 * logged whole, the flag cleared.
 */
Page
pbt_generic_register(GenericXLogState *xlog, Buffer buf, int flags)
{
	bool		image = pbt_generic_needs_image(BufferGetPage(buf));
	Page		page = GenericXLogRegisterBuffer(xlog, buf,
												 image ? GENERIC_XLOG_FULL_IMAGE : flags);

	if (image)
		PbtPageGetOpaque(page)->flags &= ~PBT_UNLOGGED_HINTS;
	return page;
}

/* The first position in [i, end) where a and b differ, or end. */
static inline int
first_difference(const char *a, const char *b, int i, int end)
{
	while (i + 64 <= end && memcmp(a + i, b + i, 64) == 0)
		i += 64;
	while (i < end && a[i] == b[i])
		i++;
	return i;
}

/* Must byte j go into the delta?  See region_delta. */
static inline bool
must_log(const char *before, const char *after, int j, int hole_lo, int hole_hi)
{
	return before[j] != after[j] ||
		(j >= hole_lo && j < hole_hi && before[j] != 0);
}

/*
 * Write to d the fragments that turn bytes [start, end) of before into
 * those of after; returns the end of what it wrote.  Bytes in before's
 * hole [hole_lo, hole_hi) count as changed, as generic_xlog.c counts them
 * (a full-page image leaves zeros there where this page may have others),
 * unless they are zeros in both: every copy of the page has zeros where
 * this one has (redo writes the hole only with what the primary writes).
 * That spares a dense leaf's pd_lower step its empty slots.  A fragment
 * ends at the first run of as many equal bytes as a fragment header takes.
 */
static char *
region_delta(char *d, const char *before, const char *after, int start,
			 int end, int hole_lo, int hole_hi)
{
	int			i = start;

	while (i < end)
	{
		int			changed_end;
		int			j;

		/* the hole's bytes one by one: a page grows into little of it */
		if (i < hole_lo || i >= hole_hi)
			i = first_difference(before, after, i,
								 i < hole_lo ? Min(end, hole_lo) : end);
		if (i >= end)
			break;
		if (!must_log(before, after, i, hole_lo, hole_hi))
		{
			i++;
			continue;
		}
		changed_end = i + 1;
		for (j = i + 1; j < end && j - changed_end < GENERIC_FRAGMENT_HEADER; j++)
			if (must_log(before, after, j, hole_lo, hole_hi))
				changed_end = j + 1;
		d = pbt_generic_fragment(d, i, after + i, changed_end - i);
		i = j;
	}
	return d;
}

/*
 * Log as one generic WAL record the changes made, in the current critical
 * section, to the exclusively locked pages in bufs[0..n), whose images
 * before them are before[0..n).  What GenericXLogFinish would log, without
 * its two page copies and its byte-by-byte comparison of whole pages,
 * which cost more than the rest of an insert: the holes are zeroed (redo
 * zeroes them) and each page's delta found a word at a time.  Redo is
 * generic_redo's, so a server without pagebtree loaded replays it.
 */
static void
log_generic_changes(int n, const Buffer *bufs, const PGAlignedBlock *before)
{
	char		delta[2][BLCKSZ + 2 * GENERIC_FRAGMENT_HEADER];
	XLogRecPtr	recptr;

	Assert(CritSectionCount > 0 && n <= lengthof(delta));
	XLogBeginInsert();
	for (int i = 0; i < n; i++)
	{
		Page		page = BufferGetPage(bufs[i]);
		PageHeader	hdr = (PageHeader) page;
		PageHeader	old = (PageHeader) before[i].data;
		char	   *d;

		memset((char *) page + hdr->pd_lower, 0, hdr->pd_upper - hdr->pd_lower);
		if (pbt_generic_needs_image((Page) before[i].data))
		{
			PbtPageGetOpaque(page)->flags &= ~PBT_UNLOGGED_HINTS;
			XLogRegisterBuffer(i, bufs[i], REGBUF_STANDARD | REGBUF_FORCE_IMAGE);
			continue;
		}
		d = region_delta(delta[i], before[i].data, (char *) page, 0,
						 hdr->pd_lower, old->pd_lower, old->pd_upper);
		d = region_delta(d, before[i].data, (char *) page, hdr->pd_upper,
						 BLCKSZ, old->pd_lower, old->pd_upper);
		Assert(d - delta[i] <= (int) sizeof(delta[i]));
		XLogRegisterBuffer(i, bufs[i], REGBUF_STANDARD);
		XLogRegisterBufData(i, delta[i], d - delta[i]);
	}
	recptr = XLogInsert(RM_GENERIC_ID, 0);
	for (int i = 0; i < n; i++)
		PageSetLSN(BufferGetPage(bufs[i]), recptr);
}

/*
 * Without the resource manager: make a change to the exclusively locked
 * pages in bufs[0..n) in a critical section, change(arg), and log it as
 * one generic WAL record written directly (log_generic_changes).  change
 * must not fail: it runs in the critical section.
 */
void
pbt_generic_change(Relation index, int n, const Buffer *bufs,
				   void (*change) (void *arg), void *arg)
{
	PGAlignedBlock before[2];
	bool		logged = RelationNeedsWAL(index);

	Assert(n >= 1 && n <= lengthof(before));
	if (logged)
		for (int i = 0; i < n; i++)
			memcpy(before[i].data, BufferGetPage(bufs[i]), BLCKSZ);
	START_CRIT_SECTION();
	change(arg);
	for (int i = 0; i < n; i++)
		MarkBufferDirty(bufs[i]);
	if (logged)
		log_generic_changes(n, bufs, before);
	END_CRIT_SECTION();
}

/* Sort r[0..n) by offset and merge the ranges that overlap or touch. */
static int
merge_ranges(PbtByteRange *r, int n)
{
	int			m = 0;

	for (int i = 1; i < n; i++)
	{
		PbtByteRange x = r[i];
		int			j = i;

		for (; j > 0 && r[j - 1].off > x.off; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
	for (int i = 1; i < n; i++)
	{
		if (r[i].off <= r[m].off + r[m].len)
			r[m].len = Max(r[m].off + r[m].len, r[i].off + r[i].len) - r[m].off;
		else
			r[++m] = r[i];
	}
	return n > 0 ? m + 1 : 0;
}

/* Copy page's bytes [lo, hi) to copy but for those in r[0..n) (sorted). */
static void
copy_unlisted(char *copy, const char *page, int lo, int hi,
			  const PbtByteRange *r, int n)
{
	for (int i = 0; i < n && lo < hi; i++)
	{
		if (r[i].off > lo)
			memcpy(copy + lo, page + lo, Min(r[i].off, hi) - lo);
		lo = Max(lo, r[i].off + r[i].len);
	}
	if (lo < hi)
		memcpy(copy + lo, page + lo, hi - lo);
}

#ifdef PBT_CHECKS
/* The change left every byte of page outside r[0..n) and its hole as in old. */
static void
check_in_place(const char *old, Page page, const PbtByteRange *r, int n)
{
	PageHeader	hdr = (PageHeader) page;
	int			from = 0;

	for (int i = 0; i <= n; i++)
	{
		int			to = i < n ? r[i].off : BLCKSZ;

		for (int j = from; j < to; j++)
			if (old[j] != ((char *) page)[j] &&
				(j < hdr->pd_lower || j >= hdr->pd_upper))
				elog(PANIC, "pagebtree: an in-place insert changed byte %d outside its ranges", j);
		if (i < n)
			from = r[i].off + r[i].len;
	}
}
#endif

/*
 * Without the resource manager, apply an insert that changes only the page
 * header and the bytes ranges_of gives (the layout's insert_ranges; false,
 * changing nothing, if it gives none or the page must be logged whole) to
 * the exclusively locked page in buf, and log it as generic WAL by
 * comparing just those bytes and the ones that leave the hole, instead of
 * copying the page and comparing all of it (log_generic_changes).  Bytes
 * that leave the hole are logged unless they are zeros, as region_delta
 * treats them; the hole is zeroed, as redo zeroes it.
 */
static bool
log_generic_in_place(Buffer buf, PageRanges ranges_of, PageChange apply,
					 void *arg)
{
	Page		page = BufferGetPage(buf);
	PageHeader	hdr = (PageHeader) page;
	int			old_lower = hdr->pd_lower;
	int			old_upper = hdr->pd_upper;
	PbtByteRange r[PBT_MAX_INSERT_RANGES + 3];
	int			n;
	PGAlignedBlock before;		/* valid in r[] only */
	char		delta[BLCKSZ + 2 * GENERIC_FRAGMENT_HEADER];
	char	   *d = delta;
#ifdef PBT_CHECKS
	PGAlignedBlock old;
#endif

	/* the layout's ranges, then the page header */
	if (pbt_generic_needs_image(page) || (n = ranges_of(page, arg, r)) < 0)
		return false;
	Assert(n <= PBT_MAX_INSERT_RANGES);
#ifdef PBT_CHECKS
	memcpy(old.data, page, BLCKSZ);
#endif
	r[n].off = 0;
	r[n++].len = SizeOfPageHeaderData;
	n = merge_ranges(r, n);
	for (int i = 0; i < n; i++)
		memcpy(before.data + r[i].off, (char *) page + r[i].off, r[i].len);

	START_CRIT_SECTION();
	apply(page, arg);
	MarkBufferDirty(buf);
	Assert(hdr->pd_lower >= old_lower && hdr->pd_upper <= old_upper);
	/* what left the hole is as it was, but for what the insert wrote */
	copy_unlisted(before.data, page, old_lower, hdr->pd_lower, r, n);
	copy_unlisted(before.data, page, hdr->pd_upper, old_upper, r, n);
	memset((char *) page + hdr->pd_lower, 0, hdr->pd_upper - hdr->pd_lower);
	r[n].off = old_lower;
	r[n++].len = hdr->pd_lower - old_lower;
	r[n].off = hdr->pd_upper;
	r[n++].len = old_upper - hdr->pd_upper;
	n = merge_ranges(r, n);
#ifdef PBT_CHECKS
	check_in_place(old.data, page, r, n);
#endif
	for (int i = 0; i < n; i++)
		d = region_delta(d, before.data, (char *) page, r[i].off,
						 r[i].off + r[i].len, old_lower, old_upper);
	pbt_log_generic_delta(buf, delta, d - delta);
	END_CRIT_SECTION();
	return true;
}

/* log_page_change's change, for pbt_generic_change */
typedef struct GenericPageChange
{
	PageChange	apply;
	void	   *arg;
	Buffer		buf;
	Buffer		cbuf;
} GenericPageChange;

static void
apply_generic_page_change(void *arg)
{
	GenericPageChange *c = (GenericPageChange *) arg;

	c->apply(BufferGetPage(c->buf), c->arg);
	if (BufferIsValid(c->cbuf))
		pbt_clear_incomplete_split(BufferGetPage(c->cbuf));
}

/*
 * ranges_of (NULL: any byte may change) says which bytes apply changes in
 * place, for generic WAL: see log_generic_in_place.
 */
static void
log_page_change(Relation index, Buffer buf, uint8 info, void *xlrec,
				int xlreclen, void *bdata, int blen, PageChange apply,
				PageRanges ranges_of, void *arg, Buffer cbuf)
{
	Assert(pbt_buffer_locked(buf, LW_EXCLUSIVE));
	Assert(!BufferIsValid(cbuf) ||
		   (pbt_buffer_locked(cbuf, LW_EXCLUSIVE) &&
			(PbtPageGetOpaque(BufferGetPage(cbuf))->flags & PBT_INCOMPLETE_SPLIT)));
	if (pbt_rmgr_registered && RelationNeedsWAL(index))
	{
		START_CRIT_SECTION();
		apply(BufferGetPage(buf), arg);
		MarkBufferDirty(buf);
		if (BufferIsValid(cbuf))
		{
			pbt_clear_incomplete_split(BufferGetPage(cbuf));
			MarkBufferDirty(cbuf);
		}
		PBT_CHECK_DEFINED(xlrec, xlreclen);
		PBT_CHECK_DEFINED(bdata, blen);
		insert_page_record(info, xlrec, xlreclen, buf, bdata, blen, cbuf);
		END_CRIT_SECTION();
	}
	else if (!(ranges_of && !BufferIsValid(cbuf) && RelationNeedsWAL(index) &&
			   log_generic_in_place(buf, ranges_of, apply, arg)))
	{
		Buffer		bufs[2] = {buf, cbuf};
		GenericPageChange change = {apply, arg, buf, cbuf};

		pbt_generic_change(index, BufferIsValid(cbuf) ? 2 : 1, bufs,
						   apply_generic_page_change, &change);
	}
}

typedef struct DeleteArgs
{
	const int  *positions;
	int			n;
	bool		compact;
} DeleteArgs;

static void
apply_delete(Page page, void *arg)
{
	DeleteArgs *d = (DeleteArgs *) arg;

	pbt_page_delete(page, d->positions, d->n, d->compact);
}

/*
 * Delete entries whose heap tuples are dead to everyone from the
 * exclusively locked leaf in buf, and log it.  A valid horizon (standby
 * information logged) cancels the standby queries that could still see
 * those tuples first: in the record, or in a conflict record before the
 * generic one.  VACUUM's (vacuum) hold a cleanup lock, which redo takes too.
 */
void
pbt_log_delete(Relation index, Buffer buf, const int *positions, int n,
			   TransactionId snapshotConflictHorizon, bool vacuum)
{
	xl_pbt_delete xlrec;
	uint16		pos16[PBT_MAX_ITEMS_PER_PAGE];
	DeleteArgs	args = {positions, n, true};
	Page		page = BufferGetPage(buf);
	const char *problem = pbt_layout(page)->check(page);

	/*
	 * The layout rewrites the page inside a critical section, where damage
	 * it met would be a PANIC: the page's structure is checked first.  Only
	 * pages that lose entries pay for reading their bytes once more.
	 */
	if (problem != NULL)
		pbt_page_error(index, BufferGetBlockNumber(buf), problem);

	Assert(!vacuum || !TransactionIdIsValid(snapshotConflictHorizon));
	xlrec.snapshotConflictHorizon = snapshotConflictHorizon;
	xlrec.ndeleted = n;
	xlrec.vacuum = vacuum;
#ifdef PBT_HAVE_CATALOG_REL
	/* only a valid horizon causes a conflict */
	xlrec.isCatalogRel = TransactionIdIsValid(snapshotConflictHorizon) &&
		index_is_catalog(index);
#endif
	for (int i = 0; i < n; i++)
		pos16[i] = positions[i];

	/*
	 * A compaction costs no WAL where our record's redo repeats it, or where
	 * the generic record logs the page whole anyway (its first change after
	 * a checkpoint): pbt_page_delete.
	 */
	if (RelationNeedsWAL(index) && !pbt_rmgr_registered)
		args.compact = XLogCheckBufferNeedsBackup(buf);
	if (!pbt_rmgr_registered && TransactionIdIsNormal(snapshotConflictHorizon))
		log_conflict(index, BufferGetBlockNumber(buf),
					 full_xid(snapshotConflictHorizon));
	log_page_change(index, buf, XLOG_PBT_DELETE, &xlrec, SizeOfPbtDelete,
					pos16, n * sizeof(uint16), apply_delete, NULL, &args,
					InvalidBuffer);
}

typedef struct InsertArgs
{
	int			pos;
	const char *data;
	int			len;
} InsertArgs;

static void
apply_insert(Page page, void *arg)
{
	InsertArgs *a = (InsertArgs *) arg;

	if (!pbt_page_insert(page, a->pos, a->data, a->len))
		elog(ERROR, "pagebtree: item does not fit after all");
}

static int
insert_ranges(Page page, void *arg, PbtByteRange *ranges)
{
	InsertArgs *a = (InsertArgs *) arg;
	const PbtLayout *layout = pbt_layout(page);

	return layout->insert_ranges ?
		layout->insert_ranges(page, a->pos, a->data, a->len, ranges) : -1;
}

/*
 * Insert an item at pos on the exclusively locked page in buf and log it.
 * The caller has checked that it fits.  For a downlink, cbuf is the locked
 * left child whose split it completes (else InvalidBuffer).
 */
void
pbt_log_insert(Relation index, Buffer buf, int pos, const char *data, int len,
			   Buffer cbuf)
{
	xl_pbt_insert xlrec;
	InsertArgs	args = {pos, data, len};

	xlrec.pos = pos;
	log_page_change(index, buf, XLOG_PBT_INSERT, &xlrec, sizeof(xlrec),
					(char *) data, len, apply_insert, insert_ranges, &args,
					cbuf);
}


/*
 * Write a split's halves, built in backend memory as lpage and rpage, to
 * the exclusively locked pages in lbuf (the page that split) and rbuf (its
 * new right sibling), point the old right sibling in sbuf (if valid) back at
 * rbuf, clear the incomplete-split flag of the child in cbuf (if valid), and
 * log it all as one atomic change; a leaf's run in run_slot (>= 0) on the
 * side page in runbuf holds kept[0..nkept) afterwards.  keep >= 0 says
 * that lpage is lbuf's page truncated to its first keep items with hikey as
 * its new high key, and with added (if not NULL) then inserted at
 * added_pos (redo repeats that); keep < 0 that lpage was rebuilt, and it
 * is logged whole.  rpage holds ritems[0..nright).
 */
void
pbt_log_split(Relation index, PbtState *st, Buffer lbuf, Page lpage, int keep,
			  const char *hikey, int hikeylen, const PbtItem *added,
			  int added_pos, Buffer rbuf, Page rpage, const PbtItem *ritems,
			  int nright, Buffer sbuf, Buffer cbuf, Buffer runbuf,
			  int run_slot, const PbtItem *kept, int nkept)
{
	BlockNumber rblkno = BufferGetBlockNumber(rbuf);

	/* the halves, the old right sibling and the completed child, all locked */
	Assert(pbt_buffer_locked(lbuf, LW_EXCLUSIVE) &&
		   pbt_buffer_locked(rbuf, LW_EXCLUSIVE));
	Assert(!BufferIsValid(sbuf) || pbt_buffer_locked(sbuf, LW_EXCLUSIVE));
	Assert(!BufferIsValid(cbuf) || pbt_buffer_locked(cbuf, LW_EXCLUSIVE));
	Assert(PbtPageGetOpaque(lpage)->next == rblkno &&
		   PbtPageGetOpaque(rpage)->prev == BufferGetBlockNumber(lbuf));
	Assert(PbtPageGetOpaque(lpage)->level == PbtPageGetOpaque(rpage)->level);
	Assert(keep < 0 || hikeylen > 0);
	if (pbt_rmgr_registered && RelationNeedsWAL(index))
	{
		Buffer		bufs[4] = {lbuf, rbuf, sbuf, cbuf};
		xl_pbt_split xlrec;
		XLogRecPtr	recptr;
		int			keptlen = 0;
		char	   *keptdata = nkept > 0 ? pbt_run_pack(kept, nkept, &keptlen) : NULL;
		StringInfoData rdesc;
		bool		rdescribed;

		/*
		 * The right page is new: its items, where they take fewer bytes than
		 * its image (an appending split's one entry, not a dense leaf's
		 * capacity of TIDs), and redo builds it from them.
		 */
		initStringInfo(&rdesc);
		rdescribed = pbt_describe_page(st, NULL, rpage, ritems, nright, &rdesc);
		xlrec.keep = keep;
		xlrec.run_slot = run_slot;
		xlrec.added_pos = keep >= 0 && added ? added_pos : -1;
		xlrec.hikey_len = hikeylen;
		xlrec.left_counter = PbtPageGetOpaque(lpage)->op_counter;
		START_CRIT_SECTION();
		memcpy(BufferGetPage(lbuf), lpage, BLCKSZ);
		memcpy(BufferGetPage(rbuf), rpage, BLCKSZ);
		if (run_slot >= 0)
		{
			pbt_side_run_set(BufferGetPage(runbuf), run_slot, kept, nkept, true);
			MarkBufferDirty(runbuf);
		}
		if (BufferIsValid(sbuf))
			PbtPageGetOpaque(BufferGetPage(sbuf))->prev = rblkno;
		if (BufferIsValid(cbuf))
			pbt_clear_incomplete_split(BufferGetPage(cbuf));
		for (int i = 0; i < 4; i++)
			if (BufferIsValid(bufs[i]))
				MarkBufferDirty(bufs[i]);

		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfPbtSplit);
		if (keep >= 0)
		{
			XLogRegisterBuffer(0, lbuf, REGBUF_STANDARD);
			PBT_CHECK_DEFINED(hikey, hikeylen);
			XLogRegisterBufData(0, (char *) hikey, hikeylen);
			if (xlrec.added_pos >= 0)
				XLogRegisterBufData(0, (char *) added->data, added->len);
		}
		else
			XLogRegisterBuffer(0, lbuf, REGBUF_STANDARD | REGBUF_FORCE_IMAGE);
		if (rdescribed)
		{
			XLogRegisterBuffer(1, rbuf, REGBUF_STANDARD | REGBUF_WILL_INIT);
			XLogRegisterBufData(1, rdesc.data, rdesc.len);
		}
		else
			XLogRegisterBuffer(1, rbuf, REGBUF_STANDARD | REGBUF_FORCE_IMAGE);
		if (BufferIsValid(sbuf))
			XLogRegisterBuffer(2, sbuf, REGBUF_STANDARD);
		if (BufferIsValid(cbuf))
			XLogRegisterBuffer(3, cbuf, REGBUF_STANDARD);
		if (run_slot >= 0)
		{
			XLogRegisterBuffer(4, runbuf, REGBUF_STANDARD);
			if (nkept > 0)
				XLogRegisterBufData(4, keptdata, keptlen);
		}
		recptr = XLogInsert(PBT_RMGR_ID, XLOG_PBT_SPLIT);
		for (int i = 0; i < 4; i++)
			if (BufferIsValid(bufs[i]))
				PageSetLSN(BufferGetPage(bufs[i]), recptr);
		if (run_slot >= 0)
			PageSetLSN(BufferGetPage(runbuf), recptr);
		END_CRIT_SECTION();
		if (keptdata)
			pfree(keptdata);
		pfree(rdesc.data);
	}
	else
	{
		GenericXLogState *xlog = GenericXLogStart(index);

		memcpy(pbt_generic_register(xlog, lbuf,
									keep < 0 ? GENERIC_XLOG_FULL_IMAGE : 0),
			   lpage, BLCKSZ);
		memcpy(pbt_generic_register(xlog, rbuf, GENERIC_XLOG_FULL_IMAGE),
			   rpage, BLCKSZ);
		if (BufferIsValid(sbuf))
			PbtPageGetOpaque(pbt_generic_register(xlog, sbuf, 0))->prev = rblkno;
		if (BufferIsValid(cbuf))
			pbt_clear_incomplete_split(pbt_generic_register(xlog, cbuf, 0));
		/* a leaf has no child to complete: at most four pages */
		Assert(run_slot < 0 || !BufferIsValid(cbuf));
		if (run_slot >= 0)
			pbt_side_run_set(pbt_generic_register(xlog, runbuf, 0),
							 run_slot, kept, nkept, true);
		GenericXLogFinish(xlog);
	}
}
