"""Monte Carlo (Alfeld §5.3): random games from each candidate, the best share wins.

For each candidate move a number of random games (Random's choices, §5.2) is played
to the end from the position after it, and the games the mover wins are counted
(``rollouts.py``).  Instead of a number of games, a time may be given: the candidates
then get rounds of one game each until the time is up.  Candidates with the same best
share are already told apart by random games, so the tie is broken at random.
"""

from __future__ import annotations

import random
import time

from ..engine.rules import Rules
from .base import Field, Player, Ranking
from .candidates import Candidate


class MonteCarloPlayer(Player):
    """Plays the candidate whose random games the mover wins most often (Alfeld §5.3)."""

    name = "montecarlo"

    def rank(self, cands: list[Candidate], rules: Rules, rng: random.Random, t0: float) -> Ranking:
        games = self.settings.games
        seconds = None if games is not None else max(0.0, self.settings.seconds - (time.monotonic() - t0))
        tally = self.rollouts.tally([c.child for c in cands], rules, games, seconds, rng.getrandbits(31))
        best = max(tally.share(i) for i in range(len(cands)))
        tied = [c for i, c in enumerate(cands) if tally.share(i) == best]
        order = sorted(range(len(cands)), key=lambda i: -tally.share(i))
        return Ranking(
            tied,
            summary=f"{len(cands)} candidates, {sum(tally.played)} random games, best wins {best:.0%}",
            fields=[
                ("candidates", len(cands)),
                ("games", sum(tally.played)),
                ("best-share", f"{best:.3f}"),
            ],
            candidates=[(cands[i].move, f"{tally.won[i]}/{tally.played[i]}") for i in order],
        )

    def break_tie(
        self, tied: list[Candidate], rules: Rules, rng: random.Random
    ) -> tuple[Candidate, list[Field]]:
        """At random: the tied candidates' random games are what ranked them."""
        pick = tied[0] if len(tied) == 1 else rng.choice(tied)
        return pick, [("tied", len(tied))]


__all__ = ["MonteCarloPlayer"]
