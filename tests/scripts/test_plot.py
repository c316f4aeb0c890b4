# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of scripts/plot.py (cost and workload plots, summary.txt): run as a
subprocess with this interpreter, on synthetic reports (tests/scripts/
synthetic.py) whose cost functions are known, and once end to end on the
bundled example (tests/example/workload) profiled by the tool from the build
tree."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
PLOT = os.path.join(SCRIPTS, "plot.py")
CHARTS = os.path.join(SCRIPTS, "charts.py")
from aprof_trms import plotting as aprof_plotting  # noqa: E402
import example_run  # noqa: E402
import synthetic  # noqa: E402

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}
LONG_CXX = ("std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"
            "(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
            "int const&)")


def run(script, *args, timeout=300):
    return subprocess.run([sys.executable, script, *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def plot(*args):
    return run(PLOT, *args)


def assert_ok(proc):
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr


def assert_user_error(proc, *needles):
    """Exit status 1, a one-line 'error:' message naming the problem, no traceback."""
    assert proc.returncode == 1, f"exit {proc.returncode}\nstderr:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "error:" in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, f"{needle!r} not in stderr:\n{proc.stderr}"


def listing(directory):
    """The files of an output directory, without plot.py's hidden manifest."""
    return sorted(f for f in os.listdir(directory) if f != aprof_plotting.MANIFEST)


def check_image(path):
    """The file exists and starts like a picture of its extension."""
    assert os.path.isfile(path), f"{path} not written"
    fmt = os.path.splitext(path)[1][1:]
    with open(path, "rb") as f:
        head = f.read(1024)
    assert len(head) > 100, f"{path} is nearly empty"
    if fmt == "svg":
        assert head.lstrip().startswith(b"<?xml") or head.lstrip().startswith(b"<svg"), path
        assert b"<svg" in head, path
    else:
        assert head.startswith(MAGIC[fmt]), f"{path} does not start with the {fmt} magic"


def sections(summary_text):
    """summary.txt -> {routine name: {key: value}} ('RMS  model' -> 'RMS model')."""
    out = {}
    current = None
    for line in summary_text.splitlines():
        m = re.fullmatch(r"== (.*) ==", line)
        if m:
            current = out.setdefault(m.group(1), {})
            continue
        if current is not None and ":" in line and not line.startswith(" "):
            key, value = line.split(":", 1)
            current[" ".join(key.split())] = value.strip()
    return out


def distinct_sizes(section):
    m = re.match(r"TRMS (\d+), RMS (\d+)", section["distinct sizes"])
    return int(m.group(1)), int(m.group(2))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """scan: n, sort_rows: n^2, consume: TRMS grows, RMS constant (1 size),
    tiny: 3 sizes only, and a long C++ name (n log n)."""
    d = tmp_path_factory.mktemp("report")
    size12 = synthetic.sizes(12)
    return synthetic.write_report(d / "aprof-trms.out.4242", [
        synthetic.Routine("scan", synthetic.COSTS["n"], size12),
        synthetic.Routine("sort_rows", synthetic.COSTS["n^2"], size12),
        synthetic.Routine("consume", lambda n: 40 + 5 * n, size12, rms=lambda n: 1),
        synthetic.Routine("tiny", synthetic.COSTS["n"], synthetic.sizes(3)),
        synthetic.Routine(LONG_CXX, synthetic.COSTS["n log n"], size12),
    ], threads=2)


@pytest.fixture(scope="module")
def full_run(report, tmp_path_factory):
    """Every plot kind and the grid, for four routines."""
    out = tmp_path_factory.mktemp("plots") / "out"   # created by plot.py
    proc = plot(report, "-o", out, "--routine", "scan", "--routine", "sort_rows",
                "--routine", "consume", "--routine", "tiny", "--stats", "--total", "--grid",
                "--size", "600x300", "--dpi", "60")
    assert_ok(proc)
    return out, proc


def test_help():
    proc = plot("--help")
    assert proc.returncode == 0
    for option in ("--routine", "--top", "--stats", "--total", "--grid", "--format",
                   "--log-x", "--log-y", "--log", "-o OUTDIR", "summary.txt"):
        assert option in proc.stdout, option


def test_files_of_every_kind(full_run):
    out, proc = full_run
    for stem in ("scan", "sort_rows", "consume", "tiny"):
        for kind in ("cost", "workload", "stats", "total"):
            check_image(os.path.join(out, f"{stem}-{kind}.png"))
    check_image(os.path.join(out, "grid.png"))
    assert os.path.isfile(os.path.join(out, "summary.txt"))
    listed = proc.stdout.split()
    assert os.path.join(str(out), "grid.png") in listed
    assert os.path.join(str(out), "summary.txt") in listed
    assert listing(out) == sorted(os.path.basename(p) for p in listed)


def test_summary_names_the_models(full_run):
    out, _ = full_run
    with open(os.path.join(out, "summary.txt"), encoding="utf-8") as f:
        text = f.read()
    s = sections(text)
    assert set(s) == {"scan", "sort_rows", "consume", "tiny"}
    assert s["scan"]["TRMS model"] == "n"
    assert s["scan"]["RMS model"] == "n"
    assert s["sort_rows"]["TRMS model"] == "n^2"
    assert s["consume"]["TRMS model"] == "n"
    assert s["consume"]["RMS model"] == "none (no fit: only 1 distinct size (need 5))"
    assert s["tiny"]["TRMS model"] == "none (no fit: only 3 distinct sizes (need 5))"
    for name in ("scan", "sort_rows", "consume"):
        assert s[name]["TRMS formula"].startswith("cost = ")
        assert re.match(r"R\^2 = [01]\.\d+, AICc = -?\d", s[name]["TRMS goodness"])
        assert s[name]["TRMS runner-up"]
    assert distinct_sizes(s["consume"]) == (12, 1)
    assert distinct_sizes(s["tiny"]) == (3, 3)
    # consume: RMS 1 for TRMS n, so the rest of each TRMS is induced
    # (synthetic.py counts it as thread-induced).
    assert s["consume"]["thread-induced"].endswith("(100.00% of induced reads)")
    assert s["consume"]["external"].startswith("0 ")
    assert s["scan"]["induced reads"].startswith("0 of ")
    assert re.search(r"cost share: +\d+\.\d\d%", text)
    assert s["scan"]["calls"] == "12"


def test_top_n_by_cumulative_cost(report, tmp_path):
    proc = plot(report, "-o", tmp_path, "--top", "2", "--size", "500x300", "--dpi", "50")
    assert_ok(proc)
    # sort_rows (0.5 n^2) and the C++ routine (2 n log n) cost the most.
    names = listing(tmp_path)
    assert names == sorted(["sort_rows-cost.png", "sort_rows-workload.png",
                            "std_vector__M_realloc_insert-cost.png",
                            "std_vector__M_realloc_insert-workload.png", "summary.txt"])
    with open(tmp_path / "summary.txt", encoding="utf-8") as f:
        s = sections(f.read())
    assert list(s) == ["sort_rows", LONG_CXX]   # full name kept in the summary
    assert s[LONG_CXX]["TRMS model"] == "n log n"


def test_glob_selection_and_formats(report, tmp_path):
    svg = tmp_path / "svg"
    proc = plot(report, "-o", svg, "--routine", "so*", "--format", "svg", "--log")
    assert_ok(proc)
    assert listing(svg) == ["sort_rows-cost.svg", "sort_rows-workload.svg", "summary.txt"]
    for name in ("sort_rows-cost.svg", "sort_rows-workload.svg"):
        check_image(svg / name)
    with open(svg / "sort_rows-cost.svg", encoding="utf-8") as f:
        text = f.read()
    assert "input size (cells of 4 bytes)" in text and "basic blocks" in text
    pdf = tmp_path / "pdf"
    proc = plot(report, "-o", pdf, "--routine", "scan", "--grid-only", "--grid-file", "all.pdf",
                "--log-x")
    assert_ok(proc)
    assert listing(pdf) == ["all.pdf", "summary.txt"]
    check_image(pdf / "all.pdf")
    proc = plot(report, "-o", pdf, "--routine", "scan", "--format", "PDF", "--log-y")
    assert_ok(proc)
    check_image(pdf / "scan-cost.pdf")


def test_no_fit_text_is_on_the_panel(report, tmp_path):
    proc = plot(report, "-o", tmp_path, "--routine", "tiny", "--format", "svg")
    assert_ok(proc)
    with open(tmp_path / "tiny-cost.svg", encoding="utf-8") as f:
        svg = f.read()
    assert "no fit: only 3 distinct sizes (need 5)" in svg
    proc = plot(report, "-o", tmp_path, "--routine", "sort_rows", "--format", "svg")
    with open(tmp_path / "sort_rows-cost.svg", encoding="utf-8") as f:
        svg = f.read()
    assert "runner-up:" in svg and "R²" in svg


def test_short_names():
    assert aprof_plotting.short_name("sum_array") == "sum_array"
    short = aprof_plotting.short_name(LONG_CXX)
    assert short == "std::vector<…>::_M_realloc_insert<…>(…)"
    assert len(aprof_plotting.short_name("ns::" + "x" * 200 + "::leaf(int)", 40)) == 40
    assert aprof_plotting.short_name("ns::" + "x" * 200 + "::leaf(int)", 40).endswith("::leaf(…)")
    # A routine without a symbol keeps its address, which tells it apart.
    assert aprof_plotting.short_name("0x10a0@vgpreload_core-amd64-linux.so", 32) == \
        "0x10a0@vgpreload_core-amd64-lin…"
    assert aprof_plotting.short_name("0x1ab70@ld-linux-x86-64.so.2", 32) == "0x1ab70@ld-linux-x86-64.so.2"
    assert aprof_plotting.strip_params("ns::f(int, char) const") == "ns::f"
    assert aprof_plotting.file_stem(LONG_CXX) == "std_vector__M_realloc_insert"
    assert aprof_plotting.file_stem("(anonymous namespace)::f(int)") == "anonymous_namespace_f"
    assert aprof_plotting.unique_stems(["f(int)", "f(char)", "g"]) == ["f", "f-2", "g"]


# ---------------------------------------------------------------------------
# Errors: exit status 1, one line naming the problem, never a traceback.
# ---------------------------------------------------------------------------

def _lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines(keepends=True)


def test_malformed_report(report, tmp_path):
    lines = _lines(report)
    i = next(k for k, line in enumerate(lines) if line.startswith("trms\t"))
    fields = lines[i].split("\t")
    fields[4] = "12x"   # calls: not an integer
    lines[i] = "\t".join(fields)
    bad = tmp_path / "aprof-trms.out.1"
    bad.write_text("".join(lines), encoding="utf-8")
    assert_user_error(plot(bad, "-o", tmp_path / "out"), f"{bad}:{i + 1}:")
    assert not (tmp_path / "out").exists()


def test_truncated_report(report, tmp_path):
    text = "".join(_lines(report))
    cut = tmp_path / "aprof-trms.out.2"
    cut.write_text(text[:len(text) // 2], encoding="utf-8")   # ends mid-line
    line = text[:len(text) // 2].count("\n") + 1
    assert_user_error(plot(cut, "-o", tmp_path / "out"), f"{cut}:{line}:", "truncated")
    no_end = tmp_path / "aprof-trms.out.3"
    no_end.write_text("".join(_lines(report)[:-1]), encoding="utf-8")   # whole lines, no 'end'
    proc = plot(no_end, "-o", tmp_path / "out")
    assert_user_error(proc, f"{no_end}:")
    assert re.search(re.escape(str(no_end)) + r":\d+:", proc.stderr)
    empty = tmp_path / "aprof-trms.out.4"
    empty.write_text("", encoding="utf-8")
    assert_user_error(plot(empty, "-o", tmp_path / "out"), f"{empty}:")


def test_a_directory_is_its_reports(report, tmp_path):
    assert_user_error(plot(tmp_path, "-o", tmp_path / "out"), "no aprof-trms.out.* report")
    assert_user_error(plot(tmp_path / "missing", "-o", tmp_path / "out"), "missing")
    proc = plot(os.path.dirname(report), "-o", tmp_path / "out", "--routine", "scan", "-q")
    assert_ok(proc)
    assert proc.stdout == ""
    assert os.path.isfile(tmp_path / "out" / "scan-cost.png")


def test_no_matching_routine(report, tmp_path):
    proc = plot(report, "-o", tmp_path / "out", "--routine", "scna")
    assert_user_error(proc, "no routine matches 'scna'", "did you mean 'scan'")
    proc = plot(report, "-o", tmp_path / "out", "--routine", "scan", "--routine", "nothing*")
    assert_user_error(proc, "no routine matches 'nothing*'")


def test_unwritable_output_dir(report, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    assert_user_error(plot(report, "-o", afile / "out", "--routine", "scan"),
                      "cannot create output directory")
    assert_user_error(plot(report, "-o", afile, "--routine", "scan"),
                      "exists and is not a directory")
    if os.geteuid() != 0:   # root writes into read-only directories
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        try:
            assert_user_error(plot(report, "-o", ro, "--routine", "scan"), "not writable")
        finally:
            ro.chmod(0o755)


def test_unknown_format(report, tmp_path):
    assert_user_error(plot(report, "-o", tmp_path, "--format", "jpg"), "unknown format 'jpg'")
    assert_user_error(plot(report, "-o", tmp_path, "--grid-file", "g.gif"), "unknown format 'gif'")
    assert_user_error(plot(report, "-o", tmp_path / "cost.png"), "looks like a file name")
    assert_user_error(plot(report, "-o", tmp_path, "--size", "big"), "bad --size")
    proc = plot(report, "-o", tmp_path, "--top", "0")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    proc = plot(report)   # no -o
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------------------
# End to end: the tool on the bundled example, then plot.py and charts.py.
# ---------------------------------------------------------------------------

def test_end_to_end_bundled_example(tmp_path):
    reports = example_run.profile_example(tmp_path)

    out = tmp_path / "plots"
    proc = plot(reports, "-o", out, "--routine", "sum_array", "--routine", "insertion_sort",
                "--routine", "consume_items", "--routine", "read_chunks",
                "--size", "600x300", "--dpi", "50")
    assert_ok(proc)
    with open(out / "summary.txt", encoding="utf-8") as f:
        text = f.read()
    s = sections(text)
    assert set(s) == {"sum_array", "insertion_sort", "consume_items", "read_chunks"}, text
    assert s["sum_array"]["TRMS model"] == "n", text
    assert s["insertion_sort"]["TRMS model"] == "n^2", text
    trms, rms = distinct_sizes(s["consume_items"])
    assert trms > rms, text
    # workload.c calls consume_items for n = 50, 100, ..., 500 items, each
    # read of the shared cell after the producer rewrote it (a pipe
    # handshake: the same basic blocks whatever the scheduling): on TRMS its
    # cost is linear, on RMS all its calls have one size.
    # read_chunks is single-threaded: linear in the number of reads.
    assert s["consume_items"]["calls"] == "10"
    assert s["consume_items"]["TRMS model"] == "n", text
    assert rms == 1, text
    assert s["read_chunks"]["TRMS model"] == "n", text
    for name in s:
        for kind in ("cost", "workload"):
            check_image(os.path.join(out, f"{name}-{kind}.png"))

    # The default choice: the routines that can be fitted and cost at least
    # 1%, no entry wrapper, no single-call main.
    default = tmp_path / "default"
    proc = plot(reports, "-o", default, "--size", "600x300", "--dpi", "50")
    assert_ok(proc)
    chosen = sorted(f[:-len("-cost.png")] for f in os.listdir(default) if f.endswith("-cost.png"))
    assert chosen == ["consume_items", "insertion_sort", "read_chunks"], proc.stderr
    assert "runtime entry wrappers" in proc.stderr and "below 1% of the cost" in proc.stderr

    charts = tmp_path / "charts"
    proc = run(CHARTS, reports, "-o", charts, "--size", "600x300", "--dpi", "50")
    assert_ok(proc)
    with open(charts / "charts.txt", encoding="utf-8") as f:
        ctext = f.read()
    m = re.search(r"thread-induced: +(\d+) .*\n +external: +(\d+)", ctext)
    assert m and int(m.group(1)) > 0 and int(m.group(2)) > 0, ctext
