/*-------------------------------------------------------------------------
 *
 * pbt_layout_semidense.c
 *	  Semi-dense leaf layout (SDL), after "B-Trees Are Back": one 16-bit
 *	  slot per key value of a window, pointing to the rest of the entry
 *	  (leaves of normalized-key indexes with INCLUDE columns only).
 *
 * A leaf item of an index with INCLUDE columns is
 *
 *   key (K bytes) | heap TID (6) | payload (v bytes) | v (uint16)
 *
 * so items differ in length with their payload, and the dense layout, whose
 * values are all TID-sized, does not apply.  All items on an SDL page have
 * one key length K and share the key's first p = K - t bytes (the prefix,
 * stored once), t = min(4, K).  The key's last t bytes (the tail), read as
 * a big-endian unsigned integer, index an array of uint16 slots covering
 * tails [base, base + capacity).  A slot holds the page offset of its
 * entry, which is the item without prefix and tail, or 0 if no item has
 * that tail.  Entries are stored length first, as in the paper:
 *
 *   length word (uint16: v, top bit the dead-entry hint) | TID | payload
 *
 *   PageHeader | SdlHeader | present bitmap | slots[capacity]
 *   -> pd_lower ... free ... pd_upper <- entries, prefix, high key | special
 *
 * Tails are distinct (one entry per key value), so an item's ordered
 * position is the rank of its tail among the present slots.  The presence
 * bitmap repeats "slot != 0" at a sixteenth of the slots' size; with it,
 * rank (search), select (get) and stepping to the next item (iteration)
 * are popcounts and bit scans over 64 slots a word instead of walks over up
 * to a few thousand slots.  An int8 key with a short INCLUDE payload then
 * costs its entry (8 bytes plus the payload) and about 2 bytes per slot of
 * the window, against a heads slot (8 bytes) and the item's remainder.
 *
 * The dead-entry hint is the top bit of the entry's length word (lengths
 * stay below PBT_MAX_ITEM_SIZE); it is not WAL-logged, mask clears it in
 * the present entries, and deleting an entry clears it first, so the
 * garbage it leaves is the same on primary and standby.
 *
 * The window is fixed when the page is loaded (split, rebuild, bulk build):
 * as many slots as the page could fill with entries if keys kept arriving
 * at the density of the loaded items (tails per slot), at least the items'
 * span and at most what the space left allows, keeping room for a high key
 * as long as a key and TID while the page has none.  Like the dense
 * layout's, it ends at the high key where there is one (covering keys that
 * can still arrive below the first item) and starts at the first item on
 * the rightmost page (ascending keys).  The paper builds an SDL only when
 * the fence range is small; here the engine takes one only where it is
 * smaller than heads (layout = auto), which a sparse window is not.
 *
 * An insert into an empty slot of the window writes its entry (compacting
 * the item area first if garbage is in the way).  Any other insert (another
 * key length or prefix, a tail outside the window, or a tail already
 * present: the same key with another heap TID) converts the page in place
 * to heads holding all items plus the new one, or fails, leaving the page
 * unchanged, if they do not fit there either; the engine then splits.  All
 * of it is deterministic, for WAL redo, and allocates nothing: inserts run
 * inside critical sections.
 *
 * The layout cannot tell an item with an INCLUDE payload from one without
 * (that is index state, not page state), so the engine makes SDL pages
 * only for indexes with INCLUDE columns, where every leaf item ends with
 * its payload length.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "pbt_dense_util.h"

/* what a page converts to when an insert breaks its pattern (on disk) */
#define SDL_CONVERT_TO		PBT_LAYOUT_HEADS

typedef struct SdlHeader
{
	uint32		base;			/* tail of slot 0 */
	uint16		key_len;		/* K; 0 while capacity is 0 */
	uint16		prefix_off;		/* the prefix bytes, in the item area */
	uint16		prefix_len;		/* p = K - t */
	uint16		capacity;		/* slots: tails [base, base + capacity) */
	uint16		count;			/* present slots */
	uint16		entry_bytes;	/* bytes of the present entries */
	uint8		tail_len;		/* t, 1 to 4 */
	uint8		reserved;		/* 0 */
} SdlHeader;

#define SDL_MAX_TAIL		4
#define SDL_LEN_BYTES		((int) sizeof(uint16))
#define SDL_DEAD			0x8000
#define SDL_LEN_MASK		0x7FFF
#define SDL_MAP_START		(SizeOfPageHeaderData + sizeof(SdlHeader))
/* an entry: length word, TID, payload; also an item's length minus K */
#define SDL_ENTRY_BYTES(v)	(SDL_LEN_BYTES + PBT_TID_BYTES + (v))

/* what an SDL page for some items would look like (see sdl_plan) */
typedef struct SdlPlan
{
	int			key_len;		/* K */
	int			plen;			/* p */
	int			tlen;			/* t */
	uint32		base;
	int			capacity;
	int			bytes;			/* header, prefix, entries and a window
								 * just covering the items */
} SdlPlan;

static inline SdlHeader *
sdl_header(Page page)
{
	return (SdlHeader *) ((char *) page + SizeOfPageHeaderData);
}

static inline uint8 *
sdl_present_map(Page page)
{
	return (uint8 *) page + SDL_MAP_START;
}

static inline uint16 *
slot_array(Page page)
{
	return (uint16 *) (sdl_present_map(page) +
					   map_bytes(sdl_header(page)->capacity));
}

static inline uint16
entry_word(const char *e)
{
	uint16		w;

	memcpy(&w, e, sizeof(w));
	return w;
}

/* payload length v of an entry */
static inline int
entry_vlen(const char *e)
{
	return entry_word(e) & SDL_LEN_MASK;
}

/*
 * Slot's entry, checked to lie in the item space with its payload: the
 * header's check does not cover the slots, and a damaged offset must cost
 * an error, not a read or a write past the page.
 */
static inline char *
entry_at(Page page, int slot)
{
	int			off = slot_array(page)[slot];

	if (unlikely(!pbt_in_item_space(page, off, SDL_ENTRY_BYTES(0)) ||
				 !pbt_in_item_space(page, off,
									SDL_ENTRY_BYTES(entry_vlen(page + off)))))
		pbt_page_damaged("has a semidense entry out of bounds");
	return (char *) page + off;
}

/*
 * Key length of a leaf item of an index with INCLUDE columns (the rule of
 * normalized_keytid_len in pbt_keys.c), or -1 if the item cannot be one
 * with a key of at least one byte.  *vlen gets the payload length.
 */
static inline int
item_key_len(const char *data, int len, int *vlen)
{
	uint16		v;

	if (len < PBT_TID_BYTES + SDL_LEN_BYTES + 1)
		return -1;
	memcpy(&v, data + len - SDL_LEN_BYTES, sizeof(v));
	if ((int) v > len - (PBT_TID_BYTES + SDL_LEN_BYTES + 1))
		return -1;
	*vlen = v;
	return len - PBT_TID_BYTES - SDL_LEN_BYTES - v;
}

static inline int
sdl_tail_len_for(int key_len)
{
	return Min(SDL_MAX_TAIL, key_len);
}

/* the slot holding the item at ordered position pos */
static inline int
sdl_slot_of(Page page, int pos)
{
	SdlHeader  *hdr = sdl_header(page);

	return window_select(sdl_present_map(page), hdr->capacity, hdr->count,
						 pos);
}

static inline int
sdl_bytes(int plen, int span, int entry_bytes)
{
	return (int) sizeof(SdlHeader) + plen + map_bytes(span) +
		span * (int) sizeof(uint16) + entry_bytes;
}

/*
 * Can sorted items make an SDL page with this high key (NULL: none)?  If
 * so, fill in the plan: lengths, capacity and window.  Loading and the
 * engine's choice both use this, so they agree; a plan always fits the
 * page.
 */
static bool
sdl_plan(PbtItem *items, int n, PbtItem *hikey, SdlPlan *plan)
{
	int			klen;
	int			plen;
	int			tlen;
	int			vlen;
	int			entry_bytes = 0;
	int			avail;
	int			maxcap;
	int64		target;
	uint64		first = 0;
	uint64		prev = 0;
	uint64		span;
	uint64		domain;
	uint64		base;
	uint64		cap;

	if (n < 1)
		return false;
	klen = item_key_len(items[0].data, items[0].len, &vlen);
	if (klen < 1)
		return false;
	tlen = sdl_tail_len_for(klen);
	plen = klen - tlen;
	/* sorted: if the first and last share the prefix, all do */
	if (item_key_len(items[n - 1].data, items[n - 1].len, &vlen) != klen ||
		memcmp(items[0].data, items[n - 1].data, plen) != 0)
		return false;

	/* one entry per tail: an equal tail is the same key with another TID */
	for (int i = 0; i < n; i++)
	{
		uint64		t;

		if (item_key_len(items[i].data, items[i].len, &vlen) != klen)
			return false;
		t = read_tail(items[i].data + plen, tlen);
		if (i == 0)
			first = t;
		else if (t <= prev)
			return false;
		prev = t;
		entry_bytes += items[i].len - klen;
	}
	span = prev - first + 1;

	/* bytes for bitmap and slots, keeping room for a high key if none yet */
	avail = (int) PBT_USABLE_SPACE - (int) sizeof(SdlHeader) - plen -
		entry_bytes -
		(hikey ? hikey->len : klen + PBT_TID_BYTES + (int) sizeof(PbtSlot));
	/* the presence bitmap and a 16-bit slot per tail */
	maxcap = window_capacity(avail, 1, (int) sizeof(uint16), PG_UINT16_MAX);
	if (span > (uint64) maxcap)
		return false;

	/*
	 * Slots at 17/8 bytes each (slot and bit) plus, per slot, the entry
	 * bytes the items have per tail of their span: the window that fills
	 * the page when keys keep arriving at the items' density.
	 */
	target = ((int64) (avail + entry_bytes) * 8 * (int64) span) /
		(17 * (int64) span + 8 * (int64) entry_bytes);
	cap = Max(span, (uint64) Min(target, (int64) maxcap));
	domain = UINT64CONST(1) << (8 * tlen);
	cap = Min(cap, domain);

	/* end the window at the high key, if that does not cut off an item */
	base = first;
	if (hikey)
	{
		uint64		top = tail_limit(hikey, items[0].data, plen, tlen) + 1;

		if (top > prev)
			base = Min(first, top > cap ? top - cap : 0);
	}
	if (base + cap > domain)
		cap = domain - base;

	plan->key_len = klen;
	plan->plen = plen;
	plan->tlen = tlen;
	plan->base = (uint32) base;
	plan->capacity = (int) cap;
	plan->bytes = sdl_bytes(plen, (int) span, entry_bytes);
	return true;
}

/*
 * Do sorted items fit an SDL page with this high key (NULL: none yet)?
 * *bytes: what they take there with a window just covering them (the high
 * key is not counted), to compare with other layouts.
 */
static bool
sdl_fits(PbtItem *items, int n, PbtItem *hikey, int *bytes)
{
	SdlPlan		plan;

	if (!sdl_plan(items, n, hikey, &plan))
		return false;
	if (bytes)
		*bytes = plan.bytes;
	return true;
}

static void
sdl_init(Page page)
{
	SdlHeader  *hdr = sdl_header(page);

	memset(hdr, 0, sizeof(SdlHeader));
	hdr->prefix_off = ((PageHeader) page)->pd_upper;
	((PageHeader) page)->pd_lower = SDL_MAP_START;
}

static int
sdl_count(Page page)
{
	return pbt_checked_count(sdl_header(page)->count);
}

/*
 * Write the tail and the rest of slot's item after the prefix at out;
 * returns the item's length.
 */
static inline int
sdl_assemble(Page page, int slot, char *out)
{
	SdlHeader  *hdr = sdl_header(page);
	const char *e = entry_at(page, slot);
	uint16		v = entry_vlen(e);
	char	   *tail = out + hdr->prefix_len;
	char	   *rest = tail + hdr->tail_len;

	pbt_check_copy(e + SDL_LEN_BYTES - (const char *) page, PBT_TID_BYTES + v,
				   hdr->prefix_len + hdr->tail_len + PBT_TID_BYTES + v +
				   SDL_LEN_BYTES);
	write_tail(tail, hdr->tail_len, (uint64) hdr->base + slot);
	memcpy(rest, e + SDL_LEN_BYTES, PBT_TID_BYTES + v);
	memcpy(rest + PBT_TID_BYTES + v, &v, sizeof(v));
	return hdr->key_len + PBT_TID_BYTES + v + SDL_LEN_BYTES;
}

static void
sdl_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	SdlHeader  *hdr = sdl_header(page);

	pbt_check_copy(hdr->prefix_off, hdr->prefix_len, hdr->prefix_len);
	memcpy(buf->data, (char *) page + hdr->prefix_off, hdr->prefix_len);
	item->len = sdl_assemble(page, sdl_slot_of(page, pos), buf->data);
	item->data = buf->data;
}

/*
 * Iteration walks the presence bitmap from one set bit to the next (the
 * cursor is the last slot returned) instead of a select per position, and
 * copies the prefix once.
 */
static void
sdl_iter_start(PbtIter *it)
{
	it->cursor = sdl_slot_of(it->page, it->pos + it->step) - it->step;
}

static void
sdl_iter_next(PbtIter *it, PbtItem *item)
{
	Page		page = it->page;
	SdlHeader  *hdr = sdl_header(page);
	int			slot;

	slot = window_iter_step(it, sdl_present_map(page), hdr->capacity,
							(char *) page + hdr->prefix_off, hdr->prefix_len);
	item->len = sdl_assemble(page, slot, it->buf.data);
	item->data = it->buf.data;
	/* (sdl_assemble checked the entry: no second entry_at per item) */
	it->dead = (entry_word((char *) page + slot_array(page)[slot]) &
				SDL_DEAD) != 0;
}

/* bytes the page holds: header, bitmap, slots, entries, prefix, high key */
static int
sdl_live_bytes(Page page)
{
	SdlHeader  *hdr = sdl_header(page);

	return (int) sizeof(SdlHeader) + map_bytes(hdr->capacity) +
		hdr->capacity * (int) sizeof(uint16) + hdr->entry_bytes +
		hdr->prefix_len + pbt_page_hikey_bytes(page);
}

/* the hole, garbage (deleted entries, old high keys) */
static int
sdl_free_space(Page page)
{
	return ((PageHeader) page)->pd_special - (int) SizeOfPageHeaderData -
		sdl_live_bytes(page);
}

static int
sdl_garbage(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	SdlHeader  *hdr = sdl_header(page);

	return phdr->pd_special - phdr->pd_upper - hdr->prefix_len -
		hdr->entry_bytes - pbt_page_hikey_bytes(page);
}

/* The slot an item would take, if it fits the window; present or not. */
static bool
sdl_slot(Page page, const char *data, int len, int *slot)
{
	SdlHeader  *hdr = sdl_header(page);
	int			vlen;

	if (hdr->capacity == 0 ||
		item_key_len(data, len, &vlen) != hdr->key_len ||
		memcmp(data, (char *) page + hdr->prefix_off, hdr->prefix_len) != 0)
		return false;
	return window_tail_slot(data, hdr->prefix_len, hdr->tail_len, hdr->base,
							hdr->capacity, slot);
}

/*
 * Bulk build: would an insert of this item take an empty slot of the
 * window (rather than convert the page)?
 */
static bool
sdl_takes(Page page, const char *data, int len)
{
	int			slot;

	return sdl_slot(page, data, len, &slot) &&
		!bit_is_set(sdl_present_map(page), slot);
}

/*
 * Bytes the page would take as a heads page holding its items and the new
 * one (see window_converted_bytes): its items' lengths are their entries'.
 */
static int
sdl_converted_bytes(Page page, const char *data, int len)
{
	SdlHeader  *hdr = sdl_header(page);
	uint8	   *present = sdl_present_map(page);
	const PbtLayout *to = window_target(SDL_CONVERT_TO);
	int			q;
	int			bytes;

	/*
	 * The conversion reads every entry inside a critical section: the count
	 * and (entry_at) each entry are checked here, before it.
	 */
	window_check_count(present, hdr->capacity, hdr->count);
	bytes = window_converted_bytes(page, to, hdr->count, data, len, sdl_get,
								   &q);
	for (int slot = map_next(present, hdr->capacity, 0); slot >= 0;
		 slot = map_next(present, hdr->capacity, slot + 1))
	{
		int			ilen = hdr->key_len +
			SDL_ENTRY_BYTES(entry_vlen(entry_at(page, slot)));

		bytes += to->suffix_bytes(ilen - q);
	}
	return bytes;
}

/*
 * What an insert costs, consistent with sdl_free_space and sdl_insert (the
 * engine inserts only when cost <= free space, and insert must then
 * succeed):
 *
 * - an item that takes an empty slot of the window costs its entry, which
 *   free space (hole and garbage) covers after a compaction;
 * - an item of the page itself (present, same TID and payload: the engine
 *   asks for the cost of every item before deleting some) likewise costs
 *   its entry;
 * - any other item converts the page to heads, which fits iff the heads
 *   bytes H are at most the usable space U.  Free space is U - live, so the
 *   cost is H - live: cost <= free space exactly when the conversion fits.
 */
static int
sdl_item_cost(Page page, const char *data, int len)
{
	SdlHeader  *hdr = sdl_header(page);
	int			slot;

	if (sdl_slot(page, data, len, &slot))
	{
		int			esize = len - hdr->key_len;
		const char *e;

		if (!bit_is_set(sdl_present_map(page), slot))
			return esize;
		e = entry_at(page, slot);
		if (SDL_ENTRY_BYTES(entry_vlen(e)) == esize &&
			memcmp(e + SDL_LEN_BYTES, data + hdr->key_len,
				   esize - SDL_LEN_BYTES) == 0)
			return esize;
	}
	return Max(0, sdl_converted_bytes(page, data, len) -
			   sdl_live_bytes(page));
}

static int
sdl_space_needed(const PbtItem *items, int n, int downlink)
{
	return window_space_needed(items, n, downlink, sdl_fits,
							   window_target(SDL_CONVERT_TO));
}

/*
 * Write the entry for rest (TID, payload and payload length of an item,
 * esize bytes) into slot, below pd_upper; the caller made room.
 */
static void
put_entry(Page page, int slot, const char *rest, int esize)
{
	PageHeader	phdr = (PageHeader) page;
	SdlHeader  *hdr = sdl_header(page);
	uint8	   *present = sdl_present_map(page);
	uint16		v = esize - SDL_ENTRY_BYTES(0);
	char	   *e;

	Assert(phdr->pd_upper - phdr->pd_lower >= esize);
	phdr->pd_upper -= esize;
	e = (char *) page + phdr->pd_upper;
	memcpy(e, &v, sizeof(v));
	memcpy(e + SDL_LEN_BYTES, rest, esize - SDL_LEN_BYTES);
	slot_array(page)[slot] = phdr->pd_upper;
	bit_set(present, slot);
	hdr->count++;
	hdr->entry_bytes += esize;
}

/*
 * The entry's bytes become garbage.  Its hint is cleared first, so that
 * garbage never differs between primary and standby.
 */
static void
sdl_clear_slot(Page page, int slot)
{
	SdlHeader  *hdr = sdl_header(page);
	uint8	   *present = sdl_present_map(page);
	char	   *e = entry_at(page, slot);
	uint16		w = entry_word(e) & SDL_LEN_MASK;

	memcpy(e, &w, sizeof(w));
	hdr->entry_bytes -= SDL_ENTRY_BYTES(w);
	hdr->count--;
	slot_array(page)[slot] = 0;
	bit_clear(present, slot);
}

/*
 * Rewrite the item area without garbage: the high key, the prefix, then
 * the entries in slot order, as a load lays them out.  Deterministic.
 */
static void
sdl_compact(Page page)
{
	PGAlignedBlock copy;
	PageHeader	phdr = (PageHeader) page;
	SdlHeader  *hdr = sdl_header(page);
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	uint8	   *present = sdl_present_map(page);
	uint16	   *slots = slot_array(page);
	int			upper = phdr->pd_special;

	memcpy(copy.data, page, BLCKSZ);
	if (!PbtIsRightmost(opaque))
	{
		upper -= opaque->hikey_len;
		memcpy((char *) page + upper, copy.data + opaque->hikey_off,
			   opaque->hikey_len);
		opaque->hikey_off = upper;
	}
	upper -= hdr->prefix_len;
	memcpy((char *) page + upper, copy.data + hdr->prefix_off, hdr->prefix_len);
	hdr->prefix_off = upper;
	for (int slot = map_next(present, hdr->capacity, 0); slot >= 0;
		 slot = map_next(present, hdr->capacity, slot + 1))
	{
		const char *e = entry_at(copy.data, slot);
		int			esize = SDL_ENTRY_BYTES(entry_vlen(e));

		if (upper - esize < phdr->pd_lower)
			pbt_page_damaged("has more entry bytes than a page holds");
		upper -= esize;
		memcpy((char *) page + upper, e, esize);
		slots[slot] = upper;
	}
	/* no stale bytes in the hole */
	memset((char *) page + phdr->pd_lower, 0, upper - phdr->pd_lower);
	phdr->pd_upper = upper;
}

static bool
sdl_insert(Page page, int pos, const char *data, int len)
{
	PageHeader	phdr = (PageHeader) page;
	SdlHeader  *hdr = sdl_header(page);
	int			slot;

	Assert(pos >= 0 && pos <= hdr->count);
	if (sdl_slot(page, data, len, &slot) &&
		!bit_is_set(sdl_present_map(page), slot))
	{
		int			esize = len - hdr->key_len;

		Assert(map_rank(sdl_present_map(page), slot) == pos);
		if (phdr->pd_upper - phdr->pd_lower < esize)
		{
			if (sdl_free_space(page) < esize)
				return false;
			sdl_compact(page);
		}
		put_entry(page, slot, data + hdr->key_len, esize);
		return true;
	}
	return window_convert_insert(page, pos, data, len,
								 sdl_converted_bytes(page, data, len));
}

/*
 * The bytes sdl_insert changes when it puts an entry into an empty slot of
 * the window without compacting: the header, the slot's bit and the slot
 * (the entry lands in the hole).
 */
static int
sdl_insert_ranges(Page page, int pos, const char *data, int len,
				  PbtByteRange *ranges)
{
	PageHeader	phdr = (PageHeader) page;
	SdlHeader  *hdr = sdl_header(page);
	int			slot;

	if (!sdl_slot(page, data, len, &slot) ||
		bit_is_set(sdl_present_map(page), slot) ||
		phdr->pd_upper - phdr->pd_lower < len - hdr->key_len)
		return -1;				/* converts or compacts */
	ranges[0].off = SizeOfPageHeaderData;
	ranges[0].len = sizeof(SdlHeader);
	ranges[1].off = (char *) sdl_present_map(page) + slot / 8 - (char *) page;
	ranges[1].len = 1;
	ranges[2].off = (char *) &slot_array(page)[slot] - (char *) page;
	ranges[2].len = sizeof(uint16);
	return 3;
}

/* Fill the empty page (its high key, if any, already set); see sdl_plan. */
static void
sdl_load(Page page, PbtItem *items, int n)
{
	PageHeader	phdr = (PageHeader) page;
	SdlHeader  *hdr = sdl_header(page);
	PbtItem		hikey;
	SdlPlan		plan;
	int			lower;
	int			entry_bytes = 0;

	if (hdr->capacity != 0)
		elog(ERROR, "pagebtree semidense layout: load into a page that is not empty");
	if (n == 0)
		return;
	if (!sdl_plan(items, n, pbt_page_get_hikey(page, &hikey) ? &hikey : NULL,
				  &plan))
		elog(ERROR, "pagebtree semidense layout: %d items do not make a semidense page", n);
	for (int i = 0; i < n; i++)
		entry_bytes += items[i].len - plan.key_len;
	lower = SDL_MAP_START + map_bytes(plan.capacity) +
		plan.capacity * (int) sizeof(uint16);
	if (lower > phdr->pd_upper - plan.plen - entry_bytes)
		elog(ERROR, "pagebtree semidense layout: %d items do not fit", n);

	phdr->pd_upper -= plan.plen;
	memcpy((char *) page + phdr->pd_upper, items[0].data, plan.plen);
	hdr->base = plan.base;
	hdr->key_len = plan.key_len;
	hdr->prefix_off = phdr->pd_upper;
	hdr->prefix_len = plan.plen;
	hdr->capacity = plan.capacity;
	hdr->count = 0;
	hdr->entry_bytes = 0;
	hdr->tail_len = plan.tlen;
	hdr->reserved = 0;
	phdr->pd_lower = lower;
	memset(sdl_present_map(page), 0, lower - SDL_MAP_START);
	for (int i = 0; i < n; i++)
	{
		uint64		tail = read_tail(items[i].data + plan.plen, plan.tlen);

		put_entry(page, (int) (tail - plan.base), items[i].data + plan.key_len,
				  items[i].len - plan.key_len);
	}
}

static void
sdl_delete(Page page, const int *positions, int n)
{
	/* from the last: clearing a slot does not move the ones before it */
	for (int k = n - 1; k >= 0; k--)
		sdl_clear_slot(page, sdl_slot_of(page, positions[k]));
}

static void
sdl_truncate(Page page, int n)
{
	SdlHeader  *hdr = sdl_header(page);
	uint8	   *present = sdl_present_map(page);

	Assert(n <= hdr->count);
	if (n >= hdr->count)
		return;
	for (int slot = sdl_slot_of(page, n); slot >= 0;
		 slot = map_next(present, hdr->capacity, slot + 1))
		sdl_clear_slot(page, slot);
}

/*
 * First position whose item is >= key (see window_search): the prefix is
 * compared once, the key's tail bytes locate a slot directly, and only the
 * item with exactly that tail (there is at most one) needs the rest of the
 * key compared with its TID, payload and payload length.
 */
static int
sdl_search(PbtState *st, Page page, PbtSearchKey *key)
{
	SdlHeader  *hdr = sdl_header(page);
	DenseWindow w;
	int			slot;
	const char *rk;
	int			rlen;
	int			r;
	const char *e;
	uint16		v;
	int			irest;
	int			m;
	int			c;

	Assert(st->normalized);
	w.prefix = (char *) page + hdr->prefix_off;
	w.plen = hdr->prefix_len;
	w.tlen = hdr->tail_len;
	w.base = hdr->base;
	w.capacity = hdr->capacity;
	w.count = hdr->count;
	w.present = sdl_present_map(page);
	r = window_search(&w, key, &slot, &rk, &rlen);
	if (slot < 0)
		return r;

	/* TID and payload are stored as in the item; the length is not */
	e = entry_at(page, slot);
	v = entry_vlen(e);
	irest = PBT_TID_BYTES + v + SDL_LEN_BYTES;
	m = Min(rlen, PBT_TID_BYTES + v);
	c = memcmp(rk, e + SDL_LEN_BYTES, m);
	if (c == 0 && rlen > m)
		c = memcmp(rk + m, &v, Min(rlen - m, SDL_LEN_BYTES));
	if (c > 0 || (c == 0 && (key->nextkey || rlen > irest)))
		r++;
	return r;
}

static void
sdl_set_dead(Page page, int pos)
{
	char	   *e = entry_at(page, sdl_slot_of(page, pos));
	uint16		w = entry_word(e) | SDL_DEAD;

	memcpy(e, &w, sizeof(w));
}

static bool
sdl_is_dead(Page page, int pos)
{
	return (entry_word(entry_at(page, sdl_slot_of(page, pos))) & SDL_DEAD) != 0;
}

/* the hints are the top bits of the present entries' length words */
static void
sdl_mask(Page page)
{
	SdlHeader  *hdr = sdl_header(page);
	uint8	   *present = sdl_present_map(page);

	for (int slot = map_next(present, hdr->capacity, 0); slot >= 0;
		 slot = map_next(present, hdr->capacity, slot + 1))
	{
		char	   *e = entry_at(page, slot);
		uint16		w = entry_word(e) & SDL_LEN_MASK;

		memcpy(e, &w, sizeof(w));
	}
}

/*
 * Header bounds, slots and bitmap in agreement, every entry inside the item
 * area with a plausible length, count and entry bytes as the header says,
 * and the largest key below the high key.  Hints live in the entries, so
 * there is no hint without an entry.
 */
static const char *
sdl_check_header(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	SdlHeader  *hdr = sdl_header(page);
	int			cap = hdr->capacity;
	int			nbytes = map_bytes(cap);

	if (hdr->reserved != 0)
		return "unknown semidense header bits";
	if (cap == 0)
	{
		if (hdr->count != 0 || hdr->entry_bytes != 0 ||
			phdr->pd_lower != SDL_MAP_START)
			return "semidense page without capacity holds items";
		return NULL;
	}
	if (hdr->key_len < 1 || hdr->key_len > PBT_MAX_ITEM_SIZE ||
		hdr->tail_len != sdl_tail_len_for(hdr->key_len) ||
		hdr->prefix_len != hdr->key_len - hdr->tail_len)
		return "semidense key, prefix and tail lengths disagree";
	if ((uint64) hdr->base + cap > (UINT64CONST(1) << (8 * hdr->tail_len)))
		return "semidense capacity out of range";
	if (phdr->pd_lower != SDL_MAP_START + nbytes + cap * (int) sizeof(uint16))
		return "semidense capacity disagrees with pd_lower";
	if (hdr->prefix_len > 0 &&
		!pbt_in_item_space(page, hdr->prefix_off, hdr->prefix_len))
		return "prefix bytes out of bounds";
	if (hdr->count > cap)
		return "semidense item count exceeds the capacity";
	return NULL;
}

static const char *
sdl_check(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	SdlHeader  *hdr = sdl_header(page);
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	int			cap = hdr->capacity;
	int			nbytes = map_bytes(cap);
	uint8	   *present = sdl_present_map(page);
	uint16	   *slots;
	int			count = 0;
	int			entry_bytes = 0;
	int			last = -1;
	const char *problem = sdl_check_header(page);

	if (problem || cap == 0)
		return problem;
	for (int slot = cap; slot < nbytes * 8; slot++)
	{
		if (bit_is_set(present, slot))
			return "bitmap bits set beyond the capacity";
	}
	slots = slot_array(page);
	for (int slot = 0; slot < cap; slot++)
	{
		int			off = slots[slot];
		const char *e;
		int			esize;

		if (!bit_is_set(present, slot))
		{
			if (off != 0)
				return "semidense slot points to an entry but its presence bit is clear";
			continue;
		}
		if (off == 0)
			return "semidense presence bit set on an empty slot";
		if (!pbt_in_item_space(page, off, SDL_ENTRY_BYTES(0)))
			return "semidense entry out of bounds";
		e = (char *) page + off;
		esize = SDL_ENTRY_BYTES(entry_vlen(e));
		if (off + esize > phdr->pd_special ||
			hdr->key_len + esize > PBT_MAX_ITEM_SIZE)
			return "semidense entry length out of bounds";
		/* the TID's offset number: its last two bytes, big-endian */
		if (e[SDL_LEN_BYTES + 4] == 0 && e[SDL_LEN_BYTES + 5] == 0)
			return "item with an invalid heap TID";
		count++;
		entry_bytes += esize;
		last = slot;
	}
	if (count != hdr->count)
		return "semidense item count disagrees with its slots";
	if (entry_bytes != hdr->entry_bytes)
		return "semidense entry bytes disagree with the header";
	if (entry_bytes + hdr->prefix_len + pbt_page_hikey_bytes(page) >
		phdr->pd_special - phdr->pd_upper)
		return "semidense entries overlap";

	/* the largest key is below the high key (the engine checks its bounds) */
	if (last >= 0 && !PbtIsRightmost(opaque) &&
		opaque->hikey_off >= phdr->pd_upper &&
		opaque->hikey_off + opaque->hikey_len <= phdr->pd_special)
	{
		PbtItemBuf	buf;
		const char *hk = (char *) page + opaque->hikey_off;
		int			c;

		memcpy(buf.data, (char *) page + hdr->prefix_off, hdr->prefix_len);
		write_tail(buf.data + hdr->prefix_len, hdr->tail_len,
				   (uint64) hdr->base + last);
		c = memcmp(buf.data, hk, Min(hdr->key_len, opaque->hikey_len));
		if (c > 0 || (c == 0 && opaque->hikey_len <= hdr->key_len))
			return "semidense key is not below the high key";
	}
	return NULL;
}

const PbtLayout pbt_layout_semidense = {
	.name = "semidense",
	.tag = PBT_LAYOUT_SEMIDENSE,
	.flags = PBT_LF_LEAF | PBT_LF_NORMALIZED | PBT_LF_INCLUDE |
	PBT_LF_REBUILT | PBT_LF_SPLIT_REBUILDS,
	.init = sdl_init,
	.count = sdl_count,
	.get = sdl_get,
	.search = sdl_search,
	.insert = sdl_insert,
	.insert_ranges = sdl_insert_ranges,
	.load = sdl_load,
	.delete = sdl_delete,
	.truncate = sdl_truncate,
	.item_cost = sdl_item_cost,
	.space_needed = sdl_space_needed,
	.fits = sdl_fits,
	.free_space = sdl_free_space,
	.garbage = sdl_garbage,
	.compact = sdl_compact,
	.set_dead = sdl_set_dead,
	.is_dead = sdl_is_dead,
	.mask = sdl_mask,
	.check = sdl_check,
	.check_header = sdl_check_header,
	.iter_start = sdl_iter_start,
	.iter_next = sdl_iter_next,
	.convert_to = SDL_CONVERT_TO,
	.takes = sdl_takes,
};
