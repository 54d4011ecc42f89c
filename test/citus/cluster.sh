#!/usr/bin/env bash
# Runs a command against a throwaway Citus cluster on this machine: a
# coordinator and two workers (WORKERS=n for another number), each its own
# data directory and port, shared_preload_libraries = 'citus,mergepath',
# both extensions created in database postgres on every node and the workers
# registered; then stops and removes them all, also on failure.  Needs Citus
# installed into the server that PG_CONFIG names (test/citus/build.sh).
#
#   test/citus/cluster.sh [-o name=value]... [-w name=value]... -- command [args]
#
# -o sets a setting on every node, -w on the workers only.  GPUS=n gives
# worker i the setting mergepath.gpu_device = i % n (one GPU a worker on a
# host with n GPUs).  CPUS_PER_WORKER=c pins worker i to the host's
# processors i*c .. i*c+c-1 and the coordinator to the last c (counted with
# a core's hardware threads side by side), so that one host
# stands for servers of c cores each (a benchmark of one worker against
# two).  The command reaches the coordinator through PGHOST,
# PGPORT, PGUSER and PGDATABASE; WORKER_PORTS lists the workers' ports.  As
# root the servers run as postgres.
set -euo pipefail
opts="" wopts=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	case $1 in
		-o) opts+=" -c $2"; shift 2 ;;
		-w) wopts+=" -c $2"; shift 2 ;;
		*) echo "usage: test/citus/cluster.sh [-o name=value]... [-w name=value]... -- command" >&2; exit 2 ;;
	esac
done
[ $# -gt 1 ] || { echo "usage: test/citus/cluster.sh [-o name=value]... [-w name=value]... -- command" >&2; exit 2; }
shift
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
[ -e "$("${PG_CONFIG:-pg_config}" --pkglibdir)/citus.so" ] ||
	{ echo "Citus is not installed for $("$bindir/postgres" --version); run test/citus/build.sh" >&2; exit 1; }
nworkers=${WORKERS:-2}
dir=$(mktemp -d /tmp/mergepath-citus.XXXXXX)
chmod 755 "$dir"
as=()
if [ "$(id -u)" -eq 0 ]; then
	id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
	chown postgres "$dir"
	as=(runuser -u postgres --)
fi
nodes=(coordinator)
for ((i = 0; i < nworkers; i++)); do nodes+=("worker$i"); done
stop() {
	for n in "${nodes[@]}"; do
		[ -d "$dir/$n" ] && "${as[@]}" "$bindir/pg_ctl" -D "$dir/$n" -m immediate stop >/dev/null 2>&1
	done
	rm -rf "$dir"
}
trap stop EXIT

# ports no other server of this machine listens on
free_port() {
	local p=$1
	while [ -e "/tmp/.s.PGSQL.$p" ] || [ -e "/var/run/postgresql/.s.PGSQL.$p" ] ||
		[ -e "$dir/.s.PGSQL.$p" ]; do
		p=$((p + 1))
	done
	echo "$p"
}
port=$((50000 + RANDOM % 10000))
declare -A ports
for n in "${nodes[@]}"; do
	port=$(free_port "$port")
	ports[$n]=$port
	port=$((port + 1))
done
# the nodes reach each other over the Unix socket in $dir
cores=$(nproc)
# the processors in the order they are dealt out: a physical core's
# hardware threads side by side, so that on a host with SMT a node's
# processors are whole cores and no two nodes share one
mapfile -t cpu_order < <( (lscpu -p=CPU,CORE 2>/dev/null || seq 0 $((cores - 1)) | sed 's/.*/&,&/') |
	grep -v '^#' | sort -t, -k2,2n -k1,1n | cut -d, -f1)
# pinned NODE: the taskset command that keeps NODE on its processors, if any
pinned() {
	local c=${CPUS_PER_WORKER:-0} first
	[ "$c" -gt 0 ] || return 0
	if [ "$1" = coordinator ]; then first=$((cores - c)); else first=$((${1#worker} * c)); fi
	[ $((first + c)) -le "$cores" ] && [ "$first" -ge 0 ] ||
		{ echo "CPUS_PER_WORKER=$c: $nworkers workers and the coordinator need more than $cores cores" >&2; exit 1; }
	echo taskset -c "$(IFS=,; echo "${cpu_order[*]:first:c}")"
}
start() {
	local n=$1 extra=$2 pin
	pin=$(pinned "$n")
	"${as[@]}" "$bindir/initdb" -D "$dir/$n" -U postgres --auth=trust --no-sync -E UTF8 \
		--locale=C >"$dir/$n.initdb.log" 2>&1 || { cat "$dir/$n.initdb.log"; exit 1; }
	$pin "${as[@]}" "$bindir/pg_ctl" -D "$dir/$n" -l "$dir/$n.log" -w \
		-o "-k $dir -p ${ports[$n]} -c listen_addresses='' -c fsync=off \
			-c shared_preload_libraries=citus,mergepath -c max_prepared_transactions=16 \
			-c citus.enable_statistics_collection=off$opts$extra" start >/dev/null ||
		{ cat "$dir/$n.log"; exit 1; }
}
for n in "${nodes[@]}"; do
	extra=""
	if [ "$n" != coordinator ]; then
		extra=$wopts
		[ -z "${GPUS:-}" ] || extra+=" -c mergepath.gpu_device=$(( ${n#worker} % GPUS ))"
	fi
	start "$n" "$extra"
	"${as[@]}" "$bindir/psql" -X -q -h "$dir" -p "${ports[$n]}" -U postgres -d postgres \
		-v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
		-c "CREATE EXTENSION citus" -c "CREATE EXTENSION mergepath" >/dev/null
done
workers=""
{
	echo "SET client_min_messages = warning;"
	echo "SELECT citus_set_coordinator_host('$dir', ${ports[coordinator]});"
	for ((i = 0; i < nworkers; i++)); do
		echo "SELECT citus_add_node('$dir', ${ports[worker$i]});"
		workers+="${workers:+ }${ports[worker$i]}"
	done
} | "${as[@]}" "$bindir/psql" -X -q -h "$dir" -p "${ports[coordinator]}" -U postgres \
	-d postgres -v ON_ERROR_STOP=1 >/dev/null
export PGHOST=$dir PGPORT=${ports[coordinator]} PGUSER=postgres PGDATABASE=postgres
export WORKER_PORTS=$workers PATH=$bindir:$PATH
"$@"
