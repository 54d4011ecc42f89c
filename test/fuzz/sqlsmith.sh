#!/usr/bin/env bash
# sqlsmith (Debian's package) against a throwaway server of its own with
# mergepath preloaded (its nodes on for every sort, join and call that
# qualifies: the CPU backend forced, under which MergepathBatch is placed
# without a GPU)
# and tables of arrays of every shape (test/fuzz/sqlsmith_tables.sql), for a
# bounded time.  Fails on a crashed backend, or on an internal error
# (SQLSTATE XX000) raised by mergepath; PostgreSQL's own functions raise
# some XX000 under sqlsmith, and those are counted apart.  Reports the
# queries run, how many called mergepath, and the errors by SQLSTATE.
#
# usage: test/fuzz/sqlsmith.sh [seconds (default 120)] [seed]
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-120}
seed=${2:-$RANDOM}
bin=$(pg_config --bindir)
command -v sqlsmith >/dev/null || { echo "sqlsmith.sh: no sqlsmith (apt-get install sqlsmith)" >&2; exit 2; }

dir=$(mktemp -d /tmp/mergepath-sqlsmith.XXXXXX)
as=()
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$dir"
	as=(runuser -u postgres --)
fi
port=5432				# a socket of its own, in $dir
stop() { "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1; }
trap 'stop; rm -rf "$dir"' EXIT

"${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres >"$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log"; exit 1; }
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "-k $dir -p $port \
	-c listen_addresses= -c shared_preload_libraries=mergepath -c mergepath.sort_min_rows=0 \
	-c mergepath.batch_min_rows=0 -c mergepath.device=cpu \
	-c log_line_prefix='%e ' -c log_min_error_statement=error -c statement_timeout=2s \
	-c jit=off" start >/dev/null || { cat "$dir/server.log"; exit 1; }
export PGHOST=$dir PGPORT=$port PGUSER=postgres
psql -X -q -c "CREATE DATABASE fuzz" >/dev/null || exit 1
psql -X -q -d fuzz -f test/fuzz/sqlsmith_tables.sql >/dev/null || exit 1

echo "sqlsmith for $secs s, seed $seed"
# every query is printed before it runs; only the counts are kept
timeout "$secs" sqlsmith --target="host=$dir port=$port user=postgres dbname=fuzz" \
	--seed="$seed" --dump-all-queries 2>"$dir/sqlsmith.err" | tee "$dir/queries.sql" |
	awk -v RS=';\n' '{ n++ } /gpu_|mergepath/ { m++ }
		END { printf "%d queries, %d of them calling a mergepath function\n", n, m }'

# the server's errors, by SQLSTATE (the log line's prefix)
awk '$2 == "ERROR:" { n[$1]++ } END { for (s in n) printf "  %s %d\n", s, n[s] }' \
	"$dir/server.log" | sort -k2 -nr | head -12 | sed '1i errors by SQLSTATE (most frequent):'
ours=$(grep -E '^XX000 ERROR: +(gpu_|mergepath|Mergepath)' "$dir/server.log")
theirs=$(grep -cE '^XX000 ERROR:' "$dir/server.log")
crashes=$(grep -E 'terminated by signal|was terminated by exception' "$dir/server.log")
status=0
if [ -n "$crashes" ]; then
	echo "FAILED: a backend crashed:"; echo "$crashes"
	grep -B2 -A2 -E 'terminated by signal' "$dir/server.log" | head -40
	status=1
fi
if [ -n "$ours" ]; then
	echo "FAILED: internal errors from mergepath:"
	grep -A1 -E '^XX000 ERROR: +(gpu_|mergepath|Mergepath)' "$dir/server.log" | head -40
	status=1
fi
echo "internal errors (XX000): $(echo -n "$ours" | grep -c .) from mergepath, $theirs in all"
grep -E '^XX000 ERROR:' "$dir/server.log" | cut -c1-100 | sort | uniq -c | sort -nr | head -5
if [ $status -eq 0 ]; then
	echo "sqlsmith: no crash, no internal error from mergepath"
else
	cp "$dir/server.log" /tmp/mergepath-sqlsmith-server.log
	cp "$dir/queries.sql" /tmp/mergepath-sqlsmith-queries.sql
	echo "the server's log and the queries: /tmp/mergepath-sqlsmith-{server.log,queries.sql}" \
		"(seed $seed)"
fi
exit $status
