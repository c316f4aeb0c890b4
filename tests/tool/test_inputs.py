# SPDX-License-Identifier: GPL-2.0-or-later
"""Input sizes: RMS and TRMS of routines whose input is known exactly
(paper, section 2: a loop over an array, producer/consumer over one cell,
buffered reads from the kernel)."""
import pytest

from aprof_trms import report as ar
from toolrun import Spec, program, routine, run_tools, tuple_of


def sizes(run, name, prog, thread=None):
    """(RMS, TRMS, thread-induced, external) of a routine with one activation."""
    r = run.report
    rt = routine(r, name, prog)
    rms = tuple_of(r, "rms", rt)
    trms = tuple_of(r, "trms", rt)
    assert rms.calls == trms.calls == 1
    if thread is not None:
        assert {th for (th, rid) in r.totals if rid == rt.id} == {thread}
    return rms.size, trms.size, trms.sum_thread_induced, trms.sum_external


@pytest.mark.parametrize("resolution", [1, 2, 4, 8, 16])
def test_sum_array_input_is_the_array(tmp_path, resolution):
    prog = program("sumarray")
    n1, n2 = 1000, 3000  # multiples of 4; the array is 64-byte aligned
    opts = [] if resolution == 4 else [f"--memory-resolution={resolution}"]  # 4: default
    run1, run2 = run_tools(tmp_path, [Spec([prog, str(n1)], opts), Spec([prog, str(n2)], opts)])
    cells = {n: n * 4 // resolution for n in (n1, n2)}
    assert run1.report.header.memory_resolution == resolution
    s1, s2 = sizes(run1, "sum_array", prog), sizes(run2, "sum_array", prog)
    for n, (rms, trms, induced, external) in ((n1, s1), (n2, s2)):
        assert rms == trms, "single thread, no system call: TRMS = RMS"
        assert induced == external == 0
        assert rms >= cells[n]
    assert s2[0] - s1[0] == cells[n2] - cells[n1]
    # The caller's input contains the same array.
    c1, c2 = sizes(run1, "run_sum", prog), sizes(run2, "run_sum", prog)
    assert c2[0] - c1[0] == cells[n2] - cells[n1]
    assert c1[0] == c1[1] and c2[0] == c2[1]


def test_sum_array_cost_grows_with_n(tmp_path):
    prog = program("sumarray")
    runs = run_tools(tmp_path, [Spec([prog, str(n)]) for n in (1000, 2000, 4000)])
    costs = []
    for run in runs:
        r = run.report
        t = ar.totals(r, routine(r, "sum_array", prog))
        assert t.self_cost == t.cumulative_cost  # a leaf
        costs.append(t.cumulative_cost)
    # Linear: the same growth for each extra 1000 elements (the loop body), at
    # least one basic block per element.
    assert costs[1] - costs[0] >= 1000
    assert costs[2] - costs[1] == 2 * (costs[1] - costs[0])


def test_producer_consumer_spin(tmp_path):
    """consume_all reads ONE cell N times, each time after the producer thread
    wrote it: TRMS grows by 2 per item (the cell and the flag), RMS does not
    (tests/tool/programs/prodcons.cc explains the exact counts)."""
    prog = program("prodcons")
    n1, n2 = 10, 100
    run1, run2 = run_tools(tmp_path, [Spec([prog, "spin", str(n1)]), Spec([prog, "spin", str(n2)])])
    for run in (run1, run2):
        r = run.report
        assert len(r.threads) == 2
        assert ar.activations(r, routine(r, "consume_all", prog)) == 1
        assert ar.activations(r, routine(r, "produce_all", prog)) == 1
    (rms1, trms1, ind1, ext1) = sizes(run1, "consume_all", prog, thread=2)
    (rms2, trms2, ind2, ext2) = sizes(run2, "consume_all", prog, thread=2)
    assert rms1 == rms2
    assert trms2 - trms1 == 2 * (n2 - n1)
    assert ind2 - ind1 == 2 * (n2 - n1)
    assert ind1 >= 2 * n1 and trms1 >= 2 * n1 and trms1 >= rms1
    assert ext1 == ext2 == 0
    # The producer reads `full` after each consumer write of 0 (N - 1 times)
    # and the consumer's ready flag once: N thread-induced reads in all.
    p1, p2 = (sizes(run, "produce_all", prog, thread=1)[2] for run in (run1, run2))
    assert (p1, p2) == (n1, n2)


def test_rms_only(tmp_path):
    """--trms=no computes the RMS alone: the same RMS as a full run, every
    TRMS equal to it, no induced read; the report header says so."""
    prog = program("prodcons")
    full, rms_only = run_tools(tmp_path, [Spec([prog, "spin", "50"]),
                                          Spec([prog, "spin", "50"], ["--trms=no"])])
    assert full.report.header.trms_tracking and not rms_only.report.header.trms_tracking
    rms, trms, induced, external = sizes(rms_only, "consume_all", prog, thread=2)
    assert (trms, induced, external) == (rms, 0, 0)
    assert rms == sizes(full, "consume_all", prog, thread=2)[0]
    r = rms_only.report
    assert {k: (t.calls, t.sum_cost) for k, t in r.trms.items()} == \
           {k: (t.calls, t.sum_cost) for k, t in r.rms.items()}
    assert all(t.sum_thread_induced == t.sum_external == 0 for t in r.trms.values())


def test_producer_consumer_semaphores(tmp_path):
    """The same with POSIX semaphores: TRMS grows at least by one per item;
    RMS stays small (exact values depend on the paths inside sem_wait)."""
    prog = program("prodcons")
    n1, n2 = 10, 100
    run1, run2 = run_tools(tmp_path, [Spec([prog, "sem", str(n1)]), Spec([prog, "sem", str(n2)])])
    (rms1, trms1, ind1, _), (rms2, trms2, ind2, _) = (
        sizes(run, "consume_all_sem", prog, thread=2) for run in (run1, run2))
    assert trms2 - trms1 >= n2 - n1
    assert ind2 - ind1 >= n2 - n1
    assert trms1 >= n1 and ind1 >= n1
    assert abs(rms2 - rms1) < (n2 - n1) // 4, (rms1, rms2)


@pytest.mark.parametrize("syscall_input", ["all", "io"])
def test_buffered_read_loop(tmp_path, syscall_input):
    """read_loop reads buf[0] after each read(): external input K (the kernel
    rewrote buf[0] each time), RMS constant (paper, Example 4)."""
    prog = program("syscalls")
    k1, k2 = 10, 100
    opts = [f"--syscall-input={syscall_input}"]
    run1, run2 = run_tools(tmp_path, [
        Spec([prog, "read", str(k), str(tmp_path / f"data{k}")], opts) for k in (k1, k2)])
    (rms1, trms1, ind1, ext1), (rms2, trms2, ind2, ext2) = (
        sizes(run, "read_loop", prog) for run in (run1, run2))
    assert rms1 == rms2
    assert trms2 - trms1 == k2 - k1
    assert ext2 - ext1 == k2 - k1
    assert ext1 >= k1 and trms1 >= k1 and trms1 >= rms1
    assert ind1 == ind2 == 0


def test_uname_is_input_only_with_syscall_input_all(tmp_path):
    prog = program("syscalls")
    k1, k2 = 5, 50
    runs = run_tools(tmp_path, [Spec([prog, "uname", str(k)], [f"--syscall-input={mode}"])
                                for mode in ("all", "io") for k in (k1, k2)])
    (a1, a2, i1, i2) = (sizes(run, "uname_loop", prog) for run in runs)
    # all: each uname() rewrites the byte the routine then reads.
    assert a2[1] - a1[1] == k2 - k1
    assert a2[3] - a1[3] == k2 - k1
    assert a1[3] >= k1
    assert a1[0] == a2[0]
    # io: uname is not an I/O system call; its writes are not input.
    for rms, trms, induced, external in (i1, i2):
        assert external == induced == 0
        assert trms == rms
    assert i1 == i2


@pytest.mark.parametrize("syscall_input", ["all", "io"])
def test_kernel_reads_count_as_reads(tmp_path, syscall_input):
    """write() makes the kernel read the buffer: as if the routine read it."""
    prog = program("syscalls")
    b1, b2 = 256, 1024
    runs = run_tools(tmp_path, [Spec([prog, "write", str(b)], [f"--syscall-input={syscall_input}"])
                                for b in (b1, b2)])
    (rms1, trms1, _, ext1), (rms2, trms2, _, ext2) = (sizes(run, "write_block", prog) for run in runs)
    assert rms2 - rms1 == (b2 - b1) // 4
    assert rms1 == trms1 and rms2 == trms2
    assert rms1 >= b1 // 4
    assert ext1 == ext2 == 0
