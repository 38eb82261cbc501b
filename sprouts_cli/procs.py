"""Worker processes that end with their parent, and a parent that stops cleanly on a signal.

A worker must never outlive the process that started it, however that process ends
(Ctrl-C, SIGTERM from ``timeout``, even SIGKILL, which nobody can catch).  Two
mechanisms, so that one failing is not fatal:

* on Linux the kernel sends the worker SIGTERM when its parent dies
  (``prctl(PR_SET_PDEATHSIG)``, called through ctypes).  The kernel's parent is the
  *thread* that started the worker: a pool kept from one call to the next must be
  started on a thread that lives as long as the pool (``play/web_game.ComputerThread``);
* everywhere, a watchdog thread in the worker notices that its parent changed
  (``os.getppid()``) within half a second and sends the worker SIGTERM itself.

A worker ends on SIGTERM (and SIGHUP) silently (no traceback, no BrokenPipeError), and
ignores Ctrl-C: the parent decides what to keep and when to stop.

The main process (``stops_cleanly``, entered by the ``sprouts`` script before the
command line is even imported, and by the command line's group for every command)
turns SIGINT into ``KeyboardInterrupt`` and SIGTERM or SIGHUP (a closed terminal) into
``Terminated`` (a ``KeyboardInterrupt`` too), so that all take one clean path (keeping
what was proved or drawn) and the command exits with 130, 143 or 129.

A signal's Python handler runs wherever the interpreter next checks for signals, and
that may be Python code that numba's compiled code calls back (it unpickles the
constants it boxes, compiles, types its arguments).  An exception raised there does
not come out as itself: the dispatcher returns a result with the exception set, and
Python reports a ``SystemError`` with a long traceback.  The same holds inside an
import: a compiled module's initialisation reports what its Python callbacks raise as
an ``ImportError``.  So every handler here is *deferred while inside numba or an
import* (``deferred_in_compiled``): the signal is kept and delivered again a moment
later, until it lands in the project's own code.  A kernel
that runs long in one call polls a stop flag instead; ``run_stoppable`` runs it in a
thread and sets the flag when the signal comes.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

T = TypeVar("T")
Handler = Callable[[int, "FrameType | None"], None]

#: ``prctl`` option asking for a signal when the parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1
#: Seconds between two looks of the watchdog at the parent.
WATCH_SECONDS = 0.5
#: Seconds after which a signal kept back with no frame to stop in is delivered again.
RETRY_SECONDS = 0.02
#: Seconds after which a signal kept back for a frame that has not run again since is
#: delivered again (the frame may never run again: the signal must not be lost).
DEFERRED_SECONDS = 0.5
#: Seconds between two looks at the signals while a kernel runs in its thread.
WAIT_SECONDS = 0.1
#: Exit codes of a command stopped by Ctrl-C and by SIGTERM (128 + the signal's number).
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
#: The signals that stop a command cleanly: Ctrl-C, SIGTERM, and SIGHUP where there is one
#: (the terminal went away: what was proved is kept as for SIGTERM, and the exit code is 129).
STOP_SIGNALS: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM) + (
    (signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ()
)


class Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP) reached the main process: stop as for Ctrl-C, keeping what was proved."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__()
        self.signum = signum


# ------------------------------------------------------------------ never inside numba


def _compiled_dirs() -> tuple[str, ...]:
    """The directories of numba and llvmlite, once they are loaded (nothing before)."""
    dirs = []
    for name in ("numba", "llvmlite"):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            dirs.append(os.path.dirname(path) + os.sep)
    return tuple(dirs)


#: The file names importlib's own frames carry (``<frozen importlib._bootstrap>`` and
#: ``…_external>``): a module being imported.
_IMPORTING = "<frozen importlib."
#: The standard library's functions that ``os.fork`` calls around a fork
#: (``os.register_at_fork``): an exception raised in them is printed as "Exception
#: ignored" and lost, so a signal landing there waits for the code that forked.
_AT_FORK_HOOKS = frozenset(
    {"_acquireLock", "_releaseLock", "_after_at_fork_child_reinit_locks", "_after_fork"}
)


def _at_fork_hook(frame: FrameType) -> bool:
    code = frame.f_code
    return code.co_name in _AT_FORK_HOOKS and code.co_filename.endswith(
        ("logging/__init__.py", "threading.py", "random.py")
    )


#: The standard library's weak-reference callbacks (a ``WeakKeyDictionary``'s ``remove``, a
#: ``WeakSet``'s ``_remove``): CPython calls them as an object is freed and prints, then drops,
#: what is raised in them, as it does for a finaliser (``__del__``).
_WEAKREF_FILES = ("weakref.py", "_weakrefset.py")


def _drops_exceptions(frame: FrameType) -> bool:
    """Code where an exception is printed as "Exception ignored" and lost: a fork hook, a
    weak-reference callback of the standard library, a finaliser."""
    code = frame.f_code
    return _at_fork_hook(frame) or code.co_name == "__del__" or code.co_filename.endswith(_WEAKREF_FILES)


def outermost_compiled(frame: FrameType | None) -> FrameType | None:
    """The lowest frame of the stack from ``frame`` down where an exception cannot pass out
    as itself, or None: numba's (or llvmlite's) own Python code, called back from compiled
    code (unpickling a constant it boxes, typing arguments, compiling); or a module being
    imported, whose initialisation may be compiled code that calls Python back and turns
    whatever is raised there into its own error (pybind11's modules, scipy's among them,
    raise ``ImportError: initialization failed``); or code whose exceptions CPython prints and
    drops (``_drops_exceptions``: a hook ``os.fork`` runs around a fork, such as logging's
    lock; a weak-reference callback; a finaliser)."""
    dirs = _compiled_dirs()
    outer = None
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_IMPORTING) or (dirs and name.startswith(dirs)) or _drops_exceptions(frame):
            outer = frame
        frame = frame.f_back
    return outer


def inside_compiled(frame: FrameType | None) -> bool:
    """Whether ``frame`` or a frame below it is numba's own code (``outermost_compiled``)."""
    return outermost_compiled(frame) is not None


def _quiet(f: FrameType, event: str, arg: object) -> None:
    return None  # the global tracer while a signal waits: no frame but the one waited for is traced


#: The tracer that was on before ``_when_back_in`` put ``_quiet`` on (put back after).
_tracer_before: list[Any] = [None]


def _when_back_in(frame: FrameType, action: Callable[[], None]) -> None:
    """Run ``action`` at the next event (line or return) of ``frame``, the Python code that
    called into numba: the way pdb stops in a frame (its local trace function, and a
    global one so that tracing is on).  An exception ``action`` raises comes out of that
    frame as itself; tracing ends with it, and the tracer before is put back otherwise."""
    before = sys.gettrace()
    if before is not _quiet:
        _tracer_before[0] = before

    def local(f: FrameType, event: str, arg: object) -> None:
        sys.settrace(_tracer_before[0])
        f.f_trace = None
        action()

    frame.f_trace = local
    sys.settrace(_quiet)


#: The signals kept back for a frame to run again, each with the token of its delivery.
_waiting: dict[int, object] = {}


def _stop_waiting_tracer() -> None:
    """Put the tracer before back if ``_when_back_in``'s is still on (its frame never ran)."""
    if sys.gettrace() is _quiet:
        sys.settrace(_tracer_before[0])


class _Retry:
    """At most one pending delivery again of a signal kept back, per signal (when no Python
    frame is left to stop in: numba's code at the bottom of the stack)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.timers: dict[int, threading.Timer] = {}

    def later(
        self,
        signum: int,
        handler: Handler,
        delay: float = RETRY_SECONDS,
        still: Callable[[], bool] | None = None,
    ) -> None:
        """Deliver ``signum`` to ``handler`` again after ``delay`` seconds, if ``still()`` then."""
        with self.lock:
            if signum in self.timers:
                return
            timer = threading.Timer(delay, self._deliver, (signum, handler, still))
            timer.daemon = True
            self.timers[signum] = timer
        timer.start()

    def _deliver(self, signum: int, handler: Handler, still: Callable[[], bool] | None) -> None:
        with self.lock:
            self.timers.pop(signum, None)
        import _thread

        if still is not None and not still():
            return
        if signal.getsignal(signum) is handler:  # not when the handler was put away meanwhile
            _thread.interrupt_main(signal.Signals(signum))  # ``handler`` runs at the next check

    def cancel(self, signum: int) -> None:
        with self.lock:
            timer = self.timers.pop(signum, None)
        if timer is not None:
            timer.cancel()


_retry = _Retry()


def deferred_in_compiled(handler: Handler) -> Handler:
    """``handler``, run only once the main thread is out of numba's code (see the module's note).

    A signal that lands inside is kept, and ``handler`` runs at the next line of the
    Python code that called the kernel: between two kernel calls.
    """

    @functools.wraps(handler)
    def safe(signum: int, frame: FrameType | None) -> None:
        _waiting.pop(signum, None)  # this delivery stands for any kept back before
        outer = outermost_compiled(frame)
        if outer is None:
            _stop_waiting_tracer()
            handler(signum, frame)
        elif outer.f_back is None:  # pragma: no cover - numba's code is never the whole stack
            _retry.later(signum, safe)
        else:
            caller = outer.f_back
            token = _waiting[signum] = object()

            def deliver() -> None:
                if _waiting.get(signum) is token:
                    del _waiting[signum]
                    handler(signum, caller)

            _when_back_in(caller, deliver)
            # should the caller never run again, the signal is delivered once more, not lost
            _retry.later(signum, safe, DEFERRED_SECONDS, lambda: _waiting.get(signum) is token)

    return safe


# ------------------------------------------------------------------ the main process


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    if signum != signal.SIGINT:
        signal.signal(signum, signal.SIG_IGN)  # a second one must not cut the clean-up short
        raise Terminated(signum)
    raise KeyboardInterrupt()


#: The handler of the stop signals (``STOP_SIGNALS``) in the main process.
on_stop_signal = deferred_in_compiled(_raise_interrupt)


@contextlib.contextmanager
def stops_cleanly(signals: tuple[int, ...] = STOP_SIGNALS) -> Iterator[None]:
    """While inside, SIGINT raises ``KeyboardInterrupt`` and SIGTERM or SIGHUP ``Terminated`` in
    the main thread, never inside numba's code; the handlers before are put back at the end.

    A signal ignored when the block starts stays ignored (a shell's background job
    ignores Ctrl-C).  Outside the main thread, or nested, it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old: dict[int, Any] = {}
    for signum in signals:
        before = signal.getsignal(signum)
        if before is signal.SIG_IGN or before is on_stop_signal:
            continue
        old[signum] = before
        signal.signal(signum, on_stop_signal)
    try:
        yield
    finally:
        for signum, before in old.items():
            _retry.cancel(signum)
            _waiting.pop(signum, None)
            signal.signal(signum, before)
        _stop_waiting_tracer()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise ``Terminated`` in the main thread (a ``KeyboardInterrupt``)."""
    with stops_cleanly(tuple(x for x in STOP_SIGNALS if x != signal.SIGINT)):
        yield


def stops_cleanly_on_sigterm(command: Callable[..., T]) -> Callable[..., T]:
    """Decorate a command so that SIGTERM during it raises ``Terminated`` (see ``sigterm_as_interrupt``)."""

    @functools.wraps(command)
    def run(*args: object, **kwargs: object) -> T:
        with sigterm_as_interrupt():
            return command(*args, **kwargs)

    return run


def interrupted_exit_code(error: BaseException) -> int:
    """130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP (128 + the signal's number)."""
    return 128 + error.signum if isinstance(error, Terminated) else EXIT_INTERRUPTED


def run_stoppable(work: Callable[[], T], stop: Callable[[], None], deadline: float | None = None) -> T:
    """``work()``, a long kernel call that polls a stop flag, run in a thread so that a signal
    is handled at once: ``stop()`` sets the flag, the work is waited for, and the
    ``KeyboardInterrupt`` goes on.  At ``deadline`` (``time.monotonic``) ``stop()`` is
    called too, and the work's own answer returned.  Outside the main thread (signals
    are the main thread's) and with no deadline, ``work()`` runs in place.
    """
    import time

    if deadline is None and threading.current_thread() is not threading.main_thread():
        return work()
    box: dict[str, object] = {}
    # An Event, not Thread.join: a join interrupted by the signal may take the thread
    # for ended while it runs (Python 3.11's _wait_for_tstate_lock).
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as e:  # pragma: no cover - passed on below
            box["error"] = e
        finally:
            done.set()

    threading.Thread(target=target, name="kernel", daemon=True).start()
    try:
        while not done.is_set():
            # short waits: a signal delivered to another thread (or simulated) is seen at once
            if deadline is None:
                done.wait(WAIT_SECONDS)
            elif (left := deadline - time.monotonic()) > 0:
                done.wait(min(left, WAIT_SECONDS))
            else:
                stop()
                done.wait()
    except BaseException:
        stop()
        while not done.is_set():  # the kernel returns soon after it sees the flag
            with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: the first one goes on
                done.wait(WAIT_SECONDS)
        raise
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def forget_handled_interrupt() -> None:
    """Clear CPython's note of a ``KeyboardInterrupt`` that left code run by ``exec`` of a
    string (a dataclass or namedtuple being made when Ctrl-C came): the command handled
    it and exits with 130, but the interpreter would end itself by SIGINT instead.  The
    flag is a C global of CPython 3.11 and before; elsewhere nothing is done."""
    try:
        import ctypes

        ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt").value = 0
    except (ImportError, AttributeError, ValueError):  # pragma: no cover - another interpreter
        pass


# ------------------------------------------------------------------ workers


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

    ``on_term`` handles SIGTERM and SIGHUP (default: exit at once, silently); a handler given is
    never run inside numba's code (``deferred_in_compiled``).  Ctrl-C is ignored,
    or with ``quit_on_interrupt`` ends the worker silently (a pool worker in the
    terminal's process group: the parent gets the same Ctrl-C and stops the work).
    Called first thing in a worker (a ``ProcessPoolExecutor`` initializer, or a
    worker's main function).
    """
    parent = os.getppid() if parent is None else parent
    signal.signal(signal.SIGINT, _quiet_exit if quit_on_interrupt else signal.SIG_IGN)
    term = deferred_in_compiled(on_term) if on_term else _quiet_exit
    signal.signal(signal.SIGTERM, term)
    if hasattr(signal, "SIGHUP"):  # the terminal went away: the parent stops too, the worker as on SIGTERM
        signal.signal(signal.SIGHUP, term)
    _ask_kernel_for_parent_death_signal()
    if os.getppid() != parent:  # the parent died before the kernel was asked
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()


def _after_fork_in_child() -> None:
    """In a child just forked: the signals kept back belong to the parent, and until the child
    sets its own handlers (``die_with_parent``, first thing in every worker), a stop signal
    ends it at once and silently (Ctrl-C is ignored: the parent stops the work). With the
    parent's handler, ``Terminated`` would be raised in multiprocessing's start-up code, which
    prints a traceback (a pool ended while its workers were starting)."""
    _waiting.clear()
    _stop_waiting_tracer()
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is on_stop_signal:
            with contextlib.suppress(ValueError):  # not the main thread: nothing to put right
                signal.signal(signum, signal.SIG_IGN if signum == signal.SIGINT else _quiet_exit)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


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
    "deferred_in_compiled",
    "die_with_parent",
    "end_pool",
    "forget_handled_interrupt",
    "inside_compiled",
    "interrupted_exit_code",
    "on_stop_signal",
    "outermost_compiled",
    "pool_initializer",
    "run_stoppable",
    "sigterm_as_interrupt",
    "stops_cleanly",
    "stops_cleanly_on_sigterm",
]
