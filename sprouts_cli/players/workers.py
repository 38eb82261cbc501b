"""Parity search on several processes: the candidates shared out among workers (Alfeld §5.8).

Each worker process keeps its own transposition table, solvers and (with ``--sharp``)
length oracle for the whole game, and searches its share of the root candidates by
iterative deepening until the move's deadline.  The results are merged at the
deepest depth every worker completed; a worker that stopped early because deeper
search could not change its values (a proved win, every value exact, or the depth
asked for) counts at any depth.  Workers share the table of solved positions through
its SQLite file.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from ..engine.position import Position
from ..engine.rules import Rules
from ..procs import pool_initializer
from .parity import ParitySearch, RootResult, SearchResult

#: One completed depth of a worker: the depth, its values and which are exact.
Done = tuple[int, list[float], list[bool]]
#: A worker's answer: every depth it completed, whether it stopped early, the nodes it searched.
Share = tuple[list[Done], bool, int]
#: A worker's task: the rules, its candidates, the wall-clock deadline, the deepest depth, a seed.
Task = tuple[Rules, list[Position], float, int | None, int]


@dataclass
class _Worker:
    """What a worker process keeps for the whole game: its table, sharp flag and one search per rule."""

    table: str | None = None
    sharp: bool = False
    searches: dict[Rules, ParitySearch] = field(default_factory=dict)


_WORKER = _Worker()


def _init(table_path: str | None, sharp: bool) -> None:
    _WORKER.table, _WORKER.sharp = table_path, sharp
    _WORKER.searches.clear()


def _search(rules: Rules) -> ParitySearch:
    s = _WORKER.searches.get(rules)
    if s is None:
        from ..solve.lengths import LengthOracle
        from .parts import Solvers

        table = None
        if _WORKER.table:
            from ..solve.store import Table

            table = Table(_WORKER.table)
        oracle = LengthOracle() if _WORKER.sharp else None
        s = _WORKER.searches[rules] = ParitySearch(rules, Solvers(table).parts(rules), oracle)
    return s


def _search_share(args: Task) -> Share:
    rules, children, wall_deadline, max_depth, seed = args
    search = _search(rules)
    search.rng = random.Random(seed)
    deadline = time.monotonic() + (wall_deadline - time.time())
    nodes0 = search.nodes
    search.deepen(children, deadline, max_depth)
    done = [(r.depth, r.values, r.exact) for r in search.completed]
    return done, search.final, search.nodes - nodes0


def merge(shares: list[list[int]], results: list[Share], n: int) -> RootResult:
    """One root result from the workers' results, at the deepest depth all of them reached."""
    open_depths = [done[-1][0] for done, final, _ in results if not final]
    depth = min(open_depths) if open_depths else max(done[-1][0] for done, _, _ in results)
    values = [0.0] * n
    exact = [False] * n
    nodes = 0
    for share, (done, _, used) in zip(shares, results, strict=True):
        nodes += used
        pick = next((d for d in reversed(done) if d[0] <= depth), done[0])
        for k, i in enumerate(share):
            values[i] = pick[1][k]
            exact[i] = pick[2][k]
    return RootResult(depth, values, exact, nodes)


class ParallelParity:
    """A pool of search workers kept for the whole game."""

    def __init__(self, jobs: int, table_path: str | None, sharp: bool) -> None:
        self.jobs = jobs
        self._pool = ProcessPoolExecutor(
            max_workers=jobs, initializer=pool_initializer, initargs=(os.getpid(), _init, table_path, sharp)
        )

    def deepen(
        self,
        children: list[Position],
        rules: Rules,
        deadline: float,
        max_depth: int | None,
        rng: random.Random,
    ) -> SearchResult:
        """Search the children on the workers until ``deadline`` (a ``time.monotonic()`` value)."""
        k = min(self.jobs, len(children))
        shares = [list(range(i, len(children), k)) for i in range(k)]
        wall = time.time() + (deadline - time.monotonic())
        tasks: list[Task] = [
            (rules, [children[i] for i in share], wall, max_depth, rng.getrandbits(31)) for share in shares
        ]
        results = list(self._pool.map(_search_share, tasks))
        merged = merge(shares, results, len(children))
        return SearchResult(merged, merged.nodes)

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)
