/*-------------------------------------------------------------------------
 *
 * pbt_group.c
 *	  Leaf groups: allocation, rebalancing and group splits (pbt_group.h).
 *
 * Pages that a rebalance or a group split rewrites are logged in one
 * record: with the resource manager, GROUP_REWRITE, which describes each
 * page's entries; without it, a core full-page-image record, whose redo
 * needs neither the resource manager nor generic WAL's four-page limit,
 * so groups work the same without preloading.  A hot-standby reader may see some pages of
 * such a record restored and others not yet; they then carry different
 * epochs, which the reader checks when it steps between subnodes.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_delta.h"
#include "pbt_group.h"
#include "pbt_insert.h"

#include "access/generic_xlog.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/*
 * Make page the subnode at pos of a group of n, empty, in the index's leaf
 * layout; a hole until it is linked (the caller clears PBT_HOLE then).
 */
void
pbt_init_subnode(Page page, PbtState *st, int pos, int n, uint64 epoch)
{
	PbtPageOpaque opaque;

	Assert(pos >= 0 && pos < n && n <= PBT_MAX_GROUP_SIZE);
	pbt_page_init(page, 0,
				  PBT_LEAF | PBT_GROUP | PBT_HOLE |
				  (st->normalized ? 0 : PBT_ALIGNED_ITEMS),
				  st->leaf_layout, st);
	opaque = PbtPageGetOpaque(page);
	opaque->group_pos = pos;
	opaque->group_size = n;
	pbt_set_group_epoch(opaque, epoch);
}

/*
 * Flag subnode page PBT_KEY_START if its low fence (its left neighbour's
 * high key, fencelen bytes at fence) is a prefix of its first entry's key
 * columns: then
 * every entry it will hold has key columns at or above the fence, no entry
 * to its left has its first entry's key, and a descent for that key may
 * stop at it (land_in_group) instead of reading its left neighbour too.
 */
void
pbt_group_mark_key_start(PbtState *st, Page page, const char *fence,
						 int fencelen, const PbtItem *first)
{
	Assert(pbt_is_subnode(PbtPageGetOpaque(page)));
	if (st->normalized &&
		fencelen <= pbt_item_key_len(st, first->data, first->len) &&
		memcmp(fence, first->data, fencelen) == 0)
		PbtPageGetOpaque(page)->flags |= PBT_KEY_START;
}

/* Whether page is block pos of a deleted group of n deleted with safexid */
static bool
deleted_group_block(Page page, int pos, int n, FullTransactionId safexid)
{
	PbtPageOpaque o = PbtPageGetOpaque(page);

	return !PageIsNew(page) && PbtIsDeleted(o) && PbtIsLeaf(o) &&
		o->group_pos == pos && o->group_size == n &&
		FullTransactionIdEquals(o->safexid, safexid);
}

/*
 * The first block of the deleted group of n blocks that the deleted leaf
 * at blkno belonged to, or InvalidBlockNumber if it belonged to none.
 */
static BlockNumber
deleted_group_start(uint32 g, int n, BlockNumber blkno, PbtPageOpaque o)
{
	if (o->group_size != n || o->group_pos >= n ||
		pbt_block_ordinal(g, blkno) < o->group_pos)
		return InvalidBlockNumber;
	return pbt_ordinal_block(g, pbt_block_ordinal(g, blkno) - o->group_pos);
}

/*
 * Whether the deleted leaf at blkno, whose page the caller has locked, is
 * a block of a deleted group that a new group can still take whole
 * (reuse_deleted_group): pbt_new_page leaves those to new groups while the
 * map offers other pages.  A block it cannot read without waiting counts
 * as such.  *known is the first block of the last group found so
 * (InvalidBlockNumber at first): the map tends to offer its other blocks
 * next, and they are not read again (a block wrongly taken for one only
 * stays in the map).
 */
bool
pbt_in_deleted_group(Relation index, PbtState *st, BlockNumber blkno,
					 Page page, BlockNumber *known)
{
	PbtPageOpaque o = PbtPageGetOpaque(page);
	uint32		g = st->delta_group;
	BlockNumber start = deleted_group_start(g, st->group_size, blkno, o);
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);

	if (!PbtIsLeaf(o) || start == InvalidBlockNumber)
		return false;
	if (start == *known)
		return true;
	for (int i = 0; i < st->group_size; i++)
	{
		BlockNumber b = pbt_group_block(g, start, i);
		Buffer		buf;
		bool		member;

		if (b == blkno)
			continue;
		if (b >= nblocks)
			return false;
		buf = ReadBuffer(index, b);
		if (!ConditionalLockBuffer(buf))
		{
			ReleaseBuffer(buf);
			return true;
		}
		member = deleted_group_block(BufferGetPage(buf), i, st->group_size,
									 o->safexid);
		UnlockReleaseBuffer(buf);
		if (!member)
			return false;
	}
	*known = start;
	return true;
}

/*
 * The n blocks of a group that VACUUM deleted (delete_subtree) and that
 * no scan can reach any more, exclusively locked in bufs, found through the
 * free space map; false if it offers none.  The map lists a group's blocks
 * one by one and may offer any of them; the blocks it offers that belong
 * to no such group go back to it at the end, for pbt_new_page.  The tries
 * are bounded, but generously: under a queue's churn the map holds a few
 * dozen single pages among the groups' blocks, and with 4 tries new groups
 * extended the index while deleted ones waited in the map.
 */
static bool
reuse_deleted_group(Relation index, uint32 g, int n, Buffer *bufs)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber passed[PBT_FREE_PAGE_TRIES];
	int			npassed = 0;
	BlockNumber offered = InvalidBlockNumber;
	bool		found = false;

	while (!found && npassed < lengthof(passed) &&
		   (offered = GetFreeIndexPage(index)) != InvalidBlockNumber)
	{
		BlockNumber start = InvalidBlockNumber;
		FullTransactionId safexid = InvalidFullTransactionId;
		bool		recyclable = false;
		Buffer		buf;
		int			i = 0;

		buf = ReadBuffer(index, offered);
		if (ConditionalLockBuffer(buf))
		{
			Page		page = BufferGetPage(buf);
			PbtPageOpaque o = PbtPageGetOpaque(page);

			/* it goes back to the map if no deleted group is reused here */
			recyclable = PageIsNew(page) ||
				(PbtIsDeleted(o) &&
				 GlobalVisCheckRemovableFullXid(NULL, o->safexid));
			if (recyclable && !PageIsNew(page) && PbtIsLeaf(o))
			{
				start = deleted_group_start(g, n, offered, o);
				safexid = o->safexid;
			}
			UnlockReleaseBuffer(buf);
		}
		else
			ReleaseBuffer(buf);
		for (; start != InvalidBlockNumber && i < n &&
			 pbt_group_block(g, start, i) < nblocks; i++)
		{
			bufs[i] = ReadBuffer(index, pbt_group_block(g, start, i));
			if (!ConditionalLockBuffer(bufs[i]))
			{
				ReleaseBuffer(bufs[i]);
				break;
			}
			/* a deleted group's blocks keep their position and size */
			if (!deleted_group_block(BufferGetPage(bufs[i]), i, n, safexid))
			{
				UnlockReleaseBuffer(bufs[i]);
				break;
			}
		}
		/* not while VACUUM reads in block order: extend (vacuum_blocks) */
		if (i == n && pbt_vacuum_scanning(index))
		{
			while (--i >= 0)
				UnlockReleaseBuffer(bufs[i]);
			passed[npassed++] = offered;
			break;
		}
		if (i == n)
		{
			pbt_log_reuse_page(index, start, safexid);
			for (i = 0; i < n; i++)
				if (pbt_group_block(g, start, i) != offered)
					RecordUsedIndexPage(index, pbt_group_block(g, start, i));
			elog(DEBUG2, "pagebtree: reuse of the leaf group at block %u of index \"%s\"",
				 start, RelationGetRelationName(index));
			found = true;
			break;
		}
		while (--i >= 0)
			UnlockReleaseBuffer(bufs[i]);
		if (recyclable)
			passed[npassed++] = offered;
	}
	pbt_return_free_pages(index, passed, npassed,
						  offered == InvalidBlockNumber);
	return found;
}

/*
 * A new group of n contiguous blocks, all holes, logged (if log) as one
 * record so that after a crash no extension hands its blocks to another
 * page: a deleted group's blocks, or new ones at the end of the index.
 * Returns its first block exclusively locked.
 */
Buffer
pbt_new_group(Relation index, PbtState *st, int n, uint64 epoch, bool log)
{
	Buffer		bufs[PBT_MAX_GROUP_SIZE];
	bool		needlock = !RELATION_IS_LOCAL(index);

	Assert(n >= 2 && n <= PBT_MAX_GROUP_SIZE);
	if (log && RelationNeedsWAL(index))
		XLogEnsureRecordSpace(n - 1, 0);
	/* (a build extends the index block by block, in order) */
	if (!log || !reuse_deleted_group(index, st->delta_group, n, bufs))
	{
		if (needlock)
			LockRelationForExtension(index, ExclusiveLock);
		for (int i = 0; i < n; i++)
		{
			bufs[i] = pbt_extend_relation_locked(index);
			/* side pages of the delta area stay zero until their first run */
			while (pbt_is_side_block(st->delta_group, BufferGetBlockNumber(bufs[i])))
			{
				UnlockReleaseBuffer(bufs[i]);
				bufs[i] = pbt_extend_relation_locked(index);
			}
			if (i > 0 && BufferGetBlockNumber(bufs[i]) !=
				pbt_group_block(st->delta_group, BufferGetBlockNumber(bufs[0]), i))
				elog(ERROR, "pagebtree: extending index \"%s\" gave block %u, not %u",
					 RelationGetRelationName(index), BufferGetBlockNumber(bufs[i]),
					 pbt_group_block(st->delta_group, BufferGetBlockNumber(bufs[0]), i));
		}
		if (needlock)
			UnlockRelationForExtension(index, ExclusiveLock);
	}

	START_CRIT_SECTION();
	for (int i = 0; i < n; i++)
		pbt_init_subnode(BufferGetPage(bufs[i]), st, i, n, epoch);
	if (log)
		pbt_log_group_pages(index, bufs, NULL, n);
	else
		for (int i = 0; i < n; i++)
			MarkBufferDirty(bufs[i]);
	END_CRIT_SECTION();
	for (int i = 1; i < n; i++)
		UnlockReleaseBuffer(bufs[i]);
	return bufs[0];
}

/*
 * The subnode after the locked subnode in buf, exclusively locked, if buf
 * is its group's last subnode in use and a hole follows: a split of buf
 * can then move its upper half there without a new downlink.  Else
 * InvalidBuffer.
 */
Buffer
pbt_group_hole_after(Relation index, PbtState *st, Buffer buf)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(BufferGetPage(buf));
	BlockNumber blkno = BufferGetBlockNumber(buf);
	BlockNumber holeblk = pbt_group_block(st->delta_group, blkno, 1);
	Buffer		hole;
	PbtPageOpaque hopaque;

	Assert(pbt_is_subnode(opaque) && !(opaque->flags & PBT_HOLE));
	if (opaque->group_pos + 1 >= opaque->group_size ||
		pbt_in_group(st->delta_group, opaque, blkno, opaque->next))
		return InvalidBuffer;
	hole = ReadBuffer(index, holeblk);
	pbt_lock_linked(index, hole, BUFFER_LOCK_EXCLUSIVE);
	hopaque = PbtPageGetOpaque(BufferGetPage(hole));
	if (PageIsNew(BufferGetPage(hole)) || !pbt_is_subnode(hopaque) ||
		!(hopaque->flags & PBT_HOLE) ||
		hopaque->group_pos != opaque->group_pos + 1 ||
		pbt_group_epoch(hopaque) != pbt_group_epoch(opaque))
		pbt_page_error(index, holeblk, "leaf group has no hole where expected");
	return hole;
}

/* the byte that holds the number of subnodes in use and the prefix's bits */
#define HINT_NUSED(hints)	((unsigned char) (hints)[0] & 0x1F)
#define HINT_SHIFT(hints)	((unsigned char) (hints)[0] >> 5)
/* the bits the window skips: p bytes (byte 1) and s bits */
#define HINT_PBITS(hints)	((unsigned char) (hints)[1] * 8 + HINT_SHIFT(hints))
#define HINT_MAX_PBITS		(255 * 8 + 7)
/* the widest field bits_at reads */
#define BITS_AT_MAX			57

/*
 * The width bits of x from bit start on, as a number (numbers compare as the
 * bits do): bits before x's first or after its last are zeros.
 */
static uint64
bits_at(const char *x, int len, int start, int width)
{
	int			end = start + width;
	int			firstbyte = start >= 0 ? start / 8 : -((7 - start) / 8);
	int			lastbyte = end > 0 ? (end - 1) / 8 : -1;
	uint64		w = 0;

	Assert(width >= 1 && width <= BITS_AT_MAX);
	for (int i = firstbyte; i <= lastbyte; i++)
		w = (w << 8) | (i >= 0 && i < len ? (unsigned char) x[i] : 0);
	return (w >> ((lastbyte + 1) * 8 - end)) & ((UINT64CONST(1) << width) - 1);
}

/* set the width bits of area from bit start on to value */
static void
put_bits(char *area, int start, int width, uint64 value)
{
	for (int b = 0; b < width; b++)
	{
		int			at = start + b;
		unsigned char mask = 0x80 >> (at % 8);

		if (value & (UINT64CONST(1) << (width - 1 - b)))
			area[at / 8] |= mask;
		else
			area[at / 8] &= ~mask;
	}
}

/*
 * After the header, the base (bits + 1 bits), then the hint of each subnode
 * i >= 1 (bits bits).
 */
#define HINT_AREA(hints)	((hints) + PBT_GROUP_HINT_HEADER)
#define HINT_AT(i, bits)	((bits) + 1 + ((i) - 1) * (bits))

static uint64
hint_base(const char *hints, int bits)
{
	return bits_at(HINT_AREA(hints), (bits + 1 + 7) / 8, 0, bits + 1);
}

static uint32
hint_get(const char *hints, int i, int bits)
{
	return (uint32) bits_at(HINT_AREA(hints), (HINT_AT(i, bits) + bits + 7) / 8,
							HINT_AT(i, bits), bits);
}

static void
hint_put(char *hints, int i, int bits, uint32 value)
{
	Assert(value < (UINT64CONST(1) << bits));
	put_bits(HINT_AREA(hints), HINT_AT(i, bits), bits, value);
}

/* x's window: its bits + 1 bits that end bits after its first pbits */
static uint64
hint_window(const char *x, int len, int pbits, int bits)
{
	return bits_at(x, len, pbits - 1, bits + 1);
}

/*
 * x's place in the group that the hints describe: its window less the base,
 * modulo 2^(bits + 1).  Keys of the group's entries are at 0 .. 2^bits - 1;
 * a key past them maps to 2^bits (after every subnode's hint), one before
 * them to -1, the lower half of the rest to the one and the upper half to
 * the other.
 */
static int64
hint_place(const char *hints, int bits, const char *x, int len)
{
	uint64		d = (hint_window(x, len, HINT_PBITS(hints), bits) -
					 hint_base(hints, bits)) & ((UINT64CONST(1) << (bits + 1)) - 1);

	if (d < (UINT64CONST(1) << bits))
		return (int64) d;
	if (d < (UINT64CONST(3) << (bits - 1)))
		return (int64) 1 << bits;
	return -1;
}

/*
 * How many leading bits a and b share, at most HINT_MAX_PBITS.
 */
static int
shared_bits(const PbtItem *a, const PbtItem *b)
{
	int			p = 0;
	int			s = 0;

	while (p < 255 && p < a->len && p < b->len && a->data[p] == b->data[p])
		p++;
	if (p < 255 && p < a->len && p < b->len)
	{
		unsigned char diff = (unsigned char) (a->data[p] ^ b->data[p]);

		while (s < 7 && !(diff & (0x80 >> s)))
			s++;
	}
	return p * 8 + s;
}

/*
 * The most bits to skip before a window of width bits in which hi's bits less
 * lo's (lo <= hi) stay below 2^width: the window then spans at least half of
 * its values between them, wherever they fall against powers of two.
 */
static int
window_start(const PbtItem *lo, const PbtItem *hi, int width)
{
	int			shared = shared_bits(lo, hi);
	uint64		l = bits_at(lo->data, lo->len, shared, BITS_AT_MAX);
	uint64		h = bits_at(hi->data, hi->len, shared, BITS_AT_MAX);
	int			sh = 0;

	Assert(width >= 1 && width < BITS_AT_MAX);
	while ((h >> sh) - (l >> sh) >= (UINT64CONST(1) << width))
		sh++;
	return Min(shared + BITS_AT_MAX - width - sh, HINT_MAX_PBITS);
}

/* start hints with nused subnodes, skipping pbits bits, at base */
static void
hint_header(char *hints, int nused, int pbits, uint64 epoch, int bits,
			uint64 base)
{
	Assert(nused <= PBT_MAX_GROUP_SIZE && pbits <= HINT_MAX_PBITS);
	hints[0] = (char) (nused | (pbits % 8) << 5);
	hints[1] = (char) (pbits / 8);
	hints[2] = (char) (epoch & 0xFF);
	put_bits(HINT_AREA(hints), 0, bits + 1, base);
}

/*
 * Make the hints (pbt_group.h) of a group whose subnodes in use are
 * pages[0 .. nused), some maybe empty, with the given epoch, into out
 * (PBT_GROUP_HINT_BYTES(st) bytes): none (zeros) if it has no entries.
 */
void
pbt_group_make_hints(PbtState *st, Page *pages, int nused, uint64 epoch,
					 char *out)
{
	int			bits = st->group_hint_bits;
	int			firstpage = 0;
	int			lastpage = nused - 1;
	PbtItem		first;
	PbtItem		last;
	PbtItemBuf	firstbuf;
	PbtItemBuf	lastbuf;
	int			pbits;
	uint32		next;

	Assert(nused >= 1 && nused <= (int) st->group_size);
	memset(out, 0, PBT_GROUP_HINT_BYTES(st));
	while (firstpage < nused && pbt_layout(pages[firstpage])->count(pages[firstpage]) == 0)
		firstpage++;
	while (lastpage >= 0 && pbt_layout(pages[lastpage])->count(pages[lastpage]) == 0)
		lastpage--;
	if (firstpage > lastpage)
		return;
	pbt_layout(pages[firstpage])->get(pages[firstpage], 0, &first, &firstbuf);
	pbt_layout(pages[lastpage])->get(pages[lastpage],
									 pbt_layout(pages[lastpage])->count(pages[lastpage]) - 1,
									 &last, &lastbuf);
	pbits = window_start(&first, &last, bits);
	hint_header(out, nused, pbits, epoch, bits,
				hint_window(first.data, first.len, pbits, bits));
	/* an empty subnode predicts like the next one: nothing to find there */
	next = (uint32) ((UINT64CONST(1) << bits) - 1);
	for (int i = st->group_size - 1; i >= 1; i--)
	{
		if (i < nused && pbt_layout(pages[i])->count(pages[i]) > 0)
		{
			PbtItem		item;
			PbtItemBuf	itembuf;
			int64		place;

			pbt_layout(pages[i])->get(pages[i], 0, &item, &itembuf);
			place = hint_place(out, bits, item.data, item.len);
			Assert(place >= 0 && place < ((int64) 1 << bits));
			next = (uint32) place;
		}
		hint_put(out, i, bits, next);
	}
}

/*
 * The subnode the hints predict for key, -1 if there are no hints: the
 * last one whose first entry's hint is below the key's, or the next one if
 * its hint equals the key's.  Where they are equal the key may be on either
 * side, but the later subnode holds its first entry's key, which lookups
 * ask for more than any other key of those bits (land_in_group steps back
 * when the key is to its left).  Of equal hints the first is guessed: the
 * descent moves right from it.
 */
int
pbt_group_hinted_subnode(PbtState *st, const char *hints, const char *key,
						 int keylen)
{
	int			bits = st->group_hint_bits;
	int			nused = HINT_NUSED(hints);
	int64		k;
	int			j = 0;

	if (nused == 0 || nused > (int) st->group_size)
		return -1;
	k = hint_place(hints, bits, key, keylen);
	while (j + 1 < nused && hint_get(hints, j + 1, bits) < k)
		j++;
	if (j + 1 < nused && hint_get(hints, j + 1, bits) == k)
		j++;
	return j;
}

/* the number of subnodes in use that hints were made for, 0: none */
int
pbt_group_hints_nused(const char *hints)
{
	return HINT_NUSED(hints);
}

/* what is wrong with the hints of a downlink, NULL if nothing */
const char *
pbt_group_hints_problem(PbtState *st, const char *hints)
{
	int			bits = st->group_hint_bits;
	int			nused = HINT_NUSED(hints);

	if (nused == 0)
		return NULL;
	if (nused > (int) st->group_size)
		return "group hints count more subnodes than a group has";
	for (int i = 2; i < (int) st->group_size; i++)
		if (hint_get(hints, i - 1, bits) > hint_get(hints, i, bits))
			return "group hints decrease";
	return NULL;
}

/*
 * The hints in the downlink of the group that starts at start, found as a
 * split finds it (no subnode locked), with its page exclusively locked in
 * *pbuf and its position in *pos; NULL if the downlink cannot be found
 * (hints are only guesses: they then stay as they are).
 */
static char *
lock_group_hints(Relation index, PbtState *st, PbtStack stack,
				 BlockNumber start, Buffer *pbuf, int *pos)
{
	Page		page;

	if (PBT_GROUP_HINT_BYTES(st) == 0 || stack == NULL)
		return NULL;
	*pbuf = pbt_get_parent(index, st, stack, start, pos, true);
	if (!BufferIsValid(*pbuf))
		return NULL;
	page = BufferGetPage(*pbuf);
	Assert(pbt_page_downlink_size(page) == PBT_DOWNLINK_SIZE(st));
	return pbt_layout(page)->downlink(page, *pos) + sizeof(BlockNumber);
}

/*
 * Overwrite the hints of the downlink at pos of the locked page in pbuf,
 * and release it: a byte diff of a few dozen bytes, logged as generic WAL
 * in either mode.
 */
static void
write_group_hints(Relation index, PbtState *st, Buffer pbuf, int pos,
				  const char *hints)
{
	GenericXLogState *xlog = GenericXLogStart(index);
	Page		wpage = pbt_generic_register(xlog, pbuf, 0);

	memcpy(pbt_layout(wpage)->downlink(wpage, pos) + sizeof(BlockNumber),
		   hints, PBT_GROUP_HINT_BYTES(st));
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(pbuf);
}

/*
 * Write the new hints of the group that starts at start into its downlink,
 * unless the downlink holds hints of a later epoch: another rebalance of
 * the group got there first.
 */
static void
set_group_hints(Relation index, PbtState *st, PbtStack stack,
				BlockNumber start, const char *hints)
{
	Buffer		pbuf;
	int			pos;
	char	   *cur = lock_group_hints(index, st, stack, start, &pbuf, &pos);

	if (cur == NULL)
		return;
	if ((HINT_NUSED(cur) == 0 || (int8) ((uint8) hints[2] - (uint8) cur[2]) >= 0) &&
		memcmp(cur, hints, PBT_GROUP_HINT_BYTES(st)) != 0)
		write_group_hints(index, st, pbuf, pos, hints);
	else
		UnlockReleaseBuffer(pbuf);
}

/*
 * Bits left for the hints of the subnodes a split adds after the first:
 * room for a group of PBT_MAX_GROUP_SIZE subnodes with equal gaps
 */
#define GROWTH_BITS 4

/*
 * How far added is past left (left <= added) in windows that end at bit
 * end, -1 if too far for bits_at to tell.
 */
static int64
window_gap(const PbtItem *left, const PbtItem *added, int end)
{
	if (shared_bits(left, added) < end - BITS_AT_MAX)
		return -1;
	return (int64) (bits_at(added->data, added->len, end - BITS_AT_MAX, BITS_AT_MAX) -
					bits_at(left->data, left->len, end - BITS_AT_MAX, BITS_AT_MAX));
}

/*
 * A split of the group's last subnode in use moved its upper half into the
 * hole at position j, whose first entry is now added (left: the first entry
 * of subnode j - 1): extend the hints of the group that starts at start
 * (epoch epoch) by that subnode, if they describe the j subnodes before it.
 * Its place is left's plus the gap between them.  A group with no hints yet
 * (made by the last split of the index's rightmost group) gets them at its
 * first such split (j = 1), based at left, in a window in which added's
 * place takes GROWTH_BITS fewer bits than the window has, so that the
 * group's next subnodes of ascending keys fit.  A key past the window
 * widens it: the window ends t bits sooner, so that the key's place is
 * below half of it, and the hints so far move down, carrying the low t bits
 * of the first entry's window (found from left's and its place).  Hints
 * that would sort below the previous subnode's are not written: those
 * subnodes are found by moving right.
 */
void
pbt_group_subnode_added(Relation index, PbtState *st, PbtStack stack,
						BlockNumber start, int j, uint64 epoch,
						const PbtItem *left, const PbtItem *added)
{
	int			bits = st->group_hint_bits;
	int			hb = PBT_GROUP_HINT_BYTES(st);
	char		hints[PBT_GROUP_HINT_MAX_BYTES];
	int			pbits;
	int64		left_place;
	int64		place;
	Buffer		pbuf;
	int			pos;
	char	   *cur = lock_group_hints(index, st, stack, start, &pbuf, &pos);

	Assert(j >= 1 && j < (int) st->group_size);
	if (cur == NULL)
		return;
	memcpy(hints, cur, hb);
	if (HINT_NUSED(hints) == 0 && j == 1)
	{
		int			width = Max(bits - GROWTH_BITS, 1);

		pbits = Max(window_start(left, added, width) + width - bits, 0);
		memset(HINT_AREA(hints), 0xFF, hb - PBT_GROUP_HINT_HEADER);
		hint_header(hints, 1, pbits, epoch, bits,
					hint_window(left->data, left->len, pbits, bits));
	}
	if (HINT_NUSED(hints) != j || (unsigned char) hints[2] != (epoch & 0xFF))
	{
		UnlockReleaseBuffer(pbuf);
		return;
	}
	pbits = HINT_PBITS(hints);
	left_place = j > 1 ? hint_get(hints, j - 1, bits) : 0;
	place = window_gap(left, added, pbits + bits);
	if (place >= 0)
		place += left_place;
	if (place < 0 || place >= ((int64) 1 << bits))
	{
		place = -1;
		for (int t = 1; t <= pbits && t < BITS_AT_MAX; t++)
		{
			int			end = pbits + bits - t;
			uint64		carry = (bits_at(left->data, left->len, end, t) -
								 (uint64) left_place) & ((UINT64CONST(1) << t) - 1);
			int64		gap = window_gap(left, added, end);
			int64		new_left_place = (int64) ((carry + left_place) >> t);

			if (gap >= 0 && new_left_place + gap < ((int64) 1 << (bits - 1)))
			{
				for (int i = 1; i < j; i++)
					hint_put(hints, i, bits,
							 (uint32) ((carry + hint_get(hints, i, bits)) >> t));
				hint_header(hints, j, pbits - t, epoch, bits,
							(hint_window(left->data, left->len, pbits - t, bits) -
							 new_left_place) & ((UINT64CONST(1) << (bits + 1)) - 1));
				place = new_left_place + gap;
				break;
			}
		}
	}
	if (place >= 0 && (j == 1 || hint_get(hints, j - 1, bits) <= place))
	{
		hint_put(hints, j, bits, (uint32) place);
		hints[0] = (char) (hints[0] + 1);
		write_group_hints(index, st, pbuf, pos, hints);
	}
	else
		UnlockReleaseBuffer(pbuf);
}

/* a page of the new group layout (see plan_pages) */
typedef struct PlannedPage
{
	int			first;			/* items[first, end) */
	int			end;
	uint8		tag;			/* its layout */
	StringInfoData hikey;		/* len 0: none (the rightmost page) */
} PlannedPage;

/*
 * Would items[first, end) with the high key hikey (NULL: none) fit a leaf,
 * in the layout the policy picks for them, or else in one the group's
 * pages have (kept, a mask of tags: pbt_fit_kept_layout)?  *bytes: what
 * they take there.
 */
static bool
page_fits(PbtState *st, PbtItem *items, int first, int end, PbtItem *hikey,
		  uint16 kept, uint8 *tag, int *bytes)
{
	const PbtLayout *layout;

	if (end == first)
	{
		*tag = st->leaf_layout;
		*bytes = hikey ? MAXALIGN(hikey->len) : 0;
		return true;
	}
	*tag = pbt_choose_leaf_layout(st, items + first, end - first, hikey,
								  false);
	if (!(pbt_layout_by_tag(*tag)->flags & PBT_LF_REBUILT))
		*tag = st->leaf_layout;
	layout = pbt_layout_by_tag(*tag);
	*bytes = 0;
	if (!layout->fits(items + first, end - first, hikey, bytes) &&
		!pbt_fit_kept_layout(kept & ~(1 << *tag), items + first, end - first,
							 hikey, tag, bytes))
		return false;
	*bytes += hikey ? MAXALIGN(hikey->len) : 0;
	return true;
}

/*
 * Plan page k of pages as items[b, e), the last page of the plan if last
 * (high key lasthikey, NULL: none), else with the separator at e as its
 * high key, or its left neighbour's if it is empty.  Does it fit?
 */
static bool
try_page(PbtState *st, PbtItem *items, int b, int e, PlannedPage *pages,
		 int k, bool last, PbtItem *lasthikey, uint16 kept, int *bytes)
{
	PlannedPage *pg = &pages[k];
	PbtItem		hk;

	resetStringInfo(&pg->hikey);
	if (last)
	{
		if (lasthikey)
			appendBinaryStringInfo(&pg->hikey, lasthikey->data, lasthikey->len);
	}
	else if (e > b)
		pbt_separator(st, &items[e - 1], &items[e], &pg->hikey);
	else
		appendBinaryStringInfo(&pg->hikey, pages[k - 1].hikey.data,
							   pages[k - 1].hikey.len);
	hk.data = pg->hikey.data;
	hk.len = pg->hikey.len;
	pg->first = b;
	pg->end = e;
	return page_fits(st, items, b, e, pg->hikey.len > 0 ? &hk : NULL, kept,
					 &pg->tag, bytes);
}

/*
 * Spread the sorted items[first, end) over npages pages, the last with
 * high key lasthikey (NULL: none): at about equal bytes, or if packed as
 * many on each page as fit (one key's entries may take more bytes on a
 * page they share with another key, where they cannot make a posting
 * leaf).  The first and last pages get at least one item; a page between
 * may stay empty, with the high key of the page before it.  Returns the
 * fullest page's bytes, or -1 if the items do not fit.
 */
static int
plan_pages(PbtState *st, PbtItem *items, int first, int end, int npages,
		   PbtItem *lasthikey, uint16 kept, bool packed, PlannedPage *pages)
{
	int64		total = 0;
	int64		acc = 0;
	int			b = first;
	int			fullest = 0;

	Assert(end - first >= 2 && npages >= 1);
	for (int i = first; i < end; i++)
		total += items[i].len;
	for (int k = 0; k < npages; k++)
	{
		bool		last = k == npages - 1;
		int			e = b;
		int			bytes;

		initStringInfo(&pages[k].hikey);
		if (last)
			e = end;
		else if (packed)
		{
			/* the most items that fit, leaving one for the last page */
			int			lo = k == 0 ? b + 1 : b;
			int			hi = end - 1;

			while (lo < hi)
			{
				int			mid = (lo + hi + 1) / 2;

				if (try_page(st, items, b, mid, pages, k, false, NULL, kept,
							 &bytes))
					lo = mid;
				else
					hi = mid - 1;
			}
			e = lo;
		}
		else
		{
			int64		target = total * (k + 1) / npages;

			/* the cut nearest the target, keeping the ends nonempty */
			while (e < end - 1 && acc + items[e].len / 2 < target)
				acc += items[e++].len;
			if (k == 0 && e == first)
				acc += items[e++].len;
		}
		/* too many: leave the last ones to the next page */
		while (!try_page(st, items, b, e, pages, k, last, lasthikey, kept,
						 &bytes))
		{
			if (last || (k == 0 && e == b + 1))
				return -1;
			acc -= items[--e].len;
		}
		fullest = Max(fullest, bytes);
		b = e;
	}
	return fullest;
}

/* plan_pages at equal bytes, or packed if the items do not fit so */
static int
plan_group(PbtState *st, PbtItem *items, int first, int end, int npages,
		   PbtItem *lasthikey, uint16 kept, PlannedPage *pages)
{
	int			fullest = plan_pages(st, items, first, end, npages, lasthikey,
									 kept, false, pages);

	if (fullest < 0)
		fullest = plan_pages(st, items, first, end, npages, lasthikey, kept,
							 true, pages);
	return fullest;
}

/* Write planned page k of a group into page (built in backend memory). */
static void
build_subnode(PbtState *st, Page page, PbtItem *items, PlannedPage *pg,
			  int pos, int n, uint64 epoch, uint8 counter)
{
	PbtItem		hk;
	PbtItem    *hkp = NULL;

	pbt_init_subnode(page, st, pos, n, epoch);
	PbtPageGetOpaque(page)->flags &= ~PBT_HOLE;
	if (pg->hikey.len > 0)
	{
		hk.data = pg->hikey.data;
		hk.len = pg->hikey.len;
		hkp = &hk;
	}
	pbt_page_rebuild_as(page, pg->tag, st, items + pg->first,
						pg->end - pg->first, hkp);
	if (pg->end > pg->first)
		pbt_adapt_leaf(st, page, counter, items + pg->first,
					   pg->end - pg->first, hkp);
}

/*
 * Copies of the entries of the locked subnode in buf, with its pending ones
 * (its run) merged in: sorted, *n of them.
 */
static PbtItem *
subnode_entries(Relation index, PbtState *st, Buffer buf, int *n)
{
	Page		page = BufferGetPage(buf);
	int			cnt = pbt_layout_checked(page)->count(page);
	PbtItem    *entries = pbt_page_copy_items(page, cnt);
	PbtRun		run;

	*n = cnt;
	if (!pbt_run_read(index, st, buf, &run, NULL))
		return entries;
	pbt_run_sort(st, &run);
	entries = repalloc(entries, sizeof(PbtItem) * (cnt + run.n));
	*n = pbt_run_merge(st, entries, cnt, &run, NULL);
	return entries;
}

/* percent of a page above which a full subnode splits its group */
#define PBT_GROUP_SPLIT_FILL 97

/*
 * A rebalance or group split moves entries between any two of its pages
 * (bufs[0..npages), locked), so a serializable transaction's predicate
 * lock on one of them now covers keys on all of them: copy every page's
 * locks to the last page, then the last page's to the others.
 */
static void
spread_predicate_locks(Relation index, Buffer *bufs, int npages)
{
	BlockNumber last = BufferGetBlockNumber(bufs[npages - 1]);

	for (int k = 0; k < npages - 1; k++)
		PredicateLockPageSplit(index, BufferGetBlockNumber(bufs[k]), last);
	for (int k = 0; k < npages - 1; k++)
		PredicateLockPageSplit(index, last, BufferGetBlockNumber(bufs[k]));
}

/*
 * The subnode in buf (exclusively locked) cannot take an insert and no
 * hole follows it: rebalance its group, or split the group in two.
 * items[0, nitems) are its items with the new one, sorted.  Locks the
 * group's other subnodes, left ones without waiting (writers lock left to
 * right): if one is busy, releases everything, waits for it and returns
 * false, and the caller inserts again from the top.  Also false after
 * finishing an earlier split of the group.  Releases buf; true once the
 * entry is in.
 */
bool
pbt_group_overflow(Relation index, PbtState *st, Buffer buf, PbtStack stack,
				   PbtItem *items, int nitems)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(BufferGetPage(buf));
	BlockNumber blkno = BufferGetBlockNumber(buf);
	int			n = opaque->group_size;
	int			j = opaque->group_pos;
	uint32		g = st->delta_group;
	BlockNumber start = pbt_group_start(g, opaque, blkno);
	uint64		epoch = pbt_group_epoch(opaque);
	uint8		counter = opaque->op_counter;
	Buffer		bufs[2 * PBT_MAX_GROUP_SIZE + 1];
	int			nbufs;
	int			nactive = 0;
	PbtItem    *subitems[PBT_MAX_GROUP_SIZE];
	int			nsubitems[PBT_MAX_GROUP_SIZE];
	PbtPageOpaque lastop;
	BlockNumber oldprev;
	BlockNumber oldnext;
	Buffer		sbuf = InvalidBuffer;
	PbtItem		grouphk;
	StringInfoData grouphkbuf;
	PbtItem    *all;
	int			nall = 0;
	PlannedPage pages[2 * PBT_MAX_GROUP_SIZE];
	int			mid = 0;
	bool		split;
	StringInfoData sep;
	Buffer		newbuf = InvalidBuffer;
	BlockNumber newstart = InvalidBlockNumber;
	Page		images[2 * PBT_MAX_GROUP_SIZE];
	StringInfo	descs[2 * PBT_MAX_GROUP_SIZE + 1] = {0};
	StringInfo	logdescs[2 * PBT_MAX_GROUP_SIZE + 1];
	Buffer		logbufs[2 * PBT_MAX_GROUP_SIZE + 1];
	char		hints[2][PBT_GROUP_HINT_MAX_BYTES];
	int			npages;
	int			fullest;
	uint16		kept = 0;		/* the subnodes' layouts */

	Assert(pbt_buffer_locked(buf, LW_EXCLUSIVE));
	for (int i = 0; i < j; i++)
	{
		bufs[i] = ReadBuffer(index, pbt_group_block(g, start, i));
		if (!ConditionalLockBuffer(bufs[i]))
		{
			BlockNumber busy = pbt_group_block(g, start, i);

			ReleaseBuffer(bufs[i]);
			for (int k = 0; k < i; k++)
				UnlockReleaseBuffer(bufs[k]);
			UnlockReleaseBuffer(buf);
			bufs[0] = ReadBuffer(index, busy);
			LockBuffer(bufs[0], BUFFER_LOCK_SHARE);
			UnlockReleaseBuffer(bufs[0]);
			return false;
		}
	}
	bufs[j] = buf;
	for (int i = j + 1; i < n; i++)
	{
		bufs[i] = ReadBuffer(index, pbt_group_block(g, start, i));
		LockBuffer(bufs[i], BUFFER_LOCK_EXCLUSIVE);
	}
	/* in use: a prefix of the group, j among them (we hold j: no change) */
	for (int i = 0; i < n; i++)
	{
		Page		page = BufferGetPage(bufs[i]);
		PbtPageOpaque o = PbtPageGetOpaque(page);

		if (PageIsNew(page) || !pbt_is_subnode(o) || o->group_pos != i ||
			o->group_size != n || pbt_group_epoch(o) != epoch ||
			((o->flags & PBT_HOLE) ? i <= j : i > nactive))
			pbt_page_error(index, pbt_group_block(g, start, i), "leaf group is inconsistent");
		if (!(o->flags & PBT_HOLE))
			nactive = i + 1;
		kept |= 1 << o->layout;
	}
	lastop = PbtPageGetOpaque(BufferGetPage(bufs[nactive - 1]));

	/* an earlier group split still lacks its downlink: add it first */
	if (lastop->flags & PBT_INCOMPLETE_SPLIT)
	{
		for (int i = 0; i < n; i++)
			if (i != nactive - 1)
				UnlockReleaseBuffer(bufs[i]);
		pbt_finish_split(index, st, bufs[nactive - 1], stack);
		return false;
	}
	oldprev = PbtPageGetOpaque(BufferGetPage(bufs[0]))->prev;
	oldnext = lastop->next;
	initStringInfo(&grouphkbuf);
	if (pbt_page_get_hikey(BufferGetPage(bufs[nactive - 1]), &grouphk))
		appendBinaryStringInfo(&grouphkbuf, grouphk.data, grouphk.len);
	grouphk.data = grouphkbuf.data;
	grouphk.len = grouphkbuf.len;

	/*
	 * All the group's entries, in order, pending ones included: the new
	 * epoch leaves the subnodes' runs stale (pbt_delta.h), so their entries
	 * move into the pages without a change to the side pages.
	 */
	for (int i = 0; i < nactive; i++)
	{
		if (i == j)
		{
			subitems[i] = items;
			nsubitems[i] = nitems;
		}
		else
			subitems[i] = subnode_entries(index, st, bufs[i], &nsubitems[i]);
		nall += nsubitems[i];
	}
	all = palloc(sizeof(PbtItem) * nall);
	nall = 0;
	for (int i = 0; i < nactive; i++)
	{
		memcpy(all + nall, subitems[i], sizeof(PbtItem) * nsubitems[i]);
		nall += nsubitems[i];
	}

	/*
	 * Rebalance while the pages stay below the split fill, or if a split
	 * would leave a group of fewer than two entries (long keys in groups of
	 * two: any two entries and a high key fit a page, so three fit two).
	 */
	fullest = plan_pages(st, all, 0, nall, n, grouphk.len > 0 ? &grouphk : NULL,
						 kept, false, pages);
	split = nall >= 4 &&
		(fullest < 0 || fullest > PBT_USABLE_SPACE * PBT_GROUP_SPLIT_FILL / 100);
	if (!split && fullest < 0)
		elog(ERROR, "pagebtree: leaf group at block %u of index \"%s\" cannot hold its %d entries",
			 start, RelationGetRelationName(index), nall);
	initStringInfo(&sep);
	if (split)
	{
		int64		total = 0;
		int64		acc;
		PbtItem		sepitem;

		for (int i = 0; i < nall; i++)
			total += all[i].len;
		/* acc: the bytes of all[0, mid - 1) */
		acc = all[0].len;
		for (mid = 2; mid < nall - 2 && acc + all[mid - 1].len < total / 2; mid++)
			acc += all[mid - 1].len;
		pbt_separator(st, &all[mid - 1], &all[mid], &sep);
		sepitem.data = sep.data;
		sepitem.len = sep.len;
		if (plan_group(st, all, 0, mid, n, &sepitem, kept, pages) < 0 ||
			plan_group(st, all, mid, nall, n, grouphk.len > 0 ? &grouphk : NULL,
					   kept, pages + n) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("pagebtree: could not split leaf group at block %u of index \"%s\"",
							start, RelationGetRelationName(index))));
		newbuf = pbt_new_group(index, st, n, epoch + 1, true);
		newstart = BufferGetBlockNumber(newbuf);
		bufs[n] = newbuf;
		for (int i = 1; i < n; i++)
		{
			bufs[n + i] = ReadBuffer(index, pbt_group_block(g, newstart, i));
			LockBuffer(bufs[n + i], BUFFER_LOCK_EXCLUSIVE);
		}
	}
	npages = split ? 2 * n : n;
	nbufs = npages;
	spread_predicate_locks(index, bufs, npages);
	/* the right sibling's left-link changes when the last subnode does */
	if (oldnext != InvalidBlockNumber && (split || nactive < n))
	{
		sbuf = ReadBuffer(index, oldnext);
		pbt_lock_linked(index, sbuf, BUFFER_LOCK_EXCLUSIVE);
		bufs[nbufs++] = sbuf;
	}

	/* the new pages, built where nothing can fail in a critical section */
	for (int k = 0; k < npages; k++)
	{
		BlockNumber gstart = k < n ? start : newstart;
		PbtPageOpaque o;

		images[k] = palloc(BLCKSZ);
		build_subnode(st, images[k], all, &pages[k], k % n, n, epoch + 1,
					  counter);
		if (k % n > 0 && pages[k].end > pages[k].first)
			pbt_group_mark_key_start(st, images[k], pages[k - 1].hikey.data,
									 pages[k - 1].hikey.len, &all[pages[k].first]);
		/* the old LSN, by which XLogInsert decides on a full-page image */
		PageSetLSN(images[k], PageGetLSN(BufferGetPage(bufs[k])));
		o = PbtPageGetOpaque(images[k]);
		o->prev = k == 0 ? oldprev : (k % n == 0 ? pbt_group_block(g, start, n - 1) :
									  pbt_group_block(g, gstart, k % n - 1));
		if (k == npages - 1)
			o->next = oldnext;
		else if (k == n - 1)
			o->next = newstart;
		else
			o->next = pbt_group_block(g, gstart, (k + 1) % n);
		if (split && k == n - 1)
			o->flags |= PBT_INCOMPLETE_SPLIT;
	}

	/*
	 * With the resource manager, the group's own subnodes are logged as the
	 * entries they gained, and the new group's (holes until now) as their
	 * entries, where that takes fewer bytes than their images.
	 */
	if (pbt_rmgr_registered && RelationNeedsWAL(index))
	{
		for (int k = 0; k < nbufs; k++)
		{
			if (k < npages)
			{
				descs[k] = makeStringInfo();
				if (!pbt_describe_page(st, BufferGetPage(bufs[k]),
									   images[k], all + pages[k].first,
									   pages[k].end - pages[k].first,
									   descs[k]))
					descs[k] = NULL;
			}
			else if (k == nbufs - 1 && BufferIsValid(sbuf))
			{
				BlockNumber prev = pbt_group_block(g, split ? newstart : start,
												   n - 1);

				descs[k] = makeStringInfo();
				appendBinaryStringInfo(descs[k], (char *) &prev, sizeof(prev));
			}
		}
	}
	if (RelationNeedsWAL(index))
		XLogEnsureRecordSpace(nbufs - 1, nbufs);
	START_CRIT_SECTION();
	for (int k = 0; k < npages; k++)
		memcpy(BufferGetPage(bufs[k]), images[k], BLCKSZ);
	if (BufferIsValid(sbuf))
		PbtPageGetOpaque(BufferGetPage(sbuf))->prev =
			pbt_group_block(g, split ? newstart : start, n - 1);

	/*
	 * Redo of the record restores and releases its pages one at a time, in
	 * block id order: the new group goes first, so that a hot-standby
	 * reader that follows the old group's new link to it never finds a
	 * hole there, and the right sibling last, so that a backward reader
	 * that walks left from it finds the group it left by moving right.
	 */
	memcpy(logbufs, bufs, sizeof(Buffer) * nbufs);
	memcpy(logdescs, descs, sizeof(StringInfo) * nbufs);
	if (split)
	{
		memcpy(logbufs, bufs + n, sizeof(Buffer) * n);
		memcpy(logbufs + n, bufs, sizeof(Buffer) * n);
		memcpy(logdescs, descs + n, sizeof(StringInfo) * n);
		memcpy(logdescs + n, descs, sizeof(StringInfo) * n);
	}
	pbt_log_group_pages(index, logbufs,
						pbt_rmgr_registered ? logdescs : NULL, nbufs);
	END_CRIT_SECTION();

	for (int h = 0; PBT_GROUP_HINT_BYTES(st) > 0 && h < npages / n; h++)
		pbt_group_make_hints(st, images + h * n, n, epoch + 1, hints[h]);
	for (int k = 0; k < npages; k++)
	{
		PBT_CHECK_PAGE(index, BufferGetPage(bufs[k]), BufferGetBlockNumber(bufs[k]));
		pfree(images[k]);
	}
	if (BufferIsValid(sbuf))
		UnlockReleaseBuffer(sbuf);
	elog(DEBUG2, "pagebtree: %s of the leaf group at block %u of index \"%s\" (%d entries; balanced, its fullest page would take %d bytes)",
		 split ? "split" : "rebalance", start, RelationGetRelationName(index),
		 nall, fullest);
	if (!split)
	{
		for (int k = 0; k < n; k++)
			UnlockReleaseBuffer(bufs[k]);
		set_group_hints(index, st, stack, start, hints[0]);
		return true;
	}

	/* second step: the new group's downlink; then both groups' hints */
	for (int k = 0; k < 2 * n; k++)
		if (k != n - 1 && k != n)
			UnlockReleaseBuffer(bufs[k]);
	pbt_insert_parent(index, st, bufs[n - 1], bufs[n], stack, &sep);
	set_group_hints(index, st, stack, start, hints[0]);
	set_group_hints(index, st, stack, newstart, hints[1]);
	return true;
}

/*
 * Whether the group that starts at start is empty, read one page at a time
 * (VACUUM deletes it, delete_subtree in pbt_vacuum.c, and checks again
 * under its locks, pbt_group_lock_empty): if so, sets *left and *right to
 * the pages before and after it and hikey to its high key, the separator
 * of the group on its right.
 */
bool
pbt_group_find_empty(Relation index, PbtState *st, BlockNumber start,
					 BlockNumber *left, BlockNumber *right, StringInfo hikey)
{
	uint32		g = st->delta_group;

	Assert(st->group_size >= 2 && st->normalized);
	for (int i = 0; i < st->group_size; i++)
	{
		BlockNumber blk = pbt_group_block(g, start, i);
		Buffer		buf = ReadBuffer(index, blk);
		Page		page = BufferGetPage(buf);
		PbtPageOpaque o = PbtPageGetOpaque(page);
		PbtItem		hk;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (PageIsNew(page) || !pbt_is_subnode(o) || o->group_pos != i ||
			(o->flags & (PBT_HOLE | PBT_INCOMPLETE_SPLIT)) || PbtIsRightmost(o) ||
			pbt_layout(page)->count(page) != 0)
		{
			UnlockReleaseBuffer(buf);
			return false;
		}
		if (i == 0)
			*left = o->prev;
		if (!pbt_in_group(g, o, blk, o->next))
		{
			/* the last subnode in use */
			bool		found = pbt_page_get_hikey(page, &hk);

			if (found)
				appendBinaryStringInfo(hikey, hk.data, hk.len);
			*right = o->next;
			UnlockReleaseBuffer(buf);
			return found;
		}
		UnlockReleaseBuffer(buf);
	}
	return false;
}

/*
 * Lock exclusively the blocks of the group that starts at start, which
 * VACUUM deletes with left before it (locked by the caller) and right after
 * it, adding them to bufs[*nbufs ..).  Returns the last subnode in use, or
 * InvalidBlockNumber if the group is not empty or not so linked any more.
 */
BlockNumber
pbt_group_lock_empty(Relation index, PbtState *st, BlockNumber start,
					 BlockNumber left, BlockNumber right, Buffer *bufs,
					 int *nbufs)
{
	uint32		g = st->delta_group;
	uint64		epoch = 0;
	BlockNumber last = InvalidBlockNumber;

	for (int i = 0; i < st->group_size; i++)
	{
		BlockNumber blk = pbt_group_block(g, start, i);
		Buffer		buf = ReadBuffer(index, blk);
		Page		page = BufferGetPage(buf);
		PbtPageOpaque o = PbtPageGetOpaque(page);

		pbt_lock_linked(index, buf, BUFFER_LOCK_EXCLUSIVE);
		bufs[(*nbufs)++] = buf;
		if (PageIsNew(page) || !pbt_is_subnode(o) || o->group_pos != i ||
			(i == 0 && o->prev != left) ||
			(i > 0 && pbt_group_epoch(o) != epoch))
			return InvalidBlockNumber;
		epoch = pbt_group_epoch(o);
		/* subnodes in use: a prefix, up to where the chain leaves the group */
		if (((o->flags & PBT_HOLE) != 0) != (last != InvalidBlockNumber))
			return InvalidBlockNumber;
		if (last != InvalidBlockNumber)
			continue;
		if ((o->flags & PBT_INCOMPLETE_SPLIT) || PbtIsRightmost(o) ||
			pbt_layout(page)->count(page) != 0 || pbt_run_exists(index, st, buf))
			return InvalidBlockNumber;
		if (!pbt_in_group(g, o, blk, o->next))
		{
			if (o->next != right)
				return InvalidBlockNumber;
			last = blk;
		}
	}
	return last;
}

/*
 * The group that starts at start if it is all holes that nothing links to:
 * its creator (pbt_new_group) holds its first block exclusively until the
 * record of the split that links it, so a first subnode that is still a
 * hole when we can lock it is one whose split never came (a crash or an
 * error between the two).  Its blocks become a deleted group, as
 * VACUUM leaves one, for reuse_deleted_group; no scan ever
 * reached them, so they are free at once.  Returns the pages deleted: N,
 * or 0.
 */
int
pbt_group_reclaim_orphan(Relation index, PbtState *st, BlockNumber start)
{
	int			n = st->group_size;
	uint32		g = st->delta_group;
	Buffer		bufs[PBT_MAX_GROUP_SIZE];
	int			nbufs = 0;
	uint64		epoch = 0;
	int			deleted = 0;

	Assert(n >= 2);
	if (pbt_group_block(g, start, n - 1) >= RelationGetNumberOfBlocks(index))
		return 0;
	if (RelationNeedsWAL(index))
		XLogEnsureRecordSpace(n - 1, 0);
	for (int i = 0; i < n; i++)
	{
		Buffer		buf = ReadBuffer(index, pbt_group_block(g, start, i));
		Page		page = BufferGetPage(buf);
		PbtPageOpaque o = PbtPageGetOpaque(page);

		if (!ConditionalLockBuffer(buf))
		{
			ReleaseBuffer(buf);
			goto out;
		}
		bufs[nbufs++] = buf;
		if (PageIsNew(page) || !pbt_is_subnode(o) || !(o->flags & PBT_HOLE) ||
			o->group_pos != i || o->group_size != n ||
			(i > 0 && pbt_group_epoch(o) != epoch))
			goto out;
		epoch = pbt_group_epoch(o);
	}

	START_CRIT_SECTION();
	for (int i = 0; i < n; i++)
	{
		PbtPageOpaque o = PbtPageGetOpaque(BufferGetPage(bufs[i]));

		o->flags = (o->flags & ~PBT_SUBNODE_FLAGS) | PBT_DELETED;
		o->safexid = FirstNormalFullTransactionId;
	}
	pbt_log_group_pages(index, bufs, NULL, n);
	END_CRIT_SECTION();
	elog(DEBUG2, "pagebtree: deletion of the unlinked leaf group at block %u of index \"%s\"",
		 start, RelationGetRelationName(index));
	deleted = n;

out:
	for (int i = nbufs - 1; i >= 0; i--)
		UnlockReleaseBuffer(bufs[i]);
	return deleted;
}
