"""Z layouts, A and R (Alfeld §4.5–4.6): no picture operation ever changes the position."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from games import random_game_position, reachable

from sprouts_cli.engine import Position
from sprouts_cli.errors import PictureError
from sprouts_cli.picture import analyse, layout_position, relax
from sprouts_cli.picture.analyse import analyse_picture
from sprouts_cli.picture.layout import layout_map, triangulate
from sprouts_cli.picture.planar_map import realise
from sprouts_cli.picture.skeleton import Params, skeleton_from_picture


def _game(spots: int, seed: int) -> Position:
    return random_game_position(spots, random.Random(seed).randint(0, 3 * spots), seed)


# ------------------------------------------------------------------ realising positions


@pytest.mark.parametrize("spots", range(1, 16))
def test_realise_gives_the_position_back(spots):
    for seed in range(8):
        p = _game(spots, seed)
        full = realise(p)
        assert full.position().canonical() == p.canonical()
        assert not any(full.hidden), "a game's own position needs no dead material"
        fresh = realise(Position.from_string(p.canonical()))
        assert fresh.position().canonical() == p.canonical()


def test_realise_every_position_from_up_to_four_spots():
    for n in range(1, 5):
        for form in reachable(n):
            assert realise(Position.from_string(form)).position().canonical() == form


@pytest.mark.parametrize("text", ["ABC|ABC", "ABCD|ACBD", "AB|CD|ACBD"])
def test_undrawable_strings_are_refused_with_a_reason(text):
    from sprouts_cli.solve.children import read_land  # as written: the reader would turn ABC|ABC

    with pytest.raises(PictureError, match="cannot be drawn on the plane"):
        realise(read_land(text))


def test_heaps_have_no_picture():
    with pytest.raises(PictureError, match="nim heaps"):
        realise(Position.from_string("0*2+*3"))


# ------------------------------------------------------------------ triangulation and grid


def test_triangulation_is_simple_and_maximal():
    pmap = realise(_game(8, 3))
    tri, _ = triangulate(pmap)
    g = tri.graph
    assert g.number_of_edges() == 3 * g.number_of_nodes() - 6


def test_shift_method_draws_without_crossings():
    from sprouts_cli.picture.geometry import segments_cross
    from sprouts_cli.picture.layout import embed, grid_drawing

    pmap = realise(Position.from_string("0.1a1a.AB|AB"))
    prepared = embed(pmap)
    for outer in range(len(pmap.regions)):
        xy, tri = grid_drawing(pmap, outer, prepared)
        assert np.allclose(xy, np.round(xy))  # grid points
        edges = list(tri.graph.edges())
        for i, (a, b) in enumerate(edges):
            for c, d in edges[i + 1 :]:
                if len({a, b, c, d}) == 4:
                    assert not segments_cross(*xy[a], *xy[b], *xy[c], *xy[d])


def test_grid_layout_of_positions_from_up_to_three_spots():
    forms = [f for n in range(1, 4) for f in reachable(n)]
    for form in forms[::3]:  # a third of them here; all of 1–4 spots in the slow suite
        pmap = realise(Position.from_string(form))
        res = layout_map(pmap, form, 400, 300, jobs=1, polish=False, budget=0)
        assert analyse(res.picture).canonical() == form


def test_any_region_can_be_outside():
    p = Position.from_string("0.AB|AB")
    pmap = realise(p)
    for k in range(len(pmap.regions)):
        pic = layout_map(pmap, p.canonical(), 400, 300, outer=k, jobs=1, polish=False).picture
        a = analyse_picture(pic)
        assert a.position.canonical() == p.canonical()


# ------------------------------------------------------------------ polish, A and R


@pytest.mark.parametrize("spots, seed", [(3, 1), (5, 2), (8, 3), (12, 4), (15, 5)])
def test_polished_layout_reads_back_with_clearance(spots, seed):
    p = _game(spots, seed)
    pic = layout_position(p, 800, 600, jobs=1, budget=1)
    a = analyse_picture(pic)
    assert a.position.canonical() == p.canonical()
    assert a.min_clearance > 0
    assert pic.bounds_ok()


def test_layout_of_a_string_keeps_its_spots_numbered_first():
    pic = layout_position("0.1a1a", 600, 400, jobs=1, budget=1)
    assert analyse(pic).canonical() == Position.from_string("0.1a1a").canonical()


@pytest.mark.parametrize("mode", ["adjust", "rearrange"])
def test_a_and_r_keep_the_position_and_certify(mode):
    p = _game(7, 11)
    pic = layout_position(p, 700, 500, jobs=1, polish=False, budget=1)
    out = relax(pic, mode)
    a = analyse_picture(out)
    assert a.position.canonical() == p.canonical()
    assert a.min_clearance > 0 and out.bounds_ok()
    if mode == "adjust":
        assert np.allclose(out.spots, pic.spots)
    # pressing it again starts where the first ended
    again = relax(out, mode)
    assert analyse(again).canonical() == p.canonical()


# ------------------------------------------------------------------ the energy


def _skeleton():
    p = _game(6, 2)
    pic = layout_position(p, 600, 400, jobs=1, polish=False, budget=1)
    sk = skeleton_from_picture(pic, analyse_picture(pic), 20.0)
    sk.sizes[:] = 1.0
    return sk


@pytest.mark.parametrize("term", range(2, 7))
def test_gradient_matches_finite_differences(term):
    sk = _skeleton()
    full = Params().array()
    par = np.zeros(7)
    par[:2] = full[:2]
    par[term] = full[term]
    if term == 2:
        par[3] = 1.0  # crowding with length
    rng = np.random.default_rng(term)
    P = sk.P + rng.normal(0, 0.3, sk.P.shape)
    E, G = sk.energy(P, par)
    assert math.isfinite(E)
    h = 1e-6
    for i in rng.choice(len(P), size=min(25, len(P)), replace=False):
        for k in range(2):
            Q = P.copy()
            Q[i, k] += h
            e1, _ = sk.energy(Q, par)
            Q[i, k] -= 2 * h
            e2, _ = sk.energy(Q, par)
            assert (e1 - e2) / (2 * h) == pytest.approx(G[i, k], rel=1e-4, abs=1e-5)


def test_energy_kernel_runs_as_plain_python():
    from sprouts_cli.picture.relax_kernels import energy_gradient, pred_caps

    sk = _skeleton()
    par = Params().array()
    args = (
        sk.P, sk.n_spots, sk.sizes, sk.segs, sk.pt_chain, sk.pt_pos, sk.seg_chain, sk.seg_pos,
        sk.chain_len, 4, sk.bend, sk.spread, sk.walk_idx, sk.walk_off, sk.walk_region, sk.region_w,
        sk.region_base, sk.width, sk.height, par,
    )  # fmt: skip
    E1, G1 = energy_gradient(*args)
    E2, G2 = energy_gradient.py_func(*args)
    assert pytest.approx(E2) == E1 and np.allclose(G1, G2)
    c1 = pred_caps(sk.P, sk.n_spots, sk.sizes, sk.segs, sk.width, sk.height, 120.0)
    c2 = pred_caps.py_func(sk.P, sk.n_spots, sk.sizes, sk.segs, sk.width, sk.height, 120.0)
    assert np.allclose(c1, c2)


def test_capped_steps_never_cross():
    from sprouts_cli.picture.relax_kernels import polylines_cross

    sk = _skeleton()
    rng = np.random.default_rng(5)
    for _ in range(30):
        caps = sk.caps(sk.P)
        step = rng.normal(0, 1, sk.P.shape)
        step *= (caps / np.maximum(np.hypot(*step.T), 1e-12))[:, None] * 0.999
        sk.P = sk.P + step
        assert not polylines_cross(sk.P, sk.segs)


# ------------------------------------------------------------------ exhaustive (slow)


@pytest.mark.slow
def test_layout_every_position_from_up_to_four_spots():
    for n in range(1, 5):
        for form in reachable(n):
            pic = layout_position(form, 500, 400, jobs=1, budget=1)
            a = analyse_picture(pic)
            assert a.position.canonical() == form and a.min_clearance > 0


@pytest.mark.slow
@pytest.mark.parametrize("spots", range(3, 16))
def test_layout_random_games(spots):
    for seed in range(4):
        p = _game(spots, seed)
        for src in (p, Position.from_string(p.canonical())):
            pic = layout_position(src, 800, 600, jobs=1, budget=1)
            a = analyse_picture(pic)
            assert a.position.canonical() == p.canonical() and a.min_clearance > 0 and pic.bounds_ok()
            for mode in ("adjust", "rearrange"):
                out = relax(pic, mode)
                b = analyse_picture(out)
                assert b.position.canonical() == p.canonical() and b.min_clearance > 0 and out.bounds_ok()


def test_a_game_position_keeps_its_spot_numbers():
    p = _game(9, 8)
    pic = layout_position(p, 700, 500, jobs=1, budget=1)
    assert len(pic.spots) == len(p.lives)
    assert pic.lives() == p.lives
    back = analyse(pic)
    assert back.canonical() == p.canonical()
    assert {frozenset(b) for r in back.regions for b in r} == {frozenset(b) for r in p.regions for b in r}


def test_a_fresh_layout_tries_further_outside_regions_until_its_work_budget_is_spent() -> None:
    """``layout_map``'s budget is polish work (point-steps), not seconds: one layout's work lets
    exactly one region be tried, a unit more lets a second one be, 0 tries them all; and the
    picture kept is the same however loaded the machine is."""
    from sprouts_cli.picture.layout import _ordered

    p = Position.from_string("0.AB|AB.CD|CD")
    pmap = realise(p)
    regions = len(_ordered(pmap, None))
    assert regions >= 3

    def tried(budget: float) -> tuple[list[int], object]:
        seen: list[int] = []
        got = layout_map(
            pmap, p.canonical(), 500, 400, jobs=1, budget=budget, enough=math.inf,
            progress=lambda k, _total: seen.append(k),
        )  # fmt: skip
        return seen, got

    everything, _ = tried(0)
    assert len(everything) == regions
    one, first = tried(1)
    assert len(one) == 1 and first.work > 1
    assert len(tried(first.work)[0]) == 1
    assert len(tried(first.work + 1)[0]) == 2
    again = tried(1)[1]
    assert np.array_equal(again.picture.spots, first.picture.spots)


def test_the_layout_commands_budget_is_the_layouts_own_default() -> None:
    from sprouts_cli.cli import picture as cli_picture
    from sprouts_cli.picture import layout

    assert cli_picture.LAYOUT_WORK == layout.LAYOUT_WORK
    assert layout.layout_map.__defaults__ is not None and layout.LAYOUT_WORK in layout.layout_map.__defaults__
