-- Randomized differential test: pagebtree against btree.
--
-- Two tables receive exactly the same deterministic stream of INSERT,
-- UPDATE, DELETE and VACUUM; one is indexed with pagebtree, the other with
-- btree, with the same index definitions (one pagebtree index has BPA
-- leaves).  After every round, random
-- ordered, range, equality, = ANY, row comparison and NULL queries run on both through
-- their indexes (plain, index-only and bitmap scans, both directions, and
-- parallel plans), and the results must be identical.  pagebtree_check runs on
-- every index after every round, with heapallindexed after the last.
--
-- Usage (VACUUM cannot run inside a function, so the driver loops):
--   SELECT pbt_diff_setup();
--   for each round r: SELECT pbt_diff_round(seed, r, rows_per_round, final);
--                     VACUUM rd_p, rd_b on odd rounds
-- pbt_diff_round returns the number of queries compared and raises an
-- error on the first difference.

-- k5, one of 1,001 values: an md5, and every tenth value the md5 eleven
-- times (352 bytes), so that leaves hold a long key's duplicates, which
-- prefix truncation stores in a few bytes each, beside pending entries of
-- other keys
CREATE OR REPLACE FUNCTION pbt_diff_k5(v int8) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT repeat(md5(v::text), CASE WHEN v % 10 = 0 THEN 11 ELSE 1 END)
$$;

CREATE OR REPLACE FUNCTION pbt_diff_setup() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    am text;
    t text;
BEGIN
    FOREACH am IN ARRAY ARRAY['pagebtree', 'btree'] LOOP
        t := CASE am WHEN 'pagebtree' THEN 'rd_p' ELSE 'rd_b' END;
        EXECUTE format('DROP TABLE IF EXISTS %I', t);
        EXECUTE format('CREATE TABLE %I (id int8 PRIMARY KEY, k1 int8, k2 text COLLATE "C",
                        k3 numeric, k4 int4, k5 text COLLATE "C", k6 timestamptz)', t);
        EXECUTE format('CREATE INDEX %I ON %I USING %s (k1)', t || '_k1', t, am);
        EXECUTE format('CREATE INDEX %I ON %I USING %s (k2)', t || '_k2', t, am);
        EXECUTE format('CREATE INDEX %I ON %I USING %s (k3 DESC)', t || '_k3', t, am);
        EXECUTE format('CREATE INDEX %I ON %I USING %s (k4, k5 DESC NULLS LAST) INCLUDE (k1)', t || '_k45', t, am);
        -- pagebtree: BPA leaves (insert log, unsorted blocks) here
        EXECUTE format('CREATE INDEX %I ON %I USING %s (k6 NULLS FIRST, k4)%s', t || '_k64', t, am,
                       CASE am WHEN 'pagebtree' THEN ' WITH (layout = bpa)' ELSE '' END);
        -- pagebtree: a delta area, normalized (k5 text) and comparator
        -- keys (k3 numeric); queried through pbt_diff_query(..., 'rd_p_k5')
        EXECUTE format('CREATE INDEX %I ON %I USING %s (k5)%s', t || '_k5d', t, am,
                       CASE am WHEN 'pagebtree' THEN ' WITH (delta = on)' ELSE '' END);
        EXECUTE format('CREATE INDEX %I ON %I USING %s (k5 DESC, k3) INCLUDE (k4)%s', t || '_k53d', t, am,
                       CASE am WHEN 'pagebtree' THEN ' WITH (delta = on)' ELSE '' END);
    END LOOP;
END $$;

-- One round of identical DML on both tables.
CREATE OR REPLACE FUNCTION pbt_diff_dml(seed float8, round int, nrows int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    t text;
    base int8 := round::int8 * nrows * 2;
BEGIN
    PERFORM setseed(seed);
    DROP TABLE IF EXISTS rd_new;
    CREATE TEMP TABLE rd_new AS
    SELECT base + g AS id,
           CASE WHEN random() < 0.03 THEN NULL
                WHEN random() < 0.5 THEN (random() * 1e6)::int8
                ELSE base + g END AS k1,
           CASE WHEN random() < 0.03 THEN NULL
                ELSE 'https://example.org/' || (random() * 50)::int || '/item/' || (random() * 1e5)::int END AS k2,
           CASE WHEN random() < 0.03 THEN NULL ELSE round((random() * 1000)::numeric, 2) END AS k3,
           CASE WHEN random() < 0.03 THEN NULL ELSE (random() * 500)::int4 END AS k4,
           CASE WHEN random() < 0.1 THEN NULL ELSE pbt_diff_k5((random() * 1000)::int) END AS k5,
           CASE WHEN random() < 0.05 THEN NULL
                ELSE '2024-01-01'::timestamptz + (random() * 1e7) * interval '1 second' END AS k6
    FROM generate_series(1, nrows) g;
    FOREACH t IN ARRAY ARRAY['rd_p', 'rd_b'] LOOP
        EXECUTE format('INSERT INTO %I SELECT * FROM rd_new', t);
        EXECUTE format('UPDATE %I SET k1 = k1 + 7, k4 = (k4 + %s) %% 500, k2 = k2 || ''/u''
                        WHERE id %% 13 = %s', t, round, round % 13);
        EXECUTE format('DELETE FROM %I WHERE id %% 17 = %s OR k3 < %s', t, round % 17, round % 5);
    END LOOP;
END $$;

-- Run one query on both tables, forcing the given scan kind; compare.  The
-- pagebtree plan must use an index whose name contains idx, if given.
-- Bitmap scans return heap order, which differs between the two tables once
-- pruning differs: they run without the query's ORDER BY and LIMIT.  Their
-- rows, and those of a query without ORDER BY (rows of equal keys come in
-- heap order), are compared as multisets: a sum of the rows' 64-bit hashes,
-- and their count, which costs a fifth of sorting them by whole rows.  (No
-- JIT: a plan with a node the settings disable costs enough to compile its
-- expressions, 0.1-0.3 s per query, which index scans do not go through.)
CREATE OR REPLACE FUNCTION pbt_diff_query(q text, scankind text, idx text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    qp text := replace(q, '$T', 'rd_p');
    qb text := replace(q, '$T', 'rd_b');
    digest text := 'md5(coalesce(string_agg(x::text, '';''), '''')) || count(*)';
    rp text;
    rb text;
    plan text := '';
    line text;
BEGIN
    IF scankind = 'bitmap' THEN
        qp := regexp_replace(qp, ' (ORDER BY .*|LIMIT .*)$', '');
        qb := regexp_replace(qb, ' (ORDER BY .*|LIMIT .*)$', '');
    END IF;
    IF strpos(qp, ' ORDER BY ') = 0 THEN
        digest := 'coalesce(sum(hashtextextended(x::text, 0)), 0) || ''/'' || count(*)';
    END IF;
    PERFORM set_config('enable_seqscan', 'off', true);
    PERFORM set_config('enable_indexscan', (scankind IN ('index', 'indexonly'))::text, true);
    PERFORM set_config('enable_indexonlyscan', (scankind = 'indexonly')::text, true);
    PERFORM set_config('enable_bitmapscan', (scankind = 'bitmap')::text, true);
    PERFORM set_config('enable_sort', 'off', true);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || qp LOOP
        plan := plan || line || E'\n';
    END LOOP;
    IF plan NOT LIKE '%rd_p_%' THEN
        RAISE EXCEPTION 'query did not use a pagebtree index: % PLAN %', qp, plan;
    END IF;
    IF idx IS NOT NULL AND strpos(plan, idx) = 0 THEN
        RAISE EXCEPTION 'query did not use index %: % PLAN %', idx, qp, plan;
    END IF;
    EXECUTE 'SELECT ' || digest || ' FROM (' || qp || ') x' INTO rp;
    EXECUTE 'SELECT ' || digest || ' FROM (' || qb || ') x' INTO rb;
    IF rp IS DISTINCT FROM rb THEN
        RAISE EXCEPTION 'pagebtree and btree differ (%): % -- pagebtree % btree %',
            scankind, qp, rp, rb;
    END IF;
END $$;

-- The same through a parallel plan where the planner picks one (parallel
-- costs zeroed; Gather Merge's comparisons too, so ordered scans go
-- parallel): compared as sorted sets, since a Gather returns rows in any
-- order, while the inner ORDER BY (and LIMIT) still select the rows.
-- Returns 1 if the pagebtree plan was a Parallel Index (Only) Scan.  The
-- SET clauses undo the settings when the function returns.
CREATE OR REPLACE FUNCTION pbt_diff_query_parallel(q text, idx text DEFAULT NULL) RETURNS int
LANGUAGE plpgsql
SET parallel_setup_cost = 0 SET parallel_tuple_cost = 0 SET cpu_operator_cost = 0
SET min_parallel_index_scan_size = 0 SET min_parallel_table_scan_size = 0
SET max_parallel_workers_per_gather = 2
AS $$
DECLARE
    plan text := '';
    line text;
BEGIN
    q := 'SELECT * FROM (' || q || ') s ORDER BY s';
    PERFORM pbt_diff_query(q, 'index', idx);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || replace(q, '$T', 'rd_p') LOOP
        plan := plan || line || E'\n';
    END LOOP;
    RETURN (plan ~ 'Parallel Index (Only )?Scan (Backward )?using rd_p_')::int;
END $$;

CREATE OR REPLACE FUNCTION pbt_diff_round(seed float8, r int, nrows int, final bool)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    nq int := 0;
    npar int := 0;
    ntried int := 0;
    i int;
    a int8;
    b int8;
    s text;
    arr text;
    dir text;
    kind text;
    q text;
    idx text;
    m text;
BEGIN
        PERFORM pbt_diff_dml(seed, r, nrows);
        -- structure every round; every heap tuple indexed at the end
        FOR idx IN SELECT indexrelid::regclass::text FROM pg_index
                   WHERE indrelid = 'rd_p'::regclass AND indexrelid::regclass::text LIKE 'rd_p_k%' LOOP
            PERFORM pagebtree_check(idx::regclass, final);
        END LOOP;
        PERFORM setseed(seed / 2 + r / 1000.0);
        FOR i IN 1 .. 40 LOOP
            a := (random() * 1.1e6)::int8 - 50000;
            b := a + (random() * 20000)::int8;
            dir := CASE WHEN random() < 0.5 THEN 'ASC' ELSE 'DESC' END;
            s := 'https://example.org/' || (random() * 50)::int;
            arr := format('ARRAY[%s, %s, %s, NULL, %s]', a, a + 1, (random() * 1e6)::int, a);
            -- (parallel one time in seven: its queries cost more)
            kind := (ARRAY['index', 'indexonly', 'bitmap', 'index', 'indexonly', 'bitmap',
                           'parallel'])[1 + floor(random() * 7)::int];
            FOREACH q IN ARRAY ARRAY[
                format('SELECT k1 FROM $T WHERE k1 BETWEEN %s AND %s ORDER BY k1 %s', a, b, dir),
                format('SELECT k1 FROM $T WHERE k1 > %s ORDER BY k1 %s LIMIT 50', a, dir),
                format('SELECT k1 FROM $T WHERE k1 = %s::int4', a % 100000),
                format('SELECT k1 FROM $T WHERE k1 = ANY(%s) ORDER BY k1 %s', arr, dir),
                format('SELECT k1 FROM $T WHERE k1 = ANY(ARRAY(SELECT %s + g * 97 FROM generate_series(0, 300) g)) ORDER BY k1 %s', a, dir),
                -- close elements, read in one pass, then far ones
                format('SELECT k1 FROM $T WHERE k1 = ANY(ARRAY(SELECT %s + g * (1 + g / 300 * 997) FROM generate_series(0, 320) g)) ORDER BY k1 %s', a, dir),
                format('SELECT k1 FROM $T WHERE k1 IS NULL', a),
                format('SELECT k1 FROM $T WHERE k1 < %s ORDER BY k1 %s LIMIT 30', a, dir),
                format('SELECT k2 FROM $T WHERE k2 >= %L AND k2 < %L ORDER BY k2 %s', s, s || '/item/5', dir),
                format('SELECT k2 FROM $T WHERE k2 = ANY(ARRAY[%L, %L]) ORDER BY k2', s || '/item/42', s || '/item/7'),
                format('SELECT k2 FROM $T WHERE k2 > %L ORDER BY k2 %s LIMIT 40', s, dir),
                format('SELECT k3 FROM $T WHERE k3 BETWEEN %s AND %s ORDER BY k3 %s', a % 1000, a % 1000 + 3, dir),
                format('SELECT k3 FROM $T WHERE k3 IS NULL', a),
                format('SELECT k3 FROM $T WHERE k3 > %s ORDER BY k3 %s LIMIT 25', a % 1000, dir),
                format('SELECT k4, k5 FROM $T WHERE k4 = %s ORDER BY k4 %s, k5 %s NULLS %s',
                       a % 500, dir, CASE dir WHEN 'ASC' THEN 'DESC' ELSE 'ASC' END,
                       CASE dir WHEN 'ASC' THEN 'LAST' ELSE 'FIRST' END),
                format('SELECT k4, k5 FROM $T WHERE k4 BETWEEN %s AND %s AND k5 > %L ORDER BY k4, k5 DESC NULLS LAST',
                       a % 500, a % 500 + 5, md5(a::text)),
                format('SELECT k4, k5, k1 FROM $T WHERE k4 = ANY(ARRAY[%s, %s]) AND k5 IS NULL ORDER BY k4, k5 DESC NULLS LAST, k1', a % 500, b % 500),
                format('SELECT k4 FROM $T WHERE k4 IS NULL AND k5 IS NOT NULL'),
                -- row comparisons (keyset pagination), on mixed directions
                format('SELECT k4, k5 FROM $T WHERE (k4, k5) > (%s, %L) ORDER BY k4, k5 DESC NULLS LAST LIMIT 40',
                       a % 500, md5(b::text)),
                format('SELECT k6, k4 FROM $T WHERE (k6, k4) < (%L, %s) ORDER BY k6 DESC NULLS LAST, k4 DESC LIMIT 30',
                       '2024-01-01'::timestamptz + (a % 10000000) * interval '1 second', a % 500),
                format('SELECT k4, k5 FROM $T WHERE k4 = ANY(ARRAY(SELECT generate_series(%s, %s + 60))) ORDER BY k4 %s, k5 %s NULLS %s',
                       a % 500, a % 500, dir, CASE dir WHEN 'ASC' THEN 'DESC' ELSE 'ASC' END,
                       CASE dir WHEN 'ASC' THEN 'LAST' ELSE 'FIRST' END),
                -- skip scans: keys on the second column, no "=" on the first
                format('SELECT k4, k5 FROM $T WHERE k5 >= %L AND k5 < %L ORDER BY k4 %s, k5 %s NULLS %s',
                       left(md5(a::text), 1), left(md5(a::text), 1) || '4', dir,
                       CASE dir WHEN 'ASC' THEN 'DESC' ELSE 'ASC' END,
                       CASE dir WHEN 'ASC' THEN 'LAST' ELSE 'FIRST' END),
                format('SELECT k4, k5 FROM $T WHERE k4 > %s AND k5 IS NULL', a % 500),
                format('SELECT k6, k4 FROM $T WHERE k4 = %s ORDER BY k6 %s NULLS %s, k4 %s',
                       a % 500, dir, CASE dir WHEN 'ASC' THEN 'FIRST' ELSE 'LAST' END, dir),
                format('SELECT k6, k4 FROM $T WHERE k4 = ANY(ARRAY[%s, %s, NULL]) ORDER BY k6 %s NULLS %s, k4 %s',
                       a % 500, b % 500, dir, CASE dir WHEN 'ASC' THEN 'FIRST' ELSE 'LAST' END, dir),
                format('SELECT k6, k4 FROM $T WHERE k6 < %L ORDER BY k6 %s NULLS %s, k4 %s',
                       '2024-01-01'::timestamptz + (a % 10000000) * interval '1 second', dir,
                       CASE dir WHEN 'ASC' THEN 'FIRST' ELSE 'LAST' END, dir),
                format('SELECT k6, k4 FROM $T WHERE k6 >= %L::date AND k4 > %s ORDER BY k6, k4',
                       '2024-02-01'::date + (a % 100)::int, a % 500),
                format('SELECT k6 FROM $T WHERE k6 IS NULL AND k4 < %s ORDER BY k6 NULLS FIRST, k4', a % 500)
            ] LOOP
                IF kind = 'parallel' THEN
                    npar := npar + pbt_diff_query_parallel(q);
                    ntried := ntried + 1;
                ELSE
                    PERFORM pbt_diff_query(q, kind);
                END IF;
                nq := nq + 1;
            END LOOP;
            -- the indexes with a delta area (k5 = pbt_diff_k5(0 .. 1000))
            m := pbt_diff_k5(a % 1001);
            FOREACH q IN ARRAY ARRAY[
                format('SELECT k5 FROM $T WHERE k5 >= %L AND k5 < %L ORDER BY k5 %s',
                       left(m, 2), left(m, 2) || '8', dir),
                format('SELECT k5 FROM $T WHERE k5 > %L AND k5 <= %L ORDER BY k5 %s LIMIT 70',
                       m, left(m, 2) || 'f', dir),
                format('SELECT k5 FROM $T WHERE k5 = ANY(ARRAY[%L, %L, NULL]) ORDER BY k5 %s',
                       m, pbt_diff_k5(b % 1001), dir),
                format('SELECT k5 FROM $T WHERE k5 = ANY(ARRAY(SELECT pbt_diff_k5(g) FROM generate_series(%s, %s + 400) g)) ORDER BY k5 %s',
                       a % 1001, a % 1001, dir),
                format('SELECT k5, k3 FROM $T WHERE k5 = ANY(ARRAY[%L, %L]) ORDER BY k5 DESC, k3',
                       m, pbt_diff_k5(b % 1001)),
                format('SELECT k5, k3 FROM $T WHERE k5 <= %L AND k5 > %L ORDER BY k5 %s, k3 %s',
                       m, left(m, 2), CASE dir WHEN 'ASC' THEN 'DESC' ELSE 'ASC' END, dir),
                format('SELECT k5, k3, k4 FROM $T WHERE k5 = %L AND k3 >= %s ORDER BY k5 DESC, k3, k4',
                       m, a % 1000),
                format('SELECT k5, k3 FROM $T WHERE k5 IS NULL AND k3 < %s ORDER BY k5 DESC, k3',
                       a % 50)
            ] LOOP
                IF kind = 'parallel' THEN
                    npar := npar + pbt_diff_query_parallel(q, 'rd_p_k5');
                    ntried := ntried + 1;
                ELSE
                    PERFORM pbt_diff_query(q, kind, 'rd_p_k5');
                END IF;
                nq := nq + 1;
            END LOOP;
        END LOOP;
        -- the parallel kind must have exercised parallel scans
        IF ntried > 0 AND npar = 0 THEN
            RAISE EXCEPTION 'no parallel index scan among % parallel queries', ntried;
        END IF;
        RAISE NOTICE 'round %: % parallel index scans of % queries tried in parallel', r, npar, ntried;
    RETURN nq;
END $$;
