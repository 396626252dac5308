#!/bin/bash
# Start-up of the JVM prolog (bin/ledger-prolog, the hook slurmctld pays for when no hook agent answers): one
# START of a fresh job against a ledger service on loopback (MUNGE-signed through a private munged, as on a
# site), per jar, the jars' calls interleaved so that the machine's drift falls on every jar alike. Prints each
# jar's median, min and max wall time in ms. squeue is a stub answering the job's record (no Slurm needed).
#   ledger-service/bench/prolog-startup.sh [RUNS] JAR...   (default jar: cli/target/alpsbridge.jar; RUNS 50)
# Compare two builds: copy the first build's jar away, rebuild, and name both.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=50
if [[ ${1:-} =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
jars=("$@")
[ ${#jars[@]} -gt 0 ] || jars=("$root/cli/target/alpsbridge.jar")
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 0.5; rm -rf "$work"' EXIT
force=(); [ "$(id -u)" = 0 ] && force=(--force)
mungekey --create --keyfile="$work/munge.key"
munged "${force[@]}" --socket="$work/munge.sock" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed"
for _ in $(seq 1 100); do [ -S "$work/munge.sock" ] && break; sleep 0.05; done
pids+=("$(cat "$work/munged.pid")")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listen=127.0.0.1:%s\nmunge_socket=%s\nconsole=false\n' "$port" "$work/munge.sock" > "$work/service.conf"
java -jar "${jars[0]}" ledger --db "sqlite:$work/ledger.db" serve --config "$work/service.conf" > "$work/service.log" 2>&1 &
pids+=($!)
url=http://127.0.0.1:$port
for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
export ALPSBRIDGE_MUNGE_SOCKET=$work/munge.sock
java -jar "${jars[0]}" ledger --db "$url" project add chem --gid 5001 --account chem > /dev/null
java -jar "${jars[0]}" ledger --db "$url" partition batch --cpu-weight 1 > /dev/null
java -jar "${jars[0]}" ledger --db "$url" grant chem --resource cpu --hours 1000000 --from 2020-01-01 --to 2099-01-01 > /dev/null
# squeue -h -t all -j ID -O FIELDS: the job's record (limit 1 h, pending)
mkdir "$work/path"
printf '#!/bin/sh\nfor a; do id=$a; case $p in -j) echo "$a|1:00:00|0:00|None|0|CONFIGURING|"; exit 0;; esac; p=$a; done\n' > "$work/path/squeue"
chmod +x "$work/path/squeue"
printf 'db=%s\nmunge_socket=%s\nlog_file=none\n' "$url" "$work/munge.sock" > "$work/hook.conf"
export ALPSBRIDGE_LEDGER_HOOK_CONFIG=$work/hook.conf PATH=$work/path:$PATH SLURM_JOB_ACCOUNT=chem SLURM_JOB_USER=alice \
  SLURM_JOB_PARTITION=batch SLURM_JOB_NUM_NODES=1 SLURM_JOB_CPUS_PER_NODE=4 SLURM_CLUSTER_NAME=bench
job=1000
call() { # jar -> ms (each jar its own CDS archive, written by its first call)
  job=$((job + 1))
  local t0 t1
  t0=$(date +%s%N)
  SLURM_JOB_ID=$job LEDGER_HOOK_JAR=$1 LEDGER_HOOK_CDS_ARCHIVE=$work/$2.jsa "$root/bin/ledger-prolog" 2>/dev/null \
    || { echo "prolog failed with $1" >&2; exit 1; }
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}
for i in "${!jars[@]}"; do call "${jars[$i]}" "$i" > /dev/null; call "${jars[$i]}" "$i" > /dev/null; done # archives, warm-up
for _ in $(seq 1 "$runs"); do
  for i in "${!jars[@]}"; do call "${jars[$i]}" "$i" >> "$work/times.$i"; done
done
for i in "${!jars[@]}"; do
  sort -n "$work/times.$i" | awk -v jar="${jars[$i]}" '{ t[NR] = $1 } END {
    printf "%-60s median %4d ms  min %4d  max %4d  (%d runs)\n", jar, (NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2), t[1], t[NR], NR }'
done
