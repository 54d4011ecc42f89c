#!/usr/bin/env bash
# The tests, from a fresh Debian 12 machine: installs what is missing, builds
# everything (the CUDA backend too where nvcc is found, warnings as errors),
# installs the extension, then runs the C tests of the backends (--quick
# sizes) and the batch kernels' threads on the host (nvcc), the pg_regress
# suite on a throwaway PostgreSQL (mergepath.device at auto: the GPU where
# there is one, else the CPU backend), and every SQL example of README.md
# and docs/ against the output it shows.  On 2 cores about 3.5 minutes
# without CUDA, 5 with it (the CUDA build 1.5 of them).  CI runs the
# full-size C tests and the suite with the CPU forced after it (.ci/run);
# the GPU tests are test/gpu-tests.sh, on a GPU host.
set -uo pipefail
cd "$(dirname "$0")"
export PSQL_PAGER=cat			# nothing waits at a pager
start=$SECONDS
./install-deps.sh || exit 1
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
passed=0 failed=0
logs=$(mktemp -d /tmp/mergepath-test.XXXXXX)

# How a step ended: its summary, or the end of its log.
ended() {
	local name=$1 st=$2 secs=$3
	if [ "$st" -eq 0 ]; then
		passed=$((passed + 1)); echo "== $name: ok ($secs s)"
		[ -s "$logs/$name.summary" ] && cat "$logs/$name.summary"
	else
		failed=$((failed + 1)); echo "== $name: FAILED ($secs s)"
		tail -n 40 "$logs/$name.log"
	fi
	return 0
}

# Steps side by side (name:function ...), with a line every 15 s while any
# runs; each step's output goes to its log.
steps() {
	local t0=$SECONDS ticker names=() pids=()
	for s in "$@"; do
		names+=("${s%%:*}")
		{ "${s#*:}" >"$logs/${s%%:*}.log" 2>&1; st=$?; touch "$logs/${s%%:*}.done"; exit $st; } &
		pids+=($!)
	done
	echo "== ${names[*]} ..."
	# the steps still running, every 15 s
	(while sleep 15; do
		running=()
		for n in "${names[@]}"; do [ -e "$logs/$n.done" ] || running+=("$n"); done
		echo "   ${running[*]}: $((SECONDS - t0)) s"
	done) &
	ticker=$!
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}"
		ended "${names[$i]}" $? $((SECONDS - t0))
	done
	kill $ticker; wait $ticker 2>/dev/null
}

build() {
	# the build's own note (no nvcc: the CPU backend alone) in the summary
	make -j"$(nproc)" WERROR=1 all test/test_backends || return 1
	grep '^mergepath:' "$logs/build.log" | sed 's/^/   /' >"$logs/build.summary" || true
}

c_tests() {
	# the suites in two processes; a line a backend in the summary
	test/test_backends --quick --suite search,rows,merge,batch >"$logs/c1.log" 2>&1 & local a=$!
	test/test_backends --quick --suite sort,setops,runs >"$logs/c2.log" 2>&1 & local b=$!
	local st=0
	wait $a || st=1
	wait $b || st=1
	make -s check-tiles WERROR=1 >"$logs/c3.log" 2>&1 || st=1
	cat "$logs/c1.log" "$logs/c2.log" "$logs/c3.log"
	grep "threads on the host" "$logs/c3.log" | sed 's/^/   /' >"$logs/c-tests-tiles.summary"
	awk '/ backend, .* checks, / { n[$1] += $4; s[$1]++ }
		/backend: FAILED/ { f[$1] = 1 }
		/^gpu backend: no GPU here/ { nogpu = 1 }
		END {
			for (b in n)
				printf "   %s backend: %d suites, %d checks, %s\n", b, s[b], n[b],
					f[b] ? "FAILED" : "all passed"
			if (nogpu) print "   gpu backend: no GPU here, checked that it says so"
		}' "$logs/c1.log" "$logs/c2.log" >"$logs/c-tests.summary"
	cat "$logs/c-tests-tiles.summary" >>"$logs/c-tests.summary"
	return $st
}

regress() {
	test/pg_server.sh -- make -s installcheck WERROR=1 || { cat regression.diffs 2>/dev/null; return 1; }
	grep -E 'tests passed|failed' "$logs/regress.log" | sed 's/^ */   /' >"$logs/regress.summary"
}

examples() {
	test/pg_server.sh -- test/readme_examples.pl &&
		grep -E 'blocks of' "$logs/doc-examples.log" | sed 's/^/   /' >"$logs/doc-examples.summary"
}

install() {
	$sudo make -s install WERROR=1
}

steps build:build
steps install:install
# the C tests take two processes, pg_regress mostly one: side by side
steps c-tests:c_tests regress:regress
steps doc-examples:examples
echo "$passed passed, $failed failed ($((SECONDS - start)) s in all)"
[ "$failed" -eq 0 ] && rm -rf "$logs"
[ "$failed" -eq 0 ]
