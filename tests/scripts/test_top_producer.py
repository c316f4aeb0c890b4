# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the top producer column of the routine table (aprof_trms/table.py)
# in the annotate view and the HTML report.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Each routine's top producer and its share of the routine's own induced
reads, on the input-sources example of docs/report-format.md: consume_data
reads 200 cells written by produce_data on thread 1 and 2 written outside
every routine (200 / 202 = 99.01%); produce_data's 16 induced reads all come
from the system call read. Reports without source records have no such
column, in the table, the annotate view and the HTML report."""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
from aprof_trms import profile as aprof_profile  # noqa: E402
from aprof_trms import report as aprof_report  # noqa: E402
from aprof_trms import sources  # noqa: E402
from aprof_trms import table  # noqa: E402
from source_reports import sources_example, without_sources  # noqa: E402

CONSUMER_SHARE = 100.0 * 200 / 202


def write(tmp_path, text):
    path = tmp_path / "aprof-trms.out.1"
    path.write_text(text)
    return str(path)


def run(script, *args):
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *map(str, args)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout


def test_rows_name_the_top_producer_and_its_share(tmp_path):
    profile = aprof_profile.load_profile([write(tmp_path, sources_example())])
    rows = {row.name: row for row in table.routine_rows(profile)}
    assert rows["consume_data"].top_producer == "produce_data"
    assert abs(rows["consume_data"].top_producer_share - CONSUMER_SHARE) < 1e-9
    assert (rows["produce_data"].top_producer, rows["produce_data"].top_producer_share) == \
        ("syscall read", 100.0)
    assert table.columns_of(profile) == table.COLUMNS + table.SOURCE_COLUMNS


def test_runs_merged_add_their_reads(tmp_path):
    """Two runs of the example (another pid): each producer wrote twice as
    many of the consumer's cells; the shares stay."""
    first = write(tmp_path, sources_example())
    second = tmp_path / "aprof-trms.out.2"
    second.write_text(re.sub(r"^pid\t\d+", "pid\t77", sources_example(), flags=re.M))
    profile = aprof_profile.load_profile([first, str(second)])
    rows = {row.name: row for row in table.routine_rows(profile)}
    consumer = rows["consume_data"].routine.key
    assert [(p.label, reads) for p, reads in sources.top_producers(profile, consumer, 2)] == \
        [("produce_data", 400), ("(outside every routine)", 4)]
    assert abs(rows["consume_data"].top_producer_share - CONSUMER_SHARE) < 1e-9


def test_per_thread_rows_keep_their_own_thread_sources(tmp_path):
    rep = aprof_report.load(write(tmp_path, sources_example()))
    (_, first), (_, second) = table.thread_profiles([rep])
    first_rows = {row.name: row for row in table.routine_rows(first)}
    second_rows = {row.name: row for row in table.routine_rows(second)}
    # consume_data runs in thread 2 only, produce_data in thread 1 only.
    assert set(first_rows) == {"produce_data"} and set(second_rows) == {"consume_data"}
    assert first_rows["produce_data"].top_producer == "syscall read"
    assert second_rows["consume_data"].top_producer == "produce_data"
    assert abs(second_rows["consume_data"].top_producer_share - CONSUMER_SHARE) < 1e-9
    assert {k for k in first.sources if k is not None} == {first_rows["produce_data"].routine.key}


def test_rows_without_sources_have_no_top_producer(tmp_path):
    profile = aprof_profile.load_profile([write(tmp_path, without_sources(sources_example()))])
    rows = table.routine_rows(profile)
    assert rows and all(row.top_producer == "" and row.top_producer_share == 0.0 for row in rows)
    assert table.columns_of(profile) == table.COLUMNS


def annotate_lines(stdout):
    """{routine: line} of the table's lines, and the header line."""
    lines = stdout.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("calls"))
    start = lines.index(header) + 1
    rows = {}
    for line in lines[start:]:
        if not line.strip():
            break
        rows[line.split()[-2]] = line
    return header, rows


def test_annotate_shows_the_top_producer_column(tmp_path):
    out = run("annotate.py", "--min-share", "0", "--width", "160", write(tmp_path, sources_example()))
    header, rows = annotate_lines(out)
    assert re.search(r"RMS model +prod% top producer +routine \[object\]$", header), header
    assert re.search(r" 99\.01 produce_data +consume_data \[consumer\]$", rows["consume_data"])
    assert re.search(r" 100\.00 syscall read +produce_data \[consumer\]$", rows["produce_data"])


def test_annotate_without_sources_has_no_producer_column(tmp_path):
    out = run("annotate.py", "--min-share", "0", "--width", "160",
              write(tmp_path, without_sources(sources_example())))
    header, rows = annotate_lines(out)
    assert header.endswith("RMS model routine [object]") and "prod%" not in out
    assert re.search(r" - +- consume_data \[consumer\]$", rows["consume_data"])


def page_data(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>',
                                text, re.S).group(1))


def test_html_rows_carry_the_top_producer(tmp_path):
    out = tmp_path / "r.html"
    run("html_report.py", "-o", out, write(tmp_path, sources_example()))
    data = page_data(out)
    keys = [c[0] for c in data["columns"]]
    assert keys[-2:] == ["top_producer_share", "top_producer"]
    rows = {row[0]: row for row in data["rows"]}
    # Fields 16 and 17: top producer and share (F in report.js).
    assert rows["consume_data"][16] == "produce_data"
    assert rows["consume_data"][17] == round(CONSUMER_SHARE, 2)
    assert rows["produce_data"][16:18] == ["syscall read", 100.0]


def test_html_without_sources_has_no_producer_column(tmp_path):
    out = tmp_path / "r.html"
    run("html_report.py", "-o", out, write(tmp_path, without_sources(sources_example())))
    data = page_data(out)
    assert not {"top_producer", "top_producer_share"} & {c[0] for c in data["columns"]}
    assert all(row[16] == "" for row in data["rows"])
