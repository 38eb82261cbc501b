"""The parity player: parity search under a time budget, here or in worker processes (Alfeld §5.4, §5.8).

The serial search (``parity.ParitySearch``) and the parallel one (``workers.ParallelParity``,
which runs the serial search in each worker) do not import each other; the player
chooses between them.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ..engine.parts import clean
from ..engine.rules import Rules
from ..solve.lengths import LengthOracle
from .base import Field, Player, Ranking, Settings
from .candidates import Candidate
from .parity import ParitySearch, SearchResult, Verdict
from .parts import Solvers

if TYPE_CHECKING:  # pragma: no cover
    from .workers import ParallelParity


class ParityPlayer(Player):
    """Parity search under a time budget (``--sharp``: exact longest games at the leaves)."""

    name = "parity"

    def __init__(self, settings: Settings | None = None, solvers: Solvers | None = None) -> None:
        super().__init__(settings)
        self.solvers = solvers if solvers is not None else Solvers(self.settings.table)
        self._searches: dict[Rules, ParitySearch] = {}
        self.oracle = LengthOracle() if self.settings.sharp else None
        self._parallel: ParallelParity | None = None

    def search_for(self, rules: Rules, rng: random.Random) -> ParitySearch:
        s = self._searches.get(rules)
        if s is None:
            s = self._searches[rules] = ParitySearch(rules, self.solvers.parts(rules), self.oracle, rng)
        s.rng = rng
        return s

    def rank(self, cands: list[Candidate], rules: Rules, rng: random.Random, t0: float) -> Ranking:
        found = self.search(cands, rules, rng, t0 + self.settings.seconds)
        return self.ranking(cands, found, [("nodes", found.nodes)])

    def search(
        self, cands: list[Candidate], rules: Rules, rng: random.Random, deadline: float
    ) -> SearchResult:
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
            return self._parallel.deepen(children, rules, deadline, self.settings.depth, rng)
        search = self.search_for(rules, rng)
        nodes0 = search.nodes
        result = search.deepen(children, deadline, self.settings.depth).last
        return SearchResult(result, search.nodes - nodes0)

    def ranking(
        self, cands: list[Candidate], found: SearchResult, extra: list[Field], verdict: Verdict | None = None
    ) -> Ranking:
        """The candidates that tie for the best value the search ``found``, with its reasoning.

        ``verdict``, when given, is what the log's record says instead of the search's
        verdict (the solver proved it); the summary keeps the search's own.
        """
        result = found.root
        tied = [cands[i] for i in result.tied()]
        best = result.best
        said = found.verdict.value
        order = sorted(range(len(cands)), key=lambda i: -result.values[i])
        return Ranking(
            tied,
            summary=f"depth {result.depth}, value {best:+.3f} ({said}), {len(cands)} candidates"
            + (f", {len(tied)} tied" if len(tied) > 1 else ""),
            fields=[
                ("candidates", len(cands)),
                ("depth", result.depth),
                ("value", f"{best:+.3f}"),
                ("verdict", (verdict if verdict is not None else found.verdict).value),
                *extra,
            ],
            candidates=[
                (cands[i].move, f"{result.values[i]:+.3f}" + ("" if result.exact[i] else " or less"))
                for i in order
            ],
        )

    def close(self) -> None:
        super().close()
        if self._parallel is not None:
            self._parallel.close()
            self._parallel = None


__all__ = ["ParityPlayer"]
