"""The directions a land's regions are read in for its exact form (``engine/directions.py``)."""

from __future__ import annotations

import random

import numpy as np
from games import game_positions, random_game_position
from hypothesis import given, settings
from hypothesis import strategies as st

from sprouts_cli.engine import Position, kernels
from sprouts_cli.engine.canonical import clean_lands
from sprouts_cli.engine.directions import BOTH, KEEP, TURN, directions, readings


def _turned(p: Position, which: list[bool]) -> Position:
    regions = tuple(tuple(b[::-1] for b in r) if t else r for r, t in zip(p.regions, which, strict=True))
    return Position.trusted(regions, p.lives, p.heaps)


def _compiled_directions(land, lives, plain: bool = False) -> list[int]:
    flat = np.array(kernels.flatten_land(land, lives), np.int64)
    fn = kernels._land_directions.py_func if plain else kernels._land_directions
    return [int(c) for c in fn(flat)]


@settings(max_examples=60)
@given(game_positions(min_spots=3, max_spots=20))
def test_the_kernel_chooses_as_python_does(p: Position) -> None:
    for land in clean_lands(p):
        assert _compiled_directions(land, p.lives) == directions(land, p.lives), land


def test_the_plain_kernel_chooses_as_python_does() -> None:
    rng = random.Random(5)
    for _ in range(30):
        p = random_game_position(rng.randint(3, 14), rng.randint(0, 30), rng.randrange(10**9))
        for land in clean_lands(p):
            assert _compiled_directions(land, p.lives, plain=True) == directions(land, p.lives)


@settings(max_examples=60)
@given(game_positions(min_spots=3, max_spots=30), st.integers(0, 2**32))
def test_reversing_any_regions_keeps_the_exact_form(p: Position, seed: int) -> None:
    rng = random.Random(seed)
    q = _turned(p, [rng.random() < 0.5 for _ in p.regions])
    assert q.canonical() == p.canonical()


def test_choices_on_small_lands() -> None:
    def land(text: str):
        (one,) = clean_lands(Position.from_string(text))
        return one, Position.from_string(text).lives

    # a lens: reversing either side only rotates it, so nothing is tried twice
    assert len(readings(*land("0.AB|AB"))) == 1
    # a loop through three spots, each side alike: both directions of each are tried
    assert directions(*land("ABC|ACB")) == [BOTH, BOTH]
    # a region that reads less one way is read that way
    choice = directions(*land("0.A|A2BC|BDE|C1DE"))
    assert set(choice) <= {KEEP, TURN, BOTH} and len(choice) == 4


def test_free_directions_name_one_position() -> None:
    # the loop's inside meets the outside region in two pinches: both directions draw it
    assert Position.from_string("1AB|AB1").canonical() == Position.from_string("1AB|A1B").canonical()
    assert Position.from_string("ABC|ABC") == Position.from_string("ABC|ACB")
