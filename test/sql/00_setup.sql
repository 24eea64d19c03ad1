--
-- 00_setup: helpers shared by the regression tests, which pg_regress runs
-- in one database, in name order, after this file.
--
SET client_min_messages = warning;
--
-- pbt_cmp(query, via): run "query" twice, once forced onto an index access
-- path and once as a sequential scan, and compare the results.
--   via = 'index'     : plain or index-only index scan (no seq/bitmap scans)
--         'indexonly' : like 'index', but the plan must be an Index Only Scan
--         'bitmap'    : bitmap index scan only
-- Returns plan_ok (the forced plan really uses a pagebtree index that way, and
-- only pagebtree indexes), nrows (rows from the seqscan run) and ndiffs (rows
-- that differ).  Queries with ORDER BY are compared row by row in order,
-- others as multisets.
--
CREATE OR REPLACE FUNCTION pbt_cmp(q text, via text DEFAULT 'index',
                                   OUT plan_ok boolean, OUT nrows bigint,
                                   OUT ndiffs bigint)
LANGUAGE plpgsql
SET enable_seqscan = on SET enable_indexscan = on SET enable_indexonlyscan = on
SET enable_bitmapscan = on SET max_parallel_workers_per_gather = 0
AS $$
DECLARE
    ordered boolean := q ~* '\morder\s+by\M';
    wrapped text := format('SELECT coalesce(array_agg(s::text), ''{}'') FROM (%s) s', q);
    ln text;
    m text[];
    used_any boolean := false;
    used_other boolean := false;
    idx_res text[];
    seq_res text[];
BEGIN
    IF via IN ('index', 'indexonly') THEN
        PERFORM set_config('enable_seqscan', 'off', true);
        PERFORM set_config('enable_bitmapscan', 'off', true);
    ELSIF via = 'bitmap' THEN
        PERFORM set_config('enable_seqscan', 'off', true);
        PERFORM set_config('enable_indexscan', 'off', true);
        PERFORM set_config('enable_indexonlyscan', 'off', true);
    ELSE
        RAISE EXCEPTION 'pbt_cmp: unknown access path "%"', via;
    END IF;

    plan_ok := true;
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
        IF ln ~ 'Seq Scan' THEN
            plan_ok := false;
        END IF;
        m := regexp_match(ln, '(Index Only Scan|Index Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (\S+)');
        IF m IS NOT NULL THEN
            IF (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
                WHERE c.oid = to_regclass(m[2])) = 'pagebtree'
               AND (via = 'index' AND m[1] IN ('Index Scan', 'Index Only Scan')
                    OR via = 'indexonly' AND m[1] = 'Index Only Scan'
                    OR via = 'bitmap' AND m[1] = 'Bitmap Index Scan') THEN
                used_any := true;
            ELSE
                used_other := true;
            END IF;
        END IF;
    END LOOP;
    plan_ok := plan_ok AND used_any AND NOT used_other;
    EXECUTE wrapped INTO idx_res;

    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    PERFORM set_config('enable_indexonlyscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    EXECUTE wrapped INTO seq_res;

    nrows := cardinality(seq_res);
    IF ordered THEN
        SELECT count(*) INTO ndiffs
        FROM generate_series(1, greatest(cardinality(idx_res), cardinality(seq_res))) i
        WHERE idx_res[i] IS DISTINCT FROM seq_res[i];
    ELSE
        SELECT (SELECT count(*) FROM (SELECT unnest(idx_res) EXCEPT ALL SELECT unnest(seq_res)) a)
             + (SELECT count(*) FROM (SELECT unnest(seq_res) EXCEPT ALL SELECT unnest(idx_res)) b)
        INTO ndiffs;
    END IF;
END;
$$;

--
-- pbt_verify(queries): run every query through pbt_cmp on an index path,
-- on a bitmap path if it has a WHERE clause, and as an index-only scan if
-- it only reads one column selected "AS c" or is a count(*); report how
-- many ran, the total row count, and the queries whose plan did not use a
-- pagebtree index that way or whose results differed.
CREATE OR REPLACE FUNCTION pbt_verify(qs text[], OUT queries int,
                                      OUT total_rows bigint, OUT failed text[])
LANGUAGE plpgsql AS $$
DECLARE
    q text;
    via text;
    r record;
BEGIN
    queries := 0;
    total_rows := 0;
    failed := '{}';
    FOREACH q IN ARRAY qs LOOP
        queries := queries + 1;
        FOREACH via IN ARRAY ARRAY['index', 'bitmap', 'indexonly'] LOOP
            CONTINUE WHEN via = 'bitmap' AND q NOT LIKE '% WHERE %';
            CONTINUE WHEN via = 'indexonly' AND q !~ '^SELECT (\w+ AS c|count\(\*\)) FROM';
            SELECT * INTO r FROM pbt_cmp(q, via);
            IF via = 'index' THEN
                total_rows := total_rows + r.nrows;
            END IF;
            IF NOT r.plan_ok OR r.ndiffs <> 0 THEN
                failed := failed || format('%s: %s (plan_ok %s, %s of %s rows differ)',
                                           via, q, r.plan_ok, r.ndiffs, r.nrows);
            END IF;
        END LOOP;
    END LOOP;
END;
$$;

--
-- pbt_size_ratio(idx, base): the tree pages of pagebtree index idx (not the
-- delta area's, which an index gets without preloading) against the pages
-- of index base.
CREATE OR REPLACE FUNCTION pbt_size_ratio(idx regclass, base regclass) RETURNS numeric
LANGUAGE sql AS $$
    SELECT round((1 + sum(pages)) * 8192 / pg_relation_size(base), 2)
    FROM pagebtree_layout_summary(idx) WHERE page_type IN ('leaf', 'inner')
$$;

--
-- pbt_cursor(idx, tbl, base, key, qual, steps): a scrollable cursor over
-- SELECT id FROM tbl WHERE qual ORDER BY key, which must be an index scan
-- of idx, moved by steps (n > 0: n rows forward, n < 0: back), each row
-- compared with the order of key and then heap TID in table base, which
-- holds the same rows at the same TIDs (equal keys return in TID order).
CREATE OR REPLACE FUNCTION pbt_cursor(idx text, tbl text, base text, key text,
                                      qual text, steps int[]) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    q text := format('SELECT id FROM %I WHERE %s ORDER BY %s', tbl, qual, key);
    want int[];
    c refcursor;
    got int;
    at int := 0;
    plan text;
BEGIN
    SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
    EXECUTE 'EXPLAIN (COSTS OFF) ' || q INTO plan;
    IF plan !~ ('^Index Scan using ' || idx || ' ') THEN RETURN 'plan: ' || plan; END IF;
    SET LOCAL enable_indexscan = off; SET LOCAL enable_seqscan = on;
    EXECUTE format('SELECT array_agg(id ORDER BY %s, ctid) FROM %I WHERE %s', key, base, qual)
        INTO want;
    RESET enable_indexscan; RESET enable_seqscan;
    OPEN c SCROLL FOR EXECUTE q;
    FOREACH got IN ARRAY steps LOOP
        FOR i IN 1 .. abs(got) LOOP
            IF got > 0 THEN
                FETCH NEXT FROM c INTO got; at := at + 1;
            ELSE
                FETCH PRIOR FROM c INTO got; at := at - 1;
            END IF;
            IF (at BETWEEN 1 AND cardinality(want)) <> FOUND OR
               (FOUND AND got <> want[at]) THEN
                RETURN format('row %s: %s, want %s', at, got, want[at]);
            END IF;
            EXIT WHEN NOT FOUND;
        END LOOP;
    END LOOP;
    CLOSE c;
    RETURN format('ok, %s rows', cardinality(want));
END $$;

--
-- pbt_index_buffers(query): the shared buffers that the index scan nodes of
-- query's plan read or hit, a parallel one's participants together (NULL if
-- the plan has none).
CREATE OR REPLACE FUNCTION pbt_index_buffers(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    ln text;
    m text[];
    first boolean := true;
    in_index boolean;
    total int;
BEGIN
    FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        -- (a node's line, and the lines of its details below it)
        IF first OR ln ~ '^\s*->' THEN
            in_index := ln ~ 'Index (Only )?Scan';
            first := false;
        END IF;
        m := regexp_match(ln, 'Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?');
        IF in_index AND m IS NOT NULL THEN
            total := coalesce(total, 0) + coalesce(m[1]::int, 0) + coalesce(m[2]::int, 0);
        END IF;
    END LOOP;
    RETURN total;
END $$;
