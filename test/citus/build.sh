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
# PostgreSQL's libpq-be.h, which Citus includes, includes the Kerberos
# headers where the server was built with GSSAPI (Debian's is).  A host
# without them and without a package source (a GPU host) takes them from
# Debian's krb5-multidev package beside the Citus source
# (`apt-get download krb5-multidev` into $CITUS_SOURCES), unpacked here.
if grep -q '^#define ENABLE_GSS 1' "$("$pg_config" --includedir-server)/pg_config.h" &&
	! echo '#include <gssapi/gssapi.h>' | gcc -E -x c - >/dev/null 2>&1; then
	deb=$(ls "$src"/krb5-multidev_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { echo "no Kerberos headers (gssapi/gssapi.h): install libkrb5-dev, or put Debian's krb5-multidev .deb in $src" >&2; exit 1; }
	dpkg -x "$deb" "$work/krb5"
	export CPATH=$work/krb5/usr/include/mit-krb5${CPATH:+:$CPATH}
	echo "Kerberos headers from $(basename "$deb")"
fi
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
make -j"$(nproc)" >"$work/make.log" 2>&1 || { grep -E ' error:|\*\*\*' "$work/make.log" | head -40; exit 1; }
$sudo make install >"$work/install.log" 2>&1 || { tail -40 "$work/install.log"; exit 1; }
echo "Citus $version installed for PostgreSQL $major"
