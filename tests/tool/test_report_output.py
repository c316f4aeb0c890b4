# SPDX-License-Identifier: GPL-2.0-or-later
"""The report file: names refused at start-up (directories, names too long
for the temporary suffix), write errors that give the system's reason
(RLIMIT_FSIZE, a full file system) and leave no partial report, and the
report's permissions (docs/manual.md, "The report file")."""
import os
import resource
import signal
import stat
import subprocess

from aprof_trms import report as ar
from toolrun import Spec, needs_program, program, run_tools, vg_in_place

SUMARRAY = ["100"]


def _start_refused(run, why):
    """Valgrind stopped at start-up with status 1, saying why, before the
    program ran and without leaving a file."""
    assert run.returncode == 1, run.describe()
    assert why in run.stderr, run.describe()
    assert "count " not in run.stdout, "the program ran\n" + run.describe()
    assert os.listdir(run.dir) == [], run.describe()


def test_directory_names_are_refused_at_start(tmp_path):
    existing = tmp_path / "d"
    existing.mkdir()
    names = [str(existing), ".", "..", "/", str(existing) + "/"]
    specs = [Spec([program("sumarray")] + SUMARRAY, [f"--aprof-out-file={name}"],
                  expect_status=None, out_file=None) for name in names]
    for run in run_tools(tmp_path, specs):
        _start_refused(run, "is a directory")
    assert os.listdir(existing) == []
    # A relative name is relative to the starting directory.
    rel_dir = tmp_path / "reldir"
    (rel_dir / "d").mkdir(parents=True)
    out = subprocess.run([vg_in_place(), "--aprof-out-file=d", program("sumarray")] + SUMARRAY,
                         cwd=rel_dir, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and "is a directory" in out.stderr, out.stderr
    assert "count " not in out.stdout and os.listdir(rel_dir / "d") == []


def test_name_too_long_for_the_temporary_suffix(tmp_path):
    name_max = os.pathconf(str(tmp_path), "PC_NAME_MAX")
    longest = "r" * (name_max - len(".tmp"))
    too_long, fits = run_tools(tmp_path, [
        Spec([program("sumarray")] + SUMARRAY, [f"--aprof-out-file={'r' * name_max}"],
             expect_status=None, out_file=None),
        Spec([program("sumarray")] + SUMARRAY, [f"--aprof-out-file={longest}"], out_file=None),
    ])
    _start_refused(too_long, "too long")
    assert ".tmp" in too_long.stderr, too_long.describe()
    assert os.listdir(fits.dir) == [longest], fits.describe()
    ar.load(fits.dir / longest)


def _run_limited(cwd, argv, umask=0o022, fsize=None):
    """Runs the tool with the given umask and, if fsize is given, that
    RLIMIT_FSIZE with SIGXFSZ ignored (so writes past it fail with EFBIG)."""
    def setup():
        os.umask(umask)
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return subprocess.run([vg_in_place()] + argv, cwd=cwd, capture_output=True, text=True,
                          timeout=300, preexec_fn=setup, restore_signals=False)


def _whole_report_size(tmp_path):
    d = tmp_path / "whole"
    d.mkdir()
    out = _run_limited(d, ["--aprof-out-file=r", program("sumarray")] + SUMARRAY)
    assert out.returncode == 0, out.stderr
    ar.load(d / "r")
    return os.path.getsize(d / "r")


def test_file_size_limit_gives_the_reason(tmp_path):
    size = _whole_report_size(tmp_path)
    limit = size // 2
    d = tmp_path / "limited"
    d.mkdir()
    out = _run_limited(d, ["--aprof-out-file=r", program("sumarray")] + SUMARRAY, fsize=limit)
    assert out.returncode != 0, out.stderr
    assert "count sum_array 1" in out.stdout, "the program did not run\n" + out.stderr
    assert "File too large" in out.stderr, out.stderr
    assert os.listdir(d) == [], "partial report left"


def test_full_file_system_gives_the_reason(tmp_path):
    """ENOSPC: the report directory is a 4 KiB tmpfs, mounted in a private
    mount namespace (unshare -m; root or user namespaces needed)."""
    size = _whole_report_size(tmp_path)
    assert size > 4096, f"report of {size} bytes fits the small file system"
    d = tmp_path / "small"
    d.mkdir()
    # The mount exists only inside the namespace: list it from there.
    script = 'mount -t tmpfs -o size=4k tmpfs "$0" || exit 100; "$@"; echo "status $?"; ls -A "$0"'
    argv = [needs_program("unshare"), "-m", "sh", "-c", script, str(d), vg_in_place(), f"--aprof-out-file={d}/r",
            program("sumarray")] + SUMARRAY
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert out.returncode != 100, "cannot mount a tmpfs here:\n" + out.stderr
    lines = out.stdout.splitlines()
    status_at = [i for i, line in enumerate(lines) if line.startswith("status ")]
    assert status_at, out.stdout + out.stderr
    assert "count sum_array 1" in lines, "the program did not run\n" + out.stderr
    assert lines[status_at[0]] != "status 0", out.stderr
    assert "No space left on device" in out.stderr, out.stderr
    assert lines[status_at[0] + 1:] == [], "partial report left: " + str(lines)


def test_report_mode_follows_the_umask_at_start(tmp_path):
    """The client's umask at exit does not matter: a shell that sets umask
    0777 before it exits."""
    runs = {}
    for start_umask in (0o022, 0o077):
        d = tmp_path / f"umask{start_umask:o}"
        d.mkdir()
        out = _run_limited(d, ["--aprof-out-file=r", "/bin/sh", "-c", "umask 0777"],
                           umask=start_umask)
        assert out.returncode == 0, out.stderr
        runs[start_umask] = stat.S_IMODE(os.stat(d / "r").st_mode)
        ar.load(d / "r")
    assert runs == {0o022: 0o644, 0o077: 0o600}
