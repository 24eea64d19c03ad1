/*-------------------------------------------------------------------------
 *
 * pbt_adapt.c
 *	  The adaptive layout's choice between heads, fingerprint and BPA
 *	  leaves ("B-Trees Are Back", section 5; BP-tree), in indexes with
 *	  layout = auto whose keys are normalized and have no INCLUDE columns.
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
 * Insert-adaption (BP-tree's BPA leaves).  Readers of a string-like leaf
 * also set its PBT_WAS_READ flag (a hint), which a whole rewrite clears.
 * A leaf that splits with the flag clear has taken a page's worth of
 * inserts and no reads: its halves become BPA leaves, whose inserts append
 * to a log instead of searching and shifting (1.5 times heads' insert rate
 * on title-like text, bench/results/bpa-analysis.md).  Integer-like keys
 * never get them: there BPA inserts only match heads, and heads read
 * faster.  On a BPA leaf, every read lowers the counter by the same
 * chances, and the reader that takes it to 0 converts the leaf to heads,
 * as above; a BPA leaf that is read before it splits splits into heads
 * halves.  A change between BPA and the others restarts the counter at
 * PBT_OPS_START.
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
 * keys, which is the shortest of the adjacent ones.
 */
static bool
string_like(const PbtItem *items, int n)
{
	int		   *common = palloc(sizeof(int) * Max(n, 1));
	int			prefix = INT_MAX;
	int			collisions = 0;

	for (int i = 1; i < n; i++)
	{
		common[i] = pbt_common_prefix(items[i - 1].data, items[i - 1].len,
									  items[i].data, items[i].len);
		prefix = Min(prefix, common[i]);
	}
	for (int i = 1; i < n; i++)
		if (common[i] >= prefix + HEAD_BYTES)
			collisions++;
	pfree(common);
	return collisions * 16 > n;
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
 * The layout for the halves of the leaf page that is about to split: BPA
 * for a string-like leaf that no reader visited since it was written whole
 * (insert-adaption), else the index's leaf layout.
 */
uint8
pbt_adapt_split_layout(PbtState *st, Page page)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);

	if (st->adaptive && opaque->op_counter != PBT_OPS_OFF &&
		!(opaque->flags & PBT_WAS_READ))
		return PBT_LAYOUT_BPA;
	return st->leaf_layout;
}

static inline bool
adapts(uint8 layout)
{
	return layout == PBT_LAYOUT_HEADS || layout == PBT_LAYOUT_FINGERPRINT ||
		layout == PBT_LAYOUT_BPA;
}

/*
 * Key-adaption of a leaf just written whole with these items and high key
 * (NULL: none), which inherits the counter of the page it came from (from;
 * NULL if none): set its counter, and rebuild a heads leaf whose counter
 * is below PBT_OPS_FP_BELOW as a fingerprint leaf if the items fit (a
 * fresh counter starts at PBT_OPS_START, so callers that pass no page may
 * pass no items).  The caller logs the page.  Returns whether the page
 * was rebuilt.
 */
bool
pbt_adapt_leaf(PbtState *st, Page page, PbtPageOpaque from,
			   PbtItem *items, int n, PbtItem *hikey)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	uint8		counter = from ? from->op_counter : PBT_OPS_OFF;

	/* without items, the leaf is never rebuilt: only a fresh counter */
	Assert(items != NULL || from == NULL);
	if (!st->adaptive || !PbtIsLeaf(opaque))
		return false;
	opaque->flags &= ~PBT_WAS_READ;
	/* a BPA leaf counts whatever its keys, so that reads can convert it */
	if (!adapts(opaque->layout) ||
		(opaque->layout != PBT_LAYOUT_BPA &&
		 !(items ? string_like(items, n) : page_string_like(page))))
		counter = PBT_OPS_OFF;
	else if (counter == PBT_OPS_OFF ||
			 (from->layout == PBT_LAYOUT_BPA) != (opaque->layout == PBT_LAYOUT_BPA))
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

/* the layout a leaf's counter asks for, or 0 */
static uint8
asked_layout(PbtPageOpaque opaque, bool point)
{
	if (opaque->layout == PBT_LAYOUT_BPA)
		return opaque->op_counter == 0 ? PBT_LAYOUT_HEADS : 0;
	if (point && opaque->op_counter == 0 &&
		opaque->layout == PBT_LAYOUT_HEADS)
		return PBT_LAYOUT_FINGERPRINT;
	if (!point && opaque->op_counter == PBT_OPS_MAX &&
		opaque->layout == PBT_LAYOUT_FINGERPRINT)
		return PBT_LAYOUT_HEADS;
	return 0;
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
	bool		down = point || opaque->layout == PBT_LAYOUT_BPA;
	bool		dirty = false;

	if (counter == PBT_OPS_OFF || RecoveryInProgress())
		return 0;
	if (!(opaque->flags & PBT_WAS_READ))
	{
		opaque->flags |= PBT_WAS_READ;
		dirty = true;
	}
	if ((down ? counter > 0 : counter < PBT_OPS_MAX) &&
		pg_prng_uint32(&pg_global_prng_state) <
		(point ? POINT_STEP_CHANCE : SCAN_STEP_CHANCE))
	{
		opaque->op_counter = down ? counter - 1 : counter + 1;
		dirty = true;
	}
	if (dirty)
		MarkBufferDirtyHint(buf, true);
	return asked_layout(opaque, point);
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
	uint8		from = opaque->layout;
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
		asked_layout(opaque, tag == PBT_LAYOUT_FINGERPRINT) != tag)
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

		PbtPageOpaque newopaque = PbtPageGetOpaque(newpage);

		pbt_page_set_layout(newpage, tag, st);
		pbt_page_rebuild(newpage, items, n, has_hikey ? &hikey : NULL);
		newopaque->flags &= ~PBT_WAS_READ;
		if (from == PBT_LAYOUT_BPA)
			newopaque->op_counter = PBT_OPS_START;
		GenericXLogFinish(xlog);
		PBT_CHECK_PAGE(index, page, blkno);
	}
	else
	{
		/* step back, so that the next readers do not try again at once */
		opaque->op_counter = opaque->op_counter == 0 ? 1 : PBT_OPS_MAX - 1;
		MarkBufferDirtyHint(buf, true);
	}
	pbt_free_items(items, n);
	UnlockReleaseBuffer(buf);
}
