--
-- layout_dense: the dense leaf layout (TIDs in an array indexed by the key's
-- integer tail).  Each key column has two pagebtree indexes on identical
-- copies of it, one with layout = auto (dense where that is smaller than
-- heads) and one with layout = dense (dense wherever possible), plus a btree
-- on a third copy for sizes.  After every step the indexes pass
-- pagebtree_check(idx, true) and a set of queries gives the same results
-- through each index (index scan, index-only scan, bitmap scan) as through
-- a seqscan: "failed" must be {}.
--
-- Layout counts are shown where they do not depend on heap visibility
-- (bottom-up deletion of old row versions could change where pages split).
--
-- NOTICEs differ between server configurations (e.g. the one about
-- shared_preload_libraries at index build), so show warnings and up only.
-- Indexes are built WITH (delta = off): these tests read pages by block
-- number, and without preloading an index reserves blocks for its delta
-- area by default (delta.sql).
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- The queries for column col of table tbl whose keys lie around [lo, hi];
-- lit turns a number into a literal of the column's type.  The key column
-- is selected as "c" so that pbt_verify recognizes index-only queries.
CREATE FUNCTION ld_queries(tbl text, col text, lo bigint, hi bigint,
                           lit text DEFAULT '%s')
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    mid bigint := (lo + hi) / 2;
    c text := col || ' AS c';
    L text[];
BEGIN
    L := ARRAY[format(lit, mid), format(lit, lo + 10), format(lit, hi - 10),
               format(lit, lo + 100), format(lit, lo + 1500),
               format(lit, lo - 1000), format(lit, lo + 5), format(lit, mid + 1)];
    RETURN ARRAY[
        format('SELECT %s FROM %s WHERE %s = %s', c, tbl, col, L[1]),
        format('SELECT id FROM %s WHERE %s = %s', tbl, col, L[8]),
        format('SELECT %s FROM %s WHERE %s < %s', c, tbl, col, L[2]),
        format('SELECT %s FROM %s WHERE %s <= %s', c, tbl, col, L[2]),
        format('SELECT %s FROM %s WHERE %s > %s', c, tbl, col, L[3]),
        format('SELECT %s FROM %s WHERE %s >= %s', c, tbl, col, L[3]),
        format('SELECT id, %s FROM %s WHERE %s BETWEEN %s AND %s', c, tbl, col, L[4], L[5]),
        format('SELECT %s FROM %s WHERE %s IN (%s, %s, %s, %s, %s, %s)', c, tbl, col,
               L[1], L[2], L[3], L[6], format(lit, lo + 1), format(lit, hi + 1000)),
        format('SELECT %s FROM %s ORDER BY %s DESC LIMIT 25', c, tbl, col),
        format('SELECT %s FROM %s WHERE %s < %s ORDER BY %s DESC LIMIT 25', c, tbl, col, L[1], col),
        format('SELECT %s FROM %s WHERE %s > %s ORDER BY %s LIMIT 25', c, tbl, col, L[1], col),
        format('SELECT count(*) FROM %s WHERE %s >= %s', tbl, col, L[6]),
        format('SELECT %s FROM %s WHERE %s > %s AND %s < %s', c, tbl, col, L[6], col, L[7]),
        format('SELECT %s FROM %s ORDER BY %s', c, tbl, col),
        format('SELECT %s FROM %s ORDER BY %s DESC', c, tbl, col)
    ];
END;
$$;

-- Leaf pages of an index by layout, and the entries on them.
CREATE FUNCTION ld_leaves(idx regclass, OUT leaves bigint, OUT dense bigint,
                          OUT heads bigint, OUT entries bigint)
LANGUAGE sql AS $$
    SELECT count(*), count(*) FILTER (WHERE s.layout = 'dense'),
           count(*) FILTER (WHERE s.layout = 'heads'), sum(s.live_items)
    FROM generate_series(1, (SELECT nblocks - 1 FROM pagebtree_metapage(idx))) b,
         LATERAL pagebtree_page_stats(idx, b) s
    WHERE s.page_type = 'leaf'
$$;

-- One row per index of a table: leaf layouts, verifier, size against btree.
CREATE FUNCTION ld_summary(tbl regclass)
RETURNS TABLE (index_name name, leaves bigint, dense bigint, heads bigint,
               entries bigint, checked boolean)
LANGUAGE sql AS $$
    SELECT c.relname, l.leaves, l.dense, l.heads, l.entries,
           pagebtree_check(c.oid, true) IS NOT NULL
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         JOIN pg_am a ON a.oid = c.relam, LATERAL ld_leaves(c.oid) l
    WHERE i.indrelid = tbl AND a.amname = 'pagebtree'
    ORDER BY c.relname
$$;

--
-- 1. A small dense page, shown in full: ten consecutive int8 keys make one
--    leaf; its items are assembled from the prefix, the tail and the TID.
--
CREATE TABLE ld_small (id int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO ld_small SELECT i, 1000 + i FROM generate_series(1, 10) i;
CREATE INDEX ld_small_k ON ld_small USING pagebtree (k) WITH (delta = off);
SELECT blkno, page_type, layout, level, live_items, flags
FROM pagebtree_page_stats('ld_small_k', (SELECT root FROM pagebtree_metapage('ld_small_k')));
SELECT itemno, heap_tid, item_length, data
FROM pagebtree_page_items('ld_small_k', (SELECT root FROM pagebtree_metapage('ld_small_k')));
-- inserts inside the window (which starts at the first key on the rightmost
-- leaf) set a bit each; the page stays dense
INSERT INTO ld_small VALUES (11, 1500), (12, 1020), (13, 1015);
SELECT layout, live_items
FROM pagebtree_page_stats('ld_small_k', (SELECT root FROM pagebtree_metapage('ld_small_k')));
SELECT itemno, heap_tid, data
FROM pagebtree_page_items('ld_small_k', (SELECT root FROM pagebtree_metapage('ld_small_k')));
SELECT * FROM pbt_verify(ld_queries('ld_small', 'k', 1000, 1020));
-- a second entry for an existing key (another heap TID) converts the page
-- to heads in place
INSERT INTO ld_small VALUES (14, 1005);
SELECT layout, live_items
FROM pagebtree_page_stats('ld_small_k', (SELECT root FROM pagebtree_metapage('ld_small_k')));
SELECT itemno, heap_tid, data
FROM pagebtree_page_items('ld_small_k', (SELECT root FROM pagebtree_metapage('ld_small_k')))
WHERE itemno BETWEEN 4 AND 7;
SELECT pagebtree_check('ld_small_k', true);
SELECT * FROM pbt_verify(ld_queries('ld_small', 'k', 1000, 1020));
-- so does a key below the window
TRUNCATE ld_small;
INSERT INTO ld_small SELECT i, 1000 + i FROM generate_series(1, 10) i;
REINDEX INDEX ld_small_k;
INSERT INTO ld_small VALUES (11, 1000);
SELECT layout, live_items
FROM pagebtree_page_stats('ld_small_k', (SELECT root FROM pagebtree_metapage('ld_small_k')));
SELECT pagebtree_check('ld_small_k', true);
SELECT * FROM pbt_verify(ld_queries('ld_small', 'k', 1000, 1020));

--
-- 2. int8 keys: bulk build of consecutive keys, then inserts with gaps,
--    descending and in random order, duplicates from non-HOT updates, and
--    deletes with VACUUM.
--
CREATE TABLE ld8 (id int, k int8, kd int8, kb int8, v int)
WITH (autovacuum_enabled = off);
INSERT INTO ld8 SELECT i, i, i, i, i FROM generate_series(1, 20000) i;
CREATE INDEX ld8_auto ON ld8 USING pagebtree (k) WITH (delta = off);
CREATE INDEX ld8_dense ON ld8 USING pagebtree (kd) WITH (delta = off, layout = dense);
CREATE INDEX ld8_bt ON ld8 USING btree (kb);
VACUUM ANALYZE ld8;
-- every leaf is dense; each holds fillfactor (90%) of a dense page
SELECT * FROM ld_summary('ld8');
SELECT (SELECT entries / leaves FROM ld_leaves('ld8_auto')) AS entries_per_leaf,
       pg_relation_size('ld8_auto') <= 0.45 * pg_relation_size('ld8_bt') AS auto_small,
       pg_relation_size('ld8_dense') <= 0.45 * pg_relation_size('ld8_bt') AS dense_small;
EXPLAIN (COSTS OFF) SELECT k FROM ld8 WHERE k BETWEEN 100 AND 200;
EXPLAIN (COSTS OFF) SELECT kd FROM ld8 WHERE kd < 500 ORDER BY kd DESC LIMIT 3;
SELECT * FROM pbt_verify(ld_queries('ld8', 'k', 1, 20000));
SELECT * FROM pbt_verify(ld_queries('ld8', 'kd', 1, 20000));

-- ascending inserts: the rightmost leaf fills its window, then splits
-- moving no entries, so the leaves they leave behind hold a whole window
-- (1,293 entries), not fillfactor of it like the bulk-built ones
INSERT INTO ld8 SELECT i, i, i, i, i FROM generate_series(20001, 30000) i;
SELECT * FROM ld_summary('ld8');
SELECT s.live_items, count(*) AS leaves
FROM generate_series(1, (SELECT nblocks - 1 FROM pagebtree_metapage('ld8_auto'))) b,
     LATERAL pagebtree_page_stats('ld8_auto', b) s
WHERE s.page_type = 'leaf' GROUP BY 1 ORDER BY 1 DESC;
-- keys with gaps (every third, ascending)
INSERT INTO ld8 SELECT i, i, i, i, i FROM generate_series(40000, 70000, 3) i;
SELECT * FROM ld_summary('ld8');
-- descending inserts below the smallest key
INSERT INTO ld8 SELECT i, i, i, i, i FROM generate_series(0, -8000, -1) i;
SELECT * FROM ld_summary('ld8');
-- random order into an empty range
INSERT INTO ld8 SELECT i, i, i, i, i FROM generate_series(100001, 110000) i
ORDER BY (i * 7919) % 10007;
SELECT * FROM ld_summary('ld8');
VACUUM ANALYZE ld8;
SELECT * FROM pbt_verify(ld_queries('ld8', 'k', 1, 110000));
SELECT * FROM pbt_verify(ld_queries('ld8', 'kd', 1, 110000));
SELECT * FROM pbt_verify(ld_queries('ld8', 'k', -8000, 0));
SELECT * FROM pbt_verify(ld_queries('ld8', 'kd', 40000, 70000));

-- non-HOT updates (v is indexed): every seventh key gets a second entry
-- with the new row version's TID; dense leaves that get one turn into heads
CREATE INDEX ld8_v ON ld8 USING btree (v);
SELECT dense AS auto_dense, heads AS auto_heads FROM ld_leaves('ld8_auto') \gset
SELECT dense AS dense_dense, heads AS dense_heads FROM ld_leaves('ld8_dense') \gset
UPDATE ld8 SET v = -v WHERE k BETWEEN 1 AND 20000 AND k % 7 = 0;
SELECT dense < :auto_dense AS fewer_dense, heads > :auto_heads AS more_heads
FROM ld_leaves('ld8_auto');
SELECT dense < :dense_dense AS fewer_dense, heads > :dense_heads AS more_heads
FROM ld_leaves('ld8_dense');
SELECT index_name, entries, checked FROM ld_summary('ld8');
SELECT * FROM pbt_verify(ld_queries('ld8', 'k', 1, 20000));
SELECT * FROM pbt_verify(ld_queries('ld8', 'kd', 1, 20000));

-- deletes and VACUUM: dense pages lose bits, empty ones are deleted, and
-- later inserts fill the holes
DELETE FROM ld8 WHERE k % 5 = 0 OR k BETWEEN 101000 AND 104000;
VACUUM ld8;
SELECT index_name, entries, checked FROM ld_summary('ld8');
INSERT INTO ld8 SELECT i, i, i, i, i FROM generate_series(101000, 104000, 2) i;
VACUUM ANALYZE ld8;
SELECT index_name, entries, checked FROM ld_summary('ld8');
SELECT * FROM pbt_verify(ld_queries('ld8', 'k', 1, 110000));
SELECT * FROM pbt_verify(ld_queries('ld8', 'kd', 100000, 110000));

-- Keys with gaps: every third key takes three slots of a dense page, more
-- bytes than as heads, and a full heads page of them spans more tails than
-- a dense page holds, so both indexes build heads leaves.  As the gaps are
-- filled, split halves become dense: with layout = dense as soon as they
-- fit, with auto once they are also smaller than heads.
CREATE TABLE ldg (id int, k int8, kd int8) WITH (autovacuum_enabled = off);
INSERT INTO ldg SELECT i, i, i FROM generate_series(1, 30000, 3) i;
CREATE INDEX ldg_auto ON ldg USING pagebtree (k) WITH (delta = off);
CREATE INDEX ldg_dense ON ldg USING pagebtree (kd) WITH (delta = off, layout = dense);
SELECT * FROM ld_summary('ldg');
INSERT INTO ldg SELECT i, i, i FROM generate_series(30001, 45000, 3) i;
SELECT * FROM ld_summary('ldg');
INSERT INTO ldg SELECT i, i, i FROM generate_series(2, 30000, 3) i;
INSERT INTO ldg SELECT i, i, i FROM generate_series(3, 30000, 3) i;
SELECT * FROM ld_summary('ldg');
VACUUM ANALYZE ldg;
SELECT * FROM pbt_verify(ld_queries('ldg', 'k', 1, 45000));
SELECT * FROM pbt_verify(ld_queries('ldg', 'kd', 1, 45000));

--
-- 3. int4, date and timestamp keys (timestamps one second apart are not
--    dense, microseconds apart they are).
--
CREATE TABLE ldt (id int, i4 int4, i4d int4, d date, dd date,
                  ts timestamp, tsd timestamp, tsu timestamp)
WITH (autovacuum_enabled = off);
INSERT INTO ldt
SELECT i, i, i, date '2000-01-01' + i, date '2000-01-01' + i,
       timestamp '2000-01-01' + i * interval '1 second',
       timestamp '2000-01-01' + i * interval '1 second',
       timestamp '2000-01-01' + i * interval '1 microsecond'
FROM generate_series(1, 6000) i;
CREATE INDEX ldt_i4 ON ldt USING pagebtree (i4) WITH (delta = off);
CREATE INDEX ldt_i4d ON ldt USING pagebtree (i4d) WITH (delta = off, layout = dense);
CREATE INDEX ldt_d ON ldt USING pagebtree (d) WITH (delta = off);
CREATE INDEX ldt_dd ON ldt USING pagebtree (dd) WITH (delta = off, layout = dense);
CREATE INDEX ldt_ts ON ldt USING pagebtree (ts) WITH (delta = off);
CREATE INDEX ldt_tsd ON ldt USING pagebtree (tsd) WITH (delta = off, layout = dense);
CREATE INDEX ldt_tsu ON ldt USING pagebtree (tsu DESC) WITH (delta = off);
SELECT * FROM ld_summary('ldt');
-- inserts: descending and random order below and above the built range
INSERT INTO ldt
SELECT i, i, i, date '2000-01-01' + i, date '2000-01-01' + i,
       timestamp '2000-01-01' + i * interval '1 second',
       timestamp '2000-01-01' + i * interval '1 second',
       timestamp '2000-01-01' + i * interval '1 microsecond'
FROM generate_series(0, -3000, -1) i;
INSERT INTO ldt
SELECT i, i, i, date '2000-01-01' + i, date '2000-01-01' + i,
       timestamp '2000-01-01' + i * interval '1 second',
       timestamp '2000-01-01' + i * interval '1 second',
       timestamp '2000-01-01' + i * interval '1 microsecond'
FROM generate_series(6001, 9000) i ORDER BY (i * 7919) % 3001;
DELETE FROM ldt WHERE id % 4 = 1;
VACUUM ANALYZE ldt;
SELECT index_name, entries, checked FROM ld_summary('ldt');
SELECT * FROM pbt_verify(ld_queries('ldt', 'i4', -3000, 9000));
SELECT * FROM pbt_verify(ld_queries('ldt', 'i4d', -3000, 9000));
SELECT * FROM pbt_verify(ld_queries('ldt', 'd', -3000, 9000, '(date ''2000-01-01'' + %s)'));
SELECT * FROM pbt_verify(ld_queries('ldt', 'dd', -3000, 9000, '(date ''2000-01-01'' + %s)'));
SELECT * FROM pbt_verify(ld_queries('ldt', 'ts', -3000, 9000,
                                   '(timestamp ''2000-01-01'' + %s * interval ''1 second'')'));
SELECT * FROM pbt_verify(ld_queries('ldt', 'tsd', -3000, 9000,
                                   '(timestamp ''2000-01-01'' + %s * interval ''1 second'')'));
SELECT * FROM pbt_verify(ld_queries('ldt', 'tsu', -3000, 9000,
                                   '(timestamp ''2000-01-01'' + %s * interval ''1 microsecond'')'));

--
-- 4. Two columns: dense runs of the second column within each value of the
--    first, and cross-column scans.
--
CREATE TABLE ldm (id int, g int4, s int4) WITH (autovacuum_enabled = off);
INSERT INTO ldm SELECT i, i / 2000, i % 2000 FROM generate_series(1, 12000) i;
CREATE INDEX ldm_gs ON ldm USING pagebtree (g, s) WITH (delta = off);
SELECT * FROM ld_summary('ldm');
INSERT INTO ldm SELECT i, 7, i FROM generate_series(1, 3000) i ORDER BY (i * 7919) % 3001;
VACUUM ANALYZE ldm;
SELECT index_name, entries, checked FROM ld_summary('ldm');
SELECT * FROM pbt_verify(ARRAY[
    'SELECT id FROM ldm WHERE g = 3',
    'SELECT id FROM ldm WHERE g = 7 AND s BETWEEN 500 AND 1500',
    'SELECT id FROM ldm WHERE g = 7 AND s = ANY (''{-1, 0, 1999, 2000, 2999, 3000}'')',
    'SELECT id FROM ldm WHERE g >= 2 AND g < 4 AND s > 1990',
    'SELECT g, s FROM ldm WHERE g = 5 ORDER BY g DESC, s DESC LIMIT 10',
    'SELECT g, s FROM ldm ORDER BY g, s',
    'SELECT count(*) FROM ldm WHERE s = 100'
]);

--
-- 5. Where dense pages cannot be: forcing layout = dense gives heads leaves
--    for keys of different lengths; with INCLUDE columns, or where keys are
--    compared with the operator class (comparator mode), the option is
--    ignored with a NOTICE and the leaves are auto's (semidense, plain).
--
CREATE TABLE ldx (id int, t text COLLATE "C", n numeric, k int8)
WITH (autovacuum_enabled = off);
INSERT INTO ldx SELECT i, md5(i::text), i, i FROM generate_series(1, 3000) i;
CREATE INDEX ldx_t ON ldx USING pagebtree (t) WITH (delta = off, layout = dense);
CREATE INDEX ldx_incl ON ldx USING pagebtree (k) INCLUDE (id) WITH (delta = off, layout = dense);
SELECT * FROM ld_summary('ldx');
INSERT INTO ldx SELECT i, md5(i::text), i, i FROM generate_series(3001, 4000) i;
SELECT index_name, dense, entries, checked FROM ld_summary('ldx');
-- a comparator-mode key: the option is ignored with a NOTICE, leaves are plain
SET client_min_messages = notice;
CREATE INDEX ldx_n ON ldx USING pagebtree (n) WITH (delta = off, layout = dense);
RESET client_min_messages;
SELECT DISTINCT layout FROM pagebtree_layout_summary('ldx_n');
-- switching an index away from dense: later splits make heads halves
CREATE INDEX ldx_k ON ldx USING pagebtree (k) WITH (delta = off, layout = dense);
SELECT dense > 0 AS dense, heads FROM ld_leaves('ldx_k');
ALTER INDEX ldx_k SET (layout = heads);
UPDATE ldx SET id = -id WHERE k % 2 = 0;
SELECT dense < (SELECT leaves FROM ld_leaves('ldx_k')) AS some_heads,
       pagebtree_check('ldx_k', true) IS NOT NULL AS checked
FROM ld_leaves('ldx_k');
DROP INDEX ldx_incl;
SELECT * FROM pbt_verify(ARRAY[
    'SELECT k AS c FROM ldx WHERE k BETWEEN 10 AND 50',
    'SELECT id FROM ldx WHERE k = 77',
    'SELECT t FROM ldx WHERE t > ''f'' ORDER BY t DESC LIMIT 20'
]);

-- Inserts into an existing index.  Interleaved ascending ids of 20
-- partitions, (t, id): a split puts each partition's ids in dense pages of
-- their own (partition detection), and appending beyond a dense page's
-- window moves no records.  Dense keys in random order: a leaf that would
-- split converts to dense instead.  Both end far below btree's size.
CREATE TABLE ldp (id int, t text COLLATE "C", k int8, tb text COLLATE "C", kb int8)
WITH (autovacuum_enabled = off);
CREATE INDEX ldp_tk ON ldp USING pagebtree (t, k) WITH (delta = off);
CREATE INDEX ldp_tk_bt ON ldp USING btree (tb, kb);
INSERT INTO ldp SELECT i, 'tenant_' || (i % 20), i / 20, 'tenant_' || (i % 20), i / 20
FROM generate_series(1, 60000) i;
SELECT dense >= 0.9 * leaves AS mostly_dense,
       pg_relation_size('ldp_tk') < 0.3 * pg_relation_size('ldp_tk_bt') AS small,
       pagebtree_check('ldp_tk', true) IS NOT NULL AS checked
FROM ld_leaves('ldp_tk');
SELECT * FROM pbt_verify(ARRAY[
    'SELECT k AS c FROM ldp WHERE t = ''tenant_7'' AND k BETWEEN 10 AND 500',
    'SELECT id FROM ldp WHERE t = ''tenant_13'' AND k = 2999',
    'SELECT t, k FROM ldp WHERE t > ''tenant_18'' ORDER BY t, k LIMIT 40',
    'SELECT t, k FROM ldp WHERE t < ''tenant_10'' ORDER BY t DESC, k DESC LIMIT 40'
]);
CREATE TABLE ldr (id int, k int8, kb int8) WITH (autovacuum_enabled = off);
CREATE INDEX ldr_k ON ldr USING pagebtree (k) WITH (delta = off);
CREATE INDEX ldr_k_bt ON ldr USING btree (kb);
INSERT INTO ldr SELECT i, i, i FROM generate_series(1, 60000) i ORDER BY md5(i::text);
SELECT dense >= 0.9 * leaves AS mostly_dense,
       pg_relation_size('ldr_k') < 0.5 * pg_relation_size('ldr_k_bt') AS small,
       pagebtree_check('ldr_k', true) IS NOT NULL AS checked
FROM ld_leaves('ldr_k');
SELECT * FROM pbt_verify(ld_queries('ldr', 'k', 1, 60000));

-- A split whose right half is one short item under a long high key: the
-- half is dense and must be planned with that high key, not with the room
-- a rightmost page keeps for one (the page is linked to its sibling only
-- after the rebuild).  Leaf 1 gets a 700-byte high key between long keys,
-- loses them to VACUUM, and is refilled with short keys at its end.
CREATE TABLE ldh (s text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX ldh_s ON ldh USING pagebtree (s) WITH (delta = off, fillfactor = 100);
INSERT INTO ldh SELECT 'a' || lpad(i::text, 4, '0') FROM generate_series(1, 20) i;
INSERT INTO ldh SELECT 'c' || repeat('z', 700) || lpad(i::text, 3, '0')
FROM generate_series(1, 40) i;
DELETE FROM ldh WHERE s >= 'c';
VACUUM ldh;
INSERT INTO ldh SELECT 'b' || lpad(i::text, 4, '0') FROM generate_series(1, 2000) i;
SELECT pagebtree_check('ldh_s', true) IS NOT NULL AS checked;
SELECT * FROM pbt_verify(ARRAY[
    'SELECT s FROM ldh WHERE s BETWEEN ''a0010'' AND ''b0100''',
    'SELECT s FROM ldh WHERE s > ''b1990'' ORDER BY s DESC'
]);

-- clean up
DROP TABLE ld_small, ld8, ldg, ldt, ldm, ldx, ldp, ldr, ldh;
DROP FUNCTION ld_summary(regclass);
DROP FUNCTION ld_leaves(regclass);
DROP FUNCTION ld_queries(text, text, bigint, bigint, text);
