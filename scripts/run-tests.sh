#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what is missing (Debian 12, as root), builds out of tree in build/
# and runs the whole test suite (make check), then mutation testing (make
# mutation-check, docs/testing.md; APROF_MUTATION_CHECK=no leaves it out
# while iterating). Exits non-zero on any failure.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"

aprof_install_deps
aprof_build

aprof_log "make -j$APROF_MAKE_JOBS check"
if ! make -C "$APROF_BUILD" -j"$APROF_MAKE_JOBS" check; then
  if [ -f "$APROF_BUILD/test-suite.log" ]; then
    aprof_log "test-suite.log:"
    cat "$APROF_BUILD/test-suite.log"
  fi
  aprof_log "FAILED"
  exit 1
fi
aprof_log "all tests passed"

if [ "${APROF_MUTATION_CHECK:-yes}" = no ]; then
  aprof_log "mutation testing left out (APROF_MUTATION_CHECK=no)"
  exit 0
fi
aprof_log "make mutation-check"
if ! make -C "$APROF_BUILD" mutation-check; then
  aprof_log "FAILED: some mutation was not caught, or the mutation list is stale"
  exit 1
fi
aprof_log "every mutation caught"
