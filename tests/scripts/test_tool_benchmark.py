# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of the tool benchmark harness's bookkeeping (tests/benchmarks/
# tool_benchmark.py): the targets it judges and the combining of runs saved in
# pieces. Nothing is run under Valgrind here; the runs are made up.
#
# Copyright (C) 2026, the aprof-trms authors.
"""The harness decides MET or MISSED for the issue's targets and assembles a
long full-mode run from pieces: a wrong verdict or a silently merged
inconsistent file would put false numbers in docs/performance.md."""
import argparse
import importlib.util
import json
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    "tool_benchmark", os.path.join(HERE, "..", "benchmarks", "tool_benchmark.py"))
bench = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench)

TOOLS = ["native", "none", "memcheck", "aprof-trms", "aprof-rms"]
WORKLOADS = {w.name: w for w in bench.WORKLOADS}


def runs_of(seconds_by_tool, rss_by_tool, repeat=3):
    """Runs of one case whose median time and RSS are the given ones (the
    other repetitions lie around them)."""
    return {tool: [bench.Run(seconds=s * f, max_rss_kb=int(rss_by_tool[tool] * f),
                             report_bytes=0, cpu_seconds=s * f)
                   for f in (0.9, 1.0, 1.1)[:repeat]]
            for tool, s in seconds_by_tool.items()}


def case_runs(memcheck_ratio, rss_ratio, rms_ratio=0.8):
    """A case whose aprof-trms takes memcheck_ratio x memcheck's time and
    rss_ratio x its peak RSS, aprof-rms rms_ratio x aprof-trms's time."""
    trms = 10.0 * memcheck_ratio
    seconds = {"native": 0.5, "none": 3.0, "memcheck": 10.0, "aprof-trms": trms,
               "aprof-rms": trms * rms_ratio}
    rss = {"native": 1000, "none": 4000, "memcheck": 10000,
           "aprof-trms": 10000 * rss_ratio, "aprof-rms": 9000}
    return runs_of(seconds, rss)


def verdicts(runs):
    summary = bench.summarise(runs)
    return {t["target"]: t for t in bench.evaluate_targets(summary, TOOLS, have_time=True)}


def test_per_workload_limits_name_the_workloads_over_them():
    got = verdicts({"pigz": case_runs(1.2, 0.8), "xz": case_runs(1.4, 1.7),
                    "sqlite3": case_runs(1.31, 0.6)})
    time = got["time ≤ 1.3× memcheck on every workload"]
    assert time["status"] == "MISSED"
    assert time["measured"] == pytest.approx(1.4)
    assert time["missed"] == ["xz 1.40×", "sqlite3 1.31×"]
    rss = got["peak RSS ≤ memcheck's on every workload"]
    assert rss["status"] == "MISSED" and rss["missed"] == ["xz 1.70×"]


def test_geometric_means_decide_the_overall_targets():
    # Time 0.5x and 2x memcheck: geometric mean exactly 1.0, which meets "≤ 1.0".
    got = verdicts({"pigz": case_runs(0.5, 0.9), "xz": case_runs(2.0, 0.9)})
    assert got["geomean time ≤ 1.0× memcheck"]["measured"] == pytest.approx(1.0)
    assert got["geomean time ≤ 1.0× memcheck"]["status"] == "MET"
    assert got["geomean peak RSS ≤ 0.9× memcheck's"]["status"] == "MET"
    # none took 3 s, aprof-trms 5 and 20 s: geometric mean 10 / 3 = 3.33x.
    assert got["geomean time ≤ 3.5× none"]["measured"] == pytest.approx(10.0 / 3.0)
    assert got["geomean time ≤ 3.5× none"]["status"] == "MET"
    over = verdicts({"pigz": case_runs(1.0, 0.95), "xz": case_runs(1.02, 0.9)})
    assert over["geomean time ≤ 1.0× memcheck"]["status"] == "MISSED"
    assert over["geomean peak RSS ≤ 0.9× memcheck's"]["status"] == "MISSED"


def test_rms_target_compares_aprof_rms_with_aprof_trms():
    met = verdicts({"pigz": case_runs(1.0, 1.0, rms_ratio=0.8),
                    "xz": case_runs(1.0, 1.0, rms_ratio=0.9)})
    target = met["geomean time of aprof-rms ≤ 0.85× aprof-trms's"]
    assert target["measured"] == pytest.approx((0.8 * 0.9) ** 0.5)
    assert target["status"] == "MET"
    missed = verdicts({"pigz": case_runs(1.0, 1.0, rms_ratio=0.87)})
    assert missed["geomean time of aprof-rms ≤ 0.85× aprof-trms's"]["status"] == "MISSED"


def test_targets_that_need_an_absent_tool_are_not_evaluated():
    runs = {"pigz": {t: rs for t, rs in case_runs(1.0, 1.0).items() if t != "aprof-rms"}}
    summary = bench.summarise(runs)
    tools = [t for t in TOOLS if t != "aprof-rms"]
    got = {t["target"]: t for t in bench.evaluate_targets(summary, tools, have_time=True)}
    assert got["geomean time of aprof-rms ≤ 0.85× aprof-trms's"]["status"] == \
        "not evaluated (needs aprof-rms)"
    no_time = {t["target"]: t for t in bench.evaluate_targets(summary, tools, have_time=False)}
    assert no_time["geomean peak RSS ≤ 0.9× memcheck's"]["status"].startswith("not evaluated")


def save(path, cases, repeat=3, mode="full", tools=TOOLS, complete=True):
    """A --json file as the harness writes it, for the given {label: runs}."""
    args = argparse.Namespace(full=mode == "full", repeat=repeat, threads=None)
    case_objects = {label: bench.Case(label, WORKLOADS[label], 2) for label in cases}
    summary = bench.summarise(cases) if complete else None
    bench.write_json(str(path), bench.json_record(args, tools, case_objects, cases, 1.0, summary))
    return str(path)


def test_runs_saved_in_pieces_print_as_one(tmp_path, capsys):
    first = save(tmp_path / "a.json", {"pigz": case_runs(1.2, 0.8)})
    # An interrupted run: its finished workload counts, as the harness saves after each.
    second = save(tmp_path / "b.json", {"xz": case_runs(1.4, 1.7)}, complete=False)
    assert bench.main(["--combine", second, first]) == 0
    out = capsys.readouterr().out
    assert "Interrupted (their finished workloads only): %s\n" % second in out
    assert "Combined from 2 run(s)" in out and "Median of 3 runs, full inputs" in out
    rows = [line.split() for line in out.split("Geometric")[0].splitlines()]
    # Every tool of both workloads, in the harness's workload order whatever
    # the order of the files.
    assert [(row[0], row[2]) for row in rows if len(row) > 2 and row[1] == "2"] == \
        [(w, t) for w in ("pigz", "xz") for t in TOOLS]
    assert "xz 1.40×" in out  # the per-workload target saw the second file's workload
    assert not os.path.exists(first + ".part")


@pytest.mark.parametrize("second_kwargs, message", [
    ({"repeat": 2}, "was run with"),
    ({"mode": "quick"}, "was run with"),
    ({"tools": TOOLS[:-1]}, "was run with"),
])
def test_inconsistent_pieces_are_refused(tmp_path, second_kwargs, message):
    first = save(tmp_path / "a.json", {"pigz": case_runs(1.2, 0.8)})
    repeat = second_kwargs.get("repeat", 3)
    tools = second_kwargs.get("tools", TOOLS)
    runs = {"xz": {t: rs[:repeat] for t, rs in case_runs(1.4, 1.7).items() if t in tools}}
    second = save(tmp_path / "b.json", runs, **second_kwargs)
    with pytest.raises(bench.CombineError, match=message):
        bench.combine_saved_runs([first, second])


def test_a_workload_in_two_pieces_is_refused(tmp_path):
    first = save(tmp_path / "a.json", {"pigz": case_runs(1.2, 0.8)})
    second = save(tmp_path / "b.json", {"pigz": case_runs(1.3, 0.8)})
    with pytest.raises(bench.CombineError, match="pigz is in two of the files"):
        bench.combine_saved_runs([first, second])


def test_bad_files_exit_with_a_message(tmp_path):
    good = save(tmp_path / "a.json", {"pigz": case_runs(1.2, 0.8)})
    truncated = tmp_path / "t.json"
    truncated.write_text(open(good).read()[:200])
    other = tmp_path / "o.json"
    other.write_text(json.dumps({"something": "else"}))
    missing_runs = json.load(open(good))
    missing_runs["runs"]["pigz"]["memcheck"].pop()
    short = tmp_path / "s.json"
    short.write_text(json.dumps(missing_runs))
    for path, message in [(truncated, "is not a --json file"), (other, "is not a --json file"),
                          (short, "does not have 3 runs"),
                          (tmp_path / "absent.json", "cannot read")]:
        with pytest.raises(SystemExit) as exit_info:
            bench.main(["--combine", str(path)])
        assert "error: --combine:" in str(exit_info.value) and message in str(exit_info.value)


def test_an_unwritable_json_path_stops_before_any_run(tmp_path, monkeypatch):
    # No workload's program can be found on this PATH: the --json check must
    # come first, whatever the machine has installed.
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--workloads", "pigz", "--tools", "native",
                    "--json", str(tmp_path / "no-such-dir" / "run.json")])
    assert "error: --json: cannot write" in str(exit_info.value)
