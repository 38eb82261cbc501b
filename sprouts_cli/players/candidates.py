"""The candidates at the root, and how ties between them are broken (Alfeld §5.8).

At the root the computer considers every legal move, not a sample: one per way of
sharing out the region's other boundaries, up to boundaries that are interchangeable
(``moves.representative_moves``), which changes nothing since swapping those is a
symmetry.  Many of them still lead to the same position, so the children's canonical
forms are computed (on worker processes when there are many and several are allowed)
and duplicates dropped.  What is left is the list of truly different moves.  They are
listed from the position in its standard order (``moves.standard_order``), so that the
list, and the choice made from it for a seed, is the same for every reading of one
numbered position (two pictures of it read back).

Several moves may tie for the best value.  The tie is broken without looking at the
picture: random games are played from the tied moves alone (Monte Carlo) and the
move that won most often is taken; a tie that remains is broken at random, which
keeps games between two computers from repeating.
"""

from __future__ import annotations

import os
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..engine.moves import Move, apply_move, representative_moves, standard_order
from ..engine.position import Position
from ..engine.rules import Rules
from ..procs import pool_initializer
from .rollouts import Rollouts

#: Above this many children, and with more than one job, canonical forms are computed in workers.
PARALLEL_FROM = 400


@dataclass(frozen=True)
class Candidate:
    """One truly different move at the root: the move, its child, and the child's canonical form.

    The child is made from the position in standard order: the same position as
    ``apply_move(p, move)``, read in that order (or its mirror image).
    """

    move: Move
    child: Position
    key: str


def _canonical_forms(children: list[Position]) -> list[str]:
    return [c.canonical() for c in children]


def root_candidates(p: Position, jobs: int = 1) -> list[Candidate]:
    """Every legal move of ``p`` with duplicates (the same child) dropped, in the standard move order."""
    order = standard_order(p)
    q = order.position
    moves = representative_moves(q)
    children = [apply_move(q, m, check=False) for m in moves]
    if jobs > 1 and len(children) >= PARALLEL_FROM:
        chunk = -(-len(children) // jobs)
        parts = [children[i : i + chunk] for i in range(0, len(children), chunk)]
        with ProcessPoolExecutor(
            max_workers=jobs, initializer=pool_initializer, initargs=(os.getpid(),)
        ) as ex:
            keys = [k for part in ex.map(_canonical_forms, parts) for k in part]
    else:
        keys = [c.canonical() for c in children]
    seen: set[str] = set()
    out: list[Candidate] = []
    for m, child, key in zip(moves, children, keys, strict=True):
        if key not in seen:
            seen.add(key)
            out.append(Candidate(order.move_back(m), child, key))
    return out


@dataclass
class TieBreak:
    """How a tie was broken: the moves tied, the Monte Carlo games, and whether chance decided."""

    tied: int
    games: int = 0
    by_chance: bool = False

    def fields(self) -> list[tuple[str, object]]:
        if self.tied <= 1:
            return []
        out: list[tuple[str, object]] = [("tied", self.tied), ("tie-games", self.games)]
        if self.by_chance:
            out.append(("tie-broken", "at random"))
        return out


def break_ties(
    tied: list[Candidate],
    rules: Rules,
    rng: random.Random,
    rollouts: Rollouts,
    games: int,
    seconds: float,
) -> tuple[Candidate, TieBreak]:
    """One of ``tied``: the one whose random games the mover won most often, then at random.

    The random games are played ``games`` rounds at most and stop after ``seconds``
    (at least one round).
    """
    if len(tied) == 1:
        return tied[0], TieBreak(1)
    tally = rollouts.tally([c.child for c in tied], rules, games, seconds, rng.getrandbits(31))
    best = max(tally.share(i) for i in range(len(tied)))
    still = [c for i, c in enumerate(tied) if tally.share(i) == best]
    info = TieBreak(len(tied), sum(tally.played), len(still) > 1)
    return (still[0] if len(still) == 1 else rng.choice(still)), info


__all__ = ["Candidate", "TieBreak", "break_ties", "root_candidates"]
