/*-------------------------------------------------------------------------
 *
 * pbt_layout_plain.c
 *	  The plain layout: a sorted array of (offset, length) slots after the
 *	  page header, pointing at unaligned item bytes (MAXALIGNed in
 *	  comparator mode, where items are IndexTuples).
 *
 * Deleted and truncated items leave their bytes behind as garbage; an
 * insert that does not fit otherwise compacts the page first.
 *
 * The top bit of a slot's length is a hint that the entry's heap tuple is
 * dead to everyone (set by scans, not WAL-logged, like nbtree's LP_DEAD).
 * Compaction drops the hint, so primary and standby stay in step.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_slots.h"

static inline PbtSlot *
plain_slots(Page page)
{
	return (PbtSlot *) ((char *) page + SizeOfPageHeaderData);
}

static void
plain_init(Page page)
{
	((PageHeader) page)->pd_lower = SizeOfPageHeaderData;
}

static int
plain_count(Page page)
{
	return (((PageHeader) page)->pd_lower - SizeOfPageHeaderData) / sizeof(PbtSlot);
}

static void
plain_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	/* no prefix: the item is on the page */
	pbt_slot_item(page, &plain_slots(page)[pos], NULL, 0, item, NULL, false);
}

static inline int
item_space(Page page, int len)
{
	if (PbtPageGetOpaque(page)->flags & PBT_ALIGNED_ITEMS)
		return MAXALIGN(len);
	return len;
}

/* item bytes still referenced: slots' items and the high key */
static int
plain_live_bytes(Page page)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	PbtSlot    *slots = plain_slots(page);
	int			n = plain_count(page);
	int			live = 0;

	/* (checked: the fit test asks this before an insert that compacts) */
	for (int i = 0; i < n; i++)
	{
		int			len = pbt_slot_len(&slots[i]);

		if (unlikely(len > 0 && !pbt_in_item_space(page, slots[i].off, len)))
			pbt_bytes_out_of_bounds();
		live += item_space(page, len);
	}
	if (!PbtIsRightmost(opaque))
		live += item_space(page, opaque->hikey_len);
	return live;
}

static int
plain_free_space(Page page)
{
	return pbt_slots_free_space(page, plain_live_bytes(page));
}

static int
plain_garbage(Page page)
{
	return pbt_slots_garbage(page, plain_live_bytes(page));
}

/* no palloc: this runs inside critical sections (insert and its redo) */
static void
plain_compact(Page page)
{
	int			n = plain_count(page);
	PbtItem		items[PBT_MAX_ITEMS_PER_PAGE];
	PbtItem		hikey;

	for (int i = 0; i < n; i++)
		plain_get(page, i, &items[i], NULL);
	pbt_page_rebuild(page, items, n, pbt_page_hikey_or_null(page, &hikey));
}

static bool
plain_insert(Page page, int pos, const char *data, int len)
{
	PageHeader	hdr = (PageHeader) page;
	PbtSlot    *slots = plain_slots(page);
	int			n = plain_count(page);
	int			off;

	Assert(pos >= 0 && pos <= n);
	off = pbt_page_alloc(page, len);
	if (off < 0)
	{
		if (plain_free_space(page) < item_space(page, len) + (int) sizeof(PbtSlot))
			return false;
		plain_compact(page);
		off = pbt_page_alloc(page, len);
		if (off < 0)
			elog(ERROR, "pagebtree: no room after compaction");
		slots = plain_slots(page);
	}
	memcpy((char *) page + off, data, len);
	memmove(&slots[pos + 1], &slots[pos], (n - pos) * sizeof(PbtSlot));
	slots[pos].off = off;
	slots[pos].len = len;
	hdr->pd_lower += sizeof(PbtSlot);
	return true;
}

static void
plain_load(Page page, PbtItem *items, int n)
{
	for (int i = 0; i < n; i++)
	{
		if (!plain_insert(page, i, items[i].data, items[i].len))
			elog(ERROR, "pagebtree page rebuild: %d items do not fit", n);
	}
}

static int
plain_item_cost(Page page, const char *data, int len)
{
	return item_space(page, len) + sizeof(PbtSlot);
}

static char *
plain_downlink(Page page, int pos)
{
	return pbt_slot_data(page, &plain_slots(page)[pos]);
}

/* items of either key mode, counted MAXALIGNed (a bound in normalized mode) */
static int
plain_space_needed(const PbtItem *items, int n, int downlink)
{
	int			bytes = 0;

	for (int i = 0; i < n; i++)
		bytes += MAXALIGN(items[i].len) + sizeof(PbtSlot);
	return bytes;
}

/*
 * Leaves of normalized keys, whose items are not aligned (comparator-mode
 * leaves, of IndexTuples, are never rebuilt in another layout, so nothing
 * asks whether items fit them).
 */
static bool
plain_fits(PbtItem *items, int n, PbtItem *hikey, int *bytes)
{
	int			need = 0;

	for (int i = 0; i < n; i++)
		need += items[i].len + sizeof(PbtSlot);
	if (bytes)
		*bytes = need;
	return need + (hikey ? hikey->len : 0) <= (int) PBT_USABLE_SPACE;
}

static void
plain_delete(Page page, const int *positions, int n)
{
	int			left = pbt_array_delete(plain_slots(page), sizeof(PbtSlot),
										plain_count(page), positions, n);

	((PageHeader) page)->pd_lower = SizeOfPageHeaderData + left * sizeof(PbtSlot);
}

static void
plain_truncate(Page page, int n)
{
	Assert(n <= plain_count(page));
	((PageHeader) page)->pd_lower = SizeOfPageHeaderData + n * sizeof(PbtSlot);
}

static void
plain_set_dead(Page page, int pos)
{
	pbt_slot_set_dead(&plain_slots(page)[pos]);
}

static bool
plain_is_dead(Page page, int pos)
{
	return pbt_slot_is_dead(&plain_slots(page)[pos]);
}

static void
plain_mask(Page page)
{
	pbt_slots_clear_dead(plain_slots(page), plain_count(page));
}

static const char *
plain_check(Page page)
{
	PageHeader	hdr = (PageHeader) page;
	int			n = plain_count(page);

	if ((hdr->pd_lower - SizeOfPageHeaderData) % sizeof(PbtSlot) != 0)
		return "slot array length is not a multiple of the slot size";
	for (int i = 0; i < n; i++)
	{
		PbtSlot    *slot = &plain_slots(page)[i];
		int			len = pbt_slot_len(slot);

		if (!pbt_in_item_space(page, slot->off, len) || len <= 0 ||
			len > (int) PBT_MAX_ITEM_SIZE + MAXIMUM_ALIGNOF * 2)
			return "item bytes out of bounds";
	}
	return NULL;
}

const PbtLayout pbt_layout_plain = {
	.name = "plain",
	.tag = PBT_LAYOUT_PLAIN,
	.flags = PBT_LF_LEAF | PBT_LF_INNER,
	.init = plain_init,
	.count = plain_count,
	.get = plain_get,
	.downlink = plain_downlink,
	.search = NULL,
	.insert = plain_insert,
	.load = plain_load,
	.delete = plain_delete,
	.truncate = plain_truncate,
	.item_cost = plain_item_cost,
	.space_needed = plain_space_needed,
	.fits = plain_fits,
	.free_space = plain_free_space,
	.garbage = plain_garbage,
	.compact = plain_compact,
	.set_dead = plain_set_dead,
	.is_dead = plain_is_dead,
	.mask = plain_mask,
	.check = plain_check,
};
