# SPDX-License-Identifier: GPL-2.0-or-later
"""One file banner everywhere: every source file starts with its SPDX
license line (after a shebang, a doctype or an editor mode line), then says
what it is for. The client-request header is BSD-3-Clause, so that programs
of any license can include it (as Valgrind's own valgrind.h); everything
else is GPL-2.0-or-later."""
from pathlib import Path

import pytest

SRCDIR = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ["aprof-trms", "scripts", "tests", ".ci"]
SOURCE_FILES = ["configure.ac", "Makefile.am", "docs/aprof-trms.1.in", ".ci/run"]
EXTENSIONS = {".cc", ".h", ".c", ".go", ".py", ".sh", ".js", ".css", ".html", ".am", ".ac", ".inc", ".in"}
# Written by autoreconf and configure in an in-tree build, not sources.
GENERATED = {"Makefile.in", "aprof_config.h.in"}
SKIPPED_DIRS = {"__pycache__", ".deps", "autom4te.cache", ".pytest_cache"}
OPENERS = ("#!", "<!DOCTYPE", "#                                               -*- Autoconf -*-")
PERMISSIVE = {"aprof-trms/aprof-trms.h": "BSD-3-Clause"}
# How a comment (or a Python docstring) starts, by kind of file.
C_COMMENTS = ("//", "/*")
HASH_COMMENTS = ("#",)
COMMENT_STARTS = {".cc": C_COMMENTS, ".h": C_COMMENTS, ".c": C_COMMENTS, ".go": C_COMMENTS,
                  ".js": C_COMMENTS, ".css": ("/*",), ".html": ("<!--",), ".py": ("#", '"""')}


def comment_starts(rel: str):
    if rel.endswith(".1.in"):
        return ('.\\"',)
    return COMMENT_STARTS.get(Path(rel).suffix, HASH_COMMENTS)


def source_files():
    found = {SRCDIR / name for name in SOURCE_FILES}
    for top in SOURCE_DIRS:
        for path in (SRCDIR / top).rglob("*"):
            if SKIPPED_DIRS & set(path.relative_to(SRCDIR).parts) or not path.is_file():
                continue
            if path.suffix in EXTENSIONS and path.name not in GENERATED:
                found.add(path)
    return sorted(found)


def banner_problem(text: str, rel: str):
    """What is wrong with the banner of file `rel` (its text), or None."""
    lines = text.split("\n")
    starts = comment_starts(rel)
    first = 1 if lines and lines[0].startswith(OPENERS) else 0
    spdx = "SPDX-License-Identifier: " + PERMISSIVE.get(rel, "GPL-2.0-or-later")
    if len(lines) <= first + 1 or spdx not in lines[first] or not lines[first].startswith(starts):
        return f"line {first + 1} is not the comment `{spdx}`: {lines[first] if len(lines) > first else ''!r}"
    purpose = lines[first + 1]
    if not purpose.startswith(starts) or len(purpose.strip("/#*<!-.\\\" ")) < 10:
        return f"line {first + 2} does not say what the file is for: {purpose!r}"
    if sum(line.startswith(starts) and "SPDX-License-Identifier" in line for line in lines[:40]) != 1:
        return "more than one SPDX line in the banner"
    return None


def test_the_walk_finds_the_sources():
    names = {p.relative_to(SRCDIR).as_posix() for p in source_files()}
    for expected in ("aprof-trms/core/engine.cc", "scripts/aprof_trms/report.py", "configure.ac",
                     "scripts/aprof_trms/html_assets/report.js", "tests/tool/Makefile.inc",
                     "scripts/aprof_command.in", ".ci/run"):
        assert expected in names
    assert len(names) > 150


@pytest.mark.parametrize("bad,problem", [
    ("#include <x>\n// SPDX-License-Identifier: GPL-2.0-or-later\n", "is not the comment"),
    ("// SPDX-License-Identifier: GPL-2.0-or-later\n#include <x>\n", "does not say what"),
    ("// SPDX-License-Identifier: GPL-2.0-or-later\n// Runs x and y.\n"
     "// SPDX-License-Identifier: GPL-2.0-or-later\n", "more than one"),
])
def test_a_bad_banner_is_named(bad, problem):
    assert problem in (banner_problem(bad, "x.cc") or "")
    assert "is not the comment" in banner_problem("/* SPDX-License-Identifier: GPL-2.0-or-later */\n/* Requests. */\n",
                                                  "aprof-trms/aprof-trms.h")


def test_every_source_file_has_the_banner():
    problems = []
    for path in source_files():
        rel = path.relative_to(SRCDIR).as_posix()
        problem = banner_problem(path.read_text(errors="replace"), rel)
        if problem:
            problems.append(f"{rel}: {problem}")
    assert not problems, "\n".join(problems)
