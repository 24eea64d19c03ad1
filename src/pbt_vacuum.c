/*-------------------------------------------------------------------------
 *
 * pbt_vacuum.c
 *	  VACUUM support: remove entries whose heap tuples are dead.
 *
 * The leaf level is walked left to right through the right-links, holding a
 * cleanup lock on one leaf at a time (so no scan is paused on it with a pin).
 * Walking logically rather than in block order means a concurrent split can
 * only move entries to the right of the current page, where they are
 * either still ahead of us or were already examined on this page; it stays
 * correct when pages are recycled (issue #3) without nbtree's cycle ids.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "commands/vacuum.h"
#include "miscadmin.h"
#include "utils/rel.h"

static void
vacuum_leaves(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			  IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	PbtState   *st = pbt_get_state(index);
	Buffer		buf = pbt_get_endpoint(index, st, 0, false);
	BlockNumber blkno = BufferGetBlockNumber(buf);
	double		live = 0;
	int			deletable[PBT_MAX_ITEMS_PER_PAGE];

	UnlockReleaseBuffer(buf);
	while (blkno != InvalidBlockNumber)
	{
		Page		page;
		const PbtLayout *layout;
		int			n;
		int			ndel = 0;

		vacuum_delay_point();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		if (callback)
			LockBufferForCleanup(buf);
		else
			LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (!PbtIsLeaf(PbtPageGetOpaque(page)))
			pbt_page_error(index, blkno, "leaf level links to a non-leaf page");
		layout = pbt_layout(page);
		n = layout->count(page);

		if (callback)
		{
			for (int i = 0; i < n; i++)
			{
				PbtItem		item;
				ItemPointerData tid;

				layout->get(page, i, &item);
				pbt_item_get_tid(st, item.data, item.len, &tid);
				if (callback(&tid, callback_state))
					deletable[ndel++] = i;
			}
		}
		if (ndel > 0)
		{
			/* heap pruning already resolved conflicts with standby queries */
			pbt_log_delete(index, buf, deletable, ndel, InvalidTransactionId);
			PBT_CHECK_PAGE(index, page, blkno);
			stats->tuples_removed += ndel;
		}
		live += n - ndel;
		blkno = PbtPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
	}
	stats->num_index_tuples = live;
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->estimated_count = false;
}

IndexBulkDeleteResult *
pbtbulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			  IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	vacuum_leaves(info, stats, callback, callback_state);
	return stats;
}

IndexBulkDeleteResult *
pbtvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	/* no bulk delete ran: count the entries for the statistics */
	if (stats == NULL)
	{
		stats = palloc0(sizeof(IndexBulkDeleteResult));
		vacuum_leaves(info, stats, NULL, NULL);
	}
	stats->num_pages = RelationGetNumberOfBlocks(info->index);
	return stats;
}
