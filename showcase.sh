#!/usr/bin/env bash
# The showcase, from a fresh Debian 12 machine: installs what is missing,
# builds and installs mergepath, starts a throwaway PostgreSQL (unless PG*
# variables already reach a server), runs example queries, and times
# gpu_merge and the set operations on each backend beside what PostgreSQL
# offers, a line at least every 20 s.  About a minute on 2 cores once built
# (SIZES=10000,100000 for a quicker look).
set -euo pipefail
cd "$(dirname "$0")"
export PSQL_PAGER=cat			# nothing waits at a pager
./install-deps.sh
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "building mergepath ..."
# the build's own note (no nvcc: the CPU backend only) is kept, the compiler lines are not
make -j"$(nproc)" | grep '^mergepath:' || true
$sudo make -s install
run='psql -X -q <test/showcase.sql && SIZES=${SIZES:-10000,100000,1000000,5000000} test/bench/sql_bench.sh'
if [ -n "${PGHOST:-}" ] && psql -X -Atc 'SELECT 1' >/dev/null 2>&1; then
	bash -c "$run"
else
	test/pg_server.sh -- bash -c "$run"
fi
