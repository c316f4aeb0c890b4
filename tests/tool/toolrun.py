# SPDX-License-Identifier: GPL-2.0-or-later
"""Running programs under aprof-trms from the build tree, for the tool tests.

Environment (exported by `make check`, see tests/tool/Makefile.inc):
  APROF_VG_IN_PLACE    script running `valgrind --tool=aprof-trms "$@"` with
                       the build tree's tool (aprof-trms/vg-in-place)
  APROF_TEST_PROGRAMS  directory of the built test programs
                       (BUILDDIR/tests/tool/programs)
  VALGRIND             the valgrind launcher (for callgrind and --version)

Every run gets a fresh directory, which is its output directory
(--aprof-out-file=DIR/aprof.%p) and, unless Spec.cwd names another, its
working directory. After the run the
helpers check the exit status, that the directory holds nothing but the
expected number of reports (a temporary file left behind is an error), that
every report parses (scripts/aprof_trms/report.py) and passes
aprof_report.consistency_problems(), and that each report's pid is the one in
its file name. Failures show the command, its exit status and its stderr.
"""
import concurrent.futures
import dataclasses
import itertools
import os
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pytest

SRCDIR = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SRCDIR / "scripts"))
sys.path.insert(0, str(SRCDIR / "scripts" / "lib"))
from aprof_trms import report as ar  # noqa: E402
import debian_packages  # noqa: E402

RUN_TIMEOUT = 300  # seconds, per run under Valgrind
MAX_PARALLEL = max(1, min(4, os.cpu_count() or 1))
_run_numbers = itertools.count(1)
_REPORT_NAME = re.compile(r"aprof\.(\d+)\Z")

# No core files from the programs that die of a signal (inherited by children).
resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))


def _env_path(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"environment variable {name} is not set: run the tool tests "
                    f"through `make check` (tests/tool/run-pytest.sh)", pytrace=False)
    return value


def needs_program(name: str) -> str:
    """The path of an installed program the test starts; a missing one fails
    the test with the Debian package that provides it
    (scripts/lib/debian-packages.txt, which the install step installs)."""
    try:
        return debian_packages.needs_program(name)
    except debian_packages.ProgramMissing as e:
        pytest.fail(str(e), pytrace=False)


def vg_in_place() -> str:
    path = _env_path("APROF_VG_IN_PLACE")
    if not os.access(path, os.X_OK):
        pytest.fail(f"APROF_VG_IN_PLACE={path} is not an executable file", pytrace=False)
    return path


def valgrind() -> str:
    return os.environ.get("VALGRIND") or "valgrind"


def program(name: str) -> str:
    """Absolute path of a built test program (tests/tool/programs/NAME)."""
    path = os.path.join(_env_path("APROF_TEST_PROGRAMS"), name)
    if not os.access(path, os.X_OK):
        pytest.fail(f"test program {path} not built (make check builds it)", pytrace=False)
    return path


@dataclasses.dataclass
class Run:
    argv: List[str]
    returncode: int
    stdout: str
    stderr: str
    pid: int
    dir: Path
    reports: List[ar.Report]

    def describe(self) -> str:
        tail = self.stderr if len(self.stderr) < 6000 else "[...]\n" + self.stderr[-6000:]
        return (f"command: {' '.join(self.argv)}\n(in {self.dir})\nexit status: {self.returncode}\n"
                f"--- stderr ---\n{tail}--- end of stderr ---")

    @property
    def report(self) -> ar.Report:
        assert len(self.reports) == 1, self.describe()
        return self.reports[0]

    def counts(self) -> Dict[str, int]:
        """The "count NAME N" lines the test programs print."""
        return {m.group(1): int(m.group(2))
                for m in re.finditer(r"^count (.+) (\d+)$", self.stdout, re.M)}


@dataclasses.dataclass
class Spec:
    """One run: the client command and the tool options."""
    argv: Sequence[str]
    opts: Sequence[str] = ()
    expect_status: Optional[int] = 0   # None: any
    reports: int = 1                   # expected number of report files
    out_file: Optional[str] = "aprof.%p"  # None: no --aprof-out-file option
    env: Optional[Dict[str, str]] = None
    stdin: Optional[bytes] = None
    keep_stdout: bool = True
    launcher: Optional[str] = None     # default: vg_in_place() (aprof-trms)
    # Working directory of the run; default: its own output directory. The
    # client's environment holds its name (PWD, set by the launcher script),
    # and the environment is input to the program: runs whose profiles must
    # be equal need the same one.
    cwd: Optional[Path] = None


def _start(base: Path, spec: Spec):
    d = base / f"run{next(_run_numbers)}"
    d.mkdir(parents=True)
    argv = [spec.launcher or vg_in_place()]
    if spec.out_file is not None:
        argv.append(f"--aprof-out-file={d}/{spec.out_file}")
    argv += list(spec.opts) + list(spec.argv)
    env = dict(os.environ)
    env.pop("VALGRIND_OPTS", None)
    if spec.env:
        env.update(spec.env)
    proc = subprocess.Popen(argv, cwd=spec.cwd or d, env=env,
                            stdin=subprocess.PIPE if spec.stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE if spec.keep_stdout else subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    return d, argv, proc


def _finish(spec: Spec, d: Path, argv: List[str], proc) -> Run:
    try:
        out, err = proc.communicate(spec.stdin, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        run = Run(argv, proc.returncode, (out or b"").decode(errors="replace"),
                  (err or b"").decode(errors="replace"), proc.pid, d, [])
        pytest.fail(f"timed out after {RUN_TIMEOUT} s\n{run.describe()}", pytrace=False)
    run = Run(argv, proc.returncode, (out or b"").decode(errors="replace"),
              err.decode(errors="replace"), proc.pid, d, [])
    if spec.expect_status is not None and run.returncode != spec.expect_status:
        pytest.fail(f"expected exit status {spec.expect_status}\n{run.describe()}", pytrace=False)
    if spec.out_file == "aprof.%p":
        run.reports = load_reports(run, spec.reports)
    return run


def load_reports(run: Run, expected: int, pattern=_REPORT_NAME) -> List[ar.Report]:
    """Loads and checks the reports in the run's directory (see module doc)."""
    names = sorted(os.listdir(run.dir))
    reports = [n for n in names if pattern.match(n)]
    others = [n for n in names if not pattern.match(n) and not n.startswith("vgcore.")]
    if others:
        pytest.fail(f"unexpected files in the output directory (temporary report not "
                    f"renamed?): {others}\n{run.describe()}", pytrace=False)
    if len(reports) != expected:
        pytest.fail(f"expected {expected} report(s) in {run.dir}, found {reports}\n"
                    f"{run.describe()}", pytrace=False)
    loaded = []
    for name in reports:
        try:
            r = ar.load(run.dir / name)
        except ar.ReportError as e:
            pytest.fail(f"invalid report: {e}\n{run.describe()}", pytrace=False)
        problems = ar.consistency_problems(r)
        if problems:
            pytest.fail("inconsistent report:\n  " + "\n  ".join(problems[:30]) +
                        f"\n{run.describe()}", pytrace=False)
        m = pattern.match(name)
        if m and m.groups() and int(m.group(1)) != r.header.pid:
            pytest.fail(f"{name}: the report's pid record says {r.header.pid}\n{run.describe()}",
                        pytrace=False)
        loaded.append(r)
    return loaded


def run_tools(base: Path, specs: Sequence[Spec]) -> List[Run]:
    """Runs the specs (up to MAX_PARALLEL at a time); returns their Runs in order."""
    def one(spec):
        d, argv, proc = _start(base, spec)
        return spec, d, argv, proc

    runs: List[Optional[Run]] = [None] * len(specs)
    with concurrent.futures.ThreadPoolExecutor(MAX_PARALLEL) as pool:
        def job(i):
            spec, d, argv, proc = one(specs[i])
            try:
                return i, ("ok", _finish(spec, d, argv, proc))
            except BaseException as e:  # pytest.fail raises an OutcomeException
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                return i, ("error", e)
        results = list(pool.map(job, range(len(specs))))
    for i, (kind, value) in results:
        if kind == "error":
            raise value
        runs[i] = value
    return runs  # type: ignore[return-value]


def run_tool(base: Path, argv: Sequence[str], opts: Sequence[str] = (), **kw) -> Run:
    """Runs one program under the tool (see Spec for the keyword arguments)."""
    return run_tools(base, [Spec(list(argv), list(opts), **kw)])[0]


# ---------------------------------------------------------------------------
# Assertions on reports.
# ---------------------------------------------------------------------------

def routine(report: ar.Report, name: str, obj: str) -> ar.Routine:
    """The one routine called `name` in object `obj` (basename or path)."""
    try:
        return ar.routine_named(report, name, obj)
    except LookupError as e:
        similar = sorted({r.name for r in report.routines.values()
                          if os.path.basename(r.object) == os.path.basename(obj)})
        pytest.fail(f"{e}\nroutines of {obj} in the report: {similar[:80]}", pytrace=False)


def count(report: ar.Report, name: str, obj: str) -> int:
    """Activations of the routines called `name` in `obj` (0 if there is none)."""
    return sum(ar.activations(report, r) for r in ar.routines_named(report, name, obj))


def check_counts(run: Run, report: ar.Report, expected: Dict[str, int], obj: str) -> None:
    """The program printed `expected` (its own count) and the report agrees."""
    printed = run.counts()
    for name, n in expected.items():
        assert printed.get(name) == n, f"program printed {printed}, expected {name} {n}"
    got = {name: ar.activations(report, routine(report, name, obj)) for name in expected}
    assert got == expected, f"activations in the report of {report.path}"


def tuple_of(report: ar.Report, metric: str, rt: ar.Routine) -> ar.CostTuple:
    """The single tuple of a routine with one activation (or all of equal size)."""
    ts = ar.tuples(report, metric, rt)
    assert len(ts) == 1, f"{rt.name}: expected one {metric} tuple, found sizes {sorted(ts)}"
    return next(iter(ts.values()))


def not_nested(report: ar.Report, rt: ar.Routine) -> bool:
    """True if no activation of the routine ran inside another one of it: then
    the cumulative cost of outermost activations is the sum over all of them."""
    return ar.totals(report, rt).cumulative_cost == sum(
        t.sum_cost for t in ar.tuples(report, "trms", rt).values())
