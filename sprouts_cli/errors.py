"""Every error type of the package, in one place.

Bad input has one type per kind, all of them ``ValueError``s (``SproutsError``) that
say where; the command line turns any of these into one red line on stderr and exit
code 2.  Below them: a land that no drawing has (``NestingError``), a worker process
that failed, and the ways a search stops before its answer (``SolveAborted``:
``OutOfTime``, ``SolveInterrupted``).
"""

from __future__ import annotations

from typing import Any


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

    #: The curves at fault (their indices), when the check that failed knows them.
    curves: tuple[int, ...] | None = None


class GivenUp(PictureError):
    """Picture work given up by whoever waits for it: a Z layout running far past the others."""


class NoRoom(PictureError):
    """A move the router cannot draw here, with the room the widest way has (for the ladder)."""

    def __init__(
        self, message: str, widest: float = 0.0, needed: float = 0.0, ghost: Any = None, planned: Any = None
    ):
        super().__init__(message)
        self.widest = widest
        self.needed = needed
        self.ghost = ghost  # the widest way as world points, a numpy array (for pushing curves apart)
        self.planned = planned  # the router's plan, route and widest way (``router.Planned``), to reuse
        #: the route was drawn but read back as another position (its sides, not its room, were wrong)
        self.other_position = False


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


class DotsNotationError(NotationError):
    """A Dots-and-Boxes board, position or move string that cannot be read (``column`` as above)."""


class DotsMoveError(IllegalMoveError):
    """A Dots-and-Boxes line that cannot be drawn in the position (drawn already, or a box
    must be completed first)."""


class DotsLogError(LogError):
    """A Dots-and-Boxes game log whose line cannot be read or does not replay."""


class LimitError(SproutsError):
    """An input larger than a command can handle (``sprouts_cli/limits.py``), refused before any work."""


class OutputError(SproutsError):
    """A file that cannot be written where it was asked for (missing or read-only directory)."""


class NetError(SproutsError):
    """Network play cannot go on: a bad room code, a peer that speaks another protocol, a lost peer."""


class ClusterError(SproutsError):
    """The cluster cannot be used (Ray missing, no cluster at the address, a failed job)."""


class PlayError(SproutsError):
    """A game that cannot go on: a move that cannot be drawn, a position that cannot be played."""


class MisereTreeError(SproutsError):
    """A misère tree written in text (a table entry) that cannot be read."""


class NestingError(ValueError):
    """The regions and pieces of a land do not form a tree: no drawing has it."""


class WorkerError(RuntimeError):
    """A worker process died or failed (the message says which and why)."""


# ------------------------------------------------------------- searches that stop
# Not bad input: a search that stops before its answer keeps everything it proved.


class SolveAborted(Exception):
    """The search stopped before the answer; everything proved so far is kept."""


class OutOfTime(SolveAborted, TimeoutError):
    """The search reached its deadline (``solve.clock.Deadline``).

    A search that knows what it proved says it: ``bounds`` (the value lies between
    them; the Dots-and-Boxes solver), ``nodes`` searched and ``seconds`` spent.
    """

    def __init__(
        self,
        message: str = "",
        bounds: tuple[int, int] | None = None,
        nodes: int = 0,
        seconds: float = 0.0,
    ) -> None:
        super().__init__(message)
        self.bounds = bounds
        self.nodes = nodes
        self.seconds = seconds


class SolveInterrupted(SolveAborted):
    """Someone asked the search to stop (Ctrl-C, or another worker found the answer)."""
