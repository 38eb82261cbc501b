"""The solver's children of a land are exactly the engine's (``child_parts``), with fewer canonical forms."""

from __future__ import annotations

from array import array
from functools import cache

import pytest
from games import game_positions, reachable
from hypothesis import given

from sprouts_cli.engine import Position
from sprouts_cli.engine.explore import child_parts
from sprouts_cli.engine.moves import Move, representative_moves
from sprouts_cli.engine.reduce import reduced_lands
from sprouts_cli.solve.children import (
    LazyChildren,
    land_children,
    land_shape,
    pack_moves,
    read_land,
    symmetric_move_args,
    symmetric_moves,
    unpack_move,
)


@cache
def lands_from(n: int) -> list[str]:
    return sorted({x for p in reachable(n).values() for x in reduced_lands(p)})


def engine_children(land: str) -> list[tuple[str, ...]]:
    """The engine's children of the drawing the solver reads (``read_land``: regions as written).

    ``Position.from_string`` may turn regions to agree, which gives a drawing of the same
    game whose children can be named otherwise (``test_turned_reading_has_the_same_values``).
    """
    return sorted(lands for lands, _ in child_parts(read_land(land)))


@pytest.mark.parametrize(("n", "step"), [(1, 1), (2, 1), (3, 1), (4, 5)])
def test_children_match_the_engine_on_lands_from_n_spots(n: int, step: int) -> None:
    for land in lands_from(n)[::step]:
        assert land_children(land) == engine_children(land), land


@pytest.mark.slow
@pytest.mark.parametrize("n", [4, 5])
def test_children_match_the_engine_on_every_land_from_n_spots(n: int) -> None:
    for land in lands_from(n):
        assert land_children(land) == engine_children(land), land


@given(game_positions(max_spots=9))
def test_children_match_the_engine_on_random_lands(p: Position) -> None:
    for land in reduced_lands(p)[:2]:
        assert land_children(land) == engine_children(land), land


def test_interchangeable_boundaries_are_used_once() -> None:
    p = Position.from_string("0*11")
    assert len(symmetric_moves(p)) == 12 < len(representative_moves(p))
    assert len(land_children("0*11")) == 7


def _same_position(text: str) -> None:
    """``read_land`` reads the spots as the notation does, region by region as written; the
    notation's reader also turns regions to agree (``engine/drawing.py``), which changes
    no game and no reduced form."""
    fast, ref = read_land(text), Position.from_string(text)
    assert (fast.lives, fast.heaps) == (ref.lives, ref.heaps), text
    for a, b in zip(fast.regions, ref.regions, strict=True):
        assert a == b or a == tuple(x[::-1] for x in b), text
    assert fast.reduced() == ref.reduced(), text
    largest = max((fast.region_lives(i) for i in range(len(fast.regions))), default=0)
    assert land_shape(text) == (fast.total_lives, largest), text


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_read_land_reads_as_the_notation_does(n: int) -> None:
    for land in lands_from(n):
        _same_position(land)
        for child in land_children(land):
            for x in child:
                _same_position(x)


@given(game_positions(max_spots=12))
def test_read_land_reads_random_lands_as_the_notation_does(p: Position) -> None:
    for land in reduced_lands(p):
        _same_position(land)


def test_read_land_reads_long_letter_names() -> None:
    _same_position("abcdefghijklm(13)m(13)lkjihgfedcba.0*3.1")
    capitals = [f"n({k})" if k > 25 else chr(64 + k) for k in range(1, 28)]
    _same_position(f"0.{''.join(capitals)}|{''.join(reversed(capitals))}")


@given(game_positions(max_spots=14))
def test_packed_moves_unpack_to_the_listed_moves(p: Position) -> None:
    for land in reduced_lands(p):
        moves = symmetric_move_args(read_land(land))
        packed = pack_moves(moves)
        assert [unpack_move(w) for w in packed] == [Move(*a) for a in moves]


def test_moves_that_do_not_fit_a_word_stay_tuples() -> None:
    p = Position.start(30)  # a line from one lone spot to itself can enclose boundary 29
    moves = symmetric_move_args(p)
    packed = pack_moves(moves)
    assert packed is moves
    assert [unpack_move(w) for w in packed] == [Move(*a) for a in moves]
    assert isinstance(pack_moves(symmetric_move_args(Position.start(12))), array)


def test_lazy_children_are_the_same_when_their_moves_are_dropped_and_listed_again() -> None:
    # the solver keeps the listed moves of its most recent lands only (``moves_cache``)
    for land in lands_from(4)[::23]:
        whole = LazyChildren(land).all()
        lazy = LazyChildren(land)
        assert lazy.remaining() == len(lazy.moves or [])
        while lazy.more():
            lazy.drop_moves()
            assert lazy.moves is None or lazy.done
        assert lazy.found == whole, land
        assert sorted(whole) == land_children(land)


@pytest.mark.parametrize("land", ["0.A|A2BC|BDE|CDE1", "1A|BCDE.F|BCDE|AF"])
def test_turned_reading_has_the_same_values(land: str) -> None:
    """A land read as written and with its regions turned to agree are one game: their
    children carry the same nimbers, and so do they, in normal and in misère play."""
    from sprouts_cli.solve.misere import misere_outcome
    from sprouts_cli.solve.nimbers import NormalSolver

    as_written, turned = read_land(land), Position.from_string(land)
    assert as_written.regions != turned.regions  # the reader did turn a region
    solver = NormalSolver()

    def values(p: Position) -> list[int]:
        return sorted({solver.nimber("+".join(lands) or "!") for lands, _ in child_parts(p)})

    assert values(as_written) == values(turned)
    assert solver.nimber(as_written) == solver.nimber(turned)
    assert misere_outcome(as_written) == misere_outcome(turned)
