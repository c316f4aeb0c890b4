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
import colorsys
import dataclasses
from typing import Dict, List, Optional, Tuple

from . import names
from . import report as aprof_report
from . import select

__all__ = ["Producer", "SourceCounts", "Node", "Graph", "DEFAULT_EDGES", "add_report",
           "top_producers", "top_consumers", "thread_colour", "thread_starts", "thread_groups",
           "graph_of", "graph_edges"]

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
