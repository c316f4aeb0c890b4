# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of scripts/aprof_trms/fit.py: model selection on synthetic cost curves
(known growth class, small deterministic noise), the free exponent, the
parsimony rule, degenerate data and the RoutineProfile entry point."""
import math

import numpy as np
import pytest

import synthetic
from aprof_trms import fit as af  # noqa: E402
from aprof_trms import profile as aprof_profile  # noqa: E402

FIXED = ["1", "log n", "sqrt n", "n", "n log n", "n^2", "n^3"]
GROWTH = {"1": 0.0, "log n": 0.1, "sqrt n": 0.5, "n": 1.0, "n log n": 1.1,
          "n^2": 2.0, "n^3": 3.0}


def points(cost, count=20, noise=0.0, seed=0, name="r", first=8):
    """(sizes, costs) of a synthetic routine, as the report would have them."""
    acts = synthetic.activations(
        synthetic.Routine(name, cost, synthetic.sizes(count, first), noise=noise), seed)
    return [a[0] for a in acts], [a[2] for a in acts]


@pytest.mark.parametrize("noise", [0.0, 0.01])
@pytest.mark.parametrize("model", FIXED)
def test_recovers_the_growth_class(model, noise):
    result = af.fit_points(*points(synthetic.COSTS[model], noise=noise, name=model))
    assert result.best.model == model, [(f.model, f.criterion) for f in result.candidates]
    assert result.method == "AICc"
    assert result.distinct_sizes == 20
    assert result.best.growth_exponent() == pytest.approx(GROWTH[model])
    if model != "1":
        assert result.best.r2 > 0.99
        assert result.best.b > 0


@pytest.mark.parametrize("model", FIXED)
def test_runner_up_is_a_plausible_neighbour(model):
    result = af.fit_points(*points(synthetic.COSTS[model], noise=0.01, name=model))
    best, ru = result.best, result.runner_up
    assert ru is not None and ru is result.candidates[1]
    assert ru.model != best.model
    # The runner-up is a close class, not an arbitrary one: on the growth
    # scale it is within half a power of the true class.
    assert abs(ru.growth_exponent() - GROWTH[model]) <= 0.5, (ru.model, ru.k)
    # Candidates after the best are ordered by criterion; the best can only
    # be behind the lowest by the parsimony margin.
    rest = [f.criterion for f in result.candidates[1:]]
    assert rest == sorted(rest)
    assert best.criterion <= min(rest) + af.PREFER_SIMPLER_DELTA


@pytest.mark.parametrize("model,k", [("sqrt n", 0.5), ("n", 1.0), ("n^2", 2.0), ("n^3", 3.0)])
def test_free_power_is_runner_up_with_the_class_exponent_on_exact_data(model, k):
    sizes, costs = points(synthetic.COSTS[model])
    result = af.fit_points(sizes, costs)
    assert result.best.model == model
    assert result.runner_up.model == "n^k"
    assert result.runner_up.k == pytest.approx(k, abs=0.01)
    # More flexible, so it fits at least as well (R^2 of the weighted fit),
    # and still does not win.
    assert result.runner_up.r2 >= result.best.r2 - 1e-12
    assert result.runner_up.criterion > result.best.criterion


@pytest.mark.parametrize("noise,tol", [(0.0, 0.002), (0.01, 0.03)])
def test_free_power_recovers_k_1_5(noise, tol):
    result = af.fit_points(*points(synthetic.COSTS["n^1.5"], noise=noise, name="n^1.5"))
    best = result.best
    assert best.model == "n^k"
    assert best.k == pytest.approx(1.5, abs=tol)
    assert best.b == pytest.approx(2.0, rel=0.1)
    assert best.growth_exponent() == best.k
    assert result.runner_up.model in ("n log n", "n^2")
    assert result.runner_up.criterion > best.criterion + 10


def test_parsimony_rule_prefers_the_fixed_class_within_the_margin(monkeypatch):
    # Seed 39 of a noisy linear routine: n^k (k = 0.996) has a slightly lower
    # AICc than n (by about 1.1 < PREFER_SIMPLER_DELTA).
    sizes, costs = points(synthetic.COSTS["n"], noise=0.02, seed=39)
    result = af.fit_points(sizes, costs)
    lowest = min(result.candidates, key=lambda f: f.criterion)
    assert lowest.model == "n^k", "precondition: the free power has the lowest criterion"
    assert result.best.model == "n"
    assert result.runner_up is lowest
    assert 0 < result.best.criterion - lowest.criterion <= af.PREFER_SIMPLER_DELTA
    monkeypatch.setattr(af, "PREFER_SIMPLER_DELTA", 0.0)
    assert af.fit_points(sizes, costs).best.model == "n^k"


def test_not_enough_distinct_sizes():
    sizes = [10, 20, 30, 40, 10, 20, 30, 40]   # 8 points, 4 distinct sizes
    with pytest.raises(af.NotEnoughPoints) as e:
        af.fit_points(sizes, [3 * n for n in sizes])
    assert isinstance(e.value, ValueError)
    assert "only 4 distinct input sizes, at least 5 are needed" in str(e.value)
    assert (e.value.distinct, e.value.needed) == (4, 5)
    with pytest.raises(af.NotEnoughPoints, match="only 6 distinct input sizes, at least 8"):
        af.fit_points(range(6), range(6), min_distinct=8)
    with pytest.raises(ValueError, match="at least 5"):
        af.fit_points(range(6), range(6), min_distinct=3)


def test_free_power_needs_six_points():
    five = af.fit_points(*points(synthetic.COSTS["n"], count=5))
    assert five.best.model == "n"
    assert "n^k" not in [f.model for f in five.candidates]
    assert sorted(f.model for f in five.candidates) == sorted(FIXED)
    six = af.fit_points(*points(synthetic.COSTS["n"], count=6))
    assert sorted(f.model for f in six.candidates) == sorted(af.MODELS)


def test_all_costs_equal():
    result = af.fit_points([1, 2, 4, 8, 16, 32], [7] * 6)
    best = result.best
    assert best.model == "1"
    assert (best.a, best.b, best.r2, best.rss) == (7.0, 0.0, 1.0, 0.0)
    assert best.growth_exponent() == 0.0
    assert best.formula() == "7"
    assert all(math.isfinite(f.criterion) for f in result.candidates)
    assert all(f.r2 == 1.0 for f in result.candidates)


def test_criterion_is_aicc_with_the_variance_counted_and_the_rss_floor():
    # Exact linear integer costs: "n" leaves RSS 0, floored at 1/12 per
    # point in relative terms (1/12 / cost^2); K = 3 (a, b, variance).
    sizes = [1, 2, 3, 4, 5, 6, 7]
    costs = [10 + 5 * n for n in sizes]
    m, big_k = len(sizes), 3
    floor = sum(1 / 12 / c ** 2 for c in costs)
    expected = m * math.log(floor / m) + 2 * big_k + 2 * big_k * (big_k + 1) / (m - big_k - 1)
    result = af.fit_points(sizes, costs)
    assert result.best.model == "n" and result.best.rss == pytest.approx(0, abs=1e-18)
    assert result.best.criterion == pytest.approx(expected)
    # n^k fits as exactly, with K = 4: only the penalty differs.
    power = next(f for f in result.candidates if f.model == "n^k")
    assert power.k == pytest.approx(1.0, abs=1e-4)
    assert power.criterion - result.best.criterion == pytest.approx(
        2 + 2 * 4 * 5 / (m - 5) - 2 * 3 * 4 / (m - 4), abs=1e-3)


@pytest.mark.parametrize("model", ["log n", "n log n", "n"])
def test_size_zero(model):
    sizes, costs = points(synthetic.COSTS[model], first=1)
    sizes, costs = [0] + sizes, [round(synthetic.COSTS[model](0))] + costs
    result = af.fit_points(sizes, costs)
    assert result.best.model == model
    assert np.all(np.isfinite(result.best.predict(sizes)))
    assert result.best.predict([0])[0] == pytest.approx(costs[0], abs=1.0)
    assert af.model_term("log n", [0, 1, 3])[0] == 0.0   # log2(n + 1)
    assert list(af.model_term("log n", [1, 3])) == [1.0, 2.0]


@pytest.mark.parametrize("model,b", [("n", 1e4), ("n^2", 1e-4), ("n log n", 400.0)])
def test_huge_sizes_and_costs(model, b):
    sizes = [int(1e5 * 1.6 ** i) for i in range(16)]          # up to 1.2e8 cells
    f = af.model_term(model, sizes)
    costs = [round(5000 + b * v) for v in f]                   # up to ~1e13
    assert max(costs) > 1e12
    best = af.fit_points(sizes, costs).best
    assert best.model == model
    assert best.b == pytest.approx(b, rel=1e-6)
    assert best.predict(sizes) == pytest.approx(costs, rel=1e-6)


def test_decreasing_costs_fall_back_to_the_constant():
    sizes = list(range(1, 11))
    result = af.fit_points(sizes, [1000 - 50 * n for n in sizes])
    assert result.best.model == "1"
    assert all(f.b >= 0 for f in result.candidates)
    assert all(f.growth_exponent() == 0 for f in result.candidates)


def test_fit_methods():
    f = af.Fit("n log n", 12.3, 4.56, None, 0.0, 1.0, 0.0)
    assert f.formula() == "12.3 + 4.56·n log n"
    assert f.predict([0, 3]) == pytest.approx([12.3, 12.3 + 4.56 * 3 * 2])
    p = af.Fit("n^k", 3.1, 0.02, 2.04, 0.0, 1.0, 0.0)
    assert p.formula() == "3.1 + 0.02·n^2.04"
    assert af.model_label(p) == "n^2.04"
    assert p.predict([10])[0] == pytest.approx(3.1 + 0.02 * 10 ** 2.04)
    assert af.Fit("n", 1.23456, 2.0, None, 0, 1, 0).formula(digits=5) == "1.2346 + 2·n"
    # One growth scale, increasing along MODELS (n^k with k between 3 and 4).
    growth = [af.Fit(m, 1.0, 1.0, 3.5 if m == "n^k" else None, 0, 1, 0).growth_exponent()
              for m in af.MODELS]
    assert growth == sorted(growth) and len(set(growth)) == len(growth)
    assert growth[:7] == [GROWTH[m] for m in FIXED]
    assert af.Fit("n^2", 1.0, 0.0, None, 0, 1, 0).growth_exponent() == 0.0


def test_bad_points():
    with pytest.raises(ValueError, match=">= 0"):
        af.fit_points([-1, 1, 2, 3, 4], [1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="5 sizes but 4 costs"):
        af.fit_points([0, 1, 2, 3, 4], [1, 2, 3, 4])
    with pytest.raises(ValueError, match="finite"):
        af.fit_points([0, 1, 2, 3, 4], [1, 2, float("nan"), 4, 5])


def test_fit_model_criterion_matches_fit_points():
    sizes, costs = points(synthetic.COSTS["n^2"], noise=0.01)
    result = af.fit_points(sizes, costs)
    for fit in result.candidates:
        if fit.model != "n^k":
            again = af.fit_model(sizes, costs, fit.model)
            assert again.criterion == pytest.approx(fit.criterion)
    fixed_k = af.fit_model(sizes, costs, "n^k", k=1.0)   # k fixed: same as "n"
    assert fixed_k.criterion == pytest.approx(af.fit_model(sizes, costs, "n").criterion)


def _profile(tmp_path, routines, **options):
    return aprof_profile.load_profile([synthetic.write_report(tmp_path / "aprof-trms.out.1",
                                                              routines, **options)])


def test_fit_routine_statistics_and_metric(tmp_path):
    # Two activations per size, in different threads: the cheaper is linear,
    # the last (worst) one quadratic. RMS = TRMS / 2.
    sizes = synthetic.sizes(12)
    profile = _profile(tmp_path, [synthetic.Routine(
        "work", synthetic.COSTS["n"], sizes, calls=2, worst=synthetic.COSTS["n^2"],
        rms=lambda n: n // 2)], threads=2)
    (routine,) = profile.find("work")
    assert af.fit_routine(routine).best.model == "n^2"                 # max by default
    assert af.fit_routine(routine, statistic="min").best.model == "n"
    # avg = 60 + 1.5 n + 0.25 n^2: quadratic, or a power just below 2.
    assert af.fit_routine(routine, statistic="avg").best.growth_exponent() == pytest.approx(2, abs=0.1)
    lin, quad = synthetic.COSTS["n"], synthetic.COSTS["n^2"]
    assert af.routine_points(routine, "trms", "total") == (sizes, [round(lin(n)) + round(quad(n))
                                                                   for n in sizes])
    assert af.routine_points(routine, "trms", "avg")[1] == [(round(lin(n)) + round(quad(n))) / 2
                                                            for n in sizes]
    by_rms = af.fit_routine(routine, "rms").best
    assert by_rms.model == "n^2" and by_rms.b == pytest.approx(2.0, rel=0.05)  # 0.5 (2m)^2
    assert af.routine_points(routine, "rms", "min")[0] == sorted({n // 2 for n in sizes})
    with pytest.raises(ValueError, match="statistic"):
        af.fit_routine(routine, statistic="median")


def test_fit_routine_not_enough_points_names_the_routine(tmp_path):
    profile = _profile(tmp_path, [synthetic.Routine(
        "buffered", synthetic.COSTS["n"], synthetic.sizes(12), rms=lambda n: min(n, 16))])
    (routine,) = profile.find("buffered")
    assert af.fit_routine(routine, "trms").best.model == "n"
    with pytest.raises(af.NotEnoughPoints, match=r"buffered \(rms\): only 3 distinct input sizes"):
        af.fit_routine(routine, "rms")


def test_quadratic_with_a_lower_order_term_is_n2():
    # Insertion sort on reversed input: exact counts n^2/2 - n/2 + c. Without
    # the linear lower-order term a free power k ~ 2.1 would win.
    sizes = list(range(2, 60, 3))
    result = af.fit_points(sizes, [n * (n - 1) // 2 + 7 for n in sizes])
    assert result.best.model == "n^2"
    assert result.best.c < 0
    assert result.best.growth_exponent() == 2.0
    assert " - " in result.best.formula()  # "a - c·n + b·n^2"


# --- Fits that cannot miss growth (issue 10, item 3) -----------------------

def test_two_regimes_fitted_on_the_upper_envelope():
    """Every third activation takes a cheap path (cost 50 whatever the
    size): the worst-case curve is n^2 and the cheap points are left out."""
    sizes = list(range(10, 210, 10))
    costs = [50 if i % 3 == 1 else 100 + 0.5 * n * n for i, n in enumerate(sizes)]
    result = af.fit_points(sizes, costs)
    assert result.best.model == "n^2", [(f.model, f.criterion) for f in result.candidates]
    assert result.left_out == 7
    assert 50 not in result.costs and len(result.sizes) == 13
    assert "upper envelope" in " ".join(result.notes)
    assert result.conclusive, result.doubts
    keep = af.upper_envelope(sizes, costs)
    assert [c for c, k in zip(costs, keep) if not k] == [50] * 7


def test_two_regimes_without_enough_envelope_points_is_a_doubt():
    sizes = [10, 20, 30, 40, 50, 60, 70]
    costs = [1000, 4000, 9000, 50, 60, 70, 80]      # 4 cheap points after the expensive ones
    result = af.fit_points(sizes, costs)
    assert result.left_out == 0 and len(result.sizes) == 7
    assert any("two regimes" in d for d in result.doubts)
    assert not result.conclusive


# sqlite3VdbeExec's shape (issue 27): statements that create and fill the
# tables, cheap, at the smallest sizes; then the joins, quadratic.
STATEMENTS = ([257, 307, 358, 396, 425], [689, 549, 628, 1105, 1179])
JOINS = [774, 900, 1025, 1292, 1678, 2200, 2935]


def test_a_jump_to_another_regime_is_fitted_from_the_jump_on():
    sizes = STATEMENTS[0] + JOINS
    costs = STATEMENTS[1] + [5.0 * n * n for n in JOINS]
    result = af.fit_points(sizes, costs)
    assert result.best.model == "n^2", [(f.model, f.criterion) for f in result.candidates]
    assert result.sizes == JOINS and result.left_out == 5
    assert any(n.startswith("fitted from size 774 on: the 5 points below cost at least 100x less")
               for n in result.notes), result.notes
    # memcpy under Valgrind: 0.03 blocks per cell up to 2047 cells, then
    # one per byte (rep movsb): the large copies are linear.
    small, large = list(range(8, 2048, 7)), [2735, 5467, 16801, 61617, 140617]
    result = af.fit_points(small + large, [5 + 0.03 * n for n in small] + [4 * n for n in large])
    assert result.sizes == large and result.best.model == "n", result.best


@pytest.mark.parametrize("why", ["steep but joined", "too few above", "less than 100x"])
def test_what_is_not_a_jump_to_another_regime(why):
    """A quadratic rising 100x across a gap of 10x in its sizes (slope 2,
    not steeper than the family's steepest model); a jump with fewer than
    5 sizes above it; a step steeper than n^4 where the points above do
    not all cost 100x more."""
    if why == "steep but joined":
        sizes = [10, 15, 20, 30, 40, 400, 600, 800, 1000, 1300]
        costs = [n * n for n in sizes]
    elif why == "too few above":
        sizes = STATEMENTS[0] + JOINS[-4:]
        costs = STATEMENTS[1] + [5.0 * n * n for n in JOINS[-4:]]
    else:
        sizes = STATEMENTS[0] + JOINS
        costs = STATEMENTS[1] + [500.0 * n for n in JOINS]   # 387,000 to 1,467,500: 327x
        costs[len(STATEMENTS[0])] = 99 * max(STATEMENTS[1])
    result = af.fit_points(sizes, costs)
    assert len(result.sizes) == len(sizes), result.notes
    assert not any("another regime" in n for n in result.notes)


def test_growth_by_orders_of_magnitude_is_never_constant():
    """The shape of issue 10's sqlite3_step: cheap calls, then a few that
    cost up to 84,523,084 basic blocks; a constant fits the many cheap points
    best in relative terms."""
    sizes = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    costs = [239, 260, 250, 270, 240, 300, 100000, 3000000, 84523084]
    result = af.fit_points(sizes, costs)
    assert result.best.model != "1"
    assert result.best.growth_exponent() > 1.0
    assert any("not the constant" in n for n in result.notes)
    assert not result.conclusive                       # R^2 says the fit is poor


def test_flat_costs_stay_constant():
    result = af.fit_points(*points(lambda n: 5000.0, noise=0.02))
    assert result.best.model == "1"
    assert not any("constant" in n for n in result.notes)


def test_free_power_at_its_bound_says_so():
    sizes = list(range(10, 210, 10))
    result = af.fit_points(sizes, [10 + n ** 6 for n in sizes])
    assert result.best.model == "n^k" and result.best.k == pytest.approx(af.K_RANGE[1])
    assert result.at_bound
    assert any("at least n^4" in n for n in result.notes)
    assert any("bound" in d for d in result.doubts)
    inside = af.fit_points(sizes, [10 + n ** 3.5 for n in sizes])
    assert inside.best.k == pytest.approx(3.5, abs=0.01) and not inside.at_bound
    assert inside.conclusive, inside.doubts


def test_doubts_few_sizes_low_r2_thin_margin():
    assert af.fit_points(*points(synthetic.COSTS["n^2"], count=20)).conclusive
    few = af.fit_points(*points(synthetic.COSTS["n^2"], count=af.CONFIDENT_SIZES - 1))
    assert any("distinct sizes" in d for d in few.doubts)
    noisy = af.fit_points(*points(synthetic.COSTS["n"], count=20, noise=0.9, name="noisy"))
    assert any(d.startswith("R^2") for d in noisy.doubts), (noisy.best.r2, noisy.doubts)


@pytest.mark.parametrize("model", FIXED)
def test_fits_of_the_class_meet_the_largest_sizes(model):
    result = af.fit_points(*points(synthetic.COSTS[model], noise=0.01, name=model))
    assert not any(d.startswith("misses the largest sizes") for d in result.doubts), result.doubts


def test_a_steeper_regime_at_the_largest_sizes_is_a_doubt():
    # memcpy under Valgrind: 0.03 blocks per cell up to 2047 cells, then one
    # block per byte (rep movsb) on a few large copies. Relative least squares
    # follow the 300 small sizes and pass far below the large ones. (With 5
    # large sizes, the jump is another regime and they are fitted by
    # themselves: test_a_jump_to_another_regime_is_fitted_from_the_jump_on.)
    small = list(range(8, 2048, 7))
    large = [5467, 16801, 61617, 140617]
    sizes = small + large
    costs = [5 + 0.03 * n for n in small] + [4 * n for n in large]
    result = af.fit_points(sizes, costs)
    tail, largest = af._tail(result)
    ratio, count = af._tail_ratio(tail), len(largest)
    assert ratio < 1 / af.TAIL_MISS and count == 3        # 16801 and up: within 10x of the largest
    assert any(d.startswith("misses the largest sizes") for d in result.doubts), result.doubts
    assert not result.conclusive


@pytest.mark.parametrize("steep", [1, af.TAIL_LARGEST])
def test_a_miss_at_the_very_largest_sizes_is_a_doubt(steep):
    """Issue 27: a model predicting 17M where 124M was measured passed,
    because the median over the 91 sizes within 10x of the largest was
    close to 1. Now the largest sizes count by themselves too: one point
    off more than TAIL_MISS^2 times, or the median of the TAIL_LARGEST
    largest off more than TAIL_MISS times."""
    sizes = list(range(1000, 100001, 1000))
    costs = [170.0 * n for n in sizes]
    for i in range(1, steep + 1):
        costs[-i] = 124e6 * sizes[-i] / sizes[-1]
    result = af.fit_points(sizes, costs)
    tail, largest = af._tail(result)
    ratio, count = af._tail_ratio(tail), len(largest)
    assert 1 / af.TAIL_MISS <= ratio <= af.TAIL_MISS and count > 90   # the median passes
    assert result.best.predict([sizes[-1]])[0] < 30e6
    missed = [d for d in result.doubts if d.startswith("misses the largest sizes")]
    assert missed and not result.conclusive, result.doubts
    assert missed[0].endswith("at the largest size" if steep == 1 else
                              f"at the {af.TAIL_LARGEST} largest sizes")


def test_fit_many_equals_fitting_each_alone():
    # fit_many solves point sets of one size together, row by row: each
    # result must be the one of its points alone, whatever their neighbours
    # (growth classes, noise, a cheaper regime, too few sizes, bad points).
    sets = []
    for i, model in enumerate(FIXED + ["n^1.5"] * 3):
        sizes, costs = points(synthetic.COSTS[model], count=10, noise=0.05 * (i % 3), name=model)
        sets.append((sizes, costs))
    sizes, costs = points(synthetic.COSTS["n"], count=10, name="regimes")
    sets.append((sizes, costs[:6] + [c // 10 for c in costs[6:]]))
    sets += [([1, 2, 3], [4, 5, 6]), ([0, 1, 2, 3, -4], [1, 2, 3, 4, 5])]
    together = af.fit_many(sets)
    for (sizes, costs), result in zip(sets, together):
        try:
            alone = af.fit_points(sizes, costs)
        except ValueError as e:
            assert type(result) is type(e) and str(result) == str(e)
            continue
        assert [(f.model, f.formula(6), round(f.criterion, 6)) for f in result.candidates] == \
            [(f.model, f.formula(6), round(f.criterion, 6)) for f in alone.candidates]
        assert (result.notes, result.doubts, result.left_out) == (alone.notes, alone.doubts,
                                                                  alone.left_out)
    assert [r.best.model for r in together[:7]] == FIXED


def _everything(result):
    """What a FitResult says, to compare two ways of making it."""
    if isinstance(result, ValueError):
        return type(result), str(result)
    return ([(f.model, f.a, f.b, f.c, f.k, f.rss, f.r2, f.criterion, f.k_low, f.k_high)
             for f in result.candidates], result.sizes, result.costs, result.left_out,
            result.distinct_sizes, result.notes, result.doubts, result.clusters)


def test_point_sets_of_lists_are_prepared_together_as_one_by_one():
    # fit_many checks point sets given as lists (routine_points' sorted
    # sizes) all at once and fits those on their upper envelope whole; any
    # other sequence is prepared one by one. Both ways must agree on every
    # set: sorted or not, repeated sizes, a point exactly or just more than
    # ENVELOPE_DROP times cheaper than a smaller size, negative costs, NaN,
    # negative sizes, too few sizes.
    rng = np.random.default_rng(25)
    sets = []
    for i in range(400):
        m = int(rng.integers(5, 12))
        sizes = sorted(rng.choice(200, size=m, replace=False).tolist())
        costs = [float(3 * n + rng.integers(0, 40)) for n in sizes]
        kind = i % 8
        if kind == 1:   # a point exactly ENVELOPE_DROP times cheaper: kept
            costs[m // 2] = max(costs[:m // 2]) / af.ENVELOPE_DROP
        elif kind == 2:   # just below that: left out
            costs[m // 2] = max(costs[:m // 2]) / af.ENVELOPE_DROP * 0.999
        elif kind == 3:
            sizes = sizes[::-1]
        elif kind == 4:
            sizes[1] = sizes[0]
        elif kind == 5:
            costs[0] = -costs[0]
        elif kind == 6:   # bad points, where the other checks do not see them
            bad, where, value = [(sizes, 0, -1), (sizes, -1, math.inf), (costs, -1, math.inf),
                                 (costs, 2, math.nan)][i // 8 % 4]
            bad[where] = value
        elif kind == 7:
            sizes, costs = sizes[:4], costs[:4]
        sets.append((sizes, costs))
    as_lists = af.fit_many(sets)
    as_arrays = af.fit_many([(np.array(n), np.array(y)) for n, y in sets])
    assert [_everything(r) for r in as_lists] == [_everything(r) for r in as_arrays]
    assert sum(isinstance(r, af.FitResult) and r.left_out > 0 for r in as_lists) >= 40


def test_clusters_of_a_batch_are_size_clusters_of_each_row():
    # _Batch counts the clusters of every row at once; evidence.size_clusters
    # is the rule (repeated sizes, zeros, unsorted rows).
    from aprof_trms import evidence
    rng = np.random.default_rng(27)
    rows = [rng.choice([0, 1, 2, 3, 5, 8, 9, 10, 11, 12, 30, 100, 114, 115, 116, 1000], size=9).tolist()
            for _ in range(500)]
    batch = af._Batch(np.array(rows, dtype=float), np.ones((len(rows), 9)))
    assert batch.clusters.tolist() == [evidence.size_clusters(row) for row in rows]


@pytest.mark.parametrize("center", [0.3, 1.0, 2.37, 3.99])
def test_bounded_search_is_scipys_step_for_step(center):
    # The exponent search of every row at once follows scipy's bounded
    # Brent method: same minimum, same value, for each row of a batch.
    from scipy import optimize
    shapes = [lambda x, c=center: (x - c) ** 2, lambda x, c=center: abs(x - c) + 0.1 * x,
              lambda x, c=center: np.cos(3 * x) + (x - c) ** 4]
    lo, hi = np.full(len(shapes), 0.1), np.full(len(shapes), 4.0)
    xs, fs = af._bounded_minimum(
        lambda x: np.array([f(v) for f, v in zip(shapes, x)]), lo, hi)
    for f, x, fx in zip(shapes, xs, fs):
        want = optimize.minimize_scalar(f, bounds=(0.1, 4.0), method="bounded",
                                        options={"xatol": 1e-7})
        assert x == want.x and fx == want.fun


# --- Each doubt and rule decides what the user is told (issue 27, item 7) ---

def test_a_fit_that_explains_too_little_is_inconclusive():
    """A linear trend through points scattered by +-60%: the model explains
    about three quarters of their variance, not enough to be sure of it."""
    result = af.fit_points(*points(synthetic.COSTS["n"], count=20, noise=0.6, name="scatter"))
    assert 0.7 < result.best.r2 < 0.8, result.best.r2
    assert not result.conclusive
    assert result.doubts == [f"R^2 {result.best.r2:.2f} < 0.8"]


def test_a_runner_up_of_another_growth_about_as_good_is_a_doubt():
    """Scattered linear points that sqrt n explains about as well: the
    data do not tell the two growths apart."""
    result = af.fit_points(*points(synthetic.COSTS["n"], count=10, noise=0.3, seed=2, name="close"))
    best, ru = result.best, result.runner_up
    assert abs(ru.criterion - best.criterion) < af.PREFER_SIMPLER_DELTA
    assert abs(ru.growth_exponent() - best.growth_exponent()) >= 0.5, (best.model, ru.model)
    assert not result.conclusive
    assert any(d.startswith(f"runner-up {af.model_label(ru)} fits about as well") for d in result.doubts)


def test_a_constant_through_widely_spread_costs_is_inconclusive():
    """Costs that go up and down between 1000 and 2200 without a trend: a
    constant is the best model, but not a confident answer."""
    costs = [2000, 1000, 2200, 1200, 2100, 1150, 2150, 1250, 2050, 1100, 2200, 1200]
    result = af.fit_points(synthetic.sizes(12), costs)
    assert result.best.model == "1" and result.left_out == 0
    assert result.doubts == ["costs vary 2.2x without a trend"]


def test_an_envelope_with_exactly_the_minimum_of_sizes_is_fitted():
    """Two cheap points among seven sizes leave exactly the sizes a fit
    needs on the upper envelope: it is fitted there, not called two
    regimes."""
    sizes = [10, 20, 30, 40, 50, 60, 70]
    costs = [100 * n for n in sizes]
    costs[2] = costs[4] = 20
    result = af.fit_points(sizes, costs)
    assert len(set(result.sizes)) == af.MIN_DISTINCT_SIZES and result.left_out == 2
    assert any("upper envelope" in n for n in result.notes)
    assert not any("two regimes" in d for d in result.doubts)
    assert result.best.model == "n"


def test_a_rise_of_a_few_hundred_times_is_never_constant():
    """Cheap calls, then a few costing 300 times more at the largest sizes:
    growth, even where a constant fits the many cheap points best."""
    sizes = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    costs = [239, 260, 250, 270, 240, 300, 30000, 75000, 150000]
    result = af.fit_points(sizes, costs)
    assert result.best.growth_exponent() > 1.0, result.best.formula()
    assert any("rises 300x over the sizes: growth, not the constant" in n for n in result.notes)


def test_the_envelope_keeps_points_less_than_twice_cheaper():
    """A worst-case curve scatters: a point cheaper than a smaller size,
    but by less than half, is on the envelope; one twice cheaper is not."""
    keep = af.upper_envelope([1, 2, 3, 4, 5], [100, 60, 120, 70, 50])
    assert keep.tolist() == [True, True, True, True, False]


def test_a_class_term_dominated_by_the_linear_one_is_not_the_class():
    """The interpreter's sort of issue 27: 8.71·n + 0.00106·n^2 over sizes
    where the n^2 term changes the cost less than the linear one is not
    "n^2"."""
    sizes = [int(x) for x in np.geomspace(50, 3000, 14)]
    result = af.fit_points(sizes, [round(200 + 8.71 * n + 0.00106 * n * n) for n in sizes])
    assert result.best.growth_exponent() < 1.5, result.best.formula()


def test_growth_by_orders_of_magnitude_never_fits_flat():
    """Issue 27's database query: seven sizes at about the same cost, then
    four that rise to 85.5M over a 7-fold range of sizes. Relative least
    squares follow the cheap points and every model of the family comes
    out flat: the fit of last resort follows the points' log-log slope."""
    sizes = [int(x) for x in np.geomspace(100, 700, 11)]
    costs = [930, 920, 910, 900, 890, 880, 870, 10 ** 5, 10 ** 6, 10 ** 7, 85_500_000]
    result = af.fit_points(sizes, costs)
    assert result.best.b > 0 and result.best.growth_exponent() > 4, result.best.formula()
    assert result.best.predict(700) > result.best.predict(100) * 1000
    assert any("fitted as n^5.82, the points' log-log slope" in n for n in result.notes)
    assert not result.conclusive
