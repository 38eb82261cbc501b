"""Batch output that stays in step with its input (``-`` with ``--json``).

Every input line gives exactly one JSON line, in input order, a refused one too
(``{"input", "error", "line"}``); every object carries ``"input"`` as given; the exit
code is 2 when any line failed, and only after every line was done.  Without
``--json`` the error names the line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main

BAD = "1abab"  # no drawing has it, whichever way its regions are read

#: command (without its input) -> good input lines for it, and one bad line.
COMMANDS: dict[str, tuple[list[str], list[str], str]] = {
    "canonical": (["canonical", "-", "--json"], ["0*2", "ABC|ABC", "0.AB|AB"], BAD),
    "canonical-reduced": (["canonical", "-", "--json", "--reduced"], ["0*3", "ABC|ACB"], BAD),
    "children": (["children", "-", "--json"], ["0*2", "ABC|ABC"], BAD),
    "moves": (["moves", "-", "--json"], ["0*2", "1A|BCDE.F|BCDE|AF"], BAD),
    "bounds": (["bounds", "-", "--json", "--time", "2"], ["0*2", "0.AB|AB"], BAD),
    "solve": (["solve", "-", "--json", "--no-db"], ["0*3", "ABC|ABC"], BAD),
    "solve-three": (["solve", "-", "--json", "--no-db", "--players", "3"], ["0*1", "0*2"], BAD),
    "dots-solve": (["dots", "solve", "-", "--json"], ["1x1:1110", "2x2"], "9x"),
}


def run(args: list[str], stdin: str):
    return CliRunner().invoke(main, args, input=stdin)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_one_json_line_per_input_line_in_order(name: str) -> None:
    args, good, bad = COMMANDS[name]
    lines = [good[0], bad, *good[1:], bad]
    r = run(args, "\n".join(lines) + "\n")
    assert r.exit_code == 2, r.output  # a line failed: exit 2, after all were done
    objs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [o["input"] for o in objs] == lines
    for number, (o, text) in enumerate(zip(objs, lines, strict=True), start=1):
        if text == bad:
            assert set(o) == {"input", "error", "line"} and o["line"] == number and o["error"]
        else:
            assert "error" not in o
    assert r.stderr.count("error: line ") == 2  # people still read the line numbers


@pytest.mark.parametrize("name", list(COMMANDS))
def test_without_json_the_error_names_its_line(name: str) -> None:
    args, good, bad = COMMANDS[name]
    plain = [a for a in args if a != "--json"]
    r = run(plain, f"{good[0]}\n{bad}\n")
    assert r.exit_code == 2
    assert "error: line 2: " in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_all_good_lines_exit_zero() -> None:
    r = run(["canonical", "-", "--json"], "0*2\nABC|ABC\n")
    assert r.exit_code == 0
    assert [json.loads(line)["input"] for line in r.stdout.splitlines()] == ["0*2", "ABC|ABC"]


@pytest.mark.parametrize("command", ["layout", "render"])
def test_pictures_keep_step_too(command: str, tmp_path: Path) -> None:
    out = tmp_path / ("p.json" if command == "layout" else "p.svg")
    r = run([command, "-", "-o", str(out), "--json"], f"{BAD}\n0*2\n")
    assert r.exit_code == 2, r.output
    objs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [o["input"] for o in objs] == [BAD, "0*2"]
    assert objs[0]["line"] == 1 and "error" in objs[0] and "error" not in objs[1]
