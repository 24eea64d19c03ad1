/*-------------------------------------------------------------------------
 *
 * pbt_layout_dense.c
 *	  Fully dense leaf layout, after "B-Trees Are Back" (normalized keys
 *	  without INCLUDE columns only).
 *
 * Every item on a dense page has the same length L and is
 *
 *   prefix (p bytes, the same for all) | tail (t bytes) | value (v bytes)
 *
 * where t = min(4, L - v), p = L - v - t and v = PBT_TID_BYTES: the value
 * is the heap TID.  The tail, read as a big-endian unsigned integer,
 * indexes a fixed-width array of values covering tails [base, base +
 * capacity); a presence bitmap says which tails exist.  Tails are distinct
 * (one entry per key value), so the ordered position of an item is the rank
 * of its tail in the bitmap, and an insert sets a bit and copies a TID:
 * nothing shifts.  Neither the prefix nor the tails are stored per item, so
 * an int8 entry (15 bytes) takes 6 bytes and two bits.
 *
 *   PageHeader | DenseHeader | present bitmap | dead bitmap | values[capacity]
 *   ... pd_lower -> ... free ... pd_upper <- prefix bytes, high key | special
 *
 * pd_lower ends after the last value ever set since the load, rounded up to
 * DENSE_LOWER_STEP slots, not at the end of the value array: the empty
 * slots after it are zeros in the page's hole, which full-page images leave
 * out, so that the image of a rightmost leaf that ascending keys have just
 * begun to fill is small.  (Moving pd_lower with every insert would add a
 * fragment to each generic WAL record.)  low_end tells pbt_page_alloc where
 * the array really ends.
 *
 * The bitmaps are whole 8-byte words (bit i in byte i / 8, bit i % 8), so
 * rank and select count a word at a time with pg_popcount64.  The dead
 * bitmap holds the dead-entry hints (not WAL-logged; DENSE_HAS_DEAD says
 * whether any may be set, so that scans of pages without hints skip the
 * lookup).  A page initialized empty has capacity 0 until it is loaded.
 *
 * The capacity is fixed when the page is loaded: as many slots as fit
 * (keeping room for a high key as long as an item while the page has none,
 * so that a split or the bulk build can add one without a rebuild).  The
 * window is placed to end at the high key where there is one, covering the
 * keys that can still arrive below the first item, and to start at the
 * first item on the rightmost page, where ascending keys arrive.
 *
 * An insert that cannot set a bit (a different length or prefix, a tail
 * outside the window, or an existing tail: the same key with another heap
 * TID, as after a non-HOT update) converts the page in place to the heads
 * layout holding all items plus the new one, or fails, leaving the page
 * unchanged, if they do not fit there either; the engine then splits.  The
 * conversion is deterministic and drops the hints, so WAL redo repeats it
 * exactly.  No palloc: inserts run inside critical sections.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "pbt_dense_util.h"

/* what a page converts to when an insert breaks its pattern (on disk) */
#define DENSE_CONVERT_TO	PBT_LAYOUT_HEADS

typedef struct DenseHeader
{
	uint16		item_len;		/* L; 0 while capacity is 0 */
	uint16		prefix_off;		/* the prefix bytes, in the item area */
	uint16		prefix_len;		/* p = L - t - v */
	uint16		capacity;		/* slots: tails [base, base + capacity) */
	uint16		count;			/* present slots */
	uint8		tail_len;		/* t, 1 to 4 */
	uint8		flags;			/* DENSE_HAS_DEAD */
	uint32		base;			/* tail of slot 0 */
} DenseHeader;

#define DENSE_HAS_DEAD		0x01	/* a dead-entry hint may be set */

#define DENSE_VALUE_BYTES	PBT_TID_BYTES
#define DENSE_LOWER_STEP	64		/* slots pd_lower moves by */
#define DENSE_MAX_TAIL		4
#define DENSE_MAPS_START	(SizeOfPageHeaderData + sizeof(DenseHeader))

/* what a dense page for some items would look like (see dense_plan) */
typedef struct DensePlan
{
	int			len;			/* L */
	int			plen;			/* p */
	int			tlen;			/* t */
	uint32		base;
	int			capacity;
	int			bytes;			/* header, prefix and a window just
								 * covering the items */
} DensePlan;

static inline DenseHeader *
dense_header(Page page)
{
	return (DenseHeader *) ((char *) page + SizeOfPageHeaderData);
}

static inline uint8 *
dense_present_map(Page page)
{
	return (uint8 *) page + DENSE_MAPS_START;
}

static inline uint8 *
dead_map(Page page)
{
	return dense_present_map(page) + map_bytes(dense_header(page)->capacity);
}

static inline char *
slot_value(Page page, int slot)
{
	return (char *) dense_present_map(page) +
		2 * map_bytes(dense_header(page)->capacity) +
		slot * DENSE_VALUE_BYTES;
}

/* the end of the value array (of the bitmaps while capacity is 0) */
static int
dense_low_end(Page page)
{
	return slot_value(page, dense_header(page)->capacity) - (char *) page;
}

static inline int
dense_tail_len_for(int len)
{
	return Min(DENSE_MAX_TAIL, len - DENSE_VALUE_BYTES);
}

/* the slot holding the item at ordered position pos */
static inline int
dense_slot_of(Page page, int pos)
{
	DenseHeader *hdr = dense_header(page);

	return window_select(dense_present_map(page), hdr->capacity, hdr->count,
						 pos);
}

/*
 * Slots of a page for items of length len with a prefix of plen bytes: all
 * the space left by the header, the prefix and the high key, or, without
 * one, room for a high key as long as an item (a separator after a dense
 * item is never longer) plus what pbt_page_alloc keeps free.
 */
static int
capacity_with(int len, int plen, int hikey_len)
{
	int			space = PBT_USABLE_SPACE - sizeof(DenseHeader) - plen;

	space -= hikey_len >= 0 ? hikey_len : len + (int) sizeof(PbtSlot);
	/* the present and dead bitmaps, and a value per slot */
	return window_capacity(space, 2, DENSE_VALUE_BYTES,
						   (int) PBT_MAX_ITEMS_PER_PAGE);
}

static inline int
dense_bytes(int plen, int span)
{
	return sizeof(DenseHeader) + plen + 2 * map_bytes(span) +
		span * DENSE_VALUE_BYTES;
}

/*
 * Can sorted items make a dense page with this high key (NULL: none)?  If
 * so, fill in the plan: lengths, capacity and window.  Loading and the
 * engine's choice both use this, so they agree.
 */
static bool
dense_plan(PbtItem *items, int n, PbtItem *hikey, DensePlan *plan)
{
	int			len;
	int			plen;
	int			tlen;
	uint64		first;
	uint64		last;
	uint64		prev;
	uint64		domain;
	uint64		base;
	int			cap;

	if (n < 1)
		return false;
	len = items[0].len;
	if (len <= DENSE_VALUE_BYTES || len > (int) PBT_MAX_ITEM_SIZE)
		return false;
	tlen = dense_tail_len_for(len);
	plen = len - DENSE_VALUE_BYTES - tlen;
	/* sorted: if the first and last share the prefix, all do */
	if (items[n - 1].len != len ||
		memcmp(items[0].data, items[n - 1].data, plen) != 0)
		return false;

	/* the span first: sparse keys fail here without a pass over the items */
	first = read_tail(items[0].data + plen, tlen);
	last = read_tail(items[n - 1].data + plen, tlen);
	cap = capacity_with(len, plen, hikey ? hikey->len : -1);
	domain = UINT64CONST(1) << (8 * tlen);
	if ((uint64) cap > domain)
		cap = (int) domain;
	if (last < first || last - first + 1 > (uint64) cap)
		return false;

	/* one entry per tail: an equal tail is the same key with another TID */
	prev = first;
	for (int i = 1; i < n; i++)
	{
		uint64		t;

		if (items[i].len != len)
			return false;
		t = read_tail(items[i].data + plen, tlen);
		if (t <= prev)
			return false;
		prev = t;
	}

	/* end the window at the high key, if that does not cut off an item */
	base = first;
	if (hikey)
	{
		uint64		top = tail_limit(hikey, items[0].data, plen, tlen) + 1;

		if (top > last)
			base = Min(first, top > (uint64) cap ? top - cap : 0);
	}
	if (base + cap > domain)
		cap = (int) (domain - base);

	plan->len = len;
	plan->plen = plen;
	plan->tlen = tlen;
	plan->base = (uint32) base;
	plan->capacity = cap;
	plan->bytes = dense_bytes(plen, (int) (last - first + 1));
	return true;
}

/*
 * Do sorted items fit a dense page with this high key (NULL: none yet)?
 * *bytes: what they take there with a window just covering them (header,
 * prefix, bitmaps and values; the high key is not counted), to compare
 * with other layouts.
 */
static bool
dense_fits(PbtItem *items, int n, PbtItem *hikey, int *bytes)
{
	DensePlan	plan;

	if (!dense_plan(items, n, hikey, &plan))
		return false;
	if (bytes)
		*bytes = plan.bytes;
	return true;
}

/*
 * Bulk build: if item can share a dense page with first (the first item on
 * the page), the number of tails from first's to item's, inclusive; else 0.
 */
static int
dense_run_span(const char *first, int firstlen, const char *item, int len)
{
	int			tlen;
	int			plen;
	uint64		a,
				b;

	if (len != firstlen || len <= DENSE_VALUE_BYTES || len > (int) PBT_MAX_ITEM_SIZE)
		return 0;
	tlen = dense_tail_len_for(len);
	plen = len - DENSE_VALUE_BYTES - tlen;
	if (memcmp(first, item, plen) != 0)
		return 0;
	a = read_tail(first + plen, tlen);
	b = read_tail(item + plen, tlen);
	if (b < a || b - a >= PBT_MAX_ITEMS_PER_PAGE)
		return 0;
	return (int) (b - a + 1);
}

/*
 * Bulk build: the capacity of a dense page loaded with first as its first
 * item and no high key (the window starts at first's tail).
 */
static int
dense_run_capacity(const char *first, int len)
{
	int			tlen = dense_tail_len_for(len);
	int			plen = len - DENSE_VALUE_BYTES - tlen;
	uint64		room = (UINT64CONST(1) << (8 * tlen)) - read_tail(first + plen, tlen);

	return (int) Min((uint64) capacity_with(len, plen, -1), room);
}

static void
dense_init(Page page)
{
	DenseHeader *hdr = dense_header(page);

	memset(hdr, 0, sizeof(DenseHeader));
	hdr->prefix_off = ((PageHeader) page)->pd_upper;
	((PageHeader) page)->pd_lower = DENSE_MAPS_START;
}

static int
dense_count(Page page)
{
	return pbt_checked_count(dense_header(page)->count);
}

/* write the tail and value of slot after the prefix at out */
static inline void
dense_assemble(Page page, int slot, char *out)
{
	DenseHeader *hdr = dense_header(page);
	char	   *tail = out + hdr->prefix_len;

	pbt_check_copy(slot_value(page, slot) - (char *) page, DENSE_VALUE_BYTES,
				   hdr->prefix_len + hdr->tail_len + DENSE_VALUE_BYTES);
	write_tail(tail, hdr->tail_len, (uint64) hdr->base + slot);
	memcpy(tail + hdr->tail_len, slot_value(page, slot), DENSE_VALUE_BYTES);
}

static void
dense_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	DenseHeader *hdr = dense_header(page);

	pbt_check_copy(hdr->prefix_off, hdr->prefix_len, hdr->prefix_len);
	memcpy(buf->data, (char *) page + hdr->prefix_off, hdr->prefix_len);
	dense_assemble(page, dense_slot_of(page, pos), buf->data);
	item->data = buf->data;
	item->len = hdr->item_len;
}

/*
 * Iteration walks the presence bitmap from one set bit to the next (the
 * cursor is the last slot returned) instead of a select per position, and
 * copies the prefix once.
 */
static void
dense_iter_start(PbtIter *it)
{
	it->cursor = dense_slot_of(it->page, it->pos + it->step) - it->step;
}

static void
dense_iter_next(PbtIter *it, PbtItem *item)
{
	Page		page = it->page;
	DenseHeader *hdr = dense_header(page);
	int			slot;

	slot = window_iter_step(it, dense_present_map(page), hdr->capacity,
							(char *) page + hdr->prefix_off, hdr->prefix_len);
	dense_assemble(page, slot, it->buf.data);
	it->dead = (hdr->flags & DENSE_HAS_DEAD) && bit_is_set(dead_map(page), slot);
	item->data = it->buf.data;
	item->len = hdr->item_len;
}

/* an entry's value is its heap TID: no key assembled */
static void
dense_iter_tids(PbtIter *it, int n, ItemPointerData *tids, bool *dead)
{
	Page		page = it->page;
	DenseHeader *hdr = dense_header(page);
	bool		has_dead = (hdr->flags & DENSE_HAS_DEAD) != 0;

	for (int i = 0; i < n; i++)
	{
		int			slot = window_iter_step(it, dense_present_map(page),
											hdr->capacity,
											(char *) page + hdr->prefix_off,
											hdr->prefix_len);

		pbt_tid_from_bytes(slot_value(page, slot), &tids[i]);
		dead[i] = has_dead && bit_is_set(dead_map(page), slot);
	}
}

/* item bytes the page holds: header, bitmaps, values, prefix, high key */
static int
dense_live_bytes(Page page)
{
	DenseHeader *hdr = dense_header(page);

	return sizeof(DenseHeader) + 2 * map_bytes(hdr->capacity) +
		hdr->count * DENSE_VALUE_BYTES + hdr->prefix_len +
		pbt_page_hikey_bytes(page);
}

/*
 * Free space is what the page does not hold: the hole, garbage (old high
 * keys) and the empty slots of the window.  See dense_item_cost.
 */
static int
dense_free_space(Page page)
{
	PageHeader	phdr = (PageHeader) page;

	return phdr->pd_special - SizeOfPageHeaderData - dense_live_bytes(page);
}

static int
dense_garbage(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	int			used = dense_header(page)->prefix_len;

	if (!PbtIsRightmost(opaque))
		used += opaque->hikey_len;
	return phdr->pd_special - phdr->pd_upper - used;
}

/* The slot an item would take, if it fits the window; present or not. */
static inline bool
dense_slot(Page page, const char *data, int len, int *slot)
{
	DenseHeader *hdr = dense_header(page);

	if (hdr->capacity == 0 || len != hdr->item_len ||
		memcmp(data, (char *) page + hdr->prefix_off, hdr->prefix_len) != 0)
		return false;
	return window_tail_slot(data, hdr->prefix_len, hdr->tail_len, hdr->base,
							hdr->capacity, slot);
}

/*
 * Bytes the page would take as a heads page holding its items and the new
 * one (see window_converted_bytes): its items all have one length.
 */
static int
dense_converted_bytes(Page page, const char *data, int len)
{
	DenseHeader *hdr = dense_header(page);
	const PbtLayout *to = window_target(DENSE_CONVERT_TO);
	int			n = hdr->count;
	int			q;
	int			bytes;

	window_check_count(dense_present_map(page), hdr->capacity, n);
	bytes = window_converted_bytes(page, to, n, data, len, dense_get, &q);
	if (n > 0)
		bytes += n * to->suffix_bytes(hdr->item_len - q);
	return bytes;
}

/*
 * What an insert costs, consistent with dense_free_space and dense_insert
 * (the engine inserts only when cost <= free space, and insert must then
 * succeed):
 *
 * - an item that sets a bit in the window costs its value bytes; there is
 *   an empty slot, so free space is at least that;
 * - an item of the page itself (present, same TID: split_page asks for the
 *   cost of every item) likewise costs its value bytes;
 * - any other item converts the page to heads, which fits iff the heads
 *   bytes H are at most the usable space U.  Free space is U - live, so the
 *   cost is H - live: cost <= free space exactly when the conversion fits.
 *   (page_fits's shortcut, hole >= cost, implies it too: the hole is part
 *   of the free space.)
 */
static int
dense_item_cost(Page page, const char *data, int len)
{
	DenseHeader *hdr = dense_header(page);
	int			slot;

	if (dense_slot(page, data, len, &slot) &&
		(!bit_is_set(dense_present_map(page), slot) ||
		 memcmp(slot_value(page, slot), data + hdr->prefix_len + hdr->tail_len,
				DENSE_VALUE_BYTES) == 0))
		return DENSE_VALUE_BYTES;
	return Max(0, dense_converted_bytes(page, data, len) -
			   dense_live_bytes(page));
}

static int
dense_space_needed(const PbtItem *items, int n, int downlink)
{
	return window_space_needed(items, n, downlink, dense_fits,
							   window_target(DENSE_CONVERT_TO));
}

static void
dense_set_slot(Page page, int slot, const char *value)
{
	PageHeader	phdr = (PageHeader) page;
	DenseHeader *hdr = dense_header(page);

	bit_set(dense_present_map(page), slot);
	bit_clear(dead_map(page), slot);
	memcpy(slot_value(page, slot), value, DENSE_VALUE_BYTES);
	hdr->count++;
	if (slot_value(page, slot + 1) - (char *) page > phdr->pd_lower)
	{
		int			upto = Min(hdr->capacity,
							   (int) TYPEALIGN(DENSE_LOWER_STEP, slot + 1));

		phdr->pd_lower = slot_value(page, upto) - (char *) page;
	}
}

/* empty slots keep no stale TIDs, so the bytes depend only on the items */
static void
dense_clear_slot(Page page, int slot)
{
	bit_clear(dense_present_map(page), slot);
	bit_clear(dead_map(page), slot);
	memset(slot_value(page, slot), 0, DENSE_VALUE_BYTES);
	dense_header(page)->count--;
}

static bool
dense_insert(Page page, int pos, const char *data, int len)
{
	DenseHeader *hdr = dense_header(page);
	int			slot;

	Assert(pos >= 0 && pos <= hdr->count);
	if (dense_slot(page, data, len, &slot) &&
		!bit_is_set(dense_present_map(page), slot))
	{
		Assert(map_rank(dense_present_map(page), slot) == pos);
		dense_set_slot(page, slot, data + hdr->prefix_len + hdr->tail_len);
		return true;
	}
	return window_convert_insert(page, pos, data, len,
								 dense_converted_bytes(page, data, len));
}

/*
 * The bytes dense_insert changes when it sets a slot: the header's count,
 * the slot's bytes of the two bitmaps and its value (pd_lower, in the page
 * header, may step over empty slots, zeros in the hole).
 */
static int
dense_insert_ranges(Page page, int pos, const char *data, int len,
					PbtByteRange *ranges)
{
	int			slot;

	if (!dense_slot(page, data, len, &slot) ||
		bit_is_set(dense_present_map(page), slot))
		return -1;				/* converts */
	ranges[0].off = SizeOfPageHeaderData;
	ranges[0].len = sizeof(DenseHeader);
	ranges[1].off = (char *) dense_present_map(page) + slot / 8 - (char *) page;
	ranges[1].len = 1;
	ranges[2].off = (char *) dead_map(page) + slot / 8 - (char *) page;
	ranges[2].len = 1;
	ranges[3].off = slot_value(page, slot) - (char *) page;
	ranges[3].len = DENSE_VALUE_BYTES;
	return 4;
}

/* Fill the empty page (its high key, if any, already set); see dense_plan. */
static void
dense_load(Page page, PbtItem *items, int n)
{
	PageHeader	phdr = (PageHeader) page;
	DenseHeader *hdr = dense_header(page);
	PbtItem		hikey;
	DensePlan	plan;
	int			lower;

	if (hdr->capacity != 0)
		elog(ERROR, "pagebtree dense layout: load into a page that is not empty");
	if (!dense_plan(items, n, pbt_page_get_hikey(page, &hikey) ? &hikey : NULL,
					&plan))
		elog(ERROR, "pagebtree dense layout: %d items do not make a dense page", n);
	lower = DENSE_MAPS_START + 2 * map_bytes(plan.capacity) +
		plan.capacity * DENSE_VALUE_BYTES;
	if (lower > phdr->pd_upper - plan.plen)
		elog(ERROR, "pagebtree dense layout: %d items do not fit", n);

	phdr->pd_upper -= plan.plen;
	memcpy((char *) page + phdr->pd_upper, items[0].data, plan.plen);
	hdr->item_len = plan.len;
	hdr->prefix_off = phdr->pd_upper;
	hdr->prefix_len = plan.plen;
	hdr->tail_len = plan.tlen;
	hdr->capacity = plan.capacity;
	hdr->base = plan.base;
	hdr->count = 0;
	hdr->flags = 0;
	memset(dense_present_map(page), 0, lower - DENSE_MAPS_START);
	phdr->pd_lower = slot_value(page, 0) - (char *) page;
	for (int i = 0; i < n; i++)
	{
		uint64		tail = read_tail(items[i].data + plan.plen, plan.tlen);

		dense_set_slot(page, (int) (tail - plan.base),
				 items[i].data + plan.plen + plan.tlen);
	}
}

static void
dense_delete(Page page, const int *positions, int n)
{
	/* from the last: clearing a slot does not move the ones before it */
	for (int k = n - 1; k >= 0; k--)
		dense_clear_slot(page, dense_slot_of(page, positions[k]));
}

static void
dense_truncate(Page page, int n)
{
	DenseHeader *hdr = dense_header(page);

	Assert(n <= hdr->count);
	if (n >= hdr->count)
		return;
	for (int slot = dense_slot_of(page, n); slot < hdr->capacity; slot++)
	{
		if (bit_is_set(dense_present_map(page), slot))
			dense_clear_slot(page, slot);
	}
}

static void
dense_window(Page page, DenseWindow *w)
{
	DenseHeader *hdr = dense_header(page);

	w->prefix = (char *) page + hdr->prefix_off;
	w->plen = hdr->prefix_len;
	w->tlen = hdr->tail_len;
	w->base = hdr->base;
	w->capacity = hdr->capacity;
	w->count = hdr->count;
	w->present = dense_present_map(page);
}

/*
 * First position whose item is >= key (see window_search): the prefix is
 * compared once, the key's tail bytes locate a slot directly, and only the
 * item with exactly that tail (there is at most one) needs its value
 * compared.
 */
static int
dense_search(PbtState *st, Page page, PbtSearchKey *key)
{
	DenseWindow w;
	int			slot;
	const char *rest;
	int			rlen;
	int			r;
	int			c;

	Assert(st->normalized);
	dense_window(page, &w);
	r = window_search(&w, key, &slot, &rest, &rlen);
	if (slot < 0)
		return r;
	c = memcmp(rest, slot_value(page, slot), Min(rlen, DENSE_VALUE_BYTES));
	if (c > 0 || (c == 0 && (key->nextkey || rlen > DENSE_VALUE_BYTES)))
		r++;
	return r;
}

static void
dense_set_dead(Page page, int pos)
{
	int			slot = dense_slot_of(page, pos);

	bit_set(dead_map(page), slot);
	dense_header(page)->flags |= DENSE_HAS_DEAD;
}

static bool
dense_is_dead(Page page, int pos)
{
	if (!(dense_header(page)->flags & DENSE_HAS_DEAD))
		return false;
	return bit_is_set(dead_map(page), dense_slot_of(page, pos));
}

static void
dense_mask(Page page)
{
	DenseHeader *hdr = dense_header(page);

	memset(dead_map(page), 0, map_bytes(hdr->capacity));
	hdr->flags &= ~DENSE_HAS_DEAD;
}

static const char *
dense_check_header(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	DenseHeader *hdr = dense_header(page);
	int			cap = hdr->capacity;

	if (hdr->flags & ~DENSE_HAS_DEAD)
		return "unknown dense header flags";
	if (cap == 0)
	{
		if (hdr->count != 0 || phdr->pd_lower != DENSE_MAPS_START)
			return "dense page without capacity holds items";
		return NULL;
	}
	if (hdr->item_len <= DENSE_VALUE_BYTES ||
		hdr->item_len > PBT_MAX_ITEM_SIZE ||
		hdr->tail_len != dense_tail_len_for(hdr->item_len) ||
		hdr->prefix_len != hdr->item_len - DENSE_VALUE_BYTES - hdr->tail_len)
		return "dense item, prefix and tail lengths disagree";
	if (cap > (int) PBT_MAX_ITEMS_PER_PAGE ||
		(uint64) hdr->base + cap > (UINT64CONST(1) << (8 * hdr->tail_len)))
		return "dense capacity out of range";
	if (phdr->pd_lower < slot_value(page, 0) - (char *) page ||
		phdr->pd_lower > dense_low_end(page) ||
		(phdr->pd_lower - (slot_value(page, 0) - (char *) page)) % DENSE_VALUE_BYTES != 0)
		return "dense pd_lower is not at a slot boundary of the value array";
	if (dense_low_end(page) > phdr->pd_upper)
		return "dense value array overlaps the item space";
	if (hdr->prefix_len > 0 &&
		!pbt_in_item_space(page, hdr->prefix_off, hdr->prefix_len))
		return "prefix bytes out of bounds";
	if (hdr->count > cap)
		return "dense item count exceeds the capacity";
	return NULL;
}

static const char *
dense_check(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	DenseHeader *hdr = dense_header(page);
	int			cap = hdr->capacity;
	int			nbytes = map_bytes(cap);
	uint8	   *present = dense_present_map(page);
	uint8	   *dead;
	int			count = 0;
	const char *problem = dense_check_header(page);

	if (problem || cap == 0)
		return problem;
	dead = dead_map(page);
	for (int slot = cap; slot < nbytes * 8; slot++)
	{
		if (bit_is_set(present, slot) || bit_is_set(dead, slot))
			return "bitmap bits set beyond the capacity";
	}
	for (int slot = 0; slot < cap; slot++)
	{
		if (!bit_is_set(present, slot))
		{
			static const char zeros[DENSE_VALUE_BYTES];

			if (bit_is_set(dead, slot))
				return "dead hint on an empty slot";
			if (memcmp(slot_value(page, slot), zeros, DENSE_VALUE_BYTES) != 0)
				return "empty dense slot holds a value";
			continue;
		}
		if (slot_value(page, slot) + DENSE_VALUE_BYTES - (char *) page > phdr->pd_lower)
			return "dense item lies beyond pd_lower";
		count++;
		/* the TID's offset number: last two bytes, big-endian */
		if (slot_value(page, slot)[4] == 0 && slot_value(page, slot)[5] == 0)
			return "item with an invalid heap TID";
	}
	if (count != hdr->count)
		return "dense item count disagrees with the presence bitmap";
	return NULL;
}

const PbtLayout pbt_layout_dense = {
	.name = "dense",
	.tag = PBT_LAYOUT_DENSE,
	.flags = PBT_LF_LEAF | PBT_LF_NORMALIZED | PBT_LF_NO_INCLUDE |
	PBT_LF_REBUILT | PBT_LF_APPEND_SPLIT | PBT_LF_APPEND_KEEPS_ALL |
	PBT_LF_WHOLE_WINDOW,
	.init = dense_init,
	.count = dense_count,
	.get = dense_get,
	.search = dense_search,
	.insert = dense_insert,
	.insert_ranges = dense_insert_ranges,
	.load = dense_load,
	.delete = dense_delete,
	.truncate = dense_truncate,
	.item_cost = dense_item_cost,
	.space_needed = dense_space_needed,
	.fits = dense_fits,
	.free_space = dense_free_space,
	.low_end = dense_low_end,
	.garbage = dense_garbage,
	.set_dead = dense_set_dead,
	.is_dead = dense_is_dead,
	.mask = dense_mask,
	.check = dense_check,
	.check_header = dense_check_header,
	.iter_start = dense_iter_start,
	.iter_next = dense_iter_next,
	.iter_tids = dense_iter_tids,
	.convert_to = DENSE_CONVERT_TO,
	.run_span = dense_run_span,
	.run_capacity = dense_run_capacity,
};
