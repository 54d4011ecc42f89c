#!/usr/bin/env bash
# The pg_regress suite on each PostgreSQL version beside Debian 12's 15:
# builds the server with install-pg.sh, builds and installs mergepath against
# it in a copy of the tree (the CUDA objects of the tree's own build reused:
# they know no PostgreSQL), and runs make installcheck on a throwaway server
# of that version (test/pg_server.sh), and make installcheck-cpu beside it
# where a GPU is visible (without one, the default backend choice is the CPU
# backend, and the two runs are the same); a summary line a version.  The C
# tests are the same on every version and run once, in ./test.sh.
#
#   test/versions.sh [17] [18]
#
# A version whose source package the mirror does not have is reported and
# skipped; any other failure fails.  About 8 minutes a version on 2 cores,
# the server's build included.
set -uo pipefail
cd "$(dirname "$0")/.."
export PSQL_PAGER=cat
top=$PWD
root=${PG_ROOT:-/opt/mergepath-pg}
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(17 18)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
summary=() status=0
targets=(installcheck)
nvidia-smi -L >/dev/null 2>&1 && targets+=(installcheck-cpu)

for major in "${versions[@]}"; do
	t0=$SECONDS
	if ! ./install-pg.sh "$major" >"/tmp/versions-$major.log" 2>&1; then
		cat "/tmp/versions-$major.log"
		if grep -q "no source" "/tmp/versions-$major.log"; then
			summary+=("PostgreSQL $major: skipped, the mirror has no source package of it")
		else
			summary+=("PostgreSQL $major: the server did not build"); status=1
		fi
		continue
	fi
	pgc=$root/$major/bin/pg_config
	full=$("$pgc" --version | awk '{print $2}')
	dir=$(mktemp -d /tmp/mergepath-$major.XXXXXX)
	git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$dir"
	# the tree's CUDA objects and the flags they were built with, if any
	for o in cuda/*.o cuda/.build-flags; do
		[ -e "$o" ] && cp -p "$o" "$dir/cuda/"
	done
	echo "== PostgreSQL $full: build ..."
	if ! (cd "$dir" && make -j"$(nproc)" WERROR=1 PG_CONFIG="$pgc" >build.log 2>&1 &&
			$sudo make install WERROR=1 PG_CONFIG="$pgc" >>build.log 2>&1); then
		tail -30 "$dir/build.log"
		summary+=("PostgreSQL $full: mergepath did not build"); status=1
		continue
	fi
	line="PostgreSQL $full:"
	for target in "${targets[@]}"; do
		echo "== PostgreSQL $full: $target ..."
		(cd "$dir" && PG_CONFIG=$pgc test/pg_server.sh -- \
			make -s "$target" WERROR=1 PG_CONFIG="$pgc" >"$target.log" 2>&1)
		st=$?
		ok=$(grep -cE '^ok [0-9]+|\.\.\. ok' "$dir/$target.log")
		bad=$(grep -cE '^not ok [0-9]+|\.\.\. FAILED' "$dir/$target.log")
		line+=" $target $ok passed, $bad failed;"
		if [ $st -ne 0 ] || [ "$bad" -ne 0 ] || [ "$ok" -eq 0 ]; then
			cat "$dir/$target.log" "$dir/regression.diffs" 2>/dev/null | tail -60
			status=1
		fi
	done
	summary+=("${line%;} ($((SECONDS - t0)) s)")
	[ $status -ne 0 ] || rm -rf "$dir"
done
printf '%s\n' "${summary[@]}"
exit $status
