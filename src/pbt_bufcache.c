/*-------------------------------------------------------------------------
 *
 * pbt_bufcache.c
 *	  Pinning the pages a descent reads through the buffers that held them
 *	  last time in this backend.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "pgstat.h"

/*
 * Buffers that recently held pages of pagebtree indexes, direct-mapped by
 * relation and block number: one table for the pages every descent reads
 * (roots and inner pages) and the rightmost leaf of ascending inserts, a
 * larger one for the leaves descents end at.  Pinning the same buffer again
 * through ReadRecentBuffer skips the buffer mapping table (hashing the tag,
 * a partition lock), about two thirds of what reading a cached page costs.
 * The entries are only hints: ReadRecentBuffer checks that the buffer still
 * holds the page, and a miss costs a compare.  51 kB per backend, in BSS
 * (touched only by backends that use pagebtree).
 */
#define RECENT_HOT		256
#define RECENT_LEAVES	4096

typedef struct RecentBuffer
{
	Oid			relnode;		/* ReadRecentBuffer checks the whole tag */
	BlockNumber blkno;
	Buffer		buf;
} RecentBuffer;

static RecentBuffer recent_hot[RECENT_HOT];
static RecentBuffer recent_leaves[RECENT_LEAVES];

/*
 * Raise the usage count of a buffer this backend pinned, as ReadBuffer's pin
 * does and ReadRecentBuffer's first pin does not: without it the clock
 * sweep evicts pages that are read only through this cache, however hot.
 * The same compare-and-swap as PinBuffer's, skipped while the header is
 * locked (the count is a hint).
 */
static void
raise_usage_count(Buffer buf)
{
	BufferDesc *desc = GetBufferDescriptor(buf - 1);
	uint32		state = pg_atomic_read_u32(&desc->state);

	while (BUF_STATE_GET_USAGECOUNT(state) < BM_MAX_USAGE_COUNT &&
		   !(state & BM_LOCKED))
	{
		if (pg_atomic_compare_exchange_u32(&desc->state, &state,
										   state + BUF_USAGECOUNT_ONE))
			break;
	}
}

static inline RecentBuffer *
recent_entry(Relation index, BlockNumber blkno, RecentBuffer *table, int size)
{
	return &table[(blkno + PbtRelationGetFileNumber(index) * 7919U) % size];
}

static Buffer
read_recent(Relation index, BlockNumber blkno, RecentBuffer *table, int size)
{
	RecentBuffer *r = recent_entry(index, blkno, table, size);
	Buffer		buf;

	/*
	 * A temporary index may share its file number with another relation:
	 * buffer tags only tell them apart by local or shared buffers.
	 */
	if (r->blkno == blkno && BufferIsValid(r->buf) &&
		r->relnode == PbtRelationGetFileNumber(index) &&
		BufferIsLocal(r->buf) == RelationUsesLocalBuffers(index) &&
		ReadRecentBuffer(PbtRelationGetLocator(index), MAIN_FORKNUM, blkno, r->buf))
	{
		if (!BufferIsLocal(r->buf))
			raise_usage_count(r->buf);
		/* what ReadBuffer counts for the index's I/O statistics */
		pgstat_count_buffer_read(index);
		pgstat_count_buffer_hit(index);
		return r->buf;
	}
	buf = ReadBuffer(index, blkno);
	r->relnode = PbtRelationGetFileNumber(index);
	r->blkno = blkno;
	r->buf = buf;
	return buf;
}

/*
 * Ask the CPU to fetch lines of a page that the cache says a buffer holds,
 * before this backend pins it: its buffer descriptor, page header and
 * special space, and len bytes at offset.  Only a hint, never read: the
 * buffer may hold another page by now, and a prefetch cannot fault.
 */
void
pbt_prefetch_recent_leaf(Relation index, BlockNumber blkno, int offset, int len)
{
	RecentBuffer *r = recent_entry(index, blkno, recent_leaves, RECENT_LEAVES);
	char	   *page;

	if (r->blkno != blkno || r->relnode != PbtRelationGetFileNumber(index) ||
		!BufferIsValid(r->buf) || BufferIsLocal(r->buf))
		return;
	page = (char *) BufferGetBlock(r->buf);
	pbt_prefetch_mem(GetBufferDescriptor(r->buf - 1));
	pbt_prefetch_mem(page);
	pbt_prefetch_mem(page + BLCKSZ - 1);
	for (int off = 0; off < len; off += PG_CACHE_LINE_SIZE)
		pbt_prefetch_mem(page + offset + off);
}

/* ReadBuffer for a page that every descent (or ascending insert) reads */
Buffer
pbt_read_hot(Relation index, BlockNumber blkno)
{
	return read_recent(index, blkno, recent_hot, RECENT_HOT);
}

/* ReadBuffer for the leaf a descent ends at, or the side page of its run */
Buffer
pbt_read_leaf(Relation index, BlockNumber blkno)
{
	return read_recent(index, blkno, recent_leaves, RECENT_LEAVES);
}
