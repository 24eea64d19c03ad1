/*-------------------------------------------------------------------------
 *
 * pbt_xlog.h
 *	  WAL of the pagebtree access method: the custom resource manager's
 *	  records (pbt_wal.c); everything else is logged as generic WAL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_XLOG_H
#define PBT_XLOG_H

#include "postgres.h"

#include "access/xlogreader.h"
#include "storage/bufmgr.h"
#include "utils/relcache.h"
#include "pbt_compat.h"
#include "pbt_keys.h"
#include "pbt_page.h"

/*
 * The custom resource manager, registered only when the library is
 * preloaded (shared_preload_libraries).  Without it every change below is
 * logged as generic WAL (access/generic_xlog.h) with the same page effect,
 * and the structural changes that have no record here (new root, metapage,
 * build) always are.
 *
 * The record types, in the high 4 bits of xl_info:
 */
#define PBT_RMGR_ID			140
#define XLOG_PBT_INSERT		0x00	/* an item added to a page */
#define XLOG_PBT_DELETE		0x10	/* dead entries removed from a leaf */
#define XLOG_PBT_REUSE_PAGE	0x20	/* a deleted page is about to be reused */
#define XLOG_PBT_SPLIT		0x30	/* a page split */
#define XLOG_PBT_RUN_APPEND	0x40	/* an entry added to a leaf's run */
#define XLOG_PBT_FOLD		0x50	/* a run folded into its leaf */
#define XLOG_PBT_VACUUM_FOLD 0x60	/* VACUUM's change of a leaf's run */
#define XLOG_PBT_CONVERT	0x70	/* a reader's conversion of a leaf */
#define XLOG_PBT_GROUP_REWRITE 0x80 /* a leaf group rebalanced or split */
#define XLOG_PBT_REBUILD	0x90	/* a leaf rebuilt with more entries */
#define XLOG_PBT_UNLINK		0xA0	/* an empty leaf deleted, with the
										 * ancestors it empties */

/*
 * XLOG_PBT_INSERT: an item added at ordered position pos (the layout's
 * insert, which redo repeats, puts it where it belongs on the page).
 *
 * Backup blocks:
 *	0: the page the item goes to; block data: the item's bytes.
 *	1: only for a downlink: the left child whose split the downlink
 *	   completes; redo clears its PBT_INCOMPLETE_SPLIT flag.
 */
typedef struct xl_pbt_insert
{
	uint16		pos;			/* ordered position of the new item */
} xl_pbt_insert;

/*
 * XLOG_PBT_CONVERT: a leaf rebuilt in another layout, holding the same
 * items and high key (pbt_adapt.c); redo repeats the rebuild, which
 * depends only on them and on the layout and its parameter.
 *
 * Backup blocks:
 *	0: the leaf.
 */
typedef struct xl_pbt_convert
{
	uint8		layout;
	uint8		layout_param;
} xl_pbt_convert;

/*
 * XLOG_PBT_REBUILD: a leaf rebuilt in place in another layout with entries
 * added, and its run taken in: a leaf that converts instead of splitting
 * (pbt_insert.c).  Redo rebuilds it from the entries it keeps and the
 * logged ones, as described for XLOG_PBT_GROUP_REWRITE.
 *
 * Backup blocks:
 *	0: the leaf; block data: an xl_pbt_group_page.
 *	1: if run_slot >= 0, the side page, whose slot run_slot is emptied.
 */
typedef struct xl_pbt_rebuild
{
	int16		run_slot;		/* -1: the leaf had no run */
} xl_pbt_rebuild;

/*
 * XLOG_PBT_SPLIT: a page split.  If the left page kept its first keep items
 * in place (keep >= 0), redo truncates it to them, sets its new high key
 * and, with added_pos >= 0, inserts the entry that caused the split there;
 * otherwise (keep < 0) the rebuilt left page is logged whole.  (Records of
 * versions before added_pos end after run_slot: no entry added; those
 * before left_counter after hikey_len: the counter stays.)
 *
 * Backup blocks:
 *	0: the left (original) page; block data: its new high key
 *	   (hikey_len bytes) and the added entry when keep >= 0, none when it
 *	   is a full-page image.
 *	1: the new right page: a full-page image, or (REGBUF_WILL_INIT) an
 *	   xl_pbt_group_page that keeps no items, from which redo builds it
 *	   where that takes fewer bytes.
 *	2: if present, the old right sibling, whose left-link redo points at
 *	   block 1.
 *	3: if present, the left child whose split this page's downlink
 *	   completes (a split of an inner page that inserted the downlink).
 */
typedef struct xl_pbt_split
{
	int16		keep;			/* items kept in place on the left, or -1 */
	int16		run_slot;		/* the slot of the left page's run on side
								 * page block 4, whose block data are the
								 * entries that stay pending there (none:
								 * the split folded them all); -1 = none */
	int16		added_pos;		/* see above; -1 = none */
	uint16		hikey_len;
	uint8		left_counter;	/* keep >= 0: the left page's adaption
								 * counter, which the split may have started */
} xl_pbt_split;

#define SizeOfPbtSplitAdded (offsetof(xl_pbt_split, hikey_len) + sizeof(uint16))
#define SizeOfPbtSplit (offsetof(xl_pbt_split, left_counter) + sizeof(uint8))

/*
 * XLOG_PBT_GROUP_REWRITE: a leaf group's rebalance or split
 * (pbt_group_overflow), which rewrites its subnodes, a new group's and the
 * right sibling's left-link at once.  No main data.  Each block is either
 * a full-page image (any page whose description would take more bytes),
 * or has block data:
 *	- sizeof(BlockNumber) bytes: the right sibling's new left-link;
 *	- else an xl_pbt_group_page: the page is rebuilt from its special space,
 *	  its high key and its items, which are the entries it kept in place
 *	  (one stretch of its items) with the others, logged, between them,
 *	  or, for a page that had none (a hole, the new group's), all of
 *	  them logged front-coded.
 * Redo restores the blocks one at a time in block id order, as it does a
 * core XLOG_FPI record of the same pages (which logs the change without
 * the resource manager); the order is pbt_group_overflow's.
 */
typedef struct xl_pbt_group_page
{
	PbtPageOpaqueData opaque;	/* the page's special space after the change */
	uint16		keep_first;		/* its items [keep_first, keep_first +
								 * keep_count) stay; PBT_DESC_FRONT_CODED:
								 * none stay, all are logged front-coded */
	uint16		keep_count;
	uint16		nlogged;		/* entries logged: per entry uint16 ordered
								 * position, uint16 length and the bytes,
								 * ascending positions, after the high key;
								 * front-coded, per entry a byte of bytes
								 * shared with the entry before, the length
								 * of the rest (1 byte, or 2 with the high
								 * bit set) and the rest, in order */
	uint16		hikey_len;		/* then the high key's bytes */
} xl_pbt_group_page;

#define PBT_DESC_FRONT_CODED	0xFFFF

/*
 * XLOG_PBT_RUN_APPEND: an entry appended to a leaf's run (pbt_delta.c).
 *
 * Backup blocks:
 *	0: the side page; block data: the entry's bytes.  With init, redo
 *	   initializes the side page first (REGBUF_WILL_INIT).
 */
typedef struct xl_pbt_run_append
{
	uint16		slot;
	uint8		group;			/* leaves per side page, for init */
	bool		init;
	/* then, for a subnode's run, uint32 its tag (pbt_side_run_claim) */
} xl_pbt_run_append;

/*
 * XLOG_PBT_FOLD: ninserted entries go to the leaf, and its run keeps
 * nkept entries (a fold keeps none).  XLOG_PBT_VACUUM_FOLD is VACUUM's
 * when it drops dead entries (it keeps the live ones that do not fit), and
 * always names the leaf, whose cleanup lock redo takes, as VACUUM does on
 * the primary: a standby scan holding the leaf's pin may hold copies of
 * the dropped entries (the pin interlock, as nbtree's VACUUM records).
 *
 * Backup blocks:
 *	0: the leaf, if ninserted > 0 (or VACUUM's, unchanged then, without an
 *	   image); block data: per entry uint16 ordered position, uint16
 *	   length and the bytes, inserted in that order.
 *	1: the side page; block data: per kept entry uint16 length and bytes.
 */
typedef struct xl_pbt_fold
{
	uint16		slot;
	uint16		ninserted;
	uint16		nkept;
} xl_pbt_fold;

/*
 * XLOG_PBT_REUSE_PAGE: a deleted page is about to be reused.  No backup
 * blocks: redo only resolves recovery conflicts with standby queries that
 * may still see the page (logged only with wal_level >= replica).
 *
 * From 16 on, both records that resolve conflicts say whether the table is
 * one that logical decoding reads as a catalog, as nbtree's do: then the
 * conflict also invalidates a standby's logical slots that need the rows.
 */
typedef struct xl_pbt_reuse_page
{
	RelFileLocator node;
	BlockNumber block;
	FullTransactionId safexid;
#ifdef PBT_HAVE_CATALOG_REL
	bool		isCatalogRel;
#endif
} xl_pbt_reuse_page;

/* logged size, without trailing padding (it would be uninitialized) */
#ifdef PBT_HAVE_CATALOG_REL
#define SizeOfPbtReusePage (offsetof(xl_pbt_reuse_page, isCatalogRel) + sizeof(bool))
#else
#define SizeOfPbtReusePage sizeof(xl_pbt_reuse_page)
#endif

/*
 * XLOG_PBT_DELETE: removal of leaf entries, by VACUUM (whose horizon is
 * invalid: its table's VACUUM resolved the conflicts) or before a split,
 * of entries known dead to everyone.  Redo resolves recovery conflicts up
 * to a valid snapshotConflictHorizon and deletes the same positions;
 * VACUUM's under the leaf's cleanup lock, as on the primary (a standby
 * scan holding the leaf's pin may still return the entries' TIDs), the
 * others, like nbtree's, under an exclusive lock.  Records without the
 * vacuum field (shorter: an older library's) take the cleanup lock when
 * their horizon is invalid.
 *
 * Backup blocks:
 *	0: the leaf; block data: ndeleted uint16 ordered positions, ascending.
 */
typedef struct xl_pbt_delete
{
	TransactionId snapshotConflictHorizon;
	uint16		ndeleted;
#ifdef PBT_HAVE_CATALOG_REL
	bool		isCatalogRel;
#endif
	bool		vacuum;			/* VACUUM's removal */
} xl_pbt_delete;

/* logged size, without the trailing padding (it would be uninitialized) */
#define SizeOfPbtDelete (offsetof(xl_pbt_delete, vacuum) + sizeof(bool))

/*
 * XLOG_PBT_UNLINK: VACUUM's deletion of an empty leaf, or of an empty leaf
 * group's group_size blocks, with the ancestors it empties (pbt_vacuum.c,
 * delete_subtree).  On each of nlevels levels from the leaf up, the left
 * sibling's next and the right sibling's prev skip the pages that go, and
 * those are flagged deleted with safexid, no longer subnodes, linked to
 * both siblings; in the parent that keeps the top page's right sibling,
 * the downlink before rpos (to the top page) takes the one at rpos, to that
 * right sibling, which is removed (pbt_unlink_apply).
 *
 * Backup blocks, in order: on each level from the leaf up, the left sibling
 * if bit i of has_left is set, the pages that go (group_size on the leaf
 * level of a group, else one), the right sibling; then the parent
 * (pbt_unlink_roles).
 */
typedef struct xl_pbt_unlink
{
	FullTransactionId safexid;
	uint16		rpos;
	uint8		nlevels;
	uint8		has_left;
	uint8		group_size;		/* 0: the leaf level is one leaf */
} xl_pbt_unlink;

#define SizeOfPbtUnlink (offsetof(xl_pbt_unlink, group_size) + sizeof(uint8))
#define PBT_MAX_UNLINK_LEVELS	8	/* the bits of has_left */
#define PBT_MAX_UNLINK_BLOCKS	(XLR_MAX_BLOCK_ID + 1)

/* The positions of one level's blocks in an XLOG_PBT_UNLINK record */
typedef struct PbtUnlinkRoles
{
	int			left;			/* -1: the pages that go lead their level */
	int			first;			/* the pages that go: first .. right - 1 */
	int			right;
} PbtUnlinkRoles;

/* generic_xlog.c's delta format: fragments of offset, length, bytes */
#define GENERIC_FRAGMENT_HEADER (2 * (int) sizeof(OffsetNumber))

extern void pbt_register_rmgr(void);
extern char *pbt_generic_fragment(char *d, int offset, const char *bytes,
								  int len);
extern void pbt_log_generic_delta(Buffer buf, const char *delta, int len);
extern Page pbt_generic_register(GenericXLogState *xlog, Buffer buf, int flags);
extern void pbt_generic_change(Relation index, int n, const Buffer *bufs,
							   void (*change) (void *arg), void *arg);
extern void pbt_log_insert(Relation index, Buffer buf, int pos,
						   const char *data, int len, Buffer cbuf);
extern void pbt_log_delete(Relation index, Buffer buf, const int *positions,
						   int n, TransactionId snapshotConflictHorizon,
						   bool vacuum);
extern void pbt_log_split(Relation index, PbtState *st, Buffer lbuf,
						  Page lpage, int keep, const char *hikey,
						  int hikeylen, const PbtItem *added, int added_pos,
						  Buffer rbuf, Page rpage, const PbtItem *ritems,
						  int nright, Buffer sbuf, Buffer cbuf,
						  Buffer runbuf, int run_slot, const PbtItem *kept,
						  int nkept);
extern void pbt_log_reuse_page(Relation index, BlockNumber blkno,
							   FullTransactionId safexid);
extern void pbt_log_convert(Relation index, Buffer buf, Page newpage);
extern void pbt_unlink_parent(Page parent, int rpos);
extern int	pbt_unlink_roles(const xl_pbt_unlink *xlrec, PbtUnlinkRoles *roles);
extern void pbt_unlink_apply(const xl_pbt_unlink *xlrec, Page *pages,
							 const BlockNumber *blknos);
extern void pbt_log_unlink(Relation index, const xl_pbt_unlink *xlrec,
						   const Buffer *bufs, int nbufs,
						   const char *newparent);
extern bool pbt_log_rebuild(Relation index, PbtState *st, Buffer leafbuf,
							Page newpage, const PbtItem *items, int nitems,
							Buffer sbuf, int run_slot);
extern bool pbt_describe_page(PbtState *st, Page before, Page after,
							  const PbtItem *items, int nitems,
							  StringInfo out);
extern void pbt_log_group_pages(Relation index, const Buffer *bufs,
								StringInfo *descs, int n);

#endif							/* PBT_XLOG_H */
