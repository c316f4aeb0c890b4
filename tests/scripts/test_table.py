# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the per-routine table (aprof_trms/table.py) shared by the annotate
# view and the HTML report.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Rows of synthetic reports whose every activation is known
(synthetic.activations): calls, costs, shares, distinct sizes, richness,
induced shares and fits are checked against numbers computed here from the
activations, not from the profile code; sorting and the per-thread split too."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
from aprof_trms import profile as aprof_profile  # noqa: E402
from aprof_trms import report as aprof_report  # noqa: E402
from aprof_trms import table  # noqa: E402
import synthetic  # noqa: E402

SCAN = synthetic.Routine("scan", synthetic.COSTS["n"], synthetic.sizes(8), calls=2,
                         rms=lambda n: n // 3)
FLAT = synthetic.Routine("flat", synthetic.COSTS["1"], synthetic.sizes(2), calls=3)
QUAD = synthetic.Routine("quad", synthetic.COSTS["n^2"], synthetic.sizes(6))


def write(tmp_path, threads=2):
    return synthetic.write_report(tmp_path / "aprof-trms.out.1", [SCAN, FLAT, QUAD], threads=threads)


def test_row_numbers_come_from_the_activations(tmp_path):
    profile = aprof_profile.load_profile([write(tmp_path)])
    rows = {row.name: row for row in table.routine_rows(profile)}
    acts = synthetic.activations(SCAN)
    cost = sum(c for _, _, c in acts)
    sum_trms = sum(t for t, _, _ in acts)
    induced = sum(t - r for t, r, _ in acts)
    scan = rows["scan"]
    assert scan.calls == len(acts) == 16
    assert scan.self_cost == scan.inclusive_cost == cost
    assert abs(scan.inclusive_share - 100.0 * cost / profile.total_cost) < 1e-9
    # Self costs are disjoint: shares of the same total, adding up to at most 100%.
    assert abs(scan.self_share - 100.0 * cost / profile.total_cost) < 1e-9
    assert sum(row.self_share for row in rows.values()) <= 100.0
    assert scan.distinct_trms == 8
    assert scan.distinct_rms == len({r for _, r, _ in acts})
    assert abs(scan.richness - (8 - scan.distinct_rms) / scan.distinct_rms) < 1e-12
    assert abs(scan.thread_share - 100.0 * induced / sum_trms) < 1e-9
    assert scan.external_share == 0.0
    assert scan.fit_label("trms") == "n" and scan.trms_growth == 1.0
    # 6 sizes: fewer than aprof_fit.CONFIDENT_SIZES, so the class is marked inconclusive.
    assert rows["quad"].fit_label("trms") == "n^2?" and rows["quad"].trms_growth == 2.0
    # Too few sizes: no model, and a growth below every fitted one.
    assert rows["flat"].fit_label("trms") == "-" and rows["flat"].trms_growth < 0
    assert "only 2 distinct sizes" in rows["flat"].fits["trms"].reason
    # Largest inclusive cost first.
    ordered = table.routine_rows(profile)
    assert [r.inclusive_cost for r in ordered] == sorted((r.inclusive_cost for r in ordered), reverse=True)


def test_sort_rows_by_every_column(tmp_path):
    rows = table.routine_rows(aprof_profile.load_profile([write(tmp_path)]))
    for column in table.COLUMNS:
        for ascending in (False, True):
            got = table.sort_rows(rows, column.key, ascending)
            values = [r.sort_value(column.key) for r in got]
            assert values == sorted(values, reverse=not ascending), column.key
    assert [r.name for r in table.sort_rows(rows, "name", True)] == ["flat", "quad", "scan"]
    assert [r.name for r in table.sort_rows(rows, "trms_growth")] == ["quad", "scan", "flat"]


def test_thread_profiles_split_the_merged_profile(tmp_path):
    path = write(tmp_path, threads=3)
    merged = aprof_profile.load_profile([path])
    parts = table.thread_profiles([aprof_report.load(path)])
    assert [label for label, _ in parts] == ["thread 1 (tid 1)", "thread 2 (tid 2)", "thread 3 (tid 3)"]
    assert sum(p.total_cost for _, p in parts) == merged.total_cost
    for key, routine in merged.routines.items():
        assert sum(p.routines[key].calls for _, p in parts if key in p.routines) == routine.calls
    # Activation i of each routine ran in thread i % 3 + 1: scan's 16 activations split 6, 5, 5.
    scan = ("/usr/bin/synthetic", "scan")
    assert [p.routines[scan].calls for _, p in parts] == [6, 5, 5]
    # A thread's profile has the routines that ran in it only.
    one = synthetic.write_report(tmp_path / "aprof-trms.out.2", [QUAD], threads=8)
    assert [len(p.routines) for _, p in table.thread_profiles([aprof_report.load(one)])] == [1] * 6 + [0] * 2
    # Shares are of the thread's own total.
    row = [r for r in table.routine_rows(parts[0][1]) if r.name == "scan"][0]
    assert abs(row.inclusive_share - 100.0 * row.inclusive_cost / parts[0][1].total_cost) < 1e-9
