"""The picture: spots in the plane and curves between them (Alfeld §2.1).

A :class:`Picture` is one drawing of a position.  Spots are points with a drawn
radius; curves are C² cubic splines in Bézier form (``spline.py``), each from spot
``a`` to spot ``b``.  The position is never stored here: it is read off the
picture from scratch by ``analyse.analyse`` (Alfeld §1.2, §2.3).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from ..unionfind import UnionFind

#: Defaults of the browser program's Settings (Alfeld §3): minimum clearance d0
#: and comfort distance D, in world pixels; and the drawn radius of a spot.
MIN_CLEARANCE = 6.0
COMFORT = 40.0
SPOT_RADIUS = 5.0
#: The smallest radius a spot is ever drawn at where there is no room for its full size
#: (Alfeld §4.6: never below the smallest size of the Settings' slider; ``sizes.py``).
SMALLEST_SPOT = 1.5


@dataclass
class Curve:
    """One curve from spot ``a`` to spot ``b``: cubic pieces ``(k, 4, 2)`` and their parameter lengths."""

    a: int
    b: int
    pieces: np.ndarray
    h: np.ndarray
    player: int | None = None

    def __post_init__(self) -> None:
        self.pieces = np.asarray(self.pieces, dtype=float).reshape(-1, 4, 2)
        h = np.asarray(self.h, dtype=float).reshape(-1)
        if len(h) != len(self.pieces):
            h = np.hypot(*(self.pieces[:, 3] - self.pieces[:, 0]).T)
        self.h = h

    def reversed(self) -> Curve:
        return Curve(self.b, self.a, self.pieces[::-1, ::-1].copy(), self.h[::-1].copy(), self.player)


@dataclass
class Picture:
    """Spots, their radii and the curves between them, in a drawing area ``width × height``.

    ``meta`` carries what a saved game holds besides the drawing (whose turn, the
    rules, the browser program's settings and history, the topological moves), so
    that loading and saving a game keeps it.
    """

    width: float
    height: float
    spots: np.ndarray
    curves: list[Curve]
    #: The spots' radii, one per spot; left out, every spot gets ``SPOT_RADIUS``.
    sizes: np.ndarray = field(default_factory=lambda: np.empty(0))
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.spots = np.asarray(self.spots, dtype=float).reshape(-1, 2)
        if len(self.sizes) == 0:
            self.sizes = np.full(len(self.spots), SPOT_RADIUS)
        self.sizes = np.asarray(self.sizes, dtype=float).reshape(-1)

    # ---------------------------------------------------------------- counts
    @property
    def points(self) -> int:
        """Number of spots (points)."""
        return len(self.spots)

    @property
    def lines(self) -> int:
        """Number of curves (lines)."""
        return len(self.curves)

    def degrees(self) -> np.ndarray:
        """Curves at each spot (a curve from a spot to itself counts twice)."""
        deg = np.zeros(len(self.spots), dtype=int)
        for c in self.curves:
            deg[c.a] += 1
            deg[c.b] += 1
        return deg

    def lives(self) -> tuple[int, ...]:
        return tuple(int(3 - d) for d in self.degrees())

    @property
    def parts(self) -> int:
        """Connected parts of the drawing (a spot with no curve is a part of its own)."""
        sets = UnionFind(len(self.spots))
        for c in self.curves:
            sets.union(c.a, c.b)
        return sets.count()

    def copy(self) -> Picture:
        return Picture(
            self.width,
            self.height,
            self.spots.copy(),
            [Curve(c.a, c.b, c.pieces.copy(), c.h.copy(), c.player) for c in self.curves],
            self.sizes.copy(),
            copy.deepcopy(self.meta),
        )

    def bounds_ok(self, margin: float = 0.0) -> bool:
        """True when every spot and every control point lies inside the drawing area.

        A Bézier piece lies in the convex hull of its control points, so this
        certifies that the curves themselves stay inside.
        """
        pts = [self.spots] + [c.pieces.reshape(-1, 2) for c in self.curves]
        allp = np.concatenate(pts) if pts else np.zeros((0, 2))
        if not len(allp):
            return True
        return bool(
            (allp[:, 0] >= margin).all()
            and (allp[:, 0] <= self.width - margin).all()
            and (allp[:, 1] >= margin).all()
            and (allp[:, 1] <= self.height - margin).all()
        )
