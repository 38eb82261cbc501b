"""Z: the picture drawn afresh from the position's map (Alfeld §4.6).

1. The map: realised from the position (``planar_map.realise``) or read off a
   picture (``analyse``).
2. A simple triangulation: every edge gets a midpoint; the walks of each region
   are joined by bridges (each with its own midpoint) so that every region is
   one closed walk; each region gets a face vertex ``f`` and a spoke
   ``f − d − u`` to every corner ``u`` of its walk; the hexagons between
   consecutive spokes are cut by the chords ``d_i − u_{i+1}`` and ``d_i − d_{i+1}``.
   Every added edge names something that exists once, so the graph is simple
   and every face a triangle (checked: ``E = 3V − 6``).  A maximal planar graph
   with four or more vertices is 3-connected, so its embedding is unique
   (Whitney) and ``networkx`` may find it: it is the intended one or its mirror
   image, and a mirror image is the same position.
3. A straight-line grid drawing: a canonical ordering (Kant; de Fraysseix, Pach
   and Pollack), for which ``networkx.get_canonical_ordering`` serves once we give
   it the outer face ourselves (``networkx``'s own drawing function picks the outer
   face itself and merges parallel edges, so it cannot make a chosen region the
   outside), and the shift method of de Fraysseix, Pach and Pollack, implemented
   here.  The chosen region's face vertex is the apex of the outer triangle, so
   that region becomes the outside.
4. The helper vertices are removed, the drawing scaled into the window, each
   curve a two-leg polyline ``u − m − v``; then the polish (``relax.polish``).

One layout is made per candidate outer region, in worker processes when the map
is large.  ``layout_map`` (a position drawn afresh) keeps the one with the widest
least clearance; ``layout_for_move`` (Z as a rung of the ladder) stops as soon as
the move is drawn well enough, by the rules of Alfeld §4.6, with spots drawn
smaller when the • rung allows it.  Every layout's last step gives each spot the
size it has room for (``sizes.py``).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np
from networkx.algorithms.planar_drawing import get_canonical_ordering

from ..cpus import usable_cpus
from ..engine import Position
from ..errors import GivenUp, PictureError
from ..procs import end_pool, pool_initializer
from ..unionfind import UnionFind
from .model import MIN_CLEARANCE, SPOT_RADIUS, Curve, Picture
from .planar_map import PlanarMap, realise
from .spline import straight_pieces
from .work import metered

if TYPE_CHECKING:  # pragma: no cover
    from .analyse import Analysis
    from .skeleton import Stop


@dataclass
class Triangulation:
    """The simple triangulation of a map: a graph, the face vertex of every region, the midpoints."""

    graph: nx.Graph
    face_vertex: list[int]
    face_spokes: list[list[int]]  # per region: its d vertices in walk order
    midpoints: list[list[int]]  # per edge of the map: its midpoint vertices, from a to b
    n_map: int  # vertices 0 … n_map−1 are the map's own


def merged_walk(pmap: PlanarMap, region: list, sub_walk, new_vertex) -> list[int]:
    """One closed walk of corner vertices for a region: its walks joined by bridges at one corner.

    ``sub_walk(w)`` gives a walk's corner vertices in the subdivided graph.  A bridge
    from corner ``x`` of the first walk to corner ``y`` of another, with midpoint
    ``b``, makes ``[x, b, y, …walk of y…, y, b, x, …rest…]``.
    """
    walks = [sub_walk(w) for w in region]
    merged = walks[0]
    for other in walks[1:]:
        x = merged[0]
        b = new_vertex(("bridge", x, other[0]))
        y_part = [*other, other[0]] if len(other) > 1 else list(other)
        x_back = [x] if len(merged) > 1 else []
        merged = [x, b, *y_part, b, *x_back, *merged[1:]]
    return merged


def triangulate(pmap: PlanarMap) -> tuple[Triangulation, list[tuple[int, int]]]:
    """The simple triangulation of Alfeld §4.6 step 2; also the bridges added (as edges of the graph)."""
    edges: list[tuple[int, int]] = []
    counter = [pmap.n]

    class _Edges:
        @staticmethod
        def add_edges_from(es) -> None:
            edges.extend(es)

        @staticmethod
        def add_edge(a: int, b: int) -> None:
            edges.append((a, b))

    g = _Edges()

    def new_vertex(_tag=None) -> int:
        v = counter[0]
        counter[0] += 1
        return v

    mids: list[list[int]] = []
    for a, b in pmap.edges:
        if a == b:
            m1, m2 = new_vertex(), new_vertex()
            g.add_edges_from([(a, m1), (m1, m2), (m2, b)])
            mids.append([m1, m2])
        else:
            m = new_vertex()
            g.add_edges_from([(a, m), (m, b)])
            mids.append([m])

    def sub_walk(w) -> list[int]:
        kind, items = w
        if kind == "spot":
            return [items[0]]
        out: list[int] = []
        for h in items:
            ms = mids[h >> 1] if h % 2 == 0 else mids[h >> 1][::-1]
            out.append(pmap.tail(h))
            out.extend(ms)
        return out

    bridges: list[tuple[int, int]] = []

    def bridge_vertex(tag) -> int:
        _, x, y = tag
        b = new_vertex()
        g.add_edges_from([(x, b), (b, y)])
        bridges.append((x, y))
        return b

    face_vertex, spokes = [], []
    for region in pmap.regions:
        walk = merged_walk(pmap, region, sub_walk, bridge_vertex)
        f = new_vertex()
        ds = [new_vertex() for _ in walk]
        L = len(walk)
        for i, d in enumerate(ds):
            g.add_edge(f, d)
            g.add_edge(d, walk[i])
            if L > 1:
                g.add_edge(d, walk[(i + 1) % L])
                g.add_edge(d, ds[(i + 1) % L])
        face_vertex.append(f)
        spokes.append(ds)
    graph = nx.Graph()
    graph.add_nodes_from(range(counter[0]))
    graph.add_edges_from(edges)
    V, E = graph.number_of_nodes(), graph.number_of_edges()
    if V >= 4 and E != 3 * V - 6:
        raise PictureError(f"internal: the triangulation has {E} edges for {V} vertices, not 3V − 6")
    return Triangulation(graph, face_vertex, spokes, mids, pmap.n), bridges


def shift_method(order: list[tuple[int, list[int]]], n_nodes: int) -> np.ndarray:
    """Straight-line grid drawing of a triangulation from a canonical ordering.

    H. de Fraysseix, J. Pach, R. Pollack, *How to draw a planar graph on a grid*,
    Combinatorica 10(1), 1990: vertices are added in canonical order; each new
    vertex ``v_k`` goes above its contour neighbours ``w_p … w_q`` at the crossing
    of the lines of slope ±1 through ``w_p`` and ``w_q``, after everything under
    ``w_{p+1} … w_{q−1}`` moved right by one and everything under ``w_q … `` by two.
    Coordinates are integers on a ``(2N − 4) × (N − 2)`` grid; no edges cross.
    """
    x = np.zeros(n_nodes)
    y = np.zeros(n_nodes)
    v1, v2, v3 = order[0][0], order[1][0], order[2][0]
    x[v1], y[v1] = 0, 0
    x[v2], y[v2] = 2, 0
    x[v3], y[v3] = 1, 1
    contour = [v1, v3, v2]
    under: dict[int, list[int]] = {v1: [v1], v2: [v2], v3: [v3]}
    for v, wpq in order[3:]:
        pos = {w: i for i, w in enumerate(contour)}
        p, q = pos[wpq[0]], pos[wpq[-1]]
        if p > q:
            p, q = q, p
        inner = contour[p + 1 : q]
        moved1 = [u for w in inner for u in under[w]]
        moved2 = [u for w in contour[q:] for u in under[w]]
        if moved1:
            x[moved1] += 1
        if moved2:
            x[moved2] += 2
        wp, wq = contour[p], contour[q]
        x[v] = (x[wp] + x[wq] + y[wq] - y[wp]) / 2
        y[v] = (x[wq] - x[wp] + y[wq] + y[wp]) / 2
        under[v] = [v, *moved1]
        contour = [*contour[: p + 1], v, *contour[q:]]
    return np.stack([x, y], axis=1)


def embed(pmap: PlanarMap) -> tuple[Triangulation, nx.PlanarEmbedding]:
    """The triangulation of the map and its (unique up to mirror image) planar embedding."""
    tri, _ = triangulate(pmap)
    if tri.graph.number_of_nodes() < 4:
        raise PictureError("internal: too few vertices to triangulate")
    ok, emb = nx.check_planarity(tri.graph)
    if not ok:
        raise PictureError("internal: the triangulation of the map is not planar")
    return tri, emb


def grid_drawing(
    pmap: PlanarMap, outer: int, prepared: tuple[Triangulation, nx.PlanarEmbedding] | None = None
) -> tuple[np.ndarray, Triangulation]:
    """Grid coordinates of every vertex of the triangulation, with region ``outer`` outside."""
    tri, emb = prepared or embed(pmap)
    f = tri.face_vertex[outer]
    d0 = tri.face_spokes[outer][0]
    d1 = tri.face_spokes[outer][1 % len(tri.face_spokes[outer])]
    face = emb.traverse_face(d0, d1)
    if f not in face:
        face = emb.traverse_face(d1, d0)
    order = get_canonical_ordering(emb, face)
    return shift_method(order, tri.graph.number_of_nodes()), tri


def picture_from_grid(
    pmap: PlanarMap, coords: np.ndarray, tri: Triangulation, width: float, height: float, margin: float
) -> Picture:
    """Scale the map's vertices and midpoints into the window; each curve a polyline through its midpoints."""
    keep = list(range(pmap.n)) + [m for ms in tri.midpoints for m in ms]
    pts = coords[keep]
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    box = np.array([width - 2 * margin, height - 2 * margin])
    scaled = margin + (coords - lo) / span * box
    # a drawing with no extent in one direction is centred in it
    for k in range(2):
        if hi[k] - lo[k] < 1e-9:
            scaled[:, k] = (width, height)[k] / 2
    curves = []
    for e, (a, b) in enumerate(pmap.edges):
        poly = np.array([scaled[a], *[scaled[m] for m in tri.midpoints[e]], scaled[b]])
        pieces, h = straight_pieces(poly)
        curves.append(Curve(a, b, pieces, h))
    sizes = np.full(pmap.n, SPOT_RADIUS)
    return Picture(width, height, scaled[: pmap.n].copy(), curves, sizes)


def trivial_picture(pmap: PlanarMap, width: float, height: float) -> Picture | None:
    """Maps with no curve (the start of a game): the spots spread evenly, as a person draws them."""
    if pmap.edges:
        return None
    return Picture(width, height, spread_spots(pmap.n, width, height), [])


def spread_spots(n: int, width: float, height: float) -> np.ndarray:
    """``n`` points spread over the area in staggered rows: 3 make a triangle, 5 a row of 3 over 2.

    The number of rows is the one that gives the roomiest cells; the rows hold as
    many points as the columns allow, from the top, and a shorter row is centred so
    that its points fall between those of a full row.
    """
    if n == 0:
        return np.zeros((0, 2))
    margin = 0.12 * min(width, height)
    inner_w, inner_h = width - 2 * margin, height - 2 * margin

    def room(rows: int) -> float:
        return min(inner_w / math.ceil(n / rows), inner_h / rows)

    rows = max(range(1, n + 1), key=lambda r: (room(r), -r))
    cols = math.ceil(n / rows)
    counts = [cols] * (n // cols) + ([n % cols] if n % cols else [])
    rows = len(counts)
    cell_w, cell_h = inner_w / cols, inner_h / rows
    points = [
        (margin + cell_w * (j + 0.5 + (cols - count) / 2), margin + cell_h * (k + 0.5))
        for k, count in enumerate(counts)
        for j in range(count)
    ]
    return np.array(points, dtype=float)


# --------------------------------------------------------------------------- the whole of Z


SMALL_MAP = 30  # curves: below this, layouts are drawn in this process, one at a time
#: The polish work (point-steps, ``relax.polish``) after which a fresh layout (``layout_map``)
#: tries no further outside regions: about the work of one layout of a 20-spot game's last
#: position (270,000-330,000), so one such layout, or two or three of a smaller position.
LAYOUT_WORK = 300_000
#: The point-steps a layout's polish may take at most: a safety only (the polish's stages have
#: their own steps, and Z gives layouts up by comparison with the others, ``run_layouts``), far
#: above what a 30-spot game's layouts take.
POLISH_WORK = 3_000_000
#: The least work (``work.metered``: point-evaluations of an energy) a layout may do before it can
#: be given up as a straggler: layouts that failed before their polish did next to none.
STRAGGLER_FLOOR = 10_000


@dataclass
class LayoutResult:
    """One layout drawn: the picture, the region put outside, its least clearance, how long it
    took, and the spots it draws smaller than their size (0-based; Alfeld §4.6, ``sizes.py``)."""

    picture: Picture
    outer: int
    min_clearance: float
    seconds: float
    smaller: tuple[int, ...] = ()
    #: the work it took, in point-steps: its polish's (``relax.polish``), and one step over the grid drawing
    work: float = 0.0

    @property
    def least_size(self) -> float:
        """The smallest spot's size (full size when no spot is drawn smaller)."""
        sizes = self.picture.sizes
        return float(min(sizes)) if len(sizes) else SPOT_RADIUS


@dataclass
class Tried:
    """What became of one layout: drawn (``result``) or not (``reason``), after ``seconds`` (of the
    wall clock, for the log) and ``work`` (``work.metered`` units, by which stragglers are judged)."""

    outer: int
    result: LayoutResult | None
    reason: str
    seconds: float
    work: float = 0.0


def layout_one(
    pmap: PlanarMap,
    expected: str,
    outer: int,
    width: float,
    height: float,
    polish: bool = True,
    prepared: tuple[Triangulation, nx.PlanarEmbedding] | None = None,
    work_bound: float = POLISH_WORK,
    d0: float = MIN_CLEARANCE,
    stop: Stop | None = None,
) -> LayoutResult:
    """One layout with region ``outer`` outside, checked by reading its position back.

    The polish's last step gives every spot the size it has room for (``sizes.fit_sizes``):
    full size where it can be, else the largest size its gap allows, never below
    the smallest; the spots drawn smaller are listed in the result.  ``stop`` is asked
    during the polish: when it answers True the layout is given up (``GivenUp``).
    """
    from .analyse import analyse_picture
    from .sizes import fit_sizes, smaller_spots

    t0 = time.perf_counter()
    pic = trivial_picture(pmap, width, height)
    if pic is None:
        margin = min(width, height) * 0.06
        coords, tri = grid_drawing(pmap, outer, prepared)
        pic = picture_from_grid(pmap, coords, tri, width, height, margin)
    # the grid drawing counts as one step over its points; the polish adds its own steps
    work = float(len(pic.spots) + sum(len(c.pieces) for c in pic.curves))
    a = analyse_picture(pic)
    if a.position.canonical() != expected:
        raise PictureError("internal: the grid drawing does not give the position back")
    if polish and pic.curves:
        from .relax import polish as polish_picture
        from .skeleton import check_stop

        try:
            polished, polish_work = polish_picture(pic, expected, work=work_bound, stop=stop)
            work += polish_work
            b = analyse_picture(polished)
            if b.position.canonical() == expected:
                pic, a = polished, b
        except GivenUp:
            raise
        except PictureError:
            pass  # the straight grid drawing stays: it is certified and reads back right
        check_stop(stop)
        pic, a = enlarge_small_parts(pic, expected, a)
        pic, a = fit_sizes(pic, a, d0)
    pic.meta = (
        {"game": {"hidden_spots": [i for i, h in enumerate(pmap.hidden) if h]}} if any(pmap.hidden) else {}
    )
    return LayoutResult(pic, outer, a.min_clearance, time.perf_counter() - t0, smaller_spots(pic), work)


#: In a worker process: the shared work limits (``work.metered`` units) of the layouts of one Z, by
#: slot; the parent sets a straggler's limit and the worker gives it up once its work passes it.
_LIMITS: Sequence[float] | None = None


def _share_limits(limits: Sequence[float]) -> None:
    global _LIMITS
    _LIMITS = limits


def _layout_job(args: tuple[int, dict]) -> tuple[LayoutResult | str, float, bool]:
    """A worker's layout: the result or why it failed, the work it did, and whether it was given up."""
    slot, task = args
    limits = _LIMITS
    given_up = False
    out: LayoutResult | str
    with metered(math.inf) as meter:
        stop = None if limits is None else (lambda: meter.done > limits[slot])
        try:
            out = layout_one(**task, stop=stop)
        except GivenUp as e:
            out, given_up = str(e), True
        except PictureError as e:
            out = str(e)
    return out, float(meter.done), given_up


def straggler_limit(done: list[float], total: int) -> float:
    """How much work a layout may do: unbounded until half the layouts are done, then twice the
    median work of the finished ones, drawn or failed (Alfeld §4.6), and at least
    ``STRAGGLER_FLOOR``.  Work, not seconds: which layouts are given up does not depend on the
    machine or its load."""
    if not done or 2 * len(done) < total:
        return math.inf
    return max(2.0 * statistics.median(done), STRAGGLER_FLOOR)


def run_layouts(
    pmap: PlanarMap,
    expected: str,
    candidates: list[int],
    width: float,
    height: float,
    jobs: int,
    parallel: bool,
    polish: bool = True,
    work_bound: float = POLISH_WORK,
    d0: float = MIN_CLEARANCE,
) -> Generator[Tried, None, None]:
    """One layout per candidate outer region, at most ``jobs`` at a time, yielded as each ends.

    Stragglers are given up by comparison, not by a fixed time: once half the layouts are
    done, one whose work (``work.metered`` units) passes twice the median work of the
    finished ones gives itself up and is yielded as failed (``straggler_limit``).  In worker
    processes (``parallel``) the limits are shared memory the worker's polish looks at.
    Closing the iterator (the caller has what it needs) ends the workers at once.
    """
    prepared = embed(pmap) if pmap.edges else None
    total = len(candidates)
    done: list[float] = []
    if not parallel:
        for outer in candidates:
            limit = straggler_limit(done, total)
            start = time.monotonic()
            drawn: LayoutResult | None = None
            reason = ""
            given_up = False
            with metered(math.inf) as meter:  # the work is counted here; nothing is yielded inside
                stop = None if math.isinf(limit) else (lambda m=meter, lim=limit: m.done > lim)
                try:
                    drawn = layout_one(
                        pmap, expected, outer, width, height, polish, prepared, work_bound, d0, stop
                    )
                except GivenUp:
                    given_up = True
                except PictureError as e:
                    reason = str(e)
            took, work = time.monotonic() - start, float(meter.done)
            if given_up:
                yield Tried(outer, None, _gave_up(work, limit), took, work)
                continue
            done.append(work)
            yield Tried(outer, drawn, reason, took, work)
        return
    ctx = multiprocessing.get_context()
    limits = ctx.RawArray("d", [math.inf] * total)
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, total), mp_context=ctx, initializer=pool_initializer,
        initargs=(os.getpid(), _share_limits, limits),
    )  # fmt: skip
    waiting = list(enumerate(candidates))
    running: dict[Future, tuple[int, float]] = {}
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                slot, outer = waiting.pop(0)
                task = dict(
                    pmap=pmap, expected=expected, outer=outer, width=width, height=height, polish=polish,
                    prepared=prepared, work_bound=work_bound, d0=d0,
                )  # fmt: skip
                limits[slot] = straggler_limit(done, total)
                running[pool.submit(_layout_job, (slot, task))] = (slot, time.monotonic())
            finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for f in finished:
                slot, start = running.pop(f)
                r: LayoutResult | str
                work, given_up = 0.0, False
                try:
                    r, work, given_up = f.result()
                except Exception as e:  # a worker that died: this layout failed
                    r = f"the worker drawing it failed: {e}"
                took = time.monotonic() - start
                outer = candidates[slot]
                if given_up:
                    yield Tried(outer, None, _gave_up(work, limits[slot]), took, work)
                    continue
                done.append(work)
                drawn_r, reason_r = (None, r) if isinstance(r, str) else (r, "")
                yield Tried(outer, drawn_r, reason_r, took, work)
            limit = straggler_limit(done, total)
            for slot, _start in running.values():
                limits[slot] = limit
    finally:
        if running or waiting:  # Ctrl-C, or the caller has what it needs: the rest are not waited for
            end_pool(pool)
        else:
            pool.shutdown()


def _gave_up(work: float, limit: float) -> str:
    return f"given up after {work:,.0f} units of work, twice the median layout's {limit / 2:,.0f}"


def _ordered(pmap: PlanarMap, first: int | None) -> list[int]:
    candidates = candidate_order(pmap) if pmap.regions else [0]
    if first is not None and first in candidates:
        candidates.remove(first)
        candidates.insert(0, first)
    return candidates if pmap.edges else candidates[:1]


def candidate_order(pmap: PlanarMap) -> list[int]:
    """Regions to try outside, most promising first: the longest walks (most corners) first.

    The shift method gives the outer face the most room, so a region with much on
    its boundary (the networkx default, too) is usually the best outside.
    """
    size = [sum(len(w[1]) for w in region) for region in pmap.regions]
    return sorted(range(len(pmap.regions)), key=lambda r: (-size[r], r))


def layout_map(
    pmap: PlanarMap,
    expected: str,
    width: float = 800,
    height: float = 600,
    outer: int | None = None,
    jobs: int | None = None,
    polish: bool = True,
    progress=None,
    budget: float = LAYOUT_WORK,
    enough: float = MIN_CLEARANCE,
    first: int | None = None,
) -> LayoutResult:
    """A position drawn afresh (``sprouts layout``, a game's start): layouts with different
    regions outside, in rounds of ``jobs``, the widest least clearance kept.

    With ``outer`` given only that region is tried.  Otherwise the regions are
    tried most promising first, a round at a time, and this stops after the first
    round that drew a layout with least clearance ``≥ enough``, or once the layouts
    drawn have done ``budget`` point-steps of polish in all (0: try every region).
    Work, not seconds: the same position gives the same picture on any machine and
    under any load, with any number of ``jobs`` (rounds are whole).  ``first`` (the
    present outside, for a picture) is tried first.  Z for a move has its own rule
    (``layout_for_move``).
    """
    n_regions = max(1, len(pmap.regions))
    if outer is not None and not 0 <= outer < n_regions:
        raise PictureError(f"there is no region {outer + 1} to put outside (the map has {n_regions})")
    candidates = [outer] if outer is not None else _ordered(pmap, first)
    jobs = max(1, jobs or usable_cpus())
    # small maps are drawn faster here than worker processes start
    parallel = jobs > 1 and len(candidates) > 1 and len(pmap.edges) >= SMALL_MAP
    rounds = jobs if parallel else 1
    results: list[LayoutResult] = []
    errors: list[str] = []
    runs = run_layouts(pmap, expected, candidates, width, height, jobs, parallel, polish)
    try:
        for k, t in enumerate(runs, 1):
            if t.result is None:
                errors.append(t.reason)
            else:
                results.append(t.result)
            if progress:
                progress(k, len(candidates))
            if k % rounds and k < len(candidates):
                continue
            best = max((r.min_clearance for r in results), default=-math.inf)
            if best >= enough or (budget and sum(r.work for r in results) >= budget):
                break
    finally:
        runs.close()
    if not results:
        reason = errors[0] if errors else "no region to put outside"
        raise PictureError(f"no layout could be drawn: {reason}")
    return max(results, key=lambda r: (r.min_clearance if math.isfinite(r.min_clearance) else 1e18, -r.outer))


def region_like(pmap: PlanarMap, spots: set[int]) -> int | None:
    """The region of the map whose boundaries share most with ``spots`` (by Jaccard's measure):
    where the present outside is after a move (it may have been split or joined)."""
    best, best_score = None, 0.0
    for r, region in enumerate(pmap.regions):
        mine = {pmap.spot_id[v] for w in region for v in pmap.walk_spots(w) if pmap.spot_id[v] >= 0}
        union = mine | spots
        score = len(mine & spots) / len(union) if union else 0.0
        if score > best_score:
            best, best_score = r, score
    return best


def least_shrinking(results: list[LayoutResult]) -> LayoutResult:
    """Of layouts with spots drawn smaller, the one that shrinks least: its smallest spot the
    largest, then the fewest spots drawn smaller, then the widest least clearance."""
    return max(results, key=lambda r: (round(r.least_size, 6), -len(r.smaller), r.min_clearance, -r.outer))


def widest(results: list[LayoutResult]) -> LayoutResult:
    return max(results, key=lambda r: (r.min_clearance, -r.outer))


def layout_for_move(
    pmap: PlanarMap,
    expected: str,
    width: float,
    height: float,
    bar: float | None,
    smaller: bool = False,
    jobs: int = 1,
    outside: set[int] | None = None,
    d0: float = MIN_CLEARANCE,
    log: Callable[[str], None] | None = None,
) -> LayoutResult:
    """Z for a move (Alfeld §4.6): one layout per region as the outside, the present outside
    first, at most ``jobs`` at a time, stopping as soon as the move is drawn.

    * A layout drawn at full size with least clearance ``≥ bar`` ends Z at once
      (``bar`` is the least clearance the picture had before, when that was at least
      ``d0``; ``None`` for a broken picture: the first layout drawn at all ends Z).
    * A layout whose spots cannot all have their full size fails, unless ``smaller``
      (the • rung) allows it: then it is kept aside with its spots drawn smaller,
      and one meeting the bar ends Z like one at full size.
    * Once a round (``jobs`` layouts) is complete: the widest layout drawn at full
      size if there is one, else the kept-aside one that shrinks least
      (``least_shrinking``); none at all: Z gives up, "the picture has run out of room".

    ``log`` gets one line per layout: drawn, kept aside, or why it failed.
    """
    candidates = _ordered(pmap, region_like(pmap, outside) if outside else None)
    jobs = max(1, jobs)
    parallel = jobs > 1 and len(candidates) > 1 and len(pmap.edges) >= SMALL_MAP
    round_size = min(jobs, len(candidates))
    full: list[LayoutResult] = []
    kept: list[LayoutResult] = []
    finished = 0
    runs = run_layouts(pmap, expected, candidates, width, height, jobs, parallel, d0=d0)
    try:
        for t in runs:
            finished += 1
            r = t.result
            where = f"Z, region {t.outer + 1} outside ({t.seconds:.1f} s)"
            if r is None:
                line = f"{where}: {t.reason}"
            elif r.smaller and not smaller:
                line = f"{where}: no room for the full size of {_spot_words(r.smaller)}"
                r = None
            elif r.smaller:
                kept.append(r)
                line = f"{where}: kept aside, {_spot_words(r.smaller)} drawn smaller (down to "
                line += f"{r.least_size:.1f} px), least clearance {r.min_clearance:.1f} px"
            else:
                full.append(r)
                line = f"{where}: drawn, least clearance {r.min_clearance:.1f} px"
            if log:
                log(line)
            if r is not None and (bar is None or r.min_clearance >= bar):
                return r
            if finished >= round_size:
                break
    finally:
        runs.close()
    if full:
        return widest(full)
    if kept:
        return least_shrinking(kept)
    tried = f"{finished} tried" + ("" if smaller else ", every spot at its full size")
    raise PictureError(f"the picture has run out of room: no layout could be drawn ({tried})")


def _spot_words(spots: tuple[int, ...]) -> str:
    names = ", ".join(str(s + 1) for s in spots)
    return f"spot {names}" if len(spots) == 1 else f"spots {names}"


def layout_position(
    position: Position | str,
    width: float = 800,
    height: float = 600,
    outer: int | None = None,
    jobs: int | None = None,
    polish: bool = True,
    budget: float = LAYOUT_WORK,
) -> Picture:
    """Draw a position afresh (Z); its picture reads back as the same position (checked)."""
    p = Position.from_string(position) if isinstance(position, str) else position
    pmap = realise(p)
    return layout_map(pmap, p.canonical(), width, height, outer, jobs, polish, budget=budget).picture


# --------------------------------------------------------------------------- small parts

#: A part whose drawing spans less than this share of the area's smaller side is enlarged.
SMALL_PART_SHARE = 0.16
#: Enlargement factors tried, largest first (each checked by reading the position back).
ENLARGE_FACTORS = (3.0, 2.4, 1.9, 1.5, 1.25)


def part_extents(pic: Picture) -> list[tuple[list[int], list[int], np.ndarray, np.ndarray]]:
    """Each connected piece of the drawing with curves: its spots, its curves, and its bounding box."""
    sets = UnionFind(len(pic.spots))
    for c in pic.curves:
        sets.union(c.a, c.b)
    find = sets.find
    pieces: dict[int, tuple[list[int], list[int]]] = {}
    for e, c in enumerate(pic.curves):
        pieces.setdefault(find(c.a), ([], []))[1].append(e)
    for v in range(len(pic.spots)):
        if find(v) in pieces:
            pieces[find(v)][0].append(v)
    out = []
    for spots, curves in pieces.values():
        pts = np.concatenate([pic.spots[spots], *(pic.curves[e].pieces.reshape(-1, 2) for e in curves)])
        out.append((spots, curves, pts.min(axis=0), pts.max(axis=0)))
    return out


def enlarge_small_parts(pic: Picture, expected: str, analysis: Analysis) -> tuple[Picture, Analysis]:
    """Draw small pieces larger where there is room: a piece much smaller than the picture is
    scaled about its centre by the largest factor that keeps the picture certified, the same
    position, and its least clearance (so nothing is drawn tiny beside a large part).

    Scaling is affine, so a piece's curves stay smooth and its own shape is kept; whether it
    now touches anything else is decided by reading the whole picture back.
    """
    from .analyse import analyse_picture

    goal = SMALL_PART_SHARE * min(pic.width, pic.height)
    parts = part_extents(pic)
    if len(parts) < 2:
        return pic, analysis
    for spots, curves, lo, hi in sorted(parts, key=lambda p: float(np.hypot(*(p[3] - p[2])))):
        size = float(np.hypot(*(hi - lo)))
        if size >= goal or size <= 0:
            continue
        centre = (lo + hi) / 2
        for factor in ENLARGE_FACTORS:
            f = min(factor, goal / size)
            if f <= 1.05:
                break
            trial = pic.copy()
            trial.spots[spots] = centre + f * (trial.spots[spots] - centre)
            for e in curves:
                c = trial.curves[e]
                trial.curves[e] = Curve(c.a, c.b, centre + f * (c.pieces - centre), c.h * f, c.player)
            if not trial.bounds_ok(margin=float(np.max(trial.sizes)) if len(trial.sizes) else 0.0):
                continue
            try:
                checked = analyse_picture(trial)
            except PictureError:
                continue
            least = min(analysis.min_clearance, goal)
            if checked.position.canonical() == expected and checked.min_clearance >= least:
                pic, analysis = trial, checked
                break
    return pic, analysis
