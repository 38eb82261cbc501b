"""Trees of lands built by ``tree_build`` are the ones ``MisereSolver._tree`` builds in Python.

The compiled loop must give every land the same tree and make the store's nodes in the same
order (a state is keyed by its trees' values, so the search's order depends on them): the
tests build the tree of every land reachable from 1 to 4 spots both ways, in the same order,
and compare the values, the texts and the stores node by node; then again with every array
of the loop as small as it can be (each fills and grows many times), and whole searches.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from games import reachable

from sprouts_cli.engine.aot import kernel_path
from sprouts_cli.engine.position import Position
from sprouts_cli.engine.reduce import reduced_lands
from sprouts_cli.solve.misere import MisereSolver
from sprouts_cli.solve.misere_core import CoreChildren, core_children_available
from sprouts_cli.solve.reduced_trees import ReducedTreeStore

pytestmark = pytest.mark.skipif(
    not core_children_available() or kernel_path() == "python", reason="tree_build's loop is compiled"
)


@cache
def lands_from(n: int) -> list[str]:
    return sorted({x for p in reachable(n).values() for x in reduced_lands(p)})


def solver(compiled: bool) -> MisereSolver:
    s = MisereSolver(core_children=True, core_lives=0, compiled_trees=compiled)
    s._core = CoreChildren(s._lives)  # the numbering the compiled loop works over, from the start
    return s


def tiny(s: MisereSolver) -> MisereSolver:
    """``s`` with every array of ``tree_build``'s loop and the store's as small as it can be."""
    store = s.store
    assert isinstance(store, ReducedTreeStore)
    t = store.tables()
    t.frames = np.zeros((1, 3), np.int64)
    t.vstack = np.zeros(1, np.int64)
    t.astack = np.zeros((1, 4), np.int64)
    t.avals = np.zeros(1, np.int64)
    t.parts = np.zeros(1, np.int64)
    t.built = np.zeros(1, np.int64)
    t.rtab = np.zeros(4, np.int64)
    t.arena = np.zeros(4, np.int32)
    t.skey = np.zeros(4, np.int64)
    t.sval = np.zeros(4, np.int64)
    return s


def same_stores(a: ReducedTreeStore, b: ReducedTreeStore) -> None:
    assert a._flat == b._flat
    assert a._start == b._start
    assert a._win == b._win and a._win1 == b._win1
    assert a._depth == b._depth
    assert a._index == b._index
    assert a._heap_node == b._heap_node and a._even_heap == b._even_heap
    assert a._flagged == b._flagged
    n = a.nodes
    for name in ("_k_flat", "_k_start", "_k_win", "_k_win1", "_k_heapk"):
        x, y = getattr(a, name), getattr(b, name)
        end = int(a._k_start[n]) if name == "_k_flat" else n + (name == "_k_start")
        assert np.array_equal(x[:end], y[:end]), name


@pytest.mark.parametrize("small", [False, True])
def test_every_land_from_1_to_4_spots_gets_the_same_tree_and_the_same_nodes(small: bool) -> None:
    plain, built = solver(False), solver(True)
    if small:
        tiny(built)
    for land in lands_from(4):
        assert built.tree(land) == plain.tree(land), land
        assert built.store.nodes == plain.store.nodes, land
    assert built._trees == plain._trees
    assert {k: plain.store.to_text(v) for k, v in plain._trees.items()} == {
        k: built.store.to_text(v) for k, v in built._trees.items()
    }
    assert built.stats == plain.stats
    same_stores(built.store, plain.store)  # type: ignore[arg-type]


def test_the_loops_birthdays_are_the_stores() -> None:
    s = solver(True)
    for land in lands_from(3):
        s.tree(land)
    store = s.store
    assert isinstance(store, ReducedTreeStore)
    for n in range(store.nodes):
        assert store._k_depth[n] == store.birthday(2 * n)
        assert store._k_bday1[n] == store.birthday(2 * n + 1)


def test_nodes_made_in_python_between_builds_are_found_by_the_loop() -> None:
    """Sums made by the store in Python (as the search's states make them) between two builds."""
    plain, built = solver(False), solver(True)
    lands = lands_from(4)
    for i, land in enumerate(lands):
        for s in (plain, built):
            t = s.tree(land)
            s.store.add(t, s.tree(lands[i // 2]))
            s.store.add(t, s.store.heap(i % 7))
        assert built.store.nodes == plain.store.nodes, land
    same_stores(built.store, plain.store)  # type: ignore[arg-type]


@pytest.mark.parametrize("small", [False, True])
def test_sums_by_the_compiled_add_are_the_plain_adds_node_by_node(small: bool) -> None:
    """``ReducedTreeStore.add`` over ``tree_build``'s tables (``add_entry``) against the plain
    recursion (``_add_plain``, a store without tables): sums of the trees of lands from 1 to 4
    spots, with bits and heaps, made in the same order, give the same values and nodes."""
    from sprouts_cli.solve import tree_build as tb

    lands = lands_from(4)
    plain, built = solver(False), solver(True)
    for land in lands:
        assert plain.tree(land) == built.tree(land), land
    if small:
        tiny(built)
    assert plain.store._tables is None and built.store._tables is not None
    sums_before = int(built.store._tables.C[tb.C_SUMS])
    values = [plain._trees[land] for land in lands]
    pairs = [(values[i], values[(7 * i + 3) % len(values)] ^ (i & 1)) for i in range(0, len(values), 3)]
    heaps = [s.store.heap(k) for s in (plain, built) for k in range(10)][:10]  # made in both
    assert built.store.nodes == plain.store.nodes
    pairs += [(v, heaps[k]) for k, v in enumerate(values[:40:4])]
    for a, b in pairs:
        assert built.store.add(a, b) == plain.store.add(a, b), (a, b)
        assert built.store.nodes == plain.store.nodes
    assert int(built.store._tables.C[tb.C_SUMS]) > sums_before  # the sums went through the kernel
    same_stores(built.store, plain.store)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [5, 6, 7, 8])
def test_whole_searches_are_the_same(n: int) -> None:
    """The same outcome, the same counts (nodes, states, trees), the same store."""
    plain = MisereSolver(core_children=True, core_lives=0, compiled_trees=False)
    built = MisereSolver(core_children=True, core_lives=0, compiled_trees=True)
    assert plain.outcome(Position.start(n)) == built.outcome(Position.start(n))
    assert built.stats == plain.stats
    same_stores(built.store, plain.store)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [6, 7])
def test_whole_searches_that_forget_at_every_reading_answer_right_and_build_the_references_trees(
    n: int,
) -> None:
    """A bound of one byte: each forget starts a numbering the loop is seeded from and empties its
    tables of sums and raw sets.  The two stores count their caches differently, so the forgets
    fall elsewhere and the searches differ; the outcome and every land's tree must not."""
    plain = MisereSolver(core_children=True, core_lives=0, compiled_trees=False, memory=1)
    built = MisereSolver(core_children=True, core_lives=0, compiled_trees=True, memory=1)
    plain.memory_every = built.memory_step_min = 16
    assert plain.outcome(Position.start(n)) == built.outcome(Position.start(n))
    assert built.stats["forgets"] > 1 and plain.stats["forgets"] > 1
    reference = solver(False)
    for land, t in sorted(built._trees.items()):
        assert built.store.to_text(t) == reference.store.to_text(reference.tree(land)), land


def test_a_forget_starts_a_numbering_that_knows_the_trees() -> None:
    """After a forget the loop finds the trees built before by number, and builds none again."""
    s, plain = solver(True), solver(False)
    lands = lands_from(3)
    for land in lands:
        s.tree(land)
    built = s.stats["lands_with_trees"]
    tables = s.store.tables()  # type: ignore[union-attr]
    assert s.store.cached() >= tables.cached() > 0  # the loop's sums and raw sets count as the store's
    s.forget()
    assert s.store.cached() == tables.cached() == 0
    for land in lands:
        s.tree(land)
    assert s.stats["lands_with_trees"] == built
    for land in sorted(set(lands_from(4)) - set(lands))[::10]:
        assert s.store.to_text(s.tree(land)) == plain.store.to_text(plain.tree(land)), land
