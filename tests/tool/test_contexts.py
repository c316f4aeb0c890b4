# SPDX-License-Identifier: GPL-2.0-or-later
"""Calling contexts (--collect-context=yes, report format 4): one routine
with two cost functions from two callers, recursion folding, threads,
signal handlers, exceptions and longjmp, a million-deep recursion, the
invariant that a routine's context records add up to its routine records
(CONTEXT-FORMAT.md) on real programs, and option errors."""
import os
import sys
from typing import Dict, List, Tuple


from aprof_trms import report as ar
from toolrun import Spec, check_counts, needs_program, program, routine, run_tools, vg_in_place

CONTEXTS = ["--collect-context=yes"]


def chain(r: ar.Report, cid: int) -> List[str]:
    """The routine names of a context, root first."""
    names = []
    while cid:
        node = r.contexts[cid]
        names.insert(0, r.routines[node.routine].name)
        cid = node.parent
    return names


def contexts_of(r: ar.Report, rt: ar.Routine) -> List[int]:
    return sorted(c.id for c in r.contexts.values() if c.routine == rt.id)


def context_tuples(r: ar.Report, cid: int, metric: str = "rms") -> Dict[int, ar.CostTuple]:
    """The context's tuples by input size, over threads (each size in one thread here)."""
    table = r.context_trms if metric == "trms" else r.context_rms
    out = {}
    for (_, context, size), t in table.items():
        if context == cid:
            assert size not in out, f"context {cid}: size {size} in two threads"
            out[size] = t
    return out


def context_calls(r: ar.Report, cid: int) -> int:
    return sum(t.calls for (_, c, _), t in r.context_rms.items() if c == cid)


def parent_routine(r: ar.Report, cid: int) -> str:
    return r.routines[r.contexts[r.contexts[cid].parent].routine].name


def check_context_invariant(r: ar.Report) -> None:
    """Per thread, routine and input size, the context records of the
    routine's contexts add up to the routine's record, in both metrics."""
    assert r.header.context_depth is not None and r.contexts
    for metric, by_context in (("trms", r.context_trms), ("rms", r.context_rms)):
        sums: Dict[Tuple[int, int, int], list] = {}
        for (thread, cid, size), t in by_context.items():
            key = (thread, r.contexts[cid].routine, size)
            s = sums.setdefault(key, [0, None, 0, 0, 0, 0, 0, 0])
            s[0] += t.calls
            s[1] = t.min_cost if s[1] is None else min(s[1], t.min_cost)
            s[2] = max(s[2], t.max_cost)
            s[3] += t.sum_cost
            s[4] += t.sum_sq_cost
            s[5] += t.sum_self_cost
            s[6] += t.sum_thread_induced
            s[7] += t.sum_external
        routine_records = r.metric(metric)
        assert set(sums) == set(routine_records), f"{metric}: keys differ"
        for key, s in sums.items():
            t = routine_records[key]
            want = [t.calls, t.min_cost, t.max_cost, t.sum_cost, t.sum_sq_cost, t.sum_self_cost,
                     t.sum_thread_induced, t.sum_external]
            assert s == want, f"{metric} {key}: contexts sum to {s}, routine record {want}"
    for node in r.contexts.values():
        assert node.parent == 0 or node.parent < node.id
        depth = len(chain(r, node.id))
        assert depth <= r.header.context_depth


def growth(points: List[Tuple[int, int]]) -> float:
    """Cost ratio between the largest and the smallest n."""
    (n0, c0), (n1, c1) = min(points), max(points)
    assert n1 > n0
    return c1 / c0


NS = [16, 32, 64, 128, 256]


def test_one_routine_two_cost_functions(tmp_path):
    prog = program("contexts")
    run, = run_tools(tmp_path, [Spec([prog, "callers"] + [str(n) for n in NS], CONTEXTS)])
    r = run.report
    k = len(NS)
    check_counts(run, r, {"linear_caller": k, "quadratic_caller": k, "work": 2 * k}, prog)
    check_context_invariant(r)
    work = routine(r, "work", prog)
    by_caller = {parent_routine(r, c): c for c in contexts_of(r, work)}
    assert sorted(by_caller) == ["linear_caller", "quadratic_caller"]
    costs = {}
    for caller, cid in by_caller.items():
        assert chain(r, cid)[-3:] == ["main", caller, "work"]
        points = context_tuples(r, cid)
        # One activation per n; the RMS is n cells plus the same constant.
        assert [t.calls for t in points.values()] == [1] * k
        sizes = sorted(points)
        assert [s - sizes[0] for s in sizes] == [n - NS[0] for n in NS]
        costs[caller] = [(n, points[s].max_cost) for n, s in zip(NS, sizes)]
        assert all(a[1] < b[1] for a, b in zip(costs[caller], costs[caller][1:])), costs
    # n grows 16-fold: about 16 times the cost from one caller, 256 times
    # from the other.
    assert 8 < growth(costs["linear_caller"]) < 32, costs
    assert 128 < growth(costs["quadratic_caller"]) < 512, costs
    # The routine's own records merge both: two activations per size.
    assert [t.calls for t in ar.tuples(r, "rms", work).values()] == [2] * k


def test_recursion_folds_to_one_node_per_routine(tmp_path):
    prog = program("recursion")
    direct, mutual = run_tools(tmp_path, [Spec([prog, "direct", "1000"], CONTEXTS),
                                          Spec([prog, "mutual", "1001"], CONTEXTS)])
    r = direct.report
    check_counts(direct, r, {"rec": 1001}, prog)
    rec, = contexts_of(r, routine(r, "rec", prog))
    assert parent_routine(r, rec) == "main"
    assert context_calls(r, rec) == 1001
    check_context_invariant(r)
    r = mutual.report
    even, = contexts_of(r, routine(r, "is_even", prog))
    odd, = contexts_of(r, routine(r, "is_odd", prog))
    assert parent_routine(r, even) == "main"
    assert r.contexts[odd].parent == even
    assert (context_calls(r, even), context_calls(r, odd)) == (501, 501)
    check_context_invariant(r)


def test_threads_root_their_own_contexts(tmp_path):
    prog = program("contexts")
    run, = run_tools(tmp_path, [Spec([prog, "threads", "3", "50"], CONTEXTS)])
    r = run.report
    check_counts(run, r, {"entry_a": 1, "entry_b": 1, "shared_work": 6}, prog)
    check_context_invariant(r)
    contexts = contexts_of(r, routine(r, "shared_work", prog))
    assert sorted(parent_routine(r, c) for c in contexts) == ["entry_a", "entry_b"]
    threads = set()
    for c in contexts:
        names = chain(r, c)
        # From the new thread's first routine, not from main's chain.
        assert "main" not in names and len({"entry_a", "entry_b"} & set(names)) == 1, names
        assert context_calls(r, c) == 3
        threads |= {th for (th, cid, _) in r.context_rms if cid == c}
    assert len(threads) == 2 and 1 not in threads


def test_signal_handler_context_is_under_the_interrupted_routine(tmp_path):
    prog = program("signals")
    plain, jump = run_tools(tmp_path, [Spec([prog, "raise", "50"], CONTEXTS),
                                       Spec([prog, "siglongjmp", "50"], CONTEXTS)])
    r = plain.report
    check_context_invariant(r)
    handlers = contexts_of(r, routine(r, "on_signal", prog))
    assert sum(context_calls(r, c) for c in handlers) == 50
    for c in handlers:
        assert "signal_loop" in chain(r, c)[:-1], chain(r, c)
    for c in contexts_of(r, routine(r, "handler_work", prog)):
        assert r.contexts[c].parent in handlers
    after, = contexts_of(r, routine(r, "after_signal", prog))
    assert parent_routine(r, after) == "signal_loop" and "on_signal" not in chain(r, after)
    r = jump.report
    check_context_invariant(r)
    victim3, = contexts_of(r, routine(r, "victim3", prog))
    assert chain(r, victim3)[-4:] == ["siglongjmp_loop", "victim1", "victim2", "victim3"]
    for c in contexts_of(r, routine(r, "jumping_handler", prog)):
        assert "victim3" in chain(r, c)
    after, = contexts_of(r, routine(r, "after_siglongjmp", prog))
    assert parent_routine(r, after) == "siglongjmp_loop"


def test_contexts_after_exceptions_and_longjmp(tmp_path):
    exc, jmp = program("exceptions"), program("longjmp")
    e, j = run_tools(tmp_path, [Spec([exc, "200"], CONTEXTS), Spec([jmp, "20", "10"], CONTEXTS)])
    r = e.report
    check_context_invariant(r)
    thrower, = contexts_of(r, routine(r, "aprof_test::Thrower::raise_error(int)", exc))
    assert chain(r, thrower)[-5:] == ["catch_one", "level1", "level2", "level3",
                                       "aprof_test::Thrower::raise_error(int)"]
    # after_catch runs once the frames are unwound: under catch_one (or its
    # cold part), never under the unwound levels.
    after = contexts_of(r, routine(r, "after_catch", exc))
    assert sum(context_calls(r, c) for c in after) == 200
    for c in after:
        assert parent_routine(r, c) in ("catch_one", "catch_one.cold"), chain(r, c)
        assert "level1" not in chain(r, c)
    r = j.report
    check_context_invariant(r)
    recurse, = contexts_of(r, routine(r, "recurse", jmp))
    assert parent_routine(r, recurse) == "jump_loop" and context_calls(r, recurse) == 200
    after, = contexts_of(r, routine(r, "after_jump", jmp))
    assert parent_routine(r, after) == "jump_loop" and context_calls(r, after) == 10


def test_generator_frames_keep_their_context(tmp_path):
    prog = program("coroutines")
    g, k = 3, 4
    run, = run_tools(tmp_path, [Spec([prog, "malloc", "main", str(g), str(k), "400"], CONTEXTS)])
    r = run.report
    check_context_invariant(r)
    # generate runs in pieces, resumed from the driver after every value: one
    # context, rooted at it, the first frame of its own stack (not under the
    # driver's resume_generator); what it calls hangs below it.
    generate, = contexts_of(r, routine(r, "generate", prog))
    assert chain(r, generate) == ["generate"]
    assert context_calls(r, generate) == g
    for name in ("produce", "yield_value"):
        node, = contexts_of(r, routine(r, name, prog))
        assert r.contexts[node].parent == generate and context_calls(r, node) == g * k
    consume, = contexts_of(r, routine(r, "consume", prog))
    assert parent_routine(r, consume) == "run_batch(char*)"


# Runs the tool and writes its peak resident memory (kB) to the file
# $PEAK_RSS_FILE: the launcher of the deep recursion runs.
PEAK_LAUNCHER = """#!{python}
import os, sys
pid = os.fork()
if pid == 0:
    os.execv({tool!r}, [{tool!r}] + sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
with open(os.environ["PEAK_RSS_FILE"], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def test_million_deep_recursion_keeps_the_tree_and_memory_bounded(tmp_path):
    prog = program("contexts")
    launcher = tmp_path / "peak-launcher"
    launcher.write_text(PEAK_LAUNCHER.format(python=sys.executable, tool=vg_in_place()))
    launcher.chmod(0o755)
    deep = 1000000
    specs = []
    for name, depth, opts in (("on", deep, CONTEXTS), ("off", deep, []),
                              ("shallow", 1000, CONTEXTS)):
        specs.append(Spec([prog, "deep", str(depth)], opts, launcher=str(launcher),
                          env={"PEAK_RSS_FILE": str(tmp_path / f"peak-{name}")}))
    on, off, shallow = run_tools(tmp_path, specs)
    check_counts(on, on.report, {"deep_rec": deep + 1}, prog)
    r = on.report
    node, = contexts_of(r, routine(r, "deep_rec", prog))
    assert chain(r, node)[-2:] == ["deep_entry", "deep_rec"]
    assert context_calls(r, node) == deep + 1
    # Below the thread's entry, the same two nodes as for a thousand-deep
    # recursion: depth adds no node (the rest of the tree, the C library's
    # start-up and thread management, varies a little with scheduling).
    for report in (r, shallow.report):
        below = [chain(report, c)[-1] for c in report.contexts if "deep_entry" in chain(report, c)]
        assert sorted(below) == ["deep_entry", "deep_rec"], below
    assert len(r.contexts) < 2 * len(shallow.report.contexts)
    check_context_invariant(r)
    peak = {name: int((tmp_path / f"peak-{name}").read_text()) for name in ("on", "off")}
    # Contexts add one small frame per pending activation to the shadow
    # stack's: the same order of memory.
    assert peak["on"] < 1.5 * peak["off"], peak


SQL = b"""CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300)
INSERT INTO t SELECT x, printf('row %d', x) FROM c;
SELECT count(*), sum(length(b)) FROM t WHERE a % 3 = 0;
"""


def test_context_records_add_up_to_routine_records(tmp_path):
    sqlite = needs_program("sqlite3")
    runs = run_tools(tmp_path, [
        Spec([sqlite, ":memory:"], CONTEXTS, stdin=SQL, keep_stdout=False),
        Spec([program("threads")], CONTEXTS),
        Spec([program("prodcons"), "sem", "200"], CONTEXTS + ["--context-depth=3"]),
        Spec([program("collect")], CONTEXTS + ["--collect-atstart=no"]),
        Spec([program("forking")], CONTEXTS, reports=2),  # the child keeps the tree
    ])
    for run in runs:
        for report in run.reports:
            check_context_invariant(report)
    assert runs[2].report.header.context_depth == 3
    assert max(len(chain(runs[2].report, c)) for c in runs[2].report.contexts) == 3


def test_depth_one_is_one_context_per_routine(tmp_path):
    prog = program("contexts")
    run, = run_tools(tmp_path, [Spec([prog, "callers", "16", "32"],
                                     CONTEXTS + ["--context-depth=1"])])
    r = run.report
    check_context_invariant(r)
    assert all(c.parent == 0 for c in r.contexts.values())
    assert sorted(c.routine for c in r.contexts.values()) == sorted(
        {rid for (_, rid) in r.totals})


def test_no_context_records_by_default(tmp_path):
    prog = program("contexts")
    plain, off = run_tools(tmp_path, [Spec([prog, "callers", "16"]),
                                      Spec([prog, "callers", "16"], ["--collect-context=no"])])
    for run in (plain, off):
        r = run.report
        assert r.header.version == 6 and r.header.context_depth is None
        assert not r.contexts and not r.context_trms and not r.context_rms


BAD_CONTEXT_OPTIONS = ["--collect-context=maybe", "--collect-context=", "--context-depth=0",
                       "--context-depth=abc", "--context-depth=08", "--context-depth=-1",
                       "--context-depth=+3", "--context-depth=3k", "--context-depth=",
                       "--context-depth=1000001", "--context-depth=99999999999999999999"]


def test_bad_context_options(tmp_path):
    specs = [Spec([program("sumarray"), "100"], CONTEXTS + [opt], expect_status=None,
                  out_file=None) for opt in BAD_CONTEXT_OPTIONS]
    for opt, run in zip(BAD_CONTEXT_OPTIONS, run_tools(tmp_path, specs)):
        assert run.returncode == 1, f"{opt} accepted\n{run.describe()}"
        assert opt.split("=")[0] in run.stderr, run.describe()
        assert "count " not in run.stdout and os.listdir(run.dir) == [], run.describe()
