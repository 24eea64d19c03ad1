--
-- skip_scan: keys on the second column of an index but no "=" on the first.
-- The scan reads the range of those keys once per value of the first column
-- and finds the next value in the index, as btree's skip scan does since
-- PostgreSQL 18 (whose cost estimate pagebtree uses).  Every query is
-- compared with a sequential scan (pbt_verify: index, bitmap and index-only
-- paths); the buffer counts show that the scans skip.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- a: 12 values and NULLs; b: 0..4999 and NULLs; c: a third column
CREATE TABLE sk (a int, b int, c int, t text) WITH (autovacuum_enabled = off);
INSERT INTO sk
SELECT CASE WHEN g % 101 = 0 THEN NULL ELSE g % 12 END,
       CASE WHEN g % 103 = 0 THEN NULL ELSE (g * 7) % 5000 END,
       g % 7,
       'v' || (g % 5)
FROM generate_series(1, 200000) g;
CREATE INDEX sk_ab ON sk USING pagebtree (a, b);
-- inserts after the build, into leaves and (with a delta area) their runs
INSERT INTO sk
SELECT CASE WHEN g % 101 = 0 THEN NULL ELSE g % 12 END,
       CASE WHEN g % 103 = 0 THEN NULL ELSE (g * 7) % 5000 END,
       g % 7, 'v' || (g % 5)
FROM generate_series(200001, 210000) g;
VACUUM ANALYZE sk;
SELECT pagebtree_check('sk_ab', true);

SELECT * FROM pbt_verify(ARRAY[
    'SELECT b AS c FROM sk WHERE b = 2500',
    'SELECT a, b, c FROM sk WHERE b = 2500',
    'SELECT a, b FROM sk WHERE b = 2500 ORDER BY a DESC, b DESC',
    'SELECT a, b FROM sk WHERE b BETWEEN 100 AND 104 ORDER BY a, b',
    'SELECT a, b FROM sk WHERE b BETWEEN 100 AND 104 ORDER BY a DESC, b DESC',
    'SELECT a, b FROM sk WHERE b > 4995 ORDER BY a, b',
    'SELECT a, b FROM sk WHERE b < 3 ORDER BY a DESC, b DESC',
    'SELECT a, b FROM sk WHERE b IS NULL ORDER BY a, b',
    'SELECT a, b FROM sk WHERE b IS NULL ORDER BY a DESC, b DESC',
    'SELECT a, b FROM sk WHERE a > 3 AND b = 2500 ORDER BY a, b',
    'SELECT a, b FROM sk WHERE a < 5 AND b = 2500 ORDER BY a DESC, b DESC',
    'SELECT a, b FROM sk WHERE a BETWEEN 2 AND 9 AND b <= 10 ORDER BY a, b',
    'SELECT a, b FROM sk WHERE a BETWEEN 2 AND 9 AND b <= 10 ORDER BY a DESC, b DESC',
    'SELECT a, b FROM sk WHERE a IS NOT NULL AND b = 77 ORDER BY a, b',
    'SELECT a, b FROM sk WHERE a > 20 AND b = 77',
    'SELECT a, b FROM sk WHERE b = 5001',
    'SELECT a, b, c FROM sk WHERE b = 2500 AND c = 3',
    'SELECT count(*) FROM sk WHERE b = 2500',
    'SELECT count(*) FROM sk WHERE b >= 4990']) \gx

-- = ANY arrays on the second column go through their elements within each
-- value of the first
SELECT * FROM pbt_verify(ARRAY[
    'SELECT a, b FROM sk WHERE b = ANY (''{4999, 7, 2500}'') ORDER BY a, b',
    'SELECT a, b FROM sk WHERE b = ANY (''{4999, 7, 2500}'') ORDER BY a DESC, b DESC',
    'SELECT a, b FROM sk WHERE b = ANY (''{7, NULL, 5001}'') ORDER BY a, b',
    'SELECT a, b FROM sk WHERE a BETWEEN 3 AND 8 AND b = ANY (''{1, 2, 3}'') ORDER BY a DESC, b DESC',
    'SELECT a, b FROM sk WHERE b = ANY (''{}'')',
    'SELECT a, b, c FROM sk WHERE b = ANY (''{7, 2500}'') AND c = 3',
    'SELECT count(*) FROM sk WHERE b = ANY (''{10, 20, 30, 40}'')']) \gx

-- buffers per scan: a value of a costs a few pages, not all of them
-- does index scan q skip: fewer buffers than half of index idx's pages
CREATE FUNCTION sk_skips(q text, idx regclass) RETURNS boolean LANGUAGE sql
SET enable_seqscan = off SET enable_bitmapscan = off
AS $$ SELECT pbt_index_buffers(q) < pg_relation_size(idx) / 8192 / 2 $$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT a, b FROM sk WHERE b = 2500;
-- (a leaf with pending entries costs its side page too: see delta.sql)
SELECT pg_relation_size('sk_ab') / 8192 > 150 AS index_over_150_pages,
       pbt_index_buffers('SELECT a, b FROM sk WHERE b = 2500') <
       pg_relation_size('sk_ab') / 8192 / 2 AS forward_skips,
       pbt_index_buffers('SELECT a, b FROM sk WHERE b = 2500 ORDER BY a DESC') <
       pg_relation_size('sk_ab') / 8192 / 2 AS backward_skips,
       pbt_index_buffers('SELECT a, b FROM sk WHERE a BETWEEN 3 AND 5 AND b = 2500') <
       pg_relation_size('sk_ab') / 8192 / 8 AS a_range_skips;
-- = ANY: a bitmap scan (before 17 the planner makes = ANY on a later column
-- an index condition of bitmap scans only)
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
SELECT pbt_index_buffers('SELECT count(*) FROM sk WHERE b = ANY (''{7, 4999}'')') <
       0.8 * pg_relation_size('sk_ab') / 8192 AS array_skips;
RESET enable_indexscan;
RESET enable_indexonlyscan;

-- a scrollable cursor that turns, against the same rows sorted (the
-- function's SET clauses keep its settings to itself)
CREATE FUNCTION sk_cursor_diffs(q text,
                                steps int[] DEFAULT ARRAY[5, -3, 40, -41, 200, -7, 1000])
RETURNS int LANGUAGE plpgsql
SET enable_seqscan = on SET enable_bitmapscan = on
SET enable_indexscan = on SET enable_indexonlyscan = on AS $$
DECLARE
    ci refcursor := 'ci';
    cs refcursor := 'cs';
    ri record;
    rs record;
    diffs int := 0;
    step int;
    plan text;
BEGIN
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_bitmapscan = off;
    EXECUTE 'EXPLAIN (COSTS OFF) ' || q INTO plan;
    IF plan !~ '^Index (Only )?Scan' THEN
        RAISE EXCEPTION 'not an index scan: %', plan;
    END IF;
    OPEN ci SCROLL FOR EXECUTE q;
    SET LOCAL enable_seqscan = on;
    SET LOCAL enable_indexscan = off;
    SET LOCAL enable_indexonlyscan = off;
    OPEN cs SCROLL FOR EXECUTE q;
    FOREACH step IN ARRAY steps LOOP
        FOR i IN 1 .. abs(step) LOOP
            IF step > 0 THEN
                FETCH NEXT FROM ci INTO ri;
                FETCH NEXT FROM cs INTO rs;
            ELSE
                FETCH PRIOR FROM ci INTO ri;
                FETCH PRIOR FROM cs INTO rs;
            END IF;
            IF ri::text IS DISTINCT FROM rs::text THEN
                diffs := diffs + 1;
            END IF;
        END LOOP;
    END LOOP;
    CLOSE ci;
    CLOSE cs;
    RETURN diffs;
END $$;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT sk_cursor_diffs('SELECT a, b FROM sk WHERE b BETWEEN 10 AND 12 ORDER BY a, b') AS forward_first,
       sk_cursor_diffs('SELECT a, b FROM sk WHERE b BETWEEN 10 AND 12 ORDER BY a DESC, b DESC') AS backward_first,
       sk_cursor_diffs('SELECT a, b FROM sk WHERE b = ANY (''{10, 11, 12}'') ORDER BY a, b') AS array_forward_first;

-- a merge join's inner side marks and restores across values of a: the
-- plan (the inner side must be the skip scan), and the rows that differ from
-- a hash join's
CREATE FUNCTION sk_merge_join(outer_rel text, inner_rel text, key text,
                              OUT plan text, OUT merge_rows bigint,
                              OUT extra bigint, OUT missing bigint)
LANGUAGE plpgsql AS $$
DECLARE
    q text := format('SELECT o.%1$I, s.b FROM %2$s o LEFT JOIN %3$I s ON s.%1$I = o.%1$I AND s.b BETWEEN 10 AND 300',
                     key, outer_rel, inner_rel);
    ln text;
BEGIN
    SET LOCAL enable_hashjoin = off;
    SET LOCAL enable_nestloop = off;
    SET LOCAL enable_material = off;
    SET LOCAL enable_sort = off;
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_bitmapscan = off;
    plan := '';
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        plan := plan || ln || E'\n';
    END LOOP;
    EXECUTE 'CREATE TEMP TABLE sk_merge AS ' || q;
    SET LOCAL enable_hashjoin = on;
    SET LOCAL enable_mergejoin = off;
    SET LOCAL enable_seqscan = on;
    EXECUTE 'CREATE TEMP TABLE sk_hash AS ' || q;
    SELECT count(*) INTO merge_rows FROM sk_merge;
    SELECT count(*) INTO extra FROM (SELECT * FROM sk_merge EXCEPT ALL SELECT * FROM sk_hash) d;
    SELECT count(*) INTO missing FROM (SELECT * FROM sk_hash EXCEPT ALL SELECT * FROM sk_merge) d;
    DROP TABLE sk_merge, sk_hash;
END $$;
-- (a left join, from a small outer table: sk is the inner side)
CREATE TABLE sk_outer AS SELECT g % 12 AS a FROM generate_series(1, 30) g;
CREATE INDEX sk_outer_a ON sk_outer (a);
VACUUM ANALYZE sk_outer;
SELECT * FROM sk_merge_join('sk_outer', 'sk', 'a') \gx

-- keys that pick the end of each value's entries (their start, backward):
-- the next value's first entry is on the leaf where the range ended, but
-- its own range is some 25 leaves further on, so the scan keeps skipping
-- (it gives up where the ranges begin where the ones before ended)
CREATE TABLE sk_ends AS SELECT g % 30 AS a, hashint8extended(g, 0) AS b
FROM generate_series(1, 300000) g;
CREATE INDEX sk_ends_ab ON sk_ends USING pagebtree (a, b);
VACUUM ANALYZE sk_ends;
SELECT * FROM pbt_verify(ARRAY[
    'SELECT a, b FROM sk_ends WHERE b > 9200000000000000000 ORDER BY a, b',
    'SELECT a, b FROM sk_ends WHERE b < -9200000000000000000 ORDER BY a DESC, b DESC']) \gx
SELECT sk_skips('SELECT a, b FROM sk_ends WHERE b > 9200000000000000000 ORDER BY a, b',
                'sk_ends_ab') AS values_ends_skip,
       sk_skips('SELECT a, b FROM sk_ends WHERE b < -9200000000000000000 ORDER BY a DESC, b DESC',
                'sk_ends_ab') AS values_starts_skip_backward;

-- many values of a with few entries each: skipping would cost a descent or
-- two per value, so the scan gives up after a few and reads on
CREATE TABLE sk_u AS SELECT g AS a, g % 100 AS b FROM generate_series(1, 100000) g;
CREATE INDEX sk_u_ab ON sk_u USING pagebtree (a, b);
VACUUM ANALYZE sk_u;
SELECT * FROM pbt_verify(ARRAY[
    'SELECT a, b FROM sk_u WHERE b = 42 ORDER BY a, b',
    'SELECT a, b FROM sk_u WHERE b = 42 ORDER BY a DESC, b DESC',
    'SELECT a, b FROM sk_u WHERE a > 500 AND b < 2 ORDER BY a, b']) \gx
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pbt_index_buffers('SELECT a, b FROM sk_u WHERE b = 42') <
       1.2 * pg_relation_size('sk_u_ab') / 8192 AS reads_on,
       pbt_index_buffers('SELECT a, b FROM sk_u WHERE b = 42 ORDER BY a DESC') <
       1.2 * pg_relation_size('sk_u_ab') / 8192 AS reads_on_backward;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT sk_cursor_diffs('SELECT a, b FROM sk_u WHERE b BETWEEN 10 AND 12 ORDER BY a, b') AS forward_first,
       sk_cursor_diffs('SELECT a, b FROM sk_u WHERE b BETWEEN 10 AND 12 ORDER BY a DESC, b DESC') AS backward_first;

-- Comparator-mode keys skip too: the value found is the first column's
-- Datum, passed by value (float8) or by reference (numeric, text under a
-- linguistic collation), or NULL
CREATE COLLATION sk_libc (provider = libc, locale = 'en_US.UTF-8');
CREATE TABLE skc_f (k float8, b int) WITH (autovacuum_enabled = off);
INSERT INTO skc_f
SELECT CASE WHEN g % 97 = 0 THEN NULL ELSE (g % 12) / 4.0 - 1 END,
       CASE WHEN g % 103 = 0 THEN NULL ELSE (g * 7) % 5000 END
FROM generate_series(1, 100000) g;
CREATE TABLE skc_n (k numeric, b int) WITH (autovacuum_enabled = off);
INSERT INTO skc_n SELECT k * 1.25, b FROM skc_f;
CREATE TABLE skc_t (k text COLLATE sk_libc, b int) WITH (autovacuum_enabled = off);
INSERT INTO skc_t
SELECT (ARRAY['apple', 'Apple', 'éclair', 'Eclair', 'banana', 'b-b', 'bb',
              'cherry', 'Cherry', 'ça', 'd', 'D'])[(k * 4)::int + 5], b
FROM skc_f;
CREATE INDEX skc_f_kb ON skc_f USING pagebtree (k, b);
CREATE INDEX skc_n_kb ON skc_n USING pagebtree (k DESC, b);
CREATE INDEX skc_t_kb ON skc_t USING pagebtree (k, b);
VACUUM ANALYZE skc_f, skc_n, skc_t;
SELECT c.relname, m.key_mode FROM pg_class c, pagebtree_metapage(c.oid) m
 WHERE c.relname LIKE 'skc\__\_kb' ORDER BY 1;
SELECT * FROM pbt_verify(ARRAY[
    'SELECT k, b FROM skc_f WHERE b = 2500 ORDER BY k, b',
    'SELECT k, b FROM skc_f WHERE b = 2500 ORDER BY k DESC, b DESC',
    'SELECT k, b FROM skc_f WHERE b BETWEEN 100 AND 104 ORDER BY k, b',
    'SELECT k, b FROM skc_f WHERE b IS NULL ORDER BY k DESC, b DESC',
    'SELECT k, b FROM skc_f WHERE k > 0.5 AND b < 3 ORDER BY k, b',
    'SELECT count(*) FROM skc_f WHERE b = 2500',
    'SELECT k, b FROM skc_n WHERE b = 2500 ORDER BY k DESC, b',
    'SELECT k, b FROM skc_n WHERE b = 2500 ORDER BY k, b DESC',
    'SELECT k, b FROM skc_n WHERE b IS NULL ORDER BY k DESC, b',
    'SELECT k, b FROM skc_n WHERE k < 1 AND b BETWEEN 7 AND 21 ORDER BY k DESC, b',
    'SELECT count(*) FROM skc_n WHERE b >= 4990',
    'SELECT k, b FROM skc_t WHERE b = 2500 ORDER BY k, b',
    'SELECT k, b FROM skc_t WHERE b = 2500 ORDER BY k DESC, b DESC',
    'SELECT k, b FROM skc_t WHERE b IS NULL ORDER BY k, b',
    'SELECT k, b FROM skc_t WHERE k >= ''b'' AND b <= 10 ORDER BY k DESC, b DESC',
    'SELECT k, b FROM skc_t WHERE b = ANY (''{7, 2500}'') ORDER BY k, b',
    'SELECT count(*) FROM skc_t WHERE b BETWEEN 10 AND 20']) \gx
SELECT sk_skips('SELECT k, b FROM skc_f WHERE b = 2500', 'skc_f_kb') AS float8_skips,
       sk_skips('SELECT k, b FROM skc_n WHERE b = 2500 ORDER BY k', 'skc_n_kb') AS numeric_skips,
       sk_skips('SELECT k, b FROM skc_t WHERE b = 2500 ORDER BY k DESC', 'skc_t_kb') AS text_skips;
SELECT sk_cursor_diffs('SELECT k, b FROM skc_t WHERE b BETWEEN 10 AND 12 ORDER BY k, b') AS forward_first,
       sk_cursor_diffs('SELECT k, b FROM skc_n WHERE b BETWEEN 10 AND 12 ORDER BY k, b DESC') AS backward_first;
-- a merge join's inner side marks and restores the value found, scanning
-- backward (numeric, a DESC column).  The outer side is a Merge Append,
-- which cannot restore a mark, so that skc_n is the inner side in every
-- WAL mode and on every server.
CREATE TABLE skc_outer1 AS SELECT ((g % 12) / 4.0 - 1) * 1.25 AS k
FROM generate_series(1, 15) g;
CREATE TABLE skc_outer2 AS SELECT * FROM skc_outer1;
CREATE INDEX skc_outer1_k ON skc_outer1 (k);
CREATE INDEX skc_outer2_k ON skc_outer2 (k);
VACUUM ANALYZE skc_outer1, skc_outer2;
SELECT * FROM sk_merge_join('(SELECT k FROM skc_outer1 UNION ALL SELECT k FROM skc_outer2)', 'skc_n', 'k') \gx
-- a unique first column: the scan gives up and reads on
CREATE TABLE skc_u AS SELECT g::numeric AS a, g % 100 AS b FROM generate_series(1, 50000) g;
CREATE INDEX skc_u_ab ON skc_u USING pagebtree (a, b);
VACUUM ANALYZE skc_u;
SELECT * FROM pbt_verify(ARRAY[
    'SELECT a, b FROM skc_u WHERE b = 42 ORDER BY a, b',
    'SELECT a, b FROM skc_u WHERE b = 42 ORDER BY a DESC, b DESC']) \gx
SELECT sk_cursor_diffs('SELECT a, b FROM skc_u WHERE b BETWEEN 10 AND 12 ORDER BY a, b') AS forward_first,
       sk_cursor_diffs('SELECT a, b FROM skc_u WHERE b BETWEEN 10 AND 12 ORDER BY a DESC, b DESC') AS backward_first;
SELECT pagebtree_check('skc_f_kb', true), pagebtree_check('skc_n_kb', true),
       pagebtree_check('skc_t_kb', true);
DROP TABLE skc_f, skc_n, skc_t, skc_outer1, skc_outer2, skc_u;

-- Keys on the third column alone skip the first two: the value is both
-- columns' bytes (sk3, normalized keys) or Datums (skc3, comparator mode),
-- a DESC column and NULLs among them
CREATE TABLE sk3 AS
SELECT g % 4 AS a, CASE WHEN g % 97 = 0 THEN NULL ELSE (g / 4) % 4 END AS b, g AS c
FROM generate_series(1, 200000) g;
CREATE TABLE skc3 AS
SELECT CASE WHEN a IS NULL OR c % 89 = 0 THEN NULL ELSE a * 1.5 END AS a,
       (ARRAY['apple', 'Apple', 'éclair', 'Eclair'])[b + 1] COLLATE sk_libc AS b, c
FROM sk3;
CREATE INDEX sk3_abc ON sk3 USING pagebtree (a, b DESC, c);
CREATE INDEX skc3_abc ON skc3 USING pagebtree (a, b DESC, c);
VACUUM ANALYZE sk3, skc3;
SELECT c.relname, m.key_mode FROM pg_class c, pagebtree_metapage(c.oid) m
 WHERE c.relname LIKE 's%3\_abc' ORDER BY 1;
SELECT * FROM pbt_verify(ARRAY(
    SELECT format(q, t)
    FROM unnest(ARRAY['sk3', 'skc3']) t,
         unnest(ARRAY['SELECT a, b, c FROM %I WHERE c = 5000 ORDER BY a, b DESC, c',
                      'SELECT a, b, c FROM %I WHERE c BETWEEN 100 AND 130 ORDER BY a DESC, b, c DESC',
                      'SELECT a, b, c FROM %I WHERE a > 2 AND c < 50 ORDER BY a, b DESC, c',
                      'SELECT a, b, c FROM %I WHERE c = ANY (''{7, 900, 45000, 300000}'') ORDER BY a, b DESC, c',
                      'SELECT a, b, c FROM %I WHERE c = ANY (''{7, 900, 45000}'') ORDER BY a DESC, b, c DESC',
                      'SELECT a, b, c FROM %I WHERE b IS NULL AND c < 3000 ORDER BY a, b DESC, c',
                      'SELECT count(*) FROM %I WHERE c > 199990']) q)) \gx
SELECT t, pg_relation_size(t || '_abc') / 8192 > 300 AS index_over_300_pages,
       sk_skips(format('SELECT a, b, c FROM %I WHERE c = 5000', t), t || '_abc') AS two_columns_skipped,
       sk_skips(format('SELECT a, b, c FROM %I WHERE c = 5000 ORDER BY a DESC', t), t || '_abc')
           AS two_columns_skipped_backward,
       sk_cursor_diffs(format('SELECT a, b, c FROM %I WHERE c BETWEEN 10 AND 400 ORDER BY a, b DESC, c', t))
           AS forward_first,
       sk_cursor_diffs(format('SELECT a, b, c FROM %I WHERE c BETWEEN 10 AND 400 ORDER BY a DESC, b, c DESC', t))
           AS backward_first
FROM unnest(ARRAY['sk3', 'skc3']) t;
SELECT pagebtree_check('sk3_abc', true), pagebtree_check('skc3_abc', true);
DROP TABLE sk3, skc3;
DROP COLLATION sk_libc;

-- descending columns, text keys and a three-column index
CREATE INDEX sk_ab_desc ON sk USING pagebtree (a DESC, b);
CREATE INDEX sk_tb ON sk USING pagebtree (t, b, c);
SELECT * FROM pbt_verify(ARRAY[
    'SELECT a, b FROM sk WHERE b = 2500 ORDER BY a DESC, b',
    'SELECT a, b FROM sk WHERE b = 2500 ORDER BY a, b DESC',
    'SELECT a, b FROM sk WHERE a > 6 AND b < 4 ORDER BY a DESC, b',
    'SELECT t, b, c FROM sk WHERE b = 2500 ORDER BY t, b, c',
    'SELECT t, b, c FROM sk WHERE b = 2500 AND c > 4 ORDER BY t DESC, b DESC, c DESC',
    'SELECT t, b, c FROM sk WHERE t >= ''v2'' AND b BETWEEN 7 AND 21 ORDER BY t, b, c',
    'SELECT t, b, c FROM sk WHERE b = ANY (''{7, 21}'') AND c = ANY (''{0, 3}'') ORDER BY t, b, c',
    'SELECT t, b, c FROM sk WHERE b = ANY (''{7, 21}'') AND c = ANY (''{0, 3}'') ORDER BY t DESC, b DESC, c DESC',
    -- (t and b have 25,000 combinations: the scan gives up and reads on)
    'SELECT t, b, c FROM sk WHERE c = 3 AND t <= ''v1'' ORDER BY t DESC, b DESC, c DESC',
    'SELECT count(*) FROM sk WHERE c = 3']) \gx
SELECT pagebtree_check('sk_ab_desc', true), pagebtree_check('sk_tb', true);

-- A skip scan that gives up reads on from its value's first entry: here
-- 'banana', the first item of the second leaf, whose run holds 'bab', an
-- entry of the value before, already returned.  A cursor that turns there
-- returns 'bab' again (it stepped to the first leaf, past it).
CREATE TABLE sk_turn (a text, b int);
INSERT INTO sk_turn SELECT 'a' || v, b FROM generate_series(1, 7) v, generate_series(1, 50) b;
INSERT INTO sk_turn SELECT 'a7', b FROM generate_series(51, 52) b;
INSERT INTO sk_turn SELECT 'banana', b FROM generate_series(1, 50) b;
INSERT INTO sk_turn SELECT 'c' || v, b FROM generate_series(1, 9) v, generate_series(1, 50) b;
CREATE INDEX sk_turn_ab ON sk_turn USING pagebtree (a, b)
    WITH (delta = on, delta_threshold = 20, layout = plain, fillfactor = 100);
SET pagebtree.delta_append_always = on;
INSERT INTO sk_turn VALUES ('bab', 1);
RESET pagebtree.delta_append_always;
-- the first leaf is a1 to a7, full; the second's run holds 'bab'
SELECT s.live_items, s.high_key, r.leaf = s.next AS run_on_second_leaf, r.entries
  FROM pagebtree_page_stats('sk_turn_ab', 2) s, pagebtree_runs('sk_turn_ab') r;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT a, b FROM sk_turn WHERE b = 1 ORDER BY a, b;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;
SELECT sk_cursor_diffs('SELECT a, b FROM sk_turn WHERE b = 1 ORDER BY a, b',
                       ARRAY[9, -2, 1, -3, 10]) AS turned;
DROP TABLE sk, sk_outer, sk_u, sk_turn;
