"""Parity search for three players: aiming at a game length that gives this player the last move.

With three players the last mover wins, and since every move removes one life the
player at offset ``r`` from the player to move makes the last move exactly when the
moves left ``L`` satisfy ``L ≡ r + 1 (mod 3)`` (``solve/three.py``).  The player
searches as if the other two played together against it (the *paranoid*
assumption; Sturtevant and Korf, *On pruning techniques for multi-player games*,
AAAI 2000): alpha–beta with the player maximising and the other two minimising one
value, which is then a two-sided game and prunes as well as two-player search.

Values are for the searching player:

* ``±2`` exact: at the end of the game (+2 when it made the last move); when no
  length between the bounds on the moves left (``engine/bounds.py``) gives it the
  last move (−2) or the bounds agree on one length that does (+2); and when the
  position's upper bound is within the remaining depth, by the exact three-player
  solver (``ThreeSolver``), whose answer is the paranoid value itself;
* otherwise, at the leaves, the share of the lengths between the bounds that give
  it the last move, as ``2·share − 1`` (±1 when the bounds agree).

The transposition table is keyed by canonical form and the player's offset; the
search deepens one ply at a time while the time lasts (depth 1 always completes);
moves that tie are told apart by Monte Carlo with three players, then at random
(``base.Player``).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from enum import Enum

from ..engine.moves import apply_move, symmetric_moves
from ..engine.parts import clean
from ..engine.position import Position
from ..engine.rules import Rules
from ..solve.three import PLAYERS, ThreeSolver, last_mover_offset
from .base import Player, Ranking, Settings
from .candidates import Candidate
from .deepening import EXACT, TIE, RootSearch

#: The transposition table is cleared when it grows past this many entries.
TABLE_LIMIT = 400_000
#: Positions whose children are kept.
KIDS_LIMIT = 20_000
LOWER, UPPER, EXACT_FLAG = 0, 1, 2


def share_value(lower: int, upper: int, offset: int) -> float:
    """``2·share − 1``: the share of lengths ``lower..upper`` whose last move is made at ``offset``."""
    span = upper - lower + 1
    good = sum(1 for n in range(lower, upper + 1) if last_mover_offset(n) == offset)
    return 2.0 * good / span - 1.0


@dataclass
class Entry:
    depth: float
    value: float
    flag: int


class ParanoidSearch(RootSearch):
    """Alpha–beta for one player against the other two, with a clock and a table."""

    def __init__(self, solver: ThreeSolver | None = None) -> None:
        super().__init__()
        self.solver = solver if solver is not None else ThreeSolver()
        self.table: dict[tuple[str, int], Entry] = {}
        self.kids: dict[str, list[Position]] = {}

    def children(self, pos: Position) -> list[Position]:
        key = pos.canonical()
        hit = self.kids.get(key)
        if hit is None:
            seen: dict[str, Position] = {}
            for m in symmetric_moves(pos):
                child = clean(apply_move(pos, m, check=False))
                seen.setdefault(child.canonical(), child)
            hit = list(seen.values())
            if len(self.kids) > KIDS_LIMIT:
                self.kids.clear()
            self.kids[key] = hit
        return hit

    def static(self, pos: Position, offset: int) -> tuple[float, bool]:
        """The value from the bounds alone, and whether it is exact."""
        lo, hi = self.solver.lengths(pos)
        v = share_value(lo, hi, offset)
        if v <= -1.0:
            return -EXACT, True
        if lo == hi:
            return EXACT, True
        return v, False

    def value(self, pos: Position, offset: int, depth: int, alpha: float, beta: float) -> float:
        """The paranoid value of ``pos`` for the player at ``offset`` (0: it is to move)."""
        self.tick()
        v, exact = self.static(pos, offset)
        if exact:
            return v
        if depth <= 0:
            return v
        key = (pos.canonical(), offset)
        entry = self.table.get(key)
        if entry is not None:
            if abs(entry.value) >= EXACT or (entry.depth >= depth and entry.flag == EXACT_FLAG):
                return entry.value
            if entry.depth >= depth:
                if entry.flag == LOWER:
                    alpha = max(alpha, entry.value)
                else:
                    beta = min(beta, entry.value)
                if alpha >= beta:
                    return entry.value
        if self.solver.lengths(pos)[1] <= depth:  # the search would see the end: solve it exactly
            with self.solver.clock.until(self.clock.at if self.enforce else None):
                v = EXACT if self.solver.forces(pos, offset) else -EXACT
            self._store(key, math.inf, v, EXACT_FLAG)
            return v
        alpha0, beta0 = alpha, beta
        maximise = offset == 0
        child_offset = (offset - 1) % PLAYERS
        kids = self.children(pos)
        kids.sort(key=lambda c: self._order(c, child_offset), reverse=maximise)
        best = -math.inf if maximise else math.inf
        for child in kids:
            v = self.value(child, child_offset, depth - 1, alpha, beta)
            if maximise:
                best = max(best, v)
                alpha = max(alpha, v)
            else:
                best = min(best, v)
                beta = min(beta, v)
            if alpha >= beta:
                break
        if abs(best) >= EXACT:
            flag = EXACT_FLAG
        elif best <= alpha0:
            flag = UPPER
        elif best >= beta0:
            flag = LOWER
        else:
            flag = EXACT_FLAG
        self._store(key, math.inf if abs(best) >= EXACT else depth, best, flag)
        return best

    def _store(self, key: tuple[str, int], depth: float, value: float, flag: int) -> None:
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        self.table[key] = Entry(depth, value, flag)

    def _order(self, child: Position, offset: int) -> float:
        known = self.table.get((child.canonical(), offset))
        if known is not None:
            return known.value
        return self.static(child, offset)[0]

    def root_value(self, child: Position, depth: int, alpha: float) -> float:
        return self.value(child, PLAYERS - 1, depth, alpha, EXACT)


class Verdict(Enum):
    """What a root value says for the searching player: it can force the last move, is stopped, or unknown.

    The value of each member is the word the log writes.
    """

    FORCED = "forced"
    STOPPED = "stopped"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, value: float) -> Verdict:
        if value >= EXACT:
            return cls.FORCED
        if value <= -EXACT:
            return cls.STOPPED
        return cls.UNKNOWN


class ThreeParityPlayer(Player):
    """Parity search for three players: aims at a length that gives it the last move."""

    name = "parity"
    #: It searches in one process, and breaks ties with random games there too.
    tie_jobs = 1

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self.search = ParanoidSearch()

    def rank(self, cands: list[Candidate], rules: Rules, rng: random.Random, t0: float) -> Ranking:
        if rules.players != 3:
            raise ValueError(f"this parity player is for three players, not {rules.describe()}")
        nodes0 = self.search.nodes
        last = self.search.deepen(
            [clean(c.child) for c in cands], t0 + self.settings.seconds, self.settings.depth
        ).last
        depth, values = last.depth, last.values
        best = max(values)
        tied = [c for c, v in zip(cands, values, strict=True) if v >= best - TIE]
        order = sorted(range(len(cands)), key=lambda i: -values[i])
        v = Verdict.of(best).value
        return Ranking(
            tied,
            summary=f"depth {depth}, value {best:+.3f} ({v}), {len(cands)} candidates"
            + (f", {len(tied)} tied" if len(tied) > 1 else ""),
            fields=[
                ("candidates", len(cands)),
                ("depth", depth),
                ("value", f"{best:+.3f}"),
                ("verdict", v),
                ("nodes", self.search.nodes - nodes0),
            ],
            candidates=[(cands[i].move, f"{values[i]:+.3f}") for i in order],
        )


__all__ = ["EXACT", "ParanoidSearch", "ThreeParityPlayer", "Verdict", "share_value"]
