"""Random (Alfeld §5.2): a family uniformly, then how many boundaries go inside, then which."""

from __future__ import annotations

import random

from ..engine.moves import apply_move, families, random_move
from ..engine.position import Position
from ..engine.rules import Rules
from .base import Choice, Player


class RandomPlayer(Player):
    """Picks a pair of corners uniformly, then the number enclosed uniformly, then which ones.

    Choosing the number first makes small and large enclosures equally likely
    (``engine.moves.random_move``).  It lists no candidates: the rule is blind to them.
    """

    name = "random"

    def choose(self, p: Position, rules: Rules, rng: random.Random) -> Choice:
        m = random_move(p, rng)
        if m is None:
            raise ValueError("no move is left")
        return Choice(
            m,
            apply_move(p, m),
            summary=f"a random move among {len(families(p))} pairs of corners",
            fields=[("families", len(families(p)))],
        )
