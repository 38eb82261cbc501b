"""Moves in words and numbered positions (``engine/naming.py``)."""

from __future__ import annotations

import random

import pytest
from games import mirrored, random_game_position
from hypothesis import given
from hypothesis import strategies as st

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import all_moves, apply_move, random_move, representative_moves, standard_order
from sprouts_cli.engine.naming import (
    base_words,
    distinct_named_moves,
    live_key,
    lives_text,
    move_from_words,
    move_shape,
    move_words,
    moves_from_words,
    numbered_key,
    numbered_text,
    parse_lives,
    parse_numbered,
    parse_spot_list,
    parse_words,
    spot_list,
)
from sprouts_cli.errors import IllegalMoveError, NotationError


def test_spot_lists_use_ranges_and_read_back() -> None:
    assert spot_list({3, 5, 6}) == "4, 6-7"
    assert spot_list(range(10)) == "1-10"
    assert spot_list([]) == ""
    assert parse_spot_list("4, 6-7") == {3, 5, 6}
    assert parse_spot_list("4 6 - 7") == {3, 5, 6}
    with pytest.raises(NotationError):
        parse_spot_list("4, x")
    with pytest.raises(NotationError):
        parse_spot_list("7-6")


def test_words_of_the_seed_example() -> None:
    p = Position.start(7)
    fits = moves_from_words(p, parse_words("3 → 3 enclosing 4, 6-7"))
    # a loop at a lone spot: its inside named, or (on the sphere, the same) its outside
    assert len({apply_move(p, f).canonical() for f in fits}) == 1
    m = fits[0]
    assert m.is_loop
    inside = {p.regions[0][k][0] for k in m.inside}
    assert inside == {3, 5, 6}
    assert move_words(p, m) == "3 → 3 enclosing 4, 6-7"
    # the ascii arrow and "to" work too, and so does naming the outside of a loop at a lone spot
    assert moves_from_words(p, parse_words("3->3 enclosing 4,6-7")) == fits
    assert parse_words("3 to 5") == parse_words("3 → 5")


def test_the_start_of_four_spots_has_three_named_moves() -> None:
    named = distinct_named_moves(Position.start(4))
    assert [nm.words for nm in named] == ["1 → 1", "1 → 1 enclosing 2", "1 → 2"]
    assert {nm.canonical for nm in named} == {c for c in Position.start(4).children()}


def _check_words(p: Position) -> None:
    named = distinct_named_moves(p)
    assert {nm.canonical for nm in named} == p.children()
    assert len({nm.words for nm in named}) == len(named), "two different moves with the same words"
    for nm in named:
        fits = moves_from_words(p, parse_words(nm.words))
        assert {apply_move(p, m).canonical() for m in fits} == {nm.canonical}, nm.words


@given(st.integers(1, 7), st.integers(0, 14), st.integers(0, 2**31))
def test_every_named_move_reads_back_as_that_move(spots: int, moves: int, seed: int) -> None:
    _check_words(random_game_position(spots, moves, seed))


def test_words_of_every_representative_move_give_its_result() -> None:
    for seed in range(12):
        p = random_game_position(6, 5, seed)
        for m in representative_moves(p):
            words = move_words(p, m)
            want = apply_move(p, m).canonical()
            fits = moves_from_words(p, parse_words(words))
            assert {apply_move(p, f).canonical() for f in fits} == {want}, words


def test_either_side_of_a_closed_line_names_it() -> None:
    rng = random.Random(5)
    checked = 0
    for seed in range(40):
        p = random_game_position(5, 4, seed)
        for m in representative_moves(p):
            shape = move_shape(p, m)
            if shape.kind != "split":
                continue
            want = apply_move(p, m).canonical()
            a, b = sorted((shape.x, shape.y))
            for side in (shape.side_a, shape.side_b):
                listed = spot_list(side.spots)
                text = f"{b + 1} -> {a + 1}" + (f" enclosing {listed}" if listed else "")
                fits = moves_from_words(p, parse_words(text))
                assert want in {apply_move(p, f).canonical() for f in fits}, text
                checked += 1
        rng.random()
    assert checked > 50


def test_a_boundary_may_be_named_by_any_of_its_spots() -> None:
    p = random_game_position(4, 1, 0)  # one line drawn: a boundary of three spots, and lone spots
    joined = next(b for b in p.regions[0] if len(b) > 1)
    lone = next(b for b in p.regions[0] if len(b) == 1)
    # a loop at a lone spot enclosing the joined boundary, named by one spot of it
    text = f"{lone[0] + 1} → {lone[0] + 1} enclosing {joined[1] + 1}"
    full = f"{lone[0] + 1} → {lone[0] + 1} enclosing {spot_list(joined)}"
    a = {apply_move(p, m).canonical() for m in moves_from_words(p, parse_words(text))}
    b = {apply_move(p, m).canonical() for m in moves_from_words(p, parse_words(full))}
    assert a == b and len(a) == 1


def test_bad_words_say_why() -> None:
    p = random_game_position(3, 2, 1)
    with pytest.raises(NotationError, match="cannot read"):
        parse_words("three to five")
    with pytest.raises(IllegalMoveError, match="no spot 40"):
        moves_from_words(p, parse_words("1 → 40"))
    dead = next(s for s, v in enumerate(p.lives) if v == 0) if 0 in p.lives else None
    if dead is not None:
        with pytest.raises(IllegalMoveError, match="no life"):
            moves_from_words(p, parse_words(f"{dead + 1} → {dead + 1}"))
    q = Position.start(3)
    with pytest.raises(IllegalMoveError, match="no move 1 → 2 encloses 3"):
        moves_from_words(q, parse_words("1 → 2 enclosing 3"))
    r = apply_move(q, moves_from_words(q, parse_words("1 → 1 enclosing 2"))[0])
    with pytest.raises(IllegalMoveError, match="do not lie on one region"):
        moves_from_words(r, parse_words("2 → 3"))


def test_giving_picks_among_moves_with_the_same_words() -> None:
    found = 0
    for seed in range(30):
        p = random_game_position(5, 5, seed)
        for nm in distinct_named_moves(p):
            if " giving " in nm.words:
                found += 1
                bare = nm.words.split(" giving ")[0]
                fits = moves_from_words(p, parse_words(bare))
                assert len({apply_move(p, m).canonical() for m in fits}) > 1
    assert found > 0


#: Spot 4 has one life left and two corners on the one boundary of region 2; spot 3 lies
#: between them.  A line from 3 to either corner of 4 cuts off a triangle holding no spot,
#: so both moves are ``3 → 4``, give the same position up to the names of spots, and differ
#: in where the new spot 7 goes: ``[3 7 4]`` against ``[4 3 7]`` beside the rest.
TWO_CORNERS = Position.trusted((((4, 1, 5),), ((1, 3, 2, 3, 1, 4, 0, 4, 5),)), (2, 0, 2, 1, 0, 1))


def test_words_fitting_moves_that_differ_in_spot_names_name_one_of_them() -> None:
    p = TWO_CORNERS
    moves = [m for m in all_moves(p) if move_shape(p, m).x == 2 and move_shape(p, m).y == 3]
    moves += [m for m in all_moves(p) if move_shape(p, m).x == 3 and move_shape(p, m).y == 2]
    results = {live_key(apply_move(p, m)) for m in moves}
    assert len(results) == 2 and len({apply_move(p, m).canonical() for m in moves}) == 1
    words = sorted(move_words(p, m) for m in moves)
    assert words[0] == "3 → 4" and words[1].startswith("3 → 4 giving [")
    for m in moves:
        got = apply_move(p, move_from_words(p, move_words(p, m)))
        assert live_key(got) == live_key(apply_move(p, m)), move_words(p, m)


def _readings(p: Position) -> list[Position]:
    """``p`` and other readings of it: its standard order, and its mirror image."""
    return [p, standard_order(p).position, mirrored(p)]


def test_the_words_of_every_move_give_its_very_position_in_every_reading() -> None:
    """Spot numbers and all: a saved list of words replays to the game's position."""
    checked = 0
    for seed in range(40):
        p = random_game_position(3 + seed % 4, seed % 9, seed)
        order = standard_order(p)
        moves = list(all_moves(p)) + [order.move_back(m) for m in all_moves(order.position)]
        for m in moves:
            words = move_words(p, m)
            want = live_key(apply_move(p, m))
            for q in _readings(p):
                assert live_key(apply_move(q, move_from_words(q, words))) == want, (p, m, words)
            checked += 1
    assert checked > 1000


def test_seeded_random_games_replay_from_their_words() -> None:
    """A game recorded as words, as a saved game's move list is, and replayed from its start."""
    for seed in range(60):
        rng = random.Random(seed)
        p = replayed = Position.start(3 + seed % 4)
        while (m := random_move(p, rng)) is not None:
            words = move_words(p, m)
            p = apply_move(p, m)
            replayed = apply_move(replayed, move_from_words(replayed, words))
            assert live_key(replayed) == live_key(p), (seed, words)


def test_numbered_positions_read_back_and_keys_ignore_only_symmetries() -> None:
    rng = random.Random(3)
    for seed in range(20):
        p = random_game_position(6, 7, seed)
        q = parse_numbered(numbered_text(p), parse_lives(lives_text(p)))
        assert q.regions == p.regions and q.lives == p.lives
        # rotate a boundary, reorder regions, mirror: the same key
        regions = [list(r) for r in p.regions]
        rng.shuffle(regions)
        regions = [[b[1:] + b[:1] for b in r] for r in regions]
        moved = Position(regions, p.lives)
        assert numbered_key(moved) == numbered_key(p)
        assert numbered_key(mirrored(p)) == numbered_key(p)
        assert numbered_key(moved, mirror=False) == numbered_key(p, mirror=False)
        # swapping two spots' numbers is another numbered position (when they occur differently)
        a, b = 0, len(p.lives) - 1
        swap = {a: b, b: a}
        renamed = Position([[[swap.get(s, s) for s in bd] for bd in r] for r in p.regions], p.lives)
        if renamed.regions != p.regions and p.lives[a] == p.lives[b]:
            assert numbered_key(renamed) != numbered_key(p) or p.canonical() == renamed.canonical()
    with pytest.raises(NotationError):
        parse_numbered("[1 2] x [3]", (3, 3, 3))
    with pytest.raises(NotationError, match="no lives"):
        parse_numbered("[1] [2] [5]", (3, 3, 3))


def test_base_words_order_the_ends_of_a_line() -> None:
    p = Position.start(3)
    for m in representative_moves(p):
        words = base_words(move_shape(p, m))
        a, b = (int(t) for t in words.split(" enclosing ")[0].split(" → "))
        assert a <= b
