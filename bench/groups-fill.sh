#!/bin/bash
# Leaf fill and index size of leaf groups (issue #23) as an index grows:
# random keys inserted one by one into empty indexes, measured after each
# of several equal steps, for btree, pagebtree without groups and groups of
# 4 and 16 (library preloaded, so no delta area).  A B-tree that grows from
# empty splits its leaves in waves (leaves filled at one time split at about
# the same time later), and a group of N leaves splits as one, so groups
# show the waves N times as strongly: one measurement at one size says
# little.  Prints a Markdown table (bench/results/groups-fill*.md).
#
#   bash bench/groups-fill.sh [rows] [steps] [keys]   (as root; default 4000000, 8, random)
#
# keys: random (sparse int8) or text (URLs with an md5), as bench/groups.sh.
set -euo pipefail
ROWS=${1:-4000000}
STEPS=${2:-8}
KEYS=${3:-random}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PBT_BENCH_PORT:-5635}
SERVER_CONF="shared_buffers = 1GB
max_wal_size = 20GB
checkpoint_timeout = 1h"
. "$HERE/bench/private-server.sh"

case $KEYS in
random) KEY_OF="(i * 2654435761) % 1099511627776"; KEY_TYPE=int8 ;;
text) KEY_OF="'https://example.org/' || md5(i::text) || '/item/' || i"; KEY_TYPE=text ;;  # (the cluster's collation is C: initdb --no-locale)
*) echo "keys: random or text" >&2; exit 2 ;;
esac
KINDS="btree pagebtree groups4 groups16"
sql "CREATE EXTENSION pagebtree; CREATE EXTENSION pgstattuple"
for kind in $KINDS; do
	case $kind in
	btree) def="USING btree (k)" ;;
	pagebtree) def="USING pagebtree (k) WITH (delta = off)" ;;
	groups4) def="USING pagebtree (k) WITH (leaf_group_size = 4)" ;;
	groups16) def="USING pagebtree (k) WITH (leaf_group_size = 16)" ;;
	esac
	sql "CREATE TABLE $kind (k $KEY_TYPE); CREATE INDEX ${kind}_k ON $kind $def"
done
# leaf fill: btree's from pgstatindex, pagebtree's from its leaves' free bytes
fill() {
	if [ "$1" = btree ]; then
		sql "SELECT round(avg_leaf_density::numeric, 1) FROM pgstatindex('btree_k')"
	else
		sql "SELECT round(100.0 * sum(pages * ($USABLE - avg_free_size)) / sum(pages * $USABLE), 1)
		     FROM pagebtree_layout_summary('${1}_k') WHERE page_type = 'leaf'"
	fi
}
# inner pages, the root included: btree's from pgstatindex
inner() {
	if [ "$1" = btree ]; then
		sql "SELECT internal_pages FROM pgstatindex('btree_k')"
	else
		sql "SELECT coalesce(sum(pages), 0) FROM pagebtree_layout_summary('${1}_k') WHERE page_type = 'inner'"
	fi
}
# a leaf's usable bytes: the block less its header and pagebtree's special space
USABLE=$(( $(sql "SELECT current_setting('block_size')") - 24 - 32 ))
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

echo "# Leaf fill and size of leaf groups as the index grows ($KEYS keys)"
echo
echo "\`bash bench/groups-fill.sh $ROWS $STEPS $KEYS\`, commit $(git -C "$HERE" rev-parse --short HEAD),"
echo "PostgreSQL $PGV, library preloaded (no delta area), $ROWS keys inserted one by one in random order into"
echo "empty indexes, in $STEPS equal steps (one INSERT ... SELECT per step and index, the indexes in turns)."
echo "Leaf fill: btree's \`avg_leaf_density\` (pgstattuple); pagebtree's, the bytes its leaves use of their usable space."
echo "Inner pages, the root included: btree's \`internal_pages\` (pgstatindex); pagebtree's from \`pagebtree_layout_summary\`."
echo
echo "| rows | leaf fill % btree | pagebtree | groups 4 | groups 16 | size groups 16 / btree | groups 16 / pagebtree | groups 4 / pagebtree | pagebtree / btree | inner pages btree | groups 16 | groups 16 / btree |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
declare -A size
for step in $(seq 1 "$STEPS"); do
	lo=$(( (step - 1) * ROWS / STEPS + 1 ))
	hi=$(( step * ROWS / STEPS ))
	order=$KINDS
	[ $((step % 2)) = 0 ] && order=$(echo $KINDS | tr ' ' '\n' | tac | tr '\n' ' ')
	for kind in $order; do
		sql "INSERT INTO $kind SELECT $KEY_OF FROM generate_series($lo, $hi) i ORDER BY hashint8(i + $step)" >/dev/null
	done
	line="| $hi"
	for kind in $KINDS; do
		line="$line | $(fill $kind)"
		size[$kind]=$(sql "SELECT pg_relation_size('${kind}_k')")
	done
	bt_inner=$(inner btree)
	g_inner=$(inner groups16)
	echo "$line | $(ratio ${size[groups16]} ${size[btree]}) | $(ratio ${size[groups16]} ${size[pagebtree]}) | $(ratio ${size[groups4]} ${size[pagebtree]}) | $(ratio ${size[pagebtree]} ${size[btree]}) | $bt_inner | $g_inner | $(ratio "$g_inner" "$bt_inner") |"
done
# the verifier raises an error (set -e stops the script) on a bad index
for kind in pagebtree groups4 groups16; do
	sql "SELECT pagebtree_check('${kind}_k')" >/dev/null
done
