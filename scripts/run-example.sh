#!/usr/bin/env bash
# Main job: installs what is missing (Debian 12, as root), builds out of tree
# in build/, profiles the bundled example (tests/example/workload.c, two
# worker threads, a producer/consumer pair and buffered reads) under
# aprof-trms, and leaves its report in build/example/.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"

aprof_install_deps
aprof_build

out="$APROF_BUILD/example"
rm -rf "$out"
mkdir -p "$out"
aprof_log "profiling tests/example/workload under aprof-trms"
"$APROF_BUILD/aprof-trms/vg-in-place" --aprof-out-file="$out/aprof-trms.out.%p" \
  "$APROF_BUILD/tests/example/workload" 200

report=$(ls "$out"/aprof-trms.out.*)
aprof_log "report: $report"
aprof_log "routines of the example and their distinct input sizes (TRMS / RMS):"
for routine in sum_array insertion_sort consume_items read_chunks; do
  awk -F'\t' -v r="$routine" '
    $1 == "routine" && $5 == r { id = $2 }
    $1 == "trms" && $3 == id { trms[$4] = 1 }
    $1 == "rms" && $3 == id { rms[$4] = 1 }
    END { printf "    %-16s %4d / %d\n", r, length(trms), length(rms) }' "$report"
done
