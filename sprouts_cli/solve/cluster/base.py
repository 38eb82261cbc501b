"""The driver's vocabulary: its constants and statistics, and what it asks of a runner and of rules."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypedDict, TypeVar

from ..jobs import Fact, Job, JobResult

#: Search nodes a job may spend before it comes back undecided (about 1-5 s of one core).
JOB_NODES = 4000
#: A job sent again gets twice the budget, up to this many times the first one.
MAX_BUDGET_FACTOR = 64
#: A fresh leaf's disproof number per life (as the df-pn of ``nimbers.py`` prices fresh nodes).
DN_PER_LIFE = 1
#: Seconds between two exchanges of facts with a running job (the local pool's workers
#: re-read their shared table as often).
EXCHANGE_SECONDS = 1.0
#: Seconds to wait for stopped jobs to bring their facts back.
STOP_GRACE_SECONDS = 10.0
#: How the missing extra is named in the error.
INSTALL_HINT = 'pip install "sprouts-cli[cluster]"'

#: A node of the driver's tree (``NormalRules``: ``(land, k)`` or ``(lands, k)``;
#: ``MisereRules``: a position's canonical text).
K = TypeVar("K", bound=Hashable)

#: What a runner's ``wait`` hands back: (worker, job id, result, restarted); a job id None
#: carries the facts a running job proved so far.
Event = tuple[int, int | None, JobResult, bool]


class Runner(Protocol):
    """Carries jobs to workers (``InlineRunner``, ``RayRunner``)."""

    workers: int

    def submit(self, worker: int, job_id: int, job: Job, budget: int | None, facts: list[Fact]) -> None: ...

    def wait(self, timeout: float) -> list[Event]: ...

    def exchange(self, worker: int, facts: list[Fact]) -> None: ...

    def stop(self, worker: int, job_id: int) -> None: ...

    def exchanging(self, worker: int) -> bool: ...

    def alive(self) -> int: ...

    def close(self) -> None: ...


class Rules(Protocol[K]):
    """The game the driver's tree is of (``NormalRules``, ``MisereRules``); ``K`` its nodes."""

    def settled(self, node: K) -> bool | None: ...

    def children(self, node: K) -> Sequence[K | bool] | None: ...

    def expandable(self, node: K) -> bool: ...

    def job(self, node: K) -> Job: ...

    def lives(self, node: K) -> int: ...

    def record(self, node: K, win: bool) -> None: ...

    def merge(self, fact: Fact) -> bool: ...


class TraceEntry(TypedDict, total=False):
    """One job of the trace (``ClusterBackend.write_trace``): as sent, then as it came back."""

    job: int
    node: Hashable
    worker: int
    budget: int
    sent: float
    lives: int
    facts_in: int
    after: str | None
    stopped: bool
    streamed: int
    done: float
    seconds: float
    cpu: float
    nodes: int
    facts_out: int
    answer: bool | None


@dataclass
class ClusterStats:
    """What the driver reports: jobs out and done, facts received and merged, workers alive."""

    jobs_out: int = 0
    jobs_done: int = 0
    jobs_split: int = 0
    facts_received: int = 0
    facts_merged: int = 0
    facts_sent: int = 0
    workers: int = 0
    workers_alive: int = 0
    retries: int = 0
    worker_seconds: float = 0.0
    worker_cpu: float = 0.0
    driver_seconds: float = 0.0
    trace: list[TraceEntry] = field(default_factory=list)

    def as_dict(self) -> dict[str, float]:
        """The counts and times (seconds rounded to milliseconds), without the trace."""
        d: dict[str, float] = {k: v for k, v in self.__dict__.items() if k != "trace"}
        d["worker_seconds"] = round(self.worker_seconds, 3)
        d["worker_cpu"] = round(self.worker_cpu, 3)
        d["driver_seconds"] = round(self.driver_seconds, 3)
        return d
