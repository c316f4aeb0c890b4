#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The case studies of section 3 of the paper, redone on MariaDB 10.11 and
# vips 8.14 (Debian 12): profiles both programs under aprof-trms, finds the
# routines that play the paper's roles, draws their plots and the Figure 9
# charts, and writes the facts that docs/case-studies.md and the short-mode
# test (tests/tool/test_case_studies.py) rely on.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Profile MariaDB and vips under aprof-trms and draw the paper's case studies.

  run.py [--short] [-o OUTDIR] [--docs-images DIR]

MariaDB: mariadbd runs under the tool on a fresh datadir with a local socket
and a small InnoDB buffer pool, so that the larger tables do not fit in it.
Native clients then (1) load tables of growing sizes (LOAD DATA of generated
files: no SELECT is involved), (2) SELECT all rows of each table, smallest
first, (3) UPDATE every row of the tables, which dirties the pool and makes
InnoDB flush it, and (4) run mysqlslap with concurrent clients (50 in the full
mode, as in the paper). The server is then shut down cleanly, which writes the
report.

vips: `vips sharpen`, `vips conv` (a 5x5 mask) and `vips affine` (a small
rotation) on seeded noise images of growing sizes, with VIPS_CONCURRENCY
worker threads; one report per run, merged by the analysis.

Then, for each program: the routines playing the paper's roles are looked up
by name in the merged profile (ROLES below; Debian's binaries are stripped,
so only exported symbols have names), scripts/plot.py draws their worst-case
and workload plots (TRMS and RMS, with fits), scripts/charts.py draws the
program's charts (induced-by-routine is Figure 9), and OUTDIR/facts.json
records per role routine the numbers the docs quote and the test checks.

Output: OUTDIR/{mariadb,vips}/{reports,plots,charts}, OUTDIR/facts.json,
OUTDIR/roles.txt; with --docs-images DIR, the pictures the docs show are
copied to DIR/case-*.png.

Missing programs are installed with apt-get (packages mariadb-server,
mariadb-client, libvips-tools) unless --no-install is given, in which case
the script stops naming the package. A missing tool build is built with
scripts/lib/build.sh (aprof_build) unless --tool names a launcher.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, NoReturn, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, os.path.join(REPO, "scripts", "lib"))
import debian_packages  # noqa: E402
import servers  # noqa: E402  (server and vips helpers, shared with the tool benchmark)
from aprof_trms import profile as aprof_profile  # noqa: E402

PYTHON = "/usr/bin/python3"
PROGRAMS = ["mariadbd", "mariadb-install-db", "mariadb", "mariadb-admin", "mysqlslap", "vips"]


class Mode:
    """Sizes of one mode. Full: well under an hour on 2 shared cores; short:
    a few minutes, for make check."""

    def __init__(self, short: bool):
        self.name = "short" if short else "full"
        # Rows of the tables, smallest first; 240-byte rows, so the largest
        # tables are several times the buffer pool.
        self.table_rows = ([1000, 2000, 4000, 8000, 16000, 32000] if short else
                           [2000, 4000, 8000, 16000, 32000, 64000, 96000, 128000])
        self.pool = "6M" if short else "8M"
        self.slap_clients = 8 if short else 50
        self.slap_queries = 200 if short else 2000
        self.image_sides = ([200, 300, 400, 500, 600] if short else
                            [300, 500, 700, 900, 1100, 1300, 1500])
        self.vips_ops = ["sharpen"] if short else ["sharpen", "conv", "affine"]
        self.vips_threads = 4


def log(message: str) -> None:
    print("[%s] %s" % (time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)


def die(message: str) -> NoReturn:
    print("run.py: error: %s" % message, file=sys.stderr)
    sys.exit(1)


# --------------------------------------------------------------------------
# Prerequisites


def ensure_programs(install: bool) -> None:
    """Every program on PATH (/usr/sbin included), installed with apt-get when
    missing and allowed; otherwise a message naming the package."""
    os.environ["PATH"] = debian_packages.search_path()
    absent = [prog for prog in PROGRAMS if debian_packages.find_program(prog) is None]
    missing = sorted({debian_packages.package_of(prog) for prog in absent})
    if not missing:
        return
    if not install:
        die("missing programs: %s; install the Debian package(s): apt-get install %s"
            % (", ".join(absent), " ".join(missing)))
    log("installing %s" % " ".join(missing))
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for argv in (sudo + ["apt-get", "update"],
                 sudo + ["apt-get", "install", "-y", "--no-install-recommends"] + missing):
        if subprocess.run(argv, env=env).returncode != 0:
            die("`%s` failed; install the package(s) by hand: apt-get install %s"
                % (" ".join(argv), " ".join(missing)))


def tool_launcher(tool: Optional[str]) -> List[str]:
    """argv prefix running aprof-trms: --tool, else the build tree's
    vg-in-place, built first with scripts/lib/build.sh when missing."""
    if tool:
        return [tool]
    in_place = os.path.join(REPO, "build", "aprof-trms", "vg-in-place")
    if not os.access(in_place, os.X_OK):
        log("building the tool (scripts/lib/build.sh: aprof_build)")
        script = 'source "%s/scripts/lib/build.sh" && aprof_build' % REPO
        if subprocess.run(["bash", "-c", script]).returncode != 0:
            die("building the tool failed")
    return [in_place]


def tool_argv(launcher: List[str], report_dir: str) -> List[str]:
    return launcher + ["-q", "--aprof-out-file=" + os.path.join(report_dir, "aprof-trms.out.%p")]


# --------------------------------------------------------------------------
# MariaDB


def table_file(work: str, rows: int) -> str:
    """A tab-separated file of `rows` seeded rows (id, number, 230 letters)."""
    path = os.path.join(work, "rows-%d.tsv" % rows)
    if not os.path.exists(path):
        rng = random.Random(rows)
        with open(path + ".tmp", "w") as f:
            for i in range(1, rows + 1):
                pad = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=230))
                f.write("%d\t%d\t%s\n" % (i, rng.randrange(1000000), pad))
        os.rename(path + ".tmp", path)
    return path


def server_life(mode: Mode, launcher: List[str], inputs: Dict[str, str], report_dir: str,
                timeout: float, work) -> None:
    """mariadbd under the tool on a fresh copy of the installed datadir:
    start, work(sql, client) with the server ready, clean shutdown (which
    writes the report into report_dir)."""
    servers.mariadb_reset(inputs)
    # Later options win: a pool small enough that the larger tables do not fit.
    server = servers.mariadb_server(inputs, 0) + [
        "--innodb-buffer-pool-size=" + mode.pool, "--innodb-buffer-pool-size-max=" + mode.pool]
    argv = tool_argv(launcher, report_dir) + server
    log("mariadb: starting mariadbd under the tool (pool %s)" % mode.pool)
    os.makedirs(report_dir)
    with tempfile.TemporaryFile() as stderr_file:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=stderr_file, cwd=report_dir, start_new_session=True)

        def fail(problem: str, client_stderr: Optional[str] = None) -> NoReturn:
            stderr_file.seek(0)
            context = ("\nclient stderr (tail):\n" + servers.tail(client_stderr)
                       if client_stderr else "")
            if os.path.exists(inputs["log"]):
                with open(inputs["log"], errors="replace") as f:
                    context += "\nserver log (tail):\n" + servers.tail(f.read())
            servers.fail(problem, argv, stderr_file.read().decode(errors="replace"), context)

        def client(argv: List[str]) -> None:
            servers.run_client(argv, timeout, fail)

        def sql(statements: str) -> None:
            client(servers.mariadb_client("mariadb", inputs) + ["--batch", "--quick", "-e",
                                                              statements])

        try:
            servers.wait_until_ready(proc, servers.MARIADB.ready(inputs), timeout, fail)
            work(sql, client)
            log("mariadb: shutdown")
            servers.stop_server(proc, servers.MARIADB.stop(inputs), timeout, fail)
        finally:
            servers.kill_server(proc)
        if proc.returncode != 0:
            fail("the server exited with status %d" % proc.returncode)


def mariadb_sessions(mode: Mode, launcher: List[str], work: str, report_dir: str,
                     timeout: float) -> None:
    """Two server lives, one report each: `tables` (load, SELECT *, UPDATE:
    Figures 4 and 6) and `slap` (mysqlslap: Figure 8), so that the plots of a
    figure show the activations of its experiment only."""
    inputs = servers.mariadb_datadir(work, mode.slap_queries)
    files = [table_file(work, rows) for rows in mode.table_rows]

    def tables(sql, client) -> None:
        sql("CREATE DATABASE cs")
        for i, (rows, path) in enumerate(zip(mode.table_rows, files)):
            log("mariadb: loading t%d (%d rows)" % (i, rows))
            sql("CREATE TABLE cs.t%d (id INT PRIMARY KEY, n INT, pad CHAR(230)) ENGINE=InnoDB;"
                "LOAD DATA INFILE '%s' INTO TABLE cs.t%d" % (i, path, i))
        for i, rows in enumerate(mode.table_rows):
            log("mariadb: SELECT * FROM t%d (%d rows)" % (i, rows))
            sql("SELECT * FROM cs.t%d" % i)
        for i, rows in enumerate(mode.table_rows):
            log("mariadb: UPDATE t%d (%d rows)" % (i, rows))
            sql("UPDATE cs.t%d SET n = n + 1" % i)

    def slap(sql, client) -> None:
        log("mariadb: mysqlslap, %d clients, %d queries"
            % (mode.slap_clients, mode.slap_queries))
        client(servers.MARIADB.load(inputs, mode.slap_clients))

    server_life(mode, launcher, inputs, os.path.join(report_dir, "tables"), timeout, tables)
    server_life(mode, launcher, inputs, os.path.join(report_dir, "slap"), timeout, slap)


# --------------------------------------------------------------------------
# vips


# A 5x5 blur (integer mask: scale 25, offset 0).
CONV_MASK = "5 5 25 0\n" + "1 1 1 1 1\n" * 5
VIPS_COMMANDS = {
    "sharpen": lambda src, dst, mask: ["vips", "sharpen", src, dst],
    "conv": lambda src, dst, mask: ["vips", "conv", src, dst, mask, "--precision", "integer"],
    "affine": lambda src, dst, mask: ["vips", "affine", src, dst, "0.94 0.34 -0.34 0.94"],
}


def vips_runs(mode: Mode, launcher: List[str], work: str, report_dir: str) -> None:
    mask = os.path.join(work, "blur.mat")
    with open(mask, "w") as f:
        f.write(CONV_MASK)
    env = dict(os.environ, VIPS_CONCURRENCY=str(mode.vips_threads))
    for side in mode.image_sides:
        src = servers.vips_image(work, side)["input"]
        for op in mode.vips_ops:
            log("vips: %s on %dx%d, VIPS_CONCURRENCY=%d" % (op, side, side, mode.vips_threads))
            argv = tool_argv(launcher, report_dir) + VIPS_COMMANDS[op](
                src, os.path.join(work, "out-%s.v" % op), mask)
            result = subprocess.run(argv, env=env, cwd=report_dir, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if result.returncode != 0:
                servers.fail("command exited with status %d" % result.returncode, argv,
                           result.stderr.decode(errors="replace"))



# --------------------------------------------------------------------------
# Routines of the paper's roles


class Role:
    """A routine of the paper (Figures 4 to 8) and the one playing its part
    here: the first of `patterns` (plot.py --routine globs) that names a
    routine of the profile, or a static function found by `resolve`."""

    def __init__(self, key: str, figure: str, paper: str, patterns: List[str],
                 session: str = "", resolve=None):
        self.key, self.figure, self.paper = key, figure, paper
        # session: the reports of the figure's experiment (SESSIONS).
        self.patterns, self.session, self.resolve = patterns, session, resolve


def static_thread_function(library: str, domain: str, anchor: str):
    """A resolver of the static function that `library` starts as a thread of
    `domain` (vips__thread_execute(domain, func, data)): Debian's libvips has
    no symbols for static functions, so the report names it by its address
    in the object, "0x<address>@<file name>" (docs/manual.md). The call site
    loads the domain string into %rdi next to the function's address into
    %rsi; objdump shows both targets. `anchor`, an exported function of the
    same library, tells which object of the profile is the library."""

    def resolve(profile) -> Optional[str]:
        lib = next((r.object for r in profile.routines.values()
                    if os.path.basename(r.object).startswith(library) and r.name == anchor), None)
        if lib is None:
            return None
        data = open(lib, "rb").read()
        string = data.find(b"\0" + domain.encode() + b"\0") + 1
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], check=True,
                             stdout=subprocess.PIPE, text=True).stdout.splitlines()
        headers = subprocess.run(["objdump", "-h", lib], check=True, stdout=subprocess.PIPE,
                                 text=True).stdout.split()
        # .rodata: size, vma, lma, file offset follow its name.
        i = headers.index(".rodata")
        vma, offset = int(headers[i + 2], 16), int(headers[i + 4], 16)
        target = "# %x " % (string - offset + vma)
        for n, line in enumerate(dis):
            if "%rdi" in line and line.rstrip().endswith(">") and target in line + " ":
                for prev in reversed(dis[max(0, n - 3):n]):
                    if "lea" in prev and "%rsi" in prev:
                        func = int(prev.split("#")[1].split()[0], 16)
                        return "0x%x@%s" % (func, os.path.basename(lib))
        return None

    return resolve


# The report directories of a program, under OUTDIR/PROGRAM/reports.
SESSIONS = {"mariadb": ["tables", "slap"], "vips": [""]}

ROLES = {
    "mariadb": [
        Role("select", "4", "mysql_select", ["mysql_select(*"], session="tables"),
        Role("flush", "6", "buf_flush_buffered_writes",
             # InnoDB's routines are not exported (no names in Debian's
             # build): the write of a flushed page or doublewrite batch is
             # done by the simulated-AIO callback (native AIO is off).
             ["tpool::simulated_aio::simulated_aio_callback(*"], session="tables"),
        Role("send_eof", "8", "Protocol::send_eof", ["Protocol::send_eof(*"], session="slap"),
    ],
    "vips": [
        Role("generate", "5", "im_generate", ["vips_image_generate"]),
        Role("prepare", "5", "im_generate (the tile work)", ["vips_region_prepare_to"]),
        Role("wbuffer", "7", "wbuffer_write_thread", [],
             resolve=static_thread_function("libvips.so", "wbuffer", "vips_sink_disc")),
    ],
}


def find_roles(program: str, reports: str) -> Dict[str, dict]:
    """{role key: routine facts} of the roles found in the reports of their
    sessions."""
    found = {}
    profiles = {}
    for role in ROLES[program]:
        if role.session not in profiles:
            profiles[role.session] = aprof_profile.load_profile(
                [os.path.join(reports, role.session)])
        profile = profiles[role.session]
        names = [role.resolve(profile)] if role.resolve else []
        names += [rp.name for pattern in role.patterns for rp in profile.find(pattern)[:1]]
        routines = [rp for name in names if name for rp in profile.find(name)[:1]]
        if not routines:
            log("%s: no routine for the role of %s (patterns %s)"
                % (program, role.paper, role.patterns or "static function"))
            continue
        found[role.key] = routine_facts(routines[0], role)
    return found


def costliest(rp, count: int = 12) -> List[List[int]]:
    """[cost, TRMS, RMS] of the costliest activations whose cost is unique
    among both metrics' worst cases: the same activation in both plots."""
    by_cost: Dict[int, List[int]] = {}
    for metric in ("trms", "rms"):
        for size, point in rp.points(metric).items():
            by_cost.setdefault(point.max_cost, []).append(size if point.calls == 1 else -1)
    pairs = [[cost] + sizes for cost, sizes in by_cost.items()
             if len(sizes) == 2 and min(sizes) >= 0]
    return sorted(pairs, reverse=True)[:count]


def routine_facts(rp, role: Role) -> dict:
    return {
        "role": role.key, "figure": role.figure, "paper": role.paper, "name": rp.name,
        "object": rp.object, "calls": rp.calls, "cumulative_cost": rp.cumulative_cost,
        "distinct_trms": len(rp.trms), "distinct_rms": len(rp.rms),
        "max_trms": max(rp.trms), "max_rms": max(rp.rms),
        "sum_trms": rp.sum_trms, "sum_rms": rp.sum_rms,
        "thread_induced": rp.thread_induced, "external": rp.external,
        "costliest": costliest(rp), "session": role.session,
    }


def induced_split(profile, top: int = 30) -> dict:
    """The reading of Figure 9: how many routines have more external than
    thread-induced reads, among all routines with induced reads and among the
    `top` of largest induced share of their TRMS (the bars charts.py draws)."""
    induced = [rp for rp in profile.routines.values() if rp.thread_induced + rp.external]
    shown = sorted(induced, key=lambda rp: -(rp.thread_induced + rp.external) / rp.sum_trms)[:top]

    def split(routines) -> dict:
        return {"routines": len(routines),
                "mostly_external": sum(rp.external > rp.thread_induced for rp in routines),
                "mostly_thread": sum(rp.thread_induced > rp.external for rp in routines)}

    return {"all_routines": len(profile.routines), "with_induced": split(induced),
            "top": split(shown)}


# --------------------------------------------------------------------------
# Pictures


def run_script(name: str, args: List[str]) -> None:
    argv = [PYTHON, os.path.join(REPO, "scripts", name)] + args
    result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        die("`%s` failed:\n%s" % (" ".join(argv), result.stderr))


def summary_sections(path: str) -> Dict[str, Dict[str, str]]:
    """plot.py's summary.txt: {routine name: {key: value}}."""
    sections: Dict[str, Dict[str, str]] = {}
    current = None
    with open(path) as f:
        for line in f:
            if line.startswith("== ") and line.rstrip().endswith(" =="):
                current = sections.setdefault(line.strip()[3:-3], {})
            elif current is not None and ":" in line:
                key, value = line.split(":", 1)
                current[key.strip()] = value.strip()
    return sections


def draw(program: str, out: str, roles: Dict[str, dict]) -> None:
    """plot.py for the roles of each session (OUT/plots/SESSION), charts.py
    for all the program's reports (OUT/charts); the fitted models and the
    files drawn are added to the roles' facts."""
    reports = os.path.join(out, "reports")
    for session in SESSIONS[program]:
        chosen = [facts for facts in roles.values() if facts["session"] == session]
        if not chosen:
            continue
        plots = os.path.join(out, "plots", session)
        log("%s: plot.py (%d routines)" % (program, len(chosen)))
        run_script("plot.py", ["-q", "--stats", "-o", plots, os.path.join(reports, session)]
                   + [arg for facts in chosen for arg in ("-r", facts["name"])])
        sections = summary_sections(os.path.join(plots, "summary.txt"))
        for facts in chosen:
            section = sections[facts["name"]]
            for key in ("TRMS model", "TRMS formula", "RMS  model", "RMS  formula"):
                facts[key.replace("  ", " ")] = section.get(key, "")
            facts["files"] = [os.path.join(plots, f) for f in section["files"].split(", ")]
    log("%s: charts.py" % program)
    run_script("charts.py", ["-q", "-o", os.path.join(out, "charts")]
               + [os.path.join(reports, session) for session in SESSIONS[program]])


def copy_doc_images(out: str, facts: dict, images: str) -> List[str]:
    """The pictures docs/case-studies.md shows, as case-PROGRAM-ROLE-KIND.png."""
    copied = []
    os.makedirs(images, exist_ok=True)
    for program, roles in facts["programs"].items():
        for role, routine in roles["roles"].items():
            for path in routine["files"]:
                kind = path.rsplit("-", 1)[1]
                if kind.startswith("stats."):  # in OUTDIR only
                    continue
                dest = os.path.join(images, "case-%s-%s-%s" % (program, role, kind))
                shutil.copyfile(path, dest)
                copied.append(dest)
        dest = os.path.join(images, "case-%s-induced-by-routine.png" % program)
        shutil.copyfile(os.path.join(out, program, "charts", "induced-by-routine.png"), dest)
        copied.append(dest)
    return copied


# --------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--short", action="store_true",
                        help="small sizes (a few minutes): the mode make check runs")
    parser.add_argument("-o", "--output-dir", default=os.path.join(REPO, "build", "case-studies"),
                        help="output directory, emptied first [default: build/case-studies]")
    parser.add_argument("--programs", default="mariadb,vips",
                        help="comma-separated: mariadb, vips [default: both]")
    parser.add_argument("--tool", help="aprof-trms launcher [default: build/aprof-trms/"
                                       "vg-in-place, built if missing]")
    parser.add_argument("--no-install", dest="install", action="store_false",
                        help="do not apt-get missing programs: stop, naming the package")
    parser.add_argument("--docs-images", metavar="DIR",
                        help="also copy the pictures of the doc to DIR/case-*.png")
    parser.add_argument("--replot", action="store_true",
                        help="do not profile: draw again from the reports of a previous run "
                             "in OUTDIR")
    parser.add_argument("--server-timeout", type=float, default=1800, metavar="SECONDS",
                        help="limit of each step of the server [default: %(default)g]")
    args = parser.parse_args(argv)
    args.programs = [p for p in args.programs.split(",") if p]
    unknown = set(args.programs) - set(ROLES)
    if unknown or not args.programs:
        parser.error("--programs: expected mariadb and/or vips")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    out = os.path.abspath(args.output_dir)
    work = os.path.join(out, "work")
    facts_file = os.path.join(out, "facts.json")
    previous = None
    if os.path.exists(facts_file):
        with open(facts_file) as f:
            previous = json.load(f)
    if args.replot:
        if previous is None:
            die("--replot: no previous run in %s (facts.json)" % out)
        mode = Mode(previous["mode"] == "short")
    else:
        mode = Mode(args.short)
        ensure_programs(args.install)
        launcher = tool_launcher(args.tool)
    if previous is not None and previous["mode"] != mode.name:
        previous = None  # the other programs' results are of the other mode
    os.makedirs(work, exist_ok=True)
    facts = {"mode": mode.name, "pool": mode.pool, "table_rows": mode.table_rows,
             "slap_clients": mode.slap_clients, "slap_queries": mode.slap_queries,
             "image_sides": mode.image_sides, "vips_ops": mode.vips_ops,
             "vips_threads": mode.vips_threads,
             "seconds": previous["seconds"] if previous else {},
             "programs": previous["programs"] if previous else {}}
    for program in args.programs:
        program_dir = os.path.join(out, program)
        reports = os.path.join(program_dir, "reports")
        if not args.replot:
            shutil.rmtree(program_dir, ignore_errors=True)
            os.makedirs(reports)
            started = time.monotonic()
            if program == "mariadb":
                mariadb_sessions(mode, launcher, work, reports, args.server_timeout)
            else:
                vips_runs(mode, launcher, work, reports)
            facts["seconds"][program] = round(time.monotonic() - started)
        started = time.monotonic()
        roles = find_roles(program, reports)
        draw(program, program_dir, roles)
        profile = aprof_profile.load_profile(
            [os.path.join(reports, session) for session in SESSIONS[program]])
        facts["programs"][program] = {"reports": len(profile.paths), "roles": roles,
                                      "induced_split": induced_split(profile)}
        facts["seconds"][program + " drawing"] = round(time.monotonic() - started)
    shutil.rmtree(work)
    with open(facts_file, "w") as f:
        json.dump(facts, f, indent=1)
    with open(os.path.join(out, "roles.txt"), "w") as f:
        for program, data in facts["programs"].items():
            for role in data["roles"].values():
                f.write("%s\tFigure %s\t%s\t->\t%s\n"
                        % (program, role["figure"], role["paper"], role["name"]))
    if args.docs_images:
        copy_doc_images(out, facts, args.docs_images)
    log("done: %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
