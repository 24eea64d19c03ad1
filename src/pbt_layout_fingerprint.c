/*-------------------------------------------------------------------------
 *
 * pbt_layout_fingerprint.c
 *	  The fingerprint leaf layout ("B-Trees Are Back", after FPTree): a
 *	  one-byte hash of every entry's key, probed sixteen at a time, over
 *	  slots in a sorted and an unsorted range.  Leaves of normalized-key
 *	  indexes without INCLUDE columns, whose items are key || heap TID.
 *
 * Page:
 *
 *	PageHeader | FpHeader | fingerprints [fp_cap] | slots [count] -> ...
 *	... <- item bytes, high key | special
 *
 * Slot i ({off, len}, dead hint in the top bit of len, as in plain) and
 * fingerprint i describe one entry.  Slots [0, nsorted) are in key order;
 * slots [nsorted, count) were appended by inserts, in arrival order, at
 * most FP_MAX_UNSORTED of them.  An insert appends a slot, a fingerprint
 * and the item's bytes, shifting nothing: a small WAL diff, and redo of
 * the compact insert record repeats it.  When the unsorted range or the
 * fingerprint array is full, or the hole too small, the insert rebuilds
 * the page with all entries sorted and room for FP_MAX_UNSORTED more
 * fingerprints: the "sort under an exclusive, WAL-logged change" (redo of
 * the same insert repeats it).
 *
 * Ordered positions are ranks in key order.  A search binary-searches the
 * sorted range and counts the unsorted entries below the key.  Ordered
 * reads sort the unsorted range in the iterator's backend-local buffer and
 * merge it with the sorted range; readers never change the page.  An
 * equality probe (the engine's point lookups) compares the fingerprint of
 * the key with all fingerprints at once (SSE2 where available) and
 * compares whole keys only where they match.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "port/pg_bitutils.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct FpHeader
{
	uint16		count;
	uint16		nsorted;
	uint16		fp_cap;			/* fingerprints the array has room for */
	uint16		unused;
} FpHeader;

#define FP_MAX_UNSORTED		32
#define FP_START			(SizeOfPageHeaderData + sizeof(FpHeader))

/* the unsorted range in key order, with ranks among the sorted entries */
typedef struct FpOrder
{
	int			n;
	uint16		slot[FP_MAX_UNSORTED];
	uint16		rank[FP_MAX_UNSORTED];	/* sorted entries below it */
} FpOrder;

StaticAssertDecl(sizeof(FpOrder) <= sizeof(PbtItemBuf),
				 "fingerprint iteration state must fit in the iterator's buffer");

static inline FpHeader *
fp_header(Page page)
{
	return (FpHeader *) ((char *) page + SizeOfPageHeaderData);
}

static inline uint8 *
fingerprints(Page page)
{
	return (uint8 *) page + FP_START;
}

static inline PbtSlot *
fp_slots(Page page)
{
	return (PbtSlot *) ((char *) page + FP_START + fp_header(page)->fp_cap);
}

/* fingerprint capacity of a page loaded with n entries: room to append */
static inline int
fp_cap_for(int n)
{
	return TYPEALIGN(16, n + FP_MAX_UNSORTED);
}

static inline int
lower_for(int n)
{
	return FP_START + fp_cap_for(n) + n * sizeof(PbtSlot);
}

static inline int
compare_entries(Page page, int a, int b)
{
	PbtSlot    *sa = &fp_slots(page)[a];
	PbtSlot    *sb = &fp_slots(page)[b];

	return pbt_bytes_cmp((char *) page + sa->off, pbt_slot_len(sa),
						 (char *) page + sb->off, pbt_slot_len(sb));
}

/*
 * One byte of FNV-1a over the key (the item without its heap TID): the same
 * on every platform, since it is stored.
 */
static uint8
key_fingerprint(const char *key, int len)
{
	uint32		h = 2166136261u;

	for (int i = 0; i < len; i++)
		h = (h ^ (uint8) key[i]) * 16777619u;
	return (uint8) (h ^ (h >> 8) ^ (h >> 16) ^ (h >> 24));
}

static inline uint8
item_fingerprint(const char *item, int len)
{
	return key_fingerprint(item, len - PBT_TID_BYTES);
}

static void
fp_init(Page page)
{
	memset(fp_header(page), 0, sizeof(FpHeader));
	((PageHeader) page)->pd_lower = FP_START;
}

static int
fp_count(Page page)
{
	return fp_header(page)->count;
}

/* order the unsorted range (insertion sort: at most FP_MAX_UNSORTED) */
static void
order_unsorted(Page page, FpOrder *ord)
{
	FpHeader   *hdr = fp_header(page);
	PbtSlot    *slots = fp_slots(page);

	ord->n = 0;
	for (int s = hdr->nsorted; s < hdr->count; s++)
	{
		int			j = ord->n++;
		int			low = 0,
					high = hdr->nsorted;

		while (j > 0 && compare_entries(page, ord->slot[j - 1], s) > 0)
		{
			ord->slot[j] = ord->slot[j - 1];
			ord->rank[j] = ord->rank[j - 1];
			j--;
		}
		ord->slot[j] = s;
		/* sorted entries below it */
		while (low < high)
		{
			int			mid = low + (high - low) / 2;

			if (pbt_bytes_cmp((char *) page + slots[mid].off, pbt_slot_len(&slots[mid]),
							  (char *) page + slots[s].off, pbt_slot_len(&slots[s])) < 0)
				low = mid + 1;
			else
				high = mid;
		}
		ord->rank[j] = low;
	}
}

/* the slot of ordered position pos, given the unsorted range's order */
static int
slot_at(const FpOrder *ord, int pos)
{
	int			j = 0;

	/* unsorted entry j sits at position rank + j */
	while (j < ord->n && ord->rank[j] + j < pos)
		j++;
	if (j < ord->n && ord->rank[j] + j == pos)
		return ord->slot[j];
	return pos - j;
}

static void
fp_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	FpOrder		ord;
	PbtSlot    *slot;

	order_unsorted(page, &ord);
	slot = &fp_slots(page)[slot_at(&ord, pos)];
	item->data = (char *) page + slot->off;
	item->len = pbt_slot_len(slot);
}

static void
fp_iter_start(PbtIter *it)
{
	FpOrder    *ord = (FpOrder *) it->buf.data;

	if (it->unordered)
		ord->n = 0;				/* stored order: slot i at position i */
	else
		order_unsorted(it->page, ord);
}

static void
fp_iter_next(PbtIter *it, PbtItem *item)
{
	FpOrder    *ord = (FpOrder *) it->buf.data;
	PbtSlot    *slot;

	it->pos += it->step;
	slot = &fp_slots(it->page)[slot_at(ord, it->pos)];
	item->data = (char *) it->page + slot->off;
	item->len = pbt_slot_len(slot);
	it->dead = (slot->len & PBT_SLOT_DEAD) != 0;
}

/* first position whose item is >= key (see generic_binsearch) */
static int
fp_search(PbtState *st, Page page, PbtSearchKey *key)
{
	FpHeader   *hdr = fp_header(page);
	PbtSlot    *slots = fp_slots(page);
	int			low = 0,
				high = hdr->nsorted;

	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (pbt_compare(st, key, (char *) page + slots[mid].off,
						pbt_slot_len(&slots[mid])) > 0)
			low = mid + 1;
		else
			high = mid;
	}
	for (int s = hdr->nsorted; s < hdr->count; s++)
		low += pbt_compare(st, key, (char *) page + slots[s].off,
						   pbt_slot_len(&slots[s])) > 0;
	return low;
}

/*
 * The entries whose key (the item without its TID) is exactly key, in
 * (key, TID) order, with their dead hints; returns how many.  Only the
 * entries whose fingerprint matches are compared.
 */
static int
fp_probe(Page page, const char *key, int keylen, PbtItem *items, bool *dead)
{
	FpHeader   *hdr = fp_header(page);
	PbtSlot    *slots = fp_slots(page);
	const uint8 *fps = fingerprints(page);
	uint8		fp = key_fingerprint(key, keylen);
	int			n = 0;

	for (int base = 0; base < hdr->count; base += 16)
	{
		uint32		mask = 0;

#ifdef __SSE2__
		mask = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *) (fps + base)),
												_mm_set1_epi8((char) fp)));
#else
		for (int i = 0; i < 16; i++)
			mask |= (uint32) (fps[base + i] == fp) << i;
#endif
		if (hdr->count - base < 16)
			mask &= ((uint32) 1 << (hdr->count - base)) - 1;
		while (mask != 0)
		{
			int			s = base + pg_rightmost_one_pos32(mask);
			int			len = pbt_slot_len(&slots[s]);

			mask &= mask - 1;
			if (len == keylen + PBT_TID_BYTES &&
				memcmp((char *) page + slots[s].off, key, keylen) == 0)
			{
				items[n].data = (char *) page + slots[s].off;
				items[n].len = len;
				dead[n] = (slots[s].len & PBT_SLOT_DEAD) != 0;
				n++;
			}
		}
	}
	/* a key's entries, by heap TID: the sorted ones come in order already */
	for (int i = 1; i < n; i++)
	{
		PbtItem		x = items[i];
		bool		d = dead[i];
		int			j = i;

		while (j > 0 && pbt_item_cmp(&items[j - 1], &x) > 0)
		{
			items[j] = items[j - 1];
			dead[j] = dead[j - 1];
			j--;
		}
		items[j] = x;
		dead[j] = d;
	}
	return n;
}

/* item bytes still referenced: entries and the high key */
static int
live_bytes(Page page)
{
	FpHeader   *hdr = fp_header(page);
	int			live = PbtPageGetOpaque(page)->hikey_len;

	for (int i = 0; i < hdr->count; i++)
		live += pbt_slot_len(&fp_slots(page)[i]);
	return live;
}

static int
fp_free_space(Page page)
{
	PageHeader	phdr = (PageHeader) page;

	return phdr->pd_special - phdr->pd_lower - live_bytes(page);
}

static int
fp_garbage(Page page)
{
	PageHeader	phdr = (PageHeader) page;

	return phdr->pd_special - phdr->pd_upper - live_bytes(page);
}

static bool
can_append(Page page, int len)
{
	FpHeader   *hdr = fp_header(page);
	PageHeader	phdr = (PageHeader) page;

	return hdr->count < hdr->fp_cap &&
		hdr->count - hdr->nsorted < FP_MAX_UNSORTED &&
		phdr->pd_upper - phdr->pd_lower >= len + (int) sizeof(PbtSlot);
}

/*
 * An append takes the item and its slot; a sorting rebuild also what it
 * adds to the fingerprint array.
 */
static int
fp_item_cost(Page page, const char *data, int len)
{
	FpHeader   *hdr = fp_header(page);

	if (can_append(page, len))
		return len + sizeof(PbtSlot);
	return len + sizeof(PbtSlot) + Max(0, fp_cap_for(hdr->count + 1) - hdr->fp_cap);
}

static int
fp_space_needed(const PbtItem *items, int n, bool leaf)
{
	int			bytes = lower_for(n) - SizeOfPageHeaderData;

	for (int i = 0; i < n; i++)
		bytes += items[i].len;
	return bytes;
}

/*
 * Fill the empty page (its high key, if any, already set) with sorted
 * items, with room for FP_MAX_UNSORTED more fingerprints if the page has
 * it (a rebuild after deletes may not: then the next insert sorts again).
 */
static void
fp_load(Page page, PbtItem *items, int n)
{
	PageHeader	phdr = (PageHeader) page;
	FpHeader   *hdr = fp_header(page);
	int			room = phdr->pd_upper - FP_START - n * (int) sizeof(PbtSlot);

	if (hdr->count != 0)
		elog(ERROR, "pagebtree fingerprint layout: load into a page that is not empty");
	for (int i = 0; i < n; i++)
		room -= items[i].len;
	hdr->fp_cap = Max(TYPEALIGN(16, n), Min(fp_cap_for(n), TYPEALIGN_DOWN(16, room)));
	hdr->count = hdr->nsorted = n;
	phdr->pd_lower = FP_START + hdr->fp_cap + n * sizeof(PbtSlot);
	if (phdr->pd_lower > phdr->pd_upper)
		elog(ERROR, "pagebtree fingerprint layout: %d items do not fit", n);
	memset(fingerprints(page), 0, hdr->fp_cap);
	for (int i = 0; i < n; i++)
	{
		PbtSlot    *slot = &fp_slots(page)[i];

		if (phdr->pd_upper - items[i].len < phdr->pd_lower)
			elog(ERROR, "pagebtree fingerprint layout: %d items do not fit", n);
		phdr->pd_upper -= items[i].len;
		memcpy((char *) page + phdr->pd_upper, items[i].data, items[i].len);
		slot->off = phdr->pd_upper;
		slot->len = items[i].len;
		fingerprints(page)[i] = item_fingerprint(items[i].data, items[i].len);
	}
}

/*
 * Rebuild the page sorted, without the entries at the ordered positions in
 * skip (ascending, nskip of them), keeping only the first keep, and with
 * data added if not NULL.  No palloc: inserts and deletes run in critical
 * sections.  False (page unchanged) if the result does not fit.
 */
static bool
rebuild(Page page, const int *skip, int nskip, int keep, const char *data, int len)
{
	FpHeader   *hdr = fp_header(page);
	PbtItem		items[PBT_MAX_ITEMS_PER_PAGE];
	PbtItem		hikey;
	bool		has_hikey = pbt_page_get_hikey(page, &hikey);
	FpOrder		ord;
	int			n = 0;
	int			k = 0;

	if (data && lower_for(hdr->count + 1) + live_bytes(page) + len >
		((PageHeader) page)->pd_special)
		return false;
	order_unsorted(page, &ord);
	for (int pos = 0; pos < Min(keep, hdr->count); pos++)
	{
		PbtSlot    *slot;

		if (k < nskip && skip[k] == pos)
		{
			k++;
			continue;
		}
		slot = &fp_slots(page)[slot_at(&ord, pos)];
		items[n].data = (char *) page + slot->off;
		items[n++].len = pbt_slot_len(slot);
	}
	if (data)
	{
		int			at = n;

		/* its place among the sorted items */
		while (at > 0 && pbt_bytes_cmp(items[at - 1].data, items[at - 1].len, data, len) > 0)
		{
			items[at] = items[at - 1];
			at--;
		}
		items[at].data = data;
		items[at].len = len;
		n++;
	}
	pbt_page_rebuild(page, items, n, has_hikey ? &hikey : NULL);
	return true;
}

/* pos is ignored: the entry is appended to the unsorted range */
static bool
fp_insert(Page page, int pos, const char *data, int len)
{
	FpHeader   *hdr = fp_header(page);
	PageHeader	phdr = (PageHeader) page;
	PbtSlot    *slot;

	if (!can_append(page, len))
		return rebuild(page, NULL, 0, hdr->count, data, len);
	phdr->pd_upper -= len;
	memcpy((char *) page + phdr->pd_upper, data, len);
	fingerprints(page)[hdr->count] = item_fingerprint(data, len);
	slot = &fp_slots(page)[hdr->count++];
	slot->off = phdr->pd_upper;
	slot->len = len;
	phdr->pd_lower += sizeof(PbtSlot);
	return true;
}

static void
fp_delete(Page page, const int *positions, int n)
{
	rebuild(page, positions, n, fp_header(page)->count, NULL, 0);
}

static void
fp_truncate(Page page, int n)
{
	rebuild(page, NULL, 0, n, NULL, 0);
}

static void
fp_set_dead(Page page, int pos)
{
	FpOrder		ord;

	order_unsorted(page, &ord);
	fp_slots(page)[slot_at(&ord, pos)].len |= PBT_SLOT_DEAD;
}

static bool
fp_is_dead(Page page, int pos)
{
	FpOrder		ord;

	order_unsorted(page, &ord);
	return (fp_slots(page)[slot_at(&ord, pos)].len & PBT_SLOT_DEAD) != 0;
}

static void
fp_mask(Page page)
{
	FpHeader   *hdr = fp_header(page);

	for (int i = 0; i < hdr->count; i++)
		fp_slots(page)[i].len &= PBT_SLOT_LEN_MASK;
}

static const char *
fp_check(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	FpHeader   *hdr = fp_header(page);

	if (hdr->nsorted > hdr->count || hdr->count > hdr->fp_cap ||
		hdr->fp_cap % 16 != 0 || hdr->count - hdr->nsorted > FP_MAX_UNSORTED ||
		phdr->pd_lower != FP_START + hdr->fp_cap + hdr->count * sizeof(PbtSlot) ||
		phdr->pd_lower > phdr->pd_upper)
		return "fingerprint header disagrees with the page's slot area";
	for (int i = 0; i < hdr->count; i++)
	{
		PbtSlot    *slot = &fp_slots(page)[i];
		int			len = pbt_slot_len(slot);

		if (len <= PBT_TID_BYTES || len > (int) PBT_MAX_ITEM_SIZE ||
			slot->off < phdr->pd_upper || slot->off + len > phdr->pd_special)
			return "fingerprint item out of bounds";
		if (fingerprints(page)[i] != item_fingerprint((char *) page + slot->off, len))
			return "fingerprint does not match its key";
		if (i > 0 && i < hdr->nsorted && compare_entries(page, i - 1, i) >= 0)
			return "fingerprint sorted range out of order";
	}
	return NULL;
}

const PbtLayout pbt_layout_fingerprint = {
	.name = "fingerprint",
	.init = fp_init,
	.count = fp_count,
	.get = fp_get,
	.get_child = NULL,
	.set_child = NULL,
	.search = fp_search,
	.insert = fp_insert,
	.insert_anywhere = true,
	.load = fp_load,
	.delete = fp_delete,
	.truncate = fp_truncate,
	.item_cost = fp_item_cost,
	.space_needed = fp_space_needed,
	.free_space = fp_free_space,
	.garbage = fp_garbage,
	.set_dead = fp_set_dead,
	.is_dead = fp_is_dead,
	.mask = fp_mask,
	.check = fp_check,
	.iter_start = fp_iter_start,
	.iter_next = fp_iter_next,
	.probe = fp_probe,
};
