# SPDX-License-Identifier: GPL-2.0-or-later
"""Round trip of the callgrind export (scripts/aprof_trms/callgrind_export.py):
a report exported and read back by callgrind_annotate (Valgrind's own reader)
gives the report's total cost, each routine's self cost and TRMS sum, the
inclusive cost of the call graph, and the exact call counts."""
import os
import re
import subprocess
import sys


from aprof_trms import report as ar
from callgrind_out import call_counts
from toolrun import SRCDIR, Spec, needs_program, program, routine, run_tools

EXPORT = str(SRCDIR / "scripts" / "callgrind-export.py")
_ROW = re.compile(r"^\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(\S.*)$")


def annotate(path, *options):
    """{function label: count} and the program total of the first event, as
    callgrind_annotate prints them (file:function [object])."""
    tool = needs_program("callgrind_annotate")
    # From /: callgrind_annotate shortens file names below its working directory.
    out = subprocess.run([tool, "--threshold=100", "--auto=no", "--show=BB", *options, os.path.abspath(path)],
                         check=True, capture_output=True, text=True, cwd="/").stdout
    rows, total = {}, None
    for line in out.splitlines():
        m = _ROW.match(line)
        if not m:
            continue
        value = int(m.group(1).replace(",", ""))
        label = m.group(2).strip()
        if label.startswith("PROGRAM TOTALS"):
            total = value
        else:
            rows[re.sub(r"\s*\(inclusive\)$|\s*\(self\)$", "", label)] = value
    return rows, total


def label_of(report, rt):
    return f"{rt.file}:{rt.name} [{rt.object}]"


def export(report_path, out):
    subprocess.run([sys.executable, EXPORT, str(report_path), "-o", str(out)], check=True)


def test_export_round_trip_through_callgrind_annotate(tmp_path):
    prog = program("callers")
    run = run_tools(tmp_path, [Spec([prog, "3", "5", "100"])])[0]
    r = run.report
    out = tmp_path / "callgrind.out"
    export(r.path, out)

    self_rows, total = annotate(out, "--inclusive=no")
    assert total == sum(t.total_cost for t in r.threads.values())
    # The functions' self costs add up to it ("(no routine)" included).
    assert sum(self_rows.values()) == total
    for name in ("sum_prefix", "caller_a", "caller_c", "main"):
        rt = routine(r, name, prog)
        assert self_rows[label_of(r, rt)] == ar.totals(r, rt).self_cost, name

    # TRMS sums: sum_prefix reads 100 table cells (and its own stack) in each
    # of its 8 activations.
    trms_rows, _ = annotate(out, "--inclusive=no", "--show=TRMS", "--sort=TRMS")
    prefix = routine(r, "sum_prefix", prog)
    assert trms_rows[label_of(r, prefix)] == sum(
        size * t.calls for size, t in ar.tuples(r, "trms", prefix).items())
    assert trms_rows[label_of(r, prefix)] >= 8 * 100

    # Inclusive costs come from the call records: for routines that are not
    # recursive, the report's cumulative cost.
    inclusive, _ = annotate(out, "--inclusive=yes")
    for name in ("sum_prefix", "caller_a", "caller_c"):
        rt = routine(r, name, prog)
        assert inclusive[label_of(r, rt)] == ar.totals(r, rt).cumulative_cost, name

    counts = call_counts(str(out))
    assert counts[("sum_prefix", prog)] == 8
    assert counts[("caller_a", prog)] == 1


def test_cost_outside_recorded_routines_keeps_the_total(tmp_path):
    # main and what completes after the stop request are not recorded: their
    # self cost goes to "(no routine)".
    r = run_tools(tmp_path, [Spec([program("collect")])])[0].report
    out = tmp_path / "collect.out"
    export(r.path, out)
    rows, total = annotate(out, "--inclusive=no")
    assert total == sum(t.total_cost for t in r.threads.values())
    assert rows["???:(no routine) [???]"] > 0
    assert sum(rows.values()) == total


def test_export_of_one_thread_and_errors(tmp_path):
    prog = program("threads")
    run = run_tools(tmp_path, [Spec([prog])])[0]
    r = run.report
    assert len(r.threads) >= 3
    out = tmp_path / "t2.out"
    subprocess.run([sys.executable, EXPORT, str(r.path), "-o", str(out), "--thread", "2"],
                   check=True)
    _, total = annotate(out, "--inclusive=no")
    assert total == r.threads[2].total_cost
    bad = subprocess.run([sys.executable, EXPORT, str(r.path), "-o", str(tmp_path / "x"),
                          "--thread", "99"], capture_output=True, text=True)
    assert bad.returncode == 1 and "no thread 99" in bad.stderr
    assert not os.path.exists(tmp_path / "x")
    assert [p for p in os.listdir(tmp_path) if p.startswith(".callgrind-export")] == []
