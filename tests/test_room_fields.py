"""The shared passes of the planner agree with the plain ones they stand for, to the last bit.

``grid_planner.room_fields`` makes a plan's three rooms of the grid in one pass; each must be
``room_field``'s own (the planner's, the true distances without the end spots, and the true
distances to everything).  ``certify.Certificate.polygon`` keeps each curve's polygon once made;
it must be ``polygon_of_reference``'s, and a caller's changes to it must not reach the next.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import all_moves, random_move
from sprouts_cli.picture import grid_planner as gp
from sprouts_cli.picture.analyse import analyse_picture
from sprouts_cli.picture.certify import polygon_of, polygon_of_reference
from sprouts_cli.picture.layout import layout_position
from sprouts_cli.picture.room import draw
from sprouts_cli.picture.route_plan import RouteSettings, make_plan
from sprouts_cli.picture.route_rays import build_rays
from sprouts_cli.picture.route_search import leakproof_room


def _pictures():
    """A few pictures of games played a few moves, drawn move by move."""
    out = []
    for spots, seed, moves in ((3, 1, 3), (5, 2, 5), (6, 7, 6)):
        rng = random.Random(seed)
        pic = layout_position(Position.start(spots), 500, 400, jobs=1)
        a = analyse_picture(pic)
        for _ in range(moves):
            m = random_move(a.position, rng)
            if m is None:
                break
            r = draw(pic, m, analysis=a)
            pic, a = r.picture, r.analysis
        out.append((pic, a))
    return out


@pytest.fixture(scope="module")
def pictures():
    return _pictures()


def _fields_args(plan, special, rho):
    g, ob = plan.grid, plan.ob
    return (
        g.nx, g.ny, g.x0, g.y0, g.cell, ob.segs, ob.seg_curve, ob.curve_ends, ob.spots, ob.sizes,
        ob.width, ob.height, 3.0 * plan.settings.d0, np.array(special, dtype=np.int64), rho, plan.settings.d0,
    )  # fmt: skip


@pytest.mark.parametrize("compiled", [True, False])
def test_room_fields_are_the_three_room_fields(pictures, compiled: bool) -> None:
    """Compiled against compiled, plain Python against plain Python (numba's arithmetic may differ
    from Python's in the last bit, the same for both kernels)."""
    fields = gp.room_fields if compiled else gp.room_fields.py_func
    field = gp.room_field if compiled else gp.room_field.py_func
    checked = 0
    for pic, a in pictures:
        for move in list(all_moves(a.position))[:6]:
            for d0 in (6.0, 3.0):
                plan = make_plan(pic, a, move, _settings(d0))
                rho = float(np.sqrt(2.0)) * plan.settings.D
                got = fields(*_fields_args(plan, [plan.x, plan.y], rho))
                planner = field(*_fields_args(plan, [plan.x, plan.y], rho))
                plain = field(*_fields_args(plan, [plan.x, plan.y], 0.0))
                full = field(*_fields_args(plan, [-1, -1], 1.0))
                for x, y in zip(got[:4], planner, strict=True):
                    assert np.array_equal(x, y)
                assert np.array_equal(got[4], plain[0])
                for x, y in zip(got[5:], full, strict=True):
                    assert np.array_equal(x, y)
                checked += 1
    assert checked >= 12


def _settings(d0: float) -> RouteSettings:
    s = RouteSettings()
    return RouteSettings(d0, s.D, s.lam, s.relax, s.d0 if d0 != s.d0 else None)


def test_a_plan_keeps_what_the_rays_and_the_leakproof_room_would_make(pictures) -> None:
    """``build_rays`` and ``leakproof_room`` from the plan's own fields, and from ``room_field``
    (the fields taken away), give the same rays and the same room."""
    checked = 0
    for pic, a in pictures:
        for move in list(all_moves(a.position))[:6]:
            if move.joins_boundaries:
                continue
            fast = make_plan(pic, a, move, RouteSettings())
            slow = make_plan(pic, a, move, RouteSettings())
            slow.plain_room = None
            slow.full_room = None
            assert np.array_equal(leakproof_room(fast), leakproof_room(slow))
            r1, r2 = build_rays(fast), build_rays(slow)
            assert (r1 is None) == (r2 is None)
            if r1 is not None:
                assert r1.boundaries == r2.boundaries
                assert all(np.array_equal(p, q) for p, q in zip(r1.polylines, r2.polylines, strict=True))
            checked += 1
    assert checked >= 6


def test_certificate_polygons_are_the_plain_ones_and_fresh_each_time(pictures) -> None:
    for pic, a in pictures:
        cert = a.certificate
        for e in range(len(pic.curves)):
            want = polygon_of_reference(cert.sub[e])
            assert np.array_equal(polygon_of(cert.sub[e]), want)
            first = cert.polygon(e)
            assert np.array_equal(first, want)
            first[:] = -1.0  # a caller's own copy
            assert np.array_equal(cert.polygon(e), want)


def test_chain_positions_are_the_reference_ones(pictures) -> None:
    """A skeleton's places along its chains (``Skeleton._chain_positions``, plain lists) are
    ``chain_positions_reference``'s (numpy rows), for A's and R's skeletons of every picture."""
    from sprouts_cli.picture.relax import AR_BEND
    from sprouts_cli.picture.skeleton import (
        Params,
        chain_positions_reference,
        picture_corners,
        skeleton_from_picture,
    )

    checked = 0
    for pic, a in pictures:
        params = Params(w_bend=AR_BEND * 40.0 * 40.0)
        for corners in (picture_corners(pic), frozenset()):
            sk = skeleton_from_picture(pic, a, params.spacing, corners)
            want = chain_positions_reference(sk)
            got = (sk.pt_chain, sk.pt_pos, sk.seg_chain, sk.seg_pos, sk.chain_len)
            for x, y in zip(got, want, strict=True):
                assert x.dtype == y.dtype and np.array_equal(x, y)
            checked += 1
    assert checked == 6


def test_chain_positions_of_segments_that_join_the_same_two_points_are_the_reference_ones() -> None:
    """Two one-leg curves between the same two spots, and a loop of two legs through one point:
    ``_chain_positions`` then finds segments by their ends, and agrees with the reference; on the
    same skeleton without them (every pair of ends once) the places by curve agree too."""
    from sprouts_cli.picture.skeleton import Skeleton, chain_positions_reference

    P = np.array([[10.0, 10.0], [60.0, 10.0], [35.0, 60.0], [90.0, 40.0], [40.0, 30.0], [75.0, 30.0]])
    for curves in (
        [[0, 1], [1, 0], [2, 4, 2], [1, 5, 3]],  # twice 0-1, and a loop at 2 through one point
        [[0, 4, 1], [1, 5, 3], [3, 2]],  # every pair once
    ):
        pts = [np.array(c, dtype=np.int64) for c in curves]
        ends = [(c[0], c[-1]) for c in curves]
        sk = Skeleton(P.copy(), 4, np.full(4, 5.0), pts, ends, 100.0, 100.0, [[]], [0])
        want = chain_positions_reference(sk)
        got = (sk.pt_chain, sk.pt_pos, sk.seg_chain, sk.seg_pos, sk.chain_len)
        for x, y in zip(got, want, strict=True):
            assert x.dtype == y.dtype and np.array_equal(x, y)
