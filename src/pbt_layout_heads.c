/*-------------------------------------------------------------------------
 *
 * pbt_layout_heads.c
 *	  Leaf layout with prefix truncation and 4-byte key heads, after
 *	  "B-Trees Are Back" (normalized keys only).
 *
 * The bytes that all items of the page start with (the prefix) are stored
 * once.  Each slot keeps the next four bytes of its item as a big-endian
 * integer (the head) and the length of the item after the prefix; the bytes
 * after the head (the remainder) live in the item area:
 *
 *   PageHeader | HeadsHeader | HeadsSlot[] ->  free  <- remainders, prefix,
 *   high key | special space
 *
 * A search compares the key with the prefix once, then with the heads as
 * integers, and reads remainder bytes only when heads are equal.  An int8
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

typedef struct HeadsHeader
{
	uint16		prefix_off;
	uint16		prefix_len;
} HeadsHeader;

typedef struct HeadsSlot
{
	uint16		off;			/* remainder bytes, if len > HEAD_BYTES */
	uint16		len;			/* item length after the prefix; top bit:
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

	for (int i = 0; i < HEAD_BYTES; i++)
		h = (h << 8) | (i < len ? (uint8) s[i] : 0);
	return h;
}

static inline int
common_prefix(const char *a, int alen, const char *b, int blen)
{
	int			n = Min(alen, blen);
	int			i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/*
 * Sizes on a heads page, for layouts that convert themselves to heads and
 * for the engine's choice of a leaf's layout: the header with a prefix of
 * prefix_len bytes, and one item whose length after the prefix is len.
 */
int
pbt_heads_base_bytes(int prefix_len)
{
	return sizeof(HeadsHeader) + prefix_len;
}

int
pbt_heads_item_bytes(int len)
{
	return sizeof(HeadsSlot) + remainder_bytes(len);
}

/* bytes sorted items take on a heads page as heads_load lays them out */
int
pbt_heads_bytes(PbtItem *items, int n)
{
	int			plen = 0;
	int			bytes;

	if (n > 0)
		plen = common_prefix(items[0].data, items[0].len,
							 items[n - 1].data, items[n - 1].len);
	bytes = pbt_heads_base_bytes(plen);
	for (int i = 0; i < n; i++)
		bytes += pbt_heads_item_bytes(items[i].len - plen);
	return bytes;
}

static void
heads_init(Page page)
{
	((PageHeader) page)->pd_lower = HEADS_SLOTS_START;
	heads_header(page)->prefix_off = 0;
	heads_header(page)->prefix_len = 0;
}

static int
heads_count(Page page)
{
	return (((PageHeader) page)->pd_lower - HEADS_SLOTS_START) / sizeof(HeadsSlot);
}

static void
heads_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	HeadsHeader *hdr = heads_header(page);
	HeadsSlot  *slot = &heads_slots(page)[pos];
	int			len = slot_len(slot);
	char	   *out = buf->data;

	memcpy(out, (char *) page + hdr->prefix_off, hdr->prefix_len);
	out += hdr->prefix_len;
	for (int i = 0; i < Min(len, HEAD_BYTES); i++)
		out[i] = (char) (slot->head >> (8 * (HEAD_BYTES - 1 - i)));
	if (len > HEAD_BYTES)
		memcpy(out + HEAD_BYTES, (char *) page + slot->off, len - HEAD_BYTES);
	item->data = buf->data;
	item->len = hdr->prefix_len + len;
}

/* item bytes still referenced: remainders, the prefix and the high key */
static int
heads_live_bytes(Page page)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);
	int			live = heads_header(page)->prefix_len;

	for (int i = 0; i < n; i++)
		live += remainder_bytes(slot_len(&slots[i]));
	if (!PbtIsRightmost(opaque))
		live += opaque->hikey_len;
	return live;
}

static int
heads_free_space(Page page)
{
	PageHeader	hdr = (PageHeader) page;

	return hdr->pd_special - hdr->pd_lower - heads_live_bytes(page);
}

static int
heads_garbage(Page page)
{
	PageHeader	hdr = (PageHeader) page;

	return hdr->pd_special - hdr->pd_upper - heads_live_bytes(page);
}

/* Does data start with the page's prefix? */
static inline bool
shares_prefix(Page page, const char *data, int len)
{
	HeadsHeader *hdr = heads_header(page);

	return len >= hdr->prefix_len &&
		memcmp(data, (char *) page + hdr->prefix_off, hdr->prefix_len) == 0;
}

/*
 * Length of the prefix the page must have to also hold data; the whole
 * item when the page is empty.
 */
static int
prefix_for(Page page, const char *data, int len)
{
	HeadsHeader *hdr = heads_header(page);

	if (heads_count(page) == 0)
		return len;
	return common_prefix((char *) page + hdr->prefix_off, hdr->prefix_len,
						 data, len);
}

static int
heads_item_cost(Page page, const char *data, int len)
{
	HeadsHeader *hdr = heads_header(page);
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);
	int			q;
	int			cost;

	if (n > 0 && shares_prefix(page, data, len))
		return sizeof(HeadsSlot) + remainder_bytes(len - hdr->prefix_len);

	/* a rewrite with a shorter prefix: every remainder grows */
	q = prefix_for(page, data, len);
	cost = sizeof(HeadsSlot) + remainder_bytes(len - q) + q - hdr->prefix_len;
	for (int i = 0; i < n; i++)
	{
		int			l = slot_len(&slots[i]);

		cost += remainder_bytes(l + hdr->prefix_len - q) - remainder_bytes(l);
	}
	return cost;
}

static int
heads_split_reserve(Page page)
{
	/* a half's prefix may grow by up to a head; its header and prefix */
	return sizeof(HeadsHeader) + heads_header(page)->prefix_len + HEAD_BYTES;
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

/* Put item at ordered position pos; it starts with the page's prefix. */
static bool
put_item(Page page, int pos, const char *data, int len)
{
	PageHeader	phdr = (PageHeader) page;
	int			plen = heads_header(page)->prefix_len;
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);
	int			slen = len - plen;
	int			rem = remainder_bytes(slen);
	int			off = 0;

	Assert(slen >= 0 && slen <= PBT_SLOT_LEN_MASK);
	if (phdr->pd_upper - phdr->pd_lower < (int) sizeof(HeadsSlot) + rem)
		return false;
	if (rem > 0)
	{
		off = heads_alloc(page, rem);
		memcpy((char *) page + off, data + plen + HEAD_BYTES, rem);
	}
	memmove(&slots[pos + 1], &slots[pos], (n - pos) * sizeof(HeadsSlot));
	slots[pos].off = off;
	slots[pos].len = slen;
	slots[pos].head = make_head(data + plen, slen);
	phdr->pd_lower += sizeof(HeadsSlot);
	return true;
}

/*
 * Start rewriting page into tmp: the same header, special space and high
 * key, no items.
 */
static void
begin_rewrite(Page tmp, Page page)
{
	PageHeader	phdr = (PageHeader) page;
	PbtPageOpaque opaque;
	PbtItem		hikey;

	memcpy(tmp, page, SizeOfPageHeaderData);
	memcpy((char *) tmp + phdr->pd_special, (char *) page + phdr->pd_special,
		   BLCKSZ - phdr->pd_special);
	((PageHeader) tmp)->pd_upper = phdr->pd_special;
	heads_init(tmp);
	opaque = PbtPageGetOpaque(tmp);
	opaque->hikey_off = opaque->hikey_len = 0;
	if (pbt_page_get_hikey(page, &hikey) &&
		!pbt_page_set_hikey(tmp, hikey.data, hikey.len))
		elog(ERROR, "pagebtree heads layout: high key does not fit");
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
	int			n = heads_count(page);
	int			k = 0;

	begin_rewrite(tmp, page);
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
	memcpy(page, tmp, BLCKSZ);
	return true;
}

static bool
heads_insert(Page page, int pos, const char *data, int len)
{
	HeadsHeader *hdr = heads_header(page);

	Assert(pos >= 0 && pos <= heads_count(page));
	if (heads_count(page) == 0 || !shares_prefix(page, data, len))
	{
		int			q = prefix_for(page, data, len);
		const char *prefix = heads_count(page) == 0 ? data :
			(char *) page + hdr->prefix_off;

		return rewrite(page, prefix, q, pos, data, len);
	}
	if (put_item(page, pos, data, len))
		return true;
	if (heads_free_space(page) < heads_item_cost(page, data, len))
		return false;
	/* only garbage is in the way */
	return rewrite(page, (char *) page + hdr->prefix_off, hdr->prefix_len,
				   pos, data, len);
}

static void
heads_load(Page page, PbtItem *items, int n)
{
	int			plen = 0;

	if (n > 0)
		plen = common_prefix(items[0].data, items[0].len,
							 items[n - 1].data, items[n - 1].len);
	if (!set_prefix(page, n > 0 ? items[0].data : NULL, plen))
		elog(ERROR, "pagebtree heads layout: prefix does not fit");
	for (int i = 0; i < n; i++)
	{
		if (!put_item(page, i, items[i].data, items[i].len))
			elog(ERROR, "pagebtree heads layout: %d items do not fit", n);
	}
}

static void
heads_delete(Page page, const int *positions, int n)
{
	HeadsSlot  *slots = heads_slots(page);
	int			count = heads_count(page);
	int			dst = 0;
	int			k = 0;

	for (int src = 0; src < count; src++)
	{
		if (k < n && positions[k] == src)
		{
			k++;
			continue;
		}
		slots[dst++] = slots[src];
	}
	((PageHeader) page)->pd_lower = HEADS_SLOTS_START + dst * sizeof(HeadsSlot);
}

static void
heads_truncate(Page page, int n)
{
	Assert(n <= heads_count(page));
	((PageHeader) page)->pd_lower = HEADS_SLOTS_START + n * sizeof(HeadsSlot);
}

/*
 * Compare a key's bytes after the prefix (k, klen, head kh) with a slot's
 * item, exactly as pbt_compare() compares whole keys: memcmp over the
 * shorter length, then nextkey or length decides.
 */
static inline int
compare_slot(Page page, const HeadsSlot *slot, const char *k, int klen,
			 uint32 kh, bool nextkey)
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
			int			c = memcmp(k + HEAD_BYTES, (char *) page + slot->off,
								   common - HEAD_BYTES);

			if (c != 0)
				return c;
		}
	}
	if (nextkey)
		return 1;
	return (klen > slen) - (klen < slen);
}

static int
heads_search(PbtState *st, Page page, PbtSearchKey *key)
{
	HeadsHeader *hdr = heads_header(page);
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);
	int			plen = hdr->prefix_len;
	int			c;
	int			low = 0,
				high = n;
	const char *k;
	int			klen;
	uint32		kh;

	Assert(st->normalized);
	if (n == 0)
		return 0;
	c = plen > 0 ?
		memcmp(key->bytes, (char *) page + hdr->prefix_off, Min(key->len, plen)) : 0;
	if (c != 0)
		return c < 0 ? 0 : n;
	if (key->len <= plen)
	{
		/* the key is a prefix of every item */
		return key->nextkey ? n : 0;
	}
	k = key->bytes + plen;
	klen = key->len - plen;
	kh = make_head(k, klen);
	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (compare_slot(page, &slots[mid], k, klen, kh, key->nextkey) > 0)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
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
heads_check(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	HeadsHeader *hdr = heads_header(page);
	HeadsSlot  *slots = heads_slots(page);
	int			n = heads_count(page);

	if ((phdr->pd_lower - HEADS_SLOTS_START) % sizeof(HeadsSlot) != 0)
		return "slot array length is not a multiple of the slot size";
	if (hdr->prefix_len > 0 &&
		(hdr->prefix_off < phdr->pd_upper ||
		 hdr->prefix_off + hdr->prefix_len > phdr->pd_special))
		return "prefix bytes out of bounds";
	for (int i = 0; i < n; i++)
	{
		int			len = slot_len(&slots[i]);

		if (hdr->prefix_len + len <= 0 ||
			hdr->prefix_len + len > (int) PBT_MAX_ITEM_SIZE + 2 * MAXIMUM_ALIGNOF)
			return "item length out of bounds";
		if (len > HEAD_BYTES &&
			(slots[i].off < phdr->pd_upper ||
			 slots[i].off + len - HEAD_BYTES > phdr->pd_special))
			return "remainder bytes out of bounds";
		/* padding of short heads must be zero, or compares would differ */
		if (len < HEAD_BYTES &&
			(slots[i].head & (~(uint32) 0 >> (8 * len))) != 0)
			return "head has non-zero padding";
	}
	return NULL;
}

const PbtLayout pbt_layout_heads = {
	.name = "heads",
	.init = heads_init,
	.count = heads_count,
	.get = heads_get,
	.search = heads_search,
	.insert = heads_insert,
	.load = heads_load,
	.delete = heads_delete,
	.truncate = heads_truncate,
	.item_cost = heads_item_cost,
	.split_reserve = heads_split_reserve,
	.free_space = heads_free_space,
	.garbage = heads_garbage,
	.set_dead = heads_set_dead,
	.is_dead = heads_is_dead,
	.mask = heads_mask,
	.check = heads_check,
};
