"""Perfect play: the exact solver, with parity search to fall back on (Alfeld §5.6–5.8).

The position's children are solved exactly — by nimbers in normal play (a child is
lost for the player who gets it exactly when its nimber is 0), by misère canonical
trees in misère play (``solve/misere.py``) — and a move to a lost child is played.
Several winning moves are told apart by Monte Carlo, then at random (Alfeld §5.8).  When
the position is lost anyway, or the solver cannot finish in the time given (two
thirds of it), parity search chooses among all the moves with the time that is
left, so the player still plays its best guess.  The solver's tables are kept for
the whole game, so later moves are answered mostly from what was proved before.
"""

from __future__ import annotations

import random
import time

from ..engine.position import Position
from ..errors import SolveAborted
from .base import Choice, Player, Settings
from .candidates import Candidate, break_ties, root_candidates
from .montecarlo import Rollouts
from .parity_player import ParityPlayer
from .parts import Solvers

#: The share of the move's time the solver may take before parity search takes over.
SOLVER_SHARE = 2 / 3


class PerfectPlayer(Player):
    """Plays a winning move whenever one exists and the solver finds it in time."""

    name = "perfect"

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self.rollouts = Rollouts(self.settings.jobs)
        self.solvers = Solvers(self.settings.table)
        self.parity = ParityPlayer(self.settings, self.solvers)
        self.parity.rollouts = self.rollouts

    def lost_for_mover(self, p: Position, misere: bool, deadline: float | None) -> bool:
        """Is ``p`` lost for the player to move in it? (``OutOfTime`` past the deadline)"""
        return not self.solvers.wins(p, misere, deadline)

    def winning_moves(self, cands: list[Candidate], misere: bool, deadline: float | None) -> list[Candidate]:
        """The candidates whose child is lost for the opponent (``OutOfTime`` past the deadline)."""
        return [c for c in cands if self.lost_for_mover(c.child, misere, deadline)]

    def choose(self, p: Position, misere: bool, rng: random.Random) -> Choice:
        t0 = time.monotonic()
        cands = root_candidates(p, self.settings.jobs)
        if not cands:
            raise ValueError("no move is left")
        deadline = t0 + SOLVER_SHARE * self.settings.seconds
        try:
            wins = self.winning_moves(cands, misere, deadline)
        except SolveAborted:
            return self._fallback(p, cands, misere, rng, t0, "the solver ran out of time")
        if not wins:
            return self._fallback(p, cands, misere, rng, t0, "lost against best play")
        tie_seconds = max(0.05, 0.25 * self.settings.seconds)
        pick, tie = break_ties(wins, misere, rng, self.rollouts, self.settings.tie_games, tie_seconds)
        return Choice(
            pick.move,
            pick.child,
            summary=f"won: {len(wins)} winning move{'s' if len(wins) > 1 else ''} of {len(cands)}",
            fields=[
                ("candidates", len(cands)),
                ("winning", len(wins)),
                ("verdict", "won"),
                *tie.fields(),
                ("seconds", f"{time.monotonic() - t0:.2f}"),
            ],
            candidates=[(c.move, "wins") for c in wins],
        )

    def _fallback(
        self, p: Position, cands: list[Candidate], misere: bool, rng: random.Random, t0: float, why: str
    ) -> Choice:
        """Parity search among all the moves with the time left (depth 1 at least)."""
        result, nodes = self.parity.search(cands, misere, rng, t0 + self.settings.seconds)
        choice = self.parity._decide(
            cands,
            result,
            misere,
            rng,
            t0,
            [("solver", "lost" if why.startswith("lost") else "out of time"), ("nodes", nodes)],
        )
        if why.startswith("lost"):
            choice.fields = [(k, "lost" if k == "verdict" else v) for k, v in choice.fields]
        choice.summary = f"{why}; parity search: {choice.summary}"
        return choice

    def close(self) -> None:
        self.parity.close()


__all__ = ["PerfectPlayer"]
