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

# newest_glibc FILE...: the newest GLIBC_ symbol version the binaries need, for `libc6 (>= IT)` (what
# dpkg-shlibdeps would say).
newest_glibc() {
  objdump -T "$@" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1
}
