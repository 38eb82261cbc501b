"""The normal-play solver against brute force, published facts and its own promises."""

from __future__ import annotations

import time

import pytest
from brute import brute_children, brute_nimber
from games import game_positions, reachable
from hypothesis import given

from sprouts_cli.engine import Position
from sprouts_cli.errors import OutOfTime, SolveInterrupted
from sprouts_cli.solve.nimbers import NormalSolver, land_lives
from sprouts_cli.solve.store import Table


def check_against_brute(n: int, small_lives: int | None = None) -> int:
    """Nimbers and outcomes (with heaps 0–2) of every position reachable from n spots."""
    solver = NormalSolver(small_lives=small_lives)
    for key, p in sorted(reachable(n).items()):
        nimber = brute_nimber(key)
        assert solver.nimber(p) == nimber, key
        for heap in (0, 1, 2):
            assert solver.outcome(p.with_heaps((heap,))) == (nimber != heap), (key, heap)
    return len(reachable(n))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_every_position_from_n_spots_matches_brute_force(n: int) -> None:
    assert check_against_brute(n) == {1: 3, 2: 22, 3: 209, 4: 2390}[n]


@pytest.mark.parametrize("small_lives", [0, 12])
def test_df_pn_alone_and_the_mex_alone_match_brute_force(small_lives: int) -> None:
    # 0: every land goes through df-pn; 12: every land from 3 spots by the plain mex rule
    assert check_against_brute(3, small_lives) == 209


def test_winning_moves_are_the_children_brute_force_calls_losses() -> None:
    solver = NormalSolver()
    for key in sorted(reachable(3))[::7]:
        losses = sorted(c for c in brute_children(key) if brute_nimber(c) == 0)
        assert solver.winning_moves(key) == losses, key
        assert solver.outcome(key) == bool(losses)


@pytest.mark.parametrize(
    ("text", "nimber"),
    [("0", 0), ("1", 1), ("1a1a", 2), ("0.12", 3), ("0*3", 1), ("!", 0), ("*5", 5), ("3+*6", 6)],
)
def test_published_nimbers(text: str, nimber: int) -> None:
    assert NormalSolver().nimber(text) == nimber


@pytest.mark.parametrize(
    ("text", "win"),
    [("0*4.A|0*4.A+0*3", False), ("0*4.A|0*4.A+0.1a2a", False), ("0*8.AB|0*3.AB", True), ("0*3+*1", False)],
)
def test_published_outcomes(text: str, win: bool) -> None:
    assert NormalSolver().outcome(text) is win


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_n_spot_outcomes_follow_the_sprouts_conjecture(n: int) -> None:
    # Applegate, Jacobson and Sleator (1991); Lemoine and Viennot to 32 spots.
    assert NormalSolver().outcome(Position.start(n)) is (n % 6 in (3, 4, 5))


@pytest.mark.slow
@pytest.mark.parametrize("n", [7, 8, 9])
def test_n_spot_outcomes_to_9_spots(n: int) -> None:
    assert NormalSolver().outcome(Position.start(n)) is (n % 6 in (3, 4, 5))


@pytest.mark.slow
def test_nimber_of_12_spots_is_0() -> None:
    assert NormalSolver().nimber("0*12") == 0


def test_heaps_take_part() -> None:
    solver = NormalSolver()
    assert solver.nimber("0*3+*1") == 0
    assert solver.nimber("1a1a+*2+*1") == 1
    assert solver.outcome("1a1a+1a1a") is False
    assert solver.outcome("1a1a+0.12") is True


def test_a_deadline_in_the_past_stops_the_search_and_keeps_what_was_proved() -> None:
    solver = NormalSolver()
    with pytest.raises(OutOfTime):
        solver.outcome("0*7", deadline=time.monotonic() - 1)
    assert isinstance(OutOfTime("x"), TimeoutError)
    solved = solver.stats["positions_solved"]
    assert solver.outcome("0*4") is True  # the solver still works afterwards
    assert solver.stats["positions_solved"] >= solved


def test_an_abort_request_stops_the_search() -> None:
    solver = NormalSolver(abort=lambda: True)
    with pytest.raises(SolveInterrupted):
        solver.outcome("0*7")


def test_the_table_makes_a_second_run_free(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    with Table(path) as table:
        first = NormalSolver(table)
        assert first.nimber("0*5") == 1
        assert first.stats["positions_solved"] > 0
    with Table(path) as table:
        second = NormalSolver(table)
        assert second.nimber("0*5") == 1
        assert second.stats["lands_expanded"] == 0
        assert second.stats["table_hits"] >= 1


def test_land_lives_reads_the_string() -> None:
    for text in ["0*5", "0.AB|0*3.AB", "1a1a", "0.12", "0*4.A|0*4.A", "AB.CD|0*3.AB|0*7.CD"]:
        (land,) = Position.from_string(text).lands()
        assert land_lives(Position.from_string(text).reduced()) == land.total_lives, text


def test_known_nimber_does_not_search() -> None:
    solver = NormalSolver()
    assert solver.known_nimber("0*4") is None
    assert solver.nimber("0*4") == 1
    assert solver.known_nimber("0*4") == 1


@given(game_positions(max_spots=9))
def test_land_lives_of_random_lands(p: Position) -> None:
    for land in p.lands():
        assert land_lives(land.reduced()) == land.total_lives


@pytest.mark.parametrize("heap", [0, 1, 3])
def test_sums_searched_inside_df_pn_match_the_xor_of_brute_force_nimbers(heap: int) -> None:
    # small_lives=0: every land of a sum goes through the sum search (``_mid_sum``), whose
    # thresholds may leave a land's nimber half found and come back to it later
    lands = sorted(k for k, p in reachable(4).items() if len(p.lands()) == 1 and p.total_lives >= 6)
    solver = NormalSolver(small_lives=0)
    for a, b, c in zip(lands[::37], lands[5::41], lands[11::53], strict=False):
        for parts in ((a, b), (a, b, c)):
            want = heap
            for part in parts:
                want ^= brute_nimber(part)
            text = "+".join(parts) + f"+*{heap}"
            assert solver.outcome(text) == (want != 0), text


def test_small_children_caches_change_the_work_not_the_answers() -> None:
    # lands forgotten (children_cache) or whose moves are forgotten (moves_cache) are made again
    tight = NormalSolver(children_cache=40, moves_cache=4)
    for n in range(1, 8):
        assert tight.outcome(Position.start(n)) is (n % 6 in (3, 4, 5))
    for key, p in sorted(reachable(3).items())[::5]:
        assert tight.nimber(p) == brute_nimber(key), key
