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
           "chosen_consumers", "graph_of", "graph_edges", "label_spots", "thread_starts",
           "thread_groups", "thread_colour", "subtitle", "main"]

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
# Producer-to-consumer graph of one report: the PNG of --graph and the SVG of
# the HTML report (html_graph.py) draw the same Graph.
# ---------------------------------------------------------------------------

# ("thread", group, routine name) or ("kernel", 0, syscall); a group is the
# smallest serial of the threads it stands for (Graph.groups).
Node = Tuple[str, int, str]

DEFAULT_EDGES = 30  # drawn by default: the 30 heaviest

# matplotlib's "tab10" colours without its grey, which is the system calls':
# one per thread group, in order; more groups get hues spread by the golden
# angle (thread_colour), so that no two groups shown share a colour.
THREAD_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                  "#8c564b", "#e377c2", "#bcbd22", "#17becf")
KERNEL_COLOUR = "#737373"


def thread_colour(i: int) -> str:
    """The colour of the i-th thread group (0, 1, ...): distinct for every
    i, never a grey."""
    if i < len(THREAD_COLOURS):
        return THREAD_COLOURS[i]
    import colorsys
    hue = (0.13 + 0.618033988749895 * i) % 1.0
    lightness = (0.35, 0.5, 0.42)[i % 3]
    r, g, b = colorsys.hls_to_rgb(hue, lightness, 0.75)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


LAUNCHER_SHARE = 0.95   # a routine passing this share of its cost to one callee launches it


def thread_starts(rep: aprof_report.Report) -> Dict[int, str]:
    """Per thread serial, the routine the thread started in: from the
    thread's first routine (one no routine of the thread called, the
    costliest), through the runtime entry wrappers (clone3, start_thread,
    _start, __libc_start_main...: select.is_entry_wrapper) and launchers
    (one at most, right below them: a routine whose costliest callee holds
    LAUNCHER_SHARE of its cost, and its self cost less than 1%, such as
    pigz's `ignition`, which every thread of its pools starts in and which
    calls the thread's own function), to the first routine that is
    neither, following the costliest call. Empty for a report without call
    records."""
    from . import select
    callees: Dict[Tuple[int, int], List[Tuple[int, int]]] = {}
    called = set()
    for (thread, caller, callee), e in rep.calls.items():
        if caller != callee:
            callees.setdefault((thread, caller), []).append((e.inclusive_cost, callee))
            called.add((thread, callee))
    firsts: Dict[int, Tuple[int, int]] = {}
    for (thread, rid), t in rep.totals.items():
        if (thread, rid) not in called and rep.calls:
            firsts[thread] = max(firsts.get(thread, (-1, rid)), (t.cumulative_cost, rid))

    def launcher(thread: int, rid: int) -> bool:
        t = rep.totals.get((thread, rid))
        cost = max(callees[(thread, rid)])[0]
        return t is not None and t.self_cost < 0.01 * t.cumulative_cost and \
            cost >= LAUNCHER_SHARE * t.cumulative_cost

    def costliest_callee(thread: int, rid: int) -> Optional[int]:
        return max(callees[(thread, rid)])[1] if callees.get((thread, rid)) else None

    starts = {}
    for thread, (_, rid) in firsts.items():
        seen = {rid}
        following = costliest_callee(thread, rid)
        while select.is_entry_wrapper(rep.routines[rid]) and following not in seen | {None}:
            rid = following
            seen.add(rid)
            following = costliest_callee(thread, rid)
        if callees.get((thread, rid)) and launcher(thread, rid):
            rid = costliest_callee(thread, rid)
        starts[thread] = rep.routines[rid].name
    return starts


def thread_groups(rep: aprof_report.Report, merge: bool = True) -> Dict[int, Tuple[int, ...]]:
    """Per thread serial, the serials of its group, smallest first: the
    threads that started in the same routine (thread_starts: the 37 workers
    of a pool are one group), or each thread alone (merge False, or no call
    records to tell)."""
    starts = thread_starts(rep) if merge else {}
    by_start: Dict[str, List[int]] = {}
    for serial in sorted(rep.threads):
        by_start.setdefault(starts.get(serial, f"\0{serial}"), []).append(serial)
    return {serial: tuple(group) for group in by_start.values() for serial in group}


@dataclasses.dataclass
class Graph:
    """The heaviest edges of a report's producer-to-consumer graph, and what
    the cut left out."""
    edges: List[Tuple[Node, Node, int]]  # (producer, consumer, reads), heaviest first
    producers: List[Node]                # the edges' producers, most reads first
    consumers: List[Node]                # the edges' consumers, most reads first
    total_edges: int                     # of the whole graph
    total_reads: int                     # induced reads of the whole graph
    # The serials of each thread group (Node's group): the group's threads.
    groups: Dict[int, Tuple[int, ...]] = dataclasses.field(default_factory=dict)
    starts: Dict[int, str] = dataclasses.field(default_factory=dict)  # group: its start routine

    @property
    def left_out_edges(self) -> int:
        return self.total_edges - len(self.edges)

    @property
    def left_out_reads(self) -> int:
        return self.total_reads - sum(reads for _, _, reads in self.edges)

    def colour(self, node: Node) -> str:
        """One colour per thread group of the graph's nodes, in order of
        serial, distinct (thread_colour); grey for system calls."""
        if node[0] == "kernel":
            return KERNEL_COLOUR
        groups = sorted({n[1] for n in self.producers + self.consumers if n[0] == "thread"})
        return thread_colour(groups.index(node[1]))

    def threads_label(self, group: int) -> str:
        """'T5', or 'T2-T38 (37 threads)' for a group of threads."""
        serials = self.groups.get(group, (group,))
        if len(serials) == 1:
            return f"T{serials[0]}"
        return f"T{serials[0]}-T{serials[-1]} ({len(serials)} threads)"

    def node_label(self, node: Node, width: Optional[int] = 38) -> str:
        """'T<serial> routine' (a group: 'T2-T38 (37 threads) routine') or
        'syscall name', the name shortened to about `width` characters as
        names.short_name does (None: whole)."""
        kind, group, name = node
        short = names.printable(name) if width is None else names.short_name(name, width)
        return f"syscall {short}" if kind == "kernel" else f"{self.threads_label(group)} {short}"


def _all_edges(rep: aprof_report.Report,
               groups: Dict[int, Tuple[int, ...]]) -> Dict[Tuple[Node, Node], int]:
    def name(rid: Optional[int]) -> str:
        return "(no routine)" if rid is None else rep.routines[rid].name

    def group(serial: int) -> int:   # a parent's thread before fork() (0) is its own
        return groups.get(serial, (serial,))[0]

    edges: Dict[Tuple[Node, Node], int] = {}
    for s in rep.thread_sources.values():
        e = (("thread", group(s.producer_thread), name(s.producer_routine)),
             ("thread", group(s.thread), name(s.routine)))
        edges[e] = edges.get(e, 0) + s.reads
    for s in rep.kernel_sources.values():
        e = (("kernel", 0, s.syscall), ("thread", group(s.thread), name(s.routine)))
        edges[e] = edges.get(e, 0) + s.reads
    return edges


def graph_of(rep: aprof_report.Report, limit: int, merge_threads: bool = True) -> Graph:
    """The graph of the report's `limit` heaviest (producer, consumer) edges;
    a node is a routine of a thread group (thread_groups: the threads that
    started in the same routine, unless merge_threads is False) or a system
    call. Reads between two threads of a group are an edge of the group to
    itself."""
    groups = thread_groups(rep, merge_threads)
    starts = thread_starts(rep) if merge_threads else {}
    edges = _all_edges(rep, groups)
    ranked = sorted(edges.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    kept = [(p, c, reads) for (p, c), reads in ranked]

    def by_weight(end: int) -> List[Node]:
        weight: Dict[Node, int] = {}
        for edge in kept:
            weight[edge[end]] = weight.get(edge[end], 0) + edge[2]
        return sorted(weight, key=lambda n: (-weight[n], n))

    return Graph(kept, by_weight(0), by_weight(1), len(edges), sum(edges.values()),
                 {g[0]: g for g in groups.values()},
                 {g[0]: starts[g[0]] for g in groups.values() if g[0] in starts})


def graph_edges(rep: aprof_report.Report, limit: int) -> List[Tuple[Node, Node, int]]:
    """The `limit` heaviest (producer, consumer, reads) edges of a report,
    heaviest first."""
    return graph_of(rep, limit).edges


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


def subtitle(command: str, width: int, lines: int = 3) -> str:
    """The command line wrapped at `width` characters between words, at
    most `lines` lines ('…' after the last word that fits)."""
    import textwrap
    return "\n".join(textwrap.wrap(command, width, max_lines=lines, placeholder=" …",
                                   break_long_words=False, break_on_hyphens=False))


def draw_graph(rep: aprof_report.Report, path: str, fmt: str, limit: int,
               size: Tuple[int, int], dpi: int, merge_threads: bool = True) -> None:
    """Producers on the left, consumers on the right, one colour per thread
    group (grey: system calls); an edge's width grows with log(reads), its
    reads are written on it where the label has room (label_spots)."""
    from . import plotting
    plt = plotting.pyplot()
    graph = graph_of(rep, limit, merge_threads)
    if not graph.edges:
        raise aprof_report.ReportError(rep.path, 1, "no thread-source or kernel-source "
                                       "record: run the program with --input-sources=yes")

    def place(nodes: List[Node]) -> Dict[Node, float]:
        return {n: 1 - (i + 0.5) / len(nodes) for i, n in enumerate(nodes)}

    y_p, y_c = place(graph.producers), place(graph.consumers)
    fig = plt.figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
    command = names.printable(" ".join(rep.header.command))
    # A 10-point character is about 0.6 em wide: the line's characters at this size.
    title = (f"Induced reads, producer -> consumer ({len(graph.edges)} heaviest edges)\n"
             + subtitle(command, int(size[0] / (0.6 * 10 * dpi / 72))))
    fig.suptitle(title, fontsize=10)
    # Below the title's lines (about 15 pixels each at 100 dpi) and the column heads.
    top = 1 - (12 + (15 * title.count("\n") + 15 + 26) * dpi / 100) / size[1]
    ax = fig.add_axes((0, 0, 1, top))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    heaviest = graph.edges[0][2]
    x0, x1 = 0.33, 0.67   # where the edges start and end (axes fraction)

    def point_at(p: Node, c: Node, t: float) -> Tuple[float, float]:
        return x0 + (x1 - x0) * t, y_p[p] + (y_c[c] - y_p[p]) * t

    # A 7-point label such as "1,048,576": about 50 x 13 pixels, in axes fractions.
    room = (50 / size[0], 13 / (size[1] * top))
    for (p, c, reads), spot in zip(graph.edges, label_spots(graph.edges, point_at, room)):
        ax.plot([x0, x1], [y_p[p], y_c[c]], color=graph.colour(p), alpha=0.55,
                linewidth=edge_width(reads, heaviest), solid_capstyle="round")
        if spot:
            ax.text(spot[0], spot[1], f"{reads:,}", fontsize=7, ha="center", va="center", color="0.2",
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.7))
    for node, y in y_p.items():
        ax.text(0.32, y, graph.node_label(node), ha="right", va="center", fontsize=8,
                color=graph.colour(node))
    for node, y in y_c.items():
        ax.text(0.68, y, graph.node_label(node), ha="left", va="center", fontsize=8,
                color=graph.colour(node))
    ax.text(0.32, 1.0, "producers", ha="right", va="bottom", fontsize=9, weight="bold")
    ax.text(0.68, 1.0, "consumers", ha="left", va="bottom", fontsize=9, weight="bold")
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


# The fields of a row of the JSON output (docs/json-format.md): one per
# (consumer, producer) line of the text.
FIELDS = ["consumer", "consumer_object", "consumer_reads", "producer", "producer_kind",
          "producer_object", "reads", "share_pct"]


def summary_rows(profile, consumers: int, top: int, selection_args=None) -> List[dict]:
    """Per consumer (chosen_consumers), its `top` producers: one row each
    (FIELDS), with the names as the text shows them."""
    from . import select
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
