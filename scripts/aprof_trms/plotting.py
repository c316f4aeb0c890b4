# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers shared by plot.py and charts.py: loading reports, output formats
and directories, axis labels, error reporting (short routine names come
from names.py and are re-exported).

Python 3 standard library only at import time; matplotlib is imported by
pyplot() when a script is about to draw (Agg backend: no display needed).

User errors (a malformed report, a pattern that matches nothing, an output
directory that cannot be written, an unknown format) are raised as
UserError (errors.py), report.ReportError or profile.ProfileError, and
cli.run() turns them into one "PROG: error: ..." line on stderr and exit
status 1: never a Python traceback.
"""
import os
import re
import sys
import tempfile
from typing import Dict, List, Optional, Sequence, Tuple

from . import output
from . import profile as aprof_profile
from . import report as aprof_report
from .errors import UserError
from .names import file_stem, short_name, strip_params, unique_stems  # noqa: F401 (re-exported)
from .programs import percent  # noqa: F401 (re-exported)

__all__ = [
    "FORMATS", "UserError", "pyplot", "expand_inputs", "load_reports",
    "check_format", "format_of_path", "prepare_outdir", "parse_size", "save_figure",
    "cost_unit", "cost_label", "size_label", "short_name", "strip_params",
    "file_stem", "unique_stems", "tex_escape", "percent", "compact_number", "declutter_ticks",
    "replace_manifest",
]

FORMATS = ("png", "svg", "pdf")

# Cost metric of the report -> unit written on the axes.
COST_UNITS = {"bb": "basic blocks", "instructions": "instructions"}


def pyplot():
    """matplotlib.pyplot with the Agg backend, or a UserError saying which
    interpreter lacks it."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        import matplotlib
        matplotlib.use("Agg", force=True)
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise UserError(
            f"{sys.executable} cannot import matplotlib ({e}); install Debian's "
            "python3-matplotlib python3-numpy python3-scipy and run this script "
            "with /usr/bin/python3") from None
    # Text stays text in SVG (smaller files, searchable names).
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "aprof-trms"  # reproducible SVG ids
    return plt


# ---------------------------------------------------------------------------
# Inputs.
# ---------------------------------------------------------------------------

def expand_inputs(paths: Sequence[str]) -> List[str]:
    """Report files named by the arguments (aprof_profile.report_files)."""
    try:
        return aprof_profile.report_files(paths)
    except aprof_profile.ProfileError as e:
        raise UserError(str(e)) from None


def load_reports(paths: Sequence[str]) -> List[aprof_report.Report]:
    """Parses every report named by the arguments (ReportError on a bad
    one, ProfileError on one given twice)."""
    reports = [aprof_report.load(f) for f in expand_inputs(paths)]
    digests: Dict[str, str] = {}
    for rep in reports:
        aprof_profile.check_distinct(digests, rep)
    return reports


# ---------------------------------------------------------------------------
# Outputs.
# ---------------------------------------------------------------------------

def check_format(fmt: str) -> str:
    f = fmt.lower().lstrip(".")
    if f not in FORMATS:
        raise UserError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    return f


def format_of_path(path: str, default: str) -> Tuple[str, str]:
    """(path with an extension, format): a known extension sets the format, no
    extension gets the default one, another extension is an error."""
    base, ext = os.path.splitext(path)
    if not ext:
        return f"{path}.{default}", default
    fmt = ext[1:].lower()
    if fmt not in FORMATS:
        raise UserError(f"{path}: unknown format {ext[1:]!r} (the extension must be "
                        f"{', '.join('.' + f for f in FORMATS)})")
    return path, fmt


def prepare_outdir(path: str) -> str:
    """Creates the output directory if needed and checks that files can be
    written in it."""
    if not os.path.isdir(path):
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if ext in FORMATS:
            raise UserError(f"-o takes an output directory, and {path!r} does not exist and "
                            f"looks like a file name; the format is set by --format")
        if os.path.exists(path):
            raise UserError(f"{path}: exists and is not a directory")
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot create output directory {path}: {e.strerror}") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise UserError(f"output directory {path} is not writable: {e.strerror}") from None
    return path


DEFAULT_DPI = 100


def add_output_options(group, picture: str, default_size: str,
                       format_option: Optional[str] = "--format") -> None:
    """--format, --size, --dpi and --quiet, common to plot.py and charts.py;
    `picture` names one output picture in the help ("a chart"). A command
    whose --format is that of its text (contexts.py) names the pictures'
    another way (format_option), or has none (None: producers.py takes it
    from the file name)."""
    if format_option == "--format":
        group.add_argument("-f", "--format", default="png", metavar="FMT",
                           help="png (default), svg or pdf")
    elif format_option:
        group.add_argument(format_option, default="png", metavar="FMT",
                           help="format of the pictures: png (default), svg or pdf")
    group.add_argument("--size", default=default_size, metavar="WxH",
                       help=f"size of {picture} in pixels (default {default_size})")
    group.add_argument("--dpi", type=int, default=DEFAULT_DPI,
                       help=f"resolution of PNG pictures, dots per inch (default {DEFAULT_DPI})")
    group.add_argument("-q", "--quiet", action="store_true",
                       help="do not list the files written on stdout")


def check_output_options(parser, args) -> None:
    """Rejects option values add_output_options accepts syntactically only."""
    if not 20 <= args.dpi <= 1200:
        parser.error("--dpi must be between 20 and 1200")


def parse_size(text: str) -> Tuple[int, int]:
    """'800x500' -> (800, 500) pixels."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m or int(m.group(1)) < 50 or int(m.group(2)) < 50:
        raise UserError(f"bad --size {text!r}: expected WIDTHxHEIGHT in pixels, e.g. 1000x500 "
                        "(at least 50 each)")
    return int(m.group(1)), int(m.group(2))


def save_figure(fig, path: str, fmt: str, dpi: int) -> None:
    """Saves without time stamps (reproducible files) and closes the figure."""
    metadata: Dict[str, Optional[str]] = {}
    if fmt == "svg":
        metadata = {"Date": None}
    elif fmt == "pdf":
        metadata = {"CreationDate": None, "ModDate": None}
    with output.replacing(path, binary=True) as f:
        fig.savefig(f, format=fmt, dpi=dpi, metadata=metadata)
    import matplotlib.pyplot as plt
    plt.close(fig)


# ---------------------------------------------------------------------------
# Labels.
# ---------------------------------------------------------------------------

def cost_unit(cost_metric: str) -> str:
    return COST_UNITS.get(cost_metric, cost_metric)


def cost_label(cost_metric: str, what: str = "cost") -> str:
    """'cost (basic blocks)'."""
    return f"{what} ({cost_unit(cost_metric)})"


def size_label(metric: str, resolution: int) -> str:
    """'TRMS: input size (cells of 4 bytes)'."""
    cells = "cells of 1 byte" if resolution == 1 else f"cells of {resolution} bytes"
    return f"{metric.upper()}: input size ({cells})"


def tex_escape(text: str) -> str:
    """matplotlib reads $...$ as mathematics: names keep their dollars."""
    return text.replace("$", r"\$")


def compact_number(value: float) -> str:
    """A tick label: 950, 1.5k, 20k, 3M, 1.2G; 0.5 and 2e-05 as %g."""
    magnitude = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            return f"{value / limit:.3g}{suffix}"
    return f"{value:.3g}"


def _overlapping(boxes) -> bool:
    return any(a.overlaps(b) for a, b in zip(boxes, boxes[1:]))


def declutter_ticks(fig) -> None:
    """Removes tick labels that would overlap their neighbours: first the
    minor labels of an axis, then every other major label until none
    overlap. Call after layout, before saving."""
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            def visible(ticks):
                return [t.label1 for t in ticks if t.label1.get_visible() and t.label1.get_text()]
            major, minor = axis.get_major_ticks(), axis.get_minor_ticks()
            labels = sorted(visible(major) + visible(minor),
                            key=lambda t: t.get_window_extent(renderer).x0 if axis is ax.xaxis
                            else t.get_window_extent(renderer).y0)
            if not _overlapping([t.get_window_extent(renderer) for t in labels]):
                continue
            for t in visible(minor):
                t.set_visible(False)
            while True:
                shown = visible(major)
                if not _overlapping([t.get_window_extent(renderer) for t in shown]) or len(shown) < 2:
                    break
                for i, t in enumerate(shown):
                    t.set_visible(i % 2 == 0)


MANIFEST = ".plot-files"


def replace_manifest(outdir: str, written: Sequence[str]) -> List[str]:
    """Records the files of OUTDIR this run wrote (OUTDIR/.plot-files) and
    removes those an earlier run recorded and this one did not write again,
    so that no picture of an earlier run is left beside the new ones.
    Only plain file names inside OUTDIR are ever removed; returns them."""
    path = os.path.join(outdir, MANIFEST)
    output.check_target(path)   # read below: never a FIFO
    inside = sorted({os.path.basename(f) for f in written
                     if os.path.dirname(os.path.abspath(f)) == os.path.abspath(outdir)})
    earlier = set()
    if os.path.isfile(path) and not os.path.islink(path):   # never a FIFO behind a link
        with open(path, encoding="utf-8", errors="replace") as f:
            earlier = {line.strip() for line in f if line.strip()}
    removed = []
    for name in sorted(earlier - set(inside)):
        if name == os.path.basename(name) and not name.startswith("."):
            try:
                os.unlink(os.path.join(outdir, name))
                removed.append(name)
            except FileNotFoundError:
                pass
    output.write_text(path, "".join(name + "\n" for name in inside))
    return removed
