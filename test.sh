#!/usr/bin/env bash
# The tests, from a fresh Debian 12 machine: installs what is missing, builds
# everything (the CUDA backend too where nvcc is found, warnings as errors),
# installs the extension, then runs the C tests of the backends and the
# pg_regress suite on a throwaway PostgreSQL, with mergepath.device forced to
# cpu and left at auto.  The GPU tests are test/gpu-tests.sh, on a GPU host.
set -uo pipefail
cd "$(dirname "$0")"
./install-deps.sh || exit 1
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
passed=0 failed=0

step() {
	local name=$1; shift
	echo "== $name"
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); echo "FAIL $name"
	fi
}

regress() {
	# $1: make target; the diffs are shown when it fails
	pg_virtualenv make "$1" || { cat regression.diffs 2>/dev/null; return 1; }
}

step build make -j"$(nproc)" WERROR=1 all test/test_backends
step install $sudo make install
step c-tests test/test_backends
step regress-cpu regress installcheck-cpu
step regress-auto regress installcheck
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
