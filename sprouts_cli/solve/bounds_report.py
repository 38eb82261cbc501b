"""What ``sprouts bounds`` and ``api.bounds`` report about a position: the bounds m and M
(Alfeld §5.5), the exact longest and shortest games of its parts when they are proved
in the time given, and Euler's relation for a saved game's drawing.

The position comes as a :class:`Loaded`: what people see, and the drawing the lower
bound and the searches work on (a string drawn with its dead spots given back, or a
saved game's own drawing).  Reading and drawing it is the caller's part.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..engine.bounds import land_facts, lower_bound, upper_bound
from ..engine.parts import clean
from ..engine.position import EulerCounts, Position
from .lengths import Land, LengthOracle, lands_of


@dataclass
class Loaded:
    """A position to bound, and where it came from."""

    position: Position  # what people see (the string as read, or the game's position)
    stumps_known: bool  # True when ``drawing`` keeps every stump and dead region
    drawing: Position  # what the lower bound and the search work on
    euler: EulerCounts | None = None  # counted on the drawing of a saved game
    euler_position: EulerCounts | None = None  # the same counts read off its position


def part_report(land: Land, stumps_known: bool) -> dict[str, Any]:
    """Bounds of one land (its canonical form first); the lengths are filled in later."""
    facts = land_facts(clean(land.position).regions, land.position.lives)
    return {
        "position": land.key,
        "lives": facts.lives,
        "spots": facts.spots,
        "upper": facts.upper,
        "lower": lower_bound(land.position, stumps_known=stumps_known),
        "longest": None,
        "shortest": None,
    }


def bounds_report(oracle: LengthOracle, loaded: Loaded, seconds: float | None) -> dict[str, Any]:
    """Everything ``sprouts bounds`` says about one position, as a JSON-ready dict.

    ``seconds`` is the time allowed for the longest games of the parts and, separately,
    for their shortest (None: no limit).  Parts are searched smallest first, so that
    when time runs out the parts already proved keep their answers; the whole position
    has a length only when every part has one.
    """
    p = loaded.drawing
    known = loaded.stumps_known
    lands = sorted(
        lands_of(p, stumps_known=known),
        key=lambda land: land_facts(clean(land.position).regions, land.position.lives).upper,
    )
    parts = [part_report(land, known) for land in lands]
    for kind, method in (("longest", oracle.longest), ("shortest", oracle.shortest)):
        deadline = None if seconds is None else time.monotonic() + seconds
        for land, part in zip(lands, parts, strict=True):
            part[kind] = method(land.position, deadline, known)
    known_long = all(part["longest"] is not None for part in parts)
    known_short = all(part["shortest"] is not None for part in parts)
    shown = loaded.position
    report = {
        "position": shown.canonical(),
        "lives": shown.total_lives,
        "spots": sum(part["spots"] for part in parts),  # spots that can still take a line, as in the parts
        "upper": upper_bound(p),
        "lower": lower_bound(p, stumps_known=known),
        "longest": sum(part["longest"] for part in parts) + sum(p.heaps) if known_long else None,
        "shortest": sum(part["shortest"] for part in parts) + len(p.heaps) if known_short else None,
        "parts": parts,
        "heaps": list(p.heaps),
    }
    if loaded.euler is not None:
        e = loaded.euler
        report["euler"] = {
            "points": e.points,
            "regions": e.regions,
            "lines": e.lines,
            "parts": e.parts,
            "holds": e.holds,
        }
        if loaded.euler_position is not None and loaded.euler_position != e:
            q = loaded.euler_position
            report["euler"]["position_counts"] = [q.points, q.regions, q.lines, q.parts]
    return report


__all__ = ["Loaded", "bounds_report", "part_report"]
