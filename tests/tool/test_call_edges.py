# SPDX-License-Identifier: GPL-2.0-or-later
"""Caller-to-callee edges (the report's call records): exact call counts for
one routine called from two callers, recursion, and the cases where the
shadow stack is unwound without returns (C++ exceptions, longjmp, signal
handlers, siglongjmp), which must not leave bogus callers behind."""
from aprof_trms import report as ar
from toolrun import Spec, check_counts, program, routine, run_tools


def callers_of(report, rt):
    """{caller name: calls} of the routine, over threads."""
    callers, _ = ar.callers_and_callees(report, rt)
    return {report.routines[e.caller].name: e.calls for e in callers}


def callees_of(report, rt):
    _, callees = ar.callers_and_callees(report, rt)
    return {report.routines[e.callee].name: e.calls for e in callees}


def test_one_callee_two_callers(tmp_path):
    prog = program("callers")
    run = run_tools(tmp_path, [Spec([prog, "3", "5", "100"])])[0]
    r = run.report
    check_counts(run, r, {"caller_a": 1, "caller_c": 1, "sum_prefix": 8}, prog)
    callee = routine(r, "sum_prefix", prog)
    assert callers_of(r, callee) == {"caller_a": 3, "caller_c": 5}
    assert callees_of(r, routine(r, "caller_a", prog)) == {"sum_prefix": 3}
    assert callees_of(r, routine(r, "caller_c", prog)) == {"sum_prefix": 5}
    assert callers_of(r, routine(r, "caller_a", prog)) == {"main": 1}
    # sum_prefix calls nothing: its cost is all its own, and each edge's
    # inclusive cost is the cost of the activations it counts.
    callers, _ = ar.callers_and_callees(r, callee)
    assert sum(e.inclusive_cost for e in callers) == ar.totals(r, callee).self_cost
    by_caller = {r.routines[e.caller].name: e.inclusive_cost for e in callers}
    assert by_caller["caller_c"] > by_caller["caller_a"]


def test_recursion_edges(tmp_path):
    prog = program("recursion")
    direct, mutual = run_tools(tmp_path, [Spec([prog, "direct", "1000"]),
                                          Spec([prog, "mutual", "1001"])])
    r = direct.report
    rec = routine(r, "rec", prog)
    assert callers_of(r, rec) == {"main": 1, "rec": 1000}
    rr = r.calls[next(k for k in r.calls if k[1:] == (rec.id, rec.id))]
    # Every nested activation counts: more than the outermost one's cost.
    assert rr.inclusive_cost > ar.totals(r, rec).cumulative_cost
    r = mutual.report
    assert callers_of(r, routine(r, "is_odd", prog)) == {"is_even": 501}
    assert callers_of(r, routine(r, "is_even", prog)) == {"main": 1, "is_odd": 500}


def test_exceptions_and_longjmp_leave_no_bogus_caller(tmp_path):
    exc, jmp = program("exceptions"), program("longjmp")
    e, j = run_tools(tmp_path, [Spec([exc, "200"]), Spec([jmp, "20", "10"])])
    r = e.report
    chain = ["catch_one", "level1", "level2", "level3"]
    for caller, callee in zip(chain, chain[1:]):
        assert callers_of(r, routine(r, callee, exc)) == {caller: 200}
    raise_error = routine(r, "aprof_test::Thrower::raise_error(int)", exc)
    assert callers_of(r, raise_error) == {"level3": 200}
    # after_catch runs in catch_one's handler, once the frames are unwound
    # (GCC may place the handler in a cold part, catch_one.cold: a routine).
    after = callers_of(r, routine(r, "after_catch", exc))
    assert set(after) <= {"catch_one", "catch_one.cold"} and sum(after.values()) == 200, after
    r = j.report
    assert callers_of(r, routine(r, "recurse", jmp)) == {"jump_loop": 10, "recurse": 190}
    assert callers_of(r, routine(r, "after_jump", jmp)) == {"jump_loop": 10}


def test_signal_handlers_edges(tmp_path):
    prog = program("signals")
    plain, jump = run_tools(tmp_path, [Spec([prog, "raise", "50"]),
                                       Spec([prog, "siglongjmp", "50"])])
    r = plain.report
    # The handler's caller is the routine it interrupted (where the signal
    # arrived, in the kernel's return path of raise or kill); it is called
    # once per signal, and what runs after it is not its callee.
    handler = routine(r, "on_signal", prog)
    assert sum(callers_of(r, handler).values()) == 50
    assert callees_of(r, handler) == {"handler_work": 50}
    assert callers_of(r, routine(r, "after_signal", prog)) == {"signal_loop": 50}
    r = jump.report
    chain = ["siglongjmp_loop", "victim1", "victim2", "victim3"]
    for caller, callee in zip(chain, chain[1:]):
        assert callers_of(r, routine(r, callee, prog)) == {caller: 50}
    assert sum(callers_of(r, routine(r, "jumping_handler", prog)).values()) == 50
    assert callers_of(r, routine(r, "after_siglongjmp", prog)) == {"siglongjmp_loop": 50}


def test_edges_per_thread(tmp_path):
    prog = program("threads")
    r = run_tools(tmp_path, [Spec([prog])])[0].report
    worker = routine(r, "worker", prog)
    per_thread = []
    for serial in r.threads:
        callers, _ = ar.callers_and_callees(r, worker, thread=serial)
        if callers:
            assert [r.routines[e.caller].name for e in callers] == ["thread_main(void*)"]
            per_thread.append(callers[0].calls)
    # Thread i (0..63) calls worker i + 1 times.
    assert sorted(per_thread) == list(range(1, 65))
    # pthread_exit from three calls deep: the frames complete at thread exit,
    # each called by the one below it.
    assert callers_of(r, routine(r, "exit_level2", prog)) == {"exit_level1": 8}
    assert callers_of(r, routine(r, "exit_level3", prog)) == {"exit_level2": 8}
