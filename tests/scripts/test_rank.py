"""Tests of scripts/rank.py (bottleneck ranking), run as a program on
synthetic reports."""
import csv
import io
import os
import re
import subprocess
import sys

import pytest

import synthetic

RANK = os.path.join(synthetic.SCRIPTS, "rank.py")
C = synthetic.COSTS


def run(*args):
    return subprocess.run([sys.executable, RANK, *map(str, args)], capture_output=True,
                          text=True, encoding="utf-8", timeout=120)


def order(stdout):
    """Routine names of the ranked table, in order."""
    names = []
    for line in stdout.splitlines():
        m = re.match(r"\s*\d+\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+\s+\d+\s+(\S+)", line)
        if m:
            names.append(m.group(1))
        if line.startswith("Not fitted"):
            break
    return names


def three_classes(path, **options):
    """quad < lin < const by cost share, so the order by growth is the
    reverse of the order by share."""
    return synthetic.write_report(path, [
        synthetic.Routine("const", lambda n: 1e6, synthetic.sizes(20), noise=0.01),
        synthetic.Routine("lin", C["n"], synthetic.sizes(20), noise=0.01),
        synthetic.Routine("quad", lambda n: 100 + 0.01 * n * n, synthetic.sizes(12), noise=0.01),
        synthetic.Routine("few", C["n^2"], synthetic.sizes(3), object="/lib/libfew.so.1"),
    ], **options)


def test_quadratic_before_linear_before_constant(tmp_path):
    r = run(three_classes(tmp_path / "aprof-trms.out.1"))
    assert r.returncode == 0, r.stderr
    assert order(r.stdout) == ["quad", "lin", "const"]
    rows = {line.split()[5]: line for line in r.stdout.splitlines() if re.match(r"\d+\s", line)}
    assert re.search(r"\bn\^2\s+\S+ \+ 0\.01\d*·n\^2\s+0\.99\d\d\s+-\d+\.\d", rows["quad"])
    assert re.search(r"\bn\s+\S+ \+ 3·n\b", rows["lin"])
    assert "1e+06" in rows["const"]


def test_share_breaks_ties_between_equal_growth(tmp_path):
    path = synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("a_small", C["n"], synthetic.sizes(10)),
        synthetic.Routine("z_big", lambda n: 50 * C["n"](n), synthetic.sizes(10)),
    ])
    assert order(run(path).stdout) == ["z_big", "a_small"]


def test_not_fitted_listed_after_with_the_reason(tmp_path):
    r = run(three_classes(tmp_path / "r"))
    table, _, rest = r.stdout.partition("Not fitted (1 routine):")
    assert "few" not in table
    assert re.search(r"\b3\s+3\s+few\s+libfew\.so\.1\s+3 distinct trms sizes, 5 needed", rest)


def test_csv(tmp_path):
    r = run("--format", "csv", three_classes(tmp_path / "r", threads=2))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [row["routine"] for row in rows] == ["quad", "lin", "const", "few"]
    assert [row["fitted"] for row in rows] == ["yes", "yes", "yes", "no"]
    assert [row["model"] for row in rows[:3]] == ["n^2", "n", "1"]
    assert [float(row["growth"]) for row in rows[:3]] == [2.0, 1.0, 0.0]
    assert rows[0]["object"] == "/usr/bin/synthetic" and rows[0]["distinct_sizes"] == "12"
    assert rows[0]["method"] == "AICc" and rows[0]["runner_up"]
    assert float(rows[0]["b"]) == pytest.approx(0.01, rel=0.05)
    assert rows[3]["reason"] == "3 distinct trms sizes, 5 needed"
    assert abs(sum(float(row["share_pct"]) for row in rows) - 100.0) < 1.0  # 1000 per thread left


def test_min_share_and_top(tmp_path):
    path = three_classes(tmp_path / "r")
    r = run("--min-share", "0.1", path)
    assert order(r.stdout) == ["lin", "const"]       # quad is under 0.1% of the cost
    assert "Not fitted" not in r.stdout               # few too
    r = run("--top", "1", path)
    assert order(r.stdout) == ["quad"]


def test_metric_rms(tmp_path):
    # RMS saturates at 16 cells (a buffer re-read): 3 distinct RMS sizes.
    path = synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("reader", C["n"], synthetic.sizes(12), rms=lambda n: min(n, 16))])
    assert order(run(path).stdout) == ["reader"]
    r = run("--metric", "rms", path)
    assert order(r.stdout) == []
    assert "3 distinct rms sizes, 5 needed" in r.stdout


def test_directory_of_reports_is_merged(tmp_path):
    # Two runs, each with three sizes: only the merged profile can be fitted.
    sizes = synthetic.sizes(6)
    for i, part in enumerate((sizes[0::2], sizes[1::2]), 1):
        synthetic.write_report(tmp_path / f"aprof-trms.out.{i}",
                               [synthetic.Routine("work", C["n^2"], part)], pid=i)
    r = run(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "2 report(s)" in r.stdout
    assert order(r.stdout) == ["work"]
    assert re.search(r"\b6\s+work\b.*\bn\^2\b", r.stdout)


def test_malformed_report_exits_1_with_file_and_line(tmp_path):
    good = three_classes(tmp_path / "good")
    original = open(good).read().splitlines(keepends=True)
    lines = list(original)
    bad = tmp_path / "bad"
    lineno = next(i for i, line in enumerate(lines, 1) if line.startswith("trms\t"))
    lines[lineno - 1] = lines[lineno - 1].replace("\t", "\tx", 1)
    bad.write_text("".join(lines))
    r = run(good, bad)
    assert r.returncode == 1
    assert f"{bad}:{lineno}: 'trms' record: thread is not an unsigned decimal integer" in r.stderr
    assert r.stdout == ""
    truncated = tmp_path / "truncated"
    truncated.write_text("".join(original[:20]))
    r = run(truncated)
    assert r.returncode == 1
    assert f"{truncated}:21: end of file without an 'end' record" in r.stderr


def test_reports_that_cannot_be_merged_exit_1(tmp_path):
    a = three_classes(tmp_path / "a")
    b = three_classes(tmp_path / "b", cost_metric="instructions")
    r = run(a, b)
    assert r.returncode == 1
    assert "cannot be merged" in r.stderr
    r = run(tmp_path / "a", tmp_path / "missing")
    assert r.returncode == 1 and "missing" in r.stderr


def test_help():
    r = run("--help")
    assert r.returncode == 0
    for option in ("--metric", "--min-share", "--top", "--format", "--statistic"):
        assert option in r.stdout
