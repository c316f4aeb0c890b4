# SPDX-License-Identifier: GPL-2.0-or-later
# The bottleneck ranking: routines (or one routine's calling contexts)
# ordered by their predicted share of the cost when the input grows.
#
# Copyright (C) 2026, the aprof-trms authors.
"""The ranking of rank.py (its module docstring says how rows are
ordered), shared by the commands that order routines or contexts the same
way: plot.py's default choice, contexts.py and the HTML report.

    rows = ranking.rank_routines(profile, selection.routines, "trms", "max", 10.0)
    for row in rows:
        print(ranking.display_name(row.routine), row.predicted_share, row.reason)
"""
import dataclasses
from typing import List, Optional, Sequence, Tuple

from . import carriers
from . import fit as aprof_fit
from . import profile as aprof_profile
from . import select
from .names import number

__all__ = ["DEFAULT_SCALE", "TRUST_LEGEND", "Row", "display_name", "cost_share", "growth_factor",
           "rank_routines", "rank_contexts"]

DEFAULT_SCALE = 10.0
TRUST_LEGEND = "trust ? = inconclusive, pts = inconclusive model, ranked by its points' slope"


@dataclasses.dataclass(slots=True)   # one per routine ranked, 100,000s with --min-share 0
class Row:
    routine: aprof_profile.RoutineProfile
    share: float                           # percent of the total cost today
    result: Optional[aprof_fit.FitResult]  # None: not fitted
    growth_factor: float = 1.0             # predicted cost / cost today at the scale
    predicted_share: float = 0.0           # percent of the predicted program cost
    reason: str = ""                       # one line: why the row is where it is
    follows_points: bool = False           # growth_factor from the points' slope (fit.py)
    # The routine its growth comes from, when callees carry it (carriers.py).
    source: Optional[aprof_profile.RoutineProfile] = None
    # What of the runtime's own work it is (a collector, Go's stack growth,
    # the dynamic loader), or "" (select.runtime_work): ranked after the
    # program's routines.
    runtime_work: str = ""

    @property
    def fitted(self) -> bool:
        return self.result is not None

    @property
    def conclusive(self) -> bool:
        return self.result is not None and self.result.conclusive

    @property
    def by_points(self) -> bool:
        """Ranked with the confident fits by its points' slope: an
        inconclusive fit whose one doubt is its model's being slightly
        steeper than its points at the largest sizes
        (FitResult.only_slightly_steeper_than_points)."""
        return (self.result is not None and not self.result.conclusive
                and self.result.only_slightly_steeper_than_points())

    @property
    def trusted(self) -> bool:
        """Whether its growth is trusted: ranked by its prediction and grown
        in the program's predicted cost (conclusive or by_points)."""
        return self.conclusive or self.by_points

    @property
    def trust(self) -> str:
        """The trust column: ok (confident), pts (by_points) or ? (inconclusive)."""
        return "ok" if self.conclusive else "pts" if self.by_points else "?"

    @property
    def interval(self) -> Optional[Tuple[float, float]]:
        """The 95% interval of `growth`: the fit's, None for a row ranked
        by its points' slope (a slope of the points has none)."""
        return None if self.result is None or self.by_points else self.result.interval

    @property
    def growth(self) -> float:
        """The model's growth exponent, or for a row ranked by its points'
        slope (by_points) that slope, which it is ranked and extrapolated
        with."""
        if self.result is None:
            return 0.0
        if self.by_points:
            return max(self.result.points_slope, 0.0)
        return self.result.best.growth_exponent()


def display_name(routine: aprof_profile.RoutineProfile, short: bool = False) -> str:
    """The demangled name (select.label: short C++ names on request), with
    @0x<address> when aprof_profile had to tell same-name routines of one
    object apart."""
    key = routine.key[1]
    return select.label(routine.name, short) + (key[len(routine.mangled):] if key != routine.mangled else "")


def cost_share(routine: aprof_profile.RoutineProfile, profile: aprof_profile.Profile) -> float:
    return 100.0 * routine.cumulative_cost / profile.total_cost if profile.total_cost else 0.0


def growth_factor(result: aprof_fit.FitResult, scale: float) -> Tuple[float, bool]:
    """How many times the cost grows from the largest input to `scale` times
    it, at least 1 (a cost does not shrink with its input): the model's
    f(scale * n_max) / f(n_max), or scale ** (the points' slope) when the
    model is steeper at the largest sizes than its points (then True)."""
    factor, follows_points = result.growth_factor(scale)
    return (max(1.0, factor) if factor == factor else 1.0), follows_points


def _reason(row: Row, scale: float, short: bool = False) -> str:
    best = row.result.best
    what = (f"{row.share:.2f}% now, {row.predicted_share:.2f}% at {scale:g}x input "
            f"({aprof_fit.label_with_interval(row.result)}, R^2 {best.r2:.2f}, "
            f"{len(set(row.result.sizes))} sizes)")
    if row.follows_points:
        what += (f", extrapolated with its points' slope {number(row.result.slopes()[1], '.2f')} at the "
                 "largest sizes (the model is steeper there)")
    notes = [n for n in row.result.notes]
    if row.source is not None:
        return (what + f"; its growth is carried by its callee {display_name(row.source, short)}, "
                "so after the routines where growth comes from")
    if row.runtime_work:
        return (what + ("; confident" if row.conclusive else "; inconclusive: "
                        + "; ".join(row.result.doubts))
                + f"; {row.runtime_work}, not with an algorithm of the program, so after the "
                "program's routines")
    if row.conclusive:
        return what + "; confident" + (f"; {notes[0]}" if notes else "")
    if row.by_points:
        return (what + "; its model alone is in doubt: " + row.result.doubts[0]
                + "; ranked with the confident fits by its points' slope")
    return what + "; inconclusive: " + "; ".join(row.result.doubts) + ", so after the confident fits"


def _growth_of(results: dict, metric: str, statistic: str):
    """growth_of for carriers.py: each routine's effective growth
    (FitResult.effective_growth), from the rows' fits or fitted on demand
    (a callee outside the selection), None when it cannot be fitted."""
    def growth_of(routine) -> Optional[float]:
        if routine.key not in results:
            try:
                results[routine.key] = aprof_fit.fit_routine(routine, metric, statistic)
            except aprof_fit.NotEnoughPoints:
                results[routine.key] = None
        result = results[routine.key]
        return None if result is None else result.effective_growth()
    return growth_of


def _conclusive_of(results: dict):
    """conclusive_of for carriers.py, from the fits _growth_of keeps
    (it has fitted every routine asked of it first)."""
    def conclusive_of(routine) -> bool:
        result = results.get(routine.key)
        return result is not None and result.conclusive
    return conclusive_of


def _order(row: Row) -> tuple:
    """Sort key of a fitted row (rank_routines): sources before carriers,
    the program's routines before the runtime's work, trusted growth
    before inconclusive; trusted rows by their predicted share, the
    inconclusive ones by their share today, since their growth is not
    known (it does not grow the predicted total either: an n^3 of R^2
    0.55 over 9 sizes, 4.8% of shfmt's cost, had come before the
    printer's 28%)."""
    trusted = row.trusted
    return (row.source is not None, bool(row.runtime_work), not trusted,
            -(row.predicted_share if trusted else row.share), -row.share, row.routine.name)


def rank_routines(profile: aprof_profile.Profile, routines: Sequence, metric: str = "trms",
                  statistic: str = "max", scale: float = DEFAULT_SCALE,
                  short: bool = False, find_carriers: bool = True) -> List[Row]:
    """Rows of the given routines: the sources of growth first (routines no
    callee carries: carriers.py), confident fits by predicted cost at
    `scale` times the largest input, then inconclusive fits by their cost
    today; then
    the runtime's own work (select.runtime_work: a collector, Go's stack
    growth, the dynamic loader);
    then the carriers in the same order; then routines that could not be fitted
    by share. Each row's .reason says why. find_carriers=False ranks rows
    that are not routines of the profile's call graph (contexts.py)."""
    fitted: List[Row] = []
    unfitted: List[Row] = []
    # The rows show the best fit, its interval and the runner-up only.
    for r, result in zip(routines, aprof_fit.fit_routines(routines, metric, statistic, slim=True)):
        share = cost_share(r, profile)
        if isinstance(result, aprof_fit.NotEnoughPoints):
            unfitted.append(Row(r, share, None, reason=f"not fitted: {result.distinct} distinct "
                                f"{metric} size{'' if result.distinct == 1 else 's'}, "
                                f"{result.needed} needed"))
            continue
        if isinstance(result, ValueError):
            raise result
        factor, follows_points = growth_factor(result, scale)
        fitted.append(Row(r, share, result, factor, follows_points=follows_points))
    # Self costs are disjoint and add up to the total: the routines with a
    # confident fit grow with it, the rest is taken as it is today (an
    # inconclusive exponent at its bound would otherwise make every other
    # share vanish).
    confident = [row for row in fitted if row.trusted]
    predicted_total = max([profile.total_cost + sum(row.routine.self_cost * (row.growth_factor - 1)
                                                    for row in confident)]
                          + [row.routine.cumulative_cost * row.growth_factor for row in confident]) or 1
    results = {row.routine.key: row.result for row in fitted}
    growth_of = _growth_of(results, metric, statistic)
    known: dict = {}
    for row in fitted:
        row.predicted_share = min(100.0, 100.0 * row.routine.cumulative_cost * row.growth_factor
                                  / predicted_total)
        if find_carriers:
            row.source = carriers.source_of(profile, row.routine, growth_of, known,
                                            _conclusive_of(results), metric)
            row.runtime_work = select.runtime_work(row.routine)
        row.reason = _reason(row, scale, short)
    fitted.sort(key=_order)
    unfitted.sort(key=lambda row: (-row.share, row.routine.name))
    return fitted + unfitted


@dataclasses.dataclass
class _Scope:
    """What rank_routines needs of a profile: the cost the shares are
    of (here: the routine's, summed over its contexts)."""
    total_cost: int


def rank_contexts(profile: aprof_profile.Profile, routine: aprof_profile.RoutineProfile,
                  metric: str = "trms", scale: float = DEFAULT_SCALE) -> List[Row]:
    """The routine's contexts as Rows, in rank.py's order; share and
    predicted share are of the routine's cost."""
    contexts = profile.contexts_of(routine.key)
    scope = _Scope(sum(c.cumulative_cost for c in contexts))
    return rank_routines(scope, contexts, metric, "max", scale, find_carriers=False)
