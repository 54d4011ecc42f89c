#!/usr/bin/env bash
# The per-row calls, row by row and batched (test/bench/batch.sql), against
# the server that PG* variables reach: SHAPES is a list of rows:len, default
# 1M rows of two int4[100] and 100K rows of two int4[1000]; WORKERS is
# max_parallel_workers_per_gather (default 0: one process).  The GPU is
# timed where the server has one.  SWEEP=1 runs test/bench/batch_sweep.sql
# instead (tables of 10 to 100K rows, row by row and batched, the GPU too
# where there is one) for each of LENS (default 10 100 1000).
set -euo pipefail
export PSQL_PAGER=cat
gpu=$(psql -X -At -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS mergepath" \
	-c "SELECT (mergepath_info()->'gpu'->>'available')::bool IS TRUE" | tail -1)
[ "$gpu" = t ] && gpu=true || gpu=false
if [ -n "${SWEEP:-}" ]; then
	for len in ${LENS:-10 100 1000}; do
		psql -X -q -v len="$len" -v gpu="$gpu" -f "$(dirname "$0")/batch_sweep.sql"
	done
	exit 0
fi
for shape in ${SHAPES:-1000000:100 100000:1000}; do
	psql -X -q -v rows="${shape%%:*}" -v len="${shape##*:}" -v gpu="$gpu" -v workers="${WORKERS:-0}" \
		-f "$(dirname "$0")/batch.sql"
done
