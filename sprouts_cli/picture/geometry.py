"""Geometry of the picture layer: distances between segments and points, winding numbers.

The distances are numeric kernels: they run under numba (``jit.kernel``) and,
unchanged, as plain Python.  The certificate of Alfeld §2.2 (``certify.py``) and the
relaxation (``relax.py``) are built on them.  The winding numbers (numpy) tell which
face holds a point: reading a picture (``analyse.py``), the room a closing move needs
(``router.py``), a tap on the page (``play/web_pointer.py``) and the region numbers of a
drawing (``render.py``).
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel


@kernel
def segment_foot(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> tuple:
    """The nearest point of segment ab to p, as its parameter ``t`` and the vector from it to p."""
    dx = bx - ax
    dy = by - ay
    den = dx * dx + dy * dy
    t = 0.0
    if den > 0.0:
        t = ((px - ax) * dx + (py - ay) * dy) / den
        t = min(1.0, max(0.0, t))
    return t, px - (ax + t * dx), py - (ay + t * dy)


@kernel
def point_segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """Euclidean distance from point p to segment ab."""
    _t, vx, vy = segment_foot(px, py, ax, ay, bx, by)
    return math.sqrt(vx * vx + vy * vy)


@kernel
def _orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@kernel
def segments_cross(
    ax: float, ay: float, bx: float, by: float, cx: float, cy: float, dx: float, dy: float
) -> bool:
    """True when segments ab and cd have a point in common (touching counts)."""
    d1 = _orient(cx, cy, dx, dy, ax, ay)
    d2 = _orient(cx, cy, dx, dy, bx, by)
    d3 = _orient(ax, ay, bx, by, cx, cy)
    d4 = _orient(ax, ay, bx, by, dx, dy)
    if ((d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)) and ((d3 > 0 and d4 < 0) or (d3 < 0 and d4 > 0)):
        return True
    if d1 == 0 and point_segment_distance(ax, ay, cx, cy, dx, dy) == 0.0:
        return True
    if d2 == 0 and point_segment_distance(bx, by, cx, cy, dx, dy) == 0.0:
        return True
    if d3 == 0 and point_segment_distance(cx, cy, ax, ay, bx, by) == 0.0:
        return True
    return d4 == 0 and point_segment_distance(dx, dy, ax, ay, bx, by) == 0.0


@kernel
def segment_distance(
    ax: float, ay: float, bx: float, by: float, cx: float, cy: float, dx: float, dy: float
) -> float:
    """Euclidean distance between segments ab and cd (0 when they meet)."""
    if segments_cross(ax, ay, bx, by, cx, cy, dx, dy):
        return 0.0
    d = point_segment_distance(ax, ay, cx, cy, dx, dy)
    d = min(d, point_segment_distance(bx, by, cx, cy, dx, dy))
    d = min(d, point_segment_distance(cx, cy, ax, ay, bx, by))
    return min(d, point_segment_distance(dx, dy, ax, ay, bx, by))


@kernel
def leg_pair_check(
    legs: np.ndarray,
    eps: np.ndarray,
    leg_piece: np.ndarray,
    piece_curve: np.ndarray,
    piece_seq: np.ndarray,
    piece_spot0: np.ndarray,
    piece_spot1: np.ndarray,
    curve_a: np.ndarray,
    curve_b: np.ndarray,
    spots: np.ndarray,
    near: np.ndarray,
    leg_arc: np.ndarray,
    max_fail: int,
) -> tuple[float, np.ndarray, int, int]:
    """``leg_pair_check_all_pairs``'s answer (least clearance, first failed pairs, their number),
    by a sweep along x instead of every pair, and the number of pairs of legs the sweep visited.

    The legs are taken in order of their least x; a leg is paired only with those
    after it whose least x is within reach of its own largest x: once the gap in x
    alone exceeds both the legs' bounds and the least clearance found so far plus
    those bounds, no later leg can fail or lower it.  Each pair is judged by the
    reference's own test (``_leg_pair``, the lower leg index first), and the failed
    pairs are returned in the reference's order (by index), so the answer is the same.

    The sweep goes in two passes.  The first pairs each leg only with the legs that
    could fail against it (their gap in x within the legs' bounds) and marks where it
    stopped; the second takes each leg on from there, now against the least clearance
    of all the near pairs.  In one pass a curve far out of the picture (a fit that
    overshot, refined into tens of thousands of legs) is swept first, while the least
    clearance found is still that of its own far-apart legs, and every one of its legs
    was paired with most of the others: billions of pairs for one certificate.  The
    pairs visited, which is what the sweep's time goes as, are counted.
    """
    n = legs.shape[0]
    lo = np.empty(n)
    hi = np.empty(n)
    lo_y = np.empty(n)
    hi_y = np.empty(n)
    for i in range(n):
        lo[i] = min(legs[i, 0], legs[i, 2])
        hi[i] = max(legs[i, 0], legs[i, 2])
        lo_y[i] = min(legs[i, 1], legs[i, 3])
        hi_y[i] = max(legs[i, 1], legs[i, 3])
    order = np.argsort(lo, kind="mergesort")
    eps_max = 0.0
    for i in range(n):
        eps_max = max(eps_max, eps[i])
    found = np.empty((max(16, max_fail), 2), dtype=np.int64)
    nf = 0
    best = np.inf
    visits = 0
    # where each leg's first pass stopped (order positions), for the second to go on from
    resume = np.empty(n, dtype=np.int64)
    for second in (False, True):
        for a in range(n):
            i = order[a]
            reach = eps[i] + eps_max
            start = resume[a] if second else a + 1
            resume[a] = n
            for b in range(start, n):
                j = order[b]
                g = lo[j] - hi[i]
                if g > reach and (g - reach >= best or not second):
                    resume[a] = b
                    break
                visits += 1
                gap = max(g, lo[i] - hi[j], lo_y[j] - hi_y[i], lo_y[i] - hi_y[j], 0.0)
                need = eps[i] + eps[j]
                if gap - need >= best and gap > need:
                    continue
                first = min(i, j)
                last = max(i, j)
                c = _leg_pair(
                    legs, eps, leg_piece, piece_curve, piece_seq, piece_spot0, piece_spot1, curve_a, curve_b,
                    spots, near, leg_arc, first, last, best,
                )  # fmt: skip
                if c == FAILED:
                    if nf == found.shape[0]:
                        grown = np.empty((2 * nf, 2), dtype=np.int64)
                        grown[:nf] = found
                        found = grown
                    found[nf, 0] = first
                    found[nf, 1] = last
                    nf += 1
                elif c < best:
                    best = c
    fails = np.empty((max_fail, 2), dtype=np.int64)
    if nf:
        keys = found[:nf, 0] * n + found[:nf, 1]
        ranked = np.argsort(keys, kind="mergesort")
        for k in range(min(nf, max_fail)):
            fails[k, 0] = found[ranked[k], 0]
            fails[k, 1] = found[ranked[k], 1]
    return best, fails, nf, visits


#: ``_leg_pair``'s answer for two legs too close to be certified apart.
FAILED = -1.0


@kernel
def _leg_pair(
    legs: np.ndarray,
    eps: np.ndarray,
    leg_piece: np.ndarray,
    piece_curve: np.ndarray,
    piece_seq: np.ndarray,
    piece_spot0: np.ndarray,
    piece_spot1: np.ndarray,
    curve_a: np.ndarray,
    curve_b: np.ndarray,
    spots: np.ndarray,
    near: np.ndarray,
    leg_arc: np.ndarray,
    i: int,
    j: int,
    best: float,
) -> float:
    """One pair of legs (``i < j``) as ``leg_pair_check_all_pairs`` judges it: ``FAILED`` when
    they are not certified apart, else their clearance when it counts and may be under
    ``best``, else inf (a pair skipped, or one that cannot lower ``best``)."""
    pi = leg_piece[i]
    pj = leg_piece[j]
    if pi == pj:
        return np.inf
    ci = piece_curve[pi]
    cj = piece_curve[pj]
    if ci == cj and abs(piece_seq[pi] - piece_seq[pj]) <= 1:
        return np.inf
    s0 = piece_spot0[pi]
    s1 = piece_spot1[pi]
    if s0 >= 0 and (s0 == piece_spot0[pj] or s0 == piece_spot1[pj]):
        return np.inf
    if s1 >= 0 and (s1 == piece_spot0[pj] or s1 == piece_spot1[pj]):
        return np.inf
    ax, ay, bx, by = legs[i, 0], legs[i, 1], legs[i, 2], legs[i, 3]
    cx, cy, dx, dy = legs[j, 0], legs[j, 1], legs[j, 2], legs[j, 3]
    need = eps[i] + eps[j]
    gapx = max(min(cx, dx) - max(ax, bx), min(ax, bx) - max(cx, dx))
    gapy = max(min(cy, dy) - max(ay, by), min(ay, by) - max(cy, dy))
    gap = max(gapx, gapy, 0.0)
    if gap - need >= best and gap > need:
        return np.inf
    d = segment_distance(ax, ay, bx, by, cx, cy, dx, dy)
    if d <= need:
        return FAILED
    c = d - need
    if c >= best:
        return np.inf
    # leave out the meeting place of two curves that share a spot
    if ci == cj and abs(leg_arc[i] - leg_arc[j]) < 3.0 * d + math.hypot(bx - ax, by - ay) + math.hypot(
        dx - cx, dy - cy
    ):
        return np.inf
    for u in (curve_a[ci], curve_b[ci]):
        if u == curve_a[cj] or u == curve_b[cj]:
            r = near[u]
            di = point_segment_distance(spots[u, 0], spots[u, 1], ax, ay, bx, by)
            dj = point_segment_distance(spots[u, 0], spots[u, 1], cx, cy, dx, dy)
            if di < r and dj < r:
                return np.inf
    return c


@kernel
def leg_pair_check_all_pairs(
    legs: np.ndarray,
    eps: np.ndarray,
    leg_piece: np.ndarray,
    piece_curve: np.ndarray,
    piece_seq: np.ndarray,
    piece_spot0: np.ndarray,
    piece_spot1: np.ndarray,
    curve_a: np.ndarray,
    curve_b: np.ndarray,
    spots: np.ndarray,
    near: np.ndarray,
    leg_arc: np.ndarray,
    max_fail: int,
) -> tuple[float, np.ndarray, int]:
    """Certify every pair of refined-polygon legs and return the least clearance (every pair tried).

    The reference for ``leg_pair_check``, which gives the same answer by a sweep.

    Two legs of pieces that are the same, neighbours on one curve, or both end at
    one spot are skipped (the last are certified by their cones, ``certify.py``).
    Every other pair must keep ``d > eps_i + eps_j`` (Nairn–Peters–Lutterkort):
    then the curves, not only the polygons, stay apart.  Pairs that fail are
    returned (up to ``max_fail``) so that their pieces can be refined.  The least
    clearance ``d − eps_i − eps_j`` leaves out legs of two curves that both lie
    within ``near[s]`` of a spot ``s`` the curves share (there the curves meet by
    design and are judged by angle), and two legs of one curve whose distance along
    the curve (``leg_arc``, the arc length at each leg's start) is under three
    times their distance apart: a curve is near itself along its own length.
    """
    n = legs.shape[0]
    fails = np.empty((max_fail, 2), dtype=np.int64)
    nf = 0
    best = np.inf
    for i in range(n):
        ax, ay, bx, by = legs[i, 0], legs[i, 1], legs[i, 2], legs[i, 3]
        pi = leg_piece[i]
        ci = piece_curve[pi]
        minx_i = min(ax, bx)
        maxx_i = max(ax, bx)
        miny_i = min(ay, by)
        maxy_i = max(ay, by)
        for j in range(i + 1, n):
            pj = leg_piece[j]
            if pi == pj:
                continue
            cj = piece_curve[pj]
            if ci == cj and abs(piece_seq[pi] - piece_seq[pj]) <= 1:
                continue
            s0 = piece_spot0[pi]
            s1 = piece_spot1[pi]
            if s0 >= 0 and (s0 == piece_spot0[pj] or s0 == piece_spot1[pj]):
                continue
            if s1 >= 0 and (s1 == piece_spot0[pj] or s1 == piece_spot1[pj]):
                continue
            cx, cy, dx, dy = legs[j, 0], legs[j, 1], legs[j, 2], legs[j, 3]
            need = eps[i] + eps[j]
            gapx = max(min(cx, dx) - maxx_i, minx_i - max(cx, dx))
            gapy = max(min(cy, dy) - maxy_i, miny_i - max(cy, dy))
            gap = max(gapx, gapy, 0.0)
            if gap - need >= best and gap > need:
                continue
            d = segment_distance(ax, ay, bx, by, cx, cy, dx, dy)
            if d <= need:
                if nf < max_fail:
                    fails[nf, 0] = i
                    fails[nf, 1] = j
                nf += 1
                continue
            c = d - need
            if c < best:
                # leave out the meeting place of two curves that share a spot
                skip = ci == cj and abs(leg_arc[i] - leg_arc[j]) < 3.0 * d + math.hypot(
                    bx - ax, by - ay
                ) + math.hypot(dx - cx, dy - cy)
                for u in (curve_a[ci], curve_b[ci]):
                    if u == curve_a[cj] or u == curve_b[cj]:
                        ux = spots[u, 0]
                        uy = spots[u, 1]
                        r = near[u]
                        di = point_segment_distance(ux, uy, ax, ay, bx, by)
                        dj = point_segment_distance(ux, uy, cx, cy, dx, dy)
                        if di < r and dj < r:
                            skip = True
                if not skip:
                    best = c
    return best, fails, nf


@kernel
def spot_leg_check(
    legs: np.ndarray,
    eps: np.ndarray,
    leg_piece: np.ndarray,
    piece_curve: np.ndarray,
    curve_a: np.ndarray,
    curve_b: np.ndarray,
    spots: np.ndarray,
    sizes: np.ndarray,
    max_fail: int,
) -> tuple[float, np.ndarray, int]:
    """Certify that no curve passes through a spot that is not one of its ends.

    Returns the least clearance between a spot's disc and a curve not at it, and
    the (spot, leg) pairs with ``d ≤ eps`` (up to ``max_fail``).  A curve's own
    end spots are left out.
    """
    fails = np.empty((max_fail, 2), dtype=np.int64)
    nf = 0
    best = np.inf
    for s in range(spots.shape[0]):
        sx = spots[s, 0]
        sy = spots[s, 1]
        for i in range(legs.shape[0]):
            c = piece_curve[leg_piece[i]]
            if curve_a[c] == s or curve_b[c] == s:
                continue
            ax, ay, bx, by = legs[i, 0], legs[i, 1], legs[i, 2], legs[i, 3]
            gap = max(min(ax, bx) - sx, sx - max(ax, bx), min(ay, by) - sy, sy - max(ay, by), 0.0)
            if gap - eps[i] - sizes[s] >= best and gap > eps[i]:
                continue
            d = point_segment_distance(sx, sy, ax, ay, bx, by)
            if d <= eps[i]:
                if nf < max_fail:
                    fails[nf, 0] = s
                    fails[nf, 1] = i
                nf += 1
                continue
            best = min(best, d - eps[i] - sizes[s])
    return best, fails, nf


@kernel
def spot_spot_clearance(spots: np.ndarray, sizes: np.ndarray) -> tuple[float, int, int]:
    """Least gap between two spots' discs, and the pair (−1, −1 when fewer than two spots)."""
    best = np.inf
    bi = -1
    bj = -1
    for i in range(spots.shape[0]):
        for j in range(i + 1, spots.shape[0]):
            d = math.hypot(spots[i, 0] - spots[j, 0], spots[i, 1] - spots[j, 1]) - sizes[i] - sizes[j]
            if d < best:
                best = d
                bi = i
                bj = j
    return best, bi, bj


def winding_numbers(poly: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The winding number of the closed polygon ``poly`` (its last corner joined to its
    first) around each of ``points``: positive when it turns anticlockwise in the
    x-right, y-up sense.  A point on the polygon gets whichever side rounding gives.

    Each edge crossing the half-line to the right of a point counts ±1; an edge counts
    as crossing when one end is at or below the point and the other above, so a
    half-line through a corner counts it once.
    """
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    out = np.zeros(len(points), dtype=np.int64)
    for start in range(0, len(points), _WINDING_CHUNK):  # bounded memory for a grid of points
        p = points[start : start + _WINDING_CHUNK]
        x = poly[None, :, 0] - p[:, None, 0]
        y = poly[None, :, 1] - p[:, None, 1]
        x2, y2 = np.roll(x, -1, axis=1), np.roll(y, -1, axis=1)
        cross = x * y2 - x2 * y  # > 0: the point is left of the edge
        up = (y <= 0) & (y2 > 0) & (cross > 0)
        down = (y > 0) & (y2 <= 0) & (cross < 0)
        out[start : start + _WINDING_CHUNK] = up.sum(axis=1) - down.sum(axis=1)
    return out


#: Points per step of ``winding_numbers`` (a step holds points × corners numbers).
_WINDING_CHUNK = 256


def winding_number(poly: np.ndarray, point: np.ndarray) -> int:
    """The winding number of the closed polygon ``poly`` around one point (``winding_numbers``)."""
    return int(winding_numbers(poly, point)[0])
