#!/bin/bash
# Builds the ledger hooks' C client (ledger-service/src/main/c, libc only) and lays out the
# alpsbridge-ledger-hooks package under target/ledger-hooks-root: one stripped, hardened binary as
# /usr/bin/ledger-prolog (ledger-epilog and ledger-submit are links to it: the name it runs by picks the hook),
# slurmctld's job_submit.lua that runs ledger-submit, with a control file that depends on the glibc its symbols
# need, and the .deb's contents from the layout (deb-data.sh). Run by dist's pom on amd64 Linux, where the
# build has a C compiler (no Slurm headers needed):  hooks.sh PROJECT_ROOT DIST_TARGET
set -euo pipefail
. "$(dirname "$0")/companion.sh"
root=$1 target=$2
src=$root/dist/src
tree=$target/ledger-hooks-root
build=$target/ledger-hooks-build
cc=${CC:-gcc}
if ! command -v "$cc" >/dev/null; then
  echo "hooks: no C compiler ($cc) for the ledger hooks' client; install gcc, or build without the" \
       "alpsbridge-ledger-hooks package: mvn -P '!ledger-hooks' ..." >&2
  exit 1
fi
rm -rf "$tree" "$build" "$target/ledger-hooks-control"
install -d "$tree/usr/bin" "$tree/usr/share/alpsbridge-ledger-hooks" "$target/ledger-hooks-control"
make_ledger_client "$root" "$build"
install -m 0755 "$build/ledger-hook-client" "$tree/usr/bin/ledger-prolog"
strip_binary "$tree/usr/bin/ledger-prolog"
ln -s ledger-prolog "$tree/usr/bin/ledger-epilog"
# the job_submit plugin's client (job_submit.lua runs it)
ln -s ledger-prolog "$tree/usr/bin/ledger-submit"
# the check at submission (JobSubmitPlugins=lua): a site links it beside slurm.conf as job_submit.lua
install -m 0644 "$root/ledger-service/src/main/lua/job_submit.lua" "$tree/usr/share/alpsbridge-ledger-hooks/job_submit.lua"
companion_docs alpsbridge-ledger-hooks "$tree" "$src" "$target"
# The control file: Source alpsbridge, so that lintian, given both packages, finds the hooks' man pages
# (ledger-prolog.1, ledger-epilog.1) in alpsbridge, which this package depends on and which documents the JVM
# hook and ledger-hook.conf too; and libc6 at least as new as the newest symbol version the client uses (what dpkg-shlibdeps would say).
glibc=$(newest_glibc "$tree/usr/bin/ledger-prolog")
sed "s/@LIBC_DEPENDS@/libc6 (>= $glibc)/" "$src/deb/ledger-hooks/control.in" > "$target/ledger-hooks-control/control"
deb_data alpsbridge-ledger-hooks "$tree" "$src" "$target/ledger-hooks"
echo "hooks: ledger-hook-client built as /usr/bin/ledger-prolog (and ledger-epilog, ledger-submit); depends on libc6 (>= $glibc)"
