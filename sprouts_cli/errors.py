"""One error type per kind of bad input, all of them ``ValueError``s that say where.

The command line turns any of these into one red line on stderr and exit code 2.
"""

from __future__ import annotations


class SproutsError(ValueError):
    """Base class: bad input, with a message fit to show a person."""


class NotationError(SproutsError):
    """A position string that cannot be read.

    ``column`` is 1-based and counts characters of the original text (white space
    included), so that a person can find the place.
    """

    def __init__(self, message: str, text: str = "", column: int | None = None) -> None:
        self.message = message
        self.text = text
        self.column = column
        where = f"column {column}: " if column is not None else ""
        super().__init__(f"{where}{message}")


class IllegalMoveError(SproutsError):
    """A move that the rules do not allow in the position it is played in."""


class GameFileError(SproutsError):
    """A saved game (``game.json``) that is malformed or inconsistent."""


class PictureError(SproutsError):
    """A picture that is not a Sprouts drawing (curves that cross or touch, a curve
    through a spot, a fourth curve at a spot), or a position that cannot be drawn."""


class TableError(SproutsError):
    """A table of solved positions (SQLite) or a file to import into it that cannot be used.

    ``line`` is the 1-based line of an imported file, when the fault is on one line.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}{message}")


class LogError(SproutsError):
    """A game log whose line cannot be read or does not replay."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}{message}")


class LimitError(SproutsError):
    """An input larger than a command can handle (``sprouts_cli/limits.py``), refused before any work."""


class OutputError(SproutsError):
    """A file that cannot be written where it was asked for (missing or read-only directory)."""
