# SPDX-License-Identifier: GPL-2.0-or-later
"""Programs that touch gigabytes get whole reports (tests/tool/programs/bigmem.cc).

Shadow memory comes from large regions (aprof-trms/core/shadow_allocator.h):
before, every 64 KiB chunk was a mapping of its own and Valgrind aborted
("VG_N_SEGMENTS is too low") at about 1 GiB touched, leaving no report. The
report's shadow-peak-bytes counts the shadow chunks and tables in use at the
peak: one chunk per 64 KiB of address space touched, for the thread (the
global write shadow has none: one thread alone accesses the memory), of
64 KiB * 4 / resolution bytes each. Each of these runs takes a few seconds
and up to about 2 GB of memory.
"""
import re

import pytest

from aprof_trms import report as ar
from toolrun import Spec, check_counts, program, routine, run_tool, run_tools

MIB = 2 ** 20
CHUNK = 64 * 1024  # address space per shadow chunk
SMALL = 16  # cells of read_cells' first, small activation


def check_big_run(tmp_path, mib, stride, rounds, resolution=4):
    """Runs bigmem; checks the exact input sizes; returns (report, chunks
    touched in one round)."""
    prog = program("bigmem")
    opts = [] if resolution == 4 else [f"--memory-resolution={resolution}"]
    run = run_tool(tmp_path, [prog, str(mib), str(stride), str(rounds)], opts)
    r = run.report
    check_counts(run, r, {"write_cells": rounds, "read_cells": rounds + 1}, prog)
    cells = mib * MIB // stride
    assert f"cells {cells}" in run.stdout
    addresses = re.findall(r"^round \d+ at (0x[0-9a-f]+)$", run.stdout, re.M)
    assert len(addresses) == rounds and len(set(addresses)) == rounds, run.stdout
    # read_cells reads one int per cell and nothing else but its fixed part:
    # the small activation and every round's one differ by exactly that.
    read = routine(r, "read_cells", prog)
    for metric in ("rms", "trms"):
        by_size = ar.tuples(r, metric, read)
        assert len(by_size) == 2, by_size
        small, big = sorted(by_size)
        assert by_size[small].calls == 1 and by_size[big].calls == rounds
        assert big - small == cells - SMALL, (metric, small, big)
        assert by_size[big].sum_thread_induced == by_size[big].sum_external == 0
    touched_chunks = mib * MIB // max(stride, CHUNK)
    chunk_bytes = CHUNK * 4 // resolution
    peak = r.header.shadow_peak_bytes
    assert peak is not None, "the tool writes the shadow-peak-bytes record"
    # The thread's shadow of the touched memory, plus tables and the rest
    # of the program (stack, libraries): less than 64 MiB. No global write
    # times: the one thread alone accesses the memory (private chunks,
    # docs/design.md), which would double the shadow.
    least = touched_chunks * chunk_bytes
    assert least <= peak <= least + 64 * MIB, (peak, least)
    return r


def test_one_gib_touched_on_every_page(tmp_path):
    check_big_run(tmp_path, 1024, 4096, 1)


# Three rounds of map, touch, unmap, each at new addresses: unmapped memory's
# shadow is given back and reused, so the peak is that of one round, not three.
@pytest.mark.parametrize("resolution", [4, 16])
def test_four_gib_touched_sparsely_three_times(tmp_path, resolution):
    check_big_run(tmp_path, 4096, 64 * 1024, 3, resolution)


# 16 GiB of virtual memory, one int per 64 KiB: 32 GiB of shadow address space
# at 4-byte cells, about 3 GB resident.
def test_sixteen_gib_touched_sparsely(tmp_path):
    check_big_run(tmp_path, 16384, 64 * 1024, 1)


# --- Giving shadow memory back: the program must not grow ------------------------

def shadow_statistics(run):
    """What -v prints at exit: (peak resident KiB of the process, shadow
    chunks handed out fresh, and reused after being given back)."""
    hwm = re.search(r"aprof-trms: peak resident memory of the process \(VmHWM\) (\d+) KiB",
                    run.stderr)
    chunks = re.search(r"aprof-trms: shadow chunks of \d+ KiB: (\d+) fresh, (\d+) reused",
                       run.stderr)
    assert hwm and chunks, run.describe()
    assert int(hwm.group(1)) > 0, run.describe()
    return int(hwm.group(1)), int(chunks.group(1)), int(chunks.group(2))


# The test: map, touch and unmap 256 MiB fifty times (one int every
# 64 KiB, at new addresses each round). Each round's shadow is 4096 chunks
# (the thread's, 256 MiB of address space, 16 MiB resident; no global write
# times, as one thread alone accesses the memory);
# given back at every unmap and reused by the next round, so fifty rounds peak
# like one, in shadow-peak-bytes and in resident memory. Kept back, it would
# take 25 GiB of address space and 1.6 GB resident.
def test_fifty_rounds_of_256_mib_do_not_grow(tmp_path):
    prog = program("bigmem")
    one, fifty = run_tools(tmp_path, [Spec([prog, "256", "65536", str(rounds)], ["-v"])
                                      for rounds in (1, 50)])
    round_chunks = 256 * MIB // CHUNK
    check_counts(fifty, fifty.report, {"write_cells": 50, "read_cells": 51}, prog)
    peak_one = one.report.header.shadow_peak_bytes
    peak_fifty = fifty.report.header.shadow_peak_bytes
    assert peak_one >= round_chunks * CHUNK, peak_one
    # At most a few secondary tables (128 KiB each, one per GiB and shadow
    # memory): a round's 256 MiB may straddle a GiB boundary. Tables kept
    # until their whole GiB is unmapped, and the chunks at the two ends of
    # every unmapped range (not 64 KiB-aligned), added 9 MiB over fifty rounds.
    assert peak_fifty <= peak_one + 8 * 128 * 1024, (peak_one, peak_fifty)
    hwm_one, fresh_one, _ = shadow_statistics(one)
    hwm_fifty, fresh_fifty, reused_fifty = shadow_statistics(fifty)
    assert fresh_fifty <= fresh_one + 16, (fresh_one, fresh_fifty)
    assert reused_fifty >= 49 * round_chunks, reused_fifty
    # Half of one round's resident shadow: 16 MiB.
    assert hwm_fifty <= hwm_one + 16 * 1024, (hwm_one, hwm_fifty)


# A thread's shadow memory is given back when it exits: sixteen threads, one
# after the other, each writing one int on every page of its own fresh 64 MiB
# (unmapped after the thread's exit), peak like one, not like sixteen.
def test_threads_one_after_the_other_do_not_grow(tmp_path):
    prog = program("threadmem")
    one, sixteen = run_tools(tmp_path, [Spec([prog, "64", str(threads)], ["-v"])
                                        for threads in (1, 16)])
    check_counts(sixteen, sixteen.report, {"touch_pages": 16}, prog)
    assert len(set(re.findall(r"^thread \d+ at (0x[0-9a-f]+)$", sixteen.stdout, re.M))) == 16
    thread_chunks = 64 * MIB // CHUNK
    peak_one = one.report.header.shadow_peak_bytes
    peak_sixteen = sixteen.report.header.shadow_peak_bytes
    # The thread's shadow of its 64 MiB (no global write times: the memory
    # is the thread's alone, and its bits go with the unmap).
    assert peak_one >= thread_chunks * CHUNK, peak_one
    # A quarter of one thread's shadow: secondary tables of new addresses.
    assert peak_sixteen <= peak_one + thread_chunks * CHUNK // 4, (peak_one, peak_sixteen)
    hwm_one, fresh_one, _ = shadow_statistics(one)
    hwm_sixteen, fresh_sixteen, reused_sixteen = shadow_statistics(sixteen)
    assert fresh_sixteen <= fresh_one + 16, (fresh_one, fresh_sixteen)
    assert reused_sixteen >= 15 * thread_chunks, reused_sixteen
    # Half of one thread's resident shadow (64 MiB, every page written).
    assert hwm_sixteen <= hwm_one + 32 * 1024, (hwm_one, hwm_sixteen)
