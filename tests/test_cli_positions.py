"""``sprouts canonical`` and ``sprouts children`` through click's CliRunner."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sprouts_cli.cli import main


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def test_canonical_prints_one_line_per_input() -> None:
    r = run("canonical", "0.0.0.}]!", "0*3", "0.AB|AB")
    assert r.exit_code == 0
    assert r.output.splitlines() == ["0*3", "0*3", "0.AB|AB"]


def test_canonical_reduced_and_glop1() -> None:
    r = run("canonical", "--reduced", "1aa")
    assert r.output.strip() == "12"
    r = run("canonical", "--dialect", "glop1", "0*3")
    assert r.output.strip() == "0.0.0.}]!"


def test_canonical_json() -> None:
    r = run("canonical", "--json", "0*4.A|0*4.A+0*3+*2")
    obj = json.loads(r.output)
    assert obj["input"] == "0*4.A|0*4.A+0*3+*2"
    assert obj["canonical"] == "0*3+0*4.A|0*4.A+*2"
    assert obj["lives"] == 9 + 13 + 13 - 1
    assert sorted(obj["lands"]) == ["0*3", "0*4.A|0*4.A"]
    assert obj["nim_heap"] == 2
    assert set(obj) == {"input", "canonical", "reduced", "lives", "lands", "nim_heap"}


def test_batch_from_stdin_names_the_bad_line() -> None:
    r = run("canonical", "-", stdin="0*2\n0.x\n\n1a1a\n")
    assert r.exit_code == 2
    assert r.stdout.splitlines() == ["0*2", "1a1a"]
    assert "line 2" in r.stderr and "column 3" in r.stderr
    assert "Traceback" not in r.output


def test_bad_argument_is_one_line_and_exit_2() -> None:
    r = run("canonical", "0..0")
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert "empty boundary" in r.stderr


def test_children_lists_and_counts() -> None:
    r = run("children", "0*2")
    assert r.exit_code == 0
    assert r.output.splitlines() == ["0.AB|AB", "1a1a"]  # into a pipe: one child per line (the count: wc -l)
    r = run("children", "--json", "0*3")
    obj = json.loads(r.output)
    assert obj == {
        "input": "0*3",
        "position": "0*3",
        "count": 3,
        "children": ["0*2.AB|AB", "0.1a1a", "0.AB|0.AB"],
    }


def test_children_bad_input() -> None:
    r = run("children", "AB")
    assert r.exit_code == 2
    assert "occurs once" in r.stderr


def test_canonical_and_solve_read_spots_strings_with_small_letters_per_boundary() -> None:
    from sprouts_cli.cli import main

    runner = CliRunner()
    got = runner.invoke(main, ["canonical", "1a1a.1a2a", "1a1a.1aAa|22A"])
    assert got.exit_code == 0, got.output
    assert got.output.split() == ["1a1a.1b2b", "1a1a.1bAb|A22"]
    got = runner.invoke(main, ["solve", "--no-db", "--nimber", "--json", "1a1a.1a2a", "1a2a.2a2a"])
    assert got.exit_code == 0, got.output
    assert [json.loads(line)["nimber"] for line in got.output.splitlines()] == [1, 1]
