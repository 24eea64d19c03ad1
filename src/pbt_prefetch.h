/*-------------------------------------------------------------------------
 *
 * pbt_prefetch.h
 *	  Prefetching the leaves a reader visits next (pbt_prefetch.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_PREFETCH_H
#define PBT_PREFETCH_H

#include "pagebtree.h"

/* the next block a reader will read, InvalidBlockNumber at the end */
typedef BlockNumber (*PbtNextBlock) (void *arg);

/* leaves in key order, from the downlinks of the level above */
#define PBT_LEAF_SOURCE_BATCH 64

typedef struct PbtLeafSource
{
	Relation	index;
	PbtState   *st;
	bool		backward;		/* right to left */
	BlockNumber parent;			/* level-1 page being listed */
	int			pos;			/* its next downlink (backward: INT_MAX =
								 * its last) */
	/* downlinks copied from it, one visit for many leaves */
	BlockNumber leaves[PBT_LEAF_SOURCE_BATCH];
	int			nleaves;
	int			next;
} PbtLeafSource;

/*
 * The leaves where the next elements of a scan's = ANY array land, from the
 * level above (pbt_array_source_next in pbt_scankey.c).
 */
typedef struct PbtArraySource
{
	int			next_elem;		/* the next element to locate */
	BlockNumber last;			/* the leaf listed last */
	StringInfoData keybuf;
	BlockNumber leaves[PBT_LEAF_SOURCE_BATCH];
	int			nleaves;
	int			next;
} PbtArraySource;

#define PBT_PREFETCH_MAX_DISTANCE 256

typedef struct PbtPrefetch
{
	Relation	index;
	uint32		group;			/* the delta area's, for side pages */
	int			distance;		/* blocks to keep requested ahead */
	PbtNextBlock next;
	void	   *arg;
	int			ahead;			/* requested and not yet reached */
	BlockNumber last_side;		/* the side page prefetched last */
	bool		done;
} PbtPrefetch;

extern void pbt_leaf_source_init(PbtLeafSource *src, Relation index,
								 PbtState *st, PbtSearchKey *key,
								 BlockNumber leaf, bool backward);
extern BlockNumber pbt_leaf_source_next(void *arg);
extern void pbt_prefetch_init(PbtPrefetch *pf, Relation index, PbtState *st,
							  int distance, PbtNextBlock next, void *arg);
extern void pbt_prefetch_advance(PbtPrefetch *pf);
extern int	pbt_prefetch_distance(Relation index, bool maintenance);

#endif							/* PBT_PREFETCH_H */
