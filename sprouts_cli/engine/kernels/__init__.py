"""The canonical code and string of a land, compiled (numba) over flat integer arrays.

``canonical.py`` writes the exact canonical form in Python (the tree code of a land is
``land_tree.py``), and writing it was most of a solver's time.  ``land_code_kernel``
does the same work in compiled code and gives the same string, byte for byte, and a
code ordered exactly as the Python code is:

* the regions and the pieces (boundaries joined by capitals) form a tree, rooted at its
  centre (the region, when the centre is a region and a piece side by side);
* a region's code is its child pieces' codes, sorted; a piece's code, entered through
  its boundary in the parent region, is the least breadth-first reading over the
  corners of that boundary (each capital's other corner fixes where the next boundary
  is read from), each boundary's tokens followed by the code of its region;
* both orientations are coded (mirroring reads every boundary backwards), the lesser
  wins, and the land is written from it as ``land_tree._Coder.write`` does.

The Python code is a nested tuple; here it is flat: every tuple's elements followed by
END, a value below every token, so flat sequences compare as the tuples do (a tuple that
is a prefix of another ends where the other goes on).  The code is given as bytes that
compare the same way (``_key_bytes``).  Since the canonical form is a true one, the code
is a *complete invariant*: equal for two lands exactly when their canonical strings are,
so it can key caches that every way of writing a land shares (``reduce.py``).

Input: ``flat`` = ``[regions, (boundaries, (corners, spot*4 + lives, ...)...)...]``
(``flatten_land``).  A land that is not a cleaned, drawable one (a spot with no life, a
spot met more than twice, a small letter on two boundaries, pieces that do not nest as
a tree) gives empty results: the caller then takes the Python path, which explains the
problem.

The same flat arrays serve a solver expanding a land (``reduce.land_moves`` and
``reduce.reduced_lands_after_word``), so no Python object is made between a land's
string and its children's codes:

* ``parse_land_kernel`` reads a land string written by the engine into the flat form
  ``child_lands_kernel`` takes (``solve.children.read_land`` is the reference: the same
  spots in the same order);
* ``list_moves_kernel`` lists ``moves.symmetric_move_args``'s moves, in the same order,
  packed in 64-bit words as ``solve.children.pack_moves`` packs them (a move past the
  packing's limits gives no list, and the caller lists in Python);
* ``child_lands_kernel`` makes a child's cleaned lands and their codes
  (``child_land_flats_kernel`` the lands alone, for a caller that may know them already).

The kernels are cut along their work: ``land_code`` (the code and string, and the flat
form's helpers), ``children``, ``land_directions``, ``position_lands``, ``reduced``,
``land_text`` (reading a land string, listing its moves) and ``into`` (the entry points
that write into the caller's buffers); this module is the Python side (flattening,
the buffers, the calls) and names every kernel the rest of the package uses.  numba
keeps a compiled kernel until the kernel's *own* file changes, and a kernel holds the
code of those it calls in other files; so every kernel's cache is keyed by a hash of
all the kernel sources too (``aot.sources_stamp``, ``jit.stamped_cache``), and a change
to any file recompiles them all (``tests/test_kernels.py`` checks the stamp).

The kernels run under numba (``cache=True``) or, with ``SPROUTS_PURE_PYTHON=1`` or no
numba, unchanged as plain Python (the tests compare both).  The engine imports this
module (and numba) only once a command has coded a few hundred lands
(``backend.COMPILE_AFTER``), so small commands start as fast as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .children import child_land_flats_kernel, child_lands_kernel
from .into import (
    NOT_CODED,
    TOO_SMALL,
    child_lands_into,
    land_code_into,
    list_moves_into,
    parse_land_into,
    position_lands_into,
    reduced_land_into,
)
from .land_code import Land, Lives, land_code_kernel
from .land_directions import _land_directions
from .land_text import PACK_BYTE, PACK_INSIDE_SHIFT, PACK_ONE_BOUNDARY, list_moves_kernel, parse_land_kernel
from .position_lands import position_lands_kernel
from .reduced import reduced_land_kernel


def flatten_land(regions: Land, lives: Lives) -> list[int]:
    """A land as the flat list ``land_code_kernel`` reads (module docstring)."""
    flat = [len(regions)]
    for r in regions:
        flat.append(len(r))
        for b in r:
            flat.append(len(b))
            flat.extend([4 * s + lives[s] for s in b])
    return flat


def int64_array(values: list[int] | np.ndarray) -> np.ndarray:
    """``np.array(values, np.int64)`` (contiguous), through ``bytes`` when every value of a list
    fits in a byte.

    The flat forms of positions are small non-negative numbers (counts, spot numbers,
    lives); ``bytes`` reads a list of them in C about three times as fast as numpy reads
    Python ints, and a 10-spot position's canonical call spent ~3 µs of its ~17 µs there.
    """
    if isinstance(values, np.ndarray):
        return np.ascontiguousarray(values, np.int64)
    try:
        return np.frombuffer(bytes(values), np.uint8).astype(np.int64)
    except ValueError:  # a value outside 0-255
        return np.array(values, np.int64)


def land_invariant(regions: Land, lives: Lives) -> bytes:
    """The canonical code of a cleaned land as bytes (a complete invariant), or ``b""``."""
    return invariant_of_flat(flatten_land(regions, lives))


def invariant_of_flat(flat: list[int] | np.ndarray) -> bytes:
    """``land_invariant`` of a land already flattened (``flatten_land``)."""
    n = call_into(land_code_into, int64_array(flat), False)
    return OUT.chars[:n].tobytes() if n > 0 else b""


def land_code_and_text(regions: Land, lives: Lives) -> tuple[bytes, str] | None:
    """The canonical code (as bytes, ordered as ``canonical.land_code``'s codes) and the canonical
    string of a cleaned land of several regions, or None if it cannot be coded."""
    n = call_into(land_code_into, int64_array(flatten_land(regions, lives)), True)
    if n < 0:
        return None
    raw = OUT.chars[: n + int(OUT.words[0])].tobytes()
    return raw[:n], raw[n:].decode("ascii")


def flatten_position(regions: Land, head: Sequence[int] = ()) -> list[int]:
    """A position's regions as the flat list ``child_lands_kernel`` reads (spot numbers as they
    are), after ``head``."""
    flat = [*head, len(regions)]
    for r in regions:
        flat.append(len(r))
        for b in r:
            flat.append(len(b))
            flat.extend(b)
    return flat


#: The last position whose children were asked for, flattened: its regions (compared by
#: identity), the flat array and its lives (a search asks for a land's children one by one).
_LAST: list[Any] = [None, None, None]


def child_lands(
    regions: Land, lives: Sequence[int], move: tuple[int, int, int, int, int, int]
) -> tuple[list[bytes], np.ndarray, list[int]]:
    """The codes of the cleaned lands after a move (``child_lands_kernel``), their flat forms
    one after another, and the offsets of each (``lands_after``); ``move`` is (region,
    boundary, corner, boundary2, corner2, mask of the boundaries inside)."""
    if _LAST[0] is not regions:
        _LAST[:] = [regions, int64_array(flatten_position(regions)), int64_array(list(lives))]
    return lands_after(_LAST[1], _LAST[2], *move)


def lands_after(
    pflat: np.ndarray, lives: np.ndarray, region: int, bi: int, ci: int, bj: int, cj: int, inside_mask: int
) -> tuple[list[bytes], np.ndarray, list[int]]:
    """``child_lands_kernel``'s results through the buffers (``child_lands_into``): the lands'
    codes, their flat forms one after another (a view of ``OUT.words``: copy it before the
    next compiled call), and the offsets of each in it."""
    n = call_into(child_lands_into, pflat, lives, region, bi, ci, bj, cj, inside_mask)
    words = OUT.words
    ends = words[n + 1 : 2 * n + 2].tolist()
    raw = OUT.chars[: ends[n]].tobytes()
    codes = [raw[ends[i] : ends[i + 1]] for i in range(n)]
    offsets = words[: n + 1].tolist()
    return codes, words[2 * n + 2 : 2 * n + 2 + offsets[n]], offsets


def unflatten_land(flat: np.ndarray) -> list[tuple[tuple[int, ...], ...]]:
    """The regions of a land flattened by ``flatten_land`` (spot numbers back from the corners)."""
    values = flat.tolist()
    regions = []
    p = 1
    for _r in range(values[0]):
        nb = values[p]
        p += 1
        boundaries = []
        for _b in range(nb):
            n = values[p]
            boundaries.append(tuple([v >> 2 for v in values[p + 1 : p + 1 + n]]))
            p += 1 + n
        regions.append(tuple(boundaries))
    return regions


def unflatten_land_and_lives(flat: np.ndarray) -> tuple[list[tuple[tuple[int, ...], ...]], tuple[int, ...]]:
    """``unflatten_land`` and the lives of its spots (indexed by spot number; 0 for the others)."""
    values = flat.tolist()
    top = max([v >> 2 for v in values[1:]], default=0)
    lives = [0] * (top + 1)
    p = 1
    for _r in range(values[0]):
        nb = values[p]
        p += 1
        for _b in range(nb):
            n = values[p]
            for v in values[p + 1 : p + 1 + n]:
                lives[v >> 2] = v & 3
            p += 1 + n
    return unflatten_land(flat), tuple(lives)


def position_lands_text(regions: Land, lives: Sequence[int]) -> str | None:
    """The canonical strings of a position's lands, sorted and joined by ``+``, in one compiled
    call (``position_lands_into``); None when a land cannot be coded."""
    n = call_into(position_lands_into, int64_array(flatten_position(regions, (len(lives), *lives))))
    return OUT.chars[:n].tobytes().decode("ascii") if n >= 0 else None


def position_lands(regions: Land, lives: Sequence[int]) -> list[str] | None:
    """``canonical.canonical_lands`` of a position (``position_lands_text``, split), or None
    when a land cannot be coded."""
    text = position_lands_text(regions, lives)
    if text is None:
        return None
    return text.split("+") if text else []


def reduced_land(flat: np.ndarray | list[int]) -> str | None:
    """``reduced_land_kernel`` of a flat land (``flatten_land``): its reduced string, or None
    when it cannot be coded."""
    n = call_into(reduced_land_into, int64_array(flat))
    if n < 0:
        return None
    return OUT.chars[:n].tobytes().decode("ascii")


def parse_land(land: str) -> tuple[np.ndarray, np.ndarray]:
    """``parse_land_kernel`` of a string (through ``parse_land_into``): ``(flat, lives)``, copied out."""
    n = call_into(parse_land_into, np.frombuffer(land.encode("ascii"), np.uint8))
    words = OUT.words
    return words[1 : 1 + n].copy(), words[1 + n : 1 + n + words[0]].copy()


class OutBuffers:
    """The two buffers the ``*_into`` kernels write to, grown when one is too small.

    One per process (``OUT``): a result is read out (or copied) before the next call, and
    the engine's compiled paths are not called from two threads at once.
    """

    def __init__(self, nwords: int = 1 << 12, nchars: int = 1 << 14) -> None:
        self.words = np.empty(nwords, np.int64)
        self.chars = np.empty(nchars, np.uint8)

    def grow(self) -> None:
        """Make room for the sizes a ``TOO_SMALL`` call left in ``words[:2]``."""
        nwords, nchars = int(self.words[0]), int(self.words[1])
        if nwords > self.words.shape[0]:
            self.words = np.empty(2 * nwords, np.int64)
        if nchars > self.chars.shape[0]:
            self.chars = np.empty(2 * nchars, np.uint8)


OUT = OutBuffers()


def call_into(fn: Any, *args: Any) -> int:
    """``fn(*args, OUT.words, OUT.chars)`` for a ``*_into`` kernel, again after growing the
    buffers while it says ``TOO_SMALL``; its result."""
    out = OUT
    result: int = fn(*args, out.words, out.chars)
    while result == TOO_SMALL:
        out.grow()
        result = fn(*args, out.words, out.chars)
    return result


def warm_up() -> None:
    """Compile the kernels, or load them from numba's cache, on a tiny land (about a second
    the first time after an install, a fraction of it afterwards)."""
    land = np.array(flatten_land([((0,), (1,))], (3, 3)), np.int64)
    land_code_into(land, True, OUT.words, OUT.chars)
    land_code_into(land, False, OUT.words, OUT.chars)
    position = np.array(flatten_position([((0,), (1,))]), np.int64)
    child_lands_into(position, np.array([3, 3], np.int64), 0, 0, 0, 1, 0, 0, OUT.words, OUT.chars)
    position_lands_into(np.concatenate((np.array([2, 3, 3], np.int64), position)), OUT.words, OUT.chars)
    reduced_land_into(land, OUT.words, OUT.chars)
    flat, lives = parse_land("0.0")
    list_moves_into(flat, lives, OUT.words, OUT.chars)


__all__ = [
    "NOT_CODED",
    "OUT",
    "PACK_BYTE",
    "PACK_INSIDE_SHIFT",
    "PACK_ONE_BOUNDARY",
    "TOO_SMALL",
    "OutBuffers",
    "_land_directions",
    "call_into",
    "child_land_flats_kernel",
    "child_lands",
    "child_lands_into",
    "child_lands_kernel",
    "flatten_land",
    "flatten_position",
    "int64_array",
    "invariant_of_flat",
    "land_code_and_text",
    "land_code_into",
    "land_code_kernel",
    "land_invariant",
    "lands_after",
    "list_moves_into",
    "list_moves_kernel",
    "parse_land",
    "parse_land_into",
    "parse_land_kernel",
    "position_lands",
    "position_lands_into",
    "position_lands_kernel",
    "position_lands_text",
    "reduced_land",
    "reduced_land_into",
    "reduced_land_kernel",
    "unflatten_land",
    "unflatten_land_and_lives",
    "warm_up",
]
