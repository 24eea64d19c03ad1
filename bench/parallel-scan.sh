#!/bin/bash
# Parallel index-only scans (issue #25 item 4): a count(*) over most of a
# 10M-row int8 table through a Parallel Index Only Scan with 2 workers
# against the same scan with max_parallel_workers_per_gather = 0, for
# pagebtree and for btree (two tables with the same rows, one index each).
#
#   bash bench/parallel-scan.sh [rows] [reps]       (as root; default 10000000, 7)
#
# Uses a private copy of Debian's PostgreSQL 15 in a scratch directory, with
# pagebtree built from this tree and installed into the copy.  Warm runs
# (everything in shared buffers and the OS cache after a first pass); the
# four methods alternate within each repetition; medians.  Prints a Markdown
# report on stdout (bench/results/parallel-scan.md is such a report).
set -euo pipefail
ROWS=${1:-10000000}
REPS=${2:-7}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PBT_BENCH_PORT:-5631}
SERVER_CONF="shared_buffers = 2GB
max_worker_processes = 8
max_parallel_workers = 4"
. "$HERE/bench/private-server.sh"

LO=$((ROWS / 20))
HI=$((ROWS - ROWS / 20))
sql "CREATE EXTENSION pagebtree"
for am in pagebtree btree; do
	sql "CREATE TABLE t_$am (k int8)"
	sql "INSERT INTO t_$am SELECT g FROM generate_series(1, $ROWS) g"
	sql "CREATE INDEX t_${am}_k ON t_$am USING $am (k)"
	sql "VACUUM (FREEZE, ANALYZE) t_$am"
done

# each method: workers per gather, forced onto the index
run() {
	local am=$1 workers=$2 what=$3
	su postgres -c "$PSQL -At" <<SQL
SET max_parallel_workers_per_gather = $workers;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
\\timing on
$what SELECT count(*) FROM t_$am WHERE k BETWEEN $LO AND $HI;
SQL
}
ms() { run "$1" "$2" "" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'; }

echo "# Parallel index-only scans: 2 workers against none"
echo
echo "\`bash bench/parallel-scan.sh $ROWS $REPS\` on $(date -u +%Y-%m-%d), PostgreSQL $($BIN/postgres --version | awk '{print $3}'),"
echo "$(nproc) cores, commit $(git -C "$HERE" rev-parse --short HEAD)."
echo "\`SELECT count(*) FROM t WHERE k BETWEEN $LO AND $HI\` ($((HI - LO + 1)) of $ROWS rows),"
echo "index-only (VACUUM FREEZE: all pages all-visible), warm; $REPS repetitions, methods alternating; milliseconds."
echo
for am in pagebtree btree; do
	echo "Index size $am: $(sql "SELECT pg_size_pretty(pg_relation_size('t_${am}_k'))")"
	echo
	echo '```'
	run $am 2 "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)" | grep -v '^Time'
	echo '```'
	echo
done
# warm-up
for am in pagebtree btree; do ms $am 0 >/dev/null; ms $am 2 >/dev/null; done
declare -A T
for r in $(seq 1 "$REPS"); do
	for m in pagebtree:0 pagebtree:2 btree:0 btree:2; do
		T[$m]+="$(ms "${m%:*}" "${m#*:}") "
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "| index | 0 workers (median) | 2 workers (median) | speedup | runs 0 workers | runs 2 workers |"
echo "|---|---|---|---|---|---|"
for am in pagebtree btree; do
	m0=$(echo "${T[$am:0]}" | median)
	m2=$(echo "${T[$am:2]}" | median)
	echo "| $am | $m0 | $m2 | $(awk -v a="$m0" -v b="$m2" 'BEGIN {printf "%.2f", a / b}') | ${T[$am:0]} | ${T[$am:2]} |"
done
