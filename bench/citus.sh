#!/bin/bash
# pgbench through a Citus coordinator: the same distributed schema with
# pagebtree indexes and with btree indexes, alternating runs, medians and
# the ratio pagebtree/btree (issue #26, item 1).
#
#   bash bench/citus.sh [FILE]
#
# Builds Citus and pagebtree and starts the clusters as test/citus/run.sh
# does (as root; Citus source from CITUS_TARBALL or
# ../shared/vendor/citus-13.2.2.tar.gz), skips that script's checks, and
# writes the report to FILE (default bench/results/citus-pgbench.md).
# CITUS_BENCH_RUNS (default 3), CITUS_BENCH_SECONDS (default 30),
# CITUS_BENCH_CLIENTS (default 4) and CITUS_BENCH_ROWS (default 200000)
# change the runs; the pgbench script is in test/citus/bench.sh.
set -euo pipefail
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${1:-$SRCDIR/bench/results/citus-pgbench.md}
# the command as the report quotes it, with the settings given
ENVS=
for v in CITUS_BENCH_RUNS CITUS_BENCH_SECONDS CITUS_BENCH_CLIENTS CITUS_BENCH_ROWS; do
	if [ -n "${!v:-}" ]; then ENVS="$ENVS$v=${!v} "; fi
done
export CITUS_BENCH_COMMAND="${ENVS}bash bench/citus.sh${1:+ $1}"
exec bash "$SRCDIR/test/citus/run.sh" --bench-only="$OUT"
