# The flat annotate view: one text line per routine, like callgrind_annotate.
#
# Copyright (C) 2026, the aprof-trms authors.
# SPDX-License-Identifier: GPL-2.0-or-later
"""Flat text view of a profile, one line per routine (aprof_trms.table):

    annotate.py [--sort KEY] [--ascending] [--threshold PCT] [--per-thread]
                [--width N] [--full-names] [filters] REPORT|DIR...

Columns: calls, self cost and share, inclusive cost and share, distinct TRMS
and RMS sizes, profile richness, thread-induced and external shares of the
routine's input, and the cost function fitted on its worst-case cost against
TRMS and against RMS ("-" when it has fewer than 5 distinct sizes), then the
routine and its object.

Reports are merged (threads, processes, runs) into one table; --per-thread
prints one table per thread instead, with shares of that thread's total.
Routines whose inclusive share is below --threshold (default 0.1%) are left
out, and the last line says how many. Lines fit the terminal's width (or
--width): long C++ names are shortened (template arguments, then parameters
become '…'); --full-names prints them whole.

Exit status (aprof_trms.cli): 0 done, 1 bad input, 2 bad usage.
"""
import os
import shutil
import sys
from typing import List, Optional

from . import cli
from . import profile as aprof_profile
from . import table
from .plotting import load_reports, short_name

DEFAULT_THRESHOLD = 0.1
SORT_KEYS = [c.key for c in table.COLUMNS]
_MIN_NAME_WIDTH = 24


def _cells(row: table.RoutineRow) -> List[str]:
    return [str(row.calls), str(row.self_cost), f"{row.self_share:.2f}", str(row.inclusive_cost),
            f"{row.inclusive_share:.2f}", str(row.distinct_trms), str(row.distinct_rms),
            f"{row.richness:+.2f}", f"{row.thread_share:.2f}", f"{row.external_share:.2f}",
            row.fit_label("trms"), row.fit_label("rms")]


def format_table(rows: List[table.RoutineRow], width: int, full_names: bool) -> List[str]:
    """Lines of the table: numeric columns right-aligned, then the routine
    with its object, shortened to what is left of `width`."""
    numeric = [c for c in table.COLUMNS if c.key not in ("name", "object")]
    cells = [_cells(row) for row in rows]
    widths = [max([len(c.header)] + [len(r[i]) for r in cells]) for i, c in enumerate(numeric)]
    left = max(_MIN_NAME_WIDTH, width - sum(w + 1 for w in widths))
    lines = [" ".join(c.header.rjust(w) for c, w in zip(numeric, widths)) + " routine [object]"]
    for row, r in zip(rows, cells):
        where = f" [{os.path.basename(row.object)}]"
        name = row.name if full_names else short_name(row.name, max(8, left - len(where)))
        lines.append(" ".join(c.rjust(w) for c, w in zip(r, widths)) + " " + name + where)
    return lines


def section(title: str, profile: aprof_profile.Profile, args) -> List[str]:
    routines = select_routines(profile, args)
    rows = [row for row in table.routine_rows(profile, routines)
            if row.inclusive_share >= args.threshold]
    rows = table.sort_rows(rows, args.sort, args.ascending)
    hidden = len(routines) - len(rows)
    lines = [f"{title}: total cost {profile.total_cost} {profile.cost_metric}, "
             f"{len(profile.routines)} routines", ""]
    lines += format_table(rows, args.width, args.full_names) if rows else ["(no routine to show)"]
    lines += ["", f"{len(rows)} routine{'' if len(rows) == 1 else 's'} shown, sorted by {args.sort} "
              f"({'ascending' if args.ascending else 'descending'}); {hidden} below the threshold of "
              f"{args.threshold:g}% inclusive (--threshold 0 shows them)"]
    return lines


def select_routines(profile: aprof_profile.Profile, args) -> List[aprof_profile.RoutineProfile]:
    """The routines the filters let through (every routine without filters)."""
    if not args.routine:
        return list(profile.routines.values())
    chosen = {}
    for pattern in args.routine:
        for r in profile.find(pattern):
            chosen[r.key] = r
    return list(chosen.values())


def terminal_width() -> int:
    return shutil.get_terminal_size((120, 24)).columns


def parse_args(argv):
    p = cli.argument_parser(
        description="Flat view of a profile: one line per routine with calls, self and inclusive "
        "cost, input sizes, induced-input shares and fitted cost functions.",
        epilog="Columns: " + "; ".join(f"{c.header}: {c.title}" for c in table.COLUMNS)
        + ". Exit status: 0 done, 1 bad input, 2 bad usage.")
    p.add_argument("reports", nargs="+", metavar="REPORT|DIR",
                   help="aprof-trms reports, or directories of aprof-trms.out.* files (all merged)")
    p.add_argument("--sort", choices=SORT_KEYS, default="inclusive_cost", metavar="KEY",
                   help=f"column to sort by, largest first (default inclusive_cost; one of "
                   f"{', '.join(SORT_KEYS)})")
    p.add_argument("--ascending", action="store_true", help="smallest first")
    p.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, metavar="PCT",
                   help=f"leave out routines below PCT%% inclusive share (default {DEFAULT_THRESHOLD:g})")
    p.add_argument("--per-thread", action="store_true",
                   help="one table per thread (shares of the thread's total) instead of merged")
    p.add_argument("--width", type=int, default=None, metavar="N",
                   help="line width (default: the terminal's, 120 when not a terminal)")
    p.add_argument("--full-names", action="store_true", help="do not shorten routine names")
    p.add_argument("--routine", action="append", default=[], metavar="GLOB",
                   help="only routines whose name matches (repeatable)")
    args = p.parse_args(argv)
    if args.threshold < 0:
        p.error("--threshold must be >= 0")
    if args.width is None:
        args.width = terminal_width()
    elif args.width < 40:
        p.error("--width must be at least 40")
    return args


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if args.per_thread:
        parts = table.thread_profiles(load_reports(args.reports))
    else:
        parts = [("merged", aprof_profile.load_profile(args.reports))]
    lines: List[str] = []
    for title, profile in parts:
        if lines:
            lines.append("")
        lines += section(title, profile, args)
    sys.stdout.write("\n".join(lines) + "\n")
    return cli.EXIT_OK
