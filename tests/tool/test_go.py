# SPDX-License-Identifier: GPL-2.0-or-later
# Go programs: goroutines that Go's runtime would preempt by a signal
# (tests/tool/programs/goroutines.go; docs/design.md, "Goroutines").
#
# Copyright (C) 2026, the aprof-trms authors.
"""Four goroutines sort arrays of growing size with an insertion sort whose
loop makes no call, so Go's runtime preempts them by a signal (asynchronous
preemption) and resumes them later, maybe on another thread. With default
options the tool drops the preemption signal (go_preemption.cc), as
GODEBUG=asyncpreemptoff=1 would: the sort's input sizes are its arrays, its
cost is its own and the same as with GODEBUG=asyncpreemptoff=1, it fits n^2
and rank.py puts it first; its calling contexts are one chain rooted at the
goroutine's own first frame, not at the scheduler's frames that resumed it.
--go-async-preemption=yes shows that the runtime does preempt the sort under
the tool. Stripped of its ELF symbols, the program is profiled the same,
its routines named from Go's own function table (function_names.cc). A
recursion deep enough to make the runtime copy its goroutine's
stack several times keeps its activations whole across the copies."""
import csv
import io
import math
import os
import re
import struct
import subprocess
import sys

import pytest

from aprof_trms import fit as aprof_fit
from aprof_trms import profile as aprof_profile
from aprof_trms import report as ar
from toolrun import SRCDIR, Spec, check_counts, count, needs_program, routine, run_tools

WORKERS = 4
# Eight sizes (rank.py trusts a fit from 8); the largest sorts run long
# enough under Valgrind to be preempted many times (about 35 preemptions a
# run with --go-async-preemption=yes).
SIZES = (300, 450, 700, 1000, 1500, 2200, 3200, 4500)
SORT = "main.insertionSort"
# The sort reads its n int32 elements (n cells at the default
# --memory-resolution=4) and a few stack words: the return address (2
# cells), and before Go 1.17 its arguments, passed on the stack.
STACK_CELLS = 8
# The code Go's runtime runs for a signal preemption: the injected call and
# the signal handler.
PREEMPTION_ROUTINES = ("runtime.asyncPreempt2", "runtime.sighandler")
PREEMPTING_TRIES = 3


def build_go(d, name, *flags):
    """goroutines.go built with Debian's Go toolchain, offline: no module,
    the build cache and GOPATH in a temporary directory (HOME may not be
    writable in CI), no cgo (no C toolchain involved)."""
    go = needs_program("go")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(d),
           "GOCACHE": str(d / "cache"), "GOPATH": str(d / "gopath"), "GO111MODULE": "off",
           "GOFLAGS": "", "CGO_ENABLED": "0", "GOTOOLCHAIN": "local"}
    exe = d / name
    proc = subprocess.run([go, "build", *flags, "-o", str(exe),
                           str(SRCDIR / "tests" / "tool" / "programs" / "goroutines.go")],
                          cwd=d, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"go build failed:\n{proc.stderr}"
    return str(exe)


@pytest.fixture(scope="module")
def go_program(tmp_path_factory):
    return build_go(tmp_path_factory.mktemp("go-build"), "goroutines")


@pytest.fixture(scope="module")
def runs(go_program, tmp_path_factory):
    """The program under the tool with default options, with
    GODEBUG=asyncpreemptoff=1 (the reference), and with
    --go-async-preemption=yes. GOMAXPROCS=4: goroutines move between
    threads whatever the machine's processors."""
    argv = [go_program, "sort", str(WORKERS)] + [str(n) for n in SIZES]
    env = {"GOMAXPROCS": "4", "GODEBUG": ""}
    # With preemption allowed, whether sysmon's signal arrives depends on
    # wall time and on when Valgrind schedules sysmon's thread: fair
    # scheduling gives it its turns, and a run without one is tried again
    # (at most PREEMPTING_TRIES runs: an idle machine once ran the sorts
    # before the first signal).
    base = tmp_path_factory.mktemp("go-runs")
    default, reference, preempting = run_tools(base, [
        Spec(argv, ["--collect-context=yes"], env=env),
        Spec(argv, ["--collect-context=yes"], env={**env, "GODEBUG": "asyncpreemptoff=1"}),
        Spec(argv, ["--go-async-preemption=yes", "--fair-sched=yes"], env=env),
    ])
    for _ in range(PREEMPTING_TRIES - 1):
        if preemptions(preempting, go_program)["runtime.sighandler"] > 0:
            break
        preempting = run_tools(base, [Spec(argv, ["--go-async-preemption=yes",
                                                  "--fair-sched=yes"], env=env)])[0]
    # (A sort preempted and resumed on another thread counts once in each.)
    for run in (default, reference):
        check_counts(run, run.report, {SORT: WORKERS * len(SIZES)}, go_program)
    return {"default": default, "reference": reference, "preempting": preempting,
            "program": go_program}


def preemptions(run, program):
    return {name: count(run.report, name, program) for name in PREEMPTION_ROUTINES}


def sort_tuples(run, program):
    """{size: (calls, max cost, min cost)} of the sort's TRMS tuples."""
    r = run.report
    return {size: (t.calls, t.max_cost, t.min_cost)
            for size, t in ar.tuples(r, "trms", routine(r, SORT, program)).items()}


def test_runtime_preempts_the_sort_when_asked_to(runs):
    """The program is one that Go preempts by signals under the tool; by
    default no preemption signal arrives."""
    program = runs["program"]
    # Signals arrive (the handler may find the sort at no safe point, and
    # then not preempt it: about 35 of 36 times it does).
    assert preemptions(runs["preempting"], program)["runtime.sighandler"] > 0, \
        preemptions(runs["preempting"], program)
    # The reports say whether the runtime could preempt by signals.
    assert runs["preempting"].report.header.go_async_preemption is True
    assert runs["default"].report.header.go_async_preemption is False
    for name in ("default", "reference"):
        assert preemptions(runs[name], program) == dict.fromkeys(PREEMPTION_ROUTINES, 0), name


def test_sort_sizes_are_its_arrays(runs):
    sizes = sorted(sort_tuples(runs["default"], runs["program"]))
    assert len(sizes) == len(SIZES), sizes
    for n, size in zip(SIZES, sizes):
        assert n <= size <= n + STACK_CELLS, (n, sizes)


def test_sort_cost_is_its_own(runs):
    """Nothing else ran inside the sort (it calls no routine: its cumulative
    cost is its self cost), and each size costs what it costs with
    GODEBUG=asyncpreemptoff=1: the sort's work depends only on its data."""
    r, program = runs["default"].report, runs["program"]
    totals = ar.totals(r, routine(r, SORT, program))
    assert totals.cumulative_cost == totals.self_cost
    assert sort_tuples(runs["default"], program) == sort_tuples(runs["reference"], program)


def test_sort_fits_n2_and_ranks_first(runs):
    run = runs["default"]
    [sort] = aprof_profile.merge([run.report]).find(SORT)
    result = aprof_fit.fit_routine(sort, "trms")
    assert result.best.model == "n^2" and result.conclusive, (result.best.formula(), result.doubts)
    assert ranked(run)[0] == SORT, ranked(run)


def ranked(run):
    """The routines of rank.py's ranking of the run's report, first first."""
    proc = subprocess.run([sys.executable, str(SRCDIR / "scripts" / "rank.py"), "--format", "csv",
                           run.report.path], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [row["routine"] for row in csv.DictReader(io.StringIO(proc.stdout))]


# The runtime's own routines around a goroutine: the scheduler, the code
# that starts threads and goroutines and switches stacks. None of them is
# the root of a goroutine's contexts.
SCHEDULER_ROOTS = ("_rt0_", "runtime.")


def contexts_of(run, name, program):
    """The chains (routine names, root first) of a routine's contexts."""
    profile = aprof_profile.merge([run.report])
    [target] = profile.find(name)
    names = {r.key: r.name for r in profile.routines.values()}
    return [[names.get(key, key[1]) for key in c.key] for c in profile.contexts_of(target.key)]


def test_goroutine_contexts_start_at_its_own_first_frame(runs):
    """The sort runs in goroutines that the scheduler resumes from its own
    stack (runtime.schedule, execute, gogo), on every thread (runtime.clone,
    mstart) and after a goroutine blocked (mcall, goexit0): one chain, rooted
    at the goroutine's function, with no scheduler frame in it."""
    chains = contexts_of(runs["default"], SORT, runs["program"])
    assert len(chains) == 1, chains
    [chain] = chains
    assert chain[-1] == SORT and chain[0].startswith("main."), chain
    assert not any(name.startswith(SCHEDULER_ROOTS) or name == "gogo" for name in chain), chain


# What Go's linker and Debian's strip leave of the ELF symbols: none, but
# the runtime's own function table (.gopclntab), which the tool names the
# routines from.
ADDRESS_NAME = re.compile(r"^0x[0-9a-f]+@")


def with_pclntab_cut(src, dst, size):
    """A copy of the binary whose section headers say .gopclntab holds only
    `size` bytes (the runtime finds its table by its own symbols, not by
    the section headers: the program runs as before)."""
    data = bytearray(open(src, "rb").read())
    table, = struct.unpack_from("<Q", data, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", data, 0x3a)
    names, = struct.unpack_from("<Q", data, table + names_index * entry_size + 0x18)
    for header in range(table, table + count * entry_size, entry_size):
        name, = struct.unpack_from("<I", data, header)
        if data[names + name:].split(b"\0", 1)[0] == b".gopclntab":
            struct.pack_into("<Q", data, header + 0x20, size)
            break
    else:
        pytest.fail(f"{src} has no .gopclntab")
    with open(dst, "wb") as f:
        f.write(data)
    os.chmod(dst, 0o755)
    return dst


@pytest.fixture(scope="module")
def stripped_runs(tmp_path_factory):
    """The program stripped of its ELF symbols (go build -ldflags="-s -w"),
    and a copy whose Go table is cut to 4 KiB, with the sort workload and
    the options of runs["default"]: their runs and their paths, by name."""
    d = tmp_path_factory.mktemp("go-stripped")
    stripped = build_go(d, "stripped", "-ldflags=-s -w")
    cut = with_pclntab_cut(stripped, str(d / "cut"), 4096)
    env = {"GOMAXPROCS": "4", "GODEBUG": ""}
    sizes = [str(n) for n in SIZES]
    programs = {"stripped": stripped, "cut": cut}
    return dict(zip(programs, run_tools(tmp_path_factory.mktemp("go-stripped-runs"), [
        Spec([program, "sort", str(WORKERS)] + sizes, ["--collect-context=yes"], env=env)
        for program in programs.values()]))), programs


def routine_names(run, program):
    return {r.name for r in run.report.routines.values()
            if os.path.basename(r.object) == os.path.basename(program)}


def test_stripped_binary_is_profiled_as_with_symbols(runs, stripped_runs):
    """Without ELF symbols, every routine of the program has its Go name
    (Go's table writes assembly routines without the suffix .abi0), the
    program's own routines are those of the binary with symbols, and the
    sort has the same sizes and costs, fit and rank: Go's preemption is off
    (runtime.tgkill found by its Go name) and goroutine switches are
    followed (gogo), as with symbols."""
    run, program = (found["stripped"] for found in stripped_runs)
    names = routine_names(run, program)
    assert not [n for n in names if ADDRESS_NAME.match(n)], sorted(names)[:20]
    with_symbols = {n.replace(".abi0", "") for n in routine_names(runs["default"], runs["program"])}
    assert {n for n in names if n.startswith("main.")} == \
        {n for n in with_symbols if n.startswith("main.")}
    check_counts(run, run.report, {SORT: WORKERS * len(SIZES)}, program)
    assert sort_tuples(run, program) == sort_tuples(runs["default"], runs["program"])
    assert run.report.header.go_async_preemption is False
    assert preemptions(run, program) == dict.fromkeys(PREEMPTION_ROUTINES, 0)
    [chain] = contexts_of(run, SORT, program)
    assert chain[0].startswith("main.") and not any(
        name.startswith(SCHEDULER_ROOTS) or name == "gogo" for name in chain), chain
    assert ranked(run)[0] == SORT, ranked(run)


def test_an_unusable_go_table_leaves_address_names(stripped_runs):
    """A Go table cut short gives no names and says so once; the program
    runs and is profiled, its routines named by address."""
    run, program = (found["cut"] for found in stripped_runs)
    message = (f"aprof-trms: {program}: Go's function table (.gopclntab) is unusable "
               "(function table out of bounds): its routines are named by address")
    assert run.stderr.count(message) == 1, run.stderr
    names = routine_names(run, program)
    assert names and all(ADDRESS_NAME.match(n) for n in names), sorted(names)[:20]
    assert run.counts()[SORT] == WORKERS * len(SIZES)


GROW_WORKERS = 4
GROW_SIZES = (250, 500, 1000, 2000, 4000, 8000, 16000)
RECURSION = "main.sumFrom"
# What the recursion reads besides its elements: the stack words of a few
# frames, and at each growth of the stack the runtime's bookkeeping that
# runtime.morestack and the restarted prologue read (the goroutine's g and
# its thread's m, about 14 cells, measured: 24 would allow for more).
GROWTH_CELLS = 24
# The goroutine's first stack (2 KiB) and the most a frame of sumFrom takes.
FIRST_STACK_BYTES, FRAME_BYTES = 2048, 64


@pytest.fixture(scope="module")
def growths(go_program, tmp_path_factory):
    """Recursions n deep in new goroutines, on one processor (the goroutines
    then stay on one thread: the runtime hands its processor to another
    thread only around system calls, which the recursion makes none of)
    and on four."""
    argv = [go_program, "grow", str(GROW_WORKERS)] + [str(n) for n in GROW_SIZES]
    return run_tools(tmp_path_factory.mktemp("go-growths"), [
        Spec(argv, ["-v", "--collect-context=yes"], env={"GOMAXPROCS": str(procs), "GODEBUG": ""})
        for procs in (1, 4)])


def test_recursion_keeps_its_activations_when_the_stack_grows(growths, go_program):
    """Each deep recursion outgrows its goroutine's stack about nine times;
    the runtime copies the stack to a larger one (runtime.newstack) and
    resumes the goroutine there, in the routine that needed the room, which
    starts over. The tool moves the goroutine's frames with the copy: the
    recursion is called exactly as often as it runs (the restart is not a
    call), its outermost activation's input is its array (not the copies'
    cells again at every growth), its cost is its own (none is left in
    newstack or the scheduler, which would break the report's totals: the
    report is read with its consistency check), it has one context, and
    rank.py puts it first."""
    one, four = growths
    exact = GROW_WORKERS * sum(n + 1 for n in GROW_SIZES)
    check_counts(one, one.report, {RECURSION: exact}, go_program)
    assert int(re.search(r"(\d+) goroutine stacks followed to their copies", one.stderr).group(1)) > 0
    for run in growths:
        r = run.report
        sizes = sorted(ar.tuples(r, "trms", routine(r, RECURSION, go_program)))
        largest = max(GROW_SIZES)
        doublings = math.ceil(math.log2(largest * FRAME_BYTES / FIRST_STACK_BYTES))
        assert largest <= sizes[-1] <= largest + STACK_CELLS + GROWTH_CELLS * doublings, \
            (largest, sizes[-5:])
        totals = ar.totals(r, routine(r, RECURSION, go_program))
        # Only the outermost activations count in the cumulative cost; they
        # hold all the recursion's work, and a few blocks of each restart.
        assert totals.self_cost <= totals.cumulative_cost <= 1.01 * totals.self_cost, totals
        chains = contexts_of(run, RECURSION, go_program)
        assert len(chains) == 1 and chains[0][0].startswith("main."), chains
        # Not the runtime's stack growth (newstack, morestack, gogo).
        assert ranked(run)[0] == RECURSION, ranked(run)


STAGES, ROUNDS = 4, 2000


@pytest.fixture(scope="module")
def relays(go_program, tmp_path_factory):
    """Tokens passed down a pipeline of goroutines, on one processor and on
    four (where goroutines move between threads all the time)."""
    argv = [go_program, "relay", str(STAGES), str(ROUNDS)]
    return run_tools(tmp_path_factory.mktemp("go-relays"), [
        Spec(argv, ["-v"], env={"GOMAXPROCS": str(procs), "GODEBUG": ""}) for procs in (1, 4)])


def relay_self_cost(run, program):
    r = run.report
    rid = routine(r, "main.relay", program).id
    return sum(t.self_cost for (thread, routine_id), t in r.totals.items() if routine_id == rid)


def test_goroutines_blocking_keep_their_own_cost(relays, go_program):
    """relay blocks at every token, and the scheduler resumes it on any
    thread. Its own work (self cost, summed over threads) is at least the
    two blocks each token runs in it after its receive and its send return,
    and the same on one processor as on four: the tool follows the
    goroutine onto its stack on every thread (runtime.gogo's jump), and
    between threads. Activations may split when a goroutine moves (each
    thread keeps the cost it ran): allow a block per move."""
    one, four = (relay_self_cost(run, go_program) for run in relays)
    assert one >= 2 * STAGES * ROUNDS, one
    moves = int(re.search(r"(\d+) stacks taken over", relays[1].stderr).group(1))
    assert abs(four - one) <= moves + STAGES, (one, four, moves)
