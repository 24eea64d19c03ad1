#!/bin/bash
# Serializable transactions through pagebtree against btree: how many
# commit, and how many fail with serialization failures that must be
# retried.
#
#   bash bench/serializable.sh [15|16|18] [buckets]   (as root; default 15, 1000)
#
# One table per access method, (b int, id int8, pad text) with an index on
# (b, id) INCLUDE (pad): a bucket's rows fill about a leaf.  Each
# transaction (SERIALIZABLE) counts the rows of a random bucket through the
# index and inserts one more if it holds fewer than 30, else empties it:
# the write skew of test/t/036_serializable.pl.  Transactions on different
# buckets do not conflict; an access method whose predicate locks cover
# more than the leaves read (the whole index, before pagebtree took page
# locks) fails some of them anyway.  pgbench, PBT_SSI_CLIENTS clients
# (default 4), PBT_SSI_SECS seconds per run (default 10), --max-tries=1000,
# the methods alternating, REPS (PBT_SSI_REPS, default 3) runs; medians.
# Prints a Markdown report (bench/results/serializable-*.md).
set -euo pipefail
V=${1:-15}
BUCKETS=${2:-1000}
REPS=${PBT_SSI_REPS:-3}
SECS=${PBT_SSI_SECS:-10}
CLIENTS=${PBT_SSI_CLIENTS:-4}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMIT=${PBT_BENCH_COMMIT:-$(git -C "$HERE" rev-parse --short HEAD)}
case $V in 15 | 16 | 18) ;; *) echo "version 15, 16 or 18" >&2; exit 2 ;; esac
PGV=$V
PORT=${PBT_BENCH_PORT:-5477}
SERVER_CONF="shared_buffers = 512MB
max_connections = 20
max_pred_locks_per_transaction = 256
enable_seqscan = off"
. "$HERE/bench/private-server.sh"
sql() { su postgres -c "$PSQL -At" <<<"$1"; }
sql "CREATE EXTENSION pagebtree; CREATE SEQUENCE s_seq"
for am in btree pagebtree; do
	sql "CREATE TABLE ssi_$am (b int NOT NULL, id int8 NOT NULL, pad text NOT NULL);
		 INSERT INTO ssi_$am SELECT b, nextval('s_seq'), repeat('x', 200)
		 FROM generate_series(1, $BUCKETS) b, generate_series(1, (b * 7) % 30) i;
		 CREATE INDEX ssi_${am}_b ON ssi_$am USING $am (b, id) INCLUDE (pad);
		 VACUUM ANALYZE ssi_$am;"
done
SERVER=$(sql "SELECT version()")

run() {
	local am=$1
	cat >"$W/q.sql" <<SQL
\\set b random(1, $BUCKETS)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*) AS n FROM ssi_$am WHERE b = :b \\gset
\\if :n < 30
INSERT INTO ssi_$am VALUES (:b, nextval('s_seq'), repeat('x', 200));
\\else
DELETE FROM ssi_$am WHERE b = :b;
\\endif
COMMIT;
SQL
	chmod a+r "$W/q.sql"
	# tps and the share of transactions retried, one line
	su postgres -c "$BIN/pgbench -n -h $W/sock -p $PORT -c $CLIENTS -j 2 -T $SECS \
		--max-tries=1000 -f $W/q.sql postgres" 2>/dev/null |
		awk '/^tps = / {tps = $3} /^number of transactions retried:/ {r = $6}
			/^number of failed transactions:/ {f = $5}
			END {gsub(/[(%)]/, "", r); printf "%.0f %s %s\n", tps, r, f}'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A TPS RETRIED FAILED
for rep in $(seq "$REPS"); do
	order=(btree pagebtree)
	[ $((rep % 2)) = 0 ] && order=(pagebtree btree)
	for am in "${order[@]}"; do
		read -r tps retried failed < <(run "$am")
		TPS[$am]+="$tps "
		RETRIED[$am]+="$retried "
		FAILED[$am]+="$failed "
	done
done
for am in btree pagebtree; do
	over=$(sql "SELECT count(*) FROM (SELECT b FROM ssi_$am GROUP BY b HAVING count(*) > 30) x")
	[ "$over" = 0 ] || { echo "ssi_$am: $over buckets hold more than 30 rows" >&2; exit 1; }
done
sql "SELECT pagebtree_check('ssi_pagebtree_b', true)" >/dev/null

echo "# Serializable write skew on PostgreSQL $V"
echo
echo "Command: \`bash bench/serializable.sh $V $BUCKETS\` (as root), $(date -u +%Y-%m-%dT%H:%M:%SZ), git $COMMIT; $(nproc) CPUs."
echo "Server: $SERVER"
echo
echo "$BUCKETS buckets of up to 30 rows, an index on (b, id) INCLUDE (pad) (200-byte pad: a bucket fills about a"
echo "leaf). Each SERIALIZABLE transaction counts a random bucket through the index and inserts a row if it holds"
echo "fewer than 30, else empties it. pgbench, $CLIENTS clients, $SECS s per run, --max-tries=1000, the methods"
echo "alternating, medians of $REPS runs. Retried: the share of transactions that failed with a serialization"
echo "failure at least once (pgbench's figure). Afterwards no bucket held more than 30 rows."
echo
echo "| | btree | pagebtree | pagebtree/btree |"
echo "|---|---|---|---|"
bt=$(echo "${TPS[btree]}" | median)
pt=$(echo "${TPS[pagebtree]}" | median)
echo "| transactions/s | $bt | $pt | $(awk "BEGIN{printf \"%.2f\", $pt/$bt}") |"
echo "| retried | $(echo "${RETRIED[btree]}" | median)% | $(echo "${RETRIED[pagebtree]}" | median)% | |"
echo "| failed for good | $(echo "${FAILED[btree]}" | median) | $(echo "${FAILED[pagebtree]}" | median) | |"
echo
echo "Raw figures per run (transactions/s, retried %, failed):"
echo
for am in btree pagebtree; do echo "- $am: ${TPS[$am]}/ ${RETRIED[$am]}/ ${FAILED[$am]}"; done
