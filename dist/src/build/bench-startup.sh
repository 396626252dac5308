#!/bin/bash
# Start-up of the installed apbasil against the checkout's bin/apbasil and a JVM hello world, in one run
# (hyperfine, interleaved): each makes one QUERY(ENGINE) call through a proxy daemon on loopback, so the
# figure is what a scheduler pays per BASIL call. Needs the alpsbridge package installed (dpkg -i
# dist/target/alpsbridge_*_all.deb) and the checkout built; prints hyperfine's table.
#   dist/src/build/bench-startup.sh [RUNS]      (default 30)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
runs=${1:-30}
work=$(mktemp -d)
trap 'kill "$daemon" 2>/dev/null || true; rm -rf "$work"' EXIT
java -jar "$root/cli/target/alpsbridge.jar" proxy serve --backend emulator:xc30:16 --auth none \
  --listen "unix:$work/proxy.sock" --policy off > "$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 1 300); do [ -S "$work/proxy.sock" ] && break; sleep 0.1; done
printf '<?xml version="1.0"?>\n<BasilRequest protocol="1.3" method="QUERY" type="ENGINE"/>\n' > "$work/engine.xml"
cat > "$work/Hello.java" <<'JAVA'
public class Hello { public static void main(String[] a) { System.out.println("hello"); } }
JAVA
javac -d "$work" "$work/Hello.java"
export APBASIL_PROXY="unix:$work/proxy.sock" APBASIL_AUTH=none APBASIL_CONFIG=/dev/null
# The checkout's client writes its archive on its first call: make that call before measuring.
"$root/bin/apbasil" < "$work/engine.xml" > /dev/null
# Through a shell (Debian 12's hyperfine has no --input); hyperfine subtracts the shell's own start.
hyperfine --warmup 3 --runs "$runs" \
  -n 'java Hello (JVM hello world)' "java -XX:TieredStopAtLevel=1 -XX:-UsePerfData -cp $work Hello" \
  -n 'bin/apbasil (checkout)' "$root/bin/apbasil < $work/engine.xml" \
  -n '/usr/bin/apbasil (installed)' "/usr/bin/apbasil < $work/engine.xml"
