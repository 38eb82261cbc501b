"""Three players: games between every pair of computer players, logs that replay, the players' aims."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.engine import Position
from sprouts_cli.engine.rules import Rules
from sprouts_cli.log import replay_log
from sprouts_cli.players import Settings, make_player
from sprouts_cli.players.parity3 import ParanoidSearch, share_value
from sprouts_cli.solve.three import ThreeSolver

COMPUTERS = ("random", "montecarlo", "parity")


def run(*args: str, input: str | None = None):
    extra = ["--no-db"] if args[0] == "play" else []
    return CliRunner().invoke(main, [*args, *extra], input=input, catch_exceptions=False)


FAST = ["--time", "0.05", "--games", "3", "--depth", "2", "--jobs", "1"]


def test_every_pair_of_computer_players(tmp_path: Path) -> None:
    """Each pair of computer kinds (the same kind twice too), 3 to 8 spots, the third at random."""
    log = tmp_path / "three.log"
    pairs = list(itertools.combinations_with_replacement(COMPUTERS, 2))
    rng = random.Random(5)
    for i, (a, b) in enumerate(pairs):
        spots = 3 + i  # 3..8
        c = rng.choice(COMPUTERS)
        args = ["play", "--spots", str(spots), "--first", a, "--second", b, "--third", c]
        r = run(*args, *FAST, "--seed", str(i), "--log", str(log), "-q")
        assert r.exit_code == 0, r.output
        m = re.search(r"player ([123]) wins after (\d+) moves", r.output)
        assert m, r.output
        assert 2 * spots <= int(m.group(2)) <= 3 * spots - 1
    replayed = replay_log(log)
    assert replayed.error is None, replayed.error
    assert len(replayed.games) == len(pairs) == 6
    for g in replayed.games:
        assert g.rules is Rules.THREE_PLAYER and len(g.players) == 3
        assert g.ended is not None
        assert g.ended["winner"] == str(Rules.THREE_PLAYER.winner(1, g.moves))
    r = run("replay", str(log))
    assert r.exit_code == 0 and "6 game(s)" in r.output
    assert "against" in r.output and "three-player" in r.output


def test_a_person_among_two_computers() -> None:
    # the person (player 2) always answers with move 1; quits at the end of the input
    r = run(
        "play",
        "--spots",
        "3",
        "--first",
        "random",
        "--second",
        "human",
        "--third",
        "montecarlo",
        *FAST,
        "--seed",
        "2",
        input="1\n" * 12,
    )
    assert r.exit_code == 0, r.output
    assert "player 2 (human), your move" in r.output
    assert re.search(r"player [123] \(\w+\) wins after \d+ moves", r.output)


def test_refusals() -> None:
    r = run("play", "--spots", "3", "--players", "3", "--misere", "--first", "random", "--second", "random")
    assert r.exit_code == 2
    assert "misère play is not defined for three players" in r.output
    r = run("play", "--spots", "3", "--players", "2", "--third", "random")
    assert r.exit_code == 2 and "--third is for three players" in r.output
    r = run("play", "--spots", "3", "--first", "perfect", "--second", "random", "--third", "random", "-q")
    assert r.exit_code == 2 and "perfect cannot play with three players" in r.output


def test_three_default_to_parity_as_third(tmp_path: Path) -> None:
    log = tmp_path / "g.log"
    r = run(
        "play",
        "--spots",
        "3",
        "--players",
        "3",
        "--first",
        "random",
        "--second",
        "random",
        *FAST,
        "--seed",
        "1",
        "--log",
        str(log),
        "-q",
    )
    assert r.exit_code == 0, r.output
    assert replay_log(log).games[0].players == ("random", "random", "parity")


def test_share_value() -> None:
    # four moves left: made by offsets 0, 1, 2, 0, so the player to move (0) makes the last
    assert share_value(4, 4, 0) == 1.0
    assert share_value(4, 4, 1) == -1.0
    assert share_value(4, 6, 0) == pytest.approx(2 / 3 - 1)  # one length of three


def test_parity_three_plays_a_forcing_move() -> None:
    p = Position.from_string("1a2a.AB|AB")  # five moves at most, the player to move forces the last
    assert ThreeSolver().solve(p).forced_winner == 0
    player = make_player("parity", Settings(seconds=600.0, depth=6), players=3)
    choice = player.choose(p, Rules.THREE_PLAYER, random.Random(1))
    # after its move it is two places after the player to move, and it still forces the last move
    assert ThreeSolver().forces(choice.child, 2)
    assert ("verdict", "forced") in choice.fields


def test_paranoid_search_is_the_solver_at_full_depth() -> None:
    solver = ThreeSolver()
    for text in ("0*2", "0*2.ABC|2.ABC", "0.AB|AB", "0*3"):
        p = Position.from_string(text)
        for offset in range(3):
            v = ParanoidSearch().value(p, offset, 30, -2.0, 2.0)
            assert (v == 2.0) == solver.forces(p, offset), (text, offset)
            assert abs(v) == 2.0


def test_a_saved_three_player_game_resumes(tmp_path: Path) -> None:
    log = tmp_path / "g.log"
    r = run(
        "play",
        "--spots",
        "2",
        "--first",
        "random",
        "--second",
        "random",
        "--third",
        "random",
        "--seed",
        "4",
        "--log",
        str(log),
        "-q",
    )
    assert r.exit_code == 0, r.output
    saved = tmp_path / "after2.json"
    r = run("replay", str(log), "--at", "2", "-o", str(saved))
    assert r.exit_code == 0, r.output
    log2 = tmp_path / "resumed.log"
    r = run(
        "play",
        str(saved),
        "--first",
        "random",
        "--second",
        "random",
        "--third",
        "random",
        "--seed",
        "4",
        "--log",
        str(log2),
        "-q",
    )
    assert r.exit_code == 0, r.output
    g = replay_log(log2).games[0]
    assert g.rules is Rules.THREE_PLAYER and g.first_to_move == 3  # two moves made: player 3 is next
