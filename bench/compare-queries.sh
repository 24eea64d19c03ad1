# Sourced by benchmarks that time statements on btree and pagebtree tables
# side by side (after bench/private-server.sh): QUERIES holds "name|body"
# entries whose body names its tables with _AM (replaced by _btree and
# _pagebtree); the body's last line is the statement, \set and SET lines
# before it set it up.  Each body runs as pgbench -M prepared, one client,
# SECS seconds, index scans forced (PGOPTIONS: no sequential or bitmap
# scans), the methods alternating, REPS times.  Fills T["am|name"] with the
# mean latencies of the runs; print_table prints the Markdown table of their
# medians and of the index scan node's buffer accesses (EXPLAIN ANALYZE
# BUFFERS, :k = 1000).
PLANSET="SET enable_seqscan = off; SET enable_bitmapscan = off;"
run() {
	local am=$1 body=$2
	printf '%s\n' "${body//_AM/_$am}" >"$W/q.sql"
	chmod a+r "$W/q.sql"
	su postgres -c "PGOPTIONS='-c enable_seqscan=off -c enable_bitmapscan=off' \
		$BIN/pgbench -n -M prepared -h $W/sock -p $PORT -T $SECS -f $W/q.sql postgres" 2>/dev/null |
		sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p'
}
# the statement of a body: its last line; SET lines before it, for the plan
statement() { printf '%s\n' "$1" | grep -v '^\\set' | grep -v '^SET ' | sed 's/;$//'; }
buffers() {
	local am=$1 body=$2 setup stmt
	setup=$(printf '%s\n' "${body//_AM/_$am}" | grep '^SET ' | paste -sd' ')
	stmt=$(statement "${body//_AM/_$am}" | sed "s/:k/1000/g")
	sql "$PLANSET $setup EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) $stmt" |
		grep -m1 -o 'shared hit=[0-9]*\( read=[0-9]*\)\?' | grep -o '[0-9]*' | paste -sd+ | bc
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A T
for rep in $(seq "$REPS"); do
	for q in "${QUERIES[@]}"; do
		order=(btree pagebtree)
		[ $((rep % 2)) = 0 ] && order=(pagebtree btree)
		for am in "${order[@]}"; do
			T["$am|${q%%|*}"]+="$(run "$am" "${q#*|}") "
		done
	done
done

print_table() {
	echo "| statement | btree ms | pagebtree ms | pagebtree/btree | btree buffers | pagebtree buffers |"
	echo "|---|---|---|---|---|---|"
	for q in "${QUERIES[@]}"; do
		local name=${q%%|*} b p stmt
		b=$(echo "${T[btree|$name]}" | median)
		p=$(echo "${T[pagebtree|$name]}" | median)
		stmt=$(statement "${q#*|}" | sed 's/_AM//')
		echo "| $name: \`$stmt\` | $b | $p | $(awk "BEGIN{printf \"%.2f\", $p/$b}") | $(buffers btree "${q#*|}") | $(buffers pagebtree "${q#*|}") |"
	done
	echo
	echo "Raw latencies (ms) per run:"
	echo
	for k in "${!T[@]}"; do echo "- $k: ${T[$k]}"; done | sort
}
