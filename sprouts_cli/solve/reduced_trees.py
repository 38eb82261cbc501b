"""Reduced canonical trees of misère games in compact arrays (Lemoine and Viennot, arXiv:0908.4407).

Lemoine and Viennot's *reduced canonical tree* of a game is its game tree with
identical children merged (the *canonical tree*) and then reduced by rules that
keep it interchangeable with the game in every sum.  Their program (GLOP) applies
four reductions, numbered here as there; each is a case of Conway's misère
simplification (ONAG ch. 12), so a reduced tree names the same game as the full
simplest form of ``misere_trees.TreeStore``, which stays the reference
(``docs/misere.md`` gives each rule with its proof):

1. **Nim heaps.**  A game whose options are all nim heaps, one of them ``*0`` or
   ``*1``, is the heap ``*m``, ``m`` the least size missing.
2. **Empty reducer.**  A game that the mover wins, every option of which has the
   option ``0``, is ``0``.
3. **Reducer.**  If ``T`` is a non-empty part of a game's options and every other
   option has an option equal to ``{T}``, the game is ``{T}``.  Applied one option at
   a time until none is left to remove (Conway's simplest form theorem: then the
   form is the simplest), with 2 as the case of an empty ``T``.
4. **Factor ``*1``.**  A game whose options are ``Z`` and ``z + *1`` for every
   option ``z`` of ``Z`` is ``Z + *1``.  A tree is stored as a *node* and a bit: the
   value ``v = 2·node + bit`` is the node's game plus ``*1`` when the bit is set, so
   ``G`` and ``G + *1`` share one node and adding ``*1`` flips a bit.

The store keeps nodes in flat arrays: the options of every node in one ``array``
of 32-bit values, where each node's run starts, its outcome alone and beside ``*1``
as bytes, its birthday; a node is found again from its options through a
dictionary keyed by their bytes.  Sums, raw option sets and outcomes of sums are
caches that ``forget()`` empties (all of it can be made again), which is what
the misère search does when it reaches its memory bound.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..engine.aot import kernel_path
from ..engine.kernels import tree_rules
from .misere_trees import TreeText, misere_nim_win, normal_heaps

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))

#: The value of the game with no option, ``0 = *0 = {}`` (node 0, no ``*1``).
ZERO = 0
#: The value of ``*1 = 0 + *1``.
STAR = 1


def _grown(a: np.ndarray, need: int, fill: int) -> np.ndarray:
    """``a`` copied into an array of at least ``need`` entries (twice as many), ``fill`` past its end."""
    b = np.full(max(need, 2 * len(a)), fill, a.dtype)
    b[: len(a)] = a
    return b


def _key(values: Iterable[int]) -> bytes:
    return array("i", sorted(values)).tobytes()


class ReducedTreeStore(TreeText):
    """Reduced canonical trees as values ``2·node + bit``; sums and misère outcomes of sums.

    The same interface as ``misere_trees.TreeStore`` (``make``, ``add``, ``add_all``,
    ``outcome``, ``options``, ``win``, ``heap``, ``heap_size``, ``size``, ``to_text``,
    ``from_text``), so the misère search runs on either.  ``len(store)`` counts values
    in use: nodes, and nodes plus ``*1`` that were met.
    """

    def __init__(self, compiled: bool | None = None) -> None:
        self._flat = array("i")  # the options (values) of every node, node after node
        self._start = array("q", [0])  # node n's options: _flat[_start[n]:_start[n + 1]]
        self._win = bytearray()  # the misère outcome of node n alone (1: the mover wins)
        self._win1 = bytearray()  # the misère outcome of node n + *1
        self._depth = array("i")  # node n's birthday
        #: The kernel's copies of ``_flat``, ``_start``, ``_win``, ``_win1`` and of which node is
        #: which heap (``2j`` for ``*2j``, else -1), as numpy arrays with room to grow: written as
        #: nodes are made, passed whole (what lies past the last node is never read).
        self._k_flat = np.zeros(1024, np.int32)
        self._k_start = np.zeros(1024, np.int64)
        self._k_win = np.zeros(1024, np.uint8)
        self._k_win1 = np.zeros(1024, np.uint8)
        self._k_heapk = np.full(1024, -1, np.int32)
        #: ``tree_size_kernel``'s scratch: a mark a node (stamped anew each call) and a stack.
        self._k_mark = np.zeros(1024, np.int64)
        self._k_stack = np.empty(1024, np.int64)
        self._stamp = 0
        #: ``tree_build``'s copies beside them: each node's birthday, and its value's with ``*1``;
        #: its size (-1: not known yet); whether its value with ``*1`` was met; the node of ``*2j``
        #: (as long as the others: a heap is a node); the marks and stack of its own size walks.
        self._k_depth = np.zeros(1024, np.int32)
        self._k_bday1 = np.zeros(1024, np.int32)
        self._k_size = np.full(1024, -1, np.int64)
        self._k_flag = np.zeros(1024, np.uint8)
        self._k_heapnode = np.zeros(1024, np.int64)
        self._k_mark2 = np.zeros(1024, np.int64)
        self._k_stack2 = np.empty(1024, np.int64)
        #: ``tree_build.TreeTables`` once a tree is built by ``tree_build`` (``tables()``).
        self._tables: Any = None
        #: Rules 1-3 and sizes by the compiled kernels (``engine.kernels.tree_rules``); False: the
        #: plain-Python references (``_reduce_plain``, ``_size_plain``), faster than the kernels'
        #: source run as plain Python, hence the default where nothing is compiled.
        self.compiled = kernel_path() != "python" if compiled is None else compiled
        self._index: dict[bytes, int] = {}  # a node's sorted options (bytes) -> node
        self._heap_node: list[int] = []  # the node of *2j, j = 0, 1, ...
        self._even_heap: dict[int, int] = {}  # a node that is *2j -> 2j
        self._flagged: set[int] = set()  # nodes whose value with *1 was met
        self._raw: dict[bytes, int] = {}
        self._sums: dict[int, int] = {}
        self._outcomes: dict[tuple[tuple[int, ...], tuple[int, ...]], bool] = {}
        self._birthdays: dict[int, int] = {}
        self._sizes: dict[int, int] = {}
        self._digests: dict[int, bytes] = {}
        #: The options of values read often, as tuples (the search asks for the same few again and again).
        self._options: dict[int, tuple[int, ...]] = {}
        self._info = np.zeros(3, np.int64)
        self._new(())
        self._heap_node.append(0)
        self._even_heap[0] = 0
        self._k_heapk[0] = 0
        self.rule_counts = {"1": 0, "2": 0, "3": 0, "4": 0, "new": 0}

    # ------------------------------------------------------------- reading off
    def __len__(self) -> int:
        return len(self._win) + len(self._flagged)

    @property
    def nodes(self) -> int:
        """The number of nodes stored (a node and its ``+ *1`` share one)."""
        return len(self._win)

    def options(self, g: int) -> tuple[int, ...]:
        """The values of the options of ``g``."""
        hit = self._options.get(g)
        if hit is None:
            n = g >> 1
            own = self._flat[self._start[n] : self._start[n + 1]]
            hit = self._options[g] = (g - 1, *(c ^ 1 for c in own)) if g & 1 else tuple(own)
        return hit

    def win(self, g: int) -> bool:
        """True when the player to move in ``g`` alone wins in misère play."""
        return bool((self._win1 if g & 1 else self._win)[g >> 1])

    def birthday(self, g: int) -> int:
        """The length of the longest play of ``g``'s reduced tree."""
        if not g & 1:
            return self._depth[g >> 1]
        hit = self._birthdays.get(g)
        if hit is None:
            hit = self._birthdays[g] = 1 + max(self.birthday(o) for o in self.options(g))
        return hit

    def heap_size(self, g: int) -> int | None:
        """``k`` when ``g`` is the nim heap ``*k``, else None."""
        k = self._even_heap.get(g >> 1)
        return None if k is None else k | (g & 1)

    def size(self, g: int) -> int:
        """The number of distinct nodes in ``g``'s tree (a measure for summing small trees first)."""
        hit = self._sizes.get(g >> 1)
        if hit is None:
            n0 = g >> 1
            if self.compiled:
                if len(self._k_mark) < len(self._k_start):
                    self._k_mark = _grown(self._k_mark, len(self._k_start), 0)
                    self._k_stack = np.empty(len(self._k_mark), np.int64)
                self._stamp += 1
                hit = self._sizes[n0] = int(
                    tree_rules.tree_size_kernel(
                        n0, self._k_flat, self._k_start, self._k_mark, self._k_stack, self._stamp
                    )
                )
            else:
                hit = self._sizes[n0] = self._size_plain(n0)
        return hit + (g & 1)

    def _size_plain(self, n0: int) -> int:
        """``size`` of node ``n0`` in plain Python, the reference of ``tree_rules.tree_size_kernel``."""
        seen = {n0}
        stack = [n0]
        flat, start = self._flat, self._start
        while stack:
            n = stack.pop()
            for o in flat[start[n] : start[n + 1]]:
                m = o >> 1
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
        return len(seen)

    # ---------------------------------------------------------------- building
    def _new(self, opts: Sequence[int]) -> int:
        n = len(self._win)
        self._flat.extend(opts)
        self._start.append(len(self._flat))
        self._win.append(1 if not opts or any(not self.win(o) for o in opts) else 0)
        # node + *1: the options are the node itself and each option + *1
        self._win1.append(1 if not self._win[n] or any(not self.win(o ^ 1) for o in opts) else 0)
        self._depth.append(1 + max(self.birthday(o) for o in opts) if opts else 0)
        self._index[_key(opts)] = n
        self._copy_for_kernel(n, opts)
        return n

    def _copy_for_kernel(self, n: int, opts: Sequence[int]) -> None:
        """Node ``n``, just made, into the kernel's arrays (each doubled when full)."""
        end = len(self._flat)
        self._room_for(n + 2, end)
        self._k_flat[end - len(opts) : end] = opts
        self._k_start[n + 1] = end
        self._k_win[n] = self._win[n]
        self._k_win1[n] = self._win1[n]
        depth, bday1 = self._k_depth, self._k_bday1
        depth[n] = self._depth[n]
        top = depth[n]
        for c in opts:
            v = c ^ 1
            b = bday1[v >> 1] if v & 1 else depth[v >> 1]
            if b > top:
                top = b
        bday1[n] = 1 + top
        if self._tables is not None:
            self._tables.node_made(n)

    def _room_for(self, nodes: int, flat: int) -> None:
        """The kernel's arrays with room for ``nodes`` nodes and ``flat`` options (doubled when short)."""
        if flat > len(self._k_flat):
            self._k_flat = _grown(self._k_flat, flat, 0)
        if nodes > len(self._k_start):
            self._k_start = _grown(self._k_start, nodes, 0)
            self._k_win = _grown(self._k_win, nodes, 0)
            self._k_win1 = _grown(self._k_win1, nodes, 0)
            self._k_heapk = _grown(self._k_heapk, nodes, -1)
            self._k_depth = _grown(self._k_depth, nodes, 0)
            self._k_bday1 = _grown(self._k_bday1, nodes, 0)
            self._k_size = _grown(self._k_size, nodes, -1)
            self._k_flag = _grown(self._k_flag, nodes, 0)
            self._k_heapnode = _grown(self._k_heapnode, nodes, 0)  # a heap is a node: never full
            self._k_mark2 = _grown(self._k_mark2, nodes, 0)
            self._k_stack2 = np.empty(len(self._k_mark2), np.int64)

    def tables(self) -> Any:
        """``tree_build``'s tables over this store (made the first time)."""
        if self._tables is None:
            from .tree_build import TreeTables

            self._tables = TreeTables(self)
        return self._tables

    def _sync_kernel(self) -> None:
        """Copy what ``tree_build`` made into the store's Python side: nodes (options, outcomes,
        birthdays, the index), heaps, values with ``*1`` met, rule counts."""
        from . import tree_build as tb

        C = self._tables.C
        n0, n1 = len(self._win), int(C[tb.C_NODES])
        if n1 > n0:
            kflat, kstart = self._k_flat, self._k_start
            a, b = int(kstart[n0]), int(kstart[n1])
            self._flat.extend(kflat[a:b].tolist())
            self._start.extend(kstart[n0 + 1 : n1 + 1].tolist())
            self._win.extend(self._k_win[n0:n1].tobytes())
            self._win1.extend(self._k_win1[n0:n1].tobytes())
            self._depth.extend(self._k_depth[n0:n1].tolist())
            index, flat, start = self._index, self._flat, self._start
            for n in range(n0, n1):
                index[flat[start[n] : start[n + 1]].tobytes()] = n
        heap_node = self._heap_node
        for j in range(len(heap_node), int(C[tb.C_HEAPS])):
            n = int(self._k_heapnode[j])
            heap_node.append(n)
            self._even_heap[n] = 2 * j
        t = self._tables
        f1 = int(C[tb.C_FLAGS])
        if f1 > t.flags_read:
            self._flagged.update(t.flaglog[t.flags_read : f1].tolist())
            t.flags_read = f1
        counts = self.rule_counts
        for name, i in zip(("1", "2", "3", "4", "new"), range(tb.C_RULE1, tb.C_NEW + 1), strict=True):
            counts[name] += int(C[i])
            C[i] = 0

    def heap(self, k: int) -> int:
        """The value of the nim heap ``*k`` (``*2j`` a node, ``*(2j+1) = *2j + *1``)."""
        if k < 0:
            raise ValueError("a nim heap cannot be negative")
        j = k >> 1
        while len(self._heap_node) <= j:
            m = 2 * len(self._heap_node)  # make *m from *0 … *(m-1)
            opts = [self.heap(i) for i in range(m)]
            n = self._index.get(_key(opts))
            if n is None:
                n = self._new(opts)
            self._heap_node.append(n)
            self._even_heap[n] = m
            self._k_heapk[n] = m
            if len(self._k_heapnode) <= j:
                self._k_heapnode = _grown(self._k_heapnode, j + 1, 0)
            self._k_heapnode[len(self._heap_node) - 1] = n
            if self._tables is not None:
                from .tree_build import C_HEAPS

                self._tables.C[C_HEAPS] = len(self._heap_node)
        if k & 1:
            self._flagged.add(self._heap_node[j])
        return 2 * self._heap_node[j] | (k & 1)

    def _reversible_through(self, x: int, s: set[int], rest_win: bool) -> bool:
        """Has ``x`` an option ``y`` equal to ``{rest}``, ``rest`` the options ``s`` but ``x``?
        (The local test of ``TreeStore``.)"""
        options = self.options
        wins = (self._win, self._win1)
        n_rest = len(s) - 1
        for y in options(x):
            if wins[y & 1][y >> 1] != rest_win:  # win(y), read in place
                continue
            oy = options(y)
            if len(oy) > n_rest or x in oy or not s.issuperset(oy):
                continue
            soy = set(oy)
            if all(t in soy or t == x or y in options(t) for t in s):
                return True
        return False

    def _heap_rule(self, s: set[int]) -> int | None:
        """Rule 1: options all heaps, one of them *0 or *1: the heap of the least size missing."""
        if ZERO not in s and STAR not in s:
            return None
        sizes = set()
        for o in s:
            k = self.heap_size(o)
            if k is None:
                return None
            sizes.add(k)
        m = 0
        while m in sizes:
            m += 1
        return self.heap(m)

    def _reduce(self, s: set[int]) -> int | set[int]:
        """Rules 1-3 on an option set: a value when a rule names the game, else the reduced options."""
        if not self.compiled:
            return self._reduce_plain(s)
        order = np.array(sorted(s, key=self.birthday, reverse=True), np.int64)
        out = np.empty(len(order), np.int64)
        info = self._info
        k = tree_rules.reduce_options_kernel(
            order, self._k_flat, self._k_start, self._k_win, self._k_win1, self._k_heapk, out, info
        )
        counts = self.rule_counts
        counts["3"] += int(info[1])
        kind = info[0]
        if kind == tree_rules.KIND_SET:
            return set(out[:k].tolist())
        if kind == tree_rules.KIND_HEAP:
            counts["1"] += 1
            return self.heap(int(info[2]))
        counts["2"] += 1
        return ZERO

    def _reduce_plain(self, s: set[int]) -> int | set[int]:
        """``_reduce`` in plain Python, the reference of the kernel."""
        hit = self._heap_rule(s)
        if hit is not None:
            self.rule_counts["1"] += 1
            return hit
        win = self.win
        wins = (self._win, self._win1)
        options = self.options
        g_win = any(not win(o) for o in s)
        if s and g_win and all(ZERO in options(o) for o in s):
            self.rule_counts["2"] += 1
            return ZERO
        changed = True
        while changed:
            changed = False
            losses = sum(1 for t in s if not wins[t & 1][t >> 1])  # losses: a move to one wins
            for x in sorted(s, key=self.birthday, reverse=True):
                alone = len(s) == 1  # the rest is empty
                rest_win = alone or losses - (not wins[x & 1][x >> 1]) > 0
                if alone and not g_win:
                    continue  # the proviso: {x} is a loss and {} a win
                if self._reversible_through(x, s, rest_win):
                    s = s - {x}
                    self.rule_counts["3"] += 1
                    changed = True
                    hit = self._heap_rule(s)
                    if hit is not None:
                        self.rule_counts["1"] += 1
                        return hit
                    break
        return s

    def _factor(self, s: set[int]) -> int | None:
        """Rule 4: options ``Z`` and ``z + *1`` for every option ``z`` of ``Z``: the value ``Z + *1``."""
        if len(s) < 2:
            return None
        top = max(self.birthday(o) for o in s)
        for z in s:
            if self.birthday(z) != top:
                continue
            oz = self.options(z)
            if len(oz) + 1 == len(s) and all((c ^ 1) in s and (c ^ 1) != z for c in oz):
                return z ^ 1
        return None

    def make(self, options: Iterable[int]) -> int:
        """The value of the game whose options have these values, reduced."""
        raw = set(options)
        rk = _key(raw)
        hit = self._raw.get(rk)
        if hit is not None:
            return hit
        n = self._index.get(rk)
        if n is not None:
            hit = 2 * n
        else:
            reduced = self._reduce(raw)
            if isinstance(reduced, int):
                hit = reduced
            else:
                n = self._index.get(_key(reduced)) if reduced != raw else None
                if n is not None:
                    hit = 2 * n
                else:
                    hit = self._factor(reduced)
                    if hit is not None:
                        self.rule_counts["4"] += 1
                    else:
                        self.rule_counts["new"] += 1
                        hit = 2 * self._new(sorted(reduced))
        if hit & 1:
            self._flagged.add(hit >> 1)
        self._raw[rk] = hit
        return hit

    # ------------------------------------------------------------------- sums
    def add(self, a: int, b: int) -> int:
        """The value of ``a + b``: the bits add as ``*1 + *1 = 0``, the nodes are summed."""
        bit = (a ^ b) & 1
        na, nb = a >> 1, b >> 1
        if na == 0 or nb == 0:
            hit = 2 * (na | nb)
        else:
            if na > nb:
                na, nb = nb, na
            key = (na << 32) | nb
            known = self._sums.get(key)
            if known is None:
                x, y = 2 * na, 2 * nb
                if self._tables is not None:  # ``tree_build``'s tables: the same sum compiled
                    known = self._sums[key] = self._tables.add(x, y)
                else:
                    known = self._sums[key] = self._add_plain(x, y)
            hit = known
        if bit:
            hit ^= 1
            self._flagged.add(hit >> 1)
        return hit

    def _add_plain(self, x: int, y: int) -> int:
        """The sum of two nodes' values (no bits), not known yet: every option of one plus the
        other, in Python (the reference of ``tree_build``'s ``add_entry``)."""
        opts = {self.add(o, y) for o in self.options(x)}
        opts.update(self.add(x, o) for o in self.options(y))
        return self.make(opts)

    def add_all(self, games: Iterable[int]) -> int:
        """The value of a sum of several games."""
        total = ZERO
        for g in games:
            total = self.add(total, g)
        return total

    def outcome(self, games: Sequence[int], heaps: Iterable[int] = ()) -> bool:
        """Does the player to move win the sum of these trees and nim heaps (misère play)?

        Every ``*1`` bit joins the heaps, trees that are heaps too, heaps are merged by
        ``*1 + *n = *(n xor 1)``; then a memoised search over the sum's positions.
        """
        nodes: list[int] = []
        hs = list(heaps)
        for g in games:
            k = self.heap_size(g)
            if k is not None:
                if k:
                    hs.append(k)
                continue
            nodes.append(g & ~1)
            if g & 1:
                hs.append(1)
        return self._outcome(tuple(sorted(nodes)), normal_heaps(hs))

    def _outcome(self, trees: tuple[int, ...], heaps: tuple[int, ...]) -> bool:
        if not trees:
            return misere_nim_win(heaps)
        if not heaps and len(trees) == 1:
            return self.win(trees[0])
        if heaps == (1,) and len(trees) == 1:
            return self.win(trees[0] | 1)
        key = (trees, heaps)
        hit = self._outcomes.get(key)
        if hit is None:
            hit = self._outcomes[key] = self._search_sum(trees, heaps)
        return hit

    def _search_sum(self, trees: tuple[int, ...], heaps: tuple[int, ...]) -> bool:
        """Win iff some move (in a tree or a heap) leaves a sum that is a loss."""
        for i, g in enumerate(trees):
            if i and trees[i - 1] == g:
                continue
            others = trees[:i] + trees[i + 1 :]
            for o in sorted(self.options(g), key=self.win):
                k = self.heap_size(o)
                if k is not None:
                    child = self._outcome(others, normal_heaps((*heaps, k)))
                elif o & 1:
                    child = self._outcome(tuple(sorted((*others, o ^ 1))), normal_heaps((*heaps, 1)))
                else:
                    child = self._outcome(tuple(sorted((*others, o))), heaps)
                if not child:
                    return True
        for i, h in enumerate(heaps):
            if i and heaps[i - 1] == h:
                continue
            rest = heaps[:i] + heaps[i + 1 :]
            for k in range(h):
                if not self._outcome(trees, normal_heaps((*rest, k))):
                    return True
        return False

    # ----------------------------------------------------------------- memory
    def forget(self) -> None:
        """Empty the caches (sums, raw option sets, outcomes of sums): all can be made again."""
        self._raw.clear()
        self._sums.clear()
        self._outcomes.clear()
        self._sizes.clear()
        self._options.clear()
        if self._tables is not None:
            self._tables.forget()

    def cached(self) -> int:
        """How many entries the caches hold (what ``forget`` frees), ``tree_build``'s tables of raw
        option sets and sums included."""
        held = len(self._raw) + len(self._sums) + len(self._outcomes) + len(self._sizes) + len(self._options)
        if self._tables is not None:
            held += self._tables.cached()
        return held

    def nbytes(self) -> int:
        """Bytes in the node arrays (options, starts, outcomes, birthdays)."""
        return (
            self._flat.itemsize * len(self._flat)
            + self._start.itemsize * len(self._start)
            + len(self._win)
            + len(self._win1)
            + self._depth.itemsize * len(self._depth)
        )


__all__ = ["STAR", "ZERO", "ReducedTreeStore"]
