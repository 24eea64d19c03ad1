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
 * read stream (PostgreSQL 17 and later) can be fed by the same sources.
 * Everything here is a hint: a split or a deletion since the parent was
 * read makes a prefetch useless, never a read wrong.  Side pages of the
 * delta area are prefetched with the first leaf of their group.
 *
 *-------------------------------------------------------------------------
 */
#include "pbt_prefetch.h"

#include "pbt_delta.h"
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
	buf = pbt_get_root(index, st, BUFFER_LOCK_SHARE);
	n = PbtPageGetOpaque(BufferGetPage(buf))->level;
	UnlockReleaseBuffer(buf);
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
		src->pos = backward ? -1 : n;
		for (int i = 0; i < n; i++)
			if (pbt_page_child(page, i) == leaf)
			{
				src->pos = backward ? i - 1 : i + 1;
				break;
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
	return src->next < src->nleaves ? src->leaves[src->next++] : InvalidBlockNumber;
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
}

/*
 * The reader moves on to its next leaf: keep distance blocks requested
 * beyond it.
 */
void
pbt_prefetch_advance(PbtPrefetch *pf)
{
	if (pf->ahead > 0)
		pf->ahead--;
	while (!pf->done && pf->ahead < pf->distance)
	{
		BlockNumber blkno = pf->next(pf->arg);

		if (blkno == InvalidBlockNumber)
		{
			pf->done = true;
			break;
		}
		if (pf->group > 0 &&
			pbt_side_block(pf->group, blkno) != pf->last_side)
		{
			pf->last_side = pbt_side_block(pf->group, blkno);
			PrefetchBuffer(pf->index, MAIN_FORKNUM, pf->last_side);
		}
		PrefetchBuffer(pf->index, MAIN_FORKNUM, blkno);
		pf->ahead++;
	}
}

/* How far ahead a scan (maintenance: VACUUM) of the index prefetches. */
int
pbt_prefetch_distance(Relation index, bool maintenance)
{
	Oid			spc = index->rd_rel->reltablespace;

	return maintenance ? get_tablespace_maintenance_io_concurrency(spc) :
		get_tablespace_io_concurrency(spc);
}
