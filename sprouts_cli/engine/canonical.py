"""The exact canonical form of a position (Alfeld §2.6).

Two position strings get the same canonical form exactly when they are the same
position up to renaming letters, rotating boundaries, reordering boundaries, regions
and lands, and reading each region either way (reversing every boundary of one region
names the same game; mirroring the whole land is one such choice).  It is a true
canonical form, not a heuristic: each reading is coded in polynomial time, with no
branch and bound, so no work budget and no greedy fallback either
(``docs/notation.md`` says why), and the readings left to try are usually one to four.

How.  After cleaning (``parts.clean``), a land is made of regions and boundaries, and
its capital letters join boundaries of different regions.  Call a set of boundaries
joined by capitals a *piece* (the live part of one connected piece of the drawing).
In any position that can be drawn, the graph whose nodes are the regions and the
pieces, with an edge for every boundary (piece P has a boundary in region R), is a
tree: a piece that lies inside a region can only be reached from the rest of the
drawing through that region.  So:

1. the tree is canonised by its centre, as in the tree isomorphism algorithm of
   Aho, Hopcroft and Ullman (*The Design and Analysis of Computer Algorithms*, 1974,
   §3.2): a region's code is the sorted list of its child pieces' codes;
2. a piece, entered through its boundary in the parent region, is coded by the least
   breadth-first traversal over its possible starting corners, in the manner of
   Weinberg's code for planar maps (W. Weinberg, *A simple and efficient algorithm
   for determining isomorphism of planar triply connected graphs*, IEEE Trans.
   Circuit Theory 13, 1966): from a starting corner, each capital's other corner
   fixes where the next boundary starts, so the whole piece is read in one fixed way;
3. both orientations are coded (mirroring reverses every boundary) and the lesser
   code wins; a land is coded so for each reading of its regions that
   ``directions.readings`` leaves, and the least code over them all wins.

The tree and its pieces are coded in ``land_tree.py``.  The string is then written
from the winning code: regions in depth-first order from the centre, boundaries of a
region sorted, letters named by first appearance.  It need not be drawable as written
(its regions may be read in directions that do not agree); the notation's reader turns
them to agree (``drawing.py``).  Every choice made in writing depends only on codes, so
equal positions are written the same.

Speed.  Most lands need less than the whole tree: a land of one region is its sorted
boundaries (``_single_region``), and a land with one piece of several boundaries is a
star around it (``land_tree._one_piece_land``); both give the tree's codes and text
(``general_land_code`` is the reference in the tests).  The mirror image is skipped
when mirroring only rotates the boundaries.  Per-boundary work is cached by pattern
(``boundary_patterns.py``), and whole lands by exact (not canonical) keys in
``land_code_and_text``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import NestingError
from ..unionfind import UnionFind
from . import backend
from .boundary_patterns import (
    K_CAP,
    K_SMALL,
    K_TWO,
    Code,
    _both_rotations,
    _first,
    _least_starts,
    _mirror_invariant,
    _normalised,
)
from .caches import BoundedCache, clear_caches
from .data import Boundary, Region
from .directions import readings
from .land_tree import (
    _capital_joins,
    _Coder,
    _one_piece_land,
    _pieces,
    _Shape,
    _spot_kinds,
    _write_boundaries,
)

if TYPE_CHECKING:  # pragma: no cover
    from .position import Position

#: Lands kept by each cache of ``land_code_and_text`` (1–3 kB each with its key: 20–40 MB in all).
LAND_CACHE_SIZE = 8_192
#: A land as a cache key: its regions, and the lives of the spots (met along them, or in spot order).
LandKey = tuple[tuple[Region, ...], tuple[int, ...]]
_BY_LAND: BoundedCache[LandKey, tuple[Code, str]] = BoundedCache(LAND_CACHE_SIZE, holds_codes=True)
_BY_PATTERN: BoundedCache[LandKey, tuple[Code, str]] = BoundedCache(LAND_CACHE_SIZE, holds_codes=True)


def nesting_problem(p: Position) -> str | None:
    """Why the regions of ``p`` (one land as written, uncleaned) cannot be drawn, or None."""
    regions = list(p.regions)
    where: dict[int, list[int]] = {}
    for ri, r in enumerate(regions):
        for b in r:
            for s in b:
                where.setdefault(s, []).append(ri)
    kinds = {
        s: (K_CAP if p.lives[s] == 1 and len(rs) == 2 and rs[0] != rs[1] else K_TWO)
        for s, rs in where.items()
    }
    seqs = [b for r in regions for b in r]
    region_of = [ri for ri, r in enumerate(regions) for _ in r]
    try:
        _pieces(seqs, region_of, len(regions), _capital_joins(seqs, kinds))
    except NestingError as e:
        return str(e)
    return None


def _single_region(region: tuple[Boundary, ...], lives: Sequence[int]) -> tuple[Code, str]:
    """A land of one region: its boundaries are free pieces, so sorting their least
    rotations is the whole work (the same code and text as the general path)."""
    kinds: dict[int, int] = {}
    for b in region:
        for s in b:
            lv = lives[s]
            if lv == 1:
                kinds[s] = K_SMALL if s in kinds else K_TWO
            else:
                kinds[s] = 3 - lv
    fwd: list[tuple[tuple[int, ...], Boundary, int]] = []
    mir: list[tuple[tuple[int, ...], Boundary, int]] = []
    for b in region:
        if len(b) == 1:
            t = (kinds[b[0]],)
            fwd.append((t, b, 0))
            mir.append((t, b, 0))
        else:
            bf, sf, bm, sm = _both_rotations(b, kinds)
            fwd.append((bf, b, sf))
            mir.append((bm, b[::-1], sm))
    fwd.sort(key=_first)
    mir.sort(key=_first)
    best = mir if [it[0] for it in mir] < [it[0] for it in fwd] else fwd
    code = (0, tuple((it[0],) for it in best))
    return code, _write_boundaries([(seq, start) for _t, seq, start in best], kinds, {})


def land_code_and_text(
    regions: list[tuple[Boundary, ...]], lives: tuple[int, ...], layout: bool = False
) -> tuple[Code | bytes, str]:
    """The canonical code of one cleaned land and its canonical string.

    Two LRU caches stand in front of the work.  The first is keyed by the land
    exactly as given (its regions and the lives met along them): a land that no move
    touched keeps its spot numbers, so successive positions of a game and the children
    of one position share most of their lands.  The second is keyed by the same land
    with its spots renumbered in order of first appearance, or with ``layout`` laid out
    in a standard way (``_sorted_land``): not a canonical key (one position may have
    several), but an exact one.  Renumbering catches the same land reached with other
    spot numbers; the layout also catches boundaries and regions in another order and
    boundaries read from another corner.  The layout costs more than it saves on single
    positions (from cold: 13,500 forms per second instead of 15,500 on 10-spot games)
    and saves more than it costs in a search, which meets the same lands again and
    again (``0*10``: 8% less time), so the reduced forms (the solvers' keys) use it.
    """
    key = (tuple(regions), tuple([lives[s] for r in regions for b in r for s in b]))
    hit = _BY_LAND.get(key)
    if hit is not None:
        _BY_LAND.move_to_end(key)
        return hit
    if len(regions) == 1:  # cheaper to code than to renumber and look up again
        hit = _single_region(regions[0], lives)
    else:
        kernels = backend.compiled
        if kernels is not None:
            coded = kernels.land_code_and_text(regions, lives)
            if coded is not None:
                # a reduced form's variant (layout) is coded once per land: reduce.py keeps the
                # result by the land's code, and keeping it here too cost 12 MB in 0*12
                return coded if layout else _BY_LAND.remember(key, coded)
        key2 = _sorted_land(regions, lives) if layout else _renumbered_land(regions, lives)
        hit = _BY_PATTERN.get(key2)
        if hit is None:
            hit = _BY_PATTERN.remember(key2, land_code(list(key2[0]), key2[1]))
        else:
            _BY_PATTERN.move_to_end(key2)
    return _BY_LAND.remember(key, hit)


def land_invariant_key(regions: list[Region], lives: Mapping[int, int] | tuple[int, ...]) -> bytes | None:
    """The canonical code of a cleaned land as bytes, from the compiled kernels, or None.

    A complete invariant: equal keys exactly for equal canonical strings, so one cache
    entry serves every way of writing a land.  None while the kernels are off, and for
    a land they cannot code (the Python path then reports what is wrong with it).
    """
    kernels = backend.compiled
    if kernels is None:
        return None
    return kernels.land_invariant(regions, lives) or None


def _renumbered_land(
    regions: list[tuple[Boundary, ...]], lives: Sequence[int]
) -> tuple[tuple[tuple[Boundary, ...], ...], tuple[int, ...]]:
    """The land with its spots renumbered as they first appear, and the lives of the spots."""
    ids: dict[int, int] = {}
    renumbered = tuple(tuple(tuple([ids.setdefault(s, len(ids)) for s in b]) for b in r) for r in regions)
    return renumbered, tuple([lives[s] for s in ids])


def _sorted_land(
    regions: list[tuple[Boundary, ...]], lives: Sequence[int]
) -> tuple[tuple[tuple[Boundary, ...], ...], tuple[int, ...]]:
    """The land with each boundary read from its least corner, boundaries and regions sorted
    by those readings, and spots renumbered as they first appear; and the lives of the spots.

    Every step is a symmetry of the position (rotating a boundary, reordering boundaries
    and regions, renaming spots), so the result is the same land; ties keep the order
    given, so equal lands can still come out differently (one search in three of those
    that renumbering alone missed: ``0*10`` codes 20,000 lands instead of 30,800).
    """
    where: dict[int, int] = {}
    twice: set[int] = set()
    for ri, r in enumerate(regions):
        for b in r:
            for s in b:
                o = where.get(s)
                if o is None:
                    where[s] = ri
                else:
                    twice.add(s)
                    if o != ri:
                        where[s] = -1
    kinds: dict[int, int] = {}
    for s, ri in where.items():
        lv = lives[s]
        kinds[s] = 3 - lv if lv >= 2 else K_CAP if ri < 0 else K_SMALL if s in twice else K_TWO
    laid: list[tuple[tuple[tuple[int, ...], ...], Region]] = []
    for r in regions:
        items: list[tuple[tuple[int, ...], Boundary]] = []
        for b in r:
            if len(b) == 1:
                items.append(((kinds[b[0]],), b))
            else:
                low, starts = _least_starts(_normalised(b, 0, kinds))
                c = starts[0]
                items.append((low, b[c:] + b[:c] if c else b))
        items.sort(key=_first)
        laid.append((tuple([it[0] for it in items]), tuple([it[1] for it in items])))
    laid.sort(key=_first)
    ids: dict[int, int] = {}
    renumbered = tuple(tuple(tuple([ids.setdefault(s, len(ids)) for s in b]) for b in r) for _k, r in laid)
    return renumbered, tuple([lives[s] for s in ids])


def clear_land_cache() -> None:
    """Forget every cached land, reduced land and boundary pattern (benchmarks time the work this way)."""
    clear_caches()


def land_code(regions: list[tuple[Boundary, ...]], lives: Sequence[int]) -> tuple[Code, str]:
    """The canonical code of one cleaned land and its canonical string, computed afresh.

    One-region lands and lands with one piece of several boundaries take direct
    paths; the others build the region–piece tree (``general_land_code``).  All give
    the same code and text as the general path (``tests/test_canonical.py``).
    """
    if len(regions) == 1:
        return _single_region(regions[0], lives)
    prepared = _prepare(regions, lives)
    fast = _one_piece_land(*prepared)
    if fast is not None:
        return fast
    return _tree_code(_Shape(*prepared))


def general_land_code(regions: list[tuple[Boundary, ...]], lives: Sequence[int]) -> tuple[Code, str]:
    """``land_code`` through the region–piece tree always (the reference for the direct paths)."""
    return _tree_code(_Shape(*_prepare(regions, lives)))


Prepared = tuple[
    list[Boundary],
    list[int],
    int,
    dict[int, int],
    dict[int, tuple[tuple[int, int], tuple[int, int]]],
    list[tuple[int, ...]],
]


def _prepare(regions: list[tuple[Boundary, ...]], lives: Sequence[int]) -> Prepared:
    """Boundaries in one list, their regions, the kinds of spots, capitals' corners, patterns."""
    seqs: list[Boundary] = []
    region_of: list[int] = []
    for ri, r in enumerate(regions):
        seqs += r
        region_of += [ri] * len(r)
    kinds, occ = _spot_kinds(seqs, region_of, lives)
    patterns = [_normalised(b, 0, kinds) for b in seqs]
    return seqs, region_of, len(regions), kinds, occ, patterns


def _tree_code(shape: _Shape) -> tuple[Code, str]:
    """Code both orientations from the tree's centre; the lesser is written."""
    # Two centres are a region and a piece side by side, and a region's code (0, ...)
    # is less than any piece's (1, ...): only the first centre can win.
    node = shape.centres[0]
    coder = _Coder(shape, False)
    best = coder.root_code(node)
    if not _mirror_invariant(shape.seqs):
        mirror = _Coder(shape, True)
        code = mirror.root_code(node)
        if code < best:
            best, coder = code, mirror
    return best, coder.write(node)


def _alive(region: tuple[Boundary, ...], lives: tuple[int, ...]) -> bool:
    """Whether a move can be made in ``region``: its distinct spots have two lives."""
    first = -1
    for b in region:
        for s in b:
            v = lives[s]
            if v:
                if first < 0:
                    if v >= 2:
                        return True
                    first = s
                elif s != first:
                    return True
    return False


def clean_lands(p: Position) -> list[list[tuple[Boundary, ...]]]:
    """The lands of ``p`` after cleaning, each a list of regions (one pass, no Positions).

    A region is alive when two different live spots are in it or one spot with two
    lives (dead spots add nothing, so this is read before cleaning, and most regions
    of a late position are dropped after one look).  A live region is kept as the
    same tuple when nothing in it is dead.
    """
    lives = p.lives
    regions: list[tuple[Boundary, ...]] = []
    for r in p.regions:
        if not _alive(r, lives):
            continue
        bs: list[Boundary] | None = None
        for i, b in enumerate(r):
            if bs is None:
                for s in b:
                    if not lives[s]:
                        break
                else:
                    if b:
                        continue
                bs = list(r[:i])
            b = tuple([s for s in b if lives[s]])
            if b:
                bs.append(b)
        regions.append(r if bs is None else tuple(bs))
    if len(regions) <= 1:
        return [regions] if regions else []
    first: dict[int, int] = {}
    sets = UnionFind(len(regions))
    for ri, r in enumerate(regions):
        for b in r:
            for s in b:
                o = first.setdefault(s, ri)
                if o != ri:
                    sets.union(o, ri)
    return [[regions[ri] for ri in group] for group in sets.groups()]


def canonical_lands(p: Position) -> list[str]:
    """The canonical strings of the lands of ``p``, sorted: each land's least code over the
    readings of its regions that ``directions.readings`` leaves (in one compiled call when
    the kernels are on: ``kernels.position_lands``)."""
    kernels = backend.compiled
    if kernels is not None:
        lands: list[str] | None = kernels.position_lands(p.regions, p.lives)
        if lands is not None:
            return lands
    return _lands_in_python(p)


def _lands_in_python(p: Position) -> list[str]:
    """``canonical_lands`` by ``canonical.py`` alone (the reference; and the path that explains
    a land the kernels cannot code)."""
    out = []
    lives = p.lives
    for land in clean_lands(p):
        if len(land) > 1:
            backend.switch_on_when_due()
        out.append(least_reading_text(land, lives))
    out.sort()
    return out


def least_reading_text(land: list[Region], lives: tuple[int, ...], layout: bool = False) -> str:
    """The canonical string of one cleaned land: the text of its least code over its readings
    (``layout`` as ``land_code_and_text`` takes it)."""
    options = readings(land, lives)
    if len(options) == 1:
        return land_code_and_text(options[0], lives, layout)[1]
    coded = [land_code_and_text(reading, lives, layout) for reading in options]
    if len({type(code) for code, _ in coded}) > 1:  # a reading the kernels could not code
        coded = [land_code(reading, lives) for reading in options]
    return min(coded, key=_first)[1]


def canonical_form(p: Position) -> str:
    """The exact canonical form: canonical lands joined by ``+``, then the heaps (``!`` if none)."""
    text: str | None = None
    kernels = backend.compiled
    if kernels is not None:  # the lands already joined, as the kernel writes them
        text = kernels.position_lands_text(p.regions, p.lives)
    if text is None:
        text = "+".join(_lands_in_python(p))
    parts = [text] if text else []
    parts += [f"*{h}" for h in p.heaps]
    return "+".join(parts) or "!"
