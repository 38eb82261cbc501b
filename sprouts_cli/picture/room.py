"""Making room for a move: the ladder M, A, R, Z, • (Alfeld §4.1, §4.3, §4.5–4.6, §5.9).

When the router cannot draw a move with the minimum clearance, the picture is
changed — never the position — by the cheapest of these that lets the move be
drawn, each taken at most once per move and in this order, as the ladder allows:

* **M** (``slide``, ``push``): a spot made by a move slides along its spline (the
  spline is cut at another place, its shape unchanged), tried a clearance apart
  in both directions, nearest first; a lone spot in the way is pushed straight
  away from the widest way by what its disc lacks, or half or a quarter of that.
* **A** (``adjust``) and **R** (``rearrange``): the whole picture relaxed
  (``relax.py``); the move is then found again by its spots and drawn.
* **Z** (``layout``): the position after the move drawn afresh (``layout.py``),
  with the same spot numbers: one layout per region as the outside, the present
  outside first, stopping at the first that keeps the picture's least clearance
  (``layout.layout_for_move``).
* **•** (``smaller``): in the same Z, a layout whose spots cannot all have their
  full size is kept aside with them drawn smaller (``sizes.py``) instead of failing.
  Z and • together are one run of layouts, taken once.

Spots drawn smaller grow back in A and R, and in a later Z, as soon as there is
room for them.

A move drawn by the router or M that runs tight beside other curves, or pushed
them aside, may leave a region a sliver; with R on the ladder the picture is then
rearranged, and kept if that widens the thinnest region (``_tidied``).  Each rung
has a bound in work, not in seconds: a fixed number of slides and pushes, at
most ``PUSH_UNITS`` curves relaxed, A ``relax.RELAX_WORK`` point-steps and R ``R_WORK``, and a
budget of energy evaluations (``Budgets``, ``work.metered``) past which the rung is
given up and the ladder climbs.

Every picture here is read back and compared with the position it must give.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..engine.moves import Move, apply_move
from ..engine.naming import move_words, moves_from_words, numbered_key, parse_words
from ..engine.position import Position
from ..errors import IllegalMoveError, NoRoom, PictureError
from ..jit import kernel
from .analyse import Analysis, analyse_picture
from .fit import cut_at, join_parts
from .grid_planner import cell_size
from .model import Curve, Picture
from .route_plan import CERTIFY_SHARE, Drawn, RouteSettings, same_numbered
from .router import GhostTooLong, Planned, draw_move, has_ghost_room
from .sizes import smaller_spots
from .work import OverBudget, metered

if TYPE_CHECKING:  # pragma: no cover
    from scipy.interpolate import BSpline

    from .band import Band, Obstacles

#: The rungs, in order, and what ``drawn_by`` says when each was the highest one needed.
RUNGS = ("M", "A", "R", "Z", ".")
DRAWN_BY = ("route", "slide", "push", "adjust", "rearrange", "layout", "smaller")

#: The work (point-evaluations of a band's energy, and the states of the grid searches,
#: ``work.metered(searches=True)``) pushing may do for one move, ghosts and tries included: above
#: what all but a few pushes that drew their move took in the quality bench's 20-spot games, below
#: what half the pushes that failed ran to before they gave up (the figures are in
#: docs/performance.md).  A push that needs more climbs to A, R and Z instead.
PUSH_WORK = 80_000
#: The point-steps of R's descent on the ladder (``relax.relax``'s ``work``; A and the tidying R take
#: ``relax.RELAX_WORK``, twice this).  R there makes room for one move in a picture pushing could not
#: open; the move drawn after it is the other half of R's time, and it found its way after half the
#: descent about as often as after all of it (docs/performance.md).
R_WORK = 60_000
#: A move that made the picture's curves longer by more than this share of the window's diagonal,
#: and turn more by over ``SNAKE_TURNING`` radians, snaked round the picture as drawn: Z draws the
#: position afresh to compare (``_unsnaked``).  A calm loop round far-apart spots turns about 2π.
SNAKE_SHARE = 1.0
SNAKE_TURNING = 4 * math.pi
#: Z's picture replaces the move drawn when its curves are at most this share of the length.
SNAKE_KEEP = 0.8


@dataclass(frozen=True)
class Budgets:
    """The work (``work.metered``: point-evaluations of a band's or a skeleton's energy) each rung
    may do for one move before it is given up and the ladder climbs.

    Each is above what the rung took where it drew its move in all or nearly all of the quality
    bench's games (see docs/performance.md), so they bound the long runs, which mostly fail,
    rather than change the usual ones.
    Z has no budget of its own (it is the last rung): its layouts give up by comparison with
    each other (``layout.straggler_limit``).
    """

    #: the router's drawing of the move (its bands), once before M and once after A and R each
    route: float = 200_000
    #: all of M's slides and pushes of lone spots together
    slide: float = 200_000
    #: pushing curves apart (``PUSH_WORK``)
    push: float = PUSH_WORK
    #: A, and then R: the picture relaxed and the move drawn into it
    relax: float = 360_000
    #: R after a move that left a region thin (``_tidied``)
    tidy: float = 250_000


@dataclass
class Result:
    """A move drawn: the new picture, what it reads as, the highest rung it needed and how well."""

    picture: Picture
    analysis: Analysis
    drawn_by: str
    clearance: float
    seconds: float
    notes: list[str] = field(default_factory=list)
    #: CPU seconds (this process) spent in each rung tried, by name: route, slide, push, adjust,
    #: rearrange, layout, tidy; what the quality bench prints to say where a slow move went
    rung_seconds: dict[str, float] = field(default_factory=dict)
    #: the work (``work.metered`` units) each rung tried did, by the same names: what a rung's
    #: budget is set from
    rung_work: dict[str, int] = field(default_factory=dict)

    @property
    def smaller(self) -> tuple[int, ...]:
        """The spots (0-based) the new picture draws smaller than their size."""
        return smaller_spots(self.picture)


def parse_ladder(text: str) -> tuple[str, ...]:
    """``M,A,R,Z,.`` (any subset, commas optional; ``none`` for the router alone) as rung letters."""
    t = text.strip().upper()
    if t in ("", "NONE", "-"):
        return ()
    items = [c for c in t.replace(",", " ").replace("•", ".").split()] if ("," in t or " " in t) else list(t)
    out = []
    for c in items:
        if c not in RUNGS:
            raise ValueError(f"{c!r} is not a rung of the ladder (M, A, R, Z or .)")
        if c not in out:
            out.append(c)
    return tuple(sorted(out, key=RUNGS.index))


def same_move(picture_position: Position, target: Position, words: str) -> Move | None:
    """The same move in a re-drawn picture of the same position: by its spots and the position it gives.

    The move giving the very position ``target`` is taken first, then one giving its
    mirror image: where the words fit both (the two sides of a closed curve), the
    mirror image would turn the picture into the game's mirror image, where later
    words may fit no move of the picture.
    """
    try:
        fits = moves_from_words(picture_position, parse_words(words))
    except (IllegalMoveError, ValueError):
        return None
    results = [apply_move(picture_position, m, check=False) for m in fits]
    exact = numbered_key(target, mirror=False)[:2]
    for m, after in zip(fits, results, strict=True):
        if numbered_key(after, mirror=False)[:2] == exact:
            return m
    for m, after in zip(fits, results, strict=True):
        if same_numbered(after, target):
            return m
    return None


def draw(
    pic: Picture,
    move: Move,
    ladder: tuple[str, ...] = RUNGS,
    analysis: Analysis | None = None,
    settings: RouteSettings | None = None,
    player: int | None = None,
    layout_jobs: int | None = 1,
    budgets: Budgets | None = None,
) -> Result:
    """Draw ``move`` into ``pic``, climbing the ladder as far as it allows; NoRoom saying why otherwise.

    Each rung runs within its budget of work (``Budgets``); a rung that runs past it is given
    up, with a note saying so, and the ladder climbs to the next.
    """
    t0 = time.perf_counter()
    budgets = budgets or Budgets()
    settings = settings or RouteSettings()
    analysis = analysis or analyse_picture(pic)
    before = analysis.position
    target = apply_move(before, move)
    words = move_words(before, move)
    notes: list[str] = []
    spent: dict[str, float] = {}
    lap = _Laps(spent)
    did: dict[str, int] = {}

    def done(d: Drawn, how: str) -> Result:
        lap("layout" if how in ("layout", "smaller") else how)
        d, how = _unsnaked(pic, analysis, d, how, target, settings, ladder, layout_jobs or 1, notes, lap)
        if "R" in ladder:
            d = _tidied(d, settings.d0, how != "route", notes, budgets.tidy, (pic, analysis), did)
            lap("tidy")
        return Result(d.picture, d.analysis, how, d.clearance, time.perf_counter() - t0, notes, spent, did)

    reason: NoRoom | PictureError
    routed = given_up = False
    try:
        with metered(budgets.route) as meter:
            drawn = draw_move(pic, move, analysis, settings, player)
        routed = True
    except NoRoom as e:
        reason = e
    except PictureError as e:
        reason = e
    except OverBudget as e:
        reason = NoRoom(f"the router was given up after {e}", 0.0, settings.d0)
        given_up = True
    did["route"] = meter.done
    if routed:
        return done(drawn, "route")
    lap("route")
    notes.append(f"route: {reason}")
    current, current_a = pic, analysis
    # a route drawn that read back as another position went round the wrong things: M and A, which
    # keep the spots (or slide them along their curves), give the planner the same sides again
    sides = bool(getattr(reason, "other_position", False))
    pass_a = sides
    if sides and ("M" in ladder or "A" in ladder):
        notes.append("the route went round other things than the move's: M and A passed over")
    # a move whose route ran out of work has no ghost to slide or push by: the ladder goes on to A
    if "M" in ladder and not given_up and not sides:
        got: tuple[Drawn, str] | None = None
        try:
            with metered(budgets.slide) as meter:
                got = _slide_or_push(current, current_a, move, target, settings, player, reason, notes)
        except OverBudget as e:
            notes.append(f"slide: given up after {e}")
        did["slide"] = meter.done
        if got is not None:
            return done(*got)
        lap("slide")
        planned = getattr(reason, "planned", None)
        stopped: list[str] = []
        with metered(math.inf, searches=True) as meter:
            pushed = push_curves(current, current_a, move, settings, player, notes,
                                 work=budgets.push, planned=planned, stopped=stopped)
        did["push"] = meter.done
        if pushed is not None:
            return done(pushed, "push")
        lap("push")
        pass_a = pass_a or _a_after_push_passed_over(stopped, ladder, notes)
    tried: str | None = None
    for rung, mode, how in (("A", "adjust", "adjust"), ("R", "rearrange", "rearrange")):
        if rung not in ladder or (rung == "A" and pass_a):
            continue
        lap(tried)
        tried = how
        got_a: Drawn | None = None
        try:
            with metered(budgets.relax) as meter:
                try:
                    relaxed = _relax(current, mode, settings.d0, R_WORK if rung == "R" else None)
                    ra = analyse_picture(relaxed)
                except PictureError as e:
                    notes.append(f"{how}: {e}")
                    continue
                current, current_a = relaxed, ra
                m2 = same_move(ra.position, target, words)
                if m2 is None:
                    notes.append(f"{how}: the move was not found again")
                    continue
                got_a = draw_move(current, m2, current_a, settings, player)
        except OverBudget as e:
            notes.append(f"{how}: given up after {e}")
            continue
        except PictureError as e:
            reason = e
            notes.append(f"{how}: {e}")
            continue
        finally:
            did[how] = meter.done
        return done(got_a, how)
    lap(tried)
    if "Z" in ladder or "." in ladder:
        smaller = "." in ladder
        try:
            z, shrunk = _layout(pic, analysis, target, settings, smaller, layout_jobs or 1, notes)
            return done(z, "smaller" if shrunk else "layout")
        except PictureError as e:
            notes.append(f"{'smaller' if smaller else 'layout'}: {e}")
            reason = NoRoom(f"{reason}; {e}", getattr(reason, "widest", 0.0), settings.d0)
    raise NoRoom(str(reason), getattr(reason, "widest", 0.0), settings.d0)


def _unsnaked(
    pic: Picture,
    analysis: Analysis,
    d: Drawn,
    how: str,
    target: Position,
    settings: RouteSettings,
    ladder: tuple[str, ...],
    jobs: int,
    notes: list[str],
    lap: _Laps,
) -> tuple[Drawn, str]:
    """The move as drawn, or the position drawn afresh by Z (when on the ``ladder``) when it snaked.

    The router takes the way the picture leaves: round spots and curves where they stand, so
    a move that must enclose or avoid far-apart things becomes a long curve, and the picture
    grows crooked move by move (curves twice as long as a fresh drawing of the same position).
    A person who can move the spots would redraw.  So when the move lengthened the curves by
    more than ``SNAKE_SHARE`` of the window's diagonal and made them turn more by over
    ``SNAKE_TURNING`` (a winding curve, not a wide calm loop), Z draws the position afresh, and
    its picture is taken when its curves are at most ``SNAKE_KEEP`` of the length and no region
    of it has less room than the move left (or ``THIN · d0``).  ``how`` says which rung drew the
    picture kept.
    """
    from .quality import total_length, total_turning

    if "Z" not in ladder or how in ("layout", "smaller"):
        return d, how
    was = total_length(pic)
    drawn = total_length(d.picture)
    if drawn - was <= SNAKE_SHARE * math.hypot(pic.width, pic.height):
        return d, how
    if total_turning(d.picture) - total_turning(pic) <= SNAKE_TURNING:
        return d, how
    said = f"snake: the move added {drawn - was:.0f} px"
    try:
        z, _ = _layout(pic, analysis, target, settings, False, jobs, notes)
    except PictureError as e:
        notes.append(f"{said}; Z could not draw the position: {e}")
        return d, how
    finally:
        lap("layout")
    fresh = total_length(z.picture)
    if fresh > SNAKE_KEEP * drawn or _thinner(z, d, settings.d0):
        notes.append(f"{said}; Z's drawing ({fresh / drawn:.0%} of the length) was not taken")
        return d, how
    notes.append(f"{said}; Z drew the position in {fresh / drawn:.0%} of the length")
    return z, "layout"


def _thinner(z: Drawn, d: Drawn, d0: float) -> bool:
    """Has some region of ``z`` less room than the least of ``d``'s (or than ``THIN · d0``)?"""
    from .quality import region_rooms

    z_rooms = region_rooms(z.picture, z.analysis, px=2.0)
    if not len(z_rooms):
        return False
    rooms = region_rooms(d.picture, d.analysis, px=2.0)
    return float(z_rooms.min()) < min(float(rooms.min()) if len(rooms) else math.inf, THIN * d0)


def _a_after_push_passed_over(stopped: list[str], ladder: tuple[str, ...], notes: list[str]) -> bool:
    """Is A passed over after a push that drew nothing?  Yes when the push relaxed the curves along
    the way until its budget ran out or the room stopped growing: it has done near the way what A
    would do there (A moves curves only across themselves and keeps the spots), and A seldom drew
    a move after such a push in the quality bench (docs/performance.md).  Yes too when the push was
    passed over for a way too narrow (``PUSH_LEAST``), stopped at a ghost too long
    (``PUSH_LONGEST``) or after one too costly to push along (``PUSH_GHOST_SHARE``): such pushes ran
    to their budget."""
    if "A" not in ladder or stopped[:1] not in (["budget"], ["stalled"], ["narrow"], ["long"], ["costly"]):
        return False
    if stopped[0] == "costly":
        notes.append("the ghost cost too much to push curves along: A passed over")
    elif stopped[0] == "long":
        notes.append("the ghost is too long to push curves along: A passed over")
    elif stopped[0] == "narrow":
        notes.append("the way is too narrow to push curves from: A passed over")
    else:
        notes.append(f"push curves stopped ({stopped[0]}) after relaxing the way: A passed over")
    return True


class _Laps:
    """CPU seconds of this process since the last lap, added to ``spent[rung]`` (no rung: not kept)."""

    def __init__(self, spent: dict[str, float]) -> None:
        self.spent = spent
        self.clock = time.process_time()

    def __call__(self, rung: str | None) -> None:
        now = time.process_time()
        if rung is not None:
            self.spent[rung] = self.spent.get(rung, 0.0) + now - self.clock
        self.clock = now


#: A move drawn closer than this many ``d0`` to the curves round it may have left a region thin: a
#: region's room is the radius of a disc inside it, so a gap of ``2 · THIN · d0`` keeps ``THIN · d0``.
TIDY_BELOW = 2.0
#: The least room (the largest disc inside a region) a region should keep, in units of ``d0``.
THIN = 1.0
#: The lives the tidying R counts a region for in its area term (``relax.held_open``), at least:
#: one with less room than ``THIN · d0``, one with less than twice that, and any other (R,
#: widening the thinnest, would squeeze the regions round it, dead ones first).
HELD_THIN = 64
HELD_NEAR = 16
HELD_ANY = 4


def _tidied(
    d: Drawn,
    d0: float,
    moved: bool,
    notes: list[str],
    work: float = math.inf,
    before: tuple[Picture, Analysis] | None = None,
    did: dict[str, int] | None = None,
) -> Drawn:
    """The picture rearranged (R) when the move left a region thinner than ``THIN · d0``.

    A move drawn into the picture as it stands takes the way there is: drawn tight
    beside other curves, or after pushing them, it can leave a region a sliver.
    A person would redraw the picture before going on.  So when the new curves keep
    less than ``TIDY_BELOW · d0`` (or ``moved``: spots were slid or curves pushed) and some region's room is
    below ``THIN · d0``, the whole picture is relaxed by R, which spreads crowded curves apart
    (and often shortens curves a push bent aside).  A relaxed picture is kept only if the least
    room of its regions grows (by a quarter of ``d0``, or up to ``THIN · d0``) and it still reads
    as the same position.  When plain R leaves a region under ``THIN · d0``, R runs with every
    region held open in its area term, the thin ones most (``relax.held_open``, ``HELD_THIN``,
    ``HELD_NEAR``, ``HELD_ANY``: plain R leaves a short lens or a dead region thin, its bending
    and the live regions round it outweighing its own pull): first moving only the curves
    round the regions still thin (the others stay as drawn, obstacles to them:
    ``relax.relax``'s ``moving``), which widens the sliver where it is and leaves the rest of
    the picture, and its length, as it was; only when that leaves a region under ``THIN · d0``
    does R held open move the whole picture (every region swells and the curves grow longer).
    Each R is given up past ``work`` units (``work.metered``); the work they did is added to
    ``did["tidy"]`` (``Result.rung_work``).
    ``moved`` is also what A, R and Z pass: they redrew the whole picture, and R or Z can leave a
    sliver too.

    With ``before`` (the picture before the move and its analysis), R runs only when the move
    made the thinnest region thinner than it was: a sliver the picture already had was left by
    an earlier move's R, A or Z, each of which relaxed or drew the whole picture, or by an
    earlier tidy that could not widen it, and R tried again on every later move seldom widens it.
    """
    from .quality import region_rooms, total_length

    if d.clearance >= TIDY_BELOW * d0 and not moved:
        return d
    rooms = region_rooms(d.picture, d.analysis, px=2.0)
    if not len(rooms) or float(rooms.min()) >= THIN * d0:
        return d
    if before is not None:
        old = region_rooms(before[0], before[1], px=2.0)
        if len(old) and float(rooms.min()) >= float(old.min()):
            notes.append(f"tidy: the least room {rooms.min():.1f} px is no less than before the move")
            return d

    def held(rooms: np.ndarray) -> dict[int, int]:
        return {
            i: HELD_THIN if r < THIN * d0 else HELD_NEAR if r < 2.0 * THIN * d0 else HELD_ANY
            for i, r in enumerate(rooms.tolist())
        }

    was = float(rooms.min())
    kept: Drawn | None = None
    for how in ("R", "R round the thin regions", "R held open"):
        local = how == "R round the thin regions"
        start = kept if kept is not None and local else d
        now = region_rooms(start.picture, start.analysis, px=2.0) if start is not d else rooms
        hold = None if how == "R" else held(now)
        moving = curves_round(start.analysis, [i for i, r in enumerate(now.tolist()) if r < THIN * d0])
        try:
            with metered(work) as meter:
                try:
                    only = moving if local else None
                    out = _relax(start.picture, "rearrange", d0, hold_open=hold, moving=only)
                finally:
                    if did is not None:
                        did["tidy"] = did.get("tidy", 0) + meter.done
            oa = analyse_picture(out)
        except PictureError as e:
            notes.append(f"tidy: {how}: {e}")
            continue
        except OverBudget as e:
            notes.append(f"tidy: {how} given up after {e}")
            continue
        if not same_numbered(oa.position, d.analysis.position):
            continue
        least = float(region_rooms(out, oa, px=2.0).min())
        if least < min(was + 0.25 * d0, max(THIN * d0, was + 0.5)):
            notes.append(f"tidy: {how} left the least room at {least:.1f} px (was {was:.1f})")
            continue
        longer = f"{total_length(out) / max(total_length(d.picture), 1e-9) - 1.0:+.0%}"
        notes.append(f"tidy: {how} widened the least room from {was:.1f} to {least:.1f} px, length {longer}")
        kept = Drawn(out, oa, d.clearance, d.energy, d.notes)
        if least >= THIN * d0:
            break
    return d if kept is None else kept


def curves_round(analysis: Analysis, regions: Collection[int]) -> set[int]:
    """The curves on the boundaries of ``regions`` (indices in the analysis's map)."""
    out: set[int] = set()
    for ri in regions:
        for kind, walk in analysis.map.regions[ri]:
            if kind == "cycle":
                out.update(h >> 1 for h in walk)
    return out


def _relax(
    pic: Picture,
    mode: str,
    d0: float,
    work: float | None = None,
    hold_open: Mapping[int, int] | None = None,
    moving: Collection[int] | None = None,
) -> Picture:
    """A or R (``relax.relax``) for at most ``work`` point-steps (None: ``relax.RELAX_WORK``), the
    regions ``hold_open`` held open (``relax.held_open``), only the curves ``moving`` moved (None: all)."""
    from .relax import RELAX_WORK, relax

    out = relax(pic, mode, RELAX_WORK if work is None else work, d0, hold_open=hold_open, moving=moving)
    out.meta = pic.meta
    return out


# --------------------------------------------------------------------------- Z and •


def _layout(
    pic: Picture,
    analysis: Analysis,
    target: Position,
    settings: RouteSettings,
    smaller: bool,
    jobs: int,
    notes: list[str],
) -> tuple[Drawn, tuple[int, ...]]:
    """The position after the move drawn afresh, keeping the spot numbers (checked), and the
    spots it draws smaller (Alfeld §4.6; ``layout.layout_for_move`` has the rules).

    The bar is the least clearance the picture had before the move, when that was
    at least ``d0``; a picture already tighter than that is broken, and then the
    first layout drawn at all is taken.
    """
    from .layout import layout_for_move
    from .planar_map import realise

    before = analysis.min_clearance
    bar = before if before >= settings.d0 else None
    pmap = analysis.map
    outside = {s for w in pmap.regions[0] for s in pmap.walk_spots(w)} if pmap.regions else set()
    got = layout_for_move(
        realise(target), target.canonical(), pic.width, pic.height, bar, smaller, jobs, outside,
        settings.d0, notes.append,
    )  # fmt: skip
    z = got.picture
    a = analyse_picture(z)
    if not same_numbered(a.position, target):
        raise PictureError("the fresh drawing does not keep the spot numbers")
    z.meta = pic.meta
    return Drawn(z, a, a.min_clearance), got.smaller


# --------------------------------------------------------------------------- M: sliding and pushing


def _slide_or_push(
    pic: Picture,
    analysis: Analysis,
    move: Move,
    target: Position,
    settings: RouteSettings,
    player: int | None,
    reason: PictureError,
    notes: list[str],
    budget: int = 8,
) -> tuple[Drawn, str] | None:
    """Slide spots along their splines, then push lone spots, near the widest way (Alfeld §4.3)."""
    way = getattr(reason, "ghost", None)
    has_way = way is not None and len(way) > 0
    nowhere = np.array([pic.spots[0]]) if len(pic.spots) else np.zeros((1, 2))
    ghost = np.asarray(way) if has_way else nowhere
    d0 = settings.d0
    deg = pic.degrees()
    dist = np.array([_distance_to(ghost, p) for p in pic.spots])
    ends = {c for c in _move_ends(analysis, move)}
    reach = 3.0 * d0 + 2.0 * float(max(pic.sizes))
    tries = 0
    # a slide that leaves the widest way no wider is no help: after two in a row, sliding stops
    widest = float(getattr(reason, "widest", math.inf))
    idle = 0
    # a sliding spot's curves keep their shape, only its disc moves: a disc farther from the widest
    # way than the way's own room (and a grid cell) does not narrow it, and sliding it cannot widen it
    beside = widest + cell_size(d0) if has_way and math.isfinite(widest) else math.inf
    # sliding: spots with exactly two curves, nearest the way first
    for s in np.argsort(dist):
        s = int(s)
        if dist[s] > reach or tries >= budget or idle >= IDLE_SLIDES:
            break
        if deg[s] != 2 or s in ends or dist[s] - float(pic.sizes[s]) > beside:
            continue
        for shift in _shifts(d0):
            if tries >= budget or idle >= IDLE_SLIDES:
                break
            moved = slide_spot(pic, s, shift)
            if moved is None:
                continue
            tries += 1
            try:
                ma = analyse_picture(moved, (pic, analysis))
                if not same_numbered(ma.position, analysis.position):
                    continue
                return draw_move(moved, move, ma, settings, player), "slide"
            except PictureError as e:
                notes.append(f"slide {s + 1} by {shift:+.0f} px: {e}")
                wider = float(getattr(e, "widest", math.inf)) > widest + WIDER
                idle = 0 if wider else idle + 1
    # pushing lone spots straight away from the way
    for s in np.argsort(dist):
        s = int(s)
        if dist[s] > reach or tries >= 2 * budget:
            break
        if deg[s] != 0 or s in ends:
            continue
        lack = d0 + float(pic.sizes[s]) + d0 - dist[s]
        if lack <= 0:
            continue
        foot = _nearest_point(ghost, pic.spots[s])
        away = pic.spots[s] - foot
        n = float(np.hypot(*away))
        away = away / n if n > 1e-9 else np.array([0.0, 1.0])
        for share in (1.0, 0.5, 0.25):
            tries += 1
            moved = pic.copy()
            moved.spots[s] = pic.spots[s] + away * lack * share
            try:
                ma = analyse_picture(moved, (pic, analysis))
                if not same_numbered(ma.position, analysis.position) or ma.min_clearance < min(
                    analysis.min_clearance, CERTIFY_SHARE * d0
                ):
                    continue
                return draw_move(moved, move, ma, settings, player), "push"
            except PictureError as e:
                notes.append(f"push {s + 1}: {e}")
                # the widest way as it was: its narrowest place is not by this spot, and pushing
                # the spot less cannot widen it either (a way narrower now may be narrowed by the
                # pushed spot itself, and a smaller push is tried)
                if share == 1.0 and abs(float(getattr(e, "widest", math.inf)) - widest) <= WIDER:
                    notes.append(f"push {s + 1}: the widest way is as it was, smaller pushes passed over")
                    break
    return None


#: The curves (or a move's two curves as one) that pushing may relax for one move, over all rounds.
PUSH_UNITS = 24
#: The narrowest widest way (in ``d0``) through which curves are pushed apart for a move: no push
#: through a narrower one drew its move in the quality bench's 20-spot games, and most ran to their
#: budget first (docs/performance.md).
PUSH_LEAST = 0.44
#: The longest ghost (px, its planned way) along which curves are pushed for a move: a ghost's band
#: costs work in proportion to its length, and past this length the band alone would take most of
#: ``PUSH_WORK`` (in the quality bench's 20-spot games every push along a longer ghost ran to its
#: budget: docs/performance.md).
PUSH_LONGEST = 3400.0
#: The share of pushing's work (``PUSH_WORK``) past which a ghost is too costly to push curves along
#: once the move drawn along it has failed: pushing then needs the rest of the budget for its pushes
#: and for the move drawn again, whose band runs along about the same way as the ghost's.  In the
#: quality bench's games no push drew its move after pushing curves along a ghost that had taken
#: more than this share of the budget, and nearly every push that went on past such a ghost ran to its
#: budget (docs/performance.md).
PUSH_GHOST_SHARE = 0.525
#: Slides in a row that leave the widest way no wider (by ``WIDER`` px) before sliding stops: the
#: move's trouble is then elsewhere (often the sides of a marked move, not the room).
IDLE_SLIDES = 1
WIDER = 0.5


def _move_ends(analysis: Analysis, move: Move) -> tuple[int, int]:
    region = analysis.position.regions[move.region]
    return region[move.boundary][move.corner], region[move.boundary2][move.corner2]


def _shifts(d0: float) -> list[float]:
    out: list[float] = []
    for k in range(1, 4):
        out.extend((k * 2.0 * d0, -k * 2.0 * d0))
    return out


def _distance_to(poly: np.ndarray, p: np.ndarray) -> float:
    return float(np.hypot(*(_nearest_point(poly, p) - p)))


def _nearest_point(poly: np.ndarray, p: np.ndarray) -> np.ndarray:
    if len(poly) == 1:
        return poly[0]
    a, b = poly[:-1], poly[1:]
    d = b - a
    den = np.maximum((d * d).sum(axis=1), 1e-12)
    t = np.clip(((p - a) * d).sum(axis=1) / den, 0.0, 1.0)
    q = a + t[:, None] * d
    k = int(np.argmin(np.hypot(*(q - p).T)))
    return q[k]


def slide_spot(pic: Picture, s: int, shift: float) -> Picture | None:
    """The picture with spot ``s`` (two curves) moved ``shift`` px along the spline through it.

    The two curves are joined into one spline and cut again at another place:
    the shape does not change, only where the spot sits (Alfeld §4.3).
    """
    at = [(e, c) for e, c in enumerate(pic.curves) if s in (c.a, c.b)]
    if len(at) != 2 or any(c.a == c.b for _, c in at):
        return None
    (e1, c1), (e2, c2) = at
    first = c1 if c1.b == s else c1.reversed()  # p → s
    second = c2 if c2.a == s else c2.reversed()  # s → q
    pieces, h = join_parts((first.pieces, first.h), (second.pieces, second.h))
    from .fit import piece_lengths

    total = float(piece_lengths(first.pieces).sum() + piece_lengths(second.pieces).sum())
    here = float(piece_lengths(first.pieces).sum())
    share = (here + shift) / total if total > 0 else 0.5
    if not 0.1 < share < 0.9:
        return None
    (pa, ha), (pb, hb), z = cut_at(pieces, h, share)
    out = pic.copy()
    out.spots[s] = z
    new1 = Curve(first.a, s, pa, ha, c1.player)
    new2 = Curve(s, second.b, pb, hb, c2.player)
    # keep each curve's own direction and index
    out.curves[e1] = new1 if c1.b == s else new1.reversed()
    out.curves[e2] = new2 if c2.a == s else new2.reversed()
    if math.isnan(float(z[0])):
        return None
    return out


def cluster_move(pic: Picture, position: Position, move: Move) -> Move:
    """The move with its interchangeable boundaries chosen as a cluster round it (Alfeld §5.9).

    Starting from the move's spots, the nearest boundary of a kind still wanted is
    added, then the next nearest to everything chosen so far, and so on: a cluster
    round the move instead of seeds scattered over the window.  Boundaries of one
    kind are interchangeable (``engine.moves.interchangeable_classes``), so the
    position after the move is the same up to the names of spots.
    """
    from ..engine.moves import interchangeable_classes, live_others

    if move.joins_boundaries or not move.inside:
        return move
    region = position.regions[move.region]
    classes = interchangeable_classes(
        position, move.region, live_others(position, move.region, move.boundary)
    )
    want = {i: len(set(c) & move.inside) for i, c in enumerate(classes) if len(c) > 1}
    if not any(0 < n < len(classes[i]) for i, n in want.items()):
        return move
    if max(max(b) for b in region if b) >= len(pic.spots):
        return move
    x = region[move.boundary][move.corner]
    y = region[move.boundary2][move.corner2]
    points = [pic.spots[x], pic.spots[y]]
    fixed = {k for i, c in enumerate(classes) if i not in want for k in c if k in move.inside}
    points.extend(pic.spots[s] for k in fixed for s in region[k])
    chosen: set[int] = set()
    left = {i: n for i, n in want.items() if n}
    while left:
        best, best_d = None, math.inf
        for i in left:
            for k in classes[i]:
                if k in chosen:
                    continue
                d = min(float(np.hypot(*(pic.spots[s] - p))) for s in region[k] for p in points)
                if d < best_d:
                    best, best_d = (i, k), d
        if best is None:
            break
        i, k = best
        chosen.add(k)
        points.extend(pic.spots[s] for s in region[k])
        left[i] -= 1
        if not left[i]:
            del left[i]
    return Move(
        move.region, move.boundary, move.corner, move.boundary2, move.corner2, frozenset(fixed | chosen)
    )


# --------------------------------------------------------------------------- M: pushing curves apart


@dataclass
class Unit:
    """Curves that move as one spline: one curve, or a move's two curves joined at their spot."""

    curves: list[int]  # one or two curve indices, in order along the unit
    flipped: list[bool]  # whether each curve runs against the unit
    spot: int  # the spot riding at the joint (−1 for one curve)
    a: int
    b: int
    pieces: np.ndarray
    h: np.ndarray
    share: float  # arc-length share at the riding spot


def _unit_of(pic: Picture, e: int, keep_still: set[int]) -> Unit:
    """Curve ``e``, joined to the other curve at one of its ends when that spot has only these two."""
    deg = pic.degrees()
    c = pic.curves[e]
    if c.a != c.b:
        for end, s in (("b", c.b), ("a", c.a)):
            if deg[s] != 2 or s in keep_still:
                continue
            others = [k for k, d in enumerate(pic.curves) if k != e and s in (d.a, d.b)]
            if len(others) != 1 or pic.curves[others[0]].a == pic.curves[others[0]].b:
                continue
            f = others[0]
            first = c if end == "b" else c.reversed()  # … → s
            fa = pic.curves[f]
            second = fa if fa.a == s else fa.reversed()  # s → …
            if first.a == second.b:
                continue  # the two curves make a closed loop through s: leave it
            pieces, h = join_parts((first.pieces, first.h), (second.pieces, second.h))
            from .fit import piece_lengths

            here = float(piece_lengths(first.pieces).sum())
            total = here + float(piece_lengths(second.pieces).sum())
            return Unit([e, f], [end != "b", fa.a != s], s, first.a, second.b, pieces, h, here / total)
    return Unit([e], [False], -1, c.a, c.b, c.pieces, c.h, 0.5)


def _legs_distance(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """For every point of ``P``, its distance to the polyline ``Q`` (``legs_distance``, compiled)."""
    return legs_distance(np.ascontiguousarray(P, dtype=float), np.ascontiguousarray(Q, dtype=float))


@kernel
def legs_distance(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """For every point of ``P``, its distance to the polyline ``Q``: ``legs_distance_reference``
    number for number (the same operations in the same order), without its ``len(P) × len(Q)``
    arrays; pushing asks it for every curve near a move's way."""
    out = np.full(P.shape[0], np.inf)
    for i in range(P.shape[0]):
        px = P[i, 0]
        py = P[i, 1]
        best = np.inf
        for k in range(Q.shape[0] - 1):
            ax = Q[k, 0]
            ay = Q[k, 1]
            dx = Q[k + 1, 0] - ax
            dy = Q[k + 1, 1] - ay
            den = max(dx * dx + dy * dy, 1e-12)
            t = min(max(((px - ax) * dx + (py - ay) * dy) / den, 0.0), 1.0)
            r = math.hypot(px - (ax + t * dx), py - (ay + t * dy))
            if r < best:
                best = r
        out[i] = best
    return out


def legs_distance_reference(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """For every point of ``P``, its distance to the polyline ``Q`` (plain numpy, vectorised)."""
    a, b = Q[:-1], Q[1:]
    d = b - a
    den = np.maximum((d * d).sum(axis=1), 1e-12)
    t = np.clip(((P[:, None, :] - a[None]) * d[None]).sum(axis=2) / den[None], 0.0, 1.0)
    foot = a[None] + t[..., None] * d[None]
    return np.hypot(*(P[:, None, :] - foot).transpose(2, 0, 1)).min(axis=1)


def push_unit(
    pic: Picture, analysis: Analysis, unit: Unit, ghost: np.ndarray, settings: RouteSettings, steps: int = 60
) -> Picture | None:
    """The unit relaxed away from the ghost (Alfeld §4.4), its ends and end directions kept.

    The unit is written as a clamped B-spline whose knots are a comfort distance
    apart, halved where the ghost is near; its de Boor points (not the first two
    nor the last two: ends and end directions stay) descend on the band's energy
    with the ghost as one more obstacle.  A curve moves by no more than its de
    Boor points do (the B-splines sum to one), and each step moves every de Boor
    point by at most the cap of the band points under it, so the unit never
    passes through anything.  The riding spot is put back at its share of the
    arc length.  None when nothing could be gained.
    """
    from scipy.interpolate import BSpline

    from .band import Band, BandSettings

    d0 = settings.d0
    fitted = _unit_spline(unit, ghost, settings)
    if fitted is None:
        return None
    spline, u, length = fitted
    T, C = spline.t, np.array(spline.c, dtype=float)
    n = len(C)
    if n <= 4:
        return None
    us = np.linspace(u[0], u[-1], max(8, int(length / 4.0)))
    Bs = BSpline.design_matrix(us, T, 3).toarray()
    support = Bs > 1e-12
    ob = _unit_obstacles(pic, analysis, unit, ghost, d0)
    if ob is None:
        return None
    band = Band(ob, (unit.a, unit.b), BandSettings(d0=d0, D=settings.D, lam=settings.lam))
    P = Bs @ C
    # the de Boor points that move: not the two at each end, and only where the ghost is near (the
    # rest of the curve keeps its shape: a long curve relaxed all along folds onto itself far away)
    by_ghost = _legs_distance(P, ghost) < 2.0 * d0 + settings.D
    free = (support & by_ghost[:, None]).any(axis=0)
    free[:2] = free[n - 2 :] = False
    if not free.any():
        return None
    moved = _descend(band, Bs, C, support, free, d0, steps)
    if moved is None or float(np.hypot(*(moved - C).T).max()) < 0.25:
        return None
    return _with_unit(pic, unit, BSpline(T, moved, 3), np.unique(T))


def _unit_spline(
    unit: Unit, ghost: np.ndarray, settings: RouteSettings
) -> tuple[BSpline, np.ndarray, float] | None:
    """The unit as a clamped cubic B-spline (spline, parameters, arc length), or None (too short, no fit).

    Knots are a comfort distance ``D`` apart in arc length, with one more between
    where the ghost is near; the end directions are the unit's own.  The unit is
    sampled by arc length (points about ``D / 10`` apart, so about five in the
    narrowest knot interval): a long piece sampled as sparsely as a short one left
    knot intervals without data, and the fit singular there.
    """
    from .fit import refine_clamped
    from .spline import sample_by_length

    d0 = settings.d0
    pts = sample_by_length(unit.pieces, settings.D / 10.0, 12)
    arc = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
    length = float(arc[-1])
    if length < 4.0 * d0:
        return None
    near = _legs_distance(pts, ghost) < 2.0 * d0 + settings.D / 2
    knots = []
    span = settings.D
    s = span
    while s < length - 0.5 * span:
        i = min(int(np.searchsorted(arc, s)), len(arc) - 1)
        knots.append(s)
        if near[i]:
            knots.append(s - 0.5 * span)
        s += span
    if near[-1] and length > span:
        knots.append(length - 0.5 * span)
    first = unit.pieces[0]
    last = unit.pieces[-1]
    d_start = first[1] - first[0] if np.hypot(*(first[1] - first[0])) > 1e-9 else first[2] - first[0]
    d_end = last[3] - last[2] if np.hypot(*(last[3] - last[2])) > 1e-9 else last[3] - last[1]
    # the knots are given in arc length; chord_parameters of the dense sample is nearly that
    # a curve with detail finer than the knots gets more of them, where it fits worst
    spline, u, _bounds, fits = refine_clamped(pts, np.array(knots), d_start, d_end, tol=1.5, rounds=24)
    if not fits:
        return None
    return spline, u, length


def _unit_obstacles(
    pic: Picture, analysis: Analysis, unit: Unit, ghost: np.ndarray, d0: float
) -> Obstacles | None:
    """What the unit must keep clear of: everything but its own curves, and the ghost (None: no ghost left).

    The riding spot is no obstacle, and the ghost is none near the unit's own ends
    (a curve at the move's end spot meets it there).
    """
    from .route_plan import obstacles_of

    ob = obstacles_of(pic, analysis)
    keep = ~np.isin(ob.seg_curve, unit.curves)
    ob.segs, ob.seg_curve = np.ascontiguousarray(ob.segs[keep]), np.ascontiguousarray(ob.seg_curve[keep])
    if unit.spot >= 0:
        ob.spots = ob.spots.copy()
        ob.spots[unit.spot] = (-1e6, -1e6)
    reach = float(max(pic.sizes)) + d0
    kept = np.ones(len(ghost), dtype=bool)
    for s_end in {unit.a, unit.b}:
        kept &= np.hypot(*(ghost - pic.spots[s_end]).T) > reach
    pair = kept[:-1] & kept[1:]
    if not pair.any():
        return None
    ob.extra = np.ascontiguousarray(np.concatenate([ghost[:-1][pair], ghost[1:][pair]], axis=1))
    return ob


def _descend(
    band: Band, Bs: np.ndarray, C: np.ndarray, support: np.ndarray, free: np.ndarray, d0: float, steps: int
) -> np.ndarray | None:
    """The free de Boor points after at most ``steps`` capped descent steps on the band's energy.

    None when the curve already touches something or its energy is not finite.
    Every step is capped so that no band point moves past its clearance.
    """
    from .band import capped_step

    P = Bs @ C
    fixed = np.zeros(len(Bs), dtype=np.bool_)
    fixed[[0, -1]] = True
    least0 = band.clearance(P)
    if least0 <= 0.0:
        return None
    dh = min(0.9 * d0, 0.8 * least0)
    E, G, least = band.energy(P, fixed, dh, 0.0)
    if not np.isfinite(E):
        return None
    alpha = 0.5
    for _ in range(steps):
        grad = Bs.T @ G
        grad[~free] = 0.0
        caps = band.caps(P)
        cap_c = _support_caps(caps, support)
        step_taken = capped_step(
            lambda S, C=C, dh=dh: (C + S, *band.energy(Bs @ (C + S), fixed, dh, 0.0)),
            grad, cap_c, E, alpha, 10,
        )  # fmt: skip
        if step_taken is None:
            break
        Cn, En, Gn, ln, alpha = step_taken
        Pn = Bs @ Cn
        gain = E - En
        C, P, E, G, least = Cn, Pn, En, Gn, ln
        alpha = min(2.0 * alpha, 8.0)
        if np.isfinite(least):
            dh = max(dh, min(0.9 * d0, 0.8 * least))
            E, G, least = band.energy(P, fixed, dh, 0.0)
        if gain < 1e-4 * abs(E):
            break
    return C


def _support_caps(caps: np.ndarray, support: np.ndarray) -> np.ndarray:
    """For each de Boor point (a column of ``support``), the least cap of the band points under it
    (0 where none is): a step within it moves no band point past its cap."""
    if not len(caps):
        return np.zeros(support.shape[1])
    under = np.where(support, caps[:, None], np.inf).min(axis=0)
    return np.where(support.any(axis=0), under, 0.0)


def _support_caps_reference(caps: np.ndarray, support: np.ndarray) -> np.ndarray:
    """``_support_caps`` column by column (plain Python)."""
    columns = range(support.shape[1])
    return np.array([caps[support[:, j]].min() if support[:, j].any() else 0.0 for j in columns])


def _with_unit(pic: Picture, unit: Unit, moved: BSpline, bounds: np.ndarray) -> Picture | None:
    """A copy of ``pic`` with the unit redrawn along ``moved``, cut again at its riding spot if it has one."""
    from .fit import to_bezier

    pieces, h = to_bezier(moved, bounds)
    out = pic.copy()
    if unit.spot < 0:
        e = unit.curves[0]
        out.curves[e] = Curve(unit.a, unit.b, pieces, h, pic.curves[e].player)
        return out
    (pa, ha), (pb, hb), z = cut_at(pieces, h, unit.share)
    if not np.isfinite(z).all():
        return None
    out.spots[unit.spot] = z
    for k, (e, flip, part) in enumerate(zip(unit.curves, unit.flipped, ((pa, ha), (pb, hb)), strict=True)):
        ends = (unit.a, unit.spot) if k == 0 else (unit.spot, unit.b)
        c = Curve(ends[0], ends[1], part[0], part[1], pic.curves[e].player)
        out.curves[e] = c.reversed() if flip else c
    return out


def push_curves(
    pic: Picture,
    analysis: Analysis,
    move: Move,
    settings: RouteSettings,
    player: int | None,
    notes: list[str],
    rounds: int = 4,
    units: int | None = None,
    work: float = PUSH_WORK,
    planned: Planned | None = None,
    stopped: list[str] | None = None,
) -> Drawn | None:
    """Curves in the move's way pushed apart (Alfeld §4.4), in rounds while the room keeps growing.

    At most ``units`` curves (or pairs of curves) are relaxed for one move, over all
    rounds (``PUSH_UNITS``), and the bands of its ghosts, pushes and tries, with the grid
    searches that find the ghosts and the tries (``work.charge_states``), may do at most ``work``
    units (``PUSH_WORK``): in a large picture many curves lie near a long way, and relaxing them
    all took minutes; the rung then gives up and the ladder climbs.

    Each round finds the ghost (``router.ghost_of``), first tries the move along
    it (the widest way may have room enough for the certificate though not for
    the planner's full clearance), then relaxes every curve closer to the ghost
    than ``d0`` with the ghost as an obstacle, checks that the picture still
    reads as the same position without squeezing anything below its clearance,
    and tries the move again.

    Not tried when ``planned`` (the router's) says the widest way is narrower than
    ``PUSH_LEAST · d0``: such pushes ran to their budget and drew nothing (a way too narrow for
    any ghost, ``router.has_ghost_room``, is tried: the push stops at once, saying ``nothing``).

    When it draws nothing, a word for why it stopped is appended to ``stopped``: ``budget``
    (past ``work``), ``stalled`` (the room stopped growing), ``units`` (``PUSH_UNITS`` curves
    relaxed), ``rounds`` (all rounds run), ``nothing`` (no way, no curve to move, or the way
    all beside the move's own spots), ``narrow`` (not tried: the way too narrow), ``long`` (a
    ghost's planned way longer than ``PUSH_LONGEST``: its band, in proportion to its length, would
    take the budget, so it is not relaxed) or ``costly`` (the move drawn along a ghost that took
    more than ``PUSH_GHOST_SHARE · work`` failed: too little is left to push curves and draw the
    move again).
    """
    why = stopped if stopped is not None else []
    d0 = settings.d0
    if planned is not None and planned.widest < PUSH_LEAST * d0 and has_ghost_room(planned, d0):
        w = planned.widest
        notes.append(f"push curves passed over: the widest way is {w:.1f} px, below {PUSH_LEAST:g} d0")
        why.append("narrow")
        return None
    try:
        with metered(work, searches=True):
            costly = PUSH_GHOST_SHARE * work
            return _push_rounds(
                pic, analysis, move, settings, player, notes, rounds, units, planned, why, costly
            )  # fmt: skip
    except OverBudget as e:
        notes.append(f"push curves: given up after {e}")
        why.append("budget")
        return None


def _push_rounds(
    pic: Picture,
    analysis: Analysis,
    move: Move,
    settings: RouteSettings,
    player: int | None,
    notes: list[str],
    rounds: int,
    units: int | None,
    planned: Planned | None = None,
    stopped: list[str] | None = None,
    costly: float = math.inf,
) -> Drawn | None:
    from .route_curve import draw_route
    from .route_plan import target_of
    from .router import ghost_of

    d0 = settings.d0
    need = CERTIFY_SHARE * d0
    target = target_of(analysis.position, move)
    x, y = _move_ends(analysis, move)
    floor = min(analysis.min_clearance, need)
    current, ca = pic, analysis
    last_room = -math.inf
    why = stopped if stopped is not None else []
    left = PUSH_UNITS if units is None else units
    for rnd in range(rounds):
        if left <= 0:
            notes.append(f"push curves: {PUSH_UNITS if units is None else units} curves relaxed, no more")
            why.append("units")
            return None
        # the plan of the round before's last try (its picture is ``current``) is the ghost's plan
        with metered(math.inf, searches=True) as ghost_meter:
            try:
                ghost = ghost_of(current, ca, move, settings, planned, PUSH_LONGEST)
            except GhostTooLong as too_long:
                notes.append(f"push curves, round {rnd + 1}: {too_long}, longer than {PUSH_LONGEST:g} px")
                why.append("long")
                return None
            finally:
                notes.append(f"push curves, round {rnd + 1}: the ghost took {ghost_meter.done:,} units")
        if ghost is None:
            notes.append(f"push curves, round {rnd + 1}: no way at all")
            why.append("nothing")
            return None
        if ghost.widest <= last_room + 0.25 and rnd:
            notes.append(f"push curves: the room stopped growing at {ghost.widest:.1f} px")
            why.append("stalled")
            return None
        last_room = ghost.widest
        try:
            d = draw_route(ghost.plan, ghost.route, target, player, ghost.relaxed)
            if d.clearance >= need:
                return d
        except PictureError:
            pass
        if ghost_meter.done > costly:
            notes.append(
                f"push curves, round {rnd + 1}: the ghost took more than {costly:,.0f} units, "
                "too few are left to push curves and draw the move again"
            )
            why.append("costly")
            return None
        G = ghost.points
        ends = np.array([current.spots[x], current.spots[y]])
        reach = float(max(current.sizes)) + 2.0 * d0
        away = (np.hypot(*(G[:, None, :] - ends[None]).transpose(2, 0, 1)) > reach).all(axis=1)
        if away.sum() < 2:
            notes.append("push curves: the way is all beside the move's own spots")
            why.append("nothing")
            return None
        inner = G[away]
        # the curves in the way: closer to the ghost than d0, or (when the ghost has that much room
        # and the curve drawn along it still kept too little) than twice that
        near = d0 if ghost.widest < d0 else 2.0 * d0
        moved = current
        ma = ca
        pushed = []
        for e in range(len(current.curves)):
            poly = ma.certificate.polygon(e)
            if _legs_distance(poly, inner).min() >= near:
                continue
            unit = _unit_of(moved, e, {x, y})
            if any(k in pushed for k in unit.curves):
                continue
            if left <= 0:
                break
            left -= 1
            try:
                out = push_unit(moved, ma, unit, G, settings)
                if out is None:
                    continue
                oa = analyse_picture(out, (moved, ma))
            except (PictureError, ValueError, np.linalg.LinAlgError):
                continue
            if not same_numbered(oa.position, ca.position) or oa.min_clearance < floor:
                continue
            moved, ma = out, oa
            pushed.extend(unit.curves)
        if not pushed:
            notes.append(f"push curves, round {rnd + 1}: no curve could be moved")
            why.append("nothing")
            return None
        planned = None
        try:
            return draw_move(moved, move, ma, settings, player)
        except NoRoom as e:
            notes.append(f"push curves, round {rnd + 1} ({len(pushed)} curves): {e}")
            planned = getattr(e, "planned", None)
        except PictureError as e:
            notes.append(f"push curves, round {rnd + 1}: {e}")
        current, ca = moved, ma
    why.append("rounds")
    return None
