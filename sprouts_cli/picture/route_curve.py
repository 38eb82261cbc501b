"""From a route to the move's curve (Alfeld §3.4–3.6): the band, the ports, the spline, the check.

The route is tightened between obstacles (``band``), fitted by a clamped spline
cut where the new spot goes (``fit``), and the picture with the move is read back
and certified (the new curves keep ``0.6 d0`` from everything).
"""

from __future__ import annotations

import math

import numpy as np

from ..engine.position import Position
from ..errors import PictureError
from ..jit import kernel
from .analyse import Analysis, analyse_picture
from .band import Band, BandSettings, Closing, polygon_area
from .fit import cut_at, fit_clamped, piece_lengths
from .geometry import point_segment_distance, segment_distance, winding_numbers
from .model import COMFORT, MIN_CLEARANCE, Curve, Picture
from .route_plan import Corner, Drawn, Plan, half_edge_polygon, same_numbered
from .route_search import self_crossing, unfold
from .spline import straight_pieces

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
        holds = int((winding_numbers(poly, np.array(others)) != 0).sum()) if others else 0
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
def new_curve_clearance(  # noqa: C901  (a numba kernel: one loop nest)
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
    lengths = piece_lengths(pieces)
    places = np.array([cut_at(pieces, h, sh, lengths)[2] for sh in shares])
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


def _least_room(points: np.ndarray, segs: np.ndarray, spots: np.ndarray, sizes: np.ndarray) -> float:
    """The least of ``_room_for_spots`` over ``points``, the same number sooner: a segment whose box
    is farther from the points' box than the nearest spot disc cannot be the nearest thing."""
    least = math.inf
    if len(spots):
        least = float((np.hypot(*(points[:, None, :] - spots[None]).transpose(2, 0, 1)) - sizes[None]).min())
    if len(segs):
        lo, hi = points.min(axis=0), points.max(axis=0)
        gap = np.maximum(np.minimum(segs[:, :2], segs[:, 2:]) - hi, lo - np.maximum(segs[:, :2], segs[:, 2:]))
        near = gap.max(axis=1) <= least
        if near.any():
            none = np.zeros((0, 2))
            least = min(least, float(_room_for_spots(points, segs[near], none, np.zeros(0)).min()))
    return least


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


#: A loop's round seed keeps this many clearances ``d0`` from everything but its own spot.
ROUND_ROOM = 1.5
ROUND_RADII = 8  # radii tried, from the region's own size down to ``1.5 d0``
ROUND_TURNS = 24  # directions of the centre tried round the corner


def round_loop(plan: Plan, path: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A loop drawn as a circle through its spot, as large as the free room allows: points and end directions.

    The band weighs a new region's outward pressure ``μ/area`` against the crowding
    of the curves around it, and where a loop is drawn among curves (in a small
    region, say) the crowding wins: the loop settles a few pixels across and its
    new spot all but touches the old one.  A person draws the loop round, as large
    as the place allows.  So the circle through the loop's spot is tried with the
    radius a new empty region settles at in free room (``REGION_RADIUS · D``, more
    for one that holds boundaries), then smaller ones down to ``1.5 d0``, its centre
    in each direction of the corner; the largest that keeps ``ROUND_ROOM · d0`` from
    every curve, spot and the window (away from its own spot) and holds exactly
    the spots the route holds is taken, the direction with most room first.
    None when no circle fits, or for a move that is not a loop.
    """
    if plan.x != plan.y or len(path) < 3:
        return None
    st = plan.settings
    pic = plan.pic
    x = plan.x
    c = pic.spots[x]
    P = np.asarray(path, dtype=float)
    others = np.array([s for s in range(len(pic.spots)) if s != x], dtype=np.int64)
    inside = (winding_numbers(P, pic.spots[others]) != 0).tolist()
    spots, sizes = pic.spots[others], pic.sizes[others]
    need = ROUND_ROOM * st.d0
    own = float(pic.sizes[x]) + need
    whole = plan.cx.width >= 2 * math.pi - 1e-9
    margin = math.radians(20)
    largest = REGION_RADIUS * st.D * (1 + sum(inside))
    for r in np.linspace(largest, 1.5 * st.d0, ROUND_RADII):
        best: tuple[float, np.ndarray, float] | None = None
        for k in range(ROUND_TURNS):
            th = plan.cx.start + plan.cx.width * (k + 0.5) / ROUND_TURNS
            if not whole and not (
                plan.cx.contains(th - math.pi / 2, margin) and plan.cx.contains(th + math.pi / 2, margin)
            ):
                continue
            centre = c + r * np.array([math.cos(th), math.sin(th)])
            if not (need <= centre[0] - r and centre[0] + r <= pic.width - need):
                continue
            if not (need <= centre[1] - r and centre[1] + r <= pic.height - need):
                continue
            phi = np.linspace(th + math.pi, th + 3 * math.pi, max(16, int(2 * math.pi * r / 4.0)))
            circle = centre + r * np.stack([np.cos(phi), np.sin(phi)], axis=1)
            circle[0] = circle[-1] = c
            if (winding_numbers(circle, spots) != 0).tolist() != inside:
                continue
            far = np.hypot(*(circle - c).T) > own
            room = _least_room(circle[far], plan.ob.segs, spots, sizes) if far.any() else 0.0
            if room >= need and (best is None or room > best[0]):
                best = (room, circle, th)
        if best is not None:
            _room, circle, th = best
            # the circle leaves its spot at th − 90° and comes back from th + 90°
            leave = np.array([math.cos(th - math.pi / 2), math.sin(th - math.pi / 2)])
            back = np.array([math.cos(th + math.pi / 2), math.sin(th + math.pi / 2)])
            return circle, leave, back
    return None


def draw_route(
    plan: Plan,
    path: np.ndarray,
    target: Position,
    player: int | None = None,
    relaxed: tuple[np.ndarray, float, np.ndarray, np.ndarray] | None = None,
) -> Drawn:
    """The band, the spline, the cut and the check for one route; PictureError when it does not read back.

    A loop the band drew smaller than its round seed (``round_loop``) is tried as
    that circle first.  ``relaxed`` is ``relax_route(plan, path)`` when the caller has it
    already (it is the same every time: the band has no chance in it).
    """
    st = plan.settings
    P, E, d_start, d_end = relaxed if relaxed is not None else relax_route(plan, path)
    last = ""
    best: Drawn | None = None
    ends = (d_start, d_end)
    candidates = [(P, True, ends), (P, False, ends)]
    bulged = _bulged(plan, P)
    if bulged is not None:
        candidates.extend([(bulged, True, ends), (bulged, False, ends)])
    seed = round_loop(plan, path) if st.relax else None
    no_arc = np.zeros((0, 2))
    if seed is not None and abs(polygon_area(seed[0], no_arc)) > abs(polygon_area(P, no_arc)):
        candidates.insert(0, (seed[0], True, (seed[1], seed[2])))
    # the grid's own way last: the band may have pulled a loop round nothing shut, or squeezed a
    # curve where the grid way kept its cells' room
    # whether the ways tried that were drawn all read back as another position (none as the same one
    # numbered otherwise)
    elsewhere = None
    for points, smooth, (d_a, d_b) in (*candidates, (path, True, ends), (path, False, ends)):
        if points is not path and self_crossing(points):
            continue
        try:
            pieces, h = curve_from_points(points, d_a, d_b, smooth)
            first, second, z = cut_at(pieces, h, spot_share(plan, pieces, h))
            pic = _new_picture(plan.pic, plan.x, plan.y, first, second, z, player)
            a = analyse_picture(pic, (plan.pic, plan.analysis))
        except (PictureError, ValueError, np.linalg.LinAlgError) as e:
            last = str(e)
            continue
        if not same_numbered(a.position, target):
            got, wanted = a.position.canonical(), target.canonical()
            last = f"the curve reads back as {got}, not {wanted}"
            elsewhere = (elsewhere is not False) and got != wanted
            continue
        clearance = clearance_of_move(pic, a)
        drawn = Drawn(pic, a, clearance, E)
        if best is None or drawn.clearance > best.clearance:
            best = drawn
        if clearance >= st.certified:
            return drawn
    if best is not None:
        return best
    if elsewhere:
        raise OtherPosition(f"the route could not be drawn: {last}")
    raise PictureError(f"the route could not be drawn: {last}")


class OtherPosition(PictureError):
    """Every way the route was drawn (and read back) read back as another position: the route goes
    round other things than the move's (its sides), which no room made beside it can change."""
