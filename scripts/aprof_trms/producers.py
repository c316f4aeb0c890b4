# SPDX-License-Identifier: GPL-2.0-or-later
# Where each routine's input came from (reports of --input-sources=yes): top
# producers per consumer routine, and the producer-to-consumer graph.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Input sources of aprof-trms reports run with --input-sources=yes.

A routine's *own* induced reads (made by its code, not its callees) are
counted by producer: another thread's routine that made the latest write
of the cell, or the system call through which the kernel wrote it
(docs/report-format.md, thread-source and kernel-source records).

    from aprof_trms import profile, producers
    prof = profile.load_profile(["aprof-trms.out.4242"])
    for producer, reads in producers.top_producers(prof, routine_key, 5):
        print(producer.label, reads)

The `producers` command prints, for the consumers with the most induced
reads, their top producers, and with --graph draws the producer-to-consumer
graph of one report: threads' routines and system calls as nodes, induced
reads as edges whose width grows with the number of reads.

    producers.py [--consumers N] [--top N] [selection options]
                 [--graph FILE.png] REPORT...

The selection options are those of the other commands (select.py: -r NAME,
-e RE, --object, --hide-libc...): they choose the consumers listed.
"""
import dataclasses
import math
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import names
from . import report as aprof_report

__all__ = ["Producer", "SourceCounts", "Graph", "add_report", "top_producers", "top_consumers",
           "chosen_consumers", "graph_of", "graph_edges", "label_spots", "main"]

RoutineKey = Tuple[str, str]  # (object path, mangled name), as in profile.py


@dataclasses.dataclass(frozen=True, order=True)
class Producer:
    """Who wrote the cells behind induced reads: a routine of another thread
    (routine None: outside every routine) or a system call."""
    kind: str                          # "thread" or "kernel"
    routine: Optional[RoutineKey] = None
    name: str = ""                     # routine's demangled name, or the system call

    @property
    def label(self) -> str:
        if self.kind == "kernel":
            return f"syscall {names.printable(self.name)}"
        return names.printable(self.name) if self.routine is not None else "(outside every routine)"


# {consumer routine key (None: outside every routine): {producer: reads}}
SourceCounts = Dict[Optional[RoutineKey], Dict[Producer, int]]


def add_report(counts: SourceCounts, rep: aprof_report.Report,
               keys: Dict[int, RoutineKey]) -> None:
    """Adds a report's source records to counts, over its threads; keys maps
    the report's routine ids to merge keys (profile.keys_of)."""
    def producer_of_thread(rid: Optional[int]) -> Producer:
        if rid is None:
            return Producer("thread")
        return Producer("thread", keys[rid], rep.routines[rid].name)

    for s in rep.thread_sources.values():
        consumer = None if s.routine is None else keys[s.routine]
        per = counts.setdefault(consumer, {})
        p = producer_of_thread(s.producer_routine)
        per[p] = per.get(p, 0) + s.reads
    for s in rep.kernel_sources.values():
        consumer = None if s.routine is None else keys[s.routine]
        per = counts.setdefault(consumer, {})
        p = Producer("kernel", None, s.syscall)
        per[p] = per.get(p, 0) + s.reads


def top_producers(profile, routine_key: Optional[RoutineKey], n: int) -> List[Tuple[Producer, int]]:
    """The n producers of most of the routine's own induced reads, with their
    reads, most first (ties by label); [] without source records. `profile`
    is an aprof_trms.profile.Profile."""
    per = profile.sources.get(routine_key, {})
    return sorted(per.items(), key=lambda item: (-item[1], item[0].label))[:n]


def top_consumers(profile, n: int) -> List[Tuple[Optional[RoutineKey], int]]:
    """The n consumer routines with the most own induced reads."""
    totals = [(key, sum(per.values())) for key, per in profile.sources.items()]
    return sorted(totals, key=lambda kv: (-kv[1], str(kv[0])))[:n]


# ---------------------------------------------------------------------------
# Producer-to-consumer graph of one report: the PNG of --graph and the SVG of
# the HTML report (html_graph.py) draw the same Graph.
# ---------------------------------------------------------------------------

Node = Tuple[str, int, str]  # ("thread", serial, routine name) or ("kernel", 0, syscall)

DEFAULT_EDGES = 30  # drawn by default: the 30 heaviest

# matplotlib's "tab10" colours: one per thread, in order of serial; system
# calls are grey.
THREAD_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
KERNEL_COLOUR = "#737373"


@dataclasses.dataclass
class Graph:
    """The heaviest edges of a report's producer-to-consumer graph, and what
    the cut left out."""
    edges: List[Tuple[Node, Node, int]]  # (producer, consumer, reads), heaviest first
    producers: List[Node]                # the edges' producers, most reads first
    consumers: List[Node]                # the edges' consumers, most reads first
    total_edges: int                     # of the whole graph
    total_reads: int                     # induced reads of the whole graph

    @property
    def left_out_edges(self) -> int:
        return self.total_edges - len(self.edges)

    @property
    def left_out_reads(self) -> int:
        return self.total_reads - sum(reads for _, _, reads in self.edges)

    def colour(self, node: Node) -> str:
        """One colour per thread of the graph's nodes, in order of serial."""
        if node[0] == "kernel":
            return KERNEL_COLOUR
        threads = sorted({n[1] for n in self.producers + self.consumers if n[0] == "thread"})
        return THREAD_COLOURS[threads.index(node[1]) % len(THREAD_COLOURS)]


def _all_edges(rep: aprof_report.Report) -> Dict[Tuple[Node, Node], int]:
    def name(rid: Optional[int]) -> str:
        return "(no routine)" if rid is None else rep.routines[rid].name

    edges: Dict[Tuple[Node, Node], int] = {}
    for s in rep.thread_sources.values():
        e = (("thread", s.producer_thread, name(s.producer_routine)),
             ("thread", s.thread, name(s.routine)))
        edges[e] = edges.get(e, 0) + s.reads
    for s in rep.kernel_sources.values():
        e = (("kernel", 0, s.syscall), ("thread", s.thread, name(s.routine)))
        edges[e] = edges.get(e, 0) + s.reads
    return edges


def graph_of(rep: aprof_report.Report, limit: int) -> Graph:
    """The graph of the report's `limit` heaviest (producer, consumer) edges;
    a node is a thread's routine or a system call."""
    edges = _all_edges(rep)
    ranked = sorted(edges.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    kept = [(p, c, reads) for (p, c), reads in ranked]

    def by_weight(end: int) -> List[Node]:
        weight: Dict[Node, int] = {}
        for edge in kept:
            weight[edge[end]] = weight.get(edge[end], 0) + edge[2]
        return sorted(weight, key=lambda n: (-weight[n], n))

    return Graph(kept, by_weight(0), by_weight(1), len(edges), sum(edges.values()))


def graph_edges(rep: aprof_report.Report, limit: int) -> List[Tuple[Node, Node, int]]:
    """The `limit` heaviest (producer, consumer, reads) edges of a report,
    heaviest first."""
    return graph_of(rep, limit).edges


def node_label(node: Node, width: Optional[int] = 38) -> str:
    """'T<serial> routine' or 'syscall name', the name shortened to about
    `width` characters as names.short_name does (None: whole)."""
    kind, serial, name = node
    short = names.printable(name) if width is None else names.short_name(name, width)
    return f"syscall {short}" if kind == "kernel" else f"T{serial} {short}"


def edge_width(reads: int, heaviest: int) -> float:
    """An edge's line width (points): from 0.5 to 5.5, growing with log(reads)."""
    return 0.5 + 5 * math.log1p(reads) / math.log1p(heaviest)


LABEL_SPOTS = (0.5, 0.38, 0.62, 0.27, 0.73)  # where along an edge its reads label may go


def label_spots(edges: Sequence[Tuple[Node, Node, int]],
                point_at: Callable[[Node, Node, float], Tuple[float, float]],
                room: Tuple[float, float]) -> List[Optional[Tuple[float, float]]]:
    """Per edge (heaviest first), where its reads label goes: the first spot
    of LABEL_SPOTS along the edge (point_at(producer, consumer, t) -> (x, y))
    whose label, `room` = (width, height) around it, overlaps none placed
    before; None when every spot would (the heavier edges keep theirs)."""
    placed: List[Tuple[float, float]] = []
    spots: List[Optional[Tuple[float, float]]] = []
    w, h = room
    for p, c, _ in edges:
        spot = None
        for t in LABEL_SPOTS:
            x, y = point_at(p, c, t)
            if all(abs(x - px) >= w or abs(y - py) >= h for px, py in placed):
                spot = (x, y)
                placed.append(spot)
                break
        spots.append(spot)
    return spots


def draw_graph(rep: aprof_report.Report, path: str, fmt: str, limit: int,
               size: Tuple[int, int], dpi: int) -> None:
    """Producers on the left, consumers on the right, one colour per thread
    (grey: system calls); an edge's width grows with log(reads), its reads
    are written on it where the label has room (label_spots)."""
    from . import plotting
    plt = plotting.pyplot()
    graph = graph_of(rep, limit)
    if not graph.edges:
        raise aprof_report.ReportError(rep.path, 1, "no thread-source or kernel-source "
                                       "record: run the program with --input-sources=yes")

    def place(nodes: List[Node]) -> Dict[Node, float]:
        return {n: 1 - (i + 0.5) / len(nodes) for i, n in enumerate(nodes)}

    y_p, y_c = place(graph.producers), place(graph.consumers)
    fig = plt.figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 0.93))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    heaviest = graph.edges[0][2]
    x0, x1 = 0.33, 0.67   # where the edges start and end (axes fraction)

    def point_at(p: Node, c: Node, t: float) -> Tuple[float, float]:
        return x0 + (x1 - x0) * t, y_p[p] + (y_c[c] - y_p[p]) * t

    # A 7-point label such as "1,048,576": about 50 x 13 pixels, in axes fractions.
    room = (50 / size[0], 13 / (size[1] * 0.93))
    for (p, c, reads), spot in zip(graph.edges, label_spots(graph.edges, point_at, room)):
        ax.plot([x0, x1], [y_p[p], y_c[c]], color=graph.colour(p), alpha=0.55,
                linewidth=edge_width(reads, heaviest), solid_capstyle="round")
        if spot:
            ax.text(spot[0], spot[1], f"{reads:,}", fontsize=7, ha="center", va="center", color="0.2",
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.7))
    for node, y in y_p.items():
        ax.text(0.32, y, node_label(node), ha="right", va="center", fontsize=8,
                color=graph.colour(node))
    for node, y in y_c.items():
        ax.text(0.68, y, node_label(node), ha="left", va="center", fontsize=8,
                color=graph.colour(node))
    ax.text(0.32, 1.0, "producers", ha="right", va="bottom", fontsize=9, weight="bold")
    ax.text(0.68, 1.0, "consumers", ha="left", va="bottom", fontsize=9, weight="bold")
    command = names.printable(" ".join(rep.header.command))
    fig.suptitle(f"Induced reads, producer -> consumer ({len(graph.edges)} heaviest edges)\n"
                 f"{command[:90]}", fontsize=10)
    plotting.save_figure(fig, path, fmt, dpi)


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------

# select.py is imported where it is used: it needs cli, which needs
# profile, which needs this module.

def _routine_label(profile, key: Optional[RoutineKey], short: bool = False) -> str:
    from . import select
    if key is None:
        return "(outside every routine)"
    return select.label(profile.routines[key].name, short)


def chosen_consumers(profile, consumers: int,
                     selection_args=None) -> List[Tuple[Optional[RoutineKey], int]]:
    """The `consumers` routines with the most own induced reads among those
    the selection options (select.add_selection_arguments) choose; reads
    outside every routine count as a consumer only when no option filters."""
    from . import select
    if selection_args is None:
        return top_consumers(profile, consumers)
    a = selection_args
    filtered = bool(a.routine or a.regex or a.object or a.exclude_object or a.hide_libc
                    or a.min_share)
    chosen = {r.key for r in select.select_routines(profile, a).routines}
    totals = [(key, sum(per.values())) for key, per in profile.sources.items()
              if key in chosen or (key is None and not filtered)]
    return sorted(totals, key=lambda kv: (-kv[1], str(kv[0])))[:consumers]


def summary_text(profile, consumers: int, top: int, selection_args=None) -> str:
    """Per consumer (chosen_consumers), its `top` producers with reads and
    share."""
    from . import select
    short = bool(getattr(selection_args, "short_names", False))
    lines = []
    for key, total in chosen_consumers(profile, consumers, selection_args):
        lines.append(f"{_routine_label(profile, key, short)}: {total:,} induced reads by its own code")
        for producer, reads in top_producers(profile, key, top):
            label = select.label(producer.label, short) if producer.routine else producer.label
            lines.append(f"  {100 * reads / total:6.2f}%  {reads:>12,}  {label}")
    return "\n".join(lines) + ("\n" if lines else "")


def main(argv: Optional[Sequence[str]] = None) -> int:
    from . import cli, plotting, profile as aprof_profile, select
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
    group = parser.add_argument_group("picture")
    plotting.add_output_options(group, "the graph", "1400x900")
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
    print(summary_text(prof, args.consumers, args.top, args), end="")
    if args.graph:
        path, fmt = plotting.format_of_path(args.graph, "png")
        draw_graph(reports[0], path, fmt, args.edges, plotting.parse_size(args.size), args.dpi)
        if not args.quiet:
            print(path)
    return cli.EXIT_OK
