#!/bin/bash
# Builds the native drop-in apbasil client (apbasil-proxy/src/main/c: libmunge; OpenSSL 3 for TLS) and lays out the
# alpsbridge-apbasil package under target/apbasil-root: one stripped, hardened binary as /usr/bin/apbasil, with a
# control file that depends on the libraries its symbols need. The Java client stays in alpsbridge as
# /usr/lib/alpsbridge/apbasil-jvm (prepare.sh); the .deb's contents come from the layout (deb-data.sh). Run by dist's pom on amd64 Linux:  apbasil.sh PROJECT_ROOT DIST_TARGET
set -euo pipefail
. "$(dirname "$0")/companion.sh"
root=$1 target=$2
src=$root/dist/src
tree=$target/apbasil-root
build=$target/apbasil-build
cc=${CC:-gcc}
if ! command -v "$cc" >/dev/null || [ ! -f /usr/include/munge.h ] || [ ! -f /usr/include/openssl/ssl.h ]; then
  echo "apbasil: the native client needs $cc, libmunge-dev and libssl-dev; install them, or build without the" \
       "alpsbridge-apbasil package: mvn -P '!native-apbasil' ..." >&2
  exit 1
fi
rm -rf "$tree" "$build" "$target/apbasil-control"
install -d "$tree/usr/bin" "$target/apbasil-control"
make_apbasil "$root" "$build"
install -m 0755 "$build/apbasil" "$tree/usr/bin/apbasil"
strip_binary "$tree/usr/bin/apbasil"
companion_docs alpsbridge-apbasil "$tree" "$src" "$target"
# What dpkg-shlibdeps would say: libc6 at least as new as the newest symbol version used, and the libraries linked.
glibc=$(newest_glibc "$tree/usr/bin/apbasil")
needed=$(objdump -p "$tree/usr/bin/apbasil" | awk '/NEEDED/ {print $2}')
depends="libc6 (>= $glibc)"
case $needed in *libmunge.so.2*) depends="$depends, libmunge2 (>= 0.5.11)" ;; esac
# OpenSSL is loaded with dlopen when tls_ca is set (libssl.so.3): not in NEEDED, still a dependency.
depends="$depends, libssl3 (>= 3.0.0)"
sed "s/@DEPENDS@/$depends/" "$src/deb/apbasil/control.in" > "$target/apbasil-control/control"
deb_data alpsbridge-apbasil "$tree" "$src" "$target/apbasil"
echo "apbasil: the native client built as /usr/bin/apbasil; depends on $depends"
