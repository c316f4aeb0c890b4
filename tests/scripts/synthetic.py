"""Synthetic aprof-trms reports (format version 1) for the tests of the
analysis scripts: routines whose activation cost is a known function of the
input size, so a fit, a ranking or a regression check has a right answer.

    import synthetic
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", [
        synthetic.Routine("sort", synthetic.COSTS["n^2"], synthetic.sizes(20)),
        synthetic.Routine("scan", lambda n: 3 * n + 10, synthetic.sizes(20), noise=0.02),
    ], threads=2)

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
import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

SCRIPTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)
from aprof_trms import report as aprof_report  # noqa: E402

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


def activations(routine: Routine, seed: int = 0) -> List[Tuple[int, int, int]]:
    """(trms, rms, cost) of every activation of the routine, in call order."""
    rnd = random.Random(f"{seed}:{routine.name}")
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
                resolution: int = 4, seed: int = 0, pid: int = 4242,
                command: Sequence[str] = ("./synthetic",), trms_tracking: bool = True,
                syscall_input: str = "all") -> str:
    """The text of a report in which activation i of each routine ran in
    thread i % threads + 1 and called nothing (self cost = cost). Without
    trms_tracking (the tool's --trms=no) every TRMS is the RMS."""
    lines = [
        f"{aprof_report.MAGIC}\t{aprof_report.FORMAT_VERSION}",
        "tool\taprof-trms\t0.1.0\t3.19.0",
        "command\t" + "\t".join(aprof_report.escape(c) for c in command),
        f"pid\t{pid}\t1",
        f"cost-metric\t{cost_metric}",
        f"memory-resolution\t{resolution}",
        f"syscall-input\t{syscall_input}",
    ] + ([] if trms_tracking else ["trms-tracking\tno"])
    # (thread, routine id) -> [calls, cost]; (metric, thread, rid, size) -> tuple fields
    totals: Dict[Tuple[int, int], List[int]] = {}
    tuples: Dict[Tuple[str, int, int, int], List[int]] = {}
    for rid, r in enumerate(routines, 1):
        for i, (trms, rms, cost) in enumerate(activations(r, seed)):
            trms = trms if trms_tracking else rms
            th = i % threads + 1
            tot = totals.setdefault((th, rid), [0, 0])
            tot[0] += 1
            tot[1] += cost
            induced = trms - rms  # first reads that only the TRMS counts
            for metric, size in (("trms", trms), ("rms", rms)):
                t = tuples.setdefault((metric, th, rid, size), [0, cost, cost, 0, 0, 0, 0, 0])
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
    for rid, r in enumerate(routines, 1):
        entry = 0x401000 + 0x40 * rid
        lines.append(f"routine\t{rid}\t{entry:#x}\t{esc(r.object)}\t{esc(r.name)}\t{esc(r.name)}\t"
                     f"{entry:#x}\t???\t0")
    for (th, rid), (calls, cost) in sorted(totals.items()):
        lines.append(f"totals\t{th}\t{rid}\t{calls}\t{cost}\t{cost}")
    for metric in ("trms", "rms"):
        for (m, th, rid, size), t in sorted(tuples.items()):
            if m == metric:
                lines.append(f"{metric}\t{th}\t{rid}\t{size}\t" + "\t".join(map(str, t)))
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
