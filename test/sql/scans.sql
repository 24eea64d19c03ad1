--
-- scans: scan features of pagebtree, each result compared with a seqscan.
--
-- pbt_cmp() (defined below) runs a query forced onto a pagebtree index and
-- again as a seqscan; every idx_plan/bmp_plan must be t and every diffs 0.
--
-- NOTICEs differ between server configurations (e.g. the one about
-- shared_preload_libraries at index build), so show warnings and up only.
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
-- (pbt_cmp comes from 00_setup.sql)

-- Run a list of queries through pbt_cmp, index path and (for queries with a
-- WHERE clause) bitmap path.
CREATE OR REPLACE FUNCTION pbt_cmp_all(qs text[])
RETURNS TABLE (query text, nrows bigint, idx_plan boolean, idx_diffs bigint,
               bmp_plan boolean, bmp_diffs bigint)
LANGUAGE sql AS $$
    SELECT q.q, i.nrows, i.plan_ok, i.ndiffs, b.plan_ok, b.ndiffs
    FROM unnest(qs) WITH ORDINALITY AS q(q, n)
    CROSS JOIN LATERAL pbt_cmp(q.q, 'index') AS i
    LEFT JOIN LATERAL (SELECT * FROM pbt_cmp(q.q, 'bitmap')
                       WHERE q.q LIKE '% WHERE %') AS b ON true
    ORDER BY q.n
$$;

--
-- Multi-column index (a, b): 25000 rows bulk-built, 5000 more inserted.
-- a has ~15 duplicates per value, b is text, both have NULLs.
--
CREATE TABLE s_multi (id int, a int, b text, c int) WITH (autovacuum_enabled = off);
INSERT INTO s_multi
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919) % 2000 END,
       CASE WHEN i % 89 = 0 THEN NULL
            ELSE 'k' || lpad((('x' || substr(md5(i::text), 1, 4))::bit(16)::int % 500)::text, 3, '0') END,
       (i * 13) % 1000
FROM generate_series(1, 25000) i;
CREATE INDEX s_multi_ab ON s_multi USING pagebtree (a, b);
INSERT INTO s_multi
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919) % 2000 END,
       CASE WHEN i % 89 = 0 THEN NULL
            ELSE 'k' || lpad((('x' || substr(md5(i::text), 1, 4))::bit(16)::int % 500)::text, 3, '0') END,
       (i * 13) % 1000
FROM generate_series(25001, 30000) i;
VACUUM ANALYZE s_multi;
SELECT pagebtree_check('s_multi_ab', true);
SELECT level > 0 AS multi_level FROM pagebtree_metapage('s_multi_ab');

SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM s_multi WHERE a = 42 AND b > 'k100';
EXPLAIN (COSTS OFF) SELECT a, b FROM s_multi WHERE a BETWEEN 10 AND 20 ORDER BY a DESC, b DESC;
EXPLAIN (COSTS OFF) SELECT id FROM s_multi WHERE a = 5 AND b = ANY ('{k001,k100,NULL,k100}');
EXPLAIN (COSTS OFF) SELECT id FROM s_multi WHERE a IS NULL AND b IS NOT NULL;
-- ORDER BY ... LIMIT straight from the index, no Sort node
EXPLAIN (COSTS OFF) SELECT a, b FROM s_multi ORDER BY a, b LIMIT 10;
EXPLAIN (COSTS OFF) SELECT a, b FROM s_multi ORDER BY a DESC, b DESC LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id, b FROM s_multi WHERE a = 5 ORDER BY b DESC LIMIT 3;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- index-only scan after VACUUM: no heap fetches.  (A temporary table, so that
-- no other session's snapshot can keep VACUUM from marking pages all-visible.)
CREATE TEMP TABLE s_ios AS SELECT a, b FROM s_multi;
CREATE INDEX s_ios_ab ON s_ios USING pagebtree (a, b);
VACUUM ANALYZE s_ios;
SELECT pagebtree_check('s_ios_ab', true);
-- EXPLAIN ANALYZE as 15 prints it: 18 also prints rows with two decimals
-- and the index searches (which the versions test checks)
CREATE FUNCTION s_explain_analyze(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    ln text;
BEGIN
    FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
        CONTINUE WHEN ln ~ '^\s*Index Searches: ';
        RETURN NEXT regexp_replace(ln, '(rows=\d+)\.00 ', '\1 ');
    END LOOP;
END $$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT s_explain_analyze('SELECT a, b FROM s_ios WHERE a < 100');
SELECT s_explain_analyze('SELECT a, b FROM s_ios WHERE a > 1900 ORDER BY a DESC, b DESC');
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP FUNCTION s_explain_analyze;
SELECT * FROM pbt_cmp('SELECT a, b FROM s_ios WHERE a < 100', 'indexonly');
DROP TABLE s_ios;
SELECT * FROM pbt_cmp('SELECT a, b FROM s_multi WHERE a < 100', 'indexonly');
SELECT * FROM pbt_cmp('SELECT a, b FROM s_multi WHERE a > 1900 ORDER BY a DESC, b DESC', 'indexonly');
SELECT * FROM pbt_cmp('SELECT count(*) FROM s_multi', 'indexonly');

-- index-only scans of fixed-width by-value columns (their tuples are formed
-- without heap_fill_tuple), with NULLs among them (which are), DESC
CREATE TEMP TABLE s_fixed AS
SELECT i::int2 AS a, CASE WHEN i % 7 = 0 THEN NULL ELSE i::int8 * 1000003 END AS b,
       (date '2000-01-01' + i % 400) AS c, (i % 3 = 0) AS d,
       CASE WHEN i % 11 = 0 THEN NULL ELSE i / 8.0 END::float8 AS e
FROM generate_series(1, 3000) i;
CREATE INDEX s_fixed_abcde ON s_fixed USING pagebtree (a, b DESC, c, d, e);
VACUUM ANALYZE s_fixed;
SELECT * FROM pbt_cmp('SELECT a, b, c, d, e FROM s_fixed WHERE a < 2000', 'indexonly');
SELECT * FROM pbt_cmp('SELECT a, b, c, d, e FROM s_fixed WHERE a > 100 ORDER BY a DESC, b', 'indexonly');
SELECT * FROM pbt_cmp('SELECT b, e FROM s_fixed WHERE a BETWEEN 10 AND 700 AND b IS NULL', 'indexonly');
DROP TABLE s_fixed;

-- index-only scans of one text column (tuples formed from the item's
-- bytes), with NULLs, empty strings and values too long for a 1-byte
-- varlena header (formed as before), ascending and descending
CREATE TEMP TABLE s_text (t text COLLATE "C");
INSERT INTO s_text
SELECT CASE WHEN i % 13 = 0 THEN NULL WHEN i % 17 = 0 THEN ''
            ELSE repeat(md5(i::text), 1 + i % 5) END
FROM generate_series(1, 3000) i;
CREATE INDEX s_text_t ON s_text USING pagebtree (t);
VACUUM ANALYZE s_text;
SELECT * FROM pbt_cmp('SELECT t FROM s_text WHERE t > ''5''', 'indexonly');
SELECT * FROM pbt_cmp('SELECT t FROM s_text WHERE t < ''9'' ORDER BY t DESC', 'indexonly');
SELECT * FROM pbt_cmp('SELECT t FROM s_text WHERE t IS NULL OR t = ''''', 'indexonly');
-- LIKE and regular expressions with a fixed prefix read a range of the
-- index under the C collation, as on btree's text_ops
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT t FROM s_text WHERE t LIKE 'ab%';
EXPLAIN (COSTS OFF) SELECT t FROM s_text WHERE t ~ '^c4';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_cmp('SELECT t FROM s_text WHERE t LIKE ''ab%''', 'indexonly');
SELECT * FROM pbt_cmp('SELECT t FROM s_text WHERE t ~ ''^c4'' ORDER BY t DESC', 'indexonly');
SELECT * FROM pbt_cmp('SELECT t FROM s_text WHERE t LIKE ''%ab%''', 'indexonly');
DROP INDEX s_text_t;
CREATE INDEX s_text_td ON s_text USING pagebtree (t DESC NULLS LAST);
SELECT * FROM pbt_cmp('SELECT t FROM s_text WHERE t > ''5'' ORDER BY t DESC NULLS LAST', 'indexonly');
SELECT * FROM pbt_cmp('SELECT t FROM s_text WHERE t >= '''' ORDER BY t', 'indexonly');
DROP TABLE s_text;

-- bitmap scans, including BitmapOr over the same index
SET enable_seqscan = off;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM s_multi WHERE a = 42;
EXPLAIN (COSTS OFF) SELECT id FROM s_multi WHERE a = 42 OR (a = 1000 AND b < 'k200') OR a IS NULL;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
SELECT * FROM pbt_cmp('SELECT id FROM s_multi WHERE a = 42 OR (a = 1000 AND b < ''k200'') OR a IS NULL', 'bitmap');

-- quals on both columns, forward and backward, edge and redundant quals
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id FROM s_multi WHERE a = 42',
    'SELECT id FROM s_multi WHERE a = 42 AND b > ''k100''',
    'SELECT id FROM s_multi WHERE a = 42 AND b >= ''k100'' AND b < ''k300''',
    'SELECT id FROM s_multi WHERE a BETWEEN 10 AND 20 AND b BETWEEN ''k100'' AND ''k200''',
    'SELECT id FROM s_multi WHERE a > 10 AND b = ''k123''',
    'SELECT id FROM s_multi WHERE a <= 1500 AND b <= ''k010''',
    'SELECT id FROM s_multi WHERE b = ''k123''',
    'SELECT id FROM s_multi WHERE b > ''k490''',
    'SELECT id FROM s_multi WHERE a > 5 AND a > 10 AND a < 20 AND a <= 19',
    'SELECT id FROM s_multi WHERE a > 10 AND a < 5',
    'SELECT id FROM s_multi WHERE a = 5 AND a >= 6',
    'SELECT id FROM s_multi WHERE a = 5 AND a >= 5 AND a <= 5',
    'SELECT id FROM s_multi WHERE a >= 5 AND a = 7 AND b >= ''k000''',
    'SELECT id FROM s_multi WHERE a > 5::int8 AND a > 10::int2 AND a < 20::int8 AND a <= 30',
    'SELECT id FROM s_multi WHERE a < 3000000000::int8 AND a >= -1::int2 AND a > 1990',
    'SELECT id FROM s_multi WHERE a >= 1999',
    'SELECT id FROM s_multi WHERE a > 2000',
    'SELECT id FROM s_multi WHERE a < 0',
    'SELECT id FROM s_multi WHERE a = 0 AND b > ''k499''',
    'SELECT a, b FROM s_multi ORDER BY a, b',
    'SELECT a, b FROM s_multi ORDER BY a DESC, b DESC',
    'SELECT a, b FROM s_multi WHERE a < 100 ORDER BY a DESC, b DESC LIMIT 50',
    'SELECT a, b FROM s_multi WHERE a >= 1000 ORDER BY a, b LIMIT 50',
    'SELECT a, b FROM s_multi WHERE a > 1000 AND a < 1100 ORDER BY a DESC, b DESC',
    'SELECT b FROM s_multi WHERE a = 5 ORDER BY b DESC',
    'SELECT b FROM s_multi WHERE a = 5 AND b < ''k300'' ORDER BY b DESC LIMIT 4',
    'SELECT a, b FROM s_multi ORDER BY a DESC, b DESC LIMIT 100'
]);

-- = ANY(array): NULL and duplicate elements, empty arrays, second column
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id FROM s_multi WHERE a = ANY (''{5,7,NULL,7,3}'')',
    'SELECT id FROM s_multi WHERE a = ANY (''{}''::int[])',
    'SELECT id FROM s_multi WHERE a = ANY (NULL::int[])',
    'SELECT id FROM s_multi WHERE a = ANY (''{NULL}''::int[])',
    'SELECT id FROM s_multi WHERE a = ANY (''{1999,0,1000,-5,2500}'')',
    'SELECT id FROM s_multi WHERE a = ANY (''{1,2}''::int8[])',
    'SELECT id FROM s_multi WHERE a = 5 AND b = ANY (''{k001,k100,NULL,k100}'')',
    'SELECT id FROM s_multi WHERE a = ANY (''{1,2,3,4,5,6,7,8,9}'') AND b = ANY (''{k001,k002,k400,k401,k402,zzz}'')',
    'SELECT id FROM s_multi WHERE a < 100 AND b = ANY (ARRAY[''k010'', ''k020'', NULL])',
    'SELECT id FROM s_multi WHERE b = ANY (ARRAY[''k001'', ''k002''])',
    'SELECT id FROM s_multi WHERE a = ANY (''{5,6,7}'') AND a = ANY (''{6,7,8}'')',
    'SELECT id FROM s_multi WHERE a = ANY (''{5,6,7}'') AND a > 5',
    'SELECT a, b FROM s_multi WHERE a = ANY (''{30,10,20,10}'') ORDER BY a, b',
    'SELECT a, b FROM s_multi WHERE a = ANY (''{30,10,20,10}'') ORDER BY a DESC, b DESC',
    'SELECT a, b FROM s_multi WHERE a = ANY (''{30,10,20}'') AND b = ANY (''{k412,k138,k057,k999,k197}'') ORDER BY a, b',
    -- on a column after one without an equality: one pass in index order,
    -- which the planner counts on since PostgreSQL 17 (no Sort above)
    'SELECT a, b FROM s_multi WHERE b = ANY (''{k412,k138,k057}'') ORDER BY a, b LIMIT 20',
    'SELECT a, b FROM s_multi WHERE a > 1500 AND b = ANY (''{k412,k138,k057,NULL}'') ORDER BY a DESC, b DESC LIMIT 20',
    'SELECT a, b FROM s_multi WHERE b = ANY (''{k001,k499,k250}'') AND a < 300 ORDER BY a DESC, b DESC'
]);

-- = ANY over many leaves, the leaves of the next elements prefetched from
-- the level above (pagebtree.prefetch_arrays_always: the index is in shared
-- buffers, where a scan would not start prefetching); an ascending index,
-- then a descending one
CREATE TABLE s_any (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO s_any SELECT i, (i * 7919) % 40000 FROM generate_series(1, 40000) i;
CREATE INDEX s_any_k ON s_any USING pagebtree (k);
VACUUM ANALYZE s_any;
SET pagebtree.prefetch_arrays_always = on;
SET effective_io_concurrency = 8;
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id FROM s_any WHERE k = ANY (ARRAY(SELECT g * 3 FROM generate_series(-5, 14000) g))',
    'SELECT k FROM s_any WHERE k = ANY (ARRAY(SELECT g * 97 FROM generate_series(0, 500) g)) ORDER BY k',
    'SELECT k FROM s_any WHERE k = ANY (ARRAY(SELECT g * 97 FROM generate_series(0, 500) g)) ORDER BY k DESC',
    'SELECT id FROM s_any WHERE k = ANY (''{39999,0,20000,5}'') AND k > 3'
]);
DROP INDEX s_any_k;
CREATE INDEX s_any_kd ON s_any USING pagebtree (k DESC);
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id FROM s_any WHERE k = ANY (ARRAY(SELECT g * 3 FROM generate_series(-5, 14000) g))',
    'SELECT k FROM s_any WHERE k = ANY (ARRAY(SELECT g * 97 FROM generate_series(0, 500) g)) ORDER BY k DESC'
]);
RESET pagebtree.prefetch_arrays_always;
RESET effective_io_concurrency;

-- = ANY arrays whose elements lie close together: once the ranges of most of
-- eight elements have begun on the leaf where the one before ended, the rest
-- are read in one pass over their range, each entry checked against the
-- elements, and elements far apart give the pass up.  Two entries per key,
-- some pending in a delta area; a descending text index.
CREATE TABLE s_pass (id int, k int8, t text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO s_pass SELECT i, i / 2, lpad((i / 2)::text, 6, '0') FROM generate_series(0, 59999) i;
CREATE INDEX s_pass_k ON s_pass USING pagebtree (k) WITH (delta = on);
CREATE INDEX s_pass_t ON s_pass USING pagebtree (t DESC);
VACUUM ANALYZE s_pass;
CHECKPOINT;
INSERT INTO s_pass
SELECT i, (i * 7) % 30000, lpad(((i * 7) % 30000)::text, 6, '0') FROM generate_series(60000, 60999) i
UNION ALL
SELECT 61000 + g, g * 41, lpad((g * 41)::text, 6, '0') FROM generate_series(500, 731) g;
SELECT sum(entries) > 0 AS pending FROM pagebtree_runs('s_pass_k');
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id FROM s_pass WHERE k = ANY (ARRAY(SELECT generate_series(1000, 4000)))',
    'SELECT k FROM s_pass WHERE k = ANY (ARRAY(SELECT generate_series(1000, 4000))) ORDER BY k DESC',
    'SELECT k FROM s_pass WHERE k = ANY (ARRAY(SELECT g * 3 FROM generate_series(100, 3000) g)) ORDER BY k',
    'SELECT k FROM s_pass WHERE k = ANY (ARRAY(SELECT g * 7 FROM generate_series(100, 2900) g)) ORDER BY k DESC',
    'SELECT k FROM s_pass WHERE k = ANY (ARRAY(SELECT g + g / 500 * g * 40 FROM generate_series(0, 1500) g)) ORDER BY k',
    'SELECT k FROM s_pass WHERE k = ANY (ARRAY(SELECT g + g / 500 * g * 40 FROM generate_series(0, 1500) g)) ORDER BY k DESC',
    'SELECT t FROM s_pass WHERE t = ANY (ARRAY(SELECT lpad(g::text, 6, ''0'') FROM generate_series(20000, 23000) g)) ORDER BY t',
    'SELECT t FROM s_pass WHERE t = ANY (ARRAY(SELECT lpad(g::text, 6, ''0'') FROM generate_series(20000, 23000) g)) ORDER BY t DESC'
]);
-- one pass reads a few dozen pages, where a descent per element reads 3,000
SET enable_bitmapscan = off;
SELECT pbt_index_buffers('SELECT count(*) FROM s_pass WHERE k = ANY (ARRAY(SELECT generate_series(1000, 4000)))') < 100 AS one_pass;
SELECT pbt_index_buffers('SELECT count(*) FROM s_pass WHERE t = ANY (ARRAY(SELECT lpad(g::text, 6, ''0'') FROM generate_series(20000, 23000) g))') < 100 AS one_pass;
-- elements 7 apart, 12 entries between them: still one pass
SELECT pbt_index_buffers('SELECT count(*) FROM s_pass WHERE k = ANY (ARRAY(SELECT g * 7 FROM generate_series(100, 2900) g))') < 500 AS one_pass;

-- a scrollable cursor turning inside a pass and after one gave up, and a
-- merge join's inner scan (marks), against the same rows indexed by btree
CREATE TABLE s_pass_b AS SELECT * FROM s_pass;
CREATE INDEX s_pass_b_k ON s_pass_b (k);
CREATE INDEX s_pass_b_t ON s_pass_b (t DESC);
ANALYZE s_pass_b;
SET enable_seqscan = off;
CREATE FUNCTION pbt_scroll_cmp(q text, moves int[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    cp refcursor;
    cb refcursor;
    rp text;
    rb text;
    n int := 0;
BEGIN
    OPEN cp SCROLL FOR EXECUTE replace(q, '$T', 's_pass');
    OPEN cb SCROLL FOR EXECUTE replace(q, '$T', 's_pass_b');
    FOR m IN 1 .. array_length(moves, 1) LOOP
        FOR i IN 1 .. abs(moves[m]) LOOP
            IF moves[m] > 0 THEN
                FETCH NEXT FROM cp INTO rp;
                FETCH NEXT FROM cb INTO rb;
            ELSE
                FETCH PRIOR FROM cp INTO rp;
                FETCH PRIOR FROM cb INTO rb;
            END IF;
            IF rp IS DISTINCT FROM rb THEN
                RETURN format('move %s, row %s: %s against %s', m, i, rp, rb);
            END IF;
            n := n + (rp IS NOT NULL)::int;
        END LOOP;
    END LOOP;
    RETURN format('%s rows alike', n);
END $$;
SELECT pbt_scroll_cmp('SELECT k FROM $T WHERE k = ANY (ARRAY(SELECT generate_series(1000, 4000))) ORDER BY k',
                      '{700,-300,2500,-1200,5000,-6500,40}');
SELECT pbt_scroll_cmp('SELECT k FROM $T WHERE k = ANY (ARRAY(SELECT g + g / 500 * g * 40 FROM generate_series(0, 1500) g)) ORDER BY k',
                      '{1100,-200,400,-1500,2000}');
SELECT pbt_scroll_cmp('SELECT t FROM $T WHERE t = ANY (ARRAY(SELECT lpad(g::text, 6, ''0'') FROM generate_series(20000, 23000) g)) ORDER BY t DESC',
                      '{1000,-999,6000,-50}');
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_sort = off;
-- (plan lines, not the plan: InitPlans print differently from 17 on)
CREATE FUNCTION pbt_plan_lines(q text, pattern text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    ln text;
    n int := 0;
BEGIN
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        n := n + (ln ~ pattern)::int;
    END LOOP;
    RETURN n;
END $$;
SELECT pbt_plan_lines(q, 'Merge Join') AS merge_joins,
       pbt_plan_lines(q, 'Index (Only )?Scan using s_pass_k') AS pagebtree_scans
FROM (VALUES ('SELECT count(*) FROM s_pass a JOIN s_pass b ON a.k = b.k
    WHERE a.k = ANY (ARRAY(SELECT generate_series(1000, 4000)))
      AND b.k = ANY (ARRAY(SELECT generate_series(1000, 4000)))')) AS v(q);
SELECT (SELECT count(*) || '/' || sum(a.id) FROM s_pass a JOIN s_pass b ON a.k = b.k
        WHERE a.k = ANY (ARRAY(SELECT generate_series(1000, 4000)))
          AND b.k = ANY (ARRAY(SELECT generate_series(1000, 4000)))) =
       (SELECT count(*) || '/' || sum(a.id) FROM s_pass_b a JOIN s_pass_b b ON a.k = b.k
        WHERE a.k = ANY (ARRAY(SELECT generate_series(1000, 4000)))
          AND b.k = ANY (ARRAY(SELECT generate_series(1000, 4000)))) AS merge_join_alike;
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_sort;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT pagebtree_check('s_pass_k', true), pagebtree_check('s_pass_t', true);
-- bitmap scans read passes too (a few dozen pages where per element they
-- read 3,000); BPA leaves keep entries unsorted, so there each entry is
-- looked up among all the elements
CREATE TABLE s_pass_bpa AS SELECT id, k FROM s_pass WHERE id < 60000;
CREATE INDEX s_pass_bpa_k ON s_pass_bpa USING pagebtree (k) WITH (layout = bpa);
INSERT INTO s_pass_bpa SELECT 70000 + i, (i * 7919) % 30000 FROM generate_series(1, 6000) i;
VACUUM ANALYZE s_pass_bpa;
SELECT count(*) > 0 AS bpa_leaves FROM pagebtree_layout_summary('s_pass_bpa_k') WHERE layout = 'bpa';
SELECT query, nrows, bmp_plan, bmp_diffs FROM pbt_cmp_all(ARRAY[
    'SELECT id FROM s_pass WHERE k = ANY (ARRAY(SELECT generate_series(1000, 4000)))',
    'SELECT t FROM s_pass WHERE t = ANY (ARRAY(SELECT lpad(g::text, 6, ''0'') FROM generate_series(20000, 23000) g))',
    'SELECT id FROM s_pass WHERE k = ANY (ARRAY(SELECT g + g / 500 * g * 40 FROM generate_series(0, 1500) g))',
    'SELECT id FROM s_pass_bpa WHERE k = ANY (ARRAY(SELECT generate_series(1000, 4000)))',
    'SELECT id FROM s_pass_bpa WHERE k = ANY (ARRAY(SELECT g * 7 FROM generate_series(100, 2900) g))',
    'SELECT id FROM s_pass_bpa WHERE k = ANY (ARRAY(SELECT g + g / 500 * g * 40 FROM generate_series(0, 1500) g))'
]);
SET enable_seqscan = off;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SELECT pbt_index_buffers('SELECT count(*) FROM s_pass WHERE k = ANY (ARRAY(SELECT generate_series(1000, 4000)))') < 100 AS one_pass;
SELECT pbt_index_buffers('SELECT count(*) FROM s_pass_bpa WHERE k = ANY (ARRAY(SELECT generate_series(1000, 4000)))') < 100 AS one_pass;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
SELECT pagebtree_check('s_pass_bpa_k', true);
DROP TABLE s_pass_bpa;

-- IS NULL / IS NOT NULL on both columns
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id FROM s_multi WHERE a IS NULL',
    'SELECT id FROM s_multi WHERE a IS NOT NULL',
    'SELECT id FROM s_multi WHERE a IS NULL AND b IS NULL',
    'SELECT id FROM s_multi WHERE a IS NULL AND b = ''k123''',
    'SELECT id FROM s_multi WHERE a IS NULL AND b IS NOT NULL',
    'SELECT id FROM s_multi WHERE a IS NOT NULL AND b IS NULL',
    'SELECT id FROM s_multi WHERE a = 5 AND b IS NULL',
    'SELECT id FROM s_multi WHERE a > 1990 AND b IS NOT NULL',
    'SELECT id FROM s_multi WHERE b IS NULL',
    'SELECT a, b FROM s_multi WHERE a IS NULL ORDER BY a, b',
    'SELECT a, b FROM s_multi WHERE a IS NULL ORDER BY a DESC, b DESC',
    'SELECT a, b FROM s_multi WHERE b IS NULL ORDER BY a, b',
    'SELECT a, b FROM s_multi ORDER BY a DESC, b DESC LIMIT 400'
]);

--
-- Scroll cursors: change scan direction in the middle of an index scan.
--
CREATE OR REPLACE FUNCTION pbt_cursor_cmp(q text,
                                          OUT plan_ok boolean, OUT nfetched int,
                                          OUT ndiffs int)
LANGUAGE plpgsql
SET enable_seqscan = on SET enable_indexscan = on SET enable_indexonlyscan = on
SET enable_bitmapscan = on
AS $$
DECLARE
    c refcursor;
    r record;
    pass int;
    got text[];
    a text[];
BEGIN
    FOR pass IN 1..2 LOOP
        IF pass = 1 THEN
            PERFORM set_config('enable_seqscan', 'off', true);
            PERFORM set_config('enable_bitmapscan', 'off', true);
            plan_ok := false;
            FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
                IF r."QUERY PLAN" ~ 'Index (Only )?Scan' THEN
                    plan_ok := true;
                END IF;
            END LOOP;
        ELSE
            PERFORM set_config('enable_seqscan', 'on', true);
            PERFORM set_config('enable_indexscan', 'off', true);
            PERFORM set_config('enable_indexonlyscan', 'off', true);
            PERFORM set_config('enable_bitmapscan', 'off', true);
        END IF;
        got := '{}';
        OPEN c SCROLL FOR EXECUTE q;
        FOR i IN 1..7 LOOP FETCH NEXT FROM c INTO r; got := got || r::text; END LOOP;
        FOR i IN 1..4 LOOP FETCH PRIOR FROM c INTO r; got := got || r::text; END LOOP;
        FOR i IN 1..3 LOOP FETCH NEXT FROM c INTO r; got := got || r::text; END LOOP;
        FETCH ABSOLUTE 200 FROM c INTO r; got := got || r::text;
        FETCH RELATIVE -50 FROM c INTO r; got := got || r::text;
        FOR i IN 1..3 LOOP FETCH PRIOR FROM c INTO r; got := got || r::text; END LOOP;
        FETCH LAST FROM c INTO r; got := got || r::text;
        FOR i IN 1..5 LOOP FETCH PRIOR FROM c INTO r; got := got || r::text; END LOOP;
        FETCH NEXT FROM c INTO r; got := got || r::text;
        FETCH NEXT FROM c INTO r; got := got || r::text;
        FETCH NEXT FROM c INTO r; got := got || coalesce(r::text, 'past end');
        FETCH PRIOR FROM c INTO r; got := got || r::text;
        FETCH FIRST FROM c INTO r; got := got || r::text;
        FETCH PRIOR FROM c INTO r; got := got || coalesce(r::text, 'before start');
        FOR i IN 1..3 LOOP FETCH NEXT FROM c INTO r; got := got || r::text; END LOOP;
        CLOSE c;
        IF pass = 1 THEN a := got; END IF;
    END LOOP;
    nfetched := cardinality(got);
    SELECT count(*) INTO ndiffs FROM generate_series(1, nfetched) i
    WHERE a[i] IS DISTINCT FROM got[i];
END;
$$;
SELECT * FROM pbt_cursor_cmp('SELECT a, b FROM s_multi WHERE a BETWEEN 100 AND 200 ORDER BY a, b');
-- (the filter on c makes it a plain Index Scan rather than an index-only one)
SELECT * FROM pbt_cursor_cmp('SELECT a, b FROM s_multi WHERE a BETWEEN 100 AND 200 AND c >= 0 ORDER BY a DESC, b DESC');
SELECT * FROM pbt_cursor_cmp('SELECT a, b FROM s_multi WHERE a = ANY (''{7,3,1500,1000}'') ORDER BY a, b');
SELECT * FROM pbt_cursor_cmp('SELECT a, b FROM s_multi ORDER BY a, b');

--
-- A cursor that turns on a leaf that an insert changed meanwhile, in indexes
-- without WAL (temporary and unlogged): their pages carry no LSN that would
-- tell that the entries moved.  btree on the same rows for reference: the
-- turn finds nothing before the first row, then 50 and 49 follow.
--
CREATE TEMP TABLE s_turn_tmp (a int);
CREATE UNLOGGED TABLE s_turn_unl (a int) WITH (autovacuum_enabled = off);
CREATE TEMP TABLE s_turn_bt (a int);
INSERT INTO s_turn_tmp SELECT generate_series(1, 100);
INSERT INTO s_turn_unl SELECT generate_series(1, 100);
INSERT INTO s_turn_bt SELECT generate_series(1, 100);
CREATE INDEX ON s_turn_tmp USING pagebtree (a);
CREATE INDEX ON s_turn_unl USING pagebtree (a);
CREATE INDEX ON s_turn_bt USING btree (a);
CREATE FUNCTION s_turn(t text) RETURNS text LANGUAGE plpgsql
SET enable_seqscan = off SET enable_bitmapscan = off
AS $$
DECLARE
    q text := format('SELECT a FROM %I WHERE a <= 50 ORDER BY a DESC', t);
    plan text;
    c refcursor;
    r record;
    got text;
BEGIN
    EXECUTE 'EXPLAIN (COSTS OFF) ' || q INTO plan;
    OPEN c SCROLL FOR EXECUTE q;
    FETCH NEXT FROM c INTO r;
    got := r.a;
    EXECUTE format('INSERT INTO %I VALUES (25)', t);
    FETCH PRIOR FROM c INTO r;
    got := got || ' ' || coalesce(r.a::text, 'none');
    FOR i IN 1..2 LOOP
        FETCH NEXT FROM c INTO r;
        got := got || ' ' || r.a;
    END LOOP;
    CLOSE c;
    RETURN split_part(plan, ' using', 1) || ': ' || got;
END;
$$;
SELECT s_turn('s_turn_tmp') AS temp, s_turn('s_turn_unl') AS unlogged,
       s_turn('s_turn_bt') AS btree;
DROP TABLE s_turn_tmp, s_turn_unl, s_turn_bt;
DROP FUNCTION s_turn(text);

--
-- Rescans: nested loop with a parameterized inner index scan, and a LATERAL
-- subquery with a backward scan and LIMIT per outer row.
--
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT v.x, s.id FROM (VALUES (5), (7), (5), (NULL), (1999), (-1)) v(x)
JOIN s_multi s ON s.a = v.x;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_cmp('SELECT v.x, s.id FROM (VALUES (5), (7), (5), (NULL), (1999), (-1)) v(x) JOIN s_multi s ON s.a = v.x');
SELECT * FROM pbt_cmp('SELECT v.x, s.b FROM (VALUES (5), (7), (5), (NULL), (1999), (-1)) v(x), LATERAL (SELECT b FROM s_multi WHERE a = v.x ORDER BY b DESC LIMIT 3) s');
SELECT * FROM pbt_cmp('SELECT v.x, s.b FROM (VALUES (5), (7), (5), (1999)) v(x), LATERAL (SELECT b FROM s_multi WHERE a > v.x ORDER BY a, b LIMIT 5) s');
RESET enable_hashjoin;
RESET enable_mergejoin;

--
-- Descending columns and NULLS FIRST/LAST per column.
--
CREATE TABLE s_desc WITH (autovacuum_enabled = off) AS SELECT * FROM s_multi;
CREATE INDEX s_desc_ab ON s_desc USING pagebtree (a DESC NULLS LAST, b NULLS FIRST);
CREATE TABLE s_nf WITH (autovacuum_enabled = off) AS SELECT * FROM s_multi;
CREATE INDEX s_nf_ab ON s_nf USING pagebtree (a NULLS FIRST, b DESC);
VACUUM ANALYZE s_desc;
VACUUM ANALYZE s_nf;
SELECT pagebtree_check('s_desc_ab', true);
SELECT pagebtree_check('s_nf_ab', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT a, b FROM s_desc ORDER BY a DESC NULLS LAST, b NULLS FIRST LIMIT 30;
EXPLAIN (COSTS OFF) SELECT a, b FROM s_desc ORDER BY a NULLS FIRST, b DESC NULLS LAST LIMIT 30;
EXPLAIN (COSTS OFF) SELECT a, b FROM s_nf ORDER BY a NULLS FIRST, b DESC LIMIT 30;
EXPLAIN (COSTS OFF) SELECT a, b FROM s_nf ORDER BY a DESC NULLS LAST, b LIMIT 30;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT a, b FROM s_desc ORDER BY a DESC NULLS LAST, b NULLS FIRST',
    'SELECT a, b FROM s_desc ORDER BY a NULLS FIRST, b DESC NULLS LAST',
    'SELECT a, b FROM s_desc ORDER BY a DESC NULLS LAST, b NULLS FIRST LIMIT 30',
    'SELECT a, b FROM s_desc ORDER BY a NULLS FIRST, b DESC NULLS LAST LIMIT 30',
    'SELECT a, b FROM s_desc WHERE a < 50 ORDER BY a DESC NULLS LAST, b NULLS FIRST',
    'SELECT a, b FROM s_desc WHERE a > 1990 ORDER BY a DESC NULLS LAST, b NULLS FIRST',
    'SELECT a, b FROM s_desc WHERE a >= 1000 AND a <= 1010 ORDER BY a NULLS FIRST, b DESC NULLS LAST',
    'SELECT b FROM s_desc WHERE a = 7 ORDER BY b NULLS FIRST',
    'SELECT b FROM s_desc WHERE a = 7 ORDER BY b DESC NULLS LAST',
    'SELECT b FROM s_desc WHERE a = 7 AND b > ''k200'' ORDER BY b NULLS FIRST',
    'SELECT a, b FROM s_desc WHERE a IS NULL ORDER BY a DESC NULLS LAST, b NULLS FIRST',
    'SELECT id FROM s_desc WHERE b IS NULL AND a < 100',
    'SELECT id FROM s_desc WHERE a = ANY (''{1,5,NULL,1999}'') AND b < ''k100''',
    'SELECT a, b FROM s_nf ORDER BY a NULLS FIRST, b DESC',
    'SELECT a, b FROM s_nf ORDER BY a DESC NULLS LAST, b',
    'SELECT a, b FROM s_nf ORDER BY a NULLS FIRST, b DESC LIMIT 30',
    'SELECT a, b FROM s_nf WHERE a <= 3 ORDER BY a NULLS FIRST, b DESC',
    'SELECT a, b FROM s_nf WHERE a >= 1995 ORDER BY a DESC NULLS LAST, b',
    'SELECT id FROM s_nf WHERE a IS NULL AND b < ''k250'''
]);

--
-- INCLUDE columns: index-only scans return them; quals on them are filters.
--
CREATE TABLE s_incl WITH (autovacuum_enabled = off) AS SELECT * FROM s_multi;
CREATE INDEX s_incl_a ON s_incl USING pagebtree (a) INCLUDE (c, b);
INSERT INTO s_incl VALUES (100001, 5, NULL, NULL), (100002, NULL, 'x', 7), (100003, 5, repeat('y', 300), 8);
VACUUM ANALYZE s_incl;
SELECT pagebtree_check('s_incl_a', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT a, c, b FROM s_incl WHERE a = 5;
EXPLAIN (COSTS OFF) SELECT a, c FROM s_incl WHERE a < 10 AND c > 500 ORDER BY a DESC;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_cmp('SELECT a, c, b FROM s_incl WHERE a = 5', 'indexonly');
SELECT * FROM pbt_cmp('SELECT a, c FROM s_incl WHERE a < 10 AND c > 500', 'indexonly');
SELECT * FROM pbt_cmp('SELECT c, b FROM s_incl WHERE a IS NULL', 'indexonly');
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id, a, c, b FROM s_incl WHERE a BETWEEN 100 AND 120',
    'SELECT a, c, b FROM s_incl WHERE a = ANY (''{5,6,NULL}'')',
    'SELECT a FROM s_incl ORDER BY a DESC LIMIT 100'
]);

--
-- Partial index.
--
CREATE TABLE s_part WITH (autovacuum_enabled = off) AS SELECT * FROM s_multi;
CREATE INDEX s_part_b ON s_part USING pagebtree (b) WHERE c < 100;
VACUUM ANALYZE s_part;
SELECT pagebtree_check('s_part_b', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM s_part WHERE c < 100 AND b = 'k123';
EXPLAIN (COSTS OFF) SELECT b FROM s_part WHERE c < 50 ORDER BY b LIMIT 5;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id FROM s_part WHERE c < 100 AND b = ''k123''',
    'SELECT id FROM s_part WHERE c < 100 AND b > ''k450''',
    'SELECT b FROM s_part WHERE c < 100 ORDER BY b',
    'SELECT b FROM s_part WHERE c < 50 ORDER BY b DESC LIMIT 20',
    'SELECT id FROM s_part WHERE c < 100 AND b IS NULL'
]);

--
-- Expression index.
--
CREATE TABLE s_expr WITH (autovacuum_enabled = off) AS
SELECT id, a, CASE WHEN id % 3 = 0 THEN upper(b) ELSE b END AS b, c FROM s_multi;
CREATE INDEX s_expr_idx ON s_expr USING pagebtree ((a % 7), lower(b));
VACUUM ANALYZE s_expr;
SELECT pagebtree_check('s_expr_idx', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM s_expr WHERE a % 7 = 3 AND lower(b) = 'k123';
EXPLAIN (COSTS OFF) SELECT a % 7, lower(b) FROM s_expr ORDER BY a % 7 DESC, lower(b) DESC LIMIT 5;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id, b FROM s_expr WHERE a % 7 = 3 AND lower(b) = ''k123''',
    'SELECT id FROM s_expr WHERE a % 7 = 3 AND lower(b) > ''k400''',
    'SELECT id FROM s_expr WHERE a % 7 IS NULL',
    'SELECT a % 7, lower(b) FROM s_expr ORDER BY a % 7, lower(b)',
    'SELECT a % 7, lower(b) FROM s_expr ORDER BY a % 7 DESC, lower(b) DESC LIMIT 500'
]);

--
-- Long keys sharing a 200-byte prefix: separators cannot be short, so the
-- tree grows at least two levels above the leaves.  Comparator-mode keys:
-- a linguistic collation (test/run-all.sh generates the locale; under
-- "C" or C.UTF-8 the keys are normalized, and truncated separators keep
-- the tree lower).
--
CREATE COLLATION s_en (provider = libc, locale = 'en_US.UTF-8');
CREATE TABLE s_wide (id int, w text COLLATE s_en) WITH (autovacuum_enabled = off);
INSERT INTO s_wide
SELECT i, repeat('x', 200) || lpad(((i * 7) % 12000)::text, 6, '0')
FROM generate_series(1, 12000) i;
CREATE INDEX s_wide_w ON s_wide USING pagebtree (w);
INSERT INTO s_wide
SELECT i, repeat('x', 200) || lpad(((i * 11) % 12000)::text, 6, '0') || 'z'
FROM generate_series(12001, 15000) i;
VACUUM ANALYZE s_wide;
SELECT pagebtree_check('s_wide_w', true);
SELECT level >= 2 AS two_levels FROM pagebtree_metapage('s_wide_w');
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT id FROM s_wide WHERE w = repeat(''x'', 200) || ''005000''',
    'SELECT id FROM s_wide WHERE w >= repeat(''x'', 200) || ''005000'' AND w < repeat(''x'', 200) || ''005100''',
    'SELECT id FROM s_wide WHERE w > repeat(''x'', 200) || ''011990''',
    'SELECT id FROM s_wide WHERE w < repeat(''x'', 199)',
    'SELECT right(w, 7) FROM s_wide ORDER BY w',
    'SELECT right(w, 7) FROM s_wide ORDER BY w DESC',
    'SELECT right(w, 7) FROM s_wide WHERE w > repeat(''x'', 200) || ''006'' ORDER BY w LIMIT 40',
    'SELECT right(w, 7) FROM s_wide WHERE w < repeat(''x'', 200) || ''006'' ORDER BY w DESC LIMIT 40'
]);

--
-- Merge join: both inputs are pagebtree index scans; the inner side has runs
-- of duplicates (one spanning several pages), so every duplicate key on the
-- outer side restores the inner scan to its mark.
--
CREATE TABLE mj_o (id int, k int) WITH (autovacuum_enabled = off);
CREATE TABLE mj_i (id int, k int) WITH (autovacuum_enabled = off);
INSERT INTO mj_o SELECT i, CASE WHEN i % 101 = 0 THEN NULL ELSE i % 500 END FROM generate_series(1, 1500) i;
INSERT INTO mj_o SELECT 2000 + i, 5 FROM generate_series(1, 3) i;
INSERT INTO mj_i SELECT i, CASE WHEN i % 103 = 0 THEN NULL ELSE (i * 3) % 700 END FROM generate_series(1, 3500) i;
INSERT INTO mj_i SELECT 5000 + i, 5 FROM generate_series(1, 2000) i;
CREATE INDEX mj_o_k ON mj_o USING pagebtree (k);
CREATE INDEX mj_i_k ON mj_i USING pagebtree (k);
VACUUM ANALYZE mj_o;
VACUUM ANALYZE mj_i;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_sort = off;
SET enable_material = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT o.id, i.id FROM mj_o o JOIN mj_i i ON o.k = i.k;
CREATE TEMP TABLE mj_merge AS SELECT o.id AS oid_, i.id AS iid FROM mj_o o JOIN mj_i i ON o.k = i.k;
EXPLAIN (COSTS OFF)
SELECT o.k, o.id, i.id FROM mj_o o JOIN mj_i i ON o.k = i.k ORDER BY o.k DESC;
CREATE TEMP TABLE mj_merge_desc AS SELECT o.id AS oid_, i.id AS iid FROM mj_o o JOIN mj_i i ON o.k = i.k ORDER BY o.k DESC;
CREATE TEMP TABLE mj_merge_left AS SELECT o.id AS oid_, i.id AS iid FROM mj_o o LEFT JOIN mj_i i ON o.k = i.k;
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_sort;
RESET enable_material;
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_mergejoin = off;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE mj_hash AS SELECT o.id AS oid_, i.id AS iid FROM mj_o o JOIN mj_i i ON o.k = i.k;
CREATE TEMP TABLE mj_hash_left AS SELECT o.id AS oid_, i.id AS iid FROM mj_o o LEFT JOIN mj_i i ON o.k = i.k;
RESET enable_mergejoin;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SELECT (SELECT count(*) FROM mj_hash) AS nrows,
       (SELECT count(*) FROM (TABLE mj_merge EXCEPT ALL TABLE mj_hash) d)
     + (SELECT count(*) FROM (TABLE mj_hash EXCEPT ALL TABLE mj_merge) d) AS merge_diffs,
       (SELECT count(*) FROM (TABLE mj_merge_desc EXCEPT ALL TABLE mj_hash) d)
     + (SELECT count(*) FROM (TABLE mj_hash EXCEPT ALL TABLE mj_merge_desc) d) AS merge_desc_diffs,
       (SELECT count(*) FROM mj_hash_left) AS nrows_left,
       (SELECT count(*) FROM (TABLE mj_merge_left EXCEPT ALL TABLE mj_hash_left) d)
     + (SELECT count(*) FROM (TABLE mj_hash_left EXCEPT ALL TABLE mj_merge_left) d) AS merge_left_diffs;

-- A merge join whose inner scan has = ANY: the inner side restores its mark
-- in an earlier element's rows after the scan went on to a later element
-- (each outer 1 after the first, with 100 inner rows of 1, more than one
-- batch).  btree's answer on the same rows for reference.
CREATE TABLE mj_ao (k int) WITH (autovacuum_enabled = off);
CREATE TABLE mj_ai (k int) WITH (autovacuum_enabled = off);
INSERT INTO mj_ao VALUES (1), (1), (2), (3), (3);
INSERT INTO mj_ai SELECT k FROM generate_series(1, 3) k, generate_series(1, 100);
CREATE INDEX mj_ao_k ON mj_ao USING pagebtree (k);
CREATE INDEX mj_ai_k ON mj_ai USING pagebtree (k);
CREATE TABLE mj_ai_bt AS TABLE mj_ai;
CREATE INDEX mj_ai_bt_k ON mj_ai_bt USING btree (k);
VACUUM ANALYZE mj_ao, mj_ai, mj_ai_bt;
SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_sort = off;
SET enable_material = off; SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT o.k, count(*) FROM mj_ao o JOIN mj_ai i ON i.k = o.k
WHERE i.k = ANY ('{1,3}') GROUP BY 1 ORDER BY 1;
SELECT o.k, count(*) FROM mj_ao o JOIN mj_ai i ON i.k = o.k
WHERE i.k = ANY ('{1,3}') GROUP BY 1 ORDER BY 1;
SELECT o.k, count(*) FROM mj_ao o JOIN mj_ai_bt i ON i.k = o.k
WHERE i.k = ANY ('{1,3}') GROUP BY 1 ORDER BY 1;
RESET enable_hashjoin; RESET enable_nestloop; RESET enable_sort;
RESET enable_material; RESET enable_seqscan; RESET enable_bitmapscan;
DROP TABLE mj_ao, mj_ai, mj_ai_bt;

-- A merge join whose inner key's entries span several leaves, restored to
-- its mark for each of 500 equal outer keys: the inner scan walks the same
-- leaves again each time, about 4,000 steps over an index of 11 blocks, which
-- its check for right-link cycles counted as one walk ("right-links of a
-- level form a cycle").  btree's answer on the same rows for reference.
CREATE TABLE mj_ro (k int8) WITH (autovacuum_enabled = off);
CREATE TABLE mj_ri (k int8, pad int) WITH (autovacuum_enabled = off);
INSERT INTO mj_ro SELECT 5 FROM generate_series(1, 500);
INSERT INTO mj_ri SELECT 5, g FROM generate_series(1, 3000) g;
INSERT INTO mj_ri SELECT g, g FROM generate_series(6, 100) g;
CREATE INDEX mj_ro_k ON mj_ro USING pagebtree (k);
CREATE INDEX mj_ri_k ON mj_ri USING pagebtree (k) WITH (layout = plain);
CREATE TABLE mj_ri_bt AS TABLE mj_ri;
CREATE INDEX mj_ri_bt_k ON mj_ri_bt USING btree (k);
VACUUM ANALYZE mj_ro, mj_ri, mj_ri_bt;
SELECT count(*) >= 7 AS several_leaves
FROM generate_series(1, pg_relation_size('mj_ri_k') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('mj_ri_k', b) s
WHERE s.page_type = 'leaf';
SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_sort = off;
SET enable_material = off; SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM mj_ro o JOIN mj_ri i USING (k);
SELECT count(*) FROM mj_ro o JOIN mj_ri i USING (k);
SELECT count(*) FROM mj_ro o JOIN mj_ri_bt i USING (k);
RESET enable_hashjoin; RESET enable_nestloop; RESET enable_sort;
RESET enable_material; RESET enable_seqscan; RESET enable_bitmapscan;
DROP TABLE mj_ro, mj_ri, mj_ri_bt;

--
-- Text under different collations: "C", "POSIX", the database default, a
-- libc C.UTF-8 (code point order: normalized keys, as under "C") and a
-- linguistic one (comparator keys), each with its own index on the same
-- column.
--
CREATE COLLATION s_cutf8 (provider = libc, locale = 'C.UTF-8');
CREATE TABLE s_coll (id int, t text) WITH (autovacuum_enabled = off);
INSERT INTO s_coll
SELECT i, CASE i % 8
              WHEN 0 THEN upper(substr(md5(i::text), 1, 6))
              WHEN 1 THEN substr(md5(i::text), 1, 6)
              WHEN 2 THEN 'É' || substr(md5(i::text), 1, 4)
              WHEN 3 THEN ' ' || substr(md5(i::text), 1, 5)
              WHEN 4 THEN '-' || substr(md5(i::text), 1, 5)
              WHEN 5 THEN 'a-' || substr(md5(i::text), 1, 2)
              WHEN 6 THEN NULL
              ELSE 'ä' || (i % 100) END
FROM generate_series(1, 20000) i;
CREATE INDEX s_coll_c ON s_coll USING pagebtree (t COLLATE "C");
CREATE INDEX s_coll_posix ON s_coll USING pagebtree (t COLLATE "POSIX");
CREATE INDEX s_coll_def ON s_coll USING pagebtree (t);
CREATE INDEX s_coll_cutf8 ON s_coll USING pagebtree (t COLLATE s_cutf8);
CREATE INDEX s_coll_en ON s_coll USING pagebtree (t COLLATE s_en);
SELECT i, m.key_mode, s.layout
FROM unnest(ARRAY['s_coll_c', 's_coll_cutf8', 's_coll_en']) i,
     LATERAL pagebtree_metapage(i::regclass) m,
     LATERAL (SELECT string_agg(DISTINCT layout, ',') AS layout
              FROM pagebtree_layout_summary(i::regclass)) s
ORDER BY 1;
VACUUM ANALYZE s_coll;
SELECT pagebtree_check('s_coll_c', true);
SELECT pagebtree_check('s_coll_posix', true);
SELECT pagebtree_check('s_coll_def', true);
SELECT pagebtree_check('s_coll_cutf8', true);
SELECT pagebtree_check('s_coll_en', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT t FROM s_coll WHERE t > 'a' COLLATE "C" ORDER BY t COLLATE "C" LIMIT 5;
EXPLAIN (COSTS OFF) SELECT t FROM s_coll WHERE t > 'a' COLLATE "POSIX" ORDER BY t COLLATE "POSIX" LIMIT 5;
EXPLAIN (COSTS OFF) SELECT t FROM s_coll WHERE t > 'a' ORDER BY t LIMIT 5;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT t FROM s_coll ORDER BY t COLLATE "C"',
    'SELECT t FROM s_coll ORDER BY t COLLATE "C" DESC',
    'SELECT id FROM s_coll WHERE t COLLATE "C" > ''a''',
    'SELECT id FROM s_coll WHERE t COLLATE "C" < ''a''',
    'SELECT id FROM s_coll WHERE t COLLATE "C" >= ''É'' AND t COLLATE "C" < ''ä''',
    'SELECT id FROM s_coll WHERE t COLLATE "C" = ''a-7f''',
    'SELECT t FROM s_coll WHERE t COLLATE "C" BETWEEN ''A'' AND ''a'' ORDER BY t COLLATE "C" DESC LIMIT 50',
    'SELECT t FROM s_coll ORDER BY t COLLATE "POSIX"',
    'SELECT id FROM s_coll WHERE t COLLATE "POSIX" > ''B'' AND t COLLATE "POSIX" <= ''b''',
    'SELECT t FROM s_coll ORDER BY t',
    'SELECT t FROM s_coll ORDER BY t DESC',
    'SELECT id FROM s_coll WHERE t > ''a''',
    'SELECT id FROM s_coll WHERE t >= ''É'' AND t < ''ä''',
    'SELECT id FROM s_coll WHERE t = ANY (ARRAY[''a-7f'', ''ä42'', NULL])',
    'SELECT t FROM s_coll WHERE t < ''b'' ORDER BY t DESC LIMIT 50',
    'SELECT t FROM s_coll ORDER BY t COLLATE s_cutf8',
    'SELECT t FROM s_coll ORDER BY t COLLATE s_cutf8 DESC',
    'SELECT id FROM s_coll WHERE t COLLATE s_cutf8 > ''a''',
    'SELECT id FROM s_coll WHERE t COLLATE s_cutf8 >= ''É'' AND t COLLATE s_cutf8 < ''ä''',
    'SELECT t FROM s_coll WHERE t COLLATE s_cutf8 BETWEEN ''A'' AND ''a'' ORDER BY t COLLATE s_cutf8 DESC LIMIT 50',
    'SELECT id FROM s_coll WHERE t COLLATE s_cutf8 = ANY (ARRAY[''a-7f'', ''ä42''])',
    'SELECT t FROM s_coll ORDER BY t COLLATE s_en',
    'SELECT t FROM s_coll ORDER BY t COLLATE s_en DESC',
    'SELECT id FROM s_coll WHERE t COLLATE s_en > ''a''',
    'SELECT id FROM s_coll WHERE t COLLATE s_en >= ''ä'' AND t COLLATE s_en < ''É''',
    'SELECT t FROM s_coll WHERE t COLLATE s_en BETWEEN ''a'' AND ''B'' ORDER BY t COLLATE s_en DESC LIMIT 50'
]);

-- With ICU available, also an ICU collation and a nondeterministic
-- (case-insensitive) one.  Silent on success, so the output does not depend
-- on whether the server has ICU.
DO $$
DECLARE
    q text;
    r record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
        RETURN;
    END IF;
    CREATE INDEX s_coll_icu ON s_coll USING pagebtree (t COLLATE "und-x-icu");
    CREATE COLLATION pbt_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
    CREATE INDEX s_coll_ci ON s_coll USING pagebtree (t COLLATE pbt_ci);
    ANALYZE s_coll;
    PERFORM pagebtree_check('s_coll_icu', true);
    PERFORM pagebtree_check('s_coll_ci', true);
    FOREACH q IN ARRAY ARRAY[
        'SELECT t FROM s_coll ORDER BY t COLLATE "und-x-icu"',
        'SELECT t FROM s_coll ORDER BY t COLLATE "und-x-icu" DESC',
        'SELECT id FROM s_coll WHERE t COLLATE "und-x-icu" > ''a''',
        'SELECT id FROM s_coll WHERE t COLLATE "und-x-icu" >= ''É'' AND t COLLATE "und-x-icu" < ''f''',
        'SELECT id FROM s_coll WHERE t COLLATE pbt_ci = ''A-7F''',
        'SELECT id FROM s_coll WHERE t COLLATE pbt_ci > ''C'' AND t COLLATE pbt_ci < ''d''',
        'SELECT id FROM s_coll WHERE t COLLATE pbt_ci = ANY (ARRAY[''A-7F'', ''Ä42''])']
    LOOP
        SELECT * INTO r FROM pbt_cmp(q);
        IF NOT r.plan_ok OR r.ndiffs <> 0 OR r.nrows = 0 THEN
            RAISE WARNING 'ICU collation check failed: % -> plan_ok %, nrows %, ndiffs %',
                q, r.plan_ok, r.nrows, r.ndiffs;
        END IF;
    END LOOP;
    DROP INDEX s_coll_icu;
    DROP INDEX s_coll_ci;
    DROP COLLATION pbt_ci;
END;
$$;

-- An index of C.UTF-8 text, or of name, that an earlier pagebtree built
-- with comparator keys keeps them (its metapage says so) until REINDEX.
-- Made here by building under en_US.UTF-8 and then pointing the index's
-- collation at C.UTF-8 (name's: "C", its own) in the catalog, over keys
-- that both order alike.
CREATE TABLE s_old (id int, t text COLLATE s_cutf8, n name) WITH (autovacuum_enabled = off);
INSERT INTO s_old SELECT i, k, k
FROM (SELECT i, lpad(((i * 7919) % 20000)::text, 6, '0') AS k FROM generate_series(1, 20000) i) s;
CREATE INDEX s_old_t ON s_old USING pagebtree (t COLLATE s_en);
CREATE INDEX s_old_n ON s_old USING pagebtree (n COLLATE s_en);
UPDATE pg_index SET indcollation = (SELECT oid FROM pg_collation WHERE collname = 's_cutf8')::text::oidvector
WHERE indexrelid = 's_old_t'::regclass;
UPDATE pg_index SET indcollation = '950'::oidvector WHERE indexrelid = 's_old_n'::regclass;
VACUUM ANALYZE s_old;
SELECT i, m.key_mode, pagebtree_check(i, true)
FROM unnest(ARRAY['s_old_t', 's_old_n']::regclass[]) i, pagebtree_metapage(i) m;
SELECT * FROM pbt_cmp_all(ARRAY[
    'SELECT t FROM s_old ORDER BY t',
    'SELECT id FROM s_old WHERE t >= ''000500'' AND t < ''001500''',
    'SELECT t FROM s_old WHERE t > ''019000'' ORDER BY t DESC',
    'SELECT n FROM s_old ORDER BY n',
    'SELECT id FROM s_old WHERE n >= ''000500'' AND n < ''001500''',
    'SELECT n FROM s_old WHERE n > ''019000''::text ORDER BY n DESC'
]);
REINDEX TABLE s_old;
SELECT i, m.key_mode, pagebtree_check(i, true)
FROM unnest(ARRAY['s_old_t', 's_old_n']::regclass[]) i, pagebtree_metapage(i) m;
SELECT nrows, idx_plan, idx_diffs
FROM pbt_cmp_all(ARRAY['SELECT t FROM s_old ORDER BY t', 'SELECT n FROM s_old ORDER BY n']);
DROP TABLE s_old;

--
-- Point lookups (equality on every key column) read a leaf's entries of the
-- key up to the first other key.  k = 7 has 3000 entries over several
-- leaves: batches fill up with equal keys and continue in order, a scroll
-- cursor turns around inside and after them, and dead entries are hinted.
--
CREATE TABLE s_point (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO s_point
SELECT i, CASE WHEN i % 10 = 0 THEN 7 WHEN i % 10 = 1 THEN NULL ELSE i END
FROM generate_series(1, 30000) i;
CREATE FUNCTION pbt_point_checks() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    q text;
    via text;
    r record;
    c refcursor;
    got int[] := '{}';
    v int;
BEGIN
    FOREACH q IN ARRAY ARRAY[
        'SELECT id FROM s_point WHERE k = 7',
        'SELECT k FROM s_point WHERE k = 7',
        'SELECT id FROM s_point WHERE k = 7 AND k > 6',
        'SELECT id FROM s_point WHERE k = 7 AND k < 7',
        'SELECT id FROM s_point WHERE k IS NULL',
        'SELECT id FROM s_point WHERE k = ANY (''{13,7,12,NULL,29999}'')',
        'SELECT id FROM s_point WHERE k = 12',
        'SELECT id FROM s_point WHERE k = 29999',
        'SELECT id FROM s_point WHERE k = 30001']
    LOOP
        FOREACH via IN ARRAY ARRAY['index', 'bitmap'] LOOP
            SELECT * INTO r FROM pbt_cmp(q, via);
            RETURN NEXT format('%s (%s): plan_ok %s, nrows %s, ndiffs %s',
                               q, via, r.plan_ok, r.nrows, r.ndiffs);
        END LOOP;
    END LOOP;
    -- a scroll cursor; entries of one key are in heap TID (here: id) order
    PERFORM set_config('enable_seqscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    OPEN c SCROLL FOR SELECT id FROM s_point WHERE k = 7;
    FOR i IN 1..3 LOOP FETCH NEXT FROM c INTO v; got := got || v; END LOOP;
    FOR i IN 1..3 LOOP FETCH PRIOR FROM c INTO v; got := got || coalesce(v, -1); END LOOP;
    FETCH ABSOLUTE 40 FROM c INTO v; got := got || v;
    FETCH PRIOR FROM c INTO v; got := got || v;
    FETCH ABSOLUTE 1000 FROM c INTO v; got := got || v;
    FETCH RELATIVE -990 FROM c INTO v; got := got || v;
    FETCH LAST FROM c INTO v; got := got || v;
    FETCH PRIOR FROM c INTO v; got := got || v;
    FETCH NEXT FROM c INTO v; got := got || v;
    FETCH NEXT FROM c INTO v; got := got || coalesce(v, -1);
    FETCH PRIOR FROM c INTO v; got := got || v;
    CLOSE c;
    RETURN NEXT 'cursor: ' || got::text;
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_bitmapscan', 'on', true);
END;
$$;
CREATE INDEX s_point_k ON s_point USING pagebtree (k) WITH (layout = heads);
SELECT pbt_point_checks();
-- dead entries: the first lookup after the delete hints them, the next skips them
DELETE FROM s_point WHERE k = 7 AND id % 20 = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM s_point WHERE k = 7;
SELECT count(*) FROM s_point WHERE k = 7;
SELECT count(*) FROM s_point WHERE k = 7;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;
SELECT pagebtree_check('s_point_k', true);
DROP INDEX s_point_k;
CREATE INDEX s_point_k ON s_point USING pagebtree (k) WITH (layout = plain);
SELECT pbt_point_checks();
DROP INDEX s_point_k;
CREATE INDEX s_point_k ON s_point USING pagebtree (k) WITH (layout = bpa);
SELECT pbt_point_checks();
DROP INDEX s_point_k;
DROP FUNCTION pbt_point_checks();


-- clean up
-- long scans of one leading value with a bound on the next column
-- (p = x AND b >= y): a batch whose first and last items pass the keys
-- passes them whole (batch_keys_hold), the column's NULLs being at one end
-- of each p: ascending NULLS LAST, descending NULLS FIRST, comparator mode
-- (float8); forward and backward, redundant keys, NULL tests, and keys that
-- are not all required (p >= x AND b >= y: checked item by item).  Plain
-- index scans of such batches read only the entries' TIDs (iter_tids).
CREATE TABLE s_runs (id int, p int, b int) WITH (autovacuum_enabled = off);
INSERT INTO s_runs
SELECT i, i % 4, CASE WHEN i % 23 = 0 THEN NULL ELSE (i * 7919) % 5000 END
FROM generate_series(1, 16000) i;
CREATE TABLE s_runs_d (LIKE s_runs) WITH (autovacuum_enabled = off);
INSERT INTO s_runs_d SELECT * FROM s_runs;
CREATE TABLE s_runs_f (id int, p int, b float8) WITH (autovacuum_enabled = off);
INSERT INTO s_runs_f SELECT id, p, b / 7.0 FROM s_runs;
CREATE INDEX s_runs_pb ON s_runs USING pagebtree (p, b);
CREATE INDEX s_runs_d_pb ON s_runs_d USING pagebtree (p, b DESC NULLS FIRST);
CREATE INDEX s_runs_f_pb ON s_runs_f USING pagebtree (p, b);
VACUUM ANALYZE s_runs, s_runs_d, s_runs_f;
SELECT key_mode FROM pagebtree_metapage('s_runs_f_pb');
SELECT query, nrows > 0 AS has_rows, idx_plan, idx_diffs, bmp_plan, bmp_diffs
FROM pbt_cmp_all(ARRAY(
    SELECT format(q, t) FROM unnest(ARRAY['s_runs', 's_runs_d', 's_runs_f']) t,
    unnest(ARRAY[
        'SELECT id FROM %s WHERE p = 2 AND b >= 100',
        'SELECT id, b FROM %s WHERE p = 2 AND b >= 100 ORDER BY p, b, id',
        'SELECT id, b FROM %s WHERE p = 2 AND b >= 100 ORDER BY p DESC, b DESC, id',
        'SELECT b FROM %s WHERE p = 1 AND b <= 400 ORDER BY p, b',
        'SELECT b FROM %s WHERE p = 1 AND b <= 400 ORDER BY p DESC, b DESC',
        'SELECT id FROM %s WHERE p = 3 AND b > 100 AND b > 200 AND b < 700',
        'SELECT id FROM %s WHERE p = 3 AND b IS NOT NULL',
        'SELECT id FROM %s WHERE p = 3 AND b IS NULL',
        'SELECT id FROM %s WHERE p >= 2 AND b >= 600',
        'SELECT p, b FROM %s WHERE p = 0 ORDER BY p DESC, b DESC'
    ]) WITH ORDINALITY AS u(q, n) ORDER BY t, n));
DROP TABLE s_runs, s_runs_d, s_runs_f;

-- keys on a later column, checked item by item at the offset the fixed
-- widths before it give (check_keys_inline): NULLs before the column and in
-- it, DESC columns, arguments of other integer types, text values that are
-- prefixes of others, keys that end the scan and keys that do not, forward
-- and backward, and bitmap scans.  On heads leaves, the keys are also
-- tested on the entries' bytes before their items are built (iter_filter).
-- The first column has 4,000 values of 5 entries each, so that skip scans
-- give up and read on.
CREATE TABLE s_fixedkeys (d int, a int4, b int8, c bool) WITH (autovacuum_enabled = off);
INSERT INTO s_fixedkeys
SELECT g, CASE WHEN g % 17 = 0 THEN NULL ELSE g % 4000 END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE hashint4(g) % 1000 END, g % 7 = 0
FROM generate_series(1, 20000) g;
CREATE TABLE s_fixedkeys_d (LIKE s_fixedkeys) WITH (autovacuum_enabled = off);
INSERT INTO s_fixedkeys_d SELECT * FROM s_fixedkeys;
CREATE INDEX s_fixedkeys_abc ON s_fixedkeys USING pagebtree (a, b, c);
CREATE INDEX s_fixedkeys_d_abd ON s_fixedkeys_d USING pagebtree (a DESC NULLS LAST, b DESC, d);
VACUUM ANALYZE s_fixedkeys, s_fixedkeys_d;
SELECT query, nrows > 0 AS has_rows, idx_plan, idx_diffs, bmp_plan, bmp_diffs
FROM pbt_cmp_all(ARRAY(
    SELECT format(q, t) FROM unnest(ARRAY['s_fixedkeys', 's_fixedkeys_d']) t,
    unnest(ARRAY[
        'SELECT d FROM %s WHERE b = 42',
        'SELECT d FROM %s WHERE b = 42::int2 AND a > 100',
        'SELECT d, b FROM %s WHERE b > -5 AND b <= 3 ORDER BY a, b, d',
        'SELECT d, b FROM %s WHERE b >= 990 ORDER BY a DESC, b DESC, d DESC',
        'SELECT d FROM %s WHERE a BETWEEN 300 AND 3000 AND b < 20::int4',
        'SELECT d FROM %s WHERE a > 9 AND b > 500 AND b < 520',
        'SELECT d FROM %s WHERE a > 3900 AND b IS NULL',
        'SELECT d FROM %s WHERE a < 400 AND b > 5000000000',
        'SELECT d FROM %s WHERE a >= 3980 AND b < -5000000000'
    ]) WITH ORDINALITY AS u(q, n) ORDER BY t, n));
CREATE TABLE s_fixedkeys_t WITH (autovacuum_enabled = off) AS
SELECT d, a, CASE WHEN d % 19 = 0 THEN NULL WHEN d % 23 = 0 THEN ''
                  ELSE repeat('x', d % 4) || hashint4(d) % 50 END COLLATE "C" AS t
FROM s_fixedkeys;
CREATE INDEX s_fixedkeys_t_at ON s_fixedkeys_t USING pagebtree (a, t DESC);
VACUUM ANALYZE s_fixedkeys_t;
SELECT query, nrows > 0 AS has_rows, idx_plan, idx_diffs, bmp_plan, bmp_diffs
FROM pbt_cmp_all(ARRAY[
    'SELECT d FROM s_fixedkeys_t WHERE t = ''x1''',
    'SELECT d FROM s_fixedkeys_t WHERE t = ''''',
    'SELECT d FROM s_fixedkeys_t WHERE t < ''x''',
    'SELECT d, t FROM s_fixedkeys_t WHERE t >= ''xx4'' ORDER BY a, t DESC, d',
    'SELECT d, t FROM s_fixedkeys_t WHERE t > ''xxx1'' AND t <= ''xxx3'' ORDER BY a DESC, t, d DESC',
    'SELECT d FROM s_fixedkeys_t WHERE a > 9 AND t BETWEEN ''x1'' AND ''x12'''
]);
DROP TABLE s_fixedkeys, s_fixedkeys_d, s_fixedkeys_t;

DROP TABLE s_point, s_multi, s_desc, s_nf, s_incl, s_part, s_expr, s_wide, mj_o, mj_i, s_coll;
DROP COLLATION s_en;
DROP COLLATION s_cutf8;
DROP TABLE mj_merge, mj_merge_desc, mj_merge_left, mj_hash, mj_hash_left;
DROP FUNCTION pbt_cursor_cmp(text);
DROP FUNCTION pbt_cmp_all(text[]);

-- a lookup reads one page per level, and not the metapage: a scan learns
-- the root's location into the index's cached state, which later scans
-- copy (a scan that kept it in its private copy made every later scan read
-- the metapage again).  Without a delta area, whose side page a lookup
-- reads too.  Last in the file: it reconnects, which ends the session's
-- temporary tables.
CREATE TABLE s_blocks (k int8) WITH (autovacuum_enabled = off);
INSERT INTO s_blocks SELECT g FROM generate_series(1, 100000) g;
CREATE INDEX s_blocks_k ON s_blocks USING pagebtree (k) WITH (delta = off);
VACUUM ANALYZE s_blocks;
-- VACUUM's buffer hits are counted now, not when this session exits, which
-- the next one does not wait for
SELECT pg_stat_force_next_flush();
\c
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM s_blocks WHERE k = 5;
SELECT count(*) FROM s_blocks WHERE k = 5;
SELECT pg_stat_force_next_flush();
SELECT idx_blks_hit AS blks_before FROM pg_statio_user_indexes
WHERE indexrelname = 's_blocks_k' \gset
SELECT count(*) FROM s_blocks WHERE k = 7;
SELECT count(*) FROM s_blocks WHERE k = 77777;
SELECT pg_stat_force_next_flush();
SELECT (idx_blks_hit - :blks_before) / 2 AS blocks_per_lookup,
       (SELECT level + 1 FROM pagebtree_metapage('s_blocks_k')) AS levels
FROM pg_statio_user_indexes WHERE indexrelname = 's_blocks_k';
RESET enable_seqscan; RESET enable_bitmapscan;
DROP TABLE s_blocks;
