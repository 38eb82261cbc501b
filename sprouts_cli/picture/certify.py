"""Deciding touching and crossing by refined control polygons (Alfeld §2.2).

Every piece is cut (on a copy) until its Nairn–Peters–Lutterkort bound ``ε`` is
small and its legs are short.  Two legs of different curves at distance ``d`` are
certified apart when ``d > ε₁ + ε₂``: the curves lie within ``ε`` of their
polygons, so they cannot meet.  Where two curves leave the same spot they meet
by design; there each end piece is certified by its *hodograph cone*: a piece
starting at spot ``s`` lies in ``s`` plus the convex cone of its control-point
differences, so two pieces whose cones are disjoint meet only at ``s``.  Pieces
that fail are refined and tried again; what still fails is a crossing, a touch,
or a curve through a spot, and the picture is refused with a message naming it.

The leg test skips a piece against itself and against its neighbours on the same
curve (they share an end).  Those are certified by the same cone argument: if the
control-point differences of two neighbouring pieces lie in one open half-plane
with inner normal ``u``, then ``u · C(t)`` strictly increases along both, so they
cannot meet again (``_self_cone_failures``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import PictureError
from ..jit import kernel
from .geometry import leg_pair_check, segments_cross, spot_leg_check, spot_spot_clearance
from .model import MIN_CLEARANCE, Picture
from .spline import de_casteljau_split, npl_bound

TOLERANCE = 0.1  # px: NPL bound aimed at by the first refinement
ROUNDS = 10


@dataclass
class Certificate:
    """The refined pieces of each curve, the directions it leaves its ends, and the least clearance."""

    sub: list[list[np.ndarray]]
    start_dir: np.ndarray  # (curves, 2): direction the curve leaves spot a
    end_dir: np.ndarray  # (curves, 2): direction the curve leaves spot b
    min_clearance: float
    #: each curve's polygon once made (``polygon``): a picture's analysis asks for every curve's
    #: twice (once a side), and each plan of a move in it (``route_plan.obstacles_of``) again
    _polygons: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def polygon(self, curve: int) -> np.ndarray:
        """The refined control polygon of a curve, from its spot a to its spot b (a new array)."""
        got = self._polygons.get(curve)
        if got is None:
            got = self._polygons[curve] = polygon_of(self.sub[curve])
        return got.copy()


def polygon_of(subs: list[np.ndarray]) -> np.ndarray:
    """The control polygon of refined pieces: the first point, then each piece's last three."""
    return np.concatenate([subs[0][:1], *(p[1:] for p in subs)]).astype(float, copy=False)


def polygon_of_reference(subs: list[np.ndarray]) -> np.ndarray:
    """``polygon_of`` point by point."""
    pts = [subs[0][0]]
    for p in subs:
        pts.extend(p[1:])
    return np.array(pts)


def describe_curve(pic: Picture, e: int) -> str:
    c = pic.curves[e]
    return f"curve {e + 1} (spots {c.a + 1}–{c.b + 1})"


def certify(
    pic: Picture,
    tol: float = TOLERANCE,
    max_leg: float | None = None,
    known: tuple[Picture, Certificate] | None = None,
) -> Certificate:
    """Certify that no two curves touch or cross and no curve passes through a spot.

    Raises :class:`PictureError` naming the curves or spot otherwise.  Returns the
    least clearance: between spot discs, between a spot's disc and a curve not at
    it, and between curves (away from the spots they share).

    ``known`` is an earlier picture and its certificate (a move is drawn into a
    picture that was certified): a curve that is the same there starts from its
    refined pieces instead of being refined afresh.  They are exact pieces of the
    same curve, so every pair is still checked as from scratch; only the work of
    cutting them again is saved.
    """
    n_spots = len(pic.spots)
    if max_leg is None:
        max_leg = max(4.0, 0.02 * max(pic.width, pic.height))
    sub = [_refined(pic, e, tol, max_leg, known) for e in range(len(pic.curves))]
    sizes = np.asarray(pic.sizes, dtype=float)
    spots = np.ascontiguousarray(pic.spots, dtype=float)
    ss, si, sj = spot_spot_clearance(spots, sizes)
    if n_spots >= 2 and math.hypot(*(spots[si] - spots[sj])) <= 0.0:
        raise PictureError(f"spots {si + 1} and {sj + 1} are at the same place")
    curve_a = np.array([c.a for c in pic.curves], dtype=np.int64)
    curve_b = np.array([c.b for c in pic.curves], dtype=np.int64)
    near = sizes * 2.0 + MIN_CLEARANCE
    for _ in range(ROUNDS):
        _refine_cones(pic, sub)
        arrays = _leg_arrays(pic, sub)
        legs, eps, leg_piece, piece_curve, piece_seq, spot0, spot1, piece_index = arrays
        arc = _leg_arc(legs, leg_piece, piece_curve)
        best, fails, nf, _ = leg_pair_check(
            legs, eps, leg_piece, piece_curve, piece_seq, spot0, spot1, curve_a, curve_b, spots, near, arc, 64
        )
        best_s, fails_s, nfs = spot_leg_check(
            legs, eps, leg_piece, piece_curve, curve_a, curve_b, spots, sizes, 64
        )
        winding = _self_cone_failures(sub)
        if nf == 0 and nfs == 0 and not winding:
            start_dir, end_dir = _end_directions(sub)
            return Certificate(sub, start_dir, end_dir, float(min(best, best_s, ss)))
        to_split: set[tuple[int, int]] = set(winding)
        for k in range(min(nf, 64)):
            for leg in fails[k]:
                to_split.add(piece_index[leg_piece[leg]])
        for k in range(min(nfs, 64)):
            to_split.add(piece_index[leg_piece[fails_s[k, 1]]])
        if not _split(sub, to_split):
            break
    if nf == 0 and nfs == 0:
        e = winding[0][0]
        x, y = sub[e][winding[0][1]][0]
        err = PictureError(f"{describe_curve(pic, e)} touches or crosses itself near ({x:.1f}, {y:.1f})")
        err.curves = (e,)
        raise err
    _raise_failure(pic, sub, legs, leg_piece, piece_curve, fails, nf, fails_s, nfs)
    raise AssertionError("unreachable")  # pragma: no cover


def _refined(
    pic: Picture, e: int, tol: float, max_leg: float, known: tuple[Picture, Certificate] | None
) -> list[np.ndarray]:
    """The refined pieces of curve ``e``: from ``known`` when the curve is the same there, else afresh."""
    c = pic.curves[e]
    if known is not None and e < len(known[0].curves):
        old = known[0].curves[e]
        if old.a == c.a and old.b == c.b and np.array_equal(old.pieces, c.pieces):
            return list(known[1].sub[e])
    return list(refine_pieces(np.ascontiguousarray(c.pieces, dtype=float), tol, max_leg, REFINE_DEPTH))


#: How often a piece may be halved at most (``spline.refine_piece``'s depth).
REFINE_DEPTH = 12


@kernel
def refine_pieces(pieces: np.ndarray, tol: float, max_leg: float, depth: int) -> np.ndarray:
    """Every piece halved as ``spline.refine_piece`` halves it (its NPL bound ``≤ tol`` and no leg
    over ``max_leg``, at most ``depth`` times), all the sub-pieces in order along the curve:
    the same numbers as that plain reference, at once for the whole curve."""
    cap = max(16, 2 * pieces.shape[0])
    out = np.empty((cap, 4, 2))
    n = 0
    stack = np.empty((depth + 2, 4, 2))
    level = np.empty(depth + 2, dtype=np.int64)
    for k in range(pieces.shape[0]):
        stack[0] = pieces[k]
        level[0] = 0
        top = 1
        while top > 0:
            top -= 1
            p = stack[top].copy()
            d = level[top]
            legs = 0.0
            for i in range(3):
                legs = max(legs, math.hypot(p[i + 1, 0] - p[i, 0], p[i + 1, 1] - p[i, 1]))
            h1 = math.hypot(p[0, 0] - 2 * p[1, 0] + p[2, 0], p[0, 1] - 2 * p[1, 1] + p[2, 1])
            h2 = math.hypot(p[1, 0] - 2 * p[2, 0] + p[3, 0], p[1, 1] - 2 * p[2, 1] + p[3, 1])
            if d < depth and (max(h1, h2) / 3.0 > tol or legs > max_leg):
                # de Casteljau at ½; the second half goes on the stack first, so the first comes out first
                for j in range(2):
                    c01 = p[0, j] + 0.5 * (p[1, j] - p[0, j])
                    c12 = p[1, j] + 0.5 * (p[2, j] - p[1, j])
                    c23 = p[2, j] + 0.5 * (p[3, j] - p[2, j])
                    d0 = c01 + 0.5 * (c12 - c01)
                    d1 = c12 + 0.5 * (c23 - c12)
                    e = d0 + 0.5 * (d1 - d0)
                    stack[top + 1, 0, j] = p[0, j]
                    stack[top + 1, 1, j] = c01
                    stack[top + 1, 2, j] = d0
                    stack[top + 1, 3, j] = e
                    stack[top, 0, j] = e
                    stack[top, 1, j] = d1
                    stack[top, 2, j] = c23
                    stack[top, 3, j] = p[3, j]
                level[top] = d + 1
                level[top + 1] = d + 1
                top += 2
            else:
                if n == out.shape[0]:
                    grown = np.empty((2 * n, 4, 2))
                    grown[:n] = out
                    out = grown
                out[n] = p
                n += 1
    return out[:n].copy()


def pointed(diffs: np.ndarray) -> np.ndarray:
    """For each row of difference vectors (``(m, k, 2)``), True when they lie in an open half-plane.

    Angles are taken relative to the row's first non-zero vector, which lies in the cone
    when the cone is pointed; the spread of the angles is then the cone's width.  If the
    vectors fit in a spread under π they lie in a half-plane whatever the base, so a row
    that passes is always pointed.  Zero vectors are left out; a row of zeros fails.
    """
    lens = np.hypot(diffs[..., 0], diffs[..., 1])
    live = lens > 1e-12
    first = np.argmax(live, axis=1)
    base = diffs[np.arange(len(diffs)), first]
    angle = np.arctan2(diffs[..., 1], diffs[..., 0]) - np.arctan2(base[:, 1], base[:, 0])[:, None]
    rel = (angle + math.pi) % (2 * math.pi) - math.pi
    hi = np.where(live, rel, -np.inf).max(axis=1)
    lo = np.where(live, rel, np.inf).min(axis=1)
    return live.any(axis=1) & (hi - lo < math.pi * 0.999)


def _self_cone_failures(sub: list[list[np.ndarray]]) -> list[tuple[int, int]]:
    """Pieces (curve, index) whose own cone, or joint cone with the next piece, is not pointed.

    A piece and its neighbour are skipped by the leg test; a pointed joint cone shows
    that together they are monotone in one direction, so neither folds back onto itself
    or onto the other.
    """
    out: list[tuple[int, int]] = []
    for e, subs in enumerate(sub):
        diffs = np.diff(np.asarray(subs, dtype=float), axis=1)  # (pieces, 3, 2)
        if len(subs) == 1:
            if not pointed(diffs)[0]:
                out.append((e, 0))
            continue
        joint = np.concatenate([diffs[:-1], diffs[1:]], axis=1)  # (pieces - 1, 6, 2)
        for k in np.nonzero(~pointed(joint))[0]:
            out.extend(((e, int(k)), (e, int(k) + 1)))
    return out


def _leg_arrays(pic: Picture, sub: list[list[np.ndarray]]):
    """Every leg of every refined piece, with its NPL bound and what it belongs to (vectorised).

    The same arrays as :func:`_leg_arrays_reference`, which builds them one piece at a time.
    """
    counts = np.array([len(subs) for subs in sub], dtype=np.int64)
    if not counts.sum():
        return _leg_arrays_reference(pic, sub)
    pieces = np.concatenate([np.asarray(subs, dtype=float).reshape(-1, 4, 2) for subs in sub])
    bound = np.maximum(
        np.hypot(*(pieces[:, 0] - 2 * pieces[:, 1] + pieces[:, 2]).T),
        np.hypot(*(pieces[:, 1] - 2 * pieces[:, 2] + pieces[:, 3]).T),
    ) / 3.0
    legs = np.concatenate([pieces[:, :-1], pieces[:, 1:]], axis=2).reshape(-1, 4)
    n = len(pieces)
    piece_curve = np.repeat(np.arange(len(sub), dtype=np.int64), counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    piece_seq = np.arange(n, dtype=np.int64) - np.repeat(starts, counts)
    last = np.repeat(counts - 1, counts)
    ca = np.array([c.a for c in pic.curves], dtype=np.int64)[piece_curve]
    cb = np.array([c.b for c in pic.curves], dtype=np.int64)[piece_curve]
    spot0 = np.where(piece_seq == 0, ca, np.where(piece_seq == last, cb, -1))
    spot1 = np.where(piece_seq == last, cb, -1)
    piece_index = list(zip(piece_curve.tolist(), piece_seq.tolist(), strict=True))
    return (
        np.ascontiguousarray(legs),
        np.repeat(bound, 3),
        np.repeat(np.arange(n, dtype=np.int64), 3),
        piece_curve,
        piece_seq,
        spot0.astype(np.int64),
        spot1.astype(np.int64),
        piece_index,
    )


def _leg_arrays_reference(pic: Picture, sub: list[list[np.ndarray]]):
    legs, eps, leg_piece = [], [], []
    piece_curve, piece_seq, spot0, spot1, piece_index = [], [], [], [], []
    pid = 0
    for e, subs in enumerate(sub):
        c = pic.curves[e]
        last = len(subs) - 1
        for k, p in enumerate(subs):
            bound = npl_bound(p)
            for m in range(3):
                legs.append((p[m, 0], p[m, 1], p[m + 1, 0], p[m + 1, 1]))
                eps.append(bound)
                leg_piece.append(pid)
            piece_curve.append(e)
            piece_seq.append(k)
            spot0.append(c.a if k == 0 else (c.b if k == last else -1))
            spot1.append(c.b if k == last else -1)
            piece_index.append((e, k))
            pid += 1
    return (
        np.array(legs, dtype=float).reshape(-1, 4),
        np.array(eps, dtype=float),
        np.array(leg_piece, dtype=np.int64),
        np.array(piece_curve, dtype=np.int64),
        np.array(piece_seq, dtype=np.int64),
        np.array(spot0, dtype=np.int64),
        np.array(spot1, dtype=np.int64),
        piece_index,
    )


def _leg_arc(legs: np.ndarray, leg_piece: np.ndarray, piece_curve: np.ndarray) -> np.ndarray:
    """Arc length along its curve's polygon at the start of every leg."""
    lengths = np.hypot(legs[:, 2] - legs[:, 0], legs[:, 3] - legs[:, 1])
    curve = piece_curve[leg_piece]
    arc = np.cumsum(lengths) - lengths
    if len(arc):
        starts = np.r_[0, np.nonzero(np.diff(curve))[0] + 1]
        offset = np.repeat(arc[starts], np.diff(np.r_[starts, len(arc)]))
        arc = arc - offset
    return arc


def _split(sub: list[list[np.ndarray]], which: set[tuple[int, int]]) -> bool:
    """Halve the named sub-pieces; False when they are already too small to halve."""
    changed = False
    by_curve: dict[int, set[int]] = {}
    for e, k in which:
        by_curve.setdefault(e, set()).add(k)
    for e, ks in by_curve.items():
        new: list[np.ndarray] = []
        for k, p in enumerate(sub[e]):
            if k in ks and np.ptp(p, axis=0).max() > 1e-7:
                a, b = de_casteljau_split(p)
                new.extend((a, b))
                changed = True
            else:
                new.append(p)
        sub[e] = new
    return changed


def hodograph_cone(piece: np.ndarray, at_start: bool) -> tuple[float, float] | None:
    """Angular interval (start angle, width) holding every direction of the piece from its end.

    The piece minus its end point is a positive combination of the control-point
    differences, so it lies in their convex cone.  None when the cone is not
    pointed (width ≥ π) or the piece is degenerate.
    """
    p = piece if at_start else piece[::-1]
    d = np.diff(p, axis=0)
    lens = np.hypot(d[:, 0], d[:, 1])
    d = d[lens > 1e-12]
    if not len(d):
        return None
    base = math.atan2(d[0, 1], d[0, 0])
    rel = [(math.atan2(v[1], v[0]) - base + math.pi) % (2 * math.pi) - math.pi for v in d]
    lo, hi = min(rel), max(rel)
    if hi - lo >= math.pi * 0.999:
        return None
    return base + lo, hi - lo


def _cones_disjoint(c1: tuple[float, float], c2: tuple[float, float]) -> bool:
    start = (c2[0] - c1[0]) % (2 * math.pi)
    # c2 starts after c1 ends and ends before c1 starts again (going round the circle)
    return start > c1[1] + 1e-12 and start + c2[1] < 2 * math.pi - 1e-12


def _refine_cones(pic: Picture, sub: list[list[np.ndarray]]) -> None:
    """Refine end pieces at each spot until the cones of different curves are disjoint."""
    ends: dict[int, list[tuple[int, bool]]] = {}
    for e, c in enumerate(pic.curves):
        ends.setdefault(c.a, []).append((e, True))
        ends.setdefault(c.b, []).append((e, False))
    for s, lst in ends.items():
        if len(lst) < 2:
            continue
        for _ in range(30):
            cones = []
            bad: set[tuple[int, bool]] = set()
            for e, at_start in lst:
                piece = sub[e][0] if at_start else sub[e][-1]
                cone = hodograph_cone(piece, at_start)
                if cone is None:
                    bad.add((e, at_start))
                cones.append(cone)
            for i in range(len(lst)):
                for j in range(i + 1, len(lst)):
                    cone_i, cone_j = cones[i], cones[j]
                    if cone_i is None or cone_j is None:
                        continue
                    if not _cones_disjoint(cone_i, cone_j):
                        bad.add(lst[i])
                        bad.add(lst[j])
            if not bad:
                break
            small = True
            for e, at_start in bad:
                k = 0 if at_start else len(sub[e]) - 1
                p = sub[e][k]
                if np.ptp(p, axis=0).max() > 1e-6:
                    a, b = de_casteljau_split(p)
                    sub[e][k : k + 1] = [a, b]
                    small = False
            if small:
                e1, e2 = sorted(bad)[:2] if len(bad) > 1 else (sorted(bad)[0], sorted(bad)[0])
                err = PictureError(
                    f"{describe_curve(pic, e1[0])} and {describe_curve(pic, e2[0])} "
                    f"leave spot {s + 1} in the same direction (they touch there)"
                )
                err.curves = (e1[0], e2[0])
                raise err


def _end_directions(sub: list[list[np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    start = np.zeros((len(sub), 2))
    end = np.zeros((len(sub), 2))
    for e, subs in enumerate(sub):
        start[e] = _first_leg(subs[0])
        end[e] = _first_leg(subs[-1][::-1])
    return start, end


def _first_leg(p: np.ndarray) -> np.ndarray:
    for m in range(1, 4):
        d = p[m] - p[0]
        if math.hypot(*d) > 1e-12:
            return d
    return np.array([1.0, 0.0])


def _raise_failure(pic, sub, legs, leg_piece, piece_curve, fails, nf, fails_s, nfs) -> None:
    if nfs:
        s, leg = fails_s[0]
        e = int(piece_curve[leg_piece[leg]])
        err = PictureError(f"{describe_curve(pic, e)} passes through spot {int(s) + 1}")
        err.curves = (e,)
        raise err
    i, j = fails[0]
    e1, e2 = int(piece_curve[leg_piece[i]]), int(piece_curve[leg_piece[j]])
    x = 0.25 * (legs[i, 0] + legs[i, 2] + legs[j, 0] + legs[j, 2])
    y = 0.25 * (legs[i, 1] + legs[i, 3] + legs[j, 1] + legs[j, 3])
    crossing = segments_cross(*legs[i], *legs[j])
    what = "cross" if crossing else "touch"
    if e1 == e2:
        err = PictureError(f"{describe_curve(pic, e1)} {what}es itself near ({x:.1f}, {y:.1f})")
        err.curves = (e1,)
        raise err
    err = PictureError(
        f"{describe_curve(pic, e1)} and {describe_curve(pic, e2)} {what} near ({x:.1f}, {y:.1f})"
    )
    err.curves = (e1, e2)
    raise err
