#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# callgrind-export.py: the callgrind-export command run from the source tree
# (an aprof-trms report as a callgrind.out file; see
# aprof_trms/callgrind_export.py).
#
# Copyright (C) 2026, the aprof-trms authors.
#
# Python puts this script's directory first on sys.path, so the package
# beside it is found. /usr/bin/python3 because Debian's matplotlib, numpy and
# scipy are installed for it.
import sys

from aprof_trms import cli

if __name__ == "__main__":
    sys.exit(cli.run_command("callgrind_export"))
