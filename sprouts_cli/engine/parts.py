"""Independent parts ("lands") of a position (seed 002, §5.6).

Regions form one land when they are joined by spots with a life: a move in one land
changes nothing in another, so each can be solved alone and the results combined.
"""

from __future__ import annotations

from .position import Position, Region


def clean(p: Position) -> Position:
    """Drop what never matters again: stumps, empty boundaries, regions under two lives.

    A stump can never take a line, a boundary of stumps can go to either side of any
    move, and a region with fewer than two lives has no move: none of them can change
    the game.  Spot numbers and heaps are kept.
    """
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
    return Position._make(tuple(regions), lives, p.heaps)


def land_groups(p: Position, keep_dead: bool = False) -> list[list[int]]:
    """Indices of the regions of each land, in order of their first region.

    Regions are joined by a spot with a life that occurs in both.  With
    ``keep_dead=False`` regions with fewer than two lives are left out.
    """
    lives = p.lives
    parent = list(range(len(p.regions)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_region: dict[int, int] = {}
    for ri, r in enumerate(p.regions):
        if not keep_dead and p.region_lives(ri) < 2:
            continue
        for b in r:
            for s in b:
                if not lives[s]:
                    continue
                other = first_region.setdefault(s, ri)
                if other != ri:
                    a, c = find(other), find(ri)
                    if a != c:
                        parent[max(a, c)] = min(a, c)
    groups: dict[int, list[int]] = {}
    for ri in range(len(p.regions)):
        if not keep_dead and p.region_lives(ri) < 2:
            continue
        groups.setdefault(find(ri), []).append(ri)
    return list(groups.values())


def land_regions(p: Position) -> list[list[Region]]:
    """The live regions of each land of ``p``, cleaned, in one pass.

    The same as ``clean`` then ``land_groups`` (stumps and regions under two lives
    dropped, regions joined by a spot with a life), with each region's lives counted
    once: the bounds judge the leaves of the parity search by their lands, and this is
    the most frequent step there.
    """
    lives = p.lives
    live: list[Region] = []
    for r in p.regions:
        bounds = []
        for b in r:
            kept = tuple(s for s in b if lives[s])
            if kept:
                bounds.append(kept)
        seen = {s for b in bounds for s in b}
        if sum(lives[s] for s in seen) >= 2:
            live.append(tuple(bounds))
    if len(live) <= 1:
        return [live] if live else []
    parent = list(range(len(live)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[int, int] = {}
    for ri, r in enumerate(live):
        for b in r:
            for s in b:
                if lives[s]:
                    other = first.setdefault(s, ri)
                    if other != ri:
                        a, d = find(other), find(ri)
                        if a != d:
                            parent[max(a, d)] = min(a, d)
    groups: dict[int, list[Region]] = {}
    for ri, r in enumerate(live):
        groups.setdefault(find(ri), []).append(r)
    return list(groups.values())


def split_lands(p: Position) -> list[Position]:
    """The lands of the cleaned position, each a Position keeping the spot numbers."""
    c = clean(p)
    return [Position._make(tuple(c.regions[i] for i in group), c.lives) for group in land_groups(c)]
