# SPDX-License-Identifier: GPL-2.0-or-later
"""The generated code of the access hooks, against tests/tool/hot_path_baseline.txt.

Every memory access of the client calls one of these hooks (OnRead, OnWrite
and their variants), so their code is a measured property (docs/performance.md):
the one-cell hooks save two or three registers and end a read of a cell
already accessed at the current counter value within a few dozen
instructions. A hook that saves one more register, or grows by more than a
tenth, is a change of the hot path: measure it (tests/benchmarks/
tool_benchmark.py) before updating the baseline (docs/testing.md). tsan's
check_analyze.sh guards its fast paths the same way.
"""
import math
import os
import re
import subprocess
from pathlib import Path

import pytest

from toolrun import vg_in_place

BASELINE = Path(__file__).resolve().parent / "hot_path_baseline.txt"
GROWTH_ALLOWED = 0.10  # instructions; a saved register is never allowed


def read_baseline():
    """{hook: (pushes, instructions)} from the baseline file."""
    baseline = {}
    for line in BASELINE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            hook, pushes, instructions = line.split()
            baseline[hook] = (int(pushes), int(instructions))
    return baseline


def tool_binary():
    """The tool executable beside the build tree's vg-in-place."""
    found = sorted(Path(vg_in_place()).resolve().parent.glob("aprof-trms-*-linux"))
    assert found, f"no aprof-trms-*-linux beside {vg_in_place()}"
    return found[0]


def hook_symbols(binary):
    """{hook name: mangled symbol} of the functions aprof::On*(uptr, uptr)."""
    symbols = subprocess.run(["nm", str(binary)], capture_output=True, text=True,
                             check=True).stdout
    return {m.group(2): m.group(1)
            for m in re.finditer(r" T (_ZN5aprof\d+(On\w+)Emm)$", symbols, re.M)}


def hook_code(binary, symbol):
    """(pushes, instructions) of one function's machine code."""
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=" + symbol,
                              str(binary)], capture_output=True, text=True, check=True).stdout
    mnemonics = re.findall(r"^\s+[0-9a-f]+:\s+(\S+)", listing, re.M)
    assert mnemonics, f"objdump found no code for {symbol} in {binary}"
    return sum(m.startswith("push") for m in mnemonics), len(mnemonics)


BASELINE_HOOKS = sorted(read_baseline())
# configure --enable-debug compiles the debug-only checks into the hooks:
# then each must be larger than its (default build's) baseline.
DEBUG_BUILD = "-DAPROF_DEBUG" in os.environ.get("APROF_DEBUG_FLAGS", "")


def test_every_access_hook_has_a_baseline():
    """A new hook gets its line in the baseline (and an old one loses it)."""
    hooks = {name for name in hook_symbols(tool_binary()) if name.startswith(("OnRead", "OnWrite"))}
    assert hooks == set(BASELINE_HOOKS)


@pytest.mark.parametrize("hook", BASELINE_HOOKS)
def test_hook_keeps_its_lean_code(hook):
    binary = tool_binary()
    symbol = hook_symbols(binary).get(hook)
    assert symbol, f"{hook} not found in {binary}"
    pushes, instructions = hook_code(binary, symbol)
    base_pushes, base_instructions = read_baseline()[hook]
    if DEBUG_BUILD:
        assert instructions > base_instructions, (
            f"{hook}: {instructions} instructions in a --enable-debug build, no more than the "
            f"default build's {base_instructions}: are its debug-only checks compiled in?")
        return
    limit = math.floor(base_instructions * (1 + GROWTH_ALLOWED))
    assert pushes <= base_pushes and instructions <= limit, (
        f"{hook}: {pushes} registers saved (baseline {base_pushes}), {instructions} "
        f"instructions (baseline {base_instructions}, limit {limit}). If the change is meant "
        f"and measured, update {BASELINE.name} (docs/testing.md).")
