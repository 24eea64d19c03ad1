--
-- partitions: pagebtree indexes on partitioned tables (issue #26, item 2).
-- A range-partitioned and a list-partitioned table (58,000 rows) with
-- pagebtree indexes created on the parent: every partition gets a pagebtree
-- index of its own, so do partitions attached or created later, and an
-- attached table's matching pagebtree index is reused.  Scans of pruned
-- partitions use those indexes and return what sequential scans return,
-- and every partition's index passes pagebtree_check.
--
SET client_min_messages = warning;

-- the pagebtree indexes of tables whose name starts with $1, with the table,
-- the parent index they are a partition of, and whether they are unique
CREATE FUNCTION part_indexes(prefix text)
RETURNS TABLE (index_name name, table_name name, am name, parent_index name, is_unique boolean)
LANGUAGE sql AS $$
    SELECT c.relname, t.relname, a.amname, p.relname, i.indisunique
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_am a ON a.oid = c.relam
    LEFT JOIN pg_inherits h ON h.inhrelid = c.oid
    LEFT JOIN pg_class p ON p.oid = h.inhparent
    WHERE t.relname LIKE prefix || '%'
    ORDER BY t.relname, c.relname $$;

-- pagebtree_check(index, true) on every pagebtree index of a partition
-- (partitioned indexes have no storage of their own) of tables whose name
-- starts with $1
CREATE FUNCTION part_check(prefix text)
RETURNS TABLE (index_name name, checked boolean)
LANGUAGE sql AS $$
    SELECT c.relname, pagebtree_check(c.oid, true)::text = ''
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_am a ON a.oid = c.relam
    WHERE t.relname LIKE prefix || '%' AND a.amname = 'pagebtree' AND c.relkind = 'i'
    ORDER BY c.relname $$;

--
-- 1. Range partitions by date
--
CREATE TABLE pr (id int8 NOT NULL, created date NOT NULL, tenant int4 NOT NULL,
                 name text COLLATE "C" NOT NULL, amount numeric)
    PARTITION BY RANGE (created);
CREATE TABLE pr_2024 PARTITION OF pr FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE pr_2025 PARTITION OF pr FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE TABLE pr_2026 PARTITION OF pr FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
INSERT INTO pr
SELECT i, date '2024-01-01' + i % 1096, i % 37, 'n-' || lpad((i * 7919 % 30000)::text, 5, '0'),
       (i % 1000) / 10.0
FROM generate_series(1, 30000) i;

-- plain, and multi-column with INCLUDE, on the parent
CREATE INDEX pr_name ON pr USING pagebtree (name);
CREATE INDEX pr_tenant ON pr USING pagebtree (tenant, created) INCLUDE (amount);
-- a unique index on the parent, with the partition key: 18 creates it, 15
-- and 16 refuse every access method but btree there (see the versions
-- test); this block fails on a version that does otherwise.  The rest of
-- the test uses unique pagebtree indexes on the partitions, on every
-- version: with the partition key in them, they are unique across the table.
DO $$
BEGIN
    CREATE UNIQUE INDEX pr_id_created ON pr USING pagebtree (id, created);
    IF current_setting('server_version_num')::int < 180000 THEN
        RAISE EXCEPTION 'a unique pagebtree index on a partitioned table was created on %', version();
    END IF;
    INSERT INTO pr VALUES (1, date '2024-01-02', 0, 'dup', 0);
    RAISE EXCEPTION 'the unique index on the parent took a duplicate';
EXCEPTION
    WHEN feature_not_supported THEN
        IF current_setting('server_version_num')::int >= 180000 THEN
            RAISE;
        END IF;
    WHEN unique_violation THEN
        NULL;   -- 18: refused the duplicate; the block's changes roll back
END $$;
CREATE UNIQUE INDEX pr_2024_id_created ON pr_2024 USING pagebtree (id, created);
CREATE UNIQUE INDEX pr_2025_id_created ON pr_2025 USING pagebtree (id, created);
CREATE UNIQUE INDEX pr_2026_id_created ON pr_2026 USING pagebtree (id, created);
INSERT INTO pr VALUES (2, date '2024-01-03', 0, 'dup', 0);

-- every partition got a pagebtree index for each index of the parent
SELECT * FROM part_indexes('pr');

-- attach a table without indexes: its indexes are created, with pagebtree
CREATE TABLE pr_2027 (LIKE pr INCLUDING DEFAULTS);
INSERT INTO pr_2027
SELECT i, date '2027-01-01' + i % 365, i % 37, 'n-' || lpad((i * 7919 % 30000)::text, 5, '0'),
       (i % 1000) / 10.0
FROM generate_series(30001, 33000) i;
ALTER TABLE pr ATTACH PARTITION pr_2027 FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
-- attach a table that has a matching pagebtree index (reused: it becomes a
-- partition of pr_name) and a btree index on the same column (not a match:
-- another access method)
CREATE TABLE pr_2023 (LIKE pr INCLUDING DEFAULTS);
INSERT INTO pr_2023
SELECT i, date '2023-01-01' + i % 365, i % 37, 'n-' || lpad((i * 7919 % 30000)::text, 5, '0'),
       (i % 1000) / 10.0
FROM generate_series(33001, 35000) i;
CREATE INDEX pr_2023_name_mine ON pr_2023 USING pagebtree (name);
CREATE INDEX pr_2023_name_btree ON pr_2023 USING btree (name);
SELECT relfilenode AS mine_before FROM pg_class WHERE relname = 'pr_2023_name_mine' \gset
ALTER TABLE pr ATTACH PARTITION pr_2023 FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
SELECT relfilenode = :mine_before AS reused_unchanged FROM pg_class WHERE relname = 'pr_2023_name_mine';
SELECT * FROM part_indexes('pr_2023');
-- (the btree index would compete with the pagebtree ones in the plans below)
DROP INDEX pr_2023_name_btree;
-- create a partition
CREATE TABLE pr_2028 PARTITION OF pr FOR VALUES FROM ('2028-01-01') TO ('2029-01-01');
INSERT INTO pr
SELECT i, date '2028-01-01' + i % 366, i % 37, 'n-' || lpad((i * 7919 % 30000)::text, 5, '0'),
       (i % 1000) / 10.0
FROM generate_series(35001, 37000) i;
-- detach one: its indexes stay, as indexes of their own
ALTER TABLE pr DETACH PARTITION pr_2024;
SELECT * FROM part_indexes('pr');
ANALYZE pr;
ANALYZE pr_2024;

-- partition pruning and index scans
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT name FROM pr WHERE name BETWEEN 'n-01000' AND 'n-01100' AND created >= '2026-06-01';
EXPLAIN (COSTS OFF)
SELECT tenant, created, amount FROM pr
WHERE tenant = 5 AND created BETWEEN '2025-03-01' AND '2025-05-31' ORDER BY created DESC;
EXPLAIN (COSTS OFF)
SELECT id FROM pr WHERE id BETWEEN 500 AND 600 AND created >= '2025-01-01' AND created < '2026-01-01';
EXPLAIN (COSTS OFF)
SELECT name FROM pr_2024 WHERE name < 'n-00100';
RESET enable_seqscan;
RESET enable_bitmapscan;

-- the index scans return what sequential scans return
SELECT v.q, c.* FROM (VALUES
    ($$SELECT name FROM pr WHERE name BETWEEN 'n-01000' AND 'n-01100' AND created >= '2026-06-01'$$),
    ($$SELECT tenant, created, amount FROM pr WHERE tenant = 5 AND created BETWEEN '2025-03-01' AND '2025-05-31' ORDER BY created DESC, amount$$),
    ($$SELECT id, created FROM pr WHERE id BETWEEN 500 AND 600 AND created >= '2025-01-01' AND created < '2026-01-01'$$),
    ($$SELECT name FROM pr WHERE name >= 'n-29900' ORDER BY name$$),
    ($$SELECT tenant, created FROM pr WHERE tenant IN (3, 30) AND created >= '2027-06-01'$$),
    ($$SELECT name FROM pr_2024 WHERE name < 'n-00100'$$)
) v(q), LATERAL pbt_cmp(v.q) c;

-- the same, spelled out: an index scan EXCEPT a sequential scan, both ways
CREATE TEMP TABLE by_index AS SELECT 0 AS id, name, created FROM pr LIMIT 0;
CREATE TEMP TABLE by_seqscan AS SELECT 0 AS id, name, created FROM pr LIMIT 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT id, name, created FROM pr WHERE name BETWEEN 'n-02000' AND 'n-04000';
INSERT INTO by_index SELECT id, name, created FROM pr WHERE name BETWEEN 'n-02000' AND 'n-04000';
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
INSERT INTO by_seqscan SELECT id, name, created FROM pr WHERE name BETWEEN 'n-02000' AND 'n-04000';
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SELECT (SELECT count(*) FROM by_seqscan) AS seqscan_rows,
       (SELECT count(*) FROM (TABLE by_index EXCEPT TABLE by_seqscan) d) AS only_by_index,
       (SELECT count(*) FROM (TABLE by_seqscan EXCEPT TABLE by_index) d) AS only_by_seqscan;

-- inserts through the parent reach the partitions' indexes
INSERT INTO pr
SELECT i, date '2025-01-01' + i % 1000, i % 37, 'new-' || i, 1
FROM generate_series(40001, 41000) i;
SELECT * FROM pbt_cmp($$SELECT id, created FROM pr WHERE name >= 'new-' ORDER BY name$$);
-- the partitions' unique indexes refuse a duplicate (id, created)
INSERT INTO pr VALUES (500, date '2024-01-01' + 500, 0, 'dup', 0);

SELECT * FROM part_check('pr');

--
-- 2. List partitions by region, with a default partition
--
CREATE TABLE pl (region text COLLATE "C" NOT NULL, id int8 NOT NULL, k int4, payload text)
    PARTITION BY LIST (region);
CREATE TABLE pl_eu PARTITION OF pl FOR VALUES IN ('de', 'fr', 'it');
CREATE TABLE pl_am PARTITION OF pl FOR VALUES IN ('us', 'ca');
CREATE TABLE pl_asia PARTITION OF pl FOR VALUES IN ('jp', 'kr', 'cn');
CREATE TABLE pl_other PARTITION OF pl DEFAULT;
INSERT INTO pl
SELECT (ARRAY['de', 'fr', 'it', 'us', 'ca', 'jp', 'kr', 'cn', 'br', 'za'])[1 + i % 10],
       i, i % 500, md5(i::text)
FROM generate_series(1, 20000) i;
CREATE INDEX pl_k ON pl USING pagebtree (k);
CREATE INDEX pl_region_id ON pl USING pagebtree (region, id) INCLUDE (payload);
-- a partition for two regions of the default partition: the rows move out
-- of the default partition first
CREATE TABLE pl_sa (LIKE pl);
INSERT INTO pl_sa SELECT * FROM pl_other WHERE region IN ('br', 'za');
DELETE FROM pl_other WHERE region IN ('br', 'za');
ALTER TABLE pl ATTACH PARTITION pl_sa FOR VALUES IN ('br', 'za');
INSERT INTO pl VALUES ('nz', 20001, 1, 'other'), ('nz', 20002, 2, 'other');
SELECT * FROM part_indexes('pl');
SELECT tableoid::regclass AS partition, count(*) FROM pl GROUP BY 1 ORDER BY 1;
ANALYZE pl;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT id, payload FROM pl WHERE region = 'fr' AND id BETWEEN 1000 AND 1200;
EXPLAIN (COSTS OFF)
SELECT region, id FROM pl WHERE region IN ('us', 'br') AND k IN (3, 8) ORDER BY id;
EXPLAIN (COSTS OFF)
SELECT id FROM pl WHERE region = 'nz';
RESET enable_seqscan;
RESET enable_bitmapscan;

SELECT v.q, c.* FROM (VALUES
    ($$SELECT id, payload FROM pl WHERE region = 'fr' AND id BETWEEN 1000 AND 1200$$),
    ($$SELECT region, id FROM pl WHERE region IN ('us', 'br') AND k IN (3, 8)$$),
    ($$SELECT region, id FROM pl WHERE k BETWEEN 10 AND 12 ORDER BY k, id$$),
    ($$SELECT id FROM pl WHERE region = 'nz'$$),
    ($$SELECT region, id, payload FROM pl WHERE region >= 'jp' AND id < 300$$)
) v(q), LATERAL pbt_cmp(v.q) c;

SELECT * FROM part_check('pl');

DROP TABLE pr, pr_2024, pl;
DROP FUNCTION part_indexes(text), part_check(text);
