# SPDX-License-Identifier: GPL-2.0-or-later
# The aprof_trms package: reading, merging, fitting and drawing aprof-trms
# reports, and the analysis commands built on them.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Analysis of aprof-trms reports, in three layers; a module imports only
from its own layer and the layers below (tests/scripts/test_layers.py):

- model: report (the reader), profile (reports merged over threads,
  processes and runs), sources (input sources), programs (program-wide
  sums), fit (cost-function fitting), ranking (routines by predicted
  growth), carriers, evidence, select (the routine selection every command
  shares), table (one row per routine), names (C++ names taken apart),
  elf, errors;
- views: plotting (drawing helpers), output (safe file writing),
  sources_graph, html_json, html_calls, html_graph;
- commands: cli (the runner every command goes through) and one module
  per command (plot, charts, rank, regress, annotate, html,
  callgrind_export, producers, contexts, check_reports), each with
  main(argv=None) -> int.

Importing a module never exits and never edits sys.path.
"""

# The version of aprof-trms these modules belong to; the build checks that it
# equals configure's PACKAGE_VERSION (tests/install/check-install.sh).
__version__ = "0.1.0"
