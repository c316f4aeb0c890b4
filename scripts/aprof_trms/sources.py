# SPDX-License-Identifier: GPL-2.0-or-later
# Where each routine's input came from (reports of --input-sources=yes): the
# reads per producer of each consumer routine, and the producer-to-consumer
# graph of a report, as data (drawn by sources_graph.py and html_graph.py).
#
# Copyright (C) 2026, the aprof-trms authors.
"""Input sources of aprof-trms reports run with --input-sources=yes.

A routine's *own* induced reads (made by its code, not its callees) are
counted by producer: another thread's routine that made the latest write
of the cell, or the system call through which the kernel wrote it
(docs/report-format.md, thread-source and kernel-source records).

    from aprof_trms import profile, sources
    prof = profile.load_profile(["aprof-trms.out.4242"])
    for producer, reads in sources.top_producers(prof, routine_key, 5):
        print(producer.label, reads)

profile.py adds every report's source records to Profile.sources
(add_report); the producers command (producers.py) lists them and draws
the graph of graph_of (sources_graph.py).
"""
import dataclasses
from typing import Dict, List, Optional, Tuple

from . import names
from . import report as aprof_report

__all__ = ["Producer", "SourceCounts", "Node", "Graph", "DEFAULT_EDGES", "add_report",
           "top_producers", "top_consumers", "graph_of", "graph_edges"]

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
