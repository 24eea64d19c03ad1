/*-------------------------------------------------------------------------
 *
 * pagebtree_bench.c
 *	  AM-level benchmark driver for index access methods.
 *
 * Pushes keys through PostgreSQL's generic index AM interface -- the same
 * entry points the executor uses -- identically for every AM (btree, hash,
 * pagebtree, ...):
 *
 *	 lookups: index_beginscan once, then per key index_rescan with equality
 *			  scan keys and index_getnext_tid until exhausted;
 *	 scans:	  index_rescan with "= ... >=" scan keys, then n calls of
 *			  index_getnext_tid;
 *	 inserts: index_insert with synthetic heap TIDs.
 *
 * No heap tuple is ever fetched, so executor, heap and protocol overhead do
 * not hide the index's own cost.  Each function reports elapsed time and the
 * backend's buffer (pgBufferUsage) and WAL (pgWalUsage) counter deltas over
 * the timed part only.
 *
 * Scan keys are built the way the executor builds them (ExecIndexBuildScanKeys):
 * the operator comes from the index column's operator family at the
 * strategy number (btree numbering for ordered AMs, HTEqualStrategyNumber
 * for hash), the subtype is the operator's right-hand type, the collation is
 * the index column's.  The keys are initialized once; per probe only
 * sk_argument changes, as for executor runtime keys.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "access/amapi.h"
#include "access/genam.h"
#include "access/relscan.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "executor/instrument.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/* 18 added the scan's instrumentation argument */
#if PG_VERSION_NUM >= 180000
#define bench_index_beginscan(heap, index, nkeys) \
	index_beginscan(heap, index, GetActiveSnapshot(), NULL, nkeys, 0)
#else
#define bench_index_beginscan(heap, index, nkeys) \
	index_beginscan(heap, index, GetActiveSnapshot(), nkeys, 0)
#endif

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pbt_bench_lookup);
PG_FUNCTION_INFO_V1(pbt_bench_lookup_array);
PG_FUNCTION_INFO_V1(pbt_bench_scan);
PG_FUNCTION_INFO_V1(pbt_bench_insert);
PG_FUNCTION_INFO_V1(pbt_bench_cputime);

/* synthetic TIDs: (block_start + r / TIDS_PER_BLOCK, 1 + r % TIDS_PER_BLOCK) */
#define TIDS_PER_BLOCK 100

/* Keys held in memory, row-major: values[row * ncols + col]. */
typedef struct KeySet
{
	int			ncols;
	int64		nrows;
	Datum	   *values;
} KeySet;

/* Counter snapshot taken at the start of a timed section. */
typedef struct Meter
{
	instr_time	start;
	double		cpu_start;
	BufferUsage buf;
	WalUsage	wal;
} Meter;

/* Differences since a Meter was started. */
typedef struct Measured
{
	double		seconds;
	double		cpu_seconds;	/* CPU time of this backend (user + system) */
	int64		blks_accessed;	/* shared hit + read */
	int64		blks_read;
	int64		blks_dirtied;
	int64		blks_written;
	int64		wal_records;
	int64		wal_fpi;
	int64		wal_bytes;
} Measured;

/*
 * CPU time consumed by this process so far.  A backend is single-threaded,
 * so this is the CPU spent on our work, whatever else runs on the machine:
 * rates per CPU-second are much steadier than wall-clock rates on a shared,
 * noisy machine.
 */
static double
process_cpu_seconds(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0.0;
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void
meter_start(Meter *m)
{
	m->buf = pgBufferUsage;
	m->wal = pgWalUsage;
	m->cpu_start = process_cpu_seconds();
	INSTR_TIME_SET_CURRENT(m->start);
}

static void
meter_stop(Meter *m, Measured *out)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, m->start);
	out->seconds = INSTR_TIME_GET_DOUBLE(now);
	out->cpu_seconds = process_cpu_seconds() - m->cpu_start;
	out->blks_accessed = (pgBufferUsage.shared_blks_hit - m->buf.shared_blks_hit) +
		(pgBufferUsage.shared_blks_read - m->buf.shared_blks_read);
	out->blks_read = pgBufferUsage.shared_blks_read - m->buf.shared_blks_read;
	out->blks_dirtied = pgBufferUsage.shared_blks_dirtied - m->buf.shared_blks_dirtied;
	out->blks_written = pgBufferUsage.shared_blks_written - m->buf.shared_blks_written;
	out->wal_records = pgWalUsage.wal_records - m->wal.wal_records;
	out->wal_fpi = pgWalUsage.wal_fpi - m->wal.wal_fpi;
	out->wal_bytes = (int64) (pgWalUsage.wal_bytes - m->wal.wal_bytes);
}

static double
per(double num, int64 den)
{
	return den > 0 ? num / (double) den : 0.0;
}

/* Does a value of type 'have' fit index key column 'col' of 'index'? */
static void
check_key_type(Relation index, int col, Oid have)
{
	Oid			want = index->rd_opcintype[col];

	if (have != want && !IsBinaryCoercible(have, want))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key column %d has type %s, but index \"%s\" column %d expects %s",
						col + 1, format_type_be(have),
						RelationGetRelationName(index), col + 1,
						format_type_be(want))));
}

/* Copy a key datum into the current memory context, detoasted. */
static Datum
copy_key(Datum d, int16 typlen, bool typbyval)
{
	if (typlen == -1)
		return PointerGetDatum(PG_DETOAST_DATUM_COPY(d));
	return datumCopy(d, typbyval, typlen);
}

/*
 * Read keys from a table, in physical order: the first non-dropped columns,
 * as many as the index has key columns (or fewer, if the table has fewer).
 * Rows [offset, offset + count) are kept; count < 0 means all.
 */
static KeySet *
load_keys_from_table(Oid relid, Relation index, int64 offset, int64 count)
{
	Relation	rel = table_open(relid, AccessShareLock);
	TupleDesc	tupdesc = RelationGetDescr(rel);
	int			nkeyatts = IndexRelationGetNumberOfKeyAttributes(index);
	int			attidx[INDEX_MAX_KEYS];
	int16		typlen[INDEX_MAX_KEYS];
	bool		typbyval[INDEX_MAX_KEYS];
	int			ncols = 0;
	int64		cap = 1024;
	int64		rowno = 0;
	KeySet	   *ks;
	TableScanDesc scan;
	TupleTableSlot *slot;

	for (int i = 0; i < tupdesc->natts && ncols < nkeyatts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (att->attisdropped)
			continue;
		check_key_type(index, ncols, att->atttypid);
		attidx[ncols] = i;
		typlen[ncols] = att->attlen;
		typbyval[ncols] = att->attbyval;
		ncols++;
	}
	if (ncols == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keys table \"%s\" has no columns", RelationGetRelationName(rel))));

	ks = palloc0(sizeof(KeySet));
	ks->ncols = ncols;
	ks->values = palloc_extended(cap * ncols * sizeof(Datum), MCXT_ALLOC_HUGE);

	scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
	slot = table_slot_create(rel, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		Datum	   *row;

		CHECK_FOR_INTERRUPTS();
		if (rowno++ < offset)
			continue;
		if (count >= 0 && ks->nrows >= count)
			break;
		if (ks->nrows == cap)
		{
			cap *= 2;
			ks->values = repalloc_huge(ks->values, cap * ncols * sizeof(Datum));
		}
		slot_getsomeattrs(slot, attidx[ncols - 1] + 1);
		row = ks->values + ks->nrows * ncols;
		for (int c = 0; c < ncols; c++)
		{
			if (slot->tts_isnull[attidx[c]])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("keys table \"%s\" contains a NULL key",
								RelationGetRelationName(rel))));
			row[c] = copy_key(slot->tts_values[attidx[c]], typlen[c], typbyval[c]);
		}
		ks->nrows++;
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	return ks;
}

static KeySet *
load_keys_from_array(ArrayType *arr, Relation index)
{
	Oid			elemtype = ARR_ELEMTYPE(arr);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	KeySet	   *ks;

	if (IndexRelationGetNumberOfKeyAttributes(index) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("array keys need a single-column index; use a keys table")));
	check_key_type(index, 0, elemtype);
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(arr, elemtype, typlen, typbyval, typalign,
					  &elems, &nulls, &nelems);
	ks = palloc0(sizeof(KeySet));
	ks->ncols = 1;
	ks->nrows = nelems;
	ks->values = palloc_extended(Max(nelems, 1) * sizeof(Datum), MCXT_ALLOC_HUGE);
	for (int i = 0; i < nelems; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("keys array contains a NULL")));
		ks->values[i] = copy_key(elems[i], typlen, typbyval);
	}
	return ks;
}

/*
 * Initialize one scan key per key column.  Equality on every column, except
 * that with 'range' the last column uses >= (ordered AMs only).
 */
static void
init_scankeys(Relation index, int ncols, bool range, ScanKey skeys)
{
	bool		is_hash = (index->rd_rel->relam == HASH_AM_OID);

	if (range && !index->rd_indam->amcanorder)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("index \"%s\" does not support ordered range scans",
						RelationGetRelationName(index))));

	for (int c = 0; c < ncols; c++)
	{
		StrategyNumber strat;
		Oid			opfamily = index->rd_opfamily[c];
		Oid			intype = index->rd_opcintype[c];
		Oid			op;

		if (is_hash)
			strat = HTEqualStrategyNumber;
		else if (range && c == ncols - 1)
			strat = BTGreaterEqualStrategyNumber;
		else
			strat = BTEqualStrategyNumber;

		op = get_opfamily_member(opfamily, intype, intype, strat);
		if (!OidIsValid(op))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("operator family %u of index \"%s\" has no operator for strategy %d on type %s",
							opfamily, RelationGetRelationName(index), strat,
							format_type_be(intype))));
		ScanKeyEntryInitialize(&skeys[c], 0, (AttrNumber) (c + 1), strat,
							   intype, index->rd_indcollation[c],
							   get_opcode(op), (Datum) 0);
	}
}

static inline void
set_scankey_args(ScanKey skeys, KeySet *ks, int64 row)
{
	Datum	   *vals = ks->values + row * ks->ncols;

	for (int c = 0; c < ks->ncols; c++)
		skeys[c].sk_argument = vals[c];
}

/* One pass of point lookups over all keys; returns the number of TIDs found. */
static int64
lookup_pass(IndexScanDesc scan, ScanKey skeys, KeySet *ks)
{
	int64		found = 0;

	for (int64 i = 0; i < ks->nrows; i++)
	{
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		set_scankey_args(skeys, ks, i);
		index_rescan(scan, skeys, ks->ncols, NULL, 0);
		while (index_getnext_tid(scan, ForwardScanDirection) != NULL)
			found++;
	}
	return found;
}

/* xorshift64*: a tiny deterministic PRNG for scan lengths */
static inline uint64
next_rand(uint64 *state)
{
	uint64		x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64CONST(2685821657736338717);
}

/* One pass of range scans; returns the number of TIDs returned. */
static int64
scan_pass(IndexScanDesc scan, ScanKey skeys, KeySet *ks,
		  int nmin, int nmax, uint64 seed)
{
	int64		rows = 0;
	uint64		rng = seed ? seed : UINT64CONST(0x9E3779B97F4A7C15);

	for (int64 i = 0; i < ks->nrows; i++)
	{
		int64		n = nmin;

		if ((i & 255) == 0)
			CHECK_FOR_INTERRUPTS();
		if (nmax > nmin)
			n += (int64) (next_rand(&rng) % (uint64) (nmax - nmin + 1));
		set_scankey_args(skeys, ks, i);
		index_rescan(scan, skeys, ks->ncols, NULL, 0);
		for (int64 j = 0; j < n; j++)
		{
			if (index_getnext_tid(scan, ForwardScanDirection) == NULL)
				break;
			rows++;
		}
	}
	return rows;
}

static Datum
return_record(FunctionCallInfo fcinfo, Datum *values, int nvalues)
{
	TupleDesc	tupdesc;
	bool		nulls[16] = {0};

	Assert(nvalues <= lengthof(nulls));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	if (tupdesc->natts != nvalues)
		elog(ERROR, "result row has %d columns, expected %d", tupdesc->natts, nvalues);
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

static Datum
do_lookup(FunctionCallInfo fcinfo, Oid indexoid, KeySet *(*load) (FunctionCallInfo, Relation),
		  int32 nloops, bool warmup)
{
	Relation	index;
	Relation	heap;
	KeySet	   *ks;
	ScanKeyData skeys[INDEX_MAX_KEYS];
	IndexScanDesc scan;
	Meter		meter;
	Measured	m;
	int64		found = 0;
	int64		ops;
	Datum		values[8];

	if (nloops < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("nloops must be at least 1")));
	index = index_open(indexoid, AccessShareLock);
	heap = table_open(index->rd_index->indrelid, AccessShareLock);
	ks = load(fcinfo, index);
	init_scankeys(index, ks->ncols, false, skeys);

	scan = bench_index_beginscan(heap, index, ks->ncols);
	if (warmup)
		(void) lookup_pass(scan, skeys, ks);
	meter_start(&meter);
	for (int l = 0; l < nloops; l++)
		found += lookup_pass(scan, skeys, ks);
	meter_stop(&meter, &m);
	index_endscan(scan);

	table_close(heap, AccessShareLock);
	index_close(index, AccessShareLock);

	ops = ks->nrows * nloops;
	values[0] = Int64GetDatum(ops);
	values[1] = Float8GetDatum(m.seconds);
	values[2] = Float8GetDatum((double) ops / (m.seconds > 0 ? m.seconds : 1e-9));
	values[3] = Float8GetDatum(per((double) m.blks_accessed, ops));
	values[4] = Float8GetDatum(per((double) m.blks_read, ops));
	values[5] = Int64GetDatum(found);
	values[6] = Float8GetDatum(m.cpu_seconds);
	values[7] = Float8GetDatum((double) ops / (m.cpu_seconds > 0 ? m.cpu_seconds : 1e-9));
	return return_record(fcinfo, values, 8);
}

static KeySet *
load_lookup_table(FunctionCallInfo fcinfo, Relation index)
{
	return load_keys_from_table(PG_GETARG_OID(1), index, 0, -1);
}

static KeySet *
load_lookup_array(FunctionCallInfo fcinfo, Relation index)
{
	return load_keys_from_array(PG_GETARG_ARRAYTYPE_P(1), index);
}

/* pbt_bench_lookup(index regclass, keys_table regclass, nloops int, warmup bool) */
Datum
pbt_bench_lookup(PG_FUNCTION_ARGS)
{
	return do_lookup(fcinfo, PG_GETARG_OID(0), load_lookup_table,
					 PG_GETARG_INT32(2), PG_GETARG_BOOL(3));
}

/* pbt_bench_lookup(index regclass, keys anyarray, nloops int, warmup bool) */
Datum
pbt_bench_lookup_array(PG_FUNCTION_ARGS)
{
	return do_lookup(fcinfo, PG_GETARG_OID(0), load_lookup_array,
					 PG_GETARG_INT32(2), PG_GETARG_BOOL(3));
}

/*
 * pbt_bench_scan(index regclass, start_table regclass, nrows int, nloops int,
 *				  nrows_max int, seed bigint, warmup bool)
 */
Datum
pbt_bench_scan(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Oid			startoid = PG_GETARG_OID(1);
	int32		nrows = PG_GETARG_INT32(2);
	int32		nloops = PG_GETARG_INT32(3);
	int32		nrows_max = PG_GETARG_INT32(4);
	uint64		seed = (uint64) PG_GETARG_INT64(5);
	bool		warmup = PG_GETARG_BOOL(6);
	Relation	index;
	Relation	heap;
	KeySet	   *ks;
	ScanKeyData skeys[INDEX_MAX_KEYS];
	IndexScanDesc scan;
	Meter		meter;
	Measured	m;
	int64		rows = 0;
	int64		scans;
	double		secs;
	Datum		values[9];

	if (nloops < 1 || nrows < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("nrows and nloops must be at least 1")));
	if (nrows_max < nrows)
		nrows_max = nrows;

	index = index_open(indexoid, AccessShareLock);
	heap = table_open(index->rd_index->indrelid, AccessShareLock);
	ks = load_keys_from_table(startoid, index, 0, -1);
	init_scankeys(index, ks->ncols, true, skeys);

	scan = bench_index_beginscan(heap, index, ks->ncols);
	if (warmup)
		(void) scan_pass(scan, skeys, ks, nrows, nrows_max, seed);
	meter_start(&meter);
	for (int l = 0; l < nloops; l++)
		rows += scan_pass(scan, skeys, ks, nrows, nrows_max, seed + l);
	meter_stop(&meter, &m);
	index_endscan(scan);

	table_close(heap, AccessShareLock);
	index_close(index, AccessShareLock);

	scans = ks->nrows * nloops;
	secs = m.seconds > 0 ? m.seconds : 1e-9;
	values[0] = Int64GetDatum(scans);
	values[1] = Int64GetDatum(rows);
	values[2] = Float8GetDatum(m.seconds);
	values[3] = Float8GetDatum((double) scans / secs);
	values[4] = Float8GetDatum((double) rows / secs);
	values[5] = Float8GetDatum(per((double) m.blks_accessed, scans));
	values[6] = Float8GetDatum(per((double) m.blks_read, scans));
	values[7] = Float8GetDatum(m.cpu_seconds);
	values[8] = Float8GetDatum((double) scans / (m.cpu_seconds > 0 ? m.cpu_seconds : 1e-9));
	return return_record(fcinfo, values, 9);
}

/*
 * pbt_bench_insert(index regclass, keys_table regclass, key_offset bigint,
 *					key_count bigint, tid_block_start bigint)
 */
Datum
pbt_bench_insert(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Oid			keysoid = PG_GETARG_OID(1);
	int64		key_offset = PG_GETARG_INT64(2);
	int64		key_count = PG_GETARG_INT64(3);
	int64		tid_block_start = PG_GETARG_INT64(4);
	Relation	index;
	Relation	heap;
	IndexInfo  *indexInfo;
	KeySet	   *ks;
	MemoryContext batchcxt;
	MemoryContext oldcxt;
	bool		isnull[INDEX_MAX_KEYS] = {0};
	Meter		meter;
	Measured	m;
	int64		last_block;
	Datum		values[12];

	if (key_offset < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("key_offset must not be negative")));

	index = index_open(indexoid, RowExclusiveLock);
	heap = table_open(index->rd_index->indrelid, RowExclusiveLock);
	indexInfo = BuildIndexInfo(index);
	if (indexInfo->ii_Expressions != NIL || indexInfo->ii_Predicate != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pbt_bench_insert supports plain column indexes only")));
	if (IndexRelationGetNumberOfAttributes(index) != IndexRelationGetNumberOfKeyAttributes(index))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pbt_bench_insert does not support INCLUDE columns")));

	ks = load_keys_from_table(keysoid, index, key_offset, key_count);
	if (ks->ncols != IndexRelationGetNumberOfKeyAttributes(index))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keys table supplies %d columns, index \"%s\" has %d",
						ks->ncols, RelationGetRelationName(index),
						IndexRelationGetNumberOfKeyAttributes(index))));

	if (tid_block_start < 0)
		tid_block_start = (int64) RelationGetNumberOfBlocks(heap) + 1;
	last_block = tid_block_start + (key_offset + ks->nrows) / TIDS_PER_BLOCK;
	if (last_block >= (int64) MaxBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("synthetic TIDs would exceed the largest block number")));

	/* the executor resets a per-tuple context around index_insert; so do we */
	batchcxt = AllocSetContextCreate(CurrentMemoryContext, "pbt_bench_insert batch",
									 ALLOCSET_DEFAULT_SIZES);
	meter_start(&meter);
	oldcxt = MemoryContextSwitchTo(batchcxt);
	for (int64 i = 0; i < ks->nrows; i++)
	{
		int64		r = key_offset + i;
		ItemPointerData tid;

		ItemPointerSet(&tid, (BlockNumber) (tid_block_start + r / TIDS_PER_BLOCK),
					   (OffsetNumber) (1 + r % TIDS_PER_BLOCK));
		(void) index_insert(index, ks->values + i * ks->ncols, isnull, &tid,
							heap, UNIQUE_CHECK_NO, false, indexInfo);
		if ((i & 255) == 255)
		{
			MemoryContextReset(batchcxt);
			CHECK_FOR_INTERRUPTS();
		}
	}
	MemoryContextSwitchTo(oldcxt);
	meter_stop(&meter, &m);
	MemoryContextDelete(batchcxt);

	table_close(heap, RowExclusiveLock);
	index_close(index, RowExclusiveLock);

	values[0] = Int64GetDatum(ks->nrows);
	values[1] = Float8GetDatum(m.seconds);
	values[2] = Float8GetDatum((double) ks->nrows / (m.seconds > 0 ? m.seconds : 1e-9));
	values[3] = Float8GetDatum(per((double) m.blks_accessed, ks->nrows));
	values[4] = Float8GetDatum(per((double) m.blks_read, ks->nrows));
	values[5] = Int64GetDatum(m.blks_dirtied);
	values[6] = Int64GetDatum(m.blks_written);
	values[7] = Int64GetDatum(m.wal_records);
	values[8] = Int64GetDatum(m.wal_fpi);
	values[9] = NumericGetDatum(int64_to_numeric(m.wal_bytes));
	values[10] = Float8GetDatum(m.cpu_seconds);
	values[11] = Float8GetDatum((double) ks->nrows / (m.cpu_seconds > 0 ? m.cpu_seconds : 1e-9));
	return return_record(fcinfo, values, 12);
}

/* pbt_bench_cputime(): CPU seconds (user + system) used by this backend so far */
Datum
pbt_bench_cputime(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(process_cpu_seconds());
}
