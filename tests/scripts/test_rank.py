# SPDX-License-Identifier: GPL-2.0-or-later
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
        m = re.match(r"\s*\d+\s+\d+\.\d\d\s+\d+\.\d\d\s+(?:ok|\?|pts)\s+\d+\s+\d+\s+(\S+)", line)
        if m:
            names.append(m.group(1))
        if line.startswith("Not fitted"):
            break
    return names


def why(stdout, name):
    """The one-line reason of a routine's row."""
    m = re.search(rf"^\s*\d+\. {re.escape(name)}: (.*)$", stdout, re.M)
    assert m, stdout
    return m.group(1)


def scaling(path, **options):
    """lin costs 8 times more than quad today; at 10x input quad (n^2) costs
    more than lin (n), at 2x it does not."""
    sizes = synthetic.sizes(12)
    return synthetic.write_report(path, [
        synthetic.Routine("lin", lambda n: 8 * (1000 + 100 * n), sizes, noise=0.01),
        synthetic.Routine("quad", lambda n: 1000 + n * n * 300 / sizes[-1], sizes, noise=0.01),
        synthetic.Routine("const", lambda n: 5e4, sizes, noise=0.01),
        synthetic.Routine("tiny", C["n^3"], synthetic.sizes(12, first=2), noise=0.01),
        synthetic.Routine("few", lambda n: 1e4 * n, synthetic.sizes(6), object="/lib/libfew.so.1"),
        synthetic.Routine("once", lambda n: 1e6, [100]),
    ], **options)


def test_ranked_by_predicted_share_at_scale(tmp_path):
    path = scaling(tmp_path / "aprof-trms.out.1")
    r = run(path)
    assert r.returncode == 0, r.stderr
    assert order(r.stdout)[:3] == ["quad", "lin", "const"]
    assert order(run("--scale", "2", path).stdout)[:3] == ["lin", "quad", "const"]
    rows = {line.split()[6]: line for line in r.stdout.splitlines() if re.match(r"\s*\d+\s+\d+\.", line)}
    # The model with its exponent's 95% interval, then the formula.
    assert re.search(r"\bn\^2 \[1\.9\d, 2\.0\d\]\s+\S+ \+ \S+·n\^2\s+(0\.99\d\d|1\.0000)", rows["quad"])
    assert re.fullmatch(r"\d+\.\d\d% now, \d+\.\d\d% at 10x input \(n\^2 \[1\.9\d, 2\.0\d\], R\^2 1\.00, "
                        r"12 sizes\); confident", why(r.stdout, "quad"))
    now, later = map(float, re.findall(r"(\d+\.\d\d)%", why(r.stdout, "quad")))
    assert later > 4 * now and later < 100


def test_inconclusive_never_above_confident(tmp_path):
    """few carries most of the cost and grows fastest, but 6 sizes are too
    few to trust: it comes after every confident fit, and says why."""
    r = run(scaling(tmp_path / "r"))
    got = order(r.stdout)
    assert got[-1] == "few", r.stdout
    assert "inconclusive: only 6 distinct sizes" in why(r.stdout, "few")
    assert re.search(r"^\s*\d+\s+\S+\s+\S+\s+\?\s+\d+\s+6\s+few\b", r.stdout, re.M)


def test_inconclusive_rows_in_the_order_of_their_cost_today(tmp_path):
    """An inconclusive fit's growth is not trusted (it does not grow the
    program's predicted cost either): inconclusive rows come in the order
    of their share today, after the confident ones. Go's allocator
    routine `heapBitsSetType` (n^3, R^2 0.55 over 9 sizes of 13 to 50
    cells, 4.8% of the cost, 100% predicted) came first in a run of shfmt
    without confident rows, above the printer's statement list (28%)."""
    sizes = synthetic.sizes(6)
    path = synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("steep", lambda n: n ** 3, sizes),
        synthetic.Routine("large", lambda n: 2000 * n, sizes),
        synthetic.Routine("sure", lambda n: 1e5 * n, synthetic.sizes(12), noise=0.01)])
    rows = ranked(path, ["steep", "large", "sure"])
    assert not rows["steep"].conclusive and not rows["large"].conclusive and rows["sure"].conclusive
    assert rows["steep"].predicted_share > rows["large"].predicted_share
    assert rows["large"].share > rows["steep"].share
    assert order(run(path, "--min-share", "0").stdout) == ["sure", "large", "steep"]


def test_default_choice_and_floor(tmp_path):
    r = run(scaling(tmp_path / "r"))
    assert "tiny" not in order(r.stdout)                     # under 1% of the cost
    assert "once" not in r.stdout.split("Selection:")[1].split("\n", 1)[1]
    assert re.search(r"Selection: chose 4 of 6 routines; left out: 1 with fewer than 5 distinct "
                     r"input sizes.*1 below 1% of the cost", r.stdout)
    assert "tiny" in order(run("--min-share", "0", tmp_path / "r").stdout)


def test_not_fitted_listed_after_with_the_reason(tmp_path):
    r = run("--all", scaling(tmp_path / "r"))
    table, _, rest = r.stdout.partition("Not fitted (1 routine):")
    assert "once" not in table
    assert re.search(r"once\s+synthetic\s+not fitted: 1 distinct trms size, 5 needed", rest)


def test_csv(tmp_path):
    r = run("--format", "csv", "--all", scaling(tmp_path / "r", threads=2))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [row["routine"] for row in rows][:4] == ["quad", "lin", "tiny", "const"]  # tiny: n^3
    assert [row["routine"] for row in rows][-2:] == ["few", "once"]
    assert [row["conclusive"] for row in rows][-2:] == ["no", ""]
    assert [row["model"] for row in rows[:4]] == ["n^2", "n", "n^3", "1"]
    assert [float(row["growth"]) for row in rows[:4]] == [2.0, 1.0, 3.0, 0.0]
    assert float(rows[3]["growth_factor"]) == 1.0
    assert float(rows[0]["growth_factor"]) == pytest.approx(100, rel=0.05)
    assert rows[0]["object"] == "/usr/bin/synthetic" and rows[0]["distinct_sizes"] == "12"
    assert rows[0]["method"] == "AICc" and rows[0]["runner_up"]
    assert rows[-1]["reason"] == "not fitted: 1 distinct trms size, 5 needed"
    assert abs(sum(float(row["share_pct"]) for row in rows) - 100.0) < 1.0  # 1000 per thread left


def test_top(tmp_path):
    assert order(run("--top", "1", scaling(tmp_path / "r")).stdout) == ["quad"]


def test_rank_routines_api(tmp_path):
    from aprof_trms import profile as aprof_profile, ranking
    prof = aprof_profile.load_profile([scaling(tmp_path / "r")])
    rows = ranking.rank_routines(prof, list(prof.routines.values()))
    assert [r.routine.name for r in rows][:4] == ["quad", "lin", "tiny", "const"]
    assert all(r.reason for r in rows)
    confident = [r.conclusive for r in rows if r.fitted]
    assert confident == sorted(confident, reverse=True)


def test_metric_rms(tmp_path):
    # RMS saturates at 16 cells (a buffer re-read): 3 distinct RMS sizes.
    path = synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("reader", C["n"], synthetic.sizes(12), rms=lambda n: min(n, 16))])
    assert order(run(path).stdout) == ["reader"]
    r = run("--metric", "rms", "--all", path)
    assert order(r.stdout) == []
    assert "not fitted: 3 distinct rms sizes, 5 needed" in r.stdout


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
    good = scaling(tmp_path / "good")
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
    a = scaling(tmp_path / "a")
    b = scaling(tmp_path / "b", cost_metric="instructions")
    r = run(a, b)
    assert r.returncode == 1
    assert "cannot be merged" in r.stderr
    r = run(tmp_path / "a", tmp_path / "missing")
    assert r.returncode == 1 and "missing" in r.stderr


def test_help():
    r = run("--help")
    assert r.returncode == 0
    for option in ("--metric", "--min-share", "--top", "--format", "--statistic", "--scale",
                   "--short-names", "--hide-libc"):
        assert option in r.stdout


def test_short_names(tmp_path):
    """--short-names: no return type, template arguments or parameters."""
    name = ("void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<int, "
            "std::allocator<int> > >, long>(__gnu_cxx::__normal_iterator<int*, std::vector<int, "
            "std::allocator<int> > >, long)")
    path = synthetic.write_report(tmp_path / "r", [
        synthetic.Routine(name, C["n log n"], synthetic.sizes(12))])
    full = run(path).stdout
    assert name in full
    short = run("--short-names", path).stdout
    assert name not in short and "void " not in short
    assert "std::__introsort_loop<…>(…)" in order(short)
    assert "std::__introsort_loop<…>(…): " in short         # the reason line too
    rows = list(csv.DictReader(io.StringIO(run("--short-names", "--format", "csv", path).stdout)))
    assert rows[0]["routine"] == "std::__introsort_loop<…>(…)"


def ranked(path, names, scale=10.0):
    """{name: Row} of rank_routines() on the routines of the report, with
    callers' inclusive costs as the tool writes them: the self cost plus
    the callees' cumulative costs (synthetic reports give callers only
    their own cost)."""
    from aprof_trms import profile as aprof_profile, rank as aprof_rank
    prof = aprof_profile.load_profile([path])
    chosen = [prof.find(name)[0] for name in names]
    for (caller, callee), _ in prof.calls.items():
        prof.routines[caller].cumulative_cost += prof.routines[callee].cumulative_cost
    rows = aprof_rank.rank_routines(prof, chosen, scale=scale, find_carriers=False)
    return {row.routine.name: row for row in rows}


def test_predicted_shares_grow_self_costs_not_inclusive_ones(tmp_path):
    """work does nearly all of the program's work, called by loop; both
    grow linearly. At 10x input work still holds nearly all of the cost:
    loop's inclusive cost holds work's, which is not grown a second time."""
    sizes = synthetic.sizes(12)
    rows = ranked(synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("loop", lambda n: 10 + n, sizes, noise=0.01),
        synthetic.Routine("work", lambda n: 1000 + 100 * n, sizes, noise=0.01, caller="loop")]),
        ["loop", "work"])
    assert rows["loop"].conclusive and rows["work"].conclusive
    assert rows["work"].share > 95
    assert rows["work"].predicted_share > 95, rows["work"].predicted_share


def test_inconclusive_growth_does_not_shrink_the_other_shares(tmp_path):
    """wild's free exponent sits at the fitter's bound (at least n^4: its
    growth is not known); lin holds half of the cost and grows 10x at 10x
    input. The rest of the program is taken as it is today, so lin's
    share grows."""
    sizes = list(range(10, 210, 10))
    rows = ranked(synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("lin", lambda n: 1e11 * n, sizes),
        synthetic.Routine("wild", lambda n: 10 + n ** 6, sizes)]), ["lin", "wild"])
    assert rows["lin"].conclusive and not rows["wild"].conclusive
    assert 40 < rows["lin"].share < 60
    assert rows["lin"].predicted_share > 80, rows["lin"].predicted_share


def karatsuba_and_its_addition(path, mul_sizes):
    """bc's squaring: mul (Karatsuba, 50·d^1.58 in d digits) over sizes
    that also hold the allocator's slowly growing state, the first mul_sizes
    of 30 numbers of 100 to 20,000 digits; add, a linear addition it calls,
    holds about a fifth of mul's cost."""
    digits = synthetic.sizes(30, 100, 1.2)[:mul_sizes]
    cost = {int(d / 4 + 100 * (d / 100) ** 0.33): 50 * d ** 1.58 for d in digits}
    add_sizes = synthetic.sizes(12, 25, 1.6)
    per_cell = 0.25 * sum(cost.values()) / sum(add_sizes) / 4
    return synthetic.write_report(path, [
        synthetic.Routine("mul", cost.get, sorted(cost), noise=0.01),
        synthetic.Routine("add", lambda n: 20 + per_cell * n, add_sizes, calls=4, noise=0.01,
                          caller="mul")])


def test_a_model_steeper_than_its_points_alone_ranks_by_their_slope(tmp_path):
    """mul's n^2 grows faster at the largest sizes than its points (slope
    1.7): its one doubt. Its points are many, spread and well fitted: it
    is ranked with the confident fits by their slope, which its row gives as
    its growth, and add, inside mul's growing cost, is predicted a
    shrinking share (not 10x its share today against a mul taken as
    constant)."""
    rows = ranked(karatsuba_and_its_addition(tmp_path / "r", 30), ["mul", "add"])
    mul, add = rows["mul"], rows["add"]
    assert add.conclusive and not mul.conclusive and mul.by_points
    assert list(rows) == ["mul", "add"]
    assert mul.follows_points and mul.growth == pytest.approx(mul.result.points_slope)
    assert 1.6 < mul.growth < 1.8
    assert add.predicted_share < add.share
    r = run(tmp_path / "r")
    assert order(r.stdout) == ["mul", "add"], r.stdout
    assert re.search(r"^\s*1\s+\S+\s+\S+\s+pts\s+\d+\s+\d+\s+mul\b", r.stdout, re.M), r.stdout
    assert re.search(r"; its model alone is in doubt: grows with slope 2\.0\d at the largest sizes, where "
                     r"its points rise with slope 1\.7\d; ranked with the confident fits by its points' "
                     r"slope$", why(r.stdout, "mul"))
    row = next(row for row in csv.DictReader(io.StringIO(run("--format", "csv", tmp_path / "r").stdout))
               if row["routine"] == "mul")
    assert float(row["growth"]) == pytest.approx(mul.growth, abs=1e-6)
    assert row["growth_low"] == row["growth_high"] == ""   # a slope has no interval


def test_a_model_steeper_than_its_points_with_other_doubts_stays_inconclusive(tmp_path):
    """The same mul over its 7 smallest numbers: too few sizes to trust
    the points either, so after the confident add."""
    rows = ranked(karatsuba_and_its_addition(tmp_path / "r", 7), ["mul", "add"])
    assert not rows["mul"].conclusive and not rows["mul"].by_points
    assert list(rows) == ["add", "mul"]


def test_a_garbage_collector_comes_after_the_programs_routines(tmp_path):
    """Go's collector marks the heap the program allocated: scanobject grows
    steeper than the parser and holds more of the cost, but it is no
    algorithm of the program. It comes after the program's confident and
    inconclusive routines, and its row says why."""
    sizes = synthetic.sizes(14)
    path = synthetic.write_report(tmp_path / "r", [
        synthetic.Routine("runtime.scanobject", lambda n: 200 + n * n / 2, sizes, noise=0.01),
        synthetic.Routine("main.parse", lambda n: 1000 + 20 * n, sizes, noise=0.01),
        synthetic.Routine("main.few", lambda n: 100 * n, synthetic.sizes(6)),
    ])
    r = run("--min-share", "0", path)
    assert r.returncode == 0, r.stderr
    assert order(r.stdout) == ["main.parse", "main.few", "runtime.scanobject"], r.stdout
    assert why(r.stdout, "runtime.scanobject").endswith(
        "; confident; the language runtime's garbage collector: its work grows with the heap the "
        "program allocates, not with an algorithm of the program, so after the program's routines")
