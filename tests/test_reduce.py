"""Every simplification of the reduced form keeps the game's value (checked by brute force)."""

from __future__ import annotations

import itertools

import pytest
from brute import brute_misere_win, brute_nimber
from games import game_positions
from hypothesis import given

from sprouts_cli.engine import Position
from sprouts_cli.engine.parts import clean
from sprouts_cli.engine.reduce import merge_adjacent_corners


def value(key: str) -> tuple[int, bool]:
    return brute_nimber(key), brute_misere_win(key)


def set_region_variants(p: Position):
    """Every way of writing each region of at most three lives as one boundary."""
    c = clean(p)
    options = []
    for r in c.regions:
        spots = list(dict.fromkeys(s for b in r for s in b))
        if sum(c.lives[s] for s in spots) <= 3:
            options.append([(perm,) for perm in itertools.permutations(spots)])
        else:
            options.append([r])
    for choice in itertools.product(*options):
        yield Position.trusted(tuple(choice), c.lives)


def adjacent_corner_variant(p: Position) -> Position:
    c = clean(p)
    return Position.trusted(
        tuple(tuple(merge_adjacent_corners(b, c.lives) for b in r) for r in c.regions), c.lives
    )


def check_rules_on(positions: dict[str, Position]) -> int:
    """Check every rule on every position; the number of set-region writings checked."""
    checked = 0
    for key, p in positions.items():
        v = value(key)
        assert value(p.reduced()) == v, (key, p.reduced())
        assert value(adjacent_corner_variant(p).canonical()) == v, key
        for variant in set_region_variants(p):
            assert value(variant.canonical()) == v, (key, variant.canonical())
            checked += 1
    return checked


@pytest.mark.parametrize("spots", [1, 2, 3, 4])
def test_rules_keep_nimber_and_misere_outcome(spots: int, reachable) -> None:
    positions = reachable(spots)
    assert check_rules_on(positions) >= len(positions)  # each position is one of its own writings


@pytest.mark.slow
def test_rules_keep_nimber_and_misere_outcome_from_5_spots(reachable) -> None:
    positions = reachable(5)
    assert check_rules_on(positions) >= len(positions)


def test_reduced_examples() -> None:
    assert Position.from_string("1aa").reduced() == Position.from_string("12").reduced()
    # a region of three lives: boundaries and order do not matter
    a = Position.from_string("2AB|0.A|0.B")
    b = Position.from_string("2A.B|0.A|0.B")
    c = Position.from_string("A2B|0.A|0.B")
    assert a.reduced() == b.reduced() == c.reduced()
    assert Position.from_string("0.1aa").reduced() == Position.from_string("0.12").reduced()


def test_a_set_region_read_the_other_way_round_reduces_to_the_same_string() -> None:
    """Found by hypothesis: the set region ``CEF`` read the other way round gave another string,
    and that string reduced back to the first (the reduced form did not read each region both
    ways, as the exact form does)."""
    a = Position.from_string("0.AB|A2CDB|CEF|DGH1EF|GH")
    b = Position.from_string("0.AB|A2CDB|CFE|DGH1EF|GH")
    assert a.reduced() == b.reduced()
    assert Position.from_string(a.reduced()).reduced() == a.reduced()
    p = Position.from_string("A333B.0|C3|D33313E33F33G3H|333F333E33I|33DH|333G3AB333C33I+31333")
    assert Position.from_string(p.reduced()).reduced() == p.reduced()


@given(game_positions(max_spots=10))
def test_reduced_form_is_a_fixed_point(p: Position) -> None:
    r = p.reduced()
    assert Position.from_string(r).reduced() == r
    assert Position.from_string(r).total_lives == p.total_lives - _dropped_lives(p)


def _dropped_lives(p: Position) -> int:
    """Lives lost by cleaning and by writing each spot of a set region once (none are)."""
    c = clean(p)
    return p.total_lives - c.total_lives
