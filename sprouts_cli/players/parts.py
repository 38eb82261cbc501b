"""Solved parts kept beside a position in the parity search (seed 002, §5.6 and §5.7).

In normal play a solved part is its nimber, and the parts beside a position add up to
one nim heap, their xor (Sprague–Grundy theory; Berlekamp, Conway and Guy, *Winning
Ways*).  In misère play it is the part's misère canonical tree (Conway, *On Numbers
and Games*, ch. 12), from the store of ``solve/misere_trees.py``, and the parts add up
to one tree.  Either way a move in what is beside is a move in the game: a smaller
heap, or one of the tree's options.

Nimbers of lands are computed by the mex rule over the children of each land, each
child being a sum of lands and heaps (``engine.explore.child_parts``), memoised by
reduced form (which keeps the value, ``engine/reduce.py``).
"""

from __future__ import annotations

import time
from functools import reduce
from operator import xor

from ..engine.explore import child_parts
from ..engine.position import Position
from ..engine.reduce import reduced_lands

#: The clock is read every this many lands solved.
CLOCK_EVERY = 32


class PartTimeout(TimeoutError):
    """A part could not be solved before the deadline."""


class LandNimbers:
    """Nimbers of lands by the mex rule, memoised by reduced form (Sprague–Grundy)."""

    def __init__(self) -> None:
        self.memo: dict[str, int] = {}
        self._deadline: float | None = None
        self._ticks = 0

    def nimber_of(self, land: str, deadline: float | None = None) -> int:
        self._deadline = deadline
        try:
            return self._nimber(land)
        finally:
            self._deadline = None

    def position_nimber(self, p: Position, deadline: float | None = None) -> int:
        """The nimber of a whole position: the xor of its lands' and heaps' nimbers."""
        self._deadline = deadline
        try:
            return reduce(xor, [self._nimber(x) for x in reduced_lands(p)], reduce(xor, p.heaps, 0))
        finally:
            self._deadline = None

    def _nimber(self, land: str) -> int:
        hit = self.memo.get(land)
        if hit is not None:
            return hit
        self._ticks += 1
        if (
            self._deadline is not None
            and self._ticks % CLOCK_EVERY == 0
            and time.monotonic() > self._deadline
        ):
            raise PartTimeout(land)
        seen = set()
        for lands, heaps in child_parts(Position.from_string(land)):
            seen.add(reduce(xor, [self._nimber(x) for x in lands], reduce(xor, heaps, 0)))
        g = 0
        while g in seen:
            g += 1
        self.memo[land] = g
        return g


class NormalOutcomes:
    """Who wins in normal play: a search on (one land, one nim heap), nimbers for the rest.

    A position is a sum of lands and heaps.  The smaller lands are replaced by their
    nimbers (``LandNimbers``) and folded into one heap ``*h``; the largest land ``G``
    is searched: ``G + *h`` is won iff some move (in ``G``, or in the heap) leaves a
    lost sum.  This asks only whether ``nimber(G) = h`` rather than computing the
    nimber, and prunes at the first losing child (Lemoine and Viennot, *Computer
    analysis of Sprouts with nimbers*, 2015).
    """

    def __init__(self, nimbers: LandNimbers | None = None) -> None:
        self.nimbers = nimbers or LandNimbers()
        self.memo: dict[tuple[str, int], bool] = {}
        self._lives: dict[str, int] = {}
        self._deadline: float | None = None
        self._ticks = 0

    def wins(self, p: Position, deadline: float | None = None) -> bool:
        """Does the player to move win ``p`` in normal play?  PartTimeout past the deadline."""
        self._deadline = deadline
        self.nimbers._deadline = deadline
        try:
            return self._win(tuple(reduced_lands(p)), reduce(xor, p.heaps, 0))
        finally:
            self._deadline = None
            self.nimbers._deadline = None

    def _size(self, land: str) -> int:
        hit = self._lives.get(land)
        if hit is None:
            hit = self._lives[land] = Position.from_string(land).total_lives
        return hit

    def _win(self, lands: tuple[str, ...], heap: int) -> bool:
        if not lands:
            return heap != 0
        big = max(lands, key=lambda x: (self._size(x), x))
        rest = list(lands)
        rest.remove(big)
        for land in rest:
            heap ^= self.nimbers._nimber(land)
        key = (big, heap)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self._ticks += 1
        if (
            self._deadline is not None
            and self._ticks % CLOCK_EVERY == 0
            and time.monotonic() > self._deadline
        ):
            raise PartTimeout(big)
        known = self.nimbers.memo.get(big)
        if known is not None:
            result = known != heap
        else:
            kids = sorted(
                child_parts(Position.from_string(big)), key=lambda c: sum(self._size(x) for x in c[0])
            )
            result = any(not self._win(cl, heap ^ reduce(xor, ch, 0)) for cl, ch in kids) or any(
                not self._win((big,), h) for h in range(heap)
            )
        self.memo[key] = result
        return result


class NimParts:
    """Normal play: the solved parts beside a position are one nim heap."""

    zero = 0

    def __init__(self, nimbers: LandNimbers | None = None) -> None:
        self.nimbers = nimbers or LandNimbers()

    def solve(self, land: Position, deadline: float | None) -> int | None:
        try:
            return self.nimbers.position_nimber(land, deadline)
        except PartTimeout:
            return None

    def add(self, beside: int, value: int) -> int:
        return beside ^ value

    def options(self, beside: int) -> list[int]:
        return list(range(beside))

    def alone_wins(self, beside: int) -> bool:
        return beside != 0

    def lengths(self, beside: int) -> tuple[int, int]:
        return (1, beside) if beside else (0, 0)

    def key(self, beside: int) -> str:
        return f"*{beside}" if beside else ""


class TreeParts:
    """Misère play: the solved parts beside a position are one misère canonical tree."""

    def __init__(self, solver=None) -> None:
        from ..solve.misere import ZERO, MisereSolver

        self.solver = solver or MisereSolver()
        self.store = self.solver.store
        self.zero = ZERO
        self._short: dict[int, int] = {ZERO: 0}

    def solve(self, land: Position, deadline: float | None) -> int | None:
        from ..solve.misere import MisereTimeout

        try:
            trees = [self.solver.tree(x, deadline) for x in reduced_lands(land)]
        except MisereTimeout:
            return None
        return self.store.add_all(trees)

    def add(self, beside: int, value: int) -> int:
        return self.store.add(beside, value)

    def options(self, beside: int) -> list[int]:
        return sorted(self.store.options(beside))

    def alone_wins(self, beside: int) -> bool:
        return self.store.win(beside)

    def lengths(self, beside: int) -> tuple[int, int]:
        return self._shortest(beside), self.store.birthday(beside)

    def _shortest(self, t: int) -> int:
        hit = self._short.get(t)
        if hit is None:
            opts = self.store.options(t)
            hit = 1 + min(self._shortest(o) for o in opts) if opts else 0
            self._short[t] = hit
        return hit

    def key(self, beside: int) -> str:
        return f"~{beside}" if beside != self.zero else ""


def normal_parts() -> NimParts:
    return NimParts()


def misere_parts() -> TreeParts:
    return TreeParts()
