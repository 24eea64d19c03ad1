/*-------------------------------------------------------------------------
 *
 * pbt_prefetch.c
 *	  Prefetching the leaves a reader will visit next, with PrefetchBuffer
 *	  (which needs no asynchronous I/O: the kernel reads ahead while the
 *	  reader works through the pages before).
 *
 * A leaf's right-link names only the next page, so the blocks ahead come
 * from the level above: a source walks the parent pages' downlinks left to
 * right (pbt_leaf_source_next), one parent page share-locked at a time.  The
 * prefetcher asks its source for the next block through a callback, so a
 * read stream (PostgreSQL 17 and later) is fed by the same sources
 * (pbt_readahead_*).
 * Everything here is a hint: a split or a deletion since the parent was
 * read makes a prefetch useless, never a read wrong.  Side pages of the
 * delta area are prefetched with the first leaf of their group.
 *
 * A read stream holds pins on the leaves ahead of its reader, and VACUUM's
 * cleanup lock on each leaf waits for every pin.  VACUUM itself reads
 * through one: it is the only one to take those cleanup locks, and its
 * pins ahead hold up nobody's share or exclusive lock.  So do a bitmap
 * scan, which reads all its leaves in one amgetbitmap call and ends its
 * stream before it returns, and a scan that keeps its leaf pinned
 * while it returns the leaf's tuples (index-only and non-MVCC scans, as
 * btree's do), where a cursor paused on a leaf holds VACUUM up anyway; see
 * read_leaf_ahead in pbt_readpage.c.  A plain MVCC scan holds no pin
 * between its batches, and a stream's pins ahead of a paused cursor would
 * stall VACUUM where btree's scan stalls nothing: so before 17 it keeps the
 * PrefetchBuffer window, which pins nothing, and from 17 on (with
 * effective_io_concurrency above 1) it reads the leaves ahead through a
 * read stream in stretches that it releases as soon as they are read
 * (load_stretch): no pin outlives the call.
 *
 *-------------------------------------------------------------------------
 */
#include "pbt_prefetch.h"

#include "pbt_delta.h"
#include "pbt_group.h"
#include "storage/bufmgr.h"
#include "utils/spccache.h"

/*
 * Start a source at the level-1 page that holds key (the last key the
 * reader saw; NULL: the leftmost level-1 page), after the downlink to
 * leaf (InvalidBlockNumber: from its first downlink), or, backward, before
 * it.  A tree of one level has no source: pbt_leaf_source_next returns
 * InvalidBlockNumber.
 */
void
pbt_leaf_source_init(PbtLeafSource *src, Relation index, PbtState *st,
					 PbtSearchKey *key, BlockNumber leaf, bool backward)
{
	Buffer		buf;
	Page		page;
	int			n;

	Assert(!backward || (key && leaf != InvalidBlockNumber));
	src->index = index;
	src->st = st;
	src->backward = backward;
	src->parent = InvalidBlockNumber;
	src->pos = 0;
	src->nleaves = src->next = 0;
	src->group_left = 0;
	buf = pbt_get_root(index, st, BUFFER_LOCK_SHARE);
	n = PbtPageGetOpaque(BufferGetPage(buf))->level;
	UnlockReleaseBuffer(buf);
	src->group_size = st->group_size;
	if (n == 0)
		return;					/* the root is a leaf (levels only grow) */
	if (key)
		pbt_free_stack(pbt_search(index, st, key, &buf, BUFFER_LOCK_SHARE, 1));
	else
		buf = pbt_get_endpoint(index, st, 1, false);
	page = BufferGetPage(buf);
	Assert(PbtPageGetOpaque(page)->level == 1);
	src->parent = BufferGetBlockNumber(buf);
	n = pbt_layout(page)->count(page);
	if (leaf != InvalidBlockNumber)
	{
		/*
		 * After (before) the leaf's downlink; if it is not there, from the
		 * next page on (the previous page's last downlink on)
		 */
		BlockNumber leaford = pbt_block_ordinal(st->delta_group, leaf);

		src->pos = backward ? -1 : n;
		for (int i = 0; i < n; i++)
		{
			BlockNumber child = pbt_page_child(page, i);
			/* the leaf's place in the group that starts at child, if any */
			int64		gpos = (int64) leaford -
				pbt_block_ordinal(st->delta_group, child);

			if (gpos == 0 || (gpos > 0 && gpos < src->group_size))
			{
				src->pos = backward ? i - 1 : i + 1;
				/* the rest of leaf's group first */
				if (src->group_size > 0)
				{
					src->group_next = pbt_group_block(st->delta_group, leaf,
													  backward ? -1 : 1);
					src->group_left = backward ? gpos :
						src->group_size - 1 - gpos;
				}
				break;
			}
		}
	}
	UnlockReleaseBuffer(buf);
}

/*
 * The next leaf in key order (backward: reverse order), as far as the
 * parents know; a PbtNextBlock.
 * Downlinks are copied a batch at a time.
 */
BlockNumber
pbt_leaf_source_next(void *arg)
{
	PbtLeafSource *src = (PbtLeafSource *) arg;
	BlockNumber leaf;

	/* a group's blocks, in the direction of the reader (holes too) */
	if (src->group_left > 0)
	{
		leaf = src->group_next;
		src->group_left--;
		src->group_next = pbt_group_block(src->st->delta_group, leaf,
										  src->backward ? -1 : 1);
		return leaf;
	}
	while (src->next == src->nleaves && src->parent != InvalidBlockNumber)
	{
		Buffer		buf = ReadBuffer(src->index, src->parent);
		Page		page;
		PbtPageOpaque opaque;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		opaque = PbtPageGetOpaque(page);
		src->nleaves = src->next = 0;
		if (!PbtIsTreePage(page) || opaque->level != 1)
			src->parent = InvalidBlockNumber;	/* recycled: give up */
		else if (!src->backward)
		{
			int			n = PbtIsDeleted(opaque) ? 0 : pbt_layout(page)->count(page);

			while (src->pos < n && src->nleaves < PBT_LEAF_SOURCE_BATCH)
				src->leaves[src->nleaves++] = pbt_page_child(page, src->pos++);
			if (src->pos >= n)
			{
				src->parent = opaque->next;
				src->pos = 0;
			}
		}
		else
		{
			int			n = PbtIsDeleted(opaque) ? 0 : pbt_layout(page)->count(page);

			/* (a left link may be stale: then the prefetches are useless) */
			src->pos = Min(src->pos, n - 1);
			while (src->pos >= 0 && src->nleaves < PBT_LEAF_SOURCE_BATCH)
				src->leaves[src->nleaves++] = pbt_page_child(page, src->pos--);
			if (src->pos < 0)
			{
				src->parent = opaque->prev;
				src->pos = INT_MAX;
			}
		}
		UnlockReleaseBuffer(buf);
	}
	if (src->next == src->nleaves)
		return InvalidBlockNumber;
	leaf = src->leaves[src->next++];
	if (src->group_size == 0)
		return leaf;
	/* a group's first block: the rest follow it (backward: its last first) */
	src->group_left = src->group_size;
	src->group_next = src->backward ?
		pbt_group_block(src->st->delta_group, leaf, src->group_size - 1) : leaf;
	return pbt_leaf_source_next(src);
}

/* A prefetcher keeping distance blocks from next requested ahead. */
void
pbt_prefetch_init(PbtPrefetch *pf, Relation index, PbtState *st,
				  int distance, PbtNextBlock next, void *arg)
{
	pf->index = index;
	pf->group = pbt_delta_group(index, st);
	pf->distance = Min(distance, PBT_PREFETCH_MAX_DISTANCE);
	pf->next = next;
	pf->arg = arg;
	pf->ahead = 0;
	pf->last_side = InvalidBlockNumber;
	pf->done = distance <= 0;
	pf->load = false;
}

/* the side page of the delta area that blkno's group uses, with its first leaf */
static inline void
prefetch_side_page(PbtPrefetch *pf, BlockNumber blkno)
{
	if (pf->group > 0 &&
		pbt_side_block(pf->group, blkno) != pf->last_side)
	{
		pf->last_side = pbt_side_block(pf->group, blkno);
		PrefetchBuffer(pf->index, MAIN_FORKNUM, pf->last_side);
	}
}

#ifdef PBT_HAVE_READ_STREAM
/* load_stretch's stream callback: the source's next leaves, distance of them */
static BlockNumber
stretch_next(ReadStream *stream, void *callback_private_data,
			 void *per_buffer_data)
{
	PbtPrefetch *pf = (PbtPrefetch *) callback_private_data;
	BlockNumber blkno;

	if (pf->ahead == pf->distance)
		return InvalidBlockNumber;
	blkno = pf->next(pf->arg);
	if (blkno == InvalidBlockNumber)
	{
		pf->done = true;
		return InvalidBlockNumber;
	}
	prefetch_side_page(pf, blkno);
	pf->ahead++;
	return blkno;
}

/*
 * Read the next distance leaves into shared buffers through a read stream
 * that starts at its full distance, so that their reads run together (on 18
 * as asynchronous I/O), and release each at once: the reader then finds
 * them in shared buffers, and no pin is left for VACUUM's cleanup lock to
 * wait on while the scan's cursor pauses.  The reader waits for the whole
 * stretch at its first leaf instead of working while the kernel reads.
 */
static int
load_stretch(PbtPrefetch *pf)
{
	ReadStream *stream = read_stream_begin_relation(READ_STREAM_FULL, NULL,
													pf->index, MAIN_FORKNUM,
													stretch_next, pf, 0);
	Buffer		buf;

	Assert(pf->ahead == 0);
	while ((buf = read_stream_next_buffer(stream, NULL)) != InvalidBuffer)
		ReleaseBuffer(buf);
	read_stream_end(stream);
	return pf->ahead;
}
#endif

/*
 * The reader moves on to its next leaf: keep distance blocks requested
 * beyond it (loading into shared buffers: load the next stretch when the
 * reader has reached the last leaf of the one before).  Returns the number
 * of leaves loaded into shared buffers (none with PrefetchBuffer).
 */
int
pbt_prefetch_advance(PbtPrefetch *pf)
{
	if (pf->ahead > 0)
		pf->ahead--;
#ifdef PBT_HAVE_READ_STREAM
	if (pf->load)
		return pf->ahead == 0 && !pf->done ? load_stretch(pf) : 0;
#endif
	while (!pf->done && pf->ahead < pf->distance)
	{
		BlockNumber blkno = pf->next(pf->arg);

		if (blkno == InvalidBlockNumber)
		{
			pf->done = true;
			break;
		}
		prefetch_side_page(pf, blkno);
		PrefetchBuffer(pf->index, MAIN_FORKNUM, blkno);
		pf->ahead++;
	}
	return 0;
}

#ifdef PBT_HAVE_READ_STREAM
/* position of blkno among the blocks the stream will return, or -1 */
static int
queued_position(PbtReadAhead *ra, BlockNumber blkno)
{
	for (int i = 0; i < ra->count; i++)
		if (ra->queued[(ra->head + i) % PBT_READAHEAD_RING] == blkno)
			return i;
	return -1;
}

/*
 * The read stream's callback: the source's next leaf, unless the stream
 * already has it queued or the reader holds it (a parent that split while
 * the source listed it lists some leaves twice).  So the stream never pins
 * a leaf twice, and never one that the reader has: VACUUM's cleanup lock
 * needs its backend's only pin.
 */
static BlockNumber
readahead_next(ReadStream *stream, void *callback_private_data,
			   void *per_buffer_data)
{
	PbtReadAhead *ra = (PbtReadAhead *) callback_private_data;

	for (;;)
	{
		BlockNumber blkno;

		/* more than the stream ever pins; end the look-ahead if it happens */
		if (ra->count == PBT_READAHEAD_RING)
			return InvalidBlockNumber;
		blkno = ra->pf.next(ra->pf.arg);
		if (blkno == InvalidBlockNumber)
			return InvalidBlockNumber;
		if (blkno == ra->held ||
			(BufferIsValid(ra->peeked) && BufferGetBlockNumber(ra->peeked) == blkno) ||
			queued_position(ra, blkno) >= 0)
			continue;
		prefetch_side_page(&ra->pf, blkno);
		ra->queued[(ra->head + ra->count++) % PBT_READAHEAD_RING] = blkno;
		return blkno;
	}
}

/* the stream's next buffer, the block at the head of the queue */
static Buffer
stream_next(PbtReadAhead *ra)
{
	Buffer		buf = read_stream_next_buffer(ra->stream, NULL);

	if (!BufferIsValid(buf))
	{
		ra->ended = true;
		return InvalidBuffer;
	}
	Assert(ra->count > 0 && ra->queued[ra->head] == BufferGetBlockNumber(buf));
	ra->head = (ra->head + 1) % PBT_READAHEAD_RING;
	ra->count--;
	return buf;
}
#endif

/*
 * The look-ahead of a pass in block order (VACUUM's): a read stream, whose
 * reads of consecutive blocks combine, from 17 on; before, none, since the
 * kernel reads ahead of a sequential pass by itself, as for btree's.
 */
int
pbt_sequential_distance(Relation index)
{
#ifdef PBT_HAVE_READ_STREAM
	return pbt_prefetch_distance(index, true);
#else
	return 0;
#endif
}

/*
 * Start reading leaves with look-ahead from next(arg), distance blocks
 * ahead (at most; 0: none), for VACUUM (maintenance) or a scan, with the
 * buffer access strategy given.  Its pins ahead last until
 * pbt_readahead_end: see the top of this file for who may hold them.
 */
void
pbt_readahead_begin(PbtReadAhead *ra, Relation index, PbtState *st,
					int distance, bool maintenance,
					BufferAccessStrategy strategy, PbtNextBlock next,
					void *arg)
{
	pbt_prefetch_init(&ra->pf, index, st, distance, next, arg);
	ra->strategy = strategy;
	ra->from_stream = ra->direct = 0;
#ifdef PBT_HAVE_READ_STREAM
	ra->stream = NULL;
	ra->ended = false;
	ra->peeked = InvalidBuffer;
	ra->held = InvalidBlockNumber;
	ra->head = ra->count = 0;
	/* the stream takes its distance from the same settings */
	if (distance > 0)
		ra->stream = read_stream_begin_relation(maintenance ?
												READ_STREAM_MAINTENANCE :
												READ_STREAM_DEFAULT,
												strategy, index, MAIN_FORKNUM,
												readahead_next, ra, 0);
#endif
}

/*
 * Leaf blkno, pinned, not locked; the caller has released the one before.
 * The reader follows the sibling links, the look-ahead lists the level
 * above's downlinks as they were: a leaf split since then is missing from
 * the look-ahead, a leaf deleted since then is in it and never asked for.  So
 * the stream's buffer is used when it holds blkno (the ones before it are
 * dropped), and blkno is read directly when the stream has not queued it,
 * keeping the stream's next buffer for the leaf after.
 */
Buffer
pbt_readahead_read(PbtReadAhead *ra, BlockNumber blkno)
{
#ifdef PBT_HAVE_READ_STREAM
	if (ra->stream != NULL)
	{
		int			pos;

		ra->held = InvalidBlockNumber;
		for (;;)
		{
			if (BufferIsValid(ra->peeked))
			{
				if (BufferGetBlockNumber(ra->peeked) == blkno)
				{
					Buffer		buf = ra->peeked;

					ra->peeked = InvalidBuffer;
					ra->held = blkno;
					ra->from_stream++;
					return buf;
				}
				if (queued_position(ra, blkno) < 0)
					break;		/* a leaf the stream does not have */
				/* the peeked leaf is behind the reader now */
				ReleaseBuffer(ra->peeked);
				ra->peeked = InvalidBuffer;
			}
			pos = queued_position(ra, blkno);
			if (pos >= 0)
			{
				/* drop the leaves the reader went past, take blkno's */
				while (pos-- > 0)
				{
					Buffer		skipped = stream_next(ra);

					if (BufferIsValid(skipped))
						ReleaseBuffer(skipped);
				}
				ra->peeked = stream_next(ra);
				Assert(BufferGetBlockNumber(ra->peeked) == blkno);
				continue;
			}
			if (ra->ended || ra->count > 0)
				break;			/* not queued: read it directly */
			/* nothing queued yet: let the stream look ahead */
			ra->peeked = stream_next(ra);
			if (!BufferIsValid(ra->peeked))
				break;
		}
		ra->held = blkno;
	}
#else
	pbt_prefetch_advance(&ra->pf);
#endif
	ra->direct++;
	return ReadBufferExtended(ra->pf.index, MAIN_FORKNUM, blkno, RBM_NORMAL,
							  ra->strategy);
}

/* Release what the look-ahead still holds. */
void
pbt_readahead_end(PbtReadAhead *ra)
{
#ifdef PBT_HAVE_READ_STREAM
	if (BufferIsValid(ra->peeked))
		ReleaseBuffer(ra->peeked);
	ra->peeked = InvalidBuffer;
	if (ra->stream != NULL)
		read_stream_end(ra->stream);
	ra->stream = NULL;
#endif
}

/* How far ahead a scan (maintenance: VACUUM) of the index prefetches. */
int
pbt_prefetch_distance(Relation index, bool maintenance)
{
	Oid			spc = index->rd_rel->reltablespace;

	return maintenance ? get_tablespace_maintenance_io_concurrency(spc) :
		get_tablespace_io_concurrency(spc);
}
