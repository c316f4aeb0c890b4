# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the install step's package table (scripts/lib/debian-packages.txt):
# every external program the code starts is listed with the Debian package
# that provides it, the install step installs every listed package, and each
# listed program really comes from its package.
#
# Copyright (C) 2026, the aprof-trms authors.
"""A program the tests start that the install step does not install passes CI
on a machine where someone installed it by hand and fails on a fresh one:
these tests fail instead, wherever they run."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "lib"))
import debian_packages  # noqa: E402

BUILD_SH = ROOT / "scripts" / "lib" / "build.sh"
# Where shutil.which is right: the helper, and this test, which looks in
# Debian's own directories whatever PATH says.
THIS = Path(__file__).resolve()
WHICH_ALLOWED = {ROOT / "scripts" / "lib" / "debian_packages.py"}
# Directories of the code that starts programs (the build directory, made
# by the build, is not code).
CODE_DIRS = [ROOT / "scripts", ROOT / "tests", ROOT / ".ci"]
DEBIAN_PATH = os.pathsep.join(debian_packages.DEBIAN_DIRS)

# The ways the code names a program it starts.
LOOKUP = re.compile(r"\b(?:needs_program|find_program)\(\s*\"([^\"]+)\"")
STARTED = re.compile(r"\b(?:subprocess\.(?:run|Popen|call|check_call|check_output)|run_setup"
                     r"|os\.exec[lv]p?e?)\(\s*\[\s*\"([^\"]+)\"")
SHELL_LOOKUP = re.compile(r"\bcommand -v ([A-Za-z0-9_.+-]+)")
WHICH = re.compile(r"\bshutil\.which\(")


# Programs the code looks for without needing them: sudo only when not
# root, and installing needs root or a sudo already there.
NOT_NEEDED = {"sudo"}


def code_files():
    """The code, this test left out (it names programs to test the helper)."""
    for top in CODE_DIRS:
        for path in sorted(top.rglob("*")):
            if path.suffix in (".py", ".sh", ".in") and path.is_file() \
                    and "__pycache__" not in path.parts and path.resolve() != THIS:
                yield path


def programs_named_in_code():
    """{program: [files]} of every program the code looks up or starts."""
    found = {}
    for path in code_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        pattern_list = (LOOKUP, STARTED) if path.suffix == ".py" else (SHELL_LOOKUP,)
        for pattern in pattern_list:
            for name in pattern.findall(text):
                found.setdefault(os.path.basename(name), []).append(str(path.relative_to(ROOT)))
    return found


def harness_programs():
    """The programs of the benchmark harness's workloads (quick and full)."""
    sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))
    import tool_benchmark
    return {prog: "tests/benchmarks/tool_benchmark.py workload " + w.name
            for w in tool_benchmark.WORKLOADS for prog in w.programs}


def installed_packages_list():
    """The packages the install step installs, as build.sh computes them."""
    out = subprocess.run(["bash", "-c", 'source "$0"; printf "%s\\n" "${APROF_DEBIAN_PACKAGES[@]}"',
                          str(BUILD_SH)], capture_output=True, text=True, check=True).stdout
    return out.split()


def test_the_install_step_installs_every_package_of_the_table():
    table = [p.name for p in debian_packages.read_table()]
    assert len(table) == len(set(table)), "a package is listed twice"
    assert installed_packages_list() == table


def test_every_program_the_code_starts_is_in_the_table():
    listed = debian_packages.program_packages()
    named = programs_named_in_code()
    named.update({prog: [where] for prog, where in harness_programs().items()})
    missing = {prog: where for prog, where in named.items()
               if prog not in listed and prog not in NOT_NEEDED}
    assert not missing, ("programs the code starts that scripts/lib/debian-packages.txt does "
                         "not list (so the install step may not install them): %s" % missing)
    # The scan must see the programs we know the code starts: if a rename of
    # the helpers blinded it, this says so instead of passing on nothing.
    for known in ("pigz", "sqlite3", "callgrind_annotate", "unshare", "man", "chromium"):
        assert known in named, f"the scan no longer finds `{known}`"


def test_programs_are_looked_up_through_the_table():
    """shutil.which on a program name bypasses the table: a program missing
    from it would be found on a machine that has it and nowhere else."""
    offenders = [str(path.relative_to(ROOT)) for path in code_files()
                 if path.suffix == ".py" and path.resolve() not in WHICH_ALLOWED
                 and WHICH.search(path.read_text(encoding="utf-8", errors="replace"))]
    assert not offenders, f"use debian_packages.needs_program/find_program in: {offenders}"


def dpkg(*args):
    return subprocess.run(["dpkg-query", *args], capture_output=True, text=True)


def owners(program_path):
    """The packages that own a file, as dpkg records it (merged /usr: the
    file may be recorded under /bin; alternatives: under its target)."""
    candidates = {program_path, os.path.realpath(program_path)}
    if program_path.startswith("/usr/"):
        candidates.add(program_path[len("/usr"):])
    found = set()
    for path in candidates:
        result = dpkg("-S", path)
        for line in result.stdout.splitlines():
            if ": " in line:
                found.update(p.strip().split(":")[0] for p in line.split(": ")[0].split(","))
    return found


def depends(package):
    """The packages a package depends on directly (any alternative)."""
    field = dpkg("-W", "-f=${Depends}", package).stdout
    return {alt.split()[0].split(":")[0] for dep in field.split(",") for alt in dep.split("|")
            if alt.strip()}


@pytest.fixture(scope="module")
def debian():
    assert subprocess.run(["sh", "-c", "command -v dpkg-query"], capture_output=True).returncode \
        == 0, "the install step targets Debian 12: dpkg-query is missing"


def test_every_listed_package_is_installed(debian):
    not_installed = [p.name for p in debian_packages.read_table()
                     if "install ok installed" not in dpkg("-W", "-f=${Status}", p.name).stdout]
    assert not not_installed, f"not installed (run the install step): {not_installed}"


def test_every_listed_program_comes_from_its_package(debian):
    wrong = {}
    for package in debian_packages.read_table():
        for program in package.programs:
            path = shutil.which(program, path=DEBIAN_PATH)
            if path is None:
                wrong[program] = f"not found on {DEBIAN_PATH}"
                continue
            found = owners(path)
            if package.name not in found and not found & depends(package.name):
                wrong[program] = f"{path} comes from {sorted(found) or 'no package'}, " \
                                 f"not from {package.name} or what it depends on"
    assert not wrong, wrong


def test_a_missing_program_is_named_with_its_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(debian_packages, "SBIN_DIRS", ())
    with pytest.raises(debian_packages.ProgramMissing, match=r"apt-get install pigz\b"):
        debian_packages.needs_program("pigz")
    with pytest.raises(KeyError, match="not in .*debian-packages.txt"):
        debian_packages.needs_program("no-such-program")
