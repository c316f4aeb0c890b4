# SPDX-License-Identifier: GPL-2.0-or-later
# The producer-to-consumer graph of a report drawn as a picture (PNG, SVG or
# PDF with matplotlib): nodes, edge widths and where the reads labels go.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Drawing of sources.Graph: draw_graph() makes the picture of
`producers.py --graph`; edge_width and label_spots (and the Graph's own
node_label and colour) are shared with the HTML report's SVG
(html_graph.py), so both draw the same graph the same way."""
import math
import textwrap
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import names
from . import plotting
from . import report as aprof_report
from .sources import Node, graph_of

__all__ = ["edge_width", "LABEL_SPOTS", "label_spots", "subtitle", "draw_graph"]


def edge_width(reads: int, heaviest: int) -> float:
    """An edge's line width (points): from 0.5 to 5.5, growing with log(reads)."""
    return 0.5 + 5 * math.log1p(reads) / math.log1p(heaviest)


LABEL_SPOTS = (0.5, 0.38, 0.62, 0.27, 0.73)  # where along an edge its reads label may go


def label_spots(edges: Sequence[Tuple[Node, Node, int]],
                point_at: Callable[[Node, Node, float], Tuple[float, float]],
                room: Tuple[float, float]) -> List[Optional[Tuple[float, float]]]:
    """Per edge (heaviest first), where its reads label goes: the first spot
    of LABEL_SPOTS along the edge (point_at(producer, consumer, t) -> (x, y))
    whose label, `room` = (width, height) around it, overlaps none placed
    before; None when every spot would (the heavier edges keep theirs)."""
    placed: List[Tuple[float, float]] = []
    spots: List[Optional[Tuple[float, float]]] = []
    w, h = room
    for p, c, _ in edges:
        spot = None
        for t in LABEL_SPOTS:
            x, y = point_at(p, c, t)
            if all(abs(x - px) >= w or abs(y - py) >= h for px, py in placed):
                spot = (x, y)
                placed.append(spot)
                break
        spots.append(spot)
    return spots


def subtitle(command: str, width: int, lines: int = 3) -> str:
    """The command line wrapped at `width` characters between words, at
    most `lines` lines ('…' after the last word that fits)."""
    return "\n".join(textwrap.wrap(command, width, max_lines=lines, placeholder=" …",
                                   break_long_words=False, break_on_hyphens=False))


def draw_graph(rep: aprof_report.Report, path: str, fmt: str, limit: int,
               size: Tuple[int, int], dpi: int, merge_threads: bool = True) -> None:
    """Producers on the left, consumers on the right, one colour per thread
    group (grey: system calls); an edge's width grows with log(reads), its
    reads are written on it where the label has room (label_spots)."""
    plt = plotting.pyplot()
    graph = graph_of(rep, limit, merge_threads)
    if not graph.edges:
        raise aprof_report.ReportError(rep.path, 1, "no thread-source or kernel-source "
                                       "record: run the program with --input-sources=yes")

    def place(nodes: List[Node]) -> Dict[Node, float]:
        return {n: 1 - (i + 0.5) / len(nodes) for i, n in enumerate(nodes)}

    y_p, y_c = place(graph.producers), place(graph.consumers)
    fig = plt.figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
    command = names.printable(" ".join(rep.header.command))
    # A 10-point character is about 0.6 em wide: the line's characters at this size.
    title = (f"Induced reads, producer -> consumer ({len(graph.edges)} heaviest edges)\n"
             + subtitle(command, int(size[0] / (0.6 * 10 * dpi / 72))))
    fig.suptitle(title, fontsize=10)
    # Below the title's lines (about 15 pixels each at 100 dpi) and the column heads.
    top = 1 - (12 + (15 * title.count("\n") + 15 + 26) * dpi / 100) / size[1]
    ax = fig.add_axes((0, 0, 1, top))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    heaviest = graph.edges[0][2]
    x0, x1 = 0.33, 0.67   # where the edges start and end (axes fraction)

    def point_at(p: Node, c: Node, t: float) -> Tuple[float, float]:
        return x0 + (x1 - x0) * t, y_p[p] + (y_c[c] - y_p[p]) * t

    # A 7-point label such as "1,048,576": about 50 x 13 pixels, in axes fractions.
    room = (50 / size[0], 13 / (size[1] * top))
    for (p, c, reads), spot in zip(graph.edges, label_spots(graph.edges, point_at, room)):
        ax.plot([x0, x1], [y_p[p], y_c[c]], color=graph.colour(p), alpha=0.55,
                linewidth=edge_width(reads, heaviest), solid_capstyle="round")
        if spot:
            ax.text(spot[0], spot[1], f"{reads:,}", fontsize=7, ha="center", va="center", color="0.2",
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.7))
    for node, y in y_p.items():
        ax.text(0.32, y, graph.node_label(node), ha="right", va="center", fontsize=8,
                color=graph.colour(node))
    for node, y in y_c.items():
        ax.text(0.68, y, graph.node_label(node), ha="left", va="center", fontsize=8,
                color=graph.colour(node))
    ax.text(0.32, 1.0, "producers", ha="right", va="bottom", fontsize=9, weight="bold")
    ax.text(0.68, 1.0, "consumers", ha="left", va="bottom", fontsize=9, weight="bold")
    plotting.save_figure(fig, path, fmt, dpi)

