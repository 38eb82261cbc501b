"""The planner of a move: free space on a grid, shortest and widest ways (Alfeld §3.2–3.3).

The drawing area is cut into square cells ``max(2, min(8, 0.7 d0))`` pixels wide.
Each cell gets its *room*: the clearance of its centre from every curve, spot
and the window's edge.  Near the two end spots of a move, the room left by their
own curves is measured by angle rather than by distance (the distance is scaled
up by ``ρ / r`` within ``ρ = √2 D`` of the spot), so that the narrow corner where a
curve must leave or reach a spot stays open, as it will be for the band; it never
drops below ``0.72`` of a cell, so that no step of the grid can slip through a
curve.  A cell is free when its room is at least ``d0``.

Searches on the 8-connected grid (numba kernels, each also plain Python via
``.py_func``):

* :func:`astar` — Dijkstra/A* from a set of start cells to a set of goal cells,
  with up to seven *parity bits*: a state is (cell, bits), each bit telling
  whether the path has crossed one ray an odd number of times (Alfeld §3.3's parity
  search).  With no rays it is the plain shortest way.
* :func:`widest` — the way whose narrowest cell is widest (a bottleneck search),
  for refusals that say how much room there is and for pushing curves apart.

Crossings of a grid step with a ray are decided in grid units, where cell
centres are integer points, with a fixed symbolic shift of the rays so that no
step passes exactly through a ray's corner.
"""

from __future__ import annotations

import functools
import heapq
import math
from dataclasses import dataclass

import numpy as np

from ..jit import kernel

#: The eight steps of the grid (dx, dy); the first four are straight.
STEPS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)], dtype=np.int64)
#: The symbolic shift of every ray (in grid units): not parallel to any step.
SHIFT = (0.5, 0.25)
#: A cell's room is never scaled below this share of a cell near an end spot (no leak between cells).
LEAKPROOF = 0.72


def cell_size(d0: float) -> float:
    """The width of a grid cell for minimum clearance ``d0`` (Alfeld §3.2)."""
    return max(2.0, min(8.0, 0.7 * d0))


@dataclass
class Grid:
    """Square cells over the window; cell ``k = iy·nx + ix`` is centred at ``(x0 + ix·c, y0 + iy·c)``."""

    x0: float
    y0: float
    cell: float
    nx: int
    ny: int

    @classmethod
    def over(cls, width: float, height: float, d0: float) -> Grid:
        c = cell_size(d0)
        nx = max(1, int(width / c))
        ny = max(1, int(height / c))
        # centre the cells in the window
        return cls((width - (nx - 1) * c) / 2, (height - (ny - 1) * c) / 2, c, nx, ny)

    @property
    def size(self) -> int:
        return self.nx * self.ny

    def centres(self) -> np.ndarray:
        """Every cell's centre, ``(size, 2)``: one read-only array per grid, shared (the router and
        pushing ask for it many times a move)."""
        return _centres(self.x0, self.y0, self.cell, self.nx, self.ny)

    def centre(self, k: int) -> np.ndarray:
        return np.array([self.x0 + (k % self.nx) * self.cell, self.y0 + (k // self.nx) * self.cell])

    def to_grid(self, p: np.ndarray) -> np.ndarray:
        """World point(s) in grid units (cell centres are integer points)."""
        return (np.asarray(p, dtype=float) - (self.x0, self.y0)) / self.cell

    def cells_near(self, p: np.ndarray, radius: float) -> np.ndarray:
        """Cells whose centres lie within ``radius`` of ``p``."""
        g = self.to_grid(p)
        r = radius / self.cell
        ix0, ix1 = max(0, math.floor(g[0] - r)), min(self.nx - 1, math.ceil(g[0] + r))
        iy0, iy1 = max(0, math.floor(g[1] - r)), min(self.ny - 1, math.ceil(g[1] + r))
        if ix0 > ix1 or iy0 > iy1:
            return np.zeros(0, dtype=np.int64)
        ix, iy = np.meshgrid(np.arange(ix0, ix1 + 1), np.arange(iy0, iy1 + 1))
        ks = (iy * self.nx + ix).ravel()
        ixs, iys = ks % self.nx, ks // self.nx
        here = np.stack([self.x0 + ixs * self.cell, self.y0 + iys * self.cell], axis=1)
        d = np.hypot(*(here - p).T) if len(ks) else np.zeros(0)
        return ks[d <= radius].astype(np.int64)


@functools.lru_cache(maxsize=8)
def _centres(x0: float, y0: float, cell: float, nx: int, ny: int) -> np.ndarray:
    ix = np.arange(nx * ny) % nx
    iy = np.arange(nx * ny) // nx
    out = np.stack([x0 + ix * cell, y0 + iy * cell], axis=1)
    out.setflags(write=False)
    return out


# --------------------------------------------------------------------------- room of every cell


@kernel
def room_field(  # noqa: C901  (a numba kernel: one loop nest)
    nx: int,
    ny: int,
    x0: float,
    y0: float,
    cell: float,
    segs: np.ndarray,
    seg_curve: np.ndarray,
    curve_ends: np.ndarray,
    spots: np.ndarray,
    sizes: np.ndarray,
    width: float,
    height: float,
    cap: float,
    special: np.ndarray,
    rho: float,
    d0: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The room of every cell (capped at ``cap``), its nearest obstacle, the nearest point and segment.

    Obstacles are numbered: curve ``e`` is ``e``, spot ``s`` is ``curves + s``, the
    window's edge is ``−2`` (``−1``: nothing within ``cap``).  The spots in
    ``special`` (the move's ends, or ``−1``) are no obstacles themselves, and their
    own curves are measured by angle near them (module docstring).
    """
    n = nx * ny
    n_curves = curve_ends.shape[0]
    room = np.empty(n)
    near = np.empty(n, dtype=np.int64)
    foot = np.empty((n, 2))
    nseg = np.full(n, -1, dtype=np.int64)
    for k in range(n):
        cx = x0 + (k % nx) * cell
        cy = y0 + (k // nx) * cell
        best = cap
        who = -1
        fx = cx
        fy = cy
        for side in range(4):
            if side == 0:
                d, px, py = cx, 0.0, cy
            elif side == 1:
                d, px, py = width - cx, width, cy
            elif side == 2:
                d, px, py = cy, cx, 0.0
            else:
                d, px, py = height - cy, cx, height
            if d < best:
                best = d
                who = -2
                fx = px
                fy = py
        room[k] = best
        near[k] = who
        foot[k, 0] = fx
        foot[k, 1] = fy
    for s in range(spots.shape[0]):
        if s == special[0] or s == special[1]:
            continue
        sx = spots[s, 0]
        sy = spots[s, 1]
        reach = sizes[s] + cap
        ix0 = max(0, math.floor((sx - reach - x0) / cell))
        ix1 = min(nx - 1, math.ceil((sx + reach - x0) / cell))
        iy0 = max(0, math.floor((sy - reach - y0) / cell))
        iy1 = min(ny - 1, math.ceil((sy + reach - y0) / cell))
        for iy in range(iy0, iy1 + 1):
            for ix in range(ix0, ix1 + 1):
                k = iy * nx + ix
                cx = x0 + ix * cell
                cy = y0 + iy * cell
                r = math.hypot(cx - sx, cy - sy)
                d = r - sizes[s]
                if d < room[k]:
                    room[k] = max(d, 0.0)
                    near[k] = n_curves + s
                    nseg[k] = -1
                    if r > 0:
                        foot[k, 0] = sx + (cx - sx) * sizes[s] / r
                        foot[k, 1] = sy + (cy - sy) * sizes[s] / r
                    else:
                        foot[k, 0] = sx
                        foot[k, 1] = sy
    for j in range(segs.shape[0]):
        ax, ay, bx, by = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
        e = seg_curve[j]
        u = curve_ends[e, 0]
        v = curve_ends[e, 1]
        own_u = u == special[0] or u == special[1]
        own_v = v == special[0] or v == special[1]
        ix0 = max(0, math.floor((min(ax, bx) - cap - x0) / cell))
        ix1 = min(nx - 1, math.ceil((max(ax, bx) + cap - x0) / cell))
        iy0 = max(0, math.floor((min(ay, by) - cap - y0) / cell))
        iy1 = min(ny - 1, math.ceil((max(ay, by) + cap - y0) / cell))
        dx = bx - ax
        dy = by - ay
        den = dx * dx + dy * dy
        for iy in range(iy0, iy1 + 1):
            for ix in range(ix0, ix1 + 1):
                k = iy * nx + ix
                cx = x0 + ix * cell
                cy = y0 + iy * cell
                t = 0.0
                if den > 0.0:
                    t = ((cx - ax) * dx + (cy - ay) * dy) / den
                    t = min(1.0, max(0.0, t))
                px = ax + t * dx
                py = ay + t * dy
                d = math.hypot(cx - px, cy - py)
                if d >= room[k]:
                    continue
                eff = d
                if own_u or own_v:
                    # near the move's own end spots: angle, not distance (never below a leak-proof band)
                    need = 1.0
                    for w in (u, v):
                        if w == special[0] or w == special[1]:
                            r = math.hypot(cx - spots[w, 0], cy - spots[w, 1])
                            if r < rho:
                                need = min(need, max(LEAKPROOF * cell / d0, r / rho))
                    eff = d / need
                if eff < room[k]:
                    room[k] = eff
                    near[k] = e
                    nseg[k] = j
                    foot[k, 0] = px
                    foot[k, 1] = py
    return room, near, foot, nseg


@kernel
def room_fields(  # noqa: C901  (a numba kernel: one loop nest)
    nx: int,
    ny: int,
    x0: float,
    y0: float,
    cell: float,
    segs: np.ndarray,
    seg_curve: np.ndarray,
    curve_ends: np.ndarray,
    spots: np.ndarray,
    sizes: np.ndarray,
    width: float,
    height: float,
    cap: float,
    special: np.ndarray,
    rho: float,
    d0: float,
) -> tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]:
    """Three rooms of every cell in one pass over the obstacles, each ``room_field``'s to the last bit:

    * ``room_field(..., special, rho, d0)`` (room, near, foot, segment): the planner's room;
    * ``room_field(..., special, 0.0, d0)``'s room: true distances, the end spots no obstacles
      (``route_search.leakproof_room``);
    * ``room_field(..., [-1, -1], 1.0, d0)`` (room, near, foot, segment): true distances to
      everything, the end spots included (``route_rays.build_rays``).

    A plan asks for all three of the same grid and obstacles; the distance of a cell to a
    segment, the costly part, is worked out once for the three.  Each field is lowered by the
    same comparisons in the same order as alone (the plain and the full fields are never above the
    planner's, whose scaled distances are never below the true ones, so a distance the planner's
    field passes over lowers neither).
    """
    n = nx * ny
    n_curves = curve_ends.shape[0]
    room = np.empty(n)
    near = np.empty(n, dtype=np.int64)
    foot = np.empty((n, 2))
    nseg = np.full(n, -1, dtype=np.int64)
    plain = np.empty(n)
    full = np.empty(n)
    full_near = np.empty(n, dtype=np.int64)
    full_foot = np.empty((n, 2))
    full_seg = np.full(n, -1, dtype=np.int64)
    for k in range(n):
        cx = x0 + (k % nx) * cell
        cy = y0 + (k // nx) * cell
        best = cap
        who = -1
        fx = cx
        fy = cy
        for side in range(4):
            if side == 0:
                d, px, py = cx, 0.0, cy
            elif side == 1:
                d, px, py = width - cx, width, cy
            elif side == 2:
                d, px, py = cy, cx, 0.0
            else:
                d, px, py = height - cy, cx, height
            if d < best:
                best = d
                who = -2
                fx = px
                fy = py
        room[k] = best
        near[k] = who
        foot[k, 0] = fx
        foot[k, 1] = fy
        plain[k] = best
        full[k] = best
        full_near[k] = who
        full_foot[k, 0] = fx
        full_foot[k, 1] = fy
    for s in range(spots.shape[0]):
        is_special = s == special[0] or s == special[1]
        sx = spots[s, 0]
        sy = spots[s, 1]
        reach = sizes[s] + cap
        ix0 = max(0, math.floor((sx - reach - x0) / cell))
        ix1 = min(nx - 1, math.ceil((sx + reach - x0) / cell))
        iy0 = max(0, math.floor((sy - reach - y0) / cell))
        iy1 = min(ny - 1, math.ceil((sy + reach - y0) / cell))
        for iy in range(iy0, iy1 + 1):
            for ix in range(ix0, ix1 + 1):
                k = iy * nx + ix
                cx = x0 + ix * cell
                cy = y0 + iy * cell
                r = math.hypot(cx - sx, cy - sy)
                d = r - sizes[s]
                if r > 0:
                    fx = sx + (cx - sx) * sizes[s] / r
                    fy = sy + (cy - sy) * sizes[s] / r
                else:
                    fx = sx
                    fy = sy
                if d < full[k]:
                    full[k] = max(d, 0.0)
                    full_near[k] = n_curves + s
                    full_seg[k] = -1
                    full_foot[k, 0] = fx
                    full_foot[k, 1] = fy
                if is_special:
                    continue
                if d < plain[k]:
                    plain[k] = max(d, 0.0)
                if d < room[k]:
                    room[k] = max(d, 0.0)
                    near[k] = n_curves + s
                    nseg[k] = -1
                    foot[k, 0] = fx
                    foot[k, 1] = fy
    for j in range(segs.shape[0]):
        ax, ay, bx, by = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
        e = seg_curve[j]
        u = curve_ends[e, 0]
        v = curve_ends[e, 1]
        own_u = u == special[0] or u == special[1]
        own_v = v == special[0] or v == special[1]
        ix0 = max(0, math.floor((min(ax, bx) - cap - x0) / cell))
        ix1 = min(nx - 1, math.ceil((max(ax, bx) + cap - x0) / cell))
        iy0 = max(0, math.floor((min(ay, by) - cap - y0) / cell))
        iy1 = min(ny - 1, math.ceil((max(ay, by) + cap - y0) / cell))
        dx = bx - ax
        dy = by - ay
        den = dx * dx + dy * dy
        for iy in range(iy0, iy1 + 1):
            for ix in range(ix0, ix1 + 1):
                k = iy * nx + ix
                cx = x0 + ix * cell
                cy = y0 + iy * cell
                t = 0.0
                if den > 0.0:
                    t = ((cx - ax) * dx + (cy - ay) * dy) / den
                    t = min(1.0, max(0.0, t))
                px = ax + t * dx
                py = ay + t * dy
                d = math.hypot(cx - px, cy - py)
                if d < full[k]:
                    full[k] = d
                    full_near[k] = e
                    full_seg[k] = j
                    full_foot[k, 0] = px
                    full_foot[k, 1] = py
                if d >= room[k]:
                    continue
                if d < plain[k]:
                    plain[k] = d
                eff = d
                if own_u or own_v:
                    need = 1.0
                    for w in (u, v):
                        if w == special[0] or w == special[1]:
                            r = math.hypot(cx - spots[w, 0], cy - spots[w, 1])
                            if r < rho:
                                need = min(need, max(LEAKPROOF * cell / d0, r / rho))
                    eff = d / need
                if eff < room[k]:
                    room[k] = eff
                    near[k] = e
                    nseg[k] = j
                    foot[k, 0] = px
                    foot[k, 1] = py
    return room, near, foot, nseg, plain, full, full_near, full_foot, full_seg


# --------------------------------------------------------------------------- rays and crossings


@kernel
def _orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@kernel
def step_crosses(
    ax: float,
    ay: float,
    bx: float,
    by: float,
    px: float,
    py: float,
    qx: float,
    qy: float,
    sx: float,
    sy: float,
) -> bool:
    """Does the step ab cross the ray segment pq shifted by an infinitesimal multiple of (sx, sy)?

    Zero orientations are resolved by the sign the shift gives them, so that a
    step through a ray's corner is counted exactly once and a step along a ray
    not at all.
    """
    # orientation of the shifted p and q relative to ab
    o1 = _orient(ax, ay, bx, by, px, py)
    if o1 == 0.0:
        o1 = (bx - ax) * sy - (by - ay) * sx
    o2 = _orient(ax, ay, bx, by, qx, qy)
    if o2 == 0.0:
        o2 = (bx - ax) * sy - (by - ay) * sx
    if (o1 > 0.0) == (o2 > 0.0):
        return False
    # orientation of a and b relative to the shifted pq (a − shift relative to pq)
    o3 = _orient(px, py, qx, qy, ax, ay)
    if o3 == 0.0:
        o3 = -((qx - px) * sy - (qy - py) * sx)
    o4 = _orient(px, py, qx, qy, bx, by)
    if o4 == 0.0:
        o4 = -((qx - px) * sy - (qy - py) * sx)
    return (o3 > 0.0) != (o4 > 0.0)


@kernel
def crossing_masks(
    nx: int, ny: int, ray_segs: np.ndarray, ray_bit: np.ndarray, steps: np.ndarray, sx: float, sy: float
) -> np.ndarray:
    """For every cell and step, the bits of the rays the step crosses (in grid units, xor over pieces)."""
    n = nx * ny
    mask = np.zeros((n, steps.shape[0]), dtype=np.int64)
    for j in range(ray_segs.shape[0]):
        px, py, qx, qy = ray_segs[j, 0], ray_segs[j, 1], ray_segs[j, 2], ray_segs[j, 3]
        bit = ray_bit[j]
        ix0 = max(0, math.floor(min(px, qx)) - 1)
        ix1 = min(nx - 1, math.ceil(max(px, qx)) + 1)
        iy0 = max(0, math.floor(min(py, qy)) - 1)
        iy1 = min(ny - 1, math.ceil(max(py, qy)) + 1)
        for iy in range(iy0, iy1 + 1):
            for ix in range(ix0, ix1 + 1):
                for d in range(steps.shape[0]):
                    jx = ix + steps[d, 0]
                    jy = iy + steps[d, 1]
                    if jx < 0 or jy < 0 or jx >= nx or jy >= ny:
                        continue
                    if step_crosses(ix, iy, jx, jy, px, py, qx, qy, sx, sy):
                        mask[iy * nx + ix, d] ^= bit
    return mask


def segment_bits(a: np.ndarray, b: np.ndarray, ray_segs: np.ndarray, ray_bit: np.ndarray) -> int:
    """The bits of the rays that the segment ab (grid units) crosses."""
    return int(legs_bits(np.array([a, b], dtype=float), ray_segs, ray_bit, SHIFT[0], SHIFT[1])[0])


@kernel
def legs_bits(
    points: np.ndarray, ray_segs: np.ndarray, ray_bit: np.ndarray, sx: float, sy: float
) -> np.ndarray:
    """For every leg ``points[i] → points[i+1]`` (grid units), the bits of the rays it crosses."""
    out = np.zeros(max(points.shape[0] - 1, 0), dtype=np.int64)
    for i in range(points.shape[0] - 1):
        ax, ay, bx, by = points[i, 0], points[i, 1], points[i + 1, 0], points[i + 1, 1]
        for j in range(ray_segs.shape[0]):
            p = ray_segs[j]
            if step_crosses(ax, ay, bx, by, p[0], p[1], p[2], p[3], sx, sy):
                out[i] ^= ray_bit[j]
    return out


def fan_bits(centre: np.ndarray, points: np.ndarray, ray_segs: np.ndarray, ray_bit: np.ndarray) -> np.ndarray:
    """The bits of the rays crossed by each segment from ``centre`` to one of ``points`` (grid units)."""
    if not len(points):
        return np.zeros(0, dtype=np.int64)
    legs = np.empty((2 * len(points), 2))
    legs[0::2] = centre
    legs[1::2] = points
    return legs_bits(legs, ray_segs, ray_bit, SHIFT[0], SHIFT[1])[0::2]


# --------------------------------------------------------------------------- searches


@kernel
def neighbour(k: int, d: int, nx: int, ny: int, steps: np.ndarray) -> int:
    """The cell one step ``d`` from cell ``k``, or −1 off the grid."""
    jx = k % nx + steps[d, 0]
    jy = k // nx + steps[d, 1]
    if jx < 0 or jy < 0 or jx >= nx or jy >= ny:
        return -1
    return jy * nx + jx


@kernel
def walk_back(prev: np.ndarray, end: int, shift: int) -> np.ndarray:
    """The cells of a way found by a search, from its first state to ``end`` (states are cell << shift)."""
    count = 0
    st = end
    while st >= 0:
        count += 1
        st = prev[st]
    path = np.empty(count, dtype=np.int64)
    st = end
    for i in range(count - 1, -1, -1):
        path[i] = st >> shift
        st = prev[st]
    return path


@kernel
def _room_for_one_more(
    dist: np.ndarray, prev: np.ndarray, done: np.ndarray, cap: int, used: int, n: int, block: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A* state pool with room for one more cell's block: doubled (at most ``n`` cells) when full."""
    if used < cap:
        return dist, prev, done, cap
    cap = min(n, 2 * cap)
    dist = np.concatenate((dist, np.full(cap * block - dist.shape[0], np.inf)))
    prev = np.concatenate((prev, np.full(cap * block - prev.shape[0], -1, dtype=np.int64)))
    done = np.concatenate((done, np.zeros(cap * block - done.shape[0], dtype=np.bool_)))
    return dist, prev, done, cap


@kernel
def astar(
    nx: int,
    free: np.ndarray,
    steps: np.ndarray,
    cross: np.ndarray,
    n_bits: int,
    start: np.ndarray,
    start_cost: np.ndarray,
    start_bits: np.ndarray,
    goal_cost: np.ndarray,
    goal_bits: np.ndarray,
    target: int,
    hx: float,
    hy: float,
    max_pops: int = -1,
) -> tuple[float, np.ndarray, int, int]:
    """Shortest way (grid units) from a start cell to a goal cell arriving with parity ``target``.

    States are (cell, bits); the heuristic is the straight distance to the goal
    point ``(hx, hy)``, which no way on can beat (A*).  States are kept only for
    the cells the search reaches (Alfeld §3.3): a cell gets a block of ``2^bits``
    states when it is first reached, from a pool that doubles when full, so
    memory grows with the cells reached, not with ``cells · 2^bits``.  Returns the
    length (inf if none), the cells of the way, the state it ended in
    (``cell << bits | bits``) and the states it expanded (the work it did, ``work.charge_states``).
    With ``max_pops`` ≥ 0 the search is given up once it has expanded more than that many
    states: it then returns an infinite length and the state −2.
    """
    n = free.shape[0]
    block = 1 << n_bits
    mask = block - 1
    slot = np.full(n, -1, dtype=np.int64)
    cap = min(n, 1024)
    dist = np.full(cap * block, np.inf)
    prev = np.full(cap * block, -1, dtype=np.int64)  # the state before, as cell << bits | bits
    done = np.zeros(cap * block, dtype=np.bool_)
    used = 0
    heap = [(0.0, np.int64(0))]
    heap.pop()
    for i in range(start.shape[0]):
        k = start[i]
        if slot[k] < 0:
            dist, prev, done, cap = _room_for_one_more(dist, prev, done, cap, used, n, block)
            slot[k] = used
            used += 1
        at = slot[k] * block + start_bits[i]
        if start_cost[i] < dist[at]:
            dist[at] = start_cost[i]
            f = start_cost[i] + math.hypot((k % nx) - hx, (k // nx) - hy)
            heapq.heappush(heap, (f, np.int64((k << n_bits) | start_bits[i])))
    best = np.inf
    best_state = -1
    diag = math.sqrt(2.0)
    pops = 0
    while heap:
        f, st = heapq.heappop(heap)
        if f >= best:
            break
        k = st >> n_bits
        bits = st & mask
        at = slot[k] * block + bits
        if done[at]:
            continue
        pops += 1
        if 0 <= max_pops < pops:
            return np.inf, np.zeros(0, dtype=np.int64), -2, pops
        done[at] = True
        g = dist[at]
        if goal_cost[k] < np.inf and (bits ^ goal_bits[k]) == target:
            total = g + goal_cost[k]
            if total < best:
                best = total
                best_state = st
        for d in range(steps.shape[0]):
            j = neighbour(k, d, nx, n // nx, steps)
            if j < 0 or not free[j]:
                continue
            if slot[j] < 0:
                dist, prev, done, cap = _room_for_one_more(dist, prev, done, cap, used, n, block)
                slot[j] = used
                used += 1
            nb = bits ^ cross[k, d]
            nat = slot[j] * block + nb
            if done[nat]:
                continue
            ng = g + (1.0 if d < 4 else diag)
            if ng < dist[nat]:
                dist[nat] = ng
                prev[nat] = st
                h = math.hypot(j % nx - hx, j // nx - hy)
                heapq.heappush(heap, (ng + h, np.int64((j << n_bits) | nb)))
    if best_state < 0:
        return np.inf, np.zeros(0, dtype=np.int64), -1, pops
    count = 0
    st = best_state
    while st >= 0:
        count += 1
        st = prev[slot[st >> n_bits] * block + (st & mask)]
    path = np.empty(count, dtype=np.int64)
    st = best_state
    for i in range(count - 1, -1, -1):
        path[i] = st >> n_bits
        st = prev[slot[st >> n_bits] * block + (st & mask)]
    return best, path, best_state, pops


@kernel
def widest(
    nx: int, room: np.ndarray, steps: np.ndarray, start: np.ndarray, goal: np.ndarray
) -> tuple[float, np.ndarray]:
    """The way from a start cell to a goal cell whose least room is greatest (bottleneck search).

    Returns that least room and the cells of the way (empty when no way at all).
    """
    n = room.shape[0]
    ny = n // nx
    width = np.full(n, -np.inf)
    prev = np.full(n, -1, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    heap = [(0.0, np.int64(0))]
    heap.pop()
    for i in range(start.shape[0]):
        k = start[i]
        width[k] = room[k]
        heapq.heappush(heap, (-room[k], np.int64(k)))
    end = -1
    while heap:
        w, k = heapq.heappop(heap)
        if done[k]:
            continue
        done[k] = True
        if goal[k]:
            end = k
            break
        for d in range(steps.shape[0]):
            j = neighbour(k, d, nx, ny, steps)
            if j < 0 or done[j] or room[j] <= 0.0:
                continue
            nw = min(-w, room[j])
            if nw > width[j]:
                width[j] = nw
                prev[j] = k
                heapq.heappush(heap, (-nw, np.int64(j)))
    if end < 0:
        return 0.0, np.zeros(0, dtype=np.int64)
    return width[end], walk_back(prev, end, 0)


@kernel
def grow_tree(
    nx: int, allowed: np.ndarray, steps: np.ndarray, sources: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Dijkstra from many sources over allowed cells: distance and predecessor of every cell (rays).

    ``grow_tree_to`` with no goal cell, so it runs until every reachable cell is settled.
    """
    return grow_tree_to(nx, allowed, steps, sources, np.zeros(allowed.shape[0], dtype=np.bool_))


@kernel
def grow_tree_to(
    nx: int, allowed: np.ndarray, steps: np.ndarray, sources: np.ndarray, goal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``grow_tree`` stopped once the goal cells nearest the sources are reached (a way to the goal).

    The search stops at the first entry farther than the nearest goal cell: every cell no farther
    than that has its distance and predecessor as ``grow_tree`` gives them (Dijkstra settles cells
    in order of distance, the same order here), so the nearest goal cells, the first of them by
    index, and the way back from it are the same; cells farther away may be left unreached or with
    a larger distance.
    """
    n = allowed.shape[0]
    ny = n // nx
    dist = np.full(n, np.inf)
    prev = np.full(n, -1, dtype=np.int64)
    heap = [(0.0, np.int64(0))]
    heap.pop()
    for i in range(sources.shape[0]):
        k = sources[i]
        dist[k] = 0.0
        heapq.heappush(heap, (0.0, np.int64(k)))
    diag = math.sqrt(2.0)
    best = np.inf
    while heap:
        g, k = heapq.heappop(heap)
        if g > best:
            break
        if g > dist[k]:
            continue
        if goal[k]:
            best = g
        for d in range(steps.shape[0]):
            j = neighbour(k, d, nx, ny, steps)
            if j < 0 or not allowed[j]:
                continue
            ng = g + (1.0 if d < 4 else diag)
            if ng < dist[j]:
                dist[j] = ng
                prev[j] = k
                heapq.heappush(heap, (ng, np.int64(j)))
    return dist, prev
