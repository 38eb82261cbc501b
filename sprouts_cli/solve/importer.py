"""Reading databases of solved positions written by GLOP and SPOTS into our table.

Two formats are read (plain or gzipped):

* GLOP/SPOTS nimber databases: a ``[Positions+Nimber]`` header, then one
  ``position nimber`` per line (the position in either dialect);
* lists of outcomes with a heap, ``POSITION!k<TAB>r`` per line (``r`` = 1 when
  "POSITION + *k" is a win for the player to move), like the GLOP 1 oracle file.

Each position is read with our own notation reader and keyed by our own reduced form
(``engine/reduce.py``), so the facts land under the keys our solver asks for.  A
position of several lands teaches the nimber of one land only when the table already
knows all the others (the lines are read in order, so small lands listed first help);
otherwise it is skipped.  A fact that contradicts the table is a conflict: it is not
written, and it is reported with its line.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import reduce
from operator import xor
from pathlib import Path

from ..engine.position import Position
from ..engine.reduce import reduced_lands
from ..errors import SproutsError, TableError
from .store import Table

NIMBER_HEADER = "[Positions+Nimber]"


@dataclass
class ImportReport:
    """What an import did: facts written, entries skipped, conflicts (line, message)."""

    path: str
    lines: int = 0
    nimbers: int = 0
    wins: int = 0
    already_known: int = 0
    skipped: int = 0
    conflicts: list[tuple[int, str]] = field(default_factory=list)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
            for number, line in enumerate(f, start=1):
                yield number, line.rstrip("\n")
    except (OSError, UnicodeDecodeError, EOFError) as e:
        raise TableError(f"{path}: cannot read ({e})") from e


def import_file(
    path: str | os.PathLike[str], table: Table, progress: Callable[[ImportReport], None] | None = None
) -> ImportReport:
    """Import one database file into ``table``; bad lines raise ``TableError`` with their number."""
    path = Path(path)
    report = ImportReport(str(path))
    learner = _Learner(table, report)
    mode: str | None = None
    for number, line in _lines(path):
        report.lines = number
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("["):
            if text != NIMBER_HEADER:
                raise TableError(f"{path}: unknown section {text!r} (expected {NIMBER_HEADER})", number)
            mode = "nimber"
            continue
        if mode is None:
            mode = "heap" if "\t" in text else None
        if mode is None:
            raise TableError(f"{path}: expected a {NIMBER_HEADER} header or POSITION!k<TAB>r lines", number)
        try:
            if mode == "nimber":
                position, value = _split_last(text, number)
                learner.learn(number, Position.from_string(position), 0, nimber=value)
            else:
                position, value = _split_last(text, number)
                body, bang, heap = position.rpartition("!")
                if not bang or not heap.isdigit() or value not in (0, 1):
                    raise TableError(f"expected POSITION!k<TAB>r with r 0 or 1, got {text!r}", number)
                learner.learn(number, Position.from_string(body + "!"), int(heap), win=bool(value))
        except TableError:
            raise
        except SproutsError as e:
            raise TableError(f"{path}: {e}", number) from e
        if progress is not None and number % 1000 == 0:
            progress(report)
    table.flush()
    return report


def _split_last(text: str, number: int) -> tuple[str, int]:
    parts = text.split()
    if len(parts) != 2 or not parts[1].isdigit():
        raise TableError(f"expected a position and a number, got {text!r}", number)
    return parts[0], int(parts[1])


class _Learner:
    """Turns "position (+ *heap) has nimber n / is a win or a loss" into facts about one land."""

    def __init__(self, table: Table, report: ImportReport) -> None:
        self.table = table
        self.report = report

    def learn(
        self, number: int, p: Position, heap: int, nimber: int | None = None, win: bool | None = None
    ) -> None:
        heap ^= reduce(xor, p.heaps, 0)
        unknown: list[str] = []
        for land in reduced_lands(p):
            known = self.table.get_nimber(land)
            if known is None:
                unknown.append(land)
            else:
                heap ^= known
        if nimber is not None:
            self._nimber_fact(number, unknown, nimber ^ heap)
        elif win is False:
            self._nimber_fact(number, unknown, heap)
        else:
            self._win_fact(number, unknown, heap)

    def _nimber_fact(self, number: int, unknown: list[str], value: int) -> None:
        """The lands in ``unknown`` have nimbers xoring to ``value``."""
        if not unknown:
            if value != 0:
                self.report.conflicts.append((number, "the table gives another nimber for this position"))
            else:
                self.report.already_known += 1
            return
        if len(unknown) > 1:
            self.report.skipped += 1
            return
        land = unknown[0]
        hit = self.table.get_normal(land)
        if hit is not None and (hit[1] >> value) & 1:
            self.report.conflicts.append((number, f"the table says {land} + *{value} is a win"))
            return
        self.table.put_nimber(land, value)
        self.report.nimbers += 1

    def _win_fact(self, number: int, unknown: list[str], heap: int) -> None:
        """The lands in ``unknown`` plus ``*heap`` are a win (their nimbers do not xor to ``heap``)."""
        if not unknown:
            if heap == 0:
                self.report.conflicts.append((number, "the table says this position is a loss"))
            else:
                self.report.already_known += 1
            return
        if len(unknown) > 1:
            self.report.skipped += 1
            return
        self.table.put_win(unknown[0], heap)
        self.report.wins += 1


__all__ = ["NIMBER_HEADER", "ImportReport", "import_file"]
