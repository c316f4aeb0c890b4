# SPDX-License-Identifier: GPL-2.0-or-later
"""Bottleneck ranking: which routines will dominate the cost when the input
grows.

    rank.py [selection options] [--scale K] [--metric trms|rms]
            [--statistic max|avg|min|total] [--format text|csv] REPORT|DIR...

Loads the reports (a directory stands for its aprof-trms.out.* files; all
are merged: threads, processes, runs), chooses routines with the options of
aprof_trms/select.py (by default: at least 5 distinct input sizes, at least
DEFAULT_MIN_SHARE % of the cost, no runtime entry wrapper), fits a cost
function to each (worst-case cost per size by default, as in the paper's
plots) and orders them by what matters at scale, after trend-prof:

  predicted cost = cumulative cost today x f(K * n_max) / f(n_max)

with f the fitted cost function and n_max the routine's largest input
size: its cost when its input grows K-fold (--scale, default 10) beyond the
largest observed. Where the model is steeper at the largest sizes than its
points, the factor is K ** (the points' slope there) instead
(aprof_fit.FitResult.growth_factor): a term the data do not show does not
extrapolate. The predicted share is that cost over the predicted cost
of the program: today's total with the self cost of every confidently
fitted routine grown by its routine's factor (self costs are disjoint and
add up to the total; other routines are taken as they are today), and never
less than such a routine's own predicted inclusive cost; at most 100%.

Where growth comes from decides first: a routine whose growth a callee
carries (carriers.py: an event loop, a dispatcher, an interpreter loop)
comes after every routine no callee carries, and its row names the source.
The fit's trust decides next: a fit with doubts (aprof_fit: fewer than
CONFIDENT_SIZES sizes or CONFIDENT_CLUSTERS clusters of sizes, a span below
CONFIDENT_SPAN, R^2 below CONFIDENT_R2, a free exponent at its bound, a
runner-up of another growth about as good, two regimes, an envelope keeping
less than half the points, a model off by more than TAIL_MISS times at the
largest sizes or steeper or flatter there than its points) is labelled
inconclusive and comes after every confident one, whatever its prediction.
The model is shown with its exponent's 95% interval ("n^1.02 [0.97, 1.08]").
Each row says in one line why it is where it is. Routines chosen by name or
with --all that cannot be fitted follow, with the reason.

rank_routines() is the ranking for other commands (the HTML report).

Exit status (aprof_trms.cli): 0 done, 1 bad input (unreadable or malformed
report, reports that cannot be merged), 2 bad usage.
"""
import csv
import dataclasses
import itertools
import os
import sys
from typing import Iterator, List, Optional, Sequence, Tuple

from . import carriers
from . import cli
from . import fit as aprof_fit
from . import profile as aprof_profile
from . import report as aprof_report
from . import select
from .names import printable

DEFAULT_MIN_SHARE = 1.0
DEFAULT_SCALE = 10.0


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

    @property
    def fitted(self) -> bool:
        return self.result is not None

    @property
    def conclusive(self) -> bool:
        return self.result is not None and self.result.conclusive

    @property
    def growth(self) -> float:
        return self.result.best.growth_exponent() if self.result else 0.0


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
        what += (f", extrapolated with its points' slope {row.result.slopes()[1]:.2f} at the "
                 "largest sizes (the model is steeper there)")
    notes = [n for n in row.result.notes]
    if row.source is not None:
        return (what + f"; its growth is carried by its callee {display_name(row.source, short)}, "
                "so after the routines where growth comes from")
    if row.conclusive:
        return what + "; confident" + (f"; {notes[0]}" if notes else "")
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


def rank_routines(profile: aprof_profile.Profile, routines: Sequence, metric: str = "trms",
                  statistic: str = "max", scale: float = DEFAULT_SCALE,
                  short: bool = False, find_carriers: bool = True) -> List[Row]:
    """Rows of the given routines: the sources of growth first (routines no
    callee carries: carriers.py), confident fits by predicted cost at
    `scale` times the largest input, then inconclusive fits likewise; then
    the carriers in the same order; then routines that could not be fitted
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
    confident = [row for row in fitted if row.conclusive]
    predicted_total = max([profile.total_cost + sum(row.routine.self_cost * (row.growth_factor - 1)
                                                    for row in confident)]
                          + [row.routine.cumulative_cost * row.growth_factor for row in confident]) or 1
    growth_of = _growth_of({row.routine.key: row.result for row in fitted}, metric, statistic)
    known: dict = {}
    for row in fitted:
        row.predicted_share = min(100.0, 100.0 * row.routine.cumulative_cost * row.growth_factor
                                  / predicted_total)
        if find_carriers:
            row.source = carriers.source_of(profile, row.routine, growth_of, known)
        row.reason = _reason(row, scale, short)
    fitted.sort(key=lambda row: (row.source is not None, not row.conclusive, -row.predicted_share,
                                 -row.share, row.routine.name))
    unfitted.sort(key=lambda row: (-row.share, row.routine.name))
    return fitted + unfitted


def _runner_up(result: aprof_fit.FitResult) -> str:
    ru = result.runner_up
    if ru is None:
        return "-"
    return f"{aprof_fit.model_label(ru)} (Δ{result.method} {ru.criterion - result.best.criterion:+.1f})"


def _table(header: List[str], rows: List[List[str]], right: set) -> Iterator[str]:
    """The lines of a table, one at a time (a ranking of 100,000 routines
    is written as it is made, not held whole)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    for r in itertools.chain([header], rows):
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        yield "  ".join(cells).rstrip()


def format_text(profile, rows: List[Row], metric: str, statistic: str, scale: float,
                account: str, short: bool) -> str:
    return "".join(line + "\n" for line in text_lines(profile, rows, metric, statistic, scale,
                                                       account, short))


def text_lines(profile, rows: List[Row], metric: str, statistic: str, scale: float,
               account: str, short: bool) -> Iterator[str]:
    """The lines of format_text(), one at a time."""
    yield from [f"Bottleneck ranking: {len(profile.paths)} report(s), cost {profile.cost_metric}, "
                f"{statistic} cost per {metric} input size, model chosen by AICc; ordered by "
                f"predicted share when each routine's input grows {scale:g}x beyond the largest "
                "seen, confident fits first", f"Selection: {account}", ""]
    fitted = [r for r in rows if r.fitted]
    unfitted = [r for r in rows if not r.fitted]
    header = ["#", "at scale%", "share%", "trust", "calls", "sizes", "routine", "object",
              "model", "fit", "R^2", "runner-up"]
    table = []
    for i, row in enumerate(fitted, 1):
        best = row.result.best
        table.append([str(i), f"{row.predicted_share:.2f}", f"{row.share:.2f}",
                      "ok" if row.conclusive else "?", str(row.routine.calls),
                      str(row.result.distinct_sizes), display_name(row.routine, short),
                      os.path.basename(row.routine.object), aprof_fit.label_with_interval(row.result),
                      best.formula(), f"{best.r2:.4f}", _runner_up(row.result)])
    if table:
        yield from _table(header, table, {0, 1, 2, 4, 5, 10})
        del table
        yield from ["", "Why each routine is where it is (trust ? = inconclusive):"]
        yield from (f"{i:>3}. {display_name(row.routine, short)}: {row.reason}"
                    for i, row in enumerate(fitted, 1))
    else:
        yield f"No routine with at least {aprof_fit.MIN_DISTINCT_SIZES} distinct {metric} sizes."
    if unfitted:
        yield from ["", f"Not fitted ({len(unfitted)} routine{'' if len(unfitted) == 1 else 's'}):"]
        yield from _table(["share%", "calls", "sizes", "routine", "object", "reason"],
                          [[f"{r.share:.2f}", str(r.routine.calls), str(len(r.routine.points(metric))),
                            display_name(r.routine, short), printable(os.path.basename(r.routine.object)),
                            r.reason] for r in unfitted], {0, 1, 2})


CSV_FIELDS = ["rank", "routine", "object", "calls", "share_pct", "predicted_share_pct",
              "growth_factor", "conclusive", "distinct_sizes", "fitted", "model", "growth",
              "growth_low", "growth_high", "carried_by", "formula", "a", "b", "k", "r2", "criterion", "method", "runner_up",
              "runner_up_growth", "runner_up_criterion", "reason"]


def write_csv(out, metric: str, rows: List[Row], short: bool) -> None:
    w = csv.DictWriter(out, CSV_FIELDS, lineterminator="\n")
    w.writeheader()
    for i, row in enumerate(rows, 1):
        common = {"routine": display_name(row.routine, short), "object": row.routine.object,
                  "calls": row.routine.calls, "share_pct": f"{row.share:.4f}", "reason": row.reason}
        if not row.fitted:
            w.writerow(dict(common, rank="", fitted="no",
                            distinct_sizes=len(row.routine.points(metric))))
            continue
        best, ru = row.result.best, row.result.runner_up
        w.writerow(dict(common, rank=i, fitted="yes",
                        predicted_share_pct=f"{row.predicted_share:.4f}",
                        growth_factor=f"{row.growth_factor:.6g}",
                        conclusive="yes" if row.conclusive else "no",
                        distinct_sizes=row.result.distinct_sizes, model=best.model,
                        growth=f"{row.growth:.4f}",
                        growth_low="" if row.result.interval is None else f"{row.result.interval[0]:.4f}",
                        growth_high="" if row.result.interval is None else f"{row.result.interval[1]:.4f}",
                        carried_by="" if row.source is None else display_name(row.source, short),
                        formula=best.formula(6), a=repr(best.a),
                        b=repr(best.b), k="" if best.k is None else repr(best.k),
                        r2=f"{best.r2:.6f}", criterion=f"{best.criterion:.3f}",
                        method=row.result.method,
                        runner_up=aprof_fit.model_label(ru) if ru else "",
                        runner_up_growth=f"{ru.growth_exponent():.4f}" if ru else "",
                        runner_up_criterion=f"{ru.criterion:.3f}" if ru else ""))


def positive_scale(text: str) -> float:
    """--scale: a number greater than 1 (argparse type)."""
    import argparse
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 1.0:
        raise argparse.ArgumentTypeError(f"must be greater than 1: {text!r}")
    return value


def main(argv: Optional[List[str]] = None) -> int:
    p = cli.argument_parser(
        description="Bottleneck ranking: routines ordered by their predicted share of the cost "
        "when their input grows K-fold beyond the largest size seen, confident fits first.",
        epilog="Predicted cost = cumulative cost x f(K n_max) / f(n_max), f the fitted cost "
        "function (aprof_trms/fit.py, chosen by AICc), or the points' slope where the model is "
        "steeper at the largest sizes. Routines whose growth a callee carries come after the "
        "sources of growth. A fit is inconclusive with fewer than "
        f"{aprof_fit.CONFIDENT_SIZES} sizes or {aprof_fit.CONFIDENT_CLUSTERS} clusters of sizes, "
        f"a span below {aprof_fit.CONFIDENT_SPAN:g}x, R^2 below {aprof_fit.CONFIDENT_R2:g}, a free "
        "exponent at its bound, a runner-up of another growth about as good, two regimes, "
        f"a model off by more than {aprof_fit.TAIL_MISS:g}x at the largest sizes or with a "
        "slope there that its points do not show. "
        "Exit status: 0 done, 1 bad input, 2 bad usage.")
    p.add_argument("reports", nargs="+", metavar="REPORT|DIR",
                   help="aprof-trms reports, or directories of aprof-trms.out.* files (all merged)")
    p.add_argument("--scale", type=positive_scale, default=DEFAULT_SCALE, metavar="K",
                   help=f"predict the cost at K times the largest input seen (default {DEFAULT_SCALE:g})")
    p.add_argument("--metric", choices=aprof_report.METRICS, default="trms",
                   help="input size metric (default trms)")
    p.add_argument("--statistic", choices=aprof_fit.STATISTICS, default="max",
                   help="cost per input size that is fitted (default max: the worst-case curve)")
    p.add_argument("--format", choices=("text", "csv"), default="text", help="output format (default text)")
    select.add_selection_arguments(p, min_share=DEFAULT_MIN_SHARE)
    args = p.parse_args(argv)

    profile = aprof_profile.load_profile(args.reports)
    cli.warn_kernel_writes(profile.kernel_writes_unseen)
    selection = select.select_routines(profile, args, apply_limit=False)
    rows = rank_routines(profile, selection.routines, args.metric, args.statistic, args.scale,
                         args.short_names)
    if args.top is not None:
        rows = rows[:args.top]
    if args.format == "csv":
        write_csv(sys.stdout, args.metric, rows, args.short_names)
    else:
        sys.stdout.writelines(line + "\n" for line in text_lines(
            profile, rows, args.metric, args.statistic, args.scale, selection.account(),
            args.short_names))
    return 0
