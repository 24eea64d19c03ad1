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

struct PbtState;
struct PbtSearchKey;
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

typedef struct PbtLayout
{
	const char *name;
	void		(*init) (Page page);
	int			(*count) (Page page);
	/* the item at ordered position pos; assembled in buf if need be */
	void		(*get) (Page page, int pos, PbtItem *item, PbtItemBuf *buf);
	/* inner pages: read or overwrite (in place) the downlink at pos */
	BlockNumber (*get_child) (Page page, int pos);
	void		(*set_child) (Page page, int pos, BlockNumber child);
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
	 * Split planning: bytes a page of exactly these sorted items needs (on
	 * an inner page, items[0] becomes minus infinity).
	 */
	int			(*space_needed) (const PbtItem *items, int n, bool leaf);
	/* bytes available for items after compaction */
	int			(*free_space) (Page page);
	/* bytes of dead item space that a compaction would reclaim */
	int			(*garbage) (Page page);
	/* hint that an entry's heap tuple is dead to all (not WAL-logged) */
	void		(*set_dead) (Page page, int pos);
	bool		(*is_dead) (Page page, int pos);
	/* clear what is not WAL-logged (hints), for wal_consistency_checking */
	void		(*mask) (Page page);
	/* structural problems of the page's bytes, or NULL (verifier) */
	const char *(*check) (Page page);
	/*
	 * Iteration, both NULL = through get and is_dead.  start is called
	 * with it->pos one step before the first position, which is valid.
	 * next advances it->pos (the engine checks it against stop), sets
	 * it->dead and returns the item.
	 */
	void		(*iter_start) (PbtIter *it);
	void		(*iter_next) (PbtIter *it, PbtItem *item);
	/*
	 * Optional equality probe for point lookups on normalized keys without
	 * INCLUDE columns: the heap TIDs (PBT_TID_BYTES each, on the page) of
	 * the items whose key (item minus heap TID) is exactly key, in order,
	 * and their dead hints; returns how many.
	 */
	int			(*probe) (Page page, const char *key, int keylen,
						  const char **tids, bool *dead);
} PbtLayout;

extern const PbtLayout *pbt_layout_by_tag(uint8 tag);
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
extern const PbtLayout pbt_layout_plain;
extern const PbtLayout pbt_layout_heads;
extern const PbtLayout pbt_layout_heads_nohints;
extern const PbtLayout pbt_layout_dense;
extern const PbtLayout pbt_layout_semidense;
extern const PbtLayout pbt_layout_bpa;
extern const PbtLayout pbt_layout_fingerprint;

/*
 * The layout of a page.  Inline, through a table indexed by the tag (NULL
 * for unknown tags): a lookup asks for it several times per page visited.
 */
extern const PbtLayout *const pbt_layouts[256];
extern void pbt_unknown_layout(uint8 tag) pg_attribute_noreturn();

static inline const PbtLayout *
pbt_layout(Page page)
{
	uint8		tag = PbtPageGetOpaque(page)->layout;
	const PbtLayout *layout = pbt_layouts[tag];

	if (unlikely(layout == NULL))
		pbt_unknown_layout(tag);
	return layout;
}

/* pbt_layout_bpa.c: the layout parameter for a log and block size */
#define PBT_BPA_DEFAULT_LOG		8
#define PBT_BPA_DEFAULT_BLOCK	16
extern uint8 pbt_bpa_param(int log_size, int block_size);
extern bool pbt_bpa_reload(Page page);

/* pbt_layout_heads.c: sizes, for conversions and the choice of a layout */
extern int	pbt_heads_base_bytes(int prefix_len);
extern int	pbt_heads_item_bytes(int len);
extern int	pbt_heads_bytes(PbtItem *items, int n);
extern void pbt_heads_convert(Page page, int pos, const char *data, int len);

/* pbt_layout_dense.c: eligibility, for the choice of a layout and builds */
extern bool pbt_dense_eligible(PbtItem *items, int n, PbtItem *hikey,
							   int *bytes);
extern int	pbt_dense_span(const char *first, int firstlen, const char *item,
						   int len);
extern int	pbt_dense_capacity(const char *first, int len);

/* pbt_layout_semidense.c: eligibility, for the choice of a layout and builds */
extern bool pbt_semidense_eligible(PbtItem *items, int n, PbtItem *hikey,
								   int *bytes);
extern bool pbt_semidense_takes(Page page, const char *data, int len);

#endif							/* PBT_LAYOUT_H */
