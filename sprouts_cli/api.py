"""The toolkit from Python, for notebooks and scripts.

::

    from sprouts_cli import Position, solution, bounds, draw

    p = Position("0*5")
    p.children()            # the positions one move away, as Positions
    p.child_strings()       # ... and as canonical strings
    solution(p, nimber=True).nimber      # 1
    bounds(p).longest                    # 14
    draw(p, "start.svg", legend=True)    # or draw(p) for the SVG text
    p                                    # in Jupyter: shown as a picture (_repr_svg_)

A :class:`Position` wraps the engine's position (``.engine``) with names that read
well at a prompt.  The functions are ``solution`` and ``draw`` rather than ``solve``
and ``render`` because ``sprouts_cli.solve`` and ``sprouts_cli.render`` are modules of
the package, and Python would hide a function of the same name behind them.

Only the engine is imported here; the solver, the bounds and the picture layer
(numba, scipy, networkx, matplotlib) are imported when first used.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .engine import Position as EnginePosition
from .engine.rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    from .picture.model import Picture

PositionLike = "Position | EnginePosition | str"


class Position:
    """A Sprouts position: a string in the GLOP/SPOTS notation, or a saved game's position.

    Two positions are equal when they are the same game position (their exact
    canonical forms agree).  ``str(p)`` is the canonical form.
    """

    __slots__ = ("_picture", "_svg", "engine")

    engine: EnginePosition
    _picture: Picture | None  # a saved game's picture, drawn again as the game drew it
    _svg: str | None  # the picture Jupyter shows, drawn on first use

    def __init__(self, position: Position | EnginePosition | str) -> None:
        if isinstance(position, Position):
            engine, picture = position.engine, position._picture
        elif isinstance(position, EnginePosition):
            engine, picture = position, None
        elif isinstance(position, str):
            engine, picture = EnginePosition.from_string(position), None
        else:
            raise TypeError(f"a Position is made from a position string, not {type(position).__name__}")
        object.__setattr__(self, "engine", engine)
        object.__setattr__(self, "_picture", picture)
        object.__setattr__(self, "_svg", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    @classmethod
    def start(cls, spots: int) -> Position:
        """The start of an ``spots``-spot game (``0*spots``)."""
        return cls(EnginePosition.start(spots))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Position:
        """The position of a saved game (``game.json``); it is drawn as the game draws it."""
        from .picture.analyse import analyse
        from .picture.gamefile import load_game

        picture = load_game(path)
        p = cls(analyse(picture))
        object.__setattr__(p, "_picture", picture)
        return p

    # ------------------------------------------------------------ reading off
    @property
    def canonical(self) -> str:
        """The exact canonical form."""
        return self.engine.canonical()

    @property
    def reduced(self) -> str:
        """The reduced form (simplified keeping the game value; the key of solved tables)."""
        return self.engine.reduced()

    @property
    def lives(self) -> int:
        """Lives on the board; every move takes one."""
        return self.engine.total_lives

    @property
    def spots(self) -> int:
        return self.engine.spot_count

    @property
    def heaps(self) -> tuple[int, ...]:
        """The nim heaps beside the position (``+*k``)."""
        return self.engine.heaps

    def is_over(self) -> bool:
        """True when no move is left."""
        return self.engine.is_over()

    def lands(self) -> list[Position]:
        """The independent parts, each a position of its own."""
        return [Position(land) for land in self.engine.lands()]

    def children(self) -> list[Position]:
        """The distinct positions one move away, sorted by canonical form."""
        return [Position(text) for text in self.child_strings()]

    def child_strings(self) -> list[str]:
        """The canonical forms of the distinct positions one move away, sorted."""
        return sorted(self.engine.children())

    # --------------------------------------------------------------- results
    def solution(
        self, misere: bool = False, nimber: bool = False, moves: bool = False, **kw: Any
    ) -> Solution:
        """Who wins (see :func:`solution`)."""
        return solution(self, misere=misere, nimber=nimber, moves=moves, **kw)

    def bounds(self, seconds: float | None = 5.0) -> Bounds:
        """Bounds on the moves left and the exact lengths (see :func:`bounds`)."""
        return bounds(self, seconds=seconds)

    def draw(self, path: str | os.PathLike[str] | None = None, **kw: Any) -> str | bytes | None:
        """A picture (see :func:`draw`)."""
        return draw(self, path, **kw)

    def picture(self, width: float = 800, height: float = 600) -> Picture:
        """The saved game's picture, or a fresh Z layout (checked to read back as this position)."""
        if self._picture is not None:
            return self._picture
        from .picture.layout import layout_position

        return layout_position(self.engine, width, height, jobs=1)

    # ---------------------------------------------------------------- python
    def _repr_svg_(self) -> str:
        """Jupyter shows a position as its picture (drawn once, then kept)."""
        if self._svg is None:
            svg = draw(self, width=480, height=360, legend=True)
            assert isinstance(svg, str)  # no path: the SVG text
            object.__setattr__(self, "_svg", svg)
            return svg
        return self._svg

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Position):
            return self.engine == other.engine
        if isinstance(other, EnginePosition):
            return self.engine == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.engine)

    def __str__(self) -> str:
        return self.canonical

    def __repr__(self) -> str:
        return f"Position({self.canonical!r})"


def _as_position(position: Position | EnginePosition | str) -> Position:
    return position if isinstance(position, Position) else Position(position)


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
    position: Position | EnginePosition | str,
    misere: bool = False,
    nimber: bool = False,
    moves: bool = False,
    db: str | os.PathLike[str] | None = None,
    jobs: int = 1,
) -> Solution:
    """Solve a position exactly, as ``sprouts solve`` does.

    ``nimber=True`` also gives the nimber (normal play), ``moves=True`` the winning
    moves.  ``db`` is a table of solved positions to read and add to (SQLite, as
    ``sprouts solve --db``); by default nothing is kept.  ``jobs`` worker processes
    are used for large positions.
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
                outcomes = session.child_outcomes(p.engine)
                winning = [child for child, wins in outcomes if not wins]
                win = bool(winning) if outcomes else misere
            if nimber:
                value = session.nimber(p.engine)
                win = value != 0
            if not moves and not nimber:
                win = session.outcome(p.engine)
    finally:
        if table is not None:
            table.close()
    said = None
    if winning is not None:
        from .engine.naming import words_of_children

        named = words_of_children(p.engine)
        said = [named[c] for c in winning]
    return Solution(p.canonical, Rules.of(misere).value, win, value, winning, said)


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


def bounds(position: Position | EnginePosition | str, seconds: float | None = 5.0) -> Bounds:
    """What ``sprouts bounds`` gives: ``m ≤ shortest ≤ longest ≤ M``.

    ``seconds`` is the time for the longest games and again for the shortest
    (None: no limit).  A position read from a string is first drawn with its dead
    spots given back, which sharpens the lower bound (as the command does).
    """
    from .engine.position import euler_counts
    from .picture.planar_map import realised
    from .solve.bounds_report import Loaded, bounds_report
    from .solve.lengths import LengthOracle

    p = _as_position(position)
    if p._picture is not None:
        loaded = Loaded(p.engine, stumps_known=True, drawing=p.engine, euler_position=euler_counts(p.engine))
    else:
        drawing = realised(p.engine)
        loaded = Loaded(p.engine, stumps_known=drawing is not None, drawing=drawing or p.engine)
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
    position: Position | EnginePosition | str,
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

    p = _as_position(position)
    pic = p.picture(width, height)
    caption = title if title is not None else p.canonical
    if path is not None:
        render(pic, path, numbers=numbers, lives=lives, title=caption, legend=legend, scale=scale, dpi=dpi)
        return None
    if format not in ("svg", "png"):
        raise ValueError(f"format is 'svg' or 'png', not {format!r}")
    data = render_bytes(
        pic, format, numbers=numbers, lives=lives, title=caption, legend=legend, scale=scale, dpi=dpi
    )
    return data.decode("utf-8") if format == "svg" else data


__all__ = ["Bounds", "Position", "Solution", "bounds", "draw", "solution"]
