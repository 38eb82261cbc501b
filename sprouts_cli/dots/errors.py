"""Bad Dots-and-Boxes input: each error a ``ValueError`` (through ``SproutsError``) saying what and where.

The command line turns them into one red line on stderr and exit code 2, like the
errors of Sprouts (``sprouts_cli/errors.py``).
"""

from __future__ import annotations

from ..errors import IllegalMoveError, LogError, SproutsError


class DotsNotationError(SproutsError):
    """A board, position or move string that cannot be read.

    ``column`` is 1-based and counts characters of the text as given.
    """

    def __init__(self, message: str, text: str = "", column: int | None = None) -> None:
        self.message = message
        self.text = text
        self.column = column
        where = f"column {column}: " if column is not None else ""
        super().__init__(f"{where}{message}")


class DotsMoveError(IllegalMoveError):
    """A line that cannot be drawn in the position (drawn already, or a box must be completed first)."""


class DotsLogError(LogError):
    """A Dots-and-Boxes game log whose line cannot be read or does not replay."""


__all__ = ["DotsLogError", "DotsMoveError", "DotsNotationError", "SproutsError"]
