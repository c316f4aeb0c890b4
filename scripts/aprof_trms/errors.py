# SPDX-License-Identifier: GPL-2.0-or-later
# The error every layer of the package raises for a mistake in the input or
# the arguments; the runner (cli.py) turns it into one line and status 1.
#
# Copyright (C) 2026, the aprof-trms authors.
"""UserError, at the bottom of the package: the model (select.py), the
views (output.py, plotting.py) and the commands raise it without importing
the runner that reports it. report.ReportError and profile.ProfileError
are the readers' own errors, reported the same way."""

__all__ = ["UserError"]


class UserError(Exception):
    """A mistake in the input or the arguments that is not a usage error (a
    pattern that matches nothing, an output directory that cannot be
    written...): reported in one line, exit status 1."""
