"""What every subcommand shares: reading inputs, reporting bad ones, printing JSON."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, cast

import click

from ..errors import GameFileError, SproutsError

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..engine import Position
    from ..picture.model import Picture


#: The environment variables by which rich may call a stream that is not a tty a terminal.
_TERMINAL_SETTINGS = {"TTY_COMPATIBLE", "FORCE_COLOR", "FORCE_TERMINAL"}


class LazyConsole:
    """A rich ``Console`` made on first use: a command that prints only data lines
    (``print_data``, ``print_json``: click's ``echo``) never imports rich."""

    def __init__(self, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    @property
    def console(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr, highlight=False, soft_wrap=True)
        return self._console

    @property
    def is_terminal(self) -> bool:
        """rich's answer, without making the console for a plain pipe or file: rich says
        no to a stream that is not a tty unless an environment variable says otherwise."""
        if self._console is None and not _TERMINAL_SETTINGS & os.environ.keys():
            stream = sys.stderr if self._stderr else sys.stdout
            try:
                if stream is None or not stream.isatty():
                    return False
            except ValueError:  # a closed stream
                return False
        return self.console.is_terminal

    def __getattr__(self, name: str) -> Any:
        # only names that are not the proxy's own come here: the console's methods and properties
        return getattr(self.console, name)


#: People read stdout and stderr through rich; data lines are printed without markup.  To
#: the type checker each is the ``Console`` it stands for.
out = cast("Console", LazyConsole())
err = cast("Console", LazyConsole(stderr=True))


@dataclass
class Item:
    """One input: its text and where it came from (argument, or line of stdin)."""

    text: str
    line: int | None  # 1-based line number when read from stdin

    @property
    def where(self) -> str:
        if self.line is not None:
            return f"line {self.line}"
        return repr(self.text) if names_a_file(self.text) else quote(self.text)


#: Error messages quote at most this many characters of an input.
QUOTE_CHARS = 60


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` quoted for an error message, cut to about ``limit`` characters."""
    if len(text) <= limit:
        return repr(text)
    return repr(text[: limit - 1]) + f"… ({len(text):,} characters)"


def read_items(args: tuple[str, ...]) -> Iterator[Item]:
    """The arguments, with ``-`` standing for one input per non-blank line of stdin."""
    for arg in args:
        if arg == "-":
            for number, line in enumerate(sys.stdin, start=1):
                text = line.strip()
                if text and not text.startswith("#"):
                    yield Item(text, number)
        else:
            yield Item(arg, None)


def names_a_file(text: str) -> bool:
    """Whether an argument is a file name rather than a position string.

    Position strings never hold ``/`` and never end in ``.json``, so a mistyped file
    name (``gmae.json``) is reported as a missing file, not as bad notation.
    """
    return text.lower().endswith(".json") or "/" in text or os.sep in text


def read_position(text: str, command: str) -> Position:
    """A position string, or the position of a saved game when ``text`` names a file,
    refused with one line when it is beyond what ``command`` can do (``limits.py``)."""
    from ..engine import Position
    from ..limits import check_limits

    if names_a_file(text):
        picture = read_game(text)
        from ..errors import PictureError
        from ..picture import analyse

        try:
            p = analyse(picture)
        except PictureError as e:
            raise GameFileError(f"{text}: {e}") from None
        check_limits(p, command)
        return p
    p = Position.from_string(text)  # the engine refuses strings no drawing has (``engine/drawing.py``)
    check_limits(p, command)
    return p


def read_game(text: str) -> Picture:
    """The picture of a saved game, its file checked (exists, size, spots) before the
    picture layer is even imported, so that a file beyond the limits is refused at once."""
    from pathlib import Path

    from ..files import read_json_file
    from ..limits import check_game_spots

    if not text.lower().endswith(".json"):
        raise GameFileError(f"{text}: a saved game is a .json file")
    obj = read_json_file(Path(text))
    game = obj.get("game") if isinstance(obj, dict) else None
    if isinstance(game, dict):
        for key in ("spots", "edges"):
            if isinstance(game.get(key), list):
                check_game_spots(len(game[key]) // (2 if key == "edges" else 1), text)
    from ..picture.gamefile import game_from_json

    return game_from_json(obj, where=text)


def where_and_what(source: str, error: Exception) -> str:
    """``source: error``, naming ``source`` once even when the error already names it."""
    message = str(error)
    from ..errors import OutputError

    if isinstance(error, OutputError) or message.startswith(f"{source}:"):
        return message
    shown = quote(source) if len(source) > QUOTE_CHARS and not names_a_file(source) else source
    return f"{shown}: {message}"


class Reporter:
    """Counts bad inputs and reports each: one red line on stderr, and with ``as_json``
    also one JSON line on stdout in the input's place (``{"input", "error"}``, plus
    ``"line"`` for a line of stdin), so that a pipeline gets one object per input, in
    input order, and can join them on ``"input"``."""

    def __init__(self, as_json: bool = False) -> None:
        self.failures = 0
        self.as_json = as_json

    def bad(self, item: Item | None, error: Exception, json_for: Item | None = None) -> None:
        """Report one bad input; ``json_for`` is the input a JSON line names when ``item``
        is None (the error already names it)."""
        self.failures += 1
        where = f"{item.where}: " if item is not None else ""
        if item is not None and item.line is None and str(error).startswith(f"{item.text}:"):
            where = ""  # a file's errors name the file already
        err.print(f"[red]error:[/red] {where}{_escape(str(error))}")
        source = item if item is not None else json_for
        if self.as_json and source is not None:
            obj: dict[str, object] = {"input": source.text, "error": str(error)}
            if source.line is not None:
                obj["line"] = source.line
            print_json(obj)

    def exit(self) -> None:
        """Exit with code 2 if any input was bad (after all the good ones were done)."""
        if self.failures:
            raise SystemExit(2)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one red line and exit with ``code`` (2: bad input)."""
    err.print(f"[red]error:[/red] {_escape(message)}")
    raise SystemExit(code)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def print_json(obj: object) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False))


def print_data(text: str) -> None:
    """A data line for people and pipes alike: no markup, no wrapping."""
    click.echo(text)


__all__ = [
    "QUOTE_CHARS",
    "Item",
    "LazyConsole",
    "Reporter",
    "SproutsError",
    "err",
    "fail",
    "names_a_file",
    "out",
    "print_data",
    "print_json",
    "quote",
    "read_items",
    "read_position",
    "where_and_what",
]
