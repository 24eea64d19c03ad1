/*-------------------------------------------------------------------------
 *
 * pbt_layout_bpa.c
 *	  The BPA leaf layout (buffered partitioned array, after the BP-tree):
 *	  an unsorted insert log, and blocks that partition the key range and
 *	  are unsorted inside.  Normalized keys only; items are compared as
 *	  bytes.
 *
 * Page:
 *
 *	PageHeader | BpaHeader | prefix | log slots [log_cap] |
 *	block 0: BpaBlock + slots [block_cap] | block 1 | ... | (pd_lower)
 *	... free ... | entries, high key | special
 *
 * Every item starts with the prefix (prefix_len bytes, padded to an even
 * length), which a page takes from its items when it is loaded: what the
 * first and last share, but never into the heap TID (as in fingerprint
 * leaves).  An entry is the item after the prefix; entries compare as the
 * items do.  An insert whose item does not start with the prefix reloads
 * the page with a shorter one.  A slot is the (offset, length) of an entry,
 * with the dead hint in the length's top bit, as in the plain layout.
 * Block i holds the entries
 * that are >= its fence (the bytes of the item that was its first when the
 * block was made) and < the next block's fence; block 0 has no fence.  The
 * fences, sorted, are the paper's header of block minimums.  A block made
 * from sorted items (a load, a block split) is flagged sorted, and stays so
 * while flushes append items above its last one in order (ascending keys)
 * and deletions close their gaps in place; readers then need not sort it.
 * Deletions that leave a block at most one entry flag it sorted again.
 *
 * An insert appends the item to the log: one slot and the item's bytes, a
 * small WAL diff; while the log is empty, an item above the last block's
 * entries is appended to that block directly (ascending keys).  The insert
 * that fills the log flushes it (or, if the hole is too small for that, the
 * next insert does, first): each logged item moves to its block's free
 * slots.  A block that would overflow is split where it is (its entries
 * sorted and cut into blocks, the later blocks moved up): for the last
 * block, into full blocks and a remainder, so that ascending keys (serial
 * ids, timestamps) leave full blocks behind them.  If the hole cannot take
 * the new blocks, or an item its bytes, the page is reloaded: all items
 * sorted into blocks 3/4 full.  A split's left half is reloaded so too when
 * it fits that way.  All of this is deterministic, so WAL redo of an insert
 * repeats it.
 *
 * Ordered positions are ranks in key order.  A search counts: the blocks
 * below the key's block whole, then the items of that block and of the log
 * below the key.  Reading in order (iteration, get) sorts one block at a
 * time together with the logged items that belong to it, in backend-local
 * memory, under the caller's lock; the page itself is never sorted by a
 * reader.  A point lookup's probe sorts nothing: it compares the key with
 * the items of the blocks whose fences can hold it, and of the log.
 *
 * Geometry: log_cap and block_cap come from the page's layout parameter
 * (reloptions bpa_log_size and bpa_block_size, powers of two from 4 to 64);
 * space_needed, which does not know the page, plans for the largest.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_parts.h"
#include "pbt_slots.h"

#include "port/pg_bitutils.h"

typedef struct BpaHeader
{
	uint16		nblocks;
	uint16		log_count;
	uint8		log_cap;
	uint8		block_cap;
	uint16		nitems;			/* in the log and the blocks */
	uint16		prefix_len;		/* bytes every item starts with, stored once */
} BpaHeader;

typedef struct BpaBlock
{
	uint16		count;
	uint16		fence_off;
	uint16		fence_len;		/* BPA_FENCE_ORPHAN: its item was deleted */
	uint16		flags;
} BpaBlock;

#define BPA_FENCE_ORPHAN	0x8000
#define BPA_BLOCK_SORTED	0x0001	/* its slots are in key order */
#define BPA_FENCE_LEN_MASK	0x7FFF

#define BPA_MAX_CAP			64
#define BPA_PREFIX_START	(SizeOfPageHeaderData + sizeof(BpaHeader))

/* a block's item run while reading in order: its slots (page offsets), sorted */
typedef struct BpaRun
{
	int			block;
	int			base;			/* position of entries[0] */
	int			len;
	uint16		entries[2 * BPA_MAX_CAP];
} BpaRun;

/* iteration state (the item buffer assembles items with the prefix) */
typedef struct BpaIterState
{
	uint16		log_block[BPA_MAX_CAP];	/* the block of each logged item */
	int			idx;			/* index in run.entries */
	BpaRun		run;
} BpaIterState;

StaticAssertDecl(sizeof(BpaIterState) <= PBT_ITER_STATE_SIZE,
				 "BPA iteration state must fit in the iterator");

static inline BpaHeader *
bpa_header(Page page)
{
	return (BpaHeader *) ((char *) page + SizeOfPageHeaderData);
}

static inline char *
bpa_prefix(Page page)
{
	return (char *) page + BPA_PREFIX_START;
}

static inline int
log_start(int prefix_len)
{
	return BPA_PREFIX_START + SHORTALIGN(prefix_len);
}

static inline PbtSlot *
log_slots(Page page)
{
	return (PbtSlot *) ((char *) page + log_start(bpa_header(page)->prefix_len));
}

static inline PbtSlot *
bpa_slot_of(Page page, uint16 off)
{
	return (PbtSlot *) ((char *) page + off);
}

static inline int
unit_bytes(int block_cap)
{
	return sizeof(BpaBlock) + block_cap * sizeof(PbtSlot);
}

static inline int
blocks_start(int log_cap, int prefix_len)
{
	return log_start(prefix_len) + log_cap * sizeof(PbtSlot);
}

static inline BpaBlock *
bpa_block(Page page, int i)
{
	BpaHeader  *hdr = bpa_header(page);

	return (BpaBlock *) ((char *) page + blocks_start(hdr->log_cap, hdr->prefix_len) +
						 i * unit_bytes(hdr->block_cap));
}

static inline PbtSlot *
block_slots(BpaBlock *blk)
{
	return (PbtSlot *) (blk + 1);
}

/* make blk an empty block (so in order) with this fence */
static inline void
start_block(Page page, BpaBlock *blk, uint16 fence_off, uint16 fence_len)
{
	memset(blk, 0, unit_bytes(bpa_header(page)->block_cap));
	blk->flags = BPA_BLOCK_SORTED;
	blk->fence_off = fence_off;
	blk->fence_len = fence_len;
}

/* items a block is made with (3/4 full), leaving room for flushes */
static inline int
block_fill(int block_cap)
{
	return Max(1, block_cap * 3 / 4);
}

static inline int
blocks_for(int n, int block_cap)
{
	return Max(1, (n + block_fill(block_cap) - 1) / block_fill(block_cap));
}

/* pd_lower of a page loaded with n items after a prefix of prefix_len bytes */
static inline int
bpa_lower_for(int n, int log_cap, int block_cap, int prefix_len)
{
	return blocks_start(log_cap, prefix_len) +
		blocks_for(n, block_cap) * unit_bytes(block_cap);
}

/*
 * Layout parameter: log and block capacity as two 4-bit shifts, from the
 * reloptions bpa_log_size and bpa_block_size (powers of two, checked by
 * the validator); 0 = default.
 */
static uint8
bpa_param(const PbtOptions *opts)
{
	int			log_size = opts ? opts->bpa_log_size : PBT_BPA_DEFAULT_LOG;
	int			block_size = opts ? opts->bpa_block_size : PBT_BPA_DEFAULT_BLOCK;

	return (uint8) ((pg_leftmost_one_pos32(log_size) << 4) |
					pg_leftmost_one_pos32(block_size));
}

static void
bpa_init(Page page)
{
	BpaHeader  *hdr = bpa_header(page);
	uint8		param = PbtPageGetOpaque(page)->layout_param;

	memset(hdr, 0, sizeof(BpaHeader));
	hdr->log_cap = param ? 1 << (param >> 4) : PBT_BPA_DEFAULT_LOG;
	hdr->block_cap = param ? 1 << (param & 15) : PBT_BPA_DEFAULT_BLOCK;
	hdr->nblocks = 1;
	memset(log_slots(page), 0, blocks_start(hdr->log_cap, 0) - log_start(0));
	start_block(page, bpa_block(page, 0), 0, 0);
	((PageHeader) page)->pd_lower = blocks_start(hdr->log_cap, 0) +
		unit_bytes(hdr->block_cap);
}

static int
bpa_count(Page page)
{
	return bpa_header(page)->nitems;
}

/* the block an item belongs to: the last whose fence is <= it */
static int
route(Page page, const char *data, int len)
{
	int			low = 1,
				high = bpa_header(page)->nblocks;
	BpaBlock   *last = bpa_block(page, high - 1);

	/* ascending keys (serial ids, timestamps) go to the last block */
	if (high > 1 &&
		pbt_bytes_cmp((char *) page + last->fence_off,
					  last->fence_len & BPA_FENCE_LEN_MASK, data, len) <= 0)
		return high - 1;
	while (low < high)
	{
		int			mid = low + (high - low) / 2;
		BpaBlock   *blk = bpa_block(page, mid);

		if (pbt_bytes_cmp((char *) page + blk->fence_off,
						  blk->fence_len & BPA_FENCE_LEN_MASK, data, len) <= 0)
			low = mid + 1;
		else
			high = mid;
	}
	return low - 1;
}

/* item bytes still referenced: items, orphaned fences, the high key */
static int
bpa_live_bytes(Page page)
{
	BpaHeader  *hdr = bpa_header(page);
	int			live = PbtPageGetOpaque(page)->hikey_len;

	live += pbt_slots_bytes(log_slots(page), hdr->log_count);
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		if (blk->fence_len & BPA_FENCE_ORPHAN)
			live += blk->fence_len & BPA_FENCE_LEN_MASK;
		live += pbt_slots_bytes(block_slots(blk), blk->count);
	}
	return live;
}

static int
bpa_free_space(Page page)
{
	return pbt_slots_free_space(page, bpa_live_bytes(page));
}

static int
bpa_garbage(Page page)
{
	return pbt_slots_garbage(page, bpa_live_bytes(page));
}

static int
bpa_space_needed(const PbtItem *items, int n, bool leaf)
{
	int			bytes = 0;
	int			slots = 0;
	int			shortest = INT_MAX;
	int			q = 0;

	for (int i = 0; i < n; i++)
	{
		bytes += items[i].len;
		shortest = Min(shortest, items[i].len);
	}
	if (n > 0)
	{
		PbtPart		first = {items[0].data, items[0].len, NULL, 0};
		PbtPart		last = {items[n - 1].data, items[n - 1].len, NULL, 0};

		q = pbt_prefix_between(&first, &last, shortest);
	}
	/* the largest slot area of any geometry */
	for (int cap = 4; cap <= BPA_MAX_CAP; cap *= 2)
		slots = Max(slots, bpa_lower_for(n, BPA_MAX_CAP, cap, q));
	return bytes - n * q + slots - SizeOfPageHeaderData;
}

static bool
bpa_fits(PbtItem *items, int n, PbtItem *hikey, int *bytes)
{
	int			need = bpa_space_needed(items, n, true);

	if (bytes)
		*bytes = need;
	return need + (hikey ? hikey->len : 0) <= (int) PBT_USABLE_SPACE;
}

/* ---------------------------------------------------------------
 * Reading in order
 * ---------------------------------------------------------------
 */

/*
 * A run's entry for sorting: its page offset, and its first 8 bytes as a
 * big-endian integer (zero-padded, which keeps the order of items that
 * differ there), so that most comparisons are one integer compare.  Runs
 * are sorted on every split and ordered scan.
 */
typedef struct RunKey
{
	uint64		head;
	uint16		off;
} RunKey;

static inline int
run_key_cmp(const RunKey *a, const RunKey *b, char *page)
{
	if (a->head != b->head)
		return a->head < b->head ? -1 : 1;
	return pbt_slot_cmp(page, bpa_slot_of(page, a->off),
						bpa_slot_of(page, b->off));
}

#define ST_SORT sort_run_keys
#define ST_ELEMENT_TYPE RunKey
#define ST_COMPARE_ARG_TYPE char
#define ST_COMPARE(a, b, page) run_key_cmp((a), (b), (page))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* sort n page offsets of slots by their items */
static void
sort_run(Page page, uint16 *entries, int n)
{
	RunKey		keys[2 * BPA_MAX_CAP];

	for (int i = 0; i < n; i++)
	{
		PbtSlot    *slot = bpa_slot_of(page, entries[i]);
		uint64		head = 0;

		memcpy(&head, pbt_slot_data(page, slot),
			   Min(pbt_slot_len(slot), (int) sizeof(uint64)));
		keys[i].head = pg_ntoh64(head);
		keys[i].off = entries[i];
	}
	sort_run_keys(keys, n, page);
	for (int i = 0; i < n; i++)
		entries[i] = keys[i].off;
}

/* sort_slots(slots, n, page): sorts copies of slots by their items */
#define ST_SORT sort_slots
#define ST_ELEMENT_TYPE PbtSlot
#define ST_COMPARE_ARG_TYPE char
#define ST_COMPARE(a, b, page) pbt_slot_cmp((page), (a), (b))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

static inline uint16
slot_offset(Page page, const PbtSlot *slot)
{
	return (uint16) ((const char *) slot - (const char *) page);
}

static void
route_log(Page page, uint16 *log_block)
{
	BpaHeader  *hdr = bpa_header(page);

	for (int i = 0; i < hdr->log_count; i++)
	{
		PbtSlot    *slot = &log_slots(page)[i];

		log_block[i] = route(page, pbt_slot_data(page, slot),
							 pbt_slot_len(slot));
	}
}

static int
logged_in(Page page, const uint16 *log_block, int b)
{
	int			n = 0;

	for (int i = 0; i < bpa_header(page)->log_count; i++)
		n += log_block[i] == b;
	return n;
}

/* block b's entries and its logged items, sorted; run->base set by caller */
static void
load_run(Page page, const uint16 *log_block, int b, BpaRun *run)
{
	BpaBlock   *blk = bpa_block(page, b);
	BpaHeader  *hdr = bpa_header(page);

	run->block = b;
	run->len = 0;
	for (int i = 0; i < blk->count; i++)
		run->entries[run->len++] = slot_offset(page, &block_slots(blk)[i]);
	for (int i = 0; i < hdr->log_count; i++)
	{
		if (log_block[i] == b)
			run->entries[run->len++] = slot_offset(page, &log_slots(page)[i]);
	}
	if (!(blk->flags & BPA_BLOCK_SORTED))
	{
		sort_run(page, run->entries, run->len);
		return;
	}
	/* a sorted block: only its few logged items are to be put in place */
	for (int i = blk->count; i < run->len; i++)
	{
		uint16		off = run->entries[i];
		int			j = i;

		while (j > 0 &&
			   pbt_slot_cmp(page, bpa_slot_of(page, run->entries[j - 1]),
							bpa_slot_of(page, off)) > 0)
		{
			run->entries[j] = run->entries[j - 1];
			j--;
		}
		run->entries[j] = off;
	}
}

/* the run holding position pos (0 <= pos < count) */
static void
locate(Page page, const uint16 *log_block, int pos, BpaRun *run)
{
	BpaHeader  *hdr = bpa_header(page);
	int			base = 0;

	for (int b = 0; b < hdr->nblocks; b++)
	{
		int			n = bpa_block(page, b)->count + logged_in(page, log_block, b);

		if (pos < base + n)
		{
			load_run(page, log_block, b, run);
			run->base = base;
			return;
		}
		base += n;
	}
	elog(ERROR, "pagebtree BPA layout: no item at position %d", pos);
}

/* the slot at ordered position pos */
static PbtSlot *
bpa_slot_at(Page page, int pos)
{
	uint16		log_block[BPA_MAX_CAP];
	BpaRun		run;
	BpaBlock   *first = bpa_block(page, 0);

	/*
	 * The first item (the insert fast path asks for it): while block 0 has
	 * entries, they and the log hold the least one, without routing.
	 */
	if (pos == 0 && first->count > 0)
	{
		PbtSlot    *slots = block_slots(first);
		PbtSlot    *least = &slots[0];

		if (!(first->flags & BPA_BLOCK_SORTED))
		{
			for (int i = 1; i < first->count; i++)
				if (pbt_slot_cmp(page, &slots[i], least) < 0)
					least = &slots[i];
		}
		for (int i = 0; i < bpa_header(page)->log_count; i++)
			if (pbt_slot_cmp(page, &log_slots(page)[i], least) < 0)
				least = &log_slots(page)[i];
		return least;
	}
	route_log(page, log_block);
	locate(page, log_block, pos, &run);
	return bpa_slot_of(page, run.entries[pos - run.base]);
}

static void
bpa_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	pbt_slot_item(page, bpa_slot_at(page, pos), bpa_prefix(page),
				  bpa_header(page)->prefix_len, item, buf->data, false);
}

/* the next stored slot of an unordered iteration: the log's, then each block's */
static PbtSlot *
next_stored(Page page, BpaIterState *s)
{
	BpaHeader  *hdr = bpa_header(page);

	s->idx++;
	while (s->idx >= (s->run.block < 0 ? hdr->log_count :
					  bpa_block(page, s->run.block)->count))
	{
		s->run.block++;
		s->idx = 0;
	}
	return s->run.block < 0 ? &log_slots(page)[s->idx] :
		&block_slots(bpa_block(page, s->run.block))[s->idx];
}

static void
bpa_iter_start(PbtIter *it)
{
	BpaIterState *s = (BpaIterState *) it->state.data;
	int			pos = it->pos + it->step;

	if (it->unordered)
	{
		s->run.block = -1;		/* the log */
		s->idx = -1;
		return;
	}

	route_log(it->page, s->log_block);
	locate(it->page, s->log_block, pos, &s->run);
	s->idx = pos - s->run.base - it->step;
}

/* an ordered iteration past its run: the next block that has items */
static pg_noinline void
next_run(PbtIter *it, BpaIterState *s)
{
	BpaRun	   *run = &s->run;

	/* the engine knows that one does */
	while (s->idx < 0 || s->idx >= run->len)
	{
		int			b = run->block + it->step;
		int			base = it->step > 0 ? run->base + run->len : run->base;

		load_run(it->page, s->log_block, b, run);
		run->base = it->step > 0 ? base : base - run->len;
		s->idx = it->step > 0 ? 0 : run->len - 1;
	}
}

static void
bpa_iter_next(PbtIter *it, PbtItem *item)
{
	BpaIterState *s = (BpaIterState *) it->state.data;
	PbtSlot    *slot;

	it->pos += it->step;
	if (it->unordered)
		slot = next_stored(it->page, s);
	else
	{
		s->idx += it->step;
		if (s->idx < 0 || s->idx >= s->run.len)
			next_run(it, s);
		slot = bpa_slot_of(it->page, s->run.entries[s->idx]);
	}
	pbt_slot_iter_item(it, slot, bpa_prefix(it->page),
					   bpa_header(it->page)->prefix_len, item);
}

/* first position whose item is >= key (see generic_binsearch) */
static int
bpa_search(PbtState *st, Page page, PbtSearchKey *key)
{
	BpaHeader  *hdr = bpa_header(page);
	int			plen = hdr->prefix_len;
	int			low = 1,
				high = hdr->nblocks;
	int			pos = 0;
	BpaBlock   *blk;
	PbtSearchKey rest;

	/* the prefix once; then the key's rest against the entries */
	if (plen > 0)
	{
		int			c = pbt_key_prefix_cmp(key, bpa_prefix(page), plen);

		if (c != 0)
			return c < 0 ? 0 : hdr->nitems;
		pbt_key_rest(key, plen, &rest);
		key = &rest;
	}

	/* the key's block: the last whose fence is below the key */
	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		blk = bpa_block(page, mid);
		if (pbt_compare(st, key, (char *) page + blk->fence_off,
						blk->fence_len & BPA_FENCE_LEN_MASK) > 0)
			low = mid + 1;
		else
			high = mid;
	}
	for (int b = 0; b < low - 1; b++)
		pos += bpa_block(page, b)->count;
	blk = bpa_block(page, low - 1);
	if (blk->flags & BPA_BLOCK_SORTED)
	{
		PbtSlot    *slots = block_slots(blk);
		int			lo = 0,
					hi = blk->count;

		while (lo < hi)
		{
			int			mid = lo + (hi - lo) / 2;

			if (pbt_compare(st, key, pbt_slot_data(page, &slots[mid]),
							pbt_slot_len(&slots[mid])) > 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		pos += lo;
	}
	else
	{
		for (int i = 0; i < blk->count; i++)
		{
			PbtSlot    *slot = &block_slots(blk)[i];

			pos += pbt_compare(st, key, pbt_slot_data(page, slot),
							   pbt_slot_len(slot)) > 0;
		}
	}
	for (int i = 0; i < hdr->log_count; i++)
	{
		PbtSlot    *slot = &log_slots(page)[i];

		pos += pbt_compare(st, key, pbt_slot_data(page, slot),
						   pbt_slot_len(slot)) > 0;
	}
	return pos;
}

/*
 * Do an entry and the key end alike?  Entries of one block are neighbouring
 * keys, which share their first bytes more often than their last (the last
 * 4, as one integer; the last byte of a shorter key), and this test before
 * the memcmp call spares most of the calls, which were most of a probe.
 */
static inline bool
same_tail(const char *entry, const char *key, int keylen)
{
	uint32		a;
	uint32		b;

	if (keylen < (int) sizeof(uint32))
		return keylen == 0 || entry[keylen - 1] == key[keylen - 1];
	memcpy(&a, entry + keylen - sizeof(uint32), sizeof(uint32));
	memcpy(&b, key + keylen - sizeof(uint32), sizeof(uint32));
	return a == b;
}

/* Collect the slots among n that hold key and a heap TID (see bpa_probe). */
static int
probe_slots(Page page, const PbtSlot *slots, int n, const char *key, int keylen,
			const char **tids, bool *dead, int found)
{
	for (int i = 0; i < n; i++)
	{
		const char *item = pbt_slot_data(page, &slots[i]);

		if (pbt_slot_len(&slots[i]) == keylen + PBT_TID_BYTES &&
			same_tail(item, key, keylen) && memcmp(item, key, keylen) == 0)
		{
			tids[found] = item + keylen;
			dead[found++] = pbt_slot_is_dead(&slots[i]);
		}
	}
	return found;
}

/*
 * The point lookups' equality probe.  The key's entries (the key and a heap
 * TID, so above the key itself) begin in the last block whose fence is <= the
 * key, and go on through the blocks whose fence holds the key; the log may
 * hold more.
 */
static int
bpa_probe(Page page, const char *key, int keylen, const char **tids, bool *dead)
{
	BpaHeader  *hdr = bpa_header(page);
	int			plen = hdr->prefix_len;
	int			first;
	int			n = 0;

	/* the prefix never reaches into a heap TID */
	if (!pbt_skip_prefix(&key, &keylen, bpa_prefix(page), plen))
		return 0;
	first = route(page, key, keylen);

	for (int b = first; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		if (b > first &&
			((blk->fence_len & BPA_FENCE_LEN_MASK) != keylen + PBT_TID_BYTES ||
			 memcmp((char *) page + blk->fence_off, key, keylen) != 0))
			break;
		n = probe_slots(page, block_slots(blk), blk->count, key, keylen,
						tids, dead, n);
	}
	n = probe_slots(page, log_slots(page), hdr->log_count, key, keylen,
					tids, dead, n);
	pbt_probe_sort(tids, dead, n);
	return n;
}

/* ---------------------------------------------------------------
 * Changes (no palloc: inserts run in critical sections, and in redo)
 * ---------------------------------------------------------------
 */

/*
 * Fill the empty page (its high key, if any, already set) with sorted
 * items, given as parts, after the prefix they share.
 */
static void
bpa_fill(Page page, const PbtPart *parts, int n)
{
	PageHeader	phdr = (PageHeader) page;
	BpaHeader  *hdr = bpa_header(page);
	int			q = pbt_parts_prefix(parts, n);
	int			nblocks = blocks_for(n, hdr->block_cap);
	int			next = 0;

	if (hdr->log_count != 0 || hdr->nblocks != 1 || bpa_block(page, 0)->count != 0)
		elog(ERROR, "pagebtree BPA layout: load into a page that is not empty");
	phdr->pd_lower = bpa_lower_for(n, hdr->log_cap, hdr->block_cap, q);
	if (phdr->pd_lower > phdr->pd_upper)
		elog(ERROR, "pagebtree BPA layout: %d items do not fit", n);
	hdr->prefix_len = q;
	hdr->nblocks = nblocks;
	hdr->nitems = n;
	/* the prefix, padded, and an empty log (whole bytes reach WAL) */
	memset(bpa_prefix(page), 0, blocks_start(hdr->log_cap, q) - BPA_PREFIX_START);
	if (n > 0)
		pbt_part_copy(&parts[0], 0, q, bpa_prefix(page));
	for (int b = 0; b < nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);
		int			end = (int) ((int64) n * (b + 1) / nblocks);

		start_block(page, blk, 0, 0);
		for (; next < end; next++)
		{
			int			len = pbt_part_len(&parts[next]) - q;
			int			off = phdr->pd_upper - len;
			PbtSlot    *slot = &block_slots(blk)[blk->count++];

			if (off < phdr->pd_lower)
				elog(ERROR, "pagebtree BPA layout: %d items do not fit", n);
			phdr->pd_upper = off;
			pbt_part_copy(&parts[next], q, pbt_part_len(&parts[next]),
						  (char *) page + off);
			slot->off = off;
			slot->len = len;
			if (blk->count == 1 && b > 0)
			{
				blk->fence_off = off;
				blk->fence_len = len;
			}
		}
	}
}

static void
bpa_load(Page page, PbtItem *items, int n)
{
	PbtPart		parts[PBT_MAX_ITEMS_PER_PAGE];

	bpa_fill(page, parts, pbt_items_as_parts(items, n, parts));
}

/* the first keep of the page's items in key order, as parts; returns how many */
static int
bpa_sorted_parts(Page page, int keep, PbtPart *parts)
{
	BpaHeader  *hdr = bpa_header(page);
	uint16		log_block[BPA_MAX_CAP];
	BpaRun		run;
	int			n = 0;

	route_log(page, log_block);
	for (int b = 0; b < hdr->nblocks && n < keep; b++)
	{
		load_run(page, log_block, b, &run);
		for (int i = 0; i < run.len && n < keep; i++)
		{
			parts[n++] = pbt_slot_part(page, bpa_slot_of(page, run.entries[i]),
									   bpa_prefix(page), hdr->prefix_len);
		}
	}
	return n;
}

/*
 * Reload the page with these sorted parts, which may point into old, a copy
 * of it; false (page unchanged) if they do not fit.
 */
static bool
bpa_reload(Page page, const PbtPart *parts, int n, Page old)
{
	BpaHeader  *hdr = bpa_header(old);
	int			q = pbt_parts_prefix(parts, n);

	return pbt_slots_rebuild(page, old, parts, n,
							 bpa_lower_for(n, hdr->log_cap, hdr->block_cap, q) +
							 pbt_parts_entry_bytes(parts, n, q), bpa_fill);
}

/*
 * Reload the page with its items and, if data is not NULL, one more;
 * false (page unchanged) if they do not fit.
 */
static bool
bpa_rebuild(Page page, const char *data, int len)
{
	PGAlignedBlock copy;
	PbtPart		parts[PBT_MAX_ITEMS_PER_PAGE];
	int			n;

	memcpy(copy.data, page, BLCKSZ);
	n = bpa_sorted_parts(copy.data, INT_MAX, parts);
	if (data)
		n = pbt_parts_add_item(parts, n, data, len);
	return bpa_reload(page, parts, n, copy.data);
}

/*
 * A leaf the bulk build has finished, filled by appends (no prefix, full
 * blocks): reload it with its items sorted, after their prefix, in blocks
 * 3/4 full if it fits so, which it does at the default fillfactor, so that
 * random inserts after the build take free slots instead of splitting
 * blocks; else leave it as it is.
 */
static void
bpa_finish_build(Page page)
{
	(void) bpa_rebuild(page, NULL, 0);
}

/*
 * Split block b, with the logged items in incoming, into nnew blocks in
 * place (the hole has room for the new ones).  The last block is cut into
 * full blocks and a remainder, others evenly.
 */
static void
split_block(Page page, int b, PbtSlot *incoming, int nin, int nnew)
{
	BpaHeader  *hdr = bpa_header(page);
	int			unit = unit_bytes(hdr->block_cap);
	BpaBlock   *blk = bpa_block(page, b);
	PbtSlot		sorted[2 * BPA_MAX_CAP];
	bool		last = b == hdr->nblocks - 1;
	int			m = 0;
	int			next = 0;
	char	   *after = (char *) bpa_block(page, b + 1);

	for (int i = 0; i < blk->count; i++)
		sorted[m++] = block_slots(blk)[i];
	for (int i = 0; i < nin; i++)
		sorted[m++] = incoming[i];
	sort_slots(sorted, m, page);

	/* move the later blocks up */
	memmove(after + (nnew - 1) * unit, after,
			(char *) page + ((PageHeader) page)->pd_lower - after);
	((PageHeader) page)->pd_lower += (nnew - 1) * unit;
	hdr->nblocks += nnew - 1;

	for (int k = 0; k < nnew; k++)
	{
		BpaBlock   *nb = bpa_block(page, b + k);
		int			end = last ? Min(m, (k + 1) * hdr->block_cap) :
			(int) ((int64) m * (k + 1) / nnew);

		/* the first keeps its fence, the others start at their first item */
		if (k == 0)
			start_block(page, nb, nb->fence_off, nb->fence_len);
		else
			start_block(page, nb, sorted[next].off, pbt_slot_len(&sorted[next]));
		for (; next < end; next++)
			block_slots(nb)[nb->count++] = sorted[next];
	}
}

/* do the n incoming items, in this order, come after block blk's last item? */
static bool
appends_in_order(Page page, BpaBlock *blk, const PbtSlot *incoming, int n)
{
	const PbtSlot *prev = blk->count > 0 ? &block_slots(blk)[blk->count - 1] : NULL;

	for (int i = 0; i < n; i++)
	{
		if (prev && pbt_slot_cmp(page, prev, &incoming[i]) > 0)
			return false;
		prev = &incoming[i];
	}
	return true;
}

/* blocks that block b's m entries become when it overflows */
static inline int
split_into(int m, int block_cap, bool last)
{
	if (last)
		return (m + block_cap - 1) / block_cap;
	return (m + block_fill(block_cap) - 1) / block_fill(block_cap);
}

/*
 * The log's positions grouped by the block they go to (log_block:
 * route_log's result), last block first and in log order within a block,
 * so that a flush visits only the blocks that take items and ascending
 * appends stay in order.
 */
static void
group_log(Page page, const uint16 *log_block, uint8 *order)
{
	for (int i = 0; i < bpa_header(page)->log_count; i++)
	{
		int			j = i;

		while (j > 0 && log_block[order[j - 1]] < log_block[i])
		{
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
}

/* the number of log positions from order[i] on that go to the same block */
static inline int
group_len(Page page, const uint16 *log_block, const uint8 *order, int i)
{
	int			len = 1;

	while (i + len < bpa_header(page)->log_count &&
		   log_block[order[i + len]] == log_block[order[i]])
		len++;
	return len;
}

/* blocks that flushing the log would add */
static int
flush_growth(Page page, const uint16 *log_block, const uint8 *order)
{
	BpaHeader  *hdr = bpa_header(page);
	int			extra = 0;

	for (int i = 0; i < hdr->log_count;)
	{
		int			b = log_block[order[i]];
		int			nin = group_len(page, log_block, order, i);
		int			m = bpa_block(page, b)->count + nin;

		if (m > hdr->block_cap)
			extra += split_into(m, hdr->block_cap, b == hdr->nblocks - 1) - 1;
		i += nin;
	}
	return extra;
}

/*
 * Move the logged items into their blocks, splitting blocks that overflow
 * if the hole has room for the new ones; false (page unchanged) if not.
 * Blocks are done from the last, so that splits do not move blocks still
 * to do.
 */
static bool
flush(Page page)
{
	BpaHeader  *hdr = bpa_header(page);
	uint16		log_block[BPA_MAX_CAP];
	uint8		order[BPA_MAX_CAP];

	route_log(page, log_block);
	group_log(page, log_block, order);
	if (((PageHeader) page)->pd_lower +
		flush_growth(page, log_block, order) * unit_bytes(hdr->block_cap) >
		((PageHeader) page)->pd_upper)
		return false;

	for (int i = 0; i < hdr->log_count;)
	{
		int			b = log_block[order[i]];
		BpaBlock   *blk = bpa_block(page, b);
		PbtSlot		incoming[BPA_MAX_CAP];
		int			nin = group_len(page, log_block, order, i);

		for (int k = 0; k < nin; k++)
			incoming[k] = log_slots(page)[order[i + k]];
		i += nin;
		if (blk->count + nin <= hdr->block_cap)
		{
			if (!appends_in_order(page, blk, incoming, nin))
				blk->flags &= ~BPA_BLOCK_SORTED;
			memcpy(&block_slots(blk)[blk->count], incoming, nin * sizeof(PbtSlot));
			blk->count += nin;
		}
		else
			split_block(page, b, incoming, nin,
						split_into(blk->count + nin, hdr->block_cap,
								   b == hdr->nblocks - 1));
	}
	memset(log_slots(page), 0, hdr->log_count * sizeof(PbtSlot));
	hdr->log_count = 0;
	return true;
}

/*
 * What reloading the page with a shorter prefix, the one the item shares
 * with every item here, needs beyond what the page uses now: the item
 * comes first or last, so that prefix is what it shares with the page's
 * prefix, but not into the shortest item's heap TID.
 */
static int
shrink_cost(Page page, const char *data, int len)
{
	BpaHeader  *hdr = bpa_header(page);
	int			plen = hdr->prefix_len;
	int			shortest = len;
	int			q;

	for (int i = 0; i < hdr->log_count; i++)
		shortest = Min(shortest, plen + pbt_slot_len(&log_slots(page)[i]));
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		for (int i = 0; i < blk->count; i++)
			shortest = Min(shortest, plen + pbt_slot_len(&block_slots(blk)[i]));
	}
	q = Max(0, Min(pbt_common_prefix(data, Min(len, plen), bpa_prefix(page), plen),
				   shortest - PBT_TID_BYTES));
	return Max(0, bpa_lower_for(hdr->nitems + 1, hdr->log_cap, hdr->block_cap, q) -
			   ((PageHeader) page)->pd_lower + hdr->nitems * (plen - q) + len - q);
}

/*
 * Ascending keys (serial ids, timestamps), the BPA's worst case through the
 * log: while the log is empty, an entry above every entry of the last block,
 * which is sorted, goes straight to that block and keeps it sorted, or, if
 * it is full, starts a new last block with the entry as its fence.  That is
 * what flushing it would do, without the log's slot, routing and flush.
 * Returns the bytes such an append takes, or -1 if the entry is not one.
 */
static inline int
append_need(Page page, const char *entry, int elen)
{
	BpaHeader  *hdr = bpa_header(page);
	BpaBlock   *last;
	const char *below;
	int			belowlen;

	if (hdr->log_count != 0)
		return -1;
	last = bpa_block(page, hdr->nblocks - 1);
	if (!(last->flags & BPA_BLOCK_SORTED))
		return -1;
	if (last->count > 0)
	{
		PbtSlot    *top = &block_slots(last)[last->count - 1];

		below = (char *) page + top->off;
		belowlen = pbt_slot_len(top);
	}
	else if (hdr->nblocks > 1)
	{
		below = (char *) page + last->fence_off;
		belowlen = last->fence_len & BPA_FENCE_LEN_MASK;
	}
	else
		return elen;			/* an empty page */
	if (pbt_bytes_cmp(below, belowlen, entry, elen) >= 0)
		return -1;
	return last->count < hdr->block_cap ? elen : elen + unit_bytes(hdr->block_cap);
}

/*
 * Room the insert needs.  The log is flushed by the insert that fills it,
 * if the hole has room for the blocks that adds; if not, the log stays full
 * and the next insert flushes it first.  If the hole takes the blocks that
 * flush adds and the item, that is all it needs.  Otherwise the insert
 * rebuilds the page, which needs what the rebuilt slot area adds; but a
 * rebuild only pays if it reclaims garbage (deleted items' bytes), so
 * without much of it the page is full and the engine splits it, instead of
 * rebuilding it again every few inserts until it is.
 */
static int
bpa_item_cost(Page page, const char *data, int len)
{
	BpaHeader  *hdr = bpa_header(page);
	PageHeader	phdr = (PageHeader) page;
	int			elen = len - hdr->prefix_len;
	int			need = elen;

	/* the item's prefix, before its heap TID */
	if (!pbt_has_prefix(data, len - PBT_TID_BYTES, bpa_prefix(page),
						hdr->prefix_len))
		return shrink_cost(page, data, len);
	need = append_need(page, data + hdr->prefix_len, elen);
	if (need >= 0 && phdr->pd_upper - phdr->pd_lower >= need)
		return need;
	need = elen;
	if (hdr->log_count == hdr->log_cap)
	{
		uint16		log_block[BPA_MAX_CAP];
		uint8		order[BPA_MAX_CAP];

		route_log(page, log_block);
		group_log(page, log_block, order);
		need += flush_growth(page, log_block, order) * unit_bytes(hdr->block_cap);
	}
	if (phdr->pd_upper - phdr->pd_lower >= need)
		return need;
	if (bpa_garbage(page) < BLCKSZ / 16)
		return PBT_USABLE_SPACE + 1;
	return elen + Max(0, bpa_lower_for(hdr->nitems + 1, hdr->log_cap, hdr->block_cap,
								   hdr->prefix_len) - phdr->pd_lower);
}

/* pos is ignored: the item goes to the log, whose order does not matter */
static bool
bpa_insert(Page page, int pos, const char *data, int len)
{
	BpaHeader  *hdr = bpa_header(page);
	PageHeader	phdr = (PageHeader) page;
	int			elen = len - hdr->prefix_len;
	int			need;
	PbtSlot    *slot;

	if (!pbt_has_prefix(data, len - PBT_TID_BYTES, bpa_prefix(page),
						hdr->prefix_len))
		return bpa_rebuild(page, data, len);
	need = append_need(page, data + hdr->prefix_len, elen);
	if (need >= 0 && phdr->pd_upper - phdr->pd_lower >= need)
	{
		BpaBlock   *last = bpa_block(page, hdr->nblocks - 1);

		if (last->count == hdr->block_cap)
		{
			/* a new last block, fenced by the entry written below */
			last = (BpaBlock *) ((char *) page + phdr->pd_lower);
			start_block(page, last, phdr->pd_upper - elen, elen);
			phdr->pd_lower += unit_bytes(hdr->block_cap);
			hdr->nblocks++;
		}
		slot = &block_slots(last)[last->count++];
	}
	else
	{
		if (hdr->log_count == hdr->log_cap && !flush(page))
			return bpa_rebuild(page, data, len);
		if (phdr->pd_upper - phdr->pd_lower < elen)
			return bpa_rebuild(page, data, len);
		slot = &log_slots(page)[hdr->log_count++];
	}
	phdr->pd_upper -= elen;
	memcpy((char *) page + phdr->pd_upper, data + hdr->prefix_len, elen);
	slot->off = phdr->pd_upper;
	slot->len = elen;
	hdr->nitems++;
	/* flush now, while the hole has room: the next insert need not route */
	if (hdr->log_count == hdr->log_cap)
		(void) flush(page);
	return true;
}

/* remove slot i of an array of n, keeping the others in their order */
static inline void
remove_slot(PbtSlot *slots, int i, int n)
{
	memmove(&slots[i], &slots[i + 1], (n - 1 - i) * sizeof(PbtSlot));
	memset(&slots[n - 1], 0, sizeof(PbtSlot));
}

static int
slot_addr_desc(const void *a, const void *b)
{
	PbtSlot    *x = *(PbtSlot *const *) a;
	PbtSlot    *y = *(PbtSlot *const *) b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void
bpa_delete(Page page, const int *positions, int n)
{
	BpaHeader  *hdr = bpa_header(page);
	PbtSlot    *victims[PBT_MAX_ITEMS_PER_PAGE];
	PbtIter		it;
	PbtItem		item;
	int			k = 0;

	if (n == 0)
		return;
	/* find them all, in one ordered pass, before anything moves */
	pbt_iter_start(&it, page, positions[0], true);
	while (k < n && pbt_iter_next(&it, &item))
	{
		BpaIterState *s = (BpaIterState *) it.state.data;

		if (it.pos == positions[k])
			victims[k++] = bpa_slot_of(page, s->run.entries[s->idx]);
	}
	if (k != n)
		elog(ERROR, "pagebtree BPA layout: no item at position %d", positions[k]);

	/*
	 * Remove from the highest address down: a removal moves only the slots
	 * above it in the same array, which no victim still to do can be among.
	 */
	qsort(victims, n, sizeof(PbtSlot *), slot_addr_desc);
	hdr->nitems -= n;
	for (k = 0; k < n; k++)
	{
		PbtSlot    *slot = victims[k];

		if (slot < log_slots(page) + hdr->log_cap)
			remove_slot(log_slots(page), slot - log_slots(page), hdr->log_count--);
		else
		{
			int			b = ((char *) slot - (char *) bpa_block(page, 0)) /
				unit_bytes(hdr->block_cap);
			BpaBlock   *blk = bpa_block(page, b);

			if (b > 0 && blk->fence_off == slot->off)
				blk->fence_len |= BPA_FENCE_ORPHAN;
			remove_slot(block_slots(blk), slot - block_slots(blk), blk->count--);
			/* one entry is in order: appends may use the block again */
			if (blk->count <= 1)
				blk->flags |= BPA_BLOCK_SORTED;
		}
	}
}

/*
 * After items were deleted in place: drop the trailing blocks that hold
 * nothing and are routed no logged item, and give the hole the item bytes
 * below the lowest one still referenced (the latest inserts lie lowest, so
 * cutting off the latest keys frees their bytes).  The freed bytes are
 * zeroed, as in a page that never held them.
 */
static void
shrink_to_live(Page page)
{
	BpaHeader  *hdr = bpa_header(page);
	PageHeader	phdr = (PageHeader) page;
	uint16		log_block[BPA_MAX_CAP];
	PbtItem		hikey;
	int			lowest = phdr->pd_special;

	route_log(page, log_block);
	while (hdr->nblocks > 1 && bpa_block(page, hdr->nblocks - 1)->count == 0 &&
		   logged_in(page, log_block, hdr->nblocks - 1) == 0)
	{
		hdr->nblocks--;
		phdr->pd_lower -= unit_bytes(hdr->block_cap);
		memset((char *) page + phdr->pd_lower, 0, unit_bytes(hdr->block_cap));
	}
	if (pbt_page_get_hikey(page, &hikey))
		lowest = hikey.data - (char *) page;
	for (int i = 0; i < hdr->log_count; i++)
		lowest = Min(lowest, log_slots(page)[i].off);
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		if (b > 0)
			lowest = Min(lowest, blk->fence_off);
		for (int i = 0; i < blk->count; i++)
			lowest = Min(lowest, block_slots(blk)[i].off);
	}
	if (lowest > phdr->pd_upper)
	{
		memset((char *) page + phdr->pd_upper, 0, lowest - phdr->pd_upper);
		phdr->pd_upper = lowest;
	}
}

/*
 * Keep the first n items (a split's left half).  A short tail (at most an
 * eighth: an appending split, ascending keys) is deleted in place, which
 * sorts only the blocks it is in and leaves the full, sorted blocks before
 * it as they are.  Otherwise the page is reloaded with the items, in blocks
 * with room for flushes and no garbage, if they fit so (the half of a
 * split at the median does); else the others are deleted in place.
 */
static void
bpa_truncate(Page page, int n)
{
	int			count = bpa_count(page);
	int			positions[PBT_MAX_ITEMS_PER_PAGE];

	if (n >= count)
		return;
	if ((count - n) * 8 > count)
	{
		PGAlignedBlock copy;
		PbtPart		parts[PBT_MAX_ITEMS_PER_PAGE];

		memcpy(copy.data, page, BLCKSZ);
		if (bpa_reload(page, parts, bpa_sorted_parts(copy.data, n, parts),
					   copy.data))
			return;
	}
	for (int i = n; i < count; i++)
		positions[i - n] = i;
	bpa_delete(page, positions, count - n);
	shrink_to_live(page);
}

static void
bpa_set_dead(Page page, int pos)
{
	pbt_slot_set_dead(bpa_slot_at(page, pos));
}

static bool
bpa_is_dead(Page page, int pos)
{
	return pbt_slot_is_dead(bpa_slot_at(page, pos));
}

static void
bpa_mask(Page page)
{
	BpaHeader  *hdr = bpa_header(page);

	pbt_slots_clear_dead(log_slots(page), hdr->log_count);
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		pbt_slots_clear_dead(block_slots(blk), blk->count);
	}
}

static const char *
bpa_check(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	BpaHeader  *hdr = bpa_header(page);
	int			n = hdr->log_count;

	if (hdr->log_cap < 4 || hdr->log_cap > BPA_MAX_CAP ||
		hdr->block_cap < 4 || hdr->block_cap > BPA_MAX_CAP ||
		hdr->log_count > hdr->log_cap || hdr->nblocks < 1 ||
		hdr->prefix_len > PBT_MAX_ITEM_SIZE ||
		phdr->pd_lower != blocks_start(hdr->log_cap, hdr->prefix_len) +
		hdr->nblocks * unit_bytes(hdr->block_cap) ||
		phdr->pd_lower > phdr->pd_upper)
		return "BPA header disagrees with the page's slot area";
	for (int i = 0; i < hdr->log_count; i++)
	{
		if (!pbt_slot_entry_in_bounds(page, &log_slots(page)[i]))
			return "BPA log item out of bounds";
	}
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);
		int			flen = blk->fence_len & BPA_FENCE_LEN_MASK;

		if (blk->count > hdr->block_cap)
			return "BPA block count exceeds its capacity";
		n += blk->count;
		if (b == 0 ? blk->fence_len != 0 :
			flen == 0 || blk->fence_off < phdr->pd_upper ||
			blk->fence_off + flen > phdr->pd_special)
			return "BPA block fence out of bounds";
		if (b > 1 && pbt_bytes_cmp((char *) page + bpa_block(page, b - 1)->fence_off,
								   bpa_block(page, b - 1)->fence_len & BPA_FENCE_LEN_MASK,
								   (char *) page + blk->fence_off, flen) >= 0)
			return "BPA block fences out of order";
		if (blk->flags & ~BPA_BLOCK_SORTED)
			return "BPA block has unknown flags";
		for (int i = 0; i < blk->count; i++)
		{
			PbtSlot    *slot = &block_slots(blk)[i];

			if (!pbt_slot_entry_in_bounds(page, slot))
				return "BPA block item out of bounds";
			if (route(page, pbt_slot_data(page, slot), pbt_slot_len(slot)) != b)
				return "BPA item outside its block's fences";
			if ((blk->flags & BPA_BLOCK_SORTED) && i > 0 &&
				pbt_slot_cmp(page, &block_slots(blk)[i - 1], slot) >= 0)
				return "BPA block flagged sorted is out of order";
		}
	}
	if (n != hdr->nitems)
		return "BPA item count disagrees with the log and blocks";
	return NULL;
}

const PbtLayout pbt_layout_bpa = {
	.name = "bpa",
	.tag = PBT_LAYOUT_BPA,
	.flags = PBT_LF_LEAF | PBT_LF_NORMALIZED | PBT_LF_APPEND_SPLIT,
	.init = bpa_init,
	.count = bpa_count,
	.get = bpa_get,
	.get_child = NULL,
	.set_child = NULL,
	.search = bpa_search,
	.insert = bpa_insert,
	.insert_anywhere = true,
	.load = bpa_load,
	.delete = bpa_delete,
	.truncate = bpa_truncate,
	.item_cost = bpa_item_cost,
	.space_needed = bpa_space_needed,
	.fits = bpa_fits,
	.free_space = bpa_free_space,
	.garbage = bpa_garbage,
	.set_dead = bpa_set_dead,
	.is_dead = bpa_is_dead,
	.mask = bpa_mask,
	.check = bpa_check,
	.iter_start = bpa_iter_start,
	.iter_next = bpa_iter_next,
	.probe = bpa_probe,
	.param = bpa_param,
	.finish_build = bpa_finish_build,
};
