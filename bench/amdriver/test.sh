#!/usr/bin/env bash
# Run the driver's regression test in a temporary instance (pg_regress
# --temp-instance); the extension must be installed (make install).
# ACCEPT=1 ./test.sh copies the actual output over the expected one.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PG_CONFIG="${PG_CONFIG:-pg_config}"
REGRESS="$(dirname "$("$PG_CONFIG" --pgxs)")/../test/regress/pg_regress"
WORK="$(mktemp -d /tmp/pbt-bench-regress.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
cp -r "$HERE/sql" "$HERE/expected" "$WORK/"
RUN=()
if [ "$(id -u)" = 0 ]; then
    chown -R postgres "$WORK"
    RUN=(runuser -u postgres --)
fi
cd "$WORK"
if ! "${RUN[@]}" "$REGRESS" --temp-instance="$WORK/tmp" --bindir="$("$PG_CONFIG" --bindir)" \
        --inputdir=. --outputdir=. pagebtree_bench; then
    if [ "${ACCEPT:-0}" = 1 ]; then
        cp "$WORK/results/pagebtree_bench.out" "$HERE/expected/pagebtree_bench.out"
        echo "accepted new expected output"
        exit 0
    fi
    cat "$WORK/regression.diffs" 2>/dev/null || true
    exit 1
fi
