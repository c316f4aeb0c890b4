#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The tool options' documentation made from their one source,
# aprof-trms/options.def: the options table of docs/manual.md and the
# TOOL OPTIONS section of the man page (docs/aprof-trms.1.in's @TOOL_OPTIONS@).
#
# Copyright (C) 2026, the aprof-trms authors.
"""Usage:

    options_doc.py manual docs/manual.md [--check]
        rewrites the table between the manual's OPTIONS-TABLE markers
        (--check: changes nothing, exit status 1 if it is not up to date)
    options_doc.py man docs/aprof-trms.1.in OUT
        writes the man page with @TOOL_OPTIONS@ replaced (make does it)

--options FILE reads another options.def (default: the one of this tree).
Exit status: 0 done, 1 out of date or a malformed options.def, 2 bad usage.
"""
import argparse
import dataclasses
import os
import re
import sys
from typing import List

OPTIONS_DEF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "aprof-trms",
                           "options.def")
BEGIN = "<!-- OPTIONS-TABLE: made from aprof-trms/options.def by scripts/lib/options_doc.py -->"
END = "<!-- OPTIONS-TABLE END -->"
MAN_MARK = "@TOOL_OPTIONS@"

_ROW = re.compile(r"^(APROF_OPTION|APROF_DEBUG_OPTION)\((.*?)\)\s*$", re.M | re.S)
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


class OptionsError(Exception):
    pass


@dataclasses.dataclass
class Option:
    name: str
    values: str
    default: str
    help: str
    details: str
    debug: bool


def _arguments(text: str, where: str) -> List[str]:
    """The row's arguments: each adjacent string literals joined."""
    args, rest = [], text
    while rest.strip():
        literals = []
        while True:
            m = _LITERAL.match(rest.lstrip())
            if not m:
                break
            literals.append(re.sub(r"\\[\\\"n]", lambda e: _ESCAPES[e.group(0)], m.group(1)))
            rest = rest.lstrip()[m.end():]
        if not literals:
            raise OptionsError(f"{where}: an argument that is not a string literal: {rest.strip()[:40]!r}")
        args.append("".join(literals))
        rest = rest.lstrip()
        if rest.startswith(","):
            rest = rest[1:]
        elif rest.strip():
            raise OptionsError(f"{where}: expected ',' before {rest.strip()[:40]!r}")
    return args


def read_options(path: str) -> List[Option]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    options = []
    for m in _ROW.finditer(text):
        where = f"{path}:{text.count(chr(10), 0, m.start()) + 1}"
        args = _arguments(m.group(2), where)
        if len(args) != 5 or not args[0].startswith("--"):
            raise OptionsError(f"{where}: expected 5 arguments, the first an option name")
        options.append(Option(*args, debug=m.group(1) == "APROF_DEBUG_OPTION"))
    if not options:
        raise OptionsError(f"{path}: no APROF_OPTION row")
    return options


def help_line(option: Option) -> str:
    """What --help says of the option, blanks collapsed."""
    default = f" [{option.default}]" if option.default else ""
    return f"{option.name}={option.values} {option.help}{default}"


# ---------------------------------------------------------------------------
# The manual's table (Markdown).
# ---------------------------------------------------------------------------

def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def manual_table(options: List[Option]) -> str:
    rows = ["| option | default | meaning |", "|---|---|---|"]
    for o in options:
        default = f"`{o.default}`" if o.default else "none"
        meaning = ("(debugging, `--help-debug`) " if o.debug else "") + o.help + "."
        if o.details:
            meaning += " " + o.details
        rows.append(f"| `{_cell(o.name)}={_cell(o.values)}` | {_cell(default)} | {_cell(meaning)} |")
    return "\n".join(rows) + "\n"


def with_manual_table(manual: str, options: List[Option]) -> str:
    if manual.count(BEGIN) != 1 or manual.count(END) != 1:
        raise OptionsError(f"the manual needs one line {BEGIN!r} and one {END!r}")
    start = manual.index(BEGIN) + len(BEGIN) + 1
    return manual[:start] + manual_table(options) + manual[manual.index(END):]


# ---------------------------------------------------------------------------
# The man page's section (roff).
# ---------------------------------------------------------------------------

def roff_text(markdown: str) -> str:
    """Markdown of options.def as roff: `code` bold, *emphasis* italic,
    [text](link) as its text; '-' and '\\' escaped."""
    text = markdown.replace("\\", "\\e").replace("-", "\\-")
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"`([^`]*)`", r"\\fB\1\\fR", text)
    text = re.sub(r"(?<![\w*])\*(\S[^*]*?\S|\S)\*(?!\w)", r"\\fI\1\\fR", text)
    # A line that starts with '.' or "'" would be a request.
    return re.sub(r"(^|\n)([.'])", r"\1\\&\2", text)


def man_section(options: List[Option]) -> str:
    out = []
    for o in options:
        placeholder = o.values.startswith("<")
        name = roff_text(o.name + "=")
        if placeholder:
            out += [".TP", f".BI {name} {roff_text(o.values[1:-1])}"]
        else:
            out += [".TP", f".BR {name} {roff_text(o.values)}"]
        default = f" [{o.default}]" if o.default else ""
        sentence = o.help[0].upper() + o.help[1:] + default + "."
        out.append(roff_text(("(Debugging.) " if o.debug else "") + sentence))
        if o.details:
            out.append(roff_text(o.details))
    return "\n".join(out) + "\n"


def with_man_section(page: str, options: List[Option]) -> str:
    if page.count(MAN_MARK + "\n") != 1:
        raise OptionsError(f"the man page needs one line {MAN_MARK}")
    return page.replace(MAN_MARK + "\n", man_section(options))


# ---------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="The tool options' documentation from "
                                     "aprof-trms/options.def.")
    parser.add_argument("--options", default=OPTIONS_DEF, metavar="FILE")
    sub = parser.add_subparsers(dest="what", required=True)
    manual = sub.add_parser("manual")
    manual.add_argument("path")
    manual.add_argument("--check", action="store_true")
    man = sub.add_parser("man")
    man.add_argument("source")
    man.add_argument("output")
    args = parser.parse_args(argv)
    prog = os.path.basename(sys.argv[0])
    try:
        options = read_options(args.options)
        if args.what == "manual":
            with open(args.path, encoding="utf-8") as f:
                text = f.read()
            new = with_manual_table(text, options)
            if args.check:
                if new != text:
                    print(f"{prog}: {args.path}: the options table is not made from "
                          f"{args.options}: run {prog} manual {args.path}", file=sys.stderr)
                    return 1
            elif new != text:
                with open(args.path, "w", encoding="utf-8") as f:
                    f.write(new)
        else:
            with open(args.source, encoding="utf-8") as f:
                page = with_man_section(f.read(), options)
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(page)
    except (OptionsError, OSError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
