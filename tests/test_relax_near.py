"""R moving only some curves evaluates only what lies near them (``Skeleton.near``,
``relax_kernels.energy_gradient_near`` and ``pred_caps_near``): the same gradient and caps at
the moving points as the whole picture's evaluation (the reference, ``energy_gradient`` and
``pred_caps``), an energy that differs from the whole one by a constant, and so the same R."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest

from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.picture import analyse_picture
from sprouts_cli.picture.gamefile import load_game
from sprouts_cli.picture.model import COMFORT
from sprouts_cli.picture.quality import region_rooms
from sprouts_cli.picture.relax import AR_BEND, descend, held_open
from sprouts_cli.picture.relax_kernels import energy_gradient_near, pred_caps_near
from sprouts_cli.picture.room import HELD_THIN, _relax, curves_round
from sprouts_cli.picture.route_plan import RouteSettings
from sprouts_cli.picture.skeleton import NEAR_MARGIN, Params, Skeleton, picture_corners, skeleton_from_picture

DATA = Path(__file__).parent / "data" / "router"
PICTURES = ["push_leaves_a_thin_lens.json", "push_leaves_a_sliver.json", "loop_in_a_pocket.json"]


def _skeleton(name: str, thinnest: int) -> tuple[Skeleton, Params, set[int]]:
    """The picture's skeleton with the curves round its ``thinnest`` thinnest regions moving."""
    pic = load_game(DATA / name)
    a = analyse_picture(pic)
    params = Params(w_bend=AR_BEND * COMFORT * COMFORT)
    sk = skeleton_from_picture(pic, a, params.spacing, picture_corners(pic))
    rooms = region_rooms(pic, a, px=2.0)
    moving = curves_round(a, [int(i) for i in np.argsort(rooms)[:thinnest]])
    sk.moving = frozenset(moving)
    sk = held_open(sk, {int(np.argmin(rooms)): HELD_THIN})
    return sk, params, moving


def _agree(sk: Skeleton, params: Params, P0: np.ndarray, P: np.ndarray) -> None:
    par = params.array()
    moves = ~sk.still()
    near = sk.near(P, params.cutoff)
    assert near is not None
    E0, _ = sk.energy(P0, par)
    e0, _ = sk.energy_near(P0, par, sk.near(P0, params.cutoff))
    E, G = sk.energy(P, par)
    e, g = sk.energy_near(P, par, near)
    assert np.allclose(G[moves], g[moves], rtol=1e-9, atol=1e-9)
    assert abs((E - E0) - (e - e0)) <= 1e-9 * max(1.0, abs(E - E0))
    assert np.array_equal(sk.caps(P)[moves], sk.caps_near(P, near)[moves])


@pytest.mark.parametrize("name", PICTURES)
def test_the_near_terms_agree_with_the_whole_pictures_at_the_moving_points(name: str) -> None:
    sk, params, _ = _skeleton(name, 2)
    moves = ~sk.still()
    assert 0 < moves.sum() < len(sk.P)
    near = sk.near(sk.P, params.cutoff)
    assert len(near.segs) < len(sk.segs) and len(near.pts) < len(sk.P)  # less is looked at
    rng = np.random.default_rng(5)
    P0 = sk.P.copy()
    for spread in (0.5, 3.0):
        P = P0.copy()
        P[moves] += rng.uniform(-spread, spread, (int(moves.sum()), 2))
        _agree(sk, params, P0, P)
    # the compiled kernels and their plain Python agree
    args = (P, sk.n_spots, sk.sizes, near.pts, near.segs, near.moves, sk.pt_chain, sk.pt_pos,
            near.seg_chain, near.seg_pos, sk.chain_len, 4, near.bend, near.spread, near.walk_idx,
            near.walk_off, near.walk_region, near.region_w, sk.region_base, sk.width, sk.height,
            params.array())  # fmt: skip
    e1, g1 = energy_gradient_near(*args)
    e2, g2 = energy_gradient_near.py_func(*args)
    assert np.isclose(e1, e2, rtol=1e-12) and np.allclose(g1, g2, rtol=1e-12, atol=1e-12)
    cargs = (P, sk.n_spots, sk.sizes, near.pts, near.segs, near.moves, sk.width, sk.height, 120.0)
    assert np.array_equal(pred_caps_near(*cargs), pred_caps_near.py_func(*cargs))


def test_a_neighbourhood_goes_stale_when_a_moving_point_leaves_its_margin_and_is_made_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sk, params, _ = _skeleton(PICTURES[0], 1)
    moves = ~sk.still()
    near = sk.near(sk.P, params.cutoff)
    P = sk.P.copy()
    k = int(np.nonzero(moves)[0][0])
    P[k, 0] += 0.9 * NEAR_MARGIN
    assert not near.stale(P)
    P[k, 0] += 0.2 * NEAR_MARGIN
    assert near.stale(P)
    # where a descent took them (made again after each respacing): the terms agree there too
    made = []
    real = Skeleton.near

    def counted(self: Skeleton, P: np.ndarray, cutoff: float) -> object:
        made.append(1)
        return real(self, P, cutoff)

    monkeypatch.setattr(Skeleton, "near", counted)
    out = descend(sk, "rearrange", params, max_steps=300, seconds=math.inf)
    assert len(made) > 1
    Q = out.P.copy()
    Q[~out.still()] += np.random.default_rng(3).uniform(-1.0, 1.0, (int((~out.still()).sum()), 2))
    _agree(out, params, out.P, Q)


@pytest.mark.parametrize("name", PICTURES[1:2])
def test_r_round_a_thin_region_draws_the_picture_the_whole_evaluation_draws(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R with only the near terms against R with the whole picture's energy and caps (no
    ``near``): the same steps, so the same picture to within rounding, reading back alike."""
    pic = load_game(DATA / name)
    a = analyse_picture(pic)
    d0 = RouteSettings().d0
    rooms = region_rooms(pic, a, px=2.0)
    thin = int(np.argmin(rooms))
    moving = curves_round(a, [thin])
    hold = {thin: HELD_THIN}
    fast = _relax(pic, "rearrange", d0, hold_open=hold, moving=moving)
    monkeypatch.setattr(Skeleton, "near", lambda self, P, cutoff: None)
    whole = _relax(pic, "rearrange", d0, hold_open=hold, moving=moving)
    assert numbered_key(analyse_picture(fast).position)[:2] == numbered_key(a.position)[:2]
    assert np.allclose(fast.spots, whole.spots, atol=1e-6)
    for c, w in zip(fast.curves, whole.curves, strict=True):
        assert c.pieces.shape == w.pieces.shape and np.allclose(c.pieces, w.pieces, atol=1e-6)


def test_a_skeleton_infinite_only_among_points_that_stay_is_refused_as_the_whole_evaluation_does() -> None:
    """The near terms leave out the terms among points that stay; one of them infinite (a point
    that stays lying on a segment that stays) makes the whole energy infinite, and the descent
    refuses the skeleton as it does without ``moving``."""
    from sprouts_cli.errors import PictureError

    sk, params, _ = _skeleton(PICTURES[0], 1)
    still = sk.still()
    near = sk.near(sk.P, params.cutoff)
    far = [k for k, (a, b) in enumerate(sk.segs.tolist()) if still[a] and still[b] and a >= sk.n_spots]
    near_segs = {tuple(s) for s in near.segs.tolist()}
    k = next(k for k in far if tuple(sk.segs[k].tolist()) not in near_segs)
    a, b = sk.segs[k]
    i = next(
        int(i)
        for i in np.nonzero(still)[0]
        if i >= sk.n_spots and i not in near.pts and sk.pt_chain[i, 0] != sk.seg_chain[k]
    )
    sk.P[i] = 0.5 * (sk.P[a] + sk.P[b])  # on the segment: the whole energy is infinite
    par = params.array()
    assert not np.isfinite(sk.energy(sk.P, par)[0])
    assert np.isfinite(sk.energy_near(sk.P, par, sk.near(sk.P, params.cutoff))[0])
    with pytest.raises(PictureError, match="infinite energy"):
        descend(sk, "rearrange", params, max_steps=10, seconds=math.inf)


def test_r_round_the_thin_lens_takes_the_steps_the_whole_evaluation_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As above, for the descent's first 40 steps: at its end the lens's descent tries steps whose
    gain (1e-12) is below the rounding of the whole picture's energy (2e5), where the two
    evaluations can decide a step apart and stop one step apart."""
    sk, params, _ = _skeleton(PICTURES[0], 1)
    fast = descend(copy.deepcopy(sk), "rearrange", params, max_steps=40, seconds=math.inf)
    monkeypatch.setattr(Skeleton, "near", lambda self, P, cutoff: None)
    whole = descend(copy.deepcopy(sk), "rearrange", params, max_steps=40, seconds=math.inf)
    assert fast.steps == whole.steps == 40
    assert np.allclose(fast.P, whole.P, atol=1e-6)
