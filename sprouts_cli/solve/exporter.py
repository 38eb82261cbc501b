"""Writing the table of solved positions for other programs: GLOP/SPOTS databases and CSV.

* ``.spr``, normal play: the nimber database GLOP and SPOTS read, a
  ``[Positions+Nimber]`` header and then one ``land nimber`` line per land whose
  nimber is known;
* ``.spr``, misère play: ``[WinLoss_Misere:Losing_Position]`` and one land per line,
  each a misère loss for the player to move (as GLOP keeps its misère databases:
  a land not listed is not known to be a loss);
* ``.csv``: every fact, of both rules, one per row: ``position, rules, nimber,
  outcome, how`` (``how``: how the table came to know it).

Positions are our reduced forms, written in the SPOTS / GLOP 2 dialect
(``docs/notation.md``); a reduced form has the value of every position it names,
so each line is a true statement that ``sprouts solve --import`` reads back into
the same facts.  Lines are sorted, so the same table gives the same file, and the
file is written to a temporary file and renamed.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import SproutsError
from .store import MAX_MASK_HEAP, Table

NIMBER_HEADER = "[Positions+Nimber]"
MISERE_HEADER = "[WinLoss_Misere:Losing_Position]"
CSV_COLUMNS = ("position", "rules", "nimber", "outcome", "how")
FORMATS = (".spr", ".csv")


@dataclass(frozen=True)
class Fact:
    """One row of the CSV: ``position`` (+ ``*k``) has this nimber, or this outcome."""

    position: str
    rules: str  # "normal" or "misere"
    nimber: int | None
    win: bool
    how: str

    def row(self) -> tuple[str, str, str, str, str]:
        nimber = "" if self.nimber is None else str(self.nimber)
        return (self.position, self.rules, nimber, "win" if self.win else "loss", self.how)


def normal_facts(table: Table) -> Iterator[Fact]:
    """Nimbers of lands, and "land + *k is a win" for lands whose nimber is not known.

    Facts proved here come first ("proved"), then those imported and not proved here
    ("imported", kept apart in the table: ``store.py``).
    """
    proved: set[str] = set()
    for imported in (False, True):
        how = "imported" if imported else "proved"
        for land, nimber, wins in table.normal_items(imported=imported):
            if imported and land in proved:
                continue
            proved.add(land)
            if nimber is not None:
                yield Fact(land, "normal", nimber, nimber != 0, how)
                continue
            for k in range(MAX_MASK_HEAP + 1):
                if (wins >> k) & 1:
                    yield Fact(f"{land}+*{k}" if k else land, "normal", None, True, how)


def misere_facts(table: Table) -> Iterator[Fact]:
    """The misère outcome of each land the table knows, from its tree or its searched outcome."""
    from .misere_trees import TreeStore

    trees = TreeStore()
    outcomes: dict[str, tuple[bool, str]] = {}
    for imported in (False, True):
        how = "imported" if imported else "proved"
        for land, text in table.misere_tree_items(imported=imported):
            outcomes.setdefault(land, (trees.win(trees.from_text(text)), how))
        for land, win in table.misere_outcome_items(imported=imported):
            outcomes.setdefault(land, (win, how))
    for land in sorted(outcomes):
        yield Fact(land, "misere", None, outcomes[land][0], outcomes[land][1])


def export_text(table: Table, fmt: str, misere: bool = False) -> tuple[str, int]:
    """The file's text for ``fmt`` (``.spr`` or ``.csv``) and how many facts it holds."""
    table.flush()
    if fmt == ".csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        facts = [*normal_facts(table), *misere_facts(table)]
        writer.writerows(f.row() for f in facts)
        return buf.getvalue(), len(facts)
    if fmt != ".spr":
        raise SproutsError(f"cannot export to {fmt!r}: the file name should end in .spr or .csv")
    if misere:
        lines = [f.position for f in misere_facts(table) if not f.win]
        return "\n".join([MISERE_HEADER, *lines]) + "\n", len(lines)
    lines = [f"{f.position} {f.nimber}" for f in normal_facts(table) if f.nimber is not None]
    return "\n".join([NIMBER_HEADER, *lines]) + "\n", len(lines)


def export_file(table: Table, path: str | os.PathLike[str], misere: bool = False) -> int:
    """Write the table to ``path`` (the format by its extension); the number of facts written."""
    fmt = Path(path).suffix.lower()
    text, count = export_text(table, fmt, misere)
    _write_atomic(Path(path), text)
    return count


def _write_atomic(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path`` and rename it (never a half-written file)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError as e:
        partial.unlink(missing_ok=True)
        raise SproutsError(f"{path}: cannot write ({e.strerror or e})") from None


__all__ = ["CSV_COLUMNS", "FORMATS", "MISERE_HEADER", "NIMBER_HEADER", "Fact", "export_file", "export_text"]
