# SPDX-License-Identifier: GPL-2.0-or-later
# Which routines a command shows: the one selection interface of plot,
# charts, rank and the views built on them (filters by object and name, the
# default choice of routines worth looking at, share floor, limit).
#
# Copyright (C) 2026, the aprof-trms authors.
"""Routine selection, shared by every command that shows routines.

    parser = cli.argument_parser(...)
    select.add_selection_arguments(parser, top=5, min_share=1.0)
    args = parser.parse_args(argv)
    selection = select.select_routines(profile, args)
    for routine in selection.routines: ...
    print(selection.account(), file=sys.stderr)   # what was left out, and how to see it

Options added by add_selection_arguments(parser, top=None, min_share=1.0,
default_choice=True, limit=True):

  -r/--routine NAME   (repeatable) the routines NAME names: a qualified name
                      as written in code, return type and parameters left
                      out, template arguments optional, trailing components
                      enough (`std::sort`, `std::vector<int>::push_back`,
                      `push_back`; names.names_routine); a NAME with * ? [
                      is a shell pattern over the qualified, full or mangled
                      name (`'std::__introsort*'`); a NAME that names no
                      routine so selects those whose qualified name contains
                      it (`introsort`). Each must select at least one routine.
  -e/--regex RE       (repeatable) routines whose demangled name matches the
                      Python regular expression RE (re.search)
  --object PAT        (repeatable) only routines of objects whose file name
                      or path matches PAT (shell pattern, or substring)
  --exclude-object PAT  (repeatable) no routine of such objects
  --hide-libc         no routine of the dynamic loader or the C library
                      (ld-linux*.so*, ld.so*, libc.so*, libc-*.so)
  --all               no default choice: every routine left by the filters
  --min-share PCT     routines below PCT% of the total cost left out
  -n/--top N          at most N routines (limit=True only)
  --short-names       C++ names shown without return type, template
                      arguments and parameters: label(name, args.short_names)

The default choice (default_choice=True, no -r/-e, no --all) keeps the
routines a user needs to look at:
  - that can be fitted: at least fit.MIN_DISTINCT_SIZES distinct input sizes
    by TRMS or by RMS (a routine called once, like main, has one point);
  - that carry a real share of the cost: at least --min-share (the command's
    default) of the total cost;
  - that are not entry wrappers of the C runtime (ENTRY_WRAPPERS: _start,
    __libc_start_main, start_thread, ...): their cost is the whole program's
    or a whole thread's, and their "input" is everything it reads; nor Go's
    runtime entry and goroutine switching code (runtime.main, runtime.gogo,
    runtime.mcall, runtime.gopark, ...), whose cost holds other goroutines'.
Naming routines (-r, -e) or --all turns the default choice off; --min-share
then applies only when given. Object filters always apply. The chosen
routines come largest cumulative (inclusive) cost first, unless the caller
gives an order, then --top cuts the list.

select_routines() raises errors.UserError when a -r NAME selects nothing or an
-e RE is not a regular expression, with close names as a hint.
"""
import argparse
import dataclasses
import difflib
import fnmatch
import os
import re
from typing import Callable, List, Optional, Sequence

from . import elf, names
from .errors import UserError

__all__ = ["ENTRY_WRAPPERS", "GARBAGE_COLLECTORS", "GO_STACK_GROWTH", "LIBC_OBJECTS", "LOADER_OBJECTS", "MIN_DISTINCT_SIZES", "Selection", "examples",
           "add_selection_arguments", "select_routines", "label", "is_garbage_collector",
           "runtime_work"]

# The fitter's own minimum (fit.MIN_DISTINCT_SIZES); not imported from fit,
# which needs numpy and scipy, so that commands check their arguments fast.
MIN_DISTINCT_SIZES = 5

# Program and thread entry points of glibc and its loader, and Go's.
ENTRY_WRAPPERS = frozenset({
    "_start", "_dl_start", "_dl_start_final", "_dl_start_user", "_dl_sysdep_start",
    "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
    "start_thread", "clone", "clone3", "__clone", "__clone3", "__clone_internal",
    "_dl_init", "call_init", "_init", "_fini", "__libc_csu_init",
}) | frozenset(
    # Go's runtime: the program's and the threads' entry, and the scheduler
    # code that switches between goroutines. The tool nests a resumed
    # goroutine's frames in the scheduler frames that resumed it, so their
    # cost holds other goroutines' work (docs/design.md, "Goroutines").
    # Assembly routines called from Go carry the suffix .abi0 (Go 1.17+).
    name + suffix
    for name in ("runtime.rt0_go", "runtime.main", "runtime.clone", "runtime.mstart",
                 "runtime.mstart0",
                 "runtime.mstart1", "runtime.schedule", "runtime.findrunnable",
                 "runtime.findRunnable", "runtime.execute", "runtime.gogo", "gogo",
                 "runtime.mcall", "runtime.systemstack", "runtime.morestack",
                 "runtime.morestack_noctxt", "runtime.newstack", "runtime.gopark",
                 "runtime.goparkunlock", "runtime.park_m", "runtime.Gosched", "runtime.gosched_m",
                 "runtime.goschedImpl", "runtime.gopreempt_m", "runtime.preemptPark",
                 "runtime.asyncPreempt", "runtime.asyncPreempt2", "runtime.goexit",
                 "runtime.goexit0", "runtime.goexit1", "runtime.exitsyscall0")
    for suffix in ("", ".abi0"))
# The garbage collectors of language runtimes (is_garbage_collector): work
# the runtime does on its own schedule, in its own worker goroutines or
# threads or inside an allocation, over the whole heap; its cost grows with
# what the program keeps allocated, not with an algorithm of the program
# (docs/analysis.md, "rank.py"). Go's runtime (named from .gopclntab),
# CPython's cyclic collector, CRuby's, Lua's and PHP's cycle collector;
# the allocators themselves (malloc, Go's mallocgc) are not here: the
# program calls them, each call for what it asks.
GARBAGE_COLLECTORS = (
    "runtime.gc*", "runtime.scan*", "runtime.markroot*", "runtime.greyobject", "runtime.shade",
    "runtime.findObject", "runtime.wbBuf*", "runtime.bulkBarrier*", "runtime.bgsweep",
    "runtime.sweepone", "runtime.bgscavenge", "runtime.(*gcWork).*",
    "runtime.(*gcControllerState).*", "runtime.(*wbBuf).*", "runtime.(*mspan).sweep",
    "runtime.(*sweepLocked).sweep", "runtime.(*scavengerState).*",
    "gc_collect_main", "PyGC_Collect", "_PyGC_CollectNoFail",
    "rb_gc", "rb_gc_start", "rb_gc_mark*", "garbage_collect", "gc_marks*", "gc_mark_*", "gc_sweep*",
    "luaC_step", "luaC_fullgc", "zend_gc_collect_cycles",
)
# Go's goroutine stack growth (is_stack_growth): a goroutine that outgrows
# its stack is copied to one twice the size (runtime.newstack, an entry
# wrapper above, calls copystack), every frame's pointers adjusted as the
# traceback machinery walks the frames; its cost grows with the stack the
# program's recursion makes, not with an algorithm of the program.
GO_STACK_GROWTH = (
    "runtime.copystack", "runtime.gentraceback", "runtime.(*unwinder).*", "runtime.adjustframe",
    "runtime.adjustpointers", "runtime.adjustpointer", "runtime.adjustctxt",
    "runtime.adjustdefers", "runtime.adjustpanics", "runtime.adjustsudogs",
    "runtime.getStackMap", "runtime.pcvalue", "runtime.findfunc", "runtime.funcspdelta",
    "runtime.step", "runtime.readvarint", "runtime.stackalloc", "runtime.stackfree",
)
# The dynamic loader (runtime_work): it maps and relocates the libraries
# and resolves their symbols, before main and at a PLT slot's first call;
# its cost grows with the libraries and symbols the program loads.
LOADER_OBJECTS = ("ld-linux*.so*", "ld.so*", "ld-*.so")
LIBC_OBJECTS = LOADER_OBJECTS + ("libc.so*", "libc-*.so")
_GLOB_CHARS = re.compile(r"[*?\[]")


def add_selection_arguments(parser: argparse.ArgumentParser, top: Optional[int] = None,
                            min_share: float = 1.0, default_choice: bool = True,
                            limit: bool = True) -> None:
    """Adds the selection options (module docstring) as an argument group.
    `top` and `min_share` are the command's defaults; default_choice=False
    (charts: every routine counts) leaves out --all and the default choice;
    limit=False leaves out --top (a command with its own meaning for it)."""
    g = parser.add_argument_group(
        "routine selection",
        ("default: routines with at least %d distinct input sizes and %g%% of the cost, "
         "not runtime entry wrappers%s" % (MIN_DISTINCT_SIZES, min_share,
                                           f", the top {top}" if top else ""))
        if default_choice else "default: every routine")
    g.add_argument("-r", "--routine", action="append", default=[], metavar="NAME",
                   help="routines NAME names: 'std::sort', 'std::vector<int>::push_back', "
                        "'push_back' (return type, parameters and template arguments may be "
                        "left out), a shell pattern ('std::__introsort*'), or else a part of "
                        "the name ('introsort'); repeatable")
    g.add_argument("-e", "--regex", action="append", default=[], metavar="RE",
                   help="routines whose demangled name matches the regular expression RE; "
                        "repeatable")
    g.add_argument("--object", action="append", default=[], metavar="PAT",
                   help="only routines of objects whose file name or path matches PAT "
                        "(shell pattern or substring: 'libz*', 'sqlite'); repeatable")
    g.add_argument("--exclude-object", action="append", default=[], metavar="PAT",
                   help="no routine of objects matching PAT; repeatable")
    g.add_argument("--hide-libc", action="store_true",
                   help="no routine of the dynamic loader or the C library")
    if default_choice:
        g.add_argument("--all", action="store_true",
                       help="every routine the filters leave (no default choice)")
    g.add_argument("--min-share", type=_percentage, default=None, metavar="PCT",
                   help="leave out routines below PCT%% of the total cost"
                        + (f" (default {min_share:g} unless routines are named or --all)"
                           if default_choice else ""))
    g.add_argument("--short-names", action="store_true",
                   help="show C++ names without return type, template arguments and "
                        "parameters (std::vector<…>::push_back(…))")
    if limit:
        g.add_argument("-n", "--top", type=_positive, default=top, metavar="N",
                       help="at most N routines" + (f" (default {top})" if top else ""))
    parser.set_defaults(_selection_defaults=(default_choice, min_share, limit))


def _percentage(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 100.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 100: {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def label(name: str, short: bool) -> str:
    """How a command shows a routine's name: as demangled, or with
    --short-names its qualified name with template arguments and parameters
    reduced to <…> and (…) (names.plain_name)."""
    return names.printable(names.plain_name(name) if short else name)


@dataclasses.dataclass
class Selection:
    """The chosen routines, in order, and what was left out."""
    routines: list                       # of profile.RoutineProfile
    considered: int                      # routines in the profile
    left_out: List[str]                  # "12 with fewer than 5 distinct sizes (e.g. main)"
    hints: List[str]                     # how to see them

    def account(self) -> str:
        """One paragraph: 'chose 5 of 812 routines; left out: ...; ...'."""
        text = f"chose {len(self.routines)} of {self.considered} routines"
        if self.left_out:
            text += "; left out: " + "; ".join(self.left_out)
        if self.hints:
            text += ". " + "; ".join(self.hints)
        return text + "."


def _object_matches(pattern: str, path: str) -> bool:
    base = os.path.basename(path)
    if _GLOB_CHARS.search(pattern):
        return fnmatch.fnmatchcase(base, pattern) or fnmatch.fnmatchcase(path, pattern)
    return pattern in base or pattern in path


def _named_by(pattern: str, routines: Sequence) -> list:
    """The routines a -r NAME selects (module docstring)."""
    if _GLOB_CHARS.search(pattern):
        return [r for r in routines
                if any(fnmatch.fnmatchcase(s, pattern)
                       for s in (names.qualified_name(r.name), r.name, r.mangled))]
    named = [r for r in routines
             if r.name == pattern or r.mangled == pattern or names.names_routine(pattern, r.name)]
    return named or [r for r in routines if pattern in names.qualified_name(r.name)]


def _no_match(what: str, routines: Sequence) -> UserError:
    qualified = sorted({names.qualified_name(r.name) for r in routines})
    close = difflib.get_close_matches(what, qualified, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return UserError(f"no routine matches {what!r} (the profile has {len(routines)} routines){hint}")


def examples(routines: Sequence, count: int = 3) -> str:
    shown = [names.short_name(r.name, 32) for r in routines[:count]]
    return f" (e.g. {', '.join(shown)}{', ...' if len(routines) > count else ''})" if shown else ""


# Any entry wrapper's name as a substring: qualified_name() returns a part of
# the name, so a name without one is no wrapper, and most names are decided
# without parsing them (a program has up to hundreds of thousands).
_WRAPPER_PART = re.compile("|".join(sorted(map(re.escape, ENTRY_WRAPPERS))))


# A routine entered in the middle of a function is named "function+N"
# (docs/report-format.md): a thread's first block, inside the routine that
# made the thread (Go's runtime.clone: the new thread goes on after the
# system call), carries the whole thread as the wrapper itself does.
_OFFSET_SUFFIX = re.compile(r"\+\d+$")


def is_entry_wrapper(routine) -> bool:
    """A runtime entry wrapper by name (or entered in its middle), or an
    unnamed ELF entry point (a stripped program's _start, the loader's own
    entry)."""
    name = _OFFSET_SUFFIX.sub("", routine.name)
    return ((bool(_WRAPPER_PART.search(name)) and names.qualified_name(name) in ENTRY_WRAPPERS)
            or (name.startswith("0x") and elf.is_entry_point(name, routine.object)))


_COLLECTOR = re.compile("|".join(fnmatch.translate(p) for p in GARBAGE_COLLECTORS))


_STACK_GROWTH = re.compile("|".join(fnmatch.translate(p) for p in GO_STACK_GROWTH))


def runtime_work(routine) -> str:
    """What of the runtime's own work the routine is, as a phrase for
    rank.py's reason ("" when none): a language runtime's collector
    (GARBAGE_COLLECTORS), Go's stack growth (GO_STACK_GROWTH) or the
    dynamic loader (LOADER_OBJECTS)."""
    if is_garbage_collector(routine):
        return "the language runtime's garbage collector: its work grows with the heap the " \
               "program allocates"
    if _STACK_GROWTH.match(routine.name):
        return "Go's stack growth: its work grows with the goroutine stacks the program's " \
               "calls make"
    if any(fnmatch.fnmatchcase(os.path.basename(routine.object), p) for p in LOADER_OBJECTS):
        return "the dynamic loader: its work grows with the libraries and symbols the program " \
               "loads"
    return ""


def is_garbage_collector(routine) -> bool:
    """A routine of a language runtime's garbage collector, by its name
    (GARBAGE_COLLECTORS; Go's assembly routines of it, with the suffix
    .abi0, are runtime.gcWriteBarrier*)."""
    return bool(_COLLECTOR.match(routine.name))


def _fittable(routine) -> bool:
    return max(len(routine.trms), len(routine.rms)) >= MIN_DISTINCT_SIZES


def select_routines(profile, args: argparse.Namespace, order: Optional[Callable] = None,
                    apply_limit: bool = True) -> Selection:
    """The routines the options of add_selection_arguments choose, ordered
    by `order` (a sort key of a RoutineProfile; default: largest cumulative
    cost first), with the account of what was left out. A command that
    orders routines only after computing something (rank: fits) passes
    apply_limit=False and cuts its own list at args.top."""
    default_choice, default_floor, limit = args._selection_defaults
    everything = sorted(profile.routines.values(), key=order or (lambda r: (-r.cumulative_cost, r.name)))
    left_out: List[str] = []
    hints: List[str] = []

    def drop(kept: list, removed: list, why: str, hint: str = "") -> list:
        if removed:
            left_out.append(f"{len(removed)} {why}{examples(removed)}")
            if hint and hint not in hints:
                hints.append(hint)
        return kept

    def split(routines: list, keep: Callable) -> tuple:
        kept: list = []
        removed: list = []
        for r in routines:   # keep() once per routine: it may parse the name
            (kept if keep(r) else removed).append(r)
        return kept, removed

    chosen = everything
    named = bool(args.routine or args.regex)
    if named:
        picked = set()
        for pattern in args.routine:
            found = _named_by(pattern, everything)
            if not found:
                raise _no_match(pattern, everything)
            picked.update(r.key for r in found)
        for text in args.regex:
            try:
                regex = re.compile(text)
            except re.error as e:
                raise UserError(f"--regex {text!r} is not a regular expression: {e}") from None
            found = [r for r in everything if regex.search(r.name)]
            if not found:
                raise _no_match(text, everything)
            picked.update(r.key for r in found)
        chosen = [r for r in everything if r.key in picked]

    excluded = list(args.exclude_object) + (list(LIBC_OBJECTS) if args.hide_libc else [])
    if args.object:
        chosen = drop(*split(chosen, lambda r: any(_object_matches(p, r.object) for p in args.object)),
                      f"in other objects than {', '.join(args.object)}")
    if excluded:
        chosen = drop(*split(chosen, lambda r: not any(_object_matches(p, r.object)
                                                       for p in excluded)),
                      "in excluded objects")

    automatic = default_choice and not named and not getattr(args, "all", False)
    floor = args.min_share if args.min_share is not None else (default_floor if automatic else None)
    if automatic:
        chosen = drop(*split(chosen, lambda r: not is_entry_wrapper(r)),
                      "runtime entry wrappers", "--all shows every routine")
        chosen = drop(*split(chosen, _fittable),
                      f"with fewer than {MIN_DISTINCT_SIZES} distinct input sizes (nothing to fit)",
                      "--all shows every routine")
    if floor:
        total = profile.total_cost or 1
        chosen = drop(*split(chosen, lambda r: 100.0 * r.cumulative_cost / total >= floor),
                      f"below {floor:g}% of the cost", "--min-share 0 lowers the floor")
    top = args.top if limit and apply_limit else None
    if top is not None and len(chosen) > top:
        chosen = drop(chosen[:top], chosen[top:], f"beyond --top {top}", "--top N shows more")
    return Selection(chosen, len(profile.routines), left_out, hints)
