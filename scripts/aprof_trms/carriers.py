# SPDX-License-Identifier: GPL-2.0-or-later
"""Where growth comes from: routines whose inclusive growth is carried by a
callee.

An event loop, a dispatcher, a thread's main routine, an interpreter's
loop, a scheduler: each one's inclusive cost grows with its input because
a routine it calls does the growing work. Ranked by inclusive cost, these
carriers come first and hide the source. A routine R is *carried* by its
callee C when

- the calls from R to C hold at least CARRIED_SHARE of R's inclusive cost
  (the call graph's `call` records: the inclusive cost of C's activations
  called from R), and
- C's own cost function grows at least about as fast as R's (its growth
  exponent is at most DISTINCT_GROWTH below R's: fit.py's scale), or R's
  fit is inconclusive and R calls C at most once per activation, those
  calls holding at least SINGLE_CALL_SHARE of R's inclusive cost. One
  call does not multiply C's cost: R then costs what C does and a little
  more, and where their fits differ it is by the sizes each one reads,
  not by growth. A caller that reads a fixed state besides what it hands
  down (a shell's statement loop, whose input holds the shell's own
  state, 1,200 cells more than the statement's) has its sizes shifted
  up, and a quadratic in the rows reads as n^3 in its sizes and n^2 in
  its callee's. The growth comparison is kept for callers that call C
  more often (a loop of n calls of a linear C is itself the source of
  quadratic growth), and for a caller whose own fit is confident: a
  confident fit is evidence that the two grow apart, and the rule is
  for fits that cannot tell (sqlite3's statement loop: 7 sizes spanning
  2.2x).
- the growth comparison needs C's inputs on R's scale: a callee whose
  largest input is more than SIZE_AXES_APART times below R's (a sort's
  comparison of two elements, a compressor's match finder in its bounded
  window) has its exponent measured on another axis, and R's growth is
  then its own loop of calls: lua's quicksort was carried by its
  comparison wrapper, fitted n^2 on 6 sizes of a few cells each;
- the growth comparison needs C's fit to be that of its calls from R: a
  callee with one activation costlier than all its calls from R
  together has its worst-case points, the ones it is fitted on, in calls
  from elsewhere (an interpreter's call into its engine, `scm_call_2`,
  runs guile's merge sort's comparisons, 1.24 M calls holding 82% of
  the merge's cost, and the whole script, 94% of the program's cost in
  one activation: the merge was carried by the engine's growth, and the
  chain ended in the engine's entry);
- or R is the program's or a thread's first routine of its own (called,
  and only by the runtime's entry wrappers: `main` under
  `__libc_start_call_main`, a thread's start routine under
  `start_thread`), whatever the fits: its growth is the whole program's
  or thread's, which a callee with CARRIED_SHARE of it does (cjpeg's
  `main` looping over rows, zstd's worker threads looping over jobs,
  would otherwise come first once their callees' inputs are on another
  scale);
- or R's own work does not grow: the log-log slope of its self cost per
  activation over its input sizes is at most FLAT_SELF_GROWTH (and R
  calls no activation of itself). Then everything R adds to its callees
  is a constant, and its growth, whatever its fit or its callee's
  say (a callee too seldom called to be fitted included), is its calls':
  brotli's `main` spends 159 to 229 blocks of its own on files of 16 KB
  to 2 MB while its calls to the encoder rise from 0.5 M to 58 M blocks;
  the encoder is called once per chunk the program reads, so its own
  fit (per call, the chunks bounded) cannot show the file's growth that
  `main` shows. A loop of n calls has a self cost of at least a block
  per iteration, which grows with n (insertion sort's outer loop,
  slope 1): the growth comparison decides there. A recursive routine
  is held to the comparison too: its self cost per activation is one
  level's, and the recursion multiplies its calls (Karatsuba's three
  products per level). When no callee holds CARRIED_SHARE of such a
  routine's cost but its callees together do, the heaviest one carries
  it: lua's string.format spends 32 blocks of its own per call and
  hands the rest to the allocation of its result (38%: a collector
  step now and then) and to the C library's formatting (36%).

Of such callees the one with the largest share carries R. The *source* of
R's growth follows the carriers down until a routine that no callee
carries. Reports without call records (version < 3) have no carriers.
"""
import math
from typing import Callable, Dict, Optional

from . import evidence, select
from .fit import DISTINCT_GROWTH
from .profile import EdgeTotals, Profile, RoutineKey, RoutineProfile

__all__ = ["CARRIED_SHARE", "SINGLE_CALL_SHARE", "FLAT_SELF_GROWTH", "carrier_of", "source_of",
           "self_growth"]

CARRIED_SHARE = 0.5     # of the caller's inclusive cost, in calls to one callee
SINGLE_CALL_SHARE = 0.9  # ... when called at most once per activation: carried, whatever the fits
FLAT_SELF_GROWTH = 0.2  # a self cost per activation growing at most this slope does not grow
SIZE_AXES_APART = 10    # a callee's largest input this many times below its caller's: other axis
_MAX_DEPTH = 64         # carriers followed down (call chains are rarely deeper)

# A routine's fitted growth exponent, or None when it cannot be fitted.
GrowthOf = Callable[[RoutineProfile], Optional[float]]
# Whether a routine's fit is confident (fit.FitResult.conclusive).
ConclusiveOf = Callable[[RoutineProfile], bool]


def _never(routine: RoutineProfile) -> bool:
    return False


def carrier_of(profile: Profile, routine: RoutineProfile, growth_of: GrowthOf,
               conclusive_of: ConclusiveOf = _never, metric: str = "trms") -> Optional[RoutineProfile]:
    """The callee that carries the routine's growth, or None (module
    docstring). growth_of is called for the routine and for at most its
    callees above CARRIED_SHARE, conclusive_of for the routine; metric:
    the input metric whose sizes the self cost is measured over."""
    if routine.cumulative_cost <= 0:
        return None
    _, callees = profile.callers_and_callees(routine.key)
    recursive = any(key == routine.key for key, _ in callees)
    others = [(key, edge) for key, edge in callees
              if key != routine.key and key in profile.routines]
    heavy = [(key, edge) for key, edge in others
             if edge.inclusive_cost >= CARRIED_SHARE * routine.cumulative_cost]
    if not heavy:
        return _heaviest_of_a_flat_caller(profile, routine, others, recursive, metric)
    if _is_root(profile, routine):
        return profile.routines[heavy[0][0]]
    own = growth_of(routine)
    if own is None:
        return None
    if _own_work_flat(routine, recursive, metric):
        return profile.routines[heavy[0][0]]
    largest = _largest_size(routine, metric)
    for key, edge in heavy:   # by decreasing inclusive cost
        callee = profile.routines[key]
        growth = growth_of(callee)
        if growth is None:
            continue
        comparable = (_largest_size(callee, metric) * SIZE_AXES_APART >= largest
                      and not _costlier_elsewhere(callee, edge, metric))
        grows_as_fast = comparable and growth >= own - DISTINCT_GROWTH
        if grows_as_fast or (_called_once_with_the_cost(routine, edge)
                             and not conclusive_of(routine)):
            return callee
    return None


def _own_work_flat(routine: RoutineProfile, recursive: bool, metric: str) -> bool:
    """Whether the routine's own work per activation does not grow (module
    docstring); a recursive routine's self cost is one level's: never flat."""
    slope = None if recursive else self_growth(routine, metric)
    return slope is not None and slope <= FLAT_SELF_GROWTH


def _heaviest_of_a_flat_caller(profile: Profile, routine: RoutineProfile, others,
                               recursive: bool, metric: str) -> Optional[RoutineProfile]:
    """The heaviest callee of a routine that no single callee holds
    CARRIED_SHARE of, when its own work does not grow and its callees
    together hold CARRIED_SHARE of its cost: its growth is theirs, the
    heaviest one's most (module docstring, lua's string.format)."""
    called = sum(edge.inclusive_cost for _, edge in others)
    if not others or called < CARRIED_SHARE * routine.cumulative_cost:
        return None
    if not _own_work_flat(routine, recursive, metric):
        return None
    return profile.routines[others[0][0]]


def _is_root(profile: Profile, routine: RoutineProfile) -> bool:
    """The program's or a thread's first routine of its own: called, and
    only by runtime entry wrappers (main, a thread's start routine)."""
    callers, _ = profile.callers_and_callees(routine.key)
    return bool(callers) and all(key in profile.routines
                                 and select.is_entry_wrapper(profile.routines[key])
                                 for key, _ in callers)


def _costlier_elsewhere(callee: RoutineProfile, edge: EdgeTotals, metric: str) -> bool:
    """Whether one activation of the callee costs more than all its calls
    from the routine together (the edge): its costliest points are calls
    from elsewhere, and its fit is theirs (module docstring: guile's
    scm_call_2)."""
    points = callee.points(metric)
    return bool(points) and max(p.max_cost for p in points.values()) > edge.inclusive_cost


def _largest_size(routine: RoutineProfile, metric: str) -> int:
    points = routine.points(metric)
    return max(points) if points else 0


def self_growth(routine: RoutineProfile, metric: str = "trms") -> Optional[float]:
    """The log-log slope (least squares) of the routine's self cost per
    activation over its input sizes, or None when fewer than two positive
    sizes have a positive self cost: how fast its own work, outside its
    callees, grows with its input."""
    xs, ys = [], []
    for size, point in routine.points(metric).items():
        if size > 0 and point.calls > 0 and point.sum_self_cost > 0:
            xs.append(math.log(size))
            ys.append(math.log(point.sum_self_cost / point.calls))
    line = evidence.least_squares_line(xs, ys)
    return None if line is None else line[1]


def _called_once_with_the_cost(routine: RoutineProfile, edge: EdgeTotals) -> bool:
    """The routine calls the callee at most once per activation, and those
    calls hold at least SINGLE_CALL_SHARE of its inclusive cost (module
    docstring)."""
    return (edge.calls <= routine.calls
            and edge.inclusive_cost >= SINGLE_CALL_SHARE * routine.cumulative_cost)


def source_of(profile: Profile, routine: RoutineProfile, growth_of: GrowthOf,
              known: Optional[Dict[RoutineKey, RoutineProfile]] = None,
              conclusive_of: ConclusiveOf = _never, metric: str = "trms") -> Optional[RoutineProfile]:
    """The routine at the bottom of the chain of carriers below `routine`
    (None when no callee carries it). `known` caches the carriers found
    across calls (not the routines without one: most routines, cheap to
    ask again)."""
    known = {} if known is None else known
    seen = {routine.key}
    current, source = routine, None
    for _ in range(_MAX_DEPTH):
        below = known.get(current.key)
        if below is None:
            below = carrier_of(profile, current, growth_of, conclusive_of, metric)
            if below is not None:
                known[current.key] = below
        if below is None or below.key in seen:
            return source
        seen.add(below.key)
        current = source = below
    return source
