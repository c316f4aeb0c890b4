# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the HTML report generator (scripts/html_report.py) without a browser.
#
# Copyright (C) 2026, the aprof-trms authors.
"""What the generator writes, read back from the file: one self-contained
page (nothing fetched from the network), names that cannot break out of
the data script, the selection options deciding the starting rows, one
details line per routine; and its errors: exit 1 with a message, no file
left behind. The page's behaviour is tested in test_html_browser.py."""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
HTML = os.path.join(SCRIPTS, "html_report.py")
import synthetic  # noqa: E402

EVIL = "evil</script><script>alert(1)</script><!--<script>@DATA@"


def routines():
    s = synthetic
    return [s.Routine("scan", s.COSTS["n"], s.sizes(8), calls=2),
            s.Routine("quad", s.COSTS["n^2"], s.sizes(6)),
            s.Routine(EVIL, s.COSTS["n"], s.sizes(6), object="/lib/lib</script>.so")]


def run(*args):
    proc = subprocess.run([sys.executable, HTML, *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def page_data(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    data = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S)
    details = re.search(r'<script id="details" type="text/plain">\n(.*?)\n</script>', text, re.S)
    return text, json.loads(data.group(1)), [json.loads(line) for line in details.group(1).split("\n")]


def test_self_contained_page_with_escaped_names(tmp_path):
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines(), threads=2)
    out = tmp_path / "r.html"
    proc = run(report, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out)
    text, data, details = page_data(out)
    # Three scripts (data, details, code), each closed once: no name ends one.
    assert text.count("<script") == 3 and text.count("</script>") == 3
    # Nothing to fetch: no external resource, no request API.
    assert not re.search(r"\b(src|href)\s*=", text)
    assert not re.search(r"\b(fetch|XMLHttpRequest|import)\s*\(", text)
    names = [row[0] for row in data["rows"]]
    assert EVIL in names and data["objects"][data["rows"][names.index(EVIL)][1]] == "/lib/lib</script>.so"
    # One details line per row, with one point per distinct size.
    assert len(details) == len(data["rows"]) == 3
    scan = details[names.index("scan")]
    assert [p[0] for p in scan["trms"]] == synthetic.sizes(8)
    assert all(p[1] == 2 for p in scan["trms"])           # 2 calls per size
    assert scan["fits"]["trms"]["best"]["label"] == "n"
    assert len(scan["threads"]) == 2                      # per-thread points


def test_selection_options_choose_the_starting_rows(tmp_path):
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines())
    out = tmp_path / "r.html"
    assert run(report, "-o", out, "-r", "scan").returncode == 0
    _, data, _ = page_data(out)
    assert [row[0] for row in data["rows"] if row[-1]] == ["scan"]
    assert data["selection"].startswith("chose 1 of 3 routines")
    assert data["regression"] is None


def test_a_page_of_many_routines_details_the_costliest_and_the_chosen(tmp_path, monkeypatch, capsys):
    # Beyond html.DETAILED_ROUTINES routines, the page holds the points and
    # fits of that many costliest routines and of those selected or ranked
    # (a page with every point of 100,000 routines took gigabytes): the
    # others are rows with a null details line, and the page says why.
    sys.path.insert(0, SCRIPTS)
    from aprof_trms import html as aprof_html
    s = synthetic
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", [
        s.Routine("big", s.COSTS["n"], s.sizes(8), calls=40), s.Routine("mid", s.COSTS["n"], s.sizes(8), calls=20),
        s.Routine("small", s.COSTS["n"], s.sizes(8)), s.Routine("tiny", s.COSTS["n"], s.sizes(8))], threads=2)
    out = tmp_path / "r.html"
    monkeypatch.setattr(aprof_html, "DETAILED_ROUTINES", 1)
    assert aprof_html.main([report, "-o", str(out), "-r", "tiny", "--min-share", "0"]) == 0
    _, data, details = page_data(out)
    names = [row[0] for row in data["rows"]]
    detailed = [name for name, d in zip(names, details) if d is not None]
    assert names[0] == "big" and detailed == ["big", "tiny"], (names, detailed)
    assert details[names.index("tiny")]["fits"]["trms"]["best"]["label"] == "n"
    assert len(details[names.index("big")]["threads"]) == 2
    assert [row[14] for row in data["rows"]] == ["n", "-", "-", "n"]   # TRMS model: not fitted
    assert "holds the points and fits of 2 of the 4 routines" in data["details_note"]
def test_baseline_before_the_reports(tmp_path):
    """`--baseline A B -o x.html`, as a user writes it: A is the baseline,
    B the reports (with nargs="+" B was a baseline too and the command asked
    for the reports); the option repeats for several baseline reports."""
    base = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines())
    cand = synthetic.write_report(tmp_path / "aprof-trms.out.2", routines(), pid=4343)
    out = tmp_path / "x.html"
    proc = run("--baseline", base, cand, "-o", out)
    assert proc.returncode == 0, proc.stderr
    _, data, _ = page_data(out)
    assert data["paths"] == [str(cand)] and data["regression"]
    base2 = synthetic.write_report(tmp_path / "aprof-trms.out.3", routines(), pid=4444)
    assert run("--baseline", base, "--baseline", base2, cand, "-o", out).returncode == 0


def test_errors_leave_no_file(tmp_path):
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines())
    proc = run(report, "-o", tmp_path / "no" / "such" / "dir.html")
    assert proc.returncode == 1 and "no/such/dir.html" in proc.stderr
    bad = tmp_path / "bad" / "aprof-trms.out.9"
    bad.parent.mkdir()
    bad.write_text("aprof-trms-report\t1\n")
    out = tmp_path / "r.html"
    proc = run(bad, "-o", out)
    assert proc.returncode == 1 and "aprof-trms.out.9" in proc.stderr
    assert not out.exists()
    assert run(report, "-o", out, "-r", "nothing_like_it").returncode == 1
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["aprof-trms.out.1", "bad"]


def test_version_and_usage():
    proc = run("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == "html_report.py (aprof-trms) 0.1.0"
    proc = run("--no-such-option")
    assert proc.returncode == 2 and "usage:" in proc.stderr
