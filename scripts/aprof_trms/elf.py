# SPDX-License-Identifier: GPL-2.0-or-later
"""The entry point of an ELF object, read from its header: a stripped
program's `_start` and the dynamic loader's own entry have no symbol, so the
report names them by address (`0x1ab70@ld-linux-x86-64.so.2`), and only the
object's header says that this address is where the process starts."""
import functools
import re
import struct
from typing import Optional

__all__ = ["entry_address", "is_entry_point"]

_UNNAMED = re.compile(r"0x([0-9a-f]+)@")


@functools.lru_cache(maxsize=None)
def entry_address(path: str) -> Optional[int]:
    """e_entry of the ELF file at path, or None (unreadable, not ELF)."""
    try:
        with open(path, "rb") as f:
            header = f.read(32)
    except OSError:
        return None
    if len(header) < 32 or header[:4] != b"\x7fELF" or header[5] not in (1, 2):
        return None
    order = "<" if header[5] == 1 else ">"
    if header[4] == 2:     # ELFCLASS64
        return struct.unpack_from(order + "Q", header, 24)[0]
    if header[4] == 1:     # ELFCLASS32
        return struct.unpack_from(order + "I", header, 24)[0]
    return None


def is_entry_point(name: str, object_path: str) -> bool:
    """Whether an unnamed routine (`0x<object address>@<object>`) is its
    object's ELF entry point."""
    m = _UNNAMED.match(name)
    return bool(m) and int(m.group(1), 16) == entry_address(object_path)
