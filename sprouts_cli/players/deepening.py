"""Iterative deepening at the root, shared by the two-player and the three-player parity searches.

A search that can value every root candidate to a given depth (``search_root``) is run
at depth 1, 2, … until its clock runs out (Alfeld §5.8).  Depth 1 always completes
(its clock is not enforced), so there is always an answer.  Between depths the
candidates are searched again best first, which makes alpha–beta cut more.  The
deepening stops early, and says so (``final``), when deeper search cannot change the
values: a proved win, every value exact, or the depth asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

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


class RootSearch(Protocol):
    """A search whose root can be valued to a depth, under a clock it may be told not to enforce."""

    clock: Deadline
    enforce: bool

    def search_root(self, children: list[Position], depth: int) -> RootResult: ...


@dataclass
class Deepened:
    """What iterative deepening reached: every completed depth, whether it stopped early, the last order."""

    completed: list[RootResult]
    final: bool
    order: list[int]

    @property
    def last(self) -> RootResult:
        return self.completed[-1]


def deepen(
    search: RootSearch, children: list[Position], deadline: float | None, max_depth: int | None = None
) -> Deepened:
    """Search the root at depth 1, 2, … until ``deadline`` (depth 1 always completes).

    Each completed depth's values are given in the order of ``children``.
    """
    completed: list[RootResult] = []
    final = False
    order = list(range(len(children)))
    with search.clock.until(deadline):
        depth = 1
        try:
            while True:
                search.enforce = depth > 1
                try:
                    res = search.search_root([children[i] for i in order], depth)
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
            search.enforce = True
    assert completed, "depth 1 always completes"
    return Deepened(completed, final, order)


__all__ = ["EXACT", "TIE", "Deepened", "RootResult", "RootSearch", "deepen"]
