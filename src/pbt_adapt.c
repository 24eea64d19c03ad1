/*-------------------------------------------------------------------------
 *
 * pbt_adapt.c
 *	  The adaptive layout's choice between heads and fingerprint leaves
 *	  ("B-Trees Are Back", section 5), in indexes with layout = auto whose
 *	  keys are normalized and have no INCLUDE columns.
 *
 * Key-adaption.  When a leaf is written whole (a split's halves, a leaf of
 * a bulk build), its keys are tested.  If more than n/16 adjacent pairs
 * have equal 4-byte heads after the prefix all keys share, heads do not
 * tell the keys apart: they are string-like, and the leaf's operation
 * counter is enabled.  Otherwise the counter is off and the leaf stays a
 * comparison (heads) leaf.
 *
 * Operation-adaption.  A scan that reads a leaf in key order raises its
 * counter with probability 15%, a point lookup lowers it with probability
 * 5%: per the paper, a scan costs a fingerprint leaf about three times
 * what a lookup gains.  The counter is a hint, written under the share
 * lock like dead-entry hints and not WAL-logged.  When a point lookup
 * leaves a heads leaf at 0, or a scan leaves a fingerprint leaf at
 * PBT_OPS_MAX, the reader converts the leaf once it has released its share
 * lock: it takes the exclusive lock if nobody holds the page, checks that
 * the leaf still asks for the conversion and that its items fit the other
 * layout, and rewrites it as one WAL-logged change.  A conversion that
 * would not fit is abandoned (and the counter steps back); readers never
 * change the tree's structure.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "access/generic_xlog.h"
#include "access/xlog.h"
#include "common/pg_prng.h"
#include "storage/bufmgr.h"

#define HEAD_BYTES	4

/* the chance of a counter step, out of 2^32 */
#define SCAN_STEP_CHANCE	((uint32) (0.15 * PG_UINT32_MAX))
#define POINT_STEP_CHANCE	((uint32) (0.05 * PG_UINT32_MAX))

/*
 * Are these sorted keys string-like?  Adjacent keys have equal heads when
 * their common prefix reaches past the head that follows the prefix of all
 * keys.  The keys are byte strings in order (adaptive indexes are
 * normalized), so that prefix is the first and last keys' common prefix.
 * Entries of one key (they differ only in the heap TID, the last
 * PBT_TID_BYTES of an item without INCLUDE columns) do not count: heads
 * tell distinct keys apart, which is all a lookup needs of them, and a
 * fingerprint would not tell duplicates apart either.
 */
static bool
string_like(const PbtItem *items, int n)
{
	int			prefix;
	int			collisions = 0;

	if (n < 2)
		return false;
	prefix = pbt_common_prefix(items[0].data, items[0].len,
							   items[n - 1].data, items[n - 1].len);
	for (int i = 1; i < n; i++)
	{
		const PbtItem *a = &items[i - 1];
		const PbtItem *b = &items[i];

		if (a->len >= prefix + HEAD_BYTES && b->len >= prefix + HEAD_BYTES &&
			memcmp(a->data + prefix, b->data + prefix, HEAD_BYTES) == 0 &&
			!(a->len == b->len &&
			  memcmp(a->data, b->data, a->len - PBT_TID_BYTES) == 0) &&
			++collisions * 16 > n)
			return true;
	}
	return false;
}

/* string_like for the items of a page */
static bool
page_string_like(Page page)
{
	int			n = pbt_layout(page)->count(page);
	PbtItem    *items = pbt_page_copy_items(page, n);
	bool		result = string_like(items, n);

	pbt_free_items(items, n);
	return result;
}

/*
 * Key-adaption of a leaf just written whole with these items and high key
 * (NULL: none), which inherits counter from the page it came from
 * (PBT_OPS_OFF if none): set its counter, and rebuild a heads leaf whose
 * counter is below PBT_OPS_FP_BELOW as a fingerprint leaf if the items fit
 * (a fresh counter starts at PBT_OPS_START, so callers that pass
 * PBT_OPS_OFF may pass no items).  The caller logs the page.  Returns
 * whether the page was rebuilt.
 */
bool
pbt_adapt_leaf(PbtState *st, Page page, uint8 counter,
			   PbtItem *items, int n, PbtItem *hikey)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);

	/* without items, the leaf is never rebuilt: only a fresh counter (OFF) */
	Assert(items != NULL || counter == PBT_OPS_OFF);
	if (!st->adaptive || !PbtIsLeaf(opaque))
		return false;
	if ((opaque->layout != PBT_LAYOUT_HEADS &&
		 opaque->layout != PBT_LAYOUT_FINGERPRINT) ||
		!(items ? string_like(items, n) : page_string_like(page)))
		counter = PBT_OPS_OFF;
	else if (counter == PBT_OPS_OFF)
		counter = PBT_OPS_START;
	opaque->op_counter = counter;
	if (opaque->layout == PBT_LAYOUT_HEADS && counter < PBT_OPS_FP_BELOW &&
		pbt_leaf_fits(PBT_LAYOUT_FINGERPRINT, items, n, hikey))
	{
		pbt_page_set_layout(page, PBT_LAYOUT_FINGERPRINT, st);
		pbt_page_rebuild(page, items, n, hikey);
		return true;
	}
	return false;
}

/*
 * A reader's step of the counter of the share-locked leaf in buf (of an
 * adaptive index), for a point lookup or an ordered scan.  Returns the
 * layout the reader should convert the leaf to when it is done with it, or
 * 0.
 */
uint8
pbt_adapt_on_read(Buffer buf, bool point)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(BufferGetPage(buf));
	uint8		counter = opaque->op_counter;
	bool		step;

	if (counter == PBT_OPS_OFF || RecoveryInProgress())
		return 0;
	if (point)
		step = counter > 0 &&
			pg_prng_uint32(&pg_global_prng_state) < POINT_STEP_CHANCE;
	else
		step = counter < PBT_OPS_MAX &&
			pg_prng_uint32(&pg_global_prng_state) < SCAN_STEP_CHANCE;
	if (step)
	{
		counter = point ? counter - 1 : counter + 1;
		opaque->op_counter = counter;
		MarkBufferDirtyHint(buf, true);
	}
	if (point && counter == 0 && opaque->layout == PBT_LAYOUT_HEADS)
		return PBT_LAYOUT_FINGERPRINT;
	if (!point && counter == PBT_OPS_MAX &&
		opaque->layout == PBT_LAYOUT_FINGERPRINT)
		return PBT_LAYOUT_HEADS;
	return 0;
}

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
	bool		to_fp = tag == PBT_LAYOUT_FINGERPRINT;
	int			n;
	PbtItem    *items;
	PbtItem		hikey;
	bool		has_hikey;

	if (!ConditionalLockBuffer(buf))
	{
		ReleaseBuffer(buf);
		return;
	}
	if (!PbtIsLeaf(opaque) || PbtIsDeleted(opaque) ||
		opaque->layout != (to_fp ? PBT_LAYOUT_HEADS : PBT_LAYOUT_FINGERPRINT) ||
		opaque->op_counter != (to_fp ? 0 : PBT_OPS_MAX))
	{
		UnlockReleaseBuffer(buf);
		return;
	}

	n = pbt_layout(page)->count(page);
	items = pbt_page_copy_items(page, n);
	has_hikey = pbt_page_get_hikey(page, &hikey);
	if (pbt_leaf_fits(tag, items, n, has_hikey ? &hikey : NULL))
	{
		GenericXLogState *xlog = GenericXLogStart(index);
		Page		newpage = GenericXLogRegisterBuffer(xlog, buf,
														GENERIC_XLOG_FULL_IMAGE);

		pbt_page_set_layout(newpage, tag, st);
		pbt_page_rebuild(newpage, items, n, has_hikey ? &hikey : NULL);
		GenericXLogFinish(xlog);
		PBT_CHECK_PAGE(index, page, blkno);
	}
	else
	{
		/* step back, so that the next readers do not try again at once */
		opaque->op_counter = to_fp ? 1 : PBT_OPS_MAX - 1;
		MarkBufferDirtyHint(buf, true);
	}
	pbt_free_items(items, n);
	UnlockReleaseBuffer(buf);
}
