/* pagebtree extension script: access method, verifier and inspection functions */
/* Frozen: the install script of version 0.1, the SQL of src/sql/ as of commit 505319d.  Do not edit; changes go to src/sql/ and an upgrade script. */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pagebtree" to load this file. \quit

CREATE FUNCTION pagebtreehandler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C;

CREATE ACCESS METHOD pagebtree TYPE INDEX HANDLER pagebtreehandler;
COMMENT ON ACCESS METHOD pagebtree IS 'B-link tree with normalized keys and pluggable node layouts';

-- Verify every structural invariant of a pagebtree index; raises an error
-- naming the block and item on the first violation.  With heapallindexed,
-- also checks that every visible heap tuple has an index entry.
CREATE FUNCTION pagebtree_check(index regclass, heapallindexed boolean DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

CREATE FUNCTION pagebtree_metapage(index regclass,
    OUT magic integer, OUT version integer, OUT root bigint, OUT level integer,
    OUT key_mode text, OUT wal_mode text, OUT nblocks bigint)
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

CREATE FUNCTION pagebtree_page_stats(index regclass, blkno bigint,
    OUT blkno bigint, OUT page_type text, OUT layout text, OUT level integer,
    OUT live_items integer, OUT free_size integer, OUT garbage_size integer,
    OUT prev bigint, OUT next bigint, OUT high_key bytea, OUT flags text)
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

CREATE FUNCTION pagebtree_page_items(index regclass, blkno bigint,
    OUT itemno integer, OUT heap_tid tid, OUT child bigint,
    OUT item_length integer, OUT data bytea)
RETURNS SETOF record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

REVOKE ALL ON FUNCTION pagebtree_check(regclass, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION pagebtree_metapage(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION pagebtree_page_stats(regclass, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION pagebtree_page_items(regclass, bigint) FROM PUBLIC;

/*
 * pagebtree operator families and operator classes.
 *
 * These mirror the core btree operator families one for one: strategies
 * 1..5 are <, <=, =, >=, > using the same built-in operators btree uses, and
 * support function 1 is the same built-in three-way comparison function
 * btree uses.  pagebtree needs no other support functions.
 *
 * Cross-type members (integer_ops, float_ops, datetime_ops, and name/text in
 * text_ops) are added with ALTER OPERATOR FAMILY, exactly as btree has them,
 * so that e.g. "int8col = 42" (int8 = int4) can use the index.  varchar
 * columns use text_ops through binary coercion, as with btree.  As in btree,
 * the name opclass lives in the text_ops family (cross-type name/text
 * operators); unlike btree it keeps the name type as storage type.
 */

-- int2, int4, int8 and all their cross-type comparisons
CREATE OPERATOR FAMILY integer_ops USING pagebtree;

CREATE OPERATOR CLASS int2_ops
    DEFAULT FOR TYPE int2 USING pagebtree FAMILY integer_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btint2cmp(int2, int2);

CREATE OPERATOR CLASS int4_ops
    DEFAULT FOR TYPE int4 USING pagebtree FAMILY integer_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btint4cmp(int4, int4);

CREATE OPERATOR CLASS int8_ops
    DEFAULT FOR TYPE int8 USING pagebtree FAMILY integer_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btint8cmp(int8, int8);

ALTER OPERATOR FAMILY integer_ops USING pagebtree ADD
    OPERATOR 1 < (int2, int4),
    OPERATOR 2 <= (int2, int4),
    OPERATOR 3 = (int2, int4),
    OPERATOR 4 >= (int2, int4),
    OPERATOR 5 > (int2, int4),
    FUNCTION 1 (int2, int4) btint24cmp(int2, int4),
    OPERATOR 1 < (int2, int8),
    OPERATOR 2 <= (int2, int8),
    OPERATOR 3 = (int2, int8),
    OPERATOR 4 >= (int2, int8),
    OPERATOR 5 > (int2, int8),
    FUNCTION 1 (int2, int8) btint28cmp(int2, int8),
    OPERATOR 1 < (int4, int2),
    OPERATOR 2 <= (int4, int2),
    OPERATOR 3 = (int4, int2),
    OPERATOR 4 >= (int4, int2),
    OPERATOR 5 > (int4, int2),
    FUNCTION 1 (int4, int2) btint42cmp(int4, int2),
    OPERATOR 1 < (int4, int8),
    OPERATOR 2 <= (int4, int8),
    OPERATOR 3 = (int4, int8),
    OPERATOR 4 >= (int4, int8),
    OPERATOR 5 > (int4, int8),
    FUNCTION 1 (int4, int8) btint48cmp(int4, int8),
    OPERATOR 1 < (int8, int2),
    OPERATOR 2 <= (int8, int2),
    OPERATOR 3 = (int8, int2),
    OPERATOR 4 >= (int8, int2),
    OPERATOR 5 > (int8, int2),
    FUNCTION 1 (int8, int2) btint82cmp(int8, int2),
    OPERATOR 1 < (int8, int4),
    OPERATOR 2 <= (int8, int4),
    OPERATOR 3 = (int8, int4),
    OPERATOR 4 >= (int8, int4),
    OPERATOR 5 > (int8, int4),
    FUNCTION 1 (int8, int4) btint84cmp(int8, int4);

-- float4, float8 and their cross-type comparisons
CREATE OPERATOR FAMILY float_ops USING pagebtree;

CREATE OPERATOR CLASS float4_ops
    DEFAULT FOR TYPE float4 USING pagebtree FAMILY float_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btfloat4cmp(float4, float4);

CREATE OPERATOR CLASS float8_ops
    DEFAULT FOR TYPE float8 USING pagebtree FAMILY float_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btfloat8cmp(float8, float8);

ALTER OPERATOR FAMILY float_ops USING pagebtree ADD
    OPERATOR 1 < (float4, float8),
    OPERATOR 2 <= (float4, float8),
    OPERATOR 3 = (float4, float8),
    OPERATOR 4 >= (float4, float8),
    OPERATOR 5 > (float4, float8),
    FUNCTION 1 (float4, float8) btfloat48cmp(float4, float8),
    OPERATOR 1 < (float8, float4),
    OPERATOR 2 <= (float8, float4),
    OPERATOR 3 = (float8, float4),
    OPERATOR 4 >= (float8, float4),
    OPERATOR 5 > (float8, float4),
    FUNCTION 1 (float8, float4) btfloat84cmp(float8, float4);

-- numeric
CREATE OPERATOR FAMILY numeric_ops USING pagebtree;

CREATE OPERATOR CLASS numeric_ops
    DEFAULT FOR TYPE numeric USING pagebtree FAMILY numeric_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 numeric_cmp(numeric, numeric);

-- date, timestamp, timestamptz and all their cross-type comparisons
CREATE OPERATOR FAMILY datetime_ops USING pagebtree;

CREATE OPERATOR CLASS date_ops
    DEFAULT FOR TYPE date USING pagebtree FAMILY datetime_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 date_cmp(date, date);

CREATE OPERATOR CLASS timestamp_ops
    DEFAULT FOR TYPE timestamp USING pagebtree FAMILY datetime_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 timestamp_cmp(timestamp, timestamp);

CREATE OPERATOR CLASS timestamptz_ops
    DEFAULT FOR TYPE timestamptz USING pagebtree FAMILY datetime_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 timestamptz_cmp(timestamptz, timestamptz);

ALTER OPERATOR FAMILY datetime_ops USING pagebtree ADD
    OPERATOR 1 < (date, timestamp),
    OPERATOR 2 <= (date, timestamp),
    OPERATOR 3 = (date, timestamp),
    OPERATOR 4 >= (date, timestamp),
    OPERATOR 5 > (date, timestamp),
    FUNCTION 1 (date, timestamp) date_cmp_timestamp(date, timestamp),
    OPERATOR 1 < (date, timestamptz),
    OPERATOR 2 <= (date, timestamptz),
    OPERATOR 3 = (date, timestamptz),
    OPERATOR 4 >= (date, timestamptz),
    OPERATOR 5 > (date, timestamptz),
    FUNCTION 1 (date, timestamptz) date_cmp_timestamptz(date, timestamptz),
    OPERATOR 1 < (timestamp, date),
    OPERATOR 2 <= (timestamp, date),
    OPERATOR 3 = (timestamp, date),
    OPERATOR 4 >= (timestamp, date),
    OPERATOR 5 > (timestamp, date),
    FUNCTION 1 (timestamp, date) timestamp_cmp_date(timestamp, date),
    OPERATOR 1 < (timestamp, timestamptz),
    OPERATOR 2 <= (timestamp, timestamptz),
    OPERATOR 3 = (timestamp, timestamptz),
    OPERATOR 4 >= (timestamp, timestamptz),
    OPERATOR 5 > (timestamp, timestamptz),
    FUNCTION 1 (timestamp, timestamptz) timestamp_cmp_timestamptz(timestamp, timestamptz),
    OPERATOR 1 < (timestamptz, date),
    OPERATOR 2 <= (timestamptz, date),
    OPERATOR 3 = (timestamptz, date),
    OPERATOR 4 >= (timestamptz, date),
    OPERATOR 5 > (timestamptz, date),
    FUNCTION 1 (timestamptz, date) timestamptz_cmp_date(timestamptz, date),
    OPERATOR 1 < (timestamptz, timestamp),
    OPERATOR 2 <= (timestamptz, timestamp),
    OPERATOR 3 = (timestamptz, timestamp),
    OPERATOR 4 >= (timestamptz, timestamp),
    OPERATOR 5 > (timestamptz, timestamp),
    FUNCTION 1 (timestamptz, timestamp) timestamptz_cmp_timestamp(timestamptz, timestamp);

-- time (without time zone)
CREATE OPERATOR FAMILY time_ops USING pagebtree;

CREATE OPERATOR CLASS time_ops
    DEFAULT FOR TYPE time USING pagebtree FAMILY time_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 time_cmp(time, time);

-- interval
CREATE OPERATOR FAMILY interval_ops USING pagebtree;

CREATE OPERATOR CLASS interval_ops
    DEFAULT FOR TYPE interval USING pagebtree FAMILY interval_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 interval_cmp(interval, interval);

-- boolean
CREATE OPERATOR FAMILY bool_ops USING pagebtree;

CREATE OPERATOR CLASS bool_ops
    DEFAULT FOR TYPE bool USING pagebtree FAMILY bool_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btboolcmp(bool, bool);

-- "char" (the one-byte internal type)
CREATE OPERATOR FAMILY char_ops USING pagebtree;

CREATE OPERATOR CLASS char_ops
    DEFAULT FOR TYPE "char" USING pagebtree FAMILY char_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btcharcmp("char", "char");

-- text (also used by varchar) and name, with name/text cross-type comparisons
CREATE OPERATOR FAMILY text_ops USING pagebtree;

CREATE OPERATOR CLASS text_ops
    DEFAULT FOR TYPE text USING pagebtree FAMILY text_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 bttextcmp(text, text);

CREATE OPERATOR CLASS name_ops
    DEFAULT FOR TYPE name USING pagebtree FAMILY text_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btnamecmp(name, name);

ALTER OPERATOR FAMILY text_ops USING pagebtree ADD
    OPERATOR 1 < (name, text),
    OPERATOR 2 <= (name, text),
    OPERATOR 3 = (name, text),
    OPERATOR 4 >= (name, text),
    OPERATOR 5 > (name, text),
    FUNCTION 1 (name, text) btnametextcmp(name, text),
    OPERATOR 1 < (text, name),
    OPERATOR 2 <= (text, name),
    OPERATOR 3 = (text, name),
    OPERATOR 4 >= (text, name),
    OPERATOR 5 > (text, name),
    FUNCTION 1 (text, name) bttextnamecmp(text, name);

-- character(n) / bpchar
CREATE OPERATOR FAMILY bpchar_ops USING pagebtree;

CREATE OPERATOR CLASS bpchar_ops
    DEFAULT FOR TYPE bpchar USING pagebtree FAMILY bpchar_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 bpcharcmp(bpchar, bpchar);

-- bytea
CREATE OPERATOR FAMILY bytea_ops USING pagebtree;

CREATE OPERATOR CLASS bytea_ops
    DEFAULT FOR TYPE bytea USING pagebtree FAMILY bytea_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 byteacmp(bytea, bytea);

-- uuid
CREATE OPERATOR FAMILY uuid_ops USING pagebtree;

CREATE OPERATOR CLASS uuid_ops
    DEFAULT FOR TYPE uuid USING pagebtree FAMILY uuid_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 uuid_cmp(uuid, uuid);

-- oid
CREATE OPERATOR FAMILY oid_ops USING pagebtree;

CREATE OPERATOR CLASS oid_ops
    DEFAULT FOR TYPE oid USING pagebtree FAMILY oid_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btoidcmp(oid, oid);
