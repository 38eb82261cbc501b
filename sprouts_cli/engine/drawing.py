"""Whether a position string can be drawn, and the drawing its regions agree on.

The notation orients each region on its own: SPOTS reverses every boundary of a
region when that reads less, independently of the other regions, and so does our
reduced form.  That is sound for the game (a move changes only the boundaries of
the region it is drawn in, so reversing every boundary of one region gives the same
game), so a string names a position when *some* choice of direction per region can
be drawn.  This module decides that and turns the regions to agree.

How.  Within a land the regions and the pieces (boundaries joined by capitals,
``canonical.py``) form a tree, so each piece can be settled on its own: fix the
direction of the region it is entered from and choose the directions of its other
regions.  A piece is drawable exactly when a ribbon graph made from it has genus 0:

- a *disk* for each boundary of the piece (its region, seen from the piece, is a
  disk whose rim is the boundary, walked with the region on the left);
- a *pinch* for each spot met twice in the piece: a capital pinches the rims of two
  disks together at one point, a small letter pinches one rim to itself;
- the rotation at a disk is the order of its pinches along its rim; everything
  else on a rim (``0``, ``1``, ``2``, stumps) touches no other live corner and can
  always be drawn.

Dead material (stumps, dead regions, which the strings drop) may be added freely,
so the disks need touch only at their pinches: the piece can be drawn exactly when
the disks glued at their pinches lie in the plane with every rim going round its
own way, which is Euler's formula for the ribbon graph (``V - E + F = 2``).  This is
the same verdict as drawing the position (``picture.planar_map.realise``, tested
against it), in time linear in the piece for the common case that the string's own
directions already agree.  Otherwise the directions of the piece's other regions are
searched, each as written first: a region whose pinches with the regions already
settled read in the wrong cyclic order is turned (three pinches or more between two
rims fix their relative direction; one or two leave it free, and then the region is
kept as written).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: this module imports nothing of the engine (no import cycle)
    from .data import Boundary, Region

#: Directions tried for one piece before giving up on it (each a genus count).
MAX_TRIALS = 1 << 14


class Undrawable(ValueError):
    """A land no choice of directions can draw; the message says which spots are at fault."""


def orient_land(regions: Sequence[Region], lives: Sequence[int]) -> list[Region] | None:
    """The regions of one land turned to agree, or None when they agree as written.

    ``regions`` must nest as a tree (``canonical.nesting_problem`` is None).  Raises
    :class:`Undrawable` when no choice of direction per region can be drawn.  The
    first region keeps its direction; every other region is turned only when its
    piece cannot be drawn with it as written.
    """
    pieces, boundary_region = _pieces(regions, lives)
    trouble: list[int] = []
    for piece in pieces:
        if not piece.loops and len(piece.pinches) < len(piece.disks):
            continue  # its pinches join its disks as a tree: drawn whichever way they go round
        if _genus_zero(piece, None):
            continue
        trouble.append(piece.index)
    if not trouble:
        return None
    # Settle directions from the first region outwards through the region–piece tree.
    direction = [0] * len(regions)  # +1 as written, -1 turned, 0 not yet known
    region_pieces: list[list[int]] = [[] for _ in regions]
    for piece in pieces:
        for b in piece.disks:
            region_pieces[boundary_region[b]].append(piece.index)
    done_piece = [False] * len(pieces)
    for root in range(len(regions)):
        if direction[root]:
            continue
        direction[root] = 1
        todo = [root]
        while todo:
            r = todo.pop()
            for k in region_pieces[r]:
                if done_piece[k]:
                    continue
                done_piece[k] = True
                piece = pieces[k]
                fixed = {b: direction[boundary_region[b]] for b in piece.disks}
                fixed = {b: d for b, d in fixed.items() if d}
                chosen = _choose(piece, fixed)
                if chosen is None:
                    raise Undrawable(_why(piece, regions, lives))
                for b, d in chosen.items():
                    rr = boundary_region[b]
                    if not direction[rr]:
                        direction[rr] = d
                        todo.append(rr)
    if all(d == 1 for d in direction):
        return None
    return [r if d == 1 else tuple(b[::-1] for b in r) for r, d in zip(regions, direction, strict=True)]


def drawing_problem(regions: Sequence[Region], lives: Sequence[int]) -> str | None:
    """Why no choice of directions draws this land, or None when one does."""
    try:
        orient_land(regions, lives)
    except Undrawable as e:
        return str(e)
    return None


class _Piece:
    """One piece: its boundaries (disks), the spots met twice in it (pinches), rotations."""

    __slots__ = ("disks", "index", "loops", "pinches", "rims")

    def __init__(self, index: int) -> None:
        self.index = index
        self.loops = 0  # pinches of one rim to itself (small letters)
        self.disks: list[int] = []  # boundary numbers (over the whole land)
        self.pinches: list[int] = []  # spots
        self.rims: dict[int, list[int]] = {}  # boundary -> its pinch spots along the rim, as written


def _pieces(regions: Sequence[Region], lives: Sequence[int]) -> tuple[list[_Piece], list[int]]:
    """The pieces of a land, with each boundary's pinches in rim order; and each boundary's region."""
    seqs: list[Boundary] = []
    boundary_region: list[int] = []
    for ri, r in enumerate(regions):
        for b in r:
            seqs.append(b)
            boundary_region.append(ri)
    first: dict[int, int] = {}
    twice: set[int] = set()
    parent = list(range(len(seqs)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for bi, b in enumerate(seqs):
        for s in b:
            if lives[s] != 1:
                continue
            o = first.setdefault(s, bi)
            if o != bi or s in twice or b.count(s) > 1:
                twice.add(s)
                if o != bi:
                    ra, rb = find(o), find(bi)
                    if ra != rb:
                        parent[rb] = ra
    index: dict[int, _Piece] = {}
    pieces: list[_Piece] = []
    for bi, b in enumerate(seqs):
        root = find(bi)
        piece = index.get(root)
        if piece is None:
            piece = index[root] = _Piece(len(pieces))
            pieces.append(piece)
        piece.disks.append(bi)
        rim = [s for s in b if s in twice] if twice else []
        piece.rims[bi] = rim
        if len(rim) > 1:
            piece.loops += len(rim) - len(set(rim))
    for piece in pieces:
        seen: set[int] = set()
        for bi in piece.disks:
            for s in piece.rims[bi]:
                if s not in seen:
                    seen.add(s)
                    piece.pinches.append(s)
    return pieces, boundary_region


def _genus_zero(piece: _Piece, direction: dict[int, int] | None, only: set[int] | None = None) -> bool:
    """Whether the ribbon graph of ``piece`` has genus 0 in every connected part.

    Disks are turned as ``direction`` says (+1 where absent).  With ``only``, just
    those disks are kept, and a pinch is kept when both its ends are (a pinch to a disk
    left out would be a pendant edge, which changes no genus).  Vertices are the disks,
    edges the pinches (a small letter is a loop); faces are traced by going from a dart
    to its twin and on to the next dart round that disk.
    """
    disks = piece.disks if only is None else [b for b in piece.disks if b in only]
    count: dict[int, int] = {}
    for b in disks:
        for s in piece.rims[b]:
            count[s] = count.get(s, 0) + 1
    rims: dict[int, list[int]] = {}
    where: dict[int, list[tuple[int, int]]] = {}
    for b in disks:
        rim = [s for s in piece.rims[b] if count[s] == 2]
        if direction is not None and direction.get(b, 1) < 0:
            rim.reverse()
        rims[b] = rim
        for i, s in enumerate(rim):
            where.setdefault(s, []).append((b, i))
    twin: dict[tuple[int, int], tuple[int, int]] = {}
    for d1, d2 in where.values():
        twin[d1] = d2
        twin[d2] = d1
    faces = 0
    seen: set[tuple[int, int]] = set()
    for d0 in twin:
        if d0 in seen:
            continue
        faces += 1
        d = d0
        while d not in seen:
            seen.add(d)
            b, i = twin[d]
            d = (b, i + 1 if i + 1 < len(rims[b]) else 0)
    parent = {b: b for b in disks}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    parts = len(disks)
    for d1, d2 in where.values():
        a, c = find(d1[0]), find(d2[0])
        if a != c:
            parent[c] = a
            parts -= 1
    isolated = sum(1 for b in disks if not rims[b])
    return len(disks) - len(where) + faces + isolated == 2 * parts


def _choose(piece: _Piece, fixed: dict[int, int]) -> dict[int, int] | None:
    """Directions for the disks of ``piece`` that draw it, keeping those in ``fixed``; or None.

    Disks are settled one by one in the order they are reached through their pinches
    from the fixed ones, each as written first; a choice that already makes the disks
    settled so far undrawable is undone at once (a drawing of the whole piece draws
    every part of it), so the search turns a disk only when it must.
    """
    if _genus_zero(piece, fixed):
        return {b: fixed.get(b, 1) for b in piece.disks}
    order = _reach_order(piece, list(fixed))
    direction = dict(fixed)
    trials = [0]

    def settle(i: int) -> bool:
        if i == len(order):
            return _genus_zero(piece, direction)
        b = order[i]
        for d in (1, -1):
            trials[0] += 1
            if trials[0] > MAX_TRIALS:
                return False
            direction[b] = d
            if _genus_zero(piece, direction, set(direction)) and settle(i + 1):
                return True
        del direction[b]
        return False

    if not settle(0):
        return None
    return direction


def _reach_order(piece: _Piece, start: list[int]) -> list[int]:
    """The disks of ``piece`` not in ``start``, in breadth-first order through shared pinches."""
    at: dict[int, list[int]] = {}
    for b in piece.disks:
        for s in piece.rims[b]:
            at.setdefault(s, []).append(b)
    seen = set(start)
    queue = list(start) or piece.disks[:1]
    seen.update(queue)
    out = [b for b in queue if b not in start]
    for b in queue:
        for s in piece.rims[b]:
            for c in at[s]:
                if c not in seen:
                    seen.add(c)
                    queue.append(c)
                    out.append(c)
    return out


def _why(piece: _Piece, regions: Sequence[Region], lives: Sequence[int]) -> str:
    """The line that says why a piece cannot be drawn: the spots of its pinches."""
    del regions, lives
    spots = sorted(s + 1 for s in piece.pinches)
    shown = ", ".join(str(s) for s in spots[:12]) + (" …" if len(spots) > 12 else "")
    return (
        f"cannot be drawn on the plane: the lines through spots {shown} would need a surface "
        "with handles, whichever way each region is read"
    )
