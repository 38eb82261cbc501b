"""Picture → position (Alfeld §2.2–2.3): certificates, rotation, faces, nesting, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from picture_helpers import picture, triangle_with_seed

from sprouts_cli.engine import Position
from sprouts_cli.engine.position import EulerCounts
from sprouts_cli.errors import GameFileError, PictureError
from sprouts_cli.picture import analyse, load_game, save_game
from sprouts_cli.picture.analyse import analyse_picture, drawing_counts
from sprouts_cli.picture.certify import certify, hodograph_cone, pointed
from sprouts_cli.picture.gamefile import game_from_json, game_to_json
from sprouts_cli.picture.model import Curve, Picture
from sprouts_cli.picture.spline import bezier_points, de_casteljau_split, interpolate_clamped, npl_bound


def test_triangle_with_a_seed_inside():
    a = analyse_picture(triangle_with_seed())
    assert a.position.canonical() == Position.from_string("0.ABC|ACB").canonical()
    assert a.min_clearance > 0
    # the outside holds the triangle's outer cycle, the inner face holds the seed
    assert a.position.regions[0] == ((1, 0, 2),) or len(a.position.regions[0]) == 1
    assert (3,) in a.position.regions[1]


def test_seed_outside_goes_to_outside_region():
    pic = picture([(100, 100), (200, 100), (150, 200), (350, 350)], [(0, 1, []), (1, 2, []), (2, 0, [])])
    assert analyse(pic).canonical() == Position.from_string("0.ABC|ACB").canonical()
    pos = analyse(pic)
    outside = [r for r in pos.regions if (3,) in r]
    assert len(outside) == 1 and len(outside[0]) == 2


def test_nested_loops_give_nested_regions():
    # a loop 0-1 (two curves) inside a triangle 2-3-4
    spots = [(180, 180), (220, 180), (50, 50), (350, 50), (200, 350)]
    curves = [(0, 1, [(200, 160)]), (1, 0, [(200, 200)]), (2, 3, []), (3, 4, []), (4, 2, [])]
    pos = analyse(picture(spots, curves))
    assert pos.canonical() == Position.from_string("AB.CDE|AB|CED").canonical()


def test_crossing_curves_are_refused():
    pic = picture([(50, 50), (350, 350), (50, 350), (350, 50)], [(0, 1, []), (2, 3, [])])
    with pytest.raises(PictureError, match=r"curve 1 \(spots 1–2\) and curve 2 \(spots 3–4\) cross"):
        analyse(pic)


def test_curve_through_a_spot_is_refused():
    pic = picture([(50, 200), (350, 200), (200, 200)], [(0, 1, [])])
    with pytest.raises(PictureError, match="passes through spot 3"):
        analyse(pic)


def test_fourth_curve_at_a_spot_is_refused():
    spots = [(200, 200), (100, 100), (300, 100), (100, 300), (300, 300)]
    pic = picture(spots, [(0, k, []) for k in range(1, 5)])
    with pytest.raises(PictureError, match="spot 1 has 4 curves"):
        analyse(pic)


def test_curves_leaving_a_spot_along_each_other_are_refused():
    pic = picture([(100, 200), (300, 200), (200, 100)], [(0, 1, []), (0, 2, [(150, 200)])])
    with pytest.raises(PictureError, match="leave spot 1 in the same direction"):
        analyse(pic)


def test_curve_must_end_at_its_spots():
    pic = triangle_with_seed()
    pic.curves[0].pieces[0, 0] += (5, 0)
    with pytest.raises(PictureError, match="should start at spot 1"):
        analyse(pic)


def test_npl_bound_holds_and_split_keeps_shape():
    rng = np.random.default_rng(3)
    for _ in range(50):
        piece = rng.uniform(0, 100, (4, 2))
        eps = npl_bound(piece)
        t = np.linspace(0, 1, 201)
        pts = bezier_points(piece, t)
        # distance from each curve point to the control polygon is at most eps
        from sprouts_cli.picture.geometry import point_segment_distance

        for p in pts[::10]:
            d = min(point_segment_distance(p[0], p[1], *piece[k], *piece[k + 1]) for k in range(3))
            assert d <= eps + 1e-9
        a, b = de_casteljau_split(piece, 0.3)
        assert np.allclose(bezier_points(a, [1.0]), bezier_points(piece, [0.3]))
        assert np.allclose(bezier_points(b, [0.5]), bezier_points(piece, [0.65]))


def test_hodograph_cone_contains_the_piece():
    piece = np.array([[0, 0], [10, 2], [20, 10], [25, 30]], dtype=float)
    start, width = hodograph_cone(piece, True)
    for p in bezier_points(piece, np.linspace(0.01, 1, 50)):
        ang = np.arctan2(p[1], p[0])
        assert (ang - start) % (2 * np.pi) <= width + 1e-9


def test_spline_is_c2_and_goes_through_points():
    pts = np.array([[0, 0], [50, 20], [100, -10], [160, 30], [200, 0]], dtype=float)
    pieces, h = interpolate_clamped(pts)
    assert np.allclose(pieces[:, 0], pts[:-1]) and np.allclose(pieces[-1, 3], pts[-1])
    for k in range(len(pieces) - 1):
        p, q = pieces[k], pieces[k + 1]
        d1 = 3 * (p[3] - p[2]) / h[k]
        e1 = 3 * (q[1] - q[0]) / h[k + 1]
        assert np.allclose(d1, e1)
        d2 = 6 * (p[3] - 2 * p[2] + p[1]) / h[k] ** 2
        e2 = 6 * (q[2] - 2 * q[1] + q[0]) / h[k + 1] ** 2
        assert np.allclose(d2, e2)


def test_kernels_agree_with_plain_python():
    from sprouts_cli.picture import geometry as g

    rng = np.random.default_rng(7)
    for _ in range(200):
        v = rng.uniform(0, 10, 8)
        assert g.segment_distance(*v) == pytest.approx(g.segment_distance.py_func(*v))
        assert g.segments_cross(*v) == g.segments_cross.py_func(*v)
    cert = certify(triangle_with_seed())
    assert cert.min_clearance > 0


def test_counts_satisfy_euler():
    for pic in (triangle_with_seed(),):
        c = drawing_counts(pic)
        assert c.holds and c.parts == pic.parts
        assert c == EulerCounts(points=4, regions=1, lines=3, parts=2)


# ------------------------------------------------------------------ saved games


def test_save_and_load_round_trip(tmp_path):
    pic = triangle_with_seed()
    path = tmp_path / "g.json"
    save_game(path, pic, position="0.ABC|ACB")
    back = load_game(path)
    assert analyse(back).canonical() == analyse(pic).canonical()
    assert np.allclose(back.spots, pic.spots)
    obj = json.loads(path.read_text())
    assert obj["format"] == "sprouts-game" and obj["game"]["spots"][0]["deg"] == 2
    assert not list(tmp_path.glob(".*.tmp"))


def _browser_obj() -> dict:
    return game_to_json(triangle_with_seed())


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda o: o.update(format="chess"), "format: expected 'sprouts-game'"),
        (lambda o: o.update(version=7), "version: expected 1 or 2"),
        (lambda o: o["game"].pop("W0"), "game.W0: missing"),
        (lambda o: o["game"]["spots"][1].pop("x"), r"game.spots\[1\] \(spot 2\): missing 'x'"),
        (lambda o: o["game"]["edges"][0].update(b=9), r"game.edges\[0\] \(curve 1\).b: 9 is not a spot"),
        (lambda o: o["game"]["edges"][1]["pieces"][0].pop(), r"pieces\[0\]: expected four control points"),
        (lambda o: o["game"]["spots"][0].update(deg=3), r"deg \(spot 1\): says 3 but 2 curves end there"),
        (lambda o: o["game"]["spots"][0].update(y="x"), "expected a number"),
        (lambda o: o["game"].update(rules="chess"), "game.rules: expected 'normal' or 'misere'"),
    ],
)
def test_malformed_files_say_what_and_where(tmp_path, mutate, message):
    obj = _browser_obj()
    mutate(obj)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(obj))
    with pytest.raises(GameFileError, match=message):
        load_game(path)


def test_crossing_curves_in_a_file_are_refused(tmp_path):
    pic = picture([(50, 50), (350, 350), (50, 350), (350, 50)], [(0, 1, []), (2, 3, [])])
    path = tmp_path / "x.json"
    save_game(path, pic)
    with pytest.raises(GameFileError, match=r"x.json: curve 1 .* cross"):
        load_game(path)


def test_not_json_is_refused(tmp_path):
    path = tmp_path / "n.json"
    path.write_text("{ nope")
    with pytest.raises(GameFileError, match="line 1, column 3: not JSON"):
        load_game(path)


def test_unknown_fields_are_kept(tmp_path):
    obj = _browser_obj()
    obj["route"] = {"d0": 6, "D": 40}
    obj["history"] = [{"moves": 0}]
    obj["game"]["added"] = 2
    pic = game_from_json(obj)
    again = game_to_json(pic)
    assert again["route"] == {"d0": 6, "D": 40} and again["history"] == [{"moves": 0}]
    assert again["game"]["added"] == 2


@pytest.mark.parametrize(
    "spots, curves, message",
    [
        (
            [(50, 50), (350, 350), (50, 350), (350, 50)],
            [(0, 1, []), (2, 3, [])],
            r"curve 1 .* and curve 2 .* cross",
        ),
        ([(50, 200), (350, 200), (200, 200)], [(0, 1, [])], "curve 1 .* passes through spot 3"),
        (
            [(200, 200), (100, 100), (300, 100), (100, 300), (300, 300)],
            [(0, k, []) for k in range(1, 5)],
            r"\(spot 1\): has 4 curves; a spot takes at most three",
        ),
    ],
)
def test_reader_refuses_bad_pictures_in_files(tmp_path, spots, curves, message):
    obj = game_to_json(picture(spots, curves))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(obj))
    with pytest.raises(GameFileError, match=message):
        load_game(path)


def test_a_good_file_is_not_overwritten_by_a_failed_save(tmp_path):
    path = tmp_path / "g.json"
    save_game(path, triangle_with_seed())
    before = path.read_bytes()
    with pytest.raises(PictureError, match="not saved"):
        save_game(path, triangle_with_seed(), position="0*7")
    assert path.read_bytes() == before


def test_certificate_kernels_agree_with_plain_python():
    from sprouts_cli.picture import geometry as g
    from sprouts_cli.picture.certify import _leg_arc, _leg_arrays
    from sprouts_cli.picture.model import MIN_CLEARANCE

    pic = load_game(Path(__file__).resolve().parents[1] / "positions" / "loop.json")
    cert = certify(pic)
    legs, eps, leg_piece, piece_curve, piece_seq, spot0, spot1, _ = _leg_arrays(pic, cert.sub)
    ca = np.array([c.a for c in pic.curves])
    cb = np.array([c.b for c in pic.curves])
    near = pic.sizes * 2 + MIN_CLEARANCE
    arc = _leg_arc(legs, leg_piece, piece_curve)
    args = (legs, eps, leg_piece, piece_curve, piece_seq, spot0, spot1, ca, cb, pic.spots, near, arc, 8)
    fast, slow = g.leg_pair_check(*args), g.leg_pair_check.py_func(*args)
    assert fast[0] == pytest.approx(slow[0]) and fast[2] == slow[2] == 0
    args = (legs, eps, leg_piece, piece_curve, ca, cb, pic.spots, pic.sizes, 8)
    assert g.spot_leg_check(*args)[0] == pytest.approx(g.spot_leg_check.py_func(*args)[0])
    assert g.spot_spot_clearance(pic.spots, pic.sizes)[0] == pytest.approx(
        g.spot_spot_clearance.py_func(pic.spots, pic.sizes)[0]
    )


def tiny_loop_picture() -> Picture:
    """A straight curve with a loop 0.05 px across in its middle (a cubic whose control polygon crosses)."""
    spots = np.array([(100.0, 200.0), (300.0, 200.0)])
    loop = np.array([(0.0, 0.0), (3.0, -1.0), (-2.0, -1.0), (1.0, 0.0)]) * 0.02 + (200.0, 200.0)
    pieces = np.array(
        [
            [(100.0, 200.0), (140.0, 200.0), (160.0, 200.0), tuple(loop[0])],
            loop,
            [tuple(loop[3]), (240.0, 200.0), (260.0, 200.0), (300.0, 200.0)],
        ]
    )
    return Picture(400, 400, spots, [Curve(0, 1, pieces, np.ones(3))])


def test_a_curve_that_crosses_itself_within_one_piece_is_refused():
    """A loop far smaller than the refinement tolerance lies inside one refined piece: no leg test sees it."""
    with pytest.raises(PictureError, match=r"curve 1 \(spots 1–2\) (touches or )?crosses itself"):
        certify(tiny_loop_picture())


def test_without_the_self_cone_test_a_tiny_loop_would_pass(monkeypatch):
    """The same picture is accepted when the cone test is switched off: the test above needs it."""
    import sprouts_cli.picture.certify as cert

    monkeypatch.setattr(cert, "_self_cone_failures", lambda sub: [])
    assert certify(tiny_loop_picture()).min_clearance > 0


def test_a_curve_that_winds_without_crossing_is_accepted():
    """An S bend turns through more than π over its length, yet never meets itself."""
    spots = [(50, 200), (350, 200)]
    pic = picture(spots, [(0, 1, [(100, 300), (200, 300), (200, 100), (300, 100)])])
    assert certify(pic).min_clearance > 0


def test_pointed_cones():
    rows = [[(1, 0), (1, 1), (0, 1)], [(1, 0), (-1, 0.5), (-1, -0.5)], [(0, 0), (0, 0), (0, 0)]]
    rows = np.array(rows, dtype=float)
    assert pointed(rows).tolist() == [True, False, False]


def _random_legs(seed: int, n_curves: int, per_curve: int, eps_scale: float):
    """Legs of random curves (chains of short legs in a 300×200 box), with pieces of three legs,
    as ``certify._leg_arrays`` lays them out: spots at the curves' ends, NPL bounds per piece."""
    rng = np.random.default_rng(seed)
    legs, piece_of_leg, curve_of_piece, seq, spot0, spot1 = [], [], [], [], [], []
    spots = rng.uniform((0, 0), (300, 200), size=(n_curves + 1, 2))
    ca = np.arange(n_curves, dtype=np.int64)
    cb = np.arange(1, n_curves + 1, dtype=np.int64)
    for c in range(n_curves):
        steps = rng.normal(size=(3 * per_curve, 2)) * 6.0
        pts = np.concatenate([[spots[c]], spots[c] + np.cumsum(steps, axis=0)])
        pts[-1] = spots[c + 1]
        for k in range(per_curve):
            piece = len(curve_of_piece)
            curve_of_piece.append(c)
            seq.append(k)
            spot0.append(c if k == 0 else (c + 1 if k == per_curve - 1 else -1))
            spot1.append(c + 1 if k == per_curve - 1 else -1)
            for leg in range(3):
                a, b = pts[3 * k + leg], pts[3 * k + leg + 1]
                legs.append((*a, *b))
                piece_of_leg.append(piece)
    legs_a = np.array(legs, dtype=float)
    eps = np.repeat(rng.uniform(0, eps_scale, size=len(curve_of_piece)), 3)
    leg_piece = np.array(piece_of_leg, dtype=np.int64)
    piece_curve = np.array(curve_of_piece, dtype=np.int64)
    arc = np.concatenate([[0.0], np.cumsum(np.hypot(*(legs_a[:, 2:] - legs_a[:, :2]).T))])[:-1]
    near = np.full(len(spots), 4.0)
    return (
        legs_a, eps, leg_piece, piece_curve, np.array(seq, dtype=np.int64), np.array(spot0, dtype=np.int64),
        np.array(spot1, dtype=np.int64), ca, cb, spots, near, arc,
    )  # fmt: skip


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_the_sweep_over_legs_gives_every_pairs_answer(seed: int, fast: bool) -> None:
    """``leg_pair_check`` (a sweep along x) against ``leg_pair_check_all_pairs`` (every pair), on
    random tangles of curves: the same least clearance, the same number of failed pairs and
    the same first failed pairs (by index), compiled and as plain Python, with few fails
    and with more than are returned."""
    from sprouts_cli.picture import geometry as g

    for eps_scale, max_fail in ((0.05, 64), (3.0, 8), (3.0, 4096)):
        args = (*_random_legs(seed, 3 + seed, 8 + 4 * seed, eps_scale), max_fail)
        sweep = g.leg_pair_check if fast else g.leg_pair_check.py_func
        best, fails, nf, _ = sweep(*args)
        best_r, fails_r, nf_r = g.leg_pair_check_all_pairs.py_func(*args)
        assert best == best_r and nf == nf_r
        k = min(nf, max_fail)
        assert np.array_equal(fails[:k], fails_r[:k])


def test_piece_lengths_are_those_of_the_sampled_polylines() -> None:
    from sprouts_cli.picture.fit import piece_lengths

    rng = np.random.default_rng(3)
    pieces = rng.normal(size=(40, 4, 2)) * 30.0
    ts = np.linspace(0.0, 1.0, 17)
    one_by_one = [np.hypot(*np.diff(bezier_points(p, ts), axis=0).T).sum() for p in pieces]
    assert np.allclose(piece_lengths(pieces), one_by_one, rtol=1e-12, atol=1e-9)
    assert len(piece_lengths(np.zeros((0, 4, 2)))) == 0


def _hairpin_legs(far: float, gap: float, step: float):
    """A curve that runs out to ``x = -far`` and back ``gap`` px above itself (a fit that overshot,
    refined into legs ``step`` px long, one piece a leg), and a short curve 5 px beside its ends."""
    out = [(-x, 0.0) for x in np.arange(0.0, far + step / 2, step)]
    back = [(-x, gap) for x in np.arange(far, -step / 2, -step)]
    pts = np.array(out + back)
    short = np.array([(-60.0 + 10 * k, 5.0) for k in range(6)])
    legs = np.concatenate([np.hstack([pts[:-1], pts[1:]]), np.hstack([short[:-1], short[1:]])])
    n0, n1 = len(pts) - 1, len(short) - 1
    leg_piece = np.arange(n0 + n1, dtype=np.int64)
    piece_curve = np.array([0] * n0 + [1] * n1, dtype=np.int64)
    piece_seq = np.concatenate([np.arange(n0), np.arange(n1)]).astype(np.int64)
    spot0 = np.full(n0 + n1, -1, dtype=np.int64)
    spot1 = np.full(n0 + n1, -1, dtype=np.int64)
    spot0[0], spot1[n0 - 1], spot0[n0], spot1[n0 + n1 - 1] = 0, 1, 2, 3
    spots = np.array([pts[0], pts[-1], short[0], short[-1]])
    lengths = np.hypot(*(legs[:, 2:] - legs[:, :2]).T)
    arc = np.concatenate([np.cumsum(np.r_[0.0, lengths[: n0 - 1]]), np.cumsum(np.r_[0.0, lengths[n0:-1]])])
    return (
        legs, np.full(n0 + n1, 0.05), leg_piece, piece_curve, piece_seq, spot0, spot1,
        np.array([0, 2], dtype=np.int64), np.array([1, 3], dtype=np.int64), spots, np.full(4, 4.0), arc,
    )  # fmt: skip


def test_a_curve_far_out_of_the_picture_is_swept_in_few_pairs() -> None:
    """A curve that runs a million px out and back (a smooth fit that overshot, in a 30-spot game's
    A) is swept first, its legs ordered by least x; the least clearance found among its own legs
    is the hairpin's width.  Swept against that, every one of its legs was paired with all those
    within that width in x (here about 600 pairs a leg; in the game, 800 million pairs and
    minutes for one certificate).  Each leg is now paired first only with those that could fail
    against it, and then on from there against the least clearance of all the near pairs: a
    few pairs a leg, and the answer of every pair."""
    from sprouts_cli.picture import geometry as g

    args = (*_hairpin_legs(1e6, 2e5, 1e3), 64)
    n = len(args[0])
    best, _, nf, visits = g.leg_pair_check(*args)
    best_r, _, nf_r = g.leg_pair_check_all_pairs(*args)
    assert best == best_r and nf == nf_r and 4.0 < best < 5.0
    assert visits <= 4 * n
    small = (*_hairpin_legs(1e4, 2e3, 1e2), 64)
    assert g.leg_pair_check.py_func(*small)[:3:2] == g.leg_pair_check_all_pairs.py_func(*small)[::2]


def test_two_pictures_of_one_position_give_the_random_player_one_move() -> None:
    """A game drawn move by move and its last position drawn afresh (Z) read back in different
    orders (of regions, boundaries and corners); for every seed the Random player's move gives
    the same numbered position from both, up to where dead boundaries go (``moves.standard_order``)."""
    import random

    from sprouts_cli.engine.moves import apply_move, random_move, random_move_as_stored
    from sprouts_cli.engine.naming import numbered_key
    from sprouts_cli.engine.parts import clean
    from sprouts_cli.picture.layout import layout_position
    from sprouts_cli.picture.room import draw

    rng = random.Random(2)
    pic = layout_position(Position.start(5), 500, 400, jobs=1)
    a = analyse_picture(pic)
    for _ in range(4):
        r = draw(pic, random_move(a.position, rng), analysis=a)
        pic, a = r.picture, r.analysis
    p = a.position
    q = analyse_picture(layout_position(p, 500, 400, jobs=1)).position
    assert p.regions != q.regions and numbered_key(p) == numbered_key(q)

    def after(pos: Position, choose, seed: int) -> object:
        return numbered_key(clean(apply_move(pos, choose(pos, random.Random(seed)))))

    assert all(after(p, random_move, s) == after(q, random_move, s) for s in range(20))
    assert any(after(p, random_move_as_stored, s) != after(q, random_move_as_stored, s) for s in range(20))
