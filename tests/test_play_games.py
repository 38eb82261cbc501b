"""Whole games computer against computer: legal to the end, and the log replays to the same positions."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import check_move
from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.engine.rules import Rules
from sprouts_cli.log import LogWriter, replay_log
from sprouts_cli.play import Game, Session
from sprouts_cli.players import COMPUTER_PLAYERS, Settings

QUICK = Settings(seconds=0.05, jobs=1, tie_games=4)


def play_and_replay(
    tmp_path: Path,
    first: str,
    second: str,
    spots: int,
    misere: bool,
    seed: int = 1,
    settings: Settings = QUICK,
) -> None:
    log_path = tmp_path / f"{first}-{second}-{spots}-{misere}.log"
    game = Game(Position.start(spots), rules=Rules.of(misere))
    with LogWriter(log_path) as log:
        outcome = Session(game, (first, second), settings, seed=seed, log=log, quiet=True).run()
    # the game ended with a legal final position
    assert game.position.is_over()
    assert 2 * spots <= game.moves_made <= 3 * spots - 1
    before = game.start
    for step in game.played:
        check_move(before, step.move)
        before = step.after
    stuck = 1 + (game.moves_made % 2)  # player 1 moves first: after an even count it is player 1's turn
    assert outcome.winner == (stuck if misere else 3 - stuck)
    # the log rebuilds the same positions
    r = replay_log(log_path)
    assert r.error is None, r.error
    (g,) = r.games
    assert [numbered_key(s.position) for s in g.line_of_play] == [numbered_key(game.start)] + [
        numbered_key(s.after) for s in game.played
    ]
    assert g.ended is not None and g.ended["winner"] == str(outcome.winner)
    assert g.rules == ("misere" if misere else "normal") and g.players == (first, second)


SAMPLE = [
    ("parity", "random", 3, False),
    ("random", "perfect", 4, True),
    ("montecarlo", "parity", 5, True),
    ("perfect", "montecarlo", 6, False),
    ("parity", "perfect", 8, False),
    ("montecarlo", "random", 7, True),
]


@pytest.mark.parametrize(("first", "second", "spots", "misere"), SAMPLE)
def test_a_sample_of_games_end_legally_and_replay(
    tmp_path: Path, first: str, second: str, spots: int, misere: bool
) -> None:
    play_and_replay(tmp_path, first, second, spots, misere)


def test_a_game_with_worker_processes(tmp_path: Path) -> None:
    settings = Settings(seconds=0.2, jobs=2, tie_games=4)
    play_and_replay(tmp_path, "parity", "perfect", 5, True, settings=settings)


@pytest.mark.slow
@pytest.mark.parametrize("spots", range(3, 9))
@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize(("first", "second"), list(itertools.product(COMPUTER_PLAYERS, repeat=2)))
def test_every_pair_of_players_in_both_rules_from_3_to_8_spots(
    tmp_path: Path, first: str, second: str, spots: int, misere: bool
) -> None:
    play_and_replay(tmp_path, first, second, spots, misere, seed=spots)


class FailingDrawer:
    """A drawer whose picture of move 2 is not the intended position."""

    width, height, seconds = 400.0, 300.0, 0.0

    def draw(self, game, title=None) -> None:
        from sprouts_cli.play import PlayError

        if game.moves_made == 2:
            raise PlayError("move 2 could not be drawn as intended")


def test_a_move_that_cannot_be_drawn_stops_the_game_and_the_log_says_so(tmp_path: Path) -> None:
    from sprouts_cli.play import PlayError

    log_path = tmp_path / "stopped.log"
    game = Game(Position.start(4))
    with LogWriter(log_path) as log, pytest.raises(PlayError, match="could not be drawn"):
        Session(game, ("random", "random"), QUICK, seed=1, log=log, drawer=FailingDrawer(), quiet=True).run()
    r = replay_log(log_path)
    assert r.error is None
    (g,) = r.games
    assert g.moves == 2 and g.ended is not None and g.ended["reason"].startswith("stopped: move 2")
    assert "area 400x300" in log_path.read_text()
    notes = [line for line in log_path.read_text().splitlines() if line.startswith("note 2")]
    assert notes and "could not be drawn" in notes[0]
