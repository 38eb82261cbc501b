"""One job of a split search: "is this a win?", answered within a node budget, with the facts proved.

This is the seam between the solvers and whatever runs them elsewhere (``cluster/``
runs it inside Ray actors).  A ``JobSolver`` owns its own solvers and memory, learns
facts from outside (``learn``), and ``answer(job, budget)`` returns a ``JobResult``:
the answer (None when the budget ran out or a stop was asked) and every fact proved
while answering, as plain tuples that travel as messages.  While a job runs, another
thread may hand it facts proved elsewhere (``give``: the search reads them at its
next clock check, as the local pool's workers re-read their shared table) and take
the facts proved so far (``take_facts``: the rest come with the result):

* ``("nimber", land, k)``: the land's nimber is ``k`` (normal play);
* ``("win", land, k)``: ``land + *k`` is a win for the player to move;
* ``("tree", land, text)``: the land's misère canonical tree (``TreeStore.to_text``);
* ``("misere", key, win)``: the misère outcome of a land by its reduced form.

A job is ``("normal", lands, heap)`` ("is lands + *heap a win?"),
``("misere", position text)``, or ``("position", text, misere, nimber, moves)`` (a
whole position of a batch, answered as ``sprouts solve`` does, in ``detail``).
Facts are true statements about the positions their keys name, so the order in
which they arrive and any repetition do not matter.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import SolveAborted
from .misere import MisereSolver
from .search import normal_solver

Job = tuple[Any, ...]
Fact = tuple[str, str, Any]


@dataclass
class JobResult:
    """What one job brings back."""

    answer: bool | None  # None: not decided within the budget (or stopped)
    facts: list[Fact] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0  # wall seconds on the worker
    cpu: float = 0.0  # CPU seconds of the thread that ran it (the job's own compute)
    detail: dict[str, Any] | None = None  # a whole position's answer (outcome, nimber, moves)


class _Outbox:
    """The solvers' table while they run a job: reads what was learnt, collects what is proved."""

    def __init__(self) -> None:
        self.normal: dict[str, tuple[int | None, int]] = {}
        self.trees: dict[str, str] = {}
        self.outcomes: dict[str, bool] = {}
        self.proved: list[Fact] = []

    # normal play (the interface of ``store.Table``)
    def get_normal(self, land: str) -> tuple[int | None, int] | None:
        return self.normal.get(land)

    def put_nimber(self, land: str, nimber: int) -> None:
        self.proved.append(("nimber", land, nimber))

    def put_win(self, land: str, heap: int) -> None:
        self.proved.append(("win", land, heap))

    # misère play
    def get_misere(self, land: str) -> str | None:
        return self.trees.get(land)

    def put_misere(self, land: str, text: str) -> None:
        self.trees[land] = text
        self.proved.append(("tree", land, text))

    def get_misere_outcome(self, key: str) -> bool | None:
        return self.outcomes.get(key)

    def put_misere_outcome(self, key: str, win: bool) -> None:
        self.outcomes[key] = bool(win)
        self.proved.append(("misere", key, bool(win)))

    def flush(self) -> int:
        return 0

    def learn(self, fact: Fact) -> None:
        kind, key, value = fact
        if kind == "nimber":
            _, wins = self.normal.get(key, (None, 0))
            self.normal[key] = (value, wins)
        elif kind == "win":
            nimber, wins = self.normal.get(key, (None, 0))
            self.normal[key] = (nimber, wins | (1 << value))
        elif kind == "tree":
            self.trees[key] = value
        elif kind == "misere":
            self.outcomes[key] = bool(value)
        else:
            raise ValueError(f"unknown fact {kind!r}")


class JobSolver:
    """Answers jobs one after another, keeping its memory (solvers, tables) between them.

    ``stop()``, ``give()`` and ``take_facts()`` may be called from another thread:
    ``stop`` ends the job in hand soon after with answer None and the facts proved so
    far; ``give`` passes facts to the search in hand; ``take_facts`` takes what it
    has proved so far (so that they travel before the job ends).

    Normal play runs on the compiled proof-number core (``search.normal_solver``, the
    plain-Python reference without numba) with ``threads`` threads sharing its tables;
    the budget is checked at the core's returns to Python, so a job may run a few
    hundred nodes past it.
    """

    def __init__(self, threads: int = 1) -> None:
        self.outbox = _Outbox()
        self._lock = threading.Lock()
        self._inbox: list[Fact] = []
        self._stop = False
        self._budget_end: int | None = None
        self.normal = normal_solver(self.outbox, abort=self._should_stop, threads=threads)
        self._misere: Any = None
        self.nodes = 0

    def learn(self, facts: list[Fact]) -> None:
        """Facts proved elsewhere: the next lookups see them."""
        for fact in facts:
            self.outbox.learn(fact)
        if facts:
            self.normal.forget_lookups()

    def stop(self) -> None:
        self._stop = True

    def give(self, facts: list[Fact]) -> None:
        """Facts for the search in hand (from another thread): learnt at its next clock check."""
        if facts:
            with self._lock:
                self._inbox.extend(facts)

    def take_facts(self) -> list[Fact]:
        """The facts proved since the last time they were taken (from any thread)."""
        proved = self.outbox.proved  # the search appends to it meanwhile, without the lock
        with self._lock:
            n = len(proved)
            facts = proved[:n]
            del proved[:n]
        return facts

    def _learn_inbox(self) -> None:
        with self._lock:
            facts, self._inbox = self._inbox, []
        self.learn(facts)

    def answer(self, job: Job, budget: int | None = None) -> JobResult:
        """Answer ``job`` within ``budget`` search nodes (None: no limit)."""
        self._stop = False
        t = time.perf_counter()
        cpu = time.thread_time()
        start = self._node_count()
        self._budget_end = None if budget is None else start + budget
        self._learn_inbox()
        answer: bool | None
        detail: dict[str, Any] | None = None
        try:
            if job[0] == "normal":
                answer = self.normal.sum_wins(tuple(job[1]), int(job[2]))
            elif job[0] == "misere":
                answer = self._misere_solver().outcome(job[1])
            elif job[0] == "position":
                detail = self._whole(*job[1:])
                answer = detail["win"]
            else:
                raise ValueError(f"unknown job {job[0]!r}")
        except SolveAborted:
            answer = None
        facts = self.take_facts()
        nodes = self._node_count() - start
        return JobResult(answer, facts, nodes, time.perf_counter() - t, time.thread_time() - cpu, detail)

    def _whole(self, text: str, misere: bool, nimber: bool, moves: bool) -> dict[str, Any]:
        """A whole position, as ``sprouts solve`` answers it: outcome, nimber, winning moves."""
        from ..engine.position import Position

        p = Position.from_string(text)
        out: dict[str, Any] = {}
        if moves:
            children = sorted(p.children())
            if misere:
                wins = [self._misere_solver().outcome(c) for c in children]
            else:
                wins = [self.normal.outcome(c) for c in children]
            out["winning_moves"] = [c for c, w in zip(children, wins, strict=True) if not w]
            out["children"] = len(children)
            out["win"] = bool(out["winning_moves"]) if children else misere
        if nimber:
            out["nimber"] = self.normal.nimber(p)
            out.setdefault("win", out["nimber"] != 0)
        if "win" not in out:
            out["win"] = self._misere_solver().outcome(p) if misere else self.normal.outcome(p)
        return out

    # ---------------------------------------------------------------- budget
    def _node_count(self) -> int:
        n = self.normal.stats["nodes"]
        if self._misere is not None:
            n += self._misere.budget_nodes
        return n

    def _should_stop(self) -> bool:
        if self._inbox:  # facts given while the search runs (read here, in its own thread)
            self._learn_inbox()
        return self._stop or (self._budget_end is not None and self._node_count() >= self._budget_end)

    def _misere_solver(self) -> Any:
        if self._misere is None:
            self._misere = _BudgetedMisereSolver(self.outbox, self._should_stop)
        return self._misere


class _BudgetedMisereSolver(MisereSolver):
    """The misère solver whose clock also stops it when the job's budget runs out (or a stop is asked)."""

    def __init__(self, table: Any, should_stop: Callable[[], bool]) -> None:
        super().__init__(table, abort=should_stop)

    @property
    def budget_nodes(self) -> int:
        """The search's steps so far (its clock's readings), what a job's budget counts."""
        return self._deadline.polls


def answer_job(job: Job, budget: int | None = None, facts: list[Fact] | None = None) -> JobResult:
    """One job on a fresh solver (what a stateless task would do)."""
    solver = JobSolver()
    solver.learn(facts or [])
    return solver.answer(job, budget)


__all__ = ["Fact", "Job", "JobResult", "JobSolver", "answer_job"]
