"""Spots drawn smaller where there is no room, and growing back (Alfeld §4.5–4.6).

Every spot has a full size, the radius the Settings ask for (``model.SPOT_RADIUS``).
Where a picture is so tight that a spot drawn at full size would itself be the
tightest place, the spot may be drawn smaller, down to ``model.SMALLEST_SPOT`` (the
least the Settings' slider allows) and never below.  The size is part of the
picture (``Picture.sizes``) and of the saved game (each spot's ``size``), and the
router, the certificate and the room-making all see the smaller disc.

One rule says how large a spot may be (``sizes_with_room``), used both for
drawing spots smaller (the end of each Z layout) and for growing them back (A, R
and a later Z):

* ``need`` is the clearance a spot's disc must keep: the minimum clearance ``d0``,
  or less when the rest of the picture (its curves, and the spots with room) is
  itself tighter than that, since a smaller spot cannot give the picture more room
  than its curves leave;
* a spot of size ``s`` has room when its disc keeps ``need``, or its own size if
  that is less, from everything else: ``s ≤ max(gap − need, gap / 2)``, where the gap
  is the distance from its centre to the nearest curve not at it, or half the
  distance to another spot.  The half is the polish's own rule (Alfeld §4.6: each spot grows by
  its own room, half its gap), so a spot the polish grew to full size has room.
  A spot whose room is at least ``FULL_SHARE`` of its full size is drawn at full
  size (its disc then lacks at most a tenth of a size of clearance, which no one
  can see); any other is drawn at the largest size its gap allows, and never below
  the smallest size.

The sizes chosen are checked by certifying the picture again, and a picture is
kept only if it still reads back as the same position.
"""

from __future__ import annotations

import numpy as np

from ..errors import PictureError
from .analyse import Analysis, analyse_picture
from .model import MIN_CLEARANCE, SMALLEST_SPOT, SPOT_RADIUS, Picture

#: Sizes within this of the full size count as full (the file keeps six decimals).
SIZE_SLACK = 1e-6
#: A spot with room for this share of its full size is drawn at full size.
FULL_SHARE = 0.95


def smaller_spots(pic: Picture, full: float = SPOT_RADIUS) -> tuple[int, ...]:
    """The spots (0-based) drawn smaller than their full size."""
    return tuple(int(s) for s in np.nonzero(np.asarray(pic.sizes) < full - SIZE_SLACK)[0])


def spot_gaps(pic: Picture, analysis: Analysis) -> np.ndarray:
    """Each spot's gap: the distance from its centre to the nearest curve not at it, or half the
    distance to another spot (each of two spots has half the way between them); curves are
    measured by their certified (refined) polygons."""
    n = len(pic.spots)
    gaps = np.full(n, np.inf)
    if n == 0:
        return gaps
    spots = np.asarray(pic.spots, dtype=float)
    cert = analysis.certificate
    for e, c in enumerate(pic.curves):
        poly = cert.polygon(e)
        if len(poly) < 2:
            continue
        a, d = poly[:-1], np.diff(poly, axis=0)
        den = np.maximum((d * d).sum(axis=1), 1e-12)
        rel = spots[:, None, :] - a[None]
        t = np.clip((rel * d[None]).sum(axis=2) / den[None], 0.0, 1.0)
        dist = np.hypot(*(rel - t[..., None] * d[None]).transpose(2, 0, 1)).min(axis=1)
        dist[[c.a, c.b]] = np.inf  # a spot's own curves leave it: they are not in its way
        gaps = np.minimum(gaps, dist)
    if n > 1:
        between = 0.5 * np.hypot(*(spots[:, None, :] - spots[None]).transpose(2, 0, 1))
        np.fill_diagonal(between, np.inf)
        gaps = np.minimum(gaps, between.min(axis=1))
    return gaps


def room_for(gaps: np.ndarray, need: float) -> np.ndarray:
    """The largest size each gap allows: its disc keeps ``need``, or its own size if less."""
    return np.maximum(gaps - need, 0.5 * gaps)


def sizes_with_room(
    pic: Picture, analysis: Analysis, d0: float = MIN_CLEARANCE, full: float = SPOT_RADIUS
) -> tuple[np.ndarray, float]:
    """The size each spot has room for by the rule above, and the clearance ``need`` it keeps.

    A spot whose gap has no room for its full size with ``d0`` to keep is tight.
    ``need`` is ``d0``, or the least clearance of the picture with the tight spots at
    the smallest size when that is less.  PictureError when the picture cannot be
    certified even with its tight spots at the smallest size.
    """
    gaps = spot_gaps(pic, analysis)
    tight = room_for(gaps, d0) < FULL_SHARE * full
    need = d0
    if tight.any():
        trial = pic.copy()
        trial.sizes = np.where(tight, np.minimum(trial.sizes, SMALLEST_SPOT), trial.sizes)
        need = min(d0, analyse_picture(trial).min_clearance)
    room = room_for(gaps, need)
    return np.where(room >= FULL_SHARE * full, full, np.clip(room, SMALLEST_SPOT, full)), need


def fit_sizes(
    pic: Picture, analysis: Analysis, d0: float = MIN_CLEARANCE, grow_only: bool = False
) -> tuple[Picture, Analysis]:
    """The picture with every spot at the size it has room for (Z's last step), or with
    ``grow_only`` every spot drawn smaller grown back as far as it has room (A, R).

    Spots at full size are left alone when growing.  The result is certified and reads
    back as the same position; when the new sizes fail that, the picture is returned
    unchanged (growing) or PictureError is raised (Z: the layout cannot be drawn).
    """
    current = np.asarray(pic.sizes, dtype=float)
    if grow_only and not smaller_spots(pic):
        return pic, analysis
    want, _need = sizes_with_room(pic, analysis, d0)
    if grow_only:
        short = current < SPOT_RADIUS - SIZE_SLACK
        want = np.where(short, np.maximum(current, want), current)
    expected = analysis.position.canonical()
    why = ""
    # the sizes the rule gives; failing that (the rule measures by polygons), none larger than before
    for sizes in (want, np.minimum(want, current)):
        if np.allclose(sizes, current, atol=SIZE_SLACK):
            return pic, analysis
        out = pic.copy()
        out.sizes = sizes
        try:
            checked = analyse_picture(out)
        except PictureError as e:
            why = f"the spots at the sizes their gaps allow do not fit: {e}"
            continue
        if checked.position.canonical() == expected and checked.min_clearance > 0:
            return out, checked
        why = "the spots at the sizes their gaps allow touch something"
    if grow_only:
        return pic, analysis
    raise PictureError(why)


__all__ = [
    "FULL_SHARE",
    "SIZE_SLACK",
    "fit_sizes",
    "room_for",
    "sizes_with_room",
    "smaller_spots",
    "spot_gaps",
]
