--
-- errors: bad input is rejected with a clear error, and nothing is lost:
-- after every failed statement the row count is unchanged and the index still
-- passes pagebtree_check(idx, true).
--
-- NOTICEs differ between server configurations (e.g. the one about
-- shared_preload_libraries at index build), so show warnings and up only.
SET client_min_messages = warning;

CREATE TABLE er (id int, t text, u text, p point, j jsonb) WITH (autovacuum_enabled = off);
INSERT INTO er SELECT i, md5(i::text), 'u' || i, point(i, i), jsonb_build_object('a', i)
FROM generate_series(1, 2000) i;
CREATE INDEX er_t ON er USING pagebtree (t);
CREATE INDEX er_id_u ON er USING pagebtree (id) INCLUDE (u);
SELECT pagebtree_check('er_t', true);
SELECT pagebtree_check('er_id_u', true);

-- Values that do not compress: 300 md5 strings, 9600 bytes (more than any
-- index tuple can hold), and 125 md5 strings, 4000 bytes (an index tuple, but
-- more than pagebtree's per-item limit).
CREATE FUNCTION er_big(seed int) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT string_agg(md5((seed * 1000 + i)::text), '') FROM generate_series(1, 300) i $$;
CREATE FUNCTION er_mid(seed int) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT string_agg(md5((seed * 1000 + i)::text), '') FROM generate_series(1, 125) i $$;
SELECT length(er_big(1)) AS len, pg_column_size(er_big(1)) AS stored_size;
SELECT length(er_mid(1)) AS len, pg_column_size(er_mid(1)) AS stored_size;

--
-- Keys too large for a page.  er.t uses the database's default collation; the
-- test suite runs in C.UTF-8 (test/run-all.sh), where such text indexes use
-- comparator-mode keys (under a plain "C" default collation they would use
-- normalized keys, and the messages for er_t would look like those for er_c_t).
--
-- insert
INSERT INTO er (id, t) VALUES (5001, er_big(1));
INSERT INTO er (id, t) VALUES (5001, er_mid(1));
SELECT count(*) FROM er;
SELECT pagebtree_check('er_t', true);
SELECT pagebtree_check('er_id_u', true);
-- the same for text under the "C" collation (a different key format)
CREATE TABLE er_c (id int, t text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO er_c SELECT i, md5(i::text) FROM generate_series(1, 2000) i;
CREATE INDEX er_c_t ON er_c USING pagebtree (t);
INSERT INTO er_c VALUES (5001, er_big(1));
INSERT INTO er_c VALUES (5001, er_mid(1));
UPDATE er_c SET t = er_mid(2) WHERE id = 7;
SELECT count(*), count(*) FILTER (WHERE t = md5(id::text)) FROM er_c;
SELECT pagebtree_check('er_c_t', true);
-- insert of many rows, the bad one in the middle
INSERT INTO er (id, t)
SELECT i, CASE WHEN i = 5050 THEN er_big(2) ELSE md5(i::text) END
FROM generate_series(5001, 5100) i;
SELECT count(*) FROM er;
SELECT pagebtree_check('er_t', true);
-- update
UPDATE er SET t = er_big(3) WHERE id = 5;
SELECT t = md5('5') AS unchanged FROM er WHERE id = 5;
SELECT pagebtree_check('er_t', true);
-- the INCLUDE column makes the item too large
UPDATE er SET u = er_big(4) WHERE id = 6;
UPDATE er SET u = er_mid(4) WHERE id = 6;
SELECT u FROM er WHERE id = 6;
SELECT pagebtree_check('er_id_u', true);
-- the same in a transaction that then continues after a savepoint rollback
BEGIN;
INSERT INTO er (id, t) VALUES (6001, 'ok-1');
SAVEPOINT s;
INSERT INTO er (id, t) VALUES (6002, er_big(5));
ROLLBACK TO SAVEPOINT s;
INSERT INTO er (id, t) VALUES (6003, 'ok-3');
COMMIT;
SELECT id, t FROM er WHERE id > 6000 ORDER BY id;
SELECT count(*) FROM er;
SELECT pagebtree_check('er_t', true);
SELECT pagebtree_check('er_id_u', true);
-- index build over a table that already holds a too-large value
CREATE TABLE er_big_tab (id int, t text);
INSERT INTO er_big_tab SELECT i, md5(i::text) FROM generate_series(1, 1000) i;
INSERT INTO er_big_tab VALUES (1001, er_mid(6));
CREATE INDEX er_big_tab_t ON er_big_tab USING pagebtree (t);
CREATE INDEX er_big_tab_tc ON er_big_tab USING pagebtree (t COLLATE "C");
SELECT count(*) FROM pg_class WHERE relname IN ('er_big_tab_t', 'er_big_tab_tc');
SELECT count(*) FROM er_big_tab;
CREATE INDEX CONCURRENTLY er_big_tab_t ON er_big_tab USING pagebtree (t);
SELECT indisvalid FROM pg_index WHERE indexrelid = 'er_big_tab_t'::regclass;
DROP INDEX er_big_tab_t;
-- a value of moderate size still fits
INSERT INTO er (id, t) VALUES (7001, substr(er_big(7), 1, 1500));
SELECT count(*) FROM er;
SELECT pagebtree_check('er_t', true);

--
-- Types without a pagebtree operator class, and foreign operator classes.
--
CREATE INDEX er_p ON er USING pagebtree (p);
CREATE INDEX er_j ON er USING pagebtree (j);
CREATE INDEX er_tp ON er USING pagebtree (t text_pattern_ops);
CREATE INDEX er_ti ON er USING pagebtree (id, p);
SELECT count(*) FROM pg_class WHERE relname IN ('er_p', 'er_j', 'er_tp', 'er_ti');

--
-- Reloptions.
--
CREATE INDEX er_ff ON er USING pagebtree (id) WITH (fillfactor = 5);
CREATE INDEX er_ff ON er USING pagebtree (id) WITH (fillfactor = 101);
CREATE INDEX er_ff ON er USING pagebtree (id) WITH (fillfactor = 'abc');
CREATE INDEX er_ff ON er USING pagebtree (id) WITH (nosuchoption = 1);
CREATE INDEX er_ff ON er USING pagebtree (id) WITH (deduplicate_items = maybe);
ALTER INDEX er_t SET (fillfactor = 5);
ALTER INDEX er_t SET (nosuchoption = 1);
SELECT reloptions FROM pg_class WHERE relname = 'er_t';
SELECT count(*) FROM pg_class WHERE relname = 'er_ff';
-- the bounds themselves are accepted
CREATE INDEX er_ff10 ON er USING pagebtree (id) WITH (fillfactor = 10);
CREATE INDEX er_ff100 ON er USING pagebtree (id) WITH (fillfactor = 100);
SELECT pagebtree_check('er_ff10', true);
SELECT pagebtree_check('er_ff100', true);
DROP INDEX er_ff10, er_ff100;

-- (Unique indexes are tested in unique.sql.)

-- Exclusion constraints only need amgettuple, so they work already.
CREATE TABLE er_ex (id int, k int, EXCLUDE USING pagebtree (k WITH =));
INSERT INTO er_ex SELECT i, i FROM generate_series(1, 1000) i;
INSERT INTO er_ex VALUES (1001, 500);
INSERT INTO er_ex VALUES (1002, NULL), (1003, NULL);
SELECT count(*) FROM er_ex;
SELECT pagebtree_check('er_ex_k_excl', true);

--
-- The inspection functions reject what is not a pagebtree index.
--
CREATE INDEX er_bt ON er USING btree (id);
SELECT pagebtree_check('er_bt');
SELECT pagebtree_check('er');
SELECT * FROM pagebtree_metapage('er_bt');
SELECT * FROM pagebtree_page_stats('er', 0);
SELECT * FROM pagebtree_page_items('er_bt', 1);
SELECT * FROM pagebtree_page_stats('er_t', 100000);
SELECT * FROM pagebtree_page_items('er_t', -1);
-- they are not for everyone
CREATE ROLE regress_pbt_user;
SET ROLE regress_pbt_user;
SELECT pagebtree_check('er_t');
SELECT * FROM pagebtree_metapage('er_t');
RESET ROLE;
DROP ROLE regress_pbt_user;

-- everything is still there
SELECT count(*) FROM er;
SELECT pagebtree_check('er_t', true);
SELECT pagebtree_check('er_id_u', true);

-- clean up
DROP TABLE er, er_c, er_big_tab, er_ex;
DROP FUNCTION er_big(int);
DROP FUNCTION er_mid(int);
