#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# html_report.py: the HTML report command run from the source tree (one
# self-contained file to browse a profile; see aprof_trms/html.py).
#
# Copyright (C) 2026, the aprof-trms authors.
#
# Python puts this script's directory first on sys.path, so the package
# beside it is found (not named html.py: it would hide the standard module
# html from everything run from this directory). /usr/bin/python3 because
# Debian's matplotlib, numpy and scipy are installed for it.
import sys

from aprof_trms import cli

if __name__ == "__main__":
    sys.exit(cli.run_command("html"))
