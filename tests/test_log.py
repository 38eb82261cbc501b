"""The game log (Alfeld §7.3): written line by line, replayed, and every kind of damage reported."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sprouts_cli.engine import Position
from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.engine.rules import Rules
from sprouts_cli.errors import LogError
from sprouts_cli.log import HEADER, LogWriter, parse_record, replay_log
from sprouts_cli.play import Game, Session
from sprouts_cli.players import Settings


def write_games(path: Path, spots: int = 5, seeds=(1,), misere=(False,), kinds=("random", "random")) -> list:
    """Play quick games into a log; return the positions of each game's line of play."""
    lines = []
    with LogWriter(path) as log:
        for seed in seeds:
            for m in misere:
                game = Game(Position.start(spots), rules=Rules.of(m))
                Session(game, kinds, Settings(seconds=0.05), seed=seed, log=log, quiet=True).run()
                lines.append([game.start] + [p.after for p in game.played])
    return lines


def test_a_log_replays_to_the_positions_played(tmp_path: Path) -> None:
    log = tmp_path / "games.log"
    played = write_games(log, spots=5, seeds=(1, 2), misere=(False, True))
    text = log.read_text(encoding="utf-8")
    assert text.startswith(HEADER + "\n") and text.endswith("\n")
    r = replay_log(log)
    assert r.error is None
    assert len(r.games) == 4
    for g, positions in zip(r.games, played, strict=True):
        assert [numbered_key(s.position) for s in g.line_of_play] == [numbered_key(p) for p in positions]
        assert g.ended is not None and g.ended["winner"] in ("1", "2")
    assert [g.rules for g in r.games] == ["normal", "misere", "normal", "misere"]


def test_appending_numbers_the_next_game(tmp_path: Path) -> None:
    log = tmp_path / "games.log"
    write_games(log, seeds=(1,))
    write_games(log, seeds=(2,))
    r = replay_log(log)
    assert r.error is None and [g.number for g in r.games] == [1, 2]
    assert sum(1 for line in log.read_text().splitlines() if line == HEADER) == 1


def _lines(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines(keepends=True)


def _move_line(lines: list[str], k: int) -> int:
    return next(i for i, line in enumerate(lines) if line.startswith(f"move {k} ;"))


def test_an_illegal_move_is_reported_with_its_line(tmp_path: Path) -> None:
    log = tmp_path / "bad.log"
    write_games(log, spots=4)
    lines = _lines(log)
    i = _move_line(lines, 3)
    lines[i] = re.sub(r"play [^;]*;", "play 1 → 40 ;", lines[i])
    log.write_text("".join(lines), encoding="utf-8")
    r = replay_log(log)
    assert r.error is not None and r.error.line == i + 1
    assert "move 3 '1 → 40' is not legal here" in str(r.error) and "no spot 40" in str(r.error)
    assert r.games[0].moves == 2  # what came before is kept


def test_a_move_with_a_dead_spot_is_illegal(tmp_path: Path) -> None:
    log = tmp_path / "bad.log"
    write_games(log, spots=4)
    lines = _lines(log)
    g = replay_log(log).games[0]
    k, before = next((k, s.position) for k, s in enumerate(g.line_of_play[:-1], 1) if 0 in s.position.lives)
    dead = before.lives.index(0)
    live = next(s for s, v in enumerate(before.lives) if v > 0)
    i = _move_line(lines, k)
    lines[i] = re.sub(r"play [^;]*;", f"play {dead + 1} → {live + 1} ;", lines[i])
    log.write_text("".join(lines), encoding="utf-8")
    r = replay_log(log)
    assert r.error is not None and r.error.line == i + 1 and "no life left" in str(r.error)


def test_a_changed_position_is_reported_with_its_line(tmp_path: Path) -> None:
    log = tmp_path / "changed.log"
    write_games(log, spots=5)
    lines = _lines(log)
    i = _move_line(lines, 4)
    j = _move_line(lines, 5)
    # move 4 claims the position that really comes after move 5
    pos5 = re.search(r"; position ([^;]*) ;", lines[j]).group(1)
    lines[i] = re.sub(r"; position [^;]* ;", f"; position {pos5} ;", lines[i])
    log.write_text("".join(lines), encoding="utf-8")
    r = replay_log(log)
    assert r.error is not None and r.error.line == i + 1
    assert "the log records" in str(r.error)
    assert r.games[0].moves == 3


def test_a_changed_numbered_position_is_reported(tmp_path: Path) -> None:
    log = tmp_path / "changed.log"
    write_games(log, spots=5)
    lines = _lines(log)
    i = _move_line(lines, 2)
    numbered = re.search(r"; numbered ([^;]*) ;", lines[i]).group(1)
    nums = re.findall(r"\d+", numbered)
    a, b = nums[0], nums[-1]
    swapped = re.sub(
        r"\d+", lambda m: b if m.group(0) == a else a if m.group(0) == b else m.group(0), numbered
    )
    assert swapped != numbered, "the seeded game's second move names two different spots"
    lines[i] = lines[i].replace(f"; numbered {numbered} ;", f"; numbered {swapped} ;")
    log.write_text("".join(lines), encoding="utf-8")
    r = replay_log(log)
    assert r.error is not None and r.error.line == i + 1
    assert "does not lead to the recorded position" in str(r.error)


def test_a_truncated_last_line_is_reported_and_what_came_before_kept(tmp_path: Path) -> None:
    log = tmp_path / "cut.log"
    write_games(log, spots=5, seeds=(1, 2))
    text = log.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    i = _move_line(lines, 6) if sum(1 for x in lines if x.startswith("game ")) else 0
    # cut the log in the middle of the first game's move 6
    cut = "".join(lines[:i]) + lines[i][: len(lines[i]) // 2]
    log.write_text(cut, encoding="utf-8")
    r = replay_log(log)
    assert r.error is not None and r.error.line == i + 1
    assert "truncated" in str(r.error)
    assert len(r.games) == 1 and r.games[0].moves == 5


def test_a_cut_log_can_still_be_appended_to_only_after_repair(tmp_path: Path) -> None:
    log = tmp_path / "cut.log"
    write_games(log, spots=3)
    text = log.read_text(encoding="utf-8")
    log.write_text(text[:-10], encoding="utf-8")
    with pytest.raises(LogError, match="truncated"):
        LogWriter(log)


def test_records_that_do_not_fit_are_reported(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    write_games(log, spots=3)
    lines = _lines(log)
    cases = {
        "move 9 ; player 1 ; by random ; play 1 → 2 ; position 0\n": "cannot follow move",
        "undo 7 ; position 0\n": "the last move of game 1 is move",
        "jump 3 ; to 4\n": "not a log record",
        "move x ; play 1 → 2\n": "not a number",
    }
    k = _move_line(lines, 2)
    for bad, message in cases.items():
        log.write_text("".join([*lines[:k], bad, *lines[k:]]), encoding="utf-8")
        r = replay_log(log)
        assert r.error is not None and r.error.line == k + 1, bad
        assert message in str(r.error), (bad, str(r.error))
    log.write_text("hello\n", encoding="utf-8")
    r = replay_log(log)
    assert r.error is not None and r.error.line == 1 and "not a sprouts log" in str(r.error)
    with pytest.raises(LogError, match="not a sprouts log"):
        LogWriter(log)


def test_undo_records_replay(tmp_path: Path) -> None:
    log = tmp_path / "undo.log"
    with LogWriter(log) as w:
        game = Game(Position.start(4))
        session = Session(game, ("random", "random"), Settings(seconds=0.05), seed=4, log=w, quiet=True)
        session.run()
        # take back the last two moves by hand, as the session writes them
        from sprouts_cli.engine.naming import numbered_text

        for _ in range(2):
            k = game.moves_made
            game.undo()
            w.record(
                "undo",
                k,
                [("position", game.position.canonical()), ("numbered", numbered_text(game.position))],
            )
    text = log.read_text()
    # the end record came before the undos: move it to the end
    lines = text.splitlines(keepends=True)
    end = next(i for i, x in enumerate(lines) if x.startswith("end "))
    end_line = lines.pop(end)
    end_line = re.sub(r"moves \d+", f"moves {game.moves_made}", end_line)
    end_line = re.sub(r"winner \d ; reason [^\n]*", "winner none ; reason quit by player 1", end_line)
    log.write_text("".join([*lines, end_line]), encoding="utf-8")
    r = replay_log(log)
    assert r.error is None, r.error
    assert r.games[0].moves == game.moves_made
    assert [s.text for s in r.games[0].steps][-2:] == ["undo", "undo"]


def test_parse_record_fields() -> None:
    rec = parse_record("move 3 ; player 1 ; play 3 → 3 enclosing 4, 6-7 ; position 0*3", 12)
    assert rec.kind == "move" and rec.number == 3 and rec.line == 12
    assert rec.fields["play"] == "3 → 3 enclosing 4, 6-7"
    with pytest.raises(LogError, match="given twice"):
        parse_record("move 3 ; play 1 → 2 ; play 1 → 3", 4)
