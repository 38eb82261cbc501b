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
from array import array
from collections import OrderedDict
from collections.abc import Callable
from functools import reduce
from operator import xor
from typing import Protocol, cast

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
#: At most this many lands keep their children in memory (least recently used go first):
#: enough that ``0*12`` does not forget lands it needs again, which would be expanded
#: again; a land's children without its moves are small (docs/performance.md).
CHILDREN_CACHE = 100_000
#: Of those, at most this many keep their listed moves too (the rest list them again when
#: asked): a list of moves is most of a land's memory, and listing them in compiled code
#: is cheap, so keeping few costs no time and saves memory (docs/performance.md).
MOVES_CACHE = 1_000
#: A fresh node's disproof number per life.  A land has about twice as many distinct
#: children as lives, yet pricing fresh nodes low makes df-pn look at more children of a
#: node before going deep, and that finds cheap refutations: 2 (and a remaining-children
#: estimate with that prior) expands more lands on the n-spot starts.
DN_PER_LIFE = 1
#: Lands with at most this many lives get their whole nimber at once, by the mex rule:
#: on the n-spot starts 5 expands fewer lands than 0, and 6 to 8 more.
SMALL_LIVES = 5
#: The table of unproved nodes' (pn, dn) is emptied when it grows past this.
TT_LIMIT = 1_000_000

Lands = tuple[str, ...]
#: A search node "lands + *k" is one int: the heap k shifted past this many bits, and the
#: number the solver gave the land (or the sum of lands) in the low bits.
NODE_BITS = 32
NODE_MASK = (1 << NODE_BITS) - 1
#: The transposition table keeps an unproved node's (pn, dn) as one int, pn << PN_SHIFT | dn
#: (about 40 bytes an entry less than a tuple of two ints; dn never passes INF there).
PN_SHIFT = 64
DN_MASK = (1 << PN_SHIFT) - 1


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


class PositionQuestions:
    """The questions about whole positions, asked the same way of every normal-play solver:
    a subclass answers for a sum of lands (``sum_wins``) and a land (``land_nimber``)
    under its clock ``_deadline``."""

    _deadline: Deadline

    def sum_wins(self, lands: Lands, k: int) -> bool:
        raise NotImplementedError  # pragma: no cover

    def land_nimber(self, land: str) -> int:
        raise NotImplementedError  # pragma: no cover

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


class NormalSolver(PositionQuestions):
    """Exact normal-play solver: ``outcome``, ``nimber``, ``winning_moves`` of any position.

    ``table`` (a ``store.Table``, any ``NormalTable``, or None) is read for what earlier
    runs proved and written with every new fact.  ``deadline`` is a ``time.monotonic()`` value past
    which ``OutOfTime`` is raised; ``abort`` is a function that returns True when
    the search must stop (``SolveInterrupted``).  What was proved before either is
    kept.  ``progress`` is called now and then with ``self.stats``.

    Memory: every land and every sum of lands the search meets gets a number, once
    (``_what[number]`` is the land's string, or the sum's land numbers); everything
    else is kept by number, in arrays where every land has an entry (lives, looked up)
    and in dicts of ints where few have one (nimbers, wins, the transposition table),
    and a search node "lands + *k" is one int, ``k << NODE_BITS | number``.  A land's
    children are an array of numbers (``LazyChildren`` with ``name``).  So a land's
    string is held once, and no tuple or string is made per node or per child.
    """

    #: One thread: ``Session`` gives a large question's children to worker processes.
    threads = 1

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
        # the numbering: a land's string or a sum's (sorted) land numbers -> its number, and back
        self._number: dict[str | tuple[int, ...], int] = {}
        self._what: list[str | tuple[int, ...]] = []
        self._lives = array("I")  # a land's lives (0 for a sum), by number
        self._looked = bytearray()  # 1 once the table was read for the land (until a refresh)
        self._nim: dict[int, int] = {}
        self._wins: dict[int, int] = {}  # bit k set: land + *k is a win (while the nimber is unknown)
        self._kids: BoundedCache[int, LazyChildren] = BoundedCache(children_cache)
        self.moves_cache = moves_cache
        self._moves_held: OrderedDict[int, LazyChildren] = OrderedDict()
        self._tt: dict[int, int] = {}  # an unproved node's pn << PN_SHIFT | dn
        self._name_child = self._child_number  # one bound method, shared by every LazyChildren
        self._deadline = Deadline(message="the solver ran out of time")
        self._ticks = 0
        self._last_progress = time.monotonic()
        self._last_refresh = time.monotonic()
        self.stats = {"positions_solved": 0, "table_hits": 0, "lands_expanded": 0, "nodes": 0}

    # ========================================== public (and those of PositionQuestions)
    def known_nimber(self, land: str) -> int | None:
        """The nimber of a land if it is known (memory or table), without searching."""
        return self._known_nimber(self._land_number(land))

    # ====================================== the search's state, for the callers that split it
    def node_of(self, lands: Lands, k: int) -> bool | tuple[str | Lands, int]:
        """What ``lands + *k`` comes to with the known nimbers folded into the heap.

        True/False when decided; else (land, heap) for one land left or (lands, heap)
        for a sum of several.  (``Session`` and the cluster split a search at its root.)
        """
        node = self._node(self._child_number(sorted(lands)), k)
        if node is True or node is False:
            return node
        what = self._what[node & NODE_MASK]
        k = node >> NODE_BITS
        if isinstance(what, str):
            return what, k
        return tuple([self._what[x] for x in what]), k  # type: ignore[misc]  # land numbers name strings

    def children_of(self, land: str) -> list[Lands]:
        """Every distinct child of a land (each its sorted reduced lands), in the order found."""
        out: list[Lands] = []
        for c in cast("array[int]", self._children(self._land_number(land)).all()):
            what = self._what[c]
            out.append((what,) if isinstance(what, str) else tuple([self._what[x] for x in what]))  # type: ignore[misc]
        return out

    def remembered(self, land: str) -> tuple[int | None, int]:
        """(nimber or None, win mask) of a land as this solver holds it (no table lookup)."""
        n = self._number.get(land)
        if n is None:
            return None, 0
        return self._nim.get(n), self._wins.get(n, 0)

    def record_win(self, land: str, k: int) -> None:
        """Keep the fact "land + *k is a win" (proved elsewhere: on a worker, or here at a split root)."""
        self._record_win(self._land_number(land), k)

    def record_nimber(self, land: str, k: int) -> None:
        """Keep the fact "land has nimber k" (proved elsewhere, or here at a split root)."""
        self._record_nimber(self._land_number(land), k)

    def forget_lookups(self) -> None:
        """Read the table again for every land when next met (it holds what other processes proved)."""
        self._looked = bytearray(len(self._what))

    # ============================================================ the questions
    def sum_wins(self, lands: Lands, k: int) -> bool:
        """Is ``lands[0] + lands[1] + … + *k`` a win for the player to move?"""
        what = self._child_number(sorted(lands))
        while True:
            node = self._node(what, k)
            if node is True or node is False:
                return node
            self._mid(node, INF, INF)

    def land_nimber(self, land: str) -> int:
        """The nimber of one land: the least k for which land + *k is a loss (the mex rule)."""
        n = self.known_nimber(land)
        if n is not None:
            return n
        k = 0
        while self.sum_wins((land,), k):
            k += 1
        return k

    # ============================================================== numbering
    def _land_number(self, land: str) -> int:
        n = self._number.get(land)
        if n is None:
            n = self._number[land] = len(self._what)
            self._what.append(land)
            self._lives.append(land_lives(land))
            self._looked.append(0)
        return n

    def _sum_number(self, lands: tuple[int, ...]) -> int:
        n = self._number.get(lands)
        if n is None:
            n = self._number[lands] = len(self._what)
            if n > NODE_MASK:  # pragma: no cover - 4 billion lands do not fit in memory anyway
                raise MemoryError("more lands than a search node can number")
            self._what.append(lands)
            self._lives.append(0)
            self._looked.append(0)
        return n

    def _child_number(self, lands: list[str] | Lands) -> int:
        """The number of a child given as its sorted reduced lands: the land's for one, a sum's else."""
        if len(lands) == 1:
            return self._land_number(lands[0])
        return self._sum_number(tuple([self._land_number(x) for x in lands]))

    # ============================================================== knowledge
    def _known_nimber(self, land: int) -> int | None:
        n = self._nim.get(land)
        if n is None and not self._looked[land]:
            self._lookup(land)
            n = self._nim.get(land)
        return n

    def _small_nimber(self, land: int) -> int:
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
        what = self._what
        for child in cast("array[int]", self._children(land).all()):
            lands = what[child]
            if isinstance(lands, str):
                v = self._small_nimber(child)
            else:
                v = 0
                for x in lands:
                    v ^= self._small_nimber(x)
            values.add(v)
        n = 0
        while n in values:
            n += 1
        self._record_nimber(land, n)
        return n

    def _lookup(self, land: int) -> None:
        """Read what the table knows of a land (once; again after ``refresh_seconds``)."""
        self._looked[land] = 1
        if self.table is None:
            return
        text = self._what[land]
        assert isinstance(text, str)
        hit = self.table.get_normal(text)
        if hit is None:
            return
        nimber, wins = hit
        if nimber is not None:
            self._nim[land] = nimber
            self._wins.pop(land, None)
            self._kids.pop(land, None)
            self._moves_held.pop(land, None)
            self.stats["table_hits"] += 1
        elif wins & ~self._wins.get(land, 0):
            self._wins[land] = self._wins.get(land, 0) | wins
            self.stats["table_hits"] += 1

    def _record_win(self, land: int, k: int) -> None:
        self._wins[land] = self._wins.get(land, 0) | (1 << k)
        self.stats["positions_solved"] += 1
        if self.table is not None:
            self.table.put_win(self._what[land], k)  # type: ignore[arg-type]  # a land's number names a string

    def _record_nimber(self, land: int, k: int) -> None:
        self._nim[land] = k
        self._wins.pop(land, None)
        self._kids.pop(land, None)
        self._moves_held.pop(land, None)
        self.stats["positions_solved"] += 1
        if self.table is not None:
            self.table.put_nimber(self._what[land], k)  # type: ignore[arg-type]  # a land's number names a string

    def _node(self, child: int, k: int) -> int | bool:
        """What the child ``child`` (a land's or a sum's number) + *k comes to with the known nimbers
        folded into the heap.

        True/False when decided; else the node (``k << NODE_BITS | number``) of one
        unknown land, or of a sum of several.
        """
        nim = self._nim
        lands = self._what[child]
        if isinstance(lands, str):  # most children: one land, already looked up
            n = nim.get(child)
            if n is not None:
                return k != n
            if self._looked[child]:
                return True if (self._wins.get(child, 0) >> k) & 1 else k << NODE_BITS | child
            lands = (child,)
        rest: list[int] = []
        looked = self._looked
        for land in lands:
            n = nim.get(land)
            if n is None and not looked[land]:
                self._lookup(land)
                n = nim.get(land)
                if n is None and self._lives[land] <= self.small_lives:
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
            return k << NODE_BITS | land
        return k << NODE_BITS | self._sum_number(tuple(rest))

    def _children(self, land: int) -> LazyChildren:
        """The children of a land, computed as the search needs them (cached, least recently used go)."""
        kids = self._kids.get(land)
        if kids is not None:
            self._kids.move_to_end(land)
        else:
            self.stats["lands_expanded"] += 1
            text = self._what[land]
            assert isinstance(text, str)
            kids = self._kids.remember(land, LazyChildren(text, self._name_child))
        if not kids.done:  # the most recent open lands keep their listed moves
            held = self._moves_held
            if held.get(land) is not kids:
                held[land] = kids
                if len(held) > self.moves_cache:
                    held.popitem(last=False)[1].drop_moves()
            held.move_to_end(land)
        return kids

    # ================================================================ df-pn
    def _mid(
        self, node: int, thpn: int, thdn: int, pshift: int = 0, dshift: int = 0, thmin: int = INF
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
        land = node & NODE_MASK
        k = node >> NODE_BITS
        if not isinstance(self._what[land], str):
            self._mid_sum(node, thpn, thdn, pshift, dshift, thmin)
            return
        lazy = self._children(land)
        if not lazy.found and not lazy.done:
            lazy.more()
        kids = lazy.found
        # a child not computed yet is priced as a fresh one
        fresh_dn = DN_PER_LIFE * (self._lives[land] - 1)
        tt = self._tt
        node_of = self._node
        initial = self._initial
        while True:
            pn = INF
            dn = 0
            best = 0
            best_pn = 0
            second = INF
            count = len(kids)
            for i in range(count + k):
                child = node_of(kids[i], k) if i < count else node_of(land, i - count)  # type: ignore[arg-type]
                if child is True:
                    continue  # a won child adds nothing to dn and is no way to win
                if child is False:
                    pn = 0
                    break
                hit = tt.get(child)
                if hit is not None:
                    cpn, cdn = hit >> PN_SHIFT, hit & DN_MASK
                else:
                    cpn, cdn = initial(child)
                if cdn < pn or (cdn == pn < INF and self._tried_before(child, cpn, best, best_pn)):
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
                tt[node] = pn << PN_SHIFT | dn
                return
            if expand:
                lazy.more()
                continue
            child_thpn = thdn - dn + best_pn
            child_thdn = min(thpn, int(second * (1 + EPSILON)) + 1) if second < INF else thpn
            others = dn - best_pn
            self._mid(best, child_thpn, child_thdn, dshift + others, pshift, thmin)
            if self._nim.get(land) is not None:
                return  # decided meanwhile (through a heap child)

    def _mid_sum(self, node: int, thpn: int, thdn: int, pshift: int, dshift: int, thmin: int) -> None:
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
        number = node & NODE_MASK
        k = node >> NODE_BITS
        while True:
            sub = self._node(number, k)  # the known nimbers folded into the heap
            if sub is True or sub is False:
                tt.pop(node, None)
                return
            lands = self._what[sub & NODE_MASK]
            if isinstance(lands, str):
                tt.pop(node, None)
                self._mid(sub, thpn, thdn, pshift, dshift, thmin)
                return
            question, first, rest_pn, rest_dn = self._sum_parts(lands)
            spn, sdn = first + rest_pn, first + rest_dn
            if spn >= thpn or sdn >= thdn or min(spn + pshift, sdn + dshift) >= thmin:
                tt[node] = spn << PN_SHIFT | min(sdn, DN_MASK)
                return
            bound = min(thpn - rest_pn, thdn - rest_dn, thmin - min(rest_pn + pshift, rest_dn + dshift))
            self._mid(question, INF, INF, 0, 0, bound)

    def _sum_parts(self, lands: tuple[int, ...]) -> tuple[int, int, int, int]:
        """The question a sum asks next and its cost: (question, its cost, the rest's pn, dn).

        The lands are taken smallest first; each but the largest costs the least of the
        pn and dn of its open question (its nimber is wanted, whichever way that goes);
        the largest is priced as a fresh question of its own, whose pn and dn stand for
        the sum's (it decides the sum once the others' nimbers are known).
        """
        order = sorted(lands, key=self._size_key)
        tt = self._tt
        rest_pn = rest_dn = 0
        question = 0
        first = 0
        for i, land in enumerate(order[:-1]):
            q = _lowest_clear_bit(self._wins.get(land, 0)) << NODE_BITS | land
            hit = tt.get(q)
            qpn, qdn = (hit >> PN_SHIFT, hit & DN_MASK) if hit is not None else self._initial(q)
            cost = qpn if qpn < qdn else qdn
            if i == 0:
                question, first = q, cost
            else:
                rest_pn += cost
                rest_dn += cost
        rest_pn += 1
        rest_dn += DN_PER_LIFE * self._lives[order[-1]]
        return question, first, rest_pn, rest_dn

    def _size_key(self, land: int) -> tuple[int, int, str]:
        text = self._what[land]
        assert isinstance(text, str)
        return (self._lives[land], len(text), text)

    def _tried_before(self, a: int, apn: int, b: int, bpn: int) -> bool:
        """Whether child node ``a`` is searched before ``b`` when their disproof numbers are equal.

        The smaller proof number first; then the fewer lives, the fewer lands, the lands
        (largest first) by ``_size_key``, the smaller heap.  Why: see ``pncore._tried_before``.
        """
        if apn != bpn:
            return apn < bpn
        return self._tie_key(a) < self._tie_key(b)

    def _tie_key(self, node: int) -> tuple[int, int, list[tuple[int, int, str]], int]:
        """A node by what it is: (lives, lands, the lands' ``_size_key`` largest first, heap)."""
        number = node & NODE_MASK
        what = self._what[number]
        lands = (number,) if isinstance(what, str) else what
        lives = sum(self._lives[x] for x in lands)
        return lives, len(lands), sorted((self._size_key(x) for x in lands), reverse=True), node >> NODE_BITS

    def _initial(self, node: int) -> tuple[int, int]:
        """Proof and disproof numbers of a node not searched yet: (1, its lives).

        A win needs one losing child, a loss needs every child to win, and the number
        of children grows with the lives: so a fresh node's disproof is priced by its
        size.  (Measured on the n-spot starts against (1, 1), lives², lives³ and
        both-sided variants: the fewest lands expanded overall.)  A sum is priced as
        ``_sum_parts`` prices it.
        """
        number = node & NODE_MASK
        what = self._what[number]
        if isinstance(what, str):
            return 1, DN_PER_LIFE * self._lives[number]
        _, first, rest_pn, rest_dn = self._sum_parts(what)
        return first + rest_pn, first + rest_dn

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
            self.forget_lookups()


def _lowest_clear_bit(mask: int) -> int:
    """The least k whose bit is 0 in ``mask``."""
    return (~mask & (mask + 1)).bit_length() - 1


class NormalSearch(Protocol):
    """What the callers of a normal-play solver use: ``NormalSolver`` (the plain-Python
    reference) and ``compiled.CompiledNormalSolver`` (the same search, compiled) both give it."""

    table: NormalTable | None
    progress: Callable[[dict[str, int]], None] | None
    #: How many threads one search runs on (more than one: the solver is parallel itself).
    threads: int

    @property
    def stats(self) -> dict[str, int]: ...

    def outcome(self, position: Position | str, deadline: float | None = None) -> bool: ...

    def nimber(self, position: Position | str, deadline: float | None = None) -> int: ...

    def winning_moves(self, position: Position | str, deadline: float | None = None) -> list[str]: ...

    def child_outcomes(
        self, position: Position | str, deadline: float | None = None
    ) -> list[tuple[str, bool]]: ...

    def known_nimber(self, land: str) -> int | None: ...

    def node_of(self, lands: Lands, k: int) -> bool | tuple[str | Lands, int]: ...

    def children_of(self, land: str) -> list[Lands]: ...

    def remembered(self, land: str) -> tuple[int | None, int]: ...

    def record_win(self, land: str, k: int) -> None: ...

    def record_nimber(self, land: str, k: int) -> None: ...

    def forget_lookups(self) -> None: ...

    def sum_wins(self, lands: Lands, k: int) -> bool: ...

    def land_nimber(self, land: str) -> int: ...


def normal_outcome(position: Position | str, table: NormalTable | None = None) -> bool:
    """Is ``position`` a normal-play win for the player to move? (a one-off solver)"""
    return NormalSolver(table).outcome(position)


__all__ = [
    "NormalSearch",
    "NormalSolver",
    "land_lives",
    "normal_outcome",
    "position_parts",
]
