# SPDX-License-Identifier: GPL-2.0-or-later
"""Unit tests of scripts/aprof_trms/report.py, the reader of aprof-trms reports
(docs/report-format.md), on hand-written reports."""
import gc
import os
import re
import subprocess
import sys

import pytest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
from aprof_trms import report as ar  # noqa: E402

# Most tests use version 1 reports (the older format, still read); the
# version 2 tests below cover what changed: the routine record.
HEADER = [
    "aprof-trms-report\t1",
    "tool\taprof-trms\t0.1.0\t3.19.0",
    "command\t./consumer\t100",
    "pid\t4242\t4200",
    "cost-metric\tbb",
    "memory-resolution\t4",
    "syscall-input\tall",
]
# The example of docs/report-format.md, in version 1.
EXAMPLE_BODY = [
    "thread\t1\t1\t183422",
    "thread\t2\t2\t5120",
    "routine\t7\t0x401136\t/home/u/consumer\tconsume_data\tconsume_data",
    "totals\t2\t7\t100\t400\t400",
    "trms\t2\t7\t1\t100\t4\t4\t400\t1600\t400\t100\t0",
    "rms\t2\t7\t1\t100\t4\t4\t400\t1600\t400\t100\t0",
]
BIG = 2 ** 90 + 12345  # sums of squares exceed 64 bits (here 180 of the 192 the format allows)

# Version 2: the routine record gives the object address, source file and line.
HEADER_V2 = ["aprof-trms-report\t2"] + HEADER[1:]
ROUTINE_V2 = "routine\t7\t0x401136\t/home/u/consumer\tconsume_data\tconsume_data\t0x401136\tsrc/consumer.c\t42"
EXAMPLE_BODY_V2 = [ROUTINE_V2 if line.startswith("routine") else line for line in EXAMPLE_BODY]
# Version 3: the same records plus optional call records (call graph edges).
HEADER_V3 = ["aprof-trms-report\t3"] + HEADER[1:]

def report_text(body, header=HEADER, end=True):
    lines = list(header) + list(body)
    if end:
        lines.append(f"end\t{len(lines)}")
    return "".join(line + "\n" for line in lines)


def rich_body():
    return [
        "thread\t1\t1\t100000",
        "thread\t2\t3\t50000",
        "routine\t1\t0x401000\t/bin/prog\tmain\tmain",
        "routine\t2\t0x401200\t/bin/prog\tns::f(int)\t_ZN2ns1fEi",
        "routine\t5\t0x7f0000001000\t/lib/libc.so.6\twith\\ttab\\nnl\\\\bs\\rcr\tmangled\\\\x",
        "totals\t1\t1\t1\t1000\t90000",
        "totals\t1\t2\t3\t600\t600",
        "totals\t2\t2\t2\t500\t500",
        "totals\t2\t5\t1\t10\t10",
        # thread 1, routine 2: sizes 3 (2 calls) and 8 (1 call)
        "trms\t1\t1\t20\t1\t90000\t90000\t90000\t8100000000\t1000\t0\t5",
        "trms\t1\t2\t3\t2\t100\t200\t300\t50000\t300\t1\t0",
        "trms\t1\t2\t8\t1\t300\t300\t300\t90000\t300\t0\t2",
        "trms\t2\t2\t3\t2\t50\t450\t500\t205000\t500\t2\t1",
        "trms\t2\t5\t4\t1\t10\t10\t10\t100\t10\t4\t0",
        "rms\t1\t1\t15\t1\t90000\t90000\t90000\t8100000000\t1000\t0\t5",
        "rms\t1\t2\t3\t3\t100\t300\t600\t140000\t600\t1\t2",
        "rms\t2\t2\t1\t2\t50\t450\t500\t205000\t500\t2\t1",
        "rms\t2\t5\t0\t1\t10\t10\t10\t100\t10\t4\t0",
    ]


def parse(text, path="r.txt"):
    return ar.loads(text, path)


def expect_error(text, line, pattern, path="bad.txt"):
    with pytest.raises(ar.ReportError) as info:
        ar.loads(text, path)
    msg = str(info.value)
    assert msg.startswith(f"{path}:{line}: "), msg
    assert re.search(pattern, msg), msg
    assert info.value.line == line and info.value.path == path
    return msg


# ---------------------------------------------------------------------------
# Valid reports.
# ---------------------------------------------------------------------------

def test_example_of_the_spec():
    r = parse(report_text(EXAMPLE_BODY))
    h = r.header
    assert h == ar.Header(1, "aprof-trms", "0.1.0", "3.19.0", ("./consumer", "100"),
                          4242, 4200, "bb", 4, "all")
    assert r.threads == {1: ar.Thread(1, 1, 183422), 2: ar.Thread(2, 2, 5120)}
    assert r.routines == {7: ar.Routine(7, 0x401136, "/home/u/consumer", "consume_data",
                                        "consume_data")}
    assert r.totals == {(2, 7): ar.Totals(2, 7, 100, 400, 400)}
    t = ar.CostTuple(2, 7, 1, 100, 4, 4, 400, 1600, 400, 100, 0)
    assert r.trms == {(2, 7, 1): t}
    assert r.rms == {(2, 7, 1): t}
    assert ar.consistency_problems(r) == []


def test_version_2_routine_record():
    r = parse(report_text(EXAMPLE_BODY_V2, header=HEADER_V2))
    assert r.header.version == 2
    assert r.routines == {7: ar.Routine(7, 0x401136, "/home/u/consumer", "consume_data",
                                        "consume_data", 0x401136, "src/consumer.c", 42)}
    assert ar.consistency_problems(r) == []
    # Version 1 reports have no object address, file or line.
    old = parse(report_text(EXAMPLE_BODY)).routines[7]
    assert (old.object_address, old.file, old.line) == (None, None, None)
    # A symbol-less routine of a shared object, without line information.
    line = "routine\t7\t0x7f0000018e00\t/lib/libx.so\t0x18e00@libx.so\t0x18e00@libx.so\t0x18e00\t???\t0"
    r = parse(report_text(replace_line(EXAMPLE_BODY_V2, 2, line), header=HEADER_V2))
    assert r.routines[7].object_address == 0x18e00 and r.routines[7].line == 0


@pytest.mark.parametrize("header,line,pattern", [
    (HEADER_V2, EXAMPLE_BODY[2], "'routine' record needs 8 field"),
    (HEADER, ROUTINE_V2, "'routine' record needs 5 field"),
    (HEADER_V2, ROUTINE_V2.replace("\t0x401136\tsrc", "\t401136\tsrc"), "object address is not 0x"),
    (HEADER_V2, ROUTINE_V2.replace("\t42", "\t-42"), "line is not an unsigned decimal"),
    (HEADER_V2, ROUTINE_V2.replace("src/", "src\\x"), "source file: invalid escape"),
])
def test_version_2_routine_errors(header, line, pattern):
    expect_error(report_text(replace_line(EXAMPLE_BODY, 2, line), header=header), 10, pattern)


def test_spec_example_file_matches_docs():
    """The example in docs/report-format.md is the one these tests use."""
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                       "report-format.md")
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    block = re.search(r"## Example\s*```\n(.*?)```", text, re.S).group(1)
    assert block == report_text(EXAMPLE_BODY_V2, header=HEADER_V3)
    assert ar.consistency_problems(ar.loads(block)) == []


def test_rich_report_and_helpers():
    r = parse(report_text(rich_body()))
    assert ar.consistency_problems(r) == []
    libc = r.routines[5]
    assert libc.name == "with\ttab\nnl\\bs\rcr"
    assert libc.mangled == "mangled\\x"
    assert libc.address == 0x7f0000001000
    f = ar.routine_named(r, "ns::f(int)")
    assert f.mangled == "_ZN2ns1fEi" and f.id == 2
    assert ar.routines_named(r, "ns::f(int)", "prog") == [f]
    assert ar.routines_named(r, "ns::f(int)", "/bin/prog") == [f]
    assert ar.routines_named(r, "ns::f(int)", "libc.so.6") == []
    assert ar.routines_named(r, "ns::f") == []  # exact names only
    with pytest.raises(LookupError):
        ar.routine_named(r, "nope")
    assert ar.activations(r, f) == 5
    assert ar.activations(r, 2) == 5
    assert ar.activations(r, 1) == 1
    assert ar.totals(r, f) == ar.Totals(0, 2, 5, 1100, 1100)
    merged = ar.tuples(r, "trms", f)
    assert sorted(merged) == [3, 8]
    assert merged[3] == ar.CostTuple(0, 2, 3, 4, 50, 450, 800, 255000, 800, 3, 1)
    assert merged[8] == ar.CostTuple(0, 2, 8, 1, 300, 300, 300, 90000, 300, 0, 2)
    only2 = ar.tuples(r, "rms", f, thread=2)
    assert only2 == {1: ar.CostTuple(2, 2, 1, 2, 50, 450, 500, 205000, 500, 2, 1)}
    assert ar.tuples(r, "rms", 5) == {0: ar.CostTuple(0, 5, 0, 1, 10, 10, 10, 100, 10, 4, 0)}
    with pytest.raises(ValueError):
        ar.tuples(r, "drms", f)


def test_big_integers_are_exact():
    body = [
        "thread\t1\t1\t" + str(BIG),
        "routine\t1\t0xffffffffffffffff\t???\t0xffffffffffffffff\t0xffffffffffffffff",
        f"totals\t1\t1\t2\t{BIG}\t{BIG}",
        f"trms\t1\t1\t0\t2\t1\t{BIG - 1}\t{BIG}\t{1 + (BIG - 1) ** 2}\t{BIG}\t0\t0",
        f"rms\t1\t1\t0\t2\t1\t{BIG - 1}\t{BIG}\t{1 + (BIG - 1) ** 2}\t{BIG}\t0\t0",
    ]
    r = parse(report_text(body))
    assert r.trms[(1, 1, 0)].sum_sq_cost == 1 + (BIG - 1) ** 2
    assert r.threads[1].total_cost == BIG
    assert r.routines[1].address == 2 ** 64 - 1
    assert ar.consistency_problems(r) == []


def test_minimal_report_and_command_fields():
    header = list(HEADER)
    header[2] = "command\t/bin/with\\ttab\t\targ\\\\2\tline\\nbreak"
    r = parse(report_text([], header=header))
    assert r.header.command == ("/bin/with\ttab", "", "arg\\2", "line\nbreak")
    assert r.threads == {} and r.routines == {} and r.trms == {} and r.rms == {}


def test_bytes_and_files(tmp_path):
    text = report_text(EXAMPLE_BODY)
    p = tmp_path / "aprof-trms.out.4242"
    p.write_bytes(text.encode("utf-8"))
    r = ar.load(p)
    assert r.path == str(p)
    assert r.header.pid == 4242
    assert ar.loads(text.encode("utf-8")).header == r.header


def test_utf8_names():
    body = list(EXAMPLE_BODY)
    body[2] = "routine\t7\t0x401136\t/home/ü/consumer\tconsume_données\tconsume_données"
    r = ar.loads(report_text(body).encode("utf-8"))
    assert r.routines[7].name == "consume_données"


@pytest.mark.parametrize("text", ["", "a\tb", "\\", "\\\\\\t\\n\\r", "x\ty\nz\r\\w",
                                  "\x1b]0;t\x07 \x7f \x85 caf\u00e9 \\xff"])
def test_escape_roundtrip(text):
    assert ar.unescape(ar.escape(text)) == text
    assert "\t" not in ar.escape(text) and "\n" not in ar.escape(text)


# Version 5: `\xHH` is one raw byte; the bytes are decoded as UTF-8, and
# bytes that still are not UTF-8 stay visible as `\xHH`.
HEADER_V5 = ["aprof-trms-report\t5"] + HEADER[1:]


@pytest.mark.parametrize("field, name", [
    ("caf\\xc3\\xa9", "caf\u00e9"),
    ("caf\\xe9", "caf\\xe9"),
    ("x\\xffy\\x1b[2J\\x07", "x\\xffy\x1b[2J\x07"),
    ("\\xc2\\x85\\\\xff", "\x85\\xff"),
])
def test_version_5_byte_escapes(field, name):
    body = [line.replace("\tconsume_data\t", f"\t{field}\t", 1) for line in EXAMPLE_BODY_V2]
    r = parse(report_text(body, header=HEADER_V5))
    assert r.routines[7].name == name


@pytest.mark.parametrize("field", ["\\x", "\\xf", "\\xFF", "\\xg0"])
def test_version_5_bad_byte_escapes(field):
    body = [line.replace("\tconsume_data\t", f"\t{field}\t", 1) for line in EXAMPLE_BODY_V2]
    expect_error(report_text(body, header=HEADER_V5), 10, "invalid escape")


def test_version_5_kernel_writes_unseen():
    assert parse(report_text(EXAMPLE_BODY_V2, header=HEADER_V5)).header.kernel_writes_unseen == ()
    for mechanisms in (["io_uring"], ["proc-self-mem"], ["io_uring", "proc-self-mem"]):
        header = HEADER_V5 + [f"kernel-writes-unseen\t{m}" for m in mechanisms]
        r = parse(report_text(EXAMPLE_BODY_V2, header=header))
        assert r.header.kernel_writes_unseen == tuple(mechanisms)


@pytest.mark.parametrize("header, line, pattern", [
    (HEADER_V5 + ["kernel-writes-unseen\tio_uring"] * 2, 9, "io_uring after io_uring"),
    (HEADER_V5 + ["kernel-writes-unseen\tproc-self-mem", "kernel-writes-unseen\tio_uring"], 9,
     "each mechanism once, in the order io_uring, proc-self-mem"),
    (HEADER_V5 + ["kernel-writes-unseen\tptrace"], 8, "unknown mechanism 'ptrace'"),
    (HEADER_V5[:6] + ["kernel-writes-unseen\tio_uring"] + HEADER_V5[6:], 7,
     "missing 'syscall-input' record before 'kernel-writes-unseen'"),
    (HEADER_V5 + ["input-sources\tyes", "kernel-writes-unseen\tio_uring"], 9,
     "out of order: 'kernel-writes-unseen' after 'input-sources'"),
    (["aprof-trms-report\t4"] + HEADER[1:] + ["kernel-writes-unseen\tio_uring"], 8,
     "exists since version 5"),
])
def test_version_5_kernel_writes_unseen_errors(header, line, pattern):
    expect_error(report_text(EXAMPLE_BODY_V2, header=header), line, pattern)


# ---------------------------------------------------------------------------
# Malformed reports: ReportError "FILE:LINE: message".
# ---------------------------------------------------------------------------

def replace_line(lines, index, new):
    lines = list(lines)
    lines[index] = new
    return lines


def test_wrong_magic():
    expect_error(report_text(EXAMPLE_BODY, header=replace_line(HEADER, 0, "aprof-report\t1")),
                 1, "not an aprof-trms report")
    expect_error("hello world\n", 1, "not an aprof-trms report")
    expect_error("tool\taprof-trms\t0.1.0\t3.19.0\n", 1, "not an aprof-trms report")


@pytest.mark.parametrize("version", ["7", "0", "10"])
def test_unsupported_version(version):
    expect_error(report_text(EXAMPLE_BODY, header=replace_line(HEADER, 0, "aprof-trms-report\t" + version)),
                 1, "unsupported report format version " + version)


def test_unknown_tag():
    body = EXAMPLE_BODY[:2] + ["frobnicate\t1"] + EXAMPLE_BODY[2:]
    expect_error(report_text(body), 10, "unknown record tag 'frobnicate'")


def test_empty_line_is_an_unknown_tag():
    body = EXAMPLE_BODY[:2] + [""] + EXAMPLE_BODY[2:]
    expect_error(report_text(body), 10, "unknown record tag ''")


@pytest.mark.parametrize("index,line,expected", [
    (0, "aprof-trms-report\t1\t0", 1),
    (1, "tool\taprof-trms\t0.1.0", 2),
    (1, "tool\taprof-trms\t0.1.0\t3.19.0\textra", 2),
    (2, "command", 3),
    (3, "pid\t4242", 4),
    (4, "cost-metric", 5),
    (5, "memory-resolution\t4\t4", 6),
    (6, "syscall-input", 7),
])
def test_wrong_field_count_in_header(index, line, expected):
    expect_error(report_text(EXAMPLE_BODY, header=replace_line(HEADER, index, line)),
                 expected, "field")


@pytest.mark.parametrize("index,line", [
    (0, "thread\t1\t1"),
    (2, "routine\t7\t0x401136\t/home/u/consumer\tconsume_data"),
    (2, "routine\t7\t0x401136\t/home/u/consumer\tconsume_data\tconsume_data\tx"),
    (3, "totals\t2\t7\t100\t400"),
    (4, "trms\t2\t7\t1\t100\t4\t4\t400\t1600\t400\t100"),
    (5, "rms\t2\t7\t1\t100\t4\t4\t400\t1600\t400\t100\t0\t0"),
])
def test_wrong_field_count_in_body(index, line):
    body = replace_line(EXAMPLE_BODY, index, line)
    tag = line.split("\t")[0]
    expect_error(report_text(body), len(HEADER) + index + 1, f"'{tag}' record needs")


def test_wrong_field_count_in_end():
    text = report_text(EXAMPLE_BODY, end=False) + "end\t13\t13\n"
    expect_error(text, 14, "'end' record needs 1 field")
    expect_error(report_text(EXAMPLE_BODY, end=False) + "end\n", 14, "'end' record needs 1 field")


@pytest.mark.parametrize("value", ["-1", "+1", "1.0", "abc", " 1", "1 ", "", "0x10", "1e3",
                                   "1_000", "\uff11"])
def test_non_integer_fields(value):
    # total cost of thread 1, calls of totals, sum of squares of trms, end count
    for index, field in [(0, 3), (3, 3), (4, 8), (5, 11)]:
        fields = EXAMPLE_BODY[index].split("\t")
        fields[field] = value
        body = replace_line(EXAMPLE_BODY, index, "\t".join(fields))
        expect_error(report_text(body), len(HEADER) + index + 1, "not an unsigned decimal integer")
    expect_error(report_text(EXAMPLE_BODY, header=replace_line(HEADER, 3, f"pid\t{value}\t4200")),
                 4, "not an unsigned decimal integer")
    expect_error(report_text(EXAMPLE_BODY, end=False) + f"end\t{value}\n", 14,
                 "not an unsigned decimal integer")


@pytest.mark.parametrize("address", ["401136", "0X401136", "0x40113G", "0x", "0x401136 ",
                                     "0x401ABC", "4198710"])
def test_bad_address(address):
    body = replace_line(EXAMPLE_BODY, 2,
                        f"routine\t7\t{address}\t/home/u/consumer\tconsume_data\tconsume_data")
    expect_error(report_text(body), 10, "entry address")


@pytest.mark.parametrize("index,line,pattern", [
    (4, "cost-metric\tcycles", "unknown cost metric 'cycles'"),
    (5, "memory-resolution\t3", "invalid memory resolution 3"),
    (5, "memory-resolution\t32", "invalid memory resolution 32"),
    (6, "syscall-input\tnone", "unknown syscall input 'none'"),
])
def test_bad_header_values(index, line, pattern):
    expect_error(report_text(EXAMPLE_BODY, header=replace_line(HEADER, index, line)),
                 index + 1, pattern)


@pytest.mark.parametrize("field", ["name", "object", "mangled"])
@pytest.mark.parametrize("text,pattern", [("bad\\x", "invalid escape"),
                                          ("lone\\", "lone backslash")])
def test_bad_escapes(field, text, pattern):
    fields = {"object": "/home/u/consumer", "name": "consume_data", "mangled": "consume_data"}
    fields[field] = text
    body = replace_line(EXAMPLE_BODY, 2, "routine\t7\t0x401136\t{object}\t{name}\t{mangled}".format(**fields))
    expect_error(report_text(body), 10, pattern)
    expect_error(report_text(EXAMPLE_BODY, header=replace_line(HEADER, 2, "command\t" + text)),
                 3, pattern)


def test_records_out_of_order():
    # routine before the threads
    body = [EXAMPLE_BODY[2], EXAMPLE_BODY[0], EXAMPLE_BODY[1]] + EXAMPLE_BODY[3:]
    expect_error(report_text(body), 9, "out of order: 'thread' after 'routine'")
    # rms before trms
    body = EXAMPLE_BODY[:4] + [EXAMPLE_BODY[5], EXAMPLE_BODY[4]]
    expect_error(report_text(body), 13, "out of order: 'trms' after 'rms'")
    # threads not contiguous
    body = [EXAMPLE_BODY[0], EXAMPLE_BODY[2], EXAMPLE_BODY[1]] + EXAMPLE_BODY[3:]
    expect_error(report_text(body), 10, "out of order: 'thread' after 'routine'")
    # header records swapped
    header = [HEADER[0], HEADER[2], HEADER[1]] + HEADER[3:]
    expect_error(report_text(EXAMPLE_BODY, header=header), 2, "missing 'tool' record before 'command'")
    header = HEADER[:4] + [HEADER[5], HEADER[4], HEADER[6]]
    expect_error(report_text(EXAMPLE_BODY, header=header), 5,
                 "missing 'cost-metric' record before 'memory-resolution'")
    # header record after the body started
    body = EXAMPLE_BODY[:1] + ["cost-metric\tbb"] + EXAMPLE_BODY[1:]
    expect_error(report_text(body), 9, "duplicate 'cost-metric'|out of order")


def test_optional_trms_tracking_record():
    assert ar.loads(report_text(EXAMPLE_BODY)).header.trms_tracking
    header = HEADER + ["trms-tracking\tno"]
    assert not ar.loads(report_text(EXAMPLE_BODY, header=header)).header.trms_tracking
    expect_error(report_text(EXAMPLE_BODY, header=HEADER + ["trms-tracking\tmaybe"]), 8,
                 "expected yes or no, found 'maybe'")
    expect_error(report_text(EXAMPLE_BODY, header=header + ["trms-tracking\tno"]), 9,
                 "duplicate 'trms-tracking' record")
    # It belongs to the header: after syscall-input, before the threads.
    header = HEADER[:6] + ["trms-tracking\tno", HEADER[6]]
    expect_error(report_text(EXAMPLE_BODY, header=header), 7,
                 "missing 'syscall-input' record before 'trms-tracking'")


def test_optional_shadow_peak_record():
    assert ar.loads(report_text(EXAMPLE_BODY)).header.shadow_peak_bytes is None  # older reports
    header = HEADER + ["trms-tracking\tno", "shadow-peak-bytes\t3221225472"]
    h = ar.loads(report_text(EXAMPLE_BODY, header=header)).header
    assert (h.shadow_peak_bytes, h.trms_tracking) == (3 * 2 ** 30, False)
    assert ar.loads(report_text(EXAMPLE_BODY, header=HEADER + ["shadow-peak-bytes\t0"])
                    ).header.shadow_peak_bytes == 0
    expect_error(report_text(EXAMPLE_BODY, header=HEADER + ["shadow-peak-bytes\t-1"]), 8,
                 "peak shadow bytes is not an unsigned decimal integer")
    expect_error(report_text(EXAMPLE_BODY, header=HEADER + ["shadow-peak-bytes\t1\t2"]), 8,
                 "needs 1 field")
    # After trms-tracking, before the threads, once.
    expect_error(report_text(EXAMPLE_BODY, header=HEADER + ["shadow-peak-bytes\t1", "trms-tracking\tno"]),
                 9, "out of order")
    expect_error(report_text(EXAMPLE_BODY[:1] + ["shadow-peak-bytes\t1"] + EXAMPLE_BODY[1:]), 9,
                 "out of order")
    expect_error(report_text(EXAMPLE_BODY, header=HEADER + ["shadow-peak-bytes\t1"] * 2), 9,
                 "duplicate 'shadow-peak-bytes' record")


def test_optional_go_async_preemption_record():
    v5 = ["aprof-trms-report\t5"] + HEADER[1:]
    assert ar.loads(report_text(EXAMPLE_BODY_V2, header=v5)).header.go_async_preemption is None
    for value, on in (("off", False), ("on", True)):
        header = v5 + ["shadow-peak-bytes\t1", f"go-async-preemption\t{value}"]
        assert ar.loads(report_text(EXAMPLE_BODY_V2, header=header)).header.go_async_preemption is on
    expect_error(report_text(EXAMPLE_BODY_V2, header=v5 + ["go-async-preemption\tyes"]), 8,
                 "expected on or off, found 'yes'")
    v4 = ["aprof-trms-report\t4"] + HEADER[1:]
    expect_error(report_text(EXAMPLE_BODY_V2, header=v4 + ["go-async-preemption\toff"]), 8,
                 "version")
    # The last header record, before the threads.
    expect_error(report_text(EXAMPLE_BODY_V2, header=v5 + ["go-async-preemption\toff",
                                                        "shadow-peak-bytes\t1"]), 9, "out of order")


def test_duplicate_and_missing_header_records():
    header = HEADER[:2] + [HEADER[1]] + HEADER[2:]
    expect_error(report_text(EXAMPLE_BODY, header=header), 3, "duplicate 'tool' record")
    header = HEADER[:1] + [HEADER[0]] + HEADER[1:]
    expect_error(report_text(EXAMPLE_BODY, header=header), 2, "duplicate 'aprof-trms-report'")
    header = HEADER[:3] + HEADER[4:]
    expect_error(report_text(EXAMPLE_BODY, header=header), 4, "missing 'pid' record before 'cost-metric'")
    expect_error(report_text(EXAMPLE_BODY, header=HEADER[:6]), 7, "missing 'syscall-input' record before 'thread'")
    expect_error("aprof-trms-report\t1\nend\t1\n", 2, "missing 'tool' record before 'end'")


def test_undefined_references():
    body = replace_line(EXAMPLE_BODY, 3, "totals\t3\t7\t100\t400\t400")
    expect_error(report_text(body), 11, "undefined thread 3")
    body = replace_line(EXAMPLE_BODY, 3, "totals\t2\t8\t100\t400\t400")
    expect_error(report_text(body), 11, "undefined routine 8")
    body = replace_line(EXAMPLE_BODY, 4, "trms\t2\t9\t1\t100\t4\t4\t400\t1600\t400\t100\t0")
    expect_error(report_text(body), 12, "undefined routine 9")
    body = replace_line(EXAMPLE_BODY, 5, "rms\t0\t7\t1\t100\t4\t4\t400\t1600\t400\t100\t0")
    expect_error(report_text(body), 13, "undefined thread 0")


def test_duplicates_in_body():
    body = EXAMPLE_BODY[:3] + ["routine\t7\t0x401140\t/home/u/consumer\tother\tother"] + EXAMPLE_BODY[3:]
    expect_error(report_text(body), 11, "duplicate routine id 7")
    body = EXAMPLE_BODY[:3] + ["routine\t8\t0x401136\t/home/u/consumer\talias\talias"] + EXAMPLE_BODY[3:]
    expect_error(report_text(body), 11, "same object and entry address as routine 7")
    body = EXAMPLE_BODY[:4] + [EXAMPLE_BODY[3]] + EXAMPLE_BODY[4:]
    expect_error(report_text(body), 12, "duplicate 'totals' record")
    body = EXAMPLE_BODY[:5] + [EXAMPLE_BODY[4]] + EXAMPLE_BODY[5:]
    expect_error(report_text(body), 13, "duplicate")


def test_thread_serials_in_sequence():
    body = replace_line(EXAMPLE_BODY, 1, "thread\t3\t2\t5120")
    expect_error(report_text(body), 9, "thread serial 3 out of sequence")
    body = replace_line(EXAMPLE_BODY, 0, "thread\t0\t1\t5120")
    expect_error(report_text(body), 8, "thread serial 0 out of sequence")


def test_tuples_sorted():
    body = rich_body()
    i = body.index("trms\t1\t2\t8\t1\t300\t300\t300\t90000\t300\t0\t2")
    body[i - 1], body[i] = body[i], body[i - 1]  # sizes 8 then 3
    expect_error(report_text(body), len(HEADER) + i + 1, "not sorted")
    body = rich_body()
    i = body.index("rms\t2\t5\t0\t1\t10\t10\t10\t100\t10\t4\t0")
    body[i - 1], body[i] = body[i], body[i - 1]  # routine 5 before routine 2
    expect_error(report_text(body), len(HEADER) + i + 1, "not sorted")


def test_a_parsed_report_leaves_no_parser_to_the_cyclic_collector():
    # regress.py pauses the cyclic collector (cli.cycle_collection_paused):
    # a parser in a reference cycle would keep every report's tables alive.
    gc.collect()
    gc.disable()
    try:
        ar.loads(report_text(rich_body()))
        left = [o for o in gc.get_objects() if isinstance(o, ar._Parser)]
    finally:
        gc.enable()
    assert left == []


def test_missing_end_truncated():
    expect_error(report_text(EXAMPLE_BODY, end=False), 14, "without an 'end' record")


def test_every_truncation_is_detected():
    data = report_text(rich_body()).encode("utf-8")
    for n in range(len(data)):
        with pytest.raises(ar.ReportError) as info:
            ar.loads(data[:n], "t")
        assert re.match(r"t:\d+: ", str(info.value)), (n, str(info.value))


def test_unterminated_last_line():
    text = report_text(EXAMPLE_BODY)
    expect_error(text[:-1], 14, "not terminated by a newline")


def test_wrong_end_count():
    text = report_text(EXAMPLE_BODY, end=False)
    expect_error(text + "end\t12\n", 14, "says 12 records, but 13 precede it")
    expect_error(text + "end\t14\n", 14, "says 14 records, but 13 precede it")


def test_data_after_end():
    text = report_text(EXAMPLE_BODY)
    expect_error(text + "end\t14\n", 15, "after the 'end' record")
    expect_error(text + "\n", 15, "after the 'end' record")
    expect_error(text + "thread\t3\t3\t1\n", 15, "after the 'end' record")
    expect_error(text + "garbage", 15, "after the 'end' record")


def test_empty_file():
    expect_error("", 1, "empty file")
    expect_error(b"", 1, "empty file")


def test_invalid_utf8_of_old_versions_is_kept_visible():
    # Tools before format version 5 wrote names' bytes raw: a byte that is
    # not UTF-8 is read as the four characters \xff, not refused.
    data = report_text(EXAMPLE_BODY).encode("utf-8").replace(b"consume_data\tconsume_data",
                                                            b"caf\xe9_\xff\tconsume_data")
    assert ar.loads(data).routines[7].name == "caf\\xe9_\\xff"


def test_crlf_line_ends_are_rejected():
    expect_error(report_text(EXAMPLE_BODY).replace("\n", "\r\n"), 1, "")


# ---------------------------------------------------------------------------
# Consistency checks (relations between numbers).
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("index,line,pattern", [
    (4, "trms\t2\t7\t1\t100\t5\t4\t400\t1600\t400\t100\t0", "min cost 5 > max cost 4"),
    (4, "trms\t2\t7\t1\t100\t4\t4\t401\t1600\t400\t100\t0", "sum cost 401 not within"),
    # 100 calls of at least 5 cannot sum to 400 (every other relation holds).
    (4, "trms\t2\t7\t1\t100\t5\t13\t400\t2000\t400\t100\t0", "sum cost 400 not within"),
    (4, "trms\t2\t7\t1\t100\t4\t4\t400\t1600\t401\t100\t0", "sum self cost 401 > sum cost 400"),
    (4, "trms\t2\t7\t1\t100\t4\t4\t400\t1599\t400\t100\t0", "sum of squares 1599"),
    (4, "trms\t2\t7\t1\t100\t4\t4\t400\t1600\t400\t100\t1", "induced reads 100 \\+ 1 exceed"),
    (4, "trms\t2\t7\t1\t99\t4\t4\t396\t1584\t396\t99\t0", "100 calls, but its trms tuples have 99"),
    (5, "rms\t2\t7\t2\t100\t4\t4\t400\t1600\t400\t100\t0", "sum of RMS values 200 > sum of TRMS values 100"),
    (3, "totals\t2\t7\t100\t400\t5200", "cumulative cost 5200 > thread total cost 5120"),
    (3, "totals\t2\t7\t100\t400\t3", "cumulative cost 3 not within"),
    (3, "totals\t2\t7\t100\t400\t401", "cumulative cost 401 not within"),
    (3, "totals\t2\t7\t100\t399\t400", "self cost 399, but its trms tuples sum to 400"),
])
def test_consistency_problems(index, line, pattern):
    text = report_text(replace_line(EXAMPLE_BODY, index, line))
    problems = ar.consistency_problems(ar.loads(text, "r.txt", check=False))
    assert any(re.search(pattern, p) for p in problems), problems
    # Every report read is checked: the first problem is an error naming
    # the line of the tuple, or of the totals record it contradicts.
    with pytest.raises(ar.ReportError) as info:
        ar.loads(text, "r.txt")
    totals_line, changed_line = len(HEADER) + 4, len(HEADER) + index + 1
    assert info.value.line in (totals_line, changed_line)
    assert str(info.value).startswith(f"r.txt:{info.value.line}: inconsistent numbers: ")
    assert problems[0].split(": ", 1)[1] in str(info.value)


def test_routine_without_activations_is_a_problem():
    body = EXAMPLE_BODY[:3] + ["routine\t8\t0x401140\t/home/u/consumer\tidle\tidle"] + EXAMPLE_BODY[3:]
    problems = ar.consistency_problems(ar.loads(report_text(body), check=False))
    assert any("routine 8 ('idle') has no activation" in p for p in problems), problems


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------

def test_command_line(tmp_path):
    good = tmp_path / "good"
    good.write_text(report_text(rich_body()))
    bad = tmp_path / "bad"
    bad.write_text(report_text(EXAMPLE_BODY, end=False))
    def check(*args):
        return subprocess.run([sys.executable, "-m", "aprof_trms.check_reports", *args],
                              cwd=os.path.normpath(SCRIPTS), capture_output=True, text=True)
    r = check("--summary", str(good))
    assert r.returncode == 0, r.stderr
    assert "3 routines" in r.stdout and "2 threads" in r.stdout
    r = check(str(good), str(bad))
    assert r.returncode == 1
    assert f"{bad}:14: " in r.stderr
    r = check()
    assert r.returncode == 2 and "usage" in r.stderr


# ---------------------------------------------------------------------------
# Large reports: records of a run, the tuple sink, reading line by line.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("tag", ["thread", "routine", "totals", "trms", "rms"])
def test_wrong_field_count_within_a_run_of_records(tag):
    # The second record of a run of one tag takes the parser's short path.
    body = rich_body()
    i = [k for k, line in enumerate(body) if line.startswith(tag + "\t")][1]
    body[i] = body[i].rsplit("\t", 1)[0]
    expect_error(report_text(body), len(HEADER) + i + 1, rf"'{tag}' record needs \d+ field")
    body[i] += "\t7\t8"
    expect_error(report_text(body), len(HEADER) + i + 1, rf"'{tag}' record needs \d+ field")


def test_tuple_sink_receives_every_tuple_instead_of_the_report(tmp_path):
    path = tmp_path / "r"
    path.write_text(report_text(rich_body()))
    whole = ar.load(path)
    received = []
    streamed = ar.load(path, tuple_sink=lambda metric, t: received.append((metric, t)))
    assert received == [(m, t) for m in ar.METRICS for t in whole.metric(m).values()]
    assert streamed.trms == {} and streamed.rms == {}
    assert (streamed.header, streamed.threads, streamed.routines, streamed.totals) == \
        (whole.header, whole.threads, whole.routines, whole.totals)
    # The checks are the same: an unsorted tuple is an error with a sink too.
    body = rich_body()
    body[10], body[11] = body[11], body[10]
    path.write_text(report_text(body))
    with pytest.raises(ar.ReportError, match="not sorted"):
        ar.load(path, tuple_sink=lambda metric, t: None)


def test_file_errors_name_their_line(tmp_path):
    # load() reads the file in blocks, not whole: the line of a bad byte, and a
    # truncated last line, are still named.
    data = report_text(EXAMPLE_BODY).encode("utf-8")
    bad = tmp_path / "bad"
    bad.write_bytes(data.replace(b"0x401136", b"0x4011\xff6"))
    with pytest.raises(ar.ReportError, match=rf"^{re.escape(str(bad))}:10: 'routine' record: entry"):
        ar.load(bad)
    bad.write_bytes(data[:-1])
    with pytest.raises(ar.ReportError, match=r":14: last line is not terminated"):
        ar.load(bad)


# ---------------------------------------------------------------------------
# Version 3: call records.
# ---------------------------------------------------------------------------

def call_graph_body():
    """main (1) calls f (2) twice and g (5) once; f calls g once."""
    routines = [
        "routine\t1\t0x401000\t/bin/prog\tmain\tmain\t0x401000\tprog.c\t1",
        "routine\t2\t0x401200\t/bin/prog\tf\tf\t0x401200\tprog.c\t9",
        "routine\t5\t0x401400\t/bin/prog\tg\tg\t0x401400\tprog.c\t20",
    ]
    body = [line for line in rich_body() if not line.startswith("routine")]
    return (body[:2] + routines + body[2:]
            + ["call\t1\t1\t2\t2\t400", "call\t1\t2\t2\t1\t100",
               "call\t2\t2\t5\t1\t10"])


def test_version_3_call_records():
    r = parse(report_text(call_graph_body(), header=HEADER_V3))
    assert r.header.version == 3
    assert r.calls[(1, 1, 2)] == ar.CallEdge(1, 1, 2, 2, 400)
    assert ar.consistency_problems(r) == []
    callers, callees = ar.callers_and_callees(r, 2)
    assert callers == [ar.CallEdge(0, 1, 2, 2, 400), ar.CallEdge(0, 2, 2, 1, 100)]
    assert callees == [ar.CallEdge(0, 2, 2, 1, 100), ar.CallEdge(0, 2, 5, 1, 10)]
    assert ar.callers_and_callees(r, 2, thread=2) == ([], [ar.CallEdge(2, 2, 5, 1, 10)])
    # Older reports have no call graph.
    assert parse(report_text(EXAMPLE_BODY_V2, header=HEADER_V2)).calls == {}
    assert ar.callers_and_callees(parse(report_text(EXAMPLE_BODY)), 7) == ([], [])


@pytest.mark.parametrize("line,pattern", [
    ("call\t1\t1\t2\t2", "'call' record needs 5 field"),
    ("call\t3\t1\t2\t2\t400", "undefined thread 3"),
    ("call\t1\t9\t2\t2\t400", "undefined routine 9"),
    ("call\t1\t1\t2\t2\tx", "inclusive cost is not an unsigned"),
    ("call\t1\t2\t2\t1\t100", "duplicate"),
    ("call\t1\t1\t1\t1\t100", "not sorted by thread, caller, callee"),
])
def test_call_record_errors(line, pattern):
    body = call_graph_body()
    body.insert(len(body) - 1, line)
    expect_error(report_text(body, header=HEADER_V3), len(HEADER_V3) + len(body) - 1, pattern)


def test_call_records_out_of_place():
    body = call_graph_body()
    body.insert(8, body.pop())  # a call record before the totals
    expect_error(report_text(body, header=HEADER_V3), len(HEADER_V3) + 10, "out of order")


def test_call_edges_counting_more_than_the_activations_are_a_problem():
    body = [line.replace("call\t1\t1\t2\t2\t400", "call\t1\t1\t2\t3\t400")
            for line in call_graph_body()]
    problems = ar.consistency_problems(ar.loads(report_text(body, header=HEADER_V3), check=False))
    assert len(problems) == 1 and "call edges count 4 calls, more than its 3" in problems[0]


@pytest.mark.parametrize("block", [1, 7, 64])
def test_reading_in_blocks_changes_nothing(tmp_path, monkeypatch, block):
    # load() decodes the file in blocks (report._BLOCK_BYTES) that end at a
    # line's end: lines split across blocks, errors in a later block and the
    # lines before a bad byte must read as with one block for the file.
    data = report_text(rich_body()).encode("utf-8")
    path = tmp_path / "r"

    def outcome(content: bytes):
        path.write_bytes(content)
        try:
            return ar.load(path)
        except ar.ReportError as e:
            return str(e)

    cases = [data, data[:-1], data[:len(data) // 2], data + b"x",
             data.replace(b"ns::f(int)", b"ns::\xff(int)"),
             # A syntax error before a bad byte is named first.
             data.replace(b"thread\t2", b"thread\tx", 1).replace(b"\nend\t", b"\n\xffnd\t")]
    whole = [outcome(c) for c in cases]
    monkeypatch.setattr(ar, "_BLOCK_BYTES", block)
    assert [outcome(c) for c in cases] == whole
    assert isinstance(whole[0], ar.Report) and whole[0].trms
    assert all(isinstance(w, str) for w in whole[1:4] + whole[5:]), whole
    assert whole[4].routines[2].name == "ns::\\xff(int)" and "'thread' record" in whole[5]


def _many_records() -> str:
    """A report whose runs of trms, rms and totals records are long enough
    to be read as blocks (report._tuple_block, _totals_block)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import synthetic
    routines = [synthetic.Routine(f"r{i}", synthetic.COSTS["n"], synthetic.sizes(40, ratio=1.05),
                                  calls=1 + i % 3, noise=0.05) for i in range(30)]
    return synthetic.report_text(routines, threads=3)


def _with_line(text: str, tag: str, nth: int, change) -> str:
    """The text with the nth record of `tag` changed (change: fields -> fields)."""
    lines = text.split("\n")
    index = [i for i, line in enumerate(lines) if line.startswith(tag + "\t")][nth]
    lines[index] = "\t".join(change(lines[index].split("\t")))
    return "\n".join(lines)


def _swapped(text: str, tag: str, nth: int, duplicate: bool = False) -> str:
    """The text with the nth record of `tag` and the next swapped (or the
    next replaced by a copy of the nth)."""
    lines = text.split("\n")
    index = [i for i, line in enumerate(lines) if line.startswith(tag + "\t")][nth]
    if duplicate:
        lines[index + 1] = lines[index]
    else:
        lines[index], lines[index + 1] = lines[index + 1], lines[index]
    return "\n".join(lines)


def test_records_read_as_blocks_read_as_one_by_one(tmp_path, monkeypatch):
    # Runs of records are read a block at a time (numpy) when they pass the
    # checks of add_tuple and rec_totals, else one by one: the report, the
    # points merged from it and every error must be the same either way.
    from aprof_trms import profile as aprof_profile
    text = _many_records()
    assert text.count("\ntrms\t") > 2 * ar._MIN_BLOCK
    set_field = lambda i, v: lambda f: f[:i] + [v] + f[i + 1:]  # noqa: E731
    cases = [text,
             _with_line(text, "trms", 200, set_field(4, "x")),               # not a number
             _with_line(text, "rms", 300, set_field(2, "999")),              # no such routine
             _swapped(text, "trms", 150),                                    # out of order
             _with_line(text, "trms", 250, lambda f: f[:5] + [str(int(f[6]) + 1)] + f[6:]),  # min > max
             _with_line(text, "rms", 100, set_field(8, "1" + "0" * 25)),      # sum of squares too big
             _with_line(text, "trms", 120, set_field(3, "1" + "0" * 20)),     # a size beyond int64
             _with_line(text, "totals", 50, set_field(3, "12345")),           # calls of the totals
             _with_line(text, "totals", 60, set_field(1, "7")),               # no such thread
             _swapped(text, "totals", 40),                                   # totals out of order: fine
             _swapped(text, "totals", 40, duplicate=True)]                   # a totals record twice
    path = tmp_path / "r"

    def outcome(content: str):
        path.write_text(content, encoding="utf-8")
        try:
            rep = ar.load(path)
            profile = aprof_profile.load_profile([path])
            return rep, {key: (dict(r.trms.items()), dict(r.rms.items()))
                         for key, r in profile.routines.items()}
        except ar.ReportError as e:
            return str(e)

    blocks = []
    real_block = ar._tuple_block
    monkeypatch.setattr(ar, "_tuple_block", lambda *a: blocks.append(real_block(*a)) or blocks[-1])
    monkeypatch.setitem(ar._BLOCK_READERS, "trms", ar._tuple_block)
    as_blocks = [outcome(c) for c in cases]
    assert blocks.count(True) > 2   # most of the valid report was read as blocks
    monkeypatch.setattr(ar, "_MIN_BLOCK", 10 ** 9)
    one_by_one = [outcome(c) for c in cases]
    assert as_blocks == one_by_one
    assert not isinstance(as_blocks[0], str) and as_blocks[0][0].trms and as_blocks[0][1]
    errors = as_blocks[1:9] + as_blocks[10:]
    assert all(isinstance(o, str) for o in errors) and not isinstance(as_blocks[9], str), as_blocks[1:]
    assert len(set(errors)) == len(errors)   # each names its own problem


# Version 4: the optional calling-context records (--collect-context=yes).
def contexts_example():
    """The calling-context example of docs/report-format.md."""
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                       "report-format.md")
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    return re.search(r"## Example with calling contexts.*?```\n(.*?)```", text, re.S).group(1)


def test_version_4_context_records():
    r = parse(contexts_example())
    assert r.header.version == 4 and r.header.context_depth == 64
    assert r.contexts[5] == ar.Context(5, 4, 4)
    assert r.context_trms[(1, 3, 12)].calls == 3 and r.context_rms[(1, 5, 102)].sum_cost == 1025
    assert ar.consistency_problems(r) == []
    # A node whose activations all completed while collection was off: its
    # routine has a routine record but no activation.
    text = contexts_example().replace(
        "totals\t", "routine\t5\t0x401300\t/home/u/callers\tidle\tidle\t0x401300\tsrc/callers.c\t40\ntotals\t", 1)
    text = text.replace("context-trms\t", "context\t6\t1\t5\ncontext-trms\t", 1).replace("end\t46", "end\t48")
    r = parse(text)
    assert r.contexts[6] == ar.Context(6, 1, 5) and ar.consistency_problems(r) == []
    # A report without contexts has none of them.
    assert parse(report_text(EXAMPLE_BODY_V2, header=["aprof-trms-report\t4"] + HEADER[1:])).contexts == {}


@pytest.mark.parametrize("old, new, pattern", [
    ("contexts\t64\n", "", "'context' record in a report without the 'contexts' record"),
    ("contexts\t64\n", "contexts\t0\n", "depth limit must be at least 1"),
    ("context\t3\t2\t4\n", "context\t3\t3\t4\n", "parent 3 is not a smaller id"),
    ("context\t3\t2\t4\n", "context\t3\t2\t9\n", "undefined routine 9"),
    ("context\t2\t1\t2\n", "context\t7\t1\t2\n", "context id 7 out of sequence"),
    ("context-trms\t1\t3\t12\t", "context-trms\t1\t6\t12\t", "undefined context 6"),
    ("context-rms\t1\t4\t104\t", "context-rms\t1\t1\t104\t", "not sorted by thread, context"),
])
def test_version_4_context_errors(old, new, pattern):
    text = contexts_example()
    assert text.count(old) == 1
    text = text.replace(old, new)
    if not new:  # one record fewer
        text = text.replace("end\t46\n", "end\t45\n")
    with pytest.raises(ar.ReportError, match=pattern):
        ar.loads(text)


INTERVAL = "interval\t2\t1500\t4200\t1\tafter warm-up"


def test_interval_record_of_a_dump():
    header = ["aprof-trms-report\t6"] + HEADER[1:4] + [INTERVAL] + HEADER[4:]
    r = ar.loads(report_text(EXAMPLE_BODY_V2, header=header), "dump.txt")
    assert r.header.interval == ar.Interval(2, 1500, 4200, 1, "after warm-up")
    assert ar.loads(report_text(EXAMPLE_BODY_V2, header=HEADER_V3), "old").header.interval is None


def test_interval_record_errors():
    header = ["aprof-trms-report\t6"] + HEADER[1:4] + [INTERVAL] + HEADER[4:]
    expect_error(report_text(EXAMPLE_BODY_V2, header=["aprof-trms-report\t5"] + header[1:]),
                 5, "'interval' record in a format version 5 report")
    backwards = replace_line(header, 4, "interval\t2\t4200\t1500\t1\tx")
    expect_error(report_text(EXAMPLE_BODY_V2, header=backwards), 5, "starts at 4200 ms, after its end")
    after_cost_metric = header[:4] + header[5:6] + header[4:5] + header[6:]
    expect_error(report_text(EXAMPLE_BODY_V2, header=after_cost_metric), 6,
                 "record out of order: 'interval' after 'cost-metric'")
