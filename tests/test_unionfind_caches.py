"""The shared helpers: union–find against networkx, and the bounded canonical-form caches."""

from __future__ import annotations

import networkx as nx
from games import random_game_position
from hypothesis import given
from hypothesis import strategies as st

from sprouts_cli.engine.backend import use_compiled_kernels
from sprouts_cli.engine.boundary_patterns import _FREE_CACHE, _MIRROR_CACHE, _STARTS_CACHE
from sprouts_cli.engine.caches import BoundedCache
from sprouts_cli.engine.canonical import _BY_LAND, _BY_PATTERN, clear_land_cache
from sprouts_cli.engine.reduce import _REDUCED
from sprouts_cli.unionfind import UnionFind

pairs = st.integers(1, 30).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))))
)


@given(pairs)
def test_union_find_groups_are_the_connected_components(case: tuple[int, list[tuple[int, int]]]) -> None:
    n, edges = case
    sets = UnionFind(n)
    joined = [sets.union(a, b) for a, b in edges]
    g = nx.Graph()
    g.add_nodes_from(range(n))
    want: list[list[int]] = []
    for a, b in edges:
        want.append(not nx.has_path(g, a, b))
        g.add_edge(a, b)
    assert joined == want
    components = sorted(sorted(c) for c in nx.connected_components(g))
    assert sets.groups() == components  # in order of least member, each sorted
    assert sets.count() == len(components)
    assert all(sets.find(i) == min(c) for c in components for i in c)


def test_a_bounded_cache_forgets_its_oldest_entries() -> None:
    cache: BoundedCache[int, str] = BoundedCache(3)
    for k in range(5):
        assert cache.remember(k, str(k)) == str(k)
    assert list(cache) == [2, 3, 4]
    cache.move_to_end(2)  # a hit marked as recent outlives the others
    cache.remember(5, "5")
    assert list(cache) == [4, 2, 5]


def test_clear_land_cache_empties_every_canonical_cache() -> None:
    caches = (_BY_LAND, _BY_PATTERN, _FREE_CACHE, _MIRROR_CACHE, _STARTS_CACHE, _REDUCED)
    use_compiled_kernels(False)  # the Python path fills every cache (the compiled one skips some)
    try:
        for seed in range(6):
            random_game_position(8, 10, seed).reduced()
        assert all(len(c) > 0 for c in caches)
        clear_land_cache()
        assert all(len(c) == 0 for c in caches)
    finally:
        use_compiled_kernels(None)
