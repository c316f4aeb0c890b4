# SPDX-License-Identifier: GPL-2.0-or-later
# Reports with input sources for the script tests: the example of
# docs/report-format.md, with and without its source records, and source
# records added to any report.
#
# Copyright (C) 2026, the aprof-trms authors.
"""The input-sources example report of docs/report-format.md (a producer
thread's produce_data writes what consume_data reads on another thread:
200 reads from produce_data, 2 from outside every routine; produce_data
reads 16 cells written by the system call read), the same report
without its source records, and with_sources() to give a report (e.g. a
synthetic one) source records of known counts."""
import os
import re

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "report-format.md")
SOURCE_RECORDS = ("thread-source", "kernel-source", "input-sources")


def sources_example() -> str:
    """The input-sources example of docs/report-format.md."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    return re.search(r"## Example with input sources.*?```\n(.*?)```", text, re.S).group(1)


def without_sources(text: str) -> str:
    """The report without its input-sources, thread-source and
    kernel-source records, with a corrected end count."""
    lines = [l for l in text.splitlines() if not l.startswith(SOURCE_RECORDS + ("end",))]
    lines.append(f"end\t{len(lines)}")
    return "".join(l + "\n" for l in lines)


def with_sources(text: str, thread_sources=(), kernel_sources=()) -> str:
    """The report (without source records) with the input-sources header
    record and these records: thread_sources as (thread, routine, producer
    thread, producer routine, reads), kernel_sources as (thread, routine,
    system call, reads), routines None for '-'; sorted as the reader
    wants, with a corrected end count."""
    def field(value):
        return "-" if value is None else str(value)

    def order(key):
        return tuple((1 << 64) if k is None else k for k in key)

    lines = [l for l in text.splitlines() if not l.startswith("end")]
    at = next(i for i, l in enumerate(lines) if l.startswith("syscall-input")) + 1
    lines.insert(at, "input-sources\tyes")
    for s in sorted(thread_sources, key=lambda s: order(s[:4])):
        lines.append("thread-source\t" + "\t".join(map(field, s)))
    for s in sorted(kernel_sources, key=lambda s: (order(s[:2]), s[2])):
        lines.append("kernel-source\t" + "\t".join(map(field, s)))
    lines.append(f"end\t{len(lines)}")
    return "".join(l + "\n" for l in lines)
