/*-------------------------------------------------------------------------
 *
 * pbt_search.c
 *	  Descending the B-link tree.
 *
 * Readers hold at most one buffer lock at a time (Lehman-Yao): they read a
 * downlink, release the parent, lock the child and move right past any
 * concurrent split, detected because the search key is at or beyond the
 * child's high key.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_delta.h"
#include "pbt_group.h"

#include "miscadmin.h"

/*
 * This backend's descents into leaf groups and the subnodes they read (the
 * first one included), for pagebtree_group_lookups().
 */
static uint64 group_descents = 0;
static uint64 group_subnode_reads = 0;

void
pbt_page_error(Relation index, BlockNumber blkno, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" block %u: %s",
					RelationGetRelationName(index), blkno, what)));
}

/* the walk is past the free steps and the last limit: count the blocks */
bool
pbt_walk_past_blocks(Relation index, PbtLinkWalk *walk, int passes)
{
	walk->limit = passes * (uint64) RelationGetNumberOfBlocks(index);
	return walk->steps > walk->limit;
}

/* the child block of the inner item at pos */
BlockNumber
pbt_page_child(Page page, int pos)
{
	BlockNumber child;

	memcpy(&child, pbt_layout(page)->downlink(page, pos), sizeof(BlockNumber));
	return child;
}

/* Point the inner item at pos to another child, in place. */
void
pbt_page_set_child(Page page, int pos, BlockNumber child)
{
	memcpy(pbt_layout(page)->downlink(page, pos), &child, sizeof(BlockNumber));
}

/* first ordered position holding a real key (inner pages: 0 is -infinity) */
int
pbt_page_first_key(Page page)
{
	return PbtIsLeaf(PbtPageGetOpaque(page)) ? 0 : 1;
}

/* the engine's binary search over assembled items (see pbt_binsearch) */
static int
generic_binsearch(PbtState *st, Page page, PbtSearchKey *key)
{
	const PbtLayout *layout = pbt_layout(page);
	bool		leaf = PbtIsLeaf(PbtPageGetOpaque(page));
	int			cmpval = leaf ? 1 : 0;
	int			low = pbt_page_first_key(page);
	int			high = layout->count(page);
	PbtItemBuf	itembuf;

	while (low < high)
	{
		int			mid = low + (high - low) / 2;
		PbtItem		item;

		if (leaf)
			layout->get(page, mid, &item, &itembuf);
		else
			pbt_inner_separator(page, mid, &item, &itembuf);
		if (pbt_compare(st, key, item.data, item.len) >= cmpval)
			low = mid + 1;
		else
			high = mid;
	}
	return leaf ? low : low - 1;
}

/*
 * pbt_layout_checked() with the index's state: an inner page's downlinks
 * must also have the index's size, which its special space gives (the
 * separators' offsets in each item).
 */
const PbtLayout *
pbt_layout_checked_in(PbtState *st, Page page)
{
	const PbtLayout *layout = pbt_layout_checked(page);

	if (!PbtIsLeaf(PbtPageGetOpaque(page)) &&
		pbt_page_downlink_size(page) != PBT_DOWNLINK_SIZE(st))
		pbt_page_header_damaged("inner page has downlinks of another size "
								"than its index's");
	return layout;
}

/*
 * Binary search.  On a leaf, returns the first position whose item is >=
 * key (count if none).  On an inner page, returns the position of the
 * downlink to follow: the last separator <= key.  Layouts may have a faster
 * search of their own; PBT_CHECKS builds check it against the generic one.
 */
int
pbt_binsearch(PbtState *st, Page page, PbtSearchKey *key)
{
	const PbtLayout *layout = pbt_layout_checked_in(st, page);
	int			pos;

	Assert(PbtIsTreePage(page) && !PbtIsDeleted(PbtPageGetOpaque(page)));
	if (!layout->search)
		return generic_binsearch(st, page, key);
	pos = layout->search(st, page, key);
#ifdef PBT_CHECKS
	if (pos != generic_binsearch(st, page, key))
		elog(ERROR, "pagebtree: %s layout search returned position %d, not %d",
			 layout->name, pos, generic_binsearch(st, page, key));
#endif
	return pos;
}

/* Does key belong to a page to the right of this one? */
bool
pbt_beyond_hikey(PbtState *st, Page page, PbtSearchKey *key)
{
	PbtItem		hikey;

	if (!pbt_page_get_hikey(page, &hikey))
		return false;
	return pbt_compare(st, key, hikey.data, hikey.len) >= 0;
}

/*
 * Move right from buf (locked in lockmode) until key is below the high key.
 * With forupdate, also finish any incomplete split we pass, so that writers
 * never build on a page whose right sibling lacks a downlink.
 */
static Buffer
moveright(Relation index, PbtState *st, PbtSearchKey *key, Buffer buf,
		  int lockmode, bool forupdate, PbtStack stack)
{
	PbtEpochStep last_restart = {0};
	PbtLinkWalk walk = {0};

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		PbtPageOpaque opaque = PbtPageGetOpaque(page);
		BlockNumber blkno;
		PbtPageOpaqueData from;
		BlockNumber fromblk;

		Assert(pbt_buffer_locked(buf, lockmode == BUFFER_LOCK_EXCLUSIVE ?
								 LW_EXCLUSIVE : LW_SHARED));
		if (unlikely(!PbtIsTreePage(page)))
			pbt_page_error(index, BufferGetBlockNumber(buf),
						   "the descent reached a page that is not in the tree");
		/* the rightmost page of a level is never deleted: it has no right-link */
		Assert(!PbtIsRightmost(opaque) || !PbtIsDeleted(opaque));

		if (forupdate && (opaque->flags & PBT_INCOMPLETE_SPLIT))
		{
			blkno = BufferGetBlockNumber(buf);
			if (lockmode != BUFFER_LOCK_EXCLUSIVE)
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
				if (!(PbtPageGetOpaque(page)->flags & PBT_INCOMPLETE_SPLIT))
				{
					LockBuffer(buf, BUFFER_LOCK_UNLOCK);
					LockBuffer(buf, lockmode);
					continue;
				}
			}
			pbt_finish_split(index, st, buf, stack);	/* releases buf */
			buf = ReadBuffer(index, blkno);
			LockBuffer(buf, lockmode);
			continue;
		}

		/* a deleted page's key space went to its right sibling */
		if (!PbtIsDeleted(opaque) && !pbt_beyond_hikey(st, page, key))
			return buf;

		from = *opaque;
		fromblk = BufferGetBlockNumber(buf);
		blkno = opaque->next;
		pbt_walk_step(index, &walk, blkno);
		UnlockReleaseBuffer(buf);
		/* not under the content lock, which holds interrupts off */
		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, lockmode);
		if (pbt_is_subnode(&from))
			group_subnode_reads++;

		/*
		 * The key was beyond a subnode's high key when we read it; if the
		 * group was rebalanced since, it may belong further left now: start
		 * again from the group's first subnode, whose lower bound never
		 * moves.
		 */
		if (pbt_is_subnode(&from) &&
			pbt_group_moved(st->delta_group, &from, fromblk,
							pbt_group_epoch(&from),
							PbtPageGetOpaque(BufferGetPage(buf)), blkno))
		{
			pbt_note_epoch_step(index, &last_restart, fromblk,
								pbt_group_epoch(&from), buf);
			buf = ReadBuffer(index, pbt_group_start(st->delta_group, &from, fromblk));
			LockBuffer(buf, lockmode);
			group_subnode_reads++;
		}
	}
}

/*
 * The first bytes of x after its first p as a number, for interpolating
 * between two keys that share those p bytes: 0 or the largest number if x
 * does not share them.
 */
static uint64
project_key(const char *x, int len, const char *prefix, int p)
{
	int			c = memcmp(x, prefix, Min(len, p));
	uint64		v = 0;

	if (c != 0 || len < p)
		return (c > 0) ? PG_UINT64_MAX : 0;
	for (int i = 0; i < (int) sizeof(uint64); i++)
		v = (v << 8) | (p + i < len ? (unsigned char) x[p + i] : 0);
	return v;
}

/*
 * The key bounding the group under downlink b - 1 of a level-1 page from
 * above, which bounds the one under downlink b from below: downlink b's
 * separator, or the page's high key after its last downlink.  False for
 * minus infinity (b = 0, or before the page) and for plus infinity.
 */
static bool
group_bound(Page page, int b, PbtItem *item, PbtItemBuf *buf)
{
	int			n = pbt_layout(page)->count(page);

	if (b <= 0 || b > n)
		return false;
	if (b == n)
		return pbt_page_get_hikey(page, item);
	pbt_inner_separator(page, b, item, buf);
	return true;
}

/*
 * Which subnode of the leaf group under the downlink at pos of the level-1
 * page (locked) key is likely in: what the downlink's hints predict
 * (pbt_group.h); without them, interpolated between the group's separator
 * and the next one (the HLN-tree's guess without hint bits), since a
 * rebalance spreads a group's entries evenly.  A group at either end of
 * the page (or of the index) knows one bound only: it is taken to be as
 * wide as its neighbour, so that its lookups do not all start at its first
 * subnode.  0 where that cannot be told either.  Only a guess: see
 * land_in_group.
 */
int
pbt_group_guess(PbtState *st, Page page, int pos, PbtSearchKey *key)
{
	PbtItem		lo;
	PbtItem		hi;
	PbtItemBuf	lobuf;
	PbtItemBuf	hibuf;
	bool		has_lo;
	bool		has_hi;
	int			p = 0;
	uint64		plo;
	uint64		phi;
	uint64		pkey;

	Assert(pbt_page_downlink_size(page) == PBT_DOWNLINK_SIZE(st));
	if (st->group_hint_bits > 0)
	{
		int			j = pbt_group_hinted_subnode(st,
												 pbt_layout(page)->downlink(page, pos) + sizeof(BlockNumber),
												 key->bytes, key->len);

		if (j >= 0)
			return j;
	}

	/*
	 * lo and hi become the two known bounds nearest the group (each item in
	 * its own buffer, so swapping the two is safe)
	 */
	has_lo = group_bound(page, pos, &lo, &lobuf);
	has_hi = group_bound(page, pos + 1, &hi, &hibuf);
	if (!has_lo && !(has_hi && group_bound(page, pos + 2, &lo, &lobuf)))
		return 0;
	if (!has_hi && !group_bound(page, pos - 1, &hi, &hibuf))
		return 0;
	if (!has_lo)
	{
		PbtItem		t = lo;

		lo = hi;
		hi = t;
	}
	else if (!has_hi)
	{
		PbtItem		t = hi;

		hi = lo;
		lo = t;
	}
	while (p < lo.len && p < hi.len && lo.data[p] == hi.data[p])
		p++;
	plo = project_key(lo.data, lo.len, lo.data, p);
	phi = project_key(hi.data, hi.len, lo.data, p);
	pkey = project_key(key->bytes, key->len, lo.data, p);
	if (phi <= plo)
		return 0;
	if (!has_lo)
	{
		uint64		width = phi - plo;

		phi = plo;
		plo = plo > width ? plo - width : 0;
	}
	else if (!has_hi)
	{
		uint64		width = phi - plo;

		plo = phi;
		phi = PG_UINT64_MAX - phi > width ? phi + width : PG_UINT64_MAX;
	}
	if (pkey <= plo)
		return 0;
	if (pkey >= phi)
		return st->group_size - 1;
	/* (as doubles, pkey - plo can round up to phi - plo) */
	return Min((int) ((double) (pkey - plo) / (double) (phi - plo) *
					  st->group_size),
			   st->group_size - 1);
}

/*
 * Lock (in lockmode) a subnode of the group starting at start where the
 * descent for key may go on: the guessed subnode, or the one before it,
 * if key follows its first entry, or has its key columns on a subnode
 * flagged PBT_KEY_START (then it is at or past the subnode's lower bound,
 * and moving right by high keys is correct); holes and empty subnodes are
 * passed over to the left.  InvalidBuffer if neither fits:
 * then the descent starts at the group's first subnode.
 */
static Buffer
land_in_group(Relation index, PbtState *st, PbtSearchKey *key,
			  BlockNumber start, int guess, int lockmode)
{
	int			tries = 0;

	for (int j = guess; j > 0 && tries < 2; j--)
	{
		Buffer		buf = pbt_read_leaf(index,
										 pbt_group_block(st->delta_group, start, j));
		Page		page = BufferGetPage(buf);
		PbtPageOpaque opaque = PbtPageGetOpaque(page);
		const PbtLayout *layout;
		PbtItem		first;
		PbtItemBuf	firstbuf;

		group_subnode_reads++;
		LockBuffer(buf, lockmode);
		if (PageIsNew(page) || !pbt_is_subnode(opaque) || opaque->group_pos != j)
		{
			UnlockReleaseBuffer(buf);
			break;
		}
		if (!(opaque->flags & PBT_HOLE) &&
			(layout = pbt_layout_checked(page))->count(page) > 0)
		{
			tries++;
			layout->get(page, 0, &first, &firstbuf);
			if ((opaque->flags & PBT_KEY_START) ?
				pbt_compare(st, key, first.data,
							pbt_item_key_len(st, first.data, first.len)) >= 0 :
				pbt_compare(st, key, first.data, first.len) > 0)
				return buf;
		}
		UnlockReleaseBuffer(buf);
	}
	return InvalidBuffer;
}

/* pagebtree_group_lookups(): this backend's group descents and subnode reads */
void
pbt_group_lookup_counts(uint64 *descents, uint64 *subnode_reads, bool reset)
{
	*descents = group_descents;
	*subnode_reads = group_subnode_reads;
	if (reset)
		group_descents = group_subnode_reads = 0;
}

/*
 * Learn the root's block and level from the metapage, into st and the
 * relcache's state.  Reads no other page, so that the planner (18's
 * amgettreeheight) can plan queries on a table whose index has a damaged
 * root, as it can with btree.
 */
void
pbt_read_root_from_meta(Relation index, PbtState *st)
{
	Buffer		metabuf;
	PbtMetaPageData *meta;

	metabuf = ReadBuffer(index, PBT_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	meta = PbtPageGetMeta(BufferGetPage(metabuf));
	pbt_meta_settings(index, st, meta);
	st->root = meta->root;
	st->rootlevel = meta->level;

	/*
	 * A scan's st is its private copy of the relcache's state: learn the
	 * root there too, or every later scan would read the metapage again
	 */
	if (st != index->rd_amcache && index->rd_amcache != NULL)
	{
		PbtState   *cached = (PbtState *) index->rd_amcache;

		pbt_meta_settings(index, cached, meta);
		cached->root = meta->root;
		cached->rootlevel = meta->level;
	}
	UnlockReleaseBuffer(metabuf);
}

/*
 * Lock the root page.  The root block is cached in st and revalidated here:
 * a page stays valid as a starting point even after a root split (the B-link
 * right-links lead on), but we refresh the cache from the metapage when the
 * page is no longer flagged as root.
 */
Buffer
pbt_get_root(Relation index, PbtState *st, int access)
{
	Buffer		buf;

	if (st->root != InvalidBlockNumber)
	{
		buf = pbt_read_hot(index, st->root);
		LockBuffer(buf, access);
		if (PbtIsRoot(PbtPageGetOpaque(BufferGetPage(buf))))
		{
			/* (a deleted inner page may come back as a higher root) */
			st->rootlevel = PbtPageGetOpaque(BufferGetPage(buf))->level;
			return buf;
		}
		UnlockReleaseBuffer(buf);
	}

	pbt_read_root_from_meta(index, st);
	buf = pbt_read_hot(index, st->root);
	LockBuffer(buf, access);

	/*
	 * The metapage names the root and its level together: a root at
	 * another level is damage, which would also lead a split back
	 * to a leaf it holds, to wait on its own lock.
	 */
	if (!PbtIsTreePage(BufferGetPage(buf)) ||
		PbtPageGetOpaque(BufferGetPage(buf))->level != st->rootlevel)
	{
		BlockNumber root = st->root;

		UnlockReleaseBuffer(buf);
		st->root = InvalidBlockNumber;
		pbt_page_error(index, root, "the root page is not at the metapage's root level");
	}
	return buf;
}

static PbtStack descend(Relation index, PbtState *st, PbtSearchKey *key,
						Buffer *bufp, int access, int target_level,
						PbtItemBuf *low);

/*
 * Descend to target_level, returning the page there that key belongs to in
 * *bufp, locked in access mode (inner levels above it are share-locked one at
 * a time).  Returns the stack of parent positions for an exclusive descent
 * (an insert needs it to add downlinks); readers get NULL, which saves a
 * palloc and pfree per level on every lookup.
 */
PbtStack
pbt_search(Relation index, PbtState *st, PbtSearchKey *key, Buffer *bufp,
		   int access, int target_level)
{
	return descend(index, st, key, bufp, access, target_level, NULL);
}

/*
 * Lock the leaf that key belongs to in access mode, for a reader or an
 * inserter: straight from the leaf cache (pbt_leafcache.c) where it knows
 * the leaf, else by a descent that tells the cache where it ended.  Returns
 * the descent's stack as pbt_search does; NULL from the cache (an insert's
 * split then finds the parent by its separator, pbt_insert_parent).
 */
PbtStack
pbt_search_leaf(Relation index, PbtState *st, PbtSearchKey *key, Buffer *bufp,
				int access)
{
	PbtItemBuf	low;
	PbtStack	stack;
	Page		page;
	PbtItem		first;

	if (!pbt_leaf_cache_applies(index, st, access))
		return descend(index, st, key, bufp, access, 0, NULL);
	/* (15's BufferIsValid evaluates its argument more than once) */
	*bufp = pbt_leaf_cache_lookup(index, st, key, access);
	if (BufferIsValid(*bufp))
		return NULL;
	if (pbt_group_size(index, st) == 0)
		return descend(index, st, key, bufp, access, 0, &low);

	/* a subnode is remembered by its first item (pbt_leafcache.c) */
	stack = descend(index, st, key, bufp, access, 0, NULL);
	page = BufferGetPage(*bufp);
	if (pbt_layout(page)->count(page) > 0)
	{
		pbt_layout(page)->get(page, 0, &first, &low);
		pbt_leaf_cache_remember(index, st, first.data, first.len, *bufp);
	}
	return stack;
}

/*
 * pbt_search; with low (a descent to a leaf), the level-1 separator it
 * follows goes there, and the leaf to the leaf cache.
 */
static PbtStack
descend(Relation index, PbtState *st, PbtSearchKey *key, Buffer *bufp,
		int access, int target_level, PbtItemBuf *low)
{
	PbtStack	stack = NULL;
	Buffer		buf;
	bool		forupdate = (access == BUFFER_LOCK_EXCLUSIVE);
	BlockNumber low_child = InvalidBlockNumber; /* reached through low */
	int			low_len = 0;
	int			child_level = -1;	/* the level a downlink leads to */

	Assert(access == BUFFER_LOCK_SHARE || access == BUFFER_LOCK_EXCLUSIVE);
	buf = pbt_get_root(index, st, BUFFER_LOCK_SHARE);
	if (PbtPageGetOpaque(BufferGetPage(buf))->level == target_level &&
		access != BUFFER_LOCK_SHARE)
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		LockBuffer(buf, access);
	}

	for (;;)
	{
		Page		page;
		PbtPageOpaque opaque;
		int			pos;
		BlockNumber child;
		int			lockmode;
		bool		child_inner;
		int			guess;

		page = BufferGetPage(buf);
		opaque = PbtPageGetOpaque(page);
		/* (the child was locked for the level its parent gave it) */
		if (child_level >= 0 && opaque->level != child_level)
			pbt_page_error(index, BufferGetBlockNumber(buf),
						   "descent reached an unexpected level");
		/* a reader needs no call when there is nothing to move right past */
		if (forupdate || PbtIsDeleted(opaque) || pbt_beyond_hikey(st, page, key))
		{
			lockmode = opaque->level == target_level ? access : BUFFER_LOCK_SHARE;
			buf = moveright(index, st, key, buf, lockmode, forupdate, stack);
			page = BufferGetPage(buf);
			opaque = PbtPageGetOpaque(page);
		}

		/* levels fall by one per step, which also bounds the loop */
		if ((child_level >= 0 && opaque->level != child_level) ||
			(opaque->level != target_level &&
			 (PbtIsLeaf(opaque) || opaque->level < target_level)))
			pbt_page_error(index, BufferGetBlockNumber(buf),
						   "descent reached an unexpected level");
		if (opaque->level == target_level)
			break;

		pos = pbt_binsearch(st, page, key);
		child = pbt_page_child(page, pos);
		if (low && opaque->level == 1 && pos >= pbt_page_first_key(page))
		{
			PbtItem		sep;

			pbt_inner_separator(page, pos, &sep, low);
			low_len = sep.len;
			memmove(low->data, sep.data, low_len);
			low_child = child;
		}

		if (forupdate)
		{
			PbtStack	entry = palloc(sizeof(PbtStackData));

			entry->blkno = BufferGetBlockNumber(buf);
			entry->pos = pos;
			entry->parent = stack;
			stack = entry;
		}

		child_level = opaque->level - 1;
		lockmode = (child_level == target_level) ? access : BUFFER_LOCK_SHARE;
		child_inner = child_level > 0;
		guess = 0;
		if (!child_inner)
		{
			if (st->group_size > 0 && st->normalized)
			{
				guess = pbt_group_guess(st, page, pos, key);
				group_descents++;
			}
			/* the run of the leaf the descent reads first */
			pbt_run_prefetch(index, st, guess > 0 ?
							 pbt_group_block(st->delta_group, child, guess) :
							 child);
		}
		UnlockReleaseBuffer(buf);
		buf = guess > 0 ?
			land_in_group(index, st, key, child, guess, lockmode) :
			InvalidBuffer;
		if (!BufferIsValid(buf))
		{
			buf = child_inner ? pbt_read_hot(index, child) :
				pbt_read_leaf(index, child);
			LockBuffer(buf, lockmode);
			if (!child_inner && st->group_size > 0)
				group_subnode_reads++;
		}
	}

	Assert(pbt_buffer_locked(buf, forupdate ? LW_EXCLUSIVE : LW_SHARED));
	Assert(!PbtIsDeleted(PbtPageGetOpaque(BufferGetPage(buf))));
	/* (only if the leaf is the downlink's child: not moved right from it) */
	if (low_len > 0 && BufferGetBlockNumber(buf) == low_child)
		pbt_leaf_cache_remember(index, st, low->data, low_len, buf);
	*bufp = buf;
	return stack;
}

/*
 * Share-lock the leftmost or rightmost page of the given level.
 */
Buffer
pbt_get_endpoint(Relation index, PbtState *st, uint32 level, bool rightmost)
{
	Buffer		buf = pbt_get_root(index, st, BUFFER_LOCK_SHARE);
	int			child_level = -1;	/* the level a downlink leads to */
	PbtLinkWalk walk = {0};

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		PbtPageOpaque opaque = PbtPageGetOpaque(page);
		const PbtLayout *layout;
		BlockNumber child;

		/* deleted pages hand their key space to the right */
		while (PbtIsDeleted(opaque) || (rightmost && !PbtIsRightmost(opaque)))
		{
			BlockNumber next = opaque->next;

			pbt_walk_step(index, &walk, next);
			UnlockReleaseBuffer(buf);
			CHECK_FOR_INTERRUPTS();
			buf = ReadBuffer(index, next);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			opaque = PbtPageGetOpaque(page);
		}
		layout = pbt_layout_checked(page);
		Assert(PbtIsTreePage(page));
		Assert(!rightmost || PbtIsRightmost(opaque));
		if ((child_level >= 0 && opaque->level != child_level) ||
			opaque->level < level ||
			(opaque->level != level && layout->count(page) == 0))
			pbt_page_error(index, BufferGetBlockNumber(buf),
						   "cannot find the end of a tree level");
		if (opaque->level == level)
			return buf;

		child = pbt_page_child(page, rightmost ? layout->count(page) - 1 : 0);
		child_level = opaque->level - 1;
		UnlockReleaseBuffer(buf);
		buf = ReadBuffer(index, child);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
	}
}

void
pbt_free_stack(PbtStack stack)
{
	while (stack)
	{
		PbtStack	parent = stack->parent;

		pfree(stack);
		stack = parent;
	}
}
