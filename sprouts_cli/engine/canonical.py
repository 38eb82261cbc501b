"""The exact canonical form of a position (seed 002, §2.6).

Two position strings get the same canonical form exactly when they are the same
position up to renaming letters, rotating boundaries, reordering boundaries, regions
and lands, and mirroring.  It is a true canonical form, not a heuristic, and it takes
polynomial time: no branch and bound is needed, so no work budget and no greedy
fallback either (``docs/notation.md`` says why).

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
   code wins.

The string is then written from the winning code: regions in depth-first order from
the centre, boundaries of a region sorted, letters named by first appearance.
Every choice made in writing depends only on codes, so equal positions are written
the same.
"""

from __future__ import annotations

from .notation import capital_letter, join_written, small_letter
from .parts import clean, land_groups
from .position import Boundary, Position

# Token values inside codes: 0, 1, 2 as written; capitals 3, 4, ...; small letters after.
K_ZERO, K_ONE, K_TWO = 0, 1, 2
K_CAP = 3
K_SMALL = 4
SMALL_BASE = 1 << 40


class NestingError(ValueError):
    """The regions and pieces of a land do not form a tree: no drawing has it."""


class _Land:
    """One land prepared for coding in one orientation."""

    __slots__ = (
        "comp_bnds",
        "comp_of",
        "kinds",
        "memo_comp",
        "memo_region",
        "n_regions",
        "partner",
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
        comp_of: list[int],
        comp_bnds: list[dict[int, int]],
        region_comps: list[list[int]],
    ) -> None:
        self.seqs = seqs
        self.region_of = region_of
        self.n_regions = n_regions
        self.kinds = kinds
        self.comp_of = comp_of
        self.comp_bnds = comp_bnds
        self.region_comps = region_comps
        partner: dict[tuple[int, int], tuple[int, int]] = {}
        first: dict[int, tuple[int, int]] = {}
        for b, seq in enumerate(seqs):
            for c, s in enumerate(seq):
                if kinds[s] == K_CAP:
                    if s in first:
                        partner[first[s]] = (b, c)
                        partner[(b, c)] = first[s]
                    else:
                        first[s] = (b, c)
        self.partner = partner
        self.memo_comp: dict[tuple[int, int], tuple[tuple, int, int]] = {}
        self.memo_region: dict[tuple[int, int], tuple] = {}

    # ---------------------------------------------------------- piece coding
    def traverse(self, b0: int, c0: int) -> tuple[list[int], dict[int, int], list[tuple[int, ...]]]:
        """Breadth-first reading of a piece from one starting corner.

        Returns the boundaries in the order read, where each one starts, and the
        token tuple of each (capitals named in order of first appearance).
        """
        seqs, kinds, partner = self.seqs, self.kinds, self.partner
        start = {b0: c0}
        order = [b0]
        capname: dict[int, int] = {}
        tokens: list[tuple[int, ...]] = []
        i = 0
        while i < len(order):
            b = order[i]
            seq = seqs[b]
            n = len(seq)
            s0 = start[b]
            smallname: dict[int, int] = {}
            toks = []
            for j in range(n):
                pos = s0 + j
                if pos >= n:
                    pos -= n
                s = seq[pos]
                kd = kinds[s]
                if kd == K_CAP:
                    nm = capname.get(s)
                    if nm is None:
                        nm = capname[s] = len(capname)
                        b2, c2 = partner[(b, pos)]
                        if b2 not in start:
                            start[b2] = c2
                            order.append(b2)
                    toks.append(K_CAP + nm)
                elif kd == K_SMALL:
                    nm = smallname.get(s)
                    if nm is None:
                        nm = smallname[s] = len(smallname)
                    toks.append(SMALL_BASE + nm)
                else:
                    toks.append(kd)
            tokens.append(tuple(toks))
            i += 1
        return order, start, tokens

    def comp_code(self, k: int, parent: int) -> tuple[tuple, int, int]:
        """Code of piece ``k`` entered from region ``parent`` (-1: the root), with its start."""
        key = (k, parent)
        hit = self.memo_comp.get(key)
        if hit is not None:
            return hit
        bnds = self.comp_bnds[k]
        if parent >= 0:
            roots = [(bnds[parent], c) for c in range(len(self.seqs[bnds[parent]]))]
        else:
            roots = [(b, c) for b in bnds.values() for c in range(len(self.seqs[b]))]
        best: tuple | None = None
        best_root = roots[0]
        region_of = self.region_of
        for b0, c0 in roots:
            order, _start, tokens = self.traverse(b0, c0)
            parts: list[tuple] = []
            for b, toks in zip(order, tokens, strict=True):
                parts.append(toks)
                r = region_of[b]
                if r != parent:
                    parts.append(self.region_code(r, k))
            code = tuple(parts)
            if best is None or code < best:
                best, best_root = code, (b0, c0)
        result = (best, best_root[0], best_root[1])
        self.memo_comp[key] = result  # type: ignore[assignment]
        return result  # type: ignore[return-value]

    def region_code(self, r: int, parent: int) -> tuple:
        """Code of region ``r`` entered from piece ``parent`` (-1: the root)."""
        key = (r, parent)
        hit = self.memo_region.get(key)
        if hit is None:
            hit = tuple(sorted(self.comp_code(k, r)[0] for k in self.region_comps[r] if k != parent))
            self.memo_region[key] = hit
        return hit

    # ----------------------------------------------------------------- tree
    def centres(self) -> list[int]:
        """Centre node(s) of the region–piece tree (regions first, then pieces)."""
        n = self.n_regions + len(self.comp_bnds)
        adj: list[list[int]] = [[] for _ in range(n)]
        for r, comps in enumerate(self.region_comps):
            for k in comps:
                adj[r].append(self.n_regions + k)
                adj[self.n_regions + k].append(r)
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

    def root_code(self, node: int) -> tuple:
        if node < self.n_regions:
            return (0, self.region_code(node, -1))
        return (1, self.comp_code(node - self.n_regions, -1)[0])

    # -------------------------------------------------------------- writing
    def normalised(self, b: int, start: int) -> tuple[int, ...]:
        """A boundary's tokens from ``start``, letters named afresh (to sort a region)."""
        seq = self.seqs[b]
        names: dict[int, int] = {}
        out = []
        for j in range(len(seq)):
            s = seq[(start + j) % len(seq)]
            kd = self.kinds[s]
            if kd >= K_CAP:
                nm = names.setdefault(s, len(names))
                out.append((K_CAP if kd == K_CAP else SMALL_BASE) + nm)
            else:
                out.append(kd)
        return tuple(out)

    def arrangement(self, node: int) -> list[list[tuple[int, int]]]:
        """Regions in writing order, each a list of (boundary, starting corner)."""
        out: list[list[tuple[int, int]]] = []
        if node < self.n_regions:
            self._write_region(node, -1, -1, 0, out)
        else:
            k = node - self.n_regions
            _code, b0, c0 = self.comp_code(k, -1)
            self._write_comp(k, -1, b0, c0, out)
        return out

    def _write_region(
        self, r: int, parent: int, pb: int, pstart: int, out: list[list[tuple[int, int]]]
    ) -> None:
        items = []
        if parent >= 0:
            items.append((self.normalised(pb, pstart), 0, (), pb, pstart, -1))
        for k in self.region_comps[r]:
            if k != parent:
                code, b0, c0 = self.comp_code(k, r)
                items.append((self.normalised(b0, c0), 1, code, b0, c0, k))
        items.sort(key=lambda it: (it[0], it[1], it[2]))
        out.append([(it[3], it[4]) for it in items])
        for it in items:
            if it[5] >= 0:
                self._write_comp(it[5], r, it[3], it[4], out)

    def _write_comp(self, k: int, parent: int, b0: int, c0: int, out: list[list[tuple[int, int]]]) -> None:
        order, start, _tokens = self.traverse(b0, c0)
        for b in order:
            r = self.region_of[b]
            if r != parent:
                self._write_region(r, k, b, start[b], out)


def _kinds(regions: list[tuple[Boundary, ...]], lives: tuple[int, ...]) -> dict[int, int]:
    """How each spot is written in this land (after cleaning)."""
    where: dict[int, list[int]] = {}
    for ri, r in enumerate(regions):
        for b in r:
            for s in b:
                where.setdefault(s, []).append(ri)
    kinds = {}
    for s, rs in where.items():
        lv = lives[s]
        if lv == 3:
            kinds[s] = K_ZERO
        elif lv == 2:
            kinds[s] = K_ONE
        elif len(rs) == 1:
            kinds[s] = K_TWO
        elif len(rs) == 2:
            kinds[s] = K_SMALL if rs[0] == rs[1] else K_CAP
        else:
            raise ValueError(f"spot {s} has one life but occurs {len(rs)} times")
    return kinds


def _pieces(
    seqs: list[Boundary], region_of: list[int], n_regions: int, kinds: dict[int, int]
) -> tuple[list[int], list[dict[int, int]], list[list[int]]]:
    """Group boundaries joined by capitals into pieces; check they nest as a tree."""
    parent = list(range(len(seqs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[int, int] = {}
    for b, seq in enumerate(seqs):
        for s in seq:
            if kinds[s] == K_CAP:
                o = first.setdefault(s, b)
                if o != b:
                    x, y = find(o), find(b)
                    if x != y:
                        parent[max(x, y)] = min(x, y)
    index: dict[int, int] = {}
    comp_of = []
    for b in range(len(seqs)):
        comp_of.append(index.setdefault(find(b), len(index)))
    comp_bnds: list[dict[int, int]] = [{} for _ in index]
    region_comps: list[list[int]] = [[] for _ in range(n_regions)]
    for b, k in enumerate(comp_of):
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
    return comp_of, comp_bnds, region_comps


def _count_trees(n_regions: int, comp_bnds: list[dict[int, int]]) -> int:
    """How many connected parts the region–piece graph has (pieces join regions)."""
    parent = list(range(n_regions))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    parts = n_regions
    for bnds in comp_bnds:
        rs = list(bnds)
        for r in rs[1:]:
            a, b = find(rs[0]), find(r)
            if a != b:
                parent[a] = b
                parts -= 1
    return parts


def _prepare(regions: list[tuple[Boundary, ...]], lives: tuple[int, ...], mirrored: bool) -> _Land:
    kinds = _kinds(regions, lives)
    seqs: list[Boundary] = []
    region_of: list[int] = []
    for ri, r in enumerate(regions):
        for b in r:
            seqs.append(b[::-1] if mirrored else b)
            region_of.append(ri)
    comp_of, comp_bnds, region_comps = _pieces(seqs, region_of, len(regions), kinds)
    return _Land(seqs, region_of, len(regions), kinds, comp_of, comp_bnds, region_comps)


def nesting_problem(p: Position) -> str | None:
    """Why the regions of ``p`` (one land, uncleaned) cannot be drawn, or None."""
    regions = [r for r in p.regions]
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
        _pieces(seqs, region_of, len(regions), kinds)
    except NestingError as e:
        return str(e)
    return None


def land_code_and_text(regions: list[tuple[Boundary, ...]], lives: tuple[int, ...]) -> tuple[tuple, str]:
    """The canonical code of one cleaned land and its canonical string."""
    best: tuple | None = None
    best_land: _Land | None = None
    best_node = 0
    for mirrored in (False, True):
        land = _prepare(regions, lives, mirrored)
        for node in land.centres():
            code = land.root_code(node)
            if best is None or code < best:
                best, best_land, best_node = code, land, node
    assert best_land is not None and best is not None
    return best, _write(best_land, best_land.arrangement(best_node))


def _write(land: _Land, arrangement: list[list[tuple[int, int]]]) -> str:
    capitals: dict[int, str] = {}
    written = []
    for region in arrangement:
        smalls: dict[int, str] = {}
        out_region = []
        for b, start in region:
            seq = land.seqs[b]
            n = len(seq)
            toks = []
            for j in range(n):
                s = seq[(start + j) % n]
                kd = land.kinds[s]
                if kd == K_CAP:
                    toks.append(capitals.setdefault(s, capital_letter(len(capitals) + 1)))
                elif kd == K_SMALL:
                    toks.append(smalls.setdefault(s, small_letter(len(smalls) + 1)))
                else:
                    toks.append("012"[kd])
            out_region.append(toks)
        written.append(out_region)
    return join_written([written], ())


def canonical_lands(p: Position) -> list[str]:
    """The canonical strings of the lands of ``p``, sorted."""
    c = clean(p)
    out = []
    for group in land_groups(c):
        _code, text = land_code_and_text([c.regions[i] for i in group], c.lives)
        out.append(text)
    out.sort()
    return out


def canonical_form(p: Position) -> str:
    """The exact canonical form: canonical lands joined by ``+``, then the heaps."""
    lands = canonical_lands(p)
    heaps = [f"*{h}" for h in p.heaps]
    return "+".join(lands + heaps) if lands or heaps else "!"
