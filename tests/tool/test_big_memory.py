"""Programs that touch gigabytes get whole reports (tests/tool/programs/bigmem.cc).

Shadow memory comes from large regions (aprof-trms/core/shadow_allocator.h):
before, every 64 KiB chunk was a mapping of its own and Valgrind aborted
("VG_N_SEGMENTS is too low") at about 1 GiB touched, leaving no report. The
report's shadow-peak-bytes counts the shadow chunks and tables in use at the
peak: one chunk per 64 KiB of address space touched, for the thread and for
the global write shadow, of 64 KiB * 4 / resolution bytes each. Each of these
runs takes a few seconds and up to about 3.2 GB of memory.
"""
import re

import pytest

from aprof_trms import report as ar
from toolrun import check_counts, program, routine, run_tool

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
    # The thread's and the global shadow of the touched memory, plus tables
    # and the rest of the program (stack, libraries): less than 64 MiB.
    least = 2 * touched_chunks * chunk_bytes
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
