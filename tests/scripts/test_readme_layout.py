# SPDX-License-Identifier: GPL-2.0-or-later
"""The README and the docs index stay true to the tree: the README's Layout
section names every top-level file, every folder of scripts/ and tests/ and
every doc page; its install table names every installed command (Makefile.am,
ANALYSIS_COMMANDS); docs/README.md links every doc page."""
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Made by autoreconf or configure (a build in the source tree), and git's
# link of a worktree: not sources.
GENERATED = {"configure", "Makefile.in", "Makefile", "aclocal.m4", "config.status", "config.log",
             "aprof_config.h", "aprof_config.h.in", "aprof_config.h.in~", "compile", "depcomp",
             "install-sh", "missing", "test-driver", "py-compile", "stamp-h1", "configure~",
             "ar-lib", ".git"}


def section(text: str, heading: str) -> str:
    """The text under `heading` up to the next heading of its level."""
    start = text.index(heading + "\n")
    level = heading.split(" ")[0]
    rest = text[start + len(heading) + 1:]
    end = re.search(rf"^{level} ", rest, re.M)
    return rest[:end.start()] if end else rest


def layout() -> str:
    return section((ROOT / "README.md").read_text(encoding="utf-8"), "## Layout")


def top_level_files(root: Path):
    return sorted(p.name for p in root.iterdir()
                  if p.is_file() and p.name not in GENERATED and not p.name.endswith((".orig", ".rej")))


def folders(root: Path, under: str):
    return sorted(f"{under}/{p.name}/" for p in (root / under).iterdir()
                  if p.is_dir() and not p.name.startswith((".", "__")))


def doc_pages(root: Path):
    return sorted(p.name for p in (root / "docs").iterdir()
                  if p.suffix == ".md" and p.name != "README.md" or p.name.endswith(".1.in"))


def missing_from_layout(root: Path, text: str):
    names = ([f"`{f}`" for f in top_level_files(root)]
             + [f"`{d}`" for d in folders(root, "scripts") + folders(root, "tests")]
             + [f"docs/{page}" for page in doc_pages(root)] + ["docs/README.md"])
    return [n for n in names if n not in text]


def installed_commands(root: Path):
    makefile = (root / "Makefile.am").read_text(encoding="utf-8")
    commands = re.search(r"^ANALYSIS_COMMANDS = (.*)$", makefile, re.M).group(1).split()
    return [f"aprof_{c}" for c in commands]


def install_table(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("| the analysis commands"))


def test_layout_names_every_top_level_file_folder_and_doc_page():
    assert missing_from_layout(ROOT, layout()) == []


def test_install_table_names_every_installed_command():
    table = install_table((ROOT / "README.md").read_text(encoding="utf-8"))
    commands = installed_commands(ROOT)
    assert len(commands) >= 9
    assert [c for c in commands if f"`{c}`" not in table] == []


def test_docs_index_links_every_doc_page():
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    pages = doc_pages(ROOT) + ["benchmarks/README.md"]
    assert [p for p in pages if f"]({p})" not in index] == []


def test_docs_index_puts_the_manual_and_analysis_guide_first_evidence_last():
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    order = [index.index(f"]({page})") for page in
             ("manual.md", "analysis.md", "design.md", "testing.md", "performance.md")]
    assert order == sorted(order)


# The checks fail on what they are for (a tree made for the test).

def test_a_new_top_level_file_folder_or_page_is_missing(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "scripts" / "lib").mkdir(parents=True)
    (tmp_path / "tests" / "scripts").mkdir(parents=True)
    for name in ("README.md", "configure.ac", "configure", "Makefile.in"):
        (tmp_path / name).write_text("")
    (tmp_path / "docs" / "manual.md").write_text("")
    text = "`README.md` `configure.ac` `scripts/lib/` `tests/scripts/` docs/manual.md docs/README.md"
    assert missing_from_layout(tmp_path, text) == []
    (tmp_path / "NEWS").write_text("")
    (tmp_path / "tests" / "eval").mkdir()
    (tmp_path / "docs" / "faq.md").write_text("")
    assert missing_from_layout(tmp_path, text) == ["`NEWS`", "`tests/eval/`", "docs/faq.md"]


def test_a_new_command_is_missing_from_the_table(tmp_path):
    (tmp_path / "Makefile.am").write_text("ANALYSIS_COMMANDS = plot rank new_one\n")
    table = install_table("| the analysis commands `aprof_plot`, `aprof_rank` | /usr/bin |")
    assert [c for c in installed_commands(tmp_path) if f"`{c}`" not in table] == ["aprof_new_one"]
