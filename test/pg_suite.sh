#!/usr/bin/env bash
# PostgreSQL's own regression suite as a test of mergepath's nodes.
#
# Takes src/test/regress from the Debian source package of the installed
# server (the same minor version when the mirror still has it), builds its
# test modules with PGXS, and runs the parallel schedule on three throwaway
# servers:
#   plain     no mergepath
#   nodes     shared_preload_libraries = mergepath, mergepath.sort_min_rows = 0
#   joins     the same with enable_hashjoin, enable_mergejoin and
#             enable_nestloop off, so MergepathJoin is used wherever offered
# then compares each mergepath run's outputs with the plain run's
# (test/pg_suite_compare.py): a difference passes only when it is plan text,
# or rows in another order, in a test and of a kind that
# test/pg_suite_known.txt lists with its reason.
#
#   test/pg_suite.sh [DIR]     DIR keeps the source, the modules and the
#                              runs' outputs, and is reused when run again;
#                              without it they go to a new directory under
#                              /var/tmp, removed when the suite passes
# Needs mergepath installed (make install).  About 7 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ]; then
	work=$1
else
	work=$(mktemp -d /var/tmp/mergepath-pg-suite.XXXXXX)
	trap '[ "${status:-1}" -eq 0 ] && rm -rf "$work" || echo "outputs kept in $work"' EXIT
fi
PG_CONFIG=${PG_CONFIG:-pg_config}
major=$($PG_CONFIG --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
pkg=postgresql-$major
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

mkdir -p "$work"
chmod 777 "$work"		# the server writes COPY files into the results
cd "$work"

# -- the suite's source, through a private source list --------------------
if [ ! -d src/test/regress ]; then
	echo "fetching the $pkg source package ..."
	mkdir -p apt/lists/partial
	cat >apt/sources.list <<-EOF
	deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
	deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main
	EOF
	apt=(-o Dir::Etc::SourceList="$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$work/apt/lists" -o APT::Sandbox::User=root)
	apt-get "${apt[@]}" update -q >apt/update.log 2>&1 || { cat apt/update.log; exit 1; }
	installed=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
	# the installed version first, then the others the mirror lists, newest
	# first (a source the index names may be gone from the pool)
	mkdir -p dl
	for v in $installed $(apt-cache "${apt[@]}" showsrc "$pkg" | sed -n 's/^Version: //p' |
			sort -rV | grep -vxF "$installed"); do
		rm -f dl/*
		(cd dl && apt-get "${apt[@]}" source -q --download-only "$pkg=$v" \
			>../apt/source.log 2>&1) && break
	done
	ls dl/*.dsc >/dev/null 2>&1 || { cat apt/source.log; exit 1; }
	tar -xf dl/*.orig.tar.* --strip-components=1 \
		--wildcards '*/src/test/regress/*' '*/contrib/spi/*'
	echo "suite of $(ls dl/*.dsc | sed -E 's/.*_(.*)\.dsc/\1/')"
fi

# -- its C modules: regress, and autoinc and refint from contrib/spi ------
if [ ! -f lib/regress.so ]; then
	mkdir -p lib
	for m in regress:src/test/regress contrib-spi:contrib/spi; do
		name=${m%%:*} dir=${m#*:}
		mods=regress
		[ "$name" = regress ] || mods="autoinc refint"
		make -s -C "$dir" -f - PG_CONFIG="$PG_CONFIG" all <<-EOF >lib/build-$name.log 2>&1 ||
		MODULES = $mods
		PGXS := \$(shell \$(PG_CONFIG) --pgxs)
		include \$(PGXS)
		EOF
			{ cat lib/build-$name.log; exit 1; }
		for x in $mods; do cp "$dir/$x.so" lib/; done
	done
	chmod -R a+rX lib
fi

regress=$($PG_CONFIG --pgxs | sed 's|src/makefiles/pgxs.mk|src/test/regress/pg_regress|')
suite=$work/src/test/regress

run() {
	# $1: the run's name; the rest: server settings
	local name=$1; shift
	local opts=() t0=$SECONDS
	for o in "$@"; do opts+=(-o "$o"); done
	rm -rf "runs/$name"; mkdir -p "runs/$name/results"; chmod 777 "runs/$name" "runs/$name/results"
	echo "== suite, $name ($*) ..."
	# the suite's own verdict against its expected files is not the point
	# (a server from a package differs from a source build in places): the
	# outputs are compared between runs afterwards
	PG_CONFIG="$PG_CONFIG" "$here/pg_server.sh" "${opts[@]}" -- "$regress" --inputdir="$suite" --outputdir="runs/$name" \
		--bindir="$($PG_CONFIG --bindir)" --dlpath="$work/lib" --max-concurrent-tests=20 \
		--schedule="$suite/parallel_schedule" >"runs/$name.log" 2>&1 || true
	local n; n=$(ls "runs/$name/results/"*.out 2>/dev/null | wc -l)
	echo "== suite, $name: $n tests run ($((SECONDS - t0)) s)"
	[ "$n" -gt 0 ] || { tail -20 "runs/$name.log"; exit 1; }
}

run plain "max_parallel_workers_per_gather=2"
run nodes "max_parallel_workers_per_gather=2" "shared_preload_libraries=mergepath" \
	"mergepath.sort_min_rows=0"
run joins "max_parallel_workers_per_gather=2" "shared_preload_libraries=mergepath" \
	"mergepath.sort_min_rows=0" "enable_hashjoin=off" "enable_mergejoin=off" \
	"enable_nestloop=off"

status=0
for name in nodes joins; do
	python3 "$here/pg_suite_compare.py" --known "$here/pg_suite_known.txt" --run "$name" \
		--schedule "$suite/parallel_schedule" runs/plain/results "runs/$name/results" || status=1
done
exit $status
