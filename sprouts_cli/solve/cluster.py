"""Solving on a cluster: a driver keeps the top of the proof tree and hands out jobs with a budget.

The question at the root is "is this a win?" (normal play: ``land + *k``; misère play:
a position).  As in the master/worker proof-number solvers (SPOTS's master tree handing
out jobs with a budget; Kishimoto and Kotani's parallel df-pn), ``SplitSearch`` keeps
an explicit AND/OR tree of the top questions in the driver and sends its leaves as
*jobs* to workers, each with its own solver and memory (``jobs.JobSolver``):

* a leaf goes out with a node budget; a worker answers it, or says "not within the
  budget" and the driver expands the leaf (its children become leaves: the tree
  grows where the work is), or sends a sum of lands again with twice the budget;
* a worker that comes free when no leaf is waiting splits the most-proving leaf in
  flight (its children go out beside it), so at the start the root goes to one
  worker as a whole and its children to the others, as in the local pool;
* leaves are chosen best first: proof and disproof numbers (negamax form) over the
  driver's tree, the numbers of a leaf priced by its lives;
* every job brings back the facts proved while answering it (nimbers, wins, misère
  trees and outcomes); the driver merges them into its own solver and its SQLite
  table (so a cluster run leaves the same table a local one does) and passes them on
  to the workers with their next jobs;
* when a node is decided, the jobs under it that nothing else needs are stopped
  (their facts still come back).

The answer does not depend on the workers or the budget: every node is decided by a
worker's exact search or by its children, and facts are true whatever their order.

Runners carry the jobs: ``RayRunner`` on Ray actors (a local Ray started for the run,
or a cluster joined by address), ``InlineRunner`` in this process (for tests and the
trace of a run).  Ray is an optional dependency (``pip install "sprouts-cli[cluster]"``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..cpus import usable_cpus
from ..engine.position import Position
from ..errors import ClusterError
from ..procs import Terminated
from .jobs import Fact, Job, JobResult, JobSolver
from .misere import MisereSolver
from .nimbers import NormalSearch, land_lives

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


# ================================================================ statistics
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
    trace: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "trace"}
        d["worker_seconds"] = round(self.worker_seconds, 3)
        d["worker_cpu"] = round(self.worker_cpu, 3)
        d["driver_seconds"] = round(self.driver_seconds, 3)
        return d


# =================================================================== runners
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

    def wait(self, timeout: float) -> list[tuple[int, int | None, JobResult, bool]]:
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


def import_ray() -> Any:
    """The ``ray`` module, or a ``ClusterError`` naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise ClusterError(f"--cluster ray needs Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


class _SolverActor:
    """A Ray actor: one ``JobSolver`` kept between jobs (two threads: one runs, one may stop)."""

    def __init__(self) -> None:
        self.solver = JobSolver()
        self.incarnation = uuid.uuid4().hex
        self.current: int | None = None
        self.lock = threading.Lock()

    def pid(self) -> int:
        return os.getpid()

    def run(self, job_id: int, job: Job, budget: int | None, facts: list[Fact]) -> tuple[str, JobResult]:
        with self.lock:
            self.current = job_id
        try:
            self.solver.learn(facts)
            result = self.solver.answer(job, budget)
        finally:
            with self.lock:
                self.current = None
        return self.incarnation, result

    def stop(self, job_id: int) -> None:
        with self.lock:
            if self.current == job_id:
                self.solver.stop()

    def exchange(self, facts: list[Fact]) -> list[Fact]:
        """Facts proved elsewhere for the job in hand (or the next); the facts it proved so far."""
        self.solver.give(facts)
        return self.solver.take_facts()


class RayRunner:
    """Jobs on Ray actors, one actor per CPU asked for.

    ``address`` None starts a local Ray for the run (``workers`` CPUs, default all this
    process may use); ``"auto"`` or ``"HOST:PORT"`` joins a running cluster (``workers``
    default and most: its CPUs).  A Ray already started in this process is used as it is.
    Actors are restarted when their process dies and the job they held is retried
    (``max_restarts``/``max_task_retries``): a job is a question, so the retry gives
    the same answer.
    """

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        if address is not None:
            _token_auth_if_available()
        ray = import_ray()
        self.ray = ray
        self._started = False
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            import logging

            kwargs: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": logging.ERROR,
            }
            if address is None:  # "local": a new Ray even when another runs on this machine
                kwargs["address"] = "local"
                kwargs["num_cpus"] = workers or usable_cpus()
                # Ray lowers its workers' priority by 15 (nice) by default; the actors do
                # the run's work and must share the machine as the local pool's workers do.
                kwargs["_system_config"] = {"worker_niceness": 0}
            else:
                _check_listening(address)
                kwargs["address"] = address
            try:
                ray.init(**kwargs)
            except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...
                where = f" at {address}" if address else ""
                raise ClusterError(f"cannot start or join Ray{where}: {_first_line(e)}") from None
            self._started = True
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.workers = min(workers or cpus, cpus)  # an actor holds its CPU: no more actors than CPUs
        actor_class = ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=-1, max_concurrency=2)(
            _SolverActor
        )
        self._actors = [actor_class.remote() for _ in range(self.workers)]
        self._incarnations: list[str | None] = [None] * self.workers
        self._refs: dict[Any, tuple[int, int]] = {}
        self._exchanges: dict[Any, int] = {}  # replies of running jobs' exchanges -> worker
        self._alive, self._alive_at = self.workers, 0.0
        self._old_sigterm: Any = None
        if threading.current_thread() is threading.main_thread():
            self._old_sigterm = signal.signal(signal.SIGTERM, _sigterm_as_interrupt)

    def pids(self) -> list[int]:
        """The process id of each actor (tests kill one to check the retries)."""
        pids: list[int] = self.ray.get([a.pid.remote() for a in self._actors])
        return pids

    def submit(self, worker: int, job_id: int, job: Job, budget: int | None, facts: list[Fact]) -> None:
        ref = self._actors[worker].run.remote(job_id, job, budget, facts)
        self._refs[ref] = (worker, job_id)

    def exchange(self, worker: int, facts: list[Fact]) -> None:
        """Send facts to a worker's running job and ask for the facts it proved so far (see ``wait``)."""
        self._exchanges[self._actors[worker].exchange.remote(facts)] = worker

    def exchanging(self, worker: int) -> bool:
        return worker in self._exchanges.values()

    def wait(self, timeout: float) -> list[tuple[int, int | None, JobResult, bool]]:
        """Jobs done (worker, job id, result, restarted) and facts of running jobs (job id None)."""
        refs = list(self._refs) + list(self._exchanges)
        if not refs:
            return []
        try:
            ready, _ = self.ray.wait(refs, num_returns=len(refs), timeout=timeout)
        except KeyboardInterrupt as e:
            # Ray turns what a signal handler raised inside its wait into a plain
            # KeyboardInterrupt; a SIGTERM handler has set SIGTERM aside: say which it was.
            if not isinstance(e, Terminated) and signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
                raise Terminated() from None
            raise
        out: list[tuple[int, int | None, JobResult, bool]] = []
        for ref in ready:
            if ref in self._exchanges:
                worker = self._exchanges.pop(ref)
                with contextlib.suppress(Exception):  # a dead worker: its job's retry answers
                    out.append((worker, None, JobResult(None, self.ray.get(ref)), False))
                continue
            worker, job_id = self._refs.pop(ref)
            try:
                incarnation, result = self.ray.get(ref)
            except Exception as e:
                raise ClusterError(f"job {job_id} failed on worker {worker}: {_first_line(e)}") from None
            restarted = self._incarnations[worker] not in (None, incarnation)
            self._incarnations[worker] = incarnation
            out.append((worker, job_id, result, restarted))
        return out

    def stop(self, worker: int, job_id: int) -> None:
        self._actors[worker].stop.remote(job_id)

    def alive(self) -> int:
        """Workers that have a CPU on a live node (read from Ray at most every two seconds)."""
        now = time.monotonic()
        if now - self._alive_at >= 2.0:
            self._alive_at = now
            with contextlib.suppress(Exception):
                cpus = sum(n["Resources"].get("CPU", 0) for n in self.ray.nodes() if n.get("Alive"))
                self._alive = min(self.workers, int(cpus))
        return self._alive

    def close(self) -> None:
        for ref in list(self._refs):
            with contextlib.suppress(Exception):
                self.ray.cancel(ref)
        self._refs.clear()
        self._exchanges.clear()
        for actor in self._actors:
            with contextlib.suppress(Exception):
                self.ray.kill(actor)
        self._actors = []
        if self._old_sigterm is not None:
            with contextlib.suppress(ValueError):
                signal.signal(signal.SIGTERM, self._old_sigterm)
            self._old_sigterm = None
        if self._started:
            self.ray.shutdown()
            self._started = False


def _check_listening(address: str) -> None:
    """Fail at once when nothing listens at HOST:PORT (Ray itself retries for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        if address == "auto" or address.startswith(("ray://", "http://", "https://")):
            return
        raise ClusterError(f"--address {address}: give auto or HOST:PORT (as printed by `ray start --head`)")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as e:
        why = e.strerror or e
        raise ClusterError(f"cannot join Ray at {address}: nothing answers there ({why})") from None


def _token_auth_if_available() -> None:
    """Join with Ray's token authentication when a token is at hand and nothing else is asked.

    Ray (2.59 and later) starts clusters with token authentication, but a process that
    joins one by address sends the token only when ``RAY_AUTH_MODE=token``; a token sent
    to a cluster without authentication does no harm.  Ray reads the token itself
    (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``).
    """
    if "RAY_AUTH_MODE" in os.environ:
        return
    default = os.path.join(os.path.expanduser("~"), ".ray", "auth_token")
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.exists(default):
        os.environ["RAY_AUTH_MODE"] = "token"


def _sigterm_as_interrupt(signum: int, frame: Any) -> None:
    """SIGTERM stops the driver as Ctrl-C does (Ray's own handler would exit at once)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the clean-up short
    raise Terminated()


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


# ============================================================ the rules
class NormalRules:
    """Normal play nodes: ``(land, k)`` for one land and a heap, ``(lands, k)`` for a sum."""

    def __init__(self, solver: NormalSearch) -> None:
        self.solver = solver

    def settled(self, node: Any) -> bool | None:
        what, k = node
        r = self.solver.node_of((what,) if isinstance(what, str) else what, k)
        return r if isinstance(r, bool) else None

    def children(self, node: Any) -> list[Any] | None:
        what, k = node
        if not isinstance(what, str):
            return None  # a sum goes out whole (its smaller lands' nimbers come first)
        s = self.solver
        kids = [s.node_of(c, k) for c in s.children_of(what)]
        kids += [s.node_of((what,), j) for j in range(k)]
        return list(dict.fromkeys(kids))

    def expandable(self, node: Any) -> bool:
        return isinstance(node[0], str)

    def job(self, node: Any) -> Job:
        what, k = node
        return ("normal", (what,) if isinstance(what, str) else tuple(what), k)

    def lives(self, node: Any) -> int:
        what, _ = node
        if isinstance(what, str):
            return land_lives(what)
        return sum(land_lives(x) for x in what)

    def record(self, node: Any, win: bool) -> None:
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

    def __init__(self, solver: MisereSolver, table: Any) -> None:
        self.solver = solver
        self.table = table
        self._states: dict[str, Any] = {}

    def _state(self, node: str) -> Any:
        st = self._states.get(node)
        if st is None:
            from ..engine.reduce import reduced_lands

            p = Position.from_string(node)
            st = self._states[node] = self.solver._state(tuple(reduced_lands(p)), (), p.heaps)
        return st

    def settled(self, node: str) -> bool | None:
        return self.solver._known(self._state(node))

    def children(self, node: str) -> list[str]:
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


# ======================================================== the split search
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

    def __init__(self, key: Any, lives: int, budget: int, expandable: bool) -> None:
        self.key = key
        self.expandable = expandable
        self.lives = lives
        self.children: list[Any] | None = None  # None: a leaf
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
        runner: Any,
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
        self._jobs: dict[int, dict[str, Any]] = {}  # job id -> trace entry (and the node)
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
    def solve(self, rules: Any, root: Any) -> bool:
        """Is ``root`` a win for the player to move? (``rules``: ``NormalRules`` or ``MisereRules``)"""
        self.rules = rules
        self.nodes: dict[Any, _Node] = {}
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
    def _need(self, key: Any) -> _Node:
        node = self.nodes.get(key)
        if node is None:
            rules = self.rules
            node = self.nodes[key] = _Node(key, rules.lives(key), self.budget, rules.expandable(key))
        return node

    def _refresh(self, root: Any) -> None:
        """Decide what the facts decide, recompute the numbers, stop jobs no longer needed."""
        seen: set[Any] = set()
        self._eval(root, seen)
        for node in list(self.nodes.values()):
            if node.job is not None and (node.key not in seen or node.win is not None):
                worker, job_id = node.job
                self.runner.stop(worker, job_id)
                self._jobs[job_id]["stopped"] = True
                node.job = None

    def _eval(self, key: Any, seen: set[Any]) -> None:
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
    def _dispatch(self, root: Any) -> None:
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

    def _descend(self, root: Any, flag: str) -> list[Any] | None:
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

    def _send(self, node: _Node, parent: Any) -> None:
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
                entry.update(
                    done=time.perf_counter() - self._t0,
                    seconds=round(result.seconds, 4),
                    cpu=round(result.cpu, 4),
                    nodes=result.nodes,
                    facts_out=len(result.facts) + entry.pop("streamed", 0),
                    answer=result.answer,
                )
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
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while len(self._idle) < self.runner.workers and time.monotonic() < deadline:
            try:
                results = self.runner.wait(0.25)
            except (ClusterError, KeyboardInterrupt):
                break
            for item in results:
                self._on_result(*item)

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
                for worker, job_id, result, restarted in self.runner.wait(0.25):
                    if job_id is None:
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
                    answered = ids.pop(job_id, None)
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
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while len(self._idle) < self.runner.workers and time.monotonic() < deadline:
            try:
                results = self.runner.wait(0.25)
            except (ClusterError, KeyboardInterrupt):
                break
            for worker, job_id, result, _ in results:
                if job_id is not None:
                    self._idle.append(worker)
                self._merge(worker, result.facts, merge)
        self._idle.sort()


class ClusterBackend:
    """What a ``Session`` uses to answer its large questions on a cluster."""

    def __init__(
        self,
        runner: Any,
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
        workers: int = self.runner.workers
        return workers

    @property
    def stats(self) -> ClusterStats:
        return self.search.stats

    def normal_wins(self, solver: NormalSearch, land: str, k: int) -> bool:
        """Is ``land + *k`` a win? (normal play)"""
        rules = NormalRules(solver)
        return self.search.solve(rules, (land, k))

    def misere_wins(self, solver: Any, table: Any, position: str) -> bool:
        """Is ``position`` a misère win for the player to move?"""
        return self.search.solve(MisereRules(solver, table), position)

    def whole(self, jobs: list[Job], normal: NormalSearch, misere: Any, table: Any) -> list[JobResult]:
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
        """The jobs of the run as JSON lines (for ``benchmarks/sim_cluster.py``)."""
        with open(path, "w") as f:
            for entry in self.stats.trace:
                row = dict(entry)
                row["node"] = str(row["node"])
                f.write(json.dumps(row) + "\n")
