"""The children of misère lands made by the normal solver's compiled core (``pncore``).

The misère search asks for the children of a land one at a time (``children.LazyChildren``).
In plain Python each child costs a call into the engine's kernels that reads the land's
string again, makes the child's lands, reduces each one and writes its string, and then
Python work around the call.  The compiled proof-number core already does all of this in
one compiled step: it reads a land once, numbers every land and sum it meets (a hash
table from a land's code to its number, so a land met again is not reduced again), and
keeps each land's children as numbers (``pncore.open_children``, ``next_child``).

``CoreChildren`` holds one such numbering for a misère solver, and ``CoreLandChildren`` is
``LazyChildren``'s interface over it: ``found`` holds the children as sorted tuples of
reduced land strings (the misère search's names), turned from numbers once per number.
The children are the same, in the same order, as ``LazyChildren`` finds them (the core
lists the same moves and reduces with the same kernels; ``tests/test_solve_misere_core.py``
compares them).  A land the core does not take (a move past its packing's limits) gets
its children from ``LazyChildren``.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .. import jit
from .children import LazyChildren

Lands = tuple[str, ...]

#: The status the core leaves in ``T[T_STATUS]`` (as ``pncore``): it needs room, or a land it does not take.
_RUNNING = 0
_NEED_ROOM = 2
_UNSUPPORTED = 5
#: What ``next_child`` answers besides a child's number (``pncore.NO_CHILD_LEFT``, ``CHILD_STOPPED``).
NONE_LEFT = -1
STOPPED = -2

core: Any = None


def _load() -> Any:
    """``pncore``, compiled (loading numba the first time)."""
    global core
    if core is None:
        from . import compiled, pncore

        compiled._load_core()
        core = pncore
    return core


class CoreChildren:
    """One numbering of lands and sums in the core's arrays, for one misère solver.

    ``forget`` in the solver drops it whole and makes a new one (the numbering cannot
    forget a part); children objects made on the old one keep it alive until they go.
    """

    def __init__(self, lives: dict[str, int] | None = None, *, keep_parses: bool = True) -> None:
        _load()
        from . import compiled

        self._compiled = compiled
        self.state = compiled.State(small_lives=0, has_table=False, tt_entries=4)
        if not keep_parses:  # the reference: a land read again whenever another was read between
            self.state.T[0][core.T_PWIDTH] = -1
        self._lands: dict[int, Lands] = {}
        self._numbers: dict[str, int] = {}
        #: The lives of every land string made here, as the core counted them (``land_shape``'s
        #: count, read off the numbering instead of the string): filled for the misère solver.
        self.lives: dict[str, int] = {} if lives is None else lives
        #: The reduced canonical tree of each land by its number, for ``tree_build`` (-1: not built).
        self.trees = np.full(1024, -1, np.int64)
        #: Whether ``trees`` was given the trees the solver knew before this numbering.
        self.seeded = False

    def number(self, land: str) -> int:
        """The core's number of a land string."""
        x = self._numbers.get(land)
        if x is None:
            data = np.frombuffer(land.encode("ascii"), np.uint8)
            while True:
                x = int(core.intern_text(self.state.S, data))
                if x >= 0:
                    break
                self.state.grow()
            self._numbers[land] = x
            self._lands.setdefault(x, (sys.intern(land),))
        return x

    def lands(self, number: int) -> Lands:
        """A child's number as its sorted reduced land strings (made once per number)."""
        made = self._lands
        hit = made.get(number)
        if hit is None:
            st = self.state
            members = [number] if st.is_land(number) else st.members(number)
            lives, numbers, i32 = self.lives, self._numbers, st.I32
            texts = []
            for x in members:
                known = made.get(x)  # a land met before, alone or in another sum: read once
                if known is None:
                    text = sys.intern(st.text(x))
                    numbers[text] = x  # what ``number`` would find for it, without a call to the core
                    made[x] = (text,)
                else:
                    text = known[0]
                if text not in lives:
                    lives[text] = int(i32[core.L_LIVES, x])
                texts.append(text)
            texts.sort()
            hit = made[number] = tuple(texts)
        return hit

    def next_child(self, land: int) -> int:
        """One more distinct child of a land: its number, ``NONE_LEFT``, or ``STOPPED`` (unsupported)."""
        st = self.state
        t = st.T[0]
        while True:
            t[core.T_STATUS] = _RUNNING
            r = int(core.next_child(st.S, land))
            if r != STOPPED:
                return r
            status = int(t[core.T_STATUS])
            if status == _NEED_ROOM:
                st.grow()
                t = st.T[0]
            else:
                return STOPPED

    def every_child(self, land: int) -> list[int] | None:
        """Every child of a land, in the order found (``pncore.children_of``); None if the core stopped."""
        st = self.state
        t = st.T[0]
        while True:
            t[core.T_STATUS] = _RUNNING
            numbers = core.children_of(st.S, land)
            status = int(t[core.T_STATUS])
            if status == _RUNNING:
                return [int(x) for x in numbers]
            if status != _NEED_ROOM:
                return None
            st.grow()
            t = st.T[0]

    def find_all(self, land: int) -> bool:
        """Find every child of a land (``every_child`` without the list); False if the core stopped."""
        st = self.state
        t = st.T[0]
        while True:
            t[core.T_STATUS] = _RUNNING
            core.children_of(st.S, land)
            status = int(t[core.T_STATUS])
            if status == _RUNNING:
                return True
            if status != _NEED_ROOM:
                return False
            st.grow()
            t = st.T[0]

    def tree_array(self) -> np.ndarray:
        """``trees`` with an entry for every number made so far (and room for more)."""
        need = int(self.state.G[core.G_NUMBERS]) + core.ROOM_NUMBERS
        if need > len(self.trees):
            size = len(self.trees)
            while size < need:
                size *= 2
            grown = np.full(size, -1, np.int64)
            grown[: len(self.trees)] = self.trees
            self.trees = grown
        return self.trees

    def open(self, land: int) -> bool:
        """List a land's moves (its children not made yet); False if the core does not take it."""
        st = self.state
        if st.I64[core.L_KIDS, land] >= 0:  # opened before: ``open_children`` would answer 0
            return True
        t = st.T[0]
        while True:
            t[core.T_STATUS] = _RUNNING
            if int(core.open_children(st.S, land)) >= 0:
                return True
            if int(t[core.T_STATUS]) != _NEED_ROOM:
                return False
            st.grow()
            t = st.T[0]

    def _kids(self, land: int) -> tuple[int, int, bool]:
        """(start in KIDS, count, all found) of an opened land's children (in the order found):
        its one word, read as ``pncore._kids`` reads it."""
        word = int(self.state.I64[core.L_KIDS, land])
        return word >> 24, (word >> 1) & ((1 << 23) - 1), bool(word & 1)

    def all_found(self, land: int) -> bool:
        """Whether every child of an opened land is found."""
        return self._kids(land)[2]

    def remaining(self, land: int) -> int:
        """An estimate of the distinct children of an opened land not found yet, as
        ``LazyChildren.remaining`` makes it (the moves left, scaled by the share of new children)."""
        st = self.state
        _, count, done = self._kids(land)
        if done:
            return 0
        nxt = int(st.I32[core.L_KNEXT, land])
        left = int(st.I32[core.L_KMOVES, land]) - nxt
        if nxt == 0:
            return left
        return max(1, left * count // nxt)

    def children(self, land: str) -> CoreLandChildren:
        """The lazy children of a land over this numbering."""
        return CoreLandChildren(self, land)


class CoreLandChildren:
    """``LazyChildren``'s interface (``found``, ``done``, ``more``, ``remaining``, ``all``) over the core."""

    __slots__ = ("core", "done", "found", "land", "number", "reference")

    def __init__(self, numbering: CoreChildren, land: str) -> None:
        self.core = numbering
        self.land = land
        self.number = numbering.number(land)
        self.found: list[Lands] = []
        self.done = False
        #: ``LazyChildren`` when the core does not take this land (then it makes the rest).
        self.reference: LazyChildren | None = None
        if not numbering.open(self.number):
            self.reference = LazyChildren(land)
            self.done = self.reference.done
        else:  # children made before, by an earlier object on this land
            start, count, self.done = numbering._kids(self.number)
            self.found = [numbering.lands(x) for x in numbering.state.KIDS[start : start + count].tolist()]

    def more(self) -> bool:
        """Find one more distinct child; False when there is none left."""
        if self.done:
            return False
        if self.reference is not None:
            return self._more_reference()
        numbering = self.core
        start, count, done = numbering._kids(self.number)
        if count > len(self.found):
            # Another object on this land (made after this one left the solver's cache) found
            # children since: they come first, so that ``found`` stays the core's list in its order
            # (``next_child`` gives only children that no object has found yet).
            kids = numbering.state.KIDS[start + len(self.found) : start + count].tolist()
            self.found.extend(numbering.lands(x) for x in kids)
            self.done = done
            return True
        r = numbering.next_child(self.number)
        if r >= 0:
            self.found.append(numbering.lands(r))
            self.done = numbering.all_found(self.number)
            return True
        if r == NONE_LEFT:
            self.done = True
            return False
        self.reference = LazyChildren(self.land)
        return self._more_reference()

    def _more_reference(self) -> bool:
        ref = self.reference
        assert ref is not None
        while ref.more():
            child = ref.found[-1]
            if child not in self.found:
                self.found.append(child)  # type: ignore[arg-type]  # LazyChildren without name: tuples
                return True
        self.done = True
        return False

    def remaining(self) -> int:
        """An estimate of the distinct children not found yet (at least 1 unless done)."""
        if self.done:
            return 0
        if self.reference is not None:
            return max(1, self.reference.remaining())
        return self.core.remaining(self.number)

    def all(self) -> list[Lands]:
        """Every child (making the rest, in one call to the core when it takes the land)."""
        if not self.done and self.reference is None:
            numbers = self.core.every_child(self.number)
            if numbers is not None:
                lands = self.core.lands
                # in place: a search's generator of child states holds this list as it grows
                self.found.extend(lands(x) for x in numbers[len(self.found) :])
                self.done = True
        while not self.done:
            self.more()
        return self.found


def core_children_available() -> bool:
    """Whether the core may make children here (numba present, not plain Python)."""
    return not jit.PURE_PYTHON and jit.numba_present()


__all__ = ["CoreChildren", "CoreLandChildren", "core_children_available"]
