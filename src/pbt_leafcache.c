/*-------------------------------------------------------------------------
 *
 * pbt_leafcache.c
 *	  Where this backend's descents ended: a map from key ranges to leaves,
 *	  so that a reader or an inserter can lock the leaf of its key without
 *	  the levels above it.
 *
 * A descent to a leaf (pbt_search_leaf) that reaches it through a level-1
 * downlink with separator L (not the page's -infinity item), and need not
 * move right there, records (L, the leaf, the leaf's LSN).  A later read
 * of a key K >= L may lock that leaf directly.  If the leaf's LSN is
 * still the one recorded, the page has not changed since (every change of
 * a page of a WAL-logged index sets its LSN; hint bits move no key), so it
 * is still a live leaf with the same high key, and its low bound is still at
 * most L: when it was recorded, the downlink with separator L led to it
 * (a child's low bound is its downlink's separator, or less once a deleted
 * left neighbour's keys passed to it), and a page's low bound never rises
 * while it lives (a split moves keys right; deleting, and later recycling,
 * the page itself would have changed it).  K short of the high key then
 * belongs on it.  Otherwise (another LSN, K at or past the high key) the
 * reader descends from the root as before, which records the leaf it
 * reaches.
 *
 * Inserts use it too (a conditional exclusive lock, and not a leaf whose
 * split is incomplete); a unique check looks up the key without its heap
 * TID, as its descent would.  An insert into the leaf of the last entry
 * found or recorded, whose LSN it still holds, moves that entry to the
 * insert's LSN (pbt_leaf_cache_written): the insert moved no bound of the
 * leaf, so the entry holds for the new LSN as it did for the old one, and
 * a backend's own inserts do not make its entries stale.
 *
 * Only for indexes whose every change is WAL-logged, with normalized keys
 * (ordered by their bytes, as the entries here are).  VACUUM and the
 * verifier always descend from the root.
 *
 * In an index with leaf groups a rebalance moves keys left, between
 * subnodes, so a subnode's low bound can rise (its LSN changes with it), and
 * the downlink's separator is its group's, not the subnode's.  There the
 * entry is a reader's: the subnode's first item (key and heap TID) at the
 * LSN the reader found, which is at least the subnode's low bound as long
 * as that LSN holds.  Inserts descend, as they need the parent's hints.
 * An insert that finds the leaf of the last entry at that entry's LSN moves
 * it on as above: adding an item moves no bound.
 *
 * Each index has its separators in order, in chunks, emptied when the
 * index's relcache entry is invalidated; the memory of all of them is
 * bounded by pagebtree.leaf_cache_size, and reaching it empties them all.
 * An index whose leaves change between reads of them stops using it for a
 * while (STALE_LIMIT).
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "pbt_delta.h"

#include "port/pg_bswap.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"

int			pbt_leaf_cache_kb = 4096;

typedef struct LeafCacheEntry
{
	uint32		keyoff;			/* the separator's bytes in the arena */
	uint16		keylen;
	bool		stale;			/* found stale since its last hit */
	BlockNumber leaf;
	XLogRecPtr	lsn;			/* the leaf's, when recorded */
} LeafCacheEntry;

/*
 * Entries in order, in chunks of at most CHUNK_ENTRIES, so that recording
 * a new one moves at most a chunk's entries and the chunk pointers (a
 * sorted array of them all would move half of it).
 */
#define CHUNK_ENTRIES	64

typedef struct LeafCacheChunk
{
	int			n;
	uint64		heads[CHUNK_ENTRIES];	/* the separators' first 8 bytes,
										 * big-endian: most comparisons
										 * read only these */
	LeafCacheEntry entries[CHUNK_ENTRIES];
} LeafCacheChunk;

typedef struct LeafCache
{
	Oid			index;			/* hash key */
	RelFileLocator file;		/* the index's file the entries are of */
	Size		bytes;			/* chunks and arena */
	int			nchunks;
	int			maxchunks;
	LeafCacheChunk **chunks;
	char	   *arena;
	int			arena_used;
	int			arena_cap;
	int			credit;			/* hits less churn, lately */
	int			bypass;			/* lookups left that skip the cache */
} LeafCache;

/*
 * A stale entry costs a leaf access before the descent, about what a hit
 * saves.  An entry found stale again before a hit is churn: its leaf
 * changes between reads of it.  Where churn outnumbers hits by STALE_LIMIT,
 * the next BYPASS_LOOKUPS reads of the index neither look nor record: they
 * descend as without the cache.  (An entry found stale once, as after a
 * burst of writes, is recorded again and counts neither way.)
 */
#define STALE_LIMIT		64
#define BYPASS_LOOKUPS	4096

static MemoryContext leaf_cache_cxt = NULL;
static HTAB *leaf_caches = NULL;
static Size leaf_cache_bytes = 0;	/* chunks and arenas, all indexes */
static LeafCache *last_cache = NULL;	/* the one get_cache found last */

/*
 * The entry the last lookup found or the last remember recorded, if any:
 * an entry of last_cache (both begin with get_cache, and whatever empties
 * a cache or moves its entries clears this).
 */
static LeafCacheEntry *last_entry = NULL;

/* a key's first 8 bytes as a number that orders as memcmp does */
static inline uint64
key_head(const char *key, int len)
{
	uint64		head = 0;

	memcpy(&head, key, Min(len, (int) sizeof(head)));
	return pg_ntoh64(head);
}

/* entry i of chunk ch against key, in memcmp order (a prefix first) */
static inline int
compare_entry(const LeafCache *c, const LeafCacheChunk *ch, int i,
			  uint64 head, const char *key, int len)
{
	const LeafCacheEntry *e = &ch->entries[i];
	int			common;
	int			r;

	if (ch->heads[i] != head)
		return ch->heads[i] < head ? -1 : 1;
	common = Min(e->keylen, len);
	r = common > 8 ? memcmp(c->arena + e->keyoff + 8, key + 8, common - 8) : 0;
	if (r != 0)
		return r;
	return (e->keylen > len) - (e->keylen < len);
}

/*
 * The last entry whose separator is <= key: its chunk in *chunk (the first
 * chunk if none is), its position there returned (-1 if none).
 */
static int
find_le(const LeafCache *c, const char *key, int len, int *chunk)
{
	uint64		head = key_head(key, len);
	LeafCacheChunk *ch;
	int			low = 0;
	int			high = c->nchunks;

	/* the last chunk whose first entry is <= key */
	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (compare_entry(c, c->chunks[mid], 0, head, key, len) <= 0)
			low = mid + 1;
		else
			high = mid;
	}
	*chunk = Max(low - 1, 0);
	if (c->nchunks == 0)
		return -1;
	ch = c->chunks[*chunk];
	low = 0;
	high = ch->n;
	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (compare_entry(c, ch, mid, head, key, len) <= 0)
			low = mid + 1;
		else
			high = mid;
	}
	return low - 1;
}

/*
 * Does index have a leaf cache (see above)?  Whether it has leaf groups is
 * known from the metapage, read on first use: a descent does not
 * otherwise read it before it reaches a leaf.
 */
bool
pbt_leaf_cache_applies(Relation index, PbtState *st, int access)
{
	return pbt_leaf_cache_kb > 0 && st->normalized &&
		RelationNeedsWAL(index) &&
		(access == BUFFER_LOCK_SHARE || pbt_group_size(index, st) == 0);
}

/* free an index's entries */
static void
empty_cache(LeafCache *c)
{
	for (int i = 0; i < c->nchunks; i++)
		pfree(c->chunks[i]);
	if (c->chunks)
		pfree(c->chunks);
	if (c->arena)
		pfree(c->arena);
	leaf_cache_bytes -= c->bytes;
	last_entry = NULL;
	c->bytes = 0;
	c->nchunks = c->maxchunks = c->arena_used = c->arena_cap = 0;
	c->chunks = NULL;
	c->arena = NULL;
}

static void
empty_all(void)
{
	MemoryContextReset(leaf_cache_cxt);
	leaf_caches = NULL;
	leaf_cache_bytes = 0;
	last_cache = NULL;
	last_entry = NULL;
}

/*
 * A relcache invalidation of the index (or of everything) empties its
 * cache: a TRUNCATE of a table created in the same transaction empties its
 * indexes' files in place, and blocks past their new end must not be read.
 * (VACUUM's statistics do it too; the cache fills again as reads go.)
 */
static void
invalidate(Datum arg, Oid relid)
{
	LeafCache  *c;

	if (leaf_caches == NULL)
		return;
	if (!OidIsValid(relid))
	{
		empty_all();
		return;
	}
	c = hash_search(leaf_caches, &relid, HASH_FIND, NULL);
	if (c != NULL)
	{
		empty_cache(c);
		hash_search(leaf_caches, &relid, HASH_REMOVE, NULL);
		if (c == last_cache)
			last_cache = NULL;
	}
}

static LeafCache *
get_cache(Relation index, bool create)
{
	Oid			relid = RelationGetRelid(index);
	RelFileLocator file = PbtRelationGetLocator(index);
	LeafCache  *c;
	bool		found;

	/* (most reads use the index the read before used) */
	if (last_cache != NULL && last_cache->index == relid &&
		memcmp(&last_cache->file, &file, sizeof(file)) == 0)
		return last_cache;
	if (leaf_caches == NULL)
	{
		HASHCTL		ctl;

		if (!create)
			return NULL;
		if (leaf_cache_cxt == NULL)
		{
			leaf_cache_cxt = AllocSetContextCreate(TopMemoryContext,
												   "pagebtree leaf cache",
												   ALLOCSET_DEFAULT_SIZES);
			CacheRegisterRelcacheCallback(invalidate, (Datum) 0);
		}
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(LeafCache);
		ctl.hcxt = leaf_cache_cxt;
		leaf_caches = hash_create("pagebtree leaf caches", 16, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	c = hash_search(leaf_caches, &relid, create ? HASH_ENTER : HASH_FIND, &found);
	if (c == NULL)
		return NULL;
	if (!found)
	{
		c->credit = c->bypass = 0;
		c->bytes = 0;
		c->nchunks = c->maxchunks = c->arena_used = c->arena_cap = 0;
		c->chunks = NULL;
		c->arena = NULL;
		c->file = file;
	}
	else if (memcmp(&c->file, &file, sizeof(file)) != 0)
	{
		/* (a new file comes with an invalidation too) */
		empty_cache(c);
		c->file = file;
	}
	last_cache = c;
	return c;
}

/*
 * Memory for c, or false after emptying every index's cache (the bound
 * was reached).
 */
static bool
reserve(LeafCache *c, Size bytes)
{
	if (leaf_cache_bytes + bytes > (Size) pbt_leaf_cache_kb * 1024)
	{
		empty_all();
		return false;
	}
	leaf_cache_bytes += bytes;
	c->bytes += bytes;
	return true;
}

/*
 * The leaf of key, locked in access mode, if this backend recorded one that
 * still holds it; else InvalidBuffer (descend from the root, and record).
 */
Buffer
pbt_leaf_cache_lookup(Relation index, PbtState *st, PbtSearchKey *key,
					  int access)
{
	LeafCache  *c;
	LeafCacheEntry *e;
	int			chunk;
	int			i;
	Buffer		buf;
	Page		page;
	PbtPageOpaque opaque;

	Assert(pbt_leaf_cache_applies(index, st, access));
	last_entry = NULL;
	if ((c = get_cache(index, false)) == NULL)
		return InvalidBuffer;
	if (c->bypass > 0)
	{
		c->bypass--;
		return InvalidBuffer;
	}
	if ((i = find_le(c, key->bytes, key->len, &chunk)) < 0)
		return InvalidBuffer;
	e = &c->chunks[chunk]->entries[i];
	/* (the misses on the leaf's header and special space overlap the pin) */
	pbt_prefetch_recent_leaf(index, e->leaf, 0, 0);
	pbt_run_prefetch(index, st, e->leaf);
	buf = pbt_read_leaf(index, e->leaf);
	/* a leaf that another writer holds will have changed: descend */
	if (access == BUFFER_LOCK_EXCLUSIVE)
	{
		if (!ConditionalLockBuffer(buf))
		{
			ReleaseBuffer(buf);
			return InvalidBuffer;
		}
	}
	else
		LockBuffer(buf, access);
	page = BufferGetPage(buf);
	opaque = PbtPageGetOpaque(page);
	if (PageGetLSN(page) == e->lsn &&
		PbtIsTreePage(page) && PbtIsLeaf(opaque) && !PbtIsDeleted(opaque))
	{
		/*
		 * Past the high key, the key's own leaf is not known yet; an insert
		 * descends to finish an incomplete split, as a descent would.
		 */
		if (!pbt_beyond_hikey(st, page, key) &&
			!(access == BUFFER_LOCK_EXCLUSIVE &&
			  (opaque->flags & PBT_INCOMPLETE_SPLIT)))
		{
			e->stale = false;
			c->credit = Min(c->credit + 1, STALE_LIMIT);
			last_entry = e;
			return buf;
		}
	}
	else
	{
		if (e->stale && --c->credit <= -STALE_LIMIT)
		{
			c->credit = 0;
			c->bypass = BYPASS_LOOKUPS;
		}
		e->stale = true;
	}
	UnlockReleaseBuffer(buf);
	return InvalidBuffer;
}

/*
 * Record that the separator low[0..len) led a descent to the locked leaf
 * in buf, which it need not leave to the right (see above).
 */
void
pbt_leaf_cache_remember(Relation index, PbtState *st, const char *low,
						int len, Buffer buf)
{
	XLogRecPtr	lsn = PageGetLSN(BufferGetPage(buf));
	uint64		head = key_head(low, len);
	LeafCache  *c;
	LeafCacheChunk *ch;
	LeafCacheEntry *e;
	int			chunk;
	int			i;

	Assert(len > 0);
	Assert(pbt_leaf_cache_applies(index, st, BUFFER_LOCK_SHARE));
	last_entry = NULL;
	/* (a damaged downlink's page: its reader reports it) */
	if (lsn == InvalidXLogRecPtr ||
		!PbtIsLeaf(PbtPageGetOpaque(BufferGetPage(buf))))
		return;
	c = get_cache(index, true);
	if (c->bypass > 0)
		return;
	i = find_le(c, low, len, &chunk);
	if (i >= 0 && compare_entry(c, c->chunks[chunk], i, head, low, len) == 0)
	{
		/* the same separator: the leaf has changed, or another took it */
		e = &c->chunks[chunk]->entries[i];
		e->leaf = BufferGetBlockNumber(buf);
		e->lsn = lsn;
		last_entry = e;
		return;
	}

	/* room: the key's bytes, a chunk, a pointer to it */
	if (c->arena_used + len > c->arena_cap)
	{
		int			cap = Max(1024, 2 * (c->arena_used + len));

		if (!reserve(c, cap - c->arena_cap))
			return;
		c->arena = c->arena ? repalloc(c->arena, cap) :
			MemoryContextAlloc(leaf_cache_cxt, cap);
		c->arena_cap = cap;
	}
	if (c->nchunks == c->maxchunks)
	{
		int			cap = Max(16, 2 * c->maxchunks);

		if (!reserve(c, (cap - c->maxchunks) * sizeof(LeafCacheChunk *)))
			return;
		c->chunks = c->chunks ?
			repalloc(c->chunks, cap * sizeof(LeafCacheChunk *)) :
			MemoryContextAlloc(leaf_cache_cxt, cap * sizeof(LeafCacheChunk *));
		c->maxchunks = cap;
	}
	if (c->nchunks == 0 || c->chunks[chunk]->n == CHUNK_ENTRIES)
	{
		/* a first chunk, or the second half of a full one */
		int			at = c->nchunks == 0 ? 0 : chunk + 1;
		LeafCacheChunk *fresh;

		if (!reserve(c, sizeof(LeafCacheChunk)))
			return;
		fresh = MemoryContextAlloc(leaf_cache_cxt, sizeof(LeafCacheChunk));
		fresh->n = 0;
		if (c->nchunks > 0)
		{
			ch = c->chunks[chunk];
			fresh->n = CHUNK_ENTRIES / 2;
			ch->n -= fresh->n;
			memcpy(fresh->heads, &ch->heads[ch->n], fresh->n * sizeof(uint64));
			memcpy(fresh->entries, &ch->entries[ch->n],
				   fresh->n * sizeof(LeafCacheEntry));
			if (i >= ch->n)
			{
				chunk++;
				i -= ch->n;
			}
		}
		memmove(&c->chunks[at + 1], &c->chunks[at],
				(c->nchunks - at) * sizeof(LeafCacheChunk *));
		c->chunks[at] = fresh;
		c->nchunks++;
	}

	/* after entry i of its chunk */
	ch = c->chunks[chunk];
	i++;
	memmove(&ch->heads[i + 1], &ch->heads[i], (ch->n - i) * sizeof(uint64));
	memmove(&ch->entries[i + 1], &ch->entries[i],
			(ch->n - i) * sizeof(LeafCacheEntry));
	ch->n++;
	ch->heads[i] = head;
	e = &ch->entries[i];
	e->keyoff = c->arena_used;
	e->keylen = len;
	e->stale = false;
	e->leaf = BufferGetBlockNumber(buf);
	e->lsn = lsn;
	memcpy(c->arena + c->arena_used, low, len);
	c->arena_used += len;
	last_entry = e;
}

/*
 * This backend has just written the exclusively locked leaf in buf, whose
 * LSN was before, without moving its bounds (an insert): the entry found
 * or recorded last, if it is of that leaf and still holds for before, holds
 * for the new LSN (see above).
 */
void
pbt_leaf_cache_written(Relation index, Buffer buf, XLogRecPtr before)
{
	Assert(pbt_buffer_locked(buf, LW_EXCLUSIVE));
	Assert(PbtIsLeaf(PbtPageGetOpaque(BufferGetPage(buf))));
	if (last_entry != NULL && last_entry->lsn == before &&
		last_entry->leaf == BufferGetBlockNumber(buf) &&
		last_cache->index == RelationGetRelid(index) &&
		memcmp(&last_cache->file, &PbtRelationGetLocator(index),
			   sizeof(RelFileLocator)) == 0)
		last_entry->lsn = PageGetLSN(BufferGetPage(buf));
}
