#!/usr/bin/env bash
# Builds Citus, the distributed PostgreSQL extension, from its release source
# into the server that PG_CONFIG names (Debian 12's 15 by default): Citus is
# not in Debian.  Citus 13.2.2 for PostgreSQL 15, 14.0.1 for 16 to 18, from
# $CITUS_SOURCES (default ../shared/citus beside the repository, see its
# README).  A Citus of that version already installed there is kept.
#
#   test/citus/build.sh          then test/citus/cluster.sh -- ...
#
# About 2 minutes on 2 cores.  Exits 3 when the source is not there.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
src=${CITUS_SOURCES:-$here/../shared/citus}
pg_config=${PG_CONFIG:-pg_config}
major=$("$pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
case $major in
	15) version=13.2.2 ;;
	16 | 17 | 18) version=14.0.1 ;;
	*) echo "no Citus release here supports PostgreSQL $major" >&2; exit 1 ;;
esac
tarball=$src/citus-$version.tar.gz
[ -f "$tarball" ] || { echo "no Citus source at $tarball (set CITUS_SOURCES)" >&2; exit 3; }
lib=$("$pg_config" --pkglibdir)/citus.so
if [ -e "$lib" ] && grep -aq "Citus $version" "$lib"; then
	echo "Citus $version is installed for PostgreSQL $major"
	exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
need=()
for pkg in gcc make liblz4-dev libzstd-dev libcurl4-openssl-dev libkrb5-dev; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
# without a package source (a GPU host has no network), Citus is built
# without the optional libraries it would link (columnar compression,
# statistics collection)
without=()
if [ ${#need[@]} -gt 0 ]; then
	echo "installing: ${need[*]} ..."
	{ $sudo apt-get update -q && $sudo env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q "${need[@]}"; } >/tmp/citus-apt.log 2>&1 || {
		echo "could not install them (see /tmp/citus-apt.log): building without lz4, zstd, libcurl"
		without=(--without-lz4 --without-zstd --without-libcurl)
	}
fi
work=$(mktemp -d /tmp/citus-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Headers that Citus includes, directly or through PostgreSQL's own, where
# the server was built with what they serve: libpq's, the Kerberos ones
# (libpq-be.h, with GSSAPI), OpenSSL's (libpq-be.h, with OpenSSL) and ICU's
# (pg_locale.h, with ICU); Debian's server is built with all three.  A host
# without them and without a package source (a GPU host) takes them from
# Debian's packages beside the Citus source (`apt-get download libpq-dev
# krb5-multidev libssl-dev libicu-dev` into $CITUS_SOURCES), unpacked here.
server_has() {
	grep -q "^#define $1 1" "$("$pg_config" --includedir-server)/pg_config.h"
}
has_header() {
	echo "#include <$1>" | gcc -E -x c -I"$("$pg_config" --includedir)" - >/dev/null 2>&1
}
# headers_from PACKAGE INCLUDE_DIR...: the package's .deb unpacked, the
# INCLUDE_DIRs (inside it) searched
headers_from() {
	local deb pkg=$1 dir
	shift
	deb=$(ls "$src"/"$pkg"_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { echo "missing headers: install $pkg, or put Debian's $pkg .deb in $src" >&2; exit 1; }
	dpkg -x "$deb" "$work/$pkg"
	for dir in "$@"; do
		export CPATH=$work/$pkg/$dir${CPATH:+:$CPATH}
	done
	echo "headers from $(basename "$deb")"
}
if ! has_header libpq-fe.h; then
	headers_from libpq-dev usr/include/postgresql
	# and the library's link-time name, beside the server's libpq.so.5
	if [ ! -e "$("$pg_config" --libdir)/libpq.so" ]; then
		mkdir -p "$work/lib"
		ln -s "$("$pg_config" --libdir)/libpq.so.5" "$work/lib/libpq.so"
		export LIBRARY_PATH=$work/lib${LIBRARY_PATH:+:$LIBRARY_PATH}
	fi
fi
server_has ENABLE_GSS && ! has_header gssapi/gssapi.h && headers_from krb5-multidev usr/include/mit-krb5
server_has USE_OPENSSL && ! has_header openssl/ssl.h && headers_from libssl-dev usr/include usr/include/x86_64-linux-gnu
server_has USE_ICU && ! has_header unicode/ucol.h && headers_from libicu-dev usr/include
tar -xzf "$tarball" -C "$work"
cd "$work/citus-$version"
# Citus 13 carries its own static have_createdb_privilege() for PostgreSQL
# 15, which later 15.x headers declare themselves: its copy is renamed, and
# its calls reach the server's.
if grep -q 'have_createdb_privilege' "$("$pg_config" --includedir-server)/commands/dbcommands.h" &&
	grep -q '^have_createdb_privilege(void)' src/include/pg_version_compat.h; then
	sed -i 's/^have_createdb_privilege(void)/citus_own_have_createdb_privilege(void)/' \
		src/include/pg_version_compat.h
fi
echo "building Citus $version for PostgreSQL $major ..."
./configure PG_CONFIG="$pg_config" "${without[@]}" >"$work/configure.log" 2>&1 || { tail -40 "$work/configure.log"; exit 1; }
# without the server's JIT compiler (clang) the bitcode for inlining is
# left out, as PostgreSQL's own extensions build without it
llvm=()
clang=$(sed -n 's/^CLANG *= *//p' "$("$pg_config" --pgxs | xargs dirname)/../Makefile.global" 2>/dev/null || true)
command -v "${clang:-clang}" >/dev/null 2>&1 || llvm=(with_llvm=no)
make -j"$(nproc)" "${llvm[@]}" >"$work/make.log" 2>&1 || { grep -E ' error:|\*\*\*' "$work/make.log" | head -40; exit 1; }
$sudo make install "${llvm[@]}" >"$work/install.log" 2>&1 || { tail -40 "$work/install.log"; exit 1; }
echo "Citus $version installed for PostgreSQL $major"
