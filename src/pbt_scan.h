/*-------------------------------------------------------------------------
 *
 * pbt_scan.h
 *	  Index scan state, private to pbt_scan.c, pbt_scankey.c and
 *	  pbt_readpage.c.
 *
 * The scan opaque with its keys and positions, the functions the three
 * files call in each other, and the small helpers that several of them use
 * on the per-item and per-page paths, kept inline here as they were when
 * the scan was one file.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_SCAN_H
#define PBT_SCAN_H

#include "pagebtree.h"
#include "pbt_delta.h"
#include "pbt_group.h"
#include "pbt_prefetch.h"

#include "storage/condition_variable.h"
#include "storage/spin.h"

/* a batch: a page's items and its run's (pbt_delta.h), which are fewer */
#define PBT_MAX_RUN_ITEMS \
	(PBT_USABLE_SPACE / PBT_MIN_DELTA_GROUP / PBT_RUN_ENTRY_MIN_COST)
#define PBT_MAX_BATCH_ITEMS (PBT_MAX_ITEMS_PER_PAGE + PBT_MAX_RUN_ITEMS)

struct ArrayKeyInfo;

typedef struct ScanKeyInfo
{
	ScanKey		sk;
	int			col;
	StrategyNumber strategy;	/* in index order (DESC undone); 0 = null test */
	bool		required_fwd;	/* failing stops a forward scan */
	bool		required_bwd;
	bool		covered;		/* guaranteed by the start and end keys */
	bool		nonnull_only;	/* guaranteed for non-NULL values */
	bool		encodable;		/* normalized mode: enc holds the argument */
	StringInfoData enc;
	FmgrInfo	cmpproc;		/* comparator mode: column vs argument */
	bool		has_cmpproc;
	struct ArrayKeyInfo *filter;	/* = ANY checked per item against all of
									 * its elements (pbt_preprocess_keys) */
	bool		inline_check;	/* a comparison on normalized keys whose
								 * column's offset the fixed widths of the
								 * columns before it give (check_keys_inline) */
	uint8		pass_mask;		/* with inline_check: bit c + 1 set where a
								 * byte comparison c (-1, 0, 1) passes */
} ScanKeyInfo;

typedef struct ArrayKeyInfo
{
	int			keyidx;
	Datum		array;			/* the key's argument as given */
	Datum	   *elems;			/* sorted, distinct */
	int			nelems;
	int			cur;
	int			mark;
	StringInfoData enc;			/* its elements encoded (normalized keys), at
								 * encoff[i], or all NULL: a filter's, and
								 * an array read in one pass (enc_tried) */
	int		   *encoff;
	bool		enc_tried;
} ArrayKeyInfo;

/*
 * The ranges a scan reads one after another (a skip scan's values, an
 * array's elements), for its trial of reading on instead (pbt_scan.c):
 * ranges that followed another, those that began on the leaf where the one
 * before ended, and the leaves where the current range began and where the
 * one before it ended
 */
typedef struct PbtRangeSteps
{
	int			ranges;
	int			dense;
	BlockNumber start_leaf;
	BlockNumber end_leaf;
} PbtRangeSteps;

/* ranges a trial takes, at first (pbt_scan.c, ranges_dense) */
#define PBT_RANGE_TRIAL 8

static inline void
pbt_range_steps_reset(PbtRangeSteps *steps)
{
	steps->ranges = steps->dense = 0;
	steps->start_leaf = steps->end_leaf = InvalidBlockNumber;
}

typedef struct ScanPosItem
{
	ItemPointerData tid;
	uint16		pos;			/* its position on the page when read */
	uint16		tuplen;
	uint32		tupoff;			/* in currTuples, which can outgrow 64 kB
								 * when a layout factors out a long prefix */
} ScanPosItem;

#define PBT_NO_TUPOFF	PG_UINT32_MAX

typedef struct ScanPos
{
	bool		valid;			/* positioned on a page */
	/* the page positions the batch examined, and whether more follow */
	int			lowPos;
	int			highPos;
	bool		restLeft;
	bool		restRight;
	/* copies of the items at lowPos and highPos in the tuple buffer */
	uint32		boundOff[2];
	int			boundLen[2];
	Buffer		buf;			/* pinned (not locked), or InvalidBuffer */
	XLogRecPtr	lsn;			/* page LSN when read */
	BlockNumber blkno;
	BlockNumber next;
	BlockNumber prev;
	/* a subnode of a leaf group: its group's first block, size and epoch */
	BlockNumber gstart;			/* InvalidBlockNumber: not a subnode */
	int			gsize;
	uint64		epoch;
	/*
	 * Where a scan of a group index reads on from if a rebalance moved the
	 * subnode boundaries it relied on when it leaves the page, as keys in
	 * the tuple buffer: forward, the page's high key; backward, its first
	 * entry (an empty page: its high key; 0 = none, the end of the index)
	 */
	uint32		fwdOff;
	int			fwdLen;
	uint32		bwdOff;
	int			bwdLen;
	bool		moreLeft;
	bool		moreRight;
	int			firstItem;
	int			lastItem;
	int			itemIndex;
	ScanPosItem items[PBT_MAX_BATCH_ITEMS];
} ScanPos;

#define ScanPosIsValid(pos) ((pos).valid)

/*
 * Copies of the batch's items for index-only scans, and of its bounds.  It
 * grows as needed: layouts that factor out a prefix hold more item bytes
 * than a page.
 */
typedef struct TupleBuf
{
	char	   *data;
	int			size;
	int			used;
} TupleBuf;

static inline void
tuplebuf_reserve(TupleBuf *tb, int size)
{
	if (size > tb->size)
	{
		tb->size = Max(size, 2 * tb->size);
		tb->data = repalloc(tb->data, tb->size);
	}
}

static inline void
tuplebuf_copy(TupleBuf *dst, const TupleBuf *src)
{
	tuplebuf_reserve(dst, src->used);
	memcpy(dst->data, src->data, src->used);
	dst->used = src->used;
}

typedef struct PbtScanOpaqueData
{
	PbtState   *st;
	MemoryContext tupcxt;		/* per returned index tuple */
	char	   *itup_buf;		/* the returned index tuple, reused */
	Size		itup_cap;
	uint32		itup_tupoff;	/* the currTuples bytes xs_itup was formed
								 * from (this batch), or PBT_NO_TUPOFF */
	int			itup_keylen;	/* their key's length (no INCLUDE) */
	/*
	 * Normalized keys of fixed-width columns only: the size of their index
	 * tuple without nulls (else 0), and each column's offset in it;
	 * itup_buf holds such a tuple's header and padding (itup_fixed).
	 */
	uint16		itup_fixed_size;
	uint16		itup_fixed_off[INDEX_MAX_KEYS];
	bool		itup_fixed;
	bool		itup_varying;	/* else laid out per row: see
								 * pbt_item_tuple_data */
	bool		itup_varwidth;	/* ... with varlenas (INDEX_VAR_MASK) */
	MemoryContext keycxt;		/* per rescan: array keys */
	bool		qual_ok;
	bool		empty_array;	/* qual_ok is false for an empty = ANY */
	int			nkeys;
	ScanKeyInfo *keys;

	/*
	 * A row comparison such as (a, b) > (x, y), an index clause only on 18
	 * (pbt_rowcompare.c), is kept out of keys: it bounds the range on the
	 * row_ncols columns from row_col on that it can bound, as a
	 * row_strategy (index order) inequality (pbt_build_boundary), and is
	 * checked whole on each item (pbt_check_item_keys).  row_nmembers = 0:
	 * none.
	 */
	int			row_nmembers;
	ScanKey		row_members;
	int			row_col;
	int			row_ncols;
	StrategyNumber row_strategy;
	StringInfoData row_enc;		/* normalized keys: the members encoded, */
	int			row_encoff[INDEX_MAX_KEYS];	/* member j's at row_encoff[j] */
	int			row_enclen[INDEX_MAX_KEYS];	/* (-1: no exact encoding) */
	int			narrays;
	ArrayKeyInfo *arrays;
	/* where a forward scan ends (upper) and a backward scan ends (lower) */
	PbtSearchKey upperkey;
	PbtSearchKey lowerkey;
	bool		has_upper;
	bool		has_lower;
	StringInfoData upperbuf;
	StringInfoData lowerbuf;
	/* alloc_scan_opaque zeroes all but the item arrays: keep this order */
	ScanPos		curr;
	ScanPos		mark;
	int			markItemIndex;
	int			nkilled;		/* items of curr whose heap tuples are dead */
	int			killed[PBT_MAX_BATCH_ITEMS];
	/* item bytes for index-only scans, and the batch's bounds */
	TupleBuf	currTuples;
	TupleBuf	markTuples;
	int			batch;			/* positions the next batch reads; 0 = all */
	bool		bitmap;			/* amgetbitmap: pages read in any order */
	bool		probing;		/* a forward point lookup, read by the
								 * layout's probe or by read_page_point */
	bool		batch_within_end;	/* the end key holds for the whole batch */
	bool		keys_hold;		/* every key holds for the range's items
								 * whose first column is not NULL */
	bool		keys_batchable; /* see batch_keys_hold (pbt_readpage.c) */
	bool		inline_keys;	/* every key is covered or inline_check */
	bool		has_entry_filter;	/* entry_filter holds a key that no
									 * entry the layout passes over can
									 * pass (pbt_plan_entry_filter) */
	PbtEntryFilter entry_filter;
	bool		batch_keys_hold;	/* every key holds for the whole batch,
									 * if it is within the end key */
	StringInfoData resumebuf;	/* where the batch stopped, as a key */
	PbtEpochStep resumed;		/* the last resume after a rebalance */

	/*
	 * The leaves stepped to in direction walk_dir since the scan last
	 * descended, turned or was restored to a mark.  Without damage they are
	 * distinct pages, so no more than the index has: our snapshot's xmin
	 * keeps VACUUM from recycling a deleted leaf for reuse further along
	 * while we scan (pbt_walk_step).
	 */
	PbtLinkWalk walk;
	ScanDirection walk_dir;

	/*
	 * A skip scan (plan_skip in pbt_scankey.c): keys on a later column but
	 * no "=" on the first.  keys[nkeys - 1] is then an "=" on the first
	 * skip_cols columns whose value is the current one, which the scan
	 * finds in the index; while it looks for the next (skip_known false)
	 * only those columns' keys count.  copy_items: save_item keeps the
	 * items' bytes (index-only scans, and the reads that find the next
	 * value).
	 */
	bool		skip;
	int			skip_cols;		/* the leading columns it skips */
	/* comparator mode: the skip key's value (pbt_skip_value_known) */
	Datum		skip_datums[INDEX_MAX_KEYS];
	bool		skip_nulls[INDEX_MAX_KEYS];
	bool		skip_known;
	bool		copy_items;
	ScanKeyData skip_sk;
	StringInfoData skip_mark;	/* the value at the mark, if known */
	bool		skip_mark_known;
	PbtRangeSteps skip_steps;	/* the trial of giving up */
	bool		skip_off;		/* given up for this scan: reads every entry */
	bool		skip_resume;	/* ... from resume_key, on the next scan_first */
	PbtSearchKey resume_key;

	/*
	 * The rest of a one-key leaf that a forward batch read but left to
	 * decode until the scan reaches it (pbt_decode_more)
	 */
	struct DeferredLeaf *defer; /* allocated at first use */
	int			defer_left;		/* entries still to decode; 0: none */
	/* the run of the page being read (pbt_delta.h), merged into its batch */
	PbtRun		run;
	ScanDirection run_dir;
	PbtSearchKey *run_from;		/* the key the read started at, or NULL */
	bool		run_behind;		/* run entries lay behind run_from */
	Buffer		sidebuf;		/* pin on the last side page read */
	/* prefetching the next leaves of a long forward scan (pbt_prefetch.c) */
	int			pf_distance;	/* 0: off; -1: not looked up yet */
	int			pf_steps;		/* pages stepped to so far */
	StringInfoData pf_key;		/* where the page read last leads on */
	PbtLeafSource pf_source;
	PbtPrefetch pf;
	uint64		pf_loaded;		/* leaves it loaded into shared buffers */
	/*
	 * ... or through pbt_readahead_read instead (read_leaf_ahead): a bitmap
	 * scan's leaves within one amgetbitmap call, and from 17 on those of a
	 * scan that keeps its leaf pinned anyway (scan_keeps_pin)
	 */
	bool		ra_on;
	PbtReadAhead *ra;			/* allocated at first use */
	/* ... and of the next elements of an = ANY array, once it reads I/O */
	bool		pf_array_on;
	int64		pf_array_reads; /* blocks read before the array started */
	PbtArraySource pf_array_source;
	PbtPrefetch pf_array;
	/*
	 * The one = ANY array read in one pass (pbt_scan.c, start_array_pass):
	 * its elements from pass_from to its last in direction pass_dir make
	 * one range, through which the array's cur follows the items read
	 * (array_pass_has in pbt_scankey.c).  pass_key is its key, or NULL.
	 */
	PbtRangeSteps elem_steps;	/* the trial of starting one */
	ScanKeyInfo *pass_key;
	ScanDirection pass_dir;
	int			pass_from;
	int			pass_credit;	/* items it may still read that match no
								 * element (array_pass_has) */
	ScanDirection pass_gave_up; /* ... none left, reading that way: per
								 * element again from cur, after a trial
								 * twice as long (else NoMovement...) */
	int			pass_trial;		/* ranges the trial takes */
	bool		pass_unordered;	/* checking items out of order: run entries,
								 * a bitmap scan's unsorted leaf */
	ScanKeyInfo *mark_pass_key; /* the pass at the mark */
	ScanDirection mark_pass_dir;
	int			mark_pass_from;
	/* a parallel scan (scan->parallel_scan) that shares its leaves */
	bool		par;
	bool		par_seized;		/* we hold it ADVANCING (pbt_parallel_seize) */
	bool		par_release_due;	/* ... until done_with_page publishes */
} PbtScanOpaqueData;

#define SCAN_FIRST_BATCH 32
#define PBT_DEFER_CHUNK 128		/* entries pbt_decode_more decodes at once */

/* a copy of a leaf as a batch read it, and an iterator over the copy */
typedef struct DeferredLeaf
{
	PbtIter		it;
	PGAlignedBlock page;
} DeferredLeaf;

/*
 * A parallel scan's shared state, in the DSM (pbt_scan.c): which leaf the
 * participants read next.  One participant at a time "seizes" the scan
 * (ADVANCING), reads the next leaf, publishes where the scan goes on and
 * releases it (IDLE) before it returns that leaf's tuples.
 */
typedef enum PbtParallelStatus
{
	PBT_PAR_NOT_STARTED,		/* nobody has positioned the scan yet */
	PBT_PAR_ADVANCING,			/* a participant is reading the next leaf */
	PBT_PAR_IDLE,				/* blkno (and prev) say where to go on */
	PBT_PAR_DONE				/* no leaf left to read */
} PbtParallelStatus;

typedef struct PbtParallelScanData
{
	slock_t		mutex;			/* protects status, blkno and prev */
	PbtParallelStatus status;
	/*
	 * Forward: the leaf to read next (the right-link of the leaf read
	 * last).  Backward: the leaf read last, and its left-link when read;
	 * the next participant walks left from it (walk_left), since the page
	 * to its left may have split or gone meanwhile.
	 */
	BlockNumber blkno;
	BlockNumber prev;
	ConditionVariable cv;		/* waits for the end of ADVANCING */
	/*
	 * When the leaf read last is a subnode of a leaf group: its group (as
	 * in ScanPos) and its resume key in the scan's direction, with which
	 * the next participant reads on if a rebalance moved the group's
	 * entries meanwhile (group_moved in pbt_readpage.c).  Written and read
	 * only by the participant holding the scan (ADVANCING), so outside the
	 * spinlock, which orders them with the status.
	 */
	BlockNumber gstart;			/* InvalidBlockNumber: not a subnode */
	int			gsize;
	uint64		epoch;
	int			resume_len;		/* 0: none (the end of the index) */
	char		resume[FLEXIBLE_ARRAY_MEMBER];	/* PBT_MAX_ITEM_SIZE bytes */
} PbtParallelScanData;

typedef PbtParallelScanData *PbtParallelScan;


typedef PbtScanOpaqueData *PbtScanOpaque;

/*
 * The scan's prefetch distance (0: off), looked up when a read first steps
 * beyond its first leaf: point lookups and short scans never pay for the
 * tablespace lookup.  Called with no buffer locked (the lookup may read
 * the catalog).
 */
static inline int
pbt_scan_pf_distance(IndexScanDesc scan)
{
	PbtScanOpaque so = (PbtScanOpaque) scan->opaque;

	if (so->pf_distance < 0)
		so->pf_distance = pbt_prefetch_distance(scan->indexRelation, false);
	return so->pf_distance;
}

/* pbt_scankey.c */
extern void pbt_preprocess_keys(IndexScanDesc scan);
extern void pbt_encode_key(PbtScanOpaque so, ScanKeyInfo *k);
extern void pbt_start_arrays(PbtScanOpaque so, ScanDirection dir);
extern BlockNumber pbt_array_source_next(void *arg);
extern bool pbt_advance_arrays(PbtScanOpaque so, ScanDirection dir);
extern bool pbt_point_lookup(PbtScanOpaque so);
extern bool pbt_array_pass_ok(PbtScanOpaque so);
extern void pbt_set_array_element(PbtScanOpaque so, ArrayKeyInfo *ak,
								  int elem);
extern void pbt_start_array_pass(PbtScanOpaque so, ScanDirection dir);
extern void pbt_skip_value_known(PbtScanOpaque so, bool known);
extern void pbt_set_skip_value(PbtScanOpaque so, const char *item, int len);
extern void pbt_skip_value_columns(PbtScanOpaque so, PbtSearchKey *key);
extern bool pbt_build_boundary(PbtScanOpaque so, bool lower, PbtSearchKey *key,
							   StringInfo buf, bool *strict,
							   ScanKeyInfo **bound);
extern bool pbt_check_item_keys(PbtScanOpaque so, const char *item, int len,
								ScanDirection dir, bool *continuescan);
extern void pbt_plan_entry_filter(PbtScanOpaque so);

/* pbt_scan.c: parallel scans */
extern PbtParallelStatus pbt_parallel_seize(IndexScanDesc scan,
											BlockNumber *blkno,
											BlockNumber *prev);
extern void pbt_parallel_release(IndexScanDesc scan, BlockNumber blkno,
								 BlockNumber prev, bool more,
								 const char *resume, int resume_len);
extern void pbt_parallel_done(IndexScanDesc scan);

/* pbt_readpage.c */
extern bool pbt_read_page(IndexScanDesc scan, Buffer buf, int pos,
						  ScanDirection dir, const PbtSearchKey *from);
extern bool pbt_read_from_key(IndexScanDesc scan, PbtSearchKey *key,
							  ScanDirection dir);
extern bool pbt_read_on(IndexScanDesc scan, ScanDirection dir);
extern bool pbt_decode_more(IndexScanDesc scan);
extern bool pbt_read_shared(IndexScanDesc scan, ScanDirection dir,
							BlockNumber blkno, BlockNumber prev);
extern void pbt_kill_items_now(IndexScanDesc scan);
extern void pbt_readahead_stop(IndexScanDesc scan);

/* pbt_kill_items_now, without a call when there is nothing to hint */
static inline void
kill_items(IndexScanDesc scan)
{
	if (((PbtScanOpaque) scan->opaque)->nkilled > 0)
		pbt_kill_items_now(scan);
}

static inline void
release_pos(ScanPos *pos)
{
	if (BufferIsValid(pos->buf))
		ReleaseBuffer(pos->buf);
	pos->buf = InvalidBuffer;
	pos->valid = false;
}

/*
 * The scan keys on an item whose range bounds need no check, where every key
 * not covered has inline_check (so->inline_keys): 1 passes, 0 fails, -1 a
 * NULL that pbt_check_item_keys must judge.  Every column's encoding is
 * prefix-free, so the item's and the key's bytes differ within the shorter
 * of the two encodings unless they are equal: comparing the key's length,
 * or what the item has left, decides without finding where the column ends.
 */
static inline int
check_keys_inline(PbtScanOpaque so, const char *item, int len, bool forward,
				  bool *continuescan)
{
	for (int i = 0; i < so->nkeys; i++)
	{
		ScanKeyInfo *k = &so->keys[i];
		int			start = 0;
		int			c;

		if (k->covered)
			continue;
		if (!k->encodable)
			return -1;
		/*
		 * pbt_encoded_column_length for fixed widths, without its test for
		 * strings: calling it made this loop 11% slower
		 */
		for (int col = 0; col < k->col; col++)
			start += (unsigned char) item[start] == PBT_MARK_VALUE ?
				so->st->cols[col].width : 1;
		if ((unsigned char) item[start] != PBT_MARK_VALUE)
			return -1;
		if (k->nonnull_only)
			continue;
		Assert(k->inline_check);
		/* past the markers, which are equal */
		c = pbt_key_memcmp(item + start + 1, k->enc.data + 1,
						   Min(k->enc.len, len - start) - 1);
		if (!((k->pass_mask >> (c + 1)) & 1))
		{
			if (forward ? k->required_fwd : k->required_bwd)
				*continuescan = false;
			return 0;
		}
	}
	return 1;
}

/* pbt_check_item_keys, without a call in the common cases */
static inline bool
check_item(PbtScanOpaque so, const char *item, int len, ScanDirection dir,
		   bool *continuescan)
{
	*continuescan = true;
	if (so->batch_within_end &&
		(so->batch_keys_hold ||
		 (so->keys_hold && (unsigned char) item[0] == PBT_MARK_VALUE)))
		return true;
	if (so->inline_keys &&
		(so->batch_within_end ||
		 !(ScanDirectionIsForward(dir) ? so->has_upper : so->has_lower)))
	{
		int			pass = check_keys_inline(so, item, len,
											 ScanDirectionIsForward(dir),
											 continuescan);

		if (pass >= 0)
			return pass;
	}
	return pbt_check_item_keys(so, item, len, dir, continuescan);
}

#endif							/* PBT_SCAN_H */
