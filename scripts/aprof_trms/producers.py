# Where each routine's input came from (reports of --input-sources=yes): top
# producers per consumer routine, and the producer-to-consumer graph.
#
# Copyright (C) 2026, the aprof-trms authors.
# SPDX-License-Identifier: GPL-2.0-or-later
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

    producers.py [--consumers N] [--top N] [--routine PATTERN]
                 [--graph FILE.png] REPORT...
"""
import dataclasses
import fnmatch
import math
from typing import Dict, List, Optional, Sequence, Tuple

from . import report as aprof_report

__all__ = ["Producer", "SourceCounts", "add_report", "top_producers", "top_consumers",
           "graph_edges", "main"]

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
            return f"syscall {self.name}"
        return self.name if self.routine is not None else "(outside every routine)"


# {consumer routine key (None: outside every routine): {producer: reads}}
SourceCounts = Dict[Optional[RoutineKey], Dict[Producer, int]]


def add_report(counts: SourceCounts, rep: aprof_report.Report,
               keys: Dict[int, RoutineKey]) -> None:
    """Adds a report's source records to counts, over its threads; keys maps
    the report's routine ids to merge keys (profile._keys_of)."""
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
# Producer-to-consumer graph of one report.
# ---------------------------------------------------------------------------

Node = Tuple[str, int, str]  # ("thread", serial, routine name) or ("kernel", 0, syscall)


def graph_edges(rep: aprof_report.Report, limit: int) -> List[Tuple[Node, Node, int]]:
    """The `limit` heaviest (producer, consumer, reads) edges of a report,
    heaviest first; a node is a thread's routine or a system call."""
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
    ranked = sorted(edges.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [(p, c, reads) for (p, c), reads in ranked]


def _node_label(node: Node) -> str:
    kind, serial, name = node
    short = name if len(name) <= 38 else name[:35] + "..."
    return f"syscall {short}" if kind == "kernel" else f"T{serial} {short}"


def draw_graph(rep: aprof_report.Report, path: str, fmt: str, limit: int,
               size: Tuple[int, int], dpi: int) -> None:
    """Producers on the left, consumers on the right, one colour per thread
    (grey: system calls); an edge's width grows with log(reads)."""
    from . import plotting
    plt = plotting.pyplot()
    edges = graph_edges(rep, limit)
    if not edges:
        raise aprof_report.ReportError(rep.path, 1, "no thread-source or kernel-source "
                                       "record: run the program with --input-sources=yes")
    producers = sorted({p for p, _, _ in edges}, key=lambda n: -sum(r for p, _, r in edges if p == n))
    consumers = sorted({c for _, c, _ in edges}, key=lambda n: -sum(r for _, c, r in edges if c == n))

    def place(nodes: List[Node]) -> Dict[Node, float]:
        return {n: 1 - (i + 0.5) / len(nodes) for i, n in enumerate(nodes)}

    y_p, y_c = place(producers), place(consumers)
    threads = sorted({n[1] for n in producers + consumers if n[0] == "thread"})
    palette = plt.get_cmap("tab10")
    colour = {t: palette(i % 10) for i, t in enumerate(threads)}

    def colour_of(node: Node):
        return (0.45, 0.45, 0.45, 1.0) if node[0] == "kernel" else colour[node[1]]

    fig = plt.figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 0.93))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    heaviest = edges[0][2]
    for p, c, reads in edges:
        width = 0.5 + 5 * math.log1p(reads) / math.log1p(heaviest)
        ax.plot([0.33, 0.67], [y_p[p], y_c[c]], color=colour_of(p), alpha=0.55,
                linewidth=width, solid_capstyle="round")
        ax.text(0.5, (y_p[p] + y_c[c]) / 2, f"{reads:,}", fontsize=7, ha="center", va="center",
                color="0.2", bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.7))
    for node, y in y_p.items():
        ax.text(0.32, y, _node_label(node), ha="right", va="center", fontsize=8, color=colour_of(node))
    for node, y in y_c.items():
        ax.text(0.68, y, _node_label(node), ha="left", va="center", fontsize=8, color=colour_of(node))
    ax.text(0.32, 1.0, "producers", ha="right", va="bottom", fontsize=9, weight="bold")
    ax.text(0.68, 1.0, "consumers", ha="left", va="bottom", fontsize=9, weight="bold")
    command = " ".join(rep.header.command)
    fig.suptitle(f"Induced reads, producer -> consumer ({len(edges)} heaviest edges)\n"
                 f"{command[:90]}", fontsize=10)
    plotting.save_figure(fig, path, fmt, dpi)


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------

def _routine_label(profile, key: Optional[RoutineKey]) -> str:
    return "(outside every routine)" if key is None else profile.routines[key].name


def summary_text(profile, consumers: int, top: int, pattern: Optional[str] = None) -> str:
    """Per consumer (the `consumers` with the most own induced reads, or those
    matching the glob pattern), its `top` producers with reads and share."""
    if pattern is None:
        chosen = top_consumers(profile, consumers)
    else:
        chosen = [(k, sum(per.values())) for k, per in profile.sources.items()
                  if k is not None and (fnmatch.fnmatchcase(profile.routines[k].name, pattern)
                                        or fnmatch.fnmatchcase(profile.routines[k].mangled, pattern))]
        chosen.sort(key=lambda kv: (-kv[1], str(kv[0])))
    lines = []
    for key, total in chosen:
        lines.append(f"{_routine_label(profile, key)}: {total:,} induced reads by its own code")
        for producer, reads in top_producers(profile, key, top):
            lines.append(f"  {100 * reads / total:6.2f}%  {reads:>12,}  {producer.label}")
    return "\n".join(lines) + ("\n" if lines else "")


def main(argv: Optional[Sequence[str]] = None) -> int:
    from . import cli, plotting, profile as aprof_profile
    parser = cli.argument_parser(description="Top producers of the input of each routine, from "
                                 "reports of --input-sources=yes runs.")
    parser.add_argument("--consumers", type=int, default=10, metavar="N",
                        help="consumer routines with the most own induced reads (default 10)")
    parser.add_argument("--top", type=int, default=5, metavar="N",
                        help="producers listed per consumer (default 5)")
    parser.add_argument("--routine", metavar="PATTERN",
                        help="only consumers whose name matches this glob")
    parser.add_argument("--graph", metavar="FILE",
                        help="also draw the producer-to-consumer graph of the first report "
                             "(.png, .svg or .pdf)")
    parser.add_argument("--edges", type=int, default=30, metavar="N",
                        help="edges of the graph: the N heaviest (default 30)")
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
    print(summary_text(prof, args.consumers, args.top, args.routine), end="")
    if args.graph:
        path, fmt = plotting.format_of_path(args.graph, "png")
        draw_graph(reports[0], path, fmt, args.edges, plotting.parse_size(args.size), args.dpi)
        if not args.quiet:
            print(path)
    return cli.EXIT_OK
