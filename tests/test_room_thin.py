"""Thin regions: after a move leaves a region with less room than ``THIN · d0``, the picture is
rearranged (``room._tidied``) with the thin regions held open (``relax.held_open``), and the
widened picture still reads as the same position."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.picture import analyse_picture
from sprouts_cli.picture.gamefile import load_game
from sprouts_cli.picture.model import COMFORT
from sprouts_cli.picture.quality import region_rooms
from sprouts_cli.picture.relax import AR_BEND
from sprouts_cli.picture.room import HELD_THIN, THIN, _relax, _tidied, draw
from sprouts_cli.picture.route_plan import Drawn, RouteSettings
from sprouts_cli.picture.skeleton import Params, picture_corners, skeleton_from_picture

DATA = Path(__file__).parent / "data" / "router"
#: Bench game 20 spots, seed 7, move 44: a push drew the move and left a lens between spots 61 and
#: 1 (two curves between the same two spots, no lives) 4.7 px wide at the tidy's 2 px grid; R
#: alone widened it only by squeezing its neighbours, and the picture stayed thin to the game's end.
LENS = "push_leaves_a_thin_lens.json"


def _lens():
    pic = load_game(DATA / LENS)
    return pic, analyse_picture(pic)


def test_r_alone_leaves_the_lens_thin_and_held_open_widens_it() -> None:
    pic, a = _lens()
    d0 = RouteSettings().d0
    rooms = region_rooms(pic, a, px=2.0)
    assert rooms.min() < THIN * d0
    plain = _relax(pic, "rearrange", d0)
    assert region_rooms(plain, analyse_picture(plain), px=2.0).min() < THIN * d0
    notes: list[str] = []
    d = _tidied(Drawn(pic, a, 0.0), d0, True, notes)
    assert d.picture is not pic
    assert notes[0].startswith("tidy: R left") and notes[-1].startswith("tidy: R held open widened")
    assert region_rooms(d.picture, d.analysis, px=2.0).min() >= THIN * d0
    back = analyse_picture(d.picture).position
    assert numbered_key(back)[:2] == numbered_key(a.position)[:2]


def test_the_tidy_tries_plain_r_first_and_holds_regions_open_only_when_it_leaves_one_thin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Plain R moves the curves least (held open, every region swells and the curves lengthen):
    its picture is kept when it gives every region ``THIN · d0``; R held open runs only after it."""
    room = importlib.import_module("sprouts_cli.picture.room")
    pic, a = _lens()
    d0 = RouteSettings().d0
    real = room._relax
    calls: list[object] = []

    def spy(p, mode, d0, work=None, hold_open=None):  # type: ignore[no-untyped-def]
        calls.append(hold_open)
        return real(p, mode, d0, work, hold_open)

    monkeypatch.setattr(room, "_relax", spy)
    held = _tidied(Drawn(pic, a, 0.0), d0, True, [])
    assert calls[0] is None and isinstance(calls[1], dict) and len(calls) == 2
    assert region_rooms(held.picture, held.analysis, px=2.0).min() >= THIN * d0

    # Were plain R's picture wide enough (here: the held-open one), R held open would not run.
    calls.clear()

    def wide(p, mode, d0, work=None, hold_open=None):  # type: ignore[no-untyped-def]
        calls.append(hold_open)
        return held.picture

    monkeypatch.setattr(room, "_relax", wide)
    notes: list[str] = []
    d = _tidied(Drawn(pic, a, 0.0), d0, True, notes)
    assert calls == [None]
    assert d.picture is held.picture and notes[-1].startswith("tidy: R widened")


def test_held_open_weighs_only_the_regions_given() -> None:
    relax_module = importlib.import_module("sprouts_cli.picture.relax")
    pic, a = _lens()
    rooms = region_rooms(pic, a, px=2.0)
    thin = int(rooms.argmin())
    sk = skeleton_from_picture(pic, a, 24.0, picture_corners(pic))
    before = sk.region_w.copy()
    assert before[thin] == 0.0  # a dead region: no area term of its own
    relax_module.held_open(sk, {thin: HELD_THIN})
    assert sk.region_w[thin] == HELD_THIN
    others = np.arange(len(before)) != thin
    assert np.array_equal(sk.region_w[others], before[others])
    assert np.isfinite(sk.energy(sk.P, Params(w_bend=AR_BEND * COMFORT * COMFORT).array())[0])


def test_a_move_drawn_by_r_or_z_is_tidied_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """R and Z redraw the whole picture and can leave a sliver: the tidy looks at their pictures too,
    as moved ones (a route's clearance says nothing of them)."""
    from test_router_cases import _saved_case

    room = importlib.import_module("sprouts_cli.picture.room")
    real = room._tidied
    seen: list[bool] = []

    def spy(d, d0, moved, notes, work=float("inf"), before=None):  # type: ignore[no-untyped-def]
        seen.append(moved)
        return real(d, d0, moved, notes, work, before)

    monkeypatch.setattr(room, "_tidied", spy)
    pic, a, m = _saved_case("push_at_the_moves_end.json", "24 → 28 enclosing 7, 26", "0+122")
    r = draw(pic, m, ladder=("R", "Z"), analysis=a)
    assert r.drawn_by in ("rearrange", "layout")
    assert seen == [True]
