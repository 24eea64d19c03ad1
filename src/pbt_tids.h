/*-------------------------------------------------------------------------
 *
 * pbt_tids.h
 *	  Arrays of heap TIDs stored without the leading bytes that all of a
 *	  page's TIDs share (the TID prefix, at most the block number's first
 *	  three bytes): 3 to 6 bytes an entry, shared by the posting and lists
 *	  leaf layouts.
 *
 * A stored TID is the last width bytes of the 6-byte big-endian TID
 * (block, offset).  Its byte width - 2 is the offset number's high byte,
 * whose top bit (offsets stay below 2^15) is the dead-entry hint: not
 * WAL-logged, cleared by the layouts' mask.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_TIDS_H
#define PBT_TIDS_H

#include "pbt_page.h"
#include "port/pg_bswap.h"
#include "storage/itemptr.h"

#define PBT_TIDS_MAX_PREFIX	3	/* bytes of the block number */
#define PBT_TIDS_MIN_WIDTH	(PBT_TID_BYTES - PBT_TIDS_MAX_PREFIX)
#define PBT_TIDS_DEAD		0x80	/* in a stored TID's byte width - 2 */

/* TID prefix bytes two TIDs have in common */
static inline int
pbt_tids_common(const char *a, const char *b)
{
	int			p = 0;

	while (p < PBT_TIDS_MAX_PREFIX && a[p] == b[p])
		p++;
	return p;
}

/*
 * Widen the count TIDs stored at base from old to width bytes each, in
 * place from the last one (the array grows): the bytes each gains are
 * gained, the last width - old bytes of the old TID prefix.
 */
static inline void
pbt_tids_widen(char *base, int count, int old, int width, const char *gained)
{
	int			grow = width - old;

	Assert(grow > 0 && width <= PBT_TID_BYTES);
	for (int i = count - 1; i >= 0; i--)
	{
		memmove(base + i * width + grow, base + i * old, old);
		memcpy(base + i * width, gained, grow);
	}
}

static inline void
pbt_tids_set_dead(char *stored, int width)
{
	stored[width - 2] |= PBT_TIDS_DEAD;
}

static inline bool
pbt_tids_is_dead(const char *stored, int width)
{
	return (stored[width - 2] & PBT_TIDS_DEAD) != 0;
}

/* copy a stored TID of width bytes to dst, its dead hint cleared */
static inline void
pbt_tids_copy(char *dst, const char *stored, int width)
{
	memcpy(dst, stored, width);
	dst[width - 2] &= ~PBT_TIDS_DEAD;
}

/*
 * The stored TID of width bytes at p, loaded as a word (the load past the
 * array's end stays on the page), as the word whose bytes are the whole
 * TID in order: the leading bytes the page's TIDs share (tid_prefix, those
 * bytes in place in a word) ORed with the entry's own, its dead hint
 * cleared; *dead tells whether the hint was set.
 */
static inline uint64
pbt_tids_load(const char *p, int width, uint64 tid_prefix, bool *dead)
{
	int			shared = PBT_TID_BYTES - width;
	uint64		stored;
	uint64		dead_mask;

#ifdef WORDS_BIGENDIAN
	dead_mask = (uint64) PBT_TIDS_DEAD << ((7 - (width - 2)) * 8);
#else
	dead_mask = (uint64) PBT_TIDS_DEAD << ((width - 2) * 8);
#endif
	memcpy(&stored, p, sizeof(stored));
	*dead = (stored & dead_mask) != 0;
#ifdef WORDS_BIGENDIAN
	return ((stored & ~dead_mask) >> (shared * 8)) | tid_prefix;
#else
	return ((stored & ~dead_mask) << (shared * 8)) | tid_prefix;
#endif
}

/*
 * The heap TIDs and dead hints of n stored TIDs of width bytes, the first
 * at p + stride, each stride bytes after the last (an iteration's next n
 * entries in its direction); tid_prefix as for pbt_tids_load.
 */
static inline void
pbt_tids_decode(const char *p, int stride, int n, int width,
				uint64 tid_prefix, ItemPointerData *tids, bool *dead)
{
	for (int i = 0; i < n; i++)
	{
		uint64		tid;

		p += stride;
		/* the word's first six bytes are the big-endian block and offset */
		tid = pg_ntoh64(pbt_tids_load(p, width, tid_prefix, &dead[i])) >> 16;
		ItemPointerSet(&tids[i], (BlockNumber) (tid >> 16),
					   (OffsetNumber) tid);
	}
}

/* clear the dead hints of count TIDs at base (the layouts' mask) */
static inline void
pbt_tids_clear_dead(char *base, int count, int width)
{
	for (int i = 0; i < count; i++)
		base[i * width + width - 2] &= ~PBT_TIDS_DEAD;
}

/*
 * Free space of a page whose items are an array below pd_lower and bytes
 * above pd_upper: the hole and the garbage, less the slot that
 * pbt_page_alloc keeps free; none once the page has the most entries any
 * page may have.
 */
static inline int
pbt_tids_free_space(Page page, int count, int garbage)
{
	PageHeader	phdr = (PageHeader) page;

	if (count >= PBT_MAX_ITEMS_PER_PAGE)
		return 0;
	return Max(0, phdr->pd_upper - phdr->pd_lower - (int) sizeof(PbtSlot) +
			   garbage);
}

#endif							/* PBT_TIDS_H */
