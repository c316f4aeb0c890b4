# SPDX-License-Identifier: GPL-2.0-or-later
"""Profiling a program while it runs (docs/manual.md, "Profiling a server"):
dumps, zeroing and collection control through gdbserver's monitor commands
(vgdb, aprof_control), and --collect-inside. programs/phases.cc waits
between its phases for a byte on stdin, so a dump or zero falls at the same
point of every run; while it waits it is blocked in read(), which vgdb
reaches by ptrace."""
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pytest

import toolrun
from toolrun import ar

CONTROL = [sys.executable, str(toolrun.SRCDIR / "scripts" / "control.py")]
PROGRAM_ROUTINES = ("leaf", "inner", "phase_work")


def start(d: Path, argv: List[str], opts=()) -> subprocess.Popen:
    return subprocess.Popen([toolrun.vg_in_place(), f"--aprof-out-file={d}/aprof.%p", *opts,
                             *argv], cwd=d, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)


def send(proc: subprocess.Popen, *words: str) -> subprocess.CompletedProcess:
    toolrun.needs_program("vgdb")
    return subprocess.run(["vgdb", f"--pid={proc.pid}", *words], capture_output=True, text=True,
                          timeout=toolrun.RUN_TIMEOUT)


def control(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(CONTROL + list(args), capture_output=True, text=True,
                          timeout=toolrun.RUN_TIMEOUT)


def finish(proc: subprocess.Popen, stdin: bytes = b"") -> str:
    out, err = proc.communicate(stdin, timeout=toolrun.RUN_TIMEOUT)
    assert proc.returncode == 0, err.decode(errors="replace")
    return out.decode()


def load(path: Path) -> ar.Report:
    report = ar.load(path)
    assert ar.consistency_problems(report) == [], path
    return report


def sums(reports: List[ar.Report]) -> Dict[tuple, list]:
    """Per program routine and TRMS: calls, sum of cost, sum of self cost,
    added over the reports (and threads)."""
    out: Dict[tuple, list] = {}
    for r in reports:
        for (thread, rid, size), t in r.trms.items():
            name = r.routines[rid].name
            if name in PROGRAM_ROUTINES:
                s = out.setdefault((name, size), [0, 0, 0])
                s[0] += t.calls
                s[1] += t.sum_cost
                s[2] += t.sum_self_cost
    return out


def calls_of(r: ar.Report, name: str) -> int:
    return sum(t.calls for (thread, rid), t in r.totals.items() if r.routines[rid].name == name)


def test_three_dumps_zeroed_in_between_add_up_to_a_run_without_them(tmp_path):
    phases, calls = 3, 200
    argv = [toolrun.program("phases"), str(phases), str(calls)]
    (tmp_path / "plain").mkdir()
    plain = start(tmp_path / "plain", argv)
    finish(plain, b"x" * phases)
    (reference,) = [load(p) for p in (tmp_path / "plain").iterdir()]

    d = tmp_path / "dumped"
    d.mkdir()
    proc = start(d, argv)
    for k in range(1, phases + 1):
        assert proc.stdout.readline() == f"phase {k}\n".encode()
        done = control("-d", f"--reason=phase {k}", "-z", str(proc.pid))
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"dump {k} written to {d}/aprof.{proc.pid}.{k}" in done.stdout
        proc.stdin.write(b"x")
        proc.stdin.flush()
    finish(proc)
    dumps = [load(d / f"aprof.{proc.pid}.{k}") for k in range(1, phases + 1)]
    final = load(d / f"aprof.{proc.pid}")
    assert sorted(os.listdir(d)) == sorted([f"aprof.{proc.pid}"] +
                                           [f"aprof.{proc.pid}.{k}" for k in range(1, phases + 1)])
    # Each dump holds its own phase: the phase's activations, whole.
    for k, dump in enumerate(dumps, 1):
        i = dump.header.interval
        assert (i.dump, i.zeroes, i.reason) == (k, k - 1, f"phase {k}")
        assert calls_of(dump, "phase_work") == 1 and calls_of(dump, "leaf") == calls + 3
        assert calls_of(dump, "main") == 0, "main is still pending"
    # The intervals follow each other without overlap, the report at exit last.
    intervals = [r.header.interval for r in dumps + [final]]
    assert all(a.end_ms <= b.start_ms for a, b in zip(intervals, intervals[1:])), intervals
    assert (intervals[-1].dump, intervals[-1].zeroes, intervals[-1].reason) == (0, phases, "exit")
    assert calls_of(final, "main") == 1 and calls_of(final, "leaf") == 0
    # Summed, the zeroed dumps and the report at exit are the run without them.
    assert sums(dumps + [final]) == sums([reference])
    main = [t for (th, rid), t in final.totals.items() if final.routines[rid].name == "main"]
    ref_main = [t for (th, rid), t in reference.totals.items() if reference.routines[rid].name == "main"]
    assert [t.calls for t in main] == [t.calls for t in ref_main] == [1]
    # The analysis commands take the series: merged, and two dumps compared.
    from aprof_trms import profile as ap
    merged = ap.load_profile(sorted(str(p) for p in d.iterdir()))
    assert merged.find("leaf")[0].calls == phases * (calls + 3)
    compared = subprocess.run([sys.executable, str(toolrun.SRCDIR / "scripts" / "regress.py"),
                               "--baseline", str(d / f"aprof.{proc.pid}.1"),
                               "--candidate", str(d / f"aprof.{proc.pid}.2")],
                              capture_output=True, text=True, timeout=toolrun.RUN_TIMEOUT)
    assert compared.returncode == 0, compared.stdout + compared.stderr


def test_a_dump_without_zero_overlaps_and_is_not_merged_with_the_report(tmp_path):
    proc = start(tmp_path, [toolrun.program("phases"), "1", "10"])
    assert proc.stdout.readline() == b"phase 1\n"
    assert "dump 1 written" in send(proc, "dump").stdout
    finish(proc, b"x")
    from aprof_trms import profile as ap
    with pytest.raises(ap.ProfileError, match="covers part of the run"):
        ap.load_profile(sorted(str(p) for p in tmp_path.iterdir()))


def test_dumps_during_multithreaded_activity_lose_nothing(tmp_path):
    threads, rounds, calls = 4, 40, 300
    proc = start(tmp_path, [toolrun.program("phases"), str(rounds), str(calls), str(threads)])
    assert proc.stdout.readline() == b"running\n"
    for k in range(1, 4):
        done = control("--dump", "-z", str(proc.pid))
        assert done.returncode == 0, done.stdout + done.stderr
    out = finish(proc, b"x")
    reports = [load(tmp_path / name) for name in sorted(os.listdir(tmp_path))]
    assert len(reports) == 4
    assert sorted(r.header.interval.zeroes for r in reports) == [0, 1, 2, 3]
    total = sum(calls_of(r, "leaf") for r in reports)
    assert total == threads * rounds * (calls + 3) == int(out.split()[-1])


def test_collect_inside_records_exactly_the_activations_below_the_routine(tmp_path):
    phases, calls = 2, 50
    argv = [toolrun.program("phases"), str(phases), str(calls)]
    runs = toolrun.run_tools(tmp_path, [
        toolrun.Spec(argv, ["--collect-inside=inner"], stdin=b"x" * phases),
        toolrun.Spec(argv, [], stdin=b"x" * phases),
        toolrun.Spec(argv, ["--collect-inside=no_such_routine"], stdin=b"x" * phases)])
    inside, full, none = (run.report for run in runs)
    assert calls_of(inside, "inner") == phases
    assert calls_of(inside, "leaf") == 3 * phases, "only the leaves inner calls"
    assert calls_of(inside, "phase_work") == 0 and calls_of(inside, "main") == 0
    names = {inside.routines[rid].name for (th, rid) in inside.totals}
    assert names == {"inner", "leaf"}
    # Input sizes stay exact: inner's activations as in the full run.
    assert {k: v for k, v in sums([inside]).items() if k[0] == "inner"} == \
        {k: v for k, v in sums([full]).items() if k[0] == "inner"}
    assert none.totals == {}


def test_bad_requests_get_a_message_and_the_program_runs_on(tmp_path):
    proc = start(tmp_path, [toolrun.program("phases"), "1", "10"])
    assert proc.stdout.readline() == b"phase 1\n"
    assert "command 'frobnicate' not recognised" in send(proc, "frobnicate").stdout
    assert "'collect' takes 'on' or 'off', not 'maybe'" in send(proc, "collect", "maybe").stdout
    (tmp_path / f"aprof.{proc.pid}.1").mkdir()  # where dump 1 would go
    answer = send(proc, "dump").stdout
    assert f"cannot write the dump {tmp_path}/aprof.{proc.pid}.1: it is a directory" in answer
    refused = control("-d", str(proc.pid))  # dump 2: written
    assert refused.returncode == 0 and "dump 2 written" in refused.stdout
    status = control("-s", str(proc.pid))
    assert status.returncode == 0 and "collection: on" in status.stdout
    assert "dumps written: 2" in status.stdout
    not_the_tool = control("-s", str(os.getpid()))
    assert not_the_tool.returncode == 1
    assert f"process {os.getpid()} does not run under aprof-trms" in not_the_tool.stderr
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    missing = control("-z", str(pid_max + 1))
    assert missing.returncode == 1 and f"no process {pid_max + 1}" in missing.stderr
    assert control("--collect=off", str(proc.pid)).returncode == 0
    finish(proc, b"x")
    final = load(tmp_path / f"aprof.{proc.pid}")
    assert calls_of(final, "main") == 0, "collection was off when main completed"
    assert calls_of(load(tmp_path / f"aprof.{proc.pid}.2"), "leaf") == 13


def free_loopback_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_real_server_zeroed_after_warm_up_and_dumped_after_the_load(tmp_path):
    """redis-server (Debian's) under the tool, driven by redis-benchmark over
    loopback: SET requests warm it up, a zero forgets them, 300 GET requests
    are the load, and the dump holds exactly those: getCommand 300 times,
    setCommand never. The server runs on and exits normally."""
    port = str(free_loopback_port())
    cli = [toolrun.needs_program("redis-cli"), "-p", port]
    bench = [toolrun.needs_program("redis-benchmark"), "-p", port, "-q", "-c", "1"]
    server = start(tmp_path, [toolrun.needs_program("redis-server"), "--port", port,
                              "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                              "--dir", str(tmp_path)])
    try:
        for attempt in range(240):  # start-up under Valgrind: bounded, 2 minutes at most
            if subprocess.run(cli + ["ping"], capture_output=True).stdout.strip() == b"PONG":
                break
            assert server.poll() is None, server.stderr.read().decode(errors="replace")
            time.sleep(0.5)
        subprocess.run(bench + ["-n", "200", "-t", "set"], check=True, capture_output=True,
                       timeout=toolrun.RUN_TIMEOUT)
        zeroed = control("-z", str(server.pid))
        assert zeroed.returncode == 0, zeroed.stdout + zeroed.stderr
        subprocess.run(bench + ["-n", "300", "-t", "get"], check=True, capture_output=True,
                       timeout=toolrun.RUN_TIMEOUT)
        dumped = control("-d", "--reason=300 GET", str(server.pid))
        assert dumped.returncode == 0, dumped.stdout + dumped.stderr
        dump = load(tmp_path / f"aprof.{server.pid}.1")
        assert (dump.header.interval.zeroes, dump.header.interval.reason) == (1, "300 GET")
        assert calls_of(dump, "getCommand") == 300
        assert calls_of(dump, "setCommand") == 0
        subprocess.run(cli + ["shutdown", "nosave"], capture_output=True, timeout=toolrun.RUN_TIMEOUT)
        server.wait(timeout=toolrun.RUN_TIMEOUT)
        assert server.returncode == 0, server.stderr.read().decode(errors="replace")
        final = load(tmp_path / f"aprof.{server.pid}")
        assert final.header.interval.zeroes == 1 and calls_of(final, "getCommand") == 300
    finally:
        if server.poll() is None:
            os.killpg(server.pid, 9)
            server.wait()


def dumps_of(d: Path, pid: int) -> List[ar.Report]:
    names = sorted((n for n in os.listdir(d) if n.startswith(f"aprof.{pid}.")),
                   key=lambda n: int(n.rsplit(".", 1)[1]))
    return [load(d / n) for n in names]


def test_dumps_before_and_after_a_routine(tmp_path):
    argv = [toolrun.program("phases"), "2", "10"]
    (tmp_path / "after").mkdir()
    proc = start(tmp_path / "after", argv, ["--dump-after=inner"])
    finish(proc, b"xx")
    after = dumps_of(tmp_path / "after", proc.pid)
    # After each inner: it is in the dump, phase_work (its caller) is pending.
    assert [r.header.interval.reason for r in after] == ["after inner"] * 2
    assert [(calls_of(r, "inner"), calls_of(r, "leaf"), calls_of(r, "phase_work"))
            for r in after] == [(1, 13, 0), (2, 26, 1)]
    (tmp_path / "before").mkdir()
    proc = start(tmp_path / "before", argv, ["--dump-before=phase_*"])
    finish(proc, b"xx")
    before = dumps_of(tmp_path / "before", proc.pid)
    # Before each phase_work: nothing of that phase yet.
    assert [r.header.interval.reason for r in before] == ["before phase_work"] * 2
    assert [calls_of(r, "leaf") for r in before] == [0, 13]


def test_dump_every_writes_when_the_program_runs_after_the_period(tmp_path):
    proc = start(tmp_path, [toolrun.program("phases"), "2", "10"], ["--dump-every=1"])
    assert proc.stdout.readline() == b"phase 1\n"
    time.sleep(1.5)  # longer than the period: the dump is due when it runs again
    finish(proc, b"xx")
    dumps = dumps_of(tmp_path, proc.pid)
    assert dumps, "a dump was due when the program ran again"
    assert [r.header.interval.dump for r in dumps] == list(range(1, len(dumps) + 1))
    assert {r.header.interval.reason for r in dumps} == {"--dump-every"}
    assert calls_of(dumps[-1], "leaf") >= 13, "the last dump came after phase 1"
