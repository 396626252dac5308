#!/bin/bash
# The tarball: target/root (prepare.sh) under one directory, for sites without dpkg (unpack anywhere, e.g.
# /opt; run lib/alpsbridge/make-archives once; settings under etc/alpsbridge, or the /etc ones), with the native
# apbasil client as bin/apbasil and the ledger hooks' C client as bin/ledger-prolog, bin/ledger-epilog and bin/ledger-submit when this build compiled it (hooks.sh, on
# amd64 Linux), and the sources of slurmctld's plugins with their rebuild script (not the plugins: below). Run by dist's pom at package, after every tree is laid out:  tarball.sh DIST_TARGET VERSION
set -euo pipefail
target=$1 version=$2
tree=$target/root
hooks=$target/ledger-hooks-root
name=alpsbridge-$version
rm -rf "$target/tarball" && install -d "$target/tarball/$name"
cp -a "$tree/usr/." "$target/tarball/$name/"
rm -rf "$target/tarball/$name/share/lintian"
cp -a "$tree/etc" "$tree/lib" "$target/tarball/$name/"
if [ -f "$hooks/usr/bin/ledger-prolog" ]; then
  # Its fallback is compiled in as /usr/lib/alpsbridge/ledger-hook-jvm: a tarball site names its own with
  # jvm_hook= in /etc/alpsbridge/ledger-hook.conf (README, "Install").
  install -m 0755 "$hooks/usr/bin/ledger-prolog" "$target/tarball/$name/bin/ledger-prolog"
  ln -s ledger-prolog "$target/tarball/$name/bin/ledger-epilog"
  ln -s ledger-prolog "$target/tarball/$name/bin/ledger-submit"
  # job_submit.lua names /usr/bin/ledger-submit: a tarball site edits LEDGER_SUBMIT at its top
  install -D -m 0644 "$hooks/usr/share/alpsbridge-ledger-hooks/job_submit.lua" \
    "$target/tarball/$name/share/alpsbridge-ledger-hooks/job_submit.lua"
fi
# slurmctld's plugins: not the .so files, which load only into the Debian slurmctld they were built against (a
# tarball site runs a Slurm of its own); their sources and the script that builds them against that Slurm's
# configured source tree (share/alpsbridge-slurmctld-plugins/rebuild SLURM_SRC OUT_DIR).
plugins=$target/slurmctld-plugins-root/usr/share/alpsbridge-slurmctld-plugins
if [ -d "$plugins" ]; then
  cp -a "$plugins" "$target/tarball/$name/share/"
fi
# bin/apbasil: the native client when this build compiled it (apbasil.sh), else the Java one; the Java one stays
# as lib/alpsbridge/apbasil-jvm either way.
if [ -f "$target/apbasil-root/usr/bin/apbasil" ]; then
  install -m 0755 "$target/apbasil-root/usr/bin/apbasil" "$target/tarball/$name/bin/apbasil"
else
  install -m 0755 "$tree/usr/lib/alpsbridge/apbasil-jvm" "$target/tarball/$name/bin/apbasil"
fi
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-0}" \
  -C "$target/tarball" -czf "$target/$name.tar.gz" "$name"
