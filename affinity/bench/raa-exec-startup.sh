#!/usr/bin/env bash
# Start-up cost of the per-task wrapper, side by side in one run (compare rows, not absolutes: 2 shared cores).
#   affinity/bench/raa-exec-startup.sh [RUNS]        (default 30 runs each, after 3 warm-ups)
# Every row execs /bin/true (or prints the same mask), so the figures are the wrapper's own cost:
#   true                 the floor: exec of /bin/true from the shell
#   jvm-floor            `java -version` with the wrapper's JVM flags: the JVM's own boot, no application class
#   raa-exec             bin/raa-exec as shipped: AppCDS archive, C1 only, pre-unpacked JNA library
#   raa-exec no-appcds   the same JVM flags without the AppCDS archive (JDK default CDS only)
#   raa-exec jna-unpack  as shipped but JNA unpacks libjnidispatch.so from its jar at every start
#   raa-exec plain-jvm   `java -cp ... RaaExec` with no flags at all
#   raa-exec affinity    the wrapper as the SPANK plugin's mask generator (prints the masks, no JNA, no exec)
#   alpsbridge affinity  the picocli launcher printing the same task's mask (shaded jar)
# Uses hyperfine when installed (apt-get install hyperfine) and prints wall-time medians and CPU time (user +
# system) per start, each also as a ratio to raa-exec; else a timed loop (wall time only).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
runs=${1:-30}
export SLURM_LOCALID=0 SLURM_NTASKS_PER_NODE=1 SLURM_CPUS_PER_TASK=1
jar="$root/affinity/target/affinity-0.1.0-SNAPSHOT.jar"
cp="$jar:$root/affinity/target/lib/jna.jar"
cache="$root/affinity/target/raa-exec"
main=org.alpsbridge.affinity.exec.RaaExec
"$root/bin/raa-exec" -- /bin/true          # builds the jars, the archive and the unpacked library if missing
"$root/bin/alpsbridge" --version >/dev/null
flags="-XX:TieredStopAtLevel=1 -XX:-UsePerfData"
declare -a names=(true jvm-floor raa-exec raa-exec-no-appcds raa-exec-jna-unpack raa-exec-plain-jvm raa-exec-affinity alpsbridge-affinity)
declare -a cmds=(
  "/bin/true"
  "java $flags -version"
  "$root/bin/raa-exec -- /bin/true"
  "java $flags -Djna.boot.library.path=$cache -cp $cp $main -- /bin/true"
  "java -XX:SharedArchiveFile=$cache/raa-exec.jsa -Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off $flags -cp $cp $main -- /bin/true"
  "java -cp $cp $main -- /bin/true"
  "$root/bin/raa-exec affinity --topology sysfs -n1 -c1 --format tasks"
  "$root/bin/alpsbridge affinity --topology sysfs -n1 -c1 --format tasks"
)
echo "raa-exec start-up, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
if command -v hyperfine >/dev/null; then
  args=()
  for i in "${!names[@]}"; do args+=(-n "${names[$i]}" "${cmds[$i]}"); done
  json="$root/affinity/target/raa-exec-startup.json"
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$json" "${args[@]}" >&2
  # Wall time swings with the machine's load; CPU time (user + system) much less: both, as ratios to raa-exec.
  python3 - "$json" <<'PY'
import json, statistics, sys
rows = json.load(open(sys.argv[1]))["results"]
def cpu(r):
    return r["user"] + r["system"]
base = next(r for r in rows if r["command"] == "raa-exec")
print(f"{'command':22} {'wall median':>12} {'x raa-exec':>10} {'cpu mean':>10} {'x raa-exec':>10}")
for r in rows:
    print(f"{r['command']:22} {r['median'] * 1000:9.1f} ms {r['median'] / base['median']:10.2f}"
          f" {cpu(r) * 1000:7.1f} ms {cpu(r) / cpu(base):10.2f}")
PY
else
  for i in "${!names[@]}"; do
    for _ in 1 2 3; do ${cmds[$i]} >/dev/null 2>&1; done
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do ${cmds[$i]} >/dev/null 2>&1; done
    us=$(( ($(date +%s%N) - start) / runs / 1000 ))
    awk -v n="${names[$i]}" -v us="$us" 'BEGIN { printf "%-22s %8.1f ms\n", n, us / 1000 }' 
  done
fi
