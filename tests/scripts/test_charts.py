# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of scripts/charts.py (program-level charts, charts.txt), run as a
subprocess with this interpreter on hand-written reports whose induced reads
are known, including the program-wide split that counts each induced read
once (per-thread roots, see charts.py)."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
CHARTS = os.path.join(SCRIPTS, "charts.py")
from aprof_trms import report as aprof_report  # noqa: E402

OUTPUTS = ["charts.txt", "induced-by-routine", "induced-share", "induced-split",
           "input-volume", "richness"]
MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}


def header(command, pid):
    return ["aprof-trms-report\t1", "tool\taprof-trms\t0.1.0\t3.19.0", f"command\t{command}",
            f"pid\t{pid}\t1", "cost-metric\tbb", "memory-resolution\t4", "syscall-input\tall"]


def tup(metric, thread, rid, size, costs, selfs, ti, ext):
    """One trms/rms record for activations with the given costs."""
    return (f"{metric}\t{thread}\t{rid}\t{size}\t{len(costs)}\t{min(costs)}\t{max(costs)}\t"
            f"{sum(costs)}\t{sum(c * c for c in costs)}\t{sum(selfs)}\t{ti}\t{ext}")


def write(path, lines):
    lines = list(lines)
    lines.append(f"end\t{len(lines)}")
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    report = aprof_report.load(str(path))
    assert aprof_report.consistency_problems(report) == []
    return str(path)


def program_a(path):
    """Thread 1: main (the whole thread) calls child twice; every induced
    read of child is also one of main. Thread 2: worker (the whole thread)
    calls rec, recursive (3 nested activations, each read counted up to 3
    times in rec's sums). Each induced read once: thread 10 + 40, external
    30 + 0 -> 62.5% thread-induced; summed over routines: 120 / 60."""
    return write(path, header("./progA", 100) + [
        "thread\t1\t1\t1000",
        "thread\t2\t2\t500",
        "routine\t1\t0x1000\t/bin/progA\tmain\tmain",
        "routine\t2\t0x1100\t/bin/progA\tchild\tchild",
        "routine\t3\t0x1200\t/bin/progA\tworker\tworker",
        "routine\t4\t0x1300\t/bin/progA\trec\trec",
        "totals\t1\t1\t1\t700\t1000",
        "totals\t1\t2\t2\t300\t300",
        "totals\t2\t3\t1\t400\t500",
        "totals\t2\t4\t3\t100\t100",
        tup("trms", 1, 1, 100, [1000], [700], 10, 30),
        tup("trms", 1, 2, 20, [100], [100], 5, 15),
        tup("trms", 1, 2, 40, [200], [200], 5, 15),
        tup("trms", 2, 3, 50, [500], [400], 40, 0),
        tup("trms", 2, 4, 10, [30], [30], 10, 0),
        tup("trms", 2, 4, 20, [60], [30], 20, 0),
        tup("trms", 2, 4, 30, [100], [40], 30, 0),
        tup("rms", 1, 1, 60, [1000], [700], 10, 30),
        tup("rms", 1, 2, 20, [100, 200], [100, 200], 10, 30),
        tup("rms", 2, 3, 50, [500], [400], 40, 0),
        tup("rms", 2, 4, 10, [30, 60, 100], [30, 30, 40], 60, 0),
    ])


def program_b(path):
    """One thread, all induced input external: main (the whole thread) reads
    4 cells from the kernel itself and calls reader (120 external reads)."""
    return write(path, header("./progB", 200) + [
        "thread\t1\t1\t300",
        "routine\t1\t0x1000\t/bin/progB\tmain\tmain",
        "routine\t2\t0x1100\t/bin/progB\treader\treader",
        "totals\t1\t1\t1\t100\t300",
        "totals\t1\t2\t4\t200\t200",
        tup("trms", 1, 1, 150, [300], [100], 0, 124),
        tup("trms", 1, 2, 9, [20], [20], 0, 8),
        tup("trms", 1, 2, 17, [40], [40], 0, 16),
        tup("trms", 1, 2, 33, [60], [60], 0, 32),
        tup("trms", 1, 2, 65, [80], [80], 0, 64),
        tup("rms", 1, 1, 8, [300], [100], 0, 124),
        tup("rms", 1, 2, 1, [20, 40, 60, 80], [20, 40, 60, 80], 0, 120),
    ])


def program_c(path):
    """No induced reads at all (one thread, no I/O)."""
    return write(path, header("./progC", 300) + [
        "thread\t1\t1\t100",
        "routine\t1\t0x1000\t/bin/progC\tmain\tmain",
        "totals\t1\t1\t1\t100\t100",
        tup("trms", 1, 1, 10, [100], [100], 0, 0),
        tup("rms", 1, 1, 10, [100], [100], 0, 0),
    ])


@pytest.fixture
def reports(tmp_path):
    d = tmp_path / "reports"
    d.mkdir()
    return {"a": program_a(d / "aprof-trms.out.100"),
            "b": program_b(tmp_path / "aprof-trms.out.200"),
            "c": program_c(tmp_path / "aprof-trms.out.300")}


def charts(*args):
    return subprocess.run([sys.executable, CHARTS, *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def assert_ok(proc):
    assert proc.returncode == 0, f"exit {proc.returncode}\nstderr:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr


def assert_user_error(proc, *needles):
    assert proc.returncode == 1, f"exit {proc.returncode}\nstderr:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr and "error:" in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, f"{needle!r} not in stderr:\n{proc.stderr}"


def check_outputs(out, fmt):
    names = sorted(os.listdir(out))
    assert names == sorted(n if n.endswith(".txt") else f"{n}.{fmt}" for n in OUTPUTS)
    for name in names:
        if name.endswith(".txt"):
            continue
        with open(os.path.join(out, name), "rb") as f:
            head = f.read(1024)
        if fmt == "svg":
            assert b"<svg" in head, name
        else:
            assert head.startswith(MAGIC[fmt]), name


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_help():
    proc = charts("--help")
    assert proc.returncode == 0
    for option in ("--per-report", "--top", "--format", "-o OUTDIR", "--log-x"):
        assert option in proc.stdout, option


def test_program_wide_split_counts_each_read_once(reports, tmp_path):
    out = tmp_path / "out"
    proc = charts(reports["a"], "-o", out, "--size", "500x300", "--dpi", "50")
    assert_ok(proc)
    check_outputs(out, "png")
    text = read(out / "charts.txt")
    assert "== progA ==" in text
    assert "program-wide induced reads (each counted once, per-thread roots): 80" in text
    assert re.search(r"\n  thread-induced: +50 \(62\.50%\)", text), text
    assert re.search(r"\n  external: +30 \(37\.50%\)", text), text
    # The double-counting sum, for comparison.
    assert "thread-induced 120, external 60 (66.67% thread-induced)" in text
    # Roots: main in thread 1; worker, not the recursive rec, in thread 2.
    assert re.search(r"thread 1  main  100\.00%  10  30\n", text), text
    assert re.search(r"thread 2  worker  100\.00%  40  0\n", text), text
    # Per routine: richness and volume.
    assert "richness:          > 0 for 2, < 0 for 0, max 2.00" in text   # child 1, rec 2
    # Figure 9 table, sorted by induced share of the TRMS: rec 60/60, worker
    # 40/50, child 40/60, main 40/100.
    rows = re.findall(r"^ +[\d.]+ +[\d.]+ +[\d.]+ +\d+ +\d+ +\d+ +\d+  (\w+)$", text, re.M)
    assert rows == ["rec", "worker", "child", "main"], text


def test_per_report_and_formats(reports, tmp_path):
    out = tmp_path / "svg"
    proc = charts("--per-report", os.path.dirname(reports["a"]), reports["b"], reports["c"],
                  "-o", out, "--format", "svg", "--top", "2", "--log-x")
    assert_ok(proc)
    check_outputs(out, "svg")
    text = read(out / "charts.txt")
    for label in ("progA", "progB", "progC"):
        assert f"== {label} ==" in text
    b = text[text.index("== progB =="):text.index("== progC ==")]
    assert re.search(r"\n  thread-induced: +0 \(0\.00%\)", b)
    assert re.search(r"\n  external: +124 \(100\.00%\)", b)   # root main, reader's 120 within
    assert "(2 of 4)" in text   # --top 2 of progA's 4 routines with induced input
    c = text[text.index("== progC =="):]
    assert "program-wide induced reads (each counted once, per-thread roots): 0" in c
    svg = read(out / "induced-split.svg")
    for label in ("progA", "progB", "progC", "no induced"):
        assert label in svg
    # Bars sorted by decreasing thread-induced share: progA (62.5%) first.
    assert svg.index("progA") < svg.index("progB")
    out = tmp_path / "pdf"
    assert_ok(charts(reports["b"], reports["c"], "-o", out, "--format", "pdf"))
    check_outputs(out, "pdf")
    assert "== progB, progC ==" in read(out / "charts.txt")


def test_errors(reports, tmp_path):
    lines = read(reports["a"]).splitlines(keepends=True)
    bad = tmp_path / "aprof-trms.out.9"
    bad.write_text("".join(lines[:5] + ["bogus\t1\n"] + lines[5:]), encoding="utf-8")
    assert_user_error(charts(bad, "-o", tmp_path / "out"), f"{bad}:6:")
    cut = tmp_path / "aprof-trms.out.10"
    cut.write_text("".join(lines)[:-3], encoding="utf-8")
    assert_user_error(charts(cut, "-o", tmp_path / "out"), f"{cut}:{len(lines)}:", "truncated")
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    assert_user_error(charts(reports["a"], "-o", afile / "sub"), "cannot create output directory")
    assert_user_error(charts(reports["a"], "-o", tmp_path / "o", "--format", "bmp"),
                      "unknown format 'bmp'")
    assert_user_error(charts(tmp_path / "nope", "-o", tmp_path / "o"), "no such report")
    # Reports of different settings merge only with --per-report.
    other = tmp_path / "other"
    other.mkdir()
    text = read(reports["c"]).replace("memory-resolution\t4", "memory-resolution\t8")
    (other / "aprof-trms.out.300").write_text(text, encoding="utf-8")
    assert_user_error(charts(reports["b"], other, "-o", tmp_path / "o"), "cannot be merged")
    assert_ok(charts("--per-report", reports["b"], other, "-o", tmp_path / "o2"))
    assert not (tmp_path / "out").exists() and not (tmp_path / "o").exists()


@pytest.mark.parametrize("dpi", ["5", "5000"])
def test_out_of_range_dpi_is_a_usage_error(reports, tmp_path, dpi):
    # The check is shared with plot.py (aprof_plotting.check_output_options).
    proc = charts(reports["a"], "-o", tmp_path / "o", "--dpi", dpi)
    assert proc.returncode == 2
    assert "--dpi must be between 20 and 1200" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()


def test_selection_filters_restrict_the_per_routine_charts(reports, tmp_path):
    """-r and --exclude-object (aprof_trms/select.py) choose the routines of
    the per-routine numbers; the program-wide split still counts every read."""
    out = tmp_path / "out"
    assert_ok(charts(reports["a"], "-o", out, "-r", "rec", "-r", "child", "--size", "500x300",
                     "--dpi", "50"))
    text = read(out / "charts.txt")
    assert re.search(r"routines: +2\n", text), text
    rows = re.findall(r"^ +[\d.]+ +[\d.]+ +[\d.]+ +\d+ +\d+ +\d+ +\d+  (\w+)$", text, re.M)
    assert rows == ["rec", "child"], text
    assert "program-wide induced reads (each counted once, per-thread roots): 80" in text
    assert_ok(charts(reports["a"], "-o", out, "--exclude-object", "progA"))
    assert re.search(r"routines: +0\n", read(out / "charts.txt"))


def test_streamed_programs_equal_those_of_loaded_reports(reports):
    # charts.py reads each report once, keeping only per-thread sums of its
    # trms records (load_programs); html.py builds the same program from
    # whole reports (program_of). Both must give the same numbers and roots.
    import argparse
    from aprof_trms import charts as aprof_charts, programs, select
    parser = argparse.ArgumentParser()
    select.add_selection_arguments(parser, default_choice=False, limit=False)
    args = parser.parse_args([])
    paths = [reports["a"], reports["b"], reports["c"]]
    streamed = aprof_charts.load_programs([str(p) for p in paths], False, args)[0]
    loaded = programs.program_of(streamed.label, [aprof_report.load(p) for p in paths], args)
    assert streamed == loaded
    assert len(streamed.roots) >= 3 and any(r.thread_induced for r in streamed.roots)
    assert any(r.external for r in streamed.roots)
