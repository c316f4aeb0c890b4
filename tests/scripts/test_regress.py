# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of scripts/regress.py (growth regression gate), run as a program on
pairs of synthetic reports: exit 3 (cli.EXIT_REGRESSION) on a steeper cost
function, 0 otherwise, 1 on input that cannot be compared, 2 on bad usage."""
import os
import re
import subprocess
import sys

import synthetic

EXIT_REGRESSION = 3  # the documented status of the verdict (docs/analysis.md)

REGRESS = os.path.join(synthetic.SCRIPTS, "regress.py")
C = synthetic.COSTS
SIZES = synthetic.sizes(20)


def run(baseline, candidate, *options):
    args = [sys.executable, REGRESS, "--baseline", *map(str, baseline),
            "--candidate", *map(str, candidate), *map(str, options)]
    return subprocess.run(args, capture_output=True, text=True, encoding="utf-8", timeout=120)


def report(path, *routines, **options):
    return synthetic.write_report(path, list(routines), **options)


def R(name, cost, **kw):
    kw.setdefault("noise", 0.01)
    return synthetic.Routine(name, cost, kw.pop("sizes", SIZES), **kw)


def test_linear_to_quadratic_is_a_regression(tmp_path):
    base = report(tmp_path / "base", R("work", C["n"]), R("other", C["n log n"]))
    cand = report(tmp_path / "cand", R("work", C["n^2"]), R("other", C["n log n"]))
    r = run([base], [cand])
    assert r.returncode == EXIT_REGRESSION, r.stdout + r.stderr
    assert re.search(r"^REGRESSION work \(synthetic\): n -> n\^2 \(growth 1\.00 -> 2\.00, \+1\.00\)$",
                     r.stdout, re.M), r.stdout
    assert "other" not in r.stdout
    assert "1 regressed, 0 improved, 0 unconfirmed, 1 unchanged" in r.stdout
    assert r.stdout.rstrip().endswith("FAIL: 1 routine got a steeper cost function")


def test_same_growth_different_constants_and_noise_passes(tmp_path):
    base = report(tmp_path / "base", R("scan", C["n"]), R("sort", C["n log n"]),
                  R("pairs", C["n^2"]), R("hash", C["1"]))
    cand = report(tmp_path / "cand", R("scan", lambda n: 3 * C["n"](n) + 500, noise=0.03),
                  R("sort", lambda n: 0.5 * C["n log n"](n), noise=0.02),
                  R("pairs", lambda n: 2 * C["n^2"](n), noise=0.03),
                  R("hash", lambda n: 1.5 * C["1"](n), noise=0.03), seed=7)
    r = run([base], [cand], "--min-share", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "REGRESSION" not in r.stdout and "IMPROVED" not in r.stdout
    assert "4 routines compared (0 regressed, 0 improved, 0 unconfirmed, 4 unchanged)" in r.stdout
    assert r.stdout.rstrip().endswith("OK: no growth regression")


def test_improvement_is_informational(tmp_path):
    base = report(tmp_path / "base", R("work", C["n^2"]))
    cand = report(tmp_path / "cand", R("work", C["n log n"]))
    r = run([base], [cand])
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^IMPROVED work \(synthetic\): n\^2 -> n log n \(growth 2\.00 -> 1\.10, -0\.90\)$",
                     r.stdout, re.M), r.stdout


def test_tolerance(tmp_path):
    base = report(tmp_path / "base", R("work", C["n"]))
    to_15 = report(tmp_path / "c15", R("work", C["n^1.5"]))
    to_nlogn = report(tmp_path / "cnlogn", R("work", C["n log n"]))
    r = run([base], [to_15])
    assert r.returncode == EXIT_REGRESSION and re.search(r"n -> n\^1\.5\d \(growth 1\.00 -> 1\.5\d, \+0\.5\d\)", r.stdout)
    assert run([base], [to_15], "--tolerance", "0.6").returncode == 0
    # n -> n log n is 0.1 on the growth scale: under the default tolerance.
    r = run([base], [to_nlogn])
    assert r.returncode == 0 and "1 unchanged" in r.stdout
    r = run([base], [to_nlogn], "--tolerance", "0.05")
    assert r.returncode == EXIT_REGRESSION and "REGRESSION work (synthetic): n -> n log n" in r.stdout


def test_weak_evidence_is_unconfirmed(tmp_path):
    # A constant routine whose cost varies with the data, not the size: with
    # report seed 237 its noise happens to fit n^2 with a negligible
    # coefficient (AICc better than the constant by about 2.4).
    # The baseline's fit already doubts itself (its runner-up, another
    # growth, fits about as well): the gate does not fail, whatever the
    # evidence asked for.
    base = report(tmp_path / "base", R("lookup", C["1"], noise=0.02))
    cand = report(tmp_path / "cand", R("lookup", C["1"], noise=0.02), seed=237)
    for options in ((), ("--min-evidence", "0")):
        r = run([base], [cand], *options)
        assert r.returncode == 0, r.stdout + r.stderr
        assert re.search(r"^UNCONFIRMED lookup \(synthetic\): 1 -> n\^2 .*: the baseline fit is "
                         r"inconclusive \(runner-up", r.stdout, re.M), r.stdout


def test_only_confident_fits_with_disjoint_intervals_fail(tmp_path):
    """A gate left on in CI must not fail on a fit that doubts itself or on
    exponents the data cannot tell apart: both sides confident, intervals
    disjoint (and the evidence) or UNCONFIRMED."""
    base = report(tmp_path / "base", R("work", C["n"]))
    clustered = [s for s in (40, 41, 42, 400, 410, 420, 4000, 4100, 4200, 4300)]
    cand = report(tmp_path / "cand", R("work", C["n^2"], sizes=clustered))
    r = run([base], [cand])
    assert r.returncode == 0, r.stdout
    assert re.search(r"^UNCONFIRMED work .*: the candidate fit is inconclusive \(its 10 sizes fall "
                     r"in 3 clusters", r.stdout, re.M), r.stdout
    # n -> n^1.7 with +-25% scatter on 8 sizes: both fits confident (n log n,
    # n^2), each interval narrow enough to name a class, but they overlap.
    noisy = report(tmp_path / "noisy", R("work", C["n"], noise=0.25, sizes=SIZES[:8]), seed=7)
    steeper = report(tmp_path / "steeper", R("work", lambda n: 5 * n ** 1.7 + 50, noise=0.25,
                                               sizes=SIZES[:8]), seed=107)
    for options in ((), ("--min-evidence", "0")):   # whatever the evidence asked for
        r = run([noisy], [steeper], "-v", *options)
        assert r.returncode == 0, r.stdout
        assert re.search(r"^UNCONFIRMED work .*: the exponents' intervals overlap", r.stdout,
                         re.M), r.stdout
    # The same change on clean points is a regression.
    assert run([base], [report(tmp_path / "clean", R("work", lambda n: 5 * n ** 1.5 + 50))]
               ).returncode == EXIT_REGRESSION


def test_the_steeper_points_must_reject_the_flatter_class(tmp_path):
    """n -> n^1.5 on clean points: a regression, unless --min-evidence asks
    the candidate's points to reject n by more than they do; the evidence
    shown is theirs: their AICc with n over their AICc with their own
    model."""
    from aprof_trms import fit as aprof_fit, profile as aprof_profile
    base = report(tmp_path / "base", R("work", C["n"]))
    cand = report(tmp_path / "cand", R("work", lambda n: 5 * n ** 1.5 + 50))
    assert run([base], [cand]).returncode == EXIT_REGRESSION
    result = aprof_fit.fit_routine(aprof_profile.load_profile([cand]).find("work")[0])
    evidence = aprof_fit.fit_model(result.sizes, result.costs, "n").criterion - result.best.criterion
    r = run([base], [cand], "--min-evidence", "1e9")
    assert r.returncode == 0, r.stdout
    assert re.search(r"^UNCONFIRMED work .*: the candidate points fit n almost as well "
                     rf"\(AICc \+{evidence:.1f} < 1e\+09\)", r.stdout, re.M), (evidence, r.stdout)


def test_routines_on_one_side_or_with_few_sizes_are_informational(tmp_path):
    base = report(tmp_path / "base", R("work", C["n"]), R("gone", C["n^3"]),
                  R("few", C["n"], sizes=SIZES[:3]))
    cand = report(tmp_path / "cand", R("work", C["n"]), R("new", C["n^3"]),
                  R("few", C["n^3"], sizes=SIZES[:4]))
    details = ["ONLY IN BASELINE gone (synthetic)", "ONLY IN CANDIDATE new (synthetic)",
               "NOT COMPARED few (synthetic): baseline has 3 distinct trms sizes, 5 needed",
               "UNCHANGED work (synthetic): n -> n (growth 1.00 -> 1.00, +0.00)"]
    summary = "1 not compared (too few sizes), 1 only in baseline, 1 only in candidate"
    # Quiet by default: the counts, the verdict, and how to see the rest.
    r = run([base], [cand], "--min-share", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[0].startswith("regress.py: 1 routine compared"), r.stdout
    assert summary in r.stdout and r.stdout.splitlines()[0].endswith("; -v lists them")
    assert r.stdout.splitlines()[1:] == ["OK: no growth regression"], r.stdout
    for option in ("-v", "--verbose"):
        r = run([base], [cand], option, "--min-share", "0")
        assert r.returncode == 0, r.stdout + r.stderr
        lines = r.stdout.splitlines()
        assert sorted(lines[:4]) == sorted(details), r.stdout
        assert summary in lines[4] and "-v lists them" not in lines[4]
        assert lines[5:] == ["OK: no growth regression"]


def test_several_reports_and_directories_per_side(tmp_path):
    # Each side: three runs (processes) with 3 or 4 of 10 sizes each, too
    # few alone; in different directories (builds elsewhere: objects differ).
    sizes = SIZES[:10]
    for side, cost in (("base", C["n"]), ("cand", C["n^2"])):
        os.mkdir(tmp_path / side)
        for i in range(3):
            report(tmp_path / side / f"aprof-trms.out.{i + 1}",
                   R("work", cost, sizes=sizes[i::3], object=f"/build/{side}/prog"), pid=i + 1)
    r = run([tmp_path / "base"], [tmp_path / "cand"])
    assert r.returncode == EXIT_REGRESSION, r.stdout + r.stderr
    assert "REGRESSION work (prog): n -> n^2" in r.stdout
    files = sorted(str(tmp_path / "cand" / f) for f in os.listdir(tmp_path / "cand"))
    assert run([tmp_path / "base"], files).returncode == EXIT_REGRESSION
    r = run([tmp_path / "base"], files[:1])
    assert r.returncode == 1 and "no routine could be compared" in r.stderr


def test_malformed_report_exits_1_with_file_and_line(tmp_path):
    base = report(tmp_path / "base", R("work", C["n"]))
    lines = open(base).read().splitlines(keepends=True)
    lineno = next(i for i, line in enumerate(lines, 1) if line.startswith("totals\t"))
    bad = tmp_path / "bad"
    bad.write_text("".join(lines[:lineno - 1] + ["totals\t1\t1\n"] + lines[lineno:]))
    r = run([base], [bad])
    assert r.returncode == 1
    assert (f"error: {bad}:{lineno}: 'totals' record needs 5 field(s) after the tag, has 2 "
            "(candidate)") in r.stderr
    assert r.stdout == ""
    truncated = tmp_path / "truncated"
    truncated.write_text("".join(lines)[:-5])   # cut inside the 'end' record
    r = run([truncated], [base])
    assert r.returncode == 1
    assert f"error: {truncated}:{len(lines)}: last line is not terminated by a newline" in r.stderr
    assert r.stderr.endswith(" (baseline)\n")


def test_mismatched_cost_metric_or_resolution_exits_1(tmp_path):
    base = report(tmp_path / "base", R("work", C["n"]))
    instr = report(tmp_path / "instr", R("work", C["n"]), cost_metric="instructions")
    res8 = report(tmp_path / "res8", R("work", C["n"]), resolution=8)
    r = run([base], [instr])
    assert r.returncode == 1
    assert "baseline has cost metric bb and memory resolution 4, candidate instructions and 4" in r.stderr
    r = run([base], [res8])
    assert r.returncode == 1 and "candidate bb and 8" in r.stderr
    r = run([base, instr], [base])                      # within one side
    assert r.returncode == 1 and "cannot be merged" in r.stderr


def test_trms_is_not_compared_with_an_rms_only_run(tmp_path):
    base = report(tmp_path / "base", R("work", C["n"]))
    rms_only = report(tmp_path / "rms", R("work", C["n"]), trms_tracking=False)
    r = run([base], [rms_only])
    assert r.returncode == 1 and "--trms=no" in r.stderr
    r = run([base], [rms_only], "--metric", "rms")
    assert r.returncode == 0, r.stderr


def test_trms_is_not_compared_across_syscall_input_settings(tmp_path):
    base = report(tmp_path / "base", R("work", C["n"]))
    io = report(tmp_path / "io", R("work", C["n"]), syscall_input="io")
    r = run([base], [io])
    assert r.returncode == 1 and "--syscall-input=all, candidate with --syscall-input=io" in r.stderr
    r = run([base], [io], "--metric", "rms")
    assert r.returncode == 0, r.stderr
    r = run([base, io], [base], "--metric", "rms")      # within one side: never merged
    assert r.returncode == 1 and "cannot be merged" in r.stderr


def test_nothing_to_compare_exits_1(tmp_path):
    base = report(tmp_path / "base", R("work", C["n"]))
    other = report(tmp_path / "other", R("unrelated", C["n"]))
    r = run([base], [other])
    assert r.returncode == 1 and "no routine in common" in r.stderr
    few = report(tmp_path / "few", R("work", C["n"], sizes=SIZES[:4]))
    r = run([base], [few])
    assert r.returncode == 1 and "no routine could be compared" in r.stderr


def test_min_share(tmp_path):
    big = lambda n: 1e7  # noqa: E731
    base = report(tmp_path / "base", R("main", big), R("tiny", C["n"]))
    cand = report(tmp_path / "cand", R("main", big), R("tiny", C["n^2"], sizes=SIZES[:8]))
    assert run([base], [cand], "--min-share", "0").returncode == EXIT_REGRESSION
    r = run([base], [cand])   # the default floor is 1%
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 below --min-share" in r.stdout
    # Below the floor on one side only: a routine that became expensive is
    # compared, and its regression fails the gate.
    grown = report(tmp_path / "grown", R("main", big), R("tiny", lambda n: 1e3 * n * n))
    r = run([base], [grown])
    assert r.returncode == EXIT_REGRESSION, r.stdout + r.stderr
    assert re.search(r"^REGRESSION tiny \(synthetic\): n -> n\^2", r.stdout, re.M), r.stdout


def test_usage_errors_exit_2(tmp_path):
    base = report(tmp_path / "base", R("work", C["n"]))
    r = subprocess.run([sys.executable, REGRESS, "--baseline", base], capture_output=True, text=True)
    assert r.returncode == 2 and "--candidate" in r.stderr
    assert run([base], [base], "--tolerance", "-1").returncode == 2
    r = subprocess.run([sys.executable, REGRESS, "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--tolerance" in r.stdout and "--min-evidence" in r.stdout
