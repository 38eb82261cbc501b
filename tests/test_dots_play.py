"""Dots-and-Boxes games between computer players, the log, and the command line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.dots import Board, DotsGame, DotsPosition, Solver
from sprouts_cli.dots.log import DotsLogWriter, replay_dots_log
from sprouts_cli.dots.players import GreedyPlayer, PerfectPlayer, RandomPlayer

RULES = [False, True]


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def play_out(game: DotsGame, players: dict, rng: random.Random) -> None:
    while not game.finished:
        game.play(players[game.to_move].choose(game, rng).line)


@pytest.mark.parametrize("must", RULES)
def test_perfect_never_gets_less_than_the_value(must: bool) -> None:
    """From positions the solver values, perfect play gets at least that many net boxes
    against random and greedy opponents (so it never loses a position it says it wins)."""
    board = Board(2, 3)
    solver = Solver(board, must)
    rng = random.Random(5)
    perfect = PerfectPlayer()
    for trial in range(16):
        game = DotsGame.start(board, must)
        for _ in range(rng.randrange(0, 9)):  # a random start
            if not game.finished:
                game.play(rng.choice(game.legal_lines()))
        if game.finished:
            continue
        me = game.to_move
        value = solver.value(game.position)
        before = game.score[me] - game.score[3 - me]
        other = GreedyPlayer() if trial % 2 else RandomPlayer()
        play_out(game, {me: perfect, 3 - me: other}, rng)
        assert game.score[me] - game.score[3 - me] - before >= value


@pytest.mark.parametrize("must", RULES)
def test_perfect_against_perfect_gets_exactly_the_value(must: bool) -> None:
    board = Board(2, 2)
    rng = random.Random(1)
    game = DotsGame.start(board, must)
    value = Solver(board, must).value(game.position)
    play_out(game, {1: PerfectPlayer(), 2: PerfectPlayer()}, rng)
    assert game.score[1] - game.score[2] == value == 2


def test_greedy_takes_boxes_and_avoids_giving_them() -> None:
    rng = random.Random(0)
    game = DotsGame(DotsPosition.parse("1x2:1010100"))  # box 0 can be taken (line 5)
    assert GreedyPlayer().choose(game, rng).line == 5
    game = DotsGame(DotsPosition.parse("1x2:1000000"))
    for _ in range(20):  # never a line giving the opponent a box
        line = GreedyPlayer().choose(game, rng).line
        after, _ = game.position.play(line)
        assert not any(after.completes(i) for i in after.legal_lines())


def test_greedy_beats_random_mostly() -> None:
    wins = 0
    for seed in range(10):
        rng = random.Random(seed)
        game = DotsGame.start(Board(3, 3))
        play_out(game, {1: GreedyPlayer(), 2: RandomPlayer()}, rng)
        wins += game.winner() == 1
    assert wins >= 7


def test_a_logged_game_replays_and_a_changed_log_does_not(tmp_path: Path) -> None:
    log_path = tmp_path / "d.log"
    writer = DotsLogWriter(log_path)
    rng = random.Random(2)
    game = DotsGame.start(Board(2, 2), must_complete=True)
    writer.start_game(game, "random", "greedy", 2)
    players = {1: RandomPlayer(), 2: GreedyPlayer()}
    while not game.finished:
        player = game.to_move
        line = players[player].choose(game, rng).line
        boxes = game.play(line)
        writer.move(game, player, players[player].name, line, boxes)
    writer.end(game, "no line left")
    writer.close()
    replay = replay_dots_log(log_path)
    assert replay.error is None and replay.games[0].moves == 12
    assert replay.games[0].steps[-1].score == (game.score[1], game.score[2])

    text = log_path.read_text()
    lines = text.splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith("move 3 "))
    bad = lines[:k] + [lines[k].replace("score ", "score 9")] + lines[k + 1 :]
    r = replay_dots_log("x", "".join(bad))
    assert r.error is not None and r.error.line == k + 1 and "score" in str(r.error)
    swapped = lines[:k] + [lines[k + 1].replace("move 4", "move 3"), lines[k]] + lines[k + 2 :]
    assert replay_dots_log("x", "".join(swapped)).error is not None
    cut = replay_dots_log("x", text[:-5])
    assert cut.error is not None and "truncated" in str(cut.error) and cut.games[0].moves >= 11
    assert replay_dots_log("x", "sprouts-log 1\n").error is not None


# ------------------------------------------------------------------ command line


def test_cli_solve_text_json_and_stdin() -> None:
    r = run("dots", "solve", "2x2", "3x3", "--moves")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("2x2: +2 (free") and "3x3: -3" in r.output and "best moves: " in r.output
    r = run("dots", "solve", "-", "--json", "--must-complete", input="2x3\n# a comment\n1x1:1110\n")
    objs = [json.loads(line) for line in r.output.splitlines()]
    assert [o["value"] for o in objs] == [-2, 1]
    assert set(objs[0]) == {
        "input",
        "position",
        "rule",
        "value",
        "best_moves",
        "seconds",
        "nodes",
        "table_bits",
    }
    assert objs[0]["rule"] == "must-complete" and objs[0]["best_moves"] is None
    r = run("dots", "solve", "1x1:1110", "--json", "--moves")
    assert json.loads(r.output)["best_moves"] == ["b1-b2"]


def test_cli_bad_input_is_one_line_and_exit_2() -> None:
    r = CliRunner().invoke(main, ["dots", "solve", "2x2:10x"])
    assert r.exit_code == 2
    assert r.output.count("\n") == 1 and "column 7" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["dots", "solve", "2x2", "3y3"])  # the good one is still answered
    assert r.exit_code == 2 and "2x2: +2" in r.output and "not a board" in r.output
    assert run("dots", "render", "2x2:1", "-o", "x.svg").exit_code == 2
    assert run("dots", "play", "2x2", "--first", "human", "-q").exit_code == 2


def test_cli_time_limit_reports_bounds() -> None:
    r = run("dots", "solve", "4x4", "--time-limit", "0.3", "--json")
    assert r.exit_code == 1
    obj = json.loads(r.output)
    assert obj["value"] is None and obj["bounds"][0] <= 0 <= obj["bounds"][1]


def test_cli_play_log_replay_and_render(tmp_path: Path) -> None:
    log = tmp_path / "g.log"
    svg = tmp_path / "svg"
    r = run("dots", "play", "2x2", "--first", "random", "--second", "random", "--svg", str(svg), "-q")
    assert r.exit_code == 2 and "no such directory" in r.output
    svg.mkdir()
    r = run("dots", "play", "2x3", "--first", "greedy", "--second", "perfect", "--seed", "4",
            "--log", str(log), "--svg", str(svg), "-q")  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "player 2 wins" in r.output or "a tie" in r.output  # perfect moves second on a board worth -2
    assert len(list(svg.glob("move-*.svg"))) == 18
    r = run("replay", str(log))  # the Sprouts command recognises a dots log
    assert r.exit_code == 0 and "every move legal" in r.output
    assert run("dots", "replay", str(log)).output == r.output
    r = run("dots", "replay", str(log), "--json")
    assert len(r.output.splitlines()) == 18
    out = tmp_path / "at5.png"
    r = run("dots", "replay", str(log), "--at", "5", "-o", str(out))
    assert r.exit_code == 0 and out.read_bytes()[:4] == b"\x89PNG"
    out = tmp_path / "end.svg"
    assert run("dots", "render", str(log), "-o", str(out)).exit_code == 0  # a log: owners' colours
    picture = out.read_text()
    assert ">B<" in picture or ">A<" in picture
    assert run("dots", "render", str(log), "--at", "99", "-o", str(out)).exit_code == 2
    out = tmp_path / "pos.svg"
    assert run("dots", "render", "2x2:111111111111", "-o", str(out)).exit_code == 0
    assert out.read_text().count("<svg") == 1


def test_cli_human_moves_by_dots(tmp_path: Path) -> None:
    moves = "a1-a2\nzz\na1-a2\nmoves\n" + "\n".join(str(i) for i in range(12)) + "\n"
    r = run("dots", "play", "2x2", "--first", "human", "--second", "random", "--seed", "1", input=moves)
    assert r.exit_code == 0, r.output
    assert "not a move" in r.output and "drawn already" in r.output and "legal: " in r.output
    assert "wins" in r.output or "a tie" in r.output or "unfinished" in r.output


def test_cli_table_bits_sets_the_table_and_refuses_bad_sizes() -> None:
    r = run("dots", "solve", "2x3", "--table-bits", "8", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["value"] == -2  # a tiny table, still exact
    assert json.loads(r.output)["table_bits"] == 8
    for bad in ("3", "33", "x"):
        r = run("dots", "solve", "2x2", "--table-bits", bad)
        assert r.exit_code == 2 and "--table-bits" in r.output and "Traceback" not in r.output


def test_table_sizes_out_of_range_or_memory_are_limit_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    from sprouts_cli.cli.dots import solve_command
    from sprouts_cli.dots import solver as dots_solver
    from sprouts_cli.errors import LimitError

    option = next(p for p in solve_command.params if p.name == "table_bits")
    assert (option.type.min, option.type.max) == dots_solver.TABLE_BITS  # type: ignore[attr-defined]
    with pytest.raises(LimitError, match="2\\*\\*4 to 2\\*\\*32"):
        Solver(Board(2, 2), table_bits=40)

    def no_memory(size: int):
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(dots_solver, "_zeroed", no_memory)
    with pytest.raises(LimitError, match="does not fit in memory"):
        Solver(Board(2, 2), table_bits=20)
    r = run("dots", "solve", "2x2", "--table-bits", "20")
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "does not fit in memory" in r.output
