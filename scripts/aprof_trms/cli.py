# SPDX-License-Identifier: GPL-2.0-or-later
# The one command-line convention of the analysis commands: how a command is
# run, what its exit status means, --version, and what a closed pipe does.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Runner of the analysis commands (plot, charts, rank, regress, ...).

Every command is a module of this package with main(argv=None) -> int and
is started by its entry script as

    sys.exit(cli.run_command("rank"))

Exit statuses, the same for every command (docs/analysis.md):

    0  done (regress: no growth regression)
    1  error: bad input (an unreadable or malformed report, with FILE:LINE;
       reports that cannot be merged or compared; an output that cannot be
       written), reported in one line "PROG: error: ...", never a traceback
    2  bad usage (argparse: unknown option, missing argument, value out of
       range), with the usage line
    3  regress only: a routine's cost function got steeper (the verdict, not
       an error)
    130  interrupted (Ctrl-C)

A closed output pipe (`aprof_rank --format csv | head`) ends the command
silently, as it ends callgrind_annotate or any C tool: killed by SIGPIPE,
status 141 in the shell.

Machine-readable output, the same for every command that has it (rank,
annotate, regress, contexts, producers): add_format_option() gives the
command --format text|json (and csv where its rows are flat), and
write_rows() writes the rows the text shows, as dicts of plain values, in
the format chosen: one JSON document with a version (JSON_VERSION; the
schema is docs/json-format.md) or CSV.
"""
import argparse
import contextlib
import csv
import gc
import importlib
import json
import math
import os
import signal
import sys
import warnings
from typing import Callable, Dict, List, Optional, Sequence, TextIO

from . import __version__, names, profile, report
from .errors import UserError  # re-exported: the commands raise cli.UserError

__all__ = ["EXIT_OK", "EXIT_ERROR", "EXIT_USAGE", "EXIT_REGRESSION", "UserError",
           "program_name", "argument_parser", "positive_scale", "terminal_width", "warn", "warn_kernel_writes", "run", "run_command",
           "JSON_VERSION", "add_format_option", "write_rows"]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2          # argparse's own status for usage errors
EXIT_REGRESSION = 3
EXIT_INTERRUPTED = 130

# Packages the commands need beyond the standard library.
THIRD_PARTY = ("numpy", "scipy", "matplotlib")


def program_name() -> str:
    """The name the command was started by (rank.py, aprof_rank), for
    messages."""
    return os.path.basename(sys.argv[0]) or "aprof-trms"


def argument_parser(**kwargs) -> argparse.ArgumentParser:
    """An ArgumentParser with --version; prog defaults to program_name()."""
    parser = argparse.ArgumentParser(**kwargs)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s (aprof-trms) {__version__}")
    return parser


# The version of the JSON documents (docs/json-format.md): raised when a
# field changes meaning or goes away (adding one does not raise it).
JSON_VERSION = 1


def add_format_option(parser: argparse.ArgumentParser,
                      formats: Sequence[str] = ("text", "json")) -> None:
    """--format, text by default."""
    parser.add_argument("--format", choices=formats, default="text",
                        help="output format (default text; json: one document of the rows the "
                        "text shows, docs/json-format.md" + ("; csv: one line per row" if "csv"
                                                             in formats else "") + ")")


def _plain(value):
    """A value JSON can hold in every parser: a non-finite number is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _csv_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def write_rows(fmt: str, command: str, fields: Sequence[str], rows: List[Dict],
               out: Optional[TextIO] = None, **about) -> None:
    """The rows (dicts with the keys `fields`, plain values: numbers,
    strings, booleans, None, lists) in format `fmt`: "json", one document
    {"format": "aprof-trms", "command", "version", **about, "fields",
    "rows"}; or "csv", a header line and one line per row (None empty,
    booleans yes/no)."""
    out = out or sys.stdout
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(fields)
        writer.writerows([_csv_cell(row.get(f)) for f in fields] for row in rows)
        return
    document = {"format": "aprof-trms", "command": command, "version": JSON_VERSION, **about,
                "fields": list(fields), "rows": rows}
    json.dump(_plain(document), out, allow_nan=False)
    out.write("\n")


@contextlib.contextmanager
def cycle_collection_paused():
    """Python's cyclic garbage collector off while a command works, and back
    on (if it was) after it. A command that holds millions of objects (the
    routines and points of a large program) has them all scanned by every
    full collection, which the objects it goes on making trigger again and
    again: 12 of the 31 s CPU of regress.py on two reports of 100,000
    routines, 8 of the 24 s of rank.py on one. Memory does not grow: what
    the commands drop is freed by its reference count (the report reader
    makes no reference cycle)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def warn(message: str) -> None:
    """One warning line on stderr, where it does not disturb the output
    (rank.py --format csv | ...)."""
    print(f"{program_name()}: warning: {names.printable(message)}", file=sys.stderr)


def warn_kernel_writes(mechanisms) -> None:
    """The warning of reports with kernel-writes-unseen records, if any."""
    text = report.kernel_writes_warning(mechanisms)
    if text:
        warn(text)


def positive_scale(text: str) -> float:
    """--scale: a number greater than 1 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 1.0:
        raise argparse.ArgumentTypeError(f"must be greater than 1: {text!r}")
    return value


PIPE_WIDTH = 120   # text lines when the output is not a terminal


def terminal_width(not_a_terminal: Optional[int] = PIPE_WIDTH) -> Optional[int]:
    """The width text output is wrapped to (annotate.py, contexts.py):
    COLUMNS when set, else the width of the terminal standard output is,
    else `not_a_terminal` (a file or a pipe)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError, AttributeError):   # not a terminal, or no file descriptor
        return not_a_terminal


def _error(message: str) -> int:
    # A file name or field in the message may hold any character: one line.
    print(f"{program_name()}: error: {names.printable(message)}", file=sys.stderr)
    return EXIT_ERROR


def run(main: Callable[[Optional[List[str]]], int], argv: Optional[List[str]] = None) -> int:
    """main(argv) with the exit-status table applied: user errors become one
    line on stderr and status 1. The warnings of the package (reports of
    unrelated programs merged) are printed as warn() lines."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", profile.UnrelatedReports)
            shown = warnings.showwarning

            def show(message, category, *args, **kwargs):
                if issubclass(category, profile.UnrelatedReports):
                    warn(str(message))
                else:
                    shown(message, category, *args, **kwargs)
            warnings.showwarning = show
            return main(argv)
    except (UserError, report.ReportError, profile.ProfileError) as e:
        return _error(str(e))
    except OSError as e:
        # Reading a report or writing a picture: the message names the file.
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        return _error(f"{where}{e.strerror or e}")
    except KeyboardInterrupt:
        print(f"{program_name()}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def run_command(name: str, argv: Optional[List[str]] = None) -> int:
    """Imports the command module aprof_trms.<name> and runs its main().
    For entry scripts only: it gives SIGPIPE its default action (a closed
    pipe ends the process quietly), which a library must not do."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        module = importlib.import_module(f"{__package__}.{name}")
    except ImportError as e:
        if (e.name or "").split(".")[0] in THIRD_PARTY:
            return _error(f"{sys.executable} cannot import {e.name}: the analysis commands need "
                          "numpy, scipy and matplotlib (Debian: apt-get install python3-numpy "
                          "python3-scipy python3-matplotlib; run them with /usr/bin/python3)")
        return _error(f"incomplete installation of the aprof_trms package ({e})")
    return run(module.main, argv)
