#!/bin/bash
# The tarball's copies of its two C programs, for older hosts than this one: the native apbasil client and the
# ledger hooks' client compiled a second time, with the same Makefiles and hardened flags as apbasil.sh and
# hooks.sh, plus glibc-compat.h force-included, so that they start on SLES 15 (glibc 2.31), where the Cray service
# nodes run the tarball: the ledger client then asks for glibc 2.17 at most (the Java runtime's floor), apbasil for
# 2.25 (getrandom).
# The .deb and RPM builds keep their own (each compiles on the host it is for). x86-64 Linux only: elsewhere it
# builds nothing and says so, and the tarball takes the packages' copies.
# Run by tarball.sh:  glibc-compat.sh PROJECT_ROOT DIST_TARGET   -> DIST_TARGET/glibc-compat/{apbasil,ledger-prolog}
set -euo pipefail
root=$1 target=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/companion.sh"
out=$target/glibc-compat
rm -rf "$out"
if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
  echo "glibc-compat: not on x86-64 Linux: the tarball's C programs are the packages' copies, which need this" \
       "host's glibc" >&2
  exit 0
fi
install -d "$out"
# Scrt1.o's call to __libc_start_main goes to the header's wrapper; libdl.so.2 is where glibc older than 2.34
# keeps dlopen, dlsym and dlerror (no symbol of it is used here, so --no-as-needed keeps it linked).
compat="-include $here/glibc-compat.h -Wl,--wrap=__libc_start_main"
libdl="-Wl,--push-state,--no-as-needed -l:libdl.so.2 -Wl,--pop-state"
if [ -f "$target/apbasil-root/usr/bin/apbasil" ]; then
  make_apbasil "$root" "$out/apbasil-build" "$compat" "-lmunge $libdl"
  install -m 0755 "$out/apbasil-build/apbasil" "$out/apbasil"
  strip_binary "$out/apbasil"
fi
if [ -f "$target/ledger-hooks-root/usr/bin/ledger-prolog" ]; then
  make_ledger_client "$root" "$out/ledger-hooks-build" "$compat"
  install -m 0755 "$out/ledger-hooks-build/ledger-hook-client" "$out/ledger-prolog"
  strip_binary "$out/ledger-prolog"
fi
# The check the build makes, not only the test (TarballGlibcFloorTest): no symbol version above SLES 15's 2.31.
for program in "$out"/apbasil "$out"/ledger-prolog; do
  [ -f "$program" ] || continue
  newest=$(newest_glibc "$program")
  if [ "$(printf '%s\n2.31\n' "$newest" | sort -V | tail -1)" != 2.31 ]; then
    echo "glibc-compat: $(basename "$program") still needs GLIBC_$newest (above SLES 15's 2.31):" >&2
    objdump -T "$program" | grep -E "GLIBC_2\.(3[2-9]|[4-9][0-9])" >&2
    exit 1
  fi
  echo "glibc-compat: the tarball's $(basename "$program") needs GLIBC_$newest at most"
done
