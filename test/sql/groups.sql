--
-- groups: leaf groups (HLN-tree huge leaves, issue #23; reloption
-- leaf_group_size).  A group is N leaf blocks under one downlink, contiguous
-- but for the delta area's side pages (every (G+1)-th block, G = the
-- metapage's delta_group, when the index has one);
-- inserts split its last subnode into the hole after it, rebalance the whole
-- group, or split the group in two.  The shape of each index is read from
-- pagebtree_page_stats and shown as properties (booleans), not block
-- numbers; after every step pagebtree_check verifies the index against the
-- heap and g_verify compares index scans (forward, backward, index-only,
-- bitmap, = ANY) with sequential scans (pbt_verify, 00_setup.sql): every
-- "failed" must be {}.  Without preloading, delta = auto gives group indexes
-- a delta area, whose appends absorb inserts: the indexes whose figures
-- count rebalances, entries on leaves or subnode reads set delta = off in
-- both WAL modes; section 9 tests groups with a delta area.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- g_shape(idx): metapage version and size; groups (subnodes at position 0),
-- subnodes in use, holes, empty subnodes in use, leaves outside groups,
-- deleted pages, the group size, the highest and number of distinct
-- epochs, the sum of the subnodes' epochs (which every rebalance and
-- group split raises), and the items on leaves
CREATE FUNCTION g_shape(idx regclass, OUT version int, OUT nblocks bigint,
                        OUT groups bigint, OUT subnodes bigint, OUT holes bigint,
                        OUT empty_subnodes bigint, OUT plain_leaves bigint,
                        OUT deleted bigint, OUT group_size int,
                        OUT max_epoch bigint, OUT epochs bigint,
                        OUT epoch_sum numeric, OUT live_items bigint)
LANGUAGE sql AS $$
    SELECT m.version, m.nblocks,
           count(*) FILTER (WHERE s.flags ~ '\mgroup=0/'),
           count(*) FILTER (WHERE s.flags ~ '\mgroup=' AND s.flags !~ '\mhole\M'),
           count(*) FILTER (WHERE s.flags ~ '\mhole\M'),
           count(*) FILTER (WHERE s.flags ~ '\mgroup=' AND s.flags !~ '\mhole\M'
                              AND s.live_items = 0),
           count(*) FILTER (WHERE s.page_type = 'leaf' AND s.flags !~ '\mgroup='),
           count(*) FILTER (WHERE s.page_type = 'deleted'),
           max(substring(s.flags from 'group=\d+/(\d+)')::int),
           max(substring(s.flags from 'epoch=(\d+)')::bigint),
           count(DISTINCT substring(s.flags from 'epoch=(\d+)')),
           coalesce(sum(substring(s.flags from 'epoch=(\d+)')::numeric)
                    FILTER (WHERE s.flags !~ '\mhole\M'), 0),
           coalesce(sum(s.live_items) FILTER (WHERE s.page_type = 'leaf'), 0)
    FROM pagebtree_metapage(idx) m, generate_series(1, m.nblocks - 1) b,
         LATERAL pagebtree_page_stats(idx, b) s
    GROUP BY m.version, m.nblocks
$$;

-- g_ok(idx, n): the index is a well-formed index with groups of n: version
-- 6 (8 with INCLUDE columns), only subnodes and holes at the leaf level,
-- each group whole (n blocks other than side pages, positions 0 .. n-1 in
-- order, holes only after the subnodes in use); ord numbers the blocks that
-- are not side pages
CREATE FUNCTION g_ok(idx regclass, n int) RETURNS boolean
LANGUAGE sql AS $$
    WITH p AS (
        SELECT row_number() OVER (ORDER BY b) AS ord, s.page_type, s.flags,
               substring(s.flags from 'group=(\d+)/')::int AS pos,
               substring(s.flags from 'group=\d+/(\d+)')::int AS size,
               s.flags ~ '\mhole\M' AS hole
        FROM pagebtree_metapage(idx) m, generate_series(1, m.nblocks - 1) b,
             LATERAL pagebtree_page_stats(idx, b) s
        WHERE m.delta_group = 0 OR (b - 1) % (m.delta_group + 1) <> 0
    ), starts AS (
        SELECT ord FROM p WHERE pos = 0
    )
    SELECT (SELECT version FROM pagebtree_metapage(idx)) =
           CASE WHEN (SELECT indnkeyatts < indnatts FROM pg_index
                      WHERE indexrelid = idx) THEN 8 ELSE 6 END
       AND NOT EXISTS (SELECT FROM p WHERE page_type = 'leaf' AND pos IS NULL)
       AND NOT EXISTS (SELECT FROM p WHERE pos IS NOT NULL AND size <> n)
       AND (SELECT count(*) FROM p WHERE pos IS NOT NULL) = n * (SELECT count(*) FROM starts)
       AND NOT EXISTS (SELECT FROM starts s CROSS JOIN generate_series(0, n - 1) i
                       LEFT JOIN p ON p.ord = s.ord + i
                       WHERE p.pos IS DISTINCT FROM i)
       AND NOT EXISTS (SELECT FROM p a JOIN p c ON c.ord = a.ord + 1
                       WHERE a.hole AND NOT c.hole AND c.pos > 0)
$$;

-- g_order(q): a query with ORDER BY through a plain or index-only scan
-- that yields the order (no Sort, no other scan), compared in order with a
-- sequential scan, in linear time (pbt_cmp's element-wise comparison of
-- arrays is quadratic): plan_ok, nrows (seqscan), same (same rows, same
-- order)
CREATE FUNCTION g_order(q text, OUT plan_ok boolean, OUT nrows bigint,
                        OUT same boolean)
LANGUAGE plpgsql
SET enable_seqscan = on SET enable_indexscan = on SET enable_indexonlyscan = on
SET enable_bitmapscan = off SET max_parallel_workers_per_gather = 0
AS $$
DECLARE
    wrapped text := format('SELECT count(*), md5(coalesce(string_agg(s::text, '' ''), '''')) FROM (%s) s', q);
    plan text := '';
    ln text;
    n_idx bigint;
    h_idx text;
    h_seq text;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
        plan := plan || ln || E'\n';
    END LOOP;
    plan_ok := plan ~ 'Index (Only )?Scan' AND plan !~ '(Seq Scan|Sort|Bitmap)';
    EXECUTE wrapped INTO n_idx, h_idx;
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    PERFORM set_config('enable_indexonlyscan', 'off', true);
    EXECUTE wrapped INTO nrows, h_seq;
    same := n_idx = nrows AND h_idx = h_seq;
END;
$$;

-- queries per table, run by g_verify
CREATE TABLE g_q (tbl text, q text);
-- g_verify(idx): pagebtree_check with heapallindexed, then the queries of
-- the index's table: those with ORDER BY through g_order, the others
-- through pbt_verify (index, bitmap and index-only scans)
CREATE FUNCTION g_verify(idx regclass, OUT queries int, OUT total_rows bigint,
                         OUT failed text[])
LANGUAGE plpgsql AS $$
DECLARE
    t text := (SELECT indrelid::regclass::text FROM pg_index WHERE indexrelid = idx);
    q text;
    r record;
BEGIN
    PERFORM pagebtree_check(idx, true);
    SELECT v.* INTO queries, total_rows, failed
    FROM pbt_verify(ARRAY(SELECT g.q FROM g_q g
                          WHERE g.tbl = t AND g.q !~* 'order by'
                          ORDER BY g.q)) v;
    FOR q IN SELECT g.q FROM g_q g WHERE g.tbl = t AND g.q ~* 'order by'
             ORDER BY g.q LOOP
        r := g_order(q);
        queries := queries + 1;
        total_rows := total_rows + r.nrows;
        IF NOT r.plan_ok OR NOT r.same THEN
            failed := failed || format('order: %s (plan_ok %s, same %s)', q, r.plan_ok, r.same);
        END IF;
    END LOOP;
END;
$$;

-- 1. built on existing data, then inserts that split and rebalance groups
--
-- (a) scrambled int8 keys with INCLUDE columns, groups of 4 (two int8
-- payload values: shorter payloads leave the groups too empty for the
-- rebalances below)
CREATE TABLE g_rand (k int8, pad int8, pad2 int8 DEFAULT 0)
    WITH (autovacuum_enabled = off);
INSERT INTO g_rand SELECT (i * 7919) % 100003, i FROM generate_series(1, 15000) i;
CREATE INDEX g_rand_k ON g_rand USING pagebtree (k) INCLUDE (pad, pad2)
    WITH (leaf_group_size = 4, delta = off);
INSERT INTO g_q VALUES
    ('g_rand', 'SELECT k AS c FROM g_rand WHERE k BETWEEN 20000 AND 35000'),
    ('g_rand', 'SELECT k, pad FROM g_rand WHERE k > 30000 ORDER BY k'),
    ('g_rand', 'SELECT k, pad FROM g_rand WHERE k < 70000 ORDER BY k DESC'),
    ('g_rand', 'SELECT k, pad FROM g_rand ORDER BY k DESC LIMIT 3000'),
    ('g_rand', 'SELECT count(*) FROM g_rand WHERE k >= 0'),
    ('g_rand', 'SELECT k, pad FROM g_rand WHERE k = ANY (ARRAY(SELECT (i * 7919) % 100003 FROM generate_series(1, 40000, 137) i))');
SELECT version, groups > 10 AS many_groups, holes < 4 AS few_holes,
       plain_leaves = 0 AS only_subnodes, group_size, max_epoch, epochs
FROM g_shape('g_rand_k');
SELECT g_ok('g_rand_k', 4);
SELECT * FROM g_verify('g_rand_k');
EXPLAIN (COSTS OFF) SELECT k, pad FROM g_rand WHERE k < 70000 ORDER BY k DESC;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM g_rand WHERE k >= 0;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT pad FROM g_rand WHERE k BETWEEN 20000 AND 60000;
RESET enable_seqscan; RESET enable_indexscan;
CREATE TABLE g_before AS SELECT 'g_rand_k'::regclass AS idx, * FROM g_shape('g_rand_k');
-- the leaves are full: inserts all over the key range split groups
INSERT INTO g_rand SELECT (i * 7919) % 100003, i FROM generate_series(15001, 21000) i;
SELECT a.groups > b.groups AS groups_split, a.nblocks > b.nblocks AS grew,
       a.max_epoch > 1 AS new_epochs,
       a.plain_leaves = 0 AS only_subnodes, a.version
FROM g_shape('g_rand_k') a, g_before b WHERE b.idx = 'g_rand_k'::regclass;
SELECT g_ok('g_rand_k', 4);
SELECT * FROM g_verify('g_rand_k');
-- new groups are half full: more inserts rebalance or split them again
UPDATE g_before b SET groups = a.groups, epoch_sum = a.epoch_sum, nblocks = a.nblocks
FROM g_shape('g_rand_k') a WHERE b.idx = 'g_rand_k'::regclass;
INSERT INTO g_rand SELECT (i * 7919) % 100003, i FROM generate_series(21001, 30000) i;
SELECT a.epoch_sum > b.epoch_sum AS new_epochs, a.groups >= b.groups AS groups_stay
FROM g_shape('g_rand_k') a, g_before b WHERE b.idx = 'g_rand_k'::regclass;
SELECT g_ok('g_rand_k', 4);
SELECT * FROM g_verify('g_rand_k');

-- (b) a rebalance without a group split: groups built half full, inserts
-- into one key range (between the existing keys) fill a subnode, and its
-- group spreads the entries over its four subnodes: the same groups, a new
-- epoch for exactly the subnodes of the groups rebalanced
CREATE TABLE g_half (k int8, v text) WITH (autovacuum_enabled = off);
INSERT INTO g_half SELECT (i * 7919) % 1000003, 'v' || i FROM generate_series(1, 12000) i;
CREATE INDEX g_half_k ON g_half USING pagebtree (k)
    WITH (leaf_group_size = 4, fillfactor = 50);
INSERT INTO g_q VALUES
    ('g_half', 'SELECT k AS c FROM g_half WHERE k BETWEEN 400000 AND 600000'),
    ('g_half', 'SELECT k, v FROM g_half WHERE k BETWEEN 450000 AND 550000'),
    ('g_half', 'SELECT k FROM g_half WHERE k >= 450000 ORDER BY k'),
    ('g_half', 'SELECT k FROM g_half WHERE k <= 550000 ORDER BY k DESC'),
    ('g_half', 'SELECT k FROM g_half ORDER BY k DESC'),
    ('g_half', 'SELECT k, v FROM g_half WHERE k = ANY (''{7919, 500001, 500003, 500150, 500151, 999990, 120000, 7}'')');
INSERT INTO g_before SELECT 'g_half_k', * FROM g_shape('g_half_k');
-- (a subnode holds some 320 entries at half fill, over some 26000 keys)
INSERT INTO g_half SELECT 500000 + i, 'r' || i FROM generate_series(1, 500) i;
WITH p AS (SELECT substring(s.flags from 'epoch=(\d+)')::int AS epoch
           FROM generate_series(1, (SELECT nblocks - 1 FROM pagebtree_metapage('g_half_k'))) b,
                LATERAL pagebtree_page_stats('g_half_k', b) s)
SELECT a.groups = b.groups AS same_groups, a.nblocks = b.nblocks AS same_size,
       a.max_epoch > 1 AS rebalanced,
       (SELECT count(*) FROM p WHERE epoch > 1) % 4 = 0 AS whole_groups_rebalanced,
       (SELECT count(*) FROM p WHERE epoch > 1) BETWEEN 4 AND 8 AS one_or_two_groups
FROM g_shape('g_half_k') a, g_before b WHERE b.idx = 'g_half_k'::regclass;
SELECT g_ok('g_half_k', 4);
SELECT * FROM g_verify('g_half_k');
-- more into the same range: its groups fill and split
INSERT INTO g_half SELECT 500000 + (i * 7) % 1000, 's' || i FROM generate_series(1, 2500) i;
SELECT a.groups > b.groups AS groups_split, a.max_epoch > 2 AS new_epochs
FROM g_shape('g_half_k') a, g_before b WHERE b.idx = 'g_half_k'::regclass;
SELECT g_ok('g_half_k', 4);
SELECT * FROM g_verify('g_half_k');

-- (c) serial keys, groups of 16: appends at the right end split the last
-- subnode into the holes of the last group (no new epoch), then start new
-- groups
CREATE TABLE g_ser (id int8, t text) WITH (autovacuum_enabled = off);
INSERT INTO g_ser SELECT i, 'row ' || i FROM generate_series(1, 20000) i;
CREATE INDEX g_ser_id ON g_ser USING pagebtree (id) WITH (leaf_group_size = 16);
INSERT INTO g_q VALUES
    ('g_ser', 'SELECT id AS c FROM g_ser WHERE id BETWEEN 12000 AND 16000'),
    ('g_ser', 'SELECT id, t FROM g_ser WHERE id > 19000 ORDER BY id'),
    ('g_ser', 'SELECT id, t FROM g_ser WHERE id < 30000 ORDER BY id DESC'),
    ('g_ser', 'SELECT count(*) FROM g_ser WHERE id > 100'),
    ('g_ser', 'SELECT id, t FROM g_ser WHERE id = ANY (ARRAY(SELECT i * 97 FROM generate_series(1, 300) i))');
INSERT INTO g_before SELECT 'g_ser_id', * FROM g_shape('g_ser_id');
SELECT g_ok('g_ser_id', 16), group_size, groups >= 2 AS several_groups
FROM g_shape('g_ser_id');
SELECT holes > 0 AS has_holes FROM g_shape('g_ser_id');
INSERT INTO g_ser SELECT i, 'row ' || i FROM generate_series(20001, 24000) i;
SELECT a.holes < b.holes AS holes_used, a.subnodes > b.subnodes AS more_subnodes,
       a.groups = b.groups AS same_groups, a.max_epoch
FROM g_shape('g_ser_id') a, g_before b WHERE b.idx = 'g_ser_id'::regclass;
INSERT INTO g_ser SELECT i, 'row ' || i FROM generate_series(24001, 40000) i;
SELECT a.nblocks > b.nblocks AS grew, a.groups > b.groups AS more_groups,
       a.plain_leaves = 0 AS only_subnodes, a.max_epoch
FROM g_shape('g_ser_id') a, g_before b WHERE b.idx = 'g_ser_id'::regclass;
SELECT g_ok('g_ser_id', 16);
SELECT * FROM g_verify('g_ser_id');

-- (d) text COLLATE "C", groups of 16, keys of varying length
CREATE TABLE g_txt (s text COLLATE "C", n int) WITH (autovacuum_enabled = off);
INSERT INTO g_txt SELECT md5(i::text) || repeat('x', i % 23), i FROM generate_series(1, 8000) i;
CREATE INDEX g_txt_s ON g_txt USING pagebtree (s) WITH (leaf_group_size = 16);
INSERT INTO g_q VALUES
    ('g_txt', 'SELECT s AS c FROM g_txt WHERE s BETWEEN ''3'' AND ''5'''),
    ('g_txt', 'SELECT s, n FROM g_txt WHERE s > ''7'' ORDER BY s'),
    ('g_txt', 'SELECT s, n FROM g_txt WHERE s < ''c'' ORDER BY s DESC'),
    ('g_txt', 'SELECT s, n FROM g_txt WHERE s LIKE ''ab%'''),
    ('g_txt', 'SELECT s, n FROM g_txt WHERE s = ANY (ARRAY(SELECT md5(i::text) || repeat(''x'', i % 23) FROM generate_series(1, 20000, 53) i))');
INSERT INTO g_before SELECT 'g_txt_s', * FROM g_shape('g_txt_s');
SELECT g_ok('g_txt_s', 16);
INSERT INTO g_txt SELECT md5(i::text) || repeat('y', i % 31), i FROM generate_series(8001, 20000) i;
SELECT a.groups > b.groups AS groups_split, a.max_epoch > 1 AS new_epochs
FROM g_shape('g_txt_s') a, g_before b WHERE b.idx = 'g_txt_s'::regclass;
SELECT g_ok('g_txt_s', 16);
SELECT * FROM g_verify('g_txt_s');

-- (e) many duplicates of a few values (posting leaves), groups of 4
CREATE TABLE g_dup (k int4, id int) WITH (autovacuum_enabled = off);
INSERT INTO g_dup SELECT i % 20, i FROM generate_series(1, 20000) i;
CREATE INDEX g_dup_k ON g_dup USING pagebtree (k) WITH (leaf_group_size = 4, delta = off);
INSERT INTO g_q VALUES
    ('g_dup', 'SELECT k AS c FROM g_dup WHERE k BETWEEN 2 AND 3'),
    ('g_dup', 'SELECT k, id FROM g_dup WHERE k = 3'),
    ('g_dup', 'SELECT k FROM g_dup WHERE k >= 15 ORDER BY k'),
    ('g_dup', 'SELECT k FROM g_dup WHERE k <= 3 ORDER BY k DESC'),
    ('g_dup', 'SELECT count(*) FROM g_dup WHERE k > 0'),
    ('g_dup', 'SELECT k, id FROM g_dup WHERE k = ANY (''{0, 6, 19, 25}'')');
SELECT g_ok('g_dup_k', 4),
       EXISTS (SELECT FROM pagebtree_layout_summary('g_dup_k')
               WHERE page_type = 'leaf' AND layout = 'posting') AS has_posting_leaves;
INSERT INTO g_before SELECT 'g_dup_k', * FROM g_shape('g_dup_k');
INSERT INTO g_dup SELECT i % 20, i FROM generate_series(20001, 40000) i;
SELECT a.live_items >= 2 * b.live_items AS twice_the_entries,
       EXISTS (SELECT FROM pagebtree_layout_summary('g_dup_k')
               WHERE page_type = 'leaf' AND layout = 'posting') AS has_posting_leaves
FROM g_shape('g_dup_k') a, g_before b WHERE b.idx = 'g_dup_k'::regclass;
SELECT g_ok('g_dup_k', 4);
SELECT * FROM g_verify('g_dup_k');

-- (f) composite keys (int4, text COLLATE "C"), groups of 16
CREATE TABLE g_comp (a int4, b text COLLATE "C", c int) WITH (autovacuum_enabled = off);
INSERT INTO g_comp SELECT i % 50, 'b' || ((i * 7919) % 1009), i FROM generate_series(1, 10000) i;
CREATE INDEX g_comp_ab ON g_comp USING pagebtree (a, b) WITH (leaf_group_size = 16);
INSERT INTO g_q VALUES
    ('g_comp', 'SELECT a AS c FROM g_comp WHERE a BETWEEN 10 AND 13'),
    ('g_comp', 'SELECT a, b, c FROM g_comp WHERE a = 17 AND b > ''b5'' ORDER BY a, b'),
    ('g_comp', 'SELECT a, b FROM g_comp WHERE a > 40 ORDER BY a, b'),
    ('g_comp', 'SELECT a, b FROM g_comp WHERE a < 25 ORDER BY a DESC, b DESC'),
    ('g_comp', 'SELECT a, b, c FROM g_comp WHERE a = ANY (''{3, 33, 49}'') AND b = ANY (''{b1, b100, b512, b77}'')');
INSERT INTO g_before SELECT 'g_comp_ab', * FROM g_shape('g_comp_ab');
INSERT INTO g_comp SELECT i % 50, 'b' || ((i * 7919) % 1009), i FROM generate_series(10001, 30000) i;
SELECT a.groups > b.groups AS groups_split, a.max_epoch > 1 AS new_epochs
FROM g_shape('g_comp_ab') a, g_before b WHERE b.idx = 'g_comp_ab'::regclass;
SELECT g_ok('g_comp_ab', 16);
SELECT * FROM g_verify('g_comp_ab');

-- 2. inserts into an empty group index: one group, subnode 0 in use and
-- the others holes; the last subnode splits into the hole after it (same
-- epoch); ascending keys then start new groups past the end of the index
-- (epoch 1), descending ones rebalance their group, random ones both
CREATE TABLE g_asc (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX g_asc_k ON g_asc USING pagebtree (k) WITH (leaf_group_size = 4);
SELECT version, groups, subnodes, holes, max_epoch FROM g_shape('g_asc_k');
SELECT g_ok('g_asc_k', 4);
INSERT INTO g_asc SELECT i FROM generate_series(1, 3000) i;
SELECT groups, subnodes > 1 AS hole_split, holes < 3 AS holes_used, max_epoch
FROM g_shape('g_asc_k');
SELECT g_ok('g_asc_k', 4);
INSERT INTO g_asc SELECT i FROM generate_series(3001, 12000) i;
SELECT groups > 1 AS new_groups, max_epoch FROM g_shape('g_asc_k');
SELECT g_ok('g_asc_k', 4);
INSERT INTO g_q VALUES
    ('g_asc', 'SELECT k AS c FROM g_asc WHERE k BETWEEN 600 AND 4000'),
    ('g_asc', 'SELECT k FROM g_asc ORDER BY k'),
    ('g_asc', 'SELECT k FROM g_asc WHERE k < 11000 ORDER BY k DESC'),
    ('g_asc', 'SELECT k FROM g_asc WHERE k = ANY (ARRAY(SELECT i * 41 FROM generate_series(0, 400) i))');
SELECT * FROM g_verify('g_asc_k');

CREATE TABLE g_desc (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX g_desc_k ON g_desc USING pagebtree (k) WITH (leaf_group_size = 16);
INSERT INTO g_desc SELECT i FROM generate_series(12000, 1, -1) i;
SELECT groups, holes, max_epoch > 1 AS rebalanced FROM g_shape('g_desc_k');
SELECT g_ok('g_desc_k', 16);
INSERT INTO g_q VALUES
    ('g_desc', 'SELECT k AS c FROM g_desc WHERE k BETWEEN 600 AND 4000'),
    ('g_desc', 'SELECT k FROM g_desc ORDER BY k'),
    ('g_desc', 'SELECT k FROM g_desc WHERE k < 11000 ORDER BY k DESC'),
    ('g_desc', 'SELECT k FROM g_desc WHERE k = ANY (ARRAY(SELECT i * 41 FROM generate_series(0, 400) i))');
SELECT * FROM g_verify('g_desc_k');

SELECT setseed(0.23);
CREATE TABLE g_rnd (k int8, r float8) WITH (autovacuum_enabled = off);
CREATE INDEX g_rnd_k ON g_rnd USING pagebtree (k) WITH (leaf_group_size = 4);
INSERT INTO g_rnd SELECT (random() * 1000000)::int8, random() FROM generate_series(1, 15000);
SELECT groups > 1 AS groups_split, max_epoch > 1 AS new_epochs, holes < 4 AS few_holes
FROM g_shape('g_rnd_k');
SELECT g_ok('g_rnd_k', 4);
INSERT INTO g_q VALUES
    ('g_rnd', 'SELECT k AS c FROM g_rnd WHERE k BETWEEN 100000 AND 300000'),
    ('g_rnd', 'SELECT k, r FROM g_rnd WHERE k BETWEEN 300000 AND 450000'),
    ('g_rnd', 'SELECT k FROM g_rnd WHERE k > 300000 ORDER BY k'),
    ('g_rnd', 'SELECT k FROM g_rnd WHERE k < 700000 ORDER BY k DESC'),
    ('g_rnd', 'SELECT count(*) FROM g_rnd WHERE k > 1000'),
    ('g_rnd', 'SELECT k, r FROM g_rnd WHERE k = ANY (ARRAY(SELECT i * 3331 FROM generate_series(1, 300) i))');
SELECT * FROM g_verify('g_rnd_k');

-- 3. DELETE + VACUUM empties subnodes, which stay (empty) in their group,
-- and deletes the groups all of whose subnodes are empty, whole (all their
-- blocks); inserts then fill the empty subnodes again, and the key space
-- of deleted groups belongs to the group on their right
DELETE FROM g_ser WHERE id BETWEEN 2000 AND 14000;
DELETE FROM g_rand WHERE k BETWEEN 10000 AND 40000 OR pad % 3 = 0;
VACUUM g_ser, g_rand;
SELECT empty_subnodes > 4 AS empty_subnodes, plain_leaves = 0 AS only_subnodes
FROM g_shape('g_ser_id');
SELECT g_ok('g_ser_id', 16);
SELECT * FROM g_verify('g_ser_id');
SELECT empty_subnodes > 0 AS empty_subnodes, deleted > 0 AS groups_deleted,
       deleted % 4 = 0 AS whole_groups
FROM g_shape('g_rand_k');
SELECT g_ok('g_rand_k', 4);
SELECT * FROM g_verify('g_rand_k');
UPDATE g_before b SET empty_subnodes = a.empty_subnodes, nblocks = a.nblocks
FROM g_shape('g_ser_id') a WHERE b.idx = 'g_ser_id'::regclass;
INSERT INTO g_ser SELECT i, 'again ' || i FROM generate_series(2000, 14000, 3) i;
SELECT a.empty_subnodes < b.empty_subnodes AS refilled
FROM g_shape('g_ser_id') a, g_before b WHERE b.idx = 'g_ser_id'::regclass;
SELECT g_ok('g_ser_id', 16);
SELECT * FROM g_verify('g_ser_id');
INSERT INTO g_rand SELECT (i * 7919) % 100003, i FROM generate_series(30001, 34000) i;
SELECT g_ok('g_rand_k', 4);
SELECT * FROM g_verify('g_rand_k');
-- everything deleted: scans find nothing, and the index fills again
DELETE FROM g_asc;
VACUUM g_asc;
SELECT subnodes = empty_subnodes AS all_empty, deleted > 0 AS groups_deleted,
       deleted % 4 = 0 AS whole_groups
FROM g_shape('g_asc_k');
SELECT * FROM g_verify('g_asc_k');
INSERT INTO g_asc SELECT (i * 7919) % 12007 FROM generate_series(1, 9000) i;
SELECT g_ok('g_asc_k', 4);
SELECT * FROM g_verify('g_asc_k');

-- index-only scans, a scroll cursor, and a merge join (mark and restore)
SELECT * FROM pbt_cmp('SELECT k, pad FROM g_rand WHERE k BETWEEN 5000 AND 30000', 'indexonly');
SELECT * FROM pbt_cmp('SELECT k, pad FROM g_rand WHERE k BETWEEN 5000 AND 20000 ORDER BY k DESC', 'indexonly');
BEGIN;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
DECLARE c SCROLL CURSOR FOR SELECT id FROM g_ser WHERE id BETWEEN 1900 AND 2100 ORDER BY id;
FETCH 5 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 3 FROM c;
COMMIT;
-- across subnodes and groups, forward and backward
BEGIN;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
DECLARE c SCROLL CURSOR FOR SELECT k, pad FROM g_rand WHERE k BETWEEN 40000 AND 90000 ORDER BY k;
MOVE FORWARD 700 IN c;
FETCH 3 FROM c;
MOVE BACKWARD 500 IN c;
FETCH BACKWARD 3 FROM c;
MOVE FORWARD 2000 IN c;
FETCH 2 FROM c;
FETCH LAST FROM c;
MOVE BACKWARD 1500 IN c;
FETCH BACKWARD 2 FROM c;
COMMIT;
SELECT (SELECT k FROM g_rand WHERE k BETWEEN 40000 AND 90000 ORDER BY k OFFSET 700 LIMIT 1) AS k_701,
       (SELECT k FROM g_rand WHERE k BETWEEN 40000 AND 90000 ORDER BY k OFFSET 200 LIMIT 1) AS k_201;
SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_seqscan = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM g_dup a JOIN g_asc b ON a.k = b.k;
SELECT count(*) FROM g_dup a JOIN g_asc b ON a.k = b.k;
RESET enable_hashjoin; RESET enable_nestloop; RESET enable_seqscan; RESET enable_sort;
SELECT count(*) FROM g_dup a JOIN g_asc b ON a.k = b.k;

-- 4. a unique group index
CREATE TABLE g_uq (k int4, v text) WITH (autovacuum_enabled = off);
INSERT INTO g_uq SELECT (i * 7919) % 20011, 'a' FROM generate_series(1, 8000) i;
CREATE UNIQUE INDEX g_uq_k ON g_uq USING pagebtree (k) WITH (leaf_group_size = 4);
INSERT INTO g_uq SELECT (i * 7919) % 20011, 'b' FROM generate_series(8001, 14000) i;
SELECT g_ok('g_uq_k', 4), max_epoch > 1 AS new_epochs FROM g_shape('g_uq_k');
INSERT INTO g_uq VALUES ((7 * 7919) % 20011, 'dup');
INSERT INTO g_uq VALUES ((13999 * 7919) % 20011, 'dup');
-- (INSERT ... ON CONFLICT takes pagebtree arbiters from PostgreSQL 18 on
-- only: see versions.sql; here the same by catching unique_violation)
DO $$
DECLARE
    conflicts int := 0;
BEGIN
    FOR i IN 13990 .. 14010 LOOP
        BEGIN
            INSERT INTO g_uq VALUES ((i * 7919) % 20011, 'c');
        EXCEPTION WHEN unique_violation THEN
            conflicts := conflicts + 1;
        END;
    END LOOP;
    RAISE WARNING 'g_uq: % conflicts', conflicts;
END;
$$;
SELECT count(*), count(DISTINCT k), count(*) FILTER (WHERE v = 'c') AS new_c FROM g_uq;
UPDATE g_uq SET k = k + 1 WHERE k = (17 * 7919) % 20011;
UPDATE g_uq SET k = k + 20011 WHERE k = (17 * 7919) % 20011;
SELECT pagebtree_check('g_uq_k', true);

-- 5. errors and notices
CREATE TABLE g_err (k int8, n numeric, t text, f float8);
CREATE INDEX g_err_1 ON g_err USING pagebtree (k) WITH (leaf_group_size = 1);
CREATE INDEX g_err_17 ON g_err USING pagebtree (k) WITH (leaf_group_size = 17);
CREATE INDEX g_err_neg ON g_err USING pagebtree (k) WITH (leaf_group_size = -1);
CREATE INDEX g_err_k ON g_err USING pagebtree (k) WITH (leaf_group_size = 2);
ALTER INDEX g_err_k SET (leaf_group_size = 1);
ALTER INDEX g_err_k SET (leaf_group_size = 17);
CREATE INDEX g_err_h40 ON g_err USING pagebtree (k) WITH (leaf_group_size = 4, leaf_group_hint_bits = 40);
ALTER INDEX g_err_k SET (leaf_group_hint_bits = -2);
SET client_min_messages = notice;
-- keys that are not normalized: built without groups (text COLLATE
-- "POSIX" is normalized, like "C")
CREATE INDEX g_err_n ON g_err USING pagebtree (n) WITH (leaf_group_size = 4);
CREATE INDEX g_err_t ON g_err USING pagebtree (t COLLATE "POSIX", k) WITH (leaf_group_size = 4);
CREATE INDEX g_err_f ON g_err USING pagebtree (f) WITH (leaf_group_size = 4);
-- a group index with a delta area (section 9)
CREATE INDEX g_err_d ON g_err USING pagebtree (k) WITH (leaf_group_size = 4, delta = on);
SET client_min_messages = warning;
INSERT INTO g_err SELECT i, i, 't' || i, i FROM generate_series(1, 3000) i;
-- (without preloading the others get a delta area too: not shown)
SELECT i.relname, m.version, m.key_mode,
       CASE WHEN i.relname = 'g_err_d' THEN m.delta_group > 0 END AS delta,
       s.groups, s.plain_leaves > 0 AS plain_leaves
FROM pg_class i, LATERAL pagebtree_metapage(i.oid) m, LATERAL g_shape(i.oid) s
WHERE i.relname LIKE 'g_err_%' ORDER BY 1;
SELECT pagebtree_check('g_err_n', true), pagebtree_check('g_err_d', true);
DROP TABLE g_err;

-- 6. an unlogged table: TRUNCATE builds the group index empty again
CREATE UNLOGGED TABLE g_unl (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX g_unl_k ON g_unl USING pagebtree (k) WITH (leaf_group_size = 4);
INSERT INTO g_unl SELECT (i * 7919) % 100003 FROM generate_series(1, 10000) i;
SELECT g_ok('g_unl_k', 4), groups > 1 AS groups_split FROM g_shape('g_unl_k');
INSERT INTO g_q VALUES
    ('g_unl', 'SELECT k AS c FROM g_unl WHERE k BETWEEN 1000 AND 30000'),
    ('g_unl', 'SELECT k FROM g_unl WHERE k > 20000 ORDER BY k'),
    ('g_unl', 'SELECT k FROM g_unl WHERE k < 90000 ORDER BY k DESC');
SELECT * FROM g_verify('g_unl_k');
TRUNCATE g_unl;
SELECT version, groups, subnodes, holes FROM g_shape('g_unl_k');
SELECT * FROM g_verify('g_unl_k');
INSERT INTO g_unl SELECT (i * 7919) % 100003 FROM generate_series(1, 8000) i;
SELECT g_ok('g_unl_k', 4), groups > 1 AS groups_split FROM g_shape('g_unl_k');
SELECT * FROM g_verify('g_unl_k');
-- and a temporary one
CREATE TEMP TABLE g_tmp (k int8);
CREATE INDEX g_tmp_k ON g_tmp USING pagebtree (k) WITH (leaf_group_size = 4);
INSERT INTO g_tmp SELECT (i * 7919) % 100003 FROM generate_series(1, 8000) i;
SELECT g_ok('g_tmp_k', 4), groups > 1 AS groups_split FROM g_shape('g_tmp_k');
SELECT pagebtree_check('g_tmp_k', true);
SELECT * FROM g_order('SELECT k FROM g_tmp WHERE k < 90000 ORDER BY k DESC');
DROP TABLE g_tmp;

-- 7. rebuilds: REINDEX keeps the groups (and makes them full again);
-- ALTER INDEX SET changes them only at the next rebuild
REINDEX INDEX g_rand_k;
SELECT g_ok('g_rand_k', 4), max_epoch, empty_subnodes FROM g_shape('g_rand_k');
SELECT * FROM g_verify('g_rand_k');
REINDEX INDEX CONCURRENTLY g_rand_k;
SELECT g_ok('g_rand_k', 4), max_epoch FROM g_shape('g_rand_k');
SELECT * FROM g_verify('g_rand_k');
ALTER INDEX g_rand_k SET (leaf_group_size = 8);
SELECT group_size FROM g_shape('g_rand_k');
INSERT INTO g_rand SELECT (i * 7919) % 100003, i FROM generate_series(34001, 37000) i;
SELECT g_ok('g_rand_k', 4);
REINDEX INDEX g_rand_k;
SELECT g_ok('g_rand_k', 8), group_size FROM g_shape('g_rand_k');
SELECT * FROM g_verify('g_rand_k');
INSERT INTO g_rand SELECT (i * 7919) % 100003, i FROM generate_series(37001, 42000) i;
SELECT g_ok('g_rand_k', 8), max_epoch > 1 AS new_epochs FROM g_shape('g_rand_k');
SELECT * FROM g_verify('g_rand_k');
ALTER INDEX g_rand_k RESET (leaf_group_size);
REINDEX TABLE g_rand;
SELECT version, groups, plain_leaves > 0 AS plain_leaves
FROM g_shape('g_rand_k');
SELECT * FROM g_verify('g_rand_k');
ALTER INDEX g_rand_k SET (leaf_group_size = 2);
REINDEX INDEX CONCURRENTLY g_rand_k;
SELECT g_ok('g_rand_k', 2) FROM g_shape('g_rand_k');
SELECT * FROM g_verify('g_rand_k');
-- CLUSTER and VACUUM FULL rebuild the index with its groups
CLUSTER g_txt USING g_txt_s;
SELECT g_ok('g_txt_s', 16), max_epoch FROM g_shape('g_txt_s');
INSERT INTO g_txt SELECT md5(i::text) || 'z', i FROM generate_series(20001, 24000) i;
SELECT g_ok('g_txt_s', 16), max_epoch > 1 AS new_epochs FROM g_shape('g_txt_s');
SELECT * FROM g_verify('g_txt_s');
VACUUM FULL g_comp;
SELECT g_ok('g_comp_ab', 16), max_epoch FROM g_shape('g_comp_ab');
INSERT INTO g_comp SELECT i % 50, 'c' || i, i FROM generate_series(30001, 36000) i;
SELECT g_ok('g_comp_ab', 16);
SELECT * FROM g_verify('g_comp_ab');

-- two keys' entries in posting leaves: a full group whose pages at equal
-- bytes would mix the keys (and not fit) is planned packed, and splits
CREATE TABLE g_two (k int4) WITH (autovacuum_enabled = off);
INSERT INTO g_two SELECT i % 2 FROM generate_series(1, 8000) i;
CREATE INDEX g_two_k ON g_two USING pagebtree (k) WITH (leaf_group_size = 4);
INSERT INTO g_two SELECT i % 2 FROM generate_series(1, 8000) i;
INSERT INTO g_q VALUES
    ('g_two', 'SELECT count(*) FROM g_two WHERE k = 1'),
    ('g_two', 'SELECT k FROM g_two WHERE k >= 0 ORDER BY k DESC');
SELECT g_ok('g_two_k', 4), groups > 1 AS split FROM g_shape('g_two_k');
SELECT * FROM g_verify('g_two_k');

-- 8. hints: a group's downlink predicts which subnode holds a key (32 or
-- 12 bits per subnode, packed, or none: interpolation between the separators); the
-- build makes them, rebalances and group splits remake them.  Point
-- lookups of 1 key in 5 through index-only scans find the rows a hash join
-- finds; pagebtree_group_lookups counts the subnodes their descents read
-- beyond the first (in % of the lookups: below 1 with 32 bits).  Without
-- the leaf cache, so that every lookup descends through the hints.
CREATE TABLE g_h32 (k int8, pad int4) WITH (autovacuum_enabled = off);
INSERT INTO g_h32 SELECT (i * 7919) % 100003, i FROM generate_series(1, 20000) i;
CREATE TABLE g_h12 (LIKE g_h32) WITH (autovacuum_enabled = off);
CREATE TABLE g_h0 (LIKE g_h32) WITH (autovacuum_enabled = off);
INSERT INTO g_h12 SELECT * FROM g_h32;
INSERT INTO g_h0 SELECT * FROM g_h32;
CREATE INDEX g_h32_k ON g_h32 USING pagebtree (k)
    WITH (leaf_group_size = 8, leaf_group_hint_bits = 32, delta = off);
CREATE INDEX g_h12_k ON g_h12 USING pagebtree (k)
    WITH (leaf_group_size = 8, leaf_group_hint_bits = 12, delta = off);
CREATE INDEX g_h0_k ON g_h0 USING pagebtree (k)
    WITH (leaf_group_size = 8, leaf_group_hint_bits = 0, delta = off);
CREATE TABLE g_probe AS SELECT (i * 7919) % 100003 AS k FROM generate_series(1, 40000, 5) i;
CREATE FUNCTION g_lookups(tbl text, probe text DEFAULT 'g_probe',
                          OUT hits bigint, OUT expected bigint,
                          OUT descents bigint, OUT extra_reads bigint)
LANGUAGE plpgsql SET pagebtree.leaf_cache_size = 0 AS $$
BEGIN
    EXECUTE format('SELECT count(*) FROM %I p JOIN %I g USING (k)', probe, tbl) INTO expected;
    SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_bitmapscan = off;
    PERFORM pagebtree_group_lookups(true);
    EXECUTE format('SELECT count(*) FROM %I p JOIN %I g USING (k)', probe, tbl) INTO hits;
    SELECT l.descents, l.subnode_reads - l.descents INTO descents, extra_reads
    FROM pagebtree_group_lookups(true) l;
    RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_bitmapscan;
END $$;
VACUUM (ANALYZE) g_h32, g_h12, g_h0, g_probe;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM g_probe p JOIN g_h32 g USING (k);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_bitmapscan;
SELECT t, hits = expected AS same, descents >= hits AS descended,
       round(100.0 * extra_reads / descents, 2) AS extra_pct
FROM unnest(ARRAY['g_h32', 'g_h12', 'g_h0']) t, LATERAL g_lookups(t);
-- inserts all over the key range: rebalances and group splits
INSERT INTO g_h32 SELECT (i * 7919) % 100003, i FROM generate_series(20001, 40000) i;
INSERT INTO g_h12 SELECT (i * 7919) % 100003, i FROM generate_series(20001, 40000) i;
INSERT INTO g_h0 SELECT (i * 7919) % 100003, i FROM generate_series(20001, 40000) i;
VACUUM (ANALYZE) g_h32, g_h12, g_h0;
SELECT t, g_ok(t::regclass, 8), s.max_epoch > 1 AS new_epochs
FROM unnest(ARRAY['g_h32_k', 'g_h12_k', 'g_h0_k']) t, LATERAL g_shape(t::regclass) s;
SELECT t, hits = expected AS same, hits, descents >= hits AS descended,
       round(100.0 * extra_reads / descents, 2) AS extra_pct
FROM unnest(ARRAY['g_h32', 'g_h12', 'g_h0']) t, LATERAL g_lookups(t);
SELECT pagebtree_check('g_h32_k', true), pagebtree_check('g_h12_k', true),
       pagebtree_check('g_h0_k', true);
-- pagebtree_groups: the groups g_shape finds, every entry once, and the
-- entries that the hints place on their own subnode, in % (none without
-- hints)
SELECT t, count(*) = s.groups AS all_groups, sum(g.items) = s.live_items AS all_entries,
       bool_and(g.subnodes + g.holes = 8) AS whole, min(g.hinted_subnodes) AS min_hinted,
       round(100 * sum(g.items * g.hint_exact)::numeric / sum(g.items), 2) AS exact_pct
FROM unnest(ARRAY['g_h32_k', 'g_h12_k', 'g_h0_k']) t, LATERAL g_shape(t::regclass) s,
     LATERAL pagebtree_groups(t::regclass) g
GROUP BY t, s.groups, s.live_items ORDER BY t;
-- (an index without groups has none)
CREATE INDEX g_h32_plain ON g_h32 USING pagebtree (k);
SELECT count(*) AS groups FROM pagebtree_groups('g_h32_plain');
DROP INDEX g_h32_plain;
-- ascending inserts: groups made by splits at the right end get hints at
-- their first split into a hole, and each later one extends them
CREATE TABLE g_hs (k int8, pad int4) WITH (autovacuum_enabled = off);
CREATE INDEX g_hs_k ON g_hs USING pagebtree (k) WITH (leaf_group_size = 8, delta = off);
INSERT INTO g_hs SELECT i, i FROM generate_series(0, 100003) i;
VACUUM (ANALYZE) g_hs;
SELECT g_ok('g_hs_k', 8), groups > 2 AS several_groups FROM g_shape('g_hs_k');
SELECT hits = expected AS same, hits, descents >= hits AS descended,
       round(100.0 * extra_reads / descents, 2) AS extra_pct
FROM g_lookups('g_hs');
SELECT pagebtree_check('g_hs_k', true);
-- every full group has hints for all its subnodes, and they place nearly
-- every entry, also where a group's ascending keys cross 2^20 (the hints'
-- window lies across it), and where the gaps between keys grow (cubes,
-- gaps some 35 times wider at the first group's end than at its start: a
-- subnode's first key past the window widens it)
CREATE TABLE g_hc (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX g_hc_k ON g_hc USING pagebtree (k) WITH (leaf_group_size = 16, delta = off);
INSERT INTO g_hc SELECT i FROM generate_series(1048576 - 30000, 1048576 + 30000) i;
CREATE TABLE g_hq (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX g_hq_k ON g_hq USING pagebtree (k) WITH (leaf_group_size = 16, delta = off);
INSERT INTO g_hq SELECT i::int8 * i * i FROM generate_series(1001, 61000) i;
SELECT t, count(*) AS groups, bool_and(hinted_subnodes = subnodes) AS all_hinted,
       min(hint_exact) > 0.95 AS placed
FROM unnest(ARRAY['g_hs_k', 'g_hc_k', 'g_hq_k']) t, LATERAL pagebtree_groups(t::regclass)
WHERE holes = 0 GROUP BY t ORDER BY t;
SELECT pagebtree_check('g_hc_k', true), pagebtree_check('g_hq_k', true);
-- a subnode whose low fence ends within its first entry's key (flag
-- key_start: its left neighbour ends with another key) takes the lookups
-- of that key itself, in one read; where its left neighbour ends with the
-- same key, the key's entries start there, and so does the lookup.  With
-- distinct keys every later subnode is flagged; with some 24 entries a
-- key (and no posting leaves), most are not, and lookups of the first keys of
-- all later subnodes still find every entry.
CREATE TABLE g_hdup (k int8, pad int4) WITH (autovacuum_enabled = off);
INSERT INTO g_hdup SELECT (i * 7919) % 100003 / 40, i FROM generate_series(1, 40000) i;
CREATE INDEX g_hdup_k ON g_hdup USING pagebtree (k)
    WITH (leaf_group_size = 8, leaf_group_hint_bits = 32, delta = off,
          deduplicate_items = off);
INSERT INTO g_hdup SELECT (i * 7919) % 100003 / 40, i FROM generate_series(40001, 60000) i;
CREATE FUNCTION g_first_keys(tbl text, idx regclass)
RETURNS TABLE (k int8, key_start boolean, left_key int8)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$
        SELECT f.k, s.flags ~ 'key_start', l.k
        FROM pagebtree_groups(%L) g, generate_series(1, g.subnodes - 1) j,
             LATERAL pagebtree_page_stats(%L, g.start + j) s,
             LATERAL (SELECT t.k FROM pagebtree_page_items(%L, g.start + j) i
                      JOIN %I t ON t.ctid = i.heap_tid ORDER BY i.itemno LIMIT 1) f,
             LATERAL (SELECT t.k FROM pagebtree_page_items(%L, g.start + j - 1) i
                      JOIN %I t ON t.ctid = i.heap_tid ORDER BY i.itemno DESC LIMIT 1) l$q$,
        idx, idx, idx, tbl, idx, tbl);
END $$;
CREATE TABLE g_fk32 AS SELECT * FROM g_first_keys('g_h32', 'g_h32_k');
CREATE TABLE g_fkdup AS SELECT * FROM g_first_keys('g_hdup', 'g_hdup_k');
ANALYZE g_hdup, g_fk32, g_fkdup;
SELECT t, count(*) > 20 AS subnodes, count(*) FILTER (WHERE key_start) AS flagged,
       count(*) FILTER (WHERE NOT key_start) > count(*) / 2 AS mostly_unflagged,
       bool_and(key_start = (k <> left_key)) AS flagged_where_keys_differ
FROM (SELECT 'g_h32' AS t, * FROM g_fk32 UNION ALL SELECT 'g_hdup', * FROM g_fkdup) f
GROUP BY t ORDER BY t;
-- (lookups of unflagged subnodes' first keys may read their left
-- neighbours first)
SELECT t, hits = expected AS same, descents > 0 AS descended,
       extra_reads = 0 AS one_read_each
FROM (VALUES ('g_h32', 'g_fk32'), ('g_hdup', 'g_fkdup')) v(t, probe),
     LATERAL g_lookups(t, probe) l;
SELECT pagebtree_check('g_hdup_k', true);
-- the default width: 12 bits when every key column has a fixed width, 32
-- with a text column.  Beside 32-bit indexes on the same rows, the root's
-- downlinks (same separators, N = 8) are 20 bytes shorter for int8 keys and
-- as long for text keys.
CREATE INDEX g_hd_k ON g_h32 USING pagebtree (k) WITH (leaf_group_size = 8);
CREATE INDEX g_h32_t ON g_h32 USING pagebtree ((k::text) COLLATE "C")
    WITH (leaf_group_size = 8, leaf_group_hint_bits = 32);
CREATE INDEX g_hd_t ON g_h32 USING pagebtree ((k::text) COLLATE "C")
    WITH (leaf_group_size = 8);
CREATE FUNCTION g_root_items(idx regclass)
RETURNS TABLE (level int, itemno int, item_length int)
LANGUAGE sql AS $$
    SELECT m.level, i.itemno, i.item_length
    FROM pagebtree_metapage(idx) m, pagebtree_page_items(idx, m.root) i
$$;
SELECT a.level, count(*) AS downlinks,
       array_agg(DISTINCT a.item_length - b.item_length) AS shorter_by
FROM g_root_items('g_h32_k') a JOIN g_root_items('g_hd_k') b USING (itemno)
GROUP BY a.level
UNION ALL
SELECT a.level, count(*), array_agg(DISTINCT a.item_length - b.item_length)
FROM g_root_items('g_h32_t') a JOIN g_root_items('g_hd_t') b USING (itemno)
GROUP BY a.level;
SELECT pagebtree_check('g_hd_k', true), pagebtree_check('g_hd_t', true);

-- 9. a group index with a delta area: with appends forced, inserts go to
-- the subnodes' runs (side pages at every (G+1)-th block, which groups
-- skip); rebalances and group splits take the runs' entries into the pages
-- they rebuild, leaving the runs stale (no entry counted twice: leaves'
-- entries and pending ones add up to the table's rows); VACUUM folds runs,
-- clears stale ones and deletes groups left empty
CREATE TABLE g_dl (k int8, pad int) WITH (autovacuum_enabled = off);
CREATE INDEX g_dl_k ON g_dl USING pagebtree (k) WITH (leaf_group_size = 4, delta = on);
CREATE UNIQUE INDEX g_dl_u ON g_dl USING pagebtree (pad)
    WITH (leaf_group_size = 16, delta = on);
INSERT INTO g_q VALUES
    ('g_dl', 'SELECT k, pad FROM g_dl WHERE k BETWEEN 1000 AND 60000'),
    ('g_dl', 'SELECT k, pad FROM g_dl WHERE k = ANY (ARRAY[5, 12345, 77777, 99999])'),
    ('g_dl', 'SELECT pad FROM g_dl WHERE pad BETWEEN 100 AND 25000'),
    ('g_dl', 'SELECT k FROM g_dl WHERE k >= 0 ORDER BY k'),
    ('g_dl', 'SELECT k FROM g_dl WHERE k < 90000 ORDER BY k DESC'),
    ('g_dl', 'SELECT pad FROM g_dl WHERE pad > 10 ORDER BY pad DESC');
CREATE FUNCTION g_delta(idx regclass, OUT has_delta boolean, OUT pending boolean,
                        OUT all_counted boolean)
LANGUAGE sql AS $$
    SELECT m.delta_group > 0, r.pending > 0,
           s.live_items + r.pending = (SELECT count(*) FROM g_dl)
    FROM pagebtree_metapage(idx) m, g_shape(idx) s,
         (SELECT coalesce(sum(entries), 0) AS pending
          FROM pagebtree_runs(idx)) r
$$;
SET pagebtree.delta_append_always = on;
INSERT INTO g_dl SELECT (i * 7919) % 100003, i FROM generate_series(1, 30000) i;
SELECT d.*, s.groups > 1 AS groups_split, s.max_epoch > 1 AS rebalanced
FROM g_delta('g_dl_k') d, g_shape('g_dl_k') s;
-- (whether entries are still pending here depends on the WAL mode's fold rules)
SELECT d.has_delta, d.all_counted, s.groups > 1 AS groups_split
FROM g_delta('g_dl_u') d, g_shape('g_dl_u') s;
SELECT g_ok('g_dl_k', 4), g_ok('g_dl_u', 16);
SELECT * FROM g_verify('g_dl_k');
SELECT pagebtree_check('g_dl_u', true);
-- unique checks see pending entries
INSERT INTO g_dl VALUES (-1, 29999);
SELECT count(*) FROM g_dl WHERE pad = 29999;
RESET pagebtree.delta_append_always;
DELETE FROM g_dl WHERE k BETWEEN 20000 AND 70000;
VACUUM g_dl;
SELECT d.*, s.deleted > 0 AS groups_deleted, s.deleted % 4 = 0 AS whole_groups
FROM g_delta('g_dl_k') d, g_shape('g_dl_k') s;
SELECT g_ok('g_dl_k', 4);
SELECT * FROM g_verify('g_dl_k');
SET pagebtree.delta_append_always = on;
INSERT INTO g_dl SELECT (i * 7919) % 100003, i FROM generate_series(30001, 42000) i;
SELECT d.*, s.max_epoch > 1 AS rebalanced FROM g_delta('g_dl_k') d, g_shape('g_dl_k') s;
SELECT g_ok('g_dl_k', 4);
SELECT * FROM g_verify('g_dl_k');
RESET pagebtree.delta_append_always;
REINDEX INDEX g_dl_k;
SELECT d.*, g_ok('g_dl_k', 4) FROM g_delta('g_dl_k') d;
SELECT * FROM g_verify('g_dl_k');
-- an unlogged table: its empty index (TRUNCATE) puts side pages among the
-- first group's blocks
CREATE UNLOGGED TABLE g_dl_unl (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX g_dl_unl_k ON g_dl_unl USING pagebtree (k)
    WITH (leaf_group_size = 16, delta = on, delta_threshold = 20);
INSERT INTO g_dl_unl SELECT i FROM generate_series(1, 1000) i;
TRUNCATE g_dl_unl;
SELECT m.delta_group, s.groups, s.subnodes, s.holes
FROM pagebtree_metapage('g_dl_unl_k') m, g_shape('g_dl_unl_k') s;
SET pagebtree.delta_append_always = on;
INSERT INTO g_dl_unl SELECT (i * 7919) % 100003 FROM generate_series(1, 20000) i;
RESET pagebtree.delta_append_always;
SELECT g_ok('g_dl_unl_k', 16), groups > 1 AS groups_split FROM g_shape('g_dl_unl_k');
SELECT pagebtree_check('g_dl_unl_k', true);
SELECT * FROM g_order('SELECT k FROM g_dl_unl WHERE k > 500 ORDER BY k DESC');

-- a point lookup whose group rebalances while it is paused reads on from
-- its resume key by position: a fingerprint leaf's probe would return the
-- key's entries the rebalance moved there again (230 of 1,500 twice)
CREATE TABLE g_rp (id serial, k int) WITH (autovacuum_enabled = off);
INSERT INTO g_rp (k) SELECT 1 FROM generate_series(1, 300);
INSERT INTO g_rp (k) SELECT 5 FROM generate_series(1, 1500);
INSERT INTO g_rp (k) SELECT 9 FROM generate_series(1, 300);
CREATE INDEX g_rp_k ON g_rp USING pagebtree (k)
    WITH (leaf_group_size = 4, layout = fingerprint, delta = off);
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM g_rp WHERE k = 5;
CREATE TEMP TABLE g_rp_got (id int);
DO $$
DECLARE
  c refcursor;
  r record;
BEGIN
  OPEN c FOR SELECT id FROM g_rp WHERE k = 5;
  FETCH c INTO r;
  INSERT INTO g_rp_got VALUES (r.id);
  INSERT INTO g_rp (k) SELECT 1 FROM generate_series(1, 250);
  LOOP
    FETCH c INTO r;
    EXIT WHEN NOT FOUND;
    INSERT INTO g_rp_got VALUES (r.id);
  END LOOP;
END $$;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM g_rp_got;
SELECT max(epoch) > 1 AS rebalanced FROM pagebtree_groups('g_rp_k');
SELECT pagebtree_check('g_rp_k', true);

-- 10. every leaf layout inside groups: one table per layout, the index
-- built empty and filled by scrambled inserts (subnode splits into holes,
-- rebalances, group splits), then a deleted key range and every third row,
-- VACUUM and more inserts.  Each step must leave leaves of the layout
-- (plain, heads, dense, semidense, bpa, fingerprint forced; lists and
-- posting chosen by layout = auto for keys with 20 and 4,000 rows each),
-- whole groups, and scans that agree with sequential scans (the ORDER BY
-- DESC query reads a heap column, id IS NOT NULL, for a plain index scan
-- whose rows do not depend on the order of equal keys).
CREATE FUNCTION g_layout_step(lay text, idxdef text, col text, lits text[],
                              first int, last int, OUT has_layout boolean,
                              OUT groups_split boolean, OUT rebalanced boolean,
                              OUT groups_ok boolean, OUT groups_deleted boolean,
                              OUT failed text[])
LANGUAGE plpgsql AS $$
DECLARE
    tbl text := 'g_ly_' || lay;
    idx text := 'g_ly_' || lay || '_idx';
    c text := col || ' AS c';
BEGIN
    IF first = 1 THEN
        EXECUTE format('CREATE TABLE %I (id int, k int8, t text COLLATE "C", v int4, w int4) WITH (autovacuum_enabled = off)', tbl);
        EXECUTE format('CREATE INDEX %I ON %I USING pagebtree %s', idx, tbl, idxdef);
        INSERT INTO g_q SELECT tbl, unnest(ARRAY[
            format('SELECT %s FROM %I WHERE %s = %s', c, tbl, col, lits[2]),
            format('SELECT id FROM %I WHERE %s = %s', tbl, col, lits[1]),
            format('SELECT id FROM %I WHERE %s BETWEEN %s AND %s', tbl, col, lits[1], lits[2]),
            format('SELECT %s FROM %I WHERE %s > %s', c, tbl, col, lits[3]),
            format('SELECT count(*) FROM %I WHERE %s < %s', tbl, col, lits[2]),
            format('SELECT id FROM %I WHERE %s = ANY (ARRAY[%s, %s, %s])', tbl, col, lits[1], lits[2], lits[3]),
            format('SELECT %s, id IS NOT NULL FROM %I WHERE %s >= %s ORDER BY %s DESC', col, tbl, col, lits[1], col),
            format('SELECT %s FROM %I WHERE %s < %s ORDER BY %s', col, tbl, col, lits[3], col)]);
    END IF;
    EXECUTE format($q$INSERT INTO %I
        SELECT i, k, 'https://example.com/item/' || k, k / 20, k / 4000
        FROM generate_series(%s, %s) i, LATERAL (SELECT (i * 7919) %% 30011 AS k) s$q$,
        tbl, first, last);
    SELECT EXISTS (SELECT FROM pagebtree_layout_summary(idx)
                   WHERE page_type = 'leaf' AND layout = lay)
    INTO has_layout;
    SELECT s.groups > 1, s.max_epoch > 1, s.deleted > 0
    INTO groups_split, rebalanced, groups_deleted
    FROM g_shape(idx) s;
    groups_ok := g_ok(idx, 4);
    SELECT v.failed INTO failed FROM g_verify(idx) v;
END;
$$;
CREATE TABLE g_layouts (lay text, idxdef text, col text, lits text[]);
INSERT INTO g_layouts VALUES
  ('plain', '(k) WITH (leaf_group_size = 4, layout = plain, delta = off)', 'k', '{500,15000,29000}'),
  ('heads', '(t) WITH (leaf_group_size = 4, layout = heads, delta = off)', 't',
   '{''https://example.com/item/12'',''https://example.com/item/2'',''https://example.com/item/9''}'),
  ('dense', '(k) WITH (leaf_group_size = 4, layout = dense, delta = off)', 'k', '{500,15000,29000}'),
  ('semidense', '(k) INCLUDE (id) WITH (leaf_group_size = 4, layout = semidense, delta = off)', 'k', '{500,15000,29000}'),
  ('bpa', '(t) WITH (leaf_group_size = 4, layout = bpa, bpa_log_size = 8, bpa_block_size = 8, delta = off)', 't',
   '{''https://example.com/item/12'',''https://example.com/item/2'',''https://example.com/item/9''}'),
  ('fingerprint', '(k) WITH (leaf_group_size = 4, layout = fingerprint, delta = off)', 'k', '{500,15000,29000}'),
  ('lists', '(v) WITH (leaf_group_size = 4, delta = off)', 'v', '{25,750,1450}'),
  ('posting', '(w) WITH (leaf_group_size = 4, delta = off)', 'w', '{1,3,6}');
SELECT lay, s.* FROM g_layouts, LATERAL g_layout_step(lay, idxdef, col, lits, 1, 20000) s;
DO $$
DECLARE
    lay text;
BEGIN
    FOR lay IN SELECT g.lay FROM g_layouts g LOOP
        EXECUTE format('DELETE FROM %I WHERE k BETWEEN 5000 AND 15000 OR id %% 3 = 0', 'g_ly_' || lay);
    END LOOP;
END $$;
VACUUM g_ly_plain, g_ly_heads, g_ly_dense, g_ly_semidense, g_ly_bpa,
    g_ly_fingerprint, g_ly_lists, g_ly_posting;
SELECT lay, s.* FROM g_layouts, LATERAL g_layout_step(lay, idxdef, col, lits, 20001, 30000) s;

-- keys of 1 to 2,600 bytes (a subnode holds three of the longest):
-- rebalances and group splits plan by bytes through the subnodes' layouts,
-- so keys of any length fit without the paper's stash subnodes
-- (decisions.md)
CREATE TABLE g_wide (id int, t text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX g_wide_t ON g_wide USING pagebtree (t) WITH (leaf_group_size = 4, delta = off);
INSERT INTO g_wide
SELECT i, lpad(((i * 7919) % 3001)::text, 1 + (i * 37) % 2600, md5(i::text))
FROM generate_series(1, 3000) i;
SELECT g_ok('g_wide_t', 4), s.groups > 1 AS groups_split, s.max_epoch > 1 AS rebalanced
FROM g_shape('g_wide_t') s;
INSERT INTO g_q VALUES
  ('g_wide', 'SELECT t AS c FROM g_wide WHERE t > ''5'''),
  ('g_wide', 'SELECT id FROM g_wide WHERE t BETWEEN ''2'' AND ''4'''),
  ('g_wide', 'SELECT t FROM g_wide WHERE t < ''7'' ORDER BY t DESC');
SELECT * FROM g_verify('g_wide_t');

-- a full subnode whose group holds three entries in all cannot split the
-- group (each half needs two): two subnodes of two ascending keys of 2,640
-- bytes each, the first subnode emptied by VACUUM, then a key between the
-- second's two; the group rebalances instead
CREATE TABLE g_three (t text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX g_three_t ON g_three USING pagebtree (t)
  WITH (leaf_group_size = 2, layout = plain, delta = off);
INSERT INTO g_three SELECT repeat('x', 2640) || i * 10 FROM generate_series(10, 17) i;
DELETE FROM g_three WHERE t < repeat('x', 2640) || '120';
VACUUM g_three;
SELECT g.start, string_agg(s.live_items::text, '/' ORDER BY s.blkno) AS entries
FROM pagebtree_groups('g_three_t') g,
     LATERAL (SELECT * FROM pagebtree_page_stats('g_three_t', g.start)
              UNION ALL SELECT * FROM pagebtree_page_stats('g_three_t', g.start + 1)) s
GROUP BY g.start ORDER BY g.start;
INSERT INTO g_three VALUES (repeat('x', 2640) || '125');
SELECT g_ok('g_three_t', 2), s.groups, s.max_epoch FROM g_shape('g_three_t') s;
INSERT INTO g_q VALUES
  ('g_three', 'SELECT right(t, 3) AS c FROM g_three WHERE t > repeat(''x'', 2640) || ''115'''),
  ('g_three', 'SELECT right(t, 3) FROM g_three WHERE t > repeat(''x'', 2640) ORDER BY t DESC');
SELECT * FROM g_verify('g_three_t');

-- Keys as long as a group index takes: its downlinks carry the hints
-- (32 bits a subnode for text, 68 bytes with 16 subnodes), by which its
-- keys are shorter than other indexes' (2,624 bytes here against 2,692),
-- so that separators and downlinks stay within an item's bound.  Plain
-- pages keep separators whole: three a page, so the tree grows levels.
-- Longer keys crashed the server once a group split (PANIC).
CREATE TABLE g_long (t text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX g_long_t ON g_long USING pagebtree (t)
  WITH (leaf_group_size = 16, layout = plain, delta = off);
INSERT INTO g_long VALUES (repeat('x', 2585) || md5('0'));
INSERT INTO g_long SELECT repeat('x', 2584) || md5(i::text)
FROM generate_series(1, 1500) i ORDER BY md5(i::text || 'o');
SELECT g_ok('g_long_t', 16), s.groups > 16 AS groups, m.level >= 2 AS levels
FROM g_shape('g_long_t') s, pagebtree_metapage('g_long_t') m;
INSERT INTO g_q VALUES
  ('g_long', 'SELECT md5(t) AS c FROM g_long WHERE t > repeat(''x'', 2584) || ''8'''),
  ('g_long', 'SELECT md5(t) FROM g_long WHERE t < repeat(''x'', 2584) || ''4'' ORDER BY t DESC');
SELECT * FROM g_verify('g_long_t');

-- 11. Queue churn: the oldest rows are deleted and VACUUMed, as many
-- appended at the right end, cycle after cycle.  An emptied group whose
-- parent has no other child goes with the parent, as a leaf does
-- (build_and_dml.sql, section 20), so the index keeps its size and inner
-- pages.  Plain pages keep long separators whole: a few dozen downlinks a
-- page, so each cycle empties several parents.
CREATE TABLE g_queue (n int8, t text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX g_queue_t ON g_queue USING pagebtree (t)
  WITH (leaf_group_size = 2, layout = plain, delta = off);
CREATE TABLE g_queue_seen (cycle int, pages int8, inner_pages int8,
    deleted_groups int8, deleted_inner int8);
CREATE PROCEDURE g_queue_append(c int) LANGUAGE sql AS $$
    INSERT INTO g_queue_seen
    SELECT c, pg_relation_size('g_queue_t') / 8192,
           count(*) FILTER (WHERE s.page_type = 'inner'),
           count(*) FILTER (WHERE s.page_type = 'deleted' AND s.level = 0) / 2,
           count(*) FILTER (WHERE s.page_type = 'deleted' AND s.level > 0)
    FROM generate_series(1, pg_relation_size('g_queue_t') / 8192 - 1) b,
         LATERAL pagebtree_page_stats('g_queue_t', b) s;
    INSERT INTO g_queue
    SELECT g, repeat('q', 300) || lpad(g::text, 8, '0')
    FROM generate_series(coalesce((SELECT max(n) FROM g_queue), 0) + 1,
                         coalesce((SELECT max(n) FROM g_queue), 0) + 5000) g;
$$;
-- a cycle: delete the oldest 5,000 rows (none at first), VACUUM, count
-- pages, append 5,000 rows; four cycles fill the queue (counted as cycle
-- 0), six churn it
SELECT 'DELETE FROM g_queue WHERE n <= (SELECT max(n) FROM g_queue) - 15000',
       'VACUUM g_queue', format('CALL g_queue_append(%s)', greatest(c - 3, 0))
FROM generate_series(0, 9) c ORDER BY c \gexec
SELECT g_ok('g_queue_t', 2);
-- (deleted pages are reused from the next cycle but one; without the
-- parents' deletion the index grew 24 pages a cycle)
SELECT cycle,
       pages - (SELECT pages FROM g_queue_seen WHERE cycle = 2) <= 8 AS size_held,
       inner_pages <= (SELECT max(inner_pages) FROM g_queue_seen WHERE cycle = 0) + 1
           AS inner_held,
       deleted_groups > 0 AS groups_deleted, deleted_inner > 0 AS inner_deleted
FROM g_queue_seen WHERE cycle > 2 ORDER BY cycle;
INSERT INTO g_q VALUES
  ('g_queue', 'SELECT n FROM g_queue ORDER BY t'),
  ('g_queue', 'SELECT n FROM g_queue ORDER BY t DESC'),
  ('g_queue', 'SELECT n FROM g_queue WHERE t < repeat(''q'', 300) || ''00040000'''),
  ('g_queue', 'SELECT count(*) FROM g_queue WHERE t >= repeat(''q'', 300)');
SELECT * FROM g_verify('g_queue_t');

-- 12. Deleted groups stay visible in the free space map.  A run of groups
-- emptied in the middle of the index is deleted and, two VACUUMs later,
-- recycled; inserts at the right end then split groups, whose new groups
-- take the deleted ones' blocks, and an inner page, which passes over the
-- deleted groups' blocks (new groups take them whole) until the map runs
-- dry.  The blocks it put back must stay visible to the next group
-- splits: once hidden, new groups extended the index until the next
-- VACUUM while 4 deleted pages waited in the map.
CREATE TABLE g_fsm (n int8, t text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX g_fsm_t ON g_fsm USING pagebtree (t)
  WITH (leaf_group_size = 2, layout = plain, delta = off);
INSERT INTO g_fsm SELECT g, repeat('q', 300) || lpad(g::text, 8, '0')
FROM generate_series(1, 3000) g;
DELETE FROM g_fsm WHERE n BETWEEN 1000 AND 1800;
VACUUM g_fsm;
SELECT txid_current() > 0 AS xid;
VACUUM g_fsm;
SELECT count(*) FILTER (WHERE s.page_type = 'deleted') AS deleted
FROM generate_series(1, pg_relation_size('g_fsm_t') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('g_fsm_t', b) s;
INSERT INTO g_fsm SELECT g, repeat('q', 300) || lpad(g::text, 8, '0')
FROM generate_series(3001, 3900) g;
SELECT count(*) FILTER (WHERE s.page_type = 'deleted') AS deleted
FROM generate_series(1, pg_relation_size('g_fsm_t') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('g_fsm_t', b) s;
SELECT g_ok('g_fsm_t', 2);
INSERT INTO g_q VALUES
  ('g_fsm', 'SELECT n FROM g_fsm ORDER BY t'),
  ('g_fsm', 'SELECT n FROM g_fsm WHERE t > repeat(''q'', 300) || ''00002000''');
SELECT * FROM g_verify('g_fsm_t');

DROP TABLE g_rand, g_half, g_ser, g_txt, g_dup, g_comp, g_asc, g_desc, g_rnd,
    g_uq, g_unl, g_q, g_before, g_two, g_h32, g_h12, g_h0, g_hs, g_hc, g_hdup, g_fk32, g_fkdup, g_probe,
    g_dl, g_dl_unl, g_rp, g_rp_got, g_layouts, g_ly_plain, g_ly_heads,
    g_ly_dense, g_ly_semidense, g_ly_bpa, g_ly_fingerprint, g_ly_lists,
    g_ly_posting, g_wide, g_three, g_long, g_queue, g_queue_seen, g_fsm;
DROP PROCEDURE g_queue_append(int);
DROP FUNCTION g_layout_step(text, text, text, text[], int, int);
DROP FUNCTION g_lookups(text, text), g_first_keys(text, regclass), g_root_items(regclass),
    g_delta(regclass);
DROP FUNCTION g_shape(regclass), g_ok(regclass, int), g_order(text), g_verify(regclass);
