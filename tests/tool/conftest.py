# SPDX-License-Identifier: GPL-2.0-or-later
"""pytest configuration of the tool tests: scripts/ (the aprof_trms package),
scripts/lib (debian_packages: needs_program) and this directory (toolrun,
callgrind_out) are importable by the test modules."""
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for _path in (_HERE.parents[1] / "scripts", _HERE.parents[1] / "scripts" / "lib", _HERE):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
