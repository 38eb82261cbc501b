"""Drawing one move into the picture as it stands (Alfeld §3).

A move of the engine (from a corner of spot ``x`` to a corner of spot ``y`` in one
region, with the region's other boundaries shared out between the two sides) is
drawn in four stages:

1. **A route on the grid** (``grid_planner``): the shortest way through free
   cells from ``x``'s corner to ``y``'s corner.  A one-boundary move (or a loop)
   must put every other boundary of its region on its side; the route is then
   found by the *parity search*: a ray is cut in the region from each boundary
   that the last route left on the wrong side to an anchor known to lie on side
   B (the far arc of the cut boundary, or the window or the region's own cycle
   for a loop at a lone spot), and A* runs over (cell, parity bits) for a way
   that crosses each ray an odd number of times exactly when its boundary must go
   to side A — at most seven rays.  A loop's two ends are kept apart by a short
   closed strip along the bisector of its corner, so that the way must go round.
2. **The band** (``band``): the route tightened between obstacles in two phases,
   ends free near the spots, then with fixed ports.
3. **The spline**: the clamped least-squares fit within 1.5 px (``fit``), cut at
   half its arc length where the new spot goes.
4. **The check**: the picture with the move is read back from scratch
   (``analyse``) and must give the intended position with the same spot numbers;
   the new curves must keep ``0.6 d0`` from everything (the certificate).

When there is no way, the widest way (a bottleneck search) says how much room
there is, and :class:`NoRoom` carries it to the ladder of ``room.py``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from ..engine.moves import Move, apply_move
from ..engine.naming import numbered_key
from ..engine.position import Position
from ..errors import NoRoom, PictureError
from ._jit import kernel
from .analyse import Analysis, analyse_picture
from .band import Band, BandSettings, Closing, Obstacles, polygon_area
from .fit import cut_at, fit_clamped
from .geometry import point_segment_distance, segment_distance, winding_number
from .grid_planner import (
    LEAKPROOF,
    SHIFT,
    STEPS,
    Grid,
    astar,
    crossing_masks,
    fan_bits,
    grow_tree,
    legs_bits,
    room_field,
    widest,
)
from .model import COMFORT, MIN_CLEARANCE, Curve, Picture
from .spline import straight_pieces

MAX_RAYS = 7
FINEST_CELL = 2.0  # px: the planner's cells are never narrower (Alfeld §3.2)
CERTIFY_SHARE = 0.6  # the new curves must keep 0.6 d0 (Alfeld §3.6)


@dataclass
class RouteSettings:
    d0: float = MIN_CLEARANCE
    D: float = COMFORT
    lam: float = 1.0
    relax: bool = True
    #: the minimum clearance the certificate's 0.6 is taken of, when the planner runs narrower (a ghost)
    certify_d0: float | None = None

    @property
    def certified(self) -> float:
        """The clearance the new curves and spot must keep: 0.6 of the minimum clearance (Alfeld §3.6)."""
        return CERTIFY_SHARE * (self.certify_d0 if self.certify_d0 is not None else self.d0)


@dataclass
class Drawn:
    """A picture with the move drawn, how well, and the position it reads back as."""

    picture: Picture
    analysis: Analysis
    clearance: float  # least clearance of the new curves and spot
    energy: float = 0.0
    notes: list[str] = field(default_factory=list)


def target_of(before: Position, move: Move) -> Position:
    return apply_move(before, move)


def same_numbered(a: Position, b: Position) -> bool:
    return numbered_key(a)[:2] == numbered_key(b)[:2]


# --------------------------------------------------------------------------- obstacles


def obstacles_of(pic: Picture, analysis: Analysis) -> Obstacles:
    """The refined control polygons of every curve as segments, and the spots and window."""
    segs = []
    seg_curve = []
    for e in range(len(pic.curves)):
        poly = analysis.certificate.polygon(e)
        segs.append(np.concatenate([poly[:-1], poly[1:]], axis=1))
        seg_curve.append(np.full(len(poly) - 1, e))
    return Obstacles(
        np.ascontiguousarray(np.concatenate(segs) if segs else np.zeros((0, 4))),
        np.ascontiguousarray(np.concatenate(seg_curve) if seg_curve else np.zeros(0), dtype=np.int64),
        np.array([(c.a, c.b) for c in pic.curves], dtype=np.int64).reshape(-1, 2),
        np.ascontiguousarray(pic.spots, dtype=float),
        np.ascontiguousarray(pic.sizes, dtype=float),
        float(pic.width),
        float(pic.height),
    )


def half_edge_polygon(analysis: Analysis, h: int) -> np.ndarray:
    poly = analysis.certificate.polygon(h >> 1)
    return poly if h % 2 == 0 else poly[::-1]


def leaving_angle(analysis: Analysis, h: int, centre: np.ndarray, radius: float) -> float:
    """The direction in which half-edge ``h`` leaves its spot, where it first reaches ``radius``."""
    poly = half_edge_polygon(analysis, h)
    d = np.hypot(*(poly - centre).T)
    out = np.nonzero(d >= radius)[0]
    if len(out):
        k = int(out[0])
        if k > 0:
            # the point of leg k−1 → k on the circle
            a, b = poly[k - 1], poly[k]
            da, db = d[k - 1], d[k]
            t = (radius - da) / (db - da) if db > da else 1.0
            p = a + t * (b - a)
        else:
            p = poly[k]
    else:
        p = poly[-1] if len(poly) > 1 else poly[0] + (1.0, 0.0)
    v = p - centre
    return math.atan2(v[1], v[0])


@dataclass
class Corner:
    """Where a curve may leave a spot: the sector from ``start`` (radians) of ``width``, or any direction."""

    spot: int
    start: float
    width: float  # 2π for a spot with no curve or one curve

    def contains(self, angle: float, margin: float = 0.0) -> bool:
        rel = (angle - self.start) % (2 * math.pi)
        return margin < rel < self.width - margin

    @property
    def bisector(self) -> float:
        return self.start + self.width / 2


def corner_of(
    pic: Picture, analysis: Analysis, region: int, boundary: int, corner: int, radius: float
) -> Corner:
    """The sector at the spot of ``corner`` of a boundary walk of a region (Alfeld §3.5)."""
    kind, items = analysis.map.regions[region][boundary]
    if kind == "spot":
        return Corner(items[0], 0.0, 2 * math.pi)
    h_out = items[corner]
    h_in = items[corner - 1]
    s = analysis.map.tail(h_out)
    centre = pic.spots[s]
    a_out = leaving_angle(analysis, h_out, centre, radius)
    # a curve that bends near the spot points elsewhere at its very start (where the rotation
    # system reads it) than at ``radius``: the sector is what stays free at every distance
    spread_out = _bend(analysis, h_out, centre, radius, a_out)
    if h_in ^ 1 == h_out:
        lo, hi = spread_out
        width = 2 * math.pi - (hi - lo)
        if width < math.radians(30):
            return Corner(s, a_out, 2 * math.pi)
        return Corner(s, a_out + hi, width)
    a_in = leaving_angle(analysis, h_in ^ 1, centre, radius)
    width = (a_out - a_in) % (2 * math.pi)
    _lo_in, hi_in = _bend(analysis, h_in ^ 1, centre, radius, a_in)
    lo_out, _hi_out = spread_out
    narrowed = width - max(hi_in, 0.0) + min(lo_out, 0.0)
    if narrowed < min(width, math.radians(10)):
        return Corner(s, a_in, width)
    return Corner(s, a_in + max(hi_in, 0.0), narrowed)


def _bend(analysis: Analysis, h: int, centre: np.ndarray, radius: float, base: float) -> tuple[float, float]:
    """How far (radians, least and most, relative to ``base``) half-edge ``h`` turns within ``radius``."""
    poly = half_edge_polygon(analysis, h)
    angles = []
    if len(poly) > 1:
        v = poly[1] - poly[0]
        if np.hypot(*v) > 1e-12:
            angles.append(math.atan2(v[1], v[0]))
    for share in (0.25, 0.5, 0.75):
        angles.append(leaving_angle(analysis, h, centre, share * radius))
    rel = [(a - base + math.pi) % (2 * math.pi) - math.pi for a in angles]
    return min(rel, default=0.0), max(rel, default=0.0)


# --------------------------------------------------------------------------- the plan of a move


@dataclass
class Plan:
    """Everything the searches need about one move in one picture."""

    pic: Picture
    analysis: Analysis
    move: Move
    x: int
    y: int
    cx: Corner
    cy: Corner
    grid: Grid
    ob: Obstacles
    settings: RouteSettings
    room: np.ndarray = field(init=False)
    free: np.ndarray = field(init=False)
    start: np.ndarray = field(init=False)
    start_cost: np.ndarray = field(init=False)
    goal_cost: np.ndarray = field(init=False)
    strip: np.ndarray | None = None
    open_free: np.ndarray | None = None


def _crosses_any(a: np.ndarray, b: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """For many segments a→b (rows), whether each properly crosses any of ``segs`` (vectorised)."""
    if not len(segs) or not len(a):
        return np.zeros(len(a), dtype=bool)
    p, q = segs[None, :, :2], segs[None, :, 2:]
    A, B = a[:, None, :], b[:, None, :]

    def orient(u, v, w):
        return (v[..., 0] - u[..., 0]) * (w[..., 1] - u[..., 1]) - (v[..., 1] - u[..., 1]) * (
            w[..., 0] - u[..., 0]
        )

    o1, o2 = orient(A, B, p), orient(A, B, q)
    o3, o4 = orient(p, q, A), orient(p, q, B)
    hit = (o1 * o2 <= 0) & (o3 * o4 <= 0)
    return hit.any(axis=1)


def end_cells(
    plan: Plan, corner: Corner, half: int = 0, reach_cells: float = 6.0
) -> tuple[np.ndarray, np.ndarray]:
    """Free cells near a spot, in its sector (one half of it for a loop), joined to it by a clear leg.

    Returns the cells and the lengths of their legs (grid units).
    """
    g = plan.grid
    s = corner.spot
    centre = plan.pic.spots[s]
    size = float(plan.pic.sizes[s])
    radius = size + reach_cells * g.cell
    ks = g.cells_near(centre, radius)
    ks = ks[plan.free[ks]]
    if not len(ks):
        return ks, np.zeros(0)
    pts = g.centres()[ks]
    v = pts - centre
    r = np.hypot(v[:, 0], v[:, 1])
    ang = np.arctan2(v[:, 1], v[:, 0])
    rel = (ang - corner.start) % (2 * math.pi)
    w = corner.width
    gate = loop_gate(corner)
    lo, hi = (0.0, w) if half == 0 else ((w / 2 - gate, w / 2) if half == 1 else (w / 2, w / 2 + gate))
    ok = (rel > lo) & (rel < hi) & (r > size)
    if plan.x != plan.y:
        # two spots close together: each end's cells are its own, nearer it than the other end, so
        # that the way has a middle and does not slip from one disc to the other through one cell
        other = plan.pic.spots[plan.y if s == plan.x else plan.x]
        ok &= np.hypot(*(pts - other).T) > r
    ks, pts, r = ks[ok], pts[ok], r[ok]
    if not len(ks):
        return ks, np.zeros(0)
    first = centre + (pts - centre) * (size / r)[:, None]
    ob = plan.ob
    own = (ob.curve_ends[ob.seg_curve] == s).any(axis=1) if len(ob.segs) else np.zeros(0, dtype=bool)
    # the spot's own curves are tested from the edge of its disc (they meet the leg at its centre),
    # every other curve from the centre
    mine = _segs_near(ob.segs[own], centre, radius + 1.0)
    others = _segs_near(ob.segs[~own], centre, radius + 1.0)
    if plan.strip is not None:
        others = np.concatenate([others, plan.strip])
    clear = ~_crosses_any(first, pts, mine) & ~_crosses_any(np.repeat(centre[None], len(pts), 0), pts, others)
    return ks[clear], r[clear] / g.cell


def _segs_near(segs: np.ndarray, centre: np.ndarray, radius: float) -> np.ndarray:
    if not len(segs):
        return segs
    lo = np.minimum(segs[:, :2], segs[:, 2:])
    hi = np.maximum(segs[:, :2], segs[:, 2:])
    ok = (lo[:, 0] <= centre[0] + radius) & (hi[:, 0] >= centre[0] - radius)
    ok &= (lo[:, 1] <= centre[1] + radius) & (hi[:, 1] >= centre[1] - radius)
    return segs[ok]


def make_plan(pic: Picture, analysis: Analysis, move: Move, settings: RouteSettings) -> Plan:
    region = analysis.map.regions[move.region]
    grid = Grid.over(pic.width, pic.height, settings.d0)
    radius = 1.0 + float(max(pic.sizes)) if len(pic.sizes) else 6.0
    cx = corner_of(pic, analysis, move.region, move.boundary, move.corner, radius + grid.cell)
    cy = corner_of(pic, analysis, move.region, move.boundary2, move.corner2, radius + grid.cell)
    x, y = cx.spot, cy.spot
    del region
    ob = obstacles_of(pic, analysis)
    plan = Plan(pic, analysis, move, x, y, cx, cy, grid, ob, settings)
    rho = math.sqrt(2.0) * settings.D
    room, _near, _foot, _seg = room_field(
        grid.nx, grid.ny, grid.x0, grid.y0, grid.cell, ob.segs, ob.seg_curve, ob.curve_ends,
        ob.spots, ob.sizes, ob.width, ob.height, 3.0 * settings.d0, np.array([x, y], dtype=np.int64),
        rho, settings.d0,
    )  # fmt: skip
    # the end spots' own discs are closed: the way enters them only by its first and last legs
    for s in {x, y}:
        ks = grid.cells_near(pic.spots[s], float(pic.sizes[s]) + 0.5 * grid.cell)
        room[ks] = 0.0
    plan.room = room
    plan.free = room >= settings.d0
    plan.open_free = plan.free.copy()
    if move.is_loop:
        plan.cy = plan.cx
    return plan


def loop_gate(corner: Corner) -> float:
    """Half the angle through which a loop leaves and returns beside its strip."""
    return min(corner.width / 4, math.radians(35))


def close_strip(plan: Plan, towards: np.ndarray | None = None) -> None:
    """A loop's two ends are kept apart by a closed strip along the bisector of its corner (Alfeld §3.3).

    At a lone spot the corner is the whole turn and the strip points towards
    ``towards`` (what the loop must go round), else towards the most room.
    """
    g = plan.grid
    s = plan.x
    centre = plan.pic.spots[s]
    size = float(plan.pic.sizes[s])
    corner = plan.cx
    assert plan.open_free is not None
    plan.free = plan.open_free.copy()
    if corner.width >= 2 * math.pi - 1e-9 and plan.analysis.map.degree(s) == 0:
        if towards is not None:
            v = towards - centre
            corner.start = math.atan2(v[1], v[0]) - math.pi
        else:
            corner.start = _roomiest_direction(plan, centre) - math.pi
    ang = corner.bisector
    u = np.array([math.cos(ang), math.sin(ang)])
    length = size + 3.0 * plan.settings.d0
    a = centre + u * size
    b = centre + u * length
    ks = g.cells_near(0.5 * (a + b), 0.5 * (length - size) + g.cell)
    pts = g.centres()[ks]
    d = np.array([point_segment_distance(p[0], p[1], a[0], a[1], b[0], b[1]) for p in pts])
    plan.free[ks[d < 0.8 * g.cell]] = False
    plan.strip = np.array([[a[0], a[1], b[0], b[1]]])
    # and the loop must leave through its two gates beside the strip, not round the back of the spot
    keep = g.cells_near(centre, size + 2.0 * plan.settings.d0)
    v = g.centres()[keep] - centre
    rel = (np.arctan2(v[:, 1], v[:, 0]) - corner.bisector + math.pi) % (2 * math.pi) - math.pi
    plan.free[keep[np.abs(rel) > loop_gate(corner)]] = False


def _roomiest_direction(plan: Plan, centre: np.ndarray) -> float:
    """The direction from a lone spot towards the most room nearby (where an empty loop fits best)."""
    g = plan.grid
    ks = g.cells_near(centre, 8 * plan.settings.d0)
    if not len(ks):
        return 0.0
    k = ks[int(np.argmax(plan.room[ks]))]
    v = g.centre(k) - centre
    return math.atan2(v[1], v[0])


# --------------------------------------------------------------------------- sides and rays


@dataclass
class Rays:
    """Rays in the move's region from boundaries to the anchor, and the parity each must get."""

    boundaries: list[int]  # region boundary index of each ray
    polylines: list[np.ndarray]  # grid units
    want_odd: dict[int, bool]  # per boundary: must the route cross its ray an odd number of times?
    # the region's cells, for the barrier route: which boundary each faces, and the two sides' anchors
    comp: np.ndarray | None = None
    cell_boundary: np.ndarray | None = None
    side_a: np.ndarray | None = None  # cells of the cut boundary's arc on side A (far from the ends)
    side_b: np.ndarray | None = None  # the anchor: cells known to lie on side B
    close: np.ndarray | None = None  # cells within a few cells of their nearest obstacle


def _side_of_curve(seg: np.ndarray, point: np.ndarray) -> int:
    """0 when ``point`` lies on the side of half-edge 2e (the face on the left of a → b on screen), else 1."""
    dx, dy = seg[2] - seg[0], seg[3] - seg[1]
    cross = dx * (point[1] - seg[1]) - dy * (point[0] - seg[0])
    return 0 if cross < 0 else 1


def build_rays(plan: Plan) -> Rays | None:
    """Rays for a one-boundary move, or None when the region's cells cannot be told apart on the grid."""
    pic, analysis, move, g = plan.pic, plan.analysis, plan.move, plan.grid
    settings = plan.settings
    walks = analysis.map.regions[move.region]
    ob = plan.ob
    room, near, foot, nseg = room_field(
        g.nx, g.ny, g.x0, g.y0, g.cell, ob.segs, ob.seg_curve, ob.curve_ends, ob.spots, ob.sizes,
        ob.width, ob.height, 3.0 * settings.d0, np.array([-1, -1], dtype=np.int64), 1.0, settings.d0,
    )  # fmt: skip
    allowed = room > 0.75 * g.cell
    labels, _ = ndimage.label(allowed.reshape(g.ny, g.nx), structure=np.ones((3, 3), dtype=int))
    labels = labels.ravel()
    # the region's cells: the component reached from x's corner
    centre = pic.spots[plan.x]
    ks = g.cells_near(centre, float(pic.sizes[plan.x]) + 10 * g.cell)
    ks = ks[allowed[ks]]
    if not len(ks):
        return None
    v = g.centres()[ks] - centre
    ang = np.arctan2(v[:, 1], v[:, 0])
    inside = np.array([plan.cx.contains(a) for a in ang], dtype=bool)
    ks = ks[inside]
    if not len(ks):
        return None
    first = (
        centre
        + (g.centres()[ks] - centre)
        * (float(pic.sizes[plan.x]) / np.hypot(*(g.centres()[ks] - centre).T))[:, None]
    )
    ks = ks[~_crosses_any(first, g.centres()[ks], ob.segs)]
    if not len(ks):
        return None
    k0 = ks[int(np.argmin(np.hypot(*(g.centres()[ks] - centre).T)))]
    comp = labels == labels[k0]
    # which boundary (and which half-edge) each cell of the region faces
    half_walk: dict[int, tuple[int, int]] = {}
    spot_walk: dict[int, int] = {}
    for b, (kind, items) in enumerate(walks):
        if kind == "spot":
            spot_walk[items[0]] = b
        else:
            for i, h in enumerate(items):
                half_walk[h] = (b, i)
                spot_walk.setdefault(analysis.map.tail(h), b)
    n_curves = len(pic.curves)
    cells = np.nonzero(comp)[0]
    cell_boundary = np.full(g.size, -1, dtype=np.int64)
    cell_half = np.full(g.size, -1, dtype=np.int64)
    centres = g.centres()
    for k in cells.tolist():
        o = near[k]
        if 0 <= o < n_curves:
            h = 2 * o + _side_of_curve(ob.segs[nseg[k]], centres[k])
            if h not in half_walk:
                h ^= 1
            if h in half_walk:
                cell_boundary[k] = half_walk[h][0]
                cell_half[k] = h
        elif o >= n_curves:
            cell_boundary[k] = spot_walk.get(int(o - n_curves), -1)
        elif o == -2:
            cell_boundary[k] = -2
    B = move.boundary
    kind, items = walks[B]
    away = 2.0 * settings.d0 + float(max(pic.sizes[plan.x], pic.sizes[plan.y])) + 2 * g.cell
    far = (np.hypot(*(centres - pic.spots[plan.x]).T) > away) & (
        np.hypot(*(centres - pic.spots[plan.y]).T) > away
    )
    others = [k for k in range(len(walks)) if k != B]
    inside_set = set(move.inside)
    anchor_boundary: int | None = None
    if kind == "cycle" and analysis.map.degree(plan.x) > 0:
        n = len(items)
        if move.is_loop:
            arc_b = set(items)
        else:
            arc_b = {items[(move.corner2 + i) % n] for i in range((move.corner - move.corner2) % n)}
        anchor = comp & far & np.isin(cell_half, list(arc_b))
    else:
        # a loop at a lone spot: anchor on the window (outside) or the region's own cycle
        if move.region == 0 or not others:
            anchor = comp & (cell_boundary == -2)
        else:
            anchor_boundary = 0 if B != 0 else others[0]
            anchor = comp & (cell_boundary == anchor_boundary)
            if anchor_boundary in inside_set:
                inside_set = set(others) - inside_set  # both sides read [x z]: take the other side as inside
    side_a = np.zeros(g.size, dtype=bool)
    if kind == "cycle" and not move.is_loop:
        n = len(items)
        arc_a = {items[(move.corner + i) % n] for i in range((move.corner2 - move.corner) % n)}
        side_a = comp & far & np.isin(cell_half, list(arc_a))
    sources = np.nonzero(anchor)[0].astype(np.int64)
    if not len(sources):
        return None
    dist, prev = grow_tree(g.nx, comp, STEPS, sources)
    rays = Rays([], [], {}, comp & far, cell_boundary, side_a, anchor, room < 1.5 * g.cell)
    for k in others:
        if k == anchor_boundary:
            continue
        rays.want_odd[k] = k in inside_set
        targets = np.nonzero((cell_boundary == k) & comp & np.isfinite(dist))[0]
        if not len(targets):
            continue
        t = targets[int(np.argmin(dist[targets]))]
        chain = []
        c = int(t)
        while c >= 0:
            chain.append(c)
            c = int(prev[c])
        pts = [g.to_grid(foot[chain[0]])] + [np.array([c % g.nx, c // g.nx], dtype=float) for c in chain]
        pts.append(g.to_grid(foot[chain[-1]]))
        rays.boundaries.append(k)
        rays.polylines.append(np.array(pts))
    return rays


def barrier_trees(plan: Plan, rays: Rays, with_arc: bool = True) -> tuple[np.ndarray, np.ndarray] | None:
    """Two trees of cells that do not touch: one joins what must end on side A, one side B (Alfeld §3.3).

    Side A holds the boundaries to enclose and the cut boundary's arc on side A;
    side B the others, the far arc (or the window, or the region's own cycle for a
    loop at a lone spot).  A way from x to y that uses no cell of either tree
    cannot separate two things one tree joins.  None when a tree cannot be built.
    """
    g = plan.grid
    assert rays.comp is not None and rays.cell_boundary is not None
    assert rays.side_a is not None and rays.side_b is not None
    comp, cb, close = rays.comp, rays.cell_boundary, rays.close
    assert close is not None
    groups_a = [rays.side_a & close] if with_arc and (rays.side_a & close).any() else []
    groups_b = [rays.side_b & close] if (rays.side_b & close).any() else [rays.side_b]
    for k, odd in rays.want_odd.items():
        cells = comp & (cb == k) & close
        if cells.any():
            (groups_a if odd else groups_b).append(cells)
    if not groups_a:
        return None
    tree_a = _join(g, groups_a, comp & ~_thick(g, np.logical_or.reduce(groups_b)))
    if tree_a is None:
        return None
    tree_b = _join(g, groups_b, comp & ~_thick(g, tree_a) & ~tree_a)
    if tree_b is None:
        return None
    return tree_a, tree_b


def _thick(g: Grid, mask: np.ndarray) -> np.ndarray:
    """A mask grown by one cell each way, so that no step of the grid slips between its cells."""
    return ndimage.binary_dilation(mask.reshape(g.ny, g.nx), structure=np.ones((3, 3), bool)).ravel()


def _join(g: Grid, groups: list[np.ndarray], allowed: np.ndarray) -> np.ndarray | None:
    """The groups of cells joined into one tree by shortest grid paths through allowed cells."""
    tree = groups[0].copy()
    links = np.zeros_like(tree)
    for grp in groups[1:]:
        if (tree & grp).any():
            tree |= grp
            continue
        dist, prev = grow_tree(g.nx, allowed | tree | grp, STEPS, np.nonzero(tree)[0].astype(np.int64))
        ends = np.nonzero(grp & np.isfinite(dist))[0]
        if not len(ends):
            return None
        c = int(ends[int(np.argmin(dist[ends]))])
        while c >= 0 and not tree[c]:
            tree[c] = True
            links[c] = True
            c = int(prev[c])
        tree |= grp
    # the links through open space are made a cell thicker, so that no diagonal step slips through
    # them; the groups hug their boundaries, closer than any free cell comes
    return tree | _thick(g, links)


def barrier_route(plan: Plan, rays: Rays, halves: tuple[int, int]) -> np.ndarray | None:
    """The shortest way that uses no cell of either tree, with one ray's parity as the extra bit."""
    # the cut boundary's own arc is joined to side A's tree when that leaves the way open;
    # without it the parity bit still says on which side the tree goes
    for with_arc in (True, False):
        path = _barrier_search(plan, rays, halves, with_arc)
        if path is not None:
            return path
    return None


def _barrier_search(plan: Plan, rays: Rays, halves: tuple[int, int], with_arc: bool) -> np.ndarray | None:
    trees = barrier_trees(plan, rays, with_arc)
    if trees is None:
        return None
    block = trees[0] | trees[1]  # the trees keep clear of the move's own spots
    saved = plan.free
    plan.free = plan.free & ~block
    try:
        bit = [i for i, k in enumerate(rays.boundaries) if rays.want_odd[k]][:1] or list(
            range(len(rays.boundaries))
        )[:1]
        return search(plan, rays, bit, halves)
    finally:
        plan.free = saved


def _ray_segments(rays: Rays, chosen: list[int]) -> tuple[np.ndarray, np.ndarray]:
    segs, bits = [], []
    for bit, i in enumerate(chosen):
        poly = rays.polylines[i]
        segs.append(np.concatenate([poly[:-1], poly[1:]], axis=1))
        bits.append(np.full(len(poly) - 1, 1 << bit, dtype=np.int64))
    if not segs:
        return np.zeros((0, 4)), np.zeros(0, dtype=np.int64)
    return np.ascontiguousarray(np.concatenate(segs)), np.concatenate(bits)


def path_parity(plan: Plan, world: np.ndarray, rays: Rays, i: int) -> bool:
    """Does the polyline (world points) cross ray ``i`` an odd number of times?"""
    segs, bits = _ray_segments(rays, [i])
    pts = np.ascontiguousarray(plan.grid.to_grid(world), dtype=float)
    total = np.bitwise_xor.reduce(legs_bits(pts, segs, bits, SHIFT[0], SHIFT[1])) if len(pts) > 1 else 0
    return bool(int(total) & 1)


# --------------------------------------------------------------------------- searching a route


def search(
    plan: Plan, rays: Rays | None, chosen: list[int], halves: tuple[int, int] = (0, 0)
) -> np.ndarray | None:
    """The shortest way (world polyline from x to y) with the chosen rays' parities as wanted.

    ``halves`` says through which gate beside its strip a loop leaves and returns.
    """
    g = plan.grid
    pic = plan.pic
    start, start_len = end_cells(plan, plan.cx, half=halves[0])
    goal, goal_len = end_cells(plan, plan.cy, half=halves[1])
    if not len(start) or not len(goal):
        return None
    segs, bits = (
        _ray_segments(rays, chosen) if rays is not None else (np.zeros((0, 4)), np.zeros(0, np.int64))
    )
    n_bits = len(chosen)
    cross = (
        crossing_masks(g.nx, g.ny, segs, bits, STEPS, *SHIFT) if n_bits else np.zeros((g.size, 8), np.int64)
    )
    gx = g.to_grid(pic.spots[plan.x])
    gy = g.to_grid(pic.spots[plan.y])
    cells = np.stack([np.arange(g.size) % g.nx, np.arange(g.size) // g.nx], axis=1).astype(float)
    start_bits = fan_bits(gx, cells[start], segs, bits)
    goal_cost = np.full(g.size, np.inf)
    goal_bits = np.zeros(g.size, dtype=np.int64)
    goal_cost[goal] = goal_len
    goal_bits[goal] = fan_bits(gy, cells[goal], segs, bits)  # crossing does not depend on the direction
    target = 0
    for bit, i in enumerate(chosen):
        assert rays is not None
        if rays.want_odd[rays.boundaries[i]]:
            target |= 1 << bit
    cost, path, _ = astar(
        g.nx, plan.free, STEPS, cross, n_bits, start.astype(np.int64), start_len.astype(float),
        start_bits, goal_cost, goal_bits, target, float(gy[0]), float(gy[1]),
    )  # fmt: skip
    if not math.isfinite(cost):
        return None
    return np.array([pic.spots[plan.x], *g.centres()[path], pic.spots[plan.y]])


def route(plan: Plan) -> np.ndarray | None:
    """The route of the move: the shortest way, made to go round the right boundaries (parity search).

    A loop is tried leaving through either gate beside its strip; a way that
    crosses itself is kept only when no other is found.
    """
    move = plan.move
    if move.joins_boundaries:
        _close_between(plan)
        return search(plan, None, [])
    rays = close_strips(plan)
    orders = [(1, 2), (2, 1)] if move.is_loop else [(0, 0)]
    fallback = None
    for halves in orders:
        for method in (barrier_route, _parity_route):
            if rays is None and method is barrier_route:
                continue
            path = method(plan, rays, halves)  # type: ignore[arg-type]  # no rays: only _parity_route runs
            if path is not None:
                path = uncross(unfold(uncross(path), plan.grid.cell))
            if path is None or self_crossing(path):
                fallback = fallback if fallback is not None else path
                continue
            if rays is None or all(
                path_parity(plan, path, rays, i) == rays.want_odd[k] for i, k in enumerate(rays.boundaries)
            ):
                return path
            fallback = fallback if fallback is not None else path
    return fallback


def close_strips(plan: Plan) -> Rays | None:
    """The cells the way may not use near its ends closed (a loop's strip, two close spots' middle).

    Returns the rays of a one-boundary move (None for a join, or when they cannot be cut).
    """
    move = plan.move
    if not move.is_loop:
        _close_between(plan)
    if move.joins_boundaries:
        return None
    rays = build_rays(plan)
    if move.is_loop:
        target = _loop_target(plan, rays)
        close_strip(plan, None if target is None else target[0])
        if target is not None and rays is not None:
            _extend_strip(plan, rays, target[1])
    return rays


def _close_between(plan: Plan) -> None:
    """Two spots close together: the strip between them is closed (Alfeld §3.3, v178).

    The way then leaves ``x`` away from ``y`` and reaches ``y`` from beyond it, so
    that the curve has room for its new spot instead of squeezing past the curves
    already there.
    """
    pic, g = plan.pic, plan.grid
    a, b = pic.spots[plan.x], pic.spots[plan.y]
    gap = float(np.hypot(*(b - a)))
    sa, sb = float(pic.sizes[plan.x]), float(pic.sizes[plan.y])
    if gap >= 2.0 * (sa + sb) + 4.0 * plan.settings.d0 or gap <= sa + sb:
        return
    u = (b - a) / gap
    p, q = a + u * sa, b - u * sb
    ks = g.cells_near(0.5 * (p + q), 0.5 * float(np.hypot(*(q - p))) + g.cell)
    pts = g.centres()[ks]
    d = np.array([point_segment_distance(c[0], c[1], p[0], p[1], q[0], q[1]) for c in pts])
    plan.free[ks[d < 0.8 * g.cell]] = False
    plan.strip = np.array([[p[0], p[1], q[0], q[1]]])


def _loop_target(plan: Plan, rays: Rays | None) -> tuple[np.ndarray, int] | None:
    """What a loop must go round first: the nearest boundary it encloses (a point on it, its index)."""
    if rays is None:
        return None
    centre = plan.pic.spots[plan.x]
    best, where = math.inf, None
    for i, k in enumerate(rays.boundaries):
        if rays.want_odd[k]:
            p = np.array([plan.grid.x0, plan.grid.y0]) + rays.polylines[i][0] * plan.grid.cell
            d = float(np.hypot(*(p - centre)))
            if d < best:
                best, where = d, (p, k)
    return where


def _extend_strip(plan: Plan, rays: Rays, boundary: int) -> None:
    """The loop's strip carried on to the first boundary it encloses.

    The way must then go out on one side of the strip, round the boundary and back
    on the other side: the two strands of a loop round a far boundary stay apart
    instead of running back along the same cells (as the parity search alone
    would let them).
    """
    g = plan.grid
    assert plan.strip is not None and rays.comp is not None and rays.cell_boundary is not None
    tip = plan.strip[0, 2:]
    goal = rays.comp & (rays.cell_boundary == boundary)
    if rays.close is not None and (goal & rays.close).any():
        goal &= rays.close
    sources = g.cells_near(tip, 1.5 * g.cell)
    sources = sources[rays.comp[sources]]
    if not len(sources) or not goal.any():
        return
    # the strip keeps a free lane on either side: it runs where there is room for the thickened
    # strip and a way beside it, except in the cells facing the boundary it goes to; a strip that
    # hugged another boundary would close the way between them and the loop would enclose that too
    roomy = rays.comp & (plan.room >= min(plan.settings.d0 + 3.0 * g.cell, 3.0 * plan.settings.d0) - 1e-9)
    facing = rays.comp & (rays.cell_boundary == boundary)
    for allowed in (roomy | facing | goal, rays.comp | goal):
        dist, prev = grow_tree(g.nx, allowed, STEPS, sources.astype(np.int64))
        ends = np.nonzero(goal & np.isfinite(dist))[0]
        if len(ends):
            break
    if not len(ends):
        return
    c = int(ends[int(np.argmin(dist[ends]))])
    chain = np.zeros(g.size, dtype=bool)
    while c >= 0:
        chain[c] = True
        c = int(prev[c])
    plan.free &= ~_thick(g, chain)


def _parity_route(plan: Plan, rays: Rays | None, halves: tuple[int, int]) -> np.ndarray | None:
    if rays is None:
        return search(plan, None, [], halves)
    chosen: list[int] = []
    path = search(plan, rays, chosen, halves)
    for _ in range(MAX_RAYS + 1):
        if path is None:
            return None
        wrong = [
            i for i, k in enumerate(rays.boundaries)
            if i not in chosen and path_parity(plan, path, rays, i) != rays.want_odd[k]
        ]  # fmt: skip
        if not wrong or len(chosen) >= MAX_RAYS:
            return path  # the judge will say whether it is right
        chosen.extend(wrong[: MAX_RAYS - len(chosen)])
        path = search(plan, rays, chosen, halves)
    return path


def self_crossing(path: np.ndarray) -> bool:
    """Does the polyline cross, touch or run along itself (legs that are not neighbours)?"""
    P = np.ascontiguousarray(path, dtype=float)
    # a loop's ends are its spot, up to rounding (a loop's band once failed this test by 1e-13 px and
    # was dropped for the grid's tight way round its strip)
    return bool(_self_touch(P, bool(np.hypot(*(P[0] - P[-1])) < 1e-6)))


@kernel
def _self_touch(P: np.ndarray, closed: bool) -> bool:
    n = P.shape[0] - 1
    for i in range(n):
        for j in range(i + 2, n):
            if closed and i == 0 and j == n - 1:
                continue  # a loop's first and last legs meet at its spot
            d = segment_distance(
                P[i, 0], P[i, 1], P[i + 1, 0], P[i + 1, 1], P[j, 0], P[j, 1], P[j + 1, 0], P[j + 1, 1]
            )
            if d < 1e-6:
                return True
    return False


def leakproof_room(plan: Plan) -> np.ndarray:
    """The plan's room, closed where a step of the grid could slip through a curve.

    A cell is free at ``d0`` only when its centre is at least ``LEAKPROOF`` of a
    cell from every curve by true distance (the angular room near the end spots
    is never scaled below that), so no step between two free cells crosses one.
    The widest way also walks cells with less room than ``d0``: there the true
    distance must be checked, or the way would step across a curve wherever two
    cells on either side of it are a pixel or two away from it, and report the
    room of a way that does not exist.
    """
    g, ob = plan.grid, plan.ob
    plain, _near, _foot, _seg = room_field(
        g.nx, g.ny, g.x0, g.y0, g.cell, ob.segs, ob.seg_curve, ob.curve_ends, ob.spots, ob.sizes,
        ob.width, ob.height, 3.0 * plan.settings.d0, np.array([plan.x, plan.y], dtype=np.int64), 0.0,
        plan.settings.d0,
    )  # fmt: skip
    room = plan.room.copy()
    room[plain < LEAKPROOF * g.cell] = 0.0
    return room


def widest_way(plan: Plan, fine: bool = True) -> tuple[float, np.ndarray | None]:
    """The room of the widest way from x's corner to y's corner (ignoring sides), and that way.

    A way narrower than the grid can see (its cells are ``0.7 d0`` wide) is looked
    for again on the finest grid, unless ``fine`` is false.
    """
    g = plan.grid
    room = leakproof_room(plan)
    saved = plan.free
    plan.free = room > 0.0
    loop = plan.move.is_loop
    start, _ = end_cells(plan, plan.cx, half=1 if loop else 0)
    goal, _ = end_cells(plan, plan.cy, half=2 if loop else 0)
    plan.free = saved
    if not len(start) or not len(goal):
        return 0.0, None
    if plan.strip is not None:
        room[~plan.free & (room >= plan.settings.d0)] = 0.0
    goal_mask = np.zeros(g.size, dtype=np.bool_)
    goal_mask[goal] = True
    w, path = widest(g.nx, room, STEPS, start.astype(np.int64), goal_mask)
    if (not len(path) or w < 1.5 * LEAKPROOF * g.cell) and fine:
        # the grid cannot see ways much narrower than its cells: look again on the finest grid
        d0 = FINEST_CELL / 0.7
        if g.cell > FINEST_CELL + 1e-9:
            st = RouteSettings(d0, plan.settings.D, plan.settings.lam, plan.settings.relax, plan.settings.d0)
            sharp = make_plan(plan.pic, plan.analysis, plan.move, st)
            close_strips(sharp)
            w2, way2 = widest_way(sharp, fine=False)
            if way2 is not None and (not len(path) or w2 > w):
                return w2, way2
    if not len(path):
        return 0.0, None
    return float(w), np.array([plan.pic.spots[plan.x], *g.centres()[path], plan.pic.spots[plan.y]])


# --------------------------------------------------------------------------- band, ports, spline


def port_direction(corner: Corner, along: float) -> float:
    """The direction a curve leaves a spot (Alfeld §3.5): the band's own, or the sector's bisector."""
    if (corner.width >= 2 * math.pi - 1e-9 and corner.width > 0) or corner.width >= math.radians(60):
        lo, hi = corner.start + math.radians(30), corner.start + corner.width - math.radians(30)
    else:
        return corner.bisector
    rel = (along - corner.start) % (2 * math.pi)
    rel = min(max(rel, lo - corner.start), hi - corner.start)
    return corner.start + rel


def uncross(path: np.ndarray, rounds: int = 32) -> np.ndarray:
    """A grid path whose strands cross in an X (two diagonal steps) made simple by 2-opt.

    Where legs i and j cross, the stretch between them is a closed loop; walking
    it the other way round (reversing points i+1 … j) removes the crossing and
    goes round the same things, so every ray is still crossed as often, up to the
    tiny quadrilateral of the four points (the judge reads the move back anyway).
    """
    P = np.array(path, dtype=float)
    for _ in range(rounds):
        if len(P) < 4:
            return P
        a, b = P[:-1], P[1:]

        def orient(u, v, w):
            return (v[..., 0] - u[..., 0]) * (w[..., 1] - u[..., 1]) - (v[..., 1] - u[..., 1]) * (
                w[..., 0] - u[..., 0]
            )

        A, B = a[:, None], b[:, None]
        C, D = a[None, :], b[None, :]
        hit = (orient(A, B, C) * orient(A, B, D) < 0) & (orient(C, D, A) * orient(C, D, B) < 0)
        hit = np.triu(hit, 2)
        found = np.argwhere(hit)
        if not len(found):
            return P
        i, j = (int(v) for v in found[0])
        P[i + 1 : j + 1] = P[i + 1 : j + 1][::-1].copy()
    return P


def unfold(path: np.ndarray, cell: float) -> np.ndarray:
    """A grid path that runs out and back through the same cells, its two strands set apart.

    The parity search may go round a boundary by running out along a corridor
    and back through the same cells (with the other parity).  The band cannot
    part strands that touch, so each point with a twin on the other strand is
    moved a third of a cell away from it: to the right of its way when the stretch
    between the twins turns left (it goes round what it encloses on its left),
    else to the left.  The cells are free, so the points stay clear.
    """
    P = np.array(path, dtype=float)
    n = len(P)
    if n < 5:
        return P
    d = np.hypot(*(P[:, None, :] - P[None, :, :]).transpose(2, 0, 1))
    idx = np.arange(n)
    twin = (d < 0.6 * cell) & (np.abs(idx[:, None] - idx[None, :]) > 2)
    twin[[0, -1], :] = False
    twin[:, [0, -1]] = False
    if not twin.any():
        return P
    out = P.copy()
    for k in np.nonzero(twin.any(axis=1))[0].tolist():
        mates = np.nonzero(twin[k])[0]
        j = int(mates[np.argmax(np.abs(mates - k))])
        lo, hi = min(k, j), max(k, j)
        loop = P[lo : hi + 1]
        nxt = np.roll(loop, -1, axis=0)
        area = 0.5 * float((loop[:, 0] * nxt[:, 1] - nxt[:, 0] * loop[:, 1]).sum())
        t = P[k + 1] - P[k - 1]
        norm = float(np.hypot(*t))
        if norm < 1e-9 or area == 0.0:
            continue
        right = np.array([t[1], -t[0]]) / norm  # right of the way (x right, y up)
        out[k] = P[k] + (right if area > 0 else -right) * (cell / 3.0)
    return out


#: An empty new region settles round with this radius, in units of the comfort distance D (μ = π R).
REGION_RADIUS = 0.5


def _arc_points(plan: Plan, items: tuple[int, ...], start: int, stop: int) -> np.ndarray:
    """The points of a boundary walk's half-edges ``items[start:stop]`` (cyclic), joined."""
    n = len(items)
    parts: list[np.ndarray] = []
    k = start
    while k % n != stop % n or not parts:
        poly = half_edge_polygon(plan.analysis, items[k % n])
        parts.append(poly if not parts else poly[1:])
        k += 1
        if k - start > n:
            break
    return np.concatenate(parts) if parts else np.zeros((0, 2))


def closings_of(plan: Plan, path: np.ndarray) -> list[Closing]:
    """The new regions a one-boundary move closes, each with the arc that closes it and its weight.

    A loop closes the region inside its own polygon; a line between two corners
    of one boundary closes one region with each arc of that boundary (in the
    outside region only the smaller is bounded).  The weight is
    ``π · REGION_RADIUS · D · (1 + k)`` for a region the route makes hold ``k``
    of the region's other boundaries: room in proportion to what it holds.
    """
    move = plan.move
    if move.joins_boundaries or len(path) < 3:
        return []
    walks = plan.analysis.map.regions[move.region]
    base = math.pi * REGION_RADIUS * plan.settings.D
    P = np.asarray(path, dtype=float)
    arcs: list[np.ndarray] = []
    kind, items = walks[move.boundary]
    if move.is_loop or kind == "spot":
        arcs.append(np.zeros((0, 2)))
    else:
        x_to_y = _arc_points(plan, items, move.corner, move.corner2)
        y_to_x = _arc_points(plan, items, move.corner2, move.corner)
        arcs.extend([x_to_y[::-1][1:-1], y_to_x[1:-1]])
    others = [
        plan.pic.spots[plan.analysis.map.walk_spots(w)[0]] for i, w in enumerate(walks) if i != move.boundary
    ]
    out = []
    for arc in arcs:
        A = polygon_area(P, arc)
        if abs(A) < 1e-9:
            A = 1e-9
        poly = np.concatenate([P, arc]) if len(arc) else P
        holds = sum(1 for q in others if winding_number(poly, q) != 0)
        out.append(Closing(np.ascontiguousarray(arc), base * (1 + holds), 1.0 if A > 0 else -1.0))
    if len(out) == 2 and move.region == 0:
        out = [min(out, key=lambda c: abs(polygon_area(P, c.arc)))]
    return out


def relax_route(plan: Plan, path: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """The band on the route: first with free ends, then between fixed port stubs.

    A move that closes a region relaxes with that region's area term (``band.Closing``),
    so that the region comes out round, with room in proportion to what it holds.
    """
    st = plan.settings
    pic = plan.pic
    path = unfold(path, plan.grid.cell)
    if plan.x == plan.y:
        path = np.array(path, dtype=float)
        path[0] = path[-1] = pic.spots[plan.x]
    spacing = max(2.0 * plan.grid.cell, 6.0)
    band = Band(plan.ob, (plan.x, plan.y), BandSettings(d0=st.d0, D=st.D, lam=st.lam, spacing=spacing))
    if st.relax:
        band.closings = closings_of(plan, path)
    P = band.resample_clear(path, spacing)
    if len(P) < 4:
        P = band.resample_clear(path, max(1.0, float(np.hypot(*np.diff(path, axis=0).T).sum()) / 4))
    fixed = np.zeros(len(P), dtype=bool)
    fixed[[0, -1]] = True
    E = math.inf
    if st.relax:
        # the end spots' own curves are ignored close by, but not all the way across when the spots
        # are close together (the curve between them would be no obstacle at all)
        ignore = 2.0 * st.d0 + float(max(pic.sizes))
        if plan.x != plan.y:
            ignore = min(ignore, 0.3 * float(np.hypot(*(pic.spots[plan.x] - pic.spots[plan.y]))))
        P, E = band.relax(P, fixed, ignore=ignore, steps=50)
    # the ports: short stubs in the directions the curve leaves x and reaches y
    ends = []
    for corner, p0, p1 in ((plan.cx, P[0], P[1]), (plan.cy, P[-1], P[-2])):
        v = p1 - p0
        ang = port_direction(corner, math.atan2(v[1], v[0]))
        ends.append(np.array([math.cos(ang), math.sin(ang)]))
    if st.relax and len(P) >= 5:
        stub_x = min(float(np.hypot(*(P[1] - P[0]))), float(pic.sizes[plan.x]) + 0.5 * st.d0)
        stub_y = min(float(np.hypot(*(P[-2] - P[-1]))), float(pic.sizes[plan.y]) + 0.5 * st.d0)
        # a stub replaces the first inner point, or goes before it when that point is far out (a
        # long first leg replaced by a short stub would pull a small loop shut)
        sx, sy = P[0] + ends[0] * stub_x, P[-1] + ends[1] * stub_y
        inner = P[1:-1]
        if float(np.hypot(*(P[1] - P[0]))) <= 2.0 * stub_x:
            inner = inner[1:]
        if float(np.hypot(*(P[-2] - P[-1]))) <= 2.0 * stub_y:
            inner = inner[:-1]
        Q = np.array([P[0], sx, *inner, sy, P[-1]])
        if band.clearance(Q) > 0.0:
            fixed2 = np.zeros(len(Q), dtype=bool)
            fixed2[[0, 1, -2, -1]] = True
            Q, E2 = band.relax(Q, fixed2, ignore=0.0, steps=70)
            if math.isfinite(E2):
                P, E = Q, E2
    return P, E, ends[0], ends[1]


def _new_picture(
    pic: Picture, x: int, y: int, first: tuple, second: tuple, z: np.ndarray, player: int | None
) -> Picture:
    out = pic.copy()
    out.spots = np.vstack([out.spots, z])
    size = float(np.median(pic.sizes)) if len(pic.sizes) else 5.0
    out.sizes = np.append(out.sizes, size)
    z_index = len(pic.spots)
    out.curves.append(Curve(x, z_index, first[0], first[1], player))
    out.curves.append(Curve(z_index, y, second[0], second[1], player))
    return out


def curve_from_points(
    P: np.ndarray, d_start: np.ndarray | None, d_end: np.ndarray | None, smooth: bool
) -> tuple[np.ndarray, np.ndarray]:
    if smooth and d_start is not None and d_end is not None and len(P) >= 3:
        return fit_clamped(P, d_start, -d_end)
    return straight_pieces(P)


@kernel
def new_curve_clearance(
    legs: np.ndarray,
    eps: np.ndarray,
    leg_curve: np.ndarray,
    is_new: np.ndarray,
    curve_a: np.ndarray,
    curve_b: np.ndarray,
    spots: np.ndarray,
    sizes: np.ndarray,
    near: np.ndarray,
    new_spot: int,
    rho: float,
) -> float:
    """Least clearance between the new curves (and the new spot) and everything else.

    Legs of a new curve and an old curve that share a spot are not compared within
    ``near`` of that spot (they meet there by design); the new curves are not
    compared with each other (they are one spline).
    """
    best = np.inf
    n = legs.shape[0]
    for i in range(n):
        ci = leg_curve[i]
        if not is_new[ci]:
            continue
        ax, ay, bx, by = legs[i, 0], legs[i, 1], legs[i, 2], legs[i, 3]
        for j in range(n):
            cj = leg_curve[j]
            if is_new[cj]:
                continue
            cx, cy, dx, dy = legs[j, 0], legs[j, 1], legs[j, 2], legs[j, 3]
            gap = max(
                min(cx, dx) - max(ax, bx),
                min(ax, bx) - max(cx, dx),
                min(cy, dy) - max(ay, by),
                min(ay, by) - max(cy, dy),
                0.0,
            )
            if gap - eps[i] - eps[j] >= best:
                continue
            skip = False
            scale = 1.0
            for u in (curve_a[ci], curve_b[ci]):
                if u == curve_a[cj] or u == curve_b[cj]:
                    ri = point_segment_distance(spots[u, 0], spots[u, 1], ax, ay, bx, by)
                    rj = point_segment_distance(spots[u, 0], spots[u, 1], cx, cy, dx, dy)
                    if ri < near[u] and rj < near[u]:
                        skip = True
                    # curves that share a spot are apart by angle near it (as in the planner and band)
                    r = max(ri, rj)
                    if r < rho:
                        scale = max(scale, rho / max(r, 1e-9))
            if skip:
                continue
            d = (segment_distance(ax, ay, bx, by, cx, cy, dx, dy) - eps[i] - eps[j]) * scale
            if d < best:
                best = d
        for s in range(spots.shape[0]):
            if s == curve_a[ci] or s == curve_b[ci]:
                continue
            d = point_segment_distance(spots[s, 0], spots[s, 1], ax, ay, bx, by) - eps[i] - sizes[s]
            if d < best:
                best = d
    # the new spot against the old curves and the other spots
    zx = spots[new_spot, 0]
    zy = spots[new_spot, 1]
    for j in range(n):
        cj = leg_curve[j]
        if is_new[cj]:
            continue
        d = (
            point_segment_distance(zx, zy, legs[j, 0], legs[j, 1], legs[j, 2], legs[j, 3])
            - eps[j]
            - sizes[new_spot]
        )
        if d < best:
            best = d
    for s in range(spots.shape[0]):
        if s != new_spot:
            d = math.hypot(spots[s, 0] - zx, spots[s, 1] - zy) - sizes[s] - sizes[new_spot]
            if d < best:
                best = d
    return best


def clearance_of_move(pic: Picture, analysis: Analysis) -> float:
    """The least clearance of the last two curves (the move) and the last spot, from the certificate."""
    cert = analysis.certificate
    pieces = np.concatenate([np.asarray(subs, dtype=float).reshape(-1, 4, 2) for subs in cert.sub])
    owner = np.concatenate([np.full(len(subs), e) for e, subs in enumerate(cert.sub)])
    # the Nairn–Peters–Lutterkort bound of every piece, and its three legs
    d2 = np.maximum(
        np.hypot(*(pieces[:, 0] - 2 * pieces[:, 1] + pieces[:, 2]).T),
        np.hypot(*(pieces[:, 1] - 2 * pieces[:, 2] + pieces[:, 3]).T),
    )
    legs = np.concatenate([pieces[:, :-1], pieces[:, 1:]], axis=2).reshape(-1, 4)
    eps = np.repeat(d2 / 3.0, 3)
    leg_curve = np.repeat(owner, 3)
    n_curves = len(pic.curves)
    is_new = np.zeros(n_curves, dtype=np.bool_)
    is_new[-2:] = True
    near = np.asarray(pic.sizes, dtype=float) * 2.0 + MIN_CLEARANCE
    return float(
        new_curve_clearance(
            np.ascontiguousarray(legs), np.ascontiguousarray(eps),
            leg_curve.astype(np.int64), is_new,
            np.array([c.a for c in pic.curves], dtype=np.int64),
            np.array([c.b for c in pic.curves], dtype=np.int64),
            np.ascontiguousarray(pic.spots, dtype=float), np.ascontiguousarray(pic.sizes, dtype=float), near,
            len(pic.spots) - 1,
            math.sqrt(2.0) * COMFORT,
        )
    )  # fmt: skip


def spot_share(plan: Plan, pieces: np.ndarray, h: np.ndarray | None = None) -> float:
    """Where on the new curve its spot goes: near half its arc length, where there is room for it.

    Alfeld puts the new spot at half the arc length and lets it slide later; a
    spot squeezed against a neighbour is moved along the curve at once, as little
    as gives it room: its disc must keep ``0.6 d0`` from every old curve and spot
    (the move's own end spots and their curves too, by true distance, as the
    certificate measures it).  Without room anywhere, the place with the most.
    """
    pic = plan.pic
    size = float(np.median(pic.sizes)) if len(pic.sizes) else 5.0
    need = size + plan.settings.certified + 0.25
    if h is None:
        h = np.ones(len(pieces))
    shares = [0.5]
    for k in range(1, 15):
        shares.extend((0.5 - 0.025 * k, 0.5 + 0.025 * k))
    places = np.array([cut_at(pieces, h, sh)[2] for sh in shares])
    room = _room_for_spots(places, plan.ob.segs, pic.spots, pic.sizes) - size
    ok = np.nonzero(room >= need - size)[0]
    if len(ok):
        return shares[int(ok[0])]
    return shares[int(np.argmax(room))]


def _room_for_spots(points: np.ndarray, segs: np.ndarray, spots: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """For each point, its distance to the nearest segment or spot disc (vectorised)."""
    best = np.full(len(points), np.inf)
    if len(spots):
        best = (np.hypot(*(points[:, None, :] - spots[None]).transpose(2, 0, 1)) - sizes[None]).min(axis=1)
    if len(segs):
        a, b = segs[None, :, :2], segs[None, :, 2:]
        d = b - a
        den = np.maximum((d * d).sum(axis=2), 1e-12)
        t = np.clip(((points[:, None, :] - a) * d).sum(axis=2) / den, 0.0, 1.0)
        foot = a + t[..., None] * d
        best = np.minimum(best, np.hypot(*(points[:, None, :] - foot).transpose(2, 0, 1)).min(axis=1))
    return best


def _bulged(plan: Plan, P: np.ndarray) -> np.ndarray | None:
    """A short curve between close spots bowed out until its middle has room for the new spot.

    Two spots closer than twice what the new spot needs from each of them (its
    disc, theirs and ``0.6 d0``) leave no place for it on a curve that runs
    nearly straight between them; the band's curve is bowed away from the chord,
    on its own side, just enough.  The read-back judges the result like any other
    curve.  None when the spots are far enough apart, or for a loop.
    """
    if plan.x == plan.y or len(P) < 3:
        return None
    pic = plan.pic
    a, b = pic.spots[plan.x], pic.spots[plan.y]
    gap = float(np.hypot(*(b - a)))
    size = float(np.median(pic.sizes))
    ends = max(float(pic.sizes[plan.x]), float(pic.sizes[plan.y]))
    reach = ends + size + plan.settings.certified + 1.0
    if gap >= 2.0 * reach or gap <= 0:
        return None
    u = (b - a) / gap
    n = np.array([-u[1], u[0]])
    off = (P - a) @ n
    k = int(np.argmax(np.abs(off)))
    want = math.sqrt(reach * reach - 0.25 * gap * gap) + 1.0
    if abs(off[k]) >= want:
        return None
    if abs(off[k]) < 1.0:
        return None  # no side to bow to
    # bowed by the least of a few amounts that gives the middle room for the new spot (the curves
    # already at the spots may bow the same way)
    best, best_room = None, -math.inf
    from .band import resample

    R = resample(P, max(1.0, float(np.hypot(*np.diff(P, axis=0).T).sum()) / 16))
    arc0 = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(R, axis=0).T))])
    bow = np.sin(math.pi * arc0 / arc0[-1]) * math.copysign(1.0, float(off[k]))
    for grow in (1.0, 1.4, 1.9, 2.6):
        Q = R + np.outer(bow * (grow * want - abs(float(off[k]))), n)
        arc = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(Q, axis=0).T))])
        mid = np.array([[np.interp(0.5 * arc[-1], arc, Q[:, 0]), np.interp(0.5 * arc[-1], arc, Q[:, 1])]])
        room = float(_room_for_spots(mid, plan.ob.segs, pic.spots, pic.sizes)[0]) - size
        if room >= plan.settings.certified + 0.5:
            return Q
        if room > best_room:
            best, best_room = Q, room
    return best


def draw_route(plan: Plan, path: np.ndarray, target: Position, player: int | None = None) -> Drawn:
    """The band, the spline, the cut and the check for one route; PictureError when it does not read back."""
    st = plan.settings
    P, E, d_start, d_end = relax_route(plan, path)
    last = ""
    best: Drawn | None = None
    candidates = [(P, True), (P, False)]
    bulged = _bulged(plan, P)
    if bulged is not None:
        candidates.extend([(bulged, True), (bulged, False)])
    # the grid's own way last: the band may have pulled a loop round nothing shut, or squeezed a
    # curve where the grid way kept its cells' room
    for points, smooth in (*candidates, (path, True), (path, False)):
        if points is not path and self_crossing(points):
            continue
        try:
            pieces, h = curve_from_points(points, d_start, d_end, smooth)
            first, second, z = cut_at(pieces, h, spot_share(plan, pieces, h))
            pic = _new_picture(plan.pic, plan.x, plan.y, first, second, z, player)
            a = analyse_picture(pic, (plan.pic, plan.analysis))
        except (PictureError, ValueError, np.linalg.LinAlgError) as e:
            last = str(e)
            continue
        if not same_numbered(a.position, target):
            last = f"the curve reads back as {a.position.canonical()}, not {target.canonical()}"
            continue
        clearance = clearance_of_move(pic, a)
        drawn = Drawn(pic, a, clearance, E)
        if best is None or drawn.clearance > best.clearance:
            best = drawn
        if clearance >= st.certified:
            return drawn
    if best is not None:
        return best
    raise PictureError(f"the route could not be drawn: {last}")


# --------------------------------------------------------------------------- the whole router


def draw_move(
    pic: Picture,
    move: Move,
    analysis: Analysis | None = None,
    settings: RouteSettings | None = None,
    player: int | None = None,
) -> Drawn:
    """Draw ``move`` into ``pic`` (a new picture; ``pic`` is not changed), or :class:`NoRoom` saying why."""
    settings = settings or RouteSettings()
    analysis = analysis or analyse_picture(pic)
    before = analysis.position
    target = target_of(before, move)
    plan = make_plan(pic, analysis, move, settings)
    path = route(plan)
    x1, y1 = plan.x + 1, plan.y + 1
    if path is None:
        w, ghost = widest_way(plan)
        raise NoRoom(
            f"the widest way between {x1} and {y1} is {w:.1f} px, {settings.d0:g} px needed",
            w, settings.d0, ghost,
        )  # fmt: skip
    try:
        drawn = draw_route(plan, path, target, player)
    except PictureError as e:
        w, ghost = widest_way(plan)
        raise NoRoom(str(e), w, settings.d0, ghost) from None
    need = CERTIFY_SHARE * settings.d0
    if drawn.clearance < need:
        w, ghost = widest_way(plan)
        raise NoRoom(
            f"the curve from {x1} to {y1} keeps only {max(drawn.clearance, 0.0):.1f} px, "
            f"{need:.1f} px needed (the widest way is {w:.1f} px)",
            min(w, drawn.clearance / CERTIFY_SHARE), settings.d0, ghost,
        )  # fmt: skip
    return drawn


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


# --------------------------------------------------------------------------- the ghost (Alfeld §4.4)


@dataclass
class Ghost:
    """The way a move would take if there were room: its route, relaxed, and the room it has."""

    route: np.ndarray  # the planner's path (world points, x … y)
    points: np.ndarray  # the same relaxed by the band, in the middle of what room there is
    widest: float  # the room of the widest way (px)
    plan: Plan  # the plan it was found in (at the clearance it has)


def ghost_of(pic: Picture, analysis: Analysis, move: Move, settings: RouteSettings) -> Ghost | None:
    """The ghost of a move (Alfeld §4.4): the planner's path at the clearance the widest way has.

    When there is a way at the minimum clearance (the move failed later, on a
    curve that kept too little room), that way is the ghost; otherwise the
    planner runs again with the clearance of the widest way, so that the ghost
    goes through the narrowest place the move cannot avoid and is as short as
    that allows.  Either way it is relaxed by the band.  None when there is no
    way at all, or it is narrower than a pixel.
    """
    plan = make_plan(pic, analysis, move, settings)
    path = route(plan)
    w, _ = widest_way(plan)
    # the widest way ignores sides: a marked move may have to take a narrower way, narrower than d0
    # too when the widest way is wider (it is the way with the right sides that found no room)
    room = min(w, settings.d0)
    for share in (0.95, 0.7, 0.45):
        if path is not None or share * room < 1.0:
            break
        narrow = RouteSettings(share * room, settings.D, settings.lam, settings.relax, settings.d0)
        plan = make_plan(pic, analysis, move, narrow)
        path = route(plan)
    if path is None:
        return None
    P, _E, _ds, _de = relax_route(plan, path)
    return Ghost(path, P, w, plan)
