"""Drawing one move into the picture as it stands (Alfeld §3).

A move of the engine (from a corner of spot ``x`` to a corner of spot ``y`` in one
region, with the region's other boundaries shared out between the two sides) is
drawn in four stages:

1. **A route on the grid** (``grid_planner``): the shortest way through free
   cells from ``x``'s corner to ``y``'s corner.  A one-boundary move (or a loop)
   must put every other boundary of its region on its side; the route is then
   found by the *parity search*: a ray is cut in the region from each boundary
   that the last route left on the wrong side to an anchor known to lie on side
   B (the far arc of the cut boundary, or the window or the region's own cycle
   for a loop at a lone spot), and A* runs over (cell, parity bits) for a way
   that crosses each ray an odd number of times exactly when its boundary must go
   to side A — at most seven rays.  A loop's two ends are kept apart by a short
   closed strip along the bisector of its corner, so that the way must go round.
2. **The band** (``band``): the route tightened between obstacles in two phases,
   ends free near the spots, then with fixed ports.
3. **The spline**: the clamped least-squares fit within 1.5 px (``fit``), cut at
   half its arc length where the new spot goes.
4. **The check**: the picture with the move is read back from scratch
   (``analyse``) and must give the intended position with the same spot numbers;
   the new curves must keep ``0.6 d0`` from everything (the certificate).

When there is no way, the widest way (a bottleneck search) says how much room
there is, and :class:`NoRoom` carries it to the ladder of ``room.py``.

The stages live in their own modules, each using only those before it:
``route_plan`` (obstacles, end corners, the grid), ``route_rays`` (the sides: rays
and barrier trees), ``route_search`` (A*, the parity search, the widest way) and
``route_curve`` (band, ports, spline, check); this module runs them for one move
(``draw_move``) and for its ghost (``ghost_of``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..engine.moves import Move
from ..errors import NoRoom, PictureError
from .analyse import Analysis, analyse_picture
from .model import Picture
from .route_curve import OtherPosition, draw_route, relax_route
from .route_plan import CERTIFY_SHARE, Drawn, Plan, RouteSettings, make_plan, target_of
from .route_search import route, widest_way

# --------------------------------------------------------------------------- the whole router


def draw_move(
    pic: Picture,
    move: Move,
    analysis: Analysis | None = None,
    settings: RouteSettings | None = None,
    player: int | None = None,
) -> Drawn:
    """Draw ``move`` into ``pic`` (a new picture; ``pic`` is not changed), or :class:`NoRoom` saying why."""
    settings = settings or RouteSettings()
    analysis = analysis or analyse_picture(pic)
    before = analysis.position
    target = target_of(before, move)
    plan = make_plan(pic, analysis, move, settings)
    path = route(plan)
    x1, y1 = plan.x + 1, plan.y + 1
    if path is None:
        w, ghost = widest_way(plan)
        raise NoRoom(
            f"the widest way between {x1} and {y1} is {w:.1f} px, {settings.d0:g} px needed",
            w, settings.d0, ghost, Planned(plan, path, w),
        )  # fmt: skip
    try:
        drawn = draw_route(plan, path, target, player)
    except PictureError as e:
        w, ghost = widest_way(plan)
        err = NoRoom(str(e), w, settings.d0, ghost, Planned(plan, path, w))
        err.other_position = isinstance(e, OtherPosition)
        raise err from None
    need = CERTIFY_SHARE * settings.d0
    if drawn.clearance < need:
        w, ghost = widest_way(plan)
        raise NoRoom(
            f"the curve from {x1} to {y1} keeps only {max(drawn.clearance, 0.0):.1f} px, "
            f"{need:.1f} px needed (the widest way is {w:.1f} px)",
            min(w, drawn.clearance / CERTIFY_SHARE), settings.d0, ghost, Planned(plan, path, w),
        )  # fmt: skip
    return drawn


@dataclass
class Planned:
    """What ``draw_move`` found before it gave up: its plan, the planner's route (None: no way at
    the clearance) and the widest way's room.  The planning has no chance in it, so the ghost of
    the same move in the same picture starts from these (``ghost_of``) instead of planning again."""

    plan: Plan
    path: np.ndarray | None
    widest: float


# --------------------------------------------------------------------------- the ghost (Alfeld §4.4)


@dataclass
class Ghost:
    """The way a move would take if there were room: its route, relaxed, and the room it has."""

    route: np.ndarray  # the planner's path (world points, x … y)
    points: np.ndarray  # the same relaxed by the band, in the middle of what room there is
    widest: float  # the room of the widest way (px)
    plan: Plan  # the plan it was found in (at the clearance it has)
    #: ``relax_route(plan, route)`` whole (points, energy, end directions), for ``draw_route``
    relaxed: tuple[np.ndarray, float, np.ndarray, np.ndarray] | None = None


#: The shares of the widest way's room (at most ``d0``) at which a ghost is planned again, widest
#: first, when the router found no way at the clearance; none narrower than a pixel.
GHOST_SHARES = (0.95, 0.7, 0.45)


def has_ghost_room(planned: Planned, d0: float) -> bool:
    """Can ``ghost_of`` find a ghost from ``planned``?  Not when there was no way at the clearance
    and the widest way is too narrow for a plan at its widest share (then it finds none at once)."""
    return planned.path is not None or GHOST_SHARES[0] * min(planned.widest, d0) >= 1.0


class GhostTooLong(Exception):
    """The ghost's way is longer than asked (``ghost_of``'s ``longest``): its band was not relaxed."""

    def __init__(self, length: float) -> None:
        super().__init__(f"the ghost's way is {length:.0f} px long")
        self.length = length


def ghost_of(
    pic: Picture,
    analysis: Analysis,
    move: Move,
    settings: RouteSettings,
    planned: Planned | None = None,
    longest: float = math.inf,
) -> Ghost | None:
    """The ghost of a move (Alfeld §4.4): the planner's path at the clearance the widest way has.

    When there is a way at the minimum clearance (the move failed later, on a
    curve that kept too little room), that way is the ghost; otherwise the
    planner runs again with the clearance of the widest way, so that the ghost
    goes through the narrowest place the move cannot avoid and is as short as
    that allows.  Either way it is relaxed by the band.  None when there is no
    way at all, or it is narrower than a pixel.  ``planned``: what ``draw_move`` found for
    this move in this picture with these settings, used instead of planning again.  A way
    longer than ``longest`` (px) raises ``GhostTooLong`` before its band is relaxed.
    """
    if planned is not None:
        plan, path, w = planned.plan, planned.path, planned.widest
    else:
        plan = make_plan(pic, analysis, move, settings)
        path = route(plan)
        w, _ = widest_way(plan)
    # the widest way ignores sides: a marked move may have to take a narrower way, narrower than d0
    # too when the widest way is wider (it is the way with the right sides that found no room)
    room = min(w, settings.d0)
    for share in GHOST_SHARES:
        if path is not None or share * room < 1.0:
            break
        narrow = RouteSettings(share * room, settings.D, settings.lam, settings.relax, settings.d0)
        plan = make_plan(pic, analysis, move, narrow)
        path = route(plan)
    if path is None:
        return None
    if math.isfinite(longest):
        length = float(np.hypot(*np.diff(np.asarray(path, dtype=float), axis=0).T).sum())
        if length > longest:
            raise GhostTooLong(length)
    relaxed = relax_route(plan, path)
    P, E, ds, de = relaxed
    return Ghost(path, P, w, plan, (P.copy(), E, ds.copy(), de.copy()))
