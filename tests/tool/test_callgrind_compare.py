# SPDX-License-Identifier: GPL-2.0-or-later
"""Activation counts against callgrind's call counts on real Debian programs.

Both tools run the same deterministic command; for every function that both
name, that lies in one object (matched by name and object basename) and that
both saw called at least once, the counts must be equal, except for the
allowlist below. Functions without a symbol (gzip, sqlite3 and libsqlite3
are stripped) are matched by their address in the object: aprof-trms names
them "0x18e00@gzip", callgrind "0x0000000000018e00". In a stripped object
aprof-trms takes function entries from the unwind table (a tail jump into a
symbol-less function is a call), which callgrind reads only from symbols:
callgrind runs copies of the stripped objects given a symbol "fde_<address>"
for each of these functions (with_entry_symbols), named back by address. At
least MIN_COMPARED functions, MIN_SYMBOL_LESS of them without a symbol, must
be compared, so that the test cannot pass vacuously.
"""
import ctypes
import os
import random
import re
import struct
import subprocess

import pytest

from aprof_trms import report as ar
from callgrind_out import call_counts, counts_by_basename
from toolrun import Spec, needs_program, program, run_tools, valgrind

MIN_COMPARED = 30
MIN_SYMBOL_LESS = 10

# Functions whose count legitimately differs between the tools:
# - _dl_runtime_resolve_{xsave,xsavec,fxsave}: the lazy-binding trampoline
#   jumps to the resolved function; callgrind pops its frame at that jump
#   ("pop_on_jump") and both tools may differ on how it was entered.
ALLOWLIST = [re.compile(r"_dl_runtime_resolve.*")]

SQL = b"""
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000)
INSERT INTO t SELECT x, printf('%08d', (x * 7919) % 10007), x / 7.0 FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(a), max(b), round(avg(c), 3) FROM t;
SELECT a, b FROM t WHERE b > '00005000' ORDER BY b LIMIT 5;
UPDATE t SET c = c * 2 WHERE a % 3 = 0;
SELECT substr(b, 3, 4) AS k, count(*) FROM t GROUP BY k ORDER BY 2 DESC, 1 LIMIT 3;
"""


# --- Symbols at the unwind table's function starts, for callgrind -------------

def _sections(data):
    """[(name, (sh_name, type, flags, addr, offset, size, link, ...))] of an ELF64 file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    entry_bytes, count, names_index = struct.unpack_from("<HHH", data, 0x3a)
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * entry_bytes) for i in range(count)]
    names = raw[names_index][4]
    return [(data[names + h[0]:data.index(b"\0", names + h[0])].decode(), h) for h in raw]


def _section(sections, name):
    return next(header for n, header in sections if n == name)


def _symbols(data, sections, table):
    """(file offset, name, st_info, st_shndx, value, size) of a symbol table's entries."""
    header = _section(sections, table)
    strings = sections[header[6]][1][4]
    for at in range(header[4], header[4] + header[5], 24):
        name, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", data, at)
        yield at, data[strings + name:data.index(b"\0", strings + name)].decode(), info, \
            shndx, value, size


def _unwind_functions(data, sections):
    """{start: size} of the FDEs that .eh_frame_hdr lists (GNU ld's encodings:
    the table data-relative sdata4, each FDE's pc_begin pcrel sdata4)."""
    address, offset, size = _section(sections, ".eh_frame_hdr")[3:6]
    header = data[offset:offset + size]
    assert header[:4] == b"\x01\x1b\x03\x3b", header[:4]
    count, = struct.unpack_from("<I", header, 8)
    eh_frame = _section(sections, ".eh_frame")
    functions = {}
    for i in range(count):
        start, fde = (address + v for v in struct.unpack_from("<ii", header, 12 + 8 * i))
        pc_begin, pc_range = struct.unpack_from("<iI", data, fde - eh_frame[3] + eh_frame[4] + 8)
        assert fde + 8 + pc_begin == start, (hex(start), hex(fde))
        functions[start] = pc_range
    return functions


def with_entry_symbols(path, out):
    """Copies the stripped ELF object `path` to `out` with a global function
    symbol fde_<hex address>, of its FDE's size, at each unwind-table start
    in .text that no dynamic symbol covers: the entries aprof-trms adds.
    Returns how many."""
    data = open(path, "rb").read()
    sections = _sections(data)
    text = _section(sections, ".text")
    text_start, text_end = text[3], text[3] + text[5]
    covered = [(value, value + size) for _, _, info, shndx, value, size
               in _symbols(data, sections, ".dynsym") if info & 0xf == 2 and shndx and size]
    functions = _unwind_functions(data, sections)
    added = [start for start in functions if text_start <= start < text_end and
             not any(low <= start < high for low, high in covered)]
    options = []
    for start in added:
        options += ["--add-symbol", f"fde_{start:x}=.text:{start - text_start:#x},function,global"]
    subprocess.run([needs_program("objcopy"), *options, path, out], check=True)
    # objcopy gives them size 0, which Valgrind ignores.
    copy = bytearray(open(out, "rb").read())
    for at, name, *_ in _symbols(copy, _sections(copy), ".symtab"):
        if name.startswith("fde_"):
            struct.pack_into("<Q", copy, at + 16, functions[int(name[4:], 16)])
    open(out, "wb").write(copy)
    return len(added)


def callgrind_counts(path):
    """callgrind_out.counts_by_basename, fde_<address> named by address."""
    out = {}
    for (name, obj), n in counts_by_basename(call_counts(path)).items():
        m = re.fullmatch(r"fde_([0-9a-f]+)", name)
        key = (f"{int(m.group(1), 16):#018x}" if m else name, obj)
        out[key] = out.get(key, 0) + n
    return out


def gzip_case(tmp_path):
    words = ["alpha", "beta", "gamma", "delta", "input", "sensitive", "profiling",
             "thread", "kernel", "valgrind", "0123456789", "routine"]
    rnd = random.Random(42)
    data = []
    size = 0
    while size < 200_000:
        w = rnd.choice(words) + (" " if rnd.random() < 0.9 else "\n")
        data.append(w)
        size += len(w)
    path = tmp_path / "input.txt"
    path.write_text("".join(data))
    return [needs_program("gzip"), "-c", str(path)], None, ()


def sqlite_case(tmp_path):
    return [needs_program("sqlite3"), ":memory:"], SQL, ("libsqlite3.so.0",)


def aprof_counts(report):
    out = {}
    for rt in report.routines.values():
        name = f"{rt.object_address:#018x}" if rt.name.startswith("0x") else rt.name
        key = (name, os.path.basename(rt.object))
        out[key] = out.get(key, 0) + ar.activations(report, rt)
    return out


def compare(cg, ap):
    compared, mismatches = [], []
    for key, n in sorted(cg.items()):
        name = key[0]
        if n == 0 or ap.get(key, 0) == 0:
            continue
        if any(p.fullmatch(name) for p in ALLOWLIST):
            continue
        compared.append(key)
        if ap[key] != n:
            mismatches.append(f"{name} ({key[1]}): aprof-trms {ap[key]}, callgrind {n}")
    return compared, mismatches


def library_file(soname):
    """The file the dynamic loader finds for `soname` (loaded here to ask)."""
    ctypes.CDLL(soname)
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path).startswith(soname):
                return path
    pytest.fail(f"{soname} is not mapped after loading it")


def library_dirs(tmp_path, argv, sonames):
    """Two directories for LD_LIBRARY_PATH, so that the dynamic loader does
    the same work in both runs: the libraries as installed (for aprof-trms),
    and their copies with entry symbols (for callgrind), beside a copy of the
    program with entry symbols. Returns both and how many symbols were added."""
    installed, copies = tmp_path / "installed", tmp_path / "with-entry-symbols"
    installed.mkdir()
    copies.mkdir()
    added = with_entry_symbols(argv[0], str(copies / os.path.basename(argv[0])))
    for soname in sonames:
        library = library_file(soname)
        os.symlink(library, installed / soname)
        added += with_entry_symbols(library, str(copies / os.path.basename(library)))
        os.symlink(os.path.basename(library), copies / soname)
    return installed, copies, added


@pytest.mark.parametrize("case", [gzip_case, sqlite_case], ids=["gzip", "sqlite3"])
def test_activation_counts_match_callgrind(tmp_path, case):
    argv, stdin, sonames = case(tmp_path)
    installed, copies, added = library_dirs(tmp_path, argv, sonames)
    assert added >= MIN_SYMBOL_LESS, added
    cg_out = tmp_path / "callgrind.out"
    aprof, _ = run_tools(tmp_path, [
        Spec(argv, stdin=stdin, keep_stdout=False, env={"LD_LIBRARY_PATH": str(installed)}),
        Spec(["--tool=callgrind", f"--callgrind-out-file={cg_out}",
              str(copies / os.path.basename(argv[0]))] + argv[1:], stdin=stdin,
             keep_stdout=False, out_file=None, launcher=valgrind(),
             env={"LD_LIBRARY_PATH": str(copies)}),
    ])
    cg = callgrind_counts(cg_out)
    ap = aprof_counts(aprof.report)
    compared, mismatches = compare(cg, ap)
    assert not mismatches, (f"{len(mismatches)} of {len(compared)} functions differ:\n  "
                            + "\n  ".join(mismatches))
    assert len(compared) >= MIN_COMPARED, f"only {len(compared)} functions compared"
    symbol_less = [key for key in compared if key[0].startswith("0x")]
    assert len(symbol_less) >= MIN_SYMBOL_LESS, f"only {symbol_less} without a symbol"


def test_callgrind_reader_on_known_counts(tmp_path):
    """The reference side alone: callgrind's counts of the test programs are
    the exact counts the programs print (checks callgrind_out.py)."""
    rec, calls = program("recursion"), program("calls")
    out = [tmp_path / "cg1", tmp_path / "cg2"]
    runs = run_tools(tmp_path, [
        Spec(["--tool=callgrind", f"--callgrind-out-file={out[0]}", rec, "direct", "1000"],
             out_file=None, launcher=valgrind()),
        Spec(["--tool=callgrind", f"--callgrind-out-file={out[1]}", calls, "plt", "77"],
             out_file=None, launcher=valgrind()),
    ])
    assert runs[0].counts() == {"rec": 1001}
    c = counts_by_basename(call_counts(out[0]))
    assert c[("rec", "recursion")] == 1001
    assert c[("main", "recursion")] == 1
    c = counts_by_basename(call_counts(out[1]))
    assert c[("abs", "libc.so.6")] == 77
    assert c[("call_abs_loop", "calls")] == 1
