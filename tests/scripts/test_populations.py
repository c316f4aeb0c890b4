# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of scripts/aprof_trms/populations.py and its use by fit.py and
rank.py: the worst-case points of a routine that does the same work on two
kinds of data (an interpreter's sort of integer lists and of string lists)
are two interleaved curves; the costlier one is fitted, and the fit is not
called inconclusive for the envelope the two curves split."""
import math
import os
import re
import random
import subprocess
import sys

import synthetic
from aprof_trms import fit as af
from aprof_trms import populations

RANK = os.path.join(synthetic.SCRIPTS, "rank.py")


def n_log_n(per_cell):
    return lambda n: 40.0 + per_cell * n * math.log2(n + 1)


def two_kinds(cheap, costly, cheap_sizes, costly_sizes, noise=0.02, seed=1):
    """Points of a routine working on two kinds of data: (sizes, costs, the
    mask of the costly kind's points), by size."""
    rnd = random.Random(seed)
    points = {n: (cheap(n), False) for n in cheap_sizes}
    points.update({n: (costly(n), True) for n in costly_sizes})
    sizes = sorted(points)
    costs = [round(points[n][0] * (1.0 + noise * rnd.uniform(-1.0, 1.0))) for n in sizes]
    return sizes, costs, [points[n][1] for n in sizes]


INTS = synthetic.sizes(40, first=30, ratio=1.2)                  # 30 to 37,000 cells
STRINGS = [s + 7 for s in synthetic.sizes(14, first=30, ratio=1.45)]   # 37 to 3,765


def two_sorts(cheap=n_log_n(4.0), costly=n_log_n(14.0), noise=0.02):
    """Sorts of integers (cheap) and of strings (costly) at interleaved
    sizes, the integer sorts going on beyond the largest string sort, as an
    interpreter's sort benchmark gives them: (sizes, costs) by size."""
    return two_kinds(cheap, costly, INTS, STRINGS, noise)[:2]


def split_from(sizes, costs, costly):
    """populations.split started from the true populations (`costly`),
    so that each test meets the one condition it is about."""
    return populations.split(sizes, costs, costly, af.ENVELOPE_DROP, af.CONFIDENT_R2,
                             af._enough_sizes)


def test_interleaved_sorts_are_fitted_on_the_costlier_curve():
    """The envelope alone keeps the string sorts and the integer sorts
    beyond the largest string sort: a thin envelope whose largest points
    are another curve's (inconclusive). Recognised as two populations, the
    string sorts are fitted alone: n log n, confident, the integer sorts
    left out with a note."""
    sizes, costs = two_sorts()
    result = af.fit_points(sizes, costs)
    assert result.conclusive, result.doubts
    assert result.best.model == "n log n", result.best.formula()
    assert result.left_out == 40
    assert len(result.sizes) == 14
    note = " ".join(result.notes)
    assert "two interleaved populations: 40 of 54 points" in note, note
    assert re.search(r"a curve 3\.\dx cheaper with the same log-log slope", note), note


def test_without_the_split_the_envelope_is_thin(monkeypatch):
    """What the rule changes: the envelope alone keeps the string sorts
    and the integer sorts beyond the largest string sort, less than half
    of the points, whose largest are the other curve's: inconclusive."""
    monkeypatch.setattr(populations, "split", lambda *args: None)
    result = af.fit_points(*two_sorts())
    assert not result.conclusive
    assert any(d.startswith("the upper envelope keeps 26 of 54 points") for d in result.doubts), \
        result.doubts


def test_split_masks_the_costlier_population():
    sizes, costs = two_sorts()
    found = populations.split(sizes, costs, af.upper_envelope(sizes, costs).tolist(),
                              af.ENVELOPE_DROP, af.CONFIDENT_R2, af._enough_sizes)
    assert found is not None
    assert [n for n, u in zip(sizes, found.upper) if u] == STRINGS
    assert abs(found.slopes[0] - found.slopes[1]) < 0.05
    assert 3.0 < found.ratio < 4.0


def test_curves_of_different_growth_are_not_two_populations():
    """n against n^1.5, 3x apart at the smallest size: not the same work on
    two kinds of data."""
    sizes, costs, costly = two_kinds(lambda n: 4.0 * n, lambda n: 12.0 * n ** 1.5 / math.sqrt(30.0),
                                     INTS, STRINGS)
    assert split_from(sizes, costs, costly) is None
    assert split_from(*two_kinds(lambda n: 4.0 * n, lambda n: 12.0 * n, INTS, STRINGS)) is not None


def test_a_cloud_of_scattered_costs_is_not_cut_in_two():
    """Costs scattered 1x to 8x around one line fill the gap two-means
    would cut: no split, the envelope's answer."""
    rnd = random.Random(3)
    sizes = synthetic.sizes(60, first=30, ratio=1.12)
    costs = [round(20.0 * n * math.exp(rnd.uniform(0.0, math.log(8.0)))) for n in sizes]
    assert populations.split(sizes, costs, af.upper_envelope(sizes, costs).tolist(),
                             af.ENVELOPE_DROP, af.CONFIDENT_R2, af._enough_sizes) is None
    assert "two interleaved" not in " ".join(af.fit_points(sizes, costs).notes)


def test_gap_below_the_envelope_drop_is_one_population():
    """Two curves 1.5x apart: a cheaper path is 2x cheaper (ENVELOPE_DROP)."""
    assert split_from(*two_kinds(n_log_n(10.0), n_log_n(15.0), INTS, STRINGS, noise=0.0)) is None
    assert split_from(*two_kinds(n_log_n(10.0), n_log_n(25.0), INTS, STRINGS, noise=0.0)) is not None


def test_flat_bands_of_scattered_costs_are_not_curves():
    """Two bands 10x apart whose costs scatter 1.5x without growing: each
    line explains little of its points (R^2 below fit.CONFIDENT_R2)."""
    rnd = random.Random(5)
    flat = lambda level: lambda n: level * rnd.uniform(1.0, 1.5)   # noqa: E731
    sizes, costs, costly = two_kinds(flat(100.0), flat(1000.0), INTS, STRINGS, noise=0.0)
    assert split_from(sizes, costs, costly) is None


def test_populations_must_interleave():
    """The costly curve at small sizes only, the cheap one at large sizes
    only: a change of regime, not two kinds of data."""
    small = synthetic.sizes(12, first=30, ratio=1.45)
    large = [s * 64 + 1 for s in small]
    sizes, costs, costly = two_kinds(n_log_n(4.0), n_log_n(14.0), large, small)
    assert split_from(sizes, costs, costly) is None
    # Overlapping over half the narrower range: interleaved enough.
    shifted = [s * 4 + 1 for s in small]
    assert split_from(*two_kinds(n_log_n(4.0), n_log_n(14.0), shifted, small)) is not None


def test_rank_puts_the_two_population_sort_before_a_small_confident_row(tmp_path):
    """The sort holds most of the cost; a small routine (a start-up
    routine's n log n) is confident. Called inconclusive, the sort came
    after it; fitted on its costlier population it is first."""
    sizes, costs = two_sorts()
    worst = dict(zip(sizes, costs))
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", [
        synthetic.Routine("sort", lambda n: worst[n], sizes),
        synthetic.Routine("startup", n_log_n(0.05), synthetic.sizes(20, first=30, ratio=1.45),
                          noise=0.01),
    ])
    r = subprocess.run([sys.executable, RANK, "--min-share", "0", path], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    rows = [line.split() for line in r.stdout.splitlines() if line[:3].strip().isdigit()]
    assert [row[6] for row in rows[:2]] == ["sort", "startup"], r.stdout
    assert rows[0][3] == "ok", r.stdout


def test_points_of_size_or_cost_0_keep_the_envelope_verdict():
    """The log-log scale has no place for 0: a routine that read nothing
    once (size 0) still has its two populations found, and that point
    stays where the envelope put it."""
    sizes, costs = two_sorts()
    found = populations.split([0] + sizes, [3] + costs, [True] + af.upper_envelope(sizes, costs).tolist(),
                              af.ENVELOPE_DROP, af.CONFIDENT_R2, af._enough_sizes)
    assert found is not None and found.upper[0] is True
    assert [n for n, u in zip(sizes, found.upper[1:]) if u] == STRINGS
