--
-- inspect: pagebtree_metapage, pagebtree_page_stats and pagebtree_page_items.
--
-- A small deterministic index is shown in full; for a larger one only
-- structural facts are printed (sibling links, levels, item counts), which do
-- not depend on exactly where pages split.
--
-- NOTICEs differ between server configurations (e.g. the one about
-- shared_preload_libraries at index build), so show warnings and up only.
-- Indexes are built WITH (delta = off): these tests read pages by block
-- number, and without preloading an index reserves blocks for its delta
-- area by default (delta.sql).
SET client_min_messages = warning;

CREATE TABLE ins (id int, k int) WITH (autovacuum_enabled = off);
INSERT INTO ins SELECT i, i * 10 FROM generate_series(1, 10) i;
CREATE INDEX ins_k ON ins USING pagebtree (k) WITH (delta = off);

-- wal_mode depends on shared_preload_libraries, so it is not shown as such
SELECT magic, to_hex(magic) AS magic_hex, version, root, level, key_mode,
       wal_mode IN ('custom', 'generic') AS wal_mode_ok, nblocks
FROM pagebtree_metapage('ins_k');
SELECT * FROM pagebtree_page_stats('ins_k', 0);
SELECT * FROM pagebtree_page_stats('ins_k', (SELECT root FROM pagebtree_metapage('ins_k')));
SELECT * FROM pagebtree_page_items('ins_k', (SELECT root FROM pagebtree_metapage('ins_k')));

-- an insert lands in order; a delete plus VACUUM leaves garbage or frees it
INSERT INTO ins VALUES (11, 55), (12, NULL), (13, -5);
SELECT live_items FROM pagebtree_page_stats('ins_k', (SELECT root FROM pagebtree_metapage('ins_k')));
SELECT itemno, heap_tid, item_length
FROM pagebtree_page_items('ins_k', (SELECT root FROM pagebtree_metapage('ins_k')));
DELETE FROM ins WHERE k IN (20, 55);
VACUUM ins;
SELECT live_items, garbage_size >= 0 AS garbage_ok
FROM pagebtree_page_stats('ins_k', (SELECT root FROM pagebtree_metapage('ins_k')));
SELECT itemno, heap_tid
FROM pagebtree_page_items('ins_k', (SELECT root FROM pagebtree_metapage('ins_k')));
SELECT pagebtree_check('ins_k', true);

-- key representation chosen per index
CREATE TABLE ins_types (i4 int4, i8 int8, d date, ts timestamp, o oid, b bool,
                        u uuid, tc text COLLATE "C", ba bytea, n numeric,
                        f8 float8, bp char(5), nm name, iv interval);
INSERT INTO ins_types
SELECT i, i, date '2020-01-01' + i, timestamp '2020-01-01' + i * interval '1 hour',
       i, i % 2 = 0, md5(i::text)::uuid, md5(i::text), decode(md5(i::text), 'hex'),
       i / 3.0, i / 3.0, i::text, i::text, i * interval '1 minute'
FROM generate_series(1, 100) i;
CREATE INDEX ins_types_i4 ON ins_types USING pagebtree (i4) WITH (delta = off);
CREATE INDEX ins_types_i8 ON ins_types USING pagebtree (i8 DESC) WITH (delta = off);
CREATE INDEX ins_types_d ON ins_types USING pagebtree (d) WITH (delta = off);
CREATE INDEX ins_types_ts ON ins_types USING pagebtree (ts) WITH (delta = off);
CREATE INDEX ins_types_o ON ins_types USING pagebtree (o) WITH (delta = off);
CREATE INDEX ins_types_b ON ins_types USING pagebtree (b) WITH (delta = off);
CREATE INDEX ins_types_u ON ins_types USING pagebtree (u) WITH (delta = off);
CREATE INDEX ins_types_tc ON ins_types USING pagebtree (tc) WITH (delta = off);
CREATE INDEX ins_types_ba ON ins_types USING pagebtree (ba) WITH (delta = off);
CREATE INDEX ins_types_multi ON ins_types USING pagebtree (i4, tc DESC NULLS LAST, d) WITH (delta = off);
CREATE INDEX ins_types_incl ON ins_types USING pagebtree (i4) INCLUDE (n, tc) WITH (delta = off);
CREATE INDEX ins_types_n ON ins_types USING pagebtree (n) WITH (delta = off);
CREATE INDEX ins_types_f8 ON ins_types USING pagebtree (f8) WITH (delta = off);
CREATE INDEX ins_types_bp ON ins_types USING pagebtree (bp) WITH (delta = off);
CREATE INDEX ins_types_nm ON ins_types USING pagebtree (nm) WITH (delta = off);
CREATE INDEX ins_types_iv ON ins_types USING pagebtree (iv) WITH (delta = off);
CREATE INDEX ins_types_mixed ON ins_types USING pagebtree (i4, n) WITH (delta = off);
SELECT c.relname, m.key_mode, pagebtree_check(c.oid, true) IS NOT NULL AS checked
FROM pg_class c, LATERAL pagebtree_metapage(c.oid) m
WHERE c.relname LIKE 'ins_types_%' AND c.relkind = 'i'
ORDER BY c.relname;

--
-- A tree with two levels.
--
CREATE TABLE ins2 (id int, k int) WITH (autovacuum_enabled = off);
INSERT INTO ins2 SELECT i, i FROM generate_series(1, 3000) i;
CREATE INDEX ins2_k ON ins2 USING pagebtree (k) WITH (delta = off);
INSERT INTO ins2 SELECT i, i FROM generate_series(3001, 4000) i;
SELECT pagebtree_check('ins2_k', true);
SELECT level >= 1 AS multi_level, root > 0 AS root_not_meta, key_mode
FROM pagebtree_metapage('ins2_k');
-- the root: an inner page at the metapage's level, flagged as root
SELECT page_type, level = (SELECT level FROM pagebtree_metapage('ins2_k')) AS level_ok,
       flags, prev, next, high_key IS NULL AS no_high_key
FROM pagebtree_page_stats('ins2_k', (SELECT root FROM pagebtree_metapage('ins2_k')));
-- every block except the metapage is a tree page
SELECT s.page_type, count(*) > 0 AS present
FROM generate_series(1, (SELECT nblocks - 1 FROM pagebtree_metapage('ins2_k'))) b,
     LATERAL pagebtree_page_stats('ins2_k', b) s
GROUP BY s.page_type ORDER BY 1;
-- walk the leaf level from the leftmost leaf along the right-links
CREATE TEMP TABLE ins2_leaves AS
WITH RECURSIVE down(blkno, lvl) AS (
    SELECT root, level FROM pagebtree_metapage('ins2_k')
    UNION ALL
    SELECT (SELECT child FROM pagebtree_page_items('ins2_k', d.blkno) ORDER BY itemno LIMIT 1),
           d.lvl - 1
    FROM down d WHERE d.lvl > 0
),
chain AS (
    SELECT 1 AS pos, s.* FROM down d, LATERAL pagebtree_page_stats('ins2_k', d.blkno) s
    WHERE d.lvl = 0
    UNION ALL
    SELECT c.pos + 1, s.* FROM chain c, LATERAL pagebtree_page_stats('ins2_k', c.next) s
    WHERE c.next <> -1
)
SELECT * FROM chain;
SELECT count(*) > 1 AS several_leaves,
       bool_and(page_type = 'leaf' AND level = 0) AS all_leaves,
       sum(live_items) AS entries,
       (SELECT count(*) FROM ins2) AS heap_rows,
       count(*) FILTER (WHERE high_key IS NULL) AS without_high_key,
       bool_and(high_key IS NULL = (next = -1)) AS only_rightmost_without_high_key,
       (SELECT prev FROM ins2_leaves WHERE pos = 1) AS leftmost_prev
FROM ins2_leaves;
-- left-links mirror right-links
SELECT count(*) AS broken_links
FROM ins2_leaves a JOIN ins2_leaves b ON b.pos = a.pos + 1
WHERE a.next <> b.blkno OR b.prev <> a.blkno;
-- every leaf has exactly one downlink in the level above
SELECT (SELECT count(*) FROM ins2_leaves) AS leaves,
       count(DISTINCT i.child) AS distinct_downlinks,
       count(*) FILTER (WHERE i.child NOT IN (SELECT blkno FROM ins2_leaves)) AS bad_downlinks
FROM generate_series(1, (SELECT nblocks - 1 FROM pagebtree_metapage('ins2_k'))) b,
     LATERAL pagebtree_page_stats('ins2_k', b) s,
     LATERAL pagebtree_page_items('ins2_k', b) i
WHERE s.page_type = 'inner' AND s.level = 1;
-- normalized keys compare as bytes: items ascend along the whole leaf level,
-- and each leaf's high key is an upper bound for its items
SELECT count(*) AS out_of_order
FROM (SELECT i.data, lag(i.data) OVER (ORDER BY l.pos, i.itemno) AS prev_data
      FROM ins2_leaves l, LATERAL pagebtree_page_items('ins2_k', l.blkno) i) x
WHERE prev_data >= data;
SELECT count(*) AS above_high_key
FROM ins2_leaves l, LATERAL pagebtree_page_items('ins2_k', l.blkno) i
WHERE l.high_key IS NOT NULL AND i.data > l.high_key;
-- heap TIDs of the leaf items are exactly the table's rows
SELECT count(*) AS tid_mismatches
FROM (SELECT i.heap_tid
      FROM ins2_leaves l, LATERAL pagebtree_page_items('ins2_k', l.blkno) i) x
FULL JOIN ins2 t ON t.ctid = x.heap_tid
WHERE x.heap_tid IS NULL OR t.ctid IS NULL;

-- bad block numbers
SELECT * FROM pagebtree_page_stats('ins_k', -1);
SELECT * FROM pagebtree_page_stats('ins_k', 1000);
SELECT * FROM pagebtree_page_items('ins_k', 0);

-- clean up
DROP TABLE ins, ins_types, ins2, ins2_leaves;
