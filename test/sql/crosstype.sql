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
