"""Reduced canonical trees against the full simplest forms and brute force (docs/misere.md).

Every rule of ``reduced_trees`` is checked before the search relies on it: on all
games born by day 4 (plain nested frozensets, outcomes by plain minimax) and on
every land reachable from 1 to 5 spots (trees built by the misère solver on each
store), the reduced store names the same games as the full one and gives the same
misère outcome in every sum with the others and with nim heaps.
"""

from __future__ import annotations

import itertools
import random

import pytest
from test_solve_misere_trees import Game, nim, to_game, universe, win  # noqa: F401  (universe: a fixture)

from sprouts_cli.engine.position import Position
from sprouts_cli.solve.misere import MisereSolver
from sprouts_cli.solve.misere_trees import TreeStore
from sprouts_cli.solve.reduced_trees import STAR, ZERO, ReducedTreeStore

HEAPS = [(), (1,), (2,), (3,), (1, 2), (2, 3), (2, 2)]


def to_reduced(store: ReducedTreeStore, g: Game, memo: dict) -> int:
    hit = memo.get(g)
    if hit is None:
        hit = memo[g] = store.make(to_reduced(store, o, memo) for o in g)
    return hit


@pytest.fixture(scope="module")
def both(universe):  # noqa: F811
    days, _, tests = universe
    pool = list(dict.fromkeys(g for d in days for g in d))
    full, red = TreeStore(), ReducedTreeStore()
    fm: dict = {}
    rm: dict = {}
    ids = {g: (to_reduced(full, g, fm), to_reduced(red, g, rm)) for g in pool}
    return pool, tests, full, red, ids


def test_reduced_and_full_trees_name_the_same_games_by_day_4(both):
    pool, _, full, red, ids = both
    for g, h in itertools.combinations(pool, 2):
        assert (ids[g][0] == ids[h][0]) == (ids[g][1] == ids[h][1])
    assert len({r for _, r in ids.values()}) == 22
    # each value is the full simplest form written another way: the same text
    for g in pool:
        assert red.to_text(ids[g][1]) == full.to_text(ids[g][0])


def test_every_rule_is_used_and_sound_on_games_born_on_day_5(both, universe):  # noqa: F811
    """Games born on day 5 (random option sets of the 22 games by day 4, and one made for rule 2)."""
    _, tests, full, red, ids = both
    _, reps_by_day, _ = universe
    reps = reps_by_day[-1]
    rng = random.Random(2)
    a = frozenset({nim(2), nim(3)})
    extra = {frozenset({nim(1), frozenset({nim(0), a})})}  # rule 2: a win whose options all have 0
    while len(extra) < 300:
        extra.add(frozenset(rng.sample(reps, rng.randint(1, 5))))
    fm: dict = {}
    rm: dict = {}
    made = {g: (to_reduced(full, g, fm), to_reduced(red, g, rm)) for g in extra}
    assert all(red.rule_counts[r] > 0 for r in ("1", "2", "3", "4")), red.rule_counts
    some_tests = rng.sample(tests, 150)
    for g, (f, r) in made.items():
        assert red.to_text(r) == full.to_text(f)
        for x in some_tests:
            assert red.outcome([r, *(ids[y][1] for y in x)]) == win(g, *x), (g, x)
    for (f, r), (f2, r2) in itertools.combinations(list(made.values())[:120], 2):
        assert (f == f2) == (r == r2)


def test_reduced_outcomes_match_minimax_in_every_sum_by_day_4(both):
    """Each game beside every test sum of up to two games (and beside nim heaps): minimax decides."""
    pool, tests, _, red, ids = both
    for g in pool:
        for x in tests:
            assert red.outcome([ids[g][1], *(ids[y][1] for y in x)]) == win(g, *x), (g, x)
        for hs in HEAPS:
            assert red.outcome([ids[g][1]], hs) == win(g, *(nim(k) for k in hs)), (g, hs)


def test_sums_are_the_trees_of_the_written_out_sums(both):
    pool, _, full, red, ids = both
    rng = random.Random(5)
    for g, h in rng.sample(list(itertools.combinations_with_replacement(pool, 2)), 300):
        s = red.add(ids[g][1], ids[h][1])
        assert red.to_text(s) == full.to_text(full.add(ids[g][0], ids[h][0]))
        assert to_game(red, s) is not None


def test_star_flips_a_bit_and_heaps_are_values():
    red = ReducedTreeStore()
    assert red.heap(0) == ZERO and red.heap(1) == STAR
    for k in range(8):
        h = red.heap(k)
        assert red.heap_size(h) == k
        assert red.add(h, STAR) == red.heap(k ^ 1)
        assert sorted(red.heap_size(o) for o in red.options(h)) == list(range(k))
    g = red.make([red.heap(2), red.heap(3)])  # {*2, *3}: no rule applies
    assert red.heap_size(g) is None and red.add(red.add(g, STAR), STAR) == g
    assert red.win(g) is False and red.win(g ^ 1) is True


def test_text_goes_between_the_stores():
    full, red = TreeStore(), ReducedTreeStore()
    for text in ["{*2,*3}", "{*1,*2,{*2,*3}}", "{*2,*3};{#0,{#0,*1}}", "{*0,*2}", "{{*1}}"]:
        a, b = full.from_text(text), red.from_text(text)
        assert full.to_text(a) == red.to_text(b)
        assert red.from_text(full.to_text(a)) == b


# --------------------------------------------------------------------- lands
def land_trees(spots: int) -> tuple[MisereSolver, MisereSolver]:
    """Trees of every land reachable from 1..spots spots, on each store."""
    full, red = MisereSolver(store=TreeStore()), MisereSolver(store=ReducedTreeStore())
    for n in range(1, spots + 1):
        land = Position.start(n).canonical()
        full.tree(land)
        red.tree(land)
    return full, red


def check_lands(spots: int, pairs: int) -> None:
    full, red = land_trees(spots)
    assert full._trees.keys() == red._trees.keys()
    for land, t in full._trees.items():
        assert red.store.to_text(red._trees[land]) == full.store.to_text(t), land
    # sums with each other and with heaps, outcome by each store's own search
    by_text: dict[str, tuple[int, int]] = {}
    for land, t in full._trees.items():
        by_text.setdefault(full.store.to_text(t), (t, red._trees[land]))
    distinct = list(by_text.values())
    rng = random.Random(11)
    sample = list(itertools.combinations_with_replacement(distinct, 2))
    for (fa, ra), (fb, rb) in rng.sample(sample, min(pairs, len(sample))):
        for hs in HEAPS:
            assert full.store.outcome([fa, fb], hs) == red.store.outcome([ra, rb], hs)
    for fa, ra in distinct:
        for hs in HEAPS:
            assert full.store.outcome([fa], hs) == red.store.outcome([ra], hs)


def test_reduced_and_full_trees_agree_on_every_land_from_1_to_4_spots():
    check_lands(4, pairs=2000)


@pytest.mark.slow
def test_reduced_and_full_trees_agree_on_every_land_from_1_to_5_spots():
    check_lands(5, pairs=20000)


# --------------------------------------------------------- the compiled rules
def plain_and_compiled_lands(spots: int) -> None:
    """Every land reachable from 1..spots spots: the same tree text with rules 1-3 compiled
    (``engine.kernels.tree_rules``) and in plain Python (``_reduce_plain``), and the same sums."""
    plain = MisereSolver(store=ReducedTreeStore(compiled=False))
    fast = MisereSolver(store=ReducedTreeStore(compiled=True))
    for n in range(1, spots + 1):
        land = Position.start(n).canonical()
        plain.tree(land)
        fast.tree(land)
    assert plain._trees.keys() == fast._trees.keys()
    for land, t in plain._trees.items():
        assert fast.store.to_text(fast._trees[land]) == plain.store.to_text(t), land
    rng = random.Random(3)
    lands = sorted(plain._trees)
    for a, b in (rng.sample(lands, 2) for _ in range(2000)):
        p = plain.store.add(plain._trees[a], plain._trees[b])
        f = fast.store.add(fast._trees[a], fast._trees[b])
        assert fast.store.to_text(f) == plain.store.to_text(p), (a, b)
    for rule in ("1", "2", "4", "new"):
        assert fast.store.rule_counts[rule] == plain.store.rule_counts[rule], rule
    assert fast.store.rule_counts["3"] > 0


def test_compiled_and_plain_rules_agree_on_every_land_from_1_to_4_spots():
    plain_and_compiled_lands(4)


@pytest.mark.slow
def test_compiled_and_plain_rules_agree_on_every_land_from_1_to_5_spots():
    plain_and_compiled_lands(5)


def test_compiled_and_plain_rules_agree_on_games_born_on_day_5(universe):  # noqa: F811
    """Random option sets of the games by day 4, and their pairwise sums, in both stores."""
    _, reps_by_day, _ = universe
    reps = reps_by_day[-1]
    rng = random.Random(7)
    games = {frozenset(rng.sample(reps, rng.randint(1, 6))) for _ in range(400)}
    plain, fast = ReducedTreeStore(compiled=False), ReducedTreeStore(compiled=True)
    pm: dict = {}
    fm: dict = {}
    made = [(to_reduced(plain, g, pm), to_reduced(fast, g, fm)) for g in sorted(games, key=repr)]
    for p, f in made:
        assert fast.to_text(f) == plain.to_text(p)
    for (p, f), (p2, f2) in rng.sample(list(itertools.combinations(made, 2)), 600):
        assert fast.to_text(fast.add(f, f2)) == plain.to_text(plain.add(p, p2))
    assert all(fast.rule_counts[r] > 0 for r in ("1", "2", "3", "4")), fast.rule_counts


def test_compiled_and_plain_sizes_agree_on_every_node():
    """``size`` by ``tree_rules.tree_size_kernel`` is the plain walk's on every node of the
    trees of the lands from 1-4 spots and of sums of them (the order sums are made in)."""
    solver = MisereSolver(store=ReducedTreeStore(compiled=True))
    for n in range(1, 5):
        solver.tree(Position.start(n).canonical())
    store = solver.store
    assert isinstance(store, ReducedTreeStore)
    values = sorted(set(solver._trees.values()))
    rng = random.Random(11)
    for _ in range(120):  # sums of sums: larger trees
        s = store.add(*rng.sample(values, 2))
        if store.size(s) < 60:
            values.append(s)
    store._sizes.clear()  # every size asked again, of the kernel
    assert store.nodes > 200
    for node in range(store.nodes):
        assert store.size(2 * node) == store._size_plain(node), node
        assert store.size(2 * node + 1) == store._size_plain(node) + 1
    assert max(store.size(2 * node) for node in range(store.nodes)) > 20
