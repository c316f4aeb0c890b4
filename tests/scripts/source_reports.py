# Reports with input sources for the script tests: the example of
# docs/report-format.md, with and without its source records.
#
# Copyright (C) 2026, the aprof-trms authors.
# SPDX-License-Identifier: GPL-2.0-or-later
"""The input-sources example report of docs/report-format.md (a producer
thread's produce_data writes what consume_data reads on another thread:
200 reads from produce_data, 2 from outside every routine; produce_data
reads 16 cells written by the system call read), and the same report
without its source records."""
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
