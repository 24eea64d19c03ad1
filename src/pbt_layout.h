/*-------------------------------------------------------------------------
 *
 * pbt_layout.h
 *	  The layout interface: what a layout owns of a page, and the registry of
 *	  layouts by the tag stored in each page.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_LAYOUT_H
#define PBT_LAYOUT_H

#include "lib/stringinfo.h"
#include "pbt_compat.h"
#include "pbt_page.h"

/* ----------------------------------------------------------------
 * Layout interface: owns the bytes of one page's items
 * ----------------------------------------------------------------
 */

/*
 * Room for one item assembled by a layout that does not store items
 * contiguously (leaf items, separators and downlinks all stay below it).
 */
typedef struct PbtItemBuf
{
	char		data[PBT_MAX_ITEM_SIZE + 4 * MAXIMUM_ALIGNOF];
} PbtItemBuf;

/*
 * Readers trust a page's lengths and offsets (pagebtree_check verifies
 * them) except where a corrupt one would copy past a PbtItemBuf or read
 * past the page: a copy of len bytes from page offset off, ending at end in
 * the buffer, stops with an error first.  The last MAXIMUM_ALIGNOF * 2
 * bytes of the buffer stay for word-wise copies that overrun.
 */
#define PBT_ITEM_BUF_END	(PBT_MAX_ITEM_SIZE + 2 * MAXIMUM_ALIGNOF)
pg_noreturn extern void pbt_bytes_out_of_bounds(void);
pg_noreturn extern void pbt_page_damaged(const char *what);

/*
 * A count a layout keeps in its header, checked: readers and writers size
 * arrays on the stack by PBT_MAX_ITEMS_PER_PAGE.  (Counts derived from
 * pd_lower need no check: the buffer manager verified it.)
 */
static inline int
pbt_checked_count(int count)
{
	if (unlikely(count > (int) PBT_MAX_ITEMS_PER_PAGE))
		pbt_page_damaged("has more items than a page holds");
	return count;
}

/*
 * Do the len bytes at off lie in the page's item space (pd_upper up to the
 * special space)?  For checks of the offsets that headers and slots store.
 */
static inline bool
pbt_in_item_space(Page page, int off, int len)
{
	return off >= ((PageHeader) page)->pd_upper &&
		off + len <= ((PageHeader) page)->pd_special;
}

static inline void
pbt_check_copy(int off, int len, int end)
{
	if (unlikely(len < 0 || end > PBT_ITEM_BUF_END || off + len > BLCKSZ))
		pbt_bytes_out_of_bounds();
}

/*
 * A scan key on bytes at fixed offsets of a normalized item
 * (PbtLayout.iter_filter): an item may pass only if each byte at markers[]
 * is PBT_MARK_VALUE and its len bytes at off (1 to 8), read as a big-endian
 * number and compared with value (the same bytes, left-aligned in its 64
 * bits), give a result c (-1, 0, 1) whose bit c + 1 is set in pass_mask.
 */
typedef struct PbtEntryFilter
{
	int			nmarkers;
	uint16		markers[INDEX_MAX_KEYS];
	uint16		off;
	uint8		len;
	uint8		pass_mask;
	uint64		value;
} PbtEntryFilter;

/* bytes [off, off + len) of a page (PbtLayout.insert_ranges) */
typedef struct PbtByteRange
{
	uint16		off;
	uint16		len;
} PbtByteRange;

#define PBT_MAX_INSERT_RANGES 4

struct PbtState;
struct PbtSearchKey;
struct PbtOptions;
struct PbtLayout;

/* the largest layout's iteration state (BPA: the block being read, sorted) */
#define PBT_ITER_STATE_SIZE 400

/*
 * Ordered iteration over a page's items, from a start position in either
 * direction (scans, VACUUM, uniqueness checks, splits).  A layout that
 * assembles items implements next so that consecutive items reuse what
 * they share (the prefix, the place in a bitmap) instead of paying a whole
 * get per position; the others are iterated through get and is_dead.
 */
typedef struct PbtIter
{
	Page		page;
	const struct PbtLayout *layout;
	int			pos;			/* position of the item last returned */
	int			stop;			/* first position not to return */
	int			step;			/* +1 forward, -1 backward */
	int			cursor;			/* the layout's own place (dense: slot) */
	bool		primed;			/* buf holds the bytes items share */
	bool		dead;			/* the last item returned has a dead hint */
	bool		unordered;		/* any order will do (bitmap scans): a
								 * layout that does not store items sorted
								 * returns them as stored */
	union
	{
		char		data[PBT_ITER_STATE_SIZE];
		int64		align;
	}			state;			/* the layout's own (fingerprint: the order
								 * of its unsorted entries) */
	PbtItemBuf	buf;
} PbtIter;

/*
 * PbtLayout.flags: where a layout may be used and how the engine treats its
 * pages.  The verifier checks the first five against each page; the engine
 * tests the others on the page's layout instead of comparing tags, so that
 * a new layout states what it is rather than being named in engine code.
 */
#define PBT_LF_LEAF			0x0001	/* may hold leaf pages */
#define PBT_LF_INNER		0x0002	/* may hold inner pages */
#define PBT_LF_NORMALIZED	0x0004	/* only where keys are normalized (items
									 * compared as byte strings) */
#define PBT_LF_NO_INCLUDE	0x0008	/* not in indexes with INCLUDE columns */
#define PBT_LF_INCLUDE		0x0010	/* only in indexes with INCLUDE columns */
#define PBT_LF_REBUILT		0x0020	/* made only by rebuilding a page for
									 * items that qualify (fits), never the
									 * layout a new page starts with; an
									 * insert that breaks its pattern
									 * converts the page to convert_to */
#define PBT_LF_APPEND_SPLIT 0x0040	/* an insert past the end of the rightmost
									 * leaf splits without planning
									 * (split_rightmost_append): truncate is
									 * cheap and iteration from a position
									 * reads only the items that move */
#define PBT_LF_APPEND_KEEPS_ALL 0x0080	/* ... and the left page keeps all its
										 * items (its free space past the new
										 * high key could never be used); the
										 * right page starts in this layout */
#define PBT_LF_SPLIT_REBUILDS 0x0100	/* a split always rebuilds the left
										 * half, never truncates it in place */
#define PBT_LF_RETIRED		0x0200	/* written by earlier versions, read and
									 * updated in place only: never the
									 * layout of a page made now */
#define PBT_LF_WHOLE_WINDOW 0x0400	/* a page of this PBT_LF_REBUILT layout
										 * keeps room for every key of its
										 * window (dense: a value per key),
										 * so it never fills */

typedef struct PbtLayout
{
	const char *name;
	uint8		tag;			/* PBT_LAYOUT_*: its index in the registry */
	uint16		flags;			/* PBT_LF_* */
	void		(*init) (Page page);
	int			(*count) (Page page);
	/* the item at ordered position pos; assembled in buf if need be */
	void		(*get) (Page page, int pos, PbtItem *item, PbtItemBuf *buf);
	/*
	 * Inner pages: the downlink bytes of the item at pos (its first
	 * pbt_page_downlink_size bytes: child block number, then padding or
	 * hints), stored verbatim in the page, to read or overwrite in place
	 */
	char	   *(*downlink) (Page page, int pos);
	/*
	 * Binary search, NULL = the engine's generic one: on a leaf the first
	 * position whose item is >= key, on an inner page the downlink to follow
	 * (the last separator <= key).
	 */
	int			(*search) (struct PbtState *st, Page page,
						   struct PbtSearchKey *key);
	/* insert at ordered position pos; false (page unchanged) if no room */
	bool		(*insert) (Page page, int pos, const char *data, int len);
	/*
	 * Optional: if insert(page, pos, data, len) would change bytes in place
	 * only (nothing shifts, no conversion), the ranges of the page outside
	 * its hole that it may change, the page header excepted: at most
	 * PBT_MAX_INSERT_RANGES, ascending and not overlapping; returns how
	 * many, or -1 if the insert may change more.  Without the resource
	 * manager the engine then logs the insert by comparing those bytes, and
	 * those that leave the hole, instead of the whole page.
	 */
	int			(*insert_ranges) (Page page, int pos, const char *data, int len,
								  PbtByteRange *ranges);
	/*
	 * insert ignores pos (items are kept unsorted): the engine searches for
	 * the position only when the page must split
	 */
	bool		insert_anywhere;
	/* fill an empty page (high key already set) with sorted items */
	void		(*load) (Page page, PbtItem *items, int n);
	/* delete items at ordered positions (ascending) */
	void		(*delete) (Page page, const int *positions, int n);
	/* keep only the first n items (split) */
	void		(*truncate) (Page page, int n);
	/*
	 * bytes that inserting this item would take, slot included; more than
	 * the page has (BPA) when the page is to be treated as full
	 */
	int			(*item_cost) (Page page, const char *data, int len);
	/*
	 * Split planning: bytes a page of exactly these sorted items needs.
	 * downlink: 0 for a leaf; on an inner page the bytes before each item's
	 * key (pbt_page_downlink_size), and items[0] becomes minus infinity.
	 */
	int			(*space_needed) (const PbtItem *items, int n, int downlink);
	/*
	 * Leaves of normalized keys: would a page of this layout, loaded with
	 * exactly these sorted items and high key (NULL: none), hold them?
	 * Exact for what load does, so that a split can check its halves before
	 * it writes them; for a PBT_LF_REBUILT layout it also says whether the
	 * items qualify.  *bytes (if not NULL) gets what the items take there,
	 * the high key not counted, to compare layouts (set when true).
	 */
	bool		(*fits) (PbtItem *items, int n, PbtItem *hikey, int *bytes);
	/* bytes available for items after compaction */
	int			(*free_space) (Page page);
	/*
	 * Optional: where the page's low end really ends, when the layout keeps
	 * bytes of its own above pd_lower, in the hole that full-page images
	 * leave out (dense: the empty tail of its value array, all zeros).
	 * pbt_page_alloc places nothing below it.  NULL = pd_lower.
	 */
	int			(*low_end) (Page page);
	/* bytes of dead item space that a compaction would reclaim */
	int			(*garbage) (Page page);
	/*
	 * Optional: squeeze the garbage out, keeping the items, their order and
	 * the high key; deterministic, and without palloc (it runs inside
	 * critical sections and in redo).  NULL where deletions leave none
	 * worth it (pbt_page_delete).
	 */
	void		(*compact) (Page page);
	/* hint that an entry's heap tuple is dead to all (not WAL-logged) */
	void		(*set_dead) (Page page, int pos);
	bool		(*is_dead) (Page page, int pos);
	/* clear what is not WAL-logged (hints), for wal_consistency_checking */
	void		(*mask) (Page page);
	/* structural problems of the page's bytes, or NULL (verifier) */
	const char *(*check) (Page page);
	/*
	 * Optional: the part of check that reads only the layout's header, in
	 * constant time.  Readers and writers trust a page's header fields to
	 * size their copies, so the engine runs it where it starts on a page
	 * (pbt_layout_checked); check runs it too.
	 */
	const char *(*check_header) (Page page);
	/*
	 * Iteration, both NULL = through get and is_dead.  start is called
	 * with it->pos one step before the first position, which is valid.
	 * next advances it->pos (the engine checks it against stop), sets
	 * it->dead and returns the item.
	 */
	void		(*iter_start) (PbtIter *it);
	void		(*iter_next) (PbtIter *it, PbtItem *item);
	/*
	 * Optional, for leaves of normalized keys without INCLUDE columns: the
	 * heap TIDs and dead hints of the next n entries of the iteration (n at
	 * most what remains), it->pos advanced past them.  Saves building an
	 * item per entry only to read its TID back, where a scan returns every
	 * entry of a batch without needing its key (a page of one key, a batch
	 * that passes the scan keys whole).  The iteration may go on over a copy
	 * of the page (the scan decodes a long leaf as it reaches them).
	 */
	void		(*iter_tids) (PbtIter *it, int n, ItemPointerData *tids,
							  bool *dead);
	/*
	 * Optional, with iter_tids, for a layout that stores each key once over
	 * its entries: how many entries after the one last returned, in the
	 * iteration's direction, have its key.  A scan checks the first entry
	 * of such a run against the scan keys and takes the others' TIDs with
	 * iter_tids, sharing the first's bytes (an index-only scan forms its
	 * tuple once per key).
	 */
	int			(*iter_key_run) (PbtIter *it);
	/*
	 * Optional, for leaves of normalized keys: advance the iteration over
	 * at most max entries that certainly fail f, stopping before the first
	 * that may pass (or that it cannot test cheaply); returns how many it
	 * passed over.  Saves building an item per entry only to find that a
	 * scan key on a later column fails (a scan of the whole index for
	 * WHERE b = 42 on an index on (a, b)).
	 */
	int			(*iter_filter) (PbtIter *it, const PbtEntryFilter *f, int max);
	/*
	 * Optional equality probe for point lookups on normalized keys without
	 * INCLUDE columns: the heap TIDs (PBT_TID_BYTES each, on the page) of
	 * the items whose key (item minus heap TID) is exactly key, in order,
	 * and their dead hints; returns how many.
	 */
	int			(*probe) (Page page, const char *key, int keylen,
						  const char **tids, bool *dead);
	/*
	 * Optional: the layout_param of pages made for an index with these
	 * reloptions (NULL: defaults), kept by rebuilds.  NULL = always 0.
	 */
	uint8		(*param) (const struct PbtOptions *opts);
	/*
	 * Optional: append what the page's own settings are, as "name=value "
	 * words, to the flags that pagebtree_page_stats shows (BPA: its
	 * geometry, which options changed since the index was built).
	 */
	void		(*describe) (Page page, StringInfo out);

	/*
	 * Conversion.  A PBT_LF_REBUILT layout turns a page whose pattern an
	 * insert breaks into a page of layout convert_to holding all its items
	 * and the new one (pbt_page_convert), inside its insert, so WAL redo of
	 * the insert repeats it: convert_to is part of the page format.  The
	 * target must measure a leaf of sorted items as prefix_bytes(p) plus
	 * suffix_bytes(len - p) per item, p being what the first and last items
	 * share (the high key not counted), so that a converting layout adds up
	 * the cost from what it knows of its items without assembling them
	 * (dense: one length for all); and it must take, by insert in order,
	 * the items between the first and last after a load of those two.
	 */
	uint8		convert_to;
	int			(*prefix_bytes) (int prefix_len);
	int			(*suffix_bytes) (int len);

	/*
	 * Bulk build, all optional.  A PBT_LF_REBUILT layout says whether an
	 * item goes on a page of it that the build is filling: either by runs
	 * (dense), run_span giving the number of key tails from first (the
	 * page's first item) to item inclusive if the two can share a page of
	 * the layout, else 0, and run_capacity the tails such a page starting
	 * at first holds (also partition detection at splits); or by takes
	 * (semidense): would insert put the item in place?  finish_build
	 * rearranges a leaf the build has finished (BPA: room for flushes).
	 */
	int			(*run_span) (const char *first, int firstlen,
							 const char *item, int len);
	int			(*run_capacity) (const char *first, int len);
	bool		(*takes) (Page page, const char *data, int len);
	void		(*finish_build) (Page page);
} PbtLayout;

extern void pbt_iter_start(PbtIter *it, Page page, int pos, bool forward);
extern void pbt_iter_start_unordered(PbtIter *it, Page page);

/* the next item in the iteration's direction; false past the end */
static inline bool
pbt_iter_next(PbtIter *it, PbtItem *item)
{
	if (it->pos + it->step == it->stop)
		return false;
	if (it->layout->iter_next)
		it->layout->iter_next(it, item);
	else
	{
		it->pos += it->step;
		it->layout->get(it->page, it->pos, item, &it->buf);
		it->dead = it->layout->is_dead(it->page, it->pos);
	}
	return true;
}

/*
 * The registry (pbt_registry.c): layouts by the tag stored in each page,
 * NULL for unknown tags.  The table covers every uint8 so that looking a
 * page's layout up needs no bounds check; the tags in use stay below
 * PBT_MAX_LAYOUTS, so that per-tag settings fit a small array
 * (PbtState.layout_param).
 */
#define PBT_MAX_LAYOUTS		16
extern const PbtLayout *const pbt_layouts[256];
pg_noreturn extern void pbt_unknown_layout(uint8 tag);

/* a layout by tag, NULL if there is none (the verifier, WAL masking) */
static inline const PbtLayout *
pbt_layout_by_tag(uint8 tag)
{
	return pbt_layouts[tag];
}

/*
 * The layout of a page.  Inline, through the table: a lookup asks for it
 * several times per page visited.
 */
static inline const PbtLayout *
pbt_layout(Page page)
{
	uint8		tag = PbtPageGetOpaque(page)->layout;
	const PbtLayout *layout = pbt_layouts[tag];

	if (unlikely(layout == NULL))
		pbt_unknown_layout(tag);
	return layout;
}

pg_noreturn extern void pbt_page_header_damaged(const char *problem);
extern const char *pbt_special_problem(Page page);

/*
 * pbt_layout() for the first look at a page under a lock: its special
 * space and its layout's header checked for damage (pbt_special_problem,
 * PbtLayout.check_header), so that the engine and the layout's other
 * functions, here and later under the same lock, may trust them.
 */
static inline const PbtLayout *
pbt_layout_checked(Page page)
{
	const PbtLayout *layout = pbt_layout(page);
	const char *problem = pbt_special_problem(page);

	if (problem == NULL && layout->check_header)
		problem = layout->check_header(page);
	if (unlikely(problem != NULL))
		pbt_page_header_damaged(problem);
	return layout;
}

/*
 * The separator of the inner item at pos, the bytes after its downlink: an
 * item shorter than the downlink is damage, not a negative length.
 */
static inline void
pbt_inner_separator(Page page, int pos, PbtItem *sep, PbtItemBuf *buf)
{
	int			dl = pbt_page_downlink_size(page);

	pbt_layout(page)->get(page, pos, sep, buf);
	if (unlikely(sep->len < dl))
		pbt_page_damaged("has an inner item shorter than its downlink");
	sep->data += dl;
	sep->len -= dl;
}

/* defaults of the BPA geometry reloptions, bpa_log_size and bpa_block_size */
#define PBT_BPA_DEFAULT_LOG		8
#define PBT_BPA_DEFAULT_BLOCK	16

#endif							/* PBT_LAYOUT_H */
