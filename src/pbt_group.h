/*-------------------------------------------------------------------------
 *
 * pbt_group.h
 *	  Leaf groups (HLN-tree huge leaves): N contiguous leaf blocks under one
 *	  downlink (pbt_group.c; ARCHITECTURE.md, "Leaf groups").
 *
 * A group is N blocks from start on (skipping the delta area's side pages:
 * pbt_group_block).  Its first nactive blocks are
 * ordinary leaves ("subnodes", flag PBT_GROUP) chained by their links and
 * high keys like any leaves; the rest are holes (PBT_GROUP | PBT_HOLE):
 * initialized, empty, unlinked.  The level above holds one downlink per
 * group, to its first subnode; a reader moves right from there by high
 * keys.  Holes become subnodes when the last subnode splits (no downlink
 * is added); nactive never decreases.  A rebalance spreads the group's
 * items over all N subnodes, moving items left as well as right, and a
 * group split spreads them over the group and a new one; both give every
 * subnode of the group a new epoch, so that a reader stepping from one
 * subnode to the next sees that the boundaries it relied on have moved.
 * VACUUM deletes a group all of whose subnodes are empty, whole, with the
 * ancestors that it empties: its blocks become deleted pages of no group
 * (delete_subtree in pbt_vacuum.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_GROUP_H
#define PBT_GROUP_H

#include "pagebtree.h"

#include "access/xlog.h"

#define PBT_MAX_GROUP_SIZE	16	/* a group split logs 2N + 1 pages in one
								 * record: block ids 0 .. XLR_MAX_BLOCK_ID */

/*
 * Hints (the HLN-tree's locality predictors): a group's downlink keeps,
 * after its child block number, PBT_GROUP_HINT_BYTES bytes that predict
 * which subnode holds a key:
 *	 byte 0		subnodes in use when they were made (0: no hints), and in
 *				its top three bits s
 *	 byte 1		p: the window the hints compare starts after p bytes and s
 *				bits of a key
 *	 byte 2		the group's epoch then (its low byte: newer hints win)
 *	 then, packed, the base (bits + 1 bits): the group's first entry's
 *	 window, and per subnode i = 1 .. N - 1 (bits bits each) its first
 *	 entry's window less the base.
 * A key's window is its bits + 1 bits that end bits after p bytes and s
 * bits (zero-padded); p and s are the most for which the group's last entry
 * is within 2^bits of its first, so the hints span at least half of their
 * values, wherever the group's keys fall against powers of two.  Hints need
 * no separator, so the groups at either end of a page (or of the index) are
 * predicted like the others.
 */
#define PBT_GROUP_HINT_BITS_AUTO (-1)
#define PBT_GROUP_HINT_BITS_FIXED 12	/* keys of fixed-width columns */
#define PBT_GROUP_HINT_BITS_STRING 32	/* keys with a text or bytea column */
#define PBT_GROUP_HINT_MAX_BYTES \
	(PBT_GROUP_HINT_HEADER + (PBT_MAX_GROUP_SIZE * 32 + 1 + 7) / 8)

static inline bool
pbt_is_subnode(PbtPageOpaque opaque)
{
	return (opaque->flags & PBT_GROUP) != 0;
}

/* the group's epoch, kept in safexid (read only on deleted pages) */
static inline uint64
pbt_group_epoch(PbtPageOpaque opaque)
{
	Assert(pbt_is_subnode(opaque) && !PbtIsDeleted(opaque));
	return U64FromFullTransactionId(opaque->safexid);
}

static inline void
pbt_set_group_epoch(PbtPageOpaque opaque, uint64 epoch)
{
	opaque->safexid = FullTransactionIdFromU64(epoch);
}

/*
 * A group's blocks are the first N from its start that are not side pages
 * of the delta area (g: the metapage's delta_group, 0 = no delta area), so
 * block arithmetic within a group counts the other blocks only: their
 * ordinals.  Block 1 and every (g+1)-th block after it are side pages.
 */
static inline BlockNumber
pbt_block_ordinal(uint32 g, BlockNumber blkno)
{
	return g == 0 || blkno == 0 ? blkno : blkno - (blkno - 1) / (g + 1) - 1;
}

static inline BlockNumber
pbt_ordinal_block(uint32 g, BlockNumber ordinal)
{
	return g == 0 || ordinal == 0 ? ordinal : ordinal + 1 + (ordinal - 1) / g;
}

/* the block of subnode j of the group that starts at start */
static inline BlockNumber
pbt_group_block(uint32 g, BlockNumber start, int j)
{
	return pbt_ordinal_block(g, pbt_block_ordinal(g, start) + j);
}

/* the first block of the group of the subnode at blkno */
static inline BlockNumber
pbt_group_start(uint32 g, PbtPageOpaque opaque, BlockNumber blkno)
{
	Assert(pbt_is_subnode(opaque) &&
		   pbt_block_ordinal(g, blkno) >= opaque->group_pos);
	return pbt_ordinal_block(g, pbt_block_ordinal(g, blkno) - opaque->group_pos);
}

/* is blkno (not a side page) in the group of the subnode at pageblk? */
static inline bool
pbt_in_group(uint32 g, PbtPageOpaque opaque, BlockNumber pageblk,
			 BlockNumber blkno)
{
	BlockNumber first;
	BlockNumber ordinal;

	if (!pbt_is_subnode(opaque) || blkno == InvalidBlockNumber)
		return false;
	first = pbt_block_ordinal(g, pageblk) - opaque->group_pos;
	ordinal = pbt_block_ordinal(g, blkno);
	return ordinal >= first && ordinal < first + opaque->group_size;
}

/*
 * A reader that read the subnode a (opaque ao, at ablk) and then locked
 * page b (bo): has a rebalance or group split moved a's boundaries since?
 * Then what it concluded from a's high key may be wrong on b.
 */
static inline bool
pbt_group_moved(uint32 g, PbtPageOpaque ao, BlockNumber ablk, uint64 aepoch,
				PbtPageOpaque bo, BlockNumber bblk)
{
	return pbt_is_subnode(bo) && pbt_in_group(g, ao, ablk, bblk) &&
		pbt_group_epoch(bo) != aepoch;
}

/*
 * A reader's last step between two subnodes of one group with different
 * epochs, after which it starts again (zeros: none; block 0 is never a
 * subnode).  A rebalance or group split gives every subnode of the group
 * the next epoch, and epochs only grow, so the same two subnodes found
 * again with the same two epochs mean that neither changed since: their
 * epochs disagree without a rebalance, and starting again would repeat
 * the step forever.
 */
typedef struct PbtEpochStep
{
	BlockNumber from;
	BlockNumber to;
	uint64		from_epoch;
	uint64		to_epoch;
	int			redo_waits;		/* in recovery: waits for redo so far */
} PbtEpochStep;

/*
 * In recovery, redo of a group rewrite (ours, or core's XLOG_FPI without
 * the resource manager) replays and releases one subnode at a time: the
 * same two epochs may simply not be replayed yet.  How many milliseconds
 * a reader waits for redo before it calls the disagreement damage.
 */
#define PBT_EPOCH_REDO_WAITS 1000

/*
 * Note a reader's step from subnode from to the subnode in to_buf, locked,
 * whose epochs differ, and release to_buf: the reader starts again.
 */
static inline void
pbt_note_epoch_step(Relation index, PbtEpochStep *last, BlockNumber from,
					uint64 from_epoch, Buffer to_buf)
{
	BlockNumber to = BufferGetBlockNumber(to_buf);
	uint64		to_epoch = pbt_group_epoch(PbtPageGetOpaque(BufferGetPage(to_buf)));
	bool		again = last->from == from && last->from_epoch == from_epoch &&
		last->to == to && last->to_epoch == to_epoch;

	last->from = from;
	last->from_epoch = from_epoch;
	last->to = to;
	last->to_epoch = to_epoch;
	UnlockReleaseBuffer(to_buf);
	if (again)
	{
		if (!RecoveryInProgress() || ++last->redo_waits > PBT_EPOCH_REDO_WAITS)
			pbt_page_error(index, to,
						   "a subnode's group epoch differs from its neighbour's");
		pg_usleep(1000L);		/* (with no lock: redo needs the subnode's) */
	}
}

/* pbt_group.c */
extern Buffer pbt_new_group(Relation index, PbtState *st, int n,
							uint64 epoch, bool log);
extern void pbt_init_subnode(Page page, PbtState *st, int pos, int n,
							 uint64 epoch);
extern Buffer pbt_group_hole_after(Relation index, PbtState *st, Buffer buf);
extern bool pbt_in_deleted_group(Relation index, PbtState *st,
								 BlockNumber blkno, Page page,
								 BlockNumber *known);
extern bool pbt_group_find_empty(Relation index, PbtState *st,
								 BlockNumber start, BlockNumber *left,
								 BlockNumber *right, StringInfo hikey);
extern BlockNumber pbt_group_lock_empty(Relation index, PbtState *st,
										BlockNumber start, BlockNumber left,
										BlockNumber right, Buffer *bufs,
										int *nbufs);
extern int	pbt_group_reclaim_orphan(Relation index, PbtState *st,
									 BlockNumber start);
extern bool pbt_group_overflow(Relation index, PbtState *st, Buffer buf,
							   PbtStack stack, PbtItem *items, int nitems);
extern void pbt_group_mark_key_start(PbtState *st, Page page,
									 const char *fence, int fencelen,
									 const PbtItem *first);
extern void pbt_group_make_hints(PbtState *st, Page *pages, int nused,
								 uint64 epoch, char *out);
extern int	pbt_group_hinted_subnode(PbtState *st, const char *hints,
									 const char *key, int keylen);
extern int	pbt_group_hints_nused(const char *hints);
extern const char *pbt_group_hints_problem(PbtState *st, const char *hints);
extern void pbt_group_subnode_added(Relation index, PbtState *st,
									PbtStack stack, BlockNumber start, int j,
									uint64 epoch, const PbtItem *left,
									const PbtItem *added);

/* pbt_search.c */
extern int	pbt_group_guess(PbtState *st, Page page, int pos, PbtSearchKey *key);
extern void pbt_group_lookup_counts(uint64 *descents, uint64 *subnode_reads,
									bool reset);

#endif							/* PBT_GROUP_H */
