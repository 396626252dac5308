#!/bin/bash
# The RPMs, built from the tarball exactly as a site builds them (rpmbuild -ta), in a private %_topdir
# (target/rpmbuild), twice: release 1, and release 2 for the install test's upgrade. Run by dist's pom at package,
# after the tarball, where rpmbuild is installed (Debian: the rpm package):  rpm.sh DIST_TARGET VERSION PROJECT_ROOT
# --nodeps: Debian registers nothing in rpm's database, so BuildRequires (gcc, munge-devel, slurm-devel...)
# cannot be checked here; the headers are Debian's (libmunge-dev, libssl-dev, libslurm-dev).
# slurmctld's plugins are built where the .deb's are (the configured Slurm source .ci/slurm-plugin-source keeps).
set -euo pipefail
target=$1 version=$2 root=$3
top=$target/rpmbuild
rm -rf "$top" && install -d "$top"
defines=(--define "_topdir $top" --define "_tmppath $top/tmp")
if [ -d "$target/slurmctld-plugins-root" ]; then
  defines+=(--define "slurm_src $(bash "$root/.ci/slurm-plugin-source")")
fi
if [ ! -f /usr/include/slurm/spank.h ]; then defines+=(--without spank); fi
for rel in 1 2; do
  rpmbuild -ta --nodeps --quiet "${defines[@]}" --define "rel $rel" "$target/alpsbridge-$version.tar.gz" \
    > "$top/build-$rel.log" 2>&1 || { cat "$top/build-$rel.log" >&2; echo "rpm: rpmbuild -ta failed (above)" >&2; exit 1; }
done
echo "rpm: $(cd "$top/RPMS" && ls -1 */*.rpm | tr '\n' ' ')"
