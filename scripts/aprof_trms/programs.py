# SPDX-License-Identifier: GPL-2.0-or-later
# The sums of a program that the program-level charts show: per routine its
# distinct sizes, richness, input volume and induced reads, and per thread
# the root routine that counts each induced read once.
#
# Copyright (C) 2026, the aprof-trms authors.
"""The numbers behind charts.py's program-level charts (its module
docstring says what they mean and how each induced read is counted once),
shared with the annotate table (table.py) and the HTML report.

    program = programs.program_of("zlib", reports, selection_args)
    top, with_induced = programs.top_induced(program, 30)
"""
import argparse
import dataclasses
from typing import Dict, List, Optional, Tuple

from . import profile as aprof_profile
from . import report as aprof_report
from . import select
from .names import printable

__all__ = ["RoutineStats", "ThreadRoot", "Program", "RootSums", "add_root_sums", "thread_roots",
           "routine_stats", "LABEL_WIDTH", "program_from", "program_of", "top_induced", "percent"]


def percent(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole else 0.0


@dataclasses.dataclass
class RoutineStats:
    name: str
    calls: int
    cumulative_cost: int
    distinct_trms: int
    distinct_rms: int
    sum_trms: int
    sum_rms: int
    thread_induced: int
    external: int

    @property
    def induced(self) -> int:
        return self.thread_induced + self.external

    @property
    def richness(self) -> float:
        return (self.distinct_trms - self.distinct_rms) / self.distinct_rms if self.distinct_rms else 0.0

    @property
    def volume(self) -> float:
        return 1.0 - self.sum_rms / self.sum_trms if self.sum_trms else 0.0

    @property
    def induced_share(self) -> float:
        """% of the routine's TRMS that is induced."""
        return percent(self.induced, self.sum_trms)


@dataclasses.dataclass
class ThreadRoot:
    report: str
    thread: int
    root: Optional[str]      # None: no routine ran in the thread
    coverage: float          # root's cumulative cost / thread's total cost
    thread_induced: int
    external: int


@dataclasses.dataclass
class Program:
    label: str
    paths: List[str]
    cost_metric: str
    routines: List[RoutineStats]
    roots: List[ThreadRoot]

    @property
    def thread_induced(self) -> int:
        return sum(r.thread_induced for r in self.roots)

    @property
    def external(self) -> int:
        return sum(r.external for r in self.roots)


RootSums = Dict[Tuple[int, int], List[int]]   # (thread, routine) -> [thread-induced, external, sum of activation costs]


def add_root_sums(sums: RootSums, metric: str, t: aprof_report.CostTuple) -> None:
    """Adds a trms record to the per-thread sums that thread_roots reads
    (an rms record adds nothing)."""
    if metric != "trms":
        return
    s = sums.get((t.thread, t.routine))
    if s is None:
        s = sums[(t.thread, t.routine)] = [0, 0, 0]
    s[0] += t.sum_thread_induced
    s[1] += t.sum_external
    s[2] += t.sum_cost


def thread_roots(report: aprof_report.Report, sums: Optional[RootSums] = None) -> List[ThreadRoot]:
    """Per thread, the routine whose induced reads count each induced read of
    the thread once (module docstring). `sums`: the add_root_sums of the
    report's trms records when the report was read without them."""
    if sums is None:
        sums = {}
        for t in report.trms.values():
            add_root_sums(sums, "trms", t)
    best: Dict[int, tuple] = {}   # thread -> (key, routine, ti, ext, cumulative)
    for (thread, routine), (ti, ext, cost) in sums.items():
        totals = report.totals.get((thread, routine))
        cumulative = totals.cumulative_cost if totals else cost
        if cost > cumulative:
            continue  # recursive in this thread: nested activations counted twice
        key = (ti + ext, cumulative, -routine)   # unique: a thread's routines differ
        if thread not in best or key > best[thread][0]:
            best[thread] = (key, routine, ti, ext, cumulative)
    roots = []
    for serial in sorted(report.threads):
        total = report.threads[serial].total_cost
        if serial not in best:
            roots.append(ThreadRoot(report.path, serial, None, 0.0, 0, 0))
        else:
            _, routine, ti, ext, cumulative = best[serial]
            roots.append(ThreadRoot(report.path, serial, report.routines[routine].name,
                                    cumulative / total if total else 1.0, ti, ext))
    return roots


def routine_stats(r: aprof_profile.RoutineProfile) -> RoutineStats:
    """The numbers of a routine, its trms points read once (not once per sum)."""
    sum_trms = thread_induced = external = sum_rms = 0
    for size, p in r.trms.items():
        sum_trms += size * p.calls
        thread_induced += p.sum_thread_induced
        external += p.sum_external
    for size, p in r.rms.items():
        sum_rms += size * p.calls
    return RoutineStats(r.name, r.calls, r.cumulative_cost, len(r.trms), len(r.rms),
                        sum_trms, sum_rms, thread_induced, external)


# The longest program label drawn: a title of a megabyte makes matplotlib's
# rasteriser fail ("raster overflow"), and no one reads past this.
LABEL_WIDTH = 60


def program_from(label: str, profile: aprof_profile.Profile, roots: List[ThreadRoot],
             selection_args: argparse.Namespace) -> Program:
    """The program of a profile and its threads' roots; its per-routine
    numbers cover the routines the selection options leave."""
    routines = [routine_stats(r) for r in select.select_routines(profile, selection_args).routines]
    label = printable(label)
    if len(label) > LABEL_WIDTH:
        label = label[:LABEL_WIDTH - 1] + "…"
    return Program(label, profile.paths, profile.cost_metric, routines, roots)


def program_of(label: str, reports: List[aprof_report.Report],
               selection_args: argparse.Namespace) -> Program:
    """The program of these reports; its per-routine numbers cover the
    routines the selection options leave (all by default)."""
    roots = [root for rep in reports for root in thread_roots(rep)]
    return program_from(label, aprof_profile.merge(reports), roots, selection_args)


def top_induced(program: Program, n: int) -> Tuple[List[RoutineStats], int]:
    """The n routines with the largest induced share, and how many routines
    have any induced input."""
    with_induced = [r for r in program.routines if r.induced > 0]
    with_induced.sort(key=lambda r: (-r.induced_share, -r.induced, -r.cumulative_cost, r.name))
    return with_induced[:n], len(with_induced)
