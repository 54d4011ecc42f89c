#!/usr/bin/env bash
# Builds the PostgreSQL servers mergepath is tested against besides Debian
# 12's own 15: 17 and 18 (or the major versions named), from Debian's source
# packages (postgresql-17 is in Debian 13, postgresql-18 in unstable), into
# $PG_ROOT/<major> (default /opt/mergepath-pg).  The source comes through a
# private source list; the system's apt sources are left alone.  A version
# already built there is kept: run it again and nothing is done.  Where the
# mirror lacks the files of the newest version its lists name, an earlier
# point release is taken from the pool (earlier_release).
#
#   ./install-pg.sh [17] [18]
#   make PG_CONFIG=/opt/mergepath-pg/18/bin/pg_config && sudo make install PG_CONFIG=...
#
# About 5 minutes a version on 2 cores.  Exits non-zero naming the versions
# whose source could not be fetched or that did not build.
set -euo pipefail
root=${PG_ROOT:-/opt/mergepath-pg}
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(17 18)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

need=()
for pkg in gcc make bison flex perl dpkg-dev curl; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "installing: ${need[*]} ..."
	{ $sudo apt-get update -q && $sudo env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q "${need[@]}"; } >/tmp/install-pg-apt.log 2>&1 ||
		{ cat /tmp/install-pg-apt.log; exit 1; }
fi

work=$(mktemp -d /tmp/install-pg.XXXXXX)
trap 'rm -rf "$work"' EXIT
apt=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
	-o APT::Sandbox::User="$(id -un)")
listed=no
list_sources() {
	[ $listed = yes ] && return 0
	mkdir -p "$work/lists/partial" "$work/cache"
	local key=/usr/share/keyrings/debian-archive-keyring.gpg s
	for s in "debian trixie" "debian trixie-updates" "debian-security trixie-security" \
		"debian sid"; do
		echo "deb-src [signed-by=$key] http://deb.debian.org/${s% *} ${s#* } main"
	done >"$work/sources.list"
	apt-get "${apt[@]}" update -q >"$work/update.log" 2>&1 || { cat "$work/update.log"; return 1; }
	listed=yes
}

# earlier_release PKG DIR: the upstream tarball of one of the six point
# releases before the newest version the lists name (17.12-0+deb13u1: 17.11-0+deb13u1
# down to 17.6-0+deb13u1), fetched from the pool directory the lists give
# into DIR; its SHA-256 is checked against the one its .dsc names.  Prints
# the version fetched, nothing where none could be.
earlier_release() {
	local pkg=$1 dir=$2 newest dirs up minor rest m v d base dsc orig sum
	newest=$(apt-cache "${apt[@]}" showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p' |
		sort -ruV | head -1)
	dirs=$(apt-cache "${apt[@]}" showsrc "$pkg" 2>/dev/null | sed -n 's/^Directory: //p' | sort -u)
	[[ $newest =~ ^([0-9]+)\.([0-9]+)-(.+)$ ]] || return 0
	up=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]} rest=${BASH_REMATCH[3]}
	for ((m = minor - 1; m >= 0 && m >= minor - 6; m--)); do
		v=$up.$m-$rest
		for d in $dirs; do
			for base in http://deb.debian.org/debian http://deb.debian.org/debian-security; do
				dsc=$dir/${pkg}_$v.dsc
				curl -fsS -m 60 -o "$dsc" "$base/$d/${pkg}_$v.dsc" 2>/dev/null || continue
				read -r sum orig < <(sed -n '/^Checksums-Sha256:/,/^[^ ]/p' "$dsc" |
					awk '$3 ~ /\.orig\.tar\./ { print $1, $3; exit }')
				if [ -n "${orig:-}" ] &&
					curl -fsS -m 600 -o "$dir/$orig" "$base/$d/$orig" 2>/dev/null &&
					echo "$sum  $dir/$orig" | sha256sum -c --quiet - >/dev/null 2>&1; then
					echo "PostgreSQL $up: $newest is in the lists but not on the mirror;" \
						"$v fetched from the pool, its SHA-256 checked against its .dsc" >&2
					echo "$v"
					return 0
				fi
				rm -f "$dir"/*
			done
		done
	done
}

failed=()
for major in "${versions[@]}"; do
	prefix=$root/$major
	if [ -x "$prefix/bin/pg_config" ]; then
		echo "PostgreSQL $major: $("$prefix/bin/pg_config" --version | awk '{print $2}')" \
			"already in $prefix"
		continue
	fi
	list_sources || { failed+=("$major (no source list)"); continue; }
	pkg=postgresql-$major
	src=$work/$major
	mkdir -p "$src"
	# the newest version the lists name whose files the mirror still has
	got=""
	for v in $(apt-cache "${apt[@]}" showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p' |
			sort -ruV); do
		if (cd "$src" && apt-get "${apt[@]}" source -q --download-only "$pkg=$v" \
				>"$work/source-$major.log" 2>&1); then
			got=$v
			break
		fi
		rm -f "$src"/*
	done
	# a mirror may lag its lists: the newest listed version's files missing
	# while earlier point releases are still in the pool
	[ -n "$got" ] || got=$(earlier_release "$pkg" "$src")
	if [ -z "$got" ]; then
		echo "PostgreSQL $major: no source of $pkg could be fetched:"
		grep -E '^(E|Err):' "$work/source-$major.log" 2>/dev/null | head -3 | sed 's/^/  /'
		failed+=("$major (no source)")
		continue
	fi
	echo "PostgreSQL $major: building $pkg $got into $prefix ..."
	t0=$SECONDS
	tar -xf "$src"/*.orig.tar.* -C "$src"
	build=$(ls -d "$src"/postgresql-*/)
	# no ICU, readline or zlib: what the tests need, and a build that also
	# runs on a GPU host without those libraries
	if (cd "$build" && ./configure --prefix="$prefix" --without-icu --without-readline \
			--without-zlib && make -j"$(nproc)" && make -C contrib/intarray) \
			>"$work/build-$major.log" 2>&1 &&
		(cd "$build" && $sudo make install && $sudo make -C contrib/intarray install) \
			>>"$work/build-$major.log" 2>&1; then
		echo "PostgreSQL $major: $("$prefix/bin/pg_config" --version | awk '{print $2}')" \
			"in $prefix ($((SECONDS - t0)) s)"
	else
		tail -30 "$work/build-$major.log"
		failed+=("$major (build)")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "install-pg.sh: not built: ${failed[*]}"
	exit 1
fi
