/*-------------------------------------------------------------------------
 *
 * pbt_handler.c
 *	  The pagebtree access method handler, reloptions and cached key state.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_delta.h"
#include "pbt_group.h"

#include "access/nbtree.h"
#include "access/reloptions.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/index_selfuncs.h"
#include "utils/rel.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pagebtreehandler);

static relopt_kind pbt_relopt_kind;

/*
 * pagebtree.ablate_leaf_hints: heads-leaf searches ignore the hints, which
 * are still maintained, so that the bytes on disk do not depend on it (an
 * ablation for benchmarks, docs/decisions.md).
 */
bool		pbt_ablate_leaf_hints = false;

/*
 * pagebtree.delta_append_always: inserts go to the delta area whether or
 * not writing the leaf would cost a page write (for tests, which cannot
 * control when pages are written).
 */
bool		pbt_delta_append_always = false;

/*
 * pagebtree.prefetch_arrays_always: = ANY scans prefetch the leaves of their
 * next elements even before they read a block from disk (for tests, which
 * cannot empty shared buffers).
 */
bool		pbt_prefetch_arrays_always = false;

/*
 * pagebtree.short_include_payloads: builds store INCLUDE payloads without
 * their tuple header's TID and padding, in a format version that libraries
 * before it refuse; off builds indexes that they read (a standby or a
 * downgrade).
 */
bool		pbt_short_include_payloads = true;

/* delta: a boolean before "auto" existed, so its spellings stay valid */
static relopt_enum_elt_def pbt_delta_values[] = {
	{"auto", PBT_DELTA_AUTO},
	{"on", PBT_DELTA_ON},
	{"off", PBT_DELTA_OFF},
	{"true", PBT_DELTA_ON},
	{"false", PBT_DELTA_OFF},
	{NULL}
};

void
_PG_init(void)
{
	pbt_relopt_kind = add_reloption_kind();
	add_int_reloption(pbt_relopt_kind, "fillfactor",
					  "Packs pagebtree leaf pages only to this percentage",
					  PBT_DEFAULT_FILLFACTOR, PBT_MIN_FILLFACTOR, 100,
					  ShareUpdateExclusiveLock);
	pbt_add_layout_reloption(pbt_relopt_kind);
	add_int_reloption(pbt_relopt_kind, "bpa_log_size",
					  "Insert log slots of BPA leaves (a power of two)",
					  PBT_BPA_DEFAULT_LOG, 4, 64, ShareUpdateExclusiveLock);
	add_int_reloption(pbt_relopt_kind, "bpa_block_size",
					  "Slots per block of BPA leaves (a power of two)",
					  PBT_BPA_DEFAULT_BLOCK, 4, 64, ShareUpdateExclusiveLock);
	add_enum_reloption(pbt_relopt_kind, "delta",
					   "Inserts into clean leaves go to the delta area (reserved at the index's build)",
					   pbt_delta_values, PBT_DEFAULT_DELTA,
					   "Valid values are \"auto\", \"on\" and \"off\".",
					   ShareUpdateExclusiveLock);
	add_real_reloption(pbt_relopt_kind, "delta_threshold",
					   "A leaf's pending entries fold into it at this percentage of a page (0: 5 when preloaded, else 10)",
					   PBT_DEFAULT_DELTA_THRESHOLD, 0, 20, ShareUpdateExclusiveLock);

	add_int_reloption(pbt_relopt_kind, "leaf_group_size",
					  "Leaves are made in groups of this many contiguous blocks under one downlink (0: no groups); fixed at the index's build",
					  0, 0, PBT_MAX_GROUP_SIZE, ShareUpdateExclusiveLock);
	add_int_reloption(pbt_relopt_kind, "leaf_group_hint_bits",
					  "Bits per subnode of the hints that a group's downlink keeps to predict which subnode holds a key (0 to 32; 0: interpolate between separators; -1: 32 when a key column is a string, else 12); fixed at the index's build",
					  PBT_GROUP_HINT_BITS_AUTO, -1, 32, ShareUpdateExclusiveLock);
	add_bool_reloption(pbt_relopt_kind, "deduplicate_items",
					   "Leaves of one key's entries store the key once (posting leaves)",
					   true, ShareUpdateExclusiveLock);
	/* so that a btree index's definition carrying it works unchanged */
	add_real_reloption(pbt_relopt_kind, "vacuum_cleanup_index_scale_factor",
					   "Deprecated B-Tree parameter; ignored.",
					   -1, 0.0, 1e10, ShareUpdateExclusiveLock);

	DefineCustomBoolVariable("pagebtree.ablate_leaf_hints",
							 "Heads leaves are searched without their hints.",
							 "For measuring what the hints are worth: they are "
							 "still maintained, so the setting changes no page.",
							 &pbt_ablate_leaf_hints,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("pagebtree.delta_append_always",
							 "Inserts go to the delta area even when their leaf is dirty anyway.",
							 "For tests: an index with delta = on then appends "
							 "to runs until they fold, independently of checkpoints.",
							 &pbt_delta_append_always,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("pagebtree.prefetch_arrays_always",
							 "= ANY scans prefetch the leaves of their next elements from the start.",
							 "For tests: otherwise a scan starts prefetching once "
							 "it has read a block from disk.",
							 &pbt_prefetch_arrays_always,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("pagebtree.short_include_payloads",
							 "Index builds store INCLUDE values without the unused bytes of their tuple header.",
							 "Off builds them in format version 3 (6 with leaf "
							 "groups), which earlier pagebtree libraries read.",
							 &pbt_short_include_payloads,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("pagebtree.leaf_cache_size",
							"Memory of this backend's map from key ranges to the leaves its reads reached.",
							"Reads go straight to a leaf it knows (and that has "
							"not changed since), without the levels above; 0 "
							"turns it off.",
							&pbt_leaf_cache_kb,
							4096, 0, MAX_KILOBYTES,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("pagebtree");

#if defined(USE_ASSERT_CHECKING) || defined(PBT_CHECKS)
	pbt_registry_check();
#endif

	pbt_install_planner_hook();

	/* a custom WAL resource manager can only be registered at preload */
	if (process_shared_preload_libraries_in_progress)
		pbt_register_rmgr();
}

static bytea *
pbtoptions(Datum reloptions, bool validate)
{
	static const relopt_parse_elt tab[] = {
		{"fillfactor", RELOPT_TYPE_INT, offsetof(PbtOptions, fillfactor)},
		{"layout", RELOPT_TYPE_ENUM, offsetof(PbtOptions, layout)},
		{"bpa_log_size", RELOPT_TYPE_INT, offsetof(PbtOptions, bpa_log_size)},
		{"bpa_block_size", RELOPT_TYPE_INT, offsetof(PbtOptions, bpa_block_size)},
		{"delta", RELOPT_TYPE_ENUM, offsetof(PbtOptions, delta)},
		{"delta_threshold", RELOPT_TYPE_REAL, offsetof(PbtOptions, delta_threshold)},
		{"deduplicate_items", RELOPT_TYPE_BOOL, offsetof(PbtOptions, deduplicate_items)},
		{"leaf_group_size", RELOPT_TYPE_INT, offsetof(PbtOptions, leaf_group_size)},
		{"leaf_group_hint_bits", RELOPT_TYPE_INT, offsetof(PbtOptions, leaf_group_hint_bits)},
		{"vacuum_cleanup_index_scale_factor", RELOPT_TYPE_REAL,
		offsetof(PbtOptions, vacuum_cleanup_index_scale_factor)},
	};
	PbtOptions *opts;

	opts = (PbtOptions *) build_reloptions(reloptions, validate, pbt_relopt_kind,
										   sizeof(PbtOptions), tab, lengthof(tab));
	if (opts && validate &&
		((opts->bpa_log_size & (opts->bpa_log_size - 1)) != 0 ||
		 (opts->bpa_block_size & (opts->bpa_block_size - 1)) != 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bpa_log_size and bpa_block_size must be powers of two"),
				 errdetail("bpa_log_size is %d and bpa_block_size is %d.",
						   opts->bpa_log_size, opts->bpa_block_size)));
	if (opts && validate &&
		opts->delta_threshold > 0 && opts->delta_threshold < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta_threshold must be 0 or between 1 and 20"),
				 errdetail("0 chooses 5 when pagebtree is preloaded, else 10.")));
	if (opts && validate && opts->leaf_group_size == 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("leaf_group_size must be 0 or between 2 and %d",
						PBT_MAX_GROUP_SIZE)));
	return (bytea *) opts;
}

/*
 * Does the metapage say the index was built with comparator-mode keys?
 * Text under a libc C.UTF-8 collation and name got normalized keys after
 * earlier libraries had built them in comparator mode (pbt_type_normalizable);
 * an index built before keeps its comparator keys until REINDEX.  The key
 * mode never changes after the build.
 */
static bool
built_with_comparator_keys(Relation index)
{
	Buffer		buf;
	Page		page;
	bool		comparator;

	if (RelationGetNumberOfBlocks(index) == 0)
		return false;			/* being built */
	buf = ReadBuffer(index, PBT_METAPAGE_BLKNO);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	comparator = !PageIsNew(page) &&
		PbtPageGetMeta(page)->key_mode == PBT_KEYS_COMPARATOR;
	UnlockReleaseBuffer(buf);
	return comparator;
}

/*
 * Key state for an index, derived from its catalog entries, allocated in
 * cxt.  A relcache invalidation frees rd_amcache (only the PbtState chunk;
 * the descriptors stay in rd_indexcxt), so scans work on a copy.
 */
PbtState *
pbt_build_state(Relation index, MemoryContext cxt)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(cxt);
	PbtState   *st = palloc0(sizeof(PbtState));
	TupleDesc	desc = RelationGetDescr(index);
	PbtOptions *opts = (PbtOptions *) index->rd_options;
	bool		has_string_column = false;
	bool		normalized_lately = false;

	st->nkeyatts = IndexRelationGetNumberOfKeyAttributes(index);
	st->natts = IndexRelationGetNumberOfAttributes(index);
	st->has_include = st->natts > st->nkeyatts;
	st->tupdesc = CreateTupleDescCopy(desc);
	st->keydesc = CreateTupleDescCopy(desc);
	st->keydesc->natts = st->nkeyatts;
	if (st->has_include)
	{
		st->incdesc = CreateTemplateTupleDesc(st->natts - st->nkeyatts);
		for (int i = st->nkeyatts; i < st->natts; i++)
			TupleDescCopyEntry(st->incdesc, i - st->nkeyatts + 1, desc, i + 1);
	}
	st->normalized = true;
	for (int i = 0; i < st->nkeyatts; i++)
	{
		PbtColumn  *col = &st->cols[i];
		Oid			procid = index_getprocid(index, i + 1, 1);

		col->typid = index->rd_opcintype[i];
		col->collation = index->rd_indcollation[i];
		col->desc = (index->rd_indoption[i] & INDOPTION_DESC) != 0;
		col->nulls_first = (index->rd_indoption[i] & INDOPTION_NULLS_FIRST) != 0;
		/* (a class whose function 1 is declared for other types has none) */
		if (!OidIsValid(procid))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family of column %d of index \"%s\" has no comparison function for type %s",
							i + 1, RelationGetRelationName(index),
							format_type_be(col->typid))));
		fmgr_info_cxt(procid, &col->cmp, cxt);
		if (!pbt_type_normalizable(col->typid, procid, col->collation, &col->kind))
			st->normalized = false;
		else if (col->kind == PBT_COL_TEXT &&
				 (col->typid == NAMEOID || !pbt_collation_is_c(col->collation)))
			normalized_lately = true;
		col->width = pbt_column_width(col->kind);
		if (col->kind == PBT_COL_TEXT || col->kind == PBT_COL_BYTEA)
			has_string_column = true;
	}
	if (st->normalized && normalized_lately && built_with_comparator_keys(index))
		st->normalized = false;
	st->fillfactor = opts ? opts->fillfactor : PBT_DEFAULT_FILLFACTOR;
	st->delta_on = (opts ? opts->delta : PBT_DEFAULT_DELTA) != PBT_DELTA_OFF;
	st->delta_threshold = PBT_USABLE_SPACE * pbt_delta_threshold_pct(index) / 100;
	st->delta_fill_slot = (opts == NULL || opts->delta_threshold == 0) &&
		!pbt_rmgr_registered;
	pbt_set_layouts(st, opts, has_string_column);
	st->root = InvalidBlockNumber;
	st->rightmost_leaf = InvalidBlockNumber;
	MemoryContextSwitchTo(oldcxt);
	return st;
}

PbtState *
pbt_get_state(Relation index)
{
	if (index->rd_amcache == NULL)
		index->rd_amcache = pbt_build_state(index, index->rd_indexcxt);
	return (PbtState *) index->rd_amcache;
}

/*
 * Every column can be returned: normalized keys decode losslessly.  But
 * not on a hot standby whose VACUUM removals are generic WAL: without the
 * resource manager, or with it when the primary's last VACUUM of the index
 * (or its build) ran without it.  Generic redo cannot wait for the leaf pin
 * of an index-only scan, and the scan could return rows deleted before it
 * started (docs/ARCHITECTURE.md, section 5).
 */
static bool
pbtcanreturn(Relation index, int attno)
{
	Buffer		metabuf;
	bool		generic;

	if (!RecoveryInProgress())
		return true;
	if (!pbt_rmgr_registered)
		return false;
	metabuf = ReadBuffer(index, PBT_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	generic = PbtPageGetMeta(BufferGetPage(metabuf))->vacuum_generic != 0;
	UnlockReleaseBuffer(metabuf);
	return !generic;
}

/*
 * The planner must choose pagebtree exactly where it would choose btree on
 * the same column: same strategies, same selectivity logic, same cost model.
 */
static void
pbtcostestimate(PlannerInfo *root, IndexPath *path, double loop_count,
				Cost *indexStartupCost, Cost *indexTotalCost,
				Selectivity *indexSelectivity, double *indexCorrelation,
				double *indexPages)
{
	btcostestimate(root, path, loop_count, indexStartupCost, indexTotalCost,
				   indexSelectivity, indexCorrelation, indexPages);
}

/* Is the planner's index a pagebtree index?  (pbt_rowcompare.c) */
bool
pbt_index_is_ours(IndexOptInfo *index)
{
	return (void *) index->amcostestimate == (void *) pbtcostestimate;
}

/*
 * The root's level, for btcostestimate's charge per page descended (18
 * asks the access method; earlier servers ask btree indexes only).
 * Like btree's, the answer comes from the metapage as cached, and may be
 * stale by a root split.
 */
static int
pbtgettreeheight(Relation index)
{
	PbtState   *st = pbt_get_state(index);

	if (st->root == InvalidBlockNumber)
		pbt_read_root_from_meta(index, st);
	return st->rootlevel;
}

Datum
pagebtreehandler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	amroutine->amstrategies = BTMaxStrategyNumber;
	amroutine->amsupport = 1;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = true;
	amroutine->amcanorderbyop = false;
	amroutine->amcanbackward = true;
	amroutine->amcanunique = true;
	amroutine->amcanmulticol = true;
	amroutine->amoptionalkey = true;
	amroutine->amsearcharray = true;
	amroutine->amsearchnulls = true;
	amroutine->amstorage = false;
	amroutine->amclusterable = true;
	amroutine->ampredlocks = true;
	amroutine->amcanparallel = true;
	amroutine->amcaninclude = true;
	amroutine->amusemaintenanceworkmem = false;
	amroutine->amparallelvacuumoptions =
		VACUUM_OPTION_PARALLEL_BULKDEL | VACUUM_OPTION_PARALLEL_COND_CLEANUP;
	amroutine->amkeytype = InvalidOid;

	amroutine->ambuild = pbtbuild;
	amroutine->ambuildempty = pbtbuildempty;
	amroutine->aminsert = pbtinsert;
	amroutine->ambulkdelete = pbtbulkdelete;
	amroutine->amvacuumcleanup = pbtvacuumcleanup;
	amroutine->amcanreturn = pbtcanreturn;
	amroutine->amcostestimate = pbtcostestimate;
	amroutine->amoptions = pbtoptions;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = pbtbuildphasename;
	/* opclasses follow btree's rules exactly, so btree's validator applies */
	amroutine->amvalidate = btvalidate;
	amroutine->amadjustmembers = btadjustmembers;
	amroutine->ambeginscan = pbtbeginscan;
	amroutine->amrescan = pbtrescan;
	amroutine->amgettuple = pbtgettuple;
	amroutine->amgetbitmap = pbtgetbitmap;
	amroutine->amendscan = pbtendscan;
	amroutine->ammarkpos = pbtmarkpos;
	amroutine->amrestrpos = pbtrestrpos;
	amroutine->amestimateparallelscan = pbtestimateparallelscan;
	amroutine->aminitparallelscan = pbtinitparallelscan;
	amroutine->amparallelrescan = pbtparallelrescan;
	pbt_set_newer_am_fields(amroutine, pbtgettreeheight);

	PG_RETURN_POINTER(amroutine);
}
