"""What a person's pointer means on the page of ``sprouts play --web`` (Alfeld §3.1).

A press goes to the nearest spot with a life (``nearest_live_spot``), and the spots
a move from it can reach light up (``reachable``): those that share the region
under the pointer with it (``region_at``; the other side's, when the side pressed
leads nowhere).  A stroke that is usable (it joins the two spots and touches
nothing) says by its own drawing which move it is: its picture is read back
(``stroke_move``).  It is then the start of the curve, which the router's band
smooths (``route_curve.draw_route``), keeping its way round things; in heroic mode
(§4.7) it is kept exactly as drawn.

A picture may show the game's position with its regions in another order, or as
its mirror image: ``find_move`` finds a move again across the two, and ``live_key``
tells positions apart as play does (dead boundaries left out).
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING

import numpy as np

from ..engine.moves import Move, all_moves, apply_move
from ..engine.naming import live_key, move_shape
from ..engine.position import Position
from ..errors import PictureError

if TYPE_CHECKING:  # pragma: no cover
    from ..picture.analyse import Analysis
    from ..picture.model import Picture
    from .web_settings import WebSettings


def nearest_live_spot(pic: Picture, x: float, y: float) -> int | None:
    """The spot with a life nearest to the point (None when no spot has a life)."""
    lives = np.asarray(pic.lives())
    if not (lives > 0).any():
        return None
    d = np.hypot(pic.spots[:, 0] - x, pic.spots[:, 1] - y)
    d[lives == 0] = np.inf
    return int(np.argmin(d))


def region_at(a: Analysis, x: float, y: float) -> int | None:
    """The region under the point: the smallest inner face around it, else the outside."""
    from ..picture.analyse import face_polygon
    from ..picture.geometry import winding_number

    point = np.array([x, y], dtype=float)
    best, best_area = None, math.inf
    outside = None
    for i, region in enumerate(a.map.regions):
        if not region or region[0][0] != "cycle" or a.face_area.get(region[0][1], -1.0) <= 0:
            outside = i if outside is None else outside
            continue
        face = region[0][1]
        area = a.face_area[face]
        if area < best_area and winding_number(face_polygon(a.certificate, face), point):
            best, best_area = i, area
    return best if best is not None else outside


def reachable(p: Position, s: int, region: int | None) -> tuple[list[int], int | None]:
    """The spots a move from ``s`` reaches in ``region`` (else the other side's), and the region.

    ``p`` is the picture's position (its numbering and order of regions)."""
    by_region: dict[int, set[int]] = {}
    for m in all_moves(p):
        shape = move_shape(p, m)
        if s in (shape.x, shape.y):
            by_region.setdefault(m.region, set()).add(shape.y if shape.x == s else shape.x)
    if region in by_region:
        return sorted(by_region[region]), region
    if by_region:
        r = min(by_region)
        return sorted(by_region[r]), r
    return [], region


def stroke_move(
    pic: Picture,
    a: Analysis,
    s: int,
    t: int,
    stroke: np.ndarray,
    marks: frozenset[int],
    settings: WebSettings,
    player: int,
) -> tuple[Move, Picture | None] | str | None:
    """The move a usable stroke from ``s`` to ``t`` draws, and its picture (None: the router
    draws it); None: the stroke is not usable; a str: why the move is refused.

    ``a`` is the analysis of ``pic``; ``player`` the 0-based player, for the curve's colour."""
    from ..picture.analyse import analyse_picture
    from ..picture.route_curve import clearance_of_move, draw_route
    from ..picture.route_plan import make_plan, same_numbered

    path = stroke_path(pic, s, t, stroke)
    drawn = straight_picture(pic, s, t, path, player, settings.spot)
    sa = None
    if drawn is not None:
        with contextlib.suppress(PictureError, ValueError):
            sa = analyse_picture(drawn, (pic, a))
    move = None
    if sa is not None:
        p = a.position
        for m in all_moves(p):
            shape = move_shape(p, m)
            if {shape.x, shape.y} == {s, t} and same_numbered(apply_move(p, m, check=False), sa.position):
                move = m
                break
    if move is None or sa is None or drawn is None:  # (sa is only read off a drawing)
        if settings.heroic:
            return "the stroke touches or crosses a curve or a spot (heroic mode keeps the curve as drawn)"
        return None
    if marks - {s, t}:
        side = move_shape(a.position, move).side_a
        inside = side.spots if side is not None else frozenset()
        if not (marks - {s, t}) <= inside and not (marks - {s, t}).isdisjoint(inside):
            return "the stroke does not enclose the marked spots"
    if settings.heroic:
        if clearance_of_move(drawn, sa) <= 0:
            return "the stroke touches a curve or a spot"
        return move, drawn
    st = settings.route()
    try:
        plan = make_plan(pic, a, move, st)
    except (PictureError, ValueError):
        return move, None
    # the route runs from the plan's first spot: the stroke as drawn or backwards (a loop: either)
    ways = [path, path[::-1]] if s == t else [path if plan.x == s else path[::-1]]
    target = apply_move(a.position, move)
    for way in ways:
        with contextlib.suppress(PictureError, ValueError):
            smooth = draw_route(plan, way, target, player)
            if smooth.clearance >= st.certified:
                return move, smooth.picture
    return move, None


# ---------------------------------------------------------------------- geometry of a stroke


def points(raw: object, limit: int = 4000) -> np.ndarray:
    """Points sent by the page as an array (ValueError for anything else)."""
    if not isinstance(raw, list) or len(raw) > limit:
        raise ValueError(f"a list of at most {limit} points")
    pts = np.array(
        [[float(v) for v in pt] for pt in raw if isinstance(pt, list) and len(pt) == 2], dtype=float
    ).reshape(-1, 2)
    if len(pts) != len(raw) or not np.isfinite(pts).all():
        raise ValueError("points are pairs of numbers")
    return pts


def stroke_path(pic: Picture, s: int, t: int, stroke: np.ndarray) -> np.ndarray:
    """The stroke from spot ``s``'s centre to ``t``'s, outside their discs, points at least 3 px apart."""
    a, b = pic.spots[s], pic.spots[t]
    ra, rb = float(pic.sizes[s]) + 1.0, float(pic.sizes[t]) + 1.0
    keep = [a]
    for q in stroke:
        if np.hypot(*(q - a)) <= ra or np.hypot(*(q - b)) <= rb:
            continue
        if np.hypot(*(q - keep[-1])) >= 3.0:
            keep.append(q)
    keep.append(b)
    return np.array(keep, dtype=float)


def straight_picture(
    pic: Picture, s: int, t: int, path: np.ndarray, player: int, size: float
) -> Picture | None:
    """The picture with the stroke as a curve of straight pieces and the new spot halfway (heroic mode)."""
    from ..picture.fit import cut_at
    from ..picture.model import Curve
    from ..picture.spline import straight_pieces

    if len(path) < 3 and s == t:
        return None
    if len(path) < 2 or float(np.hypot(*np.diff(path, axis=0).T).sum()) < 4 * size:
        return None
    try:
        pieces, h = straight_pieces(path)
        first, second, z = cut_at(pieces, h, 0.5)
    except (ValueError, IndexError):
        return None
    out = pic.copy()
    out.spots = np.vstack([out.spots, z])
    out.sizes = np.append(out.sizes, float(np.median(pic.sizes)) if len(pic.sizes) else size)
    zi = len(pic.spots)
    out.curves.append(Curve(s, zi, first[0], first[1], player))
    out.curves.append(Curve(zi, t, second[0], second[1], player))
    return out


# ---------------------------------------------------------------------- a move found again


def find_move(p: Position, target: Position, words: str) -> Move | None:
    """The move of ``p`` that gives ``target`` (same spot numbers, up to mirroring): by its words, else any.

    ``p`` may be the mirror image of the position the words were read in (a picture
    may draw the game either way round), and the words of a move that splits a
    boundary need not name the same side there; every legal move is then tried.
    """
    from ..picture.room import same_move
    from ..picture.route_plan import same_numbered

    found = same_move(p, target, words)
    if found is not None:
        return found
    for m in all_moves(p):
        if same_numbered(apply_move(p, m, check=False), target):
            return m
    want = live_key(target)
    for m in all_moves(p):
        if live_key(apply_move(p, m, check=False)) == want:
            return m
    return None


__all__ = [
    "find_move",
    "live_key",
    "nearest_live_spot",
    "points",
    "reachable",
    "region_at",
    "straight_picture",
    "stroke_move",
    "stroke_path",
]
