/*-------------------------------------------------------------------------
 *
 * pbt_layout_bpa_change.c
 *	  The BPA leaf layout's changes: loading and reloading a page, inserts
 *	  (to the log, or appended to the last block), flushing the log into
 *	  the blocks and splitting blocks that overflow, deletion, truncation
 *	  and dead hints.
 *
 * The page format, and how inserts, flushes and reloads keep it, are
 * described in pbt_layout_bpa.c, which has the reading side and the
 * PbtLayout; pbt_layout_bpa.h has what the two files share.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_layout_bpa.h"
#include "pbt_parts.h"
#include "pbt_slots.h"

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

void
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

	bpa_route_log(page, log_block);
	for (int b = 0; b < hdr->nblocks && n < keep; b++)
	{
		bpa_load_run(page, log_block, b, &run);
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
 * Reload the page with its items sorted, after their prefix, without
 * garbage, in blocks 3/4 full if it fits so; else leave it as it is.  For
 * a leaf the bulk build has finished, filled by appends (no prefix, full
 * blocks), it fits at the default fillfactor, so that random inserts after
 * the build take free slots instead of splitting blocks; and for a leaf
 * whose deletions left garbage (compact).
 */
void
bpa_reload_sorted(Page page)
{
	(void) bpa_rebuild(page, NULL, 0);
}

/* sort_slots(slots, n, page): sorts copies of slots by their items */
#define ST_SORT sort_slots
#define ST_ELEMENT_TYPE PbtSlot
#define ST_COMPARE_ARG_TYPE char
#define ST_COMPARE(a, b, page) pbt_slot_cmp((page), (a), (b))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

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
 * bpa_route_log's result), last block first and in log order within a block,
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

	bpa_route_log(page, log_block);
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
int
bpa_item_cost(Page page, const char *data, int len)
{
	BpaHeader  *hdr = bpa_header(page);
	PageHeader	phdr = (PageHeader) page;
	int			elen = len - hdr->prefix_len;
	int			need;
	/* (the item's prefix is before its heap TID) */
	bool		has_prefix = pbt_has_prefix(data, len - PBT_TID_BYTES,
											bpa_prefix(page), hdr->prefix_len);

	/* an append, or an entry the log takes without filling */
	if (has_prefix)
	{
		need = append_need(page, data + hdr->prefix_len, elen);
		if (need >= 0 && phdr->pd_upper - phdr->pd_lower >= need)
			return need;
		if (hdr->log_count + 1 < hdr->log_cap &&
			phdr->pd_upper - phdr->pd_lower >= elen)
			return elen;
	}

	/*
	 * The insert flushes the log or rebuilds the page, reading every entry
	 * inside its critical section: their slots are checked here, before it.
	 */
	if (bpa_slots_problem(page) != NULL)
		pbt_page_damaged("has a BPA item out of bounds");
	if (!has_prefix)
		return shrink_cost(page, data, len);
	need = elen;
	if (hdr->log_count == hdr->log_cap)
	{
		uint16		log_block[BPA_MAX_CAP];
		uint8		order[BPA_MAX_CAP];

		bpa_route_log(page, log_block);
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
bool
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

void
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
		pbt_page_damaged("has fewer items than its count");

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

	bpa_route_log(page, log_block);
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
void
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

void
bpa_set_dead(Page page, int pos)
{
	pbt_slot_set_dead(bpa_slot_at(page, pos));
}
