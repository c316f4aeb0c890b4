# SPDX-License-Identifier: GPL-2.0-or-later
"""The tool options' texts come from one place, aprof-trms/options.def:
the manual's options table is the one scripts/lib/options_doc.py makes from
it, the man page's TOOL OPTIONS section is made from it (make), and every
option options.cc parses has its row (and every row an option parsed).
tests/tool/test_option_texts.py compares the tool's --help with it."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

import options_doc

ROOT = Path(__file__).resolve().parents[2]
OPTIONS_DEF = ROOT / "aprof-trms" / "options.def"
SCRIPT = ROOT / "scripts" / "lib" / "options_doc.py"


def options():
    return options_doc.read_options(str(OPTIONS_DEF))


def run_script(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)],
                          capture_output=True, text=True)


def test_the_manual_table_is_made_from_options_def():
    r = run_script("manual", ROOT / "docs" / "manual.md", "--check")
    assert r.returncode == 0, r.stderr


def test_an_edited_manual_table_is_out_of_date(tmp_path):
    manual = tmp_path / "manual.md"
    text = (ROOT / "docs" / "manual.md").read_text(encoding="utf-8")
    manual.write_text(text.replace("bytes per memory cell", "bytes per cell", 1), encoding="utf-8")
    r = run_script("manual", manual, "--check")
    assert r.returncode == 1 and "not made from" in r.stderr
    assert run_script("manual", manual).returncode == 0      # remade
    assert manual.read_text(encoding="utf-8") == text


def test_the_manual_table_has_a_row_per_option():
    table = options_doc.manual_table(options())
    for o in options():
        row = next(line for line in table.splitlines() if line.startswith(f"| `{o.name}="))
        assert o.help.replace("|", "\\|") in row


def test_the_man_page_section_is_made_from_options_def(tmp_path):
    out = tmp_path / "aprof-trms.1"
    r = run_script("man", ROOT / "docs" / "aprof-trms.1.in", out)
    assert r.returncode == 0, r.stderr
    page = out.read_text(encoding="utf-8")
    assert "@TOOL_OPTIONS@" not in page
    assert options_doc.man_section(options()) in page
    section = page[page.index(".SH TOOL OPTIONS"):page.index(".SH COMMANDS")]
    names = re.findall(r"^\.B[RI] (\\-\\-[\w\\-]+)=", section, re.M)
    assert [n.replace("\\-", "-") for n in names] == [o.name for o in options()]


def test_every_parsed_option_has_its_row_and_every_row_is_parsed():
    source = (ROOT / "aprof-trms" / "options.cc").read_text(encoding="utf-8")
    parsed = re.findall(r'VG_(?:STR|BOOL|INT|BINT|XACT)_CLO\(arg, "(--[\w-]+)"', source)
    assert len(parsed) >= 10
    assert sorted(parsed) == sorted(o.name for o in options())


def test_bool_options_show_no_and_yes_and_defaults_are_among_the_values():
    for o in options():
        if "|" in o.values:
            assert o.default in o.values.split("|"), o.name


@pytest.mark.parametrize("row, message", [
    ('APROF_OPTION("--x", "no|yes", "no", "help")\n', "expected 5 arguments"),
    ('APROF_OPTION("--x", "no|yes", "no", HELP, "")\n', "not a string literal"),
    ('APROF_OPTION("x", "no|yes", "no", "help", "")\n', "an option name"),
    ("// nothing\n", "no APROF_OPTION row"),
])
def test_a_malformed_row_is_refused(tmp_path, row, message):
    path = tmp_path / "options.def"
    path.write_text(row)
    with pytest.raises(options_doc.OptionsError, match=message):
        options_doc.read_options(str(path))


def test_adjacent_literals_and_escapes_are_one_argument(tmp_path):
    path = tmp_path / "options.def"
    path.write_text('APROF_OPTION("--x", "<n>", "",\n    "a \\"quoted\\" "\n    "word", "")\n')
    (o,) = options_doc.read_options(str(path))
    assert (o.name, o.values, o.default, o.help, o.details) == ("--x", "<n>", "", 'a "quoted" word', "")
    assert options_doc.help_line(o) == '--x=<n> a "quoted" word'
