#!/usr/bin/env bash
# mergepath on a Citus cluster of this host, one worker against two (a
# worker a GPU where the host has several), mergepath on and off, whole-query
# times (see citus.sql).  Needs Citus installed (test/citus/build.sh).
# ROWS: rows of each table (default 20M); ARR_ROWS: rows of the table of
# arrays (default ROWS); REPS: timings a cell, the median kept (default 1);
# WORKER_COUNTS (default "1 2"); METHODS: of pg, cpu, gpu (default all);
# GPUS (default: nvidia-smi's count, none without it); CPUS_PER_WORKER: cores
# a worker (and the coordinator) is kept to (default: all, see
# test/citus/cluster.sh); QUERIES: which of citus.sql's queries, by number
# (default all: 1-7); SHARDS: shards a table (default 32, Citus's default);
# DIST_GROUPS: distinct values of the distribution column of query 4's table
# (default 4096: with 128, from none to 8 groups fell on a shard of 32, and
# the heaviest shard query bounded two workers at 1.6x);
# EXPLAIN=1: each shard query's plan and time for the per-row call and the
# join, after the timings.
set -euo pipefail
export PSQL_PAGER=cat
here=$(cd "$(dirname "$0")" && pwd)
rows=${ROWS:-20000000}
gpus=${GPUS:-$( (nvidia-smi --list-gpus 2>/dev/null || true) | wc -l)}
out=/tmp/mergepath-citus-bench.tsv
rm -f "$out"
for w in ${WORKER_COUNTS:-1 2}; do
	echo "== $w worker(s), $rows rows, GPUs: $gpus"
	env_gpus=()
	[ "$gpus" -gt 0 ] && env_gpus=(GPUS="$gpus")
	env WORKERS="$w" "${env_gpus[@]}" "$here/../citus/cluster.sh" \
		-o shared_buffers=4GB -o max_worker_processes=32 -o jit=off -o max_prepared_transactions=64 \
		-o citus.max_adaptive_executor_pool_size=32 -o citus.max_intermediate_result_size=-1 -o citus.max_cached_conns_per_worker=32 -- \
		psql -X -q -v rows="$rows" -v arr_rows="${ARR_ROWS:-$rows}" \
		-v methods="${METHODS:-pg,cpu,gpu}" -v queries="${QUERIES:-1,2,3,4,5,6,7}" -v workers="$w" -v reps="${REPS:-1}" \
		-v shards="${SHARDS:-32}" -v groups="${DIST_GROUPS:-4096}" ${EXPLAIN:+-v explain=1} -f "$here/citus.sql"
done
# one worker against the others, from the same script's runs
echo "== ms by workers (query, method, workers, ms), and the speed-up over one worker"
awk -F'\t' '{ ms[$2 "|" $3, $1] = $4; key[$2 "|" $3] = 1; w[$1] = 1 }
	END { for (k in key) { line = k; for (n in w) { line = line "  " n "w: " ms[k, n];
			if (n != 1 && ms[k, n] > 0) line = line sprintf(" (%.2fx)", ms[k, 1] / ms[k, n]) }
		print line } }' "$out" | sort
