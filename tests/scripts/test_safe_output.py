# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of how the commands write their files (scripts/aprof_trms/output.py,
# issue 25): never over a FIFO, socket, device or directory, never through a
# link planted at the final or a temporary name, whole or not at all.
#
# Copyright (C) 2026, the aprof-trms authors.
import os
import socket
import stat
import subprocess
import sys

import pytest

import synthetic
from source_reports import sources_example
from test_hostile_reports import run_in_process
from aprof_trms import cli

R, C = synthetic.Routine, synthetic.COSTS


def report(tmp_path, name="html"):
    """A report `name` can show: with calling contexts, or input sources."""
    if name == "producers":
        path = tmp_path / "aprof-trms.out.1"
        path.write_text(sources_example())
        return str(path)
    return synthetic.write_report(tmp_path / "aprof-trms.out.1", synthetic.two_callers(),
                                  contexts=8)


# (command, its arguments before the output path, the file it writes there,
# the option naming the output: a file, or a directory whose file it is)
WRITERS = [
    ("html", ["-o"], None),
    ("callgrind_export", ["-o"], None),
    ("producers", ["--graph"], None),
    ("plot", ["-o"], "summary.txt"),
    ("charts", ["-o"], "charts.txt"),
    ("contexts", ["--plot"], ".plot-files"),
]


def make_special(path, kind):
    """A FIFO, a listening socket's name or a directory at `path`."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        os.mkdir(path)
    else:
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        return s
    return None


def writer_argv(tmp_path, name, option, inside, target_name):
    """argv of a writer whose output file is tmp_path/out/target_name."""
    out = tmp_path / "out"
    if inside is None:
        out.mkdir(exist_ok=True)
        return [report(tmp_path, name)] + option + [str(out / target_name)], out / target_name
    return [report(tmp_path, name)] + option + [str(out)], out / inside


@pytest.mark.parametrize("name,option,inside", WRITERS, ids=[w[0] for w in WRITERS])
@pytest.mark.parametrize("kind", ["fifo", "socket", "directory"])
def test_a_special_file_at_the_output_is_refused(tmp_path, name, option, inside, kind):
    if inside is not None:
        (tmp_path / "out").mkdir()
    argv, target = writer_argv(tmp_path, name, option, inside, "result.png")
    keep = make_special(target, kind)
    status, _, stderr = run_in_process(name, argv)
    kinds = {"fifo": "a FIFO", "socket": "a socket", "directory": "a directory"}
    assert status == 1 and f"{target}: exists and is {kinds[kind]}, not a regular file" in stderr, stderr
    assert stderr.count("\n") == 1, stderr
    mode = os.lstat(target).st_mode
    assert {"fifo": stat.S_ISFIFO, "socket": stat.S_ISSOCK, "directory": stat.S_ISDIR}[kind](mode)
    if keep is not None:
        keep.close()


@pytest.mark.parametrize("name,option,inside", WRITERS, ids=[w[0] for w in WRITERS])
def test_a_link_at_the_output_is_replaced_and_its_target_kept(tmp_path, name, option, inside):
    if inside is not None:
        (tmp_path / "out").mkdir()
    argv, target = writer_argv(tmp_path, name, option, inside, "result.png")
    victim = tmp_path / "victim"
    victim.write_text("SECRET\n")
    victim.chmod(0o600)
    target.symlink_to(victim)
    status, _, stderr = run_in_process(name, argv)
    assert status == 0, stderr
    assert not target.is_symlink() and target.stat().st_size > 0
    assert victim.read_text() == "SECRET\n" and stat.S_IMODE(victim.stat().st_mode) == 0o600


def test_links_at_the_old_temporary_names_are_not_followed(tmp_path):
    # html_report.py wrote <out>.tmp<pid>: planted links there (and at every
    # name of the form .<out>.*) stay links to untouched files.
    victim = tmp_path / "victim"
    victim.write_text("SECRET\n")
    out = tmp_path / "r.html"
    planted = tmp_path / f"r.html.tmp{os.getpid()}"
    planted.symlink_to(victim)
    status, _, stderr = run_in_process("html", [report(tmp_path), "-o", str(out)])
    assert status == 0, stderr
    assert victim.read_text() == "SECRET\n" and planted.is_symlink()
    assert out.stat().st_size > 0
    # No temporary file is left behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["aprof-trms.out.1", "r.html", planted.name, "victim"])


def test_a_device_is_refused_without_being_touched():
    # Checked on the helper: the commands must never be tried on /dev/null.
    from aprof_trms import output
    with pytest.raises(cli.UserError, match="/dev/null: exists and is a character device"):
        output.check_target("/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_files_get_the_mode_of_the_umask(tmp_path):
    path = report(tmp_path)
    out = tmp_path / "cg"
    code = ("import os, sys; os.umask(0o027); sys.argv[0] = 'callgrind-export.py'; "
            "from aprof_trms import cli; sys.exit(cli.run_command('callgrind_export'))")
    r = subprocess.run([sys.executable, "-c", code, path, "-o", str(out)], capture_output=True,
                       text=True, cwd=synthetic.SCRIPTS)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
