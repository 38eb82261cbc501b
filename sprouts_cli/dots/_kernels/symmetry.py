"""Canonical line sets under the board's symmetries and corner swaps, and lines mapped to and from them."""

from __future__ import annotations

import numpy as np

from ._switch import kernel


@kernel
def canonical(mask, lut, corners):
    """The smallest line set equivalent to ``mask`` under the board's symmetries and corner swaps,
    with the symmetry that gives it and the corners it swapped (bit k: corner k).

    A corner box's two outer sides both join it to the edge, so which of them is
    drawn does not matter (in Strings-and-Coins both are strings to the ground):
    ``corners[k] = (a, b)`` with a < b, and a set holding b but not a is the same
    position as the one holding a instead.  The corners are mapped onto each other
    by the symmetries, so the least image over symmetries of the corner-normalised
    set is the least of the whole class.
    """
    best = np.int64(-1)
    best_sym = 0
    best_swapped = 0
    for s in range(lut.shape[0]):
        m = np.int64(0)
        for k in range(lut.shape[1]):
            m |= lut[s, k, (mask >> (8 * k)) & 255]
        swapped = 0
        for c in range(corners.shape[0]):
            a = corners[c, 0]
            b = corners[c, 1]
            if (m >> b) & 1 and not (m >> a) & 1:
                m = (m & ~(np.int64(1) << b)) | (np.int64(1) << a)
                swapped |= 1 << c
        if best < 0 or m < best:
            best = m
            best_sym = s
            best_swapped = swapped
    return best, best_sym, best_swapped


@kernel
def _corner_swap(line, swapped, corners):
    for c in range(corners.shape[0]):
        if (swapped >> c) & 1:
            if line == corners[c, 0]:
                return corners[c, 1]
            if line == corners[c, 1]:
                return corners[c, 0]
    return line


@kernel
def to_canonical(line, sym, swapped, perm, corners):
    """Where ``line`` goes when the position is put in its canonical frame."""
    return _corner_swap(perm[sym, line], swapped, corners)


@kernel
def from_canonical(line, sym, swapped, inv, corners):
    """The line of the position that goes to ``line`` of its canonical frame."""
    return inv[sym, _corner_swap(line, swapped, corners)]
