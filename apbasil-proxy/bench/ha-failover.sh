#!/usr/bin/env bash
# Two proxies, one Cray (issue 37): the time from kill -9 of the active 'alpsbridge proxy serve' to the first
# successful bin/apbasil call (QUERY ENGINE) through the survivor, RUNS times, then the median and maximum.
# Starts a throwaway PostgreSQL (initdb in a temp dir, trust auth, 127.0.0.1 only) on PORT for ha_db and stops it
# by its data directory; the two proxies listen on PORT+1 and PORT+2 with emulator backends and auth=none.
#
#   apbasil-proxy/bench/ha-failover.sh [PORT]
#
# Env RUNS (default 5), LEASE (ha_lease, default 5). Each call of bin/apbasil is a fresh JVM (~0.1-0.3 s here),
# which the figure includes, as a scheduler's retry would. As root the server runs as user postgres.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
port=${1:-19392}
runs=${RUNS:-5}
lease=${LEASE:-5}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/pg_ctl" ] || { echo "ha-failover: no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql)" >&2; exit 1; }
dir=$(mktemp -d /tmp/alpsbridge-ha-bench.XXXXXX)
as=()
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; as=(runuser -u postgres --); fi
pids=()
stop() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
"${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U alpsbridge -E UTF8 --no-sync >/dev/null
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -w -l "$dir/server.log" -o "-p $port -c listen_addresses=127.0.0.1 -k $dir" start >/dev/null
"$root/bin/alpsbridge" --version >/dev/null 2>&1 || true # builds the jar once if sources changed

serve() { # PORT DB LOG
  "$root/bin/alpsbridge" proxy serve --listen "127.0.0.1:$1" --backend emulator:xc30:16 --auth none --user-ids learn \
      --set "ha_db=$2" --set "ha_lease=$lease" >"$3" 2>&1 &
  pids+=($!)
  echo $!
}
engine='<?xml version="1.0"?><BasilRequest protocol="1.3" method="QUERY" type="ENGINE"/>'
call() { echo "$engine" | APBASIL_AUTH=none APBASIL_PROXY="127.0.0.1:$1" APBASIL_RETRIES=0 "$root/bin/apbasil" 2>/dev/null \
    | grep -q 'status="SUCCESS"'; }
await() { for _ in $(seq 300); do call "$1" && return 0; sleep 0.1; done; echo "ha-failover: 127.0.0.1:$1 never answered" >&2; exit 1; }

echo "$("$bin/postgres" --version); $(nproc) cores; ha_lease=$lease s; $runs runs"
times=()
for run in $(seq "$runs"); do
  "${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U alpsbridge "pair$run"
  db="jdbc:postgresql://127.0.0.1:$port/pair$run?user=alpsbridge"
  a=$(serve $((port + 1)) "$db" "$dir/active-$run.log"); await $((port + 1))
  b=$(serve $((port + 2)) "$db" "$dir/standby-$run.log")
  for _ in $(seq 100); do grep -q "availability: this proxy is" "$dir/standby-$run.log" 2>/dev/null && break; sleep 0.1; done
  if call $((port + 2)); then echo "ha-failover: the standby answered ENGINE while the active proxy ran" >&2; exit 1; fi
  sleep "0.$((RANDOM % 10))" # kill at a random point of the renewal cycle
  t0=$(date +%s%N); kill -9 "$a"
  until call $((port + 2)); do sleep 0.05; done
  ms=$((($(date +%s%N) - t0) / 1000000)); times+=("$ms")
  echo "run $run: kill -9 to the first successful call through the survivor: $ms ms"
  kill "$b"; wait "$b" 2>/dev/null || true
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
echo "median $((sorted[(runs - 1) / 2])) ms, max ${sorted[runs - 1]} ms (target <= 10000 ms)"
