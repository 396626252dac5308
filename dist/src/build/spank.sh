#!/bin/bash
# Builds the SPANK plugin with the C compiler and lays out the alpsbridge-spank package under
# target/spank-root, with a control file that depends on the Slurm it was compiled against (a SPANK
# plugin loads only into the Slurm release it was built for), and the .deb's contents from the layout
# (deb-data.sh). Run by dist's pom where Slurm's headers are
# installed (Debian: libslurm-dev):  spank.sh PROJECT_ROOT DIST_TARGET
set -euo pipefail
. "$(dirname "$0")/companion.sh"
root=$1 target=$2
src=$root/dist/src
tree=$target/spank-root
plugindir=usr/lib/x86_64-linux-gnu/slurm-wlm
rm -rf "$tree" "$target/spank-control"
install -d "$tree/$plugindir" "$tree/etc/slurm/plugstack.conf.d" "$tree/usr/share/doc/alpsbridge-spank" "$target/spank-control"
# Debian's hardening flags (what dpkg-buildflags gives a package build), so lintian finds them.
make -s -C "$root/affinity/spank" OUT="$tree/$plugindir" \
  CFLAGS="-O2 -g -Wall -Wextra -Werror -std=gnu11 -D_FORTIFY_SOURCE=2 -fstack-protector-strong -Wl,-z,relro,-z,now"
strip_binary "$tree/$plugindir/reduced_auto_affinity.so"
chmod 0644 "$tree/$plugindir/reduced_auto_affinity.so"
install -m 0644 "$src/deb/spank/reduced-auto-affinity.conf" "$tree/etc/slurm/plugstack.conf.d/"
install -m 0644 "$root/affinity/spank/README.md" "$tree/usr/share/doc/alpsbridge-spank/README.md"
companion_docs alpsbridge-spank "$tree" "$src" "$target"
# The Slurm release of the headers: 22.05.8-4+deb12u3 -> depends on 22.05.x.
slurm=$(dpkg-query -W -f='${Version}' libslurm-dev 2>/dev/null || true)
if [ -z "$slurm" ]; then
  slurm=$(sed -n 's/^#define SLURM_VERSION_STRING "\([0-9.]*\)".*/\1/p' /usr/include/slurm/slurm_version.h)
fi
release=$(echo "$slurm" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
major=${release%.*} minor=${release#*.}
next=$major.$(printf '%02d' $((10#$minor + 1)))
depends="slurm-wlm-basic-plugins (>= $release), slurm-wlm-basic-plugins (<< $next~)"
sed "s/@SLURM_DEPENDS@/$depends/" "$src/deb/spank/control.in" > "$target/spank-control/control"
deb_data alpsbridge-spank "$tree" "$src" "$target/spank"
echo "spank: plugin built against Slurm $slurm; the package depends on $depends"
