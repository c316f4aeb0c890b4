# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the pictures plot.py draws (issue 10, item 7): tick labels that
# never overlap, points above the fit line, lone points visible, one panel
# when TRMS equals RMS, --size honoured by the grid, no stale pictures.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Checks on the figures themselves (matplotlib's renderer gives the
bounding boxes of the tick labels) and on the files of an output directory."""
import math
import os
import subprocess
import sys

import pytest

import synthetic
from aprof_trms import fit as aprof_fit  # noqa: E402
from aprof_trms import plot as aprof_plot  # noqa: E402
from aprof_trms import plotting as apl  # noqa: E402
from aprof_trms import profile as aprof_profile  # noqa: E402

PLOT = os.path.join(synthetic.SCRIPTS, "plot.py")


def routine_of(tmp_path, routine):
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", [routine])
    return aprof_profile.load_profile([path]).find(routine.name)[0]


def figure(routine, kind="cost", log=False, size=(1000, 480), dpi=100):
    import numpy as np
    plt = apl.pyplot()
    style = aprof_plot.Style(log, log, "bb", 4)
    fits = {m: aprof_fit.fit_of(routine, m) for m in aprof_plot.METRICS}
    return plt, aprof_plot.routine_figure(plt, np, aprof_fit, routine, kind, fits, style, size, dpi)


def visible_tick_labels(axis):
    """The texts of an axis's visible, non-empty tick labels."""
    return [t.label1.get_text() for t in axis.get_major_ticks() + axis.get_minor_ticks()
            if t.label1.get_visible() and t.label1.get_text()]


def tick_labels_overlap(fig):
    """The first pair of visible tick labels of one axis whose boxes overlap."""
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks = axis.get_major_ticks() + axis.get_minor_ticks()
            boxes = sorted(((t.label1.get_window_extent(renderer), t.label1.get_text())
                            for t in ticks if t.label1.get_visible() and t.label1.get_text()),
                           key=lambda b: (b[0].x0, b[0].y0))
            for i, (a, ta) in enumerate(boxes):
                for b, tb in boxes[i + 1:]:
                    if a.overlaps(b):
                        return ta, tb
    return None


LARGE = synthetic.Routine("large", lambda n: 1000 + 40 * n * n, [10**6 + 7919 * i for i in range(40)],
                          rms=lambda n: n // 3)
SPAN = synthetic.Routine("span", lambda n: 50 + 3 * n, synthetic.sizes(30, first=30, ratio=1.12),
                         rms=lambda n: n // 2)


@pytest.mark.parametrize("routine", [LARGE, SPAN], ids=["large-sizes", "two-decades"])
@pytest.mark.parametrize("log", [False, True], ids=["linear", "log"])
@pytest.mark.parametrize("size", [(1000, 480), (420, 260)], ids=["default", "small"])
def test_tick_labels_never_overlap(tmp_path, routine, log, size):
    plt, fig = figure(routine_of(tmp_path, routine), log=log, size=size)
    assert tick_labels_overlap(fig) is None
    # Not by leaving the axes without numbers: each keeps some, at least two
    # at the default size (at 420x260 a panel is a few pixels wide).
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = visible_tick_labels(axis)
            assert len(labels) >= (2 if size == (1000, 480) else 1), (ax.get_title(), labels)
    plt.close(fig)


def test_the_fit_line_spans_the_sizes_it_was_fitted_on(tmp_path):
    """An interpreter's sorts of strings (costly, up to 3,765 cells) and of
    integers (cheap, on to 37,000): the string sorts are fitted, and their
    curve stops at their largest size, not under the integer sorts."""
    ints = synthetic.sizes(40, first=30, ratio=1.2)
    strings = set(s + 7 for s in synthetic.sizes(14, first=30, ratio=1.45))
    cost = lambda n: (14.0 if n in strings else 4.0) * n * math.log2(n + 1) + 40  # noqa: E731
    r = routine_of(tmp_path, synthetic.Routine("sorts", cost, sorted(set(ints) | strings)))
    result = aprof_fit.fit_of(r, "trms").result
    assert result.two_populations and max(result.sizes) == max(strings)
    for log in (False, True):
        plt, fig = figure(r, log=log)
        (curve,) = [line for line in fig.axes[0].get_lines() if line.get_linestyle() == "-"]
        assert max(curve.get_xdata()) == pytest.approx(max(strings))
        assert min(curve.get_xdata()) == pytest.approx(min(result.sizes))
        plt.close(fig)


def test_compact_numbers():
    assert [apl.compact_number(v) for v in (0, 950, 1500, 20000, 3e6, 1.25e9, 0.5)] == \
        ["0", "950", "1.5k", "20k", "3M", "1.25G", "0.5"]


def test_points_above_the_fit_line_and_lone_point_visible(tmp_path):
    r = routine_of(tmp_path, synthetic.Routine("one", lambda n: 1e6, [10, 20, 30, 40, 50],
                                               rms=lambda n: 8))
    plt, fig = figure(r)
    trms, rms = fig.axes
    points = [line for line in trms.get_lines() if line.get_marker() == "o"]
    curves = [line for line in trms.get_lines() if line.get_linestyle() == "-"]
    assert points and curves
    assert min(p.get_zorder() for p in points) > max(c.get_zorder() for c in curves)
    # The lone RMS point: drawn, large, and no box over it (the reason is in the legend).
    (lone,) = [line for line in rms.get_lines() if line.get_marker() == "o"]
    assert list(lone.get_xdata()) == [8] and lone.get_markersize() >= 5
    assert not rms.texts
    renderer = fig.canvas.get_renderer()
    x, y = rms.transData.transform((8, 1e6))
    assert not rms.get_legend().get_window_extent(renderer).contains(x, y)
    assert any("no fit: only 1 distinct size" in t.get_text() for t in rms.get_legend().get_texts())
    plt.close(fig)


def test_fit_notes_wrapped_whole_in_the_legend(tmp_path):
    # Every fifth size takes a path 10x cheaper: the fit leaves those points
    # out and says so in a note longer than a legend line.
    cheap = synthetic.Routine("cheap", lambda n: n * n / (10 if n % 5 == 0 else 1), range(20, 80),
                              rms=lambda n: n)
    r = routine_of(tmp_path, cheap)
    note = next(n for n in aprof_fit.fit_of(r, "trms").result.notes
                if n.startswith("fitted on the upper envelope"))
    assert len(note) > aprof_plot.LEGEND_NOTE_WIDTH
    plt, fig = figure(r)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    shown = next(t for t in labels if t.startswith("fitted on the upper envelope"))
    assert " ".join(shown.split()) == note
    assert all(len(line) <= aprof_plot.LEGEND_NOTE_WIDTH for line in shown.splitlines())
    plt.close(fig)


def test_one_panel_when_trms_equals_rms_everywhere(tmp_path):
    same = routine_of(tmp_path, synthetic.Routine("same", lambda n: 3 * n, synthetic.sizes(8)))
    assert aprof_plot.same_sizes(same)
    plt, fig = figure(same)
    assert len(fig.axes) == 1
    assert "TRMS = RMS on every activation" in fig.axes[0].get_title()
    plt.close(fig)
    (tmp_path / "b").mkdir()
    differ = routine_of(tmp_path / "b", synthetic.Routine("differ", lambda n: 3 * n, synthetic.sizes(8),
                                                          rms=lambda n: n - 1))
    assert not aprof_plot.same_sizes(differ)
    plt, fig = figure(differ)
    assert len(fig.axes) == 2
    plt.close(fig)


def run_plot(*args):
    return subprocess.run([sys.executable, PLOT, *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def test_grid_honours_size(tmp_path):
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", [
        synthetic.Routine("a", lambda n: 3 * n, synthetic.sizes(8)),
        synthetic.Routine("b", lambda n: n * n, synthetic.sizes(8))])
    from matplotlib import image
    for size, expected in (("500x200", (400, 1000)), ("800x300", (600, 1600))):
        out = tmp_path / size
        proc = run_plot(path, "-o", out, "--grid-only", "--size", size, "--dpi", "50")
        assert proc.returncode == 0, proc.stderr
        height, width = image.imread(out / "grid.png").shape[:2]
        assert (height, width) == expected   # two routines, cost + workload per row


def test_no_stale_pictures_of_an_earlier_run(tmp_path):
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", [
        synthetic.Routine("alpha", lambda n: 3 * n, synthetic.sizes(8)),
        synthetic.Routine("beta", lambda n: n * n, synthetic.sizes(8))])
    out = tmp_path / "plots"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert run_plot(path, "-o", out, "-r", "alpha", "--size", "300x200", "--dpi", "50").returncode == 0
    assert {"alpha-cost.png", "alpha-workload.png", "summary.txt"} <= set(os.listdir(out))
    proc = run_plot(path, "-o", out, "-r", "beta", "--size", "300x200", "--dpi", "50")
    assert proc.returncode == 0, proc.stderr
    assert sorted(f for f in os.listdir(out) if not f.startswith(".")) == \
        ["beta-cost.png", "beta-workload.png", "notes.txt", "summary.txt"]
    assert "removed 2 file(s) of an earlier run: alpha-cost.png, alpha-workload.png" in proc.stderr


def test_short_names_in_titles(tmp_path):
    name = "std::vector<int, std::allocator<int> >::push_back(int const&)"
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", [
        synthetic.Routine(name, lambda n: 3 * n, synthetic.sizes(8))])
    for option, title in (([], "std::vector&lt;int, std::allocator&lt;int&gt; &gt;::push_back"),
                          (["--short-names"], "std::vector&lt;…&gt;::push_back(…): worst-case cost")):
        out = tmp_path / ("short" if option else "full")
        proc = run_plot(path, "-o", out, "--format", "svg", *option)
        assert proc.returncode == 0, proc.stderr
        (svg,) = [f for f in os.listdir(out) if f.endswith("-cost.svg")]
        assert title in (out / svg).read_text(encoding="utf-8")
