"""The layers of docs/architecture.md, checked on the imports of the source itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sprouts_cli"

#: What each headless layer may not import (anywhere in a module, also inside functions).
FORBIDDEN = {
    "engine": {"picture", "render", "log", "cli", "solve", "players", "click", "rich", "matplotlib"},
    "solve": {"picture", "render", "cli", "players", "click", "matplotlib"},
    "players": {"picture", "render", "cli", "click", "rich", "matplotlib"},
    "picture": {"cli", "solve", "players", "click", "rich"},
    "dots": {"cli", "engine", "solve", "players", "play", "log", "click", "rich"},
}


def imported_names(path: Path) -> set[str]:
    """The first component of every module a file imports, relative imports resolved within the package."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                names.add((node.module or "").split(".")[0])
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
        for path in sorted((PACKAGE / layer).glob("*.py"))
        for name in imported_names(path) & FORBIDDEN[layer]
    }
    assert not wrong, sorted(wrong)


def test_the_checker_sees_relative_and_absolute_imports(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    lines = ["import rich.console", "from ..picture import model", "from .. import render", "def f():"]
    src.write_text("\n".join([*lines, "    from click import echo", ""]))
    assert imported_names(src) == {"rich", "picture", "render", "click"}
