"""Three players: can one of them force making the last move?

With three players (Gardner's rules: "suitable for two or three players", the
winner being the player who makes the last move) the game is no longer a
two-player game, and nimbers say nothing.  What can be asked exactly is, for each
player, whether that player can *force* making the last move whatever the other
two do, as if they played together against it.  For each player this is a
two-sided game (the player against the coalition of the other two), solved here
by plain AND/OR search over exact canonical forms:

* the players move in turn 0 (the player to move), 1 (the next), 2 (the one
  after), 0, …;  a player is named by its *offset* from the player to move;
* the player at offset ``r`` makes the last move exactly when the number of moves
  left ``L`` satisfies ``L ≡ r + 1 (mod 3)`` (no move left: the last mover was the
  player before, offset 2);
* at a position where the player at offset 0 is the one asking, one good child is
  enough (OR); where one of the coalition moves, every child must be good (AND);
  a child's offset is one less (mod 3) than its parent's.

At most one player can force the last move (two forcing strategies played against
each other would both make it), and often none can.  Two cuts keep the search
small without changing its answer:

* **lengths**: every move removes one life, so ``L`` lies between the lower and
  the upper bound on the moves left (``engine/bounds.py``).  When no length in
  that range has the residue the player needs, the player cannot make the last
  move; when the range is one length, it is decided;
* **a table** of (canonical form, offset) → answer, so that transpositions and
  mirror images are searched once, and children taken from ``symmetric_moves``
  (moves that only swap interchangeable boundaries give the same child).

``tests/test_solve_three.py`` checks every position reachable from 1 to 4 spots
against plain recursion over every move with no bounds.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from ..engine.bounds import lower_bound, upper_bound
from ..engine.caches import BoundedCache
from ..engine.moves import apply_move, heap_children, symmetric_moves
from ..engine.position import Position
from .clock import Deadline

#: Three players take turns.
PLAYERS = 3
#: Children lists kept at most, the oldest forgotten first (the answers are kept without limit).
MAX_CHILDREN_KEPT = 200_000


def last_mover_offset(moves_left: int) -> int:
    """The offset (0 to move, 1 next, 2 after) of the player who makes the last of ``moves_left`` moves.

    With no move left it is the player before the one to move (offset 2).
    """
    return (moves_left - 1) % PLAYERS


@dataclass(frozen=True)
class ThreeResult:
    """For each player (offset from the player to move) whether it can force the last move."""

    can_force: tuple[bool, bool, bool]
    positions: int  # (position, player) questions answered by search
    seconds: float

    @property
    def forced_winner(self) -> int | None:
        """The player who can force making the last move (0, 1, 2), or None when none can."""
        winners = [r for r, yes in enumerate(self.can_force) if yes]
        assert len(winners) <= 1, "two players cannot both force the last move"
        return winners[0] if winners else None


class ThreeSolver:
    """Answers "can the player at offset r force making the last move?", keeping what it learns."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, int], bool] = {}
        self._children: BoundedCache[str, list[Position]] = BoundedCache(MAX_CHILDREN_KEPT)
        self._range: dict[str, tuple[int, int]] = {}
        self.searched = 0
        #: The time a search must stop by, else ``OutOfTime`` (what was proved before
        #: stays in the table: only finished answers are kept).
        self.clock = Deadline()

    # ------------------------------------------------------------------ public
    def solve(self, p: Position) -> ThreeResult:
        """Which player, if any, can force making the last move from ``p``."""
        t0 = time.perf_counter()
        before = self.searched
        answers = [False, False, False]
        lo, hi = self.lengths(p)
        # Only players the lengths leave some chance are searched, and once one is
        # proved to force the last move the others cannot.
        hopeful = [r for r in range(PLAYERS) if _has_length(lo, hi, r)]
        for r in hopeful:
            if self.forces(p, r):
                answers[r] = True
                break
        can_force = (answers[0], answers[1], answers[2])
        return ThreeResult(can_force, self.searched - before, time.perf_counter() - t0)

    def forces(self, p: Position, offset: int) -> bool:
        """Can the player at ``offset`` (0 to move, 1 next, 2 after) force making the last move?"""
        limit = sys.getrecursionlimit()
        need = 4 * (p.total_lives + sum(p.heaps)) + 200
        if need > limit:
            sys.setrecursionlimit(need)
        return self._forces(p, p.canonical(), offset % PLAYERS)

    def forcing_children(self, p: Position) -> list[str]:
        """The children (canonical forms) from which the player to move still forces the last move."""
        return [c.canonical() for c in self._kids(p, p.canonical()) if self._forces(c, c.canonical(), 2)]

    # ------------------------------------------------------------------ search
    def lengths(self, p: Position, key: str | None = None) -> tuple[int, int]:
        """Lower and upper bounds on the moves left (kept by canonical form)."""
        key = key if key is not None else p.canonical()
        hit = self._range.get(key)
        if hit is None:
            hit = self._range[key] = (lower_bound(p), upper_bound(p))
        return hit

    def _kids(self, p: Position, key: str) -> list[Position]:
        kids = self._children.get(key)
        if kids is None:
            seen: dict[str, Position] = {}
            for m in symmetric_moves(p):
                child = apply_move(p, m, check=False)
                seen.setdefault(child.canonical(), child)
            for child in heap_children(p):
                seen.setdefault(child.canonical(), child)
            kids = self._children.remember(key, list(seen.values()))
        return kids

    def _forces(self, p: Position, key: str, offset: int) -> bool:
        hit = self.known.get((key, offset))
        if hit is not None:
            return hit
        lo, hi = self.lengths(p, key)
        if not _has_length(lo, hi, offset):
            answer = False
        elif lo == hi:
            answer = True
        else:
            self.searched += 1
            self.clock.check()
            kids = self._kids(p, key)
            if not kids:  # pragma: no cover - the bounds make lo == hi == 0 here
                answer = offset == last_mover_offset(0)
            else:
                child_offset = (offset - 1) % PLAYERS
                if offset == 0:  # the player moves: one good child is enough
                    answer = any(self._forces(c, c.canonical(), child_offset) for c in kids)
                else:  # the coalition moves: every child must be good
                    answer = all(self._forces(c, c.canonical(), child_offset) for c in kids)
        self.known[(key, offset)] = answer
        return answer


def _has_length(lo: int, hi: int, offset: int) -> bool:
    """Is there a length ``L`` in ``lo..hi`` whose last move is made by the player at ``offset``?"""
    return any(last_mover_offset(n) == offset for n in range(lo, min(hi, lo + PLAYERS - 1) + 1))


__all__ = ["PLAYERS", "ThreeResult", "ThreeSolver", "last_mover_offset"]
