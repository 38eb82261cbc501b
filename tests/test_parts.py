"""Lands: the one-pass ``land_regions`` is ``clean`` then ``land_groups``."""

from __future__ import annotations

from games import game_positions
from hypothesis import given

from sprouts_cli.engine import Position
from sprouts_cli.engine.parts import clean, land_groups, land_regions, split_lands


@given(game_positions())
def test_land_regions_is_clean_then_land_groups(p: Position) -> None:
    c = clean(p)
    slow = [[c.regions[i] for i in group] for group in land_groups(c)]
    assert land_regions(p) == slow
    assert [list(q.regions) for q in split_lands(p)] == slow


def test_dead_regions_and_stumps_are_left_out() -> None:
    p = Position.from_string("0.1a1a.AB|AB")
    assert land_regions(Position.from_string("!")) == []
    assert sum(len(r) for r in land_regions(p)) == len(clean(p).regions)
