"""Thin regions: after a move leaves a region with less room than ``THIN · d0``, the picture is
rearranged (``room._tidied``) with the thin regions held open (``relax.held_open``), and the
widened picture still reads as the same position."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from sprouts_cli.engine.moves import apply_move
from sprouts_cli.engine.naming import moves_from_words, numbered_key, parse_words
from sprouts_cli.picture import analyse_picture
from sprouts_cli.picture.gamefile import load_game
from sprouts_cli.picture.model import COMFORT
from sprouts_cli.picture.quality import region_rooms, total_length
from sprouts_cli.picture.relax import AR_BEND
from sprouts_cli.picture.room import HELD_ANY, HELD_NEAR, HELD_THIN, THIN, _relax, _tidied, curves_round, draw
from sprouts_cli.picture.route_plan import Drawn, RouteSettings
from sprouts_cli.picture.router import draw_move
from sprouts_cli.picture.skeleton import Params, picture_corners, skeleton_from_picture

DATA = Path(__file__).parent / "data" / "router"
#: Bench game 20 spots, seed 7, move 44: a push drew the move and left a lens between spots 61 and
#: 1 (two curves between the same two spots, no lives) 4.7 px wide at the tidy's 2 px grid.
LENS = "push_leaves_a_thin_lens.json"


def _lens():
    pic = load_game(DATA / LENS)
    return pic, analyse_picture(pic)


def _thin(pic, a) -> list[int]:
    d0 = RouteSettings().d0
    return [i for i, r in enumerate(region_rooms(pic, a, px=2.0).tolist()) if r < THIN * d0]


def test_the_tidy_widens_the_lens_and_r_round_it_alone_widens_it_moving_only_the_curves_round_it() -> None:
    """R round the thin regions, held open, widens the lens where it is: only the curves round it
    and the spots whose curves all move change, and the picture's length stays as it was."""
    pic, a = _lens()
    d0 = RouteSettings().d0
    rooms = region_rooms(pic, a, px=2.0)
    assert rooms.min() < THIN * d0
    notes: list[str] = []
    d = _tidied(Drawn(pic, a, 0.0), d0, True, notes)
    assert d.picture is not pic and notes[-1].startswith("tidy: R") and " widened " in notes[-1]
    assert region_rooms(d.picture, d.analysis, px=2.0).min() >= THIN * d0
    back = analyse_picture(d.picture).position
    assert numbered_key(back)[:2] == numbered_key(a.position)[:2]
    moving = curves_round(a, _thin(pic, a))
    assert 0 < len(moving) < len(pic.curves) // 4
    held = {i: HELD_THIN if r < THIN * d0 else HELD_NEAR if r < 2 * THIN * d0 else HELD_ANY
            for i, r in enumerate(rooms.tolist())}  # fmt: skip
    out = _relax(pic, "rearrange", d0, hold_open=held, moving=moving)
    oa = analyse_picture(out)
    assert numbered_key(oa.position)[:2] == numbered_key(a.position)[:2]
    assert region_rooms(out, oa, px=2.0).min() >= THIN * d0
    for e, c in enumerate(pic.curves):
        if e not in moving:
            assert np.array_equal(out.curves[e].pieces, c.pieces)
    for s, (was, now) in enumerate(zip(pic.spots, out.spots, strict=True)):
        at = [e for e, c in enumerate(pic.curves) if s in (c.a, c.b)]
        if not at or any(e not in moving for e in at):
            assert np.array_equal(was, now)  # only a spot whose curves all move may move
    assert total_length(out) < 1.01 * total_length(pic)


def test_relax_moves_only_the_curves_it_is_given() -> None:
    pic, a = _lens()
    d0 = RouteSettings().d0
    moving = curves_round(a, _thin(pic, a))
    out = _relax(pic, "rearrange", d0, moving=moving)
    assert numbered_key(analyse_picture(out).position)[:2] == numbered_key(a.position)[:2]
    changed = {e for e, c in enumerate(out.curves) if not np.array_equal(c.pieces, pic.curves[e].pieces)}
    assert changed and changed <= moving
    sk = skeleton_from_picture(pic, a, 24.0, picture_corners(pic))
    assert sk.still() is None
    sk.moving = frozenset(moving)
    still = sk.still()
    assert still is not None
    for e, pts in enumerate(sk.curve_pts):
        assert (still[pts[1:-1]] == (e not in moving)).all()
    for s in range(sk.n_spots):
        at = [e for e, ab in enumerate(sk.curve_ab) if s in ab]
        assert still[s] == (not at or any(e not in moving for e in at))


def test_the_tidy_tries_plain_r_then_the_curves_round_the_thin_regions_then_everything_held_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Plain R relaxes the whole picture (it often shortens pushed curves); when it leaves a region
    under ``THIN · d0``, R held open moves only the curves round the thin regions (the rest stays as
    drawn, and so does its length); only when that leaves one thin does R held open move
    everything (every region swells and the curves lengthen)."""
    room = importlib.import_module("sprouts_cli.picture.room")
    pic, a = _lens()
    d0 = RouteSettings().d0
    real = room._relax
    round_thin = curves_round(a, _thin(pic, a))
    calls: list[tuple[object, object]] = []

    # Were the lens left thin by plain R (here: it gives the picture back as it was), R round the
    # thin regions would come next.
    def plain_stuck(p, mode, d0, work=None, hold_open=None, moving=None):  # type: ignore[no-untyped-def]
        calls.append((hold_open, moving))
        return p.copy() if hold_open is None else real(p, mode, d0, work, hold_open, moving)

    monkeypatch.setattr(room, "_relax", plain_stuck)
    _tidied(Drawn(pic, a, 0.0), d0, True, [])
    assert [m for _, m in calls] == [None, round_thin]
    held = calls[1][0]
    assert calls[0][0] is None and isinstance(held, dict)
    assert all(held[i] == HELD_THIN for i in _thin(pic, a))

    # Were the lens left thin by both (here: R round it gives the picture back as it was), R held
    # open would move everything.
    calls.clear()

    def stuck(p, mode, d0, work=None, hold_open=None, moving=None):  # type: ignore[no-untyped-def]
        calls.append((hold_open, moving))
        if hold_open is None or moving is not None:
            return p.copy()
        return real(p, mode, d0, work, hold_open, moving)

    monkeypatch.setattr(room, "_relax", stuck)
    notes: list[str] = []
    d = _tidied(Drawn(pic, a, 0.0), d0, True, notes)
    assert [m for _, m in calls] == [None, round_thin, None] and isinstance(calls[2][0], dict)
    assert [n.split(" left")[0].split(" widened")[0] for n in notes] == [
        "tidy: R",
        "tidy: R round the thin regions",
        "tidy: R held open",
    ]
    assert notes[-1].startswith("tidy: R held open widened")
    assert region_rooms(d.picture, d.analysis, px=2.0).min() >= THIN * d0

    # Were plain R's picture wide enough (here: the held-open one), nothing else would run.
    calls.clear()

    def wide(p, mode, d0, work=None, hold_open=None, moving=None):  # type: ignore[no-untyped-def]
        calls.append((hold_open, moving))
        return d.picture

    monkeypatch.setattr(room, "_relax", wide)
    notes = []
    assert _tidied(Drawn(pic, a, 0.0), d0, True, notes).picture is d.picture
    assert calls == [(None, None)] and notes[-1].startswith("tidy: R widened")


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

    def spy(d, d0, moved, notes, work=float("inf"), before=None, did=None):  # type: ignore[no-untyped-def]
        seen.append(moved)
        return real(d, d0, moved, notes, work, before, did)

    monkeypatch.setattr(room, "_tidied", spy)
    pic, a, m = _saved_case("push_at_the_moves_end.json", "24 → 28 enclosing 7, 26", "0+122")
    r = draw(pic, m, ladder=("R", "Z"), analysis=a)
    assert r.drawn_by in ("rearrange", "layout")
    assert seen == [True]


#: Bench game 20 spots, seed 7, move 43: ``18 → 62`` joins two spots 19 px apart already joined,
#: closing a lens whose new spot 63 lies as close to both.  The new curves run inside 63's disc
#: before they reach it, so their polylines had points there, the step caps held spots 18, 62 and 63
#: still, and no R could move them apart: the lens stayed 1 px wide to the game's end.
CLOSE_SPOTS = ("three_close_spots_close_a_lens.json", "18 → 62", "1+2.AB|AB+AB|AB+AB|AB")


def _lens_moves():
    """The saved picture and both moves its words fit (the lens on either side of the curve 18-62)."""
    from test_router_cases import _saved_case

    pic, a, m = _saved_case(*CLOSE_SPOTS)
    wanted = apply_move(a.position, m).canonical()
    fits = [f for f in moves_from_words(a.position, parse_words(CLOSE_SPOTS[1]))
            if apply_move(a.position, f).canonical() == wanted]  # fmt: skip
    return pic, a, fits


def test_polylines_keep_out_of_their_end_spots_discs_so_r_can_move_the_spots() -> None:
    pic, a, fits = _lens_moves()
    assert len(fits) == 2  # the lens on either side of the curve from 18 to 62
    for m in fits:
        d = draw_move(pic, m, a)
        sk = skeleton_from_picture(d.picture, d.analysis, 24.0, picture_corners(d.picture))
        for pts, (s, t) in zip(sk.curve_pts, sk.curve_ab, strict=True):
            inner = sk.P[pts[1:-1]]
            for end in (s, t):
                assert (np.hypot(*(inner - sk.P[end]).T) > sk.sizes[end]).all()
        caps = sk.caps(sk.P)
        assert (caps[: sk.n_spots] > 0).all()


def test_the_tidy_moves_three_close_spots_apart_to_open_the_lens_between_them() -> None:
    pic, a, fits = _lens_moves()
    d0 = RouteSettings().d0
    for m in fits:
        r = draw(pic, m, analysis=a)
        assert r.drawn_by == "route"
        assert region_rooms(r.picture, r.analysis, px=2.0).min() >= THIN * d0, r.notes
        back = analyse_picture(r.picture).position
        assert numbered_key(back)[:2] == numbered_key(apply_move(a.position, m))[:2]
        assert total_length(r.picture) < 1.05 * total_length(pic) + 200
