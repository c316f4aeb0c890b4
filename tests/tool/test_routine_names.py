# SPDX-License-Identifier: GPL-2.0-or-later
"""Routine names and locations (docs/report-format.md, routine record):
source file and line from debug information, symbol-less routines named by
object address and object as callgrind does, and a symbol-less dispatcher
(an indirect jump that is not a PLT stub) counted like callgrind counts it."""
import os
import re
import subprocess

from aprof_trms import report as ar
from callgrind_out import call_counts, counts_by_basename
from toolrun import Spec, program, routine, run_tools, valgrind

N = 1234


def nm_addresses(path):
    """{symbol: address} of the defined text symbols of an ELF file (nm)."""
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    return {m.group(3): int(m.group(1), 16)
            for m in re.finditer(r"^([0-9a-f]+) ([tTwW]) (\S+)$", out, re.M)}


def source_lines(path, pattern):
    """The 1-based line numbers of the function of `path` whose first line
    matches `pattern`, up to its closing brace (in column 1, or on the same
    line)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    starts = [i for i, line in enumerate(lines) if re.search(pattern, line)]
    assert len(starts) == 1, f"{pattern!r} in {path}: lines {starts}"
    if lines[starts[0]].rstrip().endswith("}"):  # a one-line function
        return range(starts[0] + 1, starts[0] + 2)
    end = next(i for i in range(starts[0], len(lines)) if lines[i].startswith("}"))
    return range(starts[0] + 1, end + 2)


def plt_sections(path):
    """{section name: range of addresses} of the .plt* sections of an ELF file."""
    out = subprocess.run(["objdump", "-h", path], capture_output=True, text=True,
                         check=True).stdout
    return {m.group(1): range(int(m.group(3), 16), int(m.group(3), 16) + int(m.group(2), 16))
            for m in re.finditer(r"^\s*\d+ (\.plt\S*)\s+([0-9a-f]+)\s+([0-9a-f]+)", out, re.M)}


def assert_no_routine_in_plt(report, prog):
    """PLT stubs (.plt, and .plt.got, through which the program calls
    __cxa_finalize at exit) only jump on: none is a routine."""
    sections = plt_sections(prog)
    assert ".plt.got" in sections, sections
    stubs = [(rt.name, name) for rt in report.routines.values() if rt.object == prog
             for name, addresses in sections.items() if rt.object_address in addresses]
    assert stubs == [], stubs
    assert ar.activations(report, routine(report, "__cxa_finalize", "libc.so.6")) >= 1


PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")


def test_source_file_and_line_of_routines(tmp_path):
    """The line of a routine's first instruction: within the function's
    lines; exactly its line for a one-line function."""
    prog, disp = program("sumarray"), program("dispatch")
    run, run_disp = run_tools(tmp_path, [Spec([prog, "100"]), Spec([disp, "10"])])
    r = run.report
    assert r.header.version == ar.FORMAT_VERSION == 6
    source = os.path.join(PROGRAMS, "sumarray.cc")
    symbols = nm_addresses(prog)
    for name, pattern in (("sum_array", r"\bsum_array\(const int\* a"),
                          ("run_sum", r"\brun_sum\(const int\* a"),
                          ("main", r"^int main\(")):
        rt = routine(r, name, prog)
        # The directory comes from the debug information (here, the build's).
        assert os.path.samefile(rt.file, source), rt
        assert rt.line in source_lines(source, pattern), rt
        # The object address is the symbol's address in the file (nm).
        assert rt.object_address == symbols[name], (rt, hex(symbols[name]))
    rt = routine(run_disp.report, "dispatch", disp)
    assert os.path.samefile(rt.file, os.path.join(PROGRAMS, "dispatch.cc")), rt
    assert [rt.line] == list(source_lines(rt.file, r"\bint dispatch\(int x")), rt
    assert_no_routine_in_plt(r, prog)
    # Routines without line information (_start of crt1.o, ...) have none.
    for rt in r.routines.values():
        assert (rt.file == "???") == (rt.line == 0), rt


def test_stripped_dispatcher_named_by_object_address_and_counted(tmp_path):
    """dispatch() of a stripped binary is one `jmp *(%rsi)`: not a PLT stub.
    It is named 0x<nm address>@dispatch-stripped and has exactly N
    activations, as many as callgrind counts calls."""
    stripped = program("dispatch-stripped")
    assert "dispatch" not in subprocess.run(["nm", stripped], capture_output=True,
                                            text=True).stdout, "not stripped"
    address = nm_addresses(program("dispatch"))["dispatch"]
    cg_out = tmp_path / "callgrind.out"
    aprof, cg = run_tools(tmp_path, [
        Spec([stripped, str(N)]),
        Spec(["--tool=callgrind", f"--callgrind-out-file={cg_out}", stripped, str(N)],
             out_file=None, launcher=valgrind()),
    ])
    assert aprof.counts() == {"dispatch": N} == cg.counts()
    r = aprof.report
    name = f"{address:#x}@dispatch-stripped"
    found = [rt for rt in r.routines.values() if rt.name == name]
    assert len(found) == 1, sorted(rt.name for rt in r.routines.values() if rt.object == stripped)
    rt = found[0]
    assert (rt.object, rt.mangled, rt.object_address, rt.file, rt.line) == \
        (stripped, name, address, "???", 0), rt
    assert ar.activations(r, rt) == N
    assert_no_routine_in_plt(r, stripped)
    # callgrind names it by the same object address.
    calls = counts_by_basename(call_counts(cg_out))
    assert calls[(f"{address:#018x}", "dispatch-stripped")] == N



def program_routines(report, prog):
    """{object address: routine} of the routines of the program `prog`."""
    return {rt.object_address: rt for rt in report.routines.values() if rt.object == prog}


def call_graph(report, prog):
    """The calls of and into the program `prog`, names aside: {(caller,
    callee): (calls, inclusive cost)}, a routine of the program being its
    object address and any other its name. Costs only between the program's
    own routines (the others' may depend on the program's file name)."""
    def key(rt):
        return rt.object_address if rt.object == prog else rt.name
    graph = {}
    for e in report.calls.values():
        caller, callee = report.routines[e.caller], report.routines[e.callee]
        if prog in (caller.object, callee.object):
            own = caller.object == callee.object == prog
            graph[(key(caller), key(callee))] = (e.calls, e.inclusive_cost if own else None)
    return graph


def test_tail_jump_into_a_stripped_static_function_is_a_call(tmp_path):
    """sum_prefix() is static and reached only by dispatch()'s tail jump
    (`jmp *(%rdi)`). Stripped, it has no symbol; the unwind table marks its
    entry, so the jump is still a call: the stripped run has sum_prefix as a
    routine of its own, 0x<nm address>@tailjump-stripped, with exactly N
    activations of the same input sizes and costs, and the same call graph
    as the run with symbols. Without the unwind table its cost would stay
    with dispatch()."""
    prog, stripped = program("tailjump"), program("tailjump-stripped")
    assert "sum_prefix" not in subprocess.run(["nm", stripped], capture_output=True,
                                              text=True).stdout, "not stripped"
    address = next(a for name, a in nm_addresses(prog).items() if "sum_prefix" in name)
    full, bare = run_tools(tmp_path, [Spec([prog, str(N)]), Spec([stripped, str(N)])])
    expected = {"dispatch": N, "sum_prefix": N}
    assert full.counts() == bare.counts() == expected
    named, unnamed = program_routines(full.report, prog), program_routines(bare.report, stripped)
    assert address in unnamed, f"no routine at {address:#x}: {sorted(map(hex, unnamed))}"
    callee = unnamed[address]
    assert (callee.name, named[address].name) == \
        (f"{address:#x}@tailjump-stripped", "sum_prefix(long const*, long)")
    assert ar.activations(bare.report, callee) == N
    assert ({a: ar.activations(full.report, rt) for a, rt in named.items()} ==
            {a: ar.activations(bare.report, rt) for a, rt in unnamed.items()})
    assert call_graph(full.report, prog) == call_graph(bare.report, stripped)
    dispatcher = nm_addresses(prog)["dispatch"]
    assert call_graph(bare.report, stripped)[(dispatcher, address)][0] == N
    # The same activations: N input sizes, the same costs.
    def activations_by_size(report, rt):
        return {size: t[3:] for size, t in ar.tuples(report, "trms", rt).items()}
    sizes = activations_by_size(bare.report, callee)
    assert len(sizes) == N
    assert sizes == activations_by_size(full.report, named[address])


def section_file_offset(path, name):
    """Where the bytes of section `name` of an ELF file start in it (objdump -h)."""
    out = subprocess.run(["objdump", "-h", path], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(rf"^\s*\d+ {re.escape(name)}\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)", out, re.M)
    assert m, out
    return int(m.group(1), 16)


def test_an_unusable_unwind_table_is_reported_and_leaves_tail_jumps_uncounted(tmp_path):
    """The stripped tailjump with an .eh_frame_hdr of another version (the
    program never unwinds, so it runs as before): one line says why the
    table is unusable, and sum_prefix's cost stays with dispatch(), whose
    activations are still exact."""
    broken = tmp_path / "tailjump-broken"
    data = bytearray(open(program("tailjump-stripped"), "rb").read())
    data[section_file_offset(program("tailjump-stripped"), ".eh_frame_hdr")] = 2
    broken.write_bytes(bytes(data))
    broken.chmod(0o755)
    run = run_tools(tmp_path, [Spec([str(broken), str(N)])])[0]
    message = (f"aprof-trms: {broken}: the unwind table (.eh_frame_hdr) is unusable (not "
               "version 1): tail jumps into its functions without a symbol are not calls")
    assert run.stderr.count(message) == 1, run.stderr
    assert run.counts() == {"dispatch": N, "sum_prefix": N}
    routines = program_routines(run.report, str(broken))
    address = next(a for name, a in nm_addresses(program("tailjump")).items()
                   if "sum_prefix" in name)
    assert address not in routines, sorted(map(hex, routines))
    assert ar.activations(run.report, routines[nm_addresses(program("tailjump"))["dispatch"]]) == N


# --- Names and arguments of any bytes (format version 5) ------------------------------

ODD_SOURCE = rb"""#include <stdio.h>
__attribute__((noinline)) int odd_routine(int x) __asm__("caf\xe9_routine");
__attribute__((noinline)) int odd_routine(int x) { return x * 2; }
int main(int argc, char** argv) { printf("%d\n", odd_routine(argc)); return 0; }
"""


def _visible(raw: bytes) -> str:
    """What the reader gives for raw bytes: UTF-8, the rest as \\xHH."""
    return raw.decode("utf-8", "backslashreplace")


def test_names_and_arguments_of_any_bytes(tmp_path):
    """An executable whose name is not UTF-8, a symbol with a byte that is
    not UTF-8 (the assembler takes no control character), an argument with \\xff, ESC, a C0
    control, DEL and a C1 control: the report is valid UTF-8 without control
    characters but TAB and LF, and the reader gets the names back."""
    exe = os.path.join(os.fsencode(tmp_path), b"odd\xe9name")
    source = tmp_path / "odd.c"
    source.write_bytes(ODD_SOURCE)
    subprocess.run(["cc", "-O1", "-g", "-o", exe, str(source)], check=True)
    argument = b"x\xffy\x1b[2J\x01\x7f\xc2\x85\tz"
    run = run_tools(tmp_path, [Spec([os.fsdecode(exe), os.fsdecode(argument)])])[0]
    raw = next(run.dir.glob("aprof.*")).read_bytes()
    text = raw.decode("utf-8")   # strict: raises on any byte outside UTF-8
    controls = sorted({f"U+{ord(c):04X}" for c in text
                       if c not in "\t\n" and (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F)})
    assert controls == [], controls
    r = run.report
    assert r.header.command == (_visible(exe), "x\\xffy\x1b[2J\x01\x7f\x85\tz")
    odd = routine(r, "caf\\xe9_routine", _visible(exe))
    assert ar.activations(r, odd) == 1
