#!/bin/bash
# The Java runtime the RPMs and the relocatable tarball carry, so that alpsbridge runs on a host with no Java (an
# older SLES service node, a minimal Rocky 9): a jlink image of the building JDK holding only the modules the
# programs need, as jdeps finds them in the jars, plus the ones loaded by name at run time that jdeps cannot see,
# with the JDK's default class-data archive regenerated for that image (the launchers' start-up relies on it).
# Made once per Maven run at prepare-package, into target/runtime; the launchers pick it up from
# lib/alpsbridge/runtime beside their share/alpsbridge (bin/alpsbridge says how the admin picks a system JDK).
#   runtime.sh PROJECT_ROOT DIST_TARGET
set -euo pipefail
root=$1 target=$2
jdk=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
out=$target/runtime
if [ ! -d "$jdk/jmods" ]; then
  echo "runtime: $jdk has no jmods/ (a JRE, or a JDK without them); point JAVA_HOME at a full JDK 17" >&2
  exit 1
fi
jars=("$root/cli/target/alpsbridge.jar" "$root"/affinity/target/affinity-*[0-9T].jar "$root/affinity/target/lib/jna.jar")
found=$("$jdk/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 17 "${jars[@]}")
# Loaded by name, invisible to jdeps: the elliptic-curve TLS suites (tls_ca of the clients, the services' https)
# and the charsets beyond the base ones (a site's locale).
modules=$found,jdk.crypto.ec,jdk.charsets
# java.desktop is there for java.beans (jdeps finds it), not for AWT: its native libraries (X11, ALSA, fonts,
# images) would make the package need a desktop's libraries on a headless service node, and nothing loads them.
headless='glob:**/lib/libawt*.so,glob:**/lib/libjawt.so,glob:**/lib/libjsound.so,glob:**/lib/libfontmanager.so'
headless+=',glob:**/lib/libjavajpeg.so,glob:**/lib/liblcms.so,glob:**/lib/libmlib_image.so,glob:**/lib/libsplashscreen.so'
rm -rf "$out"
"$jdk/bin/jlink" --add-modules "$modules" --output "$out" --strip-debug --no-header-files --no-man-pages \
  --strip-native-debug-symbols exclude-debuginfo-files --exclude-files "$headless" --generate-cds-archive
# The archive for heaps of 32 GB and more (no compressed pointers): these programs never run with one.
rm -f "$out/lib/server/classes_nocoops.jsa"
echo "$modules" > "$target/runtime.modules"
echo "runtime: $(du -sh "$out" | cut -f1) in $out from $jdk, modules $modules"
