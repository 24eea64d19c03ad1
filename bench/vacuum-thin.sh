#!/bin/bash
# VACUUM's index WAL after deletions that thin the leaves: the same rows
# in two tables, one indexed by btree and one by pagebtree (a text key of
# 64 hex digits and a sparse int8 key, both loaded in random order), a
# share of the rows deleted, then (unless CHECKPOINT=0) a checkpoint, so
# that every page VACUUM changes is logged whole, as it is for VACUUMs
# that run long after the last checkpoint.  Prints, for each share, the
# index pages and the WAL of the indexes' records (pg_waldump --stats:
# Btree for btree; pagebtree's resource manager, or Generic and XLOG/FPI
# records when not preloaded), the heap's being the same for both.
#
# usage: bash bench/vacuum-thin.sh [ROWS] [SHARES]
#   defaults: 200,000 rows; SHARES "1 3 5 9" (tenths of the rows deleted:
#   those whose number modulo 10 is below it)
# Runs a throwaway cluster of the server whose bin directory is $PG_BIN
# (default: pg_config --bindir), with pagebtree installed there, as the
# user postgres when run as root.  PRELOAD=0 runs it without
# shared_preload_libraries (generic WAL).
set -euo pipefail
ROWS=${1:-200000}
SHARES=${2:-1 3 5 9}
CHECKPOINT=${CHECKPOINT:-1}
PORT=5498
SERVER_OPTS="-c max_wal_size=10GB -c checkpoint_timeout=1h"
. "$(dirname "$0")/throwaway-cluster.sh"

# kB of WAL in records of the given resource managers between two LSNs
index_wal() {
	# VACUUM's commit does not flush its WAL (a commit does only when its
	# transaction wrote some), and pg_waldump reads what is on disk: a
	# switch to the next segment flushes it
	q -c "SELECT pg_switch_wal()" >/dev/null
	"${RUN[@]}" "$PG_BIN/pg_waldump" -p "$DIR/data/pg_wal" -s "$1" -e "$2" --stats=rmgr |
		awk -v rm="$3" '{ gsub(/\([^)]*\)/, "") } $1 ~ rm { sum += $5 } END { printf "%d", sum / 1024 }'
}

echo "VACUUM after deleting a share of $ROWS rows (preloaded: $PRELOAD, checkpoint before VACUUM: $CHECKPOINT)"
echo
echo "| deleted | btree pages | pagebtree pages | VACUUM index WAL kB, btree | pagebtree | pagebtree / btree |"
echo "|---|---|---|---|---|---|"
q -c "CREATE EXTENSION pagebtree"
for share in $SHARES; do
	q <<SQL
DROP TABLE IF EXISTS tb, tp;
CREATE TABLE tb (n int8, k text COLLATE "C", i int8) WITH (autovacuum_enabled = off);
CREATE TABLE tp (LIKE tb) WITH (autovacuum_enabled = off);
INSERT INTO tb SELECT g, md5(g::text) || md5((g * 7)::text), (g * 2654435761) % 1099511627776
FROM generate_series(1, $ROWS) g ORDER BY md5(g::text);
INSERT INTO tp SELECT * FROM tb;
CREATE INDEX tb_k ON tb USING btree (k);
CREATE INDEX tb_i ON tb USING btree (i);
CREATE INDEX tp_k ON tp USING pagebtree (k);
CREATE INDEX tp_i ON tp USING pagebtree (i);
VACUUM tb; VACUUM tp;
DELETE FROM tb WHERE n % 10 < $share;
DELETE FROM tp WHERE n % 10 < $share;
-- the heap's dead tuples first, so that the VACUUM measured is the indexes'
VACUUM (INDEX_CLEANUP OFF) tb; VACUUM (INDEX_CLEANUP OFF) tp;
SQL
	wal=()
	for t in tb tp; do
		[ "$CHECKPOINT" = 1 ] && q -c CHECKPOINT
		s=$(q -c "SELECT pg_current_wal_insert_lsn()")
		q -c "VACUUM (INDEX_CLEANUP ON) $t"
		e=$(q -c "SELECT pg_current_wal_insert_lsn()")
		if [ $t = tb ]; then
			wal+=("$(index_wal "$s" "$e" '^Btree$')")
		else
			wal+=("$(index_wal "$s" "$e" '^(custom|Generic$|XLOG$)')")
		fi
	done
	pages=$(q -c "SELECT (pg_relation_size('tb_k') + pg_relation_size('tb_i')) / 8192 || ' | ' || (pg_relation_size('tp_k') + pg_relation_size('tp_i')) / 8192")
	q -c "SELECT pagebtree_check('tp_k', true), pagebtree_check('tp_i', true)" >/dev/null
	echo "| $share/10 | $pages | ${wal[0]} | ${wal[1]} | $(awk -v a="${wal[1]}" -v b="${wal[0]}" 'BEGIN { printf "%.2f", a / b }') |"
done
