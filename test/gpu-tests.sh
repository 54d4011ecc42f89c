#!/usr/bin/env bash
# Every GPU test, in one command, on a host with a GPU:
#   C tests of both backends, compute-sanitizer (memcheck, racecheck,
#   initcheck, synccheck) over the GPU C tests, pg_regress with the GPU and
#   the CPU forced, and the GPU life cycle inside a real server.
# Needs a PostgreSQL server that PG* variables reach, where `make install`
# may write (on a GPU host without one: source .pgbundle/pg-up.sh first).
# Logs go to $LOG_DIR (default /tmp/mergepath-gpu-tests).  Arguments, if
# any, name the steps to run (build always runs).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
log_dir=${LOG_DIR:-/tmp/mergepath-gpu-tests}
mkdir -p "$log_dir"
pg_config=${PG_CONFIG:-pg_config}
passed=0 failed=0

only=" $* "
step() {
	local name=$1; shift
	[[ $name == build || $only == "  " || $only == *" $name "* ]] || return 0
	local log="$log_dir/$name.log" t0=$SECONDS
	if "$@" >"$log" 2>&1; then
		passed=$((passed + 1)); echo "PASS $name ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1)); echo "FAIL $name ($((SECONDS - t0)) s), last lines of $log:"
		tail -n 25 "$log" | sed 's/^/    /'
	fi
}

sanitize() {
	timeout "${SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool "$1" --error-exitcode 1 "${@:2}" test/test_backends --gpu --quick
}

slot_limit() {
	local PGDATABASE=contrib_regression
	# one slot: a backend that holds it keeps a second one on the CPU
	psql -X -q -c "LOAD 'mergepath'" -c "ALTER SYSTEM SET mergepath.max_gpu_backends = 1" \
		-c "SELECT pg_reload_conf()" >/dev/null || return 1
	sleep 1
	psql -X -q -c "SET mergepath.device = gpu" -c "SELECT gpu_merge('{1}'::int4[], '{2}')" \
		-c "SELECT pg_sleep(6)" >/dev/null &
	local holder=$!
	sleep 3
	local auto gpu
	auto=$(psql -X -At -c "SET mergepath.gpu_min_elements = 0" -c "SELECT gpu_merge('{1}'::int4[], '{2}')" \
		-c "SELECT mergepath_info()->'last_call'->>'backend', mergepath_info()->'last_call'->>'note'")
	gpu=$(psql -X -At -c "SET mergepath.device = gpu" -c "SELECT gpu_merge('{1}'::int4[], '{2}')" 2>&1)
	wait $holder
	psql -X -q -c "ALTER SYSTEM RESET mergepath.max_gpu_backends" -c "SELECT pg_reload_conf()" >/dev/null
	echo "auto, second backend: $auto"
	echo "gpu, second backend: $gpu"
	[[ $auto == *"cpu|GPU unavailable: every GPU slot"* ]] && [[ $gpu == *"every GPU slot"* ]]
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
step build make -j"$(nproc)" WERROR=1 PG_CONFIG="$pg_config" all test/test_backends
step c-tests-gpu test/test_backends --gpu
step c-tests-cpu test/test_backends --cpu
step memcheck sanitize memcheck --leak-check full
step racecheck sanitize racecheck
step initcheck sanitize initcheck
step synccheck sanitize synccheck
step install make install PG_CONFIG="$pg_config"
step regress-gpu make installcheck-gpu PG_CONFIG="$pg_config"
step regress-cpu make installcheck-cpu PG_CONFIG="$pg_config"
step lifecycle bash -c 'psql -X -f test/gpu_lifecycle.sql contrib_regression | tee /dev/stderr | grep -q "lifecycle: PASS"'
step slot-limit slot_limit
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
