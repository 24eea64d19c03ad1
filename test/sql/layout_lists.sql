--
-- layout_lists: lists leaves (several keys on a leaf, each stored once with
-- its heap TIDs; reloption deduplicate_items), as a foreign-key column
-- makes them.  Each index is compared with a sequential scan (pbt_cmp), its
-- size with btree's on the same rows, and checked with pagebtree_check
-- after every step.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- ll has the indexes that queries use; llb the same rows and the indexes
-- they are compared with, which the planner must not pick.  About 20
-- entries a key: customer ids (int8), 4-byte ids and text codes.
CREATE TABLE ll (id int, cust int8, shop int4, code text COLLATE "C")
    WITH (autovacuum_enabled = off);
CREATE TABLE llb (LIKE ll) WITH (autovacuum_enabled = off);
CREATE FUNCTION ll_insert(lo int, hi int, ncust int) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO ll SELECT i, (hashint4(i) & 1048575) % ncust,
        (hashint4(i + 1) & 1048575) % (ncust / 2),
        'code-' || lpad(((hashint4(i + 2) & 1048575) % (ncust / 4))::text, 6, '0')
    FROM generate_series(lo, hi) i;
    INSERT INTO llb SELECT * FROM ll WHERE id BETWEEN lo AND hi;
$$;
SELECT ll_insert(1, 60000, 3000);
CREATE INDEX ll_cust ON ll USING pagebtree (cust);
CREATE INDEX ll_shop ON ll USING pagebtree (shop);
CREATE INDEX ll_code ON ll USING pagebtree (code);
CREATE INDEX ll_cust_nodedup ON llb USING pagebtree (cust) WITH (deduplicate_items = off);
CREATE INDEX ll_cust_btree ON llb USING btree (cust);
CREATE INDEX ll_shop_btree ON llb USING btree (shop);
CREATE INDEX ll_code_btree ON llb USING btree (code);

CREATE FUNCTION ll_leaves(idx regclass) RETURNS TABLE (layout text, most boolean)
LANGUAGE sql AS $$
    SELECT layout, pages * 10 > 9 * sum(pages) OVER () FROM pagebtree_layout_summary(idx)
    WHERE page_type = 'leaf' ORDER BY 1
$$;
CREATE FUNCTION ll_check() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pagebtree_check('ll_cust', true);
    PERFORM pagebtree_check('ll_shop', true);
    PERFORM pagebtree_check('ll_code', true);
    PERFORM pagebtree_check('ll_cust_nodedup', true);
    RETURN true;
END $$;

-- the build: more than nine leaves in ten are lists leaves, and the
-- indexes are smaller than btree's (which deduplicates too); without
-- deduplicate_items, heads leaves, larger than btree's
SELECT * FROM ll_leaves('ll_cust');
SELECT * FROM ll_leaves('ll_code');
SELECT * FROM ll_leaves('ll_cust_nodedup');
SELECT pbt_size_ratio('ll_cust', 'll_cust_btree') <= 0.8 AS cust,
       pbt_size_ratio('ll_shop', 'll_shop_btree') <= 0.8 AS shop,
       pbt_size_ratio('ll_code', 'll_code_btree') <= 0.8 AS code,
       pbt_size_ratio('ll_cust_nodedup', 'll_cust_btree') > 1 AS cust_nodedup;
SELECT ll_check();

CREATE FUNCTION ll_queries() RETURNS TABLE (q text, plan_ok boolean, nrows bigint, ndiffs bigint)
LANGUAGE plpgsql AS $$
DECLARE
    qs text[] := ARRAY[
        'SELECT id FROM ll WHERE cust = 17',
        'SELECT cust, id FROM ll WHERE cust BETWEEN 200 AND 260 ORDER BY cust, id',
        'SELECT cust FROM ll WHERE cust >= 2900 ORDER BY cust DESC',
        'SELECT cust FROM ll WHERE cust < 40 ORDER BY cust',
        'SELECT cust FROM ll WHERE cust = ANY (''{5, 500, 1500, 2999, 4000}'') ORDER BY cust DESC',
        'SELECT shop FROM ll WHERE shop > 1400 ORDER BY shop',
        'SELECT code FROM ll WHERE code BETWEEN ''code-000100'' AND ''code-000130'' ORDER BY code DESC',
        'SELECT id FROM ll WHERE code = ''code-000321''',
        'SELECT id FROM ll WHERE code LIKE ''code-0004%'''];
    via text;
BEGIN
    FOREACH q IN ARRAY qs LOOP
        FOREACH via IN ARRAY ARRAY['index', 'bitmap'] LOOP
            IF via = 'bitmap' AND q ~ 'ORDER BY' THEN CONTINUE; END IF;
            SELECT c.plan_ok, c.nrows, c.ndiffs INTO plan_ok, nrows, ndiffs
              FROM pbt_cmp(q, via) c;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END $$;
SELECT * FROM ll_queries();

-- a scrollable cursor across lists leaves, each row compared with a
-- sequential scan's order (key, then heap TID: ll and llb have the same
-- TIDs)
SELECT pbt_cursor('ll_cust', 'll', 'llb', 'cust', 'cust BETWEEN 1000 AND 1400', '{700, -650, 5000, -20, 3000, -8000}');

-- kill_prior_tuple marks single entries dead; VACUUM removes entries, and
-- keys whose entries are all gone leave their leaf's directory
DELETE FROM ll WHERE id % 3 = 0 OR cust BETWEEN 600 AND 700;
DELETE FROM llb WHERE id % 3 = 0 OR cust BETWEEN 600 AND 700;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM ll WHERE cust BETWEEN 100 AND 900;
SELECT count(*) FROM ll WHERE cust BETWEEN 100 AND 900;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT * FROM ll_queries();
SELECT pbt_cursor('ll_cust', 'll', 'llb', 'cust', 'cust BETWEEN 500 AND 800', '{300, -250, 5000, -5000}');
VACUUM ll, llb;
SELECT ll_check();
SELECT * FROM ll_queries();

-- inserts in random key order, new keys among them (more customers) and
-- TIDs in new heap blocks: entries join their keys' lists, new keys enter
-- the directories, TIDs widen, full leaves split and their halves are
-- chosen again; the indexes stay smaller than btree's
SELECT ll_insert(60001, 120000, 4000);
SELECT ll_check();
SELECT * FROM ll_queries();
SELECT * FROM ll_leaves('ll_cust');
SELECT pbt_size_ratio('ll_cust', 'll_cust_btree') <= 0.8 AS cust,
       pbt_size_ratio('ll_code', 'll_code_btree') <= 0.8 AS code;

-- off: no lists leaves for rebuilds
ALTER INDEX ll_cust SET (deduplicate_items = off);
REINDEX INDEX ll_cust;
SELECT * FROM ll_leaves('ll_cust');
SELECT pagebtree_check('ll_cust', true);
DROP TABLE ll, llb;
DROP FUNCTION ll_leaves(regclass), ll_check(), ll_queries(), ll_insert(int, int, int);
