# SPDX-License-Identifier: GPL-2.0-or-later
# Writing the commands' output files safely: through a temporary file that
# no one can predict or pre-create, renamed over the target only once whole,
# and never over a device, FIFO, socket or directory.
#
# Copyright (C) 2026, the aprof-trms authors.
"""One way for every command to write a file (pictures, summary.txt, the
HTML report, the callgrind export, the manifest of plot files):

    with output.replacing("summary.txt") as f:
        f.write(text)

The text (or, with binary=True, the bytes) goes to a temporary file made
by tempfile in the target's directory (an unpredictable name, created with
O_EXCL, so a link or FIFO planted there is never followed), which gets the
mode a new file gets (0666 less the umask) and is then renamed over the
target: the file is whole or absent, never half-written. A target that
exists and is not a regular file (a character or block device such as
/dev/null, a FIFO, a socket, a directory) is refused with UserError; a
symbolic link at the target's name is replaced by the file, its target left
untouched, as the tool does with its report.
"""
import contextlib
import os
import stat
import tempfile
from typing import IO, Iterator

from .errors import UserError

__all__ = ["check_target", "replacing", "write_text"]

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


def check_target(path: str) -> None:
    """UserError if `path` exists and is neither a regular file nor a
    symbolic link (which is replaced, not followed)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return
    kind = next((what for is_kind, what in _KINDS if is_kind(mode)), "not a regular file")
    raise UserError(f"{path}: exists and is {kind}, not a regular file: not replaced "
                    "(name a new or regular file)")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def replacing(path: str, binary: bool = False) -> Iterator[IO]:
    """A file object whose content replaces `path` when the block ends
    without an exception (otherwise `path` is left as it was)."""
    check_target(path)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)[:64]}.", suffix=".tmp",
                                   dir=directory)
    except OSError as e:
        raise _named(e, path) from None
    try:
        with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")) as f:
            yield f
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as e:
        os.unlink(tmp)
        if isinstance(e, OSError):   # a full disk while writing, a rename refused
            raise _named(e, path) from None
        raise


def _named(error: OSError, path: str) -> OSError:
    """The error named after the file asked for, not the temporary one (a
    write error names no file at all)."""
    return OSError(error.errno, error.strerror or str(error), path)


def write_text(path: str, text: str) -> None:
    """Replaces `path` by `text` (UTF-8), as replacing() does."""
    with replacing(path) as f:
        f.write(text)
