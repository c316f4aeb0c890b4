# SPDX-License-Identifier: GPL-2.0-or-later
# Routine names: the parts of a demangled C++ name (return type, qualified
# name, template arguments, parameters), matching a name as a user writes it,
# and short forms for display.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Demangled routine names, taken apart.

A demangled C++ name such as

    void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, ...>, long>(..., long)

has a return type (function templates only), a qualified name
(std::__introsort_loop<...>), template arguments and a parameter list;
C names are just the qualified name. Users name routines the way they
write them in code, so:

    qualified_name(name)   the name without return type, parameters,
                           trailing qualifiers (const, &), " [clone .cold]"
                           and symbol version (@@GLIBC_2.34)
    names_routine(pattern, name)
                           True when `pattern` names the routine the way a
                           debugger's breakpoint does: its trailing scope
                           components equal the name's ("push_back",
                           "std::sort", "vector<int>::push_back"), template
                           arguments may be left out ("std::sort" names
                           std::sort<It>) or given in part (omitted trailing
                           arguments, the defaulted allocator of
                           std::vector<int>, match anything); whitespace does
                           not count ("vector<int,std::allocator<int>>")
    short_name(name, w)    a name that fits in about w characters (the
                           end of a C++ name, the start of 0x<address>@<object>)
    plain_name(name)       the qualified name with template arguments and
                           parameters reduced to <…> and (…), without the
                           return type: `--short-names` of the commands
    file_stem(name)        a file-name-safe stem
    printable(text)        the text with its control characters escaped:
                           how every name is shown in text (a terminal,
                           summary.txt, a plot, an error message)
    number(value, spec)    format(value, spec) without a negative zero
                           ("-0.00" of -0.001 is "0.00", "+0.00" with a sign)

Names that are not C++ (C functions, 0x<address>@<object> of routines
without a symbol) pass through unchanged, except that short_name shortens
them too.
"""
import re
from typing import List, Optional, Tuple

__all__ = ["qualified_name", "names_routine", "short_name", "plain_name", "printable", "strip_params",
           "file_stem", "unique_stems", "number"]

_OPERATOR = re.compile(r"operator\s*(<=>|<<=|>>=|<<|>>|<=|>=|->\*|->|<|>|\(\)|\[\])")
_CLONE_SUFFIX = re.compile(r"(\s*\[clone [^\]]*\])+$")
_SYMBOL_VERSION = re.compile(r"@@?[A-Z_][\w.]*$")   # __libc_start_main@@GLIBC_2.34
_ADDRESS_NAME = re.compile(r"0x[0-9a-fA-F]+@")     # 0x10a0@vgpreload_core-amd64-linux.so
_OPEN, _CLOSE = "<({[", ">)}]"


def _operator_at(name: str, i: int):
    """The operator name (operator<, operator()) starting at name[i], as a
    match, or None: its brackets are no template or parameter brackets."""
    m = _OPERATOR.match(name, i)
    if m and (i == 0 or not (name[i - 1].isalnum() or name[i - 1] == "_")):
        return m
    return None


def _scan(name: str, opening: str, closing: str):
    """Walks the name, yielding (position, text, depth): each character,
    or an operator name whole (operator<, operator(): its brackets are no
    brackets), with the depth of brackets (characters of `opening` and
    `closing`) around it; a bracket itself is at the depth outside it. A
    stray closing bracket stays at depth 0."""
    depth = 0
    i = 0
    while i < len(name):
        m = _operator_at(name, i)
        if m:
            yield i, m.group(0), depth
            i = m.end()
            continue
        c = name[i]
        if c in closing:
            depth = max(0, depth - 1)
        yield i, c, depth
        if c in opening:
            depth += 1
        i += 1


def _collapse_templates(name: str) -> str:
    """Template arguments become <…>, the outermost brackets stay."""
    return "".join("<…" if text == "<" else text
                   for _, text, depth in _scan(name, "<", ">") if depth == 0)


def _last_param_group(name: str) -> Optional[Tuple[int, int]]:
    """(start, end) of the parameter list, the last balanced (...) group of
    the name, or None ('(anonymous namespace)' is not a parameter list)."""
    close = name.rfind(")")
    if close < 0:
        return None
    depth = 0
    for i in range(close, -1, -1):
        if name[i] == ")":
            depth += 1
        elif name[i] == "(":
            depth -= 1
            if depth == 0:
                if name[i:close + 1] == "(anonymous namespace)":
                    return None
                return i, close
    return None


def strip_params(name: str) -> str:
    """'ns::f(int, char) const' -> 'ns::f'."""
    group = _last_param_group(name)
    if group is None or group[0] == 0:
        return name
    return name[:group[0]].rstrip()


def _top_level(name: str, separator: str) -> List[int]:
    """Positions of `separator` outside brackets (<>, (), {}, []); the
    brackets of operator names (operator<, operator()) do not count."""
    found = []
    after = 0   # a separator found ends where the next one may start
    for i, _, depth in _scan(name, _OPEN, _CLOSE):
        if depth == 0 and i >= after and name.startswith(separator, i):
            found.append(i)
            after = i + len(separator)
    return found


def qualified_name(name: str) -> str:
    """The name without its return type, parameter list, trailing
    qualifiers and clone suffix: 'void std::sort<int*>(int*, int*)' ->
    'std::sort<int*>'; 'operator new(unsigned long)' -> 'operator new'."""
    s = _SYMBOL_VERSION.sub("", _CLONE_SUFFIX.sub("", name.strip()))
    group = _last_param_group(s)
    # ("operator()" written without parameters is a name, not a list.)
    if group is not None and group[0] > 0 and not re.search(r"\boperator\s*$", s[:group[0]]):
        s = s[:group[0]].rstrip()
    spaces = _top_level(s, " ")
    if not spaces:
        return s
    # "operator new", "operator unsigned long": the name starts at "operator".
    m = re.search(r"(^|[\s:])operator\b", s)
    if m:
        start = m.start() if m.group(1) == "" else m.start() + 1
        before = [p for p in spaces if p < start]
        return s[before[-1] + 1:] if before else s
    return s[spaces[-1] + 1:]


def _squeeze(text: str) -> str:
    """Whitespace that does not separate two words removed, the rest one space."""
    text = re.sub(r"\s+", " ", text.strip())
    return re.sub(r"\s*([^\w\s])\s*", r"\1", text)


def _components(qualified: str) -> List[Tuple[str, Optional[List[str]]]]:
    """'std::vector<int, A>::push_back' -> [('std', None), ('vector',
    ['int', 'A']), ('push_back', None)]; an operator is one opaque part."""
    parts = []
    cuts = _top_level(qualified, "::")
    starts = [0] + [c + 2 for c in cuts]
    ends = cuts + [len(qualified)]
    for start, end in zip(starts, ends):
        part = qualified[start:end].strip()
        if part.startswith("operator") or not part.endswith(">") or "<" not in part:
            parts.append((_squeeze(part), None))
            continue
        open_at = part.index("<")
        inner = part[open_at + 1:-1]
        commas = _top_level(inner, ",")
        bounds = zip([0] + [c + 1 for c in commas], commas + [len(inner)])
        parts.append((_squeeze(part[:open_at]), [_squeeze(inner[a:b]) for a, b in bounds]))
    return parts


def _argument_matches(wanted: str, actual: str) -> bool:
    if wanted == actual:
        return True
    w, a = _components(wanted), _components(actual)
    return len(w) == len(a) and all(_component_matches(x, y) for x, y in zip(w, a))


def _component_matches(wanted, actual) -> bool:
    (w_base, w_args), (a_base, a_args) = wanted, actual
    if w_base != a_base:
        return False
    if w_args is None:
        return True
    return (a_args is not None and len(w_args) <= len(a_args)
            and all(_argument_matches(w, a) for w, a in zip(w_args, a_args)))


def names_routine(pattern: str, name: str) -> bool:
    """Whether `pattern` (a qualified name as written in code, without
    return type or parameters) names the routine `name` (demangled); see
    the module docstring."""
    wanted = _components(qualified_name(pattern))
    actual = _components(qualified_name(name))
    if not wanted or len(wanted) > len(actual):
        return False
    return all(_component_matches(w, a) for w, a in zip(wanted, actual[len(actual) - len(wanted):]))


def plain_name(name: str) -> str:
    """'void std::sort<int*>(int*, int*)' -> 'std::sort<…>(…)': the
    qualified name, template arguments and parameters reduced to …; a name
    without them is returned as it is."""
    qualified = qualified_name(name)
    s = _collapse_templates(qualified)
    return s + ("(…)" if qualified != name and _last_param_group(name) else "")


# Control characters (Unicode category Cc: C0, DEL, C1) as shown in text:
# C0 and DEL as \xHH, C1 as \u0080..\u009f (a C1 control is two bytes in
# UTF-8, and \x80..\x9f stand for single bytes that are not UTF-8).
_CONTROL_ESCAPES = {c: (f"\\x{c:02x}" if c < 0x80 else f"\\u{c:04x}")
                    for c in (*range(0x20), *range(0x7f, 0xa0))}


_NEGATIVE_ZERO = re.compile(r"-(?=0*\.?0*(?:e[+-]?\d+)?$)")


def number(value: float, spec: str) -> str:
    """format(value, spec), except that a value that rounds to zero is never
    shown as a negative zero ("-0.00", "-0"): the text outputs print what
    the reader compares, and -0.00 reads as a sign that is not there."""
    text = format(value, spec)
    return _NEGATIVE_ZERO.sub("+" if "+" in spec else "", text, count=1) if text[:1] == "-" else text


def printable(text: str) -> str:
    """`text` with its control characters escaped (TAB, LF, CR and ESC too):
    a name from a report can neither split a line of a table nor send
    escape sequences to a terminal."""
    return text if text.isprintable() else text.translate(_CONTROL_ESCAPES)


def short_name(name: str, width: int = 48) -> str:
    """A demangled name that fits in about `width` characters: template
    arguments, then parameters, become '…'; what is still too long keeps its
    end (the routine's own name) after a leading '…'. The name of a routine
    without a symbol, 0x<address>@<object>, keeps its start instead: the
    address is what tells two such routines apart. Control characters are
    escaped (printable())."""
    name = printable(name)
    if len(name) <= width:
        return name
    if _ADDRESS_NAME.match(name):
        return name[:width - 1] + "…"
    s = _collapse_templates(name)
    if len(s) > width:
        group = _last_param_group(s)
        if group is not None and group[1] - group[0] > 2:
            s = s[:group[0] + 1] + "…" + s[group[1]:]
    if len(s) > width:
        s = "…" + s[-(width - 1):]
    return s


def file_stem(name: str, width: int = 40) -> str:
    """A file-name-safe stem from a routine name: 'ns::f<int>(int)' -> 'ns__f'."""
    s = _collapse_templates(qualified_name(name)).replace("<…>", "")
    s = re.sub(r"[^A-Za-z0-9_.+-]+", "_", s).strip("._-")
    if len(s) > width:
        s = s[-width:].lstrip("._-")
    return s or "routine"


def unique_stems(names: List[str]) -> List[str]:
    """file_stem of each name; repeated stems get -2, -3..."""
    used = set()
    stems = []
    for name in names:
        stem = candidate = file_stem(name)
        n = 1
        while candidate in used:
            n += 1
            candidate = f"{stem}-{n}"
        used.add(candidate)
        stems.append(candidate)
    return stems
