#!/usr/bin/env bash
# The merge-join experiment (see merge_join.sql) against the server that PG*
# variables reach, e.g. `test/pg_server.sh -- test/bench/merge_join.sh`.
# ROWS: table sizes, comma-separated; unique keys, then DUP copies of each
# key a side (COPIES: the list of copies to run, default "1 $DUP").  REPS: timed runs a query (median; default 3).  KINDS=on adds
# a left, a full and an anti join; FUNCTIONS=off leaves out the gpu_join rows.
set -euo pipefail
export PSQL_PAGER=cat			# nothing waits at a pager
rows=${ROWS:-100000,1000000,10000000}
dup=${DUP:-4}
copies=${COPIES:-1 $dup}
reps=${REPS:-3}
kinds=${KINDS:-off}
functions=${FUNCTIONS:-on}
gpu=$(psql -X -At -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS mergepath" \
	-c "SELECT CASE WHEN mergepath_info()->'gpu'->>'available' = 'true' THEN 'on' ELSE 'off' END" | tail -1)
for d in $copies; do
	psql -X -q -v rows="$rows" -v dup="$d" -v gpu="$gpu" -v reps="$reps" -v kinds="$kinds" \
		-v functions="$functions" -f "$(dirname "$0")/merge_join.sql"
done
