#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The analysis's scoreboard (make eval-analysis): profiles the programs of
# the evaluation corpus (corpus.py) twice each under the built tool, with
# default options, and scores what rank.py and regress.py tell a user.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Evaluation of the analysis on real programs: per program, is the first
row of rank.py where the cost grows (a growth in the expected range, not a
plumbing routine, a routine a reader of the program's source names), how many of the first five rows grow faster than the
program's algorithms allow (fake superlinear growth), and does the CI gate
(regress.py) pass on two identical runs. Scores are given per half of the
corpus (development, held-out)."""
import argparse
import csv
import fnmatch
import io
import json
import os
import shutil
import subprocess
import sys
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import corpus  # noqa: E402

PYTHON = sys.executable
TOP_ROWS = 5


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(REPO, "build"),
                        help="build directory holding aprof-trms/vg-in-place [default: <repo>/build]")
    parser.add_argument("--half", choices=[corpus.DEVELOPMENT, corpus.HELD_OUT, "all"],
                        default=corpus.DEVELOPMENT,
                        help="which half of the corpus [default: %(default)s; the held-out "
                             "half is run last, once the analysis is settled]")
    parser.add_argument("--programs", default="*",
                        help="comma-separated program names or globs [default: all of the half]")
    parser.add_argument("--out", default=None,
                        help="directory of the reports and results [default: <build>/eval]")
    parser.add_argument("--reuse", action="store_true",
                        help="score the reports already in --out instead of profiling again "
                             "(to score a changed analysis on the same runs)")
    parser.add_argument("--json", help="also write the scores to this file")
    parser.add_argument("--scripts", default=os.path.join(REPO, "scripts"),
                        help="the scripts directory whose rank.py and regress.py are scored "
                             "(another version's, to compare analyses on the same reports) "
                             "[default: this tree's]")
    return parser.parse_args(argv)


def select(args) -> List[corpus.Program]:
    patterns = args.programs.split(",")
    chosen = [p for p in corpus.PROGRAMS
              if (args.half == "all" or p.half == args.half)
              and any(fnmatch.fnmatchcase(p.name, pat) for pat in patterns)]
    if not chosen:
        sys.exit("error: no program of the %s half matches %r (corpus: %s)"
                 % (args.half, args.programs, ", ".join(p.name for p in corpus.PROGRAMS)))
    return chosen


def profile(program: corpus.Program, launcher: List[str], out: str, reuse: bool) -> List[str]:
    """The report directories of two identical runs of the program."""
    runs = []
    for number in (1, 2):
        reports = os.path.join(out, program.name, "run%d" % number)
        runs.append(reports)
        if reuse and os.path.isdir(reports) and os.listdir(reports):
            continue
        work = os.path.join(out, program.name, "work")
        for d in (reports, work):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        started = time.monotonic()
        program.run(launcher, work, reports)
        shutil.rmtree(work, ignore_errors=True)
        print("  %s run %d: %.0f s, %d report(s)" % (program.name, number,
              time.monotonic() - started, len(os.listdir(reports))), file=sys.stderr)
    return runs


def ranking(scripts: str, reports: str) -> List[Dict[str, str]]:
    result = subprocess.run([PYTHON, os.path.join(scripts, "rank.py"), "--format", "csv", reports],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError("rank.py failed:\n" + result.stderr[-2000:])
    return list(csv.DictReader(io.StringIO(result.stdout)))


def gate(scripts: str, baseline: str, candidate: str) -> Dict[str, object]:
    result = subprocess.run([PYTHON, os.path.join(scripts, "regress.py"), "--baseline", baseline,
                             "--candidate", candidate], capture_output=True, text=True)
    return {"exit": result.returncode, "passed": result.returncode == 0,
            "output": result.stdout.strip().splitlines()[:12]}


def is_plumbing(name: str, expected: corpus.Expected) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern)
               for pattern in list(corpus.PLUMBING) + list(expected.never_top))


def is_reader_named(name: str, expected: corpus.Expected) -> bool:
    """Whether a reader of the program's source would name this routine as
    where the cost grows. A routine named by address (`0x…@object`, a
    stripped binary's) cannot be told by its name, nor any routine of a
    program whose expected answer names none: they are judged by their
    growth alone."""
    return name.startswith("0x") or not expected.top_names or \
        any(fnmatch.fnmatchcase(name, pattern) for pattern in expected.top_names)


def growth_of(row: Dict[str, str]) -> float:
    return float(row["growth"]) if row.get("growth") else float("nan")


def first_row_right(top: Optional[Dict[str, str]], expected: corpus.Expected) -> bool:
    """A first row grows in the expected range, is no plumbing, and is a
    routine a reader names (a start-up routine, the allocator or a
    garbage collector growing in range is not the answer)."""
    return bool(top) and not is_plumbing(top["routine"], expected) and \
        is_reader_named(top["routine"], expected) and \
        expected.top_growth[0] <= growth_of(top) <= expected.top_growth[1]


def score(program: corpus.Program, runs: List[str], scripts: str) -> Dict[str, object]:
    rows = ranking(scripts, runs[0])
    expected = program.expected
    top = rows[0] if rows else None
    top_right = first_row_right(top, expected)
    fake = [row for row in rows[:TOP_ROWS] if growth_of(row) > expected.max_growth]
    return {
        "program": program.name, "half": program.half,
        "top": ({"routine": top["routine"], "model": top["model"], "growth": growth_of(top),
                 "conclusive": top["conclusive"]} if top else None),
        "top_right": top_right,
        "expected_top_growth": list(expected.top_growth),
        "fake_superlinear": [{"routine": r["routine"], "model": r["model"],
                              "growth": growth_of(r), "conclusive": r["conclusive"]}
                             for r in fake],
        "gate": gate(scripts, runs[0], runs[1]),
    }


def print_scoreboard(scores: List[Dict[str, object]]) -> None:
    for half in (corpus.DEVELOPMENT, corpus.HELD_OUT):
        mine = [s for s in scores if s["half"] == half]
        if not mine:
            continue
        print("\n%s half" % half.capitalize())
        print("%-15s %-5s %-44s %-9s %-6s %s" % ("program", "top", "first row (model, trust)",
                                                 "expected", "fake", "gate"))
        for s in mine:
            top = s["top"]
            first = ("%s (%s%s)" % (top["routine"][:30], top["model"],
                                    "" if top["conclusive"] == "yes" else ", ?")
                     if top else "(no row)")
            print("%-15s %-5s %-44s %-9s %-6d %s" % (
                s["program"], "right" if s["top_right"] else "WRONG", first,
                "%.2g-%.2g" % tuple(s["expected_top_growth"]), len(s["fake_superlinear"]),
                "pass" if s["gate"]["passed"] else "FAIL (exit %d)" % s["gate"]["exit"]))
        fakes = [f for s in mine for f in s["fake_superlinear"]]
        print("score: first row right %d/%d; fake superlinear rows in the first %d: %d (%d of "
              "them confident); gate passes on identical runs %d/%d"
              % (sum(s["top_right"] for s in mine), len(mine), TOP_ROWS, len(fakes),
                 sum(f["conclusive"] == "yes" for f in fakes),
                 sum(s["gate"]["passed"] for s in mine), len(mine)))


def main(argv=None) -> int:
    args = parse_args(argv)
    programs = select(args)
    launcher = [os.path.join(os.path.abspath(args.build), "aprof-trms", "vg-in-place")]
    if not os.access(launcher[0], os.X_OK):
        sys.exit("error: %s not found: build the tool first (make)" % launcher[0])
    out = os.path.abspath(args.out or os.path.join(args.build, "eval"))
    scores = []
    for program in programs:
        print("%s: %s" % (program.name, program.description), file=sys.stderr)
        try:
            runs = profile(program, launcher, out, args.reuse)
            scores.append(score(program, runs, args.scripts))
        except (RuntimeError, subprocess.SubprocessError, OSError) as e:
            print("error: %s: %s" % (program.name, e), file=sys.stderr)
            scores.append({"program": program.name, "half": program.half, "top": None,
                           "top_right": False, "fake_superlinear": [],
                           "expected_top_growth": list(program.expected.top_growth),
                           "gate": {"exit": -1, "passed": False, "output": [str(e)]}})
    print_scoreboard(scores)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(scores, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
