#!/bin/bash
# The Java runtime the RPMs and the relocatable tarball carry, so that alpsbridge runs on a host with no Java (an
# older SLES service node, a minimal Rocky 9): a jlink image holding only the modules the programs need, as jdeps
# finds them in the jars, plus the ones loaded by name at run time that jdeps cannot see, with the JDK's default
# class-data archive regenerated for that image (the launchers' start-up relies on it).
# Made once per Maven run at prepare-package, into target/runtime; the launchers pick it up from
# lib/alpsbridge/runtime beside their share/alpsbridge (bin/alpsbridge says how the admin picks a system JDK).
#
# Which JDK it is made from decides which hosts it runs on: its native code needs the glibc that JDK was built
# against. Debian 12's and Ubuntu's JDKs need glibc 2.34 or newer, which SLES 15 (2.31, the Cray service nodes'
# OS) does not have; Eclipse Temurin's builds need only glibc 2.17. So, unless ALPSBRIDGE_RUNTIME_JDK names one
# (a JDK 17 or newer: with jmods/, or a JDK 24+ that links from its own run-time image), the runtime comes from the
# newest Temurin under /usr/lib/jvm, and from the building JDK (JAVA_HOME, else the java on PATH) where there is
# none. The jars stay compiled for Java 17 either way. The glibc the image needs is written to target/runtime.glibc.
#   runtime.sh PROJECT_ROOT DIST_TARGET
set -euo pipefail
root=$1 target=$2
building=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
newest_temurin() {
  local d best='' best_major=0 major
  for d in /usr/lib/jvm/temurin-*-jdk*; do
    [ -x "$d/bin/jlink" ] || continue
    major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$d/release")
    if [ "${major:-0}" -ge 17 ] && [ "$major" -gt "$best_major" ]; then best=$d best_major=$major; fi
  done
  echo "$best"
}
jdk=${ALPSBRIDGE_RUNTIME_JDK:-$(newest_temurin)}
jdk=${jdk:-$building}
out=$target/runtime
if [ ! -x "$jdk/bin/jlink" ]; then
  echo "runtime: $jdk has no bin/jlink (a JRE?); set ALPSBRIDGE_RUNTIME_JDK to a full JDK 17 or newer" >&2
  exit 1
fi
if [ ! -d "$jdk/jmods" ] && ! "$jdk/bin/jlink" --help 2>&1 | grep -q 'Linking from run-time image enabled'; then
  echo "runtime: $jdk has no jmods/ and cannot link from its run-time image; set ALPSBRIDGE_RUNTIME_JDK to a" \
    "JDK with jmods/ (Debian: openjdk-17-jmods) or a JDK 24+ built with a linkable run-time image" >&2
  exit 1
fi
jars=("$root/cli/target/alpsbridge.jar" "$root"/affinity/target/affinity-*[0-9T].jar "$root/affinity/target/lib/jna.jar")
found=$("$jdk/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 17 "${jars[@]}")
# Loaded by name, invisible to jdeps: the charsets beyond the base ones (a site's locale) and the elliptic-curve TLS
# suites (tls_ca of the clients, the services' https). Those are in java.base from JDK 22 on, where jdk.crypto.ec
# is left empty (and is gone later): it is added only where it still provides them.
modules=$found,jdk.charsets
if "$jdk/bin/java" --describe-module jdk.crypto.ec 2>/dev/null | grep -q '^provides '; then
  modules+=,jdk.crypto.ec
fi
# JDK 24 and newer warn on stderr, at each start, when Netty reaches for sun.misc.Unsafe's memory access and when
# JNA or sqlite-jdbc call native code. Both are what these programs are meant to do: the image's JVM takes the
# options that allow them (jlink --add-options), so no user sees the warnings and the launchers stay as they are.
# An option goes in only if this JDK knows it and takes it without a word; older JDKs have nothing to silence (and
# their jlink reads --add-options=VALUE differently).
jvm_options=()
major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$jdk/release")
for option in --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow; do
  [ "${major:-0}" -ge 24 ] || break
  if said=$("$jdk/bin/java" "$option" -version 2>&1) && ! grep -qi warning <<<"$said"; then jvm_options+=("$option"); fi
done
add_options=()
[ ${#jvm_options[@]} -eq 0 ] || add_options=("--add-options=${jvm_options[*]}")
# java.desktop is there for java.beans (jdeps finds it), not for AWT: its native libraries (X11, ALSA, fonts,
# images) would make the package need a desktop's libraries on a headless service node, and nothing loads them.
headless='glob:**/lib/libawt*.so,glob:**/lib/libjawt.so,glob:**/lib/libjsound.so,glob:**/lib/libfontmanager.so'
headless+=',glob:**/lib/libjavajpeg.so,glob:**/lib/liblcms.so,glob:**/lib/libmlib_image.so,glob:**/lib/libsplashscreen.so'
headless+=',glob:**/lib/libfreetype.so'
rm -rf "$out"
"$jdk/bin/jlink" --add-modules "$modules" --output "$out" --strip-debug --no-header-files --no-man-pages \
  --strip-native-debug-symbols exclude-debuginfo-files --exclude-files "$headless" --generate-cds-archive \
  "${add_options[@]}"
# The archive for heaps of 32 GB and more (no compressed pointers): these programs never run with one.
rm -f "$out/lib/server/classes_nocoops.jsa"
echo "$modules" > "$target/runtime.modules"
# The newest glibc symbol version the image's native code asks for: the oldest glibc it runs on.
glibc=$(find "$out" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper -o -name jexec \) \
  -exec objdump -T {} + 2>/dev/null | grep -o 'GLIBC_2\.[0-9.]*' | sort -uV | tail -1)
echo "${glibc#GLIBC_}" > "$target/runtime.glibc"
echo "runtime: $(du -sh "$out" | cut -f1) in $out from $jdk ($(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' \
  "$jdk/release")), needs glibc ${glibc#GLIBC_}, modules $modules${jvm_options[*]:+, JVM options ${jvm_options[*]}}"
