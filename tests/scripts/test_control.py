# SPDX-License-Identifier: GPL-2.0-or-later
"""aprof_control (aprof_trms/control.py): its options, the monitor commands
they make, and its errors before any command is sent (the commands
themselves are tested on running programs in tests/tool/test_run_control.py)."""
import os

import pytest

import synthetic  # noqa: F401  (puts scripts/ on sys.path)
from aprof_trms import cli, control


def commands(*argv):
    return control._commands(control._parser().parse_args(list(argv)))


def test_options_make_the_commands_in_the_order_sent():
    assert commands() == [["status"]]
    assert commands("-z", "-d", "7") == [["dump"], ["zero"]]
    assert commands("--dump", "--reason=after warm-up", "--collect=off", "-s") == \
        [["dump", "after warm-up"], ["collect", "off"], ["status"]]


def test_a_pid_is_never_taken_for_a_reason():
    args = control._parser().parse_args(["-d", "4242"])
    assert args.pids == [4242] and args.reason is None


def test_reason_without_dump_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        control.main(["--reason=x", "1"])
    assert exit_info.value.code == cli.EXIT_USAGE
    assert "give it with -d/--dump" in capsys.readouterr().err


def test_a_process_without_the_tool_is_refused(capsys):
    status = cli.run(control.main, ["-s", str(os.getpid())])
    assert status == cli.EXIT_ERROR
    assert f"process {os.getpid()} does not run under aprof-trms" in capsys.readouterr().err
