#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerates the pictures and numbers of docs/analysis.md from the bundled
# example (tests/example/workload.c), so that the guide shows what the
# current tool and scripts produce: runs scripts/run-example.sh (build,
# profile, plot.py and charts.py into build/example/plots), copies the
# pictures the guide shows into docs/images/ and replaces the summary.txt
# excerpt between the "example-summary" markers of docs/analysis.md.
#
# The example's routines run the same basic blocks on every run (see
# workload.c), so their fits, and these pictures, do not change between runs;
# the total cost of the program (thread start-up, malloc arenas) varies by
# a few hundred basic blocks, and with it the cost shares in the last digits.
#
# Copyright (C) 2026, the aprof-trms authors.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
plots="$root/build/example/plots"
images="$root/docs/images"
guide="$root/docs/analysis.md"

bash "$root/scripts/run-example.sh" >/dev/null

# docs/images/NAME <- build/example/plots/FILE
while read -r name file; do
  cp "$plots/$file" "$images/$name"
done <<'LIST'
plot-cost.png consume_items-cost.png
plot-workload.png consume_items-workload.png
plot-stats.png read_chunks-stats.png
plot-total.png insertion_sort-total.png
chart-induced-by-routine.png induced-by-routine.png
chart-richness.png richness.png
chart-input-volume.png input-volume.png
chart-induced-split.png induced-split.png
chart-induced-share.png induced-share.png
LIST

# The consume_items section of summary.txt, its object path made relative.
excerpt=$(awk '/^== consume_items ==$/ {on = 1} on && /^$/ {exit} on' "$plots/summary.txt" |
          sed "s|$root/build/|/.../|")
[ -n "$excerpt" ] || { echo "make-doc-images.sh: no consume_items in $plots/summary.txt" >&2; exit 1; }
tmp=$(mktemp)
awk -v excerpt="$excerpt" '
  /<!-- example-summary:begin -->/ { print; print "```"; print excerpt; print "```"; skip = 1; next }
  /<!-- example-summary:end -->/ { skip = 0 }
  !skip' "$guide" > "$tmp"
grep -q 'example-summary:begin' "$tmp" || { rm -f "$tmp"; echo "make-doc-images.sh: markers missing in $guide" >&2; exit 1; }
mv "$tmp" "$guide"
echo "updated $images and the summary excerpt of $guide"
