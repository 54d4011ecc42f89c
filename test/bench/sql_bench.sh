#!/usr/bin/env bash
# SQL-level benchmarks of gpu_merge and the set operations against the
# server that PG* variables reach (with mergepath and intarray installed),
# e.g. `test/pg_server.sh -- test/bench/sql_bench.sh`.  SIZES: elements per side,
# comma-separated; ROWS: table sizes for the sorting aggregate; RUNS: how
# many sorted runs for `runs`.  Arguments name the benchmarks (merge, setops,
# sort, crossover: each operation on each backend from 1K to 1M elements;
# runs: sorted runs merged or sorted, merge_runs.sql; default merge and
# setops).
set -euo pipefail
export PSQL_PAGER=cat			# nothing waits at a pager
sizes=${SIZES:-1000,10000,100000,300000,1000000,3000000,10000000}
gpu=$(psql -X -At -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS mergepath" \
	-c "SELECT CASE WHEN mergepath_info()->'gpu'->>'available' = 'true' THEN 'on' ELSE 'off' END" | tail -1)
for bench in ${@:-merge setops}; do
	case $bench in
		merge) file=sql_bench.sql ;;
		setops) file=sql_bench_setops.sql ;;
		sort) file=sql_bench_sort.sql ;;
		crossover) file=crossover.sql ;;
		runs) file=merge_runs.sql ;;
		*) echo "unknown benchmark: $bench" >&2; exit 2 ;;
	esac
	psql -X -q -v sizes="$sizes" -v rows="${ROWS:-1000000,10000000}" -v runs="${RUNS:-4,1000}" -v gpu="$gpu" \
		-f "$(dirname "$0")/$file"
done
