"""Who moves next and who wins: the rule of a game, in one place.

A game of Sprouts ends when no move is left.  Under the *normal* rule the player
who cannot move loses (so the last mover wins); under the *misère* rule that
player wins.  The *three-player* rule lets
three players move in turn, and the last mover wins.

Everything that decides whose turn it is or who has won (the game, the log, the
computer players) asks a ``Rules`` value; the solvers keep their own ``misere``
flag, which says which table of values (nimbers or misère trees) they compute.
The value of each member is the word the log and the saved games use.
"""

from __future__ import annotations

from enum import Enum


class Rules(str, Enum):
    """The rule a game is played under."""

    NORMAL = "normal"
    MISERE = "misere"
    THREE_PLAYER = "three-player"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @classmethod
    def of(cls, misere: bool) -> Rules:
        """The two-player rule: misère or normal."""
        return cls.MISERE if misere else cls.NORMAL

    @classmethod
    def words(cls, players: int = 2) -> list[str]:
        """The words naming the rules for ``players`` players, as the log writes them."""
        return [r.value for r in cls if r.players == players]

    @property
    def players(self) -> int:
        """How many players take turns."""
        return 3 if self is Rules.THREE_PLAYER else 2

    @property
    def misere(self) -> bool:
        return self is Rules.MISERE

    @property
    def stuck_player_wins(self) -> bool:
        """Does the player who cannot move win (misère) rather than lose?"""
        return self is Rules.MISERE

    def to_move(self, first_to_move: int, moves_made: int) -> int:
        """The player (1, 2, …) whose turn it is after ``moves_made`` moves."""
        return (first_to_move - 1 + moves_made) % self.players + 1

    def winner(self, first_to_move: int, moves_made: int) -> int:
        """The winner of a game over after ``moves_made`` moves: the last mover, or the stuck player."""
        stuck = self.to_move(first_to_move, moves_made)
        if self.stuck_player_wins:
            return stuck
        return self.to_move(first_to_move, moves_made - 1)

    def mover_wins(self, moves_after: int) -> bool:
        """Does the player who just moved win, when ``moves_after`` more moves end the game?

        The game's winner is the last mover (or, under misère, the player after it),
        who is the player who just moved exactly when the moves after it (plus one
        under misère) go round the table a whole number of times.
        """
        extra = 1 if self.stuck_player_wins else 0
        return (moves_after + extra) % self.players == 0

    def to_move_wins(self, moves_left: int) -> bool:
        """Does the player to move win when exactly ``moves_left`` moves (its own first) remain?"""
        return self.mover_wins(moves_left - 1)

    def describe(self) -> str:
        """The rule in a few words for people."""
        return {
            Rules.NORMAL: "normal play (who cannot move loses)",
            Rules.MISERE: "misère play (who cannot move wins)",
            Rules.THREE_PLAYER: "three-player play (the last mover wins)",
        }[self]
