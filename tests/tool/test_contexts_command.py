# SPDX-License-Identifier: GPL-2.0-or-later
"""The contexts command (scripts/contexts.py) on a real report: the test
program's work(n, passes) called by linear_caller (one pass: cost ~n) and
by quadratic_caller (n passes: cost ~n^2), profiled with
--collect-context=yes, gets two contexts, the quadratic one first, fitted
n^2 and n; the flat view's --tree lists both callers with their exact
call counts."""
import subprocess
import sys

from toolrun import SRCDIR, Spec, program, run_tools

CONTEXTS = str(SRCDIR / "scripts" / "contexts.py")
ANNOTATE = str(SRCDIR / "scripts" / "annotate.py")
NS = [16, 24, 32, 48, 64, 96, 128, 192, 256]   # enough sizes for confident fits


def run_script(script, *args):
    proc = subprocess.run([sys.executable, script, *map(str, args)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout


def test_two_callers_two_fits_quadratic_first(tmp_path):
    prog = program("contexts")
    run, = run_tools(tmp_path, [Spec([prog, "callers"] + [str(n) for n in NS],
                                     ["--collect-context=yes"])])
    out = run_script(CONTEXTS, run.report.path, "-r", "work", "--width", "160")
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["#", "share%"])
    rows = [line.split() for line in lines[head + 1:head + 3]]
    # Columns: #, share%, at scale%, trust, calls, sizes, fit, R^2, context.
    assert [row[-1] for row in rows] == ["work", "work"]
    assert [row[-3] for row in rows] == ["quadratic_caller", "linear_caller"]
    assert [row[6] for row in rows] == ["n^2", "n"], out
    assert [row[3] for row in rows] == ["ok", "ok"], out
    assert [int(row[4]) for row in rows] == [len(NS), len(NS)]
    assert [int(row[5]) for row in rows] == [len(NS), len(NS)]
    assert float(rows[0][1]) > float(rows[1][1])    # the quadratic one also costs more
    # The flat view: work's callers, one call per size each.
    tree = run_script(ANNOTATE, run.report.path, "--tree=caller", "-r", "work", "--width", "160")
    callers = {line.split()[-2]: line.split()[3] for line in tree.splitlines()
               if line.lstrip().startswith("<")}
    assert callers == {"linear_caller": f"{len(NS)}x", "quadratic_caller": f"{len(NS)}x"}
