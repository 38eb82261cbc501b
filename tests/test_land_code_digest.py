"""The canonical codes of lands stay the same, bit for bit, whatever changes inside the kernel.

Its codes key every cache of the solvers (and the tables written to disk), and its strings
are the canonical forms: this file pins both to digests, over every land of the positions
reachable from 1-4 spots and of 300 random games of 8-20 spots (each also renamed, rotated
and mirrored), and over every land from 5 spots (a slow test); and it compares the compiled
kernel with its plain-Python source (the reference) on random lands.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from games import game_positions, mirrored, random_game_position, reachable, renamed, rotated
from hypothesis import given, settings

from sprouts_cli.engine import Position
from sprouts_cli.engine.canonical import clean_lands
from sprouts_cli.engine.kernels import flatten_land, land_code_kernel
from sprouts_cli.engine.kernels import land_code as land_code_module
from sprouts_cli.engine.moves import random_move_as_stored

#: sha256 of every code and string ``lands(...)`` gives: the lands from 1-4 spots and 300
#: random games, and those from 5 spots.
DIGEST_4 = "2a9bfbb29395330afaed5818cbf1b3b2b2963373e7bf51eb78c205d2dfd39d9f"
DIGEST_5 = "9b6040f3b8a194bd30264dba221968574d1d690e885ca520fb090165b651de43"


def stored_order_game(spots: int, moves: int, seed: int) -> Position:
    """A random game with each move chosen in the order the position is stored in
    (``random_move_as_stored``): the pinned lands do not change when the players' order of
    choosing does."""
    return random_game_position(spots, moves, seed, random_move_as_stored)


def lands(spots: range, games: int) -> Iterator[tuple[list, tuple[int, ...]]]:
    """Every cleaned land of the positions reachable from ``spots`` spots, then the lands of
    ``games`` random games of 8-20 spots, each also renamed, rotated and mirrored."""
    for k in spots:
        for p in reachable(k).values():
            for land in clean_lands(p):
                yield land, p.lives
    rng = random.Random(28)
    for seed in range(games):
        spots = 8 + seed % 13
        p = stored_order_game(spots, rng.randrange(3 * spots), seed)
        for q in (p, renamed(p, rng), rotated(p, rng), mirrored(p)):
            for land in clean_lands(q):
                yield land, q.lives


def digest(found: Iterator[tuple[list, tuple[int, ...]]]) -> str:
    """sha256 of the codes and strings of these lands (checking that the code does not depend
    on whether the string is written)."""
    h = hashlib.sha256()
    for land, lives in found:
        flat = np.array(flatten_land(land, lives), dtype=np.int64)
        code, text = land_code_kernel(flat, True)
        alone, none = land_code_kernel(flat, False)
        assert np.array_equal(code, alone) and none.shape[0] == 0
        h.update(len(code).to_bytes(4, "little") + code.tobytes() + b"/" + text.tobytes() + b";")
    return h.hexdigest()


def test_codes_and_strings_are_pinned() -> None:
    assert digest(lands(range(1, 5), 300)) == DIGEST_4


@pytest.mark.slow
def test_codes_and_strings_of_every_land_from_5_spots_are_pinned() -> None:
    assert digest(lands(range(5, 6), 0)) == DIGEST_5


@contextmanager
def plain_python() -> Iterator[None]:
    """Every kernel of ``land_code.py`` as its plain-Python source while inside (a compiled
    kernel's ``py_func`` alone would still call the compiled kernels below it)."""
    saved = {name: f for name, f in vars(land_code_module).items() if getattr(f, "py_func", f) is not f}
    try:
        for name, f in saved.items():
            setattr(land_code_module, name, f.py_func)
        yield
    finally:
        for name, f in saved.items():
            setattr(land_code_module, name, f)


@settings(max_examples=60, deadline=None)
@given(game_positions(min_spots=6, max_spots=24))
def test_the_compiled_kernel_and_its_python_source_agree(p: Position) -> None:
    for q in (p, mirrored(p)):
        for land in clean_lands(q):
            flat = np.array(flatten_land(land, q.lives), dtype=np.int64)
            for write in (False, True):
                got = land_code_kernel(flat, write)
                with plain_python():
                    want = land_code_kernel.py_func(flat, write)
                assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
