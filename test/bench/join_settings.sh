#!/usr/bin/env bash
# MergepathJoin on PostgreSQL's default settings, on work_mem 1GB with 2 and
# with 8 workers, beside PostgreSQL's own plan (see join_settings.sql),
# against the server that PG* variables reach; it should have
# shared_preload_libraries = 'mergepath', as a server that uses the node has.
# SIZES: rows of the outer tables, comma-separated (default 1M and 10M);
# COPIES: copies of each key, space-separated (default "1 4"); SETTINGS: of
# 1 (defaults), 2 (1GB, 2 workers), 3 (1GB, 8 workers), comma-separated
# (default all); REPS: timings a cell, the median kept (default 3 below 10M
# rows, 1 from 10M on).
set -euo pipefail
export PSQL_PAGER=cat			# nothing waits at a pager
gpu=$(psql -X -At -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS mergepath" \
	-c "SELECT CASE WHEN mergepath_info()->'gpu'->>'available' = 'true' THEN 'on' ELSE 'off' END" | tail -1)
sizes=${SIZES:-1000000,10000000}
for n in ${sizes//,/ }; do
	for c in ${COPIES:-1 4}; do
		psql -X -q -v n="$n" -v copies="$c" -v gpu="$gpu" -v settings="${SETTINGS:-1,2,3}" \
			-v reps="${REPS:-}" -f "$(dirname "$0")/join_settings.sql"
	done
done
