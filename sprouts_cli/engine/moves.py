"""Moves and move surgery (Alfeld §2.5; ``docs/notation.md``, "Move surgery").

A move draws a line from corner ``x`` to corner ``y`` in one region and puts a new
spot ``z`` on it.  Write ``walk(B, x)`` for boundary ``B`` read once round from
``x``'s corner, followed by ``x`` again when ``x`` already had a line (or just
``[x]`` for a lone spot):

* two boundaries become one: ``walk(B1, x) + [z] + walk(B2, y) + [z]``;
* one boundary ``[x, b1 … bk]`` with ``y = b_p`` splits the region into one with
  ``[x, b1 … b(p−1), y, z]`` ("side A") and one with ``[y, b(p+1) … bk, x, z]``;
* a loop (the same corner twice, two lives needed) gives ``[x, z]`` (side A, the
  inside of the loop) and ``walk(B1, x) + [z]``.

In a one-boundary move each other boundary of the region goes to one side or the
other, and every choice is a move of its own: a move is a *family* (a pair of
corners) and a choice of the boundaries that go to side A.  Boundaries with no life
left change nothing and always go to side B.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations, product
from typing import TYPE_CHECKING

from ..errors import IllegalMoveError
from .data import Boundary

if TYPE_CHECKING:  # pragma: no cover
    from .position import Position


@dataclass(frozen=True, slots=True)
class Move:
    """A line from corner ``(boundary, corner)`` to ``(boundary2, corner2)`` of a region.

    ``inside`` holds the indices (within the region) of the other boundaries that go
    to side A: the new region holding ``x … y, z`` (for a loop, the loop's inside).
    """

    region: int
    boundary: int
    corner: int
    boundary2: int
    corner2: int
    inside: frozenset[int] = frozenset()

    @property
    def is_loop(self) -> bool:
        return self.boundary == self.boundary2 and self.corner == self.corner2

    @property
    def joins_boundaries(self) -> bool:
        """True for a two-boundary move, which joins boundaries and splits nothing."""
        return self.boundary != self.boundary2


Family = tuple[int, int, int, int, int]  # region, boundary, corner, boundary2, corner2


def walk(b: Boundary, corner: int, lives: tuple[int, ...]) -> Boundary:
    """``b`` read once round from ``corner``, then that spot again unless it was alone."""
    x = b[corner]
    if lives[x] == 3:
        return (x,)
    return b[corner:] + b[:corner] + (x,)


def families(p: Position) -> list[Family]:
    """Every pair of corners that a line may join, one entry per unordered pair."""
    lives = p.lives
    out: list[Family] = []
    for ri, region in enumerate(p.regions):
        corners = [(bi, ci, s) for bi, b in enumerate(region) for ci, s in enumerate(b) if lives[s]]
        for a in range(len(corners)):
            bi, ci, s = corners[a]
            if lives[s] >= 2:
                out.append((ri, bi, ci, bi, ci))
            for c in range(a + 1, len(corners)):
                bj, cj, t = corners[c]
                if t != s:
                    out.append((ri, bi, ci, bj, cj))
    return out


def live_others(p: Position, region: int, boundary: int) -> list[int]:
    """The region's other boundaries that still have a life (the ones a move shares out)."""
    lives = p.lives
    return [k for k, b in enumerate(p.regions[region]) if k != boundary and any(lives[s] for s in b)]


def all_moves(p: Position) -> Iterator[Move]:
    """Every legal move, one per family and way of sharing out (2^k for k others)."""
    for ri, bi, ci, bj, cj in families(p):
        if bi != bj:
            yield Move(ri, bi, ci, bj, cj)
            continue
        others = live_others(p, ri, bi)
        for size in range(len(others) + 1):
            for chosen in combinations(others, size):
                yield Move(ri, bi, ci, bj, cj, frozenset(chosen))


def interchangeable_classes(p: Position, region: int, among: list[int]) -> list[list[int]]:
    """Group boundaries that are the same game and touch nothing else (Alfeld §5.4).

    Two boundaries are interchangeable when neither shares a live spot with any other
    boundary and both read the same round (up to rotation).  Swapping them is a
    symmetry of the position, so only *how many* of a class go inside matters.
    """
    lives = p.lives
    counts = _live_counts(p)
    classes: dict[tuple[int, ...], list[int]] = {}
    out: list[list[int]] = []
    for k in among:
        b = p.regions[region][k]
        if _is_free(b, lives, counts):
            classes.setdefault(boundary_shape([s for s in b if lives[s]], lives), []).append(k)
        else:
            out.append([k])
    return list(classes.values()) + out


def boundary_shape(live: list[int], lives: tuple[int, ...]) -> tuple[int, ...]:
    """A free boundary's least reading over rotations (letters named as they come)."""
    best: tuple[int, ...] | None = None
    n = len(live)
    for start in range(n):
        names: dict[int, int] = {}
        toks = []
        for s in live[start:] + live[:start]:
            lv = lives[s]
            if lv >= 2:
                toks.append(-lv)
            elif live.count(s) == 2:
                toks.append(names.setdefault(s, len(names)))
            else:
                toks.append(-1)
        t = tuple(toks)
        if best is None or t < best:
            best = t
    return best or ()


def representative_moves(p: Position) -> list[Move]:
    """One move for each outcome up to interchangeable boundaries.

    Interchangeable boundaries are enumerated by how many go inside, not by which:
    twenty lone spots in a region give 20 choices instead of 2^20.
    """
    out: list[Move] = []
    for ri, bi, ci, bj, cj in families(p):
        if bi != bj:
            out.append(Move(ri, bi, ci, bj, cj))
            continue
        classes = interchangeable_classes(p, ri, live_others(p, ri, bi))
        for counts in product(*(range(len(c) + 1) for c in classes)):
            inside = frozenset(k for c, n in zip(classes, counts, strict=True) for k in c[:n])
            out.append(Move(ri, bi, ci, bj, cj, inside))
    return out


#: A move as a plain tuple: the arguments of ``Move`` (building a frozen dataclass costs
#: ten times more, and a search turns only about one listed move in ten into a child).
MoveArgs = tuple[int, int, int, int, int] | tuple[int, int, int, int, int, frozenset[int]]


def symmetric_moves(p: Position) -> list[Move]:
    """One move per child up to the symmetries that exchange interchangeable boundaries.

    ``representative_moves`` already lets interchangeable boundaries (free boundaries of
    one shape in a region, such as lone spots) go inside a line by count; here they are
    also used as the ends of lines by class: a line is drawn from the first boundary of
    each class only (and between two boundaries of one class, from its first two).
    Every other such line is the image of one of these under a symmetry of the position
    and gives the same child, so this lists every child (``0*11``: 12 moves instead of
    176) but not every move: use it to list children, not to name moves.
    """
    return [Move(*args) for args in symmetric_move_args(p)]


def symmetric_move_args(p: Position) -> list[MoveArgs]:
    """``symmetric_moves`` as tuples of ``Move``'s arguments, in the same order."""
    lives = p.lives
    out: list[MoveArgs] = []
    append = out.append
    counts = _live_counts(p)
    for ri, region in enumerate(p.regions):
        live = [k for k, b in enumerate(region) if any(lives[s] for s in b)]
        if sum(lives[s] for s in {s for k in live for s in region[k]}) < 2:
            continue
        classes = interchangeable_classes(p, ri, live)
        ends: list[int] = []  # the boundaries lines may start from, in index order
        second: dict[int, int] = {}  # a class's first boundary -> its second one
        for c in classes:
            ends.append(c[0])
            if len(c) > 1:
                second[c[0]] = c[1]
        ends.sort()
        corners = [(bi, ci, s) for bi in ends for ci, s in enumerate(region[bi]) if lives[s]]
        shares: dict[int, list[frozenset[int]]] = {}  # boundary -> the ways of sharing out the others
        free = {k for c in classes for k in c if len(c) > 1 or _is_free(region[k], lives, counts)}
        for a, (bi, ci, s) in enumerate(corners):
            # a line from a corner to itself (a loop) or to another corner of the same boundary
            for cj, t in enumerate(region[bi]):
                if cj < ci or not lives[t] or (cj == ci and lives[s] < 2) or (cj != ci and t == s):
                    continue
                ways = shares.get(bi)
                if ways is None:
                    ways = shares[bi] = _sharings(classes, free, bi)
                for inside in ways:
                    append((ri, bi, ci, bi, cj, inside))
            # a line to another class's first boundary
            for bj, cj, t in corners[a + 1 :]:
                if bj != bi and t != s:
                    append((ri, bi, ci, bj, cj))
            # a line to the second boundary of its own class (same shape, interchangeable)
            partner = second.get(bi)
            if partner is not None:
                for cj, t in enumerate(region[partner]):
                    if lives[t]:
                        append((ri, bi, ci, partner, cj))
    return out


def _sharings(classes: list[list[int]], free: set[int], bi: int) -> list[frozenset[int]]:
    """The ways a one-boundary line from ``bi`` shares out the region's other live boundaries.

    Only how many of each interchangeable class go inside matters.  ``classes`` are the
    region's classes (``interchangeable_classes``); taking ``bi`` out of its own keeps
    the others as they are, so they are computed once per region, not once per line.
    The order is ``interchangeable_classes``'s: free classes by their first boundary,
    then the others.
    """
    loose: list[list[int]] = []
    tied: list[list[int]] = []
    for c in classes:
        rest = [k for k in c if k != bi]
        if rest:
            (loose if rest[0] in free else tied).append(rest)
    loose.sort(key=lambda c: c[0])
    others = loose + tied
    return [
        frozenset(k for c, n in zip(others, counts, strict=True) for k in c[:n])
        for counts in product(*(range(len(c) + 1) for c in others))
    ]


def _is_free(b: tuple[int, ...], lives: tuple[int, ...], counts: dict[int, int]) -> bool:
    """A boundary whose live spots occur nowhere else: it touches no other boundary."""
    live = [s for s in b if lives[s]]
    return all(counts[s] == live.count(s) for s in live)


def _live_counts(p: Position) -> dict[int, int]:
    """How many times each live spot occurs in the position."""
    lives = p.lives
    counts: dict[int, int] = {}
    for r in p.regions:
        for b in r:
            for s in b:
                if lives[s]:
                    counts[s] = counts.get(s, 0) + 1
    return counts


def check_move(p: Position, m: Move) -> None:
    """Raise IllegalMoveError saying why ``m`` is not a legal move in ``p``."""
    if not 0 <= m.region < len(p.regions):
        raise IllegalMoveError(f"there is no region {m.region}")
    region = p.regions[m.region]
    for b, c in ((m.boundary, m.corner), (m.boundary2, m.corner2)):
        if not 0 <= b < len(region):
            raise IllegalMoveError(f"region {m.region} has no boundary {b}")
        if not 0 <= c < len(region[b]):
            raise IllegalMoveError(f"boundary {b} of region {m.region} has no corner {c}")
    x = region[m.boundary][m.corner]
    y = region[m.boundary2][m.corner2]
    lives = p.lives
    for s in (x, y):
        if lives[s] == 0:
            raise IllegalMoveError(f"spot {s + 1} has no life left")
    if x == y:
        if not m.is_loop:
            raise IllegalMoveError(
                f"a line from spot {x + 1} to itself must leave and return through one corner"
            )
        if lives[x] < 2:
            raise IllegalMoveError(f"a loop at spot {x + 1} needs two lives; it has one")
    if m.joins_boundaries and m.inside:
        raise IllegalMoveError("a line joining two boundaries encloses nothing")
    for k in m.inside:
        if not 0 <= k < len(region) or k == m.boundary:
            raise IllegalMoveError(f"boundary {k} cannot be enclosed by this move")


def apply_move(p: Position, m: Move, check: bool = True) -> Position:
    """The position after ``m``; the new spot is numbered ``len(p.lives)``."""
    if check:
        check_move(p, m)
    region = p.regions[m.region]
    lives = p.lives
    b1 = region[m.boundary]
    x = b1[m.corner]
    y = region[m.boundary2][m.corner2]
    z = len(lives)
    new_lives = list(lives)
    new_lives[x] -= 1
    new_lives[y] -= 1
    new_lives.append(1)
    regions = list(p.regions)
    if m.joins_boundaries:
        merged = walk(b1, m.corner, lives) + (z,) + walk(region[m.boundary2], m.corner2, lives) + (z,)
        kept: list[Boundary] = []
        for k, b in enumerate(region):
            if k == m.boundary:
                kept.append(merged)
            elif k != m.boundary2:
                kept.append(b)
        regions[m.region] = tuple(kept)
    else:
        side_a, side_b = split_boundary(b1, m.corner, m.corner2, z, lives)
        inside = m.inside
        in_a: list[Boundary] = [side_a]
        in_b: list[Boundary] = [side_b]
        for k, other in enumerate(region):
            if k != m.boundary:
                (in_a if k in inside else in_b).append(other)
        regions[m.region] = tuple(in_a)
        regions.append(tuple(in_b))
    return p.trusted(tuple(regions), tuple(new_lives), p.heaps)


def split_boundary(
    b: Boundary, corner: int, corner2: int, z: int, lives: tuple[int, ...]
) -> tuple[Boundary, Boundary]:
    """The two boundaries a one-boundary move (or loop) makes of ``b``."""
    x = b[corner]
    offset = (corner2 - corner) % len(b)
    if offset == 0:
        return (x, z), walk(b, corner, lives) + (z,)
    rot = b[corner:] + b[:corner]
    y = rot[offset]
    return rot[:offset] + (y, z), rot[offset:] + (x, z)


def heap_children(p: Position) -> list[Position]:
    """Moves in the nim heaps beside the position: any heap to any smaller size."""
    out = []
    for i, h in enumerate(p.heaps):
        for smaller in range(h):
            heaps = p.heaps[:i] + (smaller,) + p.heaps[i + 1 :]
            out.append(p.trusted(p.regions, p.lives, tuple(sorted(v for v in heaps if v))))
    return out


def child_forms(p: Position) -> set[str]:
    """The exact canonical forms of every position one move away."""
    forms = {apply_move(p, m, check=False).canonical() for m in symmetric_moves(p)}
    forms.update(c.canonical() for c in heap_children(p))
    return forms


@dataclass(frozen=True, slots=True)
class StandardOrder:
    """A position put in an order fixed by the position itself, and its moves mapped back.

    ``position`` is the same numbered position with every boundary read from its least
    rotation, the boundaries of each region sorted (those with a live spot first), the
    regions sorted by their live boundaries, and read in the mirror image when that sorts
    first (as ``naming.numbered_key`` does).  Two readings of one numbered position (its
    regions, boundaries and corners listed in other orders, as two pictures of it are read
    back) have the same standard order, so a move chosen in it does not depend on the
    reading.  The order looks at the boundaries with no life left only to break ties: where
    they lie is the one thing a move given back (``move_back``) leaves to the reading.
    ``region_of[i]`` is the index in the stored position of the standard region ``i``,
    ``boundary_of[i][j]`` that of its boundary ``j``, and a corner ``c`` of that boundary is
    the stored corner ``start + c`` (``start - c`` when ``mirrored``) modulo its length.
    """

    stored: Position
    position: Position
    mirrored: bool
    region_of: tuple[int, ...]
    boundary_of: tuple[tuple[int, ...], ...]
    start_of: tuple[tuple[int, ...], ...]
    length_of: tuple[tuple[int, ...], ...]

    def corner_of(self, region: int, boundary: int, corner: int) -> int:
        """The stored corner of the standard ``corner`` of ``boundary`` in ``region``."""
        n = self.length_of[region][boundary]
        start = self.start_of[region][boundary]
        return (start - corner) % n if self.mirrored else (start + corner) % n

    def move_back(self, m: Move) -> Move:
        """The move of the stored position that is ``m`` (of the standard one), as ``families``
        and the words of a move give it.

        A line is given from its earlier corner to its later one.  One cutting a boundary has
        side A (the stretch from the first end to the second) holding the live boundaries
        ``inside`` (``apply_move``): where its corners come back the other way round, the ends
        are swapped and the live boundaries on side A are the others.  The live boundaries go
        where ``m`` sends them; boundaries with no life left go to side B, as the words of the
        move (``naming.moves_from_words``) and the log's replay put them.
        """
        region = self.region_of[m.region]
        boundaries = self.boundary_of[m.region]
        b1, c1 = boundaries[m.boundary], self.corner_of(m.region, m.boundary, m.corner)
        b2, c2 = boundaries[m.boundary2], self.corner_of(m.region, m.boundary2, m.corner2)
        inside = frozenset(boundaries[k] for k in m.inside)
        if self.mirrored and b1 == b2 and c1 != c2:
            c1, c2 = c2, c1  # the mirror image walks the boundary the other way
        if b1 == b2 and c1 > c2:
            c1, c2 = c2, c1
            inside = frozenset(live_others(self.stored, region, b1)) - inside
        elif (b1, c1) > (b2, c2):  # a line joining two boundaries: the same either way round
            b1, c1, b2, c2 = b2, c2, b1, c1
        return Move(region, b1, c1, b2, c2, inside)


def _least_start(b: Boundary) -> int:
    """Where ``b`` read round is least (the first such place when it repeats itself)."""
    n = len(b)
    best = 0
    for i in range(1, n):
        if b[i:] + b[:i] < b[best:] + b[:best]:
            best = i
    return best


#: Where each standard region came from: the stored region, and each boundary's (stored index, start).
Origins = list[tuple[int, list[tuple[int, int]]]]
#: A region's sort key: its live boundaries (least rotations, sorted), then all of them.
RegionKey = tuple[tuple[Boundary, ...], tuple[Boundary, ...]]


def _ordered(p: Position, mirrored: bool) -> tuple[list[RegionKey], Origins]:
    """The standard regions of ``p`` read one way (their keys, sorted), and where each came from:
    the stored region, and each boundary's stored index and start."""
    lives = p.lives
    regions: list[tuple[RegionKey, int, list[tuple[int, int]]]] = []
    for ri, region in enumerate(p.regions):
        read: list[tuple[bool, Boundary, int, int]] = []
        for bi, b in enumerate(region):
            seq = b[::-1] if mirrored else b
            i = _least_start(seq)
            start = (len(b) - 1 - i) % len(b) if mirrored and b else i
            dead = not any(lives[s] for s in b)
            read.append((dead, seq[i:] + seq[:i], bi, start))
        read.sort(key=lambda t: (t[0], t[1]))
        key = (tuple(t[1] for t in read if not t[0]), tuple(t[1] for t in read))
        regions.append((key, ri, [(bi, start) for _, _, bi, start in read]))
    regions.sort(key=lambda t: t[0])
    return [k for k, _, _ in regions], [(ri, where) for _, ri, where in regions]


def standard_order(p: Position) -> StandardOrder:
    """``p`` in the order fixed by the position itself (``StandardOrder``)."""
    forward, where = _ordered(p, False)
    backward, where_back = _ordered(p, True)
    mirrored = ([k[0] for k in backward], backward) < ([k[0] for k in forward], forward)
    keys, where = (backward, where_back) if mirrored else (forward, where)
    return StandardOrder(
        p,
        p.trusted(tuple(k[1] for k in keys), p.lives, p.heaps),
        mirrored,
        tuple(ri for ri, _ in where),
        tuple(tuple(bi for bi, _ in w) for _, w in where),
        tuple(tuple(start for _, start in w) for _, w in where),
        tuple(tuple(len(p.regions[ri][bi]) for bi, _ in w) for ri, w in where),
    )


def random_move(p: Position, rng: random.Random) -> Move | None:
    """A move chosen as the Random player chooses (Alfeld §5.2), or None at the end.

    The choice is made in the position's standard order (``standard_order``) and given
    back as a move of ``p``: for one seed, every reading of one numbered position (two
    pictures of it read back) gets the same move (up to where boundaries with no life
    left go: ``StandardOrder.move_back``).
    """
    order = standard_order(p)
    m = random_move_as_stored(order.position, rng)
    return None if m is None else order.move_back(m)


def random_move_as_stored(p: Position, rng: random.Random) -> Move | None:
    """``random_move`` in the order ``p`` is stored in: the same choices, and faster.

    A family (pair of corners) is picked uniformly, then how many of the region's
    other live boundaries go inside, uniformly from 0 to k, then which ones: small
    and large enclosures are then equally likely.  Which move a seed gives depends on
    the order of ``p``'s regions, boundaries and corners; random games played on from a
    position in standard order (``players.rollouts``) use it.
    """
    fams = families(p)
    if not fams:
        return None
    ri, bi, ci, bj, cj = rng.choice(fams)
    if bi != bj:
        return Move(ri, bi, ci, bj, cj)
    others = live_others(p, ri, bi)
    count = rng.randint(0, len(others))
    return Move(ri, bi, ci, bj, cj, frozenset(rng.sample(others, count)))
