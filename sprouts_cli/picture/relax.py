"""A and R: one energy for the whole picture, and the polish of Z (Alfeld §4.5–4.6).

Every curve becomes a polyline through its end spots and points about ``D/2``
apart (the skeleton, ``skeleton.py``).  The spots and points move together to a minimum of the energy of
``relax_kernels`` by L-BFGS (Liu and Nocedal, eight correction pairs) with the
exact gradient and a line search on the energy itself.  Every step is capped as
in Bertault's PrEd, so that no point can reach a segment during a step: nothing
ever crosses and the position cannot change.  The descent stops when the picture
no longer visibly changes (24 steps in a row moving no point by half a pixel or
gaining less than a pixel's worth of energy).  Then each chain of curves (a
move's two curves through their spot form one) becomes the clamped C² spline
through its points, certified; where a spline fails, the spline through the
middles of the legs, and at last the polyline itself, is used.  The result is
refused unless it reads back as the same position with positive clearance.

* A (``adjust``) keeps the spots where they are and moves the curves' points
  only across their curves.
* R (``rearrange``) moves everything.
* The polish of Z starts from the straight grid drawing with small spots, each
  half its own least gap, and grows them in stages by their own room.

A spot drawn smaller than its size (by an earlier Z, ``sizes.py``) grows back in A
and R as soon as there is room for it: both grow it in stages during the descent,
and at the end it takes the largest size its room allows (never smaller than it was).

How long A and R may run is counted in work, not in seconds: a step of the
descent over one point of the skeleton is one unit, and A and R each stop after
``RELAX_WORK`` units (or sooner, once the picture no longer visibly changes).  So
the same picture relaxes to the same picture on any machine and under any load,
and a move's A or R takes a bounded time that grows with the picture.

The descents take a ``stop`` test (Z gives up a layout that runs far longer than
the others): when it answers True the work ends with PictureError.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Mapping

import numpy as np

from ..errors import PictureError
from .analyse import analyse_picture
from .model import COMFORT, MIN_CLEARANCE, SPOT_RADIUS, Picture
from .relax_kernels import spot_gaps
from .skeleton import (
    Near,
    Params,
    Skeleton,
    Stop,
    check_stop,
    picture_corners,
    respace,
    skeleton_from_picture,
    smooth_and_certify,
)

HISTORY = 8  # L-BFGS correction pairs
STAGE_STEPS = (120, 100, 220)  # descent steps of the polish's stages (spots grow between them)
STALL = 24  # steps without a visible change before the descent stops
#: A and R charge bending at this many times Z's polish: they start from a drawn picture and must
#: not trade its smooth curves for waves (with Z's weight, A on a fresh drawing raised the total
#: turning by up to 2.7×); Z's polish straightens a grid drawing and keeps the lighter weight.
AR_BEND = 4.0
#: The work A or R may do, in point-steps (one step of the descent over one point of the skeleton):
#: a 10-spot game's last picture (about 700 points for A, 1,500 for R) settles within it.
RELAX_WORK = 120_000

# --------------------------------------------------------------------------- the descent


def _project_across(sk: Skeleton, P: np.ndarray, V: np.ndarray) -> np.ndarray:
    """A: interior points move only across their curve; spots not at all."""
    out = V.copy()
    out[: sk.n_spots] = 0.0
    idx = np.nonzero(sk.interior_prev >= 0)[0]
    if len(idx):
        t = P[sk.interior_next[idx]] - P[sk.interior_prev[idx]]
        t /= np.maximum(np.hypot(t[:, 0], t[:, 1]), 1e-12)[:, None]
        dot = (V[idx] * t).sum(axis=1)
        out[idx] = V[idx] - dot[:, None] * t
    return out


def descend(
    sk: Skeleton,
    mode: str,
    params: Params,
    max_steps: int = 600,
    seconds: float = 20.0,
    respace_every: int = 25,
    rng: np.random.Generator | None = None,
    stop: Stop | None = None,
    work: float = math.inf,
) -> Skeleton:
    """Capped L-BFGS on the energy until the picture no longer visibly changes, or ``work`` point-steps."""
    rng = rng or np.random.default_rng(0)
    par = params.array()
    adjust = mode == "adjust"
    P = sk.P.copy()
    local = _Local(sk, params.cutoff, par)
    E, G = local.energy(P, par)
    if not math.isfinite(E):
        raise PictureError("internal: the starting picture has infinite energy")
    still = sk.still()
    hist_s: list[np.ndarray] = []
    hist_y: list[np.ndarray] = []
    stall = 0
    jiggles = 0
    done = 0
    t0 = time.perf_counter()
    for step in range(max_steps):
        check_stop(stop)
        if done >= work:
            break
        done += len(P)
        g = _held(_project_across(sk, P, G) if adjust else G, still)
        d = -_two_loop(g.ravel(), hist_s, hist_y).reshape(P.shape)
        if adjust:
            d = _project_across(sk, P, d)
        d = _held(d, still)
        if float((d * g).sum()) >= 0:
            hist_s.clear()
            hist_y.clear()
            d = -g
        if not hist_s:
            big = float(np.hypot(d[:, 0], d[:, 1]).max())
            if big > 0:
                d *= 0.25 * params.spacing / big
        caps = local.caps(P)
        alpha = 1.0
        accepted = False
        for _ in range(16):
            s = alpha * d
            norms = np.hypot(s[:, 0], s[:, 1])
            factor = np.minimum(1.0, caps / np.maximum(norms, 1e-300))
            s *= factor[:, None]
            Pn = P + s
            En, Gn = local.energy(Pn, par)
            if En < E:
                accepted = True
                break
            alpha *= 0.5
        if not accepted:
            # jiggle within a sixth of the caps, a few times, to leave shallow traps
            if jiggles >= 3:
                break
            jiggles += 1
            s = rng.uniform(-1, 1, P.shape) * (caps / 6.0 / math.sqrt(2))[:, None]
            if adjust:
                s = _project_across(sk, P, s)
            s = _held(s, still)
            Pn = P + s
            En, Gn = local.energy(Pn, par)
            if not math.isfinite(En):
                continue
            hist_s.clear()
            hist_y.clear()
            P, E, G = Pn, En, Gn
            continue
        gn = _held(_project_across(sk, Pn, Gn) if adjust else Gn, still)
        sv = (Pn - P).ravel()
        yv = (gn - g).ravel()
        if float(sv @ yv) > 1e-12:
            hist_s.append(sv)
            hist_y.append(yv)
            if len(hist_s) > HISTORY:
                hist_s.pop(0)
                hist_y.pop(0)
        moved = float(np.hypot(*(Pn - P).T).max())
        gain = E - En
        stall = stall + 1 if (moved < 1.0 or gain < 1.0) else 0
        P, E, G = Pn, En, Gn
        if stall >= STALL or time.perf_counter() - t0 > seconds:
            break
        if respace_every and step % respace_every == respace_every - 1:
            sk.P = P
            new = respace(sk, params.spacing) if not adjust else _respace_adjust(sk, params.spacing)
            if new is not None:
                sk = new
                local = _Local(sk, params.cutoff, par)
                still = sk.still()
                P = sk.P.copy()
                E, G = local.energy(P, par)
                hist_s.clear()
                hist_y.clear()
    sk.P = P
    sk.steps = step + 1
    sk.work = done
    return sk


class _Local:
    """The energy and caps a descent evaluates: the whole skeleton's when every point moves;
    when only some do (``Skeleton.moving``), only the terms near them (``Skeleton.near``, made
    again once a moving point has gone ``NEAR_MARGIN`` from where it was made): the energy then
    differs from the whole one by a constant, and the gradient and caps of the moving points are
    theirs, so the descent takes the same steps at a cost in proportion to what lies near them."""

    def __init__(self, sk: Skeleton, cutoff: float, par: np.ndarray) -> None:
        self.sk = sk
        self.cutoff = cutoff
        self.near = sk.near(sk.P, cutoff) if sk.moving is not None else None
        if self.near is not None and not math.isfinite(sk.energy(sk.P, par, charged=False)[0]):
            # infinite among points that stay only: the near terms would not see it, and the
            # whole evaluation refuses such a skeleton
            self.near = None

    def _fresh(self, P: np.ndarray) -> Near | None:
        if self.near is not None and self.near.stale(P):
            self.near = self.sk.near(P, self.cutoff)
        return self.near

    def energy(self, P: np.ndarray, par: np.ndarray) -> tuple[float, np.ndarray]:
        near = self._fresh(P)
        return self.sk.energy(P, par) if near is None else self.sk.energy_near(P, par, near)

    def caps(self, P: np.ndarray) -> np.ndarray:
        near = self._fresh(P)
        return self.sk.caps(P) if near is None else self.sk.caps_near(P, near)


def _held(V: np.ndarray, still: np.ndarray | None) -> np.ndarray:
    """``V`` with the rows of the points that stay (``Skeleton.still``) zero (None: ``V``)."""
    if still is None:
        return V
    out = V.copy()
    out[still] = 0.0
    return out


def _respace_adjust(sk: Skeleton, spacing: float) -> Skeleton | None:
    """In A the points are spread evenly along their curves again (kept only if nothing crosses)."""
    return respace(sk, spacing)


def _two_loop(g: np.ndarray, S: list[np.ndarray], Y: list[np.ndarray]) -> np.ndarray:
    """L-BFGS two-loop recursion (Liu and Nocedal 1989): the quasi-Newton step H·g."""
    q = g.copy()
    alphas = []
    for s, y in zip(reversed(S), reversed(Y), strict=True):
        rho = 1.0 / float(y @ s)
        a = rho * float(s @ q)
        q -= a * y
        alphas.append((rho, a))
    if S:
        q *= float(S[-1] @ Y[-1]) / float(Y[-1] @ Y[-1])
    for (s, y), (rho, a) in zip(zip(S, Y, strict=True), reversed(alphas), strict=False):
        b = rho * float(y @ q)
        q += (a - b) * s
    return q


# --------------------------------------------------------------------------- A, R and the polish of Z


def relax(
    pic: Picture,
    mode: str = "adjust",
    work: float = RELAX_WORK,
    d0: float = MIN_CLEARANCE,
    hold_open: Mapping[int, int] | None = None,
    moving: Collection[int] | None = None,
) -> Picture:
    """A (``adjust``) or R (``rearrange``): a new picture of the same position (checked), or PictureError.

    The descent (and R's growing stages after it) may take ``work`` point-steps in all.
    Spots drawn smaller grow back where the relaxed picture has room for them
    (``sizes.fit_sizes``: their discs keep ``d0``, or what the rest of the picture keeps).
    ``hold_open`` (a region's index in the picture's map: lives) holds those regions open by the
    area term as if they had that many lives (``held_open``): what widens a sliver.
    ``moving`` (curve indices; None: all) are the only curves that move, with the spots whose
    curves all move; every other curve is kept as it is drawn, an obstacle to them.  The descent
    then evaluates only the terms near the moving points (``Skeleton.near``), so its steps cost
    in proportion to that neighbourhood, not to the picture.  R's stages
    that grow the spots after the descent (descending again after each) then run only when a
    spot is drawn smaller: the descent has settled the curves that move.
    """
    from .sizes import fit_sizes, smaller_spots

    if mode not in ("adjust", "rearrange"):
        raise ValueError("mode is 'adjust' or 'rearrange'")
    a = analyse_picture(pic)
    expected = a.position.canonical()
    if not pic.curves:
        return fit_sizes(pic.copy(), a, d0, grow_only=True)[0]
    params = Params(w_bend=AR_BEND * COMFORT * COMFORT)
    sk = skeleton_from_picture(pic, a, params.spacing, picture_corners(pic))
    keep = None
    if moving is not None:
        sk.moving = frozenset(moving)
        keep = {e: c for e, c in enumerate(pic.curves) if e not in sk.moving}
    if hold_open:
        sk = held_open(sk, hold_open)
    sk = descend(sk, mode, params, max_steps=800, seconds=math.inf, work=work)
    if (mode == "rearrange" and moving is None) or smaller_spots(pic):
        left = max(0.0, work - sk.work)
        sk = _grow_spots(sk, params, np.full(sk.n_spots, SPOT_RADIUS), math.inf, mode, work=left)
    out = smooth_and_certify(sk, expected, keep=keep)
    if smaller_spots(out):
        out, _ = fit_sizes(out, analyse_picture(out), d0, grow_only=True)
    out.meta = pic.meta
    return out


def held_open(sk: Skeleton, lives: Mapping[int, int]) -> Skeleton:
    """The skeleton with each region of ``lives`` weighted in the area term as if it had that many
    lives (more, if it has them).

    The area term (``- w_area Σ lives · log(area)``) holds open only the regions a move can
    still be played in (two lives or more), and a region's pull grows only as the log of its area:
    a dead region is kept apart only by the crowding of its curves and the bending of their short
    arcs, which the regions round it outweigh, so R can leave it a sliver, or squeeze a region
    beside one it widens.  Weighted, their areas push back.  A region whose polygon in the
    skeleton has no positive area (a sliver thinner than the skeleton's legs are straight) is
    left as it was: its log has no value to descend from.
    """
    sk.region_lives = [max(int(n), int(lives.get(i, 0))) for i, n in enumerate(sk.region_lives)]
    sk.derive()
    area = _region_areas(sk)
    flat = [i for i in lives if i < len(area) and sk.region_w[i] > 0 and area[i] <= 0.0]
    if flat:
        sk.region_lives = [0 if i in flat else n for i, n in enumerate(sk.region_lives)]
        sk.derive()
    return sk


def _region_areas(sk: Skeleton) -> np.ndarray:
    """Each region's area as the area term sees it: the sum of its walks' signed areas (plus the
    window for the outside), over the regions the term weighs (the others' walks are not listed)."""
    area = sk.region_base.copy()
    for w in range(len(sk.walk_off) - 1):
        idx = sk.walk_idx[sk.walk_off[w] : sk.walk_off[w + 1]]
        x, y = sk.P[idx, 0], sk.P[idx, 1]
        area[sk.walk_region[w]] += -0.5 * float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum())
    return area


def polish(
    pic: Picture, expected: str, work: float = math.inf, stop: Stop | None = None
) -> tuple[Picture, float]:
    """Z's polish: R's descent from the straight grid drawing, spots starting small and growing,
    for at most ``work`` point-steps; the picture, and the work its descent did (point-steps, as
    ``RELAX_WORK`` counts them)."""
    params = Params()
    a = analyse_picture(pic)
    target = np.asarray(pic.sizes, dtype=float).copy()
    start = pic.copy()
    start.sizes = np.zeros(len(pic.spots))
    sk = skeleton_from_picture(start, a, params.spacing)
    gaps = spot_gaps(sk.P, sk.n_spots, sk.segs)
    sk.sizes = np.minimum(target, 0.5 * gaps) * 0.999
    sk = _grow_spots(sk, params, target, math.inf, stop=stop, work=work)
    return smooth_and_certify(sk, expected, stop), sk.work


def _grow_spots(
    sk: Skeleton,
    params: Params,
    target: np.ndarray,
    seconds: float,
    mode: str = "rearrange",
    stop: Stop | None = None,
    work: float = math.inf,
) -> Skeleton:
    """Descents in stages; after each, each spot grows by its own room (half its gap), up to its size.

    The stages stop after ``seconds`` or ``work`` point-steps in all, whichever comes first.
    A spot is never made smaller here: one larger than ``target`` keeps its size.  The
    skeleton's ``work`` is then the point-steps of all the stages."""
    t0 = time.perf_counter()
    target = np.maximum(target, sk.sizes)
    done = 0
    for steps in STAGE_STEPS:
        left = seconds - (time.perf_counter() - t0)
        if left <= 0 or work <= 0:
            break
        sk = descend(sk, mode, params, max_steps=steps, seconds=left, stop=stop, work=work)
        work -= sk.work
        done += sk.work
        gaps = spot_gaps(sk.P, sk.n_spots, sk.segs)
        grown = np.minimum(target, np.maximum(sk.sizes, 0.5 * gaps * 0.999))
        old = sk.sizes
        sk.sizes = grown
        if (sk.caps(sk.P)[: sk.n_spots] <= 0).any() or not math.isfinite(sk.energy(sk.P, params.array())[0]):
            sk.sizes = old
    sk.work = done
    return sk
