# SPDX-License-Identifier: GPL-2.0-or-later
"""What the tool tells about itself (docs/manual.md, "Statistics and sanity
checks"): the statistics of --stats=yes and -v, and Valgrind's sanity
checks (--sanity-level) run on the tool's state during real programs whose
counts stay exact."""
import os
import re

import pytest

from toolrun import Spec, check_counts, program, run_tools

STATS_BUILD = "-DAPROF_STATS" in os.environ.get("APROF_STATS_FLAGS", "")

SANITY = re.compile(r"aprof-trms: (\d+) cheap and (\d+) full sanity checks passed")


def sanity_checks(run):
    """(cheap, full) sanity checks passed before the statistics were printed."""
    found = SANITY.findall(run.stderr)
    assert len(found) == 1, run.describe()
    return tuple(int(n) for n in found[0])


def number(run, pattern):
    m = re.search(pattern, run.stderr)
    assert m, f"no line matching {pattern!r}\n{run.describe()}"
    return [int(g) for g in m.groups()]


# Programs that stress what the full check compares: 64 threads, some
# leaving with frames open; generators on their own stacks (the tracker's
# chain of stacks against the engine's pending activations); longjmp and
# exceptions out of recursion; handlers left by siglongjmp.
SANITY_RUNS = [
    ("threads", [], {"worker": 2080, "exit_level1": 8}),
    ("coroutines", ["mmap-high", "worker", "3", "10", "1000"], {"generate": 3, "produce": 30}),
    ("longjmp", ["50", "100"], {"recurse": 5000, "after_jump": 100}),
    ("exceptions", ["1000"], {}),
    ("signals", ["siglongjmp", "20"], {}),
]


@pytest.mark.parametrize("name,args,counts", SANITY_RUNS, ids=[r[0] for r in SANITY_RUNS])
def test_sanity_level_3_checks_every_time_slice(tmp_path, name, args, counts):
    prog = program(name)
    run = run_tools(tmp_path, [Spec([prog] + args, ["--sanity-level=3", "--stats=yes"])])[0]
    cheap, full = sanity_checks(run)
    assert cheap > 0 and full > 0, run.describe()
    if counts:
        check_counts(run, run.report, counts, prog)


def test_sanity_level_4_walks_the_shadow_through_renumbering(tmp_path):
    """The shadow walk at every time slice, with the counter renumbered every
    few hundred calls: no slot is ever left above the counter."""
    prog = program("recursion")
    run = run_tools(tmp_path, [Spec([prog, "tree", "10"],
                                    ["--sanity-level=4", "--stats=yes", "--overflow-threshold=500"])])[0]
    renumberings, = number(run, r"aprof-trms: (\d+) renumberings")
    assert renumberings > 2
    cheap, full = sanity_checks(run)
    assert full > 0, run.describe()
    check_counts(run, run.report, {"walk": 2047}, prog)


def test_a_run_shorter_than_a_time_slice_is_checked_at_exit_only(tmp_path):
    """At the default level Valgrind checks at the end of each time slice
    (100,000 superblocks) and once at exit, after the tool printed its
    statistics: a run shorter than a slice has none when they are printed."""
    run = run_tools(tmp_path, [Spec([program("recursion"), "direct", "1000"], ["--stats=yes"])])[0]
    assert sanity_checks(run) == (0, 0)


def test_statistics_with_stats_or_verbose_only(tmp_path):
    prog = program("recursion")
    stats, verbose, quiet = run_tools(tmp_path, [
        Spec([prog, "direct", "1000"], ["--stats=yes"]),
        Spec([prog, "direct", "1000"], ["-v"]),
        Spec([prog, "direct", "1000"]),
    ])
    for run in (stats, verbose):
        assert number(run, r"aprof-trms: (\d+) renumberings") == [0]
        routines, threads = number(run, r"aprof-trms: \d+ bytes of shadow memory, (\d+) routines, (\d+) threads")
        assert threads == 1 and routines > 1
        number(run, r"aprof-trms: shadow chunks of 64 KiB: (\d+) fresh, (\d+) reused")
        check_counts(run, run.report, {"rec": 1001}, prog)
    for line in ("renumberings", "shadow chunks", "sanity checks passed"):
        assert line not in quiet.stderr, quiet.describe()


def test_event_counters_only_in_a_stats_build(tmp_path):
    """configure --enable-stats counts slow-path events; the default tool
    says it did not count them rather than printing zeros."""
    prog = program("recursion")
    run = run_tools(tmp_path, [Spec([prog, "direct", "1000"], ["--stats=yes"])])[0]
    if not STATS_BUILD:
        assert "event counters: not counted (configure --enable-stats counts them)" in run.stderr, \
            run.describe()
        assert "owner searches" not in run.stderr
        return
    cell_reads, full_reads, unchanged_reads, owner_searches, fence_reads = number(
        run, r"aprof-trms: (\d+) cells read, (\d+) of them by ReadCell, (\d+) of these changing no size, "
        r"(\d+) owner searches; (\d+) ended at the fence below the counter")
    assert cell_reads > full_reads >= unchanged_reads + owner_searches and owner_searches > 0
    # rec re-reads its caller's cells after each callee returned.
    assert cell_reads - full_reads >= fence_reads > 0
    thread_misses, global_misses = number(
        run, r"aprof-trms: (\d+) chunk-cache misses of the thread shadows, (\d+) of the global shadow")
    assert thread_misses > 0 and global_misses > 0
    entries, unwound = number(run, r"aprof-trms: (\d+) superblock entry hook calls, (\d+) frames unwound")
    # rec's 1001 activations return by unwinding (the stack pointer leaves
    # their frames); each return enters a block through the hook.
    assert entries >= unwound >= 1001
