/*-------------------------------------------------------------------------
 *
 * pbt_vacuum.c
 *	  VACUUM support: remove entries whose heap tuples are dead.
 *
 * The index is read in block order, as btvacuumscan reads it, holding a
 * cleanup lock on one leaf at a time (so no scan is paused on it with a
 * pin); see vacuum_blocks for why concurrent splits and rebalances cannot
 * move entries behind the pass.
 *
 * Empty leaves, and leaf groups all of whose subnodes are empty, are then
 * deleted in one atomic step each, with the ancestors they empty
 * (delete_subtree).
 * Deleted pages that no scan can reach any more go to the free space map
 * (recycle_page) when a later pass reads them.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_delta.h"
#include "pbt_group.h"
#include "pbt_prefetch.h"

#include "access/generic_xlog.h"
#include "commands/vacuum.h"
#include "nodes/pg_list.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/snapmgr.h"
#include "miscadmin.h"
#include "utils/rel.h"

/*
 * The page of the given level whose key range holds the separator sep (a
 * stored item): found by a descent, not locked.  The caller rechecks it
 * under its lock.  For a leaf or group to be deleted, sep is its high key,
 * and the page of level 1 holds the downlink whose separator it is; for a
 * page just split, sep is its new high key, and the page of the level
 * above holds the page's downlink (or moved it right).
 */
BlockNumber
pbt_parent_by_key(Relation index, PbtState *st, char *sep, int len,
				  uint32 level)
{
	PbtSearchKey key;
	Buffer		pbuf;
	BlockNumber pblk;

	memset(&key, 0, sizeof(key));
	if (st->normalized)
	{
		key.bytes = sep;
		key.len = len;
	}
	else
		pbt_key_from_item(st, sep, len, &key);
	pbt_free_stack(pbt_search(index, st, &key, &pbuf, BUFFER_LOCK_SHARE,
							  level));
	pblk = BufferGetBlockNumber(pbuf);
	UnlockReleaseBuffer(pbuf);
	return pblk;
}

/*
 * The position of the downlink to right right after the one to left on the
 * locked page parent, if it is a live page of the given level that has them
 * so; else -1 (the two hang under different parents, or moved).
 */
int
pbt_downlink_pair(Page parent, uint32 level, BlockNumber left, BlockNumber right)
{
	int			n;

	if (PbtIsDeleted(PbtPageGetOpaque(parent)) ||
		PbtPageGetOpaque(parent)->level != level)
		return -1;
	n = pbt_layout(parent)->count(parent);
	for (int i = 1; i < n; i++)
		if (pbt_page_child(parent, i) == right && pbt_page_child(parent, i - 1) == left)
			return i;
	return -1;
}

/*
 * A page to unlink and its neighbours on its level.  A deletion unlinks an
 * empty leaf, or an empty group (target is its first block), and above it
 * each ancestor whose only child is the page unlinked below it; the last
 * one's parent keeps other children.
 */
typedef struct UnlinkLevel
{
	BlockNumber left;			/* InvalidBlockNumber: leftmost of its level */
	BlockNumber target;
	BlockNumber right;
} UnlinkLevel;

/*
 * Can the page in tbuf, locked, be unlinked as level level of a deletion
 * whose level below is below (NULL for the leaf)?  Everything the deletion
 * found without locks is checked again here.
 */
static bool
page_unlinkable(Relation index, PbtState *st, uint32 level, const UnlinkLevel *u,
				const UnlinkLevel *below, Buffer tbuf)
{
	Page		tpage = BufferGetPage(tbuf);
	PbtPageOpaque to = PbtPageGetOpaque(tpage);

	if (!PbtIsTreePage(tpage) || to->prev != u->left || to->next != u->right ||
		to->level != level || PbtIsDeleted(to) || PbtIsRoot(to) ||
		PbtIsRightmost(to) || (to->flags & (PBT_INCOMPLETE_SPLIT | PBT_GROUP)))
		return false;
	if (below == NULL)
	{
		/* entries pending for the leaf keep it (its lock keeps them coming) */
		return pbt_layout(tpage)->count(tpage) == 0 &&
			!pbt_run_exists(index, st, tbuf);
	}
	return pbt_layout(tpage)->count(tpage) == 1 &&
		pbt_page_child(tpage, 0) == below->target;
}

/* Read and exclusively lock blkno as the next of bufs[*nbufs ..) */
static Buffer
lock_for_unlink(Relation index, BlockNumber blkno, Buffer *bufs, int *nbufs)
{
	Buffer		buf = ReadBuffer(index, blkno);

	pbt_lock_linked(index, buf, BUFFER_LOCK_EXCLUSIVE);
	bufs[(*nbufs)++] = buf;
	return buf;
}

/*
 * Lock level level of a deletion, as every writer locks a level, left to
 * right: the left sibling, the pages that go, the right sibling, adding
 * them to bufs[*nbufs ..); returns whether they can be unlinked.
 */
static bool
lock_level(Relation index, PbtState *st, uint32 level, const UnlinkLevel *u,
		   const UnlinkLevel *below, Buffer *bufs, int *nbufs)
{
	BlockNumber last = u->target;	/* the right sibling's prev */
	Buffer		rbuf;
	Page		rpage;
	PbtPageOpaque ro;

	if (u->left != InvalidBlockNumber)
	{
		Buffer		lbuf = lock_for_unlink(index, u->left, bufs, nbufs);
		PbtPageOpaque lo = PbtPageGetOpaque(BufferGetPage(lbuf));

		if (lo->next != u->target || (lo->flags & PBT_INCOMPLETE_SPLIT))
			return false;
	}
	if (level == 0 && st->group_size > 0)
	{
		last = pbt_group_lock_empty(index, st, u->target, u->left, u->right,
									bufs, nbufs);
		if (last == InvalidBlockNumber)
			return false;
	}
	else if (!page_unlinkable(index, st, level, u, below,
							  lock_for_unlink(index, u->target, bufs, nbufs)))
		return false;
	rbuf = lock_for_unlink(index, u->right, bufs, nbufs);
	rpage = BufferGetPage(rbuf);
	ro = PbtPageGetOpaque(rpage);
	if (!PbtIsTreePage(rpage) || ro->level != level)
		pbt_page_error(index, u->right, "a right-link leads to a page of another level");
	if (ro->prev != last)
		return false;
	/* what the page hands right goes to the right sibling's first child */
	return below == NULL ||
		(pbt_layout(rpage)->count(rpage) > 0 &&
		 pbt_page_child(rpage, 0) == below->right);
}

/*
 * Find, without locks, what deleting the empty leaf or group lblk unlinks:
 * fills chain[0 .. n) from the leaf up and *parent with the page that keeps
 * the downlinks to the top one and its right sibling; returns n, or 0 if
 * it cannot go (the caller rechecks everything under locks).
 */
static int
find_unlink_chain(Relation index, PbtState *st, BlockNumber lblk,
				  UnlinkLevel *chain, BlockNumber *parent)
{
	Buffer		buf;
	Page		page;
	PbtPageOpaque o;
	StringInfoData hikey;
	int			n = 0;

	/* a record holds the group, its siblings, 3 pages a level, the parent */
	int			maxlevels = st->group_size == 0 ? PBT_MAX_UNLINK_LEVELS :
		Min(PBT_MAX_UNLINK_LEVELS,
			1 + (PBT_MAX_UNLINK_BLOCKS - st->group_size - 3) / 3);

	initStringInfo(&hikey);
	chain[0].target = lblk;
	if (st->group_size > 0)
	{
		if (!pbt_group_find_empty(index, st, lblk, &chain[0].left,
								  &chain[0].right, &hikey))
		{
			pfree(hikey.data);
			return 0;
		}
	}
	else
	{
		PbtItem		hk;

		buf = ReadBuffer(index, lblk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		o = PbtPageGetOpaque(page);
		if (!PbtIsTreePage(page) || !PbtIsLeaf(o) || PbtIsDeleted(o) ||
			PbtIsRoot(o) || PbtIsRightmost(o) ||
			(o->flags & (PBT_INCOMPLETE_SPLIT | PBT_GROUP)) ||
			pbt_layout(page)->count(page) != 0)
		{
			UnlockReleaseBuffer(buf);
			pfree(hikey.data);
			return 0;
		}
		chain[0].left = o->prev;
		chain[0].right = o->next;
		pbt_page_get_hikey(page, &hk);
		appendBinaryStringInfo(&hikey, hk.data, hk.len);
		UnlockReleaseBuffer(buf);
	}

	/*
	 * The high key is the right sibling's separator, and also the high key
	 * of every ancestor of which the leaf is the last descendant: the page
	 * of the level above that holds it is the one with the downlink to the
	 * right sibling.  If that page has the downlink to ours just before it,
	 * it is the parent to keep.  Else, if it leads first to the right
	 * sibling, ours may be the only child of its left neighbour, which then
	 * goes too.
	 */
	for (n = 1; n <= maxlevels; n++)
	{
		UnlinkLevel *below = &chain[n - 1];
		BlockNumber pblk = pbt_parent_by_key(index, st, hikey.data,
											 hikey.len, n);

		buf = ReadBuffer(index, pblk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		o = PbtPageGetOpaque(page);
		if (pbt_downlink_pair(page, n, below->target, below->right) >= 0)
		{
			UnlockReleaseBuffer(buf);
			*parent = pblk;
			break;
		}
		if (n == maxlevels || PbtIsDeleted(o) || o->level != n ||
			pbt_page_child(page, 0) != below->right)
		{
			UnlockReleaseBuffer(buf);
			n = 0;
			break;
		}
		chain[n].target = o->prev;
		chain[n].right = pblk;
		UnlockReleaseBuffer(buf);
		if (chain[n].target == InvalidBlockNumber)
		{
			n = 0;
			break;
		}

		buf = ReadBuffer(index, chain[n].target);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		o = PbtPageGetOpaque(page);
		chain[n].left = o->prev;

		/*
		 * (A page of the root's level has no level above to search; one
		 * that is not the root and whose split is done has.)
		 */
		if (!PbtIsTreePage(page) || PbtIsDeleted(o) || PbtIsRoot(o) ||
			PbtIsRightmost(o) || (o->flags & PBT_INCOMPLETE_SPLIT) ||
			o->level != n || pbt_layout(page)->count(page) != 1 ||
			pbt_page_child(page, 0) != below->target)
		{
			UnlockReleaseBuffer(buf);
			n = 0;
			break;
		}
		UnlockReleaseBuffer(buf);
	}
	pfree(hikey.data);
	return n;
}

/*
 * Delete the empty leaf, or the empty group that starts at, lblk: its key
 * space goes to its right sibling R.  If it is the only child of its
 * parent, the parent goes too, and so on up (nbtree deletes such a subtree
 * in steps, through a half-dead leaf; here the whole change is one
 * record).  Pages are locked as every writer locks them, left to right on
 * a level and then the level above.  On each level, with L the pages that
 * go:
 *   L's left sibling: next = R;  R: prev = L's left sibling;  L: flagged
 *   deleted, linked to both, so that readers holding links to L move on.
 * On the level above the top one, the downlink to L takes R's downlink,
 * which goes, so R inherits the key space (and below it, the first page of
 * each level, that of the pages that go there), logged as one record
 * (pbt_log_unlink).  A group's blocks keep their place and size, so that a
 * new group can take them whole once no scan can reach them
 * (reuse_deleted_group in pbt_group.c).
 * Returns the pages deleted: 0 if any condition does not hold.
 */
static int
delete_subtree(Relation index, PbtState *st, BlockNumber lblk)
{
	UnlinkLevel chain[PBT_MAX_UNLINK_LEVELS];
	Buffer		bufs[PBT_MAX_UNLINK_BLOCKS];
	int			nbufs = 0;
	int			nlevels;
	BlockNumber pblk = InvalidBlockNumber;
	Buffer		pbuf;
	Page		ppage;
	char	   *newparent;
	int			rpos;
	int			nleaves = Max(st->group_size, 1);
	int			first;			/* the first leaf's position in bufs */
	xl_pbt_unlink xlrec;
	int			deleted = 0;

	nlevels = find_unlink_chain(index, st, lblk, chain, &pblk);
	if (nlevels == 0)
		return 0;

	first = chain[0].left != InvalidBlockNumber ? 1 : 0;
	for (int i = 0; i < nlevels; i++)
		if (!lock_level(index, st, i, &chain[i], i > 0 ? &chain[i - 1] : NULL,
						bufs, &nbufs))
			goto out;
	pbuf = lock_for_unlink(index, pblk, bufs, &nbufs);
	ppage = BufferGetPage(pbuf);
	rpos = pbt_downlink_pair(ppage, nlevels, chain[nlevels - 1].target,
							 chain[nlevels - 1].right);
	if (rpos < 0)
		goto out;				/* different parents, or moved: leave it */

	/* the new parent, built where nothing can fail in a critical section */
	newparent = palloc(BLCKSZ);
	memcpy(newparent, ppage, BLCKSZ);
	pbt_unlink_parent(newparent, rpos);
	xlrec.safexid = ReadNextFullTransactionId();
	xlrec.rpos = rpos;
	xlrec.nlevels = nlevels;
	xlrec.has_left = 0;
	xlrec.group_size = st->group_size;
	for (int i = 0; i < nlevels; i++)
		if (chain[i].left != InvalidBlockNumber)
			xlrec.has_left |= 1 << i;
	/* the leaves' key space goes to R, with its readers' predicate locks */
	for (int i = 0; i < nleaves; i++)
		PredicateLockPageCombine(index, BufferGetBlockNumber(bufs[first + i]),
								 chain[0].right);
	pbt_log_unlink(index, &xlrec, bufs, nbufs, newparent);
	if (nlevels > 1)
		elog(DEBUG2, "pagebtree: deletion of the leaf%s at block %u of index \"%s\" with %d of its ancestors",
			 st->group_size > 0 ? " group" : "", lblk,
			 RelationGetRelationName(index), nlevels - 1);
	else if (st->group_size > 0)
		elog(DEBUG2, "pagebtree: deletion of the leaf group at block %u of index \"%s\"",
			 lblk, RelationGetRelationName(index));
	pfree(newparent);
	PBT_CHECK_PAGE(index, ppage, pblk);
	deleted = nleaves + nlevels - 1;

out:
	for (int i = nbufs - 1; i >= 0; i--)
		UnlockReleaseBuffer(bufs[i]);
	return deleted;
}

/*
 * Remove the dead entries of the leaf in buf, cleanup-locked (without a
 * callback: locked, to count its entries), and its pending entries in the
 * delta area; add the live ones to *live.  Returns the entries the leaf
 * has left, pending ones included.
 */
static int
vacuum_leaf(Relation index, PbtState *st, Buffer buf,
			IndexBulkDeleteResult *stats, IndexBulkDeleteCallback callback,
			void *callback_state, double *live)
{
	Page		page = BufferGetPage(buf);
	const PbtLayout *layout = pbt_layout_checked(page);
	int			n = layout->count(page);
	int			deletable[PBT_MAX_ITEMS_PER_PAGE];
	int			ndel = 0;
	int			pending = 0;

	if (callback)
	{
		PbtIter		it;
		PbtItem		item;

		pbt_iter_start(&it, page, 0, true);
		while (pbt_iter_next(&it, &item))
		{
			ItemPointerData tid;

			pbt_item_get_tid(st, item.data, item.len, &tid);
			pbt_check_heap_tid(index, BufferGetBlockNumber(buf), &tid,
							   MaxOffsetNumber);
			if (callback(&tid, callback_state))
				deletable[ndel++] = it.pos;
		}
	}
	Assert(ndel <= n);
	if (ndel > 0)
	{
		/* the cleanup lock: no scan is paused on this page's entries */
		Assert(pbt_buffer_locked(buf, LW_EXCLUSIVE));
		/* heap pruning already resolved conflicts with standby queries */
		pbt_log_delete(index, buf, deletable, ndel, InvalidTransactionId, true);
		PBT_CHECK_PAGE(index, page, BufferGetBlockNumber(buf));
		stats->tuples_removed += ndel;
	}
	*live += n - ndel;
	/* the leaf's pending entries: dead ones dropped, others folded */
	if (pbt_delta_group(index, st) > 0)
		pending = pbt_run_vacuum(index, st, buf, callback, callback_state,
								 &stats->tuples_removed, live);
	/* a fold can convert the leaf (dense, semidense, posting to heads) */
	return pbt_layout(page)->count(page) + pending;
}

/*
 * Delete the empty leaves (or groups, by their first block) listed.  A
 * parent's last leaf can go only with the parent, once its other leaves
 * have gone: those that could not go are tried again while a round
 * deletes something, for as many rounds as a deletion has levels.
 */
static void
delete_empty(Relation index, PbtState *st, IndexBulkDeleteResult *stats,
			 List *empty)
{
	for (int round = 0; empty != NIL && round < PBT_MAX_UNLINK_LEVELS; round++)
	{
		List	   *kept = NIL;
		bool		progress = false;
		ListCell   *lc;

		foreach(lc, empty)
		{
			BlockNumber blk = (BlockNumber) lfirst_int(lc);
			int			ndeleted;

			pbt_vacuum_delay_point();
			ndeleted = delete_subtree(index, st, blk);
			stats->pages_newly_deleted += ndeleted;
			stats->pages_deleted += ndeleted;
			if (ndeleted == 0)
				kept = lappend_int(kept, (int) blk);
			progress |= ndeleted > 0;
		}
		list_free(empty);
		empty = progress ? kept : NIL;
		if (!progress)
			list_free(kept);
	}
	list_free(empty);
}

/*
 * The index's length.  As btvacuumscan: an extender holds the extension
 * lock until it has locked its new page, so every block counted here is
 * either initialized or still locked by its extender, and is zero only if
 * that extender gave it up.
 */
static BlockNumber
index_blocks(Relation index)
{
	bool		needlock = !RELATION_IS_LOCAL(index);
	BlockNumber nblocks;

	if (needlock)
		LockRelationForExtension(index, ExclusiveLock);
	nblocks = RelationGetNumberOfBlocks(index);
	if (needlock)
		UnlockRelationForExtension(index, ExclusiveLock);
	return nblocks;
}

/*
 * Count a deleted or all-zero page, and hand it to the free space map if no
 * scan can still reach it.  A scan that could hold a link to a page deleted
 * at safexid runs in a transaction older than safexid.  All-zero pages are
 * free too: an extension whose page a crash or an error left uninitialized
 * (no link can lead to it), except side pages of the delta area, which stay
 * zero until their first run.
 */
static void
recycle_page(Relation index, uint32 group, BlockNumber blkno, Page page,
			 IndexBulkDeleteResult *stats)
{
	if (PageIsNew(page) ? !pbt_is_side_block(group, blkno) :
		PbtIsDeleted(PbtPageGetOpaque(page)))
	{
		stats->pages_deleted++;
		if (PageIsNew(page) ||
			GlobalVisCheckRemovableFullXid(NULL, PbtPageGetOpaque(page)->safexid))
		{
			RecordFreeIndexPage(index, blkno);
			stats->pages_free++;
		}
	}
}

typedef struct BlockRange
{
	BlockNumber next;
	BlockNumber end;
} BlockRange;

static BlockNumber
next_block(void *arg)
{
	BlockRange *range = arg;

	return range->next < range->end ? range->next++ : InvalidBlockNumber;
}

/*
 * The leaf group the pass is in: its first block, its epoch when the pass
 * read that block, the live entries counted before it, and whether its
 * subnodes read so far are all empty.
 */
typedef struct GroupPass
{
	BlockNumber start;			/* InvalidBlockNumber: none */
	uint64		epoch;
	double		live_before;
	bool		empty;
} GroupPass;

/*
 * The pass finds a subnode's group, and reclaims or deletes it, by the
 * subnode's special space: damage there must not send it to other blocks.
 */
static void
check_subnode(Relation index, PbtState *st, uint32 delta_group, Page page,
			  BlockNumber blkno)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	const char *problem = pbt_special_problem(page);

	if (problem == NULL && opaque->group_size != st->group_size)
		problem = "a subnode's group size differs from the index's";
	if (problem == NULL &&
		opaque->group_pos >= pbt_block_ordinal(delta_group, blkno))
		problem = "a leaf group would start at or before the metapage";
	if (problem != NULL)
		pbt_page_error(index, blkno, problem);
}

/*
 * VACUUM's pass over the index: every block in order, as btvacuumscan
 * reads them, which is a sequential read however the leaves were
 * allocated.  It cleans the leaves, hands deleted and zero pages to the
 * free space map (recycle_page) and reclaims groups of holes whose split
 * never came (pbt_group_reclaim_orphan).
 *
 * A concurrent split moves entries from its page to a new right sibling
 * (a group split, to a new group).  If that is a block the pass has gone
 * by, the entries would escape it; so while the pass runs, pbt_set_vacuum_scan
 * makes splits extend the index instead of reusing pages, and the pass
 * reads on to the index's end as it grows.  A split that took pages from
 * the free space map before had them locked when it found the flag clear,
 * so the pass reads them, and the page that split, only once the split is
 * done.  A rebalance (or group split) also moves entries left, into a
 * group's subnodes behind the pass; it gives the group a new epoch, so a
 * pass that meets a subnode of another epoch than its group's first reads
 * the group again.  Holes come after a group's subnodes in use, so when
 * the pass reads one, the subnodes whose entries a rebalance could move
 * are behind it.
 */
static void
vacuum_blocks(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			  IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	PbtState   *st = pbt_get_state(index);
	uint32		delta_group = pbt_delta_group(index, st);
	BlockRange	range;
	PbtReadAhead *ra = palloc(sizeof(PbtReadAhead));
	double		live = 0;
	List	   *empty = NIL;
	GroupPass	group = {InvalidBlockNumber};
	PbtEpochStep last_restart = {0};

	if (callback)
		pbt_set_vacuum_scan(index, true);
	range.next = PBT_METAPAGE_BLKNO + 1;
	range.end = index_blocks(index);
	pbt_readahead_begin(ra, index, st, pbt_sequential_distance(index), true,
						info->strategy, next_block, &range);
	stats->pages_deleted = 0;
	stats->pages_free = 0;
	for (BlockNumber blkno = range.next;; blkno++)
	{
		Buffer		buf;
		Page		page;
		PbtPageOpaque opaque;
		int			left;

		if (blkno >= range.end)
		{
			range.end = index_blocks(index);
			if (blkno >= range.end)
				break;
		}
		pbt_vacuum_delay_point();
		buf = pbt_readahead_read(ra, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		opaque = PbtPageGetOpaque(page);
		if (PbtIsTreePage(page) && pbt_is_subnode(opaque))
		{
			check_subnode(index, st, delta_group, page, blkno);
			if ((opaque->flags & PBT_HOLE) && opaque->group_pos == 0)
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				pbt_group_reclaim_orphan(index, st, blkno);
				LockBuffer(buf, BUFFER_LOCK_SHARE);
			}
		}
		if (PageIsNew(page) || (PbtIsTreePage(page) && PbtIsDeleted(opaque)))
			recycle_page(index, delta_group, blkno, page, stats);
		else if (PbtIsTreePage(page) && PbtIsLeaf(opaque) &&
				 !(opaque->flags & PBT_HOLE))
		{
			/* a cleanup lock, or one that folds runs */
			if (callback || delta_group > 0)
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				if (callback)
					LockBufferForCleanup(buf);
				else
					LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			}
			/* only VACUUM deletes leaves, and none turns inner or a hole */
			Assert(PbtIsLeaf(opaque) && !PbtIsDeleted(opaque) &&
				   !(opaque->flags & PBT_HOLE));
			if (pbt_is_subnode(opaque))
			{
				BlockNumber start = pbt_group_start(delta_group, opaque, blkno);

				if (opaque->group_pos == 0 || start != group.start)
				{
					group.start = start;
					group.epoch = pbt_group_epoch(opaque);
					group.live_before = live;
					group.empty = true;
				}
				else if (pbt_group_epoch(opaque) != group.epoch)
				{
					/* entries moved: read the group again from its start */
					elog(DEBUG2, "pagebtree: VACUUM of \"%s\" reads the leaf group at block %u again",
						 RelationGetRelationName(index), group.start);
					pbt_note_epoch_step(index, &last_restart, group.start,
										group.epoch, buf);
					blkno = group.start - 1;
					live = group.live_before;
					group.start = InvalidBlockNumber;
					continue;
				}
			}
			left = vacuum_leaf(index, st, buf, stats, callback, callback_state,
							   &live);
			if (!pbt_is_subnode(opaque))
			{
				if (left == 0 && !PbtIsRightmost(opaque))
					empty = lappend_int(empty, (int) blkno);
			}
			else
			{
				/* a group all of whose subnodes are empty, from its last one */
				group.empty &= left == 0;
				if (group.empty && !PbtIsRightmost(opaque) &&
					!pbt_in_group(delta_group, opaque, blkno, opaque->next) &&
					(empty == NIL || llast_int(empty) != (int) group.start))
					empty = lappend_int(empty, (int) group.start);
			}
		}
		UnlockReleaseBuffer(buf);
	}
	pbt_readahead_end(ra);
	elog(DEBUG2, "pagebtree: VACUUM of \"%s\" read " UINT64_FORMAT " blocks from its read stream, " UINT64_FORMAT " directly",
		 RelationGetRelationName(index), ra->from_stream, ra->direct);
	pfree(ra);
	if (callback)
		pbt_set_vacuum_scan(index, false);
	IndexFreeSpaceMapVacuum(index);
	delete_empty(index, st, stats, empty);
	stats->num_index_tuples = live;
	stats->num_pages = range.end;
	stats->estimated_count = false;
}

IndexBulkDeleteResult *
pbtbulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			  IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	vacuum_blocks(info, stats, callback, callback_state);
	return stats;
}

IndexBulkDeleteResult *
pbtvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	/* no bulk delete ran: count the entries, recycle what is free */
	if (!info->analyze_only && stats == NULL)
	{
		stats = palloc0(sizeof(IndexBulkDeleteResult));
		vacuum_blocks(info, stats, NULL, NULL);
	}

	/*
	 * The pass in block order counts entries that concurrent splits moved
	 * right of it twice: no more than the table's rows, as nbtree says.
	 */
	if (stats && !info->estimated_count &&
		stats->num_index_tuples > info->num_heap_tuples)
		stats->num_index_tuples = info->num_heap_tuples;
	return stats;
}
