"""Work, not seconds: the meter that bounds picture work (the rungs of the ladder, Z's layouts).

One unit is one point through one evaluation of an energy: a point of a band (``band.py``,
the router's and pushing's curves) or of a skeleton (``skeleton.py``, A, R and Z's polish).
These evaluations are where drawing spends most of its CPU time, and counting them
rather than reading a clock means the same picture gives up at the same place on any
machine and under any load.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


class OverBudget(Exception):
    """The work of a metered block ran past its budget (``metered``)."""


@dataclass
class Meter:
    """Work done in a block: one unit per point per evaluation of a band's or skeleton's energy."""

    budget: float
    done: int = 0
    outer: Meter | None = None


_METER: ContextVar[Meter | None] = ContextVar("picture_work", default=None)


@contextmanager
def metered(budget: float) -> Iterator[Meter]:
    """Count the work done inside the block; past ``budget`` units the next evaluation of an
    energy raises ``OverBudget``.  Blocks may nest: work counts in each."""
    meter = Meter(budget, outer=_METER.get())
    token = _METER.set(meter)
    try:
        yield meter
    finally:
        _METER.reset(token)


def charge(points: int) -> None:
    """Count ``points`` units in every open metered block; ``OverBudget`` once one is spent."""
    meter = _METER.get()
    while meter is not None:
        meter.done += points
        if meter.done > meter.budget:
            raise OverBudget(f"{meter.done:,} point-evaluations, the budget is {meter.budget:,.0f}")
        meter = meter.outer


__all__ = ["Meter", "OverBudget", "charge", "metered"]
