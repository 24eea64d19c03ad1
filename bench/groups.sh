#!/bin/bash
# Leaf groups (issue #23): pagebtree with leaf_group_size N against
# pagebtree without groups and btree, on keys inserted one by one into
# empty indexes: index size, leaf and inner pages, WAL per insert (heap
# included) with the library preloaded and without, the time of the
# inserts, buffer accesses per
# point lookup (index-only, from EXPLAIN BUFFERS), lookups that read a
# second subnode of their group (pagebtree_group_lookups), point lookups
# per second (pgbench, one client, the kinds alternating, medians of reps
# runs) and the time of a lookup inside the server (a nested loop of
# index-only lookups, no client round trips).
#
#   bash bench/groups.sh [rows] [reps] [keys]   (as root; default 1000000, 5, random)
#
# keys: random (sparse int8 in random order), serial (int8 1..rows in
# order) or text (URLs with an md5, in random order).  Uses a private copy
# of Debian's PostgreSQL 15 (bench/private-server.sh), everything in shared
# buffers (PBT_GROUPS_SHARED_BUFFERS=8MB for an index larger than them).
# One table per index kind, same rows.  PBT_GROUPS_GENERIC=0 skips the
# loads without preloading; PBT_GROUPS_COLD=1 adds long range scans with
# the OS cache dropped and warm.  Prints a Markdown report
# (bench/results/groups*.md).
set -euo pipefail
ROWS=${1:-1000000}
REPS=${2:-5}
KEYS=${3:-random}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PBT_BENCH_PORT:-5634}
SHARED_BUFFERS=${PBT_GROUPS_SHARED_BUFFERS:-1GB}
SERVER_CONF="shared_buffers = $SHARED_BUFFERS
max_wal_size = 20GB
checkpoint_timeout = 1h
max_parallel_workers_per_gather = 0"
. "$HERE/bench/private-server.sh"

KINDS="btree pagebtree groups4 groups16"
KINDS_REVERSED="groups16 groups4 pagebtree btree"
# the index of kind $1 on column k
index_def() {
	case $1 in
	btree) echo "USING btree (k)" ;;
	pagebtree) echo "USING pagebtree (k) WITH (delta = off)" ;;
	groups4) echo "USING pagebtree (k) WITH (leaf_group_size = 4)" ;;
	groups16) echo "USING pagebtree (k) WITH (leaf_group_size = 16)" ;;
	esac
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
# the key of row @ (so that lookups can hit), its type, the load's order
case $KEYS in
random)
	KEY_OF="(@ * 2654435761) % 1099511627776"; KEY_TYPE=int8; ORDER="random()"
	WHAT="sparse int8 keys inserted one by one in random order" ;;
serial)
	KEY_OF="@"; KEY_TYPE=int8; ORDER="i"
	WHAT="int8 keys 1, 2, 3, ... inserted one by one in order" ;;
text)
	KEY_OF="'https://example.org/' || md5(@::text) || '/item/' || @"; KEY_TYPE=text; ORDER="random()"
	WHAT="text keys \`https://example.org/md5(n)/item/n\` inserted one by one in random order" ;;
*) echo "keys: random, serial or text" >&2; exit 2 ;;
esac
KEY=${KEY_OF//@/i}

# load_kind PREFIX KIND: an indexed table PREFIX_KIND loaded with src's
# rows one by one; prints the WAL bytes per insert, the full-page images
# per 1,000 inserts (pg_stat_wal, which each backend updates as it exits),
# the load's seconds and the index's pages
load_kind() {
	sql "CREATE TABLE $1_$2 (k $KEY_TYPE, v int)"
	sql "CREATE INDEX $1_$2_k ON $1_$2 $(index_def $2)"
	sql "CHECKPOINT"
	l0=$(sql "SELECT pg_current_wal_insert_lsn()")
	f0=$(sql "SELECT wal_fpi FROM pg_stat_wal")
	t0=$(date +%s.%N)
	sql "INSERT INTO $1_$2 SELECT * FROM src; SELECT pg_stat_force_next_flush()" >/dev/null
	t1=$(date +%s.%N)
	echo "$(sql "SELECT round((pg_current_wal_insert_lsn() - '$l0') / $ROWS.0, 1), round((wal_fpi - $f0) * 1000.0 / $ROWS, 2), round($t1 - $t0, 1), pg_relation_size('$1_$2_k') / 8192 FROM pg_stat_wal" | tr '|' ' ')"
}
set_preload() {
	sed -i "s/^shared_preload_libraries = .*/shared_preload_libraries = '$1'/" "$W/data/postgresql.conf"
	su postgres -c "$BIN/pg_ctl -D $W/data -l $W/log -w restart" >/dev/null
}

sql "CREATE EXTENSION pagebtree"
sql "CREATE EXTENSION pgstattuple"	# btree's leaf and inner pages
sql "CREATE TABLE src AS SELECT $KEY AS k, i AS v FROM generate_series(1, $ROWS) i ORDER BY $ORDER"
declare -A WAL=() FPI=() LOAD=()
for k in $KINDS; do
	read -r WAL[$k] FPI[$k] LOAD[$k] _ < <(load_kind t "$k")
	sql "VACUUM (FREEZE, ANALYZE) t_$k"
done
for k in pagebtree groups4 groups16; do
	sql "SELECT pagebtree_check('t_${k}_k', true)" >/dev/null
done
# WAL per insert without the library preloaded (generic WAL), same rows
declare -A WAL_GENERIC=() FPI_GENERIC=() LOAD_GENERIC=() PAGES_GENERIC=()
if [ "${PBT_GROUPS_GENERIC:-1}" = 1 ]; then
	set_preload ""
	for k in $KINDS; do
		read -r WAL_GENERIC[$k] FPI_GENERIC[$k] LOAD_GENERIC[$k] PAGES_GENERIC[$k] < <(load_kind g "$k")
		sql "DROP TABLE g_$k"
	done
	set_preload pagebtree
fi

echo "# Leaf groups: $KEYS keys, sizes and point lookups"
echo
ENV_SHOWN="$([ "$SHARED_BUFFERS" = 1GB ] || echo "PBT_GROUPS_SHARED_BUFFERS=$SHARED_BUFFERS ")$([ "${PBT_GROUPS_GENERIC:-1}" = 1 ] || echo "PBT_GROUPS_GENERIC=0 ")$([ "${PBT_GROUPS_COLD:-0}" = 0 ] || echo "PBT_GROUPS_COLD=1 ")"
echo "\`${ENV_SHOWN}bash bench/groups.sh $ROWS $REPS $KEYS\` on $(date -u +%Y-%m-%d), PostgreSQL $($BIN/postgres --version | awk '{print $3}'),"
echo "$(nproc) cores, commit $(git -C "$HERE" rev-parse --short HEAD). $ROWS $WHAT"
echo "into an empty indexed table, one table per index kind; shared_buffers = $SHARED_BUFFERS$([ "$SHARED_BUFFERS" = 1GB ] && echo " (everything in memory)" || echo " (PBT_GROUPS_SHARED_BUFFERS; the OS cache is not dropped)")."
echo "pagebtree = \`delta = off\`; groups4 / groups16 = \`leaf_group_size = 4 / 16\` (and the default \`delta = auto\`). The"
echo "library is preloaded but for the table \"Without preloading\": the same inserts into new tables after a restart without it."
echo "Every pagebtree index passed \`pagebtree_check(index, true)\`."
echo
echo "## Size, pages and WAL"
echo
echo "Load: the seconds of the one \`INSERT ... SELECT\` of all rows into each kind's table (one run, the kinds in turn)."
echo
echo "| kind | index pages | leaf pages | inner pages | inner pages / btree | leaf bytes free (avg) | size / btree | WAL bytes per insert (heap included) | full-page images per 1,000 inserts | load s | inserts/s / btree |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
bt=$(sql "SELECT pg_relation_size('t_btree_k') / 8192")
bt_inner=$(sql "SELECT internal_pages FROM pgstatindex('t_btree_k')")
for k in $KINDS; do
	p=$(sql "SELECT pg_relation_size('t_${k}_k') / 8192")
	if [ "$k" = btree ]; then
		leaf=$(sql "SELECT leaf_pages FROM pgstatindex('t_btree_k')")
		inner=$bt_inner; free="-"
	else
		leaf=$(sql "SELECT sum(pages) FROM pagebtree_layout_summary('t_${k}_k') WHERE page_type = 'leaf'")
		inner=$(sql "SELECT coalesce(sum(pages), 0) FROM pagebtree_layout_summary('t_${k}_k') WHERE page_type = 'inner'")
		free=$(sql "SELECT round(sum(avg_free_size * pages) / sum(pages)) FROM pagebtree_layout_summary('t_${k}_k') WHERE page_type = 'leaf'")
	fi
	echo "| $k | $p | $leaf | $inner | $(ratio "$inner" "$bt_inner") | $free | $(ratio "$p" "$bt") | ${WAL[$k]} | ${FPI[$k]} | ${LOAD[$k]} | $(ratio "${LOAD[btree]}" "${LOAD[$k]}") |"
done
if [ "${PBT_GROUPS_GENERIC:-1}" = 1 ]; then
	echo
	echo "### Without preloading"
	echo
	echo "Generic WAL; \`delta = auto\` gives the group indexes a delta area (pagebtree here has \`delta = off\`)."
	echo
	echo "| kind | index pages | size / btree | WAL bytes per insert (heap included) | / btree | full-page images per 1,000 inserts | load s | inserts/s / btree |"
	echo "|---|---|---|---|---|---|---|---|"
	for k in $KINDS; do
		echo "| $k | ${PAGES_GENERIC[$k]} | $(ratio "${PAGES_GENERIC[$k]}" "${PAGES_GENERIC[btree]}") | ${WAL_GENERIC[$k]} | $(ratio "${WAL_GENERIC[$k]}" "${WAL_GENERIC[btree]}") | ${FPI_GENERIC[$k]} | ${LOAD_GENERIC[$k]} | $(ratio "${LOAD_GENERIC[btree]}" "${LOAD_GENERIC[$k]}") |"
	done
fi

echo
echo "## Point lookups"
echo
sql "CREATE TABLE probe AS SELECT $KEY AS k FROM generate_series(1, $ROWS, 97) i"
nprobe=$(sql "SELECT count(*) FROM probe")
echo "Buffer accesses per lookup: index-only scans of $nprobe existing keys in a nested loop in a new session"
echo "(\`EXPLAIN (ANALYZE, BUFFERS)\`, the index scan node's shared hits and reads divided by the lookups; the leaf"
echo "cache fills as they go); second-subnode reads: subnodes read beyond one per descent in the same lookups run"
echo "again with \`pagebtree.leaf_cache_size = 0\`, so that each descends, in % of the descents"
echo "(\`pagebtree_group_lookups()\`; groups use the default \`leaf_group_hint_bits\`)."
echo "Lookups per second: \`pgbench -M prepared\`, one client, 10 s per run, \`SELECT v FROM t WHERE k = ...\` of a random"
echo "existing key (heap fetch included), medians of $REPS runs, the kinds alternating."
echo "In-server lookups: the same $nprobe index-only lookups, one correlated subquery per key, timed inside the server"
echo "(no client round trips, which make up most of a pgbench transaction): µs per lookup, the best of ten loops per"
echo "run (the loop least disturbed by the rest of the machine), medians of $REPS runs, the kinds alternating; the ratios"
echo "are speeds (btree's or pagebtree's time / this kind's)."
echo
echo "| kind | buffers per lookup | second-subnode reads % | lookups/s | lookups/s / btree | lookups/s / pagebtree | in-server µs per lookup | / btree | / pagebtree |"
echo "|---|---|---|---|---|---|---|---|---|"
su postgres -c "$PSQL" >/dev/null <<'SQL'
ANALYZE probe;
CREATE FUNCTION nl_lookups(tbl regclass) RETURNS numeric LANGUAGE plpgsql
SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off AS $$
DECLARE
	best numeric;
	t0 timestamptz;
	n bigint;
BEGIN
	FOR r IN 1 .. 10 LOOP
		t0 := clock_timestamp();
		EXECUTE format('SELECT sum((SELECT count(*) FROM %s t WHERE t.k = p.k)) FROM probe p', tbl) INTO n;
		best := least(best, extract(epoch FROM clock_timestamp() - t0) * 1e6 / n);
	END LOOP;
	RETURN round(best, 3);
END $$;
SQL
declare -A TPS=() NL=()
for k in $KINDS; do
	cat >"$W/lookup_$k.sql" <<EOF
\\set i random(1, $ROWS)
SELECT v FROM t_$k WHERE k = ${KEY_OF//@/:i};
EOF
	chown postgres "$W/lookup_$k.sql"
done
for r in $(seq 1 "$REPS"); do
	if [ $((r % 2)) = 1 ]; then order=$KINDS; else order=$KINDS_REVERSED; fi
	for k in $order; do
		t=$(su postgres -c "$BIN/pgbench -h $W/sock -p $PORT -n -T 10 -c 1 -M prepared -f $W/lookup_$k.sql postgres" 2>/dev/null |
			sed -n 's/^tps = \([0-9.]*\).*/\1/p')
		TPS[$k]+="$t "
		NL[$k]+="$(sql "SELECT nl_lookups('t_$k')") "
	done
done
declare -A M=() MNL=()
for k in $KINDS; do
	M[$k]=$(echo "${TPS[$k]}" | median)
	MNL[$k]=$(echo "${NL[$k]}" | median)
done
explain_lookups() {
	su postgres -c "$PSQL -At" <<SQL
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM probe p JOIN t_$1 t ON t.k = p.k;
SET pagebtree.leaf_cache_size = 0;
SELECT 'reset', * FROM pagebtree_group_lookups(true);
SELECT count(*) FROM probe p JOIN t_$1 t ON t.k = p.k;
SELECT 'second ' || round(100.0 * (subnode_reads - descents) / greatest(descents, 1), 2) FROM pagebtree_group_lookups();
SQL
}
for k in $KINDS; do
	out=$(explain_lookups "$k")
	bufs=$(echo "$out" | awk '/Index Only Scan/ {f = 1} f && /Buffers:/ {print; exit}' |
		sed -n 's/.*shared hit=\([0-9]*\)\( read=\([0-9]*\)\)\?.*/\1 \3/p' |
		awk -v n="$nprobe" '{printf "%.2f", ($1 + $2) / n}')
	second="-"
	case $k in groups*) second=$(echo "$out" | sed -n 's/^second //p') ;; esac
	echo "| $k | $bufs | $second | $(printf '%.0f' "${M[$k]}") | $(ratio "${M[$k]}" "${M[btree]}") | $(ratio "${M[$k]}" "${M[pagebtree]}") | ${MNL[$k]} | $(ratio "${MNL[btree]}" "${MNL[$k]}") | $(ratio "${MNL[pagebtree]}" "${MNL[$k]}") |"
done

[ "${PBT_GROUPS_COLD:-0}" = 1 ] || exit 0
echo
echo "## Long range scans, cold and warm"
echo
sql "CREATE TABLE starts AS SELECT k FROM src WHERE v % $((ROWS / 30)) = 0 ORDER BY k LIMIT 30"
su postgres -c "$PSQL" <<'SQL'
CREATE FUNCTION scan30(tbl regclass) RETURNS numeric LANGUAGE plpgsql
SET enable_seqscan = off SET enable_bitmapscan = off AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	s record;
	n bigint;
BEGIN
	FOR s IN SELECT k FROM starts ORDER BY k LOOP
		EXECUTE format('SELECT count(*) FROM (SELECT k FROM %s WHERE k >= $1 ORDER BY k LIMIT 10000) x', tbl)
			INTO n USING s.k;
	END LOOP;
	RETURN round(extract(epoch FROM clock_timestamp() - t0) * 1000);
END $$;
SQL
echo "30 index-only scans of 10,000 rows each from keys spread over the range (\`ORDER BY k LIMIT 10000\`), in ms,"
echo "medians of $REPS runs, the kinds alternating. Cold: server restarted and the OS cache dropped"
echo "(\`sync; echo 1 > /proc/sys/vm/drop_caches\`) before each run; warm: the same scans again at once."
echo
echo "| kind | cold ms | cold / btree | cold / pagebtree | warm ms | warm / btree | warm / pagebtree |"
echo "|---|---|---|---|---|---|---|"
declare -A COLD=() WARM=()
for r in $(seq 1 "$REPS"); do
	if [ $((r % 2)) = 1 ]; then order=$KINDS; else order=$KINDS_REVERSED; fi
	for k in $order; do
		su postgres -c "$BIN/pg_ctl -D $W/data -l $W/log -w restart" >/dev/null
		sync
		echo 1 >/proc/sys/vm/drop_caches
		COLD[$k]+="$(sql "SELECT scan30('t_$k')") "
		WARM[$k]+="$(sql "SELECT scan30('t_$k')") "
	done
done
cb=$(echo "${COLD[btree]}" | median); wb=$(echo "${WARM[btree]}" | median)
cp=$(echo "${COLD[pagebtree]}" | median); wp=$(echo "${WARM[pagebtree]}" | median)
for k in $KINDS; do
	c=$(echo "${COLD[$k]}" | median); w=$(echo "${WARM[$k]}" | median)
	echo "| $k | $c | $(ratio "$c" "$cb") | $(ratio "$c" "$cp") | $w | $(ratio "$w" "$wb") | $(ratio "$w" "$wp") |"
done
