"""Worker processes that end with their parent, and a parent that stops cleanly on SIGTERM.

A worker must never outlive the process that started it, however that process ends
(Ctrl-C, SIGTERM from ``timeout``, even SIGKILL, which nobody can catch).  Two
mechanisms, so that one failing is not fatal:

* on Linux the kernel sends the worker SIGTERM when its parent dies
  (``prctl(PR_SET_PDEATHSIG)``, called through ctypes);
* everywhere, a watchdog thread in the worker notices that its parent changed
  (``os.getppid()``) within half a second and sends the worker SIGTERM itself.

A worker ends on SIGTERM silently (no traceback, no BrokenPipeError), and ignores
Ctrl-C: the parent decides what to keep and when to stop.  The parent side
(``sigterm_as_interrupt``) turns SIGTERM into ``Terminated``, a ``KeyboardInterrupt``,
so that SIGTERM takes the same clean path as Ctrl-C (keeping what was proved) and
the command exits with 143.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

T = TypeVar("T")

#: ``prctl`` option asking for a signal when the parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1
#: Seconds between two looks of the watchdog at the parent.
WATCH_SECONDS = 0.5
#: Exit codes of a command stopped by Ctrl-C and by SIGTERM (128 + the signal's number).
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM reached the main process: stop as for Ctrl-C, keeping what was proved."""


def _raise_terminated(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the clean-up short
    raise Terminated()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises ``Terminated`` in the main thread (a ``KeyboardInterrupt``)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def stops_cleanly_on_sigterm(command: Callable[..., T]) -> Callable[..., T]:
    """Decorate a command so that SIGTERM during it raises ``Terminated`` (see ``sigterm_as_interrupt``)."""

    @functools.wraps(command)
    def run(*args: object, **kwargs: object) -> T:
        with sigterm_as_interrupt():
            return command(*args, **kwargs)

    return run


def interrupted_exit_code(error: BaseException) -> int:
    """130 for Ctrl-C, 143 for SIGTERM."""
    return EXIT_TERMINATED if isinstance(error, Terminated) else EXIT_INTERRUPTED


def _ask_kernel_for_parent_death_signal() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # no libc or no prctl: the watchdog remains
        pass


def _watch_parent(parent: int) -> None:
    import time

    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)
            return


def _quiet_exit(signum: int, frame: object) -> None:
    os._exit(0)


def die_with_parent(
    parent: int | None = None,
    on_term: Callable[[int, object], None] | None = None,
    quit_on_interrupt: bool = False,
) -> None:
    """Make this worker end when ``parent`` (default: the current parent) ends, by any signal.

    ``on_term`` handles SIGTERM (default: exit at once, silently).  Ctrl-C is ignored,
    or with ``quit_on_interrupt`` ends the worker silently (a pool worker in the
    terminal's process group: the parent gets the same Ctrl-C and stops the work).
    Called first thing in a worker (a ``ProcessPoolExecutor`` initializer, or a
    worker's main function).
    """
    parent = os.getppid() if parent is None else parent
    signal.signal(signal.SIGINT, _quiet_exit if quit_on_interrupt else signal.SIG_IGN)
    signal.signal(signal.SIGTERM, on_term or _quiet_exit)
    _ask_kernel_for_parent_death_signal()
    if os.getppid() != parent:  # the parent died before the kernel was asked
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()


def end_pool(pool: Executor) -> None:
    """End a ``ProcessPoolExecutor`` now: its workers are sent SIGTERM (they exit silently)
    instead of being waited for, and queued work is dropped."""
    processes = dict(getattr(pool, "_processes", None) or {})
    for proc in processes.values():
        with contextlib.suppress(Exception):
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def pool_initializer(parent: int, then: Callable[..., None] | None = None, *args: object) -> None:
    """A ``ProcessPoolExecutor`` initializer: ``die_with_parent(parent)``, then ``then(*args)``."""
    die_with_parent(parent, quit_on_interrupt=True)
    if then is not None:
        then(*args)


__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "Terminated",
    "die_with_parent",
    "end_pool",
    "interrupted_exit_code",
    "pool_initializer",
    "sigterm_as_interrupt",
    "stops_cleanly_on_sigterm",
]
