"""The computer players (Alfeld §5.1–5.4, §5.8): legal moves, exact search results, perfect play."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import cast

import brute
import pytest
from games import mirrored, random_game_position, reachable_upto, reordered, rotated

from sprouts_cli.engine import Position
from sprouts_cli.engine.bounds import lower_bound, upper_bound
from sprouts_cli.engine.moves import apply_move, check_move
from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.engine.parts import clean
from sprouts_cli.engine.rules import Rules
from sprouts_cli.players import Player, Settings, make_player
from sprouts_cli.players.base import Ranking
from sprouts_cli.players.candidates import Candidate, break_ties, root_candidates
from sprouts_cli.players.parity import (
    EXACT,
    ParitySearch,
    RootResult,
    SearchResult,
    Verdict,
    leaf_value,
    parts_for,
)
from sprouts_cli.players.parity_player import ParityPlayer
from sprouts_cli.players.parts import NimParts, TreeParts
from sprouts_cli.players.perfect import Fallback
from sprouts_cli.players.rollouts import Rollouts, Tally, play_rounds, random_game_length
from sprouts_cli.solve import clock as clock_module
from sprouts_cli.solve.lengths import LengthOracle

FAST = Settings(seconds=0.1, jobs=1, tie_games=4)


def test_root_candidates_are_the_distinct_children() -> None:
    for seed in range(8):
        p = random_game_position(5, seed, seed)
        cands = root_candidates(p)
        keys = [c.key for c in cands]
        assert len(keys) == len(set(keys))
        assert set(keys) == p.children()
        for c in cands:
            check_move(p, c.move)
            assert apply_move(p, c.move).canonical() == c.key


@pytest.mark.parametrize("name", ["random", "montecarlo", "parity", "perfect"])
@pytest.mark.parametrize("misere", [False, True])
def test_every_player_plays_a_legal_move(name: str, misere: bool) -> None:
    rng = random.Random(2)
    with make_player(name, FAST) as player:
        for seed in range(3):
            p = random_game_position(6, 2 * seed, seed)
            choice = player.choose(p, Rules.of(misere), rng)
            check_move(p, choice.move)
            assert apply_move(p, choice.move).canonical() == choice.child.canonical()


def test_random_games_end_and_count_their_moves() -> None:
    rng = random.Random(1)
    p = Position.start(4)
    for _ in range(20):
        n = random_game_length(p, rng)
        assert 8 <= n <= 11  # between 2n and 3n − 1 moves
    tally = play_rounds([p, Position.from_string("0")], Rules.NORMAL, 5, None, 3)
    assert tally.played == [5, 5]
    assert tally.won[1] == 5  # from one spot every game lasts two moves: the mover always wins


def test_monte_carlo_counts_add_up_over_workers() -> None:
    kids = [Position.start(3), Position.from_string("0.1a1a")]
    r = Rollouts(jobs=2)
    try:
        t = r.tally(kids, Rules.NORMAL, 7, None, 5)
    finally:
        r.close()
    assert t.played == [7, 7]
    assert all(0 <= w <= 7 for w in t.won)


def test_leaf_values_follow_the_parity_wanted() -> None:
    assert leaf_value(5, 5, Rules.NORMAL) == 1.0
    assert leaf_value(5, 5, Rules.MISERE) == -1.0
    assert leaf_value(6, 4, Rules.NORMAL) == pytest.approx(-1 / 3)
    assert leaf_value(6, 4, Rules.MISERE) == pytest.approx(1 / 3)


def _positions(spots: int) -> dict[str, Position]:
    return reachable_upto(spots)


@pytest.mark.parametrize(
    ("misere", "with_parts", "sharp"),
    [
        (False, False, False),
        (False, True, False),
        (True, False, False),
        (True, True, False),
        (True, True, True),
    ],
)
def test_a_full_depth_search_is_the_exact_outcome(misere: bool, with_parts: bool, sharp: bool) -> None:
    """Searched to the end, the root value is ±2 and agrees with brute force (3 spots)."""
    positions = _positions(3)
    oracle = LengthOracle() if sharp else None
    rules = Rules.of(misere)
    search = ParitySearch(rules, parts_for(rules) if with_parts else None, oracle, rng=random.Random(0))
    items = list(positions.items())
    for key, p in items[:: 4 if sharp else 1]:
        if p.is_over():
            continue
        cands = root_candidates(p)
        result = search.deepen([clean(c.child) for c in cands], None, max_depth=p.total_lives).last
        assert abs(result.best) == EXACT, key
        win = brute.brute_misere_win(key) if misere else brute.brute_nimber(key) != 0
        assert (result.best > 0) == win, key
        # every candidate that ties for the best is really a winning (or, if lost, any) move
        for i in result.tied():
            child = cands[i].key
            child_win = brute.brute_misere_win(child) if misere else brute.brute_nimber(child) != 0
            assert child_win != win or not win, (key, child)


def test_sharp_leaves_use_the_longest_game() -> None:
    """With the oracle a leaf's M is the longest game, never above the bound, and the value follows it."""
    oracle = LengthOracle()
    sharp = ParitySearch(Rules.NORMAL, None, oracle)
    for seed in range(30):
        p = clean(random_game_position(6, 6, seed))
        if p.is_over():
            continue
        longest = oracle.longest(p)
        assert longest is not None and longest <= upper_bound(p)
        assert sharp._leaf(p) == leaf_value(longest, lower_bound(p), Rules.NORMAL)
    with make_player("parity", Settings(seconds=0.2, jobs=1, sharp=True, tie_games=2)) as player:
        choice = player.choose(Position.start(5), Rules.NORMAL, random.Random(3))
        check_move(Position.start(5), choice.move)


def test_depth_one_always_completes() -> None:
    p = Position.start(8)
    cands = root_candidates(p)
    search = ParitySearch(Rules.NORMAL, parts_for(Rules.NORMAL), rng=random.Random(0))
    result = search.deepen([clean(c.child) for c in cands], time.monotonic() - 1.0).last
    assert result.depth == 1 and len(result.values) == len(cands)


class StepClock:
    """A clock that moves on by ``step`` seconds each time it is read (no wall-clock time)."""

    def __init__(self, step: float) -> None:
        self.now = 1000.0
        self.step = step

    def monotonic(self) -> float:
        self.now += self.step
        return self.now


def test_the_search_stops_at_the_first_reading_past_its_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = StepClock(step=0.001)
    monkeypatch.setattr(clock_module, "time", clock)
    p = Position.start(9)
    search = ParitySearch(Rules.NORMAL, None, rng=random.Random(1))
    deadline = clock.now + 0.2  # 200 readings: past depth 1, far from the end of the search
    result = search.deepen([clean(c.child) for c in root_candidates(p)], deadline).last
    assert deadline < clock.now <= deadline + clock.step  # no reading after the first one past it
    assert result.depth >= 1 and not search.final


def test_solved_parts_agree_with_brute_force() -> None:
    nim = NimParts()
    trees = TreeParts()
    for p in _positions(3).values():
        for land in clean(p).lands():
            land_key = land.canonical()
            assert nim.solve(land, None) == brute.brute_nimber(land_key), land_key
            assert trees.alone_wins(trees.solve(land, None)) == brute.brute_misere_win(land_key), land_key


def test_solved_parts_add_as_nim_heaps_and_misere_trees() -> None:
    nim = NimParts()
    one = Position.from_string("1a1a")  # nimber 2
    assert nim.solve(one, None) == 2
    assert nim.add(2, 3) == 1 and nim.options(2) == [0, 1] and nim.alone_wins(1)
    trees = TreeParts()
    # one spot: every game lasts two moves, a misère win, equal to the empty game
    assert trees.solve(Position.from_string("0"), None) == trees.zero
    for land in ("1a1a", "0.12", "0*2", "1a1a.0"):
        t = trees.solve(Position.from_string(land), None)
        assert trees.alone_wins(t) == brute.brute_misere_win(Position.from_string(land).canonical())
        lo, hi = trees.lengths(t)
        assert 0 <= lo <= hi


_normal: dict[str, bool] = {}


def normal_win(key: str) -> bool:
    """Plain minimax in normal play: the mover wins iff some child is lost (brute-force children)."""
    hit = _normal.get(key)
    if hit is None:
        hit = _normal[key] = any(not normal_win(k) for k in brute.brute_children(key))
    return hit


def _won_positions(spots: int, misere: bool, sample: int | None) -> list[tuple[str, Position]]:
    """Won positions: all those reachable from 1 to ``spots`` spots, or a sample from random games."""
    if sample is None:
        items = _positions(spots).items()
    else:
        games = (random_game_position(spots, k, seed) for seed in range(sample) for k in (1, 3, 5))
        items = {p.canonical(): p for p in games}.items()
    out = []
    for key, p in items:
        if p.is_over():
            continue
        win = brute.brute_misere_win(key) if misere else normal_win(key)
        if win:
            out.append((key, p))
    return out


def _check_perfect(spots: int, misere: bool, sample: int | None) -> None:
    rng = random.Random(1)
    with make_player("perfect", Settings(seconds=600, jobs=1, tie_games=1)) as player:
        for key, p in _won_positions(spots, misere, sample):
            choice = player.choose(p, Rules.of(misere), rng)
            child = choice.child.canonical()
            lost = not (brute.brute_misere_win(child) if misere else normal_win(child))
            assert lost, f"perfect plays {key} → {child}, which the opponent wins"
            assert ("verdict", "won") in choice.fields


@pytest.mark.parametrize("misere", [False, True])
def test_perfect_never_loses_a_won_position_small(misere: bool) -> None:
    """Every won position from 1–3 spots, and those met in 25 random 4-spot games (1, 3, 5 moves in)."""
    _check_perfect(3, misere, None)
    _check_perfect(4, misere, 25)


@pytest.mark.slow
@pytest.mark.parametrize("misere", [False, True])
def test_perfect_never_loses_a_won_position_up_to_five_spots(misere: bool) -> None:
    _check_perfect(5, misere, None)


def test_worker_results_merge_at_the_depth_all_reached() -> None:
    from sprouts_cli.players.workers import merge

    shares = [[0, 2], [1, 3]]
    a = ([(1, [0.1, 0.2], [True, True]), (2, [0.3, -0.5], [True, False])], False, 10)
    b = (
        [(1, [0.2, 0.0], [True, True]), (2, [0.3, 0.1], [True, True]), (3, [0.5, 0.4], [True, True])],
        False,
        20,
    )
    r = merge(shares, [a, b], 4)
    assert r.depth == 2 and r.values == [0.3, 0.3, -0.5, 0.1] and r.nodes == 30
    assert r.tied() == [0, 1]
    # a worker that proved a win counts at any depth
    won = ([(1, [2.0, 0.5], [True, False])], True, 5)
    r = merge(shares, [won, b], 4)
    assert r.depth == 3 and r.values[0] == 2.0 and r.tied() == [0]


@pytest.mark.parametrize("misere", [False, True])
def test_workers_find_the_same_exact_result(misere: bool) -> None:
    p = random_game_position(4, 4, 3)
    cands = root_candidates(p)
    rng = random.Random(0)
    serial = make_player("parity", Settings(seconds=60, jobs=1, depth=p.total_lives + 1))
    parallel = make_player("parity", Settings(seconds=60, jobs=2, depth=p.total_lives + 1))
    try:
        a = serial.search(cands, Rules.of(misere), rng, time.monotonic() + 60).root
        b = parallel.search(cands, Rules.of(misere), rng, time.monotonic() + 60).root
    finally:
        serial.close()
        parallel.close()
    assert abs(a.best) == EXACT and a.best == b.best
    # both stop at the first depth that proves the result; what they call best is right
    for result in (a, b):
        for i in result.tied():
            opponent_wins = brute.brute_misere_win(cands[i].key) if misere else normal_win(cands[i].key)
            assert opponent_wins == (a.best < 0)


def test_leaf_lands_give_the_bounds_of_the_engine() -> None:
    from sprouts_cli.engine.bounds import land_facts, land_lower_bound
    from sprouts_cli.engine.parts import land_regions

    for seed in range(120):
        p = random_game_position(7, seed % 15, seed)
        lands = land_regions(p)
        assert sum(land_facts(r, p.lives).upper for r in lands) == upper_bound(p)
        assert sum(land_lower_bound(r, p.lives, None) for r in lands) == lower_bound(p)
        assert bool(lands) == bool(p.live_region_indices())
        assert sorted(sorted(r) for r in lands) == sorted(sorted(q.regions) for q in p.lands())


# ------------------------------------------------------------------ what the base class does for them all


@pytest.mark.parametrize("name", ["montecarlo", "parity"])
@pytest.mark.parametrize("rules", [Rules.NORMAL, Rules.MISERE])
def test_a_single_candidate_is_played_at_once(name: str, rules: Rules) -> None:
    p = Position.start(1)  # one move: the loop round the spot
    assert len(root_candidates(p)) == 1
    with make_player(name, FAST) as player:
        choice = player.choose(p, rules, random.Random(0))
    assert choice.summary == "the only move" and choice.fields == [("candidates", 1)]
    assert choice.child.canonical() == root_candidates(p)[0].key


def test_perfect_gives_its_verdict_even_for_a_single_candidate() -> None:
    """``0*1`` is lost for the player to move: the solver says so, and parity search then plays."""
    with make_player("perfect", FAST) as player:
        choice = player.choose(Position.start(1), Rules.NORMAL, random.Random(0))
    fields = dict(choice.fields)
    assert fields["verdict"] == "lost" and fields["solver"] == "lost" and fields["candidates"] == 1
    assert choice.summary.startswith("lost against best play; parity search: depth")


def test_perfect_plays_by_parity_search_when_the_solver_runs_out_of_time() -> None:
    p = Position.start(9)
    with make_player("perfect", Settings(seconds=0.05, jobs=1, tie_games=1)) as player:
        choice = player.choose(p, Rules.NORMAL, random.Random(0))
    check_move(p, choice.move)
    fields = dict(choice.fields)
    assert fields["solver"] == "out of time" and fields["verdict"] in ("won", "lost", "unknown")
    assert choice.summary.startswith("the solver ran out of time; parity search:")


def test_ties_are_broken_by_random_games_then_at_random() -> None:
    p = Position.start(4)
    with make_player("parity", Settings(seconds=60, jobs=1, depth=1, tie_games=3)) as player:
        choice = player.choose(p, Rules.NORMAL, random.Random(5))
    fields = dict(choice.fields)
    tied = int(str(fields["tied"]))
    assert tied > 1 and int(str(fields["tie-games"])) >= 3 * tied  # three rounds of one game each
    assert list(fields)[-1] == "seconds"


def test_the_two_player_search_refuses_three_players() -> None:
    with pytest.raises(ValueError, match="two players"):
        ParitySearch(Rules.THREE_PLAYER)
    with make_player("parity", FAST, players=3) as player, pytest.raises(ValueError, match="three players"):
        player.rank(root_candidates(Position.start(3)), Rules.NORMAL, random.Random(0), time.monotonic())


class Ranker(Player):
    """A player that ranks by a rule given to it, and counts how often it was asked."""

    name = "ranker"

    def __init__(self, pick: Callable[[list[Candidate]], list[Candidate]], settings: Settings = FAST) -> None:
        super().__init__(settings)
        self.pick = pick
        self.asked = 0

    def rank(self, cands: list[Candidate], rules: Rules, rng: random.Random, t0: float) -> Ranking:
        self.asked += 1
        return Ranking(self.pick(cands), summary="ranked", fields=[("candidates", len(cands)), ("mine", 1)])


def test_the_base_class_answers_a_single_candidate_without_ranking() -> None:
    with Ranker(lambda cands: cands) as player:
        choice = player.choose(Position.start(1), Rules.NORMAL, random.Random(0))
        assert player.asked == 0 and choice.summary == "the only move"
        player.answers_one_candidate_at_once = False
        choice = player.choose(Position.start(1), Rules.NORMAL, random.Random(0))
        assert player.asked == 1 and choice.summary == "ranked"
        assert [k for k, _ in choice.fields] == ["candidates", "mine", "seconds"]  # one tied: no tie fields


def test_the_base_class_refuses_a_position_with_no_move() -> None:
    over = Position.start(1)
    while not over.is_over():
        over = root_candidates(over)[0].child
    with Ranker(lambda cands: cands) as player, pytest.raises(ValueError, match="no move is left"):
        player.choose(over, Rules.NORMAL, random.Random(0))


def test_the_base_class_plays_only_a_tied_move_and_logs_the_tie() -> None:
    p = Position.start(3)
    cands = root_candidates(p)
    assert len(cands) == 3
    keys = {c.key for c in cands[1:3]}
    picked = set()
    with Ranker(lambda cands: cands[1:3]) as player:
        for seed in range(12):
            choice = player.choose(p, Rules.MISERE, random.Random(seed))
            picked.add(choice.child.canonical())
            names = [k for k, _ in choice.fields]
            assert names[:2] == ["candidates", "mine"] and names[-1] == "seconds"
            assert dict(choice.fields)["tied"] == 2 and "tie-games" in names
    assert picked <= keys
    with Ranker(lambda cands: cands[-1:]) as player:
        assert player.choose(p, Rules.NORMAL, random.Random(0)).child.canonical() == cands[-1].key


class FixedRollouts:
    """Random games whose counts are given: position ``i`` won ``won[i]`` of ten."""

    def __init__(self, won: list[int]) -> None:
        self.won = won

    def tally(self, children: list[Position], rules: Rules, games: int, seconds: float, seed: int) -> Tally:
        return Tally([10] * len(children), list(self.won))


def test_ties_go_to_the_move_whose_random_games_won_most_then_to_chance() -> None:
    tied = root_candidates(Position.start(3))[:3]
    rollouts = cast(Rollouts, FixedRollouts([3, 7, 5]))
    pick, info = break_ties(tied, Rules.NORMAL, random.Random(0), rollouts, 10, 1.0)
    assert pick is tied[1] and not info.by_chance
    assert info.fields() == [("tied", 3), ("tie-games", 30)]
    rollouts = cast(Rollouts, FixedRollouts([7, 7, 5]))
    picks = {break_ties(tied, Rules.NORMAL, random.Random(s), rollouts, 10, 1.0)[0].key for s in range(20)}
    assert picks == {tied[0].key, tied[1].key}
    assert break_ties(tied, Rules.NORMAL, random.Random(0), rollouts, 10, 1.0)[1].by_chance
    assert break_ties(tied[:1], Rules.NORMAL, random.Random(0), rollouts, 10, 1.0)[1].fields() == []


# ------------------------------------------------------------------ the parity search's verdict


def test_a_verdict_is_won_or_lost_only_when_the_value_is_exact() -> None:
    assert Verdict.of(EXACT) is Verdict.WON and Verdict.of(-EXACT) is Verdict.LOST
    for v in (0.0, 0.5, -0.5, EXACT - 1e-6, -EXACT + 1e-6):
        assert Verdict.of(v) is Verdict.UNKNOWN
    assert [v.value for v in Verdict] == ["won", "lost", "unknown"]  # the log's words
    found = SearchResult(RootResult(3, [-EXACT, 0.25, EXACT], [True, False, True], 17), 17)
    assert found.verdict is Verdict.WON
    assert SearchResult(RootResult(1, [-EXACT, -EXACT], [True, True], 2), 2).verdict is Verdict.LOST


def test_the_parity_search_reports_its_verdict_and_perfect_play_can_overrule_it() -> None:
    p = Position.start(2)  # lost for the player to move in normal play, found at full depth
    cands = root_candidates(p)
    with ParityPlayer(Settings(seconds=60, jobs=1, depth=p.total_lives)) as player:
        found = player.search(cands, Rules.NORMAL, random.Random(0), time.monotonic() + 60)
        assert found.verdict is Verdict.LOST and found.nodes > 0
        ranking = player.ranking(cands, found, [])
        assert dict(ranking.fields)["verdict"] == "lost" and "(lost)" in ranking.summary
        shallow = SearchResult(RootResult(1, [0.5] * len(cands), [True] * len(cands), 1), 1)
        ranking = player.ranking(cands, shallow, [("nodes", 1)], Verdict.LOST)
        assert dict(ranking.fields)["verdict"] == "lost" and "(unknown)" in ranking.summary
    assert Fallback.LOST.value == "lost" and Fallback.OUT_OF_TIME.value == "out of time"
    assert Fallback.LOST.reason == "lost against best play"


@pytest.mark.parametrize("name", ["random", "montecarlo", "parity"])
def test_a_player_chooses_the_same_move_from_every_reading_of_a_position(name: str) -> None:
    """Two pictures of one position read it back in different orders (of regions, boundaries,
    corners, or mirrored); for a seed the player's move gives the same numbered position (up to
    where boundaries with no life left go: ``moves.StandardOrder.move_back``)."""
    settings = Settings(seconds=30, games=6, jobs=1, depth=2, tie_games=4)
    with make_player(name, settings) as player:
        for seed in range(4):
            p = random_game_position(6, 3 + seed, seed)
            rng = random.Random(seed)
            readings = [p, rotated(p, rng), reordered(rotated(p, rng), rng), mirrored(reordered(p, rng))]
            assert len({str(q) for q in readings}) > 1
            after = set()
            for q in readings:
                choice = player.choose(q, Rules.NORMAL, random.Random(seed))
                after.add(numbered_key(clean(apply_move(q, choice.move))))
            assert len(after) == 1
