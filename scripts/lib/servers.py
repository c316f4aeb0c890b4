# SPDX-License-Identifier: GPL-2.0-or-later
# Servers and inputs driven natively around a profiled command: the MariaDB
# server with its datadir and clients, the vips input image, and how a server
# is waited for, stopped and killed. Shared by the tool benchmark
# (tests/benchmarks/tool_benchmark.py) and the case studies
# (scripts/case-studies/run.py), so that product scripts need no test file.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Every command these helpers return or run is native (outside the tool);
a failing setup or server ends the process with a message naming the
command and the tail of its output."""
import dataclasses
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, NoReturn, Optional

Inputs = Dict[str, str]  # named inputs (paths, parameters) made by a setup


def run_setup(argv: List[str], cwd: Optional[str] = None, stdin: Optional[str] = None) -> None:
    """Runs one untimed input-generation command natively; exits on failure."""
    result = subprocess.run(argv, cwd=cwd, input=stdin, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        sys.exit("error: setup command exited with status %d:\n  %s\n%s"
                 % (result.returncode, shlex.join(argv), tail(result.stdout)))


@dataclasses.dataclass(frozen=True)
class Server:
    """How to drive a server workload, whose command is the server itself.

    The builders take the workload's inputs; every command they return runs
    natively, outside the tool.
    """
    # ready(inputs) -> argv of a probe that exits 0 once the server accepts
    # connections.
    ready: Callable[[Inputs], List[str]]
    # load(inputs, threads) -> argv of the client whose wall time is the
    # workload's time.
    load: Callable[[Inputs, int], List[str]]
    # stop(inputs) -> argv asking the server to exit cleanly.
    stop: Callable[[Inputs], List[str]]
    # log(inputs) -> the server's own log file, shown when it fails.
    log: Callable[[Inputs], str]


def vips_image(work_dir: str, side: int) -> Inputs:
    """Setup: a side x side 8-bit sRGB image of seeded Gaussian noise, as .v.

    vips' own format is memory-mapped, so reading it costs little next to the
    pipeline. The noise is grey (the three bands are equal): sharpen works on
    the L channel anyway.
    """
    path = os.path.join(work_dir, "noise-%d.v" % side)
    if not os.path.exists(path):
        with tempfile.TemporaryDirectory(dir=work_dir) as tmp:
            # Relative names: bandjoin takes its images as one space-separated
            # argument, which an absolute path with a space would break.
            for argv in (["vips", "gaussnoise", "noise.v", str(side), str(side),
                          "--mean", "128", "--sigma", "30", "--seed", "20260101"],
                         ["vips", "cast", "noise.v", "grey.v", "uchar"],
                         ["vips", "bandjoin", "grey.v grey.v grey.v", "rgb.v"],
                         ["vips", "copy", "rgb.v", "srgb.v", "--interpretation", "srgb"]):
                run_setup(argv, cwd=tmp)
            os.rename(os.path.join(tmp, "srgb.v"), path)
    return {"input": path, "output": os.path.join(work_dir, "vips-out.v")}


# Options shared by mariadb-install-db and the server.
MARIADB_INNODB = [
    "--innodb-buffer-pool-size=32M",
    # The default maximum reserves terabytes of address space for resizing the
    # pool, which Valgrind cannot map: InnoDB then fails to start.
    "--innodb-buffer-pool-size-max=32M",
    "--innodb-log-file-size=16M",
]


def mariadb_datadir(work_dir: str, queries: int) -> Inputs:
    """Setup: a freshly installed datadir, the template of every run's datadir."""
    template = os.path.join(work_dir, "mariadb-template")
    if not os.path.isdir(template):
        shutil.rmtree(template + ".tmp", ignore_errors=True)  # an interrupted setup
        run_setup(["mariadb-install-db", "--no-defaults", "--datadir=" + template + ".tmp",
                   "--user=root", "--auth-root-authentication-method=normal",
                   "--skip-test-db"] + MARIADB_INNODB)
        os.rename(template + ".tmp", template)
    datadir = os.path.join(work_dir, "mariadb-run")
    return {"template": template, "datadir": datadir,
            "socket": os.path.join(datadir, "mariadbd.sock"),
            "log": os.path.join(datadir, "mariadbd.err"), "queries": str(queries)}


def mariadb_reset(inputs: Inputs) -> None:
    """Every run starts from the installed datadir: the same tables and logs."""
    shutil.rmtree(inputs["datadir"], ignore_errors=True)
    shutil.copytree(inputs["template"], inputs["datadir"])


def mariadb_server(inputs: Inputs, threads: int) -> List[str]:
    """The server; it makes one thread per client connection, so `threads` is unused."""
    datadir = inputs["datadir"]
    return ["mariadbd", "--no-defaults", "--datadir=" + datadir, "--user=root",
            "--socket=" + inputs["socket"], "--skip-networking", "--skip-grant-tables",
            "--log-error=" + inputs["log"], "--pid-file=" + os.path.join(datadir, "mariadbd.pid"),
            "--performance-schema=OFF", "--skip-log-bin",
            # InnoDB's native asynchronous I/O (io_uring) hangs its start-up
            # under Valgrind.
            "--innodb-use-native-aio=0",
            # No fsync at every commit: measure the server, not the disk.
            "--innodb-flush-log-at-trx-commit=0",
            # Within the descriptors Valgrind leaves to its client, so the
            # server does not warn that it cannot raise its limit.
            "--open-files-limit=1024", "--table-open-cache=200", "--max-connections=100",
            ] + MARIADB_INNODB


def mariadb_client(program: str, inputs: Inputs) -> List[str]:
    return [program, "--no-defaults", "--socket=" + inputs["socket"], "--user=root"]


MARIADB = Server(
    ready=lambda inp: mariadb_client("mariadb-admin", inp) + ["--connect-timeout=10", "ping"],
    # --number-of-queries is the total over the clients. The auto-generated
    # queries come from random() with its default seed: the same text in every run.
    load=lambda inp, threads: mariadb_client("mysqlslap", inp) + [
        "--concurrency=%d" % threads, "--iterations=1", "--auto-generate-sql",
        "--auto-generate-sql-load-type=mixed", "--number-of-queries=" + inp["queries"],
        "--silent"],
    stop=lambda inp: mariadb_client("mariadb-admin", inp) + ["shutdown"],
    log=lambda inp: inp["log"],
)


def tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def fail(problem: str, argv: List[str], stderr: str, context: str = "") -> NoReturn:
    print("\nerror: %s:\n  %s\nstderr (tail):\n%s%s"
          % (problem, shlex.join(argv), tail(stderr) or "(empty)", context), file=sys.stderr)
    sys.exit(1)


def run_client(argv: List[str], timeout: float, die: Callable[..., NoReturn]) -> None:
    """Runs a native client of a server; failing or timing out ends in die()."""
    try:
        result = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        die("`%s` did not finish within %d s (see --server-timeout)"
            % (shlex.join(argv), timeout))
    if result.returncode != 0:
        die("`%s` exited with status %d" % (shlex.join(argv), result.returncode),
            result.stderr.decode(errors="replace"))


def wait_until_ready(server: subprocess.Popen, probe: List[str], timeout: float,
                     die: Callable[..., NoReturn]) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if server.poll() is not None:
            die("the server exited with status %d before accepting connections"
                % server.returncode)
        if subprocess.run(probe, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            return
        if time.monotonic() > deadline:
            die("the server did not accept connections within %d s (see --server-timeout)"
                % timeout)
        time.sleep(0.25)


def stop_server(proc: subprocess.Popen, stop: List[str], timeout: float,
                die: Callable[..., NoReturn]) -> None:
    """Asks the server to exit (`stop`, a native client) and waits until it has."""
    run_client(stop, timeout, die)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        die("the server did not exit within %d s of its shutdown" % timeout)


def kill_server(proc: subprocess.Popen) -> None:
    """Kills the server's process group (GNU time, Valgrind, the server), if
    still running: SIGKILL, since a server stuck under Valgrind may ignore
    SIGTERM. The server must have been started in a session of its own."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
