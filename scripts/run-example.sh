#!/usr/bin/env bash
# Main job: installs what is missing (Debian 12, as root), builds out of tree
# in build/ and runs a program under the aprof-trms tool from the build tree.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"

aprof_install_deps
aprof_build

aprof_log "build/aprof-trms/vg-in-place /bin/true"
"$APROF_BUILD/aprof-trms/vg-in-place" /bin/true

aprof_log "the tool ran. Note: profile reports and plots come with the next milestones."
