"""Bottleneck ranking: which routines have the steepest cost functions.

    rank.py [--metric trms|rms] [--statistic max|avg|min|total]
            [--min-share PCT] [--top N] [--format text|csv] REPORT|DIR...

Loads the reports (a directory stands for its aprof-trms.out.* files; all
are merged: threads, processes, runs), fits a cost function to every routine
with at least aprof_fit.MIN_DISTINCT_SIZES distinct input sizes (worst-case
cost per size by default, as in the paper's plots) and prints them ordered by
fitted growth (aprof_fit's growth_exponent, steepest first), then by cost
share: an n^2 routine that costs 5% today is listed before an n routine that
costs 40%, because it is the one that will dominate on larger inputs.
Routines that could not be fitted follow, with the reason.

Cost share = the routine's cumulative (inclusive) cost over the total cost of
all threads of all reports, in percent; --min-share drops routines below it.

Exit status (aprof_trms.cli): 0 done, 1 bad input (unreadable or malformed
report, reports that cannot be merged), 2 bad usage.
"""
import csv
import dataclasses
import os
import sys
from typing import List, Optional, Tuple

from . import cli
from . import fit as aprof_fit
from . import profile as aprof_profile
from . import report as aprof_report
from . import select

DEFAULT_MIN_SHARE = 0.1


@dataclasses.dataclass
class Row:
    routine: aprof_profile.RoutineProfile
    share: float                          # percent of the total cost
    result: Optional[aprof_fit.FitResult]  # None: not fitted
    reason: str = ""                      # why not fitted

    @property
    def growth(self) -> float:
        return self.result.best.growth_exponent() if self.result else 0.0


def display_name(routine: aprof_profile.RoutineProfile) -> str:
    """The demangled name, with @0x<address> when aprof_profile had to tell
    same-name routines of one object apart."""
    key = routine.key[1]
    return routine.name + (key[len(routine.mangled):] if key != routine.mangled else "")


def cost_share(routine: aprof_profile.RoutineProfile, profile: aprof_profile.Profile) -> float:
    return 100.0 * routine.cumulative_cost / profile.total_cost if profile.total_cost else 0.0


def rank(profile: aprof_profile.Profile, routines, metric: str = "trms",
         statistic: str = "max") -> Tuple[List[Row], List[Row]]:
    """(fitted rows, steepest growth first then largest share; rows that
    could not be fitted, largest share first) of the given routines."""
    fitted: List[Row] = []
    unfitted: List[Row] = []
    for r in routines:
        share = cost_share(r, profile)
        try:
            fitted.append(Row(r, share, aprof_fit.fit_routine(r, metric, statistic)))
        except aprof_fit.NotEnoughPoints as e:
            reason = f"{e.distinct} distinct {metric} size{'' if e.distinct == 1 else 's'}, {e.needed} needed"
            unfitted.append(Row(r, share, None, reason))
    fitted.sort(key=lambda row: (-row.growth, -row.share, row.routine.name))
    unfitted.sort(key=lambda row: (-row.share, row.routine.name))
    return fitted, unfitted


def _runner_up(result: aprof_fit.FitResult) -> str:
    ru = result.runner_up
    if ru is None:
        return "-"
    return f"{aprof_fit.model_label(ru)} (Δ{result.method} {ru.criterion - result.best.criterion:+.1f})"


def _table(header: List[str], rows: List[List[str]], right: set) -> List[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    out = []
    for r in [header] + rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        out.append("  ".join(cells).rstrip())
    return out


def format_text(profile, fitted: List[Row], unfitted: List[Row], metric: str, statistic: str) -> str:
    lines = [f"Bottleneck ranking: {len(profile.paths)} report(s), cost {profile.cost_metric}, "
             f"{statistic} cost per {metric} input size, model chosen by AICc "
             f"(growth: 1=0, log n={aprof_fit.LOG_GROWTH:g}, n=1, "
             f"n log n={1 + aprof_fit.LOG_GROWTH:g}, n^k=k)", ""]
    header = ["#", "growth", "share%", "calls", "sizes", "routine", "object",
              "model", "fit", "R^2", "AICc", "runner-up"]
    rows = []
    for i, row in enumerate(fitted, 1):
        best = row.result.best
        rows.append([str(i), f"{row.growth:.2f}", f"{row.share:.2f}", str(row.routine.calls),
                     str(row.result.distinct_sizes), display_name(row.routine),
                     os.path.basename(row.routine.object), aprof_fit.model_label(best),
                     best.formula(), f"{best.r2:.4f}", f"{best.criterion:.1f}", _runner_up(row.result)])
    if rows:
        lines += _table(header, rows, {0, 1, 2, 3, 4, 9, 10})
    else:
        lines.append(f"No routine with at least {aprof_fit.MIN_DISTINCT_SIZES} distinct {metric} sizes.")
    if unfitted:
        lines += ["", f"Not fitted ({len(unfitted)} routine{'' if len(unfitted) == 1 else 's'}):"]
        lines += _table(["share%", "calls", "sizes", "routine", "object", "reason"],
                        [[f"{r.share:.2f}", str(r.routine.calls), str(len(r.routine.points(metric))),
                          display_name(r.routine), os.path.basename(r.routine.object), r.reason]
                         for r in unfitted], {0, 1, 2})
    return "\n".join(lines) + "\n"


CSV_FIELDS = ["rank", "routine", "object", "calls", "share_pct", "distinct_sizes", "fitted",
              "model", "growth", "formula", "a", "b", "k", "r2", "criterion", "method",
              "runner_up", "runner_up_growth", "runner_up_criterion", "reason"]


def write_csv(out, metric: str, fitted: List[Row], unfitted: List[Row]) -> None:
    w = csv.DictWriter(out, CSV_FIELDS, lineterminator="\n")
    w.writeheader()
    for i, row in enumerate(fitted, 1):
        best, ru = row.result.best, row.result.runner_up
        w.writerow({"rank": i, "routine": display_name(row.routine), "object": row.routine.object,
                    "calls": row.routine.calls, "share_pct": f"{row.share:.4f}",
                    "distinct_sizes": row.result.distinct_sizes, "fitted": "yes",
                    "model": best.model, "growth": f"{row.growth:.4f}", "formula": best.formula(6),
                    "a": repr(best.a), "b": repr(best.b), "k": "" if best.k is None else repr(best.k),
                    "r2": f"{best.r2:.6f}", "criterion": f"{best.criterion:.3f}",
                    "method": row.result.method,
                    "runner_up": aprof_fit.model_label(ru) if ru else "",
                    "runner_up_growth": f"{ru.growth_exponent():.4f}" if ru else "",
                    "runner_up_criterion": f"{ru.criterion:.3f}" if ru else "", "reason": ""})
    for row in unfitted:
        w.writerow({"rank": "", "routine": display_name(row.routine), "object": row.routine.object,
                    "calls": row.routine.calls, "share_pct": f"{row.share:.4f}",
                    "distinct_sizes": len(row.routine.points(metric)), "fitted": "no",
                    "reason": row.reason})


def main(argv: Optional[List[str]] = None) -> int:
    p = cli.argument_parser(
        description="Bottleneck ranking: routines ordered by the growth of their "
        "fitted cost function (steepest first), then by cost share.",
        epilog="Growth scale: 1=0, log n=0.1, sqrt n=0.5, n=1, n log n=1.1, n^2=2, n^3=3, n^k=k. "
        "Models are chosen by AICc; see aprof_trms/fit.py. Exit status: 0 done, 1 bad input, "
        "2 bad usage.")
    p.add_argument("reports", nargs="+", metavar="REPORT|DIR",
                   help="aprof-trms reports, or directories of aprof-trms.out.* files (all merged)")
    p.add_argument("--metric", choices=aprof_report.METRICS, default="trms",
                   help="input size metric (default trms)")
    p.add_argument("--statistic", choices=aprof_fit.STATISTICS, default="max",
                   help="cost per input size that is fitted (default max: the worst-case curve)")
    select.add_selection_arguments(p, min_share=0.0, default_choice=False)
    p.add_argument("--format", choices=("text", "csv"), default="text", help="output format (default text)")
    args = p.parse_args(argv)

    profile = aprof_profile.load_profile(args.reports)
    selection = select.select_routines(profile, args, apply_limit=False)
    fitted, unfitted = rank(profile, selection.routines, args.metric, args.statistic)
    if args.top is not None:
        fitted, unfitted = fitted[:args.top], unfitted[:args.top]
    if args.format == "csv":
        write_csv(sys.stdout, args.metric, fitted, unfitted)
    else:
        sys.stdout.write(format_text(profile, fitted, unfitted, args.metric, args.statistic))
    return 0
