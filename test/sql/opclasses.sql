--
-- opclasses: every pagebtree operator class against a sequential scan.
--
-- For each supported type a table with duplicates, NULLs and edge values is
-- indexed (bulk build, then more rows inserted through the index) and every
-- strategy, = ANY, IS [NOT] NULL and ordered scans in both directions are
-- compared with the same query run as a seqscan.  Expected output: every
-- plan_ok is t and every diffs column is 0.
--
-- NOTICEs differ between server configurations (e.g. the one about
-- shared_preload_libraries at index build), so show warnings and up only.
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
-- (pbt_cmp comes from 00_setup.sql)

-- The standard set of queries run against every type.  $T = table, $O = the
-- output expression (a canonical form of v, so that values that are equal but
-- print differently cannot make ordered comparisons differ), $LO/$HI = two
-- constants with $LO < $HI.
CREATE OR REPLACE FUNCTION pbt_type_queries(tbl text, outexpr text, lo text, hi text)
RETURNS SETOF text LANGUAGE sql AS $$
    SELECT replace(replace(replace(replace(q, '$T', tbl), '$O', outexpr), '$LO', lo), '$HI', hi)
    FROM unnest(ARRAY[
        'SELECT id FROM $T WHERE v = $LO',
        'SELECT id FROM $T WHERE v < $LO',
        'SELECT id FROM $T WHERE v <= $LO',
        'SELECT id FROM $T WHERE v > $LO',
        'SELECT id FROM $T WHERE v >= $LO',
        'SELECT id FROM $T WHERE v > $LO AND v <= $HI',
        'SELECT id FROM $T WHERE v = ANY (ARRAY[$HI, NULL, $LO, $HI])',
        'SELECT id FROM $T WHERE v IS NULL',
        'SELECT count(*) FROM $T WHERE v IS NOT NULL',
        'SELECT $O FROM $T ORDER BY v',
        'SELECT $O FROM $T ORDER BY v DESC',
        'SELECT $O FROM $T WHERE v >= $LO ORDER BY v LIMIT 25',
        'SELECT $O FROM $T WHERE v < $HI ORDER BY v DESC LIMIT 25',
        'SELECT $O FROM $T WHERE v <= $HI ORDER BY v',
        'SELECT $O FROM $T ORDER BY v DESC LIMIT 10'
    ]) WITH ORDINALITY AS u(q, n)
    ORDER BY n
$$;

-- Run the standard queries: forced index scan, and (for queries with a
-- WHERE clause) forced bitmap scan, each compared with a seqscan.
CREATE OR REPLACE FUNCTION pbt_check_type(tbl text, outexpr text, lo text, hi text)
RETURNS TABLE (query text, nrows bigint, idx_plan boolean, idx_diffs bigint,
               bmp_plan boolean, bmp_diffs bigint)
LANGUAGE sql AS $$
    SELECT q.q, i.nrows, i.plan_ok, i.ndiffs, b.plan_ok, b.ndiffs
    FROM pbt_type_queries(tbl, outexpr, lo, hi) AS q(q)
    CROSS JOIN LATERAL pbt_cmp(q.q, 'index') AS i
    LEFT JOIN LATERAL (SELECT * FROM pbt_cmp(q.q, 'bitmap')
                       WHERE q.q LIKE '% WHERE %') AS b ON true
$$;

-- Source data: k cycles through 0..1008 (so every value repeats about four
-- times), every 50th row is NULL, and some rows carry edge values.
CREATE TABLE oc_data AS
SELECT id, k,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 42
         WHEN id % 333 = 0 THEN 32767
         WHEN id % 333 = 1 THEN -32768
         ELSE k - 500 END::int2 AS v_int2,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 42
         WHEN id % 333 = 0 THEN 2147483647
         WHEN id % 333 = 1 THEN -2147483648
         ELSE (k - 500) * 4000000 + k END::int4 AS v_int4,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 42
         WHEN id % 333 = 0 THEN 9223372036854775807
         WHEN id % 333 = 1 THEN -9223372036854775808
         ELSE (k - 500) * 3000000007 END::int8 AS v_int8,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 1.5::float4
         WHEN id % 333 = 0 THEN 'NaN'::float4
         WHEN id % 333 = 1 THEN 'Infinity'::float4
         WHEN id % 333 = 2 THEN '-Infinity'::float4
         WHEN id % 333 = 3 THEN '-0'::float4
         WHEN id % 333 = 4 THEN 1e-30::float4
         ELSE ((k - 500) / 8.0)::float4 END AS v_float4,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 1.5::float8
         WHEN id % 333 = 0 THEN 'NaN'::float8
         WHEN id % 333 = 1 THEN 'Infinity'::float8
         WHEN id % 333 = 2 THEN '-Infinity'::float8
         WHEN id % 333 = 3 THEN '-0'::float8
         WHEN id % 333 = 4 THEN 5e-324::float8
         WHEN id % 333 = 5 THEN -1e300::float8
         ELSE ((k - 500) / 7.0)::float8 END AS v_float8,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 1.5
         WHEN id % 100 = 17 THEN 1.50
         WHEN id % 100 = 27 THEN 1.500
         WHEN id % 333 = 0 THEN 'NaN'
         WHEN id % 333 = 1 THEN 'Infinity'
         WHEN id % 333 = 2 THEN '-Infinity'
         WHEN id % 333 = 3 THEN 1e100
         WHEN id % 333 = 4 THEN -1e-100
         ELSE (k - 500) / 7.0 END::numeric AS v_numeric,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN date '2020-01-01'
         WHEN id % 333 = 0 THEN date 'infinity'
         WHEN id % 333 = 1 THEN date '-infinity'
         ELSE date '2019-06-01' + (k - 500) END AS v_date,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN timestamp '2020-01-01 00:00'
         WHEN id % 333 = 0 THEN timestamp 'infinity'
         WHEN id % 333 = 1 THEN timestamp '-infinity'
         ELSE timestamp '2019-06-01 12:34:56.789'
              + (k - 500) * interval '17 hours 13 minutes 7.5 seconds' END AS v_timestamp,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN timestamptz '2020-01-01 00:00'
         WHEN id % 333 = 0 THEN timestamptz 'infinity'
         WHEN id % 333 = 1 THEN timestamptz '-infinity'
         ELSE timestamptz '2019-06-01 12:34:56.789+00'
              + (k - 500) * interval '17 hours 13 minutes 7.5 seconds' END AS v_timestamptz,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN time '12:00'
         WHEN id % 333 = 0 THEN time '24:00:00'
         WHEN id % 333 = 1 THEN time '00:00:00'
         ELSE time '00:00' + k * interval '85.123 seconds' END AS v_time,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN interval '1 day'
         WHEN id % 100 = 17 THEN interval '24 hours'
         WHEN id % 100 = 27 THEN interval '1 mon'
         WHEN id % 100 = 37 THEN interval '30 days'
         WHEN id % 333 = 0 THEN interval '-1 day'
         WHEN id % 333 = 1 THEN interval '178000000 years'
         ELSE (k - 500) * interval '1 hour 1 minute 1.5 seconds' END AS v_interval,
    CASE WHEN id % 50 = 0 THEN NULL
         ELSE k % 3 = 0 END AS v_bool,
    CASE WHEN id % 50 = 0 THEN NULL
         ELSE ((k % 256) - 128)::"char" END AS v_char,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 'abc'
         WHEN id % 100 = 17 THEN ''
         WHEN id % 100 = 27 THEN 'ab'
         WHEN id % 100 = 37 THEN 'abc '
         WHEN id % 100 = 47 THEN 'abcd'
         WHEN id % 333 = 0 THEN repeat('x', 500)
         WHEN id % 333 = 1 THEN 'äöü'
         WHEN id % 333 = 2 THEN E'a\tb'
         ELSE md5(k::text) END AS v_text,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 'abc'
         WHEN id % 100 = 17 THEN 'abc   '
         WHEN id % 100 = 27 THEN ''
         WHEN id % 100 = 37 THEN ' abc'
         ELSE substr(md5(k::text), 1, k % 12 + 1) END::char(12) AS v_bpchar,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 'abc'
         WHEN id % 100 = 17 THEN ''
         WHEN id % 333 = 0 THEN repeat('n', 63)
         ELSE md5(k::text) || k END::name AS v_name,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN '\x00'::bytea
         WHEN id % 100 = 17 THEN '\x0000'::bytea
         WHEN id % 100 = 27 THEN '\x00ff'::bytea
         WHEN id % 100 = 37 THEN '\xff'::bytea
         WHEN id % 100 = 47 THEN '\x'::bytea
         ELSE decode(substr(md5(k::text), 1, 2 * (k % 16)), 'hex') END AS v_bytea,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN '00000000-0000-0000-0000-000000000000'::uuid
         WHEN id % 100 = 17 THEN 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid
         ELSE md5(k::text)::uuid END AS v_uuid,
    CASE WHEN id % 50 = 0 THEN NULL
         WHEN id % 100 = 7 THEN 42::oid
         WHEN id % 333 = 0 THEN 4294967295::oid
         WHEN id % 333 = 1 THEN 0::oid
         ELSE (k::int8 * 4256233)::oid END AS v_oid
FROM (SELECT id, (id * 37) % 1009 AS k FROM generate_series(1, 4000) id) s;

--
-- int2
--
CREATE TABLE oc_int2 (id int, v int2) WITH (autovacuum_enabled = off);
INSERT INTO oc_int2 SELECT id, v_int2 FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_int2_v ON oc_int2 USING pagebtree (v);
INSERT INTO oc_int2 SELECT id, v_int2 FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_int2;
SELECT pagebtree_check('oc_int2_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_int2 WHERE v = 42::int2;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_int2', 'v', '42::int2', '300::int2');

--
-- int4
--
CREATE TABLE oc_int4 (id int, v int4) WITH (autovacuum_enabled = off);
INSERT INTO oc_int4 SELECT id, v_int4 FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_int4_v ON oc_int4 USING pagebtree (v);
INSERT INTO oc_int4 SELECT id, v_int4 FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_int4;
SELECT pagebtree_check('oc_int4_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_int4 WHERE v = 42;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_int4', 'v', '42', '400000000');

--
-- int8
--
CREATE TABLE oc_int8 (id int, v int8) WITH (autovacuum_enabled = off);
INSERT INTO oc_int8 SELECT id, v_int8 FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_int8_v ON oc_int8 USING pagebtree (v);
INSERT INTO oc_int8 SELECT id, v_int8 FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_int8;
SELECT pagebtree_check('oc_int8_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_int8 WHERE v = 42::int8;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_int8', 'v', '42::int8', '500000000000::int8');

--
-- float4
--
CREATE TABLE oc_float4 (id int, v float4) WITH (autovacuum_enabled = off);
INSERT INTO oc_float4 SELECT id, v_float4 FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_float4_v ON oc_float4 USING pagebtree (v);
INSERT INTO oc_float4 SELECT id, v_float4 FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_float4;
SELECT pagebtree_check('oc_float4_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_float4 WHERE v = 1.5::float4;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_float4', 'v + 0::float4', '1.5::float4', '50::float4');

--
-- float8
--
CREATE TABLE oc_float8 (id int, v float8) WITH (autovacuum_enabled = off);
INSERT INTO oc_float8 SELECT id, v_float8 FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_float8_v ON oc_float8 USING pagebtree (v);
INSERT INTO oc_float8 SELECT id, v_float8 FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_float8;
SELECT pagebtree_check('oc_float8_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_float8 WHERE v = 1.5::float8;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_float8', 'v + 0::float8', '1.5::float8', '''Infinity''::float8');

--
-- numeric
--
CREATE TABLE oc_numeric (id int, v numeric) WITH (autovacuum_enabled = off);
INSERT INTO oc_numeric SELECT id, v_numeric FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_numeric_v ON oc_numeric USING pagebtree (v);
INSERT INTO oc_numeric SELECT id, v_numeric FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_numeric;
SELECT pagebtree_check('oc_numeric_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_numeric WHERE v = 1.5;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_numeric', 'trim_scale(v)', '1.5', '50.25');

--
-- date
--
CREATE TABLE oc_date (id int, v date) WITH (autovacuum_enabled = off);
INSERT INTO oc_date SELECT id, v_date FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_date_v ON oc_date USING pagebtree (v);
INSERT INTO oc_date SELECT id, v_date FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_date;
SELECT pagebtree_check('oc_date_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_date WHERE v = '2020-01-01'::date;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_date', 'v', '''2020-01-01''::date', '''2020-03-01''::date');

--
-- timestamp
--
CREATE TABLE oc_timestamp (id int, v timestamp) WITH (autovacuum_enabled = off);
INSERT INTO oc_timestamp SELECT id, v_timestamp FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_timestamp_v ON oc_timestamp USING pagebtree (v);
INSERT INTO oc_timestamp SELECT id, v_timestamp FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_timestamp;
SELECT pagebtree_check('oc_timestamp_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_timestamp WHERE v = '2020-01-01 00:00'::timestamp;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_timestamp', 'v', '''2020-01-01 00:00''::timestamp', '''2020-06-01''::timestamp');

--
-- timestamptz
--
CREATE TABLE oc_timestamptz (id int, v timestamptz) WITH (autovacuum_enabled = off);
INSERT INTO oc_timestamptz SELECT id, v_timestamptz FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_timestamptz_v ON oc_timestamptz USING pagebtree (v);
INSERT INTO oc_timestamptz SELECT id, v_timestamptz FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_timestamptz;
SELECT pagebtree_check('oc_timestamptz_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_timestamptz WHERE v = '2020-01-01 00:00'::timestamptz;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_timestamptz', 'v', '''2020-01-01 00:00''::timestamptz', '''2020-06-01''::timestamptz');

--
-- time
--
CREATE TABLE oc_time (id int, v time) WITH (autovacuum_enabled = off);
INSERT INTO oc_time SELECT id, v_time FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_time_v ON oc_time USING pagebtree (v);
INSERT INTO oc_time SELECT id, v_time FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_time;
SELECT pagebtree_check('oc_time_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_time WHERE v = '12:00'::time;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_time', 'v', '''12:00''::time', '''23:00''::time');

--
-- interval
--
CREATE TABLE oc_interval (id int, v interval) WITH (autovacuum_enabled = off);
INSERT INTO oc_interval SELECT id, v_interval FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_interval_v ON oc_interval USING pagebtree (v);
INSERT INTO oc_interval SELECT id, v_interval FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_interval;
SELECT pagebtree_check('oc_interval_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_interval WHERE v = '1 day'::interval;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_interval', 'justify_interval(v)', '''1 day''::interval', '''100 hours''::interval');

--
-- bool
-- Note: the planner rewrites "v = false" to "NOT v", which PostgreSQL 15
-- turns back into an index qual only for btree's own boolean opfamily
-- (IsBooleanOpfamily) and 16 and later for any opfamily with boolean
-- equality: that query is in the versions test, the others are here.
--
CREATE TABLE oc_bool (id int, v bool) WITH (autovacuum_enabled = off);
INSERT INTO oc_bool SELECT id, v_bool FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_bool_v ON oc_bool USING pagebtree (v);
INSERT INTO oc_bool SELECT id, v_bool FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_bool;
SELECT pagebtree_check('oc_bool_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_bool WHERE v > false;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_bool', 'v', 'false', 'true')
WHERE query <> 'SELECT id FROM oc_bool WHERE v = false';

--
-- "char"
--
CREATE TABLE oc_char (id int, v "char") WITH (autovacuum_enabled = off);
INSERT INTO oc_char SELECT id, v_char FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_char_v ON oc_char USING pagebtree (v);
INSERT INTO oc_char SELECT id, v_char FROM oc_data WHERE id > 3000;
-- no histogram: PostgreSQL 18.4 fails to estimate an inequality on a "char"
-- column that has one ("cache lookup failed for collation 0", btree too)
ALTER TABLE oc_char ALTER COLUMN v SET STATISTICS 0;
VACUUM ANALYZE oc_char;
SELECT pagebtree_check('oc_char_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_char WHERE v = 'a'::"char";
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_char', 'v', '''a''::"char"', '''z''::"char"');

--
-- text
--
CREATE TABLE oc_text (id int, v text) WITH (autovacuum_enabled = off);
INSERT INTO oc_text SELECT id, v_text FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_text_v ON oc_text USING pagebtree (v);
INSERT INTO oc_text SELECT id, v_text FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_text;
SELECT pagebtree_check('oc_text_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_text WHERE v = 'abc';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_text', 'v', '''abc''', '''m''');

--
-- text COLLATE "C" (byte order; may use a different key representation)
--
CREATE TABLE oc_text_c (id int, v text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO oc_text_c SELECT id, v_text FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_text_c_v ON oc_text_c USING pagebtree (v);
INSERT INTO oc_text_c SELECT id, v_text FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_text_c;
SELECT pagebtree_check('oc_text_c_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_text_c WHERE v = 'abc';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_text_c', 'v', '''abc''', '''m''');

--
-- varchar(40)
--
CREATE TABLE oc_varchar (id int, v varchar(40)) WITH (autovacuum_enabled = off);
INSERT INTO oc_varchar SELECT id, v_text::varchar(40) FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_varchar_v ON oc_varchar USING pagebtree (v);
INSERT INTO oc_varchar SELECT id, v_text::varchar(40) FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_varchar;
SELECT pagebtree_check('oc_varchar_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_varchar WHERE v = 'abc';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_varchar', 'v', '''abc''', '''m''');

--
-- char(12)
--
CREATE TABLE oc_bpchar (id int, v char(12)) WITH (autovacuum_enabled = off);
INSERT INTO oc_bpchar SELECT id, v_bpchar FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_bpchar_v ON oc_bpchar USING pagebtree (v);
INSERT INTO oc_bpchar SELECT id, v_bpchar FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_bpchar;
SELECT pagebtree_check('oc_bpchar_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_bpchar WHERE v = 'abc'::bpchar;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_bpchar', 'v', '''abc''::bpchar', '''m''::bpchar');

--
-- name
--
CREATE TABLE oc_name (id int, v name) WITH (autovacuum_enabled = off);
INSERT INTO oc_name SELECT id, v_name FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_name_v ON oc_name USING pagebtree (v);
INSERT INTO oc_name SELECT id, v_name FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_name;
SELECT pagebtree_check('oc_name_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_name WHERE v = 'abc'::name;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_name', 'v', '''abc''::name', '''m''::name');
-- name keys are normalized as text under "C" is, so the index is smaller
-- than btree's, which stores each name as a cstring
CREATE INDEX oc_name_bt ON oc_name USING btree (v);
SELECT m.key_mode, pg_relation_size('oc_name_v') < pg_relation_size('oc_name_bt') AS smaller_than_btree
FROM pagebtree_metapage('oc_name_v') m;
DROP INDEX oc_name_bt;

--
-- bytea
--
CREATE TABLE oc_bytea (id int, v bytea) WITH (autovacuum_enabled = off);
INSERT INTO oc_bytea SELECT id, v_bytea FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_bytea_v ON oc_bytea USING pagebtree (v);
INSERT INTO oc_bytea SELECT id, v_bytea FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_bytea;
SELECT pagebtree_check('oc_bytea_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_bytea WHERE v = '\x00'::bytea;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_bytea', 'v', '''\x00''::bytea', '''\x80''::bytea');

--
-- uuid
--
CREATE TABLE oc_uuid (id int, v uuid) WITH (autovacuum_enabled = off);
INSERT INTO oc_uuid SELECT id, v_uuid FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_uuid_v ON oc_uuid USING pagebtree (v);
INSERT INTO oc_uuid SELECT id, v_uuid FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_uuid;
SELECT pagebtree_check('oc_uuid_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_uuid WHERE v = '00000000-0000-0000-0000-000000000000'::uuid;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_uuid', 'v', '''00000000-0000-0000-0000-000000000000''::uuid', '''80000000-0000-0000-0000-000000000000''::uuid');

--
-- oid
--
CREATE TABLE oc_oid (id int, v oid) WITH (autovacuum_enabled = off);
INSERT INTO oc_oid SELECT id, v_oid FROM oc_data WHERE id <= 3000;
CREATE INDEX oc_oid_v ON oc_oid USING pagebtree (v);
INSERT INTO oc_oid SELECT id, v_oid FROM oc_data WHERE id > 3000;
VACUUM ANALYZE oc_oid;
SELECT pagebtree_check('oc_oid_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_oid WHERE v = 42::oid;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_check_type('oc_oid', 'v', '42::oid', '3000000000::oid');

--
-- Types kept in comparator mode only (btree's comparison functions): each
-- built on part of its rows, the rest inserted through the index, then the
-- standard queries against a sequential scan, summed up per type.  The enum
-- is declared out of alphabetical order; values of jsonb, inet, arrays and
-- ranges differ in kind and length; the composite type has NULL fields.
-- Queries whose plans use the index: all 15, and the 12 with a WHERE clause
-- as bitmap scans, but for "v IS NULL" (and, as a bitmap scan, "v IS NOT
-- NULL") on a composite type: tests of its fields, which btree does not
-- index either.
--
CREATE TYPE oc_mood AS ENUM ('zeta', 'alpha', 'mid', 'beta');
CREATE TYPE oc_pair AS (a int, b text);
-- table oc_<name> (id, v typ), v = expr over oc_data (NULL on every 50th
-- row), its index built on the first 3,000 rows, the rest inserted through
-- it, checked
CREATE OR REPLACE FUNCTION pbt_build_cmp_type(name text, typ text, expr text, opclass text DEFAULT '')
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    tbl text := 'oc_' || name;
BEGIN
    EXECUTE format('CREATE TABLE %I (id int, v %s) WITH (autovacuum_enabled = off)', tbl, typ);
    EXECUTE format('INSERT INTO %I SELECT id, CASE WHEN id %% 50 <> 0 THEN %s END FROM oc_data WHERE id <= 3000', tbl, expr);
    EXECUTE format('CREATE INDEX %I ON %I USING pagebtree (v %s)', tbl || '_v', tbl, opclass);
    EXECUTE format('INSERT INTO %I SELECT id, CASE WHEN id %% 50 <> 0 THEN %s END FROM oc_data WHERE id > 3000', tbl, expr);
    EXECUTE format('ANALYZE %I', tbl);
    PERFORM pagebtree_check((tbl || '_v')::regclass, true);
END
$$;
CREATE OR REPLACE FUNCTION pbt_check_cmp_type(name text, typ text, expr text, lo text, hi text,
                                              opclass text DEFAULT '')
RETURNS TABLE (type text, key_mode text, queries bigint, nrows numeric, idx_plans bigint,
               idx_diffs numeric, bmp_plans bigint, bmp_diffs numeric)
LANGUAGE plpgsql AS $$
DECLARE
    tbl text := 'oc_' || name;
BEGIN
    PERFORM pbt_build_cmp_type(name, typ, expr, opclass);
    RETURN QUERY
    SELECT typ, (SELECT m.key_mode FROM pagebtree_metapage((tbl || '_v')::regclass) m),
           count(*), sum(c.nrows), count(*) FILTER (WHERE c.idx_plan), sum(c.idx_diffs),
           count(*) FILTER (WHERE c.bmp_plan), sum(c.bmp_diffs)
    FROM pbt_check_type(tbl, 'v', lo, hi) c;
END
$$;
SELECT * FROM pbt_check_cmp_type('enum', 'oc_mood',
    '(ARRAY[''zeta'', ''alpha'', ''mid'', ''beta''])[1 + k % 4]::oc_mood', '''alpha''::oc_mood', '''beta''::oc_mood')
UNION ALL SELECT * FROM pbt_check_cmp_type('inet', 'inet',
    'CASE WHEN k % 10 = 3 THEN (''2001:db8::'' || to_hex(k))::inet
          ELSE (''10.'' || k % 256 || ''.'' || k % 7 || ''.'' || k % 3 || ''/'' || (8 + k % 25))::inet END',
    '''10.5.0.0/8''::inet', '''10.200.0.0''::inet')
UNION ALL SELECT * FROM pbt_check_cmp_type('cidr', 'cidr',
    '(CASE k % 3 WHEN 0 THEN ''10.'' || k % 256 || ''.0.0/16'' WHEN 1 THEN ''10.'' || k % 256 || ''.'' || k % 7 || ''.0/24''
          ELSE ''10.0.0.0/8'' END)::cidr',
    '''10.5.0.0/16''::cidr', '''10.77.0.0/16''::cidr')
UNION ALL SELECT * FROM pbt_check_cmp_type('macaddr', 'macaddr',
    '(''08:00:2b:'' || lpad(to_hex(k % 256), 2, ''0'') || '':'' || lpad(to_hex(k / 256), 2, ''0'') || '':01'')::macaddr',
    '''08:00:2b:2a:00:01''::macaddr', '''08:00:2b:f0:03:01''::macaddr')
UNION ALL SELECT * FROM pbt_check_cmp_type('macaddr8', 'macaddr8',
    '(''08:00:2b:'' || lpad(to_hex(k % 256), 2, ''0'') || '':'' || lpad(to_hex(k / 256), 2, ''0'') || '':01'')::macaddr::macaddr8',
    '''08:00:2b:ff:fe:2a:00:01''::macaddr8', '''08:00:2b:ff:fe:f0:03:01''::macaddr8')
UNION ALL SELECT * FROM pbt_check_cmp_type('money', 'money', '((k - 500) * 1.25)::numeric::money',
    '''1.25''::money', '''300''::money')
UNION ALL SELECT * FROM pbt_check_cmp_type('timetz', 'timetz',
    '((time ''00:00'' + k * interval ''83 seconds'')::text || (ARRAY[''+00'', ''+05'', ''-03''])[1 + k % 3])::timetz',
    '''10:00+00''::timetz', '''18:30-03''::timetz')
UNION ALL SELECT * FROM pbt_check_cmp_type('bit', 'bit(8)', '(k % 256)::bit(8)', '42::bit(8)', '200::bit(8)')
UNION ALL SELECT * FROM pbt_check_cmp_type('varbit', 'varbit',
    'CASE WHEN k % 2 = 0 THEN k::bit(10)::varbit ELSE (k % 32)::bit(5)::varbit END',
    '''0101''::varbit', '''1100100''::varbit')
UNION ALL SELECT * FROM pbt_check_cmp_type('jsonb', 'jsonb',
    'CASE k % 3 WHEN 0 THEN jsonb_build_object(''k'', k % 97, ''a'', k) WHEN 1 THEN to_jsonb(k)
          ELSE to_jsonb(''s'' || k) END',
    '''42''::jsonb', '''{"a": 5, "k": 5}''::jsonb')
UNION ALL SELECT * FROM pbt_check_cmp_type('int4range', 'int4range',
    'CASE WHEN k % 100 = 0 THEN ''empty''::int4range ELSE int4range(k % 50, k % 50 + k % 9 + 1) END',
    '''[10,12)''::int4range', '''[40,45)''::int4range')
UNION ALL SELECT * FROM pbt_check_cmp_type('int4multirange', 'int4multirange',
    'int4multirange(int4range(k % 40, k % 40 + 3), int4range(k % 40 + 5, k % 40 + 5 + k % 4))',
    '''{[10,13)}''::int4multirange', '''{[30,33)}''::int4multirange')
UNION ALL SELECT * FROM pbt_check_cmp_type('pg_lsn', 'pg_lsn', '((k % 100) || ''/'' || to_hex(k * 12345))::pg_lsn',
    '''42/0''::pg_lsn', '''90/10''::pg_lsn')
UNION ALL SELECT * FROM pbt_check_cmp_type('tid', 'tid', '(''('' || k % 300 || '','' || k % 11 || '')'')::tid',
    '''(42,3)''::tid', '''(200,0)''::tid')
UNION ALL SELECT * FROM pbt_check_cmp_type('xid8', 'xid8', '(k * 3)::text::xid8', '''42''::xid8', '''2000''::xid8')
UNION ALL SELECT * FROM pbt_check_cmp_type('oidvector', 'oidvector', '((k % 10) || '' '' || (k % 3))::oidvector',
    '''1''::oidvector', '''5 2''::oidvector')
UNION ALL SELECT * FROM pbt_check_cmp_type('record', 'oc_pair',
    'ROW(k % 100, CASE WHEN k % 7 = 0 THEN NULL ELSE md5(k::text) END)::oc_pair',
    '''(42,)''::oc_pair', '''(90,a)''::oc_pair')
UNION ALL SELECT * FROM pbt_check_cmp_type('tsvector', 'tsvector',
    'to_tsvector(''simple'', ''w'' || k % 37 || '' x'' || k % 11)', '''w12:1 x1:2''::tsvector', '''w30:1''::tsvector')
UNION ALL SELECT * FROM pbt_check_cmp_type('tsquery', 'tsquery',
    '(''w'' || k % 37 || CASE k % 3 WHEN 0 THEN '' & x'' WHEN 1 THEN '' | x'' ELSE '' & !x'' END || k % 11)::tsquery',
    '''w12 & x1''::tsquery', '''w30 | x2''::tsquery')
-- btree's other classes in those families: the same operators
UNION ALL SELECT * FROM pbt_check_cmp_type('varchar_ops', 'varchar',
    '(ARRAY[''abc'', ''ab'', ''Abc'', ''z'', ''''])[1 + k % 5] || k % 13', '''abc1''', '''m''', 'varchar_ops')
UNION ALL SELECT * FROM pbt_check_cmp_type('cidr_ops', 'cidr',
    '(''10.'' || k % 256 || ''.'' || k % 7 || ''.0/24'')::cidr', '''10.5.0.0/24''::cidr', '''10.77.0.0/24''::cidr',
    'cidr_ops');

-- btree's classes that order otherwise than the default: text and
-- character(n) byte by byte whatever the collation (text then with
-- normalized keys), composites by the bytes of their fields
SELECT pbt_build_cmp_type('text_pattern', 'text',
    '(ARRAY[''abc'', ''ab'', ''abc '', ''Abc'', ''ete'', ''z'', ''''])[1 + k % 7] || k % 13',
    'text_pattern_ops');
SELECT pbt_build_cmp_type('varchar_pattern', 'varchar',
    '(ARRAY[''abc'', ''ab'', ''Abc'', ''z''])[1 + k % 4] || k % 11', 'varchar_pattern_ops');
SELECT pbt_build_cmp_type('bpchar_pattern', 'char(6)',
    '(ARRAY[''abc'', ''ab '', ''Abc'', ''z''])[1 + k % 4] || k % 9', 'bpchar_pattern_ops');
SELECT pbt_build_cmp_type('record_image', 'oc_pair',
    'ROW(k % 100 - 50, CASE WHEN k % 7 = 0 THEN NULL ELSE (k % 5)::text END)::oc_pair', 'record_image_ops');
SELECT c.relname, m.key_mode
FROM pg_class c, LATERAL pagebtree_metapage(c.oid) m
WHERE c.relname IN ('oc_text_pattern_v', 'oc_varchar_pattern_v', 'oc_bpchar_pattern_v', 'oc_record_image_v')
ORDER BY 1;
SELECT q.q AS query, i.nrows, i.plan_ok AS idx_plan, i.ndiffs AS idx_diffs,
       b.plan_ok AS bmp_plan, b.ndiffs AS bmp_diffs
FROM unnest(ARRAY[
    'SELECT id FROM oc_text_pattern WHERE v = ''abc1''',
    'SELECT id FROM oc_text_pattern WHERE v ~<~ ''abc1''',
    'SELECT id FROM oc_text_pattern WHERE v ~>=~ ''ab'' AND v ~<~ ''ab5''',
    'SELECT id FROM oc_text_pattern WHERE v ~>~ ''z''',
    'SELECT v FROM oc_text_pattern WHERE v ~>=~ ''Abc'' ORDER BY v USING ~<~',
    'SELECT v FROM oc_text_pattern ORDER BY v USING ~>~ LIMIT 30',
    'SELECT id FROM oc_varchar_pattern WHERE v ~<=~ ''ab3''',
    'SELECT v FROM oc_varchar_pattern WHERE v ~>~ ''abc'' ORDER BY v USING ~<~',
    'SELECT id FROM oc_bpchar_pattern WHERE v = ''ab 3''',
    'SELECT id FROM oc_bpchar_pattern WHERE v ~<~ ''abc''',
    'SELECT v FROM oc_bpchar_pattern WHERE v ~>=~ ''ab'' ORDER BY v USING ~>~',
    'SELECT id FROM oc_record_image WHERE v *= ROW(-8, ''1'')::oc_pair',
    'SELECT id FROM oc_record_image WHERE v *< ROW(0, NULL)::oc_pair',
    'SELECT v FROM oc_record_image WHERE v *>= ROW(20, ''3'')::oc_pair ORDER BY v USING *<'
]) WITH ORDINALITY AS q(q, n)
CROSS JOIN LATERAL pbt_cmp(q.q, 'index') AS i
LEFT JOIN LATERAL (SELECT * FROM pbt_cmp(q.q, 'bitmap') WHERE q.q NOT LIKE '%ORDER BY%') AS b ON true
ORDER BY q.n;

-- an operator class that declares a built-in comparison function for
-- another type (int4's, for oid) gets no normalized keys, which could not
-- encode its values; nor has it operators for its own type, which the
-- build's sort needs: the build fails (btree's checks the support function)
CREATE OPERATOR CLASS oc_oid_signed_ops FOR TYPE oid USING pagebtree AS
    OPERATOR 1 < (int4, int4), OPERATOR 2 <= (int4, int4), OPERATOR 3 = (int4, int4),
    OPERATOR 4 >= (int4, int4), OPERATOR 5 > (int4, int4), FUNCTION 1 btint4cmp(int4, int4);
CREATE TABLE oc_oid_signed (v oid);
INSERT INTO oc_oid_signed VALUES (1), (2), (3000000000), (5);
-- (its comparison function is registered for int4 from PostgreSQL 18 on, so
-- it is the missing function there, the missing operator before)
DO $$
BEGIN
    CREATE INDEX oc_oid_signed_v ON oc_oid_signed USING pagebtree (v oc_oid_signed_ops);
EXCEPTION WHEN invalid_object_definition THEN
    RAISE WARNING '%', substring(SQLERRM FROM '^operator family of column 1 of index "oc_oid_signed_v" has no');
END $$;
DROP TABLE oc_oid_signed;
DROP OPERATOR FAMILY oc_oid_signed_ops USING pagebtree;

-- the build's sort (tuplesort) finds its comparison function through an
-- operator family that holds the ordering operator: a btree one before 18,
-- any ordering one from 18 (pagebtree's own comes first: it is older).  So an
-- operator class of pagebtree's own (here: int4 in reverse) builds before 18
-- only when a btree family holds its operator with its comparison function.
CREATE FUNCTION oc_rev_cmp(int4, int4) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT AS 'SELECT btint4cmp($2, $1)';
CREATE OPERATOR <<< (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4gt);
CREATE OPERATOR <<= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4ge);
CREATE OPERATOR >>= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4le);
CREATE OPERATOR >>> (LEFTARG = int4, RIGHTARG = int4, FUNCTION = int4lt);
CREATE OPERATOR CLASS oc_rev_ops FOR TYPE int4 USING pagebtree AS
    OPERATOR 1 <<<, OPERATOR 2 <<=, OPERATOR 3 =, OPERATOR 4 >>=, OPERATOR 5 >>>,
    FUNCTION 1 oc_rev_cmp(int4, int4);
CREATE TABLE oc_rev (v int4);
INSERT INTO oc_rev SELECT (i * 7919) % 1009 FROM generate_series(1, 1000) i;
CREATE FUNCTION oc_rev_build(refusal_before_18 text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    outcome text;
    expected text := CASE WHEN current_setting('server_version_num')::int >= 180000
                          THEN 'built and checked' ELSE refusal_before_18 END;
BEGIN
    BEGIN
        CREATE INDEX oc_rev_v ON oc_rev USING pagebtree (v oc_rev_ops);
        PERFORM pagebtree_check('oc_rev_v', true);
        DROP INDEX oc_rev_v;
        outcome := 'built and checked';
    EXCEPTION WHEN feature_not_supported THEN
        outcome := SQLERRM;
    END;
    IF outcome = expected THEN
        RETURN 'as expected';
    END IF;
    RETURN outcome;
END $$;
SELECT oc_rev_build('cannot build index "oc_rev_v": operator public.<<<(integer,integer) of column 1 belongs to no btree operator family');
-- a btree family that takes <<< for int4's order would sort it wrongly
CREATE OPERATOR CLASS oc_decoy_ops FOR TYPE int4 USING btree AS
    OPERATOR 1 <<<, FUNCTION 1 btint4cmp(int4, int4);
SELECT oc_rev_build('cannot build index "oc_rev_v": the btree operator family that holds operator public.<<<(integer,integer) of column 1 has another comparison function');
DROP OPERATOR FAMILY oc_decoy_ops USING btree;
DROP FUNCTION oc_rev_build(text);
CREATE OPERATOR CLASS oc_rev_ops FOR TYPE int4 USING btree AS
    OPERATOR 1 <<<, OPERATOR 2 <<=, OPERATOR 3 =, OPERATOR 4 >>=, OPERATOR 5 >>>,
    FUNCTION 1 oc_rev_cmp(int4, int4);
CREATE INDEX oc_rev_v ON oc_rev USING pagebtree (v oc_rev_ops);
SELECT pagebtree_check('oc_rev_v', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT v FROM oc_rev WHERE v <<< 995 ORDER BY v USING <<<;
SELECT array_agg(v) FROM (SELECT v FROM oc_rev WHERE v <<< 995 ORDER BY v USING <<<) s;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT array_agg(v ORDER BY v DESC) FROM oc_rev WHERE v > 995;
DROP TABLE oc_rev;
DROP OPERATOR FAMILY oc_rev_ops USING pagebtree;
DROP OPERATOR FAMILY oc_rev_ops USING btree;
DROP OPERATOR <<< (int4, int4), <<= (int4, int4), >>= (int4, int4), >>> (int4, int4);
DROP FUNCTION oc_rev_cmp(int4, int4);

-- arrays (= ANY of arrays would take a two-dimensional array apart: own queries)
SELECT pbt_build_cmp_type('int4arr', 'int4[]',
    'CASE k % 5 WHEN 0 THEN ARRAY[k % 10] WHEN 1 THEN ARRAY[k % 10, NULL] ELSE ARRAY[k % 10, k % 7, k % 3] END');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_int4arr WHERE v = '{3,1}';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT q.q AS query, i.nrows, i.plan_ok AS idx_plan, i.ndiffs AS idx_diffs
FROM unnest(ARRAY[
    'SELECT id FROM oc_int4arr WHERE v = ''{3,1,0}''',
    'SELECT id FROM oc_int4arr WHERE v = ''{6,NULL}''',
    'SELECT id FROM oc_int4arr WHERE v < ''{3,1}''',
    'SELECT id FROM oc_int4arr WHERE v >= ''{7}'' AND v < ''{8,0}''',
    'SELECT id FROM oc_int4arr WHERE v IS NULL',
    'SELECT v FROM oc_int4arr ORDER BY v',
    'SELECT v FROM oc_int4arr WHERE v > ''{5}'' ORDER BY v DESC LIMIT 25'
]) WITH ORDINALITY AS q(q, n)
CROSS JOIN LATERAL pbt_cmp(q.q, 'index') AS i
ORDER BY q.n;

-- inet's subnet operators (a range of the index on 18, a filter before:
-- versions.sql)
SELECT * FROM pbt_cmp('SELECT v FROM oc_inet WHERE v << ''10.5.0.0/16''', 'indexonly');
SELECT * FROM pbt_cmp('SELECT v FROM oc_inet WHERE v <<= ''10.5.0.0/16'' ORDER BY v DESC', 'indexonly');

-- Index-only scans of every fixed-width normalized kind and of C-collated
-- text in indexes of several columns, some DESC: their tuples are laid out
-- straight from the keys' bytes (pbt_item_fixed, pbt_item_tuple_data), rows
-- with a NULL or a text too long for a 1-byte header by the general path.
CREATE TABLE oc_fixed AS
SELECT v_int2 AS i2, v_int8 AS i8, v_date AS d, (id % 7)::oid AS o,
       id % 3 = 0 AS b, chr(65 + id % 20)::"char" AS c, v_uuid AS u,
       v_timestamp AS ts, v_int4 AS i4,
       CASE WHEN id % 97 = 0 THEN NULL
            WHEN id % 89 = 0 THEN repeat(md5(id::text), 4 + id % 3)
            ELSE substr(md5(id::text), 1, id % 9) END COLLATE "C" AS t
FROM oc_data;
CREATE INDEX oc_fixed_all ON oc_fixed USING pagebtree (i2, i8, d, o, b, c, u DESC, ts, i4);
CREATE INDEX oc_fixed_text ON oc_fixed USING pagebtree (c, t DESC, i4, t);
VACUUM ANALYZE oc_fixed;
SELECT * FROM pbt_cmp('SELECT i2, i8, d, o, b, c, u, ts, i4 FROM oc_fixed ORDER BY i2, i8, d, o, b, c, u DESC, ts, i4', 'indexonly');
SELECT * FROM pbt_cmp('SELECT i2, i8, d, o, b, c, u, ts, i4 FROM oc_fixed ORDER BY i2 DESC, i8 DESC, d DESC, o DESC, b DESC, c DESC, u, ts DESC, i4 DESC', 'indexonly');
SELECT * FROM pbt_cmp('SELECT u, o FROM oc_fixed WHERE i2 = 42 AND i8 = 42', 'indexonly');
SELECT * FROM pbt_cmp('SELECT c, t, i4 FROM oc_fixed ORDER BY c, t DESC, i4, t', 'indexonly');
SELECT * FROM pbt_cmp('SELECT c, t, i4 FROM oc_fixed WHERE c = ''B'' ORDER BY c DESC, t, i4 DESC', 'indexonly');

--
-- Cross-type comparisons: the constant has a different type than the column
-- but belongs to the same operator family.
--
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM oc_int8 WHERE v = 42::int4;
EXPLAIN (COSTS OFF) SELECT id FROM oc_int2 WHERE v < 1000::int8;
EXPLAIN (COSTS OFF) SELECT id FROM oc_date WHERE v < '2020-01-01'::timestamptz;
EXPLAIN (COSTS OFF) SELECT id FROM oc_float4 WHERE v > 1.5::float8;
EXPLAIN (COSTS OFF) SELECT id FROM oc_name WHERE v = 'abc'::text;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT q.q AS query, i.nrows, i.plan_ok AS idx_plan, i.ndiffs AS idx_diffs,
       b.plan_ok AS bmp_plan, b.ndiffs AS bmp_diffs
FROM unnest(ARRAY[
    'SELECT id FROM oc_int8 WHERE v = 42::int4',
    'SELECT id FROM oc_int8 WHERE v = 42::int2',
    'SELECT id FROM oc_int8 WHERE v < 42::int4',
    'SELECT id FROM oc_int8 WHERE v >= 32767::int2',
    'SELECT id FROM oc_int8 WHERE v > (-2147483648)::int4 AND v <= 2147483647::int4',
    'SELECT id FROM oc_int4 WHERE v = 42::int8',
    'SELECT id FROM oc_int4 WHERE v < 3000000000::int8',
    'SELECT id FROM oc_int4 WHERE v > 3000000000::int8',
    'SELECT id FROM oc_int4 WHERE v >= -3000000000::int8 AND v < 100::int2',
    'SELECT id FROM oc_int2 WHERE v < 1000::int8',
    'SELECT id FROM oc_int2 WHERE v = 42::int4',
    'SELECT id FROM oc_int2 WHERE v > 40000::int8',
    'SELECT id FROM oc_int2 WHERE v >= -40000::int4',
    'SELECT id FROM oc_int2 WHERE v = 32767::int8',
    'SELECT id FROM oc_int2 WHERE v = 65535::int4',
    'SELECT id FROM oc_int2 WHERE v = ANY (ARRAY[42, 65578, NULL, -32768]::int8[])',
    'SELECT v FROM oc_int8 WHERE v > 42::int4 ORDER BY v LIMIT 20',
    'SELECT v FROM oc_int2 WHERE v < 100000::int8 ORDER BY v DESC LIMIT 20',
    'SELECT id FROM oc_float4 WHERE v > 1.5::float8',
    'SELECT id FROM oc_float4 WHERE v = 1.5::float8',
    'SELECT id FROM oc_float4 WHERE v < 0.1::float8',
    'SELECT id FROM oc_float4 WHERE v = ''NaN''::float8',
    'SELECT id FROM oc_float4 WHERE v > 1e300::float8',
    'SELECT id FROM oc_float4 WHERE v > -1e300::float8 AND v < 1e-40::float8',
    'SELECT id FROM oc_float8 WHERE v <= 1.5::float4',
    'SELECT id FROM oc_float8 WHERE v = ''-0''::float4',
    'SELECT id FROM oc_float8 WHERE v >= ''Infinity''::float4',
    'SELECT id FROM oc_date WHERE v < ''2020-01-01''::timestamptz',
    'SELECT id FROM oc_date WHERE v = ''2020-01-01 00:00''::timestamp',
    'SELECT id FROM oc_date WHERE v > ''2020-01-01 00:00:01''::timestamp',
    'SELECT id FROM oc_date WHERE v >= ''2019-12-31 23:59:59.999999''::timestamp',
    'SELECT id FROM oc_date WHERE v <= ''infinity''::timestamp',
    'SELECT id FROM oc_date WHERE v > ''-infinity''::timestamptz AND v < ''infinity''::timestamptz',
    'SELECT id FROM oc_timestamp WHERE v >= ''2020-01-01''::date',
    'SELECT id FROM oc_timestamp WHERE v < ''2020-01-01''::timestamptz',
    'SELECT id FROM oc_timestamp WHERE v = ''2020-01-01''::date',
    'SELECT id FROM oc_timestamptz WHERE v < ''2020-01-01''::date',
    'SELECT id FROM oc_timestamptz WHERE v = ''2020-01-01 00:00''::timestamp',
    'SELECT id FROM oc_timestamptz WHERE v > ''2019-07-01''::date AND v <= ''2019-08-01 12:00''::timestamp',
    'SELECT v FROM oc_date WHERE v >= ''2019-12-25 12:00''::timestamp ORDER BY v LIMIT 20',
    'SELECT id FROM oc_name WHERE v = ''abc''::text',
    'SELECT id FROM oc_name WHERE v < ''m''::text',
    'SELECT id FROM oc_name WHERE v >= ''abc''::text AND v < ''abd''::text',
    'SELECT id FROM oc_text WHERE v = ''abc''::name COLLATE "default"',
    'SELECT id FROM oc_text WHERE v >= ''m''::name COLLATE "default"',
    'SELECT id FROM oc_varchar WHERE v > ''abc''::name COLLATE "default"',
    'SELECT id FROM oc_text_c WHERE v = ''abc''::name',
    'SELECT id FROM oc_text_c WHERE v < ''abd''::name',
    'SELECT v FROM oc_text_c WHERE v >= ''ab''::name ORDER BY v LIMIT 20',
    'SELECT id FROM oc_name WHERE v = ANY (ARRAY[''abc'', ''m'', NULL]::text[])'
]) WITH ORDINALITY AS q(q, n)
CROSS JOIN LATERAL pbt_cmp(q.q, 'index') AS i
CROSS JOIN LATERAL pbt_cmp(q.q, 'bitmap') AS b
ORDER BY q.n;

--
-- The operator classes are valid and mirror btree's default classes: same
-- operators for every strategy (including cross-type members of the family)
-- and the same support function 1.
--
SELECT opcname, amvalidate(oid)
FROM pg_opclass
WHERE opcmethod = (SELECT oid FROM pg_am WHERE amname = 'pagebtree')
ORDER BY opcname;

WITH pbt AS (SELECT oid FROM pg_am WHERE amname = 'pagebtree'),
types(t) AS (VALUES ('int2'::regtype), ('int4'), ('int8'), ('float4'), ('float8'),
                    ('numeric'), ('date'), ('timestamp'), ('timestamptz'), ('time'),
                    ('interval'), ('bool'), ('"char"'), ('text'), ('bpchar'),
                    ('name'), ('bytea'), ('uuid'), ('oid'), ('anyenum'), ('inet'),
                    ('macaddr'), ('macaddr8'), ('money'), ('timetz'), ('bit'), ('varbit'),
                    ('jsonb'), ('anyarray'), ('anyrange'), ('anymultirange'), ('pg_lsn'),
                    ('tid'), ('xid8'), ('oidvector'), ('record'), ('tsvector'), ('tsquery')),
pairs AS (
    SELECT types.t, b.opcname AS btree_opclass, p.opcname AS pbt_opclass,
           b.opcfamily AS bfam, p.opcfamily AS pfam, p.opcdefault AS pbt_default
    FROM types
    JOIN pg_opclass b ON b.opcintype = types.t AND b.opcdefault AND b.opcmethod = 403
    LEFT JOIN pg_opclass p ON p.opcintype = types.t AND p.opcdefault
                          AND p.opcmethod = (SELECT oid FROM pbt))
SELECT t, btree_opclass, pbt_opclass, pbt_default,
       (SELECT count(*) FROM pg_amop WHERE amopfamily = pfam) AS pbt_ops,
       (SELECT count(*) FROM (
            (SELECT amoplefttype, amoprighttype, amopstrategy, amopopr, amoppurpose
             FROM pg_amop WHERE amopfamily = bfam
               AND (amoplefttype = t OR amoprighttype = t)
             EXCEPT
             SELECT amoplefttype, amoprighttype, amopstrategy, amopopr, amoppurpose
             FROM pg_amop WHERE amopfamily = pfam)
            UNION ALL
            (SELECT amoplefttype, amoprighttype, amopstrategy, amopopr, amoppurpose
             FROM pg_amop WHERE amopfamily = pfam
               AND (amoplefttype = t OR amoprighttype = t)
             EXCEPT
             SELECT amoplefttype, amoprighttype, amopstrategy, amopopr, amoppurpose
             FROM pg_amop WHERE amopfamily = bfam)) d) AS op_diffs,
       (SELECT count(*) FROM (
            (SELECT amproclefttype, amprocrighttype, amproc
             FROM pg_amproc WHERE amprocfamily = bfam AND amprocnum = 1
               AND (amproclefttype = t OR amprocrighttype = t)
             EXCEPT
             SELECT amproclefttype, amprocrighttype, amproc
             FROM pg_amproc WHERE amprocfamily = pfam)
            UNION ALL
            (SELECT amproclefttype, amprocrighttype, amproc
             FROM pg_amproc WHERE amprocfamily = pfam
               AND (amproclefttype = t OR amprocrighttype = t)
             EXCEPT
             SELECT amproclefttype, amprocrighttype, amproc
             FROM pg_amproc WHERE amprocfamily = bfam AND amprocnum = 1)) d) AS proc_diffs
FROM pairs
ORDER BY t::text;

-- every btree operator class has a pagebtree one of its name, type and
-- family name (none listed)
SELECT b.opcname, b.opcintype::regtype
FROM pg_opclass b JOIN pg_opfamily bf ON bf.oid = b.opcfamily
WHERE b.opcmethod = 403
  AND NOT EXISTS (SELECT 1 FROM pg_opclass p JOIN pg_opfamily pf ON pf.oid = p.opcfamily
                  WHERE p.opcmethod = (SELECT oid FROM pg_am WHERE amname = 'pagebtree')
                    AND p.opcname = b.opcname AND p.opcintype = b.opcintype
                    AND p.opcdefault = b.opcdefault AND pf.opfname = bf.opfname)
ORDER BY 1;

-- pagebtree registers support function 1 only
SELECT DISTINCT amprocnum
FROM pg_amproc
WHERE amprocfamily IN (SELECT oid FROM pg_opfamily
                       WHERE opfmethod = (SELECT oid FROM pg_am WHERE amname = 'pagebtree'));

-- clean up
DROP TABLE oc_data, oc_int2, oc_int4, oc_int8, oc_float4, oc_float8, oc_numeric,
    oc_date, oc_timestamp, oc_timestamptz, oc_time, oc_interval, oc_bool, oc_char,
    oc_text, oc_text_c, oc_varchar, oc_bpchar, oc_name, oc_bytea, oc_uuid, oc_oid,
    oc_enum, oc_inet, oc_cidr, oc_macaddr, oc_macaddr8, oc_money, oc_timetz, oc_bit, oc_varbit,
    oc_jsonb, oc_int4range, oc_int4multirange, oc_pg_lsn, oc_tid, oc_xid8, oc_oidvector, oc_record,
    oc_int4arr, oc_tsvector, oc_tsquery, oc_varchar_ops, oc_cidr_ops, oc_text_pattern,
    oc_varchar_pattern, oc_bpchar_pattern, oc_record_image, oc_fixed;
DROP TYPE oc_mood, oc_pair;
DROP FUNCTION pbt_check_cmp_type(text, text, text, text, text, text);
DROP FUNCTION pbt_build_cmp_type(text, text, text, text);
DROP FUNCTION pbt_check_type(text, text, text, text);
DROP FUNCTION pbt_type_queries(text, text, text, text);
