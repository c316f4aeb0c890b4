# SPDX-License-Identifier: GPL-2.0-or-later
# The HTML report command: one self-contained file to browse a whole profile.
#
# Copyright (C) 2026, the aprof-trms authors.
"""One self-contained HTML file for a profile (docs/analysis.md, "html.py"):

    html_report.py [-o FILE] [--baseline REPORT|DIR]... [selection] REPORT|DIR...

The reports are merged as plot.py merges them. The file holds the data as
compact JSON and a small script (html_assets/report.js) that draws
everything as SVG in the browser: no network access, no server, no
JavaScript library. It has

- a header: command lines, cost metric, memory resolution, threads and
  their totals, and the program-level charts of charts.py (thread-induced vs
  external input per routine, profile richness, input volume, the
  thread/external split of induced reads);
- the routine table of the annotate view (aprof_trms.table), sortable by
  every column, filterable by name (substring or regular expression) and by
  object, starting from the routines the selection options choose
  (aprof_trms/select.py, with plot.py's defaults: the same routines as
  plot.py), with a switch to show every routine; the table renders only the
  rows in view, so 20,000 routines stay interactive; with input sources
  (--input-sources=yes runs) it has the top producer's share and name too;
- for the selected routine: worst-case cost against TRMS and against RMS
  with the fitted function and the runner-up, the workload plot, min/avg/max
  and total cost per size, merged or per thread, linear or log axes, values
  on hover;
- with input sources (--input-sources=yes runs), the producer-to-consumer
  graph of producers.py as inline SVG, its heaviest edges (--graph-edges)
  and what they leave out (html_graph.py);
- the bottleneck ranking of rank.py (predicted share at 10 times the
  largest input, confident fits first, a reason per row) over the routines
  the selection options choose, and, with --baseline, the regression
  comparison of regress.py (routines that got worse first).

Exit status (aprof_trms.cli): 0 done, 1 bad input or unwritable output,
2 bad usage.
"""
import argparse
import html
import json
import os
import re
import shlex
import sys
from typing import Dict, List, Optional, Sequence

from . import __version__, cli, output
from . import charts as aprof_charts
from . import html_calls
from . import html_graph
from . import html_threads
from . import plot as aprof_plot
from . import profile as aprof_profile
from . import programs
from . import regress as aprof_regress
from . import report as aprof_report
from . import select
from . import table
from .html_json import fits_json, num, points_json
from .ranking import rank_routines

ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "html_assets")
DEFAULT_OUTPUT = "aprof-trms-report.html"
DETAILED_ROUTINES = 5000   # routines with points and fits in the page, beyond those shown


def _row_json(row: table.RoutineRow, objects: Dict[str, int], selected: bool) -> List:
    """One table row; the order is that of F in report.js."""
    return [row.name, objects.setdefault(row.object, len(objects)), row.calls, row.self_cost,
            num(row.self_share), row.inclusive_cost, num(row.inclusive_share),
            row.distinct_trms, row.distinct_rms, num(row.richness), num(row.thread_share),
            num(row.external_share), num(row.trms_growth), num(row.rms_growth),
            row.fit_label("trms"), row.fit_label("rms"), row.top_producer,
            num(row.top_producer_share), 1 if selected else 0]


def selection_parser(parser=None):
    """The selection options with plot.py's defaults (its default choice)."""
    parser = parser or argparse.ArgumentParser(add_help=False)
    select.add_selection_arguments(parser, top=aprof_plot.DEFAULT_TOP,
                                   min_share=aprof_plot.DEFAULT_MIN_SHARE)
    return parser


def default_selection(profile: aprof_profile.Profile,
                      args: Optional[argparse.Namespace] = None) -> select.Selection:
    """The routines the table starts from: plot.py's choice for the same
    selection options (default: none given)."""
    return select.select_routines(profile, args or selection_parser().parse_args([]))


def _every_routine() -> argparse.Namespace:
    """Selection options that keep every routine (charts.py's default)."""
    parser = argparse.ArgumentParser(add_help=False)
    select.add_selection_arguments(parser, default_choice=False, limit=False)
    return parser.parse_args([])


def program_json(profile: aprof_profile.Profile, roots: List[programs.ThreadRoot]) -> Dict:
    """The numbers of charts.py's program-level charts."""
    program = programs.program_from("", profile, roots, _every_routine())
    top, with_induced = programs.top_induced(program, aprof_charts.DEFAULT_TOP)
    return {
        "induced": [[r.name, num(100.0 * r.thread_induced / r.sum_trms),
                     num(100.0 * r.external / r.sum_trms)] for r in top],
        "with_induced": with_induced,
        "richness": [num(r.richness) for r in program.routines],
        "volume": [num(r.volume) for r in program.routines],
        "thread_induced": program.thread_induced,
        "external": program.external,
    }


def ranking_json(profile: aprof_profile.Profile, index: Dict,
                 selection_args: Optional[argparse.Namespace] = None) -> List[List]:
    """[routine index, one-line reason] in rank.py's order, for the routines
    the selection options choose before their --top limit (by default
    rank.py's own: fittable routines above 1% of the cost)."""
    args = selection_args or selection_parser().parse_args([])
    routines = select.select_routines(profile, args, apply_limit=False).routines
    return [[index[row.routine.key], row.reason] for row in rank_routines(profile, routines)]


def regression_json(baseline: Optional[aprof_profile.Profile],
                    profile: aprof_profile.Profile) -> Optional[List[str]]:
    """regress.py's lines, regressions first; None without a baseline."""
    if baseline is None:
        return None
    try:
        lines, _ = aprof_regress.compare(baseline, profile)
    except aprof_regress.BadInput as e:
        return [f"not compared: {e}"]
    return lines


def detailed_rows(rows: List[table.RoutineRow], shown: set) -> List[table.RoutineRow]:
    """The rows whose routines' points and fits the page holds: all of them
    up to DETAILED_ROUTINES; beyond, the DETAILED_ROUTINES first (rows are
    by decreasing inclusive cost) and the routines in `shown` (chosen by
    the selection options, listed by the ranking). A page of 100,000
    routines with every point and fit took gigabytes to write."""
    return [row for i, row in enumerate(rows) if i < DETAILED_ROUTINES or row.routine.key in shown]


def details_note(rows: List[table.RoutineRow], detailed: List[table.RoutineRow]) -> str:
    """What the page says of a routine whose details it does not hold."""
    return (f"The page holds the points and fits of {len(detailed)} of the {len(rows)} routines: "
            f"the {DETAILED_ROUTINES} of largest inclusive cost and those the selection options "
            "choose or the ranking lists (their model columns show \"-\" for the others). "
            "html_report.py -r NAME (or -e, --object) writes a page holding this one; plot.py "
            "draws it.")


def report_data(reading: html_threads.Reading, argv: Sequence[str],
                baseline: Optional[aprof_profile.Profile] = None,
                selection_args: Optional[argparse.Namespace] = None,
                graph_edges: int = html_graph.DEFAULT_EDGES) -> Dict:
    """Everything the page shows, as one JSON-ready dict, and the input
    sources' section as HTML ("sources"), from the reports read by
    html_threads.load()."""
    profile, reports = reading.profile, reading.reports
    rows = table.routine_rows(profile, fit=False)
    selection = default_selection(profile, selection_args)
    selected = {r.key for r in selection.routines}
    objects: Dict[str, int] = {}
    index = {row.routine.key: i for i, row in enumerate(rows)}
    ranking = ranking_json(profile, index, selection_args)
    detailed = detailed_rows(rows, selected | {rows[i].routine.key for i, _ in ranking})
    table.add_fits(detailed)
    several_threads = sum(len(r.threads) for r in reports) > 1
    per_thread = reading.points_by_thread([row.routine.key for row in detailed]) if several_threads else {}
    details: List[Optional[Dict]] = [None] * len(rows)   # per row, parsed by the page on demand
    for row in detailed:
        r = row.routine
        details[index[r.key]] = {"trms": points_json(r.trms), "rms": points_json(r.rms),
                                 "fits": fits_json(row.fits), "threads": per_thread.get(r.key, []),
                                 **html_calls.routine_json(profile, r, index)}
    return {
        "generator": f"aprof-trms {__version__} html",
        "argv": " ".join(shlex.quote(a) for a in argv),
        "commands": [" ".join(shlex.quote(c) for c in cmd) for cmd in profile.commands],
        "paths": profile.paths,
        "cost_metric": profile.cost_metric,
        "resolution": profile.memory_resolution,
        "trms_tracking": profile.trms_tracking,
        "kernel_writes_unseen": aprof_report.kernel_writes_warning(profile.kernel_writes_unseen),
        "total_cost": profile.total_cost,
        "threads": [[table.thread_label(rep, s, len(reports) > 1), rep.threads[s].total_cost]
                    for rep in reports for s in (sorted(rep.threads) if several_threads else rep.threads)],
        "columns": [[c.key, c.header, c.title] for c in table.columns_of(profile)],
        "rows": [_row_json(row, objects, row.routine.key in selected) for row in rows],
        "selection": selection.account(),
        "objects": list(objects),
        "details": details,
        # Only on a page that leaves details out (others stay as they were).
        **({"details_note": details_note(rows, detailed)} if len(detailed) < len(rows) else {}),
        "program": program_json(profile, reading.roots),
        "ranking": ranking,
        "regression": regression_json(baseline, profile),
        "calls": html_calls.page_json(profile),
        "sources": html_graph.section_html(reports, graph_edges),
    }


def _asset(name: str) -> str:
    with open(os.path.join(ASSETS, name), encoding="utf-8") as f:
        return f.read()


def _json(value) -> str:
    """Compact JSON without a raw '<' (written \\u003c: no routine name can
    end the <script> holding it or open an HTML comment in it) and without
    a raw newline (json.dumps escapes them)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def render(data: Dict) -> str:
    """The page: template with the style, the data and the script inlined.
    The details of the routines (points, fits) are one JSON text per line,
    which the page parses only for the routine shown: loading parses the
    table's rows alone."""
    data = dict(data)
    details = "\n".join(_json(d) for d in data.pop("details"))
    sources = data.pop("sources", "")
    values = {"TITLE": html.escape(" ; ".join(data["commands"]) or "aprof-trms report"),
              "STYLE": _asset("report.css"), "DATA": _json(data), "DETAILS": details,
              "SOURCES": sources, "SCRIPT": _asset("report.js") + _asset("calls.js")}
    # One pass: a routine name containing "@SCRIPT@" stays text.
    return re.sub(r"@(TITLE|STYLE|DATA|DETAILS|SOURCES|SCRIPT)@", lambda m: values[m.group(1)],
                  _asset("report.html"))


def parse_args(argv):
    p = cli.argument_parser(
        description="Write one self-contained HTML file (no network, no server) to browse a "
        "profile: routine table, cost plots, ranking and regressions.",
        epilog="Exit status: 0 done, 1 bad input or unwritable output, 2 bad usage.")
    p.add_argument("reports", nargs="+", metavar="REPORT|DIR",
                   help="aprof-trms reports, or directories of aprof-trms.out.* files (all merged)")
    p.add_argument("-o", "--output", default=DEFAULT_OUTPUT, metavar="FILE",
                   help=f"HTML file to write (default {DEFAULT_OUTPUT})")
    # One value per option (repeat it for several): `--baseline A B` is the
    # baseline A and the reports B, as a user means it; nargs="+" took B as
    # a baseline too and then asked for the reports.
    p.add_argument("--baseline", action="append", metavar="REPORT|DIR", default=None,
                   help="a report or directory of reports of a reference version (repeat "
                   "for several; merged): add the regression comparison")
    p.add_argument("--graph-edges", type=int, default=html_graph.DEFAULT_EDGES, metavar="N",
                   help="edges of the producer-to-consumer graph of reports with input sources: "
                        f"the N heaviest (default {html_graph.DEFAULT_EDGES})")
    selection_parser(p)
    args = p.parse_args(argv)
    if args.graph_edges < 1:
        p.error("--graph-edges must be at least 1")
    return args


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    reading = html_threads.load(args.reports)
    baseline = aprof_profile.load_profile(args.baseline) if args.baseline else None
    data = report_data(reading, [cli.program_name()] + list(sys.argv[1:] if argv is None else argv),
                       baseline, args, args.graph_edges)
    output.write_text(args.output, render(data))
    print(args.output)
    return cli.EXIT_OK
