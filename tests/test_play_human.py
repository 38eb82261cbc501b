"""A person playing in a real terminal (pexpect): numbers, words, help, undo and quit, end to end."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from sprouts_cli.log import replay_log

pexpect = pytest.importorskip("pexpect")

PROMPT = r"your move \(number or words; undo, quit, help\): "
SPROUTS = str(Path(sys.executable).parent / "sprouts")


def spawn(*args: str):
    child = pexpect.spawn(SPROUTS, list(args), encoding="utf-8", timeout=60, dimensions=(50, 200))
    return child


def listed_moves(text: str) -> list[str]:
    """The words of the moves in the last list shown."""
    block = text.rsplit("Moves (", 1)[1]
    return re.findall(r"^\s+\d+\. (.+?)\s*$", block, flags=re.M)


def test_a_human_game_in_the_terminal(tmp_path: Path) -> None:
    log = tmp_path / "human.log"
    child = spawn(
        "play", "--spots", "3", "--first", "human", "--second", "random", "--seed", "5", "--log", str(log)
    )
    child.expect(PROMPT)
    shown = child.before
    assert "Position 0*3" in shown and "region 1 (9 lives): [1] [2] [3]" in shown
    assert "spots with lives (spot:lives): 1:3  2:3  3:3" in shown
    assert listed_moves(shown) == ["1 → 1", "1 → 1 enclosing 2", "1 → 2"]
    child.sendline("help")
    child.expect("enclosing 4, 6, 7|enclosing 4, 6-7")
    child.expect(PROMPT)
    child.sendline("9")
    child.expect("There is no move 9")
    child.expect(PROMPT)
    child.sendline("1 → 3 enclosing 2")  # words that fit no move
    child.expect("Not a move here")
    child.expect(PROMPT)
    # a move by its words, answered by the computer
    child.sendline("1 -> 2")
    child.expect(r"1\. player 1 \(human\): 1 → 2")
    child.expect(r"2\. player 2 \(random\): ")
    child.expect(PROMPT)
    # take it back: the computer's reply and the person's move
    child.sendline("undo")
    child.expect("took back move 2")
    child.expect("took back move 1")
    child.expect(PROMPT)
    assert "Position 0*3" in child.before
    # now play by numbers to the end
    moves = 0
    while True:
        child.sendline("1")
        i = child.expect([PROMPT, r"wins after (\d+) moves"])
        moves += 1
        if i == 1:
            total = int(child.match.group(1))
            break
        assert moves < 20
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    r = replay_log(log)
    assert r.error is None, r.error
    g = r.games[0]
    assert g.moves == total and g.position.is_over()
    texts = [s.text for s in g.steps]
    assert texts[:5] == ["start", "1 → 2", texts[2], "undo", "undo"]
    assert g.players == ("human", "random")


def test_quit_and_end_of_input_leave_the_game(tmp_path: Path) -> None:
    log = tmp_path / "quit.log"
    child = spawn(
        "play", "--spots", "4", "--first", "random", "--second", "human", "--seed", "2", "--log", str(log)
    )
    child.expect(PROMPT)
    child.sendline("2")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(r"Game left after \d+ moves \(quit by player 2\)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    g = replay_log(log).games[0]
    assert g.ended is not None and g.ended["winner"] == "none" and g.moves == 3
    # the end of the input is a quit too
    child = spawn(
        "play",
        "--spots",
        "2",
        "--first",
        "human",
        "--second",
        "parity",
        "--time",
        "0.1",
        "--no-db",
        "--log",
        str(log),
    )
    child.expect(PROMPT)
    child.sendeof()
    child.expect("quit by player 1")
    child.expect(pexpect.EOF)
    r = replay_log(log)
    assert r.error is None and len(r.games) == 2


def test_answers_that_fit_several_moves_ask_for_the_position() -> None:
    from games import random_game_position

    from sprouts_cli.engine.naming import parse_words
    from sprouts_cli.play import Game
    from sprouts_cli.play.human import Terminal, read_answer

    said: list[str] = []
    term = Terminal(say=said.append, ask=lambda prompt: None)
    for seed in range(40):
        game = Game(random_game_position(5, 5, seed))
        moves = game.named_moves()
        ambiguous = [nm for nm in moves if " giving " in nm.words]
        if not ambiguous:
            continue
        nm = ambiguous[0]
        bare = nm.words.split(" giving ")[0]
        said.clear()
        assert read_answer(game, moves, bare, term) is None
        assert "fits" in said[0] and any(nm.canonical in line for line in said[1:])
        answer = read_answer(game, moves, nm.words, term)
        assert answer is not None and answer.action == "move"
        assert game.position.play(answer.move).canonical() == nm.canonical
        assert parse_words(nm.words).giving == nm.canonical
        break
    else:
        pytest.fail("no position with moves told apart by their result")


def test_moves_left_are_said_in_words_that_fit() -> None:
    from sprouts_cli.play.human import moves_left

    assert moves_left(1, 1) == "1 move left"
    assert moves_left(3, 3) == "exactly 3 moves left"
    assert moves_left(0, 0) == "no move left"
    assert moves_left(4, 6) == "4 to 6 moves left"
