"""Worker processes for the solvers: the children of the root are solved side by side.

A question at the root ("is this position a win?") is answered by its children: it
is a win when some child is a loss, a loss when every child is a win.  Each child is
a question of its own, and ``WorkerPool`` hands them out to worker processes in
order, as workers come free.  When a child turns out lost, the root is decided, the
other workers are told to stop (they keep what they proved) and the rest are
dropped.  The answer is the same for any number of workers: only the time changes.

The workers share what they prove through the table of solved positions (WAL mode;
each commits its facts in short transactions), read it for what the others proved,
and each keeps its own memory between questions.

Each worker is a fresh interpreter (``python -m sprouts_cli.solve.workers``) talking
over its stdin/stdout in pickled messages, so no SQLite connection ever crosses a
``fork()`` and the caller's main module is never imported again (a script without an
``if __name__ == "__main__"`` guard can use the pool).  A worker ignores Ctrl-C; the
main process stops it with SIGUSR1 (where there is no SIGUSR1 it is ended), and it
commits what it proved before it answers "stopped".  A worker never outlives the
main process (``procs.die_with_parent``): when the main process ends by any signal,
SIGKILL included, the worker gets SIGTERM, commits what it proved and exits silently.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from ..errors import TableError, WorkerError

#: A question for a worker: ("normal", lands, heap) or ("misere", position text).
Question = tuple[Any, ...]
#: What a worker sends back: ``(kind, task id, answer, counters)``.
Reply = tuple[Any, ...]
#: How long to wait for stopped workers to commit and report before they are ended.
STOP_GRACE_SECONDS = 10.0
#: Seconds between two progress reports of a worker.
REPORT_SECONDS = 0.5

_HEADER = struct.Struct("!I")
_CAN_SIGNAL = hasattr(signal, "SIGUSR1")



@dataclass
class PoolStats:
    """What the workers report: per worker, its latest counters."""

    per_worker: dict[int, dict[str, int]] = field(default_factory=dict)

    def total(self, key: str) -> int:
        return sum(s.get(key, 0) for s in self.per_worker.values())


def _send(stream: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _receive(stream: IO[bytes]) -> Any:
    """The next message (whatever was pickled), or None when the stream has ended."""
    head = _read_exactly(stream, _HEADER.size)
    if head is None:
        return None
    body = _read_exactly(stream, _HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)


# ====================================================================== a worker
class _ParentGone(BaseException):
    """The main process has ended (SIGTERM from the kernel or the watchdog, or a closed pipe)."""


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Keep a Ctrl-C that arrives inside the block and raise it when the block ends.

    numba compiles and loads code in C: a ``KeyboardInterrupt`` raised there is printed
    and dropped, so without this a Ctrl-C during a compile (the first run after an
    install) would be lost and the solve would go on.  Outside the main thread (where
    handlers cannot be set) it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
    if caught:
        if callable(before):
            before(signal.SIGINT, None)
        elif before == signal.SIG_DFL:
            raise KeyboardInterrupt


def _parent_gone(signum: int, frame: object) -> None:
    raise _ParentGone()


def worker_main(db_path: str, parent: int | None = None, use_imports: bool = True) -> None:
    """The loop of one worker process: answer questions read from stdin until EOF."""
    from ..engine.backend import prepare_compiled_kernels
    from ..procs import die_with_parent

    prepare_compiled_kernels()  # loaded before a signal from the parent's end can interrupt it
    with contextlib.suppress(_ParentGone, BrokenPipeError):
        die_with_parent(parent, on_term=_parent_gone)  # also ignores Ctrl-C; the parent may be gone
        _serve(db_path, use_imports)
    # Nothing may be printed after the main process has gone (a flush of a closed pipe
    # would print a BrokenPipeError): leave without the interpreter's clean-up.
    sys.stderr.flush()
    os._exit(0)


def _serve(db_path: str, use_imports: bool) -> None:
    stop = {"asked": False}
    if _CAN_SIGNAL:
        signal.signal(signal.SIGUSR1, lambda *_: stop.__setitem__("asked", True))
    from ..errors import SolveAborted
    from .nimbers import NormalSolver
    from .store import Table

    inp = sys.stdin.buffer
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")  # the channel to the main process
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print cannot corrupt it
    table = Table(db_path, use_imports=use_imports)
    normal = NormalSolver(table, abort=lambda: stop["asked"], refresh_seconds=1.0)
    misere: Any = None
    last = [time.monotonic()]

    def report(_: object = None) -> None:
        now = time.monotonic()
        if now - last[0] >= REPORT_SECONDS:
            last[0] = now
            _send(out, ("stats", None, None, _stats(normal, misere, table)))

    normal.progress = report

    def misere_abort() -> bool:
        report()  # the misère search has no progress callback: its clock's readings report for it
        return stop["asked"]

    try:
        while True:
            item = _receive(inp)
            if item is None:
                break
            tid, question = item
            stop["asked"] = False
            # a stop may be sent from now on
            _send(out, ("started", tid, None, _stats(normal, misere, table)))
            try:
                if question[0] == "normal":
                    answer: Any = normal.sum_wins(tuple(question[1]), question[2])
                elif question[0] == "misere":
                    if misere is None:
                        from .misere import REFRESH_SECONDS, MisereSolver

                        misere = MisereSolver(table, abort=misere_abort, refresh_seconds=REFRESH_SECONDS)
                    answer = misere.outcome(question[1])
                else:
                    raise ValueError(f"unknown question {question[0]!r}")
                kind = "done"
            except SolveAborted:
                kind, answer = "stopped", None
            except TableError as e:  # a full disk, a file it may not write: said as it is
                kind, answer = "table-error", str(e)
            except Exception as e:  # reported to the main process, which raises it
                kind, answer = "error", f"{type(e).__name__}: {e}"
            if kind != "table-error":
                try:
                    table.flush()
                except TableError as e:
                    kind, answer = "table-error", str(e)
            _send(out, (kind, tid, answer, _stats(normal, misere, table)))
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # commit what was proved, uninterrupted
        with contextlib.suppress(Exception):
            table.close()


def _stats(normal: Any, misere: Any, table: Any) -> dict[str, int]:
    out = {
        "imported_used": table.imported_used,
        "positions_solved": normal.stats["positions_solved"],
        "table_hits": normal.stats["table_hits"],
        "lands_expanded": normal.stats["lands_expanded"],
        "nodes": normal.stats["nodes"],
        "cpu_ms": int(time.process_time() * 1000),
    }
    if misere is not None:
        out["positions_solved"] += misere.stats.get("positions_solved", 0)
        out["table_hits"] += misere.stats.get("table_hits", 0)
        out["nodes"] += misere.stats.get("nodes", 0)
    return out


# ====================================================================== the pool
def _is_loss(_: int, answer: bool) -> bool:
    return not answer


class _Worker:
    """One worker process and its pipes."""

    def __init__(self, wid: int, db_path: str, use_imports: bool = True) -> None:
        self.wid = wid
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        import subprocess  # here, as selectors below: a solve with no worker processes loads neither

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sprouts_cli.solve.workers"]
            + [db_path, str(os.getpid()), str(int(use_imports))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,  # Ctrl-C at the terminal reaches the main process only
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both are pipes
        self.stdin: IO[bytes] = self.proc.stdin
        self.stdout: IO[bytes] = self.proc.stdout
        self.task: tuple[int, int] | None = None  # (task id, question index)
        self.started = False  # the worker has read the current question (a signal now stops it)
        self.stop_pending = False  # a stop asked before the worker had read the question
        self._inbox = bytearray()

    def receive(self) -> list[Reply] | None:
        """Every whole message that has arrived (None when the worker has gone).

        The pipe is read with ``os.read``, never through a buffered file: a buffered
        read may pull a second message into the file's buffer, where ``select`` cannot
        see it, and the pool would wait for it forever.
        """
        data = os.read(self.stdout.fileno(), 1 << 16)
        if not data:
            return None
        inbox = self._inbox
        inbox += data
        out: list[Reply] = []
        while len(inbox) >= _HEADER.size:
            size = _HEADER.unpack_from(inbox)[0]
            end = _HEADER.size + size
            if len(inbox) < end:
                break
            out.append(pickle.loads(bytes(inbox[_HEADER.size : end])))
            del inbox[:end]
        return out

    def ask(self, tid: int, index: int, question: Question) -> None:
        self.task = (tid, index)
        self.started = self.stop_pending = False
        _send(self.stdin, (tid, question))

    def stop(self) -> None:
        """Ask the current question to stop (the worker commits and answers "stopped").

        A signal that came before the worker read its question would be forgotten when
        it starts on it, so until the worker says "started" the stop is only noted.
        """
        if not self.started:
            self.stop_pending = True
            return
        if _CAN_SIGNAL and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGUSR1)

    def on_started(self, tid: int) -> None:
        """The worker has read question ``tid``: send the stop that waited for this."""
        if self.task is not None and self.task[0] == tid:
            self.started = True
            if self.stop_pending:
                self.stop()

    def end(self) -> None:
        """Close the pipes and make sure the process is gone."""
        with contextlib.suppress(OSError):
            self.stdin.close()
        import subprocess

        try:
            self.proc.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        with contextlib.suppress(OSError):
            self.stdout.close()


class WorkerPool:
    """``jobs`` worker processes sharing the table at ``db_path``.

    ``answer(questions, stop_at_loss)`` returns the answers (True: a win for the
    player to move) of the questions by their index; with ``stop_at_loss`` it stops
    at the first loss (with ``decides``, at the first answer for which
    ``decides(index, answer)`` is true), and the questions not answered are missing
    from the result.  ``progress`` is called with the pool's stats now and then.
    """

    def __init__(
        self,
        jobs: int,
        db_path: str | os.PathLike[str],
        progress: Callable[[PoolStats], None] | None = None,
        use_imports: bool = True,
    ) -> None:
        self.jobs = max(1, jobs)
        self.use_imports = use_imports
        self.db_path = str(db_path)
        self.progress = progress
        self.stats = PoolStats()
        self._workers: dict[int, _Worker] = {}
        import selectors

        self._selector = selectors.DefaultSelector()
        self._next_tid = 0
        self._next_wid = 0
        from ..engine.backend import prepare_compiled_kernels

        with ctrl_c_held():  # compiled once here, then loaded from numba's cache by the workers
            prepare_compiled_kernels()
        for _ in range(self.jobs):
            self._start_worker()

    def _start_worker(self) -> _Worker:
        w = _Worker(self._next_wid, self.db_path, self.use_imports)
        self._next_wid += 1
        self._workers[w.wid] = w
        import selectors

        self._selector.register(w.stdout, selectors.EVENT_READ, w)
        return w

    def _end_worker(self, w: _Worker, kill: bool = False) -> None:
        self._selector.unregister(w.stdout)
        self._workers.pop(w.wid, None)
        if kill and w.proc.poll() is None:
            w.proc.kill()
        w.end()

    # ----------------------------------------------------------------- asking
    def answer(
        self,
        questions: Sequence[Question],
        stop_at_loss: bool = False,
        decides: Callable[[int, bool], bool] | None = None,
    ) -> dict[int, bool]:
        """Answer the questions on the workers (see the class docstring)."""
        if decides is None and stop_at_loss:
            decides = _is_loss
        pending = list(range(len(questions)))[::-1]  # popped from the end: first question first
        answers: dict[int, bool] = {}
        stopping = False
        try:
            while True:
                for w in sorted(self._workers.values(), key=lambda w: w.wid):
                    if w.task is None and pending and not stopping:
                        index = pending.pop()
                        w.ask(self._next_tid, index, questions[index])
                        self._next_tid += 1
                busy = [w for w in self._workers.values() if w.task is not None]
                if not busy:
                    break
                for w, msg in self._messages():
                    kind, tid, result, stats = msg
                    self.stats.per_worker[w.wid] = stats
                    if kind == "started":
                        w.on_started(tid)
                        continue
                    if kind == "stats" or w.task is None or w.task[0] != tid:
                        continue
                    index = w.task[1]
                    w.task = None
                    if kind == "error":
                        raise WorkerError(f"worker {w.wid} failed on question {index + 1}: {result}")
                    if kind == "table-error":  # the table could not be written: one line, as the main's own
                        raise TableError(str(result))
                    if kind == "done":
                        answers[index] = bool(result)
                        if decides is not None and decides(index, bool(result)) and not stopping:
                            stopping = True
                            pending.clear()
                            self._stop_busy(questions)
                    elif not stopping:
                        raise WorkerError(f"worker {w.wid} stopped without being asked")
                self._report()
        except BaseException:
            self._stop_busy(questions, wait=True)
            raise
        return answers

    def _messages(self) -> list[tuple[_Worker, Reply]]:
        """The messages that arrive within a quarter second (a dead worker raises)."""
        out: list[tuple[_Worker, Reply]] = []
        for key, _ in self._selector.select(timeout=0.25):
            w: _Worker = key.data
            msgs = w.receive()
            if msgs is None:
                code = w.proc.wait()
                self._end_worker(w)
                self._start_worker()
                raise WorkerError(f"worker {w.wid} died (exit code {code})")
            out.extend((w, msg) for msg in msgs)
        return out

    def _stop_busy(self, questions: Sequence[Question], wait: bool = False) -> None:
        """Stop the busy workers: normal questions by a signal (they commit), others by ending them."""
        for w in list(self._workers.values()):
            if w.task is None:
                continue
            if questions[w.task[1]][0] == "normal" and _CAN_SIGNAL:
                w.stop()
            else:
                self._end_worker(w, kill=True)
                self._start_worker()
        if not wait:
            return
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while any(w.task is not None for w in self._workers.values()) and time.monotonic() < deadline:
            try:
                for w, msg in self._messages():
                    self.stats.per_worker[w.wid] = msg[3]
                    if msg[0] == "started":
                        w.on_started(msg[1])
                    elif msg[0] != "stats" and w.task is not None and w.task[0] == msg[1]:
                        w.task = None
            except WorkerError:
                pass
        for w in list(self._workers.values()):
            if w.task is not None:
                self._end_worker(w, kill=True)
                self._start_worker()

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self.stats)

    # --------------------------------------------------------------- closing
    def close(self) -> None:
        """Let every worker commit and exit."""
        for w in list(self._workers.values()):
            self._end_worker(w)
        self._selector.close()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    worker_main(
        sys.argv[1],
        int(sys.argv[2]) if len(sys.argv) > 2 else None,
        use_imports=sys.argv[3] != "0" if len(sys.argv) > 3 else True,
    )
