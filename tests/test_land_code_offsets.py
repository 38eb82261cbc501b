"""The canonical codes of lands are the same, bit for bit, whichever way the kernel is built.

``land_code_kernel`` carves all its scratch from one workspace and reaches it by integer
offsets (no array views, so numba counts no references for them).  Its codes key every
cache of the solvers, and its strings are the canonical forms: this file pins both, over
every land of the positions reachable from 1-5 spots, random lands of larger games and
their mirror images, to a digest taken from the kernel before it worked by offsets; and
compares the compiled kernel with its plain-Python source (the reference) on random lands.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator

import numpy as np
from games import game_positions, mirrored, random_game_position, reachable, renamed, rotated
from hypothesis import given, settings

from sprouts_cli.engine import Position
from sprouts_cli.engine.canonical import clean_lands
from sprouts_cli.engine.kernels import flatten_land, land_code_kernel

#: sha256 of every code and string ``lands()`` gives, from the kernel as it was before offsets.
DIGEST = "be303a5900a509920255296c01105da6dad5e36339d2c172f131aa2a65cde2d9"


def lands() -> Iterator[tuple[list, tuple[int, ...]]]:
    """Every cleaned land from 1-5 spots, then lands of 300 random games of 8-20 spots, each
    also renamed, rotated and mirrored."""
    for k in range(1, 6):
        for p in reachable(k).values():
            for land in clean_lands(p):
                yield land, p.lives
    rng = random.Random(28)
    for seed in range(300):
        spots = 8 + seed % 13
        p = random_game_position(spots, rng.randrange(3 * spots), seed)
        for q in (p, renamed(p, rng), rotated(p, rng), mirrored(p)):
            for land in clean_lands(q):
                yield land, q.lives


def digest() -> str:
    h = hashlib.sha256()
    for land, lives in lands():
        flat = np.array(flatten_land(land, lives), dtype=np.int64)
        code, text = land_code_kernel(flat, True)
        alone, none = land_code_kernel(flat, False)
        assert np.array_equal(code, alone) and none.shape[0] == 0
        h.update(len(code).to_bytes(4, "little") + code.tobytes() + b"/" + text.tobytes() + b";")
    return h.hexdigest()


def test_codes_and_strings_are_those_of_the_kernel_before_offsets() -> None:
    assert digest() == DIGEST


@settings(max_examples=60, deadline=None)
@given(game_positions(min_spots=6, max_spots=24))
def test_the_compiled_kernel_and_its_python_source_agree(p: Position) -> None:
    for q in (p, mirrored(p)):
        for land in clean_lands(q):
            flat = np.array(flatten_land(land, q.lives), dtype=np.int64)
            for write in (False, True):
                got = land_code_kernel(flat, write)
                want = land_code_kernel.py_func(flat, write)
                assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
