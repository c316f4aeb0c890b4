# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the command-line convention shared by the analysis commands
# (scripts/aprof_trms/cli.py): --version, exit statuses, closed pipes, and
# modules that neither exit nor edit sys.path when imported.
#
# Copyright (C) 2026, the aprof-trms authors.
import gc
import os
import signal
import subprocess
import sys

import pytest

import synthetic
from aprof_trms import cli

COMMANDS = ["plot", "charts", "rank", "regress", "annotate", "contexts"]
MODULES = ["report", "profile", "fit", "plotting", "cli", "table", "html", "html_calls"] + COMMANDS


def command(name):
    return os.path.join(synthetic.SCRIPTS, f"{name}.py")


@pytest.mark.parametrize("name", COMMANDS)
def test_version_and_usage_errors(name):
    r = subprocess.run([sys.executable, command(name), "--version"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"{name}.py (aprof-trms) 0.1.0"
    r = subprocess.run([sys.executable, command(name), "--no-such-option"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "usage:" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("name", ["plot", "charts", "rank"])
def test_missing_report_is_an_error_in_one_line(name, tmp_path):
    missing = tmp_path / "no-such-report"
    r = subprocess.run([sys.executable, command(name), str(missing), "-o", str(tmp_path / "o")]
                       if name != "rank" else [sys.executable, command(name), str(missing)],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{name}.py: error: ") and str(missing) in r.stderr
    assert r.stderr.count("\n") == 1, r.stderr


def test_closed_pipe_ends_the_command_quietly(tmp_path):
    # Enough rows that the output outlives the pipe's buffer.
    routines = [synthetic.Routine(f"routine_{i:04d}", synthetic.COSTS["n"], synthetic.sizes(6))
                for i in range(700)]
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines)
    rank = subprocess.Popen([sys.executable, command("rank"), "--format", "csv", "--min-share", "0",
                             str(report)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = rank.stdout.readline()
    rank.stdout.close()   # what `| head -1` does
    stderr = rank.stderr.read().decode()
    rank.wait(timeout=300)
    assert first.startswith(b"rank,routine,")
    assert stderr == ""
    assert rank.returncode == -signal.SIGPIPE


@pytest.mark.parametrize("module", MODULES)
def test_import_neither_exits_nor_edits_sys_path(module):
    code = ("import sys; before = list(sys.path); "
            f"import aprof_trms.{module}; "
            "assert sys.path == before, sys.path; print('imported')")
    r = subprocess.run([sys.executable, "-c", code], cwd=synthetic.SCRIPTS,
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "imported\n", r.stderr


def test_cycle_collection_paused_restores_the_collector():
    assert gc.isenabled()
    with pytest.raises(KeyError):
        with cli.cycle_collection_paused():
            assert not gc.isenabled()
            raise KeyError("a command's error")
    assert gc.isenabled()
    gc.disable()
    try:
        with cli.cycle_collection_paused():
            pass
        assert not gc.isenabled()   # off before: left off
    finally:
        gc.enable()
