#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# producers.py: the producers command run from the source tree (top
# producers of each routine's input and the producer-to-consumer graph, from
# --input-sources=yes reports; see aprof_trms/sources.py).
#
# Copyright (C) 2026, the aprof-trms authors.
#
# Python puts this script's directory first on sys.path, so the package
# beside it is found. /usr/bin/python3 because Debian's matplotlib, numpy and
# scipy are installed for it.
import sys

from aprof_trms import cli

if __name__ == "__main__":
    sys.exit(cli.run_command("producers"))
