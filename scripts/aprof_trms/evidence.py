# SPDX-License-Identifier: GPL-2.0-or-later
"""What a routine's points support, whatever model was fitted to them.

A fit through hundreds of sizes is strong evidence only if the sizes are
spread out: a server whose replies come in four value sizes gives hundreds
of distinct sizes in four clusters, and a model with three parameters
through four clusters proves nothing. And a model that fits well on the
whole range can grow much faster than the points do where it matters, at
the largest sizes, where extrapolation starts: a mixed model such as
`-113 + 4.63·n + 7.15e-6·n^3` (a zlib routine, ranked first at 10x input)
grows with its n^3 term at the largest sizes, where its points rise with a
log-log slope of 1.86. This module measures both,
from the points alone:

- size_clusters(): sizes grouped on a log scale (a new cluster starts more
  than CLUSTER_GAP times above the first size of the current one; 0 is a
  cluster of its own), and size_span(), largest over smallest nonzero size;
- tail_slope(): the log-log slope of the points at the largest sizes (the
  median of the slopes between pairs of them, Theil-Sen, over the largest
  doubling of the sizes, widened until it holds TAIL_CLUSTERS clusters);
- local_slope(): the same slope of a fitted model, d log f / d log n, at a
  size;
- disagrees_with_points(): whether a model's slope at the largest size
  disagrees with its points' there: by more than SLOPE_TOLERANCE either
  way, or steeper by more than STEEPER_TOLERANCE when the fit's own
  exponent interval lies wholly above the points' slope;
  steeper_than_the_top(): or steeper than the upper end of the points'
  slope interval (tail_slope_high) by more than a log factor adds at the
  largest size (log_factor_slope);
- growth_factor(): how much a fit predicts the cost to grow when the input
  grows k-fold beyond the largest size, following the points' slope when
  the model is steeper there than they are (a term the data do not show
  does not extrapolate);
- input_fixed_across_processes(): whether a routine's largest input stays
  the same in every process of a profile whose processes' costs grow
  (one process per input: its input is not the program's).

fit.py uses them to decide whether a fit is conclusive; rank.py's
prediction and regress.py's gate follow from there. numpy from Debian.
"""
import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["least_squares_line", "CLUSTER_GAP", "TAIL_CLUSTERS", "SLOPE_TOLERANCE", "STEEPER_TOLERANCE",
           "FIXED_INPUT_SPAN", "PROCESS_COST_SPAN", "MIN_PROCESSES", "size_clusters", "size_span",
           "tail_slope", "tail_slope_high", "local_slope", "disagrees_with_points",
           "model_steeper_than_points",
           "steeper_than_the_top", "log_factor_slope", "growth_factor",
           "input_fixed_across_processes"]

CLUSTER_GAP = 1.15      # sizes within this factor of a cluster's first size join it
TAIL_CLUSTERS = 3       # clusters the tail slope is measured on (at least)
SLOPE_TOLERANCE = 0.35  # a model's local slope this far from the points' disagrees with them
# ... and this much steeper, when its exponent interval lies above the points' slope
STEEPER_TOLERANCE = 0.2
# A routine whose largest input spans less than FIXED_INPUT_SPAN over at
# least MIN_PROCESSES processes whose costs span PROCESS_COST_SPAN or more
# does not grow with the program's input.
FIXED_INPUT_SPAN = 1.5
PROCESS_COST_SPAN = 10.0
MIN_PROCESSES = 3
_MAX_TAIL_POINTS = 200  # points of the tail the slope is measured on (evenly sampled)


def least_squares_line(x: Sequence[float], v: Sequence[float]) -> Optional[Tuple[float, float]]:
    """(intercept, slope) of the least-squares line of v on x, or None when
    x does not vary: on log sizes and log costs, the points' power law."""
    if len(x) < 2:
        return None
    mx, mv = sum(x) / len(x), sum(v) / len(v)
    sxx = sum((a - mx) ** 2 for a in x)
    if sxx <= 0.0:
        return None
    slope = sum((a - mx) * (b - mv) for a, b in zip(x, v)) / sxx
    return mv - slope * mx, slope


def size_clusters(sizes: Sequence[float]) -> int:
    """Number of clusters of the sizes on a log scale (module docstring)."""
    clusters, start = 0, None
    for size in sorted(set(float(s) for s in sizes)):
        if start is None or (start == 0.0 and size > 0.0) or size > start * CLUSTER_GAP:
            clusters += 1
            start = size
    return clusters


def size_span(sizes: Sequence[float]) -> float:
    """Largest size over the smallest nonzero one (1 when fewer than two)."""
    positive = [float(s) for s in sizes if s > 0]
    return max(positive) / min(positive) if len(positive) >= 2 else 1.0


def _tail_low(sizes: Sequence[float]) -> float:
    """The smallest size of the points at the largest sizes: the largest
    doubling, widened by doublings until it holds TAIL_CLUSTERS clusters."""
    top, bottom = max(sizes), min(sizes)
    low = top / 2.0
    while low > bottom and size_clusters([s for s in sizes if s >= low]) < TAIL_CLUSTERS:
        low /= 2.0
    return low


def tail_slope(sizes: Sequence[float], costs: Sequence[float]) -> Optional[float]:
    """Log-log slope of the points at the largest sizes, or None when they
    cannot tell one (fewer than two positive sizes or costs there).

    Theil-Sen: the median of the slopes between pairs of points of
    different sizes. The worst-case points of a routine that runs different
    code for inputs of one size scatter by orders of magnitude, and one low
    point near the top would swing a least-squares slope."""
    slopes, _ = _tail_pair_slopes(sizes, costs)
    if not slopes:
        return None
    half = len(slopes) // 2
    return slopes[half] if len(slopes) % 2 else (slopes[half - 1] + slopes[half]) / 2.0


def tail_slope_high(sizes: Sequence[float], costs: Sequence[float]) -> Optional[float]:
    """The upper end of the 95% interval of tail_slope (Sen's, from the
    ranks of the pairs' slopes: Kendall's S over m points has the variance
    m (m - 1) (2m + 5) / 18), or None when there is no slope. Three points
    exactly on a line give their slope; three noisy points, their largest
    pair slope."""
    slopes, points = _tail_pair_slopes(sizes, costs)
    if not slopes:
        return None
    spread = 1.96 * math.sqrt(points * (points - 1) * (2 * points + 5) / 18.0)
    return slopes[min(len(slopes) - 1, math.ceil((len(slopes) + spread) / 2.0))]


def _tail_pair_slopes(sizes: Sequence[float], costs: Sequence[float]) -> Tuple[List[float], int]:
    """(the sorted slopes between pairs of the points at the largest sizes
    of different sizes, the number of those points). At most
    _MAX_TAIL_POINTS points, evenly over the sizes, so that the pairs stay
    few; plain Python for them (a routine's few dozen points cost less than
    numpy's calls)."""
    pairs = sorted((n, y) for n, y in zip(sizes, costs) if n > 0 and y > 0)
    if len({n for n, _ in pairs}) < 2:
        return [], 0
    low = _tail_low([n for n, _ in pairs])
    tail = [(math.log(n), math.log(y)) for n, y in pairs if n >= low]
    if len(tail) > _MAX_TAIL_POINTS:
        step = (len(tail) - 1) / (_MAX_TAIL_POINTS - 1)
        tail = [tail[int(i * step)] for i in range(_MAX_TAIL_POINTS)]
    slopes = sorted((v2 - v1) / (x2 - x1) for i, (x1, v1) in enumerate(tail)
                    for x2, v2 in tail[i + 1:] if x2 != x1)
    return slopes, len(tail)


def local_slope(predict, size: float) -> Optional[float]:
    """d log f / d log n of a model (its predict function) at `size`, or
    None where the model is not positive."""
    if size <= 0:
        return None
    step = 1.01
    low, high = (float(np.asarray(predict([size / step, size * step]), dtype=float)[i])
                 for i in (0, 1))
    if low <= 0 or high <= 0:
        return None
    return math.log(high / low) / (2.0 * math.log(step))


def disagrees_with_points(model_slope: float, points_slope: float,
                          interval: Optional[Tuple[float, float]]) -> bool:
    """Whether a model's log-log slope at the largest size disagrees with
    its points' slope there (tail_slope): more than SLOPE_TOLERANCE apart,
    or steeper by more than STEEPER_TOLERANCE while the fit's own 95%
    interval of the exponent lies wholly above the points' slope. The
    interval is what the fit claims its exponent to be; when the largest
    sizes rise more slowly than all of it, the exponent was set by the
    smaller sizes, and a size that holds a slowly growing state besides
    the operand (the allocator's bins and chunk headers read by every
    activation of bc's multiplication: 112 to 655 cells over operands of
    25 to 5,000) compresses the small end of the size range and steepens
    the exponent there: bc's Karatsuba (n^1.58 in its digits) fitted
    n^2.21 [2.04, 2.38] where its points rise with slope 1.90 at the
    largest sizes. The smaller margin stays above the slope a log factor
    adds to n between sizes 100 and 10^6 (1 / ln n, 0.07 to 0.22: an
    n log n class against points that look linear at the top)."""
    gap = model_slope - points_slope
    if abs(gap) > SLOPE_TOLERANCE:
        return True
    return gap > STEEPER_TOLERANCE and interval is not None and points_slope < interval[0]


def model_steeper_than_points(model_slope: float, points_slope: float,
                              interval: Optional[Tuple[float, float]]) -> bool:
    """Whether a model grows faster at the largest size than its points
    do, by disagrees_with_points' measure: its growth there is then not
    supported, and what extrapolates is the points' slope (growth_factor)."""
    return model_slope > points_slope and disagrees_with_points(model_slope, points_slope, interval)


def steeper_than_the_top(model_slope: float, points_slope: float,
                         interval: Optional[Tuple[float, float]],
                         sizes: Sequence[float], costs: Sequence[float]) -> bool:
    """Whether a model is steeper at the largest size than its points can
    rise there: its slope exceeds the upper end of the points' slope
    interval (tail_slope_high) by more than a log factor adds at the
    largest size (log_factor_slope), and the fit's own exponent interval
    lies wholly above that end. disagrees_with_points lets a model be up
    to STEEPER_TOLERANCE steeper, for an n log n class against points that
    look linear at the top: their slope is uncertain, and a log factor
    adds 0.07 to 0.22 between sizes 10^6 and 100. Where the points at the
    top lie on a line, their slope is certain and the log factor is the
    one of the largest size: tclsh's TclFreeObj fitted `27 - 3.96·n +
    0.75·n log n` [1.10, 1.27] through two kinds of frees (about 3 blocks
    per cell up to 1,746 cells, 7 from 2,226 on: the step bends the fit),
    slope 1.12 at 164,781 cells, where a log factor adds 0.08 and its
    three largest points rise with slopes 0.99 to 1.01."""
    largest = max(sizes)
    margin = log_factor_slope(largest)
    if interval is None or model_slope - points_slope <= margin or points_slope >= interval[0]:
        return False
    high = tail_slope_high(sizes, costs)
    return high is not None and model_slope - high > margin and high < interval[0]


def log_factor_slope(size: float) -> float:
    """The log-log slope a log factor adds to a power at `size`, 1 / ln n
    (d ln ln n / d ln n), at most SLOPE_TOLERANCE (sizes below 18)."""
    return 1.0 / math.log(size) if size > math.exp(1.0 / SLOPE_TOLERANCE) else SLOPE_TOLERANCE


def growth_factor(predict, largest: float, scale: float, points_slope: Optional[float],
                  model_slope: Optional[float],
                  interval: Optional[Tuple[float, float]] = None) -> Tuple[float, bool]:
    """(factor, follows_points): how many times the cost at `scale` times
    the largest size exceeds the cost at the largest size. The model's own
    ratio, unless the model (its local_slope at the largest size) is steeper
    there than the points are (model_steeper_than_points, the fit's
    exponent interval given): then scale ** points_slope, the growth the
    data support, and follows_points is True."""
    if (points_slope is not None and model_slope is not None
            and model_steeper_than_points(model_slope, points_slope, interval)):
        return scale ** max(points_slope, 0.0), True
    at = np.asarray(predict([largest, largest * scale]), dtype=float)
    return (float(at[1] / at[0]) if at[0] > 0 else float("inf")), False


def input_fixed_across_processes(per_process: Sequence[Tuple[int, int]]) -> Optional[str]:
    """per_process: (the process's total cost, the routine's largest input
    size in it) of each process (report) where the routine ran. When the
    processes' costs span PROCESS_COST_SPAN or more and the routine's
    largest input does not follow (it spans less than FIXED_INPUT_SPAN),
    the routine's input is not the program's, and its points' growth is
    variation within each process (GNU sed's per-line substitution: a line
    and the parts of the compiled regex it consults, 1,016 to 1,072 cells
    at most in each of 10 processes over files of 8 KB to 2 MB), not growth
    with the input: the doubt that says so, else None."""
    if len(per_process) < MIN_PROCESSES:
        return None
    costs = [cost for cost, _ in per_process]
    largest = [size for _, size in per_process]
    if min(costs) <= 0 or min(largest) <= 0 or max(costs) < PROCESS_COST_SPAN * min(costs):
        return None
    if max(largest) >= FIXED_INPUT_SPAN * min(largest):
        return None
    return (f"its largest input is {min(largest)} to {max(largest)} cells in each of "
            f"{len(per_process)} processes whose cost spans {max(costs) / min(costs):.0f}x: "
            "it does not grow with the program's input")
