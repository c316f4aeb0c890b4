# SPDX-License-Identifier: GPL-2.0-or-later
"""--input-sources=yes: each routine's induced reads by producer thread and
routine, or by system call (issue 14). The programs make the answers exact:
the paper's producer/consumer, a read() loop, two producers filling the two
halves of a buffer, and a Valgrind thread id reused by a second thread."""
from aprof_trms import report as ar
from toolrun import Spec, check_counts, program, routine, run_tools

SOURCES = ["--input-sources=yes"]


def thread_sources(report, consumer):
    """{(producer thread serial, producer routine name): reads} of a routine's
    own induced reads, over the threads that ran it."""
    out = {}
    for s in report.thread_sources.values():
        if s.routine == consumer.id:
            name = "-" if s.producer_routine is None else report.routines[s.producer_routine].name
            out[(s.producer_thread, name)] = out.get((s.producer_thread, name), 0) + s.reads
    return out


def kernel_sources(report, consumer):
    """{system call: reads} of a routine's own induced reads."""
    out = {}
    for s in report.kernel_sources.values():
        if s.routine == consumer.id:
            out[s.syscall] = out.get(s.syscall, 0) + s.reads
    return out


def test_without_the_option_there_are_no_sources(tmp_path):
    prog = program("prodcons")
    run, = run_tools(tmp_path, [Spec([prog, "spin", "20"])])
    assert not run.report.header.input_sources
    assert not run.report.thread_sources and not run.report.kernel_sources


def test_consumer_input_comes_from_the_producer(tmp_path):
    """Every item costs consume_all two thread-induced reads (`full` and
    `cell`), both written by produce_all in the main thread; produce_all's
    N induced reads are consume_all's writes (prodcons.cc)."""
    prog = program("prodcons")
    runs = run_tools(tmp_path, [Spec([prog, "spin", str(n)], SOURCES) for n in (50, 200)])
    for n, run in zip((50, 200), runs):
        r = run.report
        assert r.header.input_sources and r.header.version == ar.FORMAT_VERSION
        consumer, producer = routine(r, "consume_all", prog), routine(r, "produce_all", prog)
        check_counts(run, r, {"consume_all": 1, "produce_all": 1}, prog)
        (consumer_thread,) = {th for (th, rid) in r.totals if rid == consumer.id}
        (producer_thread,) = {th for (th, rid) in r.totals if rid == producer.id}
        assert consumer_thread != producer_thread
        from_producer = thread_sources(r, consumer).get((producer_thread, "produce_all"))
        assert from_producer == 2 * n
        assert thread_sources(r, producer).get((consumer_thread, "consume_all")) == n
        assert kernel_sources(r, consumer) == {}


def test_read_loop_input_comes_from_read(tmp_path):
    """read_loop reads buf[0] after each of its K read() calls (syscalls.cc)."""
    prog = program("syscalls")
    counts = (10, 40)
    runs = run_tools(tmp_path, [Spec([prog, "read", str(k), str(tmp_path / f"in{k}")], SOURCES) for k in counts])
    for k, run in zip(counts, runs):
        r = run.report
        loop = routine(r, "read_loop", prog)
        assert kernel_sources(r, loop) == {"read": k}
        assert thread_sources(r, loop) == {}


def test_two_producers_split_the_input_in_halves(tmp_path):
    """consume_rounds reads a buffer whose halves two threads' fill_half wrote,
    ROUNDS times: exactly half of its own induced reads from each."""
    prog = program("sources")
    rounds, cells = 6, 96
    run, = run_tools(tmp_path, [Spec([prog, "halves", str(rounds), str(cells)], SOURCES)])
    r = run.report
    check_counts(run, r, {"consume_rounds": 1, "fill_half": 2 * rounds}, prog)
    got = thread_sources(r, routine(r, "consume_rounds", prog))
    producers = {th for (th, name) in got if name == "fill_half"}
    assert len(producers) == 2 and 1 not in producers
    assert {th: got[(th, "fill_half")] for th in producers} == {th: rounds * cells // 2 for th in producers}


def test_reused_thread_id_keeps_two_producers(tmp_path):
    """Two threads run one after the other under the same Valgrind thread id:
    each one's 16 writes stay its own."""
    prog = program("sources")
    run, = run_tools(tmp_path, [Spec([prog, "reuse"], SOURCES)])
    r = run.report
    check_counts(run, r, {"consume_once": 1, "fill_half": 2}, prog)
    got = thread_sources(r, routine(r, "consume_once", prog))
    producers = sorted(th for (th, name) in got if name == "fill_half")
    assert len(producers) == 2
    assert r.threads[producers[0]].tid == r.threads[producers[1]].tid  # the id was reused
    assert [got[(th, "fill_half")] for th in producers] == [16, 16]


def test_sources_need_trms(tmp_path):
    run, = run_tools(tmp_path, [Spec([program("sumarray"), "10"], SOURCES + ["--trms=no"],
                                     expect_status=1, reports=0)])
    assert "--input-sources=yes needs --trms=yes" in run.stderr
