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

/*
 * Types stored in comparator mode only, with btree's operators and comparison
 * function: one family and default class each, as btree has them (inet's
 * class is inet_ops in the family network_ops).
 */

-- enum types, in their declared order
CREATE OPERATOR FAMILY enum_ops USING pagebtree;

CREATE OPERATOR CLASS enum_ops
    DEFAULT FOR TYPE anyenum USING pagebtree FAMILY enum_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 enum_cmp(anyenum, anyenum);

-- inet and cidr (cidr through binary coercion, as with btree)
CREATE OPERATOR FAMILY network_ops USING pagebtree;

CREATE OPERATOR CLASS inet_ops
    DEFAULT FOR TYPE inet USING pagebtree FAMILY network_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 network_cmp(inet, inet);

-- macaddr
CREATE OPERATOR FAMILY macaddr_ops USING pagebtree;

CREATE OPERATOR CLASS macaddr_ops
    DEFAULT FOR TYPE macaddr USING pagebtree FAMILY macaddr_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 macaddr_cmp(macaddr, macaddr);

-- macaddr8
CREATE OPERATOR FAMILY macaddr8_ops USING pagebtree;

CREATE OPERATOR CLASS macaddr8_ops
    DEFAULT FOR TYPE macaddr8 USING pagebtree FAMILY macaddr8_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 macaddr8_cmp(macaddr8, macaddr8);

-- money
CREATE OPERATOR FAMILY money_ops USING pagebtree;

CREATE OPERATOR CLASS money_ops
    DEFAULT FOR TYPE money USING pagebtree FAMILY money_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 cash_cmp(money, money);

-- timetz
CREATE OPERATOR FAMILY timetz_ops USING pagebtree;

CREATE OPERATOR CLASS timetz_ops
    DEFAULT FOR TYPE timetz USING pagebtree FAMILY timetz_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 timetz_cmp(timetz, timetz);

-- bit
CREATE OPERATOR FAMILY bit_ops USING pagebtree;

CREATE OPERATOR CLASS bit_ops
    DEFAULT FOR TYPE bit USING pagebtree FAMILY bit_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 bitcmp(bit, bit);

-- varbit
CREATE OPERATOR FAMILY varbit_ops USING pagebtree;

CREATE OPERATOR CLASS varbit_ops
    DEFAULT FOR TYPE varbit USING pagebtree FAMILY varbit_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 varbitcmp(varbit, varbit);

-- jsonb
CREATE OPERATOR FAMILY jsonb_ops USING pagebtree;

CREATE OPERATOR CLASS jsonb_ops
    DEFAULT FOR TYPE jsonb USING pagebtree FAMILY jsonb_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 jsonb_cmp(jsonb, jsonb);

-- arrays of any type with a btree ordering
CREATE OPERATOR FAMILY array_ops USING pagebtree;

CREATE OPERATOR CLASS array_ops
    DEFAULT FOR TYPE anyarray USING pagebtree FAMILY array_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btarraycmp(anyarray, anyarray);

-- range types
CREATE OPERATOR FAMILY range_ops USING pagebtree;

CREATE OPERATOR CLASS range_ops
    DEFAULT FOR TYPE anyrange USING pagebtree FAMILY range_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 range_cmp(anyrange, anyrange);

-- multirange types
CREATE OPERATOR FAMILY multirange_ops USING pagebtree;

CREATE OPERATOR CLASS multirange_ops
    DEFAULT FOR TYPE anymultirange USING pagebtree FAMILY multirange_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 multirange_cmp(anymultirange, anymultirange);

-- pg_lsn
CREATE OPERATOR FAMILY pg_lsn_ops USING pagebtree;

CREATE OPERATOR CLASS pg_lsn_ops
    DEFAULT FOR TYPE pg_lsn USING pagebtree FAMILY pg_lsn_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 pg_lsn_cmp(pg_lsn, pg_lsn);

-- tid
CREATE OPERATOR FAMILY tid_ops USING pagebtree;

CREATE OPERATOR CLASS tid_ops
    DEFAULT FOR TYPE tid USING pagebtree FAMILY tid_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 bttidcmp(tid, tid);

-- xid8
CREATE OPERATOR FAMILY xid8_ops USING pagebtree;

CREATE OPERATOR CLASS xid8_ops
    DEFAULT FOR TYPE xid8 USING pagebtree FAMILY xid8_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 xid8cmp(xid8, xid8);

-- oidvector
CREATE OPERATOR FAMILY oidvector_ops USING pagebtree;

CREATE OPERATOR CLASS oidvector_ops
    DEFAULT FOR TYPE oidvector USING pagebtree FAMILY oidvector_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btoidvectorcmp(oidvector, oidvector);

-- composite types, field by field
CREATE OPERATOR FAMILY record_ops USING pagebtree;

CREATE OPERATOR CLASS record_ops
    DEFAULT FOR TYPE record USING pagebtree FAMILY record_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 btrecordcmp(record, record);

-- btree's non-default classes of families above: varchar (text_ops, for
-- text) and cidr (network_ops, for inet) add no operators of their own
CREATE OPERATOR CLASS varchar_ops
    FOR TYPE text USING pagebtree FAMILY text_ops AS
    STORAGE text;

CREATE OPERATOR CLASS cidr_ops
    FOR TYPE inet USING pagebtree FAMILY network_ops AS
    STORAGE inet;

-- text and character(n) compared byte by byte whatever the collation
-- (btree's classes for LIKE prefixes: the planner makes those ranges only
-- for btree's own families, so here they read a whole range or index)
CREATE OPERATOR FAMILY text_pattern_ops USING pagebtree;

CREATE OPERATOR CLASS text_pattern_ops
    FOR TYPE text USING pagebtree FAMILY text_pattern_ops AS
    OPERATOR 1 ~<~,
    OPERATOR 2 ~<=~,
    OPERATOR 3 =,
    OPERATOR 4 ~>=~,
    OPERATOR 5 ~>~,
    FUNCTION 1 bttext_pattern_cmp(text, text);

CREATE OPERATOR CLASS varchar_pattern_ops
    FOR TYPE text USING pagebtree FAMILY text_pattern_ops AS
    STORAGE text;

CREATE OPERATOR FAMILY bpchar_pattern_ops USING pagebtree;

CREATE OPERATOR CLASS bpchar_pattern_ops
    FOR TYPE bpchar USING pagebtree FAMILY bpchar_pattern_ops AS
    OPERATOR 1 ~<~,
    OPERATOR 2 ~<=~,
    OPERATOR 3 =,
    OPERATOR 4 ~>=~,
    OPERATOR 5 ~>~,
    FUNCTION 1 btbpchar_pattern_cmp(bpchar, bpchar);

-- composite types, by the bytes of their fields
CREATE OPERATOR FAMILY record_image_ops USING pagebtree;

CREATE OPERATOR CLASS record_image_ops
    FOR TYPE record USING pagebtree FAMILY record_image_ops AS
    OPERATOR 1 *<,
    OPERATOR 2 *<=,
    OPERATOR 3 *=,
    OPERATOR 4 *>=,
    OPERATOR 5 *>,
    FUNCTION 1 btrecordimagecmp(record, record);

-- full text search values
CREATE OPERATOR FAMILY tsvector_ops USING pagebtree;

CREATE OPERATOR CLASS tsvector_ops
    DEFAULT FOR TYPE tsvector USING pagebtree FAMILY tsvector_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 tsvector_cmp(tsvector, tsvector);

CREATE OPERATOR FAMILY tsquery_ops USING pagebtree;

CREATE OPERATOR CLASS tsquery_ops
    DEFAULT FOR TYPE tsquery USING pagebtree FAMILY tsquery_ops AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 tsquery_cmp(tsquery, tsquery);
