# SPDX-License-Identifier: GPL-2.0-or-later
"""Activation counts against callgrind's call counts on real Debian programs.

Both tools run the same deterministic command; for every function that both
name, that lies in one object (matched by name and object basename) and that
both saw called at least once, the counts must be equal, except for the
allowlist below. Functions without a symbol (gzip and sqlite3 are stripped)
are matched by their address in the object: aprof-trms names them
"0x18e00@gzip", callgrind "0x0000000000018e00". At least MIN_COMPARED
functions, MIN_SYMBOL_LESS of them without a symbol, must be compared, so that
the test cannot pass vacuously.
"""
import os
import random
import re

import pytest

from aprof_trms import report as ar
from callgrind_out import call_counts, counts_by_basename
from toolrun import Spec, needs_program, program, run_tools, valgrind

MIN_COMPARED = 30
MIN_SYMBOL_LESS = 10

# Functions whose count legitimately differs between the tools:
# - _dl_runtime_resolve_{xsave,xsavec,fxsave}: the lazy-binding trampoline
#   jumps to the resolved function; callgrind pops its frame at that jump
#   ("pop_on_jump") and both tools may differ on how it was entered.
ALLOWLIST = [re.compile(r"_dl_runtime_resolve.*")]

SQL = b"""
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000)
INSERT INTO t SELECT x, printf('%08d', (x * 7919) % 10007), x / 7.0 FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(a), max(b), round(avg(c), 3) FROM t;
SELECT a, b FROM t WHERE b > '00005000' ORDER BY b LIMIT 5;
UPDATE t SET c = c * 2 WHERE a % 3 = 0;
SELECT substr(b, 3, 4) AS k, count(*) FROM t GROUP BY k ORDER BY 2 DESC, 1 LIMIT 3;
"""


def gzip_case(tmp_path):
    words = ["alpha", "beta", "gamma", "delta", "input", "sensitive", "profiling",
             "thread", "kernel", "valgrind", "0123456789", "routine"]
    rnd = random.Random(42)
    data = []
    size = 0
    while size < 200_000:
        w = rnd.choice(words) + (" " if rnd.random() < 0.9 else "\n")
        data.append(w)
        size += len(w)
    path = tmp_path / "input.txt"
    path.write_text("".join(data))
    return [needs_program("gzip"), "-c", str(path)], None


def sqlite_case(tmp_path):
    return [needs_program("sqlite3"), ":memory:"], SQL


def aprof_counts(report):
    out = {}
    for rt in report.routines.values():
        name = f"{rt.object_address:#018x}" if rt.name.startswith("0x") else rt.name
        key = (name, os.path.basename(rt.object))
        out[key] = out.get(key, 0) + ar.activations(report, rt)
    return out


def compare(cg, ap):
    compared, mismatches = [], []
    for key, n in sorted(cg.items()):
        name = key[0]
        if n == 0 or ap.get(key, 0) == 0:
            continue
        if any(p.fullmatch(name) for p in ALLOWLIST):
            continue
        compared.append(key)
        if ap[key] != n:
            mismatches.append(f"{name} ({key[1]}): aprof-trms {ap[key]}, callgrind {n}")
    return compared, mismatches


@pytest.mark.parametrize("case", [gzip_case, sqlite_case], ids=["gzip", "sqlite3"])
def test_activation_counts_match_callgrind(tmp_path, case):
    argv, stdin = case(tmp_path)
    cg_out = tmp_path / "callgrind.out"
    aprof, _ = run_tools(tmp_path, [
        Spec(argv, stdin=stdin, keep_stdout=False),
        Spec(["--tool=callgrind", f"--callgrind-out-file={cg_out}"] + argv, stdin=stdin,
             keep_stdout=False, out_file=None, launcher=valgrind()),
    ])
    cg = counts_by_basename(call_counts(cg_out))
    ap = aprof_counts(aprof.report)
    compared, mismatches = compare(cg, ap)
    assert not mismatches, (f"{len(mismatches)} of {len(compared)} functions differ:\n  "
                            + "\n  ".join(mismatches))
    assert len(compared) >= MIN_COMPARED, f"only {len(compared)} functions compared"
    symbol_less = [key for key in compared if key[0].startswith("0x")]
    assert len(symbol_less) >= MIN_SYMBOL_LESS, f"only {symbol_less} without a symbol"


def test_callgrind_reader_on_known_counts(tmp_path):
    """The reference side alone: callgrind's counts of the test programs are
    the exact counts the programs print (checks callgrind_out.py)."""
    rec, calls = program("recursion"), program("calls")
    out = [tmp_path / "cg1", tmp_path / "cg2"]
    runs = run_tools(tmp_path, [
        Spec(["--tool=callgrind", f"--callgrind-out-file={out[0]}", rec, "direct", "1000"],
             out_file=None, launcher=valgrind()),
        Spec(["--tool=callgrind", f"--callgrind-out-file={out[1]}", calls, "plt", "77"],
             out_file=None, launcher=valgrind()),
    ])
    assert runs[0].counts() == {"rec": 1001}
    c = counts_by_basename(call_counts(out[0]))
    assert c[("rec", "recursion")] == 1001
    assert c[("main", "recursion")] == 1
    c = counts_by_basename(call_counts(out[1]))
    assert c[("abs", "libc.so.6")] == 77
    assert c[("call_abs_loop", "calls")] == 1
