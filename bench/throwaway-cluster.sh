# Sourced by bench scripts: starts a throwaway cluster of the server whose
# bin directory is $PG_BIN (default: pg_config --bindir), with pagebtree
# installed there, as the user postgres when run as root, on port $PORT,
# with autovacuum off and the server options in $SERVER_OPTS; PRELOAD=0
# starts it without shared_preload_libraries (generic WAL).  Removes it on
# exit.  Defines DIR (its directory), RUN (the command prefix) and q (psql
# on it, quiet and unaligned, stopping at the first error).
PG_BIN=${PG_BIN:-$(pg_config --bindir)}
PRELOAD=${PRELOAD:-1}
DIR=$(mktemp -d /tmp/pagebtree-bench.XXXXXX)
RUN=()
if [ "$(id -u)" = 0 ]; then
	chown postgres "$DIR"
	RUN=(runuser -u postgres --)
fi
trap '"${RUN[@]}" "$PG_BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
"${RUN[@]}" "$PG_BIN/initdb" -D "$DIR/data" -A trust >/dev/null
"${RUN[@]}" "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -o \
	"-c listen_addresses='' -c unix_socket_directories='$DIR' -c port=$PORT -c autovacuum=off ${SERVER_OPTS:-} $([ "$PRELOAD" = 1 ] && echo "-c shared_preload_libraries=pagebtree")" \
	start >/dev/null
q() { "${RUN[@]}" "$PG_BIN/psql" -h "$DIR" -p "$PORT" -d postgres -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }
