--
-- Cross-type scan keys on normalized datetime columns: a date compared with
-- a timestamp or timestamptz column is converted exactly as the operator
-- converts it (timestamptz: in the session time zone), including infinite
-- dates and dates beyond the timestamp range; other combinations are
-- checked row by row.  Every query is compared with a sequential scan.
--
SET client_min_messages = warning;
CREATE TABLE ct (ts timestamp, tz timestamptz, d date);
INSERT INTO ct
SELECT '2024-03-01'::timestamp + g * interval '37 minutes',
       '2024-03-01 00:00+00'::timestamptz + g * interval '37 minutes',
       '2024-03-01'::date + g / 40
FROM generate_series(0, 20000) g;
INSERT INTO ct VALUES ('infinity', 'infinity', 'infinity'), ('-infinity', '-infinity', '-infinity'),
                      (NULL, NULL, NULL);
CREATE INDEX ct_ts ON ct USING pagebtree (ts);
CREATE INDEX ct_tz ON ct USING pagebtree (tz);
CREATE INDEX ct_d ON ct USING pagebtree (d);
SELECT indexrelid::regclass, (pagebtree_metapage(indexrelid)).key_mode
FROM pg_index WHERE indrelid = 'ct'::regclass ORDER BY 1;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT tz FROM ct WHERE tz >= '2024-03-05'::date ORDER BY tz;
RESET enable_seqscan;
RESET enable_bitmapscan;

SELECT q, c.plan_ok, c.nrows, c.ndiffs
FROM unnest(ARRAY[
    'SELECT tz FROM ct WHERE tz >= ''2024-03-05''::date ORDER BY tz',
    'SELECT tz FROM ct WHERE tz < ''2024-03-05''::date ORDER BY tz DESC',
    'SELECT tz FROM ct WHERE tz = ''2024-03-01''::date',
    'SELECT tz FROM ct WHERE tz > ''infinity''::date',
    'SELECT tz FROM ct WHERE tz < ''infinity''::date ORDER BY tz DESC LIMIT 3',
    'SELECT tz FROM ct WHERE tz > ''-infinity''::date ORDER BY tz LIMIT 3',
    'SELECT tz FROM ct WHERE tz < ''5874897-12-31''::date ORDER BY tz DESC LIMIT 3',
    'SELECT tz FROM ct WHERE tz >= ''5874897-12-31''::date',
    'SELECT ts FROM ct WHERE ts BETWEEN ''2024-03-02''::date AND ''2024-03-03''::date ORDER BY ts',
    'SELECT ts FROM ct WHERE ts > ''5874897-12-31''::date',
    'SELECT ts FROM ct WHERE ts >= ''2024-03-10 12:00''::timestamptz ORDER BY ts LIMIT 20',
    'SELECT d FROM ct WHERE d > ''2024-03-10 12:00''::timestamp ORDER BY d LIMIT 20',
    'SELECT d FROM ct WHERE d <= ''2024-03-10 12:00''::timestamptz ORDER BY d DESC LIMIT 20'
]) q, LATERAL pbt_cmp(q, 'index') c;

-- the same in another time zone: the conversion follows TimeZone
SET TimeZone = 'Asia/Kolkata';
SELECT q, c.plan_ok, c.nrows, c.ndiffs
FROM unnest(ARRAY[
    'SELECT tz FROM ct WHERE tz >= ''2024-03-05''::date ORDER BY tz',
    'SELECT tz FROM ct WHERE tz = ''2024-03-01''::date',
    'SELECT ts FROM ct WHERE ts < ''2024-03-05 10:00''::timestamptz ORDER BY ts DESC LIMIT 20'
]) q, LATERAL pbt_cmp(q, 'index') c;
RESET TimeZone;
SELECT pagebtree_check('ct_tz', true), pagebtree_check('ct_ts', true), pagebtree_check('ct_d', true);

-- text against name (text_ops's cross-type members): a name is encoded as
-- its characters, so it positions the scan as a text value does (it was
-- checked row by row, through the whole index)
CREATE TABLE ctn (v text COLLATE "C");
INSERT INTO ctn SELECT md5(g::text) || left(md5((-g)::text), 20) FROM generate_series(1, 20000) g;
CREATE INDEX ctn_v ON ctn USING pagebtree (v);
VACUUM ANALYZE ctn;
SELECT q, c.plan_ok, c.nrows, c.ndiffs
FROM unnest(ARRAY[
    'SELECT v FROM ctn WHERE v = (md5(''5000'') || left(md5(''-5000''), 20))::name',
    'SELECT v FROM ctn WHERE v < ''1''::name ORDER BY v DESC',
    'SELECT v FROM ctn WHERE v >= ''fe''::name ORDER BY v',
    'SELECT v FROM ctn WHERE v = ANY (ARRAY[md5(''7'') || left(md5(''-7''), 20), ''x'']::name[])'
]) q, LATERAL pbt_cmp(q, 'index') c;
-- the buffers a lookup reads: the root, a leaf and the visibility map
CREATE FUNCTION ctn_buffers(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    ln text;
BEGIN
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_bitmapscan = off;
    FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF ln ~ 'Buffers' THEN
            RETURN coalesce(substring(ln FROM 'hit=(\d+)')::int, 0) +
                   coalesce(substring(ln FROM 'read=(\d+)')::int, 0);
        END IF;
    END LOOP;
END $$;
SELECT ctn_buffers('SELECT v FROM ctn WHERE v = (md5(''5000'') || left(md5(''-5000''), 20))::name') <= 4 AS positioned,
       (SELECT sum(pages) FROM pagebtree_layout_summary('ctn_v') WHERE page_type = 'leaf') > 100 AS many_leaves;
SELECT pagebtree_check('ctn_v', true);
