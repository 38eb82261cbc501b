"""Every land of a whole position, compiled: its lands' canonical strings in one call
(``position_lands_kernel``).
"""

from __future__ import annotations

import numpy as np

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from ..aot import kernel
from .children import _split_lands
from .land_code import _compare, _read_parent
from .land_directions import _least_reading_code

# ------------------------------------------------------------------ every land of a position


@kernel
def position_lands_kernel(packed):  # type: ignore[no-untyped-def]
    """The canonical strings of the lands of a position (``canonical.canonical_lands``), in one call.

    ``packed`` is the number of spots, their lives, then the position as ``flatten_position``
    writes it (one array: converting a list costs about as much as coding a small land).
    Cleans as ``canonical.clean_lands`` does (regions without a move dropped, then dead spots
    and empty boundaries), joins the regions that share a spot into lands, writes each land
    with ``land_code_kernel`` and returns the strings sorted and joined by ``+`` (ASCII), and
    True; or an empty array and False when a land cannot be coded (the caller then takes
    the Python path, which explains the problem).
    """
    nspots = packed[0]
    lives = packed[1 : 1 + nspots]
    nreg, reg_first, bstart, spots = _read_parent(packed[1 + nspots :])
    # regions where a move can be made: two different live spots, or one with two lives
    alive = np.zeros(nreg, np.bool_)
    for r in range(nreg):
        first = -1
        for g in range(bstart[reg_first[r]], bstart[reg_first[r + 1]]):
            s = spots[g]
            v = lives[s]
            if v:
                if v >= 2 or (first >= 0 and s != first):
                    alive[r] = True
                    break
                first = s
    # lands: live regions joined by a shared live spot, each flattened, then written
    out_flat, land_off = _split_lands(nreg, alive, reg_first, bstart[:-1], bstart[1:], spots, lives)
    nlands = land_off.shape[0] - 1
    texts = np.empty(0, np.uint8)
    parts = []
    for i in range(nlands):
        _code, text = _least_reading_code(out_flat[land_off[i] : land_off[i + 1]], True)
        if not len(text):
            return texts, False
        parts.append(text)
    # sorted (as Python sorts the strings: ASCII bytes in order), joined by +
    order = np.empty(nlands, np.int64)
    size = nlands - 1 if nlands else 0
    for i in range(nlands):
        size += parts[i].shape[0]
        j = i
        while j > 0:
            a = parts[order[j - 1]]
            if _compare(a, 0, a.shape[0], parts[i], 0, parts[i].shape[0]) <= 0:
                break
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    texts = np.empty(size, np.uint8)
    pos = 0
    for i in range(nlands):
        if i:
            texts[pos] = 43  # +
            pos += 1
        part = parts[order[i]]
        texts[pos : pos + part.shape[0]] = part
        pos += part.shape[0]
    return texts, True
