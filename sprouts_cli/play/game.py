"""One game: the positions played so far, who moved, and who wins (the rules: ``engine/rules.py``).

Positions keep their spots' numbers (the k-th move adds the next spot), so every
move can be named in words.  In normal play the player who cannot move loses; in
misère play that player wins.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.moves import Move, apply_move
from ..engine.naming import NamedMove, describe_effect, distinct_named_moves, move_words
from ..engine.position import Position
from ..engine.rules import Rules
from ..errors import PlayError
from ..log import bounds_of, keeps_everything


@dataclass
class Played:
    """One move of the game: who made it, in words, and the position after it."""

    player: int
    by: str
    move: Move
    words: str
    effect: str
    after: Position


@dataclass
class Game:
    """A game from ``start``; ``first_to_move`` is the player (1 or 2) who moves from it."""

    start: Position
    rules: Rules = Rules.NORMAL
    first_to_move: int = 1
    played: list[Played] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.start.heaps:
            raise PlayError("a game is played on a drawing, and nim heaps (+*k) cannot be drawn")
        self.complete = keeps_everything(self.start)

    # ------------------------------------------------------------- state
    @property
    def position(self) -> Position:
        return self.played[-1].after if self.played else self.start

    @property
    def moves_made(self) -> int:
        return len(self.played)

    @property
    def to_move(self) -> int:
        """The player (1 or 2) whose turn it is."""
        return self.rules.to_move(self.first_to_move, self.moves_made)

    def is_over(self) -> bool:
        return self.position.is_over()

    def winner(self) -> int | None:
        """The winner once no move is left (``Rules.winner``)."""
        if not self.is_over():
            return None
        return self.rules.winner(self.first_to_move, self.moves_made)

    def bounds(self) -> tuple[int, int]:
        """Upper and lower bounds on the moves left."""
        return bounds_of(self.position, self.complete)

    def named_moves(self) -> list[NamedMove]:
        """The distinct legal moves of the position, named in words."""
        return distinct_named_moves(self.position)

    # ------------------------------------------------------------- changes
    def play(self, move: Move, by: str, words: str | None = None) -> Played:
        """Play ``move`` (checked) for the player to move."""
        before = self.position
        after = apply_move(before, move)
        text = words if words is not None else move_words(before, move, after.canonical())
        step = Played(self.to_move, by, move, text, describe_effect(before, move), after)
        self.played.append(step)
        return step

    def undo(self) -> Played:
        if not self.played:
            raise PlayError("there is no move to take back")
        return self.played.pop()
