"""Planar maps: the combinatorial picture (Alfeld §2.3 and §4.6 step 1).

A :class:`PlanarMap` is what a picture means topologically: vertices (spots),
edges (curves) with half-edges ``2e`` (a → b) and ``2e+1`` (b → a), the rotation
at every vertex, and the regions, each a list of boundaries (a face cycle of
half-edges, or a vertex with no edge).  Faces are traced by
``next(h) = rot_next(twin(h))``, which keeps the face on one fixed side.

:func:`realise` turns a position (from a game, or a position string whose
canonical form has dropped dead spots and dead regions) into such a map, giving
back the dead material the string dropped; :func:`map_position` reads the
position back.  A string that no planar map realises is refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import Position
from ..errors import PictureError, SproutsError
from ..unionfind import UnionFind

Walk = tuple[str, tuple[int, ...]]  # ("cycle", half-edges) or ("spot", (vertex,))


@dataclass
class PlanarMap:
    """Vertices ``0 … n−1``, edges, rotations, regions of walks; ``hidden`` marks added dead spots."""

    n: int
    edges: list[tuple[int, int]]
    rot: list[list[int]]
    regions: list[list[Walk]]
    hidden: list[bool] = field(default_factory=list)
    spot_id: list[int] = field(default_factory=list)  # the position's spot for each vertex, or −1

    def tail(self, h: int) -> int:
        return self.edges[h >> 1][h & 1]

    def head(self, h: int) -> int:
        return self.edges[h >> 1][1 - (h & 1)]

    def degree(self, v: int) -> int:
        return len(self.rot[v])

    def lives(self) -> tuple[int, ...]:
        return tuple(3 - len(r) for r in self.rot)

    def next_half(self, h: int, pos: dict[int, int] | None = None) -> int:
        """The half-edge after ``h`` on its face: the one after ``twin(h)`` in the rotation at the head."""
        t = h ^ 1
        r = self.rot[self.head(h)]
        i = pos[t] if pos is not None else r.index(t)
        return r[(i + 1) % len(r)]

    def rotation_index(self) -> dict[int, int]:
        return {h: i for r in self.rot for i, h in enumerate(r)}

    def faces(self) -> list[tuple[int, ...]]:
        """Every face cycle, each half-edge on exactly one; in order of their least half-edge."""
        pos = self.rotation_index()
        seen = [False] * (2 * len(self.edges))
        out = []
        for h0 in range(2 * len(self.edges)):
            if seen[h0]:
                continue
            cyc = []
            h = h0
            while not seen[h]:
                seen[h] = True
                cyc.append(h)
                h = self.next_half(h, pos)
            out.append(tuple(cyc))
        return out

    def components(self) -> list[int]:
        """Component label of every vertex."""
        sets = UnionFind(self.n)
        for a, b in self.edges:
            sets.union(a, b)
        return [sets.find(v) for v in range(self.n)]

    def walk_spots(self, walk: Walk) -> tuple[int, ...]:
        kind, items = walk
        if kind == "spot":
            return items
        return tuple(self.tail(h) for h in items)

    def position(self) -> Position:
        """The position of this map: each region's boundaries as the cyclic lists of their corners."""
        regions = [tuple(self.walk_spots(w) for w in region) for region in self.regions]
        return Position(regions, self.lives())

    def check_planar(self) -> None:
        """Euler's formula for every component, and the regions nested as a tree (else PictureError)."""
        comp = self.components()
        faces = self.faces()
        vcount: dict[int, int] = {}
        ecount: dict[int, int] = {}
        fcount: dict[int, int] = {}
        for v in range(self.n):
            vcount[comp[v]] = vcount.get(comp[v], 0) + 1
        for a, _ in self.edges:
            ecount[comp[a]] = ecount.get(comp[a], 0) + 1
        for f in faces:
            c = comp[self.tail(f[0])]
            fcount[c] = fcount.get(c, 0) + 1
        for c, v in vcount.items():
            chi = v - ecount.get(c, 0) + max(1, fcount.get(c, 0))
            if chi != 2:
                spots = sorted(
                    self.spot_id[u] + 1 for u in range(self.n) if comp[u] == c and self.spot_id[u] >= 0
                )
                raise PictureError(
                    "cannot be drawn on the plane: the lines through spots "
                    f"{_spot_list(spots)} would need a surface with handles "
                    f"(Euler's formula gives {chi}, not 2)"
                )
        check_region_tree(self.regions, [comp[self.walk_spots(w)[0]] for r in self.regions for w in r])


def _spot_list(spots: list[int]) -> str:
    return ", ".join(str(s) for s in spots[:12]) + (" …" if len(spots) > 12 else "")


def check_region_tree(regions: list[list[Walk]], walk_comp: list[int]) -> None:
    """Regions and connected parts must nest as a tree: no part twice in a region, no cycle."""
    # regions are 0 … R−1, the connected parts follow
    part = {c: len(regions) + i for i, c in enumerate(dict.fromkeys(walk_comp))}
    sets = UnionFind(len(regions) + len(part))
    k = 0
    for ri, region in enumerate(regions):
        seen: dict[int, int] = {}
        for bi, _ in enumerate(region):
            c = walk_comp[k]
            k += 1
            if c in seen:
                raise PictureError(
                    f"cannot be drawn: boundaries {seen[c] + 1} and {bi + 1} of region {ri + 1} "
                    "are joined through other regions, so they cannot be separate boundaries"
                )
            seen[c] = bi
            if not sets.union(ri, part[c]):
                raise PictureError(
                    f"cannot be drawn: region {ri + 1} closes a ring of regions and connected lines "
                    "that the plane cannot hold (a region would have to lie on both sides of a curve)"
                )


# --------------------------------------------------------------------------- realise


class _Builder:
    """Stubs (half-edge ends at vertices), pairs of stubs (edges) and vertices, as they are made."""

    def __init__(self) -> None:
        self.stub_vertex: list[int] = []
        self.rot: list[list[int]] = []
        self.hidden: list[bool] = []
        self.spot_id: list[int] = []
        self.mate: dict[int, int] = {}

    def vertex(self, degree: int, hidden: bool, spot: int = -1) -> list[int]:
        v = len(self.rot)
        stubs = list(range(len(self.stub_vertex), len(self.stub_vertex) + degree))
        self.stub_vertex.extend([v] * degree)
        self.rot.append(stubs)
        self.hidden.append(hidden)
        self.spot_id.append(spot)
        return stubs

    def pair(self, a: int, b: int) -> None:
        self.mate[a] = b
        self.mate[b] = a

    def blob(self) -> int:
        """A dead pendant (three dead spots, all faces without lives); returns its free stub."""
        beta, w1, w2 = self.vertex(3, True)
        p0, p1, p2 = self.vertex(3, True)
        q0, q1, q2 = self.vertex(3, True)
        self.pair(w1, p0)
        self.pair(w2, q0)
        self.pair(p1, q2)
        self.pair(p2, q1)
        return beta

    def theta(self) -> None:
        """Two dead spots joined by three curves: three dead faces, used to keep lands apart."""
        p0, p1, p2 = self.vertex(3, True)
        q0, q1, q2 = self.vertex(3, True)
        self.pair(p0, q0)
        self.pair(p1, q2)
        self.pair(p2, q1)

    def realise_cycle(self, cycle: list[int]) -> None:
        """Make edges so that leaving along ``cycle[i]`` arrives at ``cycle[i+1]`` (hidden cubic tree)."""
        cyc = list(cycle)
        while True:
            if len(cyc) == 1:
                cyc.append(self.blob())
            if len(cyc) == 2:
                if self.stub_vertex[cyc[0]] == self.stub_vertex[cyc[1]]:
                    cyc.insert(1, self.blob())
                else:
                    self.pair(cyc[0], cyc[1])
                    return
            g0, g1, g2 = self.vertex(3, True)
            self.pair(cyc[0], g0)
            self.pair(cyc[1], g1)
            cyc = [g2, *cyc[2:]]

    def build(self) -> tuple[list[tuple[int, int]], list[list[int]], dict[int, int]]:
        edges: list[tuple[int, int]] = []
        half: dict[int, int] = {}
        for s in range(len(self.stub_vertex)):
            t = self.mate[s]
            if s < t:
                half[s] = 2 * len(edges)
                half[t] = 2 * len(edges) + 1
                edges.append((self.stub_vertex[s], self.stub_vertex[t]))
        rot = [[half[s] for s in stubs] for stubs in self.rot]
        return edges, rot, half


def realise(p: Position) -> PlanarMap:
    """A planar map whose position is ``p`` (same exact canonical form), or PictureError saying why not.

    Every corner listed in ``p`` is a corner of the map.  Where consecutive corners
    of a boundary cannot be joined by one curve (the string dropped what lay
    between), a tree of dead spots joins them; a ``2`` gets a dead region for its
    other corner; separate lands are kept apart by dead curves.  Positions from
    games, which keep their dead spots and dead regions, are realised as they were
    played, with no dead material added.
    """
    if p.heaps:
        raise PictureError("nim heaps (+*k) are not part of a drawing; draw the position without them")
    regions = _visible(p)
    lives = p.lives
    occ: dict[int, list[tuple[int, int, int]]] = {}
    for ri, r in enumerate(regions):
        for bi, b in enumerate(r):
            for ci, s in enumerate(b):
                occ.setdefault(s, []).append((ri, bi, ci))
    _check_occurrences(regions, lives, occ)
    build = _Builder()
    vertex_of, corner_stubs, S = _spot_stubs(build, regions, lives, occ)
    _join_corners(S, corner_stubs, regions, lives)
    # S is a permutation of the stubs; each cycle becomes an edge or a tree of dead spots
    seen: set[int] = set()
    for a in sorted(S):
        if a in seen:
            continue
        cyc = []
        x = a
        while x not in seen:
            seen.add(x)
            cyc.append(x)
            x = S[x]
        build.realise_cycle(cyc)
    edges, rot, half = build.build()
    pmap = PlanarMap(len(rot), edges, rot, [], build.hidden, build.spot_id)
    pmap.regions = _map_regions(pmap, regions, lives, vertex_of, corner_stubs, half)
    pmap.check_planar()
    _keep_lands_apart(pmap, build)
    return pmap


def _spot_stubs(
    build: _Builder,
    regions: list[list[tuple[int, ...]]],
    lives: tuple[int, ...],
    occ: dict[int, list[tuple[int, int, int]]],
) -> tuple[dict[int, int], dict[tuple[int, int, int], tuple[int, int]], dict[int, int]]:
    """A vertex per spot, and for each corner of it the stubs a boundary comes in by and leaves by.

    Answers the vertex of each spot, the (in, out) stubs of each corner (region,
    boundary, place), and the start of the stub permutation: a ``2`` seen once
    joins its own two stubs (its hidden corner, alone in a dead region).
    """
    vertex_of: dict[int, int] = {}
    corner_stubs: dict[tuple[int, int, int], tuple[int, int]] = {}
    S: dict[int, int] = {}
    for s in sorted(occ):
        deg = 3 - lives[s]
        vertex_of[s] = len(build.rot)
        H = build.vertex(deg, False, s)
        where = occ[s]
        if deg == 0:
            continue
        if deg == 1:
            corner_stubs[where[0]] = (H[0], H[0])
        elif deg == 2:
            corner_stubs[where[0]] = (H[0], H[1])
            if len(where) == 2:
                corner_stubs[where[1]] = (H[1], H[0])
            else:
                S[H[0]] = H[1]  # the hidden corner, alone in a dead region
        else:
            order = _dead_corner_order(regions, where)
            for j, o in enumerate(order):
                corner_stubs[o] = (H[j], H[(j + 1) % 3])
    return vertex_of, corner_stubs, S


def _join_corners(
    S: dict[int, int],
    corner_stubs: dict[tuple[int, int, int], tuple[int, int]],
    regions: list[list[tuple[int, ...]]],
    lives: tuple[int, ...],
) -> None:
    """Complete the stub permutation ``S``: each corner's out-stub leads to the next corner's in-stub."""
    for ri, r in enumerate(regions):
        for bi, b in enumerate(r):
            if len(b) == 1 and lives[b[0]] == 3:
                continue
            for ci in range(len(b)):
                out = corner_stubs[(ri, bi, ci)][1]
                nxt = corner_stubs[(ri, bi, (ci + 1) % len(b))][0]
                S[out] = nxt


def _map_regions(
    pmap: PlanarMap,
    regions: list[list[tuple[int, ...]]],
    lives: tuple[int, ...],
    vertex_of: dict[int, int],
    corner_stubs: dict[tuple[int, int, int], tuple[int, int]],
    half: dict[int, int],
) -> list[list[Walk]]:
    """The map's regions, the position's first and in its order, then the dead faces each a region.

    A boundary is the face its first corner's out-stub lies on; a face read by two
    boundaries means the position cannot be drawn this way.
    """
    faces = pmap.faces()
    face_of = {h: i for i, f in enumerate(faces) for h in f}
    used: set[int] = set()
    out_regions: list[list[Walk]] = []
    for ri, r in enumerate(regions):
        walks: list[Walk] = []
        for bi, b in enumerate(r):
            if len(b) == 1 and lives[b[0]] == 3:
                walks.append(("spot", (vertex_of[b[0]],)))
                continue
            f = face_of[half[corner_stubs[(ri, bi, 0)][1]]]
            if f in used:
                raise PictureError(f"cannot be drawn: boundary {bi + 1} of region {ri + 1} is read twice")
            used.add(f)
            walks.append(("cycle", faces[f]))
        if walks:
            out_regions.append(walks)
    for i, face in enumerate(faces):
        if i not in used:
            out_regions.append([("cycle", face)])
    return out_regions


def _visible(p: Position) -> list[list[tuple[int, ...]]]:
    """The boundaries with the corners that will be drawn as given.

    A dead spot is kept only where all three of its corners are listed (as in
    positions from games); otherwise its corners are dropped, as the canonical
    form drops them, and dead material is made anew where it is needed.
    """
    count: dict[int, int] = {}
    for r in p.regions:
        for b in r:
            for s in b:
                count[s] = count.get(s, 0) + 1
    keep = {s for s, k in count.items() if p.lives[s] > 0 or k == 3}
    out = []
    for r in p.regions:
        bs = [tuple(s for s in b if s in keep) for b in r]
        out.append([b for b in bs if b])
    return out


def _check_occurrences(regions, lives, occ) -> None:
    for s, where in occ.items():
        lv = lives[s]
        need = {3: (1,), 2: (1,), 1: (1, 2), 0: (3,)}[lv]
        if len(where) not in need:
            raise PictureError(
                f"cannot be drawn: spot {s + 1} has {lv} lives but occurs {len(where)} times "
                f"(a spot with {3 - lv} lines has at most {max(1, 3 - lv)} corners)"
            )
        if lv == 3:
            ri, bi, _ = where[0]
            if len(regions[ri][bi]) != 1:
                raise PictureError(
                    f"cannot be drawn: spot {s + 1} has no line but is on a boundary with others"
                )


def _dead_corner_order(regions, where) -> list[tuple[int, int, int]]:
    """Cyclic order of a dead spot's three corners: the one that makes its curves single edges."""

    def around(o):
        ri, bi, ci = o
        b = regions[ri][bi]
        return b[ci - 1], b[(ci + 1) % len(b)]

    o0, o1, o2 = where
    for order in ((o0, o1, o2), (o0, o2, o1)):
        if all(around(order[j])[1] == around(order[(j + 1) % 3])[0] for j in range(3)):
            return list(order)
    return [o0, o1, o2]


def _keep_lands_apart(pmap: PlanarMap, build: _Builder) -> None:
    """Join separate trees of regions through the faces of dead thetas, so all lie in one plane."""
    comp = pmap.components()
    n_regions = len(pmap.regions)
    sets = UnionFind(n_regions + pmap.n)  # regions, then the parts by their label (a vertex)
    for ri, region in enumerate(pmap.regions):
        for w in region:
            sets.union(ri, n_regions + comp[pmap.walk_spots(w)[0]])
    trees: dict[int, int] = {}
    for ri in range(n_regions):
        trees.setdefault(sets.find(ri), ri)
    firsts = list(trees.values())
    if len(firsts) < 2:
        return
    for _ in range(len(firsts) - 1):
        build.theta()
    # rebuild with the thetas: their faces are new cycles
    old_edges = len(pmap.edges)
    edges, rot, _ = build.build()
    new = PlanarMap(len(rot), edges, rot, [], build.hidden, build.spot_id)
    theta_faces = [f for f in new.faces() if min(f) >= 2 * old_edges]
    # the old half-edge numbers are kept: stubs are paired in the same order
    new_comp = new.components()
    by_theta: dict[int, list[tuple[int, ...]]] = {}
    for f in theta_faces:
        by_theta.setdefault(new_comp[new.tail(f[0])], []).append(f)
    thetas = [by_theta[v] for v in sorted(by_theta)]
    regions = [list(r) for r in pmap.regions]
    regions[firsts[0]].append(("cycle", thetas[0][0]))
    for i, tree_region in enumerate(firsts[1:]):
        regions[tree_region].append(("cycle", thetas[i][1]))
        if i + 1 < len(thetas):
            regions.append([("cycle", thetas[i][2]), ("cycle", thetas[i + 1][0])])
        else:
            regions.append([("cycle", thetas[i][2])])
    pmap.n, pmap.edges, pmap.rot, pmap.regions = new.n, new.edges, new.rot, regions
    pmap.hidden, pmap.spot_id = new.hidden, new.spot_id


def map_position(pmap: PlanarMap) -> Position:
    return pmap.position()


def realised(p: Position) -> Position | None:
    """``p`` drawn with its dead spots given back, or None when no such drawing is found.

    A position string has lost its stumps, so a lower bound on the moves left must
    assume the worst of them (``engine/bounds.lower_bound``).  Any drawing of the same
    position is the same game, so the bound read off one drawing holds for the string:
    ``realise`` gives one with little dead material (a tree of stumps only where
    consecutive corners cannot be joined by one curve).  The drawing is given only if
    it reads back as the same position, has no curve from a spot to itself, and every
    spot it adds is a stump.
    """
    bare = p.with_heaps(())
    try:
        pmap = realise(bare)
    except (SproutsError, ValueError, RecursionError):
        return None
    if any(a == b for a, b in pmap.edges):
        return None
    if any(hidden and pmap.degree(v) != 3 for v, hidden in enumerate(pmap.hidden)):
        return None
    drawing = map_position(pmap)
    if drawing.canonical() != bare.canonical():
        return None
    return drawing.with_heaps(p.heaps)
