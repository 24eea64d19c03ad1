/*-------------------------------------------------------------------------
 *
 * pbt_wal.c
 *	  WAL for pagebtree.
 *
 * Structural changes (splits, new roots, vacuum, builds) use generic WAL:
 * each touches at most four pages.  The frequent one, adding an item to a
 * leaf, has a compact record of its own (position + item bytes, as in
 * nbtree) when the library is preloaded and can register its custom
 * resource manager.  Without preloading it falls back to generic WAL, whose
 * byte-range diff also covers the shifted slot array and is therefore
 * larger.  Redo repeats the insert through the layout, which is
 * deterministic (including any compaction), so replayed pages are
 * byte-identical to the primary's.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "access/bufmask.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlog_internal.h"
#include "access/xlogutils.h"
#include "miscadmin.h"
#include "utils/rel.h"

bool		pbt_rmgr_registered = false;

static void
pbt_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	Buffer		buf;

	if (info != XLOG_PBT_INSERT)
		elog(PANIC, "pagebtree redo: unknown op code %u", info);

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
	}
}

static const char *
pbt_identify(uint8 info)
{
	if ((info & ~XLR_INFO_MASK) == XLOG_PBT_INSERT)
		return "INSERT";
	return NULL;
}

static void
pbt_mask(char *pagedata, BlockNumber blkno)
{
	mask_page_lsn_and_checksum(pagedata);
	mask_unused_space(pagedata);
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

/*
 * Insert an item at pos on the exclusively locked leaf in buf and log it.
 * The caller has checked that it fits.
 */
void
pbt_log_insert(Relation index, Buffer buf, int pos, const char *data, int len)
{
	if (pbt_rmgr_registered && RelationNeedsWAL(index))
	{
		Page		page = BufferGetPage(buf);
		xl_pbt_insert xlrec;
		XLogRecPtr	recptr;

		xlrec.pos = pos;
		START_CRIT_SECTION();
		if (!pbt_page_insert(page, pos, data, len))
			elog(PANIC, "pagebtree: item does not fit after all");
		MarkBufferDirty(buf);

		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, sizeof(xlrec));
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		XLogRegisterBufData(0, (char *) data, len);
		recptr = XLogInsert(PBT_RMGR_ID, XLOG_PBT_INSERT);
		PageSetLSN(page, recptr);
		END_CRIT_SECTION();
	}
	else
	{
		GenericXLogState *xlog = GenericXLogStart(index);
		Page		page = GenericXLogRegisterBuffer(xlog, buf, 0);

		if (!pbt_page_insert(page, pos, data, len))
			elog(ERROR, "pagebtree: item does not fit after all");
		GenericXLogFinish(xlog);
	}
}
