# SPDX-License-Identifier: GPL-2.0-or-later
# The flat annotate view: one text line per routine, like callgrind_annotate.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Flat text view of a profile, one line per routine (aprof_trms.table):

    annotate.py [--sort KEY] [--ascending] [--min-share PCT] [--top N]
                [--per-thread] [--width N] [--full-names] [--tree=caller|calling|both]
                [selection] REPORT|DIR...

Columns: calls, self cost and share, inclusive cost and share, distinct TRMS
and RMS sizes, profile richness, thread-induced and external shares of the
routine's input, and the cost function fitted on its worst-case cost against
TRMS and against RMS ("-" when it has fewer than 5 distinct sizes); for
reports with input sources (--input-sources=yes runs) the share and name of
the routine's top producer (aprof_trms.table.SOURCE_COLUMNS); then the
routine and its object.

Reports are merged (threads, processes, runs) into one table; --per-thread
prints one table per thread instead, with shares of that thread's total.
The selection options of aprof_trms/select.py choose the routines (-r NAME,
-e RE, --object, --exclude-object, --hide-libc); --min-share is the
threshold (callgrind_annotate's --threshold): routines below PCT% inclusive
share are left out, 0.1 by default. --top N keeps the first N lines of the
sorted table. The last line says what was left out and how to see it.
Lines fit the terminal's width (or --width, or COLUMNS): long C++ names are
shortened (template arguments, then parameters become '…'); --full-names
prints them whole, and so does output to a file or a pipe without --width
or COLUMNS.

--tree (callgrind_annotate's option) lists under each routine its callers
(`caller`, lines starting with '<'), its callees (`calling`, '>') or both,
from the report's call records (format version 3 and later): per edge the
inclusive cost of the callee's activations called along it, its share of
the total cost, the number of calls, and the routine at the other end;
most costly first. A recursive routine's edge to itself counts nested
activations again.

Exit status (aprof_trms.cli): 0 done, 1 bad input, 2 bad usage.
"""
import os
import sys
import textwrap
from typing import Iterator, List, Optional, Tuple

from . import cli
from . import profile as aprof_profile
from . import select
from . import table
from .names import number, printable, short_name
from .plotting import load_reports
from .ranking import display_name

DEFAULT_THRESHOLD = 0.1
SORT_KEYS = [c.key for c in table.COLUMNS + table.SOURCE_COLUMNS]
_MIN_NAME_WIDTH = 24
_PRODUCER_WIDTH = 24   # the top producer's name is shortened to this


def _cells(row: table.RoutineRow, sources: bool) -> List[str]:
    cells = [str(row.calls), str(row.self_cost), f"{row.self_share:.2f}", str(row.inclusive_cost),
             f"{row.inclusive_share:.2f}", str(row.distinct_trms), str(row.distinct_rms),
             number(row.richness, "+.2f"), f"{row.thread_share:.2f}", f"{row.external_share:.2f}",
             row.fit_label("trms"), row.fit_label("rms")]
    if sources:
        cells += [f"{row.top_producer_share:.2f}" if row.top_producer else "-",
                  short_name(row.top_producer or "-", _PRODUCER_WIDTH)]
    return cells


def format_table(rows: List[table.RoutineRow], width: int, full_names: bool,
                 sources: bool = False) -> Iterator[str]:
    """Lines of the table, one at a time: numeric columns right-aligned
    (with `sources`, then the top producer's share and name), then the
    routine with its object, shortened to what is left of `width`."""
    shown = table.COLUMNS + table.SOURCE_COLUMNS if sources else table.COLUMNS
    columns = [c for c in shown if c.key not in ("name", "object")]
    cells = [_cells(row, sources) for row in rows]
    widths = [max([len(c.header)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    left = max(_MIN_NAME_WIDTH, width - sum(w + 1 for w in widths))

    def line(texts: List[str]) -> str:
        return " ".join(t.rjust(w) if c.numeric else t.ljust(w)
                        for c, t, w in zip(columns, texts, widths))

    yield line([c.header for c in columns]) + " routine [object]"
    for row, r in zip(rows, cells):
        where = f" [{printable(os.path.basename(row.object))}]"
        name = printable(row.name) if full_names else short_name(row.name, max(8, left - len(where)))
        yield line(r) + " " + name + where


TREE_CHOICES = ("none", "caller", "calling", "both")


def edge_lines(profile: aprof_profile.Profile, key, tree: str, width: int,
               full_names: bool) -> List[str]:
    """The caller ('<') and callee ('>') lines of a routine for --tree."""
    callers, callees = profile.callers_and_callees(key)
    shown = ([("<", callers)] if tree in ("caller", "both") else []) + \
            ([(">", callees)] if tree in ("calling", "both") else [])
    lines = []
    for mark, edges in shown:
        for other, edge in edges:
            r = profile.routines[other]
            share = 100.0 * edge.inclusive_cost / profile.total_cost if profile.total_cost else 0.0
            head = f"    {mark} {edge.inclusive_cost} ({share:.2f}%) {edge.calls}x "
            where = f" [{printable(os.path.basename(r.object))}]"
            name = printable(r.name) if full_names else short_name(r.name, max(8, width - len(head) - len(where)))
            lines.append(head + name + where)
    return lines


def chosen_rows(profile: aprof_profile.Profile, args) -> Tuple[List[table.RoutineRow], str]:
    """The rows of the table in their order, fitted, and the account of
    what was left out."""
    selection = select.select_routines(profile, args, apply_limit=False)
    # Only the rows shown are fitted, unless the order needs every fit.
    fit_all = args.sort in table.FIT_COLUMNS
    rows = table.sort_rows(table.routine_rows(profile, selection.routines, fit=fit_all),
                           args.sort, args.ascending)
    account = selection.account()
    if args.top is not None and len(rows) > args.top:
        account += f" Shown: the first {args.top} of {len(rows)} (--top)."
        rows = rows[:args.top]
    if not fit_all:
        table.add_fits(rows)
    return rows, account


def section(title: str, profile: aprof_profile.Profile, args, rows: List[table.RoutineRow],
            account: str) -> Iterator[str]:
    """The lines of one table: its title line, the rows (with --tree, their
    edges) and the account, one at a time (a table of 100,000 routines is
    written as it is made, not held whole)."""
    yield from [f"{title}: total cost {profile.total_cost} {profile.cost_metric}, "
                f"{len(profile.routines)} routines, sorted by {args.sort} "
                f"({'ascending' if args.ascending else 'descending'})", ""]
    table_lines = (format_table(rows, args.width, args.full_names, bool(profile.sources)) if rows
                   else iter(["(no routine to show)"]))
    if args.tree == "none" or not rows:
        yield from table_lines
    else:
        table_lines = list(table_lines)
        lines = [table_lines[0]]
        for row, line in zip(rows, table_lines[1:]):
            lines.append(line)
            edges = edge_lines(profile, row.routine.key, args.tree, args.width, args.full_names)
            lines += edges + ([""] if edges else [])   # a routine's group ends with a blank line
        if lines[-1] == "":
            lines.pop()   # the blank line before the account follows
        if not profile.calls:
            account += (" --tree: the reports have no call records (format version 3 and later "
                        "have them), so no callers or callees are listed.")
        yield from lines
    yield ""
    yield from textwrap.wrap(account, args.width, break_on_hyphens=False)


def parse_args(argv):
    p = cli.argument_parser(
        description="Flat view of a profile: one line per routine with calls, self and inclusive "
        "cost, input sizes, induced-input shares and fitted cost functions.",
        epilog="--min-share is the threshold: 0.1 unless given (0: every routine). Columns: " + "; ".join(f"{c.header}: {c.title}" for c in table.COLUMNS + table.SOURCE_COLUMNS)
        + " (these two only for reports with input sources). Exit status: 0 done, 1 bad input, 2 bad usage.")
    p.add_argument("reports", nargs="+", metavar="REPORT|DIR",
                   help="aprof-trms reports, or directories of aprof-trms.out.* files (all merged)")
    p.add_argument("--sort", choices=SORT_KEYS, default="inclusive_cost", metavar="KEY",
                   help=f"column to sort by, largest first (default inclusive_cost; one of "
                   f"{', '.join(SORT_KEYS)})")
    p.add_argument("--ascending", action="store_true", help="smallest first")
    p.add_argument("--per-thread", action="store_true",
                   help="one table per thread (shares of the thread's total) instead of merged")
    p.add_argument("--width", type=int, default=None, metavar="N",
                   help="line width (default: COLUMNS or the terminal's; when the output is not "
                   f"a terminal, names are not shortened and text wraps at {cli.PIPE_WIDTH})")
    p.add_argument("--full-names", action="store_true", help="do not shorten routine names")
    p.add_argument("--tree", choices=TREE_CHOICES, default="none",
                   help="under each routine, its callers (caller: lines '<'), callees (calling: "
                   "'>') or both, with the inclusive cost, cost share and calls of each edge "
                   "(default none)")
    select.add_selection_arguments(p, default_choice=False)
    cli.add_format_option(p)
    p.set_defaults(min_share=DEFAULT_THRESHOLD)
    args = p.parse_args(argv)
    if args.width is None:
        args.width = cli.terminal_width(None)
        if args.width is None:
            # A file or a pipe (grep, a script): whole names, however long the line.
            args.full_names, args.width = True, cli.PIPE_WIDTH
    elif args.width < 40:
        p.error("--width must be at least 40")
    return args


# The fields of a row in the JSON output (docs/json-format.md): the table's
# columns, the models as the text shows them and their growth exponents.
FIELDS = ["section", "calls", "self_cost", "self_share", "inclusive_cost", "inclusive_share",
          "distinct_trms", "distinct_rms", "richness", "thread_share", "external_share",
          "trms_model", "rms_model", "trms_growth", "rms_growth", "top_producer_share",
          "top_producer", "routine", "object", "callers", "callees"]


def _edges_json(profile: aprof_profile.Profile, edges) -> List[dict]:
    return [{"routine": display_name(profile.routines[other]), "object": profile.routines[other].object,
             "calls": edge.calls, "inclusive_cost": edge.inclusive_cost,
             "share": 100.0 * edge.inclusive_cost / profile.total_cost if profile.total_cost else 0.0}
            for other, edge in edges]


def row_json(title: str, profile: aprof_profile.Profile, row: table.RoutineRow, tree: str) -> dict:
    """A row as the JSON output gives it (FIELDS): the numbers unrounded;
    the producer fields None without source records, the edges None
    without --tree (its caller or callee lists otherwise)."""
    fields = {"section": title, **{c.key: getattr(row, c.key) for c in table.COLUMNS
                                   if c.key not in ("name", "trms_growth", "rms_growth")}}
    sources = bool(profile.sources)
    callers, callees = profile.callers_and_callees(row.routine.key) if tree != "none" else ([], [])
    fields.update(
        trms_model=row.fit_label("trms"), rms_model=row.fit_label("rms"),
        trms_growth=row.trms_growth if row.fits["trms"].result else None,
        rms_growth=row.rms_growth if row.fits["rms"].result else None,
        top_producer_share=row.top_producer_share if sources and row.top_producer else None,
        top_producer=(row.top_producer or None) if sources else None, routine=row.name,
        callers=_edges_json(profile, callers) if tree in ("caller", "both") else None,
        callees=_edges_json(profile, callees) if tree in ("calling", "both") else None)
    return {f: fields[f] for f in FIELDS}


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    with cli.cycle_collection_paused():   # 9 of its 24 s CPU on 100,000 routines
        return _annotate(args)


def _annotate(args) -> int:
    if args.per_thread:
        parts = table.thread_profiles(load_reports(args.reports))
    else:
        parts = [("merged", aprof_profile.load_profile(args.reports))]
    cli.warn_kernel_writes([m for _, profile in parts for m in profile.kernel_writes_unseen])
    # Every table's rows are chosen and fitted first: an error comes before any line.
    chosen = [(title, profile, *chosen_rows(profile, args)) for title, profile in parts]
    if args.format == "json":
        cli.write_rows("json", "annotate", FIELDS,
                       [row_json(title, profile, row, args.tree) for title, profile, rows, _ in chosen
                        for row in rows],
                       sort=args.sort, ascending=args.ascending,
                       sections=[{"section": title, "total_cost": profile.total_cost,
                                  "cost_metric": profile.cost_metric, "reports": profile.paths}
                                 for title, profile in parts])
        return cli.EXIT_OK
    for i, (title, profile, rows, account) in enumerate(chosen):
        if i:
            sys.stdout.write("\n")   # a blank line between the tables
        sys.stdout.writelines(line + "\n" for line in section(title, profile, args, rows, account))
    return cli.EXIT_OK
