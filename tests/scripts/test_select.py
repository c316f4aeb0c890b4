# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the routine selection shared by the analysis commands
# (scripts/aprof_trms/select.py) and of the C++ name handling it matches
# names with (scripts/aprof_trms/names.py).
#
# Copyright (C) 2026, the aprof-trms authors.
"""Selection on synthetic profiles whose right answer is known: the default
choice skips single-activation entry wrappers, routines with nothing to fit
and routines with a negligible share, and says so; name, regex and object
filters select what a user means."""
import argparse
import os

import types

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
from aprof_trms import cli, fit, names, select  # noqa: E402
from aprof_trms import profile as aprof_profile  # noqa: E402
import synthetic  # noqa: E402

INTROSORT = ("void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<int, "
             "std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_less_iter>(__gnu_cxx::"
             "__normal_iterator<int*, std::vector<int, std::allocator<int> > >, __gnu_cxx::"
             "__normal_iterator<int*, std::vector<int, std::allocator<int> > >, long, "
             "__gnu_cxx::__ops::_Iter_less_iter)")
SORT = ("void std::sort<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> "
        "> > >(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
        "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >)")
PUSH_INT = "std::vector<int, std::allocator<int> >::push_back(int const&)"
PUSH_DOUBLE = "std::vector<double, std::allocator<double> >::push_back(double const&)"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
LDSO = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"


def profile_of(tmp_path, routines):
    return aprof_profile.load_profile([synthetic.write_report(tmp_path / "aprof-trms.out.1",
                                                              routines)])


def program(tmp_path):
    """A program like the ones of issue 10: entry wrappers called once carry
    the largest cumulative cost; the work is in routines with many sizes."""
    many = synthetic.sizes(12)
    return profile_of(tmp_path, [
        synthetic.Routine("_start", lambda n: 4e5, [5000], object=LDSO),
        synthetic.Routine("__libc_start_main", lambda n: 4e5, [5000], object=LIBC),
        synthetic.Routine("main", lambda n: 4e5, [5000]),
        synthetic.Routine("start_thread", lambda n: 5e4, synthetic.sizes(6), object=LIBC),
        synthetic.Routine(INTROSORT, synthetic.COSTS["n log n"], many, calls=40),
        synthetic.Routine(SORT, synthetic.COSTS["n log n"], many, calls=40),
        synthetic.Routine(PUSH_INT, synthetic.COSTS["1"], many, calls=30),
        synthetic.Routine(PUSH_DOUBLE, synthetic.COSTS["1"], many, calls=2),
        synthetic.Routine("memcpy", synthetic.COSTS["n"], many, calls=20, object=LIBC),
        synthetic.Routine("_dl_lookup_symbol_x", synthetic.COSTS["n"], many, object=LDSO),
        synthetic.Routine("tiny", synthetic.COSTS["n"], many[:6]),
    ])


def parse(argv, **defaults):
    parser = argparse.ArgumentParser()
    select.add_selection_arguments(parser, **defaults)
    return parser.parse_args(argv)


def chosen(profile, argv, **defaults):
    return [r.name for r in select.select_routines(profile, parse(argv, **defaults)).routines]


def test_qualified_names():
    assert names.qualified_name(INTROSORT).startswith("std::__introsort_loop<")
    assert names.qualified_name(INTROSORT).endswith("_Iter_less_iter>")
    assert names.qualified_name(PUSH_INT) == "std::vector<int, std::allocator<int> >::push_back"
    assert names.qualified_name("operator new(unsigned long)") == "operator new"
    # A return type of several words (a template function's) is left out whole.
    assert names.qualified_name("unsigned long ns::f<int>(int)") == "ns::f<int>"
    assert names.qualified_name("std::vector<int, std::allocator<int> > const& ns::Table::rows() "
                                "const") == "ns::Table::rows"
    assert names.qualified_name("A::operator unsigned long() const") == "A::operator unsigned long"
    assert names.qualified_name("f()::{lambda(int)#1}::operator()(int) const") == \
        "f()::{lambda(int)#1}::operator()"
    assert names.qualified_name("(anonymous namespace)::g(int)") == "(anonymous namespace)::g"
    assert names.qualified_name("h(int) [clone .cold]") == "h"
    assert names.qualified_name("sqlite3_step") == "sqlite3_step"
    assert names.qualified_name("__libc_start_main@@GLIBC_2.34") == "__libc_start_main"
    assert names.qualified_name("0x18e00@/usr/bin/grep") == "0x18e00@/usr/bin/grep"


def test_names_routine_like_a_breakpoint():
    assert names.names_routine("std::__introsort_loop", INTROSORT)
    assert names.names_routine("__introsort_loop", INTROSORT)
    assert not names.names_routine("introsort", INTROSORT)           # a part: the fallback's job
    assert names.names_routine("std::sort", SORT)
    assert not names.names_routine("std::sort", INTROSORT)
    assert names.names_routine("push_back", PUSH_INT)
    assert names.names_routine("std::vector<int>::push_back", PUSH_INT)
    assert names.names_routine("vector<int,std::allocator<int>>::push_back(int const&)", PUSH_INT)
    assert not names.names_routine("std::vector<int>::push_back", PUSH_DOUBLE)
    assert not names.names_routine("list::push_back", PUSH_INT)
    assert names.names_routine("operator()", "f()::{lambda(int)#1}::operator()(int) const")
    assert not names.names_routine("main", "__libc_start_main")
    assert names.names_routine("ns::f", "unsigned long ns::f<int>(int)")


def test_plain_and_short_names():
    assert names.plain_name(INTROSORT) == "std::__introsort_loop<…>(…)"
    assert names.plain_name(PUSH_INT) == "std::vector<…>::push_back(…)"
    assert names.plain_name("sqlite3_step") == "sqlite3_step"
    assert names.file_stem(SORT) == "std_sort"      # no return type in file names


def test_default_choice_skips_wrappers_unfittable_and_negligible(tmp_path):
    prof = program(tmp_path)
    args = parse([], min_share=1.0)
    sel = select.select_routines(prof, args)
    got = [r.name for r in sel.routines]
    assert "main" not in got and "_start" not in got and "__libc_start_main" not in got
    assert "start_thread" not in got                       # fittable, but an entry wrapper
    assert {INTROSORT, SORT, PUSH_INT, "memcpy"} <= set(got)
    costs = [r.cumulative_cost for r in sel.routines]
    assert costs == sorted(costs, reverse=True)
    assert "tiny" not in got and "_dl_lookup_symbol_x" not in got   # under 1% of the cost
    text = sel.account()
    assert f"fewer than {fit.MIN_DISTINCT_SIZES} distinct input sizes" in text
    assert "e.g. " in text and "main" in text
    assert "entry wrappers" in text and "start_thread" in text
    assert "below 1% of the cost" in text and "--min-share 0" in text
    assert "--all shows every routine" in text
    assert text.startswith(f"chose {len(got)} of {len(prof.routines)} routines")


def test_default_choice_skips_go_scheduler(tmp_path):
    """Go's goroutine switching code carries other goroutines' cost (the
    tool nests a resumed goroutine in the scheduler frames that resumed it):
    never chosen by default, as the C runtime's entry wrappers."""
    many = synthetic.sizes(12)
    switches = ("runtime.gogo.abi0", "gogo", "runtime.mcall", "runtime.gopark",
                "runtime.schedule", "runtime.asyncPreempt2", "runtime.morestack.abi0")
    prof = profile_of(tmp_path, [synthetic.Routine(name, synthetic.COSTS["n^2"], many, calls=30)
                                 for name in switches]
                      + [synthetic.Routine("main.insertionSort", synthetic.COSTS["n^2"], many,
                                           calls=30),
                         synthetic.Routine("runtime.mallocgc", synthetic.COSTS["n^2"], many,
                                           calls=30)])
    assert sorted(chosen(prof, [])) == ["main.insertionSort", "runtime.mallocgc"]
    assert "runtime.gogo.abi0" in chosen(prof, ["--all"])


def test_top_and_all(tmp_path):
    prof = program(tmp_path)
    assert len(chosen(prof, ["--top", "2"])) == 2
    sel = select.select_routines(prof, parse([], top=2))
    assert "beyond --top 2" in sel.account()
    every = chosen(prof, ["--all"])
    assert len(every) == len(prof.routines)
    costs = [prof.find(n)[0].cumulative_cost for n in every]
    assert costs == sorted(costs, reverse=True)                  # largest cost first
    assert "tiny" in chosen(prof, ["--min-share", "0"])


def test_names_turn_the_default_choice_off(tmp_path):
    prof = program(tmp_path)
    assert chosen(prof, ["-r", "main"]) == ["main"]               # not __libc_start_main
    assert chosen(prof, ["-r", "std::sort"]) == [SORT]
    assert chosen(prof, ["-r", "introsort"]) == [INTROSORT]       # a part of the name
    assert chosen(prof, ["-r", "std::__introsort*"]) == [INTROSORT]
    assert chosen(prof, ["-r", "std::vector<int>::push_back"]) == [PUSH_INT]
    assert sorted(chosen(prof, ["-r", "push_back"])) == sorted([PUSH_INT, PUSH_DOUBLE])
    assert chosen(prof, ["-e", r"^void std::sort<"]) == [SORT]
    assert set(chosen(prof, ["-r", "main", "-e", "^memc"])) == {"main", "memcpy"}


def test_object_filters(tmp_path):
    prof = program(tmp_path)
    hidden = chosen(prof, ["--all", "--hide-libc"])
    assert not any(n in hidden for n in ("_start", "memcpy", "_dl_lookup_symbol_x",
                                         "__libc_start_main", "start_thread"))
    assert "main" in hidden
    assert set(chosen(prof, ["--all", "--object", "libc.so*"])) == \
        {"__libc_start_main", "start_thread", "memcpy"}
    assert set(chosen(prof, ["--all", "--object", "ld-linux"])) == {"_start", "_dl_lookup_symbol_x"}
    assert "memcpy" not in chosen(prof, ["--all", "--exclude-object", "libc"])
    sel = select.select_routines(prof, parse(["--all", "--hide-libc"]))
    assert "in excluded objects" in sel.account()


def test_errors(tmp_path):
    prof = program(tmp_path)
    with pytest.raises(cli.UserError, match="no routine matches 'mian'.*did you mean 'main'"):
        chosen(prof, ["-r", "mian"])
    with pytest.raises(cli.UserError, match="not a regular expression"):
        chosen(prof, ["-e", "("])
    parser = argparse.ArgumentParser()
    select.add_selection_arguments(parser)
    for bad in (["--top", "0"], ["--min-share", "-1"], ["--min-share", "x"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)


def test_filters_only_mode(tmp_path):
    """charts: every routine by default, the filters still apply, its own --top."""
    prof = program(tmp_path)
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=1)
    select.add_selection_arguments(parser, default_choice=False, limit=False)
    args = parser.parse_args([])
    assert len(select.select_routines(prof, args).routines) == len(prof.routines)
    args = parser.parse_args(["--hide-libc"])
    assert len(select.select_routines(prof, args).routines) == 6


def test_min_distinct_sizes_is_the_fitters():
    assert select.MIN_DISTINCT_SIZES == fit.MIN_DISTINCT_SIZES


def test_entry_wrapper_test_agrees_with_parsing_every_name():
    # select decides most names without parsing them (a wrapper's name must
    # occur in the name): the same answer as parsing each one.
    candidates = ["_start", "__libc_start_main@@GLIBC_2.34", "start_thread", "clone3",
                  "void start_thread(void*)", "int __libc_start_call_main(int, char**)",
                  "_init [clone .cold]", "my_start_thread_pool(int)", "ns::clone(int)",
                  "clone_internal", "__clone_internal", "std::vector<int>::_init()",
                  "_dl_init", "call_init.part.0", "main", "0x401000@/bin/prog", "_fini"]
    for name in candidates:
        assert select.is_entry_wrapper(named(name)) == (names.qualified_name(name) in
                                                      select.ENTRY_WRAPPERS), name
    assert select.is_entry_wrapper(named("void start_thread(void*)"))
    assert not select.is_entry_wrapper(named("my_start_thread_pool(int)"))


def test_a_thread_started_inside_its_creator_is_an_entry_wrapper():
    """Go's threads start in the middle of runtime.clone, after the system
    call: the routine "runtime.clone+82" (with symbols, ".abi0+82") carries
    the whole thread, as the wrapper does; a routine entered in the middle
    of any other function is none."""
    for name in ("runtime.clone+82", "runtime.clone.abi0+82", "start_thread+45"):
        assert select.is_entry_wrapper(named(name)), name
    for name in ("main.work+82", "runtime.clone+", "runtime.clone+82x", "runtime.cloned+82"):
        assert not select.is_entry_wrapper(named(name)), name


def named(name, obj="/no/such/object"):
    return types.SimpleNamespace(name=name, object=obj)


def test_an_unnamed_elf_entry_point_is_an_entry_wrapper(tmp_path):
    """A stripped program's _start and the loader's entry have no symbol:
    the report names them by address, and the object's ELF header says it
    is the entry point (the loader's own one carried a whole process,
    ranked first on an image converter)."""
    prog = tmp_path / "prog"
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"               # 64-bit, little-endian
    header[24:32] = (0x1ab70).to_bytes(8, "little")  # e_entry
    prog.write_bytes(bytes(header))
    assert select.is_entry_wrapper(named("0x1ab70@prog", str(prog)))
    assert not select.is_entry_wrapper(named("0x1ab80@prog", str(prog)))
    assert not select.is_entry_wrapper(named("0x1ab70@prog", str(tmp_path / "missing")))


def test_default_choice_keeps_routines_fittable_by_trms_or_rms(tmp_path):
    """Exactly MIN_DISTINCT_SIZES sizes are enough to fit; so are enough
    RMS sizes when the TRMS has fewer (activations of one TRMS that read
    different amounts of their own)."""
    sizes = synthetic.sizes(6)
    prof = profile_of(tmp_path, [
        synthetic.Routine("five", synthetic.COSTS["n"], sizes[:5]),
        synthetic.Routine("four", synthetic.COSTS["n"], sizes[:4]),
        synthetic.Routine("by_rms", synthetic.COSTS["n"], sizes)])
    by_rms = prof.find("by_rms")[0]
    by_rms.trms = dict(list(by_rms.trms.items())[:4])
    assert (len(by_rms.trms), len(by_rms.rms)) == (4, 6)
    assert sorted(chosen(prof, [], min_share=0.0)) == ["by_rms", "five"]


def test_the_share_floor_counts_inclusive_cost(tmp_path):
    """A dispatcher's own code is cheap, but the cost of what it calls is
    its inclusive cost: the floor keeps it."""
    many = synthetic.sizes(12)
    prof = profile_of(tmp_path, [
        synthetic.Routine("dispatch", lambda n: 5, many),
        synthetic.Routine("work", synthetic.COSTS["n^2"], many, caller="dispatch")])
    dispatch, work = prof.find("dispatch")[0], prof.find("work")[0]
    dispatch.cumulative_cost += work.cumulative_cost   # as the tool writes it
    assert 100.0 * dispatch.self_cost / prof.total_cost < 1.0
    assert sorted(chosen(prof, [], min_share=1.0)) == ["dispatch", "work"]


def test_garbage_collectors_of_language_runtimes():
    """Go's collector (its workers, marking, sweeping, write-barrier
    buffers; assembly with .abi0), CPython's, CRuby's, Lua's and PHP's; not
    the allocators the program calls, nor names that merely contain gc."""
    for name in ("runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker.func2",
                 "runtime.greyobject", "runtime.markroot", "runtime.(*gcWork).tryGet",
                 "runtime.wbBufFlush1", "runtime.gcWriteBarrierCX.abi0", "runtime.bgsweep",
                 "runtime.(*mspan).sweep", "gc_collect_main", "rb_gc_mark_children",
                 "gc_marks_rest", "luaC_step", "zend_gc_collect_cycles"):
        assert select.is_garbage_collector(named(name)), name
    for name in ("runtime.mallocgc", "runtime.newobject", "runtime.growslice", "malloc",
                 "_int_free", "main.gcd", "my_runtime.gcDrain", "rb_gc_writebarrier",
                 "mvdan.cc/sh/v3/syntax.(*Parser).stmts", "runtime.(*mspan).init"):
        assert not select.is_garbage_collector(named(name)), name


def test_gos_stack_growth_is_the_runtimes_memory_management():
    """The copy of an outgrown goroutine stack and the traceback that walks
    its frames; not the program's routines, nor the runtime's timers."""
    for name in ("runtime.copystack", "runtime.gentraceback", "runtime.adjustframe",
                 "runtime.getStackMap", "runtime.pcvalue", "runtime.(*unwinder).next"):
        assert "stack growth" in select.runtime_work(named(name)), name
    assert "garbage collector" in select.runtime_work(named("runtime.scanobject"))
    for name in ("main.sumFrom", "runtime.adjusttimers", "runtime.mallocgc", "copystack"):
        assert select.runtime_work(named(name)) == "", name


def test_the_dynamic_loaders_work_is_the_runtimes():
    """Any routine of the dynamic loader's object, named or not; not libc's,
    nor a program's own routine whose name mentions the loader."""
    for name, obj in (("_dl_relocate_object", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
                      ("0x1ab70@ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2"),
                      ("check_match", "/lib/ld.so.1")):
        assert "dynamic loader" in select.runtime_work(named(name, obj)), name
    for name, obj in (("malloc", "/usr/lib/x86_64-linux-gnu/libc.so.6"),
                      ("_dl_relocate_object", "/usr/bin/myloader")):
        assert select.runtime_work(named(name, obj)) == "", name
