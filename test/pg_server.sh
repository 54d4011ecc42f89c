#!/usr/bin/env bash
# Runs a command against a throwaway server of the PostgreSQL that PG_CONFIG
# names (a build of install-pg.sh, say: pg_virtualenv knows only Debian's
# packaged servers), then stops and removes it, also on failure.
#
#   PG_CONFIG=/opt/mergepath-pg/18/bin/pg_config \
#       test/pg_server.sh [-o name=value]... -- command [args]
#
# -o sets a server setting.  The command finds the server through PGHOST,
# PGPORT, PGUSER and PGDATABASE, and that version's psql first on PATH.  As
# root the server runs as postgres.
set -euo pipefail
opts=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	case $1 in
		-o) opts+=" -c $2"; shift 2 ;;
		*) echo "usage: test/pg_server.sh [-o name=value]... -- command" >&2; exit 2 ;;
	esac
done
[ $# -gt 1 ] || { echo "usage: test/pg_server.sh [-o name=value]... -- command" >&2; exit 2; }
shift
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
dir=$(mktemp -d /tmp/mergepath-pg.XXXXXX)
chmod 755 "$dir"
as=()
if [ "$(id -u)" -eq 0 ]; then
	id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
	chown postgres "$dir"
	as=(runuser -u postgres --)
fi
stop() {
	"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap stop EXIT
"${as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 \
	--locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log"; exit 1; }
# a port no other server of this machine listens on
port=$((50000 + RANDOM % 10000))
while [ -e "/tmp/.s.PGSQL.$port" ] || [ -e "/var/run/postgresql/.s.PGSQL.$port" ]; do
	port=$((port + 1))
done
"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
	-o "-k $dir -p $port -c listen_addresses='' -c fsync=off$opts" start >/dev/null ||
	{ cat "$dir/server.log"; exit 1; }
export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres PATH=$bindir:$PATH
"$@"
