--
-- INCLUDE payloads in their two forms (src/pbt_keys.c).  By default an index
-- with INCLUDE columns is built in format version 7 (8 with leaf groups):
-- payloads without the unused TID of their tuple header.  With
-- pagebtree.short_include_payloads off, a build keeps version 3 (6), which
-- earlier libraries read.  Two tables hold the same rows, one indexed in
-- each form: every index returns what a sequential scan does, takes inserts
-- in its own form whatever the setting, passes the verifier, and REINDEX
-- moves it to the form the setting gives.
--
SET client_min_messages = warning;

CREATE FUNCTION fmt_rows(t text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- id dense (semidense leaves), k repeating (heads leaves), g sparse for
    -- leaf groups; NULLs and varlena values in the payloads
    EXECUTE format($q$
        INSERT INTO %I
        SELECT i, i %% 997, i * 37, (i * 7) %% 1000,
               CASE WHEN i %% 5 = 0 THEN NULL ELSE 'x' || (i %% 97) END,
               CASE WHEN i %% 3 = 0 THEN NULL ELSE i / 7.0 END
        FROM generate_series(coalesce((SELECT max(id) FROM %I), 0) + 1,
                             coalesce((SELECT max(id) FROM %I), 0) + 10000) i$q$,
        t, t, t);
END;
$$;
CREATE TABLE fmt_long (id int8, k int4, g int8, v4 int4, s text, n numeric)
    WITH (autovacuum_enabled = off);
CREATE TABLE fmt_short (LIKE fmt_long) WITH (autovacuum_enabled = off);
SELECT fmt_rows('fmt_long'), fmt_rows('fmt_short');

SET pagebtree.short_include_payloads = off;
CREATE INDEX fmt_long_id ON fmt_long USING pagebtree (id) INCLUDE (v4);
CREATE INDEX fmt_long_k ON fmt_long USING pagebtree (k) INCLUDE (s, n);
CREATE INDEX fmt_long_g ON fmt_long USING pagebtree (g) INCLUDE (s)
    WITH (leaf_group_size = 4);
RESET pagebtree.short_include_payloads;
CREATE INDEX fmt_short_id ON fmt_short USING pagebtree (id) INCLUDE (v4);
CREATE INDEX fmt_short_k ON fmt_short USING pagebtree (k) INCLUDE (s, n);
CREATE INDEX fmt_short_g ON fmt_short USING pagebtree (g) INCLUDE (s)
    WITH (leaf_group_size = 4);
-- without INCLUDE columns the format is the same: no new version
CREATE INDEX fmt_short_plain ON fmt_short USING pagebtree (k);

-- versions, and the leaf layouts the payloads are stored in
CREATE VIEW fmt_indexes AS
    SELECT c.relname, m.version,
           (SELECT string_agg(DISTINCT layout, ',' ORDER BY layout)
            FROM pagebtree_layout_summary(c.oid) WHERE page_type = 'leaf') AS leaves
    FROM pg_class c, LATERAL pagebtree_metapage(c.oid) m
    WHERE c.relname LIKE 'fmt\_%' AND c.relkind = 'i'
    ORDER BY c.relname;
SELECT * FROM fmt_indexes;

-- the short form takes less room
SELECT pg_relation_size('fmt_short_id') < 0.85 * pg_relation_size('fmt_long_id') AS id_smaller,
       pg_relation_size('fmt_short_k') < pg_relation_size('fmt_long_k') AS k_smaller;

-- inserts with the setting either way keep each index's form
SET pagebtree.short_include_payloads = off;
SELECT fmt_rows('fmt_long'), fmt_rows('fmt_short');
RESET pagebtree.short_include_payloads;
SELECT fmt_rows('fmt_long'), fmt_rows('fmt_short');
SELECT relname, version FROM fmt_indexes;

CREATE FUNCTION fmt_queries(t text) RETURNS text[] LANGUAGE sql AS $$
    SELECT ARRAY[format('SELECT v4 AS c FROM %I WHERE id BETWEEN 100 AND 25000', t),
                 format('SELECT count(*) FROM %I WHERE id > 29000', t),
                 format('SELECT k, s, n FROM %I WHERE k < 300', t),
                 format('SELECT k, s, n FROM %I WHERE k = 5 AND s IS NULL', t),
                 format('SELECT s AS c FROM %I WHERE g > 500000', t),
                 format('SELECT g, s FROM %I WHERE g < 100000 ORDER BY g DESC', t)]
$$;
SELECT * FROM pbt_verify(fmt_queries('fmt_long'));
SELECT * FROM pbt_verify(fmt_queries('fmt_short'));
SELECT relname, pagebtree_check(relname::regclass, true) FROM fmt_indexes;

-- both forms decode to the same values
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT (SELECT md5(string_agg(concat_ws(',', k, s, n), ';' ORDER BY k, s, n))
        FROM fmt_long WHERE k < 500) =
       (SELECT md5(string_agg(concat_ws(',', k, s, n), ';' ORDER BY k, s, n))
        FROM fmt_short WHERE k < 500) AS same_values;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- REINDEX builds in the form the setting gives
REINDEX TABLE fmt_long;
SET pagebtree.short_include_payloads = off;
REINDEX INDEX fmt_short_g;
RESET pagebtree.short_include_payloads;
SELECT relname, version FROM fmt_indexes;
SELECT * FROM pbt_verify(fmt_queries('fmt_long'));
SELECT * FROM pbt_verify(fmt_queries('fmt_short'));
SELECT relname, pagebtree_check(relname::regclass, true) FROM fmt_indexes;

-- Index-only scans lay out each row's tuple from the item's bytes
-- (pbt_item_tuple_data): keys, then the payload's values at their
-- alignment in the new tuple, in both forms; varlenas with 4-byte headers
-- (texts over 126 bytes), by-reference fixed-width values, a text key
-- DESC, and NULLs (the general path) among them.
CREATE TABLE fmt_align AS
SELECT g, (g % 37)::int2 AS s, md5(g::text) COLLATE "C" AS t,
       CASE WHEN g % 11 = 0 THEN NULL ELSE g::numeric / 7 END AS num,
       CASE WHEN g % 13 = 0 THEN repeat(md5(g::text), 5)
            ELSE substr(md5(g::text), 1, g % 20) END AS lt,
       md5(g::text)::uuid AS u, g % 2 = 0 AS b, g::int8 * 1000003 AS i8,
       'n' || g AS nm
FROM generate_series(1, 6000) g;
CREATE INDEX fmt_align_short ON fmt_align USING pagebtree (s, g) INCLUDE (num, lt, u, b, i8);
CREATE INDEX fmt_align_text ON fmt_align USING pagebtree (t DESC) INCLUDE (g, nm, b);
SET pagebtree.short_include_payloads = off;
CREATE INDEX fmt_align_long ON fmt_align USING pagebtree (g) INCLUDE (lt, b, num, i8);
RESET pagebtree.short_include_payloads;
VACUUM ANALYZE fmt_align;
SELECT * FROM pbt_cmp('SELECT s, g, num, lt, u, b, i8 FROM fmt_align ORDER BY s, g', 'indexonly');
SELECT * FROM pbt_cmp('SELECT t, g, nm, b FROM fmt_align ORDER BY t DESC', 'indexonly');
SELECT * FROM pbt_cmp('SELECT g, lt, b, num, i8 FROM fmt_align WHERE g > 100 ORDER BY g DESC', 'indexonly');

DROP TABLE fmt_long, fmt_short, fmt_align CASCADE;
DROP FUNCTION fmt_rows(text), fmt_queries(text);
