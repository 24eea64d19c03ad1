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
 *	PageHeader | FpHeader | prefix | fingerprints [fp_cap] | slots [count]
 *	-> ... <- entries, high key | special
 *
 * Every item starts with the prefix (prefix_len bytes, padded to an even
 * length), which a page takes from its items when it is rebuilt: what the
 * first and last share, but never into the heap TID.  An entry is the item
 * after the prefix; its fingerprint hashes the entry without its TID.  Slot
 * i ({off, len}, dead hint in the top bit of len, as in plain) and
 * fingerprint i describe one entry.  Slots [0, nsorted) are in key order;
 * slots [nsorted, count) were appended by inserts, in arrival order, at
 * most FP_MAX_UNSORTED of them.  An insert appends a slot, a fingerprint
 * and the entry, shifting nothing: a small WAL diff, and redo of the
 * compact insert record repeats it.  When the unsorted range or the
 * fingerprint array is full, the hole too small, or the item does not
 * start with the prefix, the insert rebuilds the page with all entries
 * sorted, a prefix they all share and room for FP_MAX_UNSORTED more
 * fingerprints: the "sort under an exclusive, WAL-logged change" (redo of
 * the same insert repeats it).
 *
 * Ordered positions are ranks in key order.  A search binary-searches the
 * sorted range and counts the unsorted entries below the key.  Ordered
 * reads sort the unsorted range in the iterator's backend-local buffer and
 * merge it with the sorted range; readers never change the page.  An
 * equality probe (the engine's point lookups) compares the key with the
 * prefix once, the fingerprint of its rest with all fingerprints at once
 * (SSE2 where available), and whole entries only where they match.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_parts.h"
#include "pbt_slots.h"

#include "port/pg_bitutils.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct FpHeader
{
	uint16		count;
	uint16		nsorted;
	uint16		fp_cap;			/* fingerprints the array has room for */
	uint16		prefix_len;		/* bytes every item starts with, stored once */
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

StaticAssertDecl(sizeof(FpOrder) <= PBT_ITER_STATE_SIZE,
				 "fingerprint iteration state must fit in the iterator");

static inline FpHeader *
fp_header(Page page)
{
	return (FpHeader *) ((char *) page + SizeOfPageHeaderData);
}

static inline char *
fp_prefix(Page page)
{
	return (char *) page + FP_START;
}

/* where the fingerprints start after a prefix of prefix_len bytes */
static inline int
fps_start(int prefix_len)
{
	return FP_START + SHORTALIGN(prefix_len);
}

static inline uint8 *
fingerprints(Page page)
{
	return (uint8 *) page + fps_start(fp_header(page)->prefix_len);
}

static inline PbtSlot *
fp_slots(Page page)
{
	return (PbtSlot *) (fingerprints(page) + fp_header(page)->fp_cap);
}

/* fingerprint capacity of a page loaded with n entries: room to append */
static inline int
fp_cap_for(int n)
{
	return TYPEALIGN(16, n + FP_MAX_UNSORTED);
}

static inline int
fp_lower_for(int n, int prefix_len)
{
	return fps_start(prefix_len) + fp_cap_for(n) + n * sizeof(PbtSlot);
}

static inline int
compare_entries(Page page, int a, int b)
{
	return pbt_slot_cmp(page, &fp_slots(page)[a], &fp_slots(page)[b]);
}

/*
 * One byte of FNV-1a over the key after the page's prefix (the stored
 * entry without its heap TID): the same on every platform, since it is
 * stored.
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
entry_fingerprint(const char *entry, int len)
{
	return key_fingerprint(entry, len - PBT_TID_BYTES);
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
	return pbt_checked_count(fp_header(page)->count);
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

			if (pbt_slot_cmp(page, &slots[mid], &slots[s]) < 0)
				low = mid + 1;
			else
				high = mid;
		}
		ord->rank[j] = low;
	}
}

/* the slot of ordered position pos, given the unsorted range's order */
static int
fp_slot_at(const FpOrder *ord, int pos)
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
	FpHeader   *hdr = fp_header(page);
	FpOrder		ord;
	int			s = 0;

	if (pos == 0)
	{
		/* the first item (the insert fast path asks for it): the least */
		for (int u = Max(hdr->nsorted, 1); u < hdr->count; u++)
			if (compare_entries(page, u, s) < 0)
				s = u;
	}
	else
	{
		order_unsorted(page, &ord);
		s = fp_slot_at(&ord, pos);
	}
	pbt_slot_item(page, &fp_slots(page)[s], fp_prefix(page),
				  fp_header(page)->prefix_len, item, buf->data, false);
}

static void
fp_iter_start(PbtIter *it)
{
	FpOrder    *ord = (FpOrder *) it->state.data;

	if (it->unordered)
		ord->n = 0;				/* stored order: slot i at position i */
	else
		order_unsorted(it->page, ord);
}

static void
fp_iter_next(PbtIter *it, PbtItem *item)
{
	FpOrder    *ord = (FpOrder *) it->state.data;
	PbtSlot    *slot;

	it->pos += it->step;
	slot = &fp_slots(it->page)[fp_slot_at(ord, it->pos)];
	pbt_slot_iter_item(it, slot, fp_prefix(it->page),
					   fp_header(it->page)->prefix_len, item);
}

/* first position whose item is >= key (see generic_binsearch) */
static int
fp_search(PbtState *st, Page page, PbtSearchKey *key)
{
	FpHeader   *hdr = fp_header(page);
	PbtSlot    *slots = fp_slots(page);
	int			plen = hdr->prefix_len;
	int			low = 0,
				high = hdr->nsorted;
	int			c;
	PbtSearchKey rest;

	if (hdr->count == 0)
		return 0;
	c = pbt_key_prefix_cmp(key, fp_prefix(page), plen);
	if (c != 0)
		return c < 0 ? 0 : hdr->count;

	/* compare the rest of the key with entries, which are the rest of items */
	pbt_key_rest(key, plen, &rest);
	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (pbt_compare(st, &rest, pbt_slot_data(page, &slots[mid]),
						pbt_slot_len(&slots[mid])) > 0)
			low = mid + 1;
		else
			high = mid;
	}
	for (int s = hdr->nsorted; s < hdr->count; s++)
		low += pbt_compare(st, &rest, pbt_slot_data(page, &slots[s]),
						   pbt_slot_len(&slots[s])) > 0;
	return low;
}

/*
 * The heap TIDs of the entries whose key (the item without its TID) is
 * exactly key, in TID order, with their dead hints; returns how many.  Only
 * the entries whose fingerprint matches are compared.
 */
static int
fp_probe(Page page, const char *key, int keylen, const char **tids, bool *dead)
{
	FpHeader   *hdr = fp_header(page);
	PbtSlot    *slots = fp_slots(page);
	const uint8 *fps = fingerprints(page);
	int			plen = hdr->prefix_len;
	uint8		fp;
	int			n = 0;

	if (!pbt_skip_prefix(&key, &keylen, fp_prefix(page), plen))
		return 0;
	fp = key_fingerprint(key, keylen);
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
			const char *entry = pbt_slot_data(page, &slots[s]);

			mask &= mask - 1;
			if (pbt_slot_len(&slots[s]) == keylen + PBT_TID_BYTES &&
				memcmp(entry, key, keylen) == 0)
			{
				tids[n] = entry + keylen;
				dead[n] = pbt_slot_is_dead(&slots[s]);
				n++;
			}
		}
	}
	/* by heap TID: the sorted ones come in order already */
	pbt_probe_sort(tids, dead, n);
	return n;
}

/* entry bytes still referenced, and the high key (the prefix is below pd_lower) */
static int
fp_live_bytes(Page page)
{
	return PbtPageGetOpaque(page)->hikey_len +
		pbt_slots_bytes(fp_slots(page), fp_header(page)->count);
}

static int
fp_free_space(Page page)
{
	return pbt_slots_free_space(page, fp_live_bytes(page));
}

static int
fp_garbage(Page page)
{
	return pbt_slots_garbage(page, fp_live_bytes(page));
}

/* Can the item be appended to the unsorted range? */
static bool
can_append(Page page, const char *data, int len)
{
	FpHeader   *hdr = fp_header(page);
	PageHeader	phdr = (PageHeader) page;

	return hdr->count < hdr->fp_cap &&
		hdr->count - hdr->nsorted < FP_MAX_UNSORTED &&
		/* the item's prefix, before its TID */
		pbt_has_prefix(data, len - PBT_TID_BYTES, fp_prefix(page),
					   hdr->prefix_len) &&
		phdr->pd_upper - phdr->pd_lower >=
		len - hdr->prefix_len + (int) sizeof(PbtSlot);
}

/* bytes a page of these sorted items takes below pd_special, but the high key */
static int
fp_parts_bytes(const PbtPart *parts, int n)
{
	int			q = pbt_parts_prefix(parts, n);

	return fp_lower_for(n, q) + pbt_parts_entry_bytes(parts, n, q);
}

/*
 * Fill the empty page (its high key, if any, already set) with sorted
 * items, after their common prefix, with room for FP_MAX_UNSORTED more
 * fingerprints if the page has it (a rebuild after deletes may not: then
 * the next insert sorts again).
 */
static void
fp_fill(Page page, const PbtPart *parts, int n)
{
	PageHeader	phdr = (PageHeader) page;
	FpHeader   *hdr = fp_header(page);
	int			q = pbt_parts_prefix(parts, n);
	int			room = phdr->pd_upper - fps_start(q) - n * (int) sizeof(PbtSlot);

	if (hdr->count != 0)
		elog(ERROR, "pagebtree fingerprint layout: load into a page that is not empty");
	room -= pbt_parts_entry_bytes(parts, n, q);
	hdr->prefix_len = q;
	hdr->fp_cap = Max(TYPEALIGN(16, n), Min(fp_cap_for(n), TYPEALIGN_DOWN(16, room)));
	hdr->count = hdr->nsorted = n;
	phdr->pd_lower = fps_start(q) + hdr->fp_cap + n * sizeof(PbtSlot);
	if (phdr->pd_lower > phdr->pd_upper)
		elog(ERROR, "pagebtree fingerprint layout: %d items do not fit", n);
	/* the prefix, and zeroes up to the fingerprints (whole bytes reach WAL) */
	memset(fp_prefix(page), 0, fps_start(q) - FP_START + hdr->fp_cap);
	if (n > 0)
		pbt_part_copy(&parts[0], 0, q, fp_prefix(page));
	for (int i = 0; i < n; i++)
	{
		PbtSlot    *slot = &fp_slots(page)[i];
		int			len = pbt_part_len(&parts[i]) - q;
		char	   *entry;

		if (phdr->pd_upper - len < phdr->pd_lower)
			elog(ERROR, "pagebtree fingerprint layout: %d items do not fit", n);
		phdr->pd_upper -= len;
		entry = (char *) page + phdr->pd_upper;
		pbt_part_copy(&parts[i], q, pbt_part_len(&parts[i]), entry);
		slot->off = phdr->pd_upper;
		slot->len = len;
		fingerprints(page)[i] = entry_fingerprint(entry, len);
	}
}

static void
fp_load(Page page, PbtItem *items, int n)
{
	PbtPart		parts[PBT_MAX_ITEMS_PER_PAGE];

	fp_fill(page, parts, pbt_items_as_parts(items, n, parts));
}

static int
fp_space_needed(const PbtItem *items, int n, int downlink)
{
	PbtPart		parts[PBT_MAX_ITEMS_PER_PAGE];

	/* more than a page holds: a leaf group's plan tries such ranges */
	if (n > PBT_MAX_ITEMS_PER_PAGE)
		return BLCKSZ;
	return fp_parts_bytes(parts, pbt_items_as_parts(items, n, parts)) -
		SizeOfPageHeaderData;
}

static bool
fp_fits(PbtItem *items, int n, PbtItem *hikey, int *bytes)
{
	int			need = fp_space_needed(items, n, 0);

	if (bytes)
		*bytes = need;
	return need + (hikey ? hikey->len : 0) <= (int) PBT_USABLE_SPACE;
}

/*
 * The entries of the page in key order, without those at the ordered
 * positions in skip (ascending, nskip of them), keeping only the first
 * keep, and with data added if not NULL, as parts; returns how many.
 */
static int
fp_sorted_parts(Page page, const int *skip, int nskip, int keep,
				const char *data, int len, PbtPart *parts)
{
	FpHeader   *hdr = fp_header(page);
	FpOrder		ord;
	int			n = 0;
	int			k = 0;

	order_unsorted(page, &ord);
	for (int pos = 0; pos < Min(keep, hdr->count); pos++)
	{
		PbtSlot    *slot;

		if (k < nskip && skip[k] == pos)
		{
			k++;
			continue;
		}
		slot = &fp_slots(page)[fp_slot_at(&ord, pos)];
		parts[n++] = pbt_slot_part(page, slot, fp_prefix(page), hdr->prefix_len);
	}
	if (data)
		n = pbt_parts_add_item(parts, n, data, len);
	return n;
}

/*
 * Rebuild the page sorted, as fp_sorted_parts says, with the prefix the
 * result shares.  No palloc: inserts and deletes run in critical sections.
 * False (page unchanged) if the result does not fit; without a new item it
 * does, since fp_fill gives it fewer fingerprints then if need be.
 */
static bool
fp_rebuild(Page page, const int *skip, int nskip, int keep, const char *data,
		   int len)
{
	PGAlignedBlock copy;
	Page		old = copy.data;
	PbtPart		parts[PBT_MAX_ITEMS_PER_PAGE];
	int			n;

	memcpy(old, page, BLCKSZ);
	n = fp_sorted_parts(old, skip, nskip, keep, data, len, parts);
	return pbt_slots_rebuild(page, old, parts, n,
							 data ? fp_parts_bytes(parts, n) : 0, fp_fill);
}

/*
 * An append takes the entry and its slot; a sorting rebuild what the page
 * would need then, less what it uses now (so that it fits exactly when
 * fp_rebuild finds that it does).
 */
static int
fp_item_cost(Page page, const char *data, int len)
{
	FpHeader   *hdr = fp_header(page);
	PbtPart		new = {data, len, NULL, 0};
	PbtPart		first = new;
	PbtPart		last = new;
	int			n = hdr->count + 1;
	int			total = len;
	int			shortest = len;
	int			stored = 0;		/* entry bytes the page holds now */
	int			q;

	if (can_append(page, data, len))
		return len - hdr->prefix_len + sizeof(PbtSlot);

	/*
	 * What fp_rebuild's fp_parts_bytes would say, without sorting: the
	 * smallest and largest items are among the ends of the sorted range, the
	 * unsorted entries and the new item.
	 */
	for (int i = 0; i < hdr->count; i++)
	{
		PbtPart		p = pbt_slot_part(page, &fp_slots(page)[i], fp_prefix(page),
									  hdr->prefix_len);

		stored += p.taillen;
		total += pbt_part_len(&p);
		shortest = Min(shortest, pbt_part_len(&p));
		if (i > 0 && i < hdr->nsorted - 1)
			continue;
		if (pbt_part_cmp(&p, &first) < 0)
			first = p;
		if (pbt_part_cmp(&p, &last) > 0)
			last = p;
	}
	q = pbt_prefix_between(&first, &last, shortest);
	/* a longer prefix than the page has can make it negative */
	return Max(0, fp_lower_for(n, q) + total - n * q - ((PageHeader) page)->pd_lower -
			   stored);
}

/* pos is ignored: the entry is appended to the unsorted range */
static bool
fp_insert(Page page, int pos, const char *data, int len)
{
	FpHeader   *hdr = fp_header(page);
	PageHeader	phdr = (PageHeader) page;
	int			elen = len - hdr->prefix_len;
	PbtSlot    *slot;

	if (!can_append(page, data, len))
		return fp_rebuild(page, NULL, 0, hdr->count, data, len);
	phdr->pd_upper -= elen;
	memcpy((char *) page + phdr->pd_upper, data + hdr->prefix_len, elen);
	fingerprints(page)[hdr->count] =
		entry_fingerprint((char *) page + phdr->pd_upper, elen);
	slot = &fp_slots(page)[hdr->count++];
	slot->off = phdr->pd_upper;
	slot->len = elen;
	phdr->pd_lower += sizeof(PbtSlot);
	return true;
}

static void
fp_delete(Page page, const int *positions, int n)
{
	fp_rebuild(page, positions, n, fp_header(page)->count, NULL, 0);
}

static void
fp_truncate(Page page, int n)
{
	fp_rebuild(page, NULL, 0, n, NULL, 0);
}

static void
fp_set_dead(Page page, int pos)
{
	FpOrder		ord;

	order_unsorted(page, &ord);
	pbt_slot_set_dead(&fp_slots(page)[fp_slot_at(&ord, pos)]);
}

static bool
fp_is_dead(Page page, int pos)
{
	FpOrder		ord;

	order_unsorted(page, &ord);
	return pbt_slot_is_dead(&fp_slots(page)[fp_slot_at(&ord, pos)]);
}

static void
fp_mask(Page page)
{
	pbt_slots_clear_dead(fp_slots(page), fp_header(page)->count);
}

static const char *
fp_check_header(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	FpHeader   *hdr = fp_header(page);

	if (hdr->nsorted > hdr->count || hdr->count > hdr->fp_cap ||
		hdr->fp_cap % 16 != 0 || hdr->count - hdr->nsorted > FP_MAX_UNSORTED ||
		phdr->pd_lower != fps_start(hdr->prefix_len) + hdr->fp_cap +
		hdr->count * sizeof(PbtSlot) ||
		phdr->pd_lower > phdr->pd_upper)
		return "fingerprint header disagrees with the page's slot area";
	return NULL;
}

static const char *
fp_check(Page page)
{
	FpHeader   *hdr = fp_header(page);
	const char *problem = fp_check_header(page);

	if (problem)
		return problem;
	for (int i = 0; i < hdr->count; i++)
	{
		PbtSlot    *slot = &fp_slots(page)[i];

		if (!pbt_slot_entry_in_bounds(page, slot))
			return "fingerprint item out of bounds";
		if (fingerprints(page)[i] != entry_fingerprint(pbt_slot_data(page, slot),
													   pbt_slot_len(slot)))
			return "fingerprint does not match its key";
		if (i > 0 && i < hdr->nsorted && compare_entries(page, i - 1, i) >= 0)
			return "fingerprint sorted range out of order";
	}
	return NULL;
}

const PbtLayout pbt_layout_fingerprint = {
	.name = "fingerprint",
	.tag = PBT_LAYOUT_FINGERPRINT,
	.flags = PBT_LF_LEAF | PBT_LF_NORMALIZED | PBT_LF_NO_INCLUDE,
	.init = fp_init,
	.count = fp_count,
	.get = fp_get,
	.downlink = NULL,
	.search = fp_search,
	.insert = fp_insert,
	.insert_anywhere = true,
	.load = fp_load,
	.delete = fp_delete,
	.truncate = fp_truncate,
	.item_cost = fp_item_cost,
	.space_needed = fp_space_needed,
	.fits = fp_fits,
	.free_space = fp_free_space,
	.garbage = fp_garbage,
	.set_dead = fp_set_dead,
	.is_dead = fp_is_dead,
	.mask = fp_mask,
	.check = fp_check,
	.check_header = fp_check_header,
	.iter_start = fp_iter_start,
	.iter_next = fp_iter_next,
	.probe = fp_probe,
};
