"""The parity player: parity search under a time budget, here or in worker processes (Alfeld §5.4, §5.8).

The serial search (``parity.ParitySearch``) and the parallel one (``workers.ParallelParity``,
which runs the serial search in each worker) do not import each other; the player
chooses between them.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from ..engine.parts import clean
from ..engine.position import Position
from ..solve.lengths import LengthOracle
from .base import Choice, Player, Settings
from .candidates import Candidate, break_ties, root_candidates
from .montecarlo import Rollouts
from .parity import EXACT, ParitySearch, RootResult

if TYPE_CHECKING:  # pragma: no cover
    from .workers import ParallelParity


def verdict(best: float, misere: bool) -> str:
    if best >= EXACT:
        return "won"
    if best <= -EXACT:
        return "lost"
    return "unknown"


class ParityPlayer(Player):
    """Parity search under a time budget (``--sharp``: exact longest games at the leaves)."""

    name = "parity"

    def __init__(self, settings: Settings | None = None, solvers=None) -> None:
        from .parts import Solvers

        super().__init__(settings)
        self.rollouts = Rollouts(self.settings.jobs)
        self.solvers = solvers if solvers is not None else Solvers(self.settings.table)
        self._searches: dict[bool, ParitySearch] = {}
        self.oracle = LengthOracle() if self.settings.sharp else None
        self._parallel: ParallelParity | None = None

    def search_for(self, misere: bool, rng: random.Random) -> ParitySearch:
        s = self._searches.get(misere)
        if s is None:
            s = self._searches[misere] = ParitySearch(misere, self.solvers.parts(misere), self.oracle, rng)
        s.rng = rng
        return s

    def choose(self, p: Position, misere: bool, rng: random.Random) -> Choice:
        t0 = time.monotonic()
        cands = root_candidates(p, self.settings.jobs)
        if not cands:
            raise ValueError("no move is left")
        if len(cands) == 1:
            c = cands[0]
            return Choice(c.move, c.child, summary="the only move", fields=[("candidates", 1)])
        result, nodes = self.search(cands, misere, rng, t0 + self.settings.seconds)
        return self._decide(cands, result, misere, rng, t0, [("nodes", nodes)])

    def search(
        self, cands: list[Candidate], misere: bool, rng: random.Random, deadline: float
    ) -> tuple[RootResult, int]:
        """Iterative deepening over the candidates until ``deadline`` (a ``time.monotonic()`` value).

        With several jobs the candidates are shared out among worker processes, each
        with its own tables (Alfeld §5.8); otherwise the search runs here.
        """
        children = [clean(c.child) for c in cands]
        if self.settings.jobs > 1 and len(children) > 1:
            if self._parallel is None:
                from .workers import ParallelParity

                table = self.settings.table
                path = str(table.path) if table is not None else None
                self._parallel = ParallelParity(self.settings.jobs, path, self.settings.sharp)
            return self._parallel.deepen(children, misere, deadline, self.settings.depth, rng)
        search = self.search_for(misere, rng)
        nodes0 = search.nodes
        result, _ = search.deepen(children, deadline, self.settings.depth)
        return result, search.nodes - nodes0

    def _decide(
        self,
        cands: list[Candidate],
        result: RootResult,
        misere: bool,
        rng: random.Random,
        t0: float,
        extra: list[tuple[str, object]] | None = None,
    ) -> Choice:
        tied = [cands[i] for i in result.tied()]
        tie_seconds = max(0.05, 0.25 * self.settings.seconds)
        pick, tie = break_ties(tied, misere, rng, self.rollouts, self.settings.tie_games, tie_seconds)
        best = result.best
        v = verdict(best, misere)
        order = sorted(range(len(cands)), key=lambda i: -result.values[i])
        return Choice(
            pick.move,
            pick.child,
            summary=f"depth {result.depth}, value {best:+.3f} ({v}), {len(cands)} candidates"
            + (f", {len(tied)} tied" if len(tied) > 1 else ""),
            fields=[
                ("candidates", len(cands)),
                ("depth", result.depth),
                ("value", f"{best:+.3f}"),
                ("verdict", v),
                *(extra or []),
                *tie.fields(),
                ("seconds", f"{time.monotonic() - t0:.2f}"),
            ],
            candidates=[
                (cands[i].move, f"{result.values[i]:+.3f}" + ("" if result.exact[i] else " or less"))
                for i in order
            ],
        )

    def close(self) -> None:
        self.rollouts.close()
        if self._parallel is not None:
            self._parallel.close()
            self._parallel = None


__all__ = ["ParityPlayer", "verdict"]
