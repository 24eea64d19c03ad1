#!/bin/bash
# Parallel CREATE INDEX (issue #25 item 2): the same index built with
# max_parallel_maintenance_workers = 2 and with 0, for pagebtree and for
# btree, on 10M rows of random int8 keys and of 32-byte text keys.
#
#   bash bench/parallel-build.sh [rows] [reps]      (as root; default 10000000, 5)
#
# Uses a private copy of Debian's PostgreSQL 15 in a scratch directory, with
# pagebtree built from this tree and installed into the copy.  The table is
# in shared buffers and the OS cache (a first build warms both);
# collation C (initdb --no-locale), maintenance_work_mem = 1GB, so that every participant sorts in memory and
# the planner grants 2 workers to both methods.  Wall-clock time of the
# statement (as a user waits for it), four methods alternating within each
# repetition, medians.  After the runs, the parallel-built pagebtree index
# must pass pagebtree_check with heapallindexed and count what a sequential
# scan counts.  Prints a Markdown report on stdout
# (bench/results/parallel-build.md is such a report).
set -euo pipefail
ROWS=${1:-10000000}
REPS=${2:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PBT_BENCH_PORT:-5632}
SERVER_CONF="shared_buffers = 4GB
max_wal_size = 20GB
checkpoint_timeout = 1h
maintenance_work_mem = 1GB
max_worker_processes = 8
max_parallel_workers = 4"
. "$HERE/bench/private-server.sh"

sql "CREATE EXTENSION pagebtree"
sql "CREATE TABLE t (k int8, s text)"
sql "INSERT INTO t SELECT hashint8(g), md5(g::text) FROM generate_series(1, $ROWS) g"
sql "VACUUM (FREEZE, ANALYZE) t"

# milliseconds of one CREATE INDEX; the index is dropped afterwards
build() {
	local am=$1 workers=$2 col=$3
	su postgres -c "$PSQL -At" <<SQL | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | head -1
SET max_parallel_maintenance_workers = $workers;
\\timing on
CREATE INDEX t_idx ON t USING $am ($col);
\\timing off
DROP INDEX t_idx;
CHECKPOINT;
SQL
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "# Parallel CREATE INDEX: 2 workers against none"
echo
echo "\`bash bench/parallel-build.sh $ROWS $REPS\` on $(date -u +%Y-%m-%d), PostgreSQL $($BIN/postgres --version | awk '{print $3}'),"
echo "$(nproc) cores, commit $(git -C "$HERE" rev-parse --short HEAD). $ROWS rows; maintenance_work_mem = 1GB,"
echo "shared_buffers = 4GB (the table stays in memory), the library preloaded, WAL logged (wal_level replica)."
echo "Wall-clock milliseconds of CREATE INDEX; $REPS repetitions, the four methods alternating; medians."
echo
echo "| key | index | 0 workers | 2 workers | speedup | pagebtree/btree, 0 workers | pagebtree/btree, 2 workers | runs 0 workers | runs 2 workers |"
echo "|---|---|---|---|---|---|---|---|---|"
for col in k s; do
	case $col in k) name="random int8" ;; s) name="text (32 bytes)" ;; esac
	# warm-up: the table into the caches
	build pagebtree 2 $col >/dev/null
	build btree 2 $col >/dev/null
	declare -A T=()
	for r in $(seq 1 "$REPS"); do
		if [ $((r % 2)) = 1 ]; then order="pagebtree:0 pagebtree:2 btree:0 btree:2"
		else order="btree:2 btree:0 pagebtree:2 pagebtree:0"; fi
		for m in $order; do
			T[$m]+="$(build "${m%:*}" "${m#*:}" $col) "
		done
	done
	declare -A M=()
	for m in pagebtree:0 pagebtree:2 btree:0 btree:2; do M[$m]=$(echo "${T[$m]}" | median); done
	for am in pagebtree btree; do
		ratio0=""; ratio2=""
		if [ $am = pagebtree ]; then
			ratio0=$(awk -v a="${M[pagebtree:0]}" -v b="${M[btree:0]}" 'BEGIN {printf "%.2f", a / b}')
			ratio2=$(awk -v a="${M[pagebtree:2]}" -v b="${M[btree:2]}" 'BEGIN {printf "%.2f", a / b}')
		fi
		echo "| $name | $am | ${M[$am:0]} | ${M[$am:2]} | $(awk -v a="${M[$am:0]}" -v b="${M[$am:2]}" 'BEGIN {printf "%.2f", a / b}') | $ratio0 | $ratio2 | ${T[$am:0]} | ${T[$am:2]} |"
	done
	unset T M
done

# the parallel-built index is right
echo
su postgres -c "$PSQL -At" <<SQL >/dev/null
SET max_parallel_maintenance_workers = 2;
CREATE INDEX t_idx ON t USING pagebtree (k);
SELECT pagebtree_check('t_idx', true);
SQL
seq=$(sql "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SELECT count(*), sum(k) FROM t WHERE k > 0")
idx=$(sql "SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*), sum(k) FROM t WHERE k > 0")
[ "$seq" = "$idx" ] || { echo "the parallel-built index counts $idx, a sequential scan $seq" >&2; exit 1; }
echo "Checked: the parallel-built pagebtree index on k passes \`pagebtree_check(index, true)\` and counts what a"
echo "sequential scan counts ($seq)."
