# SPDX-License-Identifier: GPL-2.0-or-later
"""The aprof_trms package in layers: its import graph, read with `ast`
from the source (nothing is imported), has no loop, no import that runs
from a lower layer to a higher one, and no import of a package module
inside a function or class (the way loops used to be dodged).

The layers, bottom to top (docs/design.md, "The analysis package"):

- model: reading, merging, profiles, input sources, program sums, fits,
  ranking, selection, names, errors; imports only the model;
- view: what draws or writes (pictures, the HTML page's parts, output
  files); imports the model and other views;
- runner: cli.py, the one command-line convention;
- command: one module per command with main(argv) -> int, run by cli; a
  command imports no other command but the reuses of COMMANDS_REUSED.

A new module must be given its layer in LAYERS (the test fails until it
is).
"""
import ast
import os
from typing import Dict, List, Set, Tuple

import pytest

PACKAGE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "..", "scripts", "aprof_trms"))

MODEL, VIEW, RUNNER, COMMAND = 0, 1, 2, 3
LAYER_NAMES = {MODEL: "model", VIEW: "view", RUNNER: "runner", COMMAND: "command"}

LAYERS = {
    "__init__": MODEL, "errors": MODEL, "names": MODEL, "elf": MODEL, "report": MODEL,
    "profile": MODEL, "sources": MODEL, "programs": MODEL, "evidence": MODEL, "populations": MODEL,
    "fit": MODEL,
    "carriers": MODEL, "select": MODEL, "ranking": MODEL, "table": MODEL,
    "output": VIEW, "plotting": VIEW, "sources_graph": VIEW, "html_json": VIEW,
    "html_calls": VIEW, "html_graph": VIEW, "html_threads": VIEW,
    "cli": RUNNER,
    "plot": COMMAND, "charts": COMMAND, "rank": COMMAND, "regress": COMMAND,
    "annotate": COMMAND, "contexts": COMMAND, "producers": COMMAND, "html": COMMAND,
    "callgrind_export": COMMAND, "check_reports": COMMAND, "control": COMMAND,
}

# A command imports no other command, except these reuses left to move down
# (docs/design.md, "The analysis package"): the HTML report shows
# regress.py's comparison with plot.py's and charts.py's defaults, and
# contexts.py draws with plot.py's pictures. The list only shrinks.
COMMANDS_REUSED = {("contexts", "plot"), ("html", "charts"), ("html", "plot"),
                   ("html", "regress")}

Import = Tuple[str, int, bool]   # (imported module, line, inside a function or class)


def _imported(node: ast.AST, modules: Set[str]) -> List[str]:
    """The package modules an import statement names: `from . import x`,
    `from .x import y`, `import aprof_trms.x`, `from aprof_trms import x`
    (a name that is no module, such as __version__, is the package's
    __init__)."""
    if isinstance(node, ast.ImportFrom):
        package_level = node.level == 1 or (node.level == 0 and node.module == "aprof_trms")
        if node.level == 1 and node.module:
            return [node.module.split(".")[0]]
        if node.level == 0 and (node.module or "").startswith("aprof_trms."):
            return [node.module.split(".")[1]]
        if package_level:
            return [a.name if a.name in modules else "__init__" for a in node.names]
        return []
    if isinstance(node, ast.Import):
        return [a.name.split(".")[1] for a in node.names if a.name.startswith("aprof_trms.")]
    return []


def imports_of(source: str, modules: Set[str]) -> List[Import]:
    """Every import of a package module in `source`, with its line and
    whether it sits inside a function or class."""
    found: List[Import] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for name in _imported(node, modules):
            found.append((name, node.lineno, nested))
        inner = nested or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                            ast.ClassDef))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(ast.parse(source), False)
    return found


def import_graph(package: str) -> Dict[str, List[Import]]:
    """module -> its imports of the package's modules."""
    files = sorted(f for f in os.listdir(package) if f.endswith(".py"))
    modules = {f[:-3] for f in files}
    graph = {}
    for f in files:
        with open(os.path.join(package, f), encoding="utf-8") as source:
            graph[f[:-3]] = imports_of(source.read(), modules)
    return graph


def loops(graph: Dict[str, List[Import]]) -> List[List[str]]:
    """The import loops of the graph (one cycle per loop found by depth-first
    search, each as the modules it runs through)."""
    edges = {m: sorted({name for name, _, _ in imports if name != m and name in graph})
             for m, imports in graph.items()}
    state: Dict[str, int] = {}    # 1: on the current path, 2: done
    path: List[str] = []
    found = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for n in edges[m]:
            if state.get(n) == 1:
                found.append(path[path.index(n):] + [n])
            elif n not in state:
                visit(n)
        path.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    return found


def upward_imports(graph: Dict[str, List[Import]], layers: Dict[str, int]) -> List[str]:
    return [f"{m}.py:{line}: {LAYER_NAMES[layers[m]]} module imports {name} "
            f"({LAYER_NAMES[layers[name]]})"
            for m, imports in sorted(graph.items()) for name, line, _ in imports
            if name in layers and m in layers and layers[name] > layers[m]]


def command_imports(graph: Dict[str, List[Import]], layers: Dict[str, int]) -> Set[Tuple[str, str]]:
    """(command, command it imports) pairs."""
    return {(m, name) for m, imports in graph.items() for name, _, _ in imports
            if layers.get(m) == COMMAND and layers.get(name) == COMMAND and name != m}


def nested_imports(graph: Dict[str, List[Import]]) -> List[str]:
    return [f"{m}.py:{line}: imports {name} inside a function or class"
            for m, imports in sorted(graph.items()) for name, line, nested in imports if nested]


# ---------------------------------------------------------------------------
# The package.
# ---------------------------------------------------------------------------

def test_every_module_has_a_layer():
    modules = set(import_graph(PACKAGE))
    assert modules - set(LAYERS) == set(), "give the new module its layer in LAYERS"
    assert set(LAYERS) - modules == set(), "a module of LAYERS is gone: remove it"


def test_no_import_loop():
    assert loops(import_graph(PACKAGE)) == []


def test_no_import_runs_up_a_layer():
    assert upward_imports(import_graph(PACKAGE), LAYERS) == []


def test_commands_import_no_other_command_but_the_known_reuses():
    assert command_imports(import_graph(PACKAGE), LAYERS) <= COMMANDS_REUSED


def test_no_package_import_inside_a_function():
    assert nested_imports(import_graph(PACKAGE)) == []


def test_the_graph_is_read():
    """The reader sees the imports the checks are about (an empty graph
    would pass every check)."""
    graph = import_graph(PACKAGE)
    assert "report" in {n for n, _, _ in graph["profile"]}
    assert {"cli", "ranking", "fit"} <= {n for n, _, _ in graph["rank"]}
    assert "__init__" in {n for n, _, _ in graph["cli"]}   # from . import __version__


# ---------------------------------------------------------------------------
# The checks find what they are for (a package made for the test).
# ---------------------------------------------------------------------------

def _package(tmp_path, sources: Dict[str, str]) -> str:
    for name, text in sources.items():
        (tmp_path / f"{name}.py").write_text(text)
    return str(tmp_path)


def test_a_loop_is_found(tmp_path):
    graph = import_graph(_package(tmp_path, {
        "a": "from . import b\n", "b": "from .c import f\n", "c": "import aprof_trms.a\n",
        "d": "from . import a\n"}))
    assert loops(graph) == [["a", "b", "c", "a"]]


def test_an_upward_import_is_found(tmp_path):
    graph = import_graph(_package(tmp_path, {
        "low": "from aprof_trms import high\n", "high": "from . import low\n"}))
    assert upward_imports(graph, {"low": MODEL, "high": COMMAND}) == [
        "low.py:1: model module imports high (command)"]
    assert upward_imports(graph, {"low": MODEL, "high": VIEW}) == [
        "low.py:1: model module imports high (view)"]


def test_a_command_importing_another_is_found(tmp_path):
    graph = import_graph(_package(tmp_path, {
        "rank": "from . import plot\n", "plot": "from . import errors\n", "errors": ""}))
    assert command_imports(graph, {"rank": COMMAND, "plot": COMMAND, "errors": MODEL}) == {
        ("rank", "plot")}


@pytest.mark.parametrize("where", [
    "def f():\n    from . import b\n",
    "class C:\n    def m(self):\n        from .b import g\n",
    "class C:\n    from . import b\n",
])
def test_an_import_inside_a_function_is_found(tmp_path, where):
    graph = import_graph(_package(tmp_path, {"a": "import os\n" + where, "b": ""}))
    assert len(nested_imports(graph)) == 1


def test_imports_of_other_packages_are_not_the_package(tmp_path):
    graph = import_graph(_package(tmp_path, {
        "a": "import numpy as np\nfrom os import path\ndef f():\n    import matplotlib\n"}))
    assert graph["a"] == []
