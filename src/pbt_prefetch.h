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
	/* leaf groups: a downlink stands for its group's blocks, listed next */
	int			group_size;
	BlockNumber group_next;
	int			group_left;
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
	bool		load;			/* 17 on: read stretches into shared buffers
								 * (a plain MVCC scan's; see load_stretch) */
} PbtPrefetch;

/*
 * Reading leaves in key order with look-ahead (VACUUM's pass over the
 * leaves, a bitmap scan's leaves within one amgetbitmap call, from 17 on
 * the leaves of a scan that keeps its leaf pinned): on 17 and
 * later a read stream fed by the next-block callback, on 15 and 16 the
 * PrefetchBuffer window.  The reader still follows the sibling links and
 * asks for each leaf by number; the look-ahead's order is only what the
 * level above listed (see pbt_readahead_read).
 */
#define PBT_READAHEAD_RING 1024

typedef struct PbtReadAhead
{
	PbtPrefetch pf;				/* the next-block callback; before 17 also
								 * the window */
	BufferAccessStrategy strategy;
	uint64		from_stream;	/* leaves the read stream delivered */
	uint64		direct;			/* leaves read without it */
#ifdef PBT_HAVE_READ_STREAM
	ReadStream *stream;			/* NULL: no look-ahead */
	bool		ended;			/* the stream has returned its last buffer */
	Buffer		peeked;			/* taken from the stream, not yet asked for */
	BlockNumber held;			/* the leaf the reader has now */
	/* blocks the stream will return, in its order (a ring) */
	int			head;
	int			count;
	BlockNumber queued[PBT_READAHEAD_RING];
#endif
} PbtReadAhead;

extern void pbt_leaf_source_init(PbtLeafSource *src, Relation index,
								 PbtState *st, PbtSearchKey *key,
								 BlockNumber leaf, bool backward);
extern BlockNumber pbt_leaf_source_next(void *arg);
extern void pbt_prefetch_init(PbtPrefetch *pf, Relation index, PbtState *st,
							  int distance, PbtNextBlock next, void *arg);
extern int	pbt_prefetch_advance(PbtPrefetch *pf);
extern int	pbt_prefetch_distance(Relation index, bool maintenance);
extern int	pbt_sequential_distance(Relation index);
extern void pbt_readahead_begin(PbtReadAhead *ra, Relation index,
								PbtState *st, int distance, bool maintenance,
								BufferAccessStrategy strategy,
								PbtNextBlock next, void *arg);
extern Buffer pbt_readahead_read(PbtReadAhead *ra, BlockNumber blkno);
extern void pbt_readahead_end(PbtReadAhead *ra);

#endif							/* PBT_PREFETCH_H */
