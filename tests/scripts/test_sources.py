# SPDX-License-Identifier: GPL-2.0-or-later
"""Input sources in reports (--input-sources=yes): the reader's thread-source
and kernel-source records, and scripts/aprof_trms/sources.py (top producers
merged over threads and reports). The producers command and its graph:
test_producers.py."""
import os
import re

import pytest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
from aprof_trms import profile as ap  # noqa: E402
from aprof_trms import report as ar  # noqa: E402
from aprof_trms import sources  # noqa: E402
from source_reports import sources_example  # noqa: E402


def with_lines(text, replace=None, insert_before_end=()):
    """The example with line i replaced (replace = (i, line)) or lines added
    before `end`, and a corrected end count."""
    lines = text.splitlines()[:-1]  # without end
    if replace:
        lines[replace[0]] = replace[1]
    lines += list(insert_before_end)
    lines.append(f"end\t{len(lines)}")
    return "".join(line + "\n" for line in lines)


def test_docs_example_parses():
    r = ar.loads(sources_example())
    assert r.header.version == 3 and r.header.input_sources
    assert r.thread_sources == {
        (2, 7, 1, 3): ar.ThreadSource(2, 7, 1, 3, 200),
        (2, 7, 1, None): ar.ThreadSource(2, 7, 1, None, 2),
    }
    assert r.kernel_sources == {(1, 3, "read"): ar.KernelSource(1, 3, "read", 16)}
    assert ar.consistency_problems(r) == []


def test_version_2_reports_have_no_sources():
    text = sources_example()
    lines = [l for l in text.splitlines() if not l.startswith(("thread-source", "kernel-source",
                                                                "input-sources", "end"))]
    lines[0] = "aprof-trms-report\t2"
    lines.append(f"end\t{len(lines)}")
    r = ar.loads("".join(l + "\n" for l in lines))
    assert r.header.version == 2 and not r.header.input_sources
    assert r.thread_sources == {} and r.kernel_sources == {}


def line_of(text, prefix):
    return next(i for i, l in enumerate(text.splitlines()) if l.startswith(prefix))


@pytest.mark.parametrize("old_prefix, new_line, pattern", [
    ("thread-source\t2\t7\t1\t3", "thread-source\t2\t7\t1\t9\t200", "undefined routine 9"),
    ("thread-source\t2\t7\t1\t3", "thread-source\t2\t7\t5\t3\t200", "undefined thread 5"),
    ("thread-source\t2\t7\t1\t-", "thread-source\t2\t7\t1\t3\t2", "duplicate"),
    ("kernel-source", "kernel-source\t1\tx\tread\t16", "routine is not an unsigned"),
    ("input-sources", "input-sources\tno", "expected yes"),
])
def test_bad_source_records(old_prefix, new_line, pattern):
    text = sources_example()
    i = line_of(text, old_prefix)
    with pytest.raises(ar.ReportError) as info:
        ar.loads(with_lines(text, replace=(i, new_line)), "bad.txt")
    assert info.value.line == i + 1 and re.search(pattern, info.value.message), str(info.value)


def test_source_records_need_the_header_record():
    text = sources_example()
    lines = [l for l in text.splitlines() if not l.startswith("input-sources")]
    with pytest.raises(ar.ReportError, match="without the 'input-sources' record"):
        ar.loads(with_lines("\n".join(lines) + "\n"))


def test_top_producers_merge_threads_and_reports(tmp_path):
    text = sources_example()
    paths = []
    for i in (1, 2):   # two runs (pids) with the same numbers
        p = tmp_path / f"aprof-trms.out.{i}"
        p.write_text(re.sub(r"\npid\t[0-9]+", f"\npid\t{4000 + i}", text))
        paths.append(str(p))
    prof = ap.load_profile(paths)
    consumer = next(k for k, r in prof.routines.items() if r.name == "consume_data")
    top = sources.top_producers(prof, consumer, 5)
    assert [(p.label, n) for p, n in top] == [("produce_data", 400),
                                              ("(outside every routine)", 4)]
    assert sources.top_producers(prof, consumer, 1)[0][1] == 400
    reader = next(k for k, r in prof.routines.items() if r.name == "produce_data")
    assert [(p.label, n) for p, n in sources.top_producers(prof, reader, 5)] == [("syscall read", 32)]


def pool_report(workers=5):
    """A report of a worker pool: thread 1 runs main, threads 2 to
    workers+1 run `worker` and the last thread `writer`, each started by
    clone3 -> start_thread; the workers read what main wrote (10 reads
    each), the writer what each worker wrote (5 reads each)."""
    header = ar.Header(5, "aprof-trms", "0.1.0", "3.19.0",
                       ("./pool", "--threads", str(workers)), 42, 1, "bb", 4, "all", input_sources=True)
    names = ["main", "clone3", "start_thread", "worker", "writer"]
    routines = {i: ar.Routine(i, 0x1000 + i, "/bin/pool", name, name)
                for i, name in enumerate(names, 1)}
    last = workers + 2
    threads = {s: ar.Thread(s, s, 1000) for s in range(1, last + 1)}
    totals, calls, thread_sources = {}, {}, {}
    totals[(1, 1)] = ar.Totals(1, 1, 1, 1000, 1000)
    for s in range(2, last + 1):
        job = 5 if s == last else 4
        totals[(s, 2)] = ar.Totals(s, 2, 1, 10, 1000)
        totals[(s, 3)] = ar.Totals(s, 3, 1, 10, 990)
        totals[(s, job)] = ar.Totals(s, job, 1, 980, 980)
        calls[(s, 2, 3)] = ar.CallEdge(s, 2, 3, 1, 990)
        calls[(s, 3, job)] = ar.CallEdge(s, 3, job, 1, 980)
        if s == last:
            for w in range(2, last):
                thread_sources[(s, 5, w, 4)] = ar.ThreadSource(s, 5, w, 4, 5)
        else:
            thread_sources[(s, 4, 1, 1)] = ar.ThreadSource(s, 4, 1, 1, 10)
    return ar.Report("pool.out", header, threads, routines, totals, {}, {}, thread_sources, {},
                     calls)


def test_threads_that_start_in_the_same_routine_are_one_node():
    """The 37 threads of a worker pool were 37 nodes; the threads that
    started in the same routine (below clone3 and start_thread) are one,
    labelled with their serials, unless split."""
    rep = pool_report()
    assert sources.thread_starts(rep) == {1: "main", **{s: "worker" for s in range(2, 7)},
                                          7: "writer"}
    graph = sources.graph_of(rep, 30)
    assert graph.edges == [(("thread", 1, "main"), ("thread", 2, "worker"), 50),
                           (("thread", 2, "worker"), ("thread", 7, "writer"), 25)]
    assert graph.groups[2] == (2, 3, 4, 5, 6) and graph.starts[2] == "worker"
    assert graph.node_label(("thread", 2, "worker")) == "T2-T6 (5 threads) worker"
    assert graph.node_label(("thread", 7, "writer")) == "T7 writer"
    split = sources.graph_of(rep, 30, merge_threads=False)
    assert len(split.edges) == 10 and split.node_label(("thread", 3, "worker")) == "T3 worker"


def test_node_colours_are_distinct_and_never_the_system_calls_grey():
    """tab10 has a grey (the 8th thread had the system calls' colour) and
    ten colours (the 11th thread had the first's)."""
    rep = pool_report(workers=12)
    graph = sources.graph_of(rep, 100, merge_threads=False)
    nodes = {n for n in graph.producers + graph.consumers}
    by_thread = {n[1]: graph.colour(n) for n in nodes}
    assert len(by_thread) == 14 and len(set(by_thread.values())) == 14
    for colour in list(by_thread.values()) + [sources.thread_colour(i) for i in range(60)]:
        r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
        assert max(r, g, b) - min(r, g, b) > 40, colour   # not a grey
    assert len({sources.thread_colour(i) for i in range(60)}) == 60
