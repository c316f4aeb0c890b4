# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of what a fit's points support (aprof_trms/evidence.py) and of the
# doubts, the exponent interval and the growth factor fit.py derives from it.
#
# Copyright (C) 2026, the aprof-trms authors.
"""On real programs the top-ranked growth was fake: hundreds of sizes in
four clusters fitted "confident n^3", and a mixed model extrapolated a term
the points did not show. These tests pin the rules that prevent it."""
import math

import numpy as np
import pytest

import synthetic  # noqa: F401
from aprof_trms import evidence, fit


def test_sizes_are_counted_in_clusters_on_a_log_scale():
    # Four value sizes of a server's replies, each with some spread.
    assert evidence.size_clusters([16, 17, 18, 130, 135, 1024, 1100, 4096, 4200]) == 4
    assert evidence.size_clusters([8, 10, 13, 16, 20, 25]) == 6   # 1.25x steps apart
    assert evidence.size_clusters([0, 0, 1, 2]) == 3              # 0 is a cluster of its own
    assert evidence.size_span([0, 4, 8, 16]) == 4.0
    assert evidence.size_span([5]) == 1.0


def test_tail_slope_is_the_points_slope_at_the_largest_sizes():
    n = np.array([100, 200, 400, 800, 1600, 3200.0])
    assert evidence.tail_slope(n, 3 * n ** 1.9) == pytest.approx(1.9)
    # Linear below, quadratic over the largest doublings: the tail says 2.
    bent = np.where(n < 800, 10 * n, 10 * 800 * (n / 800) ** 2)
    assert evidence.tail_slope(n, bent) == pytest.approx(2.0)


def test_tail_slope_resists_one_odd_point():
    """A worst-case curve scatters: one cheap point just below the largest
    size must not swing the slope (a least-squares slope goes to 0.2)."""
    n = np.array([1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900, 2000.0])
    y = 5 * n
    y[-2] = y[-2] / 50
    assert evidence.tail_slope(n, y) == pytest.approx(1.0, abs=0.05)


def test_tail_slope_holds_at_least_three_clusters():
    """The largest doubling alone holds two sizes: one odd point there would
    decide the slope; widened to three clusters, the median of the slopes
    between them follows the other points."""
    n = np.array([100, 200, 400, 800, 1600, 3200.0])
    y = 5 * n
    y[-2] = y[-2] / 50
    assert evidence.tail_slope(n, y) == pytest.approx(1.0)


def test_local_slope_and_growth_factor_follow_the_points_when_the_model_is_steeper():
    mixed = fit.Fit("n^3", -113.0, 7.15e-6, None, 0.0, 1.0, 0.0, c=4.63)
    assert evidence.local_slope(mixed.predict, 3200) == pytest.approx(2.88, abs=0.02)
    slope = evidence.local_slope(mixed.predict, 3200)
    factor, follows = evidence.growth_factor(mixed.predict, 3200, 10, 1.86, slope)
    assert follows and factor == pytest.approx(10 ** 1.86)
    factor, follows = evidence.growth_factor(mixed.predict, 3200, 10, 2.8, slope)
    assert not follows and factor == pytest.approx(float(mixed.predict(32000) / mixed.predict(3200)))


def clean(sizes, cost):
    return fit.fit_points(sizes, [round(cost(n)) for n in sizes])


def test_clustered_sizes_narrow_spans_and_thin_envelopes_are_inconclusive():
    clustered = [40, 41, 42, 43, 400, 410, 420, 4000, 4100, 4200]
    result = clean(clustered, lambda n: 3 * n * n + 50)
    assert not result.conclusive
    assert any("10 sizes fall in 3 clusters" in d for d in result.doubts), result.doubts
    narrow = [1000 + 25 * i for i in range(12)]
    result = clean(narrow, lambda n: 7 * n)
    assert any("sizes span only 1.27x" in d for d in result.doubts), result.doubts
    # Most points a cheap path: the envelope keeps 10 of 24 (the cheap
    # points at the smallest size have nothing smaller to be cheaper than).
    sizes = synthetic.sizes(8) * 3
    costs = [100 * n if i < 8 else 10 + n for i, n in enumerate(sizes)]
    result = fit.fit_points(sizes, costs)
    assert result.left_out == 14
    assert any("upper envelope keeps 10 of 24 points" in d for d in result.doubts), result.doubts
    spread = clean(synthetic.sizes(12), lambda n: 3 * n * n + 50)
    assert spread.conclusive, spread.doubts


def test_a_model_steeper_than_its_points_at_the_largest_sizes_is_inconclusive():
    sizes = synthetic.sizes(12)
    result = clean(sizes, lambda n: 20 * n ** 1.5)
    assert result.conclusive, result.doubts
    # The same points with a chosen model that bends up more at the top.
    result.best = fit.Fit("n^3", 0.0, 20 * max(sizes) ** -1.5, None, 0.0, 0.99, 0.0)
    doubts = fit._doubts(result)
    assert any(d.startswith("grows with slope 3.00 at the largest sizes, where its points rise "
                            "with slope 1.50") for d in doubts), doubts
    assert result.effective_growth() == pytest.approx(1.5, abs=0.01)


def test_a_model_flatter_than_its_points_at_the_largest_sizes_is_inconclusive():
    """The other way round: a chosen model that bends less than its points
    at the largest sizes understates the growth where extrapolation
    starts."""
    sizes = synthetic.sizes(12)
    result = clean(sizes, lambda n: 20 * n ** 1.5)
    result.best = fit.Fit("n", 0.0, 20 * max(sizes) ** 0.5, None, 0.0, 0.99, 0.0)
    doubts = fit._doubts(result)
    assert any(d.startswith("grows with slope 1.00 at the largest sizes, where its points rise "
                            "with slope 1.50") for d in doubts), doubts


def test_a_model_steeper_than_its_points_beyond_its_own_interval_is_inconclusive():
    """bc squares numbers of 100 to 20,000 digits by Karatsuba (n^1.58 in
    the digits, one digit a byte: a quarter cell each); every activation
    also reads the allocator's state, a slowly growing 100 to 580 cells.
    The small sizes are mostly that state, the size range is compressed at
    its small end, and the whole range fits a confident-looking n^2 whose
    interval lies above the slope of the largest sizes (1.7), where the
    state matters least: 0.28 steeper, within SLOPE_TOLERANCE but beyond
    STEEPER_TOLERANCE and outside the fit's own interval."""
    digits = synthetic.sizes(30, 100, 1.2)
    result = fit.fit_points([int(d / 4 + 100 * (d / 100) ** 0.33) for d in digits],
                            [round(50 * d ** 1.58) for d in digits])
    model, points = result.slopes()
    assert evidence.STEEPER_TOLERANCE < model - points < evidence.SLOPE_TOLERANCE
    assert points < result.interval[0]
    assert not result.conclusive
    assert any(d.startswith(f"grows with slope {model:.2f} at the largest sizes, where its points "
                            f"rise with slope {points:.2f}") for d in result.doubts), result.doubts


def test_scattered_top_points_leave_the_interval_rule_alone_to_decide():
    """The same Karatsuba with its second largest point 10% low (bc's
    worst cases scatter 3x at one size): the points' slope at the top is
    uncertain, the rule for points on a line (steeper_than_the_top) does
    not apply, and the model's interval lying above that slope is what
    makes the fit inconclusive."""
    digits = synthetic.sizes(30, 100, 1.2)
    costs = [round(50 * d ** 1.58) for d in digits]
    costs[-2] = round(costs[-2] * 0.9)
    result = fit.fit_points([int(d / 4 + 100 * (d / 100) ** 0.33) for d in digits], costs)
    model, points = result.slopes()
    assert evidence.STEEPER_TOLERANCE < model - points < evidence.SLOPE_TOLERANCE
    assert not evidence.steeper_than_the_top(model, points, result.interval, result.sizes,
                                             result.costs)
    assert not result.conclusive
    assert any(d.startswith("grows with slope") for d in result.doubts), result.doubts


def karatsuba_behind_allocator_state():
    """The fit of the test above: bc's Karatsuba over sizes that also hold
    the allocator's slowly growing state (n^2 where its points rise with
    slope 1.73 at the largest sizes)."""
    digits = synthetic.sizes(30, 100, 1.2)
    return fit.fit_points([int(d / 4 + 100 * (d / 100) ** 0.33) for d in digits],
                          [round(50 * d ** 1.58) for d in digits])


def test_a_model_judged_steeper_than_its_points_extrapolates_with_their_slope():
    """The doubt's measure decides, not SLOPE_TOLERANCE alone: a model 0.27
    steeper than its points, outside its own interval, has been judged
    unsupported at the largest sizes; its n^2 (100x at 10x input) must not
    extrapolate where the points support 10^1.73."""
    result = karatsuba_behind_allocator_state()
    model, points = result.slopes()
    assert model - points < evidence.SLOPE_TOLERANCE
    assert result.steeper_than_points()
    factor, follows = result.growth_factor(10)
    assert follows and factor == pytest.approx(10 ** points)
    assert result.effective_growth() == pytest.approx(points)


def test_only_slightly_steeper_than_points_when_that_is_the_one_doubt():
    result = karatsuba_behind_allocator_state()
    assert result.doubts == [d for d in result.doubts if d.startswith("grows with slope 2.00")]
    assert result.only_slightly_steeper_than_points()
    result.prior_doubts = ["two regimes"]   # any other doubt: the points are in doubt too
    result.judged = None
    assert result.steeper_than_points() and not result.only_slightly_steeper_than_points()
    # Steeper by more than SLOPE_TOLERANCE, its one doubt: the largest
    # sizes are another regime than the one fitted.
    bent = clean(synthetic.sizes(12), lambda n: 20 * n ** 1.5)
    bent.best = fit.Fit("n^2", 0.0, 20 * max(bent.sizes) ** -0.5, None, 0.0, 0.99, 0.0)
    bent.model_slope_known, bent.judged = False, None
    assert len(bent.doubts) == 1 and bent.steeper_than_points()
    assert bent.slopes()[0] - bent.slopes()[1] > evidence.SLOPE_TOLERANCE
    assert not bent.only_slightly_steeper_than_points()
    # Flatter than its points: no growth to follow instead.
    flat = clean(synthetic.sizes(12), lambda n: 20 * n ** 1.5)
    flat.best = fit.Fit("n", 0.0, 20 * max(flat.sizes) ** 0.5, None, 0.0, 0.99, 0.0)
    flat.model_slope_known, flat.judged = False, None
    assert not flat.conclusive and not flat.steeper_than_points()
    assert not flat.only_slightly_steeper_than_points()


def test_a_smaller_disagreement_needs_the_interval_to_exclude_the_points():
    # bc's multiplication: n^2.21 [2.04, 2.38], its points 1.90 at the top.
    assert evidence.disagrees_with_points(2.21, 1.90, (2.04, 2.38))
    # A wide interval that holds the points' slope (fd's file walker).
    assert not evidence.disagrees_with_points(0.99, 0.69, (0.61, 1.17))
    # Outside the interval, but by less than STEEPER_TOLERANCE: a log factor.
    assert not evidence.disagrees_with_points(1.20, 1.05, (1.10, 1.30))
    assert not evidence.disagrees_with_points(2.21, 1.90, None)
    # Flatter than the points: only SLOPE_TOLERANCE decides.
    assert not evidence.disagrees_with_points(1.70, 2.00, (1.80, 1.90))
    assert evidence.disagrees_with_points(1.60, 2.00, (1.50, 1.70))


def two_kinds_of_frees():
    """tclsh's TclFreeObj: small objects at about 3 blocks per cell, then
    the lists the script replaces at 7 blocks per cell from 2,000 cells
    on; each linear, the step between them bends a fit over the whole
    range into n log n with a negative linear term."""
    sizes = synthetic.sizes(30, 40, 1.3)
    return sizes, [(3 if n < 2000 else 7) * n for n in sizes]


def test_a_model_steeper_than_points_on_a_line_at_the_top_is_inconclusive():
    sizes, costs = two_kinds_of_frees()
    result = fit.fit_points(sizes, costs)
    model, points = result.slopes()
    assert result.best.model == "n log n" and result.best.c < 0
    # Within what disagrees_with_points allows a log factor, ...
    assert not evidence.disagrees_with_points(model, points, result.interval)
    # ... but the top's slope is certain, and the log factor of 80,615 adds 0.09.
    assert evidence.tail_slope_high(sizes, costs) == pytest.approx(1.0)
    assert model - 1.0 > evidence.log_factor_slope(max(sizes)) == pytest.approx(1 / math.log(80615))
    assert not result.conclusive
    assert any(d.startswith(f"grows with slope {model:.2f} at the largest sizes, where its points "
                            "rise with slope 1.00") for d in result.doubts), result.doubts


def test_a_log_factor_over_noisy_points_at_the_top_stays_confident():
    """n log n with 2% noise: the points' slope at the top is uncertain
    (0.93 to 1.22 over these seeds), and a model steeper than it by more
    than the log factor is within its interval."""
    sizes = synthetic.sizes(30, 40, 1.3)
    for seed in range(30):
        result = noisy_n_log_n(sizes, seed)
        assert result.conclusive, (seed, result.doubts)


def test_the_upper_end_of_the_points_slope_widens_with_their_scatter():
    n = np.arange(1000, 2001, 100.0)   # 11 sizes, all in the tail
    assert evidence.tail_slope_high(n, 3 * n ** 1.5) == pytest.approx(1.5)
    scattered = 3 * n ** 1.5 * np.array([1.0, 1.1, 0.9, 1.2, 0.8, 1.1, 0.9, 1.0, 1.2, 0.9, 1.0])
    logs = list(zip(np.log(n), np.log(scattered)))
    slopes = sorted((v2 - v1) / (x2 - x1) for i, (x1, v1) in enumerate(logs) for x2, v2 in logs[i + 1:])
    # Sen's 95% interval over 11 points: Kendall's S has the standard
    # deviation 12.8, and 1.96 of them leave out the 13 largest of the 55
    # pair slopes.
    assert evidence.tail_slope_high(n, scattered) == pytest.approx(slopes[-14])
    assert slopes[-14] > evidence.tail_slope(n, scattered) + 0.5
    assert evidence.tail_slope_high([5], [7]) is None
    assert evidence.log_factor_slope(100) == pytest.approx(0.217, abs=0.001)
    assert evidence.log_factor_slope(10) == evidence.SLOPE_TOLERANCE


def noisy_n_log_n(sizes, seed):
    rng = np.random.default_rng(seed)
    return fit.fit_points(sizes, [round(4 * n * math.log2(n + 1) * (1 + 0.02 * rng.standard_normal()))
                                  for n in sizes])


def power_interval(result):
    """The free power's own interval (FitResult.interval also takes in the
    chosen class's exponent)."""
    power = next(f for f in result.candidates if f.model == "n^k")
    return power.k_low, power.k_high


def test_the_exponent_interval_counts_clusters_not_points():
    spread = [int(40 * 1000 ** (i / 15)) for i in range(16)]       # 40 to 40,000
    fitted = noisy_n_log_n(spread, 5)
    low, high = power_interval(fitted)   # n log n looks like n^1.15 here
    assert 1.05 < low <= high < 1.3 and high - low < 0.1, (low, high)
    # The interval shown takes in the chosen class's exponent (n log n: 1.1).
    assert fitted.interval == (min(low, 1.1), max(high, 1.1))
    # The same span in four clusters of four sizes: as many points, four
    # observations of the exponent, a wider interval.
    clustered = [int(s * f) for s in (40, 400, 4000, 40000) for f in (1.0, 1.02, 1.04, 1.06)]
    c_low, c_high = power_interval(noisy_n_log_n(clustered, 5))
    assert c_high - c_low > 1.5 * (high - low), ((low, high), (c_low, c_high))
    # A constant has no exponent to bound.
    assert clean(spread, lambda n: 500).interval is None


def test_points_rising_by_orders_of_magnitude_get_a_growing_power_of_last_resort():
    sizes = [100, 150, 220, 330, 500, 700]
    power = fit._log_log_power(sizes, [0.001 * n ** 5.8 for n in sizes])
    assert power.model == "n^k" and power.k == pytest.approx(5.8) and power.b > 0
    assert fit._log_log_power(sizes, [1000.0 / n for n in sizes]) is None


def test_tail_slope_of_many_points_stays_bounded():
    """200,000 sizes (a routine called once per size): the pairs are taken
    from a bounded sample of the tail, not all 10^10 of them."""
    n = np.arange(1, 200001, dtype=float)
    assert evidence.tail_slope(n, 2 * n ** 1.5) == pytest.approx(1.5)


def test_an_exponent_interval_holding_two_classes_is_inconclusive():
    """lua's interpreter loop running a script's main chunk: six small
    chunks and two runs of the whole script, 8 sizes. The points cannot
    tell n from n^3, and a fit that says "n^3 confident" tells more than
    they hold."""
    sizes = [20, 48, 88, 157, 708, 1173, 20079, 20581]
    costs = [17, 69, 251, 359, 5744, 19718, 120730282, 120799423]
    result = fit.fit_points(sizes, costs)
    low, high = result.interval
    assert high - low > fit.CONFIDENT_WIDTH, (low, high)
    assert not result.conclusive
    assert any("exponent lies anywhere in" in d for d in result.doubts), result.doubts
    # A narrow interval on as many sizes is no doubt.
    quadratic = clean([20 * 2 ** i for i in range(8)], lambda n: 3 * n * n)
    assert quadratic.conclusive and quadratic.interval[1] - quadratic.interval[0] < 0.2, \
        (quadratic.interval, quadratic.doubts)
