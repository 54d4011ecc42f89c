#!/usr/bin/env bash
# Installs what building and testing mergepath needs on Debian 12, if it is
# missing: PostgreSQL 15 (server, client, PGXS headers; intarray comes with
# the server), make and gcc.  The CUDA toolkit is optional: with nvcc under
# /usr/local/cuda (or on PATH) the CUDA backend is built too, and nvcc needs
# g++ as its host compiler.
set -euo pipefail
pkgs=(postgresql-15 postgresql-client-15 postgresql-server-dev-15 make gcc)
if [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || command -v nvcc >/dev/null; then
	pkgs+=(g++)
fi
need=()
for pkg in "${pkgs[@]}"; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	[ -z "$sudo" ] || sudo -v	# a password, if sudo asks, before the work
	echo "installing with apt-get (a minute or two):"
	echo "${need[*]}" | fold -s -w 74 | sed 's/^/  /'
	# apt's own lines (and debconf's notes) only when something goes wrong;
	# a line every 15 s while it works
	log=$(mktemp)
	{ $sudo apt-get update -q && $sudo env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q "${need[@]}"; } >"$log" 2>&1 &
	apt=$! t0=$SECONDS
	while kill -0 $apt 2>/dev/null; do
		for _ in $(seq 1 15); do
			sleep 1
			kill -0 $apt 2>/dev/null || break
		done
		kill -0 $apt 2>/dev/null && echo "  ... apt-get, $((SECONDS - t0)) s"
	done
	if ! wait $apt; then
		cat "$log"; rm -f "$log"
		echo "install-deps.sh: apt-get failed" >&2
		exit 1
	fi
	rm -f "$log"
	echo "installed ($((SECONDS - t0)) s)"
fi
