"""Three players: the solver against plain recursion on every position from 1–4 spots."""

from __future__ import annotations

import json
from functools import cache

import pytest
from brute import brute_children
from click.testing import CliRunner
from games import reachable

from sprouts_cli.cli import main
from sprouts_cli.engine.moves import apply_move, random_move
from sprouts_cli.engine.position import Position
from sprouts_cli.solve.three import ThreeSolver, last_mover_offset


@cache
def brute_forces(key: str, offset: int) -> bool:
    """Plain AND/OR recursion over every child: no bounds, no cuts."""
    kids = brute_children(key)
    if not kids:
        return offset == 2  # the player before the one who is stuck made the last move
    if offset == 0:
        return any(brute_forces(k, 2) for k in kids)
    return all(brute_forces(k, offset - 1) for k in kids)


def brute_winner(key: str) -> int | None:
    winners = [r for r in range(3) if brute_forces(key, r)]
    assert len(winners) <= 1
    return winners[0] if winners else None


def test_last_mover() -> None:
    assert last_mover_offset(0) == 2
    assert last_mover_offset(1) == 0
    assert last_mover_offset(2) == 1
    assert last_mover_offset(3) == 2


@pytest.mark.parametrize(
    ("text", "winner"),
    [("0*1", 1), ("0*2", None), ("0*3", None), ("0*4", None), ("0*2.ABC|2.ABC", 0), ("0.AB|AB", None)],
)
def test_known_starts(text: str, winner: int | None) -> None:
    p = Position.from_string(text)
    assert ThreeSolver().solve(p).forced_winner == winner
    assert brute_winner(p.canonical()) == winner


def check_positions(positions: dict[str, Position]) -> None:
    solver = ThreeSolver()  # each question on its own, not only the root's short cut
    for key, p in positions.items():
        for r in range(3):
            assert solver.forces(p, r) == brute_forces(key, r), (key, r)
    solver = ThreeSolver()  # and the root's answer, with the table shared between positions
    for key, p in positions.items():
        assert solver.solve(p).forced_winner == brute_winner(key), key


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_position_against_brute_force(n: int) -> None:
    check_positions(reachable(n))


def test_four_spot_positions_along_random_games(rng) -> None:
    """The positions of 40 random games from 4 spots after move 3 (all of them: ``make test-all``)."""
    seen: dict[str, Position] = {}
    for _ in range(40):
        p = Position.start(4)
        k = 0
        while (m := random_move(p, rng)) is not None:
            p = apply_move(p, m)
            k += 1
            if k >= 3:
                seen.setdefault(p.canonical(), p)
    assert len(seen) > 100
    check_positions(seen)


@pytest.mark.slow
def test_every_four_spot_position_against_brute_force() -> None:
    check_positions(reachable(4))


def test_heaps_take_part() -> None:
    # *1 alone is one move: the player to move makes it; *2 too (take both).
    assert ThreeSolver().solve(Position.from_string("*1")).forced_winner == 0
    assert ThreeSolver().solve(Position.from_string("*2")).forced_winner == 0  # take both
    assert ThreeSolver().solve(Position.from_string("*1+*1")).forced_winner == 1
    p = Position.from_string("0*1+*1")
    assert ThreeSolver().solve(p).forced_winner == brute_winner(p.canonical())


def test_five_spots_nobody() -> None:
    assert ThreeSolver().solve(Position.start(5)).forced_winner is None


# "0*2.ABC|2.ABC" has no drawing (the triangle would be read the same way round from both
# sides), and every command refuses such strings (no drawing has them): the command line uses 0*2.ABC|2.ACB.
def test_cli_three_players() -> None:
    runner = CliRunner()
    r = runner.invoke(main, ["solve", "0*1", "0*2.ABC|2.ACB", "0*3", "--players", "3", "--json", "--no-db"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert [row["forced_winner"] for row in rows] == [1, 0, None]
    assert rows[0]["players"] == 3
    assert rows[0]["can_force"] == [False, True, False]
    r = runner.invoke(main, ["solve", "0*1", "--players", "3", "--no-db"])
    assert r.exit_code == 0
    assert "the next player (1) can force making the last move" in r.output
    r = runner.invoke(main, ["solve", "0*1", "--players", "3", "--misere", "--no-db"])
    assert r.exit_code == 2
    assert "misère" in r.output and "three" in r.output
    r = runner.invoke(main, ["solve", "0*1", "--players", "3", "--nimber", "--no-db"])
    assert r.exit_code == 2
    r = runner.invoke(main, ["solve", "0*2", "--players", "3", "--moves", "--no-db"])
    assert r.exit_code == 0
    assert "nobody" in r.output
    r = runner.invoke(main, ["solve", "0*2.ABC|2.ACB", "--players", "3", "--moves", "--no-db", "--json"])
    row = json.loads(r.output)
    assert row["forcing_moves"], row
    r = runner.invoke(main, ["solve", "0*x", "--players", "3", "--no-db"])
    assert r.exit_code == 2 and "Traceback" not in r.output
