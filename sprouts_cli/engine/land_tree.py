"""The tree code of a land (``canonical.py``, steps 1 to 3): regions and pieces as a tree.

A land's regions and its *pieces* (boundaries joined by capitals) form a tree; a
piece is coded by the least breadth-first walk from its entry boundary
(``_walk``), a region by the sorted codes of its child pieces, and the tree by its
centre (``_centres``).  ``_Coder`` holds one land's shape and writes the string
from the winning code; ``_one_piece_land`` is the shortcut for a land with one
piece around which every region hangs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from ..errors import NestingError
from ..unionfind import UnionFind
from .boundary_patterns import (
    _DIGITS,
    K_CAP,
    K_ONE,
    K_SMALL,
    K_TWO,
    K_ZERO,
    SMALL_BASE,
    Code,
    _least_starts,
    _mirror_invariant,
    _mirror_pattern,
    _renamed,
)
from .data import Boundary
from .notation import capital_letter, small_letter


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
