#!/usr/bin/python3
"""Tool benchmark harness: slowdown and peak memory of aprof-trms vs other tools.

Runs real workloads natively and under several Valgrind tools in the same run,
repeated, and prints per workload and tool:

  - the median wall time of the repetitions,
  - slowdown vs the native run and vs ``--tool=none`` (nulgrind: Valgrind's
    translation alone, the floor for any tool), and vs memcheck,
  - peak memory (max RSS of the whole process, from ``/usr/bin/time -f %M``,
    in KB) and its ratio to the native peak,

plus geometric means of the ratios over the workloads: the shape of Table 1 of
the paper (section 6). Ratios are computed from the medians of the same run, so
the machine's noise affects every tool alike; tools are interleaved within each
repetition (native, none, memcheck, ..., then the next repetition).

Valgrind serialises the threads of the client: a multithreaded workload runs
on one core at a time under every Valgrind tool, while the native run uses all
its threads. Slowdowns vs native therefore include the loss of parallelism;
slowdowns vs ``none`` do not.

Workloads (``WORKLOADS``) are declarative entries: a name, a setup function
that generates deterministic input files into a work directory, a builder of
the command line, and the input size for ``--quick`` and ``--full``.
Implemented:

  - pigz   ``pigz -p 2 -c`` on generated text (quick 4 MiB, full 32 MiB)
  - xz     ``xz -T2 -c`` on the same kind of text (quick 2 MiB, full 16 MiB),
           cut in 1 MiB blocks so that both threads work even on the quick
           input
  - zstd   ``zstd -T2 -c`` likewise, with 1 MiB jobs (quick 16 MiB, full
           128 MiB)

Sizes are chosen so that the native runs of one mode take similar times.

Planned for the full harness of a later milestone (not here yet):

  - vips: the paper's case study, a multithreaded image pipeline
    (``vips gaussnoise`` to make the input, then ``sharpen``/``resize``/
    ``conv``), package libvips-tools
  - sqlite3 on a generated database (single-threaded, memory-heavy)
  - mariadb-server driven by ``mysqlslap`` with many concurrent clients
  - pbzip2 / lbzip2, and runs with a varying number of threads (Figure 14)

Tools (``--tools``, comma-separated): native, none, memcheck, callgrind,
helgrind, aprof-trms. Every Valgrind run gets ``-q``. aprof-trms runs from the
build tree through ``<build>/aprof-trms/vg-in-place`` when it exists, otherwise
through ``valgrind --tool=aprof-trms`` if the tool is installed. Workload
output goes to /dev/null; tool reports are written to a temporary directory
and deleted after each run.

Peak memory needs GNU time (Debian package ``time``). Without /usr/bin/time
the harness says so and reports timings only.

Example (from the repository root):

  /usr/bin/python3 tests/benchmarks/tool_benchmark.py --build build \\
      --quick --repeat 3 --tools native,none,memcheck,aprof-trms --markdown
"""

import argparse
import base64
import dataclasses
import fnmatch
import itertools
import json
import math
import os
import platform
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GNU_TIME = "/usr/bin/time"
MIB = 1 << 20


# --------------------------------------------------------------------------
# Input generation


def generate_text(path: str, size: int, seed: int = 20260101) -> None:
    """Writes `size` bytes of compressible but non-trivial text to `path`.

    Deterministic for a given (size, seed): about 85% of the lines are words
    drawn with Zipf-like frequencies from a seeded synthetic vocabulary, the
    rest are base64 of seeded random bytes (incompressible beyond base64's
    own redundancy). pigz -6 compresses it about 2x.
    """
    rng = random.Random(seed)
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    letter_weights = [26 - i for i in range(len(letters))]
    vocabulary = []
    for _ in range(4096):
        length = 1 + min(int(rng.expovariate(0.25)), 14)
        vocabulary.append("".join(rng.choices(letters, letter_weights, k=length)))
    cum_weights = list(
        itertools.accumulate(1.0 / (rank + 1) for rank in range(len(vocabulary))))
    written = 0
    with open(path, "wb") as out:
        while written < size:
            if rng.random() < 0.15:
                line = base64.b64encode(rng.randbytes(57)) + b"\n"  # 76 chars
            else:
                words = rng.choices(vocabulary, cum_weights=cum_weights, k=rng.randint(4, 16))
                line = (" ".join(words) + "\n").encode()
            line = line[: size - written]
            out.write(line)
            written += len(line)


# --------------------------------------------------------------------------
# Workloads


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    description: str
    # setup(work_dir, size_bytes) -> dict of named inputs (paths) for command.
    setup: Callable[[str, int], Dict[str, str]]
    # command(inputs) -> argv; the program's stdout goes to /dev/null.
    command: Callable[[Dict[str, str]], List[str]]
    quick_size: int
    full_size: int
    programs: List[str]  # executables that must be on PATH


def text_input(work_dir: str, size: int) -> Dict[str, str]:
    """Shared setup: one generated text file per size, reused across workloads."""
    path = os.path.join(work_dir, "text-%d.txt" % size)
    if not os.path.exists(path):
        generate_text(path + ".tmp", size)
        os.rename(path + ".tmp", path)
    return {"input": path}


WORKLOADS: List[Workload] = [
    Workload(
        name="pigz",
        description="pigz -p 2 -c: gzip with 2 compression threads",
        setup=text_input,
        command=lambda inp: ["pigz", "-p", "2", "-c", inp["input"]],
        quick_size=4 * MIB,
        full_size=32 * MIB,
        programs=["pigz"],
    ),
    Workload(
        name="xz",
        description="xz -T2 -c, 1 MiB blocks",
        setup=text_input,
        command=lambda inp: ["xz", "-T2", "--block-size=1MiB", "-c", inp["input"]],
        quick_size=2 * MIB,  # xz is ~10x slower than pigz per byte
        full_size=16 * MIB,
        programs=["xz"],
    ),
    Workload(
        name="zstd",
        description="zstd -T2 -c, 1 MiB jobs",
        setup=text_input,
        command=lambda inp: ["zstd", "-q", "-T2", "-B1MiB", "-c", inp["input"]],
        quick_size=16 * MIB,  # zstd is ~4x faster than pigz per byte
        full_size=128 * MIB,
        programs=["zstd"],
    ),
]


# --------------------------------------------------------------------------
# Tools


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    # prefix(report_dir) -> argv prefix placed before the workload's command.
    prefix: Callable[[str], List[str]]


TOOL_NAMES = ["native", "none", "memcheck", "callgrind", "helgrind", "aprof-trms"]


def aprof_launcher(build_dir: str, valgrind: str) -> List[str]:
    """argv that starts aprof-trms: the build tree's vg-in-place, else installed."""
    in_place = os.path.join(build_dir, "aprof-trms", "vg-in-place")
    if os.path.isfile(in_place) and os.access(in_place, os.X_OK):
        return [in_place]
    with tempfile.TemporaryDirectory(prefix="aprof-probe-") as probe:
        result = subprocess.run(
            [valgrind, "--tool=aprof-trms", "-q",
             "--aprof-out-file=" + os.path.join(probe, "probe.%p"), "/bin/true"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=probe)
    if result.returncode == 0:
        return [valgrind, "--tool=aprof-trms"]
    sys.exit("error: aprof-trms not found: no executable %s, and `%s --tool=aprof-trms` "
             "fails (%s).\nBuild it (scripts/run-tests.sh builds in <repo>/build) and pass "
             "--build DIR, or install it (make install)."
             % (in_place, valgrind, (result.stderr.strip().splitlines() or ["?"])[-1]))


def make_tools(names: List[str], build_dir: str, valgrind: str) -> List[Tool]:
    tools = []
    for name in names:
        if name == "native":
            tools.append(Tool(name, lambda d: []))
        elif name in ("none", "memcheck", "helgrind"):
            tools.append(Tool(name, lambda d, n=name: [valgrind, "--tool=" + n, "-q"]))
        elif name == "callgrind":
            tools.append(Tool(name, lambda d: [
                valgrind, "--tool=callgrind", "-q",
                "--callgrind-out-file=" + os.path.join(d, "callgrind.out.%p")]))
        elif name == "aprof-trms":
            launcher = aprof_launcher(build_dir, valgrind)
            print("aprof-trms launcher: %s" % " ".join(launcher), file=sys.stderr)
            tools.append(Tool(name, lambda d, l=launcher: l + [
                "-q", "--aprof-out-file=" + os.path.join(d, "aprof-trms.out.%p")]))
        else:
            sys.exit("error: unknown tool %r (known: %s)" % (name, ", ".join(TOOL_NAMES)))
    return tools


# --------------------------------------------------------------------------
# Running


@dataclasses.dataclass
class Run:
    seconds: float
    max_rss_kb: Optional[int]
    report_bytes: int


def tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


_warned = set()


def run_once(argv: List[str], report_dir: str, have_time: bool, quiet_key=None) -> Run:
    """Runs argv once, timed; stdout to /dev/null. Exits on failure.

    Output on stderr is shown once per `quiet_key` (e.g. workload and tool).
    """
    rss_file = os.path.join(report_dir, ".maxrss")
    full = ([GNU_TIME, "-f", "%M", "-o", rss_file] if have_time else []) + argv
    start = time.monotonic()
    result = subprocess.run(full, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=report_dir)
    seconds = time.monotonic() - start
    stderr = result.stderr.decode(errors="replace")
    max_rss = None
    if have_time:
        with open(rss_file) as f:
            # GNU time may prepend "Command exited with non-zero status N".
            values = [l.strip() for l in f if l.strip().isdigit()]
        os.unlink(rss_file)
        max_rss = int(values[-1]) if values else None
    if result.returncode != 0:
        print("\nerror: command exited with status %d:\n  %s\nstderr (tail):\n%s"
              % (result.returncode, shlex.join(argv), tail(stderr) or "(empty)"),
              file=sys.stderr)
        sys.exit(1)
    if stderr.strip() and (quiet_key is None or quiet_key not in _warned):
        # Tools such as helgrind report on stderr; this is not a failure.
        _warned.add(quiet_key)
        lines = stderr.rstrip().splitlines()
        print("warning: %d lines on stderr of `%s` (shown once); first lines:\n%s"
              % (len(lines), shlex.join(argv), "\n".join(lines[:8])), file=sys.stderr)
    report_bytes = 0
    for entry in os.scandir(report_dir):  # delete reports, keep the size
        if entry.is_file():
            report_bytes += entry.stat().st_size
            os.unlink(entry.path)
    return Run(seconds, max_rss, report_bytes)


# --------------------------------------------------------------------------
# Results


def geomean(values: List[float]) -> Optional[float]:
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    if a is None or b is None or b == 0:
        return None
    return a / b


def summarise(runs: Dict[str, Dict[str, List[Run]]]) -> Dict[str, Dict[str, dict]]:
    """Per workload and tool: medians and ratios to native/none/memcheck."""
    summary: Dict[str, Dict[str, dict]] = {}
    for wname, by_tool in runs.items():
        med = {t: statistics.median(r.seconds for r in rs) for t, rs in by_tool.items()}
        rss = {}
        for t, rs in by_tool.items():
            values = [r.max_rss_kb for r in rs if r.max_rss_kb is not None]
            rss[t] = statistics.median(values) if values else None
        summary[wname] = {}
        for t, rs in by_tool.items():
            summary[wname][t] = {
                "seconds": med[t],
                "min": min(r.seconds for r in rs),
                "max": max(r.seconds for r in rs),
                "vs_native": ratio(med[t], med.get("native")),
                "vs_none": ratio(med[t], med.get("none")),
                "vs_memcheck": ratio(med[t], med.get("memcheck")),
                "max_rss_kb": rss[t],
                "rss_vs_native": ratio(rss[t], rss.get("native")),
                "report_bytes": max(r.report_bytes for r in rs),
            }
    return summary


def fmt_ratio(x: Optional[float]) -> str:
    if x is None:
        return "—"
    return "%.2f" % x if x < 10 else "%.1f" % x


def fmt_rss(kb: Optional[float]) -> str:
    return "—" if kb is None else "%d" % round(kb)


def tables(summary, tool_names: List[str]):
    """Returns (headers, rows) of the per-workload table and of the geomeans."""
    has_memcheck = "memcheck" in tool_names
    head = ["Workload", "Tool", "Time (s)", "× native", "× none"]
    head += ["× memcheck"] if has_memcheck else []
    head += ["Max RSS (KB)", "RSS × native"]
    rows = []
    for wname, by_tool in summary.items():
        for t in tool_names:
            s = by_tool[t]
            row = [wname, t, "%.2f" % s["seconds"], fmt_ratio(s["vs_native"]),
                   fmt_ratio(s["vs_none"])]
            row += [fmt_ratio(s["vs_memcheck"])] if has_memcheck else []
            row += [fmt_rss(s["max_rss_kb"]), fmt_ratio(s["rss_vs_native"])]
            rows.append(row)
    ghead = ["Tool", "× native", "× none"] + (["× memcheck"] if has_memcheck else [])
    ghead += ["RSS × native"]
    grows = []
    for t in tool_names:
        col = lambda key: geomean([by_tool[t][key] for by_tool in summary.values()])
        grow = [t, fmt_ratio(col("vs_native")), fmt_ratio(col("vs_none"))]
        grow += [fmt_ratio(col("vs_memcheck"))] if has_memcheck else []
        grow += [fmt_ratio(col("rss_vs_native"))]
        grows.append(grow)
    return (head, rows), (ghead, grows)


def print_table(head, rows, markdown: bool, labels: int) -> None:
    """Prints a table whose first `labels` columns are text, the rest numbers."""
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" if i < labels else "---:" for i in range(len(head))) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda r: "  ".join(
        (str(x).ljust(w) if i < labels else str(x).rjust(w)) for i, (x, w) in enumerate(zip(r, widths)))
    print(line(head))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))


# --------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Workloads: %s. Tools: %s." % (
            ", ".join(w.name for w in WORKLOADS), ", ".join(TOOL_NAMES)))
    parser.add_argument("--build", default=os.path.join(REPO, "build"),
                        help="build directory holding aprof-trms/vg-in-place "
                             "[default: <repo>/build]")
    parser.add_argument("--valgrind", default=shutil.which("valgrind") or "/usr/bin/valgrind",
                        help="valgrind launcher for the stock tools [default: from PATH]")
    parser.add_argument("--tools", default=",".join(TOOL_NAMES),
                        help="comma-separated tools, in run order [default: all: %(default)s]")
    parser.add_argument("--workloads", default="*",
                        help="comma-separated workload names or globs [default: all]")
    parser.add_argument("--repeat", type=int, default=3, metavar="N",
                        help="repetitions of every (workload, tool) [default: 3]")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="full", action="store_false",
                      help="small inputs (the default)")
    mode.add_argument("--full", dest="full", action="store_true",
                      help="large inputs")
    parser.set_defaults(full=False)
    parser.add_argument("--markdown", action="store_true",
                        help="print the result tables in Markdown")
    parser.add_argument("--json", metavar="FILE",
                        help="also write every run and the summary to FILE as JSON")
    parser.add_argument("--work-dir", metavar="DIR",
                        help="where to generate inputs (kept); default: a temporary "
                             "directory, deleted at the end")
    parser.add_argument("--list", action="store_true", help="list workloads and exit")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.list:
        for w in WORKLOADS:
            print("%-8s %s (quick %d MiB, full %d MiB)"
                  % (w.name, w.description, w.quick_size // MIB, w.full_size // MIB))
        return 0

    patterns = [p for p in args.workloads.split(",") if p]
    workloads = [w for w in WORKLOADS if any(fnmatch.fnmatchcase(w.name, p) for p in patterns)]
    if not workloads:
        sys.exit("error: no workload matches %r (known: %s)"
                 % (args.workloads, ", ".join(w.name for w in WORKLOADS)))
    for w in workloads:
        for prog in w.programs:
            if shutil.which(prog) is None:
                sys.exit("error: workload %s needs `%s` on PATH (Debian package %s)"
                         % (w.name, prog, prog))

    tool_names = [t for t in args.tools.split(",") if t]
    if len(set(tool_names)) != len(tool_names):
        sys.exit("error: a tool is listed twice in --tools")
    if any(t != "native" for t in tool_names) and not os.access(args.valgrind, os.X_OK):
        sys.exit("error: valgrind not found (%s); install Debian package valgrind"
                 % args.valgrind)
    tools = make_tools(tool_names, os.path.abspath(args.build), args.valgrind)

    have_time = os.access(GNU_TIME, os.X_OK)
    if not have_time:
        print("warning: %s not found: peak memory will not be measured.\n"
              "         Install it with `apt-get install time` (Debian package `time`)."
              % GNU_TIME, file=sys.stderr)

    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="tool-benchmark-")
    work_dir = os.path.abspath(args.work_dir) if args.work_dir else os.path.join(tmp, "inputs")
    report_dir = os.path.join(tmp, "reports")
    os.makedirs(work_dir, exist_ok=True)
    os.makedirs(report_dir)
    runs: Dict[str, Dict[str, List[Run]]] = {}
    try:
        for w in workloads:
            size = w.full_size if args.full else w.quick_size
            print("[%s] generating input (%d MiB)..." % (w.name, size // MIB), file=sys.stderr)
            inputs = w.setup(work_dir, size)
            command = w.command(inputs)
            subprocess.run(command, stdout=subprocess.DEVNULL, check=True)  # warm-up, untimed
            runs[w.name] = {t.name: [] for t in tools}
            for rep in range(args.repeat):
                for tool in tools:
                    argv = tool.prefix(report_dir) + command
                    r = run_once(argv, report_dir, have_time, quiet_key=(w.name, tool.name))
                    runs[w.name][tool.name].append(r)
                    print("[%s] rep %d/%d %-10s %8.2f s  max RSS %s KB%s"
                          % (w.name, rep + 1, args.repeat, tool.name, r.seconds,
                             fmt_rss(r.max_rss_kb),
                             "  report %d KB" % (r.report_bytes // 1024)
                             if r.report_bytes else ""), file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.monotonic() - started

    summary = summarise(runs)
    (head, rows), (ghead, grows) = tables(summary, tool_names)
    mode = "full" if args.full else "quick"
    print("\nMedian of %d runs, %s inputs; %s, %d CPUs. Valgrind serialises threads."
          % (args.repeat, mode, platform.node(), os.cpu_count() or 0))
    print()
    print_table(head, rows, args.markdown, labels=2)
    print("\nGeometric mean over %d workload(s):\n" % len(summary))
    print_table(ghead, grows, args.markdown, labels=1)
    print("\nTotal harness time: %.0f s" % elapsed)

    if args.json:
        with open(args.json, "w") as f:
            json.dump({
                "mode": mode, "repeat": args.repeat, "tools": tool_names,
                "elapsed_seconds": elapsed,
                "runs": {w: {t: [dataclasses.asdict(r) for r in rs] for t, rs in bt.items()}
                         for w, bt in runs.items()},
                "summary": summary,
            }, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
