"""The exact longest and shortest games (Alfeld §5.5): a search, with a table of proved facts.

The longest game of a sum of lands is the sum of
their longest games (moves in different lands do not interfere), and so is the shortest.
For one land the oracle asks Alfeld's question (§5.5) ``reach(land, need)`` (is there a line of
at least ``need`` moves?) from the bound down, and its mirror image for the shortest game
(can the game end within ``budget`` moves?) from the lower bound up, after one greedy game
(``_probe_short``) that usually proves the short side at once.  Facts are kept per land
by canonical form as proved intervals ``lo ≤ length ≤ hi``, and a parent's facts bound its
children (each child's shortest is at least the parent's ``lo − 1``, its longest at most
the parent's ``hi − 1``).  Only proved facts are kept, so a search cut off by its deadline
leaves the table correct and later searches start from what was learned.  Nim heaps
beside a position count as parts: ``*k`` lasts at most ``k`` moves and at least one.

The static bounds that start and prune the search are the engine's (``engine/bounds.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..engine.bounds import land_facts, land_lower_bound, stump_caps
from ..engine.canonical import land_code_and_text
from ..engine.moves import Move, apply_move, symmetric_moves
from ..engine.parts import clean, land_groups, split_lands, whole_lands
from ..engine.position import Position
from ..engine.reduce import reduced_lands
from ..errors import OutOfTime
from .clock import Deadline


@dataclass(frozen=True, slots=True)
class Land:
    """One land of a position: its canonical key and a position that has it."""

    key: str
    position: Position


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
    [key] = reduced_lands(land)
    return key


def lands_of(p: Position, stumps_known: bool = False) -> list[Land]:
    """The lands of ``p``, each with its canonical form (the key of the oracle's table).

    With ``stumps_known`` each land keeps its stumps and dead regions (``whole_lands``),
    so that ``lower_bound(land.position, stumps_known=True)`` can use them.
    """
    if stumps_known:
        return [Land(land_key(clean(land)), land) for land in whole_lands(p)]
    return [Land(land_key(land), land) for land in split_lands(p)]


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
            land_lower_bound(self.clean.regions, land.lives, stump_caps(land)) if complete else self.plain
        )


def _views(p: Position, complete: bool) -> list[_View]:
    return [_View(q, complete) for q in (whole_lands(p) if complete else split_lands(p))]


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
        self._deadline = Deadline()
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
        with self._deadline.until(deadline), _room_for_moves(p.total_lives):
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

    def _total(self, p: Position, deadline: float | None, longest: bool, complete: bool) -> int | None:
        table = self._long if longest else self._short
        exact = self._exact_long if longest else self._exact_short
        keys = [self._named(v) for v in _views(p, complete)]
        keys.sort(key=lambda k: table[k][1])  # small parts first: a timeout then costs least
        base = sum(p.heaps) if longest else len(p.heaps)
        with self._deadline.until(deadline), _room_for_moves(p.total_lives):
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
        """Is there a line of at least ``need`` moves from this land? (Alfeld §5.5 ``reach``)"""
        e = self._long[key]
        if e[0] >= need:
            return True
        if e[1] < need:
            return False
        self._deadline.check()
        long = self._long
        ranked: list[tuple[int, int, int, _Child]] = []
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
        self._deadline.check()
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
        self._deadline.check()
        short = self._short
        ranked: list[tuple[int, int, int, _Child]] = []
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
            options: list[tuple[tuple[int, int], int, Move, _Child]] = []
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


#: Nested calls per move of a search (reach, sum, the probe and their generators), generously.
FRAMES_PER_MOVE = 8


@contextmanager
def _room_for_moves(lives: int) -> Iterator[None]:
    """Room for deep recursion during one search.

    A search nests a few calls per move left, and the lives bound the moves left;
    Python calls do not use the C stack (3.11+), so only the limit may need raising.
    """
    need = FRAMES_PER_MOVE * lives + 500
    if sys.getrecursionlimit() < need:
        sys.setrecursionlimit(need)
    yield
