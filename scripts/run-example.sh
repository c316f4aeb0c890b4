#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Main job: installs what is missing (Debian 12, as root), builds out of tree
# in build/, profiles the bundled example (tests/example/workload.c, two
# worker threads, a producer/consumer pair and buffered reads) under
# aprof-trms, leaves its report in build/example/, draws its plots and
# program charts (scripts/plot.py, scripts/charts.py) in build/example/plots/
# and writes its HTML report (scripts/html_report.py), build/example/report.html.
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

# The interpreter configure chose (PYTHON3 in build/Makefile), or Debian's
# /usr/bin/python3: the plotting stack is Debian's python3-matplotlib,
# python3-numpy and python3-scipy, installed for /usr/bin/python3 only.
aprof_plot_stack() {
  "$1" -c 'import matplotlib, numpy, scipy' >/dev/null 2>&1
}
python=$(sed -n 's/^PYTHON3 = //p' "$APROF_BUILD/Makefile" 2>/dev/null | head -n 1)
if [ -z "$python" ] || ! aprof_plot_stack "$python"; then
  if aprof_plot_stack /usr/bin/python3; then
    [ -z "$python" ] || aprof_log "$python cannot import matplotlib, numpy and scipy; using /usr/bin/python3"
    python=/usr/bin/python3
  else
    aprof_log "error: neither ${python:-the interpreter configure chose} nor /usr/bin/python3 can import matplotlib, numpy and scipy"
    aprof_log "install them: apt-get install python3-matplotlib python3-numpy python3-scipy"
    exit 1
  fi
fi

plots="$out/plots"
aprof_log "plots of sum_array, insertion_sort, consume_items, read_chunks (scripts/plot.py, $python)"
"$python" "$APROF_ROOT/scripts/plot.py" --quiet -o "$plots" \
  --routine sum_array --routine insertion_sort --routine consume_items --routine read_chunks \
  --stats --total "$report"
aprof_log "program charts (scripts/charts.py)"
"$python" "$APROF_ROOT/scripts/charts.py" --quiet -o "$plots" "$report"

aprof_log "summary ($plots/summary.txt):"
cat "$plots/summary.txt"
aprof_log "files made in $plots:"
(cd "$plots" && ls -1)

html="$out/report.html"
aprof_log "HTML report (scripts/html_report.py)"
"$python" "$APROF_ROOT/scripts/html_report.py" -o "$html" "$report" >/dev/null
aprof_log "HTML report of the example: $html (one self-contained file: open it in a browser)"
