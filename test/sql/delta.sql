--
-- delta: the delta area (issue #22).  Inserts go to runs of pending
-- entries in side pages (pagebtree.delta_append_always makes that
-- independent of when pages are written), and every read path must see
-- them: each query is compared with a sequential scan (pbt_cmp), the
-- verifier checks runs against their leaves and the heap after each step.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET pagebtree.delta_append_always = on;

-- geometry: leaves per side page from the threshold, fixed at build
CREATE TABLE d_geo (k int8);
CREATE INDEX d_geo_a ON d_geo USING pagebtree (k) WITH (delta = on);
CREATE INDEX d_geo_b ON d_geo USING pagebtree (k) WITH (delta = on, delta_threshold = 2.5);
CREATE INDEX d_geo_c ON d_geo USING pagebtree (k) WITH (delta = on, delta_threshold = 20);
CREATE INDEX d_geo_true ON d_geo USING pagebtree (k) WITH (delta = true);
CREATE INDEX d_geo_off ON d_geo USING pagebtree (k) WITH (delta = off);
-- (the default threshold is 5% of a page (G = 16) when preloaded, else 10%
-- (G = 8): shown as "default")
SELECT i.relname,
       CASE WHEN i.relname IN ('d_geo_a', 'd_geo_true') AND
                 m.delta_group = CASE WHEN current_setting('shared_preload_libraries') LIKE '%pagebtree%'
                                      THEN 16 ELSE 8 END
            THEN 'default' ELSE m.delta_group::text END AS delta_group
FROM pg_class i, LATERAL pagebtree_metapage(i.oid) m
WHERE i.relname LIKE 'd_geo_%' ORDER BY 1;
-- auto (the default): a delta area where leaf writes are costly, that is
-- without the resource manager (not preloaded), or for an index of at least
-- shared_buffers (test/t/001_crash_recovery.pl); never for a temporary one
CREATE INDEX d_geo_auto ON d_geo USING pagebtree (k) WITH (delta = auto);
CREATE INDEX d_geo_default ON d_geo USING pagebtree (k);
CREATE TEMP TABLE d_geo_tmp (k int8);
CREATE INDEX d_geo_tmp_k ON d_geo_tmp USING pagebtree (k);
SELECT i.relname,
       (m.delta_group > 0) = (i.relpersistence = 'p' AND
                              current_setting('shared_preload_libraries') NOT LIKE '%pagebtree%')
         AS as_expected
FROM pg_class i, LATERAL pagebtree_metapage(i.oid) m
WHERE i.relname IN ('d_geo_auto', 'd_geo_default', 'd_geo_tmp_k') ORDER BY 1;
DROP TABLE d_geo_tmp;
-- bad values are refused when set
CREATE INDEX d_geo_e ON d_geo USING pagebtree (k) WITH (delta_threshold = 0.5);
CREATE INDEX d_geo_e ON d_geo USING pagebtree (k) WITH (delta_threshold = -1);
CREATE INDEX d_geo_e ON d_geo USING pagebtree (k) WITH (delta_threshold = 30);
CREATE INDEX d_geo_e ON d_geo USING pagebtree (k) WITH (delta = maybe);
DROP TABLE d_geo;

-- 1. normalized keys (int8) with an INCLUDE column, keys in a scrambled order
CREATE TABLE d_int (k int8, pad int4, note text);
INSERT INTO d_int SELECT (i * 7919) % 100003, i, 'base' FROM generate_series(1, 20000) i;
CREATE INDEX d_int_k ON d_int USING pagebtree (k) INCLUDE (pad) WITH (delta = on);
INSERT INTO d_int SELECT (i * 7919) % 100003, i, 'new' FROM generate_series(20001, 26000) i;
-- runs hold pending entries, others were folded into their leaves
SELECT count(*) FILTER (WHERE entries > 0) > 0 AS has_runs,
       sum(folds) > 0 AS has_folds
FROM pagebtree_runs('d_int_k');
SELECT pagebtree_check('d_int_k', true);
SELECT * FROM pbt_cmp('SELECT k, pad FROM d_int WHERE k BETWEEN 30000 AND 60000');
SELECT * FROM pbt_cmp('SELECT k, pad FROM d_int WHERE k BETWEEN 30000 AND 60000', 'indexonly');
SELECT * FROM pbt_cmp('SELECT k, pad FROM d_int WHERE k BETWEEN 30000 AND 60000', 'bitmap');
SELECT * FROM pbt_cmp('SELECT k FROM d_int WHERE k > 50000 ORDER BY k');
SELECT * FROM pbt_cmp('SELECT k FROM d_int WHERE k < 50000 ORDER BY k DESC');
SELECT * FROM pbt_cmp('SELECT k, note FROM d_int WHERE k = ANY (ARRAY(SELECT (i * 7919) % 100003 FROM generate_series(19990, 20030) i))');
SELECT * FROM pbt_cmp('SELECT k FROM d_int ORDER BY k DESC LIMIT 500');
-- every row is found by its key (18 would sort one side incrementally)
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_incremental_sort = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM d_int a WHERE NOT EXISTS (SELECT FROM d_int b WHERE b.k = a.k AND b.pad = a.pad);
SELECT count(*) FROM d_int a WHERE NOT EXISTS (SELECT FROM d_int b WHERE b.k = a.k AND b.pad = a.pad);
RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_incremental_sort;

-- a cursor going back and forth over pages with runs
BEGIN;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
DECLARE c SCROLL CURSOR FOR SELECT k FROM d_int WHERE k BETWEEN 40000 AND 40600 ORDER BY k;
FETCH 40 FROM c;
FETCH BACKWARD 15 FROM c;
FETCH 5 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 3 FROM c;
COMMIT;
SELECT k FROM d_int WHERE k BETWEEN 40000 AND 40600 ORDER BY k OFFSET 20 LIMIT 5;

-- a cursor that turns where its first batch started, below and above a
-- pending entry merged into it (it came back twice)
CREATE TABLE d_turn (k int8) WITH (autovacuum_enabled = off);
INSERT INTO d_turn SELECT 2 * i FROM generate_series(1, 1000) i;
CREATE INDEX d_turn_k ON d_turn USING pagebtree (k) WITH (delta = on);
INSERT INTO d_turn VALUES (501), (1499);
SELECT sum(entries) AS pending FROM pagebtree_runs('d_turn_k');
BEGIN;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
DECLARE c SCROLL CURSOR FOR SELECT k FROM d_turn WHERE k >= 501 ORDER BY k;
FETCH 3 FROM c;
FETCH BACKWARD 5 FROM c;
CLOSE c;
DECLARE c SCROLL CURSOR FOR SELECT k FROM d_turn WHERE k >= 501 ORDER BY k;
FETCH 1 FROM c;
FETCH BACKWARD 1 FROM c;
CLOSE c;
DECLARE c SCROLL CURSOR FOR SELECT k FROM d_turn WHERE k <= 1499 ORDER BY k DESC;
FETCH 3 FROM c;
FETCH BACKWARD 5 FROM c;
COMMIT;
DROP TABLE d_turn;

-- a merge join (mark and restore) over pending entries
SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_seqscan = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM d_int a JOIN d_int b USING (k) WHERE a.k < 10000;
SELECT count(*) FROM d_int a JOIN d_int b USING (k) WHERE a.k < 10000;
RESET enable_hashjoin; RESET enable_nestloop; RESET enable_seqscan; RESET enable_sort;
SELECT count(*) FROM d_int a JOIN d_int b USING (k) WHERE a.k < 10000;

-- 2. VACUUM drops dead pending entries and folds the rest
DELETE FROM d_int WHERE pad % 3 = 0;
VACUUM d_int;
SELECT coalesce(sum(entries), 0) AS pending FROM pagebtree_runs('d_int_k');
SELECT pagebtree_check('d_int_k', true);
SELECT * FROM pbt_cmp('SELECT k, pad FROM d_int WHERE k BETWEEN 30000 AND 60000', 'indexonly');
-- without appends (delta = off) runs still fold at splits and VACUUM
INSERT INTO d_int SELECT (i * 7919) % 100003, i, 'again' FROM generate_series(26001, 30000) i;
ALTER INDEX d_int_k SET (delta = off);
INSERT INTO d_int SELECT (i * 104729) % 100003, i, 'off' FROM generate_series(30001::int8, 36000) i;
SELECT pagebtree_check('d_int_k', true);
SELECT * FROM pbt_cmp('SELECT k FROM d_int WHERE k BETWEEN 1000 AND 90000 ORDER BY k');
SELECT * FROM pbt_cmp('SELECT k, note FROM d_int WHERE k BETWEEN 1000 AND 90000');
VACUUM d_int;
SELECT coalesce(sum(entries), 0) AS pending FROM pagebtree_runs('d_int_k');
ALTER INDEX d_int_k SET (delta = on);

-- 3. rebuilds keep the delta area and start with empty runs
REINDEX INDEX d_int_k;
SELECT m.delta_group > 0 AS has_delta_area, coalesce(sum(r.entries), 0) AS pending
FROM pagebtree_metapage('d_int_k') m LEFT JOIN pagebtree_runs('d_int_k') r ON true
GROUP BY 1;
INSERT INTO d_int SELECT (i * 31) % 100003, i, 'r' FROM generate_series(1, 2000) i;
CLUSTER d_int USING d_int_k;
INSERT INTO d_int SELECT (i * 37) % 100003, i, 'c' FROM generate_series(1, 2000) i;
SELECT pagebtree_check('d_int_k', true);
VACUUM FULL d_int;
INSERT INTO d_int SELECT (i * 41) % 100003, i, 'f' FROM generate_series(1, 2000) i;
SELECT pagebtree_check('d_int_k', true);
SELECT * FROM pbt_cmp('SELECT k FROM d_int WHERE k BETWEEN 20000 AND 25000 ORDER BY k DESC');
TRUNCATE d_int;
INSERT INTO d_int SELECT (i * 7919) % 100003, i, 't' FROM generate_series(1, 3000) i;
SELECT pagebtree_check('d_int_k', true);
SELECT * FROM pbt_cmp('SELECT k FROM d_int WHERE k > 70000 ORDER BY k');
DROP TABLE d_int;

-- 4. unique checks see pending entries
CREATE TABLE d_uniq (k int4, v text);
CREATE UNIQUE INDEX d_uniq_k ON d_uniq USING pagebtree (k) WITH (delta = on);
INSERT INTO d_uniq SELECT (i * 7919) % 20011, 'a' FROM generate_series(1, 5000) i;
SELECT sum(entries) > 0 AS has_pending FROM pagebtree_runs('d_uniq_k');
INSERT INTO d_uniq VALUES ((4999 * 7919) % 20011, 'dup');
-- a key whose entry is pending in a run, and one on its leaf
SELECT count(*) AS dups FROM d_uniq WHERE k IN ((4999 * 7919) % 20011, (3 * 7919) % 20011);
INSERT INTO d_uniq VALUES ((3 * 7919) % 20011, 'dup');
UPDATE d_uniq SET k = k + 1 WHERE k = (17 * 7919) % 20011 AND NOT EXISTS
    (SELECT FROM d_uniq WHERE k = (17 * 7919) % 20011 + 1);
SELECT pagebtree_check('d_uniq_k', true);
SELECT count(*), count(DISTINCT k) FROM d_uniq;
DROP TABLE d_uniq;

-- 5. comparator keys (float8) and NULLs, with backward scans
CREATE TABLE d_flt (f float8, g int);
INSERT INTO d_flt SELECT ((i * 7919) % 10007) / 7.0, i FROM generate_series(1, 8000) i;
CREATE INDEX d_flt_f ON d_flt USING pagebtree (f DESC NULLS LAST, g) WITH (delta = on);
INSERT INTO d_flt SELECT CASE WHEN i % 10 = 0 THEN NULL ELSE ((i * 7919) % 10007) / 7.0 END, i
FROM generate_series(8001, 11000) i;
SELECT key_mode FROM pagebtree_metapage('d_flt_f');
SELECT sum(entries) > 0 AS has_pending FROM pagebtree_runs('d_flt_f');
SELECT pagebtree_check('d_flt_f', true);
SELECT * FROM pbt_cmp('SELECT f, g FROM d_flt WHERE f BETWEEN 100 AND 900 ORDER BY f DESC, g');
SELECT * FROM pbt_cmp('SELECT f, g FROM d_flt WHERE f < 300 ORDER BY f, g DESC');
SELECT * FROM pbt_cmp('SELECT g FROM d_flt WHERE f IS NULL', 'bitmap');
SELECT * FROM pbt_cmp('SELECT f, g FROM d_flt WHERE f = ANY (''{1,2,3,100,714.2857142857143}'')');
DROP TABLE d_flt;

-- 6. unlogged and temporary tables
CREATE UNLOGGED TABLE d_unl (k int8);
CREATE INDEX d_unl_k ON d_unl USING pagebtree (k) WITH (delta = on);
INSERT INTO d_unl SELECT (i * 7919) % 100003 FROM generate_series(1, 5000) i;
SELECT pagebtree_check('d_unl_k', true);
SELECT * FROM pbt_cmp('SELECT k FROM d_unl WHERE k BETWEEN 500 AND 50000 ORDER BY k DESC');
CREATE TEMP TABLE d_tmp (k int8);
CREATE INDEX d_tmp_k ON d_tmp USING pagebtree (k) WITH (delta = on);
INSERT INTO d_tmp SELECT (i * 7919) % 100003 FROM generate_series(1, 5000) i;
SELECT pagebtree_check('d_tmp_k', true);
SELECT * FROM pbt_cmp('SELECT k FROM d_tmp WHERE k BETWEEN 500 AND 50000 ORDER BY k');
DROP TABLE d_unl, d_tmp;

-- 7. a leaf of one long key's duplicates, which its prefix stores in a few
-- bytes each, with pending entries on both sides of them that do not share
-- it: the leaf's items and its run fit in no two pages.  The split keeps
-- the left entry pending (the left half's run) and inserts the new entry
-- again; this failed with "could not find a split point".  (With
-- deduplicate_items the duplicates make a lists leaf, where the three
-- keys fit: the case needs heads leaves.)
CREATE TABLE d_dup (id serial, s text COLLATE "C");
CREATE INDEX d_dup_s ON d_dup USING pagebtree (s)
  WITH (delta = on, delta_threshold = 20, deduplicate_items = off);
INSERT INTO d_dup (s) SELECT 'b' || repeat(md5('x'), 12) FROM generate_series(1, 600);
INSERT INTO d_dup (s) VALUES ('a' || repeat(md5('y'), 12)), ('c' || repeat(md5('z'), 12));
SELECT leaf, entries FROM pagebtree_runs('d_dup_s') ORDER BY leaf;
INSERT INTO d_dup (s) SELECT 'b' || repeat(md5('x'), 12) FROM generate_series(1, 300);
SELECT leaf, entries FROM pagebtree_runs('d_dup_s') WHERE entries > 0 ORDER BY leaf;
SELECT pagebtree_check('d_dup_s', true);
SELECT * FROM pbt_cmp('SELECT s, id FROM d_dup WHERE s > '''' ORDER BY s, id');
SELECT * FROM pbt_cmp('SELECT id FROM d_dup WHERE s < ''b'' ORDER BY s DESC');
SELECT * FROM pbt_cmp('SELECT id FROM d_dup WHERE s > ''c''', 'bitmap');
SELECT count(*), count(DISTINCT s) FROM d_dup;
VACUUM d_dup;
SELECT pagebtree_check('d_dup_s', true);
SELECT * FROM pbt_cmp('SELECT s, id FROM d_dup WHERE s > '''' ORDER BY s DESC, id DESC');
DROP TABLE d_dup;
-- The same in a unique index, whose duplicates are deleted rows' entries:
-- the split leaves the new entry out and pbtinsert inserts it again from
-- the root, checking uniqueness again (the leaf was released meanwhile).
-- One transaction deletes them all, so that none is dead to everyone and
-- no deletion makes room instead of the split.
CREATE TABLE d_uq (id serial, s text COLLATE "C");
CREATE UNIQUE INDEX d_uq_s ON d_uq USING pagebtree (s)
  WITH (delta = on, delta_threshold = 20, deduplicate_items = off);
CREATE FUNCTION d_uq_churn(n int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..n LOOP
    INSERT INTO d_uq (s) VALUES ('b' || repeat(md5('x'), 12));
    DELETE FROM d_uq WHERE s = 'b' || repeat(md5('x'), 12);
  END LOOP;
END $$;
BEGIN;
SELECT d_uq_churn(600);
INSERT INTO d_uq (s) VALUES ('a' || repeat(md5('y'), 12)), ('c' || repeat(md5('z'), 12));
SELECT leaf, entries FROM pagebtree_runs('d_uq_s') ORDER BY leaf;
SET client_min_messages = debug1;
SELECT d_uq_churn(300);
RESET client_min_messages;
COMMIT;
SELECT leaf, entries FROM pagebtree_runs('d_uq_s') WHERE entries > 0 ORDER BY leaf;
INSERT INTO d_uq (s) VALUES ('b' || repeat(md5('x'), 12));
\set VERBOSITY terse
INSERT INTO d_uq (s) VALUES ('b' || repeat(md5('x'), 12));
INSERT INTO d_uq (s) VALUES ('a' || repeat(md5('y'), 12));
\set VERBOSITY default
SELECT pagebtree_check('d_uq_s', true);
SELECT * FROM pbt_cmp('SELECT s, id FROM d_uq WHERE s > '''' ORDER BY s, id');
SELECT left(s, 3), count(*) FROM d_uq GROUP BY 1 ORDER BY 1;
DROP TABLE d_uq;
DROP FUNCTION d_uq_churn;

-- 8. a full heads leaf whose keys fit one dense page becomes that page,
-- with its run, instead of splitting: ids arriving in random order above
-- the loaded ones fill four dense leaves (about 1,160 ids each), where
-- splits would leave six, some half full.
-- A checkpoint before each batch makes leaves clean, so that inserts go
-- to runs with the resource manager too.
CREATE TABLE d_conv (k int8) WITH (autovacuum_enabled = off);
INSERT INTO d_conv SELECT i FROM generate_series(1, 2000) i;
CREATE INDEX d_conv_k ON d_conv USING pagebtree (k) WITH (delta = on);
CREATE TABLE d_conv_new AS
  SELECT i AS k, row_number() OVER (ORDER BY md5(i::text)) / 200 AS batch
  FROM generate_series(2001, 4400) i;
SELECT format('CHECKPOINT; INSERT INTO d_conv SELECT k FROM d_conv_new WHERE batch = %s', b)
FROM generate_series(0, 12) b \gexec
SELECT sum(pages) FILTER (WHERE layout = 'dense') AS dense_leaves,
       sum(pages) <= 5 AS at_most_five_leaves
FROM pagebtree_layout_summary('d_conv_k') WHERE page_type = 'leaf';
SELECT pagebtree_check('d_conv_k', true);
SELECT * FROM pbt_cmp('SELECT k FROM d_conv WHERE k BETWEEN 1500 AND 4000 ORDER BY k DESC');
SELECT * FROM pbt_cmp('SELECT k FROM d_conv WHERE k > 1000', 'indexonly');
DROP TABLE d_conv, d_conv_new;

-- 9. The fold threshold in leaf groups.  With the resource manager a run
-- is folded when it would pass 5% of a page (23 int8 entries, stored
-- whole: they share fewer than 8 bytes).  Without it, where each fold
-- logs the leaf's shifted bytes, a subnode's run fills its whole slot
-- (1,008 bytes with 8 leaves per side page: 59 entries; 10% of a page,
-- the threshold elsewhere, holds 47).  50 keys into one clean subnode
-- (with the resource manager a leaf that a fold dirtied takes inserts
-- itself until a checkpoint writes it):
CREATE TABLE d_thr (k int8) WITH (autovacuum_enabled = off);
INSERT INTO d_thr SELECT 2 * i FROM generate_series(1, 20000) i;
CREATE INDEX d_thr_k ON d_thr USING pagebtree (k)
  WITH (delta = on, leaf_group_size = 4);
CHECKPOINT;
INSERT INTO d_thr SELECT 2 * i + 1 FROM generate_series(1000, 1049) i;
SELECT CASE m.wal_mode
         WHEN 'generic' THEN sum(r.entries) = 50 AND sum(r.folds) = 0
         ELSE sum(r.entries) <= 23 AND sum(r.folds) >= 1
       END AS folded_at_the_threshold
FROM pagebtree_metapage('d_thr_k') m, pagebtree_runs('d_thr_k') r
GROUP BY m.wal_mode;
SELECT * FROM pbt_cmp('SELECT k FROM d_thr WHERE k BETWEEN 1900 AND 2200 ORDER BY k');
DROP TABLE d_thr;

-- 10. Entries in a run store only the bytes after those they share with
-- the run's first entry (at most 255): URLs of 73 bytes, whose first 42
-- are the same, take about 84 bytes as a run's first entry and 42 after.
-- Readers, the verifier, folds and VACUUM see whole entries.
CREATE TABLE d_fc (s text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO d_fc SELECT 'https://www.example.com/electronics/item-' || md5(i::text)
FROM generate_series(1, 3000) i;
CREATE INDEX d_fc_s ON d_fc USING pagebtree (s) WITH (delta = on);
INSERT INTO d_fc SELECT 'https://www.example.com/electronics/item-' || md5(i::text)
FROM generate_series(3001, 3060) i;
SELECT sum(entries) AS pending, sum(bytes) < 60 * sum(entries) AS front_coded
FROM pagebtree_runs('d_fc_s');
SELECT pagebtree_check('d_fc_s', true);
SELECT * FROM pbt_cmp('SELECT s FROM d_fc WHERE s > ''https://www.example.com/electronics/item-8'' ORDER BY s');
-- point lookups compare a pending entry's bytes with the key's once: a
-- key pending three times (its copies after the first share more bytes
-- than the key has), and keys that are prefixes of pending entries
INSERT INTO d_fc SELECT 'https://www.example.com/electronics/item-' || x
FROM (VALUES (md5('dup')), (md5('dup')), (md5('dup')), (''), (left(md5('dup'), 5))) v(x);
SELECT * FROM pbt_cmp('SELECT s FROM d_fc WHERE s = ANY (ARRAY[''https://www.example.com/electronics/item-'',
  ''https://www.example.com/electronics/item-'' || left(md5(''dup''), 5),
  ''https://www.example.com/electronics/item-'' || left(md5(''dup''), 6),
  ''https://www.example.com/electronics/item-'' || md5(''dup''),
  ''https://www.example.com/electronics/item-'' || md5(''3030'')])');
SELECT * FROM pbt_cmp('SELECT s FROM d_fc WHERE s < ''https://www.example.com/electronics/item-4'' ORDER BY s DESC', 'indexonly');
SELECT * FROM pbt_cmp('SELECT s FROM d_fc WHERE s BETWEEN ''https://www.example.com/electronics/item-2'' AND ''https://www.example.com/electronics/item-3''', 'bitmap');
DELETE FROM d_fc WHERE s LIKE '%item-a%';
VACUUM d_fc;
SELECT pagebtree_check('d_fc_s', true);
SELECT * FROM pbt_cmp('SELECT s FROM d_fc WHERE s > '''' ORDER BY s');
DROP TABLE d_fc;

-- 11. A run is folded while its leaf can still take it.  A uuid entry
-- takes 24 bytes in a run and about 30 on a leaf, so a run at a 10% threshold
-- may not fit the 10% a bulk-built leaf keeps free, and its fold would
-- split the leaf.  3,000 keys into an index of 20,000 (72 leaves): the
-- leaves stay as many (folding only at the threshold, 80).
CREATE TABLE d_fit (k uuid) WITH (autovacuum_enabled = off);
INSERT INTO d_fit SELECT md5(i::text)::uuid FROM generate_series(1, 20000) i;
CREATE INDEX d_fit_k ON d_fit USING pagebtree (k)
  WITH (delta = on, delta_threshold = 10);
CREATE TEMP TABLE d_fit_before AS
SELECT sum(pages) AS leaves FROM pagebtree_layout_summary('d_fit_k')
WHERE page_type = 'leaf';
INSERT INTO d_fit SELECT md5((i + 100000)::text)::uuid
FROM generate_series(1, 3000) i;
SELECT sum(s.pages) <= b.leaves + 2 AS few_splits, sum(r.folds) > 0 AS folded
FROM pagebtree_layout_summary('d_fit_k') s, d_fit_before b,
     (SELECT sum(folds) AS folds FROM pagebtree_runs('d_fit_k')) r
WHERE s.page_type = 'leaf' GROUP BY b.leaves;
SELECT pagebtree_check('d_fit_k', true);
SELECT * FROM pbt_cmp('SELECT k FROM d_fit WHERE k > ''00000000-0000-0000-0000-000000000000'' ORDER BY k');
DROP TABLE d_fit, d_fit_before;

-- 12. A run rewritten without its first entry keeps that entry's bytes as
-- the others' reference, so that they take no more bytes than before (a
-- full leaf, whose run VACUUM cannot fold, loses the run's first entry).
CREATE TABLE d_ref (id int, s text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO d_ref SELECT i, 'https://www.example.com/electronics/item-' || md5(i::text)
FROM generate_series(1, 3000) i;
CREATE INDEX d_ref_s ON d_ref USING pagebtree (s) WITH (delta = on, fillfactor = 100);
INSERT INTO d_ref SELECT 10000 + i, 'https://www.example.com/electronics/item-0000' || i
FROM generate_series(1, 8) i;
CREATE TEMP TABLE d_ref_before AS
SELECT leaf, entries, bytes FROM pagebtree_runs('d_ref_s') WHERE entries > 0;
SELECT count(*) AS runs, min(entries) >= 2 AS several FROM d_ref_before;
-- the run's first entry: the first of the last inserted, which are pending
DELETE FROM d_ref WHERE id = (SELECT 10008 - entries + 1 FROM d_ref_before);
VACUUM d_ref;
SELECT r.entries = b.entries - 1 AS one_entry_less, r.bytes = b.bytes AS same_bytes
FROM pagebtree_runs('d_ref_s') r JOIN d_ref_before b USING (leaf);
SELECT pagebtree_check('d_ref_s', true);
INSERT INTO d_ref SELECT 20000 + i, 'https://www.example.com/electronics/item-0000x' || i
FROM generate_series(1, 3) i;
SELECT pagebtree_check('d_ref_s', true);
SELECT * FROM pbt_cmp('SELECT id FROM d_ref WHERE s < ''https://www.example.com/electronics/item-01'' ORDER BY s');
SELECT * FROM pbt_cmp('SELECT s FROM d_ref WHERE s < ''https://www.example.com/electronics/item-01'' ORDER BY s DESC', 'indexonly');
DROP TABLE d_ref, d_ref_before;

-- a point lookup that probes a fingerprint leaf merges the pending entries
-- of its key by heap TID, as btree returns equal keys
CREATE TABLE d_fp AS SELECT i AS id, i % 3000 AS a FROM generate_series(1, 15000) i;
CREATE INDEX d_fp_a ON d_fp USING pagebtree (a) WITH (layout = fingerprint, delta = on);
INSERT INTO d_fp SELECT 200000 + i, (i * 11) % 3000 FROM generate_series(1, 300) i;
SELECT count(*) > 0 AS pending FROM pagebtree_runs('d_fp_a') WHERE entries > 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT ctid FROM d_fp WHERE a = 11;
SELECT array_agg(ctid) = array_agg(ctid ORDER BY ctid) AS tid_order, count(*)
FROM (SELECT ctid FROM d_fp WHERE a = 11) s;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT pagebtree_check('d_fp_a', true);
DROP TABLE d_fp;

-- 13. VACUUM folds a run into a posting leaf, which the other key converts
-- to heads; VACUUM then reads the leaf's count through its new layout
-- (through the old one it read bytes of a heads hint, and raised "more
-- items than a page holds")
CREATE TABLE d_conv (k int8) WITH (autovacuum_enabled = off);
INSERT INTO d_conv SELECT 5000 FROM generate_series(1, 250);
CREATE INDEX d_conv_k ON d_conv USING pagebtree (k) WITH (delta = on);
INSERT INTO d_conv VALUES (5000 + (1::int8 << 40)), (5000 - (1::int8 << 40));
SELECT page_type, layout, live_items FROM pagebtree_layout_summary('d_conv_k') ORDER BY 1;
SELECT sum(entries) AS pending FROM pagebtree_runs('d_conv_k');
VACUUM d_conv;
SELECT page_type, layout, live_items FROM pagebtree_layout_summary('d_conv_k') ORDER BY 1;
SELECT sum(entries) AS pending FROM pagebtree_runs('d_conv_k');
SELECT pagebtree_check('d_conv_k', true);
SELECT * FROM pbt_cmp('SELECT k FROM d_conv WHERE k > 0', 'indexonly');
DROP TABLE d_conv;
