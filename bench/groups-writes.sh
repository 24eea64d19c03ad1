#!/bin/bash
# Page writes of leaf groups (issue #23) under checkpoints: random keys
# inserted one by one into empty indexes in equal steps, a CHECKPOINT after
# each, so that every step's first change to a page logs its full image and
# every page it dirtied is written.  A rebalance or group split rewrites a
# whole group (N pages), where a split without groups writes two; this
# counts what that costs against btree and pagebtree without groups: WAL
# bytes and full-page images per insert (heap included), buffers written
# (checkpointer, background writer and backends) per insert, and the
# rebalances and group splits (the DEBUG2 lines of the loads).  Library
# preloaded and the indexes in shared buffers, so the default delta = auto
# keeps no delta area.  Prints a Markdown table (bench/results/groups-writes*.md).
#
#   bash bench/groups-writes.sh [rows] [steps]   (as root; default 2000000, 16)
set -euo pipefail
ROWS=${1:-2000000}
STEPS=${2:-16}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PBT_BENCH_PORT:-5636}
SERVER_CONF="shared_buffers = 1GB
max_wal_size = 20GB
checkpoint_timeout = 1h"
. "$HERE/bench/private-server.sh"

KINDS="btree pagebtree groups16"
index_def() {
	case $1 in
	btree) echo "USING btree (k)" ;;
	pagebtree) echo "USING pagebtree (k)" ;;
	groups16) echo "USING pagebtree (k) WITH (leaf_group_size = 16)" ;;
	esac
}
written() { sql "SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter"; }
per1000() { awk -v a="$1" -v n="$2" 'BEGIN {printf "%.1f", a * 1000 / n}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

sql "CREATE EXTENSION pagebtree"
sql "CREATE TABLE src AS SELECT (i * 2654435761) % 1099511627776 AS k, row_number() OVER (ORDER BY md5(i::text)) AS r
     FROM generate_series(1, $ROWS) i"
sql "CREATE INDEX ON src (r)"
step=$(( (ROWS + STEPS - 1) / STEPS ))

echo "# Leaf groups: page writes under checkpoints"
echo
echo "\`bash bench/groups-writes.sh $ROWS $STEPS\` on $(date -u +%Y-%m-%d), PostgreSQL $($BIN/postgres --version | awk '{print $3}'),"
echo "$(nproc) cores, commit $(git -C "$HERE" rev-parse --short HEAD). $ROWS sparse int8 keys inserted one by one in random order into"
echo "an empty indexed table, one table per index kind, in $STEPS steps of $step rows with a CHECKPOINT after each"
echo "(library preloaded, shared_buffers = 1GB: pages are written by the checkpoints; default options, so the default"
echo "\`delta = auto\` keeps no delta area). Per 1,000 inserts: full-page"
echo "images (\`pg_stat_wal\`) and buffers written (\`pg_stat_bgwriter\`: checkpointer, background writer, backends);"
echo "WAL bytes per insert, heap included; rebalances and group splits counted from the loads' DEBUG2 lines."
echo
echo "| kind | index pages | size / btree | WAL bytes per insert | full-page images per 1,000 | / btree | buffers written per 1,000 | / btree | rebalances | group splits |"
echo "|---|---|---|---|---|---|---|---|---|---|"
declare -A ROW=()
for k in $KINDS; do
	sql "CREATE TABLE t_$k (k int8); CREATE INDEX t_${k}_k ON t_$k $(index_def "$k"); CHECKPOINT"
	l0=$(sql "SELECT pg_current_wal_insert_lsn()")
	f0=$(sql "SELECT wal_fpi FROM pg_stat_wal")
	w0=$(written)
	ops=$(for ((s = 0; s < STEPS; s++)); do
		su postgres -c "$PSQL -c 'SET client_min_messages = debug2' -c 'INSERT INTO t_$k SELECT k FROM src WHERE r > $((s * step)) AND r <= $(((s + 1) * step)) ORDER BY r' -c 'RESET client_min_messages' -c 'CHECKPOINT'" 2>&1 >/dev/null |
			grep -o 'pagebtree: [a-z]* of the leaf group' || true
	done | awk '{n[$2]++} END {print n["rebalance"] + 0, n["split"] + 0}')
	sql "SELECT pg_stat_force_next_flush()" >/dev/null
	sleep 1	# the checkpointer publishes its counters after the CHECKPOINT returns
	read -r wal fpi pages < <(sql "SELECT round((pg_current_wal_insert_lsn() - '$l0') / $ROWS.0, 1), wal_fpi - $f0, pg_relation_size('t_${k}_k') / 8192 FROM pg_stat_wal" | tr '|' ' ')
	ROW[$k]="$pages $wal $(per1000 "$fpi" "$ROWS") $(per1000 "$(( $(written) - w0 ))" "$ROWS") $ops"
	[ "$k" = btree ] || sql "SELECT pagebtree_check('t_${k}_k', true)" >/dev/null
done
read -r bpages _ bfpi bwritten _ <<<"${ROW[btree]}"
for k in $KINDS; do
	read -r pages wal fpi wr reb spl <<<"${ROW[$k]}"
	[ "$k" = btree ] && reb=- && spl=-
	echo "| $k | $pages | $(ratio "$pages" "$bpages") | $wal | $fpi | $(ratio "$fpi" "$bfpi") | $wr | $(ratio "$wr" "$bwritten") | $reb | $spl |"
done
echo
echo "Every pagebtree index passed \`pagebtree_check(index, true)\`."
