# SPDX-License-Identifier: GPL-2.0-or-later
"""Program-level charts of aprof-trms reports (section 6 of "Multithreaded
Input-Sensitive Profiling": Figures 9 and 15 to 19).

  induced-by-routine  (Figure 9) for the top routines with induced input,
                      sorted by the share of their TRMS that is induced (first
                      reads of values written by another thread or by the
                      kernel since the thread last touched the cell): stacked
                      bars of the thread-induced and the external part, in %
                      of the routine's sum of TRMS
  richness            (Figure 15) profile richness (|TRMS_r| - |RMS_r|) / |RMS_r|
                      (|X_r| = number of distinct input sizes of routine r): a
                      point (x, y) means "x% of the routines have richness >= y"
  input-volume        (Figure 16) input volume 1 - sum(RMS_r) / sum(TRMS_r) over
                      the activations of each routine, same reading
  induced-split       (Figure 17) the program-wide split of induced reads into
                      thread-induced and external, each induced read counted
                      once (see below)
  induced-share       (Figures 18, 19) per routine, the % of its induced reads
                      that are thread-induced (left) and external (right):
                      "x% of the routines have at least y% ..."; routines
                      without induced reads count as 0%

The selection options of aprof_trms/select.py (--object, --exclude-object,
--hide-libc, -r, -e, --min-share) restrict the per-routine charts to the
routines they leave; the program-wide split (induced-split) counts every read.

Counting each induced read once (Figure 17). A report's per-routine sums of
induced reads include the reads of the routine's descendants: an induced
read is new input for every activation pending in its thread, so summing
over routines counts it once per pending routine (that is what Figure 9 and
Figures 18-19 show, per routine). For the program-wide split this script
takes, in each thread of each report, the thread's root routine: the routine
with the most induced reads in that thread among those never active twice at
once in it (a recursive routine's sums count nested activations twice; a
routine is recursive in a thread when the sum of the costs of its
activations exceeds its cumulative cost of outermost activations). Its
activations are disjoint in time, so each read is counted at most once, and
it is exact when the root's cumulative cost is the whole cost of the thread
("coverage" 100%: every other activation of the thread is then nested in
it). Reads done while no routine was pending are in no report. charts.txt
lists every thread's root and coverage, and the naive sum over routines for
comparison.

All reports are merged into one program unless --per-report is given: then
each argument is one program (one curve or bar each; a directory stands for
all the aprof-trms.out.* reports in it, e.g. the processes of one run).

Run with /usr/bin/python3 (Debian's python3-matplotlib). Exit status: 0
done, 1 error (a bad report, with FILE:LINE; an output directory that cannot
be written; an unknown format), 2 bad usage.
"""
import argparse
import collections
import functools
import os
from typing import Dict, List, Optional, Sequence, Tuple

from . import cli, output
from . import plotting as apl
from . import profile as aprof_profile
from . import report as aprof_report
from . import select
from .names import printable
from .programs import (Program, RootSums, ThreadRoot, add_root_sums, program_from, thread_roots,
                       top_induced)

DEFAULT_TOP = 30
DEFAULT_SIZE = "1000x500"
SUMMARY = "charts.txt"
CHARTS = ("induced-by-routine", "richness", "input-volume", "induced-split", "induced-share")
COVERAGE_WARNING = 0.99

EPILOG = """\
files written in OUTDIR:
  induced-by-routine.FMT  thread-induced and external reads in % of each routine's
                          TRMS, top routines by induced share (Figure 9)
  richness.FMT            x% of routines have (|TRMS|-|RMS|)/|RMS| >= y (Figure 15)
  input-volume.FMT        x% of routines have 1 - sum(RMS)/sum(TRMS) >= y (Figure 16)
  induced-split.FMT       program-wide thread-induced vs external share of induced
                          reads, each read counted once (Figure 17)
  induced-share.FMT       x% of routines have >= y% of their induced reads from
                          threads / from the kernel (Figures 18, 19)
  charts.txt              the numbers, with each thread's root routine (the
                          program-wide count; see the module docstring)

examples:
  charts.py aprof-trms.out.4242 -o charts
  charts.py --per-report mysql/ vips/ dedup/ -o charts --format svg

exit status: 0 done, 1 error (message on stderr: a malformed report is named
with FILE:LINE), 2 bad usage.
"""


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = cli.argument_parser(
        description="Program-level charts of aprof-trms reports (the paper's Figures 9, 15-19),\n"
                    "plus charts.txt with their numbers.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="REPORT_OR_DIR",
                   help="aprof-trms reports or directories of aprof-trms.out.* reports")
    p.add_argument("-o", "--output-dir", required=True, metavar="OUTDIR",
                   help="directory for the charts and charts.txt (created if missing)")
    p.add_argument("--per-report", action="store_true",
                   help="one program (curve, bar, panel) per argument instead of merging all")
    p.add_argument("-n", "--top", type=int, default=DEFAULT_TOP, metavar="N",
                   help=f"routines in the induced-input bar chart (default {DEFAULT_TOP})")
    p.add_argument("--log-x", action="store_true",
                   help="logarithmic '%% of routines' axis in the curves (they often fall "
                        "within the first few %%)")
    select.add_selection_arguments(p, default_choice=False, limit=False)
    apl.add_output_options(p, "a chart", DEFAULT_SIZE)
    args = p.parse_args(argv)
    if args.top < 1:
        p.error("--top must be at least 1")
    apl.check_output_options(p, args)
    return args


# ---------------------------------------------------------------------------
# Numbers.
# ---------------------------------------------------------------------------

def _load(inputs: Sequence[str], digests: Optional[Dict[str, str]] = None) \
        -> Tuple[aprof_profile.Profile, List[ThreadRoot]]:
    """The profile of the reports and their thread roots, each report read
    once and never held whole (its trms records only summed per thread and
    routine on the way). digests: those of reports read before, for
    aprof_profile.check_distinct (a report is refused when read again)."""
    roots: List[ThreadRoot] = []
    sums: RootSums = {}

    def report_read(rep: aprof_report.Report) -> None:
        if digests is not None:
            aprof_profile.check_distinct(digests, rep)
        roots.extend(thread_roots(rep, sums))
        sums.clear()

    return aprof_profile.load_profile(inputs, functools.partial(add_root_sums, sums),
                                     report_read), roots


def _command_name(command: Tuple[str, ...]) -> str:
    return os.path.basename(command[0]) if command else "?"


def load_programs(inputs: Sequence[str], per_report: bool,
                  selection_args: argparse.Namespace) -> List[Program]:
    if not per_report:
        profile, roots = _load(inputs)
        names = sorted({_command_name(c) for c in profile.commands})
        return [program_from(", ".join(names), profile, roots, selection_args)]
    # One report in two groups (the same file, a copy, a directory holding
    # it) is refused as in a merge: the program would be shown twice.
    digests: Dict[str, str] = {}
    groups = [(arg, _load([arg], digests)) for arg in inputs]
    labels = [_command_name(profile.commands[0]) for _, (profile, _) in groups]
    counts = collections.Counter(labels)
    programs = []
    for (arg, (profile, roots)), label in zip(groups, labels):
        if counts[label] > 1:
            label = f"{label} [{os.path.basename(os.path.normpath(arg))}]"
        programs.append(program_from(label, profile, roots, selection_args))
    return programs


def curve(values: Sequence[float]):
    """x (% of routines, 0..100) and y of the curve "x% of the routines have a
    value >= y" (values sorted in decreasing order, as steps)."""
    ys = sorted(values, reverse=True)
    n = len(ys)
    xs = [0.0] + [100.0 * (i + 1) / n for i in range(n)]
    return xs, [ys[0]] + ys if ys else [0.0]


# ---------------------------------------------------------------------------
# Drawing.
# ---------------------------------------------------------------------------

THREAD_COLOR, EXTERNAL_COLOR = "tab:blue", "tab:orange"


def draw_induced_by_routine(plt, programs, top, size, dpi):
    rows = len(programs)
    most = max(1, max(len(top_induced(p, top)[0]) for p in programs))
    width = max(size[0], 260 + 28 * most)
    fig, axes = plt.subplots(rows, 1, squeeze=False, dpi=dpi,
                             figsize=(width / dpi, size[1] * max(1, rows) ** 0.9 / dpi))
    for ax, program in zip(axes[:, 0], programs):
        chosen, count = top_induced(program, top)
        if not chosen:
            ax.text(0.5, 0.5, "no routine has induced input", transform=ax.transAxes,
                    ha="center", va="center")
            ax.set_xticks([])
        else:
            xs = range(len(chosen))
            thread = [apl.percent(r.thread_induced, r.sum_trms) for r in chosen]
            external = [apl.percent(r.external, r.sum_trms) for r in chosen]
            ax.bar(xs, thread, color=THREAD_COLOR, label="thread-induced")
            ax.bar(xs, external, bottom=thread, color=EXTERNAL_COLOR, label="external")
            ax.set_xticks(list(xs))
            ax.set_xticklabels([apl.tex_escape(apl.short_name(r.name, 32)) for r in chosen],
                               rotation=60, ha="right", fontsize="small")
            ax.set_xlim(-0.6, max(len(chosen), 8) - 0.4)   # few bars stay narrow
            ax.legend(fontsize="small", loc="upper right")
        ax.set_ylim(0, 100)
        ax.set_ylabel("induced first reads\n(% of the routine's TRMS)")
        ax.grid(True, axis="y", alpha=0.3)
        if count == 0:
            shown = "no routine with induced input"
        elif count > len(chosen):
            shown = f"top {len(chosen)} of {count} routines with induced input"
        else:
            shown = f"all {count} routine{'s' if count > 1 else ''} with induced input"
        ax.set_title(apl.tex_escape(f"{program.label}: thread-induced vs external input per "
                                    f"routine ({shown})"), fontsize="medium")
    fig.tight_layout()
    return fig


def _x_axis(ax, programs, log_x: bool) -> None:
    if log_x:
        smallest = min((100.0 / len(p.routines) for p in programs if p.routines), default=1.0)
        ax.set_xscale("log")
        ax.set_xlim(smallest * 0.8, 100)
        ax.xaxis.set_major_formatter(_plt().FuncFormatter(lambda v, _: f"{v:g}"))
    else:
        ax.set_xlim(0, 100)
    ax.set_xlabel("% of routines")


def _plt():
    import matplotlib.pyplot as plt
    return plt


def _curves(plt, programs, size, dpi, log_x, value, ylabel, title, yscale=None, ylim=None):
    fig, ax = plt.subplots(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
    for program in programs:
        xs, ys = curve([value(r) for r in program.routines])
        ax.step(xs, ys, where="pre", lw=1.5,
                label=apl.tex_escape(f"{program.label} ({len(program.routines)} routines)"))
    if yscale == "symlog":
        # Richness is -1..0 when RMS has more points, up to 10^6 and more
        # when TRMS has: linear within [-1, 1], logarithmic beyond.
        ax.set_yscale("symlog", linthresh=1.0, linscale=1.0)
        values = [value(r) for p in programs for r in p.routines] or [0.0]
        top = max(1.0, max(values))
        ticks = [-1.0, -0.5, 0.0, 0.5, 1.0] + [m * 10.0 ** e for e in range(0, 13)
                                                for m in (2, 5, 10) if m * 10.0 ** e <= top * 1.3]
        ticks = [t for t in ticks if t >= min(0.0, min(values)) - 1e-9]
        ax.set_yticks(ticks)
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_locator(plt.NullLocator())
        ax.set_ylim(min(0.0, min(values)) - 0.1, top * 1.3)
    if ylim:
        ax.set_ylim(*ylim)
    _x_axis(ax, programs, log_x)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def draw_richness(plt, programs, size, dpi, log_x):
    return _curves(plt, programs, size, dpi, log_x, lambda r: r.richness,
                   "profile richness (|TRMS| - |RMS|) / |RMS|",
                   "Profile richness: x% of the routines have richness >= y", yscale="symlog")


def draw_volume(plt, programs, size, dpi, log_x):
    return _curves(plt, programs, size, dpi, log_x, lambda r: r.volume,
                   "input volume 1 - ΣRMS / ΣTRMS",
                   "Input volume: x% of the routines have input volume >= y", ylim=(0, 1.02))


def draw_split(plt, programs, size, dpi):
    order = sorted(programs, key=lambda p: -apl.percent(p.thread_induced,
                                                        p.thread_induced + p.external))
    width = max(size[0] * 0.6, 300 + 90 * len(order))
    fig, ax = plt.subplots(figsize=(width / dpi, size[1] / dpi), dpi=dpi)
    xs = list(range(len(order)))
    thread = [apl.percent(p.thread_induced, p.thread_induced + p.external) for p in order]
    external = [apl.percent(p.external, p.thread_induced + p.external) for p in order]
    ax.bar(xs, thread, color=THREAD_COLOR, label="thread-induced", width=0.6)
    ax.bar(xs, external, bottom=thread, color=EXTERNAL_COLOR, label="external", width=0.6)
    for x, p, t, e in zip(xs, order, thread, external):
        total = p.thread_induced + p.external
        if total == 0:
            ax.text(x, 50, "no induced\nreads", ha="center", va="center", fontsize="small")
            continue
        if t >= 6:
            ax.text(x, t / 2, f"{t:.1f}%", ha="center", va="center", color="white",
                    fontsize="small")
        if e >= 6:
            ax.text(x, t + e / 2, f"{e:.1f}%", ha="center", va="center", fontsize="small")
    ax.set_xticks(xs)
    ax.set_xticklabels([apl.tex_escape(p.label) for p in order],
                       rotation=30 if len(order) > 3 else 0,
                       ha="right" if len(order) > 3 else "center")
    ax.set_xlim(-0.7, len(order) - 0.3)
    ax.set_ylim(0, 100)
    ax.set_ylabel("% of all induced first reads\n(each counted once)")
    ax.set_title("Program-wide: thread-induced vs external input", fontsize="medium")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def draw_shares(plt, programs, size, dpi, log_x):
    fig, axes = plt.subplots(1, 2, figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi, sharey=True)
    parts = (("thread-induced", lambda r: apl.percent(r.thread_induced, r.induced)),
             ("external", lambda r: apl.percent(r.external, r.induced)))
    for ax, (what, value) in zip(axes, parts):
        for program in programs:
            xs, ys = curve([value(r) for r in program.routines])
            ax.step(xs, ys, where="pre", lw=1.5, label=apl.tex_escape(program.label))
        _x_axis(ax, programs, log_x)
        ax.set_ylim(0, 102)
        ax.set_title(f"{what} input on a routine basis", fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    axes[0].set_ylabel("% of the routine's induced first reads")
    fig.suptitle("x% of the routines have at least y% of their induced reads from ...",
                 fontsize="medium")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------
# Text.
# ---------------------------------------------------------------------------

def summary_text(programs: List[Program], top: int) -> str:
    out = ["aprof-trms program charts (charts.py)", ""]
    for p in programs:
        n = len(p.routines)
        induced = p.thread_induced + p.external
        rich = [r.richness for r in p.routines]
        vol = [r.volume for r in p.routines]
        naive_t = sum(r.thread_induced for r in p.routines)
        naive_e = sum(r.external for r in p.routines)
        out += [f"== {p.label} ==",
                f"reports:           {', '.join(p.paths)}",
                f"routines:          {n}",
                f"with induced input: {sum(1 for r in p.routines if r.induced)}",
                f"richness:          > 0 for {sum(1 for x in rich if x > 0)}, < 0 for "
                f"{sum(1 for x in rich if x < 0)}, max {max(rich) if rich else 0:.2f}",
                f"input volume:      > 0 for {sum(1 for x in vol if x > 0)}, >= 0.5 for "
                f"{sum(1 for x in vol if x >= 0.5)}, max {max(vol) if vol else 0:.4f}",
                f"program-wide induced reads (each counted once, per-thread roots): {induced}",
                f"  thread-induced:  {p.thread_induced} ({apl.percent(p.thread_induced, induced):.2f}%)",
                f"  external:        {p.external} ({apl.percent(p.external, induced):.2f}%)",
                f"  naive sum over routines (counts a read once per pending routine): "
                f"thread-induced {naive_t}, external {naive_e} "
                f"({apl.percent(naive_t, naive_t + naive_e):.2f}% thread-induced)",
                "  per thread (report, thread serial, root routine, coverage = root's "
                "cumulative cost / thread's cost, thread-induced, external):"]
        for r in p.roots:
            warn = "" if r.root is None or r.coverage >= COVERAGE_WARNING else \
                "   (partial: reads outside the root are not counted)"
            out.append(f"    {r.report}  thread {r.thread}  "
                       f"{r.root if r.root is not None else '(no routine)'}  "
                       f"{100 * r.coverage:.2f}%  {r.thread_induced}  {r.external}{warn}")
        chosen, count = top_induced(p, top)
        out.append(f"routines with the largest induced share of their TRMS "
                   f"({len(chosen)} of {count}):")
        out.append(f"    {'induced %':>9}  {'thread %':>8}  {'ext %':>6}  {'induced':>9}  "
                   f"{'sum TRMS':>10}  {'|TRMS|':>6}  {'|RMS|':>6}  routine")
        for r in chosen:
            out.append(f"    {r.induced_share:>9.2f}  {apl.percent(r.thread_induced, r.sum_trms):>8.2f}  "
                       f"{apl.percent(r.external, r.sum_trms):>6.2f}  {r.induced:>9}  "
                       f"{r.sum_trms:>10}  {r.distinct_trms:>6}  {r.distinct_rms:>6}  {printable(r.name)}")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------

def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    fmt = apl.check_format(args.format)
    size = apl.parse_size(args.size)
    programs = load_programs(args.inputs, args.per_report, args)
    plt = apl.pyplot()
    outdir = apl.prepare_outdir(args.output_dir)
    drawers = {
        "induced-by-routine": lambda: draw_induced_by_routine(plt, programs, args.top, size, args.dpi),
        "richness": lambda: draw_richness(plt, programs, size, args.dpi, args.log_x),
        "input-volume": lambda: draw_volume(plt, programs, size, args.dpi, args.log_x),
        "induced-split": lambda: draw_split(plt, programs, size, args.dpi),
        "induced-share": lambda: draw_shares(plt, programs, size, args.dpi, args.log_x),
    }
    written = []
    for name in CHARTS:
        path = os.path.join(outdir, f"{name}.{fmt}")
        apl.save_figure(drawers[name](), path, fmt, args.dpi)
        written.append(path)
    summary = os.path.join(outdir, SUMMARY)
    output.write_text(summary, summary_text(programs, args.top))
    written.append(summary)
    if not args.quiet:
        for path in written:
            print(path)
    return 0
