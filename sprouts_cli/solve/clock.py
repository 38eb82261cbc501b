"""One clock for every search: a ``Deadline`` that is cheap to poll, and ``OutOfTime``.

A search holds one ``Deadline``.  Each public call sets it for its own duration::

    with self.deadline.until(deadline):   # a time.monotonic() value, or None
        ...                               # the search calls self.deadline.check()

A call given None keeps the time of the call around it (none at the top: no limit),
and the time around it comes back when the call ends, so searches may nest.  Polling
is cheap: ``check`` reads the clock only every ``every``-th time it is called, and
raises ``OutOfTime`` once the time has passed.  What the search proved before is its
own to keep.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..errors import OutOfTime, SolveInterrupted


class Deadline:
    """The ``time.monotonic()`` value a search must stop by (``at``; None: no limit)."""

    __slots__ = ("_outer", "_polls", "at", "every", "message")

    def __init__(self, every: int = 1, message: str = "the search ran out of time") -> None:
        self.at: float | None = None
        self.every = every
        self.message = message
        self._polls = 0
        self._outer: list[float | None] = []

    def until(self, at: float | None) -> Deadline:
        """Stop by ``at`` inside the ``with`` block (None: keep the time of the block around it)."""
        self._outer.append(self.at)
        if at is not None:
            self.at = at
        return self

    def __enter__(self) -> Deadline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.at = self._outer.pop()

    @property
    def polls(self) -> int:
        """How many times ``check`` was called (a search's steps)."""
        return self._polls

    def passed(self, now: float | None = None) -> bool:
        """Is the time past (``now`` a ``time.monotonic()`` value already read, or None to read it)?"""
        if self.at is None:
            return False
        return (time.monotonic() if now is None else now) > self.at

    def check(self) -> None:
        """Raise ``OutOfTime`` once the time has passed (the clock is read every ``every`` calls)."""
        self._polls += 1
        if self.at is not None and self._polls % self.every == 0 and time.monotonic() > self.at:
            raise OutOfTime(self.message)


class StopClock(Deadline):
    """A ``Deadline`` that also asks ``should_stop`` at every reading of the clock and raises
    ``SolveInterrupted`` when told to (a worker whose answer is no longer needed)."""

    __slots__ = ("should_stop",)

    def __init__(
        self, should_stop: Callable[[], bool], every: int = 1, message: str = "the search ran out of time"
    ) -> None:
        super().__init__(every=every, message=message)
        self.should_stop = should_stop

    def check(self) -> None:
        if (self._polls + 1) % self.every == 0 and self.should_stop():
            raise SolveInterrupted("the search was asked to stop")
        super().check()


__all__ = ["Deadline", "OutOfTime", "StopClock"]
