"""The page's Settings and Room menu, and the Room ladder a person's move climbs (Alfeld §4.1).

A person's move climbs the rungs M, A, R, Z, • that the person's Room boxes allow (an
unchecked A is skipped, any other unchecked box stops the climb); if it still finds
no room, the move waits (:class:`Waiting`), the page says why (the widest way and
what was needed) and offers the rungs left, by hand.  The computer climbs its own
boxes.  Heroic mode (§4.7) switches the person's boxes off.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..picture.room import RUNGS

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.moves import Move
    from ..picture.route_plan import RouteSettings


@dataclass
class WebSettings:
    """The page's Settings and Room menu: clearance, comfort, room against length, spot size, boxes."""

    d0: float = 6.0
    D: float = 40.0
    lam: float = 1.0
    spot: float = 5.0
    human: tuple[str, ...] = ("M", "R")
    computer: tuple[str, ...] = ("M", "R", "Z", ".")
    heroic: bool = False

    def update(self, data: dict[str, Any]) -> None:
        """Take the settings the page sent (ValueError, saying which, for a bad one; nothing changed then)."""
        new = WebSettings(**asdict(self))
        for name, low, high in (
            ("d0", 1.0, 40.0),
            ("D", 5.0, 400.0),
            ("lam", 0.0, 10.0),
            ("spot", 1.5, 15.0),
        ):
            if name in data:
                value = data[name]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                    raise ValueError(f"{name} must be a number from {low:g} to {high:g}")
                setattr(new, name, float(value))
        for name in ("human", "computer"):
            if name in data:
                rungs = data[name]
                if not isinstance(rungs, list) or any(r not in RUNGS for r in rungs):
                    raise ValueError(f"{name}: a list of rungs out of M, A, R, Z, .")
                setattr(new, name, tuple(r for r in RUNGS if r in rungs))
        if "heroic" in data:
            if not isinstance(data["heroic"], bool):
                raise ValueError("heroic is true or false")
            new.heroic = data["heroic"]
        for name, value in asdict(new).items():
            setattr(self, name, value)

    def route(self, d0: float | None = None) -> RouteSettings:
        from ..picture.route_plan import RouteSettings

        return RouteSettings(d0=self.d0 if d0 is None else d0, D=self.D, lam=self.lam)


def human_ladder(
    boxes: tuple[str, ...], heroic: bool, start: str | None = None
) -> tuple[tuple[str, ...], list[str]]:
    """The rungs a person's move climbs by itself from ``start``, and the rungs then offered by hand."""
    order = list(RUNGS if start is None else RUNGS[RUNGS.index(start) :])
    if heroic:
        offered = [r for r in order if r != "M"]
        return ((start,) if start is not None else ()), offered
    climbed: list[str] = []
    skipped: list[str] = []
    if start is not None:
        climbed.append(order.pop(0))
    while order:
        r = order[0]
        if r in boxes:
            climbed.append(order.pop(0))
        elif r == "A":
            skipped.append(order.pop(0))
        else:
            break
    return tuple(climbed), skipped + order


@dataclass
class Waiting:
    """A person's move that found no room: what it is, why, and the rungs offered."""

    move: Move
    words: str
    why: str
    offered: list[str]
    player: int


__all__ = ["Waiting", "WebSettings", "human_ladder"]
