#!/bin/bash
# Posting leaves (issue #25 item 3): indexes on low-cardinality columns,
# pagebtree (deduplicate_items on, the default, and off) against btree
# (which deduplicates): index sizes after CREATE INDEX and after random
# inserts into empty indexes, and the time of scans that read one or two
# keys' entries (index-only counts) and of the first rows of a key.
#
#   bash bench/posting.sh [rows] [reps]      (as root; default 2000000, 7)
#
# Uses a private copy of Debian's PostgreSQL 15 (bench/private-server.sh),
# the library preloaded, everything in shared buffers.  One table per index
# kind, same rows (v: 10 values, t: 10 status strings, random order).  Times
# are medians of reps rounds, each a pgbench run of the three kinds'
# statements interleaved (PBT_POSTING_SECS seconds, default 3).
# Prints a Markdown report (bench/results/posting.md is one).
set -euo pipefail
ROWS=${1:-2000000}
REPS=${2:-7}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PBT_BENCH_PORT:-5633}
SERVER_CONF="shared_buffers = 2GB
max_wal_size = 20GB
checkpoint_timeout = 1h
maintenance_work_mem = 1GB
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0"
. "$HERE/bench/private-server.sh"

KINDS="pagebtree btree nodedup"
using() {
	case $1 in
	pagebtree) echo "USING pagebtree" ;; btree) echo "USING btree" ;;
	nodedup) echo "USING pagebtree" ;;
	esac
}
with() { [ "$1" = nodedup ] && echo "WITH (deduplicate_items = off)" || true; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
pages() { sql "SELECT pg_relation_size('$1') / 8192"; }

sql "CREATE EXTENSION pagebtree"
sql "CREATE TABLE src AS SELECT g AS id, (hashint8(g) & 1023) % 10 AS v,
     'status-' || ((hashint8(g + 7) & 1023) % 10) AS t, repeat('p', 40) AS pad
     FROM generate_series(1, $ROWS) g"
for k in $KINDS; do
	# built: CREATE INDEX on the filled table
	sql "CREATE TABLE b_$k AS SELECT * FROM src"
	sql "CREATE INDEX b_${k}_v ON b_$k $(using $k) (v) $(with $k)"
	sql "CREATE INDEX b_${k}_t ON b_$k $(using $k) (t) $(with $k)"
	# inserted: rows inserted into the empty indexed table, random order
	sql "CREATE TABLE i_$k (LIKE src)"
	sql "CREATE INDEX i_${k}_v ON i_$k $(using $k) (v) $(with $k)"
	sql "CREATE INDEX i_${k}_t ON i_$k $(using $k) (t) $(with $k)"
	sql "INSERT INTO i_$k SELECT * FROM src"
	sql "VACUUM (FREEZE, ANALYZE) b_$k"
	sql "VACUUM (FREEZE, ANALYZE) i_$k"
done
for k in pagebtree nodedup; do
	for i in b_${k}_v b_${k}_t i_${k}_v i_${k}_t; do
		sql "SELECT pagebtree_check('$i', true)" >/dev/null
	done
done

echo "# Posting leaves: indexes on low-cardinality columns"
echo
echo "\`bash bench/posting.sh $ROWS $REPS\` on $(date -u +%Y-%m-%d), PostgreSQL $($BIN/postgres --version | awk '{print $3}'),"
echo "$(nproc) cores, commit $(git -C "$HERE" rev-parse --short HEAD). $ROWS rows in random key order; v int8 with"
echo "10 values, t text (\`status-0\` .. \`status-9\`; the cluster is initialized with collation C); one table per index kind; the library preloaded;"
echo "shared_buffers = 2GB (everything in memory). pagebtree = default options (posting leaves),"
echo "nodedup = pagebtree WITH (deduplicate_items = off); btree deduplicates (PostgreSQL 13+)."
echo "Every pagebtree index passed \`pagebtree_check(index, true)\`."
echo
echo "## Index sizes (8 kB pages)"
echo
echo "| index | pagebtree | btree | nodedup | pagebtree/btree | nodedup/btree |"
echo "|---|---|---|---|---|---|"
for ix in b_v:"v, CREATE INDEX" b_t:"t, CREATE INDEX" i_v:"v, random inserts" i_t:"t, random inserts"; do
	tb=${ix%%_*}; col=${ix%%:*}; col=${col#*_}
	p=$(pages ${tb}_pagebtree_$col); b=$(pages ${tb}_btree_$col); n=$(pages ${tb}_nodedup_$col)
	echo "| ${ix#*:} | $p | $b | $n | $(awk -v a=$p -v b=$b 'BEGIN {printf "%.2f", a / b}') | $(awk -v a=$n -v b=$b 'BEGIN {printf "%.2f", a / b}') |"
done

# one round per query: the three kinds' statements interleaved at random
# in one pgbench run of $SECS seconds (simple protocol, so planning counts
# as it does for a client), so that the machine's noise falls on all
# three alike; prints their mean latencies in ms, in the order of $KINDS
SECS=${PBT_POSTING_SECS:-3}
round() {
	local files=""
	for k in $KINDS; do
		echo "${1//TBL/b_$k};" > "$W/q_$k.sql"
		files+=" -f $W/q_$k.sql"
	done
	chmod a+r "$W"/q_*.sql
	su postgres -c "PGOPTIONS='-c enable_seqscan=off -c enable_bitmapscan=off' \
		$BIN/pgbench -n -h $W/sock -p $PORT -T $SECS $files postgres" 2>/dev/null |
		sed -n 's/^ - latency average = \([0-9.]*\) ms$/\1/p' | tr '\n' ' '
}
echo
echo "## Scans (milliseconds; medians of $REPS rounds of ${SECS} s; built tables)"
echo
echo "Each round runs the three kinds' statements interleaved at random in one"
echo "pgbench run (\`-T $SECS\`, one client, simple protocol: planning included),"
echo "and takes each kind's mean latency; the ratio is of the medians."
echo
echo "| query | pagebtree | btree | nodedup | pagebtree/btree | nodedup/btree |"
echo "|---|---|---|---|---|---|"
QUERIES=(
	"SELECT count(*) FROM TBL WHERE v = 3"
	"SELECT count(*) FROM TBL WHERE v BETWEEN 4 AND 5"
	"SELECT count(*) FROM TBL WHERE t = 'status-7'"
	"SELECT sum(id) FROM (SELECT id FROM TBL WHERE v = 6 LIMIT 1000) s"
	"SELECT count(*) FROM (SELECT v FROM TBL WHERE v >= 8 ORDER BY v DESC) s"
)
for q in "${QUERIES[@]}"; do
	declare -A T=()
	for r in $(seq 1 "$REPS"); do
		read -r -a lat <<< "$(round "$q")"
		i=0
		for k in $KINDS; do T[$k]+="${lat[$i]} "; i=$((i + 1)); done
	done
	declare -A M=()
	for k in $KINDS; do M[$k]=$(echo "${T[$k]}" | median); done
	echo "| \`${q//TBL/t}\` | ${M[pagebtree]} | ${M[btree]} | ${M[nodedup]} | $(awk -v a=${M[pagebtree]} -v b=${M[btree]} 'BEGIN {printf "%.2f", a / b}') | $(awk -v a=${M[nodedup]} -v b=${M[btree]} 'BEGIN {printf "%.2f", a / b}') |"
	unset T M
done
plan=$(su postgres -c "$PSQL -At -c \"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) SELECT count(*) FROM b_pagebtree WHERE v = 3\"" | tr '\n' ' ')
echo
echo "Plan of the first query on the pagebtree table: \`$plan\`."
