"""The captures a node makes before it branches, and the capture options it branches on."""

from __future__ import annotations

import numpy as np

from ._switch import kernel
from .lines import _sides_of, _undrawn, across, completions, first_missing, planes


@kernel
def forced_captures(mask, must, line_boxes, box_lines, dims):
    """Draw the captures that lose nothing; returns (line set, boxes gained, its planes).

    Must-complete rule: every capture is forced, and the boxes taken do not depend on
    the order (the set of boxes that become completable is the least fixed point), so
    all of them are made at once; this is the rule itself, not a pruning.

    Free form: a capturable box is taken at once when the box across its last side is
    the edge, or has not exactly two sides drawn (taking it opens no further box, and
    a box of three sides across makes a pair taken by one line).  Declining is only of
    use at the end of a chain or loop, where the box across has two sides
    (Berlekamp, *The Dots-and-Boxes Game*, ch. 3, "all but two"); those are left to
    ``capture_options``.  The tests check this against the retrograde analysis on
    every position of the small boards.  The boxes are visited in index order with
    the planes (``planes``) brought up to date after every line drawn.
    """
    s2, s3, s4 = planes(mask, dims)
    gained = 0
    changed = True
    while changed and s3 != 0:
        changed = False
        for b in range(box_lines.shape[0]):
            if (s3 >> b) & 1:
                line = first_missing(mask, box_lines, b, -1)
                o = across(line_boxes, line, b)
                so = -1
                if o >= 0:
                    so = _sides_of(s2, s3, o)
                if must or so != 2:
                    mask |= np.int64(1) << line
                    gained += 1
                    if so == 3:
                        gained += 1
                    changed = True
                    s2, s3, s4 = planes(mask, dims)
    return mask, gained, s2, s3, s4


@kernel
def chain_end(mask, line_boxes, box_lines, s2, s3, b):
    """Box b has three sides and the box across its last side has two: follow the chain.

    Returns (the line that takes b, the decline line or -1, the far end if it is a
    capturable box or -1).  The decline (Berlekamp's all-but-two and all-but-four) is
    the far side of the second box when exactly two boxes are left in a chain that
    ends at the edge or at a box of fewer than two sides (the opponent gets a pair),
    or the middle line when exactly four boxes are left between two capturable ends
    (two pairs).
    """
    take = first_missing(mask, box_lines, b, -1)
    cur = across(line_boxes, take, b)
    prev = take
    length = 2
    first_exit = -1
    while True:
        nxt_line = first_missing(mask, box_lines, cur, prev)
        if first_exit < 0:
            first_exit = nxt_line
        nxt = across(line_boxes, nxt_line, cur)
        s = -1
        if nxt >= 0:
            s = _sides_of(s2, s3, nxt)
        if s <= 1:
            if length == 2:
                return take, first_exit, -1
            return take, -1, -1
        if s == 3:
            if length + 1 == 4:
                return take, first_exit, nxt
            return take, -1, nxt
        length += 1
        prev = nxt_line
        cur = nxt


@kernel
def capture_options(mask, line_boxes, box_lines, s2, s3, buf):
    """Free form, after ``forced_captures``: the moves worth trying when a box can be taken.

    Fills ``buf`` with lines to draw, a decline written as ``-(line + 1)``, and returns
    how many (0 when no box can be taken).  A chain end with no useful decline is
    simply taken.  When every capturable chain may be declined: one chain alone gives
    take or decline; several give one take per chain end, never a decline while
    another chain can still be taken (its boxes are better taken first, and the
    decline kept for the last chain).
    """
    n = 0
    first_take = -1
    first_decline = -1
    first_far = -1
    count = 0
    if s3 == 0:
        return 0
    for b in range(box_lines.shape[0]):
        if (s3 >> b) & 1:
            take, decline, far = chain_end(mask, line_boxes, box_lines, s2, s3, b)
            if decline < 0:
                buf[0] = take
                return 1
            if count == 0:
                first_take = take
                first_decline = decline
                first_far = far
            buf[n] = take
            n += 1
            count += 1
    if count == 0:
        return 0
    if count == 1 or (count == 2 and first_far >= 0):
        buf[0] = first_take
        buf[1] = -(first_decline + 1)
        return 2
    return n


@kernel
def settle(mask, must, full, line_boxes, box_lines, line_bits, dims, bufs):
    """The captures a node makes before it branches: (line set, boxes gained, capture options, planes).

    ``forced_captures``, then (free form) every chain end with nothing to decline is
    taken, box after box: it has one move.  The options left (0 or at least 2) are in
    ``bufs[lines left]``; the planes (``planes``) are those of the line set returned.
    """
    mask, gained, s2, s3, s4 = forced_captures(mask, must, line_boxes, box_lines, dims)
    count = 0
    if not must:
        while mask != full:
            buf = bufs[_undrawn(mask, full)]
            count = capture_options(mask, line_boxes, box_lines, s2, s3, buf)
            if count != 1:
                break
            gained += completions(line_bits, s3, buf[0])
            mask |= np.int64(1) << buf[0]
            mask, more, s2, s3, s4 = forced_captures(mask, must, line_boxes, box_lines, dims)
            gained += more
            count = 0
    return mask, gained, count, s2, s3, s4
