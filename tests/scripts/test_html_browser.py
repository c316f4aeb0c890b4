# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the HTML report in a real browser (headless Chromium).
#
# Copyright (C) 2026, the aprof-trms authors.
"""The HTML report (scripts/html_report.py) driven as a person would, in
Debian's chromium in headless mode (tests/scripts/browser.py): the page
loads without console errors, the table starts from the default selection
and shows every routine on request, every column sorts both ways, name and
object filters keep the right rows, clicking a routine draws one point per
input size (merged and per thread), hovering shows values, the ranking and
the regression comparison are there. Expectations come from the Python
modules (aprof_trms.table, html) on synthetic reports with known contents,
and from the bundled example profiled by the tool. Screenshots are kept in
BUILDDIR/tests/artifacts."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
HTML = os.path.join(SCRIPTS, "html_report.py")
from aprof_trms import html as aprof_html  # noqa: E402
from aprof_trms import profile as aprof_profile  # noqa: E402
from aprof_trms import report as aprof_report  # noqa: E402
from aprof_trms import table  # noqa: E402
import browser  # noqa: E402
import example_run  # noqa: E402
import synthetic  # noqa: E402

# A name that would end the data script or be taken for a template marker
# if the generator did not escape it; it must show as text.
EVIL = "evil</script><img src=x onerror=alert(1)><!--<script>@SCRIPT@"
TABLE_ROWS = "#routine-table tbody tr.row"


def routines():
    s = synthetic
    return [
        s.Routine("sort_rows", s.COSTS["n^2"], s.sizes(12), calls=2, rms=lambda n: n // 2),
        s.Routine("scan_items", s.COSTS["n"], s.sizes(9), calls=3),
        s.Routine("hash_lookup", s.COSTS["log n"], s.sizes(7), calls=4, object="/usr/lib/libhash.so.1"),
        s.Routine("parse_config", s.COSTS["sqrt n"], s.sizes(6), object="/usr/lib/libhash.so.1"),
        s.Routine("Tiny_helper", s.COSTS["1"], s.sizes(2), calls=40),
        s.Routine("_start", lambda n: 900000.0, [100]),
        s.Routine("std::vector<int, std::allocator<int> >::push_back(int const&)", s.COSTS["n"],
                  s.sizes(6), object="/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
        # Above the regression gate's 1% floor (its regression is the page's first line).
        s.Routine("merge_runs", lambda n: 40 * s.COSTS["n log n"](n), s.sizes(10), calls=2),
        s.Routine(EVIL, s.COSTS["n"], s.sizes(3)),
    ]


def run_html(*args):
    proc = subprocess.run([sys.executable, HTML, *map(str, args)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def chromium():
    try:
        b = browser.Chromium(height=1150)
    except browser.BrowserMissing as e:
        pytest.fail(str(e), pytrace=False)
    with b:
        yield b


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """(report path, html path, merged profile) of the synthetic program, two threads."""
    d = tmp_path_factory.mktemp("html")
    report = synthetic.write_report(d / "aprof-trms.out.1", routines(), threads=2)
    base_routines = routines()
    base_routines[7] = synthetic.Routine("merge_runs", synthetic.COSTS["sqrt n"], synthetic.sizes(10), calls=2)
    base = synthetic.write_report(d / "base.out", base_routines, threads=2)
    out = d / "report.html"
    run_html(report, "--baseline", base, "-o", out)
    return report, str(out), aprof_profile.load_profile([report])


def names_shown(b):
    """Names of the table rows in the page, read at once (the table redraws
    its rows while it scrolls)."""
    return b.js(f"return [...document.querySelectorAll('{TABLE_ROWS}')]"
                ".map(tr => tr.querySelector('td').title)")


def click_header(b, key):
    b.css(f'#routine-table th[data-key="{key}"]')[0].click()


def set_checkbox(b, element_id, value):
    box = b.css("#" + element_id)[0]
    if box.is_selected() != value:
        box.click()


def type_filter(b, text, regex=False):
    set_checkbox(b, "filter-regex", regex)
    from selenium.webdriver.common.keys import Keys
    field = b.css("#filter-name")[0]
    # Erased by keys as a person would: clear() fires no input event.
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.BACKSPACE)
    if text:
        field.send_keys(text)


def reset(b, path):
    b.open(path)
    assert b.console_errors() == []


def test_page_loads_without_errors_and_starts_from_default_selection(chromium, page, tmp_path):
    report, path, profile = page
    reset(chromium, path)
    expected = [row.name for row in table.routine_rows(profile, fit=False)
                if row.routine.key in {r.key for r in aprof_html.default_selection(profile).routines}]
    assert names_shown(chromium) == expected
    assert 0 < len(expected) < len(profile.routines)
    header = chromium.css("#header")[0].text
    assert "synthetic" in header and "basic blocks" in header and "4 bytes per cell" in header
    assert "thread 1 (tid 1)" in header and "thread 2 (tid 2)" in header
    # The program-level charts are drawn: one bar pair per routine with induced reads.
    induced = [r for r in profile.routines.values() if r.thread_induced + r.external > 0]
    assert len(chromium.css("#chart-induced rect.bar")) == 2 * len(induced)
    assert chromium.css("#chart-richness path.fit") and chromium.css("#chart-volume path.fit")
    chromium.screenshot(os.path.join(browser.artifacts_dir(tmp_path), "html-report-synthetic.png"))


def test_show_every_routine_and_sort_by_every_column(chromium, page):
    _, path, profile = page
    reset(chromium, path)
    set_checkbox(chromium, "show-all", True)
    rows = table.routine_rows(profile)
    assert names_shown(chromium) == [row.name for row in rows]
    assert EVIL in names_shown(chromium)
    for column in table.COLUMNS:
        text = not column.numeric
        click_header(chromium, column.key)   # first click: text A-Z, numbers largest first
        assert names_shown(chromium) == [r.name for r in table.sort_rows(rows, column.key, text)], column.key
        click_header(chromium, column.key)   # second click: the other way
        assert names_shown(chromium) == [r.name for r in table.sort_rows(rows, column.key, not text)], column.key
    assert chromium.console_errors() == []


def test_filters_by_name_regex_and_object(chromium, page):
    _, path, profile = page
    reset(chromium, path)
    set_checkbox(chromium, "show-all", True)
    everything = [row.name for row in table.routine_rows(profile, fit=False)]
    type_filter(chromium, "S")   # substring, any case
    assert names_shown(chromium) == [n for n in everything if "s" in n.lower()]
    type_filter(chromium, r"^(sort|scan)_|push_back\(", regex=True)
    assert sorted(names_shown(chromium)) == sorted(["sort_rows", "scan_items", routines()[6].name])
    type_filter(chromium, "(unclosed", regex=True)
    assert names_shown(chromium) == []
    assert "invalid regular expression" in chromium.css("#filter-error")[0].text
    type_filter(chromium, "")
    assert names_shown(chromium) == everything
    select = chromium.css("#filter-object")[0]
    option = [o for o in select.find_elements("css selector", "option") if o.text == "libhash.so.1"]
    assert len(option) == 1
    option[0].click()
    assert names_shown(chromium) == ["hash_lookup", "parse_config"]
    assert chromium.console_errors() == []


def _circles(b, plot_id):
    return len(b.css(f"#{plot_id} circle.pt"))


def test_clicking_a_routine_draws_its_plots(chromium, page, tmp_path):
    _, path, profile = page
    reset(chromium, path)
    set_checkbox(chromium, "show-all", True)
    type_filter(chromium, "sort_rows")
    chromium.css(TABLE_ROWS)[0].click()
    sort_rows = profile.find("sort_rows")[0]
    assert chromium.css("#detail-title")[0].text == "sort_rows"
    for kind in ("cost", "workload", "stats", "total"):
        assert _circles(chromium, f"plot-{kind}-trms") == len(sort_rows.trms) == 12
        assert _circles(chromium, f"plot-{kind}-rms") == len(sort_rows.rms)
    # Fitted function and runner-up over the worst-case points.
    assert len(chromium.css("#plot-cost-trms path.fit")) == 2
    legend = chromium.css("#plot-cost-trms")[0].text
    assert "fit: n^2" in legend and "runner-up" in legend
    chromium.screenshot(os.path.join(browser.artifacts_dir(tmp_path), "html-report-routine.png"))
    # Log axes: the same points, placed differently.
    before = [c.get_attribute("cy") for c in chromium.css("#plot-cost-trms circle.pt")]
    set_checkbox(chromium, "log-axes", True)
    after = [c.get_attribute("cy") for c in chromium.css("#plot-cost-trms circle.pt")]
    assert len(after) == len(before) and after != before
    # Per thread: one series per thread, each with that thread's sizes.
    chromium.css('#view option[value="threads"]')[0].click()
    per_thread = [len(p.trms) for _, p in
                  ((label, tp.routines[sort_rows.key]) for label, tp in
                   table.thread_profiles([aprof_report.load(profile.paths[0])]))]
    series = chromium.css("#plot-cost-trms g.series")
    assert [len(g.find_elements("css selector", "circle.pt")) for g in series] == per_thread
    assert sum(per_thread) == 24   # 2 calls per size, alternating threads
    # A routine with too few sizes says why it has no fit.
    type_filter(chromium, "Tiny_helper")
    chromium.css(TABLE_ROWS)[0].click()
    chromium.css('#view option[value="merged"]')[0].click()
    assert "no fit: only 2 distinct sizes (need 5)" in chromium.css("#plot-cost-trms")[0].text
    assert chromium.console_errors() == []


def _legend_overflow(b):
    """Per plot of the selected routine: (id, svg width, right end of its
    widest text, number of legend lines)."""
    return b.js("""return [...document.querySelectorAll('#plots svg.chart')].map(svg => {
        const texts = [...svg.querySelectorAll('text')];
        const right = Math.max(...texts.map(t => t.getBBox().x + t.getBBox().width));
        return [svg.id, +svg.getAttribute('width'), right, texts.length]; })""")


def test_fit_notes_wrap_inside_their_panel(chromium, tmp_path):
    """A routine with a cheaper path at every other size: its fit's notes
    (upper envelope, points left out) and doubts were one SVG text line
    each, running beyond the panel's right edge; they wrap inside it now.
    (The cheaper path grows otherwise, n against n^2: a cheaper curve of
    the same growth is a second population, fitted apart without a
    doubt, test_populations.py.)"""
    two_paths = synthetic.Routine("two_paths", lambda n: n * n if n % 2 else 10 * n,
                                  synthetic.sizes(20))
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", [two_paths])
    out = tmp_path / "notes.html"
    run_html(report, "-o", out)
    reset(chromium, str(out))
    chromium.css(TABLE_ROWS)[0].click()
    legend = chromium.css("#plot-cost-trms")[0].text
    assert "upper envelope" in legend and "inconclusive:" in legend
    for plot, width, right, _ in _legend_overflow(chromium):
        assert right <= width, (plot, width, right)
    chromium.screenshot(os.path.join(browser.artifacts_dir(tmp_path), "html-report-notes.png"))


def test_the_fit_curve_spans_the_sizes_it_was_fitted_on(chromium, tmp_path):
    """Sorts of strings (costly, up to 3,765 cells) and of integers (cheap,
    on to 37,000): the string sorts are fitted alone, and the curve ends
    over their largest point, not under the integer sorts beyond it."""
    ints = synthetic.sizes(40, first=30, ratio=1.2)
    strings = set(s + 7 for s in synthetic.sizes(14, first=30, ratio=1.45))
    sorts = synthetic.Routine("sorts", lambda n: (14.0 if n in strings else 4.0) * n * n.bit_length() + 40,
                              sorted(set(ints) | strings))
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", [sorts])
    out = tmp_path / "sorts.html"
    run_html(report, "-o", out)
    reset(chromium, str(out))
    chromium.css(TABLE_ROWS)[0].click()
    assert "two interleaved populations" in chromium.css("#plot-cost-trms")[0].text
    ends = chromium.js("""const svg = document.querySelector('#plot-cost-trms');
        const fit = svg.querySelector('path.fit').getBBox();
        const xs = [...svg.querySelectorAll('circle.pt')].map(c => +c.getAttribute('cx'));
        return [fit.x, fit.x + fit.width, Math.min(...xs), Math.max(...xs)];""")
    fit_left, fit_right, first_point, last_point = ends
    assert fit_left == pytest.approx(first_point, abs=2)
    # The largest string sort is a tenth of the way along the size axis.
    assert fit_right < first_point + 0.2 * (last_point - first_point), ends


def test_every_routine_has_an_anchor_that_opens_it(chromium, page, tmp_path):
    """#routine-NAME selects the routine when the page is opened with it
    (or the hash changes), the routine's section carries that id, clicking
    a routine puts its anchor in the address, and the ranking's links are
    real links to the anchors."""
    _, path, _ = page
    chromium.driver.get("about:blank")
    chromium.open(path + "#routine-scan_items")
    assert chromium.css("#detail-title")[0].text == "scan_items"
    assert chromium.js("return document.querySelector('#detail .anchor').id") == "routine-scan_items"
    assert chromium.js("return document.getElementById('detail').getBoundingClientRect().top") < 50
    # A C++ name: characters other than letters, digits and _.:~- become "_".
    chromium.js("location.hash = '#routine-std::vector_int_std::allocator_int_::push_back_int_const_'")
    assert chromium.css("#detail-title")[0].text.startswith("std::vector<int")
    chromium.js("location.hash = '#hash_lookup'")      # a routine's name works too
    assert chromium.css("#detail-title")[0].text == "hash_lookup"
    links = chromium.css("#ranking-table a.routine")
    assert [a.get_attribute("href").split("#")[1] for a in links][0] == "routine-sort_rows"
    links[0].click()
    assert chromium.css("#detail-title")[0].text == "sort_rows"
    assert chromium.js("return location.hash") == "#routine-sort_rows"
    chromium.screenshot(os.path.join(browser.artifacts_dir(tmp_path), "html-report-anchor.png"))
    assert chromium.console_errors() == []


def test_hover_shows_values(chromium, page):
    _, path, profile = page
    reset(chromium, path)
    set_checkbox(chromium, "show-all", True)
    type_filter(chromium, "scan_items")
    chromium.css(TABLE_ROWS)[0].click()
    from selenium.webdriver.common.action_chains import ActionChains
    point = chromium.css("#plot-cost-trms circle.pt")[-1]
    ActionChains(chromium.driver).move_to_element(point).perform()
    tip = chromium.css("#tooltip")[0]
    scan = profile.find("scan_items")[0]
    largest = max(scan.trms)
    assert tip.is_displayed()
    assert f"TRMS {largest}" in tip.text and f"max cost {scan.trms[largest].max_cost}" in tip.text


def test_ranking_and_regression(chromium, page):
    _, path, profile = page
    reset(chromium, path)
    links = chromium.css("#ranking-table a.routine")
    rows = table.routine_rows(profile, fit=False)
    ranking = aprof_html.ranking_json(profile, {row.routine.key: i for i, row in enumerate(rows)})
    assert [a.text for a in links] == [rows[i].name for i, _ in ranking]
    assert links[0].text == "sort_rows"   # n^2: the steepest
    links[0].click()
    assert chromium.css("#detail-title")[0].text == "sort_rows"
    # merge_runs went from n to n log n... and scan_items stayed: worse first.
    lines = [e.text for e in chromium.css("#regression-lines div")]
    assert lines[0].startswith("REGRESSION merge_runs"), lines
    assert chromium.css("#regression-lines div.regression")[0].text == lines[0]
    assert chromium.console_errors() == []


def test_bundled_example_end_to_end(chromium, tmp_path):
    """The tool on the bundled example, its HTML report, and a person's
    clicks: insertion_sort is called on 200 arrays of sizes 1..200."""
    reports = example_run.profile_example(tmp_path)
    out = tmp_path / "example.html"
    run_html(reports, "-o", out)
    chromium.open(str(out))
    assert chromium.console_errors() == []
    profile = aprof_profile.load_profile([reports])
    assert len(chromium.css(TABLE_ROWS)) == len(aprof_html.default_selection(profile).routines)
    set_checkbox(chromium, "show-all", True)
    type_filter(chromium, "insertion_sort")
    assert names_shown(chromium) == ["insertion_sort"]
    chromium.css(TABLE_ROWS)[0].click()
    assert _circles(chromium, "plot-cost-trms") == _circles(chromium, "plot-cost-rms") == 200
    assert "fit: n^2" in chromium.css("#plot-cost-trms")[0].text
    # consume_items: TRMS separates the sizes that RMS collapses (docs/analysis.md's screenshot).
    type_filter(chromium, "consume_items")
    assert names_shown(chromium) == ["consume_items"]
    chromium.css(TABLE_ROWS)[0].click()
    consume = profile.find("consume_items")[0]
    assert _circles(chromium, "plot-cost-trms") == len(consume.trms)
    assert _circles(chromium, "plot-cost-rms") == len(consume.rms)
    assert len(consume.trms) > len(consume.rms)   # TRMS tells its calls apart
    type_filter(chromium, "")   # the plots stay
    artifacts = browser.artifacts_dir(tmp_path)
    chromium.screenshot(os.path.join(artifacts, "html-report-example-full.png"), full_page=True)
    # The table and the first plots (docs/images/html-report.png).
    chromium.js("document.getElementById('routines').scrollIntoView()")
    chromium.screenshot(os.path.join(artifacts, "html-report-example.png"))
    assert chromium.console_errors() == []


def test_table_draws_only_the_rows_in_view(chromium, tmp_path):
    many = [synthetic.Routine(f"routine_{i:04d}", lambda n, i=i: 100.0 + i, [8 + i % 3])
            for i in range(1500)]
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", many)
    out = tmp_path / "many.html"
    run_html(report, "-o", out)
    chromium.open(str(out))
    set_checkbox(chromium, "show-all", True)
    assert "1500 of 1500 routines" in chromium.css("#row-count")[0].text
    shown = names_shown(chromium)
    # Largest inclusive cost first (routine_1499), and far fewer rows than routines.
    assert shown[0] == "routine_1499" and 10 < len(shown) < 100
    chromium.js("const s = document.getElementById('table-scroll'); s.scrollTop = s.scrollHeight;")
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(chromium.driver, 10).until(lambda d: "routine_0000" in names_shown(chromium))
    assert len(names_shown(chromium)) < 100
    assert chromium.console_errors() == []
