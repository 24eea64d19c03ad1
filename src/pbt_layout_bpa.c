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
 *	PageHeader | BpaHeader | log slots [log_cap] |
 *	block 0: BpaBlock + slots [block_cap] | block 1 | ... | (pd_lower)
 *	... free ... | item bytes, high key | special
 *
 * A slot is the (offset, length) of whole item bytes, with the dead hint in
 * the length's top bit, as in the plain layout.  Block i holds the items
 * that are >= its fence (the bytes of the item that was its first when the
 * block was made) and < the next block's fence; block 0 has no fence.  The
 * fences, sorted, are the paper's header of block minimums.
 *
 * An insert appends the item to the log: one slot and the item's bytes, a
 * small WAL diff.  The insert that fills the log flushes it (or, if the
 * hole is too small for that, the next insert does, first):
 * each logged item moves to its block's free slots.  A block that would
 * overflow is split where it is (its entries sorted and cut into blocks,
 * the later blocks moved up): for the last block, into full blocks and a
 * remainder, so that ascending keys (serial ids, timestamps) leave full
 * blocks behind them.  If the hole cannot take the new blocks, or an item
 * its bytes, the page is rebuilt: all items sorted into blocks 3/4 full.
 * All of this is deterministic, so WAL redo of an insert repeats it.
 *
 * Ordered positions are ranks in key order.  A search counts: the blocks
 * below the key's block whole, then the items of that block and of the log
 * below the key.  Reading in order (iteration, get) sorts one block at a
 * time together with the logged items that belong to it, in backend-local
 * memory, under the caller's lock; the page itself is never sorted by a
 * reader.
 *
 * Geometry: log_cap and block_cap come from the page's layout parameter
 * (reloptions bpa_log_size and bpa_block_size, powers of two from 4 to 64);
 * space_needed, which does not know the page, plans for the largest.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "port/pg_bitutils.h"

typedef struct BpaHeader
{
	uint16		nblocks;
	uint16		log_count;
	uint8		log_cap;
	uint8		block_cap;
	uint16		nitems;			/* in the log and the blocks */
} BpaHeader;

typedef struct BpaBlock
{
	uint16		count;
	uint16		fence_off;
	uint16		fence_len;		/* BPA_FENCE_ORPHAN: its item was deleted */
	uint16		unused;
} BpaBlock;

#define BPA_FENCE_ORPHAN	0x8000
#define BPA_FENCE_LEN_MASK	0x7FFF

#define BPA_MAX_CAP			64
#define BPA_LOG_START		(SizeOfPageHeaderData + sizeof(BpaHeader))

/* a block's item run while reading in order: its entries, sorted */
typedef struct BpaRun
{
	int			block;
	int			base;			/* position of entries[0] */
	int			len;
	PbtSlot    *entries[2 * BPA_MAX_CAP];
} BpaRun;

/* iteration state, kept in the iterator's item buffer */
typedef struct BpaIterState
{
	uint16		log_block[BPA_MAX_CAP];	/* the block of each logged item */
	int			idx;			/* index in run.entries */
	BpaRun		run;
} BpaIterState;

StaticAssertDecl(sizeof(BpaIterState) <= sizeof(PbtItemBuf),
				 "BPA iteration state must fit in the iterator's buffer");

static inline BpaHeader *
bpa_header(Page page)
{
	return (BpaHeader *) ((char *) page + SizeOfPageHeaderData);
}

static inline PbtSlot *
log_slots(Page page)
{
	return (PbtSlot *) ((char *) page + BPA_LOG_START);
}

static inline int
unit_bytes(int block_cap)
{
	return sizeof(BpaBlock) + block_cap * sizeof(PbtSlot);
}

static inline int
blocks_start(int log_cap)
{
	return BPA_LOG_START + log_cap * sizeof(PbtSlot);
}

static inline BpaBlock *
bpa_block(Page page, int i)
{
	BpaHeader  *hdr = bpa_header(page);

	return (BpaBlock *) ((char *) page + blocks_start(hdr->log_cap) +
						 i * unit_bytes(hdr->block_cap));
}

static inline PbtSlot *
block_slots(BpaBlock *blk)
{
	return (PbtSlot *) (blk + 1);
}

static inline int
compare_slots(Page page, const PbtSlot *a, const PbtSlot *b)
{
	return pbt_bytes_cmp((char *) page + a->off, pbt_slot_len(a),
						 (char *) page + b->off, pbt_slot_len(b));
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

/* pd_lower of a page rebuilt with n items */
static inline int
lower_for(int n, int log_cap, int block_cap)
{
	return blocks_start(log_cap) + blocks_for(n, block_cap) * unit_bytes(block_cap);
}

/* layout parameter: log and block capacity as two 4-bit shifts, 0 = default */
uint8
pbt_bpa_param(int log_size, int block_size)
{
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
	memset(log_slots(page), 0, blocks_start(hdr->log_cap) - BPA_LOG_START);
	memset(bpa_block(page, 0), 0, unit_bytes(hdr->block_cap));
	((PageHeader) page)->pd_lower = blocks_start(hdr->log_cap) +
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
live_bytes(Page page)
{
	BpaHeader  *hdr = bpa_header(page);
	int			live = PbtPageGetOpaque(page)->hikey_len;

	for (int i = 0; i < hdr->log_count; i++)
		live += pbt_slot_len(&log_slots(page)[i]);
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		if (blk->fence_len & BPA_FENCE_ORPHAN)
			live += blk->fence_len & BPA_FENCE_LEN_MASK;
		for (int i = 0; i < blk->count; i++)
			live += pbt_slot_len(&block_slots(blk)[i]);
	}
	return live;
}

static int
bpa_free_space(Page page)
{
	PageHeader	phdr = (PageHeader) page;

	return phdr->pd_special - phdr->pd_lower - live_bytes(page);
}

static int
bpa_garbage(Page page)
{
	PageHeader	phdr = (PageHeader) page;

	return phdr->pd_special - phdr->pd_upper - live_bytes(page);
}

static int
bpa_space_needed(const PbtItem *items, int n, bool leaf)
{
	int			bytes = 0;
	int			slots = 0;

	for (int i = 0; i < n; i++)
		bytes += items[i].len;
	/* the largest slot area of any geometry */
	for (int cap = 4; cap <= BPA_MAX_CAP; cap *= 2)
		slots = Max(slots, lower_for(n, BPA_MAX_CAP, cap));
	return bytes + slots - SizeOfPageHeaderData;
}

/* ---------------------------------------------------------------
 * Reading in order
 * ---------------------------------------------------------------
 */

static int
run_cmp(const void *a, const void *b, void *arg)
{
	return compare_slots((Page) arg, *(PbtSlot *const *) a,
						 *(PbtSlot *const *) b);
}

static void
route_log(Page page, uint16 *log_block)
{
	BpaHeader  *hdr = bpa_header(page);

	for (int i = 0; i < hdr->log_count; i++)
	{
		PbtSlot    *slot = &log_slots(page)[i];

		log_block[i] = route(page, (char *) page + slot->off, pbt_slot_len(slot));
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
		run->entries[run->len++] = &block_slots(blk)[i];
	for (int i = 0; i < hdr->log_count; i++)
	{
		if (log_block[i] == b)
			run->entries[run->len++] = &log_slots(page)[i];
	}
	if (run->len > 1)
		qsort_arg(run->entries, run->len, sizeof(PbtSlot *), run_cmp, page);
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
slot_at(Page page, int pos)
{
	uint16		log_block[BPA_MAX_CAP];
	BpaRun		run;

	route_log(page, log_block);
	locate(page, log_block, pos, &run);
	return run.entries[pos - run.base];
}

static void
bpa_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	PbtSlot    *slot = slot_at(page, pos);

	item->data = (char *) page + slot->off;
	item->len = pbt_slot_len(slot);
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
	BpaIterState *s = (BpaIterState *) it->buf.data;
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

static void
bpa_iter_next(PbtIter *it, PbtItem *item)
{
	BpaIterState *s = (BpaIterState *) it->buf.data;
	BpaRun	   *run = &s->run;
	PbtSlot    *slot;

	it->pos += it->step;
	if (it->unordered)
	{
		slot = next_stored(it->page, s);
		item->data = (char *) it->page + slot->off;
		item->len = pbt_slot_len(slot);
		it->dead = (slot->len & PBT_SLOT_DEAD) != 0;
		return;
	}
	s->idx += it->step;
	/* past this run: the next block that has items (the engine knows one does) */
	while (s->idx < 0 || s->idx >= run->len)
	{
		int			b = run->block + it->step;
		int			base = it->step > 0 ? run->base + run->len : run->base;

		load_run(it->page, s->log_block, b, run);
		run->base = it->step > 0 ? base : base - run->len;
		s->idx = it->step > 0 ? 0 : run->len - 1;
	}
	slot = run->entries[s->idx];
	item->data = (char *) it->page + slot->off;
	item->len = pbt_slot_len(slot);
	it->dead = (slot->len & PBT_SLOT_DEAD) != 0;
}

/* first position whose item is >= key (see generic_binsearch) */
static int
bpa_search(PbtState *st, Page page, PbtSearchKey *key)
{
	BpaHeader  *hdr = bpa_header(page);
	int			low = 1,
				high = hdr->nblocks;
	int			pos = 0;
	BpaBlock   *blk;

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
	for (int i = 0; i < blk->count; i++)
	{
		PbtSlot    *slot = &block_slots(blk)[i];

		pos += pbt_compare(st, key, (char *) page + slot->off, pbt_slot_len(slot)) > 0;
	}
	for (int i = 0; i < hdr->log_count; i++)
	{
		PbtSlot    *slot = &log_slots(page)[i];

		pos += pbt_compare(st, key, (char *) page + slot->off, pbt_slot_len(slot)) > 0;
	}
	return pos;
}

/* ---------------------------------------------------------------
 * Changes (no palloc: inserts run in critical sections, and in redo)
 * ---------------------------------------------------------------
 */

/* Fill the empty page (its high key, if any, already set) with sorted items. */
static void
bpa_load(Page page, PbtItem *items, int n)
{
	PageHeader	phdr = (PageHeader) page;
	BpaHeader  *hdr = bpa_header(page);
	int			nblocks = blocks_for(n, hdr->block_cap);
	int			next = 0;

	if (hdr->log_count != 0 || hdr->nblocks != 1 || bpa_block(page, 0)->count != 0)
		elog(ERROR, "pagebtree BPA layout: load into a page that is not empty");
	phdr->pd_lower = lower_for(n, hdr->log_cap, hdr->block_cap);
	if (phdr->pd_lower > phdr->pd_upper)
		elog(ERROR, "pagebtree BPA layout: %d items do not fit", n);
	hdr->nblocks = nblocks;
	hdr->nitems = n;
	for (int b = 0; b < nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);
		int			end = (int) ((int64) n * (b + 1) / nblocks);

		memset(blk, 0, unit_bytes(hdr->block_cap));
		for (; next < end; next++)
		{
			int			off = phdr->pd_upper - items[next].len;
			PbtSlot    *slot = &block_slots(blk)[blk->count++];

			if (off < phdr->pd_lower)
				elog(ERROR, "pagebtree BPA layout: %d items do not fit", n);
			phdr->pd_upper = off;
			memcpy((char *) page + off, items[next].data, items[next].len);
			slot->off = off;
			slot->len = items[next].len;
			if (blk->count == 1 && b > 0)
			{
				blk->fence_off = off;
				blk->fence_len = items[next].len;
			}
		}
	}
}

/*
 * Rebuild the page with its items and, if data is not NULL, one more;
 * false (page unchanged) if they do not fit.
 */
static bool
rebuild(Page page, const char *data, int len)
{
	BpaHeader  *hdr = bpa_header(page);
	PbtItem		items[PBT_MAX_ITEMS_PER_PAGE];
	PbtItem		hikey;
	bool		has_hikey = pbt_page_get_hikey(page, &hikey);
	int			n = 0;

	/* what bpa_item_cost promises: the rebuilt slot area, items and high key */
	if (lower_for(bpa_count(page) + (data != NULL), hdr->log_cap, hdr->block_cap) +
		live_bytes(page) + (data ? len : 0) > ((PageHeader) page)->pd_special)
		return false;
	for (int i = 0; i < hdr->log_count; i++)
	{
		items[n].data = (char *) page + log_slots(page)[i].off;
		items[n++].len = pbt_slot_len(&log_slots(page)[i]);
	}
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		for (int i = 0; i < blk->count; i++)
		{
			items[n].data = (char *) page + block_slots(blk)[i].off;
			items[n++].len = pbt_slot_len(&block_slots(blk)[i]);
		}
	}
	if (data)
	{
		items[n].data = data;
		items[n++].len = len;
	}
	qsort(items, n, sizeof(PbtItem), pbt_item_cmp);
	pbt_page_rebuild(page, items, n, has_hikey ? &hikey : NULL);
	return true;
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
	PbtSlot		entries[2 * BPA_MAX_CAP];
	PbtSlot    *sorted[2 * BPA_MAX_CAP];
	bool		last = b == hdr->nblocks - 1;
	int			m = 0;
	int			next = 0;
	char	   *after = (char *) bpa_block(page, b + 1);

	for (int i = 0; i < blk->count; i++)
		entries[m++] = block_slots(blk)[i];
	for (int i = 0; i < nin; i++)
		entries[m++] = incoming[i];
	for (int i = 0; i < m; i++)
		sorted[i] = &entries[i];
	qsort_arg(sorted, m, sizeof(PbtSlot *), run_cmp, page);

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
		uint16		fence_off = nb->fence_off;
		uint16		fence_len = nb->fence_len;

		memset(nb, 0, unit);
		if (k == 0)
		{
			nb->fence_off = fence_off;
			nb->fence_len = fence_len;
		}
		else
		{
			nb->fence_off = sorted[next]->off;
			nb->fence_len = pbt_slot_len(sorted[next]);
		}
		for (; next < end; next++)
			block_slots(nb)[nb->count++] = *sorted[next];
	}
}

/* blocks that block b's m entries become when it overflows */
static inline int
split_into(int m, int block_cap, bool last)
{
	if (last)
		return (m + block_cap - 1) / block_cap;
	return (m + block_fill(block_cap) - 1) / block_fill(block_cap);
}

/* blocks that flushing the log would add (log_block: route_log's result) */
static int
flush_growth(Page page, const uint16 *log_block)
{
	BpaHeader  *hdr = bpa_header(page);
	int			extra = 0;

	for (int b = 0; b < hdr->nblocks; b++)
	{
		int			m = bpa_block(page, b)->count + logged_in(page, log_block, b);

		if (m > hdr->block_cap)
			extra += split_into(m, hdr->block_cap, b == hdr->nblocks - 1) - 1;
	}
	return extra;
}

/*
 * Move the logged items into their blocks, splitting blocks that overflow
 * if the hole has room for the new ones; false (page unchanged) if not.
 */
static bool
flush(Page page)
{
	BpaHeader  *hdr = bpa_header(page);
	uint16		log_block[BPA_MAX_CAP];

	route_log(page, log_block);
	if (((PageHeader) page)->pd_lower +
		flush_growth(page, log_block) * unit_bytes(hdr->block_cap) >
		((PageHeader) page)->pd_upper)
		return false;

	/* from the last block, so that splits do not move blocks still to do */
	for (int b = hdr->nblocks - 1; b >= 0; b--)
	{
		BpaBlock   *blk = bpa_block(page, b);
		PbtSlot		incoming[BPA_MAX_CAP];
		int			nin = 0;

		for (int i = 0; i < hdr->log_count; i++)
		{
			if (log_block[i] == b)
				incoming[nin++] = log_slots(page)[i];
		}
		if (nin == 0)
			continue;
		if (blk->count + nin <= hdr->block_cap)
		{
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
	int			need = len;

	if (hdr->log_count == hdr->log_cap)
	{
		uint16		log_block[BPA_MAX_CAP];

		route_log(page, log_block);
		need += flush_growth(page, log_block) * unit_bytes(hdr->block_cap);
	}
	if (phdr->pd_upper - phdr->pd_lower >= need)
		return need;
	if (bpa_garbage(page) < BLCKSZ / 16)
		return PBT_USABLE_SPACE + 1;
	return len + Max(0, lower_for(hdr->nitems + 1, hdr->log_cap, hdr->block_cap) -
					 phdr->pd_lower);
}

/* pos is ignored: the item goes to the log, whose order does not matter */
static bool
bpa_insert(Page page, int pos, const char *data, int len)
{
	BpaHeader  *hdr = bpa_header(page);
	PageHeader	phdr = (PageHeader) page;
	PbtSlot    *slot;

	if (hdr->log_count == hdr->log_cap && !flush(page))
		return rebuild(page, data, len);
	if (phdr->pd_upper - phdr->pd_lower < len)
		return rebuild(page, data, len);
	phdr->pd_upper -= len;
	memcpy((char *) page + phdr->pd_upper, data, len);
	slot = &log_slots(page)[hdr->log_count++];
	hdr->nitems++;
	slot->off = phdr->pd_upper;
	slot->len = len;
	/* flush now, while the hole has room: the next insert need not route */
	if (hdr->log_count == hdr->log_cap)
		(void) flush(page);
	return true;
}

/* remove slot i of an unordered array of n: the last one takes its place */
static inline void
remove_slot(PbtSlot *slots, int i, int n)
{
	slots[i] = slots[n - 1];
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
		BpaIterState *s = (BpaIterState *) it.buf.data;

		if (it.pos == positions[k])
			victims[k++] = s->run.entries[s->idx];
	}
	if (k != n)
		elog(ERROR, "pagebtree BPA layout: no item at position %d", positions[k]);

	/*
	 * Remove from the highest address down: a removal moves only the last
	 * slot of the same array, which no victim still to do can be past.
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
		}
	}
}

static void
bpa_truncate(Page page, int n)
{
	int			count = bpa_count(page);
	int			positions[PBT_MAX_ITEMS_PER_PAGE];

	for (int i = n; i < count; i++)
		positions[i - n] = i;
	bpa_delete(page, positions, count - n);
}

static void
bpa_set_dead(Page page, int pos)
{
	slot_at(page, pos)->len |= PBT_SLOT_DEAD;
}

static bool
bpa_is_dead(Page page, int pos)
{
	return (slot_at(page, pos)->len & PBT_SLOT_DEAD) != 0;
}

static void
bpa_mask(Page page)
{
	BpaHeader  *hdr = bpa_header(page);

	for (int i = 0; i < hdr->log_count; i++)
		log_slots(page)[i].len &= PBT_SLOT_LEN_MASK;
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		for (int i = 0; i < blk->count; i++)
			block_slots(blk)[i].len &= PBT_SLOT_LEN_MASK;
	}
}

static bool
slot_in_bounds(Page page, const PbtSlot *slot)
{
	PageHeader	phdr = (PageHeader) page;
	int			len = pbt_slot_len(slot);

	return len > 0 && len <= (int) PBT_MAX_ITEM_SIZE &&
		slot->off >= phdr->pd_upper && slot->off + len <= phdr->pd_special;
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
		phdr->pd_lower != blocks_start(hdr->log_cap) +
		hdr->nblocks * unit_bytes(hdr->block_cap) ||
		phdr->pd_lower > phdr->pd_upper)
		return "BPA header disagrees with the page's slot area";
	for (int i = 0; i < hdr->log_count; i++)
	{
		if (!slot_in_bounds(page, &log_slots(page)[i]))
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
		for (int i = 0; i < blk->count; i++)
		{
			PbtSlot    *slot = &block_slots(blk)[i];

			if (!slot_in_bounds(page, slot))
				return "BPA block item out of bounds";
			if (route(page, (char *) page + slot->off, pbt_slot_len(slot)) != b)
				return "BPA item outside its block's fences";
		}
	}
	if (n != hdr->nitems)
		return "BPA item count disagrees with the log and blocks";
	return NULL;
}

const PbtLayout pbt_layout_bpa = {
	.name = "bpa",
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
	.free_space = bpa_free_space,
	.garbage = bpa_garbage,
	.set_dead = bpa_set_dead,
	.is_dead = bpa_is_dead,
	.mask = bpa_mask,
	.check = bpa_check,
	.iter_start = bpa_iter_start,
	.iter_next = bpa_iter_next,
};
