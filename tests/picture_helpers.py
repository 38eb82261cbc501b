"""Small pictures built by hand for the picture-layer tests."""

from __future__ import annotations

import numpy as np

from sprouts_cli.picture.model import Curve, Picture
from sprouts_cli.picture.spline import straight_pieces


def poly_curve(a: int, b: int, pts) -> Curve:
    pieces, h = straight_pieces(np.asarray(pts, dtype=float))
    return Curve(a, b, pieces, h)


def picture(spots, curves, width: float = 400, height: float = 400) -> Picture:
    """``curves`` as (a, b, [intermediate points]) with straight legs."""
    sp = np.asarray(spots, dtype=float).reshape(-1, 2)
    out = [poly_curve(a, b, [sp[a], *mids, sp[b]]) for a, b, mids in curves]
    return Picture(width, height, sp, out)


def triangle_with_seed() -> Picture:
    return picture(
        [(100, 100), (200, 100), (150, 200), (150, 140)],
        [(0, 1, []), (1, 2, []), (2, 0, [])],
    )
