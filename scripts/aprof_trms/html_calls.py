# SPDX-License-Identifier: GPL-2.0-or-later
# The HTML report's callers, callees and calling contexts of a routine.
#
# Copyright (C) 2026, the aprof-trms authors.
"""What the HTML report (html.py) shows under a routine's plots about its
place in the call graph, as JSON merged into the routine's details:

- "callers" and "callees": [routine index, calls, inclusive cost] per call
  edge (format version 3 call records), most costly first; the page links
  each to that routine's section (html_assets/calls.js);
- "contexts" (reports of --collect-context=yes runs, routines with more than
  one context): per context, in contexts.py's order (the context where the
  routine grows worst first), its chain as routine indices from the root,
  calls, share and predicted share of the routine's cost, trust, the
  one-line reason, its worst-case points by TRMS and its fit.
"""
from typing import Dict, List

from . import profile as aprof_profile
from .fit import FitInfo
from .html_json import fits_json, num, points_json
from .ranking import rank_contexts


def _edges(index: Dict, edges) -> List[List[int]]:
    return [[index[other], e.calls, e.inclusive_cost] for other, e in edges if other in index]


def _context_json(index: Dict, row) -> Dict:
    context = row.routine
    # The ranking's own fit of the context, not a second one.
    fit = FitInfo(result=row.result) if row.fitted else FitInfo(reason=row.reason)
    return {"chain": [index[key] for key in context.key],
            "calls": context.calls, "cost": context.cumulative_cost,
            "share": num(row.share),
            "predicted": num(row.predicted_share) if row.fitted else None,
            "trust": row.trust if row.fitted else "-",
            "reason": row.reason, "trms": points_json(context.trms),
            "fit": fits_json({"trms": fit})["trms"]}


def routine_json(profile: aprof_profile.Profile, routine: aprof_profile.RoutineProfile,
                 index: Dict) -> Dict:
    """The callers, callees and contexts of a routine (module docstring);
    index maps routine keys to the page's row indices."""
    callers, callees = profile.callers_and_callees(routine.key)
    out = {"callers": _edges(index, callers), "callees": _edges(index, callees)}
    if len(profile.contexts_of(routine.key)) > 1:
        out["contexts"] = [_context_json(index, row)
                           for row in rank_contexts(profile, routine)]
    return out


def page_json(profile: aprof_profile.Profile) -> Dict:
    """Page-level facts: whether the report has a call graph and contexts."""
    return {"call_graph": bool(profile.calls), "context_depth": profile.context_depth,
            "contexts_missing": profile.contexts_missing}
