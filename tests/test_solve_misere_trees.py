"""The misère tree store checked by brute force on all games born by day 4 and their sums (Alfeld §5.7).

Games here are plain nested frozensets (a game is the set of its options) and the
reference outcome is plain minimax on sums of them: no canonical form, no rule.
Two games are told apart by brute force when some test game ``X`` gives ``G + X``
and ``H + X`` different misère outcomes.
"""

from __future__ import annotations

import itertools
from functools import cache

import pytest

from sprouts_cli.errors import MisereTreeError
from sprouts_cli.solve.misere_trees import (
    ZERO,
    TreeStore,
    misere_nim_win,
    normal_heaps,
)

Game = frozenset  # a game is the frozenset of its options (games)

EMPTY: Game = frozenset()


def nim(k: int) -> Game:
    return frozenset(nim(i) for i in range(k))


@cache
def bf_win(games: tuple[Game, ...]) -> bool:
    """Misère outcome of a sum by plain minimax: the mover wins iff stuck or a move leaves a loss."""
    live = [g for g in games if g]
    if not live:
        return True
    for i, g in enumerate(live):
        rest = live[:i] + live[i + 1 :]
        for o in g:
            if not bf_win(_key((*rest, o))):
                return True
    return False


def _key(games) -> tuple[Game, ...]:
    return tuple(sorted((g for g in games if g), key=hash))


def win(*games: Game) -> bool:
    return bf_win(_key(games))


def raw_sum(g: Game, h: Game) -> Game:
    """The game tree of ``g + h`` written out in full."""
    return _raw_sum(g, h)


@cache
def _raw_sum(g: Game, h: Game) -> Game:
    return frozenset({_raw_sum(x, h) for x in g} | {_raw_sum(g, y) for y in h})


def signature(g: Game, tests: list[tuple[Game, ...]]) -> tuple[bool, ...]:
    return tuple(win(g, *x) for x in tests)


def to_store(store: TreeStore, g: Game, memo: dict) -> int:
    hit = memo.get(g)
    if hit is None:
        hit = memo[g] = store.make(to_store(store, o, memo) for o in g)
    return hit


def to_game(store: TreeStore, t: int) -> Game:
    return frozenset(to_game(store, o) for o in store.options(t))


# ------------------------------------------------------------------------ days
def representatives(games: list[Game], tests: list[tuple[Game, ...]]) -> list[Game]:
    seen: dict[tuple[bool, ...], Game] = {}
    for g in games:
        seen.setdefault(signature(g, tests), g)
    return list(seen.values())


@pytest.fixture(scope="module")
def universe():
    """Raw games by day 0..4 (from brute-force representatives) and the test set of sums."""
    days = [[EMPTY]]
    reps_by_day = [[EMPTY]]
    # Test games: everything met so far, alone and in pairs; rebuilt each day.
    for _ in range(4):
        reps = reps_by_day[-1]
        games = [frozenset(c) for r in range(len(reps) + 1) for c in itertools.combinations(reps, r)]
        days.append(games)
        pool = list(dict.fromkeys(g for d in days for g in d))
        tests = [()] + [(x,) for x in pool] + list(itertools.combinations_with_replacement(pool, 2))
        reps_by_day.append(representatives(games, tests))
    pool = list(dict.fromkeys(g for d in days for g in d))
    tests = [()] + [(x,) for x in pool] + list(itertools.combinations_with_replacement(pool, 2))
    return days, reps_by_day, tests


# ----------------------------------------------------------------------- tests
def test_counts_by_day_are_1_2_3_5_22(universe):
    days, _reps_by_day, tests = universe
    store = TreeStore()
    memo: dict = {}
    brute = [len({signature(g, tests) for g in d}) for d in days]
    ids = [len({to_store(store, g, memo) for g in d}) for d in days]
    assert brute == [1, 2, 3, 5, 22]
    assert ids == [1, 2, 3, 5, 22]


def test_store_equality_is_indistinguishability(universe):
    """Equal ids exactly when no test game tells the two apart (all 32 day-4 sets, all pairs)."""
    days, _, tests = universe
    store = TreeStore()
    memo: dict = {}
    games = list(dict.fromkeys(g for d in days for g in d))
    sig = {g: signature(g, tests) for g in games}
    for g, h in itertools.combinations(games, 2):
        assert (to_store(store, g, memo) == to_store(store, h, memo)) == (sig[g] == sig[h]), (g, h)


def test_simplest_forms_are_their_own_simplification(universe):
    days, _, _ = universe
    store = TreeStore()
    memo: dict = {}
    for g in days[4]:
        t = to_store(store, g, memo)
        assert store.simplify(store.options(t)) == store.options(t)
        # the tree read back as a plain game is equal to the game we started from
        fresh = TreeStore()
        assert to_store(fresh, to_game(store, t), {}) == to_store(fresh, g, {})


def test_outcome_of_single_games_and_sums_matches_minimax(universe):
    days, reps_by_day, _ = universe
    store = TreeStore()
    memo: dict = {}
    games = days[4]
    for g in games:
        assert store.win(to_store(store, g, memo)) == win(g)
    for g, h in itertools.combinations_with_replacement(games, 2):
        assert store.outcome([to_store(store, g, memo), to_store(store, h, memo)]) == win(g, h)
    reps = reps_by_day[4]
    for trio in itertools.combinations_with_replacement(reps, 3):
        ids = [to_store(store, g, memo) for g in trio]
        assert store.outcome(ids) == win(*trio), trio


def test_sum_tree_is_the_canonical_tree_of_the_written_out_sum(universe):
    _days, reps_by_day, tests = universe
    store = TreeStore()
    memo: dict = {}
    reps = reps_by_day[4]
    for g, h in itertools.combinations_with_replacement(reps, 2):
        a, b = to_store(store, g, memo), to_store(store, h, memo)
        s = store.add(a, b)
        assert s == to_store(store, raw_sum(g, h), memo)
        # and brute force agrees that the (small) simplest form behaves like the sum
        simple = to_game(store, s)
        assert signature(simple, tests[:200]) == signature(raw_sum(g, h), tests[:200])


def rule_equal(g: Game, h: Game, memo: dict) -> bool:
    """Alfeld §5.7 equality, applied to plain games (a reference for the rule itself)."""
    key = (g, h)
    hit = memo.get(key)
    if hit is None:
        hit = (
            win(g) == win(h)
            and all(
                any(rule_equal(x, y, memo) for y in h) or any(rule_equal(z, h, memo) for z in x) for x in g
            )
            and all(
                any(rule_equal(y, x, memo) for x in g) or any(rule_equal(z, g, memo) for z in y) for y in h
            )
        )
        memo[key] = hit
    return hit


def test_equality_rule_matches_brute_force(universe):
    days, reps_by_day, tests = universe
    games = list(days[3]) + list(days[4])
    sums = [raw_sum(g, h) for g, h in itertools.combinations_with_replacement(reps_by_day[3], 2)]
    pool = list(dict.fromkeys(games + sums))
    sig = {g: signature(g, tests) for g in pool}
    memo: dict = {}
    for g, h in itertools.combinations(pool, 2):
        assert rule_equal(g, h, memo) == (sig[g] == sig[h])


def test_proviso_is_needed_and_applied():
    store = TreeStore()
    one, two = store.heap(1), store.heap(2)
    # {*1} is a win whose only option * reverses to 0: it is 0.
    assert store.make([one]) == ZERO
    assert win(frozenset({nim(1)})) == win() and all(
        win(frozenset({nim(1)}), x) == win(x) for x in (nim(1), nim(2), nim(3), frozenset({nim(2)}))
    )
    # {*2}: *2 has the option 0 = {} but {*2} is a loss and 0 a win: the proviso keeps it.
    g = store.make([two])
    assert g != ZERO and not store.win(g)
    assert win(frozenset({nim(2)})) != win()


def test_nim_heaps_are_simplest_and_small_sums_fold():
    store = TreeStore()
    for k in range(7):
        h = store.heap(k)
        assert store.heap_size(h) == k
        assert store.simplify(store.options(h)) == store.options(h)
        # built as a general game from its options, it is the same tree
        assert store.make([store.heap(i) for i in range(k)]) == h
    for m in range(5):
        for n in range(5):
            a, b = store.heap(m), store.heap(n)
            s = store.add(a, b)
            if min(m, n) <= 1:
                assert s == store.heap(m ^ n)
            # the sum built option by option (no shortcut) is the same tree
            opts = {store.add(store.heap(i), b) for i in range(m)} | {
                store.add(a, store.heap(j)) for j in range(n)
            }
            assert store.make(opts) == s
    # *2 + *2 is not 0 in misère play, though it is a loss
    s = store.add(store.heap(2), store.heap(2))
    assert s != ZERO and not store.win(s)


@pytest.mark.parametrize("heaps", [hs for n in range(4) for hs in itertools.product(range(5), repeat=n)])
def test_misere_nim_rule_matches_minimax(heaps):
    assert misere_nim_win(heaps) == win(*(nim(h) for h in heaps))
    assert misere_nim_win(normal_heaps(heaps)) == misere_nim_win(heaps)
    assert TreeStore().outcome([], heaps) == win(*(nim(h) for h in heaps))


def test_outcome_mixes_trees_and_heaps(universe):
    _days, reps_by_day, _ = universe
    store = TreeStore()
    memo: dict = {}
    for g in reps_by_day[4]:
        for hs in [(1,), (2,), (1, 1), (2, 3), (1, 2, 2), (3,)]:
            assert store.outcome([to_store(store, g, memo)], hs) == win(g, *(nim(h) for h in hs))


def test_text_round_trip_in_a_fresh_store(universe):
    _days, reps_by_day, _ = universe
    store = TreeStore()
    memo: dict = {}
    reps = reps_by_day[4]
    trees = [to_store(store, g, memo) for g in reps]
    trees += [store.add(a, b) for a, b in itertools.combinations(trees, 2)]
    texts = [store.to_text(t) for t in trees]
    fresh = TreeStore()
    back = [fresh.from_text(s) for s in texts]
    assert [fresh.to_text(b) for b in back] == texts
    assert len(set(back)) == len(set(trees))
    for t, b in zip(trees, back, strict=True):
        assert fresh.win(b) == store.win(t)
        assert fresh.size(b) == store.size(t)
    assert store.to_text(store.heap(3)) == "*3"
    assert store.to_text(store.make([store.heap(2)])) == "{*2}"


def test_text_names_shared_subtrees_once():
    store = TreeStore()
    a = store.make([store.heap(2)])  # {*2}
    b = store.make([a, store.heap(3)])
    c = store.make([a, b])
    text = store.to_text(c)
    assert text.count("{*2}") == 1 and "#0" in text
    assert TreeStore().from_text(text) == TreeStore().from_text(text)
    fresh = TreeStore()
    assert fresh.to_text(fresh.from_text(text)) == text


@pytest.mark.parametrize("bad", ["", "{", "{*1,}", "{*1;", "#0", "{#3}", "*", "{*1}}", "x", "{*1 *2}"])
def test_bad_text_is_a_clear_error(bad):
    with pytest.raises(MisereTreeError):
        TreeStore().from_text(bad)


def _normal_heaps_reference(heaps: tuple[int, ...]) -> tuple[int, ...]:
    """``normal_heaps`` written as its rule says, two passes over the heaps."""
    big = sorted(h for h in heaps if h >= 2)
    ones = sum(1 for h in heaps if h == 1) % 2
    if ones and big:
        big[-1] ^= 1
        return tuple(sorted(big))
    return (*(1,) * ones, *big) if ones else tuple(big)


def test_normal_heaps_is_its_rule_on_every_small_sum():
    for n in range(6):
        for heaps in itertools.product(range(6), repeat=n):
            assert normal_heaps(heaps) == _normal_heaps_reference(heaps), heaps
            assert normal_heaps(list(heaps)) == _normal_heaps_reference(heaps), heaps
