#!/bin/bash
# Text under a libc C.UTF-8 collation (docs/decisions.md, "Text under a
# libc C.UTF-8 collation gets normalized keys"): one table of URLs in random
# order, in a database whose default collation is C.UTF-8, copied into one
# table per index kind: btree, pagebtree, and pagebtree under a linguistic
# collation (en_US.UTF-8: comparator keys, which C.UTF-8 text had before).
# Index size, CREATE INDEX time and the time of 20,000 index-only lookups of
# existing keys in one statement (a nested loop, no client round trips; the
# best of 5 loops per run), medians of reps runs, the kinds alternating.
#
#   bash bench/cutf8.sh [rows] [reps] [pg]   (as root; default 1000000, 5, 15)
#
# Needs the locale en_US.UTF-8 (test/run-all.sh generates it).  Prints a
# Markdown report (bench/results/cutf8.md).
set -euo pipefail
ROWS=${1:-1000000}
REPS=${2:-5}
PGV=${3:-15}
HERE=$(cd "$(dirname "$0")/.." && pwd)
SERVER_CONF="shared_buffers = 1GB
max_wal_size = 20GB
maintenance_work_mem = 256MB
max_parallel_maintenance_workers = 0"
# shellcheck source=bench/private-server.sh
. "$HERE/bench/private-server.sh"

sql "CREATE DATABASE cu LOCALE 'C.UTF-8' TEMPLATE template0"
PSQL_CU="$BIN/psql -X -q -h $W/sock -p ${PORT:-5631} -d cu -v ON_ERROR_STOP=1"
q() { su postgres -c "$PSQL_CU -At -c \"$1\""; }

KINDS="btree pagebtree linguistic"
index_def() {
	case $1 in
		btree) echo "USING btree (t)" ;;
		pagebtree) echo "USING pagebtree (t)" ;;
		linguistic) echo "USING pagebtree (t COLLATE en_us)" ;;
	esac
}
q "CREATE EXTENSION pagebtree"
q "CREATE COLLATION en_us (provider = libc, locale = 'en_US.UTF-8')"
q "CREATE TABLE src AS SELECT 'https://example.org/' || md5(i::text) || '/item/' || i AS t
   FROM generate_series(1, $ROWS) i ORDER BY md5(i::text || 'x')"
for k in $KINDS; do
	q "CREATE TABLE t_$k AS SELECT t FROM src"
done
q "CREATE TABLE keys AS SELECT t FROM src ORDER BY md5(t) LIMIT 20000"
q "CREATE FUNCTION ms(stmt text) RETURNS float8 LANGUAGE plpgsql AS \\\$\\\$
DECLARE s timestamptz := clock_timestamp();
BEGIN EXECUTE stmt; RETURN extract(epoch FROM clock_timestamp() - s) * 1000; END \\\$\\\$"
q "VACUUM ANALYZE"

declare -A BUILD LOOKUP
for ((r = 1; r <= REPS; r++)); do
	for k in $KINDS; do
		q "SET client_min_messages = warning; DROP INDEX IF EXISTS t_${k}_idx"
		BUILD[$k]+="$(q "SELECT ms('CREATE INDEX t_${k}_idx ON t_$k $(index_def "$k")')") "
		q "VACUUM ANALYZE t_$k"
		coll=$([ "$k" = linguistic ] && echo " COLLATE en_us" || true)
		lookups="SELECT count(*) FROM keys k WHERE EXISTS (SELECT 1 FROM t_$k x WHERE x.t = k.t$coll)"
		off="SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_seqscan = off; SET enable_bitmapscan = off;"
		q "$off EXPLAIN (COSTS OFF) $lookups" | grep -q "Index Only Scan using t_${k}_idx" ||
			{ echo "the lookups of $k do not use its index" >&2; exit 1; }
		best=$(q "$off SELECT min(ms('$lookups')) FROM generate_series(1, 5)" | tail -1)
		LOOKUP[$k]+="$best "
	done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "# Text under a libc C.UTF-8 collation: normalized keys"
echo
echo "\`bash bench/cutf8.sh $ROWS $REPS $PGV\` on $(date -u +%F), $($BIN/postgres --version | sed 's/^postgres //'),"
echo "$(nproc) cores, commit $(git -C "$HERE" rev-parse --short HEAD). $ROWS URLs (\`https://example.org/<md5>/item/<n>\`)"
echo "in random order, one table per kind, in a database whose default collation is libc C.UTF-8;"
echo "\"linguistic\" is pagebtree on \`t COLLATE en_us\` (libc en_US.UTF-8), whose keys stay in comparator mode,"
echo "as C.UTF-8 text's were before. shared_buffers = 1GB, one worker for CREATE INDEX. Build: the"
echo "\`CREATE INDEX\`'s time; lookups: 20,000 existing keys as an \`EXISTS\` subquery each, index-only, in one"
echo "statement, the best of 5 loops per run. Medians of $REPS runs, the kinds alternating."
echo
echo "| kind | key mode | index pages | size / btree | build ms | build / btree | lookups µs each | lookup time / btree |"
echo "|---|---|---|---|---|---|---|---|"
bp=$(q "SELECT pg_relation_size('t_btree_idx') / 8192")
bb=$(echo "${BUILD[btree]}" | median)
bl=$(echo "${LOOKUP[btree]}" | median)
for k in $KINDS; do
	pages=$(q "SELECT pg_relation_size('t_${k}_idx') / 8192")
	mode=$([ "$k" = btree ] && echo - || q "SELECT key_mode FROM pagebtree_metapage('t_${k}_idx')")
	b=$(echo "${BUILD[$k]}" | median)
	l=$(echo "${LOOKUP[$k]}" | median)
	awk -v k="$k" -v m="$mode" -v p="$pages" -v bp="$bp" -v b="$b" -v bb="$bb" -v l="$l" -v bl="$bl" \
		'BEGIN { printf "| %s | %s | %d | %.2f | %.0f | %.2f | %.2f | %.2f |\n", k, m, p, p / bp, b, b / bb, l * 1000 / 20000, l / bl }'
done
q "SELECT pagebtree_check('t_pagebtree_idx', true), pagebtree_check('t_linguistic_idx', true)" >/dev/null
echo
echo "Both pagebtree indexes passed \`pagebtree_check(index, true)\`."
