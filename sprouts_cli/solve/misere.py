"""Misère play by parts: outcomes of Sprouts positions from the canonical trees of their lands (Alfeld §5.7).

A position falls apart into independent lands.  In misère play a land cannot be
replaced by a number, but it can be replaced by its *misère canonical tree*
(``misere_trees.TreeStore``; Conway, ONAG ch. 12), which is interchangeable with it
in every sum.  The tree of a land is built from the trees of its children, each
child being a sum of lands (and heaps) whose tree is the simplest form of the sum
of their trees.  Lemoine and Viennot (arXiv:0908.4407) solved misère Sprouts this
way up to 17 spots.

A position whose parts all have trees is decided by the outcome of the sum of the
trees (a memoised search over the sum, ``TreeStore.outcome``).  Otherwise the
solver searches: a state is (lands not yet reduced to trees, trees, nim heaps); a
move is made in one land, in one tree (one of its options) or in one heap, and the
mover wins if some move leaves a loss.  Lands small enough (``tree_lives``) are
replaced by their trees as soon as they appear, trees small enough are summed into
one (``combine_limit``), and states are memoised.  The search keeps a state by its
*number*, given when the state is first made: the memo, df-pn's table of unproved
states and the states' fresh disproof numbers are lists indexed by it, so a state's
nested tuple is hashed once rather than at every lookup.

The search is depth-first proof-number search (``method="dfpn"``, the normal-play
solver's df-pn of ``nimbers.py``) with lazy children: a state's children are made one
at a time as the search asks for them, and the children of a land are made lazily and
shared by every state that holds the land (``children.LazyChildren``, or for large
lands the compiled core's numbering, ``misere_core``).  The two eager searches it
replaced, best-first proof-number search (``"pns"``) and depth-first search
(``"dfs"``), make every child of a state at once; they are kept as references that
the tests compare with (``misere_eager``).  Lands are named by their reduced
forms, which keep the full misère value (``engine/reduce.py``), so a reduced form is
a valid key for a land's tree.

A table of solved positions may be given: any object with ``get_misere(land)`` →
tree text or None and ``put_misere(land, text)`` (``TreeStore.to_text`` form; read
back into a fresh store with ``TreeStore.from_text``).  If it also has
``get_misere_outcome(key)`` → bool or None and ``put_misere_outcome(key, win)``,
the outcomes of searched lands (keyed by reduced form) are kept too.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol, cast

from ..engine.aot import kernel_path
from ..engine.caches import BoundedCache, clear_caches
from ..engine.position import Position
from ..engine.reduce import reduced_lands
from .children import LazyChildren, land_shape
from .clock import Deadline, StopClock
from .memory_bound import rss_bytes, solver_memory
from .misere_core import CoreChildren, CoreLandChildren, core_children_available
from .misere_eager import INF, depth_first, proof_number_search
from .misere_trees import ZERO, TreeStore, normal_heaps
from .nimbers import EPSILON
from .reduced_trees import ReducedTreeStore

#: Lands with at most this many lives are replaced by their canonical trees at once.
TREE_LIVES = 8
#: Of several open lands side by side, all but the largest get their trees up to this many lives
#: (Lemoine and Viennot's "all but the largest"): a sum is then searched as one land beside trees
#: instead of as the product of its lands (bench_misere --in-process; 11 did best of 8, 11, 13).
SUM_TREE_LIVES = 11
#: Two trees whose sizes multiply to at most this are summed into one tree.
COMBINE_LIMIT = 4096
#: The clock is read every this many visited states.
CLOCK_EVERY = 64
#: At most this many lands keep their children in memory (least recently used go first).
LAND_CHILDREN_CACHE = 100_000
#: At most this many open search states keep their child states (least recently used go first).
STATE_CHILDREN_CACHE = 50_000
#: A land not opened yet is counted this many children a life in a state's estimate (``_count``).
CHILDREN_PER_LIFE = 2
#: A land with at most this many lives has its children all made when a state first asks for one,
#: and its child states come smallest first (``_ordered_kids``); larger lands make theirs one at
#: a time in the core's order.  0, the default, orders none: the search's work swings both ways
#: with this bound from one start to the next (docs/performance.md, issue 28).
ORDER_LIVES = 0
#: How many children a state opened makes at once (``_first_children``), stopping at one that
#: loses: ``"all"`` of them, ``"known"`` as many as it has moves in heaps and trees and children of
#: its lands found already, ``"one"`` (the rest one at a time as df-pn asks).  Made together,
#: df-pn picks among siblings by their numbers, not the first one made (docs/performance.md, issue 28).
FIRST_CHILDREN = "all"
FIRST_CHILDREN_RULES = ("all", "known", "one")
#: The df-pn table of unproved states' (pn, dn) is emptied when it grows past this.
TT_LIMIT = 1_000_000
#: A fresh state's disproof number per life of its open lands (as ``nimbers.DN_PER_LIFE``).
DN_PER_LIFE = 1
#: Opened states between two looks at the clock for ``refresh_seconds``.
REFRESH_EVERY = 32
#: The memory in use is read when the search's tables have grown by 1/MEMORY_STEP of what they
#: hold since the last reading (and by at least MEMORY_STEP_MIN entries): the reading's cost is
#: then a sliver of the work, and what one reading may miss a sliver of the memory.
MEMORY_STEP = 32
MEMORY_STEP_MIN = 256
#: Lands with at least this many lives get their children from the compiled core (``misere_core``)
#: once it is loaded; the first such land loads it (numba and the core: about a second), which
#: small questions never pay.
CORE_LIVES = 30
#: A land the table had no tree for is not asked for again until this many seconds have passed
#: (``refresh_seconds``: other processes sharing the table may prove it meanwhile); without
#: other processes it is never asked again (``MisereSolver``'s default, None).
REFRESH_SECONDS = 1.0
#: The search methods: depth-first proof-number search with lazy children (the default), and
#: the first two, which make every child of a state at once (kept as references for the tests).
METHODS = ("dfpn", "pns", "dfs")

#: A search state: lands still to search (sorted), trees (sorted ids), nim heaps (normalised).
State = tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]
Children = tuple[tuple[tuple[str, ...], tuple[int, ...]], ...]

#: ``_won`` of a state number: not known yet, the player to move wins, loses.
_UNKNOWN, _WIN, _LOSS = 0, 1, 2
#: Two states numbered first, for ever settled: a child in a state's list that was settled as it
#: was made stands as one of them (no move left: the mover wins; ``*1``: the mover loses).
WON_STATE: State = ((), (), ())
LOST_STATE: State = ((), (), (1,))
WON, LOST = 0, 1


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Keep Python's cycle collector off for a search, and as it was after.

    The search makes millions of tuples and lists that live long (states, children),
    and the collector walks them all again and again: a large share of ``0*12``'s CPU
    (``docs/performance.md``).  The search makes no reference cycles (its objects are
    freed by their counts; ``tests/test_solve_misere_speed.py`` checks it leaves no
    cyclic garbage), so nothing waits for the collector meanwhile.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            # Every object made meanwhile sits in the youngest generation, which the next
            # collection would walk whole (then the middle one, then all of them again):
            # they go to the oldest generation unwalked, where a full collection comes
            # only when enough objects have survived since.
            gc.freeze()
            gc.unfreeze()
            gc.enable()


class _Renumbered(Exception):
    """A forget numbered the states afresh: the search starts again from its root."""


class MisereTable(Protocol):
    def get_misere(self, key: str) -> str | None: ...

    def put_misere(self, key: str, text: str) -> None: ...


#: A child in a state's list: the child state's number (``WON``/``LOST`` when settled as it was made).
Child = int


class StateChildren:
    """The child states of one search state, made one at a time as the search asks for them.

    ``found`` holds the distinct children made so far, each a state's number or, when it
    was settled as it was made (only trees and heaps left, or known before), ``WON`` or
    ``LOST`` (the player to move there wins, loses).  ``estimate`` is how many children the state
    was thought to have when it was opened (for the disproof number of the rest).
    """

    __slots__ = ("_gen", "_seen", "broken", "done", "estimate", "found")

    def __init__(self, gen: Iterator[Child], estimate: int) -> None:
        self._gen: Iterator[Child] | None = gen
        self._seen: set[Child] | None = set()
        self.found: list[Child] = []
        self.done = False
        self.broken = False
        self.estimate = estimate

    def more(self) -> bool:
        """Make one more distinct child; False when there is none left."""
        gen, seen = self._gen, self._seen
        if gen is None or seen is None:
            return False
        try:
            for child in gen:
                if child not in seen:
                    seen.add(child)
                    self.found.append(child)
                    return True
        except BaseException:
            # A deadline, a job's budget or Ctrl-C stopped the making of a child: the
            # generator is dead and must not pass for finished (the state would lose children).
            self.broken = True
            self._gen = self._seen = None
            raise
        self.done = True
        self._gen = self._seen = None
        return False

    def remaining(self) -> int:
        """An estimate of the children not made yet (at least 1 unless done)."""
        return 0 if self.done else max(1, self.estimate - len(self.found))


class MisereSolver:
    """Outcomes, winning moves and land trees in misère play (memoised, optionally tabled).

    ``outcome(position)`` is True when the player to move wins in misère play;
    the trees are reduced canonical trees (``reduced_trees``) unless another ``store``
    is given (the full ``TreeStore`` is the reference);
    ``tree(land)`` is a land's canonical tree id in ``self.store``;
    ``winning_moves(position)`` lists the children that are misère losses for the
    opponent.  A ``deadline`` (a ``time.monotonic()`` value) makes the search raise
    ``OutOfTime`` when it passes; ``abort`` (asked at the same readings of the clock)
    makes it raise ``SolveInterrupted`` when it says True.  A land the table had no
    tree for is not asked for again, or not before ``refresh_seconds`` when other
    processes write to the same table.
    """

    def __init__(
        self,
        table: Any = None,
        *,
        store: TreeStore | ReducedTreeStore | None = None,
        tree_lives: int = TREE_LIVES,
        sum_tree_lives: int = SUM_TREE_LIVES,
        combine_limit: int = COMBINE_LIMIT,
        method: str = "dfpn",
        land_children_cache: int = LAND_CHILDREN_CACHE,
        state_children_cache: int = STATE_CHILDREN_CACHE,
        memory: int | None = None,
        core_children: bool | None = None,
        core_lives: int = CORE_LIVES,
        order_lives: int = ORDER_LIVES,
        first_children: str = FIRST_CHILDREN,
        timed: bool = False,
        refresh_seconds: float | None = None,
        abort: Callable[[], bool] | None = None,
        compiled_trees: bool | None = None,
    ) -> None:
        if method not in METHODS:
            raise ValueError(f"unknown search method {method!r}: use one of {', '.join(METHODS)}")
        self.method = method
        self.store: TreeStore | ReducedTreeStore = store if store is not None else ReducedTreeStore()
        self._nim_column = isinstance(self.store, ReducedTreeStore)
        #: The memory the process held before the search (what forgetting cannot free).
        self._base = rss_bytes()
        #: The memory bound in bytes: past it the search forgets what it can make again.
        self.memory = memory if memory is not None else solver_memory(self._base)
        #: Opened states between two looks at the table for lands other processes proved.
        self.refresh_every = REFRESH_EVERY
        self._opened = 0
        #: The fewest entries the tables gain between two readings of the memory in use.
        self.memory_step_min = MEMORY_STEP_MIN
        #: The memory in use is read next when the tables hold this many entries.
        self._next_reading = 0
        #: Entries the tables may hold again before the next forget (``_check_memory``).
        self._refill = 0
        #: Entries kept by the last forget: what the search had proved for good then.
        self._kept = -1
        self.table = table
        #: Lands the table had no tree for when asked (not asked again: a lookup is a query or
        #: two of SQLite, and a land searched is met in every state that holds it), emptied
        #: every ``refresh_seconds`` when other processes write to the same table.
        self._absent: set[str] = set()
        self.refresh_seconds = refresh_seconds
        self._refreshed = time.monotonic()
        self.tree_lives = tree_lives
        self.sum_tree_lives = sum_tree_lives
        self.combine_limit = combine_limit
        self._trees: dict[str, int] = {}
        self._kids: BoundedCache[str, LazyChildren | CoreLandChildren] = BoundedCache(land_children_cache)
        #: Make the children of lands on the compiled core (None: when numba is there).
        self.core_children = core_children_available() if core_children is None else core_children
        self.core_lives = core_lives
        self.order_lives = order_lives
        if first_children not in FIRST_CHILDREN_RULES:
            raise ValueError(f"unknown rule for first children {first_children!r}")
        self.first_children = first_children
        #: Build the trees of lands by ``tree_build`` over the core's numbering, once there is one
        #: (None: on the reduced store, compiled).  A land's tree is looked for in the table
        #: first; the lands the loop builds on the way are not (it builds them again), and every
        #: tree it builds is written to the table.
        self.compiled_trees = (
            isinstance(self.store, ReducedTreeStore)
            and self.store.compiled
            and kernel_path() != "python"
            if compiled_trees is None
            else compiled_trees
        )
        self._core: CoreChildren | None = None
        #: The lives of the lands met (from the core's numbering when it made them, else read off
        #: the string), and (lives, lives of the largest region) for the eager searches' order.
        self._lives: dict[str, int] = {}
        self._shapes: dict[str, tuple[int, int]] = {}
        #: States as numbers: the search's tables are keyed by a state's number, which is hashed
        #: once when the state is made (a nested tuple is hashed again at every lookup).
        self._ids: dict[State, int] = {}
        #: A state's number -> the state, its fresh disproof number, and what is known of it.
        self._of: list[State] = []
        self._fresh: list[int] = []
        self._won = bytearray()
        #: df-pn's table of unproved states, by number: (pn, dn), (1, fresh dn) when not in it.
        self._pn: list[int] = []
        self._dn: list[int] = []
        self._in_tt = bytearray()
        self._tt_count = 0
        #: How many states are proved (``_won`` not ``_UNKNOWN``).
        self._proved_count = 0
        #: Bumped when ``forget`` numbers the states afresh: the search's frames on the old
        #: numbers are dropped (``_Renumbered``) and it starts again from its root.
        self._generation = 0
        self._number_settled()
        self._state_kids: BoundedCache[int, StateChildren] = BoundedCache(state_children_cache)
        message = "misère search stopped at its deadline"
        self._deadline = (
            Deadline(every=CLOCK_EVERY, message=message)
            if abort is None
            else StopClock(abort, every=CLOCK_EVERY, message=message)
        )
        #: CPU seconds spent by the engine making children (where the time goes), when ``timed``:
        #: the process's clock is read around every child, a system call that a loaded machine
        #: often answers by running another process first, so a plain solve does not read it.
        self.timing = {"children": 0.0}
        self._clock = time.process_time if timed else None
        self.stats = {
            "positions_solved": 0,
            "lands_with_trees": 0,
            "table_hits": 0,
            "states_searched": 0,
            "lands_expanded": 0,
            "forgets": 0,
            # the search's visits of states (df-pn's calls; the eager references' expansions),
            # the work normal play reports as its nodes
            "nodes": 0,
        }
        self._outcome_table = table is not None and hasattr(table, "get_misere_outcome")

    # ------------------------------------------------------------------ public
    def outcome(self, position: Position | str, deadline: float | None = None) -> bool:
        """True when the player to move wins ``position`` in misère play."""
        p = Position.from_string(position) if isinstance(position, str) else position
        with self._deadline.until(deadline), collector_paused():
            return self._win(self._state(tuple(reduced_lands(p)), (), p.heaps))

    def winning_moves(self, position: Position | str, deadline: float | None = None) -> list[str]:
        """The children (exact canonical forms) that are misère losses for the player who gets them."""
        p = Position.from_string(position) if isinstance(position, str) else position
        return sorted(c for c in p.children() if not self.outcome(Position.from_string(c), deadline))

    def tree(self, land: str, deadline: float | None = None) -> int:
        """The misère canonical tree (an id in ``self.store``) of one land, by its reduced form."""
        with self._deadline.until(deadline), collector_paused():
            return self._tree(land)

    def tree_text(self, land: str) -> str:
        """The canonical text of a land's tree (what the table stores)."""
        return self.store.to_text(self.tree(land))

    def position_tree(self, position: Position | str) -> int:
        """The canonical tree of a whole position: the sum of its lands' trees and its heaps."""
        p = Position.from_string(position) if isinstance(position, str) else position
        with collector_paused():
            parts = [self._tree(land) for land in reduced_lands(p)] + [self.store.heap(h) for h in p.heaps]
            return self.store.add_all(sorted(parts, key=self.store.size))

    @property
    def positions_solved(self) -> int:
        return self.stats["positions_solved"]

    # ------------------------------------------------------------------ lands
    def _land_lives(self, land: str) -> int:
        """The lives of a land (a cheap measure of its size)."""
        hit = self._lives.get(land)
        if hit is None:
            hit = self._lives[land] = land_shape(land)[0]
        return hit

    def _land_shape(self, land: str) -> tuple[int, int]:
        """(lives, lives of the largest region) of a land."""
        hit = self._shapes.get(land)
        if hit is None:
            hit = self._shapes[land] = land_shape(land)
        return hit

    def _land_kids(self, land: str) -> LazyChildren | CoreLandChildren:
        """The children of a land, made as they are asked for (shared by every state holding the land)."""
        kids = self._kids.get(land)
        if kids is None:
            self.stats["lands_expanded"] += 1
            clock = self._clock
            t = clock() if clock else 0.0
            core = self._core
            if core is None and self.core_children and self._land_lives(land) >= self.core_lives:
                core = self._core = CoreChildren(self._lives)
            made = LazyChildren(land) if core is None else core.children(land)
            kids = self._kids.remember(land, made)
            if clock:
                self.timing["children"] += clock() - t
        else:
            self._kids.move_to_end(land)
        return kids

    def _more_land_kids(self, kids: LazyChildren | CoreLandChildren) -> bool:
        """One more distinct child of a land (the engine's work: timed when asked)."""
        clock = self._clock
        if clock is None:
            return kids.more()
        t = clock()
        found = kids.more()
        self.timing["children"] += clock() - t
        return found

    def _every_kid(self, kids: LazyChildren | CoreLandChildren) -> None:
        """Make every child of a land not made yet (timed as the children's making)."""
        if not kids.done:
            clock = self._clock
            t = clock() if clock else 0.0
            kids.all()
            if clock:
                self.timing["children"] += clock() - t

    def _children(self, land: str) -> Children:
        """Every child of a land as (sorted reduced lands, heaps): a land's children have no heaps."""
        kids = self._land_kids(land)
        self._every_kid(kids)
        return tuple((lands, ()) for lands in _tuples(kids))

    def _known_tree(self, land: str) -> int | None:
        t = self._trees.get(land)
        if t is None and self.table is not None and land not in self._absent:
            text = self.table.get_misere(land)
            if text is None:
                self._absent.add(land)
            else:
                t = self._trees[land] = self.store.from_text(text)
                self.stats["table_hits"] += 1
        return t

    def forget_lookups(self) -> None:
        """Ask the table again for every land not known here (it holds what others proved since)."""
        self._absent.clear()
        refresh = getattr(self.table, "refresh_keys", None)
        if refresh is not None:  # a table that keeps its keys reads those others wrote
            refresh()
        self._refreshed = time.monotonic()

    def _tree(self, land: str) -> int:
        """A land's tree from the trees of its children (each a sum of lands and heaps)."""
        t = self._known_tree(land)
        if t is not None:
            return t
        if self.compiled_trees and self._core is not None:
            t = self._tree_built(land)
            if t is not None:
                return t
        self._deadline.check()
        store = self.store
        options = set()
        for lands, heaps in self._children(land):
            parts = [self._tree(x) for x in lands] + [store.heap(h) for h in heaps]
            options.add(store.add_all(sorted(parts, key=store.size)))
        t = store.make(options)
        self._trees[land] = t
        core = self._core
        if core is not None and core.seeded:  # known by number too, to ``tree_build``
            x = core.number(land)
            core.tree_array()[x] = t
        self._kids.pop(land, None)
        self.stats["lands_with_trees"] += 1
        self.stats["positions_solved"] += 1
        if self.table is not None:
            self.table.put_misere(land, store.to_text(t))
        return t

    def _tree_built(self, land: str) -> int | None:
        """``_tree`` by ``tree_build.build_tree`` over the core's numbering (the same tree, the
        same nodes made in the same order); None when the core does not take a land on the way
        (then ``_tree`` goes on in Python, with the trees built here known)."""
        from . import tree_build as tb

        core = self._core
        assert core is not None
        store = cast(ReducedTreeStore, self.store)
        tables = store.tables()
        C = tables.C
        if not core.seeded:  # trees known before this numbering (another, or none): by number too
            core.seeded = True
            trees = core.tree_array()
            for text, t in self._trees.items():
                y = core.number(text)
                trees = core.tree_array()
                trees[y] = t
        x = core.number(land)
        r = tb.NEED_ROOM
        try:
            while True:
                st = core.state
                r = tables.build(x, st.I64, st.I32, st.SUMS, st.KIDS, st.TEXT, core.tree_array())
                if r >= 0:
                    break
                if r == tb.NEED_KIDS:
                    self._deadline.check()
                    if not core.find_all(int(C[tb.C_WANT])):
                        break
                else:
                    tables.grow()
        finally:
            if r < 0:  # stopped: the lands on the stack start afresh next time
                C[tb.C_FSP] = 0
                C[tb.C_VSP] = 0
            store._sync_kernel()
            self._built(core, tables)
        return r if r >= 0 else None

    def _built(self, core: CoreChildren, tables: Any) -> None:
        """The lands whose trees ``build_tree`` built, known by their strings as ``_tree`` leaves them."""
        from . import tree_build as tb

        C = tables.C
        n = int(C[tb.C_BUILT])
        if not n:
            return
        st, trees, known, kids, stats = core.state, core.trees, self._trees, self._kids, self.stats
        table, to_text = self.table, self.store.to_text
        for x in tables.built[:n].tolist():
            text = sys.intern(st.text(x))
            t = known[text] = int(trees[x])
            if kids.pop(text, None) is None:
                stats["lands_expanded"] += 1
            if table is not None:
                table.put_misere(text, to_text(t))
        stats["lands_with_trees"] += n
        stats["positions_solved"] += n
        C[tb.C_BUILT] = 0

    # ------------------------------------------------------------------ states
    def _state(self, lands: tuple[str, ...], trees: tuple[int, ...], heaps: tuple[int, ...]) -> State:
        """Replace known and small lands by trees, sum small trees, normalise heaps."""
        store = self.store
        open_lands: list[str] = []
        ts: list[int] = []
        hs = list(heaps)
        known, lives, table = self._trees, self._lives, self.table
        for land in lands:
            t = known.get(land)
            if t is None:
                if table is not None:
                    t = self._known_tree(land)
                if t is None:
                    n = lives.get(land)
                    if (self._land_lives(land) if n is None else n) <= self.tree_lives:
                        t = self._tree(land)
            if t is None:
                open_lands.append(land)
            else:
                ts.append(t)
        if len(open_lands) >= 2 and self.sum_tree_lives > self.tree_lives:
            # Several open lands multiply each other's states: every one but the largest
            # gets its tree when it is small enough (Lemoine and Viennot's "all but the largest").
            open_lands.sort(key=self._size_key)
            while len(open_lands) >= 2 and self._land_lives(open_lands[0]) <= self.sum_tree_lives:
                ts.append(self._tree(open_lands.pop(0)))
        plain: list[int] = []
        heap_size = store.heap_size
        for t in (*trees, *ts):
            k = heap_size(t)
            if k is None:
                plain.append(t)
            elif k:
                hs.append(k)
        if len(plain) >= 2:
            plain = self._combine(plain, hs)
        if self._nim_column:
            # A reduced tree with its *1 bit is its node plus *1: the bit joins the heaps, so
            # states that differ only in where a *1 stands are one state (GLOP's nim column).
            for i, t in enumerate(plain):
                if t & 1:
                    plain[i] = t ^ 1
                    hs.append(1)
        open_lands.sort()
        plain.sort()
        return (tuple(open_lands), tuple(plain), normal_heaps(hs) if hs else ())

    def _size_key(self, land: str) -> tuple[int, int, str]:
        return (self._land_lives(land), len(land), land)

    def _combine(self, trees: list[int], heaps: list[int]) -> list[int]:
        """Sum the smallest trees into one while the product of their sizes stays small.

        A sum that turns out to be a nim heap joins ``heaps``.
        """
        store = self.store
        size, limit = store.size, self.combine_limit
        ts = sorted(trees, key=size)
        while len(ts) >= 2 and size(ts[0]) * size(ts[1]) <= limit:
            s = store.add(ts[0], ts[1])
            ts = ts[2:]
            k = store.heap_size(s)
            if k is None:
                ts.append(s)
                ts.sort(key=size)
            elif k:
                heaps.append(k)
        return ts

    @property
    def _memo(self) -> dict[State, bool]:
        """The proved states and their outcomes (a copy: the search keeps them by number)."""
        won, of = self._won, self._of
        return {of[i]: won[i] == _WIN for i in range(2, len(won)) if won[i]}

    def _number_settled(self) -> None:
        """Number ``WON_STATE`` and ``LOST_STATE`` first (``WON``, ``LOST``), settled."""
        self._won[self._intern(WON_STATE)] = _WIN
        self._won[self._intern(LOST_STATE)] = _LOSS

    def _intern(self, state: State) -> int:
        """A state's number (given when first asked for)."""
        i = self._ids.get(state)
        return self._number_new(state) if i is None else i

    def _number_new(self, state: State) -> int:
        """Give a state not numbered yet its number."""
        i = self._ids[state] = len(self._of)
        self._of.append(state)
        fresh = self._fresh_dn(state)
        self._fresh.append(fresh)
        self._won.append(_UNKNOWN)
        self._pn.append(1)
        self._dn.append(fresh)
        self._in_tt.append(0)
        return i

    @property
    def _tt(self) -> dict[State, tuple[int, int]]:
        """df-pn's table of unproved states (a copy: the search keeps it by number)."""
        of, pn, dn = self._of, self._pn, self._dn
        return {of[i]: (pn[i], dn[i]) for i, x in enumerate(self._in_tt) if x}

    def _tt_put(self, i: int, pn: int, dn: int) -> None:
        """Keep a state's numbers in the table (emptied first when it holds ``TT_LIMIT`` states)."""
        if self._tt_count >= TT_LIMIT:
            self._tt_clear()
        if not self._in_tt[i]:
            self._in_tt[i] = 1
            self._tt_count += 1
        self._pn[i] = pn
        self._dn[i] = dn

    def _tt_drop(self, i: int) -> None:
        """Take a state out of the table (it is proved)."""
        if self._in_tt[i]:
            self._in_tt[i] = 0
            self._tt_count -= 1
            self._pn[i] = 1
            self._dn[i] = self._fresh[i]

    def _tt_clear(self) -> None:
        """Empty the table: every state is priced afresh again."""
        pn, dn, fresh = self._pn, self._dn, self._fresh
        for i, x in enumerate(self._in_tt):
            if x:
                pn[i] = 1
                dn[i] = fresh[i]
        self._in_tt = bytearray(len(self._in_tt))
        self._tt_count = 0

    def _known(self, state: State) -> bool | None:
        """The outcome of a state if it is settled: all parts are trees, or proved before."""
        lands, trees, heaps = state
        if not lands:
            return self.store.outcome(trees, heaps)
        i = self._ids.get(state)
        if i is not None and self._won[i]:
            return self._won[i] == _WIN
        return self._looked_up(state)

    def _looked_up(self, state: State) -> bool | None:
        """The outcome of a state that is one land alone, from the table (then proved here too)."""
        lands, trees, heaps = state
        if not self._outcome_table or len(lands) != 1 or trees or heaps:
            return None
        hit = self.table.get_misere_outcome(lands[0])
        if hit is None:
            return None
        self.stats["table_hits"] += 1
        i = self._intern(state)
        self._won[i] = _WIN if hit else _LOSS
        self._proved_count += 1
        return bool(hit)

    def _proved(self, state: State, win: bool) -> None:
        self._proved_number(self._intern(state), win)

    def _proved_number(self, i: int, win: bool) -> None:
        if not self._won[i]:
            self._proved_count += 1
        self._won[i] = _WIN if win else _LOSS
        self.stats["positions_solved"] += 1
        if self._outcome_table:
            lands, trees, heaps = self._of[i]
            if len(lands) == 1 and not trees and not heaps:
                self.table.put_misere_outcome(lands[0], win)

    def _win(self, state: State) -> bool:
        known = self._known(state)
        if known is not None:
            return known
        if self.method == "dfpn":
            return self._dfpn(state)
        if self.method == "pns":
            return proof_number_search(self, state)
        return depth_first(self, state)

    # ------------------------------------------------------------ memory
    def _entries(self) -> int:
        """How many entries the search's tables and caches hold (what forgetting frees)."""
        return (
            len(self._of)  # numbered states, proved or not: a forget numbers afresh
            + self._tt_count
            + len(self._state_kids)
            + len(self._kids)
            + len(self._lives)
            + len(self._shapes)
            + len(self._absent)
            + self.store.cached()
        )

    def _check_memory(self) -> None:
        """Past the memory bound, forget what can be made again (once the tables have refilled).

        The memory in use is read each time the tables have grown by a share of what they
        hold (``MEMORY_STEP``): an opened state may make many children at once, so a count of
        states opened would let memory run past the bound between two readings.  Freed memory
        stays with the process, so the memory in use does not fall after a forget: the next
        one comes when the tables hold as many entries as fit in the bound (the entries now,
        scaled by the memory the search may have over what it holds above the process's
        start), which keeps the process at the bound.  Only a search that cannot go on within
        it grows past it, a quarter more entries at a time: one whose forgets keep most of what
        it holds (what it proved for good), or that proved nothing lasting between two
        forgets; so every search finishes.
        """
        entries = self._entries()
        if entries < self._next_reading:
            return
        self._next_reading = entries + max(self.memory_step_min, entries // MEMORY_STEP)
        if entries < self._refill:
            return
        rss = rss_bytes()
        if rss <= self.memory:
            return
        self.forget()
        kept = self._entries()
        fit = entries * (self.memory - self._base) // max(rss - self._base, 1)
        if fit <= kept or kept * 4 > entries * 3 or kept <= self._kept:  # stuck: grow
            self._refill = max(entries, self._refill + self._refill // 4)
        else:
            self._refill = fit
        self._kept = kept
        self._next_reading = kept + max(self.memory_step_min, kept // MEMORY_STEP)

    def forget(self) -> None:
        """Forget what can be made again: the df-pn table, children, every cache (the engine's
        included), and proved states.

        A land's tree is kept (trees refer to each other in the store), and so is the
        outcome of a state that is one land alone (what the table keeps); any other
        proved state forgotten is proved again if the search meets it again.
        """
        self.stats["forgets"] += 1
        clear_caches()  # the engine's land caches too: they fill to their size whatever the bound
        self._state_kids.clear()
        self._kids.clear()
        self._lives.clear()
        self._shapes.clear()
        self._absent.clear()
        if self._core is not None:
            # a fresh numbering: the old one goes with the last children on it
            self._core = CoreChildren(self._lives)
        self.store.forget()
        keep = [(s, w) for s, w in zip(self._of[2:], self._won[2:], strict=True) if w and _one_land(s)]
        self._ids = {}
        self._of = []
        self._fresh = []
        self._won = bytearray()
        self._pn = []
        self._dn = []
        self._in_tt = bytearray()
        self._tt_count = 0
        self._number_settled()
        for s, w in keep:
            self._won[self._intern(s)] = w
        self._proved_count = len(keep)
        self._generation += 1

    # ------------------------------------------------------------ df-pn
    def _dfpn(self, root: State) -> bool:
        """Depth-first proof-number search with the children of a state made as needed.

        The same search as the normal-play solver's (``nimbers.py``: df-pn, Nagai 2002,
        with the 1+ε trick of Pawlewicz and Lew), over misère states.  A state's
        children come one at a time (``StateChildren``): moves in heaps and trees first
        (no engine work), then the children of its lands, which are made lazily and
        shared by every state that holds the land (``LazyChildren``).  A state opened makes
        its first children together (``_first_children``).  A win needs one losing child, so
        most states are settled or given up long before all their children are made: the
        eager searches (``pns``, ``dfs``) spent 75-95% of their time making children they
        never looked at.
        """
        while True:
            i = self._intern(root)  # again after a forget: the numbers are new
            if self._won[i]:
                return self._won[i] == _WIN
            try:
                self._mid(i, INF, INF)
            except _Renumbered:
                continue

    def _mid(self, state: int, thpn: int, thdn: int) -> None:
        """Search ``state`` until its proof number reaches ``thpn`` or its disproof number ``thdn``.

        pn is the cost of proving "the player to move wins", dn of proving "loses": a
        state wins when some child loses (pn = least child dn) and loses when every
        child wins (dn = sum of child pn).  In misère play a state with no move is a
        win; a searched state always has a move (its open lands have lives).
        """
        self._deadline.check()
        self.stats["nodes"] += 1
        kids = self._state_children(state)
        if not kids.found and not kids.done:
            self._first_children(state, kids)
        found = kids.found
        fresh_dn = max(1, self._fresh[state] - DN_PER_LIFE)
        won, pns, dns = self._won, self._pn, self._dn
        while True:
            pn = INF
            dn = 0
            best = -1
            second = INF
            for child in found:
                known = won[child]
                if known:
                    if known == _WIN:
                        continue
                    pn = 0
                    break
                cdn = dns[child]
                if cdn < pn:
                    second = pn
                    pn = cdn
                    best = child
                elif cdn < second:
                    second = cdn
                dn += pns[child]
            expand = False
            if pn and not kids.done:  # the children not made yet, as one more child
                dn += kids.remaining()
                if fresh_dn < pn:
                    second, pn, expand = pn, fresh_dn, True
                elif fresh_dn < second:
                    second = fresh_dn
            if pn == 0:
                self._settle_state(state, True)
                return
            if dn == 0:  # every child wins: a loss (no child at all: a win)
                self._settle_state(state, not found)
                return
            if dn > INF:
                dn = INF
            if pn >= thpn or dn >= thdn:
                self._tt_put(state, pn, dn)
                return
            if expand:
                kids.more()
                continue
            child_thpn = thdn - dn + pns[best]
            child_thdn = min(thpn, int(second * (1 + EPSILON)) + 1) if second < INF else thpn
            self._mid(best, child_thpn, child_thdn)

    def _first_children(self, state: int, kids: StateChildren) -> None:
        """Make an opened state's first children (``first_children``): one; or as many as the state
        has moves in its heaps and trees and children of its lands found already (``"known"``), or
        all (``"all"``), stopping at one that loses.

        Made one at a time, a state's first child is searched before its siblings exist (a child
        not made yet is priced at its parent's lives, more than most made children's); made
        together, df-pn compares their numbers.  ``"known"`` makes only what other states have
        made already, so that a land's moves are not made early for states that never need them.
        """
        kids.more()
        rule = self.first_children
        found = kids.found
        if rule == "one" or not found:
            return
        won = self._won
        if rule == "all":
            while won[found[-1]] != _LOSS and kids.more():
                pass
            return
        lands, trees, heaps = self._of[state]
        options = self.store.options
        want = sum(heaps) + sum(len(options(t)) for t in trees)
        known = self._kids.get
        for land in set(lands):
            land_kids = known(land)
            if land_kids is not None:
                want += len(land_kids.found)
        while len(found) < want and won[found[-1]] != _LOSS and kids.more():
            pass

    def _settle_state(self, state: int, win: bool) -> None:
        self._tt_drop(state)
        self._state_kids.pop(state, None)
        self._proved_number(state, win)

    def _fresh_dn(self, state: State) -> int:
        """A state not searched yet is priced (1, its open lands' lives): more lives, more children."""
        known, land_lives = self._lives, self._land_lives
        lives = 0
        for x in state[0]:
            n = known.get(x)
            lives += land_lives(x) if n is None else n
        return DN_PER_LIFE * lives + len(state[1]) + len(state[2])

    def _state_children(self, state: int) -> StateChildren:
        """A state's children (made as asked for); ``_Renumbered`` if a forget numbered the states afresh."""
        kids = self._state_kids.get(state)
        if kids is None or kids.broken:
            self._opened += 1
            if self._opened % self.refresh_every == 0:
                refresh = self.refresh_seconds
                if refresh is not None and time.monotonic() - self._refreshed >= refresh:
                    self.forget_lookups()
            generation = self._generation
            self._check_memory()
            if self._generation != generation:
                raise _Renumbered
            self.stats["states_searched"] += 1
            s = self._of[state]
            gen = self._lazy_child_states(s)
            kids = self._state_kids.remember(state, StateChildren(gen, self._count(s)))
        else:
            self._state_kids.move_to_end(state)
        return kids

    def _count(self, state: State) -> int:
        """About how many distinct children a state has (for the disproof number of those not made).

        A land whose children are open counts those found and its estimate of the rest; any
        other land counts ``CHILDREN_PER_LIFE`` a life, and is not opened for it: many states
        are settled by a move in a tree or a heap, or given up, before any land child is made.
        """
        lands, trees, heaps = state
        n = sum(heaps) + sum(len(self.store.options(t)) for t in trees)
        open_kids = self._kids
        for land in set(lands):
            kids = open_kids.get(land)
            if kids is None:
                n += CHILDREN_PER_LIFE * self._land_lives(land)
            else:
                n += len(kids.found) + kids.remaining()
        return n

    def _lazy_child_states(self, state: State) -> Iterator[Child]:
        """The children of a state, settled where that costs nothing: heap and tree moves, then land moves."""
        lands, trees, heaps = state
        store = self.store
        settled = self._settled
        for i, h in enumerate(heaps):
            if i and heaps[i - 1] == h:
                continue
            rest = heaps[:i] + heaps[i + 1 :]
            for k in range(h):
                yield settled(self._state(lands, trees, (*rest, k)))
        for i, t in enumerate(trees):
            if i and trees[i - 1] == t:
                continue
            others_t = trees[:i] + trees[i + 1 :]
            for o in store.options(t):
                yield settled(self._state(lands, (*others_t, o), heaps))
        for i, land in enumerate(lands):
            if i and lands[i - 1] == land:
                continue
            others = lands[:i] + lands[i + 1 :]
            kids = self._land_kids(land)
            if self._land_lives(land) <= self.order_lives:
                for cl in self._ordered_kids(kids):
                    yield settled(self._state(others + cl, trees, heaps))
                continue
            found = _tuples(kids)
            j = 0
            while True:
                if j < len(found):
                    cl = found[j]
                    j += 1
                    yield settled(self._state(others + cl, trees, heaps))
                elif kids.done or not self._more_land_kids(kids):
                    break

    def _ordered_kids(self, kids: LazyChildren | CoreLandChildren) -> list[tuple[str, ...]]:
        """Every child of a land, smallest first: fewest lives of its largest land, then fewest lands.

        df-pn proves a state by one losing child and prices a child not searched yet by its
        lives, so the small children, cheap to settle, are best made and tried first.
        """
        self._every_kid(kids)
        lives = self._land_lives
        return sorted(_tuples(kids), key=lambda cl: (max(map(lives, cl), default=0), len(cl)))

    def _settled(self, state: State) -> Child:
        """A child state's number, or ``WON``/``LOST`` if its outcome is known already."""
        if not state[0]:
            return WON if self.store.outcome(state[1], state[2]) else LOST
        i = self._ids.get(state)
        if i is None:
            known = self._looked_up(state)
            if known is not None:
                return WON if known else LOST
            i = self._number_new(state)
        else:
            known_number = self._won[i]
            if known_number:
                return WON if known_number == _WIN else LOST
        return i


def _one_land(state: State) -> bool:
    """Whether a state is one land alone (what the table keeps the outcome of)."""
    return len(state[0]) == 1 and not state[1] and not state[2]


def _tuples(kids: LazyChildren | CoreLandChildren) -> list[tuple[str, ...]]:
    """A land's children found so far, each its sorted reduced lands (made without ``name``)."""
    return cast("list[tuple[str, ...]]", kids.found)


def misere_outcome(position: Position | str, table: Any = None) -> bool:
    """One-off convenience: the misère outcome of a position with a fresh solver."""
    return MisereSolver(table).outcome(position)


__all__ = [
    "ZERO",
    "MisereSolver",
    "MisereTable",
    "ReducedTreeStore",
    "TreeStore",
    "misere_outcome",
]
