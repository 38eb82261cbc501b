"""Round trips of the tool's own output: whatever one command writes, the others read.

Reduced forms choose each region's direction on their own, so they are often strings
whose regions disagree (``ABC|ABC``); the reader turns them to agree
(``engine/drawing.py``).  And the words ``sprouts moves`` prints name a move that
``sprouts move`` (and ``play``) accept.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from games import random_game_position

from sprouts_cli.api import solution
from sprouts_cli.cli import main
from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move
from sprouts_cli.engine.naming import distinct_named_moves, move_from_words, moves_from_words, parse_words


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def accepted(command: list[str], lines: list[str]) -> list[dict]:
    """Feed ``lines`` to ``command - --json``; every line must be read (no error object)."""
    r = run(*command, "-", "--json", stdin="\n".join(lines) + "\n")
    objs = [json.loads(line) for line in r.stdout.splitlines()]
    bad = [o for o in objs if "error" in o]
    assert not bad and r.exit_code == 0, bad[:3] or r.output
    assert [o["input"] for o in objs] == lines
    return objs


def _solve_and_export(spots: int, tmp: Path) -> tuple[list[str], list[str], list[str]]:
    """Solve ``0*spots`` into a fresh table, export it; the keys of the .spr, of the CSV, of the table."""
    db = tmp / "t.db"
    r = run("solve", f"0*{spots}", "--db", str(db), "--jobs", "1", "--export", str(tmp / "t.spr"))
    assert r.exit_code == 0, r.output
    r = run("solve", f"0*{spots}", "--db", str(db), "--jobs", "1", "--export", str(tmp / "t.csv"))
    assert r.exit_code == 0, r.output
    spr = [
        line.split()[0]
        for line in (tmp / "t.spr").read_text().splitlines()
        if line.strip() and not line.startswith("[")
    ]
    with (tmp / "t.csv").open() as f:
        rows = [row["position"] for row in csv.DictReader(f)]
    from sprouts_cli.solve.store import Table

    with Table(db) as table:
        keys = [land for land, _nimber, _wins in table.normal_items()]
    return spr, rows, keys


def _reduced_forms_are_read_back(spots: int, tmp: Path) -> None:
    spr, rows, keys = _solve_and_export(spots, tmp)
    assert spr and rows and keys
    written = sorted(set(spr) | set(rows) | set(keys))
    objs = accepted(["canonical"], written)
    assert all(o["reduced"] for o in objs)
    accepted(["solve", "--db", str(tmp / "t.db"), "--jobs", "1"], written)  # answered from the table
    sample = random.Random(spots).sample(written, min(40, len(written)))
    accepted(["bounds", "--time", "0.2"], sample)
    # each reduced form names the position it was written for: its own reduced form again
    for o in objs:
        assert Position.from_string(o["reduced"]).reduced() == o["reduced"]


def test_the_reduced_forms_a_solve_of_6_spots_writes_are_read_back(tmp_path: Path) -> None:
    _reduced_forms_are_read_back(6, tmp_path)


@pytest.mark.slow
def test_the_reduced_forms_a_solve_of_8_spots_writes_are_read_back(tmp_path: Path) -> None:
    _reduced_forms_are_read_back(8, tmp_path)


def test_children_and_canonical_output_is_read_back() -> None:
    rng = random.Random(24)
    positions = [random_game_position(n, rng.randrange(2 * n), rng.randrange(1 << 30)) for n in range(3, 10)]
    texts = [p.notation() for p in positions] + ["ABC|ACB", "1A|BCDE.F|BCDE|AF"]
    exact = [o["canonical"] for o in accepted(["canonical"], texts)]
    reduced = [o["reduced"] for o in accepted(["canonical"], texts)]
    for command in (["canonical"], ["canonical", "--reduced"], ["children"], ["moves"]):
        accepted(command, exact)
        accepted(command, reduced)
    kids = sorted({k for o in accepted(["children"], texts + reduced) for k in o["children"]})
    accepted(["canonical"], kids)
    accepted(["canonical", "--reduced"], kids)
    assert run("canonical", "--reduced", "ABC|ACB").stdout.strip() == "ABC|ABC"
    assert run("canonical", "ABC|ABC").stdout.strip() == "ABC|ABC"


# ------------------------------------------------------------------ moves in words
def test_the_words_moves_prints_are_the_moves_move_accepts() -> None:
    """Each listed move's words give its position, in positions of games from 3 to 9 spots
    (spots numbered as played): words fitting several moves of one result are that move,
    and words of different results carry ``giving``."""
    fitting_several = 0
    for seed in range(80):
        n = 3 + seed % 7
        p = random_game_position(n, random.Random(seed).randrange(3 * n), seed)
        for nm in distinct_named_moves(p):
            m = move_from_words(p, nm.words)
            assert apply_move(p, m, check=False).canonical() == nm.canonical, nm.words
            fitting_several += len(moves_from_words(p, parse_words(nm.words))) > 1
    assert fitting_several > 0  # words that fit several moves of one result were met


@pytest.mark.slow
def test_moves_then_move_on_a_drawn_game(tmp_path: Path) -> None:
    game = tmp_path / "g.json"
    assert run("layout", "0*3", "-o", str(game)).exit_code == 0
    for step in range(3):
        listed = json.loads(run("moves", str(game), "--json").stdout)
        assert listed["moves"], listed
        pick = listed["moves"][step % len(listed["moves"])]
        nxt = tmp_path / f"g{step}.json"
        r = run("move", str(game), pick["words"], "-o", str(nxt), "--json")
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)["position"] == pick["position"]
        game = nxt


def test_winning_moves_are_named_in_words_beside_their_positions() -> None:
    r = run("solve", "0*3", "--moves", "--no-db", "--json")
    obj = json.loads(r.stdout)
    words = obj["winning_move_words"]
    assert len(words) == len(obj["winning_moves"]) > 0
    p = Position.start(3)
    for said, child in zip(words, obj["winning_moves"], strict=True):
        assert apply_move(p, move_from_words(p, said), check=False).canonical() == child
    text = run("solve", "0*3", "--moves", "--no-db").stdout
    assert all(f"{w}" in text for w in words)
    s = solution("0*3", moves=True)
    assert s.winning_words is not None and len(s.winning_words) == len(s.winning_moves or [])
