# SPDX-License-Identifier: GPL-2.0-or-later
"""Kernel writes outside the program's system calls (docs/manual.md, "What
input sizes miss"): the tool notices io_uring_setup and a writable open of
the process's own memory file, warns once per mechanism in the log and
writes the kernel-writes-unseen header records (docs/report-format.md)."""
import pytest

from toolrun import Spec, program, run_tools

WARNINGS = {"io_uring": "aprof-trms: warning: the program set up io_uring",
            "proc-self-mem": "aprof-trms: warning: the program opened its own memory"}


def _mechanisms_and_warnings(run):
    warned = {m: run.stderr.count(text) for m, text in WARNINGS.items()}
    return run.report.header.kernel_writes_unseen, warned


@pytest.mark.parametrize("which", ["self", "thread-self", "pid", "task"])
@pytest.mark.parametrize("access", ["wo", "rw"])
def test_writable_own_memory_file_is_noticed_once(tmp_path, which, access):
    run = run_tools(tmp_path, [Spec([program("kernelwrites"), "mem", which, access, "3"])])[0]
    assert "opened 3\nbuffer new\n" in run.stdout, run.describe()
    assert _mechanisms_and_warnings(run) == (("proc-self-mem",),
                                             {"io_uring": 0, "proc-self-mem": 1}), run.describe()


@pytest.mark.parametrize("argv, opened", [(["mem", "self", "ro", "2"], 2),
                                          (["mem", "other", "rw", "1"], 1),
                                          (["mem", "missing", "rw", "1"], 0)])
def test_read_only_other_or_failed_memory_file_is_not(tmp_path, argv, opened):
    """Read-only: the kernel writes nothing. Another process's memory file
    (here the parent's): not this process's memory. A failed open: no file."""
    run = run_tools(tmp_path, [Spec([program("kernelwrites")] + argv)])[0]
    assert f"opened {opened}\n" in run.stdout, run.describe()
    assert _mechanisms_and_warnings(run) == ((), {"io_uring": 0, "proc-self-mem": 0}), run.describe()


def test_io_uring_setup_is_noticed_when_it_succeeds(tmp_path):
    """A failed io_uring_setup sets up no ring (the kernel can refuse it):
    it does not count. Both outcomes are checked, whichever this kernel gives."""
    run = run_tools(tmp_path, [Spec([program("kernelwrites"), "io_uring"])])[0]
    assert "io_uring_setup " in run.stdout, run.describe()
    if "io_uring_setup ok" in run.stdout:
        expected = (("io_uring",), {"io_uring": 1, "proc-self-mem": 0})
    else:
        expected = ((), {"io_uring": 0, "proc-self-mem": 0})
    assert _mechanisms_and_warnings(run) == expected, run.describe()


def test_both_mechanisms_in_the_report_order(tmp_path):
    """The memory file first, then io_uring: the records follow the
    format's order (io_uring, proc-self-mem), not that of the calls."""
    run = run_tools(tmp_path, [Spec([program("kernelwrites"), "mem", "self", "rw", "1",
                                     "io_uring"])])[0]
    assert "buffer new" in run.stdout, run.describe()
    io_uring = ("io_uring",) if "io_uring_setup ok" in run.stdout else ()
    assert run.report.header.kernel_writes_unseen == io_uring + ("proc-self-mem",), run.describe()
