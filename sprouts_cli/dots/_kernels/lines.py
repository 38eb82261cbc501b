"""Counting on line sets: sides of a box, the bit-parallel planes of box sides, popcount."""

from __future__ import annotations

import numpy as np

from ._switch import kernel


@kernel
def sides(mask, box_lines, b):
    """How many sides of box b are drawn."""
    n = 0
    for k in range(4):
        n += (mask >> box_lines[b, k]) & 1
    return n


@kernel
def first_missing(mask, box_lines, b, skip):
    """An undrawn side of box b other than line ``skip`` (-1 if none)."""
    for k in range(4):
        line = box_lines[b, k]
        if line != skip and not (mask >> line) & 1:
            return line
    return -1


@kernel
def across(line_boxes, line, b):
    """The box on the other side of ``line`` from box b (-1: the edge of the board)."""
    if line_boxes[line, 0] == b:
        return line_boxes[line, 1]
    return line_boxes[line, 0]


@kernel
def completes(mask, line_boxes, box_lines, line):
    """How many boxes drawing ``line`` completes."""
    n = 0
    for k in range(2):
        b = line_boxes[line, k]
        if b >= 0 and sides(mask, box_lines, b) == 3:
            n += 1
    return n


@kernel
def popcount(x):
    """The number of set bits of a non-negative int64 (SWAR, no loop)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 127


@kernel
def planes(mask, dims):
    """The boxes (bit b = box b) with exactly two, exactly three and four sides drawn.

    Bit-parallel: the top sides of the boxes are the first R·C lines as they stand,
    the bottom sides the same shifted by C, the left and right sides one shift per
    row of the vertical lines; the four planes are added as bit vectors.
    ``dims`` is (R, C, index of the first vertical line, box mask).
    """
    rows = dims[0]
    cols = dims[1]
    boxes = dims[3]
    top = mask & boxes
    bottom = (mask >> cols) & boxes
    vertical = mask >> dims[2]
    row = (np.int64(1) << cols) - 1
    left = np.int64(0)
    right = np.int64(0)
    for r in range(rows):
        m = row << (r * cols)
        left |= (vertical >> r) & m
        right |= (vertical >> (r + 1)) & m
    s0 = top ^ bottom
    c0 = top & bottom
    s1 = left ^ right
    c1 = left & right
    bit0 = s0 ^ s1
    k = s0 & s1
    bit1 = c0 ^ c1 ^ k
    bit2 = (c0 & c1) | (k & (c0 | c1))
    return bit1 & ~bit0, bit0 & bit1, bit2


@kernel
def _sides_of(s2, s3, b):
    """Sides drawn of a box not yet taken, from the planes: 2, 3, or 1 for one or none."""
    if (s2 >> b) & 1:
        return 2
    if (s3 >> b) & 1:
        return 3
    return 1


@kernel
def creates_capture(line_bits, s2, line):
    """True when drawing ``line`` (completing nothing) leaves a box with three sides."""
    return (s2 & line_bits[line]) != 0


@kernel
def completions(line_bits, s3, line):
    """How many boxes drawing ``line`` completes, from the three-sided plane."""
    return popcount(s3 & line_bits[line])


@kernel
def _undrawn(mask, full):
    return popcount(full & ~mask)


@kernel
def _bit_length(n):
    k = 0
    while n > 0:
        n >>= 1
        k += 1
    return k
