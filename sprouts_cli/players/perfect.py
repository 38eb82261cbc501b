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
from enum import Enum

from ..engine.position import Position
from ..engine.rules import Rules
from ..errors import SolveAborted
from .base import Player, Ranking, Settings
from .candidates import Candidate
from .parity import Verdict
from .parity_player import ParityPlayer
from .parts import Solvers

#: The share of the move's time the solver may take before parity search takes over.
SOLVER_SHARE = 2 / 3


class Fallback(Enum):
    """Why parity search chooses the move: the solver proved the position lost, or ran out of time.

    The value of each member is the word the log's ``solver`` field writes.
    """

    LOST = "lost"
    OUT_OF_TIME = "out of time"

    @property
    def reason(self) -> str:
        """The reason in a few words, for the summary."""
        return "lost against best play" if self is Fallback.LOST else "the solver ran out of time"


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
            return self._by_parity(cands, rules, rng, t0, Fallback.OUT_OF_TIME)
        if not wins:
            return self._by_parity(cands, rules, rng, t0, Fallback.LOST)
        return Ranking(
            wins,
            summary=f"won: {len(wins)} winning move{'s' if len(wins) > 1 else ''} of {len(cands)}",
            fields=[("candidates", len(cands)), ("winning", len(wins)), ("verdict", Verdict.WON.value)],
            candidates=[(c.move, "wins") for c in wins],
        )

    def _by_parity(
        self, cands: list[Candidate], rules: Rules, rng: random.Random, t0: float, why: Fallback
    ) -> Ranking:
        """Parity search among all the moves with the time left (depth 1 at least).

        When the solver proved the position lost, that is the verdict whatever the
        search's values say.
        """
        found = self.parity.search(cands, rules, rng, t0 + self.settings.seconds)
        verdict = Verdict.LOST if why is Fallback.LOST else None
        ranking = self.parity.ranking(cands, found, [("solver", why.value), ("nodes", found.nodes)], verdict)
        ranking.summary = f"{why.reason}; parity search: {ranking.summary}"
        return ranking

    def close(self) -> None:
        super().close()
        self.parity.close()


__all__ = ["Fallback", "PerfectPlayer"]
