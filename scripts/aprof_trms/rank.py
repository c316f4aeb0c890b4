# SPDX-License-Identifier: GPL-2.0-or-later
"""Bottleneck ranking: which routines will dominate the cost when the input
grows.

    rank.py [selection options] [--scale K] [--metric trms|rms]
            [--statistic max|avg|min|total] [--format text|csv|json] REPORT|DIR...

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
carries (carriers.py: an event loop, a dispatcher, an interpreter loop, a
routine whose own work does not grow) comes after every routine no callee
carries, and its row names the source; the runtime's own work (a
language runtime's garbage collector, select.GARBAGE_COLLECTORS, Go's
stack growth, select.GO_STACK_GROWTH, and the dynamic loader,
select.LOADER_OBJECTS) comes after the program's routines and before the
carriers.
The fit's trust decides next: a fit with doubts (aprof_fit: fewer than
CONFIDENT_SIZES sizes or CONFIDENT_CLUSTERS clusters of sizes, a span below
CONFIDENT_SPAN, R^2 below CONFIDENT_R2, a free exponent at its bound, a
runner-up of another growth about as good, two regimes, an envelope keeping
less than half the points, a model off by more than TAIL_MISS times at the
largest sizes or steeper or flatter there than its points) is labelled
inconclusive and comes after every confident one, whatever its prediction,
unless its one doubt is its model's being steeper than its points at the
largest sizes by no more than SLOPE_TOLERANCE
(aprof_fit.FitResult.only_slightly_steeper_than_points): the points are
then good evidence and their slope is the growth they support, so the row
(trust "pts") is ranked with the confident ones by that slope, and its
growth is that slope. (bc's Karatsuba multiplication, 99% of the cost:
n^2.21 where its points rise with slope 1.90, ranked below an addition it
calls, 20% of the cost, once predicted at 62% of the cost at 10x.)
The model is shown with its exponent's 95% interval ("n^1.02 [0.97, 1.08]").
Each row says in one line why it is where it is. Routines chosen by name or
with --all that cannot be fitted follow, with the reason.

The ranking itself (rank_routines, Row) is ranking.py's, shared with the
plot, contexts and HTML report commands.

Exit status (aprof_trms.cli): 0 done, 1 bad input (unreadable or malformed
report, reports that cannot be merged), 2 bad usage.
"""
import itertools
import os
import sys
from typing import Iterator, List, Optional

from . import cli
from . import fit as aprof_fit
from . import profile as aprof_profile
from . import report as aprof_report
from . import select
from .names import number, printable
from .ranking import DEFAULT_SCALE, TRUST_LEGEND, Row, display_name, rank_routines

DEFAULT_MIN_SHARE = 1.0


def _runner_up(result: aprof_fit.FitResult) -> str:
    ru = result.runner_up
    if ru is None:
        return "-"
    return f"{aprof_fit.model_label(ru)} (Δ{result.method} {number(ru.criterion - result.best.criterion, '+.1f')})"


def _table(header: List[str], rows: List[List[str]], right: set) -> Iterator[str]:
    """The lines of a table, one at a time (a ranking of 100,000 routines
    is written as it is made, not held whole)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    for r in itertools.chain([header], rows):
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        yield "  ".join(cells).rstrip()


def text_lines(profile, rows: List[Row], metric: str, statistic: str, scale: float,
               account: str, short: bool) -> Iterator[str]:
    """The lines of the text output, one at a time."""
    yield from [f"Bottleneck ranking: {len(profile.paths)} report(s), cost {profile.cost_metric}, "
                f"{statistic} cost per {metric} input size, model chosen by AICc; ordered by "
                f"predicted share when each routine's input grows {scale:g}x beyond the largest "
                "seen, confident fits first, inconclusive ones by their share today",
                f"Selection: {account}", ""]
    fitted = [r for r in rows if r.fitted]
    unfitted = [r for r in rows if not r.fitted]
    header = ["#", "at scale%", "share%", "trust", "calls", "sizes", "routine", "object",
              "model", "fit", "R^2", "runner-up"]
    table = []
    for i, row in enumerate(fitted, 1):
        best = row.result.best
        table.append([str(i), f"{row.predicted_share:.2f}", f"{row.share:.2f}",
                      row.trust, str(row.routine.calls),
                      str(row.result.distinct_sizes), display_name(row.routine, short),
                      os.path.basename(row.routine.object), aprof_fit.label_with_interval(row.result),
                      best.formula(), f"{best.r2:.4f}", _runner_up(row.result)])
    if table:
        yield from _table(header, table, {0, 1, 2, 4, 5, 10})
        del table
        yield from ["", f"Why each routine is where it is ({TRUST_LEGEND}):"]
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


def row_fields(metric: str, rows: List[Row], short: bool) -> List[dict]:
    """The rows as the CSV and JSON output give them (CSV_FIELDS; None:
    no value, such as the fit of a routine that was not fitted), in
    ranking order: the rank is that of the text's table."""
    out = []
    for i, row in enumerate(rows, 1):
        common = dict.fromkeys(CSV_FIELDS)
        common.update(routine=display_name(row.routine, short), object=row.routine.object,
                      calls=row.routine.calls, share_pct=row.share, reason=row.reason)
        if not row.fitted:
            out.append(dict(common, fitted=False, distinct_sizes=len(row.routine.points(metric))))
            continue
        best, ru = row.result.best, row.result.runner_up
        interval = row.interval or (None, None)
        out.append(dict(common, rank=i, fitted=True, predicted_share_pct=row.predicted_share,
                        growth_factor=row.growth_factor, conclusive=row.conclusive,
                        distinct_sizes=row.result.distinct_sizes, model=best.model,
                        growth=row.growth, growth_low=interval[0], growth_high=interval[1],
                        carried_by=None if row.source is None else display_name(row.source, short),
                        formula=best.formula(6), a=best.a, b=best.b, k=best.k, r2=best.r2,
                        criterion=best.criterion, method=row.result.method,
                        runner_up=aprof_fit.model_label(ru) if ru else None,
                        runner_up_growth=ru.growth_exponent() if ru else None,
                        runner_up_criterion=ru.criterion if ru else None))
    return out


def write_csv(out, metric: str, rows: List[Row], short: bool) -> None:
    cli.write_rows("csv", "rank", CSV_FIELDS, row_fields(metric, rows, short), out)


def main(argv: Optional[List[str]] = None) -> int:
    p = cli.argument_parser(
        description="Bottleneck ranking: routines ordered by their predicted share of the cost "
        "when their input grows K-fold beyond the largest size seen, confident fits first, "
        "inconclusive ones by their share today.",
        epilog="Predicted cost = cumulative cost x f(K n_max) / f(n_max), f the fitted cost "
        "function (aprof_trms/fit.py, chosen by AICc), or the points' slope where the model is "
        "steeper at the largest sizes. Routines whose growth a callee carries come after the "
        "sources of growth, a language runtime's garbage collector, Go's stack growth and the "
        "dynamic loader after the program's routines. A fit is inconclusive with fewer than "
        f"{aprof_fit.CONFIDENT_SIZES} sizes or {aprof_fit.CONFIDENT_CLUSTERS} clusters of sizes, "
        f"a span below {aprof_fit.CONFIDENT_SPAN:g}x, R^2 below {aprof_fit.CONFIDENT_R2:g}, a free "
        "exponent at its bound, a runner-up of another growth about as good, two regimes, "
        f"a model off by more than {aprof_fit.TAIL_MISS:g}x at the largest sizes or with a "
        "slope there that its points do not show. "
        "Exit status: 0 done, 1 bad input, 2 bad usage.")
    p.add_argument("reports", nargs="+", metavar="REPORT|DIR",
                   help="aprof-trms reports, or directories of aprof-trms.out.* files (all merged)")
    p.add_argument("--scale", type=cli.positive_scale, default=DEFAULT_SCALE, metavar="K",
                   help=f"predict the cost at K times the largest input seen (default {DEFAULT_SCALE:g})")
    p.add_argument("--metric", choices=aprof_report.METRICS, default="trms",
                   help="input size metric (default trms)")
    p.add_argument("--statistic", choices=aprof_fit.STATISTICS, default="max",
                   help="cost per input size that is fitted (default max: the worst-case curve)")
    cli.add_format_option(p, ("text", "csv", "json"))
    select.add_selection_arguments(p, min_share=DEFAULT_MIN_SHARE)
    args = p.parse_args(argv)

    with cli.cycle_collection_paused():
        profile = aprof_profile.load_profile(args.reports)
        cli.warn_kernel_writes(profile.kernel_writes_unseen)
        selection = select.select_routines(profile, args, apply_limit=False)
        rows = rank_routines(profile, selection.routines, args.metric, args.statistic, args.scale,
                             args.short_names)
        if args.top is not None:
            rows = rows[:args.top]
        if args.format != "text":
            cli.write_rows(args.format, "rank", CSV_FIELDS, row_fields(args.metric, rows, args.short_names),
                           reports=profile.paths, cost_metric=profile.cost_metric, metric=args.metric,
                           statistic=args.statistic, scale=args.scale, selection=selection.account())
        else:
            sys.stdout.writelines(line + "\n" for line in text_lines(
                profile, rows, args.metric, args.statistic, args.scale, selection.account(),
                args.short_names))
    return 0
