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

numpy comes from Debian (python3-numpy). Point sets are fitted many at once
(fit_many, fit_routines: numpy over the rows of a batch, one row per
routine); the exponent search of "n^k" is scipy's bounded Brent method
(minimize_scalar(method="bounded")) step for step, on every row at once.
"""
import dataclasses
import functools
import math
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import evidence
from . import populations
from .names import number

__all__ = ["MODELS", "MIN_DISTINCT_SIZES", "K_RANGE", "LOG_GROWTH",
           "PREFER_SIMPLER_DELTA", "STATISTICS", "ENVELOPE_DROP", "GROWTH_RATIO",
           "CONFIDENT_SIZES", "CONFIDENT_R2", "DISTINCT_GROWTH", "CONSTANT_SPREAD",
           "NotEnoughPoints", "Fit",
           "FitResult", "model_term", "model_label", "label_with_interval", "upper_envelope", "fit_points", "fit_many",
           "fit_model", "routine_points", "fit_routine", "fit_routines",
           "fit_routines_by_metric", "FitInfo", "fit_infos", "fit_of"]

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
TAIL_LARGEST = 3           # and the very largest sizes, judged by themselves as well
CONFIDENT_CLUSTERS = 6     # fewer clusters of sizes (evidence.size_clusters): inconclusive
CONFIDENT_SPAN = 4.0       # sizes spanning less than this factor: inconclusive
CONFIDENT_KEPT = 0.5       # an upper envelope keeping less than this share of the points
EXPONENT_LEVEL = 3.84      # chi-square(1) at 95%: the exponent interval's likelihood ratio
CONFIDENT_WIDTH = 2 * DISTINCT_GROWTH   # a wider exponent interval holds classes two apart

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


@dataclasses.dataclass(slots=True)   # a dozen per routine fitted, 100,000s of routines
class Fit:
    model: str            # one of MODELS
    a: float              # intercept
    b: float              # coefficient of the model term (0 for "1")
    k: Optional[float]    # exponent (only for "n^k")
    rss: float            # residual sum of squares, unweighted, in cost units squared
    r2: float             # R^2 of the (weighted) fit, in [0, 1]
    criterion: float      # AICc (lower is better)
    c: float = 0.0        # linear lower-order term (superlinear classes only)
    # The free exponent's 95% interval (profile likelihood, one point per
    # cluster of sizes: _Batch.exponent_interval); only for "n^k" with k fitted.
    k_low: Optional[float] = None
    k_high: Optional[float] = None

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
            return number(x, f".{digits}g")
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


def label_with_interval(result: "FitResult") -> str:
    """The chosen model and its exponent's 95% interval: "n^1.02 [0.97, 1.08]"."""
    interval = result.interval
    label = model_label(result.best)
    return label if interval is None else f"{label} [{number(interval[0], '.2f')}, {number(interval[1], '.2f')}]"


def model_label(fit: Fit, digits: int = 2) -> str:
    """Short class name: the model, with the exponent for n^k ("n^1.52")."""
    if fit.model == "n^k":
        return f"n^{fit.k:.{digits}f}"
    return fit.model


@dataclasses.dataclass(slots=True)
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
    # The doubts known when the points were prepared (two regimes), and the
    # clusters of the sizes fitted: the property doubts adds the others.
    prior_doubts: List[str] = dataclasses.field(default_factory=list)
    clusters: Optional[int] = None
    # The points left out are a second population (populations.py), not
    # cheaper paths: the envelope's share kept says nothing then.
    two_populations: bool = False
    # The properties doubts, points_slope and model_slope, once computed
    # (judged: doubts).
    judged: Optional[List[str]] = None
    points_slope_known: bool = False
    points_slope_value: Optional[float] = None
    model_slope_known: bool = False
    model_slope_value: Optional[float] = None

    @property
    def points_slope(self) -> Optional[float]:
        """The points' log-log slope at the largest sizes
        (evidence.tail_slope), measured on first use; None when they cannot
        tell one."""
        if not self.points_slope_known:
            self.points_slope_value = evidence.tail_slope(self.sizes, self.costs)
            self.points_slope_known = True
        return self.points_slope_value

    @property
    def doubts(self) -> List[str]:
        """Why the fit is inconclusive (fit_points), worked out on first use:
        a command comparing 200,000 fits reads the doubts of a few."""
        if self.judged is None:
            with np.errstate(all="ignore"):   # the predictions at the largest sizes may overflow
                self.judge()
        return self.judged

    def judge(self) -> None:
        """Works out the doubts (under numpy's error state "ignore")."""
        self.judged = self.prior_doubts + _doubts(self, self.clusters)

    @property
    def model_slope(self) -> Optional[float]:
        """The chosen model's log-log slope at the largest size
        (evidence.local_slope), computed on first use."""
        if not self.model_slope_known:
            self.model_slope_value = evidence.local_slope(self.best.predict, max(self.sizes))
            self.model_slope_known = True
        return self.model_slope_value

    @property
    def conclusive(self) -> bool:
        return not self.doubts

    @property
    def interval(self) -> Optional[Tuple[float, float]]:
        """The 95% interval of the growth exponent: the free power's (fitted
        with the others on these points), widened to the chosen class's
        exponent when it lies outside (a class with a lower-order term, n^2
        - 3n, is what a free power without one reads as n^2.08); None when
        the power was not fitted or the chosen model does not grow (a
        constant's cost does not tell any exponent apart)."""
        power = next((f for f in self.candidates if f.model == "n^k" and f.k_low is not None), None)
        growth = self.best.growth_exponent()
        if power is None or growth == 0.0:
            return None
        return min(power.k_low, growth), max(power.k_high, growth)

    def slim(self) -> "FitResult":
        """The result with only the candidates that are shown or needed:
        the best, the runner-up and the free power whose interval
        `interval` reads. A command holding the results of 100,000s of
        routines keeps a few hundred bytes each, not a dozen fits."""
        power = next((f for f in self.candidates if f.model == "n^k" and f.k_low is not None), None)
        slim = FitResult.__new__(FitResult)   # a copy, faster than dataclasses.replace
        for name in _RESULT_FIELDS:
            setattr(slim, name, getattr(self, name))
        slim.candidates = [f for f in self.candidates
                           if f is self.best or f is self.runner_up or f is power]
        return slim

    def slopes(self) -> Optional[Tuple[float, float]]:
        """(the model's, the points') log-log slope at the largest sizes
        (evidence.py), or None when either cannot be told."""
        points, model = self.points_slope, self.model_slope
        return None if points is None or model is None else (model, points)

    def steeper_than_points(self) -> bool:
        """Whether the model grows faster at the largest sizes than its
        points do, by the measure of the doubt that says so
        (evidence.disagrees_with_points: more than SLOPE_TOLERANCE, or more
        than STEEPER_TOLERANCE with the exponent interval wholly above the
        points' slope). The fit has then judged the model's growth there
        unsupported, and what extrapolates is the points' slope."""
        slopes = self.slopes()
        return slopes is not None and evidence.model_steeper_than_points(*slopes, self.interval)

    def effective_growth(self) -> float:
        """The growth exponent the points support: the model's, or the
        points' slope at the largest sizes when the model is steeper there
        (steeper_than_points)."""
        if self.steeper_than_points():
            return max(self.points_slope, 0.0)
        return self.best.growth_exponent()

    def growth_factor(self, scale: float) -> Tuple[float, bool]:
        """How many times the cost grows from the largest size to `scale`
        times it, and whether that follows the points' slope because the
        model is steeper there than they are (steeper_than_points:
        evidence.growth_factor given the exponent interval)."""
        return evidence.growth_factor(self.best.predict, max(self.sizes), scale,
                                      self.points_slope, self.model_slope, self.interval)

    def only_slightly_steeper_than_points(self) -> bool:
        """Whether the fit's one doubt is its model's being steeper than its
        points at the largest sizes by no more than SLOPE_TOLERANCE (the
        doubt then comes from the exponent interval lying wholly above the
        points' slope: evidence.disagrees_with_points). The points are many,
        spread out and well fitted, and model and points agree on the
        growth within the tolerance that tells slopes apart everywhere
        else; only the model's precise exponent is contradicted, so the
        points' slope is the growth they support (rank.py ranks such a fit
        with the confident ones, by that slope). Farther apart, the largest
        sizes are another regime than the one fitted: inconclusive."""
        if len(self.doubts) != 1 or not self.steeper_than_points():
            return False
        model, points = self.slopes()
        return model - points <= evidence.SLOPE_TOLERANCE

    @property
    def at_bound(self) -> bool:
        """The free exponent of the chosen model sits at an end of K_RANGE."""
        return self.best.model == "n^k" and (self.best.k >= K_RANGE[1] - 1e-3
                                             or self.best.k <= K_RANGE[0] + 1e-3)


_RESULT_FIELDS = tuple(field.name for field in dataclasses.fields(FitResult))


# ---------------------------------------------------------------------------
# Least squares, on many point sets at once: every array below has one row
# per point set (all rows of a batch have the same number of points), so
# that rank.py, annotate.py and regress.py fit 100,000 routines with a few
# hundred numpy calls instead of a few hundred per routine.
# ---------------------------------------------------------------------------

_BATCH_CELLS = 1 << 18      # rows x points (x grid exponents) solved by one numpy call


def _line(f: np.ndarray, y: np.ndarray, w: np.ndarray):
    """Weighted least squares y ~ a + b*f with b >= 0 per row, minimising
    sum(w * (y - a - b*f)^2) (columns already scaled to ~1, w summing to 1
    per row): returns the arrays (a, b, weighted rss). Centred closed form:
    stable, no matrix to invert. f may have an extra middle axis (several
    columns per row, the exponent grid): the results then have it too."""
    if f.ndim == y.ndim + 1:
        y, w = y[:, None, :], w[:, None, :]
    fm = (f * w).sum(axis=-1)
    ym = (y * w).sum(axis=-1)
    fc = f - fm[..., None]
    wfc = w * fc
    sxx = (wfc * fc).sum(axis=-1)
    sxy = (wfc * (y - ym[..., None])).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.maximum(np.where(sxx > 0.0, sxy / np.where(sxx > 0.0, sxx, 1.0), 0.0), 0.0)
    a = ym - b * fm
    resid = y - a[..., None] - b[..., None] * f
    return a, b, (w * resid * resid).sum(axis=-1)


def _plane(g: np.ndarray, f: np.ndarray, y: np.ndarray, w: np.ndarray):
    """Weighted least squares y ~ a + c*g + b*f with b >= 0 and c free, per
    row (columns scaled to ~1): returns the arrays (a, c, b, weighted rss).
    Where the free solution has b < 0 the best constrained one has b = 0:
    a + c*g. Solved by the pseudo-inverse (singular values below lstsq's
    default cutoff count as 0), stacked over the rows."""
    sw = np.sqrt(w)
    ones = np.ones_like(g)
    a, c, b = _lstsq(np.stack([ones, g, f], axis=-1) * sw[..., None], y * sw)
    negative = b < 0.0
    if negative.any():
        a2, c2 = _lstsq(np.stack([ones, g], axis=-1)[negative] * sw[negative][..., None],
                        (y * sw)[negative])
        a[negative], c[negative], b[negative] = a2, c2, 0.0
    resid = y - a[:, None] - c[:, None] * g - b[:, None] * f
    return a, c, b, (w * resid * resid).sum(axis=-1)


def _lstsq(design: np.ndarray, rhs: np.ndarray) -> List[np.ndarray]:
    """The minimum-norm least squares solutions of stacked systems (rows,
    points, columns), as numpy.linalg.lstsq finds each: one array per
    column."""
    u, s, vt = np.linalg.svd(design, full_matrices=False)
    cutoff = np.finfo(float).eps * max(design.shape[-2:]) * s[:, :1]
    with np.errstate(divide="ignore"):
        inverse = np.where(s > cutoff, 1.0 / s, 0.0)
    coef = np.einsum("rij,rj->ri", vt.transpose(0, 2, 1),
                     inverse * np.einsum("rmj,rm->rj", u, rhs))
    return list(coef.T.copy())


def _aicc(rss, m: int, params: int, floor):
    big_k = params + 1   # + the residual variance
    return (m * np.log(np.maximum(rss, floor) / m) + 2 * big_k
            + 2 * big_k * (big_k + 1) / (m - big_k - 1))


_GOLDEN_MEAN = 0.5 * (3.0 - math.sqrt(5.0))
_SQRT_EPS = math.sqrt(2.2e-16)


def _bounded_minimum(func, lo: np.ndarray, hi: np.ndarray, xatol: float = 1e-7,
                     max_calls: int = 500):
    """Brent's bounded minimisation of each row's function over [lo, hi]:
    scipy.optimize.minimize_scalar(method="bounded") step for step, every
    row at once (func maps an array of x, one per row, to the array of
    values). Returns (x, f(x)) of each row."""
    a, b = lo.astype(float), hi.astype(float)
    xf = a + _GOLDEN_MEAN * (b - a)
    nfc, fulc = xf.copy(), xf.copy()
    rat, e = np.zeros_like(xf), np.zeros_like(xf)
    fx = func(xf)
    ffulc, fnfc = fx.copy(), fx.copy()
    calls = 1
    xm = 0.5 * (a + b)
    tol1 = _SQRT_EPS * np.abs(xf) + xatol / 3.0
    tol2 = 2.0 * tol1
    active = np.abs(xf - xm) > (tol2 - 0.5 * (b - a))
    with np.errstate(all="ignore"):
        while active.any() and calls < max_calls:
            # A parabolic step where the last steps allow one and it falls
            # inside, else a golden-section step.
            r = (xf - nfc) * (fx - ffulc)
            q = (xf - fulc) * (fx - fnfc)
            p = (xf - fulc) * q - (xf - nfc) * r
            q = 2.0 * (q - r)
            p = np.where(q > 0.0, -p, p)
            q = np.abs(q)
            parabolic = ((np.abs(e) > tol1) & (np.abs(p) < np.abs(0.5 * q * e))
                         & (p > q * (a - xf)) & (p < q * (b - xf)))
            step = (p + 0.0) / q
            x = xf + step
            toward_middle = tol1 * (np.sign(xm - xf) + ((xm - xf) == 0))
            step = np.where(((x - a) < tol2) | ((b - x) < tol2), toward_middle, step)
            golden_e = np.where(xf >= xm, a - xf, b - xf)
            e = np.where(active, np.where(parabolic, rat, golden_e), e)
            rat = np.where(active, np.where(parabolic, step, _GOLDEN_MEAN * golden_e), rat)
            x = xf + (np.sign(rat) + (rat == 0)) * np.maximum(np.abs(rat), tol1)
            fu = func(x)
            calls += 1
            better = active & (fu <= fx)
            worse = active & ~(fu <= fx)
            a = np.where(better & (x >= xf), xf, np.where(worse & (x < xf), x, a))
            b = np.where(better & ~(x >= xf), xf, np.where(worse & ~(x < xf), x, b))
            second = worse & ((fu <= fnfc) | (nfc == xf))
            third = worse & ~second & ((fu <= ffulc) | (fulc == xf) | (fulc == nfc))
            fulc, ffulc = (np.where(better | second, nfc, np.where(third, x, fulc)),
                           np.where(better | second, fnfc, np.where(third, fu, ffulc)))
            nfc, fnfc = (np.where(better, xf, np.where(second, x, nfc)),
                         np.where(better, fx, np.where(second, fu, fnfc)))
            xf, fx = np.where(better, x, xf), np.where(better, fu, fx)
            xm = 0.5 * (a + b)
            tol1 = _SQRT_EPS * np.abs(xf) + xatol / 3.0
            tol2 = 2.0 * tol1
            active &= np.abs(xf - xm) > (tol2 - 0.5 * (b - a))
    return xf, fx


def _likelihood_bounds(grid: np.ndarray, ratio: np.ndarray, k: np.ndarray) \
        -> Tuple[np.ndarray, np.ndarray]:
    """Per row, where the likelihood ratio over the exponent grid (0 at the
    row's best exponent k) first exceeds EXPONENT_LEVEL below and above k,
    interpolated linearly between that grid point and the inside point next
    to it (a grid point, or k itself); the grid's ends when it never does."""
    rows, size = ratio.shape
    every = np.arange(rows)
    index = np.arange(size)[None, :]
    outside = ratio > EXPONENT_LEVEL
    below = np.searchsorted(grid, k, side="left")    # grid[:below] < k
    above = np.searchsorted(grid, k, side="right")   # grid[above:] > k

    def crossing(out_mask, first_out, neighbour, neighbour_in_grid, end):
        has = out_mask.any(axis=1)
        near = np.clip(neighbour, 0, size - 1)
        x_in = np.where(neighbour_in_grid, grid[near], k)
        r_in = np.where(neighbour_in_grid, ratio[every, near], 0.0)
        x_out, r_out = grid[first_out], ratio[every, first_out]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (EXPONENT_LEVEL - r_in) / (r_out - r_in)
            return np.where(has, x_in + t * (x_out - x_in), end)

    low_out = outside & (index < below[:, None])
    first_low = np.where(low_out.any(axis=1), size - 1 - np.argmax(low_out[:, ::-1], axis=1), 0)
    low = crossing(low_out, first_low, first_low + 1, first_low + 1 < below,
                   np.where(below > 0, grid[0], k))
    high_out = outside & (index >= above[:, None])
    first_high = np.argmax(high_out, axis=1)
    high = crossing(high_out, first_high, first_high - 1, first_high - 1 >= above,
                    np.where(above < size, grid[-1], k))
    return low, high


def _fit_power(x: np.ndarray, y: np.ndarray, w: np.ndarray):
    """a + b*x^k over k in K_RANGE per row (x = n / max n, y scaled): a grid
    of k, then a bounded 1-D search around the best grid point (weighted
    linear least squares inside). Returns the arrays (a, b, k, weighted rss)
    and the grid: its exponents and each row's weighted rss at them."""
    lo, hi = K_RANGE
    ks = np.arange(lo, hi + _K_GRID_STEP / 2, _K_GRID_STEP)
    rows, m = x.shape
    grid_rss = np.empty((rows, ks.size))
    step = max(1, _BATCH_CELLS // max(1, rows * m))   # exponents per call: bounded memory
    for first in range(0, ks.size, step):
        part = ks[first:first + step]
        grid_rss[:, first:first + part.size] = _line(
            np.power(x[:, None, :], part[None, :, None]), y, w)[2]
    best = np.argmin(grid_rss, axis=1)
    k_grid = ks[best]
    grid_min = grid_rss[np.arange(rows), best]

    def rss_of(k: np.ndarray) -> np.ndarray:
        return _line(np.power(x, k[:, None]), y, w)[2]

    k, rss = _bounded_minimum(rss_of, np.maximum(lo, k_grid - _K_GRID_STEP),
                              np.minimum(hi, k_grid + _K_GRID_STEP))
    k = np.where(rss <= grid_min, k, k_grid)
    a, b, rss_w = _line(np.power(x, k[:, None]), y, w)
    return a, b, k, rss_w, ks, grid_rss


class _Batch:
    """Validated point sets of m points each (one per row), scaled, with
    their weights and RSS floors."""

    def __init__(self, n: np.ndarray, y: np.ndarray):
        self.n, self.y = n, y
        self.rows, self.m = n.shape
        # Scale costs and model columns to ~1: costs up to 1e12 and n^3
        # terms up to 1e36 would otherwise make the sums lose precision.
        yscale = np.max(np.abs(y), axis=1) if self.m else np.ones(self.rows)
        self.yscale = np.where(yscale > 0.0, yscale, 1.0)
        self.ys = y / self.yscale[:, None]
        # Relative errors: weight 1/cost^2, normalised to sum 1 for the
        # solver. A cost of 0 is not infinitely precise: integer costs
        # (counts) below 1 count as 1, other costs below 1e-6 of the largest
        # as 1e-6 of it.
        self.integer = np.all(y == np.round(y), axis=1)
        s_cost = np.maximum(np.abs(y), np.where(self.integer, 1.0, _SMALL_COST * self.yscale)[:, None])
        big_w = (self.yscale[:, None] / s_cost) ** 2
        self.w_sum = big_w.sum(axis=1) if self.m else np.ones(self.rows)
        self.w = big_w / self.w_sum[:, None]
        self.floor = np.maximum(np.where(self.integer, 1.0 / 12.0, 0.0)[:, None] / s_cost ** 2,
                                _REL_EPS ** 2).sum(axis=1)
        self.all_equal = np.all(y == y[:, :1], axis=1)
        self.ym = (self.w * self.ys).sum(axis=1)
        self.tss = (self.w * (self.ys - self.ym[:, None]) ** 2).sum(axis=1)

    def fit(self, model: str, k: Optional[float] = None) -> List[Fit]:
        """One model on every row; for "n^k", k=None fits the exponent, a
        number fixes it (then it is not counted as a parameter)."""
        return self._fits(model, *self.fit_arrays(model, k))

    def fit_arrays(self, model: str, k: Optional[float] = None):
        """fit()'s results as arrays: ([a, b, c, rss, r2, AICc] per row
        (_finish), the exponents or None, the exponent's interval or None)."""
        params = _params(model) - (1 if model == "n^k" and k is not None else 0)
        if self.m - (params + 1) - 1 <= 0:
            raise NotEnoughPoints(self.m, params + 3, f"model {model!r}", unit="point")
        ys, w, yscale, zeros = self.ys, self.w, self.yscale, np.zeros(self.rows)
        ks: Optional[np.ndarray] = None
        interval: Optional[Tuple[np.ndarray, np.ndarray]] = None
        if model == "1":
            a = np.where(self.all_equal, self.y[:, 0], self.ym * yscale)
            b, rss_w = zeros, self.tss
        elif model == "n^k":
            nmax = np.max(self.n, axis=1)
            nmax = np.where(nmax > 0.0, nmax, 1.0)
            x = self.n / nmax[:, None]
            if k is None:
                a, b, ks, rss_w, grid, grid_rss = _fit_power(x, ys, w)
                interval = self.exponent_interval(ks, rss_w, grid, grid_rss)
            else:
                ks = np.full(self.rows, float(k))
                a, b, rss_w = _line(np.power(x, ks[:, None]), ys, w)
            a, b = a * yscale, b * yscale / nmax ** ks
        else:
            f = model_term(model, self.n)
            fscale = np.max(f, axis=1)
            fscale = np.where(fscale != 0.0, fscale, 1.0)
            a, b, rss_w = _line(f / fscale[:, None], ys, w)
            a, b = a * yscale, b * yscale / fscale
        fit = self._finish(model, a, b, ks, zeros, rss_w, params)
        if model in _WITH_LINEAR_TERM and k is None and self.m - (params + 2) - 1 > 0:
            # The variant with the linear term where it is kept and better.
            with_term, kept = self._with_linear_term(model, params + 1)
            better = kept & (with_term[5] < fit[5])
            fit = [np.where(better, t, f) for t, f in zip(with_term, fit)]
        return fit, ks, interval

    def exponent_interval(self, k: np.ndarray, rss_w: np.ndarray, grid: np.ndarray,
                          grid_rss: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """The free exponent's 95% interval per row: the exponents whose
        likelihood ratio against the best fit, c*ln(rss(k)/rss_min), stays
        within EXPONENT_LEVEL, where c is the number of clusters of sizes,
        not of points: a few clusters of many sizes each are few
        observations (evidence.size_clusters), and the interval widens.
        The ratio is known on the exponent grid; where it crosses the level
        between two grid points (or between the best exponent, ratio 0, and
        a grid point), the crossing is interpolated."""
        floor = (self.floor / self.w_sum)[:, None]
        best = np.maximum(np.minimum(rss_w, grid_rss.min(axis=1))[:, None], floor)
        ratio = self.clusters[:, None] * np.log(np.maximum(grid_rss, floor) / best)
        return _likelihood_bounds(grid, ratio, k)

    def power_law(self, b: float, k: float) -> Fit:
        """b*n^k (no intercept; b and k given) on a batch of one row, with
        the rss, R^2 and criterion fit() gives a fixed exponent's fit."""
        one = np.ones(1)
        resid = self.ys - b * np.power(self.n, k) / self.yscale[:, None]
        rss_w = (self.w * resid * resid).sum(axis=1)
        fit = self._finish("n^k", 0.0 * one, b * one, k * one, 0.0 * one, rss_w, _params("n^k") - 1)
        return self._fits("n^k", fit, k * one)[0]

    @functools.cached_property
    def clusters(self) -> np.ndarray:
        """Clusters of sizes per row (evidence.size_clusters), counted a
        column of the sorted sizes at a time over all the rows: a size equal
        to the one before it never starts a cluster, as in size_clusters'
        set of the sizes."""
        count = np.zeros(self.rows)
        start = np.full(self.rows, np.nan)   # the current cluster's first size
        for size in np.sort(self.n, axis=1).T:
            new = (np.isnan(start) | ((start == 0.0) & (size > 0.0))
                   | (size > start * evidence.CLUSTER_GAP))
            count += new
            start = np.where(new, size, start)
        return count

    def _finish(self, model: str, a, b, ks, c, rss_w, params: int) -> List[np.ndarray]:
        """[a, b, c, rss, r2, AICc] per row: r2, AICc and the plain rss from
        the weighted rss."""
        rss_w = np.maximum(rss_w, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r2 = np.where(self.all_equal | (self.tss <= 0.0), 1.0,
                          np.maximum(0.0, 1.0 - rss_w / self.tss))
        criterion = _aicc(rss_w * self.w_sum, self.m, params, self.floor)
        term = model_term(model, self.n, None if ks is None else ks[:, None])
        resid = self.y - (a[:, None] + c[:, None] * self.n + b[:, None] * term)
        return [a, b, c, (resid ** 2).sum(axis=1), r2, criterion]

    def _fits(self, model: str, fit: List[np.ndarray], ks: Optional[np.ndarray],
              interval: Optional[Tuple[np.ndarray, np.ndarray]] = None) -> List[Fit]:
        a, b, c, rss, r2, criterion = (v.tolist() for v in fit)
        exponents = [None] * self.rows if ks is None else ks.tolist()
        low, high = ([None] * self.rows,) * 2 if interval is None else \
            (interval[0].tolist(), interval[1].tolist())
        return [Fit(model, *values) for values in zip(a, b, exponents, rss, r2, criterion, c,
                                                      low, high)]

    def _with_linear_term(self, model: str, params: int) -> Tuple[List[np.ndarray], np.ndarray]:
        """a + c*n + b*f(n) per row (_finish's arrays), and where it is kept:
        not where the class term does not dominate the linear one over the
        observed sizes (then the class is not what the data show) or the
        curve decreases somewhere over them."""
        n = self.n
        f = model_term(model, n)
        fscale = np.max(f, axis=1)
        fscale = np.where(fscale != 0.0, fscale, 1.0)
        nscale = np.max(n, axis=1)
        nscale = np.where(nscale != 0.0, nscale, 1.0)
        a, c, b, rss_w = _plane(n / nscale[:, None], f / fscale[:, None], self.ys, self.w)
        class_change = b * (f.max(axis=1) - f.min(axis=1)) / fscale
        linear_change = np.abs(c) * (n.max(axis=1) - n.min(axis=1)) / nscale
        a, b, c = a * self.yscale, b * self.yscale / fscale, c * self.yscale / nscale
        # The curve over the observed sizes (sorted: equal sizes add no step).
        sizes = np.sort(n, axis=1)
        curve = a[:, None] + c[:, None] * sizes + b[:, None] * model_term(model, sizes)
        steps = np.diff(curve, axis=1)
        decreasing = np.any((steps < -_REL_EPS * self.yscale[:, None]) & (np.diff(sizes, axis=1) > 0),
                            axis=1)
        kept = (b > 0.0) & ~(class_change < linear_change) & ~decreasing
        return self._finish(model, a, b, None, c, rss_w, params), kept


def upper_envelope(sizes: Sequence[float], costs: Sequence[float]) -> np.ndarray:
    """Mask of the points on the upper envelope: a point at least
    ENVELOPE_DROP times cheaper than a point of a smaller size took a
    cheaper path (two regimes: an early return, a cached answer, another
    statement) and is off the envelope."""
    return np.array(_envelope(list(map(float, sizes)), list(map(float, costs))), dtype=bool)


def _envelope(n: List[float], y: List[float]) -> List[bool]:
    """upper_envelope() of lists, as a list (plain Python: most point sets
    have a few dozen points, where a numpy call costs more than the loop)."""
    keep = [True] * len(n)
    highest_below = 0.0     # largest cost at the sizes smaller than the current one
    highest = 0.0           # ... at the sizes up to the current one
    previous = None
    for i in sorted(range(len(n)), key=n.__getitem__):
        if n[i] != previous:
            highest_below, previous = highest, n[i]
        keep[i] = y[i] * ENVELOPE_DROP >= highest_below
        highest = max(highest, y[i])
    return keep


def _median(values: List[float]) -> float:
    """numpy.median of a short list, without numpy's cost per call."""
    s = sorted(values)
    half = len(s) // 2
    return s[half] if len(s) % 2 else (s[half - 1] + s[half]) / 2.0


def _rises(n: np.ndarray, y: np.ndarray, integer: np.ndarray) -> List[float]:
    """Per row, how many times the cost of the largest third of the sizes
    exceeds that of the smallest third (medians: one odd point does not
    decide)."""
    ordered = np.take_along_axis(y, np.argsort(n, axis=1, kind="stable"), axis=1)
    third = max(1, n.shape[1] // 3)
    low, high = _medians(ordered[:, :third]), _medians(ordered[:, -third:])
    return (high / np.maximum(low, np.where(integer, 1.0, _SMALL_COST * y.max(axis=1)))).tolist()


def _medians(values: np.ndarray) -> np.ndarray:
    """_median() of each row."""
    s = np.sort(values, axis=1)
    half = s.shape[1] // 2
    return s[:, half] if s.shape[1] % 2 else (s[:, half - 1] + s[:, half]) / 2.0


def _choose(fits: List[Fit]) -> List[Fit]:
    """The candidates (in MODELS order), the chosen model first: _choices()
    of one point set."""
    order = _choices(np.array([[f.criterion for f in fits]]), np.array([[f.c for f in fits]]),
                     [f.model for f in fits])[0]
    return [fits[j] for j in order]


def _choices(criteria: np.ndarray, linear: np.ndarray, models: Sequence[str]) -> List[List[int]]:
    """The order of each row's fits, the chosen model first, given each
    model's criterion and linear term per row (columns: the models, in
    MODELS order): the lowest AICc, with the parsimony rule (module
    docstring), then the others by AICc (a NaN last)."""
    rows, count = criteria.shape
    ranked = np.argsort(criteria, axis=1, kind="stable")   # ties: MODELS order
    criterion = np.take_along_axis(criteria, ranked, axis=1)
    params = np.array([_params(m) for m in models])[None, :] + (linear != 0.0)
    close = criterion <= criterion[:, :1] + PREFER_SIMPLER_DELTA
    power = np.array([m == "n^k" for m in models])[ranked]
    # min() over the close ones by (params, "n^k", criterion), the first
    # of equal keys in ranked order.
    keys = (np.broadcast_to(np.arange(count), (rows, count)), criterion, power,
            np.where(close, np.take_along_axis(params, ranked, axis=1), np.inf))
    best = np.lexsort(keys, axis=-1)[:, 0].tolist()
    return [[order[b]] + order[:b] + order[b + 1:] for order, b in zip(ranked.tolist(), best)]


def _tail(result: "FitResult") -> Tuple[List[Tuple[float, float, float]], List[float]]:
    """The points fitted at the largest sizes (those within TAIL_SPAN times
    the largest, at least the 3 largest) as (size, cost, the model's
    prediction: one call for _tail_ratio and _largest_ratios), and their
    distinct sizes, the largest first."""
    largest = sorted(set(result.sizes), reverse=True)   # at least MIN_DISTINCT_SIZES of them
    count = max(3, sum(1 for s in largest if s * TAIL_SPAN >= largest[0]))
    tail = [(n, y) for n, y in zip(result.sizes, result.costs) if n >= largest[count - 1]]
    predicted = np.asarray(result.best.predict([n for n, _ in tail]), dtype=float).tolist()
    return [(n, y, p) for (n, y), p in zip(tail, predicted)], largest[:count]


def _tail_ratio(tail: List[Tuple[float, float, float]]) -> float:
    """Median of predicted / measured cost over the tail (_tail). Relative
    least squares let many small sizes outvote a few large ones, and the
    large ones are where extrapolation starts (memcpy under Valgrind: 0.03
    blocks per cell up to 8 KiB, then one block per byte of `rep movsb`)."""
    ratios = [p / max(y, 1.0) for _, y, p in tail]
    if any(r != r for r in ratios):   # NaN: numpy.median's answer
        return math.nan
    return _median(ratios)


def _largest_ratios(tail: List[Tuple[float, float, float]], largest: List[float]) -> List[float]:
    """Predicted / measured worst cost at each of the TAIL_LARGEST largest
    sizes fitted (_tail: they are in its tail), the largest first. Where
    many sizes lie within TAIL_SPAN of the largest, their median hides a
    model that passes far below the last few (issue 27: 17M predicted
    where 124M was measured)."""
    largest = largest[:TAIL_LARGEST]
    worst = {n: 0.0 for n in largest}
    predicted = {}
    for n, y, p in tail:
        if n in worst:
            worst[n] = max(worst[n], y)
            predicted[n] = p
    return [predicted[n] / max(worst[n], 1.0) for n in largest]


def _misses_largest(result: "FitResult") -> str:
    """The doubt of a model off at the largest sizes, or "": off by more than
    TAIL_MISS times in the median over the sizes within TAIL_SPAN of the
    largest, or over the TAIL_LARGEST largest, or by more than TAIL_MISS^2
    times at the largest size alone (one point: a wider margin)."""
    def off(ratio: float, factor: float) -> bool:
        return not 1.0 / factor <= ratio <= factor   # NaN is off too

    points, sizes = _tail(result)
    tail, largest = _tail_ratio(points), _largest_ratios(points, sizes)
    if off(tail, TAIL_MISS):
        where = f"at the {len(sizes)} largest sizes"
    elif off(_median(largest), TAIL_MISS):
        tail, where = _median(largest), f"at the {len(largest)} largest sizes"
    elif off(largest[0], TAIL_MISS ** 2):
        tail, where = largest[0], "at the largest size"
    else:
        return ""
    return f"misses the largest sizes: predicts {tail:.2g}x the measured cost {where}"


def _doubts(result: "FitResult", clusters: Optional[int] = None) -> List[str]:
    """Why the fit is inconclusive (fit_points); clusters: of the sizes
    fitted, when known (evidence.size_clusters)."""
    if clusters is None:
        clusters = evidence.size_clusters(result.sizes)
    best, ru = result.best, result.runner_up
    doubts = []
    used = len(set(result.sizes))
    if used < CONFIDENT_SIZES:
        doubts.append(f"only {used} distinct sizes fitted (confident from {CONFIDENT_SIZES})")
    doubts += _thin_evidence(result, used, clusters)
    if best.model == "1":
        # R^2 of a constant is 0 by definition: its doubt is a wide spread.
        low, high = min(result.costs), max(result.costs)
        if high > CONSTANT_SPREAD * max(low, 1e-300):
            doubts.append(f"costs vary {high / max(low, 1e-300):.3g}x without a trend")
    elif best.r2 < CONFIDENT_R2:
        doubts.append(f"R^2 {best.r2:.2f} < {CONFIDENT_R2:g}")
    if result.at_bound:
        doubts.append(f"exponent at the fitter's bound {best.k:g}")
    doubts += _wide_interval(result)
    missed = _misses_largest(result)
    if missed:
        doubts.append(missed)
    if (ru is not None and abs(ru.criterion - best.criterion) < PREFER_SIMPLER_DELTA
            and abs(ru.growth_exponent() - best.growth_exponent()) >= DISTINCT_GROWTH):
        doubts.append(f"runner-up {model_label(ru)} fits about as well "
                      f"(ΔAICc {number(ru.criterion - best.criterion, '+.1f')})")
    result.model_slope_known = False   # that of this best model
    slopes = result.slopes()
    if slopes is not None and (evidence.disagrees_with_points(*slopes, result.interval)
                               or evidence.steeper_than_the_top(*slopes, result.interval,
                                                                result.sizes, result.costs)):
        doubts.append(f"grows with slope {number(slopes[0], '.2f')} at the largest sizes, where its "
                      f"points rise with slope {number(slopes[1], '.2f')}")
    return doubts


def _wide_interval(result: "FitResult") -> List[str]:
    """The doubt of an exponent interval too wide to name a class: one that
    holds both n and n^2 says the points do not tell the growth, whatever
    class fits best (an interpreter's loop with 8 sizes: n^3 [1.00, 3.47])."""
    interval = result.interval
    if interval is None or interval[1] - interval[0] <= CONFIDENT_WIDTH:
        return []
    low, high = (number(bound, ".2f") for bound in interval)
    return [f"its exponent lies anywhere in [{low}, {high}] "
            f"(confident up to a width of {CONFIDENT_WIDTH:g})"]


def _thin_evidence(result: "FitResult", used: int, clusters: int) -> List[str]:
    """Doubts about the points themselves (`used` distinct sizes in
    `clusters` clusters): sizes in few clusters or over a narrow range,
    most points off the upper envelope."""
    doubts = []
    if clusters < CONFIDENT_CLUSTERS and used >= CONFIDENT_SIZES:
        doubts.append(f"its {used} sizes fall in {clusters} clusters "
                      f"(confident from {CONFIDENT_CLUSTERS})")
    span = evidence.size_span(result.sizes)
    if span < CONFIDENT_SPAN:
        doubts.append(f"sizes span only {span:.3g}x (confident from {CONFIDENT_SPAN:g}x)")
    total = len(result.sizes) + result.left_out
    if result.left_out and not result.two_populations and len(result.sizes) < CONFIDENT_KEPT * total:
        doubts.append(f"the upper envelope keeps {len(result.sizes)} of {total} points")
    return doubts


def _enough_sizes(sizes: Sequence[float]) -> bool:
    """Sizes that are evidence enough for a confident fit by their number
    of clusters and their span (_thin_evidence's first two doubts)."""
    return (evidence.size_clusters(sizes) >= CONFIDENT_CLUSTERS
            and evidence.size_span(sizes) >= CONFIDENT_SPAN)


def _points(sizes: Sequence[float], costs: Sequence[float]) -> Tuple[List[float], List[float]]:
    """Sizes and costs as lists of floats, checked (ValueError)."""
    n = np.asarray(sizes, dtype=float).ravel()
    y = np.asarray(costs, dtype=float).ravel()
    if n.shape != y.shape:
        raise ValueError(f"{n.size} sizes but {y.size} costs")
    n, y = n.tolist(), y.tolist()
    if not all(map(math.isfinite, n)) or not all(map(math.isfinite, y)):
        raise ValueError("sizes and costs must be finite numbers")
    if any(v < 0 for v in n):
        raise ValueError("input sizes must be >= 0")
    return n, y


class _Prepared:
    """One point set on its way to a FitResult: the points fitted (the
    upper envelope when enough sizes remain) and what the reader must know."""

    def __init__(self, n: List[float], y: List[float], min_distinct: int):
        self.distinct = len(set(n))
        if self.distinct < min_distinct:
            raise NotEnoughPoints(self.distinct, min_distinct)
        self.notes: List[str] = []
        self.doubts: List[str] = []
        keep = _envelope(n, y)
        self.two_populations = False
        if keep.count(False):
            keep = self._populations(n, y, keep)
        self.left_out = keep.count(False)
        if self.left_out:
            kept_n = [v for v, k in zip(n, keep) if k]
            if self.two_populations:
                n, y = kept_n, [v for v, k in zip(y, keep) if k]
            elif len(set(kept_n)) >= min_distinct:
                self.notes.append(f"fitted on the upper envelope: {self.left_out} of {len(n)} points "
                                  f"at least {ENVELOPE_DROP:g}x cheaper than at a smaller size (a "
                                  "cheaper path) left out")
                n, y = kept_n, [v for v, k in zip(y, keep) if k]
            else:
                self.doubts.append(f"two regimes: {self.left_out} of {len(n)} points at least "
                                   f"{ENVELOPE_DROP:g}x cheaper than at a smaller size")
                self.left_out = 0
        self._leave_out_lower_regime(n, y, min_distinct)

    def _populations(self, n: List[float], y: List[float], keep: List[bool]) -> List[bool]:
        """The costlier of two interleaved populations (populations.py),
        with a note, when the points hold two; else the envelope `keep`."""
        found = populations.split(n, y, keep, ENVELOPE_DROP, CONFIDENT_R2, _enough_sizes)
        if found is None:
            return keep
        self.two_populations = True
        self.notes.append(found.note())
        return found.upper

    def _leave_out_lower_regime(self, n: List[float], y: List[float], min_distinct: int) -> None:
        """Fits the points from the regime jump on (_regime_start), when
        there is one, with a note; the others as they are."""
        start = _regime_start(n, y, min_distinct)
        below = 0 if start is None else sum(1 for v in n if v < start)
        if below:
            points = "the point below costs" if below == 1 else f"the {below} points below cost"
            self.notes.append(f"fitted from size {number(start, ',.0f')} on: {points} at least "
                              f"{GROWTH_RATIO:g}x less and rise more steeply than n^{K_RANGE[1]:g} "
                              "to it (another regime)")
            self.left_out += below
            n, y = zip(*[(a, b) for a, b in zip(n, y) if a >= start])
        self.n, self.y = list(n), list(y)

    @classmethod
    def whole(cls, n: List[float], y: List[float], min_distinct: int) -> "_Prepared":
        """A point set of distinct sizes, every point on the upper envelope
        (_prepare_sorted checked it): nothing left out as a cheaper path,
        only a jump to another regime, as __init__ would."""
        prepared = cls.__new__(cls)
        prepared.distinct, prepared.left_out, prepared.notes, prepared.doubts = len(n), 0, [], []
        prepared.two_populations = False
        prepared._leave_out_lower_regime(n, y, min_distinct)
        return prepared


def _regime_start(n: List[float], y: List[float], min_distinct: int) -> Optional[float]:
    """The first size of the upper regime when the points jump from one
    regime to another, else None. A jump lies between two clusters of sizes
    (evidence.size_clusters) where every point above costs at least
    GROWTH_RATIO times the most any point below costs, and rises from it
    more steeply than the steepest model of the family (slope K_RANGE[1]
    on the log-log scale, from the largest size below to the smallest
    above): no cost function of the family joins the two, they are other
    work (sqlite3VdbeExec: CREATE and INSERT statements of 257 to 431
    cells and 549 to 1,655 basic blocks, then the joins from 774 cells and
    613,842 blocks). The highest jump that leaves min_distinct sizes
    above it; the upper envelope leaves out the cheaper paths at larger
    sizes, this the cheaper work at smaller ones."""
    lowest = min(y)
    if max(y) < GROWTH_RATIO * lowest or lowest <= 0.0:
        return None
    points = sorted(zip(n, y))
    above_min = [0.0] * len(points)     # the cheapest point from each one on
    cheapest = math.inf
    for i in range(len(points) - 1, -1, -1):
        cheapest = min(cheapest, points[i][1])
        above_min[i] = cheapest
    start, cluster_start, below_max = None, points[0][0], 0.0
    distinct_above = len({v for v, _ in points})
    for i, (size, cost) in enumerate(points):
        previous = points[i - 1][0] if i else None
        if i and size != previous:
            distinct_above -= 1
            if size > cluster_start * evidence.CLUSTER_GAP:
                cluster_start = size
                if (distinct_above >= min_distinct and previous > 0.0
                        and above_min[i] >= GROWTH_RATIO * below_max
                        and math.log(above_min[i] / below_max) / math.log(size / previous) > K_RANGE[1]):
                    start = size
        below_max = max(below_max, cost)
    return start


def _prepare_sorted(point_sets: List[Tuple[list, list]], min_distinct: int) -> List[Optional[_Prepared]]:
    """_Prepared of point sets of m points each (lists, as routine_points
    gives them), checked all at once, for those of finite sizes >= 0 in
    increasing order and finite costs all on the upper envelope (no two
    regimes, nothing left out): most routines' points. None for the others,
    prepared one by one (their errors, notes and doubts)."""
    try:
        n = np.array([sizes for sizes, _ in point_sets], dtype=float)
        y = np.array([costs for _, costs in point_sets], dtype=float)
    except (TypeError, ValueError, OverflowError):
        return [None] * len(point_sets)
    if n.ndim != 2 or y.shape != n.shape or n.shape[1] < min_distinct:
        return [None] * len(point_sets)
    # The largest cost at the smaller sizes (_envelope's highest_below).
    highest_below = np.zeros_like(y)
    highest_below[:, 1:] = np.maximum.accumulate(np.maximum(y[:, :-1], 0.0), axis=1)
    with np.errstate(invalid="ignore"):
        whole = (np.isfinite(n).all(axis=1) & np.isfinite(y).all(axis=1) & (n >= 0.0).all(axis=1)
                 & (np.diff(n, axis=1) > 0.0).all(axis=1)
                 & (y * ENVELOPE_DROP >= highest_below).all(axis=1))
    return [_Prepared.whole(sizes, costs, min_distinct) if ok else None
            for sizes, costs, ok in zip(n.tolist(), y.tolist(), whole.tolist())]


def _result(prepared: _Prepared, fits: List[Fit], clusters: float, rise: float,
            order: List[int]) -> FitResult:
    """The FitResult of a point set from its fits (fit_points' rules);
    clusters: of its sizes (evidence.size_clusters); rise: _rises(); order:
    _choices(), the chosen first."""
    notes = prepared.notes
    sizes, costs = prepared.n, prepared.y
    candidates = [fits[j] for j in order]
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
    if rise >= GROWTH_RATIO and candidates[0].growth_exponent() == 0.0:
        power = _log_log_power(sizes, costs)
        if power is not None:
            notes.append(f"the cost rises {rise:.3g}x over the sizes but no model of the family "
                         f"grows with them: fitted as n^{power.k:.2f}, the points' log-log slope")
            candidates = [power] + candidates
    if candidates[0].model != "1" and candidates[0].b <= 0.0:
        notes.append("no model grows with the data")
    result = FitResult(candidates[0], candidates[1] if len(candidates) > 1 else None,
                       candidates, prepared.distinct, METHOD, sizes, costs, prepared.left_out, notes)
    if result.at_bound:
        bound = "at least" if result.best.k >= K_RANGE[1] - 1e-3 else "at most"
        notes.append(f"free exponent at the fitter's bound: growth is {bound} "
                     f"n^{result.best.k:g}")
    result.prior_doubts, result.clusters = prepared.doubts, int(clusters)
    result.two_populations = prepared.two_populations
    return result


def _log_log_power(sizes: List[float], costs: List[float]) -> Optional[Fit]:
    """a + b*n^k with k the least-squares slope of log cost on log size (the
    fixed exponent up to 10, beyond the free one's range), or b*n^k through
    the points' centre on the log-log scale where that comes out flat too:
    the growing model of last resort, for points that rise by orders of
    magnitude where every model of the family came out flat."""
    pairs = [(math.log(n), math.log(y)) for n, y in zip(sizes, costs) if n > 0 and y > 0]
    line = evidence.least_squares_line([x for x, _ in pairs], [v for _, v in pairs])
    if line is None or line[1] <= 0.0:
        return None
    intercept, slope = line
    mx = sum(x for x, _ in pairs) / len(pairs)
    k = min(slope, 10.0)
    batch = _Batch(np.array([sizes]), np.array([costs]))
    power = batch.fit("n^k", k)[0]
    if power.b > 0.0:
        return power
    # Relative least squares came out flat with this exponent too (many
    # cheap points outvote the few that rise): the power law through the
    # points' centre on the log-log scale, which grows as they do.
    return batch.power_law(math.exp(intercept + (slope - k) * mx), k)


def _fit_batch(prepared: List[_Prepared], judge: bool) -> List[FitResult]:
    """FitResults of point sets of equal size, every model fitted on all at
    once; judge: their doubts worked out now, else on first use."""
    batch = _Batch(np.array([p.n for p in prepared]), np.array([p.y for p in prepared]))
    # A model whose AICc is undefined (too few points for its parameters:
    # "n^k" on 5 points) is left out.
    models = [model for model in MODELS if batch.m - _params(model) - 2 > 0]
    arrays = [batch.fit_arrays(model) for model in models]
    orders = _choices(np.stack([fit[5] for fit, _, _ in arrays], axis=1),
                      np.stack([fit[2] for fit, _, _ in arrays], axis=1), models)
    by_model = [batch._fits(model, *fit) for model, fit in zip(models, arrays)]
    # The models' predictions at the largest sizes may overflow or be 0
    # (_tail_ratio): no warning, for all the rows at once (numpy's error
    # state costs more to set than a row's prediction).
    with np.errstate(all="ignore"):
        rises = _rises(batch.n, batch.y, batch.integer)
        results = [_result(p, list(fits), clusters, rise, order)
                   for p, clusters, rise, order, *fits in zip(prepared, batch.clusters.tolist(),
                                                              rises, orders, *by_model)]
        for result in results if judge else ():
            result.judge()
    return results


def fit_many(point_sets: Sequence[Tuple[Sequence[float], Sequence[float]]],
             min_distinct: int = MIN_DISTINCT_SIZES, judge: bool = True) \
        -> List[Union[FitResult, ValueError]]:
    """fit_points() of each (sizes, costs), in order: its FitResult, or the
    ValueError (NotEnoughPoints, bad points) fit_points() would raise. The
    point sets with the same number of points fitted are solved together,
    a few thousand at a time: much faster than one by one. Identical point
    sets are fitted once and share their result (not to be modified).
    judge=False leaves each result's doubts to be worked out when read
    (FitResult.doubts): for a caller that reads those of a few only."""
    if min_distinct < MIN_DISTINCT_SIZES:
        raise ValueError(f"min_distinct must be at least {MIN_DISTINCT_SIZES}: "
                         "the criterion cannot compare the models on fewer points")
    out: List[Union[FitResult, ValueError, None]] = [None] * len(point_sets)
    by_size: Dict[int, List[Tuple[int, _Prepared]]] = {}
    first_of: Dict[tuple, int] = {}   # identical point sets (TRMS = RMS) are fitted once
    same_as: List[Tuple[int, int]] = []
    lists: Dict[int, List[int]] = {}   # point sets of lists, by length: prepared at once
    for i, (sizes, costs) in enumerate(point_sets):
        key = (tuple(sizes), tuple(costs))
        if key in first_of:
            same_as.append((i, first_of[key]))
            continue
        first_of[key] = i
        if type(sizes) is list and type(costs) is list:
            lists.setdefault(len(sizes), []).append(i)
        else:
            _prepare(i, sizes, costs, min_distinct, out, by_size)
    for indices in lists.values():
        for i, prepared in zip(indices, _prepare_sorted([point_sets[i] for i in indices], min_distinct)):
            if prepared is None:
                _prepare(i, *point_sets[i], min_distinct, out, by_size)
            else:
                by_size.setdefault(len(prepared.n), []).append((i, prepared))
    for m, group in by_size.items():
        step = max(1, _BATCH_CELLS // (m * 16))
        for first in range(0, len(group), step):
            part = group[first:first + step]
            for (i, _), result in zip(part, _fit_batch([p for _, p in part], judge)):
                out[i] = result
    for i, first in same_as:
        out[i] = out[first]
    return out


def _prepare(i: int, sizes, costs, min_distinct: int, out: List, by_size: Dict) -> None:
    """Prepares point set i to be fitted with the others of its size, or
    sets out[i] to the ValueError that says why it cannot be."""
    try:
        prepared = _Prepared(*_points(sizes, costs), min_distinct)
    except ValueError as e:
        out[i] = e
        return
    by_size.setdefault(len(prepared.n), []).append((i, prepared))


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
    - when the points are two interleaved curves of the same growth
      (populations.py: one routine's work on two kinds of data), the
      costlier one is fitted alone (a note), and the share the envelope
      keeps is no doubt;
    - points below a jump to another regime (_regime_start: cheaper work
      at smaller sizes, which no model of the family joins to the points
      above) are left out when min_distinct sizes remain above it (a note);
    - when the cost rises at least GROWTH_RATIO times from the smallest
      third of the sizes to the largest, the constant model is not a
      candidate (a note says so);
    - result.doubts lists why the fit is inconclusive: fewer than
      CONFIDENT_SIZES sizes, R^2 below CONFIDENT_R2 (for the constant:
      costs spread more than CONSTANT_SPREAD times), a free exponent at
      its bound, a prediction off by more than TAIL_MISS times at the
      largest sizes (_misses_largest), a runner-up of another growth
      (DISTINCT_GROWTH) within PREFER_SIMPLER_DELTA.
    fit_many() fits many point sets faster."""
    result = fit_many([(sizes, costs)], min_distinct)[0]
    if isinstance(result, ValueError):
        raise result
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
    n, y = _points(sizes, costs)
    return _Batch(np.array([n]), np.array([y])).fit(model, k)[0]


def routine_points(routine, metric: str = "trms", statistic: str = "max"):
    """(sizes, costs) of a RoutineProfile, sorted by size: per input size the
    max, avg, min or total (sum) cost of its activations."""
    if statistic not in STATISTICS:
        raise ValueError(f"unknown statistic {statistic!r} (expected one of {STATISTICS})")
    points = routine.points(metric)
    if statistic in ("max", "min", "total") and hasattr(points, "sizes_and_field"):
        # A profile's compact points (profile.PointMap): the column itself.
        return points.sizes_and_field({"max": "max_cost", "min": "min_cost", "total": "sum_cost"}[statistic])
    pairs = sorted(points.items())   # sizes are unique: no Point is compared
    get = {"max": lambda p: p.max_cost, "min": lambda p: p.min_cost,
           "avg": lambda p: p.avg_cost, "total": lambda p: p.sum_cost}[statistic]
    return [size for size, _ in pairs], [get(point) for _, point in pairs]


def fit_routines(routines: Sequence, metric: str = "trms", statistic: str = "max",
                 slim: bool = False, judge: bool = True) -> List[Union[FitResult, ValueError]]:
    """fit_routine() of each routine, in order: its FitResult or the
    NotEnoughPoints (or other ValueError) it would raise; fitted together
    (fit_many, whose judge this is). slim: as fit_routines_by_metric."""
    return fit_routines_by_metric(routines, (metric,), statistic, slim, judge)[metric]


_SLIM_CHUNK = 5000   # routines fitted together when the results are slimmed


def fit_routines_by_metric(routines: Sequence, metrics: Sequence[str], statistic: str = "max",
                           slim: bool = False, judge: bool = True) \
        -> Dict[str, List[Union[FitResult, ValueError]]]:
    """fit_routines() for each metric, all in one fit_many() call: a
    routine whose TRMS and RMS points are the same (no induced first read,
    most routines of most programs) is fitted once. slim: the results are
    FitResult.slim(), the routines fitted _SLIM_CHUNK at a time, so that
    the full results of only so many are held at once."""
    if not slim:
        return _fit_routines_by_metric(routines, metrics, statistic, judge)
    out: Dict[str, List[Union[FitResult, ValueError]]] = {metric: [] for metric in metrics}
    for first in range(0, len(routines), _SLIM_CHUNK):
        full = _fit_routines_by_metric(routines[first:first + _SLIM_CHUNK], metrics, statistic, judge)
        slimmed: Dict[int, FitResult] = {}   # by id: a result shared by two point sets stays shared
        for metric, results in full.items():
            out[metric] += [slimmed.setdefault(id(r), r.slim()) if isinstance(r, FitResult) else r
                            for r in results]
    return out


def _fit_routines_by_metric(routines: Sequence, metrics: Sequence[str], statistic: str,
                            judge: bool) -> Dict[str, List[Union[FitResult, ValueError]]]:
    point_sets = [routine_points(r, metric, statistic) for metric in metrics for r in routines]
    results = fit_many(point_sets, judge=judge)
    out = {}
    for j, metric in enumerate(metrics):
        mine = results[j * len(routines):(j + 1) * len(routines)]
        for i, r in enumerate(routines):
            distinct = len(point_sets[j * len(routines) + i][0])
            if distinct < MIN_DISTINCT_SIZES:   # named, as fit_routine says it
                mine[i] = NotEnoughPoints(distinct, MIN_DISTINCT_SIZES, f"{r.name} ({metric})")
            elif isinstance(mine[i], FitResult):
                _doubt_fixed_input(mine[i], r, metric)
        out[metric] = mine
    return out


def _doubt_fixed_input(result: FitResult, routine, metric: str) -> None:
    """Adds the doubt of a routine whose largest input is the same in every
    process while the processes' costs grow (evidence.py): its growth is not
    the program's. A result fitted once for TRMS and RMS gets it once."""
    column = 1 if metric == "trms" else 2
    doubt = evidence.input_fixed_across_processes(
        [(entry[0], entry[column]) for entry in getattr(routine, "per_process", ())])
    if doubt and doubt not in result.prior_doubts:
        result.prior_doubts = result.prior_doubts + [doubt]
        if result.judged is not None:
            result.judged = result.judged + [doubt]


def fit_routine(routine, metric: str = "trms", statistic: str = "max") -> FitResult:
    """Fits a RoutineProfile's points of input metric 'trms' or 'rms', one
    point per distinct size with the cost `statistic` (max: the worst-case
    plot of the paper). NotEnoughPoints names the routine and metric."""
    result = fit_routines([routine], metric, statistic)[0]
    if isinstance(result, ValueError):
        raise result
    return result


# ---------------------------------------------------------------------------
# The worst-case fits the commands show (plot, annotate's table, the HTML
# report), with the reason a routine has none.
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class FitInfo:
    """The fit of one routine and input metric, or why there is none."""
    result: Optional[FitResult] = None
    reason: str = ""                  # "no fit: ..." when result is None


def fit_infos(routines, metrics: Sequence[str], slim: bool = False) -> Dict[str, List[FitInfo]]:
    """The worst-case fit of each routine by each metric, or why there is
    none; the routines are fitted together (fit_routines_by_metric:
    much faster than one by one, same TRMS and RMS points fitted once;
    slim: results without the candidates not shown, for many routines)."""
    results = fit_routines_by_metric(routines, metrics, "max", slim)
    return {metric: [_fit_info(routine, metric, result)
                     for routine, result in zip(routines, results[metric])] for metric in metrics}


def _fit_info(routine, metric: str, result) -> FitInfo:
    if isinstance(result, NotEnoughPoints):
        distinct = getattr(result, "distinct", len(routine.points(metric)))
        needed = getattr(result, "needed", MIN_DISTINCT_SIZES)
        return FitInfo(reason=f"no fit: only {distinct} distinct "
                              f"size{'' if distinct == 1 else 's'} (need {needed})")
    if isinstance(result, ValueError):
        return FitInfo(reason=f"no fit: {result}")
    return FitInfo(result=result)


def fit_of(routine, metric: str) -> FitInfo:
    """fit_infos of one routine and metric."""
    return fit_infos([routine], (metric,))[metric][0]
