# SPDX-License-Identifier: GPL-2.0-or-later
"""Cost plots of routines from aprof-trms reports (the plots of section 3 of
"Multithreaded Input-Sensitive Profiling": Figures 4 to 8).

For each chosen routine, one file per plot kind, each with two panels drawn
from the same run: input size measured by TRMS (left) and by RMS (right).

  cost      worst-case cost plot: the maximum cost of an activation for each
            distinct input size, with the fitted cost function (aprof_trms/
            fit.py: model chosen by AICc) and its formula in the legend,
            the runner-up model in the legend, or "no fit: only K distinct
            sizes (need 5)" on a panel with too few sizes
  workload  workload plot: number of activations for each input size
  stats     (--stats) minimum, average and maximum cost for each input size
  total     (--total) total cost of the activations of each input size

Files are OUTDIR/<routine>-<kind>.<format>; --grid also draws every routine
and kind in one picture (OUTDIR/grid.<format>, or --grid-file). OUTDIR/
summary.txt gives, per routine: calls, share of the program's cost, distinct
TRMS and RMS sizes, fitted model, formula and goodness (R^2, AICc) for TRMS
and RMS with the runner-up, and how much of its induced input came from
other threads and from the kernel.

Several reports (threads are always merged; processes of a fork, runs with
different inputs) are merged into one profile (aprof_trms/profile.py); a
directory stands for the aprof-trms.out.* reports in it.

Run with an interpreter that has Debian's python3-matplotlib, python3-numpy
and python3-scipy (/usr/bin/python3). Exit status: 0 done, 1 error (a bad
report, with FILE:LINE; no routine matching; an output directory that cannot
be written; an unknown format), 2 bad usage.
"""
import argparse
import dataclasses
import os
import sys
import textwrap
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import cli, output
from . import fit as aprof_fit
from . import plotting as apl
from . import profile as aprof_profile
from . import report as aprof_report
from . import select
from .fit import FitInfo
from .names import number, printable
from .ranking import rank_routines

KINDS = ("cost", "workload", "stats", "total")
METRICS = ("trms", "rms")
DEFAULT_TOP = 5
DEFAULT_MIN_SHARE = 1.0
DEFAULT_SIZE = "1000x480"
SUMMARY = "summary.txt"

EPILOG = """\
files written in OUTDIR, for each chosen routine (its name shortened):
  ROUTINE-cost.FMT      max cost per input size, the fitted cost function and the
                        runner-up model ("no fit: only K distinct sizes (need 5)")
  ROUTINE-workload.FMT  activations per input size
  ROUTINE-stats.FMT     min / avg / max cost per input size (--stats)
  ROUTINE-total.FMT     total cost per input size (--total)
  grid.FMT              all of them in one picture (--grid)
  .plot-files           the files this run wrote: the next run into OUTDIR removes
                        those it does not write again (no stale pictures)
  summary.txt           per routine: calls, cost share, distinct TRMS and RMS sizes,
                        fitted model, formula, R^2, AICc and runner-up for TRMS and
                        RMS, thread-induced and external shares of its induced reads
Fitting: aprof_trms/fit.py (models a + b*f(n), chosen by AICc).

routine selection (aprof_trms/select.py): by default the 5 costliest routines
that can be fitted (at least 5 distinct input sizes), carry at least 1% of the
cost and are not entry wrappers of the C runtime (_start, main's callers,
start_thread); what was left out is said on stderr and in summary.txt.

examples:
  plot.py aprof-trms.out.4242 -o plots                  the default choice
  plot.py --top 10 --stats --total reports/ -o plots    10 routines, all plots
  plot.py -r sum_array -r std::sort r/ -o plots --format svg
  plot.py -r 'mysql_*' --hide-libc --grid --log r/ -o plots

exit status: 0 done, 1 error (message on stderr: a malformed report is named
with FILE:LINE), 2 bad usage.
"""


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = cli.argument_parser(
        description="Worst-case cost plots (with fitted cost functions), workload plots and\n"
                    "cost statistics of routines from aprof-trms reports: input size as TRMS\n"
                    "and as RMS side by side, from the same run, plus a text summary.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="REPORT_OR_DIR",
                   help="aprof-trms report(s), or directories of aprof-trms.out.* reports; "
                        "all are merged into one profile")
    p.add_argument("-o", "--output-dir", required=True, metavar="OUTDIR",
                   help="directory for the pictures and summary.txt (created if missing)")
    select.add_selection_arguments(p, top=DEFAULT_TOP, min_share=DEFAULT_MIN_SHARE)
    kinds = p.add_argument_group("plots (cost and workload are always drawn)")
    kinds.add_argument("--stats", action="store_true",
                       help="also draw min / avg / max cost per input size")
    kinds.add_argument("--total", action="store_true",
                       help="also draw the total cost per input size")
    kinds.add_argument("--grid", action="store_true",
                       help="also draw all routines and plot kinds in one picture (grid.FORMAT)")
    kinds.add_argument("--grid-file", metavar="FILE",
                       help="name of the grid picture (implies --grid; relative to OUTDIR; "
                            "its extension .png, .svg or .pdf sets its format)")
    kinds.add_argument("--grid-only", action="store_true",
                       help="draw the grid but not the per-routine files (implies --grid)")
    look = p.add_argument_group("appearance")
    look.add_argument("--log-x", action="store_true", help="logarithmic input-size axis")
    look.add_argument("--log-y", action="store_true", help="logarithmic cost / activations axis")
    look.add_argument("--log", action="store_true", help="both axes logarithmic")
    apl.add_output_options(look, "a per-routine picture", DEFAULT_SIZE)
    args = p.parse_args(argv)
    apl.check_output_options(p, args)
    if args.log:
        args.log_x = args.log_y = True
    if args.grid_file or args.grid_only:
        args.grid = True
    return args


# ---------------------------------------------------------------------------
# Drawing.
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class Style:
    log_x: bool
    log_y: bool
    cost_metric: str
    resolution: int
    short_names: bool = False   # titles: select.label(name, short)
    small: bool = False         # grid cells: fewer words


COLORS = {"trms": "tab:blue", "rms": "tab:orange"}
# Characters per line of a fit note in the legend (about the width of the
# fit's formula line at the default size).
LEGEND_NOTE_WIDTH = 50


def _keep(xs, ys, style: Style) -> Tuple[list, list, int]:
    """Points that a logarithmic axis can show, and how many were dropped
    (an axis without any positive value stays linear: see _axes)."""
    log_x = style.log_x and any(x > 0 for x in xs)
    log_y = style.log_y and any(y > 0 for y in ys)
    kept = [(x, y) for x, y in zip(xs, ys) if (not log_x or x > 0) and (not log_y or y > 0)]
    return [p[0] for p in kept], [p[1] for p in kept], len(xs) - len(kept)


def _plain_log_labels(ax, axis, limits) -> None:
    """Log axis labels as plain numbers (1000, 2M, not 10^3); the minor
    ticks get labels too when the axis spans less than about two decades
    (apl.declutter_ticks removes them again where they would overlap)."""
    from matplotlib.ticker import FuncFormatter

    def minor(value, _pos):
        lo, hi = limits()
        return apl.compact_number(value) if lo > 0 and hi / lo < 150 else ""

    axis.set_major_formatter(FuncFormatter(lambda value, _pos: apl.compact_number(value)))
    axis.set_minor_formatter(FuncFormatter(minor))


def _axes(ax, style: Style, metric: str, ylabel: str, sizes, values) -> None:
    """Scales and labels; a logarithmic axis needs a positive value (sizes
    may all be 0: the axis then stays linear and the panel says why)."""
    linear = []
    for wanted, data, what, set_scale, axis, limits in (
            (style.log_x, sizes, "sizes", ax.set_xscale, ax.xaxis, ax.get_xlim),
            (style.log_y, values, "values", ax.set_yscale, ax.yaxis, ax.get_ylim)):
        if not wanted:
            continue
        if any(v > 0 for v in data):
            set_scale("log")
            _plain_log_labels(ax, axis, limits)
        else:
            linear.append(what)
    from matplotlib.ticker import FuncFormatter, MaxNLocator
    if ax.get_xscale() == "linear":
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # sizes are whole cells
        if len(set(sizes)) == 1:   # one size: whole cells around it, not 13.4 ... 14.6
            ax.set_xlim(sizes[0] - 1, sizes[0] + 1)
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "linear":   # 1.5M, not 1500000 or an offset text
            axis.set_major_formatter(FuncFormatter(lambda value, _pos: apl.compact_number(value)))
    if linear:
        ax.text(0.01, 0.01, f"linear axis: no positive {' or '.join(linear)}",
                transform=ax.transAxes, ha="left", va="bottom", fontsize="x-small", color="gray")
    ax.set_xlabel(apl.size_label(metric, style.resolution))
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)


def _dropped_note(ax, dropped: int) -> None:
    if dropped:
        ax.text(0.99, 0.01, f"{dropped} point{'s' if dropped > 1 else ''} at 0 not shown (log axis)",
                transform=ax.transAxes, ha="right", va="bottom", fontsize="x-small", color="gray")


def draw_cost(ax, np, aprof_fit, routine, metric: str, fit: FitInfo, style: Style) -> None:
    points = routine.points(metric)
    sizes = sorted(points)
    costs = [points[s].max_cost for s in sizes]
    xs, ys, dropped = _keep(sizes, costs, style)
    # Points above the fit line (zorder), larger when there are few of them.
    ax.plot(xs, ys, "o", ms=3.5 if len(xs) >= 20 else 6, color=COLORS[metric], alpha=0.9,
            zorder=3, label=f"max cost ({len(sizes)} size{'s' if len(sizes) != 1 else ''})")
    _axes(ax, style, metric, apl.cost_label(style.cost_metric, "worst-case cost"), sizes, costs)
    if fit.result is not None:
        best = fit.result.best
        # Over the sizes it was fitted on: a second population or a regime
        # left out may reach further (an interpreter's integer sorts past
        # its largest string sort), where the curve is no fit of anything.
        fitted = fit.result.sizes or sizes
        lo, hi = min(fitted), max(fitted)
        if ax.get_xscale() == "log":
            lo = min((s for s in fitted if s > 0), default=hi)
            grid = np.geomspace(lo, max(hi, lo), 200)
        else:
            grid = np.linspace(lo, hi, 200)
        with np.errstate(all="ignore"):
            pred = np.asarray(best.predict(grid), dtype=float)
        ok = np.isfinite(pred)
        if ax.get_yscale() == "log":
            ok &= pred > 0
        ax.plot(grid[ok], pred[ok], "-", color="black", lw=1.2, alpha=0.8, zorder=2,
                label=apl.tex_escape(f"fit {aprof_fit.label_with_interval(fit.result)}: "
                                            f"{best.formula()}"))
        method = fit.result.method
        good = f"R² = {best.r2:.4f}"
        ax.plot([], [], " ", label=good)
        ru = fit.result.runner_up
        if ru is not None:
            delta = ru.criterion - best.criterion
            ax.plot([], [], " ", label=apl.tex_escape(
                f"runner-up: {aprof_fit.model_label(ru)} (Δ{method} {number(delta, '+.1f')})"))
        for note in fit.result.notes + [f"inconclusive: {d}" for d in fit.result.doubts]:
            # Wrapped, never cut: what a note says was left out is the point of it.
            ax.plot([], [], " ", label=apl.tex_escape(textwrap.fill(note, LEGEND_NOTE_WIDTH)))
    else:
        # In the legend, which matplotlib places away from the points: a
        # box in the middle hid a lone point.
        ax.plot([], [], " ", label=fit.reason)
    ax.legend(fontsize="x-small" if style.small else "small", loc="best", framealpha=0.85)
    _dropped_note(ax, dropped)


def draw_workload(ax, np, routine, metric: str, style: Style) -> None:
    points = routine.points(metric)
    sizes = sorted(points)
    calls = [points[s].calls for s in sizes]
    xs, ys, dropped = _keep(sizes, calls, style)
    bottom = 1 if style.log_y else 0
    ax.vlines(xs, bottom, ys, color=COLORS[metric], lw=1.2, alpha=0.8)
    ax.plot(xs, ys, "o", ms=3, color=COLORS[metric],
            label=f"{sum(calls)} activation{'s' if sum(calls) != 1 else ''}, {len(sizes)} "
                  f"distinct size{'s' if len(sizes) != 1 else ''}")
    _axes(ax, style, metric, "activations", sizes, calls)
    if ax.get_yscale() == "linear":
        from matplotlib.ticker import MaxNLocator
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(0, max(calls) * 1.18)   # room for the legend above the tallest bar
    ax.legend(fontsize="x-small" if style.small else "small", loc="upper right", framealpha=0.85)
    _dropped_note(ax, dropped)


def draw_stats(ax, np, routine, metric: str, style: Style) -> None:
    points = routine.points(metric)
    sizes = sorted(points)
    lows = [points[s].min_cost for s in sizes]
    avgs = [points[s].avg_cost for s in sizes]
    highs = [points[s].max_cost for s in sizes]
    log_x = style.log_x and any(s > 0 for s in sizes)
    log_y = style.log_y and any(v > 0 for v in lows + highs)
    keep = [i for i, s in enumerate(sizes)
            if (not log_x or s > 0) and (not log_y or lows[i] > 0)]
    xs = [sizes[i] for i in keep]
    # A vertical bar from min to max for each size (no interpolation between
    # sizes: sparse sizes would otherwise suggest costs that were not seen).
    ax.vlines(xs, [lows[i] for i in keep], [highs[i] for i in keep],
              color=COLORS[metric], alpha=0.35, lw=2)
    ax.plot(xs, [lows[i] for i in keep], "v", ms=4, color="tab:green", label="min")
    ax.plot(xs, [avgs[i] for i in keep], "o", ms=3, color=COLORS[metric], label="avg")
    ax.plot(xs, [highs[i] for i in keep], "^", ms=4, color="tab:red", label="max",
            markerfacecolor="none")
    _axes(ax, style, metric, apl.cost_label(style.cost_metric), sizes, lows + highs)
    ax.legend(fontsize="x-small" if style.small else "small", loc="upper left", framealpha=0.85)
    _dropped_note(ax, len(sizes) - len(keep))


def draw_total(ax, np, routine, metric: str, style: Style) -> None:
    points = routine.points(metric)
    sizes = sorted(points)
    totals = [points[s].sum_cost for s in sizes]
    xs, ys, dropped = _keep(sizes, totals, style)
    ax.vlines(xs, 1 if style.log_y else 0, ys, color=COLORS[metric], lw=1.0, alpha=0.6)
    ax.plot(xs, ys, "s", ms=3, color=COLORS[metric],
            label=f"total {sum(totals)} over {len(sizes)} sizes")
    _axes(ax, style, metric, apl.cost_label(style.cost_metric, "total cost"), sizes, totals)
    if not style.log_y:
        ax.set_ylim(bottom=0)
    ax.legend(fontsize="x-small" if style.small else "small", loc="upper left", framealpha=0.85)
    _dropped_note(ax, dropped)


KIND_TITLES = {"cost": "worst-case cost", "workload": "workload",
               "stats": "min / avg / max cost", "total": "total cost"}


def draw_kind(ax, kind: str, np, aprof_fit, routine, metric: str, fits: Dict[str, FitInfo],
              style: Style) -> None:
    if kind == "cost":
        draw_cost(ax, np, aprof_fit, routine, metric, fits[metric], style)
    elif kind == "workload":
        draw_workload(ax, np, routine, metric, style)
    elif kind == "stats":
        draw_stats(ax, np, routine, metric, style)
    else:
        draw_total(ax, np, routine, metric, style)


def same_sizes(routine) -> bool:
    """TRMS = RMS on every activation: TRMS >= RMS on each one, so equal
    sums mean equal sizes everywhere (no induced first read)."""
    return routine.sum_trms == routine.sum_rms


SAME_SIZES = "TRMS = RMS on every activation"


TITLE_WIDTH = 70   # characters of a routine's name in a picture's title


def _title(routine, style: Style, width: int) -> str:
    return apl.tex_escape(apl.short_name(select.label(routine.name, style.short_names), width))


def routine_figure(plt, np, aprof_fit, routine, kind: str, fits: Dict[str, FitInfo],
                   style: Style, size: Tuple[int, int], dpi: int):
    """Two panels, TRMS and RMS, or one when they agree on every activation."""
    metrics = METRICS[:1] if same_sizes(routine) else METRICS
    fig, axes = plt.subplots(1, len(metrics), squeeze=False, dpi=dpi,
                             figsize=(size[0] / dpi, size[1] / dpi), sharey=kind != "workload")
    for ax, metric in zip(axes[0], metrics):
        draw_kind(ax, kind, np, aprof_fit, routine, metric, fits, style)
        ax.set_title(f"input size = {metric.upper()}" if len(metrics) > 1 else
                     f"input size = TRMS = RMS ({SAME_SIZES}: one panel)", fontsize="medium")
    if kind != "workload" and len(metrics) > 1:
        axes[0][1].yaxis.set_tick_params(labelleft=True)
    fig.suptitle(f"{_title(routine, style, TITLE_WIDTH)}: {KIND_TITLES[kind]}", fontsize="large")
    fig.tight_layout()
    apl.declutter_ticks(fig)
    return fig


def grid_figure(plt, np, aprof_fit, routines, kinds, fits_of, style: Style,
                size: Tuple[int, int], dpi: int):
    """One row per routine, one column per kind and metric; each kind's pair
    of cells is as large as a per-routine picture (--size)."""
    cols = [(k, m) for k in kinds for m in METRICS]
    fig, axes = plt.subplots(len(routines), len(cols), squeeze=False, dpi=dpi,
                             figsize=(size[0] / dpi * len(kinds), size[1] / dpi * len(routines)))
    small = dataclasses.replace(style, small=True)
    for row, routine in enumerate(routines):
        for col, (kind, metric) in enumerate(cols):
            ax = axes[row][col]
            if metric == "rms" and same_sizes(routine):
                ax.axis("off")
                ax.text(0.5, 0.5, f"{SAME_SIZES}:\nsee the TRMS panel", transform=ax.transAxes,
                        ha="center", va="center", fontsize="small", color="gray")
                continue
            draw_kind(ax, kind, np, aprof_fit, routine, metric, fits_of[routine.key], small)
            ax.set_title(f"{_title(routine, style, 36)}\n{KIND_TITLES[kind]}, {metric.upper()}",
                         fontsize="small")
            ax.xaxis.label.set_fontsize("x-small")
            ax.yaxis.label.set_fontsize("x-small")
            ax.tick_params(labelsize="x-small")
    fig.tight_layout()
    apl.declutter_ticks(fig)
    return fig


# ---------------------------------------------------------------------------
# Summary.
# ---------------------------------------------------------------------------

def _fit_lines(aprof_fit, label: str, fit: FitInfo) -> List[str]:
    pad = f"{label} " if len(label) == 4 else f"{label}  "
    if fit.result is None:
        return [f"{pad}model:      none ({fit.reason})"]
    best = fit.result.best
    m = fit.result.method
    lines = [f"{pad}model:      {aprof_fit.model_label(best)}",
             f"{pad}formula:    cost = {best.formula(4)}",
             f"{pad}goodness:   R^2 = {best.r2:.5f}, {m} = {best.criterion:.2f}"]
    ru = fit.result.runner_up
    if ru is not None:
        lines.append(f"{pad}runner-up:  {aprof_fit.model_label(ru)}: cost = {ru.formula(4)} "
                     f"(R^2 = {ru.r2:.5f}, {m} = {ru.criterion:.2f})")
    else:
        lines.append(f"{pad}runner-up:  none")
    return lines


def summary_text(profile, routines, fits_of, files_of, aprof_fit, account: str) -> str:
    unit = apl.cost_unit(profile.cost_metric)
    out = ["aprof-trms routine summary (plot.py)", ""]
    for path, cmd in zip(profile.paths, profile.commands):
        out.append(f"report:  {printable(path)}   command: {printable(' '.join(cmd))}")
    out.append(f"cost metric: {profile.cost_metric} ({unit}); memory resolution: "
               f"{profile.memory_resolution} bytes per cell; total cost of all threads: "
               f"{profile.total_cost} {unit}")
    if not profile.trms_tracking:
        out.append("RMS only (--trms=no): induced reads were not tracked; every TRMS equals the RMS")
    unseen = aprof_report.kernel_writes_warning(profile.kernel_writes_unseen)
    if unseen:
        out.append(f"warning: {unseen}")
    out.append("cost share = cumulative (inclusive) cost / total cost of all threads; "
               "fits: max cost per input size, model chosen by "
               f"{_method(fits_of)} (aprof_trms/fit.py)")
    out.append(f"selection: {account}")
    out.append("")
    width = max(8, min(40, max(len(apl.short_name(r.name, 40)) for r in routines)))
    out.append(f"{'routine':<{width}}  {'calls':>9}  {'cost %':>7}  {'|TRMS|':>6}  {'|RMS|':>6}  "
               f"{'TRMS model':<14}  {'RMS model':<14}")
    for r in routines:
        f = fits_of[r.key]
        tm = aprof_fit.model_label(f["trms"].result.best) if f["trms"].result else "-"
        rm = aprof_fit.model_label(f["rms"].result.best) if f["rms"].result else "-"
        out.append(f"{apl.short_name(r.name, width):<{width}}  {r.calls:>9}  "
                   f"{apl.percent(r.cumulative_cost, profile.total_cost):>6.2f}%  "
                   f"{len(r.trms):>6}  {len(r.rms):>6}  {tm:<14}  {rm:<14}")
    for r in routines:
        f = fits_of[r.key]
        induced = r.thread_induced + r.external
        out += ["", f"== {printable(r.name)} ==",
                f"name:            {printable(r.name)}",
                f"mangled:         {printable(r.mangled)}",
                f"object:          {printable(r.object)}",
                f"calls:           {r.calls}",
                f"cost share:      {apl.percent(r.cumulative_cost, profile.total_cost):.2f}% "
                f"(cumulative {r.cumulative_cost} of {profile.total_cost} {unit}; "
                f"self {r.self_cost})",
                f"distinct sizes:  TRMS {len(r.trms)}, RMS {len(r.rms)}"
                + (f" (profile richness {number((len(r.trms) - len(r.rms)) / len(r.rms), '+.2f')})"
                   if r.rms else "")]
        out += _fit_lines(aprof_fit, "TRMS", f["trms"])
        out += _fit_lines(aprof_fit, "RMS", f["rms"])
        out.append(f"induced reads:   {induced} of {r.sum_trms} TRMS reads "
                   f"({apl.percent(induced, r.sum_trms):.2f}%); input volume "
                   f"1 - sum(RMS)/sum(TRMS) = "
                   f"{(1 - r.sum_rms / r.sum_trms) if r.sum_trms else 0.0:.4f}")
        out.append(f"thread-induced:  {r.thread_induced} "
                   f"({apl.percent(r.thread_induced, induced):.2f}% of induced reads)")
        out.append(f"external:        {r.external} "
                   f"({apl.percent(r.external, induced):.2f}% of induced reads)")
        if files_of.get(r.key):
            out.append(f"files:           {', '.join(files_of[r.key])}")
    return "\n".join(out) + "\n"


def _method(fits_of) -> str:
    for f in fits_of.values():
        for info in f.values():
            if info.result is not None:
                return info.result.method
    return "AICc"


# ---------------------------------------------------------------------------

def sources_first(profile, selection: select.Selection, top: Optional[int]) -> None:
    """The default choice in rank.py's order, cut at `top`: the routines
    where growth comes from before the event loops and dispatchers whose
    growth a callee carries (carriers.py), confident fits first."""
    order = [row.routine for row in rank_routines(profile, selection.routines)]
    if top is not None and len(order) > top:
        rest = order[top:]
        selection.left_out.append(f"{len(rest)} after the first {top} in rank.py's order (growth "
                                  f"carried by a callee, inconclusive or smaller)"
                                  f"{select.examples(rest)}")
        if "--top N shows more" not in selection.hints:
            selection.hints.append("--top N shows more")
        order = order[:top]
    selection.routines = order


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    fmt = apl.check_format(args.format)
    size = apl.parse_size(args.size)
    grid_path = grid_fmt = None
    if args.grid:
        grid_path, grid_fmt = apl.format_of_path(args.grid_file or "grid", fmt)
        if not os.path.isabs(grid_path):
            grid_path = os.path.join(args.output_dir, grid_path)
    # Bad reports and selections first (fast, before the plotting stack is imported).
    profile = aprof_profile.load_profile(args.inputs)
    if not profile.routines:
        raise apl.UserError("the reports contain no routine activation")
    automatic = not (args.routine or args.regex or args.all)
    selection = select.select_routines(profile, args, apply_limit=not automatic)
    if not selection.routines:
        raise apl.UserError(f"no routine to draw: {selection.account()}")
    if automatic:
        sources_first(profile, selection, args.top)
    routines = selection.routines
    plt = apl.pyplot()
    outdir = apl.prepare_outdir(args.output_dir)
    if grid_path:
        apl.prepare_outdir(os.path.dirname(grid_path) or ".")

    style = Style(args.log_x, args.log_y, profile.cost_metric, profile.memory_resolution,
                  args.short_names)
    kinds = ["cost", "workload"] + (["stats"] if args.stats else []) + \
            (["total"] if args.total else [])
    by_metric = aprof_fit.fit_infos(routines, METRICS)
    fits_of = {r.key: {m: by_metric[m][i] for m in METRICS} for i, r in enumerate(routines)}
    files_of: Dict[tuple, List[str]] = {}
    written: List[str] = []
    if not args.grid_only:
        for routine, stem in zip(routines, apl.unique_stems([r.name for r in routines])):
            for kind in kinds:
                name = f"{stem}-{kind}.{fmt}"
                fig = routine_figure(plt, np, aprof_fit, routine, kind, fits_of[routine.key],
                                     style, size, args.dpi)
                apl.save_figure(fig, os.path.join(outdir, name), fmt, args.dpi)
                files_of.setdefault(routine.key, []).append(name)
                written.append(os.path.join(outdir, name))
    if grid_path:
        fig = grid_figure(plt, np, aprof_fit, routines, kinds, fits_of, style, size, args.dpi)
        apl.save_figure(fig, grid_path, grid_fmt, args.dpi)
        written.append(grid_path)
    summary = os.path.join(outdir, SUMMARY)
    output.write_text(summary, summary_text(profile, routines, fits_of, files_of, aprof_fit,
                                            selection.account()))
    written.append(summary)
    stale = apl.replace_manifest(outdir, written)
    if not args.quiet:
        print(f"{cli.program_name()}: {selection.account()}", file=sys.stderr)
        if stale:
            print(f"{cli.program_name()}: removed {len(stale)} file(s) of an earlier run: "
                  f"{', '.join(stale)}", file=sys.stderr)
        for path in written:
            print(path)
    return 0
