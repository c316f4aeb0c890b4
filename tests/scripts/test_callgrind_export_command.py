# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the callgrind-export command (scripts/aprof_trms/callgrind_export.py)
# on synthetic and hand-written reports; tests/tool/test_callgrind_export.py
# reads real exports back with callgrind_annotate.
#
# Copyright (C) 2026, the aprof-trms authors.
import io
import os
import re
import subprocess
import sys

import synthetic
from aprof_trms import callgrind_export
from aprof_trms import report as aprof_report

sys.path.insert(0, os.path.join(synthetic.SCRIPTS, "lib"))
from debian_packages import needs_program  # noqa: E402

COMMAND = os.path.join(synthetic.SCRIPTS, "callgrind-export.py")


def run(*args, cwd=None):
    return subprocess.run([sys.executable, COMMAND, *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def test_version_usage_and_bad_input(tmp_path):
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == "callgrind-export.py (aprof-trms) 0.1.0"
    r = run("--no-such-option")
    assert r.returncode == 2 and "usage:" in r.stderr
    r = run(tmp_path / "missing", "-o", tmp_path / "out")
    assert r.returncode == 1 and r.stderr.startswith("callgrind-export.py: error: ")
    assert r.stderr.count("\n") == 1
    truncated = tmp_path / "truncated"
    truncated.write_text("aprof-trms-report\t3\n")
    r = run(truncated, "-o", tmp_path / "out")
    assert r.returncode == 1 and f"{truncated}:2:" in r.stderr
    assert not (tmp_path / "out").exists()


def test_synthetic_report_without_call_graph(tmp_path):
    routines = [synthetic.Routine("quadratic", synthetic.COSTS["n^2"], synthetic.sizes(5)),
                synthetic.Routine("linear", synthetic.COSTS["n"], synthetic.sizes(5))]
    path = synthetic.write_report(tmp_path / "aprof-trms.out.4242", routines, threads=2)
    r = run(path, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "callgrind.out.4242").read_text()
    report = aprof_report.load(path)
    total = sum(t.total_cost for t in report.threads.values())
    sums = callgrind_export.routine_sums(report)
    assert f"summary: {total} " in text
    assert "calls=" not in text  # synthetic reports have no call records
    # One cost line per function; their first column adds up to the total.
    lines = [line.split() for line in text.splitlines() if line[:1].isdigit()]
    assert sum(int(f[1]) for f in lines) == total
    assert sorted(int(f[2]) for f in lines if int(f[2])) == sorted(s[1] for s in sums.values())
    # Standard output gives the same text.
    assert run(path, "-o", "-").stdout == text


def test_call_lines_and_name_clashes():
    body = [
        "thread\t1\t1\t1000",
        "routine\t1\t0x401000\t/bin/p\tmain\tmain\t0x1000\tp.c\t3",
        "routine\t2\t0x401100\t/bin/p\tf\tf\t0x1100\tp.c\t9",
        "routine\t3\t0x7f00\t/lib/q.so\tf\tf\t0x700\tp.c\t9",
        "totals\t1\t1\t1\t100\t1000",
        "totals\t1\t2\t2\t600\t600",
        "totals\t1\t3\t1\t300\t300",
    ]
    for tag in ("trms", "rms"):
        body += [f"{tag}\t1\t1\t5\t1\t1000\t1000\t1000\t1000000\t100\t0\t0",
                 f"{tag}\t1\t2\t4\t2\t300\t300\t600\t180000\t600\t0\t0",
                 f"{tag}\t1\t3\t2\t1\t300\t300\t300\t90000\t300\t0\t0"]
    body += ["call\t1\t1\t2\t2\t600", "call\t1\t1\t3\t1\t300"]
    header = ["aprof-trms-report\t3", "tool\taprof-trms\t0.1.0\t3.19.0", "command\t./p",
              "pid\t7\t1", "cost-metric\tinstructions", "memory-resolution\t4",
              "syscall-input\tall"]
    lines = header + body
    text = "".join(line + "\n" for line in lines) + f"end\t{len(lines)}\n"
    report = aprof_report.loads(text)
    out = io.StringIO()
    callgrind_export.export(report, out)
    cg = out.getvalue()
    assert "events: Ir TRMS RMS Induced\n" in cg
    assert "fn=(3) main\n3 100 5 5 0\n" in cg
    assert " f [p+0x1100]\n" in cg and " f [q.so+0x700]\n" in cg
    # Call lines carry the callee's input sums (each f has one caller); main,
    # which no routine called, gets its call line from "(no routine)".
    assert "calls=2 9\n3 600 8 8 0\n" in cg and "calls=1 9\n3 300 2 2 0\n" in cg
    assert " (no routine)\n0 0 0 0 0\n" in cg and "calls=1 3\n0 1000 5 5 0\n" in cg


def test_inclusive_view_shows_each_routines_input_sums(tmp_path):
    """callgrind_annotate --inclusive=yes takes a called function's inclusive
    cost from the call lines into it: with 0 on them, TRMS, RMS and Induced
    were 0 for every routine with a caller. Now each routine's inclusive
    value is its own sum (work has two callers, and main none), and the
    inclusive cost is the report's cumulative cost."""
    path = synthetic.write_report(tmp_path / "aprof-trms.out.4242", synthetic.two_callers(),
                                  threads=2)
    assert run(path, "-o", tmp_path / "cg").returncode == 0
    report = aprof_report.load(path)
    sums = callgrind_export.routine_sums(report)
    tool = needs_program("callgrind_annotate")
    for event, column in (("BB", 0), ("TRMS", 1), ("RMS", 2), ("Induced", 3)):
        out = subprocess.run([tool, "--inclusive=yes", "--threshold=100", "--auto=no",
                              f"--show={event}", str(tmp_path / "cg")], capture_output=True,
                             text=True, check=True, cwd="/").stdout
        shown = {m.group(2): int(m.group(1).replace(",", "")) for m in
                 re.finditer(r"^\s*([\d,]+) (?:\(\s*[\d.]+%\)\s+)?\S*:(\w+) \[", out, re.M)}
        for rid, r in report.routines.items():
            if column == 0:
                expected = aprof_report.totals(report, rid).cumulative_cost
            else:
                expected = sums[rid][column]
            assert shown.get(r.name, 0) == expected, (event, r.name, out)


def inclusive_and_input_sums(cg):
    """{function: [inclusive cost, TRMS, RMS]} of a callgrind-format text:
    the cost of a function's own cost line plus that of its calls (the line
    after each calls=), as callgrind_annotate --inclusive=yes adds them;
    TRMS and RMS of its own line (the self view: what the call lines carry
    for the inclusive view is test_inclusive_view_shows_each_routines_input_sums')."""
    names, out, function, after_call = {}, {}, None, False
    for line in cg.splitlines():
        tag, _, value = line.partition("=")
        if tag in ("fn", "cfn"):   # "(3) name" the first time, "(3)" after
            number, _, name = value.partition(" ")
            names.setdefault(number, name)
            if tag == "fn":
                function = names[number]
                out[function] = [0, 0, 0]
        elif tag == "calls":
            after_call = True
        elif line[:1].isdigit() and function is not None:
            cost, trms, rms = map(int, line.split()[1:4])
            out[function][0] += cost
            if not after_call:
                out[function][1:] = [trms, rms]
            after_call = False
    return out


def test_inclusive_costs_and_input_sums_of_the_export():
    """main calls f twice, f calls g four times: main's inclusive cost is
    its own plus what its calls of f cost (f's inclusive cost, not its
    self cost); TRMS
    and RMS are sums over activations, each size counted once per call."""
    body = [
        "thread\t1\t1\t1000",
        "routine\t1\t0x401000\t/bin/p\tmain\tmain\t0x1000\tp.c\t3",
        "routine\t2\t0x401100\t/bin/p\tf\tf\t0x1100\tp.c\t9",
        "routine\t3\t0x401200\t/bin/p\tg\tg\t0x1200\tp.c\t15",
        "totals\t1\t1\t1\t100\t1000",
        "totals\t1\t2\t2\t300\t900",
        "totals\t1\t3\t4\t600\t600",
    ]
    for tag, g_size in (("trms", 3), ("rms", 2)):
        body += [f"{tag}\t1\t1\t10\t1\t1000\t1000\t1000\t1000000\t100\t0\t0",
                 f"{tag}\t1\t2\t4\t2\t450\t450\t900\t405000\t300\t0\t0",
                 f"{tag}\t1\t3\t{g_size}\t4\t150\t150\t600\t90000\t600\t{4 if tag == 'trms' else 0}\t0"]
    body += ["call\t1\t1\t2\t2\t900", "call\t1\t2\t3\t4\t600"]
    header = ["aprof-trms-report\t3", "tool\taprof-trms\t0.1.0\t3.19.0", "command\t./p",
              "pid\t7\t1", "cost-metric\tbb", "memory-resolution\t4", "syscall-input\tall"]
    lines = header + body
    report = aprof_report.loads("".join(line + "\n" for line in lines) + f"end\t{len(lines)}\n")
    out = io.StringIO()
    callgrind_export.export(report, out)
    got = inclusive_and_input_sums(out.getvalue())
    # main, which no routine called, is called from "(no routine)" (its call
    # line holds main's inclusive cost and no input of its own).
    assert got == {"main": [1000, 10, 10], "f": [900, 8, 8], "g": [600, 12, 8],
                   "(no routine)": [1000, 0, 0]}
