#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of the analysis commands on a large generated report: wall time
# and peak memory of loading, ranking, plotting and charting it.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Scripts benchmark: do the analysis commands scale to a large program?

    scripts_benchmark.py [--routines N] [--workdir DIR] [--repeat R]
                         [--only load,rank,plot,charts,...] [--scripts DIR]

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

Then the large-report cases of issue 25, on two more generated reports:
"wide", 100,000 routines with 10 distinct input sizes each (every routine
fittable: about 100 MB), and "long", 5 routines with 200,000 sizes each:

    rank-all      scripts/rank.py WIDE --min-share 0
    annotate-all  scripts/annotate.py WIDE --min-share 0
    regress-same  scripts/regress.py --baseline WIDE --candidate WIDE --min-share 0
    regress-two   scripts/regress.py --baseline WIDE --candidate WIDE2 --min-share 0
                  (WIDE2: the same routines with other noise)
    html          scripts/html_report.py WIDE -o OUT
    plot-long     scripts/plot.py LONG -o OUT --quiet

and prints, per command, the median wall time and the median CPU time (user
+ system) of R runs (default 1), and the largest peak RSS (the process's own
maximum resident set, from wait4), with its budget: that of issue 9 (15 s
and 1 GB each) for the first four, that of issue 25 (30 s and 1 GB) for the
large-report cases. The verdict uses the CPU time: on a shared machine the wall time also
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
import multiprocessing
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
LARGE_TIME_BUDGET_S = 30.0    # issue 25's budget for the large-report cases
THREADS = 4
OBJECTS = 200
WIDE_ROUTINES = 100_000       # the "wide" report: this many routines ...
WIDE_SIZES = 10               # ... of this many distinct input sizes each
LONG_ROUTINES = 5             # the "long" report: this many routines ...
LONG_SIZES = 200_000          # ... of this many distinct input sizes each


def routine_shapes(count: int):
    """(name, object, cost function, sizes, calls per size) of each routine,
    deterministic: 60% one size, 25% two to four, 12% five to twelve, 3%
    thirteen to forty; costs of every growth class."""
    sys.path[:0] = [os.path.join(SRCDIR, "tests", "scripts"), os.path.join(SRCDIR, "scripts")]
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


def wide_shapes(seed: int):
    """WIDE_ROUTINES routines of WIDE_SIZES sizes each, one activation per
    size, costs of every growth class with 5% noise (another seed: other
    noise, same routines)."""
    sys.path[:0] = [os.path.join(SRCDIR, "tests", "scripts"), os.path.join(SRCDIR, "scripts")]
    import synthetic  # noqa: E402  (benchmark tool, not the package)
    classes = list(synthetic.COSTS.values())
    return synthetic, [synthetic.Routine(
        name=f"ns{i % 97}::Wide{i % 1013}<long>::method_{i}(unsigned long, char const*)",
        cost=classes[i % len(classes)], sizes=synthetic.sizes(WIDE_SIZES, first=1 + i % 50, ratio=1.3),
        noise=0.05, object=f"/usr/lib/x86_64-linux-gnu/libwide{i % OBJECTS}.so")
        for i in range(WIDE_ROUTINES)]


def long_shapes(seed: int):
    """LONG_ROUTINES routines of LONG_SIZES consecutive sizes each."""
    sys.path[:0] = [os.path.join(SRCDIR, "tests", "scripts"), os.path.join(SRCDIR, "scripts")]
    import synthetic  # noqa: E402
    classes = ["n", "n log n", "n^2", "log n", "sqrt n"]
    return synthetic, [synthetic.Routine(
        name=f"long_{c.replace(' ', '_').replace('^', '')}", cost=synthetic.COSTS[c],
        sizes=range(1, LONG_SIZES + 1), noise=0.05) for c in classes[:LONG_ROUTINES]]


def generated(workdir: str, name: str, shapes, seed: int = 0) -> str:
    """The report `name` of the routines shapes(seed) returns, generated if missing."""
    path = os.path.join(workdir, name, "aprof-trms.out.1")
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # In a child process: the commands measured are started from this one,
    # and Linux counts the memory of the process a command is started from
    # in the command's peak RSS (wait4), which a 125 MB report generated
    # here would have inflated to 1.5 GB.
    child = multiprocessing.get_context("fork").Process(target=_generate,
                                                        args=(path, name, shapes, seed))
    child.start()
    child.join()
    if child.exitcode != 0:
        sys.exit(f"generating {path} failed")
    return path


def _generate(path: str, name: str, shapes, seed: int) -> None:
    started = time.monotonic()
    synthetic, routines = shapes(seed)
    text = synthetic.report_text(routines, threads=THREADS, seed=seed, command=("./bench", name))
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.rename(path + ".tmp", path)
    print(f"generated {path}: {len(routines)} routines, {len(text) / 1e6:.0f} MB, "
          f"{text.count(chr(10))} records, in {time.monotonic() - started:.0f} s", flush=True)


def report_path(workdir: str, count: int) -> str:
    """The report of `count` routines shaped like a large program."""
    return generated(workdir, f"routines-{count}", lambda seed: routine_shapes(count))


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


# The cases: name -> (report needed, time budget in s).
CASES = {"load": ("large", TIME_BUDGET_S), "rank": ("large", TIME_BUDGET_S),
         "plot": ("large", TIME_BUDGET_S), "charts": ("large", TIME_BUDGET_S),
         "rank-all": ("wide", LARGE_TIME_BUDGET_S), "annotate-all": ("wide", LARGE_TIME_BUDGET_S),
         "regress-same": ("wide", LARGE_TIME_BUDGET_S),
         "regress-two": ("wide2", LARGE_TIME_BUDGET_S), "html": ("wide", LARGE_TIME_BUDGET_S),
         "plot-long": ("long", LARGE_TIME_BUDGET_S)}


def reports_for(workdir: str, routines: int, kind: str) -> dict:
    """The generated reports a case of `kind` runs on, by role."""
    if kind == "large":
        return {"large": report_path(workdir, routines)}
    if kind == "long":
        return {"long": generated(workdir, f"long-{LONG_ROUTINES}x{LONG_SIZES}", long_shapes)}
    wide = {"wide": generated(workdir, f"wide-{WIDE_ROUTINES}x{WIDE_SIZES}", wide_shapes)}
    if kind == "wide2":
        wide["wide2"] = generated(workdir, f"wide-{WIDE_ROUTINES}x{WIDE_SIZES}-seed1", wide_shapes, 1)
    return wide


def command(name: str, scripts: str, reports: dict, out: str):
    """The argv of case `name` on its reports, writing into `out`."""
    py = sys.executable
    script = lambda s: os.path.join(scripts, s)  # noqa: E731
    wide, large = reports.get("wide"), reports.get("large")
    return {
        "load": lambda: [py, "-c", "import sys; from aprof_trms import profile; "
                         "profile.load_profile([sys.argv[1]])", large],
        "rank": lambda: [py, script("rank.py"), large],
        "plot": lambda: [py, script("plot.py"), large, "-o", os.path.join(out, "plots"), "--quiet"],
        "charts": lambda: [py, script("charts.py"), large, "-o", os.path.join(out, "charts"),
                           "--quiet"],
        "rank-all": lambda: [py, script("rank.py"), wide, "--min-share", "0"],
        "annotate-all": lambda: [py, script("annotate.py"), wide, "--min-share", "0"],
        "regress-same": lambda: [py, script("regress.py"), "--baseline", wide, "--candidate", wide,
                                 "--min-share", "0"],
        "regress-two": lambda: [py, script("regress.py"), "--baseline", wide, "--candidate",
                                reports.get("wide2"), "--min-share", "0"],
        "html": lambda: [py, script("html_report.py"), wide, "-o", os.path.join(out, "report.html")],
        "plot-long": lambda: [py, script("plot.py"), reports.get("long"), "-o",
                              os.path.join(out, "plots-long"), "--quiet"],
    }[name]()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--routines", type=int, default=100_000, metavar="N")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "aprof-scripts-bench"),
                   help="where the generated reports are kept (default: $TMPDIR/aprof-scripts-bench)")
    p.add_argument("--repeat", type=int, default=1, metavar="R")
    p.add_argument("--only", default=",".join(CASES), metavar="LIST",
                   help=f"the cases run, comma-separated (default all: {','.join(CASES)})")
    p.add_argument("--scripts", default=SCRIPTS, metavar="DIR",
                   help="the scripts directory measured (default: this tree's)")
    args = p.parse_args(argv)
    names = args.only.split(",")
    unknown = [n for n in names if n not in CASES]
    if unknown:
        p.error(f"unknown case {', '.join(unknown)} (cases: {', '.join(CASES)})")
    failed = False
    print(f"{'command':<13} {'wall (s)':>9} {'CPU (s)':>8} {'peak RSS (MB)':>14}  budget", flush=True)
    with tempfile.TemporaryDirectory(prefix="aprof-scripts-bench-") as out:
        for name in names:
            kind, time_budget = CASES[name]
            argv_of_case = command(name, args.scripts, reports_for(args.workdir, args.routines, kind), out)
            runs = [measure(argv_of_case, cwd=args.scripts) for _ in range(max(1, args.repeat))]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            peak = max(r[2] for r in runs)
            # Exit status 3 of regress.py is its verdict (a regression), not a failure.
            ok = (all(r[3] in ((0, 3) if name.startswith("regress") else (0,)) for r in runs)
                  and cpu <= time_budget and peak <= MEMORY_BUDGET_MB)
            failed |= not ok
            print(f"{name:<13} {wall:>9.1f} {cpu:>8.1f} {peak:>14.0f}  {time_budget:g} s, "
                  f"{MEMORY_BUDGET_MB:g} MB: {'ok' if ok else 'OVER BUDGET or FAILED'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
