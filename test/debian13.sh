#!/bin/bash
# The test suite on PostgreSQL 17 (test/run-all.sh --pg=17 calls this).
#
# Debian 12 packages only PostgreSQL 15 and the Python package registry
# has no server build of 17, but Debian 13 (trixie) packages 17, and its
# binaries need trixie's C library.  So this script makes a minimal trixie
# root with debootstrap (once; kept in the cache directory), installs
# postgresql-17, its headers and the test dependencies there with apt-get,
# and runs test/run-all.sh inside it against that server (a private copy,
# as for the other versions), with the options given.  The host's /tmp
# is the root's /tmp, so scratch directories and summaries are where the
# caller looks for them.  Needs root (debootstrap, mount, chroot).
#
#   bash test/debian13.sh [run-all.sh options]
#   bash test/debian13.sh --exec SCRIPT [ARGS]   (any script of the tree, run
#        with bash in the root's copy of it, /root/pagebtree; the benchmark
#        on 17 runs so)
#
# Environment: PBT_PG_CACHE (where the root is kept, as for the wheels;
# default /var/cache/pagebtree-pg), PBT_DEBIAN_MIRROR (default
# http://deb.debian.org/debian).
set -uo pipefail
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MIRROR=${PBT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE=${PBT_PG_CACHE:-/var/cache/pagebtree-pg}
ROOT=$CACHE/debian13
PG_CONFIG=/usr/lib/postgresql/17/bin/pg_config
# what run-all.sh needs in the root (libicu-dev: 17's headers include ICU's)
PACKAGES="postgresql-17 postgresql-server-dev-17 libicu-dev make gcc libc6-dev
          perl libipc-run-perl gdb python3 python3-jsonschema procps locales"

die() { printf '\ndebian13.sh: ERROR: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "PostgreSQL 17 runs in a Debian 13 root, which needs root (debootstrap, chroot)"

# the command run in the root: run-all.sh against 17, or --exec's script
CMD=(bash /root/pagebtree/test/run-all.sh --skip-deps --private --pg-config="$PG_CONFIG")
ARGS=()
if [ "${1:-}" = --exec ]; then
	[ -n "${2:-}" ] || die "--exec needs a script of the tree"
	CMD=(bash "/root/pagebtree/$2")
	ARGS=("${@:3}")
else
	for arg in "$@"; do
		case $arg in
			--pg-cache=*) ROOT=${arg#*=}/debian13 ;;
			--pg=*|--pg-config=*|--private|--skip-deps) ;;
			--workdir=/tmp/*) ARGS+=("$arg") ;;
			--workdir=*) die "--workdir must be under /tmp for 17 (the root sees only the host's /tmp)" ;;
			*) ARGS+=("$arg") ;;
		esac
	done
fi

if [ ! -x "$ROOT/$PG_CONFIG" ]; then
	printf '\n=== making a Debian 13 root with PostgreSQL 17 in %s\n' "$ROOT"
	if ! command -v debootstrap >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap \
			</dev/null >/dev/null || die "apt-get install debootstrap failed"
	fi
	rm -rf "$ROOT.new"
	mkdir -p "$CACHE"
	debootstrap --variant=minbase trixie "$ROOT.new" "$MIRROR" >"$CACHE/debian13.log" 2>&1 \
		|| { tail -n 20 "$CACHE/debian13.log"; die "debootstrap of trixie from $MIRROR failed"; }
	echo "deb $MIRROR trixie main" >"$ROOT.new/etc/apt/sources.list"
	cp /etc/resolv.conf "$ROOT.new/etc/" 2>/dev/null
	# (no init system: package scripts must not start the server)
	printf '#!/bin/sh\nexit 101\n' >"$ROOT.new/usr/sbin/policy-rc.d"
	chmod 755 "$ROOT.new/usr/sbin/policy-rc.d"
	# shellcheck disable=SC2086
	unshare --mount --propagation private chroot "$ROOT.new" sh -c "mount -t proc proc /proc &&
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $(echo $PACKAGES)" </dev/null >>"$CACHE/debian13.log" 2>&1 \
		|| { tail -n 20 "$CACHE/debian13.log"; die "installing PostgreSQL 17 in the Debian 13 root failed"; }
	mv "$ROOT.new" "$ROOT" || die "cannot move $ROOT.new to $ROOT"
fi

# en_US.UTF-8, for the tests that need comparator-mode text (run-all.sh
# makes it on the host; a root made before it lacks the locales package)
if ! chroot "$ROOT" locale -a 2>/dev/null | grep -qix 'en_US\.utf-\?8'; then
	unshare --mount --propagation private chroot "$ROOT" sh -c "mount -t proc proc /proc &&
		{ [ -d /usr/share/i18n/locales ] || { apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends locales; }; } &&
		localedef -i en_US -c -f UTF-8 en_US.UTF-8" </dev/null >>"$CACHE/debian13.log" 2>&1 \
		|| { tail -n 20 "$CACHE/debian13.log"; die "generating en_US.UTF-8 in the Debian 13 root failed"; }
fi

# The tree, copied afresh into the root; the command inside, in a mount
# namespace of its own, so that the mounts go with it however it ends.
rm -rf "$ROOT/root/pagebtree"
mkdir -p "$ROOT/root/pagebtree"
tar -C "$SRCDIR" --exclude=.git -cf - . | tar -C "$ROOT/root/pagebtree" -xf - \
	|| die "copying the tree into $ROOT failed"
exec unshare --mount --propagation private sh -c '
	root=$1; shift
	mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
		mount --bind /tmp "$root/tmp" || exit 1
	exec chroot "$root" "$@"' sh "$ROOT" "${CMD[@]}" ${ARGS[@]+"${ARGS[@]}"}
