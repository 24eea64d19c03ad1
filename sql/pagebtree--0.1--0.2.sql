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
