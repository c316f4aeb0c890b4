# SPDX-License-Identifier: GPL-2.0-or-later
"""The report file: names refused at start-up (directories, FIFOs, devices,
names too long for the temporary suffix), links never written through,
write errors that give the system's reason (RLIMIT_FSIZE, a full file
system) and leave no partial report, and the report's permissions
(docs/manual.md, "The report file")."""
import os
import resource
import signal
import stat
import subprocess

from aprof_trms import report as ar
from toolrun import Spec, needs_program, program, run_tools, vg_in_place

SUMARRAY = ["100"]
# The temporary file's suffix: ".tmp" and 8 random letters and digits.
TEMPORARY_SUFFIX_LENGTH = len(".tmp") + 8


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
    longest = "r" * (name_max - TEMPORARY_SUFFIX_LENGTH)
    too_long, fits = run_tools(tmp_path, [
        Spec([program("sumarray")] + SUMARRAY, [f"--aprof-out-file={longest}r"],
             expect_status=None, out_file=None),
        Spec([program("sumarray")] + SUMARRAY, [f"--aprof-out-file={longest}"], out_file=None),
    ])
    _start_refused(too_long, "too long")
    assert f"the {TEMPORARY_SUFFIX_LENGTH}-character suffix of the temporary file" in \
        too_long.stderr, too_long.describe()
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


# --- Where others can write: links, FIFOs and devices -------------------------------

def _run_sumarray(cwd, out_file, timeout=120):
    """The tool on sumarray; a run that blocks (a FIFO opened for writing
    waits for a reader) fails the test with TimeoutExpired."""
    return subprocess.run([vg_in_place(), f"--aprof-out-file={out_file}", program("sumarray")] +
                          SUMARRAY, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _victim(path):
    path.write_text("SECRET\n")
    path.chmod(0o600)
    return path


def _untouched(victim):
    return victim.read_text() == "SECRET\n" and stat.S_IMODE(victim.stat().st_mode) == 0o600


def test_links_at_the_temporary_and_final_names_are_not_written_through(tmp_path):
    """A link at the old predictable temporary name <report>.tmp (the
    start-up probe truncated and re-moded its target) and a link at the
    final name (replaced by the report, its target untouched)."""
    victim, final_victim = _victim(tmp_path / "victim"), _victim(tmp_path / "final-victim")
    d = tmp_path / "shared"
    d.mkdir()
    os.symlink(victim, d / "r.tmp")
    os.symlink(final_victim, d / "r")
    out = _run_sumarray(d, "r")
    assert out.returncode == 0, out.stderr
    assert _untouched(victim) and _untouched(final_victim)
    assert not (d / "r").is_symlink() and (d / "r.tmp").is_symlink()
    assert sorted(os.listdir(d)) == ["r", "r.tmp"], "temporary file left"
    ar.load(d / "r")


def test_link_at_the_final_name_to_a_fifo_or_device_is_replaced(tmp_path):
    """What a link points to does not matter: the rename replaces the link."""
    d = tmp_path / "shared"
    d.mkdir()
    os.mkfifo(tmp_path / "fifo")
    for name, target in (("to-fifo", tmp_path / "fifo"), ("to-null", "/dev/null")):
        os.symlink(target, d / name)
        out = _run_sumarray(d, name)
        assert out.returncode == 0, out.stderr
        assert not (d / name).is_symlink()
        ar.load(d / name)
    assert stat.S_ISFIFO((tmp_path / "fifo").stat().st_mode)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifo_at_the_temporary_name_does_not_block(tmp_path):
    fifo = tmp_path / "r.tmp"
    os.mkfifo(fifo)
    out = _run_sumarray(tmp_path, "r")
    assert out.returncode == 0, out.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    ar.load(tmp_path / "r")


def _refused(out, why):
    assert out.returncode == 1, out.stderr
    assert why in out.stderr, out.stderr
    assert "count " not in out.stdout, "the program ran\n" + out.stderr


def test_fifo_or_device_at_the_final_name_is_refused_at_start(tmp_path):
    fifo = tmp_path / "r"
    os.mkfifo(fifo)
    _refused(_run_sumarray(tmp_path, "r"), "cannot write the report " + str(fifo) +
             ": it exists and is a FIFO (named pipe), not a regular file")
    assert os.listdir(tmp_path) == ["r"] and stat.S_ISFIFO(fifo.stat().st_mode)
    before = os.stat("/dev/null")
    _refused(_run_sumarray(tmp_path, "/dev/null"),
             "cannot write the report /dev/null: it exists and is a device, not a regular file")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_rdev, after.st_ino) == (before.st_rdev,
                                                                            before.st_ino)
    assert os.listdir(tmp_path) == ["r"]


def test_fifo_made_at_the_final_name_while_the_program_runs_is_refused_at_exit(tmp_path):
    out = subprocess.run([vg_in_place(), "--aprof-out-file=r", "/bin/sh", "-c", "mkfifo r"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    assert "cannot write the report " + str(tmp_path / "r") + ": it exists and is a FIFO" in \
        out.stderr, out.stderr
    assert os.listdir(tmp_path) == ["r"] and stat.S_ISFIFO((tmp_path / "r").stat().st_mode)
