"""The core's cache of child lands by flat form (``pncore._flat_key``) finds only the right land.

A child land is looked up by its flat form with the spots renamed in the order they first
appear, before its code is made.  The cache is right if equal keys always belong to lands
with equal codes, and if renaming the spots never changes a key; the children the core
makes with it are compared with the plain ones in ``test_solve_misere_core.py``; here
also with a cache of one slot, where every land evicts the one before.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest
from games import reachable
from test_solve_misere_core import lands_from, reference

from sprouts_cli.engine import kernels as K
from sprouts_cli.engine.reduce import reduced_lands
from sprouts_cli.solve import pncore as core
from sprouts_cli.solve.misere_core import CoreChildren, core_children_available

pytestmark = pytest.mark.skipif(not core_children_available(), reason="the compiled core is off")


def key_of(fc: np.ndarray, flat: np.ndarray, a: int, b: int) -> bytes | None:
    """The key ``_flat_key`` writes for ``flat[a:b]``, as bytes (None when it does not fit)."""
    n = int(core._flat_key(fc, flat, a, b))
    if n < 0:
        return None
    slots = (fc.shape[0] - core.FLAT_WIDTH - core.FLAT_NAMES) // core.FLAT_WIDTH
    words = fc[slots * core.FLAT_WIDTH + 1 : slots * core.FLAT_WIDTH + core.FLAT_WIDTH]
    return words.tobytes()[:n]


def corner_places(flat: np.ndarray) -> list[int]:
    """The places of the corners (``4 * spot + lives``) in a land's flat form; the rest are counts."""
    out = []
    p = 1
    for _r in range(int(flat[0])):
        nb = int(flat[p])
        p += 1
        for _k in range(nb):
            length = int(flat[p])
            out += range(p + 1, p + 1 + length)
            p += 1 + length
    return out


def renamed(flat: np.ndarray, a: int, b: int, rng: random.Random) -> np.ndarray:
    """``flat[a:b]`` with its spots given other (random, distinct) numbers."""
    out = flat[a:b].copy()
    places = corner_places(out)
    spots = sorted({int(out[i]) >> 2 for i in places})
    names = dict(zip(spots, rng.sample(range(200), len(spots)), strict=True))
    for i in places:
        out[i] = 4 * names[int(out[i]) >> 2] + (int(out[i]) & 3)
    return out


@cache
def child_flats(n: int) -> list[tuple[np.ndarray, int, int]]:
    """Every child land of every land from ``n`` spots: (the move's flat forms, start, end)."""
    out = []
    for land in sorted({x for p in reachable(n).values() for x in reduced_lands(p)}):
        flat, lives = K.parse_land_kernel(np.frombuffer(land.encode("ascii"), np.uint8))
        moves, fits = K.list_moves_kernel(flat, lives)
        assert fits
        for w in (int(x) for x in moves):
            inside = w >> 41 if w & (1 << 40) else 0
            b = 255
            args = (w & b, (w >> 8) & b, (w >> 16) & b, (w >> 24) & b, (w >> 32) & b, inside)
            cflat, off = K.child_land_flats_kernel(flat, lives, *args)
            out += [(cflat, int(off[i]), int(off[i + 1])) for i in range(off.shape[0] - 1)]
    return out


@pytest.mark.parametrize("n", [3, 4])
def test_equal_keys_belong_to_lands_with_equal_codes(n: int) -> None:
    fc = core.flat_cache()
    code_of: dict[bytes, bytes] = {}
    keys = 0
    for flat, a, b in child_flats(n):
        key = key_of(fc, flat, a, b)
        code = K.land_code_kernel(flat[a:b].copy(), False)[0].tobytes()
        if key is None:
            continue
        keys += 1
        assert code_of.setdefault(key, code) == code
    assert keys > 1000 and len(code_of) < keys  # lands are met again, as the cache assumes


def test_a_key_does_not_depend_on_the_spots_names() -> None:
    rng = random.Random(5)
    fc = core.flat_cache()
    for flat, a, b in rng.sample(child_flats(4), 500):
        other = renamed(flat, a, b, rng)
        assert key_of(fc, flat, a, b) == key_of(fc, other, 0, other.shape[0])


def test_different_readings_of_one_land_get_different_keys_but_one_code() -> None:
    """A key is a reading, not the land: ``0.0`` read from another corner is another key."""
    fc = core.flat_cache()
    # a line between two lone spots: one boundary, a (2 lives) c (1) b (2) c, read from a and from c
    one = np.array([1, 1, 4, 4 * 7 + 2, 4 * 9 + 1, 4 * 8 + 2, 4 * 9 + 1], np.int64)
    two = np.array([1, 1, 4, 4 * 9 + 1, 4 * 8 + 2, 4 * 9 + 1, 4 * 7 + 2], np.int64)
    assert key_of(fc, one, 0, 7) != key_of(fc, two, 0, 7)
    assert K.land_code_kernel(one, False)[0].tobytes() == K.land_code_kernel(two, False)[0].tobytes()


def test_a_land_too_large_for_a_key_has_none() -> None:
    fc = core.flat_cache()
    length = core.FLAT_KEY_BYTES - 3  # with the three counts before it, the key is full
    flat = np.array([1, 1, length, *[4 * (s % 4) + 1 for s in range(length)]], np.int64)
    assert key_of(fc, flat, 0, flat.shape[0]) is not None
    longer = np.array([1, 1, length + 1, *[4 * (s % 4) + 1 for s in range(length + 1)]], np.int64)
    assert key_of(fc, longer, 0, longer.shape[0]) is None
    many = np.array([1, 1, 70, *[4 * s + 1 for s in range(70)]], np.int64)  # more spots than names
    assert key_of(fc, many, 0, many.shape[0]) is None


def test_children_with_a_cache_of_one_slot_are_the_plain_ones() -> None:
    numbering = CoreChildren()
    st = numbering.state
    st.FLAT[0] = core.flat_cache(1)
    st.S = st.tuple_for(0)
    for land in lands_from(4):
        kids = numbering.children(land)
        while kids.more():
            pass
        assert kids.found == reference(land)[0], land
    assert int(st.T[0][core.T_FLAT_HITS]) > 0


def test_the_cache_finds_many_lands_again() -> None:
    numbering = CoreChildren()
    for land in lands_from(4):
        numbering.children(land).all()
    t = numbering.state.T[0]
    assert int(t[core.T_FLAT_HITS]) > int(t[core.T_MOVES]) // 4
