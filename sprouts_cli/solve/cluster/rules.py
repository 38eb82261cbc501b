"""The games the driver's tree is of: normal play (lands and a heap) and misère play (positions)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ...engine.position import Position
from ..jobs import Fact, Job
from ..misere import MisereSolver, State
from ..nimbers import Lands, NormalSearch, land_lives

#: A normal-play node: one land and a heap, or a sum of lands and a heap.
NormalNode = tuple["str | Lands", int]


class MisereFacts(Protocol):
    """Where misère facts merged by the driver go (the session's ``store.Table``)."""

    def get_misere(self, land: str) -> str | None: ...

    def put_misere(self, land: str, text: str) -> None: ...

    def get_misere_outcome(self, key: str) -> bool | None: ...

    def put_misere_outcome(self, key: str, win: bool) -> None: ...


class NormalRules:
    """Normal play nodes: ``(land, k)`` for one land and a heap, ``(lands, k)`` for a sum."""

    def __init__(self, solver: NormalSearch) -> None:
        self.solver = solver

    def settled(self, node: NormalNode) -> bool | None:
        what, k = node
        r = self.solver.node_of((what,) if isinstance(what, str) else what, k)
        return r if isinstance(r, bool) else None

    def children(self, node: NormalNode) -> list[NormalNode | bool] | None:
        what, k = node
        if not isinstance(what, str):
            return None  # a sum goes out whole (its smaller lands' nimbers come first)
        s = self.solver
        kids = [s.node_of(c, k) for c in s.children_of(what)]
        kids += [s.node_of((what,), j) for j in range(k)]
        return list(dict.fromkeys(kids))

    def expandable(self, node: NormalNode) -> bool:
        return isinstance(node[0], str)

    def job(self, node: NormalNode) -> Job:
        what, k = node
        return ("normal", (what,) if isinstance(what, str) else tuple(what), k)

    def lives(self, node: NormalNode) -> int:
        what, _ = node
        if isinstance(what, str):
            return land_lives(what)
        return sum(land_lives(x) for x in what)

    def record(self, node: NormalNode, win: bool) -> None:
        what, k = node
        if isinstance(what, str):
            if win:
                self.solver.record_win(what, k)
            else:
                self.solver.record_nimber(what, k)

    def merge(self, fact: Fact) -> bool:
        kind, land, value = fact
        s = self.solver
        nimber, wins = s.remembered(land)
        if kind == "nimber":
            if nimber is None:
                s.record_nimber(land, value)
                return True
        elif kind == "win" and nimber is None and not (wins >> value) & 1:
            s.record_win(land, value)
            return True
        return False


class MisereRules:
    """Misère play nodes: positions by exact canonical form (trees travel by id and text)."""

    def __init__(self, solver: MisereSolver, table: MisereFacts | None) -> None:
        self.solver = solver
        self.table = table
        self._states: dict[str, State] = {}

    def _state(self, node: str) -> State:
        st = self._states.get(node)
        if st is None:
            from ...engine.reduce import reduced_lands

            p = Position.from_string(node)
            st = self._states[node] = self.solver._state(tuple(reduced_lands(p)), (), p.heaps)
        return st

    def settled(self, node: str) -> bool | None:
        return self.solver._known(self._state(node))

    def children(self, node: str) -> Sequence[str]:
        return sorted(set(Position.from_string(node).children()))

    def expandable(self, node: str) -> bool:
        return True

    def job(self, node: str) -> Job:
        return ("misere", node)

    def lives(self, node: str) -> int:
        return Position.from_string(node).total_lives

    def record(self, node: str, win: bool) -> None:
        self.solver._proved(self._state(node), win)

    def merge(self, fact: Fact) -> bool:
        kind, key, value = fact
        if self.table is None:
            return False
        if kind == "tree":
            if self.table.get_misere(key) is None:
                self.table.put_misere(key, value)
                return True
        elif kind == "misere" and self.table.get_misere_outcome(key) is None:
            self.table.put_misere_outcome(key, value)
            return True
        return False
