"""Worker processes for the solvers: the children of the root are solved side by side.

A question at the root ("is this position a win?") is answered by its children: it
is a win when some child is a loss, a loss when every child is a win.  Each child is
a question of its own, and ``WorkerPool`` hands them out to worker processes in
order, as workers come free.  When a child turns out lost, the root is decided, the
other workers are told to stop (they keep what they proved) and the rest are
dropped.  The answer is the same for any number of workers: only the time changes.

The workers share what they prove through the table of solved positions (WAL mode;
each commits its facts in short transactions), read it for what the others proved,
and each keeps its own memory between questions.  They ignore Ctrl-C: the main
process catches it, asks them to stop, and they commit what they proved before they
go.  Processes are started by a fork server, so no SQLite connection ever crosses a
``fork()``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: A question for a worker: ("normal", lands, heap) or ("misere", position text).
Question = tuple[Any, ...]
#: How long to wait for stopped workers to commit and report before they are ended.
STOP_GRACE_SECONDS = 10.0


class WorkerError(RuntimeError):
    """A worker process died or failed (the message says which and why)."""


@dataclass
class PoolStats:
    """What the workers report: per worker, its latest counters."""

    per_worker: dict[int, dict[str, int]] = field(default_factory=dict)

    def total(self, key: str) -> int:
        return sum(s.get(key, 0) for s in self.per_worker.values())


# ====================================================================== workers
_state: dict[str, Any] = {}


def _worker_main(wid: int, db_path: str, tasks: Any, results: Any, abort: Any) -> None:
    """The loop of one worker process: answer questions until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .nimbers import NormalSolver, SolveAborted
    from .store import Table

    table = Table(db_path)
    normal = NormalSolver(table, abort=abort.is_set, refresh_seconds=1.0)
    misere = None
    last_report = time.monotonic()

    def report(stats: dict[str, int]) -> None:
        nonlocal last_report
        now = time.monotonic()
        if now - last_report >= 0.5:
            last_report = now
            results.put(("stats", wid, None, _stats(normal, misere)))

    normal.progress = report
    try:
        while True:
            item = tasks.get()
            if item is None:
                break
            tid, question = item
            try:
                if question[0] == "normal":
                    _, lands, heap = question
                    answer: Any = normal.sum_wins(tuple(lands), heap)
                elif question[0] == "misere":
                    if misere is None:
                        from .misere import MisereSolver

                        misere = MisereSolver(table)
                    answer = misere.outcome(question[1])
                else:
                    raise ValueError(f"unknown question {question[0]!r}")
                kind = "done"
            except SolveAborted:
                kind, answer = "stopped", None
            except Exception as e:  # reported to the main process, which raises it
                kind, answer = "error", f"{type(e).__name__}: {e}"
            table.flush()
            results.put((kind, wid, tid, answer, _stats(normal, misere)))
    finally:
        table.close()


def _stats(normal: Any, misere: Any) -> dict[str, int]:
    out = {
        "positions_solved": normal.stats["positions_solved"],
        "table_hits": normal.stats["table_hits"],
        "lands_expanded": normal.stats["lands_expanded"],
    }
    if misere is not None:
        out["positions_solved"] += misere.stats.get("positions_solved", 0)
        out["table_hits"] += misere.stats.get("table_hits", 0)
    return out


# ====================================================================== the pool
class WorkerPool:
    """``jobs`` worker processes sharing the table at ``db_path``.

    ``answer(questions, stop_at_loss)`` returns the answers (True: a win for the
    player to move) of the questions, in order; with ``stop_at_loss`` it stops at the
    first loss, and the questions not answered are missing from the result.
    ``progress`` is called with the pool's stats now and then.
    """

    def __init__(
        self,
        jobs: int,
        db_path: str | os.PathLike[str],
        progress: Callable[[PoolStats], None] | None = None,
    ) -> None:
        methods = mp.get_all_start_methods()
        self.ctx = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
        self.jobs = max(1, jobs)
        self.db_path = str(db_path)
        self.progress = progress
        self.stats = PoolStats()
        self.abort = self.ctx.Event()
        self.results = self.ctx.Queue()
        self._procs: dict[int, Any] = {}
        self._tasks: dict[int, Any] = {}
        self._next_tid = 0
        self._next_wid = 0
        for _ in range(self.jobs):
            self._start_worker()

    def _start_worker(self) -> int:
        wid = self._next_wid
        self._next_wid += 1
        tasks = self.ctx.Queue()
        proc = self.ctx.Process(
            target=_worker_main,
            args=(wid, self.db_path, tasks, self.results, self.abort),
            name=f"sprouts-solve-{wid}",
            daemon=True,
        )
        proc.start()
        self._procs[wid] = proc
        self._tasks[wid] = tasks
        return wid

    # ----------------------------------------------------------------- asking
    def answer(self, questions: Sequence[Question], stop_at_loss: bool = False) -> dict[int, bool]:
        """Answer the questions on the workers (see the class docstring)."""
        pending = list(range(len(questions)))[::-1]  # popped from the end: first question first
        busy: dict[int, tuple[int, int]] = {}  # wid -> (tid, question index)
        idle = sorted(self._procs)
        answers: dict[int, bool] = {}
        stopping = False
        self.abort.clear()
        try:
            while pending or busy:
                while idle and pending and not stopping:
                    wid = idle.pop(0)
                    index = pending.pop()
                    tid = self._next_tid
                    self._next_tid += 1
                    self._tasks[wid].put((tid, questions[index]))
                    busy[wid] = (tid, index)
                if not busy:
                    break
                msg = self._receive(busy)
                if msg is None:
                    continue
                kind, wid, tid, answer, stats = msg
                self.stats.per_worker[wid] = stats
                if wid not in busy or busy[wid][0] != tid:
                    continue
                _, index = busy.pop(wid)
                idle.append(wid)
                idle.sort()
                if kind == "error":
                    raise WorkerError(f"worker {wid} failed on question {index + 1}: {answer}")
                if kind == "done":
                    answers[index] = bool(answer)
                    if stop_at_loss and not answer and not stopping:
                        stopping = True
                        pending.clear()
                        self.abort.set()
                        for other, (_, i) in list(busy.items()):
                            if questions[i][0] != "normal":  # only the normal solver listens to abort
                                busy.pop(other)
                                self._end_worker(other)
                                idle.append(self._start_worker())
                elif not stopping:
                    raise WorkerError(f"worker {wid} stopped without being asked")
        except BaseException:
            self._stop(busy)
            raise
        finally:
            self.abort.clear()
        return answers

    def _receive(self, busy: dict[int, tuple[int, int]]) -> tuple | None:
        """The next result; stats messages update the progress and give None."""
        try:
            msg = self.results.get(timeout=0.25)
        except queue.Empty:
            for wid in busy:
                if not self._procs[wid].is_alive():
                    code = self._procs[wid].exitcode
                    raise WorkerError(f"worker {wid} died (exit code {code})") from None
            self._report()
            return None
        if msg[0] == "stats":
            self.stats.per_worker[msg[1]] = msg[3]
            self._report()
            return None
        self._report()
        return msg

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self.stats)

    def _stop(self, busy: dict[int, tuple[int, int]]) -> None:
        """Ask busy workers to stop (they commit what they proved); end those that do not."""
        self.abort.set()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while busy and time.monotonic() < deadline:
            try:
                msg = self.results.get(timeout=0.1)
            except queue.Empty:
                continue
            if msg[0] != "stats" and msg[1] in busy and busy[msg[1]][0] == msg[2]:
                self.stats.per_worker[msg[1]] = msg[4]
                busy.pop(msg[1])
        for wid in list(busy):
            self._end_worker(wid)
            self._start_worker()
            busy.pop(wid)

    def _end_worker(self, wid: int) -> None:
        proc = self._procs.pop(wid)
        self._tasks.pop(wid)
        if proc.is_alive():
            proc.terminate()
        proc.join(timeout=5)

    # --------------------------------------------------------------- closing
    def close(self) -> None:
        """Let every worker commit and exit."""
        for tasks in self._tasks.values():
            with contextlib.suppress(Exception):
                tasks.put(None)
        for wid in list(self._procs):
            proc = self._procs[wid]
            proc.join(timeout=STOP_GRACE_SECONDS)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
        self._procs.clear()
        self._tasks.clear()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
