"""The router and the ladder: moves drawn into the picture as it stands (Alfeld §3–4)."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st
from picture_helpers import picture, ring_with_a_gap
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from sprouts_cli.cli import main
from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import Move, apply_move, random_move
from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.errors import NoRoom, PictureError
from sprouts_cli.picture import analyse_picture, layout_position, save_game
from sprouts_cli.picture import grid_planner as gp
from sprouts_cli.picture.band import Band, BandSettings, band_caps, band_energy, resample
from sprouts_cli.picture.room import draw, parse_ladder, slide_spot
from sprouts_cli.picture.route_curve import draw_route
from sprouts_cli.picture.route_plan import RouteSettings, make_plan, obstacles_of
from sprouts_cli.picture.route_search import route, self_crossing
from sprouts_cli.picture.router import draw_move


def same(a: Position, b: Position) -> bool:
    return numbered_key(a)[:2] == numbered_key(b)[:2]


def play_drawn(spots: int, seed: int, ladder=("M", "A", "R", "Z", ".")) -> list[str]:
    """A random game drawn move by move; every picture must read back as the intended position."""
    rng = random.Random(seed)
    pic = layout_position(Position.start(spots), 800, 600, jobs=1)
    a = analyse_picture(pic)
    how = []
    while True:
        m = random_move(a.position, rng)
        if m is None:
            return how
        target = apply_move(a.position, m)
        n_before = len(pic.spots)
        old_spots = pic.spots.copy()
        r = draw(pic, m, ladder, a)
        assert same(r.analysis.position, target)
        assert len(r.picture.spots) == n_before + 1
        if r.drawn_by in ("route", "slide", "push"):
            # the old spots stay where they were: a slid or pushed spot moves, and a spot riding on
            # curves pushed apart (one with two curves); no spot with three curves ever moves
            moved = np.hypot(*(r.picture.spots[:n_before] - old_spots).T) > 1e-6
            assert moved.sum() <= {"route": 0, "slide": 1}.get(r.drawn_by, n_before)
            assert (pic.degrees()[moved] < 3).all()
        how.append(r.drawn_by)
        pic, a = r.picture, r.analysis


def test_random_games_are_drawn_move_by_move_with_the_same_spot_numbers() -> None:
    for spots, seed in ((3, 1), (4, 2)):
        how = play_drawn(spots, seed)
        assert how and how.count("route") >= len(how) // 2


@pytest.mark.slow
@pytest.mark.parametrize("spots", [3, 5, 8, 11, 15])
def test_random_games_sweep(spots: int) -> None:
    for seed in range(1, 4):
        play_drawn(spots, seed)


def spread_points(rng: random.Random, n: int) -> list[tuple[float, float]]:
    """``n`` random points of the 400×400 picture, 60 px from its edges and from each other."""
    pts: list[tuple[float, float]] = []
    while len(pts) < n:
        p = (rng.uniform(60, 340), rng.uniform(60, 340))
        if all(math.dist(p, q) > 60 for q in pts):
            pts.append(p)
    return pts


def seeds_picture(points) -> tuple:
    sp = np.asarray(points, dtype=float)
    pic = picture(sp, [], 400, 400)
    return pic, analyse_picture(pic)


@settings(max_examples=12)
@given(st.integers(0, 2**16), st.integers(3, 6))
def test_a_loop_encloses_exactly_the_chosen_seeds(seed: int, n: int) -> None:
    rng = random.Random(seed)
    pic, a = seeds_picture(spread_points(rng, n))
    p = a.position
    x = 0
    others = [k for k in range(len(p.regions[0])) if p.regions[0][k] != (x,)]
    chosen = frozenset(k for k in others if rng.random() < 0.5)
    bx = next(k for k in range(len(p.regions[0])) if p.regions[0][k] == (x,))
    m = Move(0, bx, 0, bx, 0, chosen)
    try:
        d = draw_move(pic, m, a)
    except NoRoom:
        return  # no room is an answer; a wrong drawing is not
    assert same(d.analysis.position, apply_move(p, m))
    inside = {s for k in chosen for s in p.regions[0][k]}
    # the loop's inside region holds exactly the chosen seeds
    assert any(
        {s for b in r for s in b} - {x, n} == inside
        and any(b == (x, n) or b == (n, x) for b in r)
        for r in d.analysis.position.regions
    )


def test_a_route_that_would_cross_is_never_drawn() -> None:
    pic = picture([(50, 200), (350, 200), (200, 100), (200, 300)], [(2, 3, [])], 400, 400)
    a = analyse_picture(pic)
    p = a.position
    r0 = p.regions[0]
    i = next(k for k, b in enumerate(r0) if b == (0,))
    j = next(k for k, b in enumerate(r0) if b == (1,))
    m = Move(0, i, 0, j, 0)
    plan = make_plan(pic, a, m, RouteSettings(relax=False))
    straight = np.array([pic.spots[0], pic.spots[1]])  # straight through the curve from 3 to 4
    with pytest.raises(PictureError):
        draw_route(plan, straight, apply_move(p, m))
    # the router itself goes round
    d = draw_move(pic, m, a)
    assert same(d.analysis.position, apply_move(p, m))


def gap_picture():
    """A seed inside a C whose ends are two spots 2 px apart: the only way out is too narrow."""
    ring = [(200 + 120 * math.cos(t), 200 + 120 * math.sin(t)) for t in np.linspace(-1.45, 1.45 + 3.14, 40)]
    ring = [p for p in ring]
    p, q = ring[0], ring[-1]
    pic = picture([p, q, (200, 200), (380, 380)], [(0, 1, ring[1:-1])], 400, 400)
    # pull the two ends together to leave a gap of two pixels between their discs
    return pic


def test_no_room_says_how_wide_the_widest_way_is() -> None:
    pic, a, m = ring_with_a_gap()
    with pytest.raises(NoRoom) as e:
        draw_move(pic, m, a)
    assert "widest way between 3 and 4" in str(e.value) and "6 px needed" in str(e.value)
    assert e.value.widest < 6


def test_refused_move_leaves_the_file_and_exits_2(tmp_path) -> None:
    pic = picture(
        [(200, 95), (200, 107), (200, 200), (380, 380)],
        [(0, 1, [(120, 60), (60, 200), (200, 330), (340, 200), (280, 60)])],
        400,
        400,
    )
    path = tmp_path / "g.json"
    save_game(path, pic, analyse_picture(pic).position.canonical())
    before = path.read_bytes()
    r = CliRunner().invoke(main, ["move", str(path), "3 -> 4", "-o", str(path), "--ladder", "none"])
    assert r.exit_code == 2
    assert "widest way" in r.stderr and "Traceback" not in r.output
    assert path.read_bytes() == before


def test_move_command_json_and_the_saved_game_reads_back(tmp_path) -> None:
    pic = layout_position(Position.start(4), 600, 400, jobs=1)
    g0, g1 = tmp_path / "g0.json", tmp_path / "g1.json"
    save_game(g0, pic, "0*4")
    r = CliRunner().invoke(main, ["move", str(g0), "1 -> 1 enclosing 2", "-o", str(g1), "--json"])
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert set(obj) == {"words", "position", "drawn_by", "min_clearance", "smaller", "seconds"}
    assert obj["drawn_by"] in ("route", "slide", "push", "adjust", "rearrange", "layout", "smaller")
    want = apply_move(analyse_picture(pic).position, _loop_move(pic))
    assert obj["position"] == want.canonical()
    back = CliRunner().invoke(main, ["canonical", str(g1)])
    assert back.stdout.strip() == want.canonical()
    saved = json.loads(g1.read_text())
    assert saved["game"]["move_list"][-1] == obj["words"]
    assert np.allclose([[s["x"], s["y"]] for s in saved["game"]["spots"][:4]], pic.spots, atol=1e-5)


def _loop_move(pic) -> Move:
    p = analyse_picture(pic).position
    r0 = p.regions[0]
    i, j = r0.index((0,)), r0.index((1,))
    return Move(0, i, 0, i, 0, frozenset({j}))


def test_bad_words_and_bad_ladder_are_one_line(tmp_path) -> None:
    pic = layout_position(Position.start(2), 400, 300, jobs=1)
    g0 = tmp_path / "g0.json"
    save_game(g0, pic, "0*2")
    for args in (["1 -> 9"], ["1 ~ 2"], ["1 -> 2", "--ladder", "Q"]):
        r = CliRunner().invoke(main, ["move", str(g0), *args, "-o", str(tmp_path / "x.json")])
        assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "x.json").exists()
    assert parse_ladder("M,A,R,Z,.") == ("M", "A", "R", "Z", ".")
    assert parse_ladder("ZM") == ("M", "Z") and parse_ladder("none") == ()


def test_sliding_a_spot_keeps_the_shape_and_the_position() -> None:
    pic = layout_position(Position.start(3), 600, 400, jobs=1)
    a = analyse_picture(pic)
    r0 = a.position.regions[0]
    m = Move(0, r0.index((0,)), 0, r0.index((1,)), 0)
    d = draw_move(pic, m, a)
    z = len(pic.spots)
    moved = slide_spot(d.picture, z, 20.0)
    assert moved is not None
    assert same(analyse_picture(moved).position, d.analysis.position)
    assert math.dist(moved.spots[z], d.picture.spots[z]) > 5


# --------------------------------------------------------------------------- kernels against references


def _grid_graph(nx: int, ny: int, free: np.ndarray) -> coo_matrix:
    """The grid's free cells as scipy's sparse graph: a step to each of the eight neighbours
    that is free, 1 straight and sqrt 2 across (the kernels' steps)."""
    rows, cols, w = [], [], []
    for k in np.nonzero(free)[0]:
        for d, (dx, dy) in enumerate(gp.STEPS):
            jx, jy = k % nx + dx, k // nx + dy
            if 0 <= jx < nx and 0 <= jy < ny and free[jy * nx + jx]:
                rows.append(k)
                cols.append(jy * nx + jx)
                w.append(1.0 if d < 4 else math.sqrt(2))
    return coo_matrix((w, (rows, cols)), shape=(nx * ny, nx * ny)).tocsr()


def test_grid_shortest_way_agrees_with_scipy_dijkstra() -> None:
    rng = np.random.default_rng(3)
    nx, ny = 23, 17
    free = rng.random(nx * ny) > 0.3
    free[0] = free[-1] = True
    ref = dijkstra(_grid_graph(nx, ny, free), indices=0)[nx * ny - 1]
    goal_cost = np.full(nx * ny, np.inf)
    goal_cost[-1] = 0.0
    args = (
        nx, free, gp.STEPS, np.zeros((nx * ny, 8), np.int64), 0, np.array([0]), np.array([0.0]),
        np.array([0], np.int64), goal_cost, np.zeros(nx * ny, np.int64), 0, float(nx - 1), float(ny - 1),
    )  # fmt: skip
    for fn in (gp.astar, gp.astar.py_func):
        cost, _path, _, _pops = fn(*args)
        assert cost == pytest.approx(ref) if math.isfinite(ref) else not math.isfinite(cost)
    w_fast = gp.widest(nx, free.astype(float), gp.STEPS, np.array([0]), np.arange(nx * ny) == nx * ny - 1)
    w_slow = gp.widest.py_func(
        nx, free.astype(float), gp.STEPS, np.array([0]), np.arange(nx * ny) == nx * ny - 1
    )
    assert w_fast[0] == w_slow[0]


@pytest.mark.parametrize("seed", range(12))
def test_a_tree_grown_to_a_goal_finds_the_way_the_whole_tree_finds(seed: int) -> None:
    """``grow_tree_to`` (stopped at the nearest goal cells) gives the nearest goal cell, its
    distance and the way back to the sources exactly as the whole tree (``grow_tree``) does, and
    stops before settling every cell; the whole tree's distances are scipy's Dijkstra from the
    sources; the compiled kernel and its plain Python agree."""
    rng = np.random.default_rng(seed)
    nx, ny = 31, 23
    allowed = rng.random(nx * ny) > 0.25
    sources = rng.choice(np.nonzero(allowed)[0], size=1 + seed % 3, replace=False).astype(np.int64)
    goal = (rng.random(nx * ny) < 0.01 + 0.01 * (seed % 4)) & ~np.isin(np.arange(nx * ny), sources)

    def nearest(dist, prev):
        ends = np.nonzero(goal & np.isfinite(dist))[0]
        if not len(ends):
            return None
        c = int(ends[int(np.argmin(dist[ends]))])
        d, way = float(dist[c]), []
        while c >= 0:
            way.append(c)
            c = int(prev[c])
        return d, way

    whole = gp.grow_tree(nx, allowed, gp.STEPS, sources)
    ref = dijkstra(_grid_graph(nx, ny, allowed), indices=sources, min_only=True)
    assert np.array_equal(np.isfinite(whole[0]), np.isfinite(ref))  # the whole tree is scipy's Dijkstra
    assert np.allclose(whole[0][np.isfinite(ref)], ref[np.isfinite(ref)])
    fast = gp.grow_tree_to(nx, allowed, gp.STEPS, sources, goal)
    slow = gp.grow_tree_to.py_func(nx, allowed, gp.STEPS, sources, goal)
    assert nearest(*fast) == nearest(*whole) == nearest(*slow)
    assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
    if nearest(*whole) is not None:
        reached = np.isfinite(whole[0])
        assert np.isfinite(fast[0]).sum() <= reached.sum()
        # every cell it reached no farther than the goal has the whole tree's distance
        near = np.isfinite(fast[0]) & (fast[0] <= nearest(*whole)[0])
        assert np.array_equal(fast[0][near], whole[0][near])


def test_kernels_agree_with_plain_python() -> None:
    pic = layout_position(Position.from_string("0.AB|AB"), 400, 300, jobs=1)
    a = analyse_picture(pic)
    ob = obstacles_of(pic, a)
    g = gp.Grid.over(pic.width, pic.height, 6.0)
    args = (
        g.nx, g.ny, g.x0, g.y0, g.cell, ob.segs, ob.seg_curve, ob.curve_ends, ob.spots, ob.sizes,
        ob.width, ob.height, 18.0, np.array([0, -1], np.int64), 56.0, 6.0,
    )  # fmt: skip
    fast, slow = gp.room_field(*args), gp.room_field.py_func(*args)
    for f, s in zip(fast, slow, strict=True):
        assert np.allclose(f, s)
    P = resample(np.array([[20.0, 20.0], [380.0, 280.0]]), 10.0)
    fixed = np.zeros(len(P), bool)
    eargs = (
        P, fixed, ob.segs, ob.seg_curve, len(ob.curve_ends), ob.curve_ends, ob.spots, ob.sizes,
        ob.width, ob.height, np.array([-1, -1], np.int64), 56.0, 0.0, 40.0, 0.0, 1.0, 2.0,
    )  # fmt: skip
    e1, g1, l1 = band_energy(*eargs)
    e2, g2, l2 = band_energy.py_func(*eargs)
    assert e1 == pytest.approx(e2) and np.allclose(g1, g2) and l1 == pytest.approx(l2)
    cargs = (P, ob.segs, ob.seg_curve, ob.curve_ends, ob.spots, ob.sizes, ob.width, ob.height,
             np.array([-1, -1], np.int64), 160.0)  # fmt: skip
    assert np.allclose(band_caps(*cargs), band_caps.py_func(*cargs))


def test_band_energy_gradient_matches_finite_differences_away_from_obstacles() -> None:
    pic = picture([(100, 100), (300, 100)], [(0, 1, [(200, 60)])], 400, 400)
    a = analyse_picture(pic)
    ob = obstacles_of(pic, a)
    P = resample(np.array([[60.0, 300.0], [340.0, 300.0]]), 40.0)
    P[1:-1, 1] += np.linspace(-10, 10, len(P) - 2)
    fixed = np.zeros(len(P), bool)
    fixed[[0, -1]] = True
    args = (ob.segs, ob.seg_curve, len(ob.curve_ends), ob.curve_ends, ob.spots, ob.sizes, 400.0, 400.0,
            np.array([-1, -1], np.int64), 56.0, 0.0, 40.0, 0.0, 1.0, 2.0)  # fmt: skip
    _E, G, _ = band_energy(P, fixed, *args)
    # the crowding part holds each point's weight fixed, so compare the direction across the band only
    i = 2
    h = 1e-4
    Q = P.copy()
    Q[i, 1] += h
    Q2 = P.copy()
    Q2[i, 1] -= h
    num = (band_energy(Q, fixed, *args)[0] - band_energy(Q2, fixed, *args)[0]) / (2 * h)
    assert np.sign(num) == np.sign(G[i, 1])


# --------------------------------------------------------------------------- properties


@settings(max_examples=15)
@given(st.integers(0, 2**16))
@example(1715)
def test_the_band_never_crosses_an_obstacle(seed: int) -> None:
    rng = random.Random(seed)
    pts = []
    while len(pts) < 6:
        p = (rng.uniform(40, 360), rng.uniform(40, 360))
        if all(math.dist(p, q) > 50 for q in pts):
            pts.append(p)
    pic = picture(pts, [(2, 3, []), (4, 5, [])], 400, 400)
    try:
        a = analyse_picture(pic)
    except PictureError:
        return  # the two curves cross: not a picture
    if a.min_clearance <= 0:
        return  # a curve through a spot's disc
    r = a.position.regions
    ri = next(i for i, reg in enumerate(r) if (0,) in reg)
    if (1,) not in r[ri]:
        return
    m = Move(ri, r[ri].index((0,)), 0, r[ri].index((1,)), 0)
    plan = make_plan(pic, a, m, RouteSettings())
    path = route(plan)
    if path is None:
        return
    band = Band(plan.ob, (0, 1), BandSettings(spacing=8.0))
    # the grid path is clear, and so is its resampling (plain resampling at 8 px cut a corner
    # into an obstacle for seed 1715: the corners are kept where that would happen)
    assert band.clearance(path) > 0.0
    P = band.resample_clear(path, 8.0)
    assert band.clearance(P) > 0.0
    fixed = np.zeros(len(P), bool)
    fixed[[0, -1]] = True
    Q, _ = band.relax(P, fixed)
    assert not self_crossing(Q)
    assert band.clearance(Q) > 0.0  # no leg reaches a curve, a spot's disc or the window
    # and it is the same way round everything: the move drawn through it reads back right
    d = draw_route(plan, Q, apply_move(a.position, m))
    assert same(d.analysis.position, apply_move(a.position, m))


@settings(max_examples=10)
@given(st.integers(0, 2**16), st.integers(3, 6))
def test_the_barrier_route_separates_the_two_trees(seed: int, n: int) -> None:
    """The way (a loop, closed at its spot) has every cell of one tree inside it and of the other outside."""
    from sprouts_cli.picture.geometry import winding_number
    from sprouts_cli.picture.route_plan import close_strip
    from sprouts_cli.picture.route_rays import barrier_trees, build_rays
    from sprouts_cli.picture.route_search import _loop_target, barrier_route

    rng = random.Random(seed)
    pic, a = seeds_picture(spread_points(rng, n))
    r0 = a.position.regions[0]
    bx = r0.index((0,))
    chosen = frozenset(k for k in range(len(r0)) if k != bx and rng.random() < 0.5)
    plan = make_plan(pic, a, Move(0, bx, 0, bx, 0, chosen), RouteSettings())
    rays = build_rays(plan)
    assert rays is not None
    target = _loop_target(plan, rays)
    close_strip(plan, None if target is None else target[0])
    trees = barrier_trees(plan, rays, with_arc=False)
    path = barrier_route(plan, rays, (1, 2))
    if path is None:
        path = barrier_route(plan, rays, (2, 1))
    if trees is None or path is None:
        return
    centres = plan.grid.centres()
    inside_a = {winding_number(path, c) != 0 for c in centres[trees[0]]}
    inside_b = {winding_number(path, c) != 0 for c in centres[trees[1]]}
    assert len(inside_a) == 1 and len(inside_b) == 1 and inside_a != inside_b


def test_the_computer_encloses_a_cluster_of_interchangeable_seeds() -> None:
    from sprouts_cli.picture.room import cluster_move

    pts = [(200, 200), (260, 200), (200, 260), (380, 40), (20, 380), (380, 380), (20, 40)]
    pic, a = seeds_picture(pts)
    p = a.position
    r0 = p.regions[0]
    far = frozenset({r0.index((3,)), r0.index((4,))})  # two far seeds chosen by the search
    m = Move(0, r0.index((0,)), 0, r0.index((0,)), 0, far)
    c = cluster_move(pic, p, m)
    assert {s for k in c.inside for s in r0[k]} == {1, 2}  # the two nearest instead
    assert apply_move(p, c).canonical() == apply_move(p, m).canonical()
    d = draw_move(pic, c, a)
    assert same(d.analysis.position, apply_move(p, c))


def test_the_banded_fit_agrees_with_dense_least_squares() -> None:
    from scipy.interpolate import BSpline

    from sprouts_cli.picture.fit import _least_squares_banded, least_squares_dense

    rng = np.random.default_rng(3)
    u = np.sort(rng.uniform(0, 100, 80))
    u[0], u[-1] = 0.0, 100.0
    knots = np.sort(rng.uniform(5, 95, 12))
    T = np.concatenate([[0.0] * 4, knots, [100.0] * 4])
    B = BSpline.design_matrix(u, T, 3).tocsc()
    rhs = np.stack([np.sin(u / 9), np.cos(u / 13)], axis=1) + rng.normal(0, 0.01, (len(u), 2))
    assert np.allclose(_least_squares_banded(B, rhs), least_squares_dense(B, rhs), atol=1e-6)


def test_a_certificate_from_known_pieces_reads_the_same() -> None:
    from sprouts_cli.picture.certify import _leg_arrays, _leg_arrays_reference

    rng = random.Random(5)
    pic = layout_position(Position.start(5), 600, 400, jobs=1)
    a = analyse_picture(pic)
    for _ in range(4):
        m = random_move(a.position, rng)
        r = draw(pic, m, analysis=a)
        fresh = analyse_picture(r.picture)
        again = analyse_picture(r.picture, (pic, a))
        assert numbered_key(fresh.position) == numbered_key(again.position)
        assert again.min_clearance == pytest.approx(fresh.min_clearance, abs=0.5)
        sub = fresh.certificate.sub
        for x, y in zip(_leg_arrays(r.picture, sub), _leg_arrays_reference(r.picture, sub), strict=True):
            assert np.array_equal(np.asarray(x), np.asarray(y))
        pic, a = r.picture, r.analysis
    pts = np.array([[0.0, 0.0], [7.3, 2.2], [9.9, -4.0]])
    segs = np.array([[3.0, -5.0, 3.0, 5.0], [8.0, -9.0, 8.5, 9.0]])
    bits = np.array([1, 2], dtype=np.int64)
    fast, slow = gp.legs_bits(pts, segs, bits, *gp.SHIFT), gp.legs_bits.py_func(pts, segs, bits, *gp.SHIFT)
    assert np.array_equal(fast, slow)
    assert list(gp.legs_bits(pts, segs, bits, *gp.SHIFT)) == [1, 2]


@pytest.mark.parametrize("seed", range(4))
def test_the_bands_kernels_give_the_same_in_any_order_of_segments(seed: int) -> None:
    """``band_energy`` and ``band_caps`` pass over runs of one curve's segments by their boxes;
    shuffled, the segments make other runs (mostly of one), and the energy, its gradient,
    the least distance and the caps must come out the same (up to rounding), for a band
    folded on itself and one that is not."""
    rng = np.random.default_rng(seed)
    curves = 12
    segs, seg_curve = [], []
    for c in range(curves):
        pts = rng.uniform((20, 20), (780, 580)) + np.cumsum(rng.normal(size=(40, 2)) * 9.0, axis=0)
        segs.extend(np.concatenate([pts[:-1], pts[1:]], axis=1))
        seg_curve.extend([c] * (len(pts) - 1))
    segs_a = np.ascontiguousarray(segs, dtype=float)
    curve_a = np.array(seg_curve, dtype=np.int64)
    ends = np.array([0, 1], np.int64)
    curve_ends = rng.integers(-1, 4, size=(curves, 2)).astype(np.int64)
    spots = rng.uniform((0, 0), (800, 600), size=(6, 2))
    sizes = np.full(6, 5.0)
    spots[0], spots[1] = (10.0, 10.0), (790.0, 590.0)
    turn = rng.uniform((100, 100), (700, 500))
    P = resample(np.array([spots[0], turn, turn + (30.0, 5.0), spots[1]]), 8.0)
    fixed = np.zeros(len(P), bool)
    fixed[[0, -1]] = True
    order = rng.permutation(len(segs_a))
    for segs_x, curve_x in ((segs_a, curve_a), (np.ascontiguousarray(segs_a[order]), curve_a[order])):
        e, g, least = band_energy(
            P, fixed, segs_x, curve_x, curves, curve_ends, spots, sizes, 800.0, 600.0, ends, 56.0, 0.0,
            40.0, 0.0, 1.0, 2.0,
        )  # fmt: skip
        caps = band_caps(P, segs_x, curve_x, curve_ends, spots, sizes, 800.0, 600.0, ends, 80.0)
        if segs_x is segs_a:
            e0, g0, least0, caps0 = e, g, least, caps
    assert math.isfinite(e0) and e == pytest.approx(e0, rel=1e-12) and least == pytest.approx(least0)
    assert np.allclose(g, g0, rtol=1e-9, atol=1e-9) and np.allclose(caps, caps0)
    assert (caps0 < 0.45 * 80.0).any()  # something is within reach: the caps were not all the bound
