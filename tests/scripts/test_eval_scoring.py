# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the evaluation corpus's scorer (tests/eval/run_eval.py): when
# is rank.py's first row counted right.
#
# Copyright (C) 2026, the aprof-trms authors.
"""A first row that grows in the expected range is right only when it is a
routine a reader names: php's start-up routine and Go's garbage collector
(round 3), lua's and tclsh's free routines (round 2) grew in range and
were counted right."""
import os
import sys

import pytest

EVAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval")
sys.path.insert(0, EVAL)
import corpus  # noqa: E402
import run_eval  # noqa: E402

SORT = corpus.Expected(corpus.N_LOG_N, 1.5, "a sort", ["vm_exec_core"],
                       top_names=["zend_sort*", "msort_with_tmp*"])


def row(routine, growth):
    return {"routine": routine, "growth": str(growth), "model": "n log n", "conclusive": "yes"}


def test_the_sort_growing_in_range_is_right():
    assert run_eval.first_row_right(row("zend_sort", 1.15), SORT)
    assert run_eval.first_row_right(row("msort_with_tmp.part.0", 1.15), SORT)


@pytest.mark.parametrize("routine", ["zend_register_functions", "runtime.scanobject",
                                     "_int_free", "rb_str_format"])
def test_a_routine_no_reader_names_is_wrong_however_it_grows(routine):
    assert not run_eval.first_row_right(row(routine, 1.15), SORT)


def test_a_routine_named_by_address_is_judged_by_its_growth():
    assert run_eval.first_row_right(row("0x1c85b0@perl", 1.15), SORT)
    assert not run_eval.first_row_right(row("0x1c85b0@perl", 2.0), SORT)


def test_a_named_routine_outside_the_range_or_plumbing_is_wrong():
    assert not run_eval.first_row_right(row("zend_sort", 2.0), SORT)
    plumbing = corpus.Expected(corpus.N_LOG_N, 1.5, "", ["zend_sort"], top_names=["zend_*"])
    assert not run_eval.first_row_right(row("zend_sort", 1.15), plumbing)
    assert not run_eval.first_row_right(None, SORT)


def test_a_program_that_names_none_is_judged_by_growth():
    unnamed = corpus.Expected(corpus.N_LOG_N, 1.5, "a sort")
    assert run_eval.first_row_right(row("_int_free", 1.15), unnamed)
    assert not run_eval.first_row_right(row("_int_free", 2.0), unnamed)


def test_every_development_program_names_its_readers_routines():
    """The names apply to the development programs alike (a held-out
    round's get theirs when they are written, before they run)."""
    assert [p.name for p in corpus.PROGRAMS
            if p.half == corpus.DEVELOPMENT and not p.expected.top_names] == []
