--
-- build_and_dml: bulk build, then inserts (page splits at every position),
-- updates, deletes, aborted inserts, VACUUM, REINDEX [CONCURRENTLY],
-- CREATE INDEX CONCURRENTLY, CLUSTER, fillfactor, unlogged/temp/empty tables.
-- After every step the index passes pagebtree_check(idx, true) and a fixed
-- set of queries gives the same results through the index (index scan and
-- bitmap scan) as through a seqscan: "failed" must be {}.
--
-- NOTICEs differ between server configurations (e.g. the one about
-- shared_preload_libraries at index build), so show warnings and up only.
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
-- (pbt_cmp and pbt_verify come from 00_setup.sql)


CREATE TABLE bd (id int, k int, t text, f float8) WITH (autovacuum_enabled = off);

CREATE OR REPLACE FUNCTION bd_verify()
RETURNS TABLE (queries int, total_rows bigint, failed text[])
LANGUAGE sql AS $$
    SELECT * FROM pbt_verify(ARRAY[
        'SELECT id FROM bd WHERE k = 777',
        'SELECT id FROM bd WHERE k < 100',
        'SELECT id FROM bd WHERE k BETWEEN 2000 AND 2100',
        'SELECT id FROM bd WHERE k > 4900',
        'SELECT id FROM bd WHERE k IS NULL',
        'SELECT id FROM bd WHERE k = ANY (''{1,777,4999,-5,10005,NULL}'')',
        'SELECT k FROM bd ORDER BY k',
        'SELECT k FROM bd ORDER BY k DESC',
        'SELECT k FROM bd WHERE k > 2500 ORDER BY k LIMIT 50',
        'SELECT k FROM bd WHERE k < 2500 ORDER BY k DESC LIMIT 50',
        'SELECT count(*) FROM bd WHERE k >= 0',
        'SELECT id FROM bd WHERE t >= ''a'' AND t < ''b''',
        'SELECT id FROM bd WHERE t = md5(''42'')',
        'SELECT t FROM bd ORDER BY t',
        'SELECT t FROM bd WHERE t > ''f'' ORDER BY t DESC LIMIT 100',
        'SELECT id FROM bd WHERE t COLLATE "C" >= ''c'' AND t COLLATE "C" < ''d''',
        'SELECT id FROM bd WHERE t COLLATE "C" = ''dup'' AND k > 0',
        'SELECT t COLLATE "C", k FROM bd WHERE t COLLATE "C" > ''e'' ORDER BY t COLLATE "C", k LIMIT 300',
        'SELECT t COLLATE "C", k FROM bd ORDER BY t COLLATE "C" DESC, k DESC'
    ])
$$;

-- 1. Bulk build on a populated table.
INSERT INTO bd
SELECT i, CASE WHEN i % 101 = 0 THEN NULL ELSE (i * 7919) % 5000 END, md5(i::text), i / 3.0
FROM generate_series(1, 10000) i;
CREATE INDEX bd_k ON bd USING pagebtree (k);
CREATE INDEX bd_t ON bd USING pagebtree (t);
CREATE INDEX bd_tc ON bd USING pagebtree (t COLLATE "C", k);
ANALYZE bd;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT level > 0 AS multi_level FROM pagebtree_metapage('bd_k');
SELECT * FROM bd_verify();

-- 2. Inserts into the built tree, keys spread over the whole range.
INSERT INTO bd
SELECT i, CASE WHEN i % 101 = 0 THEN NULL ELSE (i * 7919) % 5000 END, md5(i::text), i / 3.0
FROM generate_series(10001, 20000) i;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 3. Ascending keys (rightmost splits) and descending keys (leftmost splits).
INSERT INTO bd SELECT 40000 + i, 5000 + i, md5((40000 + i)::text), i FROM generate_series(1, 4000) i;
INSERT INTO bd SELECT 48000 + i, -i, 'zz' || lpad((8000 - i)::text, 5, '0'), i FROM generate_series(1, 4000) i;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 4. Long runs of duplicates spanning several pages.
INSERT INTO bd SELECT 56000 + i, 777, 'dup', i FROM generate_series(1, 4000) i;
INSERT INTO bd SELECT 62000 + i, NULL, NULL, i FROM generate_series(1, 2000) i;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 5. Updates: of the indexed column (new index entries) and of another one.
UPDATE bd SET k = k + 1 WHERE id % 10 = 0;
UPDATE bd SET f = f + 1 WHERE id % 7 = 0;
UPDATE bd SET t = t || 'u' WHERE id % 11 = 0;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 6. Deletes (dead entries stay in the index until VACUUM).
DELETE FROM bd WHERE id % 3 = 0;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 7. Inserts of an aborted transaction.
BEGIN;
INSERT INTO bd SELECT 70000 + i, i % 6000, md5(i::text), i FROM generate_series(1, 5000) i;
ROLLBACK;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 8. VACUUM removes the dead entries.
VACUUM bd;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 9. Empty out a whole key range (many leaf pages), VACUUM, refill it.
DELETE FROM bd WHERE k BETWEEN 1000 AND 3000 OR k = 777;
VACUUM bd;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();
INSERT INTO bd SELECT 80000 + i, 1000 + (i * 7) % 2001, md5((80000 + i)::text), i FROM generate_series(1, 5000) i;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 10. REINDEX, REINDEX CONCURRENTLY, REINDEX TABLE.
REINDEX INDEX bd_k;
SELECT pagebtree_check('bd_k', true);
SELECT * FROM bd_verify();
REINDEX INDEX CONCURRENTLY bd_t;
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();
REINDEX TABLE bd;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 11. CREATE INDEX CONCURRENTLY, then more DML through all indexes.
CREATE INDEX CONCURRENTLY bd_f ON bd USING pagebtree (f DESC);
SELECT indisvalid FROM pg_index WHERE indexrelid = 'bd_f'::regclass;
SELECT pagebtree_check('bd_f', true);
INSERT INTO bd SELECT 90000 + i, i % 5000, md5(i::text), i * 1.5 FROM generate_series(1, 3000) i;
DELETE FROM bd WHERE id % 17 = 0;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT pagebtree_check('bd_f', true);
SELECT * FROM bd_verify();
SELECT * FROM pbt_verify(ARRAY[
    'SELECT id FROM bd WHERE f = 10',
    'SELECT id FROM bd WHERE f > 4000 AND f < 4100',
    'SELECT f FROM bd ORDER BY f DESC LIMIT 100',
    'SELECT f FROM bd ORDER BY f'
]);
DROP INDEX CONCURRENTLY bd_f;

-- 12. CLUSTER on a pagebtree index.
CLUSTER bd USING bd_k;
SELECT pagebtree_check('bd_k', true);
SELECT pagebtree_check('bd_t', true);
SELECT pagebtree_check('bd_tc', true);
SELECT * FROM bd_verify();

-- 13. fillfactor: a fuller index needs fewer pages; the option is stored.
CREATE TABLE bd_ff (id int, k int) WITH (autovacuum_enabled = off);
INSERT INTO bd_ff SELECT i, i FROM generate_series(1, 20000) i;
CREATE INDEX bd_ff_50 ON bd_ff USING pagebtree (k) WITH (fillfactor = 50);
CREATE INDEX bd_ff_100 ON bd_ff USING pagebtree (k) WITH (fillfactor = 100);
CREATE INDEX bd_ff_def ON bd_ff USING pagebtree (k);
SELECT pagebtree_check('bd_ff_50', true);
SELECT pagebtree_check('bd_ff_100', true);
SELECT pagebtree_check('bd_ff_def', true);
SELECT (SELECT nblocks FROM pagebtree_metapage('bd_ff_50')) >
       (SELECT nblocks FROM pagebtree_metapage('bd_ff_def')) AS ff50_bigger_than_default,
       (SELECT nblocks FROM pagebtree_metapage('bd_ff_def')) >
       (SELECT nblocks FROM pagebtree_metapage('bd_ff_100')) AS default_bigger_than_ff100;
-- inserts into a tightly packed index split pages everywhere
INSERT INTO bd_ff SELECT 20000 + i, i * 2 FROM generate_series(1, 10000) i;
SELECT pagebtree_check('bd_ff_50', true);
SELECT pagebtree_check('bd_ff_100', true);
SELECT * FROM pbt_verify(ARRAY[
    'SELECT id FROM bd_ff WHERE k BETWEEN 5000 AND 6000',
    'SELECT k FROM bd_ff ORDER BY k DESC'
]);
ALTER INDEX bd_ff_100 SET (fillfactor = 70);
SELECT relname, reloptions FROM pg_class WHERE relname LIKE 'bd_ff_%' ORDER BY relname;
REINDEX INDEX bd_ff_100;
SELECT pagebtree_check('bd_ff_100', true);
ALTER INDEX bd_ff_100 RESET (fillfactor);
SELECT reloptions FROM pg_class WHERE relname = 'bd_ff_100';
-- full pages whose high keys need room the layouts' garbage or a slot
-- would have taken ("high key does not fit" before): duplicates, and text
CREATE TABLE bd_ff_dup (c int4, t text) WITH (autovacuum_enabled = off);
INSERT INTO bd_ff_dup SELECT i / 500, 'k' || (i / 37) FROM generate_series(1, 400000) i;
CREATE INDEX bd_ff_dup_c ON bd_ff_dup USING pagebtree (c) WITH (fillfactor = 100);
CREATE INDEX bd_ff_dup_t ON bd_ff_dup USING pagebtree (t) WITH (fillfactor = 100);
CREATE INDEX bd_ff_dup_cf ON bd_ff_dup USING pagebtree (c)
  WITH (fillfactor = 100, layout = fingerprint);
SELECT pagebtree_check('bd_ff_dup_c', true), pagebtree_check('bd_ff_dup_t', true),
       pagebtree_check('bd_ff_dup_cf', true);
SELECT * FROM pbt_verify(ARRAY[
    'SELECT c FROM bd_ff_dup WHERE c BETWEEN 300 AND 310',
    'SELECT t FROM bd_ff_dup WHERE t > ''k9'' ORDER BY t DESC'
]);
DROP TABLE bd_ff_dup;

-- 14. Index on an empty table; first inserts create the tree.
CREATE TABLE bd_empty (id int, k int) WITH (autovacuum_enabled = off);
CREATE INDEX bd_empty_k ON bd_empty USING pagebtree (k);
SELECT pagebtree_check('bd_empty_k', true);
SELECT level FROM pagebtree_metapage('bd_empty_k');
SELECT * FROM pbt_verify(ARRAY['SELECT id FROM bd_empty WHERE k = 1']);
INSERT INTO bd_empty VALUES (1, 1);
SELECT pagebtree_check('bd_empty_k', true);
SELECT * FROM pbt_verify(ARRAY['SELECT id FROM bd_empty WHERE k = 1']);
INSERT INTO bd_empty SELECT i, (i * 37) % 1000 FROM generate_series(2, 5000) i;
SELECT pagebtree_check('bd_empty_k', true);
SELECT * FROM pbt_verify(ARRAY[
    'SELECT id FROM bd_empty WHERE k = 1',
    'SELECT k FROM bd_empty ORDER BY k'
]);
-- TRUNCATE gives the index a fresh, empty relfilenode
TRUNCATE bd_empty;
SELECT pagebtree_check('bd_empty_k', true);
SELECT * FROM pbt_verify(ARRAY['SELECT id FROM bd_empty WHERE k >= 0']);
INSERT INTO bd_empty SELECT i, i FROM generate_series(1, 3000) i;
SELECT pagebtree_check('bd_empty_k', true);
SELECT * FROM pbt_verify(ARRAY['SELECT id FROM bd_empty WHERE k >= 0']);

-- 15. Unlogged table: the index gets an init fork (ambuildempty).
CREATE UNLOGGED TABLE bd_unl (id int, k int) WITH (autovacuum_enabled = off);
INSERT INTO bd_unl SELECT i, (i * 7) % 3000 FROM generate_series(1, 10000) i;
CREATE INDEX bd_unl_k ON bd_unl USING pagebtree (k);
SELECT relpersistence FROM pg_class WHERE relname = 'bd_unl_k';
SELECT pg_relation_size('bd_unl_k', 'init') > 0 AS has_init_fork;
SELECT pagebtree_check('bd_unl_k', true);
INSERT INTO bd_unl SELECT i, i FROM generate_series(10001, 15000) i;
DELETE FROM bd_unl WHERE id % 4 = 0;
SELECT pagebtree_check('bd_unl_k', true);
SELECT * FROM pbt_verify(ARRAY[
    'SELECT id FROM bd_unl WHERE k = 42',
    'SELECT id FROM bd_unl WHERE k > 2990',
    'SELECT k FROM bd_unl ORDER BY k DESC'
]);
TRUNCATE bd_unl;
SELECT pg_relation_size('bd_unl_k', 'init') > 0 AS has_init_fork;
SELECT pagebtree_check('bd_unl_k', true);
INSERT INTO bd_unl SELECT i, i % 100 FROM generate_series(1, 2000) i;
SELECT pagebtree_check('bd_unl_k', true);
SELECT * FROM pbt_verify(ARRAY['SELECT id FROM bd_unl WHERE k = 42']);

-- 16. Temporary table (local buffers).
CREATE TEMP TABLE bd_tmp (id int, k int);
INSERT INTO bd_tmp SELECT i, (i * 13) % 4000 FROM generate_series(1, 20000) i;
CREATE INDEX bd_tmp_k ON bd_tmp USING pagebtree (k);
INSERT INTO bd_tmp SELECT i, i FROM generate_series(20001, 25000) i;
DELETE FROM bd_tmp WHERE id % 5 = 0;
VACUUM bd_tmp;
ANALYZE bd_tmp;
SELECT pagebtree_check('bd_tmp_k', true);
SELECT * FROM pbt_verify(ARRAY[
    'SELECT id FROM bd_tmp WHERE k = 42',
    'SELECT id FROM bd_tmp WHERE k BETWEEN 100 AND 200',
    'SELECT k FROM bd_tmp ORDER BY k'
]);

-- 17. Large keys (1.5 kB, incompressible): only a few items fit on a page.
CREATE TABLE bd_big (id int, t text) WITH (autovacuum_enabled = off);
INSERT INTO bd_big
SELECT i, (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 47) j)
FROM generate_series(1, 150) i;
CREATE INDEX bd_big_t ON bd_big USING pagebtree (t);
INSERT INTO bd_big
SELECT i, (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 47) j)
FROM generate_series(151, 400) i;
INSERT INTO bd_big SELECT 1000 + id, t FROM bd_big WHERE id % 4 = 0;
SELECT pagebtree_check('bd_big_t', true);
SELECT level > 0 AS multi_level FROM pagebtree_metapage('bd_big_t');
SELECT * FROM pbt_verify(ARRAY[
    'SELECT id FROM bd_big WHERE t = (SELECT string_agg(md5((8000 + j)::text), '''') FROM generate_series(1, 47) j)',
    'SELECT id FROM bd_big WHERE t > ''8''',
    'SELECT md5(t) FROM bd_big ORDER BY t',
    'SELECT md5(t) FROM bd_big ORDER BY t DESC'
]);
DELETE FROM bd_big WHERE id % 3 = 0;
VACUUM bd_big;
SELECT pagebtree_check('bd_big_t', true);
SELECT * FROM pbt_verify(ARRAY['SELECT md5(t) FROM bd_big WHERE t < ''8'' ORDER BY t DESC']);

-- 18. Build phases reported to pg_stat_progress_create_index.
SELECT n, pg_indexam_progress_phasename((SELECT oid FROM pg_am WHERE amname = 'pagebtree'), n)
FROM generate_series(0, 4) n;

-- 19. Builds sort normalized keys in memory while they fit in
-- maintenance_work_mem, and move them to a tuplesort past it: short items
-- (int8) are held in the sort's entries, long ones (text) apart; a unique
-- build finds its duplicate either way.
CREATE TABLE bd_sort (k int8, t text) WITH (autovacuum_enabled = off);
INSERT INTO bd_sort SELECT (i * 7919) % 100003, md5(i::text) || i
FROM generate_series(1, 60000) i;
SET maintenance_work_mem = '1MB';
CREATE INDEX bd_sort_k_spill ON bd_sort USING pagebtree (k) WITH (delta = off);
CREATE INDEX bd_sort_t_spill ON bd_sort USING pagebtree (t COLLATE "C");
CREATE UNIQUE INDEX bd_sort_u_spill ON bd_sort USING pagebtree ((k % 50000));
RESET maintenance_work_mem;
CREATE INDEX bd_sort_k_mem ON bd_sort USING pagebtree (k) WITH (delta = off);
CREATE INDEX bd_sort_t_mem ON bd_sort USING pagebtree (t COLLATE "C");
CREATE UNIQUE INDEX bd_sort_u_mem ON bd_sort USING pagebtree ((k % 50000));
SELECT pagebtree_check('bd_sort_k_spill', true), pagebtree_check('bd_sort_t_spill', true),
       pagebtree_check('bd_sort_k_mem', true), pagebtree_check('bd_sort_t_mem', true);
-- both builds leave the same leaves (no delta area: no side pages to skip)
SELECT (SELECT array_agg(data ORDER BY blk, itemno) FROM pagebtree_metapage('bd_sort_k_spill') m,
          generate_series(1, m.nblocks - 1) blk, LATERAL pagebtree_page_items('bd_sort_k_spill', blk)
        WHERE child IS NULL) =
       (SELECT array_agg(data ORDER BY blk, itemno) FROM pagebtree_metapage('bd_sort_k_mem') m,
          generate_series(1, m.nblocks - 1) blk, LATERAL pagebtree_page_items('bd_sort_k_mem', blk)
        WHERE child IS NULL) AS same_leaves;
SELECT * FROM pbt_verify(ARRAY[
    'SELECT k FROM bd_sort ORDER BY k',
    'SELECT k FROM bd_sort WHERE k BETWEEN 500 AND 5000 ORDER BY k DESC',
    'SELECT t COLLATE "C" FROM bd_sort ORDER BY t COLLATE "C"',
    'SELECT t COLLATE "C" FROM bd_sort WHERE t COLLATE "C" > ''c'' ORDER BY t COLLATE "C" DESC'
]);

-- comparator keys of very different lengths: a leaf's high key is the next
-- leaf's whole first key, longer than the room kept for it (as long as the
-- page's last key), so the build moves that last key on to the next leaf
-- (arrays of one int8, and every seventh of 100 to 299)
CREATE TABLE bd_cmp (a int8[]) WITH (autovacuum_enabled = off);
INSERT INTO bd_cmp
SELECT CASE WHEN g % 7 = 0
            THEN ARRAY(SELECT (g::int8 * 1000 + i) * 7919 % 1000003 * 1000003
                       FROM generate_series(1, 100 + g % 200) i)
            ELSE ARRAY[g::int8 * 1000] END
FROM generate_series(1, 20000) g;
CREATE INDEX bd_cmp_a ON bd_cmp USING pagebtree (a);
CREATE INDEX bd_cmp_a100 ON bd_cmp USING pagebtree (a) WITH (fillfactor = 100);
SELECT key_mode FROM pagebtree_metapage('bd_cmp_a');
SELECT pagebtree_check('bd_cmp_a', true), pagebtree_check('bd_cmp_a100', true);
DROP INDEX bd_cmp_a100;
SELECT * FROM pbt_verify(ARRAY[
    'SELECT a FROM bd_cmp WHERE a > ''{7000}'' AND a < ''{9000000}''',
    'SELECT a FROM bd_cmp WHERE a >= ''{14000}'' ORDER BY a DESC'
]);

-- one statement's inserts, splits and group rebalances included, leave no
-- memory behind in the statement's context: 100,000 random keys into each
-- index, the ExecutorState measured before the last row's insert, against
-- btree's in the same statement shape
CREATE FUNCTION bd_executor_bytes() RETURNS int8 LANGUAGE sql VOLATILE AS $$
    SELECT max(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'ExecutorState'
$$;
CREATE TABLE bd_mem (k int8, bytes int8) WITH (autovacuum_enabled = off);
CREATE TABLE bd_mem_seen (idx text, bytes int8);
DO $$
DECLARE
    def text;
BEGIN
    FOREACH def IN ARRAY ARRAY['btree (k)', 'pagebtree (k) WITH (delta = off)',
                               'pagebtree (k)',
                               'pagebtree (k) WITH (leaf_group_size = 16)'] LOOP
        TRUNCATE bd_mem;
        DROP INDEX IF EXISTS bd_mem_k;
        EXECUTE 'CREATE INDEX bd_mem_k ON bd_mem USING ' || def;
        INSERT INTO bd_mem
        SELECT (i::int8 * 7919 % 100003) * 1000003,
               CASE WHEN i = 100000 THEN bd_executor_bytes() END
        FROM generate_series(1, 100000) i;
        INSERT INTO bd_mem_seen SELECT def, bytes FROM bd_mem WHERE bytes IS NOT NULL;
    END LOOP;
END $$;
SELECT idx, bytes <= (SELECT bytes FROM bd_mem_seen WHERE idx = 'btree (k)') + 1048576
    AS as_btree
FROM bd_mem_seen ORDER BY idx;
SELECT pagebtree_check('bd_mem_k', true);
-- the same for a second UPDATE of every row that changes another indexed
-- column: each full leaf of the unchanged index asks the heap which older
-- versions it may remove (bottom-up deletion), measured at the 100,000th row
CREATE SEQUENCE bd_upd_rows;
CREATE FUNCTION bd_upd_note() RETURNS int8 LANGUAGE sql VOLATILE AS $$
    SELECT 0 * length(set_config('bd.upd_bytes', bd_executor_bytes()::text, false))
$$;
TRUNCATE bd_mem_seen;
DO $$
DECLARE
    def text;
BEGIN
    FOREACH def IN ARRAY ARRAY['btree (k)', 'pagebtree (k)',
                               'pagebtree (k) WITH (leaf_group_size = 16)'] LOOP
        DROP TABLE IF EXISTS bd_upd;
        CREATE TABLE bd_upd (k int8, v int8) WITH (autovacuum_enabled = off, fillfactor = 100);
        INSERT INTO bd_upd SELECT i, i FROM generate_series(1, 100000) i;
        EXECUTE 'CREATE INDEX bd_upd_k ON bd_upd USING ' || def;
        CREATE INDEX bd_upd_v ON bd_upd USING btree (v);
        UPDATE bd_upd SET v = v + 1;
        PERFORM setval('bd_upd_rows', 1, false);
        UPDATE bd_upd SET v = v + 1 +
            CASE WHEN nextval('bd_upd_rows') = 100000 THEN bd_upd_note() ELSE 0 END;
        INSERT INTO bd_mem_seen VALUES (def, current_setting('bd.upd_bytes')::int8);
    END LOOP;
END $$;
SELECT idx, bytes <= (SELECT bytes FROM bd_mem_seen WHERE idx = 'btree (k)') + 262144
    AS as_btree
FROM bd_mem_seen ORDER BY idx;
SELECT pagebtree_check('bd_upd_k', true);

-- 20. Queue churn: the oldest rows are deleted and VACUUMed, as many
-- appended at the right end, cycle after cycle.  A parent whose last leaf
-- empties goes with it (and its parent, if that was its only child), so
-- the index keeps its size and its inner pages as btree's does, and keeps
-- no empty leaves for a scan from the left end to step over.  Arrays are
-- compared by their comparator: wide keys, a few dozen downlinks a page,
-- so each cycle empties several parents.
CREATE TABLE bd_queue (n int8, k int8[]) WITH (autovacuum_enabled = off);
CREATE TABLE bd_queue_bt (n int8, k int8[]) WITH (autovacuum_enabled = off);
CREATE INDEX bd_queue_k ON bd_queue USING pagebtree (k);
CREATE INDEX bd_queue_bt_k ON bd_queue_bt USING btree (k);
CREATE TABLE bd_queue_seen (cycle int, pages int8, btree_pages int8,
    inner_pages int8, empty_leaves int8, deleted_inner int8);
-- a cycle: delete the oldest 5,000 rows (none at first), VACUUM, count
-- pages, append 5,000 rows
CREATE PROCEDURE bd_queue_delete() LANGUAGE sql AS $$
    DELETE FROM bd_queue WHERE n <= (SELECT max(n) FROM bd_queue) - 15000;
    DELETE FROM bd_queue_bt WHERE n <= (SELECT max(n) FROM bd_queue_bt) - 15000;
$$;
CREATE PROCEDURE bd_queue_append(c int) LANGUAGE sql AS $$
    INSERT INTO bd_queue_seen
    SELECT c, pg_relation_size('bd_queue_k') / 8192,
           pg_relation_size('bd_queue_bt_k') / 8192,
           count(*) FILTER (WHERE s.page_type = 'inner'),
           count(*) FILTER (WHERE s.page_type = 'leaf' AND s.live_items = 0 AND s.next <> 0),
           count(*) FILTER (WHERE s.page_type = 'deleted' AND s.level > 0)
    FROM generate_series(1, pg_relation_size('bd_queue_k') / 8192 - 1) b,
         LATERAL pagebtree_page_stats('bd_queue_k', b) s;
    INSERT INTO bd_queue
    SELECT g, ARRAY(SELECT g * 100 + j FROM generate_series(1, 24) j)
    FROM generate_series(coalesce((SELECT max(n) FROM bd_queue), 0) + 1,
                         coalesce((SELECT max(n) FROM bd_queue), 0) + 5000) g;
    INSERT INTO bd_queue_bt SELECT * FROM bd_queue
    WHERE n > coalesce((SELECT max(n) FROM bd_queue_bt), 0);
$$;
-- four cycles fill the queue (counted as cycle 0), six churn it
SELECT 'CALL bd_queue_delete()', 'VACUUM bd_queue, bd_queue_bt',
       format('CALL bd_queue_append(%s)', greatest(c - 3, 0))
FROM generate_series(0, 9) c ORDER BY c \gexec
SELECT pagebtree_check('bd_queue_k', true);
-- (pages are counted after VACUUM; those deleted in a cycle are reused
-- from the next but one, as btree's are, so both grow until cycle 2)
SELECT cycle,
       pages - (SELECT pages FROM bd_queue_seen WHERE cycle = 2) <= 2 AS size_held,
       btree_pages - (SELECT btree_pages FROM bd_queue_seen WHERE cycle = 2) <= 2
           AS btree_size_held,
       inner_pages <= (SELECT max(inner_pages) FROM bd_queue_seen WHERE cycle = 0) + 1
           AS inner_held,
       empty_leaves, deleted_inner > 0 AS inner_deleted
FROM bd_queue_seen WHERE cycle > 2 ORDER BY cycle;
SELECT * FROM pbt_verify(ARRAY[
    'SELECT n FROM bd_queue ORDER BY k',
    'SELECT n FROM bd_queue ORDER BY k DESC',
    'SELECT n FROM bd_queue WHERE k < ARRAY[4000000::int8]',
    'SELECT k AS c FROM bd_queue ORDER BY k LIMIT 10',
    'SELECT count(*) FROM bd_queue WHERE k >= ARRAY[0::int8]'
]);

-- clean up
DROP TABLE bd, bd_ff, bd_empty, bd_unl, bd_tmp, bd_big, bd_sort, bd_cmp, bd_mem, bd_mem_seen,
    bd_upd, bd_queue, bd_queue_bt, bd_queue_seen;
DROP SEQUENCE bd_upd_rows;
DROP PROCEDURE bd_queue_delete(), bd_queue_append(int);
DROP FUNCTION bd_verify(), bd_executor_bytes(), bd_upd_note();
