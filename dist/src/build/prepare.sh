#!/bin/bash
# Lays out what the alpsbridge package and the tarball hold, under target/root/ (the installed tree: usr/,
# etc/), from the jars the reactor built; tarball.sh packs it at package, and the .deb's contents are the paths the
# layout declares for it (deb-data.sh, at the end). Run by dist's pom at prepare-package:
#   prepare.sh PROJECT_ROOT DIST_TARGET VERSION
# Everything generated comes from the code (man pages and completion from picocli, conf files from the
# key tables), so nothing here can drift from --help.
set -euo pipefail
root=$1 target=$2 version=$3
# As jdeb writes it: Debian orders 0.1.0~SNAPSHOT before 0.1.0, so a snapshot never shadows its release.
debversion=${version/-SNAPSHOT/\~SNAPSHOT}
src=$root/dist/src
tree=$target/root
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jar=$root/cli/target/alpsbridge.jar
# (the compiled packages' trees too: a build without their profiles must not put stale ones in the tarball)
rm -rf "$tree" "$target/install-files" "$target/ledger-hooks-root" "$target/apbasil-root" "$target/slurmctld-plugins-root"
install -d "$tree/usr/bin" "$tree/usr/share/alpsbridge" "$tree/usr/lib/alpsbridge" "$tree/usr/share/man/man1" \
  "$tree/usr/share/bash-completion/completions" "$tree/etc/alpsbridge" "$tree/etc/default" \
  "$tree/lib/systemd/system" "$tree/usr/share/doc/alpsbridge" "$tree/usr/share/lintian/overrides" \
  "$tree/usr/share/alpsbridge/prometheus"

# The launchers are the checkout's own bin/ scripts: each finds its layout (installed: share/alpsbridge/ beside
# its bin/ or lib/alpsbridge/; else the checkout), so one source carries their java options and class paths.
install -m 0755 "$root/bin/alpsbridge" "$root/bin/raa-exec" "$tree/usr/bin/"
# The Java drop-in client: the reference, and the fallback where the native one (/usr/bin/apbasil, package
# alpsbridge-apbasil, apbasil.sh) is not installed.
install -m 0755 "$root/bin/apbasil" "$tree/usr/lib/alpsbridge/apbasil-jvm"
# The JVM Slurm hook, where the hooks' C client looks for its fallback when no hook agent listens. The client
# itself (/usr/bin/ledger-prolog, ledger-epilog) is compiled: it is the alpsbridge-ledger-hooks package's
# (hooks.sh), not this architecture-independent one's.
install -m 0755 "$root/bin/ledger-hook" "$tree/usr/lib/alpsbridge/ledger-hook-jvm"
install -m 0755 "$src/lib/make-archives" "$tree/usr/lib/alpsbridge/"
install -m 0644 "$jar" "$tree/usr/share/alpsbridge/alpsbridge.jar"
install -m 0644 "$root"/affinity/target/affinity-*[0-9T].jar "$tree/usr/share/alpsbridge/affinity.jar"
install -m 0644 "$root/affinity/target/lib/jna.jar" "$tree/usr/share/alpsbridge/jna.jar"

"$java" -cp "$jar" org.alpsbridge.cli.InstallFiles "$target/install-files" "$version" >/dev/null
for page in "$target"/install-files/man/man1/*.1 "$src"/man/*.1; do
  gzip -9n < "$page" > "$tree/usr/share/man/man1/$(basename "$page").gz"
done
# Sourced by bash-completion, not run: no #! line (picocli writes one).
sed '1{/^#!/d}' "$target/install-files/bash-completion/alpsbridge" > "$tree/usr/share/bash-completion/completions/alpsbridge"
install -m 0644 "$target"/install-files/etc/*.conf "$src/etc/ledger-hook.conf" "$tree/etc/alpsbridge/"
install -m 0644 "$src/default/alpsbridge-proxy" "$src/default/alpsbridge-ledger" "$tree/etc/default/"
install -m 0644 "$src/systemd/alpsbridge-proxy.service" "$src/systemd/alpsbridge-ledger.service" \
  "$src/systemd/alpsbridge-ledger-hook-agent.service" "$src/systemd/alpsbridge-affinity-agent.service" \
  "$src/systemd/alpsbridge-ledger-slurm-sync.service" "$src/systemd/alpsbridge-ledger-slurm-sync.timer" \
  "$tree/lib/systemd/system/"
install -m 0644 "$src/doc/copyright" "$tree/usr/share/doc/alpsbridge/"
install -m 0644 "$src/lintian/alpsbridge" "$tree/usr/share/lintian/overrides/"
# The admin's quick start, not the developers' README (which links module READMEs the package does not hold)
install -m 0644 "$src/doc/README.Debian" "$tree/usr/share/doc/alpsbridge/README.Debian"
# What an operations team loads into Prometheus and Grafana, and the guide their runbook links point to
install -m 0644 "$src/prometheus/alpsbridge-rules.yml" "$src/prometheus/alpsbridge-dashboard.json" \
  "$tree/usr/share/alpsbridge/prometheus/"
# The guides a site reads, per reader (the repository's docs/; the engineers' pages stay there)
for guide in admin-guide admin-proxy admin-ledger admin-affinity operator-guide user-guide; do
  install -m 0644 "$root/docs/$guide.md" "$tree/usr/share/doc/alpsbridge/$guide.md"
done
commit=$(git -C "$root" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
{
  echo "alpsbridge ($debversion) unstable; urgency=medium"
  echo
  echo "  * Build of alpsbridge $version from commit $commit."
  echo
  echo " -- alpsbridge developers <alpsbridge-devel@lists.example.org>  $(LC_ALL=C date -R -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}")"
} | gzip -9n > "$tree/usr/share/doc/alpsbridge/changelog.gz"

# The class list behind apbasil's archive: a real call (QUERY INVENTORY, the call a scheduler makes most)
# from the drop-in client through a daemon on an emulated machine. RESERVE and RELEASE load the same client
# classes: the client passes the document through without reading it.
work=$(mktemp -d)
daemon=
trap 'if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
"$java" -jar "$jar" proxy serve --backend emulator:xc30:16 --auth none --listen "unix:$work/proxy.sock" \
  --policy off > "$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 1 300); do [ -S "$work/proxy.sock" ] && break; sleep 0.1; done
[ -S "$work/proxy.sock" ] || { echo "prepare: the daemon did not start:" >&2; cat "$work/daemon.log" >&2; exit 1; }
printf '<?xml version="1.0"?>\n<BasilRequest protocol="1.3" method="QUERY" type="INVENTORY"/>\n' > "$work/request.xml"
APBASIL_PROXY="unix:$work/proxy.sock" APBASIL_AUTH=none APBASIL_CONFIG=/dev/null \
  "$java" -Xshare:off -XX:DumpLoadedClassList="$tree/usr/share/alpsbridge/apbasil.classlist" -XX:TieredStopAtLevel=1 \
  -cp "$tree/usr/share/alpsbridge/alpsbridge.jar" org.alpsbridge.proxy.client.Apbasil < "$work/request.xml" > "$work/out.xml"
grep -q 'status="SUCCESS"' "$work/out.xml" \
  || { echo "prepare: the training call failed:" >&2; cat "$work/out.xml" "$work/daemon.log" >&2; exit 1; }
chmod 0644 "$tree/usr/share/alpsbridge/apbasil.classlist"

# The .deb: its maintainer scripts and the conffiles and data archive the layout gives it.
rm -rf "$target/alpsbridge-control" && install -d "$target/alpsbridge-control"
cp "$src"/deb/alpsbridge/* "$target/alpsbridge-control/"
bash "$src/build/deb-data.sh" "$src/layout" alpsbridge "$tree" "$target/alpsbridge-data.tar" "$target/alpsbridge-control"
