# SPDX-License-Identifier: GPL-2.0-or-later
# The HTML report's producer-to-consumer graph (reports of
# --input-sources=yes runs): producers.py's graph as inline SVG, with the
# edges as a table.
#
# Copyright (C) 2026, the aprof-trms authors.
"""The "Input sources" section of the HTML report (html.py).

For every report with source records (docs/report-format.md, thread-source
and kernel-source), the graph that `producers.py --graph` draws
(sources.graph_of: the heaviest edges, nodes ordered by reads, one colour
per thread): producers on the left (a thread's routine, `T<serial> name`, or
`syscall name`), consumers on the right, one curve per edge whose width grows
with log(reads), labelled with its reads where the label has room (every
edge's reads are in its tooltip and in the table below the picture). A line
says how many edges and reads the cut left out. The SVG is written here, not
drawn by report.js: the page stays one file and works without the script.

    section_html(reports, edges=30) -> str   # "" when no report has sources
"""
import html
from typing import Dict, List, Sequence, Tuple

from . import report as aprof_report
from . import sources
from .sources_graph import edge_width, label_spots

__all__ = ["DEFAULT_EDGES", "MAX_GRAPHS", "section_html", "graph_svg"]

DEFAULT_EDGES = sources.DEFAULT_EDGES
MAX_GRAPHS = 4       # reports drawn (processes of a fork each have one)

# Geometry of the SVG (pixels).
WIDTH = 1180
LABEL_WIDTH = 46                 # characters of a node's name in the picture
TABLE_LABEL_WIDTH = 90           # and in the table
PRODUCER_X, CONSUMER_X = 400, 780  # where the edges start and end
ROW = 22                          # between two nodes of a column
TOP, BOTTOM = 34, 12
EDGE_LABEL = (64, 14)             # room a reads label needs (width, height)


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _place(nodes: List[sources.Node], height: int) -> Dict[sources.Node, float]:
    """Nodes spread evenly over the column, heaviest at the top."""
    step = (height - TOP - BOTTOM) / max(len(nodes), 1)
    return {n: TOP + (i + 0.5) * step for i, n in enumerate(nodes)}


def _point(t: float, y0: float, y1: float) -> Tuple[float, float]:
    """The point at t of the edge's cubic curve from (PRODUCER_X, y0) to
    (CONSUMER_X, y1), whose control points are at mid-width."""
    mid = (PRODUCER_X + CONSUMER_X) / 2
    xs = (PRODUCER_X, mid, mid, CONSUMER_X)
    ys = (y0, y0, y1, y1)
    weights = ((1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3)
    return (sum(w * x for w, x in zip(weights, xs)), sum(w * y for w, y in zip(weights, ys)))


def graph_svg(graph: sources.Graph) -> str:
    """The graph (with at least one edge) as an SVG element."""
    height = TOP + BOTTOM + ROW * max(len(graph.producers), len(graph.consumers))
    y_p, y_c = _place(graph.producers, height), _place(graph.consumers, height)
    heaviest = graph.edges[0][2]
    mid = (PRODUCER_X + CONSUMER_X) / 2
    out = [f'<svg class="source-graph" width="{WIDTH}" '
           f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
           f'aria-label="producer-to-consumer graph">',
           f'<text class="column" x="{PRODUCER_X - 10}" y="16" text-anchor="end">producers</text>',
           f'<text class="column" x="{CONSUMER_X + 10}" y="16">consumers</text>']
    spots = label_spots(graph.edges, lambda p, c, t: _point(t, y_p[p], y_c[c]), EDGE_LABEL)
    for (p, c, reads), spot in zip(graph.edges, spots):
        y0, y1 = y_p[p], y_c[c]
        # Points to pixels: the PNG's widths at the page's 96 dpi.
        width = edge_width(reads, heaviest) * 4 / 3
        tip = (f"{graph.node_label(p, None)} \u2192 {graph.node_label(c, None)}: "
               f"{reads:,} induced reads")
        out.append(f'<g class="edge" data-reads="{reads}"><title>{_esc(tip)}</title>'
                   f'<path d="M{PRODUCER_X},{y0:.1f} C{mid},{y0:.1f} {mid},{y1:.1f} '
                   f'{CONSUMER_X},{y1:.1f}" stroke="{graph.colour(p)}" stroke-width="{width:.2f}"/>')
        if spot:
            out.append(f'<text class="reads" x="{spot[0]:.1f}" y="{spot[1]:.1f}">{reads:,}</text>')
        out.append("</g>")
    for nodes, ys, x, anchor in ((graph.producers, y_p, PRODUCER_X - 10, "end"),
                                 (graph.consumers, y_c, CONSUMER_X + 10, "start")):
        for node in nodes:
            out.append(f'<text class="node" x="{x}" y="{ys[node]:.1f}" text-anchor="{anchor}" '
                       f'fill="{graph.colour(node)}"><title>{_esc(_node_tip(graph, node))}'
                       f'</title>{_esc(graph.node_label(node, LABEL_WIDTH))}</text>')
    out.append("</svg>")
    return "".join(out)


def _account(graph: sources.Graph) -> str:
    """What the picture shows of the whole graph, and what it leaves out."""
    shown = sum(reads for _, _, reads in graph.edges)
    text = (f"The {len(graph.edges)} heaviest of {graph.total_edges} edges: {shown:,} of the "
            f"report's {graph.total_reads:,} induced reads")
    if graph.left_out_edges:
        text += (f"; left out: {graph.left_out_edges} lighter edges with {graph.left_out_reads:,} "
                 f"induced reads (<code>--graph-edges N</code> shows more; "
                 f"<code>producers.py</code> lists every consumer's producers)")
    return text + "."


def _node_tip(graph: sources.Graph, node: sources.Node) -> str:
    """A node's whole name, and for a group of threads which threads and
    where they started."""
    tip = graph.node_label(node, None)
    serials = graph.groups.get(node[1], ())
    if node[0] == "thread" and len(serials) > 1:
        tip += (f" (threads {', '.join(map(str, serials))}, started in "
                f"{graph.starts.get(node[1], '?')})")
    return tip


def _node_cell(graph: sources.Graph, node: sources.Node) -> str:
    """A table cell: the node's name shortened, whole in its tooltip."""
    return (f'<td style="color:{graph.colour(node)}" title="{_esc(_node_tip(graph, node))}">'
            f'{_esc(graph.node_label(node, TABLE_LABEL_WIDTH))}</td>')


def _edge_table(graph: sources.Graph) -> str:
    rows = "".join(
        f'<tr>{_node_cell(graph, p)}{_node_cell(graph, c)}<td class="num">{reads:,}</td>'
        f'<td class="num">{100.0 * reads / graph.total_reads:.2f}%</td></tr>'
        for p, c, reads in graph.edges)
    return ('<details><summary>the edges as a table</summary><table class="list source-edges">'
            '<thead><tr><th>producer</th><th>consumer</th><th>induced reads</th>'
            f'<th>of all</th></tr></thead><tbody>{rows}</tbody></table></details>')


_STYLE = ("<style>"
          "svg.source-graph{border:1px solid #ddd;background:#fff;display:block;margin:4px 0}"
          "svg.source-graph text{font:12px sans-serif;dominant-baseline:middle}"
          "svg.source-graph text.column{font-weight:bold;fill:#333}"
          "svg.source-graph path{fill:none;stroke-opacity:.55;stroke-linecap:round}"
          "svg.source-graph g.edge:hover path{stroke-opacity:1}"
          "svg.source-graph text.reads{font:10px monospace;fill:#333;text-anchor:middle;"
          "paint-order:stroke;stroke:#fff;stroke-width:3px}"
          "</style>")


def section_html(reports: Sequence[aprof_report.Report], edges: int = DEFAULT_EDGES) -> str:
    """The section of the page: per report with source records (at most
    MAX_GRAPHS), its graph and its edges; "" when no report has any."""
    with_sources = [r for r in reports if r.thread_sources or r.kernel_sources]
    if not with_sources:
        return ""
    parts = ['<section id="sources"><h2>Input sources: producer \u2192 consumer</h2>', _STYLE,
             '<p>Who wrote the cells behind the routines\u2019 induced reads '
             '(<code>--input-sources=yes</code>): a routine of another thread '
             '(<code>T&lt;serial&gt; name</code>) or a system call, on the left; the routine '
             'that read them, on the right. Threads that started in the same routine (a '
             'worker pool) are one node, <code>T2-T38 (37 threads) name</code>. An '
             'edge\u2019s width grows with the logarithm of its reads; one colour per producer '
             'thread group, grey for system calls; hover an edge or a name for the whole '
             'text.</p>']
    for rep in with_sources[:MAX_GRAPHS]:
        graph = sources.graph_of(rep, edges)
        command = " ".join(rep.header.command)
        parts.append(f'<div class="source-report"><h3>{_esc(command)} '
                     f'<small>({_esc(rep.path)})</small></h3>'
                     f'<p class="source-account">{_account(graph)}</p>'
                     f'{graph_svg(graph)}{_edge_table(graph)}</div>')
    if len(with_sources) > MAX_GRAPHS:
        parts.append(f'<p class="source-account">{len(with_sources) - MAX_GRAPHS} more reports '
                     "with input sources are not drawn: <code>producers.py --graph</code> draws "
                     "one report's graph.</p>")
    parts.append("</section>")
    return "".join(parts)
