/*-------------------------------------------------------------------------
 *
 * pbt_delete.c
 *	  Removing dead entries from a full leaf before it splits: simple
 *	  deletion of the entries that scans hinted dead, and bottom-up
 *	  deletion of old row versions when an update left the key unchanged.
 *
 * pbtinsert calls this with the leaf exclusively locked, when the new item
 * does not fit; if it fits afterwards, the split is avoided.  VACUUM's
 * bulk deletion is in pbt_vacuum.c.
 *
 *-------------------------------------------------------------------------
 */
#include "pbt_insert.h"

#include "access/tableam.h"
#include "access/xlog.h"
#include "utils/rel.h"

static int
cmp_int(const void *a, const void *b)
{
	int			x = *(const int *) a;
	int			y = *(const int *) b;

	return (x > y) - (x < y);
}

/*
 * Before splitting a full leaf, try to make room by removing entries whose
 * heap tuples are dead to everyone, as nbtree does:
 *
 * - simple deletion: the entries that scans hinted dead (kill_prior_tuple),
 *   looked for only when the page's PBT_HAS_DEAD flag says a scan hinted
 *   one, so that most leaves split without a pass over their entries;
 * - bottom-up deletion, when the executor says this insert is a new version
 *   of a row whose key in this index did not change (indexUnchanged): the
 *   duplicates of the new key are likely old versions, so ask the table AM
 *   which of them are dead.
 *
 * On a hot standby a removal must cancel queries that could still see the
 * heap tuples: the conflict horizon goes into the WAL (pbt_log_delete).
 */
void
pbt_delete_entries(Relation index, PbtState *st, Relation heapRel, Buffer buf,
				   const char *newitem, int newlen, bool bottomup)
{
	Page		page = BufferGetPage(buf);
	const PbtLayout *layout = pbt_layout(page);
	int			n = layout->count(page);
	bool		standby_info = RelationNeedsWAL(index) && XLogStandbyInfoActive();
	TM_IndexDeleteOp delstate;
	int			deletable[PBT_MAX_ITEMS_PER_PAGE];
	int			ndel = 0;
	TransactionId horizon;
	bool	   *dup_prev = NULL;	/* item i has item i - 1's key */
	StringInfoData prev;
	PbtIter		it;
	PbtItem		item;

	/* the full leaf an insert holds exclusively, about to split */
	Assert(pbt_buffer_locked(buf, LW_EXCLUSIVE));
	Assert(PbtIsTreePage(page) && PbtIsLeaf(PbtPageGetOpaque(page)));
	Assert(newlen > 0 && newlen <= PBT_MAX_ITEM_SIZE);
	if (!bottomup && !(PbtPageGetOpaque(page)->flags & PBT_HAS_DEAD))
		return;
	if (bottomup)
	{
		dup_prev = palloc0((n + 1) * sizeof(bool));
		initStringInfo(&prev);
	}

	delstate.irel = index;
	delstate.iblknum = BufferGetBlockNumber(buf);
	delstate.ndeltids = 0;
	delstate.deltids = palloc(n * sizeof(TM_IndexDelete));
	delstate.status = palloc(n * sizeof(TM_IndexStatus));
	pbt_iter_start(&it, page, 0, true);
	while (pbt_iter_next(&it, &item))
	{
		TM_IndexDelete *d = &delstate.deltids[delstate.ndeltids];
		TM_IndexStatus *stt = &delstate.status[delstate.ndeltids];

		/* simple: the hinted entries; bottom-up: all */
		if (bottomup)
		{
			if (it.pos > 0)
				dup_prev[it.pos] = pbt_items_keys_equal(st, prev.data, prev.len,
														item.data, item.len);
			resetStringInfo(&prev);
			appendBinaryStringInfo(&prev, item.data, item.len);
		}
		else if (!it.dead)
			continue;
		pbt_item_get_tid(st, item.data, item.len, &d->tid);
		d->id = delstate.ndeltids;
		/* (an OffsetNumber, 1-based, as heapam asserts) */
		stt->idxoffnum = it.pos + 1;
		stt->knowndeletable = !bottomup;
		stt->promising = false;
		/* what deleting it frees (item_cost may say "no room": a full page) */
		stt->freespace = Min(layout->item_cost(page, item.data, item.len),
							 item.len + (int) sizeof(PbtSlot));
		delstate.ndeltids++;
	}
	/*
	 * Every hinted entry is now to be deleted (or the hint was stale).  The
	 * flag's clearing is a hint change like its setting: WAL does not carry
	 * it.
	 */
	if (!bottomup)
	{
		PbtPageGetOpaque(page)->flags &= ~PBT_HAS_DEAD;
		pbt_note_unlogged_hint(PbtPageGetOpaque(page), 0);
	}

	/*
	 * Bottom-up: entries of a key that occurs more than once here are likely
	 * old versions from non-HOT updates (as in nbtree, whose duplicates and
	 * posting lists are the promising ones).
	 */
	for (int i = 0; bottomup && i < delstate.ndeltids; i++)
	{
		int			pos = delstate.status[i].idxoffnum - 1;

		delstate.status[i].promising = dup_prev[pos] || dup_prev[pos + 1];
	}
	if (delstate.ndeltids > 0)
	{
		delstate.bottomup = bottomup;
		delstate.bottomupfreespace = Max(BLCKSZ / 16,
										 Min(layout->item_cost(page, newitem, newlen),
											 BLCKSZ / 2));
		horizon = table_index_delete_tuples(heapRel, &delstate);

		/* the table AM kept only the deletable entries (in TID order) */
		for (int i = 0; i < delstate.ndeltids; i++)
		{
			TM_IndexStatus *stt = &delstate.status[delstate.deltids[i].id];

			if (stt->knowndeletable)
				deletable[ndel++] = stt->idxoffnum - 1;
		}
	}
	/* (the caller's context can last the statement) */
	pfree(delstate.deltids);
	pfree(delstate.status);
	if (bottomup)
	{
		pfree(dup_prev);
		pfree(prev.data);
	}
	if (ndel == 0)
		return;

	qsort(deletable, ndel, sizeof(int), cmp_int);
	pbt_log_delete(index, buf, deletable, ndel,
				   standby_info ? horizon : InvalidTransactionId, false);
	PBT_CHECK_PAGE(index, page, BufferGetBlockNumber(buf));
}
