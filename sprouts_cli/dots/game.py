"""A game of Dots-and-Boxes in progress: the position, whose turn, the score, who drew what."""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import Board, DotsPosition

#: Berlekamp's names for the two players, used as the initials in pictures.
INITIALS = {1: "A", 2: "B"}


@dataclass
class DotsGame:
    """Two players (1 and 2) drawing lines; completing a box scores it and gives another move."""

    position: DotsPosition
    must_complete: bool = False
    to_move: int = 1
    score: dict[int, int] = field(default_factory=lambda: {1: 0, 2: 0})
    box_owner: dict[int, int] = field(default_factory=dict)
    line_owner: dict[int, int] = field(default_factory=dict)
    moves: list[int] = field(default_factory=list)

    @classmethod
    def start(cls, board: Board | DotsPosition, must_complete: bool = False) -> DotsGame:
        position = board if isinstance(board, DotsPosition) else DotsPosition(board)
        return cls(position, must_complete)

    @property
    def board(self) -> Board:
        return self.position.board

    @property
    def finished(self) -> bool:
        return self.position.finished

    def legal_lines(self) -> list[int]:
        return self.position.legal_lines(self.must_complete)

    def play(self, line: int) -> int:
        """Draw ``line`` for the player to move; returns the boxes it completed (0 passes the turn)."""
        before = set(self.position.taken())
        self.position, gained = self.position.play(line, self.must_complete)
        player = self.to_move
        self.line_owner[line] = player
        for box in set(self.position.taken()) - before:
            self.box_owner[box] = player
        self.score[player] += gained
        self.moves.append(line)
        if not gained:
            self.to_move = 3 - player
        return gained

    def winner(self) -> int | None:
        """1 or 2 for the player with more boxes at the end, None for a tie (or an unfinished game)."""
        if not self.finished or self.score[1] == self.score[2]:
            return None
        return 1 if self.score[1] > self.score[2] else 2

    def score_text(self) -> str:
        return f"{self.score[1]}-{self.score[2]}"

    def text(self) -> str:
        owners = {box: INITIALS[p] for box, p in self.box_owner.items()}
        return self.position.text(owners)
