"""Energy, exact gradient and PrEd step caps of A and R (Alfeld §4.5), as numba kernels.

The energy of a picture whose curves are polylines through points ``P``::

    E = w_len Σ|segment|
      + λ Σ_points Σ_near φ(r)             crowding (point against segment, spot against spot, window)
      + w_bend Σ θ² / ℓ                              bending at interior points (and through two-curve spots)
      + w_spread Σ (θ − 2π/3)²                       angular spread at three-curve spots
      − w_area Σ_live regions lives · log(area)      (the outside: the window less what is drawn)

with ``φ(r) = D² (1/r² − 1/R² + 2 (r − R)/R³)`` for ``r < R`` (the ``(D/r)²`` of
the band, shifted so that it and its slope vanish at the cut-off ``R``).  For a
spot, ``r`` is measured from the edge of its disc.

Alfeld's energy (§4.5) also has a term ``D Σ (t·n)²`` whose ``t`` and ``n`` it never
defines; it is left out here rather than guessed (the angular spread already spaces
the curves at a spot, and A moves points only across their curve).
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from .geometry import segment_foot as _closest


@kernel
def _phi(r, D, R):
    """Crowding φ(r) and φ'(r); +inf at r ≤ 0, zero beyond the cut-off R."""
    if r >= R:
        return 0.0, 0.0
    if r <= 0.0:
        return np.inf, 0.0
    D2 = D * D
    val = D2 * (1.0 / (r * r) - 1.0 / (R * R) + 2.0 * (r - R) / (R * R * R))
    der = D2 * (-2.0 / (r * r * r) + 2.0 / (R * R * R))
    return val, der


@kernel
def segment_grid(
    P: np.ndarray, segs: np.ndarray, cell: float
) -> tuple[np.ndarray, np.ndarray, int, int, float, float]:
    """Bucket the segments into square cells of side ``cell`` (compressed rows), for near-neighbour loops."""
    m = segs.shape[0]
    x0 = np.inf
    y0 = np.inf
    x1 = -np.inf
    y1 = -np.inf
    for i in range(P.shape[0]):
        x0 = min(x0, P[i, 0])
        y0 = min(y0, P[i, 1])
        x1 = max(x1, P[i, 0])
        y1 = max(y1, P[i, 1])
    if P.shape[0] == 0:
        x0 = y0 = x1 = y1 = 0.0
    nx = int((x1 - x0) / cell) + 1
    ny = int((y1 - y0) / cell) + 1
    count = np.zeros(nx * ny + 1, dtype=np.int64)
    for k in range(m):
        a = segs[k, 0]
        b = segs[k, 1]
        i0 = int((min(P[a, 0], P[b, 0]) - x0) / cell)
        i1 = int((max(P[a, 0], P[b, 0]) - x0) / cell)
        j0 = int((min(P[a, 1], P[b, 1]) - y0) / cell)
        j1 = int((max(P[a, 1], P[b, 1]) - y0) / cell)
        for ii in range(i0, i1 + 1):
            for jj in range(j0, j1 + 1):
                count[jj * nx + ii + 1] += 1
    for c in range(nx * ny):
        count[c + 1] += count[c]
    items = np.empty(count[nx * ny], dtype=np.int64)
    fill = count[:-1].copy()
    for k in range(m):
        a = segs[k, 0]
        b = segs[k, 1]
        i0 = int((min(P[a, 0], P[b, 0]) - x0) / cell)
        i1 = int((max(P[a, 0], P[b, 0]) - x0) / cell)
        j0 = int((min(P[a, 1], P[b, 1]) - y0) / cell)
        j1 = int((max(P[a, 1], P[b, 1]) - y0) / cell)
        for ii in range(i0, i1 + 1):
            for jj in range(j0, j1 + 1):
                c = jj * nx + ii
                items[fill[c]] = k
                fill[c] += 1
    return count, items, nx, ny, x0, y0


@kernel
def segment_boxes(P: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """Each segment's bounding box, a row (x min, x max, y min, y max): the near-neighbour loops
    test a pair's box from one row instead of from both ends' points."""
    m = segs.shape[0]
    box = np.empty((m, 4))
    for k in range(m):
        a = segs[k, 0]
        b = segs[k, 1]
        box[k, 0] = min(P[a, 0], P[b, 0])
        box[k, 1] = max(P[a, 0], P[b, 0])
        box[k, 2] = min(P[a, 1], P[b, 1])
        box[k, 3] = max(P[a, 1], P[b, 1])
    return box


@kernel
def _near_along(i, k, pt_chain, pt_pos, seg_chain, seg_pos, chain_len, hops):
    """True when point i and segment k lie within ``hops`` steps of each other along one chain."""
    c = seg_chain[k]
    if c < 0:
        return False
    for m in range(pt_chain.shape[1]):
        if pt_chain[i, m] != c:
            continue
        d = abs(pt_pos[i, m] - seg_pos[k])
        d2 = abs(pt_pos[i, m] - seg_pos[k] - 1)
        if d2 < d:
            d = d2
        n = chain_len[c]
        if n > 0 and n - d < d:
            d = n - d
        if d <= hops:
            return True
    return False


@kernel
def _pair_terms(
    P: np.ndarray,
    G: np.ndarray,
    n_spots: int,
    sizes: np.ndarray,
    pts: np.ndarray,
    segs: np.ndarray,
    moves: np.ndarray,
    pt_chain: np.ndarray,
    pt_pos: np.ndarray,
    seg_chain: np.ndarray,
    seg_pos: np.ndarray,
    chain_len: np.ndarray,
    hops: int,
    width: float,
    height: float,
    D: float,
    R: float,
    lam: float,
    wlen: float,
) -> tuple[float, bool]:
    """The length and crowding terms that hold a point of ``moves``, summed over the points ``pts``
    and segments ``segs``, and False when one is infinite (then the sum is +inf); their gradient
    is added into ``G``.

    In order: the segments' lengths, each point of ``pts`` against the segments near it, spot
    against spot, each point of ``pts`` against the window's sides.  The whole evaluation passes
    every point and segment, in order, with every point moving: then nothing is skipped and the
    sum is the whole energy's, in its order.
    """
    E = 0.0
    # length
    for k in range(segs.shape[0]):
        a = segs[k, 0]
        b = segs[k, 1]
        if not (moves[a] or moves[b]):
            continue
        dx = P[b, 0] - P[a, 0]
        dy = P[b, 1] - P[a, 1]
        L = math.sqrt(dx * dx + dy * dy)
        E += wlen * L
        if L > 0:
            G[a, 0] -= wlen * dx / L
            G[a, 1] -= wlen * dy / L
            G[b, 0] += wlen * dx / L
            G[b, 1] += wlen * dy / L
    # crowding: each point against every segment not its own, found through a grid of cells
    maxrad = 0.0
    for i in range(n_spots):
        maxrad = max(maxrad, sizes[i])
    cell = R + maxrad
    start, items, gnx, gny, gx0, gy0 = segment_grid(P, segs, cell)
    box = segment_boxes(P, segs)
    stamp = -np.ones(segs.shape[0], dtype=np.int64)
    for q0 in range(pts.shape[0]):
        i = pts[q0]
        px = P[i, 0]
        py = P[i, 1]
        rad = sizes[i] if i < n_spots else 0.0
        lim = R + rad
        ci = int((px - gx0) / cell)
        cj = int((py - gy0) / cell)
        for q in range(9):
            ii = ci + q % 3 - 1
            jj = cj + q // 3 - 1
            if ii < 0 or jj < 0 or ii >= gnx or jj >= gny:
                continue
            c = jj * gnx + ii
            for tt in range(start[c], start[c + 1]):
                k = items[tt]
                if stamp[k] == i:
                    continue
                stamp[k] = i
                # the tests below only pass pairs over, so their order changes which pairs are
                # summed in no way: the cheapest first, the box (farther than the cut-off in x
                # or in y), and the walk along the chain last
                gap = max(max(box[k, 0] - px, px - box[k, 1]), max(box[k, 2] - py, py - box[k, 3]))
                if gap > lim:
                    continue
                a = segs[k, 0]
                b = segs[k, 1]
                if a == i or b == i:
                    continue
                if not (moves[i] or moves[a] or moves[b]):
                    continue
                ax = P[a, 0]
                ay = P[a, 1]
                bx = P[b, 0]
                by = P[b, 1]
                if _near_along(i, k, pt_chain, pt_pos, seg_chain, seg_pos, chain_len, hops):
                    continue
                t, vx, vy = _closest(px, py, ax, ay, bx, by)
                dist = math.sqrt(vx * vx + vy * vy)
                val, der = _phi(dist - rad, D, R)
                if val == 0.0:
                    continue
                if not math.isfinite(val):
                    return np.inf, False
                E += lam * val
                ux = vx / dist
                uy = vy / dist
                G[i, 0] += lam * der * ux
                G[i, 1] += lam * der * uy
                G[a, 0] -= lam * der * ux * (1.0 - t)
                G[a, 1] -= lam * der * uy * (1.0 - t)
                G[b, 0] -= lam * der * ux * t
                G[b, 1] -= lam * der * uy * t
    # spots against spots
    for i in range(n_spots):
        for j in range(i + 1, n_spots):
            if not (moves[i] or moves[j]):
                continue
            vx = P[i, 0] - P[j, 0]
            vy = P[i, 1] - P[j, 1]
            dist = math.sqrt(vx * vx + vy * vy)
            val, der = _phi(dist - sizes[i] - sizes[j], D, R)
            if val == 0.0:
                continue
            if not math.isfinite(val):
                return np.inf, False
            E += lam * val
            G[i, 0] += lam * der * vx / dist
            G[i, 1] += lam * der * vy / dist
            G[j, 0] -= lam * der * vx / dist
            G[j, 1] -= lam * der * vy / dist
    # the window's four sides
    for q0 in range(pts.shape[0]):
        i = pts[q0]
        if not moves[i]:
            continue
        rad = sizes[i] if i < n_spots else 0.0
        for side in range(4):
            if side == 0:
                r, sx, sy = P[i, 0], 1.0, 0.0
            elif side == 1:
                r, sx, sy = width - P[i, 0], -1.0, 0.0
            elif side == 2:
                r, sx, sy = P[i, 1], 0.0, 1.0
            else:
                r, sx, sy = height - P[i, 1], 0.0, -1.0
            val, der = _phi(r - rad, D, R)
            if val == 0.0:
                continue
            if not math.isfinite(val):
                return np.inf, False
            E += lam * val
            G[i, 0] += lam * der * sx
            G[i, 1] += lam * der * sy
    return E, True


@kernel
def energy_gradient(
    P: np.ndarray,
    n_spots: int,
    sizes: np.ndarray,
    segs: np.ndarray,
    pt_chain: np.ndarray,
    pt_pos: np.ndarray,
    seg_chain: np.ndarray,
    seg_pos: np.ndarray,
    chain_len: np.ndarray,
    hops: int,
    bend: np.ndarray,
    spread: np.ndarray,
    walk_idx: np.ndarray,
    walk_off: np.ndarray,
    walk_region: np.ndarray,
    region_w: np.ndarray,
    region_base: np.ndarray,
    width: float,
    height: float,
    params: np.ndarray,
) -> tuple[float, np.ndarray]:
    """The energy and its exact gradient.

    A point does not feel the segments of its own chain of curves within ``hops``
    steps along it (``_near_along``): there the curve is meant to be close to
    itself, and counting it would stretch every curve.  ``params`` = (D, R, λ,
    w_len, w_bend, w_spread, w_area).
    """
    D, R, lam, wlen, wbend, wspread, warea = (
        params[0],
        params[1],
        params[2],
        params[3],
        params[4],
        params[5],
        params[6],
    )
    n = P.shape[0]
    G = np.zeros_like(P)
    pts = np.arange(n)
    moves = np.ones(n, dtype=np.bool_)
    E, finite = _pair_terms(
        P, G, n_spots, sizes, pts, segs, moves, pt_chain, pt_pos, seg_chain, seg_pos, chain_len, hops,
        width, height, D, R, lam, wlen,
    )  # fmt: skip
    if not finite:
        return np.inf, G
    return _shape_terms(
        P, G, bend, spread, walk_idx, walk_off, walk_region, region_w, region_base, wbend, wspread, warea, E
    )


@kernel
def pred_caps(
    P: np.ndarray,
    n_spots: int,
    sizes: np.ndarray,
    segs: np.ndarray,
    width: float,
    height: float,
    reach: float,
) -> np.ndarray:
    """How far each point may move in one step so that nothing can cross (Bertault's PrEd).

    F. Bertault, *A force-directed algorithm that preserves edge-crossing
    properties*, IPL 74, 2000.  For every point ``p`` and segment ``ab`` not at
    ``p``, at distance ``d`` (from a spot's disc), ``p``, ``a`` and ``b`` may each
    move at most ``d/3``: then ``p`` cannot reach the segment within the step, so
    no segment passes a point or another segment and the picture keeps its
    topology.  The window's sides are treated the same way.
    """
    n = P.shape[0]
    maxrad = 0.0
    for i in range(n_spots):
        maxrad = max(maxrad, sizes[i])
    cell = reach + maxrad
    # nothing farther than ``reach`` is looked at, so no step is longer than reach/3
    cap = np.full(n, reach / 3.0)
    for i in range(n):
        rad = sizes[i] if i < n_spots else 0.0
        cap[i] = min(cap[i], (P[i, 0] - rad) / 3.0, (width - P[i, 0] - rad) / 3.0)
        cap[i] = min(cap[i], (P[i, 1] - rad) / 3.0, (height - P[i, 1] - rad) / 3.0)
    start, items, gnx, gny, gx0, gy0 = segment_grid(P, segs, cell)
    stamp = -np.ones(segs.shape[0], dtype=np.int64)
    for i in range(n):
        rad = sizes[i] if i < n_spots else 0.0
        px = P[i, 0]
        py = P[i, 1]
        ci = int((px - gx0) / cell)
        cj = int((py - gy0) / cell)
        for q in range(9):
            ii = ci + q % 3 - 1
            jj = cj + q // 3 - 1
            if ii < 0 or jj < 0 or ii >= gnx or jj >= gny:
                continue
            cc = jj * gnx + ii
            for tt in range(start[cc], start[cc + 1]):
                k = items[tt]
                if stamp[k] == i:
                    continue
                stamp[k] = i
                a = segs[k, 0]
                b = segs[k, 1]
                if a == i or b == i:
                    continue
                ax = P[a, 0]
                ay = P[a, 1]
                bx = P[b, 0]
                by = P[b, 1]
                # the segment is no nearer than its box: when that is farther than all three caps could
                # be lowered to (by a margin for rounding), the pair changes nothing
                gap = max(min(ax, bx) - px, px - max(ax, bx), min(ay, by) - py, py - max(ay, by))
                if gap - rad > 3.0 * max(cap[i], cap[a], cap[b]) + 1e-6:
                    continue
                _t, vx, vy = _closest(px, py, ax, ay, bx, by)
                d = (math.sqrt(vx * vx + vy * vy) - rad) / 3.0
                if d < cap[i]:
                    cap[i] = d
                if d < cap[a]:
                    cap[a] = d
                if d < cap[b]:
                    cap[b] = d
    for i in range(n_spots):
        for j in range(i + 1, n_spots):
            d = (math.hypot(P[i, 0] - P[j, 0], P[i, 1] - P[j, 1]) - sizes[i] - sizes[j]) / 3.0
            if d < cap[i]:
                cap[i] = d
            if d < cap[j]:
                cap[j] = d
    for i in range(n):
        if cap[i] < 0.0:
            cap[i] = 0.0
    return cap


@kernel
def energy_gradient_near(
    P: np.ndarray,
    n_spots: int,
    sizes: np.ndarray,
    pts: np.ndarray,
    segs: np.ndarray,
    moves: np.ndarray,
    pt_chain: np.ndarray,
    pt_pos: np.ndarray,
    seg_chain: np.ndarray,
    seg_pos: np.ndarray,
    chain_len: np.ndarray,
    hops: int,
    bend: np.ndarray,
    spread: np.ndarray,
    walk_idx: np.ndarray,
    walk_off: np.ndarray,
    walk_region: np.ndarray,
    region_w: np.ndarray,
    region_base: np.ndarray,
    width: float,
    height: float,
    params: np.ndarray,
) -> tuple[float, np.ndarray]:
    """The terms of ``energy_gradient`` that hold a point that moves (``moves``), and their gradient.

    When only some points move, every other term is a constant: the energy differs from the
    whole picture's by that constant and the gradient at the points that move is the same.
    Only the points ``pts`` and segments ``segs`` near the moving ones are looked at (with their
    rows of ``seg_chain`` and ``seg_pos``); ``bend``, ``spread`` and the walks are those with a
    point that moves, ``region_w`` zero for a region none of whose walks has one.  The caller
    (``skeleton.Near``) keeps every point and segment within the cut-off of a moving one in
    ``pts`` and ``segs``: then no term with a moving point is missed.  The gradient at a point
    that stays is not its whole gradient (the descent holds such points).
    """
    D, R, lam, wlen, wbend, wspread, warea = (
        params[0],
        params[1],
        params[2],
        params[3],
        params[4],
        params[5],
        params[6],
    )
    G = np.zeros_like(P)
    E, finite = _pair_terms(
        P, G, n_spots, sizes, pts, segs, moves, pt_chain, pt_pos, seg_chain, seg_pos, chain_len, hops,
        width, height, D, R, lam, wlen,
    )  # fmt: skip
    if not finite:
        return np.inf, G
    return _shape_terms(
        P, G, bend, spread, walk_idx, walk_off, walk_region, region_w, region_base, wbend, wspread, warea, E
    )


@kernel
def _shape_terms(
    P: np.ndarray,
    G: np.ndarray,
    bend: np.ndarray,
    spread: np.ndarray,
    walk_idx: np.ndarray,
    walk_off: np.ndarray,
    walk_region: np.ndarray,
    region_w: np.ndarray,
    region_base: np.ndarray,
    wbend: float,
    wspread: float,
    warea: float,
    E: float,
) -> tuple[float, np.ndarray]:
    """The energy ``E`` so far plus bending θ²/ℓ at (prev, point, next), angular spread at
    three-curve spots and −w Σ lives log(area) of the regions, their gradients added to ``G``
    (one sum for ``energy_gradient`` and ``energy_gradient_near``, in the same order)."""
    for k in range(bend.shape[0]):
        a = bend[k, 0]
        i = bend[k, 1]
        b = bend[k, 2]
        ux = P[i, 0] - P[a, 0]
        uy = P[i, 1] - P[a, 1]
        vx = P[b, 0] - P[i, 0]
        vy = P[b, 1] - P[i, 1]
        lu2 = ux * ux + uy * uy
        lv2 = vx * vx + vy * vy
        if lu2 <= 0.0 or lv2 <= 0.0:
            continue
        lu = math.sqrt(lu2)
        lv = math.sqrt(lv2)
        th = math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)
        ell = 0.5 * (lu + lv)
        E += wbend * th * th / ell
        c1 = wbend * 2.0 * th / ell
        c2 = -wbend * th * th / (ell * ell) * 0.5
        gux = c1 * uy / lu2 + c2 * ux / lu
        guy = c1 * -ux / lu2 + c2 * uy / lu
        gvx = c1 * -vy / lv2 + c2 * vx / lv
        gvy = c1 * vx / lv2 + c2 * vy / lv
        G[a, 0] -= gux
        G[a, 1] -= guy
        G[i, 0] += gux - gvx
        G[i, 1] += guy - gvy
        G[b, 0] += gvx
        G[b, 1] += gvy
    target = 2.0 * math.pi / 3.0
    for k in range(spread.shape[0]):
        s = spread[k, 0]
        a = spread[k, 1]
        b = spread[k, 2]
        ux = P[a, 0] - P[s, 0]
        uy = P[a, 1] - P[s, 1]
        vx = P[b, 0] - P[s, 0]
        vy = P[b, 1] - P[s, 1]
        lu2 = ux * ux + uy * uy
        lv2 = vx * vx + vy * vy
        if lu2 <= 0.0 or lv2 <= 0.0:
            continue
        gap = math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)
        if gap < 0:
            gap += 2.0 * math.pi
        dev = gap - target
        E += wspread * dev * dev
        c = wspread * 2.0 * dev
        gux = c * uy / lu2
        guy = c * -ux / lu2
        gvx = c * -vy / lv2
        gvy = c * vx / lv2
        G[a, 0] += gux
        G[a, 1] += guy
        G[b, 0] += gvx
        G[b, 1] += gvy
        G[s, 0] -= gux + gvx
        G[s, 1] -= guy + gvy
    nreg = region_w.shape[0]
    area = region_base.copy()
    for w in range(walk_off.shape[0] - 1):
        r = walk_region[w]
        s0 = walk_off[w]
        s1 = walk_off[w + 1]
        acc = 0.0
        for m in range(s0, s1):
            i = walk_idx[m]
            j = walk_idx[s0 + (m - s0 + 1) % (s1 - s0)]
            acc += P[i, 0] * P[j, 1] - P[j, 0] * P[i, 1]
        area[r] += -0.5 * acc
    for r in range(nreg):
        if region_w[r] == 0.0:
            continue
        if area[r] <= 0.0:
            return np.inf, G
        E -= warea * region_w[r] * math.log(area[r])
    for w in range(walk_off.shape[0] - 1):
        r = walk_region[w]
        if region_w[r] == 0.0:
            continue
        c = -warea * region_w[r] / area[r] * -0.5
        s0 = walk_off[w]
        s1 = walk_off[w + 1]
        cnt = s1 - s0
        for m in range(s0, s1):
            i = walk_idx[m]
            nx_ = walk_idx[s0 + (m - s0 + 1) % cnt]
            pv = walk_idx[s0 + (m - s0 - 1) % cnt]
            G[i, 0] += c * (P[nx_, 1] - P[pv, 1])
            G[i, 1] += c * (P[pv, 0] - P[nx_, 0])
    return E, G


@kernel
def pred_caps_near(
    P: np.ndarray,
    n_spots: int,
    sizes: np.ndarray,
    pts: np.ndarray,
    segs: np.ndarray,
    moves: np.ndarray,
    width: float,
    height: float,
    reach: float,
) -> np.ndarray:
    """``pred_caps`` of the points that move (``moves``), from the pairs with a point that moves
    among the points ``pts`` and segments ``segs`` near them (``skeleton.Near`` keeps every one
    within ``reach`` of a moving point there).  The caps of the points that stay are not theirs
    (the descent does not move them)."""
    n = P.shape[0]
    maxrad = 0.0
    for i in range(n_spots):
        maxrad = max(maxrad, sizes[i])
    cell = reach + maxrad
    cap = np.full(n, reach / 3.0)
    for q0 in range(pts.shape[0]):
        i = pts[q0]
        rad = sizes[i] if i < n_spots else 0.0
        cap[i] = min(cap[i], (P[i, 0] - rad) / 3.0, (width - P[i, 0] - rad) / 3.0)
        cap[i] = min(cap[i], (P[i, 1] - rad) / 3.0, (height - P[i, 1] - rad) / 3.0)
    start, items, gnx, gny, gx0, gy0 = segment_grid(P, segs, cell)
    stamp = -np.ones(segs.shape[0], dtype=np.int64)
    for q0 in range(pts.shape[0]):
        i = pts[q0]
        rad = sizes[i] if i < n_spots else 0.0
        px = P[i, 0]
        py = P[i, 1]
        ci = int((px - gx0) / cell)
        cj = int((py - gy0) / cell)
        for q in range(9):
            ii = ci + q % 3 - 1
            jj = cj + q // 3 - 1
            if ii < 0 or jj < 0 or ii >= gnx or jj >= gny:
                continue
            cc = jj * gnx + ii
            for tt in range(start[cc], start[cc + 1]):
                k = items[tt]
                if stamp[k] == i:
                    continue
                stamp[k] = i
                a = segs[k, 0]
                b = segs[k, 1]
                if a == i or b == i:
                    continue
                if not (moves[i] or moves[a] or moves[b]):
                    continue
                ax = P[a, 0]
                ay = P[a, 1]
                bx = P[b, 0]
                by = P[b, 1]
                gap = max(min(ax, bx) - px, px - max(ax, bx), min(ay, by) - py, py - max(ay, by))
                if gap - rad > 3.0 * max(cap[i], cap[a], cap[b]) + 1e-6:
                    continue
                _t, vx, vy = _closest(px, py, ax, ay, bx, by)
                d = (math.sqrt(vx * vx + vy * vy) - rad) / 3.0
                if d < cap[i]:
                    cap[i] = d
                if d < cap[a]:
                    cap[a] = d
                if d < cap[b]:
                    cap[b] = d
    for i in range(n_spots):
        for j in range(i + 1, n_spots):
            if not (moves[i] or moves[j]):
                continue
            d = (math.hypot(P[i, 0] - P[j, 0], P[i, 1] - P[j, 1]) - sizes[i] - sizes[j]) / 3.0
            if d < cap[i]:
                cap[i] = d
            if d < cap[j]:
                cap[j] = d
    for i in range(n):
        if cap[i] < 0.0:
            cap[i] = 0.0
    return cap


def pred_caps_reference(
    P: np.ndarray,
    n_spots: int,
    sizes: np.ndarray,
    segs: np.ndarray,
    width: float,
    height: float,
    reach: float,
) -> np.ndarray:
    """``pred_caps`` by every point against every segment, in plain Python (the reference it is
    tested against): a segment out of the grid's reach is farther than ``reach``, which no cap
    exceeds, so looking at all of them gives the same caps."""
    n = len(P)
    cap = np.full(n, reach / 3.0)
    for i in range(n):
        rad = float(sizes[i]) if i < n_spots else 0.0
        cap[i] = min(cap[i], (P[i, 0] - rad) / 3.0, (width - P[i, 0] - rad) / 3.0)
        cap[i] = min(cap[i], (P[i, 1] - rad) / 3.0, (height - P[i, 1] - rad) / 3.0)
    for i in range(n):
        rad = float(sizes[i]) if i < n_spots else 0.0
        for a, b in segs:
            if a == i or b == i:
                continue
            _t, vx, vy = _closest(P[i, 0], P[i, 1], P[a, 0], P[a, 1], P[b, 0], P[b, 1])
            d = (math.sqrt(vx * vx + vy * vy) - rad) / 3.0
            cap[i], cap[a], cap[b] = min(cap[i], d), min(cap[a], d), min(cap[b], d)
    for i in range(n_spots):
        for j in range(i + 1, n_spots):
            d = (math.hypot(P[i, 0] - P[j, 0], P[i, 1] - P[j, 1]) - sizes[i] - sizes[j]) / 3.0
            cap[i], cap[j] = min(cap[i], d), min(cap[j], d)
    return np.maximum(cap, 0.0)


@kernel
def polylines_cross(P: np.ndarray, segs: np.ndarray) -> bool:
    """True when two segments that share no end point meet (the check after re-spacing)."""
    m = segs.shape[0]
    for i in range(m):
        a = segs[i, 0]
        b = segs[i, 1]
        ax, ay, bx, by = P[a, 0], P[a, 1], P[b, 0], P[b, 1]
        for j in range(i + 1, m):
            c = segs[j, 0]
            d = segs[j, 1]
            if c in (a, b) or d in (a, b):
                continue
            cx, cy, dx, dy = P[c, 0], P[c, 1], P[d, 0], P[d, 1]
            if max(cx, dx) < min(ax, bx) or min(cx, dx) > max(ax, bx):
                continue
            if max(cy, dy) < min(ay, by) or min(cy, dy) > max(ay, by):
                continue
            d1 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
            d2 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
            d3 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
            d4 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax)
            if d1 * d2 <= 0.0 and d3 * d4 <= 0.0:
                return True
    return False


@kernel
def spot_gaps(P: np.ndarray, n_spots: int, segs: np.ndarray) -> np.ndarray:
    """Each spot's room: its least distance (from the centre) to a segment not at it, half the
    distance to another spot, and the distance to nothing farther than the window's near side."""
    gaps = np.full(n_spots, np.inf)
    for s in range(n_spots):
        px = P[s, 0]
        py = P[s, 1]
        for k in range(segs.shape[0]):
            a = segs[k, 0]
            b = segs[k, 1]
            if a == s or b == s:
                continue
            _t, vx, vy = _closest(px, py, P[a, 0], P[a, 1], P[b, 0], P[b, 1])
            d = math.sqrt(vx * vx + vy * vy)
            if d < gaps[s]:
                gaps[s] = d
        for u in range(n_spots):
            if u != s:
                d = 0.5 * math.hypot(px - P[u, 0], py - P[u, 1])
                if d < gaps[s]:
                    gaps[s] = d
    return gaps
