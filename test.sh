#!/usr/bin/env bash
# The tests, from a fresh Debian 12 machine: installs what is missing, builds
# everything (the CUDA backend too where nvcc is found, warnings as errors),
# installs the extension, then runs the C tests of the backends and the
# pg_regress suite on a throwaway PostgreSQL, with mergepath.device forced to
# cpu and left at auto, and checks every SQL example of the README against
# the output it shows.  About 5 minutes on 2 cores.  The GPU tests are
# test/gpu-tests.sh, on a GPU host.
set -uo pipefail
cd "$(dirname "$0")"
export PSQL_PAGER=cat			# nothing waits at a pager
start=$SECONDS
./install-deps.sh || exit 1
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
passed=0 failed=0

step() {
	local name=$1 t0=$SECONDS; shift
	echo "== $name ..."
	if "$@"; then
		passed=$((passed + 1)); echo "== $name: ok ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1)); echo "== $name: FAILED ($((SECONDS - t0)) s)"
	fi
}

build() {
	# compiler lines only when something goes wrong
	local log; log=$(mktemp)
	make -j"$(nproc)" WERROR=1 all test/test_backends >"$log" 2>&1 ||
		{ cat "$log"; rm -f "$log"; return 1; }
	grep '^mergepath:' "$log"
	rm -f "$log"
}

c_tests() {
	# the suites in two processes, a line as each ends (on a machine with a
	# GPU, each process tests both backends)
	test/test_backends --suite search,rows,merge & local a=$!
	test/test_backends --suite sort,setops & local b=$!
	local st=0
	wait $a || st=1
	wait $b || st=1
	return $st
}

regress() {
	# $1: make target; the diffs are shown when it fails
	pg_virtualenv make -s "$1" WERROR=1 || { cat regression.diffs 2>/dev/null; return 1; }
}

step build build
step install $sudo make -s install WERROR=1
step c-tests c_tests
step regress-cpu regress installcheck-cpu
step regress-auto regress installcheck
step readme-examples pg_virtualenv test/readme_examples.pl README.md
echo "$passed passed, $failed failed ($((SECONDS - start)) s in all)"
[ "$failed" -eq 0 ]
