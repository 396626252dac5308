#!/bin/bash
# A .deb's contents from the layout (dist/src/layout), the one declaration of what goes where, as the RPMs' %files
# are (rpm/layout-files): the paths the layout declares for PACKAGE (WHERE both or deb), taken from the tree the
# build laid out, with the modes and owner the layout's KIND gives them, into a tar archive that jdeb packs as it is
# (dist's pom, <type>archive</type>); the `conf` paths become the control directory's conffiles. A file in the tree
# the layout does not declare stays out of the package; a declared path the tree lacks fails the build. Run by the
# scripts that lay out the trees (prepare.sh, hooks.sh, ...) once their tree is complete:
#   deb-data.sh LAYOUT PACKAGE TREE ARCHIVE CONTROL_DIR
set -euo pipefail
umask 022
layout=$1 package=$2 tree=$3 archive=$4 control=$5
stage=$archive.d
fail() { echo "deb-data: $package: $*" >&2; exit 1; }
rm -rf "$stage" "$archive" "$control/conffiles"
install -d "$stage" "$control"

# place MODE PATH: one declared file (or link) from the tree into the stage, with the mode its kind gives it.
place() {
  local mode=$1 path=$2
  mkdir -p "$stage$(dirname "$path")"
  if [ -L "$tree$path" ]; then
    cp -P "$tree$path" "$stage$path"
  else
    install -p -m "$mode" "$tree$path" "$stage$path"
  fi
}

found=
while read -r owner kind where pattern; do
  case $owner in ''|'#'*) continue ;; esac
  [ "$where" = both ] || [ "$where" = deb ] || continue
  [ "$owner" = - ] && owner=alpsbridge || owner=alpsbridge-$owner
  [ "$owner" = "$package" ] || continue
  found=1
  # A * matches within one path component (the layout's header): bash's own globbing, in the tree.
  matches=()
  for p in "$tree"$pattern; do
    if [ -e "$p" ] || [ -L "$p" ]; then matches+=("${p#"$tree"}"); fi
  done
  [ ${#matches[@]} -gt 0 ] || fail "the layout declares $kind $pattern, which the build did not lay out in $tree"
  for path in "${matches[@]}"; do
    case $kind in
      bin) place 0755 "$path" ;;
      file|license|doc) place 0644 "$path" ;;
      conf) place 0644 "$path"; echo "$path" >> "$control/conffiles" ;;
      link) [ -L "$tree$path" ] || fail "$path is declared a link; in $tree it is not one"; place - "$path" ;;
      # A directory and all below it as laid out: scripts executable, the rest 0644.
      tree)
        mkdir -p "$stage$path"
        while IFS= read -r -d '' f; do
          if [ -d "$tree$path/$f" ] && [ ! -L "$tree$path/$f" ]; then mkdir -p "$stage$path/$f"
          elif [ -x "$tree$path/$f" ] && [ ! -L "$tree$path/$f" ]; then place 0755 "$path/$f"
          else place 0644 "$path/$f"; fi
        done < <(cd "$tree$path" && find . -mindepth 1 -printf '%P\0')
        ;;
      dir) mkdir -p "$stage$path" ;;
      # The service user's directories cannot be in a .deb (dpkg unpacks before the user exists): the maintainer
      # scripts make them (deb/alpsbridge/postinst), as they make the class archives' cache.
      state|cache) fail "$path: a $kind directory is made by the .deb's maintainer scripts; declare it for rpm only" ;;
      *) fail "unknown kind $kind of $pattern in $layout" ;;
    esac
  done
done < "$layout"
[ -n "$found" ] || fail "the layout declares nothing for it ($layout)"

# Every directory 0755 as Debian's are, root:root, and entries as dpkg-deb writes them (./usr/...), in name order so that a build is reproducible.
find "$stage" -type d -exec chmod 0755 {} +
tar --sort=name --owner=root:0 --group=root:0 --format=gnu -C "$stage" -cf "$archive" \
  $(cd "$stage" && find . -mindepth 1 -maxdepth 1 | sort)
rm -rf "$stage"
