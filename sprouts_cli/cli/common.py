"""What every subcommand shares: reading inputs, reporting bad ones, printing JSON."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import click
from rich.console import Console

from ..errors import SproutsError

#: People read stdout through rich; data lines are printed without markup.
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


@dataclass
class Item:
    """One input: its text and where it came from (argument, or line of stdin)."""

    text: str
    line: int | None  # 1-based line number when read from stdin

    @property
    def where(self) -> str:
        return f"line {self.line}" if self.line is not None else repr(self.text)


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


class Reporter:
    """Counts bad inputs and prints each as one red line on stderr."""

    def __init__(self) -> None:
        self.failures = 0

    def bad(self, item: Item | None, error: Exception) -> None:
        self.failures += 1
        where = f"{item.where}: " if item is not None else ""
        err.print(f"[red]error:[/red] {where}{_escape(str(error))}")

    def exit(self) -> None:
        """Exit with code 2 if any input was bad (after all the good ones were done)."""
        if self.failures:
            raise SystemExit(2)


def fail(message: str) -> None:
    """Print one red line and exit with code 2."""
    err.print(f"[red]error:[/red] {_escape(message)}")
    raise SystemExit(2)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def print_json(obj: object) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False))


def print_data(text: str) -> None:
    """A data line for people and pipes alike: no markup, no wrapping."""
    click.echo(text)


__all__ = ["Item", "Reporter", "SproutsError", "err", "fail", "out", "print_data", "print_json", "read_items"]
