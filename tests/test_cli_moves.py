"""``sprouts moves`` through click's CliRunner: distinct moves in words, each with its position."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move
from sprouts_cli.engine.naming import moves_from_words, parse_words


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def test_moves_json_lists_each_child_once_and_the_words_give_it() -> None:
    r = run("moves", "--json", "0.AB|AB")
    assert r.exit_code == 0
    obj = json.loads(r.output)
    p = Position.from_string("0.AB|AB")
    assert obj["position"] == p.canonical()
    positions = [m["position"] for m in obj["moves"]]
    assert sorted(positions) == sorted(p.children())  # every child, each once
    for m in obj["moves"]:
        fits = moves_from_words(p, parse_words(m["words"]))
        assert {apply_move(p, f).canonical() for f in fits} == {m["position"]}


def test_moves_of_a_saved_game_use_its_spot_numbers(tmp_path) -> None:
    from sprouts_cli.picture import analyse, layout_position, save_game

    pic = layout_position("0*3", 400, 300, jobs=1)
    path = tmp_path / "g.json"
    save_game(path, pic, "0*3")
    r = run("moves", str(path))
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0] == "0*3: 3 distinct move(s)"
    p = analyse(pic)
    assert any("1 → 1 enclosing 2" in line or "1 → 1" in line for line in lines[1:])
    assert len(lines) == 1 + len(p.children())


def test_moves_bad_input_is_one_line_exit_2() -> None:
    r = run("moves", "0*2", "0.x")
    assert r.exit_code == 2
    assert "1 → 2" in r.stdout
    assert len(r.stderr.strip().splitlines()) == 1 and "column 3" in r.stderr
