#!/usr/bin/env bash
# MergepathSort beside PostgreSQL's own Sort (see sort_node.sql), against the
# server that PG* variables reach, e.g. `test/pg_server.sh -- test/bench/sort_node.sh`.
# SIZES: table rows, comma-separated (default 1M and 10M); CASES: which
# queries (default all; see sort_node.sql); SMALL=1 instead times the whole
# query at small sizes, where mergepath.sort_min_rows is chosen; METHODS:
# some of Sort, Sort 4MB, cpu, gpu (comma-separated; default all).
set -euo pipefail
export PSQL_PAGER=cat			# nothing waits at a pager
gpu=$(psql -X -At -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS mergepath" \
	-c "SELECT CASE WHEN mergepath_info()->'gpu'->>'available' = 'true' THEN 'on' ELSE 'off' END" | tail -1)
if [ -n "${SMALL:-}" ]; then
	sizes=${SIZES:-1000,3000,10000,30000,100000}
	cases=${CASES:-int4}
else
	sizes=${SIZES:-1000000,10000000}
	cases=${CASES:-int4,int4x3,int4x3nearly,int8x3,float8x3,group,window}
fi
psql -X -q -v sizes="$sizes" -v cases="$cases" -v gpu="$gpu" -v small="${SMALL:-0}" \
	-v methods="${METHODS:-}" \
	-f "$(dirname "$0")/sort_node.sql"
