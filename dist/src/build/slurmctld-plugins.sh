#!/bin/bash
# Builds slurmctld's two plugins, prep/ledger and site_factor/ledger (ledger-service/src/main/c, the Makefile's
# `plugins` target), against the configured source of the slurmctld installed from Debian's packages, and lays out
# the alpsbridge-slurmctld-plugins package under target/slurmctld-plugins-root: both .so files in Debian's Slurm
# plugin directory, their sources and the rebuild script (for another Slurm), and a control file that pins that
# exact slurmctld (the plugins use slurmctld's own structures: they run only in the build they were compiled for);
# the .deb's contents come from the layout (deb-data.sh).
# Run by dist's pom where /usr/sbin/slurmctld is installed:  slurmctld-plugins.sh PROJECT_ROOT DIST_TARGET
set -euo pipefail
. "$(dirname "$0")/companion.sh"
root=$1 target=$2
src=$root/dist/src
tree=$target/slurmctld-plugins-root
build=$target/slurmctld-plugins-build
plugindir=usr/lib/x86_64-linux-gnu/slurm-wlm
share=usr/share/alpsbridge-slurmctld-plugins
leave_out="or build without the alpsbridge-slurmctld-plugins package: mvn -P '!slurmctld-plugins' ..."
fail() { echo "slurmctld-plugins: $*; $leave_out" >&2; exit 1; }

version=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
[ -n "$version" ] || fail "slurmctld is not installed from Debian's packages (the package pins Debian's slurmctld)"
# The configured source of the installed version: .ci/slurm-plugin-source prepares it once (Debian's source package,
# fetched and configured, about a minute; .ci/run does it before the build) and names its cached tree after that.
slurm_src=$(bash "$root/.ci/slurm-plugin-source") \
  || fail "the configured source of slurmctld $version could not be prepared (.ci/slurm-plugin-source, above)"
built_for=$(sed -n '1s/^slurm-wlm (\([^)]*\)).*/\1/p' "$slurm_src/debian/changelog")
[ "$built_for" = "$version" ] || fail "$slurm_src is the source of slurm-wlm $built_for, not of the installed $version"
upstream=$(sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"$/\1/p' "$slurm_src/config.h")

rm -rf "$tree" "$build" "$target/slurmctld-plugins-control"
install -d "$tree/$plugindir" "$tree/$share/src" "$tree/usr/share/doc/alpsbridge-slurmctld-plugins" \
  "$target/slurmctld-plugins-control"
# Debian's hardening flags (what dpkg-buildflags gives a package build), so lintian finds them; the Makefile adds
# -fPIC -shared and -z relro,now. The defaults of JVM_HOOK and CONFIG are the alpsbridge package's paths.
make -s -C "$root/ledger-service/src/main/c" plugins OUT="$build" SLURM_SRC="$slurm_src" \
  CFLAGS="-O2 -g -Wall -Wextra -Werror -std=gnu11 -Wformat -Werror=format-security"
for so in prep_ledger.so site_factor_ledger.so; do
  install -m 0644 "$build/$so" "$tree/$plugindir/$so"
  strip_binary "$tree/$plugindir/$so"
done
# What a site rebuilds them from for another Slurm: the same sources and Makefile (all of the directory, the
# hooks' client too: whatever the plugins include), and the script that runs its `plugins` target
# (lib/rebuild-slurmctld-plugins).
install -m 0644 "$root"/ledger-service/src/main/c/{Makefile,*.c,*.h} "$tree/$share/src/"
install -m 0755 "$src/lib/rebuild-slurmctld-plugins" "$tree/$share/rebuild"
sed -e "s/@SLURMCTLD_VERSION@/$version/g" -e "s/@SLURM_VERSION@/$upstream/g" \
  "$src/deb/slurmctld-plugins/README.Debian.in" > "$tree/usr/share/doc/alpsbridge-slurmctld-plugins/README.Debian"
chmod 0644 "$tree/usr/share/doc/alpsbridge-slurmctld-plugins/README.Debian"
companion_docs alpsbridge-slurmctld-plugins "$tree" "$src" "$target"
# libc6 at least as new as the newest symbol version used (what dpkg-shlibdeps would say), and exactly this slurmctld.
glibc=$(newest_glibc "$tree/$plugindir"/*.so)
sed -e "s/@LIBC_DEPENDS@/libc6 (>= $glibc)/" -e "s/@SLURMCTLD_VERSION@/$version/g" -e "s/@SLURM_VERSION@/$upstream/g" \
  "$src/deb/slurmctld-plugins/control.in" > "$target/slurmctld-plugins-control/control"
deb_data alpsbridge-slurmctld-plugins "$tree" "$src" "$target/slurmctld-plugins"
echo "slurmctld-plugins: prep_ledger.so and site_factor_ledger.so built against slurm-wlm $version (Slurm $upstream);" \
     "the package depends on slurmctld (= $version)"
