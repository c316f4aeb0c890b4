# SPDX-License-Identifier: GPL-2.0-or-later
# The calling-contexts command: one cost function per calling context of a
# routine, the context where it grows worst first.
#
# Copyright (C) 2026, the aprof-trms authors.
"""A routine's calling contexts, each with its own fitted cost function
(reports of runs with --collect-context=yes, format version 4):

    contexts.py [selection] [--scale K] [--metric trms|rms] [--plot DIR]
                [--max-contexts N] [--width N] [--full-names] REPORT|DIR...

A context is a chain of routines from a thread's root (a coroutine's or a
goroutine's: the first routine on its own stack) to the routine
(recursion folded, depth limited: docs/report-format.md). For each chosen
routine the command prints one row per context: the chain as callers ending
in the routine (shortened to fit the line: the root, '…', then the nearest
callers), its activations, its share of the routine's cost (the sum of its
activations' costs over that of all the routine's contexts), the fitted
cost function of its worst-case cost per input size (aprof_trms/fit.py) and
why it is where it is. Contexts are ordered as rank.py orders routines
(ranking.rank_routines, the routine's cost standing for the program's):
confident fits first, by predicted share of the routine's cost when the
input grows --scale times beyond the largest seen, then inconclusive fits
by their share today, then contexts that cannot be fitted. The first row is the context where the
routine grows worst.

--max-contexts N (default 20, 0: all) shows the first N contexts of each
routine. --plot DIR draws one worst-case cost plot per context shown (plot.py's figure,
TRMS and RMS panels, titled with the chain): DIR/<routine>-context<rank>.png.

The routines are chosen with the options of aprof_trms/select.py; by
default the costliest (--top 5) routines that can be fitted and have at
least two contexts that can (MIN_DISTINCT_SIZES sizes each). Reports without contexts: an error saying to rerun with
--collect-context=yes. Reports are merged as profile.py merges them (the
same chain in two reports is one context).

Exit status (aprof_trms.cli): 0 done, 1 bad input (a malformed report, no
contexts, an unwritable DIR), 2 bad usage.
"""
import dataclasses
import os
import sys
from typing import Dict, List, Optional, Sequence, Set

from . import cli
from . import fit as aprof_fit
from . import plot as aprof_plot
from . import plotting as apl
from . import profile as aprof_profile
from . import report as aprof_report
from . import select
from .names import plain_name, printable
from .ranking import DEFAULT_SCALE, TRUST_LEGEND, Row, display_name, rank_contexts

DEFAULT_TOP = 5
DEFAULT_MAX_CONTEXTS = 20
DEFAULT_SIZE = "1000x480"
ARROW = " > "
ELLIPSIS = "…"
_MIN_CHAIN_WIDTH = 30


@dataclasses.dataclass
class RoutineContexts:
    """A routine and its contexts in ranking order (ranking.Row per context)."""
    routine: aprof_profile.RoutineProfile
    rows: List[Row]


def chain_names(profile: aprof_profile.Profile, context: aprof_profile.ContextProfile,
                full: bool = False) -> List[str]:
    """The routines of a context from the root to its own, each as its
    qualified name (templates and parameters reduced to …) unless `full`."""
    names = [profile.routines[key].name for key in context.key]
    return [printable(n if full else plain_name(n)) for n in names]


def common_callers(chains: Sequence[Sequence[str]]) -> int:
    """How many routines all the chains (of one routine's contexts) start
    with, their own routine left out: the part that tells none apart."""
    if len(chains) < 2:
        return 0
    n = 0
    while all(len(c) > n + 1 and c[n] == chains[0][n] for c in chains):
        n += 1
    return n


def _render(names: Sequence[str], kept: Set[int], lead: bool) -> str:
    """The chain with the routines at `kept` indexes, '…' for each run of
    the others (and in front when `lead`: the common callers)."""
    parts = [ELLIPSIS] if lead else []
    for i, name in enumerate(names):
        if i in kept:
            parts.append(name)
        elif not parts or parts[-1] != ELLIPSIS:
            parts.append(ELLIPSIS)
    return ARROW.join(parts)


def _fitting(names: Sequence[str], width: int, lead: bool) -> Set[int]:
    """The indexes a label keeps by default: the first routine, the
    routine itself, and as many of the nearest callers as fit in `width`
    (the callers next to the routine tell contexts apart, the first one
    says where the chain leaves the common part)."""
    kept = {0, len(names) - 1}
    for i in range(len(names) - 2, 0, -1):
        if len(_render(names, kept | {i}, lead)) > width:
            break
        kept.add(i)
    return kept


def chain_label(names: Sequence[str], width: int, common: int = 0) -> str:
    """'root > a > b > routine' in about `width` characters. The first
    `common` routines (those all the routine's contexts start with) become
    '…'; of the rest, the first one and as many of the nearest callers as
    fit, with '…' for those between. The first and last routines are kept
    even when they alone are wider (a label is never cut inside a name)."""
    names = list(names[common:])
    if not names:
        return ELLIPSIS
    return _render(names, _fitting(names, width, bool(common)), bool(common))


def _divergence(a: Sequence[str], b: Sequence[str]) -> int:
    """The first index where two chains differ (the shorter one's length
    when one starts the other)."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def chain_labels(chains: Sequence[Sequence[str]], width: int) -> List[str]:
    """chain_label of each of a routine's contexts, told apart: where two
    labels would read the same, each also keeps the routine where its
    chain first differs from the other's, with '…' around it, until all
    differ (at worst, the whole chains). Distinct labels come before the
    width: two rows reading "… > _addReplyToBufferOrList" say nothing."""
    common = common_callers(chains)
    rests = [list(c[common:]) for c in chains]
    kept = [_fitting(r, width, bool(common)) if r else set() for r in rests]

    def labels() -> List[str]:
        return [_render(r, k, bool(common)) if r else ELLIPSIS for r, k in zip(rests, kept)]

    current = labels()
    while True:
        twins: Dict[str, List[int]] = {}
        for i, label in enumerate(current):
            twins.setdefault(label, []).append(i)
        grown = False
        for group in (g for g in twins.values() if len(g) > 1):
            for i in group:
                for j in group:
                    d = _divergence(rests[i], rests[j]) if i != j else len(rests[i])
                    if d < len(rests[i]) and d not in kept[i]:
                        kept[i].add(d)
                        grown = True
        if not grown:
            return current
        current = labels()


def no_contexts_message(profile: aprof_profile.Profile) -> str:
    return (f"{', '.join(profile.paths)}: {profile.contexts_missing}; rerun the program under "
            "aprof-trms with --collect-context=yes to profile each routine per calling context")


def routine_contexts(profile: aprof_profile.Profile, args) -> List[RoutineContexts]:
    """The chosen routines with their ranked contexts (args: the selection
    options, --metric, --scale). Raises cli.UserError without contexts."""
    if not profile.contexts:
        raise cli.UserError(no_contexts_message(profile))
    selection = select.select_routines(profile, args, apply_limit=False)
    named = bool(args.routine or args.regex or args.all)
    if named:
        chosen = [r for r in selection.routines if profile.contexts_of(r.key)]
    else:
        chosen = [r for r in selection.routines if _fittable_contexts(profile, r, args.metric) >= 2]
    if not chosen:
        what = ("has a calling context" if named else
                f"has two calling contexts with {select.MIN_DISTINCT_SIZES} distinct sizes or more")
        raise cli.UserError(f"no chosen routine {what} ({selection.account()})"
                            + ("" if named else "; -r NAME shows any routine with contexts"))
    if args.top is not None:
        chosen = chosen[:args.top]
    return [RoutineContexts(r, rank_contexts(profile, r, args.metric, args.scale)) for r in chosen]


def _fittable_contexts(profile: aprof_profile.Profile, routine: aprof_profile.RoutineProfile,
                       metric: str) -> int:
    """How many contexts of the routine have enough sizes to be fitted: the
    default choice needs two, so that its table compares cost functions
    (a routine whose contexts have one or two sizes each says nothing)."""
    return sum(1 for c in profile.contexts_of(routine.key)
               if len(c.points(metric)) >= select.MIN_DISTINCT_SIZES)


def _shown(rc: RoutineContexts, most: int) -> List[Row]:
    """The first `most` contexts (0: all)."""
    return rc.rows[:most] if most else rc.rows


def _table(header: List[str], rows: List[List[str]], right: set) -> List[str]:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    return ["  ".join(c.rjust(w) if i in right else c.ljust(w)
                      for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in [header] + rows]


_HEADER = ["#", "share%", "at scale%", "trust", "calls", "sizes", "fit", "R^2", "context"]


def _table_cells(rows: List[Row], chains: List[List[str]], metric: str,
                 width: int) -> List[List[str]]:
    """The cells of a routine's table (_HEADER), the context last, shortened
    to the room the other columns leave in `width`."""
    cells = []
    for i, row in enumerate(rows, 1):
        fitted = row.result is not None
        best = row.result.best if fitted else None
        cells.append([str(i), f"{row.share:.2f}", f"{row.predicted_share:.2f}" if fitted else "-",
                      row.trust if fitted else "-", str(row.routine.calls),
                      str(len(row.routine.points(metric))),
                      aprof_fit.model_label(best) if fitted else "-",
                      f"{best.r2:.4f}" if fitted else "-", ""])
    used = sum(max([len(h)] + [len(c[i]) for c in cells]) + 2 for i, h in enumerate(_HEADER[:-1]))
    room = max(_MIN_CHAIN_WIDTH, width - used)
    for cell, label in zip(cells, chain_labels(chains, room)):
        cell[-1] = label
    return cells


def format_routine(profile: aprof_profile.Profile, rc: RoutineContexts, metric: str,
                   scale: float, width: int, full: bool, most: int = 0) -> List[str]:
    r = rc.routine
    cost = sum(row.routine.cumulative_cost for row in rc.rows)
    rows = _shown(rc, most)
    chains = [chain_names(profile, row.routine, full) for row in rows]
    common = common_callers(chains)
    lines = [f"{select.label(r.name, not full)} [{printable(os.path.basename(r.object))}]: "
             f"{len(rc.rows)} context{'' if len(rc.rows) == 1 else 's'}, {r.calls} calls, "
             f"cost of its activations {cost} {profile.cost_metric}"]
    if common:
        lines.append(f"  every context starts with {common} routine{'' if common == 1 else 's'} "
                     f"(… below): {chain_label(chains[0][:common], max(_MIN_CHAIN_WIDTH, width - 40))}")
    cells = _table_cells(rows, chains, metric, width)
    lines += ["  " + line for line in _table(_HEADER, cells, {0, 1, 2, 4, 5, 7})]
    lines.append(f"  Why each context is where it is (share of the routine's cost; {TRUST_LEGEND}):")
    for i, row in enumerate(rows, 1):
        formula = f"cost = {row.result.best.formula()}; " if row.result is not None else ""
        lines.append(f"  {i:>3}. {formula}{row.reason}")
    if len(rows) < len(rc.rows):
        lines.append(f"  ... and {len(rc.rows) - len(rows)} more contexts "
                     "(--max-contexts 0 shows all)")
    return lines


def format_text(profile: aprof_profile.Profile, chosen: List[RoutineContexts], metric: str,
                scale: float, width: int, full: bool, most: int = 0) -> str:
    lines = [f"Calling contexts: {len(profile.paths)} report(s), depth limit "
             f"{profile.context_depth}, cost {profile.cost_metric}; per context the max cost per "
             f"{metric} input size fitted (AICc), contexts ordered by predicted share of the "
             f"routine's cost at {scale:g}x the largest input seen, confident fits first, "
             "inconclusive ones by their share today", ""]
    for rc in chosen:
        lines += format_routine(profile, rc, metric, scale, width, full, most) + [""]
    return "\n".join(lines)


# The fields of a row of the JSON output (docs/json-format.md): one per context shown.
FIELDS = ["routine", "object", "rank", "context", "chain", "calls", "sizes", "share_pct",
          "predicted_share_pct", "conclusive", "model", "growth", "growth_low", "growth_high",
          "r2", "formula", "reason"]


def context_rows(profile: aprof_profile.Profile, chosen: List[RoutineContexts], metric: str,
                 width: int, full: bool, most: int = 0) -> List[dict]:
    """The rows of the tables format_text prints, as the JSON output gives
    them: the context as the table shows it, and its whole chain of routine
    names from the root; the fit's fields None for a context not fitted."""
    out = []
    for rc in chosen:
        rows = _shown(rc, most)
        chains = [chain_names(profile, row.routine, full) for row in rows]
        labels = [cells[-1] for cells in _table_cells(rows, chains, metric, width)]
        for i, (row, label) in enumerate(zip(rows, labels), 1):
            fitted = row.result is not None
            best = row.result.best if fitted else None
            interval = row.interval or (None, None)
            out.append({
                "routine": display_name(rc.routine), "object": rc.routine.object,
                "rank": i, "context": label,
                "chain": [printable(profile.routines[key].name) for key in row.routine.key],
                "calls": row.routine.calls, "sizes": len(row.routine.points(metric)),
                "share_pct": row.share, "predicted_share_pct": row.predicted_share if fitted else None,
                "conclusive": row.conclusive if fitted else None,
                "model": aprof_fit.model_label(best) if fitted else None,
                "growth": row.growth if fitted else None, "growth_low": interval[0],
                "growth_high": interval[1], "r2": best.r2 if fitted else None,
                "formula": best.formula() if fitted else None, "reason": row.reason})
    return out


def draw(profile: aprof_profile.Profile, chosen: List[RoutineContexts], outdir: str, args) -> List[str]:
    """One worst-case cost picture per context (plot.routine_figure);
    returns the files written."""
    fmt = apl.check_format(args.picture_format)
    size = apl.parse_size(args.size)
    plt = apl.pyplot()
    import numpy as np
    outdir = apl.prepare_outdir(outdir)
    # Names as the chain shows them (chain_names): the title is not shortened again.
    style = aprof_plot.Style(False, False, profile.cost_metric, profile.memory_resolution)
    written = []
    stems = apl.unique_stems([rc.routine.name for rc in chosen])
    for rc, stem in zip(chosen, stems):
        rows = _shown(rc, args.max_contexts)
        chains = [chain_names(profile, row.routine, args.full_names) for row in rows]
        labels = chain_labels(chains, aprof_plot.TITLE_WIDTH)
        for i, (row, label) in enumerate(zip(rows, labels), 1):
            context = row.routine
            fits = {m: aprof_fit.fit_of(context, m) for m in aprof_plot.METRICS}
            # The title names the context: its chain as the table shows it.
            titled = dataclasses.replace(context, name=label)
            fig = aprof_plot.routine_figure(plt, np, aprof_fit, titled, "cost", fits, style,
                                            size, args.dpi)
            path = os.path.join(outdir, f"{stem}-context{i}.{fmt}")
            apl.save_figure(fig, path, fmt, args.dpi)
            written.append(path)
    apl.replace_manifest(outdir, written)
    return written


def parse_args(argv):
    p = cli.argument_parser(
        description="A routine's calling contexts (--collect-context=yes reports), each with its "
        "own fitted cost function, the context where the routine grows worst first.",
        epilog="Contexts are ordered as rank.py orders routines: confident fits first, by "
        "predicted share of the routine's cost at K times the largest input, inconclusive "
        "ones by their share today. "
        "Exit status: 0 done, 1 bad input (no contexts: rerun with --collect-context=yes), "
        "2 bad usage.")
    p.add_argument("reports", nargs="+", metavar="REPORT|DIR",
                   help="aprof-trms reports, or directories of aprof-trms.out.* files (all merged)")
    p.add_argument("--scale", type=cli.positive_scale, default=DEFAULT_SCALE,
                   metavar="K", help="rank by the predicted cost at K times the largest input "
                   f"seen (default {DEFAULT_SCALE:g})")
    p.add_argument("--metric", choices=aprof_report.METRICS, default="trms",
                   help="input size metric of the fits and ranking (default trms)")
    p.add_argument("--width", type=int, default=None, metavar="N",
                   help="line width (default: the terminal's, 120 when not a terminal)")
    p.add_argument("--full-names", action="store_true",
                   help="routine names as demangled, not shortened")
    p.add_argument("--max-contexts", type=int, default=DEFAULT_MAX_CONTEXTS, metavar="N",
                   help=f"show the first N contexts of each routine (default {DEFAULT_MAX_CONTEXTS}; "
                   "0: all)")
    select.add_selection_arguments(p, top=DEFAULT_TOP)
    cli.add_format_option(p)
    out = p.add_argument_group("plots")
    out.add_argument("--plot", metavar="DIR", default=None,
                     help="draw one worst-case cost plot per context in DIR (created if missing)")
    # --format is the text's (text or json): the pictures' is --picture-format.
    apl.add_output_options(out, "a per-context picture", DEFAULT_SIZE, "--picture-format")
    args = p.parse_args(argv)
    apl.check_output_options(p, args)
    if args.width is None:
        args.width = cli.terminal_width()
    elif args.width < 60:
        p.error("--width must be at least 60")
    if args.max_contexts < 0:
        p.error("--max-contexts must be at least 0")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    profile = aprof_profile.load_profile(args.reports)
    chosen = routine_contexts(profile, args)
    if args.format == "json":
        cli.write_rows("json", "contexts", FIELDS,
                       context_rows(profile, chosen, args.metric, args.width, args.full_names,
                                    args.max_contexts),
                       reports=profile.paths, cost_metric=profile.cost_metric, metric=args.metric,
                       scale=args.scale, depth_limit=profile.context_depth)
    else:
        sys.stdout.write(format_text(profile, chosen, args.metric, args.scale, args.width,
                                     args.full_names, args.max_contexts))
    if args.plot is not None:
        written = draw(profile, chosen, args.plot, args)
        if not args.quiet and args.format == "text":   # JSON: one document on stdout
            for path in written:
                print(path)
    return cli.EXIT_OK
