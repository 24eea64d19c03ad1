#!/bin/bash
# Run the regression and isolation suites against a pagebtree built with
# AddressSanitizer and the invariant checks (PBT_CHECKS), in a private
# throw-away cluster whose server preloads the ASan runtime.
#
#   bash test/asan.sh            (as root on Debian 12; installs gcc's libasan)
#
# Debian's server is not instrumented, so ASan sees pagebtree's own stack,
# global and out-of-bounds accesses; palloc'd chunks inside PostgreSQL's
# memory contexts are not tracked individually.  Any ASan report in the
# server log fails the run.  The instrumented library is installed in
# place of the normal one, so the script reinstalls a normal build at the
# end.
set -uo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=/usr/lib/postgresql/15/bin
LIBASAN=$(gcc -print-file-name=libasan.so)
WORK=$(mktemp -d /tmp/pagebtree-asan.XXXXXX)
PORT=${PBT_ASAN_PORT:-54329}

cleanup() {
	su postgres -c "$BIN/pg_ctl -D $WORK/data -m immediate stop" >/dev/null 2>&1
	(cd "$SRCDIR" && make -s clean && make -s && make -s install) >/dev/null 2>&1
}
trap cleanup EXIT

cp -r "$SRCDIR" "$WORK/src" && chown -R postgres "$WORK"
cd "$WORK/src" || exit 1
make -s clean
make -s PBT_CHECKS=1 PG_CFLAGS="-fsanitize=address -fno-omit-frame-pointer -Wall" \
	SHLIB_LINK="-fsanitize=address" >/dev/null || exit 1
make -s install >/dev/null || exit 1

su postgres -c "$BIN/initdb -D $WORK/data -A trust --locale=C.UTF-8 >/dev/null" || exit 1
cat >> "$WORK/data/postgresql.conf" <<CONF
port = $PORT
unix_socket_directories = '$WORK'
listen_addresses = ''
shared_preload_libraries = 'pagebtree'
CONF
su postgres -c "LD_PRELOAD=$LIBASAN ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:log_path=$WORK/asan \
	$BIN/pg_ctl -D $WORK/data -l $WORK/server.log -w start" || exit 1

su postgres -c "cd $WORK/src && PGHOST=$WORK PGPORT=$PORT make installcheck TAP_TESTS= PROVE_TESTS=" 2>&1 |
	grep -E "tests? (passed|failed)|FAILED|ok "
status=${PIPESTATUS[0]}

if ls "$WORK"/asan* >/dev/null 2>&1 || grep -q "AddressSanitizer" "$WORK/server.log"; then
	echo "AddressSanitizer reported errors:"
	cat "$WORK"/asan* 2>/dev/null | head -60
	exit 1
fi
echo "AddressSanitizer: no reports (server log $WORK/server.log)"
exit $status
