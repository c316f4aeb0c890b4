# SPDX-License-Identifier: GPL-2.0-or-later
"""Call/return detection: exact activation counts for recursion, tail calls,
indirect calls, the PLT, C++ exceptions and longjmp
(shared/notes/call-return-detection.md, "Cases the tests must cover")."""
from aprof_trms import report as ar
from toolrun import Spec, check_counts, not_nested, program, routine, run_tools


def single_outermost(report, rt):
    """A recursion entered once: the cumulative cost of outermost activations
    is the cost of the one outermost activation, the most expensive one."""
    return ar.totals(report, rt).cumulative_cost == max(
        t.max_cost for t in ar.tuples(report, "trms", rt).values())


def test_recursion(tmp_path):
    prog = program("recursion")
    direct, mutual, odd, tree = run_tools(tmp_path, [
        Spec([prog, "direct", "100000"]), Spec([prog, "mutual", "100000"]),
        Spec([prog, "mutual", "1001"]), Spec([prog, "tree", "10"])])
    r = direct.report
    check_counts(direct, r, {"rec": 100001}, prog)
    assert single_outermost(r, routine(r, "rec", prog))
    assert not not_nested(r, routine(r, "rec", prog))
    r = mutual.report
    check_counts(mutual, r, {"is_even": 50001, "is_odd": 50000}, prog)
    assert single_outermost(r, routine(r, "is_even", prog))
    assert single_outermost(r, routine(r, "is_odd", prog))
    check_counts(odd, odd.report, {"is_even": 501, "is_odd": 501}, prog)
    check_counts(tree, tree.report, {"walk": 2047}, prog)
    assert single_outermost(tree.report, routine(tree.report, "walk", prog))


def test_tail_calls(tmp_path):
    prog = program("tailcall")
    compiled, asm, mutual = run_tools(tmp_path, [
        Spec([prog, "compiled", "1000", "500"]), Spec([prog, "asm", "1000", "500"]),
        Spec([prog, "asm-mutual", "100000"])])
    check_counts(compiled, compiled.report, {"tc_f": 1000, "tc_g": 1500}, prog)
    check_counts(asm, asm.report, {"asm_f": 1000, "asm_g": 1500}, prog)
    # 100001 activations entered by jumps, all at the same stack pointer.
    check_counts(mutual, mutual.report, {"asm_even": 50001, "asm_odd": 50000}, prog)


def test_function_pointers_and_plt(tmp_path):
    prog = program("calls")
    fnptr, plt = run_tools(tmp_path, [Spec([prog, "fnptr", "1000"]), Spec([prog, "plt", "777"])])
    check_counts(fnptr, fnptr.report, {"call_ops": 1, "op_add": 1000, "op_sub": 1000,
                                       "op_mul": 1000}, prog)
    r = plt.report
    check_counts(plt, r, {"call_abs_loop": 1}, prog)
    # abs is in libc, reached through the PLT (lazily resolved the first time).
    abs_rt = routine(r, "abs", "libc.so.6")
    assert ar.activations(r, abs_rt) == 777
    loop = ar.totals(r, routine(r, "call_abs_loop", prog))
    assert loop.cumulative_cost >= ar.totals(r, abs_rt).cumulative_cost


def test_exceptions(tmp_path):
    prog = program("exceptions")
    run = run_tools(tmp_path, [Spec([prog, "1000"])])[0]
    r = run.report
    names = ["catch_one", "level1", "level2", "level3",
             "aprof_test::Thrower::raise_error(int)", "after_catch"]
    check_counts(run, r, {name: 1000 for name in names}, prog)
    thrower = routine(r, "aprof_test::Thrower::raise_error(int)", prog)
    assert thrower.mangled == "_ZN10aprof_test7Thrower11raise_errorEi"
    # Frames left by the unwinder are closed at the catch: no activation of
    # these routines runs inside an earlier one.
    for name in names:
        assert not_nested(r, routine(r, name, prog)), f"{name} activations nested"
    catch_one = ar.totals(r, routine(r, "catch_one", prog))
    children = sum(ar.totals(r, routine(r, n, prog)).cumulative_cost
                   for n in ("level1", "after_catch"))
    assert catch_one.cumulative_cost >= children


def test_longjmp_out_of_recursion(tmp_path):
    prog = program("longjmp")
    shallow, deep = run_tools(tmp_path, [Spec([prog, "50", "100"]), Spec([prog, "100000", "2"])])
    r = shallow.report
    check_counts(shallow, r, {"jump_loop": 1, "recurse": 5000, "after_jump": 100}, prog)
    loop, rec, after = (ar.totals(r, routine(r, n, prog))
                        for n in ("jump_loop", "recurse", "after_jump"))
    # after_jump runs in jump_loop, not inside abandoned recurse frames.
    assert rec.cumulative_cost < after.cumulative_cost
    assert loop.cumulative_cost >= rec.cumulative_cost + after.cumulative_cost
    assert not_nested(r, routine(r, "after_jump", prog))
    check_counts(deep, deep.report, {"jump_loop": 1, "recurse": 200000, "after_jump": 2}, prog)


def test_no_activation_starts_where_unwinding_lands(tmp_path):
    """longjmp and exception unwinding jump from libc or libgcc_s into code
    that is already active: a jump across objects, but not a call. Were it
    taken for one, the landing sites would show up as routines named
    "function+offset" (these programs make no call into a function's middle)."""
    runs = run_tools(tmp_path, [Spec([program("longjmp"), "50", "100"]),
                                Spec([program("exceptions"), "1000"]),
                                Spec([program("signals"), "siglongjmp", "20"])])
    for run in runs:
        mid_function = [r.name for r in run.report.routines.values()
                        if "+" in r.name and not r.name.startswith("0x")]  # not 0x…@libstdc++
        assert not mid_function, f"{run.describe()}: activations started mid-function: {mid_function}"
