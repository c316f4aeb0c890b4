# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the flat annotate view (scripts/annotate.py).
#
# Copyright (C) 2026, the aprof-trms authors.
"""The annotate command run as a subprocess on synthetic reports: one line
per routine with the numbers of aprof_trms.table, sort keys, the threshold
(--min-share), the selection options, per-thread tables, the width of a
terminal, and its errors."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
ANNOTATE = os.path.join(SCRIPTS, "annotate.py")
import synthetic  # noqa: E402

LONG = ("std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"
        "(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)")


def routines():
    s = synthetic
    return [s.Routine("scan", s.COSTS["n"], s.sizes(8), calls=2, rms=lambda n: n // 3),
            s.Routine("flat", s.COSTS["1"], s.sizes(2), calls=3),
            s.Routine("quad", s.COSTS["n^2"], s.sizes(6)),
            s.Routine("speck", lambda n: 1.0, [1]),
            s.Routine(LONG, s.COSTS["n"], s.sizes(5), object="/usr/lib/libstdc++.so.6")]


def annotate(*args):
    proc = subprocess.run([sys.executable, ANNOTATE, *map(str, args)], capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def words(text):
    """The text with its lines joined (the last lines are wrapped to the width)."""
    return " ".join(text.split())


def table_lines(stdout):
    """{routine: fields} of the lines of the (first) table."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("calls"))
    rows = {}
    for line in lines[start + 1:]:
        if not line.strip():
            break
        fields = line.split()
        rows[" ".join(fields[12:-1])] = fields
    return rows


def test_one_line_per_routine_with_its_numbers(tmp_path):
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines(), threads=2)
    proc = annotate(report, "--full-names", "--min-share", "0")
    assert proc.returncode == 0, proc.stderr
    rows = table_lines(proc.stdout)
    assert set(rows) == {"scan", "flat", "quad", "speck", LONG}
    scan = rows["scan"]
    cost = sum(c for _, _, c in synthetic.activations(routines()[0]))
    assert scan[0] == "16" and scan[1] == str(cost) and scan[3] == str(cost)
    assert scan[5] == "8"                                   # distinct TRMS
    assert scan[10:12] == ["n", "n"]
    assert rows["quad"][10] == "n^2?"     # 6 sizes: inconclusive, marked
    assert rows["flat"][10:12] == ["-", "-"]
    assert scan[-1] == "[synthetic]" and rows[LONG][-1] == "[libstdc++.so.6]"
    # Default order: inclusive cost, largest first.
    incl = [int(f[3]) for f in rows.values()]
    assert incl == sorted(incl, reverse=True)


def test_sort_threshold_selection_and_top(tmp_path):
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines(), threads=2)
    by_calls = table_lines(annotate(report, "--sort", "calls", "--ascending", "--full-names").stdout)
    calls = [int(f[0]) for f in by_calls.values()]
    assert calls == sorted(calls)
    # speck costs one basic block: under the default threshold of 0.1%.
    proc = annotate(report, "--full-names")
    assert "speck" not in table_lines(proc.stdout)
    assert "1 below 0.1% of the cost (e.g. speck)" in words(proc.stdout)
    assert set(table_lines(annotate(report, "--object", "libstdc++", "--full-names").stdout)) == {LONG}
    assert set(table_lines(annotate(report, "-r", "std::vector<int>::_M_realloc_insert",
                                    "--full-names").stdout)) == {LONG}
    top = annotate(report, "--sort", "distinct_trms", "-n", "2", "--full-names")
    assert list(table_lines(top.stdout)) == ["scan", "quad"]
    assert "Shown: the first 2 of 4 (--top)." in words(top.stdout)


def test_per_thread_tables(tmp_path):
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines(), threads=2)
    proc = annotate(report, "--per-thread", "--min-share", "0", "--full-names")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("thread 1 (tid 1): total cost")
    second = proc.stdout[proc.stdout.index("thread 2 (tid 2): total cost"):]
    # scan's 16 activations alternate between the two threads.
    assert table_lines(proc.stdout)["scan"][0] == "8" and table_lines(second)["scan"][0] == "8"


def test_lines_fit_the_width_and_full_names_on_request(tmp_path):
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines(), threads=2)
    proc = annotate(report, "--width", "140")
    assert max(len(line) for line in proc.stdout.splitlines() if "[" in line) <= 140
    assert LONG not in proc.stdout and "_M_realloc_insert" in proc.stdout
    assert LONG in annotate(report, "--width", "140", "--full-names").stdout
    # Not a terminal: 120 columns unless COLUMNS says otherwise.
    env_proc = subprocess.run([sys.executable, ANNOTATE, report], capture_output=True, text=True,
                              env=dict(os.environ, COLUMNS="150"), timeout=300)
    assert max(len(line) for line in env_proc.stdout.splitlines() if "[" in line) <= 150


def test_a_pipe_gets_whole_names(tmp_path):
    """Not a terminal and no COLUMNS (a pipe to grep, a file): names are
    not cut (they were cut to about 11 characters beside the producer
    columns); the prose below the table wraps at 120."""
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines(), threads=2)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    proc = subprocess.run([sys.executable, ANNOTATE, "--min-share", "0", report],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert LONG in proc.stdout
    prose = proc.stdout.split("\n\n")[-1]
    assert prose.strip() and max(map(len, prose.splitlines())) <= 120


def test_no_negative_zero(tmp_path):
    """A richness just below zero (one TRMS size fewer than 300 RMS sizes)
    is +0.00, not -0.00."""
    from aprof_trms import annotate as aprof_annotate, profile as aprof_profile, table
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines())
    rows = table.routine_rows(aprof_profile.load_profile([report]), fit=False)
    rows[0].richness = (299 - 300) / 300
    lines = list(aprof_annotate.format_table(rows, 200, True))
    assert " +0.00 " in lines[1] and "-0.00" not in "\n".join(lines)


def test_errors(tmp_path):
    proc = annotate(tmp_path / "missing")
    assert proc.returncode == 1 and "missing" in proc.stderr
    bad = tmp_path / "aprof-trms.out.2"
    bad.write_text("not a report\n")
    proc = annotate(bad)
    assert proc.returncode == 1 and "aprof-trms.out.2:1" in proc.stderr
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines())
    assert annotate(report, "--width", "10").returncode == 2
    assert annotate(report, "--sort", "bogus").returncode == 2
    proc = annotate(report, "-r", "no_such_routine")
    assert proc.returncode == 1 and "no routine matches" in proc.stderr


def call_graph():
    """main calls left (3 activations) and right (2); both call leaf."""
    s = synthetic
    return [s.Routine("main", s.COSTS["1"], [1]),
            s.Routine("left", s.COSTS["n"], [4, 5, 6], caller="main"),
            s.Routine("right", s.COSTS["n"], [7, 8], caller="main"),
            s.Routine("leaf", s.COSTS["n^2"], s.sizes(3), caller="left"),
            s.Routine("leaf", s.COSTS["n^2"], s.sizes(2, first=30), calls=2, caller="right")]


def tree_groups(stdout):
    """{routine: [(mark, inclusive cost, share, calls, other routine)]} of --tree output."""
    groups = {}
    current = None
    for line in table_lines_and_edges(stdout):
        if line.lstrip().startswith(("<", ">")):
            mark, cost, share, calls, name, _ = line.split()
            groups[current].append((mark, int(cost), float(share.strip("(%)")),
                                    int(calls.rstrip("x")), name))
        else:
            current = " ".join(line.split()[12:-1])
            groups[current] = []
    return groups


def table_lines_and_edges(stdout):
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("calls"))
    return [line for line in lines[start + 1:] if line.strip() and not line.startswith("chose")]


def test_tree_lists_callers_and_callees_with_their_numbers(tmp_path):
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", call_graph(), threads=2)
    graph = call_graph()
    cost = {}
    calls = {}
    for entry in graph[1:]:
        edge = (entry.caller, entry.name)
        cost[edge] = cost.get(edge, 0) + sum(c for _, _, c in synthetic.activations(entry))
        calls[edge] = calls.get(edge, 0) + len(synthetic.activations(entry))
    total = sum(t.total_cost for t in synthetic.aprof_report.load(report).threads.values())

    def expected(mark, a, b):
        other = a if mark == "<" else b
        return (mark, cost[(a, b)], round(100.0 * cost[(a, b)] / total, 2), calls[(a, b)], other)

    both = tree_groups(annotate(report, "--tree=both", "--min-share", "0").stdout)
    assert set(both) == {"main", "left", "right", "leaf"}
    assert both["main"] == sorted([expected(">", "main", "left"), expected(">", "main", "right")],
                                  key=lambda e: -e[1])
    assert both["leaf"] == sorted([expected("<", "left", "leaf"), expected("<", "right", "leaf")],
                                  key=lambda e: -e[1])
    assert both["left"] == [expected("<", "main", "left"), expected(">", "left", "leaf")]
    callers = tree_groups(annotate(report, "--tree=caller", "--min-share", "0").stdout)
    assert callers["main"] == [] and callers["left"] == [expected("<", "main", "left")]
    calling = tree_groups(annotate(report, "--tree=calling", "--min-share", "0").stdout)
    assert calling["leaf"] == [] and calling["left"] == [expected(">", "left", "leaf")]
    # Without --tree, the table alone.
    assert all(v == [] for v in tree_groups(annotate(report, "--min-share", "0").stdout).values())


def test_tree_without_call_records_says_so(tmp_path):
    text = synthetic.report_text(routines()).replace(
        f"{synthetic.aprof_report.MAGIC}\t{synthetic.aprof_report.FORMAT_VERSION}\n",
        f"{synthetic.aprof_report.MAGIC}\t2\n", 1)
    path = tmp_path / "aprof-trms.out.1"
    path.write_text(text)
    proc = annotate(path, "--tree=both", "--width", "200")
    assert proc.returncode == 0 and "no call records" in proc.stdout
    assert annotate(path, "--tree=up").returncode == 2


def test_top_fits_only_the_rows_shown(tmp_path, monkeypatch, capsys):
    # With --top, only the rows shown are fitted (a program has 100,000s of
    # routines), unless the order itself comes from the fits; the rows are
    # those of the whole table.
    from aprof_trms import annotate as annotate_module, fit
    report = synthetic.write_report(tmp_path / "aprof-trms.out.1", routines(), threads=2)
    fitted = []

    def counting(routines_, metrics, *args):
        fitted.extend(r.name for r in routines_ for _ in metrics)
        return real(routines_, metrics, *args)
    real = fit.fit_routines_by_metric
    monkeypatch.setattr(fit, "fit_routines_by_metric", counting)
    everything = annotate(report, "--min-share", "0", "--full-names").stdout
    for sort, fitted_rows in (("inclusive_cost", 2), ("trms_growth", 5)):
        fitted.clear()
        assert annotate_module.main([report, "--min-share", "0", "--full-names", "-n", "2",
                                     "--sort", sort, "--width", "120"]) == 0
        assert len(fitted) == 2 * fitted_rows   # TRMS and RMS
        shown = table_lines(capsys.readouterr().out)
        assert len(shown) == 2
        if sort == "inclusive_cost":
            assert shown == dict(list(table_lines(everything).items())[:2])
