/*-------------------------------------------------------------------------
 *
 * pbt_layout_bpa.h
 *	  Declarations private to the BPA leaf layout: its page's structs and
 *	  geometry, shared by pbt_layout_bpa.c (the page format, reading in
 *	  order, search, probe, the verifier, the PbtLayout) and
 *	  pbt_layout_bpa_change.c (loads, inserts, flushes, deletions).
 *
 * The geometry helpers are static inline, since inserts and lookups go
 * through them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_LAYOUT_BPA_H
#define PBT_LAYOUT_BPA_H

#include "pagebtree.h"
#include "pbt_slots.h"

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

static inline int
bpa_count(Page page)
{
	return pbt_checked_count(bpa_header(page)->nitems);
}

/* the logged items that go to block b (log_block: bpa_route_log's result) */
static inline int
logged_in(Page page, const uint16 *log_block, int b)
{
	int			n = 0;

	for (int i = 0; i < bpa_header(page)->log_count; i++)
		n += log_block[i] == b;
	return n;
}

/* pbt_layout_bpa.c */
extern void bpa_route_log(Page page, uint16 *log_block);
extern const char *bpa_slots_problem(Page page);
extern void bpa_load_run(Page page, const uint16 *log_block, int b,
						 BpaRun *run);
extern PbtSlot *bpa_slot_at(Page page, int pos);
extern int	bpa_live_bytes(Page page);

/* inline, so that bpa_item_cost calls bpa_live_bytes itself */
static inline int
bpa_garbage(Page page)
{
	return pbt_slots_garbage(page, bpa_live_bytes(page));
}

/* pbt_layout_bpa_change.c */
extern void bpa_load(Page page, PbtItem *items, int n);
extern bool bpa_insert(Page page, int pos, const char *data, int len);
extern int	bpa_item_cost(Page page, const char *data, int len);
extern void bpa_delete(Page page, const int *positions, int n);
extern void bpa_truncate(Page page, int n);
extern void bpa_set_dead(Page page, int pos);
extern void bpa_reload_sorted(Page page);

#endif							/* PBT_LAYOUT_BPA_H */
