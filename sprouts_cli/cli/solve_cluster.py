"""``sprouts solve --cluster ray``: the backend from the options, and batches of small positions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..engine import Position
from ..errors import ClusterError, SproutsError
from ..solve.cluster import ClusterBackend, RayRunner
from ..solve.session import Session
from .common import Item, fail, read_position

__all__ = ["ClusterBackend", "Solved", "make_backend", "solve_batch"]


def make_backend(cluster: str | None, address: str | None, jobs: int | None) -> ClusterBackend | None:
    """The cluster the options ask for (None: the local worker pool); a bad one is one red line."""
    if cluster is None:
        return None
    try:
        return ClusterBackend(RayRunner(workers=jobs, address=address), name=cluster)
    except ClusterError as e:
        fail(str(e))
        raise  # fail() exits


@dataclass
class Solved:
    """A position of a batch answered whole on a worker."""

    text: str
    position: Position
    result: dict[str, Any]
    seconds: float
    solved: int


def solve_batch(
    session: Session, items: list[Item], misere: bool, nimber: bool, moves: bool
) -> Iterator[Item | Solved]:
    """The items in input order; the small positions among them solved side by side on the cluster.

    A position smaller than the session's split threshold goes to one worker whole
    (independent positions of a pipeline run in parallel); a larger one, or a line
    that does not parse, comes back as its ``Item`` for the caller to solve (the
    large ones split over the cluster one after another) or to report.
    """
    parsed: dict[int, Position] = {}
    for i, item in enumerate(items):
        try:
            p = read_position(item.text, "solve")
        except SproutsError:
            continue
        if p.total_lives < session.parallel_lives:
            parsed[i] = p
    order = sorted(parsed)
    results = []
    if len(order) > 1:
        cluster = session.cluster
        assert cluster is not None
        jobs = [("position", parsed[i].canonical(), misere, nimber, moves) for i in order]
        misere_solver = session.misere_solver() if misere else None
        results = cluster.whole(jobs, session.normal, misere_solver, session.table)
    answered = dict(zip(order, results, strict=False))
    for i, item in enumerate(items):
        result = answered.get(i)
        if result is None or result.detail is None:
            yield item
        else:
            # a worker knows only facts proved in this run: no imported fact was used
            detail = {**result.detail, "imported_facts_used": False}
            yield Solved(item.text, parsed[i], detail, result.seconds, len(result.facts))
