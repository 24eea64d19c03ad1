/*-------------------------------------------------------------------------
 *
 * pbt_insert.c
 *	  Inserting into a pagebtree: descent, page splits and downlinks.
 *
 * A split is two atomic steps, as in nbtree: first the page is split and
 * linked to its new right sibling (the left page is flagged
 * PBT_INCOMPLETE_SPLIT), then the downlink is added to the parent (or a new
 * root is made) and the flag is cleared in the same WAL record.  A crash
 * between the steps leaves a tree that readers traverse correctly through
 * right-links; the next writer that passes the flagged page finishes the
 * split.  Each step touches at most four pages, so it fits one WAL record
 * (pagebtree's own when preloaded, else generic WAL).
 *
 * Where a page splits is chosen in pbt_splitloc.c; dead entries that may
 * spare a leaf its split are removed in pbt_delete.c.
 *
 *-------------------------------------------------------------------------
 */
#include "pbt_insert.h"
#include "pbt_delta.h"
#include "pbt_group.h"

#include "access/generic_xlog.h"
#include "access/tableam.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/snapmgr.h"
#include "access/genam.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "utils/memutils.h"
#include "utils/rel.h"

static bool insert_on_page(Relation index, PbtState *st, Buffer buf,
						   PbtStack stack, int pos, const char *item, int len,
						   bool fits, Buffer cbuf);

/*
 * Refuse a leaf item longer than the index takes.  Its separator, at most
 * as long, goes after a downlink into inner items; in an index with leaf
 * groups the downlink carries the group's hints, by whose size the items
 * are shorter, so that inner items stay within the bound of the others
 * (PbtItemBuf).  st has the index's group settings.
 */
void
pbt_check_item_size(Relation index, Relation heap, PbtState *st,
					ItemPointer tid, Size len)
{
	Size		max = PBT_MAX_ITEM_SIZE -
		(st->group_size > 0 ? PBT_GROUP_HINT_BYTES(st) : 0);

	if (len > max)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("index row size %zu exceeds pagebtree maximum %zu for index \"%s\"",
						len, max, RelationGetRelationName(index)),
				 errdetail("Index row references tuple (%u,%u) in relation \"%s\".%s",
						   ItemPointerGetBlockNumber(tid),
						   ItemPointerGetOffsetNumber(tid),
						   RelationGetRelationName(heap),
						   st->normalized ?
						   " A normalized key stores each value's bytes, 1 marker byte per column, a terminator after text (1 byte) and bytea (2 bytes) values, 1 more byte for each zero byte of a bytea value, and the row's 6-byte heap TID." : ""),
				 errtableconstraint(heap, RelationGetRelationName(index)),
				 errhint("Values larger than 1/3 of a buffer page cannot be indexed.\n"
						 "Consider a function index of an MD5 hash of the value, or use full text indexing.")));
}

/* Would the item fit on the page, compacting if needed? */
static bool
page_fits(Page page, const char *data, int len)
{
	return pbt_page_has_room(page, pbt_layout(page)->item_cost(page, data, len));
}

/*
 * Try the rightmost leaf remembered from the last insert: ascending keys
 * (serial ids, timestamps) then skip the descent.  Only taken when the page
 * is still the rightmost leaf, the key sorts after its first item, and the
 * item fits without a split.
 */
static bool
insert_fastpath(Relation index, PbtState *st, PbtSearchKey *key,
				const char *item, int len)
{
	Buffer		buf;
	Page		page;
	PbtPageOpaque opaque;
	const PbtLayout *layout;
	bool		done = false;

	buf = pbt_read_hot(index, st->rightmost_leaf);
	if (!ConditionalLockBuffer(buf))
	{
		ReleaseBuffer(buf);
		return false;
	}
	page = BufferGetPage(buf);
	/* a page deleted or reused since is left to the descent */
	if (!PbtIsTreePage(page) || PbtIsDeleted(PbtPageGetOpaque(page)))
	{
		UnlockReleaseBuffer(buf);
		return false;
	}
	opaque = PbtPageGetOpaque(page);
	layout = pbt_layout_checked(page);
	if (PbtIsLeaf(opaque) && PbtIsRightmost(opaque) &&
		!(opaque->flags & PBT_INCOMPLETE_SPLIT) && layout->count(page) > 0 &&
		page_fits(page, item, len))
	{
		int			pos;

		/*
		 * After the first item: the key belongs here, not further left.  A
		 * layout that takes an item anywhere needs no position, and one
		 * compare with its first item tells.
		 */
		if (layout->insert_anywhere)
		{
			PbtItem		first;
			PbtItemBuf	firstbuf;

			layout->get(page, 0, &first, &firstbuf);
			pos = pbt_compare(st, key, first.data, first.len) > 0 ? 0 : -1;
		}
		else if ((pos = pbt_binsearch(st, page, key)) == 0)
			pos = -1;
		if (pos >= 0)
		{
			CheckForSerializableConflictIn(index, NULL, BufferGetBlockNumber(buf));
			pbt_log_insert(index, buf, pos, item, len, InvalidBuffer);
			PBT_CHECK_PAGE(index, BufferGetPage(buf), BufferGetBlockNumber(buf));
			done = true;
		}
	}
	UnlockReleaseBuffer(buf);
	return done;
}

/*
 * Move right from the exclusively locked page in buf to the page where key
 * belongs, locking each right sibling before releasing its left neighbour.
 * Used after a unique check: other inserters of the same key serialize on
 * the first page where it can occur, and the coupling keeps them from
 * overtaking us before our entry is in place.
 */
static Buffer
step_right_coupled(Relation index, PbtState *st, PbtSearchKey *key, Buffer buf,
				   PbtStack stack)
{
	PbtLinkWalk walk = {0};

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		PbtItem		hikey;
		Buffer		rbuf;

		if (!PbtIsDeleted(PbtPageGetOpaque(page)) &&
			(!pbt_page_get_hikey(page, &hikey) ||
			 pbt_compare(st, key, hikey.data, hikey.len) < 0))
			return buf;
		pbt_walk_step(index, &walk, PbtPageGetOpaque(page)->next);
		rbuf = ReadBuffer(index, PbtPageGetOpaque(page)->next);
		pbt_lock_linked(index, rbuf, BUFFER_LOCK_EXCLUSIVE);
		/* (another split of it may have failed before its parent insert) */
		while (PbtPageGetOpaque(BufferGetPage(rbuf))->flags &
			   PBT_INCOMPLETE_SPLIT)
		{
			BlockNumber rblk = BufferGetBlockNumber(rbuf);

			pbt_finish_split(index, st, rbuf, stack);	/* releases rbuf */
			rbuf = ReadBuffer(index, rblk);
			LockBuffer(rbuf, BUFFER_LOCK_EXCLUSIVE);
		}
		UnlockReleaseBuffer(buf);
		buf = rbuf;
	}
}

static void
unique_violation(Relation index, Relation heapRel, Datum *values, bool *isnull)
{
	char	   *desc = BuildIndexValueDescription(index, values, isnull);

	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("duplicate key value violates unique constraint \"%s\"",
					RelationGetRelationName(index)),
			 desc ? errdetail("Key %s already exists.", desc) : 0,
			 errtableconstraint(heapRel, RelationGetRelationName(index))));
}

/* is the item's key the prefix's (which has no heap TID)? */
static bool
has_key_prefix(PbtState *st, PbtSearchKey *prefix, const PbtItem *item)
{
	bool		past;

	if (pbt_compare(st, prefix, item->data, item->len) > 0)
		return false;
	prefix->nextkey = true;
	past = pbt_compare(st, prefix, item->data, item->len) <= 0;
	prefix->nextkey = false;
	return !past;
}

/* what one entry with the new key's key means for a unique insert */
typedef enum
{
	ENTRY_NO_CONFLICT,			/* dead, invisible, or our own (EXISTING) */
	ENTRY_STOP,					/* the check is decided: stop looking */
	ENTRY_WAIT,					/* an inserter or deleter is in progress */
	ENTRY_VIOLATION				/* a live duplicate */
} EntryVerdict;

static EntryVerdict
check_entry(Relation heapRel, ItemPointer tid, ItemPointer newtid,
			IndexUniqueCheck checkUnique, Snapshot dirty, bool *found_self,
			bool *is_unique, TransactionId *xwait, uint32 *speculativeToken)
{
	bool		all_dead;

	if (checkUnique == UNIQUE_CHECK_EXISTING && ItemPointerEquals(tid, newtid))
	{
		*found_self = true;
		return ENTRY_NO_CONFLICT;
	}
	if (!table_index_fetch_tuple_check(heapRel, tid, dirty, &all_dead))
		return ENTRY_NO_CONFLICT;	/* dead or invisible to everyone */
	if (checkUnique == UNIQUE_CHECK_PARTIAL)
	{
		*is_unique = false;
		return ENTRY_STOP;
	}
	if (TransactionIdIsValid(dirty->xmin) || TransactionIdIsValid(dirty->xmax))
	{
		*speculativeToken = dirty->speculativeToken;
		*xwait = TransactionIdIsValid(dirty->xmin) ? dirty->xmin : dirty->xmax;
		return ENTRY_WAIT;
	}

	/*
	 * A definite conflict, unless our own heap tuple is already dead
	 * (possible during CREATE INDEX CONCURRENTLY's validation).
	 */
	if (!table_index_fetch_tuple_check(heapRel, newtid, SnapshotSelf, NULL))
		return ENTRY_STOP;
	return ENTRY_VIOLATION;
}

/*
 * Look for live entries equal to the new key, starting at the exclusively
 * locked leaf in buf, which holds the first position where one could be
 * (later pages are share-locked on the way, left to right), in each leaf
 * and its run.  Returns the xid to wait for if a conflicting inserter or
 * deleter is in progress (buf is still locked; the caller releases it and
 * waits), else InvalidTransactionId.  Raises the violation, or for
 * UNIQUE_CHECK_PARTIAL reports a possible one in *is_unique.
 */
static TransactionId
check_unique(Relation index, PbtState *st, Relation heapRel, Buffer buf,
			 PbtSearchKey *prefix, ItemPointer newtid, Datum *values,
			 bool *isnull, IndexUniqueCheck checkUnique, bool *is_unique,
			 uint32 *speculativeToken)
{
	SnapshotData SnapshotDirty;
	Buffer		nbuf = InvalidBuffer;
	Page		page = BufferGetPage(buf);
	int			pos = pbt_binsearch(st, page, prefix);
	bool		found_self = false;
	TransactionId xwait = InvalidTransactionId;
	EntryVerdict verdict = ENTRY_NO_CONFLICT;
	PbtEpochStep last_restart = {0};
	PbtLinkWalk walk = {0};

	InitDirtySnapshot(SnapshotDirty);
	for (;;)
	{
		PbtItem		hikey;
		PbtItem		item;
		PbtIter		it;
		PbtRun		run;
		bool		past = false;

		/* the leaf's pending entries with the key */
		if (pbt_delta_group(index, st) > 0 &&
			pbt_run_read(index, st, BufferIsValid(nbuf) ? nbuf : buf, &run, NULL))
		{
			for (int i = 0; i < run.n && verdict == ENTRY_NO_CONFLICT; i++)
			{
				ItemPointerData tid;

				if (!has_key_prefix(st, prefix, &run.items[i]))
					continue;
				pbt_item_get_tid(st, run.items[i].data, run.items[i].len, &tid);
				verdict = check_entry(heapRel, &tid, newtid, checkUnique,
									  &SnapshotDirty, &found_self, is_unique,
									  &xwait, speculativeToken);
			}
			pbt_run_free(&run);
		}

		pbt_iter_start(&it, page, pos, true);
		while (verdict == ENTRY_NO_CONFLICT && pbt_iter_next(&it, &item))
		{
			ItemPointerData tid;

			prefix->nextkey = true;
			past = pbt_compare(st, prefix, item.data, item.len) <= 0;
			prefix->nextkey = false;
			if (past)
				break;			/* past the equal keys */
			pbt_item_get_tid(st, item.data, item.len, &tid);
			verdict = check_entry(heapRel, &tid, newtid, checkUnique,
								  &SnapshotDirty, &found_self, is_unique,
								  &xwait, speculativeToken);
		}
		if (verdict != ENTRY_NO_CONFLICT || past)
			break;

		/* the equal keys may continue on the right sibling */
		if (!pbt_page_get_hikey(page, &hikey))
			break;
		prefix->nextkey = true;
		past = pbt_compare(st, prefix, hikey.data, hikey.len) <= 0;
		prefix->nextkey = false;
		if (past)
			break;
		{
			PbtPageOpaqueData from = *PbtPageGetOpaque(page);
			BlockNumber fromblk = BufferGetBlockNumber(BufferIsValid(nbuf) ? nbuf : buf);

			pbt_walk_step(index, &walk, from.next);
			if (BufferIsValid(nbuf))
				UnlockReleaseBuffer(nbuf);
			nbuf = ReadBuffer(index, from.next);
			pbt_lock_linked(index, nbuf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(nbuf);
			pos = pbt_page_first_key(page);

			/*
			 * A group that we hold no page of was rebalanced between two of
			 * its subnodes: read on from our first page again.
			 */
			if (pbt_is_subnode(&from) &&
				pbt_group_moved(st->delta_group, &from, fromblk,
								pbt_group_epoch(&from),
								PbtPageGetOpaque(page), from.next))
			{
				pbt_note_epoch_step(index, &last_restart, fromblk,
									pbt_group_epoch(&from), nbuf);
				nbuf = InvalidBuffer;
				page = BufferGetPage(buf);
				pos = pbt_binsearch(st, page, prefix);
			}
		}
	}

	if (BufferIsValid(nbuf))
		UnlockReleaseBuffer(nbuf);
	if (verdict == ENTRY_WAIT)
		return xwait;
	if (verdict == ENTRY_VIOLATION)
	{
		/*
		 * A serializable transaction that read the key's absence gets the
		 * serialization failure that the violation would mask, as btree's.
		 */
		CheckForSerializableConflictIn(index, NULL, BufferGetBlockNumber(buf));
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		unique_violation(index, heapRel, values, isnull);
	}
	if (checkUnique == UNIQUE_CHECK_EXISTING && !found_self)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("failed to re-find tuple within index \"%s\"",
						RelationGetRelationName(index)),
				 errhint("This may be because of a non-immutable index expression."),
				 errtableconstraint(heapRel, RelationGetRelationName(index))));
	return InvalidTransactionId;
}

/*
 * The exclusively locked leaf in buf cannot take what an insert brings
 * (item, or its run with item): delete the entries of dead heap tuples
 * (heapRel, if not NULL), bottom-up too if the update did not change the
 * indexed values, asking fits(arg) after each step.  fits() may do the
 * change when there is room (fold_fits folds).  Whether it fits now.
 */
static bool
make_room(Relation index, PbtState *st, Relation heapRel, Buffer buf,
		  const char *item, int len, bool indexUnchanged,
		  bool (*fits) (void *arg), void *arg)
{
	if (!heapRel)
		return false;
	pbt_delete_entries(index, st, heapRel, buf, item, len, false);
	if (fits(arg))
		return true;
	if (!indexUnchanged)
		return false;
	pbt_delete_entries(index, st, heapRel, buf, item, len, true);
	return fits(arg);
}

typedef struct FoldArgs
{
	Relation	index;
	PbtState   *st;
	Buffer		buf;
	PbtRun	   *run;
	const char *item;
	int			len;
} FoldArgs;

/* fits() for make_room: folds the run and the item into the leaf if they fit */
static bool
fold_fits(void *arg)
{
	FoldArgs   *a = (FoldArgs *) arg;

	return pbt_run_fold(a->index, a->st, a->buf, a->run, a->item, a->len);
}

typedef struct PageArgs
{
	Page		page;
	const char *item;
	int			len;
} PageArgs;

/* fits() for make_room: the item on the leaf */
static bool
item_fits(void *arg)
{
	PageArgs   *a = (PageArgs *) arg;

	return page_fits(a->page, a->item, a->len);
}

/*
 * An insert into the exclusively locked leaf in buf of an index with a
 * delta area.  If writing the leaf would be costly (pbt_leaf_write_costly),
 * the item goes to the leaf's run; if the run is full, or the leaf is being
 * written anyway, the run is folded into the leaf with the item, after
 * make_room if they do not fit, else splitting it.  Returns false, having
 * done nothing, if the caller should insert as usual (no run, and writing
 * the leaf is cheap).  Releases buf when it returns true; *inserted is then
 * false if a split left the item out (split_page), which must be inserted
 * again.
 */
static bool
insert_with_run(Relation index, PbtState *st, Relation heapRel, Buffer buf,
				PbtStack stack, PbtSearchKey *key, const char *item, int len,
				bool indexUnchanged, bool *inserted)
{
	PbtRun		run;
	FoldArgs	fold = {index, st, buf, &run, item, len};

	*inserted = true;
	if (st->delta_on && pbt_leaf_write_costly(index, st, buf, key, item, len) &&
		pbt_run_append(index, st, buf, item, len))
	{
		UnlockReleaseBuffer(buf);
		return true;
	}
	if (!pbt_run_read(index, st, buf, &run, NULL))
		return false;
	if (fold_fits(&fold) ||
		make_room(index, st, heapRel, buf, item, len, indexUnchanged,
				  fold_fits, &fold))
		UnlockReleaseBuffer(buf);
	else
		*inserted = insert_on_page(index, st, buf, stack,
								   pbt_binsearch(st, BufferGetPage(buf), key),
								   item, len, false, InvalidBuffer);
	pbt_run_free(&run);
	return true;
}

/*
 * Insert item, whose key is key, into the exclusively locked leaf in buf
 * where it belongs (or its run), after make_room if it does not fit.
 * Releases buf.  False if a split left the item out (split_page): the
 * caller inserts it again from the root, unique check included.
 */
static bool
insert_into_leaf(Relation index, PbtState *st, Relation heapRel, Buffer buf,
				 PbtStack stack, PbtSearchKey *key, const char *item, int len,
				 bool indexUnchanged)
{
	Page		page = BufferGetPage(buf);
	bool		fits;
	bool		inserted;
	PageArgs	args = {page, item, len};

	/* serializable readers of the leaf's key space (pbt_read_page) */
	CheckForSerializableConflictIn(index, NULL, BufferGetBlockNumber(buf));
	/* (layouts that insert anywhere find no position: no pbt_binsearch) */
	(void) pbt_layout_checked(page);
	if (pbt_delta_group(index, st) > 0 &&
		insert_with_run(index, st, heapRel, buf, stack, key, item, len,
						indexUnchanged, &inserted))
		return inserted;
	/* the fit test can cost a pass over the page (fingerprint, BPA) */
	fits = item_fits(&args) ||
		make_room(index, st, heapRel, buf, item, len, indexUnchanged,
				  item_fits, &args);
	return insert_on_page(index, st, buf, stack,
						  pbt_layout(page)->insert_anywhere && fits ? 0 :
						  pbt_binsearch(st, page, key),
						  item, len, fits, InvalidBuffer);
}

bool
pbtinsert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
		  Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
		  IndexInfo *indexInfo)
{
	PbtState   *st = pbt_get_state(index);
	StringInfoData item;
	PbtSearchKey key;
	PbtSearchKey prefix;
	PbtStack	stack;
	Buffer		buf;
	bool		checking = false;
	bool		is_unique = true;

	/*
	 * The item is formed in a buffer kept in the index's relcache context
	 * (no palloc per insert), used through a copy of its header: a relcache
	 * flush frees the state (rd_amcache), not the buffer.
	 */
	if (st->insert_item.data == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(index->rd_indexcxt);

		initStringInfo(&st->insert_item);
		MemoryContextSwitchTo(oldcxt);
	}
	/* (the item's form and its limit depend on the metapage's settings) */
	(void) pbt_group_size(index, st);
	item = st->insert_item;
	pbt_form_leaf_item(st, values, isnull, ht_ctid, &item);
	st->insert_item = item;
	pbt_check_item_size(index, heapRel, st, ht_ctid, item.len);
	pbt_key_from_item(st, item.data, item.len, &key);

	/* NULLs never conflict, unless NULLS NOT DISTINCT */
	if (checkUnique != UNIQUE_CHECK_NO)
	{
		checking = true;
		if (!index->rd_index->indnullsnotdistinct)
			for (int i = 0; i < st->nkeyatts; i++)
				if (isnull[i])
					checking = false;
	}
	if (checking)
	{
		/* the key columns alone: the first position an equal key can be */
		prefix = key;
		if (st->normalized)
			prefix.len -= PBT_TID_BYTES;
		else
			prefix.has_tid = false;
	}
	else if (checkUnique != UNIQUE_CHECK_EXISTING &&
			 st->rightmost_leaf != InvalidBlockNumber)
	{
		/* (a recheck inserts nothing: the entry is there) */
		if (insert_fastpath(index, st, &key, item.data, item.len))
			return true;
		st->rightmost_leaf = InvalidBlockNumber;
	}

	for (;;)
	{
		TransactionId xwait;
		uint32		token = 0;
		bool		inserted = true;

		if (!checking)
			stack = pbt_search_leaf(index, st, &key, &buf,
									BUFFER_LOCK_EXCLUSIVE);
		else
		{
			stack = pbt_search_leaf(index, st, &prefix, &buf,
									BUFFER_LOCK_EXCLUSIVE);
			xwait = check_unique(index, st, heapRel, buf, &prefix, ht_ctid,
								 values, isnull, checkUnique, &is_unique,
								 &token);
			if (TransactionIdIsValid(xwait))
			{
				/* wait for the other transaction, then look again */
				UnlockReleaseBuffer(buf);
				pbt_free_stack(stack);
				if (token)
					SpeculativeInsertionWait(xwait, token);
				else
					XactLockTableWait(xwait, heapRel, ht_ctid,
									  XLTW_InsertIndex);

				/*
				 * Nothing in the wait processes invalidations today, but the
				 * state is only valid until a relcache flush: do not keep it
				 * across one.
				 */
				st = pbt_get_state(index);
				continue;
			}
		}

		if (checkUnique == UNIQUE_CHECK_EXISTING)
			UnlockReleaseBuffer(buf);	/* only a check: the entry is there */
		else
		{
			if (checking)
				buf = step_right_coupled(index, st, &key, buf, stack);
			inserted = insert_into_leaf(index, st, heapRel, buf, stack, &key,
										item.data, item.len, indexUnchanged);
		}
		pbt_free_stack(stack);
		if (inserted)
			break;

		/*
		 * A split left the entry out (split_page) and released the leaf:
		 * another inserter of the key may have passed its unique check
		 * since, so insert from the top again, checking again.
		 */
		CHECK_FOR_INTERRUPTS();
	}
	return is_unique;
}

/*
 * Copies of items a layout assembled, kept in chunks of a page (a palloc
 * per item was a tenth of a split's cost).
 */
typedef struct ItemCopies
{
	char	   *next;
	int			left;
} ItemCopies;

static inline void
copy_item(ItemCopies *copies, PbtItem *item)
{
	int			need = MAXALIGN(item->len);

	if (copies->left < need)
	{
		copies->left = Max(BLCKSZ, need);
		copies->next = palloc(copies->left);
	}
	item->data = memcpy(copies->next, item->data, item->len);
	copies->next += need;
	copies->left -= need;
}

/*
 * Write a planned split of the page in buf and insert the downlink to the
 * new right page into the parent.  lpage is the left page built in backend
 * memory (keep: how many of the page's items it kept in place, or -1 if it
 * was rebuilt; added, if not NULL, was then inserted at added_pos, as
 * pbt_log_split says); the right page gets ritems[0..nright) and the
 * page's high key, in layout rtag.  A leaf's run (in run_slot, or -1) holds
 * kept[0..nkept) afterwards; its other entries went into the halves.
 * The right page is rbuf, locked: a hole of the page's group (then no
 * downlink is needed) or a new group's first subnode; InvalidBuffer takes
 * a new page.  Releases buf, rbuf and cbuf.
 */
static void
write_split(Relation index, PbtState *st, Buffer buf, PbtStack stack,
			Page lpage, int keep, const PbtItem *added, int added_pos,
			StringInfo sep, PbtItem *ritems, int nright, uint8 rtag,
			Buffer cbuf, int run_slot, const PbtItem *kept, int nkept,
			Buffer rbuf)
{
	Page		origpage = BufferGetPage(buf);
	PbtPageOpaque oopaque = PbtPageGetOpaque(origpage);
	bool		leaf = PbtIsLeaf(oopaque);
	PbtItem		oldhikey;
	bool		has_hikey = pbt_page_get_hikey(origpage, &oldhikey);
	BlockNumber lblkno = BufferGetBlockNumber(buf);
	BlockNumber rblkno;
	bool		in_group;
	Buffer		sbuf = InvalidBuffer;
	Buffer		runbuf = InvalidBuffer;
	Page		rpage = palloc(BLCKSZ);
	PbtPageOpaque lopaque = PbtPageGetOpaque(lpage);
	PbtPageOpaque ropaque;
	PbtItem		left;
	PbtItem		first;

	/* the page that splits, the new page, and a child the split completes */
	Assert(pbt_buffer_locked(buf, LW_EXCLUSIVE) &&
		   (!BufferIsValid(rbuf) || pbt_buffer_locked(rbuf, LW_EXCLUSIVE)));
	Assert(!BufferIsValid(cbuf) || (!leaf && pbt_buffer_locked(cbuf, LW_EXCLUSIVE)));
	Assert(PbtIsTreePage(origpage) && !PbtIsDeleted(oopaque));
	Assert(lopaque->level == oopaque->level && nright > 0);
	if (!PbtIsRightmost(oopaque))
	{
		sbuf = ReadBuffer(index, oopaque->next);
		pbt_lock_linked(index, sbuf, BUFFER_LOCK_EXCLUSIVE);
	}

	if (!BufferIsValid(rbuf))
		rbuf = pbt_new_page(index);
	rblkno = BufferGetBlockNumber(rbuf);
	/* a hole of the page's group takes the right half: no downlink */
	in_group = pbt_in_group(st->delta_group, oopaque, lblkno, rblkno);
	if (pbt_is_subnode(PbtPageGetOpaque(BufferGetPage(rbuf))))
	{
		PbtPageOpaque hole = PbtPageGetOpaque(BufferGetPage(rbuf));

		Assert(hole->flags & PBT_HOLE);
		pbt_init_subnode(rpage, st, hole->group_pos, hole->group_size,
						 pbt_group_epoch(hole));
		PbtPageGetOpaque(rpage)->flags &= ~PBT_HOLE;
		pbt_page_set_layout(rpage, rtag, st);
	}
	else
		pbt_page_init(rpage, oopaque->level,
					  oopaque->flags & (PBT_LEAF | PBT_ALIGNED_ITEMS), rtag, st);
	pbt_page_rebuild(rpage, ritems, nright, has_hikey ? &oldhikey : NULL);
	ropaque = PbtPageGetOpaque(rpage);
	if (in_group)
		pbt_group_mark_key_start(st, rpage, sep->data, sep->len, &ritems[0]);
	ropaque->prev = lblkno;
	ropaque->next = oopaque->next;
	/* key-adaption: the right half inherits the page's counter */
	pbt_adapt_leaf(st, rpage, oopaque->op_counter, ritems, nright,
				   has_hikey ? &oldhikey : NULL);

	lopaque->next = rblkno;
	if (!in_group)
		lopaque->flags |= PBT_INCOMPLETE_SPLIT;
	else
		keep = -1;				/* redo of a kept left page flags it */

	/* whoever read the page's key space has read the right half's too */
	if (leaf)
		PredicateLockPageSplit(index, lblkno, rblkno);

	/*
	 * The new subnode's hint is placed from the left half's first entry and
	 * its own, copied now: ritems may point into the page, which the left
	 * half overwrites.
	 */
	if (in_group)
	{
		PbtItemBuf	leftbuf;

		pbt_layout(lpage)->get(lpage, 0, &left, &leftbuf);
		left.data = memcpy(palloc(left.len), left.data, left.len);
		first.data = memcpy(palloc(ritems[0].len), ritems[0].data, ritems[0].len);
		first.len = ritems[0].len;
	}

	/* the run that went into the halves: its side page, locked last */
	if (run_slot >= 0)
	{
		runbuf = ReadBuffer(index,
							pbt_leaf_side_block(index, st->delta_group, lblkno));
		LockBuffer(runbuf, BUFFER_LOCK_EXCLUSIVE);
	}
	pbt_log_split(index, st, buf, lpage, keep, sep->data, sep->len, added,
				  added_pos, rbuf, rpage, ritems, nright, sbuf, cbuf, runbuf,
				  run_slot, kept, nkept);
	if (BufferIsValid(runbuf))
		UnlockReleaseBuffer(runbuf);
	pfree(lpage);
	pfree(rpage);

	PBT_CHECK_PAGE(index, BufferGetPage(buf), lblkno);
	PBT_CHECK_PAGE(index, BufferGetPage(rbuf), rblkno);

	if (BufferIsValid(sbuf))
		UnlockReleaseBuffer(sbuf);
	if (BufferIsValid(cbuf))
		UnlockReleaseBuffer(cbuf);
	if (leaf && PbtIsRightmost(PbtPageGetOpaque(BufferGetPage(rbuf))))
		st->rightmost_leaf = rblkno;

	if (in_group)
	{
		PbtPageOpaque added = PbtPageGetOpaque(BufferGetPage(rbuf));
		int			j = added->group_pos;
		uint64		epoch = pbt_group_epoch(added);
		BlockNumber start = pbt_group_start(st->delta_group, added, rblkno);

		UnlockReleaseBuffer(rbuf);
		UnlockReleaseBuffer(buf);
		pbt_group_subnode_added(index, st, stack, start, j, epoch, &left,
								&first);
		return;
	}
	pbt_insert_parent(index, st, buf, rbuf, stack, sep);
}

/*
 * Ascending keys past the end of the rightmost leaf, on a layout whose
 * splits need not look at the items that stay (PBT_LF_APPEND_SPLIT):
 *
 * - A layout that keeps all its entries (PBT_LF_APPEND_KEEPS_ALL, dense):
 *   the paper's over-committing split, which moves no records.  Fillfactor
 *   is not applied, because the free slots of a dense leaf past its high
 *   key could never be used, and a second heap TID for one of its keys (a
 *   non-HOT update) converts the leaf anyway.  The new item starts the
 *   right page, in the same layout if it can be.
 * - The others (BPA) keep fillfactor of their items, counted, and the tail
 *   is deleted in place (see bpa_truncate): only the blocks holding the
 *   tail are sorted, to read the items that move right.
 *
 * The left page gets the separator as its high key (a dense leaf without
 * one keeps room for it; a BPA leaf's cut tail frees the bytes of the
 * latest inserts).  Nothing is planned, so the split costs a fraction of a
 * general one.  Returns false, having changed nothing, if the split is not
 * such an append, the high key does not fit or the items that go right do
 * not fit a page of the layout they would get.
 */
static bool
split_rightmost_append(Relation index, PbtState *st, Buffer buf,
					   PbtStack stack, int pos, const char *newitem,
					   int newlen, Buffer cbuf, Buffer rbuf)
{
	Page		origpage = BufferGetPage(buf);
	PbtPageOpaque opaque = PbtPageGetOpaque(origpage);
	const PbtLayout *layout = pbt_layout(origpage);
	int			n = layout->count(origpage);
	bool		keep_all = (layout->flags & PBT_LF_APPEND_KEEPS_ALL) != 0;
	int			s;
	int			nright;
	PbtItem    *items;
	ItemCopies	copies = {NULL, 0};
	PbtIter		it;
	StringInfoData sep;
	Page		lpage;
	uint8		rtag = 0;
	bool		fits;

	Assert(pbt_buffer_locked(buf, LW_EXCLUSIVE));

	/*
	 * A rebuilt-only layout (dense) that the index no longer makes (after
	 * ALTER INDEX SET (layout = ...)) splits the general way, into halves
	 * of the index's leaf layout.
	 */
	if (!PbtIsLeaf(opaque) || !PbtIsRightmost(opaque) || pos != n || n == 0 ||
		!(layout->flags & PBT_LF_APPEND_SPLIT) ||
		((layout->flags & PBT_LF_REBUILT) &&
		 opaque->layout != st->rebuilt_layout))
		return false;

	s = keep_all ? n : Max(1, n - (n * (100 - st->fillfactor) + 99) / 100);
	nright = n + 1 - s;
	/* items[0] is the last that stays, then the nright that go right */
	items = palloc(sizeof(PbtItem) * (nright + 1));
	pbt_iter_start(&it, origpage, s - 1, true);
	for (int i = 0; i < nright; i++)
	{
		if (!pbt_iter_next(&it, &items[i]))
			pbt_page_error(index, BufferGetBlockNumber(buf),
						   "page has fewer items than its count");
		copy_item(&copies, &items[i]);
	}
	items[nright].data = newitem;
	items[nright].len = newlen;

	initStringInfo(&sep);
	pbt_separator(st, &items[0], &items[1], &sep);
	lpage = memcpy(palloc(BLCKSZ), origpage, BLCKSZ);
	layout->truncate(lpage, s);
	fits = pbt_page_set_hikey(lpage, sep.data, sep.len);
	if (fits)
	{
		rtag = pbt_choose_append_layout(st, layout, &items[1], nright);
		/* (a BPA page that takes them fills its blocks to three quarters) */
		fits = pbt_layout_by_tag(rtag)->fits(&items[1], nright, NULL, NULL);
	}
	if (!fits)
	{
		pfree(lpage);
		pfree(sep.data);
		pfree(items);
		return false;
	}
	write_split(index, st, buf, stack, lpage, s, NULL, -1, &sep, &items[1],
				nright, rtag, cbuf, -1, NULL, 0, rbuf);
	pfree(sep.data);
	pfree(items);
	return true;
}

/*
 * Split the page in buf, inserting item at pos, then insert the downlink to
 * the new right page into the parent.  Releases buf and cbuf.  False if the
 * item was left out, because no split point takes it with the leaf's
 * pending entries: the caller inserts it again.
 */
static bool
split_page(Relation index, PbtState *st, Buffer buf, PbtStack stack, int pos,
		   const char *newitem, int newlen, Buffer cbuf)
{
	Page		origpage = BufferGetPage(buf);
	PbtPageOpaque oopaque = PbtPageGetOpaque(origpage);
	const PbtLayout *layout = pbt_layout(origpage);
	bool		leaf = PbtIsLeaf(oopaque);
	int			dl = leaf ? 0 : pbt_page_downlink_size(origpage);
	int			n = layout->count(origpage);
	PbtItem    *items;
	PbtIter		it;
	PbtItem		oldhikey;
	bool		has_hikey = pbt_page_get_hikey(origpage, &oldhikey);
	int			fillfactor;
	int			s;
	/* both halves get the index's current layout for their level */
	uint8		newlayout = leaf ? st->leaf_layout : st->inner_layout;
	StringInfoData sep;
	PbtItem		sepitem;
	Page		lpage;
	int			keep;
	uint8		ltag;
	uint8		rtag;
	uint8		convtag;
	uint8		candidates[3];
	bool		appending;
	ItemCopies	copies = {NULL, 0};
	PbtRun		run;
	int			nitems;
	bool	   *pending = NULL;
	bool		keep_run = false;
	bool		reinsert = false;
	bool		in_place;
	bool		added;
	PbtItem    *litems;
	int			nleft;
	PbtItem    *kept = NULL;
	int			nkept = 0;
	Buffer		rbuf = InvalidBuffer;

	/* a leaf's pending entries go into the halves too */
	memset(&run, 0, sizeof(run));
	if (leaf && pbt_run_read(index, st, buf, &run, NULL))
		pbt_run_sort(st, &run);
	/* a subnode splits into the hole after it, if any (pbt_group.h) */
	if (leaf && pbt_is_subnode(oopaque))
		rbuf = pbt_group_hole_after(index, st, buf);
	if (run.n == 0 && (BufferIsValid(rbuf) || !pbt_is_subnode(oopaque)) &&
		split_rightmost_append(index, st, buf, stack, pos, newitem, newlen,
							   cbuf, rbuf))
		return true;

	items = palloc(sizeof(PbtItem) * (n + 1 + run.n));
	pbt_iter_start(&it, origpage, 0, true);
	for (int i = 0; i <= n; i++)
	{
		if (i == pos)
		{
			items[i].data = newitem;
			items[i].len = newlen;
		}
		else if (!pbt_iter_next(&it, &items[i]))
			pbt_page_error(index, BufferGetBlockNumber(buf),
						   "page has fewer items than its count");
		else if (items[i].data == it.buf.data)
			copy_item(&copies, &items[i]);
	}
	nitems = n + 1;
	if (run.n > 0)
	{
		pending = palloc(sizeof(bool) * (n + 1 + run.n));
		nitems = pbt_run_merge(st, items, nitems, &run, pending);
	}

	/*
	 * A leaf that would split may instead hold all its items and the new one
	 * as a dense (or semidense) page, as in the paper, which converts at a
	 * would-be split.  With dense keys arriving in random order, leaves then
	 * fill their window instead of stopping at the halves of earlier splits.
	 * A page already dense or semidense splits, unasked (an index allows
	 * only one of the two): its window or its space is used up, and
	 * rebuilding it for every further insert would cost a full page image
	 * each time.  The leaf's run goes into the page too: with the delta
	 * area, a leaf would otherwise split whenever its run is not empty,
	 * which is nearly always.
	 */
	convtag = leaf && st->normalized && !(layout->flags & PBT_LF_REBUILT) ?
		pbt_choose_leaf_layout(st, items, nitems, has_hikey ? &oldhikey : NULL,
							   true) :
		newlayout;
	if ((pbt_layout_by_tag(convtag)->flags & PBT_LF_REBUILT) &&
		oopaque->layout != convtag)
	{
		PGAlignedBlock converted;

		memcpy(converted.data, origpage, BLCKSZ);
		pbt_page_rebuild_as(converted.data, convtag, st, items, nitems,
							has_hikey ? &oldhikey : NULL);
		pbt_adapt_leaf(st, converted.data, PBT_OPS_OFF, NULL, 0, NULL);
		pbt_leaf_replace(index, st, buf, run.n > 0 ? &run : NULL,
						 converted.data, items, nitems);
		PBT_CHECK_PAGE(index, BufferGetPage(buf), BufferGetBlockNumber(buf));
		if (BufferIsValid(rbuf))
			UnlockReleaseBuffer(rbuf);
		UnlockReleaseBuffer(buf);
		pfree(items);
		pbt_run_free(&run);
		return true;
	}

	/*
	 * A subnode with no hole after it: past the end of the index, the right
	 * half starts a new group; elsewhere the group rebalances or splits.
	 */
	if (leaf && pbt_is_subnode(oopaque) && !BufferIsValid(rbuf))
	{
		bool		inserted;

		Assert(!BufferIsValid(cbuf));
		if (PbtIsRightmost(oopaque) && pos == n)
			rbuf = pbt_new_group(index, st, oopaque->group_size, 1, true);
		else
		{
			inserted = pbt_group_overflow(index, st, buf, stack, items, nitems);
			pfree(items);
			return inserted;
		}
	}

	fillfactor = leaf ? st->fillfactor : PBT_INNER_FILLFACTOR;

	/*
	 * Appending after the last item of the rightmost leaf means ascending
	 * keys: the left half keeps fillfactor of the space (rightmost dense
	 * and BPA leaves: split_rightmost_append).  So does appending
	 * after the last item of any leaf, where one of several interleaved
	 * ascending ranges (a partition's ids) may grow.  A median split would
	 * leave the left half half empty for good; with random keys, the cost
	 * is that one split in a page's worth goes 90:10.  The leaf's pending
	 * entries must all come after its items too (they are the appends
	 * that the delta area absorbed).
	 */
	appending = pos == n && (PbtIsRightmost(oopaque) || leaf);
	for (int i = 0; i < n && appending && run.n > 0; i++)
		appending = !pending[i];

	/*
	 * Plan with the new layout's space needs; a dense (semidense) page's
	 * halves are likely dense (semidense) again (its estimate is heads' for
	 * halves that are not).  Failing that, the items may only fit in two
	 * pages of the denser layout they are in.  Failing that too, a layout
	 * that plans for its largest geometry (BPA) can find no split point for
	 * a page that its own geometry holds: split into halves of the index's
	 * basic layout, whose plan is exact.
	 */
	candidates[0] = newlayout;
	candidates[1] = oopaque->layout;
	candidates[2] = st->inner_layout;
	s = -1;
	for (int c = 0; c < lengthof(candidates) && s < 0; c++)
	{
		uint8		plantag = candidates[c];

		if (c > 0 && candidates[c] == newlayout)
			continue;
		newlayout = candidates[c];
		if (c == 0 && (layout->flags & PBT_LF_REBUILT))
			plantag = oopaque->layout;
		s = pbt_choose_split(pbt_layout_by_tag(plantag),
							 items, nitems, has_hikey ? oldhikey.len : 0, dl,
							 appending, fillfactor, leaf && st->normalized,
							 leaf && st->normalized && !st->has_include);
		if (s >= 0 && c == lengthof(candidates) - 1)
			elog(DEBUG1, "pagebtree: split of block %u of index \"%s\" (%d items, layout %s) planned in the basic layout",
				 BufferGetBlockNumber(buf), RelationGetRelationName(index),
				 nitems, layout->name);
	}
	ltag = rtag = newlayout;
	initStringInfo(&sep);
	if (s < 0 && run.n > 0)
	{
		/*
		 * No two pages hold the items with the run's entries: split the page
		 * and its run without the new item, the left half keeping what it
		 * cannot take pending, and insert the new item again afterwards.
		 */
		int			j = 0;

		for (int i = 0; i < nitems; i++)
		{
			if (items[i].data == newitem)
				continue;
			pending[j] = pending[i];
			items[j++] = items[i];
		}
		nitems = j;
		reinsert = true;
		s = pbt_split_keeping_run(st, items, pending, nitems,
								  has_hikey ? &oldhikey : NULL, newlayout,
								  oopaque->layout, &sep, &ltag, &rtag,
								  &keep_run);
	}
	if (s < 0)
	{
		int			longest = 0;

		for (int i = 0; i < nitems; i++)
			longest = Max(longest, items[i].len);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("pagebtree: could not split page %u of index \"%s\"",
						BufferGetBlockNumber(buf),
						RelationGetRelationName(index)),
				 errdetail("No split point leaves both halves within a page: %d items (%d of them pending in the delta area, the longest %d bytes) in layout %s.",
						   nitems, run.n, longest, layout->name)));
	}

	/*
	 * Partition detection (after the paper's densifying split): if the items
	 * from the left up to where the key prefix changes could make one dense
	 * page and are at least half of them, split there.  Interleaved
	 * ascending ranges (one per partition) then get dense pages of their
	 * own, instead of fences at the median that strand a half-empty page
	 * below a range's growing end.
	 */
	if (leaf && st->normalized && st->rebuilt_layout != 0 &&
		pbt_layout_by_tag(st->rebuilt_layout)->run_span && !appending &&
		!reinsert)
	{
		int			end = pbt_partition_end(pbt_layout_by_tag(st->rebuilt_layout),
											items, nitems);

		if (end >= nitems / 2)
			s = end;
	}

	/* the separator becomes the left high key and the parent's new key */
	if (reinsert)
		;						/* pbt_split_keeping_run chose it */
	else if (leaf && st->normalized)
		s = pbt_fit_leaf_split(st, items, nitems, s,
							   has_hikey ? &oldhikey : NULL, newlayout,
							   oopaque->layout, &sep, &ltag, &rtag);
	else if (leaf)
		pbt_separator(st, &items[s - 1], &items[s], &sep);
	else
		appendBinaryStringInfo(&sep, items[s].data + dl, items[s].len - dl);

	/*
	 * Left page, built in backend memory like the right one, so that nothing
	 * can fail while the shared pages change (inside pbt_log_split's
	 * critical section).  When the layout stays, it keeps its first items in
	 * place and gets the separator as its high key (and the new item, if it
	 * stays left), which is a small WAL record; otherwise it is rebuilt and
	 * logged whole.  A left page of a layout that says so (semidense) is
	 * always rebuilt, so that its window ends at its new high key instead
	 * of keeping slots for the keys that moved right.
	 */
	litems = items;
	nleft = s;
	if (keep_run)
	{
		litems = palloc(sizeof(PbtItem) * s);
		kept = palloc(sizeof(PbtItem) * s);
		nleft = 0;
		for (int i = 0; i < s; i++)
		{
			if (pending[i])
				kept[nkept++] = items[i];
			else
				litems[nleft++] = items[i];
		}
	}
	if (reinsert)
		elog(DEBUG1, "pagebtree: split of block %u of index \"%s\" without the new entry keeps %d of its run's %d entries pending",
			 BufferGetBlockNumber(buf), RelationGetRelationName(index), nkept,
			 run.n);
	/*
	 * Are the left half's items the page's first nleft, or those but one
	 * and the new entry?  Then the left page is the page truncated to them
	 * (and the new entry inserted), which its WAL record repeats, instead
	 * of a rebuilt page logged whole.
	 */
	added = pos < nleft && pending == NULL && !reinsert;
	in_place = true;
	for (int i = 0; i < nleft; i++)
		if ((litems[i].data == newitem && !added) ||
			(pending && !keep_run && pending[i]))
			in_place = false;
	Assert(!added || litems[pos].data == newitem);
	lpage = memcpy(palloc(BLCKSZ), origpage, BLCKSZ);
	sepitem.data = sep.data;
	sepitem.len = sep.len;
	keep = added ? nleft - 1 : nleft;
	if (!in_place || ltag != oopaque->layout ||
		(pbt_layout_by_tag(ltag)->flags & PBT_LF_SPLIT_REBUILDS) ||
		(layout->truncate(lpage, keep), !pbt_page_set_hikey(lpage, sep.data, sep.len)) ||
		(added && !pbt_page_insert(lpage, pos, newitem, newlen)))
	{
		pbt_page_rebuild_as(lpage, ltag, st, litems, nleft, &sepitem);
		keep = -1;
	}

	/* key-adaption: the halves inherit the page's counter */
	if (pbt_adapt_leaf(st, lpage, oopaque->op_counter, litems, nleft, &sepitem))
		keep = -1;

	/* on inner pages, the right page's first key is -inf */
	if (!leaf)
		items[s].len = dl;
	write_split(index, st, buf, stack, lpage, keep,
				added ? &items[pos] : NULL, pos, &sep, items + s,
				nitems - s, rtag, cbuf, run.n > 0 ? run.slot : -1, kept, nkept,
				rbuf);
	pfree(items);
	pbt_run_free(&run);
	pfree(sep.data);
	return !reinsert;
}

/*
 * Insert item at pos on the locked page in buf, splitting if it does not
 * fit (fits: the caller's page_fits, which can cost a pass over the page).
 * For a downlink, cbuf is the locked left child whose incomplete-split flag
 * is cleared in the same WAL record.  Releases buf and cbuf.  False if a
 * split left the item out (split_page): only a leaf with pending entries.
 */
static bool
insert_on_page(Relation index, PbtState *st, Buffer buf, PbtStack stack,
			   int pos, const char *item, int len, bool fits, Buffer cbuf)
{
	Page		page = BufferGetPage(buf);
	XLogRecPtr	before;

	Assert(pbt_buffer_locked(buf, LW_EXCLUSIVE));
	Assert(PbtIsTreePage(page) && !PbtIsDeleted(PbtPageGetOpaque(page)));
	/* only a downlink completes a child's split */
	Assert(!BufferIsValid(cbuf) ||
		   (!PbtIsLeaf(PbtPageGetOpaque(page)) &&
			pbt_buffer_locked(cbuf, LW_EXCLUSIVE)));
	Assert(pos >= pbt_page_first_key(page) &&
		   pos <= pbt_layout(page)->count(page));
	Assert(len > 0 && len <= PBT_MAX_ITEM_SIZE + (int) PBT_DOWNLINK_SIZE(st));
	if (!fits)
	{
		/*
		 * A split's copies of items and plans (a leaf group's rebalance
		 * copies the whole group) go into a context freed at once: the
		 * caller's can last the statement (an INSERT ... SELECT's
		 * ExecutorState).  A split of the parent nests its own.
		 */
		MemoryContext splitcxt = AllocSetContextCreate(CurrentMemoryContext,
													   "pagebtree split",
													   ALLOCSET_DEFAULT_SIZES);
		MemoryContext oldcxt = MemoryContextSwitchTo(splitcxt);
		bool		inserted = split_page(index, st, buf, stack, pos, item,
										  len, cbuf);

		MemoryContextSwitchTo(oldcxt);
		MemoryContextDelete(splitcxt);
		return inserted;
	}

	before = PageGetLSN(page);
	pbt_log_insert(index, buf, pos, item, len, cbuf);
	if (BufferIsValid(cbuf))
		UnlockReleaseBuffer(cbuf);
	PBT_CHECK_PAGE(index, BufferGetPage(buf), BufferGetBlockNumber(buf));

	if (PbtIsLeaf(PbtPageGetOpaque(page)))
	{
		if (PbtIsRightmost(PbtPageGetOpaque(page)))
			st->rightmost_leaf = BufferGetBlockNumber(buf);
		pbt_leaf_cache_written(index, buf, before);
	}
	UnlockReleaseBuffer(buf);
	return true;
}

/*
 * The split root gets a new root above it holding two downlinks.  Readers
 * that still start from the old root move right through the right-link.
 */
static void
new_root(Relation index, PbtState *st, Buffer lbuf, Buffer rbuf)
{
	Page		lorig = BufferGetPage(lbuf);
	PbtPageOpaque lopaque = PbtPageGetOpaque(lorig);
	Buffer		rootbuf = pbt_new_page(index);
	Buffer		metabuf = ReadBuffer(index, PBT_METAPAGE_BLKNO);
	BlockNumber rootblk = BufferGetBlockNumber(rootbuf);
	uint16		level = lopaque->level + 1;
	GenericXLogState *xlog;
	Page		rootpage,
				lpage,
				metapage;
	PbtMetaPageData *meta;
	PbtItem		hikey;
	char		buf[BLCKSZ];
	int			dl = PBT_DOWNLINK_SIZE(st);
	BlockNumber lblk = BufferGetBlockNumber(lbuf);
	BlockNumber rblk = BufferGetBlockNumber(rbuf);

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	if (!pbt_page_get_hikey(lorig, &hikey))
		pbt_page_error(index, lblk, "split root has no high key");

	xlog = GenericXLogStart(index);
	rootpage = pbt_generic_register(xlog, rootbuf, GENERIC_XLOG_FULL_IMAGE);
	lpage = pbt_generic_register(xlog, lbuf, 0);
	metapage = pbt_generic_register(xlog, metabuf, 0);

	pbt_page_init(rootpage, level,
				  PBT_ROOT | (st->normalized ? 0 : PBT_ALIGNED_ITEMS),
				  st->inner_layout, st);
	memset(buf, 0, dl);
	memcpy(buf, &lblk, sizeof(BlockNumber));
	if (!pbt_page_insert(rootpage, 0, buf, dl))
		elog(ERROR, "pagebtree: new root has no room");
	memcpy(buf, &rblk, sizeof(BlockNumber));
	memcpy(buf + dl, hikey.data, hikey.len);
	if (!pbt_page_insert(rootpage, 1, buf, dl + hikey.len))
		elog(ERROR, "pagebtree: new root has no room");

	PbtPageGetOpaque(lpage)->flags &= ~(PBT_ROOT | PBT_INCOMPLETE_SPLIT);

	meta = PbtPageGetMeta(metapage);
	meta->root = rootblk;
	meta->level = level;
	GenericXLogFinish(xlog);

	PBT_CHECK_PAGE(index, BufferGetPage(rootbuf), rootblk);
	st->root = rootblk;
	st->rootlevel = level;

	UnlockReleaseBuffer(metabuf);
	UnlockReleaseBuffer(rootbuf);
	UnlockReleaseBuffer(rbuf);
	UnlockReleaseBuffer(lbuf);
}

/*
 * Find and exclusively lock the page holding the downlink to child, starting
 * from the remembered parent position and moving right as splits may have
 * moved it.  Sets *pos to the downlink's position.  If there is none:
 * InvalidBuffer with missing_ok, else an error.
 */
Buffer
pbt_get_parent(Relation index, PbtState *st, PbtStack stack,
			   BlockNumber child, int *pos, bool missing_ok)
{
	BlockNumber blkno = stack->blkno;
	int			start = stack->pos;
	PbtLinkWalk walk = {0};

	for (;;)
	{
		Buffer		buf = ReadBuffer(index, blkno);
		Page		page;
		PbtPageOpaque opaque;
		const PbtLayout *layout;
		int			n;

		pbt_lock_linked(index, buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		opaque = PbtPageGetOpaque(page);
		if (opaque->flags & PBT_INCOMPLETE_SPLIT)
		{
			pbt_finish_split(index, st, buf, stack->parent);
			continue;
		}

		layout = pbt_layout_checked_in(st, page);
		/* a deleted page's key space, and so the downlink, went right */
		n = PbtIsDeleted(opaque) ? 0 : layout->count(page);
		start = Min(start, n);
		for (int k = 0; k < n; k++)
		{
			/* look from the remembered position first, then wrap around */
			int			i = (start + k) % n;

			if (pbt_page_child(page, i) == child)
			{
				stack->blkno = blkno;
				stack->pos = i;
				*pos = i;
				return buf;
			}
		}
		if (PbtIsRightmost(opaque))
		{
			UnlockReleaseBuffer(buf);
			if (missing_ok)
				return InvalidBuffer;
			pbt_page_error(index, blkno, "failed to re-find the downlink of a split page");
		}
		blkno = opaque->next;
		start = 0;
		pbt_walk_step(index, &walk, blkno);
		UnlockReleaseBuffer(buf);
	}
}

/*
 * Second step of a split: add the downlink for rbuf (the new right page,
 * whose key is sep) to the parent of lbuf.  Both come locked; both are
 * released.
 */
void
pbt_insert_parent(Relation index, PbtState *st, Buffer lbuf, Buffer rbuf,
			  PbtStack stack, StringInfo sep)
{
	PbtPageOpaque lopaque = PbtPageGetOpaque(BufferGetPage(lbuf));
	PbtStackData fake;
	StringInfoData item;
	BlockNumber rblk = BufferGetBlockNumber(rbuf);
	int			dl = PBT_DOWNLINK_SIZE(st);
	Buffer		pbuf;
	int			pos;
	bool		inserted PG_USED_FOR_ASSERTS_ONLY;

	/* the two halves of a split, both still exclusively locked */
	Assert(pbt_buffer_locked(lbuf, LW_EXCLUSIVE) &&
		   pbt_buffer_locked(rbuf, LW_EXCLUSIVE));
	Assert(lopaque->next == BufferGetBlockNumber(rbuf) &&
		   (lopaque->flags & PBT_INCOMPLETE_SPLIT));
	if (PbtIsRoot(lopaque))
	{
		new_root(index, st, lbuf, rbuf);
		return;
	}

	if (stack == NULL)
	{
		/*
		 * The leaf came from the leaf cache, or we descended from a page that
		 * was root at the time and the level above has appeared since.  The
		 * page of that level that holds sep holds the downlink (it has no
		 * separator between the page's low bound and sep), or moved it right.
		 */
		fake.blkno = pbt_parent_by_key(index, st, sep->data, sep->len,
									   lopaque->level + 1);
		fake.pos = 0;
		fake.parent = NULL;
		stack = &fake;
	}

	/* padding or a new group's hints: zeros (no hints yet) */
	initStringInfo(&item);
	enlargeStringInfo(&item, dl + sep->len);
	memset(item.data, 0, dl);
	memcpy(item.data, &rblk, sizeof(BlockNumber));
	item.len = dl;
	appendBinaryStringInfo(&item, sep->data, sep->len);

	/* a group has one downlink, to its first subnode */
	pbuf = pbt_get_parent(index, st, stack,
						  pbt_is_subnode(lopaque) ?
						  pbt_group_start(st->delta_group, lopaque,
										  BufferGetBlockNumber(lbuf)) :
						  BufferGetBlockNumber(lbuf), &pos, false);
	UnlockReleaseBuffer(rbuf);
	inserted = insert_on_page(index, st, pbuf, stack->parent, pos + 1,
							  item.data, item.len,
							  page_fits(BufferGetPage(pbuf), item.data,
										item.len), lbuf);
	Assert(inserted);			/* an inner page has no pending entries */
	pfree(item.data);
}

/*
 * Finish an interrupted split of the exclusively locked page lbuf: insert
 * the missing downlink for its right sibling.  Releases lbuf.
 */
void
pbt_finish_split(Relation index, PbtState *st, Buffer lbuf, PbtStack stack)
{
	Page		lpage = BufferGetPage(lbuf);
	PbtPageOpaque lopaque = PbtPageGetOpaque(lpage);
	PbtItem		hikey;
	StringInfoData sep;
	Buffer		rbuf;

	Assert(pbt_buffer_locked(lbuf, LW_EXCLUSIVE));
	Assert(lopaque->flags & PBT_INCOMPLETE_SPLIT);
	if (!pbt_page_get_hikey(lpage, &hikey))
		pbt_page_error(index, BufferGetBlockNumber(lbuf),
					   "incomplete split on the rightmost page");
	initStringInfo(&sep);
	appendBinaryStringInfo(&sep, hikey.data, hikey.len);
	rbuf = ReadBuffer(index, lopaque->next);
	pbt_lock_linked(index, rbuf, BUFFER_LOCK_EXCLUSIVE);
	pbt_insert_parent(index, st, lbuf, rbuf, stack, &sep);
	pfree(sep.data);
}
