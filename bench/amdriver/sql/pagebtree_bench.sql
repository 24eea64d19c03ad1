-- pagebtree_bench driver: deterministic results only (counts, not timings)
CREATE EXTENSION pagebtree_bench;
CREATE TABLE t (k int8, v int4);
INSERT INTO t SELECT g, g % 10 FROM generate_series(1, 1000) g;
CREATE INDEX t_btree ON t USING btree (k);
CREATE INDEX t_hash ON t USING hash (k);
-- 200 probes 7, 14, ..., 1400: 142 of them exist
CREATE TABLE probes AS SELECT (g * 7)::int8 AS k FROM generate_series(1, 200) g;

SELECT ops, found, buffers_per_op > 0 AS touched, ops_per_sec > 0 AS timed
  FROM pbt_bench_lookup('t_btree', 'probes', 3);
SELECT ops, found >= 426 AS found_all FROM pbt_bench_lookup('t_hash', 'probes', 3);
SELECT ops, found FROM pbt_bench_lookup('t_btree', ARRAY[1, 2, 5000]::int8[], 2, false);

-- scans "k >= probe", 10 rows each: 141 full scans plus one of 7 rows
SELECT scans, rows_returned FROM pbt_bench_scan('t_btree', 'probes', 10);
-- random lengths 1-20, deterministic for a seed
SELECT scans, rows_returned FROM pbt_bench_scan('t_btree', 'probes', 1, 2, 20, 7) a,
       LATERAL (SELECT rows_returned AS again FROM pbt_bench_scan('t_btree', 'probes', 1, 2, 20, 7)) b
 WHERE a.rows_returned = b.again;

-- composite keys: equality on the first column, >= on the last
CREATE TABLE c (k1 text COLLATE "C", k2 int8);
INSERT INTO c SELECT 'p' || (g % 4), g FROM generate_series(1, 400) g;
CREATE INDEX c_btree ON c (k1, k2);
CREATE TABLE cstart AS SELECT 'p1'::text AS k1, 390::int8 AS k2;
SELECT scans, rows_returned FROM pbt_bench_scan('c_btree', 'cstart', 100);
SELECT ops, found FROM pbt_bench_lookup('c_btree', 'cstart', 1);

-- inserts with synthetic TIDs into a scratch index
CREATE TABLE s (k int8);
CREATE INDEX s_btree ON s (k);
CREATE TABLE newkeys AS SELECT g::int8 AS k FROM generate_series(1, 500) g;
SELECT ops, wal_records > 0 AS logged, wal_bytes > 0 AS bytes FROM pbt_bench_insert('s_btree', 'newkeys');
SELECT ops FROM pbt_bench_insert('s_btree', 'newkeys', 100, 50, 1000);
SELECT ops, found FROM pbt_bench_lookup('s_btree', 'newkeys', 1);

-- errors
SELECT * FROM pbt_bench_scan('t_hash', 'probes', 10);
SELECT * FROM pbt_bench_lookup('t_btree', ARRAY['a']::text[]);
SELECT * FROM pbt_bench_lookup('c_btree', ARRAY['a']::text[]);
