/* pagebtree 0.1 -> 0.2: pagebtree_metapage reports the delta area, pagebtree_runs, pagebtree_group_lookups, pagebtree_groups and pagebtree_layout_summary */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pagebtree UPDATE TO '0.2'" to load this file. \quit

-- pagebtree_metapage gains an OUT column (delta_group), which changes its
-- result type: CREATE OR REPLACE cannot do that, so the function is dropped
-- and created again.  EXECUTE granted on it since 0.1 is lost (it is
-- revoked from PUBLIC again below); a view or function that depends on it
-- makes the update fail, and has to be dropped first.
DROP FUNCTION pagebtree_metapage(regclass);

CREATE FUNCTION pagebtree_metapage(index regclass,
    OUT magic integer, OUT version integer, OUT root bigint, OUT level integer,
    OUT key_mode text, OUT wal_mode text, OUT nblocks bigint,
    OUT delta_group integer)
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

-- the delta area: per leaf, entries pending in its run and runs folded
CREATE FUNCTION pagebtree_runs(index regclass,
    OUT leaf bigint, OUT side_block bigint, OUT entries integer,
    OUT bytes integer, OUT folds bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

-- leaf groups: this backend's descents into groups and the subnodes they
-- read (the first included); reset => true zeroes them after reading
CREATE FUNCTION pagebtree_group_lookups(reset boolean DEFAULT false,
    OUT descents bigint, OUT subnode_reads bigint)
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

-- leaf groups: one row per group, in key order: the level-1 page holding
-- its downlink, its first block, subnodes in use and holes, epoch, entries,
-- average free bytes of the subnodes in use, subnodes its hints describe
-- (NULL: the index keeps no hints) and the share of its entries that the
-- hints place on their own subnode (NULL: no hints yet)
CREATE FUNCTION pagebtree_groups(index regclass,
    OUT parent bigint, OUT start bigint, OUT subnodes integer,
    OUT holes integer, OUT epoch bigint, OUT items bigint,
    OUT avg_free_size integer, OUT hinted_subnodes integer,
    OUT hint_exact double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT PARALLEL RESTRICTED;

-- pages, entries and free space per page type and layout (callers need
-- EXECUTE on pagebtree_metapage and pagebtree_page_stats too)
CREATE FUNCTION pagebtree_layout_summary(index regclass,
    OUT page_type text, OUT layout text, OUT pages bigint,
    OUT live_items bigint, OUT avg_free_size integer)
RETURNS SETOF record
LANGUAGE sql STRICT PARALLEL RESTRICTED
AS $$
    SELECT s.page_type, s.layout, count(*), sum(s.live_items),
           avg(s.free_size)::integer
    FROM pagebtree_metapage(index) m,    -- errors for what is not a pagebtree index
         LATERAL generate_series(1, m.nblocks - 1) b,
         LATERAL pagebtree_page_stats(index, b) s
    GROUP BY 1, 2
    ORDER BY 1, 2
$$;

REVOKE ALL ON FUNCTION pagebtree_metapage(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION pagebtree_layout_summary(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION pagebtree_runs(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION pagebtree_groups(regclass) FROM PUBLIC;

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
