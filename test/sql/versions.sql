--
-- What pagebtree can do depends on the server version here.  Each group of
-- versions has its expected output: versions.out for 15, versions_1.out
-- for 16 and 17, versions_2.out for 18.
-- The first query names the group, so that one group's output cannot pass
-- for another's.
--
SELECT CASE WHEN current_setting('server_version_num')::int >= 180000 THEN '18'
            WHEN current_setting('server_version_num')::int >= 160000 THEN '16-17'
            ELSE '15' END AS server_versions;
-- (without the library preloaded, the first build of a session says so)
SET client_min_messages = warning;

--
-- 1. Boolean columns.  15's planner makes index conditions of "col",
--    "NOT col", "col = true/false" and "col IS [NOT] TRUE/FALSE" only for
--    btree's own boolean operator family; 16 and later for any operator
--    family that has boolean equality, pagebtree's too.  The results are
--    the same either way.
--
CREATE TABLE v_bool (b bool, id int) WITH (autovacuum_enabled = off);
INSERT INTO v_bool
SELECT CASE WHEN i % 50 = 0 THEN NULL ELSE i % 3 = 0 END, i
FROM generate_series(1, 3000) i;
CREATE INDEX v_bool_b ON v_bool USING pagebtree (b);
VACUUM ANALYZE v_bool;
SET enable_seqscan = off;
-- (posting leaves make the index small enough for a bitmap scan to tie)
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM v_bool WHERE b;
EXPLAIN (COSTS OFF) SELECT count(*) FROM v_bool WHERE b = true;
EXPLAIN (COSTS OFF) SELECT count(*) FROM v_bool WHERE b IS TRUE;
EXPLAIN (COSTS OFF) SELECT count(*) FROM v_bool WHERE NOT b;
EXPLAIN (COSTS OFF) SELECT id FROM v_bool WHERE b = false;
-- comparisons that the planner keeps are index conditions on every version
EXPLAIN (COSTS OFF) SELECT count(*) FROM v_bool WHERE b > false;
EXPLAIN (COSTS OFF) SELECT count(*) FROM v_bool WHERE b = ANY ('{true}');
RESET enable_seqscan;
RESET enable_bitmapscan;
-- every form through the index (plan_ok: a plan that reads the pagebtree
-- index that way) and through a sequential scan: no row differs
SELECT q, i.plan_ok AS idx_plan, i.nrows, i.ndiffs AS idx_diffs,
       b.plan_ok AS bmp_plan, b.ndiffs AS bmp_diffs
FROM unnest(ARRAY[
    'SELECT id FROM v_bool WHERE b',
    'SELECT id FROM v_bool WHERE b = true',
    'SELECT id FROM v_bool WHERE b IS TRUE',
    'SELECT id FROM v_bool WHERE b IS NOT TRUE',
    'SELECT id FROM v_bool WHERE NOT b',
    'SELECT id FROM v_bool WHERE b = false',
    'SELECT id FROM v_bool WHERE b IS FALSE',
    'SELECT id FROM v_bool WHERE b IS NOT FALSE',
    'SELECT id FROM v_bool WHERE b > false',
    'SELECT id FROM v_bool WHERE b IS NULL']) q,
     LATERAL pbt_cmp(q) i, LATERAL pbt_cmp(q, 'bitmap') b;
SELECT pagebtree_check('v_bool_b', true);
DROP TABLE v_bool;

--
-- 2. EXPLAIN ANALYZE: 18 reports the searches of each index scan ("Index
--    Searches"), which pagebtree counts where it counts idx_scan: one per
--    positioning, so one per element of an = ANY array.
--
CREATE TABLE v_s (k int8) WITH (autovacuum_enabled = off);
INSERT INTO v_s SELECT i FROM generate_series(1, 20000) i;
CREATE INDEX v_s_k ON v_s USING pagebtree (k);
VACUUM ANALYZE v_s;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
SELECT k FROM v_s WHERE k BETWEEN 100 AND 200;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
SELECT k FROM v_s WHERE k = ANY ('{10, 10000, 19999}');
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
SELECT k FROM v_s WHERE k = ANY ('{10, 10000, 19999}');
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
DROP TABLE v_s;

--
-- 3. Unique indexes on partitioned tables: 15 and 16 refuse them for every
--    access method but btree; 18 takes an access method that can translate
--    its equality strategy (pagebtree does, as btree), and each partition
--    gets a unique pagebtree index, which enforces the key across the
--    table since it contains the partition key.
--
CREATE TABLE v_part (k int8, v text) PARTITION BY RANGE (k);
CREATE TABLE v_part_1 PARTITION OF v_part FOR VALUES FROM (0) TO (1000);
CREATE TABLE v_part_2 PARTITION OF v_part FOR VALUES FROM (1000) TO (2000);
CREATE UNIQUE INDEX v_part_k ON v_part USING pagebtree (k);
INSERT INTO v_part SELECT i, 'a' FROM generate_series(0, 1999) i;
CREATE TABLE v_part_3 PARTITION OF v_part FOR VALUES FROM (2000) TO (3000);
SELECT c.relname, a.amname, x.indisunique
FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE x.indrelid IN ('v_part_1'::regclass, 'v_part_2'::regclass, 'v_part_3'::regclass)
ORDER BY 1;
INSERT INTO v_part VALUES (1500, 'dup');
INSERT INTO v_part VALUES (2500, 'x'), (2500, 'y');
SELECT k, count(*) FROM v_part WHERE k IN (1500, 2500) GROUP BY k ORDER BY k;
-- a unique index must contain the partition key
CREATE UNIQUE INDEX v_part_v ON v_part USING pagebtree (v);

--
-- 4. INSERT ... ON CONFLICT: 15 to 17 take only btree unique indexes as
--    arbiters ("unexpected non-btree speculative unique index"); 18 takes
--    pagebtree's, for DO NOTHING and DO UPDATE (the isolation test
--    on-conflict-unique has concurrent inserters).
--
CREATE TABLE v_oc (k int8, v text);
CREATE UNIQUE INDEX v_oc_k ON v_oc USING pagebtree (k);
INSERT INTO v_oc SELECT i, 'a' FROM generate_series(1, 1000) i;
INSERT INTO v_oc VALUES (5, 'x'), (2000, 'new') ON CONFLICT (k) DO NOTHING;
INSERT INTO v_oc VALUES (6, 'x'), (2001, 'new')
ON CONFLICT (k) DO UPDATE SET v = excluded.v || '-updated';
INSERT INTO v_oc VALUES (7, 'x'), (7, 'y') ON CONFLICT (k) DO UPDATE SET v = 'twice';
SELECT k, v FROM v_oc WHERE k IN (5, 6, 7, 2000, 2001) ORDER BY k;
SELECT count(*), count(DISTINCT k) FROM v_oc;
SELECT pagebtree_check('v_oc_k', true);
-- through the partitioned table's index
INSERT INTO v_part VALUES (10, 'c'), (2999, 'c') ON CONFLICT (k) DO UPDATE SET v = 'conflict';
SELECT k, v FROM v_part WHERE k IN (10, 2999) ORDER BY k;
-- 15 to 17 refuse every unique index that is not btree's on the table, not
-- only the arbiter: an upsert on a btree primary key fails there too
CREATE TABLE v_oc2 (k int8 PRIMARY KEY, j int8);
CREATE UNIQUE INDEX v_oc2_j ON v_oc2 USING pagebtree (j);
INSERT INTO v_oc2 VALUES (1, 1);
INSERT INTO v_oc2 VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET j = excluded.j;
INSERT INTO v_oc2 VALUES (2, 3) ON CONFLICT (k) DO NOTHING;
SELECT k, j FROM v_oc2 ORDER BY k;
DROP TABLE v_oc, v_part, v_oc2;

--
-- 5. Foreign keys: 15, 16 and 17 refuse to reference a key whose unique
--    index is not btree's ("only b-tree indexes are supported for foreign
--    keys"); 18 takes an access method that translates its equality
--    strategy, and enforces the key through the pagebtree index.  A UNIQUE
--    or PRIMARY KEY constraint is a btree index on every version.
--
CREATE TABLE v_fkp (id int NOT NULL);
CREATE UNIQUE INDEX v_fkp_id ON v_fkp USING pagebtree (id);
INSERT INTO v_fkp SELECT generate_series(1, 1000);
CREATE TABLE v_fkc (pid int);
ALTER TABLE v_fkc ADD FOREIGN KEY (pid) REFERENCES v_fkp (id);
SELECT conindid::regclass AS referenced_index FROM pg_constraint
WHERE conrelid = 'v_fkc'::regclass AND contype = 'f';
INSERT INTO v_fkc VALUES (5), (NULL);
INSERT INTO v_fkc VALUES (5000);
DELETE FROM v_fkp WHERE id = 5;
UPDATE v_fkp SET id = 2000 WHERE id = 5;
DELETE FROM v_fkp WHERE id = 6;
SELECT (SELECT count(*) FROM v_fkp) AS referenced_rows,
       (SELECT count(*) FROM v_fkc) AS referencing_rows;
ALTER TABLE v_fkp ADD CONSTRAINT v_fkp_u UNIQUE USING INDEX v_fkp_id;
DROP TABLE v_fkc, v_fkp;

--
-- 6. inet's subnet operators (<<, <<=): the planner's support function makes
--    a range of the index of them on 18 for any operator family with the
--    comparisons, before that only for btree's own (a filter here).  The
--    rows are the same.
--
CREATE TABLE v_inet (v inet);
INSERT INTO v_inet SELECT ('10.' || i % 256 || '.' || i % 7 || '.0/24')::inet
FROM generate_series(1, 3000) i;
CREATE INDEX v_inet_v ON v_inet USING pagebtree (v);
VACUUM ANALYZE v_inet;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT v FROM v_inet WHERE v << '10.5.0.0/16';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM pbt_cmp('SELECT v FROM v_inet WHERE v << ''10.5.0.0/16''', 'indexonly');
SELECT * FROM pbt_cmp('SELECT v FROM v_inet WHERE v <<= ''10.5.0.0/16'' ORDER BY v DESC', 'indexonly');
DROP TABLE v_inet;
