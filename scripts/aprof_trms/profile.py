# SPDX-License-Identifier: GPL-2.0-or-later
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

Reports of unrelated programs are merged, with a warning (UnrelatedReports,
through Python's warnings: the commands print it as one line on stderr):
reports are related when they have the same executable or are linked by
their process ids (a fork's child names its parent as ppid; an exec keeps
the pid). Merging gzip's and xz's reports adds up routines of both as one
program, which is rarely meant, but not an error: the same library
routines profiled under two programs can be merged on purpose.

Call edges (format version 3) are merged by (caller key, callee key).
Calling contexts (format version 4, --collect-context=yes) are merged by
their chain of routine keys from the root: the same chain in two reports is
one context. They are kept only when every report has them with the same
depth limit (a chain cut at depth 4 in one run and 8 in another is not the
same context, and a report without contexts would leave activations out);
otherwise Profile.contexts is empty and Profile.contexts_missing says why.
"""
import array
import bisect
import dataclasses
import fnmatch
import operator
import os
import warnings
from collections.abc import Mapping
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import report as aprof_report
from . import sources as aprof_sources

__all__ = ["ProfileError", "UnrelatedReports", "Point", "PointMap", "RoutineProfile", "ContextProfile", "EdgeTotals",
           "Profile", "merge", "report_files", "load_profile", "check_distinct", "keys_of"]

RoutineKey = Tuple[str, str]  # (object path, mangled name)
ContextKey = Tuple[RoutineKey, ...]  # the chain of routines from the root to the context's own


class ProfileError(Exception):
    """Reports that cannot be merged, or a routine selection that matches nothing."""


class UnrelatedReports(UserWarning):
    """Reports of programs that neither share an executable nor are linked
    by their process ids, merged into one profile."""


@dataclasses.dataclass(frozen=True)
class _Process:
    path: str
    executable: str   # the basename of the command's first word
    pid: int
    ppid: int


def _program_groups(processes: Sequence[_Process]) -> List[List[_Process]]:
    """The reports grouped into programs: the same executable, the same pid
    (an exec) or the ppid of one equal to the pid of another (a fork) join a
    group. (Two programs started by one shell share a ppid: no link.)"""
    parent = list(range(len(processes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_executable: Dict[str, int] = {}
    by_pid: Dict[int, int] = {}
    for i, p in enumerate(processes):
        parent[root(i)] = root(by_executable.setdefault(p.executable, i))
        parent[root(i)] = root(by_pid.setdefault(p.pid, i))
    for i, p in enumerate(processes):
        if p.ppid in by_pid:
            parent[root(i)] = root(by_pid[p.ppid])
    groups: Dict[int, List[_Process]] = {}
    for i, p in enumerate(processes):
        groups.setdefault(root(i), []).append(p)
    return list(groups.values())


def unrelated_message(processes: Sequence[_Process]) -> str:
    """The warning for reports of more than one program, or ""."""
    groups = _program_groups(processes)
    if len(groups) < 2:
        return ""
    named = "; ".join(f"{g[0].executable} ({g[0].path}"
                      + (f" and {len(g) - 1} more)" if len(g) > 1 else ")") for g in groups)
    return (f"merging reports of {len(groups)} unrelated programs ({named}): no shared "
            "executable and no fork or exec between them; their routines are added up as one "
            "profile (give one program's reports to see it alone)")


@dataclasses.dataclass(slots=True)   # hundreds of thousands in a large program
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

    @classmethod
    def of(cls, t: aprof_report.CostTuple) -> "Point":
        return cls(*t[2:])   # the fields of a CostTuple after thread and routine

    def add(self, t: Union[aprof_report.CostTuple, "Point"]) -> None:
        self.min_cost = t.min_cost if self.calls == 0 else min(self.min_cost, t.min_cost)
        self.max_cost = max(self.max_cost, t.max_cost)
        self.calls += t.calls
        self.sum_cost += t.sum_cost
        self.sum_sq_cost += t.sum_sq_cost
        self.sum_self_cost += t.sum_self_cost
        self.sum_thread_induced += t.sum_thread_induced
        self.sum_external += t.sum_external


# Point.of builds a Point from the fields of a CostTuple that follow thread and routine.
assert tuple(f.name for f in dataclasses.fields(Point)) == aprof_report.CostTuple._fields[2:]


_POINT_FIELDS = len(aprof_report.CostTuple._fields) - 3   # after thread, routine and size
_EXACT_INT64 = float(1 << 62)   # sums below this are exact in int64
_FIELD_INDEX = {name: i for i, name in enumerate(aprof_report.CostTuple._fields[3:])}


class PointMap(Mapping):
    """{input size: Point} of a routine and metric, read-only, stored
    compactly: the sizes and the Points' fields as 64-bit integers in two
    arrays (a Python list where a value does not fit), a Point made on
    access. A large program has millions of points: as Point objects and
    Python integers they took 320 bytes each, here 72. Filled by add() and
    merge(); compact() sorts it by size and drops the index of the sizes
    (lookups then bisect)."""

    __slots__ = ("_sizes", "_fields", "_rows")

    def __init__(self) -> None:
        self._sizes = array.array("q")
        self._fields = array.array("q")        # _POINT_FIELDS per size
        self._rows: Optional[Dict[int, int]] = {}   # size -> row, while filled

    def __len__(self) -> int:
        return len(self._sizes)

    def __iter__(self) -> Iterator[int]:
        return iter(self._sizes)

    def largest(self) -> int:
        """The largest size (0 when empty): the last one once compact (sorted)."""
        if not self._sizes:
            return 0
        return self._sizes[-1] if self._rows is None else max(self._sizes)

    def _row(self, size: int) -> int:
        if self._rows is not None:
            return self._rows[size]
        i = bisect.bisect_left(self._sizes, size)
        if i == len(self._sizes) or self._sizes[i] != size:
            raise KeyError(size)
        return i

    def __getitem__(self, size: int) -> Point:
        i = self._row(size) * _POINT_FIELDS
        return Point(self._sizes[i // _POINT_FIELDS], *self._fields[i:i + _POINT_FIELDS])

    def __contains__(self, size) -> bool:
        try:
            self._row(size)
        except (KeyError, TypeError):
            return False
        return True

    def items(self) -> Iterator[Tuple[int, Point]]:   # type: ignore[override]
        fields, n = self._fields, _POINT_FIELDS
        return ((size, Point(size, *fields[i * n:(i + 1) * n])) for i, size in enumerate(self._sizes))

    def sizes_and_field(self, field: str) -> Tuple[List[int], List[int]]:
        """The sizes in increasing order and one field of their Points
        ("max_cost", ...), as lists: no Point is made."""
        self.compact()
        i = _FIELD_INDEX[field]
        return list(self._sizes), list(self._fields[i::_POINT_FIELDS])

    def values(self) -> Iterator[Point]:   # type: ignore[override]
        return (point for _, point in self.items())

    def add(self, size: int, values: Sequence[int]) -> None:
        """Merges the activations of one size (the fields of a Point after
        its size: calls, min, max, sums) into the map."""
        if self._rows is None:
            self._rows = {s: i for i, s in enumerate(self._sizes)}
        row = self._rows.get(size)
        if row is None:
            self._rows[size] = len(self._rows)
            if isinstance(self._fields, array.array):
                try:   # nothing is stored when a value does not fit in 64 bits
                    block = array.array("q", values)
                    self._sizes.append(size)
                    self._fields.extend(block)
                    return
                except OverflowError:
                    self._as_lists()   # once: lists from now on
            self._sizes.append(size)
            self._fields.extend(values)
            return
        i = row * _POINT_FIELDS
        old = self._fields[i:i + _POINT_FIELDS]
        merged = [old[0] + values[0], values[1] if old[0] == 0 else min(old[1], values[1]),
                  max(old[2], values[2])] + [a + b for a, b in zip(old[3:], values[3:])]
        try:
            self._fields[i:i + _POINT_FIELDS] = self._like_fields(merged)
        except OverflowError:
            self._as_lists()
            self._fields[i:i + _POINT_FIELDS] = merged

    def take(self, sizes: np.ndarray, fields: np.ndarray) -> None:
        """Fills an empty map with points sorted by size (int64 arrays:
        the sizes, and a row of _POINT_FIELDS fields per size)."""
        self._sizes.frombytes(sizes.tobytes())
        self._fields.frombytes(fields.tobytes())
        self._rows = None

    def _like_fields(self, values: List[int]):
        return array.array("q", values) if isinstance(self._fields, array.array) else values

    def _as_lists(self) -> None:
        self._sizes, self._fields = list(self._sizes), list(self._fields)

    def merge(self, other: "PointMap") -> None:
        """Adds the points of another map (another report's) and compacts."""
        n = _POINT_FIELDS
        for i, size in enumerate(other._sizes):
            self.add(size, other._fields[i * n:(i + 1) * n])
        self.compact()

    def compact(self) -> None:
        """Sorted by size, without the index of the sizes (half the memory)."""
        if self._rows is None:   # compact already (take(), or compact() before)
            return
        n = _POINT_FIELDS
        order = sorted(range(len(self._sizes)), key=self._sizes.__getitem__)
        sizes = [self._sizes[i] for i in order]
        fields = [v for i in order for v in self._fields[i * n:(i + 1) * n]]
        self._rows = None
        try:
            self._sizes, self._fields = array.array("q", sizes), array.array("q", fields)
        except OverflowError:
            self._sizes, self._fields = sizes, fields


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
    # (the report's total cost, the routine's largest TRMS, its largest RMS)
    # of each report where it has points: does its input grow with the
    # program's (evidence.input_fixed_across_processes)?
    per_process: List[Tuple[int, int, int]] = dataclasses.field(default_factory=list)

    def points(self, metric: str) -> Dict[int, Point]:
        """{input size: Point} for metric 'trms' or 'rms'."""
        if metric not in aprof_report.METRICS:
            raise ValueError(f"unknown input metric {metric!r} (expected one of {aprof_report.METRICS})")
        return self.trms if metric == "trms" else self.rms

    @property
    def sum_trms(self) -> int:
        """Sum of TRMS over activations (the induced reads are part of it)."""
        return sum(map(operator.mul, *_column(self.trms, "calls")))

    @property
    def sum_rms(self) -> int:
        return sum(map(operator.mul, *_column(self.rms, "calls")))

    @property
    def thread_induced(self) -> int:
        """Induced first reads whose value came from another thread."""
        return sum(_column(self.trms, "sum_thread_induced")[1])

    @property
    def external(self) -> int:
        """Induced first reads whose value came from the kernel (I/O)."""
        return sum(_column(self.trms, "sum_external")[1])


def _column(points: Mapping, field: str) -> Tuple[List[int], List[int]]:
    """The sizes and one field of the points (a PointMap, or a dict of
    Points): from a PointMap's arrays, without making Points."""
    if isinstance(points, PointMap):
        return points.sizes_and_field(field)
    return list(points), [getattr(p, field) for p in points.values()]


class ContextProfile(RoutineProfile):
    """The activations of a routine in one calling context (format version
    4), with the fields of a RoutineProfile, so that fit.py, plot.py and
    rank.py take it as they take a routine: key is the chain of routine keys
    from the root (ContextKey), name, mangled and object are the routine's.
    calls, self_cost and cumulative_cost are sums over the context's
    activations (no `totals` record exists per context: a recursive
    routine's activations folded into one context count each)."""

    @property
    def routine_key(self) -> RoutineKey:
        return self.key[-1]

    def add_sums(self) -> None:
        """calls, self_cost and cumulative_cost from the trms points."""
        self.calls = sum(p.calls for p in self.trms.values())
        self.self_cost = sum(p.sum_self_cost for p in self.trms.values())
        self.cumulative_cost = sum(p.sum_cost for p in self.trms.values())


@dataclasses.dataclass
class EdgeTotals:
    """A caller-to-callee edge of the call graph, merged over threads and
    reports: calls and the sum of the callee activations' cumulative costs."""
    calls: int = 0
    inclusive_cost: int = 0


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
    # --input-sources=yes reports: each routine's own induced reads by
    # producer (aprof_trms.sources; empty otherwise).
    sources: aprof_sources.SourceCounts = dataclasses.field(default_factory=dict)
    # By (caller key, callee key); empty for reports older than version 3.
    calls: Dict[Tuple[RoutineKey, RoutineKey], EdgeTotals] = dataclasses.field(default_factory=dict)
    # --collect-context=yes reports: the contexts by their chain, and the depth limit.
    contexts: Dict[ContextKey, ContextProfile] = dataclasses.field(default_factory=dict)
    context_depth: Optional[int] = None
    contexts_missing: str = ""   # why contexts is empty, for messages
    # The kernel-writes-unseen mechanisms of the reports (format version 5).
    kernel_writes_unseen: Tuple[str, ...] = ()
    # Indexes by routine of calls and contexts, built on first use (a page
    # of every routine asks for each one's edges and contexts).
    _index: Optional[tuple] = dataclasses.field(default=None, repr=False, compare=False)

    def _by_routine(self) -> tuple:
        if self._index is None:
            callers: Dict[RoutineKey, list] = {}
            callees: Dict[RoutineKey, list] = {}
            contexts: Dict[RoutineKey, List[ContextProfile]] = {}
            for (a, b), e in self.calls.items():
                callers.setdefault(b, []).append((a, e))
                callees.setdefault(a, []).append((b, e))
            order = lambda item: (-item[1].inclusive_cost, item[0])  # noqa: E731
            for edges in list(callers.values()) + list(callees.values()):
                edges.sort(key=order)
            for c in self.contexts.values():
                contexts.setdefault(c.routine_key, []).append(c)
            for found in contexts.values():
                found.sort(key=lambda c: (-c.cumulative_cost, c.key))
            self._index = (callers, callees, contexts)
        return self._index

    def contexts_of(self, routine_key: RoutineKey) -> List[ContextProfile]:
        """The contexts of a routine, costliest first."""
        return list(self._by_routine()[2].get(routine_key, []))

    def callers_and_callees(self, routine_key: RoutineKey) \
            -> Tuple[List[Tuple[RoutineKey, EdgeTotals]], List[Tuple[RoutineKey, EdgeTotals]]]:
        """([(caller, edge)], [(callee, edge)]) of a routine, each by
        decreasing inclusive cost (a recursive edge is in both)."""
        callers, callees, _ = self._by_routine()
        return list(callers.get(routine_key, [])), list(callees.get(routine_key, []))

    def find(self, pattern: str) -> List[RoutineProfile]:
        """Routines whose demangled or mangled name matches the glob pattern
        (an exact name is a pattern too), most expensive first."""
        found = [r for r in self.routines.values()
                 if fnmatch.fnmatchcase(r.name, pattern) or fnmatch.fnmatchcase(r.mangled, pattern)]
        return sorted(found, key=lambda r: (-r.cumulative_cost, r.name))

    def top(self, n: int) -> List[RoutineProfile]:
        """The n routines with the largest cumulative cost."""
        return sorted(self.routines.values(), key=lambda r: (-r.cumulative_cost, r.name))[:n]


def keys_of(report: aprof_report.Report) -> Dict[int, RoutineKey]:
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


class _ReportPoints:
    """The trms and rms points of one report by routine id, merged over its
    threads: filled from a Report, or as the tuple sink of
    aprof_report.load() so that the records themselves are never kept.
    The records come one by one (add) or as blocks (add_block: most of a
    report); the blocks are held as int64 arrays, then made into points
    all at once (compact), unless a record's values do not fit int64."""

    def __init__(self, metrics: Sequence[str] = aprof_report.METRICS) -> None:
        self.of: Dict[int, Tuple[PointMap, PointMap]] = {}
        # By metric kept: blocks of rows (routine, size, the Point's fields),
        # and the records that came one by one.
        self.blocks: Dict[str, List[np.ndarray]] = {m: [] for m in metrics}
        self.records: Dict[str, List[aprof_report.CostTuple]] = {m: [] for m in metrics}

    def add(self, metric: str, t: aprof_report.CostTuple) -> None:
        if metric in self.records:
            self.records[metric].append(t)

    __call__ = add   # the tuple sink itself, so that load() finds add_block

    def add_block(self, metric: str, rows: np.ndarray) -> None:
        if metric in self.blocks:
            self.blocks[metric].append(rows[:, 1:])   # not the thread: points merge threads

    def _add_record(self, metric: str, t: Sequence[int]) -> None:
        both = self.of.get(t[1])   # the routine (by index: faster than by name)
        if both is None:
            both = self.of[t[1]] = (PointMap(), PointMap())
        (both[0] if metric == "trms" else both[1]).add(t[2], t[3:])   # size, then the Point's fields

    def compact(self) -> None:
        for metric in self.blocks:
            blocks, records = self.blocks[metric], self.records[metric]
            rows = None
            try:
                if records:
                    blocks.append(np.array(records, dtype=np.int64)[:, 1:])
                    records = []
                rows = np.concatenate(blocks) if blocks else None
            except OverflowError:   # a value beyond int64: every record one by one
                records += [[0] + row for block in blocks for row in block.tolist()]
            self.blocks[metric], self.records[metric] = [], []
            blocks.clear()
            if rows is not None and not self._add_rows(metric, rows):
                records = [[0] + row for row in rows.tolist()]   # (the thread is not used)
            for t in records:   # empty when the rows were added
                self._add_record(metric, t)
        for trms, rms in self.of.values():
            trms.compact()
            rms.compact()

    def _add_rows(self, metric: str, rows: np.ndarray) -> bool:
        """Adds the points of every record of a metric, as rows (routine,
        size, the Point's fields), merging the rows of one routine and size
        (threads); False, with nothing added, when a sum could pass int64
        (then add them record by record)."""
        rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))]   # (the unsorted rows are freed)
        new = np.r_[True, (rows[1:, 0] != rows[:-1, 0]) | (rows[1:, 1] != rows[:-1, 1])]
        if not new.all():
            starts = np.flatnonzero(new)
            summed = [2, 5, 6, 7, 8, 9]   # calls and the sums
            if np.add.reduceat(rows[:, summed].astype(float), starts, axis=0).max() >= _EXACT_INT64:
                return False
            merged = np.add.reduceat(rows, starts, axis=0)
            merged[:, :2] = rows[starts, :2]
            merged[:, 3] = np.minimum.reduceat(rows[:, 3], starts)
            merged[:, 4] = np.maximum.reduceat(rows[:, 4], starts)
            rows = merged
        routines = rows[:, 0]
        starts = np.flatnonzero(np.r_[True, routines[1:] != routines[:-1]])
        ids = routines[starts].tolist()
        sizes = np.ascontiguousarray(rows[:, 1])
        fields = np.ascontiguousarray(rows[:, 2:])
        bounds = starts.tolist() + [len(rows)]
        which = 0 if metric == "trms" else 1
        for rid, first, end in zip(ids, bounds, bounds[1:]):
            both = self.of.get(rid)
            if both is None:
                both = self.of[rid] = (PointMap(), PointMap())
            both[which].take(sizes[first:end], fields[first:end])
        return True


def check_distinct(first_paths: Dict[str, str], rep: aprof_report.Report) -> None:
    """ProfileError if a report with the same bytes as `rep` was read
    before (the same file given twice, or a copy of it: the same run, whose
    every activation would count twice); first_paths: digest -> path of the
    reports read before, `rep` added. Likewise two reports of one process
    (format version 6) that cover overlapping intervals: the same number of
    zeroes before them, e.g. two dumps with no zero in between, or a dump and
    the report at exit after it; their common activations would count
    twice. Dumps zeroed in between are disjoint and merge."""
    if rep.digest in first_paths:
        raise ProfileError(f"{rep.path}: the same report as {first_paths[rep.digest]} (the same "
                           "bytes): a run given twice would count every activation twice")
    first_paths[rep.digest] = rep.path
    interval = rep.header.interval
    if interval is None:
        return
    h = rep.header
    key = f"interval\t{h.pid}\t{h.ppid}\t{interval.zeroes}\t" + "\t".join(h.command)
    if key in first_paths:
        raise ProfileError(
            f"{rep.path}: covers part of the run that {first_paths[key]} covers too (process "
            f"{h.pid}, both after {interval.zeroes} zero(es)): merged, the activations they share "
            f"would count twice; merge dumps separated by a 'zero', or only the latest one")
    first_paths[key] = rep.path


class _Merger:
    """Reports added one by one (same settings required) into a Profile."""

    def __init__(self) -> None:
        # The first report's path and header, not the report: its routine and
        # totals tables are large and merged already.
        self.first: Optional[Tuple[str, aprof_report.Header]] = None
        self.paths: List[str] = []
        self.commands: List[Tuple[str, ...]] = []
        self.routines: Dict[RoutineKey, RoutineProfile] = {}
        self.total_cost = 0
        self.sources: aprof_sources.SourceCounts = {}
        self.calls: Dict[Tuple[RoutineKey, RoutineKey], EdgeTotals] = {}
        self.contexts: Dict[ContextKey, ContextProfile] = {}
        self.context_depths: Dict[Optional[int], str] = {}   # depth limit -> a report with it
        self.digests: Dict[str, str] = {}   # of the reports added: check_distinct()
        self.kernel_writes_unseen: Dict[str, None] = {}   # ordered set
        self.processes: List[_Process] = []

    def add(self, rep: aprof_report.Report, points: _ReportPoints) -> None:
        check_distinct(self.digests, rep)
        points.compact()
        if self.first is None:
            self.first = (rep.path, rep.header)
        elif _settings(rep.header) != _settings(self.first[1]):
            raise ProfileError(
                f"{rep.path}: settings ({_settings_text(rep.header)}) differ from "
                f"{self.first[0]} ({_settings_text(self.first[1])}): reports of "
                "different settings cannot be merged")
        self.paths.append(rep.path)
        self.commands.append(rep.header.command)
        h = rep.header
        self.processes.append(_Process(rep.path, os.path.basename(h.command[0]) if h.command else "",
                                       h.pid, h.ppid))
        self.kernel_writes_unseen.update(dict.fromkeys(rep.header.kernel_writes_unseen))
        report_cost = sum(t.total_cost for t in rep.threads.values())
        self.total_cost += report_cost
        routines = self.routines
        keys = keys_of(rep)
        for rid, key in keys.items():
            if key not in routines:
                r = rep.routines[rid]
                routines[key] = RoutineProfile(key, r.name, r.mangled, r.object)
        for (_, rid), t in rep.totals.items():
            rp = routines[keys[rid]]
            rp.calls += t.calls
            rp.self_cost += t.self_cost
            rp.cumulative_cost += t.cumulative_cost
        aprof_sources.add_report(self.sources, rep, keys)
        for (_, caller, callee), e in rep.calls.items():
            edge = self.calls.setdefault((keys[caller], keys[callee]), EdgeTotals())
            edge.calls += e.calls
            edge.inclusive_cost += e.inclusive_cost
        self.context_depths.setdefault(rep.header.context_depth, rep.path)
        self.add_contexts(rep, keys)
        for rid, (trms, rms) in points.of.items():
            rp = routines[keys[rid]]
            rp.per_process.append((report_cost, trms.largest(), rms.largest()))
            if not rp.trms and not rp.rms:   # the routine's first report: take its points
                rp.trms, rp.rms = trms, rms
                continue
            rp.trms.merge(trms)
            rp.rms.merge(rms)

    def add_contexts(self, rep: aprof_report.Report, keys: Dict[int, RoutineKey]) -> None:
        chains: Dict[int, ContextKey] = {}
        for c in rep.contexts.values():   # by id: parents first
            chains[c.id] = (chains[c.parent] if c.parent else ()) + (keys[c.routine],)
        for metric in aprof_report.METRICS:
            for (_, cid, size), t in rep.context_metric(metric).items():
                chain = chains[cid]
                cp = self.contexts.get(chain)
                if cp is None:
                    r = rep.routines[rep.contexts[cid].routine]
                    cp = self.contexts[chain] = ContextProfile(chain, r.name, r.mangled, r.object)
                points = cp.points(metric)
                if size in points:
                    points[size].add(t)
                else:
                    points[size] = Point(*t[2:])

    def context_profiles(self) -> Tuple[Dict[ContextKey, ContextProfile], Optional[int], str]:
        """The merged contexts, their depth limit, and why there are none."""
        depths = self.context_depths
        if None in depths and len(depths) == 1:
            return {}, None, "the reports have no calling contexts"
        if None in depths:
            return {}, None, (f"{depths[None]} has no calling contexts, but "
                              f"{next(p for d, p in depths.items() if d is not None)} has: "
                              "contexts are shown only when every report has them")
        if len(depths) > 1:
            listed = ", ".join(f"{p} depth {d}" for d, p in sorted(depths.items()))
            return {}, None, (f"the reports have calling contexts of different depth limits "
                              f"({listed}): they cannot be merged")
        for cp in self.contexts.values():
            cp.add_sums()
        return self.contexts, next(iter(depths)), ""

    def profile(self) -> Profile:
        if self.first is None:
            raise ProfileError("no report to merge")
        h = self.first[1]
        unrelated = unrelated_message(self.processes)
        if unrelated:
            warnings.warn(unrelated, UnrelatedReports, stacklevel=3)
        contexts, depth, missing = self.context_profiles()
        return Profile(self.paths, self.commands, h.cost_metric, h.memory_resolution,
                       h.trms_tracking, h.syscall_input, self.total_cost, self.routines,
                       self.sources, self.calls, contexts, depth, missing,
                       tuple(self.kernel_writes_unseen))


def merge(reports: Sequence[aprof_report.Report]) -> Profile:
    merger = _Merger()
    for rep in reports:
        points = _ReportPoints()
        for metric in aprof_report.METRICS:
            for t in rep.metric(metric).values():
                points.add(metric, t)
        merger.add(rep, points)
    return merger.profile()


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


class _HookedSink:
    """The tuple sink of load_profile with a tuple_hook: the records go to
    the report's points and to the hook; blocks of them too (add_block)
    when the hook takes blocks, else the reader gives them one by one."""

    def __init__(self, points: _ReportPoints, hook: aprof_report.TupleSink) -> None:
        self.points, self.hook = points, hook
        if hasattr(hook, "add_block"):
            self.add_block = self._add_block

    def __call__(self, metric: str, t: aprof_report.CostTuple) -> None:
        self.points.add(metric, t)
        self.hook(metric, t)

    def _add_block(self, metric: str, rows: np.ndarray) -> None:
        self.points.add_block(metric, rows)
        self.hook.add_block(metric, rows)   # type: ignore[attr-defined]


def load_profile(paths: Iterable[str],
                 tuple_hook: Optional[aprof_report.TupleSink] = None,
                 report_hook: Optional[Callable[[aprof_report.Report], None]] = None,
                 metrics: Sequence[str] = aprof_report.METRICS) -> Profile:
    """Loads and merges reports (see report_files), one at a time, merging
    each record as it is read: the reports are never held whole. A caller
    that needs more of each report than the Profile keeps gets every trms
    and rms record too (tuple_hook(metric, tuple), as it is read, or a
    block of them if the hook has a method add_block: aprof_report.TupleSink),
    then the report without them (report_hook(report)). Only the points
    of `metrics` are kept (the routines' others stay empty: a command
    that reads one metric keeps half of them). Raises
    aprof_report.ReportError or ProfileError."""
    merger = _Merger()
    for path in report_files(paths):
        points = _ReportPoints(metrics)
        sink: aprof_report.TupleSink = points if tuple_hook is None else _HookedSink(points, tuple_hook)
        rep = aprof_report.load(path, tuple_sink=sink)
        merger.add(rep, points)
        if report_hook is not None:
            report_hook(rep)
    return merger.profile()
