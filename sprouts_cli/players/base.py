"""What every computer player shares: its settings, its choice, and the reasoning it logs (Alfeld §5.1).

The players never look at a picture: they work on the position alone (the set
representation of Alfeld §2.4), choose a move, and only then is it drawn.  A choice says
which move, the position it leads to, and why, in a form the log can keep.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ..engine.moves import Move
from ..engine.position import Position

#: Seconds per computer move when none is given.
DEFAULT_SECONDS = 2.0
#: Random games per candidate for Monte Carlo when it is given a number of games (Alfeld §5.3).
DEFAULT_GAMES = 100


@dataclass(frozen=True)
class Settings:
    """How a computer player may think: time per move, Monte Carlo games, processes, depth."""

    seconds: float = DEFAULT_SECONDS
    games: int | None = None  # Monte Carlo: games per candidate (None: play until the time is up)
    jobs: int = 1  # worker processes
    depth: int | None = None  # parity: the deepest search (None: as deep as the time allows)
    sharp: bool = False  # parity: use the exact longest game at the leaves where it can be found
    tie_games: int = DEFAULT_GAMES  # Monte Carlo games per tied move when breaking ties (Alfeld §5.8)
    table: Any = None  # a table of solved positions (``solve.store.Table``) the solvers read and write


@dataclass
class Choice:
    """A player's move, the position after it, and its reasoning.

    ``fields`` go into the log's ``think`` record; ``candidates`` (words → value) into
    ``think … candidate`` records; ``summary`` is one line for people.
    """

    move: Move
    child: Position
    summary: str = ""
    fields: list[tuple[str, object]] = field(default_factory=list)
    candidates: list[tuple[Move, str]] = field(default_factory=list)


class Player:
    """A computer player: ``choose`` a move in a position, under the normal or misère rule."""

    name = "player"

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()

    def choose(self, p: Position, misere: bool, rng: random.Random) -> Choice:  # pragma: no cover
        raise NotImplementedError

    def close(self) -> None:
        """Release worker processes and tables."""

    def __enter__(self) -> Player:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

