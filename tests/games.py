"""Positions from random games, and the symmetries a canonical form must ignore."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

from hypothesis import strategies as st

from sprouts_cli.engine import Position
from sprouts_cli.engine.explore import reachable_positions
from sprouts_cli.engine.moves import Move, apply_move, random_move


@cache
def reachable(n: int) -> dict[str, Position]:
    """Every position reachable from the n-spot start (kept as played: stumps and spot numbers),
    by exact canonical form; computed once per test run and shared by every test module.
    Callers must not change the dict."""
    return reachable_positions(Position.start(n))


def reachable_upto(n: int) -> dict[str, Position]:
    """Every position reachable from 1 to n spots."""
    out: dict[str, Position] = {}
    for k in range(1, n + 1):
        out.update(reachable(k))
    return out


def random_game_position(
    spots: int, moves: int, seed: int, choose: Callable[[Position, random.Random], Move | None] = random_move
) -> Position:
    """The position after up to ``moves`` random moves from the ``spots``-spot start, each chosen by
    ``choose`` (the Random player's rule by default)."""
    rng = random.Random(seed)
    p = Position.start(spots)
    for _ in range(moves):
        m = choose(p, rng)
        if m is None:
            break
        p = apply_move(p, m)
    return p


@st.composite
def game_positions(draw, min_spots: int = 1, max_spots: int = 12) -> Position:
    spots = draw(st.integers(min_spots, max_spots))
    moves = draw(st.integers(0, 3 * spots))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_game_position(spots, moves, seed)


def renamed(p: Position, rng: random.Random) -> Position:
    ids = list(range(len(p.lives)))
    rng.shuffle(ids)
    lives = [0] * len(ids)
    for old, new in enumerate(ids):
        lives[new] = p.lives[old]
    return Position([[[ids[s] for s in b] for b in r] for r in p.regions], lives, p.heaps)


def rotated(p: Position, rng: random.Random) -> Position:
    def rot(b):
        k = rng.randrange(len(b)) if b else 0
        return b[k:] + b[:k]

    return Position([[rot(b) for b in r] for r in p.regions], p.lives, p.heaps)


def reordered(p: Position, rng: random.Random) -> Position:
    regions = [list(r) for r in p.regions]
    for r in regions:
        rng.shuffle(r)
    rng.shuffle(regions)
    return Position(regions, p.lives, p.heaps)


def mirrored(p: Position) -> Position:
    return Position([[b[::-1] for b in r] for r in p.regions], p.lives, p.heaps)
