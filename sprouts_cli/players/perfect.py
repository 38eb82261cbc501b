"""Perfect play: the exact solver, with parity search to fall back on (Alfeld §5.6–5.8).

The position's children are solved exactly — by nimbers in normal play (a child is
lost for the player who gets it exactly when its nimber is 0), by misère canonical
trees in misère play (``solve/misere.py``) — and a move to a lost child is played.
Several winning moves are told apart by Monte Carlo, then at random (Alfeld §5.8).  When
the position is lost anyway, or the solver cannot finish in the time given (two
thirds of it), parity search ranks all the moves with the time that is left, so the
player still plays its best guess.  The solver's tables are kept for the whole game,
so later moves are answered mostly from what was proved before.
"""

from __future__ import annotations

import random

from ..engine.position import Position
from ..engine.rules import Rules
from ..errors import SolveAborted
from .base import Player, Ranking, Settings
from .candidates import Candidate
from .parity_player import ParityPlayer
from .parts import Solvers

#: The share of the move's time the solver may take before parity search takes over.
SOLVER_SHARE = 2 / 3


class PerfectPlayer(Player):
    """Plays a winning move whenever one exists and the solver finds it in time."""

    name = "perfect"
    #: With one move left to choose, the verdict (won or lost) is still worth the log's record.
    answers_one_candidate_at_once = False

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self.solvers = Solvers(self.settings.table)
        self.parity = ParityPlayer(self.settings, self.solvers)
        self.parity.rollouts = self.rollouts  # one pool of random games for both

    def lost_for_mover(self, p: Position, rules: Rules, deadline: float | None) -> bool:
        """Is ``p`` lost for the player to move in it? (``OutOfTime`` past the deadline)"""
        return not self.solvers.wins(p, rules, deadline)

    def winning_moves(self, cands: list[Candidate], rules: Rules, deadline: float | None) -> list[Candidate]:
        """The candidates whose child is lost for the opponent (``OutOfTime`` past the deadline)."""
        return [c for c in cands if self.lost_for_mover(c.child, rules, deadline)]

    def rank(self, cands: list[Candidate], rules: Rules, rng: random.Random, t0: float) -> Ranking:
        try:
            wins = self.winning_moves(cands, rules, t0 + SOLVER_SHARE * self.settings.seconds)
        except SolveAborted:
            return self._by_parity(cands, rules, rng, t0, lost=False)
        if not wins:
            return self._by_parity(cands, rules, rng, t0, lost=True)
        return Ranking(
            wins,
            summary=f"won: {len(wins)} winning move{'s' if len(wins) > 1 else ''} of {len(cands)}",
            fields=[("candidates", len(cands)), ("winning", len(wins)), ("verdict", "won")],
            candidates=[(c.move, "wins") for c in wins],
        )

    def _by_parity(
        self, cands: list[Candidate], rules: Rules, rng: random.Random, t0: float, lost: bool
    ) -> Ranking:
        """Parity search among all the moves with the time left (depth 1 at least).

        ``lost``: the solver proved the position lost (else it ran out of time), which
        is the verdict whatever the search's values say.
        """
        result, nodes = self.parity.search(cands, rules, rng, t0 + self.settings.seconds)
        solver = "lost" if lost else "out of time"
        ranking = self.parity.ranking(cands, result, [("solver", solver), ("nodes", nodes)])
        if lost:
            ranking.set_field("verdict", "lost")
        why = "lost against best play" if lost else "the solver ran out of time"
        ranking.summary = f"{why}; parity search: {ranking.summary}"
        return ranking

    def close(self) -> None:
        super().close()
        self.parity.close()


__all__ = ["PerfectPlayer"]
