--
-- parallel: Parallel Index Scan and Parallel Index Only Scan on pagebtree
-- indexes (the participants share the leaves, one whole leaf at a time).
--
-- par_cmp(query) runs a query with parallel plans made free and checks that
-- the plan is a Parallel Index [Only] Scan of a pagebtree index, then runs
-- it again as a serial sequential scan and compares the results (in order
-- for ORDER BY, else as multisets).  Every plan_ok must be t and every
-- ndiffs 0.  Plans are shown with COSTS OFF only: how many workers start
-- depends on the machine, the results must not.
--
SET client_min_messages = warning;

CREATE FUNCTION par_cmp(q text, OUT plan_ok boolean, OUT nrows bigint,
                        OUT ndiffs bigint)
LANGUAGE plpgsql AS $$
DECLARE
    ordered boolean := q ~* '\morder\s+by\M';
    wrapped text := format('SELECT coalesce(array_agg(s::text), ''{}'') FROM (%s) s', q);
    plan text := '';
    ln text;
    par_res text[];
    seq_res text[];
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    PERFORM set_config('max_parallel_workers_per_gather', '2', true);
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
        plan := plan || ln || E'\n';
    END LOOP;
    plan_ok := plan ~ 'Parallel Index (Only )?Scan (Backward )?using par'
               AND plan ~ 'Gather' AND plan !~ 'Seq Scan';
    EXECUTE wrapped INTO par_res;

    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    PERFORM set_config('enable_indexonlyscan', 'off', true);
    PERFORM set_config('max_parallel_workers_per_gather', '0', true);
    EXECUTE wrapped INTO seq_res;
    PERFORM set_config('enable_indexscan', 'on', true);
    PERFORM set_config('enable_indexonlyscan', 'on', true);

    nrows := cardinality(seq_res);
    IF ordered THEN
        SELECT count(*) INTO ndiffs
        FROM unnest(par_res) WITH ORDINALITY a(v, n)
        FULL JOIN unnest(seq_res) WITH ORDINALITY b(v, n) USING (n)
        WHERE a.v IS DISTINCT FROM b.v;
    ELSE
        SELECT (SELECT count(*) FROM (SELECT unnest(par_res) EXCEPT ALL SELECT unnest(seq_res)) a)
             + (SELECT count(*) FROM (SELECT unnest(seq_res) EXCEPT ALL SELECT unnest(par_res)) b)
        INTO ndiffs;
    END IF;
END;
$$;

-- every query of a list through par_cmp
CREATE FUNCTION par_cmp_all(qs text[])
RETURNS TABLE (query text, plan_ok boolean, nrows bigint, ndiffs bigint)
LANGUAGE sql AS $$
    SELECT q.q, c.plan_ok, c.nrows, c.ndiffs
    FROM unnest(qs) WITH ORDINALITY AS q(q, n)
    CROSS JOIN LATERAL par_cmp(q.q) AS c
    ORDER BY q.n
$$;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- Gather Merge compares rows at cpu_operator_cost each, which a serial
-- ordered scan of these sizes beats: make comparisons free (btree's plans
-- are the same under these settings).
SET cpu_operator_cost = 0;

--
-- 200,000 rows in a shuffled order: k int8, unique (normalized keys); t
-- text in the C collation, four rows per value (normalized); f float8
-- (comparator mode); g int8, 400 rows per value (for = ANY, which the
-- planner makes parallel only when each element finds many rows).
-- Several hundred leaves each.
--
CREATE TABLE par (i int, k int8, t text COLLATE "C", f float8, g int8);
INSERT INTO par
SELECT i, i * 3, 'v' || lpad((i % 50000)::text, 6, '0'), (i % 70001) / 7.0,
       i % 500
FROM generate_series(1, 200000) i ORDER BY md5(i::text);
CREATE INDEX par_k ON par USING pagebtree (k);
CREATE INDEX par_g ON par USING pagebtree (g);
CREATE INDEX par_t ON par USING pagebtree (t);
CREATE INDEX par_f ON par USING pagebtree (f);
VACUUM ANALYZE par;
SELECT c.relname, c.relpages > 200 AS several_hundred_pages
FROM pg_class c WHERE c.relname IN ('par_k', 'par_t', 'par_f') ORDER BY 1;

-- the plans
EXPLAIN (COSTS OFF)
SELECT count(*), sum(k) FROM par WHERE k BETWEEN 3000 AND 540000;
EXPLAIN (COSTS OFF)
SELECT sum(i) FROM par WHERE k > 1000;
EXPLAIN (COSTS OFF)
SELECT k FROM par WHERE k < 500000 ORDER BY k DESC LIMIT 1000;
EXPLAIN (COSTS OFF)
SELECT t FROM par WHERE t >= 'v01' ORDER BY t LIMIT 5000;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM par WHERE g = ANY ('{1,5,77,300,499,1000}');
EXPLAIN (COSTS OFF)
SELECT g FROM par WHERE g = ANY ('{1,5,77,300,499,1000}') ORDER BY g DESC;

-- the results
SELECT count(*), sum(k) FROM par WHERE k BETWEEN 3000 AND 540000;
SELECT count(*), sum(i) FROM par WHERE t BETWEEN 'v010000' AND 'v04';
SELECT count(*), sum(i) FROM par WHERE f > 100 AND f <= 9000;
SELECT count(*), sum(g) FROM par WHERE g = ANY ('{1,5,77,300,499,1000}');
SELECT k FROM par WHERE k < 500000 ORDER BY k DESC LIMIT 3;

SELECT * FROM par_cmp_all(ARRAY[
  'SELECT count(*), sum(k) FROM par WHERE k BETWEEN 3000 AND 540000',
  'SELECT k FROM par WHERE k BETWEEN 3000 AND 540000',
  'SELECT i, k, t FROM par WHERE k > 1000',
  'SELECT k FROM par ORDER BY k',
  'SELECT k FROM par ORDER BY k DESC',
  'SELECT k FROM par WHERE k < 500000 ORDER BY k DESC LIMIT 1000',
  'SELECT i, k FROM par WHERE k > 100000 ORDER BY k LIMIT 20000',
  'SELECT i, k FROM par WHERE k >= 2 ORDER BY k DESC LIMIT 70000',
  'SELECT count(*) FROM par WHERE g = ANY (''{1,5,77,300,499,1000}'')',
  'SELECT g FROM par WHERE g = ANY (''{0,9,250,251,498,499}'') ORDER BY g DESC',
  'SELECT g FROM par WHERE g = ANY (''{0,9,250,251,498,499}'') ORDER BY g',
  'SELECT count(*), sum(g) FROM par WHERE g = ANY (''{-1,3,4,5,6,7,8,200,400}'') AND g > 4',
  'SELECT t FROM par WHERE t BETWEEN ''v010000'' AND ''v04''',
  'SELECT t FROM par WHERE t > ''v02'' ORDER BY t DESC LIMIT 30000',
  'SELECT t FROM par WHERE t >= ''v01'' ORDER BY t LIMIT 5000',
  'SELECT count(*), sum(i) FROM par WHERE f > 100 AND f <= 9000',
  'SELECT i, f FROM par WHERE f < 5000',
  'SELECT f FROM par WHERE f > 10 ORDER BY f DESC LIMIT 40000',
  'SELECT f FROM par ORDER BY f'
]);

--
-- Other layouts, and a delta area whose runs a parallel read merges into
-- each leaf: BPA leaves with pending entries, plain leaves, and leaf groups.
--
CREATE TABLE par_bpa (i int, k int8);
INSERT INTO par_bpa SELECT i, (i * 7919) % 150001 FROM generate_series(1, 150000) i;
CREATE INDEX par_bpa_k ON par_bpa USING pagebtree (k) WITH (layout = bpa, delta = on);
SET pagebtree.delta_append_always = on;
INSERT INTO par_bpa SELECT i, (i * 7919) % 150001 + 1 FROM generate_series(150001, 165000) i;
RESET pagebtree.delta_append_always;
CREATE TABLE par_plain (i int, k int8);
INSERT INTO par_plain SELECT i, i % 60000 FROM generate_series(1, 180000) i;
CREATE INDEX par_plain_k ON par_plain USING pagebtree (k) WITH (layout = plain);
-- leaf groups, rebalanced and split by inserts after the build (the
-- participants share the subnodes; concurrent rebalances:
-- test/t/038_parallel_group_scan.pl)
CREATE TABLE par_grp (i int, k int8);
INSERT INTO par_grp SELECT i, (i * 7919) % 150001 FROM generate_series(1, 90000) i;
CREATE INDEX par_grp_k ON par_grp USING pagebtree (k) WITH (leaf_group_size = 8);
INSERT INTO par_grp SELECT i, (i * 7919) % 150001 FROM generate_series(90001, 150000) i;
VACUUM ANALYZE par_bpa, par_plain, par_grp;

SELECT * FROM par_cmp_all(ARRAY[
  'SELECT count(*), sum(k) FROM par_bpa WHERE k BETWEEN 100 AND 140000',
  'SELECT i, k FROM par_bpa WHERE k > 20000',
  'SELECT k FROM par_bpa ORDER BY k DESC',
  'SELECT k FROM par_bpa WHERE k < 100000 ORDER BY k LIMIT 50000',
  'SELECT count(*), sum(k) FROM par_plain WHERE k BETWEEN 100 AND 50000',
  'SELECT i, k FROM par_plain WHERE k <= 59000',
  'SELECT k FROM par_plain WHERE k > 10 ORDER BY k DESC LIMIT 100000',
  'SELECT count(*), sum(k) FROM par_grp WHERE k BETWEEN 100 AND 140000',
  'SELECT i, k FROM par_grp WHERE k > 20000',
  'SELECT k FROM par_grp ORDER BY k DESC',
  'SELECT k FROM par_grp WHERE k < 100000 ORDER BY k LIMIT 50000'
]);

--
-- Skip scans: keys on the second column, none on the first.  Where skipping
-- pays (a's 5 and h's 6 values, tens of thousands of entries each), one
-- participant does the whole skip scan as a serial scan, reading the
-- range's pages of each value (and a few more, each participant's trial of
-- the first values); where it does not (k, unique), the participants share
-- the leaves and read every entry.  j and m copy i, so that each query has
-- one index to use.
--
CREATE TABLE par_sk (i int, j int, m int, a int8, h float8, k int8);
INSERT INTO par_sk SELECT i, i, i, i % 5, (i % 6) / 7.0, k FROM par;
CREATE INDEX par_sk_ai ON par_sk USING pagebtree (a, i);
CREATE INDEX par_sk_hj ON par_sk USING pagebtree (h, j);
CREATE INDEX par_sk_km ON par_sk USING pagebtree (k, m);
VACUUM ANALYZE par_sk;

SELECT * FROM par_cmp_all(ARRAY[
  'SELECT a, i FROM par_sk WHERE i BETWEEN 1000 AND 30000',
  'SELECT count(*), sum(i) FROM par_sk WHERE i BETWEEN 1000 AND 30000',
  'SELECT a, i FROM par_sk WHERE i < 20000 ORDER BY a DESC, i DESC',
  'SELECT a, i FROM par_sk WHERE a > 2 AND i >= 150000 ORDER BY a, i',
  'SELECT h, j FROM par_sk WHERE j BETWEEN 1000 AND 30000',
  'SELECT count(*), sum(j) FROM par_sk WHERE j BETWEEN 1000 AND 30000',
  'SELECT h, j FROM par_sk WHERE j >= 170000 ORDER BY h, j',
  'SELECT k, m FROM par_sk WHERE m < 40000',
  'SELECT count(*), sum(m) FROM par_sk WHERE m BETWEEN 1000 AND 30000',
  'SELECT k, m FROM par_sk WHERE m > 190000 ORDER BY k DESC, m DESC'
]);
SELECT pbt_index_buffers('SELECT count(*), sum(i) FROM par_sk WHERE i BETWEEN 1000 AND 30000') <
       0.75 * pg_relation_size('par_sk_ai') / 8192 AS normalized_skips,
       pbt_index_buffers('SELECT count(*), sum(j) FROM par_sk WHERE j BETWEEN 1000 AND 30000') <
       0.75 * pg_relation_size('par_sk_hj') / 8192 AS comparator_skips,
       pbt_index_buffers('SELECT count(*), sum(m) FROM par_sk WHERE m BETWEEN 1000 AND 30000') >
       0.9 * pg_relation_size('par_sk_km') / 8192 AS unique_first_column_reads_all;

-- a rescanned parallel scan: the Gather on the inner side of a nested loop
-- runs once per outer row, and the shared state is reset each time
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
CREATE TABLE par_outer (lo int8);
INSERT INTO par_outer VALUES (0), (1), (2);
ANALYZE par_outer;
-- (the plan's shape only: servers differ in how they show the outer side)
CREATE FUNCTION par_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan text := '';
    ln text;
BEGIN
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        plan := plan || ln || E'\n';
    END LOOP;
    RETURN plan;
END;
$$;
SELECT par_plan($$
SELECT o.lo, count(*) FROM par_outer o JOIN par p ON (p.k + o.lo) % 2 = 0
WHERE p.k BETWEEN 3000 AND 90000 GROUP BY o.lo ORDER BY o.lo$$)
  ~ 'Nested Loop.*->  Gather\s+Workers Planned: \d\s+->  Parallel Index Only Scan using par_k'
  AS gather_rescanned_in_nested_loop;
SELECT o.lo, count(*) FROM par_outer o JOIN par p ON (p.k + o.lo) % 2 = 0
WHERE p.k BETWEEN 3000 AND 90000 GROUP BY o.lo ORDER BY o.lo;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET cpu_operator_cost;

DROP TABLE par, par_bpa, par_plain, par_grp, par_sk, par_outer;
DROP FUNCTION par_cmp_all(text[]);
DROP FUNCTION par_cmp(text);
DROP FUNCTION par_plan(text);
