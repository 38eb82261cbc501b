"""The normal-play solver a process uses: the compiled core's, or the plain-Python reference."""

from __future__ import annotations

from typing import Any

from .nimbers import NormalSearch, NormalSolver, NormalTable


def normal_solver(table: NormalTable | None = None, **options: Any) -> NormalSearch:
    """``compiled.CompiledNormalSolver`` unless ``SPROUTS_PURE_PYTHON=1`` or
    ``SPROUTS_COMPILED_SEARCH=0`` (or no numba), else ``nimbers.NormalSolver``.  Options
    ``NormalSolver`` does not take (``threads``, ``tt_entries``) go to the compiled one only."""
    from .compiled import CompiledNormalSolver, compiled_available

    if compiled_available():
        return CompiledNormalSolver(table, **options)
    for key in ("threads", "tt_entries", "compile_lives"):
        options.pop(key, None)
    return NormalSolver(table, **options)


__all__ = ["normal_solver"]
