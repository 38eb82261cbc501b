"""The reduced form: the canonical form after value-preserving simplifications.

The reduced form is the key of the tables of solved positions: two positions with
the same reduced form have the same game value in every sum, in normal and in
misère play.  Each rule below replaces a position by one whose game tree is the
same up to positions that are themselves equal, so the full value (nimber, misère
canonical tree) is kept; ``tests/test_reduce.py`` checks every rule by brute force.

1. **Cleaning** (already part of the exact form): stumps, empty boundaries and
   regions with fewer than two lives are dropped, and a capital that is left with
   one occurrence is written ``2``.  None of them can take part in a move again.
2. **Adjacent corners** (``aa`` → ``2``, as GLOP does): a one-life spot whose two
   corners follow each other round its boundary (only stumps between them) can be
   reached from either corner with the same result, because what lies between the
   corners is dead and can go to either side.  Its second occurrence is dropped.
3. **Small regions are sets** (GLOP's "fewer than four lives"): in a region with at
   most three lives every move joins two of its live spots (or loops a spot with
   two lives), and the result depends only on *which* spots were used: what is
   left is one new spot beside at most one old one.  So the boundaries of such a
   region, and the order of its spots, do not matter.  The region is written as
   one boundary holding each live spot once: the spots of no other region by lives,
   most first, then the others.  Three spots go round one way or the other, and
   those are the region's two directions, which the exact form already reads both
   (``directions.py``).

The reduced string of a land is the exact form (``canonical.least_reading_text``) of
the land after rules 2 and 3, so two lands that differ only in what the rules drop
get one string, and a reduced string reduces to itself.
"""

from __future__ import annotations

from array import array
from types import ModuleType
from typing import TYPE_CHECKING, Any

from . import backend
from .caches import BoundedCache
from .canonical import (
    LAND_CACHE_SIZE,
    LandKey,
    clean_lands,
    least_reading_text,
)
from .data import Boundary, Region
from .moves import Move, apply_move

if TYPE_CHECKING:  # numpy is loaded with the kernels, not at start
    import numpy as np

    from .position import Position

#: Reduced strings of cleaned lands, by the land exactly as given (regions and the lives met
#: along them).  A move changes one land; the others keep their spot numbers, and in a
#: search about a third of the lands of children were met before exactly so.
_REDUCED: BoundedCache[LandKey | tuple[int, ...], str] = BoundedCache(LAND_CACHE_SIZE)
#: The same strings by the lands' complete invariants (``_reduced_compiled``).
_REDUCED_BY_INVARIANT: BoundedCache[bytes, str] = BoundedCache(LAND_CACHE_SIZE)


def merge_adjacent_corners(b: Boundary, lives: tuple[int, ...]) -> Boundary:
    """Rule 2: drop the second corner of a one-life spot whose corners are adjacent."""
    if len(b) < 2 or len(set(b)) == len(b):  # no spot twice: no two equal corners side by side
        return b
    out = list(b)
    changed = True
    while changed and len(out) > 1:
        changed = False
        n = len(out)
        for i in range(n):
            j = (i + 1) % n
            if out[i] == out[j] and lives[out[i]] == 1:
                del out[j]
                changed = True
                break
    return tuple(out)


def set_region(region: Region, lives: tuple[int, ...], occurs: dict[int, int]) -> Region:
    """Rule 3: a region of at most three lives written as one boundary of its live spots."""
    spots = list(dict.fromkeys(s for b in region for s in b))
    singles = sorted((s for s in spots if occurs[s] < 2), key=lambda s: -lives[s])
    return (tuple(singles + [s for s in spots if occurs[s] >= 2]),)


def reduced_lands(p: Position) -> list[str]:
    """The reduced strings of the lands of ``p``, sorted."""
    lives = p.lives
    out = []
    for land in clean_lands(p):
        if len(land) > 1:
            backend.switch_on_when_due()
            kernels = backend.compiled
            if kernels is not None:
                out.append(_reduced_compiled(land, lives, kernels))
                continue
        key = (tuple(land), tuple([lives[s] for r in land for b in r for s in b]))
        text = _REDUCED.get(key)
        if text is None:
            kernels = backend.compiled
            found = None if kernels is None else kernels.reduced_land(kernels.flatten_land(land, lives))
            text = _REDUCED.remember(key, found if found is not None else reduced_land(land, lives))
        else:
            _REDUCED.move_to_end(key)
        out.append(text)
    out.sort()
    return out


def _reduced_compiled(land: list[Region], lives: tuple[int, ...], kernels: ModuleType) -> str:
    """``reduced_land`` behind two caches: the land exactly as given, then its complete invariant.

    The exact key is the land flattened for the kernels (``kernels.flatten_land``).  The
    reduced string depends only on the land up to renaming, rotating, reordering and
    reading regions either way, so every way of writing one land shares one entry of the
    second cache.
    """
    flat = kernels.flatten_land(land, lives)
    key = tuple(flat)
    text = _REDUCED.get(key)
    if text is not None:
        _REDUCED.move_to_end(key)
        return text
    as_array = kernels.int64_array(flat)  # once, for both kernels below
    invariant = kernels.invariant_of_flat(as_array)
    text = _REDUCED_BY_INVARIANT.get(invariant) if invariant else None
    if text is None:
        text = kernels.reduced_land(as_array)
        if text is None:
            text = reduced_land(land, lives)
        if invariant:
            _REDUCED_BY_INVARIANT.remember(invariant, text)
    else:
        _REDUCED_BY_INVARIANT.move_to_end(invariant)
    return _REDUCED.remember(key, text)


def reduced_land(land: list[Region], lives: tuple[int, ...]) -> str:
    """The reduced string of one cleaned land: rules 2 and 3, then the exact form."""
    regions = [tuple([merge_adjacent_corners(b, lives) for b in r]) for r in land]
    spot_sets = [{s for b in r for s in b} for r in regions]
    small = [sum([lives[s] for s in spots]) <= 3 for spots in spot_sets]
    if any(small):
        occurs: dict[int, int] = {}
        for spots in spot_sets:
            for s in spots:
                occurs[s] = occurs.get(s, 0) + 1
        regions = [set_region(r, lives, occurs) if sm else r for r, sm in zip(regions, small, strict=True)]
    return least_reading_text(regions, lives, layout=True)


def reduced_lands_after(p: Position, m: Move) -> list[str]:
    """``reduced_lands(apply_move(p, m, check=False))``: the reduced lands of a child.

    With the compiled kernels on, the move, the cleaning, the split into lands and each
    land's code are one compiled call (``kernels.child_lands``), and the reduced string
    comes from the cache by code; only a land met for the first time is reduced here.
    """
    kernels = backend.compiled
    if kernels is None or any(k > 62 for k in m.inside):
        return reduced_lands(apply_move(p, m, check=False))
    mask = 0
    for k in m.inside:
        mask |= 1 << k
    codes, flat, offsets = kernels.child_lands(
        p.regions, p.lives, (m.region, m.boundary, m.corner, m.boundary2, m.corner2, mask)
    )
    return _reduced_strings(codes, flat, offsets)


def _reduced_strings(codes: list[bytes], flat: np.ndarray, offsets: list[int]) -> list[str]:
    """The sorted reduced strings of lands given by their codes and flat forms
    (``kernels.lands_after``): from the cache by code, reduced here when met first."""
    out = []
    copied = False
    for i, code in enumerate(codes):
        text = _REDUCED_BY_INVARIANT.get(code) if code else None
        if text is None:
            from .kernels import reduced_land as compiled_reduced_land
            from .kernels import unflatten_land_and_lives

            if not copied:  # ``flat`` is the kernels' buffer, and reducing calls them again
                flat, copied = flat.copy(), True
            one = flat[offsets[i] : offsets[i + 1]]
            text = compiled_reduced_land(one)  # rules 2 and 3 compiled
            if text is None:
                land, lives = unflatten_land_and_lives(one)
                text = reduced_land(land, lives)
            if code:
                _REDUCED_BY_INVARIANT.remember(code, text)
        else:
            _REDUCED_BY_INVARIANT.move_to_end(code)
        out.append(text)
    out.sort()
    return out


#: The last land whose moves or children were asked for: its string, and the flat position and
#: lives ``kernels.parse_land_kernel`` read from it (a search asks for a land's children one by one).
_PARSED: list[Any] = [None, None, None]


def _parsed_land(land: str) -> tuple[ModuleType, np.ndarray, np.ndarray] | None:
    """The kernels and a land string read into their flat form (cached for the last land), or
    None when the kernels are off or cannot read it."""
    kernels = backend.compiled
    if kernels is None:
        return None
    if _PARSED[0] != land:
        flat, lives = kernels.parse_land(land)
        _PARSED[:] = [land, flat if len(flat) else None, lives]
    flat = _PARSED[1]
    return None if flat is None else (kernels, flat, _PARSED[2])


def land_moves(land: str) -> array[int] | None:
    """A land's moves listed in compiled code (``moves.symmetric_move_args`` of the land read
    back from its string, packed as ``solve.children.pack_moves`` packs them), or None when
    the kernels are off or a move does not fit the packing (then list them in Python)."""
    parsed = _parsed_land(land)
    if parsed is None:
        return None
    kernels, flat, lives = parsed
    n = kernels.call_into(kernels.list_moves_into, flat, lives)
    if n < 0:
        return None
    out = array("Q")
    out.frombytes(kernels.OUT.words[:n].tobytes())
    return out


def reduced_lands_after_word(land: str, word: int) -> list[str] | None:
    """``reduced_lands_after`` of a land string and a move packed as ``land_moves`` packs it,
    all in compiled code up to the strings; None when the kernels are off."""
    parsed = _parsed_land(land)
    if parsed is None:
        return None
    kernels, flat, lives = parsed
    mask = word >> kernels.PACK_INSIDE_SHIFT if word & kernels.PACK_ONE_BOUNDARY else 0
    b = kernels.PACK_BYTE
    codes, out_flat, offsets = kernels.lands_after(
        flat, lives, word & b, word >> 8 & b, word >> 16 & b, word >> 24 & b, word >> 32 & b, mask
    )
    return _reduced_strings(codes, out_flat, offsets)


def reduced_form(p: Position) -> str:
    """The reduced form of a position: reduced lands joined by ``+``, then the heaps."""
    lands = reduced_lands(p)
    heaps = [f"*{h}" for h in p.heaps]
    return "+".join(lands + heaps) if lands or heaps else "!"
