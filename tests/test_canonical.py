"""The exact canonical form: invariant under every symmetry, and a true canonical form."""

from __future__ import annotations

import random

from brute import brute_canonical
from games import game_positions, mirrored, random_game_position, renamed, reordered, rotated
from hypothesis import given
from hypothesis import strategies as st

from sprouts_cli.engine import Position
from sprouts_cli.engine.boundary_patterns import _mirror_invariant
from sprouts_cli.engine.canonical import (
    _sorted_land,
    clean_lands,
    clear_land_cache,
    general_land_code,
    land_code,
)


@given(game_positions(), st.integers(0, 2**32 - 1))
def test_canonical_form_ignores_renaming_rotating_reordering_mirroring(p: Position, seed: int) -> None:
    rng = random.Random(seed)
    c = p.canonical()
    assert renamed(p, rng).canonical() == c
    assert rotated(p, rng).canonical() == c
    assert reordered(p, rng).canonical() == c
    assert mirrored(p).canonical() == c
    assert mirrored(reordered(rotated(renamed(p, rng), rng), rng)).canonical() == c


@given(game_positions(max_spots=8), st.integers(0, 2**32 - 1))
def test_children_of_equal_positions_are_equal(p: Position, seed: int) -> None:
    rng = random.Random(seed)
    q = mirrored(reordered(rotated(renamed(p, rng), rng), rng))
    assert p.children() == q.children()


@given(game_positions(max_spots=6))
def test_canonical_form_is_faithful(p: Position) -> None:
    """The canonical string is the same position: brute-force keys agree."""
    assert brute_canonical(Position.from_string(p.canonical())) == brute_canonical(p)


def test_no_two_names_for_one_position_on_a_sample() -> None:
    """Brute-force isomorphism classes and canonical strings are in one-to-one correspondence."""
    rng = random.Random(2024)
    by_brute: dict[tuple, str] = {}
    by_form: dict[str, tuple] = {}
    for _ in range(400):
        p = random_game_position(rng.randint(1, 7), rng.randint(0, 14), rng.randrange(10**9))
        b = brute_canonical(p)
        c = p.canonical()
        assert by_brute.setdefault(b, c) == c
        assert by_form.setdefault(c, b) == b


def test_lands_are_written_sorted_and_named_per_land() -> None:
    p = Position.from_string("0*4.A|0*4.A+0*3")
    assert p.canonical() == "0*3+0*4.A|0*4.A"
    assert [land.canonical() for land in p.lands()] == ["0*4.A|0*4.A", "0*3"]


def test_dead_things_are_dropped() -> None:
    p = Position.from_string("0.3.33|2A|A2")
    assert p.canonical() == Position.from_string("0+A2|2A").canonical()
    assert "3" not in p.canonical()
    assert Position.from_string("3|22") == Position.from_string("22")
    assert Position.from_string("2").canonical() == "!"


def test_mirror_images_are_equal() -> None:
    a = Position.from_string("0.1ABC|1ACB")
    b = Position.from_string("0.1CBA|1BCA")
    assert a == b


@given(game_positions(max_spots=16))
def test_direct_paths_agree_with_the_tree(p: Position) -> None:
    """One-region and one-piece lands take shortcuts; the tree gives the same code and text."""
    for land in clean_lands(p):
        assert land_code(land, p.lives) == general_land_code(land, p.lives)


def test_direct_paths_agree_with_the_tree_on_game_sequences() -> None:
    """Every land of a few long random games, several pieces and centres included."""
    kinds = set()
    for spots, seed in ((8, 1), (12, 2), (16, 3), (24, 4)):
        for moves in range(0, 3 * spots, 2):
            p = random_game_position(spots, moves, seed)
            for land in clean_lands(p):
                assert land_code(land, p.lives) == general_land_code(land, p.lives)
                kinds.add(min(len(land), 3))
    assert kinds == {1, 2, 3}


def test_land_cache_keys_on_lives() -> None:
    """The same regions with other lives are another land (the cache key holds the lives)."""
    clear_land_cache()
    one = Position.trusted((((0, 1),),), (2, 2))
    two = Position.trusted((((0, 1),),), (1, 2))
    assert one.canonical() == "11"
    assert two.canonical() == "12"


def test_mirror_invariance_is_only_claimed_when_mirroring_rotates() -> None:
    assert _mirror_invariant([(1, 2), (3,), (4, 4)])
    assert _mirror_invariant([(1, 5, 2, 5)])  # reversed: (5, 2, 5, 1), a rotation
    assert not _mirror_invariant([(1, 2, 3)])
    assert not _mirror_invariant([(1, 5, 2, 5, 3)])
    for b in [(1, 2, 3, 4), (1, 1, 2), (1, 2, 1, 3), (7, 8, 9, 8)]:
        rotations = {b[i:] + b[:i] for i in range(len(b))}
        assert _mirror_invariant([b]) == (b[::-1] in rotations)


@given(game_positions(max_spots=16), st.integers(0, 2**32 - 1))
def test_sorted_layout_is_the_same_land(p: Position, seed: int) -> None:
    """The cache key of ``land_code_and_text`` is the land itself, laid out another way."""
    rng = random.Random(seed)
    for r in (p, reordered(rotated(renamed(p, rng), rng), rng)):
        for land in clean_lands(r):
            laid, lives = _sorted_land(land, r.lives)
            assert land_code(list(laid), lives) == land_code(land, r.lives)
