# SPDX-License-Identifier: GPL-2.0-or-later
"""pytest configuration of the scripts' tests: scripts/ (the aprof_trms
package), scripts/lib (debian_packages, servers) and this directory (the
tests' helpers: synthetic, source_reports, browser, example_run) are
importable by the test modules, as tests/tool/conftest.py makes them for the
tool tests. No test module and no helper edits sys.path."""
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for _path in (_HERE.parents[1] / "scripts", _HERE.parents[1] / "scripts" / "lib", _HERE):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
