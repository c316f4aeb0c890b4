#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tool benchmark harness: slowdown and peak memory of aprof-trms vs other tools.

Runs real workloads natively and under several Valgrind tools in the same run,
repeated, and prints per workload and tool:

  - the median wall time of the repetitions,
  - slowdown vs the native run and vs ``--tool=none`` (nulgrind: Valgrind's
    translation alone, the floor for any tool), and vs memcheck,
  - the median CPU time (user + system, from GNU time; for mariadb the
    server's whole life, start-up included),
  - peak memory (max RSS of the whole process, from ``/usr/bin/time -f %M``,
    in KB) and its ratio to the native peak and to memcheck's,

plus geometric means of the ratios over the workloads: the shape of Table 1 of
the paper (section 6), then a "Targets" section (below). Ratios are computed
from the medians of the same run, so the machine's noise affects every tool
alike; tools are interleaved within each repetition (native, none, memcheck,
..., then the next repetition).

Valgrind serialises the threads of the client: a multithreaded workload runs
on one core at a time under every Valgrind tool, while the native run uses all
its threads. Slowdowns vs native therefore include the loss of parallelism;
slowdowns vs ``none`` do not.

Workloads (``WORKLOADS``) are declarative entries: a name, the programs they
need (scripts/lib/debian-packages.txt names their Debian packages), a setup function that
generates deterministic inputs into a work directory (untimed, once), a
builder of the command line for a given number of threads, optional extra
environment variables, the input size for ``--quick`` and ``--full`` and the
default number of threads of each mode. Sizes are chosen so that the native
runs of a mode take similar times (quick: about 0.3-1 s, full: several
seconds). Implemented:

  - pigz     ``pigz -p N -c`` on generated text (quick 4 MiB, full 32 MiB)
  - xz       ``xz -TN -c`` on the same kind of text (quick 2 MiB, full
             16 MiB), cut in 1 MiB blocks so that every thread works even on
             the quick input
  - zstd     ``zstd -TN -c`` likewise, with 1 MiB jobs (quick 16 MiB, full
             128 MiB)
  - vips     ``vips sharpen`` (the paper's case study: a pipeline through
             LabS and back, on vips' thread pool, sized by VIPS_CONCURRENCY=N)
             on a seeded ``vips gaussnoise`` sRGB image in vips' own .v format
             (quick 2500x2500, full 6000x6000 pixels)
  - sqlite3  a query mix (joins, aggregates, sorts, a window function, then
             updates and deletes on a TEMP copy of a table) on a generated
             database of orders and customers (quick 100000, full 800000
             orders). Single-threaded and memory-heavy: the page cache holds
             the whole database. The database is opened read-only and the
             writes go to TEMP tables, so that every run sees the same
             database without copying it.
  - mariadb  a private ``mariadbd`` (its own datadir, socket, no network, no
             grant tables, a 32 MiB InnoDB buffer pool) driven by
             ``mysqlslap`` with N concurrent clients (quick 8 clients, 2000
             queries; full 50 clients like the paper, 6000 queries) of
             mysqlslap's auto-generated mixed load (inserts and selects on
             InnoDB; the query text is the same in every run, the
             interleaving of the clients is not).

mariadb is a *server* workload: the server runs under the tool and the client
natively. Each run starts the server on a fresh copy of a datadir made once by
``mariadb-install-db`` (untimed), waits until it accepts connections (start-up
under Valgrind takes seconds to minutes), then times the ``mysqlslap`` phase
alone: the reported time is the server's work under load, without its
start-up and shutdown, which are the same fixed cost whatever the load. The
peak RSS is that of the server process (GNU time around it) over its whole
life, start-up included. The server is then stopped with ``mariadb-admin
shutdown``. A server that exits early, or does not become ready, finish or
exit within ``--server-timeout`` seconds per phase, is reported with the tail
of its log and killed with its whole process group: no run leaves a server
behind.

Tools (``--tools``, comma-separated): native, none, memcheck, callgrind,
helgrind, aprof-trms, aprof-rms. Every Valgrind run gets ``-q``. A variant of
aprof-trms followed by ``@DIR`` (``aprof-trms@/tmp/frozen-base``) runs the
tool of another build directory, to compare builds in one interleaved run. aprof-trms
runs from the build tree through ``<build>/aprof-trms/vg-in-place`` when it
exists, otherwise through ``valgrind --tool=aprof-trms`` if the tool is
installed. aprof-rms is the same tool with ``--trms=no`` (the RMS only, no
TRMS tracking): comparing it with aprof-trms gives the cost of the TRMS
tracking. It is not in the default tool list because it costs a run as long as
aprof-trms's for every workload; add it to ``--tools`` when that figure is
wanted. Workload output goes to /dev/null (or, for vips, to a file in the work
directory); tool reports are written to a temporary directory and deleted
after each run.

Thread scaling (``--threads 1,2,4,8``, the paper's Figure 14): runs every
selected workload with each thread count (pigz -p N, xz -TN, zstd -TN,
VIPS_CONCURRENCY=N, N mysqlslap clients; sqlite3, single-threaded, is
skipped) and prints, per workload and thread count and for every tool besides
native and none, its time and peak RSS relative to ``none`` and its RSS
relative to native, with the geometric mean over the workloads of each thread
count. ``none`` must be among the tools. The geometric-mean table and the
targets are not printed in this mode: they would mix thread counts.

Targets (after the geometric means, when aprof-trms ran; each needs the tools
it compares with, otherwise it is "not evaluated"): those of issue 16, for
aprof-trms: geometric mean time at most 1.0x memcheck's and at most 3.5x
none's, time at most 1.3x memcheck's on every workload, peak RSS at most
memcheck's on every workload and at most 0.9x memcheck's in geometric mean,
and, when aprof-rms ran too, aprof-rms's time at most 0.85x aprof-trms's
(geometric mean over the workloads). Each is printed MET or MISSED with the
measured figure (per-workload targets list the workloads over the limit), and
included in the ``--json`` output.

Long runs in pieces: ``--json FILE`` is rewritten after every workload, so
an interrupted run keeps the workloads it finished; ``--combine A.json
B.json ...`` prints the tables and targets of several such runs (same mode,
repetitions and tools; each workload in one of them) as one. Every workload's
tools stay interleaved within its own run, and every ratio compares runs of
one workload, so a full-mode run can be split by ``--workloads`` over
several sittings of a quiet machine.

Peak memory needs GNU time (Debian package ``time``). Without /usr/bin/time
the harness says so and reports timings only.

Not here yet: pbzip2 / lbzip2.

Examples (from the repository root):

  /usr/bin/python3 tests/benchmarks/tool_benchmark.py --build build \\
      --quick --repeat 3 --tools native,none,memcheck,aprof-trms --markdown
  /usr/bin/python3 tests/benchmarks/tool_benchmark.py --build build \\
      --workloads pigz,vips --tools native,none,aprof-trms --threads 1,2,4,8
  /usr/bin/python3 tests/benchmarks/tool_benchmark.py --full --workloads pigz \\
      --json pigz.json   # then xz.json ..., and: --combine pigz.json xz.json ...
"""

import argparse
import base64
import contextlib
import dataclasses
import fnmatch
import itertools
import json
import math
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, NoReturn, Optional

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts", "lib"))
from debian_packages import ProgramMissing, find_program, needs_program, search_path  # noqa: E402
# The server and input helpers, shared with scripts/case-studies/run.py.
from servers import (MARIADB, Inputs, Server, fail, kill_server, mariadb_datadir,  # noqa: E402
                     mariadb_reset, mariadb_server, run_client, run_setup, stop_server, tail,
                     vips_image, wait_until_ready)

GNU_TIME = "/usr/bin/time"  # the program `time`, not the shell's keyword
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


def no_env(threads: int) -> Dict[str, str]:
    return {}


def no_reset(inputs: Inputs) -> None:
    pass


def mib(size: int) -> str:
    return "%d MiB" % (size // MIB)


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    description: str
    # setup(work_dir, size) -> named inputs for command; deterministic, and
    # cheap when its outputs already exist in work_dir (a setup runs once per
    # thread count in --threads mode).
    setup: Callable[[str, int], Inputs]
    # command(inputs, threads) -> argv run under the tool; stdout to /dev/null.
    command: Callable[[Inputs, int], List[str]]
    quick_size: int
    full_size: int
    programs: List[str]  # executables that must be on PATH (each in debian-packages.txt)
    size_text: Callable[[int], str] = mib  # a size, for humans
    # env(threads) -> variables added to the environment of the command.
    env: Callable[[int], Dict[str, str]] = no_env
    quick_threads: int = 2
    full_threads: int = 2
    multithreaded: bool = True  # False: threads is ignored; skipped by --threads
    # reset(inputs): restores what a run modifies, before every run (untimed).
    reset: Callable[[Inputs], None] = no_reset
    server: Optional[Server] = None  # set: command is a server driven by this

    def size(self, full: bool) -> int:
        return self.full_size if full else self.quick_size

    def threads(self, full: bool) -> int:
        return self.full_threads if full else self.quick_threads


def text_input(work_dir: str, size: int) -> Inputs:
    """Shared setup: one generated text file per size, reused across workloads."""
    path = os.path.join(work_dir, "text-%d.txt" % size)
    if not os.path.exists(path):
        generate_text(path + ".tmp", size)
        os.rename(path + ".tmp", path)
    return {"input": path}


SQLITE_CREATE = """
PRAGMA journal_mode = OFF;
BEGIN;
CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, region INTEGER, score INTEGER);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INTEGER, amount INTEGER,
                    day INTEGER, note TEXT);
-- Multiplicative hashes of the row number instead of random(): the same
-- database on every machine.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {customers})
INSERT INTO customers
  SELECT i, printf('customer-%06d', (i * 7919) % 1000003), i % 37,
         (i * 2654435761) % 100003 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {orders})
INSERT INTO orders
  SELECT i, 1 + (i * 40503) % {customers}, (i * 2654435761) % 10007, (i * 31) % 3650,
         printf('note %x', (i * 2246822519) % 4294967291) FROM n;
CREATE INDEX orders_customer ON orders(customer);
CREATE INDEX orders_day ON orders(day);
COMMIT;
"""

SQLITE_QUERIES = """
PRAGMA cache_size = -1048576;  -- up to 1 GiB: the whole database stays cached
PRAGMA temp_store = MEMORY;
SELECT c.region, count(*), sum(o.amount), avg(o.amount)
  FROM orders o JOIN customers c ON c.id = o.customer
  GROUP BY c.region ORDER BY 3 DESC LIMIT 5;
SELECT customer, sum(amount) AS total FROM orders
  GROUP BY customer ORDER BY total DESC, customer LIMIT 10;
SELECT day, count(DISTINCT customer) FROM orders GROUP BY day ORDER BY 2 DESC, day LIMIT 5;
SELECT note, amount FROM orders ORDER BY note LIMIT 5 OFFSET 1000;
SELECT c.name, count(*) FROM customers c JOIN orders o ON o.customer = c.id
  WHERE o.day BETWEEN 100 AND 400 AND c.score > 50000
  GROUP BY c.id ORDER BY 2 DESC, c.id LIMIT 5;
CREATE TEMP TABLE t AS SELECT * FROM orders;
UPDATE t SET amount = amount * 2 + 1 WHERE day % 3 = 0;
DELETE FROM t WHERE amount % 5 = 0;
SELECT count(*), sum(amount) FROM t;
SELECT c.name, x.total
  FROM (SELECT customer, sum(amount) AS total,
               rank() OVER (ORDER BY sum(amount) DESC, customer) AS r
          FROM t GROUP BY customer) x
  JOIN customers c ON c.id = x.customer WHERE x.r <= 5;
"""


def sqlite_database(work_dir: str, orders: int) -> Inputs:
    """Setup: a database of `orders` orders and orders/10 customers, and the query mix."""
    path = os.path.join(work_dir, "orders-%d.sqlite" % orders)
    if not os.path.exists(path):
        with contextlib.suppress(FileNotFoundError):  # left by an interrupted setup
            os.unlink(path + ".tmp")
        run_setup(["sqlite3", path + ".tmp"],
                  stdin=SQLITE_CREATE.format(orders=orders, customers=max(orders // 10, 1)))
        os.rename(path + ".tmp", path)
    queries = os.path.join(work_dir, "sqlite-queries.sql")
    with open(queries, "w") as f:
        f.write(SQLITE_QUERIES)
    return {"database": path, "queries": queries}


WORKLOADS: List[Workload] = [
    Workload(
        name="pigz",
        description="pigz -p N -c: gzip with N compression threads",
        setup=text_input,
        command=lambda inp, n: ["pigz", "-p", str(n), "-c", inp["input"]],
        quick_size=4 * MIB,
        full_size=32 * MIB,
        programs=["pigz"],
    ),
    Workload(
        name="xz",
        description="xz -TN -c, 1 MiB blocks",
        setup=text_input,
        command=lambda inp, n: ["xz", "-T%d" % n, "--block-size=1MiB", "-c", inp["input"]],
        quick_size=2 * MIB,  # xz is ~10x slower than pigz per byte
        full_size=16 * MIB,
        programs=["xz"],
    ),
    Workload(
        name="zstd",
        description="zstd -TN -c, 1 MiB jobs",
        setup=text_input,
        command=lambda inp, n: ["zstd", "-q", "-T%d" % n, "-B1MiB", "-c", inp["input"]],
        quick_size=16 * MIB,  # zstd is ~4x faster than pigz per byte
        full_size=128 * MIB,
        programs=["zstd"],
    ),
    Workload(
        name="vips",
        description="vips sharpen on a noise image, VIPS_CONCURRENCY=N worker threads",
        setup=vips_image,
        command=lambda inp, n: ["vips", "sharpen", inp["input"], inp["output"]],
        env=lambda n: {"VIPS_CONCURRENCY": str(n)},
        quick_size=2500,  # pixels per side
        full_size=6000,
        size_text=lambda side: "%dx%d px" % (side, side),
        programs=["vips"],
    ),
    Workload(
        name="sqlite3",
        description="sqlite3 -readonly: joins, aggregates, sorts, writes to a TEMP table",
        setup=sqlite_database,
        command=lambda inp, n: ["sqlite3", "-bail", "-readonly", inp["database"],
                                ".read " + shlex.quote(inp["queries"])],
        quick_size=100000,  # orders
        full_size=800000,
        size_text=lambda orders: "%d orders" % orders,
        quick_threads=1,
        full_threads=1,
        multithreaded=False,
        programs=["sqlite3"],
    ),
    Workload(
        name="mariadb",
        description="mariadbd under the tool, N native mysqlslap clients (mixed load)",
        setup=mariadb_datadir,
        command=mariadb_server,
        # Queries over all the clients. The selects scan a table that the
        # inserts grow: the time grows faster than the number of queries.
        quick_size=2000,
        full_size=6000,
        size_text=lambda queries: "%d queries" % queries,
        quick_threads=8,
        full_threads=50,  # the paper's 50 concurrent clients
        reset=mariadb_reset,
        server=MARIADB,
        programs=["mariadbd", "mariadb-install-db", "mysqlslap", "mariadb-admin"],
    ),
]


@dataclasses.dataclass(frozen=True)
class Case:
    """A workload at one number of threads: the unit that is measured."""
    label: str  # the key of its results: the workload's name, plus @N with --threads
    workload: Workload
    threads: int


# --------------------------------------------------------------------------
# Tools


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    # prefix(report_dir) -> argv prefix placed before the workload's command.
    prefix: Callable[[str], List[str]]


TOOL_NAMES = ["native", "none", "memcheck", "callgrind", "helgrind", "aprof-trms", "aprof-rms",
              "aprof-sources", "aprof-contexts"]
# aprof-rms, aprof-sources (--input-sources=yes) and aprof-contexts
# (--collect-context=yes) are left out: runs as long as aprof-trms's, for
# figures only wanted when studying the cost of the TRMS tracking, of the
# input sources or of the calling contexts.
DEFAULT_TOOLS = [t for t in TOOL_NAMES if t not in ("aprof-rms", "aprof-sources", "aprof-contexts")]
# Options of the aprof-trms variants over the default run.
APROF_VARIANT_OPTIONS = {"aprof-trms": [], "aprof-rms": ["--trms=no"],
                         "aprof-sources": ["--input-sources=yes"],
                         "aprof-contexts": ["--collect-context=yes"]}
NATIVE = Tool("native", lambda d: [])


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
    launcher: List[str] = []  # found once, shared by aprof-trms and aprof-rms
    tools = []
    for name in names:
        variant, _, other_build = name.partition("@")
        if other_build:  # a variant of aprof-trms from another (frozen) build
            if variant not in APROF_VARIANT_OPTIONS:
                sys.exit("error: %r: only aprof-trms variants (%s) take @BUILD_DIR"
                         % (name, ", ".join(APROF_VARIANT_OPTIONS)))
            in_place = os.path.join(os.path.abspath(other_build), "aprof-trms", "vg-in-place")
            if not os.access(in_place, os.X_OK):
                sys.exit("error: %r: no executable %s" % (name, in_place))
            tools.append(Tool(name, lambda d, l=in_place, o=APROF_VARIANT_OPTIONS[variant]: [l] + o + [
                "-q", "--aprof-out-file=" + os.path.join(d, "aprof-trms.out.%p")]))
        elif name == "native":
            tools.append(NATIVE)
        elif name in ("none", "memcheck", "helgrind"):
            tools.append(Tool(name, lambda d, n=name: [valgrind, "--tool=" + n, "-q"]))
        elif name == "callgrind":
            tools.append(Tool(name, lambda d: [
                valgrind, "--tool=callgrind", "-q",
                "--callgrind-out-file=" + os.path.join(d, "callgrind.out.%p")]))
        elif name in APROF_VARIANT_OPTIONS:
            if not launcher:
                launcher = aprof_launcher(build_dir, valgrind)
                print("aprof-trms launcher: %s" % " ".join(launcher), file=sys.stderr)
            options = APROF_VARIANT_OPTIONS[name]
            tools.append(Tool(name, lambda d, l=launcher, o=options: l + o + [
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
    cpu_seconds: Optional[float] = None  # user + system, of the measured process


def with_time(argv: List[str], rss_file: str, have_time: bool) -> List[str]:
    return ([GNU_TIME, "-f", "%M %U %S", "-o", rss_file] if have_time else []) + argv


def read_max_rss(rss_file: str):
    """(max RSS in KB, user + system seconds) from GNU time's output file."""
    with open(rss_file) as f:
        # GNU time may prepend "Command exited with non-zero status N".
        values = [l.split() for l in f if re.fullmatch(r"\d+ [\d.]+ [\d.]+\s*", l)]
    os.unlink(rss_file)
    if not values:
        return None, None
    return int(values[-1][0]), float(values[-1][1]) + float(values[-1][2])


_warned = set()


def finish_run(seconds: float, argv: List[str], stderr: str, rss_file: str,
               have_time: bool, report_dir: str, quiet_key) -> Run:
    """The Run of a successful command: its peak RSS, its reports' size (reports
    deleted), and a warning if it wrote on stderr, once per `quiet_key`."""
    max_rss, cpu_seconds = read_max_rss(rss_file) if have_time else (None, None)
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
    return Run(seconds, max_rss, report_bytes, cpu_seconds)


def run_once(argv: List[str], env: Dict[str, str], report_dir: str, have_time: bool,
             quiet_key=None) -> Run:
    """Runs argv once, timed; stdout to /dev/null. Exits on failure."""
    rss_file = os.path.join(report_dir, ".maxrss")
    start = time.monotonic()
    result = subprocess.run(with_time(argv, rss_file, have_time), env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=report_dir)
    seconds = time.monotonic() - start
    stderr = result.stderr.decode(errors="replace")
    if result.returncode != 0:
        fail("command exited with status %d" % result.returncode, argv, stderr)
    return finish_run(seconds, argv, stderr, rss_file, have_time, report_dir, quiet_key)


def run_server(argv: List[str], env: Dict[str, str], case: Case, inputs: Inputs,
               report_dir: str, have_time: bool, timeout: float, quiet_key=None) -> Run:
    """Runs the server argv once: start, wait until ready, time the load, stop.

    Run.seconds is the wall time of the load alone; the peak RSS is the
    server's over its life. On any failure, timeout or interruption the server
    is killed with its process group (GNU time, Valgrind, the server).
    """
    server = case.workload.server
    rss_file = os.path.join(report_dir, ".maxrss")
    with tempfile.TemporaryFile() as stderr_file:
        # Its own session: a group to kill, and no Ctrl-C, which is ours to handle.
        proc = subprocess.Popen(with_time(argv, rss_file, have_time), env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=stderr_file, cwd=report_dir, start_new_session=True)

        def die(problem: str, client_stderr: Optional[str] = None) -> NoReturn:
            context = ""
            if client_stderr is not None:
                context += "\nclient stderr (tail):\n%s" % (tail(client_stderr) or "(empty)")
            log = server.log(inputs)
            if os.path.exists(log):
                with open(log, errors="replace") as f:
                    context += "\nserver log %s (tail):\n%s" % (log, tail(f.read()))
            stderr_file.seek(0)
            fail(problem + "; server command", argv, stderr_file.read().decode(errors="replace"),
                 context)

        try:
            wait_until_ready(proc, server.ready(inputs), timeout, die)
            start = time.monotonic()
            run_client(server.load(inputs, case.threads), timeout, die)
            seconds = time.monotonic() - start
            stop_server(proc, server.stop(inputs), timeout, die)
        finally:
            kill_server(proc)
        if proc.returncode != 0:
            die("the server exited with status %d" % proc.returncode)
        stderr_file.seek(0)
        stderr = stderr_file.read().decode(errors="replace")
    return finish_run(seconds, argv, stderr, rss_file, have_time, report_dir, quiet_key)


def run_case(tool: Tool, case: Case, inputs: Inputs, report_dir: str, have_time: bool,
             server_timeout: float) -> Run:
    """One measured run of the case under the tool, from a reset state."""
    w = case.workload
    w.reset(inputs)
    argv = tool.prefix(report_dir) + w.command(inputs, case.threads)
    env = dict(os.environ, **w.env(case.threads))
    key = (case.label, tool.name)
    if w.server:
        return run_server(argv, env, case, inputs, report_dir, have_time, server_timeout, key)
    return run_once(argv, env, report_dir, have_time, key)


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
    """Per case and tool: medians and ratios to native/none/memcheck."""
    summary: Dict[str, Dict[str, dict]] = {}
    for label, by_tool in runs.items():
        med = {t: statistics.median(r.seconds for r in rs) for t, rs in by_tool.items()}
        rss, cpu = {}, {}
        for t, rs in by_tool.items():
            values = [r.max_rss_kb for r in rs if r.max_rss_kb is not None]
            rss[t] = statistics.median(values) if values else None
            values = [r.cpu_seconds for r in rs if r.cpu_seconds is not None]
            cpu[t] = statistics.median(values) if values else None
        summary[label] = {}
        for t, rs in by_tool.items():
            summary[label][t] = {
                "seconds": med[t],
                "cpu_seconds": cpu[t],
                "min": min(r.seconds for r in rs),
                "max": max(r.seconds for r in rs),
                "vs_native": ratio(med[t], med.get("native")),
                "vs_none": ratio(med[t], med.get("none")),
                "vs_memcheck": ratio(med[t], med.get("memcheck")),
                "max_rss_kb": rss[t],
                "rss_vs_native": ratio(rss[t], rss.get("native")),
                "rss_vs_none": ratio(rss[t], rss.get("none")),
                "rss_vs_memcheck": ratio(rss[t], rss.get("memcheck")),
                "report_bytes": max(r.report_bytes for r in rs),
            }
    return summary


def column_geomean(summary, tool: str, key: str, labels=None) -> Optional[float]:
    """Geometric mean of one ratio of `tool` over the cases (all, or `labels`)."""
    return geomean([summary[l][tool][key] for l in (labels or summary)
                    if tool in summary[l]])


def fmt_ratio(x: Optional[float]) -> str:
    if x is None:
        return "—"
    return "%.2f" % x if x < 10 else "%.1f" % x


def fmt_rss(kb: Optional[float]) -> str:
    return "—" if kb is None else "%d" % round(kb)


def fmt_cpu(seconds: Optional[float]) -> str:
    return "—" if seconds is None else "%.2f" % seconds


def tables(summary, cases: Dict[str, Case], tool_names: List[str]):
    """Returns (headers, rows) of the per-case table and of the geomeans."""
    has_memcheck = "memcheck" in tool_names
    head = ["Workload", "Threads", "Tool", "Time (s)", "CPU (s)", "× native", "× none"]
    head += ["× memcheck"] if has_memcheck else []
    head += ["Max RSS (KB)", "RSS × native"] + (["RSS × memcheck"] if has_memcheck else [])
    rows = []
    for label, by_tool in summary.items():
        for t in tool_names:
            s = by_tool[t]
            row = [cases[label].workload.name, str(cases[label].threads), t,
                   "%.2f" % s["seconds"], fmt_cpu(s["cpu_seconds"]), fmt_ratio(s["vs_native"]),
                   fmt_ratio(s["vs_none"])]
            row += [fmt_ratio(s["vs_memcheck"])] if has_memcheck else []
            row += [fmt_rss(s["max_rss_kb"]), fmt_ratio(s["rss_vs_native"])]
            row += [fmt_ratio(s["rss_vs_memcheck"])] if has_memcheck else []
            rows.append(row)
    ghead = ["Tool", "× native", "× none"] + (["× memcheck"] if has_memcheck else [])
    ghead += ["RSS × native"] + (["RSS × memcheck"] if has_memcheck else [])
    grows = []
    for t in tool_names:
        col = lambda key: fmt_ratio(column_geomean(summary, t, key))
        grow = [t, col("vs_native"), col("vs_none")]
        grow += [col("vs_memcheck")] if has_memcheck else []
        grow += [col("rss_vs_native")]
        grow += [col("rss_vs_memcheck")] if has_memcheck else []
        grows.append(grow)
    return (head, rows), (ghead, grows)


def scaling_table(summary, cases: Dict[str, Case], tool_names: List[str],
                  thread_counts: List[int]):
    """(headers, rows) of --threads: per workload and thread count, each tool
    besides native and none relative to none (and its RSS to native), then
    the geometric mean over the workloads of every thread count."""
    measured = [t for t in tool_names if t not in ("native", "none")]
    keys = ["vs_none", "rss_vs_none"] + (["rss_vs_native"] if "native" in tool_names else [])
    titles = {"vs_none": "× none", "rss_vs_none": "RSS × none", "rss_vs_native": "RSS × native"}
    head = ["Workload", "Threads"] + ["%s %s" % (t, titles[k]) for t in measured for k in keys]
    rows = [[case.workload.name, str(case.threads)]
            + [fmt_ratio(summary[label][t][k]) for t in measured for k in keys]
            for label, case in cases.items()]
    if len({case.workload.name for case in cases.values()}) > 1:
        for n in thread_counts:
            labels = [label for label, case in cases.items() if case.threads == n]
            rows.append(["geomean", str(n)] + [fmt_ratio(column_geomean(summary, t, k, labels))
                                               for t in measured for k in keys])
    return head, rows


TARGET_TOOL = "aprof-trms"


def target(text: str, measured: Optional[float], limit: Optional[float],
           needs: List[str], available: set, strict: bool = False,
           of: Optional[str] = None, missed: Optional[List[str]] = None) -> dict:
    """One target's verdict: measured ≤ limit (< if strict), or not evaluated
    when `needs` (tools, "GNU time") are not all `available`.

    `of` says what `measured` is when not a geometric mean; `missed` lists the
    workloads over the limit of a per-workload target.
    """
    absent = [n for n in needs if n not in available]
    if absent:
        status = "not evaluated (needs %s)" % " and ".join(absent)
    elif measured is None or limit is None:
        status = "not evaluated (no data)"
    elif (measured < limit) if strict else (measured <= limit):
        status = "MET"
    else:
        status = "MISSED"
    result = {"target": text, "status": status, "measured": measured, "limit": limit}
    if measured is not None and of:
        result["of"] = of
    if measured is not None and missed is not None:
        result["missed"] = missed
    return result


def over_limit(values: Dict[str, Optional[float]], limit: float) -> List[str]:
    """The cases whose ratio is over `limit`, as "label ratio×"."""
    return ["%s %s×" % (label, fmt_ratio(v)) for label, v in values.items()
            if v is not None and v > limit]


def worst_case_target(text: str, summary, key: str, limit: float, needs: List[str],
                      available: set) -> dict:
    """A per-workload target: the worst case's ratio `key` of aprof-trms."""
    values = {label: by_tool[TARGET_TOOL][key] for label, by_tool in summary.items()}
    known = [v for v in values.values() if v is not None]
    return target(text, max(known, default=None), limit, needs, available,
                  of="worst workload", missed=over_limit(values, limit))


def rms_over_trms(summary) -> Optional[float]:
    """Geometric mean over the cases of aprof-rms's time / aprof-trms's."""
    return geomean([ratio(by_tool["aprof-rms"]["seconds"], by_tool[TARGET_TOOL]["seconds"])
                    for by_tool in summary.values() if "aprof-rms" in by_tool])


def evaluate_targets(summary, tool_names: List[str], have_time: bool) -> List[dict]:
    """Issue 16's performance targets for aprof-trms, from this run's ratios."""
    if TARGET_TOOL not in tool_names:
        return []
    available = set(tool_names) | ({"GNU time"} if have_time else set())
    gm = lambda key: column_geomean(summary, TARGET_TOOL, key)
    return [
        target("geomean time ≤ 1.0× memcheck", gm("vs_memcheck"), 1.0, ["memcheck"], available),
        target("geomean time ≤ 3.5× none", gm("vs_none"), 3.5, ["none"], available),
        worst_case_target("time ≤ 1.3× memcheck on every workload", summary, "vs_memcheck",
                          1.3, ["memcheck"], available),
        worst_case_target("peak RSS ≤ memcheck's on every workload", summary,
                          "rss_vs_memcheck", 1.0, ["memcheck", "GNU time"], available),
        target("geomean peak RSS ≤ 0.9× memcheck's", gm("rss_vs_memcheck"), 0.9,
               ["memcheck", "GNU time"], available),
        target("geomean time of aprof-rms ≤ 0.85× aprof-trms's", rms_over_trms(summary), 0.85,
               ["aprof-rms"], available),
    ]


def targets_table(results: List[dict]):
    head = ["Target (aprof-trms)", "Result", "Measured", "Limit"]
    rows = [[r["target"], r["status"],
             fmt_ratio(r["measured"]) + (" (%s)" % r["of"] if "of" in r else ""),
             fmt_ratio(r["limit"])] for r in results]
    return head, rows


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


def thread_list(text: str) -> List[int]:
    try:
        counts = [int(x) for x in text.split(",") if x]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1 or len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(
            "expected distinct positive integers separated by commas, e.g. 1,2,4,8")
    return counts


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Workloads: %s. Tools: %s." % (
            ", ".join(w.name for w in WORKLOADS), ", ".join(TOOL_NAMES)))
    parser.add_argument("--build", default=os.path.join(REPO, "build"),
                        help="build directory holding aprof-trms/vg-in-place "
                             "[default: <repo>/build]")
    parser.add_argument("--valgrind", default=find_program("valgrind") or "/usr/bin/valgrind",
                        help="valgrind launcher for the stock tools [default: from PATH]")
    parser.add_argument("--tools", default=",".join(DEFAULT_TOOLS),
                        help="comma-separated tools, in run order [default: %(default)s]")
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
    parser.add_argument("--threads", type=thread_list, metavar="N,N,...",
                        help="thread scaling: run every multithreaded workload with each "
                             "of these thread counts (e.g. 1,2,4,8)")
    parser.add_argument("--server-timeout", type=float, default=1800, metavar="SECONDS",
                        help="limit of each phase of a server workload (start-up, load, "
                             "shutdown) [default: %(default)g]")
    parser.add_argument("--markdown", action="store_true",
                        help="print the result tables in Markdown")
    parser.add_argument("--json", metavar="FILE",
                        help="also write every run, the summary and the targets to FILE "
                             "as JSON")
    parser.add_argument("--work-dir", metavar="DIR",
                        help="where to generate inputs (kept); default: a temporary "
                             "directory, deleted at the end")
    parser.add_argument("--combine", nargs="+", metavar="JSON",
                        help="run nothing: print the tables and targets of earlier --json "
                             "runs (same mode, repetitions and tools) as one")
    parser.add_argument("--list", action="store_true", help="list workloads and exit")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def list_workloads() -> None:
    for w in WORKLOADS:
        threads = ("%d/%d threads" % (w.quick_threads, w.full_threads) if w.multithreaded
                   else "single-threaded")
        print("%-8s %s (quick %s, full %s; %s)"
              % (w.name, w.description, w.size_text(w.quick_size), w.size_text(w.full_size),
                 threads))


def select_workloads(spec: str) -> List[Workload]:
    patterns = [p for p in spec.split(",") if p]
    workloads = [w for w in WORKLOADS if any(fnmatch.fnmatchcase(w.name, p) for p in patterns)]
    if not workloads:
        sys.exit("error: no workload matches %r (known: %s)"
                 % (spec, ", ".join(w.name for w in WORKLOADS)))
    for w in workloads:
        for prog in w.programs:
            try:
                needs_program(prog)
            except ProgramMissing as e:
                sys.exit("error: workload %s: %s" % (w.name, e))
    return workloads


def make_cases(workloads: List[Workload], thread_counts: Optional[List[int]],
               full: bool) -> Dict[str, Case]:
    """The cases to measure, by label: each workload at its mode's thread count,
    or with --threads at each count (single-threaded workloads skipped)."""
    if not thread_counts:
        return {w.name: Case(w.name, w, w.threads(full)) for w in workloads}
    cases = {}
    for w in workloads:
        if not w.multithreaded:
            print("note: %s is single-threaded: skipped by --threads" % w.name, file=sys.stderr)
            continue
        for n in thread_counts:
            label = "%s@%d" % (w.name, n)
            cases[label] = Case(label, w, n)
    if not cases:
        sys.exit("error: --threads: no multithreaded workload selected")
    return cases


def measure(cases: Dict[str, Case], tools: List[Tool], args, work_dir: str,
            report_dir: str, have_time: bool,
            case_done: Callable[[Dict[str, Dict[str, List[Run]]]], None]
            ) -> Dict[str, Dict[str, List[Run]]]:
    """Every case under every tool, args.repeat times, tools interleaved;
    case_done(runs so far) after each case."""
    runs: Dict[str, Dict[str, List[Run]]] = {}
    for label, case in cases.items():
        w = case.workload
        size = w.size(args.full)
        print("[%s] generating input (%s)..." % (label, w.size_text(size)), file=sys.stderr)
        inputs = w.setup(work_dir, size)
        run_case(NATIVE, case, inputs, report_dir, have_time, args.server_timeout)  # warm-up
        runs[label] = {t.name: [] for t in tools}
        for rep in range(args.repeat):
            for tool in tools:
                r = run_case(tool, case, inputs, report_dir, have_time, args.server_timeout)
                runs[label][tool.name].append(r)
                print("[%s] rep %d/%d %-10s %8.2f s  CPU %s s  max RSS %s KB%s"
                      % (label, rep + 1, args.repeat, tool.name, r.seconds,
                         fmt_cpu(r.cpu_seconds), fmt_rss(r.max_rss_kb),
                         "  report %d KB" % (r.report_bytes // 1024)
                         if r.report_bytes else ""), file=sys.stderr)
        case_done(runs)
    return runs


def print_results(summary, cases: Dict[str, Case], tool_names: List[str], args,
                  targets: List[dict]) -> None:
    (head, rows), (ghead, grows) = tables(summary, cases, tool_names)
    print("\nMedian of %d runs, %s inputs; %s, %d CPUs. Valgrind serialises threads."
          % (args.repeat, "full" if args.full else "quick", platform.node(),
             os.cpu_count() or 0))
    print()
    print_table(head, rows, args.markdown, labels=3)
    if args.threads:
        print("\nThread scaling (Figure 14). Valgrind serialises threads: every tool "
              "runs them on one core.\n")
        if set(tool_names) <= {"native", "none"}:
            print("no tool besides native and none was run: nothing to compare with none")
        else:
            print_table(*scaling_table(summary, cases, tool_names, args.threads),
                        args.markdown, labels=2)
        return
    print("\nGeometric mean over %d workload(s):\n" % len(summary))
    print_table(ghead, grows, args.markdown, labels=1)
    print("\nTargets:\n")
    if not targets:
        print("not evaluated: aprof-trms was not run")
        return
    print_table(*targets_table(targets), args.markdown, labels=2)
    for t in targets:
        if t.get("missed"):
            print("\nMissing \"%s\": %s" % (t["target"], ", ".join(t["missed"])))


def json_record(args, tool_names: List[str], cases: Dict[str, Case], runs, elapsed: float,
                summary=None, targets=None) -> dict:
    """What --json saves: every run so far; with the summary and targets once
    every case ran ("complete")."""
    return {
        "mode": "full" if args.full else "quick", "repeat": args.repeat,
        "tools": tool_names, "threads": args.threads, "elapsed_seconds": elapsed,
        "complete": summary is not None,
        "cases": {label: {"workload": c.workload.name, "threads": c.threads,
                          "size": c.workload.size(args.full)}
                  for label, c in cases.items() if label in runs},
        "runs": {l: {t: [dataclasses.asdict(r) for r in rs] for t, rs in bt.items()}
                 for l, bt in runs.items()},
        "summary": summary,
        "targets": targets,
    }


def check_writable(path: str) -> None:
    """Stops when `path` cannot be written, before any program is looked up
    or run: an unwritable --json fails at once, not after hours, whatever
    is installed."""
    probe = path + ".part"
    try:
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        sys.exit("error: --json: cannot write %s: %s" % (path, e.strerror))


def write_json(path: str, record: dict) -> None:
    """Replaces `path` whole: an interrupted write leaves the previous one."""
    partial = path + ".part"
    with open(partial, "w") as f:
        json.dump(record, f, indent=1)
    os.replace(partial, path)


class CombineError(Exception):
    pass


def load_saved_run(path: str):
    """(record, cases, runs) of one --json file, checked."""
    try:
        with open(path) as f:
            record = json.load(f)
        workloads = {w.name: w for w in WORKLOADS}
        cases = {label: Case(label, workloads[c["workload"]], int(c["threads"]))
                 for label, c in record["cases"].items()}
        runs = {label: {tool: [Run(**r) for r in rs] for tool, rs in by_tool.items()}
                for label, by_tool in record["runs"].items()}
        mode, repeat, tools = record["mode"], record["repeat"], record["tools"]
    except OSError as e:
        raise CombineError("cannot read %s: %s" % (path, e.strerror))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise CombineError("%s is not a --json file of this harness (%s: %s)"
                           % (path, type(e).__name__, e))
    if record.get("threads"):
        raise CombineError("%s is a --threads run: thread scaling runs are not combined" % path)
    for label, by_tool in runs.items():
        if label not in cases or sorted(by_tool) != sorted(tools) or \
                any(len(rs) != repeat for rs in by_tool.values()):
            raise CombineError("%s: case %s does not have %d runs of each of its tools"
                               % (path, label, repeat))
    return {"mode": mode, "repeat": repeat, "tools": tools}, cases, runs, bool(record["complete"])


def combine_saved_runs(paths: List[str]):
    """(settings, cases, runs, interrupted paths) of several --json runs
    taken as one."""
    settings, cases, runs, interrupted = None, {}, {}, []
    for path in paths:
        these, more_cases, more_runs, complete = load_saved_run(path)
        if not complete:
            interrupted.append(path)
        if settings is None:
            settings = these
        elif these != settings:
            raise CombineError("%s was run with %s, unlike %s (%s)"
                               % (path, these, paths[0], settings))
        for label in more_runs:
            if label in runs:
                raise CombineError("%s: workload %s is in two of the files" % (path, label))
            cases[label], runs[label] = more_cases[label], more_runs[label]
    if not runs:
        raise CombineError("no finished workload in %s" % ", ".join(paths))
    order = [w.name for w in WORKLOADS]  # the tables list workloads as a single run does
    labels = sorted(runs, key=lambda label: (order.index(cases[label].workload.name), label))
    return settings, cases, {label: runs[label] for label in labels}, interrupted


def print_combined(args) -> int:
    try:
        settings, cases, runs, interrupted = combine_saved_runs(args.combine)
    except CombineError as e:
        sys.exit("error: --combine: %s" % e)
    args.full, args.repeat = settings["mode"] == "full", settings["repeat"]
    tool_names = settings["tools"]
    have_time = any(r.max_rss_kb is not None for bt in runs.values()
                    for rs in bt.values() for r in rs)
    summary = summarise(runs)
    print("Combined from %d run(s): %s" % (len(args.combine), ", ".join(args.combine)))
    if interrupted:
        print("Interrupted (their finished workloads only): %s" % ", ".join(interrupted))
    print_results(summary, cases, tool_names, args,
                  evaluate_targets(summary, tool_names, have_time))
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.list:
        list_workloads()
        return 0
    if args.combine:
        return print_combined(args)
    if args.json:
        check_writable(args.json)
    # mariadbd lives in /usr/sbin, which the PATH of a non-root user lacks.
    os.environ["PATH"] = search_path()
    cases = make_cases(select_workloads(args.workloads), args.threads, args.full)

    tool_names = [t for t in args.tools.split(",") if t]
    if len(set(tool_names)) != len(tool_names):
        sys.exit("error: a tool is listed twice in --tools")
    if args.threads and "none" not in tool_names:
        sys.exit("error: --threads reports ratios to `none`: add it to --tools")
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

    def save_finished_cases(runs) -> None:
        if args.json:
            write_json(args.json, json_record(args, tool_names, cases, runs,
                                              time.monotonic() - started))
    save_finished_cases({})
    try:
        runs = measure(cases, tools, args, work_dir, report_dir, have_time, save_finished_cases)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.monotonic() - started

    summary = summarise(runs)
    targets = [] if args.threads else evaluate_targets(summary, tool_names, have_time)
    print_results(summary, cases, tool_names, args, targets)
    print("\nTotal harness time: %.0f s" % elapsed)
    if args.json:
        write_json(args.json, json_record(args, tool_names, cases, runs, elapsed,
                                          summary, targets))
    return 0

if __name__ == "__main__":
    sys.exit(main())
