--
-- dead_entries: entries of dead rows make room before a leaf splits (or
-- before its run's fold splits it), and VACUUM's deleted pages are used
-- again, with or without preloading (the cluster logs standby information,
-- wal_level replica: without the resource manager the conflicts for hot
-- standbys go into nbtree's REUSE_PAGE records).
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

CREATE TABLE de (g int8, k text) WITH (autovacuum_enabled = off);
INSERT INTO de SELECT g, lpad(g::text, 10, '0') || repeat('x', 30)
FROM generate_series(1, 20000) g;
CREATE INDEX de_k ON de USING pagebtree (k) WITH (delta = off, fillfactor = 100);
SELECT current_setting('wal_level') <> 'minimal' AS standby_information;
SELECT pg_relation_size('de_k') / 8192 AS pages_built \gset

-- 1. A plain index scan hints the deleted rows' entries dead; the same keys
-- inserted again take their room in the full leaves instead of splitting.
DELETE FROM de WHERE g BETWEEN 5000 AND 5600;
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM de WHERE k BETWEEN '0000005000' AND '0000005601';
SELECT count(*) FROM de WHERE k BETWEEN '0000005000' AND '0000005601';
RESET enable_seqscan; RESET enable_bitmapscan;
INSERT INTO de SELECT g, lpad(g::text, 10, '0') || repeat('x', 30)
FROM generate_series(5000, 5600) g;
SELECT pg_relation_size('de_k') / 8192 - :pages_built AS pages_added_by_refill;

-- 2. VACUUM deletes the emptied leaves, a later VACUUM records them free
-- once no scan can reach them, and new keys take them.
DELETE FROM de WHERE g BETWEEN 8000 AND 16000;
VACUUM de;
SELECT txid_current() > 0 AS an_xid_after_the_deletion;
VACUUM de;
INSERT INTO de SELECT g, lpad(g::text, 10, '0') || repeat('x', 30)
FROM generate_series(20001, 28000) g;
SELECT pg_relation_size('de_k') / 8192 - :pages_built <= 2 AS deleted_pages_used;

-- 3. The same refill through a delta area: the runs of the full leaves fold
-- into the room the dead entries leave instead of splitting them.
CREATE TABLE ded (g int8, k text) WITH (autovacuum_enabled = off);
INSERT INTO ded SELECT g, lpad(g::text, 10, '0') || repeat('x', 30)
FROM generate_series(1, 20000) g;
CREATE INDEX ded_k ON ded USING pagebtree (k) WITH (delta = on, fillfactor = 100);
SELECT pg_relation_size('ded_k') / 8192 AS ded_pages_built \gset
DELETE FROM ded WHERE g BETWEEN 5000 AND 5600;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM ded WHERE k BETWEEN '0000005000' AND '0000005601';
RESET enable_seqscan; RESET enable_bitmapscan;
SET pagebtree.delta_append_always = on;
INSERT INTO ded SELECT g, lpad(g::text, 10, '0') || repeat('x', 30)
FROM generate_series(5000, 5600) g;
RESET pagebtree.delta_append_always;
SELECT sum(folds) > 0 AS folded FROM pagebtree_runs('ded_k');
SELECT pg_relation_size('ded_k') / 8192 - :ded_pages_built AS pages_added_by_refill;
SELECT pagebtree_check('ded_k', true);
SELECT * FROM pbt_verify(ARRAY[
    'SELECT g FROM ded WHERE k BETWEEN ''0000004900'' AND ''0000005700''',
    'SELECT k FROM ded ORDER BY k DESC'
]);
DROP TABLE ded;

SELECT pagebtree_check('de_k', true);
SELECT * FROM pbt_verify(ARRAY[
    'SELECT g FROM de WHERE k BETWEEN ''0000004900'' AND ''0000005700''',
    'SELECT k FROM de ORDER BY k',
    'SELECT k FROM de ORDER BY k DESC',
    'SELECT g FROM de WHERE k > ''0000019990'''
]);
DROP TABLE de;
