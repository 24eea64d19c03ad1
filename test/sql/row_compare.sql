--
-- row_compare: a row comparison WHERE (a, b) > (x, y), keyset pagination's
-- seek, reads a range of a pagebtree index as it reads btree's instead of
-- the whole index: pbt_rowcompare.c adds the paths btree gets.  On 18 the
-- comparison is their index condition; before, the comparison loosened to
-- its first column (a >= x) is, or where the comparison's members are index
-- columns one after another, its ranges are (a > x, a = x AND b > y), and
-- the comparison is a filter: row_compare_1.out.  The plans are shown by
-- rc_plan, which leaves the conditions out.
--
-- (the NOTICE about shared_preload_libraries differs between configurations)
SET client_min_messages = warning;
CREATE TABLE rc (id int, t int, a int, b text COLLATE "C", c int8, n numeric)
  WITH (autovacuum_enabled = off);
INSERT INTO rc
SELECT i, i % 3,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919) % 400 END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE lpad((i % 60)::text, 3, '0') END,
       i * 3,
       CASE WHEN i % 83 = 0 THEN NULL ELSE round((i % 300) / 7.0, 2) END
FROM generate_series(1, 30000) i;
CREATE INDEX rc_ab ON rc USING pagebtree (a, b);
CREATE INDEX rc_tac ON rc USING pagebtree (t, a, c);
CREATE INDEX rc_dc ON rc USING pagebtree (a DESC, c);
CREATE INDEX rc_part ON rc USING pagebtree (c, a) WHERE t = 1;
-- (numeric keys: comparator mode)
CREATE INDEX rc_n ON rc USING pagebtree (n, id);
VACUUM ANALYZE rc;
CREATE FUNCTION rc_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    ln text;
BEGIN
    FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        -- (the filter is the comparison, or nothing on 18)
        CONTINUE WHEN ln ~ 'Filter: \(ROW';
        RETURN NEXT regexp_replace(ln, '(Index Cond|Recheck Cond): .*', '\1');
    END LOOP;
END $$;

-- results against a sequential scan, through index, index-only and bitmap
-- scans of pagebtree indexes (pbt_cmp checks the plans)
SELECT q, via, r.*
FROM (VALUES
  ('SELECT a, b FROM rc WHERE (a, b) > (200, ''030'') ORDER BY a, b LIMIT 50', 'index'),
  ('SELECT a, b, c FROM rc WHERE (a, b) >= (200, ''030'') ORDER BY a, b, c LIMIT 50', 'index'),
  ('SELECT a, b FROM rc WHERE (a, b) < (200, ''030'') ORDER BY a DESC, b DESC LIMIT 50', 'index'),
  ('SELECT a, b, c FROM rc WHERE (a, b) <= (200, ''030'') ORDER BY a DESC, b DESC, c LIMIT 50', 'index'),
  ('SELECT a AS c FROM rc WHERE (a, b) > (390, ''050'')', 'indexonly'),
  ('SELECT id FROM rc WHERE (a, b) > (390, ''050'')', 'bitmap'),
  ('SELECT a, b FROM rc WHERE (a, b) > (200, NULL) ORDER BY a, b LIMIT 50', 'index'),
  ('SELECT id FROM rc WHERE (a, b) < (NULL, ''030'')', 'index'),
  ('SELECT id FROM rc WHERE t = 1 AND (a, c) > (100, 15000) ORDER BY a, c LIMIT 50', 'index'),
  ('SELECT id FROM rc WHERE t = 2 AND (a, c) < (100, 15000) ORDER BY a DESC, c DESC LIMIT 50', 'index'),
  ('SELECT id FROM rc WHERE (a, c) < (100, 15000) ORDER BY a DESC, c LIMIT 50', 'index'),
  ('SELECT id FROM rc WHERE t = 1 AND (c, a) > (60000, 7) ORDER BY c, a LIMIT 50', 'index'),
  ('SELECT n, id FROM rc WHERE (n, id) > (20.57, 1000) ORDER BY n, id LIMIT 60', 'index'),
  ('SELECT n, id FROM rc WHERE (n, id) <= (20.57, 1000) ORDER BY n DESC, id DESC LIMIT 60', 'index'),
  ('SELECT id FROM rc WHERE (n, id) >= (42, 0)', 'bitmap'),
  -- (before 18: an Append of the comparison's ranges, rows of t in few
  -- values; a DESC column's range comes first; b then id, id not indexed)
  ('SELECT t, a, c FROM rc WHERE (t, a, c) > (1, 100, 15000) ORDER BY t, a, c LIMIT 80', 'index'),
  ('SELECT t, a, c FROM rc WHERE (t, a, c) <= (1, 100, 15000) ORDER BY t DESC, a DESC, c DESC LIMIT 80', 'index'),
  ('SELECT t, a, c FROM rc WHERE (t, a, c) > (1, NULL, 5) ORDER BY t, a, c LIMIT 80', 'index'),
  ('SELECT t, a, c FROM rc WHERE (t, a, c) >= (2, 100, 15000)', 'indexonly'),
  ('SELECT id FROM rc WHERE (t, a, c) < (1, 390, 0)', 'bitmap'),
  ('SELECT a, c FROM rc WHERE (a, c) > (100, 15000) ORDER BY a DESC, c LIMIT 50', 'index'),
  ('SELECT a, c FROM rc WHERE (a, c) > (100, 15000) ORDER BY a, c DESC LIMIT 50', 'index'),
  ('SELECT a, b, id FROM rc WHERE (a, b, id) > (200, ''030'', 15000) ORDER BY a, b, id LIMIT 50', 'index')
) v(q, via), LATERAL pbt_cmp(q, via) r;

-- the seek: a page of 50 rows reads a few of the index's buffers, where a
-- scan of the whole index filtering the rows read them all
SELECT s.seek < 10 AS seeks, s.seek * 4 < s.whole AS far_fewer
FROM (SELECT pbt_index_buffers('SELECT a, b FROM rc WHERE (a, b) > (200, ''030'') ORDER BY a, b LIMIT 50') AS seek,
             pbt_index_buffers('SELECT a, b FROM rc WHERE a + 0 >= 200 ORDER BY a, b') AS whole) s;
-- ... and where the first column has few values (t: 3)
-- (the seek reads neither the rows of t = 1 before a = 399, as a >= 1 would,
-- nor the whole block of t = 1)
SELECT s.seek < 15 AS seeks, s.seek * 3 < s.block AS far_fewer
FROM (SELECT pbt_index_buffers('SELECT t, a, c FROM rc WHERE (t, a, c) > (1, 399, 0) ORDER BY t, a, c LIMIT 50') AS seek,
             pbt_index_buffers('SELECT t, a, c FROM rc WHERE t = 1') AS block) s;
SELECT rc_plan($$SELECT id FROM rc WHERE (a, b) > (200, '030') ORDER BY a, b LIMIT 50$$);
SELECT rc_plan($$SELECT id FROM rc WHERE t = 2 AND (a, c) < (100, 15000) ORDER BY a DESC, c DESC LIMIT 50$$);

-- a relation proven empty keeps its empty plan; partitions seek each
ALTER TABLE rc ADD CONSTRAINT rc_a CHECK (a >= 0);
SET constraint_exclusion = on;
SELECT rc_plan($$SELECT id FROM rc WHERE (a, b) > (200, '030') AND a < 0 ORDER BY a, b LIMIT 5$$);
RESET constraint_exclusion;
CREATE TABLE rc_parts (a int, b int) PARTITION BY RANGE (a);
CREATE TABLE rc_p1 PARTITION OF rc_parts FOR VALUES FROM (0) TO (200);
CREATE TABLE rc_p2 PARTITION OF rc_parts FOR VALUES FROM (200) TO (400);
INSERT INTO rc_parts SELECT i % 400, i FROM generate_series(1, 20000) i;
CREATE INDEX rc_parts_ab ON rc_parts USING pagebtree (a, b);
ANALYZE rc_parts;
SELECT r.* FROM pbt_cmp('SELECT a, b FROM rc_parts WHERE (a, b) > (150, 10000) ORDER BY a, b LIMIT 200') r;
SELECT rc_plan('SELECT a, b FROM rc_parts WHERE (a, b) > (250, 10000) ORDER BY a, b LIMIT 20');
DROP TABLE rc_parts;

-- parameters: every page of a keyset walk through a generic plan, against
-- the rows in order
CREATE INDEX rc_ac ON rc USING pagebtree (a, c);
PREPARE rc_page(int, int8) AS
  SELECT a, c, id FROM rc WHERE (a, c) > ($1, $2) ORDER BY a, c LIMIT 1000;
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT rc_plan('EXECUTE rc_page(0, 0)');
CREATE FUNCTION rc_keyset_walk() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    last_a int := -1;
    last_c int8 := 0;
    got int[] := '{}';
    r record;
    n int;
BEGIN
    LOOP
        n := 0;
        FOR r IN EXECUTE format('EXECUTE rc_page(%s, %s)', last_a, last_c) LOOP
            got := got || r.id;
            last_a := r.a;
            last_c := r.c;
            n := n + 1;
        END LOOP;
        EXIT WHEN n < 1000;
    END LOOP;
    RETURN format('%s rows, %s', cardinality(got),
                  CASE WHEN got = ARRAY(SELECT id FROM rc WHERE a IS NOT NULL ORDER BY a, c)
                       THEN 'in order' ELSE 'NOT as sorted' END);
END $$;
SELECT rc_keyset_walk();
RESET plan_cache_mode;
RESET enable_seqscan;
RESET enable_bitmapscan;
DEALLOCATE rc_page;
SELECT pagebtree_check('rc_ab', true), pagebtree_check('rc_ac', true);
DROP FUNCTION rc_keyset_walk();
DROP FUNCTION rc_plan(text);
DROP TABLE rc;
