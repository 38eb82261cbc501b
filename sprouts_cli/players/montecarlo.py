"""Monte Carlo (Alfeld §5.3): random games from each candidate, the best share wins.

For each candidate move a number of random games (Random's choices, §5.2) is played
to the end from the position after it, and the games the mover wins are counted
(``Rules.mover_wins``: in normal play the mover wins exactly when the number of
moves after its own is even, in misère when it is odd).  Instead of a number of games, a
time may be given: the candidates then get rounds of one game each until the time is
up.  With several workers every worker plays games for all candidates, each with a
random stream of its own, and the counts are added.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..cpus import usable_cpus
from ..engine.moves import apply_move, random_move
from ..engine.parts import clean
from ..engine.position import Position
from ..engine.rules import Rules
from ..procs import pool_initializer
from .base import DEFAULT_GAMES, Choice, Player
from .candidates import Candidate, break_ties, root_candidates


def random_game_length(p: Position, rng: random.Random) -> int:
    """The number of moves of one random game from ``p`` to its end (Random's rule, §5.2)."""
    moves = 0
    q = clean(p)
    while True:
        m = random_move(q, rng)
        if m is None:
            return moves
        q = apply_move(q, m, check=False)
        moves += 1


@dataclass
class Tally:
    """Games played and won (by the mover of the candidate) for each candidate."""

    played: list[int]
    won: list[int]

    def add(self, other: Tally) -> None:
        self.played = [a + b for a, b in zip(self.played, other.played, strict=True)]
        self.won = [a + b for a, b in zip(self.won, other.won, strict=True)]

    def share(self, i: int) -> float:
        return self.won[i] / self.played[i] if self.played[i] else 0.0


def play_rounds(
    children: list[Position], misere: bool | Rules, games: int | None, seconds: float | None, seed: int
) -> Tally:
    """Rounds of one random game per candidate, until ``games`` rounds or ``seconds`` have passed.

    At least one round is always played.  With both limits, the first reached stops it.
    ``misere`` is the two-player flag or a ``Rules`` (three players: the mover wins when
    the moves after its own are a multiple of three).
    """
    rules = misere if isinstance(misere, Rules) else Rules.of(misere)
    rng = random.Random(seed)
    start = time.monotonic()
    played = [0] * len(children)
    won = [0] * len(children)
    rounds = 0
    while True:
        for i, child in enumerate(children):
            played[i] += 1
            if rules.mover_wins(random_game_length(child, rng)):
                won[i] += 1
        rounds += 1
        if games is not None and rounds >= games:
            break
        if seconds is not None and time.monotonic() - start >= seconds:
            break
        if games is None and seconds is None:
            break
    return Tally(played, won)


def _worker(args: tuple) -> Tally:
    return play_rounds(*args)


class Rollouts:
    """Random games for a list of positions, on one or several worker processes."""

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = max(1, jobs or usable_cpus())
        self._pool: ProcessPoolExecutor | None = None

    def tally(
        self,
        children: list[Position],
        misere: bool | Rules,
        games: int | None,
        seconds: float | None,
        seed: int,
    ) -> Tally:
        if self.jobs == 1 or len(children) == 0:
            return play_rounds(children, misere, games, seconds, seed)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.jobs, initializer=pool_initializer, initargs=(os.getpid(),)
            )
        shares = (
            [games // self.jobs + (1 if k < games % self.jobs else 0) for k in range(self.jobs)]
            if games
            else None
        )
        tasks = []
        for k in range(self.jobs):
            g = shares[k] if shares is not None else None
            if shares is not None and g == 0:
                continue
            tasks.append((children, misere, g, seconds, seed * 1000 + k))
        total = Tally([0] * len(children), [0] * len(children))
        for t in self._pool.map(_worker, tasks):
            total.add(t)
        return total

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


class MonteCarloPlayer(Player):
    """Plays the candidate whose random games the mover wins most often (Alfeld §5.3)."""

    name = "montecarlo"

    def __init__(self, settings=None, rules: Rules | None = None) -> None:
        super().__init__(settings)
        self.rollouts = Rollouts(self.settings.jobs)
        self.rules = rules  # a rule of its own (three players), else the game's misère flag

    def choose(self, p: Position, misere: bool, rng: random.Random) -> Choice:
        t0 = time.monotonic()
        rules = self.rules if self.rules is not None else Rules.of(misere)
        cands = root_candidates(p)
        if not cands:
            raise ValueError("no move is left")
        if len(cands) == 1:
            c = cands[0]
            return Choice(c.move, c.child, summary="the only move", fields=[("candidates", 1)])
        games = self.settings.games
        seconds = None if games is not None else max(0.0, self.settings.seconds - (time.monotonic() - t0))
        tally = self.rollouts.tally([c.child for c in cands], rules, games, seconds, rng.getrandbits(31))
        best = max(tally.share(i) for i in range(len(cands)))
        tied = [c for i, c in enumerate(cands) if tally.share(i) == best]
        pick = tied[0] if len(tied) == 1 else rng.choice(tied)
        order = sorted(range(len(cands)), key=lambda i: -tally.share(i))
        return Choice(
            pick.move,
            pick.child,
            summary=f"{len(cands)} candidates, {sum(tally.played)} random games, best wins {best:.0%}",
            fields=[
                ("candidates", len(cands)),
                ("games", sum(tally.played)),
                ("best-share", f"{best:.3f}"),
                ("tied", len(tied)),
                ("seconds", f"{time.monotonic() - t0:.2f}"),
            ],
            candidates=[(cands[i].move, f"{tally.won[i]}/{tally.played[i]}") for i in order],
        )

    def close(self) -> None:
        self.rollouts.close()


__all__ = [
    "DEFAULT_GAMES",
    "Candidate",
    "MonteCarloPlayer",
    "Rollouts",
    "Tally",
    "break_ties",
    "play_rounds",
    "random_game_length",
]
