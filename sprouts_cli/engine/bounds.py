"""How many moves are left: bounds, and the exact longest and shortest games (seed 002, §5.5).

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
with fewer than two lives (the seed's *sure survivors*) are in no land: they never move
again and are simply not counted, so the bound is the same for a game position with its
stumps and dead regions and for its canonical string, which has dropped them.

**Lower bound** (``lower_bound``).  At the end every survivor has one life and two lines,
and both its neighbours are stumps (a neighbour with a life would share a region with it).
A stump next to two survivors is impossible (the corner between the two lines would see two
lives).  So each survivor owns two stumps, its *pharisees*, and owns three spots in all.
The seed ignores survivors whose two lines go to the same spot ``t`` (a loop was drawn);
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
distinct such stumps, which is the seed's ``V − p`` with its ``p`` (stumps all of whose
neighbours are stumps) made safe for loops.  A spot some of whose lines the walks do not
show (a region it lies on was left out) falls back to the worst case.  Any drawing of a
position is the same game, so a bound read off one drawing holds for all.  The bound is
never above the true minimum: ``tests/test_bounds.py`` checks it on every position
reachable from 1 to 5 spots against brute force, read both ways.

**Exact lengths** (``LengthOracle``).  The longest game of a sum of lands is the sum of
their longest games (moves in different lands do not interfere), and so is the shortest.
For one land the oracle asks the seed's question ``reach(land, need)`` (is there a line of
at least ``need`` moves?) from the bound down, and its mirror image for the shortest game
(can the game end within ``budget`` moves?) from the lower bound up, after one greedy game
(``_probe_short``) that usually proves the short side at once.  Facts are kept per land
by canonical form as proved intervals ``lo ≤ length ≤ hi``, and a parent's facts bound its
children (each child's shortest is at least the parent's ``lo − 1``, its longest at most
the parent's ``hi − 1``).  Only proved facts are kept, so a search cut off by its deadline
leaves the table correct and later searches start from what was learned.  Nim heaps
beside a position count as parts: ``*k`` lasts at most ``k`` moves and at least one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..unionfind import UnionFind
from .canonical import land_code_and_text
from .moves import Move, apply_move, symmetric_moves
from .parts import clean, land_groups, land_regions, split_lands
from .position import Position, Region

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
    caps = _stump_caps(p) if stumps_known else None
    for regions in land_regions(p):
        total += land_lower_bound(regions, p.lives, caps)
    return total


def land_lower_bound(
    regions: Sequence[Region], lives: Sequence[int], known: tuple[dict[int, int], dict[int, set]] | None
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


def _stump_caps(p: Position) -> tuple[dict[int, int], dict[int, set]]:
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
    stumps_of: dict[int, set] = {}
    for s in {s for r in p.regions for b in r for s in b}:
        if lives[s] in (0, 3):
            continue
        ns = neighbours.get(s, [])
        # a link may bring two stumps, a sprout one (its neighbour, or as the ``t`` of a loop)
        worst = 3 - lives[s]
        found: set = set()
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


def euler_holds(points: int, regions: int, lines: int, parts: int) -> bool:
    """Euler's relation for a drawing (seed 004): points + regions = lines + parts.

    ``regions`` are the closed areas bounded by lines (the outside is not one), ``parts``
    the separate pieces of the drawing (a spot with no line is a piece of its own).  For a
    plane drawing this is Euler's formula ``V − E + F = 1 + C`` with ``F`` counting the
    outside.
    """
    return points + regions == lines + parts


@dataclass(frozen=True, slots=True)
class EulerCounts:
    """The four numbers of Euler's relation for one drawing."""

    points: int
    regions: int
    lines: int
    parts: int

    @property
    def holds(self) -> bool:
        return euler_holds(self.points, self.regions, self.lines, self.parts)


def euler_counts(p: Position) -> EulerCounts:
    """Euler's counts of a game position that keeps all its spots and regions.

    Points are the spots, lines the curves between spots (each move adds two, as its new
    spot cuts it in two), regions the faces less the outside one, parts the pieces of the
    drawing (spots on one boundary are in one piece).
    """
    spots = p.spots()
    lines = sum(3 - p.lives[s] for s in spots)
    if lines % 2:
        raise ValueError("the lines at the spots do not pair up: the position does not keep every spot")
    index = {s: i for i, s in enumerate(spots)}
    sets = UnionFind(len(spots))
    for r in p.regions:
        for b in r:
            for s in b[1:]:
                sets.union(index[b[0]], index[s])
    parts = sets.count()
    return EulerCounts(points=len(spots), regions=max(len(p.regions) - 1, 0), lines=lines // 2, parts=parts)


# ------------------------------------------------------------------ exact lengths


class OutOfTime(Exception):
    """The deadline passed before the answer was proved."""


@dataclass(frozen=True, slots=True)
class Land:
    """One land of a position: its canonical key and a position that has it."""

    key: str
    position: Position


def raw_lands(p: Position) -> list[Position]:
    """The lands of ``p`` as positions (cleaned, spot numbers kept), without naming them."""
    return split_lands(p)


def whole_lands(p: Position) -> list[Position]:
    """The lands of a position that keeps its stumps, each one keeping them too.

    A land is then its live regions as they are (stumps still in their boundaries) and
    the dead regions that hold one of its live spots.  Every line at a live spot of the
    land has such a region on each side, so the stumps next to its spots can still be
    read off (``lower_bound(..., stumps_known=True)``), and so they can after any move
    played in the land.
    """
    lives = p.lives
    dead = [r for i, r in enumerate(p.regions) if p.region_lives(i) < 2]
    out = []
    for group in land_groups(p):
        spots = {s for i in group for b in p.regions[i] for s in b if lives[s]}
        keep = tuple(r for r in dead if any(s in spots for b in r for s in b))
        out.append(Position._make(tuple(p.regions[i] for i in group) + keep, lives))
    return out


def land_key(land: Position) -> str:
    """The canonical form of one cleaned land: the key of the oracle's table."""
    return land_code_and_text(list(land.regions), land.lives)[1]


def reduced_land_key(land: Position) -> str:
    """The reduced form of one cleaned land (``reduce.py``).

    Lengths are not game values, so that the reduced form keeps them is not given by
    ``reduce.py``'s argument alone: ``tests/test_bounds.py`` checks it by brute force
    (positions with one reduced form have one longest and one shortest game) on every
    position reachable from 1 to 4 spots (5 in the slow suite).
    """
    from .reduce import reduced_lands

    [key] = reduced_lands(land)
    return key


def lands_of(p: Position, stumps_known: bool = False) -> list[Land]:
    """The lands of ``p``, each with its canonical form (the key of the oracle's table).

    With ``stumps_known`` each land keeps its stumps and dead regions (``whole_lands``),
    so that ``lower_bound(land.position, stumps_known=True)`` can use them.
    """
    if stumps_known:
        return [Land(land_key(clean(land)), land) for land in whole_lands(p)]
    return [Land(land_key(land), land) for land in raw_lands(p)]


class _View:
    """A land as the oracle holds it: as given, cleaned, and its two bounds."""

    __slots__ = ("clean", "complete", "land", "lower", "plain", "upper")

    def __init__(self, land: Position, complete: bool) -> None:
        self.land = land
        self.complete = complete
        self.clean = clean(land) if complete else land
        self.upper = land_facts(self.clean.regions, land.lives).upper
        self.plain = land_lower_bound(self.clean.regions, land.lives, None)  # as if read from a string
        self.lower = (
            land_lower_bound(self.clean.regions, land.lives, _stump_caps(land)) if complete else self.plain
        )


def _views(p: Position, complete: bool) -> list[_View]:
    return [_View(q, complete) for q in (whole_lands(p) if complete else raw_lands(p))]


class _Child:
    """One child of a land: the move, its lands' bounds, and (once asked for) their keys.

    The lands themselves are not kept (they would fill the memory): naming a child
    plays its move again.
    """

    __slots__ = ("keys", "lower", "move", "plain", "upper")

    def __init__(self, move: Move, views: list[_View]) -> None:
        self.move = move
        self.keys: tuple[str, ...] | None = None
        self.upper = sum(v.upper for v in views)
        self.lower = sum(v.lower for v in views)
        self.plain = sum(v.plain for v in views)


class LengthOracle:
    """Exact longest and shortest games, with a table of proved facts kept between calls.

    The table maps a land's canonical form to proved intervals ``[lo, hi]`` for its
    longest and for its shortest game.  It only ever narrows, so it may be shared by many
    searches with short deadlines (the computer players call it at every leaf): a search
    cut off by its deadline returns None and leaves what it proved.

    A land's children are listed once and kept, as moves with their bounds, up to
    ``max_children`` children in all (beyond that the oldest lists are dropped and made
    again when needed; about 200 bytes each).  A child is named (its canonical form
    computed, the costly step) only when the search looks into it, in the order of its
    bounds, so a "yes" found down one line names few.  ``reduced_keys`` keys the table
    by reduced forms instead (fewer lands, each dearer to name).
    """

    def __init__(self, max_children: int = 500_000, reduced_keys: bool = False) -> None:
        self._key = reduced_land_key if reduced_keys else land_key
        self._long: dict[str, list[int]] = {}
        self._short: dict[str, list[int]] = {}
        self._lands: dict[str, tuple[Position, bool]] = {}  # a drawing of it, and whether it is whole
        self._kids: dict[str, list[_Child]] = {}
        self._kid_count = 0
        self._probed: set[str] = set()
        self._max_children = max_children
        self._deadline: float | None = None
        self.expanded = 0  # lands whose children were listed (a measure of work)

    # ----------------------------------------------------------- public API
    def longest(self, p: Position, deadline: float | None = None, stumps_known: bool = False) -> int | None:
        """The number of moves in the longest game from ``p``, or None if not proved in time.

        ``deadline`` is a ``time.monotonic()`` value (None: no limit).  Nim heaps beside
        the position count as parts: a heap ``*k`` lasts at most ``k`` moves.
        ``stumps_known`` as for ``lower_bound``: the search then keeps the stumps and
        prunes with the sharper lower bound.
        """
        return self._total(p, deadline, True, stumps_known)

    def shortest(self, p: Position, deadline: float | None = None, stumps_known: bool = False) -> int | None:
        """The number of moves in the shortest game from ``p``, or None if not proved in time.

        A nim heap beside the position needs one move.
        """
        return self._total(p, deadline, False, stumps_known)

    def longest_range(self, p: Position, stumps_known: bool = False) -> tuple[int, int]:
        """What is proved now about the longest game: ``lo ≤ longest ≤ hi`` (no search)."""
        return self._range(p, self._long, sum(p.heaps), stumps_known)

    def shortest_range(self, p: Position, stumps_known: bool = False) -> tuple[int, int]:
        """What is proved now about the shortest game: ``lo ≤ shortest ≤ hi`` (no search)."""
        return self._range(p, self._short, len(p.heaps), stumps_known)

    def line(
        self, p: Position, kind: str = "longest", deadline: float | None = None, stumps_known: bool = False
    ) -> list[Position] | None:
        """The positions along one longest (or shortest) game from ``p``, or None if not found in time.

        Each position is the one after the next move (spot numbers kept: the k-th move
        adds spot ``len(p.lives) + k − 1``).  Lands are played out one after the other,
        then the nim heaps: one at a time down to nothing in a longest game, each in one
        move in a shortest.
        """
        if kind not in ("longest", "shortest"):
            raise ValueError("kind is 'longest' or 'shortest'")
        longest = kind == "longest"
        with _search(self, deadline, p.total_lives):
            try:
                line = self._line(p if stumps_known else clean(p), longest, stumps_known)
            except OutOfTime:
                return None
        last = line[-1] if line else (p if stumps_known else clean(p))
        heaps = list(last.heaps)
        while heaps:
            heaps[0] = heaps[0] - 1 if longest else 0
            heaps = [h for h in heaps if h]
            line.append(last.with_heaps(heaps))
        return line

    def __len__(self) -> int:
        return len(self._long)

    # ----------------------------------------------------------- the table
    def _named(self, view: _View) -> str:
        """Put a land in the table (or sharpen what it says) and return its key.

        Every bound is a proved fact about the land's game, whichever drawing of it it
        was read from; a drawing that keeps its stumps is kept for searching, as its
        children's lower bounds are sharper.
        """
        key = self._key(view.clean)
        long, short = self._long.get(key), self._short.get(key)
        if long is None or short is None:
            self._long[key] = [view.lower, view.upper]
            self._short[key] = [view.lower, view.upper]
            self._lands[key] = (view.land, view.complete)
        else:
            long[0] = max(long[0], view.lower)
            short[0] = max(short[0], view.lower)
            if view.complete and not self._lands[key][1]:
                self._lands[key] = (view.land, True)
                self._drop_children(key)
        return key

    def _keys(
        self, child: _Child, parent: str, drawing: tuple[Position, bool] | None = None
    ) -> tuple[str, ...]:
        """The child's keys (named on first use), with what its parent's facts imply.

        ``drawing`` is the land the child's move is played in (the parent's, by default).
        A parent's proved facts bound every child: each child's shortest game is at least
        the parent's ``lo − 1``, and each child's longest at most the parent's ``hi − 1``.
        For a child of several lands, each land gets what is left after the others.
        """
        if child.keys is None:
            land, complete = drawing or self._lands[parent]
            views = _views(apply_move(land, child.move, check=False), complete)
            child.keys = tuple(self._named(v) for v in views)
        keys = child.keys
        lo_short, hi_long = self._short[parent][0] - 1, self._long[parent][1] - 1
        short, long = [self._short[k] for k in keys], [self._long[k] for k in keys]
        his, los = sum(e[1] for e in short), sum(e[0] for e in long)
        for e in short:
            e[0] = max(e[0], lo_short - (his - e[1]))
        for e in long:
            e[1] = min(e[1], hi_long - (los - e[0]))
        return keys

    def _children(self, key: str) -> list[_Child]:
        kids = self._kids.get(key)
        if kids is None:
            self.expanded += 1
            p, complete = self._lands[key]
            kids = [_Child(m, _views(apply_move(p, m, check=False), complete)) for m in symmetric_moves(p)]
            while self._kids and self._kid_count + len(kids) > self._max_children:
                self._drop_children(next(iter(self._kids)))
            self._kids[key] = kids
            self._kid_count += len(kids)
        return kids

    def _drop_children(self, key: str) -> None:
        kids = self._kids.pop(key, None)
        if kids is not None:
            self._kid_count -= len(kids)

    def _tick(self) -> None:
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise OutOfTime

    def _total(self, p: Position, deadline: float | None, longest: bool, complete: bool) -> int | None:
        table = self._long if longest else self._short
        exact = self._exact_long if longest else self._exact_short
        keys = [self._named(v) for v in _views(p, complete)]
        keys.sort(key=lambda k: table[k][1])  # small parts first: a timeout then costs least
        base = sum(p.heaps) if longest else len(p.heaps)
        with _search(self, deadline, p.total_lives):
            try:
                return base + sum(exact(k) for k in keys)
            except OutOfTime:
                return None

    def _range(self, p: Position, table: dict[str, list[int]], base: int, complete: bool) -> tuple[int, int]:
        keys = [self._named(v) for v in _views(p, complete)]
        return base + sum(table[k][0] for k in keys), base + sum(table[k][1] for k in keys)

    def _bounds_of(self, child: _Child, table: dict[str, list[int]]) -> tuple[int, int]:
        """What is known of a child's length: from the table once named, else its bounds."""
        if child.keys is None:
            return child.lower, child.upper
        return sum(table[k][0] for k in child.keys), sum(table[k][1] for k in child.keys)

    # ----------------------------------------------------------- longest
    def _exact_long(self, key: str) -> int:
        e = self._long[key]
        while e[0] < e[1]:
            self._reach_long(key, e[1])
        return e[0]

    def _reach_long(self, key: str, need: int) -> bool:
        """Is there a line of at least ``need`` moves from this land? (seed 002, §5.5 ``reach``)"""
        e = self._long[key]
        if e[0] >= need:
            return True
        if e[1] < need:
            return False
        self._tick()
        long = self._long
        ranked = []
        for child in self._children(key):
            lo, hi = self._bounds_of(child, long)
            if hi >= need - 1:
                ranked.append((-hi, -lo, len(ranked), child))
        ranked.sort()  # the children that may last longest first
        for *_, child in ranked:
            if self._sum_at_least(self._keys(child, key), need - 1):
                e[0] = max(e[0], need)
                return True
        e[1] = min(e[1], need - 1)
        return False

    def _sum_at_least(self, keys: tuple[str, ...], target: int) -> bool:
        """Do these lands together last at least ``target`` moves in their longest game?"""
        long = self._long
        if target <= 0 or sum(long[k][0] for k in keys) >= target:
            return True
        if sum(long[k][1] for k in keys) < target:
            return False
        if len(keys) == 1:
            return self._reach_long(keys[0], target)
        order = sorted(keys, key=lambda k: -long[k][1])
        big, rest = order[0], order[1:]
        for k in rest:  # the smaller parts exactly, the largest by threshold
            self._exact_long(k)
            if sum(long[x][1] for x in keys) < target:
                return False
            if sum(long[x][0] for x in keys) >= target:
                return True
        return self._reach_long(big, target - sum(long[k][0] for k in rest))

    # ----------------------------------------------------------- shortest
    def _exact_short(self, key: str) -> int:
        e = self._short[key]
        if e[0] < e[1]:
            self._probe_short(key)
        while e[0] < e[1]:
            self._reach_short(key, e[0])
        return e[0]

    def _probe_short(self, key: str) -> int:
        """Play one game greedily (the child with the least bounds) to prove a short length.

        Every land met on the way gets the length of its own game as a proved ``hi``,
        so the search that follows starts from real games instead of the upper bound,
        and often has nothing left to do.
        """
        e = self._short[key]
        if e[0] == e[1] or key in self._probed:
            return e[1]
        self._probed.add(key)
        self._tick()
        best = self._tight_child(key, e[0])
        if best is None:
            # the child whose parts are bound to end soonest by the plain bounds (those of a
            # string): a game that keeps the pharisee count tight
            best = min(self._children(key), key=lambda c: (c.plain, c.upper), default=None)
        if best is not None:
            length = 1 + sum(self._probe_short(k) for k in self._keys(best, key))
            e[1] = min(e[1], length)
        return e[1]

    def _tight_child(self, key: str, lo: int) -> _Child | None:
        """The first child whose lower bound is still ``lo − 1``, or None.

        A game that only ever passes through such children ends in ``lo`` moves, the
        least the bound allows, so it is a shortest game.  Taking the first one found
        spares the probe the bounds of all the other children (from ``0*20``: some
        thousands at each of its 40 moves).  Children already listed are looked up.
        """
        listed = self._kids.get(key)
        if listed is not None:
            return next((c for c in listed if c.lower <= lo - 1), None)
        p, complete = self._lands[key]
        for m in symmetric_moves(p):
            child = _Child(m, _views(apply_move(p, m, check=False), complete))
            if child.lower <= lo - 1:
                return child
        return None

    def _reach_short(self, key: str, budget: int) -> bool:
        """Can the game in this land end within ``budget`` moves?"""
        e = self._short[key]
        if e[1] <= budget:
            return True
        if e[0] > budget:
            return False
        self._tick()
        short = self._short
        ranked = []
        for child in self._children(key):
            lo, hi = self._bounds_of(child, short)
            if lo <= budget - 1:
                ranked.append((lo, -hi, len(ranked), child))  # SHORT
        # a small upper bound forces many survivors: those children tend to end soonest
        ranked.sort()
        for *_, child in ranked:
            if self._sum_at_most(self._keys(child, key), budget - 1):
                e[1] = min(e[1], budget)
                return True
        e[0] = max(e[0], budget + 1)
        return False

    def _sum_at_most(self, keys: tuple[str, ...], target: int) -> bool:
        """Can these lands together end within ``target`` moves?"""
        short = self._short
        if sum(short[k][1] for k in keys) <= target:
            return True
        if sum(short[k][0] for k in keys) > target:
            return False
        if len(keys) == 1:
            return self._reach_short(keys[0], target)
        order = sorted(keys, key=lambda k: -short[k][0])
        big, rest = order[0], order[1:]
        for k in rest:
            self._exact_short(k)
            if sum(short[x][1] for x in keys) <= target:
                return True
            if sum(short[x][0] for x in keys) > target:
                return False
        return self._reach_short(big, target - sum(short[k][0] for k in rest))

    # ----------------------------------------------------------- witness lines
    def _line(self, p: Position, longest: bool, complete: bool) -> list[Position]:
        exact = self._exact_long if longest else self._exact_short
        found = self._sum_at_least if longest else self._sum_at_most
        table = self._long if longest else self._short
        line: list[Position] = []
        cur = p
        while True:
            groups = land_groups(cur)
            if not groups:
                return line
            group = groups[0]
            view = _views(cur, complete)[0]  # the land of ``group``: its live regions come first
            key = self._named(view)
            want = exact(key) - 1
            drawing = (view.land, complete)
            options = []
            for m in symmetric_moves(view.land):
                child = _Child(m, _views(apply_move(view.land, m, check=False), complete))
                self._keys(child, key, drawing)  # named, so that what the search proved orders them
                lo, hi = self._bounds_of(child, table)
                options.append(((-hi, -lo) if longest else (hi, lo), len(options), m, child))
            options.sort(key=lambda o: o[:2])
            for *_, m, child in options:
                # the parent's value is exact, so a child reaching ``want`` has exactly ``want``
                if found(self._keys(child, key, drawing), want):
                    full = Move(group[m.region], m.boundary, m.corner, m.boundary2, m.corner2, m.inside)
                    cur = apply_move(cur, full, check=False)
                    cur = cur if complete else clean(cur)
                    line.append(cur)
                    break
            else:  # pragma: no cover - the table would be wrong
                raise AssertionError("no move keeps the proved length")


class _search:
    """Set the oracle's deadline (and room for deep recursion) for one public call."""

    def __init__(self, oracle: LengthOracle, deadline: float | None, lives: int = 0) -> None:
        self.oracle = oracle
        self.deadline = deadline
        self.lives = lives

    def __enter__(self) -> None:
        self.saved = self.oracle._deadline
        self.oracle._deadline = self.deadline
        # a search nests a few calls per move left, and the lives bound the moves left;
        # Python calls do not use the C stack (3.11+), so only the limit may need raising
        need = FRAMES_PER_MOVE * self.lives + 500
        if sys.getrecursionlimit() < need:
            sys.setrecursionlimit(need)

    def __exit__(self, *exc: object) -> None:
        self.oracle._deadline = self.saved


#: Nested calls per move of a search (reach, sum, the probe and their generators), generously.
FRAMES_PER_MOVE = 8
