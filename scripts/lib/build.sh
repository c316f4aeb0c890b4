# SPDX-License-Identifier: GPL-2.0-or-later
# Shared logic of the entry scripts (scripts/run-tests.sh, scripts/run-example.sh):
# install the Debian packages the project needs, then build out of tree in
# build/. Source this file; it defines functions and APROF_ROOT/APROF_BUILD.
# shellcheck shell=bash

APROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
APROF_BUILD="$APROF_ROOT/build"
APROF_MAKE_JOBS=${APROF_MAKE_JOBS:-2}

# The Debian 12 packages to install: the first column of debian-packages.txt,
# which also names the programs each provides and what needs them (one table
# for this script, the tests, the benchmark harness and the case studies).
APROF_PACKAGE_TABLE="$APROF_ROOT/scripts/lib/debian-packages.txt"
APROF_DEBIAN_PACKAGES=()
while read -r aprof_package _; do
  case "$aprof_package" in ''|'#'*) continue ;; esac
  APROF_DEBIAN_PACKAGES+=("$aprof_package")
done <"$APROF_PACKAGE_TABLE"
unset aprof_package

aprof_log() {
  printf '==> %s\n' "$*" >&2
}

# Installs the missing packages (apt-get update first); does nothing when all
# are installed.
aprof_install_deps() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    aprof_log "dpkg-query not found: not a Debian system, assuming dependencies are installed"
    return 0
  fi
  local missing=() pkg
  for pkg in "${APROF_DEBIAN_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    aprof_log "all required packages are installed"
    return 0
  fi
  aprof_log "installing missing packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      aprof_log "error: not root and no sudo; install as root: apt-get install ${missing[*]}"
      return 1
    fi
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

# Regenerates the build system and builds everything in build/ (out of tree).
aprof_build() {
  if [ -f "$APROF_ROOT/config.status" ]; then
    aprof_log "error: $APROF_ROOT was configured in-tree; run 'make distclean' there first"
    return 1
  fi
  aprof_log "autoreconf -fi"
  (cd "$APROF_ROOT" && autoreconf -fi)
  mkdir -p "$APROF_BUILD"
  aprof_log "configure (in $APROF_BUILD)"
  (cd "$APROF_BUILD" && "$APROF_ROOT/configure" --prefix=/usr)
  aprof_log "make -j$APROF_MAKE_JOBS"
  make -C "$APROF_BUILD" -j"$APROF_MAKE_JOBS"
}
