"""From a relaxed polyline to a spline, and the new spot on it (Alfeld §2.1, §3.6).

:func:`fit_clamped` is a least-squares cubic B-spline with the chord-length
parameter and the port directions imposed as the end derivatives (a clamped
spline).  It starts with one piece and inserts one knot at a time, in the middle
of the worst-fitting piece, until every point is within ``tol`` (1.5 px) of the
curve; a knot that would leave a de Boor point without data under it goes between
the piece's central points, or into the next worst piece (:func:`well_posed`).
The result is given in Bézier form, one piece per knot interval.

:func:`cut_at_middle` cuts the spline where half its arc length is reached (or at
a knot within 15% of a piece's parameter length of that place), giving the move's
two curves and the place of the new spot.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.interpolate import BSpline
from scipy.linalg import cho_solve_banded, cholesky_banded
from scipy.linalg.lapack import dpbtrf, dpbtrs

from ..jit import kernel
from .spline import bezier_points, chord_parameters, de_casteljau_split

TOLERANCE = 1.5  # px


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(*v))
    return v / n if n > 0 else np.array([1.0, 0.0])


def _solve(
    u: np.ndarray, Q: np.ndarray, knots: np.ndarray, d_start: np.ndarray, d_end: np.ndarray
) -> np.ndarray:
    """Control points of the clamped least-squares fit for these knots (ends and end directions imposed).

    The normal equations of the free de Boor points are banded (three off-diagonals):
    :func:`_normal_band` assembles the band straight from the B-splines' values at the
    sites, with no sparse matrix built (building one cost far more than the solve),
    and LAPACK's banded Cholesky solves it, as in :func:`_least_squares_banded`.  The
    band, the right-hand side and so the de Boor points are those of
    :func:`_solve_reference` bit for bit (the same products summed in the same order),
    so the pictures drawn are the same.  A system whose factor has a (nearly)
    vanishing pivot goes to the reference, which ends in the dense least squares.
    """
    T = np.concatenate([[u[0]] * 4, knots, [u[-1]] * 4])
    n = len(T) - 4
    C = _ends(Q, T, n, d_start, d_end)
    if n > 4:
        uc, Qc = np.ascontiguousarray(u, dtype=float), np.ascontiguousarray(Q, dtype=float)
        band, rhs = _normal_band(uc, Qc, T, C)
        chol, info = dpbtrf(band, lower=0)
        if info != 0 or not chol[3].min() > 1e-7 * max(chol[3].max(), 1e-300):
            return _solve_reference(u, Q, knots, d_start, d_end)
        x, info = dpbtrs(chol, rhs, lower=0)
        if info != 0:
            return _solve_reference(u, Q, knots, d_start, d_end)
        C[2 : n - 2] = x
    return C


def _ends(Q: np.ndarray, T: np.ndarray, n: int, d_start: np.ndarray, d_end: np.ndarray) -> np.ndarray:
    """The de Boor points with the two at each end imposed (end points, end directions), the rest zero."""
    C = np.zeros((n, 2))
    C[0] = Q[0]
    C[-1] = Q[-1]
    C[1] = C[0] + d_start * (T[4] - T[1]) / 3.0
    C[-2] = C[-1] - d_end * (T[n + 2] - T[n - 1]) / 3.0
    return C


@kernel
def _normal_band(u: np.ndarray, Q: np.ndarray, T: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The normal equations ``BᵀB x = Bᵀ r`` of the free de Boor points, ``BᵀB`` in LAPACK's upper band form.

    ``B`` is the cubic B-splines' design matrix at the sites ``u`` (clamped to the
    knots' span) without the columns of the four imposed de Boor points (``C``'s
    first two and last two rows), and ``r`` is ``Q`` less those points' part; the
    band's ``[3 + i − j, j]`` holds entry ``(i, j)``.  The arithmetic is that of the
    sparse reference, in its order: each site's four B-splines by de Boor's recurrence
    as scipy's ``BSpline.design_matrix`` evaluates them (on the knot interval that
    holds the site, the last one for the end), the imposed points' part summed
    column by column, and every sum over the sites taken from the first site on.
    """
    n = T.shape[0] - 4
    p = n - 4
    band = np.zeros((4, p))
    rhs = np.zeros((p, 2))
    h = np.empty(4)
    hh = np.empty(4)
    lo = T[3]
    hi = T[n]
    ell = 3
    for s in range(u.shape[0]):
        x = min(max(u[s], lo), hi)
        # the knot interval T[ell] <= x < T[ell + 1] (the last nonempty one for x at the end),
        # walked to from the last site's
        if x < T[ell]:
            while ell > 3 and x < T[ell]:
                ell -= 1
        else:
            while ell < n - 1 and x >= T[ell + 1]:
                ell += 1
        h[0] = 1.0
        for j in range(1, 4):
            for q in range(j):
                hh[q] = h[q]
            h[0] = 0.0
            for m in range(1, j + 1):
                xb = T[ell + m]
                xa = T[ell + m - j]
                if xb == xa:
                    h[m] = 0.0
                    continue
                w = hh[m - 1] / (xb - xa)
                h[m - 1] += w * (xb - x)
                h[m] = w * (x - xa)
        y0 = 0.0
        y1 = 0.0
        for k in range(4):
            c = ell - 3 + k
            if c < 2 or c >= n - 2:
                y0 += h[k] * C[c, 0]
                y1 += h[k] * C[c, 1]
        r0 = Q[s, 0] - y0
        r1 = Q[s, 1] - y1
        for k in range(4):
            a = ell - 5 + k
            if a < 0 or a >= p:
                continue
            for m in range(k, 4):
                b = ell - 5 + m
                if b >= p:
                    break
                band[3 + a - b, b] += h[k] * h[m]
            rhs[a, 0] += h[k] * r0
            rhs[a, 1] += h[k] * r1
    return band, rhs


def _solve_reference(
    u: np.ndarray, Q: np.ndarray, knots: np.ndarray, d_start: np.ndarray, d_end: np.ndarray
) -> np.ndarray:
    """The plain reference of :func:`_solve`: scipy's sparse design matrix and its banded normal equations."""
    T = np.concatenate([[u[0]] * 4, knots, [u[-1]] * 4])
    n = len(T) - 4
    C = _ends(Q, T, n, d_start, d_end)
    if n > 4:
        B = BSpline.design_matrix(np.clip(u, T[3], T[n]), T, 3).tocsc()
        known = [0, 1, n - 2, n - 1]
        rhs = Q - B[:, known] @ C[known]
        C[2 : n - 2] = _least_squares_banded(B[:, 2 : n - 2], rhs)
    return C


def _least_squares_banded(B, rhs: np.ndarray) -> np.ndarray:
    """Least squares ``B x ≈ rhs`` for a B-spline design matrix (each row has at most four neighbours).

    The normal matrix ``BᵀB`` is banded (three off-diagonals), so it is solved by
    a banded Cholesky factorisation in time linear in the number of control
    points (a dense ``lstsq`` takes cubic time and, through a threaded BLAS on a busy
    machine, would cost more than the rest of drawing a move).  When a
    control point has (almost) no data under it the system is singular and the
    dense minimum-norm solution is taken instead.
    """
    N = (B.T @ B).toarray()
    m = N.shape[0]
    band = np.zeros((4, m))
    for k in range(4):
        band[3 - k, k:] = np.diagonal(N, k)
    try:
        chol = cholesky_banded(band)
        if chol[3].min() > 1e-7 * max(chol[3].max(), 1e-300):
            return cho_solve_banded((chol, False), B.T @ rhs)
    except np.linalg.LinAlgError:
        pass
    return least_squares_dense(B, rhs)


def least_squares_dense(B, rhs: np.ndarray) -> np.ndarray:
    """The plain reference of :func:`_least_squares_banded`: the dense minimum-norm least squares."""
    sol, *_ = np.linalg.lstsq(B.toarray(), rhs, rcond=None)
    return sol


def clamped_with_knots(
    points: np.ndarray, knots: np.ndarray, d_start: np.ndarray, d_end: np.ndarray
) -> tuple[BSpline, np.ndarray, np.ndarray]:
    """The clamped least-squares spline with the given inner knots (chord-length parameter).

    Returns the spline (its coefficients are the de Boor points), the parameter
    of every point and the knot intervals' bounds.
    """
    Q = np.asarray(points, dtype=float)
    u = chord_parameters(Q)
    return _clamped_at(Q, u, knots, _unit(np.asarray(d_start, float)), _unit(np.asarray(d_end, float)))


def _clamped_at(
    Q: np.ndarray, u: np.ndarray, knots: np.ndarray, d_start: np.ndarray, d_end: np.ndarray
) -> tuple[BSpline, np.ndarray, np.ndarray]:
    """:func:`clamped_with_knots` at given parameters and unit end directions (a refinement reuses them)."""
    knots = np.sort(knots[(knots > u[0]) & (knots < u[-1])])
    C = _solve(u, Q, knots, d_start, d_end)
    T = np.concatenate([[u[0]] * 4, knots, [u[-1]] * 4])
    # the knots are in order and the coefficients fit them: scipy's checks are not needed
    return BSpline.construct_fast(T, C, 3), u, np.concatenate([[u[0]], knots, [u[-1]]])


def well_posed(u: np.ndarray, knots: np.ndarray) -> bool:
    """Whether the clamped fit to sites ``u`` (increasing) with these inner knots has one solution.

    The unknowns are the de Boor points but the two at each end (the ends and end
    directions are imposed).  The least squares has one solution exactly when
    distinct sites can be matched to these B-splines, each site strictly inside
    its B-spline's support (the Schoenberg–Whitney condition: Schoenberg–Whitney
    1953, de Boor 2001 ch. XIII).  Matched greedily from the left, B-spline
    ``j`` takes the first site past both the start of its support and the site
    of ``j − 1``: ``pos[j] = max(first[j], pos[j − 1] + 1)``, a running maximum.
    """
    T = np.concatenate([[u[0]] * 4, np.sort(knots), [u[-1]] * 4])
    j = np.arange(2, len(T) - 6)
    if not len(j):
        return True
    first = np.searchsorted(u, T[j], side="right")
    k = np.arange(len(j))
    pos = k + np.maximum.accumulate(first - k)
    return bool(pos[-1] < len(u) and np.all(u[np.minimum(pos, len(u) - 1)] < T[j + 4]))


def well_posed_reference(u: np.ndarray, knots: np.ndarray) -> bool:
    """The plain reference of :func:`well_posed`: the same greedy matching, one B-spline at a time."""
    T = [float(u[0])] * 4 + sorted(float(x) for x in knots) + [float(u[-1])] * 4
    i = 0
    for j in range(2, len(T) - 6):
        while i < len(u) and u[i] <= T[j]:
            i += 1
        if i == len(u) or u[i] >= T[j + 4]:
            return False
        i += 1
    return True


def _thinned(u: np.ndarray, knots: np.ndarray) -> np.ndarray:
    """The knots kept from the left only with a site on each side: every knot interval holds a site.

    With a site in every interval, interval ``j − 2`` gives free B-spline ``j``
    its site (a clamped cubic has one more interval than inner knots and two
    fixed de Boor points at each end).
    """
    kept: list[float] = []
    last = u[0]
    for t in np.sort(knots):
        if np.any((u > last) & (u < t)) and np.any((u > t) & (u < u[-1])):
            kept.append(float(t))
            last = t
    return np.array(kept)


def _new_knot(u: np.ndarray, bounds: np.ndarray, err: np.ndarray, tol: float) -> float | None:
    """The knot to insert: in the worst-fitting interval that can take one and keep the fit well posed.

    Intervals are tried from the worst fit down; in each, the middle, and failing
    that the middle between the two central sites of the interval (each half then
    keeps its share of the data).  None when no interval over ``tol`` can take a knot.
    """
    span = np.clip(np.searchsorted(bounds, u, side="right") - 1, 0, len(bounds) - 2)
    worst = np.zeros(len(bounds) - 1)
    np.maximum.at(worst, span, err)
    inner = bounds[1:-1]
    for s in np.argsort(-worst, kind="stable"):
        if worst[s] <= tol:
            break
        a, b = bounds[s], bounds[s + 1]
        sites = u[(u > a) & (u < b)]
        candidates = [0.5 * (a + b)]
        if len(sites) >= 2:
            candidates.append(0.5 * (sites[len(sites) // 2 - 1] + sites[len(sites) // 2]))
        for t in candidates:
            if a < t < b and well_posed(u, np.append(inner, t)):
                return float(t)
    return None


def refine_clamped(
    points: np.ndarray,
    knots: np.ndarray,
    d_start: np.ndarray,
    d_end: np.ndarray,
    tol: float = TOLERANCE,
    rounds: int = 200,
) -> tuple[BSpline, np.ndarray, np.ndarray, bool]:
    """The clamped fit from ``knots``, one knot inserted at a time in the piece that fits worst
    until every point is within ``tol`` (Alfeld §3.6): the spline, the points' parameters, the
    knot intervals' bounds, and whether it fits (it may not after ``rounds`` knots, or once
    no piece can take another knot).

    Every system solved is well posed (:func:`well_posed`): given knots that leave
    a de Boor point without data are thinned first, and a knot is inserted only
    where the fit stays well posed, so the banded solve never meets a singular
    normal matrix for want of data.
    """
    Q = np.asarray(points, dtype=float)
    u = chord_parameters(Q)
    inner = np.sort(np.asarray(knots, dtype=float))
    inner = inner[(inner > u[0]) & (inner < u[-1])]
    if not well_posed(u, inner):
        inner = _thinned(u, inner)
    d0, d1 = _unit(np.asarray(d_start, float)), _unit(np.asarray(d_end, float))
    for _ in range(rounds):
        spline, u, bounds = _clamped_at(Q, u, inner, d0, d1)
        err = np.hypot(*(spline(u) - Q).T)
        if err.max() <= tol:
            return spline, u, bounds, True
        if len(bounds) - 2 >= max(0, len(Q) - 4):
            break
        t = _new_knot(u, bounds, err, tol)
        if t is None:
            break
        inner = np.append(bounds[1:-1], t)
    return spline, u, bounds, False


def fit_clamped(
    points: np.ndarray, d_start: np.ndarray, d_end: np.ndarray, tol: float = TOLERANCE, max_knots: int = 200
) -> tuple[np.ndarray, np.ndarray]:
    """Pieces ``(k, 4, 2)`` and parameter lengths of the clamped fit through ``points`` within ``tol``."""
    spline, _u, bounds, _fits = refine_clamped(points, np.zeros(0), d_start, d_end, tol, max_knots)
    return to_bezier(spline, bounds)


def to_bezier(spline: BSpline, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A cubic B-spline as Bézier pieces, one per knot interval (exact: Hermite data of each piece)."""
    a, b = bounds[:-1], bounds[1:]
    keep = b - a > 1e-9
    a, b = a[keep], b[keep]
    h = b - a
    p0, p1 = spline(a), spline(b - 1e-12 * h)
    p1 = spline(b)
    d = spline.derivative()
    q0 = d(a)
    q1 = d(b - 1e-9 * h)
    b1 = p0 + q0 * (h[:, None] / 3.0)
    b2 = p1 - q1 * (h[:, None] / 3.0)
    return np.stack([p0, b1, b2, p1], axis=1), h


def piece_lengths(pieces: np.ndarray, samples: int = 16) -> np.ndarray:
    """The arc length of each cubic piece, as the length of the polyline through ``samples + 1`` points."""
    pieces = np.asarray(pieces, dtype=float)
    if not len(pieces):
        return np.zeros(0)
    t = np.linspace(0.0, 1.0, samples + 1)[:, None]
    s = 1.0 - t
    weights = np.concatenate([s**3, 3 * s * s * t, 3 * s * t * t, t**3], axis=1)  # (samples + 1, 4)
    pts = np.einsum("sj,kjd->ksd", weights, pieces)
    legs = np.diff(pts, axis=1)
    return np.hypot(legs[..., 0], legs[..., 1]).sum(axis=1)


def cut_at(
    pieces: np.ndarray, h: np.ndarray, share: float = 0.5, lengths: np.ndarray | None = None
) -> tuple[tuple, tuple, np.ndarray]:
    """Cut a spline where ``share`` of its arc length is reached (Alfeld §2.1).

    An existing knot within 15% of its piece's parameter length of that place is
    used instead, so that no very short piece is made.  Returns the two parts as
    ``(pieces, h)`` pairs and the point where they meet.  ``lengths`` are the
    pieces' own (``piece_lengths``), when the caller cuts one spline at many places.
    """
    lengths = piece_lengths(pieces) if lengths is None else lengths
    total = float(lengths.sum())
    want = share * total
    cum = np.concatenate([[0.0], np.cumsum(lengths)])
    i = int(min(np.searchsorted(cum, want, side="right") - 1, len(pieces) - 1))
    frac = (want - cum[i]) / lengths[i] if lengths[i] > 0 else 0.5
    frac = float(min(max(frac, 0.0), 1.0))
    if frac < 0.15 and i > 0:
        return _at_knot(pieces, h, i)
    if frac > 0.85 and i < len(pieces) - 1:
        return _at_knot(pieces, h, i + 1)
    # the arc-length share inside the piece, turned into its parameter by sampling
    ts = np.linspace(0.0, 1.0, 33)
    pts = bezier_points(pieces[i], ts)
    arc = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
    t = float(np.interp(frac * arc[-1], arc, ts))
    t = min(max(t, 0.02), 0.98)
    left, right = de_casteljau_split(pieces[i], t)
    first = (np.concatenate([pieces[:i], [left]]), np.concatenate([h[:i], [h[i] * t]]))
    second = (np.concatenate([[right], pieces[i + 1 :]]), np.concatenate([[h[i] * (1 - t)], h[i + 1 :]]))
    return first, second, left[3].copy()


def _at_knot(pieces: np.ndarray, h: np.ndarray, k: int) -> tuple[tuple, tuple, np.ndarray]:
    return (pieces[:k].copy(), h[:k].copy()), (pieces[k:].copy(), h[k:].copy()), pieces[k, 0].copy()


def join_parts(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Two parts of one spline as one (the move's two curves, to slide their spot or move them together)."""
    return np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]])


def arc_length(pieces: np.ndarray) -> float:
    return float(piece_lengths(pieces).sum())


__all__ = [
    "arc_length",
    "cut_at",
    "fit_clamped",
    "join_parts",
    "math",
    "piece_lengths",
    "to_bezier",
    "well_posed",
    "well_posed_reference",
]
