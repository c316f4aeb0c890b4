#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Mutation testing of aprof-trms: do the tests notice a silent bug?

Applies each mutation of tests/mutation/mutations.txt, one at a time, to a
scratch copy of the source tree that has its own configured build, rebuilds
only what the mutated file goes into (the tool; for the engine also the unit
tests), and runs tests until one fails: first the mutation's own list (the
tests most likely to catch it), then, if none failed, every unit test and
every tool test. A mutation of the Python analysis (a .py file) needs no
rebuild: its tests run on the scratch copy's scripts with the tool of
BUILD (never mutated), and its fallback is every script test, plus every
tool test when its own list names one. A mutation no test catches
"survived". A mutation whose
original snippet no longer occurs exactly once in its file is "stale" (the
code changed: refresh the mutation), and one that does not compile is an
error: both are reported, never skipped.

usage (from a configured build directory, as `make mutation-check` does):
  run_mutations.py --srcdir=SRC --builddir=BUILD [--work-dir=DIR] [--python] [NAME...]

Exit status: 0 if every mutation was caught, 1 if some survived, 2 on stale
or broken mutations (or a bad command line, or a baseline that fails).
The scratch copy lives in BUILD/mutation-work unless --work-dir says
otherwise and is reused by the next run (only changed files are copied).
"""
import argparse
import dataclasses
import filecmp
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "scripts" / "lib"))
from debian_packages import find_program  # noqa: E402

DEFAULT_LIST = HERE / "mutations.txt"
TOOL_TARGET = "aprof-trms/aprof-trms-amd64-linux"
UNIT_TARGET = "tests/unit/engine_tests"
ALL_TARGETS = (TOOL_TARGET, UNIT_TARGET)
# A mutation under test that hangs the tool counts as caught after this.
TEST_TIMEOUT = 600  # seconds per test command


class ListError(Exception):
    pass


@dataclasses.dataclass
class Mutation:
    name: str
    file: str
    original: str
    replacement: str
    tests: List[str]
    line: int  # in the list file

    @property
    def is_engine(self) -> bool:
        return self.file.startswith("aprof-trms/core/")

    @property
    def is_python(self) -> bool:
        """The analysis scripts: nothing to build, script tests catch it."""
        return self.file.endswith(".py")

    def fallback(self) -> List[str]:
        """The suites run when none of its own tests failed."""
        if self.is_python:
            return ["scripts"] + (["tool"] if any(t.startswith("tool") for t in self.tests) else [])
        # The unit tests cover the engine only; the tool tests cover everything.
        return ["unit", "tool"] if self.is_engine else ["tool"]


def unescape(text: str) -> str:
    """Snippets are one line; \\n stands for a line break, \\\\ for a backslash."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "\\": "\\"}.get(m.group(1), m.group(0)), text)


def parse_list(path: Path) -> Tuple[List[Mutation], Dict[str, str]]:
    """The mutations of the list file, and the removed ones with their reason.

    A mutation is a block of `key: value` lines (name, file, tests, original,
    replacement) separated by blank lines; `removed: NAME: reason` lines
    record mutations that cannot change any result; # starts a comment line."""
    mutations: List[Mutation] = []
    removed: Dict[str, str] = {}
    block: Dict[str, str] = {}
    start = 0

    def finish():
        nonlocal block
        if not block:
            return
        missing = {"name", "file", "tests", "original", "replacement"} - block.keys()
        if missing:
            raise ListError(f"{path}:{start}: mutation block without {', '.join(sorted(missing))}")
        m = Mutation(block["name"], block["file"], unescape(block["original"]),
                     unescape(block["replacement"]), block["tests"].split(), start)
        if m.original == m.replacement:
            raise ListError(f"{path}:{start}: {m.name}: replacement equals the original")
        if any(x.name == m.name for x in mutations) or m.name in removed:
            raise ListError(f"{path}:{start}: duplicate mutation name {m.name}")
        mutations.append(m)
        block = {}

    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line.strip():
            finish()
            continue
        key, sep, value = line.partition(": ")
        if not sep:
            raise ListError(f"{path}:{number}: expected 'key: value', got {line!r}")
        if key == "removed":
            name, sep, reason = value.partition(": ")
            if not sep or not reason.strip():
                raise ListError(f"{path}:{number}: expected 'removed: NAME: reason'")
            removed[name] = reason
            continue
        if key not in ("name", "file", "tests", "original", "replacement"):
            raise ListError(f"{path}:{number}: unknown key {key!r}")
        if key in block:
            raise ListError(f"{path}:{number}: {key} given twice in one mutation")
        if not block:
            start = number
        block[key] = value
    finish()
    return mutations, removed


def make_variables(builddir: Path, names: Sequence[str]) -> Dict[str, str]:
    """Values of simple `NAME = value` assignments in BUILD/Makefile."""
    text = (builddir / "Makefile").read_text()
    values = {}
    for name in names:
        m = re.search(rf"^{name} = (.*)$", text, re.M)
        if not m:
            raise SystemExit(f"run_mutations: no {name} in {builddir}/Makefile: is it configured?")
        values[name] = m.group(1).strip()
    return values


class Workspace:
    """A scratch source tree and its configured build."""

    def __init__(self, srcdir: Path, builddir: Path, work: Path, jobs: int):
        self.origin = srcdir
        self.src = work / "src"
        self.build = work / "build"
        self.jobs = jobs
        self.origin_build = builddir
        self.vars = make_variables(builddir, ["VALGRIND", "VALGRIND_PLATFORM", "PYTHON3", "CXX"])
        # ccache makes the rebuild after restoring a file (and every rerun) cheap.
        self.ccache = find_program("ccache")
        self.env = dict(os.environ, CCACHE_DIR=str(work / "ccache"))

    def sync(self, build: bool = True) -> None:
        """Copies the source tree (files that differ only), then configures and
        builds the copy if needed (not with build=False: Python mutations
        only)."""
        if (self.origin / "config.status").exists():
            raise SystemExit(f"run_mutations: {self.origin} is configured in place; the "
                             "scratch copy needs an out-of-tree build (make distclean there)")
        skip = {self.origin / "build", self.origin_build, self.src.parent}
        for root, dirs, files in os.walk(self.origin):
            rel = Path(root).relative_to(self.origin)
            dirs[:] = [d for d in dirs if Path(root, d).resolve() not in skip
                       and d not in (".git", "__pycache__") and not d.startswith("autom4te")]
            (self.src / rel).mkdir(parents=True, exist_ok=True)
            for f in files:
                if rel == Path(".") and f == ".git":
                    continue  # a worktree's link to its repository
                a, b = Path(root) / f, self.src / rel / f
                if not b.exists():
                    shutil.copy2(a, b)  # keeps the generated files' time order
                elif not filecmp.cmp(a, b, shallow=False):
                    shutil.copy2(a, b)
                    os.utime(b)  # newer than anything built from the old copy
        if not build:
            return
        if not (self.build / "config.status").exists():
            args = shlex.split(subprocess.run(
                [str(self.origin_build / "config.status"), "--config"], check=True,
                capture_output=True, text=True).stdout)
            if self.ccache and not any(a.startswith("CXX=") for a in args):
                args.append(f"CXX={self.ccache} {self.vars['CXX']}")
            self.build.mkdir(parents=True, exist_ok=True)
            log(f"configuring the scratch build in {self.build}")
            run_checked([str(self.src / "configure")] + args, cwd=self.build, env=self.env)
        log("building the scratch tree (tool, unit tests, test programs)")
        # Two goals of one parallel make would build shared objects twice at once.
        run_checked(["make", f"-j{self.jobs}", "all"], cwd=self.build, env=self.env)
        run_checked(["make", f"-j{self.jobs}", "check", "TESTS="], cwd=self.build, env=self.env)

    def rebuild(self, targets: Sequence[str], must_change: bool = False) -> Tuple[bool, str]:
        """Builds the targets; with `must_change`, fails if one was not
        rebuilt (make did not see the mutation)."""
        before = {t: (self.build / t).stat().st_mtime_ns for t in targets}
        p = subprocess.run(["make", f"-j{self.jobs}"] + list(targets), cwd=self.build,
                           env=self.env, capture_output=True, text=True)
        stale = [t for t in targets if (self.build / t).stat().st_mtime_ns == before[t]]
        if p.returncode == 0 and stale and must_change:
            return False, f"make did not rebuild {' '.join(stale)}"
        return p.returncode == 0, p.stdout + p.stderr

    def build_test_programs(self) -> None:
        """The tool tests' programs in BUILD (what `make check` builds
        besides `all`), for Python mutations whose tests run the tool."""
        log(f"building the test programs in {self.origin_build}")
        run_checked(["make", f"-j{self.jobs}", "check", "TESTS="], cwd=self.origin_build,
                    env=self.env)

    def test_env(self, python: bool = False) -> Dict[str, str]:
        """The variables of `make check`: the scratch copy's sources, and the
        scratch build, or BUILD for a Python mutation (no rebuild: BUILD's
        tool is the unmutated one, while the scratch build may still hold the
        last C++ mutation's)."""
        build = self.origin_build if python else self.build
        env = dict(os.environ)
        env.pop("VALGRIND_OPTS", None)
        env.update({
            "VALGRIND": self.vars["VALGRIND"],
            "APROF_VGLIB": str(build / "vglib"),
            "APROF_VG_IN_PLACE": str(build / "aprof-trms" / "vg-in-place"),
            "APROF_TOOL_NAME": "aprof-trms",
            "APROF_VALGRIND_PLATFORM": self.vars["VALGRIND_PLATFORM"],
            "PYTHON3": self.vars["PYTHON3"],
            "APROF_SRCDIR": str(self.src),
            "APROF_TEST_PROGRAMS": str(build / "tests" / "tool" / "programs"),
            "APROF_BUILDDIR": str(build),
            "PYTHONDONTWRITEBYTECODE": "1",
        })
        return env

    def command(self, tests: Sequence[str]) -> Tuple[List[str], Path]:
        """The command running a test id: unit:GTEST_FILTER, unit (all of
        them), or pytest ids under tests/, several in one run: tool (all
        tool tests), scripts (all script tests), a file or one test."""
        if tests[0] == "unit":
            return [str(self.build / UNIT_TARGET), "--gtest_fail_fast"], self.build
        if tests[0].startswith("unit:"):
            return [str(self.build / UNIT_TARGET), "--gtest_fail_fast",
                    f"--gtest_filter={tests[0][5:]}"], self.build
        pytest = [self.vars["PYTHON3"], "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                  "--rootdir=."]
        return pytest + list(tests), self.src / "tests"

    def run_test(self, test: str, python: bool = False) -> Tuple[bool, str]:
        """(passed, output tail); python: a Python mutation's (test_env)."""
        return self.run_tests([test], python)

    def run_tests(self, tests: Sequence[str], python: bool = False) -> Tuple[bool, str]:
        """run_test() of pytest ids in one run."""
        argv, cwd = self.command(tests)
        try:
            p = subprocess.run(argv, cwd=cwd, env=self.test_env(python), capture_output=True,
                               text=True, timeout=TEST_TIMEOUT)
        except subprocess.TimeoutExpired:
            return False, f"timed out after {TEST_TIMEOUT} s"
        return p.returncode == 0, (p.stdout + p.stderr)[-3000:]


def log(text: str) -> None:
    print(f"run_mutations: {text}", flush=True)


def run_checked(argv: List[str], cwd: Path, env: Dict[str, str]) -> None:
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stdout.write((p.stdout + p.stderr)[-5000:])
        raise SystemExit(f"run_mutations: failed: {' '.join(argv)} (in {cwd})")


def occurrences(text: str, snippet: str) -> int:
    return text.count(snippet)


def check_snippets(ws: Workspace, mutations: Sequence[Mutation]) -> List[str]:
    """Problems of stale mutations: file missing, snippet not exactly once."""
    problems = []
    for m in mutations:
        path = ws.origin / m.file
        if not path.is_file():
            problems.append(f"STALE  {m.name}: {m.file} does not exist")
            continue
        n = occurrences(path.read_text(), m.original)
        if n != 1:
            problems.append(f"STALE  {m.name}: its original snippet occurs {n} times in {m.file}")
    return problems


def test_mutation(ws: Workspace, m: Mutation, baseline: "Baseline") -> Tuple[str, str]:
    """(outcome, detail): outcome is caught, survived or error."""
    path = ws.src / m.file
    pristine = (ws.origin / m.file).read_text()
    started = time.monotonic()
    path.write_text(pristine.replace(m.original, m.replacement, 1))
    # The engine goes into the unit tests and the tool: the tool is rebuilt
    # only when a tool test is about to run. Python is not built.
    unbuilt = [] if m.is_python else [UNIT_TARGET, TOOL_TARGET] if m.is_engine else [TOOL_TARGET]
    built = 0.0
    try:
        failed = None
        for test in list(m.tests) + [t for t in m.fallback() if t not in m.tests]:
            target = UNIT_TARGET if test.startswith("unit") else TOOL_TARGET
            if target in unbuilt:
                build_started = time.monotonic()
                ok, output = ws.rebuild([target], must_change=True)
                if not ok:
                    return "error", f"building {target} failed:\n" + output[-2000:]
                unbuilt.remove(target)
                built += time.monotonic() - build_started
            passed, output = ws.run_test(test, m.is_python)
            if not passed:
                failed = test
                # pytest's summary names the test of a suite that failed.
                first = re.search(r"^FAILED (\S+)", output, re.M)
                which = f" ({first.group(1)})" if first and first.group(1) != test else ""
                break
    finally:
        path.write_text(pristine)  # newer mtime: the next build recompiles it
        if m.is_python:
            # A test that ran a script without PYTHONDONTWRITEBYTECODE left
            # bytecode of the mutated module, which a pristine file of the
            # same size and second would reuse.
            shutil.rmtree(path.parent / "__pycache__", ignore_errors=True)
    elapsed = f"build {built:.0f} s, total {time.monotonic() - started:.0f} s"
    if failed is None:
        return "survived", f"every test passed ({elapsed})"
    if not baseline.passes(failed, m.is_python):
        return "error", f"{failed} fails without the mutation too"
    if failed in m.tests:
        return "caught", f"by {failed} ({elapsed})"
    return "caught", f"by {failed}{which}, not in its list: add the test that failed ({elapsed})"


class Baseline:
    """Runs a test on the unmutated tree, once, when a verdict depends on it:
    a mutation is caught by a test that fails with it and passes without.
    Python mutations' tests run with BUILD's tool (Workspace.test_env), the
    others' with the scratch build, rebuilt unmutated first."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.results: Dict[Tuple[str, bool], bool] = {}

    def passes(self, test: str, python: bool = False) -> bool:
        if (test, python) not in self.results:
            ok = python or self.ws.rebuild(ALL_TARGETS)[0]
            self.results[(test, python)] = ok and self.ws.run_test(test, python)[0]
        return self.results[(test, python)]

    def check_python(self, mutations: Sequence[Mutation]) -> None:
        """Runs the Python mutations' own tests on the unmutated tree in one
        pytest run (one interpreter start, not one per test) and records
        them as passing if it passes; if not, each is run alone when a
        verdict needs it."""
        tests = sorted({t for m in mutations if m.is_python for t in m.tests
                        if not t.startswith("unit")})
        if not tests:
            return
        passed, output = self.ws.run_tests(tests, python=True)
        if passed:
            self.results.update({(t, True): True for t in tests})
        else:
            log("the Python mutations' tests fail on the unmutated tree:\n" + output[-2000:])


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--srcdir", type=Path, required=True)
    ap.add_argument("--builddir", type=Path, required=True, help="a configured build")
    ap.add_argument("--work-dir", type=Path, help="scratch copy (default BUILDDIR/mutation-work)")
    ap.add_argument("--list", type=Path, default=DEFAULT_LIST, help="mutation list file")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--check-list", action="store_true",
                    help="only check that every mutation applies (no build, no tests)")
    ap.add_argument("--python", action="store_true",
                    help="only the mutations of the Python analysis (.py files)")
    ap.add_argument("names", nargs="*", help="run only these mutations")
    args = ap.parse_args(argv)

    srcdir, builddir = args.srcdir.resolve(), args.builddir.resolve()
    try:
        mutations, removed = parse_list(args.list)
    except (ListError, OSError) as e:
        print(f"run_mutations: {e}", file=sys.stderr)
        return 2
    unknown = [n for n in args.names if n not in {m.name for m in mutations}]
    if unknown:
        print(f"run_mutations: no such mutation: {' '.join(unknown)}", file=sys.stderr)
        return 2
    if args.names:
        mutations = [m for m in mutations if m.name in args.names]
    if args.python:
        mutations = [m for m in mutations if m.is_python]

    ws = Workspace(srcdir, builddir, (args.work_dir or builddir / "mutation-work").resolve(),
                   args.jobs)
    stale = check_snippets(ws, mutations)
    for problem in stale:
        print(problem)
    if args.check_list:
        log(f"{len(mutations)} mutations, {len(removed)} removed, {len(stale)} stale")
        return 2 if stale else 0

    # Killed mid-mutation, still restore the file (the next run's sync would too).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.monotonic()
    stale_names = {p.split()[1].rstrip(":") for p in stale}
    runnable = [m for m in mutations if m.name not in stale_names]
    # Only C++ mutations need the scratch build; Python ones use BUILD's
    # tool, and its test programs when they name a tool test.
    built = any(not m.is_python for m in runnable)
    ws.sync(build=built)
    if any(m.is_python and "tool" in m.fallback() for m in runnable):
        ws.build_test_programs()
    baseline = Baseline(ws)
    baseline.check_python(runnable)
    results: Dict[str, str] = {}
    for i, m in enumerate(mutations, 1):
        if m.name in stale_names:
            results[m.name] = "stale"
            continue
        outcome, detail = test_mutation(ws, m, baseline)
        results[m.name] = outcome
        label = {"caught": "caught  ", "survived": "SURVIVED", "error": "ERROR   "}[outcome]
        print(f"[{i}/{len(mutations)}] {label} {m.name}: {detail}", flush=True)
    if built:
        ws.rebuild(ALL_TARGETS)  # unmutated binaries again

    survived = [n for n, o in results.items() if o == "survived"]
    broken = [n for n, o in results.items() if o in ("error", "stale")]
    caught = sum(o == "caught" for o in results.values())
    log(f"{caught} of {len(mutations)} mutations caught, {len(survived)} survived, "
        f"{len(broken)} stale or broken; {len(removed)} removed as unable to change results; "
        f"{time.monotonic() - started:.0f} s")
    if survived:
        log("survived (no test noticed): " + " ".join(survived))
    if broken:
        log("stale or broken (fix the list): " + " ".join(broken))
    return 2 if broken else 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
