# SPDX-License-Identifier: GPL-2.0-or-later
"""Curve fitting of cost functions: which growth class explains a routine's
worst-case (or average, ...) cost as a function of its input size.

    from aprof_trms import fit as aprof_fit, profile as aprof_profile
    profile = aprof_profile.load_profile(["aprof-trms.out.4242"])
    for routine in profile.top(5):
        try:
            result = aprof_fit.fit_routine(routine, "trms")   # max cost per size
        except aprof_fit.NotEnoughPoints as e:
            print(routine.name, e)
            continue
        print(routine.name, result.best.formula(), "runner-up", result.runner_up.model)

Models (all with an intercept, as the peers' users ask for): a + b*f(n) with
f in MODELS; "1" is the constant a; "n^k" is a + b*n^k with a free exponent k
in K_RANGE = [0.1, 4] (a fitted k at 4 means "at least n^4"). The
superlinear classes n log n, n^2 and n^3 are also fitted with a linear
lower-order term, a + c*n + b*f(n): real code costs e.g. n^2/2 - n/2 + c
(insertion sort), and on exact counts a + b*n^2 alone misses that term, so a
free power k = 2.08 would win. The variant with the term replaces the plain
one only when its AICc is lower (it has one more parameter), its class term
dominates (over the observed sizes it changes the cost at least as much as
the linear term does) and it does not decrease over the observed sizes. The
class is decided by the dominant term. Conventions, and why:

- log n means log2(n + 1): input sizes may be 0 (a routine that reads nothing)
  and log2(0 + 1) = 0, so "log n" and "n log n" = n*log2(n + 1) are defined and
  0 at n = 0; the base 2 is the usual one of algorithm analysis.
- b >= 0 for every growth model: a cost does not decrease with its input, so a
  decreasing trend is not "negative n^2"; the constrained least squares
  solution then has b = 0 and the model degenerates to the constant, which the
  criterion ranks below "1" (same residuals, more parameters). The constant
  model is therefore the fallback.
- Least squares on relative errors: each squared residual is weighted by
  1/cost^2 (weighted least squares). Costs of one routine span orders of
  magnitude, and their variation between inputs of one size (the "noise" of
  a worst-case curve: data-dependent paths, not timing) grows with the cost.
  Unweighted, the few largest points decide alone and a free exponent fits
  their deviations; relative, every size counts and the shape over the whole
  range tells n from n log n. A cost of 0 counts as 1 for the weight when
  the costs are integers (counts are known to +-0.5), otherwise as 1e-6 of
  the largest cost. Costs and model columns are scaled to ~1 before solving
  (costs up to 1e12 and n^3 terms up to 1e36 stay precise in float64).
- Selection by AICc (Akaike's criterion with the small-sample correction),
  not by R^2 (which always prefers the more flexible model):
      AICc = m*ln(RSS_w/m) + 2K + 2K(K+1)/(m-K-1)
  with m points, RSS_w the weighted (relative) residual sum of squares and K
  the estimated parameters counting the residual variance: "1": K=2, fixed
  classes: K=3 (K=4 with the linear lower-order term), "n^k": K=4 (the
  exponent is a parameter). A model whose AICc
  is undefined (m <= K+1) is not fitted: with m = 5 points
  (MIN_DISTINCT_SIZES) "n^k" is left out, it needs 6.
- Parsimony rule: among the models whose AICc is within PREFER_SIMPLER_DELTA
  (2.0, the usual "no real difference" threshold of Burnham and Anderson) of
  the lowest, the one with the fewest parameters is chosen, a fixed class
  before "n^k" at equal count, then the lowest AICc. So "n^k" wins only when it is clearly better than every fixed
  class, and a growth class only when it is clearly better than a constant.
  The model with the lowest AICc, when not chosen, is the runner-up.
  Like any such test it errs at a known rate: on a constant or fixed-class
  curve with 1% random scatter, a model with one more parameter wins about
  4 times in 100 (regress.py therefore asks for stronger evidence).
- RSS floor: aprof-trms costs are deterministic counts (basic blocks or
  instructions), so an exact model can leave RSS = 0 and ln(0) = -inf.
  RSS_w is floored at the sum over the points of max(1/12 / cost^2, 1e-18)
  when every cost is an integer (1/12 is the variance of rounding to
  integers: an integer cost is known to +-0.5 only), of 1e-18 otherwise
  (float64 round-off). Models that reach the floor tie, and the parameter
  penalty then picks the simplest one. Determinism also means that the same
  reports always give the same choice: the timing noise that makes the
  choice of timing-based fitters flip does not exist here; what scatter
  there is comes from the program (different data of the same size).
- The constant model's a is the weighted mean of the costs (the costs
  themselves when they are all equal).
- Fit.rss is the plain residual sum of squares in cost units, sum((cost -
  predict(n))^2); Fit.r2 is the R^2 of the fit as fitted (weighted), in
  [0, 1]: 1 when all costs are equal (every model reproduces them), 0 for the
  constant model otherwise. Shown as goodness, never used to choose.
- growth_exponent() puts all models on one scale for ranking and regression
  checks: n^k -> k; log n counts as LOG_GROWTH = 0.1 (slower than any power
  the data could tell apart, faster than a constant), so n log n -> 1.1; a
  model with b = 0 is constant -> 0.

numpy and scipy come from Debian (python3-numpy, python3-scipy).
"""
import dataclasses
import math
from typing import List, Optional, Sequence, Tuple

import numpy as np
from scipy import optimize

__all__ = ["MODELS", "MIN_DISTINCT_SIZES", "K_RANGE", "LOG_GROWTH",
           "PREFER_SIMPLER_DELTA", "STATISTICS", "ENVELOPE_DROP", "GROWTH_RATIO",
           "CONFIDENT_SIZES", "CONFIDENT_R2", "DISTINCT_GROWTH", "CONSTANT_SPREAD",
           "NotEnoughPoints", "Fit",
           "FitResult", "model_term", "model_label", "upper_envelope", "fit_points", "fit_model",
           "routine_points", "fit_routine"]

MODELS = ("1", "log n", "sqrt n", "n", "n log n", "n^2", "n^3", "n^k")
MIN_DISTINCT_SIZES = 5     # below this: no fit (AICc of a 3-parameter class needs 5 points)
K_RANGE = (0.1, 4.0)       # bounds of the free exponent
LOG_GROWTH = 0.1           # growth_exponent() of log n (n log n: 1 + LOG_GROWTH)
PREFER_SIMPLER_DELTA = 2.0  # AICc difference below which the simpler model is preferred
STATISTICS = ("max", "avg", "min", "total")
METHOD = "AICc"
ENVELOPE_DROP = 2.0        # a point this many times cheaper than a smaller size is a cheap path
GROWTH_RATIO = 100.0       # a rise of this factor over the sizes is growth, never a constant
CONFIDENT_SIZES = 8        # fewer distinct sizes: a fit is inconclusive
CONFIDENT_R2 = 0.8         # lower R^2: a fit is inconclusive
DISTINCT_GROWTH = 0.5      # growth exponents this far apart are different answers
CONSTANT_SPREAD = 2.0      # a constant fit of costs spread wider than this is inconclusive
TAIL_MISS = 2.0            # a fit off by this factor at the largest sizes is inconclusive
TAIL_SPAN = 10.0           # the largest sizes: within this factor of the largest (at least 3)

_FIXED_EXPONENT = {"1": 0.0, "log n": LOG_GROWTH, "sqrt n": 0.5, "n": 1.0,
                   "n log n": 1.0 + LOG_GROWTH, "n^2": 2.0, "n^3": 3.0}
_K_GRID_STEP = 0.05
_REL_EPS = 1e-9             # relative precision below which residuals do not count
_SMALL_COST = 1e-6          # non-integer costs below this fraction of the largest count as it


class NotEnoughPoints(ValueError):
    """Too few distinct input sizes to tell growth classes apart."""

    def __init__(self, distinct: int, needed: int, what: str = "",
                 unit: str = "distinct input size"):
        prefix = f"{what}: " if what else ""
        super().__init__(f"{prefix}only {distinct} {unit}{'' if distinct == 1 else 's'}, "
                         f"at least {needed} are needed to fit a cost function")
        self.distinct = distinct
        self.needed = needed


def model_term(model: str, n, k: Optional[float] = None) -> np.ndarray:
    """f(n) of a model (log n = log2(n + 1), see the module docstring)."""
    n = np.asarray(n, dtype=float)
    if model == "1":
        return np.zeros_like(n)
    if model == "log n":
        return np.log2(n + 1.0)
    if model == "sqrt n":
        return np.sqrt(n)
    if model == "n":
        return n.copy()
    if model == "n log n":
        return n * np.log2(n + 1.0)
    if model == "n^2":
        return n * n
    if model == "n^3":
        return n * n * n
    if model == "n^k":
        if k is None:
            raise ValueError("model 'n^k' needs the exponent k")
        return np.power(n, k)
    raise ValueError(f"unknown model {model!r} (expected one of {MODELS})")


# Superlinear classes also fitted with a linear lower-order term a + c*n + b*f(n).
_WITH_LINEAR_TERM = ("n log n", "n^2", "n^3")


def _params(model: str) -> int:
    """Regression parameters of a model (a; a, b; a, b, k)."""
    return 1 if model == "1" else 3 if model == "n^k" else 2


@dataclasses.dataclass
class Fit:
    model: str            # one of MODELS
    a: float              # intercept
    b: float              # coefficient of the model term (0 for "1")
    k: Optional[float]    # exponent (only for "n^k")
    rss: float            # residual sum of squares, unweighted, in cost units squared
    r2: float             # R^2 of the (weighted) fit, in [0, 1]
    criterion: float      # AICc (lower is better)
    c: float = 0.0        # linear lower-order term (superlinear classes only)

    @property
    def params(self) -> int:
        """Regression parameters, the linear lower-order term included."""
        return _params(self.model) + (1 if self.c else 0)

    def predict(self, n) -> np.ndarray:
        """a + c*n + b*f(n), as float64."""
        n = np.asarray(n, dtype=float)
        return self.a + self.c * n + self.b * model_term(self.model, n, self.k)

    def formula(self, digits: int = 3) -> str:
        """E.g. "12.3 + 4.56·n log n", "3.1 + 0.02·n^2.04", "7" for the constant."""
        def num(x: float) -> str:
            return f"{x:.{digits}g}"
        if self.model == "1":
            return num(self.a)
        term = f"n^{num(self.k)}" if self.model == "n^k" else self.model
        linear = ""
        if self.c:
            linear = f" {'+' if self.c > 0 else '-'} {num(abs(self.c))}·n"
        return f"{num(self.a)}{linear} + {num(self.b)}·{term}"

    def growth_exponent(self) -> float:
        """Order of growth on one scale: 1 -> 0, log n -> LOG_GROWTH, sqrt n ->
        0.5, n -> 1, n log n -> 1 + LOG_GROWTH, n^2 -> 2, n^3 -> 3, n^k -> k;
        0 when b = 0 (the model is then constant)."""
        if self.model == "1" or self.b <= 0.0:
            return 0.0
        if self.model == "n^k":
            return float(self.k)
        return _FIXED_EXPONENT[self.model]


def model_label(fit: Fit, digits: int = 2) -> str:
    """Short class name: the model, with the exponent for n^k ("n^1.52")."""
    if fit.model == "n^k":
        return f"n^{fit.k:.{digits}f}"
    return fit.model


@dataclasses.dataclass
class FitResult:
    best: Fit
    runner_up: Optional[Fit]
    candidates: List[Fit]   # all models fitted, best first, then by criterion
    distinct_sizes: int     # of all the points given
    method: str             # "AICc"
    sizes: List[float] = dataclasses.field(default_factory=list)   # the points fitted
    costs: List[float] = dataclasses.field(default_factory=list)   # (the upper envelope)
    left_out: int = 0       # points below the upper envelope, not fitted
    notes: List[str] = dataclasses.field(default_factory=list)     # what the reader must know
    doubts: List[str] = dataclasses.field(default_factory=list)    # why it is inconclusive

    @property
    def conclusive(self) -> bool:
        return not self.doubts

    @property
    def at_bound(self) -> bool:
        """The free exponent of the chosen model sits at an end of K_RANGE."""
        return self.best.model == "n^k" and (self.best.k >= K_RANGE[1] - 1e-3
                                             or self.best.k <= K_RANGE[0] + 1e-3)


# ---------------------------------------------------------------------------
# Least squares.
# ---------------------------------------------------------------------------

def _line(f: np.ndarray, y: np.ndarray, w: np.ndarray):
    """Weighted least squares y ~ a + b*f with b >= 0, minimising
    sum(w * (y - a - b*f)^2) (columns already scaled to ~1): returns
    (a, b, weighted rss). Centred closed form: stable, no matrix to invert.
    Several columns f (2-D, one per row) are solved at once."""
    f = np.atleast_2d(f)
    fm = (f * w).sum(axis=1, keepdims=True)   # w sums to 1
    ym = float((y * w).sum())
    fc = f - fm
    yc = y - ym
    sxx = (w * fc * fc).sum(axis=1)
    sxy = (w * fc * yc).sum(axis=1)
    safe = np.where(sxx > 0.0, sxx, 1.0)
    b = np.maximum(np.where(sxx > 0.0, sxy / safe, 0.0), 0.0)
    a = ym - b * fm[:, 0]
    resid = y[None, :] - a[:, None] - b[:, None] * f
    return a, b, (w * resid * resid).sum(axis=1)


def _line1(f: np.ndarray, y: np.ndarray, w: np.ndarray):
    """_line for one column f, as floats: the same solution with a few
    dot products instead of 2-D reductions, five times faster on the short
    arrays of a routine (the bounded search of _fit_power calls it a dozen
    times per fit, and rank.py fits thousands of routines)."""
    fm = float(np.dot(f, w))                  # w sums to 1
    ym = float(np.dot(y, w))
    fc = f - fm
    wfc = w * fc
    sxx = float(np.dot(wfc, fc))
    b = max(float(np.dot(wfc, y - ym)) / sxx, 0.0) if sxx > 0.0 else 0.0
    a = ym - b * fm
    resid = y - a - b * f
    return a, b, float(np.dot(w * resid, resid))


def _plane(g: np.ndarray, f: np.ndarray, y: np.ndarray, w: np.ndarray):
    """Weighted least squares y ~ a + c*g + b*f with b >= 0 and c free
    (columns scaled to ~1): returns (a, c, b, weighted rss). When the free
    solution has b < 0 the best constrained one has b = 0: a + c*g."""
    sw = np.sqrt(w)
    design = np.stack([np.ones_like(g), g, f], axis=1) * sw[:, None]
    (a, c, b), *_ = np.linalg.lstsq(design, y * sw, rcond=None)
    if b < 0.0:
        (a, c), *_ = np.linalg.lstsq(design[:, :2], y * sw, rcond=None)
        b = 0.0
    resid = y - a - c * g - b * f
    return float(a), float(c), float(b), float((w * resid * resid).sum())


def _aicc(rss: float, m: int, params: int, floor: float) -> float:
    big_k = params + 1   # + the residual variance
    return (m * math.log(max(rss, floor) / m) + 2 * big_k
            + 2 * big_k * (big_k + 1) / (m - big_k - 1))


def _fit_power(x: np.ndarray, y: np.ndarray, w: np.ndarray):
    """a + b*x^k over k in K_RANGE (x = n / max n, y scaled): a grid of k,
    then a bounded 1-D search around the best grid point (weighted linear
    least squares inside). Returns (a, b, k, weighted rss)."""
    lo, hi = K_RANGE
    ks = np.arange(lo, hi + _K_GRID_STEP / 2, _K_GRID_STEP)
    _, _, rss = _line(np.power(x[None, :], ks[:, None]), y, w)
    i = int(np.argmin(rss))

    def rss_of(k: float) -> float:
        return _line1(np.power(x, k), y, w)[2]

    res = optimize.minimize_scalar(rss_of, bounds=(max(lo, ks[i] - _K_GRID_STEP),
                                                   min(hi, ks[i] + _K_GRID_STEP)),
                                   method="bounded", options={"xatol": 1e-7})
    k = float(res.x) if res.fun <= rss[i] else float(ks[i])
    a, b, r = _line1(np.power(x, k), y, w)
    return a, b, k, r


class _Data:
    """Validated points, scaled, with the weights and the RSS floor."""

    def __init__(self, sizes: Sequence[float], costs: Sequence[float]):
        n = np.asarray(sizes, dtype=float).ravel()
        y = np.asarray(costs, dtype=float).ravel()
        if n.shape != y.shape:
            raise ValueError(f"{n.size} sizes but {y.size} costs")
        if not (np.all(np.isfinite(n)) and np.all(np.isfinite(y))):
            raise ValueError("sizes and costs must be finite numbers")
        if np.any(n < 0):
            raise ValueError("input sizes must be >= 0")
        self.n, self.y, self.m = n, y, int(n.size)
        self.distinct = int(np.unique(n).size)
        # Scale costs and model columns to ~1: costs up to 1e12 and n^3
        # terms up to 1e36 would otherwise make the sums lose precision.
        self.yscale = float(np.max(np.abs(y))) if y.size else 1.0
        self.yscale = self.yscale or 1.0
        self.ys = y / self.yscale
        # Relative errors: weight 1/cost^2, normalised to sum 1 for the
        # solver. A cost of 0 is not infinitely precise: integer costs
        # (counts) below 1 count as 1, other costs below 1e-6 of the largest
        # as 1e-6 of it.
        integer = bool(np.all(y == np.round(y)))
        s_cost = np.maximum(np.abs(y), 1.0 if integer else _SMALL_COST * self.yscale)
        big_w = (self.yscale / s_cost) ** 2
        self.w_sum = float(big_w.sum()) if y.size else 1.0
        self.w = big_w / self.w_sum
        self.floor = float(np.maximum((1.0 / 12.0 if integer else 0.0) / s_cost ** 2,
                                      _REL_EPS ** 2).sum())
        self.all_equal = bool(y.size == 0 or np.all(y == y[0]))
        self.ym = float((self.w * self.ys).sum())
        self.tss = float((self.w * (self.ys - self.ym) ** 2).sum())

    def fit(self, model: str, k: Optional[float] = None) -> Fit:
        """One model; for "n^k", k=None fits the exponent, a number fixes it
        (then it is not counted as a parameter)."""
        params = _params(model) - (1 if model == "n^k" and k is not None else 0)
        if self.m - (params + 1) - 1 <= 0:
            raise NotEnoughPoints(self.m, params + 3, f"model {model!r}", unit="point")
        ys, w, yscale = self.ys, self.w, self.yscale
        if model == "1":
            a = float(self.y[0]) if self.all_equal else self.ym * yscale
            b, rss_w = 0.0, self.tss
        elif model == "n^k":
            nmax = float(self.n.max()) or 1.0
            if k is None:
                a, b, k, rss_w = _fit_power(self.n / nmax, ys, w)
            else:
                a, b, rss_w = _line1(np.power(self.n / nmax, k), ys, w)
            a, b = a * yscale, b * yscale / nmax ** k
        else:
            f = model_term(model, self.n)
            fscale = float(f.max()) or 1.0
            a, b, rss_w = _line1(f / fscale, ys, w)
            a, b = a * yscale, b * yscale / fscale
        fit = self._finish(Fit(model, a, b, k, 0.0, 0.0, 0.0), rss_w, params)
        if model in _WITH_LINEAR_TERM and k is None and self.m - (params + 2) - 1 > 0:
            with_term = self._with_linear_term(model, params + 1)
            if with_term is not None and with_term.criterion < fit.criterion:
                return with_term
        return fit

    def _finish(self, fit: Fit, rss_w: float, params: int) -> Fit:
        """Fills r2, AICc and the plain rss from the weighted rss."""
        rss_w = max(rss_w, 0.0)
        fit.r2 = 1.0 if self.all_equal or self.tss <= 0.0 else max(0.0, 1.0 - rss_w / self.tss)
        fit.criterion = _aicc(rss_w * self.w_sum, self.m, params, self.floor)
        fit.rss = float(((self.y - fit.predict(self.n)) ** 2).sum())
        return fit

    def _with_linear_term(self, model: str, params: int) -> Optional[Fit]:
        """a + c*n + b*f(n), or None when the class term does not dominate the
        linear one over the observed sizes (then the class is not what the
        data show) or the curve decreases somewhere over them."""
        f = model_term(model, self.n)
        fscale = float(f.max()) or 1.0
        nscale = float(self.n.max()) or 1.0
        a, c, b, rss_w = _plane(self.n / nscale, f / fscale, self.ys, self.w)
        class_change = b * float(f.max() - f.min()) / fscale
        linear_change = abs(c) * float(self.n.max() - self.n.min()) / nscale
        if b <= 0.0 or class_change < linear_change:
            return None
        fit = Fit(model, a * self.yscale, b * self.yscale / fscale, None, 0.0, 0.0, 0.0,
                  c * self.yscale / nscale)
        curve = fit.predict(np.unique(self.n))
        if np.any(np.diff(curve) < -_REL_EPS * self.yscale):
            return None
        return self._finish(fit, rss_w, params)


def upper_envelope(sizes: Sequence[float], costs: Sequence[float]) -> np.ndarray:
    """Mask of the points on the upper envelope: a point at least
    ENVELOPE_DROP times cheaper than a point of a smaller size took a
    cheaper path (two regimes: an early return, a cached answer, another
    statement) and is off the envelope."""
    n = np.asarray(sizes, dtype=float)
    y = np.asarray(costs, dtype=float)
    keep = np.ones(n.size, dtype=bool)
    order = np.argsort(n, kind="stable")
    highest_below = 0.0     # largest cost at the sizes smaller than the current one
    i = 0
    while i < order.size:
        j = i
        while j < order.size and n[order[j]] == n[order[i]]:
            j += 1
        group = order[i:j]
        keep[group] = y[group] * ENVELOPE_DROP >= highest_below
        highest_below = max(highest_below, float(y[group].max()))
        i = j
    return keep


def _rise(n: np.ndarray, y: np.ndarray) -> float:
    """How many times the cost of the largest third of the sizes exceeds
    that of the smallest third (medians: one odd point does not decide)."""
    order = np.argsort(n, kind="stable")
    third = max(1, order.size // 3)
    low = float(np.median(y[order[:third]]))
    high = float(np.median(y[order[-third:]]))
    return high / max(low, 1.0 if np.all(y == np.round(y)) else _SMALL_COST * float(y.max()))


def _choose(fits: List[Fit]) -> List[Fit]:
    """The candidates, the chosen model first: lowest AICc, with the
    parsimony rule (module docstring)."""
    ranked = sorted(fits, key=lambda f: (f.criterion, MODELS.index(f.model)))
    lowest = ranked[0].criterion
    close = [f for f in ranked if f.criterion <= lowest + PREFER_SIMPLER_DELTA]
    best = min(close, key=lambda f: (f.params, f.model == "n^k", f.criterion))
    return [best] + [f for f in ranked if f is not best]


def _tail_ratio(result: "FitResult") -> Tuple[float, int]:
    """Median of predicted / measured cost over the largest sizes fitted
    (those within TAIL_SPAN times the largest, at least the 3 largest), and
    how many sizes that is. Relative least squares let many small sizes
    outvote a few large ones, and the large ones are where extrapolation
    starts (memcpy under Valgrind: 0.03 blocks per cell up to 8 KiB, then
    one block per byte of `rep movsb`)."""
    n = np.asarray(result.sizes, dtype=float)
    y = np.asarray(result.costs, dtype=float)
    largest = np.unique(n)[::-1]   # at least MIN_DISTINCT_SIZES of them
    count = max(3, int(np.count_nonzero(largest * TAIL_SPAN >= largest[0])))
    tail = n >= largest[count - 1]
    with np.errstate(all="ignore"):
        ratios = np.asarray(result.best.predict(n[tail]), dtype=float) / np.maximum(y[tail], 1.0)
    return float(np.median(ratios)), count


def _doubts(result: "FitResult") -> List[str]:
    best, ru = result.best, result.runner_up
    doubts = []
    used = int(np.unique(result.sizes).size)
    if used < CONFIDENT_SIZES:
        doubts.append(f"only {used} distinct sizes fitted (confident from {CONFIDENT_SIZES})")
    if best.model == "1":
        # R^2 of a constant is 0 by definition: its doubt is a wide spread.
        low, high = min(result.costs), max(result.costs)
        if high > CONSTANT_SPREAD * max(low, 1e-300):
            doubts.append(f"costs vary {high / max(low, 1e-300):.3g}x without a trend")
    elif best.r2 < CONFIDENT_R2:
        doubts.append(f"R^2 {best.r2:.2f} < {CONFIDENT_R2:g}")
    if result.at_bound:
        doubts.append(f"exponent at the fitter's bound {best.k:g}")
    tail, count = _tail_ratio(result)
    if not 1.0 / TAIL_MISS <= tail <= TAIL_MISS:
        doubts.append(f"misses the largest sizes: predicts {tail:.2g}x the measured cost "
                      f"at the {count} largest sizes")
    if (ru is not None and abs(ru.criterion - best.criterion) < PREFER_SIMPLER_DELTA
            and abs(ru.growth_exponent() - best.growth_exponent()) >= DISTINCT_GROWTH):
        doubts.append(f"runner-up {model_label(ru)} fits about as well "
                      f"(ΔAICc {ru.criterion - best.criterion:+.1f})")
    return doubts


def fit_points(sizes: Sequence[float], costs: Sequence[float],
               min_distinct: int = MIN_DISTINCT_SIZES) -> FitResult:
    """Fits every model to the points (sizes[i], costs[i]) and chooses one by
    AICc with the parsimony rule (module docstring). Sizes must be >= 0;
    repeated sizes are allowed (each point counts). Raises NotEnoughPoints
    with fewer than min_distinct distinct sizes (min_distinct >= 5).

    Growth is never missed:
    - points off the upper envelope (upper_envelope: a cheaper path) are
      left out when at least min_distinct sizes remain (result.left_out,
      a note); otherwise all are fitted and the two regimes are a doubt;
    - when the cost rises at least GROWTH_RATIO times from the smallest
      third of the sizes to the largest, the constant model is not a
      candidate (a note says so);
    - result.doubts lists why the fit is inconclusive: fewer than
      CONFIDENT_SIZES sizes, R^2 below CONFIDENT_R2 (for the constant:
      costs spread more than CONSTANT_SPREAD times), a free exponent at
      its bound, a prediction off by more than TAIL_MISS times at the
      largest sizes (_tail_ratio), a runner-up of another growth
      (DISTINCT_GROWTH) within PREFER_SIMPLER_DELTA."""
    if min_distinct < MIN_DISTINCT_SIZES:
        raise ValueError(f"min_distinct must be at least {MIN_DISTINCT_SIZES}: "
                         "the criterion cannot compare the models on fewer points")
    data = _Data(sizes, costs)
    if data.distinct < min_distinct:
        raise NotEnoughPoints(data.distinct, min_distinct)
    notes, doubts = [], []
    keep = upper_envelope(data.n, data.y)
    left_out = int((~keep).sum())
    if left_out:
        if np.unique(data.n[keep]).size >= min_distinct:
            notes.append(f"fitted on the upper envelope: {left_out} of {data.m} points at least "
                         f"{ENVELOPE_DROP:g}x cheaper than at a smaller size (a cheaper path) "
                         "left out")
            data = _Data(data.n[keep], data.y[keep])
        else:
            doubts.append(f"two regimes: {left_out} of {data.m} points at least "
                          f"{ENVELOPE_DROP:g}x cheaper than at a smaller size")
            left_out = 0
    # A model whose AICc is undefined (too few points for its parameters:
    # "n^k" on 5 points) is left out.
    fits = [data.fit(model) for model in MODELS if data.m - _params(model) - 2 > 0]
    rise = _rise(data.n, data.y)
    candidates = _choose(fits)
    if rise >= GROWTH_RATIO and candidates[0].model == "1":
        notes.append(f"the cost rises {rise:.3g}x over the sizes: growth, not the constant "
                     "that fits best")
        fits = [f for f in fits if f.model != "1"]
        candidates = _choose(fits)
    # Data steeper than the steepest class: the free power pinned at its
    # upper bound explains them about as well as the chosen model, and says
    # "at least n^4" where a fixed class would understate the growth.
    steepest = [f for f in fits if f.model == "n^k" and f.k >= K_RANGE[1] - 1e-3
                and f.criterion <= min(g.criterion for g in fits) + PREFER_SIMPLER_DELTA]
    if steepest and candidates[0] is not steepest[0]:
        candidates = steepest + [f for f in candidates if f is not steepest[0]]
    if candidates[0].model != "1" and candidates[0].b <= 0.0:
        notes.append("no model grows with the data")
    result = FitResult(candidates[0], candidates[1] if len(candidates) > 1 else None,
                       candidates, int(np.unique(np.asarray(sizes, dtype=float)).size), METHOD,
                       [float(v) for v in data.n], [float(v) for v in data.y], left_out, notes)
    if result.at_bound:
        bound = "at least" if result.best.k >= K_RANGE[1] - 1e-3 else "at most"
        notes.append(f"free exponent at the fitter's bound: growth is {bound} "
                     f"n^{result.best.k:g}")
    result.doubts = doubts + _doubts(result)
    return result


def fit_model(sizes: Sequence[float], costs: Sequence[float], model: str,
              k: Optional[float] = None) -> Fit:
    """One model fitted to the points, with its criterion on them (comparable
    with the criteria of fit_points() on the same points). For "n^k", a given
    k is fixed (not a parameter). Used to ask "does the class of another fit
    explain these points?" (regress.py); NotEnoughPoints if the criterion is
    undefined for so few points."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r} (expected one of {MODELS})")
    return _Data(sizes, costs).fit(model, k)


def routine_points(routine, metric: str = "trms", statistic: str = "max"):
    """(sizes, costs) of a RoutineProfile, sorted by size: per input size the
    max, avg, min or total (sum) cost of its activations."""
    if statistic not in STATISTICS:
        raise ValueError(f"unknown statistic {statistic!r} (expected one of {STATISTICS})")
    points = routine.points(metric)
    sizes = sorted(points)
    get = {"max": lambda p: p.max_cost, "min": lambda p: p.min_cost,
           "avg": lambda p: p.avg_cost, "total": lambda p: p.sum_cost}[statistic]
    return sizes, [get(points[s]) for s in sizes]


def fit_routine(routine, metric: str = "trms", statistic: str = "max") -> FitResult:
    """Fits a RoutineProfile's points of input metric 'trms' or 'rms', one
    point per distinct size with the cost `statistic` (max: the worst-case
    plot of the paper). NotEnoughPoints names the routine and metric."""
    sizes, costs = routine_points(routine, metric, statistic)
    if len(sizes) < MIN_DISTINCT_SIZES:
        raise NotEnoughPoints(len(sizes), MIN_DISTINCT_SIZES, f"{routine.name} ({metric})")
    return fit_points(sizes, costs)
