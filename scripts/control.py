#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# control.py: the control command run from the source tree (monitor commands
# to programs running under aprof-trms; see aprof_trms/control.py).
#
# Copyright (C) 2026, the aprof-trms authors.
#
# Python puts this script's directory first on sys.path, so the package
# beside it is found.
import sys

from aprof_trms import cli

if __name__ == "__main__":
    sys.exit(cli.run_command("control"))
