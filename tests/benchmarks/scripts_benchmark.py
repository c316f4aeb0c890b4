#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of the analysis commands on a large generated report: wall time
# and peak memory of loading, ranking, plotting and charting it.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Scripts benchmark: do the analysis commands scale to a large program?

    scripts_benchmark.py [--routines N] [--workdir DIR] [--repeat R]
                         [--only load,rank,plot,charts] [--scripts DIR]

Generates (once per N, cached in the work directory) a valid report of N
routines (default 100,000) shaped like a large real program: 4 threads, 200
objects, C++-style names, most routines with one or a few distinct input
sizes and a few percent with dozens (tests/scripts/synthetic.py writes it, so
it passes the reader's consistency checks). Then runs, each in its own
process, with the interpreter running this script:

    load    aprof_trms.profile.load_profile on the report (reading + merging)
    rank    scripts/rank.py REPORT > /dev/null
    plot    scripts/plot.py REPORT -o OUT --quiet (its default selection)
    charts  scripts/charts.py REPORT -o OUT --quiet

and prints, per command, the median wall time and the median CPU time (user
+ system) of R runs (default 1), and the largest peak RSS (the process's own
maximum resident set, from wait4), with the budget of issue 9 (15 s and 1 GB
each). The verdict uses the CPU time: on a shared machine the wall time also
counts the time other processes held the cores (on an idle one they are
equal: the commands are single-threaded). Exit status 1 if a command fails
or exceeds the budget, else 0. Not a test (times depend on the machine):
`make bench-scripts` runs it; docs/performance.md records the figures.
--scripts DIR measures the scripts of another tree (e.g. an older commit
checked out with git worktree), on the same report.

To see where the time goes: python3 -m cProfile -s cumtime scripts/rank.py
WORKDIR/aprof-trms.out.1 > /dev/null.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.normpath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(SRCDIR, "scripts")
TIME_BUDGET_S = 15.0
MEMORY_BUDGET_MB = 1024.0
THREADS = 4
OBJECTS = 200


def routine_shapes(count: int):
    """(name, object, cost function, sizes, calls per size) of each routine,
    deterministic: 60% one size, 25% two to four, 12% five to twelve, 3%
    thirteen to forty; costs of every growth class."""
    sys.path.insert(0, os.path.join(SRCDIR, "tests", "scripts"))
    import synthetic  # noqa: E402  (benchmark tool, not the package)
    classes = list(synthetic.COSTS.values())
    routines = []
    for i in range(count):
        h = (i * 2654435761) % 1000
        distinct = 1 if h < 600 else 2 + h % 3 if h < 850 else 5 + h % 8 if h < 970 else 13 + h % 28
        routines.append(synthetic.Routine(
            name=f"ns{i % 97}::Class{i % 1013}<int>::method_{i}(unsigned long, char const*)",
            cost=classes[i % len(classes)],
            sizes=synthetic.sizes(distinct, first=1 + i % 50, ratio=1.3),
            calls=1 + i % 3,
            noise=0.05,
            object=f"/usr/lib/x86_64-linux-gnu/libbench{i % OBJECTS}.so"))
    return synthetic, routines


def report_path(workdir: str, count: int) -> str:
    """The report of `count` routines, generated if missing."""
    path = os.path.join(workdir, f"routines-{count}", "aprof-trms.out.1")
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    started = time.monotonic()
    synthetic, routines = routine_shapes(count)
    text = synthetic.report_text(routines, threads=THREADS, command=("./bench", str(count)))
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.rename(path + ".tmp", path)
    print(f"generated {path}: {count} routines, {len(text) / 1e6:.0f} MB, "
          f"{text.count(chr(10))} records, in {time.monotonic() - started:.0f} s", flush=True)
    return path


def measure(argv, cwd: str):
    """(wall seconds, CPU seconds, peak RSS in MB, exit status) of one run of argv."""
    started = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        stderr = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
    elapsed = time.monotonic() - started
    if proc.returncode != 0:
        print(f"  {' '.join(argv)}: exit {proc.returncode}\n{stderr}", file=sys.stderr)
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, proc.returncode


def commands(scripts: str, report: str, out: str):
    py = sys.executable
    return {
        "load": [py, "-c", "import sys; from aprof_trms import profile; "
                 "profile.load_profile([sys.argv[1]])", report],
        "rank": [py, os.path.join(scripts, "rank.py"), report],
        "plot": [py, os.path.join(scripts, "plot.py"), report, "-o", os.path.join(out, "plots"),
                 "--quiet"],
        "charts": [py, os.path.join(scripts, "charts.py"), report, "-o",
                   os.path.join(out, "charts"), "--quiet"],
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--routines", type=int, default=100_000, metavar="N")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "aprof-scripts-bench"),
                   help="where the generated reports are kept (default: $TMPDIR/aprof-scripts-bench)")
    p.add_argument("--repeat", type=int, default=1, metavar="R")
    p.add_argument("--only", default="load,rank,plot,charts", metavar="LIST")
    p.add_argument("--scripts", default=SCRIPTS, metavar="DIR",
                   help="the scripts directory measured (default: this tree's)")
    args = p.parse_args(argv)
    report = report_path(args.workdir, args.routines)
    failed = False
    print(f"{'command':<8} {'wall (s)':>9} {'CPU (s)':>8} {'peak RSS (MB)':>14}  budget "
          f"{TIME_BUDGET_S:g} s, {MEMORY_BUDGET_MB:g} MB", flush=True)
    with tempfile.TemporaryDirectory(prefix="aprof-scripts-bench-") as out:
        todo = commands(args.scripts, report, out)
        for name in args.only.split(","):
            runs = [measure(todo[name], cwd=args.scripts) for _ in range(max(1, args.repeat))]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            peak = max(r[2] for r in runs)
            ok = all(r[3] == 0 for r in runs) and cpu <= TIME_BUDGET_S and peak <= MEMORY_BUDGET_MB
            failed |= not ok
            print(f"{name:<8} {wall:>9.1f} {cpu:>8.1f} {peak:>14.0f}  "
                  f"{'ok' if ok else 'OVER BUDGET or FAILED'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
