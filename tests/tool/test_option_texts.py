# SPDX-License-Identifier: GPL-2.0-or-later
"""The tool's --help and --help-debug say of each option what its row of
aprof-trms/options.def says (name, values, help text, default), in the
table's order; the built man page's TOOL OPTIONS are the section
scripts/lib/options_doc.py makes from the same rows. With
tests/scripts/test_options_doc.py (the manual's table), the option texts
have one source."""
import os
import re
import subprocess

import options_doc
from toolrun import SRCDIR, vg_in_place

OPTIONS = options_doc.read_options(str(SRCDIR / "aprof-trms" / "options.def"))


def help_entries(text: str, heading: str):
    """The entries under `heading` of Valgrind's --help, each with its
    continuation lines joined and blanks collapsed."""
    block = text[text.index(heading) + len(heading):].split("\n\n")[0]
    entries = []
    for line in block.splitlines():
        if line.startswith("    --"):
            entries.append(line.strip())
        elif line.strip():
            entries[-1] += " " + line.strip()
    return [re.sub(r"\s+", " ", e) for e in entries]


def tool_help(flag: str) -> str:
    r = subprocess.run([vg_in_place(), "--tool=aprof-trms", flag], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_help_is_made_from_options_def():
    shown = help_entries(tool_help("--help"), "user options for aprof-trms:\n")
    assert shown == [options_doc.help_line(o) for o in OPTIONS if not o.debug]


def test_help_debug_is_made_from_options_def():
    shown = help_entries(tool_help("--help-debug"), "debugging options for aprof-trms:\n")
    assert shown == [options_doc.help_line(o) for o in OPTIONS if o.debug]


def test_help_lines_fit_in_79_columns():
    text = tool_help("--help-debug")
    for heading in ("user options for aprof-trms:\n", "debugging options for aprof-trms:\n"):
        block = text[text.index(heading):].split("\n\n")[0]
        assert max(len(line) for line in block.splitlines()) <= 79, block


def test_the_built_man_page_has_the_options_of_options_def():
    page_path = os.path.join(os.environ.get("APROF_BUILDDIR", ""), "docs", "aprof-trms.1")
    with open(page_path, encoding="utf-8") as f:
        page = f.read()
    assert options_doc.man_section(OPTIONS) in page
