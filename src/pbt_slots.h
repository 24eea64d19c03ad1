/*-------------------------------------------------------------------------
 *
 * pbt_slots.h
 *	  Slot arrays behind a page prefix: helpers for the layouts whose entries
 *	  are found through PbtSlot {offset, length} (plain, fingerprint, BPA).
 *	  The slot area grows up to pd_lower, the entries down from pd_upper; an
 *	  entry is the item after the page's prefix (plain has none).  The top
 *	  bit of a slot's length is the dead-entry hint: set by scans, not
 *	  WAL-logged (like nbtree's LP_DEAD), cleared by mask.
 *
 * Static inline, since gets, searches, probes and inserts go through them:
 * they compile to what each layout wrote out by hand before.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_SLOTS_H
#define PBT_SLOTS_H

#include "pagebtree.h"
#include "pbt_parts.h"

/*
 * The entry's bytes on the page.  Searches and probes compare them in
 * place, so a damaged offset costs an error here, not a read past the page.
 */
static inline char *
pbt_slot_data(Page page, const PbtSlot *slot)
{
	pbt_check_copy(slot->off, pbt_slot_len(slot), 0);
	return (char *) page + slot->off;
}

static inline bool
pbt_slot_is_dead(const PbtSlot *slot)
{
	return (slot->len & PBT_SLOT_DEAD) != 0;
}

static inline void
pbt_slot_set_dead(PbtSlot *slot)
{
	slot->len |= PBT_SLOT_DEAD;
}

/* drop the hints of n slots (mask, for wal_consistency_checking) */
static inline void
pbt_slots_clear_dead(PbtSlot *slots, int n)
{
	for (int i = 0; i < n; i++)
		slots[i].len &= PBT_SLOT_LEN_MASK;
}

/* entry bytes that n slots reference */
static inline int
pbt_slots_bytes(const PbtSlot *slots, int n)
{
	int			bytes = 0;

	for (int i = 0; i < n; i++)
		bytes += pbt_slot_len(&slots[i]);
	return bytes;
}

/* byte order of two entries of a page (both after its prefix) */
static inline int
pbt_slot_cmp(Page page, const PbtSlot *a, const PbtSlot *b)
{
	return pbt_bytes_cmp(pbt_slot_data(page, a), pbt_slot_len(a),
						 pbt_slot_data(page, b), pbt_slot_len(b));
}

/*
 * The whole item of the entry in slot after the page's prefix (prefix,
 * plen): on the page if there is no prefix, else assembled in out (where
 * the prefix already is if primed).
 */
static inline void
pbt_slot_item(Page page, const PbtSlot *slot, const char *prefix, int plen,
			  PbtItem *item, char *out, bool primed)
{
	const char *entry = pbt_slot_data(page, slot);
	int			len = pbt_slot_len(slot);

	pbt_check_copy(entry - (const char *) page, len, plen + len);
	pbt_whole_item(prefix, plen, entry, len, item, out, primed);
}

/*
 * An iteration's next item, the entry in slot: assembled in it->buf, where
 * the prefix is copied once, with its dead hint.
 */
static inline void
pbt_slot_iter_item(PbtIter *it, const PbtSlot *slot, const char *prefix,
				   int plen, PbtItem *item)
{
	pbt_slot_item(it->page, slot, prefix, plen, item, it->buf.data, it->primed);
	it->primed = true;
	it->dead = pbt_slot_is_dead(slot);
}

/* the item of the entry in slot as a part: the prefix, then the entry */
static inline PbtPart
pbt_slot_part(Page page, const PbtSlot *slot, const char *prefix, int plen)
{
	PbtPart		part;

	part.head = prefix;
	part.headlen = plen;
	part.tail = pbt_slot_data(page, slot);
	part.taillen = pbt_slot_len(slot);
	return part;
}

/*
 * Remove the elements at positions (ascending, n of them) from an array of
 * count elements of size bytes each, keeping the others in their order;
 * returns how many are left.  For slot arrays kept in item order.
 */
static inline int
pbt_array_delete(void *array, size_t size, int count, const int *positions,
				 int n)
{
	char	   *elems = (char *) array;
	int			dst = 0;
	int			k = 0;

	for (int src = 0; src < count; src++)
	{
		if (k < n && positions[k] == src)
		{
			k++;
			continue;
		}
		memmove(elems + dst++ * size, elems + src * size, size);
	}
	return dst;
}

/*
 * Is the entry of a layout with a page prefix inside the item area, with
 * at least its heap TID (the prefix never reaches into it)?  For check.
 */
static inline bool
pbt_slot_entry_in_bounds(Page page, const PbtSlot *slot)
{
	PageHeader	phdr = (PageHeader) page;
	int			len = pbt_slot_len(slot);

	return len >= PBT_TID_BYTES && len <= (int) PBT_MAX_ITEM_SIZE &&
		slot->off >= phdr->pd_upper && slot->off + len <= phdr->pd_special;
}

/*
 * free_space and garbage of a page whose slot area ends at pd_lower and
 * whose item area starts at pd_upper, given the bytes of the item area
 * still referenced (live): what a compaction leaves free, and what it
 * reclaims.  (Heads pages are laid out so too.)
 */
static inline int
pbt_slots_free_space(Page page, int live)
{
	PageHeader	phdr = (PageHeader) page;

	return phdr->pd_special - phdr->pd_lower - live;
}

static inline int
pbt_slots_garbage(Page page, int live)
{
	PageHeader	phdr = (PageHeader) page;

	return phdr->pd_special - phdr->pd_upper - live;
}

/*
 * Rebuild the page with n sorted parts, which may point into old (a copy of
 * the page): pbt_page_rebuild leaves it empty but for its high key, then
 * the layout's fill lays the parts out after the prefix they share.  bytes
 * is what the parts take below pd_special without the high key, or 0 where
 * the caller knows that they fit; false, the page unchanged, if they and
 * the high key do not fit.  No palloc: inserts and deletes run in critical
 * sections.
 */
static inline bool
pbt_slots_rebuild(Page page, Page old, const PbtPart *parts, int n, int bytes,
				  void (*fill) (Page page, const PbtPart *parts, int n))
{
	PbtItem		hikey;
	PbtItem    *hk = pbt_page_hikey_or_null(old, &hikey);

	if (bytes + (hk ? hk->len : 0) > ((PageHeader) old)->pd_special)
		return false;
	pbt_page_rebuild(page, NULL, 0, hk);
	fill(page, parts, n);
	return true;
}

#endif							/* PBT_SLOTS_H */
