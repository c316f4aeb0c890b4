# SPDX-License-Identifier: GPL-2.0-or-later
"""aprof_trms.profile: merging over threads, processes and runs of one program."""
import subprocess
import sys
import warnings

import pytest

import synthetic
from aprof_trms import profile as ap
from aprof_trms import report as ar

C = synthetic.COSTS


def R(name, cost, sizes, **kw):
    return synthetic.Routine(name, cost, sizes, **kw)


def test_threads_of_one_report_merge_into_one_routine(tmp_path):
    path = synthetic.write_report(tmp_path / "r", [R("work", C["n"], [8, 16, 32], calls=4)],
                                  threads=3)
    p = ap.load_profile([path])
    (work,) = p.routines.values()
    assert work.calls == 12
    assert sorted(work.trms) == [8, 16, 32]
    assert all(point.calls == 4 for point in work.trms.values())


def test_runs_merge_by_object_and_name_even_when_addresses_move(tmp_path):
    # The routine order differs, so "sort" has another address in each run
    # (as with address-space randomisation); runs cover different sizes.
    a = synthetic.write_report(tmp_path / "a", [R("sort", C["n^2"], [8, 16]), R("init", C["1"], [4])])
    b = synthetic.write_report(tmp_path / "b", [R("init", C["1"], [4]), R("sort", C["n^2"], [16, 32])],
                               pid=4343)
    p = ap.load_profile([a, b])
    assert len(p.commands) == 2
    (sort,) = p.find("sort")
    assert sorted(sort.trms) == [8, 16, 32]
    assert sort.trms[16].calls == 2 and sort.calls == 4
    assert p.find("init")[0].calls == 2


def test_directory_stands_for_its_reports(tmp_path):
    (tmp_path / "d").mkdir()
    synthetic.write_report(tmp_path / "d" / "aprof-trms.out.1", [R("f", C["n"], [1, 2])])
    synthetic.write_report(tmp_path / "d" / "aprof-trms.out.2", [R("f", C["n"], [3])], pid=2)
    (tmp_path / "d" / "aprof-trms.out.3.tmp").write_text("half a report")
    p = ap.load_profile([str(tmp_path / "d")])
    assert sorted(p.find("f")[0].trms) == [1, 2, 3]
    with pytest.raises(ap.ProfileError, match="no aprof-trms.out"):
        ap.load_profile([str(tmp_path)])


def test_same_name_twice_in_one_object_stays_apart(tmp_path):
    # Two static functions called "helper" in one executable.
    path = synthetic.write_report(tmp_path / "r", [R("helper", C["n"], [1, 2]),
                                                   R("helper", C["n^2"], [5])])
    p = ap.load_profile([path])
    helpers = p.find("helper")
    assert len(helpers) == 2 and len({h.key for h in helpers}) == 2


def test_different_settings_are_not_merged(tmp_path):
    a = synthetic.write_report(tmp_path / "a", [R("f", C["n"], [1])])
    b = synthetic.write_report(tmp_path / "b", [R("f", C["n"], [1])], resolution=8)
    with pytest.raises(ap.ProfileError, match="cannot be merged"):
        ap.load_profile([a, b])
    rms_only = synthetic.write_report(tmp_path / "c", [R("f", C["n"], [1])], trms_tracking=False)
    with pytest.raises(ap.ProfileError, match="RMS only.*cannot be merged"):
        ap.load_profile([a, rms_only])
    assert not ap.load_profile([rms_only]).trms_tracking


def test_different_syscall_input_is_not_merged(tmp_path):
    # --syscall-input=io counts fewer kernel writes as external input: the
    # same activation has a smaller TRMS than with all.
    every = synthetic.write_report(tmp_path / "all", [R("f", C["n"], [1])])
    io = synthetic.write_report(tmp_path / "io", [R("f", C["n"], [1])], syscall_input="io")
    with pytest.raises(ap.ProfileError,
                       match=r"syscall input io\) differ from .*syscall input all\).*cannot be merged"):
        ap.load_profile([every, io])
    assert ap.load_profile([io]).syscall_input == "io"
    assert ap.load_profile([every]).syscall_input == "all"


def test_streamed_load_equals_merging_whole_reports(tmp_path):
    # load_profile merges records as they are read; merge() takes whole
    # reports: the same profile, point by point, over threads and runs
    # (the second run shares "sort" and a size with the first).
    a = synthetic.write_report(tmp_path / "a", [R("sort", C["n^2"], [8, 16, 24], calls=3, noise=0.2),
                                                R("init", C["1"], [4])], threads=3)
    b = synthetic.write_report(tmp_path / "b", [R("sort", C["n^2"], [16, 32], calls=2, noise=0.2),
                                                R("scan", C["n"], [5, 6])], threads=2, pid=7)
    streamed = ap.load_profile([a, b])
    whole = ap.merge([ar.load(a), ar.load(b)])
    assert streamed == whole
    (sort,) = streamed.find("sort")
    assert sort.trms[16].calls == 3 + 2 and sort.calls == 9 + 4
    reports = [ar.load(a), ar.load(b)]
    assert sort.trms[16].max_cost == max(ar.tuples(rep, "trms", ar.routine_named(rep, "sort"))[16].max_cost
                                         for rep in reports)


def test_points_are_sums_over_threads_and_runs_beyond_64_bits(tmp_path):
    # PointMap keeps the points as 64-bit integers while they fit and as
    # Python integers after: a cost of 10^10 per activation sums its
    # squares past 2^63, exactly as the records say.
    def big(n):
        return 10 ** 10 + n
    a = synthetic.write_report(tmp_path / "a", [R("huge", big, [8, 9, 10], calls=3)], threads=2)
    b = synthetic.write_report(tmp_path / "b", [R("huge", big, [7, 9], calls=2)], threads=1, pid=7)
    (huge,) = ap.load_profile([a, b]).find("huge")
    assert list(huge.trms) == [7, 8, 9, 10]   # sorted by size (7 came last)
    assert 9 in huge.trms and 7 in huge.trms and 12 not in huge.trms and huge.trms.get(12) is None
    nine = huge.trms[9]
    assert nine.calls == 5 and nine.max_cost == big(9) and nine.min_cost == big(9)
    assert nine.sum_sq_cost == 5 * big(9) ** 2 > 2 ** 63
    assert dict(huge.trms.items()) == {s: huge.trms[s] for s in (7, 8, 9, 10)}
    # The same points as merging the whole reports' records one by one.
    assert huge.trms == ap.merge([ar.load(a), ar.load(b)]).find("huge")[0].trms
    sums = [0] * 4
    for rep in (ar.load(a), ar.load(b)):
        for t in rep.trms.values():
            sums = [s + v for s, v in zip(sums, (t.calls, t.sum_cost, t.sum_sq_cost, t.sum_self_cost))]
    points = list(huge.trms.values())
    assert sums == [sum(p.calls for p in points), sum(p.sum_cost for p in points),
                    sum(p.sum_sq_cost for p in points), sum(p.sum_self_cost for p in points)]


def test_reports_of_unrelated_programs_merge_with_a_warning(tmp_path):
    """gzip's and xz's reports merged add up routines of two programs: a
    warning says so (both were started by one shell: a shared ppid is no
    link). A fork's child and an exec'd program (linked by their pids) and
    runs of one executable with other arguments are one program."""
    def report(name, command, pid, ppid=1000):
        return synthetic.write_report(tmp_path / name, [R("work", C["n"], synthetic.sizes(6))],
                                      pid=pid, ppid=ppid, command=command)

    gzip = report("gzip", ("/usr/bin/gzip", "-c", "a"), 11)
    gzip2 = report("gzip2", ("gzip", "-9", "b"), 12)
    child = report("child", ("/bin/sort", "x"), 13, ppid=11)      # forked and exec'd by gzip
    xz = report("xz", ("/usr/bin/xz", "-c", "a"), 14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ap.load_profile([gzip, gzip2, child])
    with pytest.warns(ap.UnrelatedReports, match=r"2 unrelated programs \(gzip \(.*gzip and 2 "
                      r"more\); xz \(.*xz\)\)"):
        ap.load_profile([gzip, gzip2, child, xz])
    # The commands print it as one warning line and go on.
    rank = subprocess.run([sys.executable, f"{synthetic.SCRIPTS}/rank.py", gzip, xz],
                          capture_output=True, text=True)
    assert rank.returncode == 0, rank.stderr
    assert rank.stderr.startswith("rank.py: warning: merging reports of 2 unrelated programs")
    assert rank.stderr.count("\n") == 1


def test_a_merged_point_keeps_its_extremes_and_the_edges_add_up(tmp_path):
    """Each size's first activation (thread 1) costs 10 times its second
    (thread 2), read later: the point keeps the worst case of both, and
    the best; the call edge holds the calls and cost of both threads."""
    path = synthetic.write_report(tmp_path / "r", [
        R("main", C["1"], [1]),
        R("work", lambda n: 100 * n, [8, 16, 32], calls=2, worst=lambda n: 10 * n, caller="main")],
        threads=2)
    p = ap.load_profile([path])
    work = p.find("work")[0]
    assert [(s, q.min_cost, q.max_cost, q.calls) for s, q in work.trms.items()] == \
        [(8, 80, 800, 2), (16, 160, 1600, 2), (32, 320, 3200, 2)]
    edge = p.calls[(p.find("main")[0].key, work.key)]
    assert (edge.calls, edge.inclusive_cost) == (6, work.cumulative_cost)
    # Across reports (merged point by point, not as a block of records) alike.
    a = synthetic.write_report(tmp_path / "a", [R("work", lambda n: 100 * n, [8, 16, 32])])
    b = synthetic.write_report(tmp_path / "b", [R("work", lambda n: 10 * n, [8, 16, 32])], pid=7)
    work = ap.load_profile([a, b]).find("work")[0]
    assert [(s, q.min_cost, q.max_cost, q.calls) for s, q in work.trms.items()] == \
        [(8, 80, 800, 2), (16, 160, 1600, 2), (32, 320, 3200, 2)]


def test_the_total_of_merged_reports_is_their_sum(tmp_path):
    """Two runs: the program's cost is the cost of both (every share is a
    share of both)."""
    a = synthetic.write_report(tmp_path / "a", [R("first", C["n"], [8, 16, 32])], threads=2)
    b = synthetic.write_report(tmp_path / "b", [R("second", C["n^2"], [8, 16])], pid=7)
    totals = [sum(t.total_cost for t in ar.load(path).threads.values()) for path in (a, b)]
    p = ap.load_profile([a, b])
    assert p.total_cost == sum(totals)


def test_dumps_zeroed_in_between_merge_and_overlapping_ones_are_refused(tmp_path):
    # Dumps of one process (format 6): after 0 and 1 zeroes they are disjoint
    # and add up; a second dump with no zero since the first covers its
    # activations again.
    work = [R("work", C["n"], [8, 16], calls=2)]
    first = synthetic.write_report(tmp_path / "d1", work, interval=(1, 0, 100, 0, "monitor command"))
    second = synthetic.write_report(tmp_path / "d2", work, interval=(2, 100, 200, 1, "phase 2"))
    p = ap.load_profile([first, second])
    assert p.find("work")[0].calls == 8
    again = synthetic.write_report(tmp_path / "d3", work + [R("more", C["1"], [4])],
                                   interval=(3, 100, 300, 1, "monitor command"))
    with pytest.raises(ap.ProfileError, match=r"d3: covers part of the run that .*d2 covers too"):
        ap.load_profile([first, second, again])
    # Another process's dump after as many zeroes is another run: merged.
    other = synthetic.write_report(tmp_path / "o", work, pid=5151,
                                   interval=(1, 100, 300, 1, "monitor command"))
    assert ap.load_profile([second, other]).find("work")[0].calls == 8
