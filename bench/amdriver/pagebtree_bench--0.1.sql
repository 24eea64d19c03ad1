/* pagebtree_bench: AM-level benchmark driver */
\echo Use "CREATE EXTENSION pagebtree_bench" to load this file. \quit

-- Point lookups.  Keys are the first columns of keys_table (in physical
-- order), one column per index key column, of the index's input types.
-- Each key is looked up nloops times via index_rescan + index_getnext_tid
-- (equality on every column); every returned TID is counted in "found"
-- (hash indexes are lossy: they may return extra TIDs the executor would
-- recheck away).  With warmup, one untimed pass runs first.  Rates are given
-- per wall-clock second and per CPU-second of this backend (steadier on a
-- shared machine).
CREATE FUNCTION pbt_bench_lookup(index regclass, keys_table regclass,
    nloops integer DEFAULT 1, warmup boolean DEFAULT true,
    OUT ops bigint, OUT seconds float8, OUT ops_per_sec float8,
    OUT buffers_per_op float8, OUT reads_per_op float8, OUT found bigint,
    OUT cpu_seconds float8, OUT ops_per_cpu_sec float8)
AS 'MODULE_PATHNAME', 'pbt_bench_lookup'
LANGUAGE C STRICT VOLATILE;

-- Same, with the keys given as an array (single-column indexes only).
CREATE FUNCTION pbt_bench_lookup(index regclass, keys anyarray,
    nloops integer DEFAULT 1, warmup boolean DEFAULT true,
    OUT ops bigint, OUT seconds float8, OUT ops_per_sec float8,
    OUT buffers_per_op float8, OUT reads_per_op float8, OUT found bigint,
    OUT cpu_seconds float8, OUT ops_per_cpu_sec float8)
AS 'MODULE_PATHNAME', 'pbt_bench_lookup_array'
LANGUAGE C STRICT VOLATILE;

-- Range scans.  For every start key (rows of start_table), one scan with
-- "col1 = v1 AND ... AND colN >= vN" (equality on all but the last column
-- of start_table) returning the next n TIDs, where n is drawn uniformly
-- from [nrows, nrows_max] by a PRNG seeded with seed (nrows_max NULL or
-- <= nrows: exactly nrows).  ops = scans.
CREATE FUNCTION pbt_bench_scan(index regclass, start_table regclass,
    nrows integer, nloops integer DEFAULT 1, nrows_max integer DEFAULT 0,
    seed bigint DEFAULT 42, warmup boolean DEFAULT true,
    OUT scans bigint, OUT rows_returned bigint, OUT seconds float8,
    OUT scans_per_sec float8, OUT rows_per_sec float8,
    OUT buffers_per_scan float8, OUT reads_per_scan float8,
    OUT cpu_seconds float8, OUT scans_per_cpu_sec float8)
AS 'MODULE_PATHNAME', 'pbt_bench_scan'
LANGUAGE C STRICT VOLATILE;

-- Inserts.  index_insert() of rows [key_offset, key_offset + key_count) of
-- keys_table (physical order; key_count < 0 means all remaining rows) into
-- the index, with synthetic heap TIDs: row r gets
--   (tid_block_start + r / 100, 1 + r % 100)
-- where tid_block_start < 0 means "heap's block count + 1", i.e. the TIDs
-- point past the end of the heap: unique and well-formed, but they are not
-- heap tuples, so use this on a scratch index only (index_getnext_tid still
-- works; anything that visits the heap through such an index does not).
CREATE FUNCTION pbt_bench_insert(index regclass, keys_table regclass,
    key_offset bigint DEFAULT 0, key_count bigint DEFAULT -1,
    tid_block_start bigint DEFAULT -1,
    OUT ops bigint, OUT seconds float8, OUT ops_per_sec float8,
    OUT buffers_per_op float8, OUT reads_per_op float8,
    OUT blks_dirtied bigint, OUT blks_written bigint,
    OUT wal_records bigint, OUT wal_fpi bigint, OUT wal_bytes numeric,
    OUT cpu_seconds float8, OUT ops_per_cpu_sec float8)
AS 'MODULE_PATHNAME', 'pbt_bench_insert'
LANGUAGE C STRICT VOLATILE;

-- CPU seconds (user + system) this backend has used so far; the harness
-- brackets SQL statements with it to get their CPU time.
CREATE FUNCTION pbt_bench_cputime() RETURNS float8
AS 'MODULE_PATHNAME', 'pbt_bench_cputime'
LANGUAGE C STRICT VOLATILE;

REVOKE ALL ON FUNCTION pbt_bench_lookup(regclass, regclass, integer, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION pbt_bench_lookup(regclass, anyarray, integer, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION pbt_bench_scan(regclass, regclass, integer, integer, integer, bigint, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION pbt_bench_insert(regclass, regclass, bigint, bigint, bigint) FROM PUBLIC;
