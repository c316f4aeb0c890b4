# SPDX-License-Identifier: GPL-2.0-or-later
# Targeted tests of the analysis scripts on hostile input (issue 25): names
# of any bytes and control characters, numbers beyond the format, files that
# never end or block, inconsistent numbers, a report given twice, and the
# kernel-writes-unseen records of format version 5.
#
# Copyright (C) 2026, the aprof-trms authors.
import csv
import dataclasses
import io
import os
import re
import subprocess
import sys
import threading

import pytest

import synthetic
from test_hostile_reports import run_in_process
from aprof_trms import report as ar

R, C = synthetic.Routine, synthetic.COSTS
SIZES = synthetic.sizes(8)
# A name with what can break a terminal or a line: an OSC title sequence
# (ESC ] ... BEL), a clear screen (ESC [ 2 J), a newline, a CR, a C1 control.
HOSTILE_NAME = "evil\x1b]0;owned\x07\x1b[2J\nnext\rline\x85end"
SHOWN_NAME = "evil\\x1b]0;owned\\x07\\x1b[2J\\x0anext\\x0dline\\u0085end"


def command(name):
    return os.path.join(synthetic.SCRIPTS, f"{name}.py")


def run(name, *args, timeout=120):
    return subprocess.run([sys.executable, command(name), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def one_error_line(r, *fragments):
    """The run ended with status 1 and one 'error:' line holding the fragments."""
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert ": error: " in r.stderr and all(f in r.stderr for f in fragments), r.stderr


def hostile_report(tmp_path, **options):
    return synthetic.write_report(tmp_path / "aprof-trms.out.1", [
        R(HOSTILE_NAME, C["n^2"], SIZES), R("plain", C["n"], SIZES)], threads=2,
        command=("./prog", "arg\x1b[31m\nwith newline"), **options)


def lines_of(path):
    """The report's lines (split at LF only: str.splitlines() also splits at
    the controls a name may hold)."""
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def with_line(path, out, index, text):
    """The report at `path` with line `index` (0-based) replaced, written to `out`."""
    lines = lines_of(path)
    lines[index] = text
    out.write_text("".join(line + "\n" for line in lines))
    return out


def index_of(lines, prefix):
    return next(i for i, line in enumerate(lines) if line.startswith(prefix))


# ---------------------------------------------------------------------------
# Reading: format version 5 escapes, old raw bytes.
# ---------------------------------------------------------------------------

def test_version_5_escapes_are_undone_to_bytes_then_utf8():
    # \xc3\xa9 is é; \xff alone is not UTF-8 and stays visible; \x1b is ESC.
    assert ar.unescape("caf\\xc3\\xa9 \\xff \\x1b[2J") == "café \\xff \x1b[2J"
    assert ar.unescape(ar.escape(HOSTILE_NAME)) == HOSTILE_NAME
    assert not re.search(r"[\x00-\x1f\x7f-\x9f]", ar.escape(HOSTILE_NAME))
    for bad in ("\\x", "\\x4", "\\xg0", "\\xAB", "end\\"):
        with pytest.raises(ValueError):
            ar.unescape(bad)


def test_kernel_writes_unseen_records(tmp_path):
    path = synthetic.write_report(tmp_path / "r", [R("f", C["n"], SIZES)],
                                  kernel_writes_unseen=["io_uring", "proc-self-mem"])
    assert ar.load(path).header.kernel_writes_unseen == ("io_uring", "proc-self-mem")
    lines = lines_of(path)
    i = index_of(lines, "kernel-writes-unseen")
    # (the two records, which of them is wrong, the message)
    cases = [
        (["proc-self-mem", "io_uring"], 1, "io_uring after proc-self-mem"),
        (["io_uring", "io_uring"], 1, "io_uring after io_uring"),
        (["splice", "io_uring"], 0, "unknown mechanism 'splice'"),
    ]
    for mechanisms, wrong, message in cases:
        records = [f"kernel-writes-unseen\t{m}" for m in mechanisms]
        text = "".join(line + "\n" for line in lines[:i] + records + lines[i + 2:])
        with pytest.raises(ar.ReportError, match=f":{i + 1 + wrong}: .*{message}"):
            ar.loads(text, "r")
    old = "".join(line + "\n" for line in ["aprof-trms-report\t4"] + lines[1:])
    with pytest.raises(ar.ReportError, match=f":{i + 1}: 'kernel-writes-unseen' record in a format "
                       "version 4 report"):
        ar.loads(old, "r")


# ---------------------------------------------------------------------------
# Reading: numbers and fields beyond the format.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("value,message", [
    ("9" * 5000, "has 5000 digits, more than the 58"),
    ("1" + "0" * 400, "has 401 digits, more than the 58"),
    ("1e400", "is not an unsigned decimal integer: '1e400'"),
    ("inf", "is not an unsigned decimal integer: 'inf'"),
    ("nan", "is not an unsigned decimal integer: 'nan'"),
    ("-1", "is not an unsigned decimal integer: '-1'"),
    ("7" * (1 << 20), "has 1048576 digits"),
    ("x" * (1 << 20), "'... (1048576 characters)"),
], ids=["5000 digits", "10^400", "1e400", "inf", "nan", "-1", "1 MB of digits", "1 MB field"])
def test_numbers_beyond_the_format_are_one_line_errors(tmp_path, value, message):
    path = hostile_report(tmp_path)
    i = index_of(lines_of(path), "trms\t")
    fields = lines_of(path)[i].split("\t")
    fields[6] = value   # max cost
    bad = with_line(path, tmp_path / "bad", i, "\t".join(fields))
    r = run("rank", bad)
    one_error_line(r, f"{bad}:{i + 1}: 'trms' record: max cost ", message)
    assert len(r.stderr) < 300   # the field is not repeated whole


def test_a_megabyte_name_and_command_line_are_read_and_shown(tmp_path):
    long_name = "n" * (1 << 20)
    # charts.py titles its charts by the executable's name: a megabyte of
    # it made matplotlib's rasteriser fail.
    path = synthetic.write_report(tmp_path / "r", [R(long_name, C["n^2"], SIZES)],
                                  command=("/bin/" + "p" * (1 << 20), "a" * (1 << 20)))
    r = run("rank", path)
    assert r.returncode == 0 and "nnnn" in r.stdout, r.stderr
    r = run("charts", path, "-o", tmp_path / "charts")
    assert r.returncode == 0, r.stderr
    r = run("plot", path, "-o", tmp_path / "plots")
    assert r.returncode == 0, r.stderr


def test_line_and_record_limits(tmp_path, monkeypatch):
    path = hostile_report(tmp_path)
    monkeypatch.setattr(ar, "MAX_LINE_BYTES", 100)
    long_line = tmp_path / "long"
    long_line.write_text("aprof-trms-report\t5\n" + "x" * 1000)
    with pytest.raises(ar.ReportError, match=r"long:2: line longer than 100 bytes"):
        ar.load(long_line)
    monkeypatch.setattr(ar, "MAX_LINE_BYTES", 16 << 20)
    monkeypatch.setattr(ar, "MAX_RECORDS", 10)
    with pytest.raises(ar.ReportError, match=r":\d+: more than 10 records"):
        ar.load(path)


# ---------------------------------------------------------------------------
# Reading: files that are not regular files are never read.
# ---------------------------------------------------------------------------

def test_devices_fifos_and_directories_are_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in (("/dev/zero", "a character device"), (fifo, "a FIFO")):
        # A FIFO without a writer would block open(), /dev/zero never ends:
        # the timeout only guards against the hang this test is about.
        r = run("rank", path, timeout=60)
        one_error_line(r, f"{path}: {kind}, not a regular file: not read")
    with pytest.raises(ar.ReportError, match="a directory, not a regular file"):
        ar.load(tmp_path)


def test_a_fifo_swapped_in_after_the_check_is_not_read(tmp_path, monkeypatch):
    # Between os.stat() and open() the name may change: the file opened is
    # checked again, opened without blocking.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    real_stat = os.stat
    monkeypatch.setattr(ar.os, "stat", lambda p, *a, **k: real_stat(__file__))
    done = threading.Event()

    def load():
        with pytest.raises(ar.ReportError, match="a FIFO, not a regular file"):
            ar.load(fifo)
        done.set()

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(60)
    if not done.is_set():   # unblock the reader stuck in open()
        with open(fifo, "w"):
            pass
    assert done.is_set()


def test_read_errors_name_the_file():
    r = run("rank", "/proc/self/mem")
    one_error_line(r, "/proc/self/mem: Input/output error")
    r = run("regress", "--baseline", "/proc/self/mem", "--candidate", "/proc/self/mem")
    one_error_line(r, "error: /proc/self/mem: Input/output error (baseline)")


# ---------------------------------------------------------------------------
# Reading: the consistency check runs on every report; a report given twice.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("what,change,message", [
    ("calls 0", lambda f: f[:4] + ["0"] + f[5:], "calls = 0"),
    ("min > max", lambda f: f[:5] + [str(int(f[6]) + 1)] + f[6:], "min cost"),
    ("sums", lambda f: f[:7] + [str(int(f[7]) + 1)] + f[8:], "sum cost"),
])
def test_inconsistent_tuples_are_errors_of_every_command(tmp_path, what, change, message):
    path = hostile_report(tmp_path)
    i = index_of(lines_of(path), "trms\t")
    bad = with_line(path, tmp_path / "bad", i, "\t".join(change(lines_of(path)[i].split("\t"))))
    for name in ("rank", "annotate", "callgrind-export"):
        one_error_line(run(name, bad, *(["-o", tmp_path / "cg"] if name == "callgrind-export" else [])),
                       f"{bad}:{i + 1}: inconsistent numbers: ", message)


def test_a_thread_total_of_zero_is_an_error(tmp_path):
    path = hostile_report(tmp_path)
    i = index_of(lines_of(path), "thread\t")
    bad = with_line(path, tmp_path / "bad", i, "thread\t1\t1\t0")
    one_error_line(run("rank", bad), "inconsistent numbers: ", "thread total cost 0")


def test_the_same_report_twice_is_an_error(tmp_path):
    path = hostile_report(tmp_path)
    copy = tmp_path / "copy"
    copy.write_bytes(open(path, "rb").read())
    one_error_line(run("rank", path, path), f"{path}: the same report as {path}")
    one_error_line(run("annotate", path, copy), f"{copy}: the same report as {path}")
    one_error_line(run("annotate", "--per-thread", path, copy), f"{copy}: the same report as")
    # charts.py --per-report does not merge its arguments, but refuses one
    # report in two of them (the file again, a copy, a directory holding it).
    for again, first in ((path, path), (copy, path), (tmp_path, path)):
        one_error_line(run("charts", "--per-report", path, again, "-o", tmp_path / "charts"),
                       f"{again if again != tmp_path else path}: the same report as {first}")
    # Another run (pid) with the same numbers is merged.
    other = synthetic.write_report(tmp_path / "other", [
        R(HOSTILE_NAME, C["n^2"], SIZES), R("plain", C["n"], SIZES)], threads=2, pid=4343)
    assert run("rank", path, other).returncode == 0


# ---------------------------------------------------------------------------
# Display: names with control characters.
# ---------------------------------------------------------------------------

def no_control_characters(text: str) -> bool:
    return not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", text)


@pytest.mark.parametrize("name,args", [
    ("rank", []), ("rank", ["--short-names"]), ("annotate", []), ("annotate", ["--full-names"]),
    ("annotate", ["--per-thread"]), ("contexts", []), ("contexts", ["--full-names"]),
])
def test_text_output_escapes_control_characters(tmp_path, name, args):
    # The calling-contexts example, its routine "small" named HOSTILE_NAME:
    # one of the two contexts of "work" is main > HOSTILE_NAME > work.
    routines = [dataclasses.replace(r, name=HOSTILE_NAME if r.name == "small" else r.name,
                                    caller=HOSTILE_NAME if r.caller == "small" else r.caller)
                for r in synthetic.two_callers()]
    path = synthetic.write_report(tmp_path / "r", routines, contexts=8)
    r = run(name, *args, path)
    assert r.returncode == 0, r.stderr
    assert no_control_characters(r.stdout) and no_control_characters(r.stderr)
    # Shortened names keep their end.
    assert (SHOWN_NAME if "--full-names" in args else "line\\u0085end") in r.stdout
    # Every row of the name is one line: no line starts with its tail.
    assert not any(line.startswith(("next", "line")) for line in r.stdout.splitlines())


def test_regress_and_producers_escape_control_characters(tmp_path):
    path = hostile_report(tmp_path)
    slower = synthetic.write_report(tmp_path / "slower", [
        R(HOSTILE_NAME, C["n^3"], SIZES), R("plain", C["n"], SIZES)], threads=2, pid=5)
    r = run("regress", "-v", "--baseline", path, "--candidate", slower)
    assert r.returncode == 3 and SHOWN_NAME in r.stdout, r.stdout + r.stderr
    assert no_control_characters(r.stdout + r.stderr)
    from source_reports import sources_example
    sources = tmp_path / "sources"
    sources.write_text(sources_example().replace("\tproduce_data\t", "\tproduce\\x1b[2J\\x0a\t", 1))
    r = run("producers", sources)
    assert r.returncode == 0 and "produce\\x1b[2J\\x0a" in r.stdout, r.stderr
    assert no_control_characters(r.stdout)


def test_csv_quotes_and_parses_back(tmp_path):
    path = hostile_report(tmp_path)
    r = run("rank", "--format", "csv", "--min-share", "0", path)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert sorted(row["routine"] for row in rows) == sorted([SHOWN_NAME, "plain"])


def test_plot_summary_escapes_control_characters(tmp_path):
    path = hostile_report(tmp_path)
    r = run("plot", path, "-o", tmp_path / "plots")
    assert r.returncode == 0, r.stderr
    summary = (tmp_path / "plots" / "summary.txt").read_text()
    assert no_control_characters(summary) and f"name:            {SHOWN_NAME}" in summary
    assert "command: ./prog arg\\x1b[31m\\x0awith newline" in summary


def test_callgrind_export_is_read_by_callgrind_annotate(tmp_path):
    path = hostile_report(tmp_path)
    out = tmp_path / "callgrind.out"
    r = run("callgrind-export", path, "-o", out)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert no_control_characters(text) and re.search(rf"^fn=\(\d+\) {re.escape(SHOWN_NAME)}$", text, re.M)
    annotated = subprocess.run(["callgrind_annotate", str(out)], capture_output=True, text=True,
                               timeout=120)
    assert annotated.returncode == 0 and "malformed" not in annotated.stderr, annotated.stderr
    assert SHOWN_NAME in annotated.stdout


# ---------------------------------------------------------------------------
# kernel-writes-unseen shown by the commands.
# ---------------------------------------------------------------------------

def test_kernel_writes_unseen_is_shown(tmp_path):
    path = synthetic.write_report(tmp_path / "r", [R("f", C["n^2"], SIZES)],
                                  kernel_writes_unseen=["io_uring"])
    warning = "warning: input sizes may miss kernel writes made outside system calls: " \
              "the program set up io_uring"
    for name in ("rank", "annotate"):
        r = run(name, path)
        assert r.returncode == 0 and warning in r.stderr and warning not in r.stdout, r.stderr
        assert r.stderr.count("\n") == 1
    assert run("plot", path, "-o", tmp_path / "plots").returncode == 0
    assert warning in (tmp_path / "plots" / "summary.txt").read_text()
    status, _, stderr = run_in_process("html", [path, "-o", str(tmp_path / "r.html")])
    assert status == 0, stderr
    assert warning.split(": ", 1)[1] in (tmp_path / "r.html").read_text()
    plain = synthetic.write_report(tmp_path / "plain", [R("f", C["n^2"], SIZES)])
    assert "warning" not in run("rank", plain).stderr
