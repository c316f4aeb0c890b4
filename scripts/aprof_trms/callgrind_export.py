# SPDX-License-Identifier: GPL-2.0-or-later
# The callgrind-export command: one aprof-trms report written as a
# callgrind.out file, for callgrind_annotate, KCachegrind and qcachegrind.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Export of an aprof-trms report to the callgrind format (docs/analysis.md).

    callgrind-export.py aprof-trms.out.4242 -o callgrind.out.4242
    callgrind_annotate --inclusive=yes callgrind.out.4242

Events, per routine (merged over the report's threads, or of one --thread):

  BB or Ir  the report's cost metric (basic blocks or instructions): self
            cost on the routine's line, inclusive cost on its call lines
            (from the report's call records), so that inclusive views work;
  TRMS, RMS the sums of the TRMS and RMS values of the routine's activations;
  Induced   the sum of their induced first reads (by other threads and by
            the kernel).

TRMS, RMS and Induced do not add up along calls: an activation's TRMS
already counts what its callees read, so a routine's sum is inclusive by
nature, and a caller's input is not the sum of its callees'. Both views
should show the routine's own sum. The self view shows the routine's lines;
an inclusive view (callgrind_annotate --inclusive=yes, KCachegrind) takes a
called function's inclusive cost from the call lines into it, and a
function nobody calls from its lines and its call lines. So each call line
carries the callee's sums shared among the lines into it in proportion to
their calls (exact for a routine with one caller), a recursive call line
carries none (the nested activations are in the sums already), and the
activations no recorded routine called (a thread's root) get a call line
from "(no routine)", which also holds the cost no routine was pending for,
so that the file's total equals the report's total cost. Every routine's
inclusive TRMS, RMS and Induced is then its own sum; those of "(no routine)"
add up its roots'. Reports older than format version 3 have no call
records: the file then has no call graph.
"""
import os
import sys
from typing import Dict, List, Optional, TextIO, Tuple

from . import cli, output
from . import report as aprof_report
from .names import printable

__all__ = ["EVENTS", "NO_ROUTINE", "routine_sums", "export", "main"]

# The events after the cost metric's.
EVENTS = ("TRMS", "RMS", "Induced")
# The function that holds the cost spent outside every routine.
NO_ROUTINE = "(no routine)"
NO_ROUTINE_ID = -1   # its id among the routines' in _call_lines
_COST_EVENT = {"bb": ("BB", "Basic blocks executed"), "instructions": ("Ir", "Instructions executed")}
_EVENT_TEXT = {"TRMS": "Sum of threaded read memory sizes (cells)",
               "RMS": "Sum of read memory sizes (cells)",
               "Induced": "Sum of induced first reads (other threads and the kernel)"}


def _selected(thread: int, wanted: Optional[int]) -> bool:
    return wanted is None or thread == wanted


def routine_sums(report: aprof_report.Report,
                 thread: Optional[int] = None) -> Dict[int, List[int]]:
    """{routine id: [self cost, sum TRMS, sum RMS, sum induced reads]} over the
    threads (or one thread), for routines with activations there."""
    sums: Dict[int, List[int]] = {}
    for (th, rid), t in report.totals.items():
        if _selected(th, thread):
            sums.setdefault(rid, [0, 0, 0, 0])[0] += t.self_cost
    for (th, rid, size), t in report.trms.items():
        if _selected(th, thread):
            s = sums.setdefault(rid, [0, 0, 0, 0])
            s[1] += size * t.calls
            s[3] += t.sum_thread_induced + t.sum_external
    for (th, rid, size), t in report.rms.items():
        if _selected(th, thread):
            sums.setdefault(rid, [0, 0, 0, 0])[2] += size * t.calls
    return sums


def _shares(total: int, weights: List[int]) -> List[int]:
    """`total` split in proportion to `weights`, in integers that add up to
    it (largest remainders)."""
    whole = sum(weights)
    if whole == 0:
        return [0] * len(weights)
    parts = [total * w // whole for w in weights]
    by_remainder = sorted(range(len(weights)), key=lambda i: -(total * weights[i] % whole))
    for i in by_remainder[:total - sum(parts)]:
        parts[i] += 1
    return parts


def _call_lines(report: aprof_report.Report, thread: Optional[int],
                sums: Dict[int, List[int]]) -> Dict[int, Dict[int, List[int]]]:
    """{caller id (NO_ROUTINE_ID: no recorded caller): {callee id: [calls,
    inclusive cost, TRMS, RMS, induced]}}: the report's call edges, and one
    edge into each routine from NO_ROUTINE_ID for its activations no edge
    accounts for, with the callees' input sums shared among their
    non-recursive lines in by calls (module docstring)."""
    edges: Dict[int, Dict[int, List[int]]] = {}
    for (th, caller, callee), e in report.calls.items():
        if _selected(th, thread):
            acc = edges.setdefault(caller, {}).setdefault(callee, [0, 0, 0, 0, 0])
            acc[0] += e.calls
            acc[1] += e.inclusive_cost
    into: Dict[int, List[Tuple[int, List[int]]]] = {}
    for caller, callees in edges.items():
        for callee, acc in callees.items():
            into.setdefault(callee, []).append((caller, acc))
    activations: Dict[int, List[int]] = {}   # calls, cumulative cost
    for (th, rid), t in report.totals.items():
        if _selected(th, thread):
            acc = activations.setdefault(rid, [0, 0])
            acc[0] += t.calls
            acc[1] += t.cumulative_cost
    for rid, (calls, cumulative) in activations.items():
        lines = into.get(rid, [])
        uncalled = calls - sum(acc[0] for _, acc in lines)
        if uncalled > 0 and report.calls:   # without call records, no function is called
            called_cost = sum(acc[1] for caller, acc in lines if caller != rid)
            acc = [uncalled, max(0, cumulative - called_cost), 0, 0, 0]
            edges.setdefault(NO_ROUTINE_ID, {})[rid] = acc
            lines = lines + [(NO_ROUTINE_ID, acc)]
        shared = [acc for caller, acc in lines if caller != rid]
        for event in range(3):
            total = sums.get(rid, [0, 0, 0, 0])[1 + event]
            for acc, part in zip(shared, _shares(total, [acc[0] for acc in shared])):
                acc[2 + event] = part
    return edges


def _function_names(report: aprof_report.Report) -> Dict[int, str]:
    """Names for the fn= lines: the routine's name, made unique by its object
    and object address where two routines of one source file share a name
    (callgrind_annotate identifies a function by file and name)."""
    seen: Dict[Tuple[str, str], int] = {}
    for r in report.routines.values():
        key = (r.file or "???", r.name)
        seen[key] = seen.get(key, 0) + 1
    names = {}
    for r in report.routines.values():
        name = r.name
        if seen[(r.file or "???", r.name)] > 1:
            address = r.object_address if r.object_address is not None else r.address
            name = f"{r.name} [{os.path.basename(r.object)}+{address:#x}]"
        names[r.id] = printable(name)
    return names


def export(report: aprof_report.Report, out: TextIO, thread: Optional[int] = None) -> None:
    """Writes the callgrind-format text of the report (or of one thread)."""
    if thread is not None and thread not in report.threads:
        raise cli.UserError(f"{report.path}: no thread {thread} (threads: "
                            f"{', '.join(map(str, sorted(report.threads)))})")
    h = report.header
    cost_event, cost_text = _COST_EVENT[h.cost_metric]
    sums = routine_sums(report, thread)
    total_cost = sum(t.total_cost for t in report.threads.values() if _selected(t.serial, thread))
    outside = total_cost - sum(s[0] for s in sums.values())
    edges = _call_lines(report, thread, sums)
    names = _function_names(report)
    totals = [total_cost] + [sum(s[i] for s in sums.values()) for i in (1, 2, 3)]

    w = out.write
    w("# callgrind format\nversion: 1\n")
    w(f"creator: aprof-trms {printable(h.tool_version)} (callgrind-export of {printable(report.path)})\n")
    w(f"pid: {h.pid}\n")
    if thread is not None:
        w(f"thread: {thread}\n")
    w(f"cmd: {printable(' '.join(h.command))}\n")
    w("positions: line\n")
    w(f"event: {cost_event} : {cost_text}\n")
    for e in EVENTS:
        w(f"event: {e} : {_EVENT_TEXT[e]}\n")
    w(f"events: {cost_event} {' '.join(EVENTS)}\n")
    w(f"summary: {' '.join(map(str, totals))}\n\n")

    # Name compression: each object, file and function is named once, then
    # referred to by its number.
    numbers: Dict[Tuple[str, str], int] = {}

    def ref(kind: str, name: str) -> str:
        key = (kind, name)
        if key in numbers:
            return f"({numbers[key]})"
        numbers[key] = len(numbers) + 1
        return f"({numbers[key]}) {name}"

    def position(rid: int) -> Tuple[str, str, int]:
        r = report.routines[rid]
        return printable(r.object), printable(r.file or "???"), r.line or 0

    def call_lines(rid: int, line: int) -> None:
        for callee, (calls, *costs) in sorted(edges.get(rid, {}).items()):
            cobj, cfile, cline = position(callee)
            w(f"cob={ref('ob', cobj)}\ncfi={ref('fl', cfile)}\ncfn={ref('fn', names[callee])}\n")
            w(f"calls={calls} {cline}\n{line} {' '.join(map(str, costs))}\n")

    for rid in sorted((set(sums) | set(edges)) - {NO_ROUTINE_ID}):
        obj, file, line = position(rid)
        self_cost, trms, rms, induced = sums.get(rid, [0, 0, 0, 0])
        w(f"ob={ref('ob', obj)}\nfl={ref('fl', file)}\nfn={ref('fn', names[rid])}\n")
        w(f"{line} {self_cost} {trms} {rms} {induced}\n")
        call_lines(rid, line)
        w("\n")
    if outside > 0 or NO_ROUTINE_ID in edges:
        w(f"ob={ref('ob', '???')}\nfl={ref('fl', '???')}\nfn={ref('fn', NO_ROUTINE)}\n")
        w(f"0 {max(outside, 0)} 0 0 0\n")
        call_lines(NO_ROUTINE_ID, 0)
        w("\n")
    w(f"totals: {' '.join(map(str, totals))}\n")


def main(argv: Optional[List[str]] = None) -> int:
    parser = cli.argument_parser(
        description="Writes an aprof-trms report as a callgrind.out file (cost, TRMS, RMS "
        "and induced reads per routine, with the call graph) for callgrind_annotate "
        "and KCachegrind.")
    parser.add_argument("report", metavar="REPORT", help="an aprof-trms report")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="output file, - for standard output "
                        "(default: callgrind.out.PID in the current directory)")
    parser.add_argument("--thread", type=int, metavar="N",
                        help="only the thread with serial N (default: all threads merged)")
    args = parser.parse_args(argv)
    report = aprof_report.load(args.report)
    if args.output == "-":
        export(report, sys.stdout, args.thread)
        return cli.EXIT_OK
    path = args.output or f"callgrind.out.{report.header.pid}"
    with output.replacing(path) as f:   # whole or absent, never over a device
        export(report, f, args.thread)
    return cli.EXIT_OK
