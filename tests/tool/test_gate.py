# SPDX-License-Identifier: GPL-2.0-or-later
# The CI gate (scripts/regress.py) on real runs of a multithreaded program:
# it passes on runs of the same program and fails on a planted n -> n^2.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Two identical runs of a multithreaded server failed the gate (exit 3,
sqrt n -> n^3 on a routine whose candidate fit doubted itself); a gate that
fails on identical runs is switched off. programs/gatework.cc: three
threads take items from a locked queue, so which thread runs what varies
from run to run (multithreaded runs are not deterministic: the test asserts
the gate's verdicts, not equal reports)."""
import itertools
import subprocess
import sys

from toolrun import SRCDIR, Spec, check_counts, program, run_tools

REGRESS = str(SRCDIR / "scripts" / "regress.py")
EXIT_REGRESSION = 3
RUNS = 3


def gate(baseline, candidate):
    return subprocess.run([sys.executable, REGRESS, "--baseline", str(baseline),
                           "--candidate", str(candidate)], capture_output=True, text=True,
                          timeout=300)


def test_gate_passes_identical_runs_and_fails_a_planted_regression(tmp_path):
    runs = run_tools(tmp_path, [Spec([program("gatework"), "linear"]) for _ in range(RUNS)]
                     + [Spec([program("gatework"), "quadratic"])])
    for run in runs:
        check_counts(run, run.report, {"process": 50}, "gatework")
    linear, quadratic = runs[:RUNS], runs[RUNS]
    for a, b in itertools.permutations(linear, 2):
        r = gate(a.report.path, b.report.path)
        assert r.returncode == 0, r.stdout + r.stderr
    r = gate(linear[0].report.path, quadratic.report.path)
    assert r.returncode == EXIT_REGRESSION, r.stdout + r.stderr
    assert "REGRESSION process (gatework): n -> n^2" in r.stdout, r.stdout
