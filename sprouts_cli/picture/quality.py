"""How good a picture looks, in numbers: room of its regions, length, turning, inflections.

These measures judge drawings (the benchmark's table, the tests of the router
and of A and R); they never change a picture.

* **Room of a region**: the radius of the largest disc inside it, clear of every
  curve, spot disc and the window's edge.  The drawing is rasterised (curves
  and spot discs block pixels), the free pixels are split into 4-connected
  components (an 8-connected curve of blocked pixels cannot be leaked through)
  and each component's largest distance to a blocked pixel is its room; each
  component is given to the region its deepest pixel lies in.  A region thinner
  than a pixel has no free pixel: its room is 0.
* **Length** and **turning** (the sum of ``|curvature| ds``) of every curve,
  from the curves sampled densely; **inflections**: the changes of the sense of
  turning along a curve, runs turning less than a few degrees not counted.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from .analyse import Analysis, analyse_picture, face_polygon
from .model import Picture
from .spline import bezier_points

#: Samples per cubic piece for length, turning and inflections.
SAMPLES = 48
#: A run of turning in one sense smaller than this (radians) is noise, not a bend of its own.
BEND = math.radians(4.0)


def curve_points(pieces: np.ndarray, samples: int = SAMPLES) -> np.ndarray:
    """Points along a curve's pieces, ``samples`` per piece, joined (the first point once).

    All pieces at once, by the same arithmetic as ``bezier_points`` piece by piece
    (``curve_points_reference``), so the points are the same to the last bit."""
    pieces = np.asarray(pieces, dtype=float)
    if not len(pieces):
        return np.zeros((0, 2))
    t = np.linspace(0.0, 1.0, samples + 1)[None, :, None]
    s = 1.0 - t
    b0, b1, b2, b3 = (pieces[:, i, None, :] for i in range(4))
    P = s**3 * b0 + 3 * s * s * t * b1 + 3 * s * t * t * b2 + t**3 * b3
    return np.concatenate([P[0], P[1:, 1:].reshape(-1, 2)])


def curve_points_reference(pieces: np.ndarray, samples: int = SAMPLES) -> np.ndarray:
    """``curve_points`` piece by piece with ``bezier_points`` (the reference it is tested against)."""
    ts = np.linspace(0.0, 1.0, samples + 1)
    parts = [bezier_points(pc, ts if k == 0 else ts[1:]) for k, pc in enumerate(pieces)]
    return np.concatenate(parts) if parts else np.zeros((0, 2))


def _turns(P: np.ndarray) -> np.ndarray:
    """The signed turn (radians) at each inner point of a polyline, zero-length legs skipped."""
    d = np.diff(P, axis=0)
    keep = np.hypot(d[:, 0], d[:, 1]) > 1e-9
    d = d[keep]
    if len(d) < 2:
        return np.zeros(0)
    ang = np.arctan2(d[:, 1], d[:, 0])
    return (np.diff(ang) + math.pi) % (2 * math.pi) - math.pi


def curve_length(pieces: np.ndarray) -> float:
    P = curve_points(pieces)
    return float(np.hypot(*np.diff(P, axis=0).T).sum()) if len(P) > 1 else 0.0


def curve_turning(pieces: np.ndarray) -> float:
    """The sum of |curvature| ds along one curve (radians)."""
    return float(np.abs(_turns(curve_points(pieces))).sum())


def curve_inflections(pieces: np.ndarray, bend: float = BEND) -> int:
    """How often the curve changes from turning one way to the other (bends under ``bend`` ignored)."""
    runs: list[float] = []
    for t in _turns(curve_points(pieces)):
        if runs and (t >= 0) == (runs[-1] >= 0):
            runs[-1] += t
        else:
            runs.append(float(t))
    # runs too small to be a bend merge into what surrounds them
    big = [r for r in runs if abs(r) >= bend]
    changes = 0
    for a, b in itertools.pairwise(big):
        if (a >= 0) != (b >= 0):
            changes += 1
    return changes


def total_length(pic: Picture) -> float:
    return float(sum(curve_length(c.pieces) for c in pic.curves))


def total_turning(pic: Picture) -> float:
    return float(sum(curve_turning(c.pieces) for c in pic.curves))


def inflections_per_curve(pic: Picture) -> float:
    if not pic.curves:
        return 0.0
    return float(np.mean([curve_inflections(c.pieces) for c in pic.curves]))


def _point_regions(analysis: Analysis, pts: np.ndarray) -> np.ndarray:
    """The region of each point: the smallest inner face around it, else the outside (0)."""
    owner = np.zeros(len(pts), dtype=int)
    best = np.full(len(pts), np.inf)
    for ri, region in enumerate(analysis.map.regions):
        if ri == 0 or not region or region[0][0] != "cycle":
            continue
        f = region[0][1]
        poly = face_polygon(analysis.certificate, f)
        area = abs(analysis.face_area[f])
        x = poly[None, :, 0] - pts[:, None, 0]
        y = poly[None, :, 1] - pts[:, None, 1]
        x2, y2 = np.roll(x, -1, axis=1), np.roll(y, -1, axis=1)
        cross = x * y2 - x2 * y
        up = ((y <= 0) & (y2 > 0) & (cross > 0)).sum(axis=1)
        wind = up - ((y > 0) & (y2 <= 0) & (cross < 0)).sum(axis=1)
        inside = (wind != 0) & (area < best)
        best[inside] = area
        owner[inside] = ri
    return owner


def curve_pixels(pieces: np.ndarray, px: float) -> np.ndarray:
    """Points along a curve no farther apart than ``0.4 px``: its points, 16 a piece, and
    each leg longer than that cut evenly (``np.linspace``'s points, all legs at once)."""
    P = curve_points(pieces, 16)
    legs = np.hypot(*np.diff(P, axis=0).T)
    ks = np.nonzero(legs > 0.4 * px)[0]
    if not len(ks):
        return P
    m = np.ceil(legs[ks] / (0.4 * px)).astype(np.int64)
    k = np.repeat(ks, m + 1)
    first = np.repeat(np.cumsum(m + 1) - (m + 1), m + 1)
    i = np.arange(len(k)) - first
    t = i * (1.0 / np.repeat(m, m + 1))  # linspace: i · (1 / m), its last point exactly 1
    t[i == np.repeat(m, m + 1)] = 1.0
    return np.concatenate([P[k] + t[:, None] * (P[k + 1] - P[k]), P])


def curve_pixels_reference(pieces: np.ndarray, px: float) -> np.ndarray:
    """``curve_pixels`` leg by leg (the plain reference it is tested against)."""
    P = curve_points(pieces, 16)
    legs = np.hypot(*np.diff(P, axis=0).T)
    parts = []
    for k in np.nonzero(legs > 0.4 * px)[0]:
        m = math.ceil(legs[k] / (0.4 * px))
        t = np.linspace(0.0, 1.0, m + 1)[:, None]
        parts.append(P[k] + t * (P[k + 1] - P[k]))
    return np.concatenate([*parts, P])


def region_rooms(pic: Picture, analysis: Analysis | None = None, px: float = 1.0) -> np.ndarray:
    """The room (largest inscribed disc radius, world px) of every region, in the map's region order."""
    a = analysis if analysis is not None else analyse_picture(pic)
    n_regions = len(a.map.regions)
    nx, ny = max(1, math.ceil(pic.width / px)), max(1, math.ceil(pic.height / px))
    blocked = np.zeros((ny + 2, nx + 2), dtype=bool)  # a frame of blocked pixels: the window's edge
    blocked[0, :] = blocked[-1, :] = True
    blocked[:, 0] = blocked[:, -1] = True

    def mark(pts: np.ndarray) -> None:
        i = np.clip(np.floor(pts[:, 0] / px).astype(int) + 1, 0, nx + 1)
        j = np.clip(np.floor(pts[:, 1] / px).astype(int) + 1, 0, ny + 1)
        blocked[j, i] = True

    for c in pic.curves:
        mark(curve_pixels(c.pieces, px))
    yy, xx = np.mgrid[0 : ny + 2, 0 : nx + 2]
    cx, cy = (xx - 0.5) * px, (yy - 0.5) * px  # pixel centres in world coordinates
    for (sx, sy), r in zip(pic.spots, pic.sizes, strict=True):
        lo_i, hi_i = max(0, int((sx - r) / px)), min(nx + 1, int((sx + r) / px) + 2)
        lo_j, hi_j = max(0, int((sy - r) / px)), min(ny + 1, int((sy + r) / px) + 2)
        sq = (cx[lo_j:hi_j, lo_i:hi_i] - sx) ** 2 + (cy[lo_j:hi_j, lo_i:hi_i] - sy) ** 2
        sub = sq <= (r + 0.5 * px) ** 2
        blocked[lo_j:hi_j, lo_i:hi_i] |= sub
        mark(np.array([[sx, sy]]))
    free = ~blocked
    dist = ndimage.distance_transform_edt(free) * px
    labels, count = ndimage.label(free)
    rooms = np.zeros(n_regions)
    if count == 0:
        return rooms
    idx = np.arange(1, count + 1)
    deepest = ndimage.maximum_position(dist, labels, idx)
    depth = ndimage.maximum(dist, labels, idx)
    pts = np.array([[cx[j, i], cy[j, i]] for j, i in deepest], dtype=float).reshape(-1, 2)
    owner = _point_regions(a, pts)
    # the distance to a blocked pixel's centre overstates the room by up to half a pixel
    for ri, d in zip(owner, np.asarray(depth, dtype=float), strict=True):
        rooms[ri] = max(rooms[ri], d - 0.5 * px)
    return rooms


@dataclass
class Quality:
    """The measures of one picture (lengths in world px, room also in units of d0)."""

    least_room: float
    length: float
    turning: float
    inflections: float
    label_distance: float

    def least_room_d0(self, d0: float) -> float:
        return self.least_room / d0


def label_distance(pic: Picture, analysis: Analysis) -> float:
    """The largest distance from a spot's centre to the centre of its number, as the renderer places it."""
    from ..render import PT_TO_PX, label_places

    if not len(pic.spots):
        return 0.0
    font_px = max(6.0, min(11.0, 1.6 * float(np.median(pic.sizes)))) * PT_TO_PX
    places = np.array(label_places(pic, analysis, font_px, np.asarray(pic.sizes, dtype=float)))
    return float(np.hypot(*(places - pic.spots).T).max())


def quality(pic: Picture, analysis: Analysis | None = None, labels: bool = True) -> Quality:
    a = analysis if analysis is not None else analyse_picture(pic)
    rooms = region_rooms(pic, a)
    return Quality(
        float(rooms.min()) if len(rooms) else math.inf,
        total_length(pic),
        total_turning(pic),
        inflections_per_curve(pic),
        label_distance(pic, a) if labels else 0.0,
    )


__all__ = [
    "Quality",
    "curve_inflections",
    "curve_length",
    "curve_turning",
    "inflections_per_curve",
    "label_distance",
    "quality",
    "region_rooms",
    "total_length",
    "total_turning",
]
