# SPDX-License-Identifier: GPL-2.0-or-later
"""Synthetic aprof-trms reports (the current format version) for the tests
of the analysis scripts: routines whose activation cost is a known function
of the input size, so a fit, a ranking or a regression check has a right
answer.

    import synthetic
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", [
        synthetic.Routine("sort", synthetic.COSTS["n^2"], synthetic.sizes(20)),
        synthetic.Routine("scan", lambda n: 3 * n + 10, synthetic.sizes(20), noise=0.02),
    ], threads=2)

Entries with a `caller` are called by that routine (call records, and with
contexts=DEPTH the calling-context records of --collect-context=yes).
Entries with callers and the same name and object are one routine (without
callers, each entry is a routine: same-name static functions), so a routine
called from two places, linear from one and quadratic from the other, is

    synthetic.Routine("work", synthetic.COSTS["n"], sizes, caller="small"),
    synthetic.Routine("work", synthetic.COSTS["n^2"], sizes, caller="big"),

Every report written is checked: aprof_report.load() must parse it and
aprof_report.consistency_problems() must find nothing, so the tests of the
scripts never run on a report the tool could not have written. Noise is
deterministic (seeded by the seed and the routine's name), so the tests are
reproducible.
"""
import dataclasses
import math
import os
import random
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from aprof_trms import report as aprof_report

# The entry scripts' directory, for the tests that run them.
SCRIPTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))

# Cost functions of the growth classes, with an intercept and coefficients
# that make every term matter over sizes(…).
COSTS: Dict[str, Callable[[int], float]] = {
    "1": lambda n: 5000.0,
    "log n": lambda n: 40.0 + 60.0 * math.log2(n + 1),
    "sqrt n": lambda n: 30.0 + 25.0 * math.sqrt(n),
    "n": lambda n: 20.0 + 3.0 * n,
    "n log n": lambda n: 50.0 + 2.0 * n * math.log2(n + 1),
    "n^2": lambda n: 100.0 + 0.5 * n * n,
    "n^3": lambda n: 100.0 + 0.01 * n ** 3,
    "n^1.5": lambda n: 10.0 + 2.0 * n ** 1.5,
}


def sizes(count: int, first: int = 8, ratio: float = 1.4) -> List[int]:
    """`count` distinct input sizes growing geometrically from `first`."""
    out: List[int] = []
    x = float(first)
    while len(out) < count:
        v = int(round(x))
        if not out or v > out[-1]:
            out.append(v)
        x *= ratio
    return out


@dataclasses.dataclass
class Routine:
    name: str
    cost: Callable[[int], float]        # cost of an activation with TRMS n
    sizes: Sequence[int]                # one group of activations per TRMS value
    calls: int = 1                      # activations per size
    noise: float = 0.0                  # relative amplitude of the cost noise
    object: str = "/usr/bin/synthetic"
    rms: Optional[Callable[[int], int]] = None  # RMS of an activation with TRMS n (default n)
    worst: Optional[Callable[[int], float]] = None  # cost of the last activation of each size
    caller: Optional[str] = None        # the routine whose activations call these ones


def _entry_paths(routines: Sequence[Routine], ids: List[int]) -> List[Tuple[int, ...]]:
    """Per entry, its calling context: the routine ids from the root (an
    entry without a caller) to its routine, through the first entry named
    by each caller."""
    first = {}
    for i, r in enumerate(routines):
        first.setdefault(r.name, i)
    paths: Dict[int, Tuple[int, ...]] = {}

    def path(i: int) -> Tuple[int, ...]:
        if i not in paths:
            caller = routines[i].caller
            paths[i] = (path(first[caller]) if caller else ()) + (ids[i],)
        return paths[i]
    return [path(i) for i in range(len(routines))]


def activations(routine: Routine, seed: int = 0) -> List[Tuple[int, int, int]]:
    """(trms, rms, cost) of every activation of the routine, in call order."""
    rnd = random.Random(f"{seed}:{routine.name}" + (f"<-{routine.caller}" if routine.caller else ""))
    out = []
    for n in routine.sizes:
        for j in range(routine.calls):
            u = rnd.uniform(-1.0, 1.0)
            f = routine.worst if routine.worst and j == routine.calls - 1 else routine.cost
            cost = max(1, int(round(f(n) * (1.0 + routine.noise * u))))
            rms = n if routine.rms is None else routine.rms(n)
            if not 0 <= rms <= n:
                raise ValueError(f"{routine.name}: RMS {rms} not within [0, TRMS {n}]")
            out.append((n, rms, cost))
    return out


def report_text(routines: Sequence[Routine], threads: int = 1, cost_metric: str = "bb",
                resolution: int = 4, seed: int = 0, pid: int = 4242, ppid: int = 1,
                command: Sequence[str] = ("./synthetic",), trms_tracking: bool = True,
                syscall_input: str = "all", contexts: Optional[int] = None,
                kernel_writes_unseen: Sequence[str] = (),
                interval: Optional[Tuple[int, int, int, int, str]] = None) -> str:
    """The text of a report in which activation i of each entry ran in
    thread i % threads + 1 and called nothing (self cost = cost; its
    caller's cost does not include it). Without trms_tracking (the tool's
    --trms=no) every TRMS is the RMS. With contexts (a depth limit, at
    least the deepest chain of callers) the report has the calling-context
    tree and its tuples; kernel_writes_unseen: the mechanisms of its
    kernel-writes-unseen records; interval: the fields of the interval
    record (dump number, start, end, zeroes, reason), none if None."""
    lines = [
        f"{aprof_report.MAGIC}\t{aprof_report.FORMAT_VERSION}",
        "tool\taprof-trms\t0.1.0\t3.19.0",
        "command\t" + "\t".join(aprof_report.escape(c) for c in command),
        f"pid\t{pid}\t{ppid}",
    ] + ([] if interval is None else ["interval\t" + "\t".join(map(str, interval))]) + [
        f"cost-metric\t{cost_metric}",
        f"memory-resolution\t{resolution}",
        f"syscall-input\t{syscall_input}",
    ] + [f"kernel-writes-unseen\t{m}" for m in kernel_writes_unseen] + \
        ([] if trms_tracking else ["trms-tracking\tno"]) + \
        ([] if contexts is None else [f"contexts\t{contexts}"])
    # Entries with callers of one name and object are one routine: its id, in
    # order of appearance.
    unique: Dict[tuple, int] = {}
    ids = [unique.setdefault((r.name, r.object) + (() if r.caller else (i,)), len(unique) + 1)
           for i, r in enumerate(routines)]
    paths = _entry_paths(routines, ids)
    # Context ids by path, parents first (every prefix of a path is a context).
    context_ids: Dict[Tuple[int, ...], int] = {}
    for path in sorted(paths, key=len) if contexts is not None else ():
        for depth in range(1, len(path) + 1):
            context_ids.setdefault(path[:depth], len(context_ids) + 1)
    # (thread, routine id) -> [calls, cost]; (metric, thread, rid, size) -> tuple
    # fields, likewise (metric, thread, context, size); (thread, caller, callee) -> [calls, cost]
    totals: Dict[Tuple[int, int], List[int]] = {}
    tuples: Dict[Tuple[str, int, int, int], List[int]] = {}
    context_tuples: Dict[Tuple[str, int, int, int], List[int]] = {}
    edges: Dict[Tuple[int, int, int], List[int]] = {}
    for r, rid, path in zip(routines, ids, paths):
        for i, (trms, rms, cost) in enumerate(activations(r, seed)):
            trms = trms if trms_tracking else rms
            th = i % threads + 1
            tot = totals.setdefault((th, rid), [0, 0])
            tot[0] += 1
            tot[1] += cost
            induced = trms - rms  # first reads that only the TRMS counts
            if r.caller:
                edge = edges.setdefault((th, path[-2], rid), [0, 0])
                edge[0] += 1
                edge[1] += cost
            for metric, size in (("trms", trms), ("rms", rms)):
                keys = [(tuples, rid)] + ([] if contexts is None else [(context_tuples, context_ids[path])])
                for table, ident in keys:
                    t = table.setdefault((metric, th, ident, size), [0, cost, cost, 0, 0, 0, 0, 0])
                    t[0] += 1
                    t[1] = min(t[1], cost)
                    t[2] = max(t[2], cost)
                    t[3] += cost
                    t[4] += cost * cost
                    t[5] += cost
                    t[6] += induced
    thread_cost = {th: 1000 + sum(c for (t, _), (_, c) in totals.items() if t == th)
                   for th in range(1, threads + 1)}
    for th in range(1, threads + 1):
        lines.append(f"thread\t{th}\t{th}\t{thread_cost[th]}")
    esc = aprof_report.escape
    for (name, obj, *_), rid in unique.items():
        entry = 0x401000 + 0x40 * rid
        lines.append(f"routine\t{rid}\t{entry:#x}\t{esc(obj)}\t{esc(name)}\t{esc(name)}\t"
                     f"{entry:#x}\t???\t0")
    for (th, rid), (calls, cost) in sorted(totals.items()):
        lines.append(f"totals\t{th}\t{rid}\t{calls}\t{cost}\t{cost}")
    for metric in ("trms", "rms"):
        for (m, th, rid, size), t in sorted(tuples.items()):
            if m == metric:
                lines.append(f"{metric}\t{th}\t{rid}\t{size}\t" + "\t".join(map(str, t)))
    for (th, caller, callee), (calls, cost) in sorted(edges.items()):
        lines.append(f"call\t{th}\t{caller}\t{callee}\t{calls}\t{cost}")
    for path, ident in context_ids.items():
        parent = context_ids[path[:-1]] if len(path) > 1 else 0
        lines.append(f"context\t{ident}\t{parent}\t{path[-1]}")
    for metric in ("trms", "rms"):
        for (m, th, ident, size), t in sorted(context_tuples.items()):
            if m == metric:
                lines.append(f"context-{metric}\t{th}\t{ident}\t{size}\t" + "\t".join(map(str, t)))
    lines.append(f"end\t{len(lines)}")
    return "".join(line + "\n" for line in lines)


def write_report(path, routines: Sequence[Routine], **options) -> str:
    """Writes report_text(routines, **options) to `path`, checks that it is a
    valid, consistent report, and returns the path as a string."""
    path = os.fspath(path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(report_text(routines, **options))
    report = aprof_report.load(path)
    problems = aprof_report.consistency_problems(report)
    if problems:
        raise AssertionError("synthetic report is inconsistent:\n" + "\n".join(problems))
    return path


def two_callers(noise: float = 0.01) -> List[Routine]:
    """The calling-contexts example: main calls small and big; small calls
    work twice per size with a linear cost, big once per size with a
    quadratic cost (12 sizes each)."""
    n = sizes(12)
    return [Routine("main", COSTS["1"], [1]),
            Routine("small", COSTS["1"], [1, 2], caller="main"),
            Routine("big", COSTS["1"], [1], caller="main"),
            Routine("work", COSTS["n"], n, calls=2, caller="small", noise=noise),
            Routine("work", COSTS["n^2"], n, caller="big", noise=noise)]
