/*-------------------------------------------------------------------------
 *
 * pbt_compat.h
 *	  What differs between the PostgreSQL major versions pagebtree builds
 *	  against (15, 16, 17, 18), in one place.
 *
 * The rest of the module is written against the names of the newest
 * servers (RelFileLocator, BufferIsDirty, ...); for older servers this
 * header maps those names onto what they have.  Each block says which
 * release changed the interface.  Where a whole code path exists only on
 * newer servers (read streams, a WAL field), the other files test a
 * PBT_HAVE_* feature macro defined here, never PG_VERSION_NUM itself.
 * Tested: 15 and 17 (Debian), 16 and 18 (pip wheels).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_COMPAT_H
#define PBT_COMPAT_H

#include "access/amapi.h"
#include "access/relscan.h"
#include "commands/vacuum.h"
#include "pgstat.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "storage/standby.h"
#include "utils/rel.h"

#if PG_VERSION_NUM < 150000
#error "pagebtree needs PostgreSQL 15 or later"
#endif

/* ----------------------------------------------------------------
 * Registering a buffer that the record does not change (to lock it in
 * redo): 17 asserts that registered buffers are dirty unless flagged.
 * ----------------------------------------------------------------
 */
#ifndef REGBUF_NO_CHANGE
#define REGBUF_NO_CHANGE 0
#endif

/* ----------------------------------------------------------------
 * Functions that do not return.  18 replaced the postfix
 * pg_attribute_noreturn() by the prefix pg_noreturn (C11 _Noreturn); GCC
 * and clang take the older attribute in prefix position too.
 * ----------------------------------------------------------------
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/* ----------------------------------------------------------------
 * Relation file identity.  16 renamed RelFileNode to RelFileLocator
 * (spcNode, dbNode, relNode became spcOid, dbOid, relNumber), the
 * relcache's rd_node to rd_locator and smgr's smgr_rnode.node to
 * smgr_rlocator.locator.  The structs have the same layout, so WAL
 * records that embed one are the same bytes.
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 160000
#include "storage/relfilelocator.h"

#define PbtRelationGetLocator(rel)		((rel)->rd_locator)
#define PbtRelationGetFileNumber(rel)	((rel)->rd_locator.relNumber)
#define PbtSmgrGetLocator(smgr)			(&(smgr)->smgr_rlocator.locator)
#else
#include "storage/relfilenode.h"

typedef RelFileNode RelFileLocator;

#define PbtRelationGetLocator(rel)		((rel)->rd_node)
#define PbtRelationGetFileNumber(rel)	((rel)->rd_node.relNode)
#define PbtSmgrGetLocator(smgr)			(&(smgr)->smgr_rnode.node)
#endif

/* ----------------------------------------------------------------
 * Recovery conflicts.  16 added isCatalogRel: a conflict on a table that
 * logical decoding reads as a catalog (a catalog or a user_catalog_table)
 * also invalidates logical slots on a standby that need the removed rows.
 * 15 has no logical decoding on standbys and takes no such argument.
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 160000
#define PBT_HAVE_CATALOG_REL	1	/* the records' isCatalogRel field */
#define PbtResolveConflictWithSnapshot(horizon, isCatalogRel, locator) \
	ResolveRecoveryConflictWithSnapshot((horizon), (isCatalogRel), (locator))
#define PbtResolveConflictWithSnapshotFullXid(horizon, isCatalogRel, locator) \
	ResolveRecoveryConflictWithSnapshotFullXid((horizon), (isCatalogRel), (locator))
#else
#define PbtResolveConflictWithSnapshot(horizon, isCatalogRel, locator) \
	ResolveRecoveryConflictWithSnapshot((horizon), (locator))
#define PbtResolveConflictWithSnapshotFullXid(horizon, isCatalogRel, locator) \
	ResolveRecoveryConflictWithSnapshotFullXid((horizon), (locator))
#endif

/* the conflict horizon of nbtree's REUSE_PAGE record (16 renamed it) */
#if PG_VERSION_NUM >= 160000
#define PBT_BTREE_REUSE_HORIZON snapshotConflictHorizon
#else
#define PBT_BTREE_REUSE_HORIZON latestRemovedFullXid
#endif

/* ----------------------------------------------------------------
 * Relation extension.  16 replaced ReadBuffer(P_NEW), which needed the
 * caller to hold the relation extension lock, by ExtendBufferedRel, which
 * takes that lock itself (and, with EB_LOCK_FIRST, returns the new zeroed
 * page exclusively locked, as RBM_ZERO_AND_LOCK did).  P_NEW still works
 * on 16-18 but is deprecated and goes through the same path at a higher
 * cost.
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 160000
#define PBT_EXTEND_NEEDS_LOCK	false
static inline Buffer
pbt_extend_relation(Relation rel)
{
	return ExtendBufferedRel(BMR_REL(rel), MAIN_FORKNUM, NULL, EB_LOCK_FIRST);
}

/* the same, under the extension lock that the caller holds */
static inline Buffer
pbt_extend_relation_locked(Relation rel)
{
	return ExtendBufferedRel(BMR_REL(rel), MAIN_FORKNUM, NULL,
							 EB_LOCK_FIRST | EB_SKIP_EXTENSION_LOCK);
}
#else
#define PBT_EXTEND_NEEDS_LOCK	true
static inline Buffer
pbt_extend_relation(Relation rel)
{
	return ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW, RBM_ZERO_AND_LOCK,
							  NULL);
}
#define pbt_extend_relation_locked pbt_extend_relation
#endif

/*
 * Extend a relation's fork by nblocks zero blocks from block first, the
 * space allocated now (not holes, whose first write fails when the disk
 * is full), bypassing shared buffers: 16's smgrzeroextend, which uses
 * fallocate where it can, and one write per block before it.
 */
#if PG_VERSION_NUM >= 160000
#define pbt_smgr_zero_extend(smgr, first, nblocks) \
	smgrzeroextend((smgr), MAIN_FORKNUM, (first), (nblocks), false)
#else
static inline void
pbt_smgr_zero_extend(SMgrRelation smgr, BlockNumber first, int nblocks)
{
	PGAlignedBlock zero;

	memset(zero.data, 0, BLCKSZ);
	for (int i = 0; i < nblocks; i++)
		smgrextend(smgr, MAIN_FORKNUM, first + i, zero.data, false);
}
#endif

/* ----------------------------------------------------------------
 * Buffer state.  BufferIsDirty came with 17 (it asserts that the caller
 * holds the content lock in exclusive mode).  Before it, read BM_DIRTY
 * from the shared buffer's header, as it does, without the header lock:
 * the answer is a hint either way.  Local buffers are never asked.
 *
 * The usage count (pbt_bufcache.c) has no function at all: 15 to 18 keep
 * it in the same bits of BufferDesc.state (BUF_USAGECOUNT_ONE,
 * BM_MAX_USAGE_COUNT, BM_LOCKED) and GetBufferDescriptor became an inline
 * function in 16 with the same use, so that code is the same on every
 * version.
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 170000
#define pbt_buffer_is_dirty(buf)	BufferIsDirty(buf)
#else
static inline bool
pbt_buffer_is_dirty(Buffer buf)
{
	Assert(!BufferIsLocal(buf));
	return (pg_atomic_read_u32(&GetBufferDescriptor(buf - 1)->state) &
			BM_DIRTY) != 0;
}
#endif

/* ----------------------------------------------------------------
 * Collations that order by bytes.  18 removed lc_collate_is_c; the locale
 * object says it instead (true for "C", "POSIX" and, from 17 on, the
 * builtin provider's C collations, which compare with memcmp too).
 * ----------------------------------------------------------------
 */
#include "utils/pg_locale.h"

#if PG_VERSION_NUM >= 180000
static inline bool
pbt_collation_is_c(Oid collation)
{
	return pg_newlocale_from_collation(collation)->collate_is_c;
}
#else
#define pbt_collation_is_c(collation)	lc_collate_is_c(collation)
#endif

/* ----------------------------------------------------------------
 * Sorted datums.  16 added tuplesort_getdatum's copy argument; 15 always
 * copies a pass-by-reference datum into the caller's memory context, and
 * the caller frees it, so ask for the copy.
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 160000
#define pbt_tuplesort_getdatum(state, forward, val, isNull) \
	tuplesort_getdatum((state), (forward), true, (val), (isNull), NULL)
#else
#define pbt_tuplesort_getdatum(state, forward, val, isNull) \
	tuplesort_getdatum((state), (forward), (val), (isNull), NULL)
#endif

/* ----------------------------------------------------------------
 * VACUUM's cost-based delay: 18 tells it whether ANALYZE is calling.
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 180000
#define pbt_vacuum_delay_point()	vacuum_delay_point(false)
#else
#define pbt_vacuum_delay_point()	vacuum_delay_point()
#endif

/* ----------------------------------------------------------------
 * Index searches.  18's EXPLAIN ANALYZE reports "Index Searches" from a
 * counter that the access method raises wherever it counts an index scan
 * for pg_stat_*_indexes (btree: each _bt_first).
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 180000
#define pbt_count_index_search(scan) \
	do { \
		pgstat_count_index_scan((scan)->indexRelation); \
		if ((scan)->instrument) \
			(scan)->instrument->nsearches++; \
	} while (0)
#else
#define pbt_count_index_search(scan) \
	pgstat_count_index_scan((scan)->indexRelation)
#endif

/* ----------------------------------------------------------------
 * Parallel index scans.  17 gave amestimateparallelscan the number of
 * scan keys and ORDER BY keys (nbtree sizes its shared array keys by
 * them), 18 the index too.  18 split ps_offset into ps_offset_am (the
 * access method's shared state) and ps_offset_ins (instrumentation).
 * pagebtree's shared state has a fixed size (pbt_scan.c).
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 180000
#define PBT_ESTIMATE_PARALLEL_ARGS	Relation index, int nkeys, int norderbys
#define PbtParallelScanAmState(pscan) \
	((void *) ((char *) (pscan) + (pscan)->ps_offset_am))
#elif PG_VERSION_NUM >= 170000
#define PBT_ESTIMATE_PARALLEL_ARGS	int nkeys, int norderbys
#define PbtParallelScanAmState(pscan) \
	((void *) ((char *) (pscan) + (pscan)->ps_offset))
#else
#define PBT_ESTIMATE_PARALLEL_ARGS	void
#define PbtParallelScanAmState(pscan) \
	((void *) ((char *) (pscan) + (pscan)->ps_offset))
#endif

/* ----------------------------------------------------------------
 * IndexAmRoutine fields added after 15 (makeNode zeroes the rest).  The
 * handler sets the 15 fields; these say what pagebtree does on newer
 * servers.
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 180000
#include "access/nbtree.h"		/* bttranslatestrategy, bttranslatecmptype */
#endif

static inline void
pbt_set_newer_am_fields(IndexAmRoutine *amroutine,
						int (*gettreeheight) (Relation index))
{
#if PG_VERSION_NUM >= 160000
	/* 16: entries are per heap tuple, not per block range (BRIN) */
	amroutine->amsummarizing = false;
#endif
#if PG_VERSION_NUM >= 170000
	/* 17: index_build asks the planner for CREATE INDEX's workers */
	amroutine->amcanbuildparallel = true;
	amroutine->aminsertcleanup = NULL;
#endif
#if PG_VERSION_NUM >= 180000
	/* 18: btcostestimate charges per level descended, as for btree */
	amroutine->amgettreeheight = gettreeheight;

	/*
	 * 18: the opfamilies are btree's in all but name (btvalidate checks
	 * them), so equality and ordering are consistent across each family's
	 * cross-type operators, as for btree, and strategy numbers translate
	 * to compare types as btree's do.  The planner uses the translation to
	 * find an index's sort order (for ORDER BY and merge joins) and CREATE
	 * INDEX to match a unique index to a partition key.  No hashing.
	 */
	amroutine->amcanhash = false;
	amroutine->amconsistentequality = true;
	amroutine->amconsistentordering = true;
	amroutine->amtranslatestrategy = bttranslatestrategy;
	amroutine->amtranslatecmptype = bttranslatecmptype;
#else
	(void) gettreeheight;
#endif
}

/* ----------------------------------------------------------------
 * The btree family of an ordering operator.  18 reports the comparison
 * as a CompareType where older releases gave an int16 strategy number.
 * ----------------------------------------------------------------
 */
#include "utils/lsyscache.h"

static inline bool
pbt_ordering_op_family(Oid opno, Oid *opfamily, Oid *opcintype)
{
#if PG_VERSION_NUM >= 180000
	CompareType cmptype;
#else
	int16		cmptype;
#endif

	return get_ordering_op_properties(opno, opfamily, opcintype, &cmptype);
}

/* ----------------------------------------------------------------
 * Read streams (17): VACUUM's pass and the leaves of bitmap scans and of
 * scans that keep their leaf pinned are read through one from 17 on
 * (pbt_prefetch.c); earlier servers read ahead with PrefetchBuffer.
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 170000
#define PBT_HAVE_READ_STREAM	1
#include "storage/read_stream.h"
#endif

/* ----------------------------------------------------------------
 * Parallel builds: from 17 index_build plans the workers
 * (amcanbuildparallel) and hands their number to ambuild in IndexInfo;
 * before, ambuild asks the planner itself, as nbtree did.
 * ----------------------------------------------------------------
 */
#include "nodes/execnodes.h"
#if PG_VERSION_NUM < 170000
#include "access/xact.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#endif

static inline int
pbt_build_workers(Relation heap, Relation index, IndexInfo *indexInfo)
{
#if PG_VERSION_NUM >= 170000
	return indexInfo->ii_ParallelWorkers;
#else
	if (!IsNormalProcessingMode() || IsInParallelMode())
		return 0;
	return plan_create_index_workers(RelationGetRelid(heap),
									 RelationGetRelid(index));
#endif
}

/* ----------------------------------------------------------------
 * Failed assertions (pagebtree.h's Assert in PBT_CHECKS builds): 16
 * dropped ExceptionalCondition's errorType argument.
 * ----------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 160000
#define pbt_assertion_failed(condition) \
	ExceptionalCondition((condition), __FILE__, __LINE__)
#else
#define pbt_assertion_failed(condition) \
	ExceptionalCondition((condition), "FailedAssertion", __FILE__, __LINE__)
#endif

/* 16 added BufFileReadExact, which errors on a short read */
#if PG_VERSION_NUM < 160000
#include "storage/buffile.h"

static inline void
BufFileReadExact(BufFile *file, void *ptr, size_t size)
{
	size_t		nread = BufFileRead(file, ptr, size);

	if (nread != size)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from temporary file: read only %zu of %zu bytes",
						nread, size)));
}
#endif

/*
 * The executor builds a row comparison's scan keys (SK_ROW_HEADER) for any
 * ordered access method from 18 on, for btree only before
 * (ExecIndexBuildScanKeys), so only 18's plans may pass pagebtree one
 * (pbt_rowcompare.c).
 */
#if PG_VERSION_NUM >= 180000
#define PBT_HAVE_ROW_SCAN_KEYS	1
#endif

#endif							/* PBT_COMPAT_H */
