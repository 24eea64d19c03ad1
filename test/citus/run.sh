#!/bin/bash
# pagebtree on Citus (issue #26, item 1).
#
#   bash test/citus/run.sh [--keep] [--pgroot=DIR] [--bench[=FILE]] [--bench-only[=FILE]]
#
# As root on Debian 12 with Debian's PostgreSQL 15, this
#   1. installs the packages it needs with apt-get (skipped when installed),
#   2. unpacks the Citus source (env CITUS_TARBALL, else
#      <repo>/../shared/vendor/citus-13.2.2.tar.gz; if there is none it
#      prints "skipped: ..." and exits 0), renames Citus's own copy of
#      have_createdb_privilege (15.20's headers export the function), builds
#      it and builds pagebtree from a copy of the repository,
#   3. installs both into a private copy of the server in the scratch
#      directory (DESTDIR), not into the system: this machine's own
#      PostgreSQL 15 serves other clusters with their own pagebtree build,
#   4. starts a coordinator and two workers (throwaway clusters on private
#      ports, user postgres, shared_preload_libraries = 'citus,pagebtree'),
#      creates distributed tables with pagebtree indexes (plain, unique with
#      the distribution column, multi-column with INCLUDE) and checks that
#      - every shard has the same indexes with access method pagebtree,
#      - distributed queries use them on the workers (EXPLAIN through Citus,
#        citus.explain_all_tasks),
#      - point, range, ordered-LIMIT and join queries return what a
#        sequential scan returns (index scans switched off on the workers
#        through SET LOCAL with citus.propagate_set_commands = 'local'),
#      - the unique indexes reject duplicates, and what Citus or PostgreSQL
#        refuses (a unique index without the distribution column, ON
#        CONFLICT, PRIMARY KEY USING INDEX, a logical-replication shard move
#        without a replica identity) is refused with their errors,
#      - every shard index passes pagebtree_check(index, true),
#   5. adds a third worker, runs the rebalancer and one
#      citus_move_shard_placement (default transfer mode: logical
#      replication, with a unique pagebtree index as replica identity) while
#      pgbench writes through the coordinator, stops the writes and checks
#      the moved shards: pagebtree_check(index, true) on every shard index,
#      the access method on every shard, and the query comparisons again,
#      then once more after further updates, deletes and VACUUM.
# --keep keeps the scratch directory; --pgroot=DIR reuses the server copy
# (DIR = <kept scratch directory>/pgroot) of an earlier run instead of
# building Citus and pagebtree again (for working on the test itself).
# --bench (or --bench-only, which skips steps 4-5) then runs the pgbench
# comparison of the same distributed schema with pagebtree and with btree
# indexes (see bench/citus.sh) and writes a Markdown report to FILE
# (default: bench/results/citus-pgbench.md).
#
# Environment: CITUS_TARBALL, CITUS_BASE_PORT (first port tried, default
# 5601), PBT_TEST_USER (default postgres), PBT_SKIP_DEPS=1 (no apt-get),
# CITUS_ROWS (rows of the test table, default 100000), and for the bench
# CITUS_BENCH_RUNS (per index kind, default 3), CITUS_BENCH_SECONDS
# (default 30), CITUS_BENCH_CLIENTS (default 4), CITUS_BENCH_ROWS (default
# 200000).
#
# Exit status: 0 if every check passed (or the Citus source is absent),
# non-zero otherwise.

set -euo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG_MAJOR=15
SYS_BINDIR=/usr/lib/postgresql/$PG_MAJOR/bin
SYS_PG_CONFIG=$SYS_BINDIR/pg_config
TARBALL=${CITUS_TARBALL:-$SRCDIR/../shared/vendor/citus-13.2.2.tar.gz}
BASE_PORT=${CITUS_BASE_PORT:-5601}
TEST_USER=${PBT_TEST_USER:-postgres}
SKIP_DEPS=${PBT_SKIP_DEPS:-0}
ROWS=${CITUS_ROWS:-100000}
BENCH_RUNS=${CITUS_BENCH_RUNS:-3}
BENCH_SECONDS=${CITUS_BENCH_SECONDS:-30}
BENCH_CLIENTS=${CITUS_BENCH_CLIENTS:-4}
BENCH_ROWS=${CITUS_BENCH_ROWS:-200000}
KEEP=0
REUSE_ROOT=
CHECKS=1
BENCH=0
BENCH_OUT=$SRCDIR/bench/results/citus-pgbench.md
BENCH_COMMAND=${CITUS_BENCH_COMMAND:-"bash test/citus/run.sh $*"}

for arg in "$@"; do
	case $arg in
		--keep) KEEP=1 ;;
		--pgroot=*) REUSE_ROOT=${arg#*=} ;;
		--bench) BENCH=1 ;;
		--bench=*) BENCH=1; BENCH_OUT=${arg#*=} ;;
		--bench-only) BENCH=1; CHECKS=0 ;;
		--bench-only=*) BENCH=1; CHECKS=0; BENCH_OUT=${arg#*=} ;;
		-h|--help) sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) echo "run.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
	esac
done
case $BENCH_OUT in /*) ;; *) BENCH_OUT=$PWD/$BENCH_OUT ;; esac

START_TIME=$(date +%s)
log() { printf '\n=== [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf '\nrun.sh: ERROR: %s\n' "$*" >&2; exit 1; }

if [ ! -f "$TARBALL" ]; then
	echo "skipped: the Citus source $TARBALL is absent (set CITUS_TARBALL to a citus-13.x .tar.gz)"
	exit 0
fi

IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

# ---------------------------------------------------------------------------
# 1. Packages
# ---------------------------------------------------------------------------
# Citus links lz4, zstd and curl; Debian's server headers include the GSSAPI
# headers (libpq-be.h), hence libkrb5-dev.
PACKAGES="postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR postgresql-client-$PG_MAJOR
          make gcc libc6-dev tar gzip liblz4-dev libzstd-dev libcurl4-openssl-dev libkrb5-dev"
if [ "$SKIP_DEPS" != 1 ] && command -v dpkg-query >/dev/null; then
	MISSING=
	for p in $PACKAGES; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] || MISSING="$MISSING $p"
	done
	if [ -n "$MISSING" ]; then
		log "installing:$MISSING"
		[ "$IS_ROOT" = 1 ] || die "packages missing ($MISSING) and not running as root"
		export DEBIAN_FRONTEND=noninteractive
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $MISSING </dev/null >/dev/null \
			|| { apt-get update -qq </dev/null && apt-get install -y -qq --no-install-recommends $MISSING </dev/null >/dev/null; } \
			|| die "apt-get install failed"
	else
		log "all required packages are already installed"
	fi
fi
[ -x "$SYS_PG_CONFIG" ] || die "$SYS_PG_CONFIG not found"

# ---------------------------------------------------------------------------
# 2. Scratch directory, cleanup
# ---------------------------------------------------------------------------
WORK=$(mktemp -d /tmp/pbt-citus.XXXXXX)
chmod 755 "$WORK"
SOCK=$WORK/sock
mkdir -p "$SOCK" "$WORK/log"
NODES=()	# data directories of the clusters started
BG_PIDS=()	# background processes started by this script

as_user() {
	if [ "$IS_ROOT" = 1 ]; then
		runuser -u "$TEST_USER" -- "$@"
	else
		"$@"
	fi
}

PASSES=0
FAILS=()
ok() { PASSES=$((PASSES + 1)); echo "  ok   - $1"; }
not_ok() { FAILS+=("$1"); echo "  FAIL - $1"; [ $# -lt 2 ] || printf '%s\n' "$2" | sed 's/^/         /' | head -n 40; }

summary() {
	local rc=$1 elapsed=$(( $(date +%s) - START_TIME ))
	echo
	echo "=================================================================="
	if [ "$rc" = 0 ] && [ ${#FAILS[@]} = 0 ]; then
		echo "Citus test: PASS ($PASSES checks passed, $((elapsed / 60))m$((elapsed % 60))s)"
	else
		echo "Citus test: FAIL ($PASSES passed, ${#FAILS[@]} failed$([ "$rc" = 0 ] || echo ", aborted with status $rc"), $((elapsed / 60))m$((elapsed % 60))s)"
		for f in "${FAILS[@]}"; do echo "  failed: $f"; done
	fi
	echo "=================================================================="
}

cleanup() {
	local rc=$?
	trap - EXIT
	set +e
	for pid in "${BG_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
	# stop only the clusters this script started, by their data directory
	for d in "${NODES[@]}"; do
		as_user "$SYS_BINDIR/pg_ctl" -D "$d" -m immediate stop >/dev/null 2>&1
	done
	if [ "$rc" != 0 ] || [ ${#FAILS[@]} != 0 ]; then
		for f in "$WORK"/log/coordinator.log "$WORK"/log/worker*.log "$WORK"/log/pgbench-*.log; do
			[ -f "$f" ] || continue
			echo "--- last lines of $f"
			tail -n 15 "$f"
		done
	fi
	if [ "$KEEP" = 1 ]; then
		echo "kept $WORK"
	else
		rm -rf "$WORK"
	fi
	summary "$rc"
	if [ "$rc" = 0 ] && [ ${#FAILS[@]} != 0 ]; then rc=1; fi
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM

# ---------------------------------------------------------------------------
# 3. Build Citus and pagebtree; install both into a private server copy
# ---------------------------------------------------------------------------
# PostgreSQL finds its lib and share directories relative to its binary, so
# a copy of Debian's server directories loads what DESTDIR installed there.
PRIVROOT=$WORK/pgroot
PGBIN=$PRIVROOT/usr/lib/postgresql/$PG_MAJOR/bin
if [ -n "$REUSE_ROOT" ]; then
	log "reusing the server copy $REUSE_ROOT (no builds)"
	cp -a "$REUSE_ROOT" "$PRIVROOT" || die "copying $REUSE_ROOT failed"
else
	log "copying the server into $PRIVROOT"
	mkdir -p "$PRIVROOT/usr/lib/postgresql" "$PRIVROOT/usr/share/postgresql"
	cp -a "/usr/lib/postgresql/$PG_MAJOR" "$PRIVROOT/usr/lib/postgresql/"
	cp -a "/usr/share/postgresql/$PG_MAJOR" "$PRIVROOT/usr/share/postgresql/"

	BUILD_START=$(date +%s)
	log "building Citus from $TARBALL"
	mkdir -p "$WORK/citus"
	tar -C "$WORK/citus" --strip-components=1 -xzf "$TARBALL"
	COMPAT=$WORK/citus/src/include/pg_version_compat.h
	# 15.20's commands/dbcommands.h exports have_createdb_privilege(), which
	# Citus defines as a static function for servers before 16: give Citus's
	# copy another name (a macro placed before its definition renames the
	# definition and every call after it).
	if grep -q '^have_createdb_privilege(void)' "$COMPAT"; then
		perl -0pi -e 's/\nstatic inline bool\nhave_createdb_privilege\(void\)/\n#define have_createdb_privilege citus_have_createdb_privilege\nstatic inline bool\nhave_createdb_privilege(void)/' "$COMPAT"
		grep -q 'define have_createdb_privilege citus_have_createdb_privilege' "$COMPAT" \
			|| die "could not rename have_createdb_privilege in $COMPAT"
	fi
	(
		cd "$WORK/citus"
		./configure PG_CONFIG="$SYS_PG_CONFIG" >"$WORK/log/citus-configure.log" 2>&1 \
			|| { tail -n 30 "$WORK/log/citus-configure.log"; exit 1; }
		make -j2 >"$WORK/log/citus-build.log" 2>&1 \
			|| { grep -E 'error|\*\*\*' "$WORK/log/citus-build.log" | head -n 30; exit 1; }
		make install DESTDIR="$PRIVROOT" >"$WORK/log/citus-install.log" 2>&1
	) || die "building Citus failed (logs in $WORK/log; rerun with --keep to keep them)"
	CITUS_BUILD_SECONDS=$(( $(date +%s) - BUILD_START ))
	echo "Citus built and installed in ${CITUS_BUILD_SECONDS}s"

	log "building pagebtree from $SRCDIR"
	mkdir -p "$WORK/pagebtree"
	tar -C "$SRCDIR" -cf - --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
		--exclude=./results --exclude=./tmp_check --exclude=./log . | tar -C "$WORK/pagebtree" -xf -
	(
		cd "$WORK/pagebtree"
		make -j2 PG_CONFIG="$SYS_PG_CONFIG" >"$WORK/log/pagebtree-build.log" 2>&1 \
			|| { tail -n 30 "$WORK/log/pagebtree-build.log"; exit 1; }
		make install PG_CONFIG="$SYS_PG_CONFIG" DESTDIR="$PRIVROOT" >"$WORK/log/pagebtree-install.log" 2>&1
	) || die "building pagebtree failed"
fi
chown -R "$TEST_USER" "$WORK" 2>/dev/null || true

# ---------------------------------------------------------------------------
# 4. Clusters
# ---------------------------------------------------------------------------
port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
# pick_ports VAR...: assign free ports, from BASE_PORT up, to the variables
pick_ports() {
	local p=$BASE_PORT v
	for v in "$@"; do
		while port_in_use "$p" || [ -e "$SOCK/.s.PGSQL.$p" ]; do p=$((p + 1)); done
		printf -v "$v" '%s' "$p"
		p=$((p + 1))
	done
}

# start_node NAME PORT: initdb and start a cluster.  The nodes reach each
# other over TCP on localhost (trust, as initdb sets it up for local
# connections), clients of this script through the private socket directory.
start_node() {
	local name=$1 port=$2 d=$WORK/$1
	as_user "$PGBIN/initdb" -D "$d" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
		>"$WORK/log/initdb-$name.log" 2>&1 || die "initdb $name failed"
	cat >>"$d/postgresql.conf" <<-EOF
		port = $port
		listen_addresses = 'localhost'
		unix_socket_directories = '$SOCK'
		shared_preload_libraries = 'citus,pagebtree'
		# shard moves through logical replication (Citus's default transfer mode)
		wal_level = logical
		max_replication_slots = 16
		max_wal_senders = 16
		max_worker_processes = 16
		max_connections = 200
		shared_buffers = 128MB
		# throwaway clusters on a shared machine: no durability
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		log_min_messages = warning
	EOF
	NODES+=("$d")
	as_user "$PGBIN/pg_ctl" -D "$d" -l "$WORK/log/$name.log" -w start >/dev/null \
		|| { tail -n 20 "$WORK/log/$name.log"; die "starting $name failed"; }
	echo "$name: port $port, data $d"
}

# sql PORT SQL...: run SQL on a node, print tuples only (unaligned, '|')
sql() {
	local port=$1; shift
	as_user "$SYS_BINDIR/psql" -X -A -t -q -v ON_ERROR_STOP=1 -h "$SOCK" -p "$port" -d postgres "$@"
}
pick_ports PORT_C PORT_W1 PORT_W2 PORT_W3

log "starting a coordinator and two workers"
start_node coordinator "$PORT_C"
start_node worker1 "$PORT_W1"
start_node worker2 "$PORT_W2"
for p in "$PORT_C" "$PORT_W1" "$PORT_W2"; do
	sql "$p" -c "CREATE EXTENSION citus" || die "CREATE EXTENSION citus failed on port $p"
done
sql "$PORT_C" <<-EOF >/dev/null || die "adding the nodes failed"
	SELECT citus_set_coordinator_host('localhost', $PORT_C);
	SELECT citus_add_node('localhost', $PORT_W1);
	SELECT citus_add_node('localhost', $PORT_W2);
EOF
# Created on the coordinator after the workers were added: Citus creates it
# on the workers too (checked below).
sql "$PORT_C" -c "CREATE EXTENSION pagebtree" || die "CREATE EXTENSION pagebtree failed"
echo "Citus $(sql "$PORT_C" -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'"), pagebtree $(sql "$PORT_C" -c "SELECT extversion FROM pg_extension WHERE extname = 'pagebtree'"), $(sql "$PORT_C" -c "SHOW server_version")"

# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------

# check_extension_on_workers: pagebtree is installed on every active worker
check_extension_on_workers() {
	local out bad
	out=$(sql "$PORT_C" -c "SELECT nodeport || ':' || coalesce(nullif(result, ''), '<none>')
		FROM run_command_on_workers(\$\$SELECT extversion FROM pg_extension WHERE extname = 'pagebtree'\$\$)")
	bad=$(printf '%s\n' "$out" | grep -v ":$PBT_VERSION\$" || true)
	if [ -z "$bad" ] && [ -n "$out" ]; then
		ok "CREATE EXTENSION pagebtree on the coordinator reached every worker ($(echo "$out" | wc -l) workers: $(echo $out))"
	else
		not_ok "pagebtree extension missing on a worker" "$out"
	fi
}

# check_shard_indexes TABLE: every shard of TABLE has the indexes of the
# coordinator's table (name without the shard suffix, access method,
# uniqueness, key and INCLUDE column counts), and the pagebtree ones are
# pagebtree indexes
check_shard_indexes() {
	local table=$1 want out bad nshards
	want=$(sql "$PORT_C" -c "SELECT string_agg(c.relname || ':' || a.amname || ':' || i.indisunique || ':' || i.indnkeyatts || '/' || i.indnatts, ',' ORDER BY c.relname)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
		WHERE i.indrelid = '$table'::regclass")
	out=$(sql "$PORT_C" -c "SELECT shardid || ' ' || success || ' ' || result FROM run_command_on_shards('$table', \$\$
		SELECT string_agg(regexp_replace(c.relname, '_[0-9]+\$', '') || ':' || a.amname || ':' || i.indisunique || ':' || i.indnkeyatts || '/' || i.indnatts, ',' ORDER BY c.relname)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
		WHERE i.indrelid = '%s'::regclass AND i.indisvalid AND i.indisready\$\$)")
	nshards=$(sql "$PORT_C" -c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = '$table'::regclass")
	bad=$(printf '%s\n' "$out" | grep -vF " true $want" || true)
	if [ -z "$bad" ] && [ "$(printf '%s\n' "$out" | wc -l)" = "$nshards" ] && [[ $want == *pagebtree* ]]; then
		ok "$table: all $nshards shards have the coordinator's indexes, valid, same access method ($want)"
	else
		not_ok "$table: shard indexes differ from the coordinator's ($want)" "$bad"
	fi
}

# Queries: name|SQL|index names (regex) that the workers' plans must use.
# Every query orders its result completely, so that two plans must give the
# same text.
QUERIES=(
	"point on the distribution column|SELECT id, cat, ts, val, amount FROM items WHERE id = 4242|items_id_pbt"
	"point on a secondary column|SELECT id, cat, ts FROM items WHERE cat = 123 ORDER BY id|items_cat_pbt|items_cat_id_pbt|items_cat_ts_pbt"
	"IN list on the distribution column|SELECT id, ts FROM items WHERE id IN (17, 4711, 31337, 65000, 99999) ORDER BY id|items_id_pbt"
	"range on the distribution column|SELECT id, ts FROM items WHERE id BETWEEN 5000 AND 5400 ORDER BY id|items_id_pbt|items_cat_id_pbt"
	"range on a secondary column|SELECT id, cat FROM items WHERE cat BETWEEN 100 AND 102 ORDER BY id|items_cat_pbt|items_cat_id_pbt|items_cat_ts_pbt"
	"ordered LIMIT on the INCLUDE index|SELECT id, ts FROM items WHERE cat = 77 ORDER BY ts LIMIT 5|items_cat_ts_pbt"
	"ordered LIMIT, descending, on the distribution column|SELECT id, cat FROM items ORDER BY id DESC LIMIT 10|items_id_pbt"
	"index-only: key and INCLUDE columns|SELECT cat, ts, val FROM items WHERE cat = 500 AND ts < 500000 ORDER BY ts|items_cat_ts_pbt"
	"join on the distribution column, secondary filter|SELECT i.id, e.seq, e.kind FROM items i JOIN events e ON e.item_id = i.id WHERE i.cat = 321 ORDER BY 1, 2|items_cat_pbt|items_cat_id_pbt|items_cat_ts_pbt|events_pk_pbt"
	"join with a range, aggregated|SELECT count(*), sum(e.seq), sum(i.ts) FROM items i JOIN events e ON e.item_id = i.id WHERE i.id BETWEEN 1000 AND 1300 AND e.kind = 7|items_id_pbt|items_cat_id_pbt|events_pk_pbt|events_kind_pbt"
)

# (one statement per -c: SET LOCAL in a multi-statement string makes Citus
# open the workers' transactions twice, with a warning)
SEQ_SETTINGS=(-c "SET citus.propagate_set_commands = 'local'" -c "BEGIN"
	-c "SET LOCAL enable_indexscan = off" -c "SET LOCAL enable_indexonlyscan = off"
	-c "SET LOCAL enable_bitmapscan = off")

# check_queries LABEL: each query through the coordinator, with the
# workers' default plans and with index scans switched off on the workers:
# the results must be equal and non-empty, the first plan must use a
# pagebtree index in every task, the second none.
check_queries() {
	local label=$1 entry name query idx plan tasks used seqplan a b
	for entry in "${QUERIES[@]}"; do
		name=${entry%%|*}
		query=${entry#*|}; query=${query%%|*}
		idx=${entry#*|*|}
		plan=$(sql "$PORT_C" -c "SET citus.explain_all_tasks = on" -c "EXPLAIN (COSTS OFF) $query")
		tasks=$(printf '%s\n' "$plan" | sed -n 's/.*Task Count: \([0-9]*\).*/\1/p' | head -n 1)
		# the tasks that scan an index: each task's plan is introduced by
		# "Node: host=..."; count the tasks whose plan names a pagebtree index
		used=$(printf '%s\n' "$plan" | awk -v re="(Index Scan|Index Only Scan|Index Scan Backward) using ($idx)_[0-9]+|Bitmap Index Scan on ($idx)_[0-9]+" '
			/Node: host=/ { if (intask && hit) n++; intask = 1; hit = 0 }
			$0 ~ re { hit = 1 }
			END { if (intask && hit) n++; print n + 0 }')
		if [ -n "$tasks" ] && [ "$tasks" -gt 0 ] && [ "$used" = "$tasks" ] && ! printf '%s\n' "$plan" | grep -q 'Seq Scan'; then
			ok "$label: $name: pagebtree index used in all $tasks task(s)"
		else
			not_ok "$label: $name: plan does not use a pagebtree index in every task ($used of ${tasks:-?} tasks)" "$plan"
		fi
		seqplan=$(sql "$PORT_C" "${SEQ_SETTINGS[@]}" -c "SET LOCAL citus.explain_all_tasks = on" -c "EXPLAIN (COSTS OFF) $query" -c "COMMIT")
		if printf '%s\n' "$seqplan" | grep -q 'Seq Scan' && ! printf '%s\n' "$seqplan" | grep -q 'Index'; then
			:
		else
			not_ok "$label: $name: index scans could not be switched off on the workers" "$seqplan"
			continue
		fi
		a=$(sql "$PORT_C" -c "$query")
		b=$(sql "$PORT_C" "${SEQ_SETTINGS[@]}" -c "$query" -c "COMMIT")
		if [ -n "$a" ] && [ "$a" = "$b" ]; then
			ok "$label: $name: $(printf '%s\n' "$a" | wc -l) row(s), equal to the sequential scan's"
		else
			not_ok "$label: $name: results differ from the sequential scan's ($(printf '%s\n' "$a" | wc -l) vs $(printf '%s\n' "$b" | wc -l) rows)" "$(diff <(echo "$a") <(echo "$b") | head -n 20)"
		fi
	done
}

# check_pagebtree_indexes LABEL [SHARDIDS]: pagebtree_check(index, true) on
# every pagebtree index on every active worker (shards and the shell tables
# of the synced metadata; Citus hides shards from pg_class unless
# citus.override_table_visibility is off); the number of shard indexes
# checked must be what the placements and the coordinator's index count
# say, and with SHARDIDS (space-separated) the indexes of those shards must
# be among them
check_pagebtree_indexes() {
	local label=$1 shards=${2:-} port want out nshard nmoved=0 id
	for port in $(sql "$PORT_C" -c "SELECT nodeport FROM pg_dist_node WHERE noderole = 'primary' AND isactive AND groupid <> 0 ORDER BY nodeport"); do
		want=$(sql "$PORT_C" -c "SELECT coalesce(sum(n), 0) FROM pg_dist_placement p JOIN pg_dist_shard s USING (shardid)
			JOIN pg_dist_node d USING (groupid)
			JOIN (SELECT i.indrelid, count(*) AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			      JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'pagebtree' GROUP BY 1) x ON x.indrelid = s.logicalrelid
			WHERE d.nodeport = $port")
		if out=$(sql "$port" -c "SET citus.override_table_visibility = off" -c "SELECT c.relname
				FROM pg_class c JOIN pg_am a ON a.oid = c.relam, LATERAL (SELECT pagebtree_check(c.oid, true)) x
				WHERE a.amname = 'pagebtree' AND c.relkind = 'i' ORDER BY 1" 2>&1); then
			nshard=$(printf '%s\n' "$out" | grep -cE '_[0-9]+$' || true)
			for id in $shards; do
				nmoved=$((nmoved + $(printf '%s\n' "$out" | grep -cE "_${id}\$" || true)))
			done
			if [ "$nshard" = "$want" ] && [ "$nshard" -gt 0 ]; then
				ok "$label: worker port $port: pagebtree_check(index, true) passed on its $nshard pagebtree shard indexes (and $(( $(printf '%s\n' "$out" | wc -l) - nshard )) of shell tables)"
			else
				not_ok "$label: worker port $port: $nshard pagebtree shard indexes checked, $want expected from the placements"
			fi
		else
			not_ok "$label: worker port $port: pagebtree_check failed" "$out"
		fi
	done
	if [ -n "$shards" ]; then
		want=$(sql "$PORT_C" -c "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
			JOIN pg_dist_shard s ON s.logicalrelid = i.indrelid
			WHERE a.amname = 'pagebtree' AND s.shardid IN ($(echo $shards | tr ' ' ','))")
		if [ "$nmoved" = "$want" ] && [ "$want" -gt 0 ]; then
			ok "$label: the $nmoved pagebtree indexes of the $(echo $shards | wc -w) moved shards are among those checked"
		else
			not_ok "$label: $nmoved indexes of moved shards checked, $want expected"
		fi
	fi
}

# expect_error LABEL PATTERN SQL: SQL on the coordinator must fail with an
# error matching PATTERN
expect_error() {
	local label=$1 pattern=$2 query=$3 out
	if out=$(sql "$PORT_C" -c "$query" 2>&1); then
		not_ok "$label: accepted, expected an error matching '$pattern'" "$out"
	elif printf '%s\n' "$out" | grep -qE "$pattern"; then
		ok "$label: refused ($(printf '%s\n' "$out" | grep -m1 ERROR | sed 's/^.*ERROR: *//'))"
	else
		not_ok "$label: failed with another error than '$pattern'" "$out"
	fi
}

PBT_VERSION=$(sql "$PORT_C" -c "SELECT extversion FROM pg_extension WHERE extname = 'pagebtree'")

if [ "$CHECKS" = 1 ]; then
	log "checks: extension, distributed tables, indexes"
	check_extension_on_workers

	sql "$PORT_C" <<-EOF >/dev/null || die "creating the distributed tables failed"
		SET citus.shard_count = 8;
		CREATE TABLE items (id bigint NOT NULL, cat int NOT NULL, ts bigint NOT NULL, val text, amount numeric);
		SELECT create_distributed_table('items', 'id');
		CREATE TABLE events (item_id bigint NOT NULL, seq int NOT NULL, kind int NOT NULL, note text);
		SELECT create_distributed_table('events', 'item_id', colocate_with => 'items');
		-- unique: Citus takes it when the distribution column is a key column
		CREATE UNIQUE INDEX items_id_pbt ON items USING pagebtree (id);
		CREATE UNIQUE INDEX items_cat_id_pbt ON items USING pagebtree (cat, id);
		CREATE INDEX items_cat_pbt ON items USING pagebtree (cat);
		CREATE INDEX items_cat_ts_pbt ON items USING pagebtree (cat, ts) INCLUDE (val);
		CREATE UNIQUE INDEX events_pk_pbt ON events USING pagebtree (item_id, seq);
		CREATE INDEX events_kind_pbt ON events USING pagebtree (kind);
		-- ts: a permutation of 1..$ROWS (7919 and 1000003 are prime), so that
		-- ORDER BY ts has no ties
		INSERT INTO items SELECT i, i % 997, (i::bigint * 7919) % 1000003, md5(i::text), (i % 1000) / 10.0
			FROM generate_series(1, $ROWS) i;
		INSERT INTO events SELECT i % $ROWS + 1, i / $ROWS, i % 50, 'n' || i FROM generate_series(0, 3 * $ROWS - 1) i;
		VACUUM ANALYZE items;
		VACUUM ANALYZE events;
	EOF
	echo "items: $(sql "$PORT_C" -c "SELECT count(*) FROM items") rows, events: $(sql "$PORT_C" -c "SELECT count(*) FROM events") rows, $(sql "$PORT_C" -c "SELECT count(*) FROM pg_dist_shard") shards"
	check_shard_indexes items
	check_shard_indexes events

	log "checks: what Citus takes and refuses for unique pagebtree indexes"
	expect_error "duplicate of a unique pagebtree index (distribution column)" \
		'duplicate key value violates unique constraint "items_id_pbt_[0-9]+"' \
		"INSERT INTO items VALUES (4242, 1, 2000000, 'dup', 0)"
	expect_error "duplicate of a unique multi-column pagebtree index (events)" \
		'duplicate key value violates unique constraint "events_pk_pbt_[0-9]+"' \
		"INSERT INTO events VALUES (4242, 0, 1, 'dup')"
	expect_error "unique pagebtree index without the distribution column" \
		'creating unique indexes on non-partition columns is currently unsupported' \
		"CREATE UNIQUE INDEX items_ts_u ON items USING pagebtree (ts)"
	expect_error "unique pagebtree index with the distribution column only in INCLUDE" \
		'creating unique indexes on non-partition columns is currently unsupported' \
		"CREATE UNIQUE INDEX items_ts_u ON items USING pagebtree (ts) INCLUDE (id)"
	# PostgreSQL 15 and 16 take only btree unique indexes as ON CONFLICT
	# arbiters (README, "Keys and what differs from btree"); through Citus the
	# worker's error comes back
	expect_error "INSERT ... ON CONFLICT DO NOTHING on a unique pagebtree index (PostgreSQL 15)" \
		'unexpected non-btree speculative unique index' \
		"INSERT INTO items VALUES (4242, 1, 2000000, 'dup', 0) ON CONFLICT DO NOTHING"
	expect_error "PRIMARY KEY USING INDEX on a unique pagebtree index" \
		'is not a btree' \
		"ALTER TABLE items ADD CONSTRAINT items_pk PRIMARY KEY USING INDEX items_id_pbt"
	# the distribution column added by create_distributed_table to a table
	# that already has a unique pagebtree index without it
	expect_error "create_distributed_table on a table with a unique pagebtree index without the distribution column" \
		'cannot create constraint|unique|distribution column' \
		"CREATE TABLE pre (id bigint NOT NULL, k int NOT NULL); CREATE UNIQUE INDEX pre_k ON pre USING pagebtree (k); SELECT create_distributed_table('pre', 'id')"
	sql "$PORT_C" -c "DROP TABLE IF EXISTS pre" >/dev/null
	if out=$(sql "$PORT_C" -c "CREATE TABLE pre (id bigint NOT NULL, k int NOT NULL)" -c "CREATE UNIQUE INDEX pre_idk ON pre USING pagebtree (k, id)" \
			-c "INSERT INTO pre SELECT i, i FROM generate_series(1, 1000) i" -c "SELECT create_distributed_table('pre', 'id', shard_count => 8)" 2>&1); then
		ok "create_distributed_table on a table with a unique pagebtree index that contains the distribution column"
	else
		not_ok "create_distributed_table refused a table with a unique pagebtree index on (k, id)" "$out"
	fi
	check_shard_indexes pre
	# Citus moves shards by logical replication by default, which needs a
	# replica identity on every table of the colocation group
	expect_error "shard move (default mode) of a table without a replica identity" \
		"cannot use logical replication to transfer shards of the relation [a-z]+ since it doesn't have a REPLICA IDENTITY" \
		"SELECT citus_move_shard_placement(min(shardid), 'localhost', $PORT_W1, 'localhost', $PORT_W2)
		 FROM pg_dist_placement JOIN pg_dist_node USING (groupid) JOIN pg_dist_shard USING (shardid)
		 WHERE nodeport = $PORT_W1 AND logicalrelid = 'pre'::regclass"
	# replica identity for the shard moves through logical replication
	if out=$(sql "$PORT_C" -c "ALTER TABLE items REPLICA IDENTITY USING INDEX items_id_pbt" \
			-c "ALTER TABLE events REPLICA IDENTITY USING INDEX events_pk_pbt" \
			-c "ALTER TABLE pre REPLICA IDENTITY USING INDEX pre_idk" 2>&1); then
		got=$(sql "$PORT_C" -c "SELECT string_agg(DISTINCT result, ',') FROM run_command_on_shards('items', \$\$SELECT regexp_replace(i.indexrelid::regclass::text, '_[0-9]+\$', '') FROM pg_index i WHERE i.indrelid = '%s'::regclass AND i.indisreplident\$\$)")
		if [ "$got" = items_id_pbt ]; then
			ok "REPLICA IDENTITY USING INDEX on a unique pagebtree index: taken, and on every shard"
		else
			not_ok "REPLICA IDENTITY USING INDEX did not reach every shard ($got)"
		fi
	else
		not_ok "REPLICA IDENTITY USING INDEX on a unique pagebtree index refused" "$out"
	fi

	log "checks: plans and results before the shard moves"
	check_queries "before moves"
	check_pagebtree_indexes "before moves"

	# -----------------------------------------------------------------------
	# 5. Shard moves under a write load
	# -----------------------------------------------------------------------
	log "adding a third worker; rebalancing and moving a shard while pgbench writes"
	start_node worker3 "$PORT_W3"
	sql "$PORT_W3" -c "CREATE EXTENSION citus" || die "CREATE EXTENSION citus failed on worker3"
	sql "$PORT_C" -c "SELECT citus_add_node('localhost', $PORT_W3)" >/dev/null || die "adding worker3 failed"
	check_extension_on_workers
	BEFORE=$(sql "$PORT_C" -c "SELECT shardid || ':' || nodeport FROM pg_dist_placement JOIN pg_dist_node USING (groupid) ORDER BY 1")

	# writes through the coordinator during the moves: updates and inserts
	# that the logical replication of the moves must carry over, finding the
	# rows through the unique pagebtree replica identity index
	cat >"$WORK/writes.sql" <<-EOF
		\set id random(1, $ROWS)
		\set cat random(0, 996)
		\set seq random(1000, 2000000000)
		UPDATE items SET amount = amount + 1, ts = ts + 1000003 WHERE id = :id;
		UPDATE items SET val = val || '+' WHERE cat = :cat AND id = :id;
		INSERT INTO events VALUES (:id, :seq, :cat % 50, 'w');
	EOF
	chown "$TEST_USER" "$WORK/writes.sql"
	# (started directly, as user postgres through -U and trust, so that $! is
	# pgbench itself: a kill of runuser would not reach it)
	"$SYS_BINDIR/pgbench" -n -h "$SOCK" -p "$PORT_C" -U postgres -c 2 -T 300 -f "$WORK/writes.sql" postgres \
		>"$WORK/log/pgbench-writes.log" 2>&1 &
	WRITER=$!
	BG_PIDS+=("$WRITER")
	sleep 3
	if out=$(sql "$PORT_C" -c "SELECT rebalance_table_shards()" 2>&1); then
		ok "rebalance_table_shards() (transfer mode auto: logical replication) completed"
	else
		not_ok "rebalance_table_shards() failed" "$out"
	fi
	# one more move, by hand, between the two first workers
	SHARD=$(sql "$PORT_C" -c "SELECT shardid FROM pg_dist_placement JOIN pg_dist_node USING (groupid) JOIN pg_dist_shard USING (shardid)
		WHERE nodeport = $PORT_W1 AND logicalrelid = 'items'::regclass ORDER BY shardid LIMIT 1")
	if [ -n "$SHARD" ] && out=$(sql "$PORT_C" -c "SELECT citus_move_shard_placement($SHARD, 'localhost', $PORT_W1, 'localhost', $PORT_W2)" 2>&1); then
		ok "citus_move_shard_placement($SHARD, worker1 -> worker2) completed"
	else
		not_ok "citus_move_shard_placement of shard '${SHARD}' failed" "$out"
	fi
	sleep 2
	# stop the writes before checking, so that the rows counted below are
	# final (pagebtree_check itself runs beside writers since 5d32fb6)
	kill "$WRITER" 2>/dev/null || true
	wait "$WRITER" 2>/dev/null || true
	if kill -0 "$WRITER" 2>/dev/null; then die "pgbench ($WRITER) did not stop"; fi
	echo "pgbench inserts into events during the moves: $(sql "$PORT_C" -c "SELECT count(*) FROM events WHERE note = 'w'") rows"
	sql "$PORT_C" -c "SET client_min_messages = warning" -c "CALL citus_cleanup_orphaned_resources()" >/dev/null || true
	AFTER=$(sql "$PORT_C" -c "SELECT shardid || ':' || nodeport FROM pg_dist_placement JOIN pg_dist_node USING (groupid) ORDER BY 1")
	MOVED=$(comm -13 <(echo "$BEFORE") <(echo "$AFTER") | wc -l)
	MOVED_SHARDS=$(comm -13 <(echo "$BEFORE") <(echo "$AFTER") | cut -d: -f1 | tr '\n' ' ')
	ON_W3=$(printf '%s\n' "$AFTER" | grep -c ":$PORT_W3\$" || true)
	if [ "$MOVED" -gt 0 ] && [ "$ON_W3" -gt 0 ]; then
		ok "$MOVED shard placements moved ($ON_W3 now on worker3)"
	else
		not_ok "no shard placement moved (moved $MOVED, on worker3 $ON_W3)"
	fi
	if [ "$(sql "$PORT_C" -c "SELECT count(*) FROM events WHERE note = 'w'")" -gt 0 ]; then
		ok "writes during the moves reached the tables"
	else
		not_ok "no write of the pgbench load during the moves is in the table" "$(tail -n 20 "$WORK/log/pgbench-writes.log")"
	fi

	log "checks after the moves"
	check_shard_indexes items
	check_shard_indexes events
	check_shard_indexes pre
	check_pagebtree_indexes "after moves" "$MOVED_SHARDS"
	# ANALYZE after the moves, as after any bulk load: without it one run
	# planned a hash join over a sequential scan of a moved events shard
	sql "$PORT_C" -c "ANALYZE items" -c "ANALYZE events" >/dev/null
	check_queries "after moves"
	# the unique indexes still enforce uniqueness on the moved shards
	expect_error "after moves: duplicate of a unique pagebtree index" \
		'duplicate key value violates unique constraint "items_id_pbt_[0-9]+"' \
		"INSERT INTO items SELECT id, 1, 2000000, 'dup', 0 FROM items WHERE id = 4242"
	# moved shards after more writes
	sql "$PORT_C" -c "UPDATE items SET cat = (cat + 1) % 997 WHERE id % 10 = 3" \
		-c "DELETE FROM events WHERE seq = 1 AND item_id % 7 = 0" -c "VACUUM items" -c "VACUUM events" >/dev/null \
		|| not_ok "writes after the moves failed"
	check_pagebtree_indexes "after moves and writes" "$MOVED_SHARDS"
	check_queries "after moves and writes"
fi

# ---------------------------------------------------------------------------
# 6. pgbench: pagebtree against btree on the same distributed schema
# ---------------------------------------------------------------------------
if [ "$BENCH" = 1 ]; then
	# shellcheck source=test/citus/bench.sh
	. "$SRCDIR/test/citus/bench.sh"
	run_bench
fi

[ ${#FAILS[@]} = 0 ]
