#!/bin/bash
# Index-only scans, the libraries of several commits swapped into one
# cluster: did a change to the read path cost scan or lookup speed?
#
#   bash bench/builds-scan.sh [--rounds N] [--name NAME] BASE COMMIT...   (as root)
#
# Uses a private copy of Debian's PostgreSQL 15 (bench/private-server.sh;
# PGV=16 or 18 for the wheel's), the library preloaded, everything in
# shared buffers, no parallel workers.  The commits are built from git
# (their SQL scripts must match this tree's: the extension is created once).
# Data: 2M random int8 keys, 1M 52-byte URL-like C-collation text keys, and
# 1M int8 keys with an md5 INCLUDE column (semidense leaves), and 2M int8
# keys 20 to a value (lists leaves), scanned whole; 100,000 point lookups
# in the semidense index and in one of 1M numeric keys (comparator mode),
# and about 53,000 of the text keys (one in 19) in the text index and in a
# fingerprint index of the same keys, one index-only scan each (a subquery
# per row: descents, not a client's round trips).  Each round
# (default 5) installs each library in turn, in an order rotated by one
# every round, restarts the server, and runs each query 6 times with
# EXPLAIN (ANALYZE, TIMING OFF), keeping the median of the last 5; the
# table gives the median of the rounds' figures and its ratio to BASE's.
# Writes bench/results/<name>.md and <name>.png (default builds-scan).
set -euo pipefail
ROUNDS=5
NAME=builds-scan
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--name) NAME=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--rounds N] [--name NAME] BASE COMMIT..." >&2; exit 2; }
COMMITS=("$@")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PBT_BENCH_PORT:-5634}
SERVER_CONF="shared_buffers = 1GB
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0"
PY=/usr/bin/python3
$PY -c 'import matplotlib' 2>/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-matplotlib >/dev/null
. "$HERE/bench/private-server.sh"

if [ "$PGV" = 15 ]; then LIB=$W/usr/lib/postgresql/$PGV/lib; else LIB=$("$BIN/pg_config" --pkglibdir); fi
declare -A SO=()
for c in "${COMMITS[@]}"; do
	mkdir -p "$W/build-$c"
	git -C "$HERE" archive "$c" | tar -x -C "$W/build-$c"
	make -s -C "$W/build-$c" "${MAKE_INSTALL[0]}" >/dev/null
	SO[$c]=$W/so-$c.so
	cp "$W/build-$c/pagebtree.so" "${SO[$c]}"
done

sql "CREATE EXTENSION pagebtree"
sql "CREATE TABLE pf_i AS SELECT (hashint8(g) & 1099511627775) AS k FROM generate_series(1, 2000000) g"
sql "CREATE TABLE pf_t AS SELECT ('https://example.com/' || md5(g::text)) COLLATE \\\"C\\\" AS s FROM generate_series(1, 1000000) g"
sql "CREATE TABLE pf_inc AS SELECT g::int8 AS k, md5(g::text) AS s FROM generate_series(1, 1000000) g"
sql "CREATE TABLE pf_dup AS SELECT (g / 20)::int8 AS k FROM generate_series(1, 2000000) g"
sql "CREATE TABLE pf_num AS SELECT g::numeric AS k FROM generate_series(1, 1000000) g"
sql "CREATE INDEX ON pf_i USING pagebtree (k)"
sql "CREATE INDEX ON pf_dup USING pagebtree (k)"
sql "CREATE INDEX ON pf_num USING pagebtree (k)"
sql "CREATE INDEX ON pf_t USING pagebtree (s)"
sql "CREATE INDEX ON pf_inc USING pagebtree (k) INCLUDE (s)"
sql "CREATE TABLE pf_fp AS SELECT s FROM pf_t"
sql "CREATE INDEX ON pf_fp USING pagebtree (s) WITH (layout = fingerprint)"
sql "CREATE TABLE pf_tkeys AS SELECT s FROM pf_t WHERE hashtext(s) % 10 = 0"
for t in pf_i pf_t pf_inc pf_dup pf_num pf_fp pf_tkeys; do sql "VACUUM (FREEZE, ANALYZE) $t"; done

QUERIES=(
	"SELECT k FROM pf_i ORDER BY k"
	"SELECT s FROM pf_t ORDER BY s"
	"SELECT k, s FROM pf_inc ORDER BY k"
	"SELECT sum((SELECT count(*) FROM pf_inc WHERE k = g * 7)) FROM generate_series(1, 100000) g"
	"SELECT k FROM pf_dup ORDER BY k"
	"SELECT sum((SELECT count(*) FROM pf_num WHERE k = g * 7)) FROM generate_series(1, 100000) g"
	"SELECT sum((SELECT count(*) FROM pf_t t WHERE t.s = k.s)) FROM pf_tkeys k"
	"SELECT sum((SELECT count(*) FROM pf_fp t WHERE t.s = k.s)) FROM pf_tkeys k"
)
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# the median of the last 5 of 6 runs of query $1, in ms
time_query() {
	local cmds=""
	for i in 1 2 3 4 5 6; do cmds+=" -c \"EXPLAIN (ANALYZE, TIMING OFF) $1\""; done
	su postgres -c "$PSQL -At -c 'SET enable_seqscan = off' -c 'SET enable_bitmapscan = off' $cmds" |
		sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p' | tail -5 | median
}
declare -A T=()
n=${#COMMITS[@]}
for r in $(seq 1 "$ROUNDS"); do
	for i in $(seq 0 $((n - 1))); do
		c=${COMMITS[$(((i + r) % n))]}
		cp "${SO[$c]}" "$LIB/pagebtree.so"
		su postgres -c "$BIN/pg_ctl -D $W/data -l $W/log -w restart -m fast" >/dev/null
		for q in "${!QUERIES[@]}"; do
			T[$c,$q]+="$(time_query "${QUERIES[$q]}") "
		done
	done
done
# each query's scan, to show that the index answered it
plans=""
for q in "${QUERIES[@]}"; do
	p=$(su postgres -c "$PSQL -At -c 'SET enable_seqscan = off' -c 'SET enable_bitmapscan = off' -c 'EXPLAIN (COSTS OFF) $q'" |
		grep -o '[A-Za-z ]*Scan using [a-z_0-9]*' | head -1 | sed 's/^ *//')
	plans+="${plans:+; }\`$p\`"
done

OUT=$HERE/bench/results/$NAME
BASE=${COMMITS[0]}
{
	echo "# Index-only scans, full and point lookups: the libraries of ${COMMITS[*]}"
	echo
	echo "\`bash bench/builds-scan.sh --rounds $ROUNDS --name $NAME ${COMMITS[*]}\` on $(date -u +%Y-%m-%d),"
	echo "PostgreSQL $($BIN/postgres --version | awk '{print $3}'), $(nproc) cores. The libraries in one cluster"
	echo "(preloaded, shared_buffers = 1GB, no parallel workers), swapped and the server restarted for each,"
	echo "in an order rotated every round, $ROUNDS rounds; a round's figure is the median of 5"
	echo "\`EXPLAIN (ANALYZE, TIMING OFF)\` runs after one warm-up. Plans, query by query: $plans."
	echo
	echo "Medians of the rounds in ms (ratio to $BASE):"
	echo
	printf '| query |'; for c in "${COMMITS[@]}"; do printf ' %s |' "$c"; done; echo
	printf '|---|'; for c in "${COMMITS[@]}"; do printf -- '---|'; done; echo
	for q in "${!QUERIES[@]}"; do
		base=$(echo "${T[$BASE,$q]}" | median)
		printf '| `%s` |' "${QUERIES[$q]}"
		for c in "${COMMITS[@]}"; do
			m=$(echo "${T[$c,$q]}" | median)
			printf ' %s (%s) |' "$m" "$(awk -v a="$base" -v b="$m" 'BEGIN {printf "%.3f", b / a}')"
		done
		echo
	done
	echo
	echo "Every round's figure (ms), in round order:"
	echo
	for q in "${!QUERIES[@]}"; do
		for c in "${COMMITS[@]}"; do echo "- \`${QUERIES[$q]}\`, $c: ${T[$c,$q]% }"; done
	done
} | tee "$OUT.md"

{
	echo "queries = ["
	for q in "${QUERIES[@]}"; do echo "    \"$q\","; done
	echo "]"
	echo "rounds = {"
	for c in "${COMMITS[@]}"; do
		echo "    \"$c\": ["
		for q in "${!QUERIES[@]}"; do echo "        [$(echo ${T[$c,$q]} | tr ' ' ',')],"; done
		echo "    ],"
	done
	echo "}"
	cat <<'PLOT'
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, axes = plt.subplots(1, len(queries), figsize=(4.5 * len(queries), 3.5))
for i, (ax, q) in enumerate(zip(axes, queries)):
    for c, figures in rounds.items():
        ax.plot(range(1, len(figures[i]) + 1), figures[i], "o-", label=c)
    ax.set_title(q, fontsize=8)
    ax.set_xlabel("round")
    ax.set_ylabel("ms")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=90)
PLOT
} | $PY - "$OUT.png"
