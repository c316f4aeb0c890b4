# SPDX-License-Identifier: GPL-2.0-or-later
"""Reads decided inline (--inline-reads, instrument.cc): the generated code
ends a read whose slots are all at or above the thread's fence and calls
the read hooks for every other one. It must skip exactly reads that the
engine would end without a change, so a deterministic single-threaded run
gives the same report, record for record, with the inline path and
without it: at every resolution on accesses.cc (reads within a cell,
across cells, across 64 KiB chunks, vectors, dirty helpers), and on two
real programs."""
import pytest

from test_instrumenter import CPU_PATH
from toolrun import Spec, needs_program, program, run_tools

# Report lines that may differ between two runs of the same program.
RUN_BOUND = ("pid", "interval")

SQL = b"""
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
INSERT INTO t SELECT i, hex(i * 7919), i * 0.5 FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(c) FROM t WHERE b LIKE '1%';
SELECT x.a, y.a FROM t x JOIN t y ON x.b = y.b WHERE x.a < 200 ORDER BY 1 LIMIT 5;
"""


def records(run):
    """The report's lines, without those bound to the run."""
    text = (run.dir / f"aprof.{run.pid}").read_text()
    return [line for line in text.splitlines() if line.split("\t", 1)[0] not in RUN_BOUND]


def assert_same_reports(tmp_path, argv, opts=(), stdin=None):
    inline, called = run_tools(tmp_path, [
        Spec(argv, list(opts) + [f"--inline-reads={choice}"], stdin=stdin, cwd=tmp_path)
        for choice in ("yes", "no")])
    with_path, without = records(inline), records(called)
    assert len(with_path) == len(without) and with_path == without, (
        "first differing line, inline then called: " +
        next((f"{a!r} / {b!r}" for a, b in zip(with_path, without) if a != b),
             f"{len(with_path)} lines / {len(without)} lines"))


@pytest.mark.parametrize("resolution", [1, 2, 4, 8, 16])
def test_accesses_report_the_same_with_reads_decided_inline(tmp_path, resolution):
    assert_same_reports(tmp_path, [program("accesses"), CPU_PATH],
                        [f"--memory-resolution={resolution}"])


def test_sqlite_reports_the_same_with_reads_decided_inline(tmp_path):
    assert_same_reports(tmp_path, [needs_program("sqlite3"), ":memory:"], stdin=SQL)


def test_gzip_reports_the_same_with_reads_decided_inline(tmp_path):
    data = tmp_path / "input.txt"
    data.write_text("".join(f"{i * 7919 % 1000:03d} input sensitive\n" for i in range(20000)))
    assert_same_reports(tmp_path, [needs_program("gzip"), "-c", str(data)])
