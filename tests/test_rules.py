"""The rules: whose turn it is and who wins, checked against games played out by hand."""

from __future__ import annotations

import pytest

from sprouts_cli.engine.rules import Rules


def play_out(rules: Rules, first: int, moves: int) -> tuple[list[int], int]:
    """Who made each of ``moves`` moves taken in turn from ``first``, and the winner when no move is left."""
    order = [(first - 1 + k) % rules.players + 1 for k in range(moves + 1)]
    movers, stuck = order[:-1], order[-1]
    if rules is Rules.MISERE:
        return movers, stuck
    last = movers[-1] if movers else (stuck - 2) % rules.players + 1
    return movers, last


@pytest.mark.parametrize("rules", list(Rules))
@pytest.mark.parametrize("moves", range(8))
def test_turns_and_winner_agree_with_a_game_played_out(rules: Rules, moves: int) -> None:
    for first in range(1, rules.players + 1):
        movers, winner = play_out(rules, first, moves)
        assert [rules.to_move(first, k) for k in range(moves)] == movers
        assert rules.winner(first, moves) == winner
        # the player who made the k-th move wins exactly when the game's winner is that player
        for k, mover in enumerate(movers):
            assert rules.mover_wins(moves - k - 1) == (mover == winner)


def test_the_two_player_rules_by_hand() -> None:
    assert Rules.NORMAL.winner(1, 2) == 2 and Rules.MISERE.winner(1, 2) == 1
    assert Rules.NORMAL.winner(2, 0) == 1 and Rules.MISERE.winner(2, 0) == 2
    assert Rules.THREE_PLAYER.winner(1, 4) == 1 and Rules.THREE_PLAYER.to_move(3, 1) == 1
    assert Rules.NORMAL.to_move_wins(1) and not Rules.NORMAL.to_move_wins(0)
    assert Rules.MISERE.to_move_wins(0) and not Rules.MISERE.to_move_wins(1)
    assert Rules.NORMAL.mover_wins(4) and not Rules.MISERE.mover_wins(4) and Rules.MISERE.mover_wins(1)
    assert Rules.THREE_PLAYER.mover_wins(3) and not Rules.THREE_PLAYER.mover_wins(2)


def test_words_and_flags() -> None:
    assert Rules.words(players=2) == ["normal", "misere"]
    assert Rules.words(players=3) == ["three-player"]
    assert Rules.of(True) is Rules.MISERE and Rules.of(False) is Rules.NORMAL
    assert Rules("misere").misere and not Rules.NORMAL.misere
    assert f"{Rules.MISERE}" == "misere" and str(Rules.NORMAL) == "normal"
