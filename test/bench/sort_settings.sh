#!/usr/bin/env bash
# MergepathSort on PostgreSQL's default settings, on work_mem 1GB and with
# many workers, beside PostgreSQL's own plan (see sort_settings.sql), against
# the server that PG* variables reach; it should have
# shared_preload_libraries = 'mergepath', as a server that uses the node has.
# SIZES: table rows, comma-separated (default 1M and 10M); SETTINGS: which
# settings, of 1 (defaults), 2 (1GB, 2 workers), 3 (1GB, 8 workers),
# comma-separated (default all); REPS: timings a cell, the median kept
# (default 3 below 10M rows, 1 from 10M on); QUERIES: of order, window,
# copy, comma-separated (default all).
set -euo pipefail
export PSQL_PAGER=cat			# nothing waits at a pager
gpu=$(psql -X -At -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS mergepath" \
	-c "SELECT CASE WHEN mergepath_info()->'gpu'->>'available' = 'true' THEN 'on' ELSE 'off' END" | tail -1)
sizes=${SIZES:-1000000,10000000}
for n in ${sizes//,/ }; do
	psql -X -q -v n="$n" -v gpu="$gpu" -v settings="${SETTINGS:-1,2,3}" -v reps="${REPS:-}" -v queries="${QUERIES:-}" -f "$(dirname "$0")/sort_settings.sql"
done
