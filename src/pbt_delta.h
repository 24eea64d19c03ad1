/*-------------------------------------------------------------------------
 *
 * pbt_delta.h
 *	  The delta area: leaf entries pending in side pages of the index
 *	  (pbt_delta.c).  See docs/ARCHITECTURE.md, "The delta area".
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_DELTA_H
#define PBT_DELTA_H

#include "pagebtree.h"

/*
 * Block positions.  An index built with a delta area (metapage delta_group
 * G > 0) reserves every (G+1)-th block from block 1 on as a side page: block
 * 1 + k(G+1) holds the runs of the G blocks after it, one fixed slot each.
 * A side page always precedes its leaves, so it exists whenever one of them
 * does; until its first run it stays all zeros.
 */
static inline bool
pbt_is_side_block(uint32 group, BlockNumber blkno)
{
	return group > 0 && blkno >= 1 && (blkno - 1) % (group + 1) == 0;
}

static inline BlockNumber
pbt_side_block(uint32 group, BlockNumber leaf)
{
	return leaf - (leaf - 1) % (group + 1);
}

/*
 * The side page of a leaf that is to be locked or read.  A leaf never lies
 * where a side page belongs (pbt_new_page), so if it does, the metapage's
 * geometry is damaged, and the side page would be the leaf itself: locking
 * it under the leaf's lock would wait forever.
 */
static inline BlockNumber
pbt_leaf_side_block(Relation index, uint32 group, BlockNumber leaf)
{
	if (pbt_is_side_block(group, leaf) || leaf == PBT_METAPAGE_BLKNO)
		pbt_page_error(index, leaf,
					   "a leaf lies where the metapage's delta area has a side page");
	return pbt_side_block(group, leaf);
}

static inline int
pbt_side_slot(uint32 group, BlockNumber leaf)
{
	return (leaf - 1) % (group + 1) - 1;
}

/*
 * A slot of a side page: the run of one leaf.  A subnode's run belongs to
 * its group's epoch (tag, pbt_run_tag): a rebalance or group split takes
 * the runs' entries into the subnodes it rebuilds and gives them a new
 * epoch, which makes their old runs stale without writing the side pages
 * (their bytes stay until an append or VACUUM clears them).  Outside
 * groups the tag is 0 and not compared (tag_hi held the high half of a
 * 32-bit fold count before groups had runs).
 */
typedef struct PbtRunHeader
{
	uint16		tag_lo;			/* low half of the tag */
	uint16		used;			/* bytes of entries after the header */
	uint16		folds;			/* runs folded into the leaf (statistics) */
	uint16		tag_hi;			/* high half of the tag */
} PbtRunHeader;

static inline uint32
pbt_run_header_tag(const PbtRunHeader *run)
{
	return run->tag_lo | (uint32) run->tag_hi << 16;
}

/* does a slot hold entries of the leaf whose run tag is tag? */
static inline bool
pbt_run_live(const PbtRunHeader *run, uint32 tag)
{
	return run->used > 0 && (tag == 0 || pbt_run_header_tag(run) == tag);
}

/*
 * Each entry of a run: its length (uint16, unaligned, PBT_RUN_LEN_MASK),
 * then, if the length has PBT_RUN_SHARED, a byte that counts its leading
 * bytes equal to the run's first entry's, then the rest of the leaf item's
 * bytes.  A leaf's keys share their leading bytes (URLs do for dozens), so
 * a run holds more entries below the same threshold, and a leaf is written
 * less often; entries that share fewer than PBT_RUN_MIN_SHARED bytes are
 * stored whole.  PBT_RUN_REFERENCE on the first entry says that it is only
 * the others' reference: a run rewritten without its first entry (VACUUM,
 * a split keeping some pending) keeps those bytes, so that no entry takes
 * more bytes than it did and the run still fits its slot.  Only side pages
 * flagged PBT_FRONT_CODED get either bit; entries of older side pages have
 * neither and read the same.
 */
#define PBT_RUN_LEN_MASK	0x3FFF
#define PBT_RUN_SHARED		0x8000
#define PBT_RUN_REFERENCE	0x4000
#define PBT_RUN_WHOLE_COST(len) ((int) sizeof(uint16) + (len))
#define PBT_RUN_ENTRY_MAX_COST(len) (PBT_RUN_WHOLE_COST(len) + 1)
/* the least an entry takes: a length and a byte */
#define PBT_RUN_ENTRY_MIN_COST PBT_RUN_WHOLE_COST(1)

/*
 * A run holds at most threshold / PBT_RUN_ENTRY_BUDGET entries, however
 * few bytes front-coding leaves them: every read of its leaf compares each
 * of them, so more entries cost lookups what fewer folds save (sparse
 * int8 out of memory: 0.86 of btree's lookups after the inserts at 38
 * entries a run, 0.96 at 23).  17 bytes is a whole sparse int8 entry, so
 * 8-byte keys fold as before front-coding, and long keys with long shared
 * prefixes (URLs, about 9 entries at 5%) are held by the bytes.
 */
#define PBT_RUN_ENTRY_BUDGET 17

/*
 * Without the resource manager, a dirty leaf takes an insert itself rather
 * than appending it when its layout changes at most this many bytes in
 * place (PbtLayout.insert_ranges): about what an append logs (the run's
 * length and an int8 entry), and the leaf's record saves the fold.
 */
#define PBT_IN_PLACE_BYTES	32

/*
 * Fewer shared bytes are not worth it: an entry stored whole compares in
 * one piece (pbt_compare_parts), and short keys, which share few bytes,
 * are held by the entry budget anyway.
 */
#define PBT_RUN_MIN_SHARED 8

typedef struct PbtRunEntry
{
	int			len;			/* the item's bytes */
	int			shared;			/* of them, the first entry's leading ones */
	const char *rest;			/* the other len - shared */
	bool		reference;		/* PBT_RUN_REFERENCE (only on the first) */
} PbtRunEntry;

static inline bool
pbt_side_front_coded(Page page)
{
	return (PbtPageGetOpaque(page)->flags & PBT_FRONT_CODED) != 0;
}

/* Decode the entry at p into *e; returns where the next entry starts. */
static inline const char *
pbt_run_entry_next(const char *p, PbtRunEntry *e)
{
	uint16		word;

	memcpy(&word, p, sizeof(uint16));
	e->len = word & PBT_RUN_LEN_MASK;
	e->shared = (word & PBT_RUN_SHARED) ? (uint8) p[sizeof(uint16)] : 0;
	e->reference = (word & PBT_RUN_REFERENCE) != 0;
	e->rest = p + sizeof(uint16) + ((word & PBT_RUN_SHARED) ? 1 : 0);
	return e->rest + (e->len - e->shared);
}

/*
 * Is a later entry's shared count one its encoder writes: none, or at least
 * PBT_RUN_MIN_SHARED, less than the entry and within the first entry?  A
 * rewrite of the run (VACUUM) encodes an entry sharing fewer whole, larger
 * than it was, and must not overflow the slot in its critical section.
 */
static inline bool
pbt_run_shared_valid(const PbtRunEntry *e, int first_len)
{
	return e->shared == 0 ||
		(e->shared >= PBT_RUN_MIN_SHARED && e->shared < e->len &&
		 e->shared <= first_len);
}

/*
 * The entries of a run, counted: the header keeps only their bytes, so that
 * an append changes two bytes of it (a smaller generic WAL record).
 */
static inline int
pbt_run_count(const PbtRunHeader *run)
{
	const char *start = (const char *) (run + 1);
	const char *end = start + run->used;
	int			n = 0;
	PbtRunEntry e;

	/* (damaged bytes end the count: pbt_run_read and the verifier say so) */
	for (const char *p = start; p < end && p >= start;)
	{
		p = pbt_run_entry_next(p, &e);
		if (e.shared > e.len)
			break;
		if (!e.reference)
			n++;
	}
	return n;
}

static inline int
pbt_side_slot_size(uint32 group)
{
	return MAXALIGN_DOWN(PBT_USABLE_SPACE / group);
}

static inline int
pbt_side_slot_offset(uint32 group, int slot)
{
	return MAXALIGN(SizeOfPageHeaderData) + slot * pbt_side_slot_size(group);
}

static inline PbtRunHeader *
pbt_side_run(Page page, uint32 group, int slot)
{
	return (PbtRunHeader *) ((char *) page + pbt_side_slot_offset(group, slot));
}

#define PbtIsSidePage(page) \
	(!PageIsNew(page) && (PbtPageGetOpaque(page)->flags & PBT_SIDE))

extern PbtRunHeader *pbt_side_run_checked(Relation index, Page spage,
										  BlockNumber side, uint32 group,
										  int slot);

/* a leaf's run, copied out of its side page */
typedef struct PbtRun
{
	int			n;
	int			used;			/* bytes in the slot */
	bool		stale;			/* the slot holds a stale run (n = 0) */
	int			slot;
	PbtItem    *items;			/* MAXALIGNed copies */
	int			cap;			/* bytes allocated at items */
} PbtRun;

/*
 * Which of a run's entries a reader wants, given the item's len bytes:
 * head[0, headlen) and then tail, on the side page (normalized keys,
 * unaligned; pbt_compare_parts), or all in tail, an aligned copy
 * (comparator keys, headlen 0).
 */
typedef bool (*PbtRunFilter) (void *arg, const char *head, int headlen,
							  const char *tail, int len);

extern uint32 pbt_delta_group(Relation index, PbtState *st);

/* Leaf groups' subnodes per group (0: none), known once the metapage is read */
static inline uint32
pbt_group_size(Relation index, PbtState *st)
{
	if (!st->delta_known)
		(void) pbt_delta_group(index, st);
	return st->group_size;
}
extern uint32 pbt_delta_group_for_build(Relation index, double estimated_leaves);
extern double pbt_delta_threshold_pct(Relation index);

extern uint32 pbt_run_tag(Page leaf);
extern bool pbt_run_read(Relation index, PbtState *st, Buffer leafbuf,
						 PbtRun *run, Buffer *keep);
extern void pbt_run_prefetch(Relation index, PbtState *st, BlockNumber leaf);
extern bool pbt_run_read_filtered(Relation index, PbtState *st,
								  Buffer leafbuf, PbtRun *run, Buffer *keep,
								  PbtRunFilter filter, void *filter_arg);
extern bool pbt_run_exists(Relation index, PbtState *st, Buffer leafbuf);
extern void pbt_run_sort(PbtState *st, PbtRun *run);
extern int	pbt_run_merge(PbtState *st, PbtItem *items, int n,
						  const PbtRun *run, bool *pending);
extern void pbt_run_free(PbtRun *run);
extern bool pbt_run_append(Relation index, PbtState *st, Buffer leafbuf,
						   const char *item, int len);
extern bool pbt_run_fold(Relation index, PbtState *st, Buffer leafbuf,
						 PbtRun *run, const char *item, int len);
extern void pbt_leaf_replace(Relation index, PbtState *st, Buffer leafbuf,
							 const PbtRun *run, Page newpage,
							 const PbtItem *items, int nitems);
extern int	pbt_run_vacuum(Relation index, PbtState *st, Buffer leafbuf,
						   IndexBulkDeleteCallback callback,
						   void *callback_state, double *removed,
						   double *live);
extern bool pbt_leaf_write_costly(Relation index, PbtState *st, Buffer buf,
								  PbtSearchKey *key, const char *item, int len);
extern int	pbt_item_cmp(PbtState *st, const PbtItem *a, const PbtItem *b);

/* page changes shared by the primary and redo */
extern void pbt_side_page_init(Page page, uint32 group);
extern bool pbt_side_run_claim(Page page, int slot, uint32 tag);
extern void pbt_side_run_append(Page page, int slot, const char *data, int len);
extern void pbt_side_run_set(Page page, int slot, const PbtItem *items, int n,
							 bool folded);
extern void pbt_side_run_set_packed(Page page, int slot, const char *data,
									int len);
extern char *pbt_run_pack(const PbtItem *items, int n, int *size);
extern void pbt_side_mask(Page page);

/* WAL */
extern void pbt_redo_run_append(XLogReaderState *record);
extern void pbt_redo_fold(XLogReaderState *record, bool cleanup);

#endif							/* PBT_DELTA_H */
