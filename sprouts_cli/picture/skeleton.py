"""The skeleton of a picture for A, R and Z's polish (``relax.py``), and its way back to splines.

Every curve becomes a polyline through its end spots and points about ``D/2``
apart (``skeleton_from_picture``, ``respace``); the ``Skeleton`` holds them as one
array of points with their chains, which the descent moves.  Afterwards each chain
of curves (a move's two curves through their spot form one) becomes the clamped C²
spline through its points, certified; where a spline fails, the spline through the
middles of the legs, and at last the polyline itself (``smooth_and_certify``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import GivenUp, PictureError
from .analyse import Analysis, analyse_picture
from .model import COMFORT, Curve, Picture
from .relax_kernels import energy_gradient, energy_gradient_near, polylines_cross, pred_caps, pred_caps_near
from .spline import interpolate_clamped, interpolate_closed, straight_pieces
from .work import charge

REACH = 120.0  # px: how far the step caps look (so no step is longer than REACH / 3)
HOPS = 4  # a point does not feel its own chain within this many steps along it
#: A chain of curves is smoothed as one spline through a two-curve spot only where it turns less
#: than this there (radians); at a sharper corner each side gets its own spline.
CORNER_ANGLE = math.radians(50.0)

#: How far (px) a point that moves may go from where it was when its ``Near`` was made before
#: the descent makes it again: the neighbourhood reaches this much farther than the terms do.
NEAR_MARGIN = 16.0

#: An inner point of a curve's polyline is left out when it is nearer one of the curve's end spots
#: than the spot's radius and this (px, half the least clearance ``d0``): the legs next to a spot
#: then keep clear of its disc, and the step caps let it move (``_clear_of_ends``).
END_MARGIN = 3.0

#: A test asked between steps of long work; True means give the work up.
Stop = Callable[[], bool]


def check_stop(stop: Stop | None) -> None:
    """PictureError when ``stop`` says the work is to be given up."""
    if stop is not None and stop():
        raise GivenUp("given up: it ran far longer than the other layouts")


@dataclass
class Params:
    """Weights of the energy (Alfeld §4.5), in world pixels."""

    D: float = COMFORT
    cutoff: float = 2.5 * COMFORT
    lam: float = 0.5 * COMFORT
    w_len: float = 1.0
    w_bend: float = COMFORT * COMFORT
    w_spread: float = COMFORT
    w_area: float = COMFORT
    spacing: float = 0.6 * COMFORT

    def array(self) -> np.ndarray:
        return np.array(
            [self.D, self.cutoff, self.lam, self.w_len, self.w_bend, self.w_spread, self.w_area], dtype=float
        )


@dataclass
class Skeleton:
    """The picture as polylines: points ``P`` (spots first), each curve's point indices from a to b."""

    P: np.ndarray
    n_spots: int
    sizes: np.ndarray
    curve_pts: list[np.ndarray]
    curve_ab: list[tuple[int, int]]
    width: float
    height: float
    region_walks: list[list[tuple[int, ...]]]  # per region: its walks as half-edge cycles (or empty)
    region_lives: list[int]
    #: two-curve spots where the picture has a corner (an older spot joined by two moves): no bend is
    #: charged through them and the smooth curves are cut there (A keeps such a spot's corner)
    corners: frozenset[int] = frozenset()
    #: the curves whose points may move (None: every curve and spot); the others stay as drawn,
    #: and so does a spot with a curve that stays (``still``)
    moving: frozenset[int] | None = None
    segs: np.ndarray = field(init=False)
    pt_chain: np.ndarray = field(init=False)
    pt_pos: np.ndarray = field(init=False)
    seg_chain: np.ndarray = field(init=False)
    seg_pos: np.ndarray = field(init=False)
    chain_len: np.ndarray = field(init=False)
    bend: np.ndarray = field(init=False)
    spread: np.ndarray = field(init=False)
    walk_idx: np.ndarray = field(init=False)
    walk_off: np.ndarray = field(init=False)
    walk_region: np.ndarray = field(init=False)
    region_w: np.ndarray = field(init=False)
    region_base: np.ndarray = field(init=False)
    interior_prev: np.ndarray = field(init=False)
    interior_next: np.ndarray = field(init=False)
    steps: int = field(default=0, init=False)  # the iterations the last ``relax`` took
    work: int = field(default=0, init=False)  # the point-steps the last descent took (``relax.WORK``)

    def __post_init__(self) -> None:
        self.derive()

    def derive(self) -> None:
        """Index arrays for the kernels: segments, exclusions, bends, spreads, region walks."""
        n = len(self.P)
        prev = -np.ones(n, dtype=np.int64)
        nxt = -np.ones(n, dtype=np.int64)
        curves = [np.asarray(pts, dtype=np.int64) for pts in self.curve_pts]
        segs_parts = [np.stack([pts[:-1], pts[1:]], axis=1) for pts in curves]
        bend_parts = [np.stack([pts[:-2], pts[1:-1], pts[2:]], axis=1) for pts in curves]
        for pts in curves:
            prev[pts[1:-1]] = pts[:-2]
            nxt[pts[1:-1]] = pts[2:]
        bend = [tuple(row) for row in np.concatenate(bend_parts).tolist()] if bend_parts else []
        # neighbours of each spot: the point next to it along each curve
        around: dict[int, list[int]] = {}
        for pts in self.curve_pts:
            around.setdefault(int(pts[0]), []).append(int(pts[1]))
            around.setdefault(int(pts[-1]), []).append(int(pts[-2]))
        spread = []
        for s, nb in around.items():
            if len(nb) == 2 and nb[0] != nb[1] and s not in self.corners:
                bend.append((nb[0], s, nb[1]))
            if len(nb) == 3:
                ang = [math.atan2(*(self.P[q] - self.P[s])[::-1]) for q in nb]
                order = [nb[k] for k in np.argsort(ang)]
                for k in range(3):
                    spread.append((s, order[k], order[(k + 1) % 3]))
        self.segs = np.concatenate(segs_parts) if segs_parts else np.zeros((0, 2), dtype=np.int64)
        self._chain_positions()
        self.bend = np.array(bend, dtype=np.int64).reshape(-1, 3)
        self.spread = np.array(spread, dtype=np.int64).reshape(-1, 3)
        self.interior_prev, self.interior_next = prev, nxt
        idx: list[np.ndarray] = []
        off: list[int] = [0]
        reg: list[int] = []
        weights = np.zeros(len(self.region_walks))
        for ri, walks in enumerate(self.region_walks):
            if self.region_lives[ri] < 2:
                continue
            weights[ri] = self.region_lives[ri]
            for cyc in walks:
                for h in cyc:
                    pts = curves[h >> 1]
                    seq = pts if h % 2 == 0 else pts[::-1]
                    idx.append(seq[:-1])
                off.append(off[-1] + sum(len(pts) - 1 for pts in (curves[h >> 1] for h in cyc)))
                reg.append(ri)
        self.walk_idx = np.concatenate(idx).astype(np.int64) if idx else np.zeros(0, dtype=np.int64)
        self.walk_off = np.array(off, dtype=np.int64)
        self.walk_region = np.array(reg, dtype=np.int64)
        self.region_w = weights
        # the outside region (region 0) holds the window less everything drawn in it
        self.region_base = np.zeros(len(self.region_walks))
        if len(self.region_base):
            self.region_base[0] = self.width * self.height

    def _chain_positions(self) -> None:
        """Where each point and segment lies along its chain (a move's curves through their spot are one).

        A segment's place is that of its curve's place in the chain; where two segments join the
        same two points (their places could be taken either way round), each is given the first
        one not yet placed, as ``chain_positions_reference`` does (``_chain_positions_by_ends``).
        """
        segs = self.segs
        n = len(self.P)
        if len(segs):
            lo = np.minimum(segs[:, 0], segs[:, 1])
            hi = np.maximum(segs[:, 0], segs[:, 1])
            if len(np.unique(lo * max(n, 1) + hi)) < len(segs):
                self._chain_positions_by_ends()
                return
        seg_off = np.zeros(len(self.curve_pts) + 1, dtype=np.int64)
        seg_off[1:] = np.cumsum([len(pts) - 1 for pts in self.curve_pts])
        pt_chain = -np.ones((n, 3), dtype=np.int64)
        pt_pos = np.zeros((n, 3), dtype=np.int64)
        fill = np.zeros(self.n_spots, dtype=np.int64)
        seg_chain = -np.ones(len(segs), dtype=np.int64)
        seg_pos = np.zeros(len(segs), dtype=np.int64)
        lens = []
        ns = self.n_spots
        for ci, (chain, closed) in enumerate(chains(self, self.corners)):
            at = 0
            for j, (e, fwd) in enumerate(chain):
                pts = np.asarray(self.curve_pts[e], dtype=np.int64)
                m = len(pts) - 1
                ks = np.arange(seg_off[e], seg_off[e + 1])
                seg_chain[ks] = ci
                seg_pos[ks] = at + (np.arange(m) if fwd else m - 1 - np.arange(m))
                inner = pts[1:-1] if fwd else pts[-2:0:-1]
                pt_chain[inner, 0] = ci
                pt_pos[inner, 0] = at + 1 + np.arange(m - 1)
                first, last = (int(pts[0]), int(pts[-1])) if fwd else (int(pts[-1]), int(pts[0]))
                for v, pos in ((first, at), (last, at + m)):
                    if closed and pos == at + m and j == len(chain) - 1:
                        continue  # the closing spot is the chain's first point
                    if v < ns and fill[v] < 3 and not (pt_chain[v, : fill[v]] == ci).any():
                        pt_chain[v, fill[v]] = ci
                        pt_pos[v, fill[v]] = pos
                        fill[v] += 1
                at += m
            lens.append(at if closed else 0)
        self.pt_chain, self.pt_pos = pt_chain, pt_pos
        self.seg_chain, self.seg_pos = seg_chain, seg_pos
        self.chain_len = np.array(lens, dtype=np.int64)

    def _chain_positions_by_ends(self) -> None:
        """``_chain_positions`` finding each segment of a chain by its two points."""
        n = len(self.P)
        pt_chain = -np.ones((n, 3), dtype=np.int64)
        pt_pos = np.zeros((n, 3), dtype=np.int64)
        seg_index: dict[tuple[int, int], list[int]] = {}
        for k, (a, b) in enumerate(self.segs.tolist()):
            seg_index.setdefault((a, b), []).append(k)
        # each point's chains so far (at most three, in the order met), as plain lists
        met: list[list[int]] = [[] for _ in range(n)]
        seg_chain = -np.ones(len(self.segs), dtype=np.int64)
        seg_pos = np.zeros(len(self.segs), dtype=np.int64)
        lens = []
        used_segs: set[int] = set()
        # a corner parts the chain: the curves on either side feel each other near it, as at a
        # three-curve spot, since no bend is charged there to keep them apart
        for ci, (chain, closed) in enumerate(chains(self, self.corners)):
            idx: list[int] = []
            for e, fwd in chain:
                pts = self.curve_pts[e] if fwd else self.curve_pts[e][::-1]
                idx.extend(np.asarray(pts if not idx else pts[1:]).tolist())
            if closed:
                idx = idx[:-1]
            lens.append(len(idx) if closed else 0)
            for pos, v in enumerate(idx):
                seen = met[v]
                if len(seen) < 3 and ci not in seen:
                    pt_chain[v, len(seen)] = ci
                    pt_pos[v, len(seen)] = pos
                    seen.append(ci)
            m = len(idx)
            for pos in range(m if closed else m - 1):
                a, b = idx[pos], idx[(pos + 1) % m]
                for key in ((a, b), (b, a)):
                    for k in seg_index.get(key, []):
                        if k not in used_segs:
                            used_segs.add(k)
                            seg_chain[k] = ci
                            seg_pos[k] = pos
                            break
                    else:
                        continue
                    break
        self.pt_chain, self.pt_pos = pt_chain, pt_pos
        self.seg_chain, self.seg_pos = seg_chain, seg_pos
        self.chain_len = np.array(lens, dtype=np.int64)

    def still(self) -> np.ndarray | None:
        """Which points stay where they are (None: none do): the points of the curves not in
        ``moving``, and every spot but those whose curves all move (a lone spot stays)."""
        if self.moving is None:
            return None
        out = np.zeros(len(self.P), dtype=bool)
        on_moving = np.zeros(self.n_spots, dtype=bool)
        for e, pts in enumerate(self.curve_pts):
            if e in self.moving:
                on_moving[list(self.curve_ab[e])] = True
            else:
                out[pts] = True  # its end spots too
        out[: self.n_spots] |= ~on_moving
        return out

    def energy(self, P: np.ndarray, params: np.ndarray, charged: bool = True) -> tuple[float, np.ndarray]:
        """The energy and its gradient (``relax_kernels.energy_gradient``), charged as one
        evaluation of the whole skeleton unless ``charged`` is False."""
        if charged:
            charge(len(P))
        return energy_gradient(
            P, self.n_spots, self.sizes, self.segs, self.pt_chain, self.pt_pos, self.seg_chain, self.seg_pos,
            self.chain_len, HOPS, self.bend, self.spread,
            self.walk_idx, self.walk_off, self.walk_region, self.region_w, self.region_base,
            self.width, self.height, params,
        )  # fmt: skip

    def caps(self, P: np.ndarray) -> np.ndarray:
        return pred_caps(P, self.n_spots, self.sizes, self.segs, self.width, self.height, REACH)

    def crosses(self, P: np.ndarray | None = None) -> bool:
        return bool(polylines_cross(self.P if P is None else P, self.segs))

    def near(self, P: np.ndarray, cutoff: float) -> Near | None:
        """What lies near the points that move at ``P`` (None when every point moves): the terms
        of the energy and caps that hold a moving point, for ``energy_near`` and ``caps_near``.

        Kept: every point within ``max(cutoff, REACH)`` (from a spot's disc) of a segment with a
        moving end, and every segment within that of a moving point, with ``NEAR_MARGIN`` to
        spare, so that the terms stay all there until a moving point has gone ``NEAR_MARGIN``
        from ``P`` (``Near.stale``).  A point lies no nearer a segment than its distance to the
        nearer end less half the segment's length: that is the test, over k-d trees.
        """
        still = self.still()
        if still is None:
            return None
        from scipy.spatial import cKDTree

        moves = ~still
        movers = np.nonzero(moves)[0]
        a, b = self.segs[:, 0], self.segs[:, 1]
        moving_seg = moves[a] | moves[b]
        if not len(movers) or not moving_seg.any():
            pts = movers
            seg_keep = moving_seg
        else:
            maxrad = float(self.sizes.max()) if self.n_spots else 0.0
            reach = max(cutoff, REACH) + maxrad + NEAR_MARGIN
            half = 0.5 * np.hypot(*(P[b] - P[a]).T)
            near_mover = cKDTree(P[movers])
            da = near_mover.query(P[a])[0]
            db = near_mover.query(P[b])[0]
            seg_keep = moving_seg | (np.minimum(da, db) - half < reach)
            ends = np.unique(self.segs[moving_seg].ravel())
            dp = cKDTree(P[ends]).query(P)[0]
            pts = np.nonzero(moves | (dp - float(half[moving_seg].max()) < reach))[0]
        keep = np.nonzero(seg_keep)[0]
        bend = self.bend[moves[self.bend].any(axis=1)] if len(self.bend) else self.bend
        spread = self.spread[moves[self.spread].any(axis=1)] if len(self.spread) else self.spread
        region_w = self.region_w.copy()
        walks = []
        for w in range(len(self.walk_off) - 1):
            idx = self.walk_idx[self.walk_off[w] : self.walk_off[w + 1]]
            walks.append(bool(moves[idx].any()))
        touched = {int(self.walk_region[w]) for w, t in enumerate(walks) if t}
        for r in range(len(region_w)):
            if r not in touched:
                region_w[r] = 0.0
        idx_parts = []
        off = [0]
        reg = []
        for w, _ in enumerate(walks):
            if int(self.walk_region[w]) in touched:
                idx_parts.append(self.walk_idx[self.walk_off[w] : self.walk_off[w + 1]])
                off.append(off[-1] + len(idx_parts[-1]))
                reg.append(int(self.walk_region[w]))
        return Near(
            movers, P[movers].copy(), moves, pts.astype(np.int64), self.segs[keep], self.seg_chain[keep],
            self.seg_pos[keep], bend, spread,
            np.concatenate(idx_parts).astype(np.int64) if idx_parts else np.zeros(0, dtype=np.int64),
            np.array(off, dtype=np.int64), np.array(reg, dtype=np.int64), region_w,
        )  # fmt: skip

    def energy_near(self, P: np.ndarray, params: np.ndarray, near: Near) -> tuple[float, np.ndarray]:
        """The energy's terms that hold a moving point, and the gradient at the moving points
        (``energy`` less a constant; ``relax_kernels.energy_gradient_near``).  Charged as a whole
        evaluation: a descent gives up its work where the whole evaluation would."""
        charge(len(P))
        return energy_gradient_near(
            P, self.n_spots, self.sizes, near.pts, near.segs, near.moves, self.pt_chain, self.pt_pos,
            near.seg_chain, near.seg_pos, self.chain_len, HOPS, near.bend, near.spread,
            near.walk_idx, near.walk_off, near.walk_region, near.region_w, self.region_base,
            self.width, self.height, params,
        )  # fmt: skip

    def caps_near(self, P: np.ndarray, near: Near) -> np.ndarray:
        """``caps`` of the moving points (``relax_kernels.pred_caps_near``)."""
        return pred_caps_near(
            P, self.n_spots, self.sizes, near.pts, near.segs, near.moves, self.width, self.height, REACH
        )


@dataclass
class Near:
    """The points and terms near the points that move (``Skeleton.near``)."""

    movers: np.ndarray  # the points that move
    at: np.ndarray  # where they were when this was made
    moves: np.ndarray  # a flag per point: does it move
    pts: np.ndarray  # the points near a segment with a moving end (the moving ones among them)
    segs: np.ndarray  # the segments near a moving point (the moving ones among them)
    seg_chain: np.ndarray
    seg_pos: np.ndarray
    bend: np.ndarray  # the bends and spreads with a moving point
    spread: np.ndarray
    walk_idx: np.ndarray  # the walks of the regions with a moving point on one of their walks
    walk_off: np.ndarray
    walk_region: np.ndarray
    region_w: np.ndarray  # the weights of those regions (zero for the others)

    def stale(self, P: np.ndarray) -> bool:
        """Has a moving point gone farther than ``NEAR_MARGIN`` since this was made?"""
        if not len(self.movers):
            return False
        d = P[self.movers] - self.at
        return float((d * d).sum(axis=1).max()) > NEAR_MARGIN * NEAR_MARGIN


# --------------------------------------------------------------------------- building skeletons



def chain_positions_reference(
    sk: Skeleton,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``Skeleton._chain_positions`` with numpy rows and a count per point (the reference it is
    tested against): ``pt_chain``, ``pt_pos``, ``seg_chain``, ``seg_pos``, ``chain_len``."""
    n = len(sk.P)
    pt_chain = -np.ones((n, 3), dtype=np.int64)
    pt_pos = np.zeros((n, 3), dtype=np.int64)
    fill = np.zeros(n, dtype=np.int64)
    seg_index: dict[tuple[int, int], list[int]] = {}
    for k, (a, b) in enumerate(sk.segs):
        seg_index.setdefault((int(a), int(b)), []).append(k)
    seg_chain = -np.ones(len(sk.segs), dtype=np.int64)
    seg_pos = np.zeros(len(sk.segs), dtype=np.int64)
    lens = []
    used_segs: set[int] = set()
    for ci, (chain, closed) in enumerate(chains(sk, sk.corners)):
        idx: list[int] = []
        for e, fwd in chain:
            pts = sk.curve_pts[e] if fwd else sk.curve_pts[e][::-1]
            idx.extend(int(v) for v in (pts if not idx else pts[1:]))
        if closed:
            idx = idx[:-1]
        lens.append(len(idx) if closed else 0)
        for pos, v in enumerate(idx):
            if fill[v] < 3 and not (pt_chain[v, : fill[v]] == ci).any():
                pt_chain[v, fill[v]] = ci
                pt_pos[v, fill[v]] = pos
                fill[v] += 1
        m = len(idx)
        for pos in range(m if closed else m - 1):
            a, b = idx[pos], idx[(pos + 1) % m]
            for key in ((a, b), (b, a)):
                for k in seg_index.get(key, []):
                    if k not in used_segs:
                        used_segs.add(k)
                        seg_chain[k] = ci
                        seg_pos[k] = pos
                        break
                else:
                    continue
                break
    return pt_chain, pt_pos, seg_chain, seg_pos, np.array(lens, dtype=np.int64)

def skeleton_from_picture(
    pic: Picture, analysis: Analysis, spacing: float, corners: frozenset[int] = frozenset()
) -> Skeleton:
    """Polylines that follow the picture's curves closely enough to have its topology (checked).

    Where the polylines at ``spacing`` do not, their points are made denser, down to an eighth
    of it: only on the curves whose polylines cross (``PictureError.curves``) while the check
    names them, else on every curve.  Two curves leaving a spot a degree apart need dense
    points near it; the rest of the picture does not, and every point costs A and R work.
    Inner points inside a drawn spot's disc (and ``END_MARGIN``) at the curve's own end are left
    out (``_clear_of_ends``), unless no polylines without them follow the picture.
    """
    expected = analysis.position.canonical()
    sizes = np.asarray(pic.sizes, dtype=float)

    def follows(density: np.ndarray, clear: bool) -> tuple[Skeleton | None, tuple[int, ...] | None]:
        pts_list = [_curve_points(c, spacing * float(d)) for c, d in zip(pic.curves, density, strict=True)]
        if clear:
            ends = np.where(sizes > 0, sizes + END_MARGIN, 0.0)
            pts_list = [
                _clear_of_ends(pts, ends[c.a], ends[c.b]) for c, pts in zip(pic.curves, pts_list, strict=True)
            ]
        sk = _assemble(pic, analysis, pts_list, corners)
        try:
            if analyse_picture(skeleton_picture(sk, smooth=False)).position.canonical() == expected:
                return sk, None
        except PictureError as e:
            return None, e.curves
        return None, None

    for clear in (True, False):
        sk = _denser_until_it_follows(len(pic.curves), functools.partial(follows, clear=clear))
        if sk is not None:
            return sk
    raise PictureError("the curves are too tangled to follow with polylines; try Z (sprouts layout) instead")


def _denser_until_it_follows(
    n_curves: int, follows: Callable[[np.ndarray], tuple[Skeleton | None, tuple[int, ...] | None]]
) -> Skeleton | None:
    """The first skeleton that ``follows`` the picture: the curves it names made denser, then all."""
    density = np.ones(n_curves)
    sk, named = follows(density)
    for _ in range(_NAMED_TRIES):
        if sk is not None or not named or not all(0 <= i < len(density) for i in named):
            break
        idx = list(named)
        if density[idx].max() <= _DENSEST:
            break
        density[idx] = np.maximum(density[idx] / 2, _DENSEST)
        sk, named = follows(density)
    for share in (0.5, 0.25, _DENSEST):  # every curve denser, as far as the densest
        if sk is not None:
            return sk
        density = np.minimum(density, share)
        sk, _ = follows(density)
    return sk


#: The densest polylines ``skeleton_from_picture`` tries, as a share of the spacing, and how many
#: times at most it makes only the curves named by the check denser before it makes all of them so.
_DENSEST = 0.125
_NAMED_TRIES = 9


def picture_corners(pic: Picture, angle: float = CORNER_ANGLE) -> frozenset[int]:
    """The two-curve spots at which the picture's curves turn by more than ``angle`` (radians)."""
    leaving: dict[int, list[np.ndarray]] = {}
    for c in pic.curves:
        if c.a == c.b:
            continue
        for s, pts in ((c.a, c.pieces[0]), (c.b, c.pieces[-1][::-1])):
            d = next((p - pts[0] for p in pts[1:] if float(np.hypot(*(p - pts[0]))) > 1e-9), None)
            if d is not None:
                leaving.setdefault(s, []).append(d / float(np.hypot(*d)))
    degrees = pic.degrees()
    out = set()
    for s, ds in leaving.items():
        if len(ds) == 2 and int(degrees[s]) == 2:
            # straight through: the two curves leave in opposite directions
            turn = math.pi - math.acos(max(-1.0, min(1.0, float(ds[0] @ ds[1]))))
            if turn > angle:
                out.add(s)
    return frozenset(out)


def _curve_points(c: Curve, spacing: float) -> np.ndarray:
    """Knots of the curve, with points added inside pieces longer than ``spacing``."""
    from .spline import bezier_points

    pts = [c.pieces[0, 0]]
    for pc, q in zip(c.pieces, c.pieces.tolist(), strict=True):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = q
        chord = math.hypot(x3 - x0, y3 - y0)
        poly = 0 + math.hypot(x1 - x0, y1 - y0) + math.hypot(x2 - x1, y2 - y1) + math.hypot(x3 - x2, y3 - y2)
        m = max(1, math.ceil(max(chord, 0.5 * poly) / spacing))
        if m > 1:
            # the inner control points a third and two thirds along the chord (np.allclose's test)
            straight = (
                _close(x1, x0 + (x3 - x0) / 3)
                and _close(y1, y0 + (y3 - y0) / 3)
                and _close(x2, x0 + 2 * (x3 - x0) / 3)
                and _close(y2, y0 + 2 * (y3 - y0) / 3)
            )
            ts = np.arange(1, m) / m
            pts.extend(pc[0] + ts[:, None] * (pc[3] - pc[0]) if straight else bezier_points(pc, ts))
        pts.append(pc[3])
    return np.array(pts)


def _clear_of_ends(pts: np.ndarray, ra: float, rb: float) -> np.ndarray:
    """The polyline without its inner points nearer its first end than ``ra`` or its last than ``rb``.

    A curve that ends at a spot can run inside that spot's disc before it reaches it (a short
    curve between close spots); a point there puts the leg before it inside the disc, and the
    step caps (``relax_kernels.pred_caps``) then hold the spot, that point and the leg's other end
    still: R could not move such spots apart, and the region between them stayed a sliver.
    """
    if len(pts) <= 2:
        return pts
    inner = pts[1:-1]
    far = (np.hypot(*(inner - pts[0]).T) > ra) & (np.hypot(*(inner - pts[-1]).T) > rb)
    loop = bool(np.array_equal(pts[0], pts[-1]))
    if far.all() or (loop and int(far.sum()) < 2):
        return pts
    return np.concatenate([pts[:1], inner[far], pts[-1:]])


def _close(a: float, b: float) -> bool:
    """``np.allclose`` of two numbers (its tolerances), without the arrays."""
    return abs(a - b) <= 1e-8 + 1e-5 * abs(b)


def _assemble(
    pic: Picture, analysis: Analysis, pts_list: list[np.ndarray], corners: frozenset[int] = frozenset()
) -> Skeleton:
    n = len(pic.spots)
    P = [pic.spots.copy()]
    curve_pts = []
    nxt = n
    for c, pts in zip(pic.curves, pts_list, strict=True):
        inner = pts[1:-1]
        idx = [c.a, *range(nxt, nxt + len(inner)), c.b]
        nxt += len(inner)
        P.append(inner)
        curve_pts.append(np.array(idx, dtype=np.int64))
    allp = np.concatenate(P) if P else np.zeros((0, 2))
    regions = [[w[1] for w in r if w[0] == "cycle"] for r in analysis.map.regions]
    lives = [analysis.position.region_lives(i) for i in range(len(analysis.map.regions))]
    return Skeleton(
        allp, n, np.asarray(pic.sizes, dtype=float).copy(), curve_pts, [(c.a, c.b) for c in pic.curves],
        pic.width, pic.height, regions, lives, corners,
    )  # fmt: skip


def respace(sk: Skeleton, spacing: float) -> Skeleton | None:
    """The same polylines with points spread evenly, about ``spacing`` apart; None if they would cross."""
    changed = False
    new_lists = []
    for e, pts in enumerate(sk.curve_pts):
        poly = sk.P[pts]
        if sk.moving is not None and e not in sk.moving:
            new_lists.append(poly)
            continue
        legs = np.hypot(*np.diff(poly, axis=0).T)
        length = float(legs.sum())
        m = max(2, round(length / spacing))
        uneven = legs.max() > 1.8 * legs.mean() or legs.min() < 0.4 * legs.mean()
        if m != len(pts) - 1 or uneven:
            changed = True
            t = np.concatenate([[0.0], np.cumsum(legs)])
            s = np.linspace(0.0, length, m + 1)
            x = np.interp(s, t, poly[:, 0])
            y = np.interp(s, t, poly[:, 1])
            new_lists.append(np.stack([x, y], axis=1))
        else:
            new_lists.append(poly)
    if not changed:
        return None
    P = [sk.P[: sk.n_spots]]
    curve_pts = []
    nxt = sk.n_spots
    for (a, b), poly in zip(sk.curve_ab, new_lists, strict=True):
        inner = poly[1:-1]
        curve_pts.append(np.array([a, *range(nxt, nxt + len(inner)), b], dtype=np.int64))
        nxt += len(inner)
        P.append(inner)
    new = Skeleton(
        np.concatenate(P), sk.n_spots, sk.sizes.copy(), curve_pts, sk.curve_ab, sk.width, sk.height,
        sk.region_walks, sk.region_lives, sk.corners, sk.moving,
    )  # fmt: skip
    if new.crosses() or not np.isfinite(new.energy(new.P, Params().array())[0]):
        return None
    # spots must keep their discs clear of the new legs
    if (new.caps(new.P)[: new.n_spots] <= 0).any():
        return None
    return new


# --------------------------------------------------------------------------- from polylines to splines


def chains(sk: Skeleton, cut: frozenset[int] = frozenset()) -> list[tuple[list[tuple[int, bool]], bool]]:
    """Curves joined through two-curve spots: lists of (curve, forward), and whether the chain is closed.

    Chains are not joined through the spots in ``cut`` (corners).
    """
    at: dict[int, list[int]] = {}
    for e, (a, b) in enumerate(sk.curve_ab):
        at.setdefault(a, []).append(e)
        at.setdefault(b, []).append(e)
    used = [False] * len(sk.curve_ab)
    out = []

    def follow(e: int, start: int) -> list[tuple[int, bool]]:
        seq = []
        s = start
        while True:
            a, b = sk.curve_ab[e]
            forward = a == s
            seq.append((e, forward))
            used[e] = True
            s = b if forward else a
            nb = at[s]
            if len(nb) != 2 or nb[0] == nb[1] or s in cut:
                return seq
            e2 = nb[0] if nb[1] == e else nb[1]
            if used[e2]:
                return seq
            e = e2

    for s, es in at.items():
        if len(es) == 2 and es[0] != es[1] and s not in cut:
            continue
        for e in es:
            if not used[e]:
                out.append((follow(e, s), False))
    for e in range(len(sk.curve_ab)):
        if not used[e]:
            out.append((follow(e, sk.curve_ab[e][0]), True))
    return out


CORNER = CORNER_ANGLE


def smooth_chains(sk: Skeleton, P: np.ndarray | None = None) -> list[tuple[list[tuple[int, bool]], bool]]:
    """The chains of :func:`chains`, cut at the two-curve spots where they turn sharply.

    One C² spline through a corner rings: it overshoots on both sides and every
    curve of the chain beyond the corner waves (Alfeld joins a move's two curves,
    whose spot lies on a smooth curve; a chain through an older spot can have a
    corner there).  Cut at the corner, each side is a clamped spline that leaves
    the spot the way its polyline does.
    """
    P = sk.P if P is None else P
    out: list[tuple[list[tuple[int, bool]], bool]] = []
    for chain, closed in chains(sk, sk.corners):
        if len(chain) < 2:
            out.append((chain, closed))
            continue
        # the spot between chain[k] and chain[k+1] (and, closed, between the last and the first)
        cuts = []
        joints = range(len(chain)) if closed else range(len(chain) - 1)
        for k in joints:
            e1, f1 = chain[k]
            e2, f2 = chain[(k + 1) % len(chain)]
            p1 = sk.curve_pts[e1] if f1 else sk.curve_pts[e1][::-1]
            p2 = sk.curve_pts[e2] if f2 else sk.curve_pts[e2][::-1]
            u = P[p1[-1]] - P[p1[-2]]
            v = P[p2[1]] - P[p2[0]]
            nu, nv = float(np.hypot(*u)), float(np.hypot(*v))
            if nu <= 0 or nv <= 0:
                continue
            turn = math.acos(max(-1.0, min(1.0, float(u @ v) / (nu * nv))))
            if turn > CORNER:
                cuts.append(k + 1)
        if not cuts:
            out.append((chain, closed))
            continue
        if closed:
            # open the ring at its first corner
            first = cuts[0] % len(chain)
            chain = chain[first:] + chain[:first]
            cuts = sorted({(c - first) % len(chain) for c in cuts} - {0})
        bounds = [0, *cuts, len(chain)]
        for a, b in itertools.pairwise(bounds):
            if b > a:
                out.append((chain[a:b], False))
    return out


def _chain_points(sk: Skeleton, chain: list[tuple[int, bool]]) -> tuple[np.ndarray, list[int]]:
    idx: list[int] = []
    bounds = [0]
    for e, fwd in chain:
        pts = sk.curve_pts[e] if fwd else sk.curve_pts[e][::-1]
        idx.extend(int(v) for v in (pts if not idx else pts[1:]))
        bounds.append(len(idx) - 1)
    return sk.P[idx], bounds


def _fit_chain(
    pts: np.ndarray, closed: bool, level: int, spot_knots: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Pieces through the chain's points: spline (0), spline through leg middles (1), polyline (2)."""
    if level >= 1 or len(pts) <= 2:
        return straight_pieces(pts)
    if closed:
        return interpolate_closed(pts)
    return interpolate_clamped(pts)


def _midpoint_spline(
    pts: np.ndarray, closed: bool, spot_knots: list[int]
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Spline through the middles of the legs, with the spots kept as knots (they must stay put)."""
    keep = set(spot_knots)
    out = [pts[0]]
    marks = [0]
    for k in range(1, len(pts)):
        out.append(0.5 * (pts[k - 1] + pts[k]))
        if k in keep or k == len(pts) - 1:
            out.append(pts[k])
            marks.append(len(out) - 1)
    arr = np.array(out)
    pieces, h = interpolate_closed(arr) if closed else interpolate_clamped(arr)
    # regroup so that the pieces between spot knots stay together (callers cut at spots)
    return pieces, h, marks


#: How closely the smoothing fit of A and R follows a relaxed polyline (px).
FIT_TOLERANCE = 1.0


def _fitted_curves(pts: np.ndarray, bounds: list[int], closed: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each curve of a chain as the clamped least-squares spline near its points (within 1 px).

    Spline interpolation through every relaxed point turns the descent's small
    zigzags into waves; the least-squares fit (``fit.fit_clamped``, as the router's)
    puts a knot only where the points need one.  The curves of a chain meet their
    spots in one direction (the chord of the points beside the spot), so the chain
    stays C¹ through its two-curve spots.
    """
    from .fit import fit_clamped

    n = len(pts)

    def tangent(k: int) -> np.ndarray:
        if 0 < k < n - 1:
            v = pts[k + 1] - pts[k - 1]
        elif closed:
            v = pts[1] - pts[n - 2]
        else:
            v = pts[1] - pts[0] if k == 0 else pts[n - 1] - pts[n - 2]
        norm = float(np.hypot(*v))
        return v / norm if norm > 0 else np.array([1.0, 0.0])

    out = []
    for k in range(len(bounds) - 1):
        seg = pts[bounds[k] : bounds[k + 1] + 1]
        if len(seg) < 3:
            out.append(straight_pieces(seg))
        else:
            out.append(fit_clamped(seg, tangent(bounds[k]), tangent(bounds[k + 1]), tol=FIT_TOLERANCE))
    return out


def skeleton_picture(
    sk: Skeleton,
    smooth: bool = True,
    levels: dict[int, int] | None = None,
    keep: dict[int, Curve] | None = None,
) -> Picture:
    """The picture of a skeleton: every chain a spline (or polyline), cut at its spots into curves.

    Levels per chain: 0 the least-squares fit per curve, 1 the C² spline through the
    points, 2 the spline through the legs' middles, 3 the polyline (``smooth=False``).
    A curve of ``keep`` is that curve as it is (one that did not move: its spots stayed).
    """
    curves: list[Curve | None] = [None] * len(sk.curve_ab)
    for ci, (chain, closed) in enumerate(smooth_chains(sk)):
        if keep is not None and all(e in keep for e, _ in chain):
            for e, _ in chain:
                curves[e] = keep[e]
            continue
        pts, bounds = _chain_points(sk, chain)
        level = (levels or {}).get(ci, 0) if smooth else LAST_LEVEL
        parts: list[tuple[np.ndarray, np.ndarray]]
        if level == 0 and len(pts) > 2:
            parts = _fitted_curves(pts, bounds, closed)
        else:
            if level == 2 and len(pts) > 2:
                pieces, h, marks = _midpoint_spline(pts, closed, bounds)
                bounds = marks
            else:
                pieces, h = _fit_chain(pts, closed, level - 1 if level >= 1 else 0, bounds)
            parts = [
                (pieces[bounds[k] : bounds[k + 1]], h[bounds[k] : bounds[k + 1]]) for k in range(len(chain))
            ]
        for (e, fwd), (pc, hh) in zip(chain, parts, strict=True):
            a, b = sk.curve_ab[e]
            if keep is not None and e in keep:
                curves[e] = keep[e]
                continue
            if not fwd:
                pc = pc[::-1, ::-1]
                hh = hh[::-1]
            pc = pc.copy()
            pc[0, 0] = sk.P[a]
            pc[-1, 3] = sk.P[b]
            curves[e] = Curve(a, b, pc, hh.copy())
    return Picture(sk.width, sk.height, sk.P[: sk.n_spots].copy(), curves, sk.sizes.copy())  # type: ignore[arg-type]


#: The last fallback of :func:`skeleton_picture`: the polylines themselves.
LAST_LEVEL = 3


def curves_outside(pic: Picture) -> list[int]:
    """The curves with a control point outside the drawing area (``Picture.bounds_ok``, curve by curve)."""
    out = []
    for e, c in enumerate(pic.curves):
        p = c.pieces.reshape(-1, 2)
        if (p < 0).any() or (p[:, 0] > pic.width).any() or (p[:, 1] > pic.height).any():
            out.append(e)
    return out


def smooth_and_certify(
    sk: Skeleton, expected: str, stop: Stop | None = None, keep: dict[int, Curve] | None = None
) -> Picture:
    """Splines through the relaxed polylines, with fallbacks, checked to read back as ``expected``.

    The curves of ``keep`` are kept as they are (``skeleton_picture``).

    A chain whose spline leaves the drawing area goes to its next level before the picture
    is read: such a picture is refused anyway, and a fit that overshot by far (millions of
    px) would be refined into tens of thousands of legs for the certificate to no purpose.
    """
    n_chains = len(smooth_chains(sk))
    levels = dict.fromkeys(range(n_chains), 0)
    chain_of_curve = {}
    for ci, (chain, _) in enumerate(smooth_chains(sk)):
        for e, _ in chain:
            chain_of_curve[e] = ci
    last_error = ""
    for _ in range(LAST_LEVEL * n_chains + 3):
        check_stop(stop)
        pic = skeleton_picture(sk, True, levels, keep)
        outside = curves_outside(pic)
        if outside and any(levels[chain_of_curve[e]] < LAST_LEVEL for e in outside):
            last_error = "the smooth curves leave the drawing area"
            for ci in {chain_of_curve[e] for e in outside}:
                levels[ci] = min(LAST_LEVEL, levels[ci] + 1)
            continue
        try:
            a = analyse_picture(pic)
            if a.position.canonical() == expected and a.min_clearance > 0 and pic.bounds_ok():
                return pic
            last_error = (
                "the smooth curves changed the position"
                if a.position.canonical() != expected
                else ("the smooth curves leave no clearance")
            )
            bad = None
        except PictureError as e:
            last_error = str(e)
            bad = getattr(e, "curves", None)
        if bad:
            raise_these = [chain_of_curve[c] for c in bad]
        else:
            raise_these = [ci for ci, lv in levels.items() if lv < LAST_LEVEL]
        raised = False
        for ci in raise_these:
            if levels[ci] < LAST_LEVEL:
                levels[ci] += 1
                raised = True
        if not raised:
            break
    raise PictureError(f"the relaxed picture could not be drawn with certified curves: {last_error}")


