"""Computer players for Dots-and-Boxes: random, greedy and perfect (the solver).

A player is asked for a line in a game; it never changes the game itself.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..errors import OutOfTime
from ..memory import free_memory
from .board import DotsPosition
from .game import DotsGame
from .solver import Solver, default_table_bits

PLAYER_NAMES = ("human", "random", "greedy", "perfect")


@dataclass
class Choice:
    """A chosen line and what the player knew about it (for the log)."""

    line: int
    by: str
    value: int | None = None  # the solver's value of the position, when known
    note: str = ""


class DotsPlayer:
    name = "computer"

    def choose(self, game: DotsGame, rng: random.Random) -> Choice:  # pragma: no cover - interface
        raise NotImplementedError


class RandomPlayer(DotsPlayer):
    """Any legal line, uniformly."""

    name = "random"

    def choose(self, game: DotsGame, rng: random.Random) -> Choice:
        return Choice(rng.choice(game.legal_lines()), self.name)


def _boxes_given(position: DotsPosition, line: int) -> int:
    """How many boxes the opponent can take in a row after ``line`` (which completes nothing)."""
    p, _ = position.play(line)
    total = 0
    while True:
        completing = [i for i in p.legal_lines() if p.completes(i)]
        if not completing:
            return total
        p, gained = p.play(completing[0])
        total += gained


class GreedyPlayer(DotsPlayer):
    """Takes every box it can; otherwise draws a line that gives no box away; otherwise
    gives away as few boxes as it can (ties at random)."""

    name = "greedy"

    def choose(self, game: DotsGame, rng: random.Random) -> Choice:
        p = game.position
        lines = game.legal_lines()
        completing = [i for i in lines if p.completes(i)]
        if completing:
            return Choice(rng.choice(completing), self.name, note="takes a box")
        safe = [i for i in lines if not any(p.sides(b) == 2 for b in p.board.line_boxes[i])]
        if safe:
            return Choice(rng.choice(safe), self.name)
        cost = {i: _boxes_given(p, i) for i in lines}
        least = min(cost.values())
        return Choice(rng.choice([i for i in lines if cost[i] == least]), self.name, note=f"gives {least}")


@dataclass
class PerfectPlayer(DotsPlayer):
    """Plays a move the solver proves best (a random one of them); greedy when the solver runs out of time."""

    time_limit: float | None = None
    solvers: dict = field(default_factory=dict)
    name: str = "perfect"

    def solver(self, game: DotsGame) -> Solver:
        key = (game.board, game.must_complete)
        if key not in self.solvers:
            bits = min(24, default_table_bits(game.board, free_memory()))  # at most 256 MB for a player
            self.solvers[key] = Solver(game.board, game.must_complete, table_bits=bits)
        return self.solvers[key]

    def choose(self, game: DotsGame, rng: random.Random) -> Choice:
        solver = self.solver(game)
        try:
            value = solver.value(game.position, self.time_limit)
        except OutOfTime as e:
            fallback = GreedyPlayer().choose(game, rng)
            return Choice(fallback.line, self.name, note=f"solver out of time ({e.bounds}); greedy move")
        best = solver.best_moves(game.position, value)
        return Choice(rng.choice(best), self.name, value=value, note=f"{len(best)} best")


def make_player(kind: str, time_limit: float | None = None) -> DotsPlayer:
    if kind == "random":
        return RandomPlayer()
    if kind == "greedy":
        return GreedyPlayer()
    if kind == "perfect":
        return PerfectPlayer(time_limit)
    raise ValueError(f"no computer player {kind!r} (choose from random, greedy, perfect)")
