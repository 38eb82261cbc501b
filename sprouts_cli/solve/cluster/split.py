"""``SplitSearch``: the driver's AND/OR tree of the top questions, its leaves sent out as jobs."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import cast

from ...errors import ClusterError
from ..jobs import Fact, Job, JobResult
from .base import (
    DN_PER_LIFE,
    EXCHANGE_SECONDS,
    JOB_NODES,
    MAX_BUDGET_FACTOR,
    STOP_GRACE_SECONDS,
    ClusterStats,
    Event,
    K,
    Rules,
    Runner,
    TraceEntry,
)


class _Node:
    __slots__ = (
        "again",
        "budget",
        "children",
        "dn",
        "expandable",
        "free",
        "home",
        "job",
        "key",
        "lives",
        "pn",
        "released",
        "splittable",
        "win",
    )

    def __init__(self, key: Hashable, lives: int, budget: int, expandable: bool) -> None:
        self.key = key
        self.expandable = expandable
        self.lives = lives
        self.children: list[Hashable] | None = None  # None: a leaf
        self.win: bool | None = None
        self.job: tuple[int, int] | None = None  # (worker, job id) while in flight
        self.budget = budget
        self.pn = 1
        self.dn = 1
        self.free = True
        self.splittable = False
        self.home: int | None = None  # the worker that ran it or its parent (its memory is warm)
        self.again = False  # split while its own job ran, which came back undecided: send it again
        self.released: str | None = None  # what made it a job (for the trace): "done:J" or "start:J"


class SplitSearch:
    """The driver: answers root questions by handing out jobs to a runner's workers."""

    def __init__(
        self,
        runner: Runner,
        budget: int = JOB_NODES,
        progress: Callable[[ClusterStats], None] | None = None,
        stats: ClusterStats | None = None,
        record_trace: bool = False,
    ) -> None:
        self.runner = runner
        self.budget = budget
        self.progress = progress
        self.stats = stats if stats is not None else ClusterStats()
        self.stats.workers = runner.workers
        self.stats.workers_alive = runner.workers
        self.record_trace = record_trace
        self._log: list[Fact] = []  # every fact merged, in order: workers get what they miss
        self._origin: list[int] = []  # the worker each fact came from (-1: the driver)
        self._cursor = [0] * runner.workers
        self._fresh = [False] * runner.workers  # restarted: needs its own facts back too
        self._exchanged_at = 0.0
        self._idle = list(range(runner.workers))
        self._next_job = 0
        self._t0 = time.perf_counter()
        self._jobs: dict[int, TraceEntry] = {}  # job id -> trace entry (and the node)
        self._running: dict[int, int] = {}  # worker -> the job it runs

    def teach(self, facts: list[Fact]) -> None:
        """Facts the workers should know from the start (e.g. from the driver's table)."""
        self._log.extend(facts)
        self._origin.extend([-1] * len(facts))

    def _facts_for(self, worker: int) -> list[Fact]:
        """The facts merged since the worker last heard, but those it sent itself."""
        start = self._cursor[worker]
        self._cursor[worker] = len(self._log)
        if self._fresh[worker]:
            self._fresh[worker] = False
            return self._log[start:]
        origin = self._origin
        return [f for i, f in enumerate(self._log[start:], start) if origin[i] != worker]

    def _merge(self, worker: int, facts: list[Fact], merge: Callable[[Fact], bool]) -> None:
        self.stats.facts_received += len(facts)
        for fact in facts:
            if merge(fact):
                self._log.append(fact)
                self._origin.append(worker)
                self.stats.facts_merged += 1

    def _exchange(self) -> None:
        """Every ``EXCHANGE_SECONDS``: facts to each busy worker, and its facts so far back."""
        now = time.monotonic()
        if now - self._exchanged_at < EXCHANGE_SECONDS:
            return
        self._exchanged_at = now
        for worker in range(self.runner.workers):
            if worker in self._idle or self.runner.exchanging(worker):
                continue
            facts = self._facts_for(worker)
            self.stats.facts_sent += len(facts)
            self.runner.exchange(worker, facts)

    # ------------------------------------------------------------- public
    def solve(self, rules: Rules[K], root: K) -> bool:
        """Is ``root`` a win for the player to move? (``rules``: ``NormalRules`` or ``MisereRules``)"""
        # the tree holds the rules' nodes as keys only: any hashable node will do
        self.rules = cast("Rules[Hashable]", rules)
        self.nodes: dict[Hashable, _Node] = {}
        self._need(root)
        try:
            while True:
                t = time.perf_counter()
                self._refresh(root)
                if self.nodes[root].win is not None:
                    self.stats.driver_seconds += time.perf_counter() - t
                    return bool(self.nodes[root].win)
                self._dispatch(root)
                self.stats.driver_seconds += time.perf_counter() - t
                if len(self._idle) == self.runner.workers:  # pragma: no cover - a leaf is always free
                    raise ClusterError("the driver found no job to hand out")
                for item in self.runner.wait(0.25):
                    self._on_result(*item)
                self._exchange()
                self._report()
        finally:
            self._stop_all()

    # ------------------------------------------------------------ the tree
    def _need(self, key: Hashable) -> _Node:
        node = self.nodes.get(key)
        if node is None:
            rules = self.rules
            node = self.nodes[key] = _Node(key, rules.lives(key), self.budget, rules.expandable(key))
        return node

    def _refresh(self, root: Hashable) -> None:
        """Decide what the facts decide, recompute the numbers, stop jobs no longer needed."""
        seen: set[Hashable] = set()
        self._eval(root, seen)
        for node in list(self.nodes.values()):
            if node.job is not None and (node.key not in seen or node.win is not None):
                worker, job_id = node.job
                self.runner.stop(worker, job_id)
                self._jobs[job_id]["stopped"] = True
                node.job = None

    def _eval(self, key: Hashable, seen: set[Hashable]) -> None:
        node = self.nodes[key]
        if key in seen:
            return
        seen.add(key)
        if node.win is None:
            node.win = self.rules.settled(key)
        if node.win is not None:
            node.free = node.splittable = False
            return
        if node.children is None:
            node.pn, node.dn = 1, max(1, DN_PER_LIFE * node.lives)
            node.free = node.job is None
            node.splittable = node.job is not None and node.expandable
            return
        pn, dn = 1 << 60, 0
        free = splittable = False
        open_kids = []
        for c in node.children:
            child = self._need(c)
            self._eval(c, seen)
            if child.win is True:
                continue
            if child.win is False:
                self._settle(node, True)
                return
            open_kids.append(c)
            pn = min(pn, child.dn)
            dn += child.pn
            free = free or child.free
            splittable = splittable or child.splittable
        if not open_kids:
            self._settle(node, False)
            return
        node.children = open_kids
        node.pn, node.dn = pn, min(dn, 1 << 60)
        node.free = free or (node.again and node.job is None)
        node.splittable = splittable

    def _settle(self, node: _Node, win: bool) -> None:
        node.win = win
        node.free = node.splittable = False
        self.rules.record(node.key, win)

    def _expand(self, node: _Node, released: str | None = None) -> None:
        kids = self.rules.children(node.key)
        if kids is None:
            return
        node.children = []
        for c in kids:
            if c is True:
                continue
            if c is False:
                self._settle(node, True)
                node.children = []
                return
            node.children.append(c)
            child = self._need(c)
            if child.home is None:
                child.home = node.home
            if child.released is None:
                child.released = released
        if not node.children:
            self._settle(node, False)

    # ------------------------------------------------------------ dispatch
    def _dispatch(self, root: Hashable) -> None:
        while self._idle and self.nodes[root].win is None:
            path = self._descend(root, "free")
            if path is None:
                path = self._descend(root, "splittable")
                if path is None:
                    return
                leaf = self.nodes[path[-1]]
                self._expand(leaf, f"start:{leaf.job[1]}" if leaf.job is not None else None)
                self.stats.jobs_split += 1
                self._refresh(root)
                continue
            self._send(self.nodes[path[-1]], parent=path[-2] if len(path) > 1 else None)
            self._refresh(root)

    def _descend(self, root: Hashable, flag: str) -> list[Hashable] | None:
        """The path to the most-proving leaf that is ``free`` (or ``splittable``)."""
        node = self.nodes[root]
        if not getattr(node, flag):
            return None
        path = [root]
        while node.children is not None:
            if flag == "free" and node.again and node.job is None:
                break  # its own search goes on first (on the worker whose memory holds it)
            # Beside a node's own search (which goes to its cheapest children first, as
            # df-pn does), take its children from the other end: the largest, and among
            # equals the last (as the local pool does: the two meet once, in the middle).
            own = node.job is not None or node.again
            best = None
            for c in node.children:
                child = self.nodes[c]
                if child.win is not None or not getattr(child, flag):
                    continue
                if best is None or (child.lives >= best.lives if own else child.dn < best.dn):
                    best = child
            if best is None:
                return None
            node = best
            path.append(node.key)
        return path

    def _send(self, node: _Node, parent: Hashable | None) -> None:
        worker = node.home if node.home in self._idle else self._idle[0]
        self._idle.remove(worker)
        node.home = worker
        job_id = self._next_job
        self._next_job += 1
        facts = self._facts_for(worker)
        job = self.rules.job(node.key)
        budget = node.budget
        self.runner.submit(worker, job_id, job, budget, facts)
        self._running[worker] = job_id
        node.job = (worker, job_id)
        node.free = node.again = False
        self.stats.jobs_out += 1
        self.stats.facts_sent += len(facts)
        self._jobs[job_id] = {
            "job": job_id,
            "node": node.key,
            "worker": worker,
            "budget": budget,
            "sent": time.perf_counter() - self._t0,
            "lives": node.lives,
            "facts_in": len(facts),
            "after": node.released,
        }

    def _on_result(self, worker: int, job_id: int | None, result: JobResult, restarted: bool) -> None:
        t = time.perf_counter()
        if job_id is None:  # facts of a running job
            self._merge(worker, result.facts, self.rules.merge)
            running = self._jobs.get(self._running.get(worker, -1))
            if running is not None:
                running["streamed"] = running.get("streamed", 0) + len(result.facts)
            self.stats.driver_seconds += time.perf_counter() - t
            return
        self._idle.append(worker)
        self._idle.sort()
        if restarted:
            self.stats.retries += 1
            self._cursor[worker] = 0  # a new process: it knows nothing yet
            self._fresh[worker] = True
        entry = self._jobs.pop(job_id, None)
        self.stats.jobs_done += 1
        self.stats.worker_seconds += result.seconds
        self.stats.worker_cpu += result.cpu
        self._merge(worker, result.facts, self.rules.merge)
        if entry is not None:
            if self.record_trace:
                entry["done"] = time.perf_counter() - self._t0
                entry["seconds"] = round(result.seconds, 4)
                entry["cpu"] = round(result.cpu, 4)
                entry["nodes"] = result.nodes
                entry["facts_out"] = len(result.facts) + entry.pop("streamed", 0)
                entry["answer"] = result.answer
                self.stats.trace.append(entry)
            node = self.nodes.get(entry["node"])
            if node is not None and node.job == (worker, job_id):
                node.job = None
                if result.answer is not None:
                    if node.win is None:
                        self._settle(node, result.answer)
                elif node.win is None:
                    # Undecided within the budget: the same worker goes on with twice the
                    # budget (its memory holds the search so far); the node is split only
                    # when a worker comes free with nothing to do (``_dispatch``).
                    node.budget = min(2 * node.budget, MAX_BUDGET_FACTOR * self.budget)
                    node.again = node.children is not None
                    node.released = f"done:{job_id}"
        self.stats.driver_seconds += time.perf_counter() - t

    def _stop_all(self) -> None:
        """Stop the jobs still out and merge the facts they bring back (within a grace time)."""
        for node in self.nodes.values():
            if node.job is not None:
                self.runner.stop(*node.job)
                node.job = None
        self._until_idle(lambda event: self._on_result(*event))

    def _until_idle(self, handle: Callable[[Event], None]) -> None:
        """Hand every event to ``handle`` until all workers are idle, or the grace time is out."""
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while len(self._idle) < self.runner.workers and time.monotonic() < deadline:
            try:
                events = self.runner.wait(0.25)
            except (ClusterError, KeyboardInterrupt):
                break
            for event in events:
                handle(event)

    def _report(self) -> None:
        self.stats.workers_alive = self.runner.alive()
        if self.progress is not None:
            self.progress(self.stats)

    # ------------------------------------------------------------ batches
    def run_whole(self, jobs: list[Job], merge: Callable[[Fact], bool]) -> list[JobResult]:
        """Independent jobs with no budget, spread over the workers; results in the jobs' order."""
        results: dict[int, JobResult] = {}
        ids: dict[int, int] = {}
        where: dict[int, int] = {}
        pending = list(range(len(jobs)))[::-1]
        try:
            while pending or ids:
                while self._idle and pending:
                    index = pending.pop()
                    worker = self._idle.pop(0)
                    job_id = self._next_job
                    self._next_job += 1
                    facts = self._facts_for(worker)
                    self.runner.submit(worker, job_id, jobs[index], None, facts)
                    ids[job_id] = index
                    where[job_id] = worker
                    self.stats.jobs_out += 1
                    self.stats.facts_sent += len(facts)
                for worker, done_id, result, restarted in self.runner.wait(0.25):
                    if done_id is None:
                        self._merge(worker, result.facts, merge)
                        continue
                    self._idle.append(worker)
                    self._idle.sort()
                    if restarted:
                        self.stats.retries += 1
                        self._cursor[worker] = 0
                        self._fresh[worker] = True
                    self.stats.jobs_done += 1
                    self.stats.worker_seconds += result.seconds
                    self.stats.worker_cpu += result.cpu
                    self._merge(worker, result.facts, merge)
                    answered = ids.pop(done_id, None)
                    if answered is not None:
                        results[answered] = result
                self._report()
        except BaseException:
            for job_id, worker in list(where.items()):
                if job_id in ids:
                    self.runner.stop(worker, job_id)
            self._drain(merge)
            raise
        return [results[i] for i in range(len(jobs))]

    def _drain(self, merge: Callable[[Fact], bool]) -> None:
        """Wait (a grace time) for the jobs still out and merge the facts they bring back."""

        def handle(event: Event) -> None:
            worker, job_id, result, _restarted = event
            if job_id is not None:
                self._idle.append(worker)
            self._merge(worker, result.facts, merge)

        self._until_idle(handle)
        self._idle.sort()
