# SPDX-License-Identifier: GPL-2.0-or-later
# How the HTML report writes numbers, points and fits as JSON: shared by the
# page's routine details (html.py) and its calling contexts (html_calls.py).
#
# Copyright (C) 2026, the aprof-trms authors.
"""The HTML report's JSON encoders of numbers, points and fits."""
from typing import Dict, List, Optional

from . import fit as aprof_fit
from . import profile as aprof_profile

__all__ = ["num", "fits_json", "points_json"]


def num(x: float) -> float:
    """A float with 4 significant digits: enough for shares and fits on screen,
    and a compact JSON."""
    return float(f"{x:.4g}")


def _param(x: Optional[float]) -> Optional[float]:
    """A fit parameter with 7 significant digits: the curve drawn from it
    is exact to the pixel."""
    return None if x is None else float(f"{x:.7g}")


def _fit_json(fit) -> Dict:
    return {"model": fit.model, "label": aprof_fit.model_label(fit), "formula": fit.formula(),
            "a": _param(fit.a), "b": _param(fit.b), "c": _param(fit.c), "k": _param(fit.k),
            "r2": num(fit.r2), "aicc": num(fit.criterion)}


def fits_json(fits: Dict[str, aprof_fit.FitInfo]) -> Dict:
    """The fits by metric: best and runner-up, the span of the sizes
    fitted, or why there is none."""
    out = {}
    for metric, info in fits.items():
        if info.result is None:
            out[metric] = {"reason": info.reason}
        else:
            ru = info.result.runner_up
            fitted = info.result.sizes
            out[metric] = {"best": _fit_json(info.result.best),
                           "runner_up": _fit_json(ru) if ru else None,
                           "notes": info.result.notes, "doubts": info.result.doubts,
                           # the sizes fitted: where the curves are drawn (plot.py)
                           "span": [min(fitted), max(fitted)] if fitted else None}
    return out


def points_json(points: Dict[int, aprof_profile.Point]) -> List[List[int]]:
    """[size, calls, min, max, sum] per size, sizes ascending."""
    return [[s, p.calls, p.min_cost, p.max_cost, p.sum_cost] for s, p in sorted(points.items())]
