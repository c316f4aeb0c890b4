# SPDX-License-Identifier: GPL-2.0-or-later
# Fits of a real program's routines, profiled by the tool: the case of issue
# 10 in which a routine whose cost rose by orders of magnitude was fitted as
# a constant.
#
# Copyright (C) 2026, the aprof-trms authors.
"""sqlite3 runs a quadratic self-join (no index: a nested loop over all
pairs of rows) on tables of growing size, each row 100 bytes of padding so
that a table scan reads input proportional to its rows. Each join is one
activation of sqlite3_step with a large cost; the CREATE and INSERT
statements, and linear scans of every table at the end, are cheaper
activations of the same routine (a second regime). sqlite3_step's
worst-case cost must come out superlinear: at least quadratic on the upper
envelope."""
import sys

import pytest

from toolrun import SRCDIR, needs_program, run_tool

sys.path.insert(0, str(SRCDIR / "scripts"))
from aprof_trms import fit as aprof_fit  # noqa: E402
from aprof_trms import profile as aprof_profile  # noqa: E402

ROWS = (80, 110, 160, 220, 300, 420, 600)


def joins_sql() -> bytes:
    lines = []
    for i, n in enumerate(ROWS):
        lines += [f"CREATE TABLE t{i}(x INTEGER, pad TEXT);",
                  f"WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM c WHERE v < {n}) "
                  f"INSERT INTO t{i} SELECT (v * 7919) % {3 * n}, printf('%0100d', v) FROM c;",
                  f"SELECT count(*) FROM t{i} a, t{i} b WHERE a.x < b.x;"]
    # Then linear scans of every table: cheap activations with large inputs,
    # the regime that pulled the fit of issue 10 flat.
    lines += [f"SELECT count(*) FROM t{i} WHERE x > {j};" for i in range(len(ROWS)) for j in range(4)]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def sqlite_profile(tmp_path_factory):
    exe = needs_program("sqlite3")
    run = run_tool(tmp_path_factory.mktemp("sqlite-joins"), [exe, ":memory:"],
                   stdin=joins_sql())
    # The joins' answers: pairs (a, b) with a.x < b.x, one line per table.
    assert len(run.stdout.split()) == 5 * len(ROWS), run.describe()
    return aprof_profile.merge([run.report])


def test_sqlite3_step_quadratic_joins_are_superlinear(sqlite_profile):
    step = sqlite_profile.find("sqlite3_step")
    assert len(step) == 1
    sizes, costs = aprof_fit.routine_points(step[0], "trms")
    assert max(costs) > 1000 * min(costs)        # orders of magnitude: the joins
    result = aprof_fit.fit_routine(step[0], "trms")
    # The scans and the CREATE/INSERT statements are off the upper envelope;
    # on it, the joins' cost grows at least quadratically with the input (a
    # plain fit of all points says n log n).
    assert result.left_out > 0, result.notes
    assert result.best.growth_exponent() >= 2.0, (result.best.formula(), result.notes)
