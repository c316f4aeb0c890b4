# SPDX-License-Identifier: GPL-2.0-or-later
"""Reader of aprof-trms reports (format versions 1 to 6, docs/report-format.md).

Python 3 standard library only. Every analysis script reads reports through
this module:

    from aprof_trms import report as aprof_report
    report = aprof_report.load("aprof-trms.out.4242")
    for routine in aprof_report.routines_named(report, "consume_data"):
        print(aprof_report.activations(report, routine))
        for size, t in sorted(aprof_report.tuples(report, "trms", routine).items()):
            print(size, t.calls, t.max_cost)

A malformed report raises ReportError("FILE:LINE: what is wrong"). The parser
checks the syntax (tags, field counts, integers, escapes), the record order,
references between records and the final `end` record; consistency_problems()
checks the relations between the numbers that every correct report satisfies.

The command that checks reports named on the command line is
check_reports.py (python3 -m aprof_trms.check_reports REPORT...).
"""
import dataclasses
import functools
import hashlib
import io
import itertools
import os
import re
import stat
from typing import (BinaryIO, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional,
                    Tuple, Union)

import numpy as np

__all__ = [
    "FORMAT_VERSION", "MAGIC", "METRICS", "ReportError",
    "Header", "Thread", "Routine", "Totals", "CostTuple", "ThreadSource", "KernelSource",
    "Report", "KERNEL_WRITES_UNSEEN", "kernel_writes_warning",
    "load", "loads", "unescape", "escape",
    "CallEdge", "routines_named", "routine_named", "activations", "totals", "tuples",
    "callers_and_callees", "consistency_problems",
    "Context", "ContextTuple", "Interval", "context_path", "contexts_of", "context_tuples",
]

MAGIC = "aprof-trms-report"
FORMAT_VERSION = 6
# Older versions this reader still reads, with their field counts that differ.
# Version 6 added the interval record (dumps of a running program);
# Version 5 added the \xHH escape (bytes not valid UTF-8, control
# characters) and the optional kernel-writes-unseen records; version 4 the
# optional calling-context records (--collect-context=yes);
# version 3 added the optional call records and input-sources records
# (--input-sources=yes); version 2 has neither.
_OLD_FIELD_COUNTS = {1: {"routine": 5}, 2: {}, 3: {}, 4: {}, 5: {}}
# The records a version introduced: an older report that has one is malformed.
_SINCE_VERSION = {"contexts": 4, "context": 4, "context-trms": 4, "context-rms": 4,
                  "kernel-writes-unseen": 5, "go-async-preemption": 5, "interval": 6}
METRICS = ("trms", "rms")
COST_METRICS = ("bb", "instructions")
RESOLUTIONS = (1, 2, 4, 8, 16)
SYSCALL_INPUTS = ("all", "io")
# The mechanisms of kernel writes outside system calls that the tool notices
# being set up (kernel-writes-unseen records), in their record order, with
# what the program did.
KERNEL_WRITES_UNSEEN = {
    "io_uring": "set up io_uring (the kernel writes its completions outside system calls)",
    "proc-self-mem": "opened its own /proc/PID/mem for writing",
}
_MECHANISMS = tuple(KERNEL_WRITES_UNSEEN)


class ReportError(Exception):
    """A report that does not follow the format; str() is 'FILE:LINE: message'
    ('FILE: message' with line None: a file that is not read at all)."""

    def __init__(self, path: str, line: Optional[int], message: str):
        super().__init__(f"{path}:{line}: {message}" if line is not None else f"{path}: {message}")
        self.path = path
        self.line = line
        self.message = message


# ---------------------------------------------------------------------------
# Records.
# ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Header:
    version: int
    tool: str              # "aprof-trms"
    tool_version: str
    valgrind_version: str
    command: Tuple[str, ...]   # executable, then its arguments
    pid: int
    ppid: int
    cost_metric: str       # "bb" or "instructions"
    memory_resolution: int  # bytes per cell
    syscall_input: str     # "all" or "io"
    # False for --trms=no: only RMS was computed and every TRMS equals it.
    trms_tracking: bool = True
    # Peak shadow memory of the run (bytes); None in reports older than the record.
    shadow_peak_bytes: Optional[int] = None
    # True for --input-sources=yes: the report has thread-source and
    # kernel-source records.
    input_sources: bool = False
    # The depth limit of --collect-context=yes runs (version 4): the report
    # has context, context-trms and context-rms records. None: no contexts.
    context_depth: Optional[int] = None
    # The mechanisms of kernel_writes_unseen the process set up (version 5):
    # its input sizes may miss writes the kernel made outside system calls.
    kernel_writes_unseen: Tuple[str, ...] = ()
    # Go programs (version 5): whether the runtime could preempt goroutines
    # by signals (--go-async-preemption); None: not a Go program.
    go_async_preemption: Optional[bool] = None
    # The part of the run the report covers (version 6); None in older ones.
    interval: Optional["Interval"] = None


@dataclasses.dataclass(frozen=True)
class Interval:
    """The part of the run a report covers (the interval record, version 6):
    what completed from the latest zero (or the start) to when it was written."""
    dump: int        # 1, 2, 3... for dumps of the running program; 0 at exit
    start_ms: int    # run time of the latest zero, 0 if none
    end_ms: int      # run time when written
    zeroes: int      # zeroes before: reports of one process overlap iff equal
    reason: str      # why it was written ("exit" for the report at exit)


@dataclasses.dataclass(frozen=True)
class Thread:
    serial: int            # 1, 2, 3... in start order
    tid: int               # Valgrind's thread id
    total_cost: int


@dataclasses.dataclass(frozen=True)
class Routine:
    id: int
    address: int           # entry address
    object: str            # ELF object path, or "???"
    name: str              # demangled name; without a symbol "0x...@OBJECT" (version 1: "0x...")
    mangled: str
    # Since format version 2 (None in older reports): the entry as the object
    # numbers it (nm, addr2line), and the source file ("???" if unknown) and
    # line (0 if unknown) of the entry.
    object_address: Optional[int] = None
    file: Optional[str] = None
    line: Optional[int] = None


# Totals and CostTuple, one per record of a report with up to millions of
# them, are named tuples: a third of the memory of a dataclass and faster to
# build, with the same fields and immutability.
class Totals(NamedTuple):
    thread: int            # thread serial; 0 when merged over threads
    routine: int           # routine id
    calls: int
    self_cost: int
    cumulative_cost: int   # outermost activations only


class CostTuple(NamedTuple):
    """Activations of one routine (in one thread) with one input size."""
    thread: int            # thread serial; 0 when merged over threads
    routine: int
    size: int              # TRMS or RMS, in cells
    calls: int
    min_cost: int
    max_cost: int
    sum_cost: int
    sum_sq_cost: int       # may exceed 64 bits
    sum_self_cost: int
    sum_thread_induced: int
    sum_external: int


@dataclasses.dataclass(frozen=True)
class ThreadSource:
    """Induced reads made by one routine's own code (not its callees) in one
    thread, of cells whose latest write was made by another thread's routine."""
    thread: int                     # consumer thread serial
    routine: Optional[int]          # consumer routine id; None: outside every routine
    producer_thread: int            # thread serial; 0: a thread of the parent, before fork()
    producer_routine: Optional[int]  # None: the producer was outside every routine
    reads: int


@dataclasses.dataclass(frozen=True)
class KernelSource:
    """Induced reads made by one routine's own code in one thread, of cells
    whose latest write was made by the kernel for a system call."""
    thread: int
    routine: Optional[int]
    syscall: str                    # "read", "syscall-<number>" or "unknown"
    reads: int


@dataclasses.dataclass(frozen=True)
class CallEdge:
    """Completed activations of `callee` whose parent activation was one of
    `caller` (since format version 3)."""
    thread: int            # thread serial; 0 when merged over threads
    caller: int            # routine id
    callee: int            # routine id
    calls: int
    inclusive_cost: int    # sum of the callee activations' cumulative costs


@dataclasses.dataclass(frozen=True)
class Context:
    """A node of the calling-context tree (since format version 4): the
    activations of `routine` whose chain of pending routines, from the
    thread's root, is that of `parent` followed by `routine` (recursion
    folded, depth limited: docs/report-format.md)."""
    id: int
    parent: int            # context id; 0 for a root
    routine: int           # routine id
    # 1 for a root; computed by the reader (not a field of the record, so
    # not compared: Context(id, parent, routine) equals the node read).
    depth: int = dataclasses.field(default=0, compare=False)


class ContextTuple(NamedTuple):
    """Activations in one calling context (in one thread) with one input
    size: the fields of CostTuple, keyed by context instead of routine."""
    thread: int            # thread serial; 0 when merged over threads
    context: int           # context id
    size: int
    calls: int
    min_cost: int
    max_cost: int
    sum_cost: int
    sum_sq_cost: int
    sum_self_cost: int
    sum_thread_induced: int
    sum_external: int


@dataclasses.dataclass
class Report:
    path: str
    header: Header
    threads: Dict[int, Thread]                      # by serial
    routines: Dict[int, Routine]                    # by id
    totals: Dict[Tuple[int, int], Totals]           # by (thread, routine)
    trms: Dict[Tuple[int, int, int], CostTuple]     # by (thread, routine, size)
    rms: Dict[Tuple[int, int, int], CostTuple]
    # By (thread, routine, producer thread, producer routine) and by
    # (thread, routine, syscall); empty unless header.input_sources.
    thread_sources: Dict[Tuple[int, Optional[int], int, Optional[int]], ThreadSource] = \
        dataclasses.field(default_factory=dict)
    kernel_sources: Dict[Tuple[int, Optional[int], str], KernelSource] = \
        dataclasses.field(default_factory=dict)
    # By (thread, caller, callee); empty in reports older than version 3.
    calls: Dict[Tuple[int, int, int], CallEdge] = dataclasses.field(default_factory=dict)
    # By id, and the tuples by (thread, context, size); empty unless
    # header.context_depth (format version 4, --collect-context=yes).
    contexts: Dict[int, Context] = dataclasses.field(default_factory=dict)
    context_trms: Dict[Tuple[int, int, int], ContextTuple] = dataclasses.field(default_factory=dict)
    context_rms: Dict[Tuple[int, int, int], ContextTuple] = dataclasses.field(default_factory=dict)
    # A hash of the file's bytes: the same report given twice has the same.
    digest: str = ""

    def context_metric(self, name: str) -> Dict[Tuple[int, int, int], ContextTuple]:
        self.metric(name)   # checks the name
        return self.context_trms if name == "trms" else self.context_rms

    def metric(self, name: str) -> Dict[Tuple[int, int, int], CostTuple]:
        if name not in METRICS:
            raise ValueError(f"unknown input metric {name!r} (expected one of {METRICS})")
        return self.trms if name == "trms" else self.rms


# ---------------------------------------------------------------------------
# Lexical level.
# ---------------------------------------------------------------------------

# The largest integer a field may hold: sums of squares reach 192 bits, 58
# decimal digits (docs/report-format.md); a longer field is refused before
# int() converts it (Python refuses 4,300 digits, slowly).
MAX_DIGITS = 58
_INT = re.compile(r"[0-9]{1,%d}\Z" % MAX_DIGITS)
_LONG_INT = re.compile(r"[0-9]+\Z")
# A record whose fields are all integers of at most MAX_DIGITS digits.
_INTS = re.compile(r"[0-9]{1,%d}(?:\t[0-9]{1,%d})*\Z" % (MAX_DIGITS, MAX_DIGITS))
_ADDRESS = re.compile(r"0x[0-9a-f]{1,16}\Z")   # 64 bits at most

_UNESCAPE = {b"\\": b"\\", b"t": b"\t", b"n": b"\n", b"r": b"\r"}
_ESCAPE_SEQUENCE = re.compile(rb"\\(x[0-9a-f]{2}|.?)", re.S)
# Lines are decoded with errors="surrogateescape": a byte that is not part
# of valid UTF-8 (raw, as tools before format version 5 wrote it) is one of
# these characters until unescape() decodes the field.
_RAW_BYTE = re.compile("[\udc80-\udcff]")


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _quoted(text: str, width: int = 60) -> str:
    """A field quoted for a message: its bytes that are not UTF-8 and its
    control characters as \\xHH, a 1 MB field not repeated whole."""
    shown = text[:width].encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    shown = "'" + _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", shown) + "'"
    return shown if len(text) <= width else f"{shown}... ({len(text)} characters)"


def _unescaped(match: "re.Match[bytes]") -> bytes:
    sequence = match.group(1)
    if len(sequence) == 3:   # xHH: one raw byte (format version 5)
        return bytes((int(sequence[1:], 16),))
    if sequence not in _UNESCAPE:
        if not sequence:
            raise ValueError("text field ends with a lone backslash")
        shown = sequence.decode("utf-8", "backslashreplace")
        raise ValueError(f"invalid escape '\\{shown}' in text field")
    return _UNESCAPE[sequence]


def unescape(text: str) -> str:
    """Undoes the escapes of a text field (\\\\, \\t, \\n, \\r and, since format
    version 5, \\xHH for one raw byte), then decodes its bytes as UTF-8; bytes
    that are still not valid UTF-8 stay visible as the four characters \\xHH.
    ValueError on an invalid escape."""
    if "\\" not in text and (text.isascii() or not _RAW_BYTE.search(text)):
        return text
    raw = _ESCAPE_SEQUENCE.sub(_unescaped, text.encode("utf-8", "surrogateescape"))
    return raw.decode("utf-8", "backslashreplace")


_ESCAPE = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
# The characters version 5 escapes: those four, and as \xHH the other
# controls (C0, DEL, C1) and raw bytes (of a line decoded with surrogateescape).
_ESCAPED = re.compile("[\\\\\x00-\x1f\x7f-\x9f\udc80-\udcff]")


def escape(text: str) -> str:
    """The inverse of unescape() as format version 5 writes it (for writers
    of reports and of tests): control characters as \\xHH of their UTF-8
    bytes, besides the four escapes of every version."""
    def as_bytes(c: str) -> str:
        if c in _ESCAPE:
            return _ESCAPE[c]
        return "".join(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogateescape"))
    return _ESCAPED.sub(lambda m: as_bytes(m.group()), text)


# ---------------------------------------------------------------------------
# Parser.
# ---------------------------------------------------------------------------

# tag -> (number of fields after the tag or None for "at least 1", order rank)
_TAGS = {
    MAGIC: (1, 0),
    "tool": (3, 1), "command": (None, 2), "pid": (2, 3), "interval": (5, 3.5), "cost-metric": (1, 4),
    "memory-resolution": (1, 5), "syscall-input": (1, 6), "kernel-writes-unseen": (1, 6.5),
    "trms-tracking": (1, 7),
    "shadow-peak-bytes": (1, 7.5),  # after trms-tracking, before thread
    "input-sources": (1, 7.7), "contexts": (1, 7.8), "go-async-preemption": (1, 7.9),
    "thread": (3, 8), "routine": (8, 9), "totals": (5, 10),
    "trms": (11, 11), "rms": (11, 12), "call": (5, 12.2),
    "thread-source": (5, 12.3), "kernel-source": (4, 12.6),
    "context": (3, 12.7), "context-trms": (11, 12.8), "context-rms": (11, 12.9),
    "end": (1, 13),
}
_LAST_HEADER_RANK = 7.9
# Tags of records that come in runs (the body, but its end).
_REPEATED_TAGS = frozenset(t for t, (_, rank) in _TAGS.items() if _LAST_HEADER_RANK < rank and t != "end")
# Header records that may be absent (written only when not the default, or
# not yet written by older versions).
_OPTIONAL_TAGS = ("interval", "kernel-writes-unseen", "trms-tracking", "shadow-peak-bytes", "input-sources",
                  "contexts", "go-async-preemption")
# Header records that may come more than once in a row (their handler
# checks the order of their values).
_REPEATED_HEADER_TAGS = ("kernel-writes-unseen",)
_TUPLE_FIELDS = tuple(f.replace("_", " ") for f in CostTuple._fields)
# CostTuple._make without its length check (the field count is checked before).
_new_cost_tuple = functools.partial(tuple.__new__, CostTuple)
_new_totals = functools.partial(tuple.__new__, Totals)
_CONTEXT_TUPLE_FIELDS = tuple(f.replace("_", " ") for f in ContextTuple._fields)
_TOTALS_FIELDS = ("thread", "routine", "calls", "self cost", "cumulative cost")


# Receives the checked trms and rms records instead of the Report (load()).
# A sink with a method add_block(metric, rows) gets the records of a run
# read as a block (_tuple_block) in one call: a numpy array of int64, one
# row per record, the CostTuple's fields as columns.
TupleSink = Callable[[str, "CostTuple"], None]


class _Parser:
    def __init__(self, path: str, tuple_sink: Optional[TupleSink] = None):
        self.path = path
        self.tuple_sink = tuple_sink
        self.lineno = 0
        self.header: Dict[str, object] = {}
        self.threads: Dict[int, Thread] = {}
        self.routines: Dict[int, Routine] = {}
        self.routine_keys: Dict[Tuple[str, int], int] = {}
        self.totals: Dict[Tuple[int, int], Totals] = {}
        self.metrics: Dict[str, Dict[Tuple[int, int, int], CostTuple]] = {"trms": {}, "rms": {}}
        self.thread_sources: Dict[tuple, ThreadSource] = {}
        self.kernel_sources: Dict[tuple, KernelSource] = {}
        self.calls: Dict[Tuple[int, int, int], CallEdge] = {}
        self.contexts: Dict[int, Context] = {}
        self.context_children: Dict[Tuple[int, int], int] = {}   # (parent, routine) -> id
        self.context_metrics: Dict[str, Dict[Tuple[int, int, int], ContextTuple]] = {
            "context-trms": {}, "context-rms": {}}
        self.last_call_key: Optional[Tuple[int, int, int]] = None
        self.last_tuple_key: Optional[Tuple[int, int, int]] = None
        self.last_tuple_tag = ""
        self.rank = -1
        self.last_tag = ""
        # tag -> its rec_ function, looked up once rather than per record;
        # not bound to self, which would make the parser a reference cycle
        # that only the cyclic collector frees, with every table it holds.
        self.handlers = {tag: getattr(_Parser, "rec_" + tag.replace("-", "_")) for tag in _TAGS}
        self.seen_end = False
        self.consistency = _Consistency()
        self.totals_lines: Dict[Tuple[int, int], int] = {}

    def error(self, message: str) -> ReportError:
        return ReportError(self.path, self.lineno, message)

    def int_field(self, tag: str, what: str, text: str) -> int:
        if not _INT.match(text):
            if _LONG_INT.match(text):
                raise self.error(f"'{tag}' record: {what} has {len(text)} digits, more than the "
                                 f"{MAX_DIGITS} of the largest number of the format (192 bits)")
            raise self.error(f"'{tag}' record: {what} is not an unsigned decimal integer: "
                             f"{_quoted(text)}")
        return int(text)

    def int_fields(self, tag: str, whats: Tuple[str, ...], args: List[str]) -> List[int]:
        """The integers of a record made of integer fields: one pattern match
        for the whole record, per-field messages when it fails."""
        if _INTS.match("\t".join(args)):
            return list(map(int, args))
        return [self.int_field(tag, w, a) for w, a in zip(whats, args)]

    def text_field(self, tag: str, what: str, text: str) -> str:
        try:
            return unescape(text)
        except ValueError as e:
            raise self.error(f"'{tag}' record: {what}: {e}") from None

    def thread_ref(self, tag: str, serial: int) -> None:
        if serial not in self.threads:
            raise self.error(f"'{tag}' record refers to undefined thread {serial}")

    def routine_ref(self, tag: str, ident: int) -> None:
        if ident not in self.routines:
            raise self.error(f"'{tag}' record refers to undefined routine {ident}")

    def line(self, text: str) -> None:
        if self.seen_end:
            raise self.error("data after the 'end' record")
        fields = text.split("\t")
        tag = fields[0]
        args = fields[1:]
        if tag == self.last_tag and tag in _REPEATED_TAGS and len(args) == _TAGS[tag][0]:
            # Another record of the previous record's tag (nearly every line of
            # a report): none of the order checks below can fail.
            self.handlers[tag](self, tag, args)
            return
        if self.lineno == 1:
            if tag != MAGIC:
                raise self.error(f"not an aprof-trms report: the first line must be "
                                 f"'{MAGIC}<TAB>{FORMAT_VERSION}', found {_quoted(text)}")
        if tag not in _TAGS:
            raise self.error(f"unknown record tag {_quoted(tag)}")
        count, rank = _TAGS[tag]
        since = _SINCE_VERSION.get(tag)
        if since is not None and self.header.get("version", since) < since:
            raise self.error(f"'{tag}' record in a format version {self.header['version']} "
                             f"report (it exists since version {since})")
        count = _OLD_FIELD_COUNTS.get(self.header.get("version"), {}).get(tag, count)
        if count is None:
            if len(args) < 1:
                raise self.error(f"'{tag}' record needs at least 1 field after the tag, has 0")
        elif len(args) != count:
            raise self.error(f"'{tag}' record needs {count} field(s) after the tag, has {len(args)}")
        # Order: records of one tag are contiguous, tags in the documented order,
        # header records exactly once.
        if rank < self.rank or (rank == self.rank and (rank <= _LAST_HEADER_RANK or tag == "end")
                                and tag not in _REPEATED_HEADER_TAGS):
            if tag == self.last_tag:
                raise self.error(f"duplicate '{tag}' record")
            raise self.error(f"record out of order: '{tag}' after '{self.last_tag}'")
        if rank > self.rank:
            for missing_tag, (_, r) in _TAGS.items():
                if (self.rank < r < rank and r <= _LAST_HEADER_RANK
                        and missing_tag not in _OPTIONAL_TAGS):
                    raise self.error(f"missing '{missing_tag}' record before '{tag}'")
        self.rank = rank
        self.last_tag = tag
        self.handlers[tag](self, tag, args)

    # --- header -------------------------------------------------------------
    def rec_aprof_trms_report(self, tag, args):
        version = self.int_field(tag, "format version", args[0])
        if version != FORMAT_VERSION and version not in _OLD_FIELD_COUNTS:
            raise self.error(f"unsupported report format version {version} "
                             f"(this reader supports {FORMAT_VERSION} and older)")
        self.header["version"] = version

    def rec_tool(self, tag, args):
        name, version, vg = (self.text_field(tag, w, a) for w, a in
                             zip(("tool name", "tool version", "valgrind version"), args))
        self.header.update(tool=name, tool_version=version, valgrind_version=vg)

    def rec_command(self, tag, args):
        self.header["command"] = tuple(self.text_field(tag, "command line", a) for a in args)

    def rec_pid(self, tag, args):
        self.header["pid"] = self.int_field(tag, "pid", args[0])
        self.header["ppid"] = self.int_field(tag, "parent pid", args[1])

    def rec_interval(self, tag, args):
        dump, start, end, zeroes = self.int_fields(
            tag, ("dump number", "start", "end", "zero count"), args[:4])
        if start > end:
            raise self.error(f"'{tag}' record: starts at {start} ms, after its end at {end} ms")
        self.header["interval"] = Interval(dump, start, end, zeroes,
                                           self.text_field(tag, "reason", args[4]))

    def rec_cost_metric(self, tag, args):
        if args[0] not in COST_METRICS:
            raise self.error(f"unknown cost metric {_quoted(args[0])} (expected one of {', '.join(COST_METRICS)})")
        self.header["cost_metric"] = args[0]

    def rec_memory_resolution(self, tag, args):
        r = self.int_field(tag, "memory resolution", args[0])
        if r not in RESOLUTIONS:
            raise self.error(f"invalid memory resolution {r} (expected one of {RESOLUTIONS})")
        self.header["memory_resolution"] = r

    def rec_syscall_input(self, tag, args):
        if args[0] not in SYSCALL_INPUTS:
            raise self.error(f"unknown syscall input {_quoted(args[0])} (expected one of {', '.join(SYSCALL_INPUTS)})")
        self.header["syscall_input"] = args[0]

    def rec_kernel_writes_unseen(self, tag, args):
        mechanism = self.text_field(tag, "mechanism", args[0])
        if mechanism not in KERNEL_WRITES_UNSEEN:
            raise self.error(f"'{tag}' record: unknown mechanism {_quoted(mechanism)} "
                             f"(expected one of {', '.join(KERNEL_WRITES_UNSEEN)})")
        seen = self.header.setdefault("kernel_writes_unseen", ())
        if seen and _MECHANISMS.index(mechanism) <= _MECHANISMS.index(seen[-1]):
            raise self.error(f"'{tag}' record: {mechanism} after {seen[-1]} (each mechanism once, "
                             f"in the order {', '.join(KERNEL_WRITES_UNSEEN)})")
        self.header["kernel_writes_unseen"] = seen + (mechanism,)

    def rec_trms_tracking(self, tag, args):
        if args[0] not in ("yes", "no"):
            raise self.error(f"'{tag}' record: expected yes or no, found {_quoted(args[0])}")
        self.header["trms_tracking"] = args[0] == "yes"

    def rec_input_sources(self, tag, args):
        if args[0] != "yes":
            raise self.error(f"'{tag}' record: expected yes, found {_quoted(args[0])}")
        self.header["input_sources"] = True

    def rec_contexts(self, tag, args):
        depth = self.int_field(tag, "depth limit", args[0])
        if depth < 1:
            raise self.error(f"'{tag}' record: depth limit must be at least 1, found {depth}")
        self.header["context_depth"] = depth
        if self.tuple_sink is not None:
            self.consistency.keep_tuples()

    def rec_go_async_preemption(self, tag, args):
        if args[0] not in ("on", "off"):
            raise self.error(f"'{tag}' record: expected on or off, found {args[0]!r}")
        self.header["go_async_preemption"] = args[0] == "on"

    def rec_shadow_peak_bytes(self, tag, args):
        self.header["shadow_peak_bytes"] = self.int_field(tag, "peak shadow bytes", args[0])

    # --- body ---------------------------------------------------------------
    def rec_thread(self, tag, args):
        serial, tid, cost = (self.int_field(tag, w, a) for w, a in
                             zip(("serial", "valgrind tid", "total cost"), args))
        expected = len(self.threads) + 1
        if serial != expected:
            raise self.error(f"thread serial {serial} out of sequence (expected {expected})")
        self.threads[serial] = Thread(serial, tid, cost)

    def rec_routine(self, tag, args):
        ident = self.int_field(tag, "routine id", args[0])
        if not _ADDRESS.match(args[1]):
            raise self.error(f"'routine' record: entry address is not 0x followed by "
                             f"lowercase hex digits: {_quoted(args[1])}")
        address = int(args[1], 16)
        obj = self.text_field(tag, "object", args[2])
        name = self.text_field(tag, "name", args[3])
        mangled = self.text_field(tag, "mangled name", args[4])
        source = ()
        if len(args) > 5:  # format version 2
            if not _ADDRESS.match(args[5]):
                raise self.error(f"'routine' record: object address is not 0x followed by "
                                 f"lowercase hex digits: {_quoted(args[5])}")
            source = (int(args[5], 16), self.text_field(tag, "source file", args[6]),
                      self.int_field(tag, "line", args[7]))
        if ident in self.routines:
            raise self.error(f"duplicate routine id {ident}")
        if (obj, address) in self.routine_keys:
            raise self.error(f"routine {ident} has the same object and entry address as "
                             f"routine {self.routine_keys[(obj, address)]}: {_quoted(obj)} {args[1]}")
        self.routines[ident] = Routine(ident, address, obj, name, mangled, *source)
        self.routine_keys[(obj, address)] = ident

    def rec_totals(self, tag, args):
        t = Totals._make(self.int_fields(tag, _TOTALS_FIELDS, args))
        thread, routine = t.thread, t.routine
        self.thread_ref(tag, thread)
        self.routine_ref(tag, routine)
        if (thread, routine) in self.totals:
            raise self.error(f"duplicate 'totals' record for thread {thread}, routine {routine}")
        self.totals[(thread, routine)] = t
        self.totals_lines[(thread, routine)] = self.lineno

    def rec_trms(self, tag, args):
        self.add_tuple(tag, _new_cost_tuple(self.int_fields(tag, _TUPLE_FIELDS, args)))

    def add_tuple(self, tag: str, t: CostTuple) -> None:
        """A trms or rms record whose fields are checked integers."""
        if t.thread not in self.threads:
            self.thread_ref(tag, t.thread)
        if t.routine not in self.routines:
            self.routine_ref(tag, t.routine)
        key = (t.thread, t.routine, t.size)
        if self.last_tuple_tag != tag:
            self.last_tuple_key = None
            self.last_tuple_tag = tag
        if self.last_tuple_key is not None and key <= self.last_tuple_key:
            raise self.tuple_order_error(tag, key, "routine")
        self.last_tuple_key = key
        self.consistency.add(tag, t, self.lineno)
        if self.tuple_sink is None:
            self.metrics[tag][key] = t
        else:
            self.tuple_sink(tag, t)

    rec_rms = rec_trms

    def tuple_order_error(self, tag: str, key: Tuple[int, int, int], keyed_by: str) -> ReportError:
        """A tuple record (thread, `keyed_by`, size) = key not after the last one."""
        what = ("duplicate" if key == self.last_tuple_key
                else f"not sorted by thread, {keyed_by}, input size:")
        thread, ident, size = key
        return self.error(f"'{tag}' record {what} (thread {thread}, {keyed_by} {ident}, "
                          f"size {size}) after {self.last_tuple_key}")

    # --- input sources --------------------------------------------------------
    def optional_routine(self, tag: str, what: str, text: str) -> Optional[int]:
        """A routine id field, or '-' (None): outside every routine."""
        if text == "-":
            return None
        ident = self.int_field(tag, what, text)
        self.routine_ref(tag, ident)
        return ident

    def source_key_in_order(self, tag: str, key: tuple, allow_equal: bool = False) -> None:
        """Records sorted by key (strictly unless allow_equal), '-' after every
        routine id."""
        if not self.header.get("input_sources"):
            raise self.error(f"'{tag}' record in a report without the 'input-sources' record")
        sortable = tuple((1 << 64) if k is None else k for k in key)
        if self.last_tuple_tag != tag:
            self.last_tuple_key = None
            self.last_tuple_tag = tag
        last = self.last_tuple_key
        if last is not None and (sortable < last or (sortable == last and not allow_equal)):
            what = "duplicate" if sortable == self.last_tuple_key else "not sorted:"
            raise self.error(f"'{tag}' record {what} {key}")
        self.last_tuple_key = sortable

    def rec_thread_source(self, tag, args):
        thread = self.int_field(tag, "thread", args[0])
        self.thread_ref(tag, thread)
        routine = self.optional_routine(tag, "routine", args[1])
        producer = self.int_field(tag, "producer thread", args[2])
        if producer != 0:
            self.thread_ref(tag, producer)
        producer_routine = self.optional_routine(tag, "producer routine", args[3])
        reads = self.int_field(tag, "reads", args[4])
        key = (thread, routine, producer, producer_routine)
        self.source_key_in_order(tag, key)
        self.thread_sources[key] = ThreadSource(*key, reads)

    def rec_kernel_source(self, tag, args):
        thread = self.int_field(tag, "thread", args[0])
        self.thread_ref(tag, thread)
        routine = self.optional_routine(tag, "routine", args[1])
        syscall = self.text_field(tag, "system call", args[2])
        reads = self.int_field(tag, "reads", args[3])
        key = (thread, routine, syscall)
        if key in self.kernel_sources:
            raise self.error(f"'{tag}' record duplicate {key}")
        self.source_key_in_order(tag, (thread, routine), allow_equal=True)
        self.kernel_sources[key] = KernelSource(*key, reads)

    def rec_call(self, tag, args):
        edge = CallEdge(*(self.int_field(tag, w, a) for w, a in zip(
            ("thread", "caller", "callee", "calls", "inclusive cost"), args)))
        self.thread_ref(tag, edge.thread)
        self.routine_ref(tag, edge.caller)
        self.routine_ref(tag, edge.callee)
        key = (edge.thread, edge.caller, edge.callee)
        if self.last_call_key is not None and key <= self.last_call_key:
            what = "duplicate" if key == self.last_call_key else "not sorted by thread, caller, callee:"
            raise self.error(f"'{tag}' record {what} (thread {edge.thread}, caller {edge.caller}, "
                             f"callee {edge.callee}) after {self.last_call_key}")
        self.last_call_key = key
        self.calls[key] = edge

    # --- calling contexts ---------------------------------------------------------
    def context_ref(self, tag: str, ident: int) -> None:
        if ident not in self.contexts:
            raise self.error(f"'{tag}' record refers to undefined context {ident}")

    def rec_context(self, tag, args):
        depth_limit = self.header.get("context_depth")
        if depth_limit is None:
            raise self.error(f"'{tag}' record in a report without the 'contexts' record")
        ident, parent, routine = (self.int_field(tag, w, a) for w, a in
                                  zip(("context id", "parent", "routine"), args))
        expected = len(self.contexts) + 1
        if ident != expected:
            what = "duplicate context id" if ident in self.contexts else "context id"
            raise self.error(f"{what} {ident} out of sequence (expected {expected})")
        if parent != 0 and parent not in self.contexts:
            raise self.error(f"context {ident}: parent {parent} is not a smaller id of a context "
                             "defined before it")
        self.routine_ref(tag, routine)
        depth = self.contexts[parent].depth + 1 if parent else 1
        if depth > depth_limit:
            raise self.error(f"context {ident} is at depth {depth}, deeper than the report's "
                             f"depth limit {depth_limit}")
        twin = self.context_children.get((parent, routine))
        if twin is not None:
            raise self.error(f"context {ident} duplicates context {twin} "
                             f"(same parent {parent}, routine {routine})")
        self.context_children[(parent, routine)] = ident
        self.contexts[ident] = Context(ident, parent, routine, depth)

    def rec_context_trms(self, tag, args):
        t = ContextTuple._make(self.int_fields(tag, _CONTEXT_TUPLE_FIELDS, args))
        self.thread_ref(tag, t.thread)
        self.context_ref(tag, t.context)
        key = (t.thread, t.context, t.size)
        if self.last_tuple_tag != tag:
            self.last_tuple_key = None
            self.last_tuple_tag = tag
        if self.last_tuple_key is not None and key <= self.last_tuple_key:
            raise self.tuple_order_error(tag, key, "context")
        self.last_tuple_key = key
        self.context_metrics[tag][key] = t

    rec_context_rms = rec_context_trms

    def rec_end(self, tag, args):
        n = self.int_field(tag, "record count", args[0])
        if n != self.lineno - 1:
            raise self.error(f"'end' record says {n} records, but {self.lineno - 1} precede it")
        self.seen_end = True

    def finish(self) -> Report:
        if not self.seen_end:
            if self.lineno == 0:
                raise ReportError(self.path, 1, "empty file: not an aprof-trms report")
            raise ReportError(self.path, self.lineno + 1,
                              "end of file without an 'end' record: the report is truncated")
        h = self.header
        header = Header(h["version"], h["tool"], h["tool_version"], h["valgrind_version"],
                        h["command"], h["pid"], h["ppid"], h["cost_metric"],
                        h["memory_resolution"], h["syscall_input"],
                        h.get("trms_tracking", True), h.get("shadow_peak_bytes"),
                        h.get("input_sources", False), h.get("context_depth"),
                        h.get("kernel_writes_unseen", ()), h.get("go_async_preemption"),
                        h.get("interval"))
        return Report(self.path, header, self.threads, self.routines, self.totals,
                      self.metrics["trms"], self.metrics["rms"],
                      self.thread_sources, self.kernel_sources, self.calls, self.contexts,
                      self.context_metrics["context-trms"], self.context_metrics["context-rms"])


# Tags of the records that make up nearly every line of a report: _parse
# reads their runs without the general path of _Parser.line.
_TUPLE_TAGS = frozenset(METRICS)
_NO_RUN = "\n"   # a prefix no line starts with (lines are split at newlines)


# A run of trms or rms records is read a block at a time (_tuple_block:
# numpy parses and checks it) when its fields have at most _BLOCK_DIGITS
# digits (int64 holds them, with room for the checks' sums); otherwise, and
# wherever a check fails, record by record (_Parser.line, add_tuple), which
# says what is wrong.
_BLOCK_DIGITS = 18
_TOO_LONG_FOR_BLOCK = re.compile(r"[0-9]{%d}" % (_BLOCK_DIGITS + 1))
_EXACT_INT64 = float(1 << 62)   # products and sums below this are exact in int64
_MIN_BLOCK = 64                 # shorter runs: record by record
_MAX_BLOCK = 4096               # a field too long for a block slows down this many records


def _run_end(lines: List[str], start: int, run: str) -> int:
    """The end of the records of `run` ("trms\t") from lines[start] on that
    have the tag's number of fields, at most _MAX_BLOCK of them."""
    tabs = _TAGS[run[:-1]][0]
    chunk = lines[start:start + _MAX_BLOCK]
    # Usually all of them (map() with a str method runs no Python code per line).
    if all(map(str.startswith, chunk, itertools.repeat(run))) and \
            list(map(str.count, chunk, itertools.repeat("\t"))).count(tabs) == len(chunk):
        return start + len(chunk)
    for end in range(start, min(len(lines), start + _MAX_BLOCK)):
        text = lines[end]
        if not text.startswith(run) or text.count("\t") != tabs:
            return end
    return min(len(lines), start + _MAX_BLOCK)


def _int_rows(lines: List[str], run: str) -> Optional[np.ndarray]:
    """The fields of records of `run` (lines that start with it and have
    its number of tabs) as int64, a row per record; None unless every field
    is a decimal integer of at most _BLOCK_DIGITS digits."""
    body = "\n".join(lines).replace(run, "")
    digits = body.replace("\t", "").replace("\n", "")
    if (not (digits.isascii() and digits.isdigit()) or "\t\t" in body or "\n\t" in body
            or "\t\n" in body or body.startswith("\t") or body.endswith("\t")
            or _TOO_LONG_FOR_BLOCK.search(body)):
        return None
    fields = _TAGS[run[:-1]][0]
    values = np.fromstring(body, dtype=np.int64, sep="\t")
    if values.size != len(lines) * fields:   # a tag inside a line
        return None
    return values.reshape(-1, fields)


def _known_refs(p: "_Parser", rows: np.ndarray) -> bool:
    """Whether the threads and routines of rows (columns 0 and 1) are defined."""
    return (p.threads.keys() >= set(np.unique(rows[:, 0]).tolist())
            and p.routines.keys() >= set(np.unique(rows[:, 1]).tolist()))


def _tuple_block(p: "_Parser", lines: List[str], run: str, lineno: int) -> bool:
    """Reads lines (records of `run`, after line `lineno`) as a block, as
    _Parser.add_tuple would one by one; False, with nothing read, when one
    of its checks fails or a field is too long for the block (the lines
    then go through add_tuple, which names the problem)."""
    rows = _int_rows(lines, run)
    if rows is None or not _known_refs(p, rows):
        return False
    tag = run[:-1]
    before, after = rows[:-1, :3], rows[1:, :3]
    increasing = ((before[:, 0] < after[:, 0])
                  | ((before[:, 0] == after[:, 0]) & ((before[:, 1] < after[:, 1])
                     | ((before[:, 1] == after[:, 1]) & (before[:, 2] < after[:, 2])))))
    first = tuple(rows[0, :3].tolist())
    if (not increasing.all() or not p.consistency.block_ok(tag, rows)
            or (p.last_tuple_tag == tag and p.last_tuple_key is not None and first <= p.last_tuple_key)):
        return False
    p.consistency.add_block(tag, rows)
    add_block = getattr(p.tuple_sink, "add_block", None)
    if add_block is not None:
        add_block(tag, rows)
    else:
        for values in rows.tolist():
            t = _new_cost_tuple(values)
            if p.tuple_sink is None:
                p.metrics[tag][(t.thread, t.routine, t.size)] = t
            else:
                p.tuple_sink(tag, t)
    p.last_tuple_tag = tag
    p.last_tuple_key = tuple(rows[-1, :3].tolist())
    p.lineno = lineno + len(lines)
    return True


def _totals_block(p: "_Parser", lines: List[str], run: str, lineno: int) -> bool:
    """Reads lines (totals records, after line `lineno`) as a block, as
    _Parser.rec_totals would one by one; False, with nothing read, when one
    of its checks fails."""
    rows = _int_rows(lines, run)
    if rows is None or not _known_refs(p, rows):
        return False
    values = rows.tolist()
    keys = [(v[0], v[1]) for v in values]
    if len(set(keys)) != len(keys) or any(key in p.totals for key in keys):
        return False   # a duplicate
    totals, totals_lines = p.totals, p.totals_lines
    for line, key, v in zip(range(lineno + 1, lineno + 1 + len(keys)), keys, values):
        totals[key] = _new_totals(v)
        totals_lines[key] = line
    p.lineno = lineno + len(lines)
    return True


# The records read a block at a time, by tag.
_BLOCK_READERS = {"trms": _tuple_block, "rms": _tuple_block, "totals": _totals_block}


def _parse(batches: Iterable[Tuple[List[str], bool]], path: str,
           tuple_sink: Optional[TupleSink] = None, check: bool = True) -> Report:
    """Parses the lines of a report, given as batches of lines without their
    newlines, and whether the batch's last line had one (_decoded_lines);
    with check, the numbers must be consistent (_raise_inconsistency)."""
    p = _Parser(path, tuple_sink)
    fields = len(_TUPLE_FIELDS)
    run = _NO_RUN   # "trms\t" or "rms\t" within a run of such records
    block_run = _NO_RUN   # the same, or "totals\t": records read as blocks
    lineno = 0
    for lines, terminated in batches:
        if not terminated:   # the file's last line, cut short: not parsed
            p.lineno = lineno + 1
            if p.seen_end:
                raise p.error("data after the 'end' record")
            raise p.error("last line is not terminated by a newline: the report is truncated")
        i = 0
        one_by_one = 0   # the lines before this one are read record by record
        while i < len(lines):
            text = lines[i]
            if i >= one_by_one and text.startswith(block_run):
                end = _run_end(lines, i, block_run)
                if end - i >= _MIN_BLOCK and _BLOCK_READERS[p.last_tag](p, lines[i:end], block_run, lineno):
                    lineno += end - i
                    i = end
                    continue
                one_by_one = end
            i += 1
            lineno += 1
            p.lineno = lineno
            # Another record of the run with only integer fields, the right
            # number of them: none of the checks of line() could fail.
            if text.startswith(run) and _INTS.match(text, len(run)):
                values = text[len(run):].split("\t")
                if len(values) == fields:
                    p.add_tuple(p.last_tag, _new_cost_tuple(map(int, values)))
                    continue
            p.line(text)
            run = p.last_tag + "\t" if p.last_tag in _TUPLE_TAGS else _NO_RUN
            block_run = p.last_tag + "\t" if p.last_tag in _BLOCK_READERS else _NO_RUN
        if lineno > MAX_RECORDS:
            raise p.error(f"more than {MAX_RECORDS:,} records, the most this reader reads")
    report = p.finish()
    if check:
        _raise_inconsistency(p, report)
    return report


def _raise_inconsistency(p: _Parser, report: Report) -> None:
    """ReportError naming the first relation between the numbers that
    `report` breaks (consistency_problems()), if any."""
    p.consistency.finish(report, p.totals_lines)
    problems = p.consistency.problems
    if problems:
        line, what = problems[0]
        more = (f" (and {len(problems) - 1} more: python3 -m aprof_trms.check_reports lists them)"
                if len(problems) > 1 else "")
        raise ReportError(report.path, line, f"inconsistent numbers: {what}{more}")


_BLOCK_BYTES = 1 << 20
# Bounds of what the reader reads (docs/report-format.md): a longer line or
# more records is not a report the tool writes (its largest lines are
# names: C++ names reach tens of kilobytes, four times that escaped).
MAX_LINE_BYTES = 16 << 20
MAX_RECORDS = 50_000_000


def _decoded_lines(f: BinaryIO, path: str, digest) -> Iterator[Tuple[List[str], bool]]:
    """The lines of a binary file decoded from UTF-8, without their newlines,
    in batches of about a megabyte (a report of a large program is never
    held whole in memory; one decode and split per batch, not per line):
    (lines, True), and last ([line], False) if the file does not end with
    a newline. Bytes that are not valid UTF-8 (older tools wrote them raw)
    become surrogates (errors="surrogateescape") that unescape() turns
    into visible \\xHH. digest.update() gets every byte read. A line longer
    than MAX_LINE_BYTES raises ReportError after the lines before it."""
    lineno = 0
    tail = b""
    while True:
        block = f.read(_BLOCK_BYTES)
        if not block:
            break
        digest.update(block)
        block = tail + block
        cut = block.rfind(b"\n") + 1
        tail = block[cut:]
        if cut:
            lines = _decoded(block[:cut])
            lineno += len(lines)
            yield lines, True
        if len(tail) > MAX_LINE_BYTES:
            raise ReportError(path, lineno + 1, f"line longer than {MAX_LINE_BYTES:,} bytes, the "
                              "most this reader reads: not an aprof-trms report")
    if tail:
        yield _decoded(tail), False


def _decoded(data: bytes) -> List[str]:
    """The lines of `data`, decoded (the last one without a newline if
    `data` does not end with one)."""
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def _read(f: BinaryIO, path: str, tuple_sink: Optional[TupleSink], check: bool) -> Report:
    digest = hashlib.blake2b(digest_size=16)
    report = _parse(_decoded_lines(f, path, digest), path, tuple_sink, check)
    report.digest = digest.hexdigest()
    return report


def loads(data: Union[str, bytes], path: str = "<string>", check: bool = True) -> Report:
    """Parses the text (or UTF-8 bytes) of a report as load() does; `path`
    is used in errors."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return _read(io.BytesIO(data), path, None, check)


_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
               (stat.S_ISSOCK, "a socket"))


def _refuse_unless_regular(path: str, mode: int) -> None:
    """A device, FIFO, socket or directory is never read: it may never end
    (/dev/zero) or block (a FIFO without a writer)."""
    if not stat.S_ISREG(mode):
        kind = next((what for is_kind, what in _FILE_KINDS if is_kind(mode)), "not a regular file")
        raise ReportError(path, None, f"{kind}, not a regular file: not read as a report")


def _open_report(path: str) -> BinaryIO:
    """The report file opened for reading, if it is a regular file: checked
    before opening, and again on the file opened (without blocking, should
    a FIFO have replaced it meanwhile)."""
    _refuse_unless_regular(path, os.stat(path).st_mode)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        _refuse_unless_regular(path, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def load(path: Union[str, "os.PathLike[str]"], tuple_sink: Optional[TupleSink] = None,
         check: bool = True) -> Report:
    """Reads and parses the report file at `path`. With tuple_sink, each trms
    and rms record, checked as always, goes to tuple_sink(metric, tuple)
    instead of into the Report (whose trms and rms stay empty): how
    aprof_trms.profile merges a report of millions of records without
    keeping them. With check (the default), a report whose numbers break a
    relation of consistency_problems() raises ReportError too. Only a
    regular file is read, and at most MAX_RECORDS lines of MAX_LINE_BYTES;
    an OSError names the file."""
    path = os.fspath(path)
    try:
        with _open_report(path) as f:
            return _read(f, path, tuple_sink, check)
    except OSError as e:
        if e.filename is None:   # a read() error (EIO of /proc/self/mem)
            raise OSError(e.errno, e.strerror, path) from None
        raise

# ---------------------------------------------------------------------------
# Queries.
# ---------------------------------------------------------------------------

def kernel_writes_warning(mechanisms: Iterable[str]) -> str:
    """The one-line warning the commands show for kernel-writes-unseen
    records ("" if none): the input sizes may be too small."""
    done = [KERNEL_WRITES_UNSEEN[m] for m in _MECHANISMS if m in set(mechanisms)]
    if not done:
        return ""
    return ("input sizes may miss kernel writes made outside system calls: the program "
            + " and ".join(done))


def _object_matches(routine: Routine, obj: Optional[str]) -> bool:
    if obj is None:
        return True
    if "/" in obj:
        return routine.object == obj
    return os.path.basename(routine.object) == obj


def routines_named(report: Report, name: str, obj: Optional[str] = None) -> List[Routine]:
    """Routines whose demangled name is exactly `name`, sorted by id; with `obj`,
    only those in that object (a path, or a basename such as 'libc.so.6')."""
    return sorted((r for r in report.routines.values()
                   if r.name == name and _object_matches(r, obj)), key=lambda r: r.id)


def routine_named(report: Report, name: str, obj: Optional[str] = None) -> Routine:
    """The one routine named `name` (in `obj`); LookupError if none or several."""
    found = routines_named(report, name, obj)
    if len(found) != 1:
        where = f" in {obj}" if obj else ""
        listed = ", ".join(f"{r.object}@{r.address:#x}" for r in found)
        raise LookupError(f"{report.path}: {len(found)} routines named {name!r}{where}"
                          + (f": {listed}" if listed else ""))
    return found[0]


def _routine_id(routine: Union[Routine, int]) -> int:
    return routine.id if isinstance(routine, Routine) else routine


def totals(report: Report, routine: Union[Routine, int]) -> Totals:
    """The routine's totals summed over threads (thread = 0; all zero if none)."""
    rid = _routine_id(routine)
    calls = self_cost = cum = 0
    for (_, r), t in report.totals.items():
        if r == rid:
            calls += t.calls
            self_cost += t.self_cost
            cum += t.cumulative_cost
    return Totals(0, rid, calls, self_cost, cum)


def activations(report: Report, routine: Union[Routine, int]) -> int:
    """Number of activations of the routine, over all threads (from `totals`)."""
    return totals(report, routine).calls


def merge_tuples(a, b):
    """Two tuples (CostTuple or ContextTuple) of the same input size merged:
    thread and routine or context of `a`."""
    return type(a)(a[0], a[1], a.size, a.calls + b.calls,
                     min(a.min_cost, b.min_cost), max(a.max_cost, b.max_cost),
                     a.sum_cost + b.sum_cost, a.sum_sq_cost + b.sum_sq_cost,
                     a.sum_self_cost + b.sum_self_cost,
                     a.sum_thread_induced + b.sum_thread_induced,
                     a.sum_external + b.sum_external)


def tuples(report: Report, metric: str, routine: Union[Routine, int],
           thread: Optional[int] = None) -> Dict[int, CostTuple]:
    """{input size: tuple} of the routine for metric 'trms' or 'rms', merged over
    threads (thread = 0 in the result) unless `thread` selects one."""
    rid = _routine_id(routine)
    out: Dict[int, CostTuple] = {}
    for (th, r, size), t in report.metric(metric).items():
        if r != rid or (thread is not None and th != thread):
            continue
        t = t._replace(thread=0 if thread is None else th)
        out[size] = merge_tuples(out[size], t) if size in out else t
    return out


def callers_and_callees(report: Report, routine: Union[Routine, int],
                        thread: Optional[int] = None) -> Tuple[List[CallEdge], List[CallEdge]]:
    """The call edges into the routine (its callers) and out of it (its
    callees), merged over threads (thread = 0) unless `thread` selects one,
    each list by decreasing inclusive cost. Both are empty for reports
    without call records (format versions 1 and 2)."""
    rid = _routine_id(routine)
    merged: Dict[Tuple[int, int], CallEdge] = {}
    for (th, caller, callee), e in report.calls.items():
        if rid not in (caller, callee) or (thread is not None and th != thread):
            continue
        key = (caller, callee)
        before = merged.get(key)
        merged[key] = CallEdge(0 if thread is None else th, caller, callee,
                               e.calls + (before.calls if before else 0),
                               e.inclusive_cost + (before.inclusive_cost if before else 0))
    order = sorted(merged.values(), key=lambda e: (-e.inclusive_cost, e.caller, e.callee))
    return ([e for e in order if e.callee == rid], [e for e in order if e.caller == rid])


def context_path(report: Report, context: Union[Context, int]) -> List[int]:
    """The routine ids of a context's chain, from its root to itself."""
    ident = context.id if isinstance(context, Context) else context
    path: List[int] = []
    while ident:
        node = report.contexts[ident]
        path.append(node.routine)
        ident = node.parent
    return path[::-1]


def contexts_of(report: Report, routine: Union[Routine, int]) -> List[Context]:
    """The contexts whose routine is `routine`, by id (empty for reports
    without contexts)."""
    rid = _routine_id(routine)
    return [c for c in report.contexts.values() if c.routine == rid]


def context_tuples(report: Report, metric: str, context: Union[Context, int],
                   thread: Optional[int] = None) -> Dict[int, ContextTuple]:
    """{input size: tuple} of a context for metric 'trms' or 'rms', merged
    over threads (thread = 0) unless `thread` selects one."""
    ident = context.id if isinstance(context, Context) else context
    out: Dict[int, ContextTuple] = {}
    for (th, c, size), t in report.context_metric(metric).items():
        if c != ident or (thread is not None and th != thread):
            continue
        t = t._replace(thread=0 if thread is None else th)
        out[size] = merge_tuples(out[size], t) if size in out else t
    return out


def _context_problems(report: Report, routine_tuples: Callable[[str], Dict[Tuple[int, int, int], CostTuple]],
                      bad: Callable[[str], None]) -> None:
    """The contract of docs/report-format.md: per thread, routine and input
    size, the tuples of the routine's contexts add up to its tuple (calls,
    sums; min and max are the min and max)."""
    for metric in METRICS:
        summed: Dict[Tuple[int, int, int], CostTuple] = {}
        for (th, c, size), t in report.context_metric(metric).items():
            key = (th, report.contexts[c].routine, size)
            as_routine = CostTuple(th, key[1], *t[2:])
            summed[key] = merge_tuples(summed[key], as_routine) if key in summed else as_routine
        own = routine_tuples(metric)
        for key in sorted(set(summed) | set(own)):
            th, rid, size = key
            if summed.get(key) != own.get(key):
                bad(f"{metric} tuple (thread {th}, routine {rid}, size {size}) is "
                    f"{own.get(key)}, but its contexts' tuples add up to {summed.get(key)}")


# ---------------------------------------------------------------------------
# Relations every correct report satisfies.
# ---------------------------------------------------------------------------

class _Consistency:
    """The relations of consistency_problems(), checked record by record as
    a report is read (a tuple's own relations when it is read, so that the
    tuples need not be kept) and between records once all are read.
    Problems are (line or None, message)."""

    def __init__(self) -> None:
        self.problems: List[Tuple[Optional[int], str]] = []
        # (metric, thread, routine) -> [calls, self cost, cost, max cost, sum of sizes]
        self.per: Dict[Tuple[str, int, int], List[int]] = {}
        # The sums of the blocks of tuples (add_block), per thread and routine.
        self.per_blocks: List[np.ndarray] = []
        # The tuples, for the contexts' check of a report read into a sink.
        self.kept: Optional[Dict[str, Dict[Tuple[int, int, int], CostTuple]]] = None

    def keep_tuples(self) -> None:
        """Keeps the tuples given to add(): the report's own are not kept
        (a tuple sink) and its contexts need them."""
        self.kept = {m: {} for m in METRICS}

    def bad(self, what: str, line: Optional[int] = None) -> None:
        self.problems.append((line, what))

    def add(self, metric: str, t: CostTuple, line: Optional[int] = None) -> None:
        """One trms or rms tuple (read at `line`). One test for all of its
        relations (this runs for every record of every report read), the
        messages only when one fails."""
        if self.kept is not None:
            self.kept[metric][(t.thread, t.routine, t.size)] = t
        thread, routine, size, calls, min_cost, max_cost, cost, sum_sq, self_cost, induced, \
            external = t
        if not (0 < calls and min_cost <= max_cost and min_cost * calls <= cost <= max_cost * calls
                and min_cost * cost <= sum_sq <= max_cost * cost and self_cost <= cost
                and (induced + external <= size * calls or metric != "trms")):
            self.tuple_problems(metric, t, line)
            if calls < 1:
                return
        key = (metric, thread, routine)
        acc = self.per.get(key)
        if acc is None:
            self.per[key] = [calls, self_cost, cost, max_cost, size * calls]
        else:
            acc[0] += calls
            acc[1] += self_cost
            acc[2] += cost
            if max_cost > acc[3]:
                acc[3] = max_cost
            acc[4] += size * calls

    def block_ok(self, metric: str, rows: "np.ndarray") -> bool:
        """Whether every tuple of a block (rows of int64, fields below
        2^60) keeps the relations add() checks, and its products and sums
        stay exact in int64 (add_block's); False sends the block to add(),
        record by record, which names what a tuple breaks."""
        if self.kept is not None:   # the contexts' check needs the tuples: add() keeps them
            return False
        size, calls, min_cost, max_cost, cost, sum_sq, self_cost, induced, external = rows[:, 2:].T
        wide = rows[:, 2:7].astype(float)   # size, calls, min, max, cost: their products fit?
        if (max((wide[:, 3] * wide[:, 1]).max(), (wide[:, 3] * wide[:, 4]).max(),
                (wide[:, 0] * wide[:, 1]).sum(), wide[:, 4].sum(), wide[:, 1].sum()) >= _EXACT_INT64):
            return False
        ok = ((0 < calls) & (min_cost <= max_cost) & (min_cost * calls <= cost)
              & (cost <= max_cost * calls) & (min_cost * cost <= sum_sq) & (sum_sq <= max_cost * cost)
              & (self_cost <= cost))
        if metric == "trms":
            ok &= induced + external <= size * calls
        return bool(ok.all())

    def add_block(self, metric: str, rows: "np.ndarray") -> None:
        """add() of every tuple of a block that block_ok() accepted: its
        sums per thread and routine are kept as an array (a dict entry per
        thread and routine took 300 bytes), folded in by finish()."""
        thread, routine, size, calls, _, max_cost, cost, _, self_cost = rows[:, :9].T
        starts = np.flatnonzero(np.r_[True, (thread[1:] != thread[:-1]) | (routine[1:] != routine[:-1])])
        sums = np.add.reduceat(np.stack([calls, self_cost, cost, size * calls], axis=1), starts, axis=0)
        highest = np.maximum.reduceat(max_cost, starts)
        self.per_blocks.append(np.column_stack([
            np.full(len(starts), METRICS.index(metric)), rows[starts, :2], sums[:, :3], highest, sums[:, 3]]))

    def _per_rows(self) -> "Optional[np.ndarray]":
        """The sums of per and per_blocks as int64 rows (metric index,
        thread, routine, then per's five values), one per key, sorted; None
        where a sum could pass int64."""
        rows = list(self.per_blocks)
        try:
            rows.append(np.array([(METRICS.index(m), th, rid, *acc) for (m, th, rid), acc in self.per.items()],
                                 dtype=np.int64).reshape(-1, 8))
        except OverflowError:
            return None
        rows = np.concatenate(rows)
        if rows[:, 3:].astype(float).sum(axis=0).max() >= _EXACT_INT64:
            return None
        rows = rows[np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0]))]
        starts = np.flatnonzero(np.r_[True, (rows[1:, :3] != rows[:-1, :3]).any(axis=1)])
        merged = np.add.reduceat(rows, starts, axis=0)
        merged[:, :3] = rows[starts, :3]
        merged[:, 6] = np.maximum.reduceat(rows[:, 6], starts)
        return merged

    def _fold_blocks(self) -> None:
        """The sums of per_blocks into per (for finish()'s checks one by one)."""
        for key_and_sums in np.concatenate(self.per_blocks).tolist() if self.per_blocks else ():
            m, th, rid, *sums = key_and_sums
            acc = self.per.get((METRICS[m], th, rid))
            if acc is None:
                self.per[(METRICS[m], th, rid)] = sums
            else:
                acc[0] += sums[0]
                acc[1] += sums[1]
                acc[2] += sums[2]
                acc[3] = max(acc[3], sums[3])
                acc[4] += sums[4]
        self.per_blocks = []

    def _totals_hold(self, report: "Report") -> bool:
        """Whether finish()'s relations between the totals, the tuples'
        sums and the threads all hold, computed on arrays (a large report
        has hundreds of thousands of totals); False when one does not, or
        a number passes int64 (then finish() checks them one by one)."""
        per = self._per_rows()
        if per is None:
            return False
        try:
            totals = np.array(list(report.totals.values()), dtype=np.int64).reshape(-1, 5)
            serials = np.array(sorted(report.threads), dtype=np.int64)
            thread_totals = np.array([report.threads[t].total_cost for t in serials.tolist()], dtype=np.int64)
        except OverflowError:
            return False
        totals = totals[np.lexsort((totals[:, 1], totals[:, 0]))]
        thread, calls, self_cost, cumulative = totals[:, 0], totals[:, 2], totals[:, 3], totals[:, 4]
        limit = thread_totals[np.searchsorted(serials, thread)]
        if not ((calls >= 1) & (cumulative <= limit) & (self_cost <= cumulative)).all():
            return False
        by_metric = [per[per[:, 0] == i] for i in range(len(METRICS))]
        for rows in by_metric:
            if rows.shape[0] != totals.shape[0] or (rows[:, 1:3] != totals[:, :2]).any():
                return False   # a total without tuples of the metric, or the reverse
            n, self_sum, cost_sum, highest = rows[:, 3], rows[:, 4], rows[:, 5], rows[:, 6]
            if not ((n == calls) & (self_sum == self_cost) & (highest <= cumulative)
                    & (cumulative <= cost_sum)).all():
                return False
        if (by_metric[METRICS.index("rms")][:, 7] > by_metric[METRICS.index("trms")][:, 7]).any():
            return False
        used = np.unique(thread)
        self_sums = np.bincount(np.searchsorted(serials, thread), weights=self_cost.astype(float),
                                minlength=len(serials))
        if (self_sums >= _EXACT_INT64).any():
            return False
        exact = np.zeros(len(serials), dtype=np.int64)
        np.add.at(exact, np.searchsorted(serials, thread), self_cost)
        return bool((exact <= thread_totals).all()
                    and (thread_totals[np.searchsorted(serials, used)] != 0).all())

    def finish(self, report: Report, totals_lines: Optional[Dict[Tuple[int, int], int]] = None) -> None:
        """The relations between the records of `report`, whose tuples were
        given to add(); totals_lines: the line of each totals record."""
        if self.per_blocks and self._totals_hold(report):
            self.calls_and_routines(report)
            return
        self._fold_blocks()
        self._check_totals(report, totals_lines)
        self.calls_and_routines(report)

    def _check_totals(self, report: Report, totals_lines: Optional[Dict[Tuple[int, int], int]]) -> None:
        """finish()'s relations of the totals, one by one, each named."""
        lines = totals_lines or {}
        per = self.per
        self_per_thread: Dict[int, int] = {}
        for (th, rid), tot in report.totals.items():
            line = lines.get((th, rid))

            def bad(what: str) -> None:
                self.bad(f"totals (thread {th}, routine {rid}): {what}", line)

            if tot.calls < 1:
                bad("calls = 0")
            self_per_thread[th] = self_per_thread.get(th, 0) + tot.self_cost
            if tot.cumulative_cost > report.threads[th].total_cost:
                bad(f"cumulative cost {tot.cumulative_cost} > thread total cost "
                    f"{report.threads[th].total_cost}")
            if tot.self_cost > tot.cumulative_cost:
                bad(f"self cost {tot.self_cost} > cumulative cost {tot.cumulative_cost}")
            for metric in METRICS:
                acc = per.get((metric, th, rid))
                if acc is None:
                    bad(f"no {metric} tuples")
                    continue
                calls, self_sum, cost_sum, max_cost, _ = acc
                if calls != tot.calls:
                    bad(f"{tot.calls} calls, but its {metric} tuples have {calls}")
                if self_sum != tot.self_cost:
                    bad(f"self cost {tot.self_cost}, but its {metric} tuples sum to {self_sum}")
                if not max_cost <= tot.cumulative_cost <= cost_sum:
                    bad(f"cumulative cost {tot.cumulative_cost} not within "
                        f"[max activation cost {max_cost}, sum of activation costs {cost_sum}]")
            rms_acc, trms_acc = per.get(("rms", th, rid)), per.get(("trms", th, rid))
            if rms_acc and trms_acc and rms_acc[4] > trms_acc[4]:
                bad(f"sum of RMS values {rms_acc[4]} > sum of TRMS values {trms_acc[4]}")
        for metric, th, rid in per:
            if (th, rid) not in report.totals:
                self.bad(f"{metric} tuples of thread {th}, routine {rid} without a 'totals' record")
        for th, s in self_per_thread.items():
            if s > report.threads[th].total_cost:
                self.bad(f"thread {th}: self costs sum to {s} > thread total cost "
                         f"{report.threads[th].total_cost}")
            if report.threads[th].total_cost == 0:
                self.bad(f"thread {th}: total cost 0, but it has activations")

    def tuple_problems(self, metric: str, t: CostTuple, line: Optional[int]) -> None:
        """The relations a tuple breaks, each named."""
        where = f"{metric} tuple (thread {t.thread}, routine {t.routine}, size {t.size})"
        if t.calls < 1:
            self.bad(f"{where}: calls = 0", line)
            return
        if not t.min_cost <= t.max_cost:
            self.bad(f"{where}: min cost {t.min_cost} > max cost {t.max_cost}", line)
        if not t.min_cost * t.calls <= t.sum_cost <= t.max_cost * t.calls:
            self.bad(f"{where}: sum cost {t.sum_cost} not within calls*[min, max]", line)
        if not t.min_cost * t.sum_cost <= t.sum_sq_cost <= t.max_cost * t.sum_cost:
            self.bad(f"{where}: sum of squares {t.sum_sq_cost} not within [min*sum, max*sum]", line)
        if t.sum_self_cost > t.sum_cost:
            self.bad(f"{where}: sum self cost {t.sum_self_cost} > sum cost {t.sum_cost}", line)
        if metric == "trms" and t.sum_thread_induced + t.sum_external > t.size * t.calls:
            self.bad(f"{where}: induced reads {t.sum_thread_induced} + {t.sum_external} "
                     f"exceed the sum of TRMS values {t.size * t.calls}", line)

    def calls_and_routines(self, report: Report) -> None:
        """Call edges within activations, contexts adding up, every routine
        used."""
        calls_into: Dict[Tuple[int, int], int] = {}
        for (th, caller, callee), e in report.calls.items():
            if e.calls < 1:
                self.bad(f"call edge (thread {th}, {caller} -> {callee}): calls = 0")
            calls_into[(th, callee)] = calls_into.get((th, callee), 0) + e.calls
        for (th, callee), n in calls_into.items():
            recorded = report.totals.get((th, callee))
            if n > (recorded.calls if recorded else 0):
                self.bad(f"thread {th}, routine {callee}: its call edges count {n} calls, more than "
                         f"its {recorded.calls if recorded else 0} activations")
        if report.header.context_depth is not None:
            _context_problems(report, lambda m: report.metric(m) if self.kept is None else self.kept[m],
                              self.bad)
        with_totals = {rid for (_, rid) in report.totals}
        with_totals.update(s.routine for s in report.thread_sources.values())
        with_totals.update(s.producer_routine for s in report.thread_sources.values())
        with_totals.update(s.routine for s in report.kernel_sources.values())
        with_totals.update(c.routine for c in report.contexts.values())  # a node's routine
        callers = {caller for (_, caller, _) in report.calls}
        for rid in report.routines:
            if rid not in with_totals and rid not in callers:
                self.bad(f"routine {rid} ({_quoted(report.routines[rid].name)}) has no activation")


def consistency_problems(report: Report) -> List[str]:
    """Violations of the relations between the numbers of a report (empty list
    if none): per tuple calls >= 1, min <= max, min*calls <= sum <= max*calls,
    min*sum <= sum of squares <= max*sum, self cost <= cost, induced reads
    within the TRMS; per thread and routine, the tuples of both metrics cover
    the same activations as `totals` (calls, self cost), each activation's
    RMS <= TRMS (in sum), the cumulative cost of outermost activations is
    between the largest activation and the sum of all of them and within the
    thread's total cost, which is not 0; every routine has activations (or is
    named by input sources or a context node); the call edges into a routine
    count at most its activations in that thread; the tuples of a routine's
    calling contexts add up to its own. load() checks them all on every
    report it reads."""
    check = _Consistency()
    for metric in METRICS:
        for t in report.metric(metric).values():
            check.add(metric, t)
    check.finish(report)
    return [f"{report.path}: {what}" for _, what in check.problems]
