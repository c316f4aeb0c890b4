# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the doubt on a routine whose largest input is the same in every
# process of a profile whose processes grow (evidence.py,
# input_fixed_across_processes; fit.py and rank.py use it).
#
# Copyright (C) 2026, the aprof-trms authors.
"""GNU sed run once per file, on files of 8 KB to 2 MB: its per-line
substitution routine read at most 1,016 to 1,072 cells in every process
(a line and the parts of the compiled regex it consults), and its points
fitted a confident n^2 that came first. Its input is not the program's:
the fit is inconclusive and says why."""
import pytest

import synthetic
from aprof_trms import evidence, profile, ranking

FIXED = "does not grow with the program's input"


def processes(tmp_path, count, grow=4):
    """Reports of `count` processes of one program: `scan` reads the whole
    input (`grow` times larger in each process), `line` the same sizes in
    each, with a quadratic cost."""
    paths = []
    for k in range(count):
        first = 8 * grow ** k
        paths.append(synthetic.write_report(tmp_path / f"aprof-trms.out.{100 + k}", [
            synthetic.Routine("scan", synthetic.COSTS["n"], synthetic.sizes(12, first=first),
                              calls=20),
            synthetic.Routine("line", synthetic.COSTS["n^2"], synthetic.sizes(12)),
        ], pid=100 + k, ppid=1, command=("./prog", f"input{k}")))
    return paths


def rows_by_name(paths):
    prof = profile.load_profile(paths)
    rows = ranking.rank_routines(prof, list(prof.routines.values()))
    return {row.routine.name: row for row in rows}, [row.routine.name for row in rows]


def test_a_routine_whose_input_is_fixed_across_growing_processes_is_inconclusive(tmp_path):
    rows, order = rows_by_name(processes(tmp_path, 4))
    assert not rows["line"].conclusive
    assert any(FIXED in doubt for doubt in rows["line"].result.doubts)
    assert "324 to 324 cells in each of 4 processes" in rows["line"].reason
    assert rows["scan"].conclusive and order[0] == "scan"


def test_without_the_processes_the_same_routine_is_confident(tmp_path):
    rows, order = rows_by_name(processes(tmp_path, 1))
    assert rows["line"].conclusive and order[0] == "line"


def test_two_processes_are_not_enough(tmp_path):
    rows, _ = rows_by_name(processes(tmp_path, 2, grow=64))
    assert not any(FIXED in doubt for doubt in rows["line"].result.doubts)


def test_processes_of_one_workload_do_not_doubt_it(tmp_path):
    """The same run several times (merged to smooth scheduling noise): the
    processes' costs do not grow, nothing tells the input apart."""
    rows, _ = rows_by_name(processes(tmp_path, 4, grow=1))
    assert rows["line"].conclusive


def test_the_profile_keeps_each_process_largest_input(tmp_path):
    paths = processes(tmp_path, 3)
    prof = profile.load_profile(paths)
    line = prof.find("line")[0]
    scan = prof.find("scan")[0]
    assert [entry[1:] for entry in line.per_process] == [(324, 324)] * 3
    assert [entry[1] for entry in scan.per_process] == [324, 1296, 5183]
    assert [entry[0] for entry in scan.per_process] == \
        [profile.load_profile([path]).total_cost for path in paths]


@pytest.mark.parametrize("per_process, fixed", [
    ([(100, 1000), (1000, 1000), (1000, 1000)], True),      # costs span 10x exactly
    ([(100, 1000), (999, 1000), (999, 1000)], False),       # less than 10x
    ([(100, 1000), (5000, 1490), (9000, 1200)], True),      # sizes span 1.49x
    ([(100, 1000), (5000, 1500), (9000, 1200)], False),     # 1.5x: the input follows
    ([(100, 1000), (5000, 1000)], False),                   # two processes
    ([(0, 1000), (5000, 1000), (9000, 1000)], False),       # no cost to compare with
])
def test_the_thresholds(per_process, fixed):
    doubt = evidence.input_fixed_across_processes(per_process)
    assert (doubt is not None) == fixed
    if fixed:
        assert FIXED in doubt and f"each of {len(per_process)} processes" in doubt
