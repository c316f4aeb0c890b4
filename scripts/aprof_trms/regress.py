# SPDX-License-Identifier: GPL-2.0-or-later
"""Regression gate for CI: did a routine's cost function get steeper?

    regress.py --baseline A [A...] --candidate B [B...] [--metric trms|rms]
               [--statistic max|avg|min|total] [--tolerance T] [--min-share PCT]
               [--min-evidence D] [-v]

Each side is one or more reports or directories of aprof-trms.out.* files,
merged (threads, processes, runs). Every routine present on both sides with
at least aprof_fit.MIN_DISTINCT_SIZES distinct input sizes on both is fitted
on both (worst-case cost per size by default) and its growth exponents are
compared (aprof_fit: 1=0, log n=0.1, sqrt n=0.5, n=1, n log n=1.1, n^2=2,
n^3=3, n^k=k):

    REGRESSION name (object): n -> n^2 (growth 1.00 -> 2.01, +1.01)

when the exponent increased by more than the tolerance, IMPROVED when it
decreased by more (informational). Default tolerance 0.25: a change of class
from n to n^1.5, n^2 or beyond, or from a constant to sqrt n, fails; n to
n log n and 1 to log n (0.1 apart on the scale) and drifts of a free exponent
(a few hundredths when the data hold the same class) do not. Use
--tolerance 0.05 to catch those too. Constants (a, b) are not compared: a
routine that got uniformly slower keeps its class; cost budgets are another
tool's job.

A growth change beyond the tolerance counts (as REGRESSION or IMPROVED)
only if both sides' fits are conclusive (aprof_fit's doubts), their
exponents' 95% intervals (FitResult.interval) are disjoint, and the points
of the steeper side reject the class fitted on the other side: fitted with that class (a fixed exponent for n^k), their AICc is worse
by at least --min-evidence (default 10, "essentially no support" for the
flatter class in Burnham and Anderson's scale) than with their own best
model. Otherwise the change is listed as UNCONFIRMED and does not fail: a
constant routine whose costs vary with the data, not the size, can get a
growth model with a negligible coefficient by chance (the selection rule
admits that a few times in a hundred), and a CI gate must not fail on that.

Routines are matched across sides by (object basename, mangled name), so
that builds in different directories compare. Routines on one side only,
routines with too few sizes on either side and routines whose class did not
change are counted in the summary line; -v/--verbose lists them (ONLY IN,
NOT COMPARED, UNCHANGED), one line each. --min-share PCT skips routines
whose cost share is below PCT on both sides (default DEFAULT_MIN_SHARE = 1%:
a CI gate that fails on identical runs gets switched off, and the tail of
tiny routines is where a routine's class changes by chance).

Exit status (aprof_trms.cli): 3 if any routine regressed (UNCONFIRMED does
not count), 0 if none, 1 on bad input: an unreadable or malformed report
(the message gives FILE:LINE), reports of different cost metrics or memory
resolutions (between or within the sides), no routine in common, or no
routine that could be compared; 2 on bad usage.
"""
import collections
import dataclasses
import os
from typing import Dict, List, Optional, Tuple

from . import cli
from . import fit as aprof_fit
from . import profile as aprof_profile
from . import report as aprof_report
from .names import number, printable
from .ranking import cost_share, display_name

DEFAULT_TOLERANCE = 0.25
DEFAULT_EVIDENCE = 10.0
DEFAULT_MIN_SHARE = 1.0


class BadInput(cli.UserError):
    """Input that makes the comparison meaningless: exit status 1."""


def load_side(paths: List[str], side: str, metric: str = "trms") -> aprof_profile.Profile:
    """The merged reports of one side, with the points of `metric` only.
    An error reads as every command's (FILE:LINE: what), then says the
    side."""
    try:
        return aprof_profile.load_profile(paths, metrics=(metric,))
    except (aprof_report.ReportError, aprof_profile.ProfileError) as e:
        raise BadInput(f"{e} ({side})") from None
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        raise BadInput(f"{where}{e.strerror or e} ({side})") from None


def by_match_key(profile: aprof_profile.Profile) -> Dict[Tuple[str, str], aprof_profile.RoutineProfile]:
    """Routines by (object basename, mangled name); the full object path is
    kept where two objects of one side share a basename."""
    short = collections.Counter((os.path.basename(o), m) for o, m in profile.routines)
    out = {}
    for (obj, mangled), r in profile.routines.items():
        key = (os.path.basename(obj), mangled)
        out[key if short[key] == 1 else (obj, mangled)] = r
    return out


def _label(r: aprof_profile.RoutineProfile) -> str:
    return f"{display_name(r)} ({printable(os.path.basename(r.object))})"


_FIT_CHUNK = 5000   # routines fitted together: fast, and only so many results held at once


def _fitted_pairs(keys: List, b: Dict, c: Dict, same: bool, metric: str, statistic: str):
    """(key, baseline result, candidate result) of each key: the routines of
    both sides fitted together (aprof_fit.fit_routines) a chunk at a time,
    a side's once when both sides are the same profile."""
    for first in range(0, len(keys), _FIT_CHUNK):
        chunk = keys[first:first + _FIT_CHUNK]
        # The doubts of a fit are read only where the growth changed.
        base_results = aprof_fit.fit_routines([b[key] for key in chunk], metric, statistic, judge=False)
        cand_results = base_results if same else \
            aprof_fit.fit_routines([c[key] for key in chunk], metric, statistic, judge=False)
        yield from zip(chunk, base_results, cand_results)


def exponent_interval(result: aprof_fit.FitResult) -> Tuple[float, float]:
    """The growth exponent's 95% interval (FitResult.interval), or the
    exponent itself where the fit has none (a constant)."""
    g = result.best.growth_exponent()
    return result.interval or (g, g)


def _change(routine: aprof_profile.RoutineProfile, base: aprof_fit.Fit, cand: aprof_fit.Fit) -> str:
    """A routine's growth on both sides: "name (object): n -> n^2 (growth ...)"."""
    gb, gc = base.growth_exponent(), cand.growth_exponent()
    return (f"{_label(routine)}: {aprof_fit.model_label(base)} -> {aprof_fit.model_label(cand)} "
            f"(growth {number(gb, '.2f')} -> {number(gc, '.2f')}, {number(gc - gb, '+.2f')})")


def _unconfirmed(base: aprof_fit.FitResult, cand: aprof_fit.FitResult) -> str:
    """Why a change of growth between the sides cannot fail the gate, or ""."""
    for side, result in (("baseline", base), ("candidate", cand)):
        if not result.conclusive:
            return f"the {side} fit is inconclusive ({result.doubts[0]})"
    (bl, bh), (cl, ch) = exponent_interval(base), exponent_interval(cand)
    if cl <= bh and bl <= ch:
        return (f"the exponents' intervals overlap (baseline [{number(bl, '.2f')}, "
                f"{number(bh, '.2f')}], candidate [{number(cl, '.2f')}, {number(ch, '.2f')}])")
    return ""


@dataclasses.dataclass
class Verdict:
    """What the comparison says of one routine: a line of the output."""
    kind: str        # REGRESSION, IMPROVED, UNCONFIRMED, UNCHANGED, NOT COMPARED, ONLY IN ...
    routine: aprof_profile.RoutineProfile
    text: str        # the line(s) of the text output
    # (baseline, candidate) fits of a routine compared; None otherwise.
    fits: Optional[Tuple[aprof_fit.FitResult, aprof_fit.FitResult]] = None
    why: str = ""    # UNCONFIRMED, NOT COMPARED: the reason

    def json(self) -> dict:
        """The row of the JSON output (JSON_FIELDS)."""
        row = dict.fromkeys(JSON_FIELDS)
        row.update(verdict=self.kind, routine=display_name(self.routine),
                   object=self.routine.object, reason=self.why or None, text=self.text)
        for side, result in zip(("baseline", "candidate"), self.fits or ()):
            low, high = exponent_interval(result)
            row.update({f"{side}_model": aprof_fit.model_label(result.best),
                        f"{side}_growth": result.best.growth_exponent(),
                        f"{side}_growth_low": low, f"{side}_growth_high": high,
                        f"{side}_formula": result.best.formula(),
                        f"{side}_conclusive": result.conclusive})
        if self.fits:
            row["delta"] = row["candidate_growth"] - row["baseline_growth"]
        return row


JSON_FIELDS = ["verdict", "routine", "object", "baseline_model", "candidate_model",
               "baseline_growth", "candidate_growth", "delta", "baseline_growth_low",
               "baseline_growth_high", "candidate_growth_low", "candidate_growth_high",
               "baseline_formula", "candidate_formula", "baseline_conclusive",
               "candidate_conclusive", "reason", "text"]


def compare(base: aprof_profile.Profile, cand: aprof_profile.Profile, metric: str = "trms",
            statistic: str = "max", tolerance: float = DEFAULT_TOLERANCE,
            min_share: float = DEFAULT_MIN_SHARE, min_evidence: float = DEFAULT_EVIDENCE,
            verbose: bool = False) -> Tuple[List[str], int]:
    """Output lines and the number of regressions; BadInput when the sides
    cannot be compared. The lines are the changes of growth (REGRESSION,
    IMPROVED, UNCONFIRMED), a summary and the verdict; verbose adds a line
    for every other routine (UNCHANGED, NOT COMPARED, ONLY IN)."""
    verdicts, summary, regressions = comparison(base, cand, metric, statistic, tolerance,
                                                min_share, min_evidence, verbose)
    return [v.text for v in verdicts] + summary, regressions


def comparison(base: aprof_profile.Profile, cand: aprof_profile.Profile, metric: str = "trms",
               statistic: str = "max", tolerance: float = DEFAULT_TOLERANCE,
               min_share: float = DEFAULT_MIN_SHARE, min_evidence: float = DEFAULT_EVIDENCE,
               verbose: bool = False) -> Tuple[List[Verdict], List[str], int]:
    """compare()'s lines as Verdicts, then its summary and verdict lines,
    and the number of regressions."""
    if (base.cost_metric, base.memory_resolution) != (cand.cost_metric, cand.memory_resolution):
        raise BadInput(f"baseline has cost metric {base.cost_metric} and memory resolution "
                       f"{base.memory_resolution}, candidate {cand.cost_metric} and "
                       f"{cand.memory_resolution}: profile both with the same --cost-metric and "
                       "--memory-resolution")
    if metric == "trms" and base.trms_tracking != cand.trms_tracking:
        raise BadInput("one side was profiled with --trms=no (RMS only): compare TRMS only "
                       "between runs that both track it, or compare with --metric rms")
    if metric == "trms" and base.syscall_input != cand.syscall_input:
        raise BadInput(f"baseline was profiled with --syscall-input={base.syscall_input}, "
                       f"candidate with --syscall-input={cand.syscall_input}: their TRMS count "
                       "different kernel input; profile both alike, or compare with --metric rms")
    b, c = by_match_key(base), by_match_key(cand)
    common = sorted(set(b) & set(c))
    if not common:
        raise BadInput(f"no routine in common between baseline ({len(b)} routines) and "
                       f"candidate ({len(c)} routines): are these reports of the same program?")

    regressions, improvements, unchanged, not_compared, weak, info = [], [], [], [], [], []
    shown = [key for key in common if max(cost_share(b[key], base), cost_share(c[key], cand)) >= min_share]
    below = len(common) - len(shown)
    for key, *results in _fitted_pairs(shown, b, c, cand is base, metric, statistic):
        rc = c[key]
        fitted = []
        for side, result in zip(("baseline", "candidate"), results):
            if isinstance(result, aprof_fit.NotEnoughPoints):
                why = (f"{side} has {result.distinct} distinct {metric} "
                       f"size{'' if result.distinct == 1 else 's'}, {result.needed} needed")
                not_compared.append(Verdict("NOT COMPARED", rc, f"NOT COMPARED {_label(rc)}: {why}",
                                            why=why))
                break
            if isinstance(result, ValueError):
                raise result
            fitted.append(result)
        if len(fitted) < 2:
            continue
        fb, fc = (result.best for result in fitted)
        gb, gc = fb.growth_exponent(), fc.growth_exponent()
        delta = gc - gb
        pair = (fitted[0], fitted[1])
        if abs(delta) <= tolerance:
            # Counted; its Verdict is made only with -v (100,000s of routines).
            unchanged.append(Verdict("UNCHANGED", rc, "UNCHANGED " + _change(rc, fb, fc), pair)
                             if verbose else None)
            continue
        text = _change(rc, fb, fc)
        detail = f"\n    baseline {fb.formula()}, candidate {fc.formula()}"
        # Only two confident fits whose exponents' intervals are disjoint,
        # and whose steeper side rejects the other side's class, count.
        doubt = _unconfirmed(*fitted)
        if doubt:
            weak.append(Verdict("UNCONFIRMED", rc, f"UNCONFIRMED {text}: {doubt}" + detail, pair,
                                doubt))
            continue
        # The points fitted (the upper envelope) of the steeper side.
        steep, flat, points = (fc, fb, fitted[1]) if delta > 0 else (fb, fc, fitted[0])
        evidence = (aprof_fit.fit_model(points.sizes, points.costs, flat.model, flat.k).criterion
                    - steep.criterion)
        if evidence < min_evidence:
            why = (f"the {'candidate' if delta > 0 else 'baseline'} points fit "
                   f"{aprof_fit.model_label(flat)} almost as well (AICc +{evidence:.1f} < "
                   f"{min_evidence:g})")
            weak.append(Verdict("UNCONFIRMED", rc, f"UNCONFIRMED {text}: {why}" + detail, pair, why))
        elif delta > 0:
            regressions.append((-delta, Verdict("REGRESSION", rc, "REGRESSION " + text + detail, pair)))
        else:
            improvements.append((delta, Verdict("IMPROVED", rc, "IMPROVED " + text + detail, pair)))
    for side, only, prof in (("BASELINE", set(b) - set(c), base), ("CANDIDATE", set(c) - set(b), cand)):
        routines = b if side == "BASELINE" else c
        for key in sorted(only):
            if cost_share(routines[key], prof) >= min_share:
                info.append(Verdict(f"ONLY IN {side}", routines[key],
                                    f"ONLY IN {side} {_label(routines[key])}"))

    compared = len(regressions) + len(improvements) + len(weak) + len(unchanged)
    if compared == 0:
        raise BadInput(f"no routine could be compared: {len(common)} in common, "
                       f"{len(not_compared)} with fewer than {aprof_fit.MIN_DISTINCT_SIZES} distinct "
                       f"{metric} sizes on a side, {below} below --min-share {min_share:g}")
    def steepest_first(changes):
        return [v for _, v in sorted(changes, key=lambda item: item[0])]

    verdicts = steepest_first(regressions) + steepest_first(improvements) + weak
    if verbose:
        verdicts += unchanged + not_compared + info
    n_only_b = sum(1 for v in info if v.kind == "ONLY IN BASELINE")
    counts = (f"{cli.program_name()}: {compared} routine{'' if compared == 1 else 's'} compared "
              f"({len(regressions)} regressed, {len(improvements)} improved, {len(weak)} "
              f"unconfirmed, {len(unchanged)} unchanged), "
              f"{len(not_compared)} not compared (too few sizes), {n_only_b} only in baseline, "
              f"{len(info) - n_only_b} only in candidate, {below} below --min-share; "
              f"{metric}, {statistic} cost, tolerance {tolerance:g}"
              + ("" if verbose or not (unchanged or not_compared or info) else "; -v lists them"))
    verdict = (f"FAIL: {len(regressions)} routine{'' if len(regressions) == 1 else 's'} got a "
               "steeper cost function" if regressions else "OK: no growth regression")
    summary = [counts, verdict]
    return verdicts, summary, len(regressions)


def main(argv: Optional[List[str]] = None) -> int:
    p = cli.argument_parser(
        description="Regression gate: exit 3 if a routine's fitted cost function "
        "grows faster in the candidate than in the baseline.",
        epilog="Exit status: 0 no regression, 1 bad input (malformed report, mismatched "
        "cost metric or resolution, nothing in common), 2 bad usage, 3 regression. "
        "See aprof_trms/regress.py.")
    p.add_argument("--baseline", nargs="+", required=True, metavar="REPORT|DIR",
                   help="reports or directories of the reference version (merged)")
    p.add_argument("--candidate", nargs="+", required=True, metavar="REPORT|DIR",
                   help="reports or directories of the version under test (merged)")
    p.add_argument("--metric", choices=aprof_report.METRICS, default="trms",
                   help="input size metric (default trms)")
    p.add_argument("--statistic", choices=aprof_fit.STATISTICS, default="max",
                   help="cost per input size that is fitted (default max)")
    p.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE, metavar="T",
                   help=f"largest growth exponent increase that is not a regression "
                   f"(default {DEFAULT_TOLERANCE}: n -> n log n passes, n -> n^1.5 fails)")
    p.add_argument("--min-share", type=float, default=DEFAULT_MIN_SHARE, metavar="PCT",
                   help="skip routines below PCT%% of the total cost on both sides "
                   f"(default {DEFAULT_MIN_SHARE:g}; 0 compares every routine)")
    p.add_argument("--min-evidence", type=float, default=DEFAULT_EVIDENCE, metavar="D",
                   help="AICc difference by which the steeper side's points must reject the other "
                   f"side's class to count (default {DEFAULT_EVIDENCE:g}; 0: growth change alone)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also list every routine that did not change class, could not be "
                   "compared (too few sizes) or is on one side only")
    cli.add_format_option(p)
    args = p.parse_args(argv)
    if args.tolerance < 0:
        p.error("--tolerance must be >= 0")
    if args.min_share < 0:
        p.error("--min-share must be >= 0")
    if args.min_evidence < 0:
        p.error("--min-evidence must be >= 0")
    with cli.cycle_collection_paused():
        base = load_side(args.baseline, "baseline", args.metric)
        # The same reports on both sides (a check of the gate itself): read once.
        cand = base if args.candidate == args.baseline else load_side(args.candidate, "candidate", args.metric)
        verdicts, summary, regressions = comparison(base, cand, args.metric, args.statistic,
                                                    args.tolerance, args.min_share, args.min_evidence,
                                                    args.verbose)
        if args.format == "json":
            cli.write_rows("json", "regress", JSON_FIELDS, [v.json() for v in verdicts],
                           baseline=base.paths, candidate=cand.paths, metric=args.metric,
                           statistic=args.statistic, tolerance=args.tolerance,
                           regressions=regressions, summary=summary[0], verdict=summary[1])
        else:
            print("\n".join([v.text for v in verdicts] + summary))
    return cli.EXIT_REGRESSION if regressions else cli.EXIT_OK
