# SPDX-License-Identifier: GPL-2.0-or-later
"""Call counts from a callgrind output file (callgrind format version 1).

Only what the comparison with aprof-trms needs: the number of calls of each
function, summed over all its callers. Handles name compression ("fn=(12) name"
defines id 12, a later "fn=(12)" refers to it; ob/cob share one table, fn/cfn
one, fl/fi/fe/cfi/cfl one) and the call lines "calls=N target" that follow
cob=/cfi=/cfn= lines; cob= defaults to the caller's current ob=.
Callgrind names recursion levels "f'2", "f'3"... (--separate-recs, default 2):
these suffixes are removed, so all levels count for "f".
"""
import os
import re

__all__ = ["call_counts"]

_NAME_LINE = re.compile(r"^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=(.*)$")
_COMPRESSED = re.compile(r"^\((\d+)\)(?: (.*))?$")
_RECURSION_LEVEL = re.compile(r"'\d+$")
_TABLE = {"ob": "ob", "cob": "ob", "fn": "fn", "cfn": "fn",
          "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl"}


def call_counts(path):
    """Returns {(function name, object path): number of calls} for the file."""
    tables = {"ob": {}, "fn": {}, "fl": {}}
    counts = {}
    ob = fn = None
    cob = cfn = None

    def name_of(kind, value, lineno):
        m = _COMPRESSED.match(value)
        if not m:
            return value
        table = tables[_TABLE[kind]]
        ident, name = m.group(1), m.group(2)
        if name is not None:
            table[ident] = name
            return name
        if ident not in table:
            raise ValueError(f"{path}:{lineno}: {kind}=({ident}) used before it is defined")
        return table[ident]

    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = _NAME_LINE.match(line)
            if m:
                kind, value = m.groups()
                name = name_of(kind, value, lineno)
                if kind == "ob":
                    ob = name
                elif kind == "fn":
                    fn = name
                    cob = cfn = None
                elif kind == "cob":
                    cob = name
                elif kind == "cfn":
                    cfn = name
                continue
            if line.startswith("calls="):
                fields = line[len("calls="):].split()
                if not fields or not fields[0].isdigit():
                    raise ValueError(f"{path}:{lineno}: bad calls= line {line!r}")
                callee = _RECURSION_LEVEL.sub("", cfn if cfn is not None else fn)
                callee_ob = cob if cob is not None else ob
                key = (callee, callee_ob)
                counts[key] = counts.get(key, 0) + int(fields[0])
                # cob/cfn apply to this call only (its cost line follows).
                cob = cfn = None
    return counts


def counts_by_basename(counts):
    """{(name, basename of object): calls}, summing entries that collide."""
    out = {}
    for (name, obj), n in counts.items():
        key = (name, os.path.basename(obj or "???"))
        out[key] = out.get(key, 0) + n
    return out
