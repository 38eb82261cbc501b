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

The string is then written from the winning code: regions in depth-first order from
the centre, boundaries of a region sorted, letters named by first appearance.  It
need not be drawable as written (its regions may be read in directions that do not
agree); the notation's reader turns them to agree (``drawing.py``).
Every choice made in writing depends only on codes, so equal positions are written
the same.

Speed.  Most lands need less than the whole tree: a land of one region is its sorted
boundaries (``_single_region``), and a land with one piece of several boundaries is a
star around it (``_one_piece_land``); both give the tree's codes and text
(``general_land_code`` is the reference in the tests).  The mirror image is skipped
when mirroring only rotates the boundaries.  Per-boundary work is cached by pattern,
and whole lands by exact (not canonical) keys in ``land_code_and_text``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from ..errors import NestingError
from ..unionfind import UnionFind
from . import backend
from .caches import BoundedCache, clear_caches
from .data import Boundary, Region
from .directions import readings
from .notation import capital_letter, small_letter

if TYPE_CHECKING:  # pragma: no cover
    from .position import Position

# Token values inside codes: 0, 1, 2 as written; capitals 3, 4, ...; small letters after.
K_ZERO, K_ONE, K_TWO = 0, 1, 2
K_CAP = 3
K_SMALL = 4
SMALL_BASE = 1 << 40

#: A canonical code: ints and nested codes, compared as tuples (lexicographically).
Code: TypeAlias = "tuple[int | Code, ...]"

#: Lands kept by each cache of ``land_code_and_text`` (1–3 kB each with its key: 20–40 MB in all).
LAND_CACHE_SIZE = 8_192
#: A land as a cache key: its regions, and the lives of the spots (met along them, or in spot order).
LandKey = tuple[tuple[Region, ...], tuple[int, ...]]
_BY_LAND: BoundedCache[LandKey, tuple[Code, str]] = BoundedCache(LAND_CACHE_SIZE, holds_codes=True)
_BY_PATTERN: BoundedCache[LandKey, tuple[Code, str]] = BoundedCache(LAND_CACHE_SIZE, holds_codes=True)

#: Boundary patterns kept by each pattern cache (a few hundred bytes each).
PATTERN_CACHE_SIZE = 200_000
#: Least readings of free boundaries and their mirror images, by pattern (``_both_rotations``).
Rotations = tuple[tuple[int, ...], int, tuple[int, ...], int]
_FREE_CACHE: BoundedCache[tuple[int, ...], Rotations] = BoundedCache(PATTERN_CACHE_SIZE)
#: Least reading of a boundary pattern and the starts giving it (``_least_starts``).
_STARTS_CACHE: BoundedCache[tuple[int, ...], tuple[tuple[int, ...], list[int]]] = BoundedCache(
    PATTERN_CACHE_SIZE
)
#: Pattern of a boundary's mirror image by its pattern (``_mirror_pattern``).
_MIRROR_CACHE: BoundedCache[tuple[int, ...], tuple[int, ...]] = BoundedCache(PATTERN_CACHE_SIZE)

_DIGITS = "012"



class _Shape:
    """What does not depend on orientation: kinds of spots, pieces, the tree, its centres."""

    __slots__ = (
        "centres",
        "comp_bnds",
        "kinds",
        "n_regions",
        "occ",
        "patterns",
        "region_comps",
        "region_of",
        "seqs",
    )

    def __init__(
        self,
        seqs: list[Boundary],
        region_of: list[int],
        n_regions: int,
        kinds: dict[int, int],
        occ: dict[int, tuple[tuple[int, int], tuple[int, int]]],
        patterns: list[tuple[int, ...]],
    ) -> None:
        self.seqs = seqs
        self.region_of = region_of
        self.n_regions = n_regions
        self.kinds = kinds
        self.occ = occ
        self.patterns = patterns
        joins = [(b1, b2) for (b1, _c1), (b2, _c2) in occ.values()]
        self.comp_bnds, self.region_comps = _pieces(seqs, region_of, n_regions, joins)
        self.centres = _centres(self.n_regions, self.region_comps, len(self.comp_bnds))


def _spot_kinds(
    seqs: list[Boundary], region_of: list[int], lives: Sequence[int]
) -> tuple[dict[int, int], dict[int, tuple[tuple[int, int], tuple[int, int]]]]:
    """How each spot is written (``K_*``), and the two corners of each capital.

    One pass over the corners: a spot with one life is a ``2`` when met once, a small
    letter when met twice in one region, a capital when met in two regions.
    """
    kinds: dict[int, int] = {}
    first: dict[int, tuple[int, int]] = {}
    occ: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {}
    for bi, b in enumerate(seqs):
        for c, s in enumerate(b):
            o = first.get(s)
            if o is None:
                first[s] = (bi, c)
                lv = lives[s]
                kinds[s] = K_ZERO if lv == 3 else K_ONE if lv == 2 else K_TWO
            elif lives[s] <= 1:
                if kinds[s] != K_TWO:
                    times = sum(q.count(s) for q in seqs)
                    raise ValueError(f"spot {s} has one life but occurs {times} times")
                if region_of[o[0]] == region_of[bi]:
                    kinds[s] = K_SMALL
                else:
                    kinds[s] = K_CAP
                    occ[s] = (o, (bi, c))
    return kinds, occ


class _Coder:
    """Codes of one land in one orientation (mirroring reverses every boundary)."""

    __slots__ = ("memo_comp", "memo_region", "memo_walk", "mirrored", "other", "patterns", "seqs", "shape")

    def __init__(self, shape: _Shape, mirrored: bool) -> None:
        self.shape = shape
        self.mirrored = mirrored
        if mirrored:
            self.seqs = [b[::-1] for b in shape.seqs]
            self.patterns = [_mirror_pattern(t) for t in shape.patterns]
            lens = [len(b) for b in shape.seqs]
            self.other = {
                s: ((b1, lens[b1] - 1 - c1), (b2, lens[b2] - 1 - c2))
                for s, ((b1, c1), (b2, c2)) in shape.occ.items()
            }
        else:
            self.seqs = shape.seqs
            self.patterns = shape.patterns
            self.other = shape.occ
        self.memo_comp: dict[tuple[int, int], tuple[Code, int, int]] = {}
        self.memo_region: dict[tuple[int, int], Code] = {}
        self.memo_walk: dict[tuple[int, int], tuple[list[int], list[int]]] = {}

    def other_corner(self, s: int, b: int) -> tuple[int, int]:
        """Where capital ``s`` occurs outside boundary ``b`` (in this orientation)."""
        o1, o2 = self.other[s]
        return o2 if o1[0] == b else o1

    def normalised(self, b: int, start: int) -> tuple[int, ...]:
        """Boundary ``b`` read from ``start``, letters named afresh as they come."""
        t = self.patterns[b]
        return _renamed(t[start:] + t[:start]) if start else t

    def best_starts(self, bnds: list[int]) -> list[tuple[int, int]]:
        """The roots worth trying among the corners of ``bnds`` (``_best_starts``)."""
        return _best_starts(self.patterns, bnds)

    def free_code(self, b: int) -> tuple[Code, int, int]:
        """Code of a piece that is one boundary with no capital: its least rotation.

        These are most pieces (lone spots, paths and trees hanging in a region).
        """
        best, starts = _least_starts(self.patterns[b])
        return (best,), b, starts[0]

    def traverse(self, b0: int, c0: int) -> tuple[list[int], list[int], list[tuple[int, ...]]]:
        """The reading of a piece from one starting corner (``_walk``)."""
        return _walk(self.seqs, self.shape.kinds, self.other, b0, c0)

    def comp_code(self, k: int, parent: int) -> tuple[Code, int, int]:
        """Code of piece ``k`` entered from region ``parent`` (-1: the root), with its start.

        The code is the least reading over the starting corners (only those whose
        first boundary reads least can win); each boundary's tokens are followed by
        the code of its region, except for the boundary in the parent region.
        """
        key = (k, parent)
        hit = self.memo_comp.get(key)
        if hit is not None:
            return hit
        bnds = self.shape.comp_bnds[k]
        if parent >= 0 and len(bnds) == 1:
            result = self.free_code(bnds[parent])
            self.memo_comp[key] = result
            return result
        roots = self.best_starts([bnds[parent]] if parent >= 0 else list(bnds.values()))
        region_of = self.shape.region_of
        best: Code | None = None
        best_root = roots[0]
        for b0, c0 in roots:
            order, starts, tokens = self.traverse(b0, c0)
            self.memo_walk[(b0, c0)] = (order, starts)
            parts: list[Code] = []
            for b, toks in zip(order, tokens, strict=True):
                parts.append(toks)
                r = region_of[b]
                if r != parent:
                    parts.append(self.region_code(r, k))
            code = tuple(parts)
            if best is None or code < best:
                best, best_root = code, (b0, c0)
        assert best is not None
        result = (best, best_root[0], best_root[1])
        self.memo_comp[key] = result
        return result

    def region_code(self, r: int, parent: int) -> Code:
        """Code of region ``r`` entered from piece ``parent``: its child pieces' codes, sorted."""
        key = (r, parent)
        hit = self.memo_region.get(key)
        if hit is None:
            hit = tuple(sorted(self.comp_code(k, r)[0] for k in self.shape.region_comps[r] if k != parent))
            self.memo_region[key] = hit
        return hit

    def root_code(self, node: int) -> Code:
        n = self.shape.n_regions
        if node < n:
            return (0, self.region_code(node, -1))
        return (1, self.comp_code(node - n, -1)[0])

    # -------------------------------------------------------------- writing
    def arrangement(self, node: int) -> list[list[tuple[int, int]]]:
        """Regions in writing order, each a list of (boundary, starting corner)."""
        out: list[list[tuple[int, int]]] = []
        n = self.shape.n_regions
        if node < n:
            self._write_region(node, -1, -1, 0, out)
        else:
            _code, b0, c0 = self.comp_code(node - n, -1)
            self._write_comp(node - n, -1, b0, c0, out)
        return out

    def _write_region(
        self, r: int, parent: int, pb: int, pstart: int, out: list[list[tuple[int, int]]]
    ) -> None:
        items: list[tuple[int | Code, int, Code, int, int, int]] = []
        if parent >= 0:
            items.append((self.normalised(pb, pstart), 0, (), pb, pstart, -1))
        for k in self.shape.region_comps[r]:
            if k != parent:
                code, b0, c0 = self.comp_code(k, r)
                items.append((code[0], 1, code, b0, c0, k))  # code[0]: the entry boundary, read afresh
        items.sort(key=lambda it: (it[0], it[1], it[2]))
        out.append([(it[3], it[4]) for it in items])
        for it in items:
            if it[5] >= 0:
                self._write_comp(it[5], r, it[3], it[4], out)

    def _write_comp(self, k: int, parent: int, b0: int, c0: int, out: list[list[tuple[int, int]]]) -> None:
        if parent >= 0 and len(self.shape.comp_bnds[k]) == 1:
            return  # a free piece: its one boundary was written with the parent region
        walk = self.memo_walk.get((b0, c0))
        order, starts = walk if walk is not None else self.traverse(b0, c0)[:2]
        region_of = self.shape.region_of
        for b, start in zip(order, starts, strict=True):
            r = region_of[b]
            if r != parent:
                self._write_region(r, k, b, start, out)

    def write(self, node: int) -> str:
        """The land written from the centre ``node``: letters named as they first appear."""
        kinds = self.shape.kinds
        seqs = self.seqs
        capitals: dict[int, str] = {}
        regions = []
        for region in self.arrangement(node):
            regions.append(_write_boundaries([(seqs[b], start) for b, start in region], kinds, capitals))
        return "|".join(regions)


def _write_boundaries(
    boundaries: list[tuple[Boundary, int]], kinds: Mapping[int, int], capitals: dict[int, str]
) -> str:
    """One region in the GLOP 2 dialect (as ``notation.join_written`` writes it).

    Boundaries are given with their starting corners; small letters are named per
    region, capitals per land (``capitals`` is shared by the land's regions), both in
    order of first appearance, and runs of lone ``0`` become ``0*k``.
    """
    smalls: dict[int, str] = {}
    items = []
    zeros = 0
    for seq, start in boundaries:
        if len(seq) == 1:
            kd = kinds[seq[0]]
            if kd == K_ZERO:
                zeros += 1
                continue
            if zeros:
                items.append("0" if zeros == 1 else f"0*{zeros}")
                zeros = 0
            if kd < K_CAP:
                items.append(_DIGITS[kd])
                continue
        elif zeros:
            items.append("0" if zeros == 1 else f"0*{zeros}")
            zeros = 0
        toks = []
        for s in seq[start:] + seq[:start] if start else seq:
            kd = kinds[s]
            if kd == K_CAP:
                name = capitals.get(s)
                if name is None:
                    name = capitals[s] = capital_letter(len(capitals) + 1)
                toks.append(name)
            elif kd == K_SMALL:
                name = smalls.get(s)
                if name is None:
                    name = smalls[s] = small_letter(len(smalls) + 1)
                toks.append(name)
            else:
                toks.append(_DIGITS[kd])
        items.append("".join(toks))
    if zeros:
        items.append("0" if zeros == 1 else f"0*{zeros}")
    return ".".join(items)


def _one_piece_land(
    seqs: list[Boundary],
    region_of: list[int],
    n_regions: int,
    kinds: dict[int, int],
    occ: dict[int, tuple[tuple[int, int], tuple[int, int]]],
    patterns: list[tuple[int, ...]],
) -> tuple[Code, str] | None:
    """The code and text of a land with one piece of several boundaries, or None.

    Most lands of more than one region are like this: one piece P meets every region
    along one boundary, and every other piece is a single free boundary hanging in a
    region.  The tree is then a star around P, so its centre and codes follow at once
    (the same codes and text as ``_Coder``, without building the tree):

    - a region's code, entered from P, is the sorted codes of its free boundaries;
    - when exactly one region R holds free boundaries the centres are R and P, and R
      (a region) wins; otherwise the centre is P.
    """
    joined = [False] * len(seqs)
    piece = [-1] * n_regions
    for (b1, _c1), (b2, _c2) in occ.values():
        for b in (b1, b2):
            if not joined[b]:
                joined[b] = True
                r = region_of[b]
                if piece[r] >= 0:
                    return None  # two joined boundaries in one region: several pieces
                piece[r] = b
    if -1 in piece or not _connected(piece, occ):
        return None
    free: list[list[int]] = [[] for _ in range(n_regions)]
    for b, j in enumerate(joined):
        if not j:
            free[region_of[b]].append(b)
    holding = [r for r in range(n_regions) if free[r]]
    centre = holding[0] if len(holding) == 1 else -1
    code, text = _one_piece_code(seqs, region_of, kinds, occ, patterns, piece, free, centre, False)
    if not _mirror_invariant(seqs):
        code2, text2 = _one_piece_code(seqs, region_of, kinds, occ, patterns, piece, free, centre, True)
        if code2 < code:
            return code2, text2()
    return code, text()


def _mirror_invariant(seqs: list[Boundary]) -> bool:
    """Whether mirroring the land only rotates its boundaries (then both orientations
    have one code, and the mirror image need not be coded).

    A boundary read backwards is a rotation of itself when it has at most two
    corners, or when it is a cyclic palindrome; that needs a spot met twice (with all
    spots distinct, ``b[i] == b[k - i]`` for every ``i`` cannot hold beyond two corners).
    """
    for b in seqs:
        n = len(b)
        if n > 2 and (len(set(b)) == n or not _cyclic_palindrome(b)):
            return False
    return True


def _cyclic_palindrome(b: Boundary) -> bool:
    """Whether ``b`` reversed is one of its rotations."""
    r = b[::-1]
    return any(b[i:] + b[:i] == r for i in range(len(b)))


def _connected(piece: list[int], occ: dict[int, tuple[tuple[int, int], tuple[int, int]]]) -> bool:
    """Whether the capitals join the boundaries ``piece`` (one per region) into one piece."""
    adj: dict[int, list[int]] = {}
    for (b1, _c1), (b2, _c2) in occ.values():
        adj.setdefault(b1, []).append(b2)
        adj.setdefault(b2, []).append(b1)
    seen = {piece[0]}
    todo = [piece[0]]
    while todo:
        for b in adj.get(todo.pop(), ()):
            if b not in seen:
                seen.add(b)
                todo.append(b)
    return len(seen) == len(piece)


def _one_piece_code(
    seqs: list[Boundary],
    region_of: list[int],
    kinds: dict[int, int],
    occ: dict[int, tuple[tuple[int, int], tuple[int, int]]],
    patterns: list[tuple[int, ...]],
    piece: list[int],
    free: list[list[int]],
    centre: int,
    mirrored: bool,
) -> tuple[Code, Callable[[], str]]:
    """The root code of a one-piece land in one orientation, and how to write it."""
    if mirrored:
        seqs = [b[::-1] for b in seqs]
        patterns = [_mirror_pattern(t) for t in patterns]
        occ = {
            s: ((b1, len(seqs[b1]) - 1 - c1), (b2, len(seqs[b2]) - 1 - c2))
            for s, ((b1, c1), (b2, c2)) in occ.items()
        }
    free_codes: dict[int, tuple[Code, int]] = {}
    region_codes = []
    for fs in free:
        codes = []
        for f in fs:
            low, starts = _least_starts(patterns[f])
            code: Code = (low,)
            free_codes[f] = (code, starts[0])
            codes.append(code)
        codes.sort()
        region_codes.append(tuple(codes))
    roots = _best_starts(patterns, piece if centre < 0 else [piece[centre]])
    best: Code | None = None
    best_walk: tuple[list[int], list[int]] = ([], [])
    for b0, c0 in roots:
        order, starts, tokens = _walk(seqs, kinds, occ, b0, c0)
        parts: list[Code] = []
        for b, toks in zip(order, tokens, strict=True):
            parts.append(toks)
            r = region_of[b]
            if r != centre:
                parts.append(region_codes[r])
        code = tuple(parts)
        if best is None or code < best:
            best, best_walk = code, (order, starts)
    assert best is not None
    piece_code = best

    def text() -> str:
        """The land written from this code, as ``_Coder.write`` does for the same tree."""
        order, starts = best_walk
        capitals: dict[int, str] = {}
        written = []
        if centre >= 0:
            items = [(fc[0], 1, fc, f, st) for f in free[centre] for fc, st in (free_codes[f],)]
            items.append((piece_code[0], 1, piece_code, order[0], starts[0]))
            items.sort(key=_sort_key)
            written.append(_write_boundaries([(seqs[it[3]], it[4]) for it in items], kinds, capitals))
        for b, start in zip(order, starts, strict=True):
            r = region_of[b]
            if r == centre:
                continue
            entry = _renamed(patterns[b][start:] + patterns[b][:start]) if start else patterns[b]
            items = [(entry, 0, (), b, start)]
            items += [(fc[0], 1, fc, f, st) for f in free[r] for fc, st in (free_codes[f],)]
            items.sort(key=_sort_key)
            written.append(_write_boundaries([(seqs[it[3]], it[4]) for it in items], kinds, capitals))
        return "|".join(written)

    if centre < 0:
        return (1, piece_code), text
    return (0, tuple(sorted([*(free_codes[f][0] for f in free[centre]), piece_code]))), text


def _sort_key(item: tuple[int | Code, int, Code, int, int]) -> tuple[int | Code, int, Code]:
    """How the boundaries of a region are ordered for writing (``_Coder._write_region``)."""
    return item[0], item[1], item[2]


def _best_starts(patterns: list[tuple[int, ...]], bnds: list[int]) -> list[tuple[int, int]]:
    """The (boundary, start) pairs whose first boundary reads least: the only roots worth trying.

    The least reading of a boundary and the starts giving it depend only on its
    pattern, so they come from a cache (``_least_starts``); the boundaries whose
    least reading is least overall give the roots.
    """
    if len(bnds) == 1:
        b = bnds[0]
        return [(b, c) for c in _least_starts(patterns[b])[1]]
    infos = [(b, _least_starts(patterns[b])) for b in bnds]
    low = min(info[0] for _b, info in infos)
    return [(b, c) for b, info in infos if info[0] == low for c in info[1]]


def _walk(
    seqs: list[Boundary],
    kinds: dict[int, int],
    other: dict[int, tuple[tuple[int, int], tuple[int, int]]],
    b0: int,
    c0: int,
) -> tuple[list[int], list[int], list[tuple[int, ...]]]:
    """Breadth-first reading of a piece from one starting corner (Weinberg's idea).

    Each capital's other corner (``other``: its two corners in this orientation)
    fixes where the boundary beyond it starts, so one starting corner determines the
    whole reading.  Returns the boundaries in reading order, their starts, and their
    tokens (capitals named through the piece, small letters per boundary).
    """
    order = [b0]
    starts = [c0]
    seen = {b0}
    capname: dict[int, int] = {}
    tokens: list[tuple[int, ...]] = []
    for b, s0 in zip(order, starts):  # noqa: B905 - both grow as the walk goes
        seq = seqs[b]
        smallname: dict[int, int] = {}
        toks = []
        for s in seq[s0:] + seq[:s0] if s0 else seq:
            kd = kinds[s]
            if kd == K_CAP:
                nm = capname.get(s)
                if nm is None:
                    nm = capname[s] = len(capname)
                    o1, o2 = other[s]
                    b2, c2 = o2 if o1[0] == b else o1
                    if b2 not in seen:
                        seen.add(b2)
                        order.append(b2)
                        starts.append(c2)
                toks.append(K_CAP + nm)
            elif kd == K_SMALL:
                nm = smallname.get(s)
                if nm is None:
                    nm = smallname[s] = len(smallname)
                toks.append(SMALL_BASE + nm)
            else:
                toks.append(kd)
        tokens.append(tuple(toks))
    return order, starts, tokens


def _pieces(
    seqs: list[Boundary], region_of: list[int], n_regions: int, joins: Iterable[tuple[int, int]]
) -> tuple[list[dict[int, int]], list[list[int]]]:
    """Group boundaries joined by capitals (``joins``: pairs of boundaries) into pieces;
    check they nest as a tree."""
    sets = UnionFind(len(seqs))
    for o, b in joins:
        sets.union(o, b)
    find = sets.find
    index: dict[int, int] = {}
    comp_bnds: list[dict[int, int]] = []
    region_comps: list[list[int]] = [[] for _ in range(n_regions)]
    for b in range(len(seqs)):
        root = find(b)
        k = index.get(root)
        if k is None:
            k = index[root] = len(comp_bnds)
            comp_bnds.append({})
        r = region_of[b]
        if r in comp_bnds[k]:
            raise NestingError(
                f"region {r + 1} has two boundaries joined to each other through other "
                "regions; in a drawing each connected piece meets a region along one boundary"
            )
        comp_bnds[k][r] = b
        region_comps[r].append(k)
    if len(seqs) != n_regions + len(comp_bnds) - _count_trees(n_regions, comp_bnds):
        raise NestingError(
            "its regions are joined to each other in a ring through separate pieces, "
            "which no drawing on the plane has"
        )
    return comp_bnds, region_comps


def _count_trees(n_regions: int, comp_bnds: list[dict[int, int]]) -> int:
    """How many connected parts the region–piece graph has (pieces join regions)."""
    sets = UnionFind(n_regions)
    parts = n_regions
    for bnds in comp_bnds:
        if len(bnds) > 1:
            rs = list(bnds)
            for r in rs[1:]:
                if sets.union(rs[0], r):
                    parts -= 1
    return parts


def _centres(n_regions: int, region_comps: list[list[int]], n_comps: int) -> list[int]:
    """Centre node(s) of the region–piece tree (regions are 0..R-1, pieces follow)."""
    n = n_regions + n_comps
    if n <= 2:
        return list(range(n))
    adj: list[list[int]] = [[] for _ in range(n)]
    for r, comps in enumerate(region_comps):
        for k in comps:
            adj[r].append(n_regions + k)
            adj[n_regions + k].append(r)
    degree = [len(a) for a in adj]
    leaves = [v for v in range(n) if degree[v] <= 1]
    remaining = n
    while remaining > 2:
        remaining -= len(leaves)
        nxt = []
        for v in leaves:
            for w in adj[v]:
                degree[w] -= 1
                if degree[w] == 1:
                    nxt.append(w)
            degree[v] = 0
        leaves = nxt
    return sorted(leaves)


def _capital_joins(seqs: list[Boundary], kinds: dict[int, int]) -> list[tuple[int, int]]:
    """Pairs of boundaries holding the two corners of a capital."""
    first: dict[int, int] = {}
    joins = []
    for b, seq in enumerate(seqs):
        for s in seq:
            if kinds[s] == K_CAP:
                o = first.setdefault(s, b)
                if o != b:
                    joins.append((o, b))
    return joins


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


def _first(item: tuple[Any, ...]) -> Any:
    return item[0]


def _normalised(seq: Boundary, start: int, kinds: Mapping[int, int]) -> tuple[int, ...]:
    """``seq`` read from ``start``, letters named afresh as they come."""
    n = len(seq)
    if n == 1:
        kd = kinds[seq[0]]
        return (kd if kd < K_CAP else K_CAP if kd == K_CAP else SMALL_BASE,)
    names: dict[int, int] = {}
    out = []
    for j in range(start, start + n):
        s = seq[j - n if j >= n else j]
        kd = kinds[s]
        if kd >= K_CAP:
            nm = names.get(s)
            if nm is None:
                nm = names[s] = len(names)
            out.append((K_CAP if kd == K_CAP else SMALL_BASE) + nm)
        else:
            out.append(kd)
    return tuple(out)


def _renamed(tokens: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """A reading of a pattern (its letters already tokens) with letters named afresh."""
    names: dict[int, int] = {}
    out = []
    for t in tokens:
        if t >= K_CAP:
            nm = names.get(t)
            if nm is None:
                nm = names[t] = len(names)
            out.append((K_CAP if t < SMALL_BASE else SMALL_BASE) + nm)
        else:
            out.append(t)
    return tuple(out)


def _least_of(pattern: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """The least reading of a pattern over its starting corners, and the first start giving it."""
    best, best_start = pattern, 0
    for c in range(1, len(pattern)):
        t = _renamed(pattern[c:] + pattern[:c])
        if t < best:
            best, best_start = t, c
    return best, best_start


def _both_rotations(seq: Boundary, kinds: Mapping[int, int]) -> Rotations:
    """Least reading and its start of a boundary, then of its mirror image (``seq[::-1]``).

    Both depend only on the boundary's pattern (the mirror's pattern is the pattern
    reversed and renamed), so one pass over the spots and a cache lookup do.
    """
    pattern = _normalised(seq, 0, kinds)
    hit = _FREE_CACHE.get(pattern)
    if hit is None:
        hit = _FREE_CACHE.remember(pattern, _least_of(pattern) + _least_of(_renamed(pattern[::-1])))
    return hit


def _mirror_pattern(pattern: tuple[int, ...]) -> tuple[int, ...]:
    """The pattern of a boundary's mirror image, from its own pattern (cached)."""
    hit = _MIRROR_CACHE.get(pattern)
    if hit is None:
        hit = _MIRROR_CACHE.remember(pattern, _renamed(pattern[::-1]) if len(pattern) > 1 else pattern)
    return hit


def _least_starts(pattern: tuple[int, ...]) -> tuple[tuple[int, ...], list[int]]:
    """The least reading of a boundary pattern and every start giving it, in order (cached)."""
    hit = _STARTS_CACHE.get(pattern)
    if hit is None:
        readings = [_renamed(pattern[c:] + pattern[:c]) if c else pattern for c in range(len(pattern))]
        low = min(readings)
        hit = _STARTS_CACHE.remember(pattern, (low, [c for c, t in enumerate(readings) if t == low]))
    return hit


def _least_rotation(seq: Boundary, kinds: Mapping[int, int]) -> tuple[tuple[int, ...], int]:
    """The least reading of a boundary over its starting corners, and the first start giving it."""
    return _both_rotations(seq, kinds)[:2]


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
        out.append(_least_reading_text(land, lives))
    out.sort()
    return out


def _least_reading_text(land: list[Region], lives: tuple[int, ...]) -> str:
    """The canonical string of one cleaned land: the text of its least code over its readings."""
    options = readings(land, lives)
    if len(options) == 1:
        return land_code_and_text(options[0], lives)[1]
    coded = [land_code_and_text(reading, lives) for reading in options]
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
