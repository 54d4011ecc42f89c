#!/usr/bin/env bash
# The showcase, from a fresh Debian 12 machine: installs what is missing,
# builds and installs mergepath, starts a throwaway PostgreSQL (unless PG*
# variables already reach a server), runs example queries, and times
# gpu_merge on each backend beside what PostgreSQL offers.
set -euo pipefail
cd "$(dirname "$0")"
./install-deps.sh
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
make -j"$(nproc)" >/dev/null
$sudo make install >/dev/null
run='psql -X -q -f test/showcase.sql && SIZES=${SIZES:-10000,100000,1000000,5000000} test/bench/sql_bench.sh'
if [ -n "${PGHOST:-}" ] && psql -X -Atc 'SELECT 1' >/dev/null 2>&1; then
	bash -c "$run"
else
	pg_virtualenv bash -c "$run"
fi
