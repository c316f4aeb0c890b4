# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the HTML report's callers, callees and calling contexts.
#
# Copyright (C) 2026, the aprof-trms authors.
"""The routine section of the HTML report (html_calls.py, calls.js) on
synthetic version 4 reports where `work` is called by `small` (linear
cost) and by `big` (quadratic): the page's data lists each routine's
callers and callees with the edges' numbers and the contexts of `work`,
quadratic first with fits n^2 and n; in headless Chromium, clicking `work`
shows them (links to the callers' sections, one plot per context), and a
report without contexts says how to get them."""
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
import browser  # noqa: E402
import synthetic  # noqa: E402
from test_html import page_data, run  # noqa: E402
from test_html_browser import TABLE_ROWS, chromium, set_checkbox, type_filter  # noqa: E402,F401

DEPTH = 6


def expected_edges():
    """{(caller, callee): (calls, inclusive cost)} of synthetic.two_callers()."""
    edges = {}
    for entry in synthetic.two_callers():
        if entry.caller:
            acts = synthetic.activations(entry)
            calls, cost = edges.get((entry.caller, entry.name), (0, 0))
            edges[(entry.caller, entry.name)] = (calls + len(acts), cost + sum(c for _, _, c in acts))
    return edges


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """(html with contexts, its data and details, html without contexts)."""
    d = tmp_path_factory.mktemp("html-calls")
    with_contexts = synthetic.write_report(d / "aprof-trms.out.1", synthetic.two_callers(), threads=2,
                                           contexts=DEPTH)
    without = synthetic.write_report(d / "aprof-trms.out.2", synthetic.two_callers(), threads=2)
    out, plain = d / "contexts.html", d / "plain.html"
    for report, html in ((with_contexts, out), (without, plain)):
        proc = run(report, "--all", "-o", html)
        assert proc.returncode == 0, proc.stderr
    _, data, details = page_data(out)
    return str(out), data, details, str(plain)


def test_page_data_has_callers_callees_and_contexts(pages):
    _, data, details, plain = pages
    names = [row[0] for row in data["rows"]]
    detail = {name: details[i] for i, name in enumerate(names)}
    edges = expected_edges()
    for (caller, callee), (calls, cost) in edges.items():
        assert [names.index(caller), calls, cost] in detail[callee]["callers"]
        assert [names.index(callee), calls, cost] in detail[caller]["callees"]
    assert len(detail["work"]["callers"]) == 2 and detail["work"]["callees"] == []
    assert detail["main"]["callers"] == []
    # Most costly edge first.
    assert [e[2] for e in detail["work"]["callers"]] == sorted(
        (e[2] for e in detail["work"]["callers"]), reverse=True)
    contexts = detail["work"]["contexts"]
    assert [[names[i] for i in c["chain"]] for c in contexts] == [["main", "big", "work"],
                                                                 ["main", "small", "work"]]
    assert [c["fit"]["best"]["label"] for c in contexts] == ["n^2", "n"]
    assert [c["calls"] for c in contexts] == [edges[("big", "work")][0], edges[("small", "work")][0]]
    assert [len(c["trms"]) for c in contexts] == [12, 12]
    # Routines with a single context have no list; the page knows the depth.
    assert "contexts" not in detail["main"] and data["calls"]["context_depth"] == DEPTH
    _, plain_data, plain_details = page_data(plain)
    assert plain_data["calls"]["context_depth"] is None
    assert all("contexts" not in d for d in plain_details)


def show(b, path, name):
    b.open(path)
    set_checkbox(b, "show-all", True)
    type_filter(b, name)
    b.css(TABLE_ROWS)[0].click()
    assert b.css("#detail-title")[0].text == name


def cells(b, selector):
    return [[td.text for td in tr.find_elements("css selector", "td")] for tr in b.css(selector)]


def test_routine_section_shows_callers_callees_and_contexts(chromium, pages, tmp_path):
    path, _, _, plain = pages
    show(chromium, path, "work")
    edges = expected_edges()
    callers = cells(chromium, "#callers tr")[1:]
    assert {(c[0], int(c[2]), int(c[3])) for c in callers} == {
        (caller, calls, cost) for (caller, _), (calls, cost) in edges.items() if caller in ("big", "small")}
    assert "none" in chromium.css("#callees")[0].text
    rows = cells(chromium, "#contexts-table tr")[1:]
    assert [r[1] for r in rows] == ["… › big › work", "… › small › work"]
    assert chromium.css("#common-callers")[0].text.endswith(": main")
    assert [r[6] for r in rows] == ["n^2", "n"] and [r[5] for r in rows] == ["ok", "ok"]
    for i in (1, 2):
        assert len(chromium.css(f"#context-plot-{i} circle.pt")) == 12
        assert len(chromium.css(f"#context-plot-{i} path.fit")) == 1
    chromium.driver.set_window_size(1400, 2600)
    chromium.css("#detail")[0].screenshot(os.path.join(browser.artifacts_dir(tmp_path),
                                                       "html-report-contexts.png"))
    chromium.driver.set_window_size(1400, 1150)
    # A caller is a link to its own section.
    next(a for a in chromium.css("#callers a.routine") if a.text == "big").click()
    assert chromium.css("#detail-title")[0].text == "big"
    callees = cells(chromium, "#callees tr")[1:]
    assert [(c[0], int(c[2]), int(c[3])) for c in callees] == [("work", *edges[("big", "work")])]
    assert chromium.console_errors() == []
    # Without contexts: the callers all the same, and how to get contexts.
    show(chromium, plain, "work")
    assert len(cells(chromium, "#callers tr")) == 3
    assert "--collect-context=yes" in chromium.css("#no-contexts")[0].text
    assert chromium.css("#contexts") == []
    assert chromium.console_errors() == []
