"""Curves as C² cubic splines in Bézier form (Alfeld §2.1).

A curve is an array ``pieces`` of shape ``(k, 4, 2)`` (the control points
``b0 … b3`` of each cubic piece) with the parameter length ``h`` of each piece.
Refinement is local: one piece is cut in two by de Casteljau's algorithm, which
does not change the shape.  The Nairn–Peters–Lutterkort bound says how far a
piece can stray from its control polygon, which turns tests on polygons into
certificates about the curves (Alfeld §2.2).
"""

from __future__ import annotations

import numpy as np
from scipy.interpolate import CubicSpline

Pieces = np.ndarray  # (k, 4, 2)


def bezier_points(piece: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Points of one cubic piece at parameters ``t`` (Bernstein form)."""
    t = np.asarray(t, dtype=float)[:, None]
    s = 1.0 - t
    b0, b1, b2, b3 = piece
    return s**3 * b0 + 3 * s * s * t * b1 + 3 * s * t * t * b2 + t**3 * b3


def de_casteljau_split(piece: np.ndarray, t: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Cut a cubic piece at ``t`` into two pieces that trace the same curve (de Casteljau)."""
    b0, b1, b2, b3 = piece
    c01 = b0 + t * (b1 - b0)
    c12 = b1 + t * (b2 - b1)
    c23 = b2 + t * (b3 - b2)
    d0 = c01 + t * (c12 - c01)
    d1 = c12 + t * (c23 - c12)
    e = d0 + t * (d1 - d0)
    return np.array([b0, c01, d0, e]), np.array([e, d1, c23, b3])


def npl_bound(piece: np.ndarray) -> float:
    """Nairn–Peters–Lutterkort bound: the piece lies within this distance of its control polygon.

    D. Nairn, J. Peters, D. Lutterkort, *Sharp, quantitative bounds on the distance
    between a polynomial piece and its Bézier control polygon*, CAGD 16(7), 1999:
    for a cubic, ``max |p(t) − ℓ(t)| ≤ ⅓ max(|Δ²b0|, |Δ²b1|)``.
    """
    b0, b1, b2, b3 = piece
    return float(max(np.hypot(*(b0 - 2 * b1 + b2)), np.hypot(*(b1 - 2 * b2 + b3))) / 3.0)


def refine_piece(piece: np.ndarray, tol: float, max_leg: float, depth: int = 12) -> list[np.ndarray]:
    """Sub-pieces of one piece, halved until the NPL bound is ``≤ tol`` and no leg exceeds ``max_leg``."""
    out: list[np.ndarray] = []
    stack = [(piece, 0)]
    while stack:
        p, d = stack.pop()
        legs = np.hypot(*(np.diff(p, axis=0).T))
        if d < depth and (npl_bound(p) > tol or legs.max() > max_leg):
            a, b = de_casteljau_split(p)
            stack.append((b, d + 1))
            stack.append((a, d + 1))
        else:
            out.append(p)
    return out


def straight_pieces(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A polyline as cubic pieces (each leg a straight piece; C⁰ at the corners)."""
    pts = np.asarray(points, dtype=float)
    a, b = pts[:-1], pts[1:]
    pieces = np.stack([a, a + (b - a) / 3.0, a + 2.0 * (b - a) / 3.0, b], axis=1)
    h = np.hypot(*(b - a).T)
    return pieces, h


def chord_parameters(points: np.ndarray) -> np.ndarray:
    """Chord-length parameter values (cumulative leg lengths), strictly increasing."""
    legs = np.hypot(*np.diff(points, axis=0).T)
    legs = np.maximum(legs, 1e-9)
    return np.concatenate([[0.0], np.cumsum(legs)])


def interpolate_clamped(
    points: np.ndarray, start_dir: np.ndarray | None = None, end_dir: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The clamped C² cubic spline through ``points`` (chord-length knots), in Bézier form.

    End derivatives are the given unit directions (or the first and last legs),
    scaled to the parameter, so that a curve leaves its spots the way its polyline
    did and the rotation at each spot is kept.  Uses ``scipy.interpolate.CubicSpline``.
    """
    pts = np.asarray(points, dtype=float)
    if len(pts) == 2:
        return straight_pieces(pts)
    t = chord_parameters(pts)
    d0 = _unit(pts[1] - pts[0]) if start_dir is None else _unit(start_dir)
    d1 = _unit(pts[-1] - pts[-2]) if end_dir is None else _unit(end_dir)
    cs = CubicSpline(t, pts, bc_type=((1, d0), (1, d1)))
    return spline_to_bezier(cs, t)


def interpolate_closed(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The periodic C² cubic spline through a closed list of points (first == last)."""
    pts = np.asarray(points, dtype=float)
    t = chord_parameters(pts)
    cs = CubicSpline(t, pts, bc_type="periodic")
    return spline_to_bezier(cs, t)


def spline_to_bezier(cs: CubicSpline, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hermite data of each interval turned into Bézier control points."""
    p = cs(t)
    dp = cs(t, 1)
    h = np.diff(t)
    b0 = p[:-1]
    b3 = p[1:]
    b1 = b0 + dp[:-1] * (h[:, None] / 3.0)
    b2 = b3 - dp[1:] * (h[:, None] / 3.0)
    return np.stack([b0, b1, b2, b3], axis=1), h


def sample_polyline(pieces: np.ndarray, per_piece: int = 1) -> np.ndarray:
    """Knots of a curve (and ``per_piece − 1`` points inside each piece), ends included."""
    pts = [pieces[0, 0]]
    for pc in pieces:
        if per_piece > 1:
            ts = np.arange(1, per_piece) / per_piece
            pts.extend(bezier_points(pc, ts))
        pts.append(pc[3])
    return np.array(pts)


def sample_by_length(pieces: np.ndarray, step: float, per_piece: int = 1) -> np.ndarray:
    """Points of a curve about ``step`` apart or closer (``per_piece`` at least a piece), ends included.

    A piece gets as many points as its control polygon (never shorter than the
    piece) holds steps, so a long piece is sampled as densely as a short one:
    a fit whose knots are placed by arc length then has data under every knot
    interval (:func:`sample_polyline` gives every piece the same count).
    """
    pieces = np.asarray(pieces, dtype=float)
    polygon = np.hypot(*np.diff(pieces, axis=1).transpose(2, 0, 1)).sum(axis=1)
    counts = np.maximum(per_piece, np.ceil(polygon / step).astype(int))
    pts = [pieces[0, 0][None]]
    for pc, k in zip(pieces, counts, strict=True):
        pts.append(bezier_points(pc, np.arange(1, k + 1) / k))
    return np.concatenate(pts)


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(*v))
    return v / n if n > 0 else np.array([1.0, 0.0])
