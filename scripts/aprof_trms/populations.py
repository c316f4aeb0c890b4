# SPDX-License-Identifier: GPL-2.0-or-later
"""Two interleaved populations of points: one routine doing the same work on
two kinds of data, each kind with its own cost per cell.

An interpreter's sort called on lists of integers and on lists of strings
(lua's `table.sort`, php's `sort()`, ruby's `Array#sort`, tclsh's `lsort`)
has two worst-case curves: at every size the string sorts cost a few times
more than the integer sorts, and the sizes of the two kinds interleave.
The upper envelope (fit.py) leaves the cheaper kind out as "a cheaper path"
where a costlier point lies at a smaller size, and keeps it where none does:
beyond the largest string sort, or between two sparse ones. The envelope
then holds less than half of the points (a thin envelope) and its largest
points come from the other curve (the fit misses the largest sizes), and
the fit is called inconclusive although both kinds grow the same way.

split() recognises the case from the points alone: two straight lines on
the log-log scale, one per population (each point belongs to the nearer
line: two-means with lines, started from the envelope's split), with

- the same slope, within SAME_SLOPE (the same growth, a constant ratio);
- a gap of at least fit.ENVELOPE_DROP between them (the envelope's own
  idea of a cheaper path) that the points leave empty: at most STRAY of
  the points lie in its middle half, more than a quarter of the gap from
  both lines (two bands, not one cloud of scattered costs that two-means
  would cut in two; points below the cheaper line are that population's
  cheaper paths);
- each population a curve of its own: its line explains its points with
  R^2 at least fit.CONFIDENT_R2 on the log-log scale (a rising curve, not a
  band of scattered costs), and its sizes are evidence enough for a fit
  (fit.CONFIDENT_CLUSTERS clusters spanning fit.CONFIDENT_SPAN at least);
- interleaved sizes: the two populations' size ranges overlap over at least
  OVERLAP of the narrower one's range on the log scale (a regime change, one
  population at small sizes and the other at large ones, is not this).

Then the costlier population is fitted alone (the worst case per size of
one kind of data) and the other is left out with a note.
"""
import math
from typing import Callable, List, Optional, Sequence, Tuple

from . import evidence

__all__ = ["SAME_SLOPE", "STRAY", "OVERLAP", "Split", "split"]

SAME_SLOPE = 0.25   # log-log slopes of the two populations at most this far apart
STRAY = 0.05        # share of the points allowed in the middle half of the gap
OVERLAP = 0.5       # the size ranges overlap over this share of the narrower one (log scale)
_ROUNDS = 10        # reassignment rounds of the two-means (it settles in 2 or 3)

Line = Tuple[float, float]   # (a, s): log cost = a + s * log size


class Split:
    """The populations found: upper[i] is True for the points of the
    costlier one; ratio the cost ratio between the two lines at the mean
    log size; slopes (the costlier's, the cheaper's) on the log-log scale."""

    def __init__(self, upper: List[bool], ratio: float, slopes: Tuple[float, float]):
        self.upper = upper
        self.ratio = ratio
        self.slopes = slopes

    def note(self) -> str:
        lower = self.upper.count(False)
        return (f"two interleaved populations: {lower} of {len(self.upper)} points on a curve "
                f"{self.ratio:.2g}x cheaper with the same log-log slope ({self.slopes[1]:.2f}, "
                f"the costlier {self.slopes[0]:.2f}) left out; fitted the costlier")


def split(sizes: Sequence[float], costs: Sequence[float], envelope: Sequence[bool], drop: float,
          min_r2: float, enough_sizes: Callable[[List[float]], bool]) -> Optional[Split]:
    """The two populations of the points (module docstring), or None.
    envelope: the upper envelope's mask, the first guess of the costlier
    population; drop: the least cost ratio between the two
    (fit.ENVELOPE_DROP); min_r2: what each population's line must explain
    (fit.CONFIDENT_R2); enough_sizes(sizes): whether one population's sizes
    are evidence enough for a fit (fit.py: clusters and span)."""
    # The log-log scale has no place for a size or cost of 0: those points
    # keep the envelope's verdict.
    positive = [i for i, (n, y) in enumerate(zip(sizes, costs)) if n > 0.0 and y > 0.0]
    x = [math.log(sizes[i]) for i in positive]
    v = [math.log(costs[i]) for i in positive]
    upper = _two_means(x, v, [bool(envelope[i]) for i in positive])
    if upper is None:
        return None
    upper_line, lower_line = _lines(x, v, upper)
    slopes = upper_line[1], lower_line[1]
    # The narrowest gap between the lines over the sizes.
    gap = min(upper_line[0] - lower_line[0] + (slopes[0] - slopes[1]) * a for a in x)
    if (abs(slopes[0] - slopes[1]) > SAME_SLOPE or gap < math.log(drop)
            or _between(x, v, upper_line, lower_line, gap) > STRAY * len(x)
            or not _on_lines(x, v, upper, (upper_line, lower_line), min_r2)
            or not _interleaved(x, upper, enough_sizes)):
        return None
    mean = sum(x) / len(x)
    mask = list(map(bool, envelope))
    for i, u in zip(positive, upper):
        mask[i] = u
    return Split(mask, math.exp(upper_line[0] - lower_line[0] + (slopes[0] - slopes[1]) * mean),
                 slopes)


def _two_means(x: List[float], v: List[float], upper: List[bool]) -> Optional[List[bool]]:
    """Two-means with lines, started from `upper`: each point goes to the
    line it is nearer to (above the middle line: the costlier), until no
    point moves; None when a group runs out of points or it does not
    settle."""
    for _ in range(_ROUNDS):
        lines = _lines(x, v, upper)
        if lines is None:
            return None
        (au, su), (al, sl) = lines
        nearer = [2.0 * b > au + al + (su + sl) * a for a, b in zip(x, v)]
        if nearer == upper:
            return upper
        upper = nearer
    return None


def _group(x: List[float], v: List[float], upper: List[bool], side: bool):
    """The (log sizes, log costs) of one population."""
    return [a for a, u in zip(x, upper) if u == side], [b for b, u in zip(v, upper) if u == side]


def _lines(x: List[float], v: List[float], upper: List[bool]) -> Optional[List[Line]]:
    """The lines of the costlier and the cheaper group, or None."""
    lines = []
    for side in (True, False):
        gx, gv = _group(x, v, upper, side)
        line = evidence.least_squares_line(gx, gv)
        if line is None:
            return None
        lines.append(line)
    return lines


def _between(x: List[float], v: List[float], upper_line: Line, lower_line: Line, gap: float) -> int:
    """How many points lie in the middle half of the gap between the two
    lines, more than a quarter of the gap from each: neither population's."""
    count = 0
    for a, b in zip(x, v):
        above_lower = b - (lower_line[0] + lower_line[1] * a)
        below_upper = (upper_line[0] + upper_line[1] * a) - b
        count += above_lower > gap / 4.0 and below_upper > gap / 4.0
    return count


def _r2(x: List[float], v: List[float], line: Line) -> float:
    """R^2 of a line through the points, 0 when v does not vary."""
    mv = sum(v) / len(v)
    total = sum((b - mv) ** 2 for b in v)
    residual = sum((b - line[0] - line[1] * a) ** 2 for a, b in zip(x, v))
    return 1.0 - residual / total if total > 0.0 else 0.0


def _on_lines(x: List[float], v: List[float], upper: List[bool], lines: Sequence[Line],
              min_r2: float) -> bool:
    """Each population's line explains its points with R^2 >= min_r2: a
    curve that rises, not a band of scattered costs."""
    return all(_r2(*_group(x, v, upper, side), line) >= min_r2
               for side, line in zip((True, False), lines))


def _interleaved(x: List[float], upper: List[bool], enough_sizes) -> bool:
    """Each population's sizes are evidence enough, and their ranges
    overlap over OVERLAP of the narrower one (x: log sizes)."""
    ranges = []
    for side in (True, False):
        logs = [a for a, u in zip(x, upper) if u == side]
        if not enough_sizes([math.exp(a) for a in logs]):
            return False
        ranges.append((min(logs), max(logs)))
    overlap = min(ranges[0][1], ranges[1][1]) - max(ranges[0][0], ranges[1][0])
    narrower = min(high - low for low, high in ranges)
    return overlap >= OVERLAP * narrower
