"""How many moves are left: the upper and lower bounds (Alfeld §5.5).

The exact longest and shortest games are searched in ``solve/lengths.py``.

Every move removes exactly one life, so the number of moves left is ``L − s``: the lives
on the board now less the lives that survive to the end.  The whole question is ``s``.

**Upper bound** (``upper_bound``).  Survivors that must exist give ``M``.  It is worked out
land by land (a land is an independent part, ``parts.py``), because each land in which a
move is possible keeps its own survivor: the last move played in it leaves a new spot whose
life only a move in that land could use.  In a land:

* a region that holds a *private life* (a spot all of whose corners in live regions lie in
  it: a seed, a sprout, a link written with a small letter or as ``2``) keeps a survivor
  inside it: either that life is never used, or a move inside uses it and leaves a new
  spot whose life again only a move inside can use, and so on;
* two regions without a private life joined by a link (a capital) keep a survivor between
  them, by the same argument; pairs that share no region keep separate survivors, so a
  matching of such pairs is counted (``region_pair_matching``: greedy from the vertex of
  least degree, exact on forests, and Edmonds' maximum matching otherwise);
* a region in play keeps at least one of the lives it sees now (counting a spot shared by
  two regions in both): every move in it or inside it lowers that pool by one, and the
  last such move leaves a new spot inside.  So ``Σ (lives − 1)+`` over regions bounds the
  moves too.

``M = Σ_lands min(L − max(private + pairs, 1), Σ_regions (lives − 1)+)``.  Links in regions
with fewer than two lives (Alfeld's *sure survivors*) are in no land: they never move
again and are simply not counted, so the bound is the same for a game position with its
stumps and dead regions and for its canonical string, which has dropped them.

**Lower bound** (``lower_bound``).  At the end every survivor has one life and two lines,
and both its neighbours are stumps (a neighbour with a life would share a region with it).
A stump next to two survivors is impossible (the corner between the two lines would see two
lives).  So each survivor owns two stumps, its *pharisees*, and owns three spots in all.
Alfeld §5.5 ignores survivors whose two lines go to the same spot ``t`` (a loop was drawn);
we do not need to: ``t``'s third line goes to a spot ``u`` that shares a region with the
survivor on both sides of that line, so ``u`` is a stump that no other survivor can have as
a neighbour, and ``{survivor, t, u}`` is again three spots of its own.  With ``V_end`` the
spots at the end, ``3s ≤ V_end``; every move adds one spot, so ``V_end = V + k``.  Spots
that are stumps now count only if they can be in some survivor's three: a stump is
next to a survivor that has a life now, so each spot alive now brings at most its *cap* of
present stumps: a link (two lines now) at most 2, a sprout at most 1 (its one neighbour; a
sprout that loops becomes the ``t`` of the new spot, with its old neighbour as ``u``), a
seed none, new spots none.  Hence, per land, with ``V`` the live spots of the land,
``4s − q(s) ≤ V + L`` where ``q(s)`` is the sum of the ``s`` largest caps, and
``m = L − (the largest such s)``.  At the start (``L = 3n``, ``V = n``, no caps) this is
``2n``, the classical bound.  Two more facts can only raise it: a land with a move needs
one, and every survivor needs a final region of its own while a move adds at most one
region, so ``s ≤ R + k`` (``R`` the land's regions) and ``k ≥ ⌈(L − R)/2⌉``.

A position string has lost its stumps, so the caps above are the worst case (every line of
a spot alive now ends at a stump).  When the caller knows the position keeps all its
stumps (a position reached by playing, a saved game, or a string drawn again with its dead
spots given back), pass ``stumps_known=True``: a spot's cap is then the number of stumps
that really are next to it, read off the boundary walks (for a link looped round a stump
``t``: ``t`` and ``t``'s third neighbour), and ``q(s)`` is also at most the number of
distinct such stumps, which is Alfeld's ``V − p`` with its ``p`` (stumps all of whose
neighbours are stumps) made safe for loops.  A spot some of whose lines the walks do not
show (a region it lies on was left out) falls back to the worst case.  Any drawing of a
position is the same game, so a bound read off one drawing holds for all.  The bound is
never above the true minimum: ``tests/test_bounds.py`` checks it on every position
reachable from 1 to 5 spots against brute force, read both ways.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .data import Region
from .parts import land_regions
from .position import Position

# ------------------------------------------------------------------ the land


@dataclass(frozen=True, slots=True)
class LandFacts:
    """What the bounds see in one land: lives, spots, and the survivors they count."""

    lives: int
    spots: int
    private_regions: int
    pairs: int
    region_sum: int
    links: int
    sprouts: int

    @property
    def upper(self) -> int:
        """``min(L − max(private + pairs, 1), Σ (lives − 1)+)`` (the land has a move)."""
        return max(0, min(self.lives - max(self.private_regions + self.pairs, 1), self.region_sum))


def land_facts(regions: Sequence[Region], lives: Sequence[int]) -> LandFacts:
    """Count, in one cleaned land, what the upper and lower bounds need."""
    where: dict[int, set[int]] = {}
    region_sum = 0
    for ri, r in enumerate(regions):
        seen = {s for b in r for s in b}
        region_sum += max(0, sum(lives[s] for s in seen) - 1)
        for s in seen:
            where.setdefault(s, set()).add(ri)
    private = [False] * len(regions)
    for rs in where.values():
        if len(rs) == 1:
            private[next(iter(rs))] = True
    edges = []
    for s, rs in where.items():
        if lives[s] == 1 and len(rs) == 2:
            a, b = sorted(rs)
            if not private[a] and not private[b]:
                edges.append((a, b))
    return LandFacts(
        lives=sum(lives[s] for s in where),
        spots=len(where),
        private_regions=sum(private),
        pairs=len(region_pair_matching(edges)),
        region_sum=region_sum,
        links=sum(1 for s in where if lives[s] == 1),
        sprouts=sum(1 for s in where if lives[s] == 2),
    )


def region_pair_matching(edges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """A large matching of regions joined by links (any matching gives a valid count).

    Greedy from a vertex of least degree (optimal on forests, and when every vertex with
    an edge is matched); otherwise Edmonds' blossom algorithm (J. Edmonds, *Paths, trees,
    and flowers*, Canad. J. Math. 17, 1965) through networkx gives a maximum matching.
    """
    adj: dict[int, set[int]] = {}
    for a, b in edges:
        if a != b:
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)
    if not adj:
        return []
    greedy = _min_degree_greedy({v: set(n) for v, n in adj.items()})
    n_edges = sum(len(n) for n in adj.values()) // 2
    if 2 * len(greedy) >= len(adj) - 1 or n_edges < len(adj):
        return greedy
    return _maximum_matching(adj, greedy)


def _min_degree_greedy(adj: dict[int, set[int]]) -> list[tuple[int, int]]:
    """Match a vertex of least degree to its neighbour of least degree, repeatedly."""
    out = []
    while adj:
        v = min(adj, key=lambda x: (len(adj[x]), x))
        if not adj[v]:
            del adj[v]
            continue
        u = min(adj[v], key=lambda x: (len(adj[x]), x))
        out.append((min(u, v), max(u, v)))
        for w in (u, v):
            for x in adj.pop(w):
                if x in adj:
                    adj[x].discard(w)
    return out


def _maximum_matching(adj: dict[int, set[int]], fallback: list[tuple[int, int]]) -> list[tuple[int, int]]:
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover - networkx is a dependency
        return fallback
    g = nx.Graph()
    g.add_edges_from((a, b) for a, ns in adj.items() for b in ns if a < b)
    best = [(min(a, b), max(a, b)) for a, b in nx.max_weight_matching(g, maxcardinality=True)]
    return best if len(best) > len(fallback) else fallback


# ------------------------------------------------------------------ the bounds


def upper_bound(p: Position) -> int:
    """An upper bound ``M`` on the moves left (heap moves included: a heap ``*k`` lasts ≤ k)."""
    total = sum(p.heaps)
    for regions in land_regions(p):
        total += land_facts(regions, p.lives).upper
    return total


def lower_bound(p: Position, stumps_known: bool = False) -> int:
    """A lower bound ``m`` on the moves left, never above the true minimum.

    ``stumps_known=True`` says that ``p`` keeps every spot and region of the game (it was
    reached by playing moves), so that present stumps can be counted exactly; a position
    read from a string has lost them, and the worst case is assumed.  Each nim heap beside
    the position needs at least one move.
    """
    total = len(p.heaps)
    caps = stump_caps(p) if stumps_known else None
    for regions in land_regions(p):
        total += land_lower_bound(regions, p.lives, caps)
    return total


def land_lower_bound(
    regions: Sequence[Region],
    lives: Sequence[int],
    known: tuple[dict[int, int], dict[int, set[object]]] | None,
) -> int:
    """``L − max{s : 4s − q(s) ≤ V + L}`` for one land, at least 1 (the land has a move)."""
    spots = {s for r in regions for b in r for s in b}
    big_l = sum(lives[s] for s in spots)
    v = len(spots)
    if known is None:
        caps = sorted((3 - lives[s] for s in spots if lives[s] < 3), reverse=True)
        caps = [min(c, 2) for c in caps]
        distinct = sum(caps)
    else:
        cap_of, stumps_of = known
        caps = sorted((cap_of.get(s, 0) for s in spots), reverse=True)
        distinct = len(set().union(*(stumps_of.get(s, set()) for s in spots)))
    s = 0
    q = 0
    while s < big_l:
        q_next = min(distinct, q + (caps[s] if s < len(caps) else 0))
        if 4 * (s + 1) - q_next > v + big_l:
            break
        s += 1
        q = q_next
    # every survivor needs a final region of its own, and each move adds at most one region
    by_regions = -(-(big_l - len(regions)) // 2)
    return max(1, big_l - s, by_regions)


def stump_caps(p: Position) -> tuple[dict[int, int], dict[int, set[object]]]:
    """For each spot alive now, the present stumps that may end in its survivor's three.

    Neighbours are read off the boundary walks: consecutive corners are joined by a line,
    and each line is walked twice (once on each side).  A spot whose lines are not all
    seen that way (a region it lies on was left out) gets the worst case, as in a string:
    stumps of its own that nobody else counts.
    """
    lives = p.lives
    count: dict[tuple[int, int], int] = {}
    for r in p.regions:
        for b in r:
            n = len(b)
            if n < 2:
                continue
            for i in range(n):
                a, c = b[i], b[(i + 1) % n]
                key = (a, c) if a <= c else (c, a)
                count[key] = count.get(key, 0) + 1
    neighbours: dict[int, list[int]] = {}
    for (a, c), k in count.items():
        for _ in range(k // 2):
            neighbours.setdefault(a, []).append(c)
            if a != c:
                neighbours.setdefault(c, []).append(a)
    cap_of: dict[int, int] = {}
    stumps_of: dict[int, set[object]] = {}
    for s in {s for r in p.regions for b in r for s in b}:
        if lives[s] in (0, 3):
            continue
        ns = neighbours.get(s, [])
        # a link may bring two stumps, a sprout one (its neighbour, or as the ``t`` of a loop)
        worst = 3 - lives[s]
        found: set[object] = set()
        if len(ns) != worst:
            found = {("unseen", s, i) for i in range(worst)}
        elif lives[s] == 1 and ns[0] == ns[1]:
            # both lines go to one spot t: the survivor's three are itself, t and t's third neighbour u
            t = ns[0]
            if not lives[t]:
                found.add(t)
                others = [u for u in neighbours.get(t, []) if u != s]
                if len(neighbours.get(t, [])) != 3:
                    found.add(("unseen", t, 0))
                found.update(u for u in others if not lives[u])
        else:
            found.update(t for t in ns if not lives[t])
        stumps_of[s] = found
        cap_of[s] = min(len(found), worst)
    return cap_of, stumps_of
