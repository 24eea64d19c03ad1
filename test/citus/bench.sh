# pgbench through the Citus coordinator: the same distributed schema twice,
# once with pagebtree indexes and once with btree indexes.  Sourced by
# test/citus/run.sh (--bench, --bench-only), which has started the
# clusters; run it with bench/citus.sh.
#
# Each schema has one table distributed by id (8 shards on 2 workers) with a
# unique index on id and an index on k (10 rows per k), of the one access
# method or the other.  The pgbench script does, per transaction, a point
# select by id (one shard), a select by k (every shard, through the
# secondary index), an update by id, an update by k and id, and an insert.
# The two schemas are run alternately (A B, B A, ...), each run for
# CITUS_BENCH_SECONDS, and the report gives every run, the medians and the
# ratio pagebtree/btree of the median throughputs.

# median of the numbers given as arguments
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# total size of the indexes of bench_KIND.acct over all its shards
index_size() {
	sql "$PORT_C" -c "SELECT pg_size_pretty(sum(result::bigint)) FROM run_command_on_shards('bench_$1.acct', \$\$SELECT pg_indexes_size('%s')\$\$)"
}

run_bench() {
	local kind schema nk run order tps lat out r i
	local -A TPS LAT
	local -a PAIR=()
	local last_pagebtree last_btree
	nk=$((BENCH_ROWS / 10))
	log "bench: loading the schemas bench_pagebtree and bench_btree ($BENCH_ROWS rows each)"
	for kind in pagebtree btree; do
		schema=bench_$kind
		sql "$PORT_C" <<-EOF >/dev/null || die "bench: creating $schema failed"
			SET citus.shard_count = 8;
			CREATE SCHEMA $schema;
			CREATE TABLE $schema.acct (id bigint NOT NULL, k int NOT NULL, v int NOT NULL, pad text);
			SELECT create_distributed_table('$schema.acct', 'id');
			CREATE UNIQUE INDEX acct_id ON $schema.acct USING $kind (id);
			CREATE INDEX acct_k ON $schema.acct USING $kind (k);
			INSERT INTO $schema.acct SELECT i, (i::bigint * 7919) % $nk, 0, repeat('x', 40)
				FROM generate_series(1, $BENCH_ROWS) i;
			VACUUM ANALYZE $schema.acct;
		EOF
		cat >"$WORK/bench-$kind.sql" <<-EOF
			\set id random(1, $BENCH_ROWS)
			\set k random(0, $((nk - 1)))
			\set newid random($((BENCH_ROWS + 1)), 9000000000000000)
			SELECT v, pad FROM $schema.acct WHERE id = :id;
			SELECT count(*), sum(v) FROM $schema.acct WHERE k = :k;
			UPDATE $schema.acct SET v = v + 1 WHERE id = :id;
			UPDATE $schema.acct SET v = v - 1 WHERE k = :k AND id = :id;
			INSERT INTO $schema.acct VALUES (:newid, :k, 0, 'new');
		EOF
		chown "$TEST_USER" "$WORK/bench-$kind.sql"
	done
	# the plans of the statements, on one shard each: both use their indexes
	for kind in pagebtree btree; do
		out=$(sql "$PORT_C" -c "SET citus.explain_all_tasks = off" \
			-c "EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM bench_$kind.acct WHERE k = 42" \
			-c "EXPLAIN (COSTS OFF) SELECT v, pad FROM bench_$kind.acct WHERE id = 42")
		if [ "$(printf '%s\n' "$out" | grep -cE 'Index (Only )?Scan using acct_(k|id)_[0-9]+|Bitmap Index Scan on acct_(k|id)_[0-9]+')" -ge 2 ]; then
			ok "bench: bench_$kind's statements use its indexes on the workers"
		else
			not_ok "bench: bench_$kind's statements do not use its indexes" "$out"
		fi
	done

	run_one() {	# run_one KIND SECONDS [RUN]: prints "tps latency_ms"; with RUN,
		# appends "KIND<TAB>latency_ms<TAB>statement" of each SQL statement
		# (pgbench -r) to $WORK/statements.tsv
		as_user "$SYS_BINDIR/pgbench" -n -r -M prepared -h "$SOCK" -p "$PORT_C" -c "$BENCH_CLIENTS" -j 2 \
			-T "$2" -f "$WORK/bench-$1.sql" postgres >"$WORK/log/pgbench-$1.out" 2>&1 \
			|| { cat "$WORK/log/pgbench-$1.out" >&2; return 1; }
		if [ -n "${3:-}" ]; then
			awk -v kind="$1" '/^ +[0-9.]+ +[0-9]+ +(SELECT|UPDATE|INSERT)/ {
				stmt = $0; sub(/^ +[0-9.]+ +[0-9]+ +/, "", stmt); gsub(/bench_(pagebtree|btree)/, "bench_<am>", stmt)
				printf "%s\t%s\t%s\n", kind, $1, stmt }' "$WORK/log/pgbench-$1.out" >>"$WORK/statements.tsv"
		fi
		awk '/^latency average/ { lat = $4 } /^tps = / { tps = $3 } END { print tps, lat }' "$WORK/log/pgbench-$1.out"
	}

	log "bench: warm-up, 10 s each"
	run_one pagebtree 10 >/dev/null || die "bench: pgbench failed"
	run_one btree 10 >/dev/null || die "bench: pgbench failed"

	local rows_md=""
	for ((r = 1; r <= BENCH_RUNS; r++)); do
		if ((r % 2)); then order="pagebtree btree"; else order="btree pagebtree"; fi
		for kind in $order; do
			out=$(run_one "$kind" "$BENCH_SECONDS" "$r") || die "bench: pgbench failed"
			TPS[$kind]="${TPS[$kind]:-} ${out% *}"
			LAT[$kind]="${LAT[$kind]:-} ${out#* }"
			printf 'run %d %-9s tps %s, latency %s ms\n' "$r" "$kind" "${out% *}" "${out#* }"
			rows_md+="| $r | $kind | ${out% *} | ${out#* } |"$'\n'
			eval "last_$kind=\${out% *}"
		done
		# the ratio within each pair of runs: the machine's load shifts
		# between pairs more than within one
		PAIR+=("$(awk -v a="$last_pagebtree" -v b="$last_btree" 'BEGIN { printf "%.3f", a / b }')")
	done

	local med_p med_b lat_p lat_b ratio size_p size_b load pair_med
	# shellcheck disable=SC2086
	med_p=$(median ${TPS[pagebtree]}); med_b=$(median ${TPS[btree]})
	# shellcheck disable=SC2086
	lat_p=$(median ${LAT[pagebtree]}); lat_b=$(median ${LAT[btree]})
	ratio=$(awk -v a="$med_p" -v b="$med_b" 'BEGIN { printf "%.3f", a / b }')
	size_p=$(index_size pagebtree); size_b=$(index_size btree)
	pair_med=$(median "${PAIR[@]}")
	echo "median tps: pagebtree $med_p, btree $med_b, ratio pagebtree/btree $ratio"
	echo "ratio pagebtree/btree within each pair of runs: ${PAIR[*]} (median $pair_med)"
	# both schemas hold the same rows after the same statements? (counts
	# differ by the inserts each did; the original rows must all be there)
	for kind in pagebtree btree; do
		if [ "$(sql "$PORT_C" -c "SELECT count(*) FROM bench_$kind.acct WHERE id <= $BENCH_ROWS")" = "$BENCH_ROWS" ]; then
			ok "bench: bench_$kind.acct still has its $BENCH_ROWS original rows"
		else
			not_ok "bench: bench_$kind.acct lost rows"
		fi
	done

	# per statement: median latency of each kind over the runs, and the ratio
	local stmt_md
	stmt_md=$(awk -F'\t' '
		{ key = $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
		  v[$1, key, ++c[$1, key]] = $2 }
		function med(kind, key,    m, i, j, t, a) {
			m = c[kind, key]
			for (i = 1; i <= m; i++) a[i] = v[kind, key, i]
			for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		END {
			for (i = 1; i <= n; i++) {
				p = med("pagebtree", order[i]); b = med("btree", order[i])
				printf "| `%s` | %.3f | %.3f | %.2f |\n", order[i], p, b, (b > 0 ? p / b : 0)
			}
		}' "$WORK/statements.tsv")
	echo "per statement (median ms, pagebtree, btree, ratio):"
	printf '%s\n' "$stmt_md"

	load=$(cut -d' ' -f1-3 /proc/loadavg)
	mkdir -p "$(dirname "$BENCH_OUT")"
	cat >"$BENCH_OUT" <<-EOF
		# Citus: pgbench through the coordinator, pagebtree against btree

		Produced by \`$BENCH_COMMAND\` on $(date -u +'%Y-%m-%d %H:%M UTC'), commit $(git -C "$SRCDIR" rev-parse --short HEAD 2>/dev/null || echo '?').

		**Median throughput: pagebtree $med_p tps, btree $med_b tps; ratio pagebtree/btree = $ratio**
		(median latency $lat_p ms against $lat_b ms).
		Ratio pagebtree/btree within each pair of consecutive runs: ${PAIR[*]}
		(median **$pair_med**; the load of the machine shifts between pairs more
		than within one).

		## Runs (alternating, $BENCH_RUNS per index kind, ${BENCH_SECONDS} s each)

		| run | indexes | tps | latency average (ms) |
		|---|---|---|---|
		${rows_md}
		## Per statement (\`pgbench -r\`: median over the runs of each statement's average latency)

		| statement | pagebtree (ms) | btree (ms) | ratio (below 1: pagebtree faster) |
		|---|---|---|---|
		${stmt_md}

		Index size after the runs (all shards, both indexes): pagebtree $size_p, btree $size_b.

		## Setup

		- Machine: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, shared
		  with other work (load average $load when the runs ended): the clusters,
		  pgbench and other engineers' builds and benchmarks share the two cores,
		  so the absolute numbers are noisy; compare the ratio, from alternating runs.
		- Servers: $(sql "$PORT_C" -c "SELECT version()" | cut -d, -f1), Citus $(sql "$PORT_C" -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'") built from source,
		  pagebtree $(sql "$PORT_C" -c "SELECT extversion FROM pg_extension WHERE extname = 'pagebtree'");
		  a coordinator and two workers on this machine, each with
		  \`shared_buffers = 128MB\`, \`fsync = off\`, \`synchronous_commit = off\`,
		  \`full_page_writes = off\`, \`wal_level = logical\`,
		  \`shared_preload_libraries = 'citus,pagebtree'\`; Citus defaults otherwise.
		- Schema (once per index kind, \`bench_pagebtree\` and \`bench_btree\`):
		  \`acct (id bigint, k int, v int, pad text)\` distributed by \`id\` into 8
		  shards, $BENCH_ROWS rows, 10 rows per \`k\`; \`CREATE UNIQUE INDEX ... USING <am> (id)\`,
		  \`CREATE INDEX ... USING <am> (k)\`.
		- pgbench: \`pgbench -n -r -M prepared -c $BENCH_CLIENTS -j 2 -T $BENCH_SECONDS -f <script>\` against the
		  coordinator, after a 10 s warm-up of each; the script (schema \`bench_pagebtree\` or \`bench_btree\`):

		\`\`\`
		$(sed 's/bench_pagebtree/bench_<am>/g' "$WORK/bench-pagebtree.sql")
		\`\`\`

		  The select by \`k\` goes to every shard (8 tasks); the others to one.
		  The tables grow by the inserts during the runs, the same for both
		  kinds because the runs alternate.
	EOF
	echo "report written to $BENCH_OUT"
}
