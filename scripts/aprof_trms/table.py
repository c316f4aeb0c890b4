# SPDX-License-Identifier: GPL-2.0-or-later
# The per-routine table of a profile: one row of numbers per routine, shared
# by the flat annotate view and the HTML report.
#
# Copyright (C) 2026, the aprof-trms authors.
"""One row per routine: what the annotate view prints and the HTML report
shows in its routine table.

    from aprof_trms import profile as aprof_profile, table
    profile = aprof_profile.load_profile(["aprof-trms.out.4242"])
    for row in table.routine_rows(profile):
        print(row.name, row.calls, row.inclusive_share, row.fit_label("trms"))

Columns (COLUMNS names them, as sort keys and table headers):

- calls, self cost and its share, inclusive (cumulative, outermost
  activations) cost and its share, shares in % of the total cost of all
  threads of all reports;
- distinct TRMS and RMS sizes, profile richness (|TRMS| - |RMS|) / |RMS|;
- thread-induced and external shares: the induced first reads from other
  threads / from the kernel in % of the routine's sum of TRMS (the paper's
  Figure 9 reading; they include the callees' reads, as the report does);
- the fitted cost function of the worst-case cost against TRMS and against
  RMS (aprof_trms.fit), "?" after an inconclusive one, or why there is none.

Per thread: thread_profiles() splits the reports into one profile per
thread (report, thread serial), each a Profile of its own whose total is
that thread's total, so that the same rows describe one thread.
"""
import dataclasses
import os
from typing import Dict, List, Optional, Sequence, Tuple

from . import fit as aprof_fit
from . import profile as aprof_profile
from . import report as aprof_report
from . import sources
from .fit import FitInfo, fit_infos
from .programs import RoutineStats, percent
from .ranking import display_name

__all__ = ["COLUMNS", "SOURCE_COLUMNS", "FIT_COLUMNS", "Column", "columns_of", "RoutineRow", "fit_label",
           "fit_growth", "routine_rows", "add_fits", "sort_rows", "thread_profiles", "thread_label"]


@dataclasses.dataclass(frozen=True)
class Column:
    key: str       # sort key and attribute of RoutineRow
    header: str    # short table header
    title: str     # what it is, for --help and tooltips
    numeric: bool = True


COLUMNS: Tuple[Column, ...] = (
    Column("calls", "calls", "number of activations"),
    Column("self_cost", "self", "self cost (callees excluded)"),
    Column("self_share", "self%", "self cost in % of the total cost"),
    Column("inclusive_cost", "incl", "inclusive cost of the outermost activations"),
    Column("inclusive_share", "incl%", "inclusive cost in % of the total cost"),
    Column("distinct_trms", "|TRMS|", "distinct TRMS input sizes"),
    Column("distinct_rms", "|RMS|", "distinct RMS input sizes"),
    Column("richness", "rich", "profile richness (|TRMS| - |RMS|) / |RMS|"),
    Column("thread_share", "thr%", "thread-induced reads in % of the sum of TRMS"),
    Column("external_share", "ext%", "external (kernel) reads in % of the sum of TRMS"),
    Column("trms_growth", "TRMS model", "cost function fitted on worst-case cost vs TRMS"),
    Column("rms_growth", "RMS model", "cost function fitted on worst-case cost vs RMS"),
    Column("name", "routine", "routine name", numeric=False),
    Column("object", "object", "ELF object of the routine", numeric=False),
)

# Shown only for profiles with input sources (columns_of).
SOURCE_COLUMNS: Tuple[Column, ...] = (
    Column("top_producer_share", "prod%",
           "top producer's reads in % of the routine's own induced reads"),
    Column("top_producer", "top producer",
           "who wrote most of the routine's own induced reads: a routine of another thread "
           "or a system call", numeric=False),
)


def columns_of(profile: aprof_profile.Profile) -> Tuple[Column, ...]:
    """The columns of the profile's table: SOURCE_COLUMNS too when its
    reports have source records (runs with --input-sources=yes)."""
    return COLUMNS + SOURCE_COLUMNS if profile.sources else COLUMNS


def fit_label(info: FitInfo) -> str:
    """Model class ("n log n", "n^1.52"), with "?" when the fit is
    inconclusive (aprof_fit's doubts), or "-" when not fitted."""
    if info.result is None:
        return "-"
    return aprof_fit.model_label(info.result.best) + ("" if info.result.conclusive else "?")


def fit_growth(info: FitInfo) -> float:
    """Growth exponent of the fit (aprof_fit scale); -1 when not fitted, so
    that routines without a fit sort below constant ones."""
    return info.result.best.growth_exponent() if info.result else -1.0


@dataclasses.dataclass(slots=True)   # one per routine: 100,000s in a large program
class RoutineRow:
    routine: aprof_profile.RoutineProfile
    name: str                 # demangled, @0x... when aprof_profile told same names apart
    object: str               # full path
    calls: int
    self_cost: int
    self_share: float
    inclusive_cost: int
    inclusive_share: float
    distinct_trms: int
    distinct_rms: int
    richness: float
    thread_share: float
    external_share: float
    fits: Dict[str, FitInfo]  # by metric
    top_producer: str = ""    # label of sources.Producer; "" without source records
    top_producer_share: float = 0.0  # in % of the routine's own induced reads

    @property
    def trms_growth(self) -> float:
        return fit_growth(self.fits["trms"])

    @property
    def rms_growth(self) -> float:
        return fit_growth(self.fits["rms"])

    def fit_label(self, metric: str) -> str:
        return fit_label(self.fits[metric])

    def sort_value(self, key: str):
        value = getattr(self, key)
        return os.path.basename(value) if key == "object" else value


def _top_producer(profile: aprof_profile.Profile, key) -> Tuple[str, float]:
    """(label, share in %) of the routine's top producer; ("", 0.0) without."""
    top = sources.top_producers(profile, key, 1)
    if not top:
        return "", 0.0
    producer, reads = top[0]
    return producer.label, percent(reads, sum(profile.sources[key].values()))


def routine_row(routine: aprof_profile.RoutineProfile, total_cost: int,
                fits: Dict[str, FitInfo], top_producer: Tuple[str, float] = ("", 0.0)) -> RoutineRow:
    """The row of a routine with its fits by metric."""
    # charts.py's numbers of the routine: richness and induced reads as its charts define them.
    stats = RoutineStats(routine.name, routine.calls, routine.cumulative_cost,
                                      len(routine.trms), len(routine.rms), routine.sum_trms,
                                      routine.sum_rms, routine.thread_induced, routine.external)
    return RoutineRow(
        routine, display_name(routine), routine.object, routine.calls,
        routine.self_cost, percent(routine.self_cost, total_cost),
        routine.cumulative_cost, percent(routine.cumulative_cost, total_cost),
        stats.distinct_trms, stats.distinct_rms, stats.richness,
        percent(stats.thread_induced, stats.sum_trms), percent(stats.external, stats.sum_trms), fits,
        *top_producer)


def routine_rows(profile: aprof_profile.Profile,
                 routines: Optional[Sequence[aprof_profile.RoutineProfile]] = None,
                 fit: bool = True) -> List[RoutineRow]:
    """Rows of `routines` (default: every routine of the profile), largest
    inclusive cost first. fit=False leaves the models out (faster)."""
    chosen = list(profile.routines.values() if routines is None else routines)
    not_fitted = {m: FitInfo(reason="not fitted") for m in aprof_report.METRICS}
    rows = [routine_row(r, profile.total_cost, not_fitted, _top_producer(profile, r.key))
            for r in chosen]
    if fit:
        add_fits(rows)
    rows.sort(key=lambda row: (-row.inclusive_cost, row.name))
    return rows


# The columns whose values come from the fits: sorting by one needs every row fitted.
FIT_COLUMNS = ("trms_growth", "rms_growth")


def add_fits(rows: List[RoutineRow]) -> None:
    """Fits the routines of the rows (made with fit=False), all together:
    a command that shows some of its rows fits only those."""
    routines = [row.routine for row in rows]
    # The rows show the best fit, its doubts and the runner-up only.
    by_metric = fit_infos(routines, aprof_report.METRICS, slim=True)
    for i, row in enumerate(rows):
        row.fits = {m: by_metric[m][i] for m in aprof_report.METRICS}


def sort_rows(rows: List[RoutineRow], key: str, ascending: bool = False) -> List[RoutineRow]:
    """Rows ordered by column `key`; ties by name."""
    by_name = sorted(rows, key=lambda row: row.name)
    return sorted(by_name, key=lambda row: row.sort_value(key), reverse=not ascending)


def _thread_report(rep: aprof_report.Report, serial: int) -> aprof_report.Report:
    """The part of a report that belongs to one thread."""
    def mine(records: dict) -> dict:
        return {k: v for k, v in records.items() if k[0] == serial}
    return dataclasses.replace(rep, threads={serial: rep.threads[serial]}, totals=mine(rep.totals),
                               trms=mine(rep.trms), rms=mine(rep.rms),
                               thread_sources=mine(rep.thread_sources),
                               kernel_sources=mine(rep.kernel_sources), calls=mine(rep.calls),
                               context_trms=mine(rep.context_trms),
                               context_rms=mine(rep.context_rms))


def thread_label(rep: aprof_report.Report, serial: int, several_reports: bool) -> str:
    thread = rep.threads[serial]
    label = f"thread {serial} (tid {thread.tid})"
    return f"{os.path.basename(rep.path)} {label}" if several_reports else label


def _thread_profile(rep: aprof_report.Report, serial: int) -> aprof_profile.Profile:
    """The profile of one thread: the routines that ran in it. (Merged from
    the whole routine table, so that routines keep the keys they have in the
    merged profile.)"""
    profile = aprof_profile.merge([_thread_report(rep, serial)])
    profile.routines = {k: r for k, r in profile.routines.items() if r.calls or r.trms}
    return profile


def thread_profiles(reports: Sequence[aprof_report.Report]) -> List[Tuple[str, aprof_profile.Profile]]:
    """(label, profile of one thread) for every thread of every report, in
    report and start order."""
    several = len(reports) > 1
    return [(thread_label(rep, serial, several), _thread_profile(rep, serial))
            for rep in reports for serial in sorted(rep.threads)]
