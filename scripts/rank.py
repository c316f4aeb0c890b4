#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# rank.py: the rank command run from the source tree (bottleneck ranking of
# routines by fitted growth; see aprof_trms/rank.py).
#
# Copyright (C) 2026, the aprof-trms authors.
#
# Python puts this script's directory first on sys.path, so the package
# beside it is found. /usr/bin/python3 because Debian's matplotlib, numpy and
# scipy are installed for it.
import sys

from aprof_trms import cli

if __name__ == "__main__":
    sys.exit(cli.run_command("rank"))
