# SPDX-License-Identifier: GPL-2.0-or-later
# The producer-to-consumer graph of a report drawn as a picture (PNG, SVG or
# PDF with matplotlib): nodes, edge widths and where the reads labels go.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Drawing of sources.Graph: draw_graph() makes the picture of
`producers.py --graph`; node_label, edge_width and label_spots are shared
with the HTML report's SVG (html_graph.py), so both draw the same graph the
same way."""
import math
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import names
from . import plotting
from . import report as aprof_report
from .sources import Node, graph_of

__all__ = ["node_label", "edge_width", "LABEL_SPOTS", "label_spots", "draw_graph"]


def node_label(node: Node, width: Optional[int] = 38) -> str:
    """'T<serial> routine' or 'syscall name', the name shortened to about
    `width` characters as names.short_name does (None: whole)."""
    kind, serial, name = node
    short = names.printable(name) if width is None else names.short_name(name, width)
    return f"syscall {short}" if kind == "kernel" else f"T{serial} {short}"


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


def draw_graph(rep: aprof_report.Report, path: str, fmt: str, limit: int,
               size: Tuple[int, int], dpi: int) -> None:
    """Producers on the left, consumers on the right, one colour per thread
    (grey: system calls); an edge's width grows with log(reads), its reads
    are written on it where the label has room (label_spots)."""
    plt = plotting.pyplot()
    graph = graph_of(rep, limit)
    if not graph.edges:
        raise aprof_report.ReportError(rep.path, 1, "no thread-source or kernel-source "
                                       "record: run the program with --input-sources=yes")

    def place(nodes: List[Node]) -> Dict[Node, float]:
        return {n: 1 - (i + 0.5) / len(nodes) for i, n in enumerate(nodes)}

    y_p, y_c = place(graph.producers), place(graph.consumers)
    fig = plt.figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 0.93))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    heaviest = graph.edges[0][2]
    x0, x1 = 0.33, 0.67   # where the edges start and end (axes fraction)

    def point_at(p: Node, c: Node, t: float) -> Tuple[float, float]:
        return x0 + (x1 - x0) * t, y_p[p] + (y_c[c] - y_p[p]) * t

    # A 7-point label such as "1,048,576": about 50 x 13 pixels, in axes fractions.
    room = (50 / size[0], 13 / (size[1] * 0.93))
    for (p, c, reads), spot in zip(graph.edges, label_spots(graph.edges, point_at, room)):
        ax.plot([x0, x1], [y_p[p], y_c[c]], color=graph.colour(p), alpha=0.55,
                linewidth=edge_width(reads, heaviest), solid_capstyle="round")
        if spot:
            ax.text(spot[0], spot[1], f"{reads:,}", fontsize=7, ha="center", va="center", color="0.2",
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.7))
    for node, y in y_p.items():
        ax.text(0.32, y, node_label(node), ha="right", va="center", fontsize=8,
                color=graph.colour(node))
    for node, y in y_c.items():
        ax.text(0.68, y, node_label(node), ha="left", va="center", fontsize=8,
                color=graph.colour(node))
    ax.text(0.32, 1.0, "producers", ha="right", va="bottom", fontsize=9, weight="bold")
    ax.text(0.68, 1.0, "consumers", ha="left", va="bottom", fontsize=9, weight="bold")
    command = names.printable(" ".join(rep.header.command))
    fig.suptitle(f"Induced reads, producer -> consumer ({len(graph.edges)} heaviest edges)\n"
                 f"{command[:90]}", fontsize=10)
    plotting.save_figure(fig, path, fmt, dpi)
