"""What every computer player shares: its settings, its choice, and the reasoning it logs (Alfeld §5.1).

The players never look at a picture: they work on the position alone (the set
representation of Alfeld §2.4), choose a move, and only then is it drawn.  A choice says
which move, the position it leads to, and why, in a form the log can keep.

The base class makes the choice the same way for every player that ranks moves: the
candidates are the truly different moves (``candidates.root_candidates``); a position
with one candidate is answered at once; otherwise the subclass ranks the candidates
(``rank``: the best ones, tied, and its reasoning), and the tie is broken by random
games from the tied moves, then at random (Alfeld §5.8).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..engine.moves import Move
from ..engine.position import Position
from ..engine.rules import Rules
from .candidates import Candidate, break_ties, root_candidates
from .rollouts import Rollouts

if TYPE_CHECKING:  # pragma: no cover
    from ..solve.store import Table

#: Seconds per computer move when none is given.
DEFAULT_SECONDS = 2.0
#: Random games per candidate for Monte Carlo when it is given a number of games (Alfeld §5.3).
DEFAULT_GAMES = 100

#: One field of a ``think`` record of the log: its key and value.
Field = tuple[str, object]


@dataclass(frozen=True)
class Settings:
    """How a computer player may think: time per move, Monte Carlo games, processes, depth."""

    seconds: float = DEFAULT_SECONDS
    games: int | None = None  # Monte Carlo: games per candidate (None: play until the time is up)
    jobs: int = 1  # worker processes
    depth: int | None = None  # parity: the deepest search (None: as deep as the time allows)
    sharp: bool = False  # parity: use the exact longest game at the leaves where it can be found
    tie_games: int = DEFAULT_GAMES  # Monte Carlo games per tied move when breaking ties (Alfeld §5.8)
    table: Table | None = None  # a table of solved positions the solvers read and write


@dataclass
class Choice:
    """A player's move, the position after it, and its reasoning.

    ``fields`` go into the log's ``think`` record; ``candidates`` (words → value) into
    ``think … candidate`` records; ``summary`` is one line for people.
    """

    move: Move
    child: Position
    summary: str = ""
    fields: list[Field] = field(default_factory=list)
    candidates: list[tuple[Move, str]] = field(default_factory=list)


@dataclass
class Ranking:
    """A subclass's judgement of the candidates: the best ones (tied), and its reasoning.

    ``fields`` come before the tie-break's fields and the seconds in the log's record.
    """

    tied: list[Candidate]
    summary: str
    fields: list[Field]
    candidates: list[tuple[Move, str]] = field(default_factory=list)


class Player:
    """A computer player: ``choose`` a move in a position, under a rule (normal, misère, three players)."""

    name = "player"
    #: Answer a position with one candidate at once (a player whose verdict is worth logging says no).
    answers_one_candidate_at_once = True
    #: The worker processes for the random games that break ties (None: the settings' jobs).
    tie_jobs: int | None = None

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.rollouts = Rollouts(self.tie_jobs if self.tie_jobs is not None else self.settings.jobs)

    def choose(self, p: Position, rules: Rules, rng: random.Random) -> Choice:
        """The move to play in ``p`` under ``rules``; ``ValueError`` when no move is left."""
        t0 = time.monotonic()
        cands = root_candidates(p, self.settings.jobs)
        if not cands:
            raise ValueError("no move is left")
        if len(cands) == 1 and self.answers_one_candidate_at_once:
            c = cands[0]
            return Choice(c.move, c.child, summary="the only move", fields=[("candidates", 1)])
        ranking = self.rank(cands, rules, rng, t0)
        pick, tie_fields = self.break_tie(ranking.tied, rules, rng)
        return Choice(
            pick.move,
            pick.child,
            summary=ranking.summary,
            fields=[*ranking.fields, *tie_fields, ("seconds", f"{time.monotonic() - t0:.2f}")],
            candidates=ranking.candidates,
        )

    def rank(self, cands: list[Candidate], rules: Rules, rng: random.Random, t0: float) -> Ranking:
        """The best candidates and why, within the move's time (``t0``: when the move began)."""
        raise NotImplementedError  # pragma: no cover

    def break_tie(
        self, tied: list[Candidate], rules: Rules, rng: random.Random
    ) -> tuple[Candidate, list[Field]]:
        """One of ``tied``: the one whose random games the mover won most often, then at random."""
        seconds = max(0.05, 0.25 * self.settings.seconds)
        pick, tie = break_ties(tied, rules, rng, self.rollouts, self.settings.tie_games, seconds)
        return pick, tie.fields()

    def close(self) -> None:
        """Release worker processes and tables."""
        self.rollouts.close()

    def __enter__(self) -> Player:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["DEFAULT_GAMES", "DEFAULT_SECONDS", "Choice", "Field", "Player", "Ranking", "Settings"]
