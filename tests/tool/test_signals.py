# SPDX-License-Identifier: GPL-2.0-or-later
"""Signal handlers: plain, on an alternate stack (below and above the
interrupted stack), and leaving by siglongjmp."""
import pytest

from aprof_trms import report as ar
from toolrun import Spec, check_counts, not_nested, program, routine, run_tools

K = 50


@pytest.mark.parametrize("mode", ["raise", "altstack", "altstack-thread"])
def test_signal_handler(tmp_path, mode):
    prog = program("signals")
    run = run_tools(tmp_path, [Spec([prog, mode, str(K)])])[0]
    r = run.report
    check_counts(run, r, {"signal_loop": 1, "on_signal": K, "handler_work": K,
                          "after_signal": K}, prog)
    # signal_loop stays open across the K signals: its cost covers its callees.
    loop = ar.totals(r, routine(r, "signal_loop", prog))
    after = ar.totals(r, routine(r, "after_signal", prog))
    assert loop.cumulative_cost >= after.cumulative_cost
    for name in ("on_signal", "handler_work", "after_signal"):
        assert not_nested(r, routine(r, name, prog)), f"{name} activations nested"
    thread = 2 if mode == "altstack-thread" else 1
    assert len(r.threads) == thread
    rt = routine(r, "on_signal", prog)
    assert {th for (th, rid) in r.totals if rid == rt.id} == {thread}


def test_handler_leaving_by_siglongjmp(tmp_path):
    prog = program("signals")
    run = run_tools(tmp_path, [Spec([prog, "siglongjmp", str(K)])])[0]
    r = run.report
    names = ["victim1", "victim2", "victim3", "jumping_handler", "after_siglongjmp"]
    expected = {name: K for name in names}
    expected["siglongjmp_loop"] = 1
    check_counts(run, r, expected, prog)
    for name in names:
        assert not_nested(r, routine(r, name, prog)), f"{name} activations nested"
    loop, victim, after = (ar.totals(r, routine(r, n, prog))
                           for n in ("siglongjmp_loop", "victim1", "after_siglongjmp"))
    assert loop.cumulative_cost >= victim.cumulative_cost + after.cumulative_cost
