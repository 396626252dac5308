#!/bin/bash
# What the bundled Java runtime costs and saves, side by side in one run: its size (on disk, and in the alpsbridge
# RPM and the tarball), and the start-up of `alpsbridge --version` and of the Java apbasil client (one call that
# finds no proxy) on the bundled runtime and on the system JDK (ALPSBRIDGE_RUNTIME=system: the java on PATH),
# interleaved, median of RUNS each. Needs a built dist (mvn -DskipTests package: target/tarball/alpsbridge-*).
#   dist/src/build/bench-runtime.sh [RUNS]      (default 21)
set -euo pipefail
dist=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-21}
home=$(ls -d "$dist"/target/tarball/alpsbridge-*/ | head -1)
home=${home%/}
command -v java >/dev/null || { echo "bench-runtime: no java on PATH to compare with" >&2; exit 1; }
"$home/lib/alpsbridge/make-archives" >/dev/null 2>&1 || true   # the bundled runtime's class archives
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
query='<?xml version="1.0"?><BasilRequest protocol="1.3" method="QUERY" type="ENGINE"/>'
apbasil() { echo "$query" | APBASIL_PROXY=127.0.0.1:1 APBASIL_AUTH=none APBASIL_RETRIES=0 APBASIL_CONFIG=/dev/null \
  "$home/lib/alpsbridge/apbasil-jvm"; }
declare -A times
for _ in $(seq "$runs"); do
  for runtime in bundled system; do
    times[version-$runtime]+="$(ALPSBRIDGE_RUNTIME=$runtime ms "$home/bin/alpsbridge" --version) "
    times[apbasil-$runtime]+="$(ALPSBRIDGE_RUNTIME=$runtime ms apbasil) "
  done
done
echo "runtime: $(du -sh "$home/lib/alpsbridge/runtime" | cut -f1) on disk, Java $(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' \
  "$home/lib/alpsbridge/runtime/release"), needs glibc $(cat "$dist/target/runtime.glibc" 2>/dev/null || echo '?')" \
  "($(cat "$dist/target/runtime.modules" 2>/dev/null))"
rpm=$(ls "$dist"/target/rpmbuild/RPMS/x86_64/alpsbridge-[0-9]*-1.x86_64.rpm 2>/dev/null | head -1 || true)
[ -z "$rpm" ] || echo "alpsbridge RPM: $(du -h "$rpm" | cut -f1); .deb (no runtime): $(du -h "$dist"/target/alpsbridge_*_all.deb | cut -f1)"
echo "tarball: $(du -h "$dist"/target/alpsbridge-*.tar.gz | cut -f1)"
echo "system JDK: $(readlink -f "$(command -v java)") ($(java -version 2>&1 | head -1))"
printf '%-34s %12s %12s\n' "median of $runs (ms)" bundled system
for what in version apbasil; do
  label=$([ $what = version ] && echo 'alpsbridge --version' || echo 'apbasil-jvm (no proxy)')
  printf '%-34s %12s %12s\n' "$label" "$(tr ' ' '\n' <<<"${times[$what-bundled]}" | grep . | median)" \
    "$(tr ' ' '\n' <<<"${times[$what-system]}" | grep . | median)"
done
