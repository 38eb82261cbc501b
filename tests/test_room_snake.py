"""A move that snakes round the picture as drawn is drawn afresh by Z when Z's picture is much
shorter (``room._unsnaked``); a wide calm loop is kept as the router drew it."""

from __future__ import annotations

import math

import pytest
from test_router_cases import _saved_case

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move
from sprouts_cli.engine.naming import moves_from_words, numbered_key, parse_words
from sprouts_cli.picture import analyse_picture, layout_position, room
from sprouts_cli.picture.quality import total_length, total_turning

#: Bench game 10 spots, seed 10, move 6: the route encloses four spots far apart and winds round
#: the picture (+2,524 px, +30 rad); a fresh drawing of the position is under half as long.
SNAKE_CASE = ("snake_round_the_picture.json", "1 → 7 enclosing 5, 10-12", "0*2.1a1a.1bABCc1cDb|0.ABCD")


def _reads_back(r, before: Position, move) -> None:
    back = analyse_picture(r.picture).position
    assert numbered_key(back)[:2] == numbered_key(apply_move(before, move))[:2]


def test_a_winding_move_is_drawn_afresh_when_z_is_much_shorter(monkeypatch: pytest.MonkeyPatch) -> None:
    pic, a, m = _saved_case(*SNAKE_CASE)
    r = room.draw(pic, m, analysis=a)
    assert r.drawn_by == "layout"
    assert any(n.startswith("snake: the move added") and "Z drew the position" in n for n in r.notes)
    _reads_back(r, a.position, m)
    monkeypatch.setattr(room, "SNAKE_SHARE", math.inf)
    routed = room.draw(pic, m, analysis=a)
    assert routed.drawn_by != "layout"
    assert total_length(routed.picture) - total_length(pic) > math.hypot(pic.width, pic.height)
    assert total_turning(routed.picture) - total_turning(pic) > room.SNAKE_TURNING
    assert total_length(r.picture) <= room.SNAKE_KEEP * total_length(routed.picture)


def test_z_is_not_taken_when_it_would_not_shorten_the_picture_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    pic, a, m = _saved_case(*SNAKE_CASE)
    monkeypatch.setattr(room, "SNAKE_KEEP", 0.05)
    r = room.draw(pic, m, analysis=a)
    assert r.drawn_by != "layout"
    assert any("was not taken" in n for n in r.notes)
    _reads_back(r, a.position, m)


def test_without_z_on_the_ladder_the_move_stays_as_routed() -> None:
    pic, a, m = _saved_case(*SNAKE_CASE)
    r = room.draw(pic, m, ladder=("M", "A", "R"), analysis=a)
    assert r.drawn_by != "layout"
    assert not any(n.startswith("snake:") for n in r.notes)


def test_a_wide_calm_loop_is_kept_as_the_router_drew_it() -> None:
    """A loop round three far-apart spots is long but turns about once: no snake."""
    pic = layout_position(Position.from_string("0*4"), 1000, 700)
    a = analyse_picture(pic)
    m = moves_from_words(a.position, parse_words("4 → 4 enclosing 1-3"))[0]
    r = room.draw(pic, m, analysis=a)
    assert r.drawn_by == "route"
    assert total_length(r.picture) - total_length(pic) > room.SNAKE_SHARE * math.hypot(pic.width, pic.height)
    assert total_turning(r.picture) - total_turning(pic) <= room.SNAKE_TURNING
    _reads_back(r, a.position, m)
