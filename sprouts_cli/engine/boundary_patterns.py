"""Boundary patterns for the canonical form (``canonical.py``): the tokens of a code,
and the least readings of one boundary.

A boundary is read as a *pattern*: its corners as tokens (``0``, ``1``, ``2`` as
written, capitals and small letters renamed by first appearance).  The least
rotation of a pattern, the starts that give it and its mirror image are what the
tree code of a land (``land_tree.py``) compares; they are cached by pattern, since
the same few patterns come back in every position of a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from .caches import BoundedCache
from .data import Boundary

# Token values inside codes: 0, 1, 2 as written; capitals 3, 4, ...; small letters after.
K_ZERO, K_ONE, K_TWO = 0, 1, 2
K_CAP = 3
K_SMALL = 4
SMALL_BASE = 1 << 40

#: A canonical code: ints and nested codes, compared as tuples (lexicographically).
Code: TypeAlias = "tuple[int | Code, ...]"

#: Boundary patterns kept by each pattern cache (a few hundred bytes each).
PATTERN_CACHE_SIZE = 200_000
#: Least readings of free boundaries and their mirror images, by pattern (``_both_rotations``).
Rotations = tuple[tuple[int, ...], int, tuple[int, ...], int]
_FREE_CACHE: BoundedCache[tuple[int, ...], Rotations] = BoundedCache(PATTERN_CACHE_SIZE)
#: Least reading of a boundary pattern and the starts giving it (``_least_starts``).
_STARTS_CACHE: BoundedCache[tuple[int, ...], tuple[tuple[int, ...], list[int]]] = BoundedCache(
    PATTERN_CACHE_SIZE
)
#: Pattern of a boundary's mirror image by its pattern (``_mirror_pattern``).
_MIRROR_CACHE: BoundedCache[tuple[int, ...], tuple[int, ...]] = BoundedCache(PATTERN_CACHE_SIZE)

_DIGITS = "012"


def _mirror_invariant(seqs: list[Boundary]) -> bool:
    """Whether mirroring the land only rotates its boundaries (then both orientations
    have one code, and the mirror image need not be coded).

    A boundary read backwards is a rotation of itself when it has at most two
    corners, or when it is a cyclic palindrome; that needs a spot met twice (with all
    spots distinct, ``b[i] == b[k - i]`` for every ``i`` cannot hold beyond two corners).
    """
    for b in seqs:
        n = len(b)
        if n > 2 and (len(set(b)) == n or not _cyclic_palindrome(b)):
            return False
    return True


def _cyclic_palindrome(b: Boundary) -> bool:
    """Whether ``b`` reversed is one of its rotations."""
    r = b[::-1]
    return any(b[i:] + b[:i] == r for i in range(len(b)))


def _first(item: tuple[Any, ...]) -> Any:
    return item[0]


def _normalised(seq: Boundary, start: int, kinds: Mapping[int, int]) -> tuple[int, ...]:
    """``seq`` read from ``start``, letters named afresh as they come."""
    n = len(seq)
    if n == 1:
        kd = kinds[seq[0]]
        return (kd if kd < K_CAP else K_CAP if kd == K_CAP else SMALL_BASE,)
    names: dict[int, int] = {}
    out = []
    for j in range(start, start + n):
        s = seq[j - n if j >= n else j]
        kd = kinds[s]
        if kd >= K_CAP:
            nm = names.get(s)
            if nm is None:
                nm = names[s] = len(names)
            out.append((K_CAP if kd == K_CAP else SMALL_BASE) + nm)
        else:
            out.append(kd)
    return tuple(out)


def _renamed(tokens: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """A reading of a pattern (its letters already tokens) with letters named afresh."""
    names: dict[int, int] = {}
    out = []
    for t in tokens:
        if t >= K_CAP:
            nm = names.get(t)
            if nm is None:
                nm = names[t] = len(names)
            out.append((K_CAP if t < SMALL_BASE else SMALL_BASE) + nm)
        else:
            out.append(t)
    return tuple(out)


def _least_of(pattern: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """The least reading of a pattern over its starting corners, and the first start giving it."""
    best, best_start = pattern, 0
    for c in range(1, len(pattern)):
        t = _renamed(pattern[c:] + pattern[:c])
        if t < best:
            best, best_start = t, c
    return best, best_start


def _both_rotations(seq: Boundary, kinds: Mapping[int, int]) -> Rotations:
    """Least reading and its start of a boundary, then of its mirror image (``seq[::-1]``).

    Both depend only on the boundary's pattern (the mirror's pattern is the pattern
    reversed and renamed), so one pass over the spots and a cache lookup do.
    """
    pattern = _normalised(seq, 0, kinds)
    hit = _FREE_CACHE.get(pattern)
    if hit is None:
        hit = _FREE_CACHE.remember(pattern, _least_of(pattern) + _least_of(_renamed(pattern[::-1])))
    return hit


def _mirror_pattern(pattern: tuple[int, ...]) -> tuple[int, ...]:
    """The pattern of a boundary's mirror image, from its own pattern (cached)."""
    hit = _MIRROR_CACHE.get(pattern)
    if hit is None:
        hit = _MIRROR_CACHE.remember(pattern, _renamed(pattern[::-1]) if len(pattern) > 1 else pattern)
    return hit


def _least_starts(pattern: tuple[int, ...]) -> tuple[tuple[int, ...], list[int]]:
    """The least reading of a boundary pattern and every start giving it, in order (cached)."""
    hit = _STARTS_CACHE.get(pattern)
    if hit is None:
        readings = [_renamed(pattern[c:] + pattern[:c]) if c else pattern for c in range(len(pattern))]
        low = min(readings)
        hit = _STARTS_CACHE.remember(pattern, (low, [c for c, t in enumerate(readings) if t == low]))
    return hit


def _least_rotation(seq: Boundary, kinds: Mapping[int, int]) -> tuple[tuple[int, ...], int]:
    """The least reading of a boundary over its starting corners, and the first start giving it."""
    return _both_rotations(seq, kinds)[:2]
