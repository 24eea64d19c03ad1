/*-------------------------------------------------------------------------
 *
 * pbt_check.c
 *	  The verifier (pagebtree_check) and inspection functions.
 *
 * pagebtree_check walks every level left to right and checks, for each
 * page: header, layout and slot bounds; strictly increasing keys; keys
 * below the high key and at or above the left sibling's high key; sibling
 * links in both directions; and, for inner pages, that each child is one
 * level down and its high key equals the next separator.  With
 * heapallindexed it then looks up every heap tuple visible to a fresh
 * snapshot and compares its INCLUDE values with its entry's.  The first
 * violation raises an error naming block and item.
 *
 * In an index with leaf groups (pbt_group.h), a level-1 downlink leads to
 * a group's first subnode, and the group's last active subnode holds the
 * high key that equals the next separator; every block of the group is
 * checked from there, holes too, which no link reaches.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_delta.h"
#include "pbt_group.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

PG_FUNCTION_INFO_V1(pagebtree_check);
PG_FUNCTION_INFO_V1(pagebtree_metapage);
PG_FUNCTION_INFO_V1(pagebtree_page_stats);
PG_FUNCTION_INFO_V1(pagebtree_page_items);
PG_FUNCTION_INFO_V1(pagebtree_runs);
PG_FUNCTION_INFO_V1(pagebtree_group_lookups);
PG_FUNCTION_INFO_V1(pagebtree_groups);

static void
corrupt(Relation index, BlockNumber blkno, int itemno, const char *fmt, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" is corrupt at block %u, item %d: %s",
					RelationGetRelationName(index), blkno, itemno, fmt),
			 detail ? errdetail("%s", detail) : 0));
}

/* key part of an item: inner items start with the downlink */
static void
item_key(PbtState *st, Page page, int pos, PbtItem *key, PbtItemBuf *buf)
{
	PbtItem		item;
	int			skip = PbtIsLeaf(PbtPageGetOpaque(page)) ? 0 : pbt_page_downlink_size(page);

	pbt_layout(page)->get(page, pos, &item, buf);
	key->data = item.data + skip;
	key->len = item.len - skip;
}

/* compare two stored keys a and b: <0, 0, >0 */
static int
compare_stored(PbtState *st, PbtItem *a, PbtItem *b, bool b_is_leaf_item)
{
	PbtSearchKey key;

	if (st->normalized)
	{
		key.bytes = (char *) a->data;
		key.len = a->len;
		key.nextkey = false;
	}
	else
		pbt_key_from_item(st, a->data, a->len, &key);
	return pbt_compare(st, &key, b->data, b->len);
}

/*
 * Invariants of one page on its own.  Also used after every modification in
 * PBT_CHECKS builds.
 */
void
pbt_check_page(Relation index, Page page, BlockNumber blkno)
{
	PbtState   *st = pbt_get_state(index);
	PageHeader	hdr = (PageHeader) page;
	PbtPageOpaque opaque;
	const PbtLayout *layout;
	int			n;
	PbtItem		prev,
				cur,
				hikey;
	PbtItemBuf	prevbuf,
				curbuf;
	const char *problem;
	bool		leaf;

	/* the hint bytes in downlinks are the metapage's to say */
	(void) pbt_delta_group(index, st);
	if (PageIsNew(page))
		corrupt(index, blkno, 0, "page is new (all zeros)", NULL);
	if (hdr->pd_special != PBT_SPECIAL_OFFSET ||
		hdr->pd_lower < SizeOfPageHeaderData || hdr->pd_lower > hdr->pd_upper ||
		hdr->pd_upper > hdr->pd_special)
		corrupt(index, blkno, 0, "invalid page header bounds", NULL);
	/* everything but the hole reaches WAL and disk */
	PBT_CHECK_DEFINED(page, hdr->pd_lower);
	PBT_CHECK_DEFINED((char *) page + hdr->pd_upper, BLCKSZ - hdr->pd_upper);
	opaque = PbtPageGetOpaque(page);
	if (opaque->page_id != PBT_PAGE_ID)
		corrupt(index, blkno, 0, "not a pagebtree page", NULL);
	if (opaque->flags & PBT_META)
	{
		/* (pagebtree_check reads the metapage itself) */
		if (blkno != PBT_METAPAGE_BLKNO)
			corrupt(index, blkno, 0, "metapage flag on a page other than the metapage", NULL);
		return;
	}
	if (PbtIsDeleted(opaque))
		corrupt(index, blkno, 0, "a deleted page is still linked into the tree", NULL);
	leaf = PbtIsLeaf(opaque);
	if ((problem = pbt_special_problem(page)) != NULL)
		corrupt(index, blkno, 0, problem, NULL);
	if ((opaque->flags & PBT_KEY_START) && !st->normalized)
		corrupt(index, blkno, 0, "key-start flag in an index of comparator keys", NULL);
	if (((opaque->flags & PBT_ALIGNED_ITEMS) != 0) == st->normalized)
		corrupt(index, blkno, 0, "item alignment flag disagrees with the key mode", NULL);
	if (opaque->op_counter > PBT_OPS_MAX && opaque->op_counter != PBT_OPS_OFF)
		corrupt(index, blkno, 0, "invalid operation-adaption counter", NULL);
	layout = pbt_layout_by_tag(opaque->layout);
	if (layout == NULL)
		corrupt(index, blkno, 0, "unknown layout tag", NULL);
	/* where the layout may be used (see PbtLayout.flags) */
	if (!(layout->flags & (leaf ? PBT_LF_LEAF : PBT_LF_INNER)))
		corrupt(index, blkno, 0,
				psprintf("%s layout on %s page", layout->name,
						 leaf ? "a leaf" : "an inner"), NULL);
	if ((layout->flags & PBT_LF_NORMALIZED) && !st->normalized)
		corrupt(index, blkno, 0,
				psprintf("%s layout on a comparator-mode page", layout->name),
				NULL);
	if ((layout->flags & PBT_LF_NO_INCLUDE) && st->has_include)
		corrupt(index, blkno, 0,
				psprintf("%s layout in an index with INCLUDE columns",
						 layout->name), NULL);
	if ((layout->flags & PBT_LF_INCLUDE) && !st->has_include)
		corrupt(index, blkno, 0,
				psprintf("%s layout in an index without INCLUDE columns",
						 layout->name), NULL);
	if ((problem = layout->check(page)) != NULL)
		corrupt(index, blkno, 0, problem, NULL);

	n = layout->count(page);
	if (!leaf && n == 0)
		corrupt(index, blkno, 0, "inner page without downlinks", NULL);
	/* a hole is a reserved block: nothing reaches it, and it holds nothing */
	if (opaque->flags & PBT_HOLE)
	{
		if (n != 0)
			corrupt(index, blkno, 0, "a hole of a leaf group holds items", NULL);
		if (opaque->prev != InvalidBlockNumber ||
			opaque->next != InvalidBlockNumber || opaque->hikey_len != 0)
			corrupt(index, blkno, 0, "a hole of a leaf group has links or a high key",
					NULL);
		if (opaque->flags & PBT_INCOMPLETE_SPLIT)
			corrupt(index, blkno, 0, "a hole of a leaf group is flagged as split", NULL);
	}
	/* a split into the next block of the group needs no downlink */
	else if (pbt_is_subnode(opaque) && (opaque->flags & PBT_INCOMPLETE_SPLIT) &&
			 pbt_in_group(pbt_delta_group(index, st), opaque, blkno, opaque->next))
		corrupt(index, blkno, 0,
				"a subnode is flagged as split into a block of its own group", NULL);
	/* (before the items: their hints are read at the index's size) */
	if (!leaf && st->normalized &&
		pbt_page_downlink_size(page) != PBT_DOWNLINK_SIZE(st))
		corrupt(index, blkno, 0, "inner page has downlinks of another size than the index's",
				NULL);
	for (int i = 0; i < n; i++)
	{
		PbtItem		item;

		layout->get(page, i, &item, &curbuf);
		if (!leaf && item.len < pbt_page_downlink_size(page))
			corrupt(index, blkno, i, "inner item shorter than a downlink", NULL);
		if (!leaf && i == 0 && item.len != pbt_page_downlink_size(page))
			corrupt(index, blkno, i, "first inner item is not minus infinity", NULL);
		if (leaf && (problem = pbt_leaf_item_problem(st, item.data, item.len)) != NULL)
			corrupt(index, blkno, i, problem, NULL);
		if (!leaf && opaque->level == 1 && st->group_hint_bits > 0 &&
			(problem = pbt_group_hints_problem(st, item.data + sizeof(BlockNumber))) != NULL)
			corrupt(index, blkno, i, problem, NULL);
	}

	/* strictly increasing keys (inner pages: from item 1) */
	for (int i = pbt_page_first_key(page) + 1; i < n; i++)
	{
		item_key(st, page, i - 1, &prev, &prevbuf);
		item_key(st, page, i, &cur, &curbuf);
		if (compare_stored(st, &prev, &cur, leaf) >= 0)
			corrupt(index, blkno, i, "keys out of order", NULL);
	}
	if (PbtIsRightmost(opaque) != (opaque->hikey_len == 0))
		corrupt(index, blkno, 0, PbtIsRightmost(opaque) ?
				"rightmost page has a high key" : "page has no high key", NULL);
	/* (pbt_special_problem checked the high key's bounds) */
	if (pbt_page_get_hikey(page, &hikey) && n > pbt_page_first_key(page))
	{
		item_key(st, page, n - 1, &cur, &curbuf);
		/* last key < high key, i.e. high key > last key */
		if (compare_stored(st, &cur, &hikey, false) >= 0)
			corrupt(index, blkno, n - 1, "key is not below the high key", NULL);
	}
}

static Buffer
read_locked(Relation index, BlockNumber blkno)
{
	Buffer		buf;

	if (blkno == InvalidBlockNumber || blkno >= RelationGetNumberOfBlocks(index))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" links to block %u, which does not exist",
						RelationGetRelationName(index), blkno)));
	buf = ReadBuffer(index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	return buf;
}

/* copy of a page's high key, or data NULL if rightmost */
static void
copy_hikey(Page page, StringInfo out, bool *has)
{
	PbtItem		hk;

	resetStringInfo(out);
	*has = pbt_page_get_hikey(page, &hk);
	if (*has)
		appendBinaryStringInfo(out, hk.data, hk.len);
}

/*
 * The run of the share-locked leaf at blkno: every entry within the leaf's
 * key range (from the left sibling's high key, lowkey, to its own) and not
 * also on the leaf.  Returns the number of entries.
 */
static int
check_run(Relation index, PbtState *st, Buffer buf, PbtItem *lowkey)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	PbtRun		run;
	PbtItem		hikey;
	bool		has_hikey = pbt_page_get_hikey(page, &hikey);
	int			n;

	if (!pbt_run_read(index, st, buf, &run, NULL))
		return 0;
	for (int i = 0; i < run.n; i++)
	{
		PbtItem    *r = &run.items[i];
		PbtSearchKey key;
		int			pos;

		if (lowkey && compare_stored(st, lowkey, r, true) > 0)
			corrupt(index, blkno, i, "pending entry is below the left sibling's high key", NULL);
		if (has_hikey && compare_stored(st, r, &hikey, true) >= 0)
			corrupt(index, blkno, i, "pending entry is not below the leaf's high key", NULL);
		pbt_key_from_item(st, r->data, r->len, &key);
		pos = pbt_binsearch(st, page, &key);
		if (pos < pbt_layout(page)->count(page))
		{
			PbtItem		item;
			PbtItemBuf	itembuf;

			pbt_layout(page)->get(page, pos, &item, &itembuf);
			if (pbt_item_cmp(st, r, &item) == 0)
				corrupt(index, blkno, i, "pending entry is also on the leaf", NULL);
		}
	}
	n = run.n;
	pbt_run_free(&run);
	return n;
}

/*
 * The side pages of the delta area: each initialized one says it is, with
 * the index's geometry, and its runs add up and belong to live leaves.
 */
static void
check_side_pages(Relation index, PbtState *st)
{
	uint32		group = pbt_delta_group(index, st);
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);

	if (group == 0)
		return;
	for (BlockNumber side = 1; side < nblocks; side += group + 1)
	{
		Buffer		buf;
		Page		page;
		bool		pending[PBT_MAX_DELTA_GROUP] = {0};

		CHECK_FOR_INTERRUPTS();
		buf = read_locked(index, side);
		page = BufferGetPage(buf);
		if (PageIsNew(page))
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		if (!PbtIsSidePage(page) || PbtPageGetOpaque(page)->layout_param != group)
			corrupt(index, side, 0, "a side page's block holds another page", NULL);
		for (int slot = 0; slot < (int) group; slot++)
		{
			PbtRunHeader *run = pbt_side_run(page, group, slot);
			const char *p = (const char *) (run + 1);
			const char *end = p + run->used;
			PbtRunEntry first = {0};

			if (sizeof(PbtRunHeader) + run->used > pbt_side_slot_size(group))
				corrupt(index, side, slot, "run overflows its slot", NULL);
			while (p < end)
			{
				PbtRunEntry e;
				bool		is_first = first.len == 0;

				if (end - p < (int) sizeof(uint16))
					corrupt(index, side, slot, "run entries disagree with its length", NULL);
				p = pbt_run_entry_next(p, &e);
				if (e.len == 0 || e.len > PBT_MAX_ITEM_SIZE || p > end)
					corrupt(index, side, slot, "run entries disagree with its length", NULL);
				/* the first entry is whole; the others share its bytes */
				if (is_first)
					first = e;
				if (!is_first && e.reference)
					corrupt(index, side, slot, "run entry other than the first marked as the run's reference", NULL);
				if (is_first ? e.shared != 0 : !pbt_run_shared_valid(&e, first.len))
					corrupt(index, side, slot, "run entry's count of shared bytes is out of range", NULL);
				if (first.reference && p == end && e.rest == first.rest)
					corrupt(index, side, slot, "run holds a reference and no entry", NULL);
			}
			pending[slot] = run->used > 0;
		}
		UnlockReleaseBuffer(buf);

		/* runs belong to leaves (locked first, then their runs re-read) */
		for (int slot = 0; slot < (int) group; slot++)
		{
			BlockNumber leaf = side + 1 + slot;
			PbtRun		run;

			if (!pending[slot])
				continue;
			/* (the index may have grown since nblocks was read) */
			if (leaf >= nblocks &&
				leaf >= (nblocks = RelationGetNumberOfBlocks(index)))
				corrupt(index, side, slot, "run of a block past the end of the index", NULL);
			buf = read_locked(index, leaf);
			page = BufferGetPage(buf);
			if (pbt_run_read(index, st, buf, &run, NULL))
			{
				PbtPageOpaque opaque = PbtPageGetOpaque(page);

				/* (a hole's run would show when the hole joins its group) */
				if (!PbtIsTreePage(page) || !PbtIsLeaf(opaque) ||
					PbtIsDeleted(opaque) || (opaque->flags & PBT_HOLE))
					corrupt(index, side, slot, "run of a block that is not a live leaf",
							psprintf("block %u", leaf));
				pbt_run_free(&run);
			}
			UnlockReleaseBuffer(buf);
		}
	}
}

/*
 * Checks run on copies of pages, taken under a share lock that is released
 * before any other page is locked: a checker that held a parent while it
 * locked a child could deadlock with an insert that holds the child and
 * waits for the parent to add a downlink.  Concurrent inserts, splits and
 * page deletions may then make a copy disagree with a page read later, so
 * a disagreement is reported only once it is seen again against pages
 * that did not change in between.
 */
#define PBT_CHECK_RETRIES	100
/* ... and in recovery, how many times it waits 10 ms for redo first */
#define PBT_CHECK_REDO_WAITS	20

/* copy of the page at blkno, checked as a page of this index */
static void
copy_page_raw(Relation index, BlockNumber blkno, Page copy)
{
	Buffer		buf = read_locked(index, blkno);

	memcpy(copy, BufferGetPage(buf), BLCKSZ);
	UnlockReleaseBuffer(buf);
}

/* does the page at blkno still hold what copy holds? */
static bool
page_unchanged(Relation index, BlockNumber blkno, Page copy)
{
	Buffer		buf = read_locked(index, blkno);
	bool		same = memcmp(BufferGetPage(buf), copy, BLCKSZ) == 0;

	UnlockReleaseBuffer(buf);
	return same;
}

/*
 * Is blkno's left-link the page whose right-link is blkno?  The walk came
 * from another page (from) when that one split, or was deleted, after it
 * was read.  If so, that page's high key, the lower bound of blkno's keys,
 * goes into hikey.  blkno has no left-link if it is the level's first page
 * now that from is deleted.
 */
static bool
left_link_consistent(Relation index, BlockNumber blkno, BlockNumber from,
					 StringInfo hikey, bool *has_hikey)
{
	for (int attempt = 0; attempt < PBT_CHECK_RETRIES; attempt++)
	{
		Buffer		buf = read_locked(index, blkno);
		BlockNumber left = PbtPageGetOpaque(BufferGetPage(buf))->prev;
		PbtPageOpaque lo;
		bool		ok;

		UnlockReleaseBuffer(buf);
		if (left == InvalidBlockNumber)
		{
			buf = read_locked(index, from);
			ok = PbtIsDeleted(PbtPageGetOpaque(BufferGetPage(buf)));
			UnlockReleaseBuffer(buf);
			*has_hikey = false;
			return ok;
		}
		buf = read_locked(index, left);
		lo = PbtPageGetOpaque(BufferGetPage(buf));
		ok = lo->page_id == PBT_PAGE_ID && lo->next == blkno && !PbtIsDeleted(lo);
		if (ok)
			copy_hikey(BufferGetPage(buf), hikey, has_hikey);
		UnlockReleaseBuffer(buf);
		if (ok)
			return true;
	}
	return false;
}

/* does the live page at blkno still link to next? */
static bool
right_link_is(Relation index, BlockNumber blkno, BlockNumber next)
{
	Buffer		buf = read_locked(index, blkno);
	PbtPageOpaque opaque = PbtPageGetOpaque(BufferGetPage(buf));
	bool		is = opaque->next == next && !PbtIsDeleted(opaque);

	UnlockReleaseBuffer(buf);
	return is;
}

/* is the root still root_blkno, at level? */
static bool
root_is(Relation index, BlockNumber root_blkno, uint32 level)
{
	Buffer		buf = read_locked(index, PBT_METAPAGE_BLKNO);
	PbtMetaPageData *meta = PbtPageGetMeta(BufferGetPage(buf));
	bool		is = meta->root == root_blkno && meta->level == level;

	UnlockReleaseBuffer(buf);
	return is;
}

/*
 * Does subnode page, flagged PBT_KEY_START, hold key columns at or above its
 * left neighbour prev's high key only, as land_in_group trusts?  Its first
 * entry's decide.
 */
static bool
key_start_holds(PbtState *st, Page prev, Page page)
{
	const PbtLayout *layout = pbt_layout(page);
	PbtItem		lowfence;
	PbtItem		first;
	PbtItemBuf	firstbuf;
	PbtSearchKey key = {0};

	if (!pbt_page_get_hikey(prev, &lowfence))
		return false;
	if (layout->count(page) == 0)
		return true;
	layout->get(page, 0, &first, &firstbuf);
	key.bytes = unconstify(char *, first.data);
	key.len = pbt_item_key_len(st, first.data, first.len);
	return pbt_compare(st, &key, lowfence.data, lowfence.len) >= 0;
}

/*
 * The leaf group whose first subnode is the child start of a level-1
 * downlink, copied page by page into copies (room for the index's group
 * size; *ncopied says how many were read, for the caller to see whether
 * they changed): subnodes chained at consecutive blocks from start, with
 * consecutive positions, the index's group size and the start's epoch,
 * then holes to the group's end with the same.  The last active subnode's
 * high key must be expect (none if !has_expect), unless it split and the
 * downlink to its new right sibling is not in the parent yet.  Returns the
 * first problem, with its block in *badblk, or NULL.
 */
static const char *
check_group(Relation index, PbtState *st, BlockNumber start,
			PbtItem *expect, bool has_expect, char *copies, int *ncopied,
			BlockNumber *badblk)
{
	int			size = st->group_size;
	uint32		g = pbt_delta_group(index, st);
	bool		linked = true;	/* the previous subnode links to this one */
	uint64		epoch = 0;

	*ncopied = 0;
	*badblk = start;
	if (pbt_group_block(g, start, size - 1) >= RelationGetNumberOfBlocks(index))
		return "a leaf group extends past the end of the index";
	for (int pos = 0; pos < size; pos++)
	{
		BlockNumber blk = pbt_group_block(g, start, pos);
		Page		page = copies + (Size) pos * BLCKSZ;
		PbtPageOpaque opaque;
		bool		hole;

		CHECK_FOR_INTERRUPTS();
		copy_page_raw(index, blk, page);
		(*ncopied)++;
		*badblk = blk;
		/* (a deletion since the parent was read: the caller reads again) */
		if (!PageIsNew(page) && PbtIsDeleted(PbtPageGetOpaque(page)))
			return "a deleted page is still linked into the tree";
		pbt_check_page(index, page, blk);
		opaque = PbtPageGetOpaque(page);
		if (opaque->level != 0)
			return "downlink to a page of the wrong level";
		if (!pbt_is_subnode(opaque))
			return pos == 0 ? "downlink to a leaf that is not in a leaf group" :
				"a leaf group's block holds a page of no group";
		if (opaque->group_pos != pos || opaque->group_size != size)
			return pos == 0 ? "downlink to a subnode that is not its group's first" :
				"a subnode's position or group size disagrees with its block";
		if (pos == 0)
			epoch = pbt_group_epoch(opaque);
		else if (pbt_group_epoch(opaque) != epoch)
			return "subnodes of one leaf group have different epochs";
		hole = (opaque->flags & PBT_HOLE) != 0;
		if (pos == 0 && hole)
			return "downlink to a hole";
		if (!linked)
		{
			/* past the last active subnode: holes only */
			if (!hole)
				return "a subnode in use follows the last active subnode of its group";
			continue;
		}
		if (hole)
			return "the previous subnode links to a hole";
		if ((opaque->flags & PBT_KEY_START) &&
			!key_start_holds(st, copies + (Size) (pos - 1) * BLCKSZ, page))
			return "a subnode flagged key-start holds a key that its left neighbour may hold";
		linked = pbt_in_group(g, opaque, blk, opaque->next);
		if (linked)
		{
			/* active subnodes are a prefix of the group, in block order */
			if (opaque->next != pbt_group_block(g, start, pos + 1))
				return "a subnode's right-link skips blocks of its group";
		}
		else if (!(opaque->flags & PBT_INCOMPLETE_SPLIT))
		{
			/* the last active subnode: it bounds the group */
			PbtItem		hk;
			bool		has_hk = pbt_page_get_hikey(page, &hk);

			if (has_hk != has_expect ||
				(has_hk && (hk.len != expect->len ||
							memcmp(hk.data, expect->data, hk.len) != 0)))
				return "leaf group's high key differs from the parent's next separator";
		}
	}
	return NULL;
}

/*
 * The children of the inner page at blkno, of which page is a copy: one
 * level down, high keys equal to the next separator (leaf groups: see
 * check_group).  A child that disagrees is checked again against a fresh
 * copy of the parent (it may have split, or been deleted, after the copy);
 * only a disagreement with a parent that did not change is corruption.  A
 * leaf group's pages are read one at a time, and a split or rebalance
 * between the reads can make them disagree: that is corruption only if
 * neither the parent nor the group's pages changed since they were read.
 * Returns the first child.
 */
static BlockNumber
check_children(Relation index, PbtState *st, BlockNumber blkno, Page page,
			   uint32 level)
{
	bool		groups = st->group_size > 0 && level == 1;
	char	   *copies = groups ? palloc((Size) st->group_size * BLCKSZ) : NULL;
	int			ncopied = 0;

	for (int attempt = 0;; attempt++)
	{
		const PbtLayout *layout = pbt_layout_checked(page);
		int			n = layout->count(page);
		const char *problem = NULL;
		int			bad = 0;
		BlockNumber child = InvalidBlockNumber;
		BlockNumber first = InvalidBlockNumber;
		BlockNumber gstart = InvalidBlockNumber;
		bool		stable;

		for (int i = 0; i < n && problem == NULL; i++)
		{
			PbtItem		item;
			PbtItemBuf	keybuf;
			Buffer		cbuf;
			Page		cpage;
			PbtPageOpaque copaque;
			PbtItem		chk;
			bool		has_chk;
			PbtItem		expect;
			bool		has_expect;

			CHECK_FOR_INTERRUPTS();
			layout->get(page, i, &item, &keybuf);
			child = pbt_item_child(item.data);
			if (i == 0)
				first = child;
			bad = i;
			if (i + 1 < n)
			{
				item_key(st, page, i + 1, &expect, &keybuf);
				has_expect = true;
			}
			else
				has_expect = pbt_page_get_hikey(page, &expect);

			if (groups)
			{
				BlockNumber badblk;

				gstart = child;
				problem = check_group(index, st, child, &expect, has_expect,
									  copies, &ncopied, &badblk);
				if (problem)
					child = badblk;
				continue;
			}

			cbuf = read_locked(index, child);
			cpage = BufferGetPage(cbuf);
			copaque = PbtPageGetOpaque(cpage);
			has_chk = pbt_page_get_hikey(cpage, &chk);
			if (copaque->page_id != PBT_PAGE_ID || copaque->level + 1 != level)
				problem = "downlink to a page of the wrong level";
			else if (PbtIsDeleted(copaque))
				problem = "a deleted page is still linked into the tree";
			else if (!(copaque->flags & PBT_INCOMPLETE_SPLIT))
			{
				if (has_chk != has_expect ||
					(has_chk && (chk.len != expect.len ||
								 memcmp(chk.data, expect.data, chk.len) != 0)))
					problem = "child's high key differs from the parent's next separator";
			}
			UnlockReleaseBuffer(cbuf);
		}
		if (problem == NULL)
		{
			if (copies)
				pfree(copies);
			return first;
		}
		stable = page_unchanged(index, blkno, page);
		/* the group's copies, read after the parent's, unchanged too? */
		for (int k = 0; stable && groups && k < ncopied; k++)
			stable = page_unchanged(index,
									pbt_group_block(pbt_delta_group(index, st),
													gstart, k),
									copies + (Size) k * BLCKSZ);

		/*
		 * Redo of a downlink's insert clears the child's INCOMPLETE_SPLIT
		 * before it changes the parent, each under its own lock (as nbtree's
		 * does): on a standby an unchanged parent proves nothing until redo
		 * has had time to get its lock.
		 */
		if (stable && RecoveryInProgress() && attempt < PBT_CHECK_REDO_WAITS)
		{
			pg_usleep(10 * 1000L);
			stable = false;
		}
		if (stable)
			corrupt(index, blkno, bad, problem, psprintf("child block %u", child));
		if (attempt == PBT_CHECK_RETRIES)
		{
			/* the parent keeps changing: leave the rest unchecked */
			ereport(DEBUG1,
					(errmsg_internal("pagebtree_check: children of block %u of index \"%s\" left unchecked: the page kept changing",
									 blkno, RelationGetRelationName(index))));
			if (copies)
				pfree(copies);
			return first;
		}
		copy_page_raw(index, blkno, page);
		/* deleted with the children that disagreed: its right sibling has its keys */
		if (PbtIsDeleted(PbtPageGetOpaque(page)))
		{
			if (copies)
				pfree(copies);
			return first;
		}
		pbt_check_page(index, page, blkno);
	}
}

/*
 * Check one level, left to right (top: the root's, leftmost being the
 * root).  Returns the leftmost page of the level below (InvalidBlockNumber
 * at the leaf level) and adds leaf items to *nitems.
 *
 * Leaf groups: the walk enters a group at its first subnode.  A rebalance
 * while the walk is inside a group moves entries between subnodes read
 * and not yet read, left as well as right, and gives the group a new
 * epoch: a subnode whose epoch differs from its group's first sends the
 * walk back to the group's start, with the group's entries uncounted
 * again, so that each entry is counted once.  If the group keeps changing,
 * the walk goes on and clears *exact: the count may then miss entries.
 */
static BlockNumber
check_level(Relation index, PbtState *st, BlockNumber leftmost, uint32 level,
			bool top, double *nitems, bool *exact)
{
	BlockNumber blkno = leftmost;
	BlockNumber prevblk = InvalidBlockNumber;
	BlockNumber firstchild = InvalidBlockNumber;
	StringInfoData prevhikey;
	bool		has_prevhikey = false;
	PGAlignedBlock copy;
	Page		page = copy.data;

	/* the group being walked, and the walk as it was at the group's start */
	BlockNumber gstart = InvalidBlockNumber;
	uint64		gepoch = 0;
	double		gitems = 0;
	int			restarts = 0;
	BlockNumber gprevblk = InvalidBlockNumber;
	StringInfoData gprevhikey;
	bool		has_gprevhikey = false;

	/* the level's walk: a rebalanced group is walked again, retries times */
	PbtLinkWalk walk = {0};

	initStringInfo(&prevhikey);
	initStringInfo(&gprevhikey);
	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf;
		PbtPageOpaque opaque;
		int			n;
		double		count = 0;
		PbtItem		key;
		PbtItemBuf	keybuf;
		PbtItem		hk;
		bool		from_prev;

		CHECK_FOR_INTERRUPTS();
		if (pbt_walk_cycles(index, &walk, PBT_CHECK_RETRIES + 1))
			corrupt(index, blkno, 0, "right-links form a cycle", NULL);
		buf = read_locked(index, blkno);
		memcpy(page, BufferGetPage(buf), BLCKSZ);
		opaque = PbtPageGetOpaque(page);
		if (!PageIsNew(page) && PbtIsDeleted(opaque))
		{
			UnlockReleaseBuffer(buf);

			/*
			 * VACUUM unlinked it after we read the page before, or the level
			 * above (check_children saw it live): go on
			 */
			if (prevblk == InvalidBlockNumber ||
				!right_link_is(index, prevblk, blkno))
			{
				blkno = opaque->next;
				continue;
			}
			corrupt(index, blkno, 0, "a deleted page is still linked into the tree", NULL);
		}
		pbt_check_page(index, page, blkno);

		/*
		 * The page's left-link is not the page the walk came from when that
		 * one split or was deleted after it was read: its keys' lower bound
		 * is then the new left sibling's high key, found below.
		 */
		from_prev = opaque->prev == prevblk;
		if (pbt_is_side_block(pbt_delta_group(index, st), blkno))
			corrupt(index, blkno, 0, "a tree page is on a side page's block", NULL);
		if (opaque->level != level)
			corrupt(index, blkno, 0, "page is on the wrong level", NULL);

		/*
		 * The root's level has no parent to check its pages against: every
		 * page there but the last awaits the new root that finishes its
		 * split, and only the first is the root.  Unless a new root was
		 * made since the walk began.
		 */
		if (top && !PbtIsRightmost(opaque) &&
			!(opaque->flags & PBT_INCOMPLETE_SPLIT) &&
			root_is(index, leftmost, level))
			corrupt(index, blkno, 0,
					"a page of the root's level has a right sibling but no split to finish",
					NULL);
		if (top && blkno != leftmost && PbtIsRoot(opaque) &&
			root_is(index, leftmost, level))
			corrupt(index, blkno, 0, "a page other than the root is flagged as the root",
					NULL);
		n = pbt_layout(page)->count(page);
		/* a leaf's run is read under the leaf's lock (pbt_delta.c) */
		if (PbtIsLeaf(opaque))
		{
			PbtItem		phk = {prevhikey.data, prevhikey.len};

			/*
			 * (not a subnode rebalanced since the walk entered its group,
			 * which walks it again below: its lower bound may have moved)
			 */
			bool		bounded = has_prevhikey && from_prev &&
				!(pbt_is_subnode(opaque) && opaque->group_pos > 0 &&
				  pbt_group_epoch(opaque) != gepoch);

			count = n + check_run(index, st, buf, bounded ? &phk : NULL);
		}
		UnlockReleaseBuffer(buf);

		if (PbtIsLeaf(opaque) && pbt_is_subnode(opaque) != (st->group_size > 0))
			corrupt(index, blkno, 0, st->group_size > 0 ?
					"a leaf of an index with leaf groups is not in a group" :
					"a leaf is in a group, but the index has no leaf groups", NULL);
		if (pbt_is_subnode(opaque))
		{
			if (opaque->flags & PBT_HOLE)
				corrupt(index, blkno, 0, "a hole of a leaf group is linked into the tree",
						NULL);
			if (opaque->group_size != st->group_size)
				corrupt(index, blkno, 0, "a subnode's group size differs from the index's",
						psprintf("subnode: %u, metapage: %u", opaque->group_size,
								 st->group_size));
			if (opaque->group_pos >= pbt_block_ordinal(st->delta_group, blkno))
				corrupt(index, blkno, 0, "a leaf group would start at or before the metapage",
						NULL);
			if (opaque->group_pos == 0)
			{
				/* a new group, or its start again after a restart */
				if (blkno != gstart)
					restarts = 0;
				gstart = blkno;
				gepoch = pbt_group_epoch(opaque);
				gitems = 0;
				gprevblk = prevblk;
				resetStringInfo(&gprevhikey);
				appendBinaryStringInfo(&gprevhikey, prevhikey.data, prevhikey.len);
				has_gprevhikey = has_prevhikey;
			}
			else if (pbt_group_start(st->delta_group, opaque, blkno) != gstart ||
					 prevblk != pbt_group_block(st->delta_group, gstart,
												opaque->group_pos - 1))
				corrupt(index, blkno, 0,
						"the walk reaches a subnode from a page other than the subnode before it",
						psprintf("from block %u", prevblk));
			else if (pbt_group_epoch(opaque) != gepoch)
			{
				if (restarts++ < PBT_CHECK_RETRIES)
				{
					/* rebalanced since its start was read: walk it again */
					*nitems -= gitems;
					blkno = gstart;
					prevblk = gprevblk;
					resetStringInfo(&prevhikey);
					appendBinaryStringInfo(&prevhikey, gprevhikey.data, gprevhikey.len);
					has_prevhikey = has_gprevhikey;
					continue;
				}
				ereport(DEBUG1,
						(errmsg_internal("pagebtree_check: leaf group at block %u of index \"%s\" kept changing: its entries may be counted inexactly",
										 gstart, RelationGetRelationName(index))));
				*exact = false;
				gepoch = pbt_group_epoch(opaque);
			}
			gitems += count;
		}
		*nitems += count;

		if (!from_prev &&
			!left_link_consistent(index, blkno, prevblk, &prevhikey,
								  &has_prevhikey))
			corrupt(index, blkno, 0, "left-link does not point to the left sibling", NULL);

		/* everything here is >= the left sibling's high key */
		if (has_prevhikey && n > pbt_page_first_key(page))
		{
			PbtItem		phk = {prevhikey.data, prevhikey.len};

			item_key(st, page, pbt_page_first_key(page), &key, &keybuf);
			if (compare_stored(st, &phk, &key, PbtIsLeaf(opaque)) > 0)
				corrupt(index, blkno, pbt_page_first_key(page),
						"key is below the left sibling's high key", NULL);
		}

		/*
		 * High keys increase along a level; at leaves of groups they may
		 * repeat, where a rebalance left a subnode empty with its left
		 * neighbour's high key.  Compared as bytes, so with normalized keys
		 * only.
		 */
		if (st->normalized && has_prevhikey && pbt_page_get_hikey(page, &hk))
		{
			int			c = pbt_bytes_cmp(prevhikey.data, prevhikey.len,
										  hk.data, hk.len);

			if (c > 0 || (c == 0 && !pbt_is_subnode(opaque)))
				corrupt(index, blkno, 0,
						"high key is not above the left sibling's high key", NULL);
		}

		if (!PbtIsLeaf(opaque))
		{
			BlockNumber first = check_children(index, st, blkno, page, level);

			/*
			 * (the first live page: if VACUUM deleted the leftmost since,
			 * with its children, its right sibling's first child is the
			 * leftmost page of the level below)
			 */
			if (firstchild == InvalidBlockNumber)
				firstchild = first;
		}
		copy_hikey(page, &prevhikey, &has_prevhikey);
		prevblk = blkno;
		blkno = opaque->next;
	}
	pfree(prevhikey.data);
	pfree(gprevhikey.data);
	return firstchild;
}

typedef struct HeapCheckState
{
	Relation	index;
	PbtState   *st;
	StringInfoData item;
	MemoryContext decode_cxt;	/* an entry's decoded INCLUDE values */
	int64		checked;
} HeapCheckState;

/*
 * Does the entry of a heap tuple hold its INCLUDE values?  Index-only
 * scans return them, and no key comparison reads them.  Compared as
 * values, not bytes, as amcheck's heapallindexed normalizes them: either
 * side may hold a varlena compressed where the other does not.
 */
static bool
include_values_match(HeapCheckState *hs, const char *data, int len,
					 Datum *values, bool *isnull)
{
	PbtState   *st = hs->st;
	Datum		stored[INDEX_MAX_KEYS];
	bool		stored_null[INDEX_MAX_KEYS];
	bool		match = true;
	MemoryContext old = MemoryContextSwitchTo(hs->decode_cxt);

	pbt_decode_item(st, data, len, stored, stored_null);
	for (int i = st->nkeyatts; i < st->natts && match; i++)
	{
		Form_pg_attribute att = TupleDescAttr(st->tupdesc, i);

		match = isnull[i] == stored_null[i] &&
			(isnull[i] || datum_image_eq(values[i], stored[i],
										 att->attbyval, att->attlen));
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(hs->decode_cxt);
	return match;
}

/*
 * Is a stored leaf entry (item itemno of block blkno, or of its run) the
 * heap tuple's?  Its key columns and heap TID say so; its INCLUDE values
 * must then be the tuple's too.
 */
static bool
entry_of_tuple(HeapCheckState *hs, PbtSearchKey *key, const char *data, int len,
			   Datum *values, bool *isnull, ItemPointer tid,
			   BlockNumber blkno, int itemno)
{
	PbtState   *st = hs->st;
	bool		same_key;

	/* normalized items may carry an INCLUDE payload after key and TID */
	if (st->normalized)
		same_key = len >= key->len && memcmp(data, key->bytes, key->len) == 0;
	else
		same_key = pbt_compare(st, key, data, len) == 0;
	if (!same_key)
		return false;
	if (st->natts > st->nkeyatts &&
		!include_values_match(hs, data, len, values, isnull))
		corrupt(hs->index, blkno, itemno,
				"an entry's INCLUDE values differ from its heap tuple's",
				psprintf("heap tuple (%u,%u)", ItemPointerGetBlockNumber(tid),
						 ItemPointerGetOffsetNumber(tid)));
	return true;
}

/* look up the exact entry for one heap tuple */
static void
heap_tuple_indexed(Relation index, ItemPointer tid, Datum *values, bool *isnull,
				   bool tupleIsAlive, void *state)
{
	HeapCheckState *hs = (HeapCheckState *) state;
	PbtState   *st = hs->st;
	PbtSearchKey key;
	PbtStack	stack;
	Buffer		buf;
	Page		page;
	int			pos;
	bool		found = false;

	pbt_form_leaf_item(st, values, isnull, tid, &hs->item);
	pbt_key_from_item(st, hs->item.data, hs->item.len, &key);
	stack = pbt_search(index, st, &key, &buf, BUFFER_LOCK_SHARE, 0);
	pbt_free_stack(stack);
	page = BufferGetPage(buf);
	pos = pbt_binsearch(st, page, &key);
	if (pos < pbt_layout(page)->count(page))
	{
		PbtItem		item;
		PbtItemBuf	itembuf;

		pbt_layout(page)->get(page, pos, &item, &itembuf);
		found = entry_of_tuple(hs, &key, item.data, item.len, values, isnull,
							   tid, BufferGetBlockNumber(buf), pos);
	}
	if (!found)
	{
		PbtRun		run;

		if (pbt_run_read(index, st, buf, &run, NULL))
		{
			for (int i = 0; i < run.n && !found; i++)
				found = entry_of_tuple(hs, &key, run.items[i].data,
									   run.items[i].len, values, isnull, tid,
									   BufferGetBlockNumber(buf), i);
			pbt_run_free(&run);
		}
	}
	UnlockReleaseBuffer(buf);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("heap tuple (%u,%u) has no entry in index \"%s\"",
						ItemPointerGetBlockNumber(tid),
						ItemPointerGetOffsetNumber(tid),
						RelationGetRelationName(index))));
	hs->checked++;
}

/* an index named before its lock was taken, dropped meanwhile */
pg_noreturn static void
index_dropped(const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_TABLE),
			 errmsg("index \"%s\" does not exist", name),
			 errdetail("It was dropped while the function waited for its lock.")));
}

/* relid's name, if it is an index with pages of its own */
static char *
check_is_index(Oid relid)
{
	char	   *name = get_rel_name(relid);
	char		relkind = get_rel_relkind(relid);

	if (name == NULL || relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (relkind == RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a partitioned index", name),
				 errdetail("A partitioned index has no pages of its own."),
				 errhint("Pass the index of one partition.")));
	if (relkind != RELKIND_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an index", name)));
	return name;
}

/*
 * May the current user see the key bytes this index stores?  The rule is
 * the one PostgreSQL applies before it prints key values in an error
 * message (BuildIndexValueDescription): SELECT on the table or on every
 * column the index stores (INCLUDE columns too, whose bytes items carry),
 * and no row-level security in force on the table.  EXECUTE on an
 * inspection function is not enough.
 */
static bool
may_read_keys(Relation index)
{
	Oid			heapid = index->rd_index->indrelid;
	Oid			userid = GetUserId();

	if (check_enable_rls(heapid, InvalidOid, true) == RLS_ENABLED)
		return false;
	if (pg_class_aclcheck(heapid, userid, ACL_SELECT) == ACLCHECK_OK)
		return true;
	for (int i = 0; i < index->rd_index->indnatts; i++)
	{
		AttrNumber	attnum = index->rd_index->indkey.values[i];

		/* an expression column: its inputs are not listed, so no */
		if (attnum == InvalidAttrNumber ||
			pg_attribute_aclcheck(heapid, attnum, userid, ACL_SELECT) != ACLCHECK_OK)
			return false;
	}
	return true;
}

/* the index that check_is_index named, locked and checked */
static Relation
open_named_pagebtree(Oid indexoid, const char *name, LOCKMODE lockmode)
{
	Relation	index = try_relation_open(indexoid, lockmode);

	if (index == NULL)
		index_dropped(name);
	if (index->rd_indam->ambuild != pbtbuild)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a pagebtree index",
						RelationGetRelationName(index))));
	if (RELATION_IS_OTHER_TEMP(index))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary indexes of other sessions")));
	/* its metapage may not be written yet, which is not damage */
	if (!index->rd_index->indisready)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" is not built yet",
						RelationGetRelationName(index)),
				 errdetail("CREATE INDEX CONCURRENTLY or REINDEX CONCURRENTLY has not built it.")));
	return index;
}

static Relation
open_pagebtree(Oid indexoid, LOCKMODE lockmode)
{
	return open_named_pagebtree(indexoid, check_is_index(indexoid), lockmode);
}

Datum
pagebtree_check(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	bool		heapallindexed = PG_GETARG_BOOL(1);
	char	   *name;
	Oid			heapoid;
	Relation	heap;
	Relation	index;
	PbtState   *st;
	Buffer		metabuf;
	PbtMetaPageData meta;
	BlockNumber blkno;
	double		nitems = 0;
	bool		exact = true;
	Snapshot	snapshot = NULL;

	/* lock the table before its index, as the executor does */
	name = check_is_index(indexoid);
	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid) ||
		(heap = try_relation_open(heapoid, AccessShareLock)) == NULL)
		index_dropped(name);
	index = open_named_pagebtree(indexoid, name, AccessShareLock);
	st = pbt_build_state(index, CurrentMemoryContext);

	if (!index->rd_index->indisvalid)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot check index \"%s\"", RelationGetRelationName(index)),
				 errdetail("Index is not valid.")));

	/*
	 * The root must be the only page of the top level, but for a split
	 * whose new root is not made yet: the next insert that passes the root
	 * makes it, which after a crash, or a recovery that stopped between the
	 * two records, may come much later.  check_level walks the whole level.
	 */
	for (int attempt = 0;; attempt++)
	{
		Buffer		rbuf;
		PbtPageOpaque ro;
		const char *problem = NULL;

		metabuf = read_locked(index, PBT_METAPAGE_BLKNO);
		meta = *PbtPageGetMeta(BufferGetPage(metabuf));
		UnlockReleaseBuffer(metabuf);
		if (meta.magic != PBT_MAGIC ||
			!pbt_version_known(meta.version))
			corrupt(index, PBT_METAPAGE_BLKNO, 0, "bad metapage magic or version", NULL);
		/* the delta area's and leaf groups' geometry, fixed at build */
		pbt_meta_settings(index, st, &meta);
		if (st->group_size > 0 && meta.level == 0)
			corrupt(index, PBT_METAPAGE_BLKNO, 0,
					"an index with leaf groups has a leaf root", NULL);
		if (meta.key_mode != (st->normalized ? PBT_KEYS_NORMALIZED : PBT_KEYS_COMPARATOR))
			corrupt(index, PBT_METAPAGE_BLKNO, 0,
					"metapage key mode disagrees with the index definition", NULL);
		rbuf = read_locked(index, meta.root);
		ro = PbtPageGetOpaque(BufferGetPage(rbuf));
		if (ro->page_id != PBT_PAGE_ID || !PbtIsRoot(ro) || ro->level != meta.level)
			problem = "metapage does not point to the root";
		else if (!PbtIsLeftmost(ro) ||
				 (!PbtIsRightmost(ro) && !(ro->flags & PBT_INCOMPLETE_SPLIT)))
			problem = "root has siblings";
		UnlockReleaseBuffer(rbuf);
		if (problem == NULL)
			break;
		/* (a new root may have been made between the two reads) */
		if (attempt == PBT_CHECK_RETRIES)
			corrupt(index, meta.root, 0, problem, NULL);
	}

	/*
	 * Every heap tuple this snapshot sees was indexed before the walk
	 * below began, and stays indexed while the snapshot is held: the walk's
	 * count of entries cannot be below the number of those tuples.
	 */
	if (heapallindexed)
		snapshot = RegisterSnapshot(GetTransactionSnapshot());

	blkno = meta.root;
	for (int64 level = meta.level; level >= 0; level--)
		blkno = check_level(index, st, blkno, (uint32) level,
							level == meta.level, &nitems, &exact);
	check_side_pages(index, st);

	if (heapallindexed)
	{
		IndexInfo  *indexInfo = BuildIndexInfo(index);
		TableScanDesc scan;
		HeapCheckState hs;

		hs.index = index;
		hs.st = st;
		hs.checked = 0;
		initStringInfo(&hs.item);
		hs.decode_cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "pagebtree_check INCLUDE values",
											  ALLOCSET_SMALL_SIZES);
		/*
		 * The scan reads with an MVCC snapshot, as the first of CREATE INDEX
		 * CONCURRENTLY does (and amcheck's): not by the oldest xmin, which
		 * the heap's build scan asserts it was given only with SnapshotAny
		 */
		indexInfo->ii_Concurrent = true;
		scan = table_beginscan_strat(heap, snapshot, 0, NULL, true, false);
		table_index_build_scan(heap, index, indexInfo, true, false,
							   heap_tuple_indexed, &hs, scan);
		UnregisterSnapshot(snapshot);
		if (hs.checked > nitems && exact)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" is corrupt: more visible heap tuples than index entries",
							RelationGetRelationName(index)),
					 errdetail("The heap has %.0f visible tuples, the index %.0f entries.",
							   (double) hs.checked, nitems)));
	}

	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
	PG_RETURN_VOID();
}

Datum
pagebtree_metapage(PG_FUNCTION_ARGS)
{
	Relation	index = open_pagebtree(PG_GETARG_OID(0), AccessShareLock);
	Buffer		buf = read_locked(index, PBT_METAPAGE_BLKNO);
	PbtMetaPageData meta = *PbtPageGetMeta(BufferGetPage(buf));
	TupleDesc	tupdesc;
	Datum		values[8];
	bool		nulls[8] = {0};

	UnlockReleaseBuffer(buf);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int32GetDatum((int32) meta.magic);
	values[1] = Int32GetDatum((int32) meta.version);
	values[2] = Int64GetDatum((int64) meta.root);
	values[3] = Int32GetDatum((int32) meta.level);
	values[4] = CStringGetTextDatum(meta.key_mode == PBT_KEYS_NORMALIZED ?
									"normalized" : "comparator");
	values[5] = CStringGetTextDatum(pbt_rmgr_registered ? "custom" : "generic");
	values[6] = Int64GetDatum((int64) RelationGetNumberOfBlocks(index));
	values[7] = Int32GetDatum((int32) meta.delta_group);
	index_close(index, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

static Buffer
read_page_arg(Relation index, int64 blkno)
{
	if (blkno < 0 || blkno >= RelationGetNumberOfBlocks(index))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block number " INT64_FORMAT " is out of range for index \"%s\"",
						blkno, RelationGetRelationName(index))));
	return read_locked(index, (BlockNumber) blkno);
}

static bytea *
to_bytea(const char *data, int len)
{
	bytea	   *b = palloc(VARHDRSZ + len);

	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), data, len);
	return b;
}

Datum
pagebtree_page_stats(PG_FUNCTION_ARGS)
{
	Relation	index = open_pagebtree(PG_GETARG_OID(0), AccessShareLock);
	int64		blkno = PG_GETARG_INT64(1);
	Buffer		buf = read_page_arg(index, blkno);
	Page		page = BufferGetPage(buf);
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	TupleDesc	tupdesc;
	Datum		values[11];
	bool		nulls[11] = {0};
	PbtItem		hikey;
	StringInfoData flags;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (PageIsNew(page))
	{
		/* extended but never initialized (an error interrupted a split) */
		UnlockReleaseBuffer(buf);
		index_close(index, AccessShareLock);
		values[0] = Int64GetDatum(blkno);
		values[1] = CStringGetTextDatum("new");
		for (int i = 2; i < lengthof(nulls); i++)
			nulls[i] = true;
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
	}
	if (opaque->page_id != PBT_PAGE_ID)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("block " INT64_FORMAT " of index \"%s\" is not a pagebtree page",
						blkno, RelationGetRelationName(index))));

	initStringInfo(&flags);
	if (opaque->flags & PBT_ROOT)
		appendStringInfoString(&flags, "root ");
	if (opaque->flags & PBT_INCOMPLETE_SPLIT)
		appendStringInfoString(&flags, "incomplete_split ");
	if (opaque->flags & PBT_DELETED)
		appendStringInfoString(&flags, "deleted ");
	if (opaque->flags & PBT_ALIGNED_ITEMS)
		appendStringInfoString(&flags, "aligned ");
	if (opaque->op_counter != PBT_OPS_OFF)
		appendStringInfo(&flags, "ops=%u ", opaque->op_counter);
	/* safexid holds the epoch only while the page is not deleted */
	if ((opaque->flags & PBT_GROUP) && !PbtIsDeleted(opaque))
		appendStringInfo(&flags, "group=%u/%u epoch=" UINT64_FORMAT " ",
						 opaque->group_pos, opaque->group_size,
						 pbt_group_epoch(opaque));
	if (opaque->flags & PBT_HOLE)
		appendStringInfoString(&flags, "hole ");
	if (opaque->flags & PBT_KEY_START)
		appendStringInfoString(&flags, "key_start ");
	if (opaque->flags & PBT_FRONT_CODED)
		appendStringInfoString(&flags, "front_coded ");
	if (PbtIsTreePage(page) && !PbtIsDeleted(opaque) &&
		pbt_layout(page)->describe)
		pbt_layout(page)->describe(page, &flags);
	if (flags.len > 0)
		flags.data[--flags.len] = '\0';

	values[0] = Int64GetDatum(blkno);
	values[1] = CStringGetTextDatum((opaque->flags & PBT_META) ? "meta" :
									(opaque->flags & PBT_SIDE) ? "side" :
									PbtIsDeleted(opaque) ? "deleted" :
									PbtIsLeaf(opaque) ? "leaf" : "inner");
	if (opaque->flags & PBT_SIDE)
	{
		/* (the metapage's: a page of another is reported) */
		uint32		group = pbt_delta_group(index, pbt_get_state(index));
		int			entries = 0;
		int			free_bytes = 0;

		for (int slot = 0; slot < (int) group; slot++)
		{
			PbtRunHeader *run = pbt_side_run_checked(index, page, blkno,
													 group, slot);

			entries += pbt_run_count(run);
			free_bytes += pbt_side_slot_size(group) - sizeof(PbtRunHeader) - run->used;
		}
		nulls[2] = true;
		values[4] = Int32GetDatum(entries);
		values[5] = Int32GetDatum(free_bytes);
		values[6] = Int32GetDatum(0);
	}
	else if (opaque->flags & PBT_META)
	{
		nulls[2] = true;
		values[4] = Int32GetDatum(0);
		values[5] = Int32GetDatum((int32) PageGetExactFreeSpace(page));
		values[6] = Int32GetDatum(0);
	}
	else
	{
		const PbtLayout *layout = pbt_layout_checked(page);

		values[2] = CStringGetTextDatum(layout->name);
		values[4] = Int32GetDatum(layout->count(page) - pbt_page_first_key(page));
		values[5] = Int32GetDatum(layout->free_space(page));
		values[6] = Int32GetDatum(layout->garbage(page));
	}
	values[3] = Int32GetDatum(opaque->level);
	values[7] = Int64GetDatum(opaque->prev == InvalidBlockNumber ? -1 : (int64) opaque->prev);
	values[8] = Int64GetDatum(opaque->next == InvalidBlockNumber ? -1 : (int64) opaque->next);
	/* the high key is key bytes: NULL for a user who may not read them */
	if (PbtIsTreePage(page) && pbt_page_get_hikey(page, &hikey) &&
		may_read_keys(index))
		values[9] = PointerGetDatum(to_bytea(hikey.data, hikey.len));
	else
		nulls[9] = true;
	values[10] = CStringGetTextDatum(flags.data);
	UnlockReleaseBuffer(buf);
	index_close(index, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
pagebtree_page_items(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	index = open_pagebtree(PG_GETARG_OID(0), AccessShareLock);
	int64		blkno = PG_GETARG_INT64(1);
	PbtState   *st = pbt_build_state(index, CurrentMemoryContext);
	Buffer		buf;
	Page		page;
	PbtPageOpaque opaque;
	const PbtLayout *layout;
	int			n;

	if (!may_read_keys(index))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read the keys of index \"%s\"",
						RelationGetRelationName(index)),
				 errdetail("Reading an index's items requires SELECT on its table, or on every column it stores, and no row-level security on the table.")));
	InitMaterializedSRF(fcinfo, 0);
	buf = read_page_arg(index, blkno);
	page = BufferGetPage(buf);
	opaque = PbtPageGetOpaque(page);
	if (PageIsNew(page) || opaque->page_id != PBT_PAGE_ID || !PbtIsTreePage(page))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block " INT64_FORMAT " of index \"%s\" is not a tree page",
						blkno, RelationGetRelationName(index))));
	layout = pbt_layout_checked(page);
	n = layout->count(page);
	for (int i = 0; i < n; i++)
	{
		Datum		values[5];
		bool		nulls[5] = {0};
		PbtItem		item;
		PbtItemBuf	itembuf;

		values[0] = Int32GetDatum(i);
		if (PbtIsLeaf(opaque))
		{
			ItemPointer tid = palloc(sizeof(ItemPointerData));

			layout->get(page, i, &item, &itembuf);
			/* (NULL where damaged lengths misplace it) */
			nulls[1] = !pbt_item_get_tid_checked(st, item.data, item.len, tid);
			values[1] = PointerGetDatum(tid);
			nulls[2] = true;
			values[3] = Int32GetDatum(item.len);
			values[4] = PointerGetDatum(to_bytea(item.data, item.len));
		}
		else
		{
			int			dl = pbt_page_downlink_size(page);

			/* item: the separator, after the downlink */
			pbt_inner_separator(page, i, &item, &itembuf);
			nulls[1] = true;
			values[2] = Int64GetDatum((int64) pbt_item_child(item.data - dl));
			values[3] = Int32GetDatum(dl + item.len);
			values[4] = PointerGetDatum(to_bytea(item.data, item.len));
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	UnlockReleaseBuffer(buf);
	index_close(index, AccessShareLock);
	return (Datum) 0;
}

/*
 * Does the run in slot (a copy) belong to the leaf at blkno, or is it a
 * stale run of a subnode rebalanced since (pbt_delta.h)?  Read after the
 * side page, so only as exact as a concurrent change lets it be.
 */
static bool
run_is_live(Relation index, PbtState *st, BlockNumber blkno,
			const PbtRunHeader *run)
{
	Buffer		buf;
	Page		page;
	bool		live;

	if (st->group_size == 0 || run->used == 0)
		return run->used > 0;
	buf = read_locked(index, blkno);
	page = BufferGetPage(buf);
	live = PbtIsTreePage(page) && PbtIsLeaf(PbtPageGetOpaque(page)) &&
		pbt_run_live(run, pbt_run_tag(page));
	UnlockReleaseBuffer(buf);
	return live;
}

/*
 * The runs of the delta area: one row per leaf slot that holds pending
 * entries or has been folded.  Counts only, no key bytes.
 */
Datum
pagebtree_runs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	index = open_pagebtree(PG_GETARG_OID(0), AccessShareLock);
	PbtState   *st = pbt_build_state(index, CurrentMemoryContext);
	uint32		group = pbt_delta_group(index, st);
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);

	InitMaterializedSRF(fcinfo, 0);
	for (BlockNumber side = 1; group > 0 && side < nblocks; side += group + 1)
	{
		Buffer		buf = read_locked(index, side);
		PGAlignedBlock copy;
		Page		page = copy.data;

		CHECK_FOR_INTERRUPTS();
		/* copied, so that leaves can be read after it (leaf, then side page) */
		memcpy(page, BufferGetPage(buf), BLCKSZ);
		UnlockReleaseBuffer(buf);
		for (int slot = 0; PbtIsSidePage(page) && slot < (int) group; slot++)
		{
			PbtRunHeader *run = pbt_side_run_checked(index, page, side,
													 group, slot);
			bool		live = run_is_live(index, st, side + 1 + slot, run);
			Datum		values[5];
			bool		nulls[5] = {0};

			if (!live && run->folds == 0)
				continue;
			values[0] = Int64GetDatum((int64) side + 1 + slot);
			values[1] = Int64GetDatum((int64) side);
			values[2] = Int32GetDatum(live ? pbt_run_count(run) : 0);
			values[3] = Int32GetDatum(live ? run->used : 0);
			values[4] = Int64GetDatum((int64) run->folds);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	index_close(index, AccessShareLock);
	return (Datum) 0;
}

/*
 * This backend's descents into leaf groups and the subnodes they read,
 * since it started or since the last reset: reads beyond one per descent
 * are the guesses that missed (and moves past concurrent changes).
 */
Datum
pagebtree_group_lookups(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {0};
	uint64		descents;
	uint64		subnode_reads;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	pbt_group_lookup_counts(&descents, &subnode_reads, PG_GETARG_BOOL(0));
	values[0] = Int64GetDatum((int64) descents);
	values[1] = Int64GetDatum((int64) subnode_reads);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc),
													  values, nulls)));
}

/*
 * One row per leaf group, in key order: its downlink's page, its blocks in
 * use and holes, its epoch, entries and free space, and how well the hints
 * in its downlink place its entries (the share whose hinted subnode is the
 * one they are on; a lookup of any other reads a second subnode).  The
 * level-1 pages and then each group's pages are read one at a time, so
 * under concurrent writes the figures are approximate.  No rows for an
 * index without groups.
 */
Datum
pagebtree_groups(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	index = open_pagebtree(PG_GETARG_OID(0), AccessShareLock);
	PbtState   *st = pbt_build_state(index, CurrentMemoryContext);
	int			hb;
	Buffer		buf;
	Page		level1 = palloc(BLCKSZ);
	BlockNumber blkno;
	PbtLinkWalk walk = {0};

	InitMaterializedSRF(fcinfo, 0);
	(void) pbt_delta_group(index, st);	/* reads the metapage's settings */
	if (st->group_size == 0)
	{
		index_close(index, AccessShareLock);
		return (Datum) 0;
	}
	hb = PBT_GROUP_HINT_BYTES(st);
	buf = pbt_get_endpoint(index, st, 1, false);
	for (;;)
	{
		PbtPageOpaque opaque;
		const PbtLayout *layout1 = NULL;

		CHECK_FOR_INTERRUPTS();
		blkno = BufferGetBlockNumber(buf);
		memcpy(level1, BufferGetPage(buf), BLCKSZ);
		UnlockReleaseBuffer(buf);
		opaque = PbtPageGetOpaque(level1);
		/* its right-links and downlinks are followed: damage is an error */
		if (!PbtIsTreePage(level1) ||
			(!PbtIsDeleted(opaque) && opaque->level != 1))
			pbt_page_error(index, blkno, "a page reached at level 1 is not an inner page of that level");
		if (!PbtIsDeleted(opaque))
			layout1 = pbt_layout_checked_in(st, level1);
		for (int pos = 0; layout1 != NULL && pos < layout1->count(level1); pos++)
		{
			BlockNumber start = pbt_page_child(level1, pos);
			const char *hints = layout1->downlink(level1, pos) +
				sizeof(BlockNumber);
			bool		hinted = hb > 0 && pbt_group_hints_nused(hints) != 0;
			int			subnodes = 0;
			int			holes = 0;
			int64		items = 0;
			int64		placed = 0;
			int64		free_bytes = 0;
			uint64		epoch = 0;
			Datum		values[9];
			bool		nulls[9] = {0};

			for (int i = 0; i < (int) st->group_size; i++)
			{
				Buffer		sbuf = read_locked(index,
												   pbt_group_block(st->delta_group, start, i));
				Page		page = BufferGetPage(sbuf);
				PbtPageOpaque so = PbtPageGetOpaque(page);
				PbtIter		it;
				PbtItem		item;

				if (PageIsNew(page) || !pbt_is_subnode(so) || so->group_pos != i)
				{
					UnlockReleaseBuffer(sbuf);
					break;		/* moved since the level-1 page was read */
				}
				epoch = Max(epoch, pbt_group_epoch(so));
				if (so->flags & PBT_HOLE)
					holes++;
				else
				{
					subnodes++;
					free_bytes += pbt_layout_checked(page)->free_space(page);
					pbt_iter_start(&it, page, 0, true);
					while (pbt_iter_next(&it, &item))
					{
						items++;
						if (hinted &&
							pbt_group_hinted_subnode(st, hints, item.data, item.len) == i)
							placed++;
					}
				}
				UnlockReleaseBuffer(sbuf);
			}
			values[0] = Int64GetDatum((int64) blkno);
			values[1] = Int64GetDatum((int64) start);
			values[2] = Int32GetDatum(subnodes);
			values[3] = Int32GetDatum(holes);
			values[4] = Int64GetDatum((int64) epoch);
			values[5] = Int64GetDatum(items);
			values[6] = Int32GetDatum(subnodes > 0 ? (int32) (free_bytes / subnodes) : 0);
			if (hb > 0)
				values[7] = Int32GetDatum(pbt_group_hints_nused(hints));
			else
				nulls[7] = true;
			if (hinted && items > 0)
				values[8] = Float8GetDatum((double) placed / items);
			else
				nulls[8] = true;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		if (PbtIsRightmost(opaque))
			break;
		pbt_walk_step(index, &walk, opaque->next);
		buf = read_locked(index, opaque->next);
	}
	pfree(level1);
	index_close(index, AccessShareLock);
	return (Datum) 0;
}
