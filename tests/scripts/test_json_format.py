# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of --format json (aprof_trms/cli.py's write_rows) in rank, annotate,
# regress, contexts and producers: one document with its version, whose rows
# are the rows of the text (and of rank's CSV).
#
# Copyright (C) 2026, the aprof-trms authors.
"""Each command run twice on the same synthetic reports, once as text (or
CSV) and once with --format json: the JSON parses as one document with the
documented header (docs/json-format.md), and its rows, in order, carry the
values the text shows (formatted as the text formats them)."""
import csv
import io
import json
import os
import subprocess
import sys

import pytest

import synthetic
from aprof_trms import cli
from source_reports import sources_example

SCRIPTS = synthetic.SCRIPTS


def run(script, *args, status=0):
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *map(str, args)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == status, proc.stderr
    return proc.stdout


def document(script, *args, status=0):
    doc = json.loads(run(script, "--format", "json", *args, status=status))
    command = script[:-3]
    assert doc["format"] == "aprof-trms" and doc["command"] == command
    assert doc["version"] == cli.JSON_VERSION == 1
    assert all(list(row) == doc["fields"] for row in doc["rows"]), doc["fields"]
    return doc


def routines():
    s = synthetic
    return [s.Routine("scan", s.COSTS["n"], s.sizes(12), calls=2, rms=lambda n: n // 3),
            s.Routine("quad", s.COSTS["n^2"], s.sizes(12)),
            s.Routine("few", s.COSTS["n"], s.sizes(6)),
            s.Routine("once", s.COSTS["1"], [3])]


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def test_rank_json_rows_are_the_csv_rows_in_the_order_of_the_text(tmp_path):
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines(), threads=2)
    doc = document("rank.py", "--all", path)
    rows = list(csv.DictReader(io.StringIO(run("rank.py", "--all", "--format", "csv", path))))
    assert doc["fields"] == list(rows[0])
    assert len(doc["rows"]) == len(rows) == 4
    for j, c in zip(doc["rows"], rows):
        for field, value in j.items():
            if isinstance(value, bool):
                assert c[field] == ("yes" if value else "no")
            elif isinstance(value, float):
                assert float(c[field]) == value, field
            else:
                assert c[field] == ("" if value is None else str(value)), field
    text = run("rank.py", "--all", path)
    order = [line.split()[6] for line in text.splitlines()
             if line.split()[:1] and line.split()[0].isdigit() and len(line.split()) > 8]
    assert order == [r["routine"] for r in doc["rows"] if r["fitted"]] == ["quad", "scan", "few"]
    assert doc["rows"][-1]["routine"] == "once" and doc["rows"][-1]["rank"] is None
    assert doc["metric"] == "trms" and doc["scale"] == 10.0


def table_lines(stdout):
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("calls"))
    return [line.split() for line in lines[start + 1:] if line.strip()][:-1]


def test_annotate_json_rows_are_the_table_rows(tmp_path):
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines(), threads=2)
    options = ["--min-share", "0", "--full-names", "--width", "200", "--sort", "calls"]
    doc = document("annotate.py", *options, path)
    text = [fields for fields in table_lines(run("annotate.py", *options, path))
            if len(fields) >= 14]
    assert [r["routine"] for r in doc["rows"]] == [f[12] for f in text]
    for r, f in zip(doc["rows"], text):
        assert [str(r["calls"]), str(r["self_cost"]), fmt(r["self_share"], ".2f"),
                str(r["inclusive_cost"]), fmt(r["inclusive_share"], ".2f"), str(r["distinct_trms"]),
                str(r["distinct_rms"]), fmt(r["richness"], "+.2f"), fmt(r["thread_share"], ".2f"),
                fmt(r["external_share"], ".2f"), r["trms_model"], r["rms_model"]] == f[:12]
        assert r["section"] == "merged" and r["callers"] is None and r["top_producer"] is None
    assert doc["sections"][0]["total_cost"] > 0
    per_thread = document("annotate.py", "--per-thread", *options, path)
    assert {r["section"] for r in per_thread["rows"]} == {"thread 1 (tid 1)", "thread 2 (tid 2)"}


def test_regress_json_rows_are_the_verdict_lines(tmp_path):
    base = synthetic.write_report(tmp_path / "base", [
        synthetic.Routine("sort", synthetic.COSTS["n log n"], synthetic.sizes(20)),
        synthetic.Routine("scan", synthetic.COSTS["n"], synthetic.sizes(20))])
    cand = synthetic.write_report(tmp_path / "cand", [
        synthetic.Routine("sort", synthetic.COSTS["n^2"], synthetic.sizes(20)),
        synthetic.Routine("scan", synthetic.COSTS["n"], synthetic.sizes(20))], pid=4343)
    args = ["--baseline", base, "--candidate", cand, "-v", "--min-share", "0"]
    doc = document("regress.py", *args, status=cli.EXIT_REGRESSION)
    lines = run("regress.py", *args, status=cli.EXIT_REGRESSION).splitlines()
    assert "\n".join(r["text"] for r in doc["rows"]) == "\n".join(lines[:-2])
    assert [doc["summary"], doc["verdict"]] == lines[-2:] and doc["regressions"] == 1
    sort, scan = doc["rows"]
    assert sort["verdict"] == "REGRESSION" and sort["routine"] == "sort"
    assert (sort["baseline_model"], sort["candidate_model"]) == ("n log n", "n^2")
    assert sort["delta"] == pytest.approx(sort["candidate_growth"] - sort["baseline_growth"])
    assert sort["candidate_growth_low"] <= 2 <= sort["candidate_growth_high"]
    assert scan["verdict"] == "UNCHANGED" and scan["reason"] is None


def long_callers():
    """two_callers with a caller of long name above small and big: the
    table shortens the chains to its width."""
    main, small, big, linear, quadratic = synthetic.two_callers()
    s = synthetic
    return [main, s.Routine("a_caller_whose_name_is_long_enough_to_be_shortened", s.COSTS["1"], [1],
                            caller="main"),
            s.Routine("another_caller_whose_name_is_long_enough_to_be_shortened", s.COSTS["1"],
                      [1], caller="main"),
            s.Routine("small", s.COSTS["1"], [1, 2],
                      caller="a_caller_whose_name_is_long_enough_to_be_shortened"),
            s.Routine("big", s.COSTS["1"], [1],
                      caller="another_caller_whose_name_is_long_enough_to_be_shortened"),
            linear, quadratic]


def test_contexts_json_rows_are_the_table_rows(tmp_path):
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", long_callers(), threads=2,
                                  contexts=6)
    doc = document("contexts.py", "--width", "80", path)
    text = run("contexts.py", "--width", "80", path).splitlines()
    table = [line.split() for line in text if line.strip()[:1].isdigit() and " > " in line]
    assert [r["context"] for r in doc["rows"]] == [" ".join(f[8:]) for f in table]
    for r, f in zip(doc["rows"], table):
        assert [str(r["rank"]), fmt(r["share_pct"], ".2f"), fmt(r["predicted_share_pct"], ".2f"),
                "ok" if r["conclusive"] else "?", str(r["calls"]), str(r["sizes"]), r["model"],
                fmt(r["r2"], ".4f")] == f[:8]
        assert r["routine"] == "work" and r["chain"][-1] == "work" and r["chain"][0] == "main"
    assert [r["model"] for r in doc["rows"]] == ["n^2", "n"] and doc["depth_limit"] == 6
    assert [r["context"] for r in doc["rows"]] == [
        "… > another_caller_whose_name_is_long_enough_to_be_shortened > … > work",
        "… > a_caller_whose_name_is_long_enough_to_be_shortened > … > work"]


def test_producers_json_rows_are_the_text_lines(tmp_path):
    path = tmp_path / "aprof-trms.out.1"
    path.write_text(sources_example())
    doc = document("producers.py", path)
    text = run("producers.py", path).splitlines()
    lines = [line.split(None, 2) for line in text if line.startswith("  ")]
    assert [(fmt(r["share_pct"], ".2f") + "%", f"{r['reads']:,}", r["producer"])
            for r in doc["rows"]] == [tuple(f) for f in lines]
    consumers = [line.split(":")[0] for line in text if not line.startswith("  ")]
    assert list(dict.fromkeys(r["consumer"] for r in doc["rows"])) == consumers
    assert {r["producer_kind"] for r in doc["rows"]} == {"thread", "kernel", "outside"}
