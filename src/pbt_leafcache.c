/*-------------------------------------------------------------------------
 *
 * pbt_leafcache.c
 *	  Where this backend's descents ended: a map from key ranges to leaves,
 *	  so that a reader can lock the leaf of its key without the levels
 *	  above it.
 *
 * A reader's descent that reaches a leaf through a level-1 downlink with
 * separator L (not the page's -infinity item), and need not move right
 * there, records (L, the leaf, the leaf's LSN).  A later read of a key
 * K >= L may lock that leaf directly.  If the leaf's LSN is still the one
 * recorded, the page has not changed since (every change of a page of a
 * WAL-logged index sets its LSN; hint bits do not move keys), so it is
 * still a live leaf with the same high key, and its low bound is still at
 * most L: when it was recorded, the downlink with separator L led to it
 * (a child's low bound is its downlink's separator, or less once a deleted
 * left neighbour's keys passed to it), and a page's low bound never rises
 * while it lives (a split moves keys right; deleting, and later recycling,
 * the page itself would have changed it).  K short of the high key then
 * belongs on it.  Otherwise (another LSN, K at or past the high key) the
 * reader descends from the root as before, which records the leaf it
 * reaches.
 *
 * Only for indexes whose every change is WAL-logged, with normalized keys
 * (ordered by their bytes, as the entries here are), and without leaf
 * groups (a rebalance moves keys left between subnodes).  Inserts, VACUUM
 * and the verifier always descend from the root.
 *
 * Each index (by its file) has a sorted array of separators; the memory
 * of all of them is bounded by pagebtree.leaf_cache_size, and reaching it
 * empties them all.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "pbt_delta.h"

#include "port/pg_bswap.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

int			pbt_leaf_cache_kb = 1024;

typedef struct LeafCacheEntry
{
	uint32		keyoff;			/* the separator's bytes in the arena */
	uint16		keylen;
	BlockNumber leaf;
	XLogRecPtr	lsn;			/* the leaf's, when recorded */
} LeafCacheEntry;

typedef struct LeafCache
{
	RelFileLocator file;		/* hash key */
	int			n;
	int			cap;
	uint64	   *heads;			/* the separators' first 8 bytes, big-endian:
								 * the binary search reads only these */
	LeafCacheEntry *entries;
	char	   *arena;
	int			arena_used;
	int			arena_cap;
} LeafCache;

static MemoryContext leaf_cache_cxt = NULL;
static HTAB *leaf_caches = NULL;
static Size leaf_cache_bytes = 0;	/* arrays and arenas, all indexes */

/* a key's first 8 bytes as a number that orders as memcmp does */
static inline uint64
key_head(const char *key, int len)
{
	uint64		head = 0;

	memcpy(&head, key, Min(len, (int) sizeof(head)));
	return pg_ntoh64(head);
}

/* memcmp order, a prefix first */
static inline int
compare_entry(const LeafCache *c, int i, uint64 head, const char *key, int len)
{
	const LeafCacheEntry *e = &c->entries[i];
	int			common;
	int			r;

	if (c->heads[i] != head)
		return c->heads[i] < head ? -1 : 1;
	common = Min(e->keylen, len);
	r = common > 8 ? memcmp(c->arena + e->keyoff + 8, key + 8, common - 8) : 0;
	if (r != 0)
		return r;
	return (e->keylen > len) - (e->keylen < len);
}

/* the last entry whose separator is <= key, or -1 */
static int
find_le(const LeafCache *c, const char *key, int len)
{
	uint64		head = key_head(key, len);
	int			low = 0;
	int			high = c->n;

	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (compare_entry(c, mid, head, key, len) <= 0)
			low = mid + 1;
		else
			high = mid;
	}
	return low - 1;
}

static bool
cache_applies(Relation index, PbtState *st)
{
	return pbt_leaf_cache_kb > 0 && st->normalized && st->group_size == 0 &&
		RelationNeedsWAL(index);
}

static LeafCache *
get_cache(Relation index, bool create)
{
	RelFileLocator file = PbtRelationGetLocator(index);
	LeafCache  *c;
	bool		found;

	if (leaf_caches == NULL)
	{
		HASHCTL		ctl;

		if (!create)
			return NULL;
		if (leaf_cache_cxt == NULL)
			leaf_cache_cxt = AllocSetContextCreate(TopMemoryContext,
												   "pagebtree leaf cache",
												   ALLOCSET_DEFAULT_SIZES);
		ctl.keysize = sizeof(RelFileLocator);
		ctl.entrysize = sizeof(LeafCache);
		ctl.hcxt = leaf_cache_cxt;
		leaf_caches = hash_create("pagebtree leaf caches", 16, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	c = hash_search(leaf_caches, &file, create ? HASH_ENTER : HASH_FIND, &found);
	if (c != NULL && !found)
	{
		c->n = c->cap = c->arena_used = c->arena_cap = 0;
		c->heads = NULL;
		c->entries = NULL;
		c->arena = NULL;
	}
	return c;
}

/* empty every index's cache (the memory bound was reached) */
static void
reset_all(void)
{
	MemoryContextReset(leaf_cache_cxt);
	leaf_caches = NULL;
	leaf_cache_bytes = 0;
}

/*
 * The leaf of key, share-locked, if this backend recorded one that still
 * holds it; else InvalidBuffer (descend from the root).
 */
Buffer
pbt_leaf_cache_lookup(Relation index, PbtState *st, PbtSearchKey *key)
{
	LeafCache  *c;
	int			i;
	Buffer		buf;
	Page		page;
	PbtPageOpaque opaque;

	if (!cache_applies(index, st) || (c = get_cache(index, false)) == NULL ||
		(i = find_le(c, key->bytes, key->len)) < 0)
		return InvalidBuffer;
	/* (the misses on the leaf's header and special space overlap the pin) */
	pbt_prefetch_recent_leaf(index, c->entries[i].leaf, 0, 0);
	pbt_run_prefetch(index, st, c->entries[i].leaf);
	buf = pbt_read_leaf(index, c->entries[i].leaf);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	opaque = PbtPageGetOpaque(page);
	if (PageGetLSN(page) == c->entries[i].lsn &&
		PbtIsTreePage(page) && PbtIsLeaf(opaque) && !PbtIsDeleted(opaque) &&
		!pbt_beyond_hikey(st, page, key))
		return buf;
	UnlockReleaseBuffer(buf);
	return InvalidBuffer;
}

/*
 * Record that the separator low[0..len) led a descent to the share-locked
 * leaf in buf, which it need not leave to the right (see above).
 */
void
pbt_leaf_cache_remember(Relation index, PbtState *st, const char *low,
						int len, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	XLogRecPtr	lsn = PageGetLSN(page);
	LeafCache  *c;
	int			i;
	LeafCacheEntry *e;

	Assert(PbtIsLeaf(PbtPageGetOpaque(page)) && len > 0);
	if (!cache_applies(index, st) || lsn == InvalidXLogRecPtr)
		return;
	c = get_cache(index, true);
	i = find_le(c, low, len);
	if (i >= 0 && compare_entry(c, i, key_head(low, len), low, len) == 0)
	{
		/* the same separator: the leaf has changed, or another took it */
		c->entries[i].leaf = BufferGetBlockNumber(buf);
		c->entries[i].lsn = lsn;
		return;
	}
	if (c->n == c->cap || c->arena_used + len > c->arena_cap)
	{
		int			cap = c->n == c->cap ? Max(64, 2 * c->cap) : c->cap;
		int			arena_cap = c->arena_used + len > c->arena_cap ?
			Max(1024, 2 * (c->arena_used + len)) : c->arena_cap;
		Size		more = (cap - c->cap) * (sizeof(uint64) + sizeof(LeafCacheEntry)) +
			(arena_cap - c->arena_cap);

		if (leaf_cache_bytes + more > (Size) pbt_leaf_cache_kb * 1024)
		{
			reset_all();
			return;
		}
		if (cap > c->cap)
		{
			c->heads = c->heads ? repalloc(c->heads, cap * sizeof(uint64)) :
				MemoryContextAlloc(leaf_cache_cxt, cap * sizeof(uint64));
			c->entries = c->entries ?
				repalloc(c->entries, cap * sizeof(LeafCacheEntry)) :
				MemoryContextAlloc(leaf_cache_cxt, cap * sizeof(LeafCacheEntry));
			c->cap = cap;
		}
		if (arena_cap > c->arena_cap)
		{
			c->arena = c->arena ? repalloc(c->arena, arena_cap) :
				MemoryContextAlloc(leaf_cache_cxt, arena_cap);
			c->arena_cap = arena_cap;
		}
		leaf_cache_bytes += more;
	}
	/* after entry i */
	i++;
	memmove(&c->heads[i + 1], &c->heads[i], (c->n - i) * sizeof(uint64));
	memmove(&c->entries[i + 1], &c->entries[i],
			(c->n - i) * sizeof(LeafCacheEntry));
	c->n++;
	c->heads[i] = key_head(low, len);
	e = &c->entries[i];
	e->keyoff = c->arena_used;
	e->keylen = len;
	e->leaf = BufferGetBlockNumber(buf);
	e->lsn = lsn;
	memcpy(c->arena + c->arena_used, low, len);
	c->arena_used += len;
}
