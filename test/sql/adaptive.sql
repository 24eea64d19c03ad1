--
-- adaptive: the default layout's operation-adaption.  Leaves whose keys
-- are string-like (heads that collide) get a counter; point lookups turn
-- them into fingerprint leaves and scans back into heads leaves, each
-- conversion a WAL-logged page rewrite.  The counter moves by chance, so
-- the checks ask for most leaves, with enough operations per leaf that a
-- leaf is left behind with a probability of at most 3%.  Every result is
-- compared with a seqscan, and the index is verified after every step.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- 200 groups of 60 keys that share 33 bytes: heads collide
CREATE TABLE ad (id int, k text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO ad SELECT i, md5((i % 200)::text) || '/' || i FROM generate_series(1, 12000) i;
CREATE INDEX ad_k ON ad USING pagebtree (k);
-- integers: heads tell them apart, so no counter
CREATE TABLE ad_int (k int8);
INSERT INTO ad_int SELECT (i * 7919) % 100003 FROM generate_series(1, 12000) i;
CREATE INDEX ad_int_k ON ad_int USING pagebtree (k);

CREATE FUNCTION ad_leaves(idx regclass, OUT leaves int, OUT fingerprint int,
                          OUT with_counter int) LANGUAGE sql AS $$
    SELECT count(*)::int,
           (count(*) FILTER (WHERE s.layout = 'fingerprint'))::int,
           (count(*) FILTER (WHERE s.flags LIKE '%ops=%'))::int
    FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b,
         LATERAL pagebtree_page_stats(idx, b) s
    WHERE s.page_type = 'leaf' $$;

-- n point lookups of random keys of ad through the index; returns how many
-- found other rows than the seqscan that grouped them
CREATE FUNCTION ad_lookups(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    key text;
    want int[];
    got int[];
    wrong int := 0;
BEGIN
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_bitmapscan = off;
    FOR key, want IN
        SELECT g.k, g.ids
        FROM (SELECT k || '' AS k, array_agg(id ORDER BY id) AS ids FROM ad GROUP BY 1) g,
             generate_series(1, n / 12000)
        ORDER BY random()
    LOOP
        EXECUTE 'SELECT array_agg(id) FROM (SELECT id FROM ad WHERE k = $1 ORDER BY id) s' INTO got USING key;
        IF got IS DISTINCT FROM want THEN
            wrong := wrong + 1;
        END IF;
    END LOOP;
    RETURN wrong;
END $$;

-- n short ordered scans (20 rows from a random key on) of ad; the expected
-- rows come from one sorted seqscan
CREATE FUNCTION ad_scans(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    key text;
    want text[];
    got text[];
    wrong int := 0;
BEGIN
    SET LOCAL enable_indexscan = off;
    SET LOCAL enable_indexonlyscan = off;
    SET LOCAL enable_bitmapscan = off;
    CREATE TEMP TABLE ad_want ON COMMIT DROP AS
        SELECT DISTINCT ON (k) k, w
        FROM (SELECT k, array_agg(k) OVER (ORDER BY k ROWS BETWEEN CURRENT ROW AND 19 FOLLOWING) w,
                     row_number() OVER (ORDER BY k) rn
              FROM ad) s
        ORDER BY k, rn;
    SET LOCAL enable_indexscan = on;
    SET LOCAL enable_indexonlyscan = on;
    SET LOCAL enable_seqscan = off;
    FOR key, want IN SELECT k, w FROM ad_want ORDER BY random() LIMIT n LOOP
        EXECUTE 'SELECT array_agg(k) FROM (SELECT k FROM ad WHERE k >= $1 ORDER BY k LIMIT 20) s'
            INTO got USING key;
        IF got IS DISTINCT FROM want THEN
            wrong := wrong + 1;
        END IF;
    END LOOP;
    DROP TABLE ad_want;
    RETURN wrong;
END $$;

-- the plans the functions use (the lookup sorts in a subquery: 16 and
-- later would sort for array_agg(id ORDER BY id) below the aggregate, 15
-- inside it)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT array_agg(id) FROM (SELECT id FROM ad WHERE k = 'x' ORDER BY id) s;
EXPLAIN (COSTS OFF) SELECT array_agg(k) FROM (SELECT k FROM ad WHERE k >= 'x' ORDER BY k LIMIT 20) s;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- after the build: heads leaves, counters on the text index only
SELECT fingerprint, with_counter = leaves AS all_counted FROM ad_leaves('ad_k');
SELECT fingerprint, with_counter FROM ad_leaves('ad_int_k');

-- point lookups: most leaves become fingerprint leaves
SELECT ad_lookups(36000) AS wrong_lookups;
SELECT fingerprint > leaves * 0.9 AS mostly_fingerprint FROM ad_leaves('ad_k');
SELECT pagebtree_check('ad_k', true);

-- inserts into fingerprint leaves, some not sharing their prefix; deletes
INSERT INTO ad SELECT 20000 + i, md5((i % 200)::text) || '/' || (i * 3) FROM generate_series(1, 3000) i;
INSERT INTO ad SELECT 30000 + i, md5((i % 200)::text) || chr(32 + i % 90) FROM generate_series(1, 3000) i;
DELETE FROM ad WHERE id % 7 = 0;
VACUUM ad;
SELECT pagebtree_check('ad_k', true);
SELECT ad_lookups(12000) AS wrong_lookups;
SELECT count(*) FILTER (WHERE layout = 'fingerprint') > 0 AS some_fingerprint
FROM generate_series(1, pg_relation_size('ad_k') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('ad_k', b);

-- scans: most leaves are heads leaves again
SELECT ad_scans(10000) AS wrong_scans;
SELECT fingerprint < leaves * 0.3 AS mostly_heads FROM ad_leaves('ad_k');
SELECT pagebtree_check('ad_k', true);

-- a forced layout does not adapt
CREATE INDEX ad_k_heads ON ad USING pagebtree (k) WITH (layout = heads);
SELECT fingerprint, with_counter FROM ad_leaves('ad_k_heads');

DROP TABLE ad, ad_int;
DROP FUNCTION ad_leaves, ad_lookups, ad_scans;
