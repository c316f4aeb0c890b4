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
- each population evidence of its own: fit.CONFIDENT_CLUSTERS clusters of
  sizes spanning fit.CONFIDENT_SPAN at least;
- interleaved sizes: the two populations' size ranges overlap over at least
  OVERLAP of the narrower one's range on the log scale (a regime change, one
  population at small sizes and the other at large ones, is not this).

Then the costlier population is fitted alone (the worst case per size of
one kind of data) and the other is left out with a note.
"""
import math
from typing import List, Optional, Sequence, Tuple

__all__ = ["SAME_SLOPE", "STRAY", "OVERLAP", "Split", "split"]

SAME_SLOPE = 0.25   # log-log slopes of the two populations at most this far apart
STRAY = 0.05        # share of the points allowed in the middle half of the gap
OVERLAP = 0.5       # the size ranges overlap over this share of the narrower one (log scale)
_ROUNDS = 10        # reassignment rounds of the two-means (it settles in 2 or 3)


class Split:
    """The populations found: upper[i] is True for the points of the
    costlier one; ratio the cost ratio between the two lines; slopes
    (upper, lower) on the log-log scale."""

    def __init__(self, upper: List[bool], ratio: float, slopes: Tuple[float, float]):
        self.upper = upper
        self.ratio = ratio
        self.slopes = slopes

    def note(self) -> str:
        lower = self.upper.count(False)
        return (f"two interleaved populations: {lower} of {len(self.upper)} points on a curve "
                f"{self.ratio:.2g}x cheaper with the same log-log slope ({self.slopes[1]:.2f}, "
                f"the costlier {self.slopes[0]:.2f}) left out; fitted the costlier")


def _line(x: List[float], v: List[float]) -> Optional[Tuple[float, float]]:
    """Least-squares line v = a + s*x, (a, s), or None when x does not vary."""
    mx, mv = sum(x) / len(x), sum(v) / len(v)
    sxx = sum((a - mx) ** 2 for a in x)
    if sxx <= 0.0:
        return None
    slope = sum((a - mx) * (b - mv) for a, b in zip(x, v)) / sxx
    return mv - slope * mx, slope


def _lines(x: List[float], v: List[float], upper: List[bool]):
    """The lines of the two groups, (upper, lower), or None."""
    groups = [[(a, b) for a, b, u in zip(x, v, upper) if u == side] for side in (True, False)]
    if any(len(g) < 2 for g in groups):
        return None
    lines = [_line([a for a, _ in g], [b for _, b in g]) for g in groups]
    return None if None in lines else lines


def _interleaved(x: List[float], upper: List[bool], clusters, span: float, min_clusters: int) -> bool:
    """Each population has min_clusters clusters spanning `span`, and their
    ranges overlap over OVERLAP of the narrower one (log sizes x)."""
    ranges = []
    for side in (True, False):
        sizes = [math.exp(a) for a, u in zip(x, upper) if u == side]
        if clusters(sizes) < min_clusters or max(sizes) < span * min(sizes):
            return False
        ranges.append((min(a for a, u in zip(x, upper) if u == side),
                       max(a for a, u in zip(x, upper) if u == side)))
    overlap = min(ranges[0][1], ranges[1][1]) - max(ranges[0][0], ranges[1][0])
    narrower = min(high - low for low, high in ranges)
    return overlap >= OVERLAP * narrower


def _between(x: List[float], v: List[float], upper_line, lower_line, gap: float) -> int:
    """How many points lie in the middle half of the gap between the two
    lines, more than a quarter of the gap from each: neither population's."""
    count = 0
    for a, b in zip(x, v):
        above_lower = b - (lower_line[0] + lower_line[1] * a)
        below_upper = (upper_line[0] + upper_line[1] * a) - b
        count += above_lower > gap / 4.0 and below_upper > gap / 4.0
    return count


def split(sizes: Sequence[float], costs: Sequence[float], envelope: Sequence[bool],
          drop: float, clusters, span: float, min_clusters: int) -> Optional[Split]:
    """The two populations of the points (module docstring), or None.
    envelope: the upper envelope's mask, the first guess of the costlier
    population; drop: the least cost ratio between the two (fit.ENVELOPE_DROP);
    clusters: evidence.size_clusters; span and min_clusters: what each
    population needs (fit.CONFIDENT_SPAN, fit.CONFIDENT_CLUSTERS)."""
    # The log-log scale has no place for a size or cost of 0: those points
    # keep the envelope's verdict.
    positive = [i for i, (n, y) in enumerate(zip(sizes, costs)) if n > 0.0 and y > 0.0]
    x = [math.log(sizes[i]) for i in positive]
    v = [math.log(costs[i]) for i in positive]
    found = _two_lines(x, v, [envelope[i] for i in positive], drop, clusters, span, min_clusters)
    if found is None:
        return None
    upper = list(envelope)
    for i, u in zip(positive, found.upper):
        upper[i] = u
    found.upper = upper
    return found


def _two_lines(x: List[float], v: List[float], envelope: List[bool], drop: float, clusters,
               span: float, min_clusters: int) -> Optional[Split]:
    """split() on the log-log scale: x log sizes, v log costs."""
    upper = list(envelope)
    for _ in range(_ROUNDS):
        lines = _lines(x, v, upper)
        if lines is None:
            return None
        (au, su), (al, sl) = lines
        nearer = [b - (au + su * a) > (al + sl * a) - b for a, b in zip(x, v)]
        if nearer == upper:
            break
        upper = nearer
    else:
        return None
    gap = min(au - al + (su - sl) * a for a in x)   # between the lines, over the sizes
    if abs(su - sl) > SAME_SLOPE or gap < math.log(drop):
        return None
    if _between(x, v, (au, su), (al, sl), gap) > STRAY * len(x):
        return None
    if not _interleaved(x, upper, clusters, span, min_clusters):
        return None
    ratio = math.exp((au - al) + (su - sl) * sum(x) / len(x))
    return Split(upper, ratio, (su, sl))
