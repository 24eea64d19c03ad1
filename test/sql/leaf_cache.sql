--
-- leaf_cache: a backend's map from key ranges to the leaves its reads
-- reached (pbt_leafcache.c).  A read goes straight to such a leaf if the
-- leaf's LSN says that it has not changed since.  Each step below changes
-- leaves that this session's cache knows (splits, deletions and recycled
-- pages, a rebuild), and then looks every key up again, one lookup each,
-- and compares with a sequential scan.  Inserts take their leaves from it
-- too.
--
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_bitmapscan = off;
CREATE TABLE lc (k int8, v int) WITH (autovacuum_enabled = off);
INSERT INTO lc SELECT i * 10, i FROM generate_series(1, 40000) i;
SET client_min_messages = warning;
CREATE INDEX lc_k ON lc USING pagebtree (k) WITH (delta = off);
RESET client_min_messages;
VACUUM ANALYZE lc;

-- keys looked up one by one (a nested loop over the index), against a
-- sequential scan of the same table (rows found, for equal keys below)
CREATE FUNCTION lc_lookups(lo int8, hi int8, step int8,
                           OUT looked_up bigint, OUT expected bigint)
LANGUAGE plpgsql AS $$
BEGIN
    SET LOCAL enable_seqscan = off;
    SELECT count(*) INTO looked_up FROM generate_series(lo, hi, step) g
    JOIN lc ON k = g;
    SET LOCAL enable_seqscan = on;
    SET LOCAL enable_indexscan = off;
    SET LOCAL enable_indexonlyscan = off;
    SELECT count(*) INTO expected FROM lc WHERE k BETWEEN lo AND hi AND k % step = lo % step;
END $$;
EXPLAIN (COSTS OFF) SELECT count(*) FROM generate_series(10, 400000, 10) g
JOIN lc ON k = g;

-- the buffers one lookup reads: the root and a leaf, then the leaf alone
-- (and the visibility map page of the index-only scan, both times)
CREATE FUNCTION lc_buffers(key int8) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    ln text;
BEGIN
    SET LOCAL enable_seqscan = off;
    FOR ln IN EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
                             SELECT k FROM lc WHERE k = %s', key) LOOP
        IF ln ~ 'Buffers' THEN
            RETURN substring(ln FROM 'hit=(\d+)')::int;
        END IF;
    END LOOP;
END $$;
SELECT level AS root_level FROM pagebtree_metapage('lc_k');
-- (a lookup elsewhere first, which reads the metapage for the root)
SELECT lc_buffers(10) > 0 AS root_known;
SELECT lc_buffers(123450) AS first, lc_buffers(123450) AS again,
       lc_buffers(123460) AS same_leaf;
SET pagebtree.leaf_cache_size = 0;
SELECT lc_buffers(123450) AS without_cache;
RESET pagebtree.leaf_cache_size;

-- 1. every key, every leaf now cached
SELECT * FROM lc_lookups(10, 400000, 10);
SELECT * FROM pbt_cmp('SELECT k FROM lc WHERE k BETWEEN 100000 AND 100500 ORDER BY k');
SELECT * FROM pbt_cmp('SELECT k FROM lc WHERE k < 5000 ORDER BY k DESC');

-- inserts take the leaf from the cache too: the heap page and the leaf,
-- without the root (the first insert may extend the heap)
CREATE FUNCTION lc_insert_buffers(key int8) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    ln text;
BEGIN
    FOR ln IN EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
                             INSERT INTO lc VALUES (%s, 0)', key) LOOP
        IF ln ~ 'Buffers' THEN
            RETURN substring(ln FROM 'hit=(\d+)')::int;
        END IF;
    END LOOP;
END $$;
SELECT lc_insert_buffers(123451) > 0 AS first, lc_insert_buffers(123452) AS cached;
SET pagebtree.leaf_cache_size = 0;
SELECT lc_insert_buffers(123453) AS without_cache;
RESET pagebtree.leaf_cache_size;
DELETE FROM lc WHERE k IN (123451, 123452, 123453);

-- 2. every leaf splits, under inserts that find it in the cache (their
-- splits find the parent by the new separator)
INSERT INTO lc SELECT i * 10 + 5, i FROM generate_series(1, 40000) i;
SELECT * FROM lc_lookups(5, 400005, 5);
SELECT * FROM pbt_cmp('SELECT k FROM lc WHERE k BETWEEN 100000 AND 100500 ORDER BY k');

-- 3. leaves emptied, deleted and recycled: new keys elsewhere take their
-- blocks (the index does not grow)
SELECT * FROM lc_lookups(5, 400005, 5);
DELETE FROM lc WHERE k BETWEEN 50000 AND 250000;
VACUUM lc;
SELECT txid_current() > 0 AS an_xid_after_the_deletion;
VACUUM lc;
CREATE TEMP TABLE lc_size AS SELECT pg_relation_size('lc_k') AS before;
INSERT INTO lc SELECT 1000000000 + i * 997, i FROM generate_series(1, 30000) i;
SELECT pg_relation_size('lc_k') <= before + 2 * 8192 AS recycled FROM lc_size;
SELECT * FROM lc_lookups(5, 400005, 5);
SELECT * FROM lc_lookups(1000000997, 1029910000, 997);
-- the deleted keys again: they go to the leaves that took over the range,
-- not to the blocks that held them (found through a stale entry, such a
-- block would be searched and the keys missed)
INSERT INTO lc SELECT k, 0 FROM generate_series(50000, 250000, 10) k;
SELECT * FROM lc_lookups(5, 400005, 5);
SELECT * FROM pbt_cmp('SELECT k FROM lc WHERE k BETWEEN 49000 AND 251000 ORDER BY k');
SELECT pagebtree_check('lc_k', true);

-- 4. a rebuild, and a table emptied and filled again
REINDEX INDEX lc_k;
SELECT * FROM lc_lookups(5, 400005, 5);
TRUNCATE lc;
INSERT INTO lc SELECT i * 7, i FROM generate_series(1, 40000) i;
SELECT * FROM lc_lookups(7, 280000, 7);
SELECT * FROM lc_lookups(5, 400005, 5);

-- a table created in the same transaction is truncated in place: its
-- index's file too, and the cache must not send a read past its end
BEGIN;
CREATE TABLE lct (k int8);
INSERT INTO lct SELECT generate_series(1, 20000);
SET LOCAL client_min_messages = warning;
CREATE INDEX lct_k ON lct USING pagebtree (k) WITH (delta = off);
SET LOCAL enable_seqscan = off;
SELECT count(*) FROM generate_series(1, 20000) g WHERE EXISTS (SELECT FROM lct WHERE k = g);
TRUNCATE lct;
INSERT INTO lct VALUES (15000);
SELECT k FROM lct WHERE k = 15000;
COMMIT;
DROP TABLE lct;

-- 5. the same answers without the cache
SET pagebtree.leaf_cache_size = 0;
SELECT * FROM lc_lookups(7, 280000, 7);
RESET pagebtree.leaf_cache_size;
DROP TABLE lc;
DROP FUNCTION lc_insert_buffers(int8);

-- 6. leaf groups: a reader remembers a subnode by its first item (the
-- downlink's separator is the group's), and a rebalance, which moves keys
-- left between subnodes, changes the LSN of every subnode of the group.
-- Inserts descend: they update the parent's hints.
CREATE TABLE lc (k int8, v int) WITH (autovacuum_enabled = off);
INSERT INTO lc SELECT i * 10, i FROM generate_series(1, 40000) i;
SET client_min_messages = warning;
CREATE INDEX lc_k ON lc USING pagebtree (k) WITH (leaf_group_size = 4, delta = off);
RESET client_min_messages;
VACUUM ANALYZE lc;
SELECT level AS root_level FROM pagebtree_metapage('lc_k');
SELECT lc_buffers(10) > 0 AS root_known;
SELECT lc_buffers(123450) - lc_buffers(123450) AS saved_by_the_cache;
SELECT * FROM lc_lookups(10, 400000, 10);
-- keys between the keys: subnodes fill, groups rebalance and split
INSERT INTO lc SELECT i * 10 + 5, i FROM generate_series(1, 40000) i;
SELECT * FROM lc_lookups(5, 400005, 5);
-- many equal keys at one place, moved left and right by rebalances, with
-- lookups between the inserts (each against a sequential scan)
CREATE TEMP TABLE lc_rounds (found bigint, expected bigint);
DO $$
DECLARE
    found bigint;
    expected bigint;
BEGIN
    FOR r IN 1..20 LOOP
        INSERT INTO lc SELECT 200000 + r, g FROM generate_series(1, 300) g;
        SET LOCAL enable_seqscan = off;
        SET LOCAL enable_indexonlyscan = on;
        SELECT count(*) INTO found FROM generate_series(199000, 201000) g
        JOIN lc ON k = g;
        SET LOCAL enable_seqscan = on;
        SET LOCAL enable_indexonlyscan = off;
        SET LOCAL enable_indexscan = off;
        SELECT count(*) INTO expected FROM lc WHERE k BETWEEN 199000 AND 201000;
        SET LOCAL enable_indexscan = on;
        INSERT INTO lc_rounds VALUES (found, expected);
    END LOOP;
END $$;
SELECT count(*) AS rounds, count(*) FILTER (WHERE found <> expected) AS wrong
FROM lc_rounds;
SELECT * FROM lc_lookups(199000, 201000, 1);
SELECT * FROM lc_lookups(5, 400005, 5);
SELECT * FROM pbt_cmp('SELECT k, v FROM lc WHERE k BETWEEN 199990 AND 200030 ORDER BY k, v');
SELECT pagebtree_check('lc_k', true);
DROP TABLE lc;
DROP FUNCTION lc_lookups(int8, int8, int8);
DROP FUNCTION lc_buffers(int8);
