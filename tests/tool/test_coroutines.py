# SPDX-License-Identifier: GPL-2.0-or-later
"""Stack switches: generators on their own stacks (ucontext), below and above
the stack of the routine that resumes them, in the main thread and in a
worker thread (tests/tool/programs/coroutines.cc; docs/manual.md, "Routines,
calls and returns")."""
import re

import pytest

from aprof_trms import report as ar
from toolrun import Spec, check_counts, not_nested, program, routine, run_tools

G, K, N = 3, 10, 1000

# Where the generators' stacks lie relative to the driver's stack under
# Valgrind (the program prints it): each case must test what it claims.
PLACEMENTS = [
    ("malloc", "main", "below"),
    ("malloc", "worker", "above"),
    ("mmap-high", "main", "above"),
    ("mmap-high", "worker", "above"),
    ("mmap-low", "main", "below"),
    ("mmap-low", "worker", "below"),
]


def stack_switches(run):
    """The tool's count of moves between stacks (-v statistics)."""
    m = re.search(r"aprof-trms: (\d+) stack switches", run.stderr)
    assert m, run.describe()
    return int(m.group(1))


def placement(run):
    lines = [line.split()[1] for line in run.stdout.splitlines() if line.startswith("placement ")]
    assert len(lines) == 1, run.describe()
    return lines[0]


def cumulative(report, name, prog):
    return ar.totals(report, routine(report, name, prog)).cumulative_cost


def check_driver_holds_generators(run, prog, thread):
    """drive() stays pending while the generators run: its cumulative cost
    holds all of their work and all of its own consume() calls."""
    r = run.report
    for name in ("drive", "generate", "produce", "yield_value", "consume"):
        rt = routine(r, name, prog)
        assert {th for (th, rid) in r.totals if rid == rt.id} == {thread}, name
        assert not_nested(r, rt), f"{name} activations nested"
    generate = cumulative(r, "generate", prog)
    assert cumulative(r, "drive", prog) >= generate + cumulative(r, "consume", prog)
    # The generators' callees ran inside them (every run of them).
    assert generate >= cumulative(r, "produce", prog) + cumulative(r, "yield_value", prog)
    # Each produce() reads its N/K ints: the bulk of the generators' work.
    assert cumulative(r, "produce", prog) >= ar.totals(r, routine(r, "generate", prog)).calls * N


@pytest.mark.parametrize("where,thread,relation", PLACEMENTS,
                         ids=[f"{w}-{t}" for w, t, _ in PLACEMENTS])
def test_generators(tmp_path, where, thread, relation):
    prog = program("coroutines")
    run = run_tools(tmp_path, [Spec([prog, where, thread, str(G), str(K), str(N)], ["-v"])])[0]
    assert placement(run) == relation, run.describe()
    # Into each generator at its start and at each of its K resumptions, and
    # back at each of its K yields and at its end (uc_link).
    assert stack_switches(run) == 2 * G * (K + 1)
    check_counts(run, run.report, {"drive": 1, "generate": G, "produce": G * K,
                                   "yield_value": G * K, "consume": G * K,
                                   "resume_generator": G * (K + 1)}, prog)
    check_driver_holds_generators(run, prog, 2 if thread == "worker" else 1)


@pytest.mark.parametrize("thread", ["main", "worker"])
def test_generators_suspended_at_thread_exit(tmp_path, thread):
    """The driver stops after R < K rounds: the suspended generators'
    activations complete when their thread ends, with all their runs."""
    prog = program("coroutines")
    rounds = 4
    run = run_tools(tmp_path, [Spec([prog, "mmap-high", thread, str(G), str(K), str(N),
                                     str(rounds)], ["-v"])])[0]
    assert stack_switches(run) == 2 * G * rounds
    check_counts(run, run.report, {"drive": 1, "generate": G, "produce": G * rounds,
                                   "yield_value": G * rounds, "consume": G * rounds,
                                   "resume_generator": G * rounds}, prog)
    r = run.report
    generate = cumulative(r, "generate", prog)
    assert cumulative(r, "drive", prog) >= generate + cumulative(r, "consume", prog)
    assert generate >= cumulative(r, "produce", prog) + cumulative(r, "yield_value", prog)


@pytest.mark.parametrize("where,thread", [("mmap-high", "main"), ("mmap-low", "main"),
                                          ("malloc", "worker")])
def test_generators_leaving_by_longjmp(tmp_path, where, thread):
    """Each generator ends with a longjmp from its stack back into the
    driver's resume_generator: the driver's stack is resumed and unwound to
    the setjmp, the generator's frames stay suspended until the thread ends."""
    prog = program("coroutines")
    run = run_tools(tmp_path, [Spec([prog, where, thread, str(G), str(K), str(N), "escape"],
                                    ["-v"])])[0]
    assert stack_switches(run) == 2 * G * (K + 1)  # the last one by longjmp
    check_counts(run, run.report, {"drive": 1, "generate": G, "produce": G * K,
                                   "yield_value": G * K, "consume": G * K,
                                   "resume_generator": G * (K + 1), "escape": G}, prog)
    check_driver_holds_generators(run, prog, 2 if thread == "worker" else 1)
    r = run.report
    assert not_nested(r, routine(r, "resume_generator", prog))
    assert cumulative(r, "generate", prog) >= cumulative(r, "escape", prog)


@pytest.mark.parametrize("where,thread", [("malloc", "main"), ("mmap-high", "worker")])
def test_generators_on_reused_stacks(tmp_path, where, thread):
    """A second batch of generators on the stacks of the first, which had
    finished and were freed: the old frames left there (glibc's setcontext)
    complete, and each new generator starts its own activation."""
    prog = program("coroutines")
    run = run_tools(tmp_path, [Spec([prog, where, thread, str(G), str(K), str(N), "again"],
                                    ["-v"])])[0]
    assert f"reused {G}\n" in run.stdout, run.describe()
    assert stack_switches(run) == 2 * 2 * G * (K + 1)
    check_counts(run, run.report, {"drive": 1, "generate": 2 * G, "produce": 2 * G * K,
                                   "yield_value": 2 * G * K, "consume": 2 * G * K,
                                   "resume_generator": 2 * G * (K + 1)}, prog)
    check_driver_holds_generators(run, prog, 2 if thread == "worker" else 1)
    # A new generator does not run inside the old frame of glibc's
    # setcontext (where the first batch's generators ended).
    r = run.report
    setcontext = routine(r, "setcontext", "libc.so.6")
    assert ar.activations(r, setcontext) == 2 * G
    longest_setcontext = max(t.max_cost for t in ar.tuples(r, "trms", setcontext).values())
    shortest_generator = min(t.min_cost for t in
                             ar.tuples(r, "trms", routine(r, "generate", prog)).values())
    assert longest_setcontext < shortest_generator


def test_generator_input_is_its_array(tmp_path):
    """A generator's input sizes sum over its runs: each of its N ints is
    read once, in one run, so G generators' sizes grow by G per extra int."""
    prog = program("coroutines")
    n1, n2 = 1000, 3000
    runs = run_tools(tmp_path, [Spec([prog, "malloc", "main", str(G), str(K), str(n)])
                                for n in (n1, n2)])
    sums = []
    for run in runs:
        r = run.report
        rt = routine(r, "generate", prog)
        sums.append({m: sum(t.size * t.calls for t in ar.tuples(r, m, rt).values())
                     for m in ("rms", "trms")})
        assert sums[-1]["rms"] >= G * n1
    for metric in ("rms", "trms"):
        assert sums[1][metric] - sums[0][metric] == G * (n2 - n1), metric


def test_no_stack_switch_without_coroutines(tmp_path):
    """Deep recursion (about 5 MB of stack), a 3 MiB frame (more than
    --max-stackframe) whose callees run far below it in the thread's stack
    segment, signal handlers on alternate stacks: no stack switch."""
    prog, signals = program("recursion"), program("signals")
    d = 100
    big, deep, alt, alt_thread = run_tools(tmp_path, [
        Spec([prog, "bigframe", str(d)], ["-v"]), Spec([prog, "direct", "100000"], ["-v"]),
        Spec([signals, "altstack", "20"], ["-v"]), Spec([signals, "altstack-thread", "20"], ["-v"])])
    for run in (big, deep, alt, alt_thread):
        assert stack_switches(run) == 0, run.describe()
    check_counts(deep, deep.report, {"rec": 100001}, prog)
    check_counts(alt, alt.report, {"on_signal": 20, "handler_work": 20}, signals)
    check_counts(alt_thread, alt_thread.report, {"on_signal": 20, "handler_work": 20}, signals)
    run = big
    r = run.report
    check_counts(run, r, {"big_frame": 1, "leaf": d}, prog)
    leaf = routine(r, "leaf", prog)
    assert not_nested(r, leaf)
    assert cumulative(r, "big_frame", prog) >= ar.totals(r, leaf).cumulative_cost + d


def test_coroutine_handed_to_another_thread(tmp_path):
    """A coroutine started in thread A, suspended, and resumed in thread B
    (programs/handoff.cc; Go's scheduler does this with goroutines): B takes
    its frames over. generate's activation completes in A with the work it
    did there, and goes on in B as a new one holding the rest: each thread's
    profile has the cost it ran, and the activations suspended at the
    handoff count once in each thread."""
    prog = program("handoff")
    n = 1000
    run = run_tools(tmp_path, [Spec([prog, str(n)], ["-v"])])[0]
    assert re.search(r"stack switches, 1 stacks taken over from another thread", run.stderr), \
        run.describe()
    check_counts(run, run.report, {"first_half": 1, "second_half": 1,
                                   "start_on_a": 1, "resume_on_b": 1}, prog)
    r = run.report
    # The frames suspended in A complete there and start anew in B: the
    # yield counts once in each thread (the program counts one).
    assert ar.activations(r, routine(r, "yield_value", prog)) == 2
    a = {th for (th, rid) in r.totals if rid == routine(r, "start_on_a", prog).id}
    b = {th for (th, rid) in r.totals if rid == routine(r, "resume_on_b", prog).id}
    assert len(a) == len(b) == 1 and a != b
    generate = routine(r, "generate", prog)
    for thread, half in ((a.pop(), "first_half"), (b.pop(), "second_half")):
        totals = r.totals[(thread, generate.id)]
        assert totals.calls == 1, (thread, totals)
        half_cost = ar.totals(r, routine(r, half, prog)).cumulative_cost
        assert half_cost >= n
        # The half ran inside generate, in this thread; the other half not.
        assert half_cost <= totals.cumulative_cost < half_cost + n // 2, (thread, totals)
