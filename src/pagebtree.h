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
#include "access/sdir.h"
#include "access/transam.h"
#include "access/skey.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "nodes/pathnodes.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/relfilenode.h"
#include "utils/relcache.h"

/* ----------------------------------------------------------------
 * Pages
 * ----------------------------------------------------------------
 */
#define PBT_MAGIC			0x50425431	/* "PBT1" */
#define PBT_VERSION			3
#define PBT_PAGE_ID			0xFF91
#define PBT_METAPAGE_BLKNO	0

/* page flags */
#define PBT_LEAF			(1 << 0)
#define PBT_ROOT			(1 << 1)
#define PBT_META			(1 << 2)
#define PBT_INCOMPLETE_SPLIT (1 << 3)	/* right sibling has no downlink yet */
#define PBT_ALIGNED_ITEMS	(1 << 4)	/* items start MAXALIGNed (comparator
										 * mode: they are IndexTuples) */
#define PBT_DELETED			(1 << 5)	/* unlinked by VACUUM; recyclable
										 * once safexid is old enough */
#define PBT_HAS_DEAD		(1 << 6)	/* an entry may be hinted dead: a
										 * hint, set under a share lock and
										 * not WAL-logged */

/* layout tags; every page records the layout that owns its item bytes */
#define PBT_LAYOUT_PLAIN	1		/* sorted slots -> whole items */
#define PBT_LAYOUT_HEADS	2		/* prefix truncation + 4-byte heads
										 * (normalized keys) */
#define PBT_LAYOUT_DENSE	3		/* TIDs in an array indexed by the key's
										 * integer tail (normalized-key leaves
										 * without INCLUDE columns) */
#define PBT_LAYOUT_HEADS_NOHINTS 4	/* heads leaves without the hint array
										 * (ablation only) */
#define PBT_LAYOUT_SEMIDENSE 5		/* 16-bit slots indexed by the key's
										 * integer tail, pointing to TID and
										 * payload (normalized-key leaves with
										 * INCLUDE columns) */
#define PBT_LAYOUT_BPA		6		/* insert log + unsorted blocks between
										 * sorted fences (normalized-key
										 * leaves) */
#define PBT_LAYOUT_FINGERPRINT 7	/* 1-byte key hashes over sorted and
										 * unsorted slots (normalized-key leaves
										 * without INCLUDE columns) */

typedef struct PbtPageOpaqueData
{
	BlockNumber prev;			/* left sibling, or InvalidBlockNumber */
	BlockNumber next;			/* right sibling, or InvalidBlockNumber */
	FullTransactionId safexid;	/* deleted pages: next xid at deletion */
	uint16		level;			/* 0 = leaf */
	uint16		flags;
	uint16		hikey_off;		/* high key bytes, if hikey_len > 0 (exactly
								 * when next is valid) */
	uint16		hikey_len;
	uint8		layout;			/* PBT_LAYOUT_* */
	uint8		layout_param;	/* the layout's own setting (BPA: its
								 * geometry), 0 = default */
	uint16		page_id;		/* PBT_PAGE_ID, for tools */
	uint8		op_counter;		/* leaves: operation-adaption counter
								 * (PBT_OPS_*), a hint like dead entries */
} PbtPageOpaqueData;

/*
 * The operation-adaption counter of an adaptive index's leaves whose keys
 * are string-like ("B-Trees Are Back", section 5): scans push it up, point
 * lookups down, by chance; a heads leaf that reaches 0 becomes a
 * fingerprint leaf, a fingerprint leaf that reaches PBT_OPS_MAX a heads
 * leaf.  Splits make halves under PBT_OPS_FP_BELOW fingerprint leaves.
 */
#define PBT_OPS_OFF			255		/* keys not string-like, or not adaptive */
#define PBT_OPS_MAX			3
#define PBT_OPS_START		2		/* a new string-like leaf: heads */
#define PBT_OPS_FP_BELOW	2

typedef PbtPageOpaqueData *PbtPageOpaque;

#define PbtPageGetOpaque(page) ((PbtPageOpaque) PageGetSpecialPointer(page))
#define PbtIsLeaf(o)		(((o)->flags & PBT_LEAF) != 0)
#define PbtIsRoot(o)		(((o)->flags & PBT_ROOT) != 0)
#define PbtIsRightmost(o)	((o)->next == InvalidBlockNumber)
#define PbtIsLeftmost(o)	((o)->prev == InvalidBlockNumber)
#define PbtIsDeleted(o)		(((o)->flags & PBT_DELETED) != 0)

/* the downlink to the page's right half is in the parent now */
static inline void
pbt_clear_incomplete_split(Page page)
{
	PbtPageGetOpaque(page)->flags &= ~PBT_INCOMPLETE_SPLIT;
}

/* metapage contents, stored at PageGetContents() of block 0 */
typedef struct PbtMetaPageData
{
	uint32		magic;
	uint32		version;
	BlockNumber root;
	uint32		level;			/* level of the root */
	uint32		key_mode;		/* PBT_KEYS_* */
} PbtMetaPageData;

#define PbtPageGetMeta(page) ((PbtMetaPageData *) PageGetContents(page))

/* heap TID at the end of a normalized key: block and offset, big-endian */
#define PBT_TID_BYTES		6

/* column marker byte of a normalized key that holds a value (not NULL) */
#define PBT_MARK_VALUE		0x01

#define PBT_KEYS_NORMALIZED	1
#define PBT_KEYS_COMPARATOR	2

/* one slot of the plain layout: where an item's bytes are on the page */
typedef struct PbtSlot
{
	uint16		off;
	uint16		len;			/* PBT_SLOT_DEAD: the dead-entry hint */
} PbtSlot;

#define PBT_SLOT_DEAD		0x8000
#define PBT_SLOT_LEN_MASK	0x7FFF

static inline int
pbt_slot_len(const PbtSlot *slot)
{
	return slot->len & PBT_SLOT_LEN_MASK;
}

/*
 * Byte-string order of normalized items (a proper prefix sorts first).
 * Most items differ in their first 8 bytes: those are compared as one
 * big-endian integer, without a call to memcmp.
 */
static inline int
pbt_bytes_cmp(const char *a, int alen, const char *b, int blen)
{
	int			common = Min(alen, blen);
	int			c;

	if (common >= (int) sizeof(uint64))
	{
		uint64		x;
		uint64		y;

		memcpy(&x, a, sizeof(uint64));
		memcpy(&y, b, sizeof(uint64));
		if (x != y)
			return pg_ntoh64(x) < pg_ntoh64(y) ? -1 : 1;
		c = memcmp(a + sizeof(uint64), b + sizeof(uint64),
				   common - sizeof(uint64));
	}
	else
		c = memcmp(a, b, common);
	return c != 0 ? c : alen - blen;
}

/* an item as seen through a layout: bytes on the page */
typedef struct PbtItem
{
	const char *data;
	int			len;
} PbtItem;

/*
 * Items never exceed a third of the usable page, so that any split can put
 * at least two items and a high key on each half (same bound as nbtree).
 */
#define PBT_USABLE_SPACE \
	(BLCKSZ - SizeOfPageHeaderData - MAXALIGN(sizeof(PbtPageOpaqueData)))
#define PBT_MAX_ITEM_SIZE \
	(MAXALIGN_DOWN(PBT_USABLE_SPACE / 3) - sizeof(PbtSlot) - 2 * MAXIMUM_ALIGNOF)
/* a hard bound for arrays indexed by slot: every item has at least a byte */
#define PBT_MAX_ITEMS_PER_PAGE (PBT_USABLE_SPACE / (sizeof(PbtSlot) + 1))

/* inner items are child block number + separator */
#define PBT_DOWNLINK_SIZE(st)	((st)->normalized ? sizeof(BlockNumber) : MAXALIGN(sizeof(BlockNumber)))

#define PBT_DEFAULT_FILLFACTOR	90
#define PBT_MIN_FILLFACTOR		10
#define PBT_INNER_FILLFACTOR	70

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

/* ----------------------------------------------------------------
 * Key state, derived from the catalog (cached in rd_amcache)
 * ----------------------------------------------------------------
 */
typedef enum PbtColKind
{
	PBT_COL_INT,				/* int2/int4/int8 family, as int64 */
	PBT_COL_INT32,				/* date */
	PBT_COL_INT64,				/* time, timestamp, timestamptz */
	PBT_COL_OID,				/* oid, unsigned 32 */
	PBT_COL_BOOL,
	PBT_COL_CHAR,				/* "char", unsigned 8 */
	PBT_COL_UUID,
	PBT_COL_TEXT,				/* text under C/POSIX collation */
	PBT_COL_BYTEA,
	PBT_COL_OTHER				/* comparator mode */
} PbtColKind;

typedef struct PbtColumn
{
	PbtColKind	kind;
	Oid			typid;			/* opclass input type */
	Oid			collation;
	bool		desc;
	bool		nulls_first;
	FmgrInfo	cmp;			/* support function 1, same type */
} PbtColumn;

typedef struct PbtState
{
	int			nkeyatts;
	int			natts;
	bool		normalized;
	bool		has_include;
	TupleDesc	tupdesc;		/* the index's descriptor */
	TupleDesc	keydesc;		/* key columns only (pivots) */
	TupleDesc	incdesc;		/* INCLUDE columns only (normalized payload) */
	int			fillfactor;
	uint8		leaf_layout;	/* PBT_LAYOUT_* of new leaf pages */
	uint8		inner_layout;	/* ... and of new inner pages */
	uint8		dense_leaves;	/* PBT_DENSE_*: may rebuilt leaves be dense? */
	uint8		semidense_leaves;	/* PBT_DENSE_*: ... or semi-dense? */
	uint8		bpa_param;		/* layout_param of BPA leaves */
	bool		adaptive;		/* heads leaves with string-like keys may
								 * become fingerprint leaves (layout = auto) */
	BlockNumber root;			/* cached, validated on use */
	uint32		rootlevel;
	BlockNumber rightmost_leaf; /* insert fast path hint */
	StringInfoData insert_item; /* pbtinsert's item (no palloc per insert) */
	PbtColumn	cols[INDEX_MAX_KEYS];
} PbtState;

/* PbtState.dense_leaves and semidense_leaves */
#define PBT_DENSE_NEVER		0
#define PBT_DENSE_SMALLER	1		/* where eligible and smaller than heads */
#define PBT_DENSE_ELIGIBLE	2		/* wherever eligible */

/*
 * A position in key order to search for.  With nextkey, the key stands for
 * "just after every string it is a prefix of" (plus infinity).
 */
typedef struct PbtSearchKey
{
	bool		nextkey;
	/* normalized mode */
	char	   *bytes;
	int			len;
	/* comparator mode */
	int			nattrs;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	FmgrInfo   *procs[INDEX_MAX_KEYS];
	bool		has_tid;
	ItemPointerData tid;
} PbtSearchKey;

/* reloptions */
typedef struct PbtOptions
{
	int32		vl_len_;
	int			fillfactor;
	int			layout;			/* PbtLayoutOption */
	int			bpa_log_size;	/* BPA leaves: insert log slots */
	int			bpa_block_size; /* BPA leaves: slots per block */
} PbtOptions;

typedef enum PbtLayoutOption
{
	PBT_LAYOUT_OPTION_DEFAULT,	/* heads where keys are normalized, dense
								 * or semidense where that is smaller */
	PBT_LAYOUT_OPTION_PLAIN,
	PBT_LAYOUT_OPTION_HEADS,
	PBT_LAYOUT_OPTION_DENSE,
	PBT_LAYOUT_OPTION_HEADS_NOHINTS,
	PBT_LAYOUT_OPTION_SEMIDENSE,
	PBT_LAYOUT_OPTION_BPA,
	PBT_LAYOUT_OPTION_FINGERPRINT
} PbtLayoutOption;

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
extern PbtState *pbt_get_state(Relation index);
extern const char *pbt_layout_option_name(int option);
extern const char *pbt_layout_option_conflict(PbtState *st, int option);
extern PbtState *pbt_build_state(Relation index, MemoryContext cxt);
extern void _PG_init(void);

/* pbt_keys.c */
extern Size pbt_form_leaf_item(PbtState *st, Datum *values, bool *isnull,
							   ItemPointer tid, StringInfo buf);
extern void pbt_item_get_tid_slow(PbtState *st, const char *item, int len,
								  ItemPointer tid);

/*
 * The heap TID of a leaf item.  In the common case, a normalized item
 * without INCLUDE columns, it is the item's last PBT_TID_BYTES, big-endian:
 * inline, since scans call this for every row.
 */
static inline void
pbt_item_get_tid(PbtState *st, const char *item, int len, ItemPointer tid)
{
	if (st->normalized && !st->has_include)
	{
		const unsigned char *p = (const unsigned char *) item + len - PBT_TID_BYTES;

		/* the big-endian block number is bi_hi then bi_lo */
		tid->ip_blkid.bi_hi = (uint16) (p[0] << 8 | p[1]);
		tid->ip_blkid.bi_lo = (uint16) (p[2] << 8 | p[3]);
		tid->ip_posid = (OffsetNumber) (p[4] << 8 | p[5]);
	}
	else
		pbt_item_get_tid_slow(st, item, len, tid);
}
extern void pbt_separator(PbtState *st, PbtItem *lastleft, PbtItem *firstright,
						  StringInfo buf);
extern int	pbt_compare(PbtState *st, PbtSearchKey *key, const char *item, int len);
extern void pbt_key_from_item(PbtState *st, const char *item, int len,
							  PbtSearchKey *key);
extern bool pbt_encode_column(PbtState *st, int col, Datum value, bool isnull,
							  Oid valtype, StringInfo buf);
extern int	pbt_column_span(PbtState *st, const char *item, int len, int col,
							int *start);
extern bool pbt_item_has_null_key(PbtState *st, const char *item, int len);
extern bool pbt_items_keys_equal(PbtState *st, const char *a, int alen,
								 const char *b, int blen);
extern Datum pbt_item_column(PbtState *st, const char *item, int len, int col,
							 bool *isnull);
extern void pbt_decode_item(PbtState *st, const char *item, int len,
							Datum *values, bool *isnull);
extern bool pbt_type_normalizable(Oid typid, Oid cmpproc, Oid collation,
								  PbtColKind *kind);
extern int	pbt_cmp_encoded(PbtState *st, int col, const char *a, int alen,
							const char *b, int blen);

/* length of the longest common prefix of two byte strings, 8 bytes a step */
static inline int
pbt_common_prefix(const char *a, int alen, const char *b, int blen)
{
	int			n = Min(alen, blen);
	int			i = 0;

	for (; i + (int) sizeof(uint64) <= n; i += sizeof(uint64))
	{
		uint64		x;
		uint64		y;

		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		if (x != y)
#ifdef WORDS_BIGENDIAN
			return i + (63 - pg_leftmost_one_pos64(x ^ y)) / 8;
#else
			return i + pg_rightmost_one_pos64(x ^ y) / 8;
#endif
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* inner items */
static inline BlockNumber
pbt_item_child(const char *item)
{
	BlockNumber blk;

	memcpy(&blk, item, sizeof(BlockNumber));
	return blk;
}

/*
 * Room for n more bytes at the end of buf, counted in its length (the
 * caller writes them).  Inline, unlike appendBinaryStringInfo: every scan
 * and insert encodes its key, mostly a few bytes.
 */
static inline char *
pbt_reserve_bytes(StringInfo buf, int n)
{
	char	   *p;

	if (buf->len + n >= buf->maxlen)
		enlargeStringInfo(buf, n);
	p = buf->data + buf->len;
	buf->len += n;
	buf->data[buf->len] = '\0';
	return p;
}

/* pbt_page.c */
extern Buffer pbt_new_page(Relation index);
extern bool pbt_page_has_room(Page page, int need);
extern void pbt_page_init(Page page, uint16 level, uint16 flags, uint8 layout,
						  struct PbtState *st);
extern void pbt_page_set_layout(Page page, uint8 layout, struct PbtState *st);
extern void pbt_probe_sort(const char **tids, bool *dead, int n);
extern void pbt_meta_init(Page page, uint32 key_mode);
extern bool pbt_page_get_hikey(Page page, PbtItem *hikey);
extern bool pbt_page_set_hikey(Page page, const char *data, int len);
extern int	pbt_page_hikey_bytes(Page page);
extern int	pbt_page_alloc(Page page, int len);
extern void pbt_page_rebuild(Page page, PbtItem *items, int nitems,
							 PbtItem *hikey);
extern void pbt_check_page(Relation index, Page page, BlockNumber blkno);
extern bool pbt_page_insert(Page page, int pos, const char *data, int len);
extern uint8 pbt_choose_leaf_layout(PbtState *st, PbtItem *items, int n,
									PbtItem *hikey);
extern bool pbt_leaf_fits(uint8 tag, PbtItem *items, int n, PbtItem *hikey);
extern PbtItem *pbt_page_copy_items(Page page, int n);
extern void pbt_free_items(PbtItem *items, int n);

/* pbt_adapt.c */
extern bool pbt_adapt_leaf(PbtState *st, Page page, uint8 counter,
						   PbtItem *items, int n, PbtItem *hikey);
extern uint8 pbt_adapt_on_read(Buffer buf, bool point);
extern void pbt_adapt_convert(Relation index, PbtState *st, BlockNumber blkno,
							  uint8 tag);

/* pbt_bufcache.c */
extern Buffer pbt_read_hot(Relation index, BlockNumber blkno);
extern Buffer pbt_read_leaf(Relation index, BlockNumber blkno);

/* pbt_search.c */
extern Buffer pbt_get_root(Relation index, PbtState *st, int access);
extern PbtStack pbt_search(Relation index, PbtState *st, PbtSearchKey *key,
						   Buffer *bufp, int access, int target_level);
extern int	pbt_binsearch(PbtState *st, Page page, PbtSearchKey *key);
extern int	pbt_page_first_key(Page page);
extern BlockNumber pbt_page_child(Page page, int pos);
extern void pbt_page_set_child(Page page, int pos, BlockNumber child);
extern Buffer pbt_get_endpoint(Relation index, PbtState *st, uint32 level,
							   bool rightmost);
extern void pbt_free_stack(PbtStack stack);
extern void pbt_page_error(Relation index, BlockNumber blkno, const char *what);

/* pbt_insert.c */
extern bool pbtinsert(Relation index, Datum *values, bool *isnull,
					  ItemPointer ht_ctid, Relation heapRel,
					  IndexUniqueCheck checkUnique, bool indexUnchanged,
					  struct IndexInfo *indexInfo);
extern void pbt_finish_split(Relation index, PbtState *st, Buffer lbuf,
							 PbtStack stack);
extern void pbt_check_item_size(Relation index, Size len);

/* pbt_scan.c */
extern IndexScanDesc pbtbeginscan(Relation index, int nkeys, int norderbys);
extern void pbtrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					  ScanKey orderbys, int norderbys);
extern bool pbtgettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 pbtgetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void pbtendscan(IndexScanDesc scan);
extern void pbtmarkpos(IndexScanDesc scan);
extern void pbtrestrpos(IndexScanDesc scan);

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

/* pbt_wal.c */
#define PBT_RMGR_ID			140
#define XLOG_PBT_INSERT		0x00
#define XLOG_PBT_DELETE		0x10
#define XLOG_PBT_REUSE_PAGE	0x20
#define XLOG_PBT_SPLIT		0x30

/*
 * An item added at pos to the page of block 0; block data: the item.  A
 * downlink's record also has block 1, the left child whose split it
 * completes: redo clears its PBT_INCOMPLETE_SPLIT flag.
 */
typedef struct xl_pbt_insert
{
	uint16		pos;			/* ordered position of the new item */
} xl_pbt_insert;

/*
 * A page split.  Block 0 is the left (original) page, block 1 the new right
 * page, logged whole; block 2, if present, the old right sibling, whose
 * left-link redo points at block 1; block 3, if present, the left child
 * whose split this one's downlink completes.  If the left page kept its
 * first keep items in place, block 0's data is its new high key and redo
 * truncates it; else (keep < 0) the rebuilt left page is logged whole.
 */
typedef struct xl_pbt_split
{
	int16		keep;
} xl_pbt_split;

/* a deleted page is about to be reused */
typedef struct xl_pbt_reuse_page
{
	RelFileNode node;
	BlockNumber block;
	FullTransactionId safexid;
} xl_pbt_reuse_page;

/* removal of entries known dead; block data: uint16 positions, ascending */
typedef struct xl_pbt_delete
{
	TransactionId snapshotConflictHorizon;
	uint16		ndeleted;
} xl_pbt_delete;

/* logged size, without the trailing padding (it would be uninitialized) */
#define SizeOfPbtDelete (offsetof(xl_pbt_delete, ndeleted) + sizeof(uint16))

extern void pbt_register_rmgr(void);
extern void pbt_log_insert(Relation index, Buffer buf, int pos,
						   const char *data, int len, Buffer cbuf);
extern void pbt_log_delete(Relation index, Buffer buf, const int *positions,
						   int n, TransactionId snapshotConflictHorizon);
extern void pbt_log_split(Relation index, Buffer lbuf, Page lpage, int keep,
						  const char *hikey, int hikeylen, Buffer rbuf,
						  Page rpage, Buffer sbuf, Buffer cbuf);
extern bool pbt_log_reuse_page(Relation index, BlockNumber blkno,
							   FullTransactionId safexid);

/* invariant checks after every page modification in PBT_CHECKS builds */
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
