"""The misère solver against brute force (plain minimax over whole positions) and published results."""

from __future__ import annotations

import itertools
import os
import random
import time

import pytest
from brute import brute_children, brute_misere_win
from games import reachable_upto

from sprouts_cli.engine.position import Position
from sprouts_cli.engine.reduce import reduced_lands
from sprouts_cli.errors import OutOfTime, SolveInterrupted
from sprouts_cli.solve.clock import Deadline
from sprouts_cli.solve.memory_bound import MEMORY_ENV, default_memory, parse_memory
from sprouts_cli.solve.misere import MisereSolver
from sprouts_cli.solve.misere_trees import TreeStore
from sprouts_cli.solve.store import Table

#: Misère outcomes of the n-spot game for n = 1..20, W = the first player wins: Lemoine and
#: Viennot, arXiv:0908.4407, figure 1 (n ≤ 17), extended on SproutsWiki (OEIS A164950);
#: n ≤ 9 agrees with Applegate, Jacobson and Sleator (1991).
PUBLISHED = "WLLLWWLLLWWWLLLWWWLL"


@pytest.fixture(scope="module")
def small_positions() -> dict[str, Position]:
    return reachable_upto(4)


def test_every_position_from_1_to_4_spots_matches_brute_force(small_positions):
    solver = MisereSolver()
    wrong = [k for k, p in small_positions.items() if solver.outcome(p) != brute_misere_win(k)]
    assert not wrong, wrong[:5]
    assert len(small_positions) > 2000


@pytest.mark.parametrize("tree_lives", [0, 4, 30])
def test_search_only_and_trees_only_agree_with_brute_force(small_positions, tree_lives):
    """tree_lives=0 never builds a land tree (pure search); 30 builds every one."""
    keys = sorted(small_positions)
    sample = random.Random(tree_lives).sample(keys, 300)
    solver = MisereSolver(tree_lives=tree_lives, combine_limit=0 if tree_lives == 4 else 4096)
    for k in sample:
        assert solver.outcome(small_positions[k]) == brute_misere_win(k), k


@pytest.mark.parametrize("method", ["dfpn", "pns", "dfs"])
def test_every_search_method_matches_brute_force_with_search_only(small_positions, method):
    """With no land tree at all (tree_lives=0) every answer comes from the search itself."""
    sample = random.Random(11).sample(sorted(small_positions), 250)
    solver = MisereSolver(method=method, tree_lives=0, combine_limit=0)
    wrong = [k for k in sample if solver.outcome(small_positions[k]) != brute_misere_win(k)]
    assert not wrong, wrong[:5]


def test_lazy_dfpn_agrees_with_the_eager_search_on_sums_and_tiny_caches(small_positions):
    """The lazy df-pn against the eager proof-number search it replaced, and against itself with
    caches of two entries (children forgotten and made again as the search goes)."""
    rng = random.Random(5)
    keys = [k for k in sorted(small_positions) if small_positions[k].total_lives >= 6]
    extra = ["0*5", "0*6", "0*4+*2", "0*3+0*2", "0*2.1a1a+*3", "0*3.1a1a+0*2"]
    texts = rng.sample(keys, 60) + extra
    eager = MisereSolver(method="pns", tree_lives=4)
    lazy = MisereSolver(method="dfpn", tree_lives=4)
    tiny = MisereSolver(method="dfpn", tree_lives=4, land_children_cache=2, state_children_cache=2)
    for text in texts:
        want = eager.outcome(text)
        assert lazy.outcome(text) == want, text
        assert tiny.outcome(text) == want, text
    assert lazy.stats["states_searched"] > 0
    assert tiny.stats["lands_expanded"] > lazy.stats["lands_expanded"]  # forgotten lands were opened again


class _StopEvery(Deadline):
    """A clock that stops the search at every ``every``-th check (a job's budget, a deadline)."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.calls = 0
        self.stop_every = every

    def check(self) -> None:
        self.calls += 1
        if self.calls % self.stop_every == 0 and self.calls <= 40 * self.stop_every:
            raise OutOfTime("stopped")


@pytest.mark.parametrize("every", [7, 20])
def test_a_search_stopped_again_and_again_still_gets_every_answer_right(every):
    """Stopping may come while a state's children are being made (in the middle of a tree):
    resumed, the search must not take the children made so far for all of them."""
    for text in ["0*5", "0*6", "0*3+*2", "0*4+0*2", "0*2.1a1a+*3"]:
        solver = MisereSolver()
        solver._deadline = _StopEvery(every)
        got = None
        while got is None:
            try:
                got = solver.outcome(text)
            except OutOfTime:
                continue
        assert got == brute_misere_win(Position.from_string(text).canonical()), (text, every)


def test_an_unknown_search_method_is_refused():
    with pytest.raises(ValueError, match="unknown search method"):
        MisereSolver(method="bfs")


@pytest.fixture(scope="module")
def small_lands(small_positions) -> dict[str, int]:
    """Every land met from 1 to 4 spots, with its lives."""
    lands = {land for p in small_positions.values() for land in reduced_lands(p)}
    return {x: Position.from_string(x).total_lives for x in sorted(lands)}


def test_sums_of_lands_and_heaps_match_brute_force(small_lands):
    """Lands side by side (and beside heaps) are what the trees are for: check them as sums.

    Brute force plays the whole sum, so the sums are kept to at most 10 lives.
    """
    rng = random.Random(7)
    solver = MisereSolver()
    pairs = [(a, b) for a, b in itertools.combinations_with_replacement(small_lands, 2)]
    pairs = [(a, b) for a, b in pairs if small_lands[a] + small_lands[b] <= 10]
    for a, b in rng.sample(pairs, 150):
        key = Position.from_string(f"{a}+{b}").canonical()
        assert solver.outcome(key) == brute_misere_win(key), (a, b)
    singles = [x for x, n in small_lands.items() if n <= 6]
    for land in rng.sample(singles, 40):
        for heaps in ["*1", "*2", "*1+*1", "*2+*3"]:
            key = Position.from_string(f"{land}+{heaps}").canonical()
            assert solver.outcome(key) == brute_misere_win(key), (land, heaps)


def check_sums_of_three(small_lands, most_lives: int, samples: int) -> None:
    rng = random.Random(3)
    solver = MisereSolver()
    store = solver.store
    # there are far too many trios to list: draw their lives first, then a land of each
    by_lives: dict[int, list[str]] = {}
    for x in sorted(small_lands):
        by_lives.setdefault(small_lands[x], []).append(x)
    splits = [t for t in itertools.combinations_with_replacement(sorted(by_lives), 3) if sum(t) <= most_lives]
    trios: set[tuple[str, ...]] = set()
    while len(trios) < samples:
        trios.add(tuple(sorted(rng.choice(by_lives[lives]) for lives in rng.choice(splits))))
    for trio in sorted(trios):
        key = Position.from_string("+".join(trio)).canonical()
        assert store.outcome([solver.tree(x) for x in trio]) == brute_misere_win(key), trio


def test_land_trees_decide_sums_of_three(small_lands):
    check_sums_of_three(small_lands, most_lives=11, samples=80)


def test_the_tree_of_a_position_is_the_tree_of_its_game_tree():
    """position_tree equals the simplest form built straight from the brute-force children."""
    solver = MisereSolver()
    store = solver.store
    memo: dict[str, int] = {}

    def raw_tree(key: str) -> int:
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = store.make(raw_tree(k) for k in brute_children(key))
        return hit

    for text in ["0*3", "0*2+0", "1a1a+*2", "0.AB|AB+0", "0*2.1a1a"]:
        key = Position.from_string(text).canonical()
        assert solver.position_tree(key) == raw_tree(key), text


@pytest.mark.parametrize("n", range(1, 8))
def test_published_misere_results(n):
    assert MisereSolver().outcome(Position.start(n)) == (PUBLISHED[n - 1] == "W")


@pytest.mark.slow
@pytest.mark.parametrize("n", [8, 9])
def test_published_misere_results_slow(n):
    assert MisereSolver().outcome(Position.start(n)) == (PUBLISHED[n - 1] == "W")


@pytest.mark.slow
@pytest.mark.parametrize("n", [6, 7, 8])
def test_lazy_and_eager_searches_agree_on_every_child_of_the_start(n):
    """Each child of the n-spot start, by the lazy df-pn and by the eager proof-number search."""
    lazy, eager = MisereSolver(method="dfpn"), MisereSolver(method="pns")
    for child in sorted(Position.start(n).children()):
        assert lazy.outcome(child) == eager.outcome(child), child


def test_winning_moves_are_exactly_the_losing_children():
    solver = MisereSolver()
    for text in ["0*3", "0*4", "0*2.1a1a", "0*3+*2", "1a1a+0*2"]:
        p = Position.from_string(text)
        moves = solver.winning_moves(p)
        for child in p.children():
            assert (child in moves) == (not brute_misere_win(child)), (text, child)
        assert bool(moves) == brute_misere_win(p.canonical())


class TreeTable:
    """The table protocol the solver needs (the SQLite store has the same methods)."""

    def __init__(self) -> None:
        self.trees: dict[str, str] = {}

    def get_misere(self, key: str) -> str | None:
        return self.trees.get(key)

    def put_misere(self, key: str, text: str) -> None:
        self.trees[key] = text


class DictTable(TreeTable):
    """A table that also keeps the outcomes of searched lands (optional methods)."""

    def __init__(self) -> None:
        super().__init__()
        self.outcomes: dict[str, bool] = {}

    def get_misere_outcome(self, key: str) -> bool | None:
        return self.outcomes.get(key)

    def put_misere_outcome(self, key: str, win: bool) -> None:
        self.outcomes[key] = win


def test_a_second_solver_reads_trees_and_outcomes_from_the_table():
    table = DictTable()
    first = MisereSolver(table)
    assert first.outcome(Position.start(5)) is True
    assert table.trees and table.outcomes
    second = MisereSolver(table)
    assert second.outcome(Position.start(5)) is True
    assert second.stats["table_hits"] >= 1
    assert second.stats["positions_solved"] < first.stats["positions_solved"]
    # every stored tree reads back into a fresh store with the same text and outcome
    fresh = TreeStore()
    for land, text in table.trees.items():
        g = fresh.from_text(text)
        assert fresh.to_text(g) == text
        assert fresh.win(g) == first.store.win(first.tree(land))


def test_trees_alone_in_the_table_give_the_same_answers(small_positions):
    table = TreeTable()
    MisereSolver(table, tree_lives=30).outcome(Position.start(3))
    solver = MisereSolver(table)
    for k in sorted(small_positions)[:200]:
        assert solver.outcome(small_positions[k]) == brute_misere_win(k)


def test_deadline_stops_the_search_and_keeps_the_solver_usable():
    solver = MisereSolver()
    with pytest.raises(OutOfTime):
        solver.outcome(Position.start(7), deadline=time.monotonic() - 1)
    assert isinstance(OutOfTime("x"), TimeoutError)
    assert solver.outcome(Position.start(4)) is False
    assert solver.outcome(Position.start(5)) is True


class CountingTable(DictTable):
    """A table that counts the trees asked for, and can be given trees proved elsewhere."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def get_misere(self, key: str) -> str | None:
        self.asked.append(key)
        return super().get_misere(key)


def test_a_land_missing_from_the_table_is_asked_for_once_then_after_a_refresh():
    table = CountingTable()
    assert MisereSolver(table).outcome(Position.start(7)) is False
    assert table.asked and len(table.asked) == len(set(table.asked))  # each land once
    # another process proves a land meanwhile: the solver sees it once it looks again
    table = CountingTable()
    solver = MisereSolver(table)
    land = reduced_lands(Position.from_string("0*3"))[0]
    assert solver._known_tree(land) is None and solver._known_tree(land) is None
    assert table.asked == [land]
    text = MisereSolver().tree_text(land)
    table.trees[land] = text
    assert solver._known_tree(land) is None  # not asked again yet
    solver.forget_lookups()
    assert solver._known_tree(land) is not None
    assert solver.store.to_text(solver._trees[land]) == text


def test_lookups_refresh_every_refresh_seconds(monkeypatch):
    table = CountingTable()
    solver = MisereSolver(table, refresh_seconds=0.0)
    solver.refresh_every = 1
    assert solver.outcome(Position.start(7)) is False
    assert len(table.asked) > len(set(table.asked))  # asked again after each refresh


def test_on_an_sqlite_table_misses_make_no_query_and_answers_match_brute_force(tmp_path, small_positions):
    path = tmp_path / "t.sqlite"
    with Table(path) as table:
        solver = MisereSolver(table)
        assert solver.outcome(Position.start(6)) == (PUBLISHED[5] == "W")
        assert table.reads > 0 and table.queries == 0  # a fresh table: every lookup a miss, none queried
        for k in sorted(small_positions)[:300]:
            assert solver.outcome(small_positions[k]) == brute_misere_win(k)
    with Table(path) as table:  # a second solver reads what the first one proved
        solver = MisereSolver(table)
        for k in sorted(small_positions)[:300]:
            assert solver.outcome(small_positions[k]) == brute_misere_win(k)
        assert solver.stats["table_hits"] > 0 and 0 < table.queries <= table.hits + 1
        assert solver.outcome(Position.start(7)) == (PUBLISHED[6] == "W")


def test_a_tree_another_process_writes_is_read_after_the_solvers_refresh(tmp_path, monkeypatch):
    monkeypatch.setattr("sprouts_cli.solve.store.RESCAN_FACTOR", 0)  # the keys are read again at once
    path = tmp_path / "t.sqlite"
    land = reduced_lands(Position.from_string("0*3"))[0]
    with Table(path) as table, Table(path) as other:
        solver = MisereSolver(table, refresh_seconds=1.0)
        assert solver._known_tree(land) is None
        text = MisereSolver().tree_text(land)
        other.put_misere(land, text)
        other.flush()
        assert solver._known_tree(land) is None  # not asked again before a refresh
        solver.forget_lookups()
        assert solver._known_tree(land) is not None
        assert solver.store.to_text(solver._trees[land]) == text


def test_abort_stops_the_search_and_keeps_the_solver_usable():
    asked = {"stop": True}
    solver = MisereSolver(abort=lambda: asked["stop"])
    with pytest.raises(SolveInterrupted):
        solver.outcome(Position.start(8))
    asked["stop"] = False
    assert solver.outcome(Position.start(5)) is True
    assert solver.outcome(Position.start(7)) is False


def test_positions_as_strings_and_the_empty_position():
    solver = MisereSolver()
    assert solver.outcome("!") is True  # no move: the player to move has made no last move
    assert solver.outcome("*1") is False
    assert solver.outcome("*1+*1") is True
    assert solver.outcome("0") is True  # one spot: two forced moves, the second player moves last


# --------------------------------------------------------------- memory bound
def test_a_search_past_its_memory_bound_forgets_and_still_answers_right(small_positions):
    """A bound of one byte: the search forgets again and again (at every 16 entries more) and finishes."""
    solver = MisereSolver(memory=1, tree_lives=4)
    solver.memory_step_min = 16
    for n in range(1, 8):
        assert solver.outcome(Position.start(n)) == (PUBLISHED[n - 1] == "W"), n
    assert solver.stats["forgets"] > 0
    for k in sorted(small_positions)[::7]:
        assert solver.outcome(small_positions[k]) == brute_misere_win(k), k


def test_forget_keeps_trees_and_lone_lands_and_empties_the_rest():
    solver = MisereSolver(tree_lives=4)
    assert solver.outcome(Position.start(6)) is True
    trees = dict(solver._trees)
    solver.forget()
    assert solver._trees == trees and not solver._tt and not solver._state_kids and not solver.store.cached()
    assert all(len(k[0]) == 1 and not k[1] and not k[2] for k in solver._memo)
    assert solver.outcome(Position.start(6)) is True


@pytest.mark.parametrize(
    ("text", "size"),
    [("512M", 512 * 2**20), ("4G", 4 * 2**30), ("1.5g", 3 * 2**29), ("800K", 800 * 1024), ("1000", 1000)],
)
def test_memory_sizes_are_read(text, size):
    assert parse_memory(text) == size


@pytest.mark.parametrize("bad", ["", "G", "lots", "-1G", "0"])
def test_a_bad_memory_size_is_refused(bad):
    with pytest.raises(ValueError, match="memory"):
        parse_memory(bad)


def test_the_default_bound_is_a_share_of_the_machine_or_the_environment(monkeypatch):
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    assert 0 < default_memory() < os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    monkeypatch.setenv(MEMORY_ENV, "3G")
    assert default_memory() == MisereSolver().memory == 3 * 2**30


def test_a_solver_made_in_a_process_past_the_default_share_searches_as_in_a_small_one(monkeypatch):
    """The default bound is the share over what the process held when the solver was made: in a
    process that already holds more than the share (the suite's one process, after other tests),
    a search neither forgets nor asks a table twice, and counts what it counts in a small one."""
    from sprouts_cli.solve import misere

    monkeypatch.delenv(MEMORY_ENV, raising=False)
    small = MisereSolver(CountingTable())
    assert small.outcome(Position.start(7)) is False
    held = 2 * default_memory()  # what the process holds, as rss_bytes reads it
    monkeypatch.setattr(misere, "rss_bytes", lambda: held)
    table = CountingTable()
    big = MisereSolver(table)
    assert big.memory == held + default_memory()
    assert big.outcome(Position.start(7)) is False
    assert big.stats["forgets"] == 0 and big.stats == small.stats
    assert len(table.asked) == len(set(table.asked)) == len(small.table.asked)
    monkeypatch.setenv(MEMORY_ENV, "3G")  # a bound given is the whole process's
    assert MisereSolver().memory == 3 * 2**30


def test_the_command_line_takes_a_memory_bound(monkeypatch):
    from click.testing import CliRunner

    from sprouts_cli.cli import main

    monkeypatch.setenv(MEMORY_ENV, "8G")  # restored after the test: the command line sets it
    ok = CliRunner().invoke(main, ["solve", "0*4", "--misere", "--no-db", "--jobs", "1", "--memory", "256M"])
    assert ok.exit_code == 0 and "first player loses" in ok.output
    assert os.environ[MEMORY_ENV] == str(256 * 2**20)
    bad = CliRunner().invoke(main, ["solve", "0*4", "--misere", "--no-db", "--memory", "lots"])
    assert bad.exit_code == 2 and "--memory" in bad.output and "Traceback" not in bad.output
    normal = CliRunner().invoke(main, ["solve", "0*4", "--no-db", "--memory", "1G"])
    assert normal.exit_code == 0 and "first player wins" in normal.output  # it bounds normal play's table
    assert os.environ[MEMORY_ENV] == str(2**30)


_BOUNDED_SOLVE = """
import json, resource, sys
from sprouts_cli.engine import Position
from sprouts_cli.engine.caches import clear_caches
from sprouts_cli.solve.memory_bound import rss_bytes
from sprouts_cli.solve.misere import MisereSolver
# every kernel loaded (or compiled, on JIT kernels) and the compiled core with them: what a
# process pays once, before the search whose memory is measured
MisereSolver().outcome(Position.start(6))
MisereSolver(core_lives=0).outcome(Position.start(6))
clear_caches()  # the engine's caches filled from 0*6 (the search's own forgets empty them)
base = rss_bytes()
room = int(sys.argv[1])
solver = MisereSolver(memory=base + room if room else None)
won = solver.outcome(Position.start(10))
# the high-water mark of this process's memory (ru_maxrss would count the parent's, before exec)
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
peak = int(hwm[0].split()[1]) * 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"won": won, "grown": peak - base, "forgets": solver.stats["forgets"]}))
"""


def test_a_solve_given_a_memory_bound_below_its_need_forgets_and_holds_less():
    """``0*10`` grows 23-27 MB past the process's start (compiled or JIT kernels); given 16 MB it
    forgets, answers right, and holds less.  Not exactly 16 MB: freed memory stays with the
    process in pieces the refilled tables cannot all reuse, and a search that cannot go on in
    what is left grows past the bound a quarter at a time (``MisereSolver._check_memory``)."""
    import json
    import subprocess
    import sys

    def solve(room: int) -> dict:
        child = [sys.executable, "-c", _BOUNDED_SOLVE, str(room)]
        done = subprocess.run(child, capture_output=True, text=True, timeout=300, check=True)
        return json.loads(done.stdout)

    room = 16 * 2**20
    free, bounded = solve(0), solve(room)
    assert free["won"] is bounded["won"] is True
    assert free["forgets"] == 0 and free["grown"] > room
    assert bounded["forgets"] > 0
    assert bounded["grown"] < free["grown"] - 2 * 2**20, (free, bounded)
    assert bounded["grown"] < room + room // 3, bounded


# --------------------------------------------------------------- states as numbers
def test_every_state_the_numbered_search_proved_agrees_with_the_eager_reference():
    """df-pn keeps states by number (memo, table, fresh disproof numbers in lists): the states it
    proved have the outcomes the eager proof-number search finds afresh, and the numbers name
    their states both ways."""
    solver = MisereSolver()
    for n in range(1, 8):
        assert solver.outcome(Position.start(n)) == (PUBLISHED[n - 1] == "W"), n
    for state, number in solver._ids.items():
        assert solver._of[number] == state
    proved = solver._memo
    assert len(proved) == solver._proved_count > 50
    reference = MisereSolver(method="pns", store=solver.store)  # the states name its trees
    for state, win in sorted(proved.items())[::3]:
        assert reference._win(reference._state(*state)) == win, state
    assert all(solver._won[i] == 0 for i, x in enumerate(solver._in_tt) if x)
    assert solver._tt_count == sum(solver._in_tt) == len(solver._tt)


def test_a_full_df_pn_table_emptied_often_gives_the_same_answers(monkeypatch, small_positions):
    """The table of unproved states, kept in lists by number, emptied whenever it holds 60 states
    (much smaller and df-pn goes round in circles, as it did with the table as a dict)."""
    from sprouts_cli.solve import misere

    # one child at a time: children made together leave too few unproved states to fill it
    big = MisereSolver(tree_lives=0, first_children="one")
    monkeypatch.setattr(misere, "TT_LIMIT", 60)
    small = MisereSolver(tree_lives=0, first_children="one")
    cleared = []
    real_clear = small._tt_clear
    monkeypatch.setattr(small, "_tt_clear", lambda: (cleared.append(small._tt_count), real_clear()))
    for k in sorted(small_positions)[::11]:
        assert small.outcome(small_positions[k]) == big.outcome(small_positions[k]) == brute_misere_win(k), k
    assert cleared and set(cleared) == {60} and small._tt_count <= 60


def test_a_forget_in_mid_search_numbers_states_afresh_and_the_search_starts_again():
    """A forget inside the search numbers the states afresh; the search starts again from its root."""
    solver = MisereSolver(memory=1, tree_lives=4)
    solver.memory_step_min = 8
    assert solver.outcome(Position.start(7)) is False
    assert solver.stats["forgets"] > 0 and solver._generation == solver.stats["forgets"]
    for state, number in solver._ids.items():
        assert solver._of[number] == state
    assert solver._won[0] == 1 and solver._won[1] == 2  # the two settled states come first


# --------------------------------------------------------------- children smallest first
@pytest.mark.parametrize("core_lives", [0, 99])
def test_ordered_children_are_every_child_of_the_land_smallest_first(small_positions, core_lives):
    """A small land's children, all made (by the compiled core when it is there, core_lives=0, or
    in Python) and sorted (fewest lives of the largest land, then fewest lands), are exactly the
    children the lazy reference finds one at a time."""
    from sprouts_cli.solve.children import LazyChildren, land_shape

    solver = MisereSolver(order_lives=99, core_lives=core_lives)
    lands = sorted({land for p in small_positions.values() for land in reduced_lands(p)})
    assert len(lands) > 200
    for land in lands[::3]:
        ordered = solver._ordered_kids(solver._land_kids(land))
        reference = LazyChildren(land).all()
        assert sorted(ordered) == sorted(reference), land
        keys = [(max((land_shape(x)[0] for x in cl), default=0), len(cl)) for cl in ordered]
        assert keys == sorted(keys), land


def _brute_force_and_published(small_positions, seed: int, spots: int, **options) -> None:
    """A search with ``options`` and no trees (every answer its own) finds the brute-force outcomes
    of 300 small positions, and with the core the published ones of the starts to ``spots``."""
    sample = random.Random(seed).sample(sorted(small_positions), 300)
    solver = MisereSolver(tree_lives=0, combine_limit=0, **options)
    wrong = [k for k in sample if solver.outcome(small_positions[k]) != brute_misere_win(k)]
    assert not wrong, wrong[:5]
    on_core = MisereSolver(core_lives=0, **options)
    for n in range(1, spots + 1):
        assert on_core.outcome(Position.start(n)) == (PUBLISHED[n - 1] == "W"), n


@pytest.mark.parametrize("order_lives", [4, 99])
def test_children_smallest_first_give_the_brute_force_answers(small_positions, order_lives):
    """With some or every land's children ordered, the search (no trees: every answer its own)
    still finds the brute-force outcomes, and the published ones to 7 spots."""
    _brute_force_and_published(small_positions, order_lives, 7, order_lives=order_lives)


# --------------------------------------------------------------- first children made together
@pytest.mark.parametrize("rule", ["all", "known", "one"])
def test_first_children_made_together_or_one_at_a_time_give_brute_force_answers(small_positions, rule):
    """An opened state makes its first children together (all, or as many as are known) or one at
    a time: with no trees (every answer the search's own) each rule finds the brute-force
    outcomes, and the published ones to 8 spots on the core."""
    _brute_force_and_published(small_positions, 28, 8, first_children=rule)


@pytest.mark.parametrize(
    ("spots", "heaps", "known"), [(3, (2, 3), True), (4, (2,), True), (4, (2,), False), (5, (1,), True)]
)
def test_an_opened_state_makes_as_many_children_as_its_heap_moves_and_known_land_kids(spots, heaps, known):
    """A state of one land beside heaps, opened, makes as many children as its heap moves and its
    land's children known before (by an earlier state), or all of them, stopping at one that
    loses; one at a time it makes one, the first of the same list."""
    land = reduced_lands(Position.start(spots))[0]
    made = {}
    for rule in ("all", "known", "one"):
        solver = MisereSolver(tree_lives=0, sum_tree_lives=0, combine_limit=0, first_children=rule)
        if known:
            solver._land_kids(land).all()
        state = solver._intern(((land,), (), heaps))
        kids = solver._state_children(state)
        solver._first_children(state, kids)
        made[rule] = list(kids.found)
        lost = [i for i, c in enumerate(kids.found) if solver._won[c] == 2]
        want = sum(heaps) + (len(solver._land_kids(land).found) if known else 0)
        while kids.more():
            pass
        if rule == "all":
            want = len(kids.found)
        if rule == "one":
            assert len(made[rule]) == 1
        elif lost:
            assert len(made[rule]) == lost[0] + 1
        else:
            assert len(made[rule]) == max(1, min(want, len(kids.found)))
    assert made["all"][:1] == made["known"][:1] == made["one"]


def test_an_unknown_rule_for_first_children_is_refused():
    with pytest.raises(ValueError, match="first children"):
        MisereSolver(first_children="some")
