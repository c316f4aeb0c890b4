# SPDX-License-Identifier: GPL-2.0-or-later
# Fuzz test of the analysis commands: every command is fed reports mutated
# at random (a fixed seed, a bounded count) and must end with status 0, or
# 1/2 and one "error:" line, never a traceback (issue 25, Deliver 6).
#
# Copyright (C) 2026, the aprof-trms authors.
"""Every command (plot, charts, rank, annotate, regress, html_report,
callgrind-export, producers, contexts) gets mutants of two valid reports
(a synthetic one with calls and contexts, the input-sources example):
truncated at a random byte, a field replaced by a huge, negative or
non-finite number, by bytes that are not UTF-8, by control characters or
by a 1 MB text, a line duplicated, a line of random bytes. The commands
run in this process (cli.run, as their entry scripts do), each mutant on
one command in turn, so the whole test takes seconds: an exception that
cli.run does not turn into one error line fails the test with its
traceback and the mutant's seed."""
import contextlib
import io
import os
import random
import re

import pytest

import synthetic
from source_reports import sources_example
from aprof_trms import cli

SEED = 25
MUTANTS_PER_COMMAND = 25
COMMANDS = ["rank", "annotate", "regress", "plot", "charts", "html", "callgrind_export",
            "producers", "contexts"]

# What a field is replaced by.
HOSTILE_FIELDS = [
    b"9" * 5000,                    # beyond Python's int-str limit
    b"1" + b"0" * 400,              # beyond float
    b"-1", b"inf", b"nan", b"1e400", b"0x", b"",
    b"caf\xe9\xff\xfe",             # not UTF-8
    b"\\x1b]0;owned\\x07\\x1b[2J",    # version 5 escapes of control characters
    b"\x1b[2Jraw\x07",              # raw control characters (older tools)
    b"a\\nb\\rc",                   # escaped newline and CR
    b"\\q\\",                       # invalid escapes
    b"x" * (1 << 20),               # a 1 MB field
]


def base_reports(tmp_path):
    """Paths of a synthetic report (two threads, a routine called from two
    places: calls and calling contexts) and of the input-sources example."""
    synthetic_report = synthetic.write_report(tmp_path / "base1.out", synthetic.two_callers(),
                                              threads=2, contexts=8)
    sources = tmp_path / "base2.out"
    sources.write_text(sources_example())
    return [synthetic_report, str(sources)]


# The text fields of a report (tag: indexes of its fields, the tag being 0).
TEXT_FIELDS = {b"command": (1,), b"routine": (3, 4, 5, 7), b"tool": (2, 3)}


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One random mutation of a report's bytes. Half of them replace a text
    field (a name, an object, the command line): those reports are read,
    and the commands show what they hold."""
    lines = data.split(b"\n")
    i = rng.randrange(len(lines) - 1)   # the last element is the empty tail
    kind = rng.randrange(10)
    if kind == 0:
        return data[:rng.randrange(len(data))]
    if kind == 1:
        lines.insert(i, lines[i])
    elif kind == 2:
        lines[i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    elif kind < 5:   # any field
        fields = lines[i].split(b"\t")
        fields[rng.randrange(1, len(fields)) if len(fields) > 1 else 0] = rng.choice(HOSTILE_FIELDS)
        lines[i] = b"\t".join(fields)
    else:   # a text field
        i = rng.choice([n for n, line in enumerate(lines) if line.split(b"\t")[0] in TEXT_FIELDS])
        fields = lines[i].split(b"\t")
        chosen = [n for n in TEXT_FIELDS[fields[0]] if n < len(fields)]
        fields[rng.choice(chosen)] = rng.choice(HOSTILE_FIELDS)
        lines[i] = b"\t".join(fields)
    return b"\n".join(lines)


def argv_of(command: str, report: str, good: str, out: str):
    return {
        "rank": [report],
        "annotate": [report],
        "regress": ["--baseline", good, "--candidate", report],
        "plot": [report, "-o", out, "--top", "2"],
        "charts": [report, "-o", out],
        "html": [report, "-o", out + ".html"],
        "callgrind_export": [report, "-o", out + ".callgrind"],
        "producers": [report, "--graph", out + ".png"],
        "contexts": [report, "--plot", out],
    }[command]


def run_in_process(command: str, argv):
    """(status, stdout, stderr) of a command run as its entry script runs it."""
    module = __import__(f"aprof_trms.{command}", fromlist=["main"])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.run(module.main, argv)
        except SystemExit as e:   # argparse's usage errors
            status = e.code
    return status, out.getvalue(), err.getvalue()


def assert_clean_ending(status, stderr: str, what: str) -> None:
    """Status 0 (warnings allowed), or 1/2 with an 'error:' line; never a traceback."""
    assert "Traceback" not in stderr, what
    assert status in (0, 1, 2), (what, status, stderr[-2000:])
    if status != 0:
        last = stderr.splitlines()[-1] if stderr else ""
        assert re.match(r"[\w.-]+: error: ", last), (what, stderr[-2000:])
        assert len(last) < 4000, what   # a 1 MB field is not repeated whole


@pytest.mark.parametrize("command", COMMANDS)
def test_mutated_reports_end_in_a_status_and_one_error_line(command, tmp_path):
    good_reports = base_reports(tmp_path)
    rng = random.Random(f"{SEED}-{command}")
    outcomes = {0: 0, 1: 0, 2: 0}
    for n in range(MUTANTS_PER_COMMAND):
        good = good_reports[n % len(good_reports)]
        with open(good, "rb") as f:
            mutant = mutate(f.read(), rng)
        path = tmp_path / f"mutant{n}.out"
        path.write_bytes(mutant)
        what = f"{command} on mutant {n} of seed {SEED}-{command}"
        status, _, stderr = run_in_process(command, argv_of(command, str(path), good,
                                                            str(tmp_path / f"out{n}")))
        assert_clean_ending(status, stderr, what)
        outcomes[status] += 1
        path.unlink()
    # Both happen: mutants that are refused, and mutants read and shown.
    assert outcomes[1] > 0 and outcomes[0] > 0, outcomes
