#!/bin/bash
# Insert WAL of an INCLUDE index against btree's: 60,000 rows in random
# order (three int4 columns and text of 1-9 characters, as in
# include-size.sh) inserted by one INSERT ... SELECT into an empty table
# with the index `(a, b, c) INCLUDE (s)`, right after a CHECKPOINT, for
# btree and for pagebtree in both payload forms (the default, and
# pagebtree.short_include_payloads = off).  Prints WAL bytes per row less
# those of the same insert without an index, and full-page images per
# 1,000 rows (pg_waldump), and the ratio to btree's bytes.
#
# usage: bash bench/include-wal.sh        (PRELOAD=0: without preloading)
# Runs a throwaway cluster of the server whose bin directory is $PG_BIN
# (default: pg_config --bindir), with pagebtree installed there.
set -euo pipefail
PORT=5496
. "$(dirname "$0")/throwaway-cluster.sh"

q <<'SQL'
CREATE EXTENSION pagebtree;
SELECT setseed(0.42);
CREATE TABLE t AS
SELECT g AS id, (random() * 100)::int4 AS a, (random() * 100)::int4 AS b,
       (random() * 1000)::int4 AS c, substr(md5(g::text), 1, 1 + g % 9) AS s
FROM generate_series(1, 60000) g ORDER BY random();
SQL
declare -A bytes fpi
for kind in none btree pagebtree pagebtree-off; do
	q -c "DROP TABLE IF EXISTS t2" -c "CREATE TABLE t2 (LIKE t)"
	case $kind in
		none) ;;
		pagebtree-off) q -c "SET pagebtree.short_include_payloads = off" \
			-c "CREATE INDEX ON t2 USING pagebtree (a, b, c) INCLUDE (s)" ;;
		*) q -c "CREATE INDEX ON t2 USING $kind (a, b, c) INCLUDE (s)" ;;
	esac
	q -c CHECKPOINT
	s=$(q -c "SELECT pg_current_wal_insert_lsn()")
	q -c "INSERT INTO t2 SELECT * FROM t"
	e=$(q -c "SELECT pg_current_wal_insert_lsn()")
	q -c "SELECT pg_switch_wal()" >/dev/null
	bytes[$kind]=$(q -c "SELECT ('$e'::pg_lsn - '$s'::pg_lsn) / 60000.0")
	fpi[$kind]=$("${RUN[@]}" "$PG_BIN/pg_waldump" -p "$DIR/data/pg_wal" -s "$s" -e "$e" 2>/dev/null |
		{ grep -o "FPW" || true; } | wc -l)
done
echo "| index (preloaded: $PRELOAD) | WAL bytes per row, less the table's | ratio to btree | full-page images per 1,000 rows |"
echo "|---|---|---|---|"
for kind in btree pagebtree pagebtree-off; do
	python3 - "$kind" "${bytes[$kind]}" "${bytes[none]}" "${bytes[btree]}" "${fpi[$kind]}" "${fpi[none]}" <<'PY'
import sys
k, b, n, bt, f, fn = sys.argv[1], *map(float, sys.argv[2:])
print(f"| {k} | {b - n:.1f} | {(b - n) / (bt - n):.2f} | {(f - fn) / 60:.1f} |")
PY
done
