"""The directions in which a land's regions are read for its exact form.

The notation orients each region on its own (``drawing.py``): reversing every
boundary of one region, and of no other, names the same game, and SPOTS writes its
lands so.  The exact form is therefore the least code over every choice of
direction per region, which is what makes it the same string for every way of
reading a land.  Trying all ``2**R`` choices would be too slow for lands of many
regions, so the choices are first cut down by an invariant of each region that
tells its two directions apart:

1. each capital is coloured by the region on its other side (round 0: all alike);
2. a region read one way has a *signature*: its boundaries' least rotations (capitals
   by colour, a small letter by how far ahead its other corner is), sorted; read the
   other way it has the signature of the mirror image;
3. the unordered pair of a region's two signatures colours the capitals that lead
   into it, and steps 2 and 3 are repeated while they tell more regions apart.

A region whose two signatures differ is read the way whose signature is less; a
region whose reversal only rotates its boundaries (``AB``) may be read either way;
only the others (``ABC`` between two regions alike) are tried both ways.  Every
step depends on the land only up to renaming, rotating, reordering and reversing
regions, so equal lands get the same set of readings, and the least code over
them is a canonical form (colour refinement of this kind is the usual first step
of graph canonisation: B. McKay and A. Piperno, *Practical graph isomorphism, II*,
J. Symbolic Comput. 60, 2014).  ``kernels._land_directions`` makes the same choices
in compiled code, from the same signatures (``tests/test_directions.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import TYPE_CHECKING

from .caches import BoundedCache

if TYPE_CHECKING:  # types only: this module imports nothing of the engine but its caches
    from .data import Region

#: Token values of a signature: 0, 1, 2 as written; a small letter ``_SMALL`` plus how far
#: ahead its other corner is on the boundary; a capital ``_CAPITAL`` plus its colour.
_SMALL = 3
_CAPITAL = 1 << 20

#: Rounds of colour refinement at most (each adds the regions one step further away).
MAX_ROUNDS = 4

#: A region's signature: its boundaries' least readings sorted by (length, reading), each
#: written as its length then its tokens, one after another (``kernels._land_directions``
#: compares the same sequences).
Signature = tuple[int, ...]

KEEP, TURN, BOTH = 0, 1, 2


def readings(land: Sequence[Region], lives: Sequence[int]) -> list[list[Region]]:
    """The readings of a cleaned land among which its exact form is the least code."""
    choice = directions(land, lives)
    options = [
        ((r,) if c == KEEP else (_turned(r),) if c == TURN else (r, _turned(r)))
        for r, c in zip(land, choice, strict=True)
    ]
    return [list(o) for o in product(*options)]


def directions(land: Sequence[Region], lives: Sequence[int]) -> list[int]:
    """How each region of a cleaned land is read: ``KEEP`` as written, ``TURN`` reversed,
    ``BOTH`` both ways (the refinement cannot tell its directions apart)."""
    n = len(land)
    free = [_only_rotated(r) for r in land]
    if n < 2 or all(free):
        return [KEEP] * n
    where: dict[int, list[int]] = {}
    for ri, r in enumerate(land):
        for b in r:
            for s in b:
                where.setdefault(s, []).append(ri)
    beyond: list[dict[int, int]] = [{} for _ in range(n)]  # capital -> the region beyond it
    kinds: dict[int, int] = {}
    for s, rs in where.items():
        lv = lives[s]
        if lv >= 2:
            kinds[s] = 3 - lv
        elif len(rs) == 2 and rs[0] != rs[1]:
            kinds[s] = _CAPITAL
            beyond[rs[0]][s] = rs[1]
            beyond[rs[1]][s] = rs[0]
        else:
            kinds[s] = _SMALL if len(rs) == 2 else 2
    colour = [0] * n
    classes = 1
    signs: list[tuple[Signature, Signature]] = []
    for _ in range(MAX_ROUNDS):
        signs = [_signatures(r, kinds, beyond[ri], colour) for ri, r in enumerate(land)]
        pairs = [min(a, b) + max(a, b) for a, b in signs]
        ranks = {p: i for i, p in enumerate(sorted(set(pairs)))}
        if len(ranks) == classes:
            break
        colour = [ranks[p] for p in pairs]
        classes = len(ranks)
    out = []
    for (forward, backward), same in zip(signs, free, strict=True):
        out.append(KEEP if same or forward < backward else TURN if backward < forward else BOTH)
    return out


def _turned(region: Region) -> Region:
    return tuple(b[::-1] for b in region)


def _signatures(
    region: Region, kinds: dict[int, int], beyond: dict[int, int], colour: list[int]
) -> tuple[Signature, Signature]:
    """A region's signature read as written and read reversed."""
    forward = []
    backward = []
    for b in region:
        n = len(b)
        tokens = []
        for c, s in enumerate(b):
            kind = kinds[s]
            if kind == _SMALL:
                ahead = 0  # the other corner on another boundary of the region
                for k in range(1, n):
                    if b[(c + k) % n] == s:
                        ahead = k
                        break
                tokens.append(_SMALL + ahead)
            else:
                tokens.append(kind + colour[beyond[s]] if kind == _CAPITAL else kind)
        back = [t if t <= _SMALL or t >= _CAPITAL else _SMALL + n - (t - _SMALL) for t in tokens[::-1]]
        forward.append(_least_rotation(tuple(tokens)))
        backward.append(_least_rotation(tuple(back)))
    return _joined(forward), _joined(backward)


def _joined(readings: list[tuple[int, ...]]) -> Signature:
    readings.sort(key=lambda t: (len(t), t))
    out: list[int] = []
    for t in readings:
        out.append(len(t))
        out += t
    return tuple(out)


#: Least rotations by token sequence.
_LEAST: BoundedCache[tuple[int, ...], tuple[int, ...]] = BoundedCache(1 << 16)


def _least_rotation(tokens: tuple[int, ...]) -> tuple[int, ...]:
    """The least rotation of a token sequence (cached)."""
    if len(tokens) == 1:
        return tokens
    best = _LEAST.get(tokens)
    if best is None:
        best = min(tokens[c:] + tokens[:c] for c in range(len(tokens)))
        _LEAST.remember(tokens, best)
    return best


def _only_rotated(region: Region) -> bool:
    """Whether reversing the region only rotates each of its boundaries (then its
    direction changes nothing)."""
    for b in region:
        if len(b) > 2:
            r = b[::-1]
            if not any(b[i:] + b[:i] == r for i in range(len(b))):
                return False
    return True
