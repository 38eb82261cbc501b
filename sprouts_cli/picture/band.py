"""The elastic band: a route tightened into a smooth way with room on both sides (Alfeld §3.4–3.5).

The route (a polyline from spot ``x`` to spot ``y``) is relaxed by lowering the
clearance energy

    E = Σ |leg|  +  λ Σ_points w · Σ_obstacles φ(r),     φ(r) = ((D − d_h) / (r − d_h))²,

where ``w`` is the length the point stands for, ``r`` the distance to one
obstacle (each other curve, each spot's disc, each side of the window) and
``d_h`` the barrier, raised during the descent towards ``d0`` (a continuation).
Within ``ρ = √2 D`` of an end spot the distance to that spot's own curves is
scaled up by ``ρ / r`` (angle instead of distance).  φ is cut off at 160 px.

Every step moves a point across the band only, and at most 0.45 of the distance
from its two legs to any obstacle (as in Bertault's PrEd), so the band never
passes through anything and keeps the homotopy class it started in.  First the
band's ends are free near the end spots (their own curves are ignored close by);
then the ports are fixed — short stubs in the directions the curve leaves ``x``
and reaches ``y`` — and the band relaxes between them.

A move that closes a region (a loop, or a line between two corners of one
boundary) would be pulled flat by the length term: the shortest loop round
nothing has no width.  Such a band carries one more term per new region it
bounds, ``− μ log(area)``, the area of the polygon the band makes with the
boundary arc that closes it (as A and R charge a live region's area, Alfeld
§4.5).  An empty loop in free room then settles round, of radius ``μ / π``;
near obstacles its outward pressure ``μ / area`` is met by their crowding, so a
region gets room in proportion to its weight and to the free room around it.

The energy and the caps are numba kernels (plain Python via ``.py_func``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..jit import kernel
from .geometry import point_segment_distance, segment_distance, segment_foot
from .work import charge as _charge

CUTOFF = 160.0  # px: obstacles farther than this are not felt (φ is under 0.07 there)
#: A leg of the band is one of its own far-away parts, felt as an obstacle, when it lies more than this
#: many times its distance away along the band (a band folded back round a seed, or a loop).
FOLD = 2.0
#: Points of the band farther than this share of its length from both ends are its middle: there the
#: end spots' own curves are measured by true distance (a short curve's new spot needs true room).
MIDDLE = 0.25


@dataclass
class Obstacles:
    """What a band must keep away from: segments (tagged by curve), spots with radii, the window."""

    segs: np.ndarray  # (m, 4)
    seg_curve: np.ndarray  # (m,)
    curve_ends: np.ndarray  # (curves, 2)
    spots: np.ndarray
    sizes: np.ndarray
    width: float
    height: float
    extra: np.ndarray | None = None  # (k, 4) further segments (the ghost when pushing curves), curve −1


@dataclass
class Closing:
    """A region the band closes: the fixed arc from its last point back to its first, and its weight μ.

    ``arc`` holds the arc's points strictly between the band's ends (empty for a
    loop); ``sign`` makes the polygon's shoelace area positive where the band began.
    """

    arc: np.ndarray
    weight: float
    sign: float = 1.0


def polygon_area(P: np.ndarray, arc: np.ndarray) -> float:
    """The shoelace area of the band ``P`` closed by ``arc`` (signed, x right, y down)."""
    Q = np.concatenate([P, arc]) if len(arc) else P
    x, y = Q[:, 0], Q[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def area_energy(P: np.ndarray, closings: list[Closing]) -> tuple[float, np.ndarray]:
    """``− Σ μ log(area)`` of the regions the band closes, and its gradient; inf once an area vanishes.

    The band's ends are fixed, so only its inner points get a gradient.
    """
    G = np.zeros_like(P)
    E = 0.0
    for c in closings:
        A = c.sign * polygon_area(P, c.arc)
        if A <= 0.0:
            return math.inf, G
        E -= c.weight * math.log(A)
        if len(P) > 2:
            # d(area)/dP_i = ½ (y_{i+1} − y_{i−1}, x_{i−1} − x_{i+1}) for an inner point
            dA = 0.5 * c.sign * np.stack([P[2:, 1] - P[:-2, 1], P[:-2, 0] - P[2:, 0]], axis=1)
            G[1:-1] -= (c.weight / A) * dA
    return E, G


#: Segments are looked at in runs of at most this many in a row of one curve, each run with its box.
RUN = 16


@kernel
def runs_of(segs: np.ndarray, seg_curve: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runs of consecutive segments of one curve, at most ``RUN`` long: where each starts (and
    one past the last), and each run's box (least x, least y, largest x, largest y).  A point
    farther from a run's box than from something already found is farther from all of it."""
    m = segs.shape[0]
    starts = np.empty(m + 1, dtype=np.int64)
    box = np.empty((m, 4))
    n = 0
    for j in range(m):
        x0 = min(segs[j, 0], segs[j, 2])
        y0 = min(segs[j, 1], segs[j, 3])
        x1 = max(segs[j, 0], segs[j, 2])
        y1 = max(segs[j, 1], segs[j, 3])
        if n == 0 or seg_curve[j] != seg_curve[j - 1] or j - starts[n - 1] >= RUN:
            starts[n] = j
            box[n, 0] = x0
            box[n, 1] = y0
            box[n, 2] = x1
            box[n, 3] = y1
            n += 1
        else:
            box[n - 1, 0] = min(box[n - 1, 0], x0)
            box[n - 1, 1] = min(box[n - 1, 1], y0)
            box[n - 1, 2] = max(box[n - 1, 2], x1)
            box[n - 1, 3] = max(box[n - 1, 3], y1)
    starts[n] = m
    return starts[: n + 1].copy(), box[:n].copy()


@kernel
def band_legs(P: np.ndarray) -> np.ndarray:
    """The band's legs ``(N − 1, 4)``: point ``j`` to point ``j + 1``."""
    out = np.empty((max(P.shape[0] - 1, 0), 4))
    for j in range(out.shape[0]):
        out[j, 0] = P[j, 0]
        out[j, 1] = P[j, 1]
        out[j, 2] = P[j + 1, 0]
        out[j, 3] = P[j + 1, 1]
    return out


@kernel
def blocks_of(
    seg_runs: np.ndarray, seg_box: np.ndarray, seg_curve: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Blocks of consecutive runs of one curve: where each starts (in runs, and one past the last)
    and each block's box.  A point farther than the cut-off from a block's box feels none of it."""
    n_runs = seg_runs.shape[0] - 1
    starts = np.empty(n_runs + 1, dtype=np.int64)
    box = np.empty((max(n_runs, 1), 4))
    n = 0
    for run in range(n_runs):
        if n == 0 or seg_curve[seg_runs[run]] != seg_curve[seg_runs[run - 1]]:
            starts[n] = run
            box[n, 0] = seg_box[run, 0]
            box[n, 1] = seg_box[run, 1]
            box[n, 2] = seg_box[run, 2]
            box[n, 3] = seg_box[run, 3]
            n += 1
        else:
            box[n - 1, 0] = min(box[n - 1, 0], seg_box[run, 0])
            box[n - 1, 1] = min(box[n - 1, 1], seg_box[run, 1])
            box[n - 1, 2] = max(box[n - 1, 2], seg_box[run, 2])
            box[n - 1, 3] = max(box[n - 1, 3], seg_box[run, 3])
    starts[n] = n_runs
    return starts[: n + 1].copy(), box[:n].copy()


@kernel
def _beyond(gap2: float, best: float) -> bool:
    """Is a box whose squared distance is ``gap2`` surely farther than ``best`` (with a margin for
    rounding, so that a segment as near as ``best`` is never passed over)?"""
    return gap2 > best * best * (1.0 + 1e-9) + 1e-12


@kernel
def _nearest_in_run(
    run: int,
    px: float,
    py: float,
    middle: bool,
    segs: np.ndarray,
    seg_curve: np.ndarray,
    seg_runs: np.ndarray,
    curve_ends: np.ndarray,
    spots: np.ndarray,
    ends: np.ndarray,
    rho: float,
    ignore: float,
    best_r: np.ndarray,
    best_gx: np.ndarray,
    best_gy: np.ndarray,
    best_j: np.ndarray,
) -> None:
    """The segments of one run looked at for the nearest of their curve to ``(px, py)``: each
    curve's least scaled distance, its direction and the segment (the first, on a tie) kept."""
    for j in range(seg_runs[run], seg_runs[run + 1]):
        ax, ay, bx, by = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
        gx = max(min(ax, bx) - px, px - max(ax, bx))
        gy = max(min(ay, by) - py, py - max(ay, by))
        if gx > CUTOFF or gy > CUTOFF:
            continue
        e = seg_curve[j]
        # no nearer than its box, and the scale only lengthens: a segment whose box is farther than
        # the nearest of its curve found so far cannot be the nearest
        gx = max(gx, 0.0)
        gy = max(gy, 0.0)
        if _beyond(gx * gx + gy * gy, best_r[e]):
            continue
        _t, vx, vy = segment_foot(px, py, ax, ay, bx, by)
        d = math.hypot(vx, vy)
        scale = 1.0
        skip = False
        for w2 in range(2):
            u = curve_ends[e, w2] if e >= 0 else -1
            if u >= 0 and (u == ends[0] or u == ends[1]) and not middle:
                r = math.hypot(px - spots[u, 0], py - spots[u, 1])
                if r < ignore:
                    skip = True
                elif r < rho:
                    scale = max(scale, rho / max(r, 1e-9))
        if skip:
            continue
        eff = d * scale
        if eff < best_r[e] or (eff == best_r[e] and j < best_j[e]):
            best_r[e] = eff
            best_j[e] = j
            if d > 0.0:
                best_gx[e] = vx / d * scale
                best_gy[e] = vy / d * scale
            else:
                best_gx[e] = 0.0
                best_gy[e] = 0.0


@kernel
def band_energy(  # noqa: C901  (a numba kernel: one loop nest)
    P: np.ndarray,
    fixed: np.ndarray,
    segs: np.ndarray,
    seg_curve: np.ndarray,
    n_curves: int,
    curve_ends: np.ndarray,
    spots: np.ndarray,
    sizes: np.ndarray,
    width: float,
    height: float,
    ends: np.ndarray,
    rho: float,
    ignore: float,
    D: float,
    dh: float,
    lam: float,
    fold: float,
) -> tuple[float, np.ndarray, float]:
    """Energy, its gradient (weights held fixed) and the least scaled distance of an inner point.

    For each inner point and each curve in reach, the nearest segment is found by boxes (blocks
    of a curve's runs, runs of ``RUN`` segments, segments), the curve's nearest box first, and a
    box passed over when its distance is beyond the nearest found; ties go to the first segment,
    so the numbers are ``band_energy_reference``'s to the last bit.

    ``ends`` are the band's end spots; their own curves are measured by angle
    within ``rho`` and ignored within ``ignore`` (the first phase), except in
    the band's middle half, where the new spot will sit.  Spots in
    ``ends`` are no obstacles.  The band's own far-away parts are one more
    obstacle (Alfeld §3.4): the legs that are more than ``fold`` times their
    distance away along the band (0 for none), so that a band folded back on
    itself (round a seed, or a loop) keeps its strands apart; near an end spot
    they are measured by angle like that spot's curves.
    """
    N = P.shape[0]
    G = np.zeros((N, 2))
    E = 0.0
    arc = np.zeros(N)
    for i in range(1, N):
        arc[i] = arc[i - 1] + math.hypot(P[i, 0] - P[i - 1, 0], P[i, 1] - P[i - 1, 1])
    for i in range(N - 1):
        dx = P[i + 1, 0] - P[i, 0]
        dy = P[i + 1, 1] - P[i, 1]
        L = math.hypot(dx, dy)
        E += L
        if L > 0.0:
            G[i, 0] -= dx / L
            G[i, 1] -= dy / L
            G[i + 1, 0] += dx / L
            G[i + 1, 1] += dy / L
    least = np.inf
    best_r = np.empty(n_curves)
    best_gx = np.empty(n_curves)
    best_gy = np.empty(n_curves)
    best_j = np.empty(n_curves, dtype=np.int64)
    bound = np.empty(n_curves)
    first = np.empty(n_curves, dtype=np.int64)
    first_gap = np.empty(n_curves)
    seg_runs, seg_box = runs_of(segs, seg_curve)
    n_runs = seg_runs.shape[0] - 1
    blocks, block_box = blocks_of(seg_runs, seg_box, seg_curve)
    gaps = np.empty(n_runs)
    gaps2 = np.empty(n_runs)
    reach = np.empty(max(blocks.shape[0] - 1, 0), dtype=np.bool_)
    own_runs, own_box = runs_of(band_legs(P), np.zeros(max(N - 1, 0), dtype=np.int64))
    for i in range(1, N - 1):
        if fixed[i]:
            continue
        px = P[i, 0]
        py = P[i, 1]
        w = 0.5 * (
            math.hypot(px - P[i - 1, 0], py - P[i - 1, 1]) + math.hypot(P[i + 1, 0] - px, P[i + 1, 1] - py)
        )
        # distance to each curve: the nearest of its segments (scaled near the band's own end spots,
        # but not in the middle half of the band, where the new spot goes: its disc needs true room)
        middle = MIDDLE * arc[N - 1] < arc[i] < (1.0 - MIDDLE) * arc[N - 1]
        for e in range(n_curves):
            best_r[e] = np.inf
            best_j[e] = -1
            bound[e] = np.inf
            first[e] = -1
            first_gap[e] = np.inf
        # first the boxes: each run's gap (a block of one curve's runs out of reach is passed over whole),
        # for each curve the distance to the nearest first point of its runs, which no nearest segment of
        # that curve is farther than, and its run with the nearest box
        for blk in range(blocks.shape[0] - 1):
            box = block_box[blk]
            if max(box[0] - px, px - box[2], box[1] - py, py - box[3]) > CUTOFF:
                reach[blk] = False
                continue
            reach[blk] = True
            for run in range(blocks[blk], blocks[blk + 1]):
                box = seg_box[run]
                gx = max(box[0] - px, px - box[2])
                gy = max(box[1] - py, py - box[3])
                gap = max(gx, gy)
                gaps[run] = gap
                if gap > CUTOFF:
                    continue
                gx = max(gx, 0.0)
                gy = max(gy, 0.0)
                gaps2[run] = gx * gx + gy * gy
                j = seg_runs[run]
                e = seg_curve[j]
                v = math.hypot(segs[j, 0] - px, segs[j, 1] - py)
                if v < bound[e]:
                    bound[e] = v
                if gaps2[run] < first_gap[e]:
                    first_gap[e] = gaps2[run]
                    first[e] = run
        # each curve's nearest box first, which makes its nearest distance so far a tight bound; then
        # every other run of segments in reach whose box is not beyond it (ties go to the first segment)
        for e in range(n_curves):
            if first[e] >= 0:
                _nearest_in_run(
                    first[e], px, py, middle, segs, seg_curve, seg_runs, curve_ends, spots, ends, rho, ignore,
                    best_r, best_gx, best_gy, best_j,
                )  # fmt: skip
        for blk in range(blocks.shape[0] - 1):
            if not reach[blk]:
                continue  # every run of it is out of reach
            e_run = seg_curve[seg_runs[blocks[blk]]]
            for run in range(blocks[blk], blocks[blk + 1]):
                gap = gaps[run]
                if gap > CUTOFF or gap > bound[e_run] or run == first[e_run]:
                    continue
                if _beyond(gaps2[run], best_r[e_run]):
                    continue
                _nearest_in_run(
                    run, px, py, middle, segs, seg_curve, seg_runs, curve_ends, spots, ends, rho, ignore,
                    best_r, best_gx, best_gy, best_j,
                )  # fmt: skip
        for e in range(n_curves):
            r = best_r[e]
            least = min(least, r)
            f = _felt(r, best_gx[e], best_gy[e], lam * w, D, dh, G, i)
            if f == np.inf:
                return np.inf, G, r
            E += f
        if fold > 0.0:
            # the band's own far-away parts: the nearest leg farther along the band than fold × its distance
            r_self = np.inf
            sgx = 0.0
            sgy = 0.0
            for run in range(own_runs.shape[0] - 1):
                box = own_box[run]
                gap = max(box[0] - px, px - box[2], box[1] - py, py - box[3])
                if gap > CUTOFF or gap >= r_self:
                    continue
                # no leg of the run is farther along the band than fold × its box's gap: none counts
                j0 = own_runs[run]
                j1 = own_runs[run + 1]
                if max(arc[i] - arc[min(j0 + 1, N - 1)], arc[j1 - 1] - arc[i]) <= fold * gap:
                    continue
                for j in range(j0, j1):
                    if j + 1 <= i:
                        sep = arc[i] - arc[j + 1]
                    elif j >= i:
                        sep = arc[j] - arc[i]
                    else:
                        continue
                    ax, ay, bx, by = P[j, 0], P[j, 1], P[j + 1, 0], P[j + 1, 1]
                    if min(ax, bx) - px > CUTOFF or px - max(ax, bx) > CUTOFF:
                        continue
                    if min(ay, by) - py > CUTOFF or py - max(ay, by) > CUTOFF:
                        continue
                    box_gap = max(min(ax, bx) - px, px - max(ax, bx), min(ay, by) - py, py - max(ay, by))
                    if box_gap >= r_self or sep <= fold * box_gap:
                        continue  # no nearer than its box: it cannot be the nearest, nor far enough along
                    _t, vx, vy = segment_foot(px, py, ax, ay, bx, by)
                    d = math.hypot(vx, vy)
                    if sep <= fold * d or d >= r_self:
                        continue
                    r_self = d
                    if d > 0.0:
                        sgx = vx / d
                        sgy = vy / d
            if r_self < np.inf:
                scale = 1.0
                skip = False
                for w2 in range(2):
                    u = ends[w2]
                    if u >= 0:
                        r = math.hypot(px - spots[u, 0], py - spots[u, 1])
                        if r < ignore:
                            skip = True
                        elif r < rho:
                            scale = max(scale, rho / max(r, 1e-9))
                if not skip:
                    r = r_self * scale
                    least = min(least, r)
                    f = _felt(r, sgx * scale, sgy * scale, lam * w, D, dh, G, i)
                    if f == np.inf:
                        return np.inf, G, r
                    E += f
        # spots (their discs), not the band's own ends
        for s in range(spots.shape[0]):
            if s == ends[0] or s == ends[1]:
                continue
            vx = px - spots[s, 0]
            vy = py - spots[s, 1]
            rr = math.hypot(vx, vy)
            r = rr - sizes[s]
            least = min(least, r)
            rr = max(rr, 1e-300)  # a point at a spot's centre is inside the barrier anyway
            f = _felt(r, vx / rr, vy / rr, lam * w, D, dh, G, i)
            if f == np.inf:
                return np.inf, G, r
            E += f
        # the four sides of the window
        for side in range(4):
            if side == 0:
                r, gx, gy = px, 1.0, 0.0
            elif side == 1:
                r, gx, gy = width - px, -1.0, 0.0
            elif side == 2:
                r, gx, gy = py, 0.0, 1.0
            else:
                r, gx, gy = height - py, 0.0, -1.0
            least = min(least, r)
            f = _felt(r, gx, gy, lam * w, D, dh, G, i)
            if f == np.inf:
                return np.inf, G, r
            E += f
    return E, G, least


@kernel
def band_energy_reference(  # noqa: C901  (a numba kernel: one loop nest)
    P: np.ndarray,
    fixed: np.ndarray,
    segs: np.ndarray,
    seg_curve: np.ndarray,
    n_curves: int,
    curve_ends: np.ndarray,
    spots: np.ndarray,
    sizes: np.ndarray,
    width: float,
    height: float,
    ends: np.ndarray,
    rho: float,
    ignore: float,
    D: float,
    dh: float,
    lam: float,
    fold: float,
) -> tuple[float, np.ndarray, float]:
    """``band_energy`` by a plainer search: every run of segments in reach in its order, each
    pruned by its box's largest gap along an axis.  The same numbers to the last bit (the tests
    hold them together).

    ``ends`` are the band's end spots; their own curves are measured by angle
    within ``rho`` and ignored within ``ignore`` (the first phase), except in
    the band's middle half, where the new spot will sit.  Spots in
    ``ends`` are no obstacles.  The band's own far-away parts are one more
    obstacle (Alfeld §3.4): the legs that are more than ``fold`` times their
    distance away along the band (0 for none), so that a band folded back on
    itself (round a seed, or a loop) keeps its strands apart; near an end spot
    they are measured by angle like that spot's curves.
    """
    N = P.shape[0]
    G = np.zeros((N, 2))
    E = 0.0
    arc = np.zeros(N)
    for i in range(1, N):
        arc[i] = arc[i - 1] + math.hypot(P[i, 0] - P[i - 1, 0], P[i, 1] - P[i - 1, 1])
    for i in range(N - 1):
        dx = P[i + 1, 0] - P[i, 0]
        dy = P[i + 1, 1] - P[i, 1]
        L = math.hypot(dx, dy)
        E += L
        if L > 0.0:
            G[i, 0] -= dx / L
            G[i, 1] -= dy / L
            G[i + 1, 0] += dx / L
            G[i + 1, 1] += dy / L
    least = np.inf
    best_r = np.empty(n_curves)
    best_gx = np.empty(n_curves)
    best_gy = np.empty(n_curves)
    bound = np.empty(n_curves)
    seg_runs, seg_box = runs_of(segs, seg_curve)
    n_runs = seg_runs.shape[0] - 1
    gaps = np.empty(n_runs)
    own_runs, own_box = runs_of(band_legs(P), np.zeros(max(N - 1, 0), dtype=np.int64))
    for i in range(1, N - 1):
        if fixed[i]:
            continue
        px = P[i, 0]
        py = P[i, 1]
        w = 0.5 * (
            math.hypot(px - P[i - 1, 0], py - P[i - 1, 1]) + math.hypot(P[i + 1, 0] - px, P[i + 1, 1] - py)
        )
        # distance to each curve: the nearest of its segments (scaled near the band's own end spots,
        # but not in the middle half of the band, where the new spot goes: its disc needs true room)
        middle = MIDDLE * arc[N - 1] < arc[i] < (1.0 - MIDDLE) * arc[N - 1]
        for e in range(n_curves):
            best_r[e] = np.inf
            bound[e] = np.inf
        # first the boxes: each run's gap, and for each curve the distance to the nearest first point of
        # its runs, which no nearest segment of that curve is farther than
        for run in range(n_runs):
            box = seg_box[run]
            gap = max(box[0] - px, px - box[2], box[1] - py, py - box[3])
            gaps[run] = gap
            if gap > CUTOFF:
                continue
            j = seg_runs[run]
            e = seg_curve[j]
            v = math.hypot(segs[j, 0] - px, segs[j, 1] - py)
            if v < bound[e]:
                bound[e] = v
        for run in range(n_runs):
            # a run of segments whose box is beyond reach, or farther than a point of its curve, or as far
            # as the nearest of its curve so far, is passed over whole: every segment in it would be
            gap = gaps[run]
            e_run = seg_curve[seg_runs[run]]
            if gap > CUTOFF or gap > bound[e_run] or gap >= best_r[e_run]:
                continue
            for j in range(seg_runs[run], seg_runs[run + 1]):
                ax, ay, bx, by = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
                if min(ax, bx) - px > CUTOFF or px - max(ax, bx) > CUTOFF:
                    continue
                if min(ay, by) - py > CUTOFF or py - max(ay, by) > CUTOFF:
                    continue
                e = seg_curve[j]
                # no nearer than its box, and the scale only lengthens: a segment whose box is as far
                # as the nearest of its curve found so far cannot be the nearest
                if max(min(ax, bx) - px, px - max(ax, bx), min(ay, by) - py, py - max(ay, by)) >= best_r[e]:
                    continue
                _t, vx, vy = segment_foot(px, py, ax, ay, bx, by)
                d = math.hypot(vx, vy)
                scale = 1.0
                skip = False
                for w2 in range(2):
                    u = curve_ends[e, w2] if e >= 0 else -1
                    if u >= 0 and (u == ends[0] or u == ends[1]) and not middle:
                        r = math.hypot(px - spots[u, 0], py - spots[u, 1])
                        if r < ignore:
                            skip = True
                        elif r < rho:
                            scale = max(scale, rho / max(r, 1e-9))
                if skip:
                    continue
                eff = d * scale
                if eff < best_r[e]:
                    best_r[e] = eff
                    if d > 0.0:
                        best_gx[e] = vx / d * scale
                        best_gy[e] = vy / d * scale
                    else:
                        best_gx[e] = 0.0
                        best_gy[e] = 0.0
        for e in range(n_curves):
            r = best_r[e]
            least = min(least, r)
            f = _felt(r, best_gx[e], best_gy[e], lam * w, D, dh, G, i)
            if f == np.inf:
                return np.inf, G, r
            E += f
        if fold > 0.0:
            # the band's own far-away parts: the nearest leg farther along the band than fold × its distance
            r_self = np.inf
            sgx = 0.0
            sgy = 0.0
            for run in range(own_runs.shape[0] - 1):
                box = own_box[run]
                gap = max(box[0] - px, px - box[2], box[1] - py, py - box[3])
                if gap > CUTOFF or gap >= r_self:
                    continue
                for j in range(own_runs[run], own_runs[run + 1]):
                    if j + 1 <= i:
                        sep = arc[i] - arc[j + 1]
                    elif j >= i:
                        sep = arc[j] - arc[i]
                    else:
                        continue
                    ax, ay, bx, by = P[j, 0], P[j, 1], P[j + 1, 0], P[j + 1, 1]
                    if min(ax, bx) - px > CUTOFF or px - max(ax, bx) > CUTOFF:
                        continue
                    if min(ay, by) - py > CUTOFF or py - max(ay, by) > CUTOFF:
                        continue
                    if max(min(ax, bx) - px, px - max(ax, bx), min(ay, by) - py, py - max(ay, by)) >= r_self:
                        continue  # no nearer than its box: it cannot be the nearest
                    _t, vx, vy = segment_foot(px, py, ax, ay, bx, by)
                    d = math.hypot(vx, vy)
                    if sep <= fold * d or d >= r_self:
                        continue
                    r_self = d
                    if d > 0.0:
                        sgx = vx / d
                        sgy = vy / d
            if r_self < np.inf:
                scale = 1.0
                skip = False
                for w2 in range(2):
                    u = ends[w2]
                    if u >= 0:
                        r = math.hypot(px - spots[u, 0], py - spots[u, 1])
                        if r < ignore:
                            skip = True
                        elif r < rho:
                            scale = max(scale, rho / max(r, 1e-9))
                if not skip:
                    r = r_self * scale
                    least = min(least, r)
                    f = _felt(r, sgx * scale, sgy * scale, lam * w, D, dh, G, i)
                    if f == np.inf:
                        return np.inf, G, r
                    E += f
        # spots (their discs), not the band's own ends
        for s in range(spots.shape[0]):
            if s == ends[0] or s == ends[1]:
                continue
            vx = px - spots[s, 0]
            vy = py - spots[s, 1]
            rr = math.hypot(vx, vy)
            r = rr - sizes[s]
            least = min(least, r)
            rr = max(rr, 1e-300)  # a point at a spot's centre is inside the barrier anyway
            f = _felt(r, vx / rr, vy / rr, lam * w, D, dh, G, i)
            if f == np.inf:
                return np.inf, G, r
            E += f
        # the four sides of the window
        for side in range(4):
            if side == 0:
                r, gx, gy = px, 1.0, 0.0
            elif side == 1:
                r, gx, gy = width - px, -1.0, 0.0
            elif side == 2:
                r, gx, gy = py, 0.0, 1.0
            else:
                r, gx, gy = height - py, 0.0, -1.0
            least = min(least, r)
            f = _felt(r, gx, gy, lam * w, D, dh, G, i)
            if f == np.inf:
                return np.inf, G, r
            E += f
    return E, G, least


@kernel
def _felt(r: float, gx: float, gy: float, weight: float, D: float, dh: float, G: np.ndarray, i: int) -> float:
    """The crowding ``weight · φ(r)`` of one obstacle felt by point ``i``, its gradient added to ``G[i]``.

    ``(gx, gy)`` is the unit direction from the obstacle to the point; inf inside the barrier.
    """
    if r >= CUTOFF:
        return 0.0
    if r <= dh:
        return np.inf
    q = (D - dh) / (r - dh)
    der = -2.0 * q * q / (r - dh)
    G[i, 0] += weight * der * gx
    G[i, 1] += weight * der * gy
    return weight * q * q


@kernel
def band_caps(  # noqa: C901  (a numba kernel: one loop nest)
    P: np.ndarray,
    segs: np.ndarray,
    seg_curve: np.ndarray,
    curve_ends: np.ndarray,
    spots: np.ndarray,
    sizes: np.ndarray,
    width: float,
    height: float,
    ends: np.ndarray,
    reach: float,
) -> np.ndarray:
    """How far each point may move in one step without its legs reaching anything (PrEd-style caps).

    A point moves at most 0.45 of the distance from either of its legs to any
    segment, spot disc or window side; the legs then cannot sweep across
    anything.  A leg at an end spot is measured from its other point against that
    spot's own curves (they meet the leg at the spot by design).
    """
    N = P.shape[0]
    legd = np.full(N - 1, reach)
    seg_runs, seg_box = runs_of(segs, seg_curve)
    own_runs, own_box = runs_of(band_legs(P), np.zeros(max(N - 1, 0), dtype=np.int64))
    for i in range(N - 1):
        ax, ay, bx, by = P[i, 0], P[i, 1], P[i + 1, 0], P[i + 1, 1]
        lo_x = min(ax, bx) - reach
        hi_x = max(ax, bx) + reach
        lo_y = min(ay, by) - reach
        hi_y = max(ay, by) + reach
        best = min(reach, ax, bx, ay, by, width - ax, width - bx, height - ay, height - by)
        for run in range(seg_runs.shape[0] - 1):
            gap = max(seg_box[run, 0] - max(ax, bx), min(ax, bx) - seg_box[run, 2])
            gap = max(gap, seg_box[run, 1] - max(ay, by), min(ay, by) - seg_box[run, 3])
            if gap > reach or gap >= best:
                continue
            for j in range(seg_runs[run], seg_runs[run + 1]):
                cx, cy, dx, dy = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
                if max(cx, dx) < lo_x or min(cx, dx) > hi_x or max(cy, dy) < lo_y or min(cy, dy) > hi_y:
                    continue
                # no nearer to the leg (or a point of it) than the gap between their boxes
                gap = max(min(cx, dx) - max(ax, bx), min(ax, bx) - max(cx, dx), min(cy, dy) - max(ay, by))
                if max(gap, min(ay, by) - max(cy, dy)) >= best:
                    continue
                e = seg_curve[j]
                at_end = -1
                if e >= 0:
                    for w2 in range(2):
                        u = curve_ends[e, w2]
                        if i == 0 and u == ends[0]:
                            at_end = 1
                        if i == N - 2 and u == ends[1]:
                            at_end = 0
                if at_end >= 0:
                    # the leg meets this curve at the spot: keep its free point off the curve
                    d = point_segment_distance(P[i + at_end, 0], P[i + at_end, 1], cx, cy, dx, dy)
                else:
                    d = segment_distance(ax, ay, bx, by, cx, cy, dx, dy)
                if d < best:
                    best = d
        for s in range(spots.shape[0]):
            if s == ends[0] or s == ends[1]:
                continue
            sx = spots[s, 0]
            sy = spots[s, 1]
            if sx < lo_x - sizes[s] or sx > hi_x + sizes[s] or sy < lo_y - sizes[s] or sy > hi_y + sizes[s]:
                continue
            d = point_segment_distance(sx, sy, ax, ay, bx, by) - sizes[s]
            if d < best:
                best = d
        # the band's own legs that are not its neighbours: it must not cross itself
        for run in range(own_runs.shape[0] - 1):
            gap = max(own_box[run, 0] - max(ax, bx), min(ax, bx) - own_box[run, 2])
            gap = max(gap, own_box[run, 1] - max(ay, by), min(ay, by) - own_box[run, 3])
            if gap > reach or gap >= best:
                continue
            for j in range(own_runs[run], own_runs[run + 1]):
                if abs(j - i) <= 1:
                    continue
                cx, cy, dx, dy = P[j, 0], P[j, 1], P[j + 1, 0], P[j + 1, 1]
                if max(cx, dx) < lo_x or min(cx, dx) > hi_x or max(cy, dy) < lo_y or min(cy, dy) > hi_y:
                    continue
                closed = abs(P[0, 0] - P[N - 1, 0]) < 1e-6 and abs(P[0, 1] - P[N - 1, 1]) < 1e-6
                if closed and ((i == 0 and j == N - 2) or (i == N - 2 and j == 0)):
                    # a loop's first and last legs meet at its spot: keep their free points apart
                    q = 1 if i == 0 else N - 2
                    best = min(best, point_segment_distance(P[q, 0], P[q, 1], cx, cy, dx, dy))
                    continue
                d = segment_distance(ax, ay, bx, by, cx, cy, dx, dy)
                if d < best:
                    best = d
        legd[i] = max(best, 0.0)
    caps = np.zeros(N)
    for i in range(N):
        c = reach
        if i > 0:
            c = min(c, legd[i - 1])
        if i < N - 1:
            c = min(c, legd[i])
        caps[i] = 0.45 * c
    return caps


# --------------------------------------------------------------------------- the descent


@dataclass
class BandSettings:
    d0: float = 6.0
    D: float = 40.0
    lam: float = 1.0
    spacing: float = 8.0
    steps: int = 160
    fold: float = FOLD


def resample(P: np.ndarray, spacing: float) -> np.ndarray:
    """Points spread evenly along the polyline, about ``spacing`` apart (ends kept)."""
    legs = np.hypot(*np.diff(P, axis=0).T)
    length = float(legs.sum())
    m = max(2, round(length / spacing))
    t = np.concatenate([[0.0], np.cumsum(legs)])
    s = np.linspace(0.0, length, m + 1)
    return np.stack([np.interp(s, t, P[:, 0]), np.interp(s, t, P[:, 1])], axis=1)


#: How far (px) the box whose segments a band keeps reaches beyond the band's own (``Band.near``).
NEAR_SLACK = 24.0


class Band:
    """A polyline between two spots, relaxed among the obstacles of a picture."""

    def __init__(self, obstacles: Obstacles, ends: tuple[int, int], settings: BandSettings) -> None:
        self.ob = obstacles
        self.ends = np.array(ends, dtype=np.int64)
        self.st = settings
        segs = obstacles.segs
        seg_curve = obstacles.seg_curve
        if obstacles.extra is not None and len(obstacles.extra):
            segs = np.concatenate([segs, obstacles.extra])
            # the extra segments form one obstacle of their own, numbered after the curves
            seg_curve = np.concatenate([seg_curve, np.full(len(obstacles.extra), len(obstacles.curve_ends))])
        self.segs = np.ascontiguousarray(segs, dtype=float).reshape(-1, 4)
        self.seg_curve = np.ascontiguousarray(seg_curve, dtype=np.int64)
        ce = np.asarray(obstacles.curve_ends, dtype=np.int64).reshape(-1, 2)
        self.curve_ends = np.concatenate([ce, [[-1, -1]]]).astype(np.int64)
        self.n_curves = len(self.curve_ends)
        self.seg_lo = np.minimum(self.segs[:, :2], self.segs[:, 2:])
        self.seg_hi = np.maximum(self.segs[:, :2], self.segs[:, 2:])
        self.rho = math.sqrt(2.0) * settings.D
        #: the regions the band closes (a loop, a line between corners of one boundary)
        self.closings: list[Closing] = []
        #: by reach: the box round the band and its segments (``near``)
        self._near: dict[float, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}

    def near(self, P: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
        """The obstacle segments within ``reach`` of a box round the band, and their curves.

        The box is the band's bounding box grown by ``NEAR_SLACK``, kept (with its segments) for
        each ``reach`` until the band leaves it: a band moves a little at each step, and
        choosing the segments is a pass over all of them, which every evaluation of its
        energy and caps would otherwise make.  The kernels skip a segment whose box is farther than their
        reach from a point (or leg); one farther than that from the whole band is skipped
        for every point, so the kept segments (``near_reference``'s and some farther ones,
        in the same order) give the same numbers.
        """
        lo = P.min(axis=0)
        hi = P.max(axis=0)
        kept = self._near.get(reach)
        if kept is not None and (lo >= kept[0]).all() and (hi <= kept[1]).all():
            return kept[2], kept[3]
        box_lo, box_hi = lo - NEAR_SLACK, hi + NEAR_SLACK
        segs, seg_curve = self._within(box_lo, box_hi, reach)
        self._near[reach] = (box_lo, box_hi, segs, seg_curve)
        return segs, seg_curve

    def near_reference(self, P: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
        """The obstacle segments within ``reach`` of the band's own bounding box, chosen afresh."""
        return self._within(P.min(axis=0), P.max(axis=0), reach)

    def _within(self, lo: np.ndarray, hi: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
        """The segments whose boxes come within ``reach`` (and a pixel) of the box ``lo``-``hi``."""
        lo = lo - (reach + 1.0)
        hi = hi + (reach + 1.0)
        keep = ((self.seg_hi >= lo) & (self.seg_lo <= hi)).all(axis=1)
        if keep.all():
            return self.segs, self.seg_curve
        return np.ascontiguousarray(self.segs[keep]), np.ascontiguousarray(self.seg_curve[keep])

    def energy(
        self, P: np.ndarray, fixed: np.ndarray, dh: float, ignore: float
    ) -> tuple[float, np.ndarray, float]:
        _charge(len(P))
        ob = self.ob
        segs, seg_curve = self.near(P, CUTOFF)
        E, G, least = band_energy(
            P, fixed, segs, seg_curve, self.n_curves, self.curve_ends, ob.spots, ob.sizes,
            ob.width, ob.height, self.ends, self.rho, ignore, self.st.D, dh, self.st.lam, self.st.fold,
        )  # fmt: skip
        if self.closings and math.isfinite(E):
            Ea, Ga = area_energy(P, self.closings)
            return E + Ea, G + Ga, least
        return E, G, least

    def caps(self, P: np.ndarray) -> np.ndarray:
        ob = self.ob
        reach = 2.0 * self.st.D
        segs, seg_curve = self.near(P, reach)
        return band_caps(
            P, segs, seg_curve, self.curve_ends, ob.spots, ob.sizes, ob.width, ob.height, self.ends, reach
        )

    def clearance(self, P: np.ndarray) -> float:
        """The least distance from the band's legs to anything (0.45 of it is the tightest cap)."""
        caps = self.caps(P)
        return float(caps[1:-1].min() / 0.45) if len(caps) > 2 else float(caps.min() / 0.45)

    def resample_clear(self, path: np.ndarray, spacing: float) -> np.ndarray:
        """The path resampled about ``spacing`` apart, keeping its corners where a chord would cut one.

        The first and last legs (from a spot to its first cell) are kept whole.  Plain
        resampling can cut a corner of a grid path into an obstacle; every leg
        whose two points have no room to move (a leg that reaches something) gets
        back the path's own corners between its ends, until every leg is clear or
        the path's corners are all back (then it is as clear as the path itself).
        """
        path = np.asarray(path, dtype=float)
        legs = np.hypot(*np.diff(path, axis=0).T)
        t = np.concatenate([[0.0], np.cumsum(legs)])
        length = float(t[-1])
        m = max(2, round(length / spacing))
        s = np.linspace(0.0, length, m + 1)
        if len(path) > 3:
            # the legs at the spots were chosen clear of the spots' own curves (route_plan.end_cells): keep
            # them whole, since a point on them is nearer those curves than the band's end legs may be
            inner = s[(s > t[1]) & (s < t[-2])]
            s = np.concatenate([[0.0, t[1]], inner, [t[-2], length]])
            s = np.unique(s)
        for _ in range(len(path)):
            R = np.stack([np.interp(s, t, path[:, 0]), np.interp(s, t, path[:, 1])], axis=1)
            caps = self.caps(R)
            stuck = caps <= 0.0
            bad = np.nonzero(stuck[:-1] & stuck[1:])[0]
            add = [t[(t > s[j]) & (t < s[j + 1])] for j in bad]
            add = [a for a in add if len(a)]
            if not add:
                return R
            s = np.union1d(s, np.concatenate(add))
        return R

    def relax(
        self, P: np.ndarray, fixed: np.ndarray, ignore: float = 0.0, steps: int | None = None
    ) -> tuple[np.ndarray, float]:
        """Capped, projected gradient descent with a raised barrier; returns the points and their energy."""
        st = self.st
        P = np.array(P, dtype=float)
        fixed = np.asarray(fixed, dtype=np.bool_)
        dh = 0.0
        E, G, least = self.energy(P, fixed, dh, ignore)
        if not math.isfinite(E):
            return P, E
        alpha = 0.5
        quiet = 0
        free_ends = not fixed[1:-1].any()

        def respaced(P, fixed, E, G, least, force):
            # points drift together where the band bends, and apart where it grows (a region
            # opening up): spread them again if nothing is crossed
            legs = np.hypot(*np.diff(P, axis=0).T)
            if not (legs.min() < 0.3 * st.spacing or legs.max() > 2.5 * st.spacing):
                return None
            if not force and legs.max() <= 2.5 * st.spacing and legs.min() >= 0.3 * st.spacing:
                return None
            R = resample(P, st.spacing)
            if self.clearance(R) <= 0.0:
                return None
            Rf = np.zeros(len(R), dtype=np.bool_)
            Rf[[0, -1]] = True
            ER, GR, lR = self.energy(R, Rf, dh, ignore)
            if not math.isfinite(ER):
                return None
            return R, Rf, ER, GR, lR

        for step in range(steps or st.steps):
            if step % 10 == 9 and free_ends:
                new = respaced(P, fixed, E, G, least, False)
                if new is not None:
                    P, fixed, E, G, least = new
            # the barrier follows the band's own clearance up towards d0
            if step % 10 == 0 and math.isfinite(least):
                new_dh = min(0.9 * st.d0, 0.8 * least)
                if new_dh > dh:
                    dh = new_dh
                    E, G, least = self.energy(P, fixed, dh, ignore)
            V = _across(P, G)
            V[fixed] = 0.0
            step_taken = capped_step(
                lambda S, P=P, fixed=fixed, dh=dh: (P + S, *self.energy(P + S, fixed, dh, ignore)),
                V, self.caps(P), E, alpha, 12,
            )
            if step_taken is None:
                new = respaced(P, fixed, E, G, least, True) if free_ends else None
                if new is None:
                    break
                P, fixed, E, G, least = new
                quiet = 0
                continue
            Pn, En, Gn, ln, alpha = step_taken
            moved = float(np.hypot(*(Pn - P).T).max())
            gain = E - En
            P, E, G, least = Pn, En, Gn, ln
            alpha = min(alpha * 2.0, 8.0)
            quiet = quiet + 1 if (moved < 0.05 or gain < 1e-4 * abs(E)) else 0
            if quiet >= 6:
                new = respaced(P, fixed, E, G, least, True) if free_ends else None
                if new is None:
                    break
                P, fixed, E, G, least = new
                quiet = 0
        return P, E


def capped_step(trial, V: np.ndarray, caps: np.ndarray, E: float, alpha: float, tries: int):
    """A descent step along ``−V``, each row capped at its ``caps``, halved until the energy drops.

    ``trial(S)`` returns the moved points and their energy, gradient and least
    distance.  Returns those and the step length that worked, or None.
    """
    for _ in range(tries):
        S = -alpha * V
        norm = np.hypot(S[:, 0], S[:, 1])
        S *= np.minimum(1.0, caps / np.maximum(norm, 1e-300))[:, None]
        Xn, En, Gn, ln = trial(S)
        if En < E:
            return Xn, En, Gn, ln, alpha
        alpha *= 0.5
    return None


def _across(P: np.ndarray, G: np.ndarray) -> np.ndarray:
    """The gradient with its component along the band removed (moving along it changes only spacing)."""
    V = G.copy()
    if len(P) > 2:
        t = P[2:] - P[:-2]
        t /= np.maximum(np.hypot(t[:, 0], t[:, 1]), 1e-12)[:, None]
        dot = (V[1:-1] * t).sum(axis=1)
        V[1:-1] -= dot[:, None] * t
    return V
