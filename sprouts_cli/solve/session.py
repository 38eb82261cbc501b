"""One solving session: the table, the solvers and the worker processes, behind three questions.

``Session.outcome``, ``Session.nimber`` and ``Session.child_outcomes`` answer for any
position in normal or misère play.  In normal play on the compiled core, ``jobs``
threads run one search in this process, sharing its transposition table and facts
(``compiled.CompiledNormalSolver``).  Otherwise (misère play, the plain-Python
reference) small positions are solved in this process, and a large one is split at the
root (``workers.py``): its children are solved side by side on ``jobs`` worker processes
that share the table.  The answers do not depend on ``jobs``.

With no table (``--no-db``) the workers still need somewhere to share what they
prove: a temporary table is used and removed at the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.position import Position
from .compiled import CompiledNormalSolver
from .nimbers import land_lives, position_parts
from .search import normal_solver
from .store import Table

if TYPE_CHECKING:  # pragma: no cover
    from .cluster import ClusterBackend
    from .misere import MisereSolver
from .workers import PoolStats, Question, WorkerPool

#: Roots with fewer lives than this are solved in the main process (workers cost ~1 s to start).
PARALLEL_LIVES = 24


@dataclass
class Counters:
    """What a session reports: facts proved and table hits, in this process and the workers."""

    positions_solved: int = 0
    table_hits: int = 0
    imported_used: int = 0  # lookups answered by imported facts (not proved here)
    #: on a cluster (``--cluster``): jobs handed out and answered, facts merged, workers alive
    jobs_out: int = 0
    jobs_done: int = 0
    facts_merged: int = 0
    workers_alive: int = 0
    #: search nodes visited (df-pn's calls, as SPOTS counts its nodes), here and in the workers
    nodes: int = 0


class Session:
    """Solve positions in normal or misère play, with a table and ``jobs`` worker processes."""

    def __init__(
        self,
        table: Table | None,
        jobs: int = 1,
        misere: bool = False,
        progress: Callable[[Counters], None] | None = None,
        parallel_lives: int = PARALLEL_LIVES,
        cluster: ClusterBackend | None = None,
        threads: bool | None = None,
    ) -> None:
        self.table = table
        self.jobs = max(1, jobs)
        self.cluster = cluster
        self.misere = misere
        self.progress = progress
        self.parallel_lives = parallel_lives
        self.normal = normal_solver(
            table, progress=lambda _: self._report(), refresh_seconds=None, threads=self.jobs
        )
        compiled = isinstance(self.normal, CompiledNormalSolver)
        #: Normal play's ``jobs`` are threads of the compiled search (else worker processes);
        #: ``threads=False`` asks for the workers even so.
        self.threaded = compiled and self.jobs > 1 and threads is not False and cluster is None
        self._misere_instance: MisereSolver | None = None
        self._pool: WorkerPool | None = None
        self._pool_stats = PoolStats()
        self._tmpdir: str | None = None

    # ================================================================ public
    def outcome(self, position: Position | str) -> bool:
        """True when the player to move wins (in this session's rules)."""
        p = _position(position)
        if self.misere:
            return self._misere_outcome(p)
        lands, k = position_parts(p)
        return self._sum_wins(lands, k)

    def nimber(self, position: Position | str) -> int:
        """The nimber of a position (normal play): the xor of its lands' nimbers and its heaps."""
        lands, k = position_parts(_position(position))
        for land in lands:
            k ^= self._land_nimber(land)
        return k

    def child_outcomes(self, position: Position | str) -> list[tuple[str, bool]]:
        """Every distinct child (exact canonical form, sorted) and whether its player to move wins."""
        p = _position(position)
        children = sorted(p.children())
        if self.cluster is not None:
            return [(c, self.outcome(c)) for c in children]
        if not self._parallel(p) or (self.threaded and not self.misere):
            if self.misere:
                solver = self.misere_solver()
                return [(c, solver.outcome(c)) for c in children]
            return self.normal.child_outcomes(p)
        if self.misere:
            questions: list[Question] = [("misere", c) for c in children]
        else:
            questions = [("normal", *position_parts(c)) for c in children]
        answers = self._ask(questions, stop_at_loss=False)
        return [(c, answers[i]) for i, c in enumerate(children)]

    def counters(self) -> Counters:
        """Facts proved and table hits so far, in this process and in the workers."""
        solved = self.normal.stats["positions_solved"] + self._pool_stats.total("positions_solved")
        hits = self.normal.stats["table_hits"] + self._pool_stats.total("table_hits")
        if self._misere_instance is not None:
            solved += self._misere_instance.stats.get("positions_solved", 0)
            hits += self._misere_instance.stats.get("table_hits", 0)
        nodes = self.normal.stats["nodes"] + self._pool_stats.total("nodes")
        if self._misere_instance is not None:
            nodes += self._misere_instance.stats.get("nodes", 0)
        imported = self._pool_stats.total("imported_used")
        if self.table is not None:
            imported += self.table.imported_used
        if self.cluster is not None:
            c = self.cluster.stats
            return Counters(
                solved, hits, imported, c.jobs_out, c.jobs_done, c.facts_merged, c.workers_alive, nodes
            )
        return Counters(solved, hits, imported, nodes=nodes)

    @property
    def backend(self) -> str:
        """Where the large questions go: "local" (worker processes) or the cluster's name."""
        return "local" if self.cluster is None else self.cluster.name

    @property
    def workers(self) -> int:
        """How many workers (threads of the compiled search, processes or cluster actors)
        answer the large questions."""
        return self.jobs if self.cluster is None else self.cluster.workers

    @property
    def parallelism(self) -> str:
        """How ``jobs`` are run in this session's rules: "threads" (normal play on the
        compiled core) or "processes"."""
        return "threads" if self.threaded and not self.misere else "processes"

    def close(self) -> None:
        """Stop the workers, commit the table, remove a temporary table."""
        try:
            if self._pool is not None:
                self._pool.close()
                self._pool = None
            if self.cluster is not None:
                self.cluster.close()
            if self.table is not None:
                self.table.flush()
        finally:
            if self._tmpdir is not None:
                if self.table is not None and Path(self.table.path).parent == Path(self._tmpdir):
                    self.table.close()
                    self.table = None
                import shutil

                shutil.rmtree(self._tmpdir, ignore_errors=True)
                self._tmpdir = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ========================================================== normal play
    def _sum_wins(self, lands: tuple[str, ...], k: int) -> bool:
        """Like ``NormalSearch.sum_wins``, with the root's children on the workers when it is large."""
        normal = self.normal
        while True:
            node = normal.node_of(lands, k)
            if isinstance(node, bool):
                return node
            what, heap = node
            if isinstance(what, str):
                break
            order = sorted(what, key=lambda x: (land_lives(x), len(x), x))
            for land in order[:-1]:
                self._land_nimber(land)
        land = what
        if self.cluster is not None and land_lives(land) >= self.parallel_lives:
            self._ensure_table()
            return self.cluster.normal_wins(normal, land, heap)
        if self.jobs == 1 or self.threaded or land_lives(land) < self.parallel_lives:
            return normal.sum_wins((land,), heap)
        return self._root_wins(land, heap)

    def _land_nimber(self, land: str) -> int:
        n = self.normal.known_nimber(land)
        if n is not None:
            return n
        k = 0
        while self._sum_wins((land,), k):
            k += 1
        return k

    def _root_wins(self, land: str, k: int) -> bool:
        """Is land + *k a win? Its children (and smaller heaps) are solved on the workers."""
        normal = self.normal
        questions: list[Question] = []
        sizes: list[int] = []
        children = [(c, k) for c in normal.children_of(land)] + [((land,), j) for j in range(k)]
        for lands, heap in children:
            node = normal.node_of(lands, heap)
            if node is False:
                normal.record_win(land, k)
                return True
            if node is True:
                continue
            questions.append(("normal", lands, heap))
            sizes.append(sum(land_lives(x) for x in lands))
        if not questions:  # every child is a known win
            normal.record_nimber(land, k)
            return False
        # The first worker searches the whole question (df-pn, as one process would); the
        # others take the children one by one from the other end: the largest first, and
        # among equals the last df-pn would turn to (it takes equal children in the order
        # found), so that the two meet once, in the middle, when every child is needed.
        order = sorted(range(len(questions)), key=lambda i: (-sizes[i], -i))
        asked: list[Question] = [("normal", (land,), k)] + [questions[i] for i in order]

        answers = self._ask(asked, decides=_root_or_children_decide(len(questions)))
        normal.forget_lookups()  # see what the workers proved
        if 0 in answers:
            win = answers[0]
        else:
            win = any(not w for w in answers.values())
            if not win and len(answers) < len(questions):  # pragma: no cover - the pool answers all
                raise RuntimeError("the workers left children of the root unanswered")
        if win:
            normal.record_win(land, k)
        else:
            normal.record_nimber(land, k)
        return win

    # ========================================================== misère play
    def misere_solver(self) -> MisereSolver:
        """The session's misère solver (made on first use, on the session's table)."""
        if self._misere_instance is None:
            from .misere import MisereSolver

            self._misere_instance = MisereSolver(self.table)
        return self._misere_instance

    def _misere_outcome(self, p: Position) -> bool:
        if self.cluster is not None and p.total_lives >= self.parallel_lives:
            self._ensure_table()
            return self.cluster.misere_wins(self.misere_solver(), self.table, p.canonical())
        if not self._parallel(p):
            return self.misere_solver().outcome(p)
        children = sorted(p.children(), key=lambda c: (Position.from_string(c).total_lives, c))
        if not children:
            return True  # no move: in misère play the player to move wins
        # As in normal play (``_root_wins``): the first worker searches the whole position
        # (df-pn, as one process would), the others prove its children one by one from the
        # other end.  Proving the children in turn alone would find a win only when its
        # losing child's turn came, and costs many times one process's CPU.
        asked: list[Question] = [("misere", p.canonical())] + [("misere", c) for c in reversed(children)]
        answers = self._ask(asked, decides=_root_or_children_decide(len(children)))
        if 0 in answers:
            return answers[0]
        return any(not win for win in answers.values())

    # ============================================================== workers
    def _parallel(self, p: Position) -> bool:
        return self.jobs > 1 and p.total_lives >= self.parallel_lives

    def _ask(
        self,
        questions: list[Question],
        stop_at_loss: bool = False,
        decides: Callable[[int, bool], bool] | None = None,
    ) -> dict[int, bool]:
        if self.table is not None:
            self.table.flush()  # the workers read what this process proved
        pool = self._ensure_pool()
        answers = pool.answer(questions, stop_at_loss=stop_at_loss, decides=decides)
        if self.table is not None:
            self.table.refresh_keys(force=True)  # this process reads what the workers proved
        return answers

    def _ensure_table(self) -> None:
        """A temporary table when there is none: the workers share facts through it."""
        if self.table is None:
            import tempfile

            self._tmpdir = tempfile.mkdtemp(prefix="sprouts-solve-")
            self.table = Table(Path(self._tmpdir) / "table.sqlite")
            self.normal.table = self.table
            if self._misere_instance is not None:
                self._misere_instance.table = self.table
                self._misere_instance._outcome_table = True

    def _ensure_pool(self) -> WorkerPool:
        if self._pool is None:
            self._ensure_table()
            assert self.table is not None
            self._pool = WorkerPool(
                self.jobs, self.table.path, progress=self._pool_progress, use_imports=self.table.use_imports
            )
        return self._pool

    def _pool_progress(self, stats: PoolStats) -> None:
        self._pool_stats = stats
        self._report()

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self.counters())


def _root_or_children_decide(n_children: int) -> Callable[[int, bool], bool]:
    """When the answers of [the root, its children...] settle the root: the root's own answer
    (question 0), a lost child, or the last child proved a win."""
    won_children: set[int] = set()

    def decides(index: int, win: bool) -> bool:
        if index == 0 or not win:
            return True
        won_children.add(index)
        return len(won_children) == n_children

    return decides


def _position(position: Position | str) -> Position:
    return Position.from_string(position) if isinstance(position, str) else position


def timed(fn: Callable[[], object]) -> tuple[object, float]:
    """Call ``fn`` and return (its result, the seconds it took)."""
    t = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t
