"""A logged move found again where its words fit both the recorded position and its mirror image.

The words of a move that closes a curve name one side of it; in a position with a
mirror image the words can fit two moves, one giving the recorded position and one
its mirror image.  Taking the mirror image leaves the game the mirror image of the
log, where the words of a later move may fit nothing: ``replay --html`` then
stopped with an empty reason.  The logs in ``tests/data/replay`` are random games
where that happens (the 3-spot one at move 6, the 8-spot one at move 19).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.engine.moves import apply_move
from sprouts_cli.engine.naming import moves_from_words, numbered_key, parse_words
from sprouts_cli.errors import SproutsError
from sprouts_cli.log import replay_log
from sprouts_cli.picture.room import same_move
from sprouts_cli.play.game import Game
from sprouts_cli.replay_html import _move_again

DATA = Path(__file__).parent / "data" / "replay"
LOGS = ("mirror-3-spots.log", "mirror-8-spots.log")


def exact(p):
    return numbered_key(p, mirror=False)[:2]


@pytest.mark.parametrize("name", LOGS)
def test_every_move_found_again_gives_the_very_position_recorded(name: str) -> None:
    g = replay_log(DATA / name).games[-1]
    play = Game(g.start, g.rules, first_to_move=g.first_to_move)
    both = 0  # moves whose words also fit a move giving the mirror image
    for k, s in enumerate(g.line_of_play[1:], start=1):
        before = play.position
        results = [apply_move(before, m, check=False) for m in moves_from_words(before, parse_words(s.text))]
        want = numbered_key(s.position)
        both += any(exact(a) != exact(s.position) and numbered_key(a) == want for a in results)
        move = _move_again(before, k, s.text, s.position)
        after = apply_move(before, move, check=False)
        assert exact(after) == exact(s.position), f"move {k} {s.text}"
        play.play(move, s.by or "", s.text)
    assert both  # the log has the case this guards against


def test_same_move_takes_the_very_position_before_its_mirror_image() -> None:
    g = replay_log(DATA / "mirror-3-spots.log").games[-1]
    for s0, s in zip(g.line_of_play, g.line_of_play[1:], strict=False):
        m = same_move(s0.position, s.position, s.text)
        assert m is not None
        assert exact(apply_move(s0.position, m, check=False)) == exact(s.position), s.text


def test_a_move_not_found_again_says_why() -> None:
    g = replay_log(DATA / "mirror-3-spots.log").games[-1]
    start, first, second = g.line_of_play[:3]
    with pytest.raises(SproutsError) as e:
        _move_again(start.position, 1, first.text, second.position)  # the position after move 2
    text = str(e.value)
    assert text.startswith("move 1 '1 → 2' is not found again: ") and second.position.canonical() in text
    with pytest.raises(SproutsError, match=r"^move 1 '1 → 9' cannot be played again: .*spot 9"):
        _move_again(start.position, 1, "1 → 9", first.position)


def test_draw_frames_follows_the_log(monkeypatch) -> None:
    """draw_frames plays the log's moves again; the drawing itself stubbed (it is slow)."""
    from sprouts_cli.play.drawing import Drawer
    from sprouts_cli.replay_html import draw_frames

    seen = []

    def begin(self, start, picture=None):
        self.picture = "start"
        return start

    def draw(self, game, title=None):
        seen.append(game.position)
        self.picture = f"move {game.moves_made}"

    monkeypatch.setattr(Drawer, "begin", begin)
    monkeypatch.setattr(Drawer, "draw", draw)
    g = replay_log(DATA / "mirror-8-spots.log").games[-1]
    pictures = draw_frames(g)
    assert pictures == [f"move {k}" for k in range(len(g.line_of_play))] and g.moves == 20
    assert [exact(p) for p in seen] == [exact(s.position) for s in g.line_of_play]


@pytest.mark.slow
def test_replay_html_draws_the_game(tmp_path: Path) -> None:
    page = tmp_path / "game.html"
    r = CliRunner().invoke(
        main, ["replay", str(DATA / "mirror-3-spots.log"), "--html", str(page), "--area", "400x300"]
    )
    assert r.exit_code == 0, r.output
    assert page.read_text(encoding="utf-8").count('<figure class="frame"') == 8


@pytest.mark.slow
def test_replay_html_draws_the_8_spot_game(tmp_path: Path) -> None:
    page = tmp_path / "game.html"
    r = CliRunner().invoke(main, ["replay", str(DATA / "mirror-8-spots.log"), "--html", str(page)])
    assert r.exit_code == 0, r.output
    assert page.read_text(encoding="utf-8").count('<figure class="frame"') == 21
