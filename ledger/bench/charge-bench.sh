#!/usr/bin/env bash
# Durable charge events per second with 16 and then 64 clients, SQLite and PostgreSQL, beside pgbench's
# simple-update TPS on the same server in the same run (issues 7 and 21). Starts a throwaway PostgreSQL (initdb in a temp dir, trust
# auth, 127.0.0.1 only, default durability: fsync=on, synchronous_commit=on) on PORT, runs
# `alpsbridge ledger bench`, and stops that server by its data directory.
#
#   ledger/bench/charge-bench.sh [PORT] [-- extra 'ledger bench' options, e.g. --seconds 30 --postgresql-only]
#
# Env CLIENTS (default 16,64): the client counts, each run in turn.
# As root the server runs as user postgres (PostgreSQL refuses root). Default PORT 19390 (the ledger's range).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
port=${1:-19390}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/pg_ctl" ] || { echo "charge-bench: no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql)" >&2; exit 1; }
dir=$(mktemp -d /tmp/alpsbridge-bench-pg.XXXXXX)
as=()
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; as=(runuser -u postgres --); fi
stop() { "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap stop EXIT
"${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U ledger -E UTF8 >/dev/null
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -w -l "$dir/server.log" \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $dir -c max_connections=200" start >/dev/null
"${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U ledger bench
version=$("$bin/postgres" --version)
echo "$version on 127.0.0.1:$port; $(nproc) cores; kernel $(uname -r)"
"$root/bin/alpsbridge" ledger bench --clients "${CLIENTS:-16,64}" \
    --postgresql "jdbc:postgresql://127.0.0.1:$port/bench?user=ledger" --pgbench "$bin/pgbench" "$@"
