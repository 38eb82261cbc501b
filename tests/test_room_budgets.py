"""Each rung of the ladder has a budget of work (``room.Budgets``, ``work.metered``): a rung that
runs past it is given up, with a note, and the ladder climbs; the move is still drawn and reads
back as its position.  Also the exact fast paths behind the drawing's speed, beside their references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from picture_helpers import parity_grid
from test_router_cases import _saved_case

from sprouts_cli.engine.moves import apply_move
from sprouts_cli.engine.naming import moves_from_words, numbered_key, parse_words
from sprouts_cli.picture import analyse_picture, layout_position
from sprouts_cli.picture.band import band_energy, resample
from sprouts_cli.picture.quality import (
    curve_pixels,
    curve_pixels_reference,
    curve_points,
    curve_points_reference,
)
from sprouts_cli.picture.room import Budgets, draw
from sprouts_cli.picture.route_curve import _least_room, _room_for_spots

PUSH_CASE = ("push_at_the_moves_end.json", "24 → 28 enclosing 7, 26", "0+122")
SLIVER_CASE = ("push_leaves_a_sliver.json", "3 → 22", "0+0+0.22+112")


def _reads_back(r, pic_position, move) -> None:
    back = analyse_picture(r.picture).position
    assert numbered_key(back)[:2] == numbered_key(apply_move(pic_position, move))[:2]


def test_a_push_past_its_budget_gives_way_to_the_next_rung() -> None:
    pic, a, m = _saved_case(*PUSH_CASE)
    whole = draw(pic, m, ladder=("M", "A", "R", "Z"), analysis=a)
    assert whole.drawn_by == "push"
    r = draw(pic, m, ladder=("M", "A", "R", "Z"), analysis=a, budgets=Budgets(push=1_000))
    assert r.drawn_by in ("adjust", "rearrange", "layout")
    assert any(n.startswith("push curves: given up after") for n in r.notes)
    _reads_back(r, a.position, m)


def test_a_relaxation_past_its_budget_gives_way_to_the_next_rung() -> None:
    """A and R given up at once (their descent alone needs more): Z draws the move."""
    pic, a, m = _saved_case(*PUSH_CASE)
    r = draw(pic, m, ladder=("A", "R", "Z"), analysis=a, budgets=Budgets(relax=1_000))
    assert r.drawn_by == "layout"
    assert any(n.startswith("adjust: given up after") for n in r.notes)
    assert any(n.startswith("rearrange: given up after") for n in r.notes)
    _reads_back(r, a.position, m)


def test_a_router_past_its_budget_skips_m_and_the_ladder_climbs() -> None:
    """A route given up has no ghost for M to work by: M is passed over, not run blind, and A
    (whose own drawing of the move has the relaxation's budget) draws it."""
    pic = layout_position("0*4", 400, 300, jobs=1)
    a = analyse_picture(pic)
    (m, *_) = moves_from_words(a.position, parse_words("1 -> 2"))
    assert draw(pic, m, analysis=a).drawn_by == "route"
    r = draw(pic, m, analysis=a, budgets=Budgets(route=10))
    assert r.drawn_by == "adjust"
    assert r.notes[0].startswith("route: the router was given up after")
    assert not any(n.startswith(("slide", "push")) for n in r.notes)
    _reads_back(r, a.position, m)


def test_a_tidy_past_its_budget_keeps_the_moves_own_picture() -> None:
    pic, a, m = _saved_case(*SLIVER_CASE)
    plain = draw(pic, m, ladder=("M",), analysis=a)
    r = draw(pic, m, analysis=a, budgets=Budgets(tidy=1_000))
    for how in ("R", "R round the thin regions", "R held open"):
        assert any(n.startswith(f"tidy: {how} given up after") for n in r.notes)
    assert r.drawn_by == plain.drawn_by
    pairs = zip(r.picture.curves, plain.picture.curves, strict=True)
    assert all(np.array_equal(x.pieces, y.pieces) for x, y in pairs)
    _reads_back(r, a.position, m)


def test_a_tidy_s_work_is_reported_with_the_rungs() -> None:
    """``Result.rung_work["tidy"]``: the units of the tidy's tries, which the quality bench keeps
    beside each rung's; within the tidy's budget, and absent when there was no tidy."""
    pic, a, m = _saved_case(*SLIVER_CASE)
    r = draw(pic, m, analysis=a)
    assert any(n.startswith("tidy: R") for n in r.notes)
    assert 0 < r.rung_work["tidy"] <= 3 * (Budgets().tidy + 10_000)
    plain = draw(pic, m, ladder=("M",), analysis=a)
    assert "tidy" not in plain.rung_work


def test_the_default_budgets_leave_a_drawn_move_as_it_was() -> None:
    """Budgets far above the defaults give the same picture: they bound long runs only."""
    pic, a, m = _saved_case(*PUSH_CASE)
    r = draw(pic, m, analysis=a)
    big = draw(pic, m, analysis=a, budgets=Budgets(*(1e12,) * 5))
    assert r.drawn_by == big.drawn_by
    pairs = zip(r.picture.curves, big.picture.curves, strict=True)
    assert all(np.array_equal(x.pieces, y.pieces) for x, y in pairs)


# --------------------------------------------------------------------------- exact fast paths


@pytest.mark.parametrize("seed", range(3))
def test_the_band_energy_passing_over_far_runs_is_the_same_as_with_runs_of_one(seed: int) -> None:
    """``band_energy`` passes over a run of segments farther than a point of its curve; with the
    curves interleaved every run is one segment (and its first point is its own), so that
    version looks at every segment in reach: energy, gradient and least distance agree exactly."""
    rng = np.random.default_rng(seed)
    curves, per = 10, 60
    segs, seg_curve = [], []
    for c in range(curves):
        pts = rng.uniform((100, 100), (700, 500)) + np.cumsum(rng.normal(size=(per + 1, 2)) * 7.0, axis=0)
        segs.append(np.concatenate([pts[:-1], pts[1:]], axis=1))
        seg_curve.append(np.full(per, c))
    runs = np.ascontiguousarray(np.concatenate(segs))
    runs_curve = np.concatenate(seg_curve).astype(np.int64)
    ones = np.ascontiguousarray(np.stack(segs, axis=1).reshape(-1, 4))  # curve 0, 1, …, 9, 0, 1, …
    ones_curve = np.tile(np.arange(curves), per).astype(np.int64)
    spots = np.array([[20.0, 20.0], [780.0, 580.0], [400.0, 300.0]])
    sizes = np.full(3, 5.0)
    curve_ends = np.full((curves, 2), -1, dtype=np.int64)
    P = resample(np.array([spots[0], rng.uniform((200, 200), (600, 400)), spots[1]]), 8.0)
    fixed = np.zeros(len(P), bool)
    fixed[[0, -1]] = True
    ends = np.array([0, 1], np.int64)
    out = []
    for s, sc in ((runs, runs_curve), (ones, ones_curve)):
        out.append(
            band_energy(
                P, fixed, s, sc, curves, curve_ends, spots, sizes, 800.0, 600.0, ends, 56.0, 0.0, 40.0, 0.0,
                1.0, 2.0,
            )
        )
    (e1, g1, l1), (e2, g2, l2) = out
    assert np.isfinite(e1) and e1 == pytest.approx(e2, rel=1e-12) and l1 == l2
    assert np.allclose(g1, g2, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_the_least_room_is_the_least_of_the_room_at_every_point(seed: int) -> None:
    rng = np.random.default_rng(seed)
    points = rng.uniform(300, 400, size=(40, 2))
    segs = np.concatenate([rng.uniform(0, 800, size=(500, 2)), rng.uniform(-20, 20, size=(500, 2))], axis=1)
    segs[:, 2:] += segs[:, :2]
    spots = rng.uniform(0, 800, size=(12, 2))
    sizes = np.full(12, 5.0)
    assert _least_room(points, segs, spots, sizes) == _room_for_spots(points, segs, spots, sizes).min()
    none, no_sizes = np.zeros((0, 2)), np.zeros(0)
    assert _least_room(points, segs, none, no_sizes) == _room_for_spots(points, segs, none, no_sizes).min()


def test_the_pixels_of_a_curve_are_the_reference_s_leg_by_leg() -> None:
    pic, _a, _m = _saved_case(*PUSH_CASE)
    for c in pic.curves:
        for px in (0.7, 1.0, 2.0):
            assert np.array_equal(curve_pixels(c.pieces, px), curve_pixels_reference(c.pieces, px))


@pytest.mark.parametrize("samples", [1, 16, 48])
def test_the_points_of_a_curve_all_pieces_at_once_are_the_reference_s_piece_by_piece(samples: int) -> None:
    """``curve_points`` (every piece at once) gives ``bezier_points``' points piece by piece to the last
    bit, on a saved picture's curves and on random pieces; no pieces, no points."""
    pic, _a, _m = _saved_case(*PUSH_CASE)
    rng = np.random.default_rng(samples)
    curves = [c.pieces for c in pic.curves] + [rng.normal(0, 300, (k, 4, 2)) for k in (1, 2, 7)]
    for pieces in curves:
        assert np.array_equal(curve_points(pieces, samples), curve_points_reference(pieces, samples))
    assert curve_points(np.zeros((0, 4, 2)), samples).shape == (0, 2)


def test_the_cells_face_the_same_boundaries_as_the_reference_says() -> None:
    """``route_rays._cell_boundaries`` (all cells at once) against its cell-by-cell reference, on
    the bench's saved pictures, for every move of a region with more than one boundary."""
    from sprouts_cli.engine.moves import all_moves
    from sprouts_cli.picture.grid_planner import room_field
    from sprouts_cli.picture.route_plan import RouteSettings, make_plan
    from sprouts_cli.picture.route_rays import _cell_boundaries, _cell_boundaries_reference

    checked = 0
    for case in (PUSH_CASE, SLIVER_CASE):
        pic, a, _m = _saved_case(*case)
        for m in list(all_moves(a.position))[:40]:
            plan = make_plan(pic, a, m, RouteSettings())
            g, ob, st = plan.grid, plan.ob, plan.settings
            _room, near, _foot, nseg = room_field(
                g.nx, g.ny, g.x0, g.y0, g.cell, ob.segs, ob.seg_curve, ob.curve_ends, ob.spots, ob.sizes,
                ob.width, ob.height, 3.0 * st.d0, np.array([-1, -1], dtype=np.int64), 1.0, st.d0,
            )  # fmt: skip
            comp = np.ones(g.size, dtype=bool)
            fast = _cell_boundaries(plan, comp, near, nseg)
            slow = _cell_boundaries_reference(plan, comp, near, nseg)
            assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
            checked += int((fast[1] >= 0).sum())
    assert checked > 0


def test_pushing_from_the_routers_own_plan_draws_the_same_as_planning_again() -> None:
    """``draw_move``'s NoRoom carries its plan, route and widest way (``router.Planned``); the
    push's first ghost starts from them instead of planning again, and draws the same curves."""
    from sprouts_cli.errors import NoRoom
    from sprouts_cli.picture.room import push_curves
    from sprouts_cli.picture.route_plan import RouteSettings
    from sprouts_cli.picture.router import draw_move

    pic, a, m = _saved_case(*PUSH_CASE)
    settings = RouteSettings()
    with pytest.raises(NoRoom) as e:
        draw_move(pic, m, a, settings)
    assert e.value.planned is not None
    # planned again, this push takes more than its budget (``PUSH_WORK``): unbounded here, the same
    # curves are the question
    again = push_curves(pic, a, m, settings, None, [], work=math.inf)
    reused = push_curves(pic, a, m, settings, None, [], work=math.inf, planned=e.value.planned)
    assert again is not None and reused is not None
    pairs = zip(again.picture.curves, reused.picture.curves, strict=True)
    assert all(np.array_equal(x.pieces, y.pieces) for x, y in pairs)


def test_the_compiled_refinement_cuts_every_piece_as_the_plain_reference_does() -> None:
    """``certify.refine_pieces`` (a whole curve at once) against ``spline.refine_piece`` (a piece
    at a time): the same sub-pieces, in the same order, to the last bit."""
    from sprouts_cli.picture.certify import REFINE_DEPTH, refine_pieces
    from sprouts_cli.picture.spline import refine_piece

    pic, _a, _m = _saved_case(*PUSH_CASE)
    for tol, max_leg in ((0.1, 20.0), (0.02, 4.0), (1e-6, 1.0)):
        for c in pic.curves:
            ref = [q for p in c.pieces for q in refine_piece(p, tol, max_leg, REFINE_DEPTH)]
            got = refine_pieces(np.ascontiguousarray(c.pieces, dtype=float), tol, max_leg, REFINE_DEPTH)
            assert len(got) == len(ref) and all(np.array_equal(x, y) for x, y in zip(got, ref, strict=True))


@pytest.mark.parametrize("position", ["0*3.AB|AB.CD|CD", "0*4.AB.CD|AB|CD.EF|EF"])
def test_the_step_caps_passing_over_far_segments_are_the_plain_references(position: str) -> None:
    """``relax_kernels.pred_caps`` passes over a segment whose box is farther than the caps it could
    lower; the caps are those of every point against every segment (``pred_caps_reference``)."""
    from sprouts_cli.picture.relax import Params
    from sprouts_cli.picture.relax_kernels import pred_caps, pred_caps_reference
    from sprouts_cli.picture.skeleton import REACH, skeleton_from_picture

    pic = layout_position(position, 500, 400, jobs=1)
    sk = skeleton_from_picture(pic, analyse_picture(pic), Params().spacing)
    for reach in (REACH, 40.0):
        args = (sk.P, sk.n_spots, sk.sizes, sk.segs, sk.width, sk.height, reach)
        fast = pred_caps(*args)
        assert np.array_equal(fast, pred_caps_reference(*args))
        assert np.array_equal(fast, pred_caps.py_func(*args))
        assert (fast < reach / 3.0).any()


@pytest.mark.parametrize("seed", range(4))
def test_legs_distance_is_its_numpy_reference_number_for_number(seed: int) -> None:
    """Pushing's distances to a polyline, compiled: the same numbers as the vectorised reference,
    legs of no length included (plain Python's ``math.hypot`` rounds differently in the last bit)."""
    from sprouts_cli.picture.room import legs_distance, legs_distance_reference

    rng = np.random.default_rng(seed)
    for _ in range(25):
        P = rng.uniform(0, 1000, (int(rng.integers(1, 120)), 2))
        Q = np.cumsum(rng.normal(size=(int(rng.integers(2, 80)), 2)) * rng.uniform(0.1, 30), axis=0) + 500
        Q[1:3] = Q[1]
        assert np.array_equal(legs_distance(P, Q), legs_distance_reference(P, Q))
        assert np.allclose(legs_distance.py_func(P, Q), legs_distance_reference(P, Q), rtol=1e-12, atol=0)


def test_the_de_boor_caps_are_the_column_by_column_least_caps() -> None:
    from sprouts_cli.picture.room import _support_caps, _support_caps_reference

    rng = np.random.default_rng(3)
    for _ in range(50):
        caps = rng.uniform(0, 3, int(rng.integers(1, 60)))
        caps[rng.random(len(caps)) < 0.2] = 0.0
        support = rng.random((len(caps), int(rng.integers(1, 20)))) < 0.3
        assert np.array_equal(_support_caps(caps, support), _support_caps_reference(caps, support))


def test_a_ghost_from_the_routers_plan_is_the_ghost_planned_afresh() -> None:
    """A push round's ghost reuses the plan of the try before it (``router.Planned``): the same
    way, the same relaxed points and the same room as planning it again."""
    from sprouts_cli.errors import NoRoom
    from sprouts_cli.picture.route_plan import RouteSettings
    from sprouts_cli.picture.router import draw_move, ghost_of

    pic, a, m = _saved_case(*PUSH_CASE)
    settings = RouteSettings()
    with pytest.raises(NoRoom) as got:
        draw_move(pic, m, a, settings)
    planned = got.value.planned
    reused = ghost_of(pic, a, m, settings, planned)
    fresh = ghost_of(pic, a, m, settings, None)
    assert reused is not None and fresh is not None
    assert np.array_equal(reused.route, fresh.route) and np.array_equal(reused.points, fresh.points)
    assert reused.widest == fresh.widest


def test_a_drawn_move_says_what_each_rung_tried_cost() -> None:
    """``Result.rung_seconds`` and ``rung_work``: every rung tried, by name (the bench's slow-move list).
    (A push given up at its budget passes A over: R is the next rung tried.)"""
    pic, a, m = _saved_case(*PUSH_CASE)
    r = draw(pic, m, ladder=("M", "A", "R", "Z"), analysis=a, budgets=Budgets(push=1_000))
    assert {"route", "slide", "push", "rearrange"} <= set(r.rung_seconds)
    assert all(t >= 0.0 for t in r.rung_seconds.values())
    assert r.rung_work["push"] > 0 and {"route", "slide", "push", "rearrange"} <= set(r.rung_work)


@pytest.mark.parametrize("seed", range(6))
def test_the_band_energy_by_nearest_boxes_is_the_plain_scan_to_the_last_bit(seed: int) -> None:
    """``band_energy`` looks at each curve's nearest box first and passes over boxes beyond the
    nearest found (and own legs too near along the band); ``band_energy_reference`` scans every run
    in its order.  Energy, gradient and least distance agree exactly, near the end spots (angles,
    ignored curves) and far from them, for a band folded on itself and one that is not."""
    from sprouts_cli.picture.band import band_energy_reference

    rng = np.random.default_rng(seed)
    curves = 14
    segs, seg_curve = [], []
    for c in range(curves):
        pts = rng.uniform((40, 40), (760, 560)) + np.cumsum(rng.normal(size=(50, 2)) * 6.0, axis=0)
        segs.extend(np.concatenate([pts[:-1], pts[1:]], axis=1))
        seg_curve.extend([c] * (len(pts) - 1))
    segs_a = np.ascontiguousarray(segs, dtype=float)
    curve_a = np.array(seg_curve, dtype=np.int64)
    spots = rng.uniform((0, 0), (800, 600), size=(6, 2))
    spots[0], spots[1] = rng.uniform((100, 100), (700, 500), size=(2, 2))
    sizes = np.full(6, 5.0)
    curve_ends = rng.integers(-1, 3, size=(curves, 2)).astype(np.int64)  # some curves end at the band's spots
    ends = np.array([0, 1], np.int64)
    turn = rng.uniform((100, 100), (700, 500))
    for way in ([spots[0], spots[1]], [spots[0], turn, turn + (40.0, 8.0), spots[1]]):
        P = resample(np.array(way), 6.0)
        P[1:-1] += rng.normal(size=(len(P) - 2, 2))
        fixed = np.zeros(len(P), bool)
        fixed[[0, -1]] = True
        for ignore, fold in ((0.0, 2.0), (12.0, 2.0), (0.0, 0.0)):
            args = (
                P, fixed, segs_a, curve_a, curves, curve_ends, spots, sizes, 800.0, 600.0, ends, 56.0, ignore,
                40.0, 0.0, 1.0, fold,
            )  # fmt: skip
            e1, g1, l1 = band_energy(*args)
            e2, g2, l2 = band_energy_reference(*args)
            assert e1 == e2 and l1 == l2 and np.array_equal(g1, g2)


@pytest.mark.parametrize("seed", range(4))
def test_uncross_and_unfold_are_their_numpy_references_point_for_point(seed: int) -> None:
    """The compiled searches of crossing legs and of twin points give the very paths of the numpy
    references, on grid walks that cross and fold back on themselves."""
    from sprouts_cli.picture.route_search import uncross, uncross_reference, unfold, unfold_reference

    rng = np.random.default_rng(seed)
    steps = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)], dtype=float)
    for n in (3, 5, 40, 200):
        P = np.cumsum(steps[rng.integers(0, 8, n)], axis=0) * 5.6 + 300.0
        assert np.array_equal(uncross(P), uncross_reference(P))
        assert np.array_equal(unfold(P, 5.6), unfold_reference(P, 5.6))
    out, home = np.arange(30.0)[:, None] * (5.6, 0.0), np.arange(29.0, -1, -1)[:, None] * (5.6, 0.0)
    back = np.concatenate([out, home])
    back[30:] += (0.0, 2.0)  # out along a corridor and back beside itself
    assert not np.array_equal(unfold(back, 5.6), back)
    assert np.array_equal(unfold(back, 5.6), unfold_reference(back, 5.6))


# --------------------------------------------------------------------------- a route round the wrong things


def test_a_route_read_back_as_another_position_says_so() -> None:
    """``draw_route`` whose every drawn curve reads back as another position than the one asked
    for raises ``OtherPosition`` (the route went round other things); one that reads back as the
    same position numbered otherwise is a plain PictureError."""
    from sprouts_cli.errors import PictureError
    from sprouts_cli.picture.route_curve import OtherPosition, draw_route
    from sprouts_cli.picture.route_plan import RouteSettings, make_plan
    from sprouts_cli.picture.route_search import route

    pic = layout_position("0*4", 400, 300, jobs=1)
    a = analyse_picture(pic)
    (m, *_) = moves_from_words(a.position, parse_words("1 -> 2"))
    (loop, *_) = moves_from_words(a.position, parse_words("1 -> 1"))
    plan = make_plan(pic, a, m, RouteSettings())
    path = route(plan)
    assert path is not None
    draw_route(plan, path, apply_move(a.position, m))
    with pytest.raises(OtherPosition):
        draw_route(make_plan(pic, a, m, RouteSettings()), path, apply_move(a.position, loop))
    (other, *_) = moves_from_words(a.position, parse_words("3 -> 4"))
    with pytest.raises(PictureError) as e:
        draw_route(make_plan(pic, a, m, RouteSettings()), path, apply_move(a.position, other))
    assert not isinstance(e.value, OtherPosition)


def test_a_route_round_the_wrong_things_climbs_past_m_and_a(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the router's curve read back as another position, M and A (which keep the spots, or
    slide them along their curves) would give the planner the same sides: the ladder goes to R."""
    import sprouts_cli.picture.room as room
    from sprouts_cli.errors import NoRoom

    pic = layout_position("0*4", 400, 300, jobs=1)
    a = analyse_picture(pic)
    (m, *_) = moves_from_words(a.position, parse_words("1 -> 2"))
    real = room.draw_move
    calls = []

    def first_round_the_wrong_things(p, move, analysis=None, settings=None, player=None):
        calls.append(p)
        if len(calls) == 1:
            err = NoRoom("the route could not be drawn: the curve reads back as another position", 20.0, 6.0)
            err.other_position = True
            raise err
        return real(p, move, analysis, settings, player)

    monkeypatch.setattr(room, "draw_move", first_round_the_wrong_things)
    r = room.draw(pic, m, analysis=a)
    assert r.drawn_by == "rearrange"
    assert set(r.rung_seconds) <= {"route", "rearrange", "tidy"}
    assert any("M and A passed over" in n for n in r.notes)
    _reads_back(r, a.position, m)


def test_a_spot_whose_disc_is_clear_of_the_widest_way_is_not_slid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sliding a spot moves only its disc (its curves keep their shape): a disc farther from the
    widest way than the way's room and a grid cell cannot be what narrows it, so it is not slid;
    one as near as the room is."""
    import sprouts_cli.picture.room as room
    from sprouts_cli.errors import NoRoom
    from sprouts_cli.picture.route_plan import RouteSettings

    pic = layout_position("0*4", 400, 300, jobs=1)
    a = analyse_picture(pic)
    (m, *_) = moves_from_words(a.position, parse_words("1 -> 2"))
    r = draw(pic, m, analysis=a)
    pic, a = r.picture, r.analysis
    s = int(np.nonzero(pic.degrees() == 2)[0][0])  # the move's new spot
    (m2, *_) = moves_from_words(a.position, parse_words("3 -> 4"))
    slid: list[int] = []
    monkeypatch.setattr(room, "slide_spot", lambda p, spot, shift: slid.append(spot))
    size = float(pic.sizes[s])
    for gap, tried in ((size + 3.0, True), (size + 16.0, False)):
        slid.clear()
        ghost = pic.spots[s] + np.array([[gap, -40.0], [gap, 40.0]])
        reason = NoRoom("the widest way is 3.0 px, 6 px needed", 3.0, 6.0, ghost)
        target = apply_move(a.position, m2)
        room._slide_or_push(pic, a, m2, target, RouteSettings(), None, reason, [])
        assert (s in slid) == tried


# --------------------------------------------------------------------------- the slow rungs bounded


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_parity_search_given_up_past_its_bound_or_the_same_way(seed: int) -> None:
    """``astar`` with ``max_pops``: given up (state −2, no way) once it has expanded more than that
    many states, else exactly the unbounded search's length, way and states expanded (what a push
    is charged); compiled and plain Python alike."""
    import math

    from sprouts_cli.picture import grid_planner as gp

    nx, ny, n_bits, free, cross = parity_grid(seed)
    n = nx * ny
    goal_cost = np.full(n, np.inf)
    goal_cost[-1] = 0.0
    for target in range(1 << n_bits):
        args = (
            nx, free, gp.STEPS, cross, n_bits, np.array([0]), np.array([0.0]), np.array([0], np.int64),
            goal_cost, np.zeros(n, np.int64), target, float(nx - 1), float(ny - 1),
        )  # fmt: skip
        cost, path, end, pops = gp.astar(*args)
        given_up = 0
        for bound in (0, 1, 10, 100, 1_000, 10**9):
            for fn in (gp.astar, gp.astar.py_func):
                c, p, e, k = fn(*args, bound)
                if e == -2:
                    assert not math.isfinite(c) and not len(p) and k == bound + 1
                    given_up += 1
                else:
                    assert (c, e) == (cost, end) or not (math.isfinite(c) or math.isfinite(cost))
                    assert np.array_equal(p, path) and k == pops <= bound
        assert 2 <= given_up < 12  # the bound 0 gives up, 10**9 never does


def test_a_route_whose_parity_search_is_given_up_still_draws_a_move_that_reads_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A loop round chosen seeds needs parity bits; with the search's bound far too small every
    search with bits is given up, the router draws no wrong picture and the ladder draws the move."""
    import random

    from test_router import seeds_picture, spread_points

    from sprouts_cli.engine.moves import Move
    from sprouts_cli.picture import route_search
    from sprouts_cli.picture.route_plan import RouteSettings, make_plan

    pic, a = seeds_picture(spread_points(random.Random(7), 6))
    p = a.position
    bx = next(k for k in range(len(p.regions[0])) if p.regions[0][k] == (0,))
    others = [k for k in range(len(p.regions[0])) if k != bx]
    m = Move(0, bx, 0, bx, 0, frozenset(others[:2]))
    plan = make_plan(pic, a, m, RouteSettings())
    rays = route_search.close_strips(plan)
    assert rays is not None and len(rays.boundaries) >= 2
    monkeypatch.setattr(route_search, "PARITY_POPS", 20)
    with pytest.raises(route_search.SearchGivenUp):
        route_search.search(plan, rays, [0, 1], (1, 2))
    r = draw(pic, m, analysis=a)
    _reads_back(r, p, m)


def test_a_is_passed_over_after_a_push_that_ran_out_of_work() -> None:
    """A push given up at its budget has relaxed the curves along the way: A, which keeps the spots
    and moves curves only across themselves, is not tried after it, and R or Z draws the move."""
    pic, a, m = _saved_case(*PUSH_CASE)
    r = draw(pic, m, analysis=a, budgets=Budgets(push=1_000))
    assert any(n.startswith("push curves: given up after") for n in r.notes)
    assert any(n.endswith("A passed over") for n in r.notes)
    assert "adjust" not in r.rung_seconds
    assert r.drawn_by in ("rearrange", "layout")
    _reads_back(r, a.position, m)


def test_a_tidy_is_not_tried_where_the_move_left_the_least_room_as_it_was() -> None:
    """The tidying R runs only when the move made the thinnest region thinner than before: on a
    picture whose thinnest region is the one it already had, the move's own picture is kept."""
    from sprouts_cli.picture.room import _tidied
    from sprouts_cli.picture.route_plan import Drawn, RouteSettings

    pic, a, m = _saved_case(*SLIVER_CASE)
    plain = draw(pic, m, ladder=("M",), analysis=a)
    d = Drawn(plain.picture, plain.analysis, plain.clearance)
    d0 = RouteSettings().d0
    notes: list[str] = []
    assert _tidied(d, d0, True, notes, before=(plain.picture, plain.analysis)) is d
    assert notes and "no less than before the move" in notes[0]
    widened = _tidied(d, d0, True, [], before=(pic, a))
    assert widened is not d


# --------------------------------------------------------------------------- a push's searches counted


def test_grid_search_states_count_only_in_blocks_that_ask() -> None:
    """``work.charge_states``: ``STATES_PER_UNIT`` states to a unit, rounded up, in the blocks opened
    with ``searches`` (an outer block that does not ask is not charged); ``states_left`` is what the
    tightest such block still allows, -1 when none does."""
    from sprouts_cli.picture.work import STATES_PER_UNIT, OverBudget, charge_states, metered, states_left

    assert states_left() == -1
    with metered(1_000) as outer, metered(100, searches=True) as inner:
        assert states_left() == 100 * STATES_PER_UNIT
        charge_states(1)
        charge_states(99 * STATES_PER_UNIT)
        assert (inner.done, outer.done) == (100, 0) and states_left() == 0
        with pytest.raises(OverBudget):
            charge_states(1)
    with metered(10):
        charge_states(10**9)  # a block that counts energies only


def test_a_push_counts_its_searches_and_stops_within_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The push plans its ghost afresh (no ``planned``): every state its A\\* searches expand and
    every cell its plans cover is work in its one budget (charged before the plan is made), so a
    small budget stops it inside its searches, and the states they expanded are within it."""
    import math

    from sprouts_cli.picture import route_search
    from sprouts_cli.picture.room import push_curves
    from sprouts_cli.picture.route_plan import RouteSettings
    from sprouts_cli.picture.work import STATES_PER_UNIT, metered

    pic, a, m = _saved_case(*PUSH_CASE)
    expanded: list[int] = []
    real = route_search.astar

    def counted(*args):  # type: ignore[no-untyped-def]
        got = real(*args)
        expanded.append(int(got[3]))
        return got

    monkeypatch.setattr(route_search, "astar", counted)
    settings = RouteSettings()
    with metered(math.inf, searches=True) as whole:
        full = push_curves(pic, a, m, settings, None, [], work=math.inf)
    assert full is not None and sum(expanded) > 0
    for work in (2_000, 8_000):
        expanded.clear()
        stopped: list[str] = []
        notes: list[str] = []
        assert push_curves(pic, a, m, settings, None, notes, work=work, stopped=stopped) is None
        assert stopped == ["budget"] and notes[-1].startswith("push curves: given up after")
        assert work < whole.done
        assert sum(expanded) <= work * STATES_PER_UNIT


def test_r_on_the_ladder_relaxes_for_r_work_and_a_and_the_tidy_for_relax_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R on the ladder makes room for one move: its descent takes ``room.R_WORK`` point-steps; A on
    the ladder and the tidying R (which widens a sliver) take ``relax.RELAX_WORK``."""
    import importlib

    from sprouts_cli.picture.room import R_WORK

    relax_module = importlib.import_module("sprouts_cli.picture.relax")
    real = relax_module.relax
    seen: list[tuple[str, float]] = []

    def spy(pic, mode="adjust", work=relax_module.RELAX_WORK, d0=6.0, hold_open=None, moving=None):  # type: ignore[no-untyped-def]
        seen.append((mode, work))
        return real(pic, mode, work, d0, hold_open=hold_open, moving=moving)

    monkeypatch.setattr(relax_module, "relax", spy)
    assert R_WORK < relax_module.RELAX_WORK
    pic, a, m = _saved_case(*PUSH_CASE)
    full = relax_module.RELAX_WORK
    for ladder, mode, work in ((("R", "Z"), "rearrange", R_WORK), (("A", "Z"), "adjust", full)):
        seen.clear()
        r = draw(pic, m, ladder=ladder, analysis=a)
        assert seen[0] == (mode, work)
        _reads_back(r, a.position, m)
    seen.clear()
    pic, a, m = _saved_case(*SLIVER_CASE)
    draw(pic, m, ladder=("M", "R"), analysis=a)
    assert ("rearrange", full) in seen


# --------------------------------------------------------------------------- a rung that cannot succeed


@pytest.mark.parametrize(("narrower", "pushes"), [(0.0, 1), (2.0, 3)])
def test_a_lone_spot_whose_full_push_leaves_the_widest_way_as_it_was_is_not_pushed_less(
    monkeypatch: pytest.MonkeyPatch, narrower: float, pushes: int
) -> None:
    """A lone spot pushed by all its disc lacks, the widest way as it was: the way's narrowest place
    is not by the spot, and the half and quarter pushes are passed over.  A way narrower after the
    push (the pushed spot may narrow it elsewhere) leaves them to be tried."""
    import sprouts_cli.picture.room as room
    from sprouts_cli.errors import NoRoom
    from sprouts_cli.picture.route_plan import RouteSettings

    pic = layout_position("0*4", 400, 300, jobs=1)
    a = analyse_picture(pic)
    (m, *_) = moves_from_words(a.position, parse_words("1 -> 2"))
    s = 2  # a lone spot, not one of the move's
    size = float(pic.sizes[s])
    ghost = pic.spots[s] + np.array([[size + 3.0, -40.0], [size + 3.0, 40.0]])
    widest = 3.0
    tried: list[np.ndarray] = []

    def no_wider(p, move, analysis=None, settings=None, player=None):  # type: ignore[no-untyped-def]
        tried.append(p.spots[s].copy())
        raise NoRoom("the widest way is no wider", widest - narrower, 6.0, ghost)

    monkeypatch.setattr(room, "draw_move", no_wider)
    reason = NoRoom("the widest way is 3.0 px, 6 px needed", widest, 6.0, ghost)
    notes: list[str] = []
    target = apply_move(a.position, m)
    assert room._slide_or_push(pic, a, m, target, RouteSettings(), None, reason, notes) is None
    moved = [t for t in tried if not np.allclose(t, pic.spots[s])]
    assert len(moved) == pushes
    assert any("smaller pushes passed over" in n for n in notes) == (pushes == 1)


def test_a_parity_search_predicted_past_its_bound_is_not_run_and_the_way_is_as_if_given_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``_parity_route`` predicts the states the next search would expand from the share the search
    before it expanded; a search predicted past the bound is not run, and the way returned is the
    one a search run and given up there leaves.  Below the bound the searches run as before."""
    import random

    from test_router import seeds_picture, spread_points

    from sprouts_cli.engine.moves import Move
    from sprouts_cli.picture import route_search
    from sprouts_cli.picture.route_plan import RouteSettings, make_plan

    pic, a = seeds_picture(spread_points(random.Random(3), 6))
    p = a.position
    bx = next(k for k in range(len(p.regions[0])) if p.regions[0][k] == (0,))
    others = [k for k in range(len(p.regions[0])) if k != bx]
    m = Move(0, bx, 0, bx, 0, frozenset(others[:4]))
    real = route_search.search
    runs: list[tuple[int, int, bool]] = []  # (bits, states expanded, given up)

    def recorded(plan, rays, chosen, halves=(0, 0), spent=None):  # type: ignore[no-untyped-def]
        given_up = False
        try:
            return real(plan, rays, chosen, halves, spent)
        except route_search.SearchGivenUp:
            given_up = True
            raise
        finally:
            assert spent is not None
            runs.append((len(chosen), spent[-1][0], given_up))

    monkeypatch.setattr(route_search, "search", recorded)

    def way() -> np.ndarray | None:
        plan = make_plan(pic, a, m, RouteSettings())
        rays = route_search.close_strips(plan)
        runs.clear()
        return route_search._parity_route(plan, rays, (1, 2))

    full = way()
    assert [r[0] for r in runs] == [0, 4] and not any(r[2] for r in runs)
    predicted = runs[0][1] << 4  # the same share of sixteen times the states
    assert predicted < runs[1][1]  # the share of the search with no bits is the least
    monkeypatch.setattr(route_search, "PARITY_POPS", int(predicted) // 2)
    skipped = way()
    assert [r[0] for r in runs] == [0]
    monkeypatch.setattr(route_search, "_past_bound", lambda *args: False)
    given_up = way()
    assert [r[0] for r in runs] == [0, 4] and runs[1][2]
    assert skipped is not None and given_up is not None and np.array_equal(skipped, given_up)
    assert full is not None and not np.array_equal(full, skipped)


@pytest.mark.parametrize("seed", [3, 7])
def test_a_loops_route_builds_its_barrier_trees_once_and_finds_the_same_way(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """The barrier trees depend on the rays, not on the gate a loop leaves by: ``route`` builds them
    once for both gates (with and without the cut boundary's arc), and the way is the one found
    when each gate builds its own."""
    import random

    from test_router import seeds_picture, spread_points

    from sprouts_cli.engine.moves import Move
    from sprouts_cli.picture import route_rays, route_search
    from sprouts_cli.picture.route_plan import RouteSettings, make_plan

    pic, a = seeds_picture(spread_points(random.Random(seed), 6))
    p = a.position
    bx = next(k for k in range(len(p.regions[0])) if p.regions[0][k] == (0,))
    others = [k for k in range(len(p.regions[0])) if k != bx]
    m = Move(0, bx, 0, bx, 0, frozenset(others[:3]))
    built: list[bool] = []
    real = route_rays.barrier_trees

    def counted(plan, rays, with_arc=True):  # type: ignore[no-untyped-def]
        built.append(with_arc)
        return real(plan, rays, with_arc)

    monkeypatch.setattr(route_search, "barrier_trees", counted)
    shared = route_search.route(make_plan(pic, a, m, RouteSettings()))
    real_route = route_search.barrier_route
    monkeypatch.setattr(
        route_search, "barrier_route", lambda plan, rays, halves, trees=None: real_route(plan, rays, halves)
    )
    alone = route_search.route(make_plan(pic, a, m, RouteSettings()))
    assert shared is not None and alone is not None and np.array_equal(shared, alone)
    # no way through the trees at either gate: both gates and both trees are tried, each tree built once
    monkeypatch.setattr(route_search, "barrier_route", real_route)
    monkeypatch.setattr(route_search, "_barrier_search", lambda plan, rays, halves, trees: None)
    built.clear()
    route_search.route(make_plan(pic, a, m, RouteSettings()))
    assert built == [True, False]


# --------------------------------------------------------------------------- a push through too narrow a way


def test_a_push_through_a_way_narrower_than_push_least_is_not_tried() -> None:
    """``PUSH_LEAST``: with the router's plan saying the widest way is narrower than that, pushing
    does no work and says ``narrow``; with the plan as it is (wider), the same push draws the move."""
    from sprouts_cli.errors import NoRoom
    from sprouts_cli.picture.room import PUSH_LEAST, push_curves
    from sprouts_cli.picture.route_plan import RouteSettings
    from sprouts_cli.picture.router import Planned, draw_move, ghost_of, has_ghost_room
    from sprouts_cli.picture.work import metered

    pic, a, m = _saved_case(*PUSH_CASE)
    settings = RouteSettings()
    with pytest.raises(NoRoom) as e:
        draw_move(pic, m, a, settings)
    planned = e.value.planned
    assert planned.widest >= PUSH_LEAST * settings.d0
    assert push_curves(pic, a, m, settings, None, [], work=math.inf, planned=planned) is not None
    narrow = Planned(planned.plan, planned.path, 0.99 * PUSH_LEAST * settings.d0)
    stopped: list[str] = []
    notes: list[str] = []
    with metered(math.inf, searches=True) as meter:
        got = push_curves(pic, a, m, settings, None, notes, work=math.inf, planned=narrow, stopped=stopped)
    assert got is None
    assert stopped == ["narrow"] and meter.done == 0
    assert notes[-1].startswith("push curves passed over")
    # a way too narrow for any ghost (``ghost_of`` finds none at once): the push is tried, as before
    none = Planned(planned.plan, None, 0.5)
    assert not has_ghost_room(none, settings.d0) and ghost_of(pic, a, m, settings, none) is None
    stopped.clear()
    assert push_curves(pic, a, m, settings, None, [], work=math.inf, planned=none, stopped=stopped) is None
    assert stopped == ["nothing"]


def test_the_ladder_passes_over_a_and_the_push_through_too_narrow_a_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A push passed over for a narrow way is taken as one given up at its budget: A is passed over
    too, and R (or Z) draws the move, which reads back as its position."""
    from sprouts_cli.picture import room

    pic, a, m = _saved_case(*PUSH_CASE)
    monkeypatch.setattr(room, "PUSH_LEAST", 1e6)  # every way is too narrow
    r = draw(pic, m, ladder=("M", "A", "R", "Z"), analysis=a)
    assert any(n.startswith("push curves passed over") for n in r.notes)
    assert any(n.endswith("A passed over") for n in r.notes)
    assert "adjust" not in r.rung_work and r.rung_work.get("push", 0) == 0
    assert r.drawn_by in ("rearrange", "layout")
    _reads_back(r, a.position, m)


# --------------------------------------------------------------------------- a push along too long a ghost


def test_a_ghost_longer_than_asked_is_not_relaxed_and_the_push_stops() -> None:
    """``ghost_of(..., longest)``: a way longer than ``longest`` raises ``GhostTooLong`` (its length
    said) before the band is relaxed, so the ghost costs only its planning; a way no longer is the
    ghost as before, and the push along it draws the move."""
    from sprouts_cli.errors import NoRoom
    from sprouts_cli.picture.room import push_curves
    from sprouts_cli.picture.route_plan import RouteSettings
    from sprouts_cli.picture.router import GhostTooLong, draw_move, ghost_of
    from sprouts_cli.picture.work import metered

    pic, a, m = _saved_case(*PUSH_CASE)
    settings = RouteSettings()
    with pytest.raises(NoRoom) as e:
        draw_move(pic, m, a, settings)
    planned = e.value.planned
    with metered(math.inf, searches=True) as whole:
        ghost = ghost_of(pic, a, m, settings, planned)
    assert ghost is not None
    length = float(np.hypot(*np.diff(ghost.route, axis=0).T).sum())
    same = ghost_of(pic, a, m, settings, planned, longest=length + 1.0)
    assert same is not None and np.array_equal(same.points, ghost.points)
    with metered(math.inf, searches=True) as cut, pytest.raises(GhostTooLong) as too_long:
        ghost_of(pic, a, m, settings, planned, longest=length - 1.0)
    assert too_long.value.length == pytest.approx(length)
    assert cut.done < whole.done  # the band, most of a ghost's work, was not relaxed
    stopped: list[str] = []
    notes: list[str] = []
    assert push_curves(pic, a, m, settings, None, notes, work=math.inf, planned=planned, stopped=stopped)


def test_the_ladder_passes_over_a_after_a_push_whose_ghost_is_too_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A push whose ghost is longer than ``PUSH_LONGEST`` stops (``long``) as one given up at its
    budget would have: A is passed over, and R (or Z) draws the move, which reads back."""
    from sprouts_cli.picture import room

    pic, a, m = _saved_case(*PUSH_CASE)
    monkeypatch.setattr(room, "PUSH_LONGEST", 1.0)  # every ghost is too long
    r = draw(pic, m, ladder=("M", "A", "R", "Z"), analysis=a)
    assert any("longer than 1 px" in n for n in r.notes)
    assert any(n == "the ghost is too long to push curves along: A passed over" for n in r.notes)
    assert "adjust" not in r.rung_work
    assert r.drawn_by in ("rearrange", "layout")
    _reads_back(r, a.position, m)


# --------------------------------------------------------------------------- a push after too costly a ghost


def _try_along_the_ghost_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The push's first ``draw_route`` (the move tried along the ghost) fails; later ones are real."""
    from sprouts_cli.errors import PictureError
    from sprouts_cli.picture import route_curve

    real = route_curve.draw_route
    calls: list[int] = []

    def first_fails(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 1:
            raise PictureError("the move along the ghost fails here")
        return real(*args, **kwargs)

    monkeypatch.setattr(route_curve, "draw_route", first_fails)


def test_a_push_stops_when_the_move_along_a_costly_ghost_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the move drawn along the ghost has failed, a ghost that took more than
    ``PUSH_GHOST_SHARE`` of the push's work leaves too little to push curves and draw the move
    again: the push stops (``costly``) without pushing; a cheaper ghost is pushed along as before."""
    from sprouts_cli.errors import NoRoom
    from sprouts_cli.picture import room
    from sprouts_cli.picture.room import PUSH_WORK, push_curves
    from sprouts_cli.picture.route_plan import RouteSettings
    from sprouts_cli.picture.router import draw_move
    from sprouts_cli.picture.work import metered

    pic, a, m = _saved_case(*PUSH_CASE)
    settings = RouteSettings()
    with pytest.raises(NoRoom) as e:
        draw_move(pic, m, a, settings)
    planned = e.value.planned

    def push() -> tuple[object, list[str], list[str], int]:
        _try_along_the_ghost_fails(monkeypatch)
        notes: list[str] = []
        why: list[str] = []
        with metered(math.inf, searches=True) as meter:
            got = push_curves(pic, a, m, settings, None, notes, work=PUSH_WORK, planned=planned, stopped=why)
        return got, notes, why, meter.done

    drew, notes, stopped, pushed = push()  # the ghost takes less than the share: curves are pushed
    ghost = int(notes[0].rsplit("took ", 1)[1].split()[0].replace(",", ""))
    assert drew is not None and stopped == [] and ghost < room.PUSH_GHOST_SHARE * PUSH_WORK < pushed
    monkeypatch.setattr(room, "PUSH_GHOST_SHARE", 0.5 * ghost / PUSH_WORK)
    got, notes, stopped, done = push()
    assert got is None and stopped == ["costly"]
    assert notes[-1].endswith("too few are left to push curves and draw the move again")
    assert done == ghost < pushed  # the ghost and the move tried along it, nothing pushed


def test_the_ladder_passes_over_a_after_a_push_stopped_by_a_costly_ghost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A push stopped after too costly a ghost is one that would have run to its budget: A is passed
    over, and R (or Z) draws the move, which reads back."""
    from sprouts_cli.picture import room

    pic, a, m = _saved_case(*PUSH_CASE)
    _try_along_the_ghost_fails(monkeypatch)
    monkeypatch.setattr(room, "PUSH_GHOST_SHARE", 0.0)  # every ghost is too costly
    r = draw(pic, m, ladder=("M", "A", "R", "Z"), analysis=a)
    assert any(n == "the ghost cost too much to push curves along: A passed over" for n in r.notes)
    assert "adjust" not in r.rung_work
    assert r.drawn_by in ("rearrange", "layout")
    _reads_back(r, a.position, m)
