--
-- layout_posting: posting leaves (one key's entries, the key stored once,
-- the heap TIDs in a sorted array; reloption deduplicate_items).  Each
-- index is compared with a sequential scan (pbt_cmp) and a btree index on
-- the same data, and checked with pagebtree_check after every step.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- lp has the indexes that queries use; lpb the same rows (the same TIDs)
-- and the indexes it is compared with, which the planner must not pick
CREATE TABLE lp (id int, v int8, t text COLLATE "C", pad text)
    WITH (autovacuum_enabled = off);
CREATE TABLE lpb (LIKE lp) WITH (autovacuum_enabled = off);
-- 10 values of v, 7 of t (some long), over more than 256 heap blocks, so
-- that TIDs of one key need more stored bytes as the table grows
CREATE FUNCTION lp_insert(lo int, hi int, nv int, nt int, pad text) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO lp SELECT i, (i * 7919) % nv, 'status-' || (i % nt) || repeat('x', (i % nt) * 40), pad
    FROM generate_series(lo, hi) i;
    INSERT INTO lpb SELECT i, (i * 7919) % nv, 'status-' || (i % nt) || repeat('x', (i % nt) * 40), pad
    FROM generate_series(lo, hi) i;
$$;
SELECT lp_insert(1, 60000, 10, 7, repeat('p', 60));
CREATE INDEX lp_v ON lp USING pagebtree (v);
CREATE INDEX lp_t ON lp USING pagebtree (t);
CREATE INDEX lp_v_nodedup ON lpb USING pagebtree (v) WITH (deduplicate_items = off);
CREATE INDEX lp_v_btree ON lpb USING btree (v);
CREATE INDEX lp_t_btree ON lpb USING btree (t);
SELECT pg_relation_size('lp') / 8192 > 256 AS over_256_blocks;

CREATE FUNCTION lp_leaves(idx regclass) RETURNS TABLE (layout text, pages bigint)
LANGUAGE sql AS $$
    SELECT layout, pages FROM pagebtree_layout_summary(idx)
    WHERE page_type = 'leaf' ORDER BY 1
$$;
CREATE FUNCTION lp_check() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pagebtree_check('lp_v', true);
    PERFORM pagebtree_check('lp_t', true);
    PERFORM pagebtree_check('lp_v_nodedup', true);
    RETURN true;
END $$;

-- the build: nearly all leaves are posting leaves (a key's last entries
-- share a lists leaf with the next key's first), and the index is smaller
-- than btree's (which deduplicates too) and than without them
SELECT * FROM lp_leaves('lp_v');
SELECT * FROM lp_leaves('lp_v_nodedup');
SELECT pbt_size_ratio('lp_v', 'lp_v_btree') AS v,
       pbt_size_ratio('lp_t', 'lp_t_btree') AS t,
       pbt_size_ratio('lp_v_nodedup', 'lp_v_btree') AS v_nodedup;
SELECT lp_check();

CREATE FUNCTION lp_queries() RETURNS TABLE (q text, plan_ok boolean, nrows bigint, ndiffs bigint)
LANGUAGE plpgsql AS $$
DECLARE
    qs text[] := ARRAY[
        'SELECT id FROM lp WHERE v = 3',
        'SELECT v, id FROM lp WHERE v BETWEEN 2 AND 4 ORDER BY v, id',
        'SELECT v FROM lp WHERE v >= 8 ORDER BY v DESC',
        'SELECT v FROM lp WHERE v = ANY (''{0, 5, 11}'') ORDER BY v DESC',
        'SELECT t FROM lp WHERE t > ''status-3'' ORDER BY t DESC',
        'SELECT id FROM lp WHERE t = ''status-1'' || repeat(''x'', 40)'];
    via text;
BEGIN
    FOREACH q IN ARRAY qs LOOP
        FOREACH via IN ARRAY ARRAY['index', 'bitmap'] LOOP
            IF via = 'bitmap' AND q ~ 'ORDER BY' THEN CONTINUE; END IF;
            SELECT c.plan_ok, c.nrows, c.ndiffs INTO plan_ok, nrows, ndiffs
              FROM pbt_cmp(q, via) c;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END $$;
SELECT * FROM lp_queries();

-- a scrollable cursor over one key's entries, which equal keys return in
-- heap TID order: forward past a first batch that decoded only part of a
-- posting leaf, back, on across leaves, back to the start; each row is
-- compared with that order from a sequential scan of lpb (the same TIDs)
SELECT pbt_cursor('lp_v', 'lp', 'lpb', 'v', 'v = 5', '{40, -15, 300, -320, 7000, -7000}');
SELECT pbt_cursor('lp_v', 'lp', 'lpb', 'v', 'v BETWEEN 4 AND 5', '{50, -20, 12000, -30, 100}');

-- kill_prior_tuple marks single entries of a posting leaf dead; VACUUM
-- removes single entries
DELETE FROM lp WHERE id % 3 = 0;
DELETE FROM lpb WHERE id % 3 = 0;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM lp WHERE v = 3;
SELECT count(*) FROM lp WHERE v = 3;
RESET enable_seqscan; RESET enable_bitmapscan;
-- scans skip the entries marked dead (read in bulk on posting leaves)
SELECT * FROM lp_queries();
SELECT pbt_cursor('lp_v', 'lp', 'lpb', 'v', 'v = 5', '{40, -15, 300, -320, 7000, -7000}');
VACUUM lp, lpb;
SELECT lp_check();
SELECT * FROM lp_queries();

-- inserts in random key order, with new heap blocks: the key's entries fill
-- posting leaves at the end of its range (the split moves to the key
-- boundary); a new key converts a posting leaf to heads or splits it
SELECT lp_insert(60001, 120000, 12, 9, 'new');
SELECT lp_check();
SELECT * FROM lp_queries();
SELECT pbt_size_ratio('lp_v', 'lp_v_btree') <= 0.8 AS small_v_after_inserts;

-- a merge join over an index-only scan of posting leaves: its outer side
-- repeats keys, so the inner scan restores its mark, also onto another
-- leaf of one key (whose entries share their bytes); the count equals a
-- hash join's
CREATE TABLE lpo AS SELECT (i % 12)::int8 AS v FROM generate_series(1, 30) i;
CREATE INDEX lpo_v ON lpo (v);
VACUUM ANALYZE lp, lpo;
SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_seqscan = off;
SET enable_bitmapscan = off; SET enable_sort = off; SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM lpo JOIN lp USING (v);
SELECT count(*) FROM lpo JOIN lp USING (v);
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT v FROM lp WHERE v = 5 ORDER BY v;
FETCH FORWARD 3 FROM c;
MOVE FORWARD 4000 IN c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE -1 FROM c;
COMMIT;
RESET enable_hashjoin; RESET enable_nestloop; RESET enable_seqscan;
RESET enable_bitmapscan; RESET enable_sort; RESET enable_material;
SELECT count(*) FROM lpo JOIN lp USING (v);
SELECT count(*) FROM lp WHERE v = 5;
DROP TABLE lpo;

-- off: no posting leaves, for new pages (ALTER INDEX SET) and rebuilds
ALTER INDEX lp_v SET (deduplicate_items = off);
REINDEX INDEX lp_v;
SELECT * FROM lp_leaves('lp_v');
SELECT pagebtree_check('lp_v', true);
DROP TABLE lp, lpb;
DROP FUNCTION lp_leaves(regclass), lp_check(), lp_queries(),
    lp_insert(int, int, int, int, text);
