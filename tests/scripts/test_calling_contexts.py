# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of calling contexts in the scripts: the reader of format version 4's
# context records, their merge, and the contexts command.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Synthetic version 4 reports (synthetic.py) in which `work` is called by
`small` with a linear cost and by `big` with a quadratic one: the reader
gets the context tree and tuples, rejects malformed context records with
FILE:LINE, the merge keeps contexts by chain, and contexts.py fits n and
n^2, quadratic first."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
import synthetic  # noqa: E402
from aprof_trms import contexts as aprof_contexts  # noqa: E402
from aprof_trms import profile as aprof_profile  # noqa: E402
from aprof_trms import report as ar  # noqa: E402

DEPTH = 6


two_callers = synthetic.two_callers


def write(tmp_path, name="aprof-trms.out.1", **options):
    options.setdefault("contexts", DEPTH)
    return synthetic.write_report(tmp_path / name, two_callers(), threads=2, **options)


def run(script, *args):
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *map(str, args)],
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


# ---------------------------------------------------------------------------
# Reader.
# ---------------------------------------------------------------------------

def test_reader_gets_the_context_tree_and_tuples(tmp_path):
    r = ar.load(write(tmp_path))
    assert r.header.version == ar.FORMAT_VERSION == 6 and r.header.context_depth == DEPTH
    work = ar.routine_named(r, "work")
    contexts = ar.contexts_of(r, work)
    chains = {tuple(r.routines[rid].name for rid in ar.context_path(r, c)) for c in contexts}
    assert chains == {("main", "small", "work"), ("main", "big", "work")}
    assert all(c.depth == 3 for c in contexts)
    by_chain = {r.routines[ar.context_path(r, c)[1]].name: c for c in contexts}
    linear, quadratic = two_callers()[3:]
    for caller, entry in (("small", linear), ("big", quadratic)):
        tuples = ar.context_tuples(r, "trms", by_chain[caller])
        acts = synthetic.activations(entry)
        assert sorted(tuples) == sorted({n for n, _, _ in acts})
        assert sum(t.calls for t in tuples.values()) == len(acts)
        assert sum(t.sum_cost for t in tuples.values()) == sum(c for _, _, c in acts)
    assert ar.consistency_problems(r) == []


def test_older_versions_have_no_contexts(tmp_path):
    text = synthetic.report_text(two_callers()).replace(
        f"{ar.MAGIC}\t{ar.FORMAT_VERSION}\n", f"{ar.MAGIC}\t3\n", 1)
    r = ar.loads(text)
    assert r.header.version == 3 and r.header.context_depth is None and r.contexts == {}
    assert ar.contexts_of(r, ar.routine_named(r, "work")) == []


def lines_of(tmp_path):
    return synthetic.report_text(two_callers(), threads=2, contexts=DEPTH).splitlines()


def first(lines, prefix):
    return next(i for i, line in enumerate(lines) if line.startswith(prefix))


def context_line(lines, chain):
    """Index of the `context` record of a chain of routine names."""
    r = ar.loads("\n".join(lines) + "\n")
    for c in r.contexts.values():
        if [r.routines[rid].name for rid in ar.context_path(r, c)] == chain:
            return lines.index(f"context\t{c.id}\t{c.parent}\t{c.routine}")
    raise AssertionError(chain)


def with_end(lines):
    body = [line for line in lines if not line.startswith("end\t")]
    return "".join(line + "\n" for line in body + [f"end\t{len(body)}"])


def mutations():
    """(name, edit(lines) -> index of the line in error, message pattern)."""
    def set_field(index_of, field, value):
        def edit(lines):
            i = index_of(lines)
            fields = lines[i].split("\t")
            fields[field] = value
            lines[i] = "\t".join(fields)
            return i
        return edit

    def work_small(lines):
        return context_line(lines, ["main", "small", "work"])

    def swap_tuples(lines):
        i = first(lines, "context-trms\t")
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        return i + 1   # the first tuple, now after a later one

    def duplicate_tuple(lines):
        i = first(lines, "context-rms\t")
        lines.insert(i + 1, lines[i])
        return i + 1

    def twin_context(lines):
        i = work_small(lines)
        fields = lines[i].split("\t")
        last = first(lines, "context-trms\t") - 1
        count = int(lines[last].split("\t")[1])
        lines.insert(last + 1, "\t".join(["context", str(count + 1)] + fields[2:]))
        return last + 1

    def context_before_calls(lines):
        i = first(lines, "call\t")
        lines.insert(i, lines.pop(first(lines, "context\t")))
        return i + 1   # the call record after it is out of order

    def context_extra_field(lines):
        i = work_small(lines)
        lines[i] += "\t1"
        return i

    def without_header(lines):
        del lines[first(lines, "contexts\t")]
        return first(lines, "context\t")

    def version_3(lines):
        lines[0] = f"{ar.MAGIC}\t3"
        return first(lines, "contexts\t")

    def depth_limit(lines):
        i = work_small(lines)   # (found by parsing: before the edit)
        lines[first(lines, "contexts\t")] = "contexts\t2"
        return i

    def extra_field(lines):
        i = first(lines, "context-trms\t")
        lines[i] += "\t0"
        return i

    return [
        ("parent not defined yet", set_field(work_small, 2, "99"), r"parent 99 is not a smaller id of a context defined before it"),
        ("unknown routine", set_field(work_small, 3, "77"), r"undefined routine 77"),
        ("context field count", context_extra_field, r"'context' record needs 3 field"),
        ("tuple field count", extra_field, r"'context-trms' record needs 11 field"),
        ("id out of sequence", set_field(work_small, 1, "42"), r"context id 42 out of sequence"),
        ("twin context", twin_context, r"duplicates context \d+ \(same parent"),
        ("unknown context", set_field(lambda lines: first(lines, "context-trms\t"), 2, "55"),
         r"undefined context 55"),
        ("tuples not sorted", swap_tuples, r"not sorted by thread, context, input size"),
        ("duplicate tuple", duplicate_tuple, r"'context-rms' record duplicate"),
        ("context records out of order", context_before_calls, r"out of order"),
        ("no contexts header", without_header, r"without the 'contexts' record"),
        ("in a version 3 report", version_3, r"'contexts' record in a format version 3 report"),
        ("deeper than the limit", depth_limit, r"depth 3, deeper than the report's depth limit 2"),
    ]


@pytest.mark.parametrize("name,edit,pattern", mutations(), ids=[m[0] for m in mutations()])
def test_malformed_context_records_are_rejected_with_file_and_line(tmp_path, name, edit, pattern):
    lines = lines_of(tmp_path)
    index = edit(lines)
    path = tmp_path / "aprof-trms.out.9"
    path.write_text(with_end(lines))
    with pytest.raises(ar.ReportError) as info:
        ar.load(path)
    assert str(info.value).startswith(f"{path}:{index + 1}: "), str(info.value)
    assert re.search(pattern, info.value.message), info.value.message
    # Every command says it in one line, FILE:LINE first, and exits 1.
    proc = run("contexts.py", path)
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"contexts.py: error: {info.value}"


def test_contexts_that_do_not_add_up_to_the_routine_are_a_problem(tmp_path):
    lines = lines_of(tmp_path)
    i = first(lines, "context-trms\t")
    fields = lines[i].split("\t")
    fields[4] = str(int(fields[4]) + 1)   # one more call in the context than in the routine
    lines[i] = "\t".join(fields)
    problems = ar.consistency_problems(ar.loads(with_end(lines), check=False))
    assert len(problems) == 1 and "its contexts' tuples add up to" in problems[0], problems


# ---------------------------------------------------------------------------
# Merge.
# ---------------------------------------------------------------------------

def test_merge_keeps_contexts_by_chain(tmp_path):
    one = aprof_profile.load_profile([write(tmp_path)])
    two = aprof_profile.load_profile([write(tmp_path), write(tmp_path, "aprof-trms.out.2", pid=9)])
    assert one.context_depth == two.context_depth == DEPTH
    work = ("/usr/bin/synthetic", "work")
    assert len(one.contexts_of(work)) == len(two.contexts_of(work)) == 2
    for c1 in one.contexts_of(work):
        c2 = two.contexts[c1.key]
        assert c2.calls == 2 * c1.calls and c2.cumulative_cost == 2 * c1.cumulative_cost
        assert sorted(c2.trms) == sorted(c1.trms)
    edge = two.calls[(("/usr/bin/synthetic", "big"), work)]
    assert edge.calls == 2 * one.calls[(("/usr/bin/synthetic", "big"), work)].calls


@pytest.mark.parametrize("other,why", [({"contexts": None}, "has no calling contexts, but"),
                                       ({"contexts": DEPTH + 2}, "different depth limits")])
def test_reports_whose_contexts_cannot_be_merged_are_refused_clearly(tmp_path, other, why):
    a = write(tmp_path)
    b = write(tmp_path, "aprof-trms.out.2", pid=9, **other)
    merged = aprof_profile.load_profile([a, b])
    assert merged.contexts == {} and why in merged.contexts_missing
    proc = run("contexts.py", a, b)
    assert proc.returncode == 1 and why in proc.stderr and "--collect-context=yes" in proc.stderr
    # The flat view merges them all the same.
    assert run("annotate.py", a, b).returncode == 0


# ---------------------------------------------------------------------------
# The contexts command.
# ---------------------------------------------------------------------------

def context_rows(stdout):
    """[(fields before the chain, chain)] of the table of the first routine."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["#", "share%"])
    rows = []
    for line in lines[start + 1:]:
        if not line.strip() or line.strip().startswith("Why"):
            break
        fields = line.split()
        rows.append((fields[:8], " ".join(fields[8:])))
    return rows


def test_quadratic_context_first_with_fits_n_and_n2(tmp_path):
    proc = run("contexts.py", write(tmp_path), "--width", "120")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(" contexts, ") == 1   # only work has two contexts
    rows = context_rows(proc.stdout)
    # main, which every context starts with, is said once and is '…' in the rows.
    assert "every context starts with 1 routine (… below): main\n" in proc.stdout
    assert [chain for _, chain in rows] == ["… > big > work", "… > small > work"]
    (quad, _), (lin, _) = rows
    assert quad[6] == "n^2" and lin[6] == "n"
    assert quad[3] == lin[3] == "ok"
    linear, quadratic = two_callers()[3:]
    assert int(quad[4]) == len(synthetic.activations(quadratic))
    assert int(lin[4]) == len(synthetic.activations(linear))
    cost = {e.caller: sum(c for _, _, c in synthetic.activations(e)) for e in (linear, quadratic)}
    share = 100.0 * cost["big"] / (cost["big"] + cost["small"])
    assert float(quad[1]) == pytest.approx(share, abs=0.01)
    # Quadratic first even where the linear context costs more today.
    heavier = [r for r in two_callers()[:3]] + [
        synthetic.Routine("work", lambda n: 20 + 400 * n, linear.sizes, caller="small"),
        synthetic.Routine("work", synthetic.COSTS["n^2"], quadratic.sizes, caller="big")]
    path = synthetic.write_report(tmp_path / "aprof-trms.out.3", heavier, contexts=DEPTH)
    rows = context_rows(run("contexts.py", path).stdout)
    assert [chain for _, chain in rows] == ["… > big > work", "… > small > work"]
    assert float(rows[0][0][1]) < float(rows[1][0][1])    # cheaper today, first all the same


def test_plot_per_context(tmp_path):
    out = tmp_path / "plots"
    proc = run("contexts.py", write(tmp_path), "--plot", out)
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out)) == [".plot-files", "work-context1.png", "work-context2.png"]
    assert str(out / "work-context1.png") in proc.stdout.splitlines()


def test_report_without_contexts_says_to_rerun_with_collect_context(tmp_path):
    path = write(tmp_path, contexts=None)
    proc = run("contexts.py", path)
    assert proc.returncode == 1
    assert "no calling contexts" in proc.stderr and "--collect-context=yes" in proc.stderr
    assert run("contexts.py", "--version").returncode == 0
    assert run("contexts.py", path, "--scale", "1").returncode == 2


def test_chain_label_keeps_root_and_nearest_callers():
    names = ["main", "parse_input", "read_block", "decode", "inflate", "memcpy"]
    assert aprof_contexts.chain_label(names, 200) == " > ".join(names)
    short = aprof_contexts.chain_label(names, 40)
    assert len(short) <= 40
    assert short.startswith("main > … > ") and short.endswith("inflate > memcpy")


def test_chain_labels_leave_out_the_common_callers_and_tell_contexts_apart():
    chains = [["_start", "main", "run", "parse", "a", "work"],
              ["_start", "main", "run", "parse", "b", "work"],
              ["_start", "main", "run", "query", "x", "y", "z", "helper", "work"],
              ["_start", "main", "run", "scan", "x", "y", "z", "helper", "work"]]
    assert aprof_contexts.common_callers(chains) == 3
    labels = aprof_contexts.chain_labels(chains, 36)
    assert labels[:2] == ["… > parse > a > work", "… > parse > b > work"]
    assert len(set(labels)) == 4 and all(len(label) <= 36 for label in labels)
    assert labels[2].startswith("… > query > … >") and labels[2].endswith("helper > work")


def test_long_chains_stay_distinct_at_the_default_width():
    """redis's _addReplyToBufferOrList: chains of 10 routines that differ
    near their start (who called the command) and in their middle (which
    command). Cut to the width, four of them read "… > _addReplyToBufferOrList";
    each label now keeps the routines where it differs from its twins."""
    start = ["_start", "main", "aeMain", "aeProcessEvents"]
    tails = {"get": ["processCommand", "call", "getCommand", "getGenericCommand", "addReplyBulk",
                     "_addReplyToBufferOrList"],
             "lrange": ["processCommand", "call", "lrangeCommand", "addListRangeReply",
                        "addReplyBulkCBuffer", "_addReplyToBufferOrList"]}
    heads = {"read": ["connSocketEventHandler", "readQueryFromClient", "processInputBuffer"],
             "sleep": ["beforeSleep", "handleClientsWithPendingReadsUsingThreads",
                       "processPendingCommandAndInputBuffer"]}
    chains = [start + head + tail for head in heads.values() for tail in tails.values()]
    labels = aprof_contexts.chain_labels(chains, 60)
    assert len(set(labels)) == len(chains), labels
    for label, chain in zip(labels, chains):
        assert label.startswith(f"… > {chain[4]} > …") and label.endswith(" > _addReplyToBufferOrList")
    # Labels that differ already are not lengthened.
    apart = chains[:1] + chains[3:]
    assert aprof_contexts.chain_labels(apart, 60) == [aprof_contexts.chain_label(c, 60, 4)
                                                      for c in apart]


def test_default_routine_has_two_contexts_that_can_be_fitted(tmp_path):
    """The costliest routine with several contexts, each called at three
    sizes (six in all: it can be fitted), has no context to fit: the default
    choice is the routine whose contexts can be fitted (work), not the
    costlier one (setup)."""
    few = [synthetic.Routine("setup", lambda n: 50000.0 + n, sizes, caller=caller)
           for caller, sizes in (("small", [1, 2, 3]), ("big", [4, 5, 6]))]
    path = synthetic.write_report(tmp_path / "aprof-trms.out.1", two_callers() + few,
                                  contexts=DEPTH)
    proc = run("contexts.py", "--top", "1", path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[2].startswith("work [synthetic]: 2 contexts")
