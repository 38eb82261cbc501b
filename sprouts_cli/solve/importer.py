"""Reading databases of solved positions written by GLOP and SPOTS into our table.

These formats are read (plain or gzipped):

* GLOP/SPOTS nimber databases: a ``[Positions+Nimber]`` header, then one
  ``position nimber`` per line (the position in either dialect);
* GLOP/SPOTS misère databases: a ``[WinLoss_Misere:Losing_Position]`` header, then
  one position per line, each a misère loss for the player to move;
* lists of outcomes with a heap, ``POSITION!k<TAB>r`` per line (``r`` = 1 when
  "POSITION + *k" is a win for the player to move), like the GLOP 1 oracle file;
* the CSV that ``sprouts solve --export FILE.csv`` writes (``exporter.py``).

Each position is read with our own notation reader and keyed by our own reduced form
(``engine/reduce.py``), so the facts land under the keys our solver asks for.  A
position of several lands teaches the nimber of one land only when the table already
knows all the others (the lines are read in order, so small lands listed first help);
otherwise it is skipped.  A misère loss is kept for a position of one land and no
heap (the key the misère solver asks for); other misère lines are skipped.  A fact
that contradicts the table is a conflict: it is not written, and it is reported with
its line.
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
MISERE_HEADER = "[WinLoss_Misere:Losing_Position]"
#: The first line of the CSV that ``--export FILE.csv`` writes.
CSV_HEADER = "position,rules,nimber,outcome,how"


@dataclass
class ImportReport:
    """What an import did: facts written, entries skipped, conflicts (line, message)."""

    path: str
    lines: int = 0
    nimbers: int = 0
    wins: int = 0
    misere_losses: int = 0
    misere_wins: int = 0
    already_known: int = 0
    skipped: int = 0
    conflicts: list[tuple[int, str]] = field(default_factory=list)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
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
            if text not in (NIMBER_HEADER, MISERE_HEADER):
                raise TableError(
                    f"{path}: unknown section {text!r} (expected {NIMBER_HEADER} or {MISERE_HEADER})", number
                )
            mode = "nimber" if text == NIMBER_HEADER else "misere"
            continue
        if mode is None and text.replace(" ", "") == CSV_HEADER:
            mode = "csv"
            continue
        if mode is None:
            mode = "heap" if "\t" in text else None
        if mode is None:
            raise TableError(
                f"{path}: expected a {NIMBER_HEADER} or {MISERE_HEADER} header, "
                "POSITION!k<TAB>r lines, or our CSV",
                number,
            )
        try:
            if mode == "misere":
                learner.learn_misere(number, Position.from_string(text), win=False)
            elif mode == "csv":
                _learn_csv_row(learner, number, text)
            elif mode == "nimber":
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


def _learn_csv_row(learner: _Learner, number: int, text: str) -> None:
    """One row of our CSV: ``position, rules, nimber, outcome, how``."""
    import csv

    row = next(csv.reader([text]))
    if len(row) != 5 or row[1] not in ("normal", "misere") or row[3] not in ("win", "loss"):
        raise TableError(
            f"expected position,rules,nimber,outcome,how with rules normal or misere, got {text!r}", number
        )
    position, rules, nimber, outcome, _how = row
    p = Position.from_string(position)
    win = outcome == "win"
    if rules == "misere":
        learner.learn_misere(number, p, win=win)
    elif nimber:
        if not nimber.isdigit() or (int(nimber) != 0) != win:
            raise TableError(f"a nimber {nimber!r} that does not fit the outcome {outcome!r}", number)
        learner.learn(number, p, 0, nimber=int(nimber))
    else:
        learner.learn(number, p, 0, win=win)


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

    def learn_misere(self, number: int, p: Position, win: bool) -> None:
        """The misère outcome of a position: kept when it is one land with no heap."""
        lands = reduced_lands(p)
        if not lands and not p.heaps:  # no move left: the player to move wins in misère play
            if not win:
                self.report.conflicts.append((number, "a position with no move left is a misère win"))
            else:
                self.report.already_known += 1
            return
        if len(lands) != 1 or p.heaps:
            self.report.skipped += 1
            return
        (land,) = lands
        known = self.table.get_misere_outcome(land)
        if known is None:
            tree = self.table.get_misere(land)
            if tree is not None:
                from .misere_trees import TreeStore

                store = TreeStore()
                known = store.win(store.from_text(tree))
        if known is not None:
            if known != win:
                said = "win" if known else "loss"
                self.report.conflicts.append((number, f"the table says {land} is a misère {said}"))
            else:
                self.report.already_known += 1
            return
        self.table.put_misere_outcome(land, win)
        if win:
            self.report.misere_wins += 1
        else:
            self.report.misere_losses += 1

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
        hit = self.table.get_normal(unknown[0])
        if hit is not None and (hit[1] >> heap) & 1:
            self.report.already_known += 1
            return
        self.table.put_win(unknown[0], heap)
        self.report.wins += 1


__all__ = ["CSV_HEADER", "MISERE_HEADER", "NIMBER_HEADER", "ImportReport", "import_file"]
