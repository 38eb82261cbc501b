"""The quality of a picture: the measures (room, length, turning, labels), and new regions drawn with room."""

from __future__ import annotations

import math

import numpy as np
import pytest
from games import random_game_position
from picture_helpers import picture

from sprouts_cli.cli.moves import _words_to_move
from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move
from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.picture import analyse_picture, layout_position
from sprouts_cli.picture.model import MIN_CLEARANCE, Curve, Picture
from sprouts_cli.picture.quality import (
    curve_inflections,
    curve_length,
    curve_turning,
    label_distance,
    quality,
    region_rooms,
)
from sprouts_cli.picture.room import draw
from sprouts_cli.picture.spline import interpolate_closed, straight_pieces

D0 = MIN_CLEARANCE


def circle_pieces(cx: float, cy: float, r: float, n: int = 24) -> np.ndarray:
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    pts = np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)
    return interpolate_closed(np.concatenate([pts, pts[:1]]))[0]


# ----------------------------------------------------------------------------- the measures


def test_straight_curve_has_no_turning_and_its_length():
    pieces, _h = straight_pieces(np.array([[0.0, 0.0], [30.0, 40.0], [60.0, 80.0]]))
    assert curve_length(pieces) == pytest.approx(100.0, rel=1e-6)
    assert curve_turning(pieces) == pytest.approx(0.0, abs=1e-9)
    assert curve_inflections(pieces) == 0


def test_circle_turns_once_round_and_has_no_inflection():
    pieces = circle_pieces(100, 100, 50)
    assert curve_turning(pieces) == pytest.approx(2 * math.pi, rel=0.02)
    assert curve_length(pieces) == pytest.approx(2 * math.pi * 50, rel=0.01)
    assert curve_inflections(pieces) == 0


def test_s_curve_has_one_inflection_and_a_wavy_one_more():
    x = np.linspace(0, 200, 41)
    s = np.stack([x, 100 + 30 * np.sin(x / 200 * 2 * math.pi)], axis=1)
    wave = np.stack([x, 100 + 10 * np.sin(x / 200 * 8 * math.pi)], axis=1)
    from sprouts_cli.picture.spline import interpolate_clamped

    assert curve_inflections(interpolate_clamped(s)[0]) == 1
    assert curve_inflections(interpolate_clamped(wave)[0]) == 7


def test_region_room_of_a_round_loop_is_its_radius():
    # a loop of radius 40 at spot 1, drawn as one closed curve through it
    pieces = circle_pieces(200, 200, 40)
    start = pieces[0, 0].copy()
    pic = Picture(400, 400, np.array([start]), [Curve(0, 0, pieces, np.ones(len(pieces)))])
    rooms = region_rooms(pic)
    assert len(rooms) == 2
    # the largest disc inside keeps clear of the spot's disc (radius 5) on the circle: 37.5
    assert min(rooms) == pytest.approx(37.5, abs=1.5)
    # the outside has far more room, between the loop and the window
    assert max(rooms) > 80


def test_region_room_of_a_sliver_is_small():
    pic = picture([(100, 100), (300, 100)], [(0, 1, [(200, 97)]), (1, 0, [(200, 103)])])
    rooms = region_rooms(pic)
    assert min(rooms) < 3.5


def test_labels_are_measured_beside_their_spots():
    pic = layout_position(Position.start(3), 400, 300, jobs=1)
    d = label_distance(pic, analyse_picture(pic))
    assert float(pic.sizes.max()) < d < 40
    q = quality(pic)
    assert q.length == 0 and q.turning == 0 and q.least_room > 50


# ----------------------------------------------------------------------------- new regions with room


def _drawn(spots: int, words: list[str]) -> tuple[Picture, list[float]]:
    """Lone spots laid out, the moves drawn by the router alone: the picture and its regions' room."""
    pic = layout_position(Position.start(spots), 800, 600, jobs=1)
    for w in words:
        a = analyse_picture(pic)
        m = _words_to_move(a.position, w)
        r = draw(pic, m, (), a)
        assert r.drawn_by == "route"
        assert numbered_key(r.analysis.position)[:2] == numbered_key(apply_move(a.position, m))[:2]
        pic = r.picture
    return pic, list(region_rooms(pic))


@pytest.mark.parametrize(
    "words",
    [
        ["1 -> 2", "1 -> 1"],  # the example: a loop beside a curve, 153 px of room round it
        ["1 -> 2", "2 -> 2"],  # the loop at the other end (a terminal game's 2 → 2)
        ["3 -> 3"],  # a loop at a lone spot
        ["1 -> 2", "1 -> 2"],  # a second line between the same spots closes a region
        ["1 -> 3", "2 -> 4", "1 -> 2", "3 -> 4"],  # a line closing a cycle of four spots
    ],
)
def test_new_regions_are_round_on_an_empty_page(words):
    _pic, rooms = _drawn(4, words)
    assert len(rooms) >= 2
    assert min(rooms) >= 2 * D0, rooms


def test_a_loop_round_more_gets_more_room():
    pic = layout_position(Position.start(4), 800, 600, jobs=1)
    a = analyse_picture(pic)
    # a loop at spot 1 enclosing spot 3: climbs the ladder if it must, and still has room
    m = _words_to_move(a.position, "1 -> 1 enclosing 3")
    r = draw(pic, m, ("M", "A", "R", "Z"), a)
    rooms = region_rooms(r.picture, r.analysis)
    assert min(rooms) >= 2 * D0


# ----------------------------------------------------------------------------- A and R add no wobble


@pytest.mark.parametrize(("spots", "seed", "moves"), [(4, 2, 4), (5, 3, 4), (5, 4, 5), (6, 6, 6)])
def test_adjust_and_rearrange_keep_smooth_pictures_smooth(spots, seed, moves):
    from sprouts_cli.picture.quality import total_turning
    from sprouts_cli.picture.relax import relax

    p = random_game_position(spots, moves, seed)
    pic = layout_position(p, 800, 600, jobs=1)  # a fresh drawing: smooth curves
    before = total_turning(pic)
    for mode in ("adjust", "rearrange"):
        out = relax(pic, mode)
        assert analyse_picture(out).position.canonical() == p.canonical()
        assert total_turning(out) <= 1.10 * before, mode


def test_a_chain_is_not_smoothed_through_a_corner():
    from sprouts_cli.picture.skeleton import Params, picture_corners, skeleton_from_picture, smooth_chains

    # spot 2 joins two curves at a right angle: no spline runs through it
    pic = picture([(100, 100), (300, 100), (300, 300)], [(0, 1, [(200, 100)]), (1, 2, [(300, 200)])])
    assert picture_corners(pic) == frozenset({1})
    sk = skeleton_from_picture(pic, analyse_picture(pic), Params().spacing, picture_corners(pic))
    assert len(smooth_chains(sk)) == 2
    straight = picture([(100, 100), (300, 100), (500, 100)], [(0, 1, [(200, 100)]), (1, 2, [(400, 100)])])
    assert picture_corners(straight) == frozenset()


# ------------------------------------------------------------------------- A and R count work, not seconds


@pytest.mark.parametrize("mode", ["adjust", "rearrange"])
def test_adjust_and_rearrange_draw_the_same_picture_on_a_slow_machine(mode, monkeypatch):
    """A and R stop on work done (point-steps), never on the clock: the picture is the same when
    every reading of the clock says ten seconds have passed."""
    import time

    from sprouts_cli.picture.relax import relax

    pic = layout_position(random_game_position(6, 6, 6), 800, 600, jobs=1)
    quick = relax(pic, mode)
    clock = iter(range(0, 10**9, 10))
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(clock)))
    slow = relax(pic, mode)
    assert np.array_equal(quick.spots, slow.spots)
    assert all(np.array_equal(a.pieces, b.pieces) for a, b in zip(quick.curves, slow.curves, strict=True))


def test_a_descent_stops_after_its_work():
    """A descent given little work takes as many steps as that work pays for, and says what it did."""
    from sprouts_cli.picture.relax import AR_BEND, descend
    from sprouts_cli.picture.skeleton import Params, picture_corners, skeleton_from_picture

    pic = layout_position(random_game_position(6, 6, 6), 800, 600, jobs=1)
    params = Params(w_bend=AR_BEND * 40.0 * 40.0)
    sk = skeleton_from_picture(pic, analyse_picture(pic), params.spacing, picture_corners(pic))
    points = len(sk.P)
    out = descend(sk, "rearrange", params, max_steps=800, respace_every=0, work=3 * points)
    assert out.work == 3 * points
    assert out.steps <= 4


def test_a_spline_out_of_the_picture_is_not_read_and_only_its_chain_falls_back(monkeypatch):
    """A chain whose smooth spline leaves the drawing area (a fit that overshot, by a million px in
    a 30-spot game's A) goes to its next level before the picture is read: such a picture is
    refused anyway, and certifying it refined the far curve into tens of thousands of legs.
    The other chains keep their smooth fits."""
    from sprouts_cli.picture import skeleton as skel

    pic = layout_position(random_game_position(6, 6, 6), 800, 600, jobs=1)
    expected = analyse_picture(pic).position.canonical()
    corners = skel.picture_corners(pic)
    sk = skel.skeleton_from_picture(pic, analyse_picture(pic), skel.Params().spacing, corners)
    (chain, _), *_ = skel.smooth_chains(sk)
    overshoot = chain[0][0]
    real_picture, real_analyse = skel.skeleton_picture, skel.analyse_picture
    levels_seen: list[dict[int, int]] = []
    read_outside: list[bool] = []

    def drawn(sk, smooth=True, levels=None, keep=None):
        out = real_picture(sk, smooth, levels, keep)
        levels_seen.append(dict(levels or {}))
        if (levels or {}).get(0, 0) == 0:
            out.curves[overshoot].pieces[0, 1] = (-1e6, 300.0)
        return out

    def read(p, *args):
        read_outside.append(not p.bounds_ok())
        return real_analyse(p, *args)

    monkeypatch.setattr(skel, "skeleton_picture", drawn)
    monkeypatch.setattr(skel, "analyse_picture", read)
    out = skel.smooth_and_certify(sk, expected)
    assert out.bounds_ok() and not any(read_outside)
    assert levels_seen[-1][0] == 1 and all(v == 0 for k, v in levels_seen[-1].items() if k != 0)
