"""The children of a land, as a solver needs them: each as the sorted reduced forms of its lands.

``engine.explore.child_parts`` gives the same set; this version does less work for it.
Almost all the time of a solver goes into the canonical forms of children, and most
of the moves that ``representative_moves`` lists give a child that another move gives
too: in ``0*11`` 176 moves give 7 children.  Many of these repeats come from
*interchangeable boundaries* (``moves.interchangeable_classes``: free boundaries of the
same shape in one region, such as lone spots), which the engine already enumerates by
how many go inside, but not yet as the ends of a line.  Exchanging two interchangeable
boundaries is a symmetry of the position, so a line may be drawn from the first
boundary of each class only (and between two boundaries of one class, from its first
two): every other such line is the image of one of these under a symmetry, and gives
the same child.  ``0*11`` then needs 12 canonical forms instead of 176.

``tests/test_solve_children.py`` checks that the children are exactly
``child_parts``'s on every position reachable from 1 to 4 spots.
"""

from __future__ import annotations

import sys
from itertools import product

from ..engine.moves import Move, apply_move, interchangeable_classes
from ..engine.position import Position
from ..engine.reduce import reduced_lands

Lands = tuple[str, ...]


#: A move as a plain tuple: the arguments of ``Move`` (building a frozen dataclass costs
#: ten times more, and a search turns only about one listed move in ten into a child).
MoveArgs = tuple


def symmetric_moves(p: Position) -> list[Move]:
    """One move per child up to the symmetries that exchange interchangeable boundaries."""
    return [Move(*args) for args in symmetric_move_args(p)]


def symmetric_move_args(p: Position) -> list[MoveArgs]:
    """``symmetric_moves`` as tuples of ``Move``'s arguments, in the same order."""
    lives = p.lives
    out: list[MoveArgs] = []
    append = out.append
    counts = _live_counts(p)
    for ri, region in enumerate(p.regions):
        live = [k for k, b in enumerate(region) if any(lives[s] for s in b)]
        if sum(lives[s] for s in {s for k in live for s in region[k]}) < 2:
            continue
        classes = interchangeable_classes(p, ri, live)
        ends: list[int] = []  # the boundaries lines may start from, in index order
        second: dict[int, int] = {}  # a class's first boundary -> its second one
        for c in classes:
            ends.append(c[0])
            if len(c) > 1:
                second[c[0]] = c[1]
        ends.sort()
        corners = [(bi, ci, s) for bi in ends for ci, s in enumerate(region[bi]) if lives[s]]
        shares: dict[int, list[frozenset[int]]] = {}  # boundary -> the ways of sharing out the others
        free = {k for c in classes for k in c if len(c) > 1 or _is_free(region[k], lives, counts)}
        for a, (bi, ci, s) in enumerate(corners):
            # a line from a corner to itself (a loop) or to another corner of the same boundary
            for cj, t in enumerate(region[bi]):
                if cj < ci or not lives[t] or (cj == ci and lives[s] < 2) or (cj != ci and t == s):
                    continue
                ways = shares.get(bi)
                if ways is None:
                    ways = shares[bi] = _sharings(classes, free, bi)
                for inside in ways:
                    append((ri, bi, ci, bi, cj, inside))
            # a line to another class's first boundary
            for bj, cj, t in corners[a + 1 :]:
                if bj != bi and t != s:
                    append((ri, bi, ci, bj, cj))
            # a line to the second boundary of its own class (same shape, interchangeable)
            bj = second.get(bi)
            if bj is not None:
                for cj, t in enumerate(region[bj]):
                    if lives[t]:
                        append((ri, bi, ci, bj, cj))
    return out


def _sharings(classes: list[list[int]], free: set[int], bi: int) -> list[frozenset[int]]:
    """The ways a one-boundary line from ``bi`` shares out the region's other live boundaries.

    Only how many of each interchangeable class go inside matters.  ``classes`` are the
    region's classes (``interchangeable_classes``); taking ``bi`` out of its own keeps
    the others as they are, so they are computed once per region, not once per line.
    The order is ``interchangeable_classes``'s: free classes by their first boundary,
    then the others.
    """
    loose: list[list[int]] = []
    tied: list[list[int]] = []
    for c in classes:
        rest = [k for k in c if k != bi]
        if rest:
            (loose if rest[0] in free else tied).append(rest)
    loose.sort(key=lambda c: c[0])
    others = loose + tied
    return [
        frozenset(k for c, n in zip(others, counts, strict=True) for k in c[:n])
        for counts in product(*(range(len(c) + 1) for c in others))
    ]


def _is_free(b: tuple[int, ...], lives: tuple[int, ...], counts: dict[int, int]) -> bool:
    """A boundary whose live spots occur nowhere else (``interchangeable_classes``'s test)."""
    live = [s for s in b if lives[s]]
    return all(counts[s] == live.count(s) for s in live)


def _live_counts(p: Position) -> dict[int, int]:
    """How many times each live spot occurs in the position."""
    lives = p.lives
    counts: dict[int, int] = {}
    for r in p.regions:
        for b in r:
            for s in b:
                if lives[s]:
                    counts[s] = counts.get(s, 0) + 1
    return counts


def land_children(land: str) -> list[Lands]:
    """The distinct children of one land (a reduced form), each its sorted reduced lands, sorted."""
    p = Position.from_string(land)
    intern = sys.intern
    seen: set[Lands] = set()
    for args in symmetric_move_args(p):
        m = Move(*args)
        seen.add(tuple(intern(x) for x in reduced_lands(apply_move(p, m, check=False))))
    return sorted(seen)


class LazyChildren:
    """The children of one land, computed one at a time as a search asks for them.

    A search that proves a win needs one losing child, and one that gives a node up
    needs few: computing the canonical forms of all the children up front (nearly all
    of a solver's time) is wasted on such nodes.  ``more()`` computes canonical forms
    until one new distinct child is found; ``found`` holds the children so far, in the
    order found.
    """

    __slots__ = ("done", "found", "moves", "next", "position", "seen")

    def __init__(self, land: str) -> None:
        self.position: Position | None = Position.from_string(land)
        self.moves: list[MoveArgs] = symmetric_move_args(self.position)
        self.next = 0
        self.found: list[Lands] = []
        self.seen: set[Lands] = set()
        self.done = not self.moves

    def more(self) -> bool:
        """Find one more distinct child; False when there is none left."""
        p, moves, intern = self.position, self.moves, sys.intern
        while self.next < len(moves):
            m = Move(*moves[self.next])
            self.next += 1
            child = tuple(intern(x) for x in reduced_lands(apply_move(p, m, check=False)))  # type: ignore[arg-type]
            if child not in self.seen:
                self.seen.add(child)
                self.found.append(child)
                if self.next == len(moves):
                    self._finish()
                return True
        self._finish()
        return False

    def all(self) -> list[Lands]:
        """Every child (computing the rest)."""
        while not self.done:
            self.more()
        return self.found

    def remaining(self) -> int:
        """An estimate of the distinct children not found yet (at least 1 unless done)."""
        if self.done:
            return 0
        left = len(self.moves) - self.next
        if not self.next:
            return left
        return max(1, left * len(self.found) // self.next)

    def _finish(self) -> None:
        self.done = True
        self.position = None
        self.moves = []
        self.seen = set()


__all__ = ["LazyChildren", "land_children", "symmetric_move_args", "symmetric_moves"]
