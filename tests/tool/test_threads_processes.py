# SPDX-License-Identifier: GPL-2.0-or-later
"""Threads, fork, and programs that end abruptly (exit() deep in the stack,
exit() from another thread, fatal signals): the report must be complete."""
import os
import signal

import pytest

from aprof_trms import report as ar
from toolrun import Spec, check_counts, program, routine, run_tools


def test_64_threads(tmp_path):
    prog = program("threads")
    run = run_tools(tmp_path, [Spec([prog])])[0]
    r = run.report
    assert sorted(r.threads) == list(range(1, 66))
    assert len({t.tid for t in r.threads.values()}) == 65  # all alive together
    check_counts(run, r, {"worker": 2080, "exit_level1": 8, "exit_level2": 8,
                          "exit_level3": 8}, prog)
    assert ar.activations(r, routine(r, "main", prog)) == 1
    worker = routine(r, "worker", prog)
    per_thread = sorted(t.calls for (th, rid), t in r.totals.items() if rid == worker.id)
    assert per_thread == list(range(1, 65))
    assert (1, worker.id) not in r.totals
    # A static C++ function: demangled name with its parameters.
    thread_main = routine(r, "thread_main(void*)", prog)
    assert thread_main.mangled == "_ZL11thread_mainPv"
    assert ar.activations(r, thread_main) == 64


def test_fork_writes_one_report_per_process(tmp_path):
    prog = program("forking")
    run = run_tools(tmp_path, [Spec([prog], reports=2)])[0]
    by_pid = {rep.header.pid: rep for rep in run.reports}
    assert run.pid in by_pid, f"no report with the parent's pid {run.pid}"
    parent = by_pid.pop(run.pid)
    (child,) = by_pid.values()
    assert child.header.ppid == parent.header.pid
    assert child.header.command == parent.header.command == (prog,)
    expected = {"parent": {"parent_work": 7, "common_work": 3, "child_work": 0, "before_fork": 2},
                "child": {"parent_work": 0, "common_work": 5, "child_work": 11, "before_fork": 0}}
    for who, rep in (("parent", parent), ("child", child)):
        got = {name: sum(ar.activations(rep, rt) for rt in ar.routines_named(rep, name, prog))
               for name in expected[who]}
        assert got == expected[who], f"{who} report {rep.path}"


def test_fork_with_a_fixed_out_file_keeps_both_reports(tmp_path):
    """--aprof-out-file without %p: the child's report gets ".<its pid>"
    appended, which the log says, instead of replacing the parent's."""
    prog = program("forking")
    run = run_tools(tmp_path, [Spec([prog], out_file="fixed")])[0]
    names = sorted(os.listdir(run.dir))
    assert len(names) == 2 and names[0] == "fixed", run.describe()
    parent, child = (ar.load(run.dir / name) for name in names)
    assert parent.header.pid == run.pid and child.header.ppid == run.pid
    assert names[1] == f"fixed.{child.header.pid}"
    assert (f"--aprof-out-file has no %p: the report of the forked child {child.header.pid} "
            f"goes to {run.dir}/fixed.{child.header.pid}, not over its parent's") in run.stderr
    assert ar.activations(parent, routine(parent, "parent_work", prog)) == 7
    assert ar.activations(child, routine(child, "child_work", prog)) == 11


def test_trace_children_across_exec(tmp_path):
    """The image started by exec reports under the same pid, with its own
    command line; the image that called exec is not reported."""
    prog = program("forking")
    run = run_tools(tmp_path, [Spec([prog, "exec", "13"], ["--trace-children=yes"])])[0]
    r = run.report
    assert r.header.pid == run.pid
    assert r.header.command == (prog, "after-exec", "13")
    check_counts(run, r, {"child_work": 13}, prog)
    assert not ar.routines_named(r, "before_exec", prog)


def test_exit_from_deep_recursion(tmp_path):
    prog = program("exiting")
    run = run_tools(tmp_path, [Spec([prog, "deep", "10000"], expect_status=3)])[0]
    r = run.report
    check_counts(run, r, {"descend": 10001, "at_exit_handler": 1, "main": 1}, prog)
    descend = routine(r, "descend", prog)
    # The pending activations were closed at exit, nested in each other.
    assert ar.totals(r, descend).cumulative_cost == max(
        t.max_cost for t in ar.tuples(r, "trms", descend).values())


def test_exit_from_a_thread_while_others_run(tmp_path):
    prog = program("exiting")
    run = run_tools(tmp_path, [Spec([prog, "thread", "20"], expect_status=5)])[0]
    r = run.report
    assert sorted(r.threads) == [1, 2, 3, 4, 5]
    check_counts(run, r, {"deep_exit": 21, "busy_loop": 3, "at_exit_handler": 1, "main": 1}, prog)
    busy = routine(r, "busy_loop", prog)
    assert len([1 for (th, rid) in r.totals if rid == busy.id]) == 3  # one per thread


@pytest.mark.parametrize("kind,sig", [("abort", signal.SIGABRT), ("segv", signal.SIGSEGV)])
def test_fatal_signal(tmp_path, kind, sig):
    prog = program("exiting")
    run = run_tools(tmp_path, [Spec([prog, kind], expect_status=-sig)])[0]
    check_counts(run, run.report, {"crash_level1": 1, "crash_level2": 1, "crash_level3": 1,
                                   "main": 1}, prog)
    assert not [n for n in os.listdir(run.dir) if n.startswith("vgcore.")]
