# SPDX-License-Identifier: GPL-2.0-or-later
# The command that checks aprof-trms reports: syntax, record order,
# references and the relations between the numbers (report.py's checks).
#
# Copyright (C) 2026, the aprof-trms authors.
"""Checks the reports named on the command line with the reader's own
checks (report.load, report.consistency_problems) and lists every problem
found, not only the first:

    cd scripts && python3 -m aprof_trms.check_reports [--summary] REPORT...

Exit status: 0 every report is well formed and consistent, 1 one is not,
2 bad usage.
"""
import sys
from typing import List, Optional

from . import cli
from .report import Report, ReportError, consistency_problems, load

__all__ = ["main"]


def _summary(report: Report) -> str:
    h = report.header
    return (f"{report.path}: {h.tool} {h.tool_version}, pid {h.pid}, "
            f"command {' '.join(h.command)!r}, {len(report.threads)} threads, "
            f"{len(report.routines)} routines, {len(report.trms)} trms and "
            f"{len(report.rms)} rms tuples, {len(report.calls)} call edges, "
            + (f"{len(report.contexts)} contexts (depth limit {h.context_depth}), "
               if h.context_depth is not None else "")
            + f"cost {h.cost_metric}, "
            f"resolution {h.memory_resolution}, syscall input {h.syscall_input}"
            + ("" if h.trms_tracking else ", RMS only (TRMS not tracked)")
            + "".join(f", kernel writes unseen: {m}" for m in h.kernel_writes_unseen))


def main(argv: Optional[List[str]] = None) -> int:
    parser = cli.argument_parser(description="Checks aprof-trms reports: syntax, record order, "
                                 "references and the relations between the numbers.")
    parser.add_argument("--summary", action="store_true", help="print one line per report")
    parser.add_argument("paths", nargs="+", metavar="REPORT")
    args = parser.parse_args(argv)
    summary = args.summary
    status = 0
    for path in args.paths:
        try:
            report = load(path, check=False)   # all its problems, not the first
        except (ReportError, OSError) as e:
            print(e, file=sys.stderr)
            status = 1
            continue
        problems = consistency_problems(report)
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            status = 1
        if summary:
            print(_summary(report))
    return status


if __name__ == "__main__":
    sys.exit(cli.run(main))
