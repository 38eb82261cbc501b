"""Normal play by nimbers: outcomes, nimbers and winning moves of Sprouts positions (Alfeld §5.6).

A position falls apart into lands, independent games; by the Sprague–Grundy theory a
land ``L`` has a nimber, the player to move loses a sum exactly when the xor of the
nimbers is 0, and ``L + *k`` is a loss exactly when ``nimber(L) = k`` (Berlekamp,
Conway and Guy, *Winning Ways*).  The solver follows Lemoine and Viennot
("Nimbers are inevitable", Theoret. Comput. Sci. 462, 2012; "Computer analysis of
Sprouts with nimbers", Games of No Chance 4, 2015):

* the question asked is always "is ``L + *k`` a win?" for one land ``L`` and one
  heap ``k``, never "what is every nimber?";
* a child that is a sum of several lands is turned into one land and a heap by
  computing the nimbers of all its lands but the largest (the mex only where needed:
  the nimber of a land is the least ``k`` for which ``L + *k`` is a loss);
* the search over "is ``L + *k`` a win?" is depth-first proof-number search (df-pn,
  A. Nagai, *Df-pn algorithm for searching AND/OR trees and its applications*, PhD
  thesis, Univ. of Tokyo, 2002) with the 1+ε threshold of J. Pawlewicz and Ł. Lew
  (*Improving depth-first PN-search: 1+ε trick*, Computers and Games 2006): it keeps
  proving the part of the tree that looks cheapest, which in measurements expands
  many fewer lands than alpha–beta in any fixed move order;
* everything proved is kept, in memory and in the table (``store.py``), by the
  reduced form of the land (``engine/reduce.py``), which keeps the value.

What is kept about a land is its nimber once known, and before that the set of
heaps ``k`` for which ``L + *k`` was proved a win (a proved loss *is* the nimber).
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import reduce
from operator import xor
from typing import Protocol

from ..engine.caches import BoundedCache
from ..engine.position import Position
from ..engine.reduce import reduced_lands
from ..errors import OutOfTime, SolveInterrupted
from .children import LazyChildren
from .clock import Deadline


class NormalTable(Protocol):
    """Where a ``NormalSolver`` reads and writes normal-play facts (``store.Table``, a job's outbox)."""

    def get_normal(self, land: str) -> tuple[int | None, int] | None: ...

    def put_nimber(self, land: str, nimber: int) -> None: ...

    def put_win(self, land: str, heap: int) -> None: ...

#: Proof and disproof numbers at or above this are "infinite" (the node is decided).
INF = 1 << 60
#: The 1+ε trick: a child is searched until its number passes the second best by this factor.
EPSILON = 0.25
#: The clock (deadline, abort request, progress) is read every this many node visits.
CLOCK_EVERY = 32
#: At most this many lands keep their children in memory (least recently used go first).
#: ``0*12`` (one process): 20,000 forgot lands it needed again; with 100,000 (the moves of
#: only 20,000 kept) it expands 48,000 lands and takes 63 CPU s instead of ~85, at the
#: same peak memory (112 MB).
CHILDREN_CACHE = 100_000
#: Of those, at most this many keep their listed moves too (the rest list them again when
#: asked: a list of moves is most of a land's memory, and costs one listing to make again).
MOVES_CACHE = 20_000
#: A fresh node's disproof number per life.  A land has about twice as many distinct
#: children as lives, yet 2 (and a remaining-children estimate with that prior) expanded
#: 10-50% more lands on the n-spot starts: pricing fresh nodes low makes df-pn look at
#: more children of a node before going deep, and that finds cheap refutations.
DN_PER_LIFE = 1
#: Lands with at most this many lives get their whole nimber at once, by the mex rule
#: (measured on the n-spot starts: 5 expands 5-10% fewer lands than 0; 6 to 8 more).
SMALL_LIVES = 5
#: The table of unproved nodes' (pn, dn) is emptied when it grows past this.
TT_LIMIT = 1_000_000

Lands = tuple[str, ...]
#: A search node: (land, heap) for one land, or (lands, heap) for a sum not yet reduced.
Node = tuple[str | Lands, int]


_TOKEN = re.compile(r"0\*(\d+)|([0-3])|[a-lA-Y]|[mn]\(\d+\)")
_DIGIT_LIVES = {"0": 6, "1": 4, "2": 2, "3": 0}


def land_lives(land: str) -> int:
    """The lives of a land in reduced form, read off the string (each letter occurs twice)."""
    twice = 0  # twice the lives, as a letter (one life) occurs twice
    for m in _TOKEN.finditer(land):
        count, digit = m.group(1), m.group(2)
        if count is not None:
            twice += 6 * int(count)
        elif digit is not None:
            twice += _DIGIT_LIVES[digit]
        else:
            twice += 1
    return twice // 2


def position_parts(position: Position | str) -> tuple[Lands, int]:
    """A position as the sorted reduced forms of its lands and the xor of its heaps."""
    p = Position.from_string(position) if isinstance(position, str) else position
    return tuple(reduced_lands(p)), reduce(xor, p.heaps, 0)


class NormalSolver:
    """Exact normal-play solver: ``outcome``, ``nimber``, ``winning_moves`` of any position.

    ``table`` (a ``store.Table``, any ``NormalTable``, or None) is read for what earlier
    runs proved and written with every new fact.  ``deadline`` is a ``time.monotonic()`` value past
    which ``OutOfTime`` is raised; ``abort`` is a function that returns True when
    the search must stop (``SolveInterrupted``).  What was proved before either is
    kept.  ``progress`` is called now and then with ``self.stats``.
    """

    def __init__(
        self,
        table: NormalTable | None = None,
        *,
        abort: Callable[[], bool] | None = None,
        progress: Callable[[dict[str, int]], None] | None = None,
        progress_seconds: float = 0.25,
        refresh_seconds: float | None = None,
        children_cache: int = CHILDREN_CACHE,
        moves_cache: int = MOVES_CACHE,
        small_lives: int | None = None,
    ) -> None:
        self.table = table
        self.abort = abort
        self.progress = progress
        self.progress_seconds = progress_seconds
        self.refresh_seconds = refresh_seconds
        self.children_cache = children_cache
        self.small_lives = SMALL_LIVES if small_lives is None else small_lives
        self._nim: dict[str, int] = {}
        self._wins: dict[str, int] = {}
        self._looked_up: set[str] = set()
        self._kids: BoundedCache[str, LazyChildren] = BoundedCache(children_cache)
        self.moves_cache = moves_cache
        self._moves_held: OrderedDict[str, LazyChildren] = OrderedDict()
        self._lives: dict[str, int] = {}
        self._tt: dict[Node, tuple[int, int]] = {}
        self._deadline = Deadline(message="the solver ran out of time")
        self._ticks = 0
        self._last_progress = time.monotonic()
        self._last_refresh = time.monotonic()
        self.stats = {"positions_solved": 0, "table_hits": 0, "lands_expanded": 0, "nodes": 0}

    # ================================================================= public
    def outcome(self, position: Position | str, deadline: float | None = None) -> bool:
        """True when the player to move wins ``position`` (heaps included) in normal play."""
        lands, k = position_parts(position)
        with self._deadline.until(deadline):
            return self.sum_wins(lands, k)

    def nimber(self, position: Position | str, deadline: float | None = None) -> int:
        """The nimber of a position: the xor of its lands' nimbers and its heaps."""
        lands, k = position_parts(position)
        with self._deadline.until(deadline):
            for land in lands:
                k ^= self.land_nimber(land)
        return k

    def winning_moves(self, position: Position | str, deadline: float | None = None) -> list[str]:
        """The children (exact canonical forms, sorted) that are losses for the player who gets them."""
        return [child for child, win in self.child_outcomes(position, deadline) if not win]

    def child_outcomes(
        self, position: Position | str, deadline: float | None = None
    ) -> list[tuple[str, bool]]:
        """Every distinct child (exact canonical form, sorted) and whether its player to move wins."""
        p = Position.from_string(position) if isinstance(position, str) else position
        out = []
        with self._deadline.until(deadline):
            for child in sorted(p.children()):
                lands, k = position_parts(child)
                out.append((child, self.sum_wins(lands, k)))
        return out

    def known_nimber(self, land: str) -> int | None:
        """The nimber of a land if it is known (memory or table), without searching."""
        return self._known_nimber(land)

    # ============================================================ the questions
    def sum_wins(self, lands: Lands, k: int) -> bool:
        """Is ``lands[0] + lands[1] + … + *k`` a win for the player to move?"""
        while True:
            node = self._node(lands, k)
            if node is True or node is False:
                return node
            self._mid(node, INF, INF)

    def land_nimber(self, land: str) -> int:
        """The nimber of one land: the least k for which land + *k is a loss (the mex rule)."""
        n = self._known_nimber(land)
        if n is not None:
            return n
        k = 0
        while self.sum_wins((land,), k):
            k += 1
        return k

    # ============================================================== knowledge
    def _known_nimber(self, land: str) -> int | None:
        n = self._nim.get(land)
        if n is None and land not in self._looked_up:
            self._lookup(land)
            n = self._nim.get(land)
        return n

    def _small_nimber(self, land: str) -> int:
        """The nimber of a small land by the mex rule over all its children (each a xor of lands).

        Small lands come back again and again in a search, each time with another heap
        (in ``0*9.1a1a + *1`` lands of 7 to 12 lives are asked with heaps 0 to 5): one
        exhaustive mex costs less than a proof-number search per heap.  Every land of a
        child has fewer lives, so the recursion ends; it is memoized like every nimber.
        """
        n = self._known_nimber(land)
        if n is not None:
            return n
        self._tick()
        values = set()
        for child in self._children(land).all():
            v = 0
            for x in child:
                v ^= self._small_nimber(x)
            values.add(v)
        n = 0
        while n in values:
            n += 1
        self._record_nimber(land, n)
        return n

    def _lookup(self, land: str) -> None:
        """Read what the table knows of a land (once; again after ``refresh_seconds``)."""
        self._looked_up.add(land)
        if self.table is None:
            return
        hit = self.table.get_normal(land)
        if hit is None:
            return
        nimber, wins = hit
        if nimber is not None:
            self._nim[land] = nimber
            self._wins.pop(land, None)
            self._kids.pop(land, None)
            self.stats["table_hits"] += 1
        elif wins & ~self._wins.get(land, 0):
            self._wins[land] = self._wins.get(land, 0) | wins
            self.stats["table_hits"] += 1

    def _record_win(self, land: str, k: int) -> None:
        self._wins[land] = self._wins.get(land, 0) | (1 << k)
        self.stats["positions_solved"] += 1
        if self.table is not None:
            self.table.put_win(land, k)

    def _record_nimber(self, land: str, k: int) -> None:
        self._nim[land] = k
        self._wins.pop(land, None)
        self._kids.pop(land, None)
        self.stats["positions_solved"] += 1
        if self.table is not None:
            self.table.put_nimber(land, k)

    def _node(self, lands: Lands, k: int) -> Node | bool:
        """What ``lands + *k`` comes to with the known nimbers folded into the heap.

        True/False when decided; else (land, k) for one unknown land or (lands, k) for a
        sum of several.
        """
        nim = self._nim
        if len(lands) == 1:  # most children: one land, already looked up
            land = lands[0]
            n = nim.get(land)
            if n is not None:
                return k != n
            if land in self._looked_up:
                return True if (self._wins.get(land, 0) >> k) & 1 else (land, k)
        rest: list[str] = []
        for land in lands:
            n = nim.get(land)
            if n is None and land not in self._looked_up:
                self._lookup(land)
                n = nim.get(land)
                if n is None and self._lives_of(land) <= self.small_lives:
                    n = self._small_nimber(land)
            if n is not None:
                k ^= n
            elif rest and rest[-1] == land:
                rest.pop()  # G + G = 0: the second player copies the first (lands come sorted)
            else:
                rest.append(land)
        if not rest:
            return k != 0
        if len(rest) == 1:
            land = rest[0]
            if (self._wins.get(land, 0) >> k) & 1:
                return True
            return (land, k)
        return (tuple(rest), k)

    def _children(self, land: str) -> LazyChildren:
        """The children of a land, computed as the search needs them (cached, least recently used go)."""
        kids = self._kids.get(land)
        if kids is not None:
            self._kids.move_to_end(land)
        else:
            self.stats["lands_expanded"] += 1
            kids = self._kids.remember(land, LazyChildren(land))
        if not kids.done:  # the most recent open lands keep their listed moves
            held = self._moves_held
            if held.get(land) is not kids:
                held[land] = kids
                if len(held) > self.moves_cache:
                    held.popitem(last=False)[1].drop_moves()
            held.move_to_end(land)
        return kids

    def _lives_of(self, land: str) -> int:
        v = self._lives.get(land)
        if v is None:
            v = self._lives[land] = land_lives(land)
        return v

    # ================================================================ df-pn
    def _mid(
        self, node: Node, thpn: int, thdn: int, pshift: int = 0, dshift: int = 0, thmin: int = INF
    ) -> None:
        """Search ``node`` until its proof number reaches ``thpn`` or its disproof number ``thdn``.

        pn is the cost of proving "a win for the player to move", dn of proving "a
        loss"; a node wins when some child loses (pn = least child dn) and loses when
        every child wins (dn = sum of child pn).  Unproved nodes keep (pn, dn) in a
        transposition table; proved ones become facts.

        A sum of lands sets a third threshold (``sum_search``): its cost is the sum of
        its lands' costs, each the least of pn and dn, so below a sum a node is also
        given up when ``min(pn + pshift, dn + dshift)`` reaches ``thmin`` (the
        thresholds of T. Čížek's SPOTS, which carry a sum's bound down through plain
        nodes with the shifts).
        """
        self._tick()
        what, k = node
        if not isinstance(what, str):
            self._mid_sum(node, thpn, thdn, pshift, dshift, thmin)
            return
        land = what
        lazy = self._children(land)
        if not lazy.found and not lazy.done:
            lazy.more()
        kids = lazy.found
        # a child not computed yet is priced as a fresh one
        fresh_dn = DN_PER_LIFE * (self._lives_of(land) - 1)
        tt = self._tt
        node_of = self._node
        while True:
            pn = INF
            dn = 0
            best: Node | None = None
            best_pn = 0
            second = INF
            for i in range(len(kids) + k):
                child = node_of(kids[i], k) if i < len(kids) else node_of((land,), i - len(kids))
                if child is True:
                    continue  # a won child adds nothing to dn and is no way to win
                if child is False:
                    pn = 0
                    break
                hit = tt.get(child)
                cpn, cdn = hit if hit is not None else self._initial(child)
                if cdn < pn:
                    second = pn
                    pn = cdn
                    best, best_pn = child, cpn
                elif cdn < second:
                    second = cdn
                dn += cpn
            expand = False
            if pn and not lazy.done:  # the children not computed yet, as one more child
                dn += lazy.remaining()
                if fresh_dn < pn:
                    second, pn, expand = pn, fresh_dn, True
                elif fresh_dn < second:
                    second = fresh_dn
            if pn == 0:
                tt.pop(node, None)
                self._record_win(land, k)
                return
            if dn == 0:
                tt.pop(node, None)
                self._record_nimber(land, k)
                return
            if dn > INF:
                dn = INF
            if pn >= thpn or dn >= thdn or min(pn + pshift, dn + dshift) >= thmin:
                if len(tt) >= TT_LIMIT:
                    tt.clear()
                tt[node] = (pn, dn)
                return
            if expand:
                lazy.more()
                continue
            child_thpn = thdn - dn + best_pn
            child_thdn = min(thpn, int(second * (1 + EPSILON)) + 1) if second < INF else thpn
            others = dn - best_pn
            self._mid(best, child_thpn, child_thdn, dshift + others, pshift, thmin)  # type: ignore[arg-type]
            if self._nim.get(land) is not None:
                return  # decided meanwhile (through a heap child)

    def _mid_sum(self, node: Node, thpn: int, thdn: int, pshift: int, dshift: int, thmin: int) -> None:
        """Search a sum of lands: the nimbers of its smaller lands, one question at a time.

        Lemoine and Viennot reduce a sum to one land and a heap by computing the
        nimbers of all its lands but the largest.  Here each of those nimbers is found
        inside the df-pn, smallest land first, as the questions "land + *j" for j =
        0, 1, … (the nimber is the first j that loses), each searched only while the
        whole sum stays under the thresholds the sum got from its parent: a sum that
        turns out dear is left for a cheaper sibling instead of being computed to the
        end.  Once one land is left, the sum is that land's question.
        """
        tt = self._tt
        lands, k = node
        assert not isinstance(lands, str)
        while True:
            sub = self._node(lands, k)  # the known nimbers folded into the heap
            if sub is True or sub is False:
                tt.pop(node, None)
                return
            what, heap = sub
            if isinstance(what, str):
                tt.pop(node, None)
                self._mid(sub, thpn, thdn, pshift, dshift, thmin)
                return
            question, first, rest_pn, rest_dn = self._sum_parts(what, heap)
            spn, sdn = first + rest_pn, first + rest_dn
            if spn >= thpn or sdn >= thdn or min(spn + pshift, sdn + dshift) >= thmin:
                tt[node] = (spn, sdn)
                return
            bound = min(thpn - rest_pn, thdn - rest_dn, thmin - min(rest_pn + pshift, rest_dn + dshift))
            self._mid(question, INF, INF, 0, 0, bound)

    def _sum_parts(self, lands: Lands, k: int) -> tuple[Node, int, int, int]:
        """The question a sum asks next and its cost: (question, its cost, the rest's pn, dn).

        The lands are taken smallest first; each but the largest costs the least of the
        pn and dn of its open question (its nimber is wanted, whichever way that goes);
        the largest is priced as a fresh question of its own, whose pn and dn stand for
        the sum's (it decides the sum once the others' nimbers are known).
        """
        order = sorted(lands, key=self._size_key)
        tt = self._tt
        rest_pn = rest_dn = 0
        question: Node | None = None
        first = 0
        for i, land in enumerate(order[:-1]):
            j = _lowest_clear_bit(self._wins.get(land, 0))
            q = (land, j)
            hit = tt.get(q)
            qpn, qdn = hit if hit is not None else self._initial(q)
            cost = qpn if qpn < qdn else qdn
            if i == 0:
                question, first = q, cost
            else:
                rest_pn += cost
                rest_dn += cost
        last = order[-1]
        rest_pn += 1
        rest_dn += DN_PER_LIFE * self._lives_of(last)
        return question, first, rest_pn, rest_dn  # type: ignore[return-value]

    def _size_key(self, land: str) -> tuple[int, int, str]:
        return (self._lives_of(land), len(land), land)

    def _initial(self, node: Node) -> tuple[int, int]:
        """Proof and disproof numbers of a node not searched yet: (1, its lives).

        A win needs one losing child, a loss needs every child to win, and the number
        of children grows with the lives: so a fresh node's disproof is priced by its
        size.  (Measured on the n-spot starts against (1, 1), lives², lives³ and
        both-sided variants: the fewest lands expanded overall.)  A sum is priced as
        ``_sum_parts`` prices it.
        """
        what, k = node
        if isinstance(what, str):
            return 1, DN_PER_LIFE * self._lives_of(what)
        _, first, rest_pn, rest_dn = self._sum_parts(what, k)
        return first + rest_pn, first + rest_dn

    def _reduce_sum(self, lands: Lands) -> None:
        """Compute the nimbers of all the lands of a sum but the largest (Lemoine–Viennot)."""
        order = sorted(lands, key=self._size_key)
        for land in order[:-1]:
            self.land_nimber(land)

    # ================================================================ clock
    def _tick(self) -> None:
        self.stats["nodes"] += 1
        self._ticks += 1
        if self._ticks % CLOCK_EVERY:
            return
        now = time.monotonic()
        if self._deadline.passed(now):
            raise OutOfTime(self._deadline.message)
        if self.abort is not None and self.abort():
            raise SolveInterrupted("the solver was asked to stop")
        if self.progress is not None and now - self._last_progress >= self.progress_seconds:
            self._last_progress = now
            self.progress(self.stats)
        if self.refresh_seconds is not None and now - self._last_refresh >= self.refresh_seconds:
            self._last_refresh = now
            self._looked_up.clear()


def _lowest_clear_bit(mask: int) -> int:
    """The least k whose bit is 0 in ``mask``."""
    return (~mask & (mask + 1)).bit_length() - 1


def normal_outcome(position: Position | str, table: NormalTable | None = None) -> bool:
    """Is ``position`` a normal-play win for the player to move? (a one-off solver)"""
    return NormalSolver(table).outcome(position)


__all__ = [
    "NormalSolver",
    "land_lives",
    "normal_outcome",
    "position_parts",
]
