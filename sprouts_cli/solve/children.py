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

The listing itself (``symmetric_moves``) lives in the engine (``engine/moves.py``), which
also uses it for ``Position.children`` and the bounds' children.
``tests/test_solve_children.py`` checks that the children are exactly
``child_parts``'s on every position reachable from 1 to 4 spots.
"""

from __future__ import annotations

import sys

from ..engine.moves import Move, MoveArgs, apply_move, symmetric_move_args, symmetric_moves
from ..engine.position import Position
from ..engine.reduce import reduced_lands

Lands = tuple[str, ...]

__all__ = ["LazyChildren", "MoveArgs", "land_children", "read_land", "symmetric_move_args", "symmetric_moves"]


_LIVES_OF_DIGIT = {"0": 3, "1": 2, "2": 1, "3": 0}


def read_land(text: str) -> Position:
    """A land string written by the engine, read as ``Position.from_string`` reads it.

    The solver reads back every land it expands, and the strings are its own (reduced
    forms of one land: no heaps, no blanks, nothing to report), so this trusts them
    and skips the checks and the column bookkeeping of ``notation.parse_position``:
    about five times faster, and the same spots in the same order, hence the same
    moves in the same order (``tests/test_solve_children.py`` compares the two).
    """
    lives: list[int] = []
    regions: list[tuple[tuple[int, ...], ...]] = []
    region: list[tuple[int, ...]] = []
    boundary: list[int] = []
    capitals: dict[str, int] = {}
    smalls: dict[str, int] = {}
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        i += 1
        if c == "." or c == "|":
            if boundary:
                region.append(tuple(boundary))
                boundary = []
            if c == "|":
                regions.append(tuple(region))
                region = []
                smalls = {}
        elif c in _LIVES_OF_DIGIT:
            if c == "0" and i < n and text[i] == "*":
                j = i + 1
                while j < n and text[j].isdigit():
                    j += 1
                for _ in range(int(text[i + 1 : j])):
                    region.append((len(lives),))
                    lives.append(3)
                i = j
            else:
                boundary.append(len(lives))
                lives.append(_LIVES_OF_DIGIT[c])
        else:
            if c == "m" or c == "n":
                j = text.index(")", i)
                c, i = text[i - 1 : j + 1], j + 1
            names = capitals if c[0] == "n" or c.isupper() else smalls
            spot = names.get(c)
            if spot is None:
                spot = names[c] = len(lives)
                lives.append(1)
            boundary.append(spot)
    if boundary:
        region.append(tuple(boundary))
    regions.append(tuple(region))
    return Position._make(tuple(regions), tuple(lives))


def land_children(land: str) -> list[Lands]:
    """The distinct children of one land (a reduced form), each its sorted reduced lands, sorted."""
    p = read_land(land)
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
        self.position: Position | None = read_land(land)
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
