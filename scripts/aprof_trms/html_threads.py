# SPDX-License-Identifier: GPL-2.0-or-later
# The HTML report's reading: each report read once, never held whole.
#
# Copyright (C) 2026, the aprof-trms authors.
"""What html.py needs of the reports beyond their merged profile, read in
the same pass (aprof_profile.load_profile's hooks), without keeping the
reports' records as Python objects (a report of 100,000 routines has
millions; held whole, it took gigabytes):

- per report, its trms and rms records as int64 rows (thread, routine,
  size, calls, min, max and sum of costs), for the per-thread points of
  the routines the page details (points_by_thread);
- the thread roots of charts.py (programs.thread_roots), from the trms
  records' sums per thread and routine, computed when the report is read;
- the reports without their records and totals (their threads, routines
  and input sources: the header and the producer graphs).
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import programs as aprof_programs
from . import profile as aprof_profile
from . import report as aprof_report

_KEPT = 7   # thread, routine, size, calls, min cost, max cost, sum of costs
# The CostTuple columns kept of each metric: trms records add the induced
# reads that the thread roots sum (columns _SUMMED of the kept ones).
_COLUMNS = {"trms": list(range(_KEPT)) + [9, 10], "rms": list(range(_KEPT))}
_SUMMED = [_KEPT, _KEPT + 1, 6]   # thread-induced, external, sum of costs


class _Records:
    """The tuple hook of one report: its records by metric, as blocks of
    rows (the reader's blocks, or the records it gave one by one)."""

    def __init__(self) -> None:
        self.blocks: Dict[str, List[np.ndarray]] = {m: [] for m in aprof_report.METRICS}
        self.single: Dict[str, List[aprof_report.CostTuple]] = {m: [] for m in aprof_report.METRICS}

    def __call__(self, metric: str, t: aprof_report.CostTuple) -> None:
        self.single[metric].append(t)

    def add_block(self, metric: str, rows: np.ndarray) -> None:
        self._flush(metric)   # the records before the block stay before it
        self.blocks[metric].append(rows[:, _COLUMNS[metric]])

    def _flush(self, metric: str) -> None:
        single = self.single[metric]
        if single:
            try:
                block = np.array(single, dtype=np.int64)
            except OverflowError:   # exact beyond int64, as Python integers
                block = np.array(single, dtype=object)
            self.blocks[metric].append(block[:, _COLUMNS[metric]])
            self.single[metric] = []

    def rows(self, metric: str) -> np.ndarray:
        """Every record of the metric (its _COLUMNS) in the report's order
        (thread, routine, size): int64, or Python integers (object) where
        a value passes int64."""
        self._flush(metric)
        blocks, self.blocks[metric] = self.blocks[metric], []
        return (np.concatenate(blocks) if blocks
                else np.zeros((0, len(_COLUMNS[metric])), dtype=np.int64))


def _root_sums(trms: np.ndarray) -> aprof_programs.RootSums:
    """programs.add_root_sums of every trms record (rows in report order)."""
    if not len(trms):
        return {}
    summed = trms[:, _SUMMED]
    if summed.dtype != object and summed.astype(float).sum(axis=0).max() >= float(1 << 62):
        summed = summed.astype(object)   # exact sums beyond int64
    pairs = trms[:, :2]
    starts = np.flatnonzero(np.r_[True, (pairs[1:] != pairs[:-1]).any(axis=1)])
    sums = np.add.reduceat(summed, starts, axis=0)
    return {(th, rid): s for (th, rid), s in zip(pairs[starts].tolist(), sums.tolist())}


class Reading:
    """The reports read (load()): their merged profile, and what the page
    needs of each beyond it."""

    def __init__(self) -> None:
        self.reports: List[aprof_report.Report] = []   # without records and totals
        self.keys: List[Dict[int, aprof_profile.RoutineKey]] = []   # routine id -> key, per report
        self.records: List[Dict[str, np.ndarray]] = []   # kept rows by metric, per report
        self.roots: List[aprof_programs.ThreadRoot] = []
        self.profile: Optional[aprof_profile.Profile] = None
        self.current = _Records()   # the report being read

    def _report_read(self, rep: aprof_report.Report) -> None:
        records, self.current = self.current, _Records()
        trms, rms = records.rows("trms"), records.rows("rms")
        self.roots.extend(aprof_programs.thread_roots(rep, _root_sums(trms)))
        self.records.append({"trms": np.ascontiguousarray(trms[:, :_KEPT]), "rms": rms})
        self.keys.append(aprof_profile.keys_of(rep))
        rep.totals = {}
        self.reports.append(rep)

    def points_by_thread(self, keys: Sequence[aprof_profile.RoutineKey]) \
            -> Dict[aprof_profile.RoutineKey, List[Optional[List[List[List[int]]]]]]:
        """For each routine key, per thread of every report (in report and
        thread order): [trms points, rms points] of the routine in that
        thread ([size, calls, min, max, sum] by size), or None where it
        has no activation."""
        wanted = set(keys)
        out: Dict[aprof_profile.RoutineKey, List] = {key: [] for key in keys}
        for rep, key_of, records in zip(self.reports, self.keys, self.records):
            ids = {rid: key for rid, key in key_of.items() if key in wanted}
            found: Dict[Tuple[int, int], List[List[List[int]]]] = {}
            for which, metric in enumerate(aprof_report.METRICS):
                rows = records[metric]
                mine = rows[np.isin(rows[:, 1], np.fromiter(ids, dtype=np.int64, count=len(ids)))]
                for thread, rid, *point in mine.tolist():
                    found.setdefault((rid, thread), [[], []])[which].append(point)
            for serial in sorted(rep.threads):
                for rid, key in ids.items():
                    out[key].append(found.get((rid, serial)))
            for key in wanted - set(ids.values()):   # routines of other reports only
                out[key].extend([None] * len(rep.threads))
        return out


def load(paths: Sequence[str]) -> Reading:
    """Reads and merges the reports (aprof_profile.load_profile: errors
    as there), keeping what Reading describes."""
    reading = Reading()
    reading.profile = aprof_profile.load_profile(paths, _Forward(reading), reading._report_read)
    return reading


class _Forward:
    """load_profile's tuple hook: the records of the report being read go
    to its _Records (one by one, or as blocks)."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading

    def __call__(self, metric: str, t: aprof_report.CostTuple) -> None:
        self.reading.current(metric, t)

    def add_block(self, metric: str, rows: np.ndarray) -> None:
        self.reading.current.add_block(metric, rows)
