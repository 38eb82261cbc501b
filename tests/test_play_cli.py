"""``sprouts play`` and ``sprouts replay-log`` through the command line (click's CliRunner)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.engine import Position
from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.log import replay_log


def run(*args: str, input: str | None = None):
    """Run ``sprouts``; games use no table of solved positions unless one is given."""
    args_list = list(args)
    if args_list[0] == "play" and "--db" not in args_list:
        args_list.append("--no-db")
    return CliRunner().invoke(main, args_list, input=input, catch_exceptions=False)


@pytest.fixture
def game_log(tmp_path: Path) -> Path:
    log = tmp_path / "game.log"
    for misere in ("", "--misere"):
        args = ["play", "--spots", "4", "--first", "parity", "--second", "random", "--time", "0.05"]
        args += ["--seed", "3", "--jobs", "1", "--log", str(log), "-q"]
        r = run(*args, *([misere] if misere else []))
        assert r.exit_code == 0, r.output
        assert re.search(r"player [12] wins after \d+ moves", r.output)
    return log


def test_computer_against_computer_is_logged_and_replays(game_log: Path) -> None:
    r = run("replay-log", str(game_log))
    assert r.exit_code == 0, r.output
    assert "2 game(s)" in r.output and "every move legal" in r.output
    assert run("replay", str(game_log)).output == r.output  # the alias


def test_the_same_seed_gives_the_same_game(tmp_path: Path) -> None:
    outs = []
    for name in ("a.log", "b.log"):
        log = tmp_path / name
        args = ["play", "--spots", "5", "--first", "random", "--second", "montecarlo", "--games", "3"]
        r = run(*args, "--seed", "11", "--jobs", "1", "--log", str(log))
        assert r.exit_code == 0
        outs.append([line for line in r.output.splitlines() if re.match(r"\s*\d+\. ", line)])
    assert outs[0] == outs[1] and len(outs[0]) >= 10


def test_replay_json_has_one_object_per_move(game_log: Path) -> None:
    r = run("replay-log", str(game_log), "--json", "--game", "1")
    assert r.exit_code == 0, r.output
    objs = [json.loads(line) for line in r.output.splitlines()]
    assert set(objs[0]) == {"game", "move", "text", "position", "lives", "upper", "lower"}
    assert [o["move"] for o in objs] == list(range(len(objs)))
    assert objs[0]["text"] == "start" and objs[0]["position"] == "0*4" and objs[0]["lives"] == 12
    assert objs[-1]["position"] == "!" and objs[-1]["upper"] == 0
    for o in objs:
        assert o["lower"] <= o["upper"] and o["game"] == 1
        assert Position.from_string(o["position"]).canonical() == o["position"]


def test_replay_at_a_move_prints_and_writes_that_position(game_log: Path, tmp_path: Path) -> None:
    game = replay_log(game_log).games[0]
    r = run("replay-log", str(game_log), "--game", "1", "--at", "2")
    assert r.exit_code == 0, r.output
    assert f"position {game.line_of_play[2].position.canonical()}" in r.output
    out = tmp_path / "after2.json"
    r = run("replay-log", str(game_log), "--game", "1", "--at", "2", "-o", str(out))
    assert r.exit_code == 0, r.output
    from sprouts_cli.picture import analyse, load_game

    drawn = analyse(load_game(out))
    assert numbered_key(drawn)[0] == numbered_key(game.line_of_play[2].position)[0]
    svg = tmp_path / "after2.svg"
    assert run("replay-log", str(game_log), "--game", "1", "--at", "2", "-o", str(svg)).exit_code == 0
    assert svg.read_text().lstrip().startswith(("<?xml", "<svg"))
    r = run("replay-log", str(game_log), "--game", "1", "--at", "2", "--json")
    (obj,) = [json.loads(line) for line in r.output.splitlines()]
    assert obj["move"] == 2 and obj["position"] == game.line_of_play[2].position.canonical()
    r = run("replay-log", str(game_log), "--game", "1", "--at", "99")
    assert r.exit_code == 2 and "there is no move 99" in r.output
    r = run("replay-log", str(game_log), "--game", "7")
    assert r.exit_code == 2 and "there is no game 7" in r.output


def test_a_bad_log_gives_its_line_and_exit_code_2(game_log: Path, tmp_path: Path) -> None:
    lines = game_log.read_text(encoding="utf-8").splitlines(keepends=True)
    i = next(k for k, line in enumerate(lines) if line.startswith("move 3 ;"))
    lines[i] = re.sub(r"; position [^;]* ;", "; position 0*7 ;", lines[i])
    bad = tmp_path / "bad.log"
    bad.write_text("".join(lines), encoding="utf-8")
    r = run("replay-log", str(bad), "--json")
    assert r.exit_code == 2
    assert f"line {i + 1}:" in r.output and "the log records position '0*7'" in r.output
    # the moves before the bad line are still printed
    assert len([x for x in r.output.splitlines() if x.startswith("{")]) == 3
    cut = tmp_path / "cut.log"
    cut.write_text("".join(lines[:i]) + lines[i][:20], encoding="utf-8")
    r = run("replay-log", str(cut))
    assert r.exit_code == 2 and f"line {i + 1}: the last line is truncated" in r.output
    r = run("replay-log", str(tmp_path / "missing.log"))
    assert r.exit_code == 2 and r.output.count("missing.log") == 1 and "no such file" in r.output


def test_play_refuses_bad_input_with_one_line(tmp_path: Path) -> None:
    r = run("play", "--first", "random", "--second", "random")
    assert r.exit_code == 2 and "--spots N or a START" in r.output
    r = run("play", "0.1x", "--first", "random", "--second", "random")
    assert r.exit_code == 2 and "column" in r.output
    r = run("play", "--spots", "3", "-q")
    assert r.exit_code == 2 and "computer against computer" in r.output
    r = run("play", "0*2+*3", "--first", "random", "--second", "random")
    assert r.exit_code == 2 and "nim heaps" in r.output
    not_a_log = tmp_path / "x.log"
    not_a_log.write_text("hello\n")
    r = run("play", "--spots", "2", "--first", "random", "--second", "random", "--log", str(not_a_log))
    assert r.exit_code == 2 and "not a sprouts log" in r.output
    assert "Traceback" not in r.output


def test_play_from_a_position_string(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    db = tmp_path / "solved.sqlite"
    args = ["play", "0.1a1a", "--first", "random", "--second", "perfect", "--time", "1", "--seed", "2"]
    r = run(*args, "--db", str(db))
    assert r.exit_code == 0, r.output
    assert db.exists()  # what the solver proved is kept
    r = run(
        "play", "0.1a1a", "--first", "random", "--second", "perfect", "--seed", "2", "--log", str(log), "-q"
    )
    assert r.exit_code == 0
    g = replay_log(log).games[0]
    assert g.start.canonical() == "0.1a1a" and g.position.is_over()


def test_a_drawn_game_is_saved_after_every_move_and_can_be_resumed(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    svg = tmp_path / "pictures"
    svg.mkdir()  # --svg does not create directories
    log = tmp_path / "drawn.log"
    args = ["play", "--spots", "2", "--first", "random", "--second", "random", "--seed", "4", "--jobs", "1"]
    r = run(*args, "--misere", "--save", str(save), "--svg", str(svg), "--log", str(log), "--area", "400x300")
    assert r.exit_code == 0, r.output
    g = replay_log(log).games[0]
    pictures = sorted(svg.glob("move-*.svg"))
    assert len(pictures) == g.moves + 1
    from sprouts_cli.picture import analyse, load_game

    pic = load_game(save)
    assert numbered_key(analyse(pic))[0] == numbered_key(g.position)[0]
    assert pic.meta["game"]["move_list"] == [s.text for s in g.line_of_play[1:]]
    assert "area 400x300" in log.read_text()
    # a game saved after move 1 is resumed from there, the other player to move
    mid = tmp_path / "mid.json"
    assert run("replay-log", str(log), "--at", "1", "-o", str(mid)).exit_code == 0
    log2 = tmp_path / "resumed.log"
    r = run(
        "play", str(mid), "--first", "random", "--second", "random", "--seed", "1", "--log", str(log2), "-q"
    )
    assert r.exit_code == 0, r.output
    resumed = replay_log(log2).games[0]
    assert resumed.first_to_move == 2
    assert resumed.rules == "misere"  # the saved game's rules
    assert numbered_key(resumed.start)[0] == numbered_key(g.line_of_play[1].position)[0]


def test_a_player_that_thinks_at_once_is_not_said_to_think_for_seconds() -> None:
    args = ["play", "--spots", "2", "--first", "human", "--second", "random", "--seed", "1", "--jobs", "1"]
    r = CliRunner().invoke(main, args, input="1\nquit\n", catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "is thinking…" in r.output and "is thinking (" not in r.output


def test_drawing_a_saved_game_reports_each_move_on_stderr_in_plain_lines(tmp_path: Path) -> None:
    """Not a terminal: a plain line per move drawn ("drawing move 3…"), no carriage returns;
    with ``-q`` nothing."""
    save = tmp_path / "game.json"
    log = tmp_path / "drawn.log"
    args = ["play", "--spots", "2", "--first", "random", "--second", "random", "--seed", "4", "--jobs", "1"]
    r = run(*args, "--save", str(save), "--log", str(log), "--area", "400x300")
    assert r.exit_code == 0, r.output
    moves = replay_log(log).games[0].moves
    lines = [line for line in r.stderr.splitlines() if line.startswith("drawing move")]
    assert lines == [f"drawing move {k}…" for k in range(1, moves + 1)]
    assert "\r" not in r.stderr
    quiet = run(*args, "--save", str(tmp_path / "q.json"), "-q")
    assert quiet.exit_code == 0, quiet.output
    assert "drawing move" not in quiet.stderr
