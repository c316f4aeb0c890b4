# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of where growth comes from (aprof_trms/carriers.py) and of the
# ranking's use of it (rank.py): a routine whose growth is carried by a
# callee comes after the routines where growth comes from.
#
# Copyright (C) 2026, the aprof-trms authors.
"""On a key-value server the event loop, the request reader and the
dispatcher ranked above the routine that does the growing work; on an
interpreter, the interpreter loop above the sort."""
import math
import os

import pytest

import synthetic
from aprof_trms import carriers, profile, rank, ranking

OBJ = "/usr/bin/server"


def routine(name, cost):
    return profile.RoutineProfile((OBJ, name), name, name, OBJ, calls=10, self_cost=cost // 10,
                                  cumulative_cost=cost)


def server(edges, costs):
    routines = {(OBJ, name): routine(name, cost) for name, cost in costs.items()}
    calls = {((OBJ, a), (OBJ, b)): profile.EdgeTotals(5, cost) for (a, b), cost in edges.items()}
    return profile.Profile([], [], "bb", 4, True, "all", max(costs.values()), routines, calls=calls)


GROWTH = {"loop": 1.0, "dispatch": 1.1, "reply": 1.0, "compare": 0.0, "sort": 1.1,
          "side": 1.0}


def growth_of(r):
    return GROWTH.get(r.name)


def test_a_chain_of_carriers_leads_to_the_source():
    p = server({("loop", "dispatch"): 900, ("dispatch", "reply"): 800, ("dispatch", "side"): 50},
               {"loop": 1000, "dispatch": 900, "reply": 800, "side": 50})
    r = p.routines
    assert carriers.carrier_of(p, r[(OBJ, "loop")], growth_of) is r[(OBJ, "dispatch")]
    assert carriers.source_of(p, r[(OBJ, "loop")], growth_of) is r[(OBJ, "reply")]
    assert carriers.source_of(p, r[(OBJ, "reply")], growth_of) is None


def test_a_callee_that_does_not_grow_or_holds_little_carries_nothing():
    # A sort spends most of its cost in calls of a comparison whose own
    # cost does not grow: the growth is the sort's.
    p = server({("sort", "compare"): 700, ("loop", "side"): 400},
               {"sort": 1000, "compare": 700, "loop": 1000, "side": 400})
    r = p.routines
    assert carriers.carrier_of(p, r[(OBJ, "sort")], growth_of) is None
    # Below CARRIED_SHARE of the caller's cost: not its carrier.
    assert carriers.carrier_of(p, r[(OBJ, "loop")], growth_of) is None


def test_recursion_and_cycles_end():
    p = server({("loop", "loop"): 900, ("loop", "dispatch"): 900, ("dispatch", "loop"): 900},
               {"loop": 1000, "dispatch": 950})
    assert carriers.source_of(p, p.routines[(OBJ, "loop")], growth_of) is p.routines[(OBJ, "dispatch")]


def test_rank_puts_the_source_before_its_carriers(tmp_path):
    """The loop's cost is its callee's plus a little: both grow alike, the
    loop has the larger share and would come first; the callee carries it."""
    sizes = synthetic.sizes(16)
    path = synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("loop", lambda n: 1.05 * (40 * n + 100), sizes),
        synthetic.Routine("work", lambda n: 40 * n + 100, sizes, caller="loop"),
        synthetic.Routine("other", lambda n: 3 * n * n, sizes),
    ])
    p = profile.load_profile([path])
    rows = ranking.rank_routines(p, list(p.routines.values()))
    names = [row.routine.name for row in rows]
    assert names.index("work") < names.index("loop"), names
    loop = rows[names.index("loop")]
    assert loop.source is not None and loop.source.name == "work"
    assert "carried by its callee work" in loop.reason
    assert rows[names.index("work")].source is None
    csv_path = os.path.join(tmp_path, "r.csv")
    with open(csv_path, "w") as out:
        rank.write_csv(out, "trms", rows, False)
    with open(csv_path) as f:
        assert ",work," in f.read().split("\n")[names.index("loop") + 1]


def test_plot_draws_the_source_not_its_carrier(tmp_path):
    """plot.py's default pictures follow rank.py's order: with --top 1 the
    routine that does the growing work, not the loop with the larger share."""
    import subprocess
    import sys
    sizes = synthetic.sizes(16)
    path = synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("loop", lambda n: 1.05 * (40 * n + 100), sizes),
        synthetic.Routine("work", lambda n: 40 * n + 100, sizes, caller="loop"),
    ])
    out = tmp_path / "plots"
    proc = subprocess.run([sys.executable, os.path.join(synthetic.SCRIPTS, "plot.py"), "--top", "1",
                           str(path), "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out)) == [".plot-files", "summary.txt", "work-cost.png",
                                      "work-workload.png"]
    assert "1 after the first 1 in rank.py's order" in proc.stderr


def test_a_callee_called_once_per_activation_with_the_cost_carries_whatever_the_fits():
    """sqlite3's shell runs each statement with one call, and 99.5% of its
    cost is in it; its sizes hold the shell's own state as well, so the
    join's quadratic reads n^3 in the shell's sizes and n^2 in the callee's:
    the callee still carries it. A callee called more than once per
    activation is held to the growth comparison (a loop of n calls of a
    linear routine is itself quadratic), and so is one below
    SINGLE_CALL_SHARE of the caller's cost, and so is a caller whose own
    fit is confident (evidence that the two grow apart)."""
    def growth(r):
        return {"shell": 3.0, "statement": 2.0}[r.name]

    def shell(calls_per_activation, statement_cost):
        routines = {(OBJ, "shell"): profile.RoutineProfile((OBJ, "shell"), "shell", "shell", OBJ,
                                                           calls=21, self_cost=100,
                                                           cumulative_cost=1000),
                    (OBJ, "statement"): routine("statement", statement_cost)}
        edge = profile.EdgeTotals(21 * calls_per_activation, statement_cost)
        return profile.Profile([], [], "bb", 4, True, "all", 1000, routines,
                               calls={((OBJ, "shell"), (OBJ, "statement")): edge})

    p = shell(1, 995)
    assert carriers.carrier_of(p, p.routines[(OBJ, "shell")], growth) is p.routines[(OBJ, "statement")]
    p = shell(2, 995)
    assert carriers.carrier_of(p, p.routines[(OBJ, "shell")], growth) is None
    p = shell(1, int(1000 * carriers.SINGLE_CALL_SHARE) - 1)
    assert carriers.carrier_of(p, p.routines[(OBJ, "shell")], growth) is None
    p = shell(1, 995)
    shell_routine = p.routines[(OBJ, "shell")]

    def confident(r):
        return r is shell_routine
    assert carriers.carrier_of(p, shell_routine, growth, confident) is None
    assert carriers.source_of(p, shell_routine, growth, None, confident) is None
    assert carriers.source_of(p, shell_routine, growth) is p.routines[(OBJ, "statement")]


@pytest.mark.parametrize("count", [7, 12])
def test_rank_carries_a_single_call_by_the_callee_unless_the_caller_fit_is_confident(tmp_path, count):
    """The shell runs each statement with one call; its sizes are the
    square root of the statement's (times 10), so it fits n^2 where the
    statement fits n. With 7 sizes the shell's fit is inconclusive and
    the statement carries it; with 12 it is confident, and stays a
    source of its own."""
    statement_sizes = synthetic.sizes(count, 64)
    path = synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("shell", lambda t: 1.05 * (40 * (t / 10) ** 2 + 100),
                          [int(10 * math.sqrt(s)) for s in statement_sizes]),
        synthetic.Routine("statement", lambda n: 40 * n + 100, statement_sizes, caller="shell"),
    ])
    p = profile.load_profile([path])
    rows = {row.routine.name: row for row in ranking.rank_routines(p, list(p.routines.values()))}
    shell = rows["shell"]
    assert shell.growth - rows["statement"].growth > 0.5
    assert shell.conclusive == (count >= 8)
    assert (shell.source is None) == shell.conclusive, shell.reason


def _point(size, cost, self_cost):
    return profile.Point(size, 1, cost, cost, cost, cost * cost, self_cost, 0, 0)


def _driver(self_per_activation, recursive=False):
    """brotli's main: one activation per file, reading it in chunks and
    handing each to the encoder (17 calls in 10 activations, so not the
    single call); its inclusive cost grows with the file (n), the
    encoder's per call saturates at the chunk (log n): the growth
    comparison does not carry it."""
    sizes = synthetic.sizes(10, 6000, 1.65)
    costs = [100 * n for n in sizes]
    driver = profile.RoutineProfile((OBJ, "driver"), "driver", "driver", OBJ, calls=10,
                                    self_cost=sum(self_per_activation(n) for n in sizes),
                                    cumulative_cost=sum(costs))
    driver.trms = {n: _point(n, c, self_per_activation(n)) for n, c in zip(sizes, costs)}
    encoder = routine("encoder", sum(costs) - driver.self_cost)
    calls = {((OBJ, "driver"), (OBJ, "encoder")): profile.EdgeTotals(17, encoder.cumulative_cost)}
    if recursive:
        calls[((OBJ, "driver"), (OBJ, "driver"))] = profile.EdgeTotals(5, sum(costs) // 2)
    p = profile.Profile([], [], "bb", 4, True, "all", sum(costs), {driver.key: driver,
                                                                   encoder.key: encoder},
                        calls=calls)
    return p, driver, encoder


def _driver_growth(r):
    return {"driver": 1.0, "encoder": 0.2}[r.name]


def _always(r):
    return True


def test_a_caller_whose_own_work_does_not_grow_is_carried_whatever_the_fits():
    """Its own cost per activation is 159 to 229 blocks (slope 0.08) while
    its calls rise 100-fold: it adds a constant to its callee, so the
    callee carries it although their fits differ and the caller's is
    confident."""
    p, driver, encoder = _driver(lambda n: 150 + int(n ** 0.3))
    assert carriers.self_growth(driver) < carriers.FLAT_SELF_GROWTH
    assert carriers.carrier_of(p, driver, _driver_growth, _always) is encoder
    assert carriers.source_of(p, driver, _driver_growth, None, _always) is encoder


def test_a_caller_whose_own_work_grows_or_that_recurses_is_held_to_the_growth_comparison():
    """A loop of n calls runs at least a block of its own per iteration
    (insertion sort's outer loop: slope 1): the loop is a source of growth
    when its callee grows slower. A recursive routine's self cost is one
    level's (Karatsuba's three products per level), whatever the recursion
    multiplies."""
    p, driver, _ = _driver(lambda n: 5 * n)
    assert carriers.self_growth(driver) == pytest.approx(1.0, abs=0.01)
    assert carriers.carrier_of(p, driver, _driver_growth, _always) is None
    p, driver, _ = _driver(lambda n: 150 + int(n ** 0.3), recursive=True)
    assert carriers.carrier_of(p, driver, _driver_growth, _always) is None


def _formatter(self_per_activation, shares):
    """lua's string.format: a constant formatting of its own, then calls
    of several callees that share its cost (the allocation of its result,
    which runs a collector step now and then, and the C library's
    formatting); `shares`: each callee's share of its inclusive cost."""
    p, driver, encoder = _driver(self_per_activation)
    del p.routines[encoder.key], p.calls[(driver.key, encoder.key)]
    for i, share in enumerate(shares):
        callee = routine("callee%d" % i, int(share * driver.cumulative_cost))
        p.routines[callee.key] = callee
        p.calls[(driver.key, callee.key)] = profile.EdgeTotals(10, callee.cumulative_cost)
    p._index = None
    return p, driver


def _formatter_growth(r):
    return {"driver": 2.0}.get(r.name, 0.5)


def test_a_flat_caller_is_carried_by_its_heaviest_callee_when_its_callees_share_its_cost():
    """No callee holds CARRIED_SHARE of the formatter's cost, but together
    they hold most of it and its own work does not grow: the heaviest
    one carries it, and its confident n^2 does not come first."""
    flat = lambda n: 32  # noqa: E731
    p, formatter = _formatter(flat, [0.38, 0.36, 0.05])
    carrier = carriers.carrier_of(p, formatter, _formatter_growth, _always)
    assert carrier is not None and carrier.name == "callee0"
    # Its callees hold less than CARRIED_SHARE together: its own work is
    # most of its cost, and its growth is its own.
    p, formatter = _formatter(flat, [0.3, 0.1])
    assert carriers.carrier_of(p, formatter, _formatter_growth, _always) is None
    # Its own work grows: a source, however its callees share the rest.
    p, formatter = _formatter(lambda n: 5 * n, [0.38, 0.36])
    assert carriers.carrier_of(p, formatter, _formatter_growth, _always) is None
    # Nor does the callee's fit matter: its own work adds a constant to
    # its calls (lua's protected-call wrapper, 99% of the cost, whose
    # callee runs the whole script in 2 calls, too few to be fitted).
    p, formatter = _formatter(flat, [0.38, 0.36])
    unfitted = lambda r: None if r.name.startswith("callee") else 2.0  # noqa: E731
    assert carriers.carrier_of(p, formatter, unfitted, _always).name == "callee0"
    p, formatter = _formatter(flat, [0.9])
    assert carriers.carrier_of(p, formatter, unfitted, _always).name == "callee0"


def test_self_growth_is_per_activation_and_needs_two_sizes_with_a_self_cost():
    r = routine("one", 100)
    assert carriers.self_growth(r) is None
    r.trms = {10: _point(10, 100, 0), 20: _point(20, 200, 5)}
    assert carriers.self_growth(r) is None
    r.trms[40] = _point(40, 400, 10)
    assert carriers.self_growth(r) == pytest.approx(1.0)
    # Four activations of size 20, 5 blocks each: the sums grow, the
    # activations' own work does not.
    r.trms = {10: _point(10, 100, 5), 20: profile.Point(20, 4, 200, 200, 800, 160000, 20, 0, 0)}
    assert carriers.self_growth(r) == pytest.approx(0.0)


def with_sizes(name, cost, largest):
    """A routine whose inputs reach `largest` cells."""
    r = routine(name, cost)
    r.trms = {size: profile.Point(size, calls=1, max_cost=cost * i // 8, sum_cost=cost * i // 8)
              for i, size in enumerate((largest // 4, largest // 2, largest), start=1)}
    return r


def test_a_programs_or_threads_first_routine_is_carried_by_its_heaviest_callee():
    """main and a thread's start routine are called only by the runtime's
    entry wrappers: their growth is their callees' whatever the fits (cjpeg's
    main loops over rows; zstd's worker threads' routine over jobs). A
    routine with another caller is no such root, and a root whose callees
    each hold less than CARRIED_SHARE of its cost does the work itself."""
    def build(main_callers, work_cost):
        costs = {"__libc_start_call_main": 1000, "start_thread": 1000, "main": 1000,
                 "work": work_cost, "other": 1000}
        edges = {(caller, "main"): 1000 for caller in main_callers}
        edges[("main", "work")] = work_cost
        return server(edges, costs)

    def growth(r):   # the callee grows more slowly than its caller
        return {"main": 1.5, "work": 0.5}.get(r.name)

    for callers in (["__libc_start_call_main"], ["start_thread"],
                    ["__libc_start_call_main", "start_thread"]):
        p = build(callers, 800)
        assert carriers.carrier_of(p, p.routines[(OBJ, "main")], growth) is p.routines[(OBJ, "work")]
    # 80% of its cost: below SINGLE_CALL_SHARE, so only the root rule carries it.
    p = build(["__libc_start_call_main", "other"], 800)
    assert carriers.carrier_of(p, p.routines[(OBJ, "main")], growth) is None
    p = build(["__libc_start_call_main"], int(1000 * carriers.CARRIED_SHARE) - 1)
    assert carriers.carrier_of(p, p.routines[(OBJ, "main")], growth) is None
    p = build([], 800)   # nobody calls it: the thread's first block, not a root by this rule
    assert carriers.carrier_of(p, p.routines[(OBJ, "main")], growth) is None


def test_a_callee_with_inputs_an_order_of_magnitude_smaller_carries_no_growth():
    """A sort's comparison reads two elements, a compressor's match finder a
    bounded window: growth exponents over such small inputs and over the
    caller's are on different axes, and the caller's growth is its own loop
    of calls. lua's quicksort was carried by its comparison wrapper, fitted
    n^2 on 6 sizes of a few cells."""
    def profile_with(compare_largest):
        p = server({("sort", "compare"): 700}, {"sort": 1000, "compare": 700})
        p.routines[(OBJ, "sort")] = with_sizes("sort", 1000, 100_000)
        p.routines[(OBJ, "compare")] = with_sizes("compare", 700, compare_largest)
        return p

    def growth(r):
        return {"sort": 1.1, "compare": 2.0}[r.name]

    apart = 100_000 // carriers.SIZE_AXES_APART
    p = profile_with(apart - 1)
    assert carriers.carrier_of(p, p.routines[(OBJ, "sort")], growth) is None
    p = profile_with(apart)
    assert carriers.carrier_of(p, p.routines[(OBJ, "sort")], growth) is p.routines[(OBJ, "compare")]


def test_a_callee_fitted_on_calls_from_elsewhere_carries_no_growth():
    """guile's merge calls its engine's entry (`scm_call_2`) to compare
    elements, 1.24 M calls holding 82% of its cost; the entry also runs
    the whole script, one activation costlier than all those calls
    together. Its worst-case points and its fit are then the script's,
    not the comparisons': its growth says nothing of the merge's."""
    def profile_with(engine_costliest):
        p = server({("merge", "engine"): 800}, {"merge": 1000, "engine": 9000})
        engine = p.routines[(OBJ, "engine")]
        engine.trms = {size: profile.Point(size, calls=100, max_cost=cost, sum_cost=50 * cost)
                       for size, cost in ((10, 2), (20, 3), (40, 5), (80, engine_costliest))}
        return p, p.routines[(OBJ, "merge")], engine

    def growth(r):
        return {"merge": 1.0, "engine": 1.1}[r.name]

    p, merge, engine = profile_with(801)
    assert carriers.carrier_of(p, merge, growth) is None
    p, merge, engine = profile_with(800)
    assert carriers.carrier_of(p, merge, growth) is engine
