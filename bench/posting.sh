#!/bin/bash
# Posting and lists leaves (issue #25 item 3): indexes on columns whose
# keys repeat, pagebtree (deduplicate_items on, the default, and off)
# against btree (which deduplicates): index sizes after CREATE INDEX and
# after random inserts into empty indexes (with the time and WAL of that
# load), and the time of scans that read one or two keys' entries
# (index-only counts) and of the first rows of a key.
#
#   bash bench/posting.sh [rows] [reps] [keys]   (as root; default 2000000, 7, 10)
#
# Uses a private copy of Debian's PostgreSQL 15 (bench/private-server.sh),
# the library preloaded, everything in shared buffers.  One table per index
# kind, same rows (v: keys values, int8; t: keys status strings; random
# order): 10 keys make posting leaves, rows/20 keys (a foreign-key column)
# lists leaves.  Times are medians of reps rounds, each a pgbench run of
# the three kinds' statements interleaved (PBT_POSTING_SECS seconds,
# default 3).  Prints a Markdown report (bench/results/posting.md and
# posting-fk.md are two).
set -euo pipefail
ROWS=${1:-2000000}
REPS=${2:-7}
KEYS=${3:-10}
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
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

sql "CREATE EXTENSION pagebtree"
sql "CREATE TABLE src AS SELECT g AS id, (hashint8(g) & 2147483647) % $KEYS AS v,
     'status-' || ((hashint8(g + 7) & 2147483647) % $KEYS) AS t, repeat('p', 40) AS pad
     FROM generate_series(1, $ROWS) g"
declare -A LOAD_MS=() LOAD_WAL=()
for k in $KINDS; do
	# built: CREATE INDEX on the filled table
	sql "CREATE TABLE b_$k AS SELECT * FROM src"
	sql "CREATE INDEX b_${k}_v ON b_$k $(using $k) (v) $(with $k)"
	sql "CREATE INDEX b_${k}_t ON b_$k $(using $k) (t) $(with $k)"
	# inserted: rows inserted into the empty indexed table, random order
	sql "CREATE TABLE i_$k (LIKE src)"
	sql "CREATE INDEX i_${k}_v ON i_$k $(using $k) (v) $(with $k)"
	sql "CREATE INDEX i_${k}_t ON i_$k $(using $k) (t) $(with $k)"
	sql "CHECKPOINT"
	wal0=$(sql "SELECT pg_current_wal_insert_lsn()")
	t0=$(date +%s%N)
	sql "INSERT INTO i_$k SELECT * FROM src"
	LOAD_MS[$k]=$((($(date +%s%N) - t0) / 1000000))
	LOAD_WAL[$k]=$(sql "SELECT pg_current_wal_insert_lsn() - '$wal0'")
	sql "VACUUM (FREEZE, ANALYZE) b_$k"
	sql "VACUUM (FREEZE, ANALYZE) i_$k"
done
for k in pagebtree nodedup; do
	for i in b_${k}_v b_${k}_t i_${k}_v i_${k}_t; do
		sql "SELECT pagebtree_check('$i', true)" >/dev/null
	done
done

echo "# Posting and lists leaves: indexes on columns whose keys repeat"
echo
echo "\`bash bench/posting.sh $ROWS $REPS $KEYS\` on $(date -u +%Y-%m-%d), PostgreSQL $($BIN/postgres --version | awk '{print $3}'),"
echo "$(nproc) cores, commit $(git -C "$HERE" rev-parse --short HEAD). $ROWS rows in random key order; v int8 with"
echo "$KEYS values, t text (\`status-0\` .. \`status-$((KEYS - 1))\`; the cluster is initialized with collation C); one table per index kind; the library preloaded;"
echo "shared_buffers = 2GB (everything in memory). pagebtree = default options (posting and lists leaves),"
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
	echo "| ${ix#*:} | $p | $b | $n | $(ratio $p $b) | $(ratio $n $b) |"
done

echo
echo "Loading the empty indexed tables (both indexes, heap included; one run each, after a checkpoint):"
echo
echo "| load | pagebtree | btree | nodedup | pagebtree/btree | nodedup/btree |"
echo "|---|---|---|---|---|---|"
echo "| time (ms) | ${LOAD_MS[pagebtree]} | ${LOAD_MS[btree]} | ${LOAD_MS[nodedup]} | $(ratio ${LOAD_MS[pagebtree]} ${LOAD_MS[btree]}) | $(ratio ${LOAD_MS[nodedup]} ${LOAD_MS[btree]}) |"
echo "| WAL (bytes) | ${LOAD_WAL[pagebtree]} | ${LOAD_WAL[btree]} | ${LOAD_WAL[nodedup]} | $(ratio ${LOAD_WAL[pagebtree]} ${LOAD_WAL[btree]}) | $(ratio ${LOAD_WAL[nodedup]} ${LOAD_WAL[btree]}) |"

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
	"SELECT count(*) FROM (SELECT v FROM TBL WHERE v >= $((KEYS * 8 / 10)) ORDER BY v DESC) s"
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
	echo "| \`${q//TBL/t}\` | ${M[pagebtree]} | ${M[btree]} | ${M[nodedup]} | $(ratio ${M[pagebtree]} ${M[btree]}) | $(ratio ${M[nodedup]} ${M[btree]}) |"
	unset T M
done
plan=$(su postgres -c "$PSQL -At -c \"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) SELECT count(*) FROM b_pagebtree WHERE v = 3\"" | tr '\n' ' ')
echo
echo "Plan of the first query on the pagebtree table: \`$plan\`."
