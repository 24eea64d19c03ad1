/*-------------------------------------------------------------------------
 *
 * pbt_build.c
 *	  Bulk build: sort the entries, then fill pages bottom-up.
 *
 * Normalized items sort as byte strings (bytea order is exactly memcmp
 * order); comparator-mode entries sort as heap tuples on the key columns
 * with the opclass's ordering operators, then the heap TID.  Pages are
 * filled left to right, level by level, to fillfactor (leaves) or
 * PBT_INNER_FILLFACTOR (inner pages); leaves that can take the index's
 * rebuilt layout are rebuilt in it and filled on, a dense leaf to
 * fillfactor of its capacity, a semidense one to fillfactor of the page
 * while keys fall in its window (see add_to_level).  The pages are written
 * through shared buffers without WAL and logged in bulk at the end, as
 * other index builds do.
 *
 * With leaf groups (reloption leaf_group_size), the leaves are the subnodes
 * of groups of N contiguous blocks, filled in order; only a group's first
 * subnode gets a downlink, and the last group's unused blocks stay holes.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_delta.h"
#include "pbt_group.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "commands/progress.h"
#include "executor/instrument.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "port/pg_bswap.h"
#include "storage/buffile.h"
#include "storage/condition_variable.h"
#include "storage/lmgr.h"
#include "storage/sharedfileset.h"
#include "storage/smgr.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplesort.h"

#ifndef WIN32
#include <sys/mman.h>
#endif

#define PBT_PHASE_SCAN		2
#define PBT_PHASE_SORT		3
#define PBT_PHASE_LOAD		4

/* one level of the tree under construction */
typedef struct LevelBuilder
{
	uint16		level;
	Buffer		buf;			/* current (rightmost) page, locked (or
								 * InvalidBuffer: a split load's worker) */
	Page		page;			/* its page */
	BlockNumber blkno;			/* and block (a worker's: its ordinal) */
	struct LevelBuilder *parent;
	/*
	 * Leaf level of an index whose rebuilt layout is filled by runs (dense):
	 * could the page take that layout?
	 */
	StringInfoData first;		/* copy of the first item on it */
	int			run_span;		/* tails from the first item to the last,
								 * or 0 if the items cannot share a page of
								 * the layout */
	int			run_limit;		/* fillfactor share of that page's capacity */
	/* leaf level of a group build: the current leaf is subnode gpos */
	BlockNumber gstart;			/* first block of the current group */
	int			gpos;
} LevelBuilder;

/*
 * Normalized keys are sorted in memory while they fit in
 * maintenance_work_mem: entries ordered by their first eight bytes as an
 * integer (then memcmp) need no pointer chasing for most comparisons, where
 * tuplesort compares bytea datums scattered through its memory and copies
 * each one back out.  Past the limit they move to a tuplesort, which spills.
 */
#define MEMSORT_INLINE_MAX	18

typedef struct MemSortEntry
{
	uint64		abbrev;			/* first 8 bytes, big-endian, zero-padded */
	union
	{
		char	   *ptr;		/* in the arena */
		char		bytes[MEMSORT_INLINE_MAX];	/* short items: no pointer
												 * to chase after the sort */
	}			item;
	uint16		len;
	bool		alive;
} MemSortEntry;

static inline const char *
memsort_item(const MemSortEntry *e)
{
	return e->len <= MEMSORT_INLINE_MAX ? e->item.bytes : e->item.ptr;
}

typedef struct MemSort
{
	MemoryContext cxt;
	MemSortEntry *entries;
	int64		n;
	int64		cap;
	int64		next;			/* next entry to return, once sorted */
	char	   *arena;			/* item bytes are carved from blocks */
	Size		arena_left;
	Size		arena_used;		/* item bytes in all blocks */
	Size		used;			/* bytes of entries and blocks */
	int			participants;	/* sorting in memory at once */
} MemSort;

#define MEMSORT_BLOCK_SIZE	(1024 * 1024)
#define MEMSORT_MAX_BLOCK_SIZE	(16 * 1024 * 1024)
#define MEMSORT_HUGE_PAGE_SIZE	(2 * 1024 * 1024)
#define MEMSORT_PREFETCH_DISTANCE 16

static inline uint64
memsort_abbrev(const char *item, int len)
{
	uint64		v = 0;

	if (len >= 8)
	{
		memcpy(&v, item, sizeof(v));
		return pg_ntoh64(v);
	}
	for (int i = 0; i < 8; i++)
		v = (v << 8) | (i < len ? (uint8) item[i] : 0);
	return v;
}

static inline int
memsort_cmp(const MemSortEntry *a, const MemSortEntry *b)
{
	if (a->abbrev != b->abbrev)
		return a->abbrev < b->abbrev ? -1 : 1;
	return pbt_bytes_cmp(memsort_item(a), a->len, memsort_item(b), b->len);
}

#define ST_SORT memsort_entries
#define ST_ELEMENT_TYPE MemSortEntry
#define ST_COMPARE(a, b) memsort_cmp(a, b)
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#define ST_CHECK_FOR_INTERRUPTS
#include "lib/sort_template.h"

/*
 * A sorted stream of leaf items that a parallel build's leader merges:
 * its own sort (file == NULL) or the run a worker wrote to a file.
 */
typedef struct SortedRun
{
	BufFile    *file;
	char	   *chunk;			/* RUN_CHUNK_SIZE bytes read from the file */
	int			chunk_len;
	int			chunk_pos;		/* the next item's header */
	const char *cur;			/* the run's current item; NULL: exhausted */
	int			curlen;
	bool		alive;
	uint64		abbrev;			/* memsort_abbrev of cur */
} SortedRun;

typedef struct PbtBuildLeader PbtBuildLeader;

typedef struct BuildState
{
	Relation	heap;
	Relation	index;
	PbtState   *st;
	int			sortmem;		/* kB for this participant's sort */
	pg_atomic_uint64 *sort_mem_used;	/* a parallel build's memsorts, all */
	Tuplesortstate *sort;		/* NULL while the entries are in memsort */
	MemSort    *memsort;		/* normalized keys that fit in memory */
	TupleDesc	sortdesc;		/* comparator mode: index columns + tid */
	TupleTableSlot *slot;		/* for putting entries into the sort */
	TupleTableSlot *sortedslot; /* for getting them back */
	double		indtuples;
	double		leaf_bytes;		/* estimated bytes of the leaf entries */
	StringInfoData item;		/* a leaf item being formed */
	const char *cur;			/* the sorted item being loaded */
	int			curlen;
	bool		item_alive;		/* its heap tuple is live (unique checks) */
	bool		unique;
	StringInfoData prev;		/* previous live item, for unique checks */
	bool		has_prev;
	LevelBuilder *leaf;
	uint16		pageflags;
	int			group_size;		/* leaves per leaf group, 0 = no groups */
	PbtBuildLeader *leader;		/* a parallel build's, in its leader */
	SortedRun  *runs;			/* what the leader merges */
	int			nruns;
	SortedRun  *last_run;		/* the run the last item came from */
	/* a parallel build's pages that worker 0 logs: a bitmap by block */
	uint64	   *wal_handed;
	BlockNumber wal_handed_words;
	/* a split load: the worker's first item, where the leader's runs end */
	const char *split_item;
	int			split_len;
	uint64		split_abbrev;	/* its first eight bytes */
	bool		split_leader;	/* the leader's runs stop at split_item */
	BufFile    *leaves_file;	/* the worker's leaves go here */
} BuildState;

char *
pbtbuildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case PBT_PHASE_SCAN:
			return "scanning table";
		case PBT_PHASE_SORT:
			return "sorting";
		case PBT_PHASE_LOAD:
			return "loading tuples in tree";
		default:
			return NULL;
	}
}

/* A normalized item into the tuplesort, as bytea. */
static void
sort_put_item(BuildState *bs, const char *item, int len, bool alive)
{
	bytea	   *datum = palloc(VARHDRSZ + len + 1);

	SET_VARSIZE(datum, VARHDRSZ + len + 1);
	memcpy(VARDATA(datum), item, len);
	/* a trailing byte carries tupleIsAlive; it cannot affect the order */
	VARDATA(datum)[len] = alive ? 1 : 0;
	tuplesort_putdatum(bs->sort, PointerGetDatum(datum), false);
	pfree(datum);
}

static void
begin_datum_sort(BuildState *bs)
{
	bs->sort = tuplesort_begin_datum(BYTEAOID, ByteaLessOperator,
									 InvalidOid, false,
									 bs->sortmem, NULL, TUPLESORT_NONE);
}

/*
 * Count bytes (freed: negative) against what the build's sorts in memory
 * may take: this participant's share of maintenance_work_mem, or in a
 * parallel build all of it, for all participants together.  A parallel
 * heap scan hands out blocks as participants ask, so their shares of the
 * rows are uneven; the leader, starting first, often takes over 40% of
 * them, and with a fixed third of the memory it would spill the lot into
 * a tuplesort (and then not split the load) while its workers' memory
 * stood unused.
 */
static void
memsort_charge(BuildState *bs, int64 bytes)
{
	bs->memsort->used += bytes;
	if (bs->sort_mem_used)
		pg_atomic_fetch_add_u64(bs->sort_mem_used, bytes);
}

/* bytes left to the sorts in memory (see memsort_charge); may be < 0 */
static int64
memsort_room(BuildState *bs)
{
	if (bs->sort_mem_used)
		return (int64) maintenance_work_mem * 1024 -
			(int64) pg_atomic_read_u64(bs->sort_mem_used);
	return (int64) bs->sortmem * 1024 - (int64) bs->memsort->used;
}

static void
memsort_end(BuildState *bs)
{
	memsort_charge(bs, -(int64) bs->memsort->used);
	MemoryContextDelete(bs->memsort->cxt);
	pfree(bs->memsort);
	bs->memsort = NULL;
}

static void
memsort_begin(BuildState *bs, int participants)
{
	MemSort    *ms = palloc0(sizeof(MemSort));

	ms->cxt = AllocSetContextCreate(CurrentMemoryContext,
									"pagebtree build sort",
									ALLOCSET_DEFAULT_SIZES);
	/* sized for this participant's share of the heap's estimate */
	ms->cap = Max(1024, Min(bs->heap->rd_rel->reltuples / participants,
							(double) bs->sortmem * 1024 / sizeof(MemSortEntry)));
	ms->entries = MemoryContextAllocHuge(ms->cxt, ms->cap * sizeof(MemSortEntry));
	ms->participants = bs->sort_mem_used ? participants : 1;
	bs->memsort = ms;
	memsort_charge(bs, ms->cap * sizeof(MemSortEntry));
}

/* Past the memory allowed: everything so far into a tuplesort. */
static void
memsort_spill(BuildState *bs)
{
	MemSort    *ms = bs->memsort;

	begin_datum_sort(bs);
	for (int64 i = 0; i < ms->n; i++)
		sort_put_item(bs, memsort_item(&ms->entries[i]), ms->entries[i].len,
					  ms->entries[i].alive);
	memsort_end(bs);
}

/*
 * A new block for the items that are not inline.  The load reads them in
 * sorted order, scattered over the blocks, so that with 4 kB pages nearly
 * every one costs a TLB miss: half of the load's time in a profile of a
 * 10M-row text build (a virtual machine's nested page walks).  So blocks
 * are an eighth of this participant's memory (1 to 16 MB), and the 2 MB
 * extents inside each are given to Linux's transparent huge pages (when it
 * has them in "madvise" mode).
 */
static void
memsort_new_block(BuildState *bs, MemSort *ms)
{
	Size		size = Min(Max((Size) bs->sortmem * 1024 / 8, MEMSORT_BLOCK_SIZE),
						   MEMSORT_MAX_BLOCK_SIZE);

	ms->arena = MemoryContextAlloc(ms->cxt, size);
	ms->arena_left = size;
	memsort_charge(bs, size);
#ifdef MADV_HUGEPAGE
	{
		char	   *first = (char *) TYPEALIGN(MEMSORT_HUGE_PAGE_SIZE, ms->arena);
		char	   *last = (char *) TYPEALIGN_DOWN(MEMSORT_HUGE_PAGE_SIZE,
												   ms->arena + size);

		if (first < last)
			(void) madvise(first, last - first, MADV_HUGEPAGE);
	}
#endif
}

static void
memsort_add(BuildState *bs, const char *item, int len, bool alive)
{
	MemSort    *ms = bs->memsort;
	MemSortEntry *e;

	if (ms->n == ms->cap)
	{
		/*
		 * Grow by this participant's part of what the memory left can hold,
		 * at most double: one that scans more than its share of the estimate
		 * must not make itself or another (see memsort_charge) spill for
		 * slots it will never fill.
		 */
		Size		per_entry = sizeof(MemSortEntry) + ms->arena_used / ms->n;
		int64		room = Max(memsort_room(bs), 0) / per_entry / ms->participants;
		int64		more = Max(Min(ms->cap, room), 1024);

		ms->entries = repalloc_huge(ms->entries, (ms->cap + more) * sizeof(MemSortEntry));
		memsort_charge(bs, more * sizeof(MemSortEntry));
		ms->cap += more;
	}
	e = &ms->entries[ms->n++];
	e->len = len;
	e->alive = alive;
	e->abbrev = memsort_abbrev(item, len);
	if (len <= MEMSORT_INLINE_MAX)
		memcpy(e->item.bytes, item, len);
	else
	{
		if ((Size) len > ms->arena_left)
			memsort_new_block(bs, ms);
		e->item.ptr = ms->arena;
		memcpy(ms->arena, item, len);
		ms->arena += len;
		ms->arena_left -= len;
		ms->arena_used += len;
	}
	if (memsort_room(bs) < 0)
		memsort_spill(bs);
}

static void
build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
			   bool tupleIsAlive, void *state)
{
	BuildState *bs = (BuildState *) state;
	PbtState   *st = bs->st;

	if (st->normalized)
	{
		pbt_form_leaf_item(st, values, isnull, tid, &bs->item);
		pbt_check_item_size(index, bs->heap, st, tid, bs->item.len);
		bs->leaf_bytes += sizeof(PbtSlot) + bs->item.len;
		if (bs->memsort)
			memsort_add(bs, bs->item.data, bs->item.len, tupleIsAlive);
		else
			sort_put_item(bs, bs->item.data, bs->item.len, tupleIsAlive);
	}
	else
	{
		TupleTableSlot *slot = bs->slot;

		ExecClearTuple(slot);
		memcpy(slot->tts_values, values, sizeof(Datum) * st->natts);
		memcpy(slot->tts_isnull, isnull, sizeof(bool) * st->natts);
		slot->tts_values[st->natts] = PointerGetDatum(tid);
		slot->tts_isnull[st->natts] = false;
		slot->tts_values[st->natts + 1] = BoolGetDatum(tupleIsAlive);
		slot->tts_isnull[st->natts + 1] = false;
		ExecStoreVirtualTuple(slot);
		tuplesort_puttupleslot(bs->sort, slot);
		/* the leaf-size estimate (delta area) from every 16th entry */
		if ((int64) bs->indtuples % 16 == 0)
			bs->leaf_bytes += 16 * (sizeof(PbtSlot) + sizeof(ItemPointerData) +
									MAXALIGN(heap_compute_data_size(st->tupdesc, values, isnull)));
	}
	bs->indtuples += 1;
}

/*
 * tuplesort orders by the comparison function of an operator family that
 * holds the ordering operator (a btree one before 18), not by the index's
 * own: the build would fail cryptically if no such family holds it, and
 * write keys out of order if the one tuplesort picks compares with another
 * function.  The lookup is the one tuplesort makes.
 */
static void
check_sort_family(Relation index, int col, Oid sortop)
{
	Oid			btfamily;
	Oid			opcintype;

	if (!pbt_ordering_op_family(sortop, &btfamily, &opcintype))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot build index \"%s\": operator %s of column %d belongs to no btree operator family",
						RelationGetRelationName(index),
						format_operator_qualified(sortop), col + 1),
				 errhint("Create the operator class for btree too: the build sorts through btree's.")));
	if (get_opfamily_proc(btfamily, opcintype, opcintype, BTORDER_PROC) !=
		index_getprocid(index, col + 1, 1))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot build index \"%s\": the btree operator family that holds operator %s of column %d has another comparison function",
						RelationGetRelationName(index),
						format_operator_qualified(sortop), col + 1),
				 errhint("Give the btree and pagebtree operator classes the same comparison function.")));
}

static void
begin_sort(BuildState *bs, int participants, SortCoordinate coordinate)
{
	PbtState   *st = bs->st;
	Relation	index = bs->index;
	AttrNumber	attnums[INDEX_MAX_KEYS + 1];
	Oid			sortops[INDEX_MAX_KEYS + 1];
	Oid			colls[INDEX_MAX_KEYS + 1];
	bool		nullsfirst[INDEX_MAX_KEYS + 1];
	int			n = st->nkeyatts;

	if (st->normalized)
	{
		memsort_begin(bs, participants);
		return;
	}

	/* a parallel build's leader begins a second sort, to merge */
	if (bs->sortdesc == NULL)
	{
		bs->sortdesc = CreateTemplateTupleDesc(st->natts + 2);
		for (int i = 0; i < st->natts; i++)
			TupleDescCopyEntry(bs->sortdesc, i + 1, st->tupdesc, i + 1);
		TupleDescInitEntry(bs->sortdesc, st->natts + 1, "tid", TIDOID, -1, 0);
		TupleDescInitEntry(bs->sortdesc, st->natts + 2, "alive", BOOLOID, -1, 0);
		bs->slot = MakeSingleTupleTableSlot(bs->sortdesc, &TTSOpsVirtual);
		bs->sortedslot = MakeSingleTupleTableSlot(bs->sortdesc, &TTSOpsMinimalTuple);
	}

	for (int i = 0; i < n; i++)
	{
		PbtColumn  *col = &st->cols[i];

		attnums[i] = i + 1;
		sortops[i] = get_opfamily_member(index->rd_opfamily[i], col->typid,
										 col->typid,
										 col->desc ? BTGreaterStrategyNumber :
										 BTLessStrategyNumber);
		if (!OidIsValid(sortops[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family of column %d of index \"%s\" has no ordering operator for type %s",
							i + 1, RelationGetRelationName(index),
							format_type_be(col->typid))));
		check_sort_family(index, i, sortops[i]);
		colls[i] = col->collation;
		nullsfirst[i] = col->nulls_first;
	}
	attnums[n] = st->natts + 1;
	sortops[n] = TIDLessOperator;
	colls[n] = InvalidOid;
	nullsfirst[n] = false;
	bs->sort = tuplesort_begin_heap(bs->sortdesc, n + 1, attnums, sortops,
									colls, nullsfirst, bs->sortmem,
									coordinate, TUPLESORT_NONE);
}

static void
perform_sort(BuildState *bs)
{
	if (bs->memsort)
		memsort_entries(bs->memsort->entries, bs->memsort->n);
	else
		tuplesort_performsort(bs->sort);
}

static void
end_sort(BuildState *bs)
{
	if (bs->memsort)
		memsort_end(bs);
	else
		tuplesort_end(bs->sort);
	if (bs->slot)
	{
		ExecDropSingleTupleTableSlot(bs->slot);
		ExecDropSingleTupleTableSlot(bs->sortedslot);
	}
}

/* The next item of this backend's own sort; false at the end. */
static bool
sort_next(BuildState *bs, const char **item, int *len, bool *alive)
{
	PbtState   *st = bs->st;

	if (bs->memsort)
	{
		MemSort    *ms = bs->memsort;

		if (ms->next == ms->n)
			return false;
		/* long items lie in heap order: fetch ahead of the sorted walk */
		if (ms->next + MEMSORT_PREFETCH_DISTANCE < ms->n)
			pbt_prefetch_mem(memsort_item(&ms->entries[ms->next + MEMSORT_PREFETCH_DISTANCE]));
		*item = memsort_item(&ms->entries[ms->next]);
		*len = ms->entries[ms->next].len;
		*alive = ms->entries[ms->next].alive;
		ms->next++;
		return true;
	}
	if (st->normalized)
	{
		Datum		d;
		bool		isnull;
		bytea	   *b;

		if (!pbt_tuplesort_getdatum(bs->sort, true, &d, &isnull))
			return false;
		b = DatumGetByteaPP(d);
		resetStringInfo(&bs->item);
		appendBinaryStringInfo(&bs->item, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b) - 1);
		*alive = VARDATA_ANY(b)[VARSIZE_ANY_EXHDR(b) - 1] != 0;
		pfree(DatumGetPointer(d));
	}
	else
	{
		TupleTableSlot *slot = bs->sortedslot;
		ItemPointer tid;

		if (!tuplesort_gettupleslot(bs->sort, true, false, slot, NULL))
			return false;
		slot_getallattrs(slot);
		tid = (ItemPointer) DatumGetPointer(slot->tts_values[st->natts]);
		pbt_form_leaf_item(st, slot->tts_values, slot->tts_isnull, tid, &bs->item);
		pbt_check_item_size(bs->index, bs->heap, bs->st, tid, bs->item.len);
		*alive = DatumGetBool(slot->tts_values[st->natts + 1]);
	}
	*item = bs->item.data;
	*len = bs->item.len;
	return true;
}

static void run_advance(BuildState *bs, SortedRun *run);
static bool before_split(BuildState *bs, SortedRun *run);

/*
 * The next sorted leaf item into bs->cur; false at the end.  A parallel
 * build's leader merges the runs: the smallest current item is next.  Its
 * run moves on only at the next call, so that bs->cur stays valid.
 */
static bool
next_sorted_item(BuildState *bs)
{
	SortedRun  *best = NULL;

	if (bs->runs == NULL)
		return sort_next(bs, &bs->cur, &bs->curlen, &bs->item_alive);
	if (bs->last_run)
		run_advance(bs, bs->last_run);
	for (int i = 0; i < bs->nruns; i++)
	{
		SortedRun  *run = &bs->runs[i];

		if (run->cur == NULL)
			continue;
		if (best == NULL || run->abbrev < best->abbrev ||
			(run->abbrev == best->abbrev &&
			 pbt_bytes_cmp(run->cur, run->curlen, best->cur, best->curlen) < 0))
			best = run;
	}
	bs->last_run = best;
	if (best == NULL)
		return false;
	bs->cur = best->cur;
	bs->curlen = best->curlen;
	bs->item_alive = best->alive;
	return true;
}

/*
 * CREATE UNIQUE INDEX: live entries arrive in key order, so a duplicate is
 * always next to its twin.  Entries of dead tuples take no part.
 */
static void
check_unique_sorted(BuildState *bs)
{
	PbtState   *st = bs->st;
	bool		nulls_distinct = !bs->index->rd_index->indnullsnotdistinct;

	if (!bs->item_alive ||
		(nulls_distinct && pbt_item_has_null_key(st, bs->cur, bs->curlen)))
		return;
	if (bs->has_prev &&
		pbt_items_keys_equal(st, bs->prev.data, bs->prev.len,
							 bs->cur, bs->curlen))
	{
		Datum		values[INDEX_MAX_KEYS];
		bool		isnull[INDEX_MAX_KEYS];
		char	   *desc;

		pbt_decode_item(st, bs->cur, bs->curlen, values, isnull);
		desc = BuildIndexValueDescription(bs->index, values, isnull);
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("could not create unique index \"%s\"",
						RelationGetRelationName(bs->index)),
				 desc ? errdetail("Key %s is duplicated.", desc) :
				 errdetail("Duplicate keys exist."),
				 errtableconstraint(bs->heap, RelationGetRelationName(bs->index))));
	}
	resetStringInfo(&bs->prev);
	appendBinaryStringInfo(&bs->prev, bs->cur, bs->curlen);
	bs->has_prev = true;
}

static void
init_level_page(BuildState *bs, Page page, uint16 level)
{
	pbt_page_init(page, level, bs->pageflags | (level == 0 ? PBT_LEAF : 0),
				  level == 0 ? bs->st->leaf_layout : bs->st->inner_layout, bs->st);
}

/*
 * The exclusively locked subnode pos of the group of a group build that
 * starts at gstart (pos 0: a new group), made a leaf in use.  The group's
 * blocks were initialized as holes when it was allocated; a new one is not
 * logged, since the build logs every page at its end.
 */
static Buffer
group_leaf(BuildState *bs, BlockNumber gstart, int pos)
{
	Buffer		buf;
	Page		page;

	Assert(bs->group_size >= 2 && pos < bs->group_size);
	if (pos == 0)
		buf = pbt_new_group(bs->index, bs->st, bs->group_size, 1, false);
	else
	{
		buf = ReadBuffer(bs->index, pbt_group_block(bs->st->delta_group, gstart, pos));
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	}
	page = BufferGetPage(buf);
	pbt_init_subnode(page, bs->st, pos, bs->group_size, 1);
	PbtPageGetOpaque(page)->flags &= ~PBT_HOLE;
	return buf;
}

static LevelBuilder *
new_level(BuildState *bs, uint16 level)
{
	LevelBuilder *lb = palloc0(sizeof(LevelBuilder));

	lb->level = level;
	if (level == 0 && bs->group_size > 0)
	{
		lb->buf = group_leaf(bs, InvalidBlockNumber, 0);
		lb->gstart = BufferGetBlockNumber(lb->buf);
		lb->gpos = 0;
	}
	else if (bs->leaves_file != NULL)
	{
		Assert(level == 0);
		lb->buf = InvalidBuffer;
		lb->page = palloc(BLCKSZ);
		lb->blkno = 0;
		init_level_page(bs, lb->page, level);
	}
	else
	{
		lb->buf = pbt_new_page(bs->index);
		init_level_page(bs, BufferGetPage(lb->buf), level);
	}
	if (BufferIsValid(lb->buf))
	{
		lb->page = BufferGetPage(lb->buf);
		lb->blkno = BufferGetBlockNumber(lb->buf);
	}
	initStringInfo(&lb->first);
	return lb;
}

static int
used_space(Page page)
{
	PageHeader	hdr = (PageHeader) page;

	return (hdr->pd_lower - SizeOfPageHeaderData) + (hdr->pd_special - hdr->pd_upper);
}

static void add_to_level(BuildState *bs, LevelBuilder *lb, const char *item, int len);
static void hand_over_page(BuildState *bs, BlockNumber blkno);
static int	build_format(Relation index, PbtState *st, bool notice);

/*
 * Could the leaf being filled store keys once (a posting or lists leaf):
 * does its last key repeat, in the item after it (next, if not NULL) or in
 * the item before it?  A cheap test, so that leaves of distinct keys are
 * not measured in those layouts; pbt_choose_leaf_layout decides.
 */
static bool
dedup_candidate(PbtState *st, Page page, PbtItem *next)
{
	const PbtLayout *layout = pbt_layout(page);
	int			n = layout->count(page);
	PbtItem		last;
	PbtItem		before;
	PbtItemBuf	lastbuf;
	PbtItemBuf	beforebuf;

	if (!st->posting || n == 0)
		return false;
	layout->get(page, n - 1, &last, &lastbuf);
	if (next && pbt_items_same_key(last.data, last.len, next->data, next->len))
		return true;
	if (n < 2)
		return false;
	layout->get(page, n - 2, &before, &beforebuf);
	return pbt_items_same_key(last.data, last.len, before.data, before.len);
}

/*
 * A leaf is done: its layout may rearrange it (BPA makes room for flushes),
 * and key-adaption sets its counter.
 */
static void
finish_leaf(PbtState *st, Page page)
{
	const PbtLayout *layout = pbt_layout(page);

	if (layout->finish_build)
		layout->finish_build(page);
	pbt_adapt_leaf(st, page, PBT_OPS_OFF, NULL, 0, NULL);
}

/*
 * Rebuild the current leaf in the layout the policy chooses for its items
 * with more (if not NULL) and the high key (NULL: none yet), the same rule
 * as for split halves, if that is another layout (the index's rebuilt
 * layout: dense, semidense).  more goes on the page too: a window is
 * planned for the items it is loaded with.  Returns whether the page was
 * rebuilt.
 */
static bool
rebuild_leaf(BuildState *bs, LevelBuilder *lb, PbtItem *more, PbtItem *hikey)
{
	Page		page = lb->page;
	int			n = pbt_layout(page)->count(page);
	PbtItem    *items = pbt_page_copy_items(page, n);
	int			total = n;
	bool		rebuild;
	uint8		tag;

	if (more)
		items[total++] = *more;
	tag = pbt_choose_leaf_layout(bs->st, items, total, hikey, false);
	rebuild = tag != PbtPageGetOpaque(page)->layout;
	if (rebuild)
		pbt_page_rebuild_as(page, tag, bs->st, items, total, hikey);
	pbt_free_items(items, n);
	return rebuild;
}

/*
 * The group of a group build that lb's current leaf (page, still locked)
 * ends is complete: write its hints into its downlink, which is the last
 * item of the level above so far.
 */
static void
finish_group(BuildState *bs, LevelBuilder *lb, Page page)
{
	Buffer		bufs[PBT_MAX_GROUP_SIZE];
	Page		pages[PBT_MAX_GROUP_SIZE];
	char		hints[PBT_GROUP_HINT_MAX_BYTES];
	Page		ppage = lb->parent->page;
	int			pos = pbt_layout(ppage)->count(ppage) - 1;

	if (PBT_GROUP_HINT_BYTES(bs->st) == 0)
		return;
	for (int i = 0; i < lb->gpos; i++)
	{
		bufs[i] = ReadBuffer(bs->index,
							 pbt_group_block(bs->st->delta_group, lb->gstart, i));
		LockBuffer(bufs[i], BUFFER_LOCK_SHARE);
		pages[i] = BufferGetPage(bufs[i]);
	}
	pages[lb->gpos] = page;
	pbt_group_make_hints(bs->st, pages, lb->gpos + 1, 1, hints);
	for (int i = 0; i < lb->gpos; i++)
		UnlockReleaseBuffer(bufs[i]);
	Assert(pbt_page_child(ppage, pos) == lb->gstart);
	memcpy(pbt_layout(ppage)->downlink(ppage, pos) + sizeof(BlockNumber),
		   hints, PBT_GROUP_HINT_BYTES(bs->st));
}

/* Add downlink (child, key) to the level above lb, creating it if needed. */
static void
add_downlink(BuildState *bs, LevelBuilder *lb, BlockNumber child,
			 const char *key, int keylen)
{
	int			dl = PBT_DOWNLINK_SIZE(bs->st);
	char	   *item = palloc0(dl + keylen);

	memcpy(item, &child, sizeof(BlockNumber));
	if (keylen > 0)
		memcpy(item + dl, key, keylen);
	if (lb->parent == NULL)
		lb->parent = new_level(bs, lb->level + 1);
	add_to_level(bs, lb->parent, item, dl + keylen);
	pfree(item);
}

/* The layout lb's leaves may be rebuilt in (dense, semidense), if any */
static const PbtLayout *
rebuilt_layout(BuildState *bs, LevelBuilder *lb)
{
	return lb->level == 0 && bs->st->rebuilt_layout != 0 ?
		pbt_layout_by_tag(bs->st->rebuilt_layout) : NULL;
}

/*
 * lb's current page is finished: out of the shared buffers it was locked in
 * (to worker 0, to be logged, in a parallel build), or into a split load's
 * file in its worker.
 */
static void
release_level_page(BuildState *bs, LevelBuilder *lb)
{
	PBT_CHECK_PAGE(bs->index, lb->page, lb->blkno);
	if (bs->leaves_file != NULL)
	{
		BufFileWrite(bs->leaves_file, lb->page, BLCKSZ);
		pfree(lb->page);
		return;
	}
	MarkBufferDirty(lb->buf);
	UnlockReleaseBuffer(lb->buf);
	if (bs->leader)
		hand_over_page(bs, lb->blkno);
}

/*
 * The load keeps the current page of every level locked, which holds
 * interrupts off: let a cancel in every so often.  No other backend uses
 * the pages meanwhile, and none writes them out: they stay pinned, and
 * are marked dirty only when finished (release_level_page).
 */
static void
load_interrupt_point(LevelBuilder *lb)
{
	for (LevelBuilder *l = lb; l != NULL; l = l->parent)
		if (BufferIsValid(l->buf))
			LockBuffer(l->buf, BUFFER_LOCK_UNLOCK);
	CHECK_FOR_INTERRUPTS();
	for (LevelBuilder *l = lb; l != NULL; l = l->parent)
		if (BufferIsValid(l->buf))
			LockBuffer(l->buf, BUFFER_LOCK_EXCLUSIVE);
}

/*
 * Set the high key of a finished page.  The room check in add_to_level
 * may have counted garbage that the layout left (a heads prefix rewrite,
 * say), which pbt_page_alloc cannot use: squeeze it out then.
 */
static void
set_hikey(Page page, PbtItem *hikey)
{
	int			n;
	PbtItem    *items;

	if (pbt_page_set_hikey(page, hikey->data, hikey->len))
		return;
	n = pbt_layout(page)->count(page);
	items = pbt_page_copy_items(page, n);
	pbt_page_rebuild(page, items, n, hikey);
	pbt_free_items(items, n);
}

/*
 * The high key of lb's current page if item (len bytes) is the next one of
 * its level: the separator between the page's last item and it (a leaf), or
 * its key (an inner page).
 */
static void
level_hikey(BuildState *bs, LevelBuilder *lb, const char *item, int len,
			StringInfo sep)
{
	Page		page = lb->page;
	PbtItem		lastleft;
	PbtItemBuf	lastbuf;
	PbtItem		firstright = {item, len};

	if (lb->level == 0)
	{
		pbt_layout(page)->get(page, pbt_layout(page)->count(page) - 1,
							  &lastleft, &lastbuf);
		pbt_separator(bs->st, &lastleft, &firstright, sep);
	}
	else
		appendBinaryStringInfo(sep, item + PBT_DOWNLINK_SIZE(bs->st),
							   len - PBT_DOWNLINK_SIZE(bs->st));
}

/*
 * lb's current page is full before item (the next item of its level, or at
 * the seam of a split load the worker's first item): give it its high key,
 * finish it, start the next page and release this one.
 */
static void
next_level_page(BuildState *bs, LevelBuilder *lb, const char *item, int len)
{
	PbtState   *st = bs->st;
	Page		page = lb->page;
	const PbtLayout *layout = pbt_layout(page);
	int			n PG_USED_FOR_ASSERTS_ONLY = layout->count(page);
	bool		leaf = lb->level == 0;
	const PbtLayout *rebuilt = rebuilt_layout(bs, lb);
	bool		runs = rebuilt != NULL && rebuilt->run_span != NULL;
	StringInfoData sep;
	PbtItem		firstright = {item, len};
	PbtItem		hikey;
	Buffer		nbuf = InvalidBuffer;
	Page		npage;
	BlockNumber nblk;
	BlockNumber blk = lb->blkno;
	/* a group build's next leaf: the next subnode, or a new group */
	bool		grouped = leaf && bs->group_size > 0;
	int			npos = grouped ? (lb->gpos + 1) % bs->group_size : 0;
	/* a split load's worker: its leaves go to a file, without downlinks */
	bool		to_file = bs->leaves_file != NULL;

	initStringInfo(&sep);
	Assert(n > 0);
	level_hikey(bs, lb, item, len, &sep);
	hikey.data = sep.data;
	hikey.len = sep.len;

	/*
	 * A finished leaf-layout page whose items qualify is rebuilt in the
	 * rebuilt layout with its high key; a page of that layout kept room for
	 * a high key as long as an item, which the separator is not longer
	 * than.
	 */
	if (!(!(layout->flags & PBT_LF_REBUILT) &&
		  ((rebuilt && (!runs || lb->run_span > 0)) ||
		   (leaf && dedup_candidate(st, page, &firstright))) &&
		  rebuild_leaf(bs, lb, NULL, &hikey)))
		set_hikey(page, &hikey);
	if (leaf)
		finish_leaf(st, page);

	if (grouped)
	{
		nbuf = group_leaf(bs, lb->gstart, npos);
		npage = BufferGetPage(nbuf);
		if (npos > 0)
			pbt_group_mark_key_start(st, npage, sep.data, sep.len, &firstright);
	}
	else if (to_file)
	{
		npage = palloc(BLCKSZ);
		init_level_page(bs, npage, lb->level);
	}
	else
	{
		nbuf = pbt_new_page(bs->index);
		npage = BufferGetPage(nbuf);
		init_level_page(bs, npage, lb->level);
	}
	nblk = to_file ? blk + 1 : BufferGetBlockNumber(nbuf);
	PbtPageGetOpaque(npage)->prev = blk;
	PbtPageGetOpaque(page)->next = nblk;

	/*
	 * The first page of a level is reached through a -inf downlink; of a
	 * group's leaves, only the first has a downlink.
	 */
	if (lb->parent == NULL && npos == 0 && !to_file)
		add_downlink(bs, lb, grouped ? lb->gstart : blk, NULL, 0);
	if (grouped && npos == 0)
		finish_group(bs, lb, page);
	release_level_page(bs, lb);
	lb->buf = nbuf;
	lb->page = npage;
	lb->blkno = nblk;
	if (grouped)
	{
		lb->gpos = npos;
		if (npos == 0)
			lb->gstart = nblk;
	}
	if (npos == 0 && !to_file)
		add_downlink(bs, lb, nblk, sep.data, sep.len);
	pfree(sep.data);
}

/*
 * Would lb's current page, whose room check kept space for a high key as
 * long as its last item, take the high key that item makes?
 */
static bool
hikey_fits(BuildState *bs, LevelBuilder *lb, const char *item, int len)
{
	Page		page = lb->page;
	const PbtLayout *layout = pbt_layout(page);
	PbtItem		last;
	PbtItemBuf	lastbuf;
	StringInfoData sep;
	bool		fits;

	layout->get(page, layout->count(page) - 1, &last, &lastbuf);
	initStringInfo(&sep);
	level_hikey(bs, lb, item, len, &sep);
	fits = sep.len <= last.len ||
		pbt_page_has_room(page, MAXALIGN(sep.len) + sizeof(PbtSlot));
	pfree(sep.data);
	return fits;
}

static void
add_to_level(BuildState *bs, LevelBuilder *lb, const char *item, int len)
{
	PbtState   *st = bs->st;
	Page		page = lb->page;
	const PbtLayout *layout = pbt_layout(page);
	int			n = layout->count(page);
	bool		leaf = lb->level == 0;
	const PbtLayout *rebuilt = rebuilt_layout(bs, lb);
	bool		runs = rebuilt != NULL && rebuilt->run_span != NULL;
	bool		placed = false;
	int			fill = leaf ? st->fillfactor : PBT_INNER_FILLFACTOR;
	int			dl = leaf ? 0 : PBT_DOWNLINK_SIZE(st);
	int			span = 0;
	bool		full;

	/*
	 * Rebuilt leaves.  The page starts in the leaf layout and is filled as
	 * usual; when that layout is full but its items and this one could make
	 * a page of the rebuilt layout (and, by default, would take fewer bytes
	 * that way), it is rebuilt so, and then filled while the next item goes
	 * on.  A page that is finished in the leaf layout is rebuilt if split
	 * halves with the same items would be.
	 *
	 * A layout filled by runs (dense): while the page's items (and this
	 * one) could share a page of it within fillfactor of its capacity, span
	 * is the number of tails they cover, and the page is filled until the
	 * next item no longer fits the run.  The others (semidense) are filled
	 * while items take empty slots of their window, within fillfactor.
	 */
	if (runs && n > 0 && lb->run_span > 0)
	{
		span = rebuilt->run_span(lb->first.data, lb->first.len, item, len);
		/* an equal tail is the same key with another TID: not a run */
		if (span <= lb->run_span || span > lb->run_limit)
			span = 0;
	}

	if ((layout->flags & PBT_LF_REBUILT) && layout->run_span)
		full = span == 0;
	else
	{
		int			cost = layout->item_cost(page, item, len);
		PbtItem		more = {item, len};

		/*
		 * room for the item, and later for a high key no longer than it
		 * (pbt_page_alloc keeps a slot's bytes free)
		 */
		full = n > 0 &&
			(used_space(page) + cost > PBT_USABLE_SPACE * fill / 100 ||
			 !pbt_page_has_room(page, cost + MAXALIGN(len) + sizeof(PbtSlot)));

		if (layout->flags & PBT_LF_REBUILT)
			full = full || !layout->takes(page, item, len);
		else if (full && ((rebuilt && (!runs || span > 0)) ||
						  (leaf && dedup_candidate(st, page, &more))))
		{
			if (rebuild_leaf(bs, lb, &more, NULL))
			{
				layout = pbt_layout(page);
				full = false;
				placed = true;
			}
		}
	}

	/*
	 * The room check kept space for a high key as long as the page's last
	 * item, which a leaf's separator with normalized keys is not longer
	 * than; but in comparator mode it is the whole key of the next item, and
	 * on an inner page the next downlink's key.  If that does not fit, the
	 * last item moves on to the next page with this one, as in nbtree's
	 * build: the high key it makes is no longer than it.
	 */
	if (full && n >= 2 && !runs && !(layout->flags & PBT_LF_REBUILT) &&
		(!leaf || !st->normalized) && !hikey_fits(bs, lb, item, len))
	{
		PbtItem		last;
		PbtItemBuf	lastbuf;
		char	   *moved;
		int			movedlen;

		layout->get(page, n - 1, &last, &lastbuf);
		moved = memcpy(palloc(last.len), last.data, last.len);
		movedlen = last.len;
		layout->truncate(page, n - 1);
		next_level_page(bs, lb, moved, movedlen);
		/* (the first key of an inner page is -inf) */
		if (!pbt_layout(lb->page)->insert(lb->page, 0, moved, leaf ? movedlen : dl))
			elog(ERROR, "pagebtree build: item does not fit on an empty page");
		pfree(moved);
		add_to_level(bs, lb, item, len);
		return;
	}
	if (full)
	{
		next_level_page(bs, lb, item, len);
		page = lb->page;
		/* on an inner page the first key is -inf: keep just the downlink */
		if (!leaf)
			len = dl;
		n = 0;
		layout = pbt_layout(page);
	}
	if (!placed && !layout->insert(page, n, item, len))
		elog(ERROR, "pagebtree build: item does not fit on an empty page");

	if (runs && n == 0)
	{
		resetStringInfo(&lb->first);
		appendBinaryStringInfo(&lb->first, item, len);
		lb->run_span = rebuilt->run_span(item, len, item, len);
		if (lb->run_span > 0)
			lb->run_limit = Max(1, rebuilt->run_capacity(item, len) * fill / 100);
	}
	else if (runs)
		lb->run_span = span;
}

/* Write out the rightmost pages; returns the root. */
static BlockNumber
finish_levels(BuildState *bs, uint32 *rootlevel)
{
	LevelBuilder *lb = bs->leaf;

	for (;;)
	{
		BlockNumber blk = lb->blkno;
		Page		page = lb->page;
		LevelBuilder *parent = lb->parent;

		if (lb->level == 0)
		{
			const PbtLayout *rebuilt = rebuilt_layout(bs, lb);

			/* the last leaf, rebuilt by the same rule as the others */
			if (!(pbt_layout(page)->flags & PBT_LF_REBUILT) &&
				((rebuilt && (rebuilt->run_span == NULL || lb->run_span > 0)) ||
				 dedup_candidate(bs->st, page, NULL)))
				rebuild_leaf(bs, lb, NULL, NULL);
			finish_leaf(bs->st, page);

			/*
			 * A group index never has a leaf root: the leaves of a single
			 * group get a level-1 root over it.
			 */
			if (bs->group_size > 0 && parent == NULL)
			{
				add_downlink(bs, lb, lb->gstart, NULL, 0);
				parent = lb->parent;
			}
			if (bs->group_size > 0)
				finish_group(bs, lb, page);
		}
		if (parent == NULL)
		{
			PbtPageGetOpaque(page)->flags |= PBT_ROOT;
			*rootlevel = lb->level;
		}
		release_level_page(bs, lb);
		if (parent == NULL)
			return blk;
		lb = parent;
	}
}

static void
write_metapage(Relation index, PbtState *st, BlockNumber root, uint32 level)
{
	Buffer		buf = ReadBuffer(index, PBT_METAPAGE_BLKNO);
	PbtMetaPageData *meta;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	meta = PbtPageGetMeta(BufferGetPage(buf));
	meta->root = root;
	meta->level = level;
	meta->delta_group = st->delta_group;
	meta->group_size = st->group_size;
	meta->group_hint_bits = st->group_hint_bits;
	MarkBufferDirty(buf);
	UnlockReleaseBuffer(buf);
}

/* A forced layout this index cannot use is ignored: say so at every build. */
static void
check_layout_option(Relation index, PbtState *st)
{
	PbtOptions *opts = (PbtOptions *) index->rd_options;
	const char *conflict = opts ? pbt_layout_option_conflict(st, opts->layout) : NULL;

	if (conflict)
		ereport(NOTICE,
				(errmsg("layout \"%s\" does not apply to index \"%s\", whose leaves use layout \"%s\"",
						pbt_layout_option_name(opts->layout),
						RelationGetRelationName(index),
						pbt_layout_by_tag(st->leaf_layout)->name),
				 errdetail("%s", conflict)));
}

/* ----------------------------------------------------------------
 * Parallel build
 *
 * As nbtree's: the leader and its workers each scan part of the heap
 * through a parallel table scan and sort what they see with their share
 * of maintenance_work_mem.  A worker writes its sorted run to a file of a
 * shared file set and exits; the leader then merges the runs with its own
 * sort and loads the leaves as a serial build does.  Normalized keys merge
 * by memcmp; comparator-mode entries go through tuplesort's own parallel
 * sort instead (worker sorts whose runs a leader sort merges).
 * ----------------------------------------------------------------
 */
#define PBT_KEY_SHARED			UINT64CONST(0xB7EE000000000001)
#define PBT_KEY_WAL_USAGE		UINT64CONST(0xB7EE000000000002)
#define PBT_KEY_BUFFER_USAGE	UINT64CONST(0xB7EE000000000003)
#define PBT_KEY_QUERY_TEXT		UINT64CONST(0xB7EE000000000004)
#define PBT_KEY_TUPLESORT		UINT64CONST(0xB7EE000000000005)

/* pages handed to worker 0 and not yet logged, at most */
#define PBT_WAL_RING			4096

/* a split load needs the leader's own run to have this many items */
#define PBT_SPLIT_MIN_ITEMS		10000

typedef struct PbtBuildShared
{
	Oid			heaprelid;
	Oid			indexrelid;
	bool		isconcurrent;
	int			participants;	/* planned: the workers asked for + leader */
	SharedFileSet fileset;		/* the workers' runs */
	slock_t		mutex;
	/* the workers' totals, under mutex */
	double		reltuples;
	double		indtuples;
	double		leaf_bytes;
	bool		brokenhotchain;
	int			runs_done;		/* workers whose runs are written */
	pg_atomic_uint64 sort_mem_used; /* see memsort_charge */
	ConditionVariable runs_cv;

	/*
	 * Pages for worker 0 to log, under mutex: blocks [wal_tail, wal_head)
	 * of the ring are handed over and not yet logged.
	 */
	bool		wal_worker;		/* worker 0 logs pages */
	bool		load_done;		/* no more pages come */
	uint64		wal_head;
	uint64		wal_tail;
	ConditionVariable wal_cv;
	BlockNumber wal_ring[PBT_WAL_RING];

	/*
	 * A split load, under mutex: whether worker 1 loads the leaves from
	 * split_item on (decided: the leader has chosen), and once it has, how
	 * many pages it wrote and the dense-run span of its last one.
	 */
	bool		split_decided;
	bool		split;
	int			split_runs;		/* workers' runs for worker 1 to read */
	bool		split_loaded;	/* worker 1 is done: */
	int64		split_pages;
	int			split_run_span;
	ConditionVariable split_cv;
	int			split_len;
	char		split_item[PBT_MAX_ITEM_SIZE];
	/* the parallel table scan follows */
} PbtBuildShared;

#define ParallelTableScanFromShared(shared) \
	((ParallelTableScanDesc) ((char *) (shared) + BUFFERALIGN(sizeof(PbtBuildShared))))

struct PbtBuildLeader
{
	ParallelContext *pcxt;
	PbtBuildShared *shared;
	Sharedsort *sharedsort;		/* comparator mode */
	Snapshot	snapshot;
	WalUsage   *walusage;
	BufferUsage *bufferusage;
};

PGDLLEXPORT void pbt_parallel_build_main(dsm_segment *seg, shm_toc *toc);

/* Was blkno handed to worker 0 to be logged? */
static bool
page_handed(BuildState *bs, BlockNumber blkno)
{
	return blkno / 64 < bs->wal_handed_words &&
		(bs->wal_handed[blkno / 64] & (UINT64CONST(1) << (blkno % 64))) != 0;
}

/*
 * Page blkno, which the leader has just released for good, goes to worker
 * 0 to be logged, if that worker logs pages, the load goes on and the ring
 * has room; else the leader logs it at the end.
 */
static void
hand_over_page(BuildState *bs, BlockNumber blkno)
{
	PbtBuildShared *shared = bs->leader->shared;
	bool		handed = false;
	bool		wake = false;

	if (!shared->wal_worker)
		return;
	SpinLockAcquire(&shared->mutex);
	if (!shared->load_done && shared->wal_head - shared->wal_tail < PBT_WAL_RING)
	{
		shared->wal_ring[shared->wal_head % PBT_WAL_RING] = blkno;
		shared->wal_head++;
		handed = true;
		/* a wakeup per record's worth of pages */
		wake = shared->wal_head % XLR_MAX_BLOCK_ID == 0;
	}
	SpinLockRelease(&shared->mutex);
	if (!handed)
		return;

	if (blkno / 64 >= bs->wal_handed_words)
	{
		BlockNumber words = Max(blkno / 64 + 1, bs->wal_handed_words * 2);
		uint64	   *bits = palloc0(words * sizeof(uint64));

		if (bs->wal_handed)
		{
			memcpy(bits, bs->wal_handed, bs->wal_handed_words * sizeof(uint64));
			pfree(bs->wal_handed);
		}
		bs->wal_handed = bits;
		bs->wal_handed_words = words;
	}
	bs->wal_handed[blkno / 64] |= UINT64CONST(1) << (blkno % 64);
	if (wake)
		ConditionVariableBroadcast(&shared->wal_cv);
}

/* The leader's load is over: worker 0 logs what it has and exits. */
static void
end_handing_over(BuildState *bs)
{
	PbtBuildShared *shared = bs->leader->shared;

	SpinLockAcquire(&shared->mutex);
	shared->load_done = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->wal_cv);
}

/*
 * Worker 0, after its run: log the pages the leader hands over until its
 * load is done, consecutive blocks together (up to a record's worth).
 */
static void
log_handed_pages(PbtBuildShared *shared, Relation index)
{
	for (;;)
	{
		uint64		tail;
		uint64		head;
		bool		done;

		ConditionVariablePrepareToSleep(&shared->wal_cv);
		for (;;)
		{
			SpinLockAcquire(&shared->mutex);
			tail = shared->wal_tail;
			head = shared->wal_head;
			done = shared->load_done;
			SpinLockRelease(&shared->mutex);
			if (head > tail || done)
				break;
			ConditionVariableSleep(&shared->wal_cv,
								   WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
		}
		ConditionVariableCancelSleep();
		if (head == tail)
			return;

		/* the leader writes no slot in [tail, head) until tail moves on */
		while (tail < head)
		{
			BlockNumber start = shared->wal_ring[tail++ % PBT_WAL_RING];
			BlockNumber end = start + 1;

			while (tail < head && end - start < XLR_MAX_BLOCK_ID &&
				   shared->wal_ring[tail % PBT_WAL_RING] == end)
			{
				tail++;
				end++;
			}
			log_newpage_range(index, MAIN_FORKNUM, start, end, true);
			SpinLockAcquire(&shared->mutex);
			shared->wal_tail = tail;
			SpinLockRelease(&shared->mutex);
		}
	}
}

static void
run_file_name(char *name, int worker)
{
	snprintf(name, MAXPGPATH, "pagebtree-run-%d", worker);
}

/*
 * A run in a file is a sequence of [uint16 len][uint8 alive][len bytes],
 * written and read a chunk at a time so that the merge takes items in
 * place.  A chunk holds at least one whole item.
 */
#define RUN_HEADER_SIZE		3
#define RUN_CHUNK_SIZE		(64 * 1024)
StaticAssertDecl(RUN_CHUNK_SIZE >= RUN_HEADER_SIZE + PBT_MAX_ITEM_SIZE,
				 "a run's chunk holds an item");

/* Move run on to its next item (cur = NULL at its end). */
static void
run_advance(BuildState *bs, SortedRun *run)
{
	if (run->file == NULL)
	{
		if (!sort_next(bs, &run->cur, &run->curlen, &run->alive))
			run->cur = NULL;
	}
	else
	{
		int			left = run->chunk_len - run->chunk_pos;
		uint16		len = 0;

		if (left >= RUN_HEADER_SIZE)
			memcpy(&len, run->chunk + run->chunk_pos, sizeof(len));
		/* a partial item at the end of the chunk: move it up, read on */
		if (left < RUN_HEADER_SIZE + len)
		{
			memmove(run->chunk, run->chunk + run->chunk_pos, left);
			run->chunk_len = left + BufFileRead(run->file, run->chunk + left,
												RUN_CHUNK_SIZE - left);
			run->chunk_pos = 0;
			left = run->chunk_len;
		}
		if (left == 0)
			run->cur = NULL;
		else
		{
			char	   *p = run->chunk + run->chunk_pos;

			memcpy(&len, p, sizeof(len));
			if (left < RUN_HEADER_SIZE + len)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not read from temporary file: it ends within an item")));
			run->alive = p[2] != 0;
			run->cur = p + RUN_HEADER_SIZE;
			run->curlen = len;
			run->chunk_pos += RUN_HEADER_SIZE + len;
		}
	}
	if (run->cur)
	{
		run->abbrev = memsort_abbrev(run->cur, run->curlen);
		/* a split load's leader: its own run already ends there */
		if (bs->split_leader && run->file != NULL && !before_split(bs, run))
			run->cur = NULL;
	}
}

/* A worker's sorted items into a file of the set, as a run. */
static void
write_run(BuildState *bs, FileSet *fileset, const char *name)
{
	BufFile    *file = BufFileCreateFileSet(fileset, name);
	char	   *chunk = palloc(RUN_CHUNK_SIZE);
	int			used = 0;
	const char *item;
	int			len;
	bool		alive;
	int64		n = 0;

	while (sort_next(bs, &item, &len, &alive))
	{
		uint16		len16 = len;

		if (used + RUN_HEADER_SIZE + len > RUN_CHUNK_SIZE)
		{
			BufFileWrite(file, chunk, used);
			used = 0;
		}
		memcpy(chunk + used, &len16, sizeof(len16));
		chunk[used + 2] = alive ? 1 : 0;
		memcpy(chunk + used + RUN_HEADER_SIZE, item, len);
		used += RUN_HEADER_SIZE + len;
		if (++n % 1024 == 0)
			CHECK_FOR_INTERRUPTS();
	}
	BufFileWrite(file, chunk, used);
	BufFileClose(file);
	pfree(chunk);
}

/* Does run's current item come before the split load's first item? */
static bool
before_split(BuildState *bs, SortedRun *run)
{
	if (run->abbrev != bs->split_abbrev)
		return run->abbrev < bs->split_abbrev;
	return pbt_bytes_cmp(run->cur, run->curlen, bs->split_item, bs->split_len) < 0;
}

/* Wait on cv until *flag (under the shared mutex) is set. */
static void
wait_for_flag(PbtBuildShared *shared, ConditionVariable *cv, bool *flag)
{
	ConditionVariablePrepareToSleep(cv);
	for (;;)
	{
		bool		set;

		SpinLockAcquire(&shared->mutex);
		set = *flag;
		SpinLockRelease(&shared->mutex);
		if (set)
			break;
		ConditionVariableSleep(cv, WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
	}
	ConditionVariableCancelSleep();
}

/*
 * The leader, its runs and the workers' written: split the load?  Worker 1
 * then loads the leaves from the middle item of the leader's own sorted run
 * on, which it reads with the items after it from a file the leader writes
 * here; the leader loads those before it.  Only for a normalized,
 * non-unique build without groups whose leader sorted in memory (the
 * middle of its run is then a guess at the middle of all).
 */
static void
decide_split(BuildState *bs, int nworkers)
{
	PbtBuildShared *shared = bs->leader->shared;
	MemSort    *ms = bs->memsort;
	bool		eligible = nworkers >= 2 && ms != NULL && !bs->unique &&
		bs->group_size == 0;
	bool		split = eligible && ms->n >= PBT_SPLIT_MIN_ITEMS;

	if (split)
	{
		int64		mid = ms->n / 2;

		shared->split_len = ms->entries[mid].len;
		memcpy(shared->split_item, memsort_item(&ms->entries[mid]),
			   shared->split_len);
		ms->next = mid;
		write_run(bs, &shared->fileset.fs, "pagebtree-run-leader");
		ms->next = 0;
		ms->n = mid;
		bs->split_item = shared->split_item;
		bs->split_len = shared->split_len;
		bs->split_abbrev = memsort_abbrev(bs->split_item, bs->split_len);
		bs->split_leader = true;
		ereport(DEBUG1,
				(errmsg_internal("pagebtree: index \"%s\": a parallel worker loads the leaves from the middle of the leader's %lld items on",
								 RelationGetRelationName(bs->index),
								 (long long) (2 * mid))));
	}
	else if (eligible)
		ereport(DEBUG1,
				(errmsg_internal("pagebtree: index \"%s\": the leader sorted %lld items, too few to split the load",
								 RelationGetRelationName(bs->index),
								 (long long) ms->n)));
	SpinLockAcquire(&shared->mutex);
	shared->split = split;
	shared->split_runs = nworkers;
	shared->split_decided = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->split_cv);
}

/*
 * Worker 1 in a split load: merge the items from the split item on out of
 * every run (the workers' and the leader's upper half), load them into
 * leaves written to a file, and say how many.
 */
static void
load_split_leaves(BuildState *bs, PbtBuildShared *shared)
{
	int64		pages;
	LevelBuilder *lb;

	wait_for_flag(shared, &shared->split_cv, &shared->split_decided);
	if (!shared->split)
		return;

	bs->split_item = shared->split_item;
	bs->split_len = shared->split_len;
	bs->split_abbrev = memsort_abbrev(bs->split_item, bs->split_len);
	bs->nruns = shared->split_runs + 1;
	bs->runs = palloc0(sizeof(SortedRun) * bs->nruns);
	for (int i = 0; i < bs->nruns; i++)
	{
		SortedRun  *run = &bs->runs[i];
		char		name[MAXPGPATH];

		if (i < shared->split_runs)
			run_file_name(name, i);
		else
			strlcpy(name, "pagebtree-run-leader", MAXPGPATH);
		run->file = BufFileOpenFileSet(&shared->fileset.fs, name, O_RDONLY, false);
		run->chunk = palloc(RUN_CHUNK_SIZE);
		do
			run_advance(bs, run);
		while (run->cur && before_split(bs, run));
	}

	bs->leaves_file = BufFileCreateFileSet(&shared->fileset.fs, "pagebtree-leaves");
	lb = new_level(bs, 0);
	for (int64 loaded = 1; next_sorted_item(bs); loaded++)
	{
		add_to_level(bs, lb, bs->cur, bs->curlen);
		if (loaded % 1024 == 0)
			CHECK_FOR_INTERRUPTS();
	}
	/* the last leaf as it is: the leader finishes it with the index */
	pages = lb->blkno + 1;
	release_level_page(bs, lb);
	BufFileClose(bs->leaves_file);
	for (int i = 0; i < bs->nruns; i++)
		BufFileClose(bs->runs[i].file);

	SpinLockAcquire(&shared->mutex);
	shared->split_run_span = lb->run_span;
	shared->split_pages = pages;
	shared->split_loaded = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->split_cv);
}

/*
 * Reserve count blocks at the end of the index (side blocks of the delta
 * area skipped) for the worker's leaves that a split load's leader copies:
 * the index grows by zero blocks written (or allocated) outside shared
 * buffers, where P_NEW reads each into a buffer (most of the copy's time
 * in a profile of a text build).  Not by one write of the last block:
 * the holes before it would first be written at a checkpoint, which fails
 * if the disk has filled meanwhile.  Returns the first block.
 */
static BlockNumber
reserve_blocks(BuildState *bs, int64 count)
{
	BlockNumber first;
	BlockNumber end;

	LockRelationForExtension(bs->index, ExclusiveLock);
	first = RelationGetNumberOfBlocks(bs->index);
	end = first;
	for (int64 i = 0; i < count; end++)
		if (!pbt_is_side_block(bs->st->delta_group, end))
			i++;
	pbt_smgr_zero_extend(RelationGetSmgr(bs->index), first, end - first);
	UnlockRelationForExtension(bs->index, ExclusiveLock);
	return first;
}

/*
 * The leader at the end of its part of a split load: worker 1's leaves
 * follow.  The leader's last leaf ends before the split item; each of the
 * worker's pages is copied into a new block, linked and given a downlink
 * keyed by the high key of the page before it.  The last one stays current
 * for finish_levels, as the last leaf of a serial build does.
 */
static void
append_split_leaves(BuildState *bs)
{
	PbtBuildShared *shared = bs->leader->shared;
	LevelBuilder *lb = bs->leaf;
	PGAlignedBlock copy;
	BufFile    *file;
	int64		pages;
	BlockNumber reserved = InvalidBlockNumber;

	wait_for_flag(shared, &shared->split_cv, &shared->split_loaded);
	pages = shared->split_pages;

	file = BufFileOpenFileSet(&shared->fileset.fs, "pagebtree-leaves", O_RDONLY, false);
	for (int64 i = 0; i < pages; i++)
	{
		BlockNumber prev;

		if (BufFileRead(file, copy.data, BLCKSZ) != BLCKSZ)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read a parallel worker's leaf from a temporary file")));
		if (i == 0)
		{
			next_level_page(bs, lb, bs->split_item, bs->split_len);
			prev = PbtPageGetOpaque(lb->page)->prev;
			if (pages > 1)
				reserved = reserve_blocks(bs, pages - 1);
		}
		else
		{
			Buffer		nbuf;
			BlockNumber blk = lb->blkno;
			PbtItem		hikey;
			StringInfoData sep;

			while (pbt_is_side_block(bs->st->delta_group, reserved))
				reserved++;
			nbuf = ReadBufferExtended(bs->index, MAIN_FORKNUM, reserved++,
									  RBM_ZERO_AND_LOCK, NULL);
			if (!pbt_page_get_hikey(lb->page, &hikey))
				elog(ERROR, "pagebtree build: a parallel worker's leaf has no high key");
			initStringInfo(&sep);
			appendBinaryStringInfo(&sep, hikey.data, hikey.len);
			PbtPageGetOpaque(lb->page)->next = BufferGetBlockNumber(nbuf);
			release_level_page(bs, lb);
			lb->buf = nbuf;
			lb->page = BufferGetPage(nbuf);
			lb->blkno = BufferGetBlockNumber(nbuf);
			prev = blk;
			add_downlink(bs, lb, lb->blkno, sep.data, sep.len);
			pfree(sep.data);
		}
		memcpy(lb->page, copy.data, BLCKSZ);
		PbtPageGetOpaque(lb->page)->prev = prev;
		PbtPageGetOpaque(lb->page)->next = InvalidBlockNumber;
		if (i % 64 == 63)
			load_interrupt_point(lb);
	}
	BufFileClose(file);
	lb->run_span = shared->split_run_span;
}

static void
end_parallel(BuildState *bs)
{
	PbtBuildLeader *leader = bs->leader;

	WaitForParallelWorkersToFinish(leader->pcxt);
	for (int i = 0; i < leader->pcxt->nworkers_launched; i++)
		InstrAccumParallelQuery(&leader->bufferusage[i], &leader->walusage[i]);
	for (int i = 0; i < bs->nruns; i++)
		if (bs->runs[i].file)
			BufFileClose(bs->runs[i].file);
	if (IsMVCCSnapshot(leader->snapshot))
		UnregisterSnapshot(leader->snapshot);
	DestroyParallelContext(leader->pcxt);
	ExitParallelMode();
	bs->leader = NULL;
}

/*
 * Launch the workers, if the planner wants some and any start: then
 * bs->leader is set.  Otherwise the build stays serial.
 */
static void
begin_parallel(BuildState *bs, IndexInfo *indexInfo)
{
	/* the planner's choice, as for btree */
	int			request = pbt_build_workers(bs->heap, bs->index, indexInfo);
	ParallelContext *pcxt;
	PbtBuildLeader *leader;
	PbtBuildShared *shared;
	Snapshot	snapshot;
	Size		estshared;
	int			querylen = debug_query_string ? strlen(debug_query_string) : 0;

	if (request <= 0)
		return;
	EnterParallelMode();
	pcxt = CreateParallelContext("pagebtree", "pbt_parallel_build_main", request);

	/*
	 * A normal build indexes recently dead tuples too, and so scans with
	 * SnapshotAny; a concurrent one what its MVCC snapshot sees.
	 */
	snapshot = indexInfo->ii_Concurrent ?
		RegisterSnapshot(GetTransactionSnapshot()) : SnapshotAny;
	estshared = add_size(BUFFERALIGN(sizeof(PbtBuildShared)),
						 table_parallelscan_estimate(bs->heap, snapshot));
	shm_toc_estimate_chunk(&pcxt->estimator, estshared);
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(WalUsage), request));
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(BufferUsage), request));
	shm_toc_estimate_keys(&pcxt->estimator, 3);
	if (!bs->st->normalized)
	{
		shm_toc_estimate_chunk(&pcxt->estimator, tuplesort_estimate_shared(request + 1));
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}
	if (debug_query_string)
	{
		shm_toc_estimate_chunk(&pcxt->estimator, querylen + 1);
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}
	InitializeParallelDSM(pcxt);

	leader = palloc0(sizeof(PbtBuildLeader));
	leader->pcxt = pcxt;
	leader->snapshot = snapshot;
	bs->leader = leader;
	if (pcxt->seg == NULL)
	{
		end_parallel(bs);
		return;
	}

	shared = shm_toc_allocate(pcxt->toc, estshared);
	shared->heaprelid = RelationGetRelid(bs->heap);
	shared->indexrelid = RelationGetRelid(bs->index);
	shared->isconcurrent = indexInfo->ii_Concurrent;
	shared->participants = request + 1;
	SharedFileSetInit(&shared->fileset, pcxt->seg);
	SpinLockInit(&shared->mutex);
	shared->reltuples = 0;
	shared->indtuples = 0;
	shared->leaf_bytes = 0;
	shared->brokenhotchain = false;
	shared->runs_done = 0;
	pg_atomic_init_u64(&shared->sort_mem_used, 0);
	ConditionVariableInit(&shared->runs_cv);
	shared->wal_worker = RelationNeedsWAL(bs->index);
	shared->load_done = false;
	shared->wal_head = 0;
	shared->wal_tail = 0;
	ConditionVariableInit(&shared->wal_cv);
	shared->split_decided = false;
	shared->split = false;
	shared->split_loaded = false;
	ConditionVariableInit(&shared->split_cv);
	table_parallelscan_initialize(bs->heap, ParallelTableScanFromShared(shared),
								  snapshot);
	shm_toc_insert(pcxt->toc, PBT_KEY_SHARED, shared);
	leader->shared = shared;
	if (!bs->st->normalized)
	{
		leader->sharedsort = shm_toc_allocate(pcxt->toc,
											  tuplesort_estimate_shared(request + 1));
		tuplesort_initialize_shared(leader->sharedsort, request + 1, pcxt->seg);
		shm_toc_insert(pcxt->toc, PBT_KEY_TUPLESORT, leader->sharedsort);
	}
	leader->walusage = shm_toc_allocate(pcxt->toc,
										mul_size(sizeof(WalUsage), request));
	shm_toc_insert(pcxt->toc, PBT_KEY_WAL_USAGE, leader->walusage);
	leader->bufferusage = shm_toc_allocate(pcxt->toc,
										   mul_size(sizeof(BufferUsage), request));
	shm_toc_insert(pcxt->toc, PBT_KEY_BUFFER_USAGE, leader->bufferusage);
	if (debug_query_string)
	{
		char	   *query = shm_toc_allocate(pcxt->toc, querylen + 1);

		memcpy(query, debug_query_string, querylen + 1);
		shm_toc_insert(pcxt->toc, PBT_KEY_QUERY_TEXT, query);
	}

	LaunchParallelWorkers(pcxt);
	ereport(DEBUG1,
			(errmsg_internal("pagebtree: building index \"%s\" with %d of %d parallel workers",
							 RelationGetRelationName(bs->index),
							 pcxt->nworkers_launched, request)));
	if (pcxt->nworkers_launched == 0)
		end_parallel(bs);
}

/*
 * The leader's part: scan and sort its share, wait for the workers, take
 * their totals and open their runs for the merge.  Returns the heap tuples
 * scanned by all.
 */
static double
leader_scan_and_collect(BuildState *bs, IndexInfo *indexInfo)
{
	PbtBuildLeader *leader = bs->leader;
	PbtBuildShared *shared = leader->shared;
	int			nworkers = leader->pcxt->nworkers_launched;
	double		reltuples;

	SortCoordinateData coordinate = {true, -1, leader->sharedsort};

	bs->sortmem = maintenance_work_mem / (nworkers + 1);
	bs->sort_mem_used = &shared->sort_mem_used;
	begin_sort(bs, nworkers + 1, leader->sharedsort ? &coordinate : NULL);
	reltuples = table_index_build_scan(bs->heap, bs->index, indexInfo, true, true,
									   build_callback, bs,
									   table_beginscan_parallel(bs->heap,
																ParallelTableScanFromShared(shared)));
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, PBT_PHASE_SORT);
	perform_sort(bs);
	if (leader->sharedsort)
		tuplesort_end(bs->sort);	/* its run stays, for the leader's sort */

	/* the workers' runs (as nbtree's leader, fail if one never started) */
	WaitForParallelWorkersToAttach(leader->pcxt);
	ConditionVariablePrepareToSleep(&shared->runs_cv);
	for (;;)
	{
		int			done;

		SpinLockAcquire(&shared->mutex);
		done = shared->runs_done;
		SpinLockRelease(&shared->mutex);
		if (done == nworkers)
			break;
		ConditionVariableSleep(&shared->runs_cv,
							   WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
	}
	ConditionVariableCancelSleep();
	reltuples += shared->reltuples;
	bs->indtuples += shared->indtuples;
	bs->leaf_bytes += shared->leaf_bytes;
	if (shared->brokenhotchain)
		indexInfo->ii_BrokenHotChain = true;

	if (leader->sharedsort)
	{
		/* the leader's sort merges the participants' runs */
		coordinate.isWorker = false;
		coordinate.nParticipants = nworkers + 1;
		bs->sortmem = maintenance_work_mem;
		begin_sort(bs, 1, &coordinate);
		tuplesort_performsort(bs->sort);
		return reltuples;
	}

	decide_split(bs, nworkers);
	bs->nruns = nworkers + 1;
	bs->runs = palloc0(sizeof(SortedRun) * bs->nruns);
	for (int i = 0; i < bs->nruns; i++)
	{
		SortedRun  *run = &bs->runs[i];

		if (i < nworkers)
		{
			char		name[MAXPGPATH];

			run_file_name(name, i);
			run->file = BufFileOpenFileSet(&shared->fileset.fs, name, O_RDONLY,
										   false);
			run->chunk = palloc(RUN_CHUNK_SIZE);
		}
		run_advance(bs, run);
	}
	return reltuples;
}

/* A worker's part: scan and sort its share, and write it as a run. */
void
pbt_parallel_build_main(dsm_segment *seg, shm_toc *toc)
{
	PbtBuildShared *shared = shm_toc_lookup(toc, PBT_KEY_SHARED, false);
	WalUsage   *walusage = shm_toc_lookup(toc, PBT_KEY_WAL_USAGE, false);
	BufferUsage *bufferusage = shm_toc_lookup(toc, PBT_KEY_BUFFER_USAGE, false);
	/* the locks index.c's caller holds, which the worker shares as a group */
	LOCKMODE	heaplock = shared->isconcurrent ? ShareUpdateExclusiveLock : ShareLock;
	LOCKMODE	indexlock = shared->isconcurrent ? RowExclusiveLock : AccessExclusiveLock;
	IndexInfo  *indexInfo;
	BuildState	bs;
	Sharedsort *sharedsort;
	SortCoordinateData coordinate;
	char		name[MAXPGPATH];
	double		reltuples;

	debug_query_string = shm_toc_lookup(toc, PBT_KEY_QUERY_TEXT, true);
	pgstat_report_activity(STATE_RUNNING, debug_query_string);

	memset(&bs, 0, sizeof(bs));
	bs.heap = table_open(shared->heaprelid, heaplock);
	bs.index = index_open(shared->indexrelid, indexlock);
	bs.st = pbt_get_state(bs.index);
	(void) build_format(bs.index, bs.st, false);	/* items and their limit */
	initStringInfo(&bs.item);
	indexInfo = BuildIndexInfo(bs.index);
	indexInfo->ii_Concurrent = shared->isconcurrent;
	SharedFileSetAttach(&shared->fileset, seg);
	InstrStartParallelQuery();

	sharedsort = shm_toc_lookup(toc, PBT_KEY_TUPLESORT, true);
	if (sharedsort)
	{
		coordinate.isWorker = true;
		coordinate.nParticipants = -1;
		coordinate.sharedsort = sharedsort;
		tuplesort_attach_shared(sharedsort, seg);
	}

	bs.sortmem = maintenance_work_mem / shared->participants;
	bs.sort_mem_used = &shared->sort_mem_used;
	begin_sort(&bs, shared->participants, sharedsort ? &coordinate : NULL);
	reltuples = table_index_build_scan(bs.heap, bs.index, indexInfo, true, false,
									   build_callback, &bs,
									   table_beginscan_parallel(bs.heap,
																ParallelTableScanFromShared(shared)));
	perform_sort(&bs);
	/* a comparator-mode run is in the shared tuplesort's files already */
	if (!sharedsort)
	{
		run_file_name(name, ParallelWorkerNumber);
		write_run(&bs, &shared->fileset.fs, name);
	}
	end_sort(&bs);

	SpinLockAcquire(&shared->mutex);
	shared->reltuples += reltuples;
	shared->indtuples += bs.indtuples;
	shared->leaf_bytes += bs.leaf_bytes;
	shared->brokenhotchain |= indexInfo->ii_BrokenHotChain;
	shared->runs_done++;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->runs_cv);

	if (ParallelWorkerNumber == 0 && shared->wal_worker)
		log_handed_pages(shared, bs.index);
	else if (ParallelWorkerNumber == 1 && !sharedsort)
		load_split_leaves(&bs, shared);

	InstrEndParallelQuery(&bufferusage[ParallelWorkerNumber],
						  &walusage[ParallelWorkerNumber]);
	index_close(bs.index, indexlock);
	table_close(bs.heap, heaplock);
}

/*
 * The format the index is built in, set in st: the form of INCLUDE
 * payloads (pagebtree.short_include_payloads), and the leaf group size
 * (returned) with its hint bits: the reloption, unless the keys are not
 * normalized (the group code plans with key bytes).  Says, if notice,
 * what of the options it ignores: at every build, but not again for the
 * init fork of the same index.
 */
static int
build_format(Relation index, PbtState *st, bool notice)
{
	PbtOptions *opts = (PbtOptions *) index->rd_options;

	st->short_payloads = st->normalized && st->has_include &&
		pbt_short_include_payloads;
	st->group_size = 0;
	st->group_hint_bits = 0;
	if (opts == NULL || opts->leaf_group_size == 0)
		return 0;
	Assert(opts->leaf_group_size >= 2 &&
		   opts->leaf_group_size <= PBT_MAX_GROUP_SIZE);
	if (!st->normalized)
	{
		if (notice)
			ereport(NOTICE,
					(errmsg("leaf groups need keys that pagebtree normalizes; index \"%s\" is built without them",
							RelationGetRelationName(index)),
					 errdetail("A key column's type, operator class or collation has no normalized form.")));
		return 0;
	}
	st->group_size = opts->leaf_group_size;
	st->group_hint_bits = opts->leaf_group_hint_bits;
	if (st->group_hint_bits == PBT_GROUP_HINT_BITS_AUTO)
	{
		/*
		 * Twelve bits fitted to the group's keys place uniform int8 keys on
		 * their subnode but for 0.2% (decisions.md, "Hints based at the
		 * group's first key"); string keys with few distinct byte values per
		 * position (hex, digits) need four bytes.
		 */
		st->group_hint_bits = PBT_GROUP_HINT_BITS_FIXED;
		for (int i = 0; i < st->nkeyatts; i++)
			if (st->cols[i].kind == PBT_COL_TEXT ||
				st->cols[i].kind == PBT_COL_BYTEA)
				st->group_hint_bits = PBT_GROUP_HINT_BITS_STRING;
	}
	return opts->leaf_group_size;
}

/* has this backend said that its index builds log generic WAL? */
static bool generic_wal_noticed = false;

IndexBuildResult *
pbtbuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BuildState	bs;
	double		reltuples;
	Buffer		metabuf;
	BlockNumber root;
	uint32		rootlevel;
	int64		loaded = 0;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	/* once per session: a restore of many indexes need not repeat it */
	if (!pbt_rmgr_registered && RelationNeedsWAL(index) && !generic_wal_noticed)
	{
		generic_wal_noticed = true;
		ereport(NOTICE,
				(errmsg("pagebtree is not in shared_preload_libraries, so index \"%s\" logs inserts as generic WAL records, which are larger",
						RelationGetRelationName(index)),
				 errhint("Add pagebtree to shared_preload_libraries to use its compact WAL records.")));
	}

	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	bs.heap = heap;
	bs.st = pbt_get_state(index);
	check_layout_option(index, bs.st);
	bs.unique = indexInfo->ii_Unique;
	initStringInfo(&bs.prev);
	bs.pageflags = bs.st->normalized ? 0 : PBT_ALIGNED_ITEMS;
	initStringInfo(&bs.item);
	bs.group_size = build_format(index, bs.st, true);

	/*
	 * Metapage first, so that it is block 0, with the format version at
	 * once: parallel workers read it (pbt_meta_settings) to form items.
	 */
	bs.st->delta_group = 0;
	bs.st->delta_known = true;
	metabuf = pbt_new_page(index);
	pbt_meta_init(BufferGetPage(metabuf),
				  bs.st->normalized ? PBT_KEYS_NORMALIZED : PBT_KEYS_COMPARATOR,
				  pbt_version_for(bs.group_size > 0, bs.st->short_payloads));
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, PBT_PHASE_SCAN);
	begin_parallel(&bs, indexInfo);
	if (bs.leader)
		reltuples = leader_scan_and_collect(&bs, indexInfo);
	else
	{
		bs.sortmem = maintenance_work_mem;
		begin_sort(&bs, 1, NULL);
		reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
										   build_callback, &bs, NULL);
		pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, PBT_PHASE_SORT);
		perform_sort(&bs);
	}

	/* the delta area's side pages are reserved from block 1 on */
	bs.st->delta_group = pbt_delta_group_for_build(index, bs.leaf_bytes /
												   (PBT_USABLE_SPACE * bs.st->fillfactor / 100.0));

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, PBT_PHASE_LOAD);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_TOTAL, (int64) bs.indtuples);
	bs.leaf = new_level(&bs, 0);
	while (next_sorted_item(&bs))
	{
		if (bs.unique)
			check_unique_sorted(&bs);
		add_to_level(&bs, bs.leaf, bs.cur, bs.curlen);
		if (++loaded % 1024 == 0)
		{
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, loaded);
			load_interrupt_point(bs.leaf);
		}
	}
	if (bs.split_leader)
	{
		append_split_leaves(&bs);
		loaded = (int64) bs.indtuples;
	}
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, loaded);
	end_sort(&bs);
	if (bs.leader)
		end_handing_over(&bs);

	root = finish_levels(&bs, &rootlevel);
	write_metapage(index, bs.st, root, rootlevel);
	bs.st->root = InvalidBlockNumber;

	/* worker 0 has logged the pages handed to it once it has exited */
	if (bs.leader)
		end_parallel(&bs);
	if (RelationNeedsWAL(index))
	{
		BlockNumber nblocks = RelationGetNumberOfBlocks(index);
		BlockNumber start = 0;

		for (BlockNumber blk = 0; blk <= nblocks; blk++)
		{
			if (blk < nblocks && !page_handed(&bs, blk))
				continue;
			if (start < blk)
				log_newpage_range(index, MAIN_FORKNUM, start, blk, true);
			start = blk + 1;
		}
	}

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

/* Write block blkno of the init fork being built, and log it. */
static void
write_init_page(Relation index, BlockNumber blkno, Page page)
{
	PageSetChecksumInplace(page, blkno);
	if (blkno == PBT_METAPAGE_BLKNO)
		smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, blkno, page, true);
	else
		smgrextend(RelationGetSmgr(index), INIT_FORKNUM, blkno, page, true);
	log_newpage(PbtSmgrGetLocator(RelationGetSmgr(index)), INIT_FORKNUM, blkno,
				page, true);
}

/*
 * The init fork of an unlogged index: metapage and an empty root leaf, or
 * with leaf groups, as a build of an empty table makes it: metapage, one
 * group (subnode 0 an empty leaf, the others holes) and a level-1 root
 * over it.
 */
void
pbtbuildempty(Relation index)
{
	PbtState   *st = pbt_get_state(index);
	PGAlignedBlock meta;
	PGAlignedBlock root;
	PbtMetaPageData *m;
	int			group_size = build_format(index, st, false);
	uint32		group = pbt_delta_group_for_build(index, 0);
	/* block 1 is the first side page of a delta area, all zeros until used */
	BlockNumber first = pbt_is_side_block(group, 1) ? 2 : 1;
	BlockNumber rootblk = first;
	uint16		alignflag = st->normalized ? 0 : PBT_ALIGNED_ITEMS;

	pbt_meta_init(meta.data, st->normalized ? PBT_KEYS_NORMALIZED : PBT_KEYS_COMPARATOR,
				  pbt_version_for(group_size > 0, st->short_payloads));
	m = PbtPageGetMeta(meta.data);
	m->delta_group = group;
	if (group_size > 0)
	{
		char		downlink[sizeof(BlockNumber) + PBT_GROUP_HINT_MAX_BYTES] = {0};
		BlockNumber start = first;

		m->group_size = group_size;
		m->group_hint_bits = st->group_hint_bits;
		rootblk = pbt_group_block(group, start, group_size);
		m->level = 1;
		pbt_page_init(root.data, 1, PBT_ROOT | alignflag, st->inner_layout, st);
		/* one -inf downlink, to the group's start, without hints */
		memcpy(downlink, &start, sizeof(BlockNumber));
		if (!pbt_layout(root.data)->insert(root.data, 0, downlink,
										   PBT_DOWNLINK_SIZE(st)))
			elog(ERROR, "pagebtree: a downlink does not fit on an empty page");
	}
	else
	{
		m->level = 0;
		pbt_page_init(root.data, 0, PBT_LEAF | PBT_ROOT | alignflag,
					  st->leaf_layout, st);
	}
	m->root = rootblk;

	write_init_page(index, PBT_METAPAGE_BLKNO, meta.data);
	for (BlockNumber blkno = 1; blkno < rootblk; blkno++)
	{
		PGAlignedBlock sub;

		/* side pages stay zero until their first run */
		if (pbt_is_side_block(group, blkno))
		{
			memset(sub.data, 0, BLCKSZ);
			smgrextend(RelationGetSmgr(index), INIT_FORKNUM, blkno, sub.data, true);
			continue;
		}
		Assert(group_size > 0);
		/* the group's subnodes: the first in use, the others holes */
		pbt_init_subnode(sub.data, st, pbt_block_ordinal(group, blkno) -
						 pbt_block_ordinal(group, first), group_size, 1);
		if (blkno == first)
			PbtPageGetOpaque(sub.data)->flags &= ~PBT_HOLE;
		write_init_page(index, blkno, sub.data);
	}
	write_init_page(index, rootblk, root.data);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}
