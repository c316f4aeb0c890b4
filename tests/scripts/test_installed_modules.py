# SPDX-License-Identifier: GPL-2.0-or-later
"""`make install` installs the whole analysis package: every module of
scripts/aprof_trms/ is in Makefile.am's list of the package's files (a
module left out makes the installed commands that import it fail, which
only tests/install/check-install.sh would otherwise notice, late in CI)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "scripts/aprof_trms"


def listed_modules(makefile: str):
    """The package's modules Makefile.am names, the commands' included
    (ANALYSIS_COMMANDS, installed as scripts/aprof_trms/<command>.py)."""
    named = set(re.findall(re.escape(PACKAGE) + r"/(\w+)\.py", makefile))
    commands = re.search(r"^ANALYSIS_COMMANDS\s*=\s*((?:.*\\\n)*.*)$", makefile, re.M)
    if commands:
        named |= set(commands.group(1).replace("\\\n", " ").split())
    return named


def test_every_module_of_the_package_is_installed():
    modules = {p.stem for p in (ROOT / PACKAGE).glob("*.py")}
    missing = sorted(modules - listed_modules((ROOT / "Makefile.am").read_text(encoding="utf-8")))
    assert missing == [], f"add to Makefile.am's package files: {missing}"


def test_a_module_left_out_is_found():
    makefile = "ANALYSIS_COMMANDS = plot rank\nfiles = scripts/aprof_trms/fit.py\n"
    assert listed_modules(makefile) == {"plot", "rank", "fit"}
