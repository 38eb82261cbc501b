"""Iterative deepening at the root, shared by the two-player and the three-player parity searches.

A search values each root candidate to a given depth (``RootSearch.root_value``, with
a window that lets it stop early on a candidate that cannot tie for the best), and
the root is searched at depth 1, 2, … until the clock runs out (Alfeld §5.8).  Depth 1
always completes (its clock is not enforced), so there is always an answer.  Between
depths the candidates are searched again best first, which makes alpha–beta cut more.
The deepening stops early, and says so (``final``), when deeper search cannot change
the values: a proved win, every value exact, or the depth asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.position import Position
from ..errors import OutOfTime
from ..solve.clock import Deadline

#: Values ±2 are exact (the end of the game, solved parts); the heuristic values lie strictly between.
EXACT = 2.0
#: Two root values closer than this tie.
TIE = 1e-9


@dataclass
class RootResult:
    """A completed search of the root to ``depth``: each candidate's value (exact or an upper bound)."""

    depth: int
    values: list[float]
    exact: list[bool]
    nodes: int

    @property
    def best(self) -> float:
        return max(self.values)

    def tied(self) -> list[int]:
        b = self.best
        return [i for i, (v, e) in enumerate(zip(self.values, self.exact, strict=True)) if e and v >= b - TIE]


@dataclass
class Deepened:
    """What iterative deepening reached: every completed depth, whether it stopped early, the last order."""

    completed: list[RootResult]
    final: bool
    order: list[int]

    @property
    def last(self) -> RootResult:
        return self.completed[-1]


class RootSearch:
    """A search of the root by iterative deepening, under a clock read at every node (``tick``).

    A subclass says what one candidate is worth (``root_value``); the node count, the
    clock, the search of the root at one depth and the deepening are here.
    """

    def __init__(self) -> None:
        self.nodes = 0
        self.clock = Deadline()
        self.enforce = True  # depth 1 always completes: its clock is not enforced
        self.completed: list[RootResult] = []  # every depth the last ``deepen`` completed
        self.final = False  # it stopped because deeper would not change the values

    def tick(self) -> None:
        """Count a node and read the clock (``OutOfTime`` past the deadline, when enforced)."""
        self.nodes += 1
        if self.enforce:
            self.clock.check()

    def root_value(self, child: Position, depth: int, alpha: float) -> float:
        """The value for the player at the root of moving to ``child``, searched ``depth`` plies below it.

        A value not above ``alpha`` may be a mere upper bound (fail-soft alpha–beta).
        """
        raise NotImplementedError  # pragma: no cover

    def search_root(self, children: list[Position], depth: int) -> RootResult:
        """Every candidate's value at ``depth``: exact when it may tie for the best, else a bound."""
        nodes0 = self.nodes
        values: list[float] = []
        exact: list[bool] = []
        best = -EXACT
        for child in children:
            alpha = max(-EXACT, best - TIE)
            v = self.root_value(child, depth - 1, alpha)
            values.append(v)
            exact.append(v > alpha or abs(v) >= EXACT)
            best = max(best, v)
        return RootResult(depth, values, exact, self.nodes - nodes0)

    def deepen(
        self, children: list[Position], deadline: float | None, max_depth: int | None = None
    ) -> Deepened:
        """Search the root at depth 1, 2, … until ``deadline`` (depth 1 always completes).

        Each completed depth's values are given in the order of ``children``; they are
        also kept in ``completed``, and whether the deepening stopped early in ``final``.
        """
        completed: list[RootResult] = []
        final = False
        order = list(range(len(children)))
        with self.clock.until(deadline):
            depth = 1
            try:
                while True:
                    self.enforce = depth > 1
                    try:
                        res = self.search_root([children[i] for i in order], depth)
                    except OutOfTime:
                        break
                    values = [0.0] * len(children)
                    exact = [False] * len(children)
                    for k, i in enumerate(order):
                        values[i] = res.values[k]
                        exact[i] = res.exact[k]
                    done = RootResult(depth, values, exact, res.nodes)
                    completed.append(done)
                    if abs(done.best) >= EXACT or (max_depth is not None and depth >= max_depth):
                        final = True
                        break
                    if all(abs(v) >= EXACT for v in values):
                        final = True
                        break
                    order.sort(key=lambda i: -values[i])
                    depth += 1
            finally:
                self.enforce = True
        assert completed, "depth 1 always completes"
        self.completed, self.final = completed, final
        return Deepened(completed, final, order)


__all__ = ["EXACT", "TIE", "Deepened", "RootResult", "RootSearch"]
