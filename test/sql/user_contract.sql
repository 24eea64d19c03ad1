--
-- user_contract: what a btree user relies on and a review found missing
-- (issue #20): reloptions that never break a rebuild, scan statistics equal
-- to btree's, inspection functions that do not leak keys, key size limits
-- stated in the user's bytes, clear errors from the SQL functions, and the
-- README's statements about fingerprint leaves, booleans, compressed keys,
-- partitioned unique indexes and row comparisons.
--
-- Indexes are built WITH (delta = off): these tests read pages by block
-- number, and without preloading an index reserves blocks for its delta
-- area by default (delta.sql).
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- 1. A layout reloption that cannot apply is ignored with a NOTICE at every
-- build, so every rebuild after ALTER INDEX SET still works.  (The first
-- build of a session, without preloading, also says so in a NOTICE: it is
-- made before NOTICEs are shown.)
CREATE TABLE uc_f (f float8, g float8);
INSERT INTO uc_f SELECT i / 7.0, i FROM generate_series(1, 2000) i;
CREATE INDEX uc_f_f ON uc_f USING pagebtree (f) WITH (delta = off);
SET client_min_messages = notice;
ALTER INDEX uc_f_f SET (layout = heads);
TRUNCATE uc_f;
INSERT INTO uc_f SELECT i / 7.0, i FROM generate_series(1, 2000) i;
ALTER INDEX uc_f_f SET (layout = dense);
REINDEX INDEX uc_f_f;
ALTER INDEX uc_f_f SET (layout = bpa);
VACUUM FULL uc_f;
ALTER INDEX uc_f_f SET (layout = fingerprint);
CLUSTER uc_f USING uc_f_f;
ALTER INDEX uc_f_f SET (layout = semidense);
ALTER TABLE uc_f ALTER COLUMN f TYPE numeric;
ALTER INDEX uc_f_f SET (layout = "heads-nohints");
-- what pg_dump writes and pg_restore runs: the definition with its options
SELECT pg_get_indexdef('uc_f_f'::regclass) AS def \gset
DROP INDEX uc_f_f;
:def;
SELECT pagebtree_check('uc_f_f', true);
SELECT DISTINCT layout FROM pagebtree_layout_summary('uc_f_f') ORDER BY 1;
SELECT * FROM pbt_cmp('SELECT f FROM uc_f WHERE f BETWEEN 10 AND 20 ORDER BY f');
-- the same at CREATE INDEX, and for layouts whose payload needs differ
CREATE INDEX uc_f_g ON uc_f USING pagebtree (g) WITH (delta = off, layout = bpa);
CREATE TABLE uc_i (k int8, v int8);
INSERT INTO uc_i SELECT i, i FROM generate_series(1, 1000) i;
CREATE INDEX uc_i_dense ON uc_i USING pagebtree (k) INCLUDE (v) WITH (delta = off, layout = dense);
CREATE INDEX uc_i_fp ON uc_i USING pagebtree (k) INCLUDE (v) WITH (delta = off, layout = fingerprint);
CREATE INDEX uc_i_semi ON uc_i USING pagebtree (k) WITH (delta = off, layout = semidense);
CREATE INDEX uc_i_bpa ON uc_i USING pagebtree (k) INCLUDE (v) WITH (delta = off, layout = bpa);
SELECT pagebtree_check('uc_i_dense', true), pagebtree_check('uc_i_fp', true),
       pagebtree_check('uc_i_semi', true), pagebtree_check('uc_i_bpa', true);
-- values no index can use are refused when they are set
ALTER INDEX uc_i_bpa SET (layout = wide);
ALTER INDEX uc_i_bpa SET (bpa_log_size = 12);
ALTER INDEX uc_i_bpa SET (bpa_block_size = 128);
ALTER INDEX uc_i_bpa SET (fillfactor = 5);
ALTER INDEX uc_i_bpa SET (pages_per_range = 4);
REINDEX INDEX uc_i_bpa;
SELECT pagebtree_check('uc_i_bpa', true);
DROP TABLE uc_i;

-- 2. idx_scan, idx_tup_read and idx_tup_fetch count what btree's count,
-- for index, index-only and bitmap scans, and keys that never match.
-- (The tables have no statistics: with a histogram, the planner reads a
-- column's actual minimum or maximum from a btree index, which counts.)
-- For = ANY arrays pagebtree counts a scan per element, as btree did up to
-- 16; from 17 on btree counts its descents, which can be fewer, so arrays
-- are checked against pagebtree's own rule below.
CREATE TABLE uc_s_bt (k int8, v text) WITH (autovacuum_enabled = off);
CREATE TABLE uc_s_pbt (k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO uc_s_bt SELECT i, 'v' || i FROM generate_series(1, 5000) i;
INSERT INTO uc_s_pbt SELECT * FROM uc_s_bt;
CREATE INDEX uc_s_bt_k ON uc_s_bt USING btree (k);
CREATE INDEX uc_s_pbt_k ON uc_s_pbt USING pagebtree (k) WITH (delta = off);
VACUUM uc_s_bt, uc_s_pbt;
CREATE FUNCTION uc_run(tab text, OUT plans text, OUT rows bigint)
LANGUAGE plpgsql AS $$
DECLARE
    q text;
    n bigint;
    ln text;
BEGIN
    plans := '';
    rows := 0;
    FOREACH q IN ARRAY ARRAY[
        'SELECT * FROM %s WHERE k = 42',
        'SELECT * FROM %s WHERE k BETWEEN 100 AND 199',
        'SELECT k FROM %s WHERE k BETWEEN 300 AND 320',
        'SELECT * FROM %s WHERE k IS NULL',
        'SELECT * FROM %s WHERE k < 0',
        'SELECT * FROM %s ORDER BY k DESC LIMIT 3']
    LOOP
        FOREACH ln IN ARRAY ARRAY['on', 'off'] LOOP
            -- 'on': index and index-only scans; 'off': bitmap scans
            EXECUTE format('SET LOCAL enable_indexscan = %s', ln);
            EXECUTE format('SET LOCAL enable_indexonlyscan = %s', ln);
            EXECUTE format('SET LOCAL enable_bitmapscan = %s', ln = 'off');
            SET LOCAL enable_seqscan = off;
            SET LOCAL enable_sort = off;
            FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || format(q, tab) LOOP
                IF ln ~ 'Scan' THEN
                    plans := plans || regexp_replace(ln, '(on|using) \w+', '', 'g') || ';';
                END IF;
            END LOOP;
            EXECUTE format('SELECT count(*) FROM (%s) s', format(q, tab)) INTO n;
            rows := rows + n;
        END LOOP;
    END LOOP;
END $$;
SELECT a.plans = b.plans AS same_plans, a.rows, b.rows AS pbt_rows,
       a.plans LIKE '%Bitmap Index Scan%' AND a.plans LIKE '%Index Only Scan%' AS all_kinds
FROM uc_run('uc_s_bt') a, uc_run('uc_s_pbt') b;
SELECT pg_stat_force_next_flush();
SELECT b.idx_scan, b.idx_tup_read, b.idx_tup_fetch,
       (p.idx_scan, p.idx_tup_read, p.idx_tup_fetch) = (b.idx_scan, b.idx_tup_read, b.idx_tup_fetch) AS equal
FROM pg_stat_user_indexes b, pg_stat_user_indexes p
WHERE b.indexrelname = 'uc_s_bt_k' AND p.indexrelname = 'uc_s_pbt_k';
-- arrays: one scan per element (5 by an index scan, 5 by a bitmap scan),
-- none for an empty array
CREATE FUNCTION uc_arrays(OUT idx_scan bigint, OUT idx_tup_read bigint,
                          OUT idx_tup_fetch bigint, OUT rows bigint)
LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    SELECT s.idx_scan, s.idx_tup_read, s.idx_tup_fetch
    INTO idx_scan, idx_tup_read, idx_tup_fetch
    FROM pg_stat_user_indexes s WHERE s.indexrelname = 'uc_s_pbt_k';
    rows := 0;
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_indexonlyscan = off;
    FOREACH n IN ARRAY ARRAY[0, 1] LOOP
        EXECUTE format('SET LOCAL enable_indexscan = %s', n = 0);
        EXECUTE format('SET LOCAL enable_bitmapscan = %s', n = 1);
        SELECT rows + count(*) INTO rows FROM uc_s_pbt WHERE k = ANY ('{5, 50, 500, 5000, 50000}');
        SELECT rows + count(*) INTO rows FROM uc_s_pbt WHERE k = ANY ('{}');
    END LOOP;
    PERFORM pg_stat_force_next_flush();
END $$;
CREATE TEMP TABLE uc_before AS SELECT * FROM uc_arrays();
SELECT s.idx_scan - b.idx_scan AS idx_scan, s.idx_tup_read - b.idx_tup_read AS idx_tup_read,
       s.idx_tup_fetch - b.idx_tup_fetch AS idx_tup_fetch, b.rows
FROM pg_stat_user_indexes s, uc_before b WHERE s.indexrelname = 'uc_s_pbt_k';
DROP FUNCTION uc_run;
DROP FUNCTION uc_arrays;
DROP TABLE uc_before;
DROP TABLE uc_s_bt, uc_s_pbt;

-- 3. Key bytes need SELECT on the table or on every column the index
-- stores, and no row-level security; EXECUTE alone is not enough.
CREATE TABLE uc_p (k int8, secret text COLLATE "C", other int);
INSERT INTO uc_p SELECT i, 'secret ' || i, i FROM generate_series(1, 500) i;
CREATE INDEX uc_p_k ON uc_p USING pagebtree (k) INCLUDE (secret) WITH (delta = off);
CREATE ROLE regress_pbt_monitor;
GRANT EXECUTE ON FUNCTION pagebtree_page_items(regclass, bigint),
    pagebtree_page_stats(regclass, bigint), pagebtree_metapage(regclass),
    pagebtree_layout_summary(regclass) TO regress_pbt_monitor;
SET ROLE regress_pbt_monitor;
SELECT count(*) FROM pagebtree_page_items('uc_p_k', 1);
SELECT page_type, high_key IS NULL AS no_high_key FROM pagebtree_page_stats('uc_p_k', 1);
SELECT page_type, pages > 0 AS has_pages FROM pagebtree_layout_summary('uc_p_k');
SELECT key_mode FROM pagebtree_metapage('uc_p_k');
RESET ROLE;
-- the key column alone is not enough: items carry the INCLUDE column too
GRANT SELECT (k) ON uc_p TO regress_pbt_monitor;
SET ROLE regress_pbt_monitor;
SELECT count(*) FROM pagebtree_page_items('uc_p_k', 1);
RESET ROLE;
GRANT SELECT (secret) ON uc_p TO regress_pbt_monitor;
SET ROLE regress_pbt_monitor;
SELECT count(*) > 0 AS items FROM pagebtree_page_items('uc_p_k', 1);
SELECT high_key IS NULL AS no_high_key FROM pagebtree_page_stats('uc_p_k', 1);
RESET ROLE;
REVOKE SELECT (k, secret) ON uc_p FROM regress_pbt_monitor;
GRANT SELECT ON uc_p TO regress_pbt_monitor;
ALTER TABLE uc_p ENABLE ROW LEVEL SECURITY;
SET ROLE regress_pbt_monitor;
SELECT count(*) FROM pagebtree_page_items('uc_p_k', 1);
RESET ROLE;
DROP TABLE uc_p;
DROP OWNED BY regress_pbt_monitor;
DROP ROLE regress_pbt_monitor;

-- 4. Size limits of normalized keys, in the user's bytes: text up to 2,684
-- bytes, bytea up to 2,683 bytes counting each zero byte twice.
CREATE TABLE uc_b (b bytea, t text COLLATE "C");
CREATE INDEX uc_b_b ON uc_b USING pagebtree (b) WITH (delta = off);
CREATE INDEX uc_b_t ON uc_b USING pagebtree (t) WITH (delta = off);
INSERT INTO uc_b (b) VALUES (convert_to(repeat('a', 2683), 'UTF8'));
INSERT INTO uc_b (b) VALUES (decode(repeat('00', 1341), 'hex') || '\x61'::bytea);
INSERT INTO uc_b (t) VALUES (repeat('a', 2684));
INSERT INTO uc_b (b) VALUES (decode(repeat('00', 1342), 'hex'));
INSERT INTO uc_b (t) VALUES (repeat('a', 2685));
SELECT length(b) FROM uc_b WHERE b >= '\x00'::bytea ORDER BY b;
SELECT pagebtree_check('uc_b_b', true), pagebtree_check('uc_b_t', true);
DROP TABLE uc_b;

-- 5. Every SQL function names what is wrong with its arguments.
CREATE TABLE uc_part (k int8) PARTITION BY RANGE (k);
CREATE TABLE uc_part_1 PARTITION OF uc_part FOR VALUES FROM (0) TO (1000);
CREATE INDEX uc_part_k ON uc_part USING pagebtree (k) WITH (delta = off);
CREATE INDEX uc_f_btree ON uc_f (g);
SELECT pagebtree_check('4294967294'::oid::regclass);
SELECT pagebtree_metapage('4294967294'::oid::regclass);
SELECT pagebtree_page_stats('4294967294'::oid::regclass, 1);
SELECT pagebtree_page_items('4294967294'::oid::regclass, 1);
SELECT pagebtree_layout_summary('4294967294'::oid::regclass);
SELECT pagebtree_check('uc_part_k');
SELECT pagebtree_metapage('uc_part_k');
SELECT pagebtree_page_stats('uc_part_k', 1);
SELECT pagebtree_page_items('uc_part_k', 1);
SELECT pagebtree_layout_summary('uc_part_k');
SELECT pagebtree_check('uc_f');
SELECT pagebtree_layout_summary('uc_f');
SELECT pagebtree_metapage('uc_f_btree');
SELECT pagebtree_layout_summary('uc_f_btree');
SELECT pagebtree_page_stats('uc_f_g', -1);
SELECT pagebtree_page_stats('uc_f_g', 1000000);
SELECT pagebtree_page_items('uc_f_g', 0);
SELECT count(*) AS no_rows_for_null FROM pagebtree_page_items('uc_f_g', NULL);
-- the partitions' own indexes are pagebtree indexes
SELECT pagebtree_check(i.indexrelid::regclass, true)
FROM pg_index i WHERE i.indrelid = 'uc_part_1'::regclass;
DROP TABLE uc_part;

-- 6a. Fixed-width keys never get a fingerprint counter, duplicates or not;
-- string keys whose heads collide do.  (Without deduplicate_items, so that
-- the duplicates stay on heads leaves instead of making lists leaves,
-- which do not adapt.)
CREATE TABLE uc_dup (k int8, t text COLLATE "C");
INSERT INTO uc_dup SELECT i / 4, md5((i / 400)::text) || (i / 4) FROM generate_series(1, 20000) i;
CREATE INDEX uc_dup_k ON uc_dup USING pagebtree (k) WITH (delta = off, deduplicate_items = off);
CREATE INDEX uc_dup_t ON uc_dup USING pagebtree (t) WITH (delta = off, deduplicate_items = off);
CREATE FUNCTION uc_counted(idx regclass) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b,
        LATERAL pagebtree_page_stats(idx, b) s
    WHERE s.page_type = 'leaf' AND (s.flags LIKE '%ops=%' OR s.layout = 'fingerprint') $$;
SELECT uc_counted('uc_dup_k') AS int8_leaves_adapting,
       uc_counted('uc_dup_t') > 0 AS text_leaves_adapting;
-- point lookups would turn counted leaves into fingerprint leaves
DO $$
BEGIN
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_bitmapscan = off;
    FOR i IN 1..3000 LOOP
        PERFORM * FROM uc_dup WHERE k = (i * 7) % 5000;
    END LOOP;
END $$;
SELECT count(*) FILTER (WHERE layout = 'fingerprint') AS int8_fingerprint_pages
FROM pagebtree_layout_summary('uc_dup_k');
SELECT * FROM pbt_cmp('SELECT * FROM uc_dup WHERE k = 77');
DROP FUNCTION uc_counted;
DROP TABLE uc_dup;

-- 6b. Boolean columns: see the versions test (which forms become index
-- conditions depends on the server version).

-- 6c. Comparator-mode keys are index tuples, compressed as btree's are:
-- a 100,000-character key that compresses is accepted.
CREATE TABLE uc_big (n numeric, t bpchar);
CREATE INDEX uc_big_t ON uc_big USING pagebtree (t) WITH (delta = off);
INSERT INTO uc_big VALUES (1, repeat('x', 100000)), (2, repeat('y', 100000));
SELECT key_mode FROM pagebtree_metapage('uc_big_t');
SELECT * FROM pbt_cmp($$SELECT n FROM uc_big WHERE t = repeat('y', 100000)::bpchar$$);
-- an incompressible one is not, by either access method
INSERT INTO uc_big SELECT 3, string_agg(md5(i::text), '') FROM generate_series(1, 200) i;
DROP TABLE uc_big;

-- 6d. Unique indexes on partitioned tables: see the versions test
-- (PostgreSQL 18 takes them, earlier versions refuse them).

-- 6e. Row comparisons become index conditions only for btree indexes in
-- the planner; pagebtree adds such paths itself (the row_compare test),
-- with the same results.
CREATE TABLE uc_row (a int, b text COLLATE "C");
INSERT INTO uc_row SELECT i / 10, 'x' || (i % 10) FROM generate_series(1, 2000) i;
CREATE INDEX uc_row_ab ON uc_row USING pagebtree (a, b) WITH (delta = off);
ANALYZE uc_row;
SELECT * FROM pbt_cmp($$SELECT a, b FROM uc_row WHERE (a, b) > (100, 'x5') ORDER BY a, b LIMIT 5$$);
DROP TABLE uc_row;
DROP TABLE uc_f;
