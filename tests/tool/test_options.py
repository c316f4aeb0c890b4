# SPDX-License-Identifier: GPL-2.0-or-later
"""--skip-routine, --collect-atstart with client requests, --cost-metric and
--overflow-threshold."""
import os
import re
import select
import signal
import subprocess

from aprof_trms import report as ar
from toolrun import RUN_TIMEOUT, Spec, program, routine, run_tools, tuple_of, vg_in_place

N1, N2 = 1000, 3000


def test_skip_routine_is_transparent(tmp_path):
    prog = program("sumarray")
    plain, skip1, skip2, glob, both = run_tools(tmp_path, [
        Spec([prog, str(N2)]),
        Spec([prog, str(N1)], ["--skip-routine=sum_array"]),
        Spec([prog, str(N2)], ["--skip-routine=sum_array"]),
        Spec([prog, str(N2)], ["--skip-routine=sum_*"]),
        Spec([prog, str(N2)], ["--skip-routine=sum_array", "--skip-routine=run_sum"]),
    ])
    p = plain.report
    sum_array = ar.totals(p, routine(p, "sum_array", prog))
    run_sum = ar.totals(p, routine(p, "run_sum", prog))
    main_cost = ar.totals(p, routine(p, "main", prog)).cumulative_cost
    for run in (skip1, skip2, glob, both):
        assert ar.routines_named(run.report, "sum_array") == [], run.describe()
    assert ar.routines_named(both.report, "run_sum") == []
    for run in (skip2, glob):
        r = run.report
        rs = ar.totals(r, routine(r, "run_sum", prog))
        assert rs.calls == 1
        # The skipped routine's cost is the caller's own cost now.
        assert rs.self_cost == run_sum.self_cost + sum_array.cumulative_cost
        assert rs.cumulative_cost == run_sum.cumulative_cost
    for run in (skip2, glob, both):
        r = run.report
        assert ar.totals(r, routine(r, "main", prog)).cumulative_cost == main_cost
        assert r.threads[1].total_cost == p.threads[1].total_cost
    # Its input counts for the caller: run_sum reads the whole array itself.
    rms = [tuple_of(run.report, "rms", routine(run.report, "run_sum", prog)).size
           for run in (skip1, skip2)]
    assert rms[1] - rms[0] == N2 - N1


# Names where a backtracking glob matcher (Valgrind's VG_(string_match), used
# before) hangs or asserts: '*a*b*c*z' against 20,000 bytes of "abc" without
# a z took over 10 minutes, SIGTERM ignored meanwhile; a name of a million
# bytes failed its assertion nInput < 1000000. The skipped routine is called
# by the kept one; "forever" makes the program then call the kept one until
# a signal ends it, after printing "ready".
SKIPPED = "skip_" + "abc" * 333334 + "z"
KEPT = "keep_" + "abc" * 6667 + "y"
LONG_NAMES_SOURCE = f"""#include <stdio.h>
#include <string.h>
__attribute__((noinline)) void {SKIPPED}(volatile long* x) {{ *x += 1; }}
__attribute__((noinline)) void {KEPT}(volatile long* x) {{ {SKIPPED}(x); *x += 2; }}
int main(int argc, char** argv) {{
  volatile long x = 0;
  for (int i = 0; i < 3; i++) {KEPT}(&x);
  printf("ready %ld\\n", x);
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "forever") == 0)
    for (;;) {KEPT}(&x);
  return 0;
}}
"""
PATHOLOGICAL_PATTERN = "--skip-routine=*a*b*c*z"


def _long_names_program(tmp_path):
    source = tmp_path / "longnames.c"
    source.write_text(LONG_NAMES_SOURCE)
    exe = tmp_path / "longnames"
    subprocess.run(["cc", "-O1", "-o", str(exe), str(source)], check=True)
    return str(exe)


def test_skip_routine_on_very_long_names(tmp_path):
    """No time limit of its own (no timed tests): a backtracking matcher
    makes the run exceed the harness's timeout."""
    exe = _long_names_program(tmp_path)
    run = run_tools(tmp_path, [Spec([exe], [PATHOLOGICAL_PATTERN])])[0]
    assert run.stdout == "ready 9\n", run.describe()
    r = run.report
    assert ar.routines_named(r, SKIPPED) == []
    kept = routine(r, KEPT, exe)
    assert ar.activations(r, kept) == 3


def test_sigterm_early_in_a_run_writes_the_report(tmp_path):
    """SIGTERM once the program has instrumented and run the routines with
    the long names: the run ends with the signal and a whole report."""
    exe = _long_names_program(tmp_path)
    argv = [vg_in_place(), f"--aprof-out-file={tmp_path}/r", PATHOLOGICAL_PATTERN, exe, "forever"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], RUN_TIMEOUT)
        assert ready and proc.stdout.readline() == b"ready 9\n", "the program did not start"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == -signal.SIGTERM, err.decode(errors="replace")
    r = ar.load(tmp_path / "r")
    assert ar.routines_named(r, SKIPPED) == []
    assert ar.activations(r, routine(r, KEPT, exe)) >= 3


def test_collection_control_with_client_requests(tmp_path):
    prog = program("collect")
    atstart, late = run_tools(tmp_path, [Spec([prog]), Spec([prog], ["--collect-atstart=no"])])
    a, b = atstart.report, late.report
    assert ar.activations(a, routine(a, "before", prog)) == 5
    assert ar.routines_named(b, "before", prog) == []
    for r in (a, b):
        assert ar.activations(r, routine(r, "inside", prog)) == 7
        assert ar.routines_named(r, "after", prog) == []
        # main completes after the stop request: no activation recorded, but
        # it is the caller of the recorded inside() calls (a call record).
        main = routine(r, "main", prog)
        assert ar.activations(r, main) == 0
        callers, _ = ar.callers_and_callees(r, routine(r, "inside", prog))
        assert [(e.caller, e.calls) for e in callers] == [(main.id, 7)]
    # Memory is tracked while collection is off: inside() has the same
    # input sizes and costs either way, and reads the 64 ints of the table.
    for metric in ("rms", "trms"):
        ta = tuple_of(a, metric, routine(a, "inside", prog))
        tb = tuple_of(b, metric, routine(b, "inside", prog))
        assert ta == tb
        assert ta.calls == 7 and ta.size >= 64


def test_cost_metric_instructions(tmp_path):
    prog = program("sumarray")
    bb1, bb2, in1, in2 = run_tools(tmp_path, [
        Spec([prog, str(N1)]), Spec([prog, str(N2)]),
        Spec([prog, str(N1)], ["--cost-metric=instructions"]),
        Spec([prog, str(N2)], ["--cost-metric=instructions"]),
    ])
    def cost(run):
        r = run.report
        return ar.totals(r, routine(r, "sum_array", prog)).cumulative_cost
    assert in1.report.header.cost_metric == "instructions"
    # At least one basic block per element; the loop body has several instructions.
    bb_growth, in_growth = cost(bb2) - cost(bb1), cost(in2) - cost(in1)
    assert N2 - N1 <= bb_growth <= 4 * (N2 - N1)
    assert in_growth >= 2 * bb_growth
    assert cost(in1) > cost(bb1)
    # Input sizes do not depend on the cost metric.
    for a, b in ((bb1, in1), (bb2, in2)):
        for metric in ("rms", "trms"):
            sa = tuple_of(a.report, metric, routine(a.report, "sum_array", prog)).size
            sb = tuple_of(b.report, metric, routine(b.report, "sum_array", prog)).size
            assert sa == sb


def _profile(report):
    """Everything a report says, keyed by routine identity instead of ids."""
    ident = {rid: (os.path.basename(rt.object), rt.address, rt.name)
             for rid, rt in report.routines.items()}
    data = {"threads": sorted((t.serial, t.total_cost) for t in report.threads.values())}
    data["totals"] = sorted((th, ident[rid], t.calls, t.self_cost, t.cumulative_cost)
                            for (th, rid), t in report.totals.items())
    for metric in ("trms", "rms"):
        data[metric] = sorted((th, ident[rid], size, t.calls, t.min_cost, t.max_cost, t.sum_cost,
                               t.sum_sq_cost, t.sum_self_cost, t.sum_thread_induced, t.sum_external)
                              for (th, rid, size), t in report.metric(metric).items())
    return data


def test_timestamp_renumbering_changes_nothing(tmp_path):
    """A run that renumbers timestamps often gives the same profile as a run
    that never does. The programs are single-threaded, hence deterministic
    for a given input, and the input includes the environment: both runs of
    a pair work in one directory, as their PWD differed in length otherwise
    (run9, run10), and with it the input sizes of the dynamic loader's
    routines that read the environment."""
    cases = [[program("recursion"), "tree", "12"], [program("sumarray"), "2000"],
             [program("recursion"), "mutual", "300"]]
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    specs = []
    for argv in cases:
        specs += [Spec(argv, cwd=workdir),
                  Spec(argv, ["-v", "--overflow-threshold=1000"], cwd=workdir)]
    runs = run_tools(tmp_path, specs)
    for i in range(0, len(runs), 2):
        # -v makes the tool print its statistics: renumbering did happen.
        m = re.search(r"aprof-trms: (\d+) renumberings", runs[i + 1].stderr)
        assert m and int(m.group(1)) > 0, runs[i + 1].describe()
        plain, renumbered = _profile(runs[i].report), _profile(runs[i + 1].report)
        for key in plain:
            assert plain[key] == renumbered[key], f"{key} differ for {runs[i].argv[-3:]}"
