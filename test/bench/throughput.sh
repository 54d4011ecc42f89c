#!/usr/bin/env bash
# The figures behind the throughput plot of docs/performance.md, on a GPU host: merge and
# sort of int32 keys at the kernel level (mergepath's GPU and CPU backends
# beside CUB, Thrust and the C++ library) and at the SQL level (gpu_merge
# and gpu_sort on each backend beside PostgreSQL's own operators and
# intarray, against the server that PG* variables reach).  Prints the
# benchmarks' tables, each under a '## name' line; test/bench/plot.py draws
# them:
#
#   test/bench/throughput.sh > test/bench/throughput.txt
#   test/bench/plot.py test/bench/throughput.txt test/bench/throughput.png
#
# About 5 minutes on the H200 host.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PSQL_PAGER=cat
make -s -j"$(nproc)" bench >&2
echo "## bench_merge"
test/bench/bench_merge --sizes 1,10,100 --host --reps 5
echo
echo "## bench_sort"
test/bench/bench_sort --sizes 1,10,100 --host --reps 5
echo
echo "## sql_bench merge"
SIZES=10000,100000,1000000,10000000 test/bench/sql_bench.sh merge
echo
echo "## sql_bench sort"
SIZES=10000,100000,1000000,10000000 ROWS=100000 test/bench/sql_bench.sh sort
