"""Picture → position (Alfeld §2.3): rotation system, faces, nesting, regions.

The position is read off the curves from scratch: this is both how a drawing is
understood and the check that every picture operation must pass (Alfeld §1.2).

1. Half-edges ``2e`` (a → b) and ``2e+1`` (b → a) of every curve.
2. At each spot the half-edges are sorted by the direction of their first
   refined-polygon leg (the certificate guarantees the directions differ).
3. Faces are traced by ``next(h) = rot_next(twin(h))``; per connected part the
   cycle of least signed area is its outer cycle, the others are inner faces.
4. Each part (and each spot with no curve) lies in the smallest inner face of
   another part that contains one of its spots, else in the outside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..engine import Position
from ..engine.position import EulerCounts
from ..errors import PictureError
from .certify import Certificate, certify
from .geometry import winding_number
from .model import Picture
from .planar_map import PlanarMap, Walk


@dataclass
class Analysis:
    """What a picture means: its planar map, its position and its least clearance."""

    map: PlanarMap
    position: Position
    certificate: Certificate
    face_area: dict[tuple[int, ...], float]

    @property
    def min_clearance(self) -> float:
        return self.certificate.min_clearance

    @property
    def bounded_faces(self) -> int:
        """Regions other than the outside (the ``regions`` of Euler's relation)."""
        return len(self.map.regions) - 1


def drawing_counts(pic: Picture, analysis: Analysis | None = None) -> EulerCounts:
    """Euler's four counts taken from the drawing itself: spots, curves, bounded faces, pieces.

    The regions are counted by tracing the faces, not by the formula, so Euler's
    relation (points + regions = lines + parts) is a genuine check of the picture.
    """
    a = analysis if analysis is not None else analyse_picture(pic)
    return EulerCounts(
        points=pic.points,
        regions=a.bounded_faces,
        lines=pic.lines,
        parts=len(set(a.map.components())),
    )


def check_structure(pic: Picture, tol: float = 0.5) -> None:
    """Curves end at spots, no spot has more than three curves (else PictureError)."""
    n = len(pic.spots)
    for e, c in enumerate(pic.curves):
        for end, s, pt in (("start", c.a, c.pieces[0, 0]), ("end", c.b, c.pieces[-1, 3])):
            if not 0 <= s < n:
                raise PictureError(f"curve {e + 1} has its {end} at spot {s + 1}, but there are {n} spots")
            if math.hypot(*(pt - pic.spots[s])) > tol:
                raise PictureError(
                    f"curve {e + 1} should {end} at spot {s + 1} "
                    f"({pic.spots[s][0]:.1f}, {pic.spots[s][1]:.1f}) but {end}s at ({pt[0]:.1f}, {pt[1]:.1f})"
                )
        if not np.isfinite(c.pieces).all():
            raise PictureError(f"curve {e + 1} has a control point that is not a number")
    deg = pic.degrees()
    for s in range(n):
        if deg[s] > 3:
            raise PictureError(f"spot {s + 1} has {deg[s]} curves; a spot takes at most three")


def analyse_picture(pic: Picture, known: tuple[Picture, Analysis] | None = None) -> Analysis:
    """Certify the picture and read its planar map and position (PictureError if it is not a drawing).

    ``known``: an earlier picture and its analysis, whose refined curves are reused
    where a curve is unchanged (``certify``); the reading is still from scratch.
    """
    check_structure(pic)
    cert = certify(pic, known=None if known is None else (known[0], known[1].certificate))
    n = len(pic.spots)
    edges = [(c.a, c.b) for c in pic.curves]
    rot: list[list[int]] = [[] for _ in range(n)]
    for e, c in enumerate(pic.curves):
        rot[c.a].append(2 * e)
        rot[c.b].append(2 * e + 1)
    for v in range(n):
        rot[v].sort(key=lambda h: _angle(cert, h))
    pmap = PlanarMap(n, edges, rot, [], [False] * n, list(range(n)))
    faces = pmap.faces()
    polygons = {f: face_polygon(cert, f) for f in faces}
    area = {f: _signed_area(polygons[f]) for f in faces}
    comp = pmap.components()
    outer: dict[int, tuple[int, ...]] = {}
    for f in faces:
        part = comp[pmap.tail(f[0])]
        if part not in outer or area[f] < area[outer[part]]:
            outer[part] = f
    inner = [f for f in faces if outer[comp[pmap.tail(f[0])]] != f]
    regions: list[list[Walk]] = [[]] + [[("cycle", f)] for f in inner]
    index = {f: i + 1 for i, f in enumerate(inner)}
    # place every part (its outer cycle) and every lone spot in the smallest inner face around it
    members: dict[int, list[int]] = {}
    for v in range(n):
        members.setdefault(comp[v], []).append(v)
    for part in sorted(members):
        probe = pic.spots[members[part][0]]
        best, best_area = 0, math.inf
        for f in inner:
            if comp[pmap.tail(f[0])] == part or abs(area[f]) >= best_area:
                continue
            if winding_number(polygons[f], probe) != 0:  # never on it, by the certificate
                best, best_area = index[f], abs(area[f])
        walk: Walk = ("cycle", outer[part]) if part in outer else ("spot", (members[part][0],))
        regions[best].append(walk)
    if not regions[0] and len(regions) > 1:
        regions = regions[1:]  # an empty picture has one region; otherwise the outside is never empty
    pmap.regions = regions
    position = pmap.position()
    return Analysis(pmap, position, cert, area)


def analyse(pic: Picture) -> Position:
    """The position of a picture, spots numbered as the picture's spots (0-based)."""
    return analyse_picture(pic).position


def _angle(cert: Certificate, h: int) -> float:
    d = cert.start_dir[h >> 1] if h % 2 == 0 else cert.end_dir[h >> 1]
    return math.atan2(d[1], d[0])


def face_polygon(cert: Certificate, face: tuple[int, ...]) -> np.ndarray:
    parts = []
    for h in face:
        poly = cert.polygon(h >> 1)
        parts.append(poly[:-1] if h % 2 == 0 else poly[::-1][:-1])
    return np.concatenate(parts)


def _signed_area(poly: np.ndarray) -> float:
    """Signed area of a face walk: positive for inner faces, negative for outer cycles.

    Faces are traced with the face on the walker's left as seen on the screen, so an
    inner face is walked anticlockwise on the screen; with the screen's y axis
    pointing down the shoelace sum of such a walk is negative, hence the sign flip.
    """
    x, y = poly[:, 0], poly[:, 1]
    return float(-0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)))


