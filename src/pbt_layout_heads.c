/*-------------------------------------------------------------------------
 *
 * pbt_layout_heads.c
 *	  Layout with prefix truncation and 4-byte key heads, after "B-Trees Are
 *	  Back" (normalized keys only; leaf and inner pages).
 *
 * The key bytes that all items of the page start with (the prefix) are
 * stored once.  Each slot keeps the next four key bytes as a big-endian
 * integer (the head) and the key's length after the prefix; the key bytes
 * after the head (the remainder) live in the item area, after the item's
 * downlink on inner pages:
 *
 *   PageHeader | HeadsHeader | HeadsSlot[] ->  free  <- [downlink]
 *   remainders, prefix, high key | special space
 *
 * On inner pages, slot 0 is the "minus infinity" downlink: no key, never
 * compared, and not counted when the prefix is chosen.
 *
 * A search compares the key with the prefix once, narrows the range with
 * the hint array in the header, then binary-searches comparing heads as
 * integers, reading remainder bytes only when heads are equal.  An int8
 * key plus heap TID (15 bytes) usually shrinks to a head and two remainder
 * bytes, and on a page of equal keys (a low-cardinality column) an entry
 * costs its slot and the TID's last bytes.
 *
 * The prefix is always a common prefix of the page's items.  Loading a page
 * (split, rebuild) takes the longest one; an insert that does not share it
 * rewrites the page with a shorter one.  Page rewrites are deterministic,
 * so WAL redo of an insert repeats them.  No palloc: inserts run inside
 * critical sections.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_parts.h"
#include "pbt_slots.h"

#include "port/pg_bswap.h"

/*
 * Hints: the heads of HEADS_HINTS slots spread evenly over the page, so a
 * search can narrow its binary search to one stretch of n / (HEADS_HINTS+1)
 * slots after one scan of a cache line.  16 hints fill one 64-byte cache
 * line; with 300-1000 entries on an 8 KB leaf, the remaining stretch of
 * 20-60 slots (160-480 bytes) takes 5-6 probes on a few adjacent lines
 * instead of 9-10 probes scattered over the whole slot array.
 *
 * Recomputing them reads 16 slots on as many cache lines, which took a
 * third of the time of a text insert.  So an insert leaves them as they are
 * until the page has grown by more than HINTS_SLACK items since: a hint
 * computed when the page had hint_count items sampled position p, and that
 * head is now at p + d, 0 <= d <= n - hint_count.  A search narrows with
 * that allowance.  Every other change (delete, truncate, load, rewrite)
 * recomputes them.
 */
#define HEADS_HINTS		16
#define HINTS_SLACK(n)	((n) / 32)

typedef struct HeadsHeader
{
	uint16		prefix_off;
	uint16		prefix_len;
	uint16		hint_count;		/* items when the hints were computed */
	uint16		unused;
	uint32		hints[HEADS_HINTS];
} HeadsHeader;

typedef struct HeadsSlot
{
	uint16		off;			/* downlink (inner pages) and remainder bytes */
	uint16		len;			/* key length after the prefix; top bit:
								 * dead hint (PBT_SLOT_DEAD) */
	uint32		head;			/* next HEAD_BYTES bytes, big-endian,
								 * zero-padded */
} HeadsSlot;

#define HEAD_BYTES		4
#define HEADS_SLOTS_START (SizeOfPageHeaderData + sizeof(HeadsHeader))

static inline HeadsHeader *
heads_header(Page page)
{
	return (HeadsHeader *) ((char *) page + SizeOfPageHeaderData);
}

static inline HeadsSlot *
heads_slots(Page page)
{
	return (HeadsSlot *) ((char *) page + HEADS_SLOTS_START);
}

static inline int
slot_len(const HeadsSlot *slot)
{
	return slot->len & PBT_SLOT_LEN_MASK;
}

static inline int
remainder_bytes(int len)
{
	return len > HEAD_BYTES ? len - HEAD_BYTES : 0;
}

static inline uint32
make_head(const char *s, int len)
{
	uint32		h = 0;

	if (len >= HEAD_BYTES)
	{
		memcpy(&h, s, HEAD_BYTES);
		return pg_ntoh32(h);
	}
	for (int i = 0; i < HEAD_BYTES; i++)
		h = (h << 8) | (i < len ? (uint8) s[i] : 0);
	return h;
}

static inline bool
is_leaf(Page page)
{
	return PbtIsLeaf(PbtPageGetOpaque(page));
}

/* bytes before the key in an item: the downlink on inner pages */
static inline int
key_offset(Page page)
{
	return is_leaf(page) ? 0 : pbt_page_downlink_size(page);
}

/* position of the first slot with a key (inner: after minus infinity) */
static inline int
first_keyed(Page page)
{
	return is_leaf(page) ? 0 : 1;
}

/* bytes a slot keeps in the item area */
static inline int
stored_bytes(Page page, const HeadsSlot *slot)
{
	return key_offset(page) + remainder_bytes(slot_len(slot));
}

/*
 * Sizes on a heads page, as a conversion target (see PbtLayout.convert_to):
 * the header with a prefix of prefix_len bytes, and one leaf item whose
 * length after the prefix is len.
 */
static int
heads_prefix_bytes(int prefix_len)
{
	return sizeof(HeadsHeader) + prefix_len;
}

static int
heads_suffix_bytes(int len)
{
	return sizeof(HeadsSlot) + remainder_bytes(len);
}

static void
heads_init(Page page)
{
	((PageHeader) page)->pd_lower = HEADS_SLOTS_START;
	memset(heads_header(page), 0, sizeof(HeadsHeader));
}

static int
heads_count(Page page)
{
	return (((PageHeader) page)->pd_lower - HEADS_SLOTS_START) / sizeof(HeadsSlot);
}

/* slot position sampled by hint i on a page of n items */
static inline int
hint_pos(int i, int n)
{
	return (i + 1) * n / (HEADS_HINTS + 1);
}

/*
 * Leaves keep hints (inner pages are few and hot), except under the retired
 * tag PBT_LAYOUT_HEADS_NOHINTS, which earlier versions wrote to measure
 * what hints are worth: its pages keep their hints zero.  (The measurement
 * is now pagebtree.ablate_leaf_hints, which only stops searches from
 * reading hints; see heads_search.)
 */
static inline bool
uses_hints(Page page)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);

	return PbtIsLeaf(opaque) && opaque->layout == PBT_LAYOUT_HEADS;
}

/* Recompute the hints after the slots changed (derived data, deterministic). */
static void
update_hints(Page page)
{
	HeadsHeader *hdr = heads_header(page);
	int			n = heads_count(page);
	bool		use = uses_hints(page) && n > 0;

	for (int i = 0; i < HEADS_HINTS; i++)
		hdr->hints[i] = use ? heads_slots(page)[hint_pos(i, n)].head : 0;
	hdr->hint_count = n;
}

/*
 * Copy a remainder of n bytes a word at a time, without a call into libc:
 * most are shorter than two words.  The last word may read up to 7 bytes
 * past the remainder, still inside the page (remainders precede the prefix
 * and the special space), and write as far past the item into the
 * assembling buffer, which has room for it.
 */
static inline void
copy_remainder(char *dst, const char *src, int n)
{
	StaticAssertStmt(sizeof(PbtPageOpaqueData) >= sizeof(uint64),
					 "special space shorter than a word");
	StaticAssertStmt(sizeof(PbtItemBuf) >= PBT_MAX_ITEM_SIZE + sizeof(uint64),
					 "no room for a word past an item");
	for (int i = 0; i < n; i += sizeof(uint64))
		memcpy(dst + i, src + i, sizeof(uint64));
}

/*
 * Write the item of a keyed slot into out, except the prefix, which the
 * caller has put (or keeps) at out + koff.  Returns the item's length.
 */
static inline int
heads_assemble(Page page, const HeadsSlot *slot, int koff, int prefix_len,
			   char *out)
{
	int			len = slot_len(slot);
	char	   *key = out + koff + prefix_len;

	pbt_check_copy(slot->off, koff + Max(len - HEAD_BYTES, 0),
				   koff + prefix_len + len);
	if (koff > 0)				/* inner pages: the downlink */
		memcpy(out, (char *) page + slot->off, koff);
	if (len >= HEAD_BYTES)
	{
		uint32		be = pg_hton32(slot->head);

		memcpy(key, &be, HEAD_BYTES);
		copy_remainder(key + HEAD_BYTES, (char *) page + slot->off + koff,
					   len - HEAD_BYTES);
	}
	else
	{
		for (int i = 0; i < len; i++)
			key[i] = (char) (slot->head >> (8 * (HEAD_BYTES - 1 - i)));
	}
	return koff + prefix_len + len;
}

static void
heads_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	HeadsHeader *hdr = heads_header(page);
	HeadsSlot  *slot = &heads_slots(page)[pos];
	int			koff = key_offset(page);

	item->data = buf->data;
	if (pos < first_keyed(page))
	{
		memcpy(buf->data, (char *) page + slot->off, koff);
		item->len = koff;
		return;
	}
	pbt_check_copy(hdr->prefix_off, hdr->prefix_len, koff + hdr->prefix_len);
	memcpy(buf->data + koff, (char *) page + hdr->prefix_off, hdr->prefix_len);
	item->len = heads_assemble(page, slot, koff, hdr->prefix_len, buf->data);
}

/*
 * Like heads_get, but on a leaf the prefix is copied once per iteration
 * and its length kept in it->cursor: scans call this for every row.
 */
static void
heads_iter_next(PbtIter *it, PbtItem *item)
{
	Page		page = it->page;
	int			pos = (it->pos += it->step);
	HeadsSlot  *slot = &heads_slots(page)[pos];

	it->dead = (slot->len & PBT_SLOT_DEAD) != 0;
	if (!it->primed)
	{
		HeadsHeader *hdr = heads_header(page);

		if (!is_leaf(page))
		{
			heads_get(page, pos, item, &it->buf);
			return;
		}
		pbt_check_copy(hdr->prefix_off, hdr->prefix_len, hdr->prefix_len);
		memcpy(it->buf.data, (char *) page + hdr->prefix_off, hdr->prefix_len);
		it->cursor = hdr->prefix_len;
		it->primed = true;
	}
	item->data = it->buf.data;
	item->len = heads_assemble(page, slot, 0, it->cursor, it->buf.data);
}

/*
 * The heap TIDs of the next n entries of a leaf: an entry's last
 * PBT_TID_BYTES are its remainder's, unless the key after the prefix is
 * shorter than a head and a TID (int8 keys, composite keys, one-key pages).
 * Those take the prefix's last bytes, the head and the remainder shifted
 * through a 64-bit integer, whose low 48 bits end as the TID (in registers:
 * assembling them in memory and reading them back stalls on the stores).
 */
static void
heads_iter_tids(PbtIter *it, int n, ItemPointerData *tids, bool *dead)
{
	Page		page = it->page;
	HeadsHeader *hdr = heads_header(page);
	const HeadsSlot *slots = heads_slots(page);
	const unsigned char *prefix = (unsigned char *) page + hdr->prefix_off;
	uint64		prefix_tail = 0;

	Assert(is_leaf(page));
	/* remainders precede the prefix and special space, so a word fits */
	StaticAssertStmt(sizeof(PbtPageOpaqueData) >= sizeof(uint64),
					 "special space shorter than a word");
	for (int i = Max(hdr->prefix_len - PBT_TID_BYTES, 0); i < hdr->prefix_len; i++)
		prefix_tail = prefix_tail << 8 | prefix[i];
	for (int i = 0; i < n; i++)
	{
		const HeadsSlot *slot = &slots[it->pos += it->step];
		int			len = slot_len(slot);
		const unsigned char *rest = (unsigned char *) page + slot->off;
		uint64		tail;

		pbt_check_copy(slot->off, Max(len - HEAD_BYTES, 0), len);
		dead[i] = (slot->len & PBT_SLOT_DEAD) != 0;
		if (len >= HEAD_BYTES + PBT_TID_BYTES)
		{
			pbt_tid_from_bytes((char *) rest + len - HEAD_BYTES - PBT_TID_BYTES,
							   &tids[i]);
			continue;
		}
		/*
		 * An item has more than PBT_TID_BYTES bytes.  (The one entry of a
		 * leaf that heads_load made is all prefix: len is 0.)
		 */
		if (unlikely(hdr->prefix_len + len <= PBT_TID_BYTES))
			pbt_page_damaged("has an item shorter than a heap TID");
		if (len <= HEAD_BYTES)
			tail = prefix_tail << (8 * len) |
				(uint64) slot->head >> (8 * (HEAD_BYTES - len));
		else
		{
			int			restlen = len - HEAD_BYTES;
			uint64		word;

			/* (eight bytes from rest stay inside the page: see below) */
			memcpy(&word, rest, sizeof(word));
			tail = (prefix_tail << (8 * HEAD_BYTES) | slot->head) << (8 * restlen) |
				pg_ntoh64(word) >> (8 * (sizeof(word) - restlen));
		}
		ItemPointerSet(&tids[i], (BlockNumber) (tail >> 16),
					   (OffsetNumber) tail);
	}
}

/*
 * Byte x of a leaf entry's item, x at or past the prefix (prefix_len p) and
 * below p + the entry's length after the prefix.
 */
static inline unsigned char
entry_byte(Page page, const HeadsSlot *slot, int p, int x)
{
	x -= p;
	if (x < HEAD_BYTES)
		return (unsigned char) (slot->head >> (8 * (HEAD_BYTES - 1 - x)));
	return ((unsigned char *) page)[slot->off + x - HEAD_BYTES];
}

/*
 * Pass over entries that certainly fail f, reading their head and remainder
 * where the page keeps them.  Entries whose compared bytes start in the
 * prefix, or that are shorter than a head, stop it: the engine checks
 * those.
 */
static int
heads_iter_filter(PbtIter *it, const PbtEntryFilter *f, int max)
{
	Page		page = it->page;
	HeadsHeader *hdr = heads_header(page);
	const HeadsSlot *slots = heads_slots(page);
	int			p = hdr->prefix_len;
	int			d = f->off - p;		/* where the bytes start after the prefix */
	uint64		mask = ~UINT64CONST(0) << (8 * (sizeof(uint64) - f->len));
	int			n = 0;

	Assert(f->len >= 1 && f->len <= sizeof(uint64));
	if (!is_leaf(page) || d < 0)
		return 0;
	/* markers in the prefix are every entry's */
	for (int i = 0; i < f->nmarkers; i++)
		if (f->markers[i] < p &&
			((unsigned char *) page)[hdr->prefix_off + f->markers[i]] != PBT_MARK_VALUE)
			return 0;
	while (n < max && it->pos + it->step != it->stop)
	{
		const HeadsSlot *slot = &slots[it->pos + it->step];
		const char *rest = (char *) page + slot->off;
		int			len = slot_len(slot);
		uint64		word;
		uint64		v;
		int			c;
		bool		values = true;

		if (len < HEAD_BYTES || len < d + f->len)
			break;
		pbt_check_copy(slot->off, len - HEAD_BYTES, 0);
		for (int i = 0; i < f->nmarkers && values; i++)
			values = f->markers[i] < p ||
				entry_byte(page, slot, p, f->markers[i]) == PBT_MARK_VALUE;
		if (!values)
			break;
		/* eight bytes from rest stay inside the page (heads_iter_tids) */
		if (d >= HEAD_BYTES)
		{
			memcpy(&word, rest + d - HEAD_BYTES, sizeof(word));
			v = pg_ntoh64(word);
		}
		else
		{
			/* an entry with no remainder may have no place for one */
			word = 0;
			if (len > HEAD_BYTES)
				memcpy(&word, rest, sizeof(word));
			v = (uint64) slot->head << (8 * (HEAD_BYTES + d)) |
				pg_ntoh64(word) >> (8 * (HEAD_BYTES - d));
		}
		v &= mask;
		c = (v > f->value) - (v < f->value);
		if ((f->pass_mask >> (c + 1)) & 1)
			break;
		it->pos += it->step;
		n++;
	}
	return n;
}

static char *
heads_downlink(Page page, int pos)
{
	Assert(!is_leaf(page));
	return (char *) page + heads_slots(page)[pos].off;
}

/*
 * Item bytes still referenced: slots' bytes, the prefix and the high key.
 * Checks each slot's bytes: the fit test asks this before an insert that
 * compacts the page, which reads them all inside its critical section.
 */
static int
heads_live_bytes(Page page)
{
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);
	int			live = heads_header(page)->prefix_len + pbt_page_hikey_bytes(page);

	for (int i = 0; i < n; i++)
	{
		int			bytes = stored_bytes(page, &slots[i]);

		if (unlikely(bytes > 0 && !pbt_in_item_space(page, slots[i].off, bytes)))
			pbt_bytes_out_of_bounds();
		live += bytes;
	}
	return live;
}

static int
heads_free_space(Page page)
{
	return pbt_slots_free_space(page, heads_live_bytes(page));
}

static int
heads_garbage(Page page)
{
	return pbt_slots_garbage(page, heads_live_bytes(page));
}

/* number of slots with a key */
static inline int
keyed_count(Page page)
{
	return Max(0, heads_count(page) - first_keyed(page));
}

/*
 * Length of the prefix the page must have to also hold key; the whole key
 * when the page has no keys.
 */
static int
prefix_for(Page page, const char *data, int len)
{
	HeadsHeader *hdr = heads_header(page);

	if (keyed_count(page) == 0)
		return len;
	return pbt_common_prefix((char *) page + hdr->prefix_off, hdr->prefix_len,
						 data, len);
}

static int
heads_item_cost(Page page, const char *data, int len)
{
	HeadsHeader *hdr = heads_header(page);
	HeadsSlot  *slots = heads_slots(page);
	int			koff = key_offset(page);
	const char *key = data + koff;
	int			klen = len - koff;
	int			q;
	int			cost;

	if (keyed_count(page) > 0 &&
		pbt_has_prefix(key, klen, (char *) page + hdr->prefix_off,
					   hdr->prefix_len))
		return sizeof(HeadsSlot) + koff + remainder_bytes(klen - hdr->prefix_len);

	/*
	 * A rewrite with a shorter prefix: every remainder grows.  The rewrite
	 * reads every slot's bytes inside the insert's critical section:
	 * heads_live_bytes checks them here, before it.
	 */
	(void) heads_live_bytes(page);
	q = prefix_for(page, key, klen);
	cost = sizeof(HeadsSlot) + koff + remainder_bytes(klen - q) +
		q - hdr->prefix_len;
	for (int i = first_keyed(page); i < heads_count(page); i++)
	{
		int			l = slot_len(&slots[i]);

		cost += remainder_bytes(l + hdr->prefix_len - q) - remainder_bytes(l);
	}
	return cost;
}

static int
heads_space_needed(const PbtItem *items, int n, int downlink)
{
	int			koff = downlink;
	int			fk = downlink == 0 ? 0 : 1;
	int			q = 0;
	int			bytes;

	if (n > fk)
		q = pbt_common_prefix(items[fk].data + koff, items[fk].len - koff,
						  items[n - 1].data + koff, items[n - 1].len - koff);
	/* a split's search asks this a dozen times: no branch per item */
	bytes = heads_prefix_bytes(q) + n * (int) (sizeof(HeadsSlot) + koff);
	for (int i = fk; i < n; i++)
		bytes += remainder_bytes(items[i].len - koff - q);
	return bytes;
}

/*
 * Do sorted leaf items and a high key fit a heads page, as heads_load lays
 * them out?
 */
static bool
heads_fits(PbtItem *items, int n, PbtItem *hikey, int *bytes)
{
	int			need = heads_space_needed(items, n, 0);

	if (bytes)
		*bytes = need;
	return need + (hikey ? hikey->len : 0) <= (int) PBT_USABLE_SPACE;
}

/* Place len bytes below pd_upper, leaving room for one more slot. */
static int
heads_alloc(Page page, int len)
{
	PageHeader	hdr = (PageHeader) page;
	int			upper = hdr->pd_upper - len;

	if (upper < (int) (hdr->pd_lower + sizeof(HeadsSlot)))
		return -1;
	hdr->pd_upper = upper;
	return upper;
}

static bool
set_prefix(Page page, const char *prefix, int len)
{
	HeadsHeader *hdr = heads_header(page);
	int			off = heads_alloc(page, len);

	if (off < 0)
		return false;
	if (len > 0)
		memcpy((char *) page + off, prefix, len);
	hdr->prefix_off = off;
	hdr->prefix_len = len;
	return true;
}

/*
 * Put item at ordered position pos; its key starts with the page's prefix
 * (inner pages: position 0 takes just the downlink, minus infinity).
 */
static bool
put_item(Page page, int pos, const char *data, int len)
{
	PageHeader	phdr = (PageHeader) page;
	int			plen = heads_header(page)->prefix_len;
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);
	int			koff = key_offset(page);
	bool		minus_inf = pos < first_keyed(page);
	int			slen = minus_inf ? 0 : len - koff - plen;
	int			rem = remainder_bytes(slen);
	int			off = 0;

	Assert(slen >= 0 && slen <= PBT_SLOT_LEN_MASK);
	if (phdr->pd_upper - phdr->pd_lower < (int) sizeof(HeadsSlot) + koff + rem)
		return false;
	/* (no zero-length library calls: loads put hundreds of items) */
	if (koff + rem > 0)
	{
		off = heads_alloc(page, koff + rem);
		if (koff > 0)
			memcpy((char *) page + off, data, koff);
		memcpy((char *) page + off + koff, data + koff + plen + HEAD_BYTES, rem);
	}
	if (pos < n)
		memmove(&slots[pos + 1], &slots[pos], (n - pos) * sizeof(HeadsSlot));
	slots[pos].off = off;
	slots[pos].len = slen;
	slots[pos].head = minus_inf ? 0 : make_head(data + koff + plen, slen);
	phdr->pd_lower += sizeof(HeadsSlot);
	return true;
}

/*
 * Rewrite the page with the first plen bytes of prefix as its prefix,
 * squeezing out garbage and dropping dead hints, optionally inserting an
 * item at newpos (-1: none).  Returns false, leaving the page unchanged,
 * if the result does not fit.
 */
static bool
rewrite(Page page, const char *prefix, int plen, int newpos,
		const char *data, int len)
{
	PGAlignedBlock copy;
	Page		tmp = copy.data;
	PbtItemBuf	buf;
	PbtItem		hikey;
	int			n = heads_count(page);
	int			k = 0;

	pbt_page_start_rebuild(tmp, page, pbt_page_hikey_or_null(page, &hikey));
	if (!set_prefix(tmp, prefix, plen))
		return false;
	for (int i = 0; i <= n; i++)
	{
		PbtItem		item;

		if (i == newpos && !put_item(tmp, k++, data, len))
			return false;
		if (i == n)
			break;
		heads_get(page, i, &item, &buf);
		if (!put_item(tmp, k++, item.data, item.len))
			return false;
	}
	update_hints(tmp);
	memcpy(page, tmp, BLCKSZ);
	return true;
}

static bool
heads_insert(Page page, int pos, const char *data, int len)
{
	HeadsHeader *hdr = heads_header(page);
	int			koff = key_offset(page);

	Assert(pos >= 0 && pos <= heads_count(page));
	if (pos >= first_keyed(page) &&
		(keyed_count(page) == 0 ||
		 !pbt_has_prefix(data + koff, len - koff,
						 (char *) page + hdr->prefix_off, hdr->prefix_len)))
	{
		int			q = prefix_for(page, data + koff, len - koff);
		const char *prefix = keyed_count(page) == 0 ? data + koff :
			(char *) page + hdr->prefix_off;

		return rewrite(page, prefix, q, pos, data, len);
	}
	if (put_item(page, pos, data, len))
	{
		if (heads_count(page) - hdr->hint_count > HINTS_SLACK(heads_count(page)))
			update_hints(page);
		return true;
	}
	if (heads_free_space(page) < heads_item_cost(page, data, len))
		return false;
	/* only garbage is in the way */
	return rewrite(page, (char *) page + hdr->prefix_off, hdr->prefix_len,
				   pos, data, len);
}

/*
 * The bytes heads_insert changes when the item shares the prefix and the
 * gap takes it (put_item): the slots from pos on, which shift, and the
 * header when the hints are recomputed.  The new last slot and the
 * remainder land in the hole.
 */
static int
heads_insert_ranges(Page page, int pos, const char *data, int len,
					PbtByteRange *ranges)
{
	PageHeader	phdr = (PageHeader) page;
	HeadsHeader *hdr = heads_header(page);
	int			koff = key_offset(page);
	int			n = heads_count(page);
	int			nranges = 0;

	if (pos < first_keyed(page) || keyed_count(page) == 0 ||
		!pbt_has_prefix(data + koff, len - koff,
						(char *) page + hdr->prefix_off, hdr->prefix_len) ||
		phdr->pd_upper - phdr->pd_lower < (int) sizeof(HeadsSlot) + koff +
		remainder_bytes(len - koff - hdr->prefix_len))
		return -1;				/* rewrites the page */
	if (n + 1 - hdr->hint_count > HINTS_SLACK(n + 1))
	{
		ranges[nranges].off = SizeOfPageHeaderData;
		ranges[nranges++].len = sizeof(HeadsHeader);
	}
	if (pos < n)
	{
		ranges[nranges].off = (char *) &heads_slots(page)[pos] - (char *) page;
		ranges[nranges++].len = (n - pos) * sizeof(HeadsSlot);
	}
	return nranges;
}

/*
 * The same prefix and items without garbage (dead hints dropped).  They fit,
 * having fitted with the garbage; if not, the page stays as it is.
 */
static void
heads_compact(Page page)
{
	HeadsHeader *hdr = heads_header(page);
	bool		fitted PG_USED_FOR_ASSERTS_ONLY;

	fitted = rewrite(page, (char *) page + hdr->prefix_off, hdr->prefix_len,
					 -1, NULL, 0);
	Assert(fitted);
}

static void
heads_load(Page page, PbtItem *items, int n)
{
	int			koff = key_offset(page);
	int			fk = first_keyed(page);
	int			plen = 0;

	if (n > fk)
		plen = pbt_common_prefix(items[fk].data + koff, items[fk].len - koff,
							 items[n - 1].data + koff, items[n - 1].len - koff);
	if (!set_prefix(page, n > fk ? items[fk].data + koff : NULL, plen))
		elog(ERROR, "pagebtree heads layout: prefix does not fit");
	for (int i = 0; i < n; i++)
	{
		if (!put_item(page, i, items[i].data, items[i].len))
			elog(ERROR, "pagebtree heads layout: %d items do not fit", n);
	}
	update_hints(page);
}

static void
heads_delete(Page page, const int *positions, int n)
{
	int			left = pbt_array_delete(heads_slots(page), sizeof(HeadsSlot),
										heads_count(page), positions, n);

	((PageHeader) page)->pd_lower = HEADS_SLOTS_START + left * sizeof(HeadsSlot);
	update_hints(page);
}

static void
heads_truncate(Page page, int n)
{
	Assert(n <= heads_count(page));
	((PageHeader) page)->pd_lower = HEADS_SLOTS_START + n * sizeof(HeadsSlot);
	update_hints(page);
}

/*
 * Compare a key's bytes after the prefix (k, klen, head kh) with a slot's
 * item, exactly as pbt_compare() compares whole keys: memcmp over the
 * shorter length, then nextkey or length decides.
 */
static inline int
compare_slot(Page page, const HeadsSlot *slot, int koff, const char *k,
			 int klen, uint32 kh, bool nextkey)
{
	int			slen = slot_len(slot);
	int			common = Min(klen, slen);

	if (common > 0)
	{
		int			hb = Min(common, HEAD_BYTES);
		uint32		mask = ~(uint32) 0 << (8 * (HEAD_BYTES - hb));
		uint32		a = kh & mask;
		uint32		b = slot->head & mask;

		if (a != b)
			return a < b ? -1 : 1;
		if (common > HEAD_BYTES)
		{
			int			c;

			pbt_check_copy(slot->off + koff, common - HEAD_BYTES, 0);
			c = memcmp(k + HEAD_BYTES, (char *) page + slot->off + koff,
					   common - HEAD_BYTES);

			if (c != 0)
				return c;
		}
	}
	if (nextkey)
		return 1;
	return (klen > slen) - (klen < slen);
}

/*
 * memcmp's sign for the key and the page prefix: prefixes of int8 keys are
 * a few bytes, cheaper compared here than through a call
 */
static inline int
prefix_cmp(const char *a, const char *b, int n)
{
	if (n > 8)
		return memcmp(a, b, n);
	for (int i = 0; i < n; i++)
	{
		if (a[i] != b[i])
			return (uint8) a[i] < (uint8) b[i] ? -1 : 1;
	}
	return 0;
}

/*
 * Leaf pages: the first position whose item is >= key.  Inner pages: the
 * downlink to follow, the last one whose separator is <= key.
 */
static int
heads_search(PbtState *st, Page page, PbtSearchKey *key)
{
	HeadsHeader *hdr = heads_header(page);
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);
	int			plen = hdr->prefix_len;
	bool		leaf = is_leaf(page);
	int			koff = key_offset(page);
	int			fk = first_keyed(page);
	int			beyond = leaf ? 1 : 0;	/* compare result that moves right */
	int			c;
	int			low = fk,
				high = n;
	const char *k;
	int			klen;
	uint32		kh;

	Assert(st->normalized);
	if (n <= fk)
		return 0;
	c = prefix_cmp(key->bytes, (char *) page + hdr->prefix_off, Min(key->len, plen));
	if (c == 0 && key->len <= plen)
	{
		/*
		 * The key is a prefix of every key here: after all of them with
		 * nextkey; else before all, but equal to a separator that is the
		 * prefix itself.
		 */
		if (key->nextkey)
			c = 1;
		else if (!leaf && key->len == plen && slot_len(&slots[fk]) == 0)
			return fk;
		else
			c = -1;
	}
	if (c != 0)
		return c < 0 ? (leaf ? 0 : fk - 1) : (leaf ? n : n - 1);

	k = key->bytes + plen;
	klen = key->len - plen;
	kh = make_head(k, klen);

	/*
	 * Narrow [low, high) with the hints.  A head strictly below the key's
	 * means the item is below the key, and strictly above means above, as
	 * long as the key has no padding in its head (a shorter key with
	 * nextkey sorts after the longer items it is a prefix of).  The setting
	 * pagebtree.ablate_leaf_hints skips this (hints are kept up to date
	 * regardless); tested last, as tested first it made gcc allocate the
	 * binary search's registers worse (two instructions more per probe).
	 */
	if (uses_hints(page) && klen >= HEAD_BYTES &&
		hdr->hint_count > HEADS_HINTS && !pbt_ablate_leaf_hints)
	{
		int			hc = hdr->hint_count;
		int			slack = n - hc; /* inserts since the hints */
		int			i = 0;

		while (i < HEADS_HINTS && hdr->hints[i] < kh)
			low = hint_pos(i++, hc) + 1;
		while (i < HEADS_HINTS && hdr->hints[i] == kh)
			i++;
		if (i < HEADS_HINTS)
			high = Min(n, hint_pos(i, hc) + slack);
	}
	/*
	 * With a whole head (klen >= HEAD_BYTES), heads that differ decide alone,
	 * whatever the slot's length: the first byte that differs is either a
	 * real byte of both, or padding of a shorter item, which then is a
	 * proper prefix of the key and sorts before it (the head compares
	 * lower, as it should).  Most probes of a search take this branch, and
	 * skip compare_slot's masking.
	 */
	if (klen >= HEAD_BYTES)
	{
		while (low < high)
		{
			int			mid = low + (high - low) / 2;
			uint32		sh = slots[mid].head;

			if (sh != kh ? kh > sh :
				compare_slot(page, &slots[mid], koff, k, klen, kh,
							 key->nextkey) >= beyond)
				low = mid + 1;
			else
				high = mid;
		}
		return leaf ? low : low - 1;
	}
	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (compare_slot(page, &slots[mid], koff, k, klen, kh, key->nextkey) >= beyond)
			low = mid + 1;
		else
			high = mid;
	}
	return leaf ? low : low - 1;
}

static void
heads_set_dead(Page page, int pos)
{
	heads_slots(page)[pos].len |= PBT_SLOT_DEAD;
}

static bool
heads_is_dead(Page page, int pos)
{
	return (heads_slots(page)[pos].len & PBT_SLOT_DEAD) != 0;
}

static void
heads_mask(Page page)
{
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);

	for (int i = 0; i < n; i++)
		slots[i].len &= PBT_SLOT_LEN_MASK;
}

static const char *
heads_check_header(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	HeadsHeader *hdr = heads_header(page);
	int			n = heads_count(page);

	if (phdr->pd_lower < HEADS_SLOTS_START ||
		(phdr->pd_lower - HEADS_SLOTS_START) % sizeof(HeadsSlot) != 0)
		return "slot array length is not a multiple of the slot size";
	if (hdr->hint_count > n || n - hdr->hint_count > HINTS_SLACK(n))
		return "hints are older than the slack allows";
	if (hdr->prefix_len > 0 &&
		!pbt_in_item_space(page, hdr->prefix_off, hdr->prefix_len))
		return "prefix bytes out of bounds";
	return NULL;
}

static const char *
heads_check(Page page)
{
	HeadsHeader *hdr = heads_header(page);
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);
	int			koff = key_offset(page);
	const char *problem = heads_check_header(page);

	if (problem)
		return problem;
	for (int i = 0; i < HEADS_HINTS; i++)
	{
		int			p = hint_pos(i, hdr->hint_count);
		bool		found = false;

		/* the sampled head has moved right by at most the inserts since */
		if (!uses_hints(page) || hdr->hint_count == 0)
			found = hdr->hints[i] == 0;
		for (int d = 0; !found && d <= n - hdr->hint_count && p + d < n; d++)
			found = slots[p + d].head == hdr->hints[i];
		if (!found)
			return "hint does not match the head it samples";
	}
	for (int i = 0; i < n; i++)
	{
		int			len = slot_len(&slots[i]);
		int			stored = stored_bytes(page, &slots[i]);

		if (i < first_keyed(page) && (len != 0 || slots[i].head != 0))
			return "minus-infinity downlink with a key";
		if (i >= first_keyed(page) &&
			(koff + hdr->prefix_len + len <= 0 ||
			 koff + hdr->prefix_len + len > (int) PBT_MAX_ITEM_SIZE + 2 * MAXIMUM_ALIGNOF))
			return "item length out of bounds";
		if (stored > 0 && !pbt_in_item_space(page, slots[i].off, stored))
			return "remainder bytes out of bounds";
		/* padding of short heads must be zero, or compares would differ */
		if (len < HEAD_BYTES &&
			(slots[i].head & (~(uint32) 0 >> (8 * len))) != 0)
			return "head has non-zero padding";
	}
	return NULL;
}

#define HEADS_LAYOUT(layout_name, layout_tag, layout_flags) { \
	.name = layout_name, \
	.tag = layout_tag, \
	.flags = layout_flags, \
	.init = heads_init, \
	.count = heads_count, \
	.get = heads_get, \
	.downlink = heads_downlink, \
	.search = heads_search, \
	.insert = heads_insert, \
	.insert_ranges = heads_insert_ranges, \
	.load = heads_load, \
	.delete = heads_delete, \
	.truncate = heads_truncate, \
	.item_cost = heads_item_cost, \
	.space_needed = heads_space_needed, \
	.fits = heads_fits, \
	.free_space = heads_free_space, \
	.garbage = heads_garbage, \
	.compact = heads_compact, \
	.set_dead = heads_set_dead, \
	.is_dead = heads_is_dead, \
	.mask = heads_mask, \
	.check = heads_check, \
	.check_header = heads_check_header, \
	.iter_next = heads_iter_next, \
	.iter_tids = heads_iter_tids, \
	.iter_filter = heads_iter_filter, \
	.prefix_bytes = heads_prefix_bytes, \
	.suffix_bytes = heads_suffix_bytes, \
}

const PbtLayout pbt_layout_heads =
	HEADS_LAYOUT("heads", PBT_LAYOUT_HEADS,
				 PBT_LF_LEAF | PBT_LF_INNER | PBT_LF_NORMALIZED);

/*
 * Retired: written by earlier versions (layout = 'heads-nohints'), read
 * only; never written now.  The same code, whose leaves keep no hints (see
 * uses_hints).
 */
const PbtLayout pbt_layout_heads_nohints =
	HEADS_LAYOUT("heads-nohints", PBT_LAYOUT_HEADS_NOHINTS,
				 PBT_LF_LEAF | PBT_LF_NORMALIZED | PBT_LF_RETIRED);
