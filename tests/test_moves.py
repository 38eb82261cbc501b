"""Move generation and move surgery."""

from __future__ import annotations

import random

import pytest
from games import game_positions, mirrored, reordered, rotated
from hypothesis import given

from sprouts_cli.engine import IllegalMoveError, Move, Position
from sprouts_cli.engine.moves import (
    all_moves,
    apply_move,
    families,
    live_others,
    random_move,
    random_move_as_stored,
    representative_moves,
    standard_order,
    symmetric_moves,
)
from sprouts_cli.engine.naming import move_words, moves_from_words, numbered_key, parse_words
from sprouts_cli.engine.parts import clean


def kids(text: str) -> list[str]:
    return sorted(Position.from_string(text).children())


def test_two_spots_have_two_children() -> None:
    assert kids("0*2") == ["0.AB|AB", "1a1a"]


def test_three_spots_have_three_children() -> None:
    assert kids("0*3") == ["0*2.AB|AB", "0.1a1a", "0.AB|0.AB"]


def test_surgery_two_boundaries() -> None:
    # walk(B1, x) + [z] + walk(B2, y) + [z]: two lone spots become 1a1a
    p = Position.start(2)
    q = p.play(Move(0, 0, 0, 1, 0))
    assert q.regions == (((0, 2, 1, 2),),)
    assert q.lives == (2, 2, 1)


def test_surgery_one_boundary_split() -> None:
    p = Position([[(0, 1, 2, 3)], [(3, 2, 1, 0)]], [1, 1, 1, 1])
    q = p.play(Move(0, 0, 0, 0, 2))
    # [x, b1, y, z] and [y, b3, x, z]
    assert q.regions[0] == ((0, 1, 2, 4),)
    assert q.regions[2] == ((2, 3, 0, 4),)
    assert q.lives == (0, 1, 0, 1, 1)


def test_loop_needs_two_lives() -> None:
    p = Position.from_string("2A|A2")
    with pytest.raises(IllegalMoveError, match="needs two lives"):
        p.play(Move(0, 0, 0, 0, 0))


def test_loop_cannot_join_two_corners_of_one_spot() -> None:
    p = Position.from_string("1a1a")
    corners = p.regions[0][0]
    a = corners[1]
    second = corners.index(a, 2)
    with pytest.raises(IllegalMoveError, match="one corner"):
        p.play(Move(0, 0, 1, 0, second))


def test_stump_cannot_move() -> None:
    p = Position([[(0, 1)]], [0, 2])
    with pytest.raises(IllegalMoveError, match="no life"):
        p.play(Move(0, 0, 0, 0, 1))


def test_two_boundary_move_encloses_nothing() -> None:
    p = Position.start(3)
    with pytest.raises(IllegalMoveError, match="encloses nothing"):
        p.play(Move(0, 0, 0, 1, 0, frozenset({2})))


def test_loop_sharing_out_other_boundaries() -> None:
    # A loop at one of five lone spots: 0..4 of the other four inside.
    p = Position.start(5)
    loops = {apply_move(p, m).canonical() for m in all_moves(p) if m.is_loop}
    assert len(loops) == 3  # k inside and 4-k outside are mirror images on the sphere


def test_representatives_cover_all_moves() -> None:
    rng = random.Random(7)
    from games import random_game_position

    for _ in range(40):
        p = random_game_position(rng.randint(2, 6), rng.randint(0, 8), rng.randrange(10**9))
        full = {apply_move(p, m).canonical() for m in all_moves(p)}
        reps = {apply_move(p, m).canonical() for m in representative_moves(p)}
        assert full == reps


@given(game_positions())
def test_every_move_loses_exactly_one_life(p: Position) -> None:
    for m in representative_moves(p):
        assert apply_move(p, m).total_lives == p.total_lives - 1


@given(game_positions(max_spots=8))
def test_families_are_legal(p: Position) -> None:
    for ri, bi, ci, bj, cj in families(p):
        apply_move(p, Move(ri, bi, ci, bj, cj))  # raises if illegal


def test_heap_moves_are_children() -> None:
    assert kids("*2") == ["!", "*1"]
    assert "0+*1" not in kids("0+*1")
    assert "0" in kids("0+*1")


@given(game_positions(max_spots=8))
def test_symmetric_moves_give_every_child(p: Position) -> None:
    """One line per class of interchangeable boundaries loses no child, also with stumps kept."""
    every = {apply_move(p, m, check=False).canonical() for m in representative_moves(p)}
    assert {apply_move(p, m, check=False).canonical() for m in symmetric_moves(p)} == every
    assert len(symmetric_moves(p)) <= len(representative_moves(p))


def readings(p: Position, rng: random.Random) -> list[Position]:
    """``p`` as it is stored and as other pictures of it may read back: turned, reordered, mirrored."""
    return [
        p,
        rotated(p, rng),
        reordered(rotated(p, rng), rng),
        mirrored(p),
        mirrored(reordered(rotated(p, rng), rng)),
    ]


def live(p: Position) -> object:
    """The numbered position with what can no longer change the game dropped (``parts.clean``):
    what a move given back from the standard order fixes, whatever the reading."""
    return numbered_key(clean(p))


@given(game_positions(max_spots=9))
def test_every_reading_has_one_standard_order(p: Position) -> None:
    rng = random.Random(len(p.lives))
    orders = [standard_order(q) for q in readings(p, rng)]
    assert len({str(o.position) for o in orders}) == 1
    assert numbered_key(orders[0].position) == numbered_key(p)


@given(game_positions(max_spots=7))
def test_a_move_in_standard_order_is_the_same_move_of_the_position_as_stored(p: Position) -> None:
    """Every move of the standard order, given back, is a move of the stored position in the form
    ``families`` gives, and gives the same position up to where dead boundaries go (its mirror
    image when the standard order reads the position mirrored); its words give it back exactly,
    as the log's replay reads them."""
    rng = random.Random(len(p.lives))
    for q in readings(p, rng):
        order = standard_order(q)
        forms = set(families(q))
        for m in all_moves(order.position):
            back = order.move_back(m)
            after = apply_move(q, back)  # checked: the move is legal in q
            assert (back.region, back.boundary, back.corner, back.boundary2, back.corner2) in forms
            assert back.inside <= set(live_others(q, back.region, back.boundary))
            there = apply_move(order.position, m)
            assert after.canonical() == there.canonical()
            assert numbered_key(clean(after), order.mirrored) == numbered_key(clean(there), order.mirrored)
            fits = moves_from_words(q, parse_words(move_words(q, back)))
            assert numbered_key(after, mirror=False) in {
                numbered_key(apply_move(q, f), mirror=False) for f in fits
            }


def test_the_random_move_of_a_seed_is_the_same_for_every_reading() -> None:
    """Two pictures of one position read it back in different orders; the Random player's
    move for a seed (the position it gives, numbered) is the same from both."""
    differ = 0
    for seed in range(60):
        rng = random.Random(seed)
        p = Position.start(7)
        for _ in range(rng.randrange(12)):
            p = apply_move(p, random_move(p, rng))
        rs = readings(p, rng)
        after = {live(apply_move(q, random_move(q, random.Random(seed)))) for q in rs}
        assert len(after) == 1
        stored = {live(apply_move(q, random_move_as_stored(q, random.Random(seed)))) for q in rs}
        differ += len(stored) > 1
    assert differ > 10  # the readings do differ where the move is chosen in stored order
