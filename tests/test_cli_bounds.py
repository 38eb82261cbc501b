"""``sprouts bounds`` through click's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main

POSITIONS = Path(__file__).resolve().parents[1] / "positions"


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["bounds", *args], input=stdin)


def json_lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_json_for_the_5_spot_start() -> None:
    r = run("0*5", "--json")
    assert r.exit_code == 0, r.output
    [obj] = json_lines(r.output)
    assert {k: obj[k] for k in ("position", "lives", "spots", "upper", "lower", "longest", "shortest")} == {
        "position": "0*5",
        "lives": 15,
        "spots": 5,
        "upper": 14,
        "lower": 10,
        "longest": 14,
        "shortest": 10,
    }
    assert [p["position"] for p in obj["parts"]] == ["0*5"]


def test_parts_add_up_and_heaps_count() -> None:
    r = run("0*3+1a1a+*2", "--json")
    assert r.exit_code == 0, r.output
    [obj] = json_lines(r.output)
    parts = obj["parts"]
    assert sorted(p["position"] for p in parts) == ["0*3", "1a1a"]
    assert obj["heaps"] == [2]
    assert obj["longest"] == sum(p["longest"] for p in parts) + 2 == 8 + 4 + 2
    assert obj["shortest"] == sum(p["shortest"] for p in parts) + 1 == 6 + 3 + 1
    for p in [obj, *parts]:
        assert p["lower"] <= p["shortest"] <= p["longest"] <= p["upper"]


def test_people_see_the_numbers_and_the_parts() -> None:
    r = run("0*2+0.AB|AB")
    assert r.exit_code == 0, r.output
    for word in (
        "lives",
        "spots",
        "lower m",
        "shortest",
        "longest",
        "upper M",
        "part 1",
        "part 2",
        "0.AB|AB",
    ):
        assert word in r.output


def test_no_time_leaves_lengths_unknown_and_bounds_standing() -> None:
    r = run("0*20", "--time", "0", "--json")
    assert r.exit_code == 0, r.output
    [obj] = json_lines(r.output)
    assert obj["longest"] is None and obj["shortest"] is None
    assert (obj["upper"], obj["lower"]) == (59, 40)
    r = run("0*20", "--time", "0")
    assert "? (≤ 59)" in r.output and "not proved" in r.output


def test_stdin_and_a_bad_line() -> None:
    r = run("-", "--json", stdin="0*2\n# a comment\n0*2+\n1a1a\n")
    assert r.exit_code == 2
    objs = json_lines(r.stdout)
    assert [o["input"] for o in objs] == ["0*2", "0*2+", "1a1a"]
    assert objs[1]["line"] == 3 and "column" in objs[1]["error"]
    assert [o["position"] for o in objs if "error" not in o] == ["0*2", "1a1a"]
    assert "line 3" in r.stderr and "column" in r.stderr
    assert "Traceback" not in r.output


def test_show_a_shortest_game() -> None:
    r = run("0*3", "--show", "shortest", "--json")
    assert r.exit_code == 0, r.output
    [obj] = json_lines(r.output)
    line = obj["shortest_game"]
    assert len(line) == obj["shortest"] == 6 and line[-1] == "!"
    r = run("0*3", "--show", "longest")
    assert "a longest game (8 moves)" in r.output


def test_saved_game_gets_eulers_relation() -> None:
    game = POSITIONS / "loop.json"
    assert game.exists(), "positions/loop.json is one of the project's example games"
    r = run(str(game), "--json")
    assert r.exit_code == 0, r.output
    [obj] = json_lines(r.output)
    e = obj["euler"]
    assert e["holds"] and e["points"] + e["regions"] == e["lines"] + e["parts"]
    assert obj["lower"] <= obj["shortest"] <= obj["longest"] <= obj["upper"]
    r = run(str(game))
    assert "Euler: points" in r.output and "(holds)" in r.output


def test_bad_saved_game_is_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    r = run(str(bad), "0*2")
    assert r.exit_code == 2
    assert str(bad) in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "0*2" in r.stdout


def test_a_json_name_that_is_no_file_is_read_as_a_position() -> None:
    r = run("missing.json")
    assert r.exit_code == 2
    assert "missing.json" in r.stderr


@pytest.mark.parametrize("n", [3, 4, pytest.param(5, marks=pytest.mark.slow)])
def test_realised_strings_give_true_lower_bounds(n: int) -> None:
    """A string drawn with its stumps given back: the sharper bound is still never too high."""
    from games import reachable
    from test_bounds import brute_longest, brute_shortest

    from sprouts_cli.engine import Position
    from sprouts_cli.engine.bounds import lower_bound, upper_bound
    from sprouts_cli.picture.planar_map import realised
    from sprouts_cli.solve.lengths import LengthOracle

    oracle = LengthOracle()
    drawn = 0
    for i, key in enumerate(reachable(n)):
        p = Position.from_string(key)
        q = realised(p)
        if q is None:
            continue
        drawn += 1
        low = lower_bound(q, stumps_known=True)
        assert lower_bound(p) <= low <= brute_shortest(key) <= brute_longest(key) <= upper_bound(q), key
        if i % 5 == 0:
            assert oracle.shortest(q, stumps_known=True) == brute_shortest(key), key
            assert oracle.longest(q, stumps_known=True) == brute_longest(key), key
    assert drawn == len(reachable(n))


def test_bounds_of_a_saved_game_count_spots_the_same_way_for_the_whole_and_its_parts() -> None:
    r = run(str(POSITIONS / "game-12-spots.json"), "--json", "--time", "1")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["spots"] == sum(part["spots"] for part in report["parts"])
    assert report["lives"] == sum(part["lives"] for part in report["parts"])
