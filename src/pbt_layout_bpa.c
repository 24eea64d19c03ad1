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
 * This file has the reading side, the verifier and the PbtLayout; the
 * changes (loads, inserts, flushes, deletions) are in
 * pbt_layout_bpa_change.c, and pbt_layout_bpa.h has the structs and
 * geometry the two share.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_layout_bpa.h"
#include "pbt_parts.h"
#include "pbt_slots.h"

#include "port/pg_bitutils.h"

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

static void
bpa_describe(Page page, StringInfo out)
{
	BpaHeader  *hdr = bpa_header(page);

	appendStringInfo(out,
					 "bpa_log_size=%d bpa_block_size=%d blocks=%d prefix=%d ",
					 hdr->log_cap, hdr->block_cap, hdr->nblocks, hdr->prefix_len);
}

/* block b's fence against the len bytes at data */
static inline int
fence_cmp(Page page, int b, const char *data, int len)
{
	BpaBlock   *blk = bpa_block(page, b);

	return pbt_bytes_cmp((char *) page + blk->fence_off,
						 blk->fence_len & BPA_FENCE_LEN_MASK, data, len);
}

/* the block an item belongs to: the last whose fence is <= it */
static int
route(Page page, const char *data, int len)
{
	int			low = 1,
				high = bpa_header(page)->nblocks;

	/* ascending keys (serial ids, timestamps) go to the last block */
	if (high > 1 && fence_cmp(page, high - 1, data, len) <= 0)
		return high - 1;
	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (fence_cmp(page, mid, data, len) <= 0)
			low = mid + 1;
		else
			high = mid;
	}
	return low - 1;
}

/* item bytes still referenced: items, orphaned fences, the high key */
int
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
bpa_space_needed(const PbtItem *items, int n, int downlink)
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
	int			need = bpa_space_needed(items, n, 0);

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

static inline uint16
slot_offset(Page page, const PbtSlot *slot)
{
	return (uint16) ((const char *) slot - (const char *) page);
}

void
bpa_route_log(Page page, uint16 *log_block)
{
	BpaHeader  *hdr = bpa_header(page);

	for (int i = 0; i < hdr->log_count; i++)
	{
		PbtSlot    *slot = &log_slots(page)[i];

		log_block[i] = route(page, pbt_slot_data(page, slot),
							 pbt_slot_len(slot));
	}
}

/* block b's entries and its logged items, sorted; run->base set by caller */
void
bpa_load_run(Page page, const uint16 *log_block, int b, BpaRun *run)
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
			bpa_load_run(page, log_block, b, run);
			run->base = base;
			return;
		}
		base += n;
	}
	pbt_page_damaged("has fewer items than its count");
}

/* the slot at ordered position pos */
PbtSlot *
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
	bpa_route_log(page, log_block);
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

	bpa_route_log(it->page, s->log_block);
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

		bpa_load_run(it->page, s->log_block, b, run);
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
bpa_check_header(Page page)
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
	/* the blocks' headers: the items each holds, and its fence */
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);
		int			flen = blk->fence_len & BPA_FENCE_LEN_MASK;

		if (blk->count > hdr->block_cap)
			return "BPA block count exceeds its capacity";
		n += blk->count;
		if (b == 0 ? blk->fence_len != 0 :
			flen == 0 || !pbt_in_item_space(page, blk->fence_off, flen))
			return "BPA block fence out of bounds";
	}
	if (n != hdr->nitems)
		return "BPA item count disagrees with the log and blocks";
	return NULL;
}

/*
 * Every slot's entry within the item space (the header checked before):
 * for the verifier, and before an insert flushes the log or rebuilds the
 * page, reading every entry inside its critical section.
 */
const char *
bpa_slots_problem(Page page)
{
	BpaHeader  *hdr = bpa_header(page);

	for (int i = 0; i < hdr->log_count; i++)
	{
		if (!pbt_slot_entry_in_bounds(page, &log_slots(page)[i]))
			return "BPA log item out of bounds";
	}
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		for (int i = 0; i < blk->count; i++)
		{
			if (!pbt_slot_entry_in_bounds(page, &block_slots(blk)[i]))
				return "BPA block item out of bounds";
		}
	}
	return NULL;
}

static const char *
bpa_check(Page page)
{
	BpaHeader  *hdr = bpa_header(page);
	const char *problem = bpa_check_header(page);

	if (problem == NULL)
		problem = bpa_slots_problem(page);
	if (problem)
		return problem;
	for (int b = 2; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		if (fence_cmp(page, b - 1, (char *) page + blk->fence_off,
					  blk->fence_len & BPA_FENCE_LEN_MASK) >= 0)
			return "BPA block fences out of order";
	}
	for (int b = 0; b < hdr->nblocks; b++)
	{
		BpaBlock   *blk = bpa_block(page, b);

		if (blk->flags & ~BPA_BLOCK_SORTED)
			return "BPA block has unknown flags";
		for (int i = 0; i < blk->count; i++)
		{
			PbtSlot    *slot = &block_slots(blk)[i];
			const char *data = pbt_slot_data(page, slot);
			int			len = pbt_slot_len(slot);

			/* where route would send it, the fences being in order */
			if ((b > 0 && fence_cmp(page, b, data, len) > 0) ||
				(b + 1 < hdr->nblocks && fence_cmp(page, b + 1, data, len) <= 0))
				return "BPA item outside its block's fences";
			if ((blk->flags & BPA_BLOCK_SORTED) && i > 0 &&
				pbt_slot_cmp(page, &block_slots(blk)[i - 1], slot) >= 0)
				return "BPA block flagged sorted is out of order";
		}
	}
	return NULL;
}

const PbtLayout pbt_layout_bpa = {
	.name = "bpa",
	.tag = PBT_LAYOUT_BPA,
	.flags = PBT_LF_LEAF | PBT_LF_NORMALIZED | PBT_LF_APPEND_SPLIT,
	.init = bpa_init,
	.count = bpa_count,
	.get = bpa_get,
	.downlink = NULL,
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
	.compact = bpa_reload_sorted,
	.set_dead = bpa_set_dead,
	.is_dead = bpa_is_dead,
	.mask = bpa_mask,
	.check = bpa_check,
	.check_header = bpa_check_header,
	.iter_start = bpa_iter_start,
	.iter_next = bpa_iter_next,
	.probe = bpa_probe,
	.param = bpa_param,
	.describe = bpa_describe,
	.finish_build = bpa_reload_sorted,
};
