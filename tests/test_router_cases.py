"""The router's hard cases (Alfeld §3.3–3.5): folded bands, curves that bend at their spot, close spots.

Each test is a case that made the bench's moves climb to A, R or Z before it was
mended; the bench (``benchmarks/bench_router.py --causes``) counts the rest.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from picture_helpers import parity_grid, picture, ring_with_a_gap

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import Move, apply_move
from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.picture import analyse_picture
from sprouts_cli.picture.band import FOLD, band_energy
from sprouts_cli.picture.route_curve import port_direction, relax_route
from sprouts_cli.picture.route_plan import (
    CERTIFY_SHARE,
    RouteSettings,
    _crosses_any,
    corner_of,
    half_edge_polygon,
    make_plan,
    obstacles_of,
)
from sprouts_cli.picture.route_search import self_crossing, uncross, unfold, widest_way
from sprouts_cli.picture.router import draw_move


def _u_band(gap: float) -> np.ndarray:
    """A band out along y = 100, round a turn and back along y = 100 + gap (a hairpin)."""
    out = [(x, 100.0) for x in np.arange(50.0, 301.0, 10.0)]
    back = [(x, 100.0 + gap) for x in np.arange(300.0, 49.0, -10.0)]
    return np.array(out + back)


def _energy(P: np.ndarray, fold: float, fast: bool = True):
    pic = picture([(30, 30)], [], 400, 400)
    ob = obstacles_of(pic, analyse_picture(pic))
    fixed = np.zeros(len(P), bool)
    fixed[[0, -1]] = True
    fn = band_energy if fast else band_energy.py_func
    return fn(
        P, fixed, ob.segs, ob.seg_curve, len(ob.curve_ends), ob.curve_ends, ob.spots, ob.sizes,
        400.0, 400.0, np.array([-1, -1], np.int64), 56.0, 0.0, 40.0, 0.0, 1.0, fold,
    )  # fmt: skip


def test_a_folded_band_feels_its_own_far_parts() -> None:
    """The strands of a hairpin repel each other (Alfeld §3.4); a straight band is not its own obstacle."""
    P = _u_band(6.0)
    e_fold, g_fold, least = _energy(P, FOLD)
    e_none, _g, _ = _energy(P, 0.0)
    assert e_fold > e_none
    assert least == np.float64(6.0) or math.isclose(least, 6.0)
    # compiled and plain Python agree
    e2, g2, l2 = _energy(P, FOLD, fast=False)
    assert math.isclose(e_fold, e2) and np.allclose(g_fold, g2) and math.isclose(least, l2)
    # descent (−G) moves the outgoing strand away from the one coming back (up, −y), and that one down
    mid_out = 10  # (150, 100)
    mid_back = len(P) - 11  # (150, 106)
    assert g_fold[mid_out, 1] > 0 and g_fold[mid_back, 1] < 0
    straight = np.array([(x, 100.0) for x in np.arange(50.0, 351.0, 10.0)])
    assert math.isclose(_energy(straight, FOLD)[0], _energy(straight, 0.0)[0])


def test_a_small_loop_keeps_its_shape_when_its_ports_are_fixed() -> None:
    """A loop whose first and last legs are long is not pulled shut by its port stubs (Alfeld §3.5)."""
    pic = picture([(200, 150)], [], 400, 300)
    a = analyse_picture(pic)
    plan = make_plan(pic, a, Move(0, 0, 0, 0, 0), RouteSettings())
    x = pic.spots[0]
    path = np.array([x, x + (-9.0, -25.0), x + (-5.0, -28.0), x + (-4.0, -24.0), x])
    P, E, _ds, _de = relax_route(plan, path)
    assert math.isfinite(E)
    assert float(np.hypot(*(P - x).T).max()) > 18.0


def test_the_corner_of_a_curve_that_bends_at_its_spot_excludes_where_it_starts() -> None:
    """A curve leaving its spot at 10° and bending to 70° bounds the corner by both directions.

    The rotation system reads the direction of the curve's very first leg, so a
    port between 10° and 70° would cross the curve inside the spot's disc.
    """
    c = (200.0, 200.0)
    bend = [(c[0] + 9.0, c[1] + 1.6), (c[0] + 14.0, c[1] + 30.0), (c[0] + 60, c[1] + 150)]
    pic = picture([c, (c[0] - 150, c[1]), (c[0] + 60, c[1] + 152)], [(0, 1, []), (0, 2, bend[:-1])], 400, 400)
    a = analyse_picture(pic)
    first = half_edge_polygon(a, 2)  # curve 1 from spot 0
    start = math.atan2(*(first[1] - first[0])[::-1])
    for ri, region in enumerate(a.map.regions):
        for bi, (kind, items) in enumerate(region):
            if kind != "cycle":
                continue
            for ci, h in enumerate(items):
                if a.map.tail(h) != 0:
                    continue
                corner = corner_of(pic, a, ri, bi, ci, 11.0)
                assert not corner.contains(start, margin=1e-6)
                for along in np.linspace(-math.pi, math.pi, 37):
                    port = port_direction(corner, along)
                    assert corner.contains(port)


@pytest.mark.parametrize("gap", [16.0, 20.0, 24.0])
def test_two_close_spots_joined_by_a_curve_get_a_second_curve(gap: float) -> None:
    """Close spots: the way has a middle, and is bowed out until the new spot has room there."""
    pic = picture([(200, 150), (200 + 0.6 * gap, 150 + 0.8 * gap)], [(0, 1, [])], 400, 300)
    a = analyse_picture(pic)
    m = Move(0, 0, 0, 0, 1)
    d = draw_move(pic, m, a)
    assert numbered_key(d.analysis.position)[:2] == numbered_key(apply_move(a.position, m))[:2]
    assert d.clearance >= CERTIFY_SHARE * RouteSettings().d0


def _grid_walk(cells: list[tuple[int, int]], cell: float = 4.0) -> np.ndarray:
    return np.array(cells, dtype=float) * cell


def test_a_path_whose_strands_cross_is_made_simple() -> None:
    """Two diagonal steps of one walk crossing in an X (strands changing lanes) are uncrossed by 2-opt."""
    cells = [(0, 0), (1, 0), (2, 0), (3, 1), (4, 2), (5, 1), (4, 0), (3, 0), (2, 1), (1, 2), (0, 3)]
    path = _grid_walk(cells)
    assert self_crossing(path)
    fixed = uncross(path)
    assert not self_crossing(fixed)
    assert np.array_equal(fixed[0], path[0]) and np.array_equal(fixed[-1], path[-1])
    assert sorted(map(tuple, fixed)) == sorted(map(tuple, path))  # the same cells, only walked differently


def test_a_path_out_and_back_through_the_same_cells_is_parted() -> None:
    """Strands that touch are set a third of a cell apart (the band cannot part them), not crossing."""
    cell = 4.0
    out = [(0, -1)] + [(i, 0) for i in range(1, 11)]
    tip = [(11, -1), (12, 0), (11, 1)]
    back = [(i, 0) for i in range(10, 0, -1)] + [(0, 1)]
    path = _grid_walk(out + tip + back, cell)
    assert self_crossing(path)
    parted = unfold(path, cell)
    assert not self_crossing(parted)
    assert float(np.hypot(*(parted - path).T).max()) <= cell / 3 + 1e-9


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_parity_search_agrees_with_dijkstra_on_the_product_graph(seed: int) -> None:
    """A* over (cell, parity bits), states kept only for cells reached, against scipy on cells × 2^bits."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import dijkstra

    from sprouts_cli.picture import grid_planner as gp

    nx, ny, n_bits, free, cross = parity_grid(seed)
    n = nx * ny
    rows, cols, w = [], [], []
    for k in range(n):
        if not free[k]:
            continue
        for d, (dx, dy) in enumerate(gp.STEPS):
            jx, jy = k % nx + dx, k // nx + dy
            if 0 <= jx < nx and 0 <= jy < ny and free[jy * nx + jx]:
                for bits in range(1 << n_bits):
                    rows.append((k << n_bits) | bits)
                    cols.append(((jy * nx + jx) << n_bits) | (bits ^ int(cross[k, d])))
                    w.append(1.0 if d < 4 else math.sqrt(2))
    graph = coo_matrix((w, (rows, cols)), shape=(n << n_bits, n << n_bits)).tocsr()
    ref = dijkstra(graph, indices=0)
    goal_cost = np.full(n, np.inf)
    goal_cost[-1] = 0.0
    for target in range(1 << n_bits):
        want = ref[((n - 1) << n_bits) | target]
        args = (
            nx, free, gp.STEPS, cross, n_bits, np.array([0]), np.array([0.0]), np.array([0], np.int64),
            goal_cost, np.zeros(n, np.int64), target, float(nx - 1), float(ny - 1),
        )  # fmt: skip
        for fn in (gp.astar, gp.astar.py_func):
            cost, path, _, _pops = fn(*args)
            if math.isfinite(want):
                assert cost == pytest.approx(want)
                assert path[0] == 0 and path[-1] == n - 1
            else:
                assert not math.isfinite(cost)


def test_the_widest_way_never_steps_across_a_curve() -> None:
    """Below ``d0`` the widest way walks cells a pixel or two from a curve: it must not step across one.

    The way out of the ring is the 2 px gap between the discs of its end spots, so
    no way has more than 1 px of room; a grid step between two cells on either side
    of the ring, each 2-3 px from it, would report a way of that room that is not there.
    """
    pic, a, m = ring_with_a_gap()
    plan = make_plan(pic, a, m, RouteSettings())
    w, way = widest_way(plan)
    assert w <= 1.0 + 1e-9
    if way is not None:
        ring = a.certificate.polygon(0)
        legs = np.concatenate([ring[:-1], ring[1:]], axis=1)
        for p, q in itertools.pairwise(way[1:-1]):
            assert not _crosses_any(p[None], q[None], legs)[0]


DATA = Path(__file__).parent / "data" / "router"


def _saved_case(name: str, words: str, after: str):
    """A picture saved from a bench game, and its move (by its words and the position it gives)."""
    from sprouts_cli.engine.naming import moves_from_words, parse_words
    from sprouts_cli.picture.gamefile import load_game

    pic = load_game(DATA / name)
    a = analyse_picture(pic)
    fits = moves_from_words(a.position, parse_words(words))
    wanted = Position.from_string(after).canonical()
    fits = [m for m in fits if apply_move(a.position, m).canonical() == wanted]
    assert fits
    return pic, a, fits[0]


def test_curves_at_the_moves_own_end_spot_are_pushed_apart() -> None:
    """Bench game (10 spots, seed 1, move 20): the narrow place is beside a curve at the move's end spot.

    The ghost ends at that spot, so the curve touched it there and could not be
    pushed at all (and the long curve beside it could not be refitted, nor relaxed
    without folding far away); the move went up to Z.  Now the ghost is no obstacle
    at a pushed curve's own ends, only the de Boor points near the ghost move, and
    the move is drawn by M.
    """
    from sprouts_cli.picture.room import draw

    pic, a, m = _saved_case("push_at_the_moves_end.json", "24 → 28 enclosing 7, 26", "0+122")
    r = draw(pic, m, ladder=("M",), analysis=a)
    assert r.drawn_by == "push"
    assert numbered_key(r.analysis.position)[:2] == numbered_key(apply_move(a.position, m))[:2]
    assert r.clearance >= CERTIFY_SHARE * RouteSettings().d0
    n = len(pic.spots)
    assert np.array_equal(r.picture.sizes[:n], pic.sizes)


def test_a_loop_round_nothing_in_a_small_pocket_is_drawn_by_the_router() -> None:
    """Bench game (10 spots, seed 1, move 14): a lone spot in a pocket, a loop enclosing nothing.

    The band pulls a loop round nothing nearly shut, leaving the new spot on it no
    room (1 px); the grid's own way, smoothed, is tried too when no band curve has the
    certificate's clearance, and draws it.
    """
    pic, a, m = _saved_case("loop_round_nothing.json", "7 → 7", "0+0+112+22.AB|AB")
    d = draw_move(pic, m, a)
    assert numbered_key(d.analysis.position)[:2] == numbered_key(apply_move(a.position, m))[:2]
    assert d.clearance >= CERTIFY_SHARE * RouteSettings().d0


def test_a_loop_in_a_pocket_is_drawn_round_with_room() -> None:
    """Bench game (10 spots, seed 1, move 14, as drawn later): a loop at a lone spot among curves.

    The crowding of the curves round the pocket outweighed the new region's pressure,
    and the band drew the loop 13 px across with its new spot touching the old one (its
    region's room 0.08 d0).  The loop is now tried as the largest circle the pocket
    holds, and its region keeps at least d0 of room: no region is thinner than d0 that
    was not before.
    """
    from sprouts_cli.picture.quality import region_rooms

    pic, a, m = _saved_case("loop_in_a_pocket.json", "7 → 7", "0+0+112+22.AB|AB")
    d0 = RouteSettings().d0
    d = draw_move(pic, m, a)
    assert numbered_key(d.analysis.position)[:2] == numbered_key(apply_move(a.position, m))[:2]
    thin_before = int((region_rooms(pic, a) < d0).sum())
    rooms = region_rooms(d.picture, d.analysis)
    assert len(rooms) == len(region_rooms(pic, a)) + 1
    assert int((rooms < d0).sum()) == thin_before


def test_round_loop_holds_what_the_route_holds() -> None:
    """The round seed of a loop encloses exactly the spots its route encloses, and keeps its room."""
    from sprouts_cli.picture.geometry import winding_number
    from sprouts_cli.picture.route_curve import ROUND_ROOM, _room_for_spots, round_loop

    pic, a, m = _saved_case("loop_in_a_pocket.json", "7 → 7", "0+0+112+22.AB|AB")
    plan = make_plan(pic, a, m, RouteSettings())
    x = plan.x
    others = [s for s in range(len(pic.spots)) if s != x]
    # a square round the spot, clear of everything: it holds nothing
    c = pic.spots[x]
    path = np.array([c, c + (8, 0), c + (8, 8), c + (0, 8), c])
    seed = round_loop(plan, path)
    assert seed is not None
    circle, leave, back = seed
    assert np.allclose(circle[0], c) and np.allclose(circle[-1], c)
    assert all(winding_number(circle, pic.spots[s]) == 0 for s in others)
    far = np.hypot(*(circle - c).T) > pic.sizes[x] + ROUND_ROOM * plan.settings.d0
    rest = np.delete(np.arange(len(pic.spots)), x)
    assert _room_for_spots(circle[far], plan.ob.segs, pic.spots[rest], pic.sizes[rest]).min() >= (
        ROUND_ROOM * plan.settings.d0
    )
    assert np.isclose(np.hypot(*leave), 1.0) and np.isclose(np.hypot(*back), 1.0)
    assert np.dot(leave, circle[1] - c) > 0 and np.dot(back, circle[-2] - c) > 0


def test_curves_beside_a_way_with_room_are_pushed_when_the_curve_keeps_too_little() -> None:
    """Bench game (10 spots, seed 4, move 22): the way has 13 px of room, the curve drawn keeps 2.2 px.

    The ghost is then the way itself, and no curve was closer to it than ``d0``, so
    none was pushed and the move went up to A.  When the ghost has ``d0`` of room,
    the curves within twice that are pushed, and the move is drawn by M.
    """
    from sprouts_cli.picture.room import draw

    pic, a, m = _saved_case("push_beside_a_way_with_room.json", "25 → 29 enclosing 6, 19", "ABC|ACB+AB|AB")
    r = draw(pic, m, ladder=("M",), analysis=a)
    assert r.drawn_by == "push"
    assert numbered_key(r.analysis.position)[:2] == numbered_key(apply_move(a.position, m))[:2]
    assert r.clearance >= CERTIFY_SHARE * RouteSettings().d0


def test_the_band_leaves_out_far_segments_without_changing_anything() -> None:
    """``Band.near``: the energy, its gradient and the caps are the kernels' own over all segments."""
    from sprouts_cli.picture.band import CUTOFF, Band, BandSettings, band_caps, band_energy
    from sprouts_cli.picture.route_curve import round_loop

    pic, a, m = _saved_case("loop_in_a_pocket.json", "7 → 7", "0+0+112+22.AB|AB")
    plan = make_plan(pic, a, m, RouteSettings())
    c = pic.spots[plan.x]
    seed = round_loop(plan, np.array([c, c + (8, 0), c + (8, 8), c + (0, 8), c]))
    assert seed is not None
    P = seed[0]
    band = Band(plan.ob, (plan.x, plan.x), BandSettings())
    assert len(band.near(P, CUTOFF)[0]) < len(band.segs)  # the test leaves something out
    fixed = np.zeros(len(P), dtype=np.bool_)
    fixed[[0, -1]] = True
    ob = plan.ob
    for dh, ignore in ((0.0, 17.0), (4.0, 0.0)):
        whole = band_energy(
            P, fixed, band.segs, band.seg_curve, band.n_curves, band.curve_ends, ob.spots, ob.sizes,
            ob.width, ob.height, band.ends, band.rho, ignore, band.st.D, dh, band.st.lam, band.st.fold,
        )  # fmt: skip
        E, G, least = band.energy(P, fixed, dh, ignore)
        assert np.isfinite(E)
        assert (E, least) == (whole[0], whole[2])
        assert np.array_equal(G, whole[1])
    caps = band_caps(
        P, band.segs, band.seg_curve, band.curve_ends, ob.spots, ob.sizes, ob.width, ob.height,
        band.ends, 2.0 * band.st.D,
    )  # fmt: skip
    assert np.array_equal(band.caps(P), caps)


def test_the_band_keeps_its_near_segments_and_gives_the_plain_numbers(monkeypatch) -> None:
    """``Band.near`` keeps a box's segments while the band stays in it: a band relaxed, and a push
    (bands of ghosts, units and tries), give the same numbers to the last bit as with the segments
    chosen afresh at every evaluation (``near_reference``), and the kept box is used again."""
    from sprouts_cli.picture.band import Band
    from sprouts_cli.picture.room import push_curves
    from sprouts_cli.picture.route_search import route

    pic, a, m = _saved_case("push_at_the_moves_end.json", "24 → 28 enclosing 7, 26", "0+122")
    settings = RouteSettings()
    narrow = RouteSettings(0.45 * settings.d0, settings.D, settings.lam, settings.relax, settings.d0)
    plan = make_plan(pic, a, m, narrow)
    path = route(plan)
    assert path is not None
    calls = {"near": 0, "chosen": 0}
    within = Band._within
    near = Band.near

    def counted_near(self, P, reach):
        calls["near"] += 1
        return near(self, P, reach)

    def counted_within(self, lo, hi, reach):
        calls["chosen"] += 1
        return within(self, lo, hi, reach)

    with monkeypatch.context() as mp:
        mp.setattr(Band, "near", counted_near)
        mp.setattr(Band, "_within", counted_within)
        kept = relax_route(plan, path)
        pushed = push_curves(pic, a, m, settings, None, [], work=float("inf"))
    assert calls["chosen"] < calls["near"] // 4  # the box was kept over most evaluations
    with monkeypatch.context() as mp:
        mp.setattr(Band, "near", Band.near_reference)
        plain = relax_route(plan, path)
        pushed_plain = push_curves(pic, a, m, settings, None, [], work=float("inf"))
    assert all(np.array_equal(x, y) for x, y in zip(kept, plain, strict=True) if isinstance(x, np.ndarray))
    assert kept[1] == plain[1]
    assert pushed is not None and pushed_plain is not None
    pairs = zip(pushed.picture.curves, pushed_plain.picture.curves, strict=True)
    assert all(np.array_equal(x.pieces, y.pieces) for x, y in pairs)
    assert np.array_equal(pushed.picture.spots, pushed_plain.picture.spots)


def test_a_move_that_leaves_a_sliver_is_tidied_by_rearranging() -> None:
    """Bench game (10 spots, seed 1, move 13): pushing curves aside drew the move but left a region
    0.77 d0 wide.  With R on the ladder the picture is then rearranged, and no region is thinner
    than d0; with the ladder M alone, the sliver stays (so the test sees the tidying)."""
    from sprouts_cli.picture.quality import region_rooms
    from sprouts_cli.picture.room import draw

    pic, a, m = _saved_case("push_leaves_a_sliver.json", "3 → 22", "0+0+0.22+112")
    d0 = RouteSettings().d0
    plain = draw(pic, m, ladder=("M",), analysis=a)
    assert region_rooms(plain.picture, plain.analysis).min() < d0
    tidy = draw(pic, m, analysis=a)
    assert numbered_key(tidy.analysis.position)[:2] == numbered_key(apply_move(a.position, m))[:2]
    assert tidy.drawn_by == plain.drawn_by
    assert region_rooms(tidy.picture, tidy.analysis).min() >= d0
    assert any(n.startswith("tidy: R") and " widened " in n for n in tidy.notes)


def test_pushing_gives_up_past_its_band_work_and_the_ladder_climbs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The push rung is bounded in work (``PUSH_WORK`` band point-evaluations and its searches'
    states): a move it draws within the bound is drawn the same with a bound just above what it
    used, and given up (with a note saying so) with one below it.  (The stop after a ghost that took
    most of the bound, ``PUSH_GHOST_SHARE``, is set aside: planned afresh, this ghost takes 70% of
    the whole push; ``test_room_budgets`` tests that stop.)"""
    from sprouts_cli.picture import room, work
    from sprouts_cli.picture.room import push_curves

    monkeypatch.setattr(room, "PUSH_GHOST_SHARE", 1.0)
    pic, a, m = _saved_case("push_at_the_moves_end.json", "24 → 28 enclosing 7, 26", "0+122")
    settings = RouteSettings()
    with work.metered(float("inf"), searches=True) as meter:
        # planned afresh here (the ladder gives the router's plan), the push runs past ``PUSH_WORK``
        whole = push_curves(pic, a, m, settings, None, [], work=float("inf"))
    assert whole is not None and meter.done > 0
    enough = push_curves(pic, a, m, settings, None, [], work=meter.done)
    assert enough is not None
    pairs = zip(enough.picture.curves, whole.picture.curves, strict=True)
    assert all(np.array_equal(x.pieces, y.pieces) for x, y in pairs)
    notes: list[str] = []
    assert push_curves(pic, a, m, settings, None, notes, work=meter.done // 2) is None
    assert any("given up" in n for n in notes)


def test_a_metered_block_raises_once_its_work_is_spent() -> None:
    from sprouts_cli.picture import work

    with work.metered(5) as meter:
        work.charge(3)
        with pytest.raises(work.OverBudget):
            work.charge(3)
    assert meter.done == 6
    work.charge(10**9)  # outside a metered block nothing is counted
