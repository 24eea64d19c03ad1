/*-------------------------------------------------------------------------
 *
 * pbt_page.h
 *	  pagebtree page format: page and metapage headers, slots, items, limits.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_PAGE_H
#define PBT_PAGE_H

#include "postgres.h"

#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "access/transam.h"
#include "storage/block.h"
#include "storage/bufpage.h"

/* ----------------------------------------------------------------
 * Pages
 * ----------------------------------------------------------------
 */
#define PBT_MAGIC			0x50425431	/* "PBT1" */
#define PBT_VERSION			3
#define PBT_GROUP_VERSION	6		/* an index with leaf groups, which
									 * earlier versions must not write (4
									 * and 5: hints of whole bytes, hints
									 * without a base; read no more) */
#define PBT_SHORT_PAYLOAD_VERSION 7 /* PBT_VERSION with INCLUDE payloads
									 * stored without their tuple header's
									 * TID and padding (pbt_keys.c) */
#define PBT_GROUP_SHORT_PAYLOAD_VERSION 8	/* both */
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
#define PBT_SIDE			(1 << 7)	/* a side page of the delta area
										 * (pbt_delta.h) */
#define PBT_GROUP			(1 << 8)	/* a leaf that is a subnode of a leaf
										 * group (pbt_group.c) */
#define PBT_HOLE			(1 << 9)	/* with PBT_GROUP: a subnode not in use
										 * yet, empty and unlinked */
#define PBT_FRONT_CODED	(1 << 10)	/* with PBT_SIDE: run entries share
										 * leading bytes with their run's
										 * first entry (pbt_delta.h) */
#define PBT_KEY_START		(1 << 11)	/* with PBT_GROUP: the low fence ends
										 * within the first entry's key
										 * columns, so no entry to the left
										 * has its key (land_in_group) */
#define PBT_UNLOGGED_HINTS	(1 << 12)	/* leaves: a hint changed (dead
										 * entries, HAS_DEAD, the adaption
										 * counter) that WAL may not carry
										 * (pbt_generic_needs_image) */
/* what makes a page a subnode, cleared when its group is deleted */
#define PBT_SUBNODE_FLAGS	(PBT_GROUP | PBT_HOLE | PBT_KEY_START)

/*
 * Layout tags; every page records the layout that owns its item bytes.  A
 * tag keeps its meaning for good (see pbt_registry.c, which maps tags to
 * layouts).
 */
#define PBT_LAYOUT_PLAIN	1		/* sorted slots -> whole items */
#define PBT_LAYOUT_HEADS	2		/* prefix truncation + 4-byte heads
										 * (normalized keys) */
#define PBT_LAYOUT_DENSE	3		/* TIDs in an array indexed by the key's
										 * integer tail (normalized-key leaves
										 * without INCLUDE columns) */
#define PBT_LAYOUT_HEADS_NOHINTS 4	/* retired: heads leaves without the
										 * hint array, written by earlier
										 * versions (an ablation); read only */
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
#define PBT_LAYOUT_POSTING	8		/* one key, its heap TIDs in a sorted
										 * array (normalized-key leaves
										 * without INCLUDE columns) */
#define PBT_LAYOUT_LISTS	9		/* several keys, each once with its heap
										 * TIDs (normalized-key leaves without
										 * INCLUDE columns) */
#define PBT_META_LAYOUT		PBT_LAYOUT_PLAIN	/* the metapage's tag: it has
												 * no items */

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
	uint8		group_pos;		/* PBT_GROUP: the subnode's place in its
								 * group, which starts group_pos blocks
								 * before it */
	uint8		group_size;		/* PBT_GROUP: subnodes in the group */
	uint8		downlink_extra; /* inner pages of normalized indexes: bytes
								 * after each item's child block number and
								 * before its key (a group's hints) */
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

/*
 * Every page of the index has the same special space (pbt_page_init), so
 * its place is fixed rather than read from pd_special: a zero page (a
 * side page not used yet, a block extended but not initialized) then
 * reads as an opaque of zeros, flags 0, as the engine expects of it, and a
 * damaged pd_special cannot move it (PageGetSpecialPointer asserts that a
 * page has one).
 */
#define PBT_SPECIAL_OFFSET	(BLCKSZ - MAXALIGN(sizeof(PbtPageOpaqueData)))
#define PbtPageGetOpaque(page) \
	((PbtPageOpaque) ((char *) (page) + PBT_SPECIAL_OFFSET))
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
	uint32		delta_group;	/* leaves per side page of the delta area, 0
								 * = none (pbt_delta.h); fixed at build */
	uint32		group_size;		/* subnodes per leaf group, 0 = no groups;
								 * version PBT_GROUP_VERSION only */
	uint32		group_hint_bits;	/* bits per subnode of the hints in a
									 * group's downlink, 0 = none; likewise */
	uint32		vacuum_scan;	/* nonzero while VACUUM reads the index in
								 * block order: no page reuse (pbt_new_page) */
	uint32		vacuum_generic; /* nonzero if the last VACUUM (or the build)
								 * ran without the resource manager: its
								 * removals replay without a cleanup lock
								 * (pbtcanreturn) */
} PbtMetaPageData;

#define PbtPageGetMeta(page) ((PbtMetaPageData *) PageGetContents(page))

/*
 * The format versions this library reads, and what each one has.  A build
 * writes the lowest version that has what the index uses, so that earlier
 * libraries keep reading what they can.
 */
static inline bool
pbt_version_has_groups(uint32 version)
{
	return version == PBT_GROUP_VERSION ||
		version == PBT_GROUP_SHORT_PAYLOAD_VERSION;
}

static inline bool
pbt_version_has_short_payloads(uint32 version)
{
	return version == PBT_SHORT_PAYLOAD_VERSION ||
		version == PBT_GROUP_SHORT_PAYLOAD_VERSION;
}

static inline bool
pbt_version_known(uint32 version)
{
	return version == PBT_VERSION || pbt_version_has_groups(version) ||
		pbt_version_has_short_payloads(version);
}

static inline uint32
pbt_version_for(bool groups, bool short_payloads)
{
	if (short_payloads)
		return groups ? PBT_GROUP_SHORT_PAYLOAD_VERSION : PBT_SHORT_PAYLOAD_VERSION;
	return groups ? PBT_GROUP_VERSION : PBT_VERSION;
}

/* heap TID at the end of a normalized key: block and offset, big-endian */
#define PBT_TID_BYTES		6

/*
 * Are two normalized items without INCLUDE columns (key || heap TID) of
 * one key?
 */
static inline bool
pbt_items_same_key(const char *a, int alen, const char *b, int blen)
{
	return alen == blen && alen > PBT_TID_BYTES &&
		memcmp(a, b, alen - PBT_TID_BYTES) == 0;
}

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
 * big-endian integer, without a call to memcmp; up to 16 common bytes, the
 * rest as the word that ends them (it overlaps the first, equal bytes).
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
		if (common <= 2 * (int) sizeof(uint64))
		{
			memcpy(&x, a + common - sizeof(uint64), sizeof(uint64));
			memcpy(&y, b + common - sizeof(uint64), sizeof(uint64));
			if (x != y)
				return pg_ntoh64(x) < pg_ntoh64(y) ? -1 : 1;
			return alen - blen;
		}
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
#define PBT_USABLE_SPACE (PBT_SPECIAL_OFFSET - SizeOfPageHeaderData)
#define PBT_MAX_ITEM_SIZE \
	(MAXALIGN_DOWN(PBT_USABLE_SPACE / 3) - sizeof(PbtSlot) - 2 * MAXIMUM_ALIGNOF)
/*
 * A hard bound for arrays indexed by position: every item takes at least 4
 * bytes (a slot and a byte, or a posting leaf's TID)
 */
#define PBT_MAX_ITEMS_PER_PAGE (PBT_USABLE_SPACE / 4)

/*
 * Inner items are child block number + separator; in a normalized index with
 * leaf groups, the group's hints (pbt_group.h) come between them, on every
 * inner level (the levels above the first keep them zero: they are few).
 */
#define PBT_GROUP_HINT_HEADER	3
#define PBT_GROUP_HINT_BYTES(st) \
	((st)->group_hint_bits == 0 ? 0 : \
	 PBT_GROUP_HINT_HEADER + \
	 ((st)->group_size * (st)->group_hint_bits + 1 + 7) / 8)
#define PBT_DOWNLINK_SIZE(st) \
	((st)->normalized ? sizeof(BlockNumber) + PBT_GROUP_HINT_BYTES(st) : \
	 MAXALIGN(sizeof(BlockNumber)))

/* the same, read from an inner page (layouts have no PbtState) */
static inline int
pbt_page_downlink_size(Page page)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);

	return (opaque->flags & PBT_ALIGNED_ITEMS) ? MAXALIGN(sizeof(BlockNumber)) :
		sizeof(BlockNumber) + opaque->downlink_extra;
}

#define PBT_DEFAULT_FILLFACTOR	90
#define PBT_MIN_FILLFACTOR		10
#define PBT_INNER_FILLFACTOR	70

/* the delta area (pbt_delta.h) */
typedef enum PbtDeltaOption
{
	PBT_DELTA_OFF,
	PBT_DELTA_ON,
	PBT_DELTA_AUTO				/* where leaf writes are costly: see
								 * pbt_delta_group_for_build() */
} PbtDeltaOption;
#define PBT_DEFAULT_DELTA		PBT_DELTA_AUTO
#define PBT_DEFAULT_DELTA_THRESHOLD 0	/* % of a page; 0: as below */
#define PBT_RMGR_DELTA_THRESHOLD	5.0 /* with the resource manager */
#define PBT_GENERIC_DELTA_THRESHOLD 10.0	/* with generic WAL */
#define PBT_MIN_DELTA_GROUP		4
#define PBT_MAX_DELTA_GROUP		64

#endif							/* PBT_PAGE_H */
