# SPDX-License-Identifier: GPL-2.0-or-later
# The short mode of the case studies (scripts/case-studies/run.py --short):
# MariaDB and vips profiled under the tool, and the properties of the paper's
# findings that hold on every run, whatever the scheduling.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Case studies on real software, short mode (70 to 90 s of CPU time; 5 to 12
minutes of wall time on this shared 2-core machine).

The script runs mariadbd and vips under the build tree's tool and writes
facts.json (per role routine: calls, distinct sizes, largest inputs, induced
reads, and its costliest activations as [cost, TRMS, RMS]); this test checks
the relations the paper's case studies rest on. Multithreaded runs vary with
scheduling, so only relations are asserted, with margins seen to hold over
repeated runs, and exact values only where the programs make them exact (two
write-buffer threads per vips image). The programs come from Debian packages
(scripts/lib/build.sh installs them); a missing one fails the test, naming
its package.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolrun import vg_in_place

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "case-studies" / "run.py"
TIMEOUT = 1500  # seconds: the whole short mode, on a loaded machine


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    out = tmp_path_factory.mktemp("case-studies")
    argv = [os.environ.get("PYTHON3") or sys.executable, str(SCRIPT), "--short", "--no-install",
            "--tool", vg_in_place(), "-o", str(out)]
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)
    if result.returncode != 0:
        pytest.fail("%s exited with status %d:\n%s"
                    % (" ".join(argv), result.returncode, result.stderr[-3000:]), pytrace=False)
    with open(out / "facts.json") as f:
        return json.load(f)


def role(facts, program, key):
    roles = facts["programs"][program]["roles"]
    assert key in roles, f"{program}: no routine found for role {key}: {sorted(roles)}"
    return roles[key]


def pool_cells(facts) -> int:
    assert facts["pool"].endswith("M")
    return int(facts["pool"][:-1]) * (1 << 20) // 4  # 4-byte cells


def test_select_trms_grows_past_the_buffer_pool_while_rms_stays_within_it(facts):
    """Figure 4: SELECT * of a table larger than the buffer pool reads every
    page, but InnoDB reloads evicted pages into the same frames: the RMS of
    mysql_select stops at the pool, its TRMS counts every reload."""
    select = role(facts, "mariadb", "select")
    assert select["name"].startswith("mysql_select(")
    cost, trms, rms = select["costliest"][0]  # the SELECT of the largest table
    cells = pool_cells(facts)
    assert rms < cells < trms, select["costliest"][:3]
    assert trms >= 1.5 * rms, select["costliest"][:3]
    # Each larger table gives a larger TRMS: the table selects are the
    # costliest activations, and their TRMS rises with their cost.
    tables = [p for p in select["costliest"] if p[1] > 20000][:len(facts["table_rows"]) - 1]
    trms_by_cost = [p[1] for p in sorted(tables)]
    assert trms_by_cost == sorted(trms_by_cost), tables


def test_select_input_is_mostly_external(facts):
    """Figure 9 (MySQL): the pages come from the disk through pread."""
    select = role(facts, "mariadb", "select")
    assert select["external"] > 2 * select["thread_induced"], select


def test_flushed_pages_carry_other_threads_input(facts):
    """Figure 6's role: the write of a flushed page reads what the user
    threads wrote in it."""
    flush = role(facts, "mariadb", "flush")
    assert flush["name"].startswith("tpool::simulated_aio::simulated_aio_callback")
    assert flush["thread_induced"] > 0 and flush["max_trms"] >= 4096, flush  # a 16 KiB page


def test_send_eof_profiled(facts):
    """Figure 8's routine: one activation per result set at least."""
    send_eof = role(facts, "mariadb", "send_eof")
    assert send_eof["calls"] >= len(facts["table_rows"]), send_eof


def test_write_buffer_thread_trms_counts_every_buffer(facts):
    """Figure 7: each of the two write-buffer threads of an image loops over
    the buffers it writes; the workers refill the same memory, so its RMS is
    one buffer while its TRMS counts all it wrote, nearly all of it
    thread-induced."""
    wbuffer = role(facts, "vips", "wbuffer")
    runs = len(facts["image_sides"]) * len(facts["vips_ops"])
    assert wbuffer["calls"] == 2 * runs, wbuffer
    assert wbuffer["sum_trms"] >= 1.5 * wbuffer["sum_rms"], wbuffer
    induced = wbuffer["thread_induced"] + wbuffer["external"]
    assert wbuffer["thread_induced"] >= 0.9 * induced, wbuffer


def test_worker_input_is_mostly_thread_induced(facts):
    """Figure 5's tile work: the workers read pixels other workers made."""
    prepare = role(facts, "vips", "prepare")
    assert prepare["sum_trms"] > prepare["sum_rms"], prepare
    assert prepare["thread_induced"] > 10 * prepare["external"], prepare


def test_figure_9_split(facts):
    """Among the routines of largest induced share, MariaDB's take theirs
    mostly from the kernel, vips' mostly from other threads."""
    mariadb = facts["programs"]["mariadb"]["induced_split"]["top"]
    vips = facts["programs"]["vips"]["induced_split"]["top"]
    assert mariadb["mostly_external"] > mariadb["mostly_thread"], mariadb
    assert vips["mostly_thread"] > vips["mostly_external"], vips
