# SPDX-License-Identifier: GPL-2.0-or-later
# Costs of rep-prefixed string instructions (aprof-trms/string_instruction.h):
# charged by the bytes they process, so that a copy costs the same whether
# glibc runs it as a vector loop or as rep movsb.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Valgrind runs one iteration of a rep string instruction per superblock
execution: counted as blocks, a copy above glibc's rep threshold (about 8 KB
for memcpy, 2 KB for memset here, and different on every CPU) cost one
block per byte, 128 times its cost below, and the copy routine fitted n^1.68
instead of n. programs/copies.cc copies and fills growing buffers; glibc's
thresholds are moved with GLIBC_TUNABLES to the default, out of reach
(never rep) and the lowest values glibc accepts (always rep)."""
import sys

import pytest

from toolrun import SRCDIR, Spec, check_counts, program, run_tools

sys.path.insert(0, str(SRCDIR / "scripts"))
from aprof_trms import fit as aprof_fit  # noqa: E402
from aprof_trms import profile as aprof_profile  # noqa: E402

MAX_BYTES = 262144
THRESHOLDS = {
    "default": None,
    "never-rep": "glibc.cpu.x86_rep_movsb_threshold=2147483647:"
                 "glibc.cpu.x86_rep_stosb_threshold=2147483647",
    # The smallest values glibc 2.36 accepts (32-byte vectors: 8 of them for
    # movsb; 1 for stosb); smaller ones are ignored.
    "always-rep": "glibc.cpu.x86_rep_movsb_threshold=256:glibc.cpu.x86_rep_stosb_threshold=1",
}
ROUTINES = ("copy_bytes", "fill_bytes", "movs_bytes", "movs_quads")
# The rule: one block per 128 bytes, one instruction per 16 bytes.
BYTES_PER_UNIT = {"bb": 128, "instructions": 16}


def copy_sizes():
    """The byte counts copies.cc uses, in its order (smallest first)."""
    sizes, n = [], 256.0
    while n <= MAX_BYTES:
        sizes.append(int(n) & ~7)
        n *= 1.25
    return sizes


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    """{(metric, setting): Profile} of copies.cc under each threshold."""
    cases = [(metric, setting) for metric in BYTES_PER_UNIT for setting in THRESHOLDS
             if metric == "bb" or setting != "always-rep"]
    specs = [Spec([program("copies"), str(MAX_BYTES)], [f"--cost-metric={metric}"],
                  env={"GLIBC_TUNABLES": THRESHOLDS[setting]} if THRESHOLDS[setting] else None)
             for metric, setting in cases]
    runs = run_tools(tmp_path_factory.mktemp("copies"), specs)
    expected = {name: len(copy_sizes()) for name in ROUTINES}
    for run in runs:
        check_counts(run, run.report, expected, "copies")
    return {case: aprof_profile.merge([run.report]) for case, run in zip(cases, runs)}


def costs_by_size(profile, name):
    sizes, costs = aprof_fit.routine_points(profile.find(name)[0], "trms")
    assert len(sizes) == len(copy_sizes()), (name, sizes)
    return costs


@pytest.mark.parametrize("name", ["copy_bytes", "fill_bytes"])
@pytest.mark.parametrize("setting", list(THRESHOLDS))
def test_copies_and_fills_fit_n_whatever_the_threshold(profiles, name, setting):
    result = aprof_fit.fit_routine(profiles[("bb", setting)].find(name)[0], "trms")
    assert result.best.model == "n" and result.conclusive, (result.best.formula(), result.doubts)


@pytest.mark.parametrize("metric", list(BYTES_PER_UNIT))
@pytest.mark.parametrize("name", ["copy_bytes", "fill_bytes"])
def test_the_thresholds_agree_within_2x_at_every_size(profiles, metric, name):
    reference = costs_by_size(profiles[(metric, "never-rep")], name)
    for setting in THRESHOLDS:
        if (metric, setting) not in profiles:
            continue
        costs = costs_by_size(profiles[(metric, setting)], name)
        ratios = [c / r for c, r in zip(costs, reference)]
        assert all(0.5 <= q <= 2.0 for q in ratios), (setting, [round(q, 2) for q in ratios])


@pytest.mark.parametrize("metric", list(BYTES_PER_UNIT))
def test_a_string_instruction_costs_one_unit_per_unit_of_bytes(profiles, metric):
    """rep movsb of n bytes and rep movsq of n / 8 quadwords cost the same,
    n / 128 blocks (n / 16 instructions) and a few more for the call; one
    per element would be n and n / 8."""
    profile = profiles[(metric, "default")]
    per_byte = costs_by_size(profile, "movs_bytes")
    per_quad = costs_by_size(profile, "movs_quads")
    unit = BYTES_PER_UNIT[metric]
    for n, by_byte, by_quad in zip(copy_sizes(), per_byte, per_quad):
        assert abs(by_byte - by_quad) <= 2, (n, by_byte, by_quad)
        assert n / unit - 2 <= by_byte <= n / unit + 12, (n, by_byte, n / unit)
