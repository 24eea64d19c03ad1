--
-- Unique pagebtree indexes behave like unique btree indexes: same SQLSTATE,
-- message and detail (apart from the index name), NULLs distinct unless
-- NULLS NOT DISTINCT, dead versions never conflict.
--
SET client_min_messages = warning;

-- Run the same statement against a pagebtree and a btree copy ($T is the
-- table uq_p or uq_b, $AM the access method); report whether both
-- succeeded or both failed with the same error.
CREATE FUNCTION uq_same(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    res text[] := '{}';
    am text;
    st text;
    msg text;
    det text;
BEGIN
    FOREACH am IN ARRAY ARRAY['p', 'b'] LOOP
        BEGIN
            EXECUTE replace(replace(stmt, '$T', 'uq_' || am), '$AM',
                            CASE am WHEN 'p' THEN 'pagebtree' ELSE 'btree' END);
            res := res || 'ok'::text;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
            res := res || (st || ': ' || replace(msg, 'uq_' || am, 'uq_?') || ' / ' || coalesce(det, ''));
        END;
    END LOOP;
    IF res[1] = res[2] THEN
        RETURN 'same: ' || res[1];
    END IF;
    RETURN 'DIFFERENT: pagebtree ' || res[1] || ' btree ' || res[2];
END $$;

CREATE TABLE uq_p (a int8, b text COLLATE "C", c numeric);
CREATE TABLE uq_b (a int8, b text COLLATE "C", c numeric);
INSERT INTO uq_p SELECT i, 'k' || i, i / 3 FROM generate_series(1, 20000) i;
INSERT INTO uq_b SELECT * FROM uq_p;

-- build: unique data succeeds, duplicate data fails with btree's error
SELECT uq_same('CREATE UNIQUE INDEX $T_a ON $T USING $AM (a)');
SELECT uq_same('CREATE UNIQUE INDEX $T_c ON $T USING $AM (c)');
SELECT uq_same('CREATE UNIQUE INDEX $T_bc ON $T USING $AM (b, c)');
SELECT indexrelid::regclass, indisunique, (pagebtree_metapage(indexrelid)).key_mode
FROM pg_index WHERE indrelid = 'uq_p'::regclass ORDER BY 1;

-- inserts and updates
SELECT uq_same('INSERT INTO $T VALUES (5, ''dup'', 0)');
SELECT uq_same('INSERT INTO $T VALUES (20001, ''k20001'', 0)');
SELECT uq_same('INSERT INTO $T VALUES (20002, ''k5'', 1)');      -- (b, c) taken
SELECT uq_same('INSERT INTO $T VALUES (20003, ''k5'', 2)');      -- (b, c) free
SELECT uq_same('UPDATE $T SET a = a + 1 WHERE a BETWEEN 100 AND 110');
SELECT uq_same('UPDATE $T SET a = a + 1000000 WHERE a BETWEEN 100 AND 110');
SELECT uq_same('UPDATE $T SET a = a - 1000000 WHERE a BETWEEN 1000100 AND 1000110');

-- NULLs are distinct by default
SELECT uq_same('INSERT INTO $T VALUES (NULL, NULL, NULL), (NULL, NULL, NULL)');
SELECT uq_same('INSERT INTO $T VALUES (30000, ''n'', NULL), (30001, ''n'', NULL)');

-- dead versions do not conflict: delete, rollback, many updates of one row
SELECT uq_same('DELETE FROM $T WHERE a = 7');
SELECT uq_same('INSERT INTO $T VALUES (7, ''k7-again'', 7)');
BEGIN;
INSERT INTO uq_p VALUES (40000, 'r', 0);
ROLLBACK;
SELECT uq_same('INSERT INTO $T VALUES (40000, ''r'', 0)');
-- 3000 updates of one key leave its dead versions on more than one leaf
-- page (posting leaves hold about 2,000), so the duplicate check must
-- follow the equal keys across pages
DO $$
BEGIN
    FOR i IN 1 .. 3000 LOOP
        UPDATE uq_p SET c = c + 1000000 WHERE a = 12345;
        UPDATE uq_b SET c = c + 1000000 WHERE a = 12345;
    END LOOP;
END $$;
-- (normalized key of 12345: value marker, then the sign-flipped int64;
-- without preloading the index has a delta area, whose side pages are
-- every (delta_group + 1)-th block from block 1)
SELECT count(DISTINCT blk) > 1 AS spans_pages
FROM pagebtree_metapage('uq_p_a') m,
     generate_series(1, m.nblocks - 1) blk,
     LATERAL pagebtree_page_items('uq_p_a', blk)
WHERE (m.delta_group = 0 OR (blk - 1) % (m.delta_group + 1) <> 0)
  AND child IS NULL AND substr(data, 1, 9) = '\x018000000000003039'::bytea;
SELECT uq_same('INSERT INTO $T VALUES (12345, ''again'', 5)');
SELECT uq_same('UPDATE $T SET a = 12345 WHERE a = 12346');

-- the same results either way
SELECT (SELECT array_agg(a ORDER BY a) FROM uq_p) = (SELECT array_agg(a ORDER BY a) FROM uq_b) AS same_rows;
SELECT pagebtree_check('uq_p_a', true), pagebtree_check('uq_p_bc', true);

-- NULLS NOT DISTINCT
CREATE TABLE uq_nnd (a int, b int);
CREATE UNIQUE INDEX uq_nnd_ab ON uq_nnd USING pagebtree (a, b) NULLS NOT DISTINCT;
INSERT INTO uq_nnd VALUES (1, NULL);
INSERT INTO uq_nnd VALUES (1, NULL);
INSERT INTO uq_nnd VALUES (NULL, 1), (NULL, 2);
INSERT INTO uq_nnd VALUES (NULL, NULL);
INSERT INTO uq_nnd VALUES (NULL, NULL);
SELECT * FROM uq_nnd ORDER BY a, b;
CREATE TABLE uq_nnd2 (a int);
INSERT INTO uq_nnd2 VALUES (NULL), (NULL);
CREATE UNIQUE INDEX uq_nnd2_a ON uq_nnd2 USING pagebtree (a) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX uq_nnd2_a ON uq_nnd2 USING pagebtree (a);
SELECT pagebtree_check('uq_nnd_ab', true), pagebtree_check('uq_nnd2_a', true);

-- comparator-mode keys (numeric) and expression indexes
CREATE TABLE uq_num (x numeric, t text);
CREATE UNIQUE INDEX uq_num_x ON uq_num USING pagebtree (x);
CREATE UNIQUE INDEX uq_num_lower ON uq_num USING pagebtree (lower(t));
INSERT INTO uq_num VALUES (1.0, 'A'), (2, 'b');
INSERT INTO uq_num VALUES (1.00, 'c');          -- 1.00 = 1.0
INSERT INTO uq_num VALUES (3, 'a');             -- lower('a') = lower('A')
SELECT (pagebtree_metapage('uq_num_x')).key_mode;

-- The index is used for lookups like btree's
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM uq_p WHERE a = 42;
SELECT a, b FROM uq_p WHERE a = 42;
RESET enable_seqscan;

-- PostgreSQL itself accepts only btree indexes for unique constraints, a
-- core limitation, reported as such.  (ON CONFLICT arbiters: 18 takes
-- pagebtree's unique indexes, earlier versions refuse them; see the
-- versions test.)
ALTER TABLE uq_p ADD CONSTRAINT uq_p_a_key UNIQUE USING INDEX uq_p_a;
