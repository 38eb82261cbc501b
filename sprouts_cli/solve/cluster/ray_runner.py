"""``RayRunner``: the driver's jobs on Ray actors, and what the driver uses of Ray.

Ray is an optional dependency: the Protocols below name the part of its interface
this module calls (``import_ray`` gives the module as a ``RayModule``), so the
types hold whether Ray is installed or not.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable
from types import FrameType
from typing import Protocol, TypedDict, cast

from ...cpus import usable_cpus
from ...errors import ClusterError
from ...procs import Terminated
from ..jobs import Fact, Job, JobResult, JobSolver
from .base import INSTALL_HINT, Event


class ObjectRef(Protocol):
    """A Ray object reference: the future result of one remote call (used as a dict key)."""

    def __hash__(self) -> int: ...


class RemoteMethod(Protocol):
    """An actor's method called on Ray: ``.remote(...)`` starts it and gives its result's reference."""

    def remote(self, *args: object) -> ObjectRef: ...


class SolverActorHandle(Protocol):
    """A ``_SolverActor`` living in a Ray worker process."""

    pid: RemoteMethod
    run: RemoteMethod
    stop: RemoteMethod
    exchange: RemoteMethod


class ActorClass(Protocol):
    """A class made remote by ``ray.remote``: ``.remote()`` starts an actor."""

    def remote(self) -> SolverActorHandle: ...


class NodeInfo(TypedDict):
    """What ``ray.nodes()`` says of a node (the keys read here)."""

    Alive: bool
    Resources: dict[str, float]


class RayModule(Protocol):
    """The ``ray`` module, as far as this runner uses it."""

    def is_initialized(self) -> bool: ...

    def init(self, **options: object) -> object: ...

    def shutdown(self) -> None: ...

    def cluster_resources(self) -> dict[str, float]: ...

    def nodes(self) -> list[NodeInfo]: ...

    def remote(self, **options: object) -> Callable[[type], ActorClass]: ...

    def get(self, refs: ObjectRef | list[ObjectRef]) -> object: ...

    def wait(
        self, refs: list[ObjectRef], *, num_returns: int, timeout: float
    ) -> tuple[list[ObjectRef], list[ObjectRef]]: ...

    def cancel(self, ref: ObjectRef) -> None: ...

    def kill(self, actor: SolverActorHandle) -> None: ...


#: What ``signal.signal`` gives back and takes: a handler, a ``signal.Handlers`` value, or None.
SignalHandler = Callable[[int, FrameType | None], object] | int | None


def import_ray() -> RayModule:
    """The ``ray`` module, or a ``ClusterError`` naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise ClusterError(f"--cluster ray needs Ray, which is not installed: {INSTALL_HINT}") from None
    return cast(RayModule, ray)


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
        in_main_thread = threading.current_thread() is threading.main_thread()
        # ray.init puts in a SIGTERM handler of its own that exits at once (status 15, nothing
        # kept): close() puts back the one from before, not Ray's, so that a SIGTERM while the
        # run ends still stops it cleanly.
        self._old_sigterm: SignalHandler = signal.getsignal(signal.SIGTERM) if in_main_thread else None
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            import logging

            kwargs: dict[str, object] = {
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
        self._refs: dict[ObjectRef, tuple[int, int]] = {}
        self._exchanges: dict[ObjectRef, int] = {}  # replies of running jobs' exchanges -> worker
        self._alive, self._alive_at = self.workers, 0.0
        if in_main_thread:
            signal.signal(signal.SIGTERM, _sigterm_as_interrupt)

    def pids(self) -> list[int]:
        """The process id of each actor (tests kill one to check the retries)."""
        return cast("list[int]", self.ray.get([a.pid.remote() for a in self._actors]))

    def submit(self, worker: int, job_id: int, job: Job, budget: int | None, facts: list[Fact]) -> None:
        ref = self._actors[worker].run.remote(job_id, job, budget, facts)
        self._refs[ref] = (worker, job_id)

    def exchange(self, worker: int, facts: list[Fact]) -> None:
        """Send facts to a worker's running job and ask for the facts it proved so far (see ``wait``)."""
        self._exchanges[self._actors[worker].exchange.remote(facts)] = worker

    def exchanging(self, worker: int) -> bool:
        return worker in self._exchanges.values()

    def wait(self, timeout: float) -> list[Event]:
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
        out: list[Event] = []
        for ref in ready:
            if ref in self._exchanges:
                worker = self._exchanges.pop(ref)
                with contextlib.suppress(Exception):  # a dead worker: its job's retry answers
                    out.append((worker, None, JobResult(None, cast("list[Fact]", self.ray.get(ref))), False))
                continue
            worker, job_id = self._refs.pop(ref)
            try:
                incarnation, result = cast("tuple[str, JobResult]", self.ray.get(ref))
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


def _sigterm_as_interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM stops the driver as Ctrl-C does (Ray's own handler would exit at once)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the clean-up short
    raise Terminated()


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
