"""The toolkit from Python, for notebooks and scripts.

::

    from sprouts_cli import Position, solution, bounds, draw, load

    p = Position("0*5")      # the engine's position: one type everywhere
    p.child_positions()      # the positions one move away; p.children(): their canonical forms
    solution(p, nimber=True).nimber      # 1
    bounds(p).longest                    # 14
    draw(p, "start.svg", legend=True)    # or draw(p) for the SVG text
    game = load("game.json")             # a saved game: its position and its picture
    p                                    # in Jupyter: shown as a picture

``Position`` is the engine's (``engine/position.py``), as python-chess has one
``Board``; solving and drawing stay outside it, here.  In Jupyter a position shows as
its picture because importing this module registers a drawer for the type with
IPython's display formatter (``show_in_notebooks``), so the engine never imports
the picture layer.  The functions are ``solution`` and ``draw`` rather than
``solve`` and ``render`` because ``sprouts_cli.solve`` and ``sprouts_cli.render``
are modules of the package, and Python would hide a function of the same name
behind them.

Only the engine is imported here; the solver, the bounds and the picture layer
(numba, scipy, networkx, matplotlib) are imported when first used.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from .engine import Position
from .engine.rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    from .picture.model import Picture


@dataclass(frozen=True)
class SavedGame:
    """A saved game (``game.json``): its position, and the picture the game drew."""

    position: Position
    picture: Picture


def load(path: str | os.PathLike[str]) -> SavedGame:
    """A saved game; its position is read back from its picture (``picture.analyse``)."""
    from .picture.analyse import analyse
    from .picture.gamefile import load_game

    picture = load_game(path)
    return SavedGame(analyse(picture), picture)


def _as_position(position: Position | SavedGame | str) -> Position:
    if isinstance(position, SavedGame):
        return position.position
    if isinstance(position, Position):
        return position
    if isinstance(position, str):
        return Position.from_string(position)
    kind = type(position).__name__
    raise TypeError(f"a position is a Position, a SavedGame or a position string, not {kind}")


def _picture(position: Position | SavedGame | str, width: float, height: float) -> Picture:
    """The saved game's picture, or a fresh Z layout (checked to read back as the position)."""
    if isinstance(position, SavedGame):
        return position.picture
    from .picture.layout import layout_position

    return layout_position(_as_position(position), width, height, jobs=1)


@lru_cache(maxsize=256)
def _notebook_svg(canonical: str) -> str:
    svg = draw(canonical, width=480, height=360, legend=True)
    assert isinstance(svg, str)  # no path: the SVG text
    return svg


def notebook_svg(position: Position) -> str:
    """The picture Jupyter shows for a position: a fresh layout with its legend, drawn once
    per canonical form."""
    return _notebook_svg(position.canonical())


def show_in_notebooks() -> bool:
    """Register ``notebook_svg`` with the running IPython's SVG formatter for ``Position``;
    False when no IPython shell runs (a script: nothing to show).  Done on import."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return False
    shell.display_formatter.formatters["image/svg+xml"].for_type(Position, notebook_svg)
    return True


@dataclass(frozen=True)
class Solution:
    """Who wins a position with best play, in normal or misère play."""

    position: str  # exact canonical form
    rules: str  # "normal" or "misere"
    win: bool  # True: the player to move wins
    nimber: int | None = None  # normal play, when asked for
    winning_moves: list[str] | None = None  # children lost for the opponent, when asked for
    winning_words: list[str] | None = None  # the move to each of them in words (its spot numbers)

    @property
    def outcome(self) -> str:
        return "win" if self.win else "loss"


def solution(
    position: Position | SavedGame | str,
    misere: bool = False,
    nimber: bool = False,
    moves: bool = False,
    db: str | os.PathLike[str] | None = None,
    jobs: int = 1,
) -> Solution:
    """Solve a position exactly, as ``sprouts solve`` does.

    ``nimber=True`` also gives the nimber (normal play), ``moves=True`` the winning
    moves.  ``db`` is a table of solved positions to read and add to (SQLite, as
    ``sprouts solve --db``); by default nothing is kept.  ``jobs`` threads of one
    search (normal play) or worker processes (misère play) are used for large positions.
    """
    from .solve.session import Session
    from .solve.store import Table

    if misere and nimber:
        raise ValueError("misère play has no nimbers")
    p = _as_position(position)
    table = Table(Path(db)) if db is not None else None
    try:
        with Session(table, jobs=jobs, misere=misere) as session:
            winning: list[str] | None = None
            value: int | None = None
            if moves:
                outcomes = session.child_outcomes(p)
                winning = [child for child, wins in outcomes if not wins]
                win = bool(winning) if outcomes else misere
            if nimber:
                value = session.nimber(p)
                win = value != 0
            if not moves and not nimber:
                win = session.outcome(p)
    finally:
        if table is not None:
            table.close()
    said = None
    if winning is not None:
        from .engine.naming import words_of_children

        named = words_of_children(p)
        said = [named[c] for c in winning]
    return Solution(p.canonical(), Rules.of(misere).value, win, value, winning, said)


@dataclass(frozen=True)
class Bounds:
    """The moves left in a position: bounds, and the exact lengths when proved in time (else None)."""

    position: str
    lives: int
    spots: int
    lower: int
    upper: int
    shortest: int | None
    longest: int | None
    parts: list[dict] = field(default_factory=list)  # the same for each independent part
    heaps: list[int] = field(default_factory=list)


def bounds(position: Position | SavedGame | str, seconds: float | None = 5.0) -> Bounds:
    """What ``sprouts bounds`` gives: ``m ≤ shortest ≤ longest ≤ M``.

    ``seconds`` is the time for the longest games and again for the shortest
    (None: no limit).  A position read from a string is first drawn with its dead
    spots given back, which sharpens the lower bound (as the command does); a saved
    game's position keeps them, and Euler's counts are taken of it.
    """
    from .engine.position import euler_counts
    from .picture.planar_map import realised
    from .solve.bounds_report import Loaded, bounds_report
    from .solve.lengths import LengthOracle

    p = _as_position(position)
    if isinstance(position, SavedGame):
        loaded = Loaded(p, stumps_known=True, drawing=p, euler_position=euler_counts(p))
    else:
        drawing = realised(p)
        loaded = Loaded(p, stumps_known=drawing is not None, drawing=drawing or p)
    report = bounds_report(LengthOracle(), loaded, seconds)
    return Bounds(
        position=report["position"],
        lives=report["lives"],
        spots=report["spots"],
        lower=report["lower"],
        upper=report["upper"],
        shortest=report["shortest"],
        longest=report["longest"],
        parts=report["parts"],
        heaps=report["heaps"],
    )


def draw(
    position: Position | SavedGame | str,
    path: str | os.PathLike[str] | None = None,
    *,
    format: str = "svg",
    width: float = 800,
    height: float = 600,
    numbers: bool = True,
    lives: bool = False,
    legend: bool = False,
    title: str | None = None,
    scale: float = 1.0,
    dpi: float = 100.0,
) -> str | bytes | None:
    """Draw a position: to ``path`` (SVG or PNG by its extension), else return the SVG text (or PNG bytes).

    A saved game keeps its own picture; a position string is laid out afresh (Z)
    and the picture is checked to read back as the position.  ``scale`` thickens
    curves and enlarges spots and text (for a projector), ``dpi`` sets a PNG's
    resolution, as ``sprouts render --scale/--dpi`` do.
    """
    from .render import render, render_bytes

    pic = _picture(position, width, height)
    caption = title if title is not None else _as_position(position).canonical()
    if path is not None:
        render(pic, path, numbers=numbers, lives=lives, title=caption, legend=legend, scale=scale, dpi=dpi)
        return None
    if format not in ("svg", "png"):
        raise ValueError(f"format is 'svg' or 'png', not {format!r}")
    data = render_bytes(
        pic, format, numbers=numbers, lives=lives, title=caption, legend=legend, scale=scale, dpi=dpi
    )
    return data.decode("utf-8") if format == "svg" else data


show_in_notebooks()

__all__ = [
    "Bounds",
    "Position",
    "SavedGame",
    "Solution",
    "bounds",
    "draw",
    "load",
    "notebook_svg",
    "show_in_notebooks",
    "solution",
]
