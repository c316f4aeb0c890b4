# SPDX-License-Identifier: GPL-2.0-or-later
# The producers command: top producers per consumer routine of reports of
# --input-sources=yes runs, and the producer-to-consumer graph.
#
# Copyright (C) 2026, the aprof-trms authors.
"""The `producers` command over the input sources of reports run with
--input-sources=yes (the data: sources.py; the picture: sources_graph.py).

The `producers` command prints, for the consumers with the most induced
reads, their top producers, and with --graph draws the producer-to-consumer
graph of one report: threads' routines and system calls as nodes, induced
reads as edges whose width grows with the number of reads.

    producers.py [--consumers N] [--top N] [selection options]
                 [--graph FILE.png] REPORT...

The selection options are those of the other commands (select.py: -r NAME,
-e RE, --object, --hide-libc...): they choose the consumers listed.
"""
from typing import List, Optional, Sequence, Tuple

from . import cli, plotting, select
from . import profile as aprof_profile
from .sources import DEFAULT_EDGES, RoutineKey, top_consumers, top_producers
from .sources_graph import draw_graph

__all__ = ["chosen_consumers", "FIELDS", "summary_rows", "summary_text", "main"]


def _routine_label(profile, key: Optional[RoutineKey], short: bool = False) -> str:
    if key is None:
        return "(outside every routine)"
    return select.label(profile.routines[key].name, short)


def chosen_consumers(profile, consumers: int,
                     selection_args=None) -> List[Tuple[Optional[RoutineKey], int]]:
    """The `consumers` routines with the most own induced reads among those
    the selection options (select.add_selection_arguments) choose; reads
    outside every routine count as a consumer only when no option filters."""
    if selection_args is None:
        return top_consumers(profile, consumers)
    a = selection_args
    filtered = bool(a.routine or a.regex or a.object or a.exclude_object or a.hide_libc
                    or a.min_share)
    chosen = {r.key for r in select.select_routines(profile, a).routines}
    totals = [(key, sum(per.values())) for key, per in profile.sources.items()
              if key in chosen or (key is None and not filtered)]
    return sorted(totals, key=lambda kv: (-kv[1], str(kv[0])))[:consumers]


# The fields of a row of the JSON output (docs/json-format.md): one per
# (consumer, producer) line of the text.
FIELDS = ["consumer", "consumer_object", "consumer_reads", "producer", "producer_kind",
          "producer_object", "reads", "share_pct"]


def summary_rows(profile, consumers: int, top: int, selection_args=None) -> List[dict]:
    """Per consumer (chosen_consumers), its `top` producers: one row each
    (FIELDS), with the names as the text shows them."""
    short = bool(getattr(selection_args, "short_names", False))
    rows = []
    for key, total in chosen_consumers(profile, consumers, selection_args):
        for producer, reads in top_producers(profile, key, top):
            rows.append({
                "consumer": _routine_label(profile, key, short),
                "consumer_object": None if key is None else profile.routines[key].object,
                "consumer_reads": total,
                "producer": select.label(producer.label, short) if producer.routine else producer.label,
                "producer_kind": producer.kind if producer.kind == "kernel" or producer.routine
                else "outside",
                "producer_object": producer.routine[0] if producer.routine else None,
                "reads": reads, "share_pct": 100 * reads / total})
    return rows


def summary_text(profile, consumers: int, top: int, selection_args=None) -> str:
    """Per consumer (chosen_consumers), its `top` producers with reads and
    share."""
    lines = []
    consumer = None
    for row in summary_rows(profile, consumers, top, selection_args):
        if (row["consumer"], row["consumer_object"]) != consumer:
            consumer = (row["consumer"], row["consumer_object"])
            lines.append(f"{row['consumer']}: {row['consumer_reads']:,} induced reads by its own code")
        lines.append(f"  {row['share_pct']:6.2f}%  {row['reads']:>12,}  {row['producer']}")
    return "\n".join(lines) + ("\n" if lines else "")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = cli.argument_parser(description="Top producers of the input of each routine, from "
                                 "reports of --input-sources=yes runs.")
    parser.add_argument("--consumers", type=int, default=10, metavar="N",
                        help="consumer routines with the most own induced reads (default 10)")
    parser.add_argument("--top", type=int, default=5, metavar="N",
                        help="producers listed per consumer (default 5)")
    select.add_selection_arguments(parser, default_choice=False, limit=False)
    parser.add_argument("--graph", metavar="FILE",
                        help="also draw the producer-to-consumer graph of the first report "
                             "(.png, .svg or .pdf)")
    parser.add_argument("--edges", type=int, default=DEFAULT_EDGES, metavar="N",
                        help=f"edges of the graph: the N heaviest (default {DEFAULT_EDGES})")
    parser.add_argument("--split-threads", action="store_true",
                        help="one graph node per thread and routine (default: the threads that "
                        "started in the same routine, such as a worker pool's, are one node)")
    cli.add_format_option(parser)
    group = parser.add_argument_group("picture")
    # The graph's format is its file name's (--graph FILE.svg): --format is the text's.
    plotting.add_output_options(group, "the graph", "1400x900", None)
    parser.add_argument("paths", nargs="+", metavar="REPORT")
    args = parser.parse_args(argv)
    plotting.check_output_options(parser, args)
    if args.consumers < 1 or args.top < 1 or args.edges < 1:
        parser.error("--consumers, --top and --edges must be at least 1")
    reports = plotting.load_reports(args.paths)
    without = [r.path for r in reports if not r.header.input_sources]
    if without:
        raise cli.UserError(f"{without[0]}: not a report of an --input-sources=yes run")
    prof = aprof_profile.merge(reports)
    if args.format == "json":
        cli.write_rows("json", "producers", FIELDS,
                       summary_rows(prof, args.consumers, args.top, args), reports=prof.paths)
    else:
        print(summary_text(prof, args.consumers, args.top, args), end="")
    if args.graph:
        path, fmt = plotting.format_of_path(args.graph, "png")
        draw_graph(reports[0], path, fmt, args.edges, plotting.parse_size(args.size), args.dpi,
                   not args.split_threads)
        if not args.quiet and args.format == "text":   # JSON: one document on stdout
            print(path)
    return cli.EXIT_OK
