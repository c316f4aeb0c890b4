# SPDX-License-Identifier: GPL-2.0-or-later
"""The report file: name, header records, command-line options and errors."""
import os
import re
import subprocess

from aprof_trms import report as ar
from toolrun import Spec, program, routine, run_tool, run_tools, vg_in_place, valgrind

OPTIONS = ["--memory-resolution", "--cost-metric", "--aprof-out-file", "--syscall-input",
           "--skip-routine", "--collect-atstart", "--trms", "--input-sources",
           "--collect-context", "--context-depth"]


def test_header_file_name_and_pid(tmp_path):
    prog = program("sumarray")
    run = run_tool(tmp_path, [prog, "1000"])
    r = run.report
    h = r.header
    assert os.path.basename(r.path) == f"aprof.{run.pid}"
    assert (h.pid, h.ppid) == (run.pid, os.getpid())
    assert h.version == ar.FORMAT_VERSION == 6
    # The report at exit of a run never zeroed covers the whole run.
    assert (h.interval.dump, h.interval.start_ms, h.interval.zeroes, h.interval.reason) == \
        (0, 0, 0, "exit")
    assert h.interval.end_ms > 0
    assert h.tool == "aprof-trms"
    banner = re.search(r"^==\d+== aprof-trms-(\S+), input-sensitive profiler", run.stderr, re.M)
    assert banner, run.describe()
    assert h.tool_version == banner.group(1)
    vg_version = subprocess.run([valgrind(), "--version"], capture_output=True,
                                text=True).stdout.strip()
    assert "valgrind-" + h.valgrind_version == vg_version
    assert h.command == (prog, "1000")
    # Defaults.
    assert h.cost_metric == "bb"
    assert h.memory_resolution == 4
    assert h.syscall_input == "all"  # docs/manual.md: every system call is input
    # One thread; C routines have mangled == name; main ran once.
    assert list(r.threads) == [1] and r.threads[1].total_cost > 0
    for name in ("main", "run_sum", "sum_array"):
        rt = routine(r, name, prog)
        assert rt.mangled == name and rt.address > 0
        assert ar.activations(r, rt) == 1
    main = ar.totals(r, routine(r, "main", prog))
    assert 0 < main.cumulative_cost <= r.threads[1].total_cost


def test_options_are_recorded_in_the_header(tmp_path):
    run = run_tool(tmp_path, [program("sumarray"), "100"],
                   ["--memory-resolution=8", "--cost-metric=instructions", "--syscall-input=io"])
    h = run.report.header
    assert (h.memory_resolution, h.cost_metric, h.syscall_input) == (8, "instructions", "io")
    run = run_tool(tmp_path, [program("sumarray"), "100"],
                   ["--memory-resolution=16", "--syscall-input=all"])
    h = run.report.header
    assert (h.memory_resolution, h.cost_metric, h.syscall_input) == (16, "bb", "all")


def test_default_output_file_name(tmp_path):
    run = run_tool(tmp_path, [program("sumarray"), "100"], out_file=None)
    assert os.listdir(run.dir) == [f"aprof-trms.out.{run.pid}"], run.describe()
    r = ar.load(run.dir / f"aprof-trms.out.{run.pid}")
    assert r.header.pid == run.pid
    assert ar.consistency_problems(r) == []


def test_output_file_name_with_environment_variable(tmp_path):
    spec = Spec([program("sumarray"), "100"], env={"APROF_TEST_TAG": "tag-value"},
                out_file="r.%q{APROF_TEST_TAG}.%p")
    run = run_tools(tmp_path, [spec])[0]
    assert os.listdir(run.dir) == [f"r.tag-value.{run.pid}"], run.describe()
    assert ar.load(run.dir / f"r.tag-value.{run.pid}").header.pid == run.pid


def test_unwritable_output_path(tmp_path):
    path = "/nonexistent-dir/x"
    # Checked at start-up (docs/manual.md): Valgrind stops with status 1
    # before the program runs.
    run = run_tool(tmp_path, [program("sumarray"), "100"], [f"--aprof-out-file={path}"],
                   out_file=None, expect_status=1)
    assert path in run.stderr, run.describe()
    assert "count " not in run.stdout, "the program ran"


BAD_OPTIONS = ["--memory-resolution=3", "--memory-resolution=0", "--memory-resolution=32",
               "--memory-resolution=four", "--cost-metric=foo", "--cost-metric=",
               "--syscall-input=x", "--collect-atstart=maybe", "--trms=rms",
               "--overflow-threshold=abc",
               # Numbers are plain decimals: no suffix, sign, blank or leading zero.
               "--memory-resolution=4k", "--memory-resolution=4x", "--memory-resolution=1-",
               "--memory-resolution=+8", "--memory-resolution=08", "--memory-resolution= 4",
               "--memory-resolution=", "--memory-resolution=-4", "--overflow-threshold=100k",
               "--overflow-threshold=+100", "--overflow-threshold=0100",
               "--overflow-threshold= 100", "--overflow-threshold=63",
               "--overflow-threshold=2147483648", "--overflow-threshold=99999999999999999999"]


def test_bad_option_values(tmp_path):
    specs = [Spec([program("sumarray"), "100"], [opt], expect_status=None, out_file=None)
             for opt in BAD_OPTIONS]
    for opt, run in zip(BAD_OPTIONS, run_tools(tmp_path, specs)):
        name = opt.split("=")[0]
        assert run.returncode != 0, f"{opt} accepted\n{run.describe()}"
        assert name in run.stderr, f"{opt}: message does not name {name}\n{run.describe()}"
        assert "count " not in run.stdout, f"{opt}: the program ran\n{run.describe()}"
        assert os.listdir(run.dir) == [], f"{opt}: files written\n{run.describe()}"


def test_help_lists_the_options():
    out = subprocess.run([vg_in_place(), "--help"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for opt in OPTIONS:
        assert opt in out.stdout, f"{opt} missing from --help:\n{out.stdout}"
    debug = subprocess.run([vg_in_place(), "--help-debug"], capture_output=True, text=True)
    assert "--overflow-threshold" in out.stdout + debug.stdout
