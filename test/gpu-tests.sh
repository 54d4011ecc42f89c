#!/usr/bin/env bash
# Every GPU test, in one command, on a host with a GPU:
#   the GPU backend's C tests, compute-sanitizer (memcheck, racecheck,
#   initcheck, synccheck) over them, pg_regress with the GPU forced (the
#   MergepathSort and MergepathJoin suites among them),
#   the GPU life cycle inside a real server (cancels in functions and in
#   both nodes), what a backend holds of the GPU (the pool's cap, the
#   release after the idle time, nvidia-smi's view), and the Citus suite
#   with a worker a GPU.
# After the build and the install, the C tests with the sanitizers,
# pg_regress and the Citus suite run side by side (they share only the
# GPU); the steps that measure the card's memory, or take all of it, then
# run alone, in turn.
# Needs a PostgreSQL server that PG* variables reach, where `make install`
# may write (on a GPU host without one: source .pgbundle/pg-up.sh first).
# Logs go to $LOG_DIR (default /tmp/mergepath-gpu-tests).  Arguments, if
# any, name the steps to run (build always runs; c-tests-cpu and
# regress-cpu, the CPU backend's, only when named); SUITES limits the
# sanitizers to some suites of C tests (default: all).
set -uo pipefail
export PSQL_PAGER=cat			# nothing waits at a pager
cd "$(dirname "$0")/.."
export PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
log_dir=${LOG_DIR:-/tmp/mergepath-gpu-tests}
mkdir -p "$log_dir"
pg_config=${PG_CONFIG:-pg_config}

# With no arguments every step but c-tests-cpu and regress-cpu, which CI
# runs on every change (the CPU backend's C tests and the suite with the
# CPU forced): named, they run here too.
only=" $* "
selected() {
	[[ $1 == build || $only == *" $1 "* ]] ||
		[[ $only == "  " && $1 != c-tests-cpu && $1 != regress-cpu ]]
}

# report NAME EXIT_STATUS START_SECONDS
# (the steps that run side by side report from subshells: the outcomes are
# counted from $results at the end)
results=$log_dir/results
: >"$results"
report() {
	local log="$log_dir/$1.log"
	if [ "$2" -eq 0 ]; then
		echo "PASS $1" >>"$results"; echo "PASS $1 ($((SECONDS - $3)) s)"
	else
		echo "FAIL $1" >>"$results"; echo "FAIL $1 ($((SECONDS - $3)) s), last lines of $log:"
		tail -n 25 "$log" | sed 's/^/    /'
	fi
}

step() {
	local name=$1 t0=$SECONDS status; shift
	selected "$name" || return 0
	[[ $name != regress-* ]] || rm -f regression.diffs
	"$@" >"$log_dir/$name.log" 2>&1
	status=$?
	# pg_regress's differences, which the next suite would overwrite
	[[ $name != regress-* || ! -f regression.diffs ]] || cp regression.diffs "$log_dir/$name.diffs"
	report "$name" $status "$t0"
}

# sanitize TOOL SUITE[:K/N] [TOOL OPTIONS] (K/N: a shard of the suite).
# Under the sanitizers the suites' sweeps take one case in SANITIZE_THIN
# (default 4: --thin): their cost is per call, and the cases outside the
# sweeps (big, unequal, unsorted, cancelled) all run.
sanitize() {
	local suite=${2%%:*} shard=()
	[ "$suite" = "$2" ] || shard=(--shard "${2#*:}")
	timeout "${SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool "$1" --error-exitcode 1 "${@:3}" \
		test/test_backends --gpu --quick --thin "${SANITIZE_THIN:-4}" --suite "$suite" "${shard[@]}"
}

# The compute-sanitizer tools, each over every suite of C tests, as
# processes of their own: racecheck, the slowest tool, over each suite in
# RACECHECK_SHARDS shards (default 2: a suite's units are its element
# types, the batch suite's its operations).  At most SANITIZE_JOBS run at
# once (default: half the host's cores; a process keeps two or three busy
# and the GPU is shared by time slices, so more at once only adds switching),
# the slowest first: racecheck, then the suites with the most calls.  On a
# host with several GPUs (and CUDA_VISIBLE_DEVICES not set) the processes
# are dealt out to them in turn.  Each process's seconds end its log; a
# tool's line names its slowest processes.
sanitize_all() {
	local tools=() queue=() t0=$SECONDS suites=(${SUITES:-setops search batch sort merge rows runs})
	local ngpus=1 i=0 cap=${SANITIZE_JOBS:-$(($(nproc) > 1 ? $(nproc) / 2 : 1))} shards=${RACECHECK_SHARDS:-2}
	[ -n "${CUDA_VISIBLE_DEVICES:-}" ] || ngpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
	[ "$ngpus" -ge 1 ] || ngpus=1
	for t in racecheck memcheck initcheck synccheck; do
		selected "$t" || continue
		tools+=("$t")
		rm -f "$log_dir/$t"-*.log "$log_dir/$t"-*.log.status
		for s in "${suites[@]}"; do
			if [ "$t" = racecheck ] && [ "$shards" -gt 1 ]; then
				for ((k = 0; k < shards; k++)); do
					queue+=("$t $s:$k/$shards")
				done
			else
				queue+=("$t $s")
			fi
		done
	done
	for j in "${queue[@]}"; do
		local t=${j% *} u=${j#* }
		local log="$log_dir/$t-${u//[:\/]/-}.log"
		while [ "$(jobs -rp | wc -l)" -ge "$cap" ]; do
			wait -n
		done
		(
			t1=$SECONDS
			[ "$ngpus" -gt 1 ] && export CUDA_VISIBLE_DEVICES=$((i % ngpus))
			if [ "$t" = memcheck ]; then
				sanitize "$t" "$u" --leak-check full
			else
				sanitize "$t" "$u"
			fi
			st=$?
			echo "$t $u: $((SECONDS - t1)) s"
			echo "$st" >"$log.status"
		) >"$log" 2>&1 &
		i=$((i + 1))
	done
	wait
	for t in "${tools[@]}"; do
		local st=0 f
		for f in "$log_dir/$t"-*.log; do
			[ "$(cat "$f.status" 2>/dev/null)" = 0 ] || st=1
		done
		cat "$log_dir/$t"-*.log >"$log_dir/$t.log"
		report "$t" $st "$t0"
		grep -h -E "^$t [a-z]+(:[0-9]+/[0-9]+)?: [0-9]+ s$" "$log_dir/$t"-*.log |
			awk '{ print $(NF - 1), $2 }' | sort -n -r | head -3 |
			awk '{ s = s (NR > 1 ? ", " : "") $2 " " $1 " s" } END { if (s != "") print "    slowest: " s }'
	done
}

# A database of its own for the steps below, so that each runs alone.
test_db() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS mergepath_gpu_tests" \
		-c "CREATE DATABASE mergepath_gpu_tests" &&
		psql -X -q -d mergepath_gpu_tests -c "CREATE EXTENSION mergepath"
}

lifecycle() {
	test_db || return 1
	psql -X -f test/gpu_lifecycle.sql mergepath_gpu_tests | tee /dev/stderr | grep -q "lifecycle: PASS"
}

# What a backend holds of the GPU around a call on 100M elements: the pool
# kept, capped, and nothing after the idle time; the pool's cost per size.
memory() {
	test_db || return 1
	psql -X -f test/gpu_memory.sql mergepath_gpu_tests
}

# GPU memory in use on the card, MB
gpu_used_mb() {
	nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1
}

# load_run NAME DEVICE SLOTS: 32 pgbench clients for LOAD_SECONDS mixing
# every function (test/gpu_load.sql), each result checked against the CPU
# backend's; the card's memory sampled every second.
load_run() {
	local name=$1 device=$2 slots=$3 base peak=0 sampler used
	psql -X -q -d mergepath_gpu_tests -c "LOAD 'mergepath'" \
		-c "ALTER SYSTEM SET mergepath.max_gpu_backends = $slots" -c "SELECT pg_reload_conf()" \
		>/dev/null || return 1
	sleep 1
	base=$(gpu_used_mb)
	( while sleep 1; do gpu_used_mb; done ) >"$log_dir/load-$name.mem" &
	sampler=$!
	PGOPTIONS="-c mergepath.device=$device" pgbench -n -c 32 -j 16 -T "${LOAD_SECONDS:-60}" \
		-f test/gpu_load.pgbench mergepath_gpu_tests >"$log_dir/load-$name.pgbench" 2>&1
	local st=$?
	# the 32 backends exit after pgbench does, each giving back its context:
	# up to 15 s for the card to be back where it was
	for t in $(seq 1 15); do
		sleep 1
		used=$(gpu_used_mb)
		[ "$used" -le $((base + 64)) ] && break
	done
	kill $sampler
	peak=$(sort -n "$log_dir/load-$name.mem" | tail -1)
	echo "load, $name (mergepath.device = $device, $slots GPU slots): pgbench exit $st"
	grep -E 'transactions actually processed|failed transactions|tps|aborted' \
		"$log_dir/load-$name.pgbench" | sed 's/^/    /'
	echo "    GPU memory MB: $base before, $peak at the peak, $used after (${t} s after pgbench)"
	[ "$st" -eq 0 ] && ! grep -q 'aborted' "$log_dir/load-$name.pgbench" &&
		grep -q 'failed transactions: 0 ' "$log_dir/load-$name.pgbench" &&
		[ "$used" -le $((base + 64)) ]
}

# 32 sessions make one GPU call each and stay connected: with
# mergepath.gpu_idle_release = 12, each holds its context until 12 s after
# its call, and nothing after that.
idle_sessions() {
	local base held released waiting=0 pids=()
	base=$(gpu_used_mb)
	for i in $(seq 1 32); do
		psql -X -q -d mergepath_gpu_tests -c "SET mergepath.device = gpu" \
			-c "SET mergepath.gpu_idle_release = 12" -c "SELECT load_check(6, 1)" \
			-c "SELECT pg_sleep(45) AS idle_after_gpu_call" >/dev/null &
		pids+=($!)
	done
	# until every session has made its call (and none has been idle 12 s)
	for t in $(seq 1 20); do
		waiting=$(psql -X -At -d mergepath_gpu_tests -c "SELECT count(*) FROM pg_stat_activity
			WHERE query LIKE '%idle_after_gpu_call%' AND pid <> pg_backend_pid()")
		[ "$waiting" -ge 32 ] && break
		sleep 0.5
	done
	held=$(gpu_used_mb)
	sleep 15
	released=$(gpu_used_mb)
	local st=0
	for p in "${pids[@]}"; do wait "$p" || st=1; done
	echo "idle: 32 sessions, one GPU call each, then connected and idle: GPU memory MB"
	echo "    $base before, $held once all had made their call ($waiting of 32),"
	echo "    $released 15 s later (mergepath.gpu_idle_release = 12); exit $st"
	[ $st -eq 0 ] && [ "$waiting" -ge 32 ] && [ "$held" -gt $((base + 32 * 256)) ] &&
		[ "$released" -le $((base + 64)) ]
}

load() {
	test_db || return 1
	psql -X -q -d mergepath_gpu_tests -f test/gpu_load.sql || return 1
	local st=0
	load_run auto auto 8 || st=1
	load_run gpu gpu 32 || st=1
	idle_sessions || st=1
	psql -X -q -d mergepath_gpu_tests -c "ALTER SYSTEM RESET mergepath.max_gpu_backends" \
		-c "SELECT pg_reload_conf()" >/dev/null
	return $st
}

# Parallel workers on the GPU at once: four sessions, each a parallel sort
# (Gather Merge over MergepathSort in the workers) and a parallel
# gpu_sort_agg, against PostgreSQL's own plan.
parallel_workers() {
	local PGDATABASE=mergepath_gpu_tests want st=0 pids=()
	local q="SELECT (SELECT sum(k::int8 * n) FROM (SELECT k, row_number() OVER () AS n
	                 FROM (SELECT k FROM par ORDER BY k, p) s) x),
	                (SELECT hash_array(gpu_sort_agg(k)) FROM par)"
	local par="SET max_parallel_workers_per_gather = 8; SET parallel_setup_cost = 0;
		SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET work_mem = '1GB';
		SET mergepath.sort_min_rows = 0; SET mergepath.device = gpu;"
	psql -X -q -c "LOAD 'mergepath'" -c "ALTER SYSTEM SET mergepath.max_gpu_backends = 40" \
		-c "SELECT pg_reload_conf()" \
		-c "CREATE TABLE par AS SELECT (random() * 2e9 - 1e9)::int4 AS k, g AS p
		    FROM generate_series(1, 8000000) g" -c "ANALYZE par" >/dev/null || return 1
	want=$(psql -X -q -At -c "SET max_parallel_workers_per_gather = 0" -c "SET mergepath.device = cpu" \
		-c "$q")
	psql -X -q -At -c "LOAD 'mergepath'" -c "$par" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, VERBOSE) $q" |
		grep -E 'Gather|Workers Launched|MergepathSort|Sort Backend|Partial Aggregate' | sort | uniq -c
	for i in 1 2 3 4; do
		psql -X -q -At -c "LOAD 'mergepath'" -c "$par" -c "$q" >"$log_dir/parallel-$i.out" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || st=1; done
	for i in 1 2 3 4; do
		echo "parallel session $i: $(cat "$log_dir/parallel-$i.out") (PostgreSQL's plan: $want)"
		[ "$(cat "$log_dir/parallel-$i.out")" = "$want" ] || st=1
	done
	return $st
}

# SIGKILL of a backend in the middle of a GPU call: the server recovers,
# the GPU memory and the slot are free, and the next call is right.
kill_backend() {
	local PGDATABASE=mergepath_gpu_tests pid used slots answer
	psql -X -q -c "CREATE TABLE kill_arrays AS
		SELECT ARRAY(SELECT generate_series(1, 20000000, 2)) AS a,
		       ARRAY(SELECT generate_series(2, 20000000, 2)) AS b" -c "CHECKPOINT" || return 1
	psql -X -At -c "SET mergepath.device = gpu" \
		-c "SELECT sum(cardinality(gpu_merge(a, b))) AS killed_call FROM kill_arrays,
		    generate_series(1, 100)" >/dev/null 2>&1 &
	local client=$!
	for t in $(seq 1 40); do
		pid=$(psql -X -At -c "SELECT pid FROM pg_stat_activity WHERE query LIKE '%killed_call%'
			AND pid <> pg_backend_pid() AND state = 'active'")
		[ -n "$pid" ] && break
		sleep 0.25
	done
	sleep 2
	echo "kill: GPU memory $(gpu_used_mb) MB with backend $pid in its GPU calls; SIGKILL"
	kill -9 "$pid" || return 1
	wait $client
	# (crash recovery replays the WAL since the checkpoint above)
	for t in $(seq 1 240); do
		psql -X -At -c "SELECT 1" >/dev/null 2>&1 && break
		sleep 0.5
	done
	sleep 1
	used=$(gpu_used_mb)
	slots=$(psql -X -q -At -c "SET mergepath.device = cpu" -c "SELECT mergepath_info()->'gpu_slots'->>'in_use'")
	answer=$(psql -X -q -At -c "SET mergepath.device = gpu" \
		-c "SELECT gpu_merge(a, b) = ARRAY(SELECT generate_series(1, 20000000)) FROM kill_arrays" \
		-c "SELECT mergepath_info()->'last_call'->>'backend'" | tr '\n' ' ')
	echo "kill: after the server's recovery: GPU memory $used MB, GPU slots in use $slots,"
	echo "    the next call right and its backend: $answer"
	[ "$used" -le 64 ] && [ "$slots" = 0 ] && [ "$answer" = "t gpu " ]
}

faults() {
	test_db || return 1
	make -s test/gpu_hog || return 1
	local st=0
	psql -X -f test/gpu_faults.sql mergepath_gpu_tests | tee /dev/stderr | grep -q "faults: PASS" || st=1
	# the script's own hog, left holding the memory where a check stopped it
	pkill -x gpu_hog && sleep 1
	parallel_workers || st=1
	kill_backend || st=1
	psql -X -q -d mergepath_gpu_tests -c "ALTER SYSTEM RESET mergepath.max_gpu_backends" \
		-c "SELECT pg_reload_conf()" >/dev/null
	return $st
}

slot_limit() {
	local PGDATABASE=mergepath_gpu_tests
	test_db || return 1
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
	[[ $auto == *"cpu|GPU unavailable: every GPU slot is taken"* ]] && [[ $gpu == *"every GPU slot"* ]]
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# The Citus suite on a coordinator and two workers with the GPU forced, a
# worker a GPU where the host has several.  Citus's source: CITUS_SOURCES
# (bring a copy of ../shared/citus along, as an ignored folder of the tree,
# with Debian's header packages beside it, `apt-get download libpq-dev
# krb5-multidev libssl-dev libicu-dev`, where the host lacks them: see
# build.sh).
citus_gpu() {
	local gpus
	gpus=$(nvidia-smi --list-gpus | wc -l)
	PG_CONFIG="$pg_config" test/citus/build.sh &&
		PG_CONFIG="$pg_config" GPUS=$gpus make -s check-citus PG_CONFIG="$pg_config" \
			CITUS_OPTS="-o mergepath.device=gpu"
}

# c_tests BACKEND: the C tests of one backend, each suite a process of its
# own, side by side (in one process, in turn, the GPU's took 300 s on an
# H100 host, its longest suite 83 s); the suites' lines in the step's log.
c_tests() {
	local pids=() st=0 s
	for s in merge setops search sort rows runs batch; do
		test/test_backends "--$1" --suite "$s" >"$log_dir/c-tests-$1-$s.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || st=1; done
	for s in merge setops search sort rows runs batch; do
		cat "$log_dir/c-tests-$1-$s.log"
	done
	return $st
}

# side_by_side LANE...: each lane (a function) in the background, its
# lines kept apart and printed in order once all are done.
side_by_side() {
	local lane pids=()
	for lane in "$@"; do
		"$lane" >"$log_dir/lane-$lane.out" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	for lane in "$@"; do
		cat "$log_dir/lane-$lane.out"
	done
}

# Three lanes that share nothing but the GPU side by side: the C tests
# and the sanitizers over them (no server), pg_regress (the server's
# database of its own), the Citus suite (a cluster of its own).  The
# steps after them measure the card's memory, or take all of it, so they
# run alone.
c_lane() {
	step c-tests-gpu c_tests gpu
	step c-tests-cpu c_tests cpu
	sanitize_all
}
regress_lane() {
	step regress-gpu make installcheck-gpu PG_CONFIG="$pg_config"
	step regress-cpu make installcheck-cpu PG_CONFIG="$pg_config"
}
citus_lane() {
	step citus citus_gpu
}

step build make -j"$(nproc)" WERROR=1 PG_CONFIG="$pg_config" all test/test_backends
step install make install WERROR=1 PG_CONFIG="$pg_config"	# the build's flags: nothing rebuilt
side_by_side c_lane regress_lane citus_lane
step lifecycle lifecycle
step memory memory
step load load
step faults faults
step slot-limit slot_limit
passed=$(grep -c '^PASS' "$results")
failed=$(grep -c '^FAIL' "$results")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
