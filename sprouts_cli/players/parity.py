"""Parity search (Alfeld §5.4–5.6, §5.8): alpha–beta on the parity of the moves left.

Every move removes exactly one life, so the game is decided by the parity of the
number of moves left: in normal play the player to move wants it odd (counting its
own move), in misère play even.  The search is alpha–beta in negamax form (Knuth and
Moore, *An analysis of alpha-beta pruning*, Artificial Intelligence 6, 1975) over
the topological positions, with a heuristic value at its leaves from the bounds on
the moves left (``engine/bounds.py``): with ``M`` an upper and ``m`` a lower bound,

    v = ±1 / (1 + M − m),   positive when M has the parity the player to move wants.

A position with no move is lost in normal play and won in misère play (value ∓2).
Values ±2 are exact: they come from the end of the game or from solved parts and hold
at any depth.  With ``-2 ≤ α < β ≤ 2`` and fail-soft returns, a returned ±2 is never
a mere bound, so it is stored as exact.

*Solved parts* (Alfeld §5.6, §5.7).  When a position is a sum of two or more independent
parts (lands), every part whose upper bound is within the remaining depth (the search
would look to its end anyway) is solved on its own — its nimber in normal play, its
misère canonical tree in misère play — and taken out, replaced by one nim heap (the
xor of the nimbers) or one tree (the sum of the trees) kept *beside* the position.
Moves in the heap or the tree are moves too.  Once every part is solved the value is
exact.  This replaces the product of the parts' game trees by their sum (Lemoine and
Viennot, *Computer analysis of Sprouts with nimbers*, 2015).

The transposition table is keyed by the canonical form (and what is beside), so the
many orders in which a position is reached, and its mirror images, are searched
once.  Interchangeable boundaries are enumerated by how many go inside; inside the
tree a family with more than 64 ways of choosing the enclosed boundaries contributes
64 random distinct ones; at the root every move is considered (``candidates.py``).
The search deepens one ply at a time while the time lasts, the clock is read at
every node, and a search of depth 1 is always completed.  Moves that tie for the
best value are told apart by Monte Carlo, then at random (Alfeld §5.8).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from itertools import product
from typing import TYPE_CHECKING, Any, Protocol

from ..engine.bounds import land_facts, land_lower_bound, lower_bound, upper_bound
from ..engine.moves import Move, apply_move, families, interchangeable_classes, live_others
from ..engine.parts import clean, join_lands, land_regions, split_lands
from ..engine.position import Position
from ..engine.rules import Rules
from ..solve.lengths import LengthOracle
from .deepening import EXACT, TIE, RootResult, RootSearch

if TYPE_CHECKING:  # pragma: no cover
    from ..solve.store import Table

#: Inside the tree, a family with more ways than this of choosing what it encloses is sampled.
SAMPLE = 64
#: The transposition table is cleared when it grows past this many entries.
TABLE_LIMIT = 400_000
#: Positions whose children are kept (they are listed again when dropped).
KIDS_LIMIT = 20_000
#: Lower, upper, exact entries of the transposition table.
LOWER, UPPER, EXACT_FLAG = 0, 1, 2


class Parts(Protocol):
    """Solved parts kept beside a position: a nim heap (normal play) or a misère tree."""

    zero: Any

    def solve(self, land: Position, deadline: float | None) -> Any | None: ...

    def add(self, beside: Any, value: Any) -> Any: ...

    def options(self, beside: Any) -> list[Any]: ...

    def alone_wins(self, beside: Any) -> bool: ...

    def lengths(self, beside: Any) -> tuple[int, int]: ...

    def key(self, beside: Any) -> str: ...


@dataclass
class Entry:
    depth: float
    value: float
    flag: int
    best: str | None


def leaf_value(upper: int, lower: int, rules: Rules) -> float:
    """``±1/(1 + M − m)``: positive when M moves left would win for the player to move (Alfeld §5.4)."""
    spread = max(0, upper - lower)
    good = rules.to_move_wins(upper)
    return (1.0 if good else -1.0) / (1 + spread)


class Verdict(Enum):
    """What a root value says of the position for the player to move: won or lost when exact, else unknown.

    The value of each member is the word the log writes.
    """

    WON = "won"
    LOST = "lost"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, value: float) -> Verdict:
        if value >= EXACT:
            return cls.WON
        if value <= -EXACT:
            return cls.LOST
        return cls.UNKNOWN


@dataclass(frozen=True)
class SearchResult:
    """What a parity search of the root found: the deepest completed depth, and the nodes it took."""

    root: RootResult
    nodes: int

    @property
    def verdict(self) -> Verdict:
        """The verdict of the best candidate's value."""
        return Verdict.of(self.root.best)


class ParitySearch(RootSearch):
    """Negamax alpha–beta with a transposition table, solved parts and a deadline."""

    def __init__(
        self,
        rules: Rules,
        parts: Parts | None = None,
        oracle: LengthOracle | None = None,
        rng: random.Random | None = None,
        sample: int = SAMPLE,
    ) -> None:
        if rules.players != 2:
            raise ValueError(f"parity search is for two players, not {rules.describe()}")
        super().__init__()
        self.rules = rules
        self.parts = parts
        self.oracle = oracle
        self.rng = rng or random.Random(0)
        self.sample = sample
        self.table: dict[tuple[str, str], Entry] = {}
        self.static: dict[tuple[str, str], float] = {}
        self.kids: dict[str, list[Position]] = {}
        self.solved_parts = 0

    # ------------------------------------------------------------------ beside
    def _zero(self) -> Any:
        return self.parts.zero if self.parts is not None else 0

    def _key(self, beside: Any) -> str:
        return self.parts.key(beside) if self.parts is not None else ""

    def _beside_options(self, beside: Any) -> list[Any]:
        return self.parts.options(beside) if self.parts is not None else []

    def _alone(self, beside: Any) -> float:
        """The exact value of what is beside, with no move left in the position itself."""
        if self.parts is None or beside == self.parts.zero:
            return EXACT if self.rules.stuck_player_wins else -EXACT
        return EXACT if self.parts.alone_wins(beside) else -EXACT

    # ------------------------------------------------------------------ leaves
    def evaluate(self, pos: Position, beside: Any) -> float:
        """The heuristic value of a leaf for the player to move (cached by canonical form)."""
        key = (pos.canonical(), self._key(beside))
        hit = self.static.get(key)
        if hit is not None:
            return hit
        upper = upper_bound(pos)
        lower = lower_bound(pos)
        if self.oracle is not None:
            longest = self.oracle.longest(pos, self.clock.at)
            if longest is not None:
                upper = longest
        if self.parts is not None and beside != self.parts.zero:
            lo, hi = self.parts.lengths(beside)
            upper += hi
            lower += lo
        v = leaf_value(upper, lower, self.rules)
        if len(self.static) > TABLE_LIMIT:
            self.static.clear()
        self.static[key] = v
        return v

    # ------------------------------------------------------------------ parts
    def solve_parts(self, pos: Position, beside: Any, depth: int) -> tuple[Position, Any, float | None]:
        """Take out the parts short enough to solve (Alfeld §5.6); the exact value once none is left."""
        if self.parts is None:
            return pos, beside, None
        lands = split_lands(pos)
        if len(lands) < 2:
            return pos, beside, None
        kept = []
        changed = False
        for land in lands:
            if land_facts(land.regions, land.lives).upper <= depth:
                value = self.parts.solve(land, self.clock.at if self.enforce else None)
                if value is not None:
                    beside = self.parts.add(beside, value)
                    self.solved_parts += 1
                    changed = True
                    continue
            kept.append(land)
        if not changed:
            return pos, beside, None
        if not kept:
            return pos, beside, self._whole(beside)
        return join_lands(pos, kept), beside, None

    def _whole(self, beside: Any) -> float:
        """The exact value when every part is solved: the outcome of what is beside."""
        assert self.parts is not None
        if beside == self.parts.zero:
            return EXACT if self.rules.stuck_player_wins else -EXACT
        return EXACT if self.parts.alone_wins(beside) else -EXACT

    # ------------------------------------------------------------------ children
    def moves(self, pos: Position) -> list[Move]:
        """Every move up to interchangeable boundaries; a family with very many enclosures is sampled.

        Families that differ only by which lone spot of one kind they use are the same
        move up to a symmetry of the position, and only the first is kept.
        """
        out: list[Move] = []
        for ri, bi, ci, bj, cj in _distinct_families(pos):
            if bi != bj:
                out.append(Move(ri, bi, ci, bj, cj))
                continue
            classes = interchangeable_classes(pos, ri, live_others(pos, ri, bi))
            sizes = [len(c) + 1 for c in classes]
            if math.prod(sizes) <= self.sample:
                choices: Iterator[tuple[int, ...]] = product(*(range(s) for s in sizes))
            else:
                seen: set[tuple[int, ...]] = set()
                while len(seen) < self.sample:
                    seen.add(tuple(self.rng.randrange(s) for s in sizes))
                choices = iter(sorted(seen))
            for counts in choices:
                inside = frozenset(k for c, n in zip(classes, counts, strict=True) for k in c[:n])
                out.append(Move(ri, bi, ci, bj, cj, inside))
        return out

    def children(self, pos: Position) -> list[Position]:
        """The distinct children (cleaned), duplicates by canonical form dropped; kept per position.

        Iterative deepening expands the same positions again at every depth, so the
        children of each are listed once (the costly step: their canonical forms).
        """
        key = pos.canonical()
        hit = self.kids.get(key)
        if hit is not None:
            return hit
        seen: dict[str, Position] = {}
        for m in self.moves(pos):
            child = clean(apply_move(pos, m, check=False))
            seen.setdefault(child.canonical(), child)
        out = list(seen.values())
        if len(self.kids) > KIDS_LIMIT:
            self.kids.clear()
        self.kids[key] = out
        return out

    # ------------------------------------------------------------------ negamax
    def negamax(self, pos: Position, beside: Any, depth: int, alpha: float, beta: float) -> float:
        """The value of ``pos`` (with ``beside``) for the player to move, within ``(alpha, beta)``."""
        self.tick()
        if not pos.live_region_indices():
            return self._alone(beside)
        if depth > 0:
            pos, beside, exact = self.solve_parts(pos, beside, depth)
            if exact is not None:
                return exact
        if depth <= 0:
            return self.evaluate(pos, beside)
        if depth == 1 and beside == self._zero():
            return self.frontier(pos)
        key = (pos.canonical(), self._key(beside))
        entry = self.table.get(key)
        known, alpha, beta = self._probe(entry, depth, alpha, beta)
        if known is not None:
            return known
        alpha0 = alpha
        best, best_key = self._search_moves(pos, beside, depth, alpha, beta, entry)
        self._store(key, depth, best, best_key, alpha0, beta)
        return best

    @staticmethod
    def _probe(
        entry: Entry | None, depth: int, alpha: float, beta: float
    ) -> tuple[float | None, float, float]:
        """What the table's entry settles: a value that ends the search, or a narrower window.

        An exact win or loss holds at any depth; a bound found at least as deep
        narrows ``(alpha, beta)``, and ends the search when the window closes.
        """
        if entry is None:
            return None, alpha, beta
        if abs(entry.value) >= EXACT:
            return entry.value, alpha, beta
        if entry.depth >= depth:
            if entry.flag == EXACT_FLAG:
                return entry.value, alpha, beta
            if entry.flag == LOWER:
                alpha = max(alpha, entry.value)
            elif entry.flag == UPPER:
                beta = min(beta, entry.value)
            if alpha >= beta:
                return entry.value, alpha, beta
        return None, alpha, beta

    def _search_moves(
        self, pos: Position, beside: Any, depth: int, alpha: float, beta: float, entry: Entry | None
    ) -> tuple[float, str | None]:
        """The best value over the moves in ``pos`` and then those beside it, with the best move's form.

        Moves in ``pos`` go best first (the table's move, then by value) and stop at
        a cut-off; a move beside ``pos`` is only tried when no cut-off came, and is
        named by ``None`` (it leaves ``pos`` as it is).
        """
        best = -math.inf
        best_key: str | None = None
        kids = self.children(pos)
        kids.sort(key=lambda c: self._order(c, beside, entry))
        for child in kids:
            v = -self.negamax(child, beside, depth - 1, -beta, -alpha)
            if v > best:
                best, best_key = v, child.canonical()
            if v > alpha:
                alpha = v
            if alpha >= beta:
                return best, best_key
        for other in self._beside_options(beside):
            v = -self.negamax(pos, other, depth - 1, -beta, -alpha)
            if v > best:
                best, best_key = v, None
            if v > alpha:
                alpha = v
            if alpha >= beta:
                break
        return best, best_key

    def _store(
        self, key: tuple[str, str], depth: int, best: float, best_key: str | None, alpha0: float, beta: float
    ) -> None:
        """Keep ``best`` in the table as a bound or exact value (the window it was found in says which).

        A win or loss is exact and kept at infinite depth; the table is emptied when full.
        """
        if best <= alpha0:
            flag = UPPER
        elif best >= beta:
            flag = LOWER
        else:
            flag = EXACT_FLAG
        if abs(best) >= EXACT:
            flag = EXACT_FLAG
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        self.table[key] = Entry(math.inf if abs(best) >= EXACT else depth, best, flag, best_key)

    def frontier(self, pos: Position) -> float:
        """A node one ply above the leaves: the best of its children's leaf values.

        Every child must be evaluated anyway, so they are not named (no canonical
        form, no table): each is judged by its bounds alone, or exactly at the end.
        """
        best = -math.inf
        for m in self.moves(pos):
            self.tick()
            v = -self._leaf(apply_move(pos, m, check=False))
            if v > best:
                best = v
                if best >= EXACT:
                    break
        return best

    def _leaf(self, pos: Position) -> float:
        """A leaf judged by its bounds (or exactly when no move is left)."""
        lands = land_regions(pos)
        if not lands:
            return EXACT if self.rules.stuck_player_wins else -EXACT
        lives = pos.lives
        upper = sum(land_facts(r, lives).upper for r in lands)
        lower = sum(land_lower_bound(r, lives, None) for r in lands)
        if self.oracle is not None:
            longest = self.oracle.longest(pos, self.clock.at)
            if longest is not None:
                upper = longest
        return leaf_value(upper, lower, self.rules)

    def _order(self, child: Position, beside: Any, entry: Entry | None) -> tuple[int, float]:
        """Best first: the child the table names, then the children worst for the opponent."""
        if entry is not None and entry.best == child.canonical():
            return (0, 0.0)
        known = self.table.get((child.canonical(), self._key(beside)))
        if known is not None:
            return (1, known.value)
        return (2, self.evaluate(child, beside))

    # ------------------------------------------------------------------ the root
    def root_value(self, child: Position, depth: int, alpha: float) -> float:
        return -self.negamax(child, self._zero(), depth, -EXACT, -alpha)


def _distinct_families(p: Position) -> list[tuple[int, int, int, int, int]]:
    """``families(p)`` less those that only swap lone boundaries (one spot occurring once) of one kind."""
    lives = p.lives
    count: dict[int, int] = {}
    for r in p.regions:
        for b in r:
            for s in b:
                count[s] = count.get(s, 0) + 1
    seen: set[tuple[object, ...]] = set()
    out: list[tuple[int, int, int, int, int]] = []

    def end(region: tuple[tuple[int, ...], ...], b: int, c: int) -> tuple[object, ...]:
        bound = region[b]
        if len(bound) == 1 and count[bound[0]] == 1:
            return ("lone", lives[bound[0]])
        return ("b", b, c)

    for ri, bi, ci, bj, cj in families(p):
        region = p.regions[ri]
        e1, e2 = end(region, bi, ci), end(region, bj, cj)
        sig = (ri, bi == bj, *((e1, e2) if bi == bj else sorted((e1, e2))))
        if sig not in seen:
            seen.add(sig)
            out.append((ri, bi, ci, bj, cj))
    return out


def parts_for(rules: Rules, table: Table | None = None) -> Parts:
    """What a search keeps beside a position for the rules: a nim heap or a misère tree."""
    from .parts import Solvers

    return Solvers(table).parts(rules)


__all__ = [
    "EXACT",
    "TIE",
    "ParitySearch",
    "Parts",
    "RootResult",
    "SearchResult",
    "Verdict",
    "leaf_value",
    "parts_for",
]
