"""``sprouts layout``, ``sprouts render`` and ``sprouts canonical game.json`` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.engine import Position
from sprouts_cli.picture import analyse, load_game
from sprouts_cli.picture.analyse import drawing_counts

POSITIONS = Path(__file__).resolve().parents[1] / "positions"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def test_layout_writes_a_game_that_reads_back(runner, tmp_path):
    out = tmp_path / "g.json"
    r = runner.invoke(main, ["layout", "0.1a1a.AB|AB", "-o", str(out), "--json", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    line = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(line) == {"input", "position", "canonical", "min_clearance", "seconds", "output"}
    assert line["canonical"] == Position.from_string("0.1a1a.AB|AB").canonical()
    assert line["min_clearance"] > 0
    assert analyse(load_game(out)).canonical() == line["canonical"]
    r = runner.invoke(main, ["canonical", str(out)])
    assert r.exit_code == 0 and r.stdout.strip() == line["canonical"]


def test_layout_grid_and_outer(runner, tmp_path):
    out = tmp_path / "g.json"
    r = runner.invoke(main, ["layout", "0.AB|AB", "-o", str(out), "--grid", "--outer", "2", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    pic = load_game(out)
    assert all(len(c.pieces) == 2 for c in pic.curves)  # u − m − v: two straight legs
    r = runner.invoke(main, ["layout", "0.AB|AB", "-o", str(out), "--outer", "9"])
    assert r.exit_code == 2 and "no region 9" in r.stderr


def test_layout_refuses_what_cannot_be_drawn(runner, tmp_path):
    out = tmp_path / "g.json"
    r = runner.invoke(main, ["layout", "ABCD|ACBD", "-o", str(out)])
    assert r.exit_code == 2
    assert "cannot be drawn on the plane" in r.stderr
    assert "Traceback" not in r.output and not out.exists()


def test_adjust_and_rearrange_a_saved_game(runner, tmp_path):
    out = tmp_path / "g.json"
    for flag in ("--adjust", "--rearrange"):
        r = runner.invoke(main, ["layout", str(POSITIONS / "loop.json"), flag, "-o", str(out)])
        assert r.exit_code == 0, r.output
        assert analyse(load_game(out)).canonical() == Position.from_string("0.AB|AB").canonical()
    r = runner.invoke(main, ["layout", "0*2", "--adjust", "-o", str(out)])
    assert r.exit_code == 2 and "works on a saved game" in r.stderr


def test_render_svg_is_exact_and_deterministic(runner, tmp_path):
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    src = str(POSITIONS / "game-12-spots.json")
    assert runner.invoke(main, ["render", src, "-o", str(a), "--lives"]).exit_code == 0
    assert runner.invoke(main, ["render", src, "-o", str(b), "--lives"]).exit_code == 0
    text = a.read_text()
    assert a.read_bytes() == b.read_bytes()
    assert "\nC " in text  # curves as exact cubic Bézier commands
    pic = load_game(src)
    assert text.count("\nC ") >= sum(len(c.pieces) for c in pic.curves)


def test_render_png_and_numbers(runner, tmp_path):
    out = tmp_path / "p.png"
    r = runner.invoke(main, ["render", "0*2.1a1a", "-o", str(out), "--no-numbers", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = tmp_path / "q.png"
    r = runner.invoke(main, ["render", "0*2.1a1a", "-o", str(again), "--no-numbers", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert again.read_bytes() == out.read_bytes()  # a string is laid out the same way every time
    r = runner.invoke(main, ["render", "0*2", "-o", str(tmp_path / "x.gif")])
    assert r.exit_code == 2 and ".svg or .png" in r.stderr


def test_bad_saved_game_is_one_clear_line(runner, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "sprouts-game", "version": 2, "game": {"W0": 10}}))
    for cmd in (["canonical", str(bad)], ["render", str(bad), "-o", str(tmp_path / "x.svg")]):
        r = runner.invoke(main, cmd)
        assert r.exit_code == 2
        assert "game.H0: missing" in r.stderr and "Traceback" not in r.output


def test_example_games_read_back_and_keep_euler():
    files = sorted(POSITIONS.glob("*.json"))
    assert len(files) >= 4
    for f in files:
        pic = load_game(f)
        pos = analyse(pic)
        assert pos.canonical() == json.loads(f.read_text())["game"].get("position", pos.canonical())
        c = drawing_counts(pic)
        assert c.holds and c.parts == pic.parts  # the map's pieces are the curves' pieces


def test_browser_example_is_in_the_exact_format():
    obj = json.loads((POSITIONS / "browser-3-spots.json").read_text())
    assert set(obj) == {"format", "version", "game", "route", "history"}
    game = obj["game"]
    assert set(game) == {"W0", "H0", "spots", "edges", "player", "moves", "added", "phase", "rules"}
    assert all(set(s) == {"x", "y", "deg"} for s in game["spots"])
    assert all(set(e) == {"a", "b", "pieces", "h", "player"} for e in game["edges"])
    # a move's two curves are edges 2m and 2m+1, through the move's new spot 3 + m
    for m in range(game["moves"]):
        z = 3 + m
        assert game["edges"][2 * m]["b"] == z and game["edges"][2 * m + 1]["a"] == z


def test_render_of_a_string_prints_no_progress_when_not_on_a_terminal(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["render", "0*2", "-o", str(tmp_path / "x.svg"), "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert "layouts drawn" not in r.stderr
