#!/bin/bash
# Size of INCLUDE indexes against btree's: 60,000 rows in random order
# (three int4 columns, text of 1-9 characters, int4 and int8 values, and
# an int4 and a text column with NULLs), six indexes per access method
# built by CREATE INDEX, and the first of them also filled row by row by
# one INSERT ... SELECT.  Prints pages and the ratio pagebtree / btree.
#
# usage: bash bench/include-size.sh
# Runs a throwaway cluster of the server whose bin directory is $PG_BIN
# (default: pg_config --bindir), with pagebtree installed there, as the
# user postgres when run as root.
set -euo pipefail
PORT=5497
. "$(dirname "$0")/throwaway-cluster.sh"

q <<'SQL'
CREATE EXTENSION pagebtree;
SELECT setseed(0.42);
CREATE TABLE t AS
SELECT g AS id, (random() * 100)::int4 AS a, (random() * 100)::int4 AS b,
       (random() * 1000)::int4 AS c, substr(md5(g::text), 1, 1 + g % 9) AS s,
       (g * 7)::int8 AS v8, (g % 1000)::int4 AS v4,
       CASE WHEN g % 2 = 0 THEN NULL ELSE g END::int4 AS n4,
       CASE WHEN g % 3 = 0 THEN NULL ELSE 'abc' || g END AS ns
FROM generate_series(1, 60000) g ORDER BY random();
CREATE TABLE t2 (LIKE t);
SQL
INDEXES=("(a, b, c) INCLUDE (s)" "(id) INCLUDE (s)" "(id) INCLUDE (v4)" "(id) INCLUDE (v8)" "(v8) INCLUDE (a, s)" "(id) INCLUDE (n4, ns)")
for am in btree pagebtree; do
	for i in "${!INDEXES[@]}"; do
		q -c "CREATE INDEX ${am}_$i ON t USING $am ${INDEXES[$i]}"
	done
	q -c "CREATE INDEX ${am}_ins ON t2 USING $am ${INDEXES[0]}"
done
q -c "INSERT INTO t2 SELECT * FROM t"
echo "| index | btree pages | pagebtree pages | pagebtree / btree |"
echo "|---|---|---|---|"
row() {
	echo "| $1 | $(q -c "SELECT pg_relation_size('btree_$2') / 8192 || ' | ' || pg_relation_size('pagebtree_$2') / 8192 || ' | ' || round(pg_relation_size('pagebtree_$2')::numeric / pg_relation_size('btree_$2'), 2)") |"
}
for i in "${!INDEXES[@]}"; do
	row "\`${INDEXES[$i]}\`" "$i"
done
row "\`${INDEXES[0]}\`, filled by INSERT" ins
q -c "SELECT pagebtree_check(c.oid, true) FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'pagebtree'" >/dev/null
