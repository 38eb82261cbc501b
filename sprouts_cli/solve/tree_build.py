"""The reduced canonical trees of small lands, built in one compiled loop over the core's numbering.

``MisereSolver._tree`` (the reference) builds a land's tree from every child of the land:
each child is a land or a sum of lands, whose trees are built first (recursively), summed
(``ReducedTreeStore.add``) and gathered as the options of the land's game
(``ReducedTreeStore.make``).  In Python every child costs its lands' strings, a call per
part, dictionary lookups of sums and option sets, and a sort; this module does the same
over arrays:

* **the store's tables as open-addressing hash tables**: nodes by their sorted options
  (the options are the node's own run of ``flat``), raw option sets by their sorted values
  (kept in an arena), and sums by the pair of nodes;
* **``add`` and ``make``** as ``ReducedTreeStore`` does them, in the same order (the
  recursion of ``add`` on an explicit stack, options of ``x`` then of ``y``), with rules 1-3
  by ``tree_rules.reduce_options_kernel`` and rule 4 as ``_factor``: a new node is made
  exactly when the reference makes it, so nodes are numbered as the reference numbers them;
* **the lands' recursion on a stack of frames** (a land, its next child, where its options
  start on a stack of values): a child's lands get their trees in the order of their
  strings, then are summed smallest tree first (ties in that order), as ``_tree`` does.

The children of a land come from the core (``misere_core.CoreChildren.every_child``): when a
land's children are not all found yet the loop returns and asks Python for them
(``NEED_KIDS``); when an array is full it returns ``NEED_ROOM`` and is called again on larger
arrays.  Either way the land at the top of the stack starts its current child again, and what
was done is found in the tables (a sum or option set is never made twice).  Nodes made here
are copied into the store's Python side after every call (``ReducedTreeStore._sync_kernel``),
and nodes the store makes in Python go into the tables (``index_put``).

The kernels are in ``engine/kernels/tree_build.py`` (built ahead of time with the engine's);
its counters (``C``, int64) are the ``C_*`` names there.
"""

from __future__ import annotations

import numpy as np

from ..engine.kernels import tree_build as kt
from ..engine.kernels.tree_build import (
    C_ARENA,
    C_BUILT,
    C_FLAGS,
    C_FLAT,
    C_FSP,
    C_FULL,
    C_HEAPS,
    C_INDEX,
    C_NEW,
    C_NODES,
    C_RAW,
    C_RULE1,
    C_RULE2,
    C_RULE3,
    C_RULE4,
    C_SUMS,
    C_VSP,
    C_WANT,
    NC,
    NEED_KIDS,
    NEED_ROOM,
    ROOM_FLAT,
    ROOM_NODES,
)


def _longer(a: np.ndarray, need: int, fill: int = 0) -> np.ndarray:
    """``a`` copied into an array of at least ``need`` rows (doubled), ``fill`` past its end."""
    if need <= a.shape[0]:
        return a
    size = a.shape[0]
    while size < need:
        size *= 2
    b = np.full((size, *a.shape[1:]), fill, a.dtype)
    b[: a.shape[0]] = a
    return b


class TreeTables:
    """The arrays ``build_tree`` works on beside the store's own (``ReducedTreeStore._k_*``):
    the tables of nodes, raw option sets and sums, the marks of sizes, the stacks, the logs."""

    def __init__(self, store) -> None:  # type: ignore[no-untyped-def]
        self.store = store
        self.C = np.zeros(NC, np.int64)
        self.info = np.zeros(3, np.int64)
        self.itab = np.zeros(1 << 12, np.int64)
        self.rtab = np.zeros(1 << 12, np.int64)
        self.arena = np.zeros(1 << 16, np.int32)
        self.skey = np.zeros(1 << 12, np.int64)
        self.sval = np.zeros(1 << 12, np.int64)
        self.flaglog = np.zeros(1 << 12, np.int64)
        self.built = np.zeros(1 << 12, np.int64)
        self.frames = np.zeros((256, 3), np.int64)
        self.vstack = np.zeros(1 << 12, np.int64)
        self.astack = np.zeros((1 << 10, 4), np.int64)
        self.avals = np.zeros(1 << 14, np.int64)
        self.parts = np.zeros(64, np.int64)
        self.scratch = np.zeros(1 << 10, np.int64)
        self.flags_read = 0
        n = store.nodes
        self.C[C_NODES] = n
        self.C[C_FLAT] = int(store._k_start[n])
        self.C[C_HEAPS] = len(store._heap_node)
        while 2 * (n + ROOM_NODES) > self.itab.shape[0]:
            self.itab = np.zeros(2 * self.itab.shape[0], np.int64)
        kt.rehash_index(self.itab, n, store._k_flat, store._k_start)
        self.C[C_INDEX] = n

    def node_made(self, n: int) -> None:
        """The store made node ``n`` in Python: into the node table."""
        st = self.store
        self.C[C_NODES] = n + 1
        self.C[C_FLAT] = int(st._k_start[n + 1])
        size = self.itab.shape[0]
        while 2 * (self.C[C_INDEX] + 1 + ROOM_NODES) > size:
            size *= 2
        if size > self.itab.shape[0]:
            self._rehash_index(size)
        kt.index_put(n, self.itab, st._k_flat, st._k_start, self.C)

    def _rehash_index(self, size: int) -> None:
        st = self.store
        self.itab = np.zeros(size, np.int64)
        kt.rehash_index(self.itab, int(self.C[C_NODES]), st._k_flat, st._k_start)

    def forget(self) -> None:
        """Empty the tables of raw sets and sums (as the store's dictionaries)."""
        self.rtab[:] = 0
        self.skey[:] = 0
        self.C[C_RAW] = 0
        self.C[C_ARENA] = 0
        self.C[C_SUMS] = 0

    def cached(self) -> int:
        """Entries of the tables of raw sets and sums (what ``forget`` empties)."""
        return int(self.C[C_RAW] + self.C[C_SUMS])

    def grow(self) -> None:
        """Room for the next ``make`` and the stacks, each array doubled when nearly full."""
        st = self.store
        C = self.C
        st._room_for(int(C[C_NODES]) + 4 * ROOM_NODES + 256, int(C[C_FLAT]) + 4 * ROOM_FLAT + (1 << 16))
        if 4 * (C[C_INDEX] + 4 * ROOM_NODES + 256) > self.itab.shape[0]:
            size = self.itab.shape[0]
            while 4 * (C[C_INDEX] + 4 * ROOM_NODES + 256) > size:
                size *= 2
            self._rehash_index(size)
        if 4 * (C[C_RAW] + 8) > self.rtab.shape[0] or C[C_ARENA] + (1 << 14) > self.arena.shape[0]:
            self.arena = _longer(self.arena, int(C[C_ARENA]) + (1 << 15))
            size = self.rtab.shape[0]
            while 4 * (C[C_RAW] + 8) > size:
                size *= 2
            self.rtab = np.zeros(size, np.int64)
            kt.rehash_raw(self.rtab, self.arena, int(C[C_ARENA]))
        if 4 * (C[C_SUMS] + 8) > self.skey.shape[0]:
            okey, oval = self.skey, self.sval
            self.skey = np.zeros(2 * okey.shape[0], np.int64)
            self.sval = np.zeros(2 * okey.shape[0], np.int64)
            kt.rehash_sums(self.skey, self.sval, okey, oval)
        self.built = _longer(self.built, int(C[C_BUILT]) + 1024)
        self.frames = _longer(self.frames, int(C[C_FSP]) + 64)
        self.vstack = _longer(self.vstack, int(C[C_VSP]) + (1 << 12))
        if C[C_FULL]:
            self.astack = _longer(self.astack, 2 * self.astack.shape[0])
            self.avals = _longer(self.avals, 2 * self.avals.shape[0])
            self.parts = _longer(self.parts, 2 * self.parts.shape[0])
            C[C_FULL] = 0

    def _fit_logs(self) -> None:
        """``flaglog`` and ``scratch`` as long as the store's per-node arrays need."""
        st = self.store
        if self.flaglog.shape[0] < st._k_win.shape[0]:  # a node is logged once: never full
            self.flaglog = _longer(self.flaglog, st._k_win.shape[0])
        if self.scratch.shape[0] < 2 * st._k_win.shape[0]:  # a heap's options (2j, j < the nodes)
            self.scratch = _longer(self.scratch, 2 * st._k_win.shape[0])

    def add(self, a: int, b: int) -> int:
        """``ReducedTreeStore.add`` of two values by ``add_entry`` (the same recursion, the same
        nodes made in the same order), the arrays grown until it fits; the store's Python side
        is synced after."""
        st = self.store
        try:
            while True:
                self._fit_logs()
                v = int(
                    kt.add_entry(
                        a, b, self.astack, self.avals, self.scratch,
                        st._k_flat, st._k_start, st._k_win, st._k_win1, st._k_depth, st._k_bday1, st._k_heapk,
                        st._k_heapnode, st._k_flag, self.flaglog, st._k_size, st._k_mark2, st._k_stack2,
                        self.itab, self.rtab, self.arena, self.skey, self.sval, self.C, self.info,
                    )
                )  # fmt: skip
                if v >= 0:
                    return v
                self.grow()
        finally:
            st._sync_kernel()

    def build(self, root: int, i64c, i32c, sums, kids, text, tree):  # type: ignore[no-untyped-def]
        """One call of ``build_tree`` on the current arrays."""
        st = self.store
        self._fit_logs()
        return int(
            kt.build_tree_entry(
                root, i64c, i32c, sums, kids, text, tree,
                self.frames, self.vstack, self.astack, self.avals, self.parts, self.scratch, self.built,
                st._k_flat, st._k_start, st._k_win, st._k_win1, st._k_depth, st._k_bday1, st._k_heapk,
                st._k_heapnode, st._k_flag, self.flaglog, st._k_size, st._k_mark2, st._k_stack2,
                self.itab, self.rtab, self.arena, self.skey, self.sval, self.C, self.info,
            )
        )  # fmt: skip


__all__ = [
    "C_BUILT",
    "C_FLAGS",
    "C_FSP",
    "C_HEAPS",
    "C_NEW",
    "C_NODES",
    "C_RULE1",
    "C_RULE2",
    "C_RULE3",
    "C_RULE4",
    "C_VSP",
    "C_WANT",
    "NEED_KIDS",
    "NEED_ROOM",
    "TreeTables",
]
