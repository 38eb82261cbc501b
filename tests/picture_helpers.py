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


def ring_with_a_gap() -> tuple:
    """A curve from spot 1 round spot 3 back to spot 2 beside spot 1, and the move from 3 to 4 outside.

    The only way out of the ring is the 2 px gap between the discs of its end spots.
    Returns the picture, its analysis and the move.
    """
    from sprouts_cli.engine.moves import Move
    from sprouts_cli.picture.analyse import analyse_picture

    pic = picture(
        [(200, 95), (200, 107), (200, 200), (380, 380)],
        [(0, 1, [(120, 60), (60, 200), (200, 330), (340, 200), (280, 60)])],
        400,
        400,
    )
    a = analyse_picture(pic)
    r = a.position.regions
    ri = next(i for i, reg in enumerate(r) if (2,) in reg and (3,) in reg)
    return pic, a, Move(ri, r[ri].index((2,)), 0, r[ri].index((3,)), 0)


def parity_grid(seed: int) -> tuple:
    """A random 19 x 14 grid (a quarter of its cells blocked, the corners free) and three rays
    with their crossing masks, for the router's parity search: (nx, ny, n_bits, free, cross)."""
    from sprouts_cli.picture import grid_planner as gp

    rng = np.random.default_rng(seed)
    nx, ny, n_bits = 19, 14, 3
    free = rng.random(nx * ny) > 0.25
    free[0] = free[-1] = True
    rays = np.array([[2.0, 13.0, 9.0, 6.0], [15.0, 0.0, 11.0, 9.0], [4.0, 2.0, 4.0, 11.0]])
    cross = gp.crossing_masks(nx, ny, rays, np.array([1, 2, 4], np.int64), gp.STEPS, *gp.SHIFT)
    return nx, ny, n_bits, free, cross
