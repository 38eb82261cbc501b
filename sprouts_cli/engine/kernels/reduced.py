"""The reduced string of a land, compiled (``reduced_land_kernel``, as ``reduce.py``'s reduced form).
"""

from __future__ import annotations

import numpy as np

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from ..aot import kernel
from .land_directions import _least_reading_code

# ------------------------------------------------------------------ the reduced string of a land


@kernel
def _merge_adjacent_corners(out, start, n):  # type: ignore[no-untyped-def]
    """Rule 2 (``reduce.merge_adjacent_corners``) on the boundary ``out[start:start+n]``, in
    place: drop the second corner of the first one-life spot met twice in a row (cyclically),
    again from the start until none is; the new length."""
    changed = True
    while changed and n > 1:
        changed = False
        for i in range(n):
            j = i + 1 if i + 1 < n else 0
            x = out[start + i]
            if x == out[start + j] and x & 3 == 1:
                for k in range(j, n - 1):
                    out[start + k] = out[start + k + 1]
                n -= 1
                changed = True
                break
    return n


@kernel
def reduced_land_kernel(flat):  # type: ignore[no-untyped-def]
    """The reduced string of a cleaned land (``reduce.reduced_land``), ASCII; empty for a
    land that cannot be coded.

    ``flat`` as ``flatten_land`` writes it.  Rule 2 on every boundary; rule 3: a region of
    at most three lives becomes one boundary of its live spots, once each: the spots met
    in no other region by lives from most to least (as first met among equals), then the
    others as first met; then the exact form of the result (``_least_reading_code``),
    which reads a set region both ways round.
    """
    empty = np.zeros(0, np.uint8)
    nreg = flat[0]
    # rule 2, boundary by boundary, into ``merged`` (the same layout)
    merged = np.empty(flat.shape[0], np.int64)
    reg_at = np.empty(nreg + 1, np.int64)
    merged[0] = nreg
    p = 1
    q = 1
    maxspot = 0
    for r in range(nreg):
        nb = flat[p]
        p += 1
        reg_at[r] = q
        merged[q] = nb
        q += 1
        for _b in range(nb):
            n = flat[p]
            p += 1
            for c in range(n):
                v = flat[p + c]
                merged[q + 1 + c] = v
                if v >> 2 > maxspot:
                    maxspot = v >> 2
            p += n
            n = _merge_adjacent_corners(merged, q + 1, n)
            merged[q] = n
            q += 1 + n
    reg_at[nreg] = q
    # the distinct spots of each region as met, its lives, and in how many regions each spot is
    distinct = np.empty(q, np.int64)
    dist_at = np.empty(nreg + 1, np.int64)
    occurs = np.zeros(maxspot + 1, np.int64)
    last = np.full(maxspot + 1, -1, np.int64)
    total = np.zeros(nreg, np.int64)
    d = 0
    for r in range(nreg):
        dist_at[r] = d
        p = reg_at[r] + 1
        for _b in range(merged[reg_at[r]]):
            n = merged[p]
            for c in range(n):
                v = merged[p + 1 + c]
                if last[v >> 2] != r:
                    last[v >> 2] = r
                    occurs[v >> 2] += 1
                    total[r] += v & 3
                    distinct[d] = v
                    d += 1
            p += 1 + n
    dist_at[nreg] = d
    # rule 3: each set region's spots in their order (at most three: every spot has a life)
    order = np.zeros((nreg, 3), np.int64)
    size = np.zeros(nreg, np.int64)
    e = np.empty(3, np.int64)
    for r in range(nreg):
        if total[r] > 3:
            continue
        ns = dist_at[r + 1] - dist_at[r]
        if ns > 3:
            return empty  # a dead spot: not a cleaned land
        for i in range(ns):
            v = distinct[dist_at[r] + i]
            if v & 3 == 0:
                return empty
            order[r, i] = v
        # singles first, stably by lives, most first; then capitals as met
        k = 0
        for lv in range(3, 0, -1):
            for i in range(ns):
                v = order[r, i]
                if occurs[v >> 2] < 2 and v & 3 == lv:
                    e[k] = v
                    k += 1
        for i in range(ns):
            v = order[r, i]
            if occurs[v >> 2] >= 2:
                e[k] = v
                k += 1
        for i in range(ns):
            order[r, i] = e[i]
        size[r] = ns
    # the simplified land, and its exact form
    simple = np.empty(q, np.int64)
    simple[0] = nreg
    w = 1
    for r in range(nreg):
        if total[r] > 3:
            n = reg_at[r + 1] - reg_at[r]
            simple[w : w + n] = merged[reg_at[r] : reg_at[r + 1]]
            w += n
            continue
        simple[w] = 1
        simple[w + 1] = size[r]
        for i in range(size[r]):
            simple[w + 2 + i] = order[r, i]
        w += 2 + size[r]
    _code, text = _least_reading_code(simple[:w], True)
    return text
