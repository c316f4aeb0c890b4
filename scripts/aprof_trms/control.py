# SPDX-License-Identifier: GPL-2.0-or-later
# aprof_control: sends monitor commands to programs running under aprof-trms
# (in the style of callgrind_control), through Valgrind's vgdb.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Control of programs running under aprof-trms (docs/manual.md, "Profiling a
server"): dump the profile so far, zero it, switch collection on or off, or
show the status, of one process (by pid) or of every aprof-trms process of
the user (none given).

  aprof_control -d [PID]          write the next numbered dump (REPORT.N);
                                  --reason=TEXT goes in its interval record
  aprof_control -z [PID]          forget the profile recorded so far
  aprof_control --collect=off PID stop recording activations (on: again)
  aprof_control -s [PID]          status: threads, activations, shadow memory

The commands reach the tool through Valgrind's gdbserver (valgrind's default
--vgdb=yes): vgdb --pid=PID <command>. A process blocked in a system call is
reached by ptrace (allowed between processes of one user unless
/proc/sys/kernel/yama/ptrace_scope forbids it); otherwise the command waits
until the program runs again.

Exit status: 0 done, 1 error (no such process, not aprof-trms, vgdb missing
or failing, the tool refused the command), 2 bad usage.
"""
import os
import re
import subprocess
import sys
from typing import List, Optional, Sequence

from . import cli

__all__ = ["main"]

TOOL = "aprof-trms"
VGDB_TIMEOUT = 120  # seconds per command; vgdb waits for a busy process
# vgdb -l: "use --pid=PID for COMMAND LINE"
_LISTED = re.compile(r"^use --pid=(\d+) for (.*)$", re.M)
# What the tool or Valgrind answers when it refuses a command.
_REFUSALS = re.compile(r"^(aprof-trms: (error|cannot)|command '.*' not recognised)", re.M)


def _vgdb(args: Sequence[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["vgdb", *args], capture_output=True, text=True,
                              errors="replace", timeout=VGDB_TIMEOUT)
    except FileNotFoundError:
        raise cli.UserError("vgdb not found: it comes with Valgrind (Debian package valgrind)")
    except subprocess.TimeoutExpired:
        raise cli.UserError(f"vgdb {' '.join(args)}: no answer within {VGDB_TIMEOUT} s")


def _listed_processes() -> dict:
    """pid -> command line of the Valgrind processes vgdb can reach."""
    listing = _vgdb(["-l"])
    return {int(m.group(1)): m.group(2).strip() for m in _LISTED.finditer(listing.stdout + listing.stderr)}


def _runs_the_tool(command_line: str) -> bool:
    return f"--tool={TOOL} " in command_line + " "


def _command_line_of(pid: int) -> Optional[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None


def _check_target(pid: int, listed: dict) -> None:
    """UserError unless pid is an aprof-trms process that vgdb can reach."""
    if pid in listed:
        if not _runs_the_tool(listed[pid]):
            tool = re.search(r"--tool=(\S+)", listed[pid])
            raise cli.UserError(f"process {pid} runs Valgrind's "
                                f"{tool.group(1) if tool else 'memcheck'}, not {TOOL}")
        return
    command_line = _command_line_of(pid)
    if command_line is None:
        raise cli.UserError(f"no process {pid}")
    if _runs_the_tool(command_line):
        raise cli.UserError(f"process {pid} runs {TOOL} without Valgrind's gdbserver "
                            "(started with --vgdb=no?)")
    raise cli.UserError(f"process {pid} does not run under {TOOL}: {command_line[:200]}")


def _send(pid: int, commands: List[List[str]]) -> bool:
    """Sends the monitor commands in one vgdb call (the program does not run
    between them: a dump and a zero lose no activation); prints the answers;
    false if one was refused."""
    words = [f"--pid={pid}"]
    for command in commands:
        words += (["-c"] if len(words) > 1 else []) + command
    done = _vgdb(words)
    answer = done.stdout
    sys.stdout.write(answer)
    if done.returncode != 0 and not answer:
        print(f"{cli.program_name()}: error: vgdb {' '.join(words)} failed: "
              f"{done.stderr.strip()[-300:]}", file=sys.stderr)
        return False
    return not _REFUSALS.search(answer)


def _parser():
    parser = cli.argument_parser(
        description="Send commands to programs running under aprof-trms "
                    "(through Valgrind's gdbserver and vgdb).",
        epilog="Without PID: every aprof-trms process of this user that vgdb can reach.")
    parser.add_argument("-d", "--dump", action="store_true",
                        help="write the profile so far to the next numbered dump "
                             "(REPORT.N beside the report)")
    parser.add_argument("--reason", metavar="TEXT",
                        help="with --dump: why, written in the dump's interval record")
    parser.add_argument("-z", "--zero", action="store_true",
                        help="forget the profile recorded so far (after a dump, if both)")
    parser.add_argument("--collect", choices=("on", "off"),
                        help="record completed activations, or not")
    parser.add_argument("-s", "--status", action="store_true",
                        help="collection, threads, activations recorded, shadow memory")
    parser.add_argument("pids", nargs="*", type=int, metavar="PID")
    return parser


def _commands(args) -> List[List[str]]:
    """The monitor commands asked for, in the order they are sent."""
    commands = []
    if args.dump:
        commands.append(["dump"] + ([args.reason] if args.reason else []))
    if args.zero:
        commands.append(["zero"])
    if args.collect:
        commands.append(["collect", args.collect])
    if args.status or not commands:
        commands.append(["status"])
    return commands


def main(argv: Optional[List[str]] = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.reason is not None and not args.dump:
        parser.error("--reason is the reason of a dump: give it with -d/--dump")
    listed = _listed_processes()
    pids = args.pids or sorted(pid for pid, line in listed.items() if _runs_the_tool(line))
    if not pids:
        raise cli.UserError(f"no {TOOL} process found (vgdb -l lists the Valgrind processes "
                            "this user can reach)")
    for pid in pids:
        _check_target(pid, listed)
    ok = True
    for pid in pids:
        if len(pids) > 1:
            print(f"process {pid}: {listed[pid]}")
        ok = _send(pid, _commands(args)) and ok
    return cli.EXIT_OK if ok else cli.EXIT_ERROR
