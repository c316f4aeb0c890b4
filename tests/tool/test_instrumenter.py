# SPDX-License-Identifier: GPL-2.0-or-later
"""What the instrumenter must preserve, with exact answers: accesses of every
kind in one superblock (tests/tool/programs/accesses.cc) and read-modify-
writes of a cell shared with another thread (sharedrmw.cc). Each program's
header derives the numbers used here."""
import re
from pathlib import Path

import pytest

from aprof_trms import report as ar
from toolrun import Spec, check_counts, program, routine, run_tool, run_tools, tuple_of


def return_address_cells(resolution):
    """Cells of a return address: 8 bytes at an address = 8 (mod 16)."""
    return 8 // resolution if resolution <= 8 else 1


def sizes(report, name, prog):
    """(RMS, TRMS, thread-induced, external) of a routine with one activation."""
    rt = routine(report, name, prog)
    rms, trms = tuple_of(report, "rms", rt), tuple_of(report, "trms", rt)
    assert rms.calls == trms.calls == 1, name
    return rms.size, trms.size, trms.sum_thread_induced, trms.sum_external


def cpu_has_avx():
    flags = re.search(r"^flags\s*:(.*)$", Path("/proc/cpuinfo").read_text(), re.M)
    assert flags, "no flags line in /proc/cpuinfo"
    return "avx" in flags.group(1).split()


# accesses.cc at 4-byte cells, without the return address: RMS, and for
# acc_syscalls also TRMS and external input.
INPUT_AT_4 = {
    "acc_empty": 0, "acc_orders": 3, "acc_overlap": 5, "acc_cmov": 2, "acc_rep": 16,
    "acc_vec16": 13, "acc_dirty": 104, "acc_syscalls": 32,
    "acc_branchy": 0, "acc_tail": 0, "acc_tail_leaf": 0,
}
AVX_INPUT_AT_4 = {"acc_masked": 9, "acc_vec32": 18}


# The path accesses.cc takes here; it is in the test's id, so the log says
# which one ran.
CPU_PATH = "avx" if cpu_has_avx() else "noavx"


@pytest.mark.parametrize("path", [CPU_PATH])
def test_accesses_exact_input(tmp_path, path):
    """Every routine of accesses.cc has exactly its designed input. The AVX
    routines (masked moves: guarded loads and stores; 32-byte vectors) run
    when /proc/cpuinfo lists avx; otherwise the program's `noavx` path runs,
    where the guarded accesses are not exercised (acc_cmov, conditional
    moves, runs on both paths: Valgrind turns them into unconditional loads,
    as the CPU reads their memory operand)."""
    prog = program("accesses")
    run = run_tool(tmp_path, [prog, path])
    assert f"path {path}" in run.stdout
    r = run.report
    check_counts(run, r, {"acc_branchy": 1, "acc_tail": 1, "acc_tail_leaf": 1}, prog)
    expected = dict(INPUT_AT_4, **(AVX_INPUT_AT_4 if path == "avx" else {}))
    ret = return_address_cells(4)
    got = {name: sizes(r, name, prog) for name in expected}
    want = {name: (cells + ret, cells + ret, 0, 0) for name, cells in expected.items()}
    want["acc_syscalls"] = (32 + ret, 48 + ret, 0, 16)
    assert got == want, f"(RMS, TRMS, thread-induced, external) on the {path} path"
    if path == "noavx":
        assert not ar.routines_named(r, "acc_masked", prog)


@pytest.mark.parametrize("resolution,orders,overlap", [(1, 12, 20), (8, 2, 2), (16, 2, 2)])
def test_accesses_overlap_at_other_resolutions(tmp_path, resolution, orders, overlap):
    """Partial overlaps and access orders where cells are smaller or larger
    than the accesses (accesses.cc explains the numbers)."""
    prog = program("accesses")
    run = run_tool(tmp_path, [prog, "noavx"], [f"--memory-resolution={resolution}"])
    r = run.report
    ret = return_address_cells(resolution)
    assert sizes(r, "acc_orders", prog)[0] == orders + ret
    assert sizes(r, "acc_overlap", prog)[0] == overlap + ret


# sharedrmw.cc: OP -> (W, Rx): cells of x the operation writes, cells of x
# it reads before writing them.
SHARED_OPS = {
    "add": (1, 1), "lock_add": (1, 1), "xchg": (1, 1), "cas_ok": (1, 1), "cas_fail": (0, 1),
    "read_write": (1, 1), "read4_write8": (2, 1), "write8_read4": (2, 0), "write4_read8": (1, 1),
}


def test_shared_read_modify_writes(tmp_path):
    """Every write of the producer's operation reaches the consumer as a
    thread-induced read, a failed compare-and-swap writes nothing; exact
    because the two threads strictly alternate (sharedrmw.cc)."""
    prog = program("sharedrmw")
    n = 60
    ops = list(SHARED_OPS)
    runs = run_tools(tmp_path, [Spec([prog, op, str(n)]) for op in ops])
    ret = return_address_cells(4)
    for op, run in zip(ops, runs):
        w, rx = SHARED_OPS[op]
        r = run.report
        check_counts(run, r, {"sh_consume": 1, f"sh_produce_{op}": 1}, prog)
        consumer = sizes(r, "sh_consume", prog)
        induced = n + w * n
        assert consumer == (3 + ret, induced + 1 + (2 - w) + ret, induced, 0), op
        producer_rms = 1 + rx + ret
        assert sizes(r, f"sh_produce_{op}", prog) == (
            producer_rms, producer_rms + n - 1, n - 1, 0), op
        # Each thread resumes after its sched_yield in the middle of its
        # routine: that is no call (the thread's last exit is parked with it).
        # (The consumer thread's first block, in libc's clone, is one.)
        mid_function = [rt.name for rt in r.routines.values()
                        if "+" in rt.name and Path(rt.object).name == Path(prog).name]
        assert not mid_function, f"{op}: activations started mid-function: {mid_function}"


def test_instruction_counts_exact(tmp_path):
    """--cost-metric=instructions charges every guest instruction once, to
    the routine it ran in, also across side exits taken and not taken:
    acc_branchy(10) runs 1 + 10 * 7 + 5 (the extra add of odd iterations)
    + 1 (the tail jump) = 77 instructions, acc_tail 2, acc_tail_leaf 1."""
    prog = program("accesses")
    run = run_tool(tmp_path, [prog, "noavx"], ["--cost-metric=instructions"])
    r = run.report
    got = {name: (ar.totals(r, routine(r, name, prog)).self_cost,
                  ar.totals(r, routine(r, name, prog)).cumulative_cost)
           for name in ("acc_branchy", "acc_tail", "acc_tail_leaf")}
    assert got == {"acc_branchy": (77, 80), "acc_tail": (2, 3), "acc_tail_leaf": (1, 1)}


def test_plt_stubs_get_no_frame(tmp_path):
    """calls.cc `plt 777` calls abs() through its PLT stub 777 times: abs has
    777 activations, and no routine of the program's own object runs more
    than twice (main, call_abs_loop and the C runtime's code once,
    print_count twice): a stub given a frame would run 777 times."""
    prog = program("calls")
    run = run_tool(tmp_path, [prog, "plt", "777"])
    r = run.report
    assert ar.activations(r, routine(r, "abs", "libc.so.6")) == 777
    busy = {rt.name: ar.activations(r, rt) for rt in r.routines.values()
            if Path(rt.object).name == Path(prog).name and ar.activations(r, rt) > 2}
    assert not busy, f"routines of {prog} run more than twice: {busy}"
