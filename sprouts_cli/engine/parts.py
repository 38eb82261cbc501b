"""Independent parts ("lands") of a position (Alfeld §5.6).

Regions form one land when they are joined by spots with a life: a move in one land
changes nothing in another, so each can be solved alone and the results combined.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..unionfind import UnionFind
from .data import Region

if TYPE_CHECKING:  # pragma: no cover
    from .position import Position


def _live_regions(p: Position) -> list[Region]:
    """The regions with at least two lives, with stumps and empty boundaries dropped."""
    lives = p.lives
    regions: list[Region] = []
    for r in p.regions:
        boundaries = []
        for b in r:
            live = tuple(s for s in b if lives[s])
            if live:
                boundaries.append(live)
        if sum(lives[s] for s in {s for b in boundaries for s in b}) >= 2:
            regions.append(tuple(boundaries))
    return regions


def clean(p: Position) -> Position:
    """Drop what never matters again: stumps, empty boundaries, regions under two lives.

    A stump can never take a line, a boundary of stumps can go to either side of any
    move, and a region with fewer than two lives has no move: none of them can change
    the game.  Spot numbers and heaps are kept.
    """
    return p.trusted(tuple(_live_regions(p)), p.lives, p.heaps)


def group_by_live_spots(regions: list[Region], lives: tuple[int, ...]) -> list[list[int]]:
    """Indices of ``regions`` joined by the live spots they share (union–find), in order of first index."""
    sets = UnionFind(len(regions))
    first_region: dict[int, int] = {}
    for ri, r in enumerate(regions):
        for b in r:
            for s in b:
                if not lives[s]:
                    continue
                other = first_region.setdefault(s, ri)
                if other != ri:
                    sets.union(other, ri)
    return sets.groups()


def land_groups(p: Position, keep_dead: bool = False) -> list[list[int]]:
    """Indices of the regions of each land, in order of their first region.

    Regions are joined by a spot with a life that occurs in both.  With
    ``keep_dead=False`` regions with fewer than two lives are left out.
    """
    kept = [ri for ri in range(len(p.regions)) if keep_dead or p.region_lives(ri) >= 2]
    groups = group_by_live_spots([p.regions[ri] for ri in kept], p.lives)
    return [[kept[i] for i in group] for group in groups]


def land_regions(p: Position) -> list[list[Region]]:
    """The live regions of each land of ``p``, cleaned: ``clean`` then ``land_groups`` in one pass.

    The bounds judge the leaves of the parity search by their lands, and this is the
    most frequent step there, so the position in between is not built.
    """
    live = _live_regions(p)
    if len(live) <= 1:
        return [live] if live else []
    return [[live[i] for i in group] for group in group_by_live_spots(live, p.lives)]


def split_lands(p: Position) -> list[Position]:
    """The lands of the cleaned position, each a Position keeping the spot numbers."""
    c = clean(p)
    return [c.trusted(tuple(c.regions[i] for i in group), c.lives) for group in land_groups(c)]


def join_lands(p: Position, lands: Iterable[Position]) -> Position:
    """The position on the spots of ``p`` made of ``lands`` (as ``split_lands`` gives them)."""
    return p.trusted(tuple(r for land in lands for r in land.regions), p.lives)


def whole_lands(p: Position) -> list[Position]:
    """The lands of a position that keeps its stumps, each one keeping them too.

    A land is then its live regions as they are (stumps still in their boundaries) and
    the dead regions that hold one of its live spots.  Every line at a live spot of the
    land has such a region on each side, so the stumps next to its spots can still be
    read off (``lower_bound(..., stumps_known=True)``), and so they can after any move
    played in the land.
    """
    lives = p.lives
    dead = [r for i, r in enumerate(p.regions) if p.region_lives(i) < 2]
    out = []
    for group in land_groups(p):
        spots = {s for i in group for b in p.regions[i] for s in b if lives[s]}
        keep = tuple(r for r in dead if any(s in spots for b in r for s in b))
        out.append(p.trusted(tuple(p.regions[i] for i in group) + keep, lives))
    return out
