"""Profiles merged over threads, processes and runs of the same program.

Every analysis script works on a Profile: one or more reports (several
threads, the processes of a fork, several runs with different inputs) merged
so that each routine has one set of points per input metric.

    from aprof_trms import profile as aprof_profile
    profile = aprof_profile.load_profile(["aprof-trms.out.1", "aprof-trms.out.2"])
    for routine in profile.top(5):
        for size, point in sorted(routine.points("trms").items()):
            print(routine.name, size, point.calls, point.max_cost)

Identity: within a report a routine is (object, entry address); across
reports addresses move (ASLR), so routines are matched by (object, mangled
name). Two routines of one report with the same object and name (static
functions in different compilation units) stay apart: the later ones get
"@0x<address>" appended to their key.

Merging reports with different cost metrics, memory resolutions, TRMS
tracking (--trms) or external input (--syscall-input: which system calls'
writes count as input from the kernel, and so the TRMS of the same
activation) is refused (ProfileError): their numbers are not comparable.
"""
import dataclasses
import fnmatch
import os
from typing import Dict, Iterable, List, Sequence, Tuple

from . import report as aprof_report

__all__ = ["ProfileError", "Point", "RoutineProfile", "Profile", "merge", "report_files",
           "load_profile"]

RoutineKey = Tuple[str, str]  # (object path, mangled name)


class ProfileError(Exception):
    """Reports that cannot be merged, or a routine selection that matches nothing."""


@dataclasses.dataclass
class Point:
    """All activations of a routine that had one input size."""
    size: int
    calls: int = 0
    min_cost: int = 0
    max_cost: int = 0
    sum_cost: int = 0
    sum_sq_cost: int = 0
    sum_self_cost: int = 0
    sum_thread_induced: int = 0
    sum_external: int = 0

    @property
    def avg_cost(self) -> float:
        return self.sum_cost / self.calls

    def add(self, t: aprof_report.CostTuple) -> None:
        self.min_cost = t.min_cost if self.calls == 0 else min(self.min_cost, t.min_cost)
        self.max_cost = max(self.max_cost, t.max_cost)
        self.calls += t.calls
        self.sum_cost += t.sum_cost
        self.sum_sq_cost += t.sum_sq_cost
        self.sum_self_cost += t.sum_self_cost
        self.sum_thread_induced += t.sum_thread_induced
        self.sum_external += t.sum_external


@dataclasses.dataclass
class RoutineProfile:
    key: RoutineKey
    name: str          # demangled
    mangled: str
    object: str
    calls: int = 0
    self_cost: int = 0
    cumulative_cost: int = 0  # outermost activations only
    trms: Dict[int, Point] = dataclasses.field(default_factory=dict)
    rms: Dict[int, Point] = dataclasses.field(default_factory=dict)

    def points(self, metric: str) -> Dict[int, Point]:
        """{input size: Point} for metric 'trms' or 'rms'."""
        if metric not in aprof_report.METRICS:
            raise ValueError(f"unknown input metric {metric!r} (expected one of {aprof_report.METRICS})")
        return self.trms if metric == "trms" else self.rms

    @property
    def sum_trms(self) -> int:
        """Sum of TRMS over activations (the induced reads are part of it)."""
        return sum(size * p.calls for size, p in self.trms.items())

    @property
    def sum_rms(self) -> int:
        return sum(size * p.calls for size, p in self.rms.items())

    @property
    def thread_induced(self) -> int:
        """Induced first reads whose value came from another thread."""
        return sum(p.sum_thread_induced for p in self.trms.values())

    @property
    def external(self) -> int:
        """Induced first reads whose value came from the kernel (I/O)."""
        return sum(p.sum_external for p in self.trms.values())


@dataclasses.dataclass
class Profile:
    paths: List[str]
    commands: List[Tuple[str, ...]]
    cost_metric: str
    memory_resolution: int
    trms_tracking: bool  # False: RMS only (--trms=no), every TRMS equals the RMS
    syscall_input: str   # "all" or "io": which system calls' writes are external input
    total_cost: int  # over all threads of all reports
    routines: Dict[RoutineKey, RoutineProfile]

    def find(self, pattern: str) -> List[RoutineProfile]:
        """Routines whose demangled or mangled name matches the glob pattern
        (an exact name is a pattern too), most expensive first."""
        found = [r for r in self.routines.values()
                 if fnmatch.fnmatchcase(r.name, pattern) or fnmatch.fnmatchcase(r.mangled, pattern)]
        return sorted(found, key=lambda r: (-r.cumulative_cost, r.name))

    def top(self, n: int) -> List[RoutineProfile]:
        """The n routines with the largest cumulative cost."""
        return sorted(self.routines.values(), key=lambda r: (-r.cumulative_cost, r.name))[:n]


def _keys_of(report: aprof_report.Report) -> Dict[int, RoutineKey]:
    """Routine id -> merge key; same-name routines of one object are told apart."""
    keys: Dict[int, RoutineKey] = {}
    seen = set()
    for rid in sorted(report.routines, key=lambda i: report.routines[i].address):
        r = report.routines[rid]
        key = (r.object, r.mangled)
        if key in seen:
            key = (r.object, f"{r.mangled}@0x{r.address:x}")
        seen.add(key)
        keys[rid] = key
    return keys


def _settings(h: aprof_report.Header) -> tuple:
    return (h.cost_metric, h.memory_resolution, h.trms_tracking, h.syscall_input)


def _settings_text(h: aprof_report.Header) -> str:
    return (f"cost metric {h.cost_metric}, resolution {h.memory_resolution}, "
            + ("TRMS tracked" if h.trms_tracking else "RMS only")
            + f", syscall input {h.syscall_input}")


def merge(reports: Sequence[aprof_report.Report]) -> Profile:
    if not reports:
        raise ProfileError("no report to merge")
    first = reports[0].header
    for rep in reports[1:]:
        h = rep.header
        if _settings(h) != _settings(first):
            raise ProfileError(
                f"{rep.path}: settings ({_settings_text(h)}) differ from {reports[0].path} "
                f"({_settings_text(first)}): reports of different settings cannot be merged")
    routines: Dict[RoutineKey, RoutineProfile] = {}
    total_cost = 0
    for rep in reports:
        total_cost += sum(t.total_cost for t in rep.threads.values())
        keys = _keys_of(rep)
        for rid, key in keys.items():
            if key not in routines:
                r = rep.routines[rid]
                routines[key] = RoutineProfile(key, r.name, r.mangled, r.object)
        for (_, rid), t in rep.totals.items():
            rp = routines[keys[rid]]
            rp.calls += t.calls
            rp.self_cost += t.self_cost
            rp.cumulative_cost += t.cumulative_cost
        for metric in aprof_report.METRICS:
            for (_, rid, size), t in rep.metric(metric).items():
                pts = routines[keys[rid]].points(metric)
                pts.setdefault(size, Point(size)).add(t)
    return Profile([rep.path for rep in reports], [rep.header.command for rep in reports],
                   first.cost_metric, first.memory_resolution, first.trms_tracking,
                   first.syscall_input, total_cost, routines)


def report_files(paths: Iterable[str]) -> List[str]:
    """The report files named by paths: a directory stands for the
    aprof-trms.out.* files in it (never the .tmp of an unfinished one).
    Raises ProfileError for a missing path or a directory without reports."""
    files: List[str] = []
    for path in paths:
        if os.path.isdir(path):
            inside = sorted(os.path.join(path, f) for f in os.listdir(path)
                            if f.startswith("aprof-trms.out.") and not f.endswith(".tmp"))
            if not inside:
                raise ProfileError(f"{path}: no aprof-trms.out.* report in this directory")
            files.extend(inside)
        elif not os.path.exists(path):
            raise ProfileError(f"{path}: no such report file or directory")
        else:
            files.append(path)
    return files


def load_profile(paths: Iterable[str]) -> Profile:
    """Loads and merges reports (see report_files). Raises
    aprof_report.ReportError or ProfileError."""
    return merge([aprof_report.load(f) for f in report_files(paths)])
