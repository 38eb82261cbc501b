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
from array import array
from collections.abc import Callable

from ..engine.moves import Move, MoveArgs, symmetric_move_args, symmetric_moves
from ..engine.position import Position
from ..engine.reduce import land_moves, reduced_lands_after, reduced_lands_after_word

Lands = tuple[str, ...]

__all__ = [
    "LazyChildren",
    "MoveArgs",
    "land_children",
    "land_shape",
    "pack_moves",
    "read_land",
    "symmetric_move_args",
    "symmetric_moves",
    "unpack_move",
]


_LIVES_OF_DIGIT = {"0": 3, "1": 2, "2": 1, "3": 0}


def read_land(text: str) -> Position:
    """A land string written by the engine, read as ``Position.from_string`` reads it.

    The solver reads back every land it expands, and the strings are its own (reduced
    forms of one land: no heaps, no blanks, nothing to report), so this trusts them
    and skips the checks and the column bookkeeping of ``Position.from_string``,
    which would be most of the cost of reading them; it gives the same spots in the same
    order (``tests/test_solve_children.py`` compares the two).  Each region is read as
    written: the notation's reader also turns regions to agree (``engine/drawing.py``).
    That changes no game (a move changes the boundaries of one region only), but the
    children of the two readings can be named by different reduced forms of equal
    value, so the solver's children are compared with the engine's children of this
    same reading.
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
    return Position.trusted(tuple(regions), tuple(lives))


def land_shape(text: str) -> tuple[int, int]:
    """(lives, lives of its liveliest region) of a land string, as ``read_land`` would count them.

    The misère search prices every state it meets by the lives of its lands, and most
    lands it meets are never expanded: this counts the lives from the string alone,
    without reading the spots into a position (``tests/test_solve_children.py``
    compares it with ``read_land``).
    """
    total = 0
    largest = 0
    here = 0  # lives of the region being read
    capitals: set[str] = set()  # capitals (and ``n(..)`` names) met anywhere: one spot each
    in_region: set[str] = set()  # letters met in this region
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        i += 1
        if c == ".":
            continue
        if c == "|":
            largest = max(largest, here)
            here = 0
            in_region = set()
            continue
        if c in _LIVES_OF_DIGIT:
            if c == "0" and i < n and text[i] == "*":
                j = i + 1
                while j < n and text[j].isdigit():
                    j += 1
                k = 3 * int(text[i + 1 : j])
                here += k
                total += k
                i = j
            else:
                here += _LIVES_OF_DIGIT[c]
                total += _LIVES_OF_DIGIT[c]
            continue
        if c == "m" or c == "n":
            j = text.index(")", i)
            c, i = text[i - 1 : j + 1], j + 1
        if c not in in_region:
            in_region.add(c)
            here += 1
            if c[0] == "n" or c.isupper():
                if c not in capitals:
                    capitals.add(c)
                    total += 1
            else:
                total += 1
    return total, max(largest, here)


def land_children(land: str) -> list[Lands]:
    """The distinct children of one land (a reduced form), each its sorted reduced lands, sorted."""
    p = read_land(land)
    intern = sys.intern
    seen: set[Lands] = set()
    for args in symmetric_move_args(p):
        m = Move(*args)
        seen.add(tuple(intern(x) for x in reduced_lands_after(p, m)))
    return sorted(seen)


#: A listed move packed in one 64-bit word: region, boundary, corner, boundary2, corner2 in
#: 8 bits each, a flag at bit 40 for a one-boundary move, and the boundaries that go
#: inside as a bit mask from bit 41 (so boundaries 0 to 22 of the region).
_BYTE = 0xFF
_ONE_BOUNDARY = 1 << 40
_INSIDE_SHIFT = 41
_INSIDE_LIMIT = 64 - _INSIDE_SHIFT
_INSIDE_SETS: dict[int, frozenset[int]] = {}


def pack_moves(moves: list[MoveArgs]) -> array[int] | list[MoveArgs]:
    """Listed moves as an array of 64-bit words (about a tenth of the memory of tuples).

    A search keeps the unexplored moves of every land it is working on: in ``0*12``
    over a million of them, most of the solver's memory as tuples.  A move that does
    not fit (an index past 255, a boundary past 22 inside) keeps the whole list as it is.
    """
    out = array("Q")
    append = out.append
    masks: dict[frozenset[int], int] = {}
    for args in moves:
        ri, bi, ci, bj, cj = args[0], args[1], args[2], args[3], args[4]
        if (ri | bi | ci | bj | cj) > _BYTE:
            return moves
        word = ri | bi << 8 | ci << 16 | bj << 24 | cj << 32
        if len(args) > 5:
            inside = args[5]
            mask = masks.get(inside)
            if mask is None:
                if inside and max(inside) >= _INSIDE_LIMIT:
                    return moves
                mask = masks[inside] = _ONE_BOUNDARY | sum(1 << k for k in inside) << _INSIDE_SHIFT
            word |= mask
        append(word)
    return out


def unpack_move(word: int | MoveArgs) -> Move:
    """The ``Move`` of a packed word (or of a move left as a tuple by ``pack_moves``)."""
    if isinstance(word, tuple):
        return Move(*word)
    ri, bi, ci, bj, cj = (
        word & _BYTE,
        word >> 8 & _BYTE,
        word >> 16 & _BYTE,
        word >> 24 & _BYTE,
        word >> 32 & _BYTE,
    )
    if not word & _ONE_BOUNDARY:
        return Move(ri, bi, ci, bj, cj)
    mask = word >> _INSIDE_SHIFT
    inside = _INSIDE_SETS.get(mask)
    if inside is None:
        inside = _INSIDE_SETS[mask] = frozenset(k for k in range(_INSIDE_LIMIT) if mask >> k & 1)
    return Move(ri, bi, ci, bj, cj, inside)


def listed_moves(land: str) -> array[int] | list[MoveArgs]:
    """A land's moves packed (``pack_moves(symmetric_move_args(read_land(land)))``), listed by
    the compiled kernels when they are on (``engine.reduce.land_moves``, the same words)."""
    words = land_moves(land)
    return words if words is not None else pack_moves(symmetric_move_args(read_land(land)))


class LazyChildren:
    """The children of one land, computed one at a time as a search asks for them.

    A search that proves a win needs one losing child, and one that gives a node up
    needs few: computing the canonical forms of all the children up front (nearly all
    of a solver's time) is wasted on such nodes.  ``more()`` computes canonical forms
    until one new distinct child is found; ``found`` holds the children so far, in the
    order found.

    A solver keeps tens of thousands of these (the more it keeps, the fewer lands it
    expands twice), so each holds only what it cannot cheaply make again: the land's
    string, the listed moves packed in 64-bit words (``pack_moves``), how many were
    tried, and the children found.  The position is read back from the string for
    each ``more()`` (``read_land``: about 10 µs, against milliseconds for one
    canonical form), and a repeated child is recognised in ``found`` itself (a land
    rarely has more than a few dozen distinct children), not in a set of its own:
    about 700 bytes a land instead of 2 KB.  Most of that is the list of moves, so a
    solver keeps it for its most recent lands only (``drop_moves``; it is listed again,
    in the same order, when more children are asked for) and keeps the children found
    for many more: a land forgotten whole costs its children's canonical forms again.

    With ``name`` (a function that gives a child's lands a number, as ``NormalSolver``
    numbers the lands and sums it meets), ``found`` is an array of those numbers, 4
    bytes a child, instead of a list of tuples of strings (about 60 bytes a child).
    """

    __slots__ = ("count", "done", "found", "land", "moves", "name", "next")

    def __init__(self, land: str, name: Callable[[list[str]], int] | None = None) -> None:
        self.land = land
        self.name = name
        self.moves: array[int] | list[MoveArgs] | None = listed_moves(land)
        self.count = len(self.moves)
        self.next = 0
        self.found: list[Lands] | array[int] = [] if name is None else array("i")
        self.done = not self.moves

    def more(self) -> bool:
        """Find one more distinct child; False when there is none left."""
        if self.done:
            return False
        moves = self.moves if self.moves is not None else self._list_moves()
        found, name = self.found, self.name
        if self.next >= len(moves):
            self._finish()
            return False
        p = None
        while self.next < len(moves):
            word = moves[self.next]
            self.next += 1
            lands = reduced_lands_after_word(self.land, word) if isinstance(word, int) else None
            if lands is None:  # the compiled kernels off: the reference path
                p = p or read_land(self.land)
                lands = reduced_lands_after(p, unpack_move(word))
            child = tuple([sys.intern(x) for x in lands]) if name is None else name(lands)
            if child not in found:
                found.append(child)  # type: ignore[arg-type]  # a tuple in a list, a number in an array
                if self.next == len(moves):
                    self._finish()
                return True
        self._finish()
        return False

    def drop_moves(self) -> None:
        """Forget the listed moves (listed again, in the same order, if more children are asked for)."""
        if not self.done:
            self.moves = None

    def _list_moves(self) -> array[int] | list[MoveArgs]:
        self.moves = listed_moves(self.land)
        return self.moves

    def all(self) -> list[Lands] | array[int]:
        """Every child (computing the rest)."""
        while not self.done:
            self.more()
        return self.found

    def remaining(self) -> int:
        """An estimate of the distinct children not found yet (at least 1 unless done)."""
        if self.done:
            return 0
        left = self.count - self.next
        if not self.next:
            return left
        return max(1, left * len(self.found) // self.next)

    def _finish(self) -> None:
        self.done = True
        self.moves = None
