"""Proving again the facts imported from other programs' databases (``sprouts solve --verify-table``).

Imported facts are kept apart from proved ones (``store.py``).  Each is proved here
with a session that does not read imported facts, smallest lands first; a right one
moves over to the proved tables, a wrong one is dropped and reported.  Every move is
committed at once, so an interrupted verification keeps what it checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .session import Session
from .store import MAX_MASK_HEAP, Table


@dataclass
class Checked:
    """One imported fact proved again."""

    rules: str  # "normal" or "misere"
    position: str  # the land (with "+*k" for a win fact)
    imported: str  # what the import said ("nimber 3", "win", "loss")
    proved: str  # what is proved
    right: bool


@dataclass
class VerifyReport:
    right: int = 0
    wrong: list[Checked] = field(default_factory=list)


def _normal_claims(table: Table) -> Iterator[tuple[str, int | None, list[int]]]:
    rows = sorted(table.normal_items(imported=True), key=lambda r: (len(r[0]), r[0]))
    for land, nimber, wins in rows:
        heaps = [k for k in range(MAX_MASK_HEAP + 1) if (wins >> k) & 1]
        yield land, nimber, heaps


def verify_imported(
    table: Table, jobs: int = 1, on_fact: Callable[[Checked], None] | None = None
) -> VerifyReport:
    """Prove every imported fact again; move the right ones to the proved tables, drop the wrong ones."""
    from .misere_trees import TreeStore

    report = VerifyReport()
    table.use_imports = False  # a proof here must not rest on what it checks
    table.flush()

    def done(fact: Checked, key: str, rules: str) -> None:
        table.flush()
        table.forget_imported(rules, key)
        if fact.right:
            report.right += 1
        else:
            report.wrong.append(fact)
        if on_fact is not None:
            on_fact(fact)

    with Session(table, jobs=jobs) as normal:
        for land, nimber, heaps in _normal_claims(table):
            right = True
            said, found = [], []
            if nimber is not None:
                proved = normal.nimber(land)  # proved facts are written to the proved tables
                said.append(f"nimber {nimber}")
                found.append(f"nimber {proved}")
                right = proved == nimber
            for k in heaps:
                win = normal.outcome(f"{land}+*{k}" if k else land)
                if not win:
                    right = False
                    said.append(f"+*{k} a win")
                    found.append(f"+*{k} a loss")
            fact = Checked("normal", land, ", ".join(said) or "wins", ", ".join(found) or "wins", right)
            done(fact, land, "normal")
    trees = TreeStore()
    claims: dict[str, bool] = {}
    for land, text in table.misere_tree_items(imported=True):
        claims[land] = trees.win(trees.from_text(text))
    for land, win in table.misere_outcome_items(imported=True):
        claims.setdefault(land, win)
    with Session(table, jobs=jobs, misere=True) as misere:
        for land in sorted(claims, key=lambda x: (len(x), x)):
            win = misere.outcome(land)
            claimed, solved = ("win" if claims[land] else "loss"), ("win" if win else "loss")
            done(Checked("misere", land, claimed, solved, win == claims[land]), land, "misere")
    return report


__all__ = ["Checked", "VerifyReport", "verify_imported"]
