# Sourced by the scripts that lay out alpsbridge's compiled companion packages (spank.sh, hooks.sh, ...): what every
# such package carries besides its own files.

# companion_docs PACKAGE TREE DIST_SRC DIST_TARGET: /usr/share/doc/PACKAGE with alpsbridge's copyright and its
# changelog under the package's name (Debian policy; lintian checks both).
companion_docs() {
  local package=$1 tree=$2 src=$3 target=$4 doc=$2/usr/share/doc/$1
  install -d "$doc"
  install -m 0644 "$src/doc/copyright" "$doc/copyright"
  zcat "$target/root/usr/share/doc/alpsbridge/changelog.gz" | sed "1s/^alpsbridge /$package /" | gzip -9n \
    > "$doc/changelog.gz"
}

# deb_data PACKAGE TREE DIST_SRC PREFIX: the .deb's contents, the paths the layout declares for PACKAGE, from its
# TREE into PREFIX-data.tar, and its conffiles into PREFIX-control (deb-data.sh), which holds its control file.
deb_data() {
  bash "$3/build/deb-data.sh" "$3/layout" "$1" "$2" "$4-data.tar" "$4-control"
}

# make_apbasil PROJECT_ROOT BUILD_DIR [EXTRA_CFLAGS [LIBS]]: the native apbasil client (apbasil-proxy/src/main/c)
# built as BUILD_DIR/apbasil with the package's flags (its Makefile adds the hardening), EXTRA_CFLAGS after them;
# LIBS, when given, replaces the Makefile's libraries. apbasil.sh builds the package's, glibc-compat.sh the tarball's.
make_apbasil() {
  local libs=()
  [ -z "${4:-}" ] || libs=(LIBS="$4")
  make -s -C "$1/apbasil-proxy/src/main/c" CC="${CC:-gcc}" OUT="$2" CONFIG=/etc/alpsbridge/apbasil.conf \
    CFLAGS="-g -Wformat -Werror=format-security${3:+ $3}" "${libs[@]}"
}

# make_ledger_client PROJECT_ROOT BUILD_DIR [EXTRA_CFLAGS]: the ledger hooks' C client (ledger-service/src/main/c)
# built as BUILD_DIR/ledger-hook-client with Debian's hardening flags (what dpkg-buildflags gives a package build,
# plus bindnow, so lintian finds them; gcc on Debian builds PIE by default), EXTRA_CFLAGS after them. The fallback
# it execs when no agent listens: the arch-all package's. hooks.sh builds the package's, glibc-compat.sh the
# tarball's.
make_ledger_client() {
  make -s -C "$1/ledger-service/src/main/c" CC="${CC:-gcc}" OUT="$2" JVM_HOOK=/usr/lib/alpsbridge/ledger-hook-jvm \
    CFLAGS="-O2 -g -Wall -Wextra -Werror -std=gnu11 -D_FORTIFY_SOURCE=2 -fstack-protector-strong -Wformat \
-Werror=format-security -Wl,-z,relro,-z,now${3:+ $3}"
}

# strip_binary FILE...: compiled programs and plugins as shipped, without their debugging symbols and notes.
strip_binary() {
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$@"
}

# newest_glibc FILE...: the newest GLIBC_ symbol version the binaries need, for `libc6 (>= IT)` (what
# dpkg-shlibdeps would say).
newest_glibc() {
  objdump -T "$@" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1
}
