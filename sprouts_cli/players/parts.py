"""Solved parts kept beside a position in the parity search (Alfeld §5.6 and §5.7).

In normal play a solved part is its nimber, and the parts beside a position add up to
one nim heap, their xor (Sprague–Grundy theory; Berlekamp, Conway and Guy, *Winning
Ways*).  In misère play it is the part's misère canonical tree (Conway, *On Numbers
and Games*, ch. 12), from the store of ``solve/misere_trees.py``, and the parts add up
to one tree.  Either way a move in what is beside is a move in the game: a smaller
heap, or one of the tree's options.

The parts are solved by the exact solvers (``solve/nimbers.py``, ``solve/misere.py``),
whose memory and table of solved positions are kept for the whole game.  The solvers
keep a ``misere`` flag (which table of values they compute); the players hand them
the flag of the game's ``Rules``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.position import Position
from ..engine.rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    from ..solve.misere import MisereSolver
    from ..solve.nimbers import NormalSolver
    from ..solve.store import Table


class NimParts:
    """Normal play: the solved parts beside a position are one nim heap."""

    zero = 0

    def __init__(self, solver: NormalSolver | None = None) -> None:
        from ..solve.nimbers import NormalSolver

        self.solver = solver if solver is not None else NormalSolver()

    def solve(self, land: Position, deadline: float | None) -> int | None:
        from ..errors import SolveAborted

        try:
            return self.solver.nimber(land, deadline)
        except SolveAborted:
            return None

    def add(self, beside: int, value: int) -> int:
        return beside ^ value

    def options(self, beside: int) -> list[int]:
        return list(range(beside))

    def alone_wins(self, beside: int) -> bool:
        return beside != 0

    def lengths(self, beside: int) -> tuple[int, int]:
        """The fewest and most moves the heap can last."""
        return (1, beside) if beside else (0, 0)

    def key(self, beside: int) -> str:
        return f"*{beside}" if beside else ""


class TreeParts:
    """Misère play: the solved parts beside a position are one misère canonical tree."""

    def __init__(self, solver: MisereSolver | None = None) -> None:
        from ..solve.misere import ZERO, MisereSolver

        self.solver = solver if solver is not None else MisereSolver()
        self.store = self.solver.store
        self.zero = ZERO
        self._short: dict[int, int] = {ZERO: 0}

    def solve(self, land: Position, deadline: float | None) -> int | None:
        from ..engine.reduce import reduced_lands
        from ..errors import OutOfTime

        try:
            trees = [self.solver.tree(x, deadline) for x in reduced_lands(land)]
        except OutOfTime:
            return None
        return self.store.add_all(trees)

    def add(self, beside: int, value: int) -> int:
        return self.store.add(beside, value)

    def options(self, beside: int) -> list[int]:
        return sorted(self.store.options(beside))

    def alone_wins(self, beside: int) -> bool:
        return self.store.win(beside)

    def lengths(self, beside: int) -> tuple[int, int]:
        """The fewest and most moves of the tree's simplest form."""
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


class Solvers:
    """The exact solvers of one player, made when first needed, sharing one table of solved positions."""

    def __init__(self, table: Table | None = None) -> None:
        self.table = table
        self._normal: NormalSolver | None = None
        self._misere: MisereSolver | None = None

    @property
    def normal(self) -> NormalSolver:
        if self._normal is None:
            from ..solve.nimbers import NormalSolver

            self._normal = NormalSolver(self.table)
        return self._normal

    @property
    def misere(self) -> MisereSolver:
        if self._misere is None:
            from ..solve.misere import MisereSolver

            self._misere = MisereSolver(self.table)
        return self._misere

    def parts(self, rules: Rules) -> NimParts | TreeParts:
        """What the parity search keeps beside a position, for the (two-player) rules."""
        return TreeParts(self.misere) if rules.misere else NimParts(self.normal)

    def wins(self, p: Position, rules: Rules, deadline: float | None) -> bool:
        """Does the player to move win ``p``?  (``OutOfTime`` past the deadline)"""
        if rules.misere:
            return self.misere.outcome(p, deadline)
        return self.normal.outcome(p, deadline)
