#!/usr/bin/env bash
# SQL-level benchmark of gpu_merge against the server that PG* variables
# reach (with mergepath and intarray installed), e.g. `pg_virtualenv
# test/bench/sql_bench.sh`.  SIZES: elements per side, comma-separated.
set -euo pipefail
sizes=${SIZES:-1000,10000,100000,300000,1000000,3000000,10000000}
gpu=$(psql -X -At -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS mergepath" \
	-c "SELECT CASE WHEN mergepath_info()->'gpu'->>'available' = 'true' THEN 'on' ELSE 'off' END" | tail -1)
psql -X -q -v sizes="$sizes" -v gpu="$gpu" -f "$(dirname "$0")/sql_bench.sql"
