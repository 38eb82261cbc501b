"""The plan of a move for the router (Alfeld §3.2): the obstacles, the corners at the ends, the grid.

Everything ``router.py`` works from: the picture's curves and spots as obstacles,
the corner of each end spot (which way the new curve leaves it), and the planner's
grid with its end cells; a loop's ends kept apart by a short closed strip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..engine.moves import Move, apply_move
from ..engine.naming import numbered_key
from ..engine.position import Position
from .analyse import Analysis
from .band import Obstacles
from .geometry import point_segment_distance
from .grid_planner import (
    Grid,
    room_fields,
)
from .model import COMFORT, MIN_CLEARANCE, Picture
from .work import charge_states

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
    #: the grid's room by true distance, the end spots no obstacles (``grid_planner.room_fields``),
    #: for ``route_search.leakproof_room``
    plain_room: np.ndarray | None = None
    #: the grid's room by true distance to everything, its nearest obstacle, the nearest point and
    #: segment (``grid_planner.room_fields``), for ``route_rays.build_rays``
    full_room: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None


def _crosses_any(a: np.ndarray, b: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """For many segments a→b (rows), whether each properly crosses any of ``segs`` (vectorised).

    Only the ``segs`` whose boxes meet the box of all the rows are looked at: no other can cross one.
    """
    if not len(segs) or not len(a):
        return np.zeros(len(a), dtype=bool)
    lo = np.minimum(a.min(axis=0), b.min(axis=0))
    hi = np.maximum(a.max(axis=0), b.max(axis=0))
    seg_lo = np.minimum(segs[:, :2], segs[:, 2:])
    seg_hi = np.maximum(segs[:, :2], segs[:, 2:])
    segs = segs[((seg_hi >= lo) & (seg_lo <= hi)).all(axis=1)]
    if not len(segs):
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
    charge_states(grid.size)  # the room of every cell (``work.charge_states``: pushing counts it)
    radius = 1.0 + float(max(pic.sizes)) if len(pic.sizes) else 6.0
    cx = corner_of(pic, analysis, move.region, move.boundary, move.corner, radius + grid.cell)
    cy = corner_of(pic, analysis, move.region, move.boundary2, move.corner2, radius + grid.cell)
    x, y = cx.spot, cy.spot
    del region
    ob = obstacles_of(pic, analysis)
    plan = Plan(pic, analysis, move, x, y, cx, cy, grid, ob, settings)
    rho = math.sqrt(2.0) * settings.D
    room, _near, _foot, _seg, plain, *full = room_fields(
        grid.nx, grid.ny, grid.x0, grid.y0, grid.cell, ob.segs, ob.seg_curve, ob.curve_ends,
        ob.spots, ob.sizes, ob.width, ob.height, 3.0 * settings.d0, np.array([x, y], dtype=np.int64),
        rho, settings.d0,
    )  # fmt: skip
    plan.plain_room = plain
    plan.full_room = (full[0], full[1], full[2], full[3])
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
