"""Work, not seconds: the meter that bounds picture work (the rungs of the ladder, Z's layouts).

One unit is one point through one evaluation of an energy: a point of a band (``band.py``,
the router's and pushing's curves) or of a skeleton (``skeleton.py``, A, R and Z's polish).
These evaluations are where drawing spends most of its CPU time, and counting them
rather than reading a clock means the same picture gives up at the same place on any
machine and under any load.

A block may also count the grid searches run inside it (``metered(..., searches=True)``: pushing,
whose ghosts are planned again at narrower widths): every ``STATES_PER_UNIT`` states an A*
expands, or cells a plan's grid or a widest-way search covers, are one unit more, so that one
budget bounds the whole block.  Blocks that do not ask are charged for their energies only.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

#: Grid-search states (A* expansions, grid cells planned or searched) counted as one unit in a
#: block that counts searches: about the CPU time of one band point-evaluation (the figures are in
#: docs/performance.md).
STATES_PER_UNIT = 8


class OverBudget(Exception):
    """The work of a metered block ran past its budget (``metered``)."""


@dataclass
class Meter:
    """Work done in a block: one unit per point per evaluation of a band's or skeleton's energy."""

    budget: float
    done: int = 0
    outer: Meter | None = None
    #: are grid-search states counted here too (``charge_states``)?
    searches: bool = False


_METER: ContextVar[Meter | None] = ContextVar("picture_work", default=None)


@contextmanager
def metered(budget: float, searches: bool = False) -> Iterator[Meter]:
    """Count the work done inside the block; past ``budget`` units the next evaluation of an
    energy raises ``OverBudget``.  Blocks may nest: work counts in each.  With ``searches`` the
    grid searches inside count too (``charge_states``)."""
    meter = Meter(budget, outer=_METER.get(), searches=searches)
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


def charge_states(states: int) -> None:
    """Count ``states`` grid-search states (``STATES_PER_UNIT`` to a unit, rounded up) in every
    open block that counts searches; ``OverBudget`` once one is spent."""
    units = -(-max(int(states), 0) // STATES_PER_UNIT)
    spent: Meter | None = None
    meter = _METER.get()
    while meter is not None:  # every block is charged (what each reports), then the first spent raises
        if meter.searches:
            meter.done += units
            if spent is None and meter.done > meter.budget:
                spent = meter
        meter = meter.outer
    if spent is not None:
        raise OverBudget(f"{spent.done:,} units, searches counted, the budget is {spent.budget:,.0f}")


def states_left() -> int:
    """The grid-search states the open blocks that count searches still allow (-1: no such block).

    A search given this bound as its own stops where the block's budget would (``charge_states``)."""
    least = -1
    meter = _METER.get()
    while meter is not None:
        if meter.searches and math.isfinite(meter.budget):
            left = max(int(meter.budget) - meter.done, 0) * STATES_PER_UNIT
            least = left if least < 0 else min(least, left)
        meter = meter.outer
    return least


__all__ = ["STATES_PER_UNIT", "Meter", "OverBudget", "charge", "charge_states", "metered", "states_left"]
