# SPDX-License-Identifier: GPL-2.0-or-later
# The aprof_trms package: reading, merging, fitting and drawing aprof-trms
# reports, and the analysis commands built on them.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Analysis of aprof-trms reports.

Modules: report (the reader), profile (reports merged over threads,
processes and runs), fit (cost-function fitting), select (the routine
selection every command shares), names (C++ names taken apart), plotting (helpers of the
drawing commands), cli (the runner every command goes through) and one
module per command (plot, charts, rank, regress), each with
main(argv=None) -> int. Importing a module never exits and never edits
sys.path.
"""

# The version of aprof-trms these modules belong to; the build checks that it
# equals configure's PACKAGE_VERSION (tests/install/check-install.sh).
__version__ = "0.1.0"
