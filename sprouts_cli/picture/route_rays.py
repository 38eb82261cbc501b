"""The sides of a move (Alfeld §3.3): rays from the boundaries that must go to one side, barrier trees.

A move that shares out its region's boundaries must leave each on its side; a ray
is cut in the region from each such boundary to an anchor on side B, and a route
crosses it an odd number of times exactly when its boundary goes to side A.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from .grid_planner import (
    SHIFT,
    STEPS,
    Grid,
    grow_tree,
    grow_tree_to,
    legs_bits,
    room_field,
)
from .route_plan import Plan, _crosses_any

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
    pic, g = plan.pic, plan.grid
    settings = plan.settings
    walks = plan.analysis.map.regions[plan.move.region]
    ob = plan.ob
    if plan.full_room is not None:  # made with the plan, in the same pass as its own room
        room, near, foot, nseg = plan.full_room
    else:
        room, near, foot, nseg = room_field(
            g.nx, g.ny, g.x0, g.y0, g.cell, ob.segs, ob.seg_curve, ob.curve_ends, ob.spots, ob.sizes,
            ob.width, ob.height, 3.0 * settings.d0, np.array([-1, -1], dtype=np.int64), 1.0, settings.d0,
        )  # fmt: skip
    allowed = room > 0.75 * g.cell
    labels, _ = ndimage.label(allowed.reshape(g.ny, g.nx), structure=np.ones((3, 3), dtype=int))
    labels = labels.ravel()
    k0 = _first_cell(plan, allowed)
    if k0 is None:
        return None
    comp = labels == labels[k0]
    cell_boundary, cell_half = _cell_boundaries(plan, comp, near, nseg)
    centres = g.centres()
    away = 2.0 * settings.d0 + float(max(pic.sizes[plan.x], pic.sizes[plan.y])) + 2 * g.cell
    far = (np.hypot(*(centres - pic.spots[plan.x]).T) > away) & (
        np.hypot(*(centres - pic.spots[plan.y]).T) > away
    )
    anchor, anchor_boundary, inside_set = _anchor(plan, comp, far, cell_boundary, cell_half)
    side_a = _side_a(plan, comp, far, cell_half)
    sources = np.nonzero(anchor)[0].astype(np.int64)
    if not len(sources):
        return None
    dist, prev = grow_tree(g.nx, comp, STEPS, sources)
    rays = Rays([], [], {}, comp & far, cell_boundary, side_a, anchor, room < 1.5 * g.cell)
    for k in range(len(walks)):
        if k == plan.move.boundary or k == anchor_boundary:
            continue
        rays.want_odd[k] = k in inside_set
        targets = np.nonzero((cell_boundary == k) & comp & np.isfinite(dist))[0]
        if not len(targets):
            continue
        t = targets[int(np.argmin(dist[targets]))]
        rays.boundaries.append(k)
        rays.polylines.append(_ray_polyline(g, int(t), prev, foot))
    return rays


def _first_cell(plan: Plan, allowed: np.ndarray) -> int | None:
    """The grid cell the region is entered by from x's corner (None when no cell there fits).

    Of the free cells near x, those in the corner's angle whose straight way out from
    x's rim crosses no line; the nearest one names the region's component of the grid.
    """
    pic, g, ob = plan.pic, plan.grid, plan.ob
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
    return int(ks[int(np.argmin(np.hypot(*(g.centres()[ks] - centre).T)))])


def _walk_lookups(plan: Plan) -> tuple[dict[int, tuple[int, int]], dict[int, int]]:
    """The region's walks by half-edge (walk, place) and by spot (walk)."""
    analysis = plan.analysis
    walks = analysis.map.regions[plan.move.region]
    half_walk: dict[int, tuple[int, int]] = {}
    spot_walk: dict[int, int] = {}
    for b, (kind, items) in enumerate(walks):
        if kind == "spot":
            spot_walk[items[0]] = b
        else:
            for i, h in enumerate(items):
                half_walk[h] = (b, i)
                spot_walk.setdefault(analysis.map.tail(h), b)
    return half_walk, spot_walk


def _cell_boundaries(
    plan: Plan, comp: np.ndarray, near: np.ndarray, nseg: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Which boundary of the region each of its cells faces, and which half-edge (-1: none).

    A cell nearest a curve faces the half-edge on its side of it; one nearest a spot
    faces the boundary the spot is on; -2 marks the window's edge.  All cells at once.
    """
    pic, g, ob = plan.pic, plan.grid, plan.ob
    half_walk, spot_walk = _walk_lookups(plan)
    n_curves = len(pic.curves)
    half_b = np.full(max([2 * n_curves, *(h + 1 for h in half_walk)]), -1, dtype=np.int64)
    for half, (b, _i) in half_walk.items():
        half_b[half] = b
    spot_b = np.full(max([len(pic.spots), *(v + 1 for v in spot_walk)]), -1, dtype=np.int64)
    for v, b in spot_walk.items():
        spot_b[v] = b
    cells = np.nonzero(comp)[0]
    cell_boundary = np.full(g.size, -1, dtype=np.int64)
    cell_half = np.full(g.size, -1, dtype=np.int64)
    o = near[cells]
    on_curve = (o >= 0) & (o < n_curves)
    k = cells[on_curve]
    seg = ob.segs[nseg[k]]
    centres = g.centres()[k]
    dx, dy = seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1]
    cross = dx * (centres[:, 1] - seg[:, 1]) - dy * (centres[:, 0] - seg[:, 0])  # as ``_side_of_curve``
    h = 2 * o[on_curve] + np.where(cross < 0, 0, 1)
    h = np.where(half_b[h] >= 0, h, h ^ 1)
    faces = half_b[h] >= 0
    cell_boundary[k[faces]] = half_b[h[faces]]
    cell_half[k[faces]] = h[faces]
    at_spot = o >= n_curves
    cell_boundary[cells[at_spot]] = spot_b[o[at_spot] - n_curves]
    cell_boundary[cells[o == -2]] = -2
    return cell_boundary, cell_half


def _cell_boundaries_reference(
    plan: Plan, comp: np.ndarray, near: np.ndarray, nseg: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``_cell_boundaries`` a cell at a time (the plain reference it is tested against)."""
    pic, g, ob = plan.pic, plan.grid, plan.ob
    half_walk, spot_walk = _walk_lookups(plan)
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
    return cell_boundary, cell_half


def _anchor(
    plan: Plan, comp: np.ndarray, far: np.ndarray, cell_boundary: np.ndarray, cell_half: np.ndarray
) -> tuple[np.ndarray, int | None, set[int]]:
    """The cells the rays start from, the boundary they lie on (None: the move's own), and the inside.

    On a cycle through x the anchor is the move's own arc that stays outside (far
    from x and y); a loop at a lone spot anchors on the window or on another
    boundary, and when that boundary is one the move encloses, the sides swap.
    """
    move = plan.move
    walks = plan.analysis.map.regions[move.region]
    B = move.boundary
    kind, items = walks[B]
    others = [k for k in range(len(walks)) if k != B]
    inside_set = set(move.inside)
    if kind == "cycle" and plan.analysis.map.degree(plan.x) > 0:
        n = len(items)
        if move.is_loop:
            arc_b = set(items)
        else:
            arc_b = {items[(move.corner2 + i) % n] for i in range((move.corner - move.corner2) % n)}
        return comp & far & np.isin(cell_half, list(arc_b)), None, inside_set
    # a loop at a lone spot: anchor on the window (outside) or the region's own cycle
    if move.region == 0 or not others:
        return comp & (cell_boundary == -2), None, inside_set
    anchor_boundary = 0 if B != 0 else others[0]
    anchor = comp & (cell_boundary == anchor_boundary)
    if anchor_boundary in inside_set:
        inside_set = set(others) - inside_set  # both sides read [x z]: take the other side as inside
    return anchor, anchor_boundary, inside_set


def _side_a(plan: Plan, comp: np.ndarray, far: np.ndarray, cell_half: np.ndarray) -> np.ndarray:
    """The cells along the arc of the boundary from corner to corner2 (a move between two corners)."""
    g, move = plan.grid, plan.move
    kind, items = plan.analysis.map.regions[move.region][move.boundary]
    if kind != "cycle" or move.is_loop:
        return np.zeros(g.size, dtype=bool)
    n = len(items)
    arc_a = {items[(move.corner + i) % n] for i in range((move.corner2 - move.corner) % n)}
    return comp & far & np.isin(cell_half, list(arc_a))


def _ray_polyline(g: Grid, t: int, prev: np.ndarray, foot: np.ndarray) -> np.ndarray:
    """The ray from cell ``t`` back along the tree to the anchor, in grid units, with its two feet."""
    chain = []
    c = t
    while c >= 0:
        chain.append(c)
        c = int(prev[c])
    pts = [g.to_grid(foot[chain[0]])] + [np.array([c % g.nx, c // g.nx], dtype=float) for c in chain]
    pts.append(g.to_grid(foot[chain[-1]]))
    return np.array(pts)


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
        sources = np.nonzero(tree)[0].astype(np.int64)
        dist, prev = grow_tree_to(g.nx, allowed | tree | grp, STEPS, sources, grp)
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
