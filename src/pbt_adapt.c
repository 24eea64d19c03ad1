/*-------------------------------------------------------------------------
 *
 * pbt_adapt.c
 *	  Conversion of a leaf by a reader, when the adaptive layout's counter
 *	  asks for another layout (the rules are in pbt_policy.c).
 *
 * A reader steps the leaf's counter under its share lock and, once it has
 * released the page, converts the leaf here: only if nobody holds the page,
 * the leaf still asks for the conversion and its items fit the other
 * layout, as one WAL-logged change.  Readers never change the tree's
 * structure.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "pbt_xlog.h"

#include "storage/bufmgr.h"

/*
 * Convert leaf blkno to layout tag, as pbt_adapt_on_read asked, unless the
 * page is locked by anyone, has changed its mind, or would not fit.
 */
void
pbt_adapt_convert(Relation index, PbtState *st, BlockNumber blkno, uint8 tag)
{
	Buffer		buf = ReadBuffer(index, blkno);
	Page		page = BufferGetPage(buf);
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	PGAlignedBlock newpage;

	if (!ConditionalLockBuffer(buf))
	{
		ReleaseBuffer(buf);
		return;
	}
	if (!PbtIsLeaf(opaque) || PbtIsDeleted(opaque) ||
		pbt_adapt_target(opaque) != tag)
	{
		UnlockReleaseBuffer(buf);
		return;
	}

	(void) pbt_layout_checked(page);
	memcpy(newpage.data, page, BLCKSZ);
	if (pbt_page_convert_to(newpage.data, tag, st->layout_param[tag]))
	{
		pbt_log_convert(index, buf, newpage.data);
		PBT_CHECK_PAGE(index, page, blkno);
	}
	else
	{
		pbt_adapt_abandon(opaque, tag);
		MarkBufferDirtyHint(buf, true);
	}
	UnlockReleaseBuffer(buf);
}
