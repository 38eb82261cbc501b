"""``InlineRunner``: the driver's jobs run in this process, one after another."""

from __future__ import annotations

from ..jobs import Fact, Job, JobSolver
from .base import Event


class InlineRunner:
    """Runs jobs in this process, one at a time, on ``workers`` solvers of their own.

    It behaves like a cluster whose workers run one after another: useful to test the
    driver without Ray, and to record a trace of job sizes.
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self._solvers = [JobSolver() for _ in range(self.workers)]
        self._queue: list[tuple[int, int, Job, int | None, list[Fact]]] = []

    def submit(self, worker: int, job_id: int, job: Job, budget: int | None, facts: list[Fact]) -> None:
        self._queue.append((worker, job_id, job, budget, facts))

    def wait(self, timeout: float) -> list[Event]:
        if not self._queue:
            return []
        worker, job_id, job, budget, facts = self._queue.pop(0)
        solver = self._solvers[worker]
        solver.learn(facts)
        return [(worker, job_id, solver.answer(job, budget), False)]

    def exchange(self, worker: int, facts: list[Fact]) -> None:
        """Facts for a worker between its jobs (its jobs run one at a time here: nothing comes back)."""
        self._solvers[worker].give(facts)

    def stop(self, worker: int, job_id: int) -> None:
        for i, item in enumerate(self._queue):
            if item[1] == job_id:  # not started: it comes back at once, undecided
                self._queue[i] = (item[0], item[1], item[2], 0, item[4])

    def exchanging(self, worker: int) -> bool:
        return False

    def alive(self) -> int:
        return self.workers

    def close(self) -> None:
        self._queue.clear()
