#!/bin/bash
# The Debian package on a machine without build tools (issue #26 item 4).
#
#   bash test/debian/install-check.sh        (as root, on Debian 12; needs the apt mirror)
#
# Builds postgresql-15-pagebtree from a copy of this tree with
# dpkg-buildpackage (which also runs its installcheck), makes a minimal
# Debian 12 system with debootstrap, installs Debian's postgresql-15 there
# from apt (no compiler, no make, no server headers), installs the package
# with dpkg -i, and checks in a throwaway cluster of that system that the
# extension works: CREATE EXTENSION, indexes built with the library
# preloaded and not, index scans equal to a sequential scan (EXPLAIN shows
# the index), pagebtree_check; then that dpkg -r removes the package's
# files.  Everything lives in a scratch directory removed at the end.  Not
# part of test/run-all.sh: it downloads about 150 MB and takes minutes.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "run as root (debootstrap, chroot)" >&2; exit 2; }
MIRROR=${PBT_DEB_MIRROR:-$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

W=$(mktemp -d /tmp/pbt-deb.XXXXXX)
ROOT=$W/root
cleanup() {
	mountpoint -q "$ROOT/proc" && umount "$ROOT/proc"
	rm -rf "$W"
}
trap cleanup EXIT
log() { echo "=== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

need=()
for p in debootstrap debhelper postgresql-server-dev-all fakeroot; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	apt-get install -y "${need[@]}" >"$W/apt.log" 2>&1 || { tail -20 "$W/apt.log"; fail "apt-get install"; }
fi

log "building the package (dpkg-buildpackage; runs its installcheck)"
mkdir "$W/src"
(cd "$HERE" && git ls-files -z | xargs -0 cp --parents -t "$W/src")
(cd "$W/src" && dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1 ||
	{ tail -30 "$W/build.log"; fail "dpkg-buildpackage"; }
DEB=$(ls "$W"/postgresql-15-pagebtree_*_amd64.deb)
log "built $(basename "$DEB")"

log "a minimal Debian 12 system ($MIRROR)"
debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$W/debootstrap.log" 2>&1 ||
	{ tail -20 "$W/debootstrap.log"; fail "debootstrap"; }
mount -t proc proc "$ROOT/proc"
# no services started by package scripts, no cluster created at install
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod 755 "$ROOT/usr/sbin/policy-rc.d"
mkdir -p "$ROOT/etc/postgresql-common"
echo 'create_main_cluster = false' >"$ROOT/etc/postgresql-common/createcluster.conf"
cp /etc/apt/sources.list.d/debian.sources "$ROOT/etc/apt/sources.list.d/" 2>/dev/null || true
IN() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
log "apt-get install postgresql-15 in it"
IN apt-get update >"$W/chroot-apt.log" 2>&1 || { tail -20 "$W/chroot-apt.log"; fail "apt-get update"; }
IN apt-get install -y --no-install-recommends postgresql-15 >>"$W/chroot-apt.log" 2>&1 ||
	{ tail -20 "$W/chroot-apt.log"; fail "apt-get install postgresql-15"; }
for tool in gcc cc make; do
	if IN sh -c "command -v $tool" >/dev/null; then fail "the system has $tool"; fi
done
[ ! -e "$ROOT/usr/include/postgresql/15/server" ] || fail "the system has the server headers"
log "no compiler, no make, no server headers there"

log "dpkg -i $(basename "$DEB")"
cp "$DEB" "$ROOT/tmp/"
IN dpkg -i "/tmp/$(basename "$DEB")" >"$W/dpkg.log" 2>&1 || { cat "$W/dpkg.log"; fail "dpkg -i"; }
IN dpkg -s postgresql-15-pagebtree | grep -q '^Status: install ok installed' || fail "not installed"
files=$(IN dpkg -L postgresql-15-pagebtree | grep -E 'pagebtree(\.so|\.control|--.*\.sql)$')
echo "$files"
echo "$files" | grep -q '/usr/lib/postgresql/15/lib/pagebtree.so' || fail "no pagebtree.so"

log "a cluster in that system"
BIN=/usr/lib/postgresql/15/bin
IN su postgres -c "$BIN/initdb -D /tmp/pgdata -A trust" >"$W/initdb.log" 2>&1 || { cat "$W/initdb.log"; fail initdb; }
cat >>"$ROOT/tmp/pgdata/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '/tmp'
port = 5491
shared_preload_libraries = 'pagebtree'
CONF
IN su postgres -c "$BIN/pg_ctl -D /tmp/pgdata -l /tmp/pg.log -w start" >/dev/null || { cat "$ROOT/tmp/pg.log"; fail "server start"; }
stop_server() { IN su postgres -c "$BIN/pg_ctl -D /tmp/pgdata -m fast -w stop" >/dev/null 2>&1 || true; }
trap 'stop_server; cleanup' EXIT
q() { IN su postgres -c "$BIN/psql -X -q -At -v ON_ERROR_STOP=1 -h /tmp -p 5491 -d postgres -c \"$1\""; }

q "CREATE EXTENSION pagebtree" >/dev/null
q "CREATE TABLE t AS SELECT g AS id, md5(g::text) AS s FROM generate_series(1, 100000) g" >/dev/null
q "CREATE INDEX t_id ON t USING pagebtree (id)" >/dev/null
q "CREATE INDEX t_s ON t USING pagebtree (s COLLATE \\\"C\\\")" >/dev/null
q "ANALYZE t" >/dev/null
plan=$(q "SET enable_seqscan = off; EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM t WHERE id BETWEEN 100 AND 50000")
echo "$plan" | grep -q 't_id' || fail "the query does not use t_id: $plan"
idx=$(q "SET enable_seqscan = off; SELECT count(*), sum(id) FROM t WHERE id BETWEEN 100 AND 50000")
seq=$(q "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SELECT count(*), sum(id) FROM t WHERE id BETWEEN 100 AND 50000")
[ "$idx" = "$seq" ] || fail "index scan $idx, sequential scan $seq"
idx=$(q "SET enable_seqscan = off; SELECT s FROM t WHERE s COLLATE \\\"C\\\" > 'f' ORDER BY s COLLATE \\\"C\\\" LIMIT 3")
seq=$(q "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SELECT s FROM t WHERE s COLLATE \\\"C\\\" > 'f' ORDER BY s COLLATE \\\"C\\\" LIMIT 3")
[ "$idx" = "$seq" ] || fail "ordered text query: index $idx, sequential $seq"
q "SELECT pagebtree_check('t_id', true), pagebtree_check('t_s', true)" >/dev/null
log "with the library preloaded: index scans equal sequential scans, pagebtree_check passes"

# and without preloading (generic WAL)
sed -i "s/^shared_preload_libraries = 'pagebtree'/shared_preload_libraries = ''/" "$ROOT/tmp/pgdata/postgresql.conf"
IN su postgres -c "$BIN/pg_ctl -D /tmp/pgdata -l /tmp/pg.log -w restart" >/dev/null || { cat "$ROOT/tmp/pg.log"; fail "server restart"; }
q "INSERT INTO t SELECT g, md5(g::text) FROM generate_series(100001, 120000) g" >/dev/null
idx=$(q "SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*), sum(id) FROM t WHERE id > 90000")
seq=$(q "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SELECT count(*), sum(id) FROM t WHERE id > 90000")
[ "$idx" = "$seq" ] || fail "without preloading: index $idx, sequential $seq"
q "SELECT pagebtree_check('t_id', true)" >/dev/null
log "without preloading: inserts, index scans equal sequential scans, pagebtree_check passes"
stop_server

log "dpkg -r"
IN dpkg -r postgresql-15-pagebtree >>"$W/dpkg.log" 2>&1 || { cat "$W/dpkg.log"; fail "dpkg -r"; }
[ ! -e "$ROOT/usr/lib/postgresql/15/lib/pagebtree.so" ] || fail "pagebtree.so left after dpkg -r"
log "PASS: $(basename "$DEB") installs with dpkg -i on a system without build tools, works, and is removed cleanly"
