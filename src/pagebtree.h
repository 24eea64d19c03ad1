/*-------------------------------------------------------------------------
 *
 * pagebtree.h
 *	  Shared declarations for the pagebtree index access method.
 *
 * pagebtree is a Lehman-Yao B-link tree (high key and right-link on every
 * page, like nbtree) whose node contents are owned by pluggable "layouts".
 * Keys are either normalized, order-preserving byte strings compared with
 * memcmp (PBT_KEYS_NORMALIZED) or index tuples compared with the opclass
 * comparator (PBT_KEYS_COMPARATOR).  See docs/ARCHITECTURE.md.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PAGEBTREE_H
#define PAGEBTREE_H

#include "postgres.h"

#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/itup.h"
#include "access/relscan.h"
#include "access/rmgr.h"
#include "access/sdir.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "access/skey.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "nodes/pathnodes.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"

#include "pbt_compat.h"
#include "pbt_page.h"
#include "pbt_layout.h"
#include "pbt_keys.h"
#include "pbt_xlog.h"

/* reloptions */
typedef struct PbtOptions
{
	int32		vl_len_;
	int			fillfactor;
	int			layout;			/* PbtLayoutOption (pbt_policy.c) */
	int			bpa_log_size;	/* BPA leaves: insert log slots */
	int			bpa_block_size; /* BPA leaves: slots per block */
	int			delta;			/* PbtDeltaOption */
	double		delta_threshold;	/* a run folds at this % of a page */
	bool		deduplicate_items;	/* posting leaves for one key's entries */
	int			leaf_group_size;	/* subnodes per leaf group, 0 = none */
	int			leaf_group_hint_bits;	/* 0 to 32, -1: by the key's type
										 * (pbt_group.h) */
	double		vacuum_cleanup_index_scale_factor;	/* btree's, unused */
} PbtOptions;

/* descent stack: parent pages visited, for inserting downlinks */
typedef struct PbtStackData
{
	BlockNumber blkno;
	int			pos;			/* downlink position followed */
	struct PbtStackData *parent;
} PbtStackData;

typedef PbtStackData *PbtStack;

/* ----------------------------------------------------------------
 * Functions
 * ----------------------------------------------------------------
 */

/* pbt_handler.c */
extern bool pbt_rmgr_registered;
extern bool pbt_ablate_leaf_hints;
extern bool pbt_short_include_payloads;
extern bool pbt_delta_append_always;
extern bool pbt_prefetch_arrays_always;
extern PbtState *pbt_get_state(Relation index);

/*
 * May a reader change a page without WAL, as btree sets LP_DEAD (dead-entry
 * marks, the adaption counter)?  Not while this session consistency-checks
 * generic WAL records (wal_consistency_checking = 'generic' or 'all'):
 * generic_mask does not know these hints, so redo of the page's next
 * generic record would stop at "inconsistent page found".  Custom records
 * are checked with pbt_mask, which masks them.
 */
static inline bool
pbt_unlogged_hints_allowed(void)
{
	return wal_consistency_checking == NULL ||
		!wal_consistency_checking[RM_GENERIC_ID];
}

/*
 * A change of a leaf that WAL does not carry (a reader's hint, the clearing
 * of HAS_DEAD) sets flags, and PBT_UNLOGGED_HINTS: see below.
 */
static inline void
pbt_note_unlogged_hint(PbtPageOpaque opaque, uint16 flags)
{
	if ((opaque->flags & (flags | PBT_UNLOGGED_HINTS)) !=
		(flags | PBT_UNLOGGED_HINTS))
		opaque->flags |= flags | PBT_UNLOGGED_HINTS;
}

/*
 * Must a generic record of page log the whole page?  Yes while this session
 * checks generic records if readers hinted the page before, in a session
 * that did not (the setting is per session) or before the setting changed:
 * the record's check image would hold hints that the page redo rebuilds
 * lacks.  The full image carries them, and the flag is cleared in it.
 */
static inline bool
pbt_generic_needs_image(Page page)
{
	return !pbt_unlogged_hints_allowed() &&
		(PbtPageGetOpaque(page)->flags & PBT_UNLOGGED_HINTS) != 0;
}

extern PbtState *pbt_build_state(Relation index, MemoryContext cxt);
extern void _PG_init(void);
struct IndexOptInfo;
extern bool pbt_index_is_ours(struct IndexOptInfo *index);

/* pbt_rowcompare.c */
extern void pbt_install_planner_hook(void);

/* pbt_registry.c */
#if defined(USE_ASSERT_CHECKING) || defined(PBT_CHECKS)
extern void pbt_registry_check(void);
#endif

/* pbt_policy.c */
extern void pbt_add_layout_reloption(bits32 kinds);
extern const char *pbt_layout_option_name(int option);
extern const char *pbt_layout_option_conflict(PbtState *st, int option);
extern void pbt_set_layouts(PbtState *st, const PbtOptions *opts,
							bool has_string_column);
extern uint8 pbt_choose_leaf_layout(PbtState *st, PbtItem *items, int n,
									PbtItem *hikey, bool one_page);
extern uint8 pbt_choose_append_layout(PbtState *st, const PbtLayout *from,
									  PbtItem *items, int n);
extern bool pbt_fit_kept_layout(uint16 kept, PbtItem *items, int n,
								PbtItem *hikey, uint8 *tag, int *bytes);
extern bool pbt_adapt_leaf(PbtState *st, Page page, uint8 counter,
						   PbtItem *items, int n, PbtItem *hikey);
extern uint8 pbt_adapt_target(PbtPageOpaque opaque);
extern void pbt_adapt_abandon(PbtPageOpaque opaque, uint8 tag);
extern uint8 pbt_adapt_on_read(Buffer buf, bool point);

/* pbt_page.c */
extern Buffer pbt_new_page(Relation index);
extern void pbt_return_free_pages(Relation index, const BlockNumber *blocks,
								  int n, bool dry);

/*
 * The blocks a search of the free space map passes over before it gives
 * up: generous, since in a group index single pages and deleted groups'
 * blocks share the map (decisions.md, "Session 87")
 */
#define PBT_FREE_PAGE_TRIES 32
extern void pbt_set_vacuum_scan(Relation index, bool on);
extern bool pbt_vacuum_scanning(Relation index);
extern bool pbt_page_has_room(Page page, int need);
extern void pbt_page_init(Page page, uint16 level, uint16 flags, uint8 layout,
						  struct PbtState *st);
extern void pbt_page_set_layout(Page page, uint8 layout, struct PbtState *st);
extern void pbt_probe_sort(const char **tids, bool *dead, int n);
extern void pbt_meta_init(Page page, uint32 key_mode, uint32 version);
extern void pbt_meta_settings(Relation index, PbtState *st,
							  const PbtMetaPageData *meta);
extern bool pbt_page_get_hikey(Page page, PbtItem *hikey);

/* the page's high key for pbt_page_rebuild: in hikey, or NULL if none */
static inline PbtItem *
pbt_page_hikey_or_null(Page page, PbtItem *hikey)
{
	return pbt_page_get_hikey(page, hikey) ? hikey : NULL;
}

extern bool pbt_page_set_hikey(Page page, const char *data, int len);
extern int	pbt_page_hikey_bytes(Page page);
extern int	pbt_page_alloc(Page page, int len);
extern void pbt_page_start_rebuild(Page tmp, Page page, PbtItem *hikey);
extern void pbt_page_rebuild(Page page, PbtItem *items, int nitems,
							 PbtItem *hikey);
/*
 * The garbage at which a deletion compacts a leaf that keeps entries, where
 * that costs no WAL (pbt_page_delete): less is not worth a rewrite of the
 * page (a BPA leaf about to split compacts instead from the same amount).
 */
#define PBT_COMPACT_GARBAGE (BLCKSZ / 16)
extern void pbt_page_delete(Page page, const int *positions, int n,
							bool compact);
extern void pbt_page_rebuild_as(Page page, uint8 tag, PbtState *st,
								PbtItem *items, int nitems, PbtItem *hikey);
extern void pbt_page_convert(Page page, int pos, const char *data, int len);
extern bool pbt_page_convert_to(Page page, uint8 tag, uint8 param);
extern void pbt_check_page(Relation index, Page page, BlockNumber blkno);
extern bool pbt_page_insert(Page page, int pos, const char *data, int len);
extern PbtItem *pbt_page_copy_items(Page page, int n);
extern void pbt_free_items(PbtItem *items, int n);

/* pbt_adapt.c */
extern void pbt_adapt_convert(Relation index, PbtState *st, BlockNumber blkno,
							  uint8 tag);

/* pbt_bufcache.c */
extern Buffer pbt_read_hot(Relation index, BlockNumber blkno);
extern Buffer pbt_read_leaf(Relation index, BlockNumber blkno);
extern void pbt_prefetch_recent_leaf(Relation index, BlockNumber blkno,
									 int offset, int len);

/* pbt_leafcache.c */
extern int	pbt_leaf_cache_kb;
extern bool pbt_leaf_cache_applies(Relation index, PbtState *st, int access);
extern Buffer pbt_leaf_cache_lookup(Relation index, PbtState *st,
									PbtSearchKey *key, int access);
extern void pbt_leaf_cache_remember(Relation index, PbtState *st,
									const char *low, int len, Buffer buf);
extern void pbt_leaf_cache_written(Relation index, Buffer buf,
								   XLogRecPtr before);

/* a CPU cache prefetch hint */
#if defined(__GNUC__) || defined(__clang__)
#define pbt_prefetch_mem(addr) __builtin_prefetch(addr)
#else
#define pbt_prefetch_mem(addr) ((void) 0)
#endif

/* pbt_search.c */
extern void pbt_read_root_from_meta(Relation index, PbtState *st);
extern Buffer pbt_get_root(Relation index, PbtState *st, int access);
extern PbtStack pbt_search(Relation index, PbtState *st, PbtSearchKey *key,
						   Buffer *bufp, int access, int target_level);
extern PbtStack pbt_search_leaf(Relation index, PbtState *st,
								PbtSearchKey *key, Buffer *bufp, int access);
extern const PbtLayout *pbt_layout_checked_in(PbtState *st, Page page);
extern int	pbt_binsearch(PbtState *st, Page page, PbtSearchKey *key);
extern bool pbt_beyond_hikey(PbtState *st, Page page, PbtSearchKey *key);
extern int	pbt_page_first_key(Page page);
extern BlockNumber pbt_page_child(Page page, int pos);
extern void pbt_page_set_child(Page page, int pos, BlockNumber child);
extern Buffer pbt_get_endpoint(Relation index, PbtState *st, uint32 level,
							   bool rightmost);
extern void pbt_free_stack(PbtStack stack);
extern void pbt_page_error(Relation index, BlockNumber blkno, const char *what);

/*
 * The pages one walk along a level's right-links has stepped to.  More
 * than twice the index's blocks (splits add pages meanwhile, and VACUUM
 * recycles some for reuse further right) means the links form a cycle,
 * which only damage makes; the walk then stops with an error instead of
 * circling forever, uncancellable under the content locks of a writer.
 * The first PBT_WALK_FREE_STEPS steps skip the count of blocks.
 */
typedef struct PbtLinkWalk
{
	uint64		steps;
	uint64		limit;
} PbtLinkWalk;

#define PBT_WALK_FREE_STEPS 1024

extern bool pbt_walk_past_blocks(Relation index, PbtLinkWalk *walk, int passes);

/* one more step: has the walk taken more than passes times the blocks? */
static inline bool
pbt_walk_cycles(Relation index, PbtLinkWalk *walk, int passes)
{
	return ++walk->steps > PBT_WALK_FREE_STEPS && walk->steps > walk->limit &&
		pbt_walk_past_blocks(index, walk, passes);
}

/* blkno is the walk's next page */
static inline void
pbt_walk_step(Relation index, PbtLinkWalk *walk, BlockNumber blkno)
{
	if (pbt_walk_cycles(index, walk, 2))
		pbt_page_error(index, blkno, "right-links of a level form a cycle");
}

/* pbt_insert.c */
extern bool pbtinsert(Relation index, Datum *values, bool *isnull,
					  ItemPointer ht_ctid, Relation heapRel,
					  IndexUniqueCheck checkUnique, bool indexUnchanged,
					  struct IndexInfo *indexInfo);
extern void pbt_finish_split(Relation index, PbtState *st, Buffer lbuf,
							 PbtStack stack);
extern void pbt_check_item_size(Relation index, Relation heap, PbtState *st,
								ItemPointer tid, Size len);

/* pbt_scan.c */
extern IndexScanDesc pbtbeginscan(Relation index, int nkeys, int norderbys);
extern void pbtrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					  ScanKey orderbys, int norderbys);
extern bool pbtgettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 pbtgetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void pbtendscan(IndexScanDesc scan);
extern void pbtmarkpos(IndexScanDesc scan);
extern void pbtrestrpos(IndexScanDesc scan);
extern Size pbtestimateparallelscan(PBT_ESTIMATE_PARALLEL_ARGS);
extern void pbtinitparallelscan(void *target);
extern void pbtparallelrescan(IndexScanDesc scan);

/* pbt_build.c */
extern IndexBuildResult *pbtbuild(Relation heap, Relation index,
								  struct IndexInfo *indexInfo);
extern void pbtbuildempty(Relation index);
extern char *pbtbuildphasename(int64 phasenum);

/* pbt_vacuum.c */
extern IndexBulkDeleteResult *pbtbulkdelete(IndexVacuumInfo *info,
											IndexBulkDeleteResult *stats,
											IndexBulkDeleteCallback callback,
											void *callback_state);
extern IndexBulkDeleteResult *pbtvacuumcleanup(IndexVacuumInfo *info,
											   IndexBulkDeleteResult *stats);
extern BlockNumber pbt_parent_by_key(Relation index, PbtState *st,
									 char *sep, int len, uint32 level);
extern int	pbt_downlink_pair(Page parent, uint32 level, BlockNumber left,
							  BlockNumber right);

/*
 * Debian's server is built without assertions, so this module's Asserts
 * would never run against it: PBT_CHECKS builds turn them on here.
 */
#if defined(PBT_CHECKS) && !defined(USE_ASSERT_CHECKING)
#undef Assert
#define Assert(condition) \
	do { \
		if (!(condition)) \
			pbt_assertion_failed(#condition); \
	} while (0)
#endif

/*
 * Does this backend hold buf's content lock in mode?  For Asserts around
 * lock transitions; local buffers (temporary indexes) have no content lock.
 */
static inline bool
pbt_buffer_locked(Buffer buf, LWLockMode mode)
{
	return BufferIsLocal(buf) ||
		LWLockHeldByMeInMode(BufferDescriptorGetContentLock(GetBufferDescriptor(buf - 1)),
							 mode);
}

/*
 * Lock buf, a page reached through a link (a sibling, parent or group
 * block) while the caller holds other pages locked.  A damaged link can
 * lead back to one of them, and locking it again would wait on ourselves
 * forever, past any cancel: that is reported as damage instead.
 */
static inline void
pbt_lock_linked(Relation index, Buffer buf, int mode)
{
	if (!BufferIsLocal(buf) &&
		LWLockHeldByMe(BufferDescriptorGetContentLock(GetBufferDescriptor(buf - 1))))
		pbt_page_error(index, BufferGetBlockNumber(buf),
					   "a link leads back to a page the operation holds");
	LockBuffer(buf, mode);
}

/*
 * A heap TID read from block blkno whose offset is 0 or past max_offset is
 * damage, reported (scans, and VACUUM, whose table callback asserts a
 * valid one; MaxOffsetNumber where any table access method may read it).
 */
static inline void
pbt_check_heap_tid(Relation index, BlockNumber blkno, ItemPointer tid,
				   OffsetNumber max_offset)
{
	OffsetNumber off = ItemPointerGetOffsetNumberNoCheck(tid);

	if (unlikely(off < FirstOffsetNumber || off > max_offset))
		pbt_page_error(index, blkno,
					   "an entry's heap TID has an offset out of range");
}

/* a page of this index's tree (not the metapage, not uninitialized) */
#define PbtIsTreePage(page) \
	(!PageIsNew(page) && PbtPageGetOpaque(page)->page_id == PBT_PAGE_ID && \
	 !(PbtPageGetOpaque(page)->flags & (PBT_META | PBT_SIDE)))

#ifdef PBT_CHECKS
#define PBT_CHECK_PAGE(rel, page, blk) pbt_check_page((rel), (page), (blk))
#else
#define PBT_CHECK_PAGE(rel, page, blk) ((void) 0)
#endif

/*
 * In PBT_CHECKS builds with valgrind's headers, ask memcheck (when running
 * under it) whether bytes about to reach a page or WAL are all defined.
 * Debian's server is not built for valgrind, so its own checks cannot see
 * uninitialized bytes in our pages.
 */
#if defined(PBT_CHECKS) && defined(PBT_VALGRIND)
#include <valgrind/memcheck.h>
#define PBT_CHECK_DEFINED(ptr, len) \
	((void) VALGRIND_CHECK_MEM_IS_DEFINED((ptr), (len)))
#else
#define PBT_CHECK_DEFINED(ptr, len) ((void) 0)
#endif

#endif							/* PAGEBTREE_H */
