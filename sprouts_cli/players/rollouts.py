"""Random games (Alfeld §5.2–5.3): how often the mover of each position wins them.

Random games are how Monte Carlo ranks its candidates, and how every player tells
apart the moves that tie for its best value (Alfeld §5.8).  For each position a game
of Random's choices is played to the end and the mover's win is counted by the rule
(``Rules.mover_wins``: in normal play the mover wins exactly when the number of moves
after its own is even, in misère when it is odd, with three players when it is a
multiple of three).  Instead of a number of games, a time may be given: the positions
then get rounds of one game each until the time is up.  With several workers every
worker plays games for all positions, each with a random stream of its own, and the
counts are added.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..cpus import usable_cpus
from ..engine.moves import apply_move, random_move_as_stored, standard_order
from ..engine.parts import clean
from ..engine.position import Position
from ..engine.rules import Rules
from ..procs import pool_initializer


def random_game_length(p: Position, rng: random.Random) -> int:
    """The number of moves of one random game from ``p`` to its end (Random's rule, §5.2).

    The game starts from ``p`` in its standard order, so one seed plays the same game from
    every reading of ``p``; each move after it is chosen in the order the last one left.
    """
    moves = 0
    q = clean(standard_order(p).position)
    while True:
        m = random_move_as_stored(q, rng)
        if m is None:
            return moves
        q = apply_move(q, m, check=False)
        moves += 1


@dataclass
class Tally:
    """Games played and won (by the mover of the position) for each position."""

    played: list[int]
    won: list[int]

    def add(self, other: Tally) -> None:
        self.played = [a + b for a, b in zip(self.played, other.played, strict=True)]
        self.won = [a + b for a, b in zip(self.won, other.won, strict=True)]

    def share(self, i: int) -> float:
        return self.won[i] / self.played[i] if self.played[i] else 0.0


def play_rounds(
    children: list[Position], rules: Rules, games: int | None, seconds: float | None, seed: int
) -> Tally:
    """Rounds of one random game per position, until ``games`` rounds or ``seconds`` have passed.

    At least one round is always played.  With both limits, the first reached stops it.
    """
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


def _worker(args: tuple[list[Position], Rules, int | None, float | None, int]) -> Tally:
    return play_rounds(*args)


class Rollouts:
    """Random games for a list of positions, on one or several worker processes."""

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = max(1, jobs or usable_cpus())
        self._pool: ProcessPoolExecutor | None = None

    def tally(
        self,
        children: list[Position],
        rules: Rules,
        games: int | None,
        seconds: float | None,
        seed: int,
    ) -> Tally:
        if self.jobs == 1 or len(children) == 0:
            return play_rounds(children, rules, games, seconds, seed)
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
            tasks.append((children, rules, g, seconds, seed * 1000 + k))
        total = Tally([0] * len(children), [0] * len(children))
        for t in self._pool.map(_worker, tasks):
            total.add(t)
        return total

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


__all__ = ["Rollouts", "Tally", "play_rounds", "random_game_length"]
