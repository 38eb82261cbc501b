"""The skeleton A and R move: polylines that read back as the picture's position, dense only where
they must be (``skeleton.skeleton_from_picture``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sprouts_cli.picture import analyse_picture
from sprouts_cli.picture.gamefile import load_game
from sprouts_cli.picture.relax import relax
from sprouts_cli.picture.skeleton import (
    _DENSEST,
    END_MARGIN,
    Params,
    _clear_of_ends,
    _curve_points,
    picture_corners,
    skeleton_from_picture,
    skeleton_picture,
)

DATA = Path(__file__).parent / "data" / "router"
#: Bench game 20 spots, seed 2 (another game than the bench's), after move 31: two curves leave
#: spot 51 (0-based 50) so nearly together that their polylines at the skeleton's spacing cross.
NEAR = "two_curves_leave_a_spot_nearly_together.json"


def _points_at(pic, share: float, clear: bool = False) -> int:
    """The skeleton's points at ``share`` of the spacing (``clear``: none in an end spot's disc)."""
    spacing = Params().spacing

    def inner(c) -> int:
        pts = _curve_points(c, spacing * share)
        if clear:
            pts = _clear_of_ends(pts, pic.sizes[c.a] + END_MARGIN, pic.sizes[c.b] + END_MARGIN)
        return len(pts) - 2

    return len(pic.spots) + sum(inner(c) for c in pic.curves)


def test_only_the_curves_whose_polylines_cross_get_dense_points() -> None:
    pic = load_game(DATA / NEAR)
    a = analyse_picture(pic)
    sk = skeleton_from_picture(pic, a, Params().spacing, picture_corners(pic))
    assert analyse_picture(skeleton_picture(sk, smooth=False)).position.canonical() == a.position.canonical()
    plain, densest = _points_at(pic, 1.0), _points_at(pic, _DENSEST)
    assert densest > 5 * plain  # the whole picture at the densest spacing: what was made before
    assert len(sk.P) < plain + 0.05 * (densest - plain)


def test_a_picture_the_plain_spacing_follows_keeps_it() -> None:
    pic = load_game(DATA / "push_leaves_a_thin_lens.json")
    a = analyse_picture(pic)
    assert len(pic.curves) > 50
    sk = skeleton_from_picture(pic, a, Params().spacing, picture_corners(pic))
    assert len(sk.P) == _points_at(pic, 1.0, clear=True) < _points_at(pic, 1.0)


def test_no_inner_point_lies_in_the_disc_of_its_curves_end_spot() -> None:
    """A leg from such a point would pass through the disc, and the step caps would hold the spot."""
    pic = load_game(DATA / "push_leaves_a_thin_lens.json")
    sk = skeleton_from_picture(pic, analyse_picture(pic), Params().spacing, picture_corners(pic))
    for pts, (s, t) in zip(sk.curve_pts, sk.curve_ab, strict=True):
        inner = sk.P[pts[1:-1]]
        for end in (s, t):
            assert (np.hypot(*(inner - sk.P[end]).T) > sk.sizes[end] + END_MARGIN).all()


def test_r_relaxes_the_picture_with_the_nearly_joined_curves() -> None:
    pic = load_game(DATA / NEAR)
    position = analyse_picture(pic).position.canonical()
    out = relax(pic, "rearrange", work=20_000)
    assert analyse_picture(out).position.canonical() == position
