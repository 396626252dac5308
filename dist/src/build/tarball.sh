#!/bin/bash
# The tarball: target/root (prepare.sh) under one directory, for sites without dpkg (unpack anywhere, e.g.
# /opt; run lib/alpsbridge/make-archives once; settings under etc/alpsbridge, or the /etc ones), with the native
# apbasil client as bin/apbasil and the ledger hooks' C client as bin/ledger-prolog, bin/ledger-epilog and bin/ledger-submit when this build compiled it (hooks.sh, on
# amd64 Linux), the sources of slurmctld's plugins with their rebuild script (not the plugins: below), and the Java
# runtime (runtime.sh) as lib/alpsbridge/runtime, so that bin/alpsbridge runs with no Java on the host.
# The same tarball is the RPMs' source: alpsbridge.spec at its top, and under src/ the C sources the spec compiles
# and the layout its %files lists come from (rpmbuild -ta alpsbridge-VERSION.tar.gz).
# The two C programs are the tarball's own copies (glibc-compat.sh: the packages' compiled again for SLES 15's older
# glibc), on x86-64; elsewhere the packages'.
# Run by dist's pom at package, after every tree is laid out:  tarball.sh DIST_TARGET VERSION PROJECT_ROOT
set -euo pipefail
target=$1 version=$2 root=$3
src=$root/dist/src
tree=$target/root
hooks=$target/ledger-hooks-root
name=alpsbridge-$version
compat=$target/glibc-compat
"$(dirname "$0")/glibc-compat.sh" "$root" "$target"
rm -rf "$target/tarball" && install -d "$target/tarball/$name"
cp -a "$tree/usr/." "$target/tarball/$name/"
rm -rf "$target/tarball/$name/share/lintian"
cp -a "$tree/etc" "$tree/lib" "$target/tarball/$name/"
if [ -f "$hooks/usr/bin/ledger-prolog" ]; then
  # Its fallback is compiled in as /usr/lib/alpsbridge/ledger-hook-jvm: a tarball site names its own with
  # jvm_hook= in /etc/alpsbridge/ledger-hook.conf (README, "Install").
  prolog=$hooks/usr/bin/ledger-prolog
  [ ! -f "$compat/ledger-prolog" ] || prolog=$compat/ledger-prolog
  install -m 0755 "$prolog" "$target/tarball/$name/bin/ledger-prolog"
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
if [ -f "$compat/apbasil" ]; then
  install -m 0755 "$compat/apbasil" "$target/tarball/$name/bin/apbasil"
elif [ -f "$target/apbasil-root/usr/bin/apbasil" ]; then
  install -m 0755 "$target/apbasil-root/usr/bin/apbasil" "$target/tarball/$name/bin/apbasil"
else
  install -m 0755 "$tree/usr/lib/alpsbridge/apbasil-jvm" "$target/tarball/$name/bin/apbasil"
fi
cp -a "$target/runtime" "$target/tarball/$name/lib/alpsbridge/runtime"
install -m 0644 "$root/docs/install-rpm.md" "$target/tarball/$name/share/doc/alpsbridge/README.RPM"
# The RPMs' source: the spec (its version and changelog filled in here) and what it compiles and reads.
s=$target/tarball/$name/src
install -d "$s/apbasil-c" "$s/ledger-c" "$s/spank"
install -m 0644 "$root"/apbasil-proxy/src/main/c/{Makefile,*.c,*.h} "$s/apbasil-c/"
install -m 0644 "$root"/ledger-service/src/main/c/{Makefile,*.c,*.h} "$root/ledger-service/src/main/lua/job_submit.lua" \
  "$s/ledger-c/"
install -m 0644 "$root"/affinity/spank/{Makefile,*.c,*.h,README.md} "$src/deb/spank/reduced-auto-affinity.conf" "$s/spank/"
install -m 0755 "$src/lib/rebuild-slurmctld-plugins" "$src/rpm/layout-files" "$s/"
install -m 0644 "$src/layout" "$s/"
commit=$(git -C "$root" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
sed -e "s/@UPSTREAM@/$version/g" -e "s/@RPM_VERSION@/${version//-/\~}/g" -e "s/@COMMIT@/$commit/g" \
  -e "s/@CHANGELOG_DATE@/$(LC_ALL=C date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" '+%a %b %d %Y')/g" \
  "$src/rpm/alpsbridge.spec.in" > "$target/tarball/$name/alpsbridge.spec"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-0}" \
  -C "$target/tarball" -czf "$target/$name.tar.gz" "$name"
