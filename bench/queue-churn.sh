#!/bin/bash
# Queue churn: the oldest rows are deleted and VACUUMed, as many new ones
# appended at the right end, cycle after cycle, with a btree and a
# pagebtree index over the same keys.  Prints the pages of both indexes,
# pagebtree's inner pages and leaves, the buffers that min(k) reads, and
# the WAL each cycle's VACUUM writes (after a checkpoint, so that both
# indexes log the first change of each page whole).
#
# usage: bash bench/queue-churn.sh [CYCLES] [COLLATION] [ROWS] [PER_CYCLE]
#   defaults: 15 cycles, "und-x-icu" (comparator mode: wide keys, about 25
#   downlinks an inner page, so the tree is deep at 40,000 rows), 40,000
#   rows, 10,000 a cycle.  "C" gives normalized keys.
# Runs a throwaway cluster of the server whose bin directory is $PG_BIN
# (default: pg_config --bindir), with pagebtree installed there, as the
# user postgres when run as root.  PRELOAD=0 runs it without
# shared_preload_libraries (generic WAL); CHECKPOINT=0 leaves out the
# checkpoint before each cycle's VACUUM; PBT_OPTIONS gives the pagebtree
# index's storage parameters (PBT_OPTIONS="leaf_group_size = 4").
set -euo pipefail
CYCLES=${1:-15}
COLL=${2:-und-x-icu}
ROWS=${3:-40000}
PER=${4:-10000}
CHECKPOINT=${CHECKPOINT:-1}
PORT=5499
. "$(dirname "$0")/throwaway-cluster.sh"
# statements from standard input, each in its own transaction
qf() { q -f -; }

key="lpad(g::text, 12, '0') || repeat('x', 200)"
qf <<SQL
CREATE EXTENSION pagebtree;
CREATE TABLE qb (n int8, k text COLLATE "$COLL") WITH (autovacuum_enabled = off);
CREATE TABLE qp (n int8, k text COLLATE "$COLL") WITH (autovacuum_enabled = off);
INSERT INTO qb SELECT g, $key FROM generate_series(1, $ROWS) g;
INSERT INTO qp SELECT * FROM qb;
CREATE INDEX qb_k ON qb USING btree (k);
CREATE INDEX qp_k ON qp USING pagebtree (k) ${PBT_OPTIONS:+WITH ($PBT_OPTIONS)};
VACUUM qb; VACUUM qp;
SQL

# buffers a scan from the left end reads
min_buffers() {
	q -c "SET enable_seqscan = off" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT min(k) FROM $1" |
		grep -m1 -o 'shared hit=[0-9]*\( read=[0-9]*\)\?' | grep -o '[0-9]*' | paste -sd+ | bc
}
report() {
	local sizes inner leaves
	sizes=$(q -c "SELECT pg_relation_size('qb_k') / 8192 || ' | ' || pg_relation_size('qp_k') / 8192")
	inner=$(q -c "SELECT coalesce(sum(pages), 0) FROM pagebtree_layout_summary('qp_k') WHERE page_type = 'inner'")
	leaves=$(q -c "SELECT coalesce(sum(pages), 0) FROM pagebtree_layout_summary('qp_k') WHERE page_type = 'leaf'")
	echo "| $1 | $sizes | $inner | $leaves | $(min_buffers qb) | $(min_buffers qp) | ${2:-} |"
}

echo "Queue churn: $ROWS rows of 212-byte text keys (COLLATE \"$COLL\"), $PER deleted and appended a cycle (preloaded: $PRELOAD, checkpoint before VACUUM: $CHECKPOINT${PBT_OPTIONS:+, pagebtree WITH ($PBT_OPTIONS)})"
echo
echo "| cycle | btree pages | pagebtree pages | pagebtree inner | pagebtree leaves | min(k) buffers, btree | min(k) buffers, pagebtree | VACUUM WAL kB, btree | VACUUM WAL kB, pagebtree |"
echo "|---|---|---|---|---|---|---|---|---|"
report 0 " | "
# WAL bytes of a VACUUM of table $1
vacuum_wal() {
	local before
	before=$(q -c "SELECT pg_current_wal_insert_lsn()")
	q -c "VACUUM $1"
	q -c "SELECT round(pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$before') / 1024.0)"
}
for c in $(seq 1 "$CYCLES"); do
	[ "$CHECKPOINT" = 1 ] && q -c CHECKPOINT
	qf <<SQL
DELETE FROM qb WHERE n < (SELECT min(n) FROM qb) + $PER;
DELETE FROM qp WHERE n < (SELECT min(n) FROM qp) + $PER;
SQL
	wal="$(vacuum_wal qb) | $(vacuum_wal qp)"
	qf <<SQL
INSERT INTO qb SELECT g, $key FROM generate_series((SELECT max(n) FROM qb) + 1, (SELECT max(n) FROM qb) + $PER) g;
INSERT INTO qp SELECT g, $key FROM generate_series((SELECT max(n) FROM qp) + 1, (SELECT max(n) FROM qp) + $PER) g;
SQL
	q -c "SELECT pagebtree_check('qp_k', true)" >/dev/null
	report "$c" "$wal"
done
