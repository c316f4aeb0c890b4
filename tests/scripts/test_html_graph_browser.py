# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the HTML report's producer-to-consumer graph in a real browser
# (headless Chromium, as test_html_browser.py).
#
# Copyright (C) 2026, the aprof-trms authors.
"""The "Input sources" section as drawn by Chromium, on the synthetic report
of test_html_graph.py (44 edges of known reads, 30 shown) with routine
names long enough to be cut: the page loads without console errors, the
picture has one curve per shown edge, every reads label drawn says its
edge's reads and overlaps no other, every name stays inside the picture,
and the edge table opens. A screenshot is kept in BUILDDIR/tests/artifacts
(html-report-sources.png)."""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
import browser  # noqa: E402
import test_html_graph as graph_tests  # noqa: E402
from test_html_browser import chromium  # noqa: E402,F401  (the browser fixture)

LONG = "::".join(["namespace_with_a_long_name"] * 3)


def test_graph_is_readable_in_the_browser(chromium, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setattr(graph_tests, "ROUTINES", [f"{LONG}::stage_{i}(int, char const*)"
                                                  for i in range(1, 9)])
    text, thread_sources, kernel_sources = graph_tests.edges_report_text()
    expected = graph_tests.expected_edges(thread_sources, kernel_sources)[:30]
    graph_tests.write_page(tmp_path, text)
    chromium.open(str(tmp_path / "r.html"))
    assert chromium.console_errors() == []
    assert chromium.css("#sources svg.source-graph")[0].is_displayed()
    edges = chromium.js("""return [...document.querySelectorAll('#sources g.edge')].map(g => {
        const label = g.querySelector('text.reads');
        return [Number(g.dataset.reads), label ? label.textContent : null,
                label ? (b => [b.x, b.y, b.width, b.height])(label.getBBox()) : null];
    })""")
    assert [e[0] for e in edges] == [n for _, _, n in expected]
    labelled = [e for e in edges if e[1] is not None]
    # The heaviest edge always has its label; most of the others too.
    assert edges[0][1] is not None and len(labelled) >= len(edges) // 2, len(labelled)
    assert all(label == f"{reads:,}" for reads, label, _ in labelled)
    boxes = [e[2] for e in labelled]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert (a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or
                    a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]), (a, b)
    width, names = chromium.js("""const svg = document.querySelector('#sources svg');
        return [svg.width.baseVal.value, [...svg.querySelectorAll('text.node')].map(t =>
            (b => [t.lastChild.textContent, b.x, b.x + b.width])(t.getBBox()))]""")
    assert names and all(0 <= left and right <= width for _, left, right in names), names
    # Long names keep their end, the routine's own name (names.short_name).
    routines = [name for name, _, _ in names if not name.startswith("syscall ")]
    assert routines and all(re.fullmatch(r"T\d \u2026.*::stage_\d\(\u2026\)", name)
                            for name in routines), routines
    chromium.css("#sources details summary")[0].click()
    rows = chromium.css("#sources table.source-edges tbody tr")
    assert len(rows) == 30 and rows[0].is_displayed()
    chromium.css("#sources")[0].location_once_scrolled_into_view
    chromium.screenshot(os.path.join(browser.artifacts_dir(tmp_path), "html-report-sources.png"))
