"""``ClusterBackend``: what a ``Session`` asks of a cluster, answered by a ``SplitSearch``."""

from __future__ import annotations

import json
from collections.abc import Callable

from ...files import write_atomic
from ..jobs import Fact, Job, JobResult
from ..misere import MisereSolver
from ..nimbers import NormalSearch
from .base import JOB_NODES, ClusterStats, Runner
from .rules import MisereFacts, MisereRules, NormalRules
from .split import SplitSearch


class ClusterBackend:
    """What a ``Session`` uses to answer its large questions on a cluster."""

    def __init__(
        self,
        runner: Runner,
        budget: int = JOB_NODES,
        progress: Callable[[ClusterStats], None] | None = None,
        record_trace: bool = False,
        name: str = "ray",
    ) -> None:
        self.runner = runner
        self.name = name
        self.search = SplitSearch(runner, budget=budget, progress=progress, record_trace=record_trace)

    @property
    def workers(self) -> int:
        return self.runner.workers

    @property
    def stats(self) -> ClusterStats:
        return self.search.stats

    def normal_wins(self, solver: NormalSearch, land: str, k: int) -> bool:
        """Is ``land + *k`` a win? (normal play)"""
        rules = NormalRules(solver)
        return self.search.solve(rules, (land, k))

    def misere_wins(self, solver: MisereSolver, table: MisereFacts | None, position: str) -> bool:
        """Is ``position`` a misère win for the player to move?"""
        return self.search.solve(MisereRules(solver, table), position)

    def whole(
        self, jobs: list[Job], normal: NormalSearch, misere: MisereSolver | None, table: MisereFacts | None
    ) -> list[JobResult]:
        """Whole positions (``("position", …)`` jobs) on the workers, answered in order."""
        normal_rules = NormalRules(normal)
        misere_rules = MisereRules(misere, table) if misere is not None else None

        def merge(fact: Fact) -> bool:
            if fact[0] in ("nimber", "win"):
                return normal_rules.merge(fact)
            return misere_rules.merge(fact) if misere_rules is not None else False

        return self.search.run_whole(jobs, merge)

    def close(self) -> None:
        self.runner.close()

    def write_trace(self, path: str) -> None:
        """The jobs of the run as JSON lines (for ``benchmarks/sim_cluster.py``), written whole
        or not at all (``files.write_atomic``)."""
        rows = []
        for entry in self.stats.trace:
            row = dict(entry)
            row["node"] = str(row["node"])
            rows.append(json.dumps(row) + "\n")
        write_atomic(path, "".join(rows))
