"""The layers of docs/architecture.md, checked on the imports of the source itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sprouts_cli"

#: What each layer may not import (anywhere in a module, also inside functions; its subpackages too).
FORBIDDEN = {
    "engine": {
        "picture", "render", "log", "cli", "solve", "players", "play", "dots", "click", "rich", "matplotlib"
    },
    "solve": {"picture", "render", "cli", "players", "play", "dots", "click", "matplotlib"},
    "players": {"picture", "render", "cli", "play", "dots", "click", "rich", "matplotlib"},
    "picture": {"cli", "solve", "players", "play", "dots", "click", "rich"},
    "play": {"cli"},
    "dots": {"cli", "engine", "solve", "players", "play", "log", "picture", "click", "rich"},
}

#: What the package's modules outside the layers may not import: the API builds on the
#: engine, the solvers and the picture layer, never on the command line.
FORBIDDEN_MODULES = {
    "api.py": {"cli", "click", "rich"},
    "render.py": {"cli", "solve", "players", "click", "rich"},
}


def imported_names(path: Path, top_level: bool = False) -> set[str]:
    """The first component of every module a file imports, relative imports resolved within the package.

    In a layer's module ``from .x import y`` is the layer's own; in a ``top_level`` module
    of the package (``api.py``) ``from .cli import x`` names the layer ``cli``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                names.add((node.module or "").split(".")[0])
            elif node.level == 1 and top_level:
                if node.module:
                    names.add(node.module.split(".")[0])
                else:  # from . import render
                    names.update(alias.name for alias in node.names)
            elif node.level == 1:
                # from .x import y: a sibling in the same layer; from . import x likewise
                continue
            elif node.module:
                names.add(node.module.split(".")[0])
            else:  # from .. import render
                names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_only_what_they_may(layer: str) -> None:
    wrong = {
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for name in imported_names(path) & FORBIDDEN[layer]
    }
    assert not wrong, sorted(wrong)


@pytest.mark.parametrize("module", sorted(FORBIDDEN_MODULES))
def test_modules_outside_the_layers_import_only_what_they_may(module: str) -> None:
    wrong = sorted(imported_names(PACKAGE / module, top_level=True) & FORBIDDEN_MODULES[module])
    assert not wrong, f"{module} imports {wrong}"


def test_the_checker_sees_relative_and_absolute_imports(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    lines = ["import rich.console", "from ..picture import model", "from .. import render", "def f():"]
    src.write_text("\n".join([*lines, "    from click import echo", ""]))
    assert imported_names(src) == {"rich", "picture", "render", "click"}
    src.write_text("from .cli.bounds import x\nfrom . import render\nfrom .engine import Position\n")
    assert imported_names(src) == set()  # siblings, in a layer
    assert imported_names(src, top_level=True) == {"cli", "render", "engine"}


# ---------------------------------------------------------------- import cycles


def module_names(package: Path) -> dict[str, Path]:
    """Every module of ``package`` by its dotted name (a package by its ``__init__``)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def package_imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The modules of the package that ``path`` (module ``name``) imports anywhere, inside
    functions too; imports under ``if TYPE_CHECKING:`` are left out (they never run)."""
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    stack: list[ast.AST] = [ast.parse(path.read_text())]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parent = base[: len(base) - (node.level - 1)]
                module = ".".join([*parent, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for a in node.names:  # from package import module, or from module import name
                sub = f"{module}.{a.name}"
                out.add(sub if sub in known else module)
        stack.extend(ast.iter_child_nodes(node))
    return (out & known) - {name}


def import_cycles(package: Path) -> list[set[str]]:
    """The modules that import one another in a ring: the strongly connected components
    (more than one module) of the package's import graph (Tarjan's algorithm)."""
    modules = module_names(package)
    graph = {name: sorted(package_imports(path, name, set(modules))) for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]  # (module, next edge to follow): the depth-first search without recursion
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            v, i = work[-1]
            if i < len(graph[v]):
                work[-1] = (v, i + 1)
                w = graph[v][i]
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    work.append((w, 0))
                elif w in stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = set()
                while True:
                    w = stack.pop()
                    component.add(w)
                    if w == v:
                        break
                if len(component) > 1:
                    cycles.append(component)
    return cycles


def test_no_import_cycle_anywhere_in_the_package() -> None:
    assert import_cycles(PACKAGE) == [], [sorted(c) for c in import_cycles(PACKAGE)]


def test_the_cycle_checker_sees_the_engine_knot_it_replaced(tmp_path: Path) -> None:
    """The engine's old knot, rebuilt in miniature: a type whose methods import the
    algorithms, which import the type back at run time (not only for typing)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "position.py").write_text("class P:\n    def canonical(self):\n        from .canonical import f\n")
    (pkg / "canonical.py").write_text("from .position import P\n")
    assert import_cycles(pkg) == [{"pkg.position", "pkg.canonical"}]
    typing_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .position import P\n"
    (pkg / "canonical.py").write_text(typing_only)
    assert import_cycles(pkg) == []


def test_the_cycle_checker_sees_a_cycle_through_a_function(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .b import g\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n    return b\n")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nfrom .. import a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    (pkg / "d.py").write_text("from .c import x\n")
    assert import_cycles(pkg) == [{"pkg.a", "pkg.sub.b"}]
    (pkg / "sub" / "b.py").write_text("x = 1\n")  # the ring broken
    assert import_cycles(pkg) == []
    (pkg / "c.py").write_text("from . import d\n")  # c and d: a ring at the top of the modules
    assert import_cycles(pkg) == [{"pkg.c", "pkg.d"}]
