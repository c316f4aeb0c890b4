# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the producer-to-consumer graph of the HTML report
# (scripts/aprof_trms/html_graph.py), read back from the page.
#
# Copyright (C) 2026, the aprof-trms authors.
"""On reports whose source records have known counts, the page's "Input
sources" section shows the heaviest edges with their exact reads, in the
picture and in the table, and says how many edges and reads it left out; a
report without source records has no such section. The page in a browser:
test_html_browser.py."""
import html
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
HTML = os.path.join(SCRIPTS, "html_report.py")
import synthetic  # noqa: E402
from source_reports import sources_example, with_sources, without_sources  # noqa: E402

THREADS = 3
ROUTINES = [f"stage_{i}" for i in range(1, 9)]


def edges_report_text():
    """A synthetic 3-thread report with 44 source records, each its own edge
    with distinct reads: 36 thread-source records (consumer routine r in
    thread t, producer routine q in the next thread) and 8 kernel-source
    records, one per routine."""
    text = synthetic.report_text([synthetic.Routine(n, synthetic.COSTS["n"], synthetic.sizes(6))
                                  for n in ROUTINES], threads=THREADS)
    keys = [(t, r, t % THREADS + 1, q) for t in range(1, THREADS + 1) for r in range(1, 9)
            for q in (r % 8 + 1, (r + 3) % 8 + 1)][:36]
    thread_sources = [key + (1000 + 97 * i,) for i, key in enumerate(keys)]
    kernel_sources = []
    for r in range(1, 9):
        kernel_sources.append((r % THREADS + 1, r, "read" if r % 2 else "recvfrom", 50 + 1231 * r))
    return with_sources(text, thread_sources, kernel_sources), thread_sources, kernel_sources


def expected_edges(thread_sources, kernel_sources):
    """(producer label, consumer label, reads), heaviest first."""
    edges = [(f"T{u} {ROUTINES[q - 1]}", f"T{t} {ROUTINES[r - 1]}", n)
             for t, r, u, q, n in thread_sources]
    edges += [(f"syscall {s}", f"T{t} {ROUTINES[r - 1]}", n) for t, r, s, n in kernel_sources]
    return sorted(edges, key=lambda e: -e[2])


def write_page(tmp_path, text, *options):
    report = tmp_path / "aprof-trms.out.1"
    report.write_text(text)
    out = tmp_path / "r.html"
    proc = subprocess.run([sys.executable, HTML, "-o", str(out), *options, str(report)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return out.read_text(encoding="utf-8")


def section(page):
    m = re.search(r'<section id="sources">(.*?)</section>', page, re.S)
    return m and m.group(1)


def table_edges(sources):
    """The edge table's rows: (producer, consumer, reads)."""
    body = re.search(r'<table class="list source-edges">.*?<tbody>(.*?)</tbody>', sources, re.S)
    rows = re.findall(r'<tr><td[^>]*title="(.*?)">.*?</td><td[^>]*title="(.*?)">.*?</td>'
                      r'<td[^>]*>([\d,]+)</td>',
                      body.group(1))
    return [(html.unescape(p), html.unescape(c), int(n.replace(",", ""))) for p, c, n in rows]


def svg_edges(sources):
    """The picture's edges: (tooltip, reads)."""
    return [(html.unescape(tip), int(n)) for n, tip in
            re.findall(r'<g class="edge" data-reads="(\d+)"><title>(.*?)</title>', sources)]


def test_page_shows_the_heaviest_edges_with_their_reads(tmp_path):
    text, thread_sources, kernel_sources = edges_report_text()
    expected = expected_edges(thread_sources, kernel_sources)
    sources = section(write_page(tmp_path, text))
    assert sources, "no input sources section"
    assert not re.search(r"\b(src|href)\s*=", sources)   # nothing to fetch: the page stays one file
    top = expected[:30]
    assert table_edges(sources) == top
    assert svg_edges(sources) == [(f"{p} \u2192 {c}: {n:,} induced reads", n) for p, c, n in top]
    total = sum(n for _, _, n in expected)
    left_out = expected[30:]
    account = re.search(r'<p class="source-account">(.*?)</p>', sources).group(1)
    assert account.startswith(f"The 30 heaviest of 44 edges: {total - sum(e[2] for e in left_out):,} "
                              f"of the report's {total:,} induced reads"), account
    assert f"left out: 14 lighter edges with {sum(e[2] for e in left_out):,} induced reads" in account
    # Each producer of the shown edges once on the left (text ending at the
    # edges), each consumer once on the right, heaviest first.
    nodes = re.findall(r'<text class="node"[^>]*text-anchor="(end|start)"[^>]*><title>(.*?)</title>',
                       sources)

    def by_reads(end):
        reads = {}
        for edge in top:
            reads[edge[end]] = reads.get(edge[end], 0) + edge[2]
        return sorted(reads, key=lambda n: -reads[n])

    assert [html.unescape(n) for a, n in nodes if a == "end"] == by_reads(0)
    assert [html.unescape(n) for a, n in nodes if a == "start"] == by_reads(1)


def test_graph_edges_option_and_every_edge(tmp_path):
    text, thread_sources, kernel_sources = edges_report_text()
    expected = expected_edges(thread_sources, kernel_sources)
    sources = section(write_page(tmp_path, text, "--graph-edges", "5"))
    assert table_edges(sources) == expected[:5] and len(svg_edges(sources)) == 5
    sources = section(write_page(tmp_path, text, "--graph-edges", "100"))
    assert table_edges(sources) == expected
    assert "left out" not in re.search(r'<p class="source-account">(.*?)</p>', sources).group(1)


def test_docs_example_graph(tmp_path):
    """The example of docs/report-format.md: produce_data (thread 1) wrote
    200 of consume_data's (thread 2) induced reads, code outside every
    routine 2; read() wrote 16 of produce_data's."""
    sources = section(write_page(tmp_path, sources_example()))
    assert table_edges(sources) == [("T1 produce_data", "T2 consume_data", 200),
                                    ("syscall read", "T1 produce_data", 16),
                                    ("T1 (no routine)", "T2 consume_data", 2)]
    assert "The 3 heaviest of 3 edges: 218 of the report's 218 induced reads." in sources


def test_report_without_sources_has_no_graph(tmp_path):
    page = write_page(tmp_path, without_sources(sources_example()))
    assert section(page) is None and "source-graph" not in page and "@SOURCES@" not in page


def test_at_most_four_reports_drawn(tmp_path):
    """Reports of several processes (a fork) each have their graph, up to 4;
    the page says how many more there were."""
    for pid in range(1, 7):
        (tmp_path / f"aprof-trms.out.{pid}").write_text(
            sources_example().replace("pid\t4242\t4200", f"pid\t{pid}\t4200"))
    out = tmp_path / "r.html"
    proc = subprocess.run([sys.executable, HTML, "-o", str(out), str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    sources = section(out.read_text(encoding="utf-8"))
    assert sources.count('<svg class="source-graph"') == 4
    assert "2 more reports with input sources are not drawn" in sources
