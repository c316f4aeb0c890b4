# SPDX-License-Identifier: GPL-2.0-or-later
# The install step's package table (debian-packages.txt beside this file),
# read for the Python code that starts external programs: the tests, the
# benchmark harness and the case studies find a program with needs_program(),
# so that a missing one is named with the package that provides it, and a
# program missing from the table fails at once instead of passing on a
# machine where someone installed it by hand.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Which Debian package each external program comes from, and finding one."""
import os
import shutil
from typing import Dict, List, NamedTuple, Optional

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debian-packages.txt")

# Programs such as mariadbd live in /usr/sbin, which a non-root PATH lacks.
SBIN_DIRS = ("/usr/sbin", "/sbin")
# Where Debian's packages put programs: what a program profiled *as the
# Debian package's* is looked up in, whatever shadows it on PATH (pyenv's
# python3 shim, a /usr/local build).
DEBIAN_DIRS = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")


class Package(NamedTuple):
    name: str
    programs: List[str]
    needed_by: str


class ProgramMissing(Exception):
    """A program the code needs is not installed (the message names its package)."""


def read_table(path: str = TABLE) -> List[Package]:
    """The table's rows in order; comment and blank lines skipped."""
    packages = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split(None, 2)
            if not fields or fields[0].startswith("#"):
                continue
            programs = [] if len(fields) < 2 or fields[1] == "-" else fields[1].split(",")
            packages.append(Package(fields[0], programs,
                                    fields[2].strip() if len(fields) > 2 else ""))
    return packages


def program_packages(path: str = TABLE) -> Dict[str, str]:
    """program -> the package that provides it."""
    return {prog: pkg.name for pkg in read_table(path) for prog in pkg.programs}


def package_of(program: str) -> str:
    """The package of a program the code starts; a program the table does not
    list is an error of the code, not of the machine."""
    package = program_packages().get(program)
    if package is None:
        raise KeyError(f"`{program}` is not in {TABLE}: add it with the Debian package "
                       "that provides it, so that the install step installs it")
    return package


def search_path() -> str:
    """PATH with the sbin directories appended (where mariadbd is)."""
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(dirs + [d for d in SBIN_DIRS if d not in dirs])


def find_program(program: str, debian_only: bool = False) -> Optional[str]:
    """The program's path on PATH (or, debian_only, in Debian's own
    directories), or None; the program must be in the table."""
    package_of(program)
    return shutil.which(program, path=os.pathsep.join(DEBIAN_DIRS) if debian_only
                        else search_path())


def missing_message(program: str) -> str:
    package = package_of(program)
    return (f"`{program}` is not installed; it comes with the Debian package {package}: "
            f"apt-get install {package} (scripts/run-tests.sh installs it)")


def needs_program(program: str, debian_only: bool = False) -> str:
    """The program's path; ProgramMissing naming its package when it is absent."""
    path = find_program(program, debian_only)
    if path is None:
        raise ProgramMissing(missing_message(program))
    return path
